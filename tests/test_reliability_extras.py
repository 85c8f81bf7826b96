"""`qacamp reliability extras`: Kendall tau, ranking swaps, agreement, distributions,
box plots and equivalence groups on hand-built frames with hand-computed numbers."""

from __future__ import annotations

import json
import math

import polars as pl
import pytest

from qacamp.cli import main
from qacamp.io import write_parquet, write_text
from qacamp.reliability import campaign_level as extras
from qacamp.tables import conform

RUNS = ["r1", "r2", "r3", "r4"]
# primary 'adj': r1 > r2 > r3 > r4 with primary differences .04 (r1-r2) and .10 (r3-r4)
CWS = {"adj": [0.90, 0.86, 0.60, 0.50],
       "a1": [0.85, 0.87, 0.60, 0.50],   # swaps r1/r2 (primary diff .04)
       "a2": [0.90, 0.86, 0.50, 0.60]}   # swaps r3/r4 (primary diff .10)
ACC = [0.5, 0.6, 0.3, 0.4]              # r2 > r1 > r4 > r3: tau vs cws@adj = (4 - 2) / 6
SERIES = [0.4, 0.3, 0.2, 0.1]
TYPE = [0.4, 0.3, 0.1, 0.2]             # tau vs series = (5 - 1) / 6


def _runs_frame() -> pl.DataFrame:
    rows = []

    def add(js, measure, scope, unit, run, value):
        rows.append({"judgment_set": js, "run": run, "measure": measure, "scope": scope,
                     "unit": unit, "value": value})

    for js, vals in CWS.items():
        for r, v in zip(RUNS, vals, strict=True):
            add(js, "cws", "all", "all", r, v)
    for name, vals in (("accuracy", ACC), ("series_score", SERIES), ("type_score", TYPE)):
        for r, v in zip(RUNS, vals, strict=True):
            add("adj", name, "all", "all", r, v)
    for m in ("cws", "accuracy", "series_score", "type_score"):  # baselines never count
        add("adj", m, "all", "all", "baseline:x", 5.0)
    for unit, vals in (("2", [0.0, 0.1, 0.2, 0.3]), ("10", [0.0, 0.0, 0.0, 1.0])):
        for r, v in zip(RUNS, vals, strict=True):
            add("adj", "series_score", "series", unit, r, v)
            add("a1", "series_score", "series", unit, r, 0.9)
        add("adj", "series_score", "series", unit, "baseline:x", 9.0)
    return pl.DataFrame(rows)


def _units_frame() -> pl.DataFrame:
    rows = []
    per = {("accuracy", "q1"): [0, 0, 1, 0],       # median 0
           ("accuracy", "q2"): [1, 1, 0, 1],       # median 1
           ("accuracy", "q3"): [0, 0, 0, 0],       # LIST question: accuracy is not used
           ("list_f", "q3"): [0, 0.5, 0.5, 0.2],   # median .35
           ("other_f", "q4"): [0, 0, 0.1, 0]}      # median 0
    for (m, q), vals in per.items():
        for r, v in zip(RUNS, vals, strict=True):
            rows.append({"judgment_set": "adj", "run": r, "measure": m, "unit": q, "value": float(v)})
            rows.append({"judgment_set": "a1", "run": r, "measure": m, "unit": q, "value": 0.0})
        rows.append({"judgment_set": "adj", "run": "baseline:x", "measure": m, "unit": q,
                     "value": 0.0})
    return pl.DataFrame(rows)


def _questions_frame() -> pl.DataFrame:
    return pl.DataFrame({"qid": ["q1", "q2", "q3", "q4"], "qtype": ["FACTOID", "FACTOID", "LIST", "OTHER"],
                         "series": ["1", "1", "1", "1"]})


def _judgments_frame() -> pl.DataFrame:
    rows = []

    def add(js, run, qid, j):
        rows.append({"judgment_set": js, "run": run, "qid": qid, "item": 1, "judgment": j})

    add("adj", "r1", "q1", "R")
    add("a1", "r1", "q1", "R")
    add("a2", "r1", "q1", "X")          # RX
    add("a1", "r2", "q1", "W")
    add("a2", "r2", "q1", "W")          # WW
    add("a1", "r3", "q1", "X")
    add("a2", "r3", "q1", "R")          # RX (sorted letters)
    add("a1", "r4", "q1", "R")          # only one set: not counted
    add("a1", "r1", "q2", "R")
    add("a2", "r1", "q2", None)         # null judgment: not judged
    for r in RUNS:
        add("automatic", r, "q1", "U")  # automatic set: not a human assessor
    return pl.DataFrame(rows, schema={"judgment_set": pl.Utf8, "run": pl.Utf8, "qid": pl.Utf8,
                                      "item": pl.Int32, "judgment": pl.Utf8})


