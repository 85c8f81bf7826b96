"""Paired randomisation (Fisher) test per run pair (Fisher 1935; Smucker, Allan &
Carterette 2007).

Under the null hypothesis the two runs' responses on a unit are exchangeable.
Permutation ``b`` swaps the two runs' responses on each unit with probability
1/2 (one swap vector per permutation, shared by every pair), recomputes the
measure of both permuted runs and records ``d*_b = M(x*) - M(y*)``;
``p = (1 + #{b : |d*_b| >= |d|}) / (1 + B)`` with ``d`` the observed
difference.  Exact mode enumerates all ``2^n`` swap vectors (vector ``b`` swaps
unit ``u`` iff bit ``u`` of ``b`` is set; no randomness):
``p = #{b : |d*_b| >= |d|} / 2^n``.

Kernel: for a measure that is a mean of per-unit scores, ``d*`` of every
pair and permutation is one matrix product ``(1 - 2 S) Z / n`` (S the swap
vectors, Z the per-unit differences), in blocks of a fixed number of
permutations aligned to the permutation index (the product's shape, hence its
bits, never depend on the sharding).  Any other measure is recomputed from the
swapped responses (:meth:`ScoreMatrix.mixed_scores`).  A difference within
``1e-12 * max(1, |d|)`` of ``|d|`` counts as at least as extreme.
"""

from __future__ import annotations

import numpy as np

from ..matrix import ScoreMatrix
from ..seeds import stable_hash, trial_rng
from .record import SignificanceTest, baseline_pairs

#: permutations per block of the mean kernel (fixed: see module docstring)
CHUNK = 128
#: (permutation x pair x unit) cells per block of the recomputing kernel
CELL_BUDGET = 4_000_000
#: largest unit count for exact enumeration (2^20 swap vectors)
MAX_EXACT_UNITS = 20


def tolerance(d: np.ndarray) -> np.ndarray:
    return 1e-12 * np.maximum(1.0, np.abs(d))


def swap_vectors(perms: np.ndarray, n: int, seed: int, measure: str, exact: bool) -> np.ndarray:
    """Swap vectors (len(perms), n) of bools: seeded per permutation, or its bits."""
    if exact:
        return ((perms[:, None] >> np.arange(n)[None, :]) & 1).astype(bool)
    test = stable_hash(TEST.name)
    out = np.empty((len(perms), n), dtype=bool)
    for row, b in enumerate(perms):  # one generator per permutation (seeding)
        out[row] = trial_rng(seed, measure, test, int(b)).integers(0, 2, n).astype(bool)
    return out


def extreme_counts(matrix: ScoreMatrix, perms: np.ndarray, seed: int, measure: str,
                   exact: bool = False, ii: np.ndarray | None = None,
                   jj: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(d, extreme)``: observed differences of the pairs ``(ii, jj)`` (default:
    the upper triangle) and, per pair, how many of the permutations ``perms``
    give ``|d*| >= |d|`` (a pair's count does not depend on the other pairs)."""
    if ii is None or jj is None:
        ii, jj = np.triu_indices(matrix.n_runs, k=1)
    n = matrix.n_units
    full = matrix.full_scores()
    d = full[ii] - full[jj]
    bound = np.abs(d) - tolerance(d)
    extreme = np.zeros(len(ii), np.int64)
    if not len(perms):
        return d, extreme
    if matrix.aggregator == "mean":
        z = matrix.values[:, ii] - matrix.values[:, jj]  # (n, P)
        for block_id in np.unique(perms // CHUNK):
            block = perms[perms // CHUNK == block_id]
            sign = np.zeros((CHUNK, n))
            sign[block % CHUNK] = 1.0 - 2.0 * swap_vectors(block, n, seed, measure, exact)
            dstar = (sign @ z)[block % CHUNK] / n
            extreme += (np.abs(dstar) >= bound).sum(axis=0)
        return d, extreme
    step_p = max(1, min(len(ii), CELL_BUDGET // max(1, n)))
    step_b = max(1, CELL_BUDGET // (n * step_p))
    for b0 in range(0, len(perms), step_b):
        swap = swap_vectors(perms[b0:b0 + step_b], n, seed, measure, exact)[:, None, :]
        for p0 in range(0, len(ii), step_p):
            a, b = ii[p0:p0 + step_p, None], jj[p0:p0 + step_p, None]
            dstar = (matrix.mixed_scores(np.where(swap, b, a))
                     - matrix.mixed_scores(np.where(swap, a, b)))
            extreme[p0:p0 + step_p] += (np.abs(dstar) >= bound[p0:p0 + step_p]).sum(axis=0)
    return d, extreme


def baseline_counts(matrix: ScoreMatrix, perms: np.ndarray, seed: int, measure: str,
                    exact: bool, base: int) -> tuple[np.ndarray, np.ndarray]:
    """The comparisons with the run ``base``: the same per-pair counts as
    :func:`extreme_counts` (a pair's count does not depend on the other pairs)."""
    return extreme_counts(matrix, perms, seed, measure, exact, *baseline_pairs(matrix.n_runs,
                                                                               base))


TEST = SignificanceTest(
    name="randomisation",
    title="the paired randomisation test",
    description="Fisher's paired randomisation test per run pair: the two runs' responses "
                "are swapped on each unit with probability 1/2 and the measure recomputed.",
    formula="p = (1 + #{b: |d*_b| >= |d|}) / (1 + B); exact: #{b: |d*_b| >= |d|} / 2^n",
    citation="Fisher 1935, The Design of Experiments; Smucker, Allan & Carterette 2007, A "
             "Comparison of Statistical Significance Tests for Information Retrieval "
             "Evaluation, CIKM 2007",
    family_wise=False, resampling=True, mean_only=False, exact=True, kernel=extreme_counts,
    baseline=baseline_counts)
