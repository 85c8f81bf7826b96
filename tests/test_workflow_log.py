"""A workflow log a person can follow: `make run` /
`make demo` print one progress line per finished step, a failed step's
one-line error first, and a summary of what was written where; Snakemake's
full log stays in its file.  A rerun with nothing to do says so in one line,
and a local run does not wait for SLURM's `scontrol`."""

from __future__ import annotations

import importlib.util
import logging
import re
import subprocess
from pathlib import Path

import pytest
from workflow_util import (
    DEMO_OUT,
    PROGRESS,
    ROOT,
    bounded_run,
    make_run,
    needs_make,
    small_clef_campaign,
)

from qacamp.workflow_log import ProgressLog, duration, error_line


def fed(events, **kw) -> list[str]:
    lines: list[str] = []
    log = ProgressLog(lines.append, clock=lambda: 100.0, **kw)
    for e in events:
        log.handle(*e)
    log.close()
    return lines


def test_a_progress_line_per_finished_step_and_a_summary():
    events = [
        ("job_info", {"jobid": 3, "rule_name": "score", "wildcards": {"campaign": "trec2004"},
                      "output": ["results-demo/trec2004/scores/runs.parquet"]}, 20, "", 10.0),
        ("job_info", {"jobid": 4, "rule_name": "report_index", "wildcards": {},
                      "output": ["results-demo/index.html"]}, 20, "", 11.0),
        ("job_finished", {"job_id": 3}, 20, "", 12.1),
        ("progress", {"done": 12, "total": 203}, 20, "", 12.1),
        ("job_finished", {"job_id": 4}, 20, "", 13.0),
        ("progress", {"done": 13, "total": 203}, 20, "", 13.0),
        ("shellcmd", {"cmd": "qacamp score ..."}, 20, "qacamp score ...", 13.0),
        (None, {}, logging.INFO, "Select jobs to execute...", 13.0),
        (None, {}, logging.INFO, "Complete log(s): /x/.snakemake/log/a.snakemake.log", 14.0),
    ]
    lines = fed(events)
    assert lines[0] == "[12/203] score trec2004 (2.1 s)"  # the format a person reads
    assert lines[1] == "[13/203] report_index (2.0 s)"
    assert lines[2].startswith("qacamp: done: 13 steps in ")
    assert "wrote 2 file(s) under results-demo/" in lines[2]
    assert lines[3] == "qacamp: open results-demo/index.html"
    assert lines[4] == "qacamp: Snakemake's full log: /x/.snakemake/log/a.snakemake.log"
    assert len(lines) == 5
    assert PROGRESS.match(lines[0])
    assert duration(327) == "5 min 27 s" and duration(2.06) == "2.1 s"


def test_an_absolute_outdir_is_named_whole_in_the_summary():
    """It said "wrote 478 file(s) under //" for an outdir given as an absolute path."""
    events = []
    for k, out in enumerate(("/data/qa/out/trec2004/scores/runs.parquet",
                             "/data/qa/out/index.html", "results/x/report.html")):
        events += [("job_info", {"jobid": k, "rule_name": "score", "wildcards": {},
                                 "output": [out]}, 20, "", 1.0),
                   ("job_finished", {"job_id": k}, 20, "", 2.0)]
    line = next(x for x in fed(events) if x.startswith("qacamp: done:"))
    assert line.endswith("; wrote 2 file(s) under /data/qa/out/, 1 file(s) under results/"), line


def test_the_counter_leaves_out_snakemakes_target_rule():
    """The counter ended at [244/245], then "done: 245 steps": the target rule
    `all` is no step."""
    events = [("run_info", {"stats": {"score": 1, "report_index": 1, "all": 1, "total": 3}},
               20, "Job stats: ...", 1.0)]
    for k, (rule, t) in enumerate((("score", 2.0), ("report_index", 3.0), ("all", 3.5))):
        events += [("job_info", {"jobid": k, "rule_name": rule, "wildcards": {},
                                 "output": [f"results-demo/{rule}.x"]}, 20, "", t - 0.5),
                   ("job_finished", {"job_id": k}, 20, "", t),
                   ("progress", {"done": k + 1, "total": 3}, 20, "", t)]
    events.append((None, {}, logging.INFO, "Complete log(s): /x/a.snakemake.log", 4.0))
    lines = fed(events)
    assert lines[:2] == ["[1/2] score (0.5 s)", "[2/2] report_index (0.5 s)"]
    assert lines[2].startswith("qacamp: done: 2 steps in ")


