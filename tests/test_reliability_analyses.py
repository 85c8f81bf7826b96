"""Fits, stability, Kendall tau, agreement, distributions, letters, bootstrap, seeds."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

from qacamp.bounds import parse_grid
from qacamp.errors import UsageError
from qacamp.reliability import (
    bootstrap_counts,
    bootstrap_results,
    box_stats,
    fit_bins,
    judgment_tuples,
    kendall_tau,
    median_zero_share,
    merge_bootstrap,
    merge_stability_counts,
    parse_sizes,
    ranking_swaps,
    shard_trials,
    stability,
    stability_counts,
    stable_hash,
    summarize_stability,
    swap_letters,
    tau_table,
)
from qacamp.reliability.matrix import ScoreMatrix
from qacamp.reliability.seeds import parse_shard


def sim(n_units=200, mus=None, noise=0.2, seed=0):
    rng = np.random.default_rng(seed)
    mus = np.linspace(0.3, 0.6, 8) if mus is None else np.asarray(mus)
    vals = mus[None, :] + rng.normal(0, noise, (n_units, len(mus)))
    return ScoreMatrix(tuple(f"u{i}" for i in range(n_units)),
                       tuple(f"r{j}" for j in range(len(mus))), "mean", values=vals, measure="sim")


def test_seeds_and_specs():
    import zlib

    assert stable_hash("accuracy") == zlib.crc32(b"accuracy")
    assert stable_hash("cws") == stable_hash("cws")
    for n in (1, 2, 3, 7):
        for mode in ("contiguous", "strided"):
            got = np.sort(np.concatenate([shard_trials(10, i, n, mode) for i in range(n)]))
            np.testing.assert_array_equal(got, np.arange(10))
    assert parse_sizes("5:8") == [5, 6, 7, 8] and parse_sizes("1:9:4") == [1, 5, 9]
    assert parse_grid("0.01:0.10:0.01")[-1] == 0.1 and len(parse_grid("0.01:0.10:0.01")) == 10
    assert parse_shard("1/3") == (1, 3)
    with pytest.raises(UsageError):
        parse_shard("3/3")
    with pytest.raises(UsageError):
        parse_sizes("9:5")


def test_fit_recovers_exponential():
    sizes = np.arange(5, 60)
    rows = []
    for b, (a, k) in enumerate([(0.5, 0.01), (0.4, 0.05), (0.3, 0.1)]):
        n = 10**9
        for c in sizes:
            rows.append({"size": int(c), "bin": b, "swaps": int(round(a * np.exp(-k * c) * n)),
                         "comparisons": n})
    for model in ("exp-binomial", "exp-loglinear"):  # exact counts: both estimators agree
        fits = fit_bins(pl.DataFrame(rows), 100, level=0.05, min_fit_size=20, bin_width=0.01,
                        model=model)
        np.testing.assert_allclose(fits["a"], [0.5, 0.4, 0.3], rtol=1e-4)
        np.testing.assert_allclose(fits["b"], [0.01, 0.05, 0.1], rtol=1e-4)
        assert fits["size_at_level"].to_list()[1] == int(np.ceil(np.log(0.4 / 0.05) / 0.05))
        assert fits["hi"].to_list()[-1] is None
        assert fits["n_points"].to_list() == [40] * 3  # sizes 20..59: min_fit_size inclusive
    for model in ("power-loglinear", "power-binomial", "logit-binomial"):
        f = fit_bins(pl.DataFrame(rows), 100, model=model, min_fit_size=20)
        assert f["error_at_full"].to_list()[0] > f["error_at_full"].to_list()[2]
    with pytest.raises(UsageError, match="renamed"):
        fit_bins(pl.DataFrame(rows), 100, model="exp")


def test_stability_shards_and_behaviour():
    m = sim(300, [0.4, 0.4, 0.4, 0.6], noise=0.2, seed=2)
    whole = stability_counts(m, 30, 50, seed=4)
    for n in (2, 3, 7):
        parts = [stability_counts(m, 30, 50, seed=4, shard=i, n_shards=n) for i in range(n)]
        assert merge_stability_counts(parts).equals(whole)
    summ = summarize_stability(whole)
    assert summ["prop_ties"].is_sorted() and summ.height == 10
    assert summ["decisions"].unique().to_list() == [6 * 50]
    # identical runs (pairs among the first three) split wins; the 0.6 run always wins
    pc = whole.filter(pl.col("fuzziness") == 0.01)
    same = pc.filter(pl.col("run_y") != "r3")
    assert (same["wins_x"] + same["wins_y"] + same["ties"] == 50).all()
    assert (same["wins_x"] > 10).all() and (same["wins_y"] > 10).all()
    far = pc.filter(pl.col("run_y") == "r3")
    assert (far["wins_x"] == 0).all()
    pp = stability(m, 30, trials=20, seed=1, pairing="per-pair")
    assert pp.height == 10


def test_kendall_equals_scipy_and_swaps():
    rng = np.random.default_rng(0)
    for _ in range(10):
        a, b = rng.permutation(30).astype(float), rng.permutation(30).astype(float)
        for variant in ("tau_a", "tau_b"):  # no ties: the variants agree
            assert kendall_tau(a, b, variant) == pytest.approx(stats.kendalltau(a, b).statistic)
    a = np.round(rng.random(25), 1)
    b = np.round(rng.random(25), 1)  # with ties: tau-b
    assert kendall_tau(a, b, "tau_b") == pytest.approx(
        stats.kendalltau(a, b, variant="b").statistic)
    sw = ranking_swaps([0.50, 0.40, 0.30], [0.30, 0.45, 0.20], thresholds=[0.05, 0.15])
    assert sw["swaps"].to_list() == [1, 1, 0]
    long = pl.DataFrame({"ranking": ["x"] * 3 + ["y"] * 3, "run": ["a", "b", "c"] * 2,
                         "score": [0.5, 0.4, 0.3, 0.3, 0.45, 0.2]})
    t = tau_table(long)
    assert t.row(0) == ("x", "y", 3, pytest.approx(1 / 3), "tau_b", 0, 0)


def test_judgment_tuples():
    rows = []
    for s, js in {"a1": "RRW", "a2": "RWW", "a3": "RRX"}.items():
        for i, j in enumerate(js):
            rows.append({"judgment_set": s, "run": "r", "qid": f"q{i}", "item": 1, "judgment": j})
    rows.append({"judgment_set": "a1", "run": "r", "qid": "q9", "item": 1, "judgment": "R"})
    df = pl.DataFrame(rows)
    out = judgment_tuples(df, ["a1", "a2", "a3"])
    assert dict(zip(out["tuple"], out["count"], strict=True)) == {"RRR": 1, "RRW": 1, "WWX": 1}
    ordered = judgment_tuples(df, ["a1", "a2", "a3"], order="sets")
    assert set(ordered["tuple"]) == {"RRR", "RWR", "WWX"}
    assert out["share"].sum() == pytest.approx(1.0)


def test_distributions():
    df = pl.DataFrame({"unit": ["q1"] * 3 + ["q2"] * 3 + ["q3"] * 3,
                       "run": ["a", "b", "c"] * 3,
                       "value": [0.0, 0, 1, 1, 1, 0, 0, 0, 0.5],
                       "qtype": ["FACTOID"] * 6 + ["LIST"] * 3})
    mz = median_zero_share(df)
    assert mz.to_dicts() == [{"qtype": "FACTOID", "n_units": 2, "n_median_zero": 1, "share": 0.5},
                             {"qtype": "LIST", "n_units": 1, "n_median_zero": 1, "share": 1.0}]
    vals = pl.DataFrame({"unit": ["s"] * 9, "value": [1.0, 2, 3, 4, 5, 6, 7, 8, 100]})
    b = box_stats(vals).row(0, named=True)
    assert b["median"] == 5 and b["q1"] == 3 and b["q3"] == 7
    assert b["whisker_hi"] == 8 and b["whisker_lo"] == 1 and b["max"] == 100


def test_letters_replace_the_greedy_groups():
    # the greedy partition put b and c (0.02 apart) in different groups; letters do not
    g = swap_letters(["a", "b", "c", "d"], [0.50, 0.46, 0.44, 0.30], 0.05)
    assert g["letters"].to_list() == ["a", "ab", "b", "c"]
    assert g["run"].to_list() == ["a", "b", "c", "d"]


def naive_bootstrap(m, samples, seed):
    from qacamp.reliability.seeds import trial_rng

    n = m.n_units
    out = {}
    for x in range(m.n_runs):
        for y in range(x + 1, m.n_runs):
            z = m.values[:, x] - m.values[:, y]
            t = z.mean() / (z.std(ddof=1) / np.sqrt(n))
            w = z - z.mean()
            ext = 0
            for b in range(samples):
                s = w[trial_rng(seed, m.measure, n, b).integers(0, n, n)]
                tb = s.mean() / (s.std(ddof=1) / np.sqrt(n))
                ext += abs(tb) >= abs(t) - 1e-12
            out[(m.runs[x], m.runs[y])] = ext
    return out


def test_bootstrap_matches_loop_and_merges():
    m = sim(40, [0.40, 0.42, 0.5, 0.7], noise=0.2, seed=3)
    counts = bootstrap_counts(m, 200, seed=5)
    want = naive_bootstrap(m, 200, 5)
    got = dict(zip(zip(counts["run_x"], counts["run_y"], strict=True), counts["extreme"], strict=True))
    assert got == want
    for n in (2, 3, 7):
        parts = [bootstrap_counts(m, 200, seed=5, shard=i, n_shards=n) for i in range(n)]
        assert merge_bootstrap(parts).equals(merge_bootstrap([counts]))
    pairs, summary = bootstrap_results(counts)
    assert pairs.filter((pl.col("run_x") == "r0") & (pl.col("run_y") == "r3"))["significant"].item()
    s = summary.row(0, named=True)
    assert 0 < s["discriminative_power"] <= 1 and s["estimated_difference"] > 0
    assert set(pairs["statistic"]) == {"t"}


def test_bootstrap_of_recomputed_measure_matches_loop_and_merges():
    """c@1 is not a mean of per-question scores: each bootstrap sample recomputes
    it (repeated questions count again) and the statistic is the difference,
    centred on the observed one (Efron & Tibshirani's paired bootstrap)."""
    from qacamp.measures.nonresponse import c_at_1
    from qacamp.reliability.seeds import trial_rng

    m = sim(30, [0.40, 0.45, 0.6], noise=0.3, seed=4)
    right, unans = m.values > 0.5, m.values < 0.3
    c1 = ScoreMatrix(m.units, m.runs, "c_at_1", right=right, unanswered=unans, measure="c_at_1")
    n = c1.n_units

    def score(idx, r):
        return c_at_1(right[idx, r].sum(), unans[idx, r].sum(), len(idx))

    counts = bootstrap_counts(c1, 150, seed=9)
    everything = np.arange(n)
    for row in counts.iter_rows(named=True):
        x, y = c1.runs.index(row["run_x"]), c1.runs.index(row["run_y"])
        d = score(everything, x) - score(everything, y)
        ext = 0
        for b in range(150):
            idx = trial_rng(9, "c_at_1", n, b).integers(0, n, n)
            ext += abs(score(idx, x) - score(idx, y) - d) >= abs(d) - 1e-12
        assert row["extreme"] == ext and row["t_obs"] == pytest.approx(d)
        assert row["statistic"] == "difference"
    parts = [bootstrap_counts(c1, 150, seed=9, shard=i, n_shards=3) for i in range(3)]
    assert merge_bootstrap(parts).equals(merge_bootstrap([counts]))
