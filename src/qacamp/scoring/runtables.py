"""The run tables: what the scoring reads of the tables that grow with the runs.

``responses``, ``judgments`` and ``nugget_matches`` come either as frames in
memory (``qacamp eval``, the API) or as a
:class:`~qacamp.io.rowgroups.RowGroups` source (``qacamp score`` reading the
ingest's Parquet), whose rows are decoded a row group at a time.  The scoring
reads them only through these three functions, so both give the same frames:

- :func:`of_runs`: a batch of runs' rows (the table filtered on ``run``, in
  table order), read in the caller's thread and made a frame in the batch's;
- :func:`each`: a function of some columns, chunk by chunk;
- :func:`survey`: what the scoring needs to know of the tables as a whole
  (runs, judgment sets, judged questions, ranked answers, NIL answers judged
  right), found in one scan of each table.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import polars as pl

T = TypeVar("T")

JS = "judgment_set"

#: Tables with one row per run's response (a batch reads its runs' rows).
RUN_TABLES = ("responses", "judgments", "nugget_matches")


def of_runs(table, names: list[str]) -> Callable[[], pl.DataFrame]:
    """The rows of the runs ``names``, as a function that any thread may call:
    a row-group source reads them here, in the caller's thread (it is read by
    one thread, in order), and the function decodes their strings."""
    if isinstance(table, pl.DataFrame):
        return functools.partial(table.filter, pl.col("run").is_in(names))
    return functools.partial(table.plain, table.coded_rows("run", names))


def each(table, columns: list[str], func: Callable[[pl.DataFrame], T],
         threads: int | None = None) -> list[T]:
    """``func`` of ``columns`` of the table chunk by chunk, in order (one frame
    for a table in memory; a row-group source decodes its groups and runs
    ``func`` in ``threads`` threads); the string columns of a row-group source
    come as Categorical (codes, not decoded strings): ``func`` casts what it
    keeps with :func:`strings`."""
    if isinstance(table, pl.DataFrame):
        return [func(table.select(columns))]
    return table.each(columns, func, threads)


def strings(df: pl.DataFrame) -> pl.DataFrame:
    """``df`` with its Categorical columns as String."""
    return df.with_columns([pl.col(c).cast(pl.String) for c, d in df.schema.items()
                            if isinstance(d, pl.Categorical)])


def like(df: pl.DataFrame, other: pl.DataFrame) -> pl.DataFrame:
    """``df``'s columns cast to the dtypes of ``other``'s of the same name."""
    return df.with_columns([pl.col(c).cast(other.schema[c]) for c in df.columns
                            if c in other.columns and other.schema[c] != df.schema[c]])


@dataclass(frozen=True)
class Survey:
    """The run tables as a whole (:func:`survey`)."""

    runs: set  # runs with a response
    sets: set  # judgment sets named by a judgment or a nugget match
    judged: pl.DataFrame  # (judgment_set, qid) with a judgment
    ranked: pl.DataFrame  # (qid): the questions with a response of item number 2 or more
    nil_right: pl.DataFrame  # (judgment_set, run, qid, item) of answered NIL responses judged R


def survey(t: dict, threads: int | None = None) -> Survey:
    """One scan of responses (run, qid, item, answered, nil), then one of
    judgments (judgment_set, run, qid, item, judgment) and of nugget matches'
    judgment sets, their chunks in ``threads`` threads (:func:`each`); every
    part kept is small (per question, or NIL answers judged right; the NIL
    answers found in the first scan are kept only until the second)."""
    def of_responses(c: pl.DataFrame):
        return (c["run"].drop_nulls().unique().cast(pl.String).to_list(),
                strings(c.filter(pl.col("item") > 1).select("qid").unique()),
                # (codes as scanned: joined with the judgments' codes)
                c.filter(pl.col("answered") & pl.col("nil").fill_null(False))
                .select("run", "qid", "item"))

    responses = each(t["responses"], ["run", "qid", "item", "answered", "nil"], of_responses,
                     threads)
    nil_rows = pl.concat([nil for _, _, nil in responses])
    keys = ["run", "qid", "item"]

    def of_judgments(c: pl.DataFrame):
        r = c.filter(pl.col("judgment") == "R").select(JS, *keys)
        # the NIL answers of this chunk's runs only (a join against all of them
        # for every chunk would grow with the square of the table)
        here = like(nil_rows, r).filter(pl.col("run").is_in(r["run"].unique().implode()))
        return (c[JS].drop_nulls().unique().cast(pl.String).to_list(),
                strings(c.filter(pl.col("judgment").is_not_null()).select(JS, "qid").unique()),
                strings(r.join(here, on=keys, how="semi")))

    judgments = each(t["judgments"], [JS, *keys, "judgment"], of_judgments, threads)
    matched = each(t["nugget_matches"], [JS],
                   lambda c: c[JS].drop_nulls().unique().cast(pl.String).to_list(), threads)
    return Survey(runs={run for names, _, _ in responses for run in names},
                  sets={s for names, _, _ in judgments for s in names}
                  | {s for names in matched for s in names},
                  judged=pl.concat([j for _, j, _ in judgments]).unique(),
                  ranked=pl.concat([m for _, m, _ in responses]).unique(),
                  nil_right=pl.concat([r for _, _, r in judgments]))


__all__ = ["RUN_TABLES", "Survey", "each", "like", "of_runs", "strings", "survey"]
