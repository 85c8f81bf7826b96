"""End-to-end ingest of tiny campaigns of every kind, cross-file checks, writing."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from files_util import w

from qacamp import ingest, tables
from qacamp.cli import main
from qacamp.errors import ConfigError, InputError, OutputError

SERIES_XML = """<?xml version="1.0" encoding="ISO-8859-1"?>
<!DOCTYPE trecqa [
<!ELEMENT trecqa (target+)>
]>
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

TOP = "".join(f"<top>\n<num> Number: {i}\n<desc> Description:\nQuestion {i}?\n</top>\n\n"
              for i in (1, 2, 3))
TOP_LIST = "<top>\n<num> Number: 9\n<desc> Description:\nName 3 cities.\n</top>\n"


def _check_all(out: dict[str, pl.DataFrame]) -> None:
    assert set(out) == set(tables.SCHEMAS)
    for name, df in out.items():
        assert df.schema == pl.Schema(tables.SCHEMAS[name]), name
        assert df.equals(tables.canonical_order(name, df))


def _factoid(tmp_path: Path) -> dict:
    w(tmp_path, "q/trec11questions", TOP)
    w(tmp_path, "q/trec11questions_list", TOP_LIST)
    for s, j in (("adj", "R W X"), ("a1", "R R W")):
        codes = j.split()
        for run in ("runA", "runB"):
            w(tmp_path, f"{s}/{run}.txt",
               "".join(f"{q} {run} D{q} {c} ans{q}\n" for q, c in zip((3, 1, 2), codes, strict=True)))
        w(tmp_path, f"{s}/list/runA.list", "9 runA D1 1 1 Paris\n9 runA D2 -1 0 Rome\n")
    w(tmp_path, "q/list_key", "# 9\nQ: Name 3 cities.\nParis\nLyon\nNice\n")
    return {"kind": "trec-factoid", "questions": ["q/trec11questions", "q/trec11questions_list"],
            "list_key": "q/list_key",
            "judgment_sets": {"adj": ["adj/*.txt", "adj/list/*"], "a1": ["a1/*.txt", "a1/list/*"]},
            "primary": "adj"}


def test_trec_factoid(tmp_path):
    camp = _factoid(tmp_path)
    out = ingest.ingest_campaign("t", camp, tmp_path)
    _check_all(out)
    assert out["questions"]["qtype"].to_list() == ["FACTOID"] * 3 + ["LIST"]
    assert out["responses"].height == 2 * 3 + 2
    assert out["judgments"]["judgment_set"].value_counts().sort("judgment_set")["count"].to_list() == [8, 8]
    r = out["responses"].filter(pl.col("run") == "runA", pl.col("qid") == "3")
    assert r["rank"][0] == 1
    res = ingest.resolved_campaign("t", camp, tmp_path)
    assert res["primary"] == "adj" and res["judgment_sets"] == ["adj", "a1"]


def test_trec_factoid_unknown_qid(tmp_path):
    camp = _factoid(tmp_path)
    w(tmp_path, "adj/runA.txt", "1 runA D R x\n77 runA D W y\n")
    with pytest.raises(InputError) as ei:
        ingest.ingest_campaign("t", camp, tmp_path)
    assert "runA.txt" in ei.value.path and ei.value.place == "line 2" and "77" in ei.value.problem


def test_trec_factoid_sets_differ(tmp_path):
    camp = _factoid(tmp_path)
    w(tmp_path, "a1/runB.txt", "3 runB D R x\n1 runB D W y\n")
    with pytest.raises(InputError) as ei:
        ingest.ingest_campaign("t", camp, tmp_path)
    assert ei.value.path.endswith("a1/runB.txt") and "a1" in ei.value.problem


def test_trec_factoid_same_tag_twice(tmp_path):
    camp = _factoid(tmp_path)
    w(tmp_path, "adj/runC.txt", "1 runA D R x\n")
    with pytest.raises(InputError) as ei:
        ingest.ingest_campaign("t", camp, tmp_path)
    assert "runA" in ei.value.problem and "also comes from" in ei.value.problem


def test_glob_matching_nothing(tmp_path):
    camp = _factoid(tmp_path)
    camp["judgment_sets"]["adj"] = ["nothing/*.txt"]
    with pytest.raises(ConfigError) as ei:
        ingest.ingest_campaign("t", camp, tmp_path)
    assert ei.value.key == "campaigns.t.judgment_sets.adj"


def test_missing_key(tmp_path):
    with pytest.raises(ConfigError) as ei:
        ingest.ingest_campaign("t", {"kind": "qa4mre", "gold": "g.xml"}, tmp_path)
    assert ei.value.key == "campaigns.t.runs"


