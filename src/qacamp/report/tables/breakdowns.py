"""Per-unit breakdowns of the participants' runs (question type, topic,
reading test, series) and the editions overview (QA4MRE overview Table 1)."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from ...errors import InputError
from ...kinds import KINDS
from ...measures import label
from ...names import is_baseline, natural_key
from .base import BLOCK_RUNS, Column, Table, cap, require_measures, score_format, wide_scores

# --------------------------------------------------------------------------- breakdowns

#: trec-series: the measure of each question type's component (Voorhees 2005:
#: factoid accuracy, list F, Other F).
SERIES_TYPE_MEASURES = {"FACTOID": "accuracy", "LIST": "list_f", "OTHER": "other_f",
                        "DEFINITION": "other_f"}
SCOPE_NAMES = {"qtype": "question type", "topic": "topic", "test": "reading test",
               "series": "series"}


def breakdown_measure(kind: str, scope: str, unit: str) -> str:
    spec = KINDS[kind] if kind in KINDS else None
    if spec is not None and spec.series and scope == "qtype":
        return SERIES_TYPE_MEASURES.get(str(unit).upper(), "accuracy")
    return spec.breakdown_measure if spec is not None else "accuracy"


def breakdown_table(runs: pl.DataFrame, judgment_set: str, kind: str, scope: str,
                    what: str = "runs.parquet",
                    topic_names: dict[str, str] | None = None) -> Table:
    """Scores per unit of ``scope`` (question type, topic, reading test, series)
    across the participants' runs (baselines excluded): number of runs, mean,
    median and best score, and the best run (ties: first by name).  The measure
    is the kind's main per-unit measure (:func:`breakdown_measure`); for
    question series per question type, the type's component.  Units in
    natural order (3.9 before 3.10); topics with the gold's name when it has
    one; zero rows when the scope was not scored."""
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
    names = {u: n for u, n in (topic_names or {}).items()} if scope == "topic" else {}
    if names and out.height:
        out = out.with_columns(pl.col("unit").replace_strict(names, default=None)
                               .alias("name")).select("unit", "name", *[
                                   c for c in out.columns if c != "unit"])
        cols.append(Column("name", "Name", "text"))
    if len(measures) > 1:
        cols.append(Column("measure", "Measure", "text"))
    fmt = score_format(kind)
    cols += [Column("runs", "Runs", "int"), Column("mean", "Mean", fmt),
             Column("median", "Median", fmt), Column("best", "Best", fmt),
             Column("best_run", "Best run", "text")]
    what_m = measures[0] if len(measures) == 1 else "the score of each type's component"
    return Table(f"by_{scope}", f"{cap(what_m)} per {name} across the participants' runs (judgment set {judgment_set}; "
                 "baselines excluded): mean, median and best score, and the best run.",
                 out, tuple(cols), title=f"{cap(what_m) if len(measures) == 1 else 'Scores'} "
                 f"per {name}")


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
                 "percentage of unanswered questions (QA4MRE overview, Table 1).", out, cols,
                 title="Results per edition")


__all__ = ["breakdown_table", "breakdown_measure", "editions_table", "SERIES_TYPE_MEASURES",
           "SCOPE_NAMES"]
