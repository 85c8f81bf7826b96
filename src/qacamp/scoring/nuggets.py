"""Other (nugget) questions: nugget recall, length-based precision, F(beta),
and the pyramid variants per question (definitions in
:mod:`qacamp.measures.other`), then their means over the judged Other questions.

Length = non-white-space characters of all answered items; matched = distinct
nuggets matched by any item (a nugget counts once per response); the
allowance is 100 characters per matched nugget, vital or okay.

The campaign's official Other score (``other_score``: ``nugget`` = other_f,
``pyramid`` = other_pyramid_f; 2007 default pyramid) is the one the series
and type scores combine; a pyramid score needs the pyramid weights of every
judged Other question, otherwise the campaign is refused with a ConfigError.
"""

from __future__ import annotations

import polars as pl

from ..aggregate import group_agg
from ..errors import ConfigError
from ..measures import other
from ..tables import NUGGET_QTYPES
from .context import Context
from .frames import JS, Collector

OTHER_MEASURES = ["other_recall", "other_precision", "other_f", "other_pyramid_recall",
                  "other_pyramid_f"]
OFFICIAL_COLUMN = {"nugget": "other_f", "pyramid": "other_pyramid_f"}


def other_scores(ctx: Context, judged: pl.DataFrame, out: Collector) -> pl.DataFrame | None:
    """Per (judgment set, run, Other question) measures; None without judged Other questions."""
    if ctx.opts["other_score"] == "pyramid" and not ctx.skipped("other"):
        _require_weights(ctx)
    if not judged.height:
        return None
    t = ctx.t
    nug = t["nuggets"]
    # float sums through group_agg (fixed order: the nugget id), counts are exact
    tot = (nug.group_by("qid").agg(pl.col("vital").sum().alias("vital_total"),
                                   pl.col("weight").is_not_null().any().alias("_hasw"))
           .join(group_agg(nug, ["qid"], ["nugget"], sums=["weight"]), on="qid")
           .with_columns(pl.when(pl.col("_hasw")).then(pl.col("weight"))
                         .otherwise(None).alias("weight_total"))
           .drop("_hasw", "weight"))
    meta = ctx.questions.select("qid", "qtype", "series")
    grid = judged.join(meta, on="qid").join(tot, on="qid").join(ctx.runs_df, how="cross")
    resp = t["responses"].join(judged.select("qid").unique(), on="qid", how="semi")
    length = resp.filter(pl.col("answered")).group_by("run", "qid").agg(
        pl.col("answer").fill_null("").str.replace_all(r"\s", "").str.len_chars().sum()
        .alias("length"))
    matched = (t["nugget_matches"].select(JS, "run", "qid", "nugget").unique()
               .join(nug.select("qid", "nugget", "vital", "weight"), on=["qid", "nugget"],
                     how="inner")
               .with_columns(pl.col("weight").fill_null(0.0)))
    m = (matched.group_by(JS, "run", "qid").agg(pl.len().alias("matched"),
                                                 pl.col("vital").sum().alias("vital_matched"))
         .join(group_agg(matched, [JS, "run", "qid"], ["nugget"], sums=["weight"])
               .rename({"weight": "weight_matched"}), on=[JS, "run", "qid"]))
    g = (grid.join(length, on=["run", "qid"], how="left")
         .join(m, on=[JS, "run", "qid"], how="left")
         .with_columns(pl.col("length").fill_null(0), pl.col("matched").fill_null(0),
                       pl.col("vital_matched").fill_null(0),
                       pl.col("weight_matched").fill_null(0.0)))
    g = other.per_question(g, int(ctx.opts["allowance"]), float(ctx.opts["beta"]))
    g = g.with_columns(pl.col(OFFICIAL_COLUMN[ctx.opts["other_score"]]).alias("other_score"))
    out.unit_rows(g, OTHER_MEASURES)
    out.add(group_agg(g, [JS, "run"], ["qid"], means=OTHER_MEASURES), "all", "all")
    out.add(group_agg(g, [JS, "run", "qtype"], ["qid"], means=OTHER_MEASURES)
            .rename({"qtype": "unit"}), "qtype", pl.col("unit"))
    return g


def _require_weights(ctx: Context) -> None:
    """A pyramid score needs a weight on every nugget of the Other questions."""
    others = ctx.questions.filter(pl.col("qtype").is_in(NUGGET_QTYPES)).select("qid")
    missing = (ctx.t["nuggets"].join(others, on="qid", how="semi")
               .filter(pl.col("weight").is_null()).sort("qid", "nugget"))
    if missing.height or (others.height and not ctx.t["nuggets"].height):
        year = ctx.opts.get("year")
        why = f"TREC {year} scores Other questions with pyramid weights" if year \
            else "other_score is pyramid"
        where = (f"nugget {missing['nugget'][0]} of Other question {missing['qid'][0]} "
                 f"(and {missing.height - 1} more nuggets) has no weight") if missing.height \
            else "the campaign has no nugget weights"
        raise ConfigError("other_score", f"{why}, but {where}",
                          "give the campaign's `pyramid` file (nugget weights), or set "
                          "`other_score: nugget` to use the single-assessor nugget F")
