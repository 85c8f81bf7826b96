"""Helpers for the tests that run the Snakemake workflow as a user would."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["PATH"] = f"{BIN}{os.pathsep}{e.get('PATH', '')}"
    return e


#: a ``scontrol`` that fails at once (tests/noslurm/scontrol)
NO_SCONTROL = Path(__file__).resolve().parent / "noslurm"


def local_env() -> dict[str, str]:
    """:func:`env` for a Snakemake run with the local executor: the failing
    ``scontrol`` of :data:`NO_SCONTROL` first on PATH, as workflow/run.py gives
    a local `qacamp run` (the SLURM executor plugin runs ``scontrol show
    config`` at every Snakemake start: 9-10 s where a SLURM client is
    installed and no controller answers)."""
    e = env()
    e["PATH"] = f"{NO_SCONTROL}{os.pathsep}{e['PATH']}"
    return e


def bounded_run(cmd: list, *, timeout: float, cwd: Path | None = None,
                environ: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd, capture_output=True, text=True)``, bounded: the
    command runs in a process group of its own, and past ``timeout`` seconds
    (or when the test is interrupted) the whole group is killed and the test
    fails with the tail of what it printed.  (`subprocess.run`'s own timeout
    kills only the command: make's and Snakemake's children keep its pipes
    open and the test would wait for them without end.)"""
    cmd = [str(c) for c in cmd]
    proc = subprocess.Popen(cmd, cwd=cwd, env=env() if environ is None else environ,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        out, err = _kill_group(proc)
        pytest.fail(f"{shlex.join(cmd)} (in {cwd or os.getcwd()}) did not finish in "
                    f"{timeout} s; it printed:\n{out[-2000:]}\n{err[-4000:]}")
    except BaseException:
        _kill_group(proc)
        raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def _kill_group(proc: subprocess.Popen) -> tuple[str, str]:
    """SIGKILL to ``proc``'s process group; what it had printed."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        return proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:  # a process that left the group holds the pipes
        proc.kill()
        return "", "(output lost: a process outside the group kept it open)"


def run_together(cmd: list, logs: list[Path], cwds: list[Path] | None = None,
                 timeout: float = 1800) -> list[tuple[int, str]]:
    """``cmd`` started once per log of ``logs`` at once (in ``cwds``, one per
    log), each one's stderr to its log (a pipe nobody reads could fill and
    stop it); (exit code, stderr) of each, in order."""
    procs = []
    for log, cwd in zip(logs, cwds or [None] * len(logs), strict=True):
        with open(log, "w") as err:
            procs.append(subprocess.Popen([str(c) for c in cmd], cwd=cwd, env=env(),
                                          stdout=subprocess.DEVNULL, stderr=err))
    return [(p.wait(timeout=timeout), log.read_text())
            for p, log in zip(procs, logs, strict=True)]


def snakemake(workdir: Path, *args: str, configfile: Path | None = None,
              timeout: int = 900, quiet: bool = True) -> subprocess.CompletedProcess:
    """Snakemake with the default profile; ``quiet=False`` for the full output a
    user sees (``--quiet rules`` also hides the failed jobs' logs)."""
    # targets first: --configfile and --quiet take several values
    cmd = [str(BIN / "snakemake"), *args, "-s", str(ROOT / "Snakefile"), "-d", str(workdir),
           "--workflow-profile", str(ROOT / "workflow" / "profiles" / "default"), "--cores", "2"]
    if configfile is not None:
        cmd += ["--configfile", str(configfile)]
    if quiet:
        cmd += ["--quiet", "rules"]
    slurm = any(a == "--executor" and b == "slurm" for a, b in zip(args, args[1:], strict=False))
    return bounded_run(cmd, timeout=timeout, environ=env() if slurm else local_env())


def error_lines(res: subprocess.CompletedProcess) -> list[str]:
    """What a failed Snakemake start printed on stderr, without its notice about
    the profile it uses."""
    return [line for line in res.stderr.strip().splitlines()
            if not line.startswith("Using workflow specific profile")]


def qacamp(*args: str, cwd: Path | None = None,
           timeout: float = 900) -> subprocess.CompletedProcess:
    return bounded_run([BIN / "qacamp", *args], cwd=cwd, timeout=timeout)


def qacamp_here(capsys, *args: str) -> subprocess.CompletedProcess:
    """``qacamp ARGS`` run in this process (no interpreter start-up, no imports
    again): the exit code, stdout and stderr as :func:`qacamp` gives them."""
    from qacamp.cli import main

    capsys.readouterr()
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(["qacamp", *map(str, args)], rc, out, err)


def qacamp_in_root(*argv) -> int:
    """``qacamp ARGV`` in this process, from the project root (the demo config's
    paths are relative to it); the exit code."""
    from qacamp.cli import main

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        return main([str(a) for a in argv])
    finally:
        os.chdir(cwd)


def small_clef_campaign(tmp: Path, runs: int = 6, questions: int = 80, seed: int = 11,
                        shards: int = 2) -> Path:
    """An organizer's own CLEF-QA campaign in ``tmp``: simulated raw files plus a
    config with small reliability settings.  Returns the config path."""
    data = tmp / "data"
    res = qacamp("simulate", "clef-qa", "--out", str(data), "--runs", str(runs),
                 "--questions", str(questions), "--seed", str(seed), "--quiet")
    if res.returncode != 0:
        raise RuntimeError(res.stderr)
    cfg = {
        "shards": shards,
        "reliability": {"seed": 7},
        "campaigns": {
            "mine": {
                "kind": "clef-qa",
                "questions": "data/questions.tsv",
                "runs": "data/runs/*.tsv",
                "reliability": {
                    "measures": ["c_at_1", "accuracy"],
                    "swap": {"sizes": "10:40:10", "trials": 4, "min_fit_size": 10},
                    "stability": {"size": 30, "trials": 10},
                    "bootstrap": {"trials": 50},
                    "significance": {"permutations": 500},
                },
            }
        },
    }
    path = tmp / "mine.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=True))
    return path


# --------------------------------------------------------------------------- the README's commands

MAKE = shutil.which("make")
VENV_SNAKEMAKE = ROOT / ".venv" / "bin" / "snakemake"
DEMO_OUT = "results-demo"  # config/config.yaml's outdir
#: a progress line of `qacamp run`: "[12/86] score trec2004 (2.1 s)"
PROGRESS = re.compile(r"^\[(\d+)/(\d+)\] (\S+)( [^(]*)? \((\d+\.\d s|\d+ min \d\d s)\)$")


def steps_run(log: str) -> list[str]:
    """The rule of every step a `qacamp run` log reports as finished."""
    return [m.group(3) for m in map(PROGRESS.match, log.splitlines()) if m]

needs_make = pytest.mark.skipif(MAKE is None or not VENV_SNAKEMAKE.exists(),
                                reason="needs make and the project's .venv (make setup)")


def make_cmd(config: str | Path, *extra: str) -> list[str]:
    """The README's command for one's own campaigns, `make run CONFIG=...`, run
    from another folder with `-f` (the workflow runs in the current folder)."""
    return [MAKE or "make", "-f", str(ROOT / "Makefile"), "run", f"CONFIG={config}", *extra]


def make_run(workdir: Path, config: str | Path = "config/config.yaml",
             timeout: int = 1800) -> subprocess.CompletedProcess:
    return bounded_run(make_cmd(config), cwd=workdir, timeout=timeout)


def demo_workdir(tmp: Path) -> Path:
    """A folder laid out like the project for the demo config (its paths are
    relative: config/config.yaml, resources/demo/...)."""
    for name in ("config", "resources"):
        (tmp / name).symlink_to(ROOT / name)
    return tmp


def demo_run(work: Path) -> subprocess.CompletedProcess:
    """A clean demo run with the README's command in ``work`` (laid out by
    :func:`demo_workdir`); results under ``work / DEMO_OUT``.  The session's
    run is the ``demo_work`` fixture (tests/conftest.py)."""
    res = make_run(demo_workdir(work))
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return res


# --------------------------------------------------------------------------- comparing results

#: what tests (not the workflow) put under an outdir: the browser test's screenshots
TEST_ARTEFACTS = ("screenshots",)


def tree_files(outdir: Path) -> dict[str, Path]:
    """Every file under ``outdir`` by relative path, except logs (timings, absolute
    paths), Snakemake's ``.snakemake_timestamp`` markers of folder outputs and
    the tests' own artefacts (:data:`TEST_ARTEFACTS`)."""
    out = {}
    for p in sorted(outdir.rglob("*")):
        rel = p.relative_to(outdir)
        if p.is_file() and "logs" not in rel.parts and p.name != ".snakemake_timestamp" \
                and rel.parts[0] not in TEST_ARTEFACTS:
            out[rel.as_posix()] = p
    return out


def duckdb_content(path: Path) -> dict[str, object]:
    """View name -> its rows (as a polars frame) of a campaign.duckdb."""
    import duckdb

    con = duckdb.connect(str(path), read_only=True)
    try:
        names = [r[0] for r in con.execute(
            "select view_name from duckdb_views() where not internal order by view_name"
        ).fetchall()]
        return {n: con.sql(f'select * from "{n}"').pl() for n in names}
    finally:
        con.close()


def same_duckdb(a: Path, b: Path) -> bool:
    ca, cb = duckdb_content(a), duckdb_content(b)
    return list(ca) == list(cb) and all(ca[n].equals(cb[n], null_equal=True) for n in ca)


def differing_files(a: Path, b: Path) -> list[str]:
    """Relative paths of files that differ between two output folders (or exist in
    one only): bytes for every file, the views' rows for campaign.duckdb (its
    bytes hold a random database id and the views absolute paths; see
    qacamp.io.write_campaign_duckdb)."""
    fa, fb = tree_files(a), tree_files(b)
    out = sorted(set(fa) ^ set(fb))
    for rel in sorted(set(fa) & set(fb)):
        if rel.endswith("campaign.duckdb"):
            if not same_duckdb(fa[rel], fb[rel]):
                out.append(rel)
        elif fa[rel].read_bytes() != fb[rel].read_bytes():
            out.append(rel)
    return out


# --------------------------------------------------------------------------- a small two-campaign run

# where qacamp.io's writers stage their files (a folder per writing process
# in each marker, .qacamp-output/.tmp/) and lock a file output
# (.qacamp-output/<name>.lock); names older releases staged beside their targets
TEMP_NAME = re.compile(r"^\..+\.(tmp|old|parquet|csv|png|svg|wal)$")


def leftover_temp_files(workdir: Path, outdir: str = "results") -> list[str]:
    """Temporary files and locks of qacamp's writers left under ``workdir/outdir``."""
    results = workdir / outdir
    return sorted(p.relative_to(results).as_posix() for p in results.rglob("*")
                  if TEMP_NAME.match(p.name) or (p.parent.name == ".qacamp-output" and (
                      p.name == ".tmp" or p.name.endswith(".lock"))))


# --------------------------------------------------------------------------- killing a run

#: tests/killpoint/sitecustomize.py: a deterministic kill point for a workflow
KILLPOINT = Path(__file__).resolve().parent / "killpoint"


def killpoint_env(pattern: str, marker: Path) -> dict[str, str]:
    """The environment of a workflow whose first job about to put an output
    matching ``pattern`` (fnmatch on the absolute path) in place writes
    ``marker`` and waits to be killed (tests/killpoint/sitecustomize.py)."""
    e = env()
    e["PYTHONPATH"] = os.pathsep.join([str(KILLPOINT), *filter(None, [e.get("PYTHONPATH")])])
    e["QACAMP_KILLPOINT"] = pattern
    e["QACAMP_KILLPOINT_MARKER"] = str(marker)
    return e


def group_gone(pgid: int) -> bool:
    """True once no process of group ``pgid`` is left (waits up to 10 s)."""
    for _ in range(1000):
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.01)
    return False
