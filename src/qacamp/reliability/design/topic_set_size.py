"""Topic set size design (Sakai 2016, "Topic set size design", Information
Retrieval Journal 19; Nagata's three methods): how many units a campaign
needs for a statistical requirement.

The variance.  Sakai's methods "require topic-by-run score matrices from past
test collections for the purpose of estimating the within-system population
variance" (Sakai 2016, abstract).  The estimate used here is ``V_E``, the
residual mean square of the two-way ANOVA without replication of the
campaign's own run x unit matrix (:attr:`.gtheory.TwoWay.ms_residual`):
``sigma^2 = V_E``, the estimate of Sakai's "Topic set size design with
variance estimates from two-way ANOVA" (EVIA 2014; its talk: "Of the three
variance estimation methods, the new Two-Way ANOVA-based method is the
'safest' to use").  Under the additive model ``x_ur = mu + a_r + b_u +
e_ur`` the unit effect cancels in a paired difference, so the per-unit
difference of two runs has variance ``sigma_t^2 = 2 sigma^2``; the paired
methods use that.

Methods (every input a parameter; each size is the smallest integer ``n >=
2`` meeting the requirement, found by root finding on the exact
distribution, then checked at the integers around the root):

(a) paired t-test (:func:`t_test_size`): the two-sided paired t-test at level
    ``alpha`` detects a true difference of ``min_diff`` with power at least
    ``power``; effect size ``d = min_diff / sigma_t``; power from the
    noncentral t with ``n - 1`` df and noncentrality ``sqrt(n) d``.  Equals
    statsmodels' ``TTestPower().solve_power(d, alpha=alpha, power=power)``
    rounded up.
(b) one-way ANOVA over ``m`` runs (:func:`anova_size`): the F test at level
    ``alpha`` has power at least ``power`` whenever the best and worst of the
    ``m`` true means differ by ``min_range`` or more (the least favourable
    configuration: two means ``min_range`` apart, the others at their mean):
    ``Delta = min_range^2 / (2 sigma^2)``, noncentrality ``lambda = n Delta``,
    F with ``(m - 1, m (n - 1))`` df.  Cohen's ``f = sqrt(Delta / m)``; equals
    statsmodels' ``FTestAnovaPower().solve_power(f, alpha=alpha, power=power,
    k_groups=m)`` (a total of ``m n`` observations) divided by ``m`` and
    rounded up.
(c) confidence interval (:func:`ci_size`): the expected width of the
    ``100 (1 - alpha)``% interval of a paired difference is at most
    ``ci_width``: ``2 t_{1-alpha/2; n-1} E[s_t] / sqrt(n) <= ci_width`` with
    ``E[s_t] = sigma_t sqrt(2 / (n - 1)) Gamma(n/2) / Gamma((n-1)/2)``.

Sakai's Excel tools start from Nagata's normal approximations (e.g. ``n ~
((z_{alpha/2} + z_beta) / d)^2 + z_{alpha/2}^2 / 2``) and then check the
power; the sizes here use the exact noncentral distributions (scipy), which
is what the approximations approach.  Assumptions: normal per-unit scores of
equal variance for every run (homoscedasticity), independent units, and a
future campaign whose units and runs behave like this one's.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import polars as pl

# scipy is imported inside the functions that use it: every reliability step
# loads this module through the analysis registry, and scipy.stats costs a
# process about half a second to import.
from ...bounds import check_option
from ...errors import UsageError
from ..curves import MAX_SIZE

METHODS = ("t-test", "anova", "ci")
SIZE_SCHEMA = {"method": pl.Utf8, "difference": pl.Float64, "alpha": pl.Float64,
               "power": pl.Float64, "n_runs": pl.Int64, "variance": pl.Float64,
               "effect_size": pl.Float64, "n_units": pl.Int64, "achieved": pl.Float64,
               "assumption": pl.Utf8}
ASSUMPTIONS = {
    "t-test": "paired two-sided t-test; normal per-unit differences of variance 2 V_E",
    "anova": "one-way ANOVA over the runs, least favourable configuration; normal scores "
             "of variance V_E in every run",
    "ci": "expected width of the paired difference's confidence interval; normal per-unit "
          "differences of variance 2 V_E",
}
DEFAULT_ALPHA = 0.05
DEFAULT_POWER = 0.80
MIN_UNITS = 2


def _check_common(variance: float, alpha: float) -> None:
    check_option("variance", variance, 0, lo_open=True)
    check_option("alpha", alpha, 0, 1, lo_open=True, hi_open=True)


def _check_power(power: float, alpha: float) -> None:
    check_option("power", power, 0, 1, lo_open=True, hi_open=True)
    if not power > alpha:
        raise UsageError(f"power: {power!r} must be above alpha ({alpha!r}); a test has "
                         "power alpha against no difference at all")


def _smallest(margin: Callable[[float], float]) -> int | None:
    """Smallest integer ``n >= 2`` with ``margin(n) >= 0`` (``margin``
    increasing in ``n``); None beyond :data:`~qacamp.reliability.curves.MAX_SIZE`."""
    from scipy import optimize
    lo = float(MIN_UNITS)
    if margin(lo) >= 0:
        return MIN_UNITS
    hi = 2 * lo
    while margin(hi) < 0:
        if hi > MAX_SIZE:
            return None
        lo, hi = hi, 2 * hi
    root = optimize.brentq(margin, lo, hi, xtol=1e-6, rtol=1e-12)
    k = max(MIN_UNITS, math.ceil(root))
    while margin(k) < 0:
        k += 1
    while k > MIN_UNITS and margin(k - 1) >= 0:
        k -= 1
    return k


#: Noncentrality parameters above which the power is 1 in float64 (the
#: noncentral t and F tails underflow; SciPy gives NaN well beyond): the
#: power grows with the noncentrality and is exactly 1.0 at these values for
#: every degree of freedom and alpha of the tests
#: (tests/test_design.py::test_power_is_a_probability_for_any_effect_size)
MAX_T_NONCENTRALITY = 1e6
MAX_F_NONCENTRALITY = 1e10


def t_test_power(n: float, effect: float, alpha: float) -> float:
    """Power of the two-sided paired t-test with ``n`` units, effect ``d``.
    The lower tail P(T <= -c) is taken as P(T' >= c) of the mirrored
    noncentrality (the same value; SciPy's lower tail gives NaN where it
    underflows)."""
    from scipy import stats
    df = n - 1.0
    crit = float(stats.t.ppf(1.0 - alpha / 2.0, df))
    nc = max(-MAX_T_NONCENTRALITY, min(math.sqrt(n) * effect, MAX_T_NONCENTRALITY))
    return float(stats.nct.sf(crit, df, nc) + stats.nct.sf(crit, df, -nc))


def anova_power(n: float, n_runs: int, delta: float, alpha: float) -> float:
    """Power of the one-way ANOVA F test, ``n`` units per run, ``Delta`` (no
    difference, ``Delta`` 0: the central F's tail, alpha; SciPy's noncentral
    F gives a negative number there)."""
    from scipy import stats
    df1, df2 = n_runs - 1.0, n_runs * (n - 1.0)
    crit = float(stats.f.ppf(1.0 - alpha, df1, df2))
    nc = min(n * delta, MAX_F_NONCENTRALITY)
    return float(stats.ncf.sf(crit, df1, df2, nc) if nc > 0 else stats.f.sf(crit, df1, df2))


def ci_expected_width(n: float, variance_of_difference: float, alpha: float) -> float:
    """Expected width of the paired difference's interval with ``n`` units."""
    from scipy import special, stats
    df = n - 1.0
    ratio = math.exp(special.gammaln(n / 2.0) - special.gammaln(df / 2.0))
    sd = math.sqrt(variance_of_difference) * math.sqrt(2.0 / df) * ratio
    return 2.0 * float(stats.t.ppf(1.0 - alpha / 2.0, df)) * sd / math.sqrt(n)


def t_test_size(min_diff: float, variance: float, alpha: float = DEFAULT_ALPHA,
                power: float = DEFAULT_POWER) -> int | None:
    """Units for method (a); ``variance`` is sigma^2 (V_E), the difference's is 2 sigma^2."""
    _check_common(variance, alpha)
    _check_power(power, alpha)
    check_option("min_diff", min_diff, 0, lo_open=True)
    d = min_diff / math.sqrt(2.0 * variance)
    return _smallest(lambda n: t_test_power(n, d, alpha) - power)


def anova_size(min_range: float, variance: float, n_runs: int, alpha: float = DEFAULT_ALPHA,
               power: float = DEFAULT_POWER) -> int | None:
    """Units for method (b) with ``n_runs`` (m) runs compared."""
    _check_common(variance, alpha)
    _check_power(power, alpha)
    check_option("min_range", min_range, 0, lo_open=True)
    check_option("n_runs", n_runs, 2, integer=True)
    delta = min_range * min_range / (2.0 * variance)
    return _smallest(lambda n: anova_power(n, n_runs, delta, alpha) - power)


def ci_size(ci_width: float, variance: float, alpha: float = DEFAULT_ALPHA) -> int | None:
    """Units for method (c): expected width of the 100(1 - alpha)% interval <= ``ci_width``."""
    _check_common(variance, alpha)
    check_option("ci_width", ci_width, 0, lo_open=True)
    return _smallest(lambda n: ci_width - ci_expected_width(n, 2.0 * variance, alpha))


def topic_set_sizes(variance: float, n_runs: int, min_diff: float, *,
                    min_range: float | None = None, ci_width: float | None = None,
                    alpha: float = DEFAULT_ALPHA, power: float = DEFAULT_POWER) -> pl.DataFrame:
    """The three sizes side by side (:data:`SIZE_SCHEMA`, one row per method).

    ``variance`` is sigma^2 (the campaign's ``V_E``); ``min_range`` and
    ``ci_width`` default to ``min_diff`` (one difference for the three
    methods).  ``achieved`` is the power at ``n_units`` ((a), (b)) or the
    expected interval width ((c)); ``n_units`` null means more than 10^9
    units."""
    min_range = min_diff if min_range is None else min_range
    ci_width = min_diff if ci_width is None else ci_width
    n_t = t_test_size(min_diff, variance, alpha, power)
    n_a = anova_size(min_range, variance, n_runs, alpha, power)
    n_c = ci_size(ci_width, variance, alpha)
    d = min_diff / math.sqrt(2.0 * variance)
    delta = min_range * min_range / (2.0 * variance)
    rows = [
        ("t-test", min_diff, power, None, d, n_t,
         None if n_t is None else t_test_power(n_t, d, alpha)),
        ("anova", min_range, power, n_runs, math.sqrt(delta / n_runs), n_a,
         None if n_a is None else anova_power(n_a, n_runs, delta, alpha)),
        ("ci", ci_width, None, None, None, n_c,
         None if n_c is None else ci_expected_width(n_c, 2.0 * variance, alpha)),
    ]
    return pl.DataFrame({
        "method": [r[0] for r in rows], "difference": [float(r[1]) for r in rows],
        "alpha": [float(alpha)] * 3, "power": [r[2] for r in rows],
        "n_runs": [r[3] for r in rows], "variance": [float(variance)] * 3,
        "effect_size": [r[4] for r in rows], "n_units": [r[5] for r in rows],
        "achieved": [r[6] for r in rows],
        "assumption": [ASSUMPTIONS[r[0]] for r in rows]}, schema=SIZE_SCHEMA)


__all__ = ["METHODS", "SIZE_SCHEMA", "ASSUMPTIONS", "DEFAULT_ALPHA", "DEFAULT_POWER",
           "t_test_power", "anova_power", "ci_expected_width", "t_test_size", "anova_size",
           "ci_size", "topic_set_sizes"]
