"""Swap method: kernel vs the paper's pseudo-code, determinism, statistical behaviour."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from paths import SHARED_DATA

from qacamp.errors import UsageError
from qacamp.loader import read_matrix_file
from qacamp.reliability import fit_swap, swap_counts
from qacamp.reliability.matrix import ScoreMatrix
from qacamp.reliability.swap import draw_subsets, error_rates, merge_swap

WEB = str(SHARED_DATA / "score-matrices" / "web2004.csv")


def sim_matrix(n_units=300, mus=None, noise=0.3, seed=0):
    rng = np.random.default_rng(seed)
    mus = np.linspace(0.3, 0.6, 12) if mus is None else np.asarray(mus)
    vals = mus[None, :] + rng.normal(0, noise, (n_units, len(mus)))
    return ScoreMatrix(tuple(f"u{i}" for i in range(n_units)),
                       tuple(f"r{j}" for j in range(len(mus))), "mean", values=vals, measure="sim")


def loop_swap(m, sizes, trials, seed, measure, width=0.01, bins=21, score=None):
    """Straight from Voorhees & Buckley's pseudo-code: for each size, trial, pair."""
    score = score or (lambda sub, r: float(np.mean(m.values[sub, r])))
    swaps = np.zeros((len(sizes), bins), int)
    comps = np.zeros((len(sizes), bins), int)
    best = np.full(len(sizes), -np.inf)
    for s_i, c in enumerate(sizes):
        idx = draw_subsets(m.n_units, c, 2, np.arange(trials), seed, measure)
        for t in range(trials):
            a, b = idx[t, 0], idx[t, 1]
            for x in range(m.n_runs):
                best[s_i] = max(best[s_i], score(a, x), score(b, x))
                for y in range(x + 1, m.n_runs):
                    d1 = score(a, x) - score(a, y)
                    d2 = score(b, x) - score(b, y)
                    k = min(int(np.floor(abs(d1) / width + 1e-9)), bins - 1)
                    comps[s_i, k] += 1
                    swaps[s_i, k] += d1 * d2 < 0
    return swaps, comps, best


def as_arrays(df, n_sizes, bins=21):
    return (df["swaps"].to_numpy().reshape(n_sizes, bins),
            df["comparisons"].to_numpy().reshape(n_sizes, bins),
            df["max_score"].to_numpy().reshape(n_sizes, bins))


def test_kernel_equals_pseudocode_loop():
    m = sim_matrix(40, np.linspace(0.3, 0.5, 6), seed=1)
    sizes = [3, 7, 20]
    got = as_arrays(swap_counts(m, sizes, 8, seed=5), 3)
    want = loop_swap(m, sizes, 8, 5, "sim")
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    # the highest subset score of each size, on every bin row of the size
    np.testing.assert_allclose(got[2], np.repeat(want[2][:, None], 21, axis=1), rtol=1e-12)


def test_cws_kernel_equals_pseudocode_loop():
    rng = np.random.default_rng(2)
    n, r = 30, 5
    right = rng.random((n, r)) < 0.5
    rank = np.stack([rng.permutation(n) for _ in range(r)], 1)
    m = ScoreMatrix(tuple(map(str, range(n))), tuple(map(str, range(r))), "cws",
                    right=right, rank=rank, measure="cws")

    def cws(sub, run):
        order = sorted(sub, key=lambda u: rank[u, run])
        acc, tot = 0, 0.0
        for i, u in enumerate(order, 1):
            acc += right[u, run]
            tot += acc / i
        return tot / len(order)

    got = as_arrays(swap_counts(m, [4, 10], 6, seed=3), 2)
    want = loop_swap(m, [4, 10], 6, 3, "cws", score=cws)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_allclose(got[2][:, 0], want[2], rtol=1e-12)


def test_per_pair_pairing_counts_all_comparisons():
    m = sim_matrix(60, np.linspace(0.3, 0.5, 5), seed=4)
    df = swap_counts(m, [5, 10], 7, seed=2, pairing="per-pair")
    assert df.group_by("size").agg(pl.col("comparisons").sum())["comparisons"].to_list() == [70, 70]
    # highest score on the pairs' own subsets, by a loop over trials and pairs
    idx = draw_subsets(m.n_units, 5, 2, np.arange(7), 2, "sim", n_pairs=10)
    ii, jj = np.triu_indices(5, 1)
    best = max(m.values[idx[t, p, s], r].mean() for t in range(7) for p in range(10)
               for s in range(2) for r in (ii[p], jj[p]))
    assert df.filter(pl.col("size") == 5)["max_score"].to_list() == [pytest.approx(best)] * 21
    again = swap_counts(m, [5, 10], 7, seed=2, pairing="per-pair")
    assert df.equals(again)


@pytest.mark.parametrize("pairing", ["shared", "per-pair"])
def test_shards_merge_identically(pairing):
    m = sim_matrix(80, np.linspace(0.3, 0.5, 7), seed=5)
    full = swap_counts(m, [5, 12, 30], 21, seed=9, pairing=pairing)
    for n in (1, 2, 3, 7):
        for mode in ("contiguous", "strided"):
            parts = [swap_counts(m, [5, 12, 30], 21, seed=9, pairing=pairing, shard=i,
                                 n_shards=n, shard_mode=mode) for i in range(n)]
            assert merge_swap(parts).equals(full)
    assert swap_counts(m, [5, 12, 30], 21, seed=9, pairing=pairing).equals(full)
    assert not swap_counts(m, [5, 12, 30], 21, seed=10, pairing=pairing).equals(full)


def binom_se(p, n):
    return np.sqrt(max(p * (1 - p), 1e-4) / max(n, 1))