def test_kendall_frame_hand_values():
    k = extras.kendall_frame(_runs_frame(), ["cws", "accuracy"], "adj", "trec-series",
                             ["adj", "a1", "a2"])
    assert k.columns == ["ranking_a", "ranking_b", "n_runs", "tau", "variant", "tied_pairs_a",
                         "tied_pairs_b"]
    assert k["variant"].unique().to_list() == ["tau_b"]  # the default; no ties here: tau_a = tau_b
    assert list(zip(k["ranking_a"], k["ranking_b"], strict=True)) == [
        ("cws@adj", "cws@a1"), ("cws@adj", "cws@a2"), ("cws@a1", "cws@a2"),
        ("cws@adj", "accuracy@adj"), ("series_score@adj", "type_score@adj")]
    assert k["n_runs"].to_list() == [4] * 5
    assert k["tau"].to_list() == pytest.approx([2 / 3, 2 / 3, 1 / 3, 1 / 3, 2 / 3])
    # not trec-series: no aggregation row; a single measure with one set: nothing
    assert extras.kendall_frame(_runs_frame(), ["cws"], "adj", "trec-factoid").height == 3
    empty = extras.kendall_frame(_runs_frame(), ["accuracy"], "adj", "qa4mre")
    assert empty.height == 0 and empty.schema == pl.Schema(extras.KENDALL_SCHEMA)


def test_swaps_frame_hand_values():
    sw = extras.swaps_frame(_runs_frame(), ["cws", "accuracy"], "adj")
    assert sw.columns == ["ranking_a", "ranking_b", "threshold", "swaps", "pairs"]
    assert sw["ranking_a"].unique().to_list() == ["cws@adj"]
    a1 = sw.filter(pl.col("ranking_b") == "cws@a1")
    a2 = sw.filter(pl.col("ranking_b") == "cws@a2")
    assert a1["threshold"].to_list() == [0.0, 0.01, 0.02, 0.05, 0.07]
    # primary differences: .04, .30, .40, .26, .36, .10
    assert a1["pairs"].to_list() == [6, 6, 6, 5, 5]
    assert a1["swaps"].to_list() == [1, 1, 1, 0, 0]   # the r1/r2 swap has primary diff .04
    assert a2["swaps"].to_list() == [1, 1, 1, 1, 1]   # the r3/r4 swap has primary diff .10
    assert sw.height == 10  # accuracy exists only under the primary set


def test_agreement_frame_hand_values():
    ag = extras.agreement_frame(_judgments_frame(), "adj")
    assert ag.to_dicts() == [{"tuple": "RX", "count": 2, "share": pytest.approx(2 / 3)},
                             {"tuple": "WW", "count": 1, "share": pytest.approx(1 / 3)}]
    one = extras.agreement_frame(_judgments_frame().filter(pl.col("judgment_set") != "a2"), "adj")
    assert one.height == 0 and one.columns == ["tuple", "count", "share"]


def test_distributions_and_boxplot_hand_values():
    d = extras.distributions_frame(_units_frame(), _questions_frame(), "adj")
    assert d.to_dicts() == [
        {"qtype": "FACTOID", "n_units": 2, "n_median_zero": 1, "share": 0.5},
        {"qtype": "LIST", "n_units": 1, "n_median_zero": 0, "share": 0.0},
        {"qtype": "OTHER", "n_units": 1, "n_median_zero": 1, "share": 1.0}]
    b = extras.boxplot_frame(_runs_frame(), "adj")
    assert b["unit"].to_list() == ["2", "10"]           # natural order
    assert b["n"].to_list() == [4, 4]
    row2 = b.row(0, named=True)
    assert [row2[c] for c in ("min", "q1", "median", "q3", "max", "whisker_lo", "whisker_hi")] == \
        pytest.approx([0.0, 0.075, 0.15, 0.225, 0.3, 0.0, 0.3])
    row10 = b.row(1, named=True)
    assert row10["q3"] == pytest.approx(0.25) and row10["max"] == 1.0
    assert row10["whisker_hi"] == 0.0  # 1.0 lies beyond q3 + 1.5 * IQR = 0.625
    none = extras.boxplot_frame(_runs_frame().filter(pl.col("scope") != "series"), "adj")
    assert none.height == 0 and none.columns == list(extras.BOXPLOT_SCHEMA)


