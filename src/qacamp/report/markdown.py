"""Markdown for a :class:`~qacamp.report.tables.Table` (pure formatting).

:func:`to_markdown` gives the caption in bold, one pipe table per block (the
block title in bold above every block but the first), then the notes; a
missing value prints as ``-``; ``|``, ``*``, ``_`` and ``\\`` are escaped.
"""

from __future__ import annotations

from .formats import BLOCK_TITLES, blocks, format_value
from .tables import Table


def markdown_escape(text: str) -> str:
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*") \
        .replace("_", "\\_")


def to_markdown(table: Table) -> str:
    """The table as Markdown: caption, one pipe table per block, notes."""
    cols = table.columns
    header = "| " + " | ".join(markdown_escape(c.header) for c in cols) + " |"
    rule = "|" + "|".join("---" if c.fmt == "text" else "---:" for c in cols) + "|"
    out = [f"**Table {table.name}.** {markdown_escape(table.caption)}", ""]
    for i, (name, rows) in enumerate(blocks(table)):
        if i > 0:
            out += ["", f"**{BLOCK_TITLES.get(name or '', name or '')}**", ""]
        out += [header, rule]
        for row in rows:
            out.append("| " + " | ".join(markdown_escape(format_value(row[c.key], c.fmt, "-"))
                                         for c in cols) + " |")
    if table.notes:
        out.append("")
        out += [markdown_escape(n) for n in table.notes]
    return "\n".join(out) + "\n"


__all__ = ["markdown_escape", "to_markdown"]
