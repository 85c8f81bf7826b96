"""Every run against one chosen baseline run: the table most system papers
print.  The family is the ``R - 1`` comparisons with the baseline only, so the
control of the error is over those comparisons, not over all pairs:

- the paired t-test and the randomisation test: the same per-pair tests as
  :func:`~.results.significance_test` (the same permutations, seeded per
  permutation), the correction (Holm by default) over the ``R - 1`` p-values;
- randomised Tukey HSD: the reference distribution is the largest difference
  between any permuted run and the permuted baseline,
  ``max_r |M(r*_b) - M(base*_b)|`` (the permutations of the all-pairs test;
  Westfall & Young 1993's single-step max-T over the comparisons with the
  baseline);
- two-way ANOVA: Dunnett's test (Dunnett 1955, "A multiple comparison
  procedure for comparing several treatments with a control", JASA 50) with
  the ANOVA's residual variance, ``t_r = (m_r - m_base) / sqrt(2 V_E / n)``
  and ``p_r = 1 - P(max_j |T_j| <= |t_r|)``, ``T`` multivariate t with
  ``(R - 1)(n - 1)`` degrees of freedom and correlation 1/2; the probability
  as the double integral ``E[(Phi(X + c sqrt(2) S) - Phi(X - c sqrt(2) S))^k]``
  over ``X ~ N(0, 1)`` (Gauss-Hermite) and ``S ~ chi_df / sqrt(df)`` (scipy's
  ``quad``); the simultaneous interval ``d +/- c_(1-alpha) sqrt(2 V_E / n)``.

Intervals and effect sizes are those of the all-pairs analysis
(:mod:`.effects`).  :func:`baseline_comparison` returns one row per run
(:data:`BASELINE_SCHEMA`), best score first.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from ...errors import UsageError
from ..matrix import ScoreMatrix
from . import anova_tukey, effects, randomisation, t_test, tukey_hsd
from .corrections import adjust
from .registry import DEFAULT_TEST, TESTS
from .results import check_settings, effect_method, finite_or_null, interval_method

BASELINE_SCHEMA = {"run": pl.Utf8, "baseline": pl.Utf8, "measure": pl.Utf8, "test": pl.Utf8,
                   "correction": pl.Utf8, "score": pl.Float64, "baseline_score": pl.Float64,
                   "diff": pl.Float64, "ci_lower": pl.Float64, "ci_upper": pl.Float64,
                   "effect_size": pl.Float64, "statistic": pl.Float64, "p_value": pl.Float64,
                   "p_adjusted": pl.Float64, "significant": pl.Boolean,
                   "permutations": pl.Int64, "alpha": pl.Float64, "ci_method": pl.Utf8,
                   "effect_size_method": pl.Utf8}
#: Gauss-Hermite nodes of Dunnett's inner integral
_HERMITE = np.polynomial.hermite.hermgauss(96)


def dunnett_tail(c: float, k: int, df: float) -> float:
    """``P(max_j |T_j| > c)`` for ``k`` comparisons with a control, ``T``
    multivariate t with ``df`` degrees of freedom and correlation 1/2: the
    double integral of ``1 - (1 - Phi(a - X) - Phi(-a - X))^k``, ``a = c
    sqrt(2) S``, computed as ``-expm1(k log1p(-tails))`` so that small
    p-values keep their relative precision."""
    from scipy.integrate import quad
    from scipy.special import ndtr
    from scipy.stats import chi

    if c <= 0:
        return 1.0
    x = math.sqrt(2.0) * _HERMITE[0]
    w = _HERMITE[1] / math.sqrt(math.pi)

    def inner(s: float) -> float:
        a = c * math.sqrt(2.0) * s
        tails = np.minimum(1.0, ndtr(x - a) + ndtr(-x - a))
        with np.errstate(divide="ignore"):
            return float(w @ -np.expm1(k * np.log1p(-tails)))

    root = math.sqrt(df)
    lo, hi = chi.ppf(1e-15, df) / root, chi.isf(1e-15, df) / root
    mid = chi.ppf(0.5, df) / root
    val, _ = quad(lambda s: inner(s) * root * chi.pdf(s * root, df), lo, hi, points=[mid],
                  epsabs=0.0, epsrel=1e-11, limit=200)
    return min(1.0, max(0.0, val))


def dunnett_p(t: np.ndarray, k: int, df: float) -> np.ndarray:
    """Two-sided Dunnett p-values of the statistics ``t``."""
    return np.array([dunnett_tail(abs(float(v)), k, df) for v in t])


def dunnett_critical(alpha: float, k: int, df: float) -> float:
    """``c`` with ``P(max_j |T_j| > c) = alpha``."""
    from scipy.optimize import brentq

    return float(brentq(lambda c: dunnett_tail(c, k, df) - alpha, 1e-9, 60.0,
                        xtol=1e-14, rtol=1e-14))


def _check_baseline(matrix: ScoreMatrix, baseline: str) -> int:
    if baseline not in matrix.runs:
        shown = ", ".join(matrix.runs[:8]) + (" ..." if matrix.n_runs > 8 else "")
        raise UsageError(f"baseline run {baseline!r} is not among the {matrix.n_runs} runs "
                         f"({shown}): name one of them")
    return matrix.runs.index(baseline)


def baseline_comparison(matrix: ScoreMatrix, baseline: str, test: str = DEFAULT_TEST,
                        permutations: int | None = None, seed: int = 0, alpha: float = 0.05,
                        correction: str | None = None, measure: str | None = None,
                        exact: bool = False) -> pl.DataFrame:
    """Every other run of ``matrix`` against the run ``baseline``, the error
    controlled over those ``R - 1`` comparisons (module docstring); the
    settings as :func:`~.results.significance_test` takes them."""
    t = TESTS.lookup(test)
    base = _check_baseline(matrix, baseline)
    corr, total = check_settings(matrix, test, correction, permutations, alpha, exact)
    name = matrix.measure if measure is None else measure
    ii = np.array([r for r in range(matrix.n_runs) if r != base], dtype=np.intp)
    jj = np.full(len(ii), base, dtype=np.intp)
    full = matrix.full_scores()
    flat = np.zeros(len(ii), bool)
    if t.name == "t-test":
        r = t_test.pair_tests(matrix, alpha, ii, jj)
        d, stat, p, lower, upper, eff, flat = (r.d, r.statistic, r.p, r.lower, r.upper,
                                               r.effect, r.no_variance)
    elif t.name == "anova-tukey":
        r, a = anova_tukey.pair_tests(matrix, alpha, ii, jj)
        d, eff = r.d, r.effect
        if a.no_variance:
            flat = r.no_variance
            stat, p, lower, upper = r.statistic, r.p, r.lower, r.upper
        else:
            y, e = effects.scaled(matrix.values)
            means = y.mean(axis=0)
            ds = means[ii] - means[jj]
            se = math.ldexp(a.sd, -e) * math.sqrt(2.0 / matrix.n_units)
            stat = ds / se
            p = dunnett_p(stat, len(ii), a.df_res)
            half = dunnett_critical(alpha, len(ii), a.df_res) * se
            lower, upper = np.ldexp(ds - half, e), np.ldexp(ds + half, e)
    else:
        perms = np.arange(total, dtype=np.int64)
        if t.name == "randomisation":
            d, extreme = randomisation.extreme_counts(matrix, perms, seed, name, exact, ii, jj)
        else:
            d, extreme = tukey_hsd.extreme_counts(matrix, perms, seed, name, ii=ii, jj=jj,
                                                 baseline=base)
        p = extreme / total if exact else (1.0 + extreme) / (1.0 + total)
        stat = np.abs(d)
        k = effects.tail_size(effects.INTERVAL_SAMPLES, alpha)
        low, high = effects.bootstrap_tails(matrix, ii, jj,
                                            np.arange(effects.INTERVAL_SAMPLES), seed, name, k)
        lower, upper = effects.percentile_interval(low, high)
        eff = effects.pair_effects(matrix, ii, jj, t.family_wise)
    p = np.clip(np.asarray(p, np.float64), 0.0, 1.0)
    adjusted, significant = adjust(p, corr, alpha)
    n = len(ii)
    out = pl.DataFrame({
        "run": [matrix.runs[i] for i in ii], "baseline": [baseline] * n,
        "measure": [name] * n, "test": [t.name] * n, "correction": [corr] * n,
        "score": full[ii], "baseline_score": full[jj], "diff": np.asarray(d, np.float64),
        "ci_lower": finite_or_null(lower), "ci_upper": finite_or_null(upper), "effect_size": finite_or_null(eff),
        "statistic": finite_or_null(stat), "p_value": p, "p_adjusted": adjusted,
        "significant": significant & ~np.asarray(flat, bool),
        "permutations": np.full(n, total, np.int64), "alpha": [alpha] * n,
        "ci_method": [("Dunnett's simultaneous interval, the ANOVA's residual variance"
                       if t.name == "anova-tukey" else interval_method(t.name))] * n,
        "effect_size_method": [effect_method(t.name, matrix.aggregator)] * n,
    }, schema=BASELINE_SCHEMA)
    return out.sort(["score", "run"], descending=[True, False])


__all__ = ["BASELINE_SCHEMA", "baseline_comparison", "dunnett_critical", "dunnett_p",
           "dunnett_tail"]
