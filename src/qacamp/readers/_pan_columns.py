"""Columnar reading of PAN JSON lines (the common, canonical case).

A truth or answers file whose every data line is one flat object in the
canonical shape -- ``{"id": "...", "same": true|false}`` or ``{"id": "...",
"value": 0.73}`` (also ``[0.73]``), keys in that order, the id a string
without escapes or control characters, the value an unsigned JSON number --
is parsed on columns (read in batches by :func:`._text.scan_lines`): every line
is matched against the shape's regular expression (a match test, which needs
no capture groups), and the fields of the lines that match are cut at their
double quotes (the shape allows a double quote only around the keys and the
id); then checked with vectorised filters.
Each function returns None when a line is not in that shape or any check
fails; :mod:`.pan` then reads the file line by line with :mod:`json`, which
finds the first offending line and reports it (file, line, what is wrong,
how to fix it).  On the lines accepted here both paths give the same values:
the id is the string between the quotes, and an unsigned JSON number read as
a 64-bit float is the float Python's ``json`` gives (both round correctly; a
negative zero, whose sign ``json`` drops for ``-0``, is never accepted here).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..errors import InputError
from ..tables import conform
from ._text import scan_lines

_WS = "[ \t]*"
_ID = '"id"' + _WS + ":" + _WS + r'"([^"\\\x00-\x1f\x7f-\x9f\x{2028}\x{2029}]+)"'
_NUMBER = r"((?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)"
TRUTH_LINE = ("^" + _WS + r"\{" + _WS + _ID + _WS + "," + _WS + '"same"' + _WS + ":" + _WS
              + "(true|false)" + _WS + r"\}" + _WS + "$")
ANSWER_LINE = ("^" + _WS + r"\{" + _WS + _ID + _WS + "," + _WS + '"value"' + _WS + ":" + _WS
               + r"(\[" + _WS + ")?" + _NUMBER + "(" + _WS + r"\])?" + _WS + r"\}" + _WS + "$")


def _fields(path: str | Path, pattern: str) -> pl.DataFrame | None:
    """``line_no, qid, rest`` of every data line (``rest``: the text after the
    second key's closing quote), or None if a line does not match ``pattern``
    (or the file is not readable as text: the line reader reports why).

    A line that matches holds exactly six double quotes, around ``id``, the id
    and the second key; cut there, the fourth piece is the id, the seventh the
    rest of the line (its value, the brackets and the closing brace)."""
    def parse(df: pl.DataFrame) -> pl.DataFrame:
        line = pl.col("line")
        parts = line.str.splitn('"', 7)
        return df.select("line_no", line.str.contains(pattern).alias("_ok"),
                         parts.struct.field("field_3").alias("qid"),
                         parts.struct.field("field_6").alias("rest"))

    try:
        frames = scan_lines(path, parse, comments=False)
    except InputError:
        return None
    if not frames:
        return None
    df = pl.concat(frames)
    return df.drop("_ok") if df["_ok"].all() else None


def truth(path: str | Path, json_names) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    """``(questions, options)`` of a canonical truth file, else None."""
    df = _fields(path, TRUTH_LINE)
    if df is None or not df["qid"].is_unique().all():
        return None
    n = df.height
    same = pl.col("rest").str.contains("true", literal=True)
    questions = df.select("qid", pl.lit("VERIFICATION").alias("qtype"),
                          pl.int_range(1, n + 1, dtype=pl.Int32).alias("position"))
    pair = [df.select(pl.int_range(0, n).alias("_i"), "qid", pl.lit(option).alias("option"),
                      pl.lit(text).alias("text"), (same if option == "Y" else ~same)
                      .alias("correct"), pl.lit(False).alias("is_noa"), pl.lit(k).alias("_k"))
            for k, (option, text) in enumerate(json_names)]
    options = pl.concat(pair).sort("_i", "_k").drop("_i", "_k")
    return (conform("questions", questions, str(path)),
            conform("options", options, str(path)))


def answers(path: Path, run: str, questions: pl.DataFrame, options: pl.DataFrame,
            judgment_set: str) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    """``(responses, judgments)`` of a canonical answers file whose every problem
    is known, answered once, with a value in [0, 1]; else None."""
    df = _fields(path, ANSWER_LINE)
    if df is None:
        return None
    truth_of = options.filter(pl.col("correct")).select(
        "qid", pl.col("option").alias("_truth"), pl.lit(True).alias("_known"))
    if not truth_of["qid"].is_unique().all():
        return None
    # rest: ws ":" ws ["[" ws] NUMBER [ws "]"] ws "}" ws; the number parsed once
    rest = pl.col("rest")
    df = df.select("qid", rest.str.strip_chars(" \t:[]}").cast(pl.Float64, strict=False)
                   .alias("value"), (rest.str.contains("[", literal=True)
                                     == rest.str.contains("]", literal=True)).alias("_brackets"))
    # when the truth gives every problem, in order, its truth (the truth reader's
    # tables), one join finds both whether an id is a problem and its truth
    joined = truth_of["qid"].equals(questions["qid"])
    if joined:
        df = df.join(truth_of, on="qid", how="left", maintain_order="left")
    v = pl.col("value")
    ok = df.select(pl.col("_brackets").all().alias("a"),
                   (v.is_not_null() & v.is_finite() & (v >= 0) & (v <= 1)).all().alias("b"),
                   (pl.col("_known").is_not_null() if joined
                    else pl.col("qid").is_in(questions["qid"].implode())).all().alias("c"),
                   pl.col("qid").is_unique().all().alias("d")).row(0)
    if not all(ok):
        return None
    if not joined:
        df = df.join(truth_of, on="qid", how="left", maintain_order="left")
    answered = v != 0.5
    df = df.select("qid", v.alias("score"), answered.alias("answered"),
                   pl.when(answered).then(pl.when(v > 0.5).then(pl.lit("Y")).otherwise(pl.lit("N")))
                   .alias("answer"), "_truth")
    responses = df.select(pl.lit(run).alias("run"), "qid", pl.lit(1, pl.Int32).alias("item"),
                          pl.int_range(1, pl.len() + 1, dtype=pl.Int32).alias("rank"), "answer",
                          "answered", pl.lit(False).alias("nil"), "score")
    judgments = df.select(
        pl.lit(judgment_set).alias("judgment_set"), pl.lit(run).alias("run"), "qid",
        pl.lit(1, pl.Int32).alias("item"),
        pl.when(pl.col("answer").is_null()).then(pl.lit(None, pl.String))
        .when(pl.col("_truth") == pl.col("answer")).then(pl.lit("R")).otherwise(pl.lit("W"))
        .alias("judgment"))
    return (conform("responses", responses, str(path)),
            conform("judgments", judgments, str(path)))
