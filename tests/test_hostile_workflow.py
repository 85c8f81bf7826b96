"""Hostile input, part 6: the same refusals in the workflow.

Config files Snakemake loads itself (a key given twice, an alias bomb, an
integer campaign name, NaN, 100,000 shards) stop the workflow with one
``qacamp:`` line before any job runs; ``make run`` (workflow/run.py) also
refuses a UTF-16 file Snakemake would answer with a traceback.  Raw input
paths holding Snakemake syntax (``{x}``, ``<y>``) are read, and a change to
them reruns the ingest.  A small collection without a preset runs through
the swap analysis with sizes fitted to it.  Config-validation
cases are cheap (Snakemake stops before planning) and run side by side.
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
import yaml
from workflow_util import BIN, ROOT, bounded_run, local_env, qacamp, snakemake

from qacamp.errors import ConfigError
from qacamp.plan import configured, validate_config

SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
CLEF = {"kind": "clef-qa", "questions": "q.tsv", "runs": "q.tsv"}


def _start(workdir: Path, configfile: Path) -> subprocess.Popen:
    cmd = [str(BIN / "snakemake"), "-n", "-s", str(ROOT / "Snakefile"), "-d", str(workdir),
           "--workflow-profile", str(ROOT / "workflow" / "profiles" / "default"),
           "--configfile", str(configfile)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=local_env())


BOMB = "".join([f"x{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]\n" for i in range(1, 10)])

CASES = {
    # name: (config text, the one error line)
    "nan": ("campaigns:\n  mine: {kind: clef-qa, questions: q.tsv, runs: q.tsv, "
            "min_coverage: .nan}\n",
            "qacamp: config key 'campaigns.mine.min_coverage': nan is not a finite number. "
            "Fix: give a finite number (.nan and .inf are never valid)"),
    "duplicate": ("campaigns:\n  mine:\n    kind: clef-qa\n    questions: q.tsv\n"
                  "    runs: q.tsv\n    runs: other.tsv\n",
                  "qacamp: {path}: line 6: the key 'runs' appears twice in one mapping (first "
                  "at line 5); YAML would keep the last one silently. Fix: give every key once "
                  "(merge the two entries)"),
    "integer-name": ("campaigns:\n  2013: {kind: clef-qa, questions: q.tsv, runs: q.tsv}\n",
                     "qacamp: config key 'campaigns': the key 2013 is a YAML number (int), not "
                     "a name. Fix: quote it, e.g. '2013':"),
    "alias-bomb": ("x0: &a0 [q, q, q, q, q, q, q, q, q]\n" + BOMB
                   + "campaigns:\n  mine: {kind: clef-qa, questions: q.tsv, runs: *a9}\n",
                   "qacamp: config key 'campaigns.mine.runs[8][8][8][8]': holds more than "
                   "100000 values once its YAML aliases are expanded (the limit). Fix: write "
                   "the values out, or share fewer aliases"),
    "shards": ("shards: 100000\ncampaigns:\n  mine: {kind: clef-qa, questions: q.tsv, "
               "runs: q.tsv}\n",
               "qacamp: config key 'shards': 100000 is greater than the maximum of 1000. Fix: "
               "see workflow/schemas/config.schema.yaml"),
}


@pytest.mark.slow
def test_config_files_snakemake_loads_are_checked(tmp_path):
    (tmp_path / "q.tsv").write_text("qid\n1\n")
    procs = {}
    t0 = time.monotonic()
    for name, (text, _line) in CASES.items():
        path = tmp_path / f"{name}.yaml"
        path.write_text(text)
        work = tmp_path / name
        work.mkdir()
        (work / "q.tsv").write_text("qid\n1\n")
        procs[name] = (path, _start(work, path))
    for name, (path, proc) in procs.items():
        _out, err = proc.communicate(timeout=300)
        lines = [ln for ln in err.strip().splitlines()
                 if not ln.startswith("Using workflow specific profile")]
        assert proc.returncode != 0, name
        assert "Traceback" not in err, err
        assert lines == [CASES[name][1].format(path=path)], (name, err)
    # the alias bomb (a billion values) and 100,000 shards are refused at once
    assert time.monotonic() - t0 < 120


def test_make_run_refuses_a_utf16_config_before_snakemake(tmp_path):
    """Snakemake answers a UTF-16 config with a traceback before the workflow
    starts; `make run` (workflow/run.py) reads it with qacamp's reader first."""
    path = tmp_path / "c.yaml"
    path.write_bytes(CASES["nan"][0].encode("utf-16"))
    res = bounded_run([sys.executable, ROOT / "workflow" / "run.py", "--configfile", "c.yaml",
                       "--cores", "1"], cwd=tmp_path, timeout=120)
    assert res.returncode == 1
    assert res.stderr.strip() == ("qacamp: c.yaml: byte 0: the config file is UTF-16 (it starts "
                                  "with a UTF-16 byte-order mark); Snakemake and qacamp read "
                                  "UTF-8 only. Fix: save the file as UTF-8")
    assert not (tmp_path / ".snakemake").exists()  # nothing started


