"""The helpers the workflow tests start commands with cannot leave a test
waiting without end: a command past its time limit is killed with every
process it started, and the test fails naming it; the Snakemake runs the
tests start locally do not wait for a SLURM controller; a stuck test fails
after 25 minutes (pytest-timeout)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from workflow_util import NO_SCONTROL, bounded_run, local_env


def _dead(pid: int) -> bool:
    """The process is gone (or a zombie nobody has reaped yet)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def test_a_command_past_its_time_limit_is_killed_with_its_children():
    # the child prints the pid of a grandchild that holds the pipes open
    # (as make's and Snakemake's children do), then waits on it
    script = "import subprocess, sys; p = subprocess.Popen(['sleep', '300']); " \
             "print('grandchild', p.pid, flush=True); p.wait()"
    started = time.monotonic()
    with pytest.raises(pytest.fail.Exception) as failed:
        bounded_run([sys.executable, "-c", script], timeout=3)
    assert time.monotonic() - started < 60  # not the grandchild's 300 s
    message = str(failed.value)
    assert "did not finish in 3 s" in message and sys.executable in message
    pid = int(message.split("grandchild ", 1)[1].split()[0])
    deadline = time.monotonic() + 10
    while not _dead(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _dead(pid), f"the grandchild {pid} survived"


def test_a_command_within_its_time_limit_gives_its_output():
    res = bounded_run([sys.executable, "-c", "import sys; print('out'); "
                       "print('err', file=sys.stderr); sys.exit(3)"], timeout=60)
    assert (res.returncode, res.stdout, res.stderr) == (3, "out\n", "err\n")


def test_local_snakemake_runs_get_a_scontrol_that_fails_at_once():
    path = local_env()["PATH"]
    found = shutil.which("scontrol", path=path)
    assert found == str(NO_SCONTROL / "scontrol")
    assert subprocess.run([found], timeout=10).returncode == 1


def test_a_stuck_test_fails_after_25_minutes(request):
    assert float(request.config.getini("timeout")) == 1500
    assert request.config.getini("timeout_method") == "signal"  # the others go on
