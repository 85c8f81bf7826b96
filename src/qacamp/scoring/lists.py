"""List questions: instance precision, recall and F per question (measure
definitions in :mod:`qacamp.measures.lists`), then their means over the judged
list questions (run level and per question type).

N = answered items of the run for the question, D = items judged R and
marked distinct (NIST marks exactly one instance of each right answer;
a right item whose ``distinct`` flag is missing counts as distinct), S = the
answer key's instances.  A run without any item for a judged list question
scores 0 there (N = 0).
"""

from __future__ import annotations

import polars as pl

from ..aggregate import group_agg
from ..measures import lists
from .context import Context
from .frames import JS, Collector

LIST_MEASURES = ["list_precision", "list_recall", "list_f"]


def list_scores(ctx: Context, judged: pl.DataFrame, out: Collector) -> pl.DataFrame | None:
    """Per (judgment set, run, list question) measures; None without judged list questions."""
    if not judged.height:
        return None
    t = ctx.t
    meta = ctx.questions.select("qid", "qtype", "series")
    s = t["list_key"].group_by("qid").agg(pl.len().alias("S"))
    grid = judged.join(meta, on="qid").join(s, on="qid").join(ctx.runs_df, how="cross")
    resp = t["responses"].join(judged.select("qid").unique(), on="qid", how="semi")
    n = resp.filter(pl.col("answered")).group_by("run", "qid").agg(pl.len().alias("N"))
    d = (resp.filter(pl.col("answered"))
         .join(t["judgments"], on=["run", "qid", "item"], how="inner")
         .filter((pl.col("judgment") == "R") & pl.col("distinct").fill_null(True))
         .group_by(JS, "run", "qid").agg(pl.len().alias("D")))
    g = (grid.join(n, on=["run", "qid"], how="left").join(d, on=[JS, "run", "qid"], how="left")
         .with_columns(pl.col("N").fill_null(0), pl.col("D").fill_null(0)))
    g = lists.per_question(g)
    out.unit_rows(g, LIST_MEASURES)
    out.add(group_agg(g, [JS, "run"], ["qid"], means=LIST_MEASURES), "all", "all")
    out.add(group_agg(g, [JS, "run", "qtype"], ["qid"], means=LIST_MEASURES)
            .rename({"qtype": "unit"}), "qtype", pl.col("unit"))
    return g
