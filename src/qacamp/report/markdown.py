"""Markdown for a :class:`~qacamp.report.tables.Table` (pure formatting).

:func:`to_markdown` gives the title in bold and the caption, one pipe table per block (the
block title in bold above every block but the first), then the notes; a
missing value prints as ``-``.  Only what Markdown would otherwise misread is
escaped: ``&``, ``<`` and ``>`` as HTML entities (Markdown passes raw HTML
through, so a run named ``<script>`` would otherwise become markup), ``\\``,
``|`` (a cell boundary), ``*`` and an underscore at the edge of a word
(emphasis).  An underscore inside a word (``team_a``) never starts
emphasis in CommonMark, so it stays as it is: no LaTeX-style ``c\\_at\\_1``.
"""

from __future__ import annotations

import re

from .formats import block_title, blocks, format_value
from .tables import Table

_EDGE_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")


def markdown_escape(text: str) -> str:
    """``text`` as literal Markdown text: no HTML, table cell break, emphasis,
    code span or link (a run named ``[x](http://...)`` stays text)."""
    out = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    out = out.replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*")
    out = out.replace("`", "\\`").replace("](", "\\](")
    return _EDGE_UNDERSCORE.sub(r"\\_", out)


def to_markdown(table: Table) -> str:
    """The table as Markdown: caption, one pipe table per block, notes."""
    cols = table.columns
    header = "| " + " | ".join(markdown_escape(c.header) for c in cols) + " |"
    rule = "|" + "|".join("---" if c.fmt in ("text", "measure") else "---:" for c in cols) + "|"
    lead = f"**{markdown_escape(table.lead)}.** " if table.lead else ""
    out = [f"{lead}{markdown_escape(table.full_caption)}", ""]
    for i, (name, rows) in enumerate(blocks(table)):
        if i > 0:
            out += ["", f"**{block_title(name)}**", ""]
        out += [header, rule]
        for row in rows:
            out.append("| " + " | ".join(markdown_escape(format_value(row[c.key], c.fmt, "-"))
                                         for c in cols) + " |")
    for note in table.notes:  # one paragraph each
        out += ["", markdown_escape(note)]
    return "\n".join(out) + "\n"


__all__ = ["markdown_escape", "to_markdown"]
