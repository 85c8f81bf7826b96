"""Paired t-test per run pair (Student 1908), for measures that are means of
per-unit scores.

``t = mean(z) / (sd(z) / sqrt(n))`` of the per-unit differences ``z``
(sd with n - 1), two-sided p from the t distribution with n - 1 degrees of
freedom, the interval ``mean(z) +/- t_(1-alpha/2, n-1) sd(z) / sqrt(n)`` and
the effect size ``mean(z) / sd(z)`` (the numbers of scipy's ``ttest_rel`` and
its ``confidence_interval()``, tested).  Computed on each pair scaled by a
power of two and on centred differences (:mod:`.effects`), so scores of any
finite size give the same t and p as the same scores near 1.  Pairs whose
differences are all 0 get ``t = 0, p = 1`` (scipy returns NaN there: no
evidence of a difference); pairs with the same non-zero difference on every
unit (no variance: scipy's infinite t) get ``t`` null and ``p = 1`` with a
warning (:mod:`.effects`, "No residual variance").
"""

from __future__ import annotations

import numpy as np

from ..matrix import ScoreMatrix
from .effects import PairStats, effect, no_variance, pair_differences, paired_sd
from .record import SignificanceTest, baseline_pairs


def pair_tests(matrix: ScoreMatrix, alpha: float = 0.05, ii: np.ndarray | None = None,
               jj: np.ndarray | None = None) -> PairStats:
    """The pairs ``(ii, jj)`` (default: the upper triangle)."""
    from scipy.stats import t as t_dist

    if ii is None or jj is None:
        ii, jj = np.triu_indices(matrix.n_runs, k=1)
    n = matrix.n_units
    full = matrix.full_scores()
    d = full[ii] - full[jj]
    z, e = pair_differences(matrix.values, ii, jj)
    mean, sd = paired_sd(z)
    se = sd / np.sqrt(n)
    zero = np.all(z == 0, axis=0)
    flat = no_variance(sd, np.max(np.abs(z), axis=0)) & ~zero
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(zero | flat, 0.0, mean / np.where(zero | flat, 1.0, se))
    p = np.where(zero | flat, 1.0, 2.0 * t_dist.sf(np.abs(t), n - 1))
    half = float(t_dist.ppf(1.0 - alpha / 2.0, n - 1)) * np.where(zero | flat, 0.0, se)
    return PairStats(d=d, statistic=np.where(flat, np.nan, t), p=np.clip(p, 0.0, 1.0),
                     lower=np.ldexp(mean - half, e), upper=np.ldexp(mean + half, e),
                     effect=effect(mean, sd, flat), no_variance=flat)


def pair_columns(matrix: ScoreMatrix, alpha: float) -> dict:
    """The kernel of the record: the per-pair columns of the upper triangle, their
    intervals at ``alpha`` and effect sizes."""
    r = pair_tests(matrix, alpha)
    return {"d": r.d, "statistic": r.statistic, "p": r.p, "lower": r.lower, "upper": r.upper,
            "effect": r.effect, "flat": int(r.no_variance.sum())}

def baseline_columns(matrix: ScoreMatrix, alpha: float, base: int) -> dict:
    """The baseline kernel of the record: every other run against the run
    ``base``, each pair tested as in :func:`pair_columns`."""
    r = pair_tests(matrix, alpha, *baseline_pairs(matrix.n_runs, base))
    return {"d": r.d, "statistic": r.statistic, "p": r.p, "lower": r.lower, "upper": r.upper,
            "effect": r.effect, "flat": r.no_variance}


TEST = SignificanceTest(
    name="t-test",
    title="the paired t-test",
    description="Paired t-test per run pair on the per-unit scores (scipy.stats.ttest_rel).",
    formula="t = mean(z) / (sd(z) / sqrt(n)), two-sided p of t with n - 1 df",
    citation="Student 1908, The probable error of a mean, Biometrika 6(1); Smucker, Allan & "
             "Carterette 2007, CIKM 2007",
    family_wise=False, resampling=False, mean_only=True, kernel=pair_columns,
    baseline=baseline_columns)