def test_identical_runs_swap_half_the_time():
    trials = 200
    m = sim_matrix(400, np.full(10, 0.5), seed=6)
    df = swap_counts(m, [20], trials, seed=1)
    rate = df["swaps"].sum() / df["comparisons"].sum()
    # pairs share subsets within a trial: use the trial count as effective sample size
    assert abs(rate - 0.5) < 4 * binom_se(0.5, trials)


def pooled(df, lo_bin, hi_bin):
    sub = df.filter((pl.col("bin") >= lo_bin) & (pl.col("bin") < hi_bin))
    return sub["swaps"].sum(), sub["comparisons"].sum()


def test_error_falls_with_difference_and_size():
    trials = 200
    m = sim_matrix(400, np.linspace(0.3, 0.7, 15), noise=0.1, seed=7)
    df = swap_counts(m, [10, 50], trials, seed=3)
    for c in (10, 50):
        d = df.filter(pl.col("size") == c)
        groups = [pooled(d, a, b) for a, b in ((0, 3), (3, 8), (8, 21))]
        rates = [s / n for s, n in groups]
        for k in range(len(groups) - 1):
            (r1, r2), (n1, n2) = rates[k:k + 2], (groups[k][1], groups[k + 1][1])
            # pairs share subsets within a trial: conservative effective n = trials
            se = np.hypot(binom_se(r1, min(n1, trials)), binom_se(r2, min(n2, trials)))
            assert r1 - r2 > 2 * se, (c, rates)
    overall = df.group_by("size").agg(pl.col("swaps").sum() / pl.col("comparisons").sum()).sort("size")
    small, large = overall["swaps"].to_list()
    assert small - large > 2 * np.hypot(binom_se(small, trials), binom_se(large, trials))


def test_sizes_above_half_are_rejected():
    m = sim_matrix(30, seed=0)
    with pytest.raises(UsageError, match="impossible"):
        swap_counts(m, [16], 2)
    with pytest.raises(UsageError):
        swap_counts(m, [5], 2, pairing="nope")


def _independent_error_at(counts: pl.DataFrame, b: int, sizes: list[int], full: int):
    """The binomial maximum-likelihood fit of e(c) = a exp(-b c) to bin ``b``'s swaps
    at ``sizes``, by scipy's Nelder-Mead on the log-likelihood (not the code under
    test), read at ``full``; None when the fit rises with c or has no swap."""
    from scipy import optimize

    d = counts.filter((pl.col("bin") == b) & pl.col("size").is_in(sizes)).sort("size")
    c, k, n = (d[col].to_numpy().astype(float) for col in ("size", "swaps", "comparisons"))
    if k.sum() == 0:
        return None

    def nll(theta):
        p = np.clip(np.exp(theta[0] - theta[1] * c), 1e-300, 1 - 1e-12)
        return -(k * np.log(p) + (n - k) * np.log1p(-p)).sum()

    start = np.array([np.log(max(k.sum() / n.sum(), 1e-6)), 0.0])
    best = min((optimize.minimize(nll, start + [0, s0], method="Nelder-Mead",
                                  options={"xatol": 1e-12, "fatol": 1e-12, "maxiter": 40000})
                for s0 in (0.0, 0.02, 0.1)), key=lambda r: r.fun)
    log_a, slope = best.x
    return None if slope <= 0 else float(np.exp(log_a - slope * full))


def test_web2004_swap_and_fits():
    """The summary checked against quantities computed here from the raw counts and
    the CSV: the per-bin curves refitted by scipy, the run means and pair
    differences of the 150 x 73 matrix read with the csv module."""
    import csv

    m = read_matrix_file(WEB, measure="map")
    df = swap_counts(m, [10, 20, 30, 40, 50, 60, 75], 20, seed=7)
    rates = error_rates(df)
    assert rates.filter(pl.col("bin") == 20)["hi"].null_count() == 7
    d = df.filter(pl.col("size") == 40)
    groups = [pooled(d, a, b) for a, b in ((0, 5), (5, 10), (10, 21))]
    r = [s / n for s, n in groups]
    assert r[0] > r[1] > r[2]
    fits, summary = fit_swap(df, 150, min_fit_size=20, matrix=m)
    row = summary.row(0, named=True)
    # the curves refitted independently on sizes >= 20, read at 150 topics
    fitted = [20, 30, 40, 50, 60, 75]
    mine = {b: _independent_error_at(df, b, fitted, 150) for b in range(21)}
    theirs = dict(zip(fits["bin"].to_list(), fits["error_at_full"].to_list(), strict=True))
    compared = [b for b in range(1, 21) if theirs[b] is not None and mine[b] is not None]
    assert len(compared) >= 10
    for b in compared:
        assert theirs[b] == pytest.approx(mine[b], rel=1e-4, abs=1e-9), b
    # (i): the lower edge of the first bin (from 0.01) whose refitted error is <= 5%
    first = next(b for b in range(1, 21) if mine[b] is not None and mine[b] <= 0.05)
    assert (row["required_bin"], row["required_difference"]) == (first, first / 100)
    # (ii) and (iv) from the CSV: run means over the 150 topics, all 73 x 72 / 2 pairs
    with open(WEB, newline="") as f:
        rows = list(csv.reader(f))
    values = np.array(rows[1:], dtype=float)
    means = values.mean(axis=0)
    assert values.shape == (150, 73)
    i, j = np.triu_indices(73, 1)
    diffs = np.abs(means[i] - means[j])
    assert row["n_pairs"] == 73 * 72 // 2 == len(diffs)
    assert row["highest_score"] == pytest.approx(means.max(), abs=1e-12)
    assert row["sensitivity"] == pytest.approx(np.mean(diffs >= first / 100 - 1e-12), abs=1e-12)
    assert row["relative_difference"] == pytest.approx((first / 100) / means.max())
