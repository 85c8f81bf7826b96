"""CLEF QA4MRE (2011-2013) gold standard / test set and run XML.

Gold / test set::

    <test-set><topic t_id t_name><reading-test r_id><doc d_id>...</doc>
      <q q_id [aux_of|main_q_id]><q_str>...</q_str>
        <answer a_id [correct="Yes"]>text</answer> ...</q> ...

Canonical ids: question ``t_id.r_id.q_id``, reading test ``t_id.r_id``, topic
``t_id``; the topic's ``t_name`` ("AIDS", "Climate Change") is kept as
``topic_name`` (null when absent).  An option whose text is "None of the above" (any case, one-letter typos tolerated) has
``is_noa = true``.  Questions numbered above ``main_questions`` (default 15)
are auxiliary; ``auxiliary_of`` is ``t_id.r_id.<aux_of>`` when the ``<q>``
has an ``aux_of`` or ``main_q_id`` attribute, else null.  A test set without
gold gives ``correct = false`` everywhere.  At most one option per question
may be correct.

Run::

    <output run_id><topic t_id><reading-test r_id>
      <question q_id answered="YES|NO"><answer a_id/></question> ...

``answered="NO"`` with an ``<answer>`` gives the hypothetical candidate.
Judgments (judgment set ``gold``) compare the answer, or the candidate of an
unanswered question, with the gold: R or W; null for an unanswered question
without candidate.

Strict structure and ids (docs/formats.md, "QA4MRE"): each element directly
in its parent (``<topic>`` in the root, ``<reading-test>`` in a topic, the
question in a reading test, ``<answer>`` in its question); ``q_id`` in ASCII
digits, unique by value per reading test; joined ids unique (topic ``1`` /
test ``1.1`` and topic ``1.1`` / test ``1`` collide); a run question in the
topic and test the gold gives it; ``correct`` one of :data:`CORRECT_VALUES`.
Error places carry the element's line.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from xml.etree.ElementTree import Element

import polars as pl

from ..errors import InputError
from ..tables import conform
from ._words import control_character, norm_space
from ._xml import all_text, describe, parse_xml_lines

JUDGMENT_SET = "gold"
NOA_TEXT = "none of the above"


def is_noa_text(text: str) -> bool:
    """True if an option's text is "None of the above" (any case; a one-letter
    typo such as the real 2013 file's "none of the aboe" is tolerated)."""
    t = norm_space(text).lower().rstrip(".")
    return t == NOA_TEXT or (
        abs(len(t) - len(NOA_TEXT)) <= 1
        and difflib.SequenceMatcher(None, t, NOA_TEXT).ratio() >= 0.94)


CORRECT_VALUES = {"yes": True, "true": True, "1": True, "no": False, "false": False, "0": False}
"""Accepted values of the gold ``correct`` attribute (any case, surrounding
blanks ignored); the real files use ``correct="Yes"``.  Any other value (e.g.
``Y``) is refused, never read as "not correct"."""

_GOLD_NESTING = {"topic": None, "reading-test": "topic", "q": "reading-test", "answer": "q"}
_RUN_NESTING = {"topic": None, "reading-test": "topic", "question": "reading-test",
                "answer": "question"}
"""Element -> the element it must sit directly in (None: the root)."""


