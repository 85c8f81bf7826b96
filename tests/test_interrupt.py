"""Interrupted runs.

* The README's command resumes a killed run: the demo config run with
  `make run CONFIG=config/config.yaml`, its whole process group SIGKILLed
  when the first score file is about to be put in place (Snakemake's lock
  stays behind), the same command again finishes (workflow/run.py proves with
  a flock that no run is alive and clears the stale lock) with results
  byte-identical to the session's uninterrupted demo run.  That rerun does
  nearly every step of the demo again, in another folder: it is also the
  test that two demo runs write the same bytes.  A second run started while
  one is active is refused and changes nothing.
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
import re
import signal
import subprocess
import time
from pathlib import Path

import polars as pl
import pytest
import yaml
from workflow_util import (
    BIN,
    DEMO_OUT,
    ROOT,
    campaign_config,
    demo_workdir,
    differing,
    differing_files,
    env,
    leftover_temp_files,
    make_cmd,
    needs_make,
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


KILLPOINT = Path(__file__).resolve().parent / "killpoint"  # its sitecustomize.py


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
    e = env()
    e["PYTHONPATH"] = os.pathsep.join([str(KILLPOINT), *filter(None, [e.get("PYTHONPATH")])])
    e["QACAMP_KILLPOINT"] = str(workdir / "results" / pattern)
    e["QACAMP_KILLPOINT_MARKER"] = str(marker)
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
        assert _group_gone(proc.pid), "jobs of the killed run survived"
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


def _group_gone(pgid: int) -> bool:
    for _ in range(1000):
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.01)
    return False


@pytest.fixture(scope="module")
def resumed_demo(tmp_path_factory):
    """The demo run with the README's command, SIGKILLed (whole process group)
    at the kill point of tests/killpoint/sitecustomize.py on the first score
    file (its temporaries written, nothing renamed into place), a second start
    refused while it was held there, then the same command again: the rerun
    does every step but the few ingests done before the kill."""
    work = demo_workdir(tmp_path_factory.mktemp("demo_killed"))
    marker = work / "killpoint"
    e = env()
    e["PYTHONPATH"] = os.pathsep.join([str(KILLPOINT), *filter(None, [e.get("PYTHONPATH")])])
    e["QACAMP_KILLPOINT"] = str(work / DEMO_OUT / "*" / "scores" / "*.parquet")
    e["QACAMP_KILLPOINT_MARKER"] = str(marker)
    log = open(work / "first.log", "w")
    first = subprocess.Popen(make_cmd("config/config.yaml"), cwd=work, stdout=log,
                             stderr=subprocess.STDOUT, env=e, start_new_session=True)
    facts = {}
    try:
        deadline = time.monotonic() + 900
        while not marker.exists():
            assert first.poll() is None, (work / "first.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "the kill point was never reached"
            time.sleep(0.05)
        # a second run in the same folder while the first is alive: refused
        second = subprocess.run(make_cmd("config/config.yaml"), cwd=work, capture_output=True,
                                text=True, env=env(), timeout=300)
        facts["second"] = second
        facts["alive_during_second"] = first.poll() is None
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(timeout=60)
        assert _group_gone(first.pid), "jobs of the killed run survived"
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()
        log.close()
    facts["held"] = [line for line in marker.read_text().splitlines() if line]
    locks = work / ".snakemake" / "locks"
    facts["stale_lock"] = sorted(p.name for p in locks.iterdir()) if locks.is_dir() else []
    facts["done_before_kill"] = sorted(tree_files(work / DEMO_OUT))
    res = subprocess.run(make_cmd("config/config.yaml"), cwd=work, capture_output=True,
                         text=True, env=env(), timeout=1800)
    facts["rerun"] = res
    return work, facts


def _steps_done(log: str) -> int:
    """N of the run's closing line "qacamp: done: N steps in ..."."""
    m = re.search(r"qacamp: done: (\d+) steps", log)
    assert m, log[-2000:]
    return int(m.group(1))


@needs_make
def test_demo_resumes_after_sigkill_with_the_readme_command(resumed_demo, demo):
    work, facts = resumed_demo
    second = facts["second"]
    assert facts["alive_during_second"]
    assert second.returncode != 0
    assert "another run is active" in second.stderr, second.stderr[-2000:]
    # the kill left Snakemake's lock: without the wrapper the rerun would refuse
    assert facts["stale_lock"], "the killed run left no lock; the test proves nothing"
    assert facts["done_before_kill"], "killed before anything was written"
    assert facts["held"] and all(not Path(t).exists() for t in facts["held"])
    res = facts["rerun"]
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert "removing the lock left by an earlier run that was killed" in res.stderr
    locks = work / ".snakemake" / "locks"
    assert not locks.exists() or not any(locks.iterdir())
    assert leftover_temp_files(work) == []

    diff = differing_files(demo, work / DEMO_OUT)
    assert diff == []
    for p in tree_files(work / DEMO_OUT).values():
        if p.suffix == ".parquet":
            pl.read_parquet(p)


@needs_make
def test_two_demo_runs_are_byte_identical(resumed_demo, demo, demo_log):
    """The session's clean demo run and the rerun after the kill at the first
    score file: the rerun made every score, analysis, table, figure and page
    again (all its steps but the few ingests done before the kill), in another
    folder, and wrote the same bytes."""
    work, facts = resumed_demo
    clean, rerun = _steps_done(demo_log.stderr), _steps_done(facts["rerun"].stderr)
    assert rerun >= 0.95 * clean, (rerun, clean)
    files = tree_files(demo)
    campaigns = sorted(yaml.safe_load((ROOT / "config/config.yaml").read_text())["campaigns"])
    assert sorted({rel.split("/")[0] for rel in files}) == \
        sorted(campaigns + ["overview", "index.html", ".qacamp-output"])
    assert len(files) > 400, len(files)
    assert differing_files(demo, work / DEMO_OUT) == []
