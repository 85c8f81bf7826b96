"""score_campaign on hand-built canonical tables (values computed by hand)."""

from pathlib import Path

import duckdb
import polars as pl
import pytest
from scoring_util import T, val

from qacamp.io import write_campaign_duckdb, write_csv, write_parquet, writing
from qacamp.scoring import OUT_SCHEMAS, runs_wide, score_campaign
from qacamp.tables import empty


def factoid_tables():
    # 4 questions; q4 never judged (dropped). run a: R, W(U), NIL judged R; run b: all NIL;
    # run c: no responses at all (run_names).
    q = {"qid": ["1", "2", "3", "4"], "qtype": ["FACTOID"] * 4, "position": [1, 2, 3, 4],
         "nil_answer": [None, None, None, None]}
    resp = {"run": ["a", "a", "a", "b", "b", "b"], "qid": ["1", "2", "3", "1", "2", "3"],
            "item": [1] * 6, "rank": [2, 1, 3, 1, 2, 3], "answered": [True] * 6,
            "nil": [False, False, True, True, True, True]}
    jd = {"judgment_set": ["adj"] * 6, "run": resp["run"], "qid": resp["qid"], "item": [1] * 6,
          "judgment": ["R", "U", "R", "W", "W", "R"]}
    return T(questions=q, responses=resp, judgments=jd)


def test_factoid_scenario():
    res = score_campaign("trec-factoid", factoid_tables(), {"run_names": ["c"]})
    for name, schema in OUT_SCHEMAS.items():
        assert res[name].schema == pl.Schema(schema)
    # q4 has no judgments -> dropped and reported
    d = res["dropped"]
    assert d.select("judgment_set", "scope", "unit").rows() == [("adj", "question", "4")]
    # run a: outcomes by confidence order q2 (U -> W), q1 R, q3 NIL R
    assert val(res, "a", "accuracy") == pytest.approx(2 / 3)
    # CWS over [0, 1, 1]: (0/1 + 1/2 + 2/3) / 3 = 0.3889
    assert val(res, "a", "cws") == pytest.approx((0 + 1 / 2 + 2 / 3) / 3)
    # NIL questions (nil_answer unknown) = those where some NIL was judged R: {q3}
    assert val(res, "a", "nil_precision") == 1.0 and val(res, "a", "nil_recall") == 1.0
    # run b, all NIL: only q3 right -> acc 1/3, NIL precision 1/3, recall 1/1
    assert val(res, "b", "accuracy") == pytest.approx(1 / 3)
    assert val(res, "b", "nil_precision") == pytest.approx(1 / 3)
    assert val(res, "b", "nil_recall") == 1.0
    # run c, no responses: every question UE, all scores 0, n = 3
    assert val(res, "c", "accuracy") == 0.0 and val(res, "c", "cws") == 0.0
    assert val(res, "c", "nil_precision") == 0.0
    oc = res["outcomes"].filter(pl.col("run") == "c")
    assert oc["outcome"].to_list() == ["UE"] * 3 and oc["rank"].null_count() == 3
    assert not oc["answered"].any()
    # deterministic canonical order
    again = score_campaign("trec-factoid", factoid_tables(), {"run_names": ["c"]})
    for name in OUT_SCHEMAS:
        assert res[name].equals(again[name])
    assert res["runs"].equals(res["runs"].sort(["judgment_set", "run", "scope", "unit",
                                                "measure"]))


def test_nil_answer_column_wins():
    t = factoid_tables()
    t["questions"] = t["questions"].with_columns(
        pl.Series("nil_answer", [False, True, False, None]))
    res = score_campaign("trec-factoid", t, {})
    # NIL questions now {q2} (known): run b's NIL on q2 judged W -> recall 0/1
    assert val(res, "b", "nil_recall") == 0.0


def test_missing_responses_are_unanswered_and_count_in_n():
    q = {"qid": ["1", "2", "3", "4"], "qtype": ["QA"] * 4, "position": [1, 2, 3, 4]}
    resp = {"run": ["r"] * 3, "qid": ["1", "2", "3"], "item": [1] * 3, "rank": [1, 2, 3],
            "answered": [True, True, False], "candidate": [None, None, "x"], "nil": [False] * 3}
    jd = {"judgment_set": ["official"] * 3, "run": ["r"] * 3, "qid": ["1", "2", "3"],
          "item": [1] * 3, "judgment": ["R", "W", "R"]}
    res = score_campaign("clef-qa", T(questions=q, responses=resp, judgments=jd), {})
    # n = 4: R, W, UR, UE(missing): c@1 = (1 + 2*1/4)/4 = 0.375; acc = 0.25
    assert val(res, "r", "c_at_1") == pytest.approx(0.375)
    assert val(res, "r", "accuracy") == 0.25
    assert val(res, "r", "qa4mre_accuracy") == 0.5          # (1 + 1)/4
    assert val(res, "r", "correctly_discarded") == 0.5      # (0 + 1)/2
    assert val(res, "r", "n_unanswered_empty") == 1.0
    assert res["outcomes"]["outcome"].to_list() == ["R", "W", "UR", "UE"]


