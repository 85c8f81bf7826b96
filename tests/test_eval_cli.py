"""`qacamp eval`, `qacamp measures`, `qacamp score` end to end."""

import json

import polars as pl
import pytest
from paths import SHARED_DATA

from qacamp.cli import main
from qacamp.io import write_parquet, write_text

DATA = SHARED_DATA
GOLD = DATA / "qa4mre" / "QA4MRE-2013-Alzheimer-subset_GS.xml"

RUN = """<output run_id="r1"><topic t_id="1"><reading-test r_id="1">
<question q_id="1" answered="YES"><answer a_id="5"/></question>
<question q_id="2" answered="NO"><answer a_id="1"/></question>
</reading-test></topic></output>"""


@pytest.mark.skipif(not GOLD.exists(), reason="shared data missing")
def test_eval_qa4mre(tmp_path, capsys):
    run = tmp_path / "r1" / "run.xml"
    run.parent.mkdir()
    run.write_text(RUN)
    assert main(["eval", "qa4mre", "--gold", str(GOLD), str(run), "-m", "c_at_1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "run\tmeasure\tscope\tunit\tvalue"
    r1 = [ln.split("\t") for ln in lines if ln.startswith("r1\t")]
    # 100 questions: q1.1.1 answered 5 (NoA, correct) R; rest unanswered:
    # c@1 = (1 + 99*1/100)/100 = 0.0199
    assert r1 == [["r1", "c_at_1", "all", "all", "0.0199"]]
    assert main(["eval", "qa4mre", "--gold", str(GOLD), str(run), "-q", "-m", "c_at_1"]) == 0
    out = capsys.readouterr().out
    assert "r1\tc_at_1\ttest\t1.1\t" in out and "r1\tc_at_1\tquestion\t" not in out


def test_eval_unknown_measure(tmp_path, capsys):
    rc = main(["eval", "clef-qa", "--questions", str(tmp_path / "q.tsv"), "x.tsv",
               "-m", "nope"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "unknown measure" in err and "c_at_1" in err


def test_measures_cli(tmp_path, capsys):
    assert main(["measures"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("name\tfamily\taggregation") and "\ncws\tfactoid\torder" in out
    md = tmp_path / "m.md"
    assert main(["measures", "--markdown", str(md)]) == 0
    assert "`series_score`" in md.read_text()


def test_score_cli(tmp_path):
    from qacamp.tables import SCHEMAS, conform, empty

    ingest = tmp_path / "camp" / "ingest"
    ingest.mkdir(parents=True)
    tables = {n: empty(n) for n in SCHEMAS}
    tables["questions"] = conform("questions", pl.DataFrame(
        {"qid": ["1", "2"], "qtype": ["QA", "QA"], "position": [1, 2]}))
    tables["responses"] = conform("responses", pl.DataFrame(
        {"run": ["r", "r"], "qid": ["1", "2"], "item": [1, 1], "rank": [1, 2],
         "answered": [True, False]}))
    tables["judgments"] = conform("judgments", pl.DataFrame(
        {"judgment_set": ["official"], "run": ["r"], "qid": ["1"], "item": [1],
         "judgment": ["R"]}))
    for n, df in tables.items():
        write_parquet(df, ingest / f"{n}.parquet")
    write_text(json.dumps({"kind": "clef-qa"}), ingest / "campaign.json")
    out = tmp_path / "camp" / "scores"
    assert main(["score", "--ingest", str(ingest), "--out", str(out)]) == 0
    csv = (out / "runs.csv").read_text().splitlines()
    # R + UE: c@1 = (1 + 1*1/2)/2 = 0.75
    assert csv[0].startswith("run,c_at_1,accuracy") and csv[1].startswith("r,0.750000,0.500000")
    # the DuckDB index is its own step (workflow rule `duckdb`)
    assert main(["duckdb", str(tmp_path / "camp")]) == 0
    assert (tmp_path / "camp" / "campaign.duckdb").exists()


TOPS = "".join(f"<top>\n<num> Number: {i}\n<desc> Description:\nQuestion {i}?\n</top>\n\n"
               for i in range(1, 6))


def test_eval_names_a_question_dropped_as_unjudged(tmp_path, capsys):
    """A TREC question that no run's line judges is dropped from scoring (its
    answer key is unknown): `qacamp eval` printed the scores without a word,
    so a run's accuracy looked like 2 of 4 where the report says a question
    was dropped.  Both now say it, the API as a warning."""
    import qacamp
    from qacamp.errors import QacampWarning

    write_text(TOPS, tmp_path / "q")
    write_text("3 runA D3 R foo\n1 runA D1 W bar\n2 runA NIL R\n5 runA D5 X baz\n",
               tmp_path / "runA")
    argv = ["eval", "trec-factoid", "--questions", str(tmp_path / "q"), str(tmp_path / "runA"),
            "-m", "accuracy", "--min-coverage", "0"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[1:] == ["runA\taccuracy\tall\tall\t0.5000"]
    assert err.splitlines() == ["qacamp eval: warning: judgment set adjudicated: question 4 "
                                "dropped from scoring (no judgments for this question in "
                                "this judgment set)"]
    with pytest.warns(QacampWarning, match="question 4 dropped from scoring"):
        qacamp.evaluate("trec-factoid", [tmp_path / "runA"], questions=tmp_path / "q",
                        measures=["accuracy"], min_coverage=0)
