"""Runs that cannot be distinguished, as a compact letter display (issue 20).

For each run, the runs it cannot be distinguished from under one criterion:
the swap method's required difference (a pair differing by less than it,
within 1e-12, cannot be told apart; a null required difference, the error
level never reached, leaves every pair indistinguishable), or a significance
test's adjusted decision (a pair not significant cannot be told apart).  No
boundary is drawn between runs: the relation is not transitive, and the
letters show it as it is.

Letters: Piepho's insert-absorb algorithm (Piepho 2004, "An Algorithm for a
Letter-Based Representation of All-Pairwise Comparisons", J. Computational
and Graphical Statistics 13(2)).  Start with one letter shared by all runs;
for each distinguishable pair (i, j), every letter held by both is split into
two, one without i and one without j (insert), then a letter whose runs are a
subset of another letter's is dropped (absorb).  Guarantee (tested): two
runs share a letter if and only if they cannot be distinguished.  Known
limits of letter displays: the number of letters is not minimal (Piepho's
optional sweep is not applied), and a letter's runs need not be adjacent in
score order.  Letters are named a-z, then A-Z, then two characters, in the
order of the best run holding them (the top run gets ``a``).
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Sequence

import numpy as np
import polars as pl

from ..errors import UsageError

SCHEMA = {"criterion": pl.Utf8, "run": pl.Utf8, "score": pl.Float64, "letters": pl.Utf8,
          "n_indistinguishable": pl.Int64, "indistinguishable": pl.List(pl.Utf8),
          "threshold": pl.Float64}
_ALPHABET = string.ascii_lowercase + string.ascii_uppercase
#: differences within this of the required difference count as reaching it
TOLERANCE = 1e-12


def letter_name(k: int) -> str:
    """a..z, A..Z, then two characters (aa, ab, ...)."""
    if k < len(_ALPHABET):
        return _ALPHABET[k]
    k -= len(_ALPHABET)
    return _ALPHABET[k // len(_ALPHABET) % len(_ALPHABET)] + _ALPHABET[k % len(_ALPHABET)]


def insert_absorb(n: int, different: Iterable[tuple[int, int]]) -> list[int]:
    """Piepho's insert-absorb on items 0..n-1: the letters as bit sets."""
    cols: list[int] = [(1 << n) - 1] if n else []
    for i, j in different:
        both = (1 << i) | (1 << j)
        keep, new = [], []
        for c in cols:
            if c & both == both:
                new += [c & ~(1 << i), c & ~(1 << j)]
            else:
                keep.append(c)
        for c in new:  # absorb: only the new letters can be subsets of another
            if any(c & o == c for o in keep) or any(c & o == c and c != o for o in new):
                continue
            if c not in keep:
                keep.append(c)
        cols = keep
    return cols


def compact_letters(runs: Sequence[str], scores: Sequence[float],
                    different: np.ndarray) -> list[str]:
    """Letters of each run (in the order of ``runs``): ``different`` (R, R) bool,
    symmetric, True where the pair can be distinguished."""
    n = len(runs)
    diff = np.asarray(different, dtype=bool)
    if diff.shape != (n, n) or not np.array_equal(diff, diff.T):
        raise UsageError("the distinguishable pairs must be a symmetric run x run matrix")
    order = sorted(range(n), key=lambda k: (-float(scores[k]), str(runs[k])))
    pos = {k: r for r, k in enumerate(order)}  # bit = place in score order
    pairs = sorted((pos[a], pos[b]) for a in range(n) for b in range(a + 1, n) if diff[a, b])
    cols = insert_absorb(n, [(min(p), max(p)) for p in pairs])
    cols.sort(key=lambda c: [b for b in range(n) if c >> b & 1])
    out = []
    for k in range(n):
        bit = pos[k]
        out.append("".join(letter_name(x) for x, c in enumerate(cols) if c >> bit & 1))
    return out


def _frame(criterion: str, runs: list[str], scores: np.ndarray, different: np.ndarray,
           threshold: float | None) -> pl.DataFrame:
    letters = compact_letters(runs, scores, different)
    order = sorted(range(len(runs)), key=lambda k: (-scores[k], runs[k]))
    same = [[runs[j] for j in order if j != k and not different[k, j]] for k in order]
    return pl.DataFrame({
        "criterion": [criterion] * len(runs), "run": [runs[k] for k in order],
        "score": scores[order], "letters": [letters[k] for k in order],
        "n_indistinguishable": [len(s) for s in same], "indistinguishable": same,
        "threshold": [threshold] * len(runs)}, schema=SCHEMA)


def swap_letters(runs: Sequence[str], scores: Sequence[float],
                 required_difference: float | None) -> pl.DataFrame:
    """Criterion ``swap``: a pair is distinguishable when its difference is at
    least the required difference (within 1e-12); none when it is null."""
    runs = [str(r) for r in runs]
    s = np.asarray(scores, dtype=np.float64)
    if len(runs) != len(s):
        raise UsageError("runs and scores must have the same length")
    gap = np.abs(s[:, None] - s[None, :])
    if required_difference is None or not np.isfinite(required_difference):
        different = np.zeros(gap.shape, bool)
        required_difference = None
    else:
        different = gap >= float(required_difference) - TOLERANCE
        np.fill_diagonal(different, False)
    return _frame("swap", runs, s, different, required_difference)


def significance_letters(runs: Sequence[str], scores: Sequence[float], pairs: pl.DataFrame,
                 alpha: float | None = None) -> pl.DataFrame:
    """Criterion = the test's name: a pair is distinguishable when ``significant``
    (adjusted) in ``pairs`` (run_a, run_b, test, significant); pairs with a run
    not in ``runs`` are ignored, a missing pair is an error."""
    runs = [str(r) for r in runs]
    s = np.asarray(scores, dtype=np.float64)
    at = {r: k for k, r in enumerate(runs)}
    different = np.zeros((len(runs), len(runs)), bool)
    seen = np.eye(len(runs), dtype=bool)
    for a, b, sig in pairs.select("run_a", "run_b", "significant").iter_rows():
        if a in at and b in at:
            different[at[a], at[b]] = different[at[b], at[a]] = bool(sig)
            seen[at[a], at[b]] = seen[at[b], at[a]] = True
    if not seen.all():
        a, b = np.argwhere(~seen)[0]
        raise UsageError(f"the significance pairs lack the pair {runs[a]!r}, {runs[b]!r}")
    test = str(pairs["test"][0]) if pairs.height else "test"
    return _frame(test, runs, s, different, alpha)


__all__ = ["SCHEMA", "compact_letters", "insert_absorb", "letter_name", "swap_letters",
           "significance_letters"]
