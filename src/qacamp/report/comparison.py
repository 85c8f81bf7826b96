"""The comparison table system papers print (ranx's ``compare`` report): runs,
their headline score and, as superscripts, the runs each run significantly
beats, or a marker against one baseline run; written as Markdown, LaTeX and
HTML (pure: frames in, text out).

- :func:`beats_frame`: from the all-pairs significance frame
  (``significance_<m>.parquet``, :data:`qacamp.reliability.significance.PAIR_SCHEMA`)
  and the runs' scores: each run gets a label (``a`` for the best, then by
  score; past 52 runs a letter and an index, ``a1`` ... ``Z1``, ``a2`` ...)
  and its superscript lists the labels of the runs it beats significantly
  (higher score, adjusted p-value at most alpha);
- :func:`baseline_frame`: from :func:`qacamp.reliability.significance.baseline.baseline_comparison`:
  ``+`` for a run significantly better than the baseline, ``-`` (printed
  as a minus sign) for one significantly worse, the baseline itself marked;
- :func:`to_markdown`, :func:`to_latex`, :func:`to_html`: the frame (columns
  ``label, run, score, marks``) as a table; Markdown writes superscripts as
  ``<sup>`` (rendered by GitHub and most Markdown readers), LaTeX as
  ``$^{...}$``, HTML as ``<sup>``; every run name is escaped.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import polars as pl

from ..errors import InputError
from ..reliability.letters import letter_name
from .latex import latex_escape
from .markdown import markdown_escape

FRAME_SCHEMA = {"label": pl.Utf8, "run": pl.Utf8, "score": pl.Float64, "marks": pl.Utf8,
                "baseline": pl.Boolean}
_MINUS = "\u2212"


def _scores(scores: pl.DataFrame, what: str) -> dict[str, float]:
    if not {"run", "score"} <= set(scores.columns):
        raise InputError(what, None, "needs the columns run and score",
                         "pass one row per run with its headline score")
    return dict(zip(scores["run"].to_list(), scores["score"].to_list(), strict=True))


def beats_frame(pairs: pl.DataFrame, scores: pl.DataFrame,
                what: str = "significance_<measure>.parquet") -> pl.DataFrame:
    """Runs by score (best first) with their labels and, in ``marks``, the
    labels of the runs each significantly beats, in label order."""
    missing = [c for c in ("run_a", "run_b", "diff", "significant") if c not in pairs.columns]
    if missing:
        raise InputError(what, None, f"missing column(s) {', '.join(missing)}",
                         "pass the per-pair file of `qacamp reliability significance`")
    score = _scores(scores, "scores")
    runs = sorted(score, key=lambda r: (-float(score[r]), r))
    labels = {r: letter_name(k, len(runs)) for k, r in enumerate(runs)}
    beaten: dict[str, set[str]] = {r: set() for r in runs}
    for a, b, d, sig in pairs.select("run_a", "run_b", "diff", "significant").iter_rows():
        if sig and a in labels and b in labels and d != 0:
            win, lose = (a, b) if d > 0 else (b, a)
            beaten[win].add(lose)
    marks = ["".join(labels[x] for x in runs if x in beaten[r]) for r in runs]
    return pl.DataFrame({"label": [labels[r] for r in runs], "run": runs,
                         "score": [float(score[r]) for r in runs], "marks": marks,
                         "baseline": [False] * len(runs)}, schema=FRAME_SCHEMA)


def baseline_frame(comparison: pl.DataFrame) -> pl.DataFrame:
    """Runs by score with ``+`` (significantly better than the baseline) or
    ``-`` (significantly worse); the baseline's own row is marked ``baseline``."""
    need = ("run", "baseline", "score", "baseline_score", "diff", "significant")
    missing = [c for c in need if c not in comparison.columns]
    if missing or not comparison.height:
        raise InputError("baseline comparison", None,
                         f"missing column(s) {', '.join(missing)}" if missing else "no rows",
                         "pass the frame of baseline_comparison()")
    base = str(comparison["baseline"][0])
    rows = [(r, float(s), ("+" if d > 0 else "-") if sig else "", False)
            for r, s, d, sig in comparison.select("run", "score", "diff",
                                                  "significant").iter_rows()]
    rows.append((base, float(comparison["baseline_score"][0]), "", True))
    rows.sort(key=lambda x: (-x[1], x[0]))
    return pl.DataFrame({"label": [None] * len(rows), "run": [r[0] for r in rows],
                         "score": [r[1] for r in rows], "marks": [r[2] for r in rows],
                         "baseline": [r[3] for r in rows]}, schema=FRAME_SCHEMA)


