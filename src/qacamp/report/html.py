"""HTML views of a :class:`~qacamp.report.tables.Table` and of a figure (pure;
the markup is written by the ``table`` and ``figure`` macros of
``templates/macros.html.j2``).

:func:`table_view` turns a table into plain data: headers (with the column's
kind, ``text`` or ``num``), blocks of rows (runs, then baselines) and cells
holding the printed text (the same fixed formats as LaTeX and Markdown, a
missing value as an en dash) and a sort key (the raw number, so the page's
optional script sorts 0.10 after 0.09; text sorts by itself).  Escaping is
Jinja2's autoescape.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping

from ..errors import InputError
from .formats import block_title, blocks, format_value
from .tables import Table

MISSING = "\u2013"
#: what a table's caption says on the page where its method sentence would be:
#: the page says it once, at the head of the table's section
METHOD_POINTER = "How the numbers were obtained: see the note at the head of this section."


def _sort_key(value: object, fmt: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if fmt in ("text", "measure"):
        return format_value(value, fmt)
    return repr(float(value))


def table_view(table: Table, sortable: bool = False) -> dict:
    """``{"name", "title", "caption", "notes", "sortable", "headers": [{"text", "kind"}],
    "blocks": [{"title", "rows": [[{"text", "sort", "kind"}]]}], "n_rows"}``."""
    kinds = ["text" if c.fmt in ("text", "measure") else "num" for c in table.columns]
    out_blocks = []
    for i, (name, rows) in enumerate(blocks(table)):
        cells = [[{"text": format_value(row[c.key], c.fmt, MISSING),
                   "sort": _sort_key(row[c.key], c.fmt), "kind": k}
                  for c, k in zip(table.columns, kinds, strict=True)] for row in rows]
        out_blocks.append({"title": block_title(name) if i > 0 else None, "rows": cells})
    caption = table.caption + (f" {METHOD_POINTER}" if table.method else "")
    return {"name": table.name, "title": table.heading, "lead": table.lead, "caption": caption,
            "notes": list(table.notes),
            "sortable": sortable,
            "headers": [{"text": c.header, "kind": k}
                        for c, k in zip(table.columns, kinds, strict=True)],
            "blocks": out_blocks, "n_rows": table.frame.height}


def data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def figure_view(name: str, figures: Mapping[str, bytes], alt: str, caption: str) -> dict:
    """``{"name", "src", "alt", "caption"}`` of the figure ``name`` (its PNG
    embedded as a data URI); an InputError when the figure was not written."""
    if name not in figures:
        raise InputError(f"figures/{name}.png", None, "figure not found",
                         "run `qacamp report figures` for this campaign first")
    return {"name": name, "src": data_uri(figures[name]), "alt": alt, "caption": caption}


__all__ = ["table_view", "figure_view", "data_uri", "MISSING", "METHOD_POINTER"]