@pytest.mark.parametrize("shards", [10**20, 1001])
def test_shards_and_grids_bounded_in_the_schema(shards):
    with pytest.raises(ConfigError, match="is greater than the maximum of 1000") as exc:
        validate_config({"shards": shards, "campaigns": {"c": dict(CLEF)}}, SCHEMA)
    assert exc.value.key == "shards"
    camp = {**CLEF, "reliability": {"stability": {"fuzz": "0:1:0.0000001"}}}
    with pytest.raises(ConfigError, match="10,000,001 values, more than 1000") as exc:
        validate_config({"campaigns": {"c": camp}}, SCHEMA)
    assert exc.value.key == "campaigns.c.reliability.stability.fuzz"
    with pytest.raises(ConfigError, match="more than 1000") as exc:
        validate_config({"reliability": {"stability": {"fuzz": "0:5:0.001"}},
                         "campaigns": {"c": dict(CLEF)}}, SCHEMA)
    assert exc.value.key == "reliability.stability.fuzz"


# --------------------------------------------------------------------------- paths

@pytest.mark.slow
def test_input_paths_with_snakemake_syntax(tmp_path):
    """`data/{x}/q.tsv` stopped the workflow with a WildcardError (and `<y>` as
    an undefined path variable), although paths may be any text: such files
    are read, and changing one reruns the ingest."""
    res = qacamp("simulate", "clef-qa", "--out", str(tmp_path / "data"), "--runs", "3",
                 "--questions", "12", "--seed", "5", "--quiet")
    assert res.returncode == 0, res.stderr
    (tmp_path / "data" / "{x}").mkdir()
    (tmp_path / "data" / "questions.tsv").rename(tmp_path / "data" / "{x}" / "q.tsv")
    (tmp_path / "data" / "runs").rename(tmp_path / "data" / "<y>")
    cfg = {"outdir": "out", "campaigns": {"mine": {
        "kind": "clef-qa", "questions": "data/{x}/q.tsv", "runs": "data/<y>/*.tsv"}}}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    target = "out/mine/ingest/campaign.json"
    res = snakemake(tmp_path, target, configfile=path)
    assert res.returncode == 0, res.stderr[-3000:]
    assert pl.read_parquet(tmp_path / "out/mine/ingest/questions.parquet").height == 12
    assert pl.read_parquet(tmp_path / "out/mine/ingest/responses.parquet")["run"].n_unique() == 3
    again = snakemake(tmp_path, "-n", target, configfile=path, quiet=False)
    assert "Nothing to be done" in again.stdout + again.stderr
    later = time.time() + 5
    os.utime(tmp_path / "data" / "{x}" / "q.tsv", (later, later))
    again = snakemake(tmp_path, "-n", target, configfile=path, quiet=False)
    text = again.stdout + again.stderr
    assert "Params have changed since last execution" in text and "data/{x}/q.tsv" in text
    assert text.count("rule ingest:") == 1


