"""The whole design analysis of one measure (what ``qacamp reliability
design`` and ``qacamp.reliability.design(...)`` compute): the campaign's
score matrix and the swap method's fits and summary in, four frames out.

- ``sizes`` (:data:`DESIGN_SCHEMA`): one row per method, in the order of
  :data:`METHODS`: generalizability theory's E(rho^2) and Phi
  (:func:`.gtheory.units_needed`: the units reaching ``target``, the range
  implied by the interval, the coefficient at the campaign's size), Sakai's
  paired t-test, one-way ANOVA and confidence-interval sizes
  (:func:`.topic_set_size.topic_set_sizes`, the variance ``V_E`` of the
  campaign's two-way ANOVA; ``at_campaign``: the power, resp. the expected
  interval width, with the campaign's units), and the swap method's size
  (:func:`.swap_method.swap_size`; ``at_campaign``: the modelled error rate
  at the campaign's size).  A method that cannot answer has a null
  ``n_units`` and says why in ``reason``;
- ``components``: the G-study's variance components (:func:`.gtheory.components`);
- ``curve`` (:data:`DESIGN_CURVE_SCHEMA`): E(rho^2) and Phi with their intervals
  and the swap error rate of the difference ``d`` against the number of
  units (:func:`curve_sizes`, reaching the sizes E(rho^2), Phi and the swap
  method need), the design figure's data;
- ``items``: the per-unit diagnostics (:func:`.items.item_statistics`).

The difference ``d`` of the t-test and the swap method (and, unless set, the
ANOVA's range and the interval's width): ``min_diff`` when given, else the
swap summary's required difference (the smallest difference the campaign
tells apart with at most the error level of swaps), else
:data:`DEFAULT_DIFFERENCE`, 0.05: the difference Voorhees 2003 reads her
swap curves at ("The error rate for 500 questions when a difference of 0.05
in confidence-weighted scores is observed is approximately 8 %").  A
summary's required difference is not used when the summary warns of too few
runs (it is no estimate then, :func:`..fits.too_few_runs`).

Generalizability theory, the topic set sizes and the diagnostics need a
measure that is a mean of per-unit values (:func:`.common.unit_values`):
for c@1, CWS and PAN's measures only the swap method answers, and the
frames say so (``reason``; empty ``components`` and ``items``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from ...bounds import check_option
from ...errors import UsageError
from ..curves import model_error
from ..fits import too_few_runs
from ..matrix import ScoreMatrix
from . import gtheory, items, swap_method, topic_set_size
from .common import check_values

DESIGN_SCHEMA = {"measure": pl.Utf8, "method": pl.Utf8, "title": pl.Utf8,
                 "target": pl.Float64, "confidence": pl.Float64, "difference": pl.Float64,
                 "difference_source": pl.Utf8, "alpha": pl.Float64, "power": pl.Float64,
                 "level": pl.Float64, "n_runs": pl.Int64, "n_units": pl.Int64,
                 "n_units_lower": pl.Int64, "n_units_upper": pl.Int64,
                 "campaign_units": pl.Int64, "at_campaign": pl.Float64,
                 "at_campaign_lower": pl.Float64, "at_campaign_upper": pl.Float64,
                 "achieved": pl.Float64, "assumption": pl.Utf8, "source": pl.Utf8,
                 "reason": pl.Utf8}
DESIGN_CURVE_SCHEMA = {**gtheory.D_STUDY_SCHEMA, "swap_error": pl.Float64}
METHODS = ("erho2", "phi", "t-test", "anova", "ci", "swap")
TITLES = {"erho2": "G-theory E(rho^2)", "phi": "G-theory Phi",
          "t-test": "paired t-test", "anova": "one-way ANOVA", "ci": "confidence interval",
          "swap": "swap method"}
ASSUMPTIONS = {
    "erho2": "relative coefficient (the runs' order); runs and units random samples, normal "
             "additive effects; interval: " + gtheory.INTERVALS["erho2"],
    "phi": "absolute coefficient (the runs' scores: unit difficulty counts as error); runs and "
           "units random samples, normal additive effects; interval: "
           + gtheory.INTERVALS["phi"],
    **topic_set_size.ASSUMPTIONS,
    "swap": "error rate of the difference on two disjoint random unit sets of the size, the "
            "fitted curve read at the error level; units like this campaign's",
}
SOURCES = {"erho2": "Brennan 2001; Bodoff & Li 2007; Urbano et al. 2013",
           "phi": "Brennan 2001; Bodoff & Li 2007; Urbano et al. 2013",
           "t-test": "Sakai 2016 (Nagata)", "anova": "Sakai 2016 (Nagata)",
           "ci": "Sakai 2016 (Nagata)", "swap": "Voorhees 2003, 2005"}
#: the difference when neither ``min_diff`` nor a usable required difference is given
DEFAULT_DIFFERENCE = 0.05
DEFAULT_LEVEL = 0.05
#: points of the curve frame at most (every size up to this many)
CURVE_POINTS = 200
#: the curve reaches at least this multiple of the campaign's size, at most ``CURVE_REACH``
CURVE_MIN, CURVE_REACH = 2, 5


@dataclass(frozen=True)
class Settings:
    """The design analysis's inputs besides the frames (docs/reliability.md)."""

    target: float = gtheory.DEFAULT_TARGET
    confidence: float = gtheory.DEFAULT_CONFIDENCE
    alpha: float = topic_set_size.DEFAULT_ALPHA
    power: float = topic_set_size.DEFAULT_POWER
    min_diff: float | None = None
    min_range: float | None = None
    ci_width: float | None = None

    def check(self) -> None:
        for name in ("target", "confidence", "alpha", "power"):
            check_option(name, getattr(self, name), 0, 1, lo_open=True, hi_open=True)
        for name in ("min_diff", "min_range", "ci_width"):
            if getattr(self, name) is not None:
                check_option(name, getattr(self, name), 0, lo_open=True)
        if not self.power > self.alpha:
            raise UsageError(f"power: {self.power!r} must be above alpha ({self.alpha!r}); a "
                             "test has power alpha against no difference at all")


