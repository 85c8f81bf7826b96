"""Columnar reading of judged CLEF QA run TSVs (the common, canonical case).

A run file whose header is exactly ``run<TAB>qid<TAB>answered<TAB>judgment
<TAB>answer`` and whose every line is valid with fields that need no
stripping (no white space at either end), the judgment one of ``R W r w -``
or empty, is split on columns (read in batches by
:func:`._text.scan_lines`) and checked with vectorised filters.
:func:`run` returns None when any line is not in that shape or any check
fails; :func:`.clef.read_run` then reads the file line by line, which finds
the first offending line and reports it (file, line, what is wrong, how to
fix it; a line starting with ``#`` is refused there, never accepted here).
On the files accepted here both paths give the same tables.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..errors import InputError
from ..tables import conform
from ._text import scan_lines

_EDGE_SPACE = r"^[\s\x1c-\x1f]|[\s\x1c-\x1f]$"  # (what Python's str.strip removes)


def run(path: str | Path, judgment_set: str, header: list[str]
        ) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    """``(responses, judgments)`` of a canonical judged CLEF run (fields
    ``header``: run, qid, answered, judgment, answer), else None."""
    try:
        frames = scan_lines(path, comments=False)
    except InputError:
        return None
    if not frames:
        return None
    lines = pl.concat(frames)
    names = list(header)
    if lines["line"][0] != "\t".join(header) or lines.height < 2:
        return None
    parts = lines.slice(1).select(pl.col("line").str.split("\t").alias("p"))
    n = parts.select(pl.col("p").list.len().alias("n"))["n"]
    if not n.is_in([4, 5]).all():
        return None
    df = parts.select(pl.col("p").list.get(i, null_on_oob=True).alias(c)
                      for i, c in enumerate(names)).with_columns(pl.col("answer").fill_null(""))
    edge = pl.any_horizontal(pl.col(c).str.contains(_EDGE_SPACE) for c in names)
    judged = pl.col("judgment").is_in(["R", "W", "r", "w"])
    ok = df.select(
        (~edge).all().alias("plain"),
        ((pl.col("run") != "") & ~pl.col("run").str.starts_with("#")).all().alias("run"),
        (pl.col("run") == pl.col("run").first()).all().alias("one_run"),
        (pl.col("qid") != "").all().alias("qid"),
        pl.col("qid").is_unique().all().alias("unique"),
        pl.col("answered").is_in(["0", "1"]).all().alias("answered"),
        (judged | ((pl.col("answered") == "0") & pl.col("judgment").is_in(["-", ""])
                   & (pl.col("answer") == ""))).all().alias("judgment"),
    ).row(0)
    if not all(ok):
        return None
    answered = pl.col("answered") == "1"
    text = pl.when(pl.col("answer") != "").then(pl.col("answer"))
    responses = df.select(
        "run", "qid", pl.lit(1, pl.Int32).alias("item"),
        pl.int_range(1, pl.len() + 1, dtype=pl.Int32).alias("rank"),
        pl.when(answered).then(text).alias("answer"), answered.alias("answered"),
        pl.when(~answered).then(text).alias("candidate"), pl.lit(False).alias("nil"))
    judgments = df.select(
        pl.lit(judgment_set).alias("judgment_set"), "run", "qid",
        pl.lit(1, pl.Int32).alias("item"),
        pl.when(judged).then(pl.col("judgment").str.to_uppercase()).alias("judgment"))
    return (conform("responses", responses, str(path)),
            conform("judgments", judgments, str(path)))
