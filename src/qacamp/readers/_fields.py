"""Columns of line-oriented files: split a frame of lines into white-space
separated fields and check them with vectorised filters, each check raising
:class:`~qacamp.errors.InputError` at the first offending line (file, line,
what is wrong, how to fix it).  Also the pieces the columnar readers that
leave errors to a line reader share (:func:`scan`, :class:`Refused`, Python's
white space and numbers as polars expressions)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl

from ..errors import InputError
from ._text import PY_SPACE, SPACE, scan_lines

NONSPACE = r"[^\s\x1c-\x1f]"
WORD = NONSPACE + "+"
"""A run of non-white-space characters: what Python's ``str.split()`` yields."""


NUMBER = r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$"
"""A plain decimal number in ASCII digits: polars casts it to the float that
Python's ``float`` gives (both round correctly; tests/test_readers_keys_columnar.py)."""


def strip(expr: pl.Expr | pl.Series) -> pl.Expr | pl.Series:
    """``expr`` stripped of white space at both ends as Python's ``str.strip`` does."""
    return expr.str.strip_chars(PY_SPACE)


class Refused(InputError):
    """A columnar check failed: the line reader of the format reads the file
    and reports the first offending line (never shown to a user)."""

    def __init__(self, path: str | Path):
        super().__init__(path, None, "refused by a columnar check", "read it line by line")


def scan(path: str | Path, parse: Callable[[pl.DataFrame], pl.DataFrame],
         comments: bool) -> pl.DataFrame | None:
    """The parsed batches of ``path`` (:func:`._text.scan_lines`) as one frame,
    or None when the file has no data line or an InputError is raised while
    reading it (``parse`` raises :class:`Refused` on a batch it cannot accept):
    the caller then reads the file line by line, which reports the error."""
    try:
        frames = [f for f in scan_lines(path, parse, comments=comments) if f.height]
    except InputError:
        return None
    return pl.concat(frames) if frames else None


def first_line(df: pl.DataFrame, mask: pl.Expr | pl.Series) -> int | None:
    """The ``line_no`` of the first row of ``df`` where ``mask`` holds, else None."""
    hit = df.select(pl.col("line_no").filter(mask).first()).item()
    return None if hit is None else int(hit)


def split_fields(path: str | Path, df: pl.DataFrame, names: list[str], rest: str | None,
                 fmt: str) -> pl.DataFrame:
    """Split the ``line`` column of ``df`` into white-space separated fields
    ``names`` plus, if ``rest`` is given, the remainder of the line (possibly
    empty) as column ``rest``.  A line with too few fields raises InputError.

    White space is Python's (``str.split()``: :data:`SPACE`, U+001F too).
    Lines whose first fields are separated by single spaces are split on the
    space (the rest stripped of white space at both ends); only the other
    lines go through the white-space regular expression, which gives the same
    fields on both."""
    fields = (SPACE + "+").join(f"({WORD})" for _ in names)
    pattern = f"^{SPACE}*" + fields + (f"(?:{SPACE}+(.*?))?{SPACE}*$" if rest else f"{SPACE}*$")
    simple = "^" + " ".join(WORD for _ in names) + ("(?: |$)" if rest else "$")
    cols = names + ([rest] if rest else [])
    line = pl.col("line")
    split = line.str.splitn(" ", len(cols)).struct.rename_fields(cols)
    if df.select(line.str.contains(simple).all()).item():
        # (every line has its fields: none is null, and the rest of a line
        # without one is null, made empty)
        out = df.select("line_no", split.struct.unnest())
        return out.with_columns(strip(pl.col(rest)).fill_null("")) if rest else out
    is_simple = line.str.contains(simple)
    out = df.select(
        "line_no", pl.when(is_simple).then(line).str.splitn(" ", len(cols))
        .struct.rename_fields(cols).alias("_split"),
        pl.when(is_simple).then(None).otherwise(line)
        .str.extract_groups(pattern).struct.rename_fields(cols).alias("_regex"),
    ).select("line_no", *(pl.coalesce(pl.col("_split").struct.field(c),
                                      pl.col("_regex").struct.field(c)).alias(c)
                          for c in cols))
    if rest:  # (the regex strips the rest of the line; the split on spaces does not)
        out = out.with_columns(strip(pl.col(rest)))
    bad = first_line(out, pl.col(names[0]).is_null())
    if bad is not None:
        n = len(names)
        want = f"{n} fields and the rest of the line" if rest else f"exactly {n} fields"
        raise InputError(path, f"line {bad}",
                         f"expected {want} separated by white space ({fmt})",
                         f"write the line as `{fmt}`")
    if rest:
        out = out.with_columns(pl.col(rest).fill_null(""))
    return out


def check_one_tag(path: str | Path, df: pl.DataFrame, col: str = "tag") -> str:
    """The single run tag of a run file; a line naming another tag raises InputError."""
    tag = df[col][0]
    bad = first_line(df, pl.col(col) != tag)
    if bad is not None:
        other = df.filter(pl.col("line_no") == bad)[col][0]
        if df.height > 2 and (df[col].slice(1) == other).all():  # (only the first line differs)
            first = int(df["line_no"][0])
            raise InputError(path, f"line {first}",
                             f"the first line names run tag '{tag}' and every other line "
                             f"'{other}' (a header line?)",
                             "remove the header line: a run file holds only its runs' lines")
        raise InputError(path, f"line {bad}",
                         f"the line names run tag '{other}' but the file's first line names '{tag}'",
                         "put each run in its own file (one run tag per file)")
    return tag


def check_unique(path: str | Path, df: pl.DataFrame, keys: list[str], what: str,
                 fix: str) -> None:
    """Raise InputError at the first line repeating a value of ``keys``."""
    key = pl.col(keys[0]) if len(keys) == 1 else pl.struct(keys)
    # as many distinct hashes as rows: no repeat (a hash collision only ever
    # lowers the count, and then the search below finds nothing)
    if df.select(key.hash().n_unique()).item() == df.height:
        return
    dup = first_line(df, ~key.is_first_distinct())
    if dup is not None:
        row = df.filter(pl.col("line_no") == dup).row(0, named=True)
        val = " ".join(str(row[k]) for k in keys)
        raise InputError(path, f"line {dup}", f"duplicate {what} ({val})", fix)
