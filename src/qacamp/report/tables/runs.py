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
from dataclasses import replace

import polars as pl

from ...kinds import KINDS
from ...measures import label
from .base import (
    BLOCK_RUNS,
    Column,
    Table,
    cast_counts,
    measure_header,
    questions_per_run,
    require_measures,
    score_format,
    sort_runs,
    wide_scores,
)

#: Footnotes stating how an empty denominator is printed (docs/semantics.md,
#: "Empty denominators"): one rule for the tables, the Parquet keeps 0.
NIL_NOTE = ("NIL precision is 0 by convention for a run that returned no NIL, and NIL "
            "recall for a campaign without NIL questions (docs/semantics.md); a dash: "
            "not scored.")
DISCARDED_NOTE = ("Correctly discarded: the share of a run's unanswered questions whose "
                  "candidate answer was wrong or absent, (nUW + nUE) / nU (QA4MRE); a dash for "
                  "a run that left no question unanswered (nothing to discard; stored as 0 by "
                  "convention, docs/semantics.md).")
#: c@1 and accuracy side by side with the counts they come from (the c@1
#: paper's Table 3, folded into the run table instead of repeating it)
C_AT_1_NOTE = ("c@1 = (nR + nU nR / n) / n and accuracy = nR / n, with nR right, nU "
               "unanswered and n = right + wrong + unanswered questions: a run that abstains "
               "instead of answering wrongly gains c@1 but not accuracy (Penas & Rodrigo "
               "2011, Table 3).")


def set_phrase(judgment_set: str, kind: str | None = None) -> str:
    """`` (judgment set X)`` for a caption; nothing for a score matrix, whose
    single "judgment set" is only the name of its one column of scores."""
    return "" if kind in KINDS and KINDS[kind].family == "matrix" else \
        f" (judgment set {judgment_set})"


def blocks_phrase(frame: pl.DataFrame) -> str:
    """What the caption says about baselines: only when the table has some."""
    has = frame.height and (frame["block"] != BLOCK_RUNS).any()
    return "; baseline runs in a separate block" if has else ""


def discarded_notes(wide: pl.DataFrame, limit: int = 8) -> tuple[str, ...]:
    """The correctly-discarded note, naming the runs that abstained only
    without a candidate answer: their 1.00 says nothing about their judgment
    (every abstention without a candidate counts as correctly discarded)."""
    if not {"n_unanswered", "n_unanswered_empty"} <= set(wide.columns):
        return (DISCARDED_NOTE,)
    blind = wide.filter((pl.col("n_unanswered") > 0)
                        & (pl.col("n_unanswered_empty") == pl.col("n_unanswered")))
    if not blind.height:
        return (DISCARDED_NOTE,)
    names = sorted(blind["run"].to_list())
    who = ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit
                                      else "")
    return (DISCARDED_NOTE, f"Correctly discarded is 1.00 by construction for {who}: "
            f"{'this run abstained' if len(names) == 1 else 'these runs abstained'} without "
            "giving a candidate answer, and an abstention without a candidate counts as "
            "correctly discarded; it does not show that the run judged its answers well.")


def topic_header(measure_label: str, topic: str, names: dict[str, str] | None) -> str:
    """``c@1 topic 1`` or, with the gold's topic name, ``c@1 AIDS``."""
    name = (names or {}).get(str(topic))
    return f"{measure_label} {name}" if name else f"{measure_label} topic {topic}"


def add_measure_columns(table: Table, runs: pl.DataFrame, judgment_set: str,
                        measures: Sequence[str] | None, fmt: str = "f3",
                        what: str = "runs.parquet") -> Table:
    """Every measure with a reliability analysis in the run table: those of
    ``measures`` the kind's table does not show yet become columns (after the
    scores, before the counts), with the table's number format."""
    have = {c.key for c in table.columns}
    extra = [m for m in (measures or []) if m not in have]
    if not extra:
        return table
    wide = wide_scores(runs, judgment_set, what=what)
    require_measures(wide, extra, what)
    frame = table.frame.join(wide.select("run", *extra), on="run", how="left")
    cols = list(table.columns)
    at = next((i for i, c in enumerate(cols) if c.fmt == "int"), len(cols))
    cols[at:at] = [Column(m, measure_header(m), fmt) for m in extra]
    return replace(table, frame=frame.select(*table.frame.columns, *extra), columns=tuple(cols))

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
                 f"sorted by confidence-weighted score{blocks_phrase(out)} (Voorhees 2003, "
                 "Table 1).", out, cols, block="block", notes=(NIL_NOTE,))


