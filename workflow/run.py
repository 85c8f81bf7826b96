"""Run the workflow in the current folder; resume safely after a killed run.

`make run CONFIG=my.yaml` and `make demo` call this script with Snakemake's
arguments (``--configfile``, ``--workflow-profile``, ``--cores`` ...).

A Snakemake run that is killed (SIGKILL, a closed terminal, a lost login
session) leaves its lock under ``.snakemake/locks``, and the next run refuses
to start until someone types ``snakemake --unlock``, which is only safe when
no other run is active in the folder.  This script proves that instead of
asking: it holds an exclusive ``flock`` on ``.snakemake/qacamp-run.lock`` for
as long as Snakemake runs (the lock passes to Snakemake itself with ``exec``,
and the kernel drops it the moment that process dies, however it dies).

* another run started by this script is active in the folder: the lock is
  taken, nothing is touched, exit code 75 and one line saying so;
* no such run is active but Snakemake's lock is there: it is stale, so
  ``snakemake --unlock`` first (with the same arguments), then the run;
* then Snakemake replaces this process; ``rerun-incomplete`` in the profile
  reruns the jobs the killed run left unfinished.

A run on the same outdir started from another folder (or with plain
``snakemake``) is refused by the workflow itself: its main process holds a
lock on the outdir (:func:`qacamp.io.prepare_outdir`), so the second stops at
once with exit code 75 and one line naming the running process.

Before all this, every ``--configfile`` is read with qacamp's strict reader
(:func:`qacamp.configfile.read_config_file`): a config file Snakemake could
not read (UTF-16) or would misread (a key given twice) is one line, exit 1.

Snakemake logs through qacamp's logger plugin (``--logger qacamp``: a progress
line per finished step, a failed step's one-line error first, a summary of what
was written where; the full log stays in ``.snakemake/log/``), unless the
arguments name a ``--logger`` or ``QACAMP_LOG=snakemake`` asks for Snakemake's
own output.

Runs started with plain ``snakemake`` do not take the flock: do not mix the two
in one folder.  Standard library only, besides that check.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

SNAKEFILE = Path(__file__).resolve().parents[1] / "Snakefile"
STATE = Path(".snakemake")
FLOCK = STATE / "qacamp-run.lock"
BUSY = 75  # EX_TEMPFAIL: try again when the other run has finished


def snakemake_executable() -> str:
    beside = Path(sys.executable).parent / "snakemake"
    return str(beside) if beside.is_file() else (shutil.which("snakemake") or "snakemake")


def stale_snakemake_lock() -> bool:
    locks = STATE / "locks"
    return locks.is_dir() and any(locks.iterdir())


def config_files(args: list[str]) -> list[str]:
    """The values of ``--configfile``/``--configfiles`` (each takes one or more)."""
    out, taking = [], False
    for word in args:
        if word in ("--configfile", "--configfiles"):
            taking = True
        elif word.startswith("--configfile=") or word.startswith("--configfiles="):
            out.append(word.split("=", 1)[1])
            taking = False
        elif word.startswith("-"):
            taking = False
        elif taking:
            out.append(word)
    return out


def check_config_files(args: list[str]) -> str | None:
    """Read every config file with qacamp's strict reader before Snakemake
    does: Snakemake's own loader would print a traceback for a UTF-16 file and
    keep the last of two equal keys (qacamp.configfile).  The error, or None."""
    try:
        from qacamp.configfile import read_config_file
        from qacamp.errors import QacampError
    except ImportError:  # qacamp not installed here: the workflow checks again
        return None
    for path in config_files(args):
        try:
            read_config_file(path)
        except QacampError as exc:
            return str(exc)
    return None


#: why a local run hides ``scontrol``: the SLURM executor plugin, imported at
#: every Snakemake start, runs ``scontrol show config`` (timeout 10 s) to word a
#: help text; where a SLURM client is installed but no controller answers, that
#: is 9-10 s of every run, most of a no-op rerun's time.  A run that does not
#: use the SLURM executor gets a ``scontrol`` that fails at once instead.
SHIM = STATE / "qacamp-bin"


def uses_slurm(args: list[str]) -> bool:
    """True when the run goes through the SLURM executor: an ``--executor`` /
    ``-e`` argument naming it, or a profile whose config says so."""
    for i, a in enumerate(args):
        value = a.split("=", 1)[1] if "=" in a else (args[i + 1] if i + 1 < len(args) else "")
        name = a.split("=", 1)[0]
        if name in ("--executor", "-e") and value.strip() == "slurm":
            return True
        if name in ("--profile", "--workflow-profile") and value:
            conf = Path(value) / "config.yaml"
            try:
                text = conf.read_text(encoding="utf-8")
            except OSError:
                continue
            if re.search(r"^\s*executor\s*:\s*['\"]?slurm\b", text, re.MULTILINE):
                return True
    return False


def hide_scontrol() -> None:
    """Put a ``scontrol`` that fails at once first on PATH (see :data:`SHIM`)."""
    SHIM.mkdir(parents=True, exist_ok=True)
    fake = SHIM / "scontrol"
    if not fake.is_file():
        fake.write_text("#!/bin/sh\n# qacamp: a local run does not ask SLURM (workflow/run.py)\n"
                        "exit 1\n")
        fake.chmod(0o755)
    os.environ["PATH"] = f"{SHIM.resolve()}{os.pathsep}{os.environ.get('PATH', '')}"


def logger_args(args: list[str]) -> list[str]:
    """``--logger qacamp`` unless the arguments choose a logger themselves or
    ``QACAMP_LOG=snakemake`` is set."""
    if os.environ.get("QACAMP_LOG", "").strip().lower() == "snakemake" or any(
            a == "--logger" or a.startswith("--logger=") for a in args):
        return []
    return ["--logger", "qacamp"]


def main(args: list[str]) -> int:
    problem = check_config_files(args)
    if problem is not None:
        print(f"qacamp: {problem}", file=sys.stderr)
        return 1
    STATE.mkdir(exist_ok=True)
    fd = os.open(FLOCK, os.O_RDWR | os.O_CREAT, 0o644)
    cmd = [snakemake_executable(), "-s", str(SNAKEFILE), *logger_args(args), *args]
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 200).decode(errors="replace").strip() or "unknown pid"
        print(f"qacamp: another run is active in {Path.cwd()} ({holder}); wait until it "
              "has finished, then run the same command again", file=sys.stderr)
        return BUSY
    except OSError as exc:
        # a file system without flock (some network mounts): nothing proves that
        # no run is alive, so leave Snakemake's own lock alone
        print(f"qacamp: cannot lock {FLOCK} ({exc.strerror}); after a killed run, type "
              "`snakemake --unlock` with the same options once no run is active here",
              file=sys.stderr)
        os.execv(cmd[0], cmd)
    os.ftruncate(fd, 0)
    os.write(fd, f"pid {os.getpid()}\n".encode())
    if not uses_slurm(args):
        hide_scontrol()
    if stale_snakemake_lock():
        # we hold the flock, so no run started by this script is alive: the
        # Snakemake lock was left by a killed run
        print("qacamp: removing the lock left by an earlier run that was killed",
              file=sys.stderr)
        unlock = subprocess.run([*cmd, "--unlock"], stdout=subprocess.DEVNULL)
        if unlock.returncode != 0:
            return unlock.returncode
    os.set_inheritable(fd, True)  # Snakemake keeps holding the flock
    os.execv(cmd[0], cmd)
    return 1  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
