"""Benchmark: read a 1,000,000-line judged factoid run and write it as Parquet.

Generates the file in a temporary directory, times
:func:`qacamp.readers.trec_runs.read_judged_factoid` (every check of the
format, the two typed tables) plus :func:`qacamp.io.write_parquet` of both
tables, and side by side DuckDB reading the same file with ``read_csv`` and
declared column types into a table (``CREATE TABLE ... AS``: qid, tag, docid,
judgment, answer; the answer's words are read as extra padded columns and
joined, since ``read_csv`` has no "rest of the line" column), then the same
table copied to Parquet, and DuckDB's bare ``read_csv`` count as a floor.  All
figures are in one process (no interpreter start-up on either side); each is
the best of ``--repeat`` runs.

    .venv/bin/python benchmarks/bench_ingest.py [--lines N]
"""

from __future__ import annotations

import argparse
import os
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


ANSWER_WORDS = 2
"""Most words in a generated answer (DuckDB reads them as padded columns)."""


def _qacamp(src: Path, tmp: Path) -> tuple[float, float]:
    t0 = time.perf_counter()
    responses, judgments = read_judged_factoid(src, "adjudicated")
    t_read = time.perf_counter() - t0
    write_parquet(responses, tmp / "responses.parquet")
    write_parquet(judgments, tmp / "judgments.parquet")
    return t_read, time.perf_counter() - t0


def _duckdb(src: Path, tmp: Path) -> tuple[float, float, float, int]:
    con = duckdb.connect()
    words = [f"a{i}" for i in range(1, ANSWER_WORDS + 1)]
    cols = ", ".join(f"'{c}': 'VARCHAR'" for c in ["qid", "tag", "docid", "judgment", *words])
    t0 = time.perf_counter()
    con.execute(
        "create table judged as select qid, tag, docid, judgment, "
        f"nullif(concat_ws(' ', {', '.join(words)}), '') as answer "
        f"from read_csv('{src}', delim=' ', header=false, quote='', escape='', "
        f"columns={{{cols}}}, null_padding=true, auto_detect=false)")
    t_table = time.perf_counter() - t0
    con.execute(f"copy judged to '{tmp / 'duck.parquet'}' (format parquet)")
    t_parquet = time.perf_counter() - t0
    n = con.sql("select count(*) from judged").fetchall()[0][0]
    t1 = time.perf_counter()
    # One VARCHAR column per line (the file has no tabs): DuckDB's bare CSV scan.
    con.sql(f"select count(*) from read_csv('{src}', delim='\\t', header=false, "
            "quote='', escape='', all_varchar=true)").fetchall()
    t_count = time.perf_counter() - t1
    con.close()
    return t_table, t_parquet, t_count, n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each side (best is shown)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        src = tmp / "run.judged"
        generate(src, args.lines)
        ours = [_qacamp(src, tmp) for _ in range(args.repeat)]
        duck = [_duckdb(src, tmp) for _ in range(args.repeat)]
    t_read, t_total = min(r for r, _ in ours), min(t for _, t in ours)
    t_table, t_parquet, t_count = (min(d[i] for d in duck) for i in range(3))
    n = duck[0][3]
    print(f"lines: {args.lines:,} (duckdb table rows {n:,}); best of {args.repeat}; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"qacamp read_judged_factoid (typed tables, every check): {t_read:.2f} s "
          f"-> {args.lines / t_read:,.0f} lines/s; + write_parquet: {t_total:.2f} s")
    print(f"duckdb read_csv into a typed table: {t_table:.2f} s; + copy to parquet: "
          f"{t_parquet:.2f} s; bare read_csv count: {t_count:.2f} s")
    print(f"ratio qacamp / duckdb, read into typed tables: {t_read / t_table:.1f}x; "
          f"with Parquet written on both sides: {t_total / t_parquet:.1f}x; qacamp read + "
          f"Parquet vs duckdb's typed table alone: {t_total / t_table:.1f}x "
          f"(vs the bare count: {t_total / t_count:.1f}x)")


if __name__ == "__main__":
    main()
