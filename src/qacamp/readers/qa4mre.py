"""CLEF QA4MRE (2011-2013) gold standard / test set and run XML.

Gold / test set::

    <test-set><topic t_id t_name><reading-test r_id><doc d_id>...</doc>
      <q q_id [aux_of|main_q_id]><q_str>...</q_str>
        <answer a_id [correct="Yes"]>text</answer> ...</q> ...

Canonical ids: question ``t_id.r_id.q_id``, reading test ``t_id.r_id``, topic
``t_id``.  An option whose text is "None of the above" (any case, one-letter typos tolerated) has
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
"""

from __future__ import annotations

import difflib
from pathlib import Path
from xml.etree.ElementTree import Element

import polars as pl

from .. import tables
from ..errors import InputError
from ._text import all_text, describe, norm_space, parse_xml

JUDGMENT_SET = "gold"
NOA_TEXT = "none of the above"


def is_noa_text(text: str) -> bool:
    """True if an option's text is "None of the above" (any case; a one-letter
    typo such as the real 2013 file's "none of the aboe" is tolerated)."""
    t = norm_space(text).lower().rstrip(".")
    return t == NOA_TEXT or (
        abs(len(t) - len(NOA_TEXT)) <= 1
        and difflib.SequenceMatcher(None, t, NOA_TEXT).ratio() >= 0.94)


def _id(path, elem: Element, attr: str, where: str) -> str:
    value = (elem.get(attr) or "").strip()
    if not value:
        raise InputError(path, where, f"<{elem.tag}> without the {attr} attribute",
                         f"give every <{elem.tag}> its {attr}")
    return value


def read_gold(path: str | Path, main_questions: int = 15,
              language: str = "EN") -> tuple[pl.DataFrame, pl.DataFrame]:
    """Read a QA4MRE gold standard or test set -> ``(questions, options)``."""
    root = parse_xml(path)
    qrows: list[dict] = []
    orows: list[dict] = []
    topics: set[str] = set()
    for topic in root.iter("topic"):
        wt = describe(topic, "t_id")
        t_id = _id(path, topic, "t_id", wt)
        if t_id in topics:
            raise InputError(path, wt, f"topic {t_id} appears twice", "give every topic its own t_id")
        topics.add(t_id)
        tests: set[str] = set()
        for rt in topic.iter("reading-test"):
            wr = f"{describe(rt, 'r_id')} in {wt}"
            r_id = _id(path, rt, "r_id", wr)
            if r_id in tests:
                raise InputError(path, wr, f"reading test {r_id} appears twice in topic {t_id}",
                                 "give every reading test of a topic its own r_id")
            tests.add(r_id)
            test = f"{t_id}.{r_id}"
            seen_q: set[str] = set()
            for q in rt.iter("q"):
                wq = f"{describe(q, 'q_id')} in {wr}"
                q_id = _id(path, q, "q_id", wq)
                if q_id in seen_q:
                    raise InputError(path, wq, f"question {q_id} appears twice in reading test {test}",
                                     "give every question of a reading test its own q_id")
                seen_q.add(q_id)
                try:
                    q_num = int(q_id)
                except ValueError as exc:
                    raise InputError(path, wq, f"q_id '{q_id}' is not an integer",
                                     "number the questions 1, 2, 3, ...") from exc
                qid = f"{test}.{q_id}"
                aux = (q.get("aux_of") or q.get("main_q_id") or "").strip()
                auxiliary_of = f"{test}.{aux}" if aux and q_num > main_questions else None
                q_str = q.find("q_str")
                text = norm_space(all_text(q_str)) if q_str is not None else ""
                qrows.append({"qid": qid, "qtype": "MC", "topic": t_id, "test": test,
                              "language": language, "auxiliary_of": auxiliary_of,
                              "position": len(qrows) + 1, "text": text})
                answers = q.findall("answer")
                if not answers:
                    raise InputError(path, wq, "a question without <answer> options",
                                     "give every <q> its <answer a_id> options")
                seen_a: set[str] = set()
                n_correct = 0
                for ans in answers:
                    wa = f"{describe(ans, 'a_id')} in {wq}"
                    a_id = _id(path, ans, "a_id", wa)
                    if a_id in seen_a:
                        raise InputError(path, wa, f"option {a_id} appears twice",
                                         "give every option of a question its own a_id")
                    seen_a.add(a_id)
                    correct = (ans.get("correct") or "").strip().lower() in ("yes", "true", "1")
                    n_correct += correct
                    atext = norm_space(all_text(ans))
                    orows.append({"qid": qid, "option": a_id, "text": atext,
                                  "correct": correct,
                                  "is_noa": is_noa_text(atext)})
                if n_correct > 1:
                    raise InputError(path, wq, f"{n_correct} options marked correct",
                                     "mark exactly one option correct=\"Yes\"")
    if not qrows:
        raise InputError(path, f"<{root.tag}>", "no <q> questions found",
                         "check that this is a QA4MRE gold standard or test set")
    questions = pl.DataFrame(qrows, schema_overrides={"position": pl.Int32,
                                                      "auxiliary_of": pl.String})
    return (tables.conform("questions", questions, str(path)),
            tables.conform("options", pl.DataFrame(orows), str(path)))