def _cells(frame: pl.DataFrame) -> tuple[bool, list[tuple]]:
    labelled = frame["label"].null_count() < frame.height
    return labelled, frame.select("label", "run", "score", "marks", "baseline").rows()


def _marks_text(marks: str) -> str:
    return marks.replace("-", _MINUS)


def to_markdown(frame: pl.DataFrame, header: str, caption: str = "",
                notes: Sequence[str] = (), decimals: int = 3) -> str:
    """Markdown pipe table; ``header`` names the score column."""
    labelled, rows = _cells(frame)
    cols = (["Label"] if labelled else []) + ["Run", header]
    out = [f"**{markdown_escape(caption)}**", ""] if caption else []
    out += ["| " + " | ".join(markdown_escape(c) for c in cols) + " |",
            "|" + "|".join("---" if c != header else "---:" for c in cols) + "|"]
    for label, run, score, marks, base in rows:
        run_text = markdown_escape(run) + (" (baseline)" if base else "")
        value = f"{score:.{decimals}f}" + (f"<sup>{markdown_escape(_marks_text(marks))}</sup>"
                                           if marks else "")
        out.append("| " + " | ".join(([markdown_escape(label)] if labelled else [])
                                     + [run_text, value]) + " |")
    out += [line for n in notes for line in ("", markdown_escape(n))]
    return "\n".join(out) + "\n"


def to_latex(frame: pl.DataFrame, header: str, caption: str = "", notes: Sequence[str] = (),
             decimals: int = 3, label: str = "tab:comparison") -> str:
    """A booktabs ``table`` float (``\\usepackage{booktabs}``)."""
    labelled, rows = _cells(frame)
    cols = (["Label"] if labelled else []) + ["Run", header]
    lines = [r"\begin{table}[htbp]", r"\centering", r"\small"]
    if caption:
        lines.append(rf"\caption{{{latex_escape(caption)}}}")
    lines += [rf"\label{{{label}}}",
              r"\begin{tabular}{" + ("l" if labelled else "") + "lr}", r"\toprule",
              " & ".join(latex_escape(c) for c in cols) + r" \\", r"\midrule"]
    for lab, run, score, marks, base in rows:
        value = f"{score:.{decimals}f}" + (rf"$^{{\mathrm{{{latex_escape(marks)}}}}}$"
                                           if marks else "")
        run_text = latex_escape(run) + (r" \emph{(baseline)}" if base else "")
        lines.append(" & ".join(([latex_escape(lab)] if labelled else []) + [run_text, value])
                     + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    lines += [rf"\par\smallskip{{\footnotesize {latex_escape(n).replace(_MINUS, '$-$')}}}"
              for n in notes]
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def to_html(frame: pl.DataFrame, header: str, caption: str = "", notes: Sequence[str] = (),
            decimals: int = 3) -> str:
    """A ``<table>`` element (with its notes as paragraphs after it)."""
    labelled, rows = _cells(frame)
    esc = html.escape
    cols = (["Label"] if labelled else []) + ["Run", header]
    out = ['<table class="comparison">']
    if caption:
        out.append(f"<caption>{esc(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f"<th>{esc(c)}</th>" for c in cols) + "</tr></thead>")
    out.append("<tbody>")
    for lab, run, score, marks, base in rows:
        value = f"{score:.{decimals}f}" + (f"<sup>{esc(_marks_text(marks))}</sup>"
                                           if marks else "")
        cells = ([f"<td>{esc(lab)}</td>"] if labelled else []) + [
            f"<td>{esc(run)}{' <em>(baseline)</em>' if base else ''}</td>",
            f'<td class="num">{value}</td>']
        out.append("<tr>" + "".join(cells) + "</tr>")
    out += ["</tbody>", "</table>"] + [f"<p class=\"note\">{esc(n)}</p>" for n in notes]
    return "\n".join(out) + "\n"


def beats_note(alpha: float, test_title: str) -> str:
    return (f"Superscripts: the labels of the runs a run beats significantly ({test_title}, "
            f"adjusted p at most {alpha:g}).")


def baseline_note(baseline: str, alpha: float, test_title: str) -> str:
    return (f"+: significantly better than the baseline {baseline}; {_MINUS}: significantly "
            f"worse ({test_title}, corrected over the comparisons with the baseline, adjusted "
            f"p at most {alpha:g}).")


__all__ = ["FRAME_SCHEMA", "baseline_frame", "baseline_note", "beats_frame", "beats_note",
           "to_html", "to_latex", "to_markdown"]
