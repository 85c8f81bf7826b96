"""Generic score matrix (CSV or Parquet): the one strict reader.

Both ``qacamp ingest`` (kind ``score-matrix``) and the reliability commands
(:func:`qacamp.loader.read_matrix_file`) read matrices here.

CSV: one row per unit, one column per run, a header row of run names (no row
names).  An optional first column named ``unit`` (any case) gives unit ids;
otherwise units are numbered ``1..n`` in row order.  Blank rows are skipped.
CSV has no comments: a line starting with ``#`` is a row like any other (a
unit id may start with ``#``); an error on such a line, or on a header
starting with ``#``, says so.

Parquet: the same wide layout (run columns of a numeric type), or long with
exactly the columns ``unit, run, value``.  A Parquet file qacamp did not
write is parsed and checked in full in a child process
(:func:`qacamp.io.read_given_parquet`), so whatever its bytes, a failure of
the Parquet library is one error naming the file.  A notebook's frame is
checked by the same rules (:func:`frame_matrix`).

Strict values: a CSV cell is a plain decimal number (ASCII digits, optional
sign, decimal point and exponent: ``0.5``, ``-2``, ``1e-3``), so ``1_000``,
``١`` (non-ASCII digits), ``NaN``, ``inf``, ``true`` and empty cells are
errors, as is a number outside the float range (``1e400``).  Every value's
magnitude is at most :data:`MAX_VALUE` (1e100), so that the runs' means and
the analyses' sums of squares are finite numbers (two cells of ``1e308`` made
a run's mean ``inf``).  A Parquet value
column must be integer, float or decimal (a Boolean, string, list or struct
column is an error); nulls and non-finite values are errors.  Unit ids and run
names must be non-empty and unique; in the long layout every (unit, run) cell
must be present exactly once.  Every error names the file and the line (CSV)
or row and column (Parquet).

A CSV file is read on columns in batches of whole lines
(:mod:`._matrix_columns`); one failing a check there (or holding a quoted
field that spans lines) is read with the ``csv`` module (:func:`csv_by_line`),
which reports the first offending line.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from ..errors import InputError
from ..tables import SCHEMAS, conform
from . import _matrix_columns
from ._text import first_data_line, read_bytes, read_lines
from ._words import end_of_file

_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_FIX_VALUE = "give a finite decimal number (e.g. 0.25) for every unit and run"
#: The largest magnitude of a value (module docstring).
MAX_VALUE = 1e100
_COMMENT_HINT = (" (a line starting with '#' is data: CSV has no comment lines, so remove "
                 "comments from the file)")


@dataclass(frozen=True)
class Matrix:
    """A validated score matrix: ``values[i, j]`` is unit ``units[i]``, run
    ``runs[j]``.  ``layout`` is ``wide`` (units and runs in file order) or
    ``long`` (in order of first appearance)."""

    units: tuple[str, ...]
    runs: tuple[str, ...]
    values: np.ndarray
    layout: str

    def long(self) -> pl.DataFrame:
        """The canonical ``matrix`` table (unit, run, value), unit-major."""
        n, m = len(self.units), len(self.runs)
        df = pl.DataFrame({"unit": np.repeat(np.array(self.units, dtype=object), m),
                           "run": np.tile(np.array(self.runs, dtype=object), n),
                           "value": self.values.reshape(-1)},
                          schema=SCHEMAS["matrix"])
        return conform("matrix", df)


def parse_number(cell: str) -> float | None:
    """The value of a strict decimal number (see the module docstring), else None."""
    text = cell.strip()
    if not _NUMBER.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def read_matrix_table(path: str | Path) -> Matrix:
    """Read and validate a score matrix (``.csv``/``.csv.gz`` or ``.parquet``/``.pq``)."""
    name = Path(path).name.lower()
    if name.endswith(".parquet") or name.endswith(".pq"):
        return _read_parquet(path)
    return _read_csv(path)


def read_matrix(path: str | Path) -> pl.DataFrame:
    """Read a score matrix into the canonical ``matrix`` table (long form)."""
    return read_matrix_table(path).long()


# --------------------------------------------------------------------------- CSV

def _check_names(path, names: list[str], what: str, places: list[str]) -> None:
    seen: dict[str, str] = {}
    for name, place in zip(names, places, strict=True):
        if not name:
            raise InputError(path, place, f"an empty {what}", f"give every {what} a name")
        if name in seen:
            raise InputError(path, place, f"{what} '{name}' appears twice (also at {seen[name]})",
                             f"give every {what} its own name")
        seen[name] = place


def _read_csv(path: str | Path) -> Matrix:
    """A CSV matrix read on columns (:mod:`._matrix_columns`), or by
    :func:`csv_by_line` when the columnar reader refuses it (which then
    reports the first offending line)."""
    fast = _matrix_columns.read_csv(path)
    m = Matrix(*fast, "wide") if fast is not None else csv_by_line(path)
    if any(r.lower() == "unit" for r in m.runs):  # read as a run, ids would be scores
        first = first_data_line(path)
        raise InputError(path, f"line {first[0] if first else 1}", "the unit column comes "
                         "after the runs", "put the unit ids in the first column")
    _bounded(path, m.values, lambda i, j: f"line {_numbered_rows(path)[i + 1][0]}, "
                                          f"column {m.runs[j]}")
    return m


def _bounded(source, values: np.ndarray, place: Callable[..., str]) -> None:
    """Every value of magnitude at most :data:`MAX_VALUE`; else an error at
    the first one (``place(*its index)``)."""
    big = np.abs(values) > MAX_VALUE
    if big.any():
        at = tuple(int(k) for k in np.unravel_index(int(np.argmax(big)), big.shape))
        raise InputError(source, place(*at), f"the value {float(values[at]):g} is beyond the "
                         f"largest magnitude, {MAX_VALUE:g} (the runs' means and the "
                         "analyses' sums of squares would overflow)",
                         "give the scores on a scale of at most 1e100 (e.g. rescale the "
                         "measure)")


def _numbered_rows(path: str | Path) -> list[tuple[int, list[str]]]:
    """(line number, fields) of every row with a field that is not blank."""
    text = "\n".join(read_lines(path))  # decoded, limits and line breaks checked
    reader = csv.reader(io.StringIO(text))
    numbered: list[tuple[int, list[str]]] = []
    try:
        for r in reader:
            if any(c.strip() for c in r):
                numbered.append((reader.line_num, r))
    except csv.Error as exc:  # e.g. a field longer than csv.field_size_limit()
        raise InputError(path, f"line {reader.line_num}", f"malformed CSV ({exc})",
                         "write one row per line, fields separated by commas") from exc
    return numbered


def csv_by_line(path: str | Path) -> Matrix:
    """A CSV matrix read with the ``csv`` module, row by row."""
    numbered = _numbered_rows(path)
    if not numbered:
        raise InputError(path, end_of_file(path), "the file has no data lines",
                         "write a header and rows")
    hno, header = numbered[0]
    header = [h.strip() for h in header]
    hint = _COMMENT_HINT if header[0].startswith("#") else ""
    has_unit = header[0].lower() == "unit"
    runs = header[1:] if has_unit else header
    if not runs:
        raise InputError(path, f"line {hno}", "no run columns", "give one column per run")
    _check_names(path, runs, "run name in the header", [f"line {hno}"] * len(runs))
    units, rows, places = [], [], []
    for no, row in numbered[1:]:
        hint = hint or (_COMMENT_HINT if row[0].lstrip().startswith("#") else "")
        if len(row) != len(header):
            raise InputError(path, f"line {no}", f"expected {len(header)} fields, got {len(row)}"
                             + hint, "give one value per run on every row")
        cells = row[1:] if has_unit else row
        units.append(row[0].strip() if has_unit else str(len(units) + 1))
        places.append(f"line {no}, column {header[0]}" if has_unit else f"line {no}")
        out = []
        for j, c in enumerate(cells):
            v = parse_number(c)
            if v is None:
                raise InputError(path, f"line {no}, column {runs[j]}",
                                 f"'{c[:40]}' is not a finite decimal number" + hint, _FIX_VALUE)
            out.append(v)
        rows.append(out)
    if not units:
        raise InputError(path, end_of_file(path), "the file has a header but no rows",
                         "add one row per unit")
    _check_names(path, units, "unit id", places)
    return Matrix(tuple(units), tuple(runs), np.array(rows, dtype=np.float64), "wide")


# --------------------------------------------------------------------------- Parquet

def _dtype_ok(dtype: pl.DataType) -> bool:
    return dtype.is_numeric() and dtype != pl.Boolean


def _ids(path, df: pl.DataFrame, col: str, what: str) -> pl.Series:
    dtype = df.schema[col]
    if not (dtype == pl.String or dtype.is_integer() or isinstance(dtype, pl.Categorical | pl.Enum)):
        raise InputError(path, f"column {col}", f"the {what} column has type {dtype}",
                         f"store {what}s as strings (or integers)")
    s = df[col].cast(pl.String)
    bad = s.is_null() | (s.str.strip_chars() == "")
    if bad.any():
        row = int(bad.arg_max()) + 1
        raise InputError(path, f"row {row}, column {col}", f"an empty or null {what}",
                         f"give every row its {what}")
    return s


def _values(path, df: pl.DataFrame, col: str) -> np.ndarray:
    dtype = df.schema[col]
    if not _dtype_ok(dtype):
        raise InputError(path, f"column {col}", f"the column has type {dtype}, not a number",
                         "store scores as integer or float columns")
    v = df[col].cast(pl.Float64)
    bad = v.is_null() | ~v.is_finite()
    if bad.any():
        row = int(bad.arg_max()) + 1
        raise InputError(path, f"row {row}, column {col}", "a missing or non-finite value",
                         _FIX_VALUE)
    return v.to_numpy()


def _read_parquet(path: str | Path) -> Matrix:
    from ..io import Damaged, SchemaMismatch, read_given_parquet

    data = read_bytes(path, text=False)
    try:  # the workflow's ingest/matrix.parquet: as ingest wrote it; a user's: in a child
        df = pl.from_arrow(read_given_parquet(path, data))
    except (Damaged, SchemaMismatch) as exc:
        raise InputError(path, "byte 0", f"not a readable Parquet file ({exc})",
                         "write the matrix with a Parquet writer, or as CSV") from None
    del data
    return frame_matrix(path, df)


def frame_matrix(source: str | Path, df: pl.DataFrame) -> Matrix:
    """A matrix frame (a Parquet file's, or a notebook's frame; ``source`` names
    it in errors) checked by the Parquet rules: wide, the unit ids in a first
    column named ``unit`` (any case; text or integers) and a numeric column per
    run, or long with exactly the columns ``unit, run, value``."""
    path = source
    if df.height == 0 or not df.columns:
        raise InputError(path, "row 1", "no rows or no columns",
                         "give one column per run, one row per unit")
    if set(df.columns) == {"unit", "run", "value"}:
        return _long(path, df)
    has_unit = df.columns[0].lower() == "unit"
    later = next((c for c in df.columns[1:] if c.lower() == "unit"), None)
    if later is not None:  # (read as a run, its ids would be one more run's scores)
        raise InputError(path, f"column {later}", "the unit column comes after the runs",
                         "put the unit ids in the first column")
    runs = df.columns[1:] if has_unit else df.columns
    if not runs:
        raise InputError(path, "row 1", "no run columns", "give one column per run")
    _check_names(path, [r.strip() for r in runs], "run column name",
                 [f"column {i + 1}" for i in range(int(has_unit), len(df.columns))])
    units = (_ids(path, df, df.columns[0], "unit").to_list() if has_unit
             else [str(i) for i in range(1, df.height + 1)])
    _check_names(path, units, "unit id", [f"row {i + 1}, column {df.columns[0]}"
                                          for i in range(len(units))])
    values = np.column_stack([_values(path, df, r) for r in runs])
    _bounded(path, values, lambda i, j: f"row {i + 1}, column {runs[j]}")
    return Matrix(tuple(units), tuple(runs), values, "wide")


def _long(path, df: pl.DataFrame) -> Matrix:
    keys = pl.DataFrame({"unit": _ids(path, df, "unit", "unit"),
                         "run": _ids(path, df, "run", "run")})
    value = _values(path, df, "value")
    _bounded(path, value, lambda row: f"row {row + 1}, column value")
    dup = keys.select(~pl.struct("unit", "run").is_first_distinct()).to_series()
    if dup.any():
        row = int(dup.arg_max()) + 1
        u, r = keys.row(row - 1)
        raise InputError(path, f"row {row}", f"unit {u} and run {r} appear twice",
                         "give one value per unit and run")
    units = keys["unit"].unique(maintain_order=True)
    runs = keys["run"].unique(maintain_order=True)
    if units.len() * runs.len() != keys.height:
        per = keys.with_row_index("row").group_by("unit", maintain_order=True).agg(
            pl.col("row").first(), pl.col("run"))
        for u, row, have in per.iter_rows():
            if len(have) < runs.len():
                missing = next(r for r in runs.to_list() if r not in set(have))
                raise InputError(path, f"row {row + 1}, column unit",
                                 f"unit {u} has no value for run {missing} (a missing cell)",
                                 "give a value for every unit and run")
    ui = keys["unit"].replace_strict(units, pl.int_range(units.len(), eager=True),
                                     return_dtype=pl.Int64).to_numpy()
    ri = keys["run"].replace_strict(runs, pl.int_range(runs.len(), eager=True),
                                    return_dtype=pl.Int64).to_numpy()
    values = np.empty((units.len(), runs.len()))
    values[ui, ri] = value
    return Matrix(tuple(units.to_list()), tuple(runs.to_list()), values, "long")
