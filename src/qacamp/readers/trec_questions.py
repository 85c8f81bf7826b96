"""TREC question files.

* TREC 2002-2003 ``<top>`` SGML (``trec11questions``)::

      <top>
      <num> Number: 1394
      <desc> Description:
      In what country did the game of croquet originate?
      </top>

  -> questions with the given qtype (FACTOID by default; LIST for the
  companion list-question file), no series.  A block with a ``<type>`` line
  (``<type> Type: definition``, as ``trec12questions`` has: TREC 2003 tagged
  every question factoid, list or definition) takes its qtype from it:
  FACTOID, LIST or DEFINITION.

* TREC 2004-2007 series XML (``trecNNquestions.xml``)::

      <trecqa year task><target id text><qa><q id type>text</q></qa>...</target>

  preceded by a DOCTYPE with an internal DTD; decoded as the XML declaration
  says (ISO-8859-1).  qtype FACTOID, LIST or OTHER; series = target id.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from ..errors import InputError, UsageError
from ..tables import conform
from ._text import read_bytes, read_lines
from ._words import end_of_file, norm_space
from ._xml import describe, parse_xml

QTYPES = ("FACTOID", "LIST", "OTHER")
#: ``<type>`` of a ``<top>`` block (TREC 2003) -> qtype
TOP_TYPES = {"factoid": "FACTOID", "list": "LIST", "definition": "DEFINITION"}

_TAG = re.compile(r"<(/?)top>", re.I)
_NUM = re.compile(r"<num>[ \t]*(?:Number:)?[ \t]*([^\s<]*)", re.I)  # within its line
_DESC = re.compile(r"<desc>\s*(?:Description:)?(.*)", re.S | re.I)
_TYPE = re.compile(r"<type>[ \t]*(?:Type:)?[ \t]*([^\s<]*)[^\n]*", re.I)


def read_top_questions(path: str | Path, qtype: str = "FACTOID",
                       encoding: str = "utf-8") -> pl.DataFrame:
    """Read a ``<top>`` question file (TREC 2002-2003) into ``questions``.

    One pass over the ``<top>``/``</top>`` tags (linear in the file: an
    unclosed or nested ``<top>`` is an error at its line, never a rescan)."""
    if qtype not in QTYPES:
        raise UsageError(f"qtype must be one of {QTYPES}, not {qtype!r}")
    text = "\n".join(read_lines(path, encoding))  # decoded, limits checked
    rows = []
    seen: dict[str, int] = {}
    end = 0  # offset after the last </top>
    pos, line = 0, 1  # line of offset `pos`, advanced incrementally
    open_at: int | None = None
    open_line = 0
    for m in _TAG.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        if not m.group(1):  # <top>
            if open_at is not None:
                raise InputError(path, f"line {line}",
                                 f"a <top> inside the <top> block of line {open_line}, "
                                 "which has no </top>",
                                 "close every <top> block with </top> before the next one")
            if text[end:m.start()].strip():
                raise _bad(path, text, end, "text outside <top> ... </top>")
            open_at, open_line = m.end(), line
            continue
        if open_at is None:
            raise InputError(path, f"line {line}", "a </top> without a <top> before it",
                             "every question must be a <top> ... </top> block")
        rows.append(_question(path, text[open_at:m.start()], open_line, qtype, seen,
                              len(rows) + 1))
        open_at, end = None, m.end()
    if open_at is not None:
        raise InputError(path, f"line {open_line}", "a <top> without </top> (unclosed at the "
                         "end of the file)", "close every <top> block with </top>")
    if text[end:].strip():
        raise _bad(path, text, end, "text outside <top> ... </top>")
    if not rows:
        raise InputError(path, end_of_file(path), "no <top> blocks found",
                         "check that this is a TREC <top> question file")
    df = pl.DataFrame(rows, schema_overrides={"position": pl.Int32})
    return conform("questions", df, str(path))


def _question(path, body: str, line: int, qtype: str, seen: dict[str, int],
              position: int) -> dict:
    num = _NUM.search(body)
    if num is None:
        raise InputError(path, f"line {line}", "a <top> block without <num> Number: ...",
                         "give every <top> block a `<num> Number: N` line")
    qid = num.group(1)
    at = line + body.count("\n", 0, num.start())
    if not qid:
        raise InputError(path, f"line {at}", "the <num> line gives no question number",
                         "write the number on the <num> line: `<num> Number: N`")
    rest = body[num.end():].split("\n", 1)[0].strip()
    if rest and rest.lower() != "</num>":  # (`<num> Number: 1395 1396`: one question, or two?)
        raise InputError(path, f"line {at}", f"the <num> line holds more than a number "
                         f"('{rest[:40]}' after {qid})",
                         "write one number on the <num> line: `<num> Number: N`")
    for tag, pattern in (("num", _NUM), ("type", _TYPE)):
        found = list(pattern.finditer(body))
        if len(found) > 1:  # (the second was ignored: two questions merged in one block?)
            raise InputError(path, f"line {line + body.count(chr(10), 0, found[1].start())}",
                             f"a second <{tag}> line in the <top> block of line {line} "
                             f"(question {qid})",
                             "give every question its own <top> ... </top> block, with one "
                             f"<{tag}> line")
    kind = _TYPE.search(body)
    if kind is not None:  # TREC 2003: the block says its type
        qtype = TOP_TYPES.get(kind.group(1).lower())
        if qtype is None:
            raise InputError(path, f"line {line} (<top> of question {qid})",
                             f"unknown question type '{kind.group(1)}'",
                             f"write `<type> Type: X` with X one of {', '.join(TOP_TYPES)}")
        body = body[:kind.start()] + body[kind.end():]
    desc = _DESC.search(body)
    if desc is None or not norm_space(desc.group(1)):
        raise InputError(path, f"line {line} (<top> of question {qid})",
                         "a <top> block without <desc> question text",
                         "give every <top> block a `<desc> Description:` line followed by "
                         "the question")
    if qid in seen:
        raise InputError(path, f"line {line}",
                         f"question {qid} appears twice (first at line {seen[qid]})",
                         "give every question its own number")
    seen[qid] = line
    return {"qid": qid, "qtype": qtype, "position": position, "text": norm_space(desc.group(1))}


def _bad(path, text: str, offset: int, problem: str) -> InputError:
    rest = text[offset:]
    skip = len(rest) - len(rest.lstrip())
    line = text.count("\n", 0, offset + skip) + 1
    return InputError(path, f"line {line}", problem,
                      "every question must be a <top> ... </top> block")


#: The start of a TREC 2002-2003 question block (a line ``<top>``).
_TOP_LINE = re.compile(rb"^[ \t]*<top>[ \t]*\r?$", re.IGNORECASE | re.MULTILINE)


def read_series_xml(path: str | Path) -> pl.DataFrame:
    """Read a TREC 2004-2007 series XML file into ``questions`` (series = target id).
    A TREC 2002-2003 question file (``<top>`` blocks, not XML) is named as such."""
    try:
        root = parse_xml(path)
    except InputError:
        data = read_bytes(path)
        top = _TOP_LINE.search(data)
        if top is None:
            raise
        line = data.count(b"\n", 0, top.start()) + 1
        raise InputError(path, f"line {line}", "a TREC 2002-2003 question file (<top> blocks), "
                         "not the question-series XML of TREC 2004-2007",
                         "give the series campaign its XML file (<trecqa> with <target> "
                         "elements), or read this file with kind trec-factoid") from None
    rows = []
    seen: set[str] = set()
    targets = list(root.iter("target"))
    if not targets:
        raise InputError(path, f"<{root.tag}>", "no <target> elements",
                         "check that this is a TREC question-series XML file")
    seen_targets: set[str] = set()
    for target in targets:
        tid = (target.get("id") or "").strip()
        where_t = describe(target, "id")
        if not tid:
            raise InputError(path, where_t, "a <target> without an id attribute",
                             "give every <target> an id")
        if tid in seen_targets:
            raise InputError(path, where_t, f"target id {tid} appears twice",
                             "give every target its own id")
        seen_targets.add(tid)
        qs = list(target.iter("q"))
        if not qs:
            raise InputError(path, where_t, "a target without questions",
                             "give the target <qa><q id type>...</q></qa> elements")
        for q in qs:
            qid = (q.get("id") or "").strip()
            where = f"{describe(q, 'id')} in {where_t}"
            if not qid:
                raise InputError(path, where, "a <q> without an id attribute",
                                 "give every <q> an id such as 1.1")
            qtype = (q.get("type") or "").strip().upper()
            if qtype not in QTYPES:
                raise InputError(path, where, f"unknown question type '{q.get('type')}'",
                                 f"use one of {', '.join(QTYPES)}")
            if qid in seen:
                raise InputError(path, where, f"question id {qid} appears twice",
                                 "give every question its own id")
            seen.add(qid)
            rows.append({"qid": qid, "qtype": qtype, "series": tid,
                         "position": len(rows) + 1, "text": norm_space(q.text)})
    df = pl.DataFrame(rows, schema_overrides={"position": pl.Int32})
    return conform("questions", df, str(path))