def read_run(path: str | Path, questions: pl.DataFrame,
             options: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Read a QA4MRE run XML -> ``(responses, judgments)`` judged against ``options``."""
    root = parse_xml(path)
    if root.tag != "output":
        raise InputError(path, f"<{root.tag}>", "the root element is not <output>",
                         "write runs as <output run_id><topic t_id><reading-test r_id>"
                         "<question q_id answered>...")
    run = _id(path, root, "run_id", "<output>")
    known = set(questions["qid"].to_list())
    gold: dict[tuple[str, str], bool] = {
        (q, o): bool(c) for q, o, c in options.select("qid", "option", "correct").iter_rows()}
    rrows: list[dict] = []
    jrows: list[dict] = []
    seen: set[str] = set()
    for topic in root.iter("topic"):
        wt = describe(topic, "t_id")
        t_id = _id(path, topic, "t_id", wt)
        for rt in topic.iter("reading-test"):
            wr = f"{describe(rt, 'r_id')} in {wt}"
            r_id = _id(path, rt, "r_id", wr)
            for q in rt.iter("question"):
                wq = f"{describe(q, 'q_id')} in {wr}"
                qid = f"{t_id}.{r_id}.{_id(path, q, 'q_id', wq)}"
                if qid not in known:
                    raise InputError(path, wq, f"question {qid} is not in the gold standard",
                                     "answer only questions of the test set (check t_id, r_id, q_id)")
                if qid in seen:
                    raise InputError(path, wq, f"question {qid} is answered twice",
                                     "give one <question> element per question")
                seen.add(qid)
                flag = (q.get("answered") or "").strip().upper()
                if flag not in ("YES", "NO"):
                    raise InputError(path, wq, f"answered='{q.get('answered')}'",
                                     "set answered to YES or NO")
                answers = q.findall("answer")
                if len(answers) > 1:
                    raise InputError(path, wq, f"{len(answers)} <answer> elements",
                                     "give at most one <answer a_id> per question")
                a_id = None
                if answers:
                    a_id = _id(path, answers[0], "a_id", f"<answer> in {wq}")
                    if (qid, a_id) not in gold:
                        raise InputError(path, wq, f"option {a_id} does not exist for {qid}",
                                         "choose one of the question's a_id values")
                if flag == "YES" and a_id is None:
                    raise InputError(path, wq, "answered=\"YES\" without an <answer a_id>",
                                     "give the chosen option, or set answered=\"NO\"")
                answered = flag == "YES"
                rrows.append({"run": run, "qid": qid, "item": 1, "rank": len(rrows) + 1,
                              "answer": a_id if answered else None, "answered": answered,
                              "candidate": None if answered else a_id, "nil": False})
                judgment = None if a_id is None else ("R" if gold[(qid, a_id)] else "W")
                jrows.append({"judgment_set": JUDGMENT_SET, "run": run, "qid": qid, "item": 1,
                              "judgment": judgment})
    if not rrows:
        raise InputError(path, "<output>", "the run answers no question",
                         "give <question q_id answered> elements")
    schema = {"item": pl.Int32, "rank": pl.Int32, "answer": pl.String,
              "candidate": pl.String}
    return (tables.conform("responses", pl.DataFrame(rrows, schema_overrides=schema), str(path)),
            tables.conform("judgments", pl.DataFrame(
                jrows, schema_overrides={"item": pl.Int32, "judgment": pl.String}), str(path)))
