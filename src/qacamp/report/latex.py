"""Booktabs LaTeX for a :class:`~qacamp.report.tables.Table` (pure formatting).

:func:`to_latex` gives a ``table`` float with ``\\toprule`` / ``\\midrule`` /
``\\bottomrule`` (needs ``\\usepackage{booktabs}``); blocks (runs, then
baselines) are separated by a ``\\midrule`` and an italic block title; every
text cell, header and caption has its LaTeX specials escaped; a missing value
prints as ``--``; a column with a ``width`` is a wrapping ``p{width}`` column.
A table longer than a page (:data:`LONGTABLE_ROWS`) is a ``longtable``
(``\\usepackage{longtable}``).  Labels are ``tab:<campaign>-<table>`` when
written by :func:`qacamp.report.build.write_tables` for a campaign.
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


#: a table with more body rows than this does not fit on a page as a float:
#: it is written as a ``longtable`` (page breaks, the header repeated)
LONGTABLE_ROWS = 40


def to_latex(table: Table, label_prefix: str = "tab:") -> str:
    """The table as a booktabs LaTeX ``table`` float, or, past
    :data:`LONGTABLE_ROWS` rows, a ``longtable`` (needs
    ``\\usepackage{longtable}``) whose header repeats on every page.  The
    label is ``<label_prefix><name>`` (``tab:<campaign>-runs``)."""
    if table.frame.height > LONGTABLE_ROWS:
        return _longtable(table, label_prefix)
    cols = table.columns
    lines = [r"\begin{table}[htbp]", r"\centering", r"\small",
             rf"\caption{{{latex_escape(table.full_caption)}}}",
             rf"\label{{{label_prefix}{table.name}}}",
             r"\begin{tabular}{" + "".join(_align(c) for c in cols) + "}",
             r"\toprule",
             " & ".join(latex_escape(c.header) for c in cols) + r" \\",
             r"\midrule"]
    lines += _body(table)
    lines += [r"\bottomrule", r"\end{tabular}"]
    for note in table.notes:
        lines.append(rf"\par\smallskip{{\footnotesize {latex_escape(note)}}}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def _body(table: Table) -> list[str]:
    cols = table.columns
    lines = []
    for i, (name, rows) in enumerate(blocks(table)):
        if i > 0:
            lines.append(r"\midrule")
            title = block_title(name)
            lines.append(rf"\multicolumn{{{len(cols)}}}{{l}}{{\emph{{{latex_escape(title)}}}}} \\")
        for row in rows:
            cells = [latex_escape(format_value(row[c.key], c.fmt, "--")) for c in cols]
            lines.append(" & ".join(cells) + r" \\")
    return lines


def _longtable(table: Table, label_prefix: str) -> str:
    cols = table.columns
    header = " & ".join(latex_escape(c.header) for c in cols) + r" \\"
    n = len(cols)
    lines = [r"\begingroup\small",
             r"\begin{longtable}{" + "".join(_align(c) for c in cols) + "}",
             rf"\caption{{{latex_escape(table.full_caption)}}}"
             rf"\label{{{label_prefix}{table.name}}} \\",
             r"\toprule", header, r"\midrule", r"\endfirsthead",
             rf"\multicolumn{{{n}}}{{l}}{{\emph{{(continued)}}}} \\",
             r"\toprule", header, r"\midrule", r"\endhead",
             r"\midrule", rf"\multicolumn{{{n}}}{{r}}{{\emph{{(continued on the next page)}}}} \\",
             r"\endfoot", r"\bottomrule", r"\endlastfoot"]
    lines += _body(table)
    lines.append(r"\end{longtable}")
    for note in table.notes:
        lines.append(rf"\par\smallskip{{\footnotesize {latex_escape(note)}}}")
    lines.append(r"\endgroup")
    return "\n".join(lines) + "\n"


__all__ = ["latex_escape", "to_latex", "LONGTABLE_ROWS"]
