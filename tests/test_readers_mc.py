"""Readers of QA4MRE, CLEF QA, PAN and score matrices (real files + bad input)."""

from __future__ import annotations

import json

import polars as pl
import pytest
from files_util import write_file
from paths import SHARED_DATA

from qacamp import tables
from qacamp.errors import InputError
from qacamp.readers import clef, matrix, pan, qa4mre

DATA = SHARED_DATA
needs_data = pytest.mark.skipif(not DATA.exists(), reason="shared data not available")


def _err(fn, *args) -> InputError:
    with pytest.raises(InputError) as ei:
        fn(*args)
    return ei.value


# --------------------------------------------------------------------------- QA4MRE real

@needs_data
def test_qa4mre_2012_gold():
    q, o = qa4mre.read_gold(DATA / "qa4mre" / "QA4MRE-2012-EN_GS.xml")
    assert q.schema == pl.Schema(tables.SCHEMAS["questions"])
    assert q["topic"].n_unique() == 4 and q["test"].n_unique() == 16 and q.height == 160
    per_q = o.group_by("qid").agg(pl.len().alias("n"), pl.col("correct").sum().alias("c"))
    assert per_q["n"].to_list() == [5] * 160 and per_q["c"].to_list() == [1] * 160
    assert q["qid"][0] == "1.1.1" and q["test"][0] == "1.1" and set(q["language"]) == {"EN"}


@needs_data
def test_qa4mre_2013_test_set():
    q, o = qa4mre.read_gold(DATA / "qa4mre" / "QA4MRE-2013-EN_test.xml")
    assert q.height == 284
    qnum = q["qid"].str.split(".").list.get(2).cast(pl.Int32)
    assert (qnum <= 15).sum() == 240 and (qnum > 15).sum() == 44
    assert not o["correct"].any()
    assert o.filter("is_noa").height == 284  # incl. the file's "none of the aboe" typo


@needs_data
def test_qa4mre_2013_alzheimer_subset():
    q, o = qa4mre.read_gold(DATA / "qa4mre" / "QA4MRE-2013-Alzheimer-subset_GS.xml")
    assert q.height == 100
    assert o.filter("is_noa").height > 0
    assert o.filter(pl.col("is_noa") & pl.col("correct")).height > 0
    assert o.group_by("qid").agg(pl.col("correct").sum())["correct"].to_list() == [1] * 100


GOLD = """<?xml version="1.0" encoding="UTF-8"?>
<test-set><topic t_id="1" t_name="T"><reading-test r_id="2"><doc d_id="1">text</doc>
<q q_id="1"><q_str>Q one?</q_str><answer a_id="1" correct="Yes">a</answer>
<answer a_id="2">None of the above</answer></q>
<q q_id="16" aux_of="1"><q_str>Q aux?</q_str><answer a_id="1">a</answer>
<answer a_id="2" correct="Yes">b</answer></q>
</reading-test></topic></test-set>
"""

RUN = """<output run_id="r1"><topic t_id="1"><reading-test r_id="2">
<question q_id="1" answered="YES"><answer a_id="1"/></question>
<question q_id="16" answered="NO"><answer a_id="1"/></question>
</reading-test></topic></output>
"""


def test_qa4mre_run(tmp_path):
    q, o = qa4mre.read_gold(write_file(tmp_path, "g.xml", GOLD), 15, "DE")
    assert q["auxiliary_of"].to_list() == [None, "1.2.1"]
    assert set(q["language"]) == {"DE"}
    assert o["is_noa"].to_list() == [False, True, False, False]
    resp, judg = qa4mre.read_run(write_file(tmp_path, "r.xml", RUN), q, o)
    assert resp["answered"].to_list() == [True, False]
    assert resp["candidate"].to_list() == [None, "1"]
    assert judg["judgment"].to_list() == ["R", "W"]
    assert set(judg["judgment_set"]) == {"gold"}


def test_qa4mre_run_duplicate_and_unknown(tmp_path):
    q, o = qa4mre.read_gold(write_file(tmp_path, "g.xml", GOLD))
    dup = RUN.replace("</reading-test>", '<question q_id="1" answered="NO"/></reading-test>')
    p = write_file(tmp_path, "d.xml", dup)
    e = _err(qa4mre.read_run, p, q, o)
    assert str(p) in str(e) and e.place == "line 4, <question q_id='1'> in <reading-test r_id='2'> in <topic t_id='1'>"
    unk = RUN.replace('q_id="16"', 'q_id="9"')
    e = _err(qa4mre.read_run, write_file(tmp_path, "u.xml", unk), q, o)
    assert "1.2.9" in e.problem and "q_id='9'" in e.place
    bad = RUN.replace('a_id="1"/></question>\n<question q_id="16"', 'a_id="7"/></question>\n<question q_id="16"')
    assert "option 7" in _err(qa4mre.read_run, write_file(tmp_path, "b.xml", bad), q, o).problem


def test_qa4mre_gold_two_correct(tmp_path):
    bad = GOLD.replace('<answer a_id="2">None', '<answer a_id="2" correct="Yes">None')
    e = _err(qa4mre.read_gold, write_file(tmp_path, "g.xml", bad))
    assert e.place == "line 3, <q q_id='1'> in <reading-test r_id='2'> in <topic t_id='1'>"


def test_qa4mre_entity_refused(tmp_path):
    bad = GOLD.replace('<test-set>', '<!DOCTYPE test-set [<!ENTITY a "b">]>\n<test-set>')
    e = _err(qa4mre.read_gold, write_file(tmp_path, "g.xml", bad))
    assert "entities" in e.problem and e.place.startswith("line")


