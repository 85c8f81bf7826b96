"""The DuckDB SQL peer of benchmarks/bench_scoring.py (benchmarks/sql_scoring.py)
writes the same QA4MRE scores as `qacamp score`, so that the benchmark compares
the same work (the target: scoring 1,000 x 10,000 QA4MRE-shaped is no slower
than the same core work in plain DuckDB SQL), and the benchmark's check catches a
difference.  Small campaigns: the benchmark's own shape, and a simulated one
read by the real QA4MRE readers (auxiliary questions, NCA options, abstentions
with and without a candidate)."""

from __future__ import annotations

import sys

import polars as pl
import pytest
from paths import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_scoring  # noqa: E402
from sql_scoring import score_sql  # noqa: E402

from qacamp.cli import main  # noqa: E402


def _scores_and_check(ingest, tmp_path):
    assert main(["score", "--ingest", str(ingest), "--out", str(tmp_path / "qacamp")]) == 0
    score_sql(ingest, tmp_path / "sql")
    return bench_scoring.compare(tmp_path / "qacamp", tmp_path / "sql")


def test_sql_peer_equals_qacamp_on_the_benchmark_shape(tmp_path):
    tables = bench_scoring.build(12, 900)
    bench_scoring.write_campaign(tables, tmp_path / "ingest")
    diffs, problems = _scores_and_check(tmp_path / "ingest", tmp_path)
    assert problems == []
    assert diffs["runs scaled"] <= 1e-12 and diffs["units"] == 0.0
    assert diffs["runs.csv identical"] == 1.0
    runs = pl.read_parquet(tmp_path / "sql" / "runs.parquet")
    # every scope qacamp reports for QA4MRE, the baselines and the auxiliary questions
    assert set(runs["scope"]) == {"all", "qtype", "topic", "test"}
    assert {"auxiliary", "MC"} <= set(runs.filter(pl.col("scope") == "qtype")["unit"])
    assert {"baseline:random-expected", "baseline:random-seeded", "baseline:always-nca",
            "baseline:answer-nothing"} <= set(runs["run"])
    assert {"tests_passed", "test_c_at_1_std", "c_at_1"} <= set(runs["measure"])


def test_sql_peer_equals_qacamp_on_a_simulated_ingest(tmp_path):
    sim, ingest = tmp_path / "sim", tmp_path / "ingest"
    assert main(["simulate", "qa4mre", "--runs", "8", "--topics", "2", "--tests", "3",
                 "--quiet", "--out", str(sim)]) == 0
    assert main(["ingest", "--campaign-json",
                 f'{{"kind": "qa4mre", "gold": "{sim / "gold.xml"}", '
                 f'"runs": "{sim / "runs" / "*.xml"}"}}', "--name", "q",
                 "--out", str(ingest)]) == 0
    diffs, problems = _scores_and_check(ingest, tmp_path)
    assert problems == []
    assert diffs["runs scaled"] <= 1e-12 and diffs["runs.csv identical"] == 1.0


@pytest.mark.parametrize("damage", ["value", "order"])
def test_the_benchmark_check_catches_a_difference(tmp_path, damage):
    tables = bench_scoring.build(4, 200)
    bench_scoring.write_campaign(tables, tmp_path / "ingest")
    _scores_and_check(tmp_path / "ingest", tmp_path)
    path = tmp_path / "sql" / "runs.parquet"
    runs = pl.read_parquet(path)
    if damage == "value":
        runs = runs.with_columns(pl.when(pl.int_range(pl.len()) == 7)
                                 .then(pl.col("value") + 1e-9).otherwise(pl.col("value")))
    else:
        runs = pl.concat([runs[1:2], runs[0:1], runs[2:]])
    runs.write_parquet(path)
    _, problems = bench_scoring.compare(tmp_path / "qacamp", tmp_path / "sql")
    assert len(problems) == 1 and problems[0].startswith("runs row")
