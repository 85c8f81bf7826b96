"""Randomised Tukey HSD over all runs (Sakai 2014, after Carterette 2012;
Sakai's Discpower tool).

Under the null hypothesis all runs are equally effective: within each unit the
runs' responses are exchangeable.  Permutation ``b`` permutes the runs'
responses within every unit independently, recomputes the measure of every
permuted run and records the largest difference between any two of them,
``max*_b = max_r M(r*) - min_r M(r*)``.  For a pair with observed difference
``d``, ``p = (1 + #{b : max*_b >= |d|}) / (1 + B)``: one reference
distribution for all pairs, which controls the family-wise error over all
pairs (no further correction).

Kernel: permutations come in blocks of about ``CELL_BUDGET`` (run x unit)
cells; each permuted run is scored from its gathered responses
(:meth:`ScoreMatrix.mixed_scores`: a mean, c@1 from counts, CWS in its own
confidence order, PAN's measures from values), which does not depend on the
block.  Counts per pair are integers (``searchsorted`` on the sorted
``max*``), so shards add up exactly.
"""

from __future__ import annotations

import numpy as np

from ...errors import UsageError
from ..matrix import ScoreMatrix
from ..seeds import stable_hash, trial_rng
from .randomisation import tolerance
from .record import SignificanceTest, baseline_pairs

CELL_BUDGET = 4_000_000


def permuted_sources(perms: np.ndarray, n_units: int, n_runs: int, seed: int,
                     measure: str) -> np.ndarray:
    """(len(perms), n_runs, n_units): the run whose response permuted run r takes on unit u."""
    test = stable_hash(TEST.name)
    base = np.broadcast_to(np.arange(n_runs), (n_units, n_runs))
    out = np.empty((len(perms), n_runs, n_units), dtype=np.intp)
    for row, b in enumerate(perms):  # one generator per permutation (seeding)
        out[row] = trial_rng(seed, measure, test, int(b)).permuted(base, axis=1).T
    return out


def max_ranges(matrix: ScoreMatrix, perms: np.ndarray, seed: int, measure: str,
               baseline: int | None = None) -> np.ndarray:
    """``max*_b`` of each permutation in ``perms``: the largest difference between
    any two permuted runs or, with ``baseline``, between any permuted run and
    the permuted baseline (the family of the comparisons with a baseline)."""
    step = max(1, CELL_BUDGET // (matrix.n_units * matrix.n_runs))
    out = np.empty(len(perms))
    for k0 in range(0, len(perms), step):
        src = permuted_sources(perms[k0:k0 + step], matrix.n_units, matrix.n_runs, seed, measure)
        sc = matrix.mixed_scores(src)
        if baseline is None:
            out[k0:k0 + step] = sc.max(axis=1) - sc.min(axis=1)
        else:
            out[k0:k0 + step] = np.abs(sc - sc[:, baseline:baseline + 1]).max(axis=1)
    return out


def extreme_counts(matrix: ScoreMatrix, perms: np.ndarray, seed: int, measure: str,
                   exact: bool = False, ii: np.ndarray | None = None,
                   jj: np.ndarray | None = None,
                   baseline: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(d, extreme)``: observed differences of the pairs ``(ii, jj)`` (default:
    the upper triangle) and ``#{b : max*_b >= |d|}`` (``max*`` over all pairs,
    or over the comparisons with ``baseline``); drawn permutations only: there
    is no exact mode."""
    if exact:
        raise UsageError(f"{TEST.title} has no exact mode")
    if ii is None or jj is None:
        ii, jj = np.triu_indices(matrix.n_runs, k=1)
    full = matrix.full_scores()
    d = full[ii] - full[jj]
    ranges = np.sort(max_ranges(matrix, perms, seed, measure, baseline))
    bound = np.abs(d) - tolerance(d)
    extreme = (len(ranges) - np.searchsorted(ranges, bound, side="left")).astype(np.int64)
    return d, extreme


def baseline_counts(matrix: ScoreMatrix, perms: np.ndarray, seed: int, measure: str,
                    exact: bool, base: int) -> tuple[np.ndarray, np.ndarray]:
    """The comparisons with the run ``base``, against the largest difference
    between any permuted run and the permuted baseline (Westfall & Young
    1993's single-step max-T over the comparisons with the baseline)."""
    ii, jj = baseline_pairs(matrix.n_runs, base)
    return extreme_counts(matrix, perms, seed, measure, exact, ii, jj, baseline=base)


TEST = SignificanceTest(
    name="tukey-hsd",
    title="randomised Tukey HSD",
    description="Randomised Tukey HSD: the runs' responses are permuted within each unit, "
                "the measure recomputed for every permuted run, and each pair's difference "
                "compared with the largest difference between any two permuted runs.",
    formula="p = (1 + #{b: max_r M(r*_b) - min_r M(r*_b) >= |d|}) / (1 + B)",
    citation="Sakai 2014, Statistical reform in information retrieval?, SIGIR Forum 48(1); "
             "Carterette 2012, Multiple testing in statistical analysis of systems-based "
             "information retrieval experiments, ACM TOIS 30(1)",
    family_wise=True, resampling=True, mean_only=False, kernel=extreme_counts,
    baseline=baseline_counts)
