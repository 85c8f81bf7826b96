"""Run files read ahead in threads (qacamp.ordered): results and
errors in the order of the files, whatever order the threads finish in, and
an ingest gives the same files and the same first error with 1 or 4 readers."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from qacamp import ordered as prefetch
from qacamp.cli import main
from qacamp.ordered import in_order

#: a progress line of :class:`qacamp.progress.Progress`
PROGRESS = re.compile(r".*: \d+/\d+ \(\d+%\) \d+\.\ds")


def _slow(i: int, started: list[int], fail: set[int]):
    def read():
        with lock:
            started.append(i)
        time.sleep(0.02 * (5 - i % 5))  # later items often finish first
        if i in fail:
            raise ValueError(f"bad {i}")
        return i * i
    return read


lock = threading.Lock()


@pytest.mark.parametrize("ahead", [1, 2, 4])
def test_results_come_in_order(ahead):
    started: list[int] = []
    got = [r() for r in in_order((_slow(i, started, set()) for i in range(12)), ahead)]
    assert got == [i * i for i in range(12)]
    assert sorted(started) == list(range(12))


@pytest.mark.parametrize("ahead", [1, 2, 4])
def test_the_first_error_in_order_is_raised_and_the_rest_cancelled(ahead):
    started: list[int] = []
    seen = []
    with pytest.raises(ValueError, match="bad 3"):  # item 6 fails sooner in time
        for r in in_order((_slow(i, started, {3, 6}) for i in range(40)), ahead):
            seen.append(r())
    assert seen == [0, 1, 4]
    # reads beyond the error were not all started: at most `ahead` ahead of it
    assert max(started) <= 3 + ahead


#: an in_order generator, its reads running, reachable only through a
#: reference cycle (as when an error stops its caller), collected while
#: `threading` holds the lock a thread's start and end take (the moment a
#: test process was stuck in: a new thread's start collected it)
COLLECTED_UNDER_LOCK = """
import gc, sys, threading, time
from qacamp.ordered import in_order

def slow():
    time.sleep(0.3)
    return 1

reads = in_order((slow for _ in range(8)), 2)
next(reads)()
cycle = [reads]
cycle.append(cycle)
del reads, cycle
with threading._shutdown_locks_lock:
    gc.collect()
print("collected")
"""


def test_a_generator_the_garbage_collector_closes_waits_for_no_thread():
    """Closing the generator never joins its threads: a join there waits on
    that same lock, and the process waits for ever (a whole test run hung)."""
    res = subprocess.run([sys.executable, "-c", COLLECTED_UNDER_LOCK], capture_output=True,
                         text=True, timeout=60)
    assert (res.returncode, res.stdout) == (0, "collected\n"), res.stderr[-2000:]


def test_workers_follow_the_cores_this_process_may_use():
    assert 1 <= prefetch.workers() <= prefetch.MAX_WORKERS


def _campaign(base: Path, bad: dict[int, str]) -> dict:
    (base / "q").mkdir(parents=True)
    (base / "q" / "questions").write_text("".join(
        f"<top>\n<num> Number: {i}\n<desc> Description:\nQuestion {i}?\n</top>\n\n"
        for i in (1, 2, 3)))
    judged = base / "judged"
    judged.mkdir()
    for i in range(1, 41):
        run = f"run{i:02d}"
        lines = [f"{q} {run} D{q} {'RW'[q % 2]} ans{q}\n" for q in (3, 1, 2)]
        if i in bad:
            lines[1] = bad[i].format(run=run)
        (judged / f"{run}.txt.gz").write_bytes(gzip.compress("".join(lines).encode()))
    return {"kind": "trec-factoid", "questions": str(base / "q" / "questions"),
            "judgment_sets": {"adjudicated": str(judged / "*.txt.gz")}}


@pytest.mark.parametrize("bad", [{}, {7: "1 {run} D1 Q ans1\n", 9: "9 {run} D9 R x\n"},
                                 {9: "1 {run} D1 Q ans1\n", 7: "7 {run} D7 R x\n"}])
def test_an_ingest_reads_the_same_with_one_or_four_readers(tmp_path, monkeypatch, capsys, bad):
    """The files (bytes) and the first error (text) of an ingest of 40 run
    files do not depend on the number of readers; with two bad files, the
    error is the first file's in order."""
    camp = json.dumps(_campaign(tmp_path / "camp", bad))
    results = {}
    for n in (1, 4):
        monkeypatch.setattr(prefetch, "workers", lambda n=n: n)
        out = tmp_path / f"out{n}"
        rc = main(["ingest", "--name", "c", "--campaign-json", camp, "--out", str(out)])
        # the progress lines ("reading: 12/40 (30%) 0.4s") carry timings: left out
        err = "".join(line for line in capsys.readouterr().err.splitlines(keepends=True)
                      if not PROGRESS.fullmatch(line.rstrip("\n")))
        files = {p.name: p.read_bytes() for p in sorted(out.glob("*.parquet"))}
        results[n] = (rc, err, files)
    rc, err, files = results[1]
    assert results[4] == (rc, err, files)
    if bad:
        assert rc == 2 and "run07.txt.gz: line 2: " in err and "run09" not in err, err
    else:
        assert rc == 0 and "responses.parquet" in files
