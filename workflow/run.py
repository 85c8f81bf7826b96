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

Before all this, every ``--configfile`` is read with qacamp's strict reader
(:func:`qacamp.configfile.read_config_file`): a config file Snakemake could
not read (UTF-16) or would misread (a key given twice) is one line, exit 1.

Runs started with plain ``snakemake`` do not take the flock: do not mix the two
in one folder.  Standard library only, besides that check.
"""

from __future__ import annotations

import fcntl
import os
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


def main(args: list[str]) -> int:
    problem = check_config_files(args)
    if problem is not None:
        print(f"qacamp: {problem}", file=sys.stderr)
        return 1
    STATE.mkdir(exist_ok=True)
    fd = os.open(FLOCK, os.O_RDWR | os.O_CREAT, 0o644)
    cmd = [snakemake_executable(), "-s", str(SNAKEFILE), *args]
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
