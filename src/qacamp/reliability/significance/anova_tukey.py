"""Two-way ANOVA on the unit x run matrix and Tukey's HSD (Carterette 2012),
for measures that are means of per-unit scores.

Model ``y_ur = mu + unit_u + run_r + e_ur`` (no interaction: one score per
cell).  With ``n`` units, ``R`` runs, run means ``m_r``, unit means ``m_u``
and grand mean ``m``: ``SS_run = n sum_r (m_r - m)^2``,
``SS_res = sum (y_ur - m_r - m_u + m)^2``, ``df_res = (R - 1)(n - 1)``,
``MSE = SS_res / df_res``, ``F = (SS_run / (R - 1)) / MSE``.  Tukey's HSD
for a pair: ``q = |m_a - m_b| / sqrt(MSE / n)``, p from the studentized
range distribution with R means and df_res degrees of freedom (already
family-wise), simultaneous interval ``d +/- q_crit(1 - alpha) sqrt(MSE / n)``.

Computed in closed form on the balanced matrix (the same numbers as
statsmodels' ``ols`` + ``anova_lm`` and its Tukey HSD on the long table,
tested; statsmodels' dummy-coded design would need R x n x (R + n) cells);
the studentized range is scipy's, as statsmodels uses it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..matrix import ScoreMatrix
from .record import SignificanceTest


@dataclass(frozen=True)
class Anova:
    f: float
    p: float
    df_run: int
    df_res: int
    mse: float


def anova(matrix: ScoreMatrix) -> Anova:
    from scipy.stats import f as f_dist

    y = np.asarray(matrix.values, dtype=np.float64)
    n, r = y.shape
    grand = y.mean()
    run_m, unit_m = y.mean(axis=0), y.mean(axis=1)
    ss_run = n * float(((run_m - grand) ** 2).sum())
    res = y - run_m[None, :] - unit_m[:, None] + grand
    ss_res = float((res * res).sum())
    df_run, df_res = r - 1, (r - 1) * (n - 1)
    mse = ss_res / df_res
    f = (ss_run / df_run) / mse if mse > 0 else (np.inf if ss_run > 0 else np.nan)
    p = float(f_dist.sf(f, df_run, df_res)) if np.isfinite(f) else (0.0 if f == np.inf else 1.0)
    return Anova(float(f), p, df_run, df_res, mse)


def pair_tests(matrix: ScoreMatrix, alpha: float):
    """``(d, q, p, lower, upper, anova)`` of the upper-triangle pairs."""
    from scipy.stats import studentized_range

    ii, jj = np.triu_indices(matrix.n_runs, k=1)
    means = np.asarray(matrix.values, dtype=np.float64).mean(axis=0)
    full = matrix.full_scores()
    d = full[ii] - full[jj]
    a = anova(matrix)
    se = np.sqrt(a.mse / matrix.n_units)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.abs(means[ii] - means[jj]) / se
    q = np.where(np.isnan(q), 0.0, q)
    p = np.where(np.isinf(q), 0.0, studentized_range.sf(np.where(np.isinf(q), 0.0, q),
                                                        matrix.n_runs, a.df_res))
    q_crit = float(studentized_range.ppf(1 - alpha, matrix.n_runs, a.df_res))
    half = q_crit * se
    return d, q, np.clip(p, 0.0, 1.0), d - half, d + half, a


def pair_columns(matrix: ScoreMatrix, alpha: float) -> dict:
    """The kernel of the record: the per-pair columns, the intervals at ``alpha``
    and the ANOVA's F."""
    d, q, p, lower, upper, a = pair_tests(matrix, alpha)
    return {"d": d, "statistic": q, "p": p, "lower": lower, "upper": upper, "f": a.f,
            "f_p": a.p}


TEST = SignificanceTest(
    name="anova-tukey",
    title="two-way ANOVA and Tukey HSD",
    description="Two-way ANOVA (unit and run as factors) on the per-unit scores, then "
                "Tukey's HSD with the ANOVA's residual variance.",
    formula="q = |m_a - m_b| / sqrt(MSE / n), p = P(studentized range(R, (R-1)(n-1)) >= q)",
    citation="Carterette 2012, Multiple testing in statistical analysis of systems-based "
             "information retrieval experiments, ACM TOIS 30(1); Tukey 1949",
    family_wise=True, resampling=False, mean_only=True, kernel=pair_columns)
