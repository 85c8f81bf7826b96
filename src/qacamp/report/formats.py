"""Shared cell formatting of the table writers (:mod:`.latex`, :mod:`.markdown`,
:mod:`.html`) and the CSV writer.

Numbers are printed with the column's fixed format (:data:`.tables.FORMATS`),
never with Python's shortest repr, so the text is identical on every
platform; ``-0.000`` prints as ``0.000``; a missing value prints as the
writer's ``missing`` string; a measure name prints as its registry label
(``c@1`` for ``c_at_1``), while the CSV keeps the name.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import polars as pl

from ..measures import label
from .tables import Table

BLOCK_TITLES = {"runs": "Runs", "baselines": "Baselines"}


def format_value(value: object, fmt: str, missing: str = "--") -> str:
    """One cell in the column format ``fmt``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return missing
    if fmt == "text":
        return str(value)
    if fmt == "measure":
        return label(str(value))
    if fmt == "int":
        return str(int(round(float(value))))
    digits = {"f2": 2, "f3": 3, "f4": 4, "pct1": 1}[fmt]
    out = f"{float(value):.{digits}f}"
    if out.startswith("-") and float(out) == 0.0:
        out = out[1:]
    return out


def blocks(table: Table) -> list[tuple[str | None, list[dict]]]:
    """The table's rows split by its block column, blocks in order of first appearance."""
    rows = table.frame.to_dicts()
    if table.block is None:
        return [(None, rows)]
    out: dict[str, list[dict]] = {}
    for row in rows:
        out.setdefault(str(row[table.block]), []).append(row)
    return list(out.items())


def block_title(name: str | None) -> str:
    return BLOCK_TITLES.get(name or "", name or "")


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet reads as the start of a formula in a CSV cell."""


def spreadsheet_safe(frame: pl.DataFrame, columns: Sequence[str] | None = None) -> pl.DataFrame:
    """``frame`` with every text cell (of ``columns``; default: every text
    column) that starts with ``= + - @``, a tab or a carriage return prefixed
    by ``'`` (the usual neutralising prefix; OWASP, "CSV Injection"), so a run
    named ``=HYPERLINK(...)`` reaches a spreadsheet as text, not as a
    formula.  Number columns are left as they are."""
    starts = "^[" + "".join("\\" + c if c in "-+" else c for c in FORMULA_STARTS) + "]"
    return frame.with_columns(
        pl.when(pl.col(c).str.contains(starts)).then(pl.lit("'") + pl.col(c))
        .otherwise(pl.col(c)).alias(c)
        for c, dtype in frame.schema.items()
        if dtype == pl.String and (columns is None or c in columns))


def to_csv(table: Table, float_precision: int = 6) -> str:
    """The table's columns as CSV, the same columns in the same order as its
    LaTeX, Markdown and HTML, headed by their names (``c_at_1``), raw values
    (floats with ``float_precision`` decimals; text cells made
    :func:`spreadsheet_safe`)."""
    frame = table.frame.select([c.key for c in table.columns])
    return spreadsheet_safe(frame).write_csv(None, float_precision=float_precision)


__all__ = ["BLOCK_TITLES", "FORMULA_STARTS", "format_value", "blocks", "block_title",
           "spreadsheet_safe", "to_csv"]