def _series(tmp_path: Path) -> dict:
    w(tmp_path, "q.xml", SERIES_XML)
    w(tmp_path, "nuggets", "Qid 1.3: x\n1.3 1\tvital\ta\n1.3 2\tokay\tb\n\n"
                            "Qid 2.2: y\n2.2 1\tvital\tc\n")
    w(tmp_path, "pyramid", "1.3\t1\t1\ta\n1.3\t2\t0.5\tb\n2.2\t1\t1\tc\n")
    w(tmp_path, "list_key", "# 1.2\nQ:Which?\nParis\nRome\n")
    w(tmp_path, "pf", "1.1 1995\n2.1 Fred\n")
    w(tmp_path, "pl", "1.2\tParis\tNYT19990317.0395 \n")
    for s in ("adj", "a2"):
        w(tmp_path, f"{s}/f/r1", "1.1 r1 D1 R 1995\n2.1 r1 NIL W\n")
        w(tmp_path, f"{s}/l/r1", "1.2 r1 D1 1 1 Paris\n1.2 r1 D2 -1 0 Oslo\n")
        w(tmp_path, f"{s}/o/r1.one", "1.3 r1 1 D1 blah\n1.3 r1 2 D2 more\n2.2 r1 1 D3 x\n")
        w(tmp_path, f"{s}/o/r1.two", "1.3 r1 1 2\n2.2 r1 1 1\n")
    sets = {s: {"factoid": f"{s}/f/*", "list": f"{s}/l/*", "other": f"{s}/o/*.one",
                "other_nuggets": f"{s}/o/*.two"} for s in ("adj", "a2")}
    return {"kind": "trec-series", "year": 2006, "questions": "q.xml", "nuggets": "nuggets",
            "pyramid": "pyramid", "list_key": "list_key", "patterns_factoid": "pf",
            "patterns_list": "pl", "judgment_sets": sets}


def test_trec_series(tmp_path):
    out = ingest.ingest_campaign("s", _series(tmp_path), tmp_path)
    _check_all(out)
    assert out["questions"].height == 5
    assert out["nuggets"]["weight"].to_list() == [1.0, 0.5, 1.0]
    assert out["nuggets"]["vital"].to_list() == [True, False, True]
    assert out["nugget_matches"].height == 4
    assert out["responses"].height == 2 + 2 + 3
    assert out["list_key"].height == 2 and out["patterns"].height == 3
    assert out["judgments"].filter(pl.col("qid") == "1.2")["distinct"].to_list() == [True, False] * 2
    res = ingest.resolved_campaign("s", _series(tmp_path), tmp_path)
    assert res["primary"] == "adj" and res["options"]["weights"]["factoid"] == pytest.approx(1 / 3)


def test_trec_series_unknown_nugget(tmp_path):
    camp = _series(tmp_path)
    w(tmp_path, "a2/o/r1.two", "1.3 r1 1 2\n2.2 r1 1 9\n")
    with pytest.raises(InputError) as ei:
        ingest.ingest_campaign("s", camp, tmp_path)
    assert ei.value.path.endswith("a2/o/r1.two") and ei.value.place == "line 2"


def test_trec_series_unpaired_part_two(tmp_path):
    camp = _series(tmp_path)
    w(tmp_path, "adj/o/r9.two", "1.3 r9 1 2\n")
    with pytest.raises(InputError) as ei:
        ingest.ingest_campaign("s", camp, tmp_path)
    assert "r9" in ei.value.problem


GOLD = """<?xml version="1.0" encoding="UTF-8"?>
<test-set><topic t_id="1" t_name="T"><reading-test r_id="1"><doc d_id="1">d</doc>
<q q_id="1"><q_str>A?</q_str><answer a_id="1" correct="Yes">a</answer><answer a_id="2">None of the above</answer></q>
<q q_id="2"><q_str>B?</q_str><answer a_id="1">a</answer><answer a_id="2" correct="Yes">b</answer></q>
</reading-test></topic></test-set>
"""


def _run(run_id: str, a1: str) -> str:
    return (f'<output run_id="{run_id}"><topic t_id="1"><reading-test r_id="1">'
            f'<question q_id="1" answered="YES"><answer a_id="{a1}"/></question>'
            '<question q_id="2" answered="NO"/></reading-test></topic></output>')


