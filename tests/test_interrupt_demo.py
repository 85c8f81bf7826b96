"""A demo run killed at every stage resumes to the bytes of an uninterrupted
run.

The demo config, run with the README's command (`make run
CONFIG=config/config.yaml`) in a fresh folder, has its whole process group
SIGKILLed four times, at the worst moment of four stages: a job's temporary
files completely written, nothing renamed into place nor recorded
(tests/killpoint/sitecustomize.py holds the first job about to put such an
output in place and writes a marker; the moment is reached whatever the
machine's speed).  The stages: the first ingest table, the first score file,
the first reliability shard and the first figure.  Each start after a kill is
a resume: the README's command three times (workflow/run.py proves with a
flock that no run is alive and clears the stale lock), and last plain
Snakemake as docs/usage.md tells its users (`snakemake --unlock`, then the
same command).  The runs together made every file of the demo again, in
another folder: the results equal the session's uninterrupted demo run byte
for byte, which is also the test that two demo runs write the same bytes.  A
second run started while one is active is refused and changes nothing.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import polars as pl
import pytest
import yaml
from workflow_util import (
    DEMO_OUT,
    ROOT,
    bounded_run,
    demo_workdir,
    differing_files,
    group_gone,
    killpoint_env,
    leftover_temp_files,
    make_cmd,
    needs_make,
    snakemake,
    tree_files,
)

pytestmark = pytest.mark.slow

#: where the run is killed, in order: (stage, outputs whose first commit is held)
KILLS = [("ingest", "*/ingest/*.parquet"), ("score", "*/scores/*.parquet"),
         ("reliability shards", "*/reliability/shards/*.parquet"),
         ("report", "*/figures/*.png")]
STALE_LOCK = "removing the lock left by an earlier run that was killed"


def _killed_run(work: Path, stage: str, pattern: str, second: bool) -> dict:
    """`make run` in ``work`` with the kill point on ``pattern``; once a job
    holds it, (with ``second``) a second `make run` in the same folder, then
    SIGKILL of the whole process group.  What was seen, as a dict."""
    marker = work / f"killpoint.{stage.replace(' ', '_')}"
    log_path = work / f"{marker.name}.log"
    facts: dict = {}
    with open(log_path, "w") as log:
        run = subprocess.Popen(make_cmd("config/config.yaml"), cwd=work, stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True,
                               env=killpoint_env(str(work / DEMO_OUT / pattern), marker))
        try:
            deadline = time.monotonic() + 900
            while not marker.exists():
                assert run.poll() is None, log_path.read_text()[-3000:]
                assert time.monotonic() < deadline, f"the kill point of {stage} was never reached"
                time.sleep(0.05)
            if second:
                facts["second"] = bounded_run(make_cmd("config/config.yaml"), cwd=work,
                                                timeout=300)
                facts["alive_during_second"] = run.poll() is None
            os.killpg(run.pid, signal.SIGKILL)
            run.wait(timeout=60)
            facts["group_gone"] = group_gone(run.pid)
        finally:
            if run.poll() is None:
                os.killpg(run.pid, signal.SIGKILL)
                run.wait()
    facts["log"] = log_path.read_text()
    facts["held"] = [line for line in marker.read_text().splitlines() if line]
    # each held temporary is complete (a non-empty file) right after the kill
    facts["held_complete"] = all(os.path.isfile(t) and os.path.getsize(t) > 0
                                 for t in facts["held"])
    facts["temps_left"] = leftover_temp_files(work, DEMO_OUT)
    locks = work / ".snakemake" / "locks"
    facts["stale_lock"] = sorted(p.name for p in locks.iterdir()) if locks.is_dir() else []
    marker.unlink()
    return facts


@pytest.fixture(scope="module")
def resumed_demo(tmp_path_factory):
    """The demo run killed at each stage of :data:`KILLS` and resumed, last
    with plain Snakemake: (workdir, facts of each kill, the final start)."""
    work = demo_workdir(tmp_path_factory.mktemp("demo_killed"))
    kills = {stage: _killed_run(work, stage, pattern, second=i == 0)
             for i, (stage, pattern) in enumerate(KILLS)}
    cfg = work / "config" / "config.yaml"
    unlock = snakemake(work, "--unlock", configfile=cfg)
    assert unlock.returncode == 0, unlock.stderr[-2000:]
    last = snakemake(work, configfile=cfg, timeout=1800)
    return work, kills, last


def _clean_demo(request) -> Path:
    """The results of the session's clean demo run, asked for once the resumed
    run is done (as an argument, a session fixture would be made first: this
    test process would wait for it instead of running the demo alongside)."""
    return request.getfixturevalue("demo")


@needs_make
def test_demo_resumes_after_sigkill_at_every_stage(resumed_demo, request):
    work, kills, last = resumed_demo
    demo = _clean_demo(request)
    first = kills[KILLS[0][0]]
    # a second run in the same folder while the first is alive: refused
    assert first["alive_during_second"]
    assert first["second"].returncode != 0
    assert "another run is active" in first["second"].stderr, first["second"].stderr[-2000:]
    for i, (stage, _) in enumerate(KILLS):
        facts = kills[stage]
        assert facts["group_gone"], f"jobs of the run killed at {stage} survived"
        # the kill left Snakemake's lock: without the wrapper the next start would refuse
        assert facts["stale_lock"], stage
        # the job held at the kill point: complete temporaries in its writer's
        # folder (qacamp.io: <folder>/.qacamp-output/.tmp/<host.pid.start.random>/)
        assert facts["held"] and facts["held_complete"], (stage, facts["held"])
        assert all("/.qacamp-output/.tmp/" in t for t in facts["held"]), facts["held"]
        assert facts["temps_left"], stage  # left behind for the next start to deal with
        # every start after the first is a resume that clears the stale lock
        assert (STALE_LOCK in facts["log"]) == (i > 0), (stage, facts["log"][-2000:])
    assert last.returncode == 0, last.stdout[-3000:] + last.stderr[-3000:]
    locks = work / ".snakemake" / "locks"
    assert not locks.exists() or not any(locks.iterdir())
    # the killed jobs' temporaries are swept by the next writer in their folder
    assert leftover_temp_files(work, DEMO_OUT) == []
    for facts in kills.values():
        assert not any(Path(t).exists() for t in facts["held"])
    res = snakemake(work, "-n", configfile=work / "config" / "config.yaml")
    assert "Nothing to be done" in res.stdout + res.stderr
    assert differing_files(demo, work / DEMO_OUT) == []
    for p in tree_files(work / DEMO_OUT).values():
        if p.suffix == ".parquet":
            pl.read_parquet(p)


@needs_make
def test_two_demo_runs_are_byte_identical(resumed_demo, request):
    """The session's clean demo run and the demo made again in another folder
    by the runs killed and resumed: every file (logs and campaign.duckdb
    aside) has the same bytes."""
    work, _, _ = resumed_demo
    demo = _clean_demo(request)
    files = tree_files(demo)
    campaigns = sorted(yaml.safe_load((ROOT / "config/config.yaml").read_text())["campaigns"])
    assert sorted({rel.split("/")[0] for rel in files}) == \
        sorted(campaigns + ["overview", "index.html", ".qacamp-output"])
    assert len(files) > 400, len(files)
    assert sorted(tree_files(work / DEMO_OUT)) == sorted(files)
    assert differing_files(demo, work / DEMO_OUT) == []
