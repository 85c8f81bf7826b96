"""Figures of a campaign's scores: per-series box plot (Voorhees 2005 Figure
3), top runs (Voorhees 2005 Figure 2), c@1 per reading test and topic
(QA4MRE).  Baselines are never drawn; dropped series are named in a footnote.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import polars as pl

from ...errors import InputError
from ...measures import label
from ...names import is_baseline, natural_key
from .base import LEVEL_COLOR, colors, fitted_legend, footnote, new_figure, style


def _scope_scores(runs: pl.DataFrame, judgment_set: str, scope: str, measure: str,
                  what: str) -> pl.DataFrame:
    df = runs.filter((pl.col("judgment_set") == judgment_set) & (pl.col("scope") == scope)
                     & (pl.col("measure") == measure)
                     & ~pl.col("run").map_elements(is_baseline, return_dtype=pl.Boolean))
    if df.is_empty():
        raise InputError(what, None, f"no scope-'{scope}' values of '{measure}' for "
                         f"judgment set '{judgment_set}'", "rerun `qacamp score`")
    return df


def series_boxplot_figure(runs: pl.DataFrame, judgment_set: str,
                          measure: str = "series_score", what: str = "runs.parquet",
                          dropped: Sequence[tuple[str, str]] = ()):
    """Box-and-whiskers plot of each series' score across all (non-baseline)
    runs; ``dropped`` (series, reason) pairs are the series without a score
    (``scores/dropped.parquet``), named in the footnote."""
    df = _scope_scores(runs, judgment_set, "series", measure, what)
    series = sorted(df["unit"].unique().to_list(), key=natural_key)
    data = [df.filter(pl.col("unit") == s)["value"].drop_nulls().to_numpy() for s in series]
    n_runs = df["run"].n_unique()
    with style():
        fig, ax = new_figure(max(6.4, 0.16 * len(series) + 1.5), 4.0)
        ax.boxplot(data, widths=0.6, flierprops={"markersize": 2.5},
                   medianprops={"color": LEVEL_COLOR})
        step = max(1, len(series) // 20)
        ax.set_xticks(range(1, len(series) + 1, step), series[::step], rotation=90)
        ax.set_xlabel("Series (target)")
        ax.set_ylabel(label(measure)[0].upper() + label(measure)[1:])
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"{len(series)} series scored across {n_runs} runs "
                     f"(judgment set {judgment_set})")
        note = "Boxes: quartiles; median in red; whiskers at 1.5 times the interquartile range."
        if step > 1:
            note += f" One series in {step} is labelled on the axis."
        if dropped:
            reasons: dict[str, list[str]] = {}
            for unit, reason in sorted(dropped, key=lambda d: natural_key(d[0])):
                reasons.setdefault(reason, []).append(str(unit))
            note += " Not shown (no series score): " + "; ".join(
                f"series {', '.join(units)} ({reason})" for reason, units in reasons.items()) + "."
        footnote(fig, note, width=int(fig.get_figwidth() * 18))
    return fig


def top_runs_figure(runs: pl.DataFrame, judgment_set: str, measure: str = "series_score",
                    top: int = 10, what: str = "runs.parquet"):
    """Average per-series score (scope ``all``) of the ``top`` best runs."""
    df = _scope_scores(runs, judgment_set, "all", measure, what)
    best = df.sort(["value", "run"], descending=[True, False], nulls_last=True).head(top)
    labels, values = best["run"].to_list(), best["value"].to_numpy()
    with style():
        fig, ax = new_figure(6.4, 0.32 * len(labels) + 1.4)
        y = np.arange(len(labels))
        ax.barh(y, values, color="#4575b4")
        ax.set_yticks(y, labels)
        ax.invert_yaxis()
        for yi, v in zip(y, values, strict=True):
            ax.text(v + 0.005, yi, f"{v:.3f}", va="center", fontsize=7)
        ax.set_xlim(0, max(0.1, float(np.nanmax(values)) * 1.15) if len(values) else 1)
        ax.set_xlabel(f"Average {label(measure)}")
        ax.set_ylabel("Run")
        ax.set_title(f"Top {len(labels)} runs by average {label(measure)}")
    return fig


# --------------------------------------------------------------------------- reading tests

def reading_tests_figure(runs: pl.DataFrame, judgment_set: str,
                         test_topics: Mapping[str, str] | None = None,
                         measure: str = "c_at_1", what: str = "runs.parquet",
                         pass_mark: float = 0.5,
                         topic_names: Mapping[str, str] | None = None):
    """c@1 per reading test (left, grouped and coloured by topic; tests in
    natural order, 3.9 before 3.10) and per topic (right) across the
    participants' runs, with the pass mark; topics carry the gold's names."""
    names = dict(topic_names or {})
    tests = _scope_scores(runs, judgment_set, "test", measure, what)
    topics = runs.filter((pl.col("judgment_set") == judgment_set) & (pl.col("scope") == "topic")
                         & (pl.col("measure") == measure)
                         & ~pl.col("run").map_elements(is_baseline, return_dtype=pl.Boolean))
    test_topics = dict(test_topics or {})
    ids = sorted(tests["unit"].unique().to_list(),
                 key=lambda t: (natural_key(test_topics.get(t, "")), natural_key(t)))
    topic_ids = sorted({test_topics.get(t, "") for t in ids}, key=natural_key)
    cmap = dict(zip(topic_ids, colors(len(topic_ids)), strict=True))
    with style():
        fig, (ax1, ax2) = new_figure(max(7.5, 0.28 * len(ids) + 3.5), 4.2, ncols=2,
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
                name = f"topic {topic}" + (f": {names[topic]}" if topic in names else "")
                ax1.plot([], [], "s", color=cmap[topic], alpha=0.6, label=name)
        fitted_legend(fig, *ax1.get_legend_handles_labels(), fontsize=7)
        ax1.set_xlabel("Reading test")
        ax1.set_ylabel(label(measure))
        ax1.set_ylim(-0.02, 1.02)
        ax1.set_title(f"{label(measure)} per reading test "
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
            ax2.set_xticks(range(1, len(tids) + 1), [names.get(t, t) for t in tids],
                           rotation=90)
        ax2.axhline(pass_mark, color=LEVEL_COLOR, ls=":", lw=1)
        ax2.set_ylim(-0.02, 1.02)
        ax2.set_xlabel("Topic")
        ax2.set_title(f"{label(measure)} per topic")
    return fig


__all__ = ["series_boxplot_figure", "top_runs_figure", "reading_tests_figure"]
