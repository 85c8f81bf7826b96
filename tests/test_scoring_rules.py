"""Scoring rules traced to their source sentences (numbers a campaign
paper can print).  Each test names the sentence it follows; values are hand computed."""

from __future__ import annotations

import polars as pl
import pytest
import yaml
from paths import ROOT, SHARED_DATA
from scoring_util import T, val

from qacamp.errors import ConfigError
from qacamp.ingest import ingest_campaign
from qacamp.readers import answer_keys, trec_questions
from qacamp.scoring import OUT_SCHEMAS, score_campaign
from qacamp.tables import SCHEMAS, conform, empty

TREC = SHARED_DATA / "trec-qa"



# --------------------------------------------------------------------------- Other score by year

def pyramid_series():
    """One series: a right factoid and an Other question with two nuggets, n1 vital
    (weight 1.0) and n2 okay (weight 0.5); the run's 50-character response matches
    n2 only."""
    q = {"qid": ["1.1", "1.2"], "qtype": ["FACTOID", "OTHER"], "series": ["1", "1"],
         "position": [1, 2]}
    resp = {"run": ["a", "a"], "qid": ["1.1", "1.2"], "item": [1, 1], "rank": [1, 2],
            "answered": [True, True], "nil": [False, False], "answer": ["x", "y" * 50]}
    jd = {"judgment_set": ["adj"], "run": ["a"], "qid": ["1.1"], "item": [1], "judgment": ["R"]}
    nug = {"qid": ["1.2", "1.2"], "nugget": ["1", "2"], "vital": [True, False],
           "weight": [1.0, 0.5]}
    nm = {"judgment_set": ["adj"], "run": ["a"], "qid": ["1.2"], "item": [1], "nugget": ["2"]}
    return T(questions=q, responses=resp, judgments=jd, nuggets=nug, nugget_matches=nm)


# nugget F: recall 0/1 vital -> F = 0.  Pyramid: recall 0.5/1.5 = 1/3, allowance 100 > 50
# -> P = 1, F(3) = 10 * 1/3 / (9 + 1/3) = 10/28.  No list questions: 2006-2007 weights 0.5/0.5.
PYRAMID_F = 10 / 28


def test_2007_series_score_uses_the_pyramid_f():
    # 2007 guidelines: "the official scores for the 'Other' questions will be computed
    # using multiple assessors' judgments of the importance of information nuggets"
    res = score_campaign("trec-series", pyramid_series(), {"year": 2007})
    assert val(res, "a", "other_pyramid_f") == pytest.approx(PYRAMID_F)
    assert val(res, "a", "other_f") == 0.0
    assert val(res, "a", "series_score", "series", "1") == pytest.approx(0.5 + 0.5 * PYRAMID_F)


def test_2006_series_score_uses_the_single_assessor_nugget_f():
    # 2006 guidelines: pyramid scores "are experimental and will not be used to calculate
    # the per-series scores"
    res = score_campaign("trec-series", pyramid_series(), {"year": 2006})
    assert val(res, "a", "series_score", "series", "1") == pytest.approx(0.5)


def test_other_score_override():
    res = score_campaign("trec-series", pyramid_series(), {"year": 2007, "other_score": "nugget"})
    assert val(res, "a", "series_score", "series", "1") == pytest.approx(0.5)
    res = score_campaign("trec-series", pyramid_series(), {"year": 2006, "other_score": "pyramid"})
    assert val(res, "a", "series_score", "series", "1") == pytest.approx(0.5 + 0.5 * PYRAMID_F)


def test_2007_without_pyramid_weights_is_refused():
    t = pyramid_series()
    t["nuggets"] = t["nuggets"].with_columns(pl.lit(None, pl.Float64).alias("weight"))
    with pytest.raises(ConfigError, match="TREC 2007 scores Other questions with pyramid"):
        score_campaign("trec-series", t, {"year": 2007})


