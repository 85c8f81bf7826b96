"""Two-way ANOVA on the unit x run matrix and Tukey's HSD (Carterette 2012),
for measures that are means of per-unit scores.

Model ``y_ur = mu + unit_u + run_r + e_ur`` (no interaction: one score per
cell).  With ``n`` units, ``R`` runs, run means ``m_r``, unit means ``m_u``
and grand mean ``m``: ``SS_run = n sum_r (m_r - m)^2``,
``SS_res = sum (y_ur - m_r - m_u + m)^2``, ``df_res = (R - 1)(n - 1)``,
``MSE = SS_res / df_res``, ``F = (SS_run / (R - 1)) / MSE``.  Tukey's HSD
for a pair: ``q = |m_a - m_b| / sqrt(MSE / n)``, p from the studentized
range distribution with R means and df_res degrees of freedom (already
family-wise), simultaneous interval ``d +/- q_crit(1 - alpha) sqrt(MSE / n)``,
effect size ``ES_E = (m_a - m_b) / sqrt(MSE)`` (Sakai).  Computed on the
matrix scaled by a power of two, sums of squares of centred values
(:mod:`.effects`), so scores of any finite size give the same F, q and p; an
exactly additive matrix (no residual variance) gives F null and every pair
with a non-zero difference ``q`` null, ``p = 1`` with a warning.

Computed in closed form on the balanced matrix (the same numbers as
statsmodels' ``ols`` + ``anova_lm`` and its Tukey HSD on the long table,
tested; statsmodels' dummy-coded design would need R x n x (R + n) cells);
the studentized range is scipy's, as statsmodels uses it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..matrix import ScoreMatrix
from .effects import PairStats, effect, no_variance, residual_sd, scaled
from .record import SignificanceTest, baseline_pairs


@dataclass(frozen=True)
class Anova:
    """F (NaN when the residual variance is rounding noise), its p (NaN then),
    the degrees of freedom, the residual variance and standard deviation in
    the scores' units (``mse`` may overflow for huge scores; ``sd`` does not)
    and whether the residual variance is rounding noise."""

    f: float
    p: float
    df_run: int
    df_res: int
    mse: float
    sd: float
    no_variance: bool = False


def anova(matrix: ScoreMatrix) -> Anova:
    """The two-way ANOVA on the matrix scaled by a power of two, sums of squares
    of centred values (:mod:`.effects`)."""
    from scipy.stats import f as f_dist

    y, e = scaled(matrix.values)
    n, r = y.shape
    grand = y.mean()
    run_m = y.mean(axis=0)
    ss_run = n * float(((run_m - grand) ** 2).sum())
    df_run, df_res = r - 1, (r - 1) * (n - 1)
    sd = residual_sd(y)
    flat = bool(no_variance(sd, float(np.max(np.abs(y))) if y.size else 0.0))
    if flat:
        return Anova(math.nan, math.nan, df_run, df_res, 0.0, 0.0, True)
    f = (ss_run / df_run) / (sd * sd)
    try:
        mse = math.ldexp(sd * sd, 2 * e)
    except OverflowError:  # scores near the float limit: only sd is used
        mse = math.inf
    return Anova(float(f), float(f_dist.sf(f, df_run, df_res)), df_run, df_res, mse,
                 math.ldexp(sd, e))


@dataclass(frozen=True)
class Differences:
    """The pairs' differences of full scores ``d``, of scaled run means ``ds``
    (the matrix scaled by ``2**-e``, :func:`.effects.scaled`), the ANOVA and
    its residual standard deviation in scaled units ``sd``."""

    d: np.ndarray
    ds: np.ndarray
    e: int
    anova: Anova
    sd: float


def differences(matrix: ScoreMatrix, ii: np.ndarray, jj: np.ndarray) -> Differences:
    """:class:`Differences` of the pairs ``(ii, jj)``."""
    y, e = scaled(matrix.values)
    means = y.mean(axis=0)
    full = matrix.full_scores()
    a = anova(matrix)
    sd = 1.0 if a.no_variance else math.ldexp(a.sd, -e)
    return Differences(full[ii] - full[jj], means[ii] - means[jj], e, a, sd)


def pair_tests(matrix: ScoreMatrix, alpha: float, ii: np.ndarray | None = None,
               jj: np.ndarray | None = None) -> tuple[PairStats, Anova]:
    """Tukey's HSD of the pairs ``(ii, jj)`` (default: the upper triangle) with
    the ANOVA's residual variance; the interval is Tukey's simultaneous one
    over all R runs, the effect size Sakai's ``ES_E = d / sqrt(V_E)``."""
    from scipy.stats import studentized_range

    if ii is None or jj is None:
        ii, jj = np.triu_indices(matrix.n_runs, k=1)
    x = differences(matrix, ii, jj)
    ds, a = x.ds, x.anova
    if a.no_variance:
        flat = ds != 0
        q = np.zeros(len(ii))
        p = np.ones(len(ii))
        half = 0.0
    else:
        flat = np.zeros(len(ii), bool)
        se = x.sd / math.sqrt(matrix.n_units)
        q = np.abs(ds) / se
        p = np.clip(studentized_range.sf(q, matrix.n_runs, a.df_res), 0.0, 1.0)
        half = float(studentized_range.ppf(1 - alpha, matrix.n_runs, a.df_res)) * se
    stats = PairStats(d=x.d, statistic=np.where(flat, np.nan, q), p=p,
                      lower=np.ldexp(ds - half, x.e), upper=np.ldexp(ds + half, x.e),
                      effect=effect(ds, x.sd, flat), no_variance=flat)
    return stats, a


