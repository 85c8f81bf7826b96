"""Benchmark of the swap and stability kernels at TREC 2002 scale.

67 runs x 500 questions, sizes 1..250, 10 trials per size, all 2,211 pairs
(Voorhees 2003), on ONE core.  The reference is a straightforward loop over
sizes, trials and pairs written from Voorhees & Buckley's pseudo-code, timed on
a fraction of the work and scaled.  Run: ``.venv/bin/python benchmarks/bench_swap.py``
(``--tiny``: 60 questions x 8 runs, sizes 1..30, a check that it runs).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from qacamp.reliability.matrix import ScoreMatrix  # noqa: E402
from qacamp.reliability.stability import stability_counts  # noqa: E402
from qacamp.reliability.swap import draw_subsets, swap_counts  # noqa: E402

N_UNITS, N_RUNS, TRIALS = 500, 67, 10


def make(seed: int = 1, n_units: int = N_UNITS, n_runs: int = N_RUNS):
    rng = np.random.default_rng(seed)
    right = rng.random((n_units, n_runs)) < rng.uniform(0.1, 0.8, n_runs)
    rank = np.argsort(rng.random((n_units, n_runs)), axis=0)
    units = tuple(f"q{i}" for i in range(n_units))
    runs = tuple(f"r{j}" for j in range(n_runs))
    acc = ScoreMatrix(units, runs, "mean", values=right.astype(float), measure="accuracy")
    cws = ScoreMatrix(units, runs, "cws", right=right, rank=rank, measure="cws")
    return acc, cws, right, rank


def loop_swap(values_fn, sizes, trials, measure, n_units: int = N_UNITS,
              n_runs: int = N_RUNS):
    """Pseudo-code: for size, for trial, for each pair: score both runs on both subsets."""
    bins = np.zeros((21, 2), int)
    for c in sizes:
        idx = draw_subsets(n_units, c, 2, np.arange(trials), 7, measure)
        for t in range(trials):
            a, b = idx[t, 0], idx[t, 1]
            for x in range(n_runs):
                for y in range(x + 1, n_runs):
                    d1 = values_fn(a, x) - values_fn(a, y)
                    d2 = values_fn(b, x) - values_fn(b, y)
                    k = min(int(abs(d1) / 0.01), 20)
                    bins[k, 0] += d1 * d2 < 0
                    bins[k, 1] += 1
    return bins


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tiny", action="store_true",
                    help="60 questions x 8 runs, sizes 1..30 (a check that it runs)")
    args = ap.parse_args(argv)
    n_units, n_runs = (60, 8) if args.tiny else (N_UNITS, N_RUNS)
    top = n_units // 2
    sizes = list(range(1, top + 1))
    acc, cws, right, rank = make(1, n_units, n_runs)
    rows = []
    t_acc = timed(lambda: swap_counts(acc, sizes, TRIALS, seed=7))
    t_cws = timed(lambda: swap_counts(cws, sizes, TRIALS, seed=7))

    def acc_score(sub, r):
        return right[sub, r].mean()

    def cws_score(sub, r):
        order = sub[np.argsort(rank[sub, r], kind="stable")]
        hits = np.cumsum(right[order, r])
        return float(np.mean(hits / np.arange(1, len(order) + 1)))

    # the loop's cost is proportional to sum(c) * trials * pairs: time a sample of sizes
    sample = [1, top // 5, top // 2, top]
    frac = sum(sample) / sum(sizes) * (1 / TRIALS)
    t_loop_acc = timed(lambda: loop_swap(acc_score, sample, 1, "accuracy", n_units,
                                         n_runs)) / frac
    t_loop_cws = timed(lambda: loop_swap(cws_score, sample, 1, "cws", n_units, n_runs)) / frac
    t_pp = timed(lambda: swap_counts(acc, [top], 10, seed=7, pairing="per-pair"))
    t_stab = timed(lambda: stability_counts(acc, top, 100, seed=7))
    print(f"{n_units} questions x {n_runs} runs, one core")
    rows += [(f"swap accuracy (1..{top} x {TRIALS} trials)", t_acc, t_loop_acc),
             (f"swap CWS (1..{top} x {TRIALS} trials)", t_cws, t_loop_cws),
             (f"swap accuracy per-pair (c={top}, 10 trials)", t_pp, None),
             (f"stability accuracy (c={top}, 100 trials, 10 f)", t_stab, None)]
    print(f"{'analysis':48s} {'kernel s':>9s} {'loop s (scaled)':>16s} {'ratio':>8s}")
    for name, t, loop in rows:
        lo = f"{loop:16.1f}" if loop else f"{'-':>16s}"
        ratio = f"{loop / t:8.0f}" if loop else f"{'-':>8s}"
        print(f"{name:48s} {t:9.2f} {lo} {ratio}")


if __name__ == "__main__":
    main()
