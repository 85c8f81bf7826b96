"""Every benchmark script still runs: each of benchmarks/*.py at a tiny size, as
a user runs it (a separate process), exits 0 and prints its figures.  The
sizes are far too small for the figures to mean anything, and no time is
judged here: the point is that no benchmark rots between the releases whose
figures it records (a reader's schema, a command's options, a record the
readers now require).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from paths import PEERS, ROOT
from workflow_util import env

pytestmark = pytest.mark.slow

BENCH = ROOT / "benchmarks"
PAN_EVALUATOR = PEERS / "pan" / "clef22_pan22_verif_evaluator.py"

# script -> (its tiny-size arguments, "{tmp}" a folder of the test; a line it prints
# with figures in it)
TINY = {
    "bench_design.py": (["--tiny", "--repeat", "1"],
                        r"\| \*\*total\*\* \| \*\*\d+\.\d+\*\* \|[\s\S]*peers agree: yes"),
    "bench_ingest.py": (["--lines", "3000", "--repeat", "1"],
                        r"read_judged_factoid .*: \d+\.\d+ s -> [\d,]+ lines/s"),
    "bench_keys.py": (["--patterns", "3000", "--units", "60", "--runs", "5", "--repeat", "1"],
                      r"score matrix CSV, 60 units x 5 runs .*columnar \d+\.\d+ s"),
    "bench_memory.py": (["--runs", "5", "--questions", "80", "--threads", "1",
                         "--workdir", "{tmp}"],
                        r"\| `qacamp score`, [\d,]+ responses \| \d+\.\d+ \| \d+\.\d+ \| "
                        r"\d+ \| \d+ \| \d+\.\d-\d+\.\d \|"),
    "bench_pan.py": (["--runs", "2", "--problems", "150", "--repeat", "1"],
                     r"official PAN 2022 evaluator, one process per submission: \d+\.\d+ s"
                     r"[\s\S]*largest \|official \(3 decimals\) - qacamp\|: \d\.\d+"),
    "bench_scale.py": (["--tiny", "--workdir", "{tmp}"],
                       r"\| total wall time \(shards \+ merge\) \| \d+\.\d+ s \|[\s\S]*"
                       r"merged results identical"),
    "bench_scoring.py": (["--runs", "4", "--questions", "60"],
                         r"\| qacamp `score` \| +\d+\.\d+ s wall[\s\S]*outcomes identical"),
    "bench_significance.py": (["--tiny"],
                              r"qacamp randomised Tukey HSD, c@1 recomputed +\d+\.\d+ +\d+\.\d+"),
    "bench_swap.py": (["--tiny"], r"swap accuracy \(1\.\.30 x 10 trials\) +\d+\.\d+"),
}
# scripts that are no benchmark of their own, and the benchmark that runs them
PEER_SCRIPTS = {
    # the DuckDB SQL side of bench_scoring.py, run by it in process and as a process
    "sql_scoring.py": "bench_scoring.py",
}


def test_every_benchmark_script_is_run_here():
    scripts = sorted(p.name for p in BENCH.glob("*.py"))
    assert scripts == sorted([*TINY, *PEER_SCRIPTS])
    for peer, by in PEER_SCRIPTS.items():
        assert Path(peer).stem in (BENCH / by).read_text(encoding="utf-8"), (peer, by)


@pytest.mark.parametrize("script", sorted(TINY))
def test_benchmark_runs_at_a_tiny_size(script, tmp_path):
    if script == "bench_pan.py" and not PAN_EVALUATOR.is_file():
        pytest.skip(f"needs PAN's evaluator at {PAN_EVALUATOR}")
    args, shows = TINY[script]
    argv = [a.replace("{tmp}", str(tmp_path / "work")) for a in args]
    res = subprocess.run([sys.executable, str(BENCH / script), *argv], cwd=tmp_path,
                         capture_output=True, text=True, env=env(), timeout=900)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert re.search(shows, res.stdout), res.stdout[-3000:]


def test_bench_memory_ingest_runs_at_a_tiny_size_beside_duckdb(tmp_path):
    """`bench_memory.py --ingest`: `qacamp ingest` and its DuckDB peer on the
    same gzipped files, the ratio, and the files compared with the cached ingest."""
    res = subprocess.run([sys.executable, str(BENCH / "bench_memory.py"), "--runs", "5",
                          "--questions", "80", "--threads", "1", "--ingest",
                          "--workdir", str(tmp_path / "work")], cwd=tmp_path,
                         capture_output=True, text=True, env=env(), timeout=900)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert re.search(r"\| `qacamp ingest` \(this\), 400 responses \| \d+\.\d+ \|", res.stdout)
    assert re.search(r"\| DuckDB `read_csv` of the same gzip files .*, 400 lines \| \d+\.\d+ \|",
                     res.stdout), res.stdout
    assert re.search(r"ratio qacamp / DuckDB: wall \d+\.\d+x, CPU \d+\.\d+x", res.stdout)
    assert "byte-identical to" in res.stdout and ": True" in res.stdout


def test_a_peak_is_in_mb_of_1048576_bytes(tmp_path):
    """The peaks the benchmarks report (benchmarks/README.md: the kernel's
    maximum resident set, in MB of 1,048,576 bytes): a process that touches
    500 x 1,048,576 bytes peaks at 500 MB and a few more for the interpreter
    (about 9), not at the 524 MB and more those bytes are in units of
    1,000,000.  (Measured from a small process, as the benchmarks measure:
    a child started from a large one, this test's, would start with that
    one's peak as its own.)"""
    launcher = ("import json, sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path; "
                "from bench_scale import run_measured; "
                "print(json.dumps(run_measured(sys.argv[3:], Path(sys.argv[2]))))")
    touch = "b = bytearray(500 * 1048576); b[::4096] = b'x' * len(b[::4096])"
    res = subprocess.run([sys.executable, "-c", launcher, str(BENCH), str(tmp_path / "log"),
                          sys.executable, "-c", touch], capture_output=True, text=True,
                         env=env(), timeout=120, check=True)
    r = json.loads(res.stdout)
    assert 500 <= r["peak_rss_mb"] < 524, r
