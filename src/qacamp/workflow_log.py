"""The workflow's log as a person follows it (``make run``, ``make demo``,
``qacamp run``): one progress line per finished step, a failed step's one-line
error first, and a final summary of what was written where; Snakemake's full
log stays in its file (``.snakemake/log/*.snakemake.log``).

::

    [12/203] score trec2004 (2.1 s)
    [13/203] FAILED ingest mine: runs/x.tsv line 3: ... Fix: ...
             log: results/mine/logs/ingest.log
    qacamp: done: 203 steps in 5 min 27 s; wrote 1,190 files under results-demo/
    qacamp: open results-demo/index.html (and 6 campaign pages <campaign>/report.html)
    qacamp: Snakemake's full log: .snakemake/log/2026-...snakemake.log

:class:`ProgressLog` is pure bookkeeping over Snakemake's structured log events
(``LogEvent``: ``job_info``, ``job_finished``, ``progress``, ``job_error`` ...),
so it is tested without running Snakemake; the logger plugin
``snakemake_logger_plugin_qacamp`` feeds it (``snakemake --logger qacamp``,
which ``workflow/run.py`` adds).  Standard library only.
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

#: lines of a failed job's log that carry its error, best first: a qacamp
#: command's one-line error, a config error, a Python exception line
_ERROR_PATTERNS = (re.compile(r"^qacamp [\w -]+: error: "), re.compile(r"^qacamp: "),
                   re.compile(r"^\w+(Error|Exception)\b.*:"))
#: Snakemake messages the summary replaces ("look below" when nothing follows)
_REPLACED = ("Exiting because a job execution failed", "Complete log(s):",
             "Nothing to be done")
#: Snakemake's informational messages a person still needs (the rest of its
#: chatter goes to the full log only)
_PASSED = ("Report created", "Creating report", "Unlocking working directory",
           "Unlocked working directory", "Would remove", "Removing output files")
#: Snakemake's own reports of a failed shell command: the FAILED line says it
#: (they stay in the full log)
_FAILURE_NOISE = ("CalledProcessError in file", "WorkflowError:\nAt least one job did not",
                  "At least one job did not complete successfully", "RuleException:\n"
                  "CalledProcessError")


def error_line(log_paths: list[str], fallback: str = "") -> str:
    """The one line that says why a step failed: from its log files, the first
    line matching :data:`_ERROR_PATTERNS` (a qacamp error first), else the last
    non-empty line, else ``fallback``."""
    lines: list[str] = []
    for p in log_paths:
        try:
            text = Path(p).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        lines += [ln.strip() for ln in text.splitlines() if ln.strip()]
    for pattern in _ERROR_PATTERNS:
        hit = next((ln for ln in lines if pattern.search(ln)), None)
        if hit:
            return hit
    return lines[-1] if lines else fallback


def duration(seconds: float) -> str:
    """``2.1 s``, ``5 min 27 s``, ``1 h 02 min``."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    m, s = divmod(int(round(seconds)), 60)
    if m < 60:
        return f"{m} min {s:02d} s"
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min"