def test_a_failed_step_shows_its_one_line_error_first(tmp_path):
    log = tmp_path / "ingest.log"
    lines = [f"progress {i}" for i in range(20)]
    lines.insert(10, "qacamp ingest: error: runs/x.tsv: line 3: expected 5 fields, got 1. "
                     "Fix: write the line as ...")
    log.write_text("\n".join(lines + ["Traceback-free tail"] * 20) + "\n")
    out = fed([
        ("run_info", {"stats": {"ingest": 1, "total": 30}}, 20, "Job stats: ...", 1.0),
        ("job_info", {"jobid": 7, "rule_name": "ingest", "wildcards": {"campaign": "mine"},
                      "log": [str(log)]}, 20, "", 1.0),
        (None, {}, logging.ERROR, "CalledProcessError in file ingest.smk, line 52:\n...", 2.0),
        ("job_error", {"jobid": 7, "rule_name": "ingest", "log": [str(log)]}, 40, "", 2.0),
        (None, {}, logging.ERROR, "Exiting because a job execution failed. Look below", 2.0),
    ])
    assert out[0] == ("[1/30] FAILED ingest mine: qacamp ingest: error: runs/x.tsv: line 3: "
                      "expected 5 fields, got 1. Fix: write the line as ...")
    assert out[1].strip() == f"log: {log}"
    assert out[2].startswith("qacamp: stopped: 1 step(s) failed (ingest mine); 0 of 30 steps")
    assert len(out) == 3
    assert error_line([str(tmp_path / "missing.log")], "fallback") == "fallback"


def run_script():
    spec = importlib.util.spec_from_file_location("run_py", ROOT / "workflow" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_only_a_slurm_run_asks_slurm():
    run = run_script()
    profiles = ROOT / "workflow" / "profiles"
    assert run.uses_slurm(["--workflow-profile", str(profiles / "slurm")])
    assert run.uses_slurm([f"--profile={profiles / 'slurm'}"])
    assert run.uses_slurm(["--executor", "slurm", "--cores", "2"])
    assert not run.uses_slurm(["--workflow-profile", str(profiles / "default"), "--cores", "2"])
    assert run.logger_args(["--cores", "2"]) == ["--logger", "qacamp"]
    assert run.logger_args(["--logger", "other"]) == []


@pytest.mark.slow
@needs_make
def test_demo_log_is_a_progress_line_per_step_and_a_summary(demo_work, demo_log):
    work, res = demo_work, demo_log
    lines = res.stderr.strip().splitlines()
    steps = [m for m in map(PROGRESS.match, lines) if m]
    total = int(steps[0].group(2))
    # every step, counted without Snakemake's target rule `all`: the last is [N/N]
    assert len(steps) == total and steps[-1].group(1) == steps[-1].group(2)
    assert sorted(int(m.group(1)) for m in steps) == list(range(1, total + 1))
    assert len(lines) <= total + 6, lines[:5] + lines[-8:]
    assert not any(ln.startswith(("rule ", "localrule ", "    output:", "Shell command"))
                   for ln in lines)
    tail = "\n".join(lines[-3:])
    assert f"qacamp: done: {total} steps in" in tail
    assert f"under {DEMO_OUT}/" in tail and f"open {DEMO_OUT}/index.html" in tail
    full = re.search(r"Snakemake's full log: (\S+)", tail).group(1)
    text = (work / full).read_text()
    assert text.count("rule ") > total  # every step's rule is still in the file (and `all`)


@pytest.mark.slow
@needs_make
def test_a_rerun_with_nothing_to_do_says_so(demo_work):
    work = demo_work
    res = make_run(work)
    assert res.returncode == 0, res.stderr[-2000:]
    said = [ln for ln in res.stderr.splitlines() if not ln.startswith("Using workflow")]
    assert said == ["qacamp: nothing to do: every result is up to date"], said
    # a local run does not wait for SLURM: `scontrol` fails at once for it
    shim = work / ".snakemake" / "qacamp-bin" / "scontrol"
    assert subprocess.run([str(shim)]).returncode == 1


@pytest.mark.slow
@needs_make
def test_a_failed_run_leads_with_the_error_line(tmp_path):
    cfg = small_clef_campaign(tmp_path, runs=3, questions=20)
    run = sorted((tmp_path / "data" / "runs").glob("*.tsv"))[0]
    run.write_text(run.read_text() + "garbage line without tabs\n")
    res = bounded_run(["make", "-f", ROOT / "Makefile", "run", f"CONFIG={cfg.name}"],
                      cwd=tmp_path, timeout=600)
    assert res.returncode != 0
    lines = [ln for ln in res.stderr.splitlines()
             if not ln.startswith(("Using workflow", "make"))]
    at = next(i for i, ln in enumerate(lines) if "FAILED" in ln)
    # the steps before it, then the failed step's own error, its log, the summary
    assert all(PROGRESS.match(ln) for ln in lines[:at]), lines[:at]
    assert re.match(rf"^\[\d+/\d+\] FAILED ingest mine: qacamp ingest: error: "
                    rf"data/runs/{re.escape(run.name)}: line \d+: ", lines[at]), lines[at:]
    assert lines[at + 1].strip() == "log: results/mine/logs/ingest.log"
    assert lines[at + 2].startswith("qacamp: stopped: 1 step(s) failed (ingest mine)")
    assert lines[at + 3].startswith("qacamp: Snakemake's full log: ")
    assert len(lines) == at + 4, lines
    assert Path(tmp_path / "results" / "mine" / "logs" / "ingest.log").is_file()
