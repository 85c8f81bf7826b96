"""Hostile input through the command line: one validation for every entry point.

Every bad input is given to ``qacamp ingest`` and to ``qacamp eval`` (or, for
score matrices, ``qacamp reliability``): both must exit 2 with one error line
naming the file and the place, the same message, no traceback and nothing
written.  Good input must give the same numbers both ways.  The classes
follow docs/formats.md: cross-file checks (1), semantic checks (2), bounded
reading (3, with child processes for memory and hangs), automatic judging (4).
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from qacamp.cli import main

PLACE = re.compile(r": (?:line \d+|byte \d+|row \d+|column \w+|<[\w-]+)")


def _w(base: Path, rel: str, text: str | bytes) -> str:
    p = base / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return rel


def _error(err: str, command: str) -> str:
    """The one error line of ``command`` in ``err`` (after the prefix)."""
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.startswith(f"qacamp {command}: error: ")]
    assert len(lines) == 1, err
    return lines[0].removeprefix(f"qacamp {command}: error: ")


def _at(msg: str, file: str, place: str) -> bool:
    """``msg`` names ``file`` and then ``place`` (an XML place goes on with the element)."""
    return msg.startswith(f"{file}: {place}: ") or msg.startswith(f"{file}: {place}, <")


def _ingest(capsys, campaign: dict, out: Path) -> tuple[int, str]:
    rc = main(["ingest", "--name", "eval", "--campaign-json", json.dumps(campaign),
               "--out", str(out)])
    return rc, capsys.readouterr().err


def _eval(capsys, argv: list[str]) -> tuple[int, str, str]:
    rc = main(["eval", *argv])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def both_refuse(capsys, tmp_path: Path, campaign: dict, argv: list[str], file: str,
                place: str | None = None) -> str:
    """Ingest and eval refuse the input with the same message naming ``file`` and
    a place (``place`` exactly when given); nothing is written.  Returns it."""
    out = tmp_path / "results" / "ingest"
    rc_i, err_i = _ingest(capsys, campaign, out)
    rc_e, out_e, err_e = _eval(capsys, argv)
    assert (rc_i, rc_e) == (2, 2), (err_i, err_e)
    msg_i, msg_e = _error(err_i, "ingest"), _error(err_e, "eval")
    assert msg_i == msg_e
    assert msg_i.startswith(f"{file}: "), msg_i
    assert PLACE.search(msg_i.removeprefix(file)), msg_i
    if place is not None:
        assert _at(msg_i, file, place), msg_i
    assert out_e == ""
    assert not out.exists() and not (tmp_path / "results").exists()
    return msg_i


def both_config_error(capsys, tmp_path: Path, campaign: dict, argv: list[str], key: str,
                      option: str) -> str:
    """A missing or wrong setting: ingest names the config key, eval the option
    and the key, with the same problem and fix."""
    out = tmp_path / "results" / "ingest"
    rc_i, err_i = _ingest(capsys, campaign, out)
    rc_e, out_e, err_e = _eval(capsys, argv)
    assert (rc_i, rc_e) == (2, 2), (err_i, err_e)
    msg_i, msg_e = _error(err_i, "ingest"), _error(err_e, "eval")
    prefix = f"config key 'campaigns.eval.{key}': "
    assert msg_i.startswith(prefix), msg_i
    assert msg_e == f"{option} (campaign key 'campaigns.eval.{key}'): " + msg_i.removeprefix(
        prefix)
    assert not out.exists() and out_e == ""
    return msg_i


def same_numbers(capsys, tmp_path: Path, campaign: dict, argv: list[str],
                 judgment_set: str | None = None) -> pl.DataFrame:
    """Good input: ``qacamp ingest`` + ``qacamp score`` and ``qacamp eval`` give
    the same run scores (eval's 4 decimals).  Returns the ingest warnings."""
    from qacamp.cli.eval import _fmt

    out = tmp_path / "res" / "ingest"
    rc_i, err_i = _ingest(capsys, campaign, out)
    assert rc_i == 0, err_i
    assert main(["score", "--ingest", str(out), "--out", str(tmp_path / "res" / "scores")]) == 0
    capsys.readouterr()
    extra = ["--judgment-set", judgment_set] if judgment_set else []
    rc_e, out_e, err_e = _eval(capsys, argv + extra)
    assert rc_e == 0, err_e
    assert "Traceback" not in err_e
    runs = pl.read_parquet(tmp_path / "res" / "scores" / "runs.parquet")
    js = judgment_set or json.loads((out / "campaign.json").read_text())["primary"]
    want = {(r, m, _fmt(m, v)) for r, m, v in runs.filter(
        (pl.col("judgment_set") == js) & (pl.col("scope") == "all")).select(
        "run", "measure", "value").iter_rows()}
    got = {tuple(ln.split("\t")[i] for i in (0, 1, 4)) for ln in out_e.splitlines()[1:]}
    assert got == want and len(want) > 0
    warnings = pl.read_parquet(out / "warnings.parquet")
    # the warnings are printed by both commands
    for line in err_i.splitlines():
        if "warning:" in line:
            assert line.replace("qacamp ingest:", "qacamp eval:") in err_e
    return warnings


# --------------------------------------------------------------------------- campaigns

CLEF_H = "run\tqid\tanswered\tjudgment\tanswer\n"


def clef(tmp: Path) -> tuple[dict, list[str]]:
    _w(tmp, "q.tsv", "qid\n1\n2\n3\n4\n")
    _w(tmp, "runs/a.tsv", CLEF_H + "a\t1\t1\tR\tx\na\t2\t0\tW\ty\na\t3\t1\tW\tz\na\t4\t0\t-\t\n")
    _w(tmp, "runs/b.tsv", CLEF_H + "b\t1\t1\tR\tx\nb\t2\t1\tR\ty\nb\t3\t1\tW\tz\nb\t4\t1\tR\tw\n")
    runs = ["runs/a.tsv", "runs/b.tsv"]
    return ({"kind": "clef-qa", "questions": "q.tsv", "runs": runs},
            ["clef-qa", "--questions", "q.tsv", *runs])


def pan(tmp: Path) -> tuple[dict, list[str]]:
    _w(tmp, "truth.jsonl", "".join(json.dumps({"id": f"p{i}", "same": i % 2 == 0}) + "\n"
                                   for i in range(4)))
    _w(tmp, "runs/t1/answers.jsonl", "".join(
        json.dumps({"id": f"p{i}", "value": v}) + "\n" for i, v in enumerate([0.9, 0.2, 0.5, 0.7])))
    _w(tmp, "runs/t2/answers.jsonl", "".join(
        json.dumps({"id": f"p{i}", "value": v}) + "\n" for i, v in enumerate([0.1, 0.8, 0.6, 0.3])))
    runs = ["runs/t1/answers.jsonl", "runs/t2/answers.jsonl"]
    return ({"kind": "pan", "truth": "truth.jsonl", "answers": runs},
            ["pan", "--truth", "truth.jsonl", *runs])


GOLD = """<?xml version="1.0" encoding="UTF-8"?>
<test-set>
<topic t_id="1" t_name="T">
<reading-test r_id="1"><doc d_id="1">text</doc>
<q q_id="1"><q_str>A?</q_str><answer a_id="1" correct="Yes">a</answer><answer a_id="2">None of the above</answer></q>
<q q_id="2"><q_str>B?</q_str><answer a_id="1">a</answer><answer a_id="2" correct="Yes">b</answer></q>
</reading-test>
</topic>
</test-set>
"""


def qa_run(run_id: str, a1: str, t_id: str = "1", r_id: str = "1") -> str:
    return (f'<output run_id="{run_id}">\n<topic t_id="{t_id}">\n<reading-test r_id="{r_id}">\n'
            f'<question q_id="1" answered="YES"><answer a_id="{a1}"/></question>\n'
            '<question q_id="2" answered="NO"/>\n</reading-test>\n</topic>\n</output>\n')


def qa4mre(tmp: Path) -> tuple[dict, list[str]]:
    _w(tmp, "gold.xml", GOLD)
    _w(tmp, "runs/a.xml", qa_run("ra", "1"))
    _w(tmp, "runs/b.xml", qa_run("rb", "2"))
    runs = ["runs/a.xml", "runs/b.xml"]
    return ({"kind": "qa4mre", "gold": "gold.xml", "runs": runs},
            ["qa4mre", "--gold", "gold.xml", *runs])


TOP = "".join(f"<top>\n<num> Number: {i}\n<desc> Description:\nQuestion {i}?\n</top>\n\n"
              for i in (1, 2, 3))


def factoid(tmp: Path) -> tuple[dict, list[str]]:
    _w(tmp, "q/trec11questions", TOP)
    _w(tmp, "adj/runA.txt", "3 runA D3 R ans3\n1 runA D1 W ans1\n2 runA NIL R\n")
    _w(tmp, "adj/runB.txt", "1 runB D1 R ans1\n2 runB D2 W ans2\n3 runB D3 X ans3\n")
    runs = ["adj/runA.txt", "adj/runB.txt"]
    return ({"kind": "trec-factoid", "questions": ["q/trec11questions"],
             "judgment_sets": {"adjudicated": runs}, "primary": "adjudicated"},
            ["trec-factoid", "--questions", "q/trec11questions", *runs])


SERIES_XML = """<?xml version="1.0" encoding="ISO-8859-1"?>
<trecqa year="2004" task="main">
<target id="1" text="Crips">
<qa><q id="1.1" type="FACTOID">When?</q></qa>
<qa><q id="1.2" type="LIST">Which cities?</q></qa>
<qa><q id="1.3" type="OTHER">Other</q></qa>
</target>
<target id="2" text="Durst">
<qa><q id="2.1" type="FACTOID">Who?</q></qa>
<qa><q id="2.2" type="OTHER">Other</q></qa>
</target>
</trecqa>
"""


def series(tmp: Path) -> tuple[dict, list[str]]:
    _w(tmp, "q.xml", SERIES_XML)
    _w(tmp, "nuggets", "Qid 1.3: x\n1.3 1\tvital\ta\n1.3 2\tokay\tb\n\n"
                       "Qid 2.2: y\n2.2 1\tvital\tc\n")
    _w(tmp, "list_key", "# 1.2\nQ:Which?\nParis\nRome\n")
    _w(tmp, "f/r1", "1.1 r1 D1 R 1995\n2.1 r1 NIL W\n")
    _w(tmp, "l/r1", "1.2 r1 D1 1 1 Paris\n1.2 r1 D2 -1 0 Oslo\n")
    _w(tmp, "o/r1.one", "1.3 r1 1 D1 blah\n1.3 r1 2 D2 more\n2.2 r1 1 D3 x\n")
    _w(tmp, "o/r1.two", "1.3 r1 1 2\n2.2 r1 1 1\n")
    camp = {"kind": "trec-series", "year": 2004, "questions": "q.xml", "nuggets": "nuggets",
            "list_key": "list_key",
            "judgment_sets": {"adjudicated": {"factoid": ["f/r1"], "list": ["l/r1"],
                                              "other": ["o/r1.one"],
                                              "other_nuggets": ["o/r1.two"]}}}
    argv = ["trec-series", "--questions", "q.xml", "--year", "2004", "--nuggets", "nuggets",
            "--list-key", "list_key", "--factoid", "f/r1", "--list", "l/r1",
            "--other", "o/r1.one", "--other-nuggets", "o/r1.two"]
    return camp, argv


KINDS = {"clef-qa": clef, "pan": pan, "qa4mre": qa4mre, "trec-factoid": factoid,
         "trec-series": series}


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --------------------------------------------------------------------------- good input

@pytest.mark.parametrize("kind", sorted(KINDS))
def test_good_input_same_numbers(kind, here, capsys):
    camp, argv = KINDS[kind](here)
    warnings = same_numbers(capsys, here, camp, argv)
    assert warnings.height == 0


# --------------------------------------------------------------------------- 1: cross-file

def test_pan_same_answers_file_twice(here, capsys):
    camp, argv = pan(here)
    camp["answers"] = ["runs/t1/answers.jsonl", "runs/t1/answers.jsonl"]
    argv = argv[:3] + camp["answers"]
    msg = both_refuse(capsys, here, camp, argv, "runs/t1/answers.jsonl", "line 1")
    assert "run 't1' also comes from runs/t1/answers.jsonl" in msg


def test_qa4mre_one_run_id_in_two_files(here, capsys):
    camp, argv = qa4mre(here)
    _w(here, "runs/b.xml", qa_run("ra", "2"))
    msg = both_refuse(capsys, here, camp, argv, "runs/b.xml", "line 1")
    assert "run 'ra' also comes from runs/a.xml" in msg


def test_clef_response_to_unknown_question(here, capsys):
    camp, argv = clef(here)
    _w(here, "runs/b.tsv", CLEF_H + "b\t1\t1\tR\tx\nb\t9\t1\tR\ty\n")
    msg = both_refuse(capsys, here, camp, argv, "runs/b.tsv", "line 3")
    assert "question 9 is not in the question set" in msg


def test_trec_response_to_unknown_question(here, capsys):
    camp, argv = factoid(here)
    _w(here, "adj/runB.txt", "1 runB D1 R a\n77 runB D2 W b\n")
    msg = both_refuse(capsys, here, camp, argv, "adj/runB.txt", "line 2")
    assert "question 77 is not in the question set" in msg


def test_series_unknown_nugget(here, capsys):
    camp, argv = series(here)
    _w(here, "o/r1.two", "1.3 r1 1 2\n2.2 r1 1 9\n")
    msg = both_refuse(capsys, here, camp, argv, "o/r1.two", "line 2")
    assert "nugget 9 of question 2.2 is not in the nugget list" in msg


def test_series_list_questions_without_list_key(here, capsys):
    camp, argv = series(here)
    del camp["list_key"]
    argv = [a for a in argv if a not in ("--list-key", "list_key")]
    msg = both_config_error(capsys, here, camp, argv, "list_key", "--list-key")
    assert "1 LIST questions but no list answer key" in msg and "skip: [list]" in msg
    # saying so explicitly is accepted, and passed on to scoring
    camp["skip"] = ["list"]
    same_numbers(capsys, here, camp, argv + ["--skip", "list"])
    resolved = json.loads((here / "res" / "ingest" / "campaign.json").read_text())
    assert resolved["options"]["skip"] == ["list"]


def test_series_other_questions_without_nuggets(here, capsys):
    camp, argv = series(here)
    del camp["nuggets"]
    argv = [a for a in argv if a not in ("--nuggets", "nuggets")]
    msg = both_config_error(capsys, here, camp, argv, "nuggets", "--nuggets")
    assert "2 OTHER questions but no nugget list" in msg


def test_series_other_questions_without_judged_other_files(here, capsys):
    camp, argv = series(here)
    spec = camp["judgment_sets"]["adjudicated"]
    del spec["other"], spec["other_nuggets"]
    argv = argv[:argv.index("--other")]
    both_config_error(capsys, here, camp, argv, "judgment_sets.adjudicated.other", "--other")


def test_series_unsupported_year(here, capsys):
    camp, argv = series(here)
    camp["year"] = 2010
    argv[argv.index("--year") + 1] = "2010"
    msg = both_config_error(capsys, here, camp, argv, "year", "--year")
    assert "year 2010 is not 2004-2007" in msg


def test_eval_unknown_judgment_set(here, capsys):
    _camp, argv = clef(here)
    rc, out, err = _eval(capsys, argv + ["--judgment-set", "nope"])
    assert rc == 2 and out == ""
    assert "there is no judgment set 'nope'" in _error(err, "eval")


def test_factoid_list_run_without_list_key(here, capsys):
    camp, argv = factoid(here)
    _w(here, "q/trec11questions_list", "<top>\n<num> Number: 9\n<desc> Description:\nName 3.\n"
                                       "</top>\n")
    _w(here, "adj/runA.list", "9 runA D1 1 1 Paris\n9 runA D2 -1 0 Rome\n")
    camp["questions"].append("q/trec11questions_list")
    camp["judgment_sets"]["adjudicated"].append("adj/runA.list")
    argv = argv[:3] + ["--questions", "q/trec11questions_list"] + argv[3:] + ["adj/runA.list"]
    both_config_error(capsys, here, camp, argv, "list_key", "--list-key")
    _w(here, "q/list_key", "# 9\nQ: Name 3.\nParis\nLyon\nNice\n")
    camp["list_key"] = "q/list_key"
    same_numbers(capsys, here, camp, argv + ["--list-key", "q/list_key"])


# --------------------------------------------------------------------------- 2: semantic

def test_qa4mre_ids_colliding_once_joined(here, capsys):
    camp, argv = qa4mre(here)
    gold = GOLD.replace("</test-set>", '<topic t_id="1.1"><reading-test r_id="1">'
                        '<q q_id="1"><q_str>C?</q_str><answer a_id="1">c</answer></q>'
                        "</reading-test></topic>\n</test-set>")
    gold = gold.replace('<reading-test r_id="1"><doc', '<reading-test r_id="1.1"><doc')
    _w(here, "gold.xml", gold)
    msg = both_refuse(capsys, here, camp, argv, "gold.xml", "line 9")
    assert "both join to the id 1.1.1" in msg


def test_qa4mre_run_in_another_topic_split(here, capsys):
    camp, argv = qa4mre(here)
    _w(here, "gold.xml", GOLD.replace('<reading-test r_id="1">', '<reading-test r_id="1.1">'))
    _w(here, "runs/a.xml", qa_run("ra", "1", t_id="1.1", r_id="1"))
    msg = both_refuse(capsys, here, camp, argv, "runs/a.xml", "line 4")
    assert "is in topic '1' reading test '1.1.1' of the gold standard" in msg


@pytest.mark.parametrize("which, bad, place, problem", [
    ("gold", '<reading-test r_id="1"><doc d_id="1">text</doc>\n<reading-test r_id="2">',
     "line 5", "a <reading-test> inside <reading-test>"),
    ("run", '<topic t_id="1">\n<question q_id="1" answered="NO"/>', "line 3",
     "a <question> inside <topic>"),
])
def test_qa4mre_nesting(which, bad, place, problem, here, capsys):
    camp, argv = qa4mre(here)
    if which == "gold":
        text = GOLD.replace('<reading-test r_id="1"><doc d_id="1">text</doc>', bad)
        text = text.replace("</reading-test>", "</reading-test></reading-test>")
        _w(here, "gold.xml", text)
        file = "gold.xml"
    else:
        _w(here, "runs/a.xml", qa_run("ra", "1").replace('<topic t_id="1">', bad))
        file = "runs/a.xml"
    msg = both_refuse(capsys, here, camp, argv, file, place)
    assert problem in msg


@pytest.mark.parametrize("value, correct", [("Yes", True), ("YES", True), (" true ", True),
                                            ("1", True), ("No", False), ("false", False),
                                            ("0", False)])
def test_qa4mre_correct_variants_accepted(value, correct, here, capsys):
    camp, argv = qa4mre(here)
    _w(here, "gold.xml", GOLD.replace('<answer a_id="1" correct="Yes">',
                                      f'<answer a_id="1" correct="{value}">'))
    same_numbers(capsys, here, camp, argv)
    options = pl.read_parquet(here / "res" / "ingest" / "options.parquet")
    assert options.filter((pl.col("qid") == "1.1.1") & (pl.col("option") == "1"))[
        "correct"].item() is correct


@pytest.mark.parametrize("value", ["Y", "y", "N", "ja", "correct", ""])
def test_qa4mre_correct_variants_refused(value, here, capsys):
    camp, argv = qa4mre(here)
    _w(here, "gold.xml", GOLD.replace('<answer a_id="1" correct="Yes">',
                                      f'<answer a_id="1" correct="{value}">'))
    msg = both_refuse(capsys, here, camp, argv, "gold.xml", "line 5")
    assert f"correct='{value}' is not an accepted value" in msg


@pytest.mark.parametrize("char, name", [("\r", "carriage return"), ("\v", "vertical tab"),
                                        ("\f", "form feed"), ("\u2028", "U+2028"),
                                        ("\x85", "NEL"), ("\u2029", "U+2029"),
                                        ("\x1e", "U+001E")])
def test_trec_line_breaks_other_than_lf_refused(char, name, here, capsys):
    camp, argv = factoid(here)
    # three responses joined by a character other programs read as a line break
    _w(here, "adj/runB.txt", "1 runB D1 R a" + char + "2 runB D2 W b" + char + "3 runB D3 R c\n")
    msg = both_refuse(capsys, here, camp, argv, "adj/runB.txt", "line 1")
    assert name in msg


def test_crlf_line_ends_accepted(here, capsys):
    camp, argv = factoid(here)
    text = (here / "adj/runB.txt").read_text()
    _w(here, "adj/runB.txt", text.replace("\n", "\r\n").encode())
    same_numbers(capsys, here, camp, argv)


def test_series_response_to_a_question_of_another_type(here, capsys):
    camp, argv = series(here)
    _w(here, "f/r1", "1.1 r1 D1 R 1995\n2.2 r1 D2 W Durst\n")  # 2.2 is the Other question
    msg = both_refuse(capsys, here, camp, argv, "f/r1", "line 2")
    assert "question 2.2 is a OTHER question, but this is a judged factoid run" in msg


def test_second_judgment_set_with_other_answer_strings(here, capsys):
    camp, argv = factoid(here)
    _w(here, "a1/runA.txt", "3 runA D3 R ans3\n1 runA D1 W ans1\n2 runA NIL R\n")
    _w(here, "a1/runB.txt", "1 runB D1 R ans1\n2 runB D2 W other answer\n3 runB D3 X ans3\n")
    camp["judgment_sets"]["a1"] = ["a1/runA.txt", "a1/runB.txt"]
    out = here / "results" / "ingest"
    rc, err = _ingest(capsys, camp, out)
    msg = _error(err, "ingest")
    assert rc == 2 and msg.startswith("a1/runB.txt: line 2: ")
    assert "the answer 'other answer', the primary set 'adjudicated' 'ans2'" in msg
    assert not out.exists()


@pytest.mark.parametrize("which, line", [("truth", 2), ("answers", 3)])
def test_json_duplicate_keys(which, line, here, capsys):
    camp, argv = pan(here)
    if which == "truth":
        _w(here, "truth.jsonl", (here / "truth.jsonl").read_text().replace(
            '"same": false}', '"same": false, "same": true}', 1))
        file = "truth.jsonl"
    else:
        file = "runs/t2/answers.jsonl"
        _w(here, file, (here / file).read_text().replace('"value": 0.6', '"value": 0.6, "value": 0.4'))
    msg = both_refuse(capsys, here, camp, argv, file, f"line {line}")
    assert "appears twice in one object" in msg


def test_coverage_warning_for_a_truncated_run(here, capsys):
    camp, argv = clef(here)
    _w(here, "runs/b.tsv", CLEF_H + "b\t1\t1\tR\tx\n")  # 1 of 4 questions
    warnings = same_numbers(capsys, here, camp, argv)
    assert warnings.rows() == [("runs/b.tsv", "line 2 (end of file)", "coverage",
                                "the run answers 1 of the 4 questions (25%), less than "
                                "min_coverage 0.9: is the file truncated?", 1)]
    # the share is configurable (0 turns the warning off)
    camp["min_coverage"] = 0.25
    assert same_numbers(capsys, here, camp, argv + ["--min-coverage", "0.25"]).height == 0
    camp["min_coverage"] = 1.5
    both_config_error(capsys, here, camp, argv + ["--min-coverage", "1.5"], "min_coverage",
                      "--min-coverage")


# --------------------------------------------------------------------------- 2: score matrices

def _matrix_both(capsys, tmp: Path, file: str) -> str:
    """``qacamp ingest`` (score-matrix) and ``qacamp reliability`` read the matrix
    with the one strict reader: the same message."""
    out = tmp / "results" / "ingest"
    rc_i, err_i = _ingest(capsys, {"kind": "score-matrix", "matrix": file}, out)
    rc_r = main(["reliability", "swap", "--matrix", file, "--sizes", "1:2", "--trials", "2",
                 "--out", str(tmp / "results" / "swap.parquet")])
    err_r = capsys.readouterr().err
    assert (rc_i, rc_r) == (2, 2), (err_i, err_r)
    msg = _error(err_i, "ingest")
    assert msg == _error(err_r, "reliability")
    assert msg.startswith(f"{file}: ") and PLACE.search(msg.removeprefix(file)), msg
    assert not (tmp / "results").exists()
    return msg


@pytest.mark.parametrize("cell", ["1_000", "\u0661", "\uff11", "true", "NaN", "inf", "1e400",
                                  "", "0x1p3", "½"])
def test_matrix_csv_strict_numbers(cell, here, capsys):
    _w(here, "m.csv", f"unit,a,b\nq1,0.5,1\nq2,{cell},0.25\n")
    msg = _matrix_both(capsys, here, "m.csv")
    assert msg.startswith("m.csv: line 3, column a: ") and "not a finite decimal number" in msg


@pytest.mark.parametrize("text, place, problem", [
    ("unit,a,b\n,0.5,1\n", "line 2, column unit", "an empty unit id"),
    ("unit,a,b\nq1,0.5,1\nq1,1,1\n", "line 3, column unit", "unit id 'q1' appears twice"),
    ("unit,a,a\nq1,0.5,1\n", "line 1", "appears twice"),
    ("a,b\n0.5\n", "line 2", "expected 2 fields, got 1"),
])
def test_matrix_csv_ids_and_cells(text, place, problem, here, capsys):
    _w(here, "m.csv", text)
    msg = _matrix_both(capsys, here, "m.csv")
    assert msg.startswith(f"m.csv: {place}: ") and problem in msg


@pytest.mark.parametrize("frame, place, problem", [
    (pl.DataFrame({"a": [0.5, 1.0], "b": [True, False]}), "column b", "type Boolean"),
    (pl.DataFrame({"a": [[0.5], [1.0]], "b": [0.1, 0.2]}), "column a", "type List(Float64)"),
    (pl.DataFrame({"a": ["0.5", "1"]}), "column a", "type String"),
    (pl.DataFrame({"unit": ["q1", None], "a": [0.5, 1.0]}), "row 2, column unit",
     "an empty or null unit"),
    (pl.DataFrame({"unit": ["q1", ""], "a": [0.5, 1.0]}), "row 2, column unit",
     "an empty or null unit"),
    (pl.DataFrame({"a": [0.5, None]}), "row 2, column a", "a missing or non-finite value"),
    (pl.DataFrame({"unit": ["q1", "q1", "q2"], "run": ["a", "b", "a"], "value": [1.0, 0.5, 0.2]}),
     "row 3, column unit", "unit q2 has no value for run b (a missing cell)"),
    (pl.DataFrame({"unit": ["q1", "q1"], "run": ["a", None], "value": [1.0, 0.5]}),
     "row 2, column run", "an empty or null run"),
    (pl.DataFrame({"unit": ["q1", "q1"], "run": ["a", "a"], "value": [1.0, 0.5]}),
     "row 2", "unit q1 and run a appear twice"),
])
def test_matrix_parquet_strict(frame, place, problem, here, capsys):
    frame.write_parquet(here / "m.parquet")
    msg = _matrix_both(capsys, here, "m.parquet")
    assert msg.startswith(f"m.parquet: {place}: ") and problem in msg


# --------------------------------------------------------------------------- 3: bounded reading

CHILD = """
import resource, subprocess, sys
cli = "import sys; from qacamp.cli import main; sys.exit(main(sys.argv[1:]))"
res = subprocess.run([sys.executable, "-c", cli, *sys.argv[1:]], capture_output=True, text=True)
sys.stderr.write(res.stderr)
print(res.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)
"""
"""A small process running the CLI in its own child and reporting the child's
peak RSS.  (Linux carries the peak RSS of the forking process over ``exec``,
so a child forked straight from pytest would report pytest's own size; forked
from this small process it reports its own.)"""


def child(cwd: Path, *argv: str) -> tuple[int, str, int]:
    """Run the CLI in a child process (a hang fails the test after 120 s instead of
    blocking it) -> (exit code, stderr, peak RSS in KiB)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    res = subprocess.run([sys.executable, "-c", CHILD, *argv], cwd=cwd, capture_output=True,
                         text=True, timeout=120, env=env)
    assert res.returncode == 0, res.stderr
    *lines, last = res.stderr.rstrip("\n").split("\n")
    rc, rss = (int(x) for x in last.split())
    return rc, "\n".join(lines), rss


def _gzip_of(block: bytes, times: int) -> bytes:
    """A gzip file expanding to ``block * times`` (one member per block: built in
    milliseconds; gzip readers read every member)."""
    return gzip.compress(block, 9) * times


def both_children(tmp: Path, campaign: dict, argv: list[str], file: str,
                  place: str) -> tuple[str, int]:
    """Ingest and eval in child processes -> (the shared message, the larger peak RSS)."""
    out = tmp / "results" / "ingest"
    rc_i, err_i, rss_i = child(tmp, "ingest", "--name", "eval", "--campaign-json",
                               json.dumps(campaign), "--out", str(out))
    rc_e, err_e, rss_e = child(tmp, "eval", *argv)
    assert (rc_i, rc_e) == (2, 2), (err_i, err_e)
    msg = _error(err_i, "ingest")
    assert msg == _error(err_e, "eval")
    assert _at(msg, file, place), msg
    assert not out.exists()
    return msg, max(rss_i, rss_e)


MIB = 1024 * 1024


def test_gzip_of_1_9_gb_of_newlines(here):
    camp, argv = clef(here)
    _w(here, "runs/b.tsv.gz", _gzip_of(b"\n" * MIB, 1900))  # about 2 MB on disk
    camp["runs"] = ["runs/a.tsv", "runs/b.tsv.gz"]
    argv = argv[:3] + camp["runs"]
    msg, rss = both_children(here, camp, argv, "runs/b.tsv.gz", "line 10000001")
    assert "more than 10000000 lines (the limit)" in msg
    assert rss < 400 * 1024, rss  # KiB: far below the expanded 1.9 GB


def test_gzip_of_3_gb_of_zeros(here):
    camp, argv = factoid(here)
    _w(here, "adj/runB.txt.gz", _gzip_of(b"\0" * MIB, 3000))  # about 3 MB on disk
    camp["judgment_sets"]["adjudicated"] = ["adj/runA.txt", "adj/runB.txt.gz"]
    argv = argv[:3] + camp["judgment_sets"]["adjudicated"]
    msg, rss = both_children(here, camp, argv, "adj/runB.txt.gz", "line 1")
    assert "longer than 1048576 bytes (the limit)" in msg
    assert rss < 400 * 1024, rss


def test_200_mb_single_line_xml_run(here):
    camp, argv = qa4mre(here)
    head = b'<output run_id="big"><topic t_id="1"><reading-test r_id="1">'
    _w(here, "runs/b.xml.gz", gzip.compress(head, 9) + _gzip_of(b"<!-- x -->" * (MIB // 10), 200))
    camp["runs"] = ["runs/a.xml", "runs/b.xml.gz"]
    argv = argv[:3] + camp["runs"]
    msg, rss = both_children(here, camp, argv, "runs/b.xml.gz", "line 1")
    assert "longer than 1048576 bytes" in msg
    assert rss < 400 * 1024, rss


def test_100000_unclosed_top_lines(here):
    camp, argv = factoid(here)
    _w(here, "q/trec11questions", "<top>\n" * 100_000)
    msg, _rss = both_children(here, camp, argv, "q/trec11questions", "line 2")
    assert "a <top> inside the <top> block of line 1, which has no </top>" in msg


def test_unclosed_top_at_end(here, capsys):
    camp, argv = factoid(here)
    _w(here, "q/trec11questions", TOP + "<top>\n<num> Number: 4\n")
    msg = both_refuse(capsys, here, camp, argv, "q/trec11questions", "line 19")
    assert "a <top> without </top>" in msg


def test_named_pipe_is_refused_before_reading(here):
    camp, argv = clef(here)
    os.remove(here / "runs" / "b.tsv")
    os.mkfifo(here / "runs" / "b.tsv")  # no writer: reading it would block forever
    msg, _rss = both_children(here, camp, argv, "runs/b.tsv", "byte 0")
    assert "the path is a named pipe, not a regular file" in msg


def test_device_is_refused(here, capsys):
    camp, argv = clef(here)
    camp["questions"] = "/dev/zero"
    argv[2] = "/dev/zero"
    msg = both_refuse(capsys, here, camp, argv, "/dev/zero", "byte 0")
    assert "a character device" in msg


def test_symlink_loop(here, capsys):
    camp, argv = clef(here)
    os.symlink("loop.tsv", here / "runs" / "loop.tsv")
    camp["runs"] = "runs/*.tsv"  # the glob lists the looping link
    rc, err = _ingest(capsys, camp, here / "results" / "ingest")
    msg = _error(err, "ingest")
    assert rc == 2 and msg.startswith("runs/loop.tsv: byte 0: cannot open the file")
    assert "symbolic links" in msg
    rc, out, err = _eval(capsys, argv[:3] + ["runs/a.tsv", "runs/loop.tsv"])
    # named literally, the loop is no file at all
    assert rc == 2 and "'runs/loop.tsv' matches no file" in _error(err, "eval")
    # a looping answers.jsonl: the PAN run name (its folder) is found without
    # resolving the loop, and the read reports it
    camp, argv = pan(here)
    os.remove(here / "runs" / "t2" / "answers.jsonl")
    os.symlink("answers.jsonl", here / "runs" / "t2" / "answers.jsonl")
    rc, err = _ingest(capsys, {**camp, "answers": "runs/*/answers.jsonl"},
                      here / "results" / "ingest")
    msg = _error(err, "ingest")
    assert rc == 2 and msg.startswith("runs/t2/answers.jsonl: byte 0: cannot open the file")


@pytest.mark.parametrize("value", ["1" + "0" * 400, "1e400", "-1" + "0" * 400, "[" + "1" * 500 + "]"])
def test_pan_value_out_of_range(value, here, capsys):
    camp, argv = pan(here)
    _w(here, "runs/t2/answers.jsonl", f'{{"id": "p0", "value": {value}}}\n')
    msg = both_refuse(capsys, here, camp, argv, "runs/t2/answers.jsonl", "line 1")
    assert "is not a number in [0, 1]" in msg


def test_matrix_limits_through_reliability_and_ingest(here, capsys):
    pl.DataFrame({"a": [[0.5], [1.0]]}).write_parquet(here / "m.parquet")
    assert "type List" in _matrix_both(capsys, here, "m.parquet")
    _w(here, "m.csv", "a,b\n" + "1,2\r3,4\n")
    assert "carriage return" in _matrix_both(capsys, here, "m.csv")


# --------------------------------------------------------------------------- 4: automatic judging

def _autojudge_campaign(tmp: Path, patterns: str, runs: dict[str, str]) -> tuple[dict, list[str]]:
    _w(tmp, "q/trec11questions", TOP)
    _w(tmp, "patterns", patterns)
    paths = []
    for name, text in runs.items():
        paths.append(_w(tmp, f"adj/{name}.txt", text))
    return ({"kind": "trec-factoid", "questions": ["q/trec11questions"],
             "judgment_sets": {"adjudicated": paths}, "patterns": "patterns",
             "autojudge": True},
            ["trec-factoid", "--questions", "q/trec11questions", "--patterns", "patterns", *paths])


def test_autojudge_at_ingest_same_numbers(here, capsys):
    camp, argv = _autojudge_campaign(here, "1 Paris\n2 Rome|Roma\n3 ^\\d+$\n", {
        "r1": "1 r1 D R in Paris\n2 r1 D W Oslo\n3 r1 D R 1969\n",
        "r2": "1 r2 D W London\n2 r2 D R Roma\n3 r2 D W about 1969\n"})
    same_numbers(capsys, here, camp, argv, judgment_set="automatic")
    judg = pl.read_parquet(here / "res" / "ingest" / "judgments.parquet")
    auto = judg.filter(pl.col("judgment_set") == "automatic").sort("run", "qid")
    assert auto["judgment"].to_list() == ["R", "W", "R", "W", "R", "W"]


def test_autojudge_truncation_is_reported(here, capsys):
    long = "x" * 1200 + " Paris"
    camp, argv = _autojudge_campaign(here, "1 Paris\n", {
        "r1": f"2 r1 D W y\n1 r1 D R {long}\n3 r1 D W z\n"})
    warnings = same_numbers(capsys, here, camp, argv, judgment_set="automatic")
    assert warnings.select("file", "place", "kind", "count").rows() == [
        ("adj/r1.txt", "line 2", "autojudge-truncated", 1)]
    assert "1 answers of run 'r1' are longer than 1000 characters (longest 1206)" in \
        warnings["message"][0]


def test_autojudge_timeouts_are_counted_and_bounded(here, capsys):
    evil = "(?:a|a)" * 30 + "b"  # passes the static check; backtracks 2^30 steps
    runs = {f"r{i}": f"1 r{i} D R {'a' * 30}c{i}\n2 r{i} D W x\n3 r{i} D W y\n"
            for i in range(6)}
    camp, argv = _autojudge_campaign(here, f"1 {evil}\n2 x\n", runs)
    warnings = same_numbers(capsys, here, camp, argv, judgment_set="automatic")
    row = warnings.row(0, named=True)
    assert (row["file"], row["place"], row["kind"], row["count"]) == (
        "patterns", "line 1", "autojudge-timeout", 6)
    assert "timed out (0.1 s) on 3 answers" in row["message"]
    assert "not tried on 3 more answers" in row["message"]


def test_autojudge_refuses_nested_quantifiers(here, capsys):
    camp, argv = _autojudge_campaign(here, "1 Paris\n2 (\\w+\\s?)+$\n", {"r1": "1 r1 D R x\n"})
    msg = both_refuse(capsys, here, camp, argv, "patterns", "line 2")
    assert "is itself repeated (catastrophic backtracking)" in msg


def test_autojudge_uncompilable_pattern_names_its_line(here, capsys):
    camp, argv = _autojudge_campaign(here, "1 Paris\n3 (10 percent|about 15\n",
                                     {"r1": "1 r1 D R x\n"})
    msg = both_refuse(capsys, here, camp, argv, "patterns", "line 2")
    assert "not a usable regular expression" in msg


def test_autojudge_without_patterns_is_a_config_error(here, capsys):
    camp, argv = factoid(here)
    camp["autojudge"] = True
    out = here / "results" / "ingest"
    rc, err = _ingest(capsys, camp, out)
    assert rc == 2 and "autojudge': is true but no answer patterns" in _error(err, "ingest")


# --------------------------------------------------------------------------- workflow

@pytest.mark.slow
def test_workflow_stops_on_a_lone_carriage_return(tmp_path):
    from workflow_util import small_clef_campaign, snakemake

    cfg = small_clef_campaign(tmp_path, runs=3, questions=30)
    bad = sorted((tmp_path / "data" / "runs").glob("*.tsv"))[1]
    lines = bad.read_text().splitlines()
    bad.write_bytes(("\n".join(lines[:4]) + "\r" + "\n".join(lines[4:]) + "\n").encode())
    res = snakemake(tmp_path, configfile=cfg)
    assert res.returncode != 0
    log = (tmp_path / "results/mine/logs/ingest.log").read_text()
    assert "Traceback" not in log
    assert re.search(rf"{re.escape(bad.name)}: line 4: the line holds a carriage return", log), log
    assert not (tmp_path / "results/mine/ingest").exists() or not any(
        (tmp_path / "results/mine/ingest").iterdir())
    assert not (tmp_path / "results/mine/scores").exists()


def test_docs_formats_lists_every_limit():
    """docs/formats.md gives every limit constant with its exact value."""
    from qacamp import autojudge
    from qacamp.ingest import DEFAULT_MIN_COVERAGE
    from qacamp.readers import _text, _xml

    doc = (Path(__file__).resolve().parents[1] / "docs" / "formats.md").read_text()
    rows = [ln for ln in doc.splitlines() if ln.startswith("|")]
    for name, value in [("MAX_FILE_BYTES", _text.MAX_FILE_BYTES),
                        ("MAX_LINE_BYTES", _text.MAX_LINE_BYTES),
                        ("MAX_LINES", _text.MAX_LINES), ("CHUNK_BYTES", _text.CHUNK_BYTES),
                        ("MAX_XML_DEPTH", _xml.MAX_XML_DEPTH),
                        ("MAX_INPUT", autojudge.MAX_INPUT), ("MAX_PATTERN", autojudge.MAX_PATTERN),
                        ("MAX_TIMEOUTS", autojudge.MAX_TIMEOUTS), ("TIMEOUT", autojudge.TIMEOUT),
                        ("min_coverage", DEFAULT_MIN_COVERAGE)]:
        assert any(f"`{name}`" in row and f"`{value}`" in row for row in rows), name
