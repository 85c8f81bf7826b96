"""Runs that cannot be distinguished, as a compact letter display.

For each run, the runs it cannot be distinguished from under one criterion:
the swap method's required difference (a pair differing by less than it,
within 1e-12, cannot be told apart; a null required difference, the error
level never reached, leaves every pair indistinguishable), or a significance
test's adjusted decision (a pair not significant cannot be told apart).  No
boundary is drawn between runs: the relation is not transitive, and the
letters show it as it is.

Letters.  A display in which "two runs share a letter if and only if they
cannot be distinguished" is a set of cliques of the graph whose edges are the
indistinguishable pairs, covering every edge (and every run without one); its
number of letters is at least the graph's edge clique cover number.  Piepho
2004 ("An Algorithm for a Letter-Based Representation of All-Pairwise
Comparisons", J. Computational and Graphical Statistics 13(2)) builds one by
insert-and-absorb, which yields every maximal clique, then drops what is
redundant ("sweeping"); Gramm, Guo, Hüffner, Niedermeier, Piepho & Schmid 2007
("Algorithms for compact letter displays: Comparison and evaluation",
Computational Statistics & Data Analysis 52(2)) state the task as this clique
cover problem and show that insert-absorb's letters can be far from the
fewest.  qacamp therefore:

1. enumerates the maximal cliques (Bron & Kerbosch 1973, with Tomita, Tanaka &
   Takahashi 2006's pivot; an optimal cover may always use maximal cliques:
   enlarging a letter to a maximal clique keeps the display right);
2. picks the fewest of them covering every indistinguishable pair and every
   run, as the set-cover integer program ``min sum x_c`` subject to
   ``sum_{c covers e} x_c >= 1`` for every edge ``e``, ``x`` binary, solved
   exactly by scipy's ``milp`` (HiGHS; deterministic, at most
   :data:`NODE_LIMIT` branch-and-bound nodes);
3. falls back, when there are more than :data:`MAX_CLIQUES` maximal cliques
   or the solver stops at its node limit, to the better of the solver's
   incumbent and the greedy set cover over the maximal cliques (Chvátal
   1979), or, without the cliques, to Kou, Stockmeyer & Wong 1978's greedy
   edge clique cover;
4. sweeps (Piepho 2004): in letter order and score order, a run leaves a
   letter when every pair that letter gives it is shared through another
   letter; a letter left empty disappears.

Guarantees (tested): two runs share a letter if and only if they cannot be
distinguished; the number of letters is the minimum whenever step 2 finishes
(the tests compute the minimum independently on the real TREC matrices).  A
letter's runs need not be adjacent in score order.  Letters are named in the
order of the best run holding them (the top run gets ``a``): up to 52 letters
``a``-``z`` then ``A``-``Z``, one character each, written without separator
(``abc``); beyond 52, every letter is a character and an index (``a1`` ...
``Z1``, ``a2`` ...), so the text splits unambiguously (:func:`split_letters`).
"""

from __future__ import annotations

import re
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
#: most maximal cliques enumerated for the exact cover (beyond: the greedy cover)
MAX_CLIQUES = 1_000
#: branch-and-bound nodes the integer program may use
NODE_LIMIT = 100
_TOKEN = re.compile(r"[A-Za-z][0-9]*")