@pytest.mark.skipif(not TREC.exists(), reason="../shared/data missing")
def test_real_trec2007_pyramid_file_scores_every_other_question():
    # the 2007 pyramid file has weights but no vital/okay labels: every Other question
    # with weights is judged; the nugget F (which needs vital labels) is not computable
    q = trec_questions.read_series_xml(TREC / "trec16questions.xml")
    nug = answer_keys.read_pyramid(TREC / "trec16answers_other_pyramid")
    other = q.filter(pl.col("qtype") == "OTHER")
    resp = conform("responses", other.select(pl.lit("r").alias("run"), "qid",
                                             pl.lit(1, pl.Int32).alias("item"),
                                             pl.col("position").alias("rank"),
                                             pl.lit("z" * 10).alias("answer"),
                                             pl.lit(True).alias("answered")))
    # the run matches nugget 1 of every question
    nm = conform("nugget_matches", nug.filter(pl.col("nugget") == "1").select(
        pl.lit("adj").alias("judgment_set"), pl.lit("r").alias("run"), "qid",
        pl.lit(1, pl.Int32).alias("item"), "nugget"))
    t = {n: empty(n) for n in SCHEMAS}
    t.update(questions=q, nuggets=nug, responses=resp, nugget_matches=nm)
    res = score_campaign("trec-series", t, {"year": 2007, "skip": ["factoid", "list"]})
    units = res["units"].filter(pl.col("measure") == "other_pyramid_recall")
    judged = nug.group_by("qid").agg(pl.col("weight").sum()).filter(pl.col("weight") > 0)
    assert units.height == judged.height
    w = nug.group_by("qid").agg(pl.col("weight").sum().alias("tot"),
                                pl.col("weight").filter(pl.col("nugget") == "1").first()
                                .alias("w1"))
    expect = dict(w.filter(pl.col("tot") > 0).select(
        "qid", pl.col("w1") / pl.col("tot")).iter_rows())
    got = dict(units.select("unit", "value").iter_rows())
    assert got == pytest.approx(expect)
    assert res["units"].filter(pl.col("measure") == "other_f").height == 0


# --------------------------------------------------------------------------- dropped series

@pytest.mark.skipif(not TREC.exists(), reason="../shared/data missing")
def test_trec2004_unjudged_series_drops_only_its_series_score():
    # Voorhees 2005: "final scores for runs were computed over 64 rather than 65 question
    # series", yet "212 of the 230 factoid questions (92.2%) have a zero median": all 230
    # factoid questions count at question level.
    q = trec_questions.read_series_xml(TREC / "trec13questions.xml")
    nug = answer_keys.read_nuggets(TREC / "trec13answers_other")
    fq = q.filter(pl.col("qtype") == "FACTOID")
    # one run, right exactly on the questions numbered .1 in their series
    right = fq["qid"].str.ends_with(".1")
    resp = conform("responses", fq.select(pl.lit("r").alias("run"), "qid",
                                          pl.lit(1, pl.Int32).alias("item"),
                                          pl.col("position").alias("rank"),
                                          pl.lit("x").alias("answer"),
                                          pl.lit(True).alias("answered")))
    jd = conform("judgments", fq.select(pl.lit("adj").alias("judgment_set"),
                                        pl.lit("r").alias("run"), "qid",
                                        pl.lit(1, pl.Int32).alias("item"),
                                        pl.when(right).then(pl.lit("R")).otherwise(pl.lit("W"))
                                        .alias("judgment")))
    t = {n: empty(n) for n in SCHEMAS}
    t.update(questions=q, nuggets=nug, responses=resp, judgments=jd)
    res = score_campaign("trec-series", t, {"year": 2004, "skip": ["list"]})
    assert fq.height == 230
    assert val(res, "r", "accuracy") == pytest.approx(right.sum() / 230)
    series = res["runs"].filter((pl.col("measure") == "series_score")
                                & (pl.col("scope") == "series"))
    assert series.height == 64 and "7" not in series["unit"].to_list()
    dropped = res["dropped"].filter(pl.col("scope") == "series")
    assert dropped["unit"].to_list() == ["7"]
    assert "7.1" in res["outcomes"]["qid"].to_list()


# --------------------------------------------------------------------------- beta by year

def definition_tables():
    # TREC 2003-style campaign: one factoid (R) and one definition (OTHER) question;
    # 1 of 2 vital nuggets matched (+1 okay), allowance 200, length 400 -> P = 1 - 200/400
    q = {"qid": ["1", "2"], "qtype": ["FACTOID", "OTHER"], "position": [1, 2]}
    resp = {"run": ["a", "a"], "qid": ["1", "2"], "item": [1, 1], "rank": [1, 2],
            "answered": [True, True], "nil": [False, False], "answer": ["x", "y" * 400]}
    jd = {"judgment_set": ["adj"], "run": ["a"], "qid": ["1"], "item": [1], "judgment": ["R"]}
    nug = {"qid": ["2", "2", "2"], "nugget": ["1", "2", "3"], "vital": [True, True, False]}
    nm = {"judgment_set": ["adj"] * 2, "run": ["a"] * 2, "qid": ["2", "2"], "item": [1, 1],
          "nugget": ["1", "3"]}
    return T(questions=q, responses=resp, judgments=jd, nuggets=nug, nugget_matches=nm)