def series_tables(year_nuggets_zero_vital=True):
    # series 1: F1 (R), F2 (W), L1 (list), O1 (Other);  series 2: F3 (R), O2 (no list)
    # series 3: F4 judged, O3 with only okay nuggets (zero vital) -> series dropped
    q = {"qid": ["1.1", "1.2", "1.3", "1.4", "2.1", "2.2", "3.1", "3.2"],
         "qtype": ["FACTOID", "FACTOID", "LIST", "OTHER", "FACTOID", "OTHER", "FACTOID", "OTHER"],
         "series": ["1", "1", "1", "1", "2", "2", "3", "3"], "position": list(range(1, 9))}
    resp = {"run": ["a"] * 9,
            "qid": ["1.1", "1.2", "1.3", "1.3", "1.4", "2.1", "2.2", "3.1", "3.2"],
            "item": [1, 1, 1, 2, 1, 1, 1, 1, 1], "rank": [1, 2, 3, 3, 4, 5, 6, 7, 8],
            "answered": [True] * 9, "nil": [False] * 9,
            "answer": ["x", "y", "p", "q", "a" * 150, "z", "b" * 100, "w", "c"]}
    jd = {"judgment_set": ["adj"] * 6, "run": ["a"] * 6,
          "qid": ["1.1", "1.2", "1.3", "1.3", "2.1", "3.1"], "item": [1, 1, 1, 2, 1, 1],
          "judgment": ["R", "W", "R", "W", "R", "R"], "distinct": [None, None, True, False,
                                                                 None, None]}
    nug = {"qid": ["1.4", "1.4", "2.2", "3.2"], "nugget": ["1", "2", "1", "1"],
           "vital": [True, False, True, False]}
    nm = {"judgment_set": ["adj"] * 2, "run": ["a"] * 2, "qid": ["1.4", "2.2"], "item": [1, 1],
          "nugget": ["1", "1"]}
    key = {"qid": ["1.3"] * 4, "instance": ["p", "r", "s", "t"]}
    return T(questions=q, responses=resp, judgments=jd, nuggets=nug, nugget_matches=nm,
             list_key=key)


def test_series_scores_2004():
    res = score_campaign("trec-series", series_tables(), {"year": 2004})
    dropped = res["dropped"]
    assert ("adj", "series", "3") in dropped.select("judgment_set", "scope", "unit").rows()
    assert ("adj", "question", "3.2") in dropped.select("judgment_set", "scope", "unit").rows()
    # series 1: acc 1/2; list N=2 D=1 S=4: IP .5 IR .25 F 1/3; Other: 1/1 vital, allowance 100,
    #   length 150 -> P = 1 - 50/150 = 2/3, F = 10*(2/3)*1/(9*(2/3)+1) = (20/3)/7 = 0.95238
    f1 = (20 / 3) / 7
    s1 = 0.5 * 0.5 + 0.25 * (1 / 3) + 0.25 * f1
    assert val(res, "a", "series_score", "series", "1") == pytest.approx(s1)
    # series 2 (no list): acc 1; Other length 100 == allowance -> P 1, R 1, F 1;
    #   0.67*1 + 0.33*1 = 1.0
    assert val(res, "a", "series_score", "series", "2") == pytest.approx(1.0)
    assert val(res, "a", "series_score") == pytest.approx((s1 + 1.0) / 2)
    # series 3 is left out of the series score only: its factoid question 3.1 still
    # counts (Voorhees 2005 counts "212 of the 230 factoid questions", all of them):
    # accuracy over the 4 judged factoid questions = 3 of 4
    assert val(res, "a", "accuracy") == pytest.approx(3 / 4)
    assert ("adj", "question", "3.1") not in dropped.select("judgment_set", "scope", "unit").rows()
    # type score (whole test set): 0.5*3/4 + 0.25*(1/3) + 0.25*mean(f1, 1)
    assert val(res, "a", "type_score") == pytest.approx(0.5 * 3 / 4 + 0.25 / 3
                                                        + 0.25 * (f1 + 1) / 2)
    # the left-out series has component rows but no series score
    assert val(res, "a", "accuracy", "series", "3") == 1.0
    assert res["runs"].filter((pl.col("measure") == "series_score") & (pl.col("unit") == "3")
                              ).height == 0
    u = res["units"].filter(pl.col("measure") == "other_precision").sort("unit")
    assert u["value"].to_list() == pytest.approx([2 / 3, 1.0])


def test_series_scores_2006_thirds():
    res = score_campaign("trec-series", series_tables(), {"year": 2006})
    f1 = (20 / 3) / 7
    assert val(res, "a", "series_score", "series", "1") == pytest.approx((0.5 + 1 / 3 + f1) / 3)


def test_list_without_key_dropped():
    t = series_tables()
    t["list_key"] = empty("list_key")
    res = score_campaign("trec-series", t, {"year": 2004})
    rows = res["dropped"].select("scope", "unit").rows()
    assert ("question", "1.3") in rows
    # series 1 now without list: 0.67*0.5 + 0.33*f1
    f1 = (20 / 3) / 7
    assert val(res, "a", "series_score", "series", "1") == pytest.approx(0.67 * 0.5 + 0.33 * f1)


def test_write_scores_and_duckdb(tmp_path: Path):
    res = score_campaign("trec-factoid", factoid_tables(), {})
    ingest = tmp_path / "c" / "ingest"
    ingest.mkdir(parents=True)
    write_parquet(factoid_tables()["questions"], ingest / "questions.parquet")
    scores = tmp_path / "c" / "scores"
    with writing("qacamp score", dirs=[scores]):
        for n in OUT_SCHEMAS:
            write_parquet(res[n], scores / f"{n}.parquet")
        write_csv(runs_wide(res["runs"], "adj", "trec-factoid"), scores / "runs.csv")
    write_campaign_duckdb(tmp_path / "c")
    csv = (tmp_path / "c" / "scores" / "runs.csv").read_text().splitlines()
    assert csv[0].startswith("run,accuracy,cws")
    assert csv[1].startswith("a,0.666667,")
    con = duckdb.connect(str(tmp_path / "c" / "campaign.duckdb"), read_only=True)
    n = con.execute("select count(*) from runs where measure = 'accuracy'").fetchone()[0]
    assert n == res["runs"].filter(pl.col("measure") == "accuracy").height
    assert con.execute("select count(*) from questions").fetchone()[0] == 4
    con.close()