def final_score_run_table(runs: pl.DataFrame, judgment_set: str,
                          what: str = "runs.parquet") -> Table:
    """TREC 2003: run, the final score and its components (factoid accuracy,
    list F, definition F), then CWS; sorted by the final score, "FinalScore =
    .5FactoidAccuracy + .25ListAveF + .25DefinitionAveF" (Voorhees 2005 on
    the TREC 2003 evaluation; measure ``type_score``).  A component the
    campaign skipped is left out."""
    wide = wide_scores(runs, judgment_set, what=what)
    require_measures(wide, ("type_score", "accuracy", "cws"), what)
    keys = ["type_score", "accuracy"] + [k for k in ("list_f", "other_f") if k in wide.columns] \
        + ["cws"]
    out = sort_runs(wide, "type_score").select("block", "run", *keys)
    headers = {"type_score": "Final score", "accuracy": "Factoid accuracy", "list_f": "List F",
               "other_f": "Definition F", "cws": "CWS"}
    cols = (Column("run", "Run", "text"),) + tuple(Column(k, headers[k], "f3") for k in keys)
    return Table("runs", f"Run scores (judgment set {judgment_set}): the final score, 0.5 "
                 "factoid accuracy + 0.25 list F + 0.25 definition F, and its components, "
                 f"sorted by the final score{blocks_phrase(out)} (TREC 2003; Voorhees 2005).",
                 out, cols, block="block")


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
                 f"score and its components, sorted by per-series score{blocks_phrase(out)} "
                 "(Voorhees 2005).", out, cols, block="block")


def nonresponse_run_table(runs: pl.DataFrame, judgment_set: str, kind: str,
                          what: str = "runs.parquet",
                          topic_names: dict[str, str] | None = None) -> Table:
    """QA4MRE / CLEF QA: run, c@1, accuracy, correctly discarded, right /
    wrong / unanswered counts (the c@1 paper's Table 3 columns, with its
    formula in a note); for QA4MRE also reading tests passed and c@1 per
    topic (in natural order, headed by the gold's topic name when it has one).
    Sorted by c@1, baselines in their own block.  The correctly-discarded note
    names the runs whose 1.00 comes from abstaining without a candidate."""
    from ...names import natural_key

    wide = wide_scores(runs, judgment_set, what=what)
    require_measures(wide, ("c_at_1", "accuracy", "correctly_discarded", "n_right",
                             "n_wrong", "n_unanswered"), what)
    counts = ["n_right", "n_wrong", "n_unanswered"]
    fmt = score_format(kind)
    extra: list[Column] = []
    if KINDS[kind].reading_tests:
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
        names = sorted(per_topic["key"].unique().to_list(),
                       key=lambda k: natural_key(k.split("@", 1)[1]))
        if names:
            pivot = per_topic.pivot(on="key", index="run", values="value",
                                    aggregate_function="first")
            wide = wide.join(pivot.select("run", *names), on="run", how="left")
            extra += [Column(k, topic_header("c@1", k.split("@", 1)[1], topic_names), fmt)
                      for k in names]
    notes = discarded_notes(cast_counts(wide, [*counts, "n_unanswered_empty"]))
    wide = undefined_discarded(cast_counts(wide, counts))
    keys = ["c_at_1", "accuracy", "correctly_discarded", "n_right", "n_wrong", "n_unanswered"]
    out = sort_runs(wide, "c_at_1").select("block", "run", *keys, *[c.key for c in extra])
    cols = (Column("run", "Run", "text"), Column("c_at_1", "c@1", fmt),
            Column("accuracy", "Accuracy", fmt),
            Column("correctly_discarded", "Correctly discarded", fmt),
            Column("n_right", "Right", "int"), Column("n_wrong", "Wrong", "int"),
            Column("n_unanswered", "Unanswered", "int"), *extra)
    return Table("runs", f"Run scores (judgment set {judgment_set}): c@1 and accuracy with "
                 "the right, wrong and unanswered questions they are computed from (Penas & "
                 f"Rodrigo 2011, Table 3), sorted by c@1{blocks_phrase(out)}.", out, cols,
                 block="block", notes=(C_AT_1_NOTE, *notes))


