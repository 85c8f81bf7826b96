"""How large a difference is: scaled arithmetic, standardised effect sizes and
the percentile bootstrap interval of the permutation tests.

**Scaled arithmetic.**  The t-test and the ANOVA square differences; scores
around 1e300 overflow there (the variance becomes inf, t 0, p 1) although the
permutation tests, which only add them, handle them.  :func:`scaled`
multiplies a matrix (:func:`pair_differences`: a pair's two runs) by a power
of two (exact in binary floating point) so its largest absolute value lies in
[0.5, 1); every statistic is then computed on centred values (deviations
from their mean) and t, q, F, p and the effect sizes, which do not depend on
the scale, are exact; means, differences and intervals are scaled back by
the same power of two.

**No residual variance.**  When the residual standard deviation is at most
:data:`ROUNDING` times the largest absolute value it is rounding noise (the
same difference on every unit, or an exactly additive matrix): the t-test and
the ANOVA have no error to weigh a difference against.  A zero difference is
then reported as ``statistic 0, p 1``; a non-zero one as ``statistic null,
p 1, not significant``, its interval the difference itself and its effect
size null, and the summary's warning names the pairs (the permutation tests
can weigh them).  Nothing infinite or NaN is written.

**Effect sizes** (Sakai 2014, "Statistical reform in information
retrieval?", SIGIR Forum 48(1); Sakai 2018, *Laboratory Experiments in
Information Retrieval*, Springer, ch. 5): the difference over a residual
standard deviation, so differences of different measures and collections
compare.  Per-pair tests (t-test, randomisation): the mean difference over
the standard deviation of the per-unit differences (``d / s_d``, n - 1).
All-pairs tests (ANOVA + Tukey HSD, randomised Tukey HSD): Sakai's
``ES_E = (m_a - m_b) / sqrt(V_E)``, with ``V_E`` the residual variance of the
two-way ANOVA without replication on the unit x run matrix.  The per-unit
scores are the matrix's values for a measure that is their mean; for c@1,
CWS and PAN's measures, which are not, they are the jackknife pseudo-values
``n M - (n - 1) M_(-u)`` (Quenouille 1956; Efron & Tibshirani 1993, *An
Introduction to the Bootstrap*, ch. 11), which are the per-unit scores
themselves when the measure is a mean.

**Intervals.**  The t-test: ``mean(z) +/- t_(1-alpha/2, n-1) sd(z)/sqrt(n)``
(scipy's ``ttest_rel(...).confidence_interval()``).  ANOVA + Tukey HSD:
Tukey's simultaneous interval ``d +/- q_(1-alpha; R, df) sqrt(V_E / n)``.
The permutation tests: the percentile bootstrap interval of the difference
(Efron & Tibshirani 1993, ch. 13): :data:`INTERVAL_SAMPLES` bootstrap samples
of the units (drawn with replacement), the measure recomputed on each for
every run, and with ``k = max(1, floor((B + 1) alpha / 2))`` the interval from
the k-th smallest to the k-th largest bootstrap difference.  Bootstrap sample
``b`` draws from ``SeedSequence([seed, crc32(measure), crc32("interval"), b])``
only, the same for both permutation tests; shards draw disjoint ranges of
``b`` and keep the k smallest and k largest differences per pair, so the
merged interval is the same for any shard count.  Intervals are at level
1 - alpha (95% at the default alpha), per pair except Tukey's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..matrix import ROUNDING, ScoreMatrix
from ..seeds import stable_hash, trial_rng

#: bootstrap samples of the permutation tests' percentile interval
INTERVAL_SAMPLES = 2000
#: (sample x unit x run) cells per block of the bootstrap kernel
CELL_BUDGET = 4_000_000


@dataclass(frozen=True)
class PairStats:
    """Per pair: the observed difference, the statistic (NaN = none), p, the
    interval, the effect size (NaN = none) and whether the residual variance
    is rounding noise while the difference is not zero."""

    d: np.ndarray
    statistic: np.ndarray
    p: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    effect: np.ndarray
    no_variance: np.ndarray


def scaled(values: np.ndarray) -> tuple[np.ndarray, int]:
    """``(values * 2**-e, e)`` with the largest absolute value in [0.5, 1)
    (``e = 0`` for an all-zero matrix); exact in binary floating point."""
    v = np.asarray(values, dtype=np.float64)
    big = float(np.max(np.abs(v))) if v.size else 0.0
    if big == 0.0 or not math.isfinite(big):
        return v, 0
    e = math.frexp(big)[1]
    return np.ldexp(v, -e), e


def pair_differences(values: np.ndarray, ii: np.ndarray,
                     jj: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(z, e)``: the per-unit differences of the pairs ``(ii, jj)`` computed on
    each pair's two columns scaled by ``2**-e`` (largest absolute value of the
    two in [0.5, 1)), so neither huge nor subnormal scores are lost."""
    v = np.asarray(values, dtype=np.float64)
    big = np.max(np.abs(v), axis=0) if len(v) else np.zeros(v.shape[1])
    _, run_e = np.frexp(big)
    e = np.maximum(run_e[ii], run_e[jj]).astype(np.int64)
    return np.ldexp(v[:, ii], -e) - np.ldexp(v[:, jj], -e), e


