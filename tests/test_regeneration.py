"""Bit-identical regeneration: two clean runs of the workflow in two different
folders give byte-identical results (Parquet, CSV, LaTeX, Markdown, SVG, PNG,
JSON), and `snakemake` without --configfile plans the demo campaigns.

Not compared: logs (they may hold timings and absolute paths), the DuckDB file
(its views hold the absolute paths of the Parquet files, see
``qacamp.io.write_duckdb``) and the ``git_commit`` field of
``manifest.json`` (it names the checkout, not the results).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest
import yaml
from workflow_util import ROOT, qacamp, small_clef_campaign, snakemake

pytestmark = pytest.mark.slow

COMPARED = {".parquet", ".csv", ".tex", ".md", ".svg", ".png", ".json"}
# temporary names of qacamp.io.atomic_path (".<name>.<random><suffix>"),
# qacamp.ingest.write_ingest (".<dir>.<random>.tmp|.old") and write_duckdb
TEMP_NAME = re.compile(r"^\..+\.(tmp|old|parquet|csv|png|svg|wal)$")


def campaign_config(tmp: Path) -> Path:
    """The small CLEF campaign of workflow_util plus a tiny TREC factoid campaign
    with three judgment sets (so the Kendall and agreement tables have content)."""
    cfg = small_clef_campaign(tmp, runs=5, questions=60)
    res = qacamp("simulate", "trec-factoid", "--runs", "5", "--questions", "60",
                 "--judgment-sets", "3", "--out", str(tmp / "tf"), "--quiet")
    assert res.returncode == 0, res.stderr
    doc = yaml.safe_load(cfg.read_text())
    # 60 questions: two disjoint subsets of at most 30
    doc["campaigns"]["mine"]["reliability"]["swap"]["sizes"] = "10:30:10"
    doc["campaigns"]["tf"] = {
        "kind": "trec-factoid",
        "questions": "tf/questions.txt",
        "judgment_sets": {s: f"tf/judged/{s}/*.txt.gz"
                          for s in ("adjudicated", "assessor1", "assessor2")},
        "primary": "adjudicated",
        "reliability": {
            "swap": {"sizes": "10:30:10", "trials": 4, "min_fit_size": 10},
            "stability": {"size": 30, "trials": 10},
            "bootstrap": {"trials": 50},
        },
    }
    cfg.write_text(yaml.safe_dump(doc, sort_keys=True))
    return cfg


def result_files(workdir: Path) -> dict[str, Path]:
    """Every compared file under ``workdir/results`` by its relative path."""
    results = workdir / "results"
    out = {}
    for p in sorted(results.rglob("*")):
        rel = p.relative_to(results)
        hidden = any(part.startswith(".") for part in rel.parts)  # temporaries
        if p.is_file() and not hidden and "logs" not in rel.parts and p.suffix in COMPARED:
            out[rel.as_posix()] = p
    return out


def comparable_bytes(path: Path) -> bytes:
    if path.name == "manifest.json":
        doc = json.loads(path.read_text())
        doc.pop("git_commit", None)
        return json.dumps(doc, indent=2, sort_keys=True).encode()
    return path.read_bytes()


def differing(a: Path, b: Path) -> list[str]:
    """Relative paths of result files that differ between two workdirs (or exist
    in one only)."""
    fa, fb = result_files(a), result_files(b)
    out = sorted(set(fa) ^ set(fb))
    out += [rel for rel in sorted(set(fa) & set(fb))
            if comparable_bytes(fa[rel]) != comparable_bytes(fb[rel])]
    return out


def leftover_temp_files(workdir: Path) -> list[str]:
    results = workdir / "results"
    return sorted(p.relative_to(results).as_posix() for p in results.rglob(".*")
                  if TEMP_NAME.match(p.name))


def run_clean(tmp: Path) -> Path:
    cfg = campaign_config(tmp)
    res = snakemake(tmp, configfile=cfg)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return tmp


_REFERENCE: list[Path] = []


def reference_dir(tmp_path_factory) -> Path:
    """One clean, uninterrupted run, made once per session (test_interrupt.py
    compares with it too)."""
    if not _REFERENCE:
        _REFERENCE.append(run_clean(tmp_path_factory.mktemp("regen_a")))
    return _REFERENCE[0]


@pytest.fixture(scope="session")
def reference_run(tmp_path_factory) -> Path:
    return reference_dir(tmp_path_factory)


def test_two_clean_runs_are_byte_identical(reference_run, tmp_path):
    other = run_clean(tmp_path)
    files = result_files(reference_run)
    # the comparison covers every kind of output, both campaigns and the extras
    suffixes = {Path(rel).suffix for rel in files}
    assert suffixes >= {".parquet", ".csv", ".tex", ".md", ".svg", ".png", ".json"}, suffixes
    for rel in ("tf/reliability/kendall.parquet", "tf/reliability/agreement.parquet",
                "mine/manifest.json", "tf/scores/runs.csv"):
        assert rel in files, rel
    assert any(rel.startswith("tf/tables/") and "kendall" in rel for rel in files), \
        sorted(rel for rel in files if "/tables/" in rel)
    assert any(rel.startswith("tf/tables/") and "agreement" in rel for rel in files), \
        sorted(rel for rel in files if "/tables/" in rel)
    assert differing(reference_run, other) == []
    assert leftover_temp_files(reference_run) == []
    for p in files.values():
        if p.suffix == ".parquet":
            pl.read_parquet(p)


def test_demo_config_is_used_without_configfile():
    """`snakemake` from the repo root (as `make demo`, minus --configfile) plans
    every demo campaign of config/config.yaml.  A dry run only."""
    import subprocess

    from workflow_util import BIN, env

    demo = sorted(yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["campaigns"])
    assert set(demo) >= {"trec2002", "trec2004", "qa4mre2013", "clef2009", "pan"}
    # --forceall: list every job even where the repo's results/ is up to date
    res = subprocess.run([str(BIN / "snakemake"), "-n", "--forceall", "--cores", "1"], cwd=ROOT,
                         capture_output=True, text=True, env=env(), timeout=300)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    text = res.stdout + res.stderr
    for name in demo:
        for target in ("ingest/campaign.json", "manifest.json", "tables", "figures"):
            assert f"results/{name}/{target}" in text, (name, target)
