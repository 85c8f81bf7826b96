"""`qacamp reliability A ... --then B ...`: several analyses in one process
(the workflow runs a campaign's shards, its merges and its other analyses
this way: one job each)."""

from __future__ import annotations

import pytest
from paths import SHARED_DATA

from qacamp.cli import commands, main
from qacamp.errors import UsageError

WEB = str(SHARED_DATA / "score-matrices" / "web2004.csv")


def _swap(out, shard=None):
    words = ["swap", "--matrix", WEB, "--measure", "map", "--sizes", "5:30:5", "--trials", "4",
             "--seed", "7", "--out", str(out)]
    return words + (["--shard", shard] if shard else [])


def _stability(out):
    return ["stability", "--matrix", WEB, "--measure", "map", "--size", "25", "--trials", "5",
            "--seed", "7", "--out", str(out)]


def test_a_chain_writes_the_bytes_of_its_runs_one_by_one(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    assert main(["reliability", *_swap(one / "s0.parquet", "0/2")]) == 0
    assert main(["reliability", *_swap(one / "s1.parquet", "1/2")]) == 0
    assert main(["reliability", *_stability(one / "stab.parquet")]) == 0
    assert main(["reliability", "merge", "--kind", "swap", str(one / "swap.parquet"),
                 str(one / "s0.parquet"), str(one / "s1.parquet")]) == 0
    chain = ["reliability", *_swap(two / "s0.parquet", "0/2"), "--then",
             *_swap(two / "s1.parquet", "1/2"), "--then", *_stability(two / "stab.parquet"),
             "--then", "merge", "--kind", "swap", str(two / "swap.parquet"),
             str(two / "s0.parquet"), str(two / "s1.parquet")]
    assert main(chain) == 0
    for name in ("s0.parquet", "s1.parquet", "stab.parquet", "swap.parquet"):
        assert (two / name).read_bytes() == (one / name).read_bytes(), name


def test_a_mistyped_option_in_a_later_run_writes_nothing(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["reliability", *_swap(tmp_path / "s.parquet"), "--then",
              *_stability(tmp_path / "stab.parquet"), "--fuzziness", "0.1"])
    assert exc.value.code == 2
    assert "unrecognized arguments: --fuzziness" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_failed_run_stops_the_chain_with_its_exit_code(tmp_path, capsys):
    # sizes beyond the collection: the first run fails, the second never starts
    bad = ["swap", "--matrix", WEB, "--sizes", "70:80", "--trials", "2",
           "--out", str(tmp_path / "x.parquet")]
    assert main(["reliability", *bad, "--then", *_stability(tmp_path / "stab.parquet")]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and "impossible" in err
    assert not (tmp_path / "stab.parquet").exists()


def test_only_reliability_and_report_runs_are_chained(capsys):
    assert main(["score", "--then", "score"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("qacamp: error: --then chains runs of `qacamp reliability` or `qacamp "
                   "report` only; run `qacamp score` once per command line")
    with pytest.raises(UsageError):
        commands(["eval", "a", "--then", "b"])
    assert commands(["reliability", "swap", "--out", "a", "--then", "merge", "x"]) == [
        ["reliability", "swap", "--out", "a"], ["reliability", "merge", "x"]]
    assert commands(["reliability", "swap"]) == [["reliability", "swap"]]
