"""Columnar reading of TREC answer keys: answer patterns, nugget lists,
pyramid weights and list answer keys (:mod:`.answer_keys` gives the formats).

Each file is read in batches of whole lines (:func:`._fields.scan`), each
batch split into fields with polars expressions that give the fields of the
line reader (Python's ``str.strip``/``str.split`` white space,
:data:`._text.PY_SPACE`; Python's ``\\d`` for the docids of pattern files) and
checked with vectorised filters.  Each function returns the table, or None
when a check fails; :mod:`.answer_keys` then reads the file line by line,
which reports the first offending line (file, line, what is wrong, how to fix
it), so every error is the line reader's.  On the files accepted here both
paths give the same tables (tests/test_readers_keys_columnar.py).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import polars as pl

from ..tables import conform
from ._fields import NONSPACE, NUMBER, SPACE, WORD, Refused, scan, strip
from ._text import PY_SPACE


@functools.cache
def _python_digits() -> str:
    """Python's ``\\d`` (the decimal digits of this Python's Unicode) as a
    regular-expression class for polars, whose ``\\d`` may follow another
    Unicode version (built once, only for a file that is not ASCII)."""
    digits = re.findall(r"\d", "".join(map(chr, range(0x110000))))
    ranges, start, prev = [], None, None
    for ch in map(ord, digits):
        if start is None:
            start = prev = ch
        elif ch == prev + 1:
            prev = ch
        else:
            ranges.append((start, prev))
            start = prev = ch
    ranges.append((start, prev))
    return "[" + "".join(f"\\x{{{a:x}}}-\\x{{{b:x}}}" for a, b in ranges) + "]"


def _ascii(df: pl.DataFrame) -> bool:
    return bool((df["line"].str.len_bytes() == df["line"].str.len_chars()).all())


def _no_docid() -> pl.Expr:
    """One null docid: a pattern without supporting documents is one row."""
    return pl.concat_list(pl.lit(None, dtype=pl.String))


def _tabbed(df: pl.DataFrame) -> pl.DataFrame:
    """``qid<TAB>pattern[<TAB>docid ...]``: docids split on white space, ``none`` dropped."""
    df = df.select("line_no", pl.col("line").str.split("\t").alias("parts"))
    parts = pl.col("parts")
    docids = parts.list.slice(2).list.join(" ").str.extract_all(WORD) \
        .list.eval(pl.element().filter(pl.element().str.to_lowercase() != "none"))
    return df.select(
        "line_no", strip(parts.list.first()).alias("qid"),
        strip(parts.list.get(1, null_on_oob=True)).fill_null("").alias("pattern"),
        pl.when(docids.list.len() > 0).then(docids).otherwise(_no_docid()).alias("docid"))


def _spaced(df: pl.DataFrame, docid: str) -> pl.DataFrame:
    """``qid pattern [docid ...]``: the qid before the first space; the docids
    the longest run of docid-shaped tokens after single spaces ending the line
    (the leftmost match of the run anchored at the end), one token kept."""
    df = df.select("line_no", pl.col("line").str.strip_chars_start(PY_SPACE).str.splitn(" ", 2)
                   .struct.rename_fields(["qid", "rest"]).struct.unnest())
    df = df.with_columns(strip(pl.col("rest").fill_null("")))
    run = f"(?: {docid})+$"
    docids = pl.col("docid")
    return df.with_columns(pl.col("rest").str.extract(f"({run})", 1).alias("docid"),
                           strip(pl.col("rest").str.replace(run, "")).alias("pattern")) \
        .select("line_no", "qid", "pattern",
                pl.when(docids.is_not_null()).then(docids.str.slice(1).str.split(" "))
                .otherwise(_no_docid()).alias("docid"))


def patterns(path: str | Path) -> pl.DataFrame | None:
    """The ``patterns`` table of an answer-pattern file, else None."""
    def parse(df: pl.DataFrame) -> pl.DataFrame:
        docid = "[A-Z][A-Z_]*{d}{{8}}\\.{d}{{4}}".format(
            d="[0-9]" if _ascii(df) else _python_digits())
        df = df.with_columns(pl.col("line").str.strip_chars_end(PY_SPACE))
        tab = df.select(pl.col("line").str.contains("\t", literal=True)).to_series()
        if tab.all() or not tab.any():
            out = _tabbed(df) if tab.all() else _spaced(df, docid)
        else:  # (each layout on its own lines, then the lines in file order)
            out = pl.concat([_tabbed(df.filter(tab)), _spaced(df.filter(~tab), docid)]) \
                .sort("line_no")
        if not out.select(((pl.col("qid") != "") & (pl.col("pattern") != "")).all()).item():
            raise Refused(path)
        return out.drop("line_no").explode("docid")

    df = scan(path, parse, comments=False)
    return None if df is None else conform("patterns", df, str(path))


def nuggets(path: str | Path) -> pl.DataFrame | None:
    """The ``nuggets`` table of a nugget list (``Qid N.M:`` headers), else None."""
    def parse(df: pl.DataFrame) -> pl.DataFrame:
        parts = pl.col("line").str.split("\t")
        head = parts.list.first().str.extract_all(WORD)
        label = strip(parts.list.get(1, null_on_oob=True)).str.to_lowercase()
        out = df.select(
            pl.col("line").str.extract(f"^Qid{SPACE}+({NONSPACE}+?):", 1).alias("header"),
            head.list.get(0, null_on_oob=True).alias("qid"),
            head.list.get(1, null_on_oob=True).alias("nugget"),
            (label == "vital").alias("vital"),
            strip(parts.list.slice(2).list.join("\t")).alias("text"),
            ((parts.list.len() >= 3) & (head.list.len() == 2)
             & label.is_in(["vital", "okay"])).alias("ok"))
        if not out.select(pl.col("header").is_not_null() | pl.col("ok")).to_series().all():
            raise Refused(path)
        return out

    df = scan(path, parse, comments=False)
    if df is None:
        return None
    df = df.with_columns(pl.col("header").forward_fill().alias("current")) \
        .filter(pl.col("header").is_null())
    if df.height == 0 or not df.select(
            (pl.col("qid") == pl.col("current")).fill_null(False).all()
            & pl.struct("qid", "nugget").is_unique().all()).item():
        return None
    return conform("nuggets", df.select("qid", "nugget", "vital", "text"), str(path))


def pyramid(path: str | Path) -> pl.DataFrame | None:
    """The ``nuggets`` table of a pyramid-weight file, else None."""
    def parse(df: pl.DataFrame) -> pl.DataFrame:
        parts = pl.col("line").str.split("\t")
        weight = strip(parts.list.get(2, null_on_oob=True))
        out = df.select(
            strip(parts.list.first()).alias("qid"),
            strip(parts.list.get(1, null_on_oob=True)).alias("nugget"),
            weight.alias("raw"),
            pl.when(weight.str.contains(NUMBER)).then(weight.cast(pl.Float64, strict=False))
            .alias("weight"),
            strip(parts.list.slice(3).list.join("\t")).alias("text"),
            (parts.list.len() >= 4).alias("ok"))
        odd = out["weight"].is_null() & out["ok"]
        if odd.any():  # (not a plain decimal: Python's float decides, as the line reader)
            out = out.with_columns(out["weight"].scatter(
                odd.arg_true(), [_float(x) for x in out.filter(odd)["raw"]]))
        w = pl.col("weight")
        if not out.select((pl.col("ok") & (w >= 0) & (w <= 1)).fill_null(False).all()).item():
            raise Refused(path)
        return out.drop("raw", "ok")

    df = scan(path, parse, comments=True)
    if df is None or not df.select(pl.struct("qid", "nugget").is_unique().all()).item():
        return None
    return conform("nuggets", df, str(path))


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return float("nan")


def list_key(path: str | Path) -> pl.DataFrame | None:
    """The ``list_key`` table of a list answer key (``# qid`` blocks), else None."""
    def parse(df: pl.DataFrame) -> pl.DataFrame:
        text = strip(pl.col("line"))
        is_head = text.str.starts_with("#")
        return df.select(
            pl.when(is_head).then(strip(text.str.slice(1))).alias("header"),
            (~is_head & text.str.starts_with("Q:")).alias("question"),
            text.alias("instance"))

    df = scan(path, parse, comments=False)
    if df is None:
        return None
    heads = df["header"].drop_nulls()
    if (heads == "").any() or not heads.is_unique().all():
        return None
    df = df.with_columns(pl.col("header").forward_fill().alias("qid")) \
        .filter(pl.col("header").is_null() & ~pl.col("question"))
    if df.height == 0 or df["qid"].null_count():
        return None
    df = df.unique(["qid", "instance"], keep="first", maintain_order=True)
    return conform("list_key", df.select("qid", "instance"), str(path))
