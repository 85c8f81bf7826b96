"""Assessor agreement: distribution of judgment tuples (Voorhees 2003, section 4).

Input: a judgments frame (judgment_set, run, qid, item, judgment).  A response
is identified by (run, qid, item); only responses judged in every one of the
chosen judgment sets count.  The tuple is the concatenation of the judgments,
either in the order of ``sets`` (``order="sets"``) or sorted alphabetically
(``order="sorted"``, default, so "RRX" and "RXR" are the same disagreement
pattern as in the paper's triples).  Output: tuple, count, share (sorted by
count descending, then tuple).
"""

from __future__ import annotations

import polars as pl

from ..errors import UsageError


def judgment_tuples(judgments: pl.DataFrame, sets: list[str] | None = None,
                    order: str = "sorted") -> pl.DataFrame:
    need = {"judgment_set", "run", "qid", "item", "judgment"}
    if need - set(judgments.columns):
        raise UsageError(f"judgments frame lacks columns {sorted(need - set(judgments.columns))}")
    if order not in ("sorted", "sets"):
        raise UsageError("order must be 'sorted' or 'sets'")
    if sets is None:
        sets = sorted(judgments["judgment_set"].unique().to_list())
    if len(sets) < 2:
        raise UsageError("assessor agreement needs at least two judgment sets")
    pos = {s: i for i, s in enumerate(sets)}
    df = (judgments.filter(pl.col("judgment_set").is_in(sets))
          .with_columns(pl.col("judgment_set").replace_strict(pos, return_dtype=pl.Int64).alias("_o"),
                        pl.col("judgment").cast(pl.Utf8))
          .sort("_o"))
    key = ["run", "qid", "item"]
    grouped = df.group_by(key).agg(pl.col("judgment"), pl.col("_o").n_unique().alias("_n"))
    grouped = grouped.filter(pl.col("_n") == len(sets))
    if order == "sorted":
        tup = pl.col("judgment").list.sort().list.join("")
    else:
        tup = pl.col("judgment").list.join("")
    out = grouped.select(tup.alias("tuple")).group_by("tuple").len("count")
    total = out["count"].sum()
    return (out.with_columns(pl.col("count").cast(pl.Int64),
                             (pl.col("count") / max(total, 1)).alias("share"))
            .sort(["count", "tuple"], descending=[True, False]))
