"""Benchmark: wall time and peak memory of `qacamp score` as a whole process.

Simulates a TREC-factoid campaign (`qacamp simulate trec-factoid`, default
1,000 runs x 10,000 questions = 10 M responses), ingests it (both cached under
``--workdir``), then runs `qacamp score` as a child process and reports its
wall time, its peak RSS (``os.wait4``: the child's own maximum resident set)
and the peak per response.  ``--shards N`` also scores it as N shard jobs
(`--shard I/N`, one after the other) plus `--merge`, reports each job and
checks that the merged files are byte-identical to the unsharded ones.
``--src DIR`` runs the scoring of another source tree (e.g. an older commit's
``src``, exported with ``git archive``) for a side-by-side figure.
``--big`` is the 100 M responses campaign (10,000 runs x 10,000 questions):
the simulation and ingest alone take a long time.

    .venv/bin/python benchmarks/bench_memory.py [--runs 1000] [--questions 10000]
        [--shards 4] [--src DIR] [--big] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scale import machine, qacamp_cmd, run_measured  # noqa: E402

FILES = ["outcomes.parquet", "units.parquet", "runs.parquet", "dropped.parquet", "runs.csv"]


def prepare(args, work: Path) -> Path:
    """Simulate and ingest once (cached); returns the ingest folder."""
    camp = work / f"trec-factoid_r{args.runs}_q{args.questions}"
    sim, ingest = camp / "sim", camp / "ingest"
    q = qacamp_cmd()
    steps = [
        ("simulate", q + ["simulate", "trec-factoid", "--runs", str(args.runs), "--questions",
                          str(args.questions), "--judgment-sets", "1", "--quiet",
                          "--out", str(sim)]),
        ("ingest", q + ["ingest", "--campaign-json", json.dumps({
            "kind": "trec-factoid", "questions": str(sim / "questions.txt"),
            "judgment_sets": {"adjudicated": str(sim / "judged/adjudicated/*.txt.gz")}}),
            "--name", "memory", "--out", str(ingest)]),
    ]
    for name, cmd in steps:
        done = camp / f".{name}.done"
        if done.exists():
            print(f"[prepare] {name}: cached", flush=True)
            continue
        camp.mkdir(parents=True, exist_ok=True)
        r = run_measured(cmd, camp / f"{name}.log")
        done.write_text(json.dumps(r))
        print(f"[prepare] {name}: {r['wall_s']:.1f} s, peak {r['peak_rss_mb']:.0f} MB", flush=True)
    return ingest


def score_cmd(args) -> list[str]:
    if args.src:
        return [sys.executable, "-c", "import sys; from qacamp.cli import main; "
                "sys.exit(main(sys.argv[1:]))"]
    return qacamp_cmd()


def measured(args, argv: list[str], log: Path) -> dict:
    env_src = os.environ.get("PYTHONPATH")
    if args.src:
        os.environ["PYTHONPATH"] = str(Path(args.src).resolve())
    try:
        return run_measured(score_cmd(args) + argv, log)
    finally:
        if args.src:
            if env_src is None:
                os.environ.pop("PYTHONPATH", None)
            else:
                os.environ["PYTHONPATH"] = env_src


def row(what: str, r: dict, n: int) -> str:
    peak = r["peak_rss_mb"] * 1024 * 1024
    return (f"| {what} | {r['wall_s']:.1f} | {r['peak_rss_mb']:.0f} | {peak / n:.0f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--questions", type=int, default=10000)
    ap.add_argument("--big", action="store_true", help="10,000 runs x 10,000 questions")
    ap.add_argument("--shards", type=int, default=0, help="also score as N shards + merge")
    ap.add_argument("--src", default=None, help="score with this source tree (PYTHONPATH)")
    ap.add_argument("--workdir", default="/tmp/qacamp-bench-memory")
    args = ap.parse_args()
    if args.big:
        args.runs, args.questions = 10_000, 10_000
    work = Path(args.workdir)
    mach = machine()
    print(json.dumps(mach), flush=True)
    ingest = prepare(args, work)
    import pyarrow.parquet as pq

    n = pq.ParquetFile(ingest / "responses.parquet").metadata.num_rows
    tag = "src" if args.src else "this"
    out = work / f"scores_{tag}_r{args.runs}_q{args.questions}"
    print("| step | wall (s) | peak RSS (MB) | peak bytes per response |\n|---|---:|---:|---:|")
    whole = measured(args, ["score", "--ingest", str(ingest), "--out", str(out), "--force"],
                     work / "score.log")
    print(row(f"`qacamp score`, {n:,} responses", whole, n), flush=True)
    if args.shards:
        dirs = []
        for i in range(args.shards):
            d = work / f"shard_{tag}_{i}of{args.shards}"
            r = measured(args, ["score", "--ingest", str(ingest), "--out", str(d), "--force",
                                "--shard", f"{i}/{args.shards}"], work / f"shard{i}.log")
            dirs.append(str(d))
            print(row(f"`--shard {i}/{args.shards}`", r, n), flush=True)
        merged = work / f"merged_{tag}"
        r = measured(args, ["score", "--ingest", str(ingest), "--out", str(merged), "--force",
                            "--merge", *dirs], work / "merge.log")
        print(row("`--merge`", r, n), flush=True)
        same = all((merged / f).read_bytes() == (out / f).read_bytes() for f in FILES)
        print(f"merged shards byte-identical to the unsharded scores: {same}")
    print(f"load average at end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
