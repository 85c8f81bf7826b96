"""Scoring by shards of runs and in batches of runs:
`qacamp score --shard I/N` then `--merge` writes the same bytes as one
unsharded `qacamp score`, for 1 and 3 shards, on demo campaigns (several
judgment sets and NIL questions: trec2002; series, list and Other questions:
trec2004; QA4MRE baselines scored as runs: qa4mre2013; batches of one run:
tests/test_scoring_parallel.py); the merge refuses a missing, repeated or foreign
shard with a one-line error and writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from workflow_util import qacamp_in_root

FILES = ["outcomes.parquet", "units.parquet", "runs.parquet", "dropped.parquet", "runs.csv"]


@pytest.fixture(scope="module", params=["trec2002", "trec2004", "qa4mre2013"])
def campaign(request, demo_scores):
    """(ingest folder, unsharded scores folder) of one demo campaign."""
    return demo_scores(request.param)


def _shards(ingest: Path, base: Path, n: int) -> list[Path]:
    dirs = []
    for i in range(n):
        dirs.append(base / f"shard{i}of{n}")
        assert qacamp_in_root("score", "--ingest", ingest, "--out", dirs[-1], "--shard", f"{i}/{n}") == 0
    return dirs


@pytest.mark.parametrize("n", [1, 3])  # (more shards would repeat what 3 check)
def test_merged_shards_are_the_unsharded_bytes(campaign, tmp_path, n):
    ingest, whole = campaign
    dirs = _shards(ingest, tmp_path, n)
    # the merge takes the shards in any order
    assert qacamp_in_root("score", "--ingest", ingest, "--out", tmp_path / "merged",
                   "--merge", *reversed(dirs)) == 0
    for f in FILES:
        assert (tmp_path / "merged" / f).read_bytes() == (whole / f).read_bytes(), f


def _refused(capsys, ingest, out, dirs, words):
    rc = qacamp_in_root("score", "--ingest", ingest, "--out", out, "--merge", *dirs)
    err = capsys.readouterr().err.strip()
    assert rc != 0
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for w in words:
        assert w in err, err
    assert not out.exists()


def _small_ingest(base: Path, seed: int) -> Path:
    """A simulated 6-run CLEF-QA campaign's ingest folder (the refusals do not
    depend on a campaign's size)."""
    import json

    assert qacamp_in_root("simulate", "clef-qa", "--out", base / "data", "--runs", 6,
                          "--questions", 20, "--seed", seed, "--quiet") == 0
    cfg = {"kind": "clef-qa", "questions": str(base / "data" / "questions.tsv"),
           "runs": str(base / "data" / "runs" / "*.tsv")}
    assert qacamp_in_root("ingest", "--campaign-json", json.dumps(cfg), "--name", "c",
                          "--out", base / "ingest") == 0
    return base / "ingest"


def test_merge_refuses_missing_repeated_and_foreign_shards(tmp_path, capsys):
    d = tmp_path
    ingest = _small_ingest(d / "mine", 1)
    mine = _shards(ingest, d / "mine", 3)
    other = _shards(_small_ingest(d / "other", 2), d / "other", 3)
    capsys.readouterr()
    _refused(capsys, ingest, d / "m1", [mine[0], mine[2]], ["1 of the 3 shards are missing",
                                                            "1/3", "scores would lack their runs",
                                                            "every shard folder"])
    _refused(capsys, ingest, d / "m2", [mine[0], mine[1], mine[1], mine[2]],
             ["shard 1/3 is given twice"])
    _refused(capsys, ingest, d / "m3", [mine[0], mine[1], other[2]],
             [str(other[2]), "settings differ", "ingest_sha256", "rescore the shards"])
    # all three shards of another campaign: not the ingest tables named
    _refused(capsys, ingest, d / "m4", other, ["scored other ingest tables"])
    # a scores folder is not a shard
    assert qacamp_in_root("score", "--ingest", ingest, "--out", d / "whole") == 0
    capsys.readouterr()
    _refused(capsys, ingest, d / "m5", [d / "whole"], ["shard.parquet"])


@pytest.mark.slow
def test_workflow_score_shards_merge_to_the_unsharded_bytes(tmp_path):
    """Config `score_shards: 3`: the score rule fans out to 3 shard jobs (temp
    folders, a log each) and a merge; the scores are the bytes of one
    unsharded `qacamp score` of the same ingest folder."""
    import yaml
    from workflow_util import small_clef_campaign, snakemake

    cfg_path = small_clef_campaign(tmp_path, runs=7)
    cfg = yaml.safe_load(cfg_path.read_text())
    cfg["score_shards"] = 3
    cfg_path.write_text(yaml.safe_dump(cfg, sort_keys=True))
    outdir = tmp_path / cfg.get("outdir", "results")
    res = snakemake(tmp_path, f"{cfg.get('outdir', 'results')}/mine/scores/runs.csv",
                    configfile=cfg_path)
    assert res.returncode == 0, res.stderr[-3000:]
    logs = outdir / "mine" / "logs"
    assert sorted(p.name for p in logs.glob("score.*.log")) == [
        "score.0.log", "score.1.log", "score.2.log"]
    assert not any((outdir / "mine" / "score_shards").glob("*"))  # temp: removed
    assert qacamp_in_root("score", "--ingest", outdir / "mine" / "ingest", "--out",
                   tmp_path / "whole") == 0
    for f in FILES:
        assert (outdir / "mine" / "scores" / f).read_bytes() == \
            (tmp_path / "whole" / f).read_bytes(), f
