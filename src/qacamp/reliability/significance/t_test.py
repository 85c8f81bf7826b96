"""Paired t-test per run pair (Student 1908), scipy's ``ttest_rel``, for
measures that are means of per-unit scores.

``t = mean(z) / (sd(z) / sqrt(n))`` of the per-unit differences ``z``
(sd with n - 1), two-sided p from the t distribution with n - 1 degrees of
freedom.  Pairs whose differences are all 0 get ``t = 0, p = 1`` (scipy
returns NaN there: no evidence of a difference); constant non-zero
differences give scipy's infinite t and p = 0.
"""

from __future__ import annotations

import numpy as np

from ..matrix import ScoreMatrix
from .record import SignificanceTest


def pair_tests(matrix: ScoreMatrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(d, t, p)`` of the upper-triangle pairs."""
    from scipy.stats import ttest_rel

    ii, jj = np.triu_indices(matrix.n_runs, k=1)
    full = matrix.full_scores()
    d = full[ii] - full[jj]
    a, b = matrix.values[:, ii], matrix.values[:, jj]
    with np.errstate(divide="ignore", invalid="ignore"):
        res = ttest_rel(a, b, axis=0)
    t = np.asarray(res.statistic, dtype=np.float64)
    p = np.asarray(res.pvalue, dtype=np.float64)
    same = np.all(a == b, axis=0)
    return d, np.where(same, 0.0, t), np.where(same, 1.0, p)


def pair_columns(matrix: ScoreMatrix, alpha: float) -> dict:
    """The kernel of the record: the per-pair columns (``alpha`` sets no interval here)."""
    d, t, p = pair_tests(matrix)
    return {"d": d, "statistic": t, "p": p}


TEST = SignificanceTest(
    name="t-test",
    title="the paired t-test",
    description="Paired t-test per run pair on the per-unit scores (scipy.stats.ttest_rel).",
    formula="t = mean(z) / (sd(z) / sqrt(n)), two-sided p of t with n - 1 df",
    citation="Student 1908, The probable error of a mean, Biometrika 6(1); Smucker, Allan & "
             "Carterette 2007, CIKM 2007",
    family_wise=False, resampling=False, mean_only=True, kernel=pair_columns)
