"""Generalizability theory of the run x unit design: G-study and D-study.

The matrix (:mod:`.common`): ``values[u, r]``, one row per unit (question,
series, reading test, topic), one column per run, ``n_u`` units and ``n_r``
runs.  Model (Brennan 2001, the crossed ``p x i`` design with runs as the
object of measurement; Bodoff & Li 2007; Urbano, Marrero & Martin 2013):

    values[u, r] = mu + nu_r + nu_u + nu_ru,e

with the run, unit and residual (interaction confounded with error) effects
random, independent, of variances ``var_runs``, ``var_units`` and
``var_residual``.

G-study (:func:`two_way`, :func:`components`): the two-way ANOVA without
replication, in one pass over the matrix (the residual sum of squares taken
directly, chunk by chunk, not as a difference of totals):

    SS_runs = n_u sum_r (mean_r - mean)^2          df_runs = n_r - 1
    SS_units = n_r sum_u (mean_u - mean)^2         df_units = n_u - 1
    SS_res = sum_{u,r} (x_ur - mean_u - mean_r + mean)^2
                                                   df_res = (n_r - 1)(n_u - 1)
    var_residual = MS_res
    var_runs = (MS_runs - MS_res) / n_u
    var_units = (MS_units - MS_res) / n_r

(the mean-squares estimators; a negative estimate is set to 0 and the
component's ``set_to_zero`` says so, as Brennan 2001 and Urbano's gt4ireval
do).

D-study (:func:`d_study`, :func:`units_needed`) for ``n'`` units:

    E(rho^2)(n') = var_runs / (var_runs + var_residual / n')
    Phi(n')      = var_runs / (var_runs + (var_units + var_residual) / n')

Both are ``n' / (n' + R)`` with ``R`` the noise-to-signal ratio of one unit
(``var_residual / var_runs``, resp. ``(var_units + var_residual) /
var_runs``), so the smallest ``n'`` reaching a target ``g`` is
``ceil(g R / (1 - g))`` (at least 1).

Confidence intervals (two-sided, ``confidence``; ``a = (1 - confidence) / 2``),
the two that Urbano's R package gt4ireval (written with Urbano et al. 2013,
which shows how much the point estimates vary with the sample) computes:

- E(rho^2): Feldt (1965).  ``F = MS_runs / MS_res``; ``F (1 - E rho^2)`` is
  F-distributed with ``(df_runs, df_res)`` degrees of freedom, so the ratio
  ``var_runs / var_residual`` lies in ``[(F / F_{1-a} - 1) / n_u, (F / F_a -
  1) / n_u]`` (``F_q`` the quantile of F(df_runs, df_res)); exact under the
  normal random-effects model.
- Phi: Arteaga, Jeyaratnam & Graybill (1982), the interval for the share of
  the total variance of one effect in the two-way crossed random model:
  with ``F_q`` as above, ``G_q`` the quantile of F(df_runs, infinity)
  (chi-square / df) and ``H_q`` of F(df_runs, df_units),

      L_q = [MS_r^2 - G_q MS_r MS_e + (G_q - F_q) F_q MS_e^2]
            / [(n_r - 1) G_q MS_r MS_e + H_q MS_r MS_u]
      Phi_1 = n_r L_q / (n_r L_q + n_u)

  is the bound of the one-unit Phi (lower with ``q = 1 - a``, upper with
  ``q = a``), and ``Phi(n') = n' Phi_1 / (1 + (n' - 1) Phi_1)``.  An
  approximation (no exact interval exists for Phi); Brennan 2001 (Table 6.5)
  reports it beside Feldt's, and ``tests/test_design.py`` reproduces that
  table's numbers.

Each bound is carried as its ratio ``R``, so one interval gives the bounds of
the coefficient at every ``n'`` and of the ``n'`` reaching the target (the
upper coefficient bound gives the lower ``n'``).  A bound whose signal is
not positive (``F`` below the critical value, ``L_q <= 0``) is a coefficient
of 0 and an ``n'`` without bound (null).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import polars as pl

# scipy is imported inside the functions that use it: every reliability step
# loads this module through the analysis registry, and scipy.stats costs a
# process about half a second to import.
from ...bounds import check_option
from ...errors import UsageError
from ..curves import MAX_SIZE
from ..matrix import ROUNDING
from .common import check_values, chunk_rows

COMPONENT_SCHEMA = {"component": pl.Utf8, "df": pl.Int64, "sum_squares": pl.Float64,
                    "mean_square": pl.Float64, "estimate": pl.Float64, "variance": pl.Float64,
                    "set_to_zero": pl.Boolean, "share": pl.Float64}
D_STUDY_SCHEMA = {"n_units": pl.Int64, "erho2": pl.Float64, "erho2_lower": pl.Float64,
                  "erho2_upper": pl.Float64, "phi": pl.Float64, "phi_lower": pl.Float64,
                  "phi_upper": pl.Float64, "confidence": pl.Float64}
NEEDED_SCHEMA = {"coefficient": pl.Utf8, "target": pl.Float64, "confidence": pl.Float64,
                 "n_units": pl.Int64, "n_units_lower": pl.Int64, "n_units_upper": pl.Int64,
                 "campaign_units": pl.Int64, "at_campaign": pl.Float64,
                 "at_campaign_lower": pl.Float64, "at_campaign_upper": pl.Float64,
                 "interval": pl.Utf8}
COMPONENTS = ("runs", "units", "residual")
COEFFICIENTS = ("erho2", "phi")
INTERVALS = {"erho2": "Feldt (1965), exact F-based",
             "phi": "Arteaga, Jeyaratnam & Graybill (1982), approximate"}
DEFAULT_TARGET = 0.95
DEFAULT_CONFIDENCE = 0.95


@dataclass(frozen=True)
class TwoWay:
    """The two-way ANOVA without replication of a run x unit matrix."""

    n_units: int
    n_runs: int
    grand_mean: float
    ss_runs: float
    ss_units: float
    ss_residual: float

    @property
    def df_runs(self) -> int:
        return self.n_runs - 1

    @property
    def df_units(self) -> int:
        return self.n_units - 1

    @property
    def df_residual(self) -> int:
        return (self.n_runs - 1) * (self.n_units - 1)

    @property
    def ms_runs(self) -> float:
        return self.ss_runs / self.df_runs

    @property
    def ms_units(self) -> float:
        return self.ss_units / self.df_units

    @property
    def ms_residual(self) -> float:
        """V_E: the residual variance, the estimate of the within-run variance."""
        return self.ss_residual / self.df_residual

    def estimates(self) -> tuple[float, float, float]:
        """Raw mean-squares estimates (runs, units, residual); may be negative."""
        e = self.ms_residual
        return (self.ms_runs - e) / self.n_units, (self.ms_units - e) / self.n_runs, e

    def variances(self) -> tuple[float, float, float]:
        """The estimates with a negative one set to 0."""
        return tuple(max(0.0, v) for v in self.estimates())  # type: ignore[return-value]


def two_way(values: object) -> TwoWay:
    """The ANOVA of ``values`` (``(n_units, n_runs)``, see :mod:`.common`).

    :class:`UsageError` when the matrix has no residual variance (every cell
    is its run's effect plus its unit's effect, e.g. a constant matrix, or
    two runs a constant apart): no coefficient or size can be estimated from
    it.  A residual standard deviation within :data:`~qacamp.reliability.matrix.ROUNDING` of the
    largest absolute score is rounding noise of such a matrix, as in the
    significance tests."""
    x = check_values(values)
    n_u, n_r = x.shape
    run_means = x.mean(axis=0)
    unit_means = x.mean(axis=1)
    grand = float(run_means.mean())
    ss_runs = n_u * float(np.sum((run_means - grand) ** 2))
    ss_units = n_r * float(np.sum((unit_means - grand) ** 2))
    ss_res = 0.0
    step = chunk_rows(n_r)
    shift = run_means - grand
    for lo in range(0, n_u, step):
        r = x[lo:lo + step] - unit_means[lo:lo + step, None]
        r -= shift
        ss_res += float(np.einsum("ij,ij->", r, r))
    tw = TwoWay(n_u, n_r, grand, ss_runs, ss_units, ss_res)
    scale = float(np.max(np.abs(x))) if x.size else 0.0
    if not tw.ms_residual > 0 or math.sqrt(tw.ms_residual) <= ROUNDING * scale:
        raise UsageError(f"score matrix ({n_u} units x {n_r} runs): no residual variance "
                         "(every score is its run's mean plus its unit's effect exactly); "
                         "generalizability coefficients and set sizes need score matrices "
                         "whose runs differ from unit to unit")
    return tw


def components(tw: TwoWay) -> pl.DataFrame:
    """One row per component (runs, units, residual): :data:`COMPONENT_SCHEMA`;
    ``share`` is the component's part of the sum of the (non-negative) variances."""
    est = tw.estimates()
    var = tw.variances()
    total = sum(var)
    ss = (tw.ss_runs, tw.ss_units, tw.ss_residual)
    df = (tw.df_runs, tw.df_units, tw.df_residual)
    ms = (tw.ms_runs, tw.ms_units, tw.ms_residual)
    return pl.DataFrame({
        "component": list(COMPONENTS), "df": list(df), "sum_squares": list(ss),
        "mean_square": list(ms), "estimate": list(est), "variance": list(var),
        "set_to_zero": [e < 0 for e in est],
        "share": [v / total if total > 0 else None for v in var]}, schema=COMPONENT_SCHEMA)