def test_beta_5_for_trec2003_definition_questions():
    # TREC 2003 definition questions: F(beta=5); from 2004 "nugget recall three times as
    # important as nugget precision" (beta=3).  1 of 2 vital matched (+1 okay): R = 0.5,
    # allowance 200, length 300: P = 1 - 100/300 = 2/3
    t = definition_tables()
    t["responses"] = t["responses"].with_columns(
        pl.when(pl.col("qid") == "2").then(pl.lit("y" * 300)).otherwise(pl.col("answer"))
        .alias("answer"))
    p, r = 2 / 3, 0.5
    f5 = 26 * p * r / (25 * p + r)
    f3 = 10 * p * r / (9 * p + r)
    res5 = score_campaign("trec-factoid", t, {"beta": 5})
    res3 = score_campaign("trec-factoid", t, {"beta": 3})
    assert val(res5, "a", "other_f") == pytest.approx(f5)
    assert val(res3, "a", "other_f") == pytest.approx(f3)
    # questions typed DEFINITION are TREC 2003's: beta 5 is the default there (the edition's)
    d = {**t, "questions": t["questions"].with_columns(
        pl.col("qtype").replace("OTHER", "DEFINITION"))}
    assert val(score_campaign("trec-factoid", d, {}), "a", "other_f") == pytest.approx(f5)
    assert val(score_campaign("trec-factoid", d, {"beta": 3}), "a", "other_f") == \
        pytest.approx(f3)
    # type_score ("FinalScore = .5FactoidAccuracy + .25ListAveF + .25DefinitionAveF") uses
    # the campaign's beta: no list questions count 0
    assert val(res5, "a", "type_score") == pytest.approx(0.5 + 0.25 * f5)


# --------------------------------------------------------------------------- MRR, lenient

def ranked_tables():
    # TREC 8-10: "a ranked list of up to five [document-id, answer-string] pairs per
    # question ... the reciprocal of the rank at which the first correct response was
    # returned, or zero".  q1: W, U, R -> strict 1/3, lenient 1/2; q2: U first -> strict 0
    # (no R), lenient 1; q3: six answers, R only at rank 6 -> beyond 5: 0.
    q = {"qid": ["1", "2", "3"], "qtype": ["FACTOID"] * 3, "position": [1, 2, 3]}
    items = [("1", 1, "W"), ("1", 2, "U"), ("1", 3, "R"), ("2", 1, "U"), ("2", 2, "W"),
             *[("3", k, "W") for k in range(1, 6)], ("3", 6, "R")]
    resp = {"run": ["a"] * len(items), "qid": [i[0] for i in items],
            "item": [i[1] for i in items], "rank": [int(i[0]) for i in items],
            "answered": [True] * len(items), "nil": [False] * len(items)}
    jd = {"judgment_set": ["adj"] * len(items), "run": ["a"] * len(items),
          "qid": [i[0] for i in items], "item": [i[1] for i in items],
          "judgment": [i[2] for i in items]}
    return T(questions=q, responses=resp, judgments=jd)


def test_mrr_strict_and_lenient_on_ranked_answers():
    res = score_campaign("trec-factoid", ranked_tables(), {})
    assert val(res, "a", "mrr") == pytest.approx((1 / 3 + 0 + 0) / 3)
    assert val(res, "a", "mrr_lenient") == pytest.approx((1 / 2 + 1 + 0) / 3)
    # accuracy judges the first answer: W, U, W -> 0; lenient: U on q2 -> 1/3
    assert val(res, "a", "accuracy") == 0.0
    assert val(res, "a", "accuracy_lenient") == pytest.approx(1 / 3)
    # the rank cap is configurable: counting 6 answers, q3 scores 1/6
    res6 = score_campaign("trec-factoid", ranked_tables(), {"max_rank": 6})
    assert val(res6, "a", "mrr") == pytest.approx((1 / 3 + 0 + 1 / 6) / 3)
    u = res["units"].filter(pl.col("measure") == "mrr").sort("unit")
    assert u["value"].to_list() == pytest.approx([1 / 3, 0.0, 0.0])


def test_locally_correct_is_wrong_officially_and_right_in_accuracy_local():
    # TREC 2006-2007 "distinguished between answers that were globally correct ... and
    # those that were only locally correct": L counts as wrong in the official accuracy.
    q = {"qid": ["1", "2", "3", "4"], "qtype": ["FACTOID"] * 4, "position": [1, 2, 3, 4]}
    resp = {"run": ["a"] * 4, "qid": ["1", "2", "3", "4"], "item": [1] * 4,
            "rank": [1, 2, 3, 4], "answered": [True] * 4, "nil": [False] * 4}
    jd = {"judgment_set": ["adj"] * 4, "run": ["a"] * 4, "qid": ["1", "2", "3", "4"],
          "item": [1] * 4, "judgment": ["R", "L", "L", "W"]}
    res = score_campaign("trec-factoid", T(questions=q, responses=resp, judgments=jd), {})
    assert val(res, "a", "accuracy") == 0.25
    assert val(res, "a", "accuracy_local") == 0.75
    assert res["outcomes"]["outcome"].to_list() == ["R", "W", "W", "W"]