class _Doc:
    """A parsed QA4MRE file: its root, and places for error messages
    (``line N, <q q_id='1'> in <reading-test r_id='2'> in <topic t_id='1'>``)."""

    def __init__(self, path: str | Path, nesting: dict[str, str | None]):
        self.path = path
        self.root, self._lines = parse_xml_lines(path)
        self.places: dict[str, str] = {}  # question id -> its place
        self._check_nesting(nesting)

    def at(self, elem: Element, where: str) -> str:
        line = self._lines.get(id(elem))
        return f"line {line}, {where}" if line is not None else where

    def id(self, elem: Element, attr: str, where: str) -> str:
        value = (elem.get(attr) or "").strip()
        if not value:
            raise InputError(self.path, self.at(elem, where),
                             f"<{elem.tag}> without the {attr} attribute",
                             f"give every <{elem.tag}> its {attr}")
        bad = control_character(value)
        if bad is not None:
            raise InputError(self.path, self.at(elem, where),
                             f"{attr} {value!r} holds a {bad}, which would split the id in "
                             "tab-separated output", f"remove the character from the {attr}")
        return value

    def root_place(self) -> str:
        """The place of the root element (errors about the whole file, e.g. its run)."""
        return self.at(self.root, f"<{self.root.tag}>")

    def number(self, elem: Element, attr: str, where: str, seen: dict[int, str]) -> str:
        """A question number: ASCII digits, unique by value among ``seen``."""
        value = self.id(elem, attr, where)
        if not (value.isascii() and value.isdigit()):
            raise InputError(self.path, self.at(elem, where),
                             f"{attr} '{value}' is not a number (ASCII digits)",
                             "number the questions 1, 2, 3, ...")
        n = int(value)
        if n in seen:
            raise InputError(self.path, self.at(elem, where),
                             f"question {value} appears twice in the reading test"
                             + (f" (as {attr}='{seen[n]}')" if seen[n] != value else ""),
                             "give every question of a reading test its own number")
        seen[n] = value
        return value

    def _check_nesting(self, nesting: dict[str, str | None]) -> None:
        root = self.root
        if root.tag in nesting:
            raise InputError(self.path, self.at(root, f"<{root.tag}>"),
                             f"the root element is <{root.tag}>",
                             "wrap the topics in the file's root element (see docs/formats.md)")
        for parent in root.iter():
            for child in parent:
                if child.tag not in nesting:
                    continue
                want = nesting[child.tag]
                ok = parent is root if want is None else parent.tag == want
                if not ok:
                    inside = "the root element" if want is None else f"a <{want}>"
                    raise InputError(self.path, self.at(child, f"{describe(child)} in "
                                                               f"{describe(parent)}"),
                                     f"a <{child.tag}> inside <{parent.tag}>",
                                     f"put every <{child.tag}> directly inside {inside}")


def _correct(doc: _Doc, ans: Element, where: str) -> bool:
    raw = ans.get("correct")
    if raw is None:
        return False
    value = CORRECT_VALUES.get(raw.strip().lower())
    if value is None:
        raise InputError(doc.path, doc.at(ans, where), f"correct='{raw}' is not an accepted value",
                         'mark the right option correct="Yes" (accepted: Yes/No, true/false, '
                         "1/0 in any case) or leave the attribute out")
    return value


