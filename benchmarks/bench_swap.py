"""Benchmark of the swap and stability kernels at TREC 2002 scale.

67 runs x 500 questions, sizes 1..250, 10 trials per size, all 2,211 pairs
(Voorhees 2003), on ONE core.  The reference is a straightforward loop over
sizes, trials and pairs written from Voorhees & Buckley's pseudo-code, timed on
a fraction of the work and scaled.  Run: ``.venv/bin/python benchmarks/bench_swap.py``.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import time  # noqa: E402

import numpy as np  # noqa: E402

from qacamp.reliability.matrix import ScoreMatrix  # noqa: E402
from qacamp.reliability.stability import stability_counts  # noqa: E402
from qacamp.reliability.swap import draw_subsets, swap_counts  # noqa: E402

N_UNITS, N_RUNS, TRIALS = 500, 67, 10
SIZES = list(range(1, 251))


def make(seed: int = 1):
    rng = np.random.default_rng(seed)
    right = rng.random((N_UNITS, N_RUNS)) < rng.uniform(0.1, 0.8, N_RUNS)
    rank = np.argsort(rng.random((N_UNITS, N_RUNS)), axis=0)
    units = tuple(f"q{i}" for i in range(N_UNITS))
    runs = tuple(f"r{j}" for j in range(N_RUNS))
    acc = ScoreMatrix(units, runs, "mean", values=right.astype(float), measure="accuracy")
    cws = ScoreMatrix(units, runs, "cws", right=right, rank=rank, measure="cws")
    return acc, cws, right, rank


def loop_swap(values_fn, sizes, trials, measure):
    """Pseudo-code: for size, for trial, for each pair: score both runs on both subsets."""
    bins = np.zeros((21, 2), int)
    for c in sizes:
        idx = draw_subsets(N_UNITS, c, 2, np.arange(trials), 7, measure)
        for t in range(trials):
            a, b = idx[t, 0], idx[t, 1]
            for x in range(N_RUNS):
                for y in range(x + 1, N_RUNS):
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


def main() -> None:
    acc, cws, right, rank = make()
    rows = []
    t_acc = timed(lambda: swap_counts(acc, SIZES, TRIALS, seed=7))
    t_cws = timed(lambda: swap_counts(cws, SIZES, TRIALS, seed=7))

    def acc_score(sub, r):
        return right[sub, r].mean()

    def cws_score(sub, r):
        order = sub[np.argsort(rank[sub, r], kind="stable")]
        hits = np.cumsum(right[order, r])
        return float(np.mean(hits / np.arange(1, len(order) + 1)))

    # the loop's cost is proportional to sum(c) * trials * pairs: time a sample of sizes
    sample = [1, 50, 125, 250]
    frac = sum(sample) / sum(SIZES) * (1 / TRIALS)
    t_loop_acc = timed(lambda: loop_swap(acc_score, sample, 1, "accuracy")) / frac
    t_loop_cws = timed(lambda: loop_swap(cws_score, sample, 1, "cws")) / frac
    t_pp = timed(lambda: swap_counts(acc, [250], 10, seed=7, pairing="per-pair"))
    t_stab = timed(lambda: stability_counts(acc, 250, 100, seed=7))
    rows += [("swap accuracy (1..250 x 10 trials)", t_acc, t_loop_acc),
             ("swap CWS (1..250 x 10 trials)", t_cws, t_loop_cws),
             ("swap accuracy per-pair (c=250, 10 trials)", t_pp, None),
             ("stability accuracy (c=250, 100 trials, 10 f)", t_stab, None)]
    print(f"{'analysis':48s} {'kernel s':>9s} {'loop s (scaled)':>16s} {'ratio':>8s}")
    for name, t, loop in rows:
        lo = f"{loop:16.1f}" if loop else f"{'-':>16s}"
        ratio = f"{loop / t:8.0f}" if loop else f"{'-':>8s}"
        print(f"{name:48s} {t:9.2f} {lo} {ratio}")


if __name__ == "__main__":
    main()