def undefined_discarded(wide: pl.DataFrame) -> pl.DataFrame:
    """``correctly_discarded`` set to null where ``n_unanswered`` is 0: the table
    prints a dash (and the CSV an empty cell) where the Parquet holds the
    conventional 0 (docs/semantics.md)."""
    return wide.with_columns(pl.when(pl.col("n_unanswered") > 0)
                             .then(pl.col("correctly_discarded")).otherwise(None)
                             .alias("correctly_discarded"))


#: The PAN measures of the run table (the PAN overviews' columns: AUC, c@1,
#: F0.5u, F1, Brier, overall).
PAN_TABLE_MEASURES = ("auc", "c_at_1", "f_05_u", "f1", "brier", "overall")


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
                 f"score{blocks_phrase(out)}, the mean of the edition's measures (PAN "
                 "overviews); Brier is "
                 "reported as its complement (higher is better).  Right and wrong count "
                 "the decided problems, unanswered the non-answers (value 0.5) and missing "
                 "problems.", out, cols, block="block")


def generic_run_table(runs: pl.DataFrame, judgment_set: str,
                      measures: Sequence[str] | None = None,
                      what: str = "runs.parquet", kind: str | None = None,
                      n_units: int | None = None, unit: str = "unit") -> Table:
    """Score matrices and other kinds: every measure, sorted by the first one.
    A score matrix's run score is the mean over its units (``n_units``
    ``unit``s, e.g. 150 topics), said in the caption; its measure keeps the
    organizer's name (``ap``)."""
    from ..figures.base import plural

    wide = wide_scores(runs, judgment_set, what=what)
    present = [c for c in wide.columns if c not in ("run", "block")]
    keys = [m for m in (measures or []) if m in present] or sorted(present)
    out = sort_runs(wide, keys[0]).select("block", "run", *keys)
    cols = (Column("run", "Run", "text"),) + tuple(Column(k, measure_header(k), "f3")
                                                   for k in keys)
    matrix = kind in KINDS and KINDS[kind].family == "matrix"
    over = (f": the mean {label(keys[0])} over the {n_units:,} {plural(unit, n_units)} of the "
            "score matrix" if matrix and n_units else "")
    return Table("runs", f"Run scores{set_phrase(judgment_set, kind)}{over}, sorted by "
                 f"{label(keys[0])}{blocks_phrase(out)}.", out, cols, block="block")


def run_table(runs: pl.DataFrame, kind: str, judgment_set: str,
              units: pl.DataFrame | None = None, what: str = "runs.parquet",
              measures: Sequence[str] | None = None,
              topic_names: dict[str, str] | None = None,
              n_units: int | None = None, unit: str = "unit", table: str | None = None) -> Table:
    """The run table of a campaign: the builder ``table`` names (default: its
    kind record's ``run_table``; a campaign's edition may name its own, TREC
    2003's ``final_score``); every measure of ``measures`` (those with a
    reliability analysis) is a column (:func:`add_measure_columns`)."""
    builders = {
        "trec_factoid": lambda: trec_factoid_run_table(runs, judgment_set, units, what=what),
        "final_score": lambda: final_score_run_table(runs, judgment_set, what=what),
        "series": lambda: series_run_table(runs, judgment_set, what=what),
        "pan": lambda: pan_run_table(runs, judgment_set, what=what),
        "nonresponse": lambda: nonresponse_run_table(runs, judgment_set, kind, what=what,
                                                     topic_names=topic_names),
    }
    name = table or (KINDS[kind].run_table if kind in KINDS else "generic")
    if name not in builders:
        return generic_run_table(runs, judgment_set, measures, what=what, kind=kind,
                                 n_units=n_units, unit=unit)
    return add_measure_columns(builders[name](), runs, judgment_set, measures,
                               score_format(kind), what)


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


__all__ = ["run_table", "trec_factoid_run_table", "final_score_run_table", "series_run_table", "nonresponse_run_table",
           "pan_run_table", "generic_run_table", "c_at_1_table", "undefined_discarded",
           "PAN_TABLE_MEASURES"]
