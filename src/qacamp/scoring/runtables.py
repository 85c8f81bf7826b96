"""The run tables: what the scoring reads of the tables that grow with the runs.

``responses``, ``judgments`` and ``nugget_matches`` come either as frames in
memory (``qacamp eval``, the API) or as a
:class:`~qacamp.io.rowgroups.RowGroups` source (``qacamp score`` reading the
ingest's Parquet), whose rows are decoded a row group at a time.  The scoring
reads them only through these three functions, so both give the same frames:

- :func:`of_runs`: a batch of runs' rows (the table filtered on ``run``, in
  table order);
- :func:`scan`: some columns, chunk by chunk;
- :func:`survey`: what the scoring needs to know of the tables as a whole
  (runs, judgment sets, judged questions, ranked answers, NIL answers judged
  right), found in one scan of each table.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import polars as pl

JS = "judgment_set"

#: Tables with one row per run's response (a batch reads its runs' rows).
RUN_TABLES = ("responses", "judgments", "nugget_matches")


def of_runs(table, names: list[str]) -> pl.DataFrame:
    """The rows of the runs ``names``."""
    if isinstance(table, pl.DataFrame):
        return table.filter(pl.col("run").is_in(names))
    return table.rows("run", names)


def scan(table, columns: list[str]) -> Iterator[pl.DataFrame]:
    """``columns`` of the table, in chunks (one frame for a table in memory);
    the string columns of a row-group source come as Categorical (codes, not
    decoded strings): callers cast what they keep with :func:`strings`."""
    if isinstance(table, pl.DataFrame):
        yield table.select(columns)
    else:
        yield from table.chunks(columns, coded=True)


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
    max_item: pl.DataFrame  # (qid, item): the largest item number of any response
    nil: pl.DataFrame  # (run, qid, item) of the answered NIL responses
    nil_right: pl.DataFrame  # (judgment_set, run, qid, item) of those judged R


def survey(t: dict) -> Survey:
    """One scan of responses (run, qid, item, answered, nil), then one of
    judgments (judgment_set, run, qid, item, judgment) and of nugget matches'
    judgment sets; every part is small (per question, or NIL answers only)."""
    runs: set = set()
    max_item, nil = [], []
    for c in scan(t["responses"], ["run", "qid", "item", "answered", "nil"]):
        runs.update(c["run"].drop_nulls().unique().cast(pl.String).to_list())
        max_item.append(strings(c.group_by("qid").agg(pl.col("item").max())))
        nil.append(c.filter(pl.col("answered") & pl.col("nil").fill_null(False))
                   .select("run", "qid", "item"))
    nil_rows = pl.concat(nil)  # codes as scanned: joined with the judgments' codes
    sets: set = set()
    judged, right = [], []
    keys = ["run", "qid", "item"]
    for c in scan(t["judgments"], [JS, *keys, "judgment"]):
        sets.update(c[JS].drop_nulls().unique().cast(pl.String).to_list())
        judged.append(strings(c.filter(pl.col("judgment").is_not_null())
                              .select(JS, "qid").unique()))
        r = c.filter(pl.col("judgment") == "R")
        nil_rows = like(nil_rows, r)  # a no-op once the dtypes agree
        # the NIL answers of this chunk's runs only (a join against all of them
        # for every chunk would grow with the square of the table)
        here = nil_rows.filter(pl.col("run").is_in(r["run"].unique().implode()))
        right.append(strings(r.join(here, on=keys, how="semi").select(JS, *keys)))
    for c in scan(t["nugget_matches"], [JS]):
        sets.update(c[JS].drop_nulls().unique().cast(pl.String).to_list())
    return Survey(runs=runs, sets=sets, judged=pl.concat(judged).unique(),
                  max_item=pl.concat(max_item).group_by("qid").agg(pl.col("item").max()),
                  nil=strings(nil_rows), nil_right=pl.concat(right))


__all__ = ["RUN_TABLES", "Survey", "like", "of_runs", "scan", "strings", "survey"]