def _check_confidence(confidence: float) -> float:
    check_option("confidence", confidence, 0, 1, lo_open=True, hi_open=True)
    return (1.0 - confidence) / 2.0


def _noise(signal: float, noise: float) -> float:
    """The ratio R = noise / signal (infinite when there is no signal)."""
    return noise / signal if signal > 0 else math.inf


def point_ratios(tw: TwoWay) -> dict[str, float]:
    """R of E(rho^2) and Phi from the (non-negative) variance components."""
    v_r, v_u, v_e = tw.variances()
    return {"erho2": _noise(v_r, v_e), "phi": _noise(v_r, v_u + v_e)}


def feldt_ratios(tw: TwoWay, confidence: float) -> tuple[float, float]:
    """(R at the upper bound of E(rho^2), R at its lower bound): Feldt (1965)."""
    from scipy import stats
    a = _check_confidence(confidence)
    f_obs = tw.ms_runs / tw.ms_residual
    out = []
    for q in (a, 1.0 - a):  # F_a gives the upper bound of the signal, F_{1-a} the lower
        signal = (f_obs / float(stats.f.ppf(q, tw.df_runs, tw.df_residual)) - 1.0) / tw.n_units
        out.append(1.0 / signal if signal > 0 else math.inf)
    return out[0], out[1]