# --------------------------------------------------------------------------- CLEF

def test_clef(tmp_path):
    q = clef.read_questions(write_file(tmp_path, "q.tsv", "qid\tlanguage\ttext\n1\tEN\tWhy?\n2\tEN\tHow?\n3\tEN\tWho?\n"))
    assert q["qid"].to_list() == ["1", "2", "3"] and set(q["qtype"]) == {"QA"}
    run = "run\tqid\tanswered\tjudgment\tanswer\nr1\t1\t1\tR\tyes\nr1\t2\t0\tW\tmaybe\nr1\t3\t0\t-\t\n"
    resp, judg = clef.read_run(write_file(tmp_path, "r.tsv", run))
    assert resp["answered"].to_list() == [True, False, False]
    assert resp["candidate"].to_list() == [None, "maybe", None]
    assert judg["judgment"].to_list() == ["R", "W", None]
    assert set(judg["judgment_set"]) == {"official"}


def test_clef_bad(tmp_path):
    h = "run\tqid\tanswered\tjudgment\tanswer\n"
    p = write_file(tmp_path, "a.tsv", h + "r1\t1\t1\tR\tyes\nr1\t1\t1\tW\tno\n")
    e = _err(clef.read_run, p)
    assert e.place == "line 3" and "twice" in e.problem
    e = _err(clef.read_run, write_file(tmp_path, "b.tsv", h + "r1\t1\t1\tQ\tyes\n"))
    assert e.place == "line 2" and "'Q'" in e.problem
    e = _err(clef.read_run, write_file(tmp_path, "c.tsv", h + "r1\t1\t1\tR\tyes\nr2\t2\t1\tR\tyes\n"))
    assert e.place == "line 3" and "r2" in e.problem
    e = _err(clef.read_run, write_file(tmp_path, "d.tsv", h + "r1\t1\t1\n"))
    assert e.place == "line 2" and "fields" in e.problem


# --------------------------------------------------------------------------- PAN

def test_pan(tmp_path):
    truth = write_file(tmp_path, "truth.jsonl", "\n".join(json.dumps(r) for r in [
        {"id": "a", "same": True}, {"id": "b", "same": False}, {"id": "c", "same": True}]) + "\n")
    q, o = pan.read_truth(truth)
    assert q.height == 3 and o.height == 6
    ans = write_file(tmp_path, "teamX/answers.jsonl",
             '{"id": "a", "value": [0.9]}\n{"id": "b", "value": 0.5}\n{"id": "c", "value": 0.2}\n')
    resp, judg = pan.read_answers(ans, q, o)
    assert set(resp["run"]) == {"teamX"}
    assert resp["answered"].to_list() == [True, False, True]
    assert judg["judgment"].to_list() == ["R", None, "W"]
    dup = write_file(tmp_path, "t2/answers.jsonl", '{"id": "a", "value": 0.9}\n{"id": "a", "value": 0.1}\n')
    e = _err(pan.read_answers, dup, q, o)
    assert e.place == "line 2" and str(dup) in str(e)
    bad = write_file(tmp_path, "t3/answers.jsonl", '{"id": "a", "value": 0.9}\n{"id": "zz", "value": 0.1}\n')
    assert _err(pan.read_answers, bad, q, o).place == "line 2"
    bad = write_file(tmp_path, "t4/answers.jsonl", '{"id": "a", "value": 1.9}\n')
    assert _err(pan.read_answers, bad, q, o).place == "line 1"
    bad = write_file(tmp_path, "t5/answers.jsonl", '{"id": "a", "value": 0.9\n')
    assert "JSON" in _err(pan.read_answers, bad, q, o).problem


# --------------------------------------------------------------------------- matrices

@needs_data
@pytest.mark.parametrize("name,units,runs", [("web2004", 150, 73), ("genomics2004", 50, 47)])
def test_matrix_real(name, units, runs):
    m = matrix.read_matrix(DATA / "score-matrices" / f"{name}.csv")
    assert m.schema == pl.Schema(tables.SCHEMAS["matrix"])
    assert m["unit"].n_unique() == units and m["run"].n_unique() == runs
    assert m.height == units * runs


def test_matrix_csv_unit_and_parquet(tmp_path):
    m = matrix.read_matrix(write_file(tmp_path, "m.csv", "unit,a,b\nq1,0.5,1\nq2,0,0.25\n"))
    assert m.sort("unit", "run")["value"].to_list() == [0.5, 1.0, 0.0, 0.25]
    wide = tmp_path / "w.parquet"
    pl.DataFrame({"a": [0.1, 0.2], "b": [0.3, 0.4]}).write_parquet(wide)
    assert matrix.read_matrix(wide)["unit"].unique().sort().to_list() == ["1", "2"]
    long = tmp_path / "l.parquet"
    pl.DataFrame({"unit": ["x", "x"], "run": ["a", "b"], "value": [1.0, 2.0]}).write_parquet(long)
    assert matrix.read_matrix(long).height == 2


def test_matrix_bad(tmp_path):
    p = write_file(tmp_path, "m.csv", "a,b\n0.5,1\n0.1,NA\n")
    e = _err(matrix.read_matrix, p)
    assert e.place == "line 3, column b" and str(p) in str(e)
    e = _err(matrix.read_matrix, write_file(tmp_path, "n.csv", "a,b\n0.5\n"))
    assert e.place == "line 2"
    e = _err(matrix.read_matrix, write_file(tmp_path, "d.csv", "a,a\n0.5,1\n"))
    assert "twice" in e.problem
