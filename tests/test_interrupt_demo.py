"""The README's command resumes a killed run: the demo config run with
`make run CONFIG=config/config.yaml`, its whole process group SIGKILLed when
the first score file is about to be put in place (tests/killpoint: its
temporaries written, nothing renamed into place; Snakemake's lock stays
behind), the same command again finishes (workflow/run.py proves with a flock
that no run is alive and clears the stale lock) with results byte-identical
to the session's uninterrupted demo run.  That rerun does nearly every step
of the demo again, in another folder: it is also the test that two demo runs
write the same bytes.  A second run started while one is active is refused
and changes nothing.  (Kills at every step, on a small config:
tests/test_interrupt.py.)
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import polars as pl
import pytest
import yaml
from workflow_util import (
    DEMO_OUT,
    ROOT,
    demo_workdir,
    differing_files,
    env,
    group_gone,
    killpoint_env,
    leftover_temp_files,
    make_cmd,
    needs_make,
    steps_run,
    tree_files,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def resumed_demo(tmp_path_factory):
    """The demo run with the README's command, SIGKILLed (whole process group)
    at the kill point of tests/killpoint/sitecustomize.py on the first score
    file (its temporaries written, nothing renamed into place), a second start
    refused while it was held there, then the same command again: the rerun
    does every step but the few ingests done before the kill."""
    work = demo_workdir(tmp_path_factory.mktemp("demo_killed"))
    marker = work / "killpoint"
    e = killpoint_env(str(work / DEMO_OUT / "*" / "scores" / "*.parquet"), marker)
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
        assert group_gone(first.pid), "jobs of the killed run survived"
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
    # every step from scoring on was made again: only a campaign's config,
    # plan and ingest may have been done before the kill at the first score file
    before = {"campaign_config", "campaign_plan", "ingest"}
    made = Counter(r for r in steps_run(facts["rerun"].stderr) if r not in before)
    assert made == Counter(r for r in steps_run(demo_log.stderr) if r not in before)
    assert rerun >= clean - len(before) * 6 and made["score"] == 6, (rerun, clean)
    files = tree_files(demo)
    campaigns = sorted(yaml.safe_load((ROOT / "config/config.yaml").read_text())["campaigns"])
    assert sorted({rel.split("/")[0] for rel in files}) == \
        sorted(campaigns + ["overview", "index.html", ".qacamp-output"])
    assert len(files) > 400, len(files)
    assert differing_files(demo, work / DEMO_OUT) == []
