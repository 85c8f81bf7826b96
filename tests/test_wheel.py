"""Installing like other evaluation tools: the wheel built from the
repository, installed into a fresh virtual environment, gives the ``qacamp``
command, and ``qacamp run config/config.yaml`` runs the packaged workflow
from a folder that is not a clone.

Opt-in (``QACAMP_WHEEL=1``; ``.ci/run`` runs it after ``make test``): building
the wheel and installing it with its dependencies into a fresh environment
takes minutes and uses the package registry (or pip's cache).

What runs from the installed wheel, in a folder holding only ``config/`` and
``resources/`` (copies, not links into the clone):

* ``qacamp run config/config.yaml -n``: the demo config itself, a dry run: the
  packaged Snakefile, rules and schema resolve every job of the demo;
* ``qacamp run config/small.yaml``: a real run of three demo campaigns
  (qa4mre2013, qa4mre2012, pan) with few trials.  It is representative of the
  demo: every rule of the workflow runs (config, plan, ingest, manifest,
  score, the swap / stability / bootstrap shards and merges, fit, extras,
  duckdb, report tables, figures, page, the editions overview and the
  index), through the same packaged files and the qacamp logger; only the
  number of campaigns and of resampling trials is smaller, which changes how
  long it takes, not which code runs.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
import yaml
from workflow_util import bounded_run

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(os.environ.get("QACAMP_WHEEL") != "1",
                                 reason="opt-in: QACAMP_WHEEL=1 (.ci/run sets it)")]

SMALL = {"swap": {"sizes": "10:40:10", "trials": 3, "min_fit_size": 10},
         "stability": {"size": 30, "trials": 5}, "bootstrap": {"trials": 50}}


def run(cmd, cwd, timeout=1800, env=None):
    res = bounded_run(cmd, cwd=cwd, timeout=timeout,
                      environ=dict(os.environ) if env is None else env)
    assert res.returncode == 0, (cmd, res.stdout[-3000:], res.stderr[-3000:])
    return res


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    dist = tmp / "dist"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", dist, ROOT], cwd=tmp)
    wheels = sorted(dist.glob("qacamp-*.whl"))
    assert len(wheels) == 1
    venv = tmp / "venv"
    run([sys.executable, "-m", "venv", venv], cwd=tmp)
    run([venv / "bin" / "pip", "install", "-q", "-c", ROOT / "requirements.lock", wheels[0]],
        cwd=tmp)
    return venv / "bin"


def workdir(tmp: Path) -> Path:
    """A folder with the demo's config and raw files, and nothing else."""
    shutil.copytree(ROOT / "config", tmp / "config")
    shutil.copytree(ROOT / "resources", tmp / "resources")
    cfg = yaml.safe_load((tmp / "config" / "config.yaml").read_text())
    keep = {c: {**cfg["campaigns"][c], "reliability": SMALL}
            for c in ("qa4mre2013", "qa4mre2012", "pan")}
    small = {**cfg, "outdir": "results-small", "campaigns": keep}
    (tmp / "config" / "small.yaml").write_text(yaml.safe_dump(small, sort_keys=True))
    return tmp


def clean_env(bin_dir: Path) -> dict[str, str]:
    """The installed environment only: no clone on PYTHONPATH, its bin first."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin"
    return env


def test_installed_wheel_runs_the_workflow_from_any_folder(installed, tmp_path):
    work = workdir(tmp_path / "elsewhere")
    env = clean_env(installed)
    qacamp = installed / "qacamp"
    # the command and its workflow come from the wheel, not from this clone
    where = run([installed / "python", "-c",
                 "import qacamp.runner as r; print(r.workflow_root())"], cwd=work, env=env)
    root = Path(where.stdout.strip())
    assert root.name == "_workflow" and not root.is_relative_to(ROOT), root
    assert (root / "Snakefile").is_file() and (root / "workflow" / "rules").is_dir()
    run([qacamp, "--version"], cwd=work, env=env)

    dry = run([qacamp, "run", "config/config.yaml", "-n"], cwd=work, env=env)
    assert "steps would run" in dry.stderr, dry.stderr[-2000:]
    assert not (work / "results-demo").exists()

    res = run([qacamp, "run", "config/small.yaml"], cwd=work, env=env)
    out = work / "results-small"
    for rel in ("index.html", "overview/editions.csv", "pan/report.html",
                "qa4mre2013/report.html", "qa4mre2012/tables/runs.tex",
                "pan/reliability/swap_overall_summary.parquet", "qa4mre2013/campaign.duckdb"):
        assert (out / rel).is_file(), rel
    # the qacamp log: progress lines and a summary, not Snakemake's listing
    lines = res.stderr.splitlines()
    assert any(ln.startswith("[") and "] score pan (" in ln for ln in lines), lines[:20]
    assert any(ln.startswith("qacamp: done:") for ln in lines), lines[-5:]
    assert "results-small/index.html" in res.stderr
    assert len(lines) < 200, len(lines)
