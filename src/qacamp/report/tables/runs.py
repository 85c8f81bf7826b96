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
from dataclasses import dataclass

import polars as pl

from ...kinds import KINDS
from ...measures import label
from .base import (
    BLOCK_RUNS,
    Column,
    Table,
    cap,
    cast_counts,
    measure_header,
    require_measures,
    score_decimals,
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

# --------------------------------------------------------------------------- run tables

#: the most columns a run table has by default: run, the headline, the
#: measures of the campaign's paper and the letters of the runs that cannot be
#: told apart (the swap method and the significance test); PAN 2021-2023's
#: overview tables have six measures (the overall score and the five it averages)
MAX_DEFAULT_COLUMNS = 9


@dataclass(frozen=True)
class RunTableSpec:
    """What a run table shows: the ``headline`` measure (the first score
    column; the rows are sorted by it), the other measure ``columns`` in their
    order and the ``decimals`` of the scores (counts print as integers).  A
    measure that was not scored is an error, except those of ``optional``: the
    kind's default columns of a question type the campaign may skip (TREC
    2003's list F without list runs, :func:`skippable_measures`), left out."""

    headline: str
    columns: tuple[str, ...] = ()
    decimals: int = 3
    optional: tuple[str, ...] = ()

    @property
    def measures(self) -> tuple[str, ...]:
        return (self.headline, *[c for c in self.columns if c != self.headline])


#: how each kind's run table (its record's ``run_table``) names its columns
#: where it differs from the measure's label: the papers' own headers
HEADERS = {
    "trec_factoid": {"cws": "CWS", "n_right": "# correct"},
    "final_score": {"type_score": "Final score", "accuracy": "Factoid accuracy",
                    "list_f": "List F", "other_f": "Definition F", "cws": "CWS"},
    "series": {"series_score": "Per-series score", "type_score": "Per-type score",
               "accuracy": "Factoid accuracy", "list_f": "List F", "other_f": "Other F"},
    "nonresponse": {"n_right": "Right", "n_wrong": "Wrong", "n_unanswered": "Unanswered",
                    "tests_passed": "Tests passed", "tests": "Tests"},
    "pan": {"n_right": "Right", "n_wrong": "Wrong", "n_unanswered": "Unanswered"},
}
HEADERS["pan_product"] = HEADERS["pan"]  # (PAN 2014-2015: overall = AUC x c@1)


def column_header(style: str, measure: str) -> str:
    return HEADERS.get(style, {}).get(measure) or measure_header(measure)


def column_format(measure: str, decimals: int) -> str:
    """Counts (the registry's integer measures) as integers, scores with ``decimals``."""
    from ...measures import REGISTRY

    m = REGISTRY.get(measure)
    return "int" if m is not None and m.integer else f"f{decimals}"


def run_table_caption(style: str, judgment_set: str, kind: str, spec: RunTableSpec,
                      blocks: str, n_units: int | None, unit: str) -> str:
    """The caption of a kind's run table: what the scores are and the source of
    its columns."""
    from ..figures.base import plural

    by = label(spec.headline)
    shown = set(spec.measures)
    if style == "trec_factoid":
        return (f"Evaluation scores of the runs (judgment set {judgment_set}), sorted by "
                f"{'confidence-weighted score' if spec.headline == 'cws' else by}{blocks} "
                "(Voorhees 2003, Table 1).")
    if style == "final_score":
        return (f"Run scores (judgment set {judgment_set}): the final score, 0.5 factoid "
                "accuracy + 0.25 list F + 0.25 definition F"
                + (", and its components" if shown & {"accuracy", "list_f", "other_f"} else "")
                + f", sorted by {'the final score' if spec.headline == 'type_score' else by}"
                f"{blocks} (TREC 2003; Voorhees 2005).")
    if style == "series":
        return (f"Run scores (judgment set {judgment_set}): average per-series score"
                + (" and its components" if shown & {"accuracy", "list_f", "other_f"} else "")
                + f", sorted by {'per-series score' if spec.headline == 'series_score' else by}"
                f"{blocks} (Voorhees 2005).")
    if style == "nonresponse":
        counts = shown & {"n_right", "n_wrong", "n_unanswered"}
        return (f"Run scores (judgment set {judgment_set}): c@1 and accuracy"
                + (" with the right, wrong and unanswered questions they are computed from"
                   if len(counts) == 3 else "")
                + f" (Penas & Rodrigo 2011, Table 3), sorted by {by}{blocks}.")
    if style in ("pan", "pan_product"):
        overall = ("the product of AUC and c@1 (PAN 2014-2015 overviews)"
                   if style == "pan_product" else
                   "the mean of the edition's measures (PAN overviews)")
        brier = ("; Brier is reported as its complement (higher is better)"
                 if "brier" in shown else "")
        counts = ("  Right and wrong count the decided problems, unanswered the non-answers "
                  "(value 0.5) and missing problems." if shown & {"n_right", "n_wrong",
                                                                  "n_unanswered"} else "")
        return (f"Run scores (judgment set {judgment_set}), sorted by "
                f"{'the overall score' if spec.headline == 'overall' else by}{blocks}, the "
                f"overall score being {overall}{brier}.{counts}")
    matrix = kind in KINDS and KINDS[kind].family == "matrix"
    over = (f": the mean {by} over the {n_units:,} {plural(unit, n_units)} of the score "
            "matrix" if matrix and n_units else "")
    return f"Run scores{set_phrase(judgment_set, kind)}{over}, sorted by {by}{blocks}."


def run_table(runs: pl.DataFrame, kind: str, judgment_set: str,
              spec: RunTableSpec | None = None, what: str = "runs.parquet",
              n_units: int | None = None, unit: str = "unit", table: str | None = None) -> Table:
    """The run table of a campaign: the measures of ``spec`` (default: the
    kind's headline and columns, :func:`default_spec`) in its order, sorted by
    its headline, baselines in their own block; captions, headers and notes
    of the kind's table (``table``: its record's ``run_table``, or the
    edition's: TREC 2003's ``final_score``): Voorhees 2003 Table 1 (TREC
    2002), Voorhees 2005 (question series), Penas & Rodrigo 2011 Table 3 (c@1
    and accuracy with their counts, and the formula in a note), the PAN
    overviews.  Breakdowns (per topic, reading test, question type) are tables
    of their own (:mod:`.breakdowns`)."""
    style = table or (KINDS[kind].run_table if kind in KINDS else "generic")
    spec = spec or default_spec(kind)
    wide = wide_scores(runs, judgment_set, what=what)
    keys = [m for m in spec.measures if m not in spec.optional or m in wide.columns]
    require_measures(wide, keys, what)
    fmts = {m: column_format(m, spec.decimals) for m in keys}
    ints = [m for m in keys if fmts[m] == "int"]
    notes: list[str] = []
    if "correctly_discarded" in keys:
        counts = [c for c in ("n_unanswered", "n_unanswered_empty") if c in wide.columns]
        notes += discarded_notes(cast_counts(wide, counts))
        if "n_unanswered" in wide.columns:
            wide = undefined_discarded(cast_counts(wide, ["n_unanswered"]))
    if style == "nonresponse" and "c_at_1" in keys:
        notes.insert(0, C_AT_1_NOTE)
    if {"nil_precision", "nil_recall"} & set(keys):
        notes.append(NIL_NOTE)
    out = sort_runs(cast_counts(wide, ints), spec.headline).select("block", "run", *keys)
    cols = (Column("run", "Run", "text"),
            *[Column(m, column_header(style, m), fmts[m]) for m in keys])
    caption = run_table_caption(style, judgment_set, kind, spec, blocks_phrase(out), n_units,
                                unit)
    return Table("runs", caption, out, cols, block="block", notes=tuple(notes),
                 title="Run scores")


def undefined_discarded(wide: pl.DataFrame) -> pl.DataFrame:
    """``correctly_discarded`` set to null where ``n_unanswered`` is 0: the table
    prints a dash (and the CSV an empty cell) where the Parquet holds the
    conventional 0 (docs/semantics.md)."""
    return wide.with_columns(pl.when(pl.col("n_unanswered") > 0)
                             .then(pl.col("correctly_discarded")).otherwise(None)
                             .alias("correctly_discarded"))


#: the measure of each question type a TREC campaign may skip (config ``skip``)
SKIPPED_MEASURES = {"factoid": "accuracy", "list": "list_f", "definition": "other_f",
                    "other": "other_f"}


def skippable_measures(kind: str) -> tuple[str, ...]:
    """The measures of the question types the kind lets a campaign skip."""
    spec = KINDS[kind] if kind in KINDS else None
    return tuple(SKIPPED_MEASURES[p] for p in (spec.skippable if spec else ())
                 if p in SKIPPED_MEASURES)


def default_spec(kind: str, headline: str | None = None,
                 columns: Sequence[str] | None = None) -> RunTableSpec:
    """The kind's run table (its record's headline and ``run_columns``, or an
    edition's), with the kind's decimals."""
    spec = KINDS[kind] if kind in KINDS else None
    head = headline or (spec.headline if spec is not None else None) or "score"
    cols = tuple(columns if columns is not None else (spec.run_columns if spec else ()))
    return RunTableSpec(head, cols, score_decimals(kind), skippable_measures(kind))


def runs_by_unit_table(runs: pl.DataFrame, judgment_set: str, kind: str, scope: str,
                       measure: str, what: str = "runs.parquet",
                       topic_names: dict[str, str] | None = None,
                       decimals: int | None = None) -> Table:
    """Every run's ``measure`` per unit of ``scope`` (QA4MRE: c@1 per topic),
    one column per unit in natural order headed by the gold's topic name when
    it has one, sorted as the run table (by the run's overall ``measure``);
    zero rows when the scope was not scored."""
    from ...names import natural_key

    fmt = f"f{score_decimals(kind) if decimals is None else decimals}"
    per = runs.filter((pl.col("judgment_set") == judgment_set) & (pl.col("scope") == scope)
                      & (pl.col("measure") == measure))
    units = sorted(per["unit"].unique().to_list(), key=natural_key)
    keys = [f"{scope}_{u}" for u in units]
    wide = wide_scores(runs, judgment_set, what=what)
    if units and measure in wide.columns:
        pivot = per.with_columns((pl.lit(f"{scope}_") + pl.col("unit")).alias("key")).pivot(
            on="key", index="run", values="value", aggregate_function="first")
        out = sort_runs(wide.select("run", "block", measure).join(
            pivot.select("run", *keys), on="run", how="left"), measure).select(
            "block", "run", *keys)
    else:
        units, keys = [], []
        out = wide.head(0).select("block", "run")
    name = SCOPE_TITLES.get(scope, scope)
    cols = (Column("run", "Run", "text"),
            *[Column(k, topic_header("", u, topic_names).strip() if scope == "topic"
                     else f"{name} {u}", fmt) for k, u in zip(keys, units, strict=True)])
    return Table(f"runs_by_{scope}", f"{label(measure)} of every run per {name} (judgment set "
                 f"{judgment_set}), runs in the order of the run table"
                 f"{blocks_phrase(out)}.", out, cols, block="block",
                 title=f"{cap(label(measure))} per {name}")


SCOPE_TITLES = {"topic": "topic", "test": "reading test", "qtype": "question type"}


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
                 "(Penas & Rodrigo 2011, Table 3).", out, cols, block="block",
                 title="c@1 versus accuracy")


__all__ = ["run_table", "RunTableSpec", "default_spec", "skippable_measures", "runs_by_unit_table", "c_at_1_table",
           "undefined_discarded", "column_header", "MAX_DEFAULT_COLUMNS"]
