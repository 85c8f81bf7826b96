"""Significance tests at scale: qacamp vs ranx's Fisher randomisation test.

The case at scale: 100 runs x 500 questions, all 4,950 run pairs, 10,000
permutations, each tool as a whole process (start-up, reading the data and
writing the result included), side by side:

- ranx: ``ranx.statistical_tests.fisher_randomization_test`` pair by pair (as
  ``ranx.compare`` runs it), on the per-question correctness of every run
  (ranx handles only means of per-question scores; no correction);
- qacamp: ``qacamp reliability significance --test tukey-hsd`` on c@1, the
  measure recomputed from the permuted responses of every run (randomised
  Tukey HSD over all runs at once, family-wise);
- qacamp on the same means as ranx: ``--test randomisation --correction holm``
  (per pair, Holm), for a like-for-like reading;
- the scale target: ``--test tukey-hsd`` on c@1 with 100,000 permutations in 2
  shards run side by side (2 cores) and merged.

The data: a simulated CLEF-style campaign written as the pipeline's
``scores/outcomes.parquet`` (100 runs with accuracies 0.2-0.6 and abstention
rates 0-30%).  Run: ``.venv/bin/python benchmarks/bench_significance.py``
(``--runs``, ``--questions``, ``--permutations`` for another size; ``--tiny``
for a check that it runs: 6 runs x 40 questions, 50 permutations, ranx's
numba kernels run as plain Python, since compiling them would be most of
such a check); figures in benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

from qacamp.io import write_parquet, writing

BIN = Path(sys.executable).parent
RUNS, QUESTIONS, PERMS = 100, 500, 10_000

RANX = """
import sys, time
import numpy as np
from ranx.statistical_tests import fisher_randomization_test
v = np.load(sys.argv[1])
n = v.shape[1]
out = []
for i in range(n):
    for j in range(i + 1, n):
        p, _ = fisher_randomization_test(v[:, i], v[:, j], int(sys.argv[2]), 0.05, 42)
        out.append(p)
np.save(sys.argv[3], np.array(out))
"""


def campaign(root: Path, n_runs: int = RUNS, n_questions: int = QUESTIONS) -> np.ndarray:
    rng = np.random.default_rng(18)
    acc = np.linspace(0.2, 0.6, n_runs)
    abstain = rng.uniform(0.0, 0.3, n_runs)
    right = rng.random((n_questions, n_runs)) < acc
    unans = rng.random((n_questions, n_runs)) < abstain
    outcome = np.where(unans, np.where(right, "UR", "UW"), np.where(right, "R", "W"))
    runs = [f"run{k:03d}" for k in range(n_runs)]
    qids = [f"q{u:03d}" for u in range(n_questions)]
    n = n_runs * n_questions
    # the columns of the pipeline's outcomes table (qacamp.scoring.frames), written
    # with its record, as `qacamp score` writes it (the readers check both)
    frame = pl.DataFrame({"judgment_set": "official", "run": np.tile(runs, n_questions),
                          "qid": np.repeat(qids, n_runs),
                          "rank": pl.Series([None] * n, dtype=pl.Int32),
                          "answered": ~unans.ravel(), "outcome": outcome.ravel()})
    with writing("qacamp score", dirs=[root / "scores"]):
        write_parquet(frame, root / "scores" / "outcomes.parquet")
    correct = (right & ~unans).astype(np.float64)
    np.save(root / "accuracy.npy", correct)
    return correct


def timed(cmd: list[str], env=None) -> tuple[float, float]:
    """(wall, CPU of the children) of one command; fails loudly."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode:
        raise SystemExit(f"{cmd[:3]} failed: {res.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=RUNS)
    ap.add_argument("--questions", type=int, default=QUESTIONS)
    ap.add_argument("--permutations", type=int, default=PERMS,
                    help="per test; the sharded case runs ten times as many")
    ap.add_argument("--tiny", action="store_true",
                    help="6 runs x 40 questions, 50 permutations, ranx uncompiled "
                         "(a check that it runs)")
    args = ap.parse_args(argv)
    if args.tiny:
        args.runs, args.questions, args.permutations = 6, 40, 50
    n_runs, n_questions, perms = args.runs, args.questions, args.permutations
    q = str(BIN / "qacamp")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        campaign(root, n_runs, n_questions)
        sig = ["reliability", "significance", "--scores", str(root / "scores"),
               "--seed", "1"]
        rows = []
        if not args.tiny:  # (--tiny times nothing worth a warm-up)
            # numba compiles ranx's kernel on first use (cached afterwards): warm it
            warm = root / "warm.npy"
            np.save(warm, np.load(root / "accuracy.npy")[:, :2])
            timed([sys.executable, "-c", RANX, str(warm), "10", str(root / "w.npy")])
        # (--tiny: ranx's own code as called here, its kernels not compiled)
        wall, cpu = timed([sys.executable, "-c", RANX, str(root / "accuracy.npy"), str(perms),
                           str(root / "ranx.npy")],
                          os.environ | {"NUMBA_DISABLE_JIT": "1"} if args.tiny else None)
        rows.append(("ranx fisher_randomization_test, pair by pair, accuracy (means)", wall, cpu))
        wall, cpu = timed([q, *sig, "--measure", "c_at_1", "--test", "tukey-hsd",
                           "--permutations", str(perms), "--out", str(root / "t.parquet")])
        rows.append(("qacamp randomised Tukey HSD, c@1 recomputed", wall, cpu))
        wall, cpu = timed([q, *sig, "--measure", "accuracy", "--test", "randomisation",
                           "--permutations", str(perms), "--out", str(root / "r.parquet")])
        rows.append(("qacamp randomisation per pair + Holm, accuracy (means)", wall, cpu))
        # 100,000 permutations, 2 shards side by side, then the checked merge
        t0 = time.perf_counter()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        procs = [subprocess.Popen([q, *sig, "--measure", "c_at_1", "--test", "tukey-hsd",
                                   "--permutations", str(10 * perms), "--shard", f"{i}/2",
                                   "--out", str(root / f"s{i}.parquet")],
                                  stderr=subprocess.PIPE) for i in range(2)]
        for p in procs:
            if p.wait():
                raise SystemExit(p.stderr.read().decode())
        subprocess.run([q, "reliability", "merge", "--kind", "significance",
                        str(root / "m.parquet"), str(root / "s0.parquet"),
                        str(root / "s1.parquet")], check=True, capture_output=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        rows.append((f"qacamp randomised Tukey HSD, c@1, {10 * perms:,} permutations, 2 shards "
                     "+ merge", time.perf_counter() - t0,
                     (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)))
        ours = pl.read_parquet(root / "r.parquet")["p_value"].to_numpy()
        ranx = np.load(root / "ranx.npy")
        diff = np.abs(ours - ranx)
    print(f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; "
          f"Python {platform.python_version()}; load average at end "
          f"{os.getloadavg()[0]:.2f}")
    print(f"Case: {n_runs} runs x {n_questions} questions, {n_runs * (n_runs - 1) // 2:,} pairs, "
          f"{perms:,} permutations (whole processes)")
    print(f"{'what':78s} {'wall s':>8s} {'CPU s':>8s}")
    for what, wall, cpu in rows:
        print(f"{what:78s} {wall:8.1f} {cpu:8.1f}")
    print(f"ranx / qacamp Tukey HSD (wall): {rows[0][1] / rows[1][1]:.1f}x")
    print(f"per-pair p-values, qacamp randomisation vs ranx (same data, independent draws): "
          f"median |difference| {np.median(diff):.4f}, max {diff.max():.4f}")


if __name__ == "__main__":
    main()