@dataclass(frozen=True)
class Design:
    """The frames of one measure's design analysis (module docstring), the
    difference ``d`` used and where it came from, and the notes to print."""

    sizes: pl.DataFrame
    components: pl.DataFrame
    curve: pl.DataFrame
    items: pl.DataFrame
    difference: float
    difference_source: str
    notes: tuple[str, ...] = ()


def difference(summary: Mapping | None, min_diff: float | None) -> tuple[float, str, str | None]:
    """``(d, where it came from, a note when the summary's could not be used)``."""
    if min_diff is not None:
        return float(min_diff), "set (min_diff)", None
    if not summary:
        return DEFAULT_DIFFERENCE, "default (no swap summary given)", None
    req = summary.get("required_difference")
    if too_few_runs(summary.get("warning")):
        why = "the swap summary warns of too few runs: its required difference is no estimate"
    elif req is None or (isinstance(req, float) and math.isnan(req)):
        why = "the swap summary gives no required difference (no bin reaches the level)"
    elif not req > 0:
        why = f"the swap summary's required difference {req!r} is not above 0"
    else:
        return float(req), "the swap method's required difference", None
    return DEFAULT_DIFFERENCE, "default (no required difference)", (
        f"{why}; the difference is the default {DEFAULT_DIFFERENCE} (set min_diff to choose it)")


