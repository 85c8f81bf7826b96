"""Ranked answers (TREC 8-10: MRR, strict and lenient) and locally correct
judgments (TREC 2006-2007) from the raw files through ingest and eval."""

from __future__ import annotations

import pytest

from qacamp.cli import main
from qacamp.errors import InputError
from qacamp.readers.trec_runs import read_judged_factoid

QUESTIONS = ("<top>\n<num> Number: 1\n<desc> Description:\nWhere?\n</top>\n"
             "<top>\n<num> Number: 2\n<desc> Description:\nWhat?\n</top>\n")
# q1: W, U, R -> strict RR 1/3, lenient 1/2; q2: locally correct (NIST code 4), W
RANKED = ("1 runA 1 APW1 W Paris\n1 runA 2 APW2 U London\n1 runA 3 APW3 R Rome\n"
          "2 runA 1 NYT1 4 Oslo\n2 runA 2 NYT2 W Bergen\n")


def files(tmp_path, run=RANKED):
    q = tmp_path / "questions.txt"
    q.write_text(QUESTIONS)
    r = tmp_path / "runA.txt"
    r.write_text(run)
    return q, r


def evaluate(capsys, q, r, *extra):
    capsys.readouterr()
    rc = main(["eval", "trec-factoid", "--questions", str(q), "--run-format", "ranked",
               "--precision", "full", *extra, str(r)])
    out, err = capsys.readouterr()
    return rc, {ln.split("\t")[1]: float(ln.split("\t")[4])
                for ln in out.splitlines()[1:]}, err


def test_ranked_reader_items_and_question_order(tmp_path):
    _, r = files(tmp_path)
    resp, judg = read_judged_factoid(r, "adj", {"4": "L"}, ranked=True)
    assert resp.select("qid", "item", "rank").rows() == [
        ("1", 1, 1), ("1", 2, 1), ("1", 3, 1), ("2", 1, 2), ("2", 2, 2)]
    assert judg["judgment"].to_list() == ["W", "U", "R", "L", "W"]


def test_mrr_strict_lenient_and_local_through_eval(tmp_path, capsys):
    q, r = files(tmp_path)
    rc, got, err = evaluate(capsys, q, r, "--judgment-code", "4=L")
    assert rc == 0, err
    assert got["mrr"] == pytest.approx((1 / 3 + 0) / 2)
    assert got["mrr_lenient"] == pytest.approx((1 / 2 + 0) / 2)
    # the first answers W and L: strict accuracy 0, locally correct counted right: 1/2
    assert got["accuracy"] == 0.0 and got["accuracy_local"] == 0.5
    # the rank cap: counting only the first 2 answers, q1 has no right answer
    rc, capped, err = evaluate(capsys, q, r, "--judgment-code", "4=L", "--max-rank", "2")
    assert rc == 0 and capped["mrr"] == 0.0 and capped["mrr_lenient"] == pytest.approx(0.25)


def test_unmapped_code_and_bad_ranks_are_refused(tmp_path, capsys):
    q, r = files(tmp_path)
    rc, _, err = evaluate(capsys, q, r)
    assert rc == 2 and "runA.txt: line 4: unknown judgment code '4'" in err
    assert "judgment_codes" in err and "Traceback" not in err
    for bad, problem in (("1 runA 0 D W x\n", "rank field is not a positive integer"),
                         ("1 runA 1 D W x\n1 runA 1 D R y\n", "duplicate answer rank")):
        r.write_text(bad)
        with pytest.raises(InputError, match=problem):
            read_judged_factoid(r, "adj", ranked=True)


def test_single_answer_layout_points_at_run_format(tmp_path):
    _, r = files(tmp_path, "1 runA D1 R Rome\n1 runA D2 W Paris\n")
    with pytest.raises(InputError, match="run_format: ranked"):
        read_judged_factoid(r, "adj")
