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


def to_csv(table: Table, float_precision: int = 6) -> str:
    """The table's frame as CSV (raw values, floats with ``float_precision`` decimals)."""
    return table.frame.write_csv(None, float_precision=float_precision)


__all__ = ["BLOCK_TITLES", "format_value", "blocks", "block_title", "to_csv"]