def test_equivalence_frame_hand_values():
    # cws: r1 0.90, r2 0.86, r3 0.60, r4 0.50; required difference 0.05
    eq = extras.equivalence_frame(_runs_frame(), "cws", "adj", 0.05)
    assert eq.select("criterion", "run", "score", "letters", "n_indistinguishable",
                     "threshold").rows() == [("swap", "r1", 0.90, "a", 1, 0.05),
                                             ("swap", "r2", 0.86, "a", 1, 0.05),
                                             ("swap", "r3", 0.60, "b", 0, 0.05),
                                             ("swap", "r4", 0.50, "c", 0, 0.05)]
    for never in (None, math.nan):  # required difference never reached: nothing told apart
        eq = extras.equivalence_frame(_runs_frame(), "cws", "adj", never)
        assert eq["letters"].to_list() == ["a"] * 4
        assert eq["threshold"].null_count() == 4
    pairs = pl.DataFrame({"run_a": ["r1", "r1", "r1", "r2", "r2", "r3"],
                          "run_b": ["r2", "r3", "r4", "r3", "r4", "r4"], "test": "tukey-hsd",
                          "significant": [False, False, True, False, True, False],
                          "alpha": 0.05})
    eq = extras.equivalence_frame(_runs_frame(), "cws", "adj", 0.05, pairs)
    test = eq.filter(pl.col("criterion") == "tukey-hsd")
    assert test["letters"].to_list() == ["a", "a", "ab", "b"]
    assert test["threshold"].to_list() == [0.05] * 4


def _write_campaign(tmp_path):
    ingest, scores = tmp_path / "ingest", tmp_path / "scores"
    ingest.mkdir()
    scores.mkdir()
    write_text(json.dumps({"kind": "trec-series", "primary": "adj",
                           "judgment_sets": ["adj", "a1", "a2"]}), ingest / "campaign.json")
    # the ingest tables as ingest writes them (every column of their schema)
    write_parquet(conform("questions", _questions_frame()), ingest / "questions.parquet")
    write_parquet(conform("judgments", _judgments_frame()), ingest / "judgments.parquet")
    write_parquet(_runs_frame(), scores / "runs.parquet")
    write_parquet(_units_frame(), scores / "units.parquet")
    summ = {"measure": "cws", "full_size": 4, "level": 0.05, "required_difference": 0.05}
    write_parquet(pl.DataFrame([summ]), tmp_path / "swap_cws_summary.parquet")
    write_parquet(pl.DataFrame([{**summ, "measure": "", "required_difference": None}],
                               schema_overrides={"required_difference": pl.Float64}),
                  tmp_path / "swap_accuracy_summary.parquet")
    return ingest, scores


def test_cli_extras_on_hand_built_campaign(tmp_path, capsys):
    ingest, scores = _write_campaign(tmp_path)
    out = tmp_path / "rel"
    args = ["reliability", "extras", "--ingest", str(ingest), "--scores", str(scores),
            "--measure", "cws", "--measure", "accuracy",
            "--summary", str(tmp_path / "swap_cws_summary.parquet"),
            "--summary", str(tmp_path / "swap_accuracy_summary.parquet"), "--out", str(out)]
    assert main(args) == 0
    names = sorted(p.name for p in out.iterdir() if p.is_file())
    assert names == ["agreement.parquet", "boxplot.parquet", "distributions.parquet",
                     "equivalence_accuracy.parquet", "equivalence_cws.parquet",
                     "kendall.parquet", "ranking_swaps.parquet"]
    k = pl.read_parquet(out / "kendall.parquet")
    assert k["tau"].to_list() == pytest.approx([2 / 3, 2 / 3, 1 / 3, 1 / 3, 2 / 3])
    assert pl.read_parquet(out / "ranking_swaps.parquet")["swaps"].sum() == 8
    assert pl.read_parquet(out / "agreement.parquet")["count"].to_list() == [2, 1]
    assert pl.read_parquet(out / "distributions.parquet")["n_median_zero"].to_list() == [1, 0, 1]
    assert pl.read_parquet(out / "boxplot.parquet").height == 2
    assert pl.read_parquet(out / "equivalence_cws.parquet")["letters"].to_list() == \
        ["a", "a", "b", "c"]
    acc = pl.read_parquet(out / "equivalence_accuracy.parquet")
    assert acc["run"].to_list() == ["r2", "r1", "r4", "r3"]
    assert acc["letters"].to_list() == ["a"] * 4
    first = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    assert main(args) == 0  # deterministic output
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == first
    capsys.readouterr()
    # a summary whose measure is not among --measure, and an unknown measure, are errors
    assert main([*args[:8], "--summary", str(tmp_path / "swap_accuracy_summary.parquet"),
                 "--out", str(tmp_path / "x")]) == 2
    assert "not given as --measure" in capsys.readouterr().err
    assert main(["reliability", "extras", "--ingest", str(ingest), "--scores", str(scores),
                 "--measure", "nope", "--out", str(tmp_path / "y")]) == 2
    assert "nope" in capsys.readouterr().err
    assert not (tmp_path / "y").exists()
