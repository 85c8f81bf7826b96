"""TREC answer keys.

* Nugget list (``trecNNanswers_other``)::

      Qid 1.6: 'other' question for target Crips
      1.6 1<TAB>okay<TAB>Crips slang for Bloods - slobs

  The qid of a nugget line must be the one of the preceding ``Qid`` header.
* Pyramid weights (``trecNNanswers_other_pyramid``, 2006-2007):
  ``qid<TAB>nugget<TAB>weight<TAB>text``, weight in [0, 1].  ``vital`` is
  null (the pyramid file does not say it).
* List answer key (``trecNNanswers_list``): ``# qid`` header, a ``Q:`` line
  with the question, then one known instance per line.
* Answer patterns (``trecNNpatterns*``): ``qid pattern`` (space after the qid)
  or ``qid<TAB>pattern``.  The ``+docs`` variants add supporting docids: after
  a tab (``qid<TAB>pattern<TAB>docid docid``) or, in the space-separated files,
  as trailing tokens shaped like TREC docids (``APW19980705.0043``).  One row
  per (qid, pattern, docid); docid null when none is given (a docid field
  reading ``none`` also means none).

Blank lines are ignored.

Each file is read on columns in batches of whole lines (:mod:`._key_columns`);
a file failing a check there is read line by line (``*_by_line``), which
reports the first offending line, so errors are the line reader's.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import polars as pl

from ..errors import InputError
from ..tables import SCHEMAS, conform
from . import _key_columns
from ._text import data_lines, iter_lines
from ._words import end_of_file

_QID_HEADER = re.compile(r"^Qid\s+(\S+?):")
_DOCID = re.compile(r"^[A-Z][A-Z_]*\d{8}\.\d{4}$")


def _nonempty(path, fmt: str) -> InputError:
    return InputError(path, end_of_file(path), "the file has no data lines",
                      f"give the file its content in the format `{fmt}`")


def _dup(path, no: int, what: str, fix: str) -> InputError:
    return InputError(path, f"line {no}", f"duplicate {what}", fix)


def read_nuggets(path: str | Path) -> pl.DataFrame:
    """Read a nugget list into ``nuggets`` (``vital`` set, ``weight`` null)."""
    fast = _key_columns.nuggets(path)
    return fast if fast is not None else nuggets_by_line(path)


def nuggets_by_line(path: str | Path) -> pl.DataFrame:
    """:func:`read_nuggets` line by line: the reader of a file the columnar
    reader refuses, which reports its first offending line."""
    fmt = "qid nugget<TAB>vital|okay<TAB>text under `Qid N.M:` headers"
    rows = []
    seen: set[tuple[str, str]] = set()
    current: str | None = None
    for no, line in data_lines(path, comments=False):
        m = _QID_HEADER.match(line)
        if m:
            current = m.group(1)
            continue
        parts = line.split("\t")
        head = parts[0].split()
        if len(parts) < 3 or len(head) != 2:
            raise InputError(path, f"line {no}", "malformed nugget line",
                             f"write nugget lines as `{fmt}`")
        qid, nugget = head
        label = parts[1].strip().lower()
        if label not in ("vital", "okay"):
            raise InputError(path, f"line {no}", f"unknown nugget label '{parts[1]}'",
                             "label every nugget vital or okay")
        if current is None or qid != current:
            raise InputError(path, f"line {no}",
                             f"nugget of question {qid} under the header of "
                             f"{current or 'no question'}",
                             "put each question's nuggets under its `Qid N.M:` header")
        if (qid, nugget) in seen:
            raise _dup(path, no, f"nugget {qid} {nugget}", "number each question's nuggets once")
        seen.add((qid, nugget))
        rows.append({"qid": qid, "nugget": nugget, "vital": label == "vital",
                     "text": "\t".join(parts[2:]).strip()})
    if not rows:
        raise _nonempty(path, fmt)
    return conform("nuggets", pl.DataFrame(rows), str(path))


def read_pyramid(path: str | Path) -> pl.DataFrame:
    """Read pyramid nugget weights into ``nuggets`` (``weight`` set, ``vital`` null)."""
    fast = _key_columns.pyramid(path)
    return fast if fast is not None else pyramid_by_line(path)


def pyramid_by_line(path: str | Path) -> pl.DataFrame:
    """:func:`read_pyramid` line by line (see :func:`nuggets_by_line`)."""
    fmt = "qid<TAB>nugget<TAB>weight<TAB>text"
    rows = []
    seen: set[tuple[str, str]] = set()
    for no, line in data_lines(path):
        parts = line.split("\t")
        if len(parts) < 4:
            raise InputError(path, f"line {no}", f"expected 4 tab-separated fields, got {len(parts)}",
                             f"write the line as `{fmt}`")
        qid, nugget, weight = parts[0].strip(), parts[1].strip(), parts[2].strip()
        try:
            w = float(weight)
        except ValueError:
            w = math.nan
        if not 0.0 <= w <= 1.0:
            raise InputError(path, f"line {no}", f"weight '{weight}' is not a number in [0, 1]",
                             "give a weight between 0 and 1")
        if (qid, nugget) in seen:
            raise _dup(path, no, f"nugget {qid} {nugget}", "give each nugget one line")
        seen.add((qid, nugget))
        rows.append({"qid": qid, "nugget": nugget, "weight": w,
                     "text": "\t".join(parts[3:]).strip()})
    if not rows:
        raise _nonempty(path, fmt)
    return conform("nuggets", pl.DataFrame(rows), str(path))


def read_list_key(path: str | Path) -> pl.DataFrame:
    """Read a list answer key into ``list_key`` (one row per known instance;
    an instance repeated for one question is kept once)."""
    fast = _key_columns.list_key(path)
    return fast if fast is not None else list_key_by_line(path)


def list_key_by_line(path: str | Path) -> pl.DataFrame:
    """:func:`read_list_key` line by line (see :func:`nuggets_by_line`)."""
    fmt = "`# qid` header, `Q:` question line, one instance per line"
    rows = []
    seen: set[tuple[str, str]] = set()
    heads: set[str] = set()
    current: str | None = None
    for no, line in iter_lines(path):
        text = line.strip()
        if not text:
            continue
        if text.startswith("#"):
            qid = text[1:].strip()
            if not qid:
                raise InputError(path, f"line {no}", "a `#` header without a question id",
                                 f"use the layout {fmt}")
            if qid in heads:
                raise _dup(path, no, f"header for question {qid}",
                           "give each question one `# qid` block")
            heads.add(qid)
            current = qid
            continue
        if text.startswith("Q:"):
            continue
        if current is None:
            raise InputError(path, f"line {no}", "an instance before the first `# qid` header",
                             f"use the layout {fmt}")
        if (current, text) not in seen:
            seen.add((current, text))
            rows.append({"qid": current, "instance": text})
    if not rows:
        raise _nonempty(path, fmt)
    return conform("list_key", pl.DataFrame(rows), str(path))


def _pattern_line(line: str) -> tuple[str, str, list[str]]:
    """``(qid, pattern, docids)`` of one answer-pattern line."""
    line = line.rstrip()
    if "\t" in line:
        parts = line.split("\t")
        qid, pattern = parts[0].strip(), parts[1].strip() if len(parts) > 1 else ""
        docids = [d for d in " ".join(parts[2:]).split() if d.lower() != "none"]
        return qid, pattern, docids
    head, _, rest = line.strip().partition(" ")
    tokens = rest.strip().split(" ")
    docids = []
    while len(tokens) > 1 and _DOCID.match(tokens[-1]):
        docids.insert(0, tokens.pop())
    return head, " ".join(tokens).strip(), docids


def read_patterns(path: str | Path) -> pl.DataFrame:
    """Read an answer-pattern file (with or without supporting docids) into ``patterns``."""
    fast = _key_columns.patterns(path)
    return fast if fast is not None else patterns_by_line(path)


def patterns_by_line(path: str | Path) -> pl.DataFrame:
    """:func:`read_patterns` line by line (see :func:`nuggets_by_line`)."""
    fmt = "qid pattern [docid ...]` or `qid<TAB>pattern[<TAB>docid ...]"
    rows = []
    for no, line in data_lines(path, comments=False):
        qid, pattern, docids = _pattern_line(line)
        if not qid or not pattern:
            raise InputError(path, f"line {no}", "a line without a qid and a pattern",
                             f"write the line as `{fmt}`")
        for docid in docids or [None]:
            rows.append({"qid": qid, "pattern": pattern, "docid": docid})
    if not rows:
        raise _nonempty(path, fmt)
    return conform("patterns", pl.DataFrame(rows, schema=SCHEMAS["patterns"]),
                          str(path))


def pattern_line(path: str | Path, qid: str, pattern: str) -> int | None:
    """The first line of the pattern file ``path`` giving ``pattern`` for ``qid``."""
    for no, line in data_lines(path, comments=False):
        q, p, _docids = _pattern_line(line)
        if q == qid and p == pattern:
            return no
    return None
