"""Series and question-type aggregation (TREC question series; Voorhees 2005).

- ``series_score`` per series: the year's weights over the series' factoid
  accuracy, mean list F and the official Other score "using only the scores
  for questions belonging to that series"; run score = mean over the series
  that are not left out (a series whose Other question was never judged is
  left out of the series score only: 64 of 65 series in TREC 2004).
- ``type_score`` (TREC 2003 style): 0.5 accuracy + 0.25 mean list F + 0.25 mean
  Other score over the whole test set, every judged question included.
- A series with factoid questions of which none is judged keeps a series
  score from its other components (weights renormalised) and is listed in
  ``dropped.parquet`` with scope ``series_component``, never silently.
Every float mean goes through :func:`qacamp.aggregate.group_agg` (fixed order).
"""

from __future__ import annotations

import polars as pl

from ..aggregate import group_agg
from ..measures import series
from .context import Context
from .frames import JS, Collector
from .judged import Judged
from .lists import LIST_MEASURES
from .nuggets import OTHER_MEASURES

KEYS = [JS, "run"]
SKEYS = [JS, "run", "series"]


def type_scores(ctx: Context, qf: pl.DataFrame | None, lf: pl.DataFrame | None,
                of: pl.DataFrame | None, out: Collector) -> None:
    """``type_score`` at scope ``all`` (only when list or Other questions exist)."""
    if not any(f is not None and f.height for f in (lf, of)):
        return
    run_level = ctx.sets_df.join(ctx.runs_df, how="cross")
    for frame, name, src in ((_strings(qf), "accuracy", "r"), (lf, "list_f", "list_f"),
                             (of, "other_f", "other_score")):
        if frame is not None and frame.height:
            m = group_agg(frame, KEYS, ["qid"], means=[src]).rename({src: name})
            run_level = run_level.join(m, on=KEYS, how="left")
        else:
            run_level = run_level.with_columns(pl.lit(None, pl.Float64).alias(name))
    weights = dict(series.TYPE_WEIGHTS)
    for comp in ctx.opts["skip"]:
        weights["other" if comp == "definition" else comp] = 0.0
    total = sum(weights.values())
    weights = {k: v / total for k, v in weights.items()} if total > 0 else weights
    out.add(series.type_score(run_level, weights).select(*KEYS, "type_score"), "all", "all")


def series_scores(ctx: Context, qf: pl.DataFrame | None, lf: pl.DataFrame | None,
                  of: pl.DataFrame | None, judged: Judged, out: Collector) -> None:
    """Per-series components and ``series_score`` (trec-series campaigns)."""
    per = None
    for frame, cols in ((_strings(qf), {"r": "accuracy"}),
                        (lf, {c: c for c in LIST_MEASURES}),
                        (of, {**{c: c for c in OTHER_MEASURES}, "other_score": "_other"})):
        if frame is None or not frame.height:
            continue
        a = group_agg(frame.filter(pl.col("series").is_not_null()), SKEYS, ["qid"],
                      means=list(cols)).rename(cols)
        per = a if per is None else per.join(a, on=SKEYS, how="full", coalesce=True)
    if per is None:
        return
    for c in ("accuracy", "list_f", "_other"):
        if c not in per.columns:
            per = per.with_columns(pl.lit(None, pl.Float64).alias(c))
    per = series.combine(per, ctx.opts["series_weights"], other="_other")
    out.add(per.drop("series_score", "_other").rename({"series": "unit"}), "series",
            pl.col("unit"))
    kept = per.join(judged.series_out, on=[JS, "series"], how="anti")
    _report_missing_factoid(ctx, kept, out)
    out.add(kept.select(*SKEYS, "series_score").rename({"series": "unit"}), "series",
            pl.col("unit"))
    out.add(group_agg(kept, KEYS, ["series"], means=["series_score"]), "all", "all")


def _strings(qf: pl.DataFrame | None) -> pl.DataFrame | None:
    """The main-question frame of :func:`.questions.question_scores` (Enum
    keys), the columns used here, its keys as strings (those of the list and
    Other frames it is joined with)."""
    if qf is None:
        return None
    return qf.select(pl.col(JS, "run", "qid").cast(pl.String), "r", "series")


def _report_missing_factoid(ctx: Context, kept: pl.DataFrame, out: Collector) -> None:
    if ctx.skipped("factoid"):
        return
    with_factoid = ctx.questions.filter(pl.col("qtype") == "FACTOID").select("series").unique()
    miss = (kept.filter(pl.col("accuracy").is_null()).join(with_factoid, on="series", how="semi")
            .select(JS, pl.col("series").alias("unit")).unique().sort(JS, "unit"))
    out.drop(miss, "series_component", "no judged factoid question: the series score combines "
             "the other components (weights renormalised)")