def pair_columns(matrix: ScoreMatrix, alpha: float) -> dict:
    """The kernel of the record: the per-pair columns of the upper triangle, Tukey's
    simultaneous intervals at ``alpha``, the effect sizes and the ANOVA's F."""
    r, a = pair_tests(matrix, alpha)
    return {"d": r.d, "statistic": r.statistic, "p": r.p, "lower": r.lower, "upper": r.upper,
            "effect": r.effect, "f": a.f, "f_p": a.p, "flat": int(r.no_variance.sum())}

#: the interval of the comparisons with a baseline
DUNNETT_INTERVAL = "Dunnett's simultaneous interval, the ANOVA's residual variance"


def baseline_columns(matrix: ScoreMatrix, alpha: float, base: int) -> dict:
    """The baseline kernel of the record: Dunnett's test of every other run
    against the run ``base`` with the ANOVA's residual variance
    (:mod:`.dunnett`), Sakai's effect sizes as :func:`pair_tests` gives them
    (Tukey's p-values and interval are not computed: Dunnett's replace them)."""
    from .dunnett import dunnett_critical, dunnett_p

    ii, jj = baseline_pairs(matrix.n_runs, base)
    x = differences(matrix, ii, jj)
    if x.anova.no_variance:  # (Tukey's p and interval of a flat matrix: no variance to test)
        r, _ = pair_tests(matrix, alpha, ii, jj)
        return {"d": r.d, "effect": r.effect, "ci_method": DUNNETT_INTERVAL,
                "statistic": r.statistic, "p": r.p, "lower": r.lower, "upper": r.upper,
                "flat": r.no_variance}
    se = x.sd * math.sqrt(2.0 / matrix.n_units)
    stat = x.ds / se
    half = dunnett_critical(alpha, len(ii), x.anova.df_res) * se
    flat = np.zeros(len(ii), bool)
    return {"d": x.d, "effect": effect(x.ds, x.sd, flat), "ci_method": DUNNETT_INTERVAL,
            "statistic": stat, "p": dunnett_p(stat, len(ii), x.anova.df_res),
            "lower": np.ldexp(x.ds - half, x.e), "upper": np.ldexp(x.ds + half, x.e),
            "flat": flat}


TEST = SignificanceTest(
    name="anova-tukey",
    title="two-way ANOVA and Tukey HSD",
    description="Two-way ANOVA (unit and run as factors) on the per-unit scores, then "
                "Tukey's HSD with the ANOVA's residual variance.",
    formula="q = |m_a - m_b| / sqrt(MSE / n), p = P(studentized range(R, (R-1)(n-1)) >= q)",
    citation="Carterette 2012, Multiple testing in statistical analysis of systems-based "
             "information retrieval experiments, ACM TOIS 30(1); Tukey 1949",
    family_wise=True, resampling=False, mean_only=True, kernel=pair_columns,
    baseline=baseline_columns)
