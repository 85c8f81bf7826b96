"""Booktabs LaTeX for a :class:`~qacamp.report.tables.Table` (pure formatting).

:func:`to_latex` gives a ``table`` float with ``\\toprule`` / ``\\midrule`` /
``\\bottomrule`` (needs ``\\usepackage{booktabs}``); blocks (runs, then
baselines) are separated by a ``\\midrule`` and an italic block title; every
text cell, header and caption has its LaTeX specials escaped; a missing value
prints as ``--``; a column with a ``width`` is a wrapping ``p{width}`` column.
"""

from __future__ import annotations

from .formats import block_title, blocks, format_value
from .tables import Column, Table

_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}",
}


def latex_escape(text: str) -> str:
    """Escape the LaTeX special characters of ``text``."""
    return "".join(_LATEX_SPECIALS.get(ch, ch) for ch in str(text))


def _align(col: Column) -> str:
    if col.width:
        return f"p{{{col.width}}}"  # long text (e.g. a list of runs) wraps
    return "l" if col.fmt in ("text", "measure") else "r"


def to_latex(table: Table, label_prefix: str = "tab:") -> str:
    """The table as a booktabs LaTeX ``table`` float."""
    cols = table.columns
    lines = [r"\begin{table}[htbp]", r"\centering", r"\small",
             rf"\caption{{{latex_escape(table.caption)}}}",
             rf"\label{{{label_prefix}{table.name}}}",
             r"\begin{tabular}{" + "".join(_align(c) for c in cols) + "}",
             r"\toprule",
             " & ".join(latex_escape(c.header) for c in cols) + r" \\",
             r"\midrule"]
    for i, (name, rows) in enumerate(blocks(table)):
        if i > 0:
            lines.append(r"\midrule")
            title = block_title(name)
            lines.append(rf"\multicolumn{{{len(cols)}}}{{l}}{{\emph{{{latex_escape(title)}}}}} \\")
        for row in rows:
            cells = [latex_escape(format_value(row[c.key], c.fmt, "--")) for c in cols]
            lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    for note in table.notes:
        lines.append(rf"\par\smallskip{{\footnotesize {latex_escape(note)}}}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


__all__ = ["latex_escape", "to_latex"]