# --------------------------------------------------------------------------- QA4MRE details

def mc_tables(nca: bool):
    # one topic, two reading tests of two questions; options a-c, "c" = None of the above
    qids = ["1.1.1", "1.1.2", "1.2.1", "1.2.2"]
    q = {"qid": qids, "qtype": ["MC"] * 4, "topic": ["1"] * 4,
         "test": ["1.1", "1.1", "1.2", "1.2"], "position": [1, 2, 3, 4]}
    opts = {"qid": [x for x in qids for _ in "abc"], "option": list("abc") * 4,
            "correct": [True, False, False, False, True, False, False, False, True,
                        False, False, True],
            "is_noa": [o == "c" and nca for _ in qids for o in "abc"]}
    # run: test 1.1 both right (c@1 1.0); test 1.2 one right, one wrong (c@1 0.5)
    resp = {"run": ["r"] * 4, "qid": qids, "item": [1] * 4, "rank": [1, 2, 3, 4],
            "answered": [True] * 4, "answer": ["a", "b", "a", "c"], "nil": [False] * 4}
    jd = {"judgment_set": ["gold"] * 4, "run": ["r"] * 4, "qid": qids, "item": [1] * 4,
          "judgment": ["R", "R", "W", "R"]}
    return T(questions=q, options=opts, responses=resp, judgments=jd)


def test_always_nca_baseline_only_with_nca_options():
    # QA4MRE 2013: "a baseline for a dummy system that always returns this option" (NCA);
    # NoA in the paper means "no answer" (baseline:answer-nothing)
    with_nca = score_campaign("qa4mre", mc_tables(True), {})
    runs = set(with_nca["runs"]["run"].to_list())
    assert "baseline:always-nca" in runs and "baseline:answer-nothing" in runs
    # NCA is right on 1.2.1 and 1.2.2 (option c correct): c@1 = 2/4
    assert val(with_nca, "baseline:always-nca", "c_at_1") == 0.5
    without = score_campaign("qa4mre", mc_tables(False), {})
    assert not any("always-nca" in r for r in without["runs"]["run"].to_list())


def test_reading_pass_rule_and_std_ddof():
    # tests c@1: 1.0 and 0.5.  Section 5.3: "passes a test ... equal or higher than 0.5"
    # (default: 2 passed); section 5.2: "more than 0.5" (1 passed)
    res = score_campaign("qa4mre", mc_tables(True), {})
    assert val(res, "r", "tests_passed") == 2
    res = score_campaign("qa4mre", mc_tables(True), {"pass_rule": "more_than"})
    assert val(res, "r", "tests_passed") == 1
    # std of [1.0, 0.5]: population 0.25, sample sqrt(0.125)
    assert val(res, "r", "test_c_at_1_std") == pytest.approx(0.25)
    res = score_campaign("qa4mre", mc_tables(True), {"test_std_ddof": 1})
    assert val(res, "r", "test_c_at_1_std") == pytest.approx(0.125 ** 0.5)
    with pytest.raises(ConfigError, match="pass_rule"):
        score_campaign("qa4mre", mc_tables(True), {"pass_rule": "above"})


# --------------------------------------------------------------------------- determinism

def test_demo_series_campaign_scores_are_byte_identical(tmp_path):
    # the demo's TREC-2004-like campaign, scored several times: identical bytes (the
    # float means are summed in a fixed order, qacamp.aggregate)
    from qacamp.io import write_parquet

    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["campaigns"]["trec2004"]
    tables = ingest_campaign("trec2004", cfg, base_dir=ROOT)
    digests = set()
    for i in range(4):
        res = score_campaign("trec-series", tables, {"year": 2004})
        blob = []
        for name in OUT_SCHEMAS:
            path = tmp_path / f"{i}_{name}.parquet"
            write_parquet(res[name], path)
            blob.append(path.read_bytes())
        digests.add(b"".join(blob))
    assert len(digests) == 1


def test_skip_is_explicit_and_renormalises():
    # an explicitly skipped component: list measures absent, series without lists use the
    # no-list weights (0.67 / 0.33), never silently
    t = pyramid_series()
    res = score_campaign("trec-series", t, {"year": 2004, "skip": ["other"]})
    assert not res["runs"].filter(pl.col("measure").str.starts_with("other")).height
    assert val(res, "a", "series_score", "series", "1") == pytest.approx(1.0)
    reasons = res["dropped"].filter(pl.col("unit") == "1.2")["reason"].to_list()
    assert reasons == ["Other questions skipped by the config (skip: [other])"]