def test_qa4mre(tmp_path):
    w(tmp_path, "gold.xml", GOLD)
    w(tmp_path, "runs/a.xml", _run("ra", "1"))
    w(tmp_path, "runs/b.xml", _run("rb", "2"))
    camp = {"kind": "qa4mre", "gold": "gold.xml", "runs": "runs/*.xml", "language": "ES"}
    out = ingest.ingest_campaign("m", camp, tmp_path)
    _check_all(out)
    assert set(out["questions"]["language"]) == {"ES"}
    assert out["judgments"]["judgment"].to_list() == ["R", None, "W", None]
    res = ingest.resolved_campaign("m", camp, tmp_path)
    assert res["options"]["main_questions"] == 15 and res["primary"] == "gold"
    w(tmp_path, "runs/c.xml", _run("ra", "1"))
    with pytest.raises(InputError) as ei:
        ingest.ingest_campaign("m", camp, tmp_path)
    assert ei.value.path.endswith("c.xml") and "ra" in ei.value.problem


def test_clef(tmp_path):
    w(tmp_path, "q.tsv", "qid\n1\n2\n")
    h = "run\tqid\tanswered\tjudgment\tanswer\n"
    w(tmp_path, "runs/a.tsv", h + "a\t1\t1\tR\tx\na\t2\t0\t-\t\n")
    camp = {"kind": "clef-qa", "questions": "q.tsv", "runs": ["runs/a.tsv"]}
    out = ingest.ingest_campaign("c", camp, tmp_path)
    _check_all(out)
    assert out["responses"].height == 2
    w(tmp_path, "runs/a.tsv", h + "a\t1\t1\tR\tx\na\t5\t0\t-\t\n")
    with pytest.raises(InputError) as ei:
        ingest.ingest_campaign("c", camp, tmp_path)
    assert ei.value.place == "line 3" and "5" in ei.value.problem


def test_pan(tmp_path):
    w(tmp_path, "truth.jsonl", '{"id": "p1", "same": true}\n{"id": "p2", "same": false}\n')
    w(tmp_path, "runs/t1/answers.jsonl", '{"id": "p1", "value": 0.8}\n{"id": "p2", "value": 0.5}\n')
    w(tmp_path, "runs/t2/answers.jsonl", '{"id": "p1", "value": [0.1]}\n')
    out = ingest.ingest_campaign("p", {"kind": "pan", "truth": "truth.jsonl",
                                       "answers": "runs/*/answers.jsonl"}, tmp_path)
    _check_all(out)
    assert out["responses"]["run"].to_list() == ["t1", "t1", "t2"]
    assert out["judgments"]["judgment"].to_list() == ["R", None, "W"]


def test_score_matrix_and_write(tmp_path):
    w(tmp_path, "m.csv", "a,b\n0.1,0.2\n0.3,0.4\n")
    camp = {"kind": "score-matrix", "matrix": "m.csv"}
    out = ingest.ingest_campaign("x", camp, tmp_path)
    _check_all(out)
    assert out["matrix"].height == 4 and out["questions"].height == 0
    res = ingest.resolved_campaign("x", camp, tmp_path)
    outdir = tmp_path / "res" / "x" / "ingest"
    outdir.mkdir(parents=True)  # as Snakemake pre-creates output folders
    ingest.write_ingest(out, res, outdir)
    assert sorted(p.name for p in outdir.iterdir()) == sorted(
        [f"{t}.parquet" for t in tables.SCHEMAS] + ["campaign.json", ".qacamp-output"])
    assert pl.read_parquet(outdir / "matrix.parquet").equals(out["matrix"])
    meta = json.loads((outdir / "campaign.json").read_text())
    assert meta["options"] == {"measure": "score"} and meta["kind"] == "score-matrix"
    assert [p.name for p in (tmp_path / "res" / "x").iterdir()] == ["ingest"]


def test_write_ingest_nothing_partial(tmp_path, monkeypatch):
    w(tmp_path, "m.csv", "a,b\n0.1,0.2\n")
    camp = {"kind": "score-matrix", "matrix": "m.csv"}
    out = ingest.ingest_campaign("x", camp, tmp_path)
    res = ingest.resolved_campaign("x", camp, tmp_path)
    real = ingest.write_parquet
    calls = []

    def flaky(df, path, *layout):
        calls.append(path)
        if len(calls) == 3:
            raise OSError("disk full")
        real(df, path, *layout)

    monkeypatch.setattr(ingest, "write_parquet", flaky)
    outdir = tmp_path / "out" / "ingest"
    with pytest.raises(OutputError, match="disk full"):
        ingest.write_ingest(out, res, outdir)
    assert not outdir.exists()
    assert not (tmp_path / "out").exists()  # the folders it created are gone too


