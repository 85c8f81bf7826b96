"""Interrupted runs: the workflow killed with SIGKILL (Snakemake and every job
it started) during ingest/scoring, during the reliability shards and during
the report, then rerun, ends with results byte-identical to an uninterrupted
run, no temporary file left behind and every Parquet file readable.

The workflow profile workflow/profiles/default (which sets rerun-incomplete)
is *not* found by Snakemake when the Snakefile sits at the repository root:
Snakemake looks for ``profiles/default`` in the working directory and next to
the Snakefile only.  The reruns here therefore pass ``--rerun-incomplete``
explicitly, as a user resuming a killed run has to, and
:func:`test_default_profile_is_picked_up` records the gap.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import polars as pl
import pytest
from test_regeneration import (
    campaign_config,
    differing,
    leftover_temp_files,
    reference_dir,
    result_files,
)
from workflow_util import BIN, ROOT, env, snakemake

pytestmark = pytest.mark.slow


def _base(workdir: Path, cfg: Path) -> list[str]:
    return [str(BIN / "snakemake"), "-s", str(ROOT / "Snakefile"), "-d", str(workdir),
            "--cores", "2", "--configfile", str(cfg)]


def _kill_when(workdir: Path, cfg: Path, ready, delay: float = 0.0, lock: bool = True,
               timeout: float = 300) -> str:
    """Start the workflow in its own process group, wait until ``ready()`` is true,
    sleep ``delay`` seconds, then SIGKILL the whole group.  Returns how it ended
    ("killed" or "finished" if the run ended first)."""
    log = open(workdir / f"snakemake.{time.monotonic_ns()}.log", "w")
    extra = ["--rerun-incomplete"] + ([] if lock else ["--nolock"])
    proc = subprocess.Popen(_base(workdir, cfg) + extra, stdout=log,
                            stderr=subprocess.STDOUT, env=env(), start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        while not ready():
            if proc.poll() is not None:
                return "finished"
            if time.monotonic() > deadline:
                raise AssertionError("kill point never reached")
            time.sleep(0.01)
        time.sleep(delay)
        if proc.poll() is not None:
            return "finished"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        # every job of the group is gone before the rerun starts
        for _ in range(500):
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.01)
        else:
            raise AssertionError("jobs of the killed run survived")
        return "killed"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()


@pytest.fixture(scope="session")
def reference_run(tmp_path_factory) -> Path:
    return reference_dir(tmp_path_factory)


def _exists(workdir: Path, pattern: str):
    return lambda: any((workdir / "results").glob(pattern))


def test_killed_runs_resume_to_identical_results(reference_run, tmp_path):
    cfg = campaign_config(tmp_path)
    # each kill lands while a job is writing its temporary file, the worst moment
    points = [
        ("ingest", "*/.ingest.*.tmp/*"),
        ("score", "*/scores/.*.parquet.*"),
        ("reliability shards", "*/reliability/shards/.*.parquet.*"),
        ("report", "*/figures/.*.png.*"),
    ]
    outcomes, seen = {}, {}
    for i, (name, pattern) in enumerate(points):
        last = i == len(points) - 1
        # --nolock but for the last kill: every Snakemake start costs seconds
        outcomes[name] = _kill_when(tmp_path, cfg, _exists(tmp_path, pattern), lock=last)
        seen[name] = leftover_temp_files(tmp_path)
    # a killed Snakemake leaves its lock behind; the user unlocks, then reruns
    res = snakemake(tmp_path, "--unlock", configfile=cfg)
    assert res.returncode == 0, res.stderr[-2000:]
    assert list(outcomes.values()) == ["killed"] * len(points), outcomes
    # the kills did leave temporary files behind for the reruns to deal with
    assert any(seen.values()), seen
    print("temporary files left by the kills:", seen)

    res = snakemake(tmp_path, "--rerun-incomplete", configfile=cfg)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    res = snakemake(tmp_path, "-n", configfile=cfg)
    assert "Nothing to be done" in res.stdout + res.stderr

    files = result_files(tmp_path)
    for p in files.values():
        if p.suffix == ".parquet":
            pl.read_parquet(p)
    assert differing(reference_run, tmp_path) == []
    # killed writers' temporaries (files of qacamp.io.atomic_path, the folders of
    # qacamp.ingest.write_ingest) are swept by the rerun of the same job
    assert leftover_temp_files(tmp_path) == []


def test_default_profile_is_picked_up(tmp_path):
    # the Snakefile is at the repository root, so Snakemake would look for
    # profiles/default there; `make demo` (and the README) name the profile
    cfg = campaign_config(tmp_path)
    res = subprocess.run(_base(tmp_path, cfg) + ["-n", "--workflow-profile",
                                                 str(ROOT / "workflow/profiles/default")],
                         cwd=ROOT, capture_output=True,
                         text=True, env=env(), timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "Using workflow specific profile" in res.stdout + res.stderr
