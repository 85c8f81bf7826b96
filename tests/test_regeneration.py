"""The demo config is the workflow's default: `snakemake` from the project
root, without --configfile, plans every demo campaign.  (Two runs writing
the same bytes: tests/test_interrupt_demo.py::test_two_demo_runs_are_byte_identical
on the demo config.)"""

from __future__ import annotations

import pytest
import yaml
from workflow_util import BIN, DEMO_OUT, ROOT, bounded_run, local_env

pytestmark = pytest.mark.slow


def test_demo_config_is_used_without_configfile():
    """`snakemake` from the repo root (as `make demo`, minus --configfile) plans
    every demo campaign of config/config.yaml.  A dry run only."""
    demo = sorted(yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["campaigns"])
    assert set(demo) >= {"trec2002", "trec2004", "qa4mre2013", "clef2009", "pan"}
    # --forceall: list every job even where the repo's results/ is up to date
    res = bounded_run([BIN / "snakemake", "-n", "--forceall", "--cores", "1"], cwd=ROOT,
                      timeout=300, environ=local_env())
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    text = res.stdout + res.stderr
    for name in demo:
        for target in ("ingest/campaign.json", "manifest.json", "tables", "figures"):
            assert f"{DEMO_OUT}/{name}/{target}" in text, (name, target)