def letter_name(k: int, total: int) -> str:
    """The ``k``-th of ``total`` letters: ``a``..``z``, ``A``..``Z`` while
    ``total <= 52``; else a character and an index (``a1``..``Z1``, ``a2``...)."""
    if total <= len(_ALPHABET):
        return _ALPHABET[k]
    return _ALPHABET[k % len(_ALPHABET)] + str(k // len(_ALPHABET) + 1)


def split_letters(text: str) -> list[str]:
    """The letters of one run as written (``"abZ"`` -> a, b, Z; ``"a1b2"`` -> a1, b2)."""
    return _TOKEN.findall(text or "")


def _bits(x: int) -> Iterable[int]:
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


class _TooMany(Exception):
    pass


def maximal_cliques(neighbours: Sequence[int], limit: int | None = None) -> list[int]:
    """Every maximal clique of the graph (``neighbours[v]``: bit set of v's
    neighbours, no self loops) as bit sets: Bron-Kerbosch with Tomita's pivot
    (the vertex of P | X with most neighbours in P), iterative.  Raises
    :class:`_TooMany` past ``limit`` cliques."""
    n = len(neighbours)
    out: list[int] = []
    if not n:
        return out
    stack = [(0, (1 << n) - 1, 0)]
    while stack:
        r, p, x = stack.pop()
        if not p:
            if not x:
                out.append(r)
                if limit is not None and len(out) > limit:
                    raise _TooMany
            continue
        pivot = max(_bits(p | x), key=lambda v: (p & neighbours[v]).bit_count())
        for v in _bits(p & ~neighbours[pivot]):
            bit = 1 << v
            stack.append((r | bit, p & neighbours[v], x & neighbours[v]))
            p &= ~bit
            x |= bit
    return out


def _elements(neighbours: Sequence[int]) -> dict[tuple[int, int], int]:
    """What a display must cover, numbered: every edge (i < j) and every
    isolated vertex (i, i)."""
    out: dict[tuple[int, int], int] = {}
    for i, nb in enumerate(neighbours):
        if not nb:
            out[(i, i)] = len(out)
        for j in _bits(nb >> (i + 1) << (i + 1)):
            out[(i, j)] = len(out)
    return out


def _covered(clique: int, elements: dict[tuple[int, int], int]) -> list[int]:
    """The elements a clique covers (its edges; a single vertex: itself)."""
    members = list(_bits(clique))
    if len(members) == 1:
        return [elements[(members[0], members[0])]]
    return [elements[(a, b)] for k, a in enumerate(members) for b in members[k + 1:]]


def _greedy_cover(cliques: list[int], covers: list[list[int]], n_elements: int) -> list[int]:
    """Chvátal's greedy set cover: the clique covering most uncovered elements
    (ties: the first), until all are covered."""
    left = set(range(n_elements))
    members = [set(c) for c in covers]
    chosen = []
    while left:
        best = max(range(len(cliques)), key=lambda i: len(members[i] & left))
        chosen.append(cliques[best])
        left -= members[best]
    return chosen


def _exact_cover(cliques: list[int], elements: dict[tuple[int, int], int]) -> list[int]:
    """The fewest cliques covering every element (set-cover integer program,
    scipy's milp); the better of its incumbent and the greedy cover when the
    solver stops at :data:`NODE_LIMIT`."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import csc_array

    covers = [_covered(c, elements) for c in cliques]
    greedy = _greedy_cover(cliques, covers, len(elements))
    if len(greedy) <= 1:
        return greedy
    rows = np.fromiter((k for c in covers for k in c), np.int64)
    cols = np.repeat(np.arange(len(cliques)), [len(c) for c in covers])
    a = csc_array((np.ones(len(rows)), (rows, cols)), shape=(len(elements), len(cliques)))
    res = milp(np.ones(len(cliques)), constraints=LinearConstraint(a, lb=1.0, ub=np.inf),
               integrality=np.ones(len(cliques)), bounds=Bounds(0.0, 1.0),
               options={"node_limit": NODE_LIMIT, "presolve": True})
    if res.x is None:
        return greedy
    chosen = np.flatnonzero(np.asarray(res.x) > 0.5)
    hit = np.zeros(len(elements), bool)
    for c in chosen:
        hit[covers[c]] = True
    return [cliques[c] for c in chosen] if hit.all() and len(chosen) <= len(greedy) else greedy


def _greedy_edge_cover(neighbours: Sequence[int]) -> list[int]:
    """Kou, Stockmeyer & Wong 1978: take the first uncovered edge (or isolated
    vertex) and grow a clique from it, adding the candidate with most
    uncovered edges into the clique, until every edge is covered."""
    n = len(neighbours)
    uncovered = [nb for nb in neighbours]
    out = []
    for i in range(n):
        if not neighbours[i]:
            out.append(1 << i)
    for i in range(n):
        while uncovered[i]:
            j = (uncovered[i] & -uncovered[i]).bit_length() - 1
            clique = (1 << i) | (1 << j)
            cand = neighbours[i] & neighbours[j]
            while cand:
                v = max(_bits(cand), key=lambda w: ((uncovered[w] & clique).bit_count(),
                                                    -w))
                clique |= 1 << v
                cand &= neighbours[v]
            for v in _bits(clique):
                uncovered[v] &= ~clique
            out.append(clique)
    return out


def cover_letters(n: int, different: Iterable[tuple[int, int]]) -> list[int]:
    """The letters of items 0..n-1 as bit sets (see the module docstring):
    ``different`` holds the distinguishable pairs."""
    if not n:
        return []
    full = (1 << n) - 1
    neighbours = [full & ~(1 << i) for i in range(n)]
    for i, j in different:
        neighbours[i] &= ~(1 << j)
        neighbours[j] &= ~(1 << i)
    elements = _elements(neighbours)
    try:
        cliques = maximal_cliques(neighbours, MAX_CLIQUES)
    except _TooMany:
        chosen = _greedy_edge_cover(neighbours)
    else:
        cliques.sort(key=lambda c: list(_bits(c)))
        chosen = _exact_cover(cliques, elements)
    return _sweep(sorted(chosen, key=lambda c: list(_bits(c))), n)


def _sweep(cols: list[int], n: int) -> list[int]:
    """Piepho's sweeping: a run leaves a letter when every run of that letter
    also shares another letter with it; empty letters disappear."""
    cols = list(cols)
    for k in range(len(cols)):
        for v in _bits(cols[k]):
            others = 0
            for m, c in enumerate(cols):
                if m != k and c >> v & 1:
                    others |= c
            if cols[k] & ~(1 << v) & ~others == 0 and (others or cols[k] != 1 << v):
                cols[k] &= ~(1 << v)
    return [c for c in cols if c]


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
    pairs = sorted((min(pos[a], pos[b]), max(pos[a], pos[b]))
                   for a in range(n) for b in range(a + 1, n) if diff[a, b])
    cols = cover_letters(n, pairs)
    cols.sort(key=lambda c: list(_bits(c)))
    names = [letter_name(x, len(cols)) for x in range(len(cols))]
    out = []
    for k in range(n):
        bit = pos[k]
        out.append("".join(names[x] for x, c in enumerate(cols) if c >> bit & 1))
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


__all__ = ["MAX_CLIQUES", "NODE_LIMIT", "SCHEMA", "compact_letters", "cover_letters",
           "letter_name", "maximal_cliques", "significance_letters", "split_letters",
           "swap_letters"]
