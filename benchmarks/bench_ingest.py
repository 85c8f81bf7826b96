"""Benchmark: read a 1,000,000-line judged factoid run and write it as Parquet.

Generates the file in a temporary directory, times
:func:`qacamp.readers.trec_runs.read_judged_factoid` plus
:func:`qacamp.io.write_parquet` of both tables, and compares with DuckDB's bare
``read_csv`` (a count over the same file) as a floor.

    .venv/bin/python benchmarks/bench_ingest.py [--lines N]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

import duckdb

from qacamp.io import write_parquet
from qacamp.readers.trec_runs import read_judged_factoid


def generate(path: Path, lines: int, seed: int = 1) -> None:
    """Write ``lines`` judged factoid lines (one run, unique qids)."""
    rng = random.Random(seed)
    codes = ["R", "W", "U", "X", "1", "-1", "2", "3"]
    words = ["Los Angeles", "1995", "blue", "Vesuvius", "the French", "Nicole Kidman"]
    with path.open("w", encoding="utf-8") as fh:
        for i in range(lines):
            docid = "NIL" if i % 50 == 0 else f"APW1998{i % 10000:04d}.{i % 9973:04d}"
            answer = "" if docid == "NIL" else rng.choice(words)
            fh.write(f"{i // 10 + 1}.{i % 10 + 1} benchrun {docid} {rng.choice(codes)} {answer}\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=1_000_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "run.judged"
        generate(src, args.lines)
        t0 = time.perf_counter()
        responses, judgments = read_judged_factoid(src, "adjudicated")
        t_read = time.perf_counter() - t0
        write_parquet(responses, Path(tmp) / "responses.parquet")
        write_parquet(judgments, Path(tmp) / "judgments.parquet")
        t_total = time.perf_counter() - t0
        t1 = time.perf_counter()
        # One VARCHAR column per line (the file has no tabs): DuckDB's bare CSV scan.
        n = duckdb.sql(f"select count(*) from read_csv('{src}', delim='\\t', header=false, "
                       "quote='', escape='', all_varchar=true)").fetchall()[0][0]
        t_duck = time.perf_counter() - t1
    print(f"lines: {args.lines:,} (duckdb counted {n:,})")
    print(f"read_judged_factoid: {t_read:.2f} s; + write_parquet: {t_total:.2f} s "
          f"-> {args.lines / t_total:,.0f} lines/s")
    print(f"duckdb read_csv count: {t_duck:.2f} s -> {args.lines / t_duck:,.0f} lines/s")
    print(f"ratio qacamp / duckdb: {t_total / t_duck:.1f}x")


if __name__ == "__main__":
    main()
