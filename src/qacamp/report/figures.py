"""Paper figures (matplotlib) and their deterministic PNG + SVG writer.

Every figure function takes frames and returns a :class:`matplotlib.figure.Figure`
attached to an Agg canvas created inside the function (no pyplot, no global
backend switch at import).  Figures are drawn under a fixed style (matplotlib
defaults plus :data:`STYLE`) so a user's matplotlibrc cannot change them.
:func:`save_figure` writes ``<stem>.png`` (fixed dpi, no ``Software`` tag) and
``<stem>.svg`` (no date, fixed ``svg.hashsalt``, text as paths), so a rerun
gives byte-identical SVG.

Figures (source paper in brackets):

- :func:`swap_curves_figure`: error rate of the swap method per difference
  bin over subset size, observed points and fitted curves (e.g. ``a exp(-b
  c)``) extrapolated to the full collection, with the error-level line and a
  footnote naming the fitting method and any weak-evidence warning (Voorhees
  2003 Figure 2; Voorhees 2005 Figure 4);
- :func:`stability_figure`: error rate against proportion of ties, one curve
  per measure over the fuzziness values (Penas & Rodrigo 2011 Figure 2);
- :func:`series_boxplot_figure`: per-series scores across runs (Voorhees
  2005 Figure 3);
- :func:`top_runs_figure`: average per-series score of the top runs
  (Voorhees 2005 Figure 2);
- :func:`reading_tests_figure`: c@1 per reading test and per topic across
  runs, with the pass mark 0.5 (QA4MRE).
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np
import polars as pl

from ..errors import InputError
from ..io import atomic_path

DPI = 150
SVG_HASHSALT = "qacamp"
STYLE = {
    "font.family": "DejaVu Sans",
    "font.size": 9.0,
    "axes.titlesize": 10.0,
    "axes.labelsize": 9.0,
    "legend.fontsize": 8.0,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "svg.fonttype": "path",
    "svg.hashsalt": SVG_HASHSALT,
    "path.simplify": False,
}
LEVEL_COLOR = "#b2182b"


@contextlib.contextmanager
def _style() -> Iterator[None]:
    import matplotlib as mpl

    with mpl.rc_context():
        mpl.rcdefaults()
        mpl.rcParams.update(STYLE)
        yield


def _new_figure(width: float, height: float, ncols: int = 1, **kw):
    """A figure on an Agg canvas and its axes (created inside the caller's style)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, ncols, **kw)
    return fig, axes


def natural_key(text: str) -> tuple:
    """Sort key putting ``S2`` before ``S10``."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p)
                 for p in re.split(r"(\d+)", str(text)) if p != "")


def _bin_label(lo: float | None, hi: float | None) -> str:
    if hi is None or (isinstance(hi, float) and math.isnan(hi)):
        return f"d \u2265 {lo:.2f}"
    return f"{lo:.2f} \u2264 d < {hi:.2f}"


# --------------------------------------------------------------------------- swap

def _swap_footnote(fits: pl.DataFrame, summary: pl.DataFrame | None) -> str:
    """How the curves were fitted and read, and any weak-evidence warning."""
    import textwrap

    from ..reliability.curves import MODELS, describe_model

    row = summary.row(0, named=True) if summary is not None and summary.height else {}
    models = fits["model"].drop_nulls().unique().to_list() if "model" in fits.columns else []
    model = row.get("model") or (models[0] if len(models) == 1 else None)
    if model in MODELS:
        text = f"Curves: {describe_model(model)}"
        if row.get("min_fit_size") is not None:
            text += f", on sizes \u2265 {row['min_fit_size']}"
        text += "; dashed: extrapolated."
    else:
        text = "Curves: fitting method not recorded (rerun `qacamp reliability fit`)."
    if row.get("mode") == "observed":
        text += (f" Required difference read from the swap rates observed at "
                 f"c = {row['observed_at']} (no extrapolation).")
    if row.get("warning"):
        text += f" Weak evidence: {row['warning']}."
    return textwrap.fill(text, width=120)


def swap_curves_figure(counts: pl.DataFrame, fits: pl.DataFrame, measure: str,
                       full_size: int, level: float = 0.05, bins: Sequence[int] | None = None,
                       unit: str = "question", required_difference: float | None = None,
                       summary: pl.DataFrame | None = None):
    """Observed swap error rates (points) and the fitted curves (the fits'
    ``model``, e.g. ``a exp(-b c)``; solid over the observed sizes, dashed when
    extrapolated up to ``full_size``, not extrapolated for a bin whose fit
    has a ``reason``) for the difference bins ``bins`` (default: bins 1-6
    that have a fit, i.e. differences 0.01-0.07, and the ``summary``'s
    required bin), with the ``level`` line.
    A footnote names the fitting method, the observed-mode reading and the
    ``summary``'s weak-evidence warning."""
    from ..reliability.curves import model_error

    fits = fits.sort("bin")
    fitted = fits.filter(pl.col("a").is_not_null() & pl.col("b").is_not_null())
    if bins is None:
        bins = [b for b in fitted["bin"].to_list() if 1 <= b <= 6] or fitted["bin"].to_list()[:6]
        req = summary["required_bin"][0] if summary is not None and summary.height \
            and "required_bin" in summary.columns else None
        if req is not None and req not in bins and req in fitted["bin"].to_list():
            bins.append(req)  # the bin the required difference is read from
    obs = counts.filter(pl.col("comparisons") > 0).with_columns(
        (pl.col("swaps") / pl.col("comparisons")).alias("error_rate"))
    srow = summary.row(0, named=True) if summary is not None and summary.height else {}
    units = unit if unit.endswith("s") else f"{unit}s"  # "series", not "seriess"
    with _style():
        fig, ax = _new_figure(6.4, 4.2)
        colors = _colors(len(bins))
        max_obs = int(obs["size"].max() or 1) if obs.height else 1
        for color, b in zip(colors, bins, strict=True):
            row = fits.filter(pl.col("bin") == b)
            lo = row["lo"][0] if row.height else b * 0.01
            hi = row["hi"][0] if row.height else None
            label = _bin_label(lo, hi)
            pts = obs.filter(pl.col("bin") == b).sort("size")
            ax.plot(pts["size"].to_numpy(), pts["error_rate"].to_numpy(), "o", ms=3,
                    color=color, alpha=0.6)
            if row.height and row["a"][0] is not None and row["b"][0] is not None:
                a, k = float(row["a"][0]), float(row["b"][0])
                model = row["model"][0] if "model" in row.columns else "exp"
                reason = row["reason"][0] if "reason" in row.columns else None
                c1 = np.linspace(max(1, int(pts["size"].min() or 1)), max_obs, 200)
                ax.plot(c1, model_error(model, a, k, c1), "-", color=color, lw=1.5,
                        label=label if reason is None else f"{label} ({reason})")
                if full_size > max_obs and reason is None:
                    c2 = np.linspace(max_obs, full_size, 200)
                    ax.plot(c2, model_error(model, a, k, c2), "--", color=color, lw=1.2)
            else:
                ax.plot([], [], "o", color=color, label=f"{label} (no fit)")
        ax.axhline(level, color=LEVEL_COLOR, lw=1, ls=":", label=f"{level:.0%} error level")
        ax.axvline(full_size, color="0.4", lw=0.8, ls="-.",
                   label=f"full collection ({full_size} {units})")
        ax.set_xlim(0, full_size * 1.03)
        ax.set_ylim(0, None)
        ax.set_xlabel(f"Test set size (number of {units})")
        ax.set_ylabel("Error rate (swaps / comparisons)")
        title = f"Swap method, {measure}: error rate by score difference d"
        if required_difference is not None and not math.isnan(required_difference):
            where = (f"observed at c = {srow['observed_at']}" if srow.get("mode") == "observed"
                     else f"at {full_size} {units}")
            title += f"\n(d \u2265 {required_difference:.2f} needed for \u2264 {level:.0%} "\
                     f"error {where})"
        ax.set_title(title)
        ax.legend(loc="upper right", ncols=1, frameon=True)
        fig.supxlabel(_swap_footnote(fits, summary), fontsize=6.5, x=0.01, ha="left")
    return fig


def _colors(n: int) -> list:
    from matplotlib import colormaps

    cmap = colormaps["tab10"]
    return [cmap(i % 10) for i in range(n)]


# --------------------------------------------------------------------------- stability

def stability_figure(stability: Mapping[str, pl.DataFrame], size: int | None = None):
    """Error rate against proportion of ties, one curve per measure, points at
    the fuzziness values (the first curve's ends labelled with f)."""
    with _style():
        fig, ax = _new_figure(5.6, 4.2)
        names = list(stability)
        for k, (color, m) in enumerate(zip(_colors(len(names)), names, strict=True)):
            df = stability[m].sort("fuzziness")
            x, y = df["prop_ties"].to_numpy(), df["error_rate"].to_numpy()
            ax.plot(x, y, "o-", color=color, ms=3.5, lw=1.4, label=m)
            if df.height and k == 0:  # fuzziness labels once, on the first curve
                for i in (0, df.height - 1):
                    ax.annotate(f"f={df['fuzziness'][i]:.2f}", (x[i], y[i]), fontsize=7,
                                xytext=(4, 3), textcoords="offset points", color=color)
        ax.set_xlabel("Proportion of ties")
        ax.set_ylabel("Error rate")
        ax.set_xlim(0, None)
        ax.set_ylim(0, None)
        sub = f" (subsets of {size})" if size else ""
        ax.set_title(f"Stability vs discrimination{sub}: fuzziness 0.01-0.10")
        ax.legend(title="Measure", loc="upper right")
    return fig


# --------------------------------------------------------------------------- series

def _scope_scores(runs: pl.DataFrame, judgment_set: str, scope: str, measure: str,
                  what: str) -> pl.DataFrame:
    df = runs.filter((pl.col("judgment_set") == judgment_set) & (pl.col("scope") == scope)
                     & (pl.col("measure") == measure)
                     & ~pl.col("run").str.starts_with("baseline:"))
    if df.is_empty():
        raise InputError(what, None, f"no scope-'{scope}' values of '{measure}' for "
                         f"judgment set '{judgment_set}'", "rerun `qacamp score`")
    return df


def series_boxplot_figure(runs: pl.DataFrame, judgment_set: str,
                          measure: str = "series_score", what: str = "runs.parquet"):
    """Box-and-whiskers plot of each series' score across all (non-baseline) runs."""
    df = _scope_scores(runs, judgment_set, "series", measure, what)
    series = sorted(df["unit"].unique().to_list(), key=natural_key)
    data = [df.filter(pl.col("unit") == s)["value"].drop_nulls().to_numpy() for s in series]
    n_runs = df["run"].n_unique()
    with _style():
        fig, ax = _new_figure(max(6.4, 0.16 * len(series) + 1.5), 4.0)
        ax.boxplot(data, widths=0.6, flierprops={"markersize": 2.5},
                   medianprops={"color": LEVEL_COLOR})
        step = max(1, len(series) // 20)
        ax.set_xticks(range(1, len(series) + 1, step), series[::step], rotation=90)
        ax.set_xlabel("Series (target)")
        ax.set_ylabel(f"Per-series score ({measure})")
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"Per-series scores across {n_runs} runs (judgment set {judgment_set})")
    return fig


def top_runs_figure(runs: pl.DataFrame, judgment_set: str, measure: str = "series_score",
                    top: int = 10, what: str = "runs.parquet"):
    """Average per-series score (scope ``all``) of the ``top`` best runs."""
    df = _scope_scores(runs, judgment_set, "all", measure, what)
    best = df.sort(["value", "run"], descending=[True, False], nulls_last=True).head(top)
    labels, values = best["run"].to_list(), best["value"].to_numpy()
    with _style():
        fig, ax = _new_figure(6.4, 0.32 * len(labels) + 1.4)
        y = np.arange(len(labels))
        ax.barh(y, values, color="#4575b4")
        ax.set_yticks(y, labels)
        ax.invert_yaxis()
        for yi, v in zip(y, values, strict=True):
            ax.text(v + 0.005, yi, f"{v:.3f}", va="center", fontsize=7)
        ax.set_xlim(0, max(0.1, float(np.nanmax(values)) * 1.15) if len(values) else 1)
        ax.set_xlabel(f"Average per-series score ({measure})")
        ax.set_ylabel("Run")
        ax.set_title(f"Top {len(labels)} runs by average per-series score")
    return fig


# --------------------------------------------------------------------------- reading tests

def reading_tests_figure(runs: pl.DataFrame, judgment_set: str,
                         test_topics: Mapping[str, str] | None = None,
                         measure: str = "c_at_1", what: str = "runs.parquet",
                         pass_mark: float = 0.5):
    """c@1 per reading test (left, grouped and coloured by topic) and per topic
    (right) across the participants' runs, with the pass mark."""
    tests = _scope_scores(runs, judgment_set, "test", measure, what)
    topics = runs.filter((pl.col("judgment_set") == judgment_set) & (pl.col("scope") == "topic")
                         & (pl.col("measure") == measure)
                         & ~pl.col("run").str.starts_with("baseline:"))
    test_topics = dict(test_topics or {})
    ids = sorted(tests["unit"].unique().to_list(),
                 key=lambda t: (natural_key(test_topics.get(t, "")), natural_key(t)))
    topic_ids = sorted({test_topics.get(t, "") for t in ids}, key=natural_key)
    cmap = dict(zip(topic_ids, _colors(len(topic_ids)), strict=True))
    with _style():
        fig, (ax1, ax2) = _new_figure(max(7.5, 0.28 * len(ids) + 3.5), 4.2, ncols=2,
                                      width_ratios=[3, 1])
        data = [tests.filter(pl.col("unit") == t)["value"].drop_nulls().to_numpy() for t in ids]
        bp = ax1.boxplot(data, widths=0.6, patch_artist=True, flierprops={"markersize": 2.5},
                         medianprops={"color": "black"})
        for patch, t in zip(bp["boxes"], ids, strict=True):
            patch.set_facecolor(cmap[test_topics.get(t, "")])
            patch.set_alpha(0.6)
        ax1.set_xticks(range(1, len(ids) + 1), ids, rotation=90)
        ax1.axhline(pass_mark, color=LEVEL_COLOR, ls=":", lw=1, label=f"pass mark ({pass_mark})")
        for topic in topic_ids:
            if topic:
                ax1.plot([], [], "s", color=cmap[topic], alpha=0.6, label=f"topic {topic}")
        fig.legend(*ax1.get_legend_handles_labels(), loc="outside lower center",
                   ncols=min(6, len(topic_ids) + 1), fontsize=7)
        ax1.set_xlabel("Reading test")
        ax1.set_ylabel("c@1" if measure == "c_at_1" else measure)
        ax1.set_ylim(-0.02, 1.02)
        ax1.set_title(f"{'c@1' if measure == 'c_at_1' else measure} per reading test "
                      f"across {tests['run'].n_unique()} runs")
        if topics.height:
            tids = sorted(topics["unit"].unique().to_list(), key=natural_key)
            tdata = [topics.filter(pl.col("unit") == t)["value"].drop_nulls().to_numpy()
                     for t in tids]
            bp2 = ax2.boxplot(tdata, widths=0.6, patch_artist=True,
                              medianprops={"color": "black"}, flierprops={"markersize": 2.5})
            for patch, t in zip(bp2["boxes"], tids, strict=True):
                patch.set_facecolor(cmap.get(t, "#cccccc"))
                patch.set_alpha(0.6)
            ax2.set_xticks(range(1, len(tids) + 1), tids, rotation=90)
        ax2.axhline(pass_mark, color=LEVEL_COLOR, ls=":", lw=1)
        ax2.set_ylim(-0.02, 1.02)
        ax2.set_xlabel("Topic")
        ax2.set_title(f"{'c@1' if measure == 'c_at_1' else measure} per topic")
    return fig


# --------------------------------------------------------------------------- writing

def save_figure(fig, stem: str | Path, dpi: int = DPI) -> list[Path]:
    """Write ``<stem>.png`` and ``<stem>.svg`` atomically and deterministically."""
    import matplotlib as mpl

    stem = Path(stem)
    out = []
    with mpl.rc_context({"svg.hashsalt": SVG_HASHSALT, "svg.fonttype": "path"}):
        for ext, meta in (("png", {"Software": None}), ("svg", {"Date": None})):
            path = stem.with_name(f"{stem.name}.{ext}")
            with atomic_path(path, f".{ext}") as tmp:
                fig.savefig(tmp, format=ext, dpi=dpi, metadata=meta)
            out.append(path)
    return out


__all__ = ["swap_curves_figure", "stability_figure", "series_boxplot_figure",
           "top_runs_figure", "reading_tests_figure", "save_figure", "natural_key", "DPI"]