def read_gold(path: str | Path, main_questions: int = 15, language: str = "EN",
              require_correct: bool = False) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Read a QA4MRE gold standard or test set -> ``(questions, options)``.

    Structure: ``<topic>`` directly in the root, ``<reading-test>`` in a topic,
    ``<q>`` in a reading test, ``<answer>`` in a ``<q>``; anything else is an
    error.  The joined ids must be unique: topic ``1`` / test ``1.1`` and topic
    ``1.1`` / test ``1`` both join to ``1.1.1`` and are refused.

    A gold standard (a file marking any option correct) must mark one option
    correct in every question: a question without one is refused, naming it
    (every answer to it would be scored wrong).  A test set without gold (no
    option correct anywhere) is read as such, unless ``require_correct`` (runs
    are to be scored against it), when it is refused too."""
    doc = _Doc(path, _GOLD_NESTING)
    qrows: list[dict] = []
    orows: list[dict] = []
    topics: set[str] = set()
    joined: dict[str, tuple[str, str]] = {}
    for topic in doc.root.iter("topic"):
        wt = describe(topic, "t_id")
        t_id = doc.id(topic, "t_id", wt)
        if t_id in topics:
            raise InputError(path, doc.at(topic, wt), f"topic {t_id} appears twice",
                             "give every topic its own t_id")
        topics.add(t_id)
        t_name = norm_space(topic.get("t_name") or "") or None
        for rt in topic.iter("reading-test"):
            wr = f"{describe(rt, 'r_id')} in {wt}"
            r_id = doc.id(rt, "r_id", wr)
            test = f"{t_id}.{r_id}"
            if test in joined:
                t0, r0 = joined[test]
                problem = (f"reading test {r_id} appears twice in topic {t_id}" if t0 == t_id
                           else f"topic '{t_id}' reading test '{r_id}' and topic '{t0}' reading "
                                f"test '{r0}' both join to the id {test}")
                raise InputError(path, doc.at(rt, wr), problem,
                                 "give every reading test of a topic its own r_id (and avoid "
                                 "dots in t_id and r_id)")
            joined[test] = (t_id, r_id)
            seen_q: dict[int, str] = {}
            for q in rt.iter("q"):
                wq = f"{describe(q, 'q_id')} in {wr}"
                q_id = doc.number(q, "q_id", wq, seen_q)
                qid = f"{test}.{q_id}"
                aux = (q.get("aux_of") or q.get("main_q_id") or "").strip()
                auxiliary_of = f"{test}.{aux}" if aux and int(q_id) > main_questions else None
                q_str = q.find("q_str")
                text = norm_space(all_text(q_str)) if q_str is not None else ""
                qrows.append({"qid": qid, "qtype": "MC", "topic": t_id, "topic_name": t_name,
                              "test": test,
                              "language": language, "auxiliary_of": auxiliary_of,
                              "position": len(qrows) + 1, "text": text})
                orows += _options(doc, q, qid, wq)
                doc.places[qid] = doc.at(q, wq)
    if not qrows:
        raise InputError(path, doc.at(doc.root, f"<{doc.root.tag}>"), "no <q> questions found",
                         "check that this is a QA4MRE gold standard or test set")
    _check_gold(doc, orows, require_correct)
    questions = pl.DataFrame(qrows, schema_overrides={"position": pl.Int32,
                                                      "auxiliary_of": pl.String,
                                                      "topic_name": pl.String})
    return (conform("questions", questions, str(path)),
            conform("options", pl.DataFrame(orows), str(path)))


def _check_gold(doc: _Doc, orows: list[dict], require_correct: bool) -> None:
    """Every question of a gold standard has a correct option (read_gold)."""
    with_correct = {r["qid"] for r in orows if r["correct"]}
    if not with_correct and not require_correct:
        return  # a test set without gold
    missing = [q for q in doc.places if q not in with_correct]
    if not missing:
        return
    if not with_correct:
        raise InputError(doc.path, doc.places[missing[0]], "no option of any question is marked "
                         "correct: this is a test set without gold, and runs cannot be scored "
                         "against it", 'give the gold standard (the file marking the right '
                         'option of each question correct="Yes")')
    raise InputError(doc.path, doc.places[missing[0]],
                     f"question {missing[0]} has no option marked correct (the gold standard "
                     f"marks one in {len(with_correct)} questions; {len(missing)} have none), "
                     "so every answer to it would be scored wrong",
                     'mark its right option correct="Yes", or remove the question from the '
                     "gold standard")


def _options(doc: _Doc, q: Element, qid: str, wq: str) -> list[dict]:
    answers = q.findall("answer")
    if not answers:
        raise InputError(doc.path, doc.at(q, wq), "a question without <answer> options",
                         "give every <q> its <answer a_id> options")
    rows = []
    seen_a: set[str] = set()
    n_correct = 0
    for ans in answers:
        wa = f"{describe(ans, 'a_id')} in {wq}"
        a_id = doc.id(ans, "a_id", wa)
        if a_id in seen_a:
            raise InputError(doc.path, doc.at(ans, wa), f"option {a_id} appears twice",
                             "give every option of a question its own a_id")
        seen_a.add(a_id)
        correct = _correct(doc, ans, wa)
        n_correct += correct
        atext = norm_space(all_text(ans))
        rows.append({"qid": qid, "option": a_id, "text": atext, "correct": correct,
                     "is_noa": is_noa_text(atext)})
    if n_correct > 1:
        raise InputError(doc.path, doc.at(q, wq), f"{n_correct} options marked correct",
                         "mark exactly one option correct=\"Yes\"")
    return rows


def run_place(path: str | Path) -> str:
    """The place of a run file's ``<output run_id>`` element (for errors about
    the run as a whole; the XML is decoded as it declares)."""
    return _Doc(path, _RUN_NESTING).root_place()


def read_run(path: str | Path, questions: pl.DataFrame,
             options: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Read a QA4MRE run XML -> ``(responses, judgments)`` judged against ``options``.

    Structure as in the gold (``<question>`` directly in a ``<reading-test>``
    ...); each question must sit in the topic and reading test the gold
    gives it."""
    doc = _Doc(path, _RUN_NESTING)
    root = doc.root
    if root.tag != "output":
        raise InputError(path, doc.at(root, f"<{root.tag}>"), "the root element is not <output>",
                         "write runs as <output run_id><topic t_id><reading-test r_id>"
                         "<question q_id answered>...")
    run = doc.id(root, "run_id", "<output>")
    place = {q: (t, r) for q, t, r in questions.select("qid", "topic", "test").iter_rows()}
    gold: dict[tuple[str, str], bool] = {
        (q, o): bool(c) for q, o, c in options.select("qid", "option", "correct").iter_rows()}
    rrows: list[dict] = []
    jrows: list[dict] = []
    seen: set[str] = set()
    for topic in root.iter("topic"):
        wt = describe(topic, "t_id")
        t_id = doc.id(topic, "t_id", wt)
        for rt in topic.iter("reading-test"):
            wr = f"{describe(rt, 'r_id')} in {wt}"
            test = f"{t_id}.{doc.id(rt, 'r_id', wr)}"
            seen_q: dict[int, str] = {}
            for q in rt.iter("question"):
                wq = f"{describe(q, 'q_id')} in {wr}"
                at = doc.at(q, wq)
                qid = f"{test}.{doc.number(q, 'q_id', wq, seen_q)}"
                if qid not in place:
                    raise InputError(path, at, f"question {qid} is not in the gold standard",
                                     "answer only questions of the test set (check t_id, r_id, q_id)")
                if place[qid] != (t_id, test):
                    raise InputError(path, at, f"question {qid} is in topic '{place[qid][0]}' "
                                     f"reading test '{place[qid][1]}' of the gold standard, "
                                     f"not in topic '{t_id}' reading test '{test}'",
                                     "use the gold standard's t_id and r_id")
                if qid in seen:
                    raise InputError(path, at, f"question {qid} is answered twice",
                                     "give one <question> element per question")
                seen.add(qid)
                resp, judgment = _response(doc, q, qid, at, wq, gold)
                rrows.append({"run": run, "rank": len(rrows) + 1, **resp})
                jrows.append({"judgment_set": JUDGMENT_SET, "run": run, "qid": qid, "item": 1,
                              "judgment": judgment})
    if not rrows:
        raise InputError(path, doc.at(root, "<output>"), "the run answers no question",
                         "give <question q_id answered> elements")
    schema = {"item": pl.Int32, "rank": pl.Int32, "answer": pl.String,
              "candidate": pl.String}
    return (conform("responses", pl.DataFrame(rrows, schema_overrides=schema), str(path)),
            conform("judgments", pl.DataFrame(
                jrows, schema_overrides={"item": pl.Int32, "judgment": pl.String}), str(path)))


