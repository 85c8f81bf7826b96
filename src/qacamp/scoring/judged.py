"""Which units each judgment set scores, and which it drops (reported in
``dropped.parquet``; docs/semantics.md, "Unjudged units").

- Question-level questions (FACTOID, QA, MC, VERIFICATION): TREC kinds score
  a question in a judgment set only if it has a judgment there; gold-standard
  kinds (qa4mre, pan, clef-qa) score every question of the question file.
- LIST: needs answer-key instances and a judgment (Voorhees 2005: "one list
  question was dropped because the assessor decided there were no correct
  answers during judging").
- OTHER (and the TREC 2003 DEFINITION questions, scored alike): needs vital
  nuggets when the official Other score is the nugget F
  (recall would be 0/0 otherwise; an Other question without nuggets was never
  judged), nuggets with pyramid weights when it is the pyramid F (the TREC
  2007 pyramid file has weights but no vital/okay labels).
- trec-series: a series whose Other question is unjudged, or with no judged
  question at all, is dropped from the SERIES SCORE only.  Its factoid and
  list questions still count at question level (accuracy, list measures,
  ``type_score``, distributions): Voorhees 2005 scores 64 series but counts
  "212 of the 230 factoid questions" with median 0, i.e. all 230.
- A component the config skips (``skip: [list]``) is not scored at all; its
  questions are reported as dropped with that reason.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from ..tables import NUGGET_QTYPES
from .context import Context
from .frames import JS, Collector

QUESTION_QTYPES = ("FACTOID", "QA", "MC", "VERIFICATION")


@dataclass(frozen=True)
class Judged:
    """(judgment_set, qid) frames of the scored units per component, and the
    (judgment_set, series) pairs excluded from the series score."""

    question: pl.DataFrame
    lists: pl.DataFrame
    other: pl.DataFrame
    series_out: pl.DataFrame


def judged_units(ctx: Context, out: Collector) -> Judged:
    q, t = ctx.questions, ctx.t
    jq = ctx.survey.judged
    ql = q.filter(pl.col("qtype").is_in(QUESTION_QTYPES)).select("qid")
    lq = q.filter(pl.col("qtype") == "LIST").select("qid")
    oq = q.filter(pl.col("qtype").is_in(NUGGET_QTYPES)).select("qid")
    empty = pl.DataFrame(schema={JS: pl.String, "qid": pl.String})

    if ctx.skipped("factoid"):
        question = empty
        _drop(ctx, out, ql, question, "factoid questions skipped by the config (skip: [factoid])")
    else:
        question = (ctx.sets_df.join(ql, how="cross") if ctx.spec.family == "gold"
                    else jq.join(ql, on="qid", how="inner"))
        _drop(ctx, out, ql, question, "no judgments for this question in this judgment set")

    if ctx.skipped("list"):
        lists = empty
        _drop(ctx, out, lq, lists, "list questions skipped by the config (skip: [list])")
    else:
        keyed = t["list_key"].select("qid").unique()
        lists = jq.join(lq, on="qid").join(keyed, on="qid")
        _drop(ctx, out, lq, lists, "list question without answer key or judgments")

    if ctx.skipped("other"):
        other = empty
        key = "definition" if "definition" in ctx.opts["skip"] else "other"
        _drop(ctx, out, oq, other, f"{key.capitalize() if key == 'other' else key} questions "
              f"skipped by the config (skip: [{key}])")
    elif ctx.opts["other_score"] == "pyramid":
        weighted = (t["nuggets"].group_by("qid").agg(pl.col("weight").sum().alias("w"))
                    .filter(pl.col("w") > 0).select("qid"))
        other = ctx.sets_df.join(oq.join(weighted, on="qid"), how="cross")
        _drop(ctx, out, oq, other, "Other question without pyramid weights (never judged)")
    else:
        vital = t["nuggets"].filter(pl.col("vital").fill_null(False)).select("qid").unique()
        other = ctx.sets_df.join(oq.join(vital, on="qid"), how="cross")
        _drop(ctx, out, oq, other, "Other question without vital nuggets (never judged)")

    series_out = pl.DataFrame(schema={JS: pl.String, "series": pl.String})
    if ctx.spec.series:
        series_out = _series_out(ctx, out, [question, lists, other])
    return Judged(question, lists, other, series_out)


def _drop(ctx: Context, out: Collector, all_q: pl.DataFrame, judged: pl.DataFrame,
          reason: str) -> None:
    missing = ctx.sets_df.join(all_q, how="cross").join(judged, on=[JS, "qid"], how="anti")
    out.drop(missing.rename({"qid": "unit"}), "question", reason)


def _series_out(ctx: Context, out: Collector, judged: list[pl.DataFrame]) -> pl.DataFrame:
    """Series left out of the series score: Other question unjudged (unless Other
    is skipped), or no question of the series judged."""
    q = ctx.questions.filter(pl.col("series").is_not_null())
    allj = pl.concat([v.select(JS, "qid") for v in judged]).with_columns(pl.lit(True).alias("j"))
    per = (ctx.sets_df.join(q.select("qid", "series", "qtype"), how="cross")
           .join(allj, on=[JS, "qid"], how="left")
           .with_columns(pl.col("j").fill_null(False)))
    other_counts = not ctx.skipped("other")
    agg = per.group_by(JS, "series").agg(
        pl.col("j").any().alias("any_j"),
        ((pl.col("qtype") == "OTHER") & ~pl.col("j")).any().alias("other_unjudged"))
    bad = agg.filter(~pl.col("any_j") | (pl.col("other_unjudged") & other_counts))
    out.drop(bad.rename({"series": "unit"}), "series",
             pl.when(pl.col("any_j"))
             .then(pl.lit("Other question never judged: series left out of the series score "
                          "(its factoid and list questions still count)"))
             .otherwise(pl.lit("no question of the series judged")))
    return bad.select(JS, "series")