# --------------------------------------------------------------------------- small collections

@pytest.mark.slow
def test_small_collection_without_preset_runs(tmp_path):
    """12 PAN problems failed with an error naming reliability.swap.sizes, a key
    the user never set: the kind's default sizes (10..half) are fitted to the
    collection (1..6), with a warning in the log and the summary."""
    res = qacamp("simulate", "pan", "--out", str(tmp_path / "pan"), "--runs", "4",
                 "--questions", "12", "--seed", "3", "--quiet")
    assert res.returncode == 0, res.stderr
    cfg = {"outdir": "out", "shards": 1, "campaigns": {"pan": {
        "kind": "pan", "truth": "pan/truth.jsonl", "answers": "pan/runs/*/answers.jsonl",
        "reliability": {"measures": ["overall"]}}}}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    rel = tmp_path / "out" / "pan" / "reliability"
    res = snakemake(tmp_path, "out/pan/reliability/swap_overall_summary.parquet",
                    configfile=path)
    assert res.returncode == 0, res.stderr[-3000:]
    assert sorted(pl.read_parquet(rel / "swap_overall.parquet")["size"].unique()) == \
        [1, 2, 3, 4, 5, 6]
    log = (tmp_path / "out" / "pan" / "logs" / "reliability_shard.0.log").read_text()
    assert ("warning: the collection has only 12 units, too few for the default sizes "
            "'10:half:auto' (largest possible size 6): using sizes 1-6 instead") in log
    assert "set campaigns.pan.reliability.swap.sizes to choose them" in log
    summary = pl.read_parquet(rel / "swap_overall_summary.parquet").row(0, named=True)
    assert summary["warning"].startswith("no subset size reaches min_fit_size 21 (the largest "
                                         "counted is 6, of a collection of 12)")


def test_small_clef_collection_through_the_cli(tmp_path, capsys):
    """10 CLEF questions: the default sizes fit with --fit-to-collection (what the
    workflow passes for a size the campaign did not set); a configured size
    the collection cannot hold is still an error naming its key."""
    from qacamp.cli import main

    m = tmp_path / "m.csv"  # 10 questions x 4 runs, judged right (1) or wrong (0)
    m.write_text("a,b,c,d\n" + "".join(f"{q % 2},{q % 3 % 2},{int(q < 5)},{int(q > 2)}\n"
                                        for q in range(10)))
    base = ["reliability", "swap", "--matrix", str(m), "--sizes", "10:half:auto", "--trials", "3",
            "--config-prefix", "campaigns.c.reliability"]
    assert main([*base, "--fit-to-collection", "--out", str(tmp_path / "s.parquet")]) == 0
    assert "using sizes 1-5 instead" in capsys.readouterr().err
    assert sorted(pl.read_parquet(tmp_path / "s.parquet")["size"].unique()) == [1, 2, 3, 4, 5]
    assert main([*base, "--out", str(tmp_path / "t.parquet")]) == 2
    assert "config key 'campaigns.c.reliability.swap.sizes'" in capsys.readouterr().err
    # the stability default (half the collection) fits any collection of 2 or more
    assert main(["reliability", "stability", "--matrix", str(m), "--size", "half", "--trials",
                 "3", "--fit-to-collection", "--out", str(tmp_path / "st.parquet")]) == 0
    assert pl.read_parquet(tmp_path / "st.parquet")["size"].unique().to_list() == [5]


def test_configured_means_set_by_preset_top_level_or_campaign():
    camp = copy.deepcopy(CLEF)
    assert not configured(camp, {}, "swap", "sizes")
    assert configured({**camp, "reliability": {"swap": {"sizes": "5:half"}}}, {}, "swap", "sizes")
    assert configured(camp, {"reliability": {"swap": {"sizes": "5:half"}}}, "swap", "sizes")
    assert configured({**camp, "preset": "clef2009"}, {}, "swap", "sizes")
    assert not configured({**camp, "reliability": {"swap": {"trials": 5}}}, {}, "swap", "sizes")