def curve_sizes(n_units: int, needed: Sequence[int | None] = ()) -> list[int]:
    """The numbers of units of the curve frame: up to ``CURVE_MIN`` times the
    campaign's size, further (at most ``CURVE_REACH`` times) to show the
    largest size ``needed``; every size when that is at most
    :data:`CURVE_POINTS` of them, else that many evenly spaced, with the
    campaign's size and the needed sizes within reach added."""
    top = max(CURVE_MIN * n_units, 10)
    wanted = [int(k) for k in needed if k is not None]
    if wanted:
        top = max(top, min(-(-11 * max(wanted) // 10), CURVE_REACH * n_units))  # 1.1 x
    if top <= CURVE_POINTS:
        return list(range(1, top + 1))
    grid = {int(round(v)) for v in np.linspace(1, top, CURVE_POINTS)}
    grid |= {k for k in [n_units, *wanted] if 1 <= k <= top}
    return sorted(grid)


#: the setting giving each topic-set-size method its own difference
OWN = {"t-test": "min_diff", "anova": "min_range", "ci": "ci_width"}


def _source(method: str, s: Settings, source: str) -> str:
    """Where a method's difference came from: its own setting, else ``d``'s."""
    key = OWN[method]
    return f"set ({key})" if getattr(s, key) is not None else source


def _row(method: str, measure: str, units: int, runs: int, **values) -> dict:
    row = dict.fromkeys(DESIGN_SCHEMA)
    row.update(measure=measure, method=method, title=TITLES[method], campaign_units=units,
               n_runs=runs, assumption=ASSUMPTIONS[method], source=SOURCES[method])
    row.update(values)
    return row


def _g_rows(tw: gtheory.TwoWay, s: Settings, measure: str) -> list[dict]:
    needed = gtheory.units_needed(tw, s.target, s.confidence)
    rows = []
    for r in needed.iter_rows(named=True):
        reason = None
        if r["n_units"] is None:
            reason = ("no run variance (the runs' variance component is 0)"
                      if math.isinf(gtheory.point_ratios(tw)[r["coefficient"]])
                      else "more than 10^9 units")
        rows.append(_row(r["coefficient"], measure, tw.n_units, tw.n_runs, target=s.target,
                         confidence=s.confidence, n_units=r["n_units"],
                         n_units_lower=r["n_units_lower"], n_units_upper=r["n_units_upper"],
                         at_campaign=r["at_campaign"], at_campaign_lower=r["at_campaign_lower"],
                         at_campaign_upper=r["at_campaign_upper"], reason=reason))
    return rows


def _tss_rows(tw: gtheory.TwoWay, s: Settings, d: float, source: str,
              measure: str) -> list[dict]:
    v_e = tw.ms_residual
    sizes = topic_set_size.topic_set_sizes(v_e, tw.n_runs, d, min_range=s.min_range,
                                           ci_width=s.ci_width, alpha=s.alpha, power=s.power)
    n = tw.n_units
    at = {"t-test": topic_set_size.t_test_power(n, d / math.sqrt(2.0 * v_e), s.alpha),
          "ci": topic_set_size.ci_expected_width(n, 2.0 * v_e, s.alpha)}
    rows = []
    for r in sizes.iter_rows(named=True):
        method = r["method"]
        if method == "anova":
            delta = r["difference"] ** 2 / (2.0 * v_e)
            at["anova"] = topic_set_size.anova_power(n, tw.n_runs, delta, s.alpha)
        rows.append(_row(method, measure, n, tw.n_runs, difference=r["difference"],
                         difference_source=_source(method, s, source), alpha=s.alpha, power=r["power"], n_units=r["n_units"],
                         at_campaign=at[method], achieved=r["achieved"],
                         reason=None if r["n_units"] is not None else "more than 10^9 units"))
    return rows


def _swap_row(fits: pl.DataFrame | None, summary: Mapping | None, d: float, source: str,
              measure: str, n_units: int, n_runs: int) -> dict:
    level = float((summary or {}).get("level") or DEFAULT_LEVEL)
    row = _row("swap", measure, n_units, n_runs, difference=d, difference_source=source,
               level=level)
    if fits is None:
        row["reason"] = "no swap fits given"
        return row
    if too_few_runs((summary or {}).get("warning")):
        row["reason"] = (f"too few runs ({summary.get('n_runs')}) for the swap method to "
                         "estimate a size (the swap summary's warning)")
        return row
    got = swap_method.swap_size(fits, d, level).row(0, named=True)
    row.update(n_units=got["n_units"], reason=got["reason"])
    if got["reason"] is None and got["a"] is not None:
        row["at_campaign"] = float(model_error(got["model"], got["a"], got["b"], n_units))
    elif (summary or {}).get("mode") == "observed":
        row["reason"] = (f"{got['reason']}: the swap rates were observed at c = "
                         f"{summary.get('observed_at')} (mode observed), not fitted")
    return row


def _without_values(reason: str, measure: str, n_units: int, n_runs: int, d: float,
                    source: str, s: Settings) -> list[dict]:
    rows = [_row(m, measure, n_units, n_runs, target=s.target, confidence=s.confidence,
                 reason=reason) for m in ("erho2", "phi")]
    for m in ("t-test", "anova", "ci"):
        own = getattr(s, OWN[m])
        rows.append(_row(m, measure, n_units, n_runs, difference=d if own is None else own,
                         difference_source=_source(m, s, source), alpha=s.alpha,
                         power=None if m == "ci" else s.power, reason=reason))
    return rows


def design_analysis(matrix: ScoreMatrix, fits: pl.DataFrame | None = None,
                    summary: Mapping | None = None, settings: Settings | None = None,
                    measure: str | None = None) -> Design:
    """The design analysis of ``matrix`` (module docstring); ``fits`` and
    ``summary``: the swap method's fits frame and summary row of the same
    measure (optional); ``measure``: the name the frames carry (default the
    matrix's)."""
    s = settings or Settings()
    s.check()
    name = measure or matrix.measure or "score"
    d, source, note = difference(summary, s.min_diff)
    notes = [note] if note else []
    n_u, n_r = matrix.n_units, matrix.n_runs
    empty_items = pl.DataFrame(schema=items.ITEM_SCHEMA)
    components = pl.DataFrame(schema=gtheory.COMPONENT_SCHEMA)
    tw = None
    if matrix.aggregator != "mean":
        reason = (f"{name} is not a mean of per-unit values (aggregator {matrix.aggregator}): "
                  "generalizability theory, topic set sizes and the diagnostics need one")
        notes.append(reason)
        rows = _without_values(reason, name, n_u, n_r, d, source, s)
        item_frame = empty_items
    else:
        values = check_values(matrix.values, f"score matrix of {name}", min_units=1,
                              min_runs=1)
        try:
            tw = gtheory.two_way(values)
        except UsageError as exc:
            reason = str(exc)
            notes.append(reason)
            rows = _without_values(reason, name, n_u, n_r, d, source, s)
        else:
            components = gtheory.components(tw)
            rows = _g_rows(tw, s, name) + _tss_rows(tw, s, d, source, name)
            notes += [f"the variance component of the {c} was negative and is set to 0"
                      for c, z in zip(components["component"], components["set_to_zero"],
                                      strict=True) if z]
        if n_r >= items.MIN_RUNS and n_u >= 2:
            item_frame = items.item_statistics(values, matrix.units)
        else:
            item_frame = empty_items
            notes.append(f"no unit diagnostics: {n_r} run(s) and {n_u} unit(s); they need at "
                         f"least {items.MIN_RUNS} runs and 2 units")
    rows.append(_swap_row(fits, summary, d, source, name, n_u, n_r))
    sizes = pl.DataFrame(rows, schema=DESIGN_SCHEMA)
    shown = sizes.filter(pl.col("method").is_in(["erho2", "phi", "swap"]))["n_units"]
    curve = _curve(tw, fits, d, s, n_u, shown.to_list())
    return Design(sizes, components, curve, item_frame, d, source, tuple(notes))


def _curve(tw: gtheory.TwoWay | None, fits: pl.DataFrame | None, d: float, s: Settings,
           n_units: int, needed: list[int | None]) -> pl.DataFrame:
    grid = curve_sizes(n_units, needed)
    if tw is not None:
        frame = gtheory.d_study(tw, grid, s.confidence)
    else:
        frame = pl.DataFrame({"n_units": grid}, schema={"n_units": pl.Int64}).with_columns(
            [pl.lit(None, dtype).alias(c) for c, dtype in gtheory.D_STUDY_SCHEMA.items()
             if c != "n_units"])
    swap = (swap_method.swap_error_curve(fits, d, grid) if fits is not None
            else pl.DataFrame(schema=swap_method.CURVE_SCHEMA))
    frame = frame.join(swap.rename({"error": "swap_error"}), on="n_units", how="left")
    return frame.select(list(DESIGN_CURVE_SCHEMA)).cast(DESIGN_CURVE_SCHEMA)


__all__ = ["DESIGN_SCHEMA", "DESIGN_CURVE_SCHEMA", "METHODS", "TITLES", "ASSUMPTIONS", "SOURCES",
           "DEFAULT_DIFFERENCE", "DEFAULT_LEVEL", "Settings", "Design", "difference",
           "curve_sizes", "design_analysis"]
