"""Bit-identical regeneration: two clean runs of the workflow in two different
folders give byte-identical results -- every file under the outdir but the
logs (timings, absolute paths) -- for a small two-campaign config.  For the
real demo config (`make run CONFIG=config/config.yaml`, the README's command)
the second run is the one resumed after a kill, which does nearly every step
again (tests/test_interrupt_demo.py::test_two_demo_runs_are_byte_identical).

``campaign.duckdb`` is compared by content (every view's rows): DuckDB writes
a random database identifier into each new file and its views name the
Parquet files by absolute path, so it is an index rebuilt by
``qacamp duckdb`` (README, "Outputs"; tests/test_io.py moves a results folder
and rebuilds it), not a byte-reproducible result.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
import yaml
from workflow_util import (
    DEMO_OUT,
    ROOT,
    differing,
    leftover_temp_files,
    run_clean,
    tree_files,
)

pytestmark = pytest.mark.slow

def test_two_clean_runs_are_byte_identical(reference_run, tmp_path):
    other = run_clean(tmp_path)
    files = tree_files(reference_run / "results")
    # the comparison covers every kind of output, both campaigns and the extras
    suffixes = {Path(rel).suffix for rel in files}
    assert suffixes >= {".parquet", ".csv", ".tex", ".md", ".svg", ".png", ".json",
                        ".duckdb"}, suffixes
    for rel in ("tf/reliability/kendall.parquet", "tf/reliability/agreement.parquet",
                "mine/manifest.json", "tf/scores/runs.csv", "mine/config.json"):
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
            assert f"{DEMO_OUT}/{name}/{target}" in text, (name, target)