def _response(doc: _Doc, q: Element, qid: str, at: str, wq: str,
              gold: dict[tuple[str, str], bool]) -> tuple[dict, str | None]:
    path = doc.path
    flag = (q.get("answered") or "").strip().upper()
    if flag not in ("YES", "NO"):
        raise InputError(path, at, f"answered='{q.get('answered')}'",
                         "set answered to YES or NO")
    answers = q.findall("answer")
    if len(answers) > 1:
        raise InputError(path, at, f"{len(answers)} <answer> elements",
                         "give at most one <answer a_id> per question")
    a_id = None
    if answers:
        a_id = doc.id(answers[0], "a_id", f"<answer> in {wq}")
        if (qid, a_id) not in gold:
            raise InputError(path, at, f"option {a_id} does not exist for {qid}",
                             "choose one of the question's a_id values")
    if flag == "YES" and a_id is None:
        raise InputError(path, at, "answered=\"YES\" without an <answer a_id>",
                         "give the chosen option, or set answered=\"NO\"")
    answered = flag == "YES"
    judgment = None if a_id is None else ("R" if gold[(qid, a_id)] else "W")
    return ({"qid": qid, "item": 1, "answer": a_id if answered else None, "answered": answered,
             "candidate": None if answered else a_id, "nil": False}, judgment)