def test_cli(tmp_path, monkeypatch):
    w(tmp_path, "m.csv", "unit,a,b\nu1,0.1,0.2\n")
    cfg = tmp_path / "config.yaml"
    cfg.write_text("campaigns:\n  web:\n    kind: score-matrix\n    matrix: m.csv\n")
    assert main(["ingest", "--config", str(cfg), "--campaign", "web", "--out",
                 str(tmp_path / "o1"), "--base-dir", str(tmp_path)]) == 0
    assert (tmp_path / "o1" / "matrix.parquet").exists()
    monkeypatch.chdir(tmp_path)
    assert main(["ingest", "--campaign-json", json.dumps({"kind": "score-matrix", "matrix": "m.csv"}),
                 "--name", "web", "--out", "o2"]) == 0
    assert pl.read_parquet(tmp_path / "o2" / "matrix.parquet")["unit"].to_list() == ["u1", "u1"]
    assert main(["ingest", "--config", str(cfg), "--campaign", "nope", "--out", "o3"]) == 2


def test_answer_keys_name_questions_of_their_type(tmp_path):
    camp = _series(tmp_path)
    w(tmp_path, "list_key", "# 1.2\nQ:Which?\nParis\n# 2.1\nQ:Who?\nFred\n")
    with pytest.raises(InputError) as ei:
        ingest.ingest_campaign("s", camp, tmp_path)
    assert ei.value.path.endswith("list_key") and ei.value.place == "line 4"
    assert "question 2.1, which is a FACTOID question" in ei.value.problem
    camp = _series(tmp_path)
    w(tmp_path, "nuggets", "Qid 1.3: x\n1.3 1\tvital\ta\n1.3 2\tokay\tb\n\n"
                            "Qid 9.9: y\n9.9 1\tvital\tc\n")
    w(tmp_path, "pyramid", "1.3\t1\t1\ta\n1.3\t2\t0.5\tb\n9.9\t1\t1\tc\n")
    with pytest.raises(InputError) as ei:
        ingest.ingest_campaign("s", camp, tmp_path)
    assert ei.value.path.endswith("nuggets") and ei.value.place == "line 5"
    assert "question 9.9, which is not in the question set" in ei.value.problem


def test_trec_series_part_one_without_part_two(tmp_path):
    camp = _series(tmp_path)
    for s in ("adj", "a2"):
        w(tmp_path, f"{s}/o/r2.one", "1.3 r2 1 D1 blah\n2.2 r2 1 D3 x\n")
        w(tmp_path, f"{s}/f/r2", "1.1 r2 D1 R 1995\n2.1 r2 NIL W\n")
        w(tmp_path, f"{s}/l/r2", "1.2 r2 D1 1 1 Paris\n")
    out = ingest.ingest_campaign("s", camp, tmp_path)
    warns = out["warnings"]
    assert warns["kind"].to_list() == ["other-no-part-two"] * 2
    assert sorted(warns["file"].to_list()) == [str(tmp_path / f"{s}/o/r2.one")
                                               for s in ("a2", "adj")]
    assert "run 'r2' has no part-two file" in warns["message"][0]
    assert out["nugget_matches"].filter(pl.col("run") == "r2").height == 0
    # a judgment set with part-one files but no part-two files at all is refused
    camp["judgment_sets"]["a2"].pop("other_nuggets")
    with pytest.raises(ConfigError) as ei:
        ingest.ingest_campaign("s", camp, tmp_path)
    assert ei.value.key == "campaigns.s.judgment_sets.a2.other_nuggets"


def test_skip_and_min_coverage_are_validated(tmp_path):
    camp = _series(tmp_path)
    for bad in (["bogus"], "list", ["list", "list"]):
        with pytest.raises(ConfigError) as ei:
            ingest.resolved_campaign("s", {**camp, "skip": bad}, tmp_path)
        assert ei.value.key == "campaigns.s.skip"
    for bad in (-0.1, 1.01, True, "0.5", float("nan")):
        with pytest.raises(ConfigError) as ei:
            ingest.resolved_campaign("s", {**camp, "min_coverage": bad}, tmp_path)
        assert ei.value.key == "campaigns.s.min_coverage"
    with pytest.raises(ConfigError) as ei:
        ingest.resolved_campaign("c", {"kind": "clef-qa", "questions": "q.xml", "runs": "q.xml",
                                       "skip": ["list"]}, tmp_path)
    assert ei.value.key == "campaigns.c.skip"
    res = ingest.resolved_campaign("s", {**camp, "skip": ["other", "list"]}, tmp_path)
    assert res["options"]["skip"] == ["list", "other"]
    assert res["options"]["min_coverage"] == ingest.DEFAULT_MIN_COVERAGE == 0.9
