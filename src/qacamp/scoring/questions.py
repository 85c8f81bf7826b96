"""Scores of question-level questions from their outcome grid: the run level
(scope ``all``), per question type (``qtype``; QA4MRE auxiliary questions as
unit ``auxiliary``), the QA4MRE reading perspective (``topic``, ``test``) and
the per-question rows of ``units.parquet``.

TREC kinds add CWS, NIL precision/recall and MRR; MRR counts the ranked
answers of a question up to ``max_rank`` (TREC 8-10: "return a ranked list of
up to five [document-id, answer-string] pairs per question ... the reciprocal
of the rank at which the first correct response was returned, or zero"),
strict (R) and lenient (R or U).  ``accuracy_lenient`` counts the first
answer right when judged R or U; ``accuracy_local`` when judged R or L
(locally correct, TREC 2006-2007).  Auxiliary questions never enter the main
scopes.
"""

from __future__ import annotations

import polars as pl

from ..aggregate import group_agg
from ..measures import factoid, nonresponse, reading
from .context import Context
from .frames import JS, Collector

TREC_UNIT_MEASURES = {"accuracy": "r", "mrr": "rr", "mrr_lenient": "rr_lenient",
                      "accuracy_lenient": "r_lenient", "accuracy_local": "r_local"}


#: finest grouping of the question-level counts; every scope is a sum of these
FINE = [JS, "run", "_u", "topic", "test"]
AUX = "auxiliary"


def question_scores(ctx: Context, g: pl.DataFrame, expected: pl.DataFrame | None, enums: dict,
                    multi: bool, out: Collector) -> pl.DataFrame | None:
    """Add the question-level scores to ``out``; return the main-question frame
    (Enum keys) for the TREC aggregations, None for other kinds.  ``expected``
    (the expected random-choice run, QA4MRE) is scored alongside the grid.

    The outcome counts are taken once per (judgment set, run, question type,
    topic, test) and every scope sums them (integer counts: exact; the
    expected run's fractional ones in a fixed order)."""
    main = g.filter(pl.col("aux").not_()) if g["aux"].any() else g
    out.outcomes.append(main.select(JS, "run", "qid", "rank", "answered", "outcome"))
    fine = pl.concat([nonresponse.counts(f, FINE, order=["qid"])
                      for f in (g, expected) if f is not None and f.height])
    main_fine = fine.filter(pl.col("_u").cast(pl.String) != AUX)
    keys = [JS, "run"]
    allsc = _level(main_fine, keys)
    trec = ctx.spec.judged
    unit_cols = {"accuracy": "r"}
    if trec:
        if multi:
            rr = _reciprocal_ranks(ctx, main, enums)
            main = main.join(rr, on=[JS, "run", "qid"], how="left")
        else:  # one answer per question: its reciprocal rank is its correctness
            main = main.with_columns(pl.col("r").alias("rr"),
                                     pl.col("r_lenient").alias("rr_lenient"))
        # (0: a float 0.0 where several answers gave fractions, else the 0/1
        # integers stay integers, and their means are exact integer sums)
        main = main.with_columns(pl.col("rr").fill_null(0), pl.col("rr_lenient").fill_null(0))
        means = group_agg(main, keys, ["qid"], means=["rr", "rr_lenient", "r_lenient", "r_local"])
        allsc = (allsc.join(means.rename({"rr": "mrr", "rr_lenient": "mrr_lenient",
                                          "r_lenient": "accuracy_lenient",
                                          "r_local": "accuracy_local"}), on=keys)
                 .join(factoid.cws(main, keys), on=keys)
                 .join(factoid.nil_scores(_nil_frame(ctx, main), keys), on=keys))
        unit_cols = TREC_UNIT_MEASURES
    out.add(allsc, "all", "all")
    out.unit_rows(main.with_columns([pl.col(src).alias(name)
                                     for name, src in unit_cols.items()]), list(unit_cols))
    out.add(_level(fine, [*keys, "_u"]).rename({"_u": "unit"}), "qtype", pl.col("unit"))
    if ctx.spec.reading_tests:
        _reading(ctx, main_fine, keys, out)
    return main if trec else None


def _level(fine: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """The non-response measures at the grouping ``by`` from the fine counts."""
    rest = [c for c in FINE if c not in by]
    return nonresponse.from_counts(
        group_agg(fine, by, rest, sums=nonresponse.COUNT_COLUMNS), by)


def _reading(ctx: Context, main_fine: pl.DataFrame, keys: list[str], out: Collector) -> None:
    """QA4MRE reading perspective: c@1 per test and topic, test statistics."""
    o = ctx.opts
    stats = {"threshold": float(o["pass_threshold"]), "rule": o["pass_rule"],
             "ddof": int(o["test_std_ddof"])}
    per_test = _level(main_fine, [*keys, "topic", "test"])
    topic = _level(main_fine, [*keys, "topic"]).join(
        reading.test_stats(per_test, [*keys, "topic"], order=["test"], **stats),
        on=[*keys, "topic"], how="left")
    out.add(topic.rename({"topic": "unit"}), "topic", pl.col("unit"))
    out.add(per_test.drop("topic").rename({"test": "unit"}), "test", pl.col("unit"))
    out.add(reading.test_stats(per_test, keys, order=["topic", "test"], **stats), "all", "all")


def _reciprocal_ranks(ctx: Context, main: pl.DataFrame, enums: dict) -> pl.DataFrame:
    """Per (judgment set, run, question) with several ranked answers: ``rr``
    and ``rr_lenient``."""
    qids = main.select(pl.col("qid").cast(pl.String)).unique()
    items = (ctx.t["responses"].join(qids, on="qid", how="semi")
             .filter(pl.col("item") <= int(ctx.opts["max_rank"]))
             .join(ctx.t["judgments"], on=["run", "qid", "item"], how="inner"))
    items = items.with_columns(
        (pl.col("answered") & (pl.col("judgment") == "R")).alias("right"),
        (pl.col("answered") & pl.col("judgment").is_in(["R", "U"])).alias("right_lenient"))
    strict = factoid.reciprocal_rank(items, [JS, "run", "qid"], correct="right")
    lenient = factoid.reciprocal_rank(items, [JS, "run", "qid"], correct="right_lenient")
    rr = strict.join(lenient.rename({"rr": "rr_lenient"}), on=[JS, "run", "qid"])
    return rr.with_columns([pl.col(c).cast(pl.String).cast(e) for c, e in enums.items()
                            if c in rr.columns])


def _nil_frame(ctx: Context, main: pl.DataFrame) -> pl.DataFrame:
    df = main.with_columns(
        (pl.col("answered") & pl.col("nil").fill_null(False)).alias("nil_returned"))
    df = df.with_columns((pl.col("nil_returned") & (pl.col("r") > 0)).alias("nil_right"))
    if ctx.nil_judged is None:
        judged_nil = df.group_by(JS, "qid").agg(pl.col("nil_right").any().alias("_jn"))
    else:  # the campaign's, found over every run (scoring.batches.nil_judged)
        judged_nil = ctx.nil_judged.select(pl.col(JS).cast(df.get_column(JS).dtype),
                                           pl.col("qid").cast(df.get_column("qid").dtype),
                                           pl.lit(True).alias("_jn"))
    return df.join(judged_nil, on=[JS, "qid"], how="left").with_columns(
        pl.coalesce(pl.col("nil_answer"), pl.col("_jn")).fill_null(False)
        .alias("nil_question"))
