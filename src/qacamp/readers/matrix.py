"""Generic score matrix (CSV or Parquet) -> ``matrix`` in long form.

CSV: one row per unit, one column per run, a header row of run names (no row
names).  An optional first column named ``unit`` gives unit ids; otherwise
units are numbered ``1..n`` in row order.  Values are numbers; empty cells,
``NA`` or text are errors.

Parquet: the same wide layout, or long with exactly the columns
``unit, run, value``.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import polars as pl

from .. import tables
from ..errors import InputError
from ._text import end_of_file, read_bytes, read_lines


def _check_runs(path, runs: list[str], place: str) -> None:
    seen: set[str] = set()
    for r in runs:
        if not r.strip():
            raise InputError(path, place, "an empty run name in the header", "name every run column")
        if r in seen:
            raise InputError(path, place, f"run '{r}' appears twice in the header",
                             "give every run column its own name")
        seen.add(r)


def _from_wide(path, units: list[str], runs: list[str], values: list[list[float]],
               places: list[str] | None = None) -> pl.DataFrame:
    seen: set[str] = set()
    for i, u in enumerate(units):
        if u in seen:
            place = places[i] if places else f"row {i + 1}"
            raise InputError(path, f"{place}, column unit", f"unit '{u}' appears twice",
                             "give every row its own unit id")
        seen.add(u)
    n = len(units)
    df = pl.DataFrame({
        "unit": [u for u in units for _ in runs],
        "run": runs * n,
        "value": [v for row in values for v in row],
    }, schema=tables.SCHEMAS["matrix"])
    return tables.conform("matrix", df, str(path))


def _read_csv(path: str | Path) -> pl.DataFrame:
    text = "\n".join(read_lines(path))  # decoded, line lengths checked
    reader = csv.reader(io.StringIO(text))
    numbered: list[tuple[int, list[str]]] = []
    try:
        for r in reader:
            if any(c.strip() for c in r):
                numbered.append((reader.line_num, r))
    except csv.Error as exc:  # e.g. a field longer than csv.field_size_limit()
        raise InputError(path, f"line {reader.line_num}", f"malformed CSV ({exc})",
                         "write one row per line, fields separated by commas") from exc
    if not numbered:
        raise InputError(path, end_of_file(path), "the file has no data lines",
                         "write a header and rows")
    hno, header = numbered[0]
    header = [h.strip() for h in header]
    has_unit = header[0].lower() == "unit"
    runs = header[1:] if has_unit else header
    if not runs:
        raise InputError(path, f"line {hno}", "no run columns", "give one column per run")
    _check_runs(path, runs, f"line {hno}")
    units, values, places = [], [], []
    for no, row in numbered[1:]:
        if len(row) != len(header):
            raise InputError(path, f"line {no}", f"expected {len(header)} fields, got {len(row)}",
                             "give one value per run on every row")
        cells = row[1:] if has_unit else row
        units.append(row[0].strip() if has_unit else str(len(units) + 1))
        places.append(f"line {no}")
        out = []
        for j, c in enumerate(cells):
            try:
                v = float(c)
            except ValueError:
                v = math.nan
            if not math.isfinite(v):
                raise InputError(path, f"line {no}, column {runs[j]}", f"'{c}' is not a number",
                                 "give a finite number for every unit and run")
            out.append(v)
        values.append(out)
    if not units:
        raise InputError(path, end_of_file(path), "the file has a header but no rows",
                         "add one row per unit")
    return _from_wide(path, units, runs, values, places)


def _read_parquet(path: str | Path) -> pl.DataFrame:
    data = read_bytes(path)
    try:
        df = pl.read_parquet(io.BytesIO(data))
    except Exception as exc:  # polars/pyarrow raise many error types for bad files
        raise InputError(path, None, f"not a readable Parquet file ({exc})",
                         "write the matrix with a Parquet writer, or as CSV") from exc
    if set(df.columns) == {"unit", "run", "value"}:
        long = df.select(pl.col("unit").cast(pl.String), pl.col("run").cast(pl.String),
                         pl.col("value").cast(pl.Float64, strict=False))
        bad = long.with_row_index("row").filter(
            pl.col("value").is_null() | ~pl.col("value").is_finite())
        if bad.height:
            raise InputError(path, f"row {bad['row'][0] + 1}", "a missing or non-numeric value",
                             "give a finite number for every unit and run")
        dup = long.with_row_index("row").filter(~pl.struct("unit", "run").is_first_distinct())
        if dup.height:
            raise InputError(path, f"row {dup['row'][0] + 1}",
                             f"unit {dup['unit'][0]} and run {dup['run'][0]} appear twice",
                             "give one value per unit and run")
        return tables.conform("matrix", long, str(path))
    has_unit = bool(df.columns) and df.columns[0].lower() == "unit"
    runs = df.columns[1:] if has_unit else df.columns
    if not runs or df.height == 0:
        raise InputError(path, None, "no run columns or no rows", "give one column per run, one row per unit")
    units = (df[df.columns[0]].cast(pl.String).to_list() if has_unit
             else [str(i) for i in range(1, df.height + 1)])
    vals = df.select([pl.col(r).cast(pl.Float64, strict=False) for r in runs])
    for r in runs:
        bad = vals.with_row_index("row").filter(pl.col(r).is_null() | ~pl.col(r).is_finite())
        if bad.height:
            raise InputError(path, f"row {bad['row'][0] + 1}, column {r}",
                             "a missing or non-numeric value",
                             "give a finite number for every unit and run")
    return _from_wide(path, units, list(runs), [list(row) for row in vals.iter_rows()])


def read_matrix(path: str | Path) -> pl.DataFrame:
    """Read a score matrix (``.csv``/``.csv.gz`` or ``.parquet``) into ``matrix``."""
    name = Path(path).name.lower()
    if name.endswith(".parquet") or name.endswith(".pq"):
        return _read_parquet(path)
    return _read_csv(path)
