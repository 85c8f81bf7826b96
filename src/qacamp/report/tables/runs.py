"""Run tables (one row per run), per-unit breakdowns and the editions overview.

Each function takes ``runs.parquet`` (and for TREC factoid ``units.parquet``)
frames and returns a :class:`~.base.Table`; the sources are named in each
caption: Voorhees 2003 Table 1 (TREC 2002 run table), Voorhees 2005 (question
series), Penas & Rodrigo 2011 Table 3 (c@1 vs accuracy), the QA4MRE overview
Table 1 (editions), and the PAN overviews (AUC, c@1, F0.5u, F1, Brier,
overall).
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from ...errors import InputError
from ...measures import KIND_MEASURES, label
from .base import (
    BLOCK_RUNS,
    Column,
    Table,
    cap,
    cast_counts,
    measure_header,
    questions_per_run,
    require_measures,
    sort_runs,
    wide_scores,
)

#: Footnotes stating how an empty denominator is printed (docs/semantics.md,
#: "Empty denominators"): one rule for the tables, the Parquet keeps 0.
NIL_NOTE = ("NIL precision is 0 by convention for a run that returned no NIL, and NIL "
            "recall for a campaign without NIL questions (docs/semantics.md); a dash: "
            "not scored.")
DISCARDED_NOTE = ("Correctly discarded: a dash for a run that left no question unanswered "
                  "(nothing to discard; stored as 0 by convention, docs/semantics.md).")

# --------------------------------------------------------------------------- run tables

def trec_factoid_run_table(runs: pl.DataFrame, judgment_set: str,
                           units: pl.DataFrame | None = None,
                           what: str = "runs.parquet") -> Table:
    """Voorhees 2003 Table 1: run, CWS, # and % correct, NIL precision and recall,
    sorted by CWS.  The number of questions per run comes from ``units``
    (rows of ``accuracy``) when given, else n_right + n_wrong (+ n_unanswered)."""
    wide = wide_scores(runs, judgment_set, what=what)
    require_measures(wide, ("cws", "n_right", "nil_precision", "nil_recall"), what)
    wide = cast_counts(wide, ("n_right", "n_wrong", "n_unanswered"))
    if units is not None:
        wide = wide.join(questions_per_run(units, judgment_set), on="run", how="left")
    else:
        parts = [c for c in ("n_right", "n_wrong", "n_unanswered") if c in wide.columns]
        wide = wide.with_columns(pl.sum_horizontal(parts).cast(pl.Int64).alias("n"))
    wide = wide.with_columns(
        pl.when(pl.col("n") > 0).then(100.0 * pl.col("n_right") / pl.col("n"))
        .otherwise(None).alias("pct_correct"))
    out = sort_runs(wide, "cws").select("block", "run", "cws", "n_right", "n", "pct_correct",
                                         "nil_precision", "nil_recall")
    cols = (Column("run", "Run", "text"), Column("cws", "CWS", "f3"),
            Column("n_right", "# correct", "int"), Column("pct_correct", "% correct", "pct1"),
            Column("nil_precision", "NIL precision", "f3"),
            Column("nil_recall", "NIL recall", "f3"))
    return Table("runs", f"Evaluation scores of the runs (judgment set {judgment_set}), "
                 "sorted by confidence-weighted score (Voorhees 2003, Table 1).", out, cols,
                 block="block", notes=(NIL_NOTE,))


def series_run_table(runs: pl.DataFrame, judgment_set: str,
                     what: str = "runs.parquet") -> Table:
    """TREC 2004-2007: run, average per-series score, factoid accuracy, list F,
    Other F (and the question-type aggregation when scored), sorted by series score."""
    wide = wide_scores(runs, judgment_set, what=what)
    require_measures(wide, ("series_score", "accuracy", "list_f", "other_f"), what)
    keys = ["series_score"] + (["type_score"] if "type_score" in wide.columns else []) \
        + ["accuracy", "list_f", "other_f"]
    out = sort_runs(wide, "series_score").select("block", "run", *keys)
    headers = {"series_score": "Per-series score", "type_score": "Per-type score",
               "accuracy": "Factoid accuracy", "list_f": "List F", "other_f": "Other F"}
    cols = (Column("run", "Run", "text"),) + tuple(Column(k, headers[k], "f3") for k in keys)
    return Table("runs", f"Run scores (judgment set {judgment_set}): average per-series "
                 "score and its components, sorted by per-series score (Voorhees 2005).",
                 out, cols, block="block")


def nonresponse_run_table(runs: pl.DataFrame, judgment_set: str, kind: str,
                          what: str = "runs.parquet") -> Table:
    """QA4MRE / CLEF QA: run, c@1, accuracy, correctly discarded, right /
    wrong / unanswered counts; for QA4MRE also reading tests passed and c@1 per
    topic.  Sorted by c@1, baselines in their own block."""
    wide = wide_scores(runs, judgment_set, what=what)
    require_measures(wide, ("c_at_1", "accuracy", "correctly_discarded", "n_right",
                             "n_wrong", "n_unanswered"), what)
    counts = ["n_right", "n_wrong", "n_unanswered"]
    extra: list[Column] = []
    if kind == "qa4mre":
        require_measures(wide, ("tests_passed",), what)
        counts.append("tests_passed")
        extra.append(Column("tests_passed", "Tests passed", "int"))
        if "tests" in wide.columns:
            counts.append("tests")
            extra.append(Column("tests", "Tests", "int"))
        per_topic = (runs.filter((pl.col("judgment_set") == judgment_set)
                                 & (pl.col("scope") == "topic")
                                 & (pl.col("measure") == "c_at_1"))
                     .with_columns(("c_at_1@" + pl.col("unit")).alias("key")))
        names = sorted(per_topic["key"].unique().to_list())
        if names:
            pivot = per_topic.pivot(on="key", index="run", values="value",
                                    aggregate_function="first")
            wide = wide.join(pivot.select("run", *names), on="run", how="left")
            extra += [Column(k, f"c@1 topic {k.split('@', 1)[1]}", "f2") for k in names]
    wide = undefined_discarded(cast_counts(wide, counts))
    keys = ["c_at_1", "accuracy", "correctly_discarded", "n_right", "n_wrong", "n_unanswered"]
    out = sort_runs(wide, "c_at_1").select("block", "run", *keys, *[c.key for c in extra])
    cols = (Column("run", "Run", "text"), Column("c_at_1", "c@1", "f2"),
            Column("accuracy", "Accuracy", "f2"),
            Column("correctly_discarded", "Correctly discarded", "f2"),
            Column("n_right", "Right", "int"), Column("n_wrong", "Wrong", "int"),
            Column("n_unanswered", "Unanswered", "int"), *extra)
    return Table("runs", f"Run scores (judgment set {judgment_set}), sorted by c@1; "
                 "baseline runs in a separate block.", out, cols, block="block",
                 notes=(DISCARDED_NOTE,))


def undefined_discarded(wide: pl.DataFrame) -> pl.DataFrame:
    """``correctly_discarded`` set to null where ``n_unanswered`` is 0: the table
    prints a dash (and the CSV an empty cell) where the Parquet holds the
    conventional 0 (docs/semantics.md)."""
    return wide.with_columns(pl.when(pl.col("n_unanswered") > 0)
                             .then(pl.col("correctly_discarded")).otherwise(None)
                             .alias("correctly_discarded"))


#: The PAN measures of the run table, in the registry's order (the PAN overviews'
#: columns: AUC, c@1, F0.5u, F1, Brier, overall).
PAN_TABLE_MEASURES = tuple(m for m in KIND_MEASURES["pan"]
                           if m in ("auc", "c_at_1", "f_05_u", "f1", "brier", "overall"))


def pan_run_table(runs: pl.DataFrame, judgment_set: str, what: str = "runs.parquet") -> Table:
    """PAN authorship verification: AUC, c@1, F0.5u, F1, Brier (complement) and
    the overall score of every run, then its decided-right / decided-wrong /
    unanswered counts; sorted by the overall score, as the PAN overviews rank
    the submissions (PAN 2020-2023: mean of the measures)."""
    wide = wide_scores(runs, judgment_set, what=what)
    require_measures(wide, (*PAN_TABLE_MEASURES, "n_right", "n_wrong", "n_unanswered"), what)
    wide = cast_counts(wide, ("n_right", "n_wrong", "n_unanswered"))
    out = sort_runs(wide, "overall").select("block", "run", *PAN_TABLE_MEASURES, "n_right",
                                            "n_wrong", "n_unanswered")
    cols = (Column("run", "Run", "text"),
            *[Column(m, measure_header(m), "f3") for m in PAN_TABLE_MEASURES],
            Column("n_right", "Right", "int"), Column("n_wrong", "Wrong", "int"),
            Column("n_unanswered", "Unanswered", "int"))
    return Table("runs", f"Run scores (judgment set {judgment_set}), sorted by the overall "
                 "score, the mean of the edition's measures (PAN overviews); Brier is "
                 "reported as its complement (higher is better).  Right and wrong count "
                 "the decided problems, unanswered the non-answers (value 0.5) and missing "
                 "problems.", out, cols, block="block")


def generic_run_table(runs: pl.DataFrame, judgment_set: str,
                      measures: Sequence[str] | None = None,
                      what: str = "runs.parquet") -> Table:
    """Score matrices and other kinds: every measure, sorted by the first one."""
    wide = wide_scores(runs, judgment_set, what=what)
    present = [c for c in wide.columns if c not in ("run", "block")]
    keys = [m for m in (measures or []) if m in present] or sorted(present)
    out = sort_runs(wide, keys[0]).select("block", "run", *keys)
    cols = (Column("run", "Run", "text"),) + tuple(Column(k, measure_header(k), "f3")
                                                   for k in keys)
    return Table("runs", f"Run scores (judgment set {judgment_set}), sorted by "
                 f"{label(keys[0])}.",
                 out, cols, block="block")


def run_table(runs: pl.DataFrame, kind: str, judgment_set: str,
              units: pl.DataFrame | None = None, what: str = "runs.parquet") -> Table:
    """The run table of a campaign kind."""
    if kind == "trec-factoid":
        return trec_factoid_run_table(runs, judgment_set, units, what=what)
    if kind == "trec-series":
        return series_run_table(runs, judgment_set, what=what)
    if kind == "pan":
        return pan_run_table(runs, judgment_set, what=what)
    if kind in ("qa4mre", "clef-qa"):
        return nonresponse_run_table(runs, judgment_set, kind, what=what)
    return generic_run_table(runs, judgment_set, what=what)


def c_at_1_table(runs: pl.DataFrame, judgment_set: str, what: str = "runs.parquet") -> Table:
    """Penas & Rodrigo 2011 Table 3: c@1 and accuracy with the right / wrong /
    unanswered counts they come from, sorted by c@1."""
    wide = wide_scores(runs, judgment_set, what=what)
    require_measures(wide, ("c_at_1", "accuracy", "n_right", "n_wrong", "n_unanswered"), what)
    wide = cast_counts(wide, ("n_right", "n_wrong", "n_unanswered")).with_columns(
        (pl.col("n_right") + pl.col("n_wrong") + pl.col("n_unanswered")).alias("n"))
    out = sort_runs(wide, "c_at_1").select("block", "run", "c_at_1", "accuracy", "n_right",
                                            "n_wrong", "n_unanswered", "n")
    cols = (Column("run", "System", "text"), Column("c_at_1", "c@1", "f2"),
            Column("accuracy", "Accuracy", "f2"), Column("n_right", "(i) right", "int"),
            Column("n_wrong", "(ii) wrong", "int"), Column("n_unanswered", "(iii) unanswered", "int"),
            Column("n", "n", "int"))
    return Table("c_at_1_vs_accuracy", "c@1 versus accuracy with (i) questions answered "
                 "correctly, (ii) incorrectly, (iii) unanswered; c@1 = (nR + nU nR/n)/n "
                 "(Penas & Rodrigo 2011, Table 3).", out, cols, block="block")


# --------------------------------------------------------------------------- breakdowns

#: trec-series: the measure of each question type's component (Voorhees 2005:
#: factoid accuracy, list F, Other F).
SERIES_TYPE_MEASURES = {"FACTOID": "accuracy", "LIST": "list_f", "OTHER": "other_f",
                        "DEFINITION": "other_f"}
#: The measure broken down per unit, per campaign kind.
BREAKDOWN_MEASURES = {"trec-factoid": "accuracy", "trec-series": "series_score",
                      "qa4mre": "c_at_1", "clef-qa": "c_at_1", "pan": "c_at_1"}
SCOPE_NAMES = {"qtype": "question type", "topic": "topic", "test": "reading test",
               "series": "series"}


def breakdown_measure(kind: str, scope: str, unit: str) -> str:
    if kind == "trec-series" and scope == "qtype":
        return SERIES_TYPE_MEASURES.get(str(unit).upper(), "accuracy")
    return BREAKDOWN_MEASURES.get(kind, "accuracy")


def breakdown_table(runs: pl.DataFrame, judgment_set: str, kind: str, scope: str,
                    what: str = "runs.parquet") -> Table:
    """Scores per unit of ``scope`` (question type, topic, reading test, series)
    across the participants' runs (baselines excluded): number of runs, mean,
    median and best score, and the best run (ties: first by name).  The measure
    is the kind's main per-unit measure (:func:`breakdown_measure`); for
    question series per question type, the type's component.  Units in
    natural order; zero rows when the scope was not scored."""
    from .. import is_baseline, natural_key

    df = runs.filter((pl.col("judgment_set") == judgment_set) & (pl.col("scope") == scope)
                     & pl.col("value").is_not_null())
    df = df.filter(~pl.col("run").map_elements(is_baseline, return_dtype=pl.Boolean)) \
        if df.height else df
    rows = []
    for unit in sorted(df["unit"].unique().to_list(), key=natural_key):
        m = breakdown_measure(kind, scope, unit)
        sel = df.filter((pl.col("unit") == unit) & (pl.col("measure") == m))
        if sel.is_empty():
            continue
        best = sel.sort(["value", "run"], descending=[True, False]).row(0, named=True)
        rows.append({"unit": str(unit), "measure": label(m), "runs": sel.height,
                     "mean": sel["value"].mean(), "median": sel["value"].median(),
                     "best": best["value"], "best_run": best["run"]})
    out = pl.DataFrame(rows, schema={"unit": pl.String, "measure": pl.String,
                                     "runs": pl.Int64, "mean": pl.Float64,
                                     "median": pl.Float64, "best": pl.Float64,
                                     "best_run": pl.String})
    name = SCOPE_NAMES.get(scope, scope)
    measures = out["measure"].unique(maintain_order=True).to_list()
    cols = [Column("unit", cap(name), "text")]
    if len(measures) > 1:
        cols.append(Column("measure", "Measure", "text"))
    cols += [Column("runs", "Runs", "int"), Column("mean", "Mean", "f3"),
             Column("median", "Median", "f3"), Column("best", "Best", "f3"),
             Column("best_run", "Best run", "text")]
    what_m = measures[0] if len(measures) == 1 else "the score of each type's component"
    return Table(f"by_{scope}", f"{cap(what_m)} per {name} across the participants' runs (judgment set {judgment_set}; "
                 "baselines excluded): mean, median and best score, and the best run.",
                 out, tuple(cols))


# --------------------------------------------------------------------------- editions

def editions_table(editions: Sequence[tuple[str, pl.DataFrame, str]],
                   measure: str = "c_at_1") -> Table:
    """QA4MRE overview Table 1: per edition (label, runs frame, judgment set):
    number of runs, average and best ``measure`` over the participants' runs
    (baselines excluded), the best run, and the average share of unanswered
    questions (n_unanswered / (n_right + n_wrong + n_unanswered))."""
    rows = []
    for edition, runs, js in editions:
        wide = wide_scores(runs, js, what=f"{edition}: runs.parquet")
        require_measures(wide, (measure, "n_right", "n_wrong", "n_unanswered"),
                         f"{edition}: runs.parquet")
        part = wide.filter(pl.col("block") == BLOCK_RUNS)
        if part.is_empty():
            raise InputError(f"{edition}: runs.parquet", None, "no participant runs "
                             "(only baselines)", "check the campaign's runs")
        n = pl.col("n_right") + pl.col("n_wrong") + pl.col("n_unanswered")
        part = part.with_columns(pl.when(n > 0).then(100.0 * pl.col("n_unanswered") / n)
                                 .otherwise(None).alias("pct_u"))
        best = part.sort([measure, "run"], descending=[True, False], nulls_last=True).row(
            0, named=True)
        rows.append({"edition": edition, "runs": part.height,
                     "average": part[measure].mean(), "best": best[measure],
                     "best_run": best["run"], "pct_unanswered": part["pct_u"].mean()})
    out = pl.DataFrame(rows, schema={"edition": pl.String, "runs": pl.Int64,
                                     "average": pl.Float64, "best": pl.Float64,
                                     "best_run": pl.String, "pct_unanswered": pl.Float64})
    name = label(measure)
    cols = (Column("edition", "Edition", "text"), Column("runs", "Runs", "int"),
            Column("average", f"Average {name}", "f2"), Column("best", f"Best {name}", "f2"),
            Column("best_run", "Best run", "text"),
            Column("pct_unanswered", "Average % unanswered", "pct1"))
    return Table("editions", f"Overview of results per edition: average and best {name} "
                 "over the participants' runs (baselines excluded) and the average "
                 "percentage of unanswered questions (QA4MRE overview, Table 1).", out, cols)


__all__ = ["run_table", "trec_factoid_run_table", "series_run_table", "nonresponse_run_table",
           "pan_run_table", "generic_run_table", "c_at_1_table", "breakdown_table",
           "editions_table", "undefined_discarded", "PAN_TABLE_MEASURES"]
