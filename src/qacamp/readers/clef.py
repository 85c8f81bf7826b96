"""CLEF QA (ResPubliQA-style) questions and judged runs (qacamp's own TSV).

Questions: a TSV with a header naming ``qid`` and optionally ``language`` and
``text``; one line per question (qtype QA).

Judged run (one file per run, judgment set ``official``)::

    run<TAB>qid<TAB>answered<TAB>judgment<TAB>answer

``answered`` is 1 or 0.  Answered questions are judged R or W.  For an
unanswered question the judgment judges the hypothetical candidate (R or W),
or is ``-`` / empty when there is no candidate (then ``answer`` must be
empty); ``answer`` holds the answer or the candidate.  A question missing from
the file is unanswered with no candidate.  Blank lines are ignored; the format
has no comments, so a line starting with ``#`` is refused (never read as data).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..errors import InputError
from ..tables import conform
from . import _clef_columns
from ._text import data_lines
from ._words import end_of_file

JUDGMENT_SET = "official"
RUN_HEADER = ["run", "qid", "answered", "judgment", "answer"]


def _lines(path) -> list[tuple[int, str]]:
    """The non-blank lines; the format has no comments, so a line starting
    with ``#`` is refused (read as data it would be a question or a run line)."""
    lines = list(data_lines(path, comments=False))
    for no, line in lines:
        if line.lstrip().startswith("#"):
            raise InputError(path, f"line {no}", "a line starting with '#': the CLEF TSV has "
                             "no comment lines (it would be read as data)",
                             "remove the line (ids and run names may not start with '#')")
    return lines


def _header(path, lines: list[tuple[int, str]], fmt: str) -> list[str]:
    if not lines:
        raise InputError(path, end_of_file(path), "the file has no data lines", f"write a header `{fmt}` and data lines")
    return [c.strip() for c in lines[0][1].split("\t")]


def read_questions(path: str | Path) -> pl.DataFrame:
    """Read a questions TSV (header ``qid`` [, ``language``, ``text``]) into ``questions``."""
    lines = _lines(path)
    header = _header(path, lines, "qid[<TAB>language][<TAB>text]")
    allowed = {"qid", "language", "text"}
    if "qid" not in header or not set(header) <= allowed or len(set(header)) != len(header):
        raise InputError(path, f"line {lines[0][0]}", f"bad header {header}",
                         "use a header with the columns qid and optionally language, text")
    rows = []
    seen: dict[str, int] = {}
    for no, line in lines[1:]:
        parts = line.split("\t")
        if len(parts) != len(header):
            raise InputError(path, f"line {no}",
                             f"expected {len(header)} tab-separated fields, got {len(parts)}",
                             f"write one value per header column ({', '.join(header)})")
        row = dict(zip(header, (p.strip() for p in parts), strict=True))
        if not row["qid"]:
            raise InputError(path, f"line {no}", "empty qid", "give every question an id")
        if row["qid"] in seen:
            raise InputError(path, f"line {no}",
                             f"question {row['qid']} appears twice (first at line {seen[row['qid']]})",
                             "give every question its own id")
        seen[row["qid"]] = no
        rows.append({**row, "qtype": "QA", "position": len(rows) + 1})
    if not rows:
        raise InputError(path, end_of_file(path), "the file has a header but no questions",
                         "add one line per question")
    df = pl.DataFrame(rows, schema_overrides={"position": pl.Int32})
    return conform("questions", df, str(path))


def read_run(path: str | Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Read a judged CLEF QA run TSV -> ``(responses, judgments)`` (set ``official``);
    a canonical file is read on columns (:mod:`._clef_columns`), any other, or
    one failing a check, line by line."""
    fast = _clef_columns.run(path, JUDGMENT_SET, RUN_HEADER)
    if fast is not None:
        return fast
    fmt = "\t".join(RUN_HEADER)
    lines = _lines(path)
    header = _header(path, lines, fmt.replace("\t", "<TAB>"))
    if header != RUN_HEADER:
        raise InputError(path, f"line {lines[0][0]}", f"bad header {header}",
                         f"start the file with the header `{fmt.replace(chr(9), '<TAB>')}`")
    rrows, jrows = [], []
    run: str | None = None
    seen: dict[str, int] = {}
    for no, line in lines[1:]:
        parts = line.split("\t")
        if len(parts) == 4:
            parts.append("")
        if len(parts) != 5:
            raise InputError(path, f"line {no}", f"expected 5 tab-separated fields, got {len(parts)}",
                             "write the line as run<TAB>qid<TAB>answered<TAB>judgment<TAB>answer")
        r, qid, answered, judgment, answer = (p.strip() for p in parts)
        if not r:
            raise InputError(path, f"line {no}", "the run field is empty",
                             "name the run in the first field of every line")
        if run is None:
            run = r
        elif r != run:
            raise InputError(path, f"line {no}",
                             f"the line names run '{r}' but the file's first line names '{run}'",
                             "put each run in its own file")
        if qid in seen:
            raise InputError(path, f"line {no}",
                             f"question {qid} answered twice (first at line {seen[qid]})",
                             "give one line per question")
        seen[qid] = no
        if answered not in ("0", "1"):
            raise InputError(path, f"line {no}", f"answered is '{answered}'", "write 1 or 0")
        judgment = judgment.upper()
        if answered == "1":
            if judgment not in ("R", "W"):
                raise InputError(path, f"line {no}",
                                 f"judgment '{judgment}' for an answered question",
                                 "judge answered questions R or W")
            candidate = None
        else:
            if judgment not in ("R", "W", "-", ""):
                raise InputError(path, f"line {no}",
                                 f"unknown judgment code '{judgment}' for an unanswered question",
                                 "use R or W for the candidate, or - when there is none")
            if judgment in ("-", ""):
                if answer:
                    raise InputError(path, f"line {no}",
                                     "an unanswered question with a candidate but no judgment",
                                     "judge the candidate R or W, or leave the answer empty")
                judgment = None
            candidate = answer or None
        is_answered = answered == "1"
        rrows.append({"run": r, "qid": qid, "item": 1, "rank": len(rrows) + 1,
                      "answer": (answer or None) if is_answered else None,
                      "answered": is_answered, "candidate": candidate, "nil": False})
        jrows.append({"judgment_set": JUDGMENT_SET, "run": r, "qid": qid, "item": 1,
                      "judgment": judgment})
    if not rrows:
        raise InputError(path, end_of_file(path), "the run has a header but no lines",
                         "add one line per answered or unanswered question")
    schema = {"item": pl.Int32, "rank": pl.Int32, "answer": pl.String, "candidate": pl.String}
    return (conform("responses", pl.DataFrame(rrows, schema_overrides=schema), str(path)),
            conform("judgments", pl.DataFrame(
                jrows, schema_overrides={"item": pl.Int32, "judgment": pl.String}), str(path)))
