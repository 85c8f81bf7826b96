"""Interrupted runs of a small two-campaign config (the demo killed and resumed
with the README's command: tests/test_interrupt_demo.py).

* Kills at the worst moment (a job's temporary files completely written, not
  yet renamed into place nor recorded) during ingest, scoring, the reliability
  shards and the report, then a rerun, end with results byte-identical to an
  uninterrupted run, no temporary file left behind and every Parquet file
  readable.  The moment is reached deterministically, whatever the machine's
  speed: tests/killpoint/sitecustomize.py, on the PYTHONPATH of the workflow
  the test starts, holds the chosen job in ``Writing.commit`` and writes a
  marker; the test then SIGKILLs the process group.  These drive Snakemake
  directly (to place each kill and skip the lock for speed) and clear the lock
  with `--unlock`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import polars as pl
import pytest
from workflow_util import (
    BIN,
    ROOT,
    campaign_config,
    differing,
    env,
    group_gone,
    killpoint_env,
    leftover_temp_files,
    snakemake,
    tree_files,
)

pytestmark = pytest.mark.slow


def _base(workdir: Path, cfg: Path) -> list[str]:
    """Snakemake as `make run` starts it (the default profile: its scheduler,
    its `run:` steps in threads), without qacamp's wrapper (to place each kill)."""
    return [str(BIN / "snakemake"), "-s", str(ROOT / "Snakefile"), "-d", str(workdir),
            "--workflow-profile", str(ROOT / "workflow" / "profiles" / "default"),
            "--cores", "2", "--configfile", str(cfg)]


def _kill_at(workdir: Path, cfg: Path, pattern: str, lock: bool = True,
             timeout: float = 600) -> tuple[str, list[str]]:
    """Start the workflow in its own process group with the kill point of
    tests/killpoint/sitecustomize.py set on outputs matching ``pattern``: the
    first job about to commit such an output, its temporary files complete,
    writes a marker and waits; then SIGKILL the whole group.  Returns how it
    ended ("killed", or "finished" if the run ended without reaching the point)
    and the temporary files the killed job held, each checked complete (a
    non-empty file) right after the kill."""
    stamp = time.monotonic_ns()
    marker = workdir / f"killpoint.{stamp}"
    log = open(workdir / f"snakemake.{stamp}.log", "w")
    extra = ["--rerun-incomplete"] + ([] if lock else ["--nolock"])
    e = killpoint_env(str(workdir / "results" / pattern), marker)
    proc = subprocess.Popen(_base(workdir, cfg) + extra, stdout=log,
                            stderr=subprocess.STDOUT, env=e, start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        while not marker.exists():
            if proc.poll() is not None:
                return "finished", []
            if time.monotonic() > deadline:
                raise AssertionError(f"kill point {pattern} never reached")
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        # every job of the group is gone before the rerun starts
        assert group_gone(proc.pid), "jobs of the killed run survived"
        held = [line for line in marker.read_text().splitlines() if line]
        marker.unlink()
        for t in held:
            assert "/.qacamp-output/.tmp/" in t, t  # a writer's folder (qacamp.io)
            assert os.path.isfile(t) and os.path.getsize(t) > 0, t
        return "killed", held
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()


def test_killed_runs_resume_to_identical_results(reference_run, tmp_path):
    cfg = campaign_config(tmp_path)
    # each kill lands once a job has written its temporary files completely and
    # before it renames them into place and records them: the worst moment
    points = [
        ("ingest", "*/ingest/*.parquet"),
        ("score", "*/scores/*.parquet"),
        ("reliability shards", "*/reliability/shards/*.parquet"),
        ("report", "*/figures/*.png"),
    ]
    outcomes, held, seen = {}, {}, {}
    for i, (name, pattern) in enumerate(points):
        last = i == len(points) - 1
        # --nolock but for the last kill: every Snakemake start costs seconds
        outcomes[name], held[name] = _kill_at(tmp_path, cfg, pattern, lock=last)
        seen[name] = leftover_temp_files(tmp_path)
    assert list(outcomes.values()) == ["killed"] * len(points), outcomes
    # each killed job held complete temporary files in its writer's folder
    # (qacamp.io: <claimed folder>/.qacamp-output/.tmp/<host.pid.start.random>/),
    # left behind for the reruns to deal with (the next writer in that folder
    # sweeps the folders of ended processes)
    for name in outcomes:
        assert held[name] and seen[name], (name, held[name], seen[name])
    # a killed Snakemake leaves its lock behind; the user unlocks, then reruns
    res = snakemake(tmp_path, "--unlock", configfile=cfg)
    assert res.returncode == 0, res.stderr[-2000:]

    res = snakemake(tmp_path, "--rerun-incomplete", configfile=cfg)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    res = snakemake(tmp_path, "-n", configfile=cfg)
    assert "Nothing to be done" in res.stdout + res.stderr

    files = tree_files(tmp_path / "results")
    for p in files.values():
        if p.suffix == ".parquet":
            pl.read_parquet(p)
    assert differing(reference_run, tmp_path) == []
    # killed writers' temporaries (the files qacamp.io stages in a folder of
    # the writing process inside the marker) are swept by the next writer there
    assert leftover_temp_files(tmp_path) == []
    for temps in held.values():
        assert not any(Path(t).exists() for t in temps)


def test_default_profile_is_picked_up(tmp_path):
    # the Snakefile is at the repository root, so Snakemake would look for
    # profiles/default there; `make demo` (and the README) name the profile
    cfg = campaign_config(tmp_path)
    res = subprocess.run([str(BIN / "snakemake"), "-s", str(ROOT / "Snakefile"), "-d",
                          str(tmp_path), "--cores", "2", "--configfile", str(cfg), "-n",
                          "--workflow-profile", str(ROOT / "workflow/profiles/default")],
                         cwd=ROOT, capture_output=True,
                         text=True, env=env(), timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "Using workflow specific profile" in res.stdout + res.stderr