def relative(path: str) -> str:
    """``path`` relative to the current folder when it lies under it."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


@dataclass
class _Job:
    label: str
    start: float
    outputs: list[str]
    logs: list[str]


#: Snakemake's target rule of the Snakefile: it runs nothing
TARGET_RULE = "all"


@dataclass
class ProgressLog:
    """Turns Snakemake's log records into the lines above (``write`` takes one
    line without its newline)."""

    write: Callable[[str], None]
    dryrun: bool = False
    clock: Callable[[], float] = time.time
    jobs: dict[int, _Job] = field(default_factory=dict)
    done: int = 0
    total: int = 0
    #: Snakemake's target rule ``all`` (no step: it only names the files), left
    #: out of the counts: its jobs in the plan, and those finished
    targets: int = 0
    targets_done: int = 0
    finished: list[int] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    logfile: str | None = None
    nothing_to_do: bool = False
    #: Snakemake planned the steps (its run statistics, or "nothing to be done");
    #: a config error stops the workflow before that
    planned: bool = False
    started: float | None = None
    closed: bool = False

    # ------------------------------------------------------------------ events
    def handle(self, event: str | None, fields: dict, level: int = logging.INFO,
               message: str = "", created: float | None = None) -> None:
        now = self.clock() if created is None else created
        if self.started is None:
            self.started = now
        handler = getattr(self, f"_on_{event}", None) if event else None
        if handler is not None:
            handler(fields, now, message)
        elif event is None:
            self._message(level, message)

    def _on_job_info(self, f: dict, now: float, _msg: str) -> None:
        wildcards = f.get("wildcards") or {}
        values = " ".join(str(v) for v in (wildcards.values() if isinstance(wildcards, dict)
                                           else []))
        label = f"{f.get('rule_name', 'step')} {values}".strip()
        self.jobs[int(f.get("jobid", -1))] = _Job(label, now, list(f.get("output") or []),
                                                  list(f.get("log") or []))

    def _on_job_finished(self, f: dict, now: float, _msg: str) -> None:
        job = self.jobs.get(int(f.get("job_id", -1)))
        if job is not None:
            self.outputs += job.outputs
        self.finished.append(int(f.get("job_id", -1)))

    @property
    def steps_done(self) -> int:
        return self.done - self.targets_done

    @property
    def steps(self) -> int:
        return self.total - self.targets

    def _on_progress(self, f: dict, now: float, _msg: str) -> None:
        self.done, self.total = int(f.get("done", 0)), int(f.get("total", 0))
        while self.finished:
            jobid = self.finished.pop(0)
            job = self.jobs.get(jobid)
            if job is not None and job.label == TARGET_RULE:
                self.targets_done += 1
            if job is None or job.label == TARGET_RULE:
                continue
            self.write(f"[{self.steps_done}/{self.steps}] {job.label} "
                       f"({duration(now - job.start)})")

    def _on_job_error(self, f: dict, now: float, msg: str) -> None:
        job = self.jobs.get(int(f.get("jobid", -1)))
        label = job.label if job else str(f.get("rule_name", "step"))
        logs = list(f.get("log") or (job.logs if job else []))
        self.failed.append(label)
        where = (f"[{self.steps_done + len(self.failed)}/{self.steps}]" if self.total
                 else "[-]")
        self.write(f"{where} FAILED {label}: "
                   f"{error_line(logs, fallback=str(f.get('rule_msg') or msg or 'failed'))}")
        if logs:
            self.write(f"{' ' * len(where)} log: {', '.join(relative(p) for p in logs)}")

    def _on_group_error(self, f: dict, now: float, msg: str) -> None:
        for info in f.get("job_error_info") or []:
            self._on_job_error({"jobid": info.get("jobid", -1), "rule_name":
                                info.get("rule_name"), "log": info.get("log")}, now, msg)

    def _on_run_info(self, f: dict, now: float, msg: str) -> None:
        stats = f.get("stats")
        self.planned = True
        if isinstance(stats, dict) and isinstance(stats.get("total"), int):
            self.total = self.total or int(stats["total"])
            self.targets = int(stats.get(TARGET_RULE) or 0)
        if self.dryrun and msg:
            self.write(msg)

    def _on_error(self, f: dict, now: float, msg: str) -> None:
        self._message(logging.ERROR, msg)

    def _message(self, level: int, message: str) -> None:
        message = (message or "").rstrip()
        if message.startswith("Complete log(s):"):
            self.logfile = message.split(":", 1)[1].strip()
            self.close()
        elif message.startswith("Nothing to be done"):
            self.nothing_to_do = self.planned = True
        elif message.startswith(_REPLACED) or message.lstrip().startswith(_FAILURE_NOISE):
            pass
        elif message and (level >= logging.WARNING or message.startswith(_PASSED)):
            self.write(message)

    # ------------------------------------------------------------------ summary
    def summary(self) -> list[str]:
        """The closing lines: what ran, what was written where, the full log."""
        took = duration(self.clock() - self.started) if self.started is not None else ""
        out = []
        if self.dryrun and not (self.planned or self.total or self.jobs):
            out.append("qacamp: dry run stopped before any step was planned (the lines above "
                       "say why): fix the cause and type the same command again")
        elif self.dryrun:
            out.append(f"qacamp: dry run: {self.steps or len(self.jobs)} steps would run")
        elif self.failed:
            out.append(f"qacamp: stopped: {len(self.failed)} step(s) failed "
                       f"({', '.join(self.failed)}); {self.steps_done} of {self.steps} steps "
                       "done. "
                       "Fix the cause and type the same command again: finished steps are "
                       "kept.")
        elif self.nothing_to_do and not self.outputs:
            out.append("qacamp: nothing to do: every result is up to date")
        elif not self.jobs:
            pass  # no step ran (--report, --unlock ...): Snakemake's own lines said it
        else:
            files = [p for p in self.outputs if not Path(p).name.startswith(".")]
            out.append(f"qacamp: done: {self.steps_done} steps in {took}; "
                       f"{self._where(files)}")
            pages = self._pages(files)
            if pages:
                out.append(f"qacamp: open {pages}")
        if self.logfile:
            out.append(f"qacamp: Snakemake's full log: {relative(self.logfile)}")
        return out

    @staticmethod
    def _where(files: list[str]) -> str:
        tops: dict[str, int] = {}
        # an absolute outdir: the folder holding every absolute file, named whole
        absolute = [str(Path(p).parent) for p in files if Path(p).is_absolute()]
        root = os.path.join(os.path.commonpath(absolute), "") if absolute else ""
        for p in files:
            parts = Path(p).parts
            top = root if Path(p).is_absolute() else parts[0] + "/" if len(parts) > 1 else "./"
            tops[top] = tops.get(top, 0) + 1
        if not tops:
            return "no files written"
        return "wrote " + ", ".join(f"{n:,} file(s) under {t}" for t, n in sorted(tops.items()))

    @staticmethod
    def _pages(files: list[str]) -> str:
        pages = sorted((p for p in files if p.endswith(".html")),
                       key=lambda p: (len(Path(p).parts), p))
        if not pages:
            return ""
        if len(pages) <= 3:
            return ", ".join(pages)
        first = pages[0]
        rest = pages[1:]
        names = {Path(p).name for p in rest}
        what = f"<campaign>/{names.pop()}" if len(names) == 1 else "pages"
        return f"{first} (and {len(rest)} campaign pages {what})"

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for line in self.summary():
            self.write(line)


def record_fields(record: logging.LogRecord) -> tuple[str | None, dict]:
    """(event name, the record's fields) of a Snakemake log record."""
    event = getattr(record, "event", None)
    return (str(event) if event is not None else None), dict(record.__dict__)


__all__ = ["ProgressLog", "error_line", "duration", "record_fields"]