def arteaga_ratios(tw: TwoWay, confidence: float) -> tuple[float, float]:
    """(R at the upper bound of Phi, R at its lower bound): Arteaga, Jeyaratnam
    & Graybill (1982), the form of Urbano's gt4ireval."""
    from scipy import stats
    a = _check_confidence(confidence)
    m_r, m_u, m_e = tw.ms_runs, tw.ms_units, tw.ms_residual
    out = []
    for q in (a, 1.0 - a):
        g = float(stats.chi2.ppf(q, tw.df_runs)) / tw.df_runs  # F(df_runs, infinity)
        f = float(stats.f.ppf(q, tw.df_runs, tw.df_residual))
        h = float(stats.f.ppf(q, tw.df_runs, tw.df_units))
        num = m_r * m_r - g * m_r * m_e + (g - f) * f * m_e * m_e
        den = (tw.n_runs - 1) * g * m_r * m_e + h * m_r * m_u
        if not (den > 0 and num > 0):
            out.append(math.inf)
            continue
        lq = num / den
        phi1 = tw.n_runs * lq / (tw.n_runs * lq + tw.n_units)
        out.append((1.0 - phi1) / phi1)
    return out[0], out[1]


def coefficient(n_units: np.ndarray | float, ratio: float) -> np.ndarray:
    """``n' / (n' + R)`` (0 where R is infinite)."""
    n = np.asarray(n_units, dtype=np.float64)
    if math.isinf(ratio):
        return np.zeros_like(n)
    return n / (n + ratio)


