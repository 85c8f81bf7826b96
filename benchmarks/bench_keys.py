"""Benchmark: read a large answer-pattern file and a large CSV score matrix,
the line readers (the previous readers, still the ones that report errors)
side by side with the columnar readers that replaced them.

Generates in a temporary directory an answer-pattern file with supporting
docids (``--patterns`` lines; a quarter tab-separated, the rest
space-separated with trailing docids, as in ``trecNNpatterns+docs*``) and a
CSV score matrix (``--units`` x ``--runs``, with a ``unit`` column and a
quoted header, as in ``../shared/data/score-matrices``), then times
:func:`qacamp.readers.answer_keys.patterns_by_line` vs
:func:`~qacamp.readers.answer_keys.read_patterns` and
:func:`qacamp.readers.matrix.csv_by_line` vs
:func:`~qacamp.readers.matrix.read_matrix_table` (each the best of
``--repeat`` runs in one process), and checks that both give the same table.

    .venv/bin/python benchmarks/bench_keys.py [--patterns N] [--units U --runs R]
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from pathlib import Path

import numpy as np

from qacamp.readers import answer_keys, matrix


def generate_patterns(path: Path, lines: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    words = ["Los Angeles", "19[0-9]{2}", "blue", "Vesuvius", "(the )?French", "Nicole Kidman"]
    with path.open("w", encoding="utf-8") as fh:
        for i in range(lines):
            qid = f"{i // 20 + 1}.{i % 7 + 1}"
            docs = " ".join(f"{rng.choice(['APW', 'NYT', 'XIE'])}199{rng.randrange(10)}0"
                            f"{rng.randrange(1, 10)}{rng.randrange(10, 29)}.{rng.randrange(10000):04d}"
                            for _ in range(rng.randrange(4)))
            if i % 4 == 0:
                fh.write(f"{qid}\t{rng.choice(words)}\t{docs or 'none'}\n")
            else:
                fh.write(f"{qid} {rng.choice(words)} {docs}\n")


def generate_matrix(path: Path, units: int, runs: int, seed: int = 1) -> None:
    rng = np.random.default_rng(seed)
    values = np.round(rng.random((units, runs)), 4)
    with path.open("w", encoding="utf-8") as fh:
        fh.write('"unit",' + ",".join(f'"sys{j + 1}"' for j in range(runs)) + "\n")
        for i in range(units):
            fh.write(f"t{i + 1}," + ",".join(f"{v:g}" for v in values[i]) + "\n")


def _best(read, path: Path, repeat: int) -> tuple[str, float, object]:
    """The best wall time of ``repeat`` reads (with that read's CPU time, all
    threads: the figure a loaded machine inflates least), and the table."""
    runs, out = [], None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = read(path)
        runs.append((time.perf_counter() - t0, time.process_time() - c0))
    wall, cpu = min(runs)
    return f"{wall:.2f} s (CPU {cpu:.2f} s)", wall, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--patterns", type=int, default=1_000_000, help="lines of the pattern file")
    ap.add_argument("--units", type=int, default=5_000)
    ap.add_argument("--runs", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each side (best is shown)")
    args = ap.parse_args()
    print(f"best of {args.repeat}; load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        pat = tmp / "patterns+docs"
        generate_patterns(pat, args.patterns)
        old, t_old, a = _best(answer_keys.patterns_by_line, pat, args.repeat)
        new, t_new, b = _best(answer_keys.read_patterns, pat, args.repeat)
        if not a.equals(b):
            raise SystemExit("the two pattern readers give different tables")
        print(f"answer patterns, {args.patterns:,} lines ({pat.stat().st_size / 1e6:.0f} MB, "
              f"{a.height:,} rows): line reader {old}, columnar {new}; "
              f"{t_old / t_new:.1f}x")
        mat = tmp / "matrix.csv"
        generate_matrix(mat, args.units, args.runs)
        old, t_old, a = _best(matrix.csv_by_line, mat, args.repeat)
        new, t_new, b = _best(matrix.read_matrix_table, mat, args.repeat)
        if (a.units, a.runs, a.values.tobytes()) != (b.units, b.runs, b.values.tobytes()):
            raise SystemExit("the two matrix readers give different matrices")
        print(f"score matrix CSV, {args.units:,} units x {args.runs:,} runs "
              f"({mat.stat().st_size / 1e6:.0f} MB): line reader {old}, columnar {new}; "
              f"{t_old / t_new:.1f}x")


if __name__ == "__main__":
    main()
