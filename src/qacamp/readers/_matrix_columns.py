"""Columnar reading of CSV score matrices (:mod:`.matrix` gives the format).

The file is read in batches of whole lines (:func:`._fields.scan`).  A line
without a double quote is split on its commas; a line with one is split by a
regular expression that follows Python's ``csv`` module (excel dialect) field
by field: a field opening with a quote runs to the first quote not doubled,
and anything after it up to the comma is kept as it is.  When a quoted field
does not close on its line (it would span lines) the file is refused here, as
it is when any check fails: a cell not a plain decimal number (read by polars
as the float Python's ``float`` gives), a row of another length, an empty or
repeated run name or unit id, a field longer than ``csv.field_size_limit()``.
:func:`.matrix.csv_by_line` then reads the file with the ``csv``
module, which reports the first offending line (file, line, what is wrong,
how to fix it) -- or reads the file with fields spanning lines, which only it
numbers as the ``csv`` module does.  The first non-blank row is the header;
a row whose every cell is white space is skipped, as there.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import polars as pl

from ._fields import NUMBER, Refused, scan, strip

_QUOTED = r'"(?:[^"]|"")*"(?:[^",][^,]*)?'
_CELL = rf'(?:{_QUOTED}|[^",][^,]*|)'
_LINE = rf"^{_CELL}(?:,{_CELL})*$"
_UNQUOTE = r'^"((?:[^"]|"")*)"(.*)$'


def _cells(df: pl.DataFrame, path: str | Path) -> pl.DataFrame:
    """``line_no, cells`` (a list of the CSV fields of each line, unquoted)."""
    line = pl.col("line")
    quoted = df.select(line.str.contains('"', literal=True)).to_series()
    plain = df.filter(~quoted).select("line_no", line.str.split(",").alias("cells"))
    if not quoted.any():
        return plain
    df = df.filter(quoted)
    if not df.select(line.str.contains(_LINE).all()).item():
        raise Refused(path)  # (a quoted field spanning lines, or one not closed)
    cell = pl.element()
    parts = cell.str.extract_groups(_UNQUOTE)
    unquoted = pl.when(cell.str.starts_with('"')).then(
        parts.struct.field("1").str.replace_all('""', '"', literal=True)
        + parts.struct.field("2")).otherwise(cell)
    cells = ("," + line).str.extract_all("," + _CELL).list.eval(cell.str.slice(1)) \
        .list.eval(unquoted)
    return pl.concat([plain, df.select("line_no", cells.alias("cells"))]).sort("line_no")


def _header(path, cells: list[str]) -> tuple[list[str], bool]:
    """The header's cells (stripped) and whether it names a unit column;
    refused without a run column or with an empty or repeated run name."""
    header = [c.strip() for c in cells]
    has_unit = header[0].lower() == "unit"
    runs = header[1:] if has_unit else header
    if not runs or "" in runs or len(set(runs)) != len(runs):
        raise Refused(path)
    return header, has_unit


def read_csv(path: str | Path) -> tuple[tuple[str, ...], tuple[str, ...], np.ndarray] | None:
    """``(units, runs, values)`` of a valid CSV score matrix (units in rows,
    runs in columns, both in file order), else None."""
    found: list[tuple[list[str], bool]] = []  # (the header, once the first row is read)
    limit = csv.field_size_limit()

    def parse(df: pl.DataFrame) -> pl.DataFrame:
        long = df.select(pl.col("line").str.len_chars().max() > limit).item()
        df = _cells(df, path)
        cells = pl.col("cells")
        if long and df.select(cells.list.eval(pl.element().str.len_chars()).list.max() > limit) \
                .to_series().any():
            raise Refused(path)  # (the csv module refuses a field this long)
        df = df.filter(strip(cells.list.join("")) != "")  # (rows of blank cells are skipped)
        if df.height and not found:
            found.append(_header(path, df["cells"][0].to_list()))
            df = df.slice(1)
        if not found or df.height == 0:
            return pl.DataFrame(schema={"unit": pl.String, "values": pl.Array(pl.Float64, 1)})
        header, has_unit = found[0]
        runs = len(header) - has_unit
        if not df.select((cells.list.len() == len(header)).all()).item():
            raise Refused(path)
        text = df.select(cells.list.slice(int(has_unit)).explode()).to_series()
        number = text.str.contains(NUMBER)
        if not number.all():  # (white space around a number is stripped)
            text = strip(text)
            number = text.str.contains(NUMBER)
        values = text.cast(pl.Float64, strict=False)
        if not (number.all() and values.is_finite().all()):
            raise Refused(path)
        return pl.DataFrame({
            "unit": strip(df.select(cells.list.first()).to_series()) if has_unit
            else pl.repeat("", df.height, eager=True),
            "values": values.reshape((df.height, runs))})

    df = scan(path, parse, comments=False)
    if df is None or not found or df.height == 0:
        return None
    header, has_unit = found[0]
    units = df["unit"] if has_unit else pl.int_range(1, df.height + 1, eager=True).cast(pl.String)
    if (units == "").any() or not units.is_unique().all():
        return None
    values = df["values"].to_numpy()
    return tuple(units.to_list()), tuple(header[has_unit:]), \
        np.ascontiguousarray(values, np.float64)