def size_for(ratio: float, target: float) -> int | None:
    """Smallest integer ``n' >= 1`` with ``n' / (n' + R) >= target``; None when
    none exists (no signal) or only beyond :data:`~qacamp.reliability.curves.MAX_SIZE`."""
    if math.isinf(ratio):
        return None
    x = target * ratio / (1.0 - target)
    if not x < MAX_SIZE:
        return None
    k = max(1, math.ceil(x))
    while k / (k + ratio) < target:  # guard the float rounding of ceil
        k += 1
    while k > 1 and (k - 1) / (k - 1 + ratio) >= target:
        k -= 1
    return k


def _sizes(tw: TwoWay, sizes: Iterable[int] | None) -> np.ndarray:
    if sizes is None:
        return np.array([tw.n_units], dtype=np.int64)
    out = list(sizes)
    if not out:
        raise UsageError("sizes: give at least one number of units")
    out = [int(s) if isinstance(s, np.integer) else s for s in out]
    for s in out:
        check_option("sizes", s, 1, MAX_SIZE, integer=True)
    return np.asarray(out, dtype=np.int64)


def d_study(tw: TwoWay, sizes: Iterable[int] | None = None,
            confidence: float = DEFAULT_CONFIDENCE) -> pl.DataFrame:
    """E(rho^2) and Phi with their intervals for each number of units in
    ``sizes`` (default: the campaign's own, ``tw.n_units``): :data:`D_STUDY_SCHEMA`."""
    n = _sizes(tw, sizes)
    point = point_ratios(tw)
    f_hi, f_lo = feldt_ratios(tw, confidence)
    a_hi, a_lo = arteaga_ratios(tw, confidence)
    return pl.DataFrame({
        "n_units": n,
        "erho2": coefficient(n, point["erho2"]),
        "erho2_lower": coefficient(n, f_lo), "erho2_upper": coefficient(n, f_hi),
        "phi": coefficient(n, point["phi"]),
        "phi_lower": coefficient(n, a_lo), "phi_upper": coefficient(n, a_hi),
        "confidence": np.full(len(n), float(confidence))}, schema=D_STUDY_SCHEMA)


def units_needed(tw: TwoWay, target: float = DEFAULT_TARGET,
                 confidence: float = DEFAULT_CONFIDENCE) -> pl.DataFrame:
    """For E(rho^2) and Phi: the number of units reaching ``target``, the
    range implied by the interval (``n_units_lower`` from the upper
    coefficient bound; ``n_units_upper`` null = without bound), and the
    coefficient with its interval at the campaign's size: :data:`NEEDED_SCHEMA`."""
    check_option("target", target, 0, 1, lo_open=True, hi_open=True)
    point = point_ratios(tw)
    bounds = {"erho2": feldt_ratios(tw, confidence), "phi": arteaga_ratios(tw, confidence)}
    rows = []
    for name in COEFFICIENTS:
        r_hi, r_lo = bounds[name]
        rows.append({
            "coefficient": name, "target": float(target), "confidence": float(confidence),
            "n_units": size_for(point[name], target), "n_units_lower": size_for(r_hi, target),
            "n_units_upper": size_for(r_lo, target), "campaign_units": tw.n_units,
            "at_campaign": float(coefficient(tw.n_units, point[name])),
            "at_campaign_lower": float(coefficient(tw.n_units, r_lo)),
            "at_campaign_upper": float(coefficient(tw.n_units, r_hi)),
            "interval": INTERVALS[name]})
    return pl.DataFrame(rows, schema=NEEDED_SCHEMA)


__all__ = ["COMPONENT_SCHEMA", "D_STUDY_SCHEMA", "NEEDED_SCHEMA", "COMPONENTS", "COEFFICIENTS",
           "INTERVALS", "DEFAULT_TARGET", "DEFAULT_CONFIDENCE", "TwoWay", "two_way",
           "components", "point_ratios", "feldt_ratios", "arteaga_ratios", "coefficient",
           "size_for", "d_study", "units_needed"]