def paired_sd(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(mean, sd)`` per column of ``z`` (units x pairs), sd with n - 1, computed
    on centred values."""
    mean = z.mean(axis=0)
    c = z - mean
    return mean, np.sqrt((c * c).sum(axis=0) / (len(z) - 1))


def no_variance(sd: np.ndarray | float, scale: np.ndarray | float) -> np.ndarray:
    """Where a residual standard deviation is rounding noise of values up to ``scale``."""
    return np.asarray(sd) <= ROUNDING * np.asarray(scale)


def effect(d: np.ndarray, sd: np.ndarray | float, degenerate: np.ndarray) -> np.ndarray:
    """``d / sd``; 0 for a zero difference, NaN (written as null) where the
    residual variance is rounding noise and the difference is not zero."""
    d = np.asarray(d, dtype=np.float64)
    sd = np.broadcast_to(np.asarray(sd, dtype=np.float64), d.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(degenerate, np.nan, d / np.where(degenerate, 1.0, sd))
    return np.where(d == 0.0, 0.0, out)


def residual_sd(y: np.ndarray) -> float:
    """Standard deviation of the residuals of the two-way ANOVA without
    replication on ``y`` (units x runs): ``sqrt(SS_res / ((R - 1)(n - 1)))``."""
    n, r = y.shape
    res = y - y.mean(axis=0)[None, :] - y.mean(axis=1)[:, None] + y.mean()
    return math.sqrt(float((res * res).sum()) / ((r - 1) * (n - 1)))


def pseudo_values(matrix: ScoreMatrix) -> np.ndarray:
    """Per-unit scores (units x runs): the values of a mean; for any other
    measure the jackknife pseudo-values ``n M - (n - 1) M_(-u)``."""
    if matrix.aggregator == "mean":
        return np.asarray(matrix.values, dtype=np.float64)
    n = matrix.n_units
    full = matrix.full_scores()
    keep = np.arange(n)
    out = np.empty((n, matrix.n_runs))
    step = max(1, CELL_BUDGET // max(1, n * matrix.n_runs))
    for u0 in range(0, n, step):
        drop = np.arange(u0, min(n, u0 + step))
        idx = np.stack([np.delete(keep, u) for u in drop])
        out[drop] = n * full[None, :] - (n - 1) * matrix.subset_scores(idx)
    return out


def pair_effects(matrix: ScoreMatrix, ii: np.ndarray, jj: np.ndarray,
                 family: bool) -> np.ndarray:
    """Standardised effect sizes of the pairs ``(ii, jj)`` of a permutation test:
    ``d / s_d`` of the per-unit scores (``family`` False) or Sakai's ``ES_E``."""
    d = matrix.full_scores()[ii] - matrix.full_scores()[jj]
    pv = pseudo_values(matrix)
    if family:
        y, e = scaled(pv)
        sd = residual_sd(y)
        scale = float(np.max(np.abs(y))) if y.size else 0.0
        gone = np.full(len(ii), bool(no_variance(sd, scale)))
        return effect(np.ldexp(d, -e), sd, gone)
    z, e = pair_differences(pv, ii, jj)
    _, sd = paired_sd(z)
    gone = no_variance(sd, np.max(np.abs(z), axis=0))
    return effect(np.ldexp(d, -e), sd, gone)


def tail_size(samples: int, alpha: float) -> int:
    """``k``: the interval runs from the k-th smallest to the k-th largest of
    ``samples`` bootstrap differences."""
    return max(1, min(samples, math.floor((samples + 1) * alpha / 2)))


def bootstrap_tails(matrix: ScoreMatrix, ii: np.ndarray, jj: np.ndarray, trials: np.ndarray,
                    seed: int, measure: str, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` smallest and ``k`` largest bootstrap differences of each pair
    over the bootstrap samples ``trials``: two (pairs, min(k, len(trials)))
    arrays, each row sorted ascending."""
    n, r = matrix.n_units, matrix.n_runs
    label = stable_hash("interval")
    low = np.empty((0, len(ii)))
    high = np.empty((0, len(ii)))
    step = max(1, CELL_BUDGET // max(1, n * r))
    for b0 in range(0, len(trials), step):
        block = trials[b0:b0 + step]
        idx = np.stack([trial_rng(seed, measure, label, int(b)).integers(0, n, n)
                        for b in block])  # one generator per sample (seeding)
        sc = matrix.subset_scores(idx)
        dstar = sc[:, ii] - sc[:, jj]
        low = _keep(np.concatenate([low, dstar]), k, smallest=True)
        high = _keep(np.concatenate([high, dstar]), k, smallest=False)
    return np.sort(low, axis=0).T, np.sort(high, axis=0).T


def _keep(x: np.ndarray, k: int, smallest: bool) -> np.ndarray:
    if len(x) <= k:
        return x
    if smallest:
        return np.partition(x, k - 1, axis=0)[:k]
    return np.partition(x, len(x) - k, axis=0)[len(x) - k:]


def merge_tails(lows: list[np.ndarray], highs: list[np.ndarray],
                k: int) -> tuple[np.ndarray, np.ndarray]:
    """The shards' tails (pairs, *) combined into the k smallest and largest."""
    low = np.concatenate(lows, axis=1).T
    high = np.concatenate(highs, axis=1).T
    return (np.sort(_keep(low, k, True), axis=0).T, np.sort(_keep(high, k, False), axis=0).T)


def percentile_interval(low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(lower, upper)``: the k-th smallest and k-th largest bootstrap
    differences from the merged tails (each row sorted ascending, k wide)."""
    return low[:, -1].copy(), high[:, 0].copy()


__all__ = ["INTERVAL_SAMPLES", "PairStats", "ROUNDING", "bootstrap_tails", "effect", "merge_tails",
           "no_variance", "pair_differences", "pair_effects", "paired_sd", "percentile_interval",
           "pseudo_values", "residual_sd", "scaled", "tail_size"]
