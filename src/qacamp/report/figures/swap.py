"""The swap method's error-rate curves (Voorhees 2003 Figure 2; Voorhees 2005
Figure 4), and in the observed mode the reading of the c@1 paper's Table 2.

In the observed mode (the required difference read from the swap rates at
one subset size ``c``, no extrapolation) the figure is the error rate against
the score difference at that ``c``: one point per difference bin (swaps /
comparisons at ``c``), the error-level line, and the deciding bin (the first
bin at or under the level, whose lower edge is the required difference)
marked.  It is :func:`observed_swap_figure`; :func:`swap_curves_figure`
draws it whenever the summary's mode is ``observed``.

One colour per difference bin: the observed error rates (points), the fitted
curve (solid over the observed sizes, dashed where extrapolated to the full
collection), the error-level line and the full-collection line.  The bins
drawn are every bin from 0.01 up to the one the required difference is read
from (so the bin that decides is on the figure with all the bins it was
preferred to), or 0.01-0.07 when the level is not reached; the legend says
which bins are shown.  The legend is outside the axes, so no curve is
hidden.  The title says what is read (extrapolated to the full collection,
or observed at c); the fitting method and the weak-evidence warnings are
said once, by the page (its section's method note, the measure's sentence)
and the swap summary table, not again in the figure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from ...measures import label
from .base import LEVEL_COLOR, colors, new_figure, plural, style

#: bins drawn when the level is not reached: 0.01 <= d < 0.07
DEFAULT_BINS = tuple(range(1, 7))


def bin_label(lo: float | None, hi: float | None) -> str:
    if hi is None or (isinstance(hi, float) and math.isnan(hi)):
        return f"d \u2265 {lo:.2f}"
    return f"{lo:.2f} \u2264 d < {hi:.2f}"


def _summary_row(summary: pl.DataFrame | None) -> dict:
    return summary.row(0, named=True) if summary is not None and summary.height else {}


def bins_shown(fits: pl.DataFrame, summary: pl.DataFrame | None) -> list[int]:
    """Every bin from 1 up to the summary's ``required_bin`` (bin 0 holds the
    ties, which never swap); :data:`DEFAULT_BINS` when the level is not
    reached.  Only bins present in ``fits``."""
    present = set(fits["bin"].to_list())
    req = _summary_row(summary).get("required_bin")
    last = int(req) if req is not None else DEFAULT_BINS[-1]
    shown = [b for b in range(1, last + 1) if b in present]
    return shown or sorted(present)[:len(DEFAULT_BINS)]


def swap_title(measure: str, full_size: int, level: float, unit: str,
               required_difference: float | None, row: dict) -> str:
    """The figure's title: the measure, and what is read from the curves; below
    the weak-evidence threshold of runs, that no required difference is
    estimated (the page's sentence says the same)."""
    from ..conclusions import too_few_runs

    units = plural(unit)
    title = f"Swap method, {label(measure)}: error rate by score difference d"
    if row and too_few_runs(row):
        n = row.get("n_runs")
        title += (f"\ntoo few runs{f' ({n})' if n is not None else ''} to estimate a "
                  "required difference")
    elif required_difference is not None and not math.isnan(required_difference):
        where = (f"observed at c = {row['observed_at']} {units}" if row.get("mode") == "observed"
                 else f"extrapolated to {full_size} {units}")
        title += (f"\nd \u2265 {required_difference:.2f} needed for \u2264 {level:.0%} error "
                  f"({where})")
    elif row:
        title += f"\nno difference bin reaches \u2264 {level:.0%} error"
    return title


def swap_curves_figure(counts: pl.DataFrame, fits: pl.DataFrame, measure: str,
                       full_size: int, level: float = 0.05, bins: Sequence[int] | None = None,
                       unit: str = "question", required_difference: float | None = None,
                       summary: pl.DataFrame | None = None):
    """Observed swap error rates (points) and the fitted curves (the fits'
    ``model``; solid over the observed sizes, dashed when extrapolated up to
    ``full_size``, not extrapolated for a bin whose fit has a ``reason``) for
    the difference bins ``bins`` (default :func:`bins_shown`), with the
    ``level`` line; title with the measure's label, legend outside the axes,
    no footnote: how the curves were fitted is said once, by the page's
    section and the summary table's caption."""
    from ...reliability.curves import model_error

    if _summary_row(summary).get("mode") == "observed":
        return observed_swap_figure(counts, fits, measure, level, unit, summary)
    fits = fits.sort("bin")
    bins = list(bins) if bins is not None else bins_shown(fits, summary)
    obs = counts.filter(pl.col("comparisons") > 0).with_columns(
        (pl.col("swaps") / pl.col("comparisons")).alias("error_rate"))
    from ..conclusions import too_few_runs

    row = _summary_row(summary)
    too_few = bool(row) and too_few_runs(row)
    units = plural(unit)
    with style():
        fig, ax = new_figure(8.6, 4.6)
        max_obs = int(obs["size"].max() or 1) if obs.height else 1
        for color, b in zip(colors(len(bins)), bins, strict=True):
            fit = fits.filter(pl.col("bin") == b)
            lo = fit["lo"][0] if fit.height else b * 0.01
            hi = fit["hi"][0] if fit.height else None
            name = bin_label(lo, hi)
            if b == row.get("required_bin"):
                # below the weak-evidence threshold of runs nothing is decided
                name += " (first under the level)" if too_few else " (decides)"
            pts = obs.filter(pl.col("bin") == b).sort("size")
            ax.plot(pts["size"].to_numpy(), pts["error_rate"].to_numpy(), "o", ms=3,
                    color=color, alpha=0.6)
            if fit.height and fit["a"][0] is not None and fit["b"][0] is not None:
                a, k = float(fit["a"][0]), float(fit["b"][0])
                model = fit["model"][0] if "model" in fit.columns else "exp"
                reason = fit["reason"][0] if "reason" in fit.columns else None
                c1 = np.linspace(max(1, int(pts["size"].min() or 1)), max_obs, 200)
                ax.plot(c1, model_error(model, a, k, c1), "-", color=color, lw=1.5,
                        label=name if reason is None else f"{name} ({reason})")
                if full_size > max_obs and reason is None:
                    c2 = np.linspace(max_obs, full_size, 200)
                    ax.plot(c2, model_error(model, a, k, c2), "--", color=color, lw=1.2)
            elif row.get("mode") == "observed":  # read from the points: no curve needed
                ax.plot([], [], "o", color=color, label=name)
            else:
                reason = fit["reason"][0] if fit.height and "reason" in fit.columns else None
                ax.plot([], [], "o", color=color,
                        label=f"{name} (no fit{': ' + reason if reason else ''})")
        ax.axhline(level, color=LEVEL_COLOR, lw=1, ls=":", label=f"{level:.0%} error level")
        ax.axvline(full_size, color="0.4", lw=0.8, ls="-.",
                   label=f"full collection ({full_size} {units})")
        if row.get("mode") == "observed" and row.get("observed_at"):
            ax.axvline(row["observed_at"], color="0.2", lw=0.8, ls=":",
                       label=f"observed at c = {row['observed_at']}")
        ax.set_xlim(0, full_size * 1.03)
        ax.set_ylim(0, None)
        ax.set_xlabel(f"Test set size (number of {units})")
        ax.set_ylabel("Error rate (swaps / comparisons)")
        ax.set_title(swap_title(measure, full_size, level, unit, required_difference, row))
        shown = "no bins"
        first = fits.filter(pl.col("bin") == bins[0]) if bins else fits.head(0)
        last = fits.filter(pl.col("bin") == bins[-1]) if bins else fits.head(0)
        if first.height and last.height:
            hi = last["hi"][0]
            shown = (f"bins {first['lo'][0]:.2f}\u2013{hi:.2f} shown" if hi is not None
                     else f"bins from {first['lo'][0]:.2f} shown")
        fig.legend(*ax.get_legend_handles_labels(), loc="outside right upper", frameon=True,
                   title=f"Score difference d\n({shown})", title_fontsize=8)
    return fig


def observed_points(counts: pl.DataFrame, fits: pl.DataFrame, size: int) -> pl.DataFrame:
    """The observed swap rate of every bin with comparisons at subset size
    ``size``: ``bin, lo, hi, swaps, comparisons, error_rate`` (bin edges from
    the fits; bins in order)."""
    edges = fits.select("bin", "lo", "hi") if {"lo", "hi"} <= set(fits.columns) else None
    at = (counts.filter((pl.col("size") == size) & (pl.col("comparisons") > 0))
          .group_by("bin").agg(pl.col("swaps").sum(), pl.col("comparisons").sum()))
    if edges is not None:
        at = at.join(edges, on="bin", how="left")
    else:
        at = at.with_columns((pl.col("bin") * 0.01).alias("lo"), pl.lit(None, pl.Float64)
                             .alias("hi"))
    return (at.with_columns((pl.col("swaps") / pl.col("comparisons")).alias("error_rate"))
            .select("bin", "lo", "hi", "swaps", "comparisons", "error_rate").sort("bin"))


def observed_swap_figure(counts: pl.DataFrame, fits: pl.DataFrame, measure: str,
                         level: float = 0.05, unit: str = "question",
                         summary: pl.DataFrame | None = None):
    """The observed mode's reading (the c@1 paper's Table 2): the swap error rate
    of each score-difference bin at the subset size ``c`` of the summary's
    ``observed_at`` (x: the bin's lower edge; the open last bin ``d >= 0.20``),
    the ``level`` line, and the deciding bin marked (the summary's
    ``required_bin``; its lower edge is the required difference)."""
    from ..conclusions import too_few_runs

    row = _summary_row(summary)
    too_few = bool(row) and too_few_runs(row)
    size = int(row.get("observed_at") or counts["size"].max())
    pts = observed_points(counts, fits, size)
    units = plural(unit)
    with style():
        fig, ax = new_figure(8.6, 4.6)
        x, y = pts["lo"].to_numpy(), pts["error_rate"].to_numpy()
        ax.plot(x, y, "-o", color="0.35", ms=4, lw=1, label="swap rate\n(swaps / comparisons)")
        ax.axhline(level, color=LEVEL_COLOR, lw=1, ls=":", label=f"{level:.0%} error level")
        req = row.get("required_bin")
        hit = pts.filter(pl.col("bin") == req) if req is not None else pts.head(0)
        if hit.height:
            lo, err = float(hit["lo"][0]), float(hit["error_rate"][0])
            # below the weak-evidence threshold of runs nothing is decided
            what = "first under the level" if too_few else "decides"
            ax.plot([lo], [err], "o", ms=9, mfc="none", mec=LEVEL_COLOR, mew=1.8,
                    label=f"{bin_label(lo, hit['hi'][0])} ({what})")
            ax.axvline(lo, color=LEVEL_COLOR, lw=0.8, ls="--")
            ax.annotate(f"{what}: d \u2265 {lo:.2f} (error {err:.1%})", (lo, err),
                        xytext=(6, 12), textcoords="offset points", color=LEVEL_COLOR,
                        fontsize=8)
        ax.set_xlabel("Score difference d (lower edge of its bin; last bin open)")
        ax.set_ylabel(f"Error rate at c = {size} {units}")
        ax.set_xlim(-0.005, max(float(x.max()) if len(x) else 0.2, 0.2) + 0.01)
        ax.set_ylim(0, None)
        ax.set_title(f"Swap method, {label(measure)}: error rate by score difference d\n"
                     f"at c = {size} {units}: " + _observed_headline(row, level, too_few),
                     fontsize=9.5)
        fig.legend(*ax.get_legend_handles_labels(), loc="outside right upper", frameon=True)
    return fig


def _observed_headline(row: dict, level: float, too_few: bool = False) -> str:
    if too_few:
        n = row.get("n_runs")
        return (f"too few runs{f' ({n})' if n is not None else ''} to estimate a required "
                "difference")
    req = row.get("required_difference")
    if req is None or (isinstance(req, float) and math.isnan(req)):
        return f"no difference bin reaches \u2264 {level:.0%} error"
    return f"d \u2265 {req:.2f} needed for \u2264 {level:.0%} error"


__all__ = ["swap_curves_figure", "observed_swap_figure", "observed_points", "swap_title",
           "bins_shown", "bin_label", "DEFAULT_BINS"]
