"""Scoring on real public data (../shared/data)."""


import polars as pl
import pytest
from paths import SHARED_DATA

from qacamp.autojudge import compile_pattern, judge_runs, translate
from qacamp.errors import InputError
from qacamp.scoring import score_campaign
from qacamp.tables import SCHEMAS, conform, empty

DATA = SHARED_DATA
GOLD = DATA / "qa4mre" / "QA4MRE-2013-Alzheimer-subset_GS.xml"
PATTERNS = DATA / "trec-qa" / "trec13patterns_factoid"


def test_always_nca_baseline_equals_nca_share():
    """The expectation counted in the raw XML, not from the reader's flags: the
    main questions (q_id 1-15 of each reading test) whose answer marked
    correct="Yes" reads "None of the above"."""
    import re

    from qacamp.readers.qa4mre import read_gold

    raw = GOLD.read_text(encoding="utf-8")
    blocks = re.findall(r'<q\s+q_id="(\d+)"\s*>(.*?)</q>', raw, re.S)
    main_blocks = [b for qid, b in blocks if int(qid) <= 15]
    nca = [b for b in main_blocks
           if re.search(r'correct="Yes"[^>]*>\s*none of the above', b, re.I)]
    assert (len(blocks), len(main_blocks), len(nca)) == (100, 100, 22)
    q, o = read_gold(GOLD)
    t = {n: empty(n) for n in SCHEMAS}
    t.update(questions=q, options=o)
    res = score_campaign("qa4mre", t, {"baseline_seed": 1})
    runs = res["runs"].filter((pl.col("scope") == "all") & (pl.col("measure") == "c_at_1"))
    got = dict(zip(runs["run"].to_list(), runs["value"].to_list(), strict=True))
    # "a dummy system that always returns this option" (NCA, QA4MRE 2013 overview):
    # it answers every question, right on the 22 NCA ones: c@1 = 22 / 100
    assert got["baseline:always-nca"] == pytest.approx(22 / 100, abs=1e-15)
    # random choice, expected: mean of 1/k = 0.2 with 5 options everywhere
    assert got["baseline:random-expected"] == pytest.approx(0.2)
    assert got["baseline:answer-nothing"] == 0.0
    again = score_campaign("qa4mre", t, {"baseline_seed": 1})
    assert res["runs"].equals(again["runs"])  # seeded run is reproducible


@pytest.mark.skipif(not PATTERNS.exists(), reason="shared data missing")
def test_autojudge_real_patterns():
    from qacamp.readers.answer_keys import read_patterns

    pats = read_patterns(PATTERNS)
    q = conform("questions", pl.DataFrame({"qid": ["1.4", "1.5", "2.1", "999.1"],
                                           "qtype": ["FACTOID"] * 4, "position": [1, 2, 3, 4],
                                           "nil_answer": [None, None, None, True]}))
    resp = conform("responses", pl.DataFrame({
        "run": ["r"] * 4, "qid": ["1.4", "1.5", "2.1", "999.1"], "item": [1] * 4,
        "rank": [1, 2, 3, 4], "answered": [True] * 4, "nil": [False, False, False, True],
        "answer": ["they wore BLACK", "red", "Limp Bizkit", ""]}))
    j = judge_runs(q, resp, pats).sort("qid")
    assert j["judgment_set"].unique().to_list() == ["automatic"]
    assert j["judgment"].to_list() == ["R", "W", "R", "R"]  # 999.1: NIL on a NIL question
    t = {n: empty(n) for n in SCHEMAS}
    # automatic judging happens at ingest; scoring sees an ordinary judgment set
    t.update(questions=q, responses=resp, patterns=pats, judgments=j)
    res = score_campaign("trec-factoid", t, {})
    acc = res["runs"].filter((pl.col("measure") == "accuracy") & (pl.col("scope") == "all"))
    assert acc.select("judgment_set", "value").rows() == [("automatic", 0.75)]


def test_perl_translation_and_rejection():
    assert translate(r"\Qa.b\E") == r"a\.b"
    assert compile_pattern(r"foo\z").search("foo")
    with pytest.raises(InputError, match="not a usable regular expression"):
        compile_pattern("(unclosed", "1.1")
