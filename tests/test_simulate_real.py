"""Runs for real question files: `qacamp simulate
--questions-from` writes simulated runs and judgments for a campaign's own
questions (the real TREC 2004 series XML and the QA4MRE 2012 gold standard
in ../shared/data), which the readers and `qacamp eval` take as they take
real runs.  Expected counts are those data/README.md measured on the files."""

from __future__ import annotations

import gzip
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from paths import SHARED_DATA

from qacamp.cli import main

TREC = SHARED_DATA / "trec-qa" / "trec13questions.xml"
GOLD = SHARED_DATA / "qa4mre" / "QA4MRE-2012-EN_GS.xml"


def run(capsys, *argv) -> tuple[str, str]:
    capsys.readouterr()
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out, err


def test_runs_for_the_real_qa4mre_2012_gold(tmp_path, capsys):
    out, _ = run(capsys, "simulate", "qa4mre", "--questions-from", GOLD, "--out", tmp_path,
                 "--runs", "6", "--seed", "3", "--quiet")
    assert '"questions": 160' in out and '"runs": 6' in out
    assert not (tmp_path / "gold.xml").exists()  # the organizer's own gold is not rewritten
    gold = ET.parse(GOLD).getroot()
    want = {(t.get("t_id"), r.get("r_id"), q.get("q_id")): {a.get("a_id") for a in q.iter("answer")}
            for t in gold.iter("topic") for r in t.iter("reading-test") for q in r.iter("q")}
    runs = sorted((tmp_path / "runs").glob("*.xml"))
    assert len(runs) == 6
    for path in runs:
        root = ET.parse(path).getroot()
        got = {(t.get("t_id"), r.get("r_id"), q.get("q_id")): [a.get("a_id") for a in
                                                             q.iter("answer")]
               for t in root.iter("topic") for r in t.iter("reading-test")
               for q in r.iter("question")}
        assert set(got) == set(want), path  # exactly the gold's questions
        assert all(set(a) <= want[k] for k, a in got.items())  # and its answer ids
    text, _ = run(capsys, "eval", "qa4mre", "--gold", GOLD, *runs, "-m", "c_at_1")
    values = [float(ln.split("\t")[4]) for ln in text.splitlines()[1:]]
    assert len(values) == 6 and len(set(values)) > 1 and all(0 <= v <= 1 for v in values)


def test_runs_and_judgments_for_the_real_trec_2004_series(tmp_path, capsys):
    out, _ = run(capsys, "simulate", "trec-series", "--questions-from", TREC, "--out",
                 tmp_path, "--runs", "4", "--seed", "3", "--quiet")
    # data/README.md: 65 targets, 351 questions = 230 FACTOID, 56 LIST, 65 OTHER
    for key, n in (("series", 65), ("factoid", 230), ("list", 56), ("other", 65),
                   ("list_judged", 56), ("other_judged", 65)):
        assert f'"{key}": {n}' in out, (key, out)
    assert not (tmp_path / "questions.xml").exists()
    judged = tmp_path / "judged" / "adjudicated"
    qids = {q.get("id").strip() for q in ET.parse(TREC).getroot().iter("q")
            if q.get("type") == "FACTOID"}
    first = sorted((judged / "factoid").glob("*.txt.gz"))[0]
    lines = gzip.decompress(first.read_bytes()).decode().splitlines()
    assert {ln.split()[0] for ln in lines} == qids
    parts = {p: sorted(str(f) for f in (judged / p).glob("*.txt.gz"))
             for p in ("factoid", "list", "other", "other_nuggets")}
    text, err = run(capsys, "eval", "trec-series", "--questions", TREC, "--year", "2004",
                    "--nuggets", tmp_path / "nuggets.txt", "--list-key",
                    tmp_path / "list_key.txt", "--factoid", *parts["factoid"], "--list",
                    *parts["list"], "--other", *parts["other"], "--other-nuggets",
                    *parts["other_nuggets"], "-m", "series_score", "-q")
    rows = [ln.split("\t") for ln in text.splitlines()[1:]]
    series = {r[3] for r in rows if r[2] == "series"}
    assert len(series) == 65  # every real series scored: none dropped
    assert "dropped" not in err


def test_questions_from_is_refused_where_it_has_no_meaning(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:  # pan's own options have no --questions-from
        main(["simulate", "pan", "--questions-from", str(GOLD), "--out", str(tmp_path)])
    assert exc.value.code == 2
    assert "unrecognized arguments: --questions-from" in capsys.readouterr().err
    assert main(["simulate", "qa4mre", "--questions-from", str(GOLD), "--out", str(tmp_path),
                 "--topics", "3"]) == 2
    assert "the file fixes the campaign's size" in capsys.readouterr().err


@pytest.mark.parametrize("name,factoid,other", [("trec11questions", 500, 0),
                                                ("trec12questions", 413, 87)])
def test_trec_2002_and_2003_question_files_simulate_judged_factoid_runs(tmp_path, capsys, name,
                                                                         factoid, other):
    """The real TREC 2002 and 2003 question files: runs answer exactly their
    factoid questions, and `qacamp eval` scores them (2003: its list and
    definition questions skipped, as the note says)."""
    import json

    questions = SHARED_DATA / "trec-qa" / name
    if not questions.is_file():
        pytest.skip("needs ../shared/data")
    assert main(["simulate", "trec-factoid", "--questions-from", str(questions), "--out",
                 str(tmp_path), "--runs", "3", "--quiet"]) == 0
    out, err = capsys.readouterr()
    counts = json.loads(out)
    assert (counts["questions"], counts["other_questions"]) == (factoid, other)
    assert ("list and definition questions get no runs" in err) == bool(other)
    assert not (tmp_path / "questions.txt").exists()  # the real file is the campaign's
    runs = sorted(str(p) for p in (tmp_path / "judged" / "adjudicated").glob("*.txt.gz"))
    assert len(runs) == 3
    first = gzip.decompress(Path(runs[0]).read_bytes()).decode().splitlines()
    from qacamp.readers.trec_questions import read_top_questions

    q = read_top_questions(questions)
    assert {ln.split()[0] for ln in first} == set(q.filter(q["qtype"] == "FACTOID")["qid"])
    skip = ["--skip", "list", "--skip", "definition"] if other else []
    text, _ = run(capsys, "eval", "trec-factoid", "--questions", questions, *skip, *runs,
                  "-m", "cws")
    assert len(text.splitlines()) == 1 + 3


def test_simulate_help_is_the_kinds_own(capsys):
    with pytest.raises(SystemExit):
        main(["simulate", "trec-factoid", "--help"])
    text = capsys.readouterr().out
    assert "--judgment-sets" in text and "--questions-from" in text
    assert "--series" not in text and "--topics" not in text
    assert "TREC-2002-like factoid campaign" in text


@pytest.mark.parametrize("kind", ["qa4mre"])
def test_same_seed_same_bytes_for_real_questions(tmp_path, kind):
    for d in ("a", "b"):
        assert main(["simulate", kind, "--questions-from", str(GOLD), "--out", str(tmp_path / d),
                     "--runs", "3", "--seed", "8", "--quiet"]) == 0
    a = sorted((tmp_path / "a" / "runs").iterdir())
    assert [p.read_bytes() for p in a] == [(tmp_path / "b" / "runs" / p.name).read_bytes()
                                           for p in a]
