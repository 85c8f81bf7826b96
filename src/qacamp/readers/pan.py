"""PAN authorship verification (JSON lines).

``truth.jsonl``: ``{"id": ..., "same": true|false}`` per line -> questions
(qtype VERIFICATION) and options ``Y`` (same author) / ``N`` (different
authors) with ``correct`` marking the truth.

``answers.jsonl``: ``{"id": ..., "value": float in [0, 1]}`` per line; a value
wrapped in a one-element list (``[0.7]``) is unwrapped.  value exactly 0.5 is
unanswered; > 0.5 answers ``Y``, < 0.5 answers ``N`` (the value itself is kept as
``responses.score`` for AUC, Brier and the other PAN measures); an id missing from the
answers is unanswered (no response row).  The run name is the answers file's
parent folder name; judgment set ``gold``.  Blank lines are ignored; JSON
lines have no comments, so a line starting with ``#`` is refused (never
skipped).

JSON is read strictly: an object repeating a key (``{"id": 1, "id": 2}``) is
an error (Python would silently keep the last value), as is a number Python
cannot hold (more than 4300 digits) or nesting deeper than the recursion
limit.  Integers are compared exactly (``10**400`` is out of range, not a
float overflow).

PAN 2014-2015 text format (the answers those years' submissions made, read by
the organizers' ``pan14_authorship_verification_eval.m`` /
``pan15_...``): ``answers.txt`` holds one ``PROBLEM SCORE`` line per problem
(white-space separated, the score a plain decimal number in [0, 1], 0.5 = no
answer), ``truth.txt`` one ``PROBLEM Y|N`` line per problem.  A file whose
first non-blank line does not start with ``{`` is read in this format; the
same rules apply (unknown or repeated problems, values outside [0, 1] are
errors at their line).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterator
from pathlib import Path

import polars as pl

from ..errors import InputError
from ..tables import conform
from . import _pan_columns
from ._text import data_lines
from ._words import control_character, end_of_file

JUDGMENT_SET = "gold"
OPTIONS = (("Y", "same author"), ("N", "different authors"))
"""The options of every problem, in order: Y (same author), N (different authors)."""


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _records(path: str | Path, fields: tuple[str, ...]):
    n = 0
    for no, line in data_lines(path, comments=False):
        if line.lstrip().startswith("#"):
            raise InputError(path, f"line {no}", "a line starting with '#': JSON lines have "
                             "no comment lines", "remove the line (or write it as JSON)")
        try:
            rec = json.loads(line, object_pairs_hook=_no_duplicates)
        except _DuplicateKey as exc:
            raise InputError(path, f"line {no}", f"the key {exc.args[0]!r} appears twice in "
                             "one object", "give every key once per object") from exc
        except json.JSONDecodeError as exc:
            raise InputError(path, f"line {no}", f"not valid JSON ({exc.msg})",
                             "write one JSON object per line") from exc
        except (ValueError, RecursionError) as exc:
            # e.g. an integer of more than 4300 digits, or nesting too deep
            raise InputError(path, f"line {no}", f"unreadable JSON ({exc})",
                             "write one flat JSON object per line") from exc
        if not isinstance(rec, dict) or any(f not in rec for f in fields):
            raise InputError(path, f"line {no}", f"a line without the fields {list(fields)}",
                             "write objects like " + ", ".join(f'"{f}": ...' for f in fields))
        n += 1
        yield no, rec
    if n == 0:
        raise InputError(path, end_of_file(path), "the file has no data lines",
                         "write one JSON object per line")


#: a plain decimal number (optional sign, point, exponent): the text format's score
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def is_text_format(path: str | Path) -> bool:
    """True when ``path`` is in the PAN 2014-2015 text format: by its name
    (``*.jsonl`` is JSON lines, ``*.txt`` text, either maybe ``.gz``), else by
    its first non-blank line (text unless it starts with ``{``)."""
    name = Path(path).name.lower().removesuffix(".gz")
    if name.endswith((".jsonl", ".txt")):
        return name.endswith(".txt")
    for _no, line in data_lines(path, comments=False):
        return not line.lstrip().startswith("{")
    return False  # no data lines: the JSON reader says so


def _text_records(path: str | Path, what: str, example: str) -> Iterator[tuple[int, str, str]]:
    """``(line, problem, field)`` of a PAN 2014-2015 text file (two fields a line)."""
    n = 0
    for no, line in data_lines(path, comments=False):
        parts = line.split()
        if len(parts) != 2:
            raise InputError(path, f"line {no}", f"{len(parts)} fields, expected 2 "
                             f"(PROBLEM {what})", f"write one `{example}` line per problem "
                             "(PAN 2014-2015 text format), or JSON lines")
        n += 1
        yield no, parts[0], parts[1]
    if n == 0:
        raise InputError(path, end_of_file(path), "the file has no data lines",
                         f"write one `{example}` line per problem")


def _truth_rows(path: str | Path) -> Iterator[tuple[int, str, object]]:
    """``(line, problem id, same)`` of a truth file (JSON lines or text)."""
    if is_text_format(path):
        for no, qid, label in _text_records(path, "Y|N", "EN001 Y"):
            same = {"Y": True, "N": False}.get(label)
            yield no, qid, (label if same is None else same)
        return
    for no, rec in _records(path, ("id", "same")):
        yield no, _qid(path, no, rec), rec["same"]


def _answer_rows(path: str | Path) -> Iterator[tuple[int, str, object, object]]:
    """``(line, problem id, value, value as written)`` of an answers file."""
    if is_text_format(path):
        for no, qid, field in _text_records(path, "SCORE", "EN001 0.73"):
            if not _DECIMAL.fullmatch(field):
                raise InputError(path, f"line {no}", f"score {_short(field)} is not a plain "
                                 "decimal number", "give a score between 0 and 1 "
                                 "(0.5 = no answer)")
            yield no, qid, float(field), field
        return
    for no, rec in _records(path, ("id", "value")):
        value = rec["value"]
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
        yield no, _qid(path, no, rec), value, rec["value"]


def _qid(path, no: int, rec: dict) -> str:
    qid = rec["id"]
    if isinstance(qid, bool) or not isinstance(qid, str | int) or str(qid) == "":
        raise InputError(path, f"line {no}", f"id {qid!r} is not a string or integer",
                         "give every problem a string id")
    bad = control_character(str(qid))
    if bad is not None:
        raise InputError(path, f"line {no}", f"id {_short(qid)} holds a {bad}, which would "
                         "split the id in tab-separated output", "remove the character")
    return str(qid)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:30]}... ({len(text)} characters)"


def run_name(path: str | Path) -> str:
    """The run name of an answers file: the name of the folder it resolves into
    (``os.path.realpath``, which does not raise on a symlink loop; the read
    itself reports the loop)."""
    return Path(os.path.realpath(path)).parent.name


def read_truth(path: str | Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Read ``truth.jsonl`` (or a PAN 2014-2015 ``truth.txt``) -> ``(questions, options)``.

    JSON lines in the canonical shape are read on columns (:mod:`._pan_columns`);
    any other file, or one that fails a check, line by line."""
    fast = None if is_text_format(path) else _pan_columns.truth(path, OPTIONS)
    if fast is not None:
        return fast
    qrows, orows = [], []
    seen: dict[str, int] = {}
    for no, qid, same in _truth_rows(path):
        if qid in seen:
            raise InputError(path, f"line {no}", f"problem {qid} appears twice (first at line {seen[qid]})",
                             "give every problem one line")
        seen[qid] = no
        if not isinstance(same, bool):
            raise InputError(path, f"line {no}", f"same is {_short(same)}",
                             "write true or false (text format: Y or N)")
        qrows.append({"qid": qid, "qtype": "VERIFICATION", "position": len(qrows) + 1})
        for option, text in OPTIONS:
            orows.append({"qid": qid, "option": option, "text": text,
                          "correct": same if option == "Y" else not same, "is_noa": False})
    return (conform("questions", pl.DataFrame(qrows, schema_overrides={"position": pl.Int32}),
                           str(path)),
            conform("options", pl.DataFrame(orows), str(path)))


def read_answers(path: str | Path, questions: pl.DataFrame,
                 options: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Read one run's ``answers.jsonl`` (or PAN 2014-2015 ``answers.txt``) ->
    ``(responses, judgments)`` judged against the truth (on columns in the
    canonical case, as :func:`read_truth`)."""
    path = Path(path)
    run = run_name(path)
    fast = None if is_text_format(path) else \
        _pan_columns.answers(path, run, questions, options, JUDGMENT_SET)
    if fast is not None:
        return fast
    known = set(questions["qid"].to_list())
    truth = {q: o for q, o, c in options.select("qid", "option", "correct").iter_rows() if c}
    rrows, jrows = [], []
    seen: dict[str, int] = {}
    for no, qid, value, written in _answer_rows(path):
        if qid not in known:
            raise InputError(path, f"line {no}", f"problem {qid} is not in the truth file",
                             "answer only problems of the truth file")
        if qid in seen:
            raise InputError(path, f"line {no}", f"problem {qid} answered twice (first at line {seen[qid]})",
                             "give one line per problem")
        seen[qid] = no
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or (isinstance(value, float) and not math.isfinite(value)) \
                or not 0 <= value <= 1:
            raise InputError(path, f"line {no}", f"value {_short(written)} is not a number in [0, 1]",
                             "give a score between 0 and 1 (0.5 = no answer)")
        answered = value != 0.5
        answer = ("Y" if value > 0.5 else "N") if answered else None
        rrows.append({"run": run, "qid": qid, "item": 1, "rank": len(rrows) + 1,
                      "answer": answer, "answered": answered, "nil": False,
                      "score": float(value)})
        judgment = None if answer is None else ("R" if truth.get(qid) == answer else "W")
        jrows.append({"judgment_set": JUDGMENT_SET, "run": run, "qid": qid, "item": 1,
                      "judgment": judgment})
    schema = {"item": pl.Int32, "rank": pl.Int32, "answer": pl.String, "score": pl.Float64}
    return (conform("responses", pl.DataFrame(rrows, schema_overrides=schema), str(path)),
            conform("judgments", pl.DataFrame(
                jrows, schema_overrides={"item": pl.Int32, "judgment": pl.String}), str(path)))
