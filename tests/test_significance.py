"""Significance tests over all run pairs: differential tests against
scipy, statsmodels and ranx on the real TREC score matrices, exact
enumerations built by hand for the mean, c@1, CWS and PAN's AUC, shard
invariance and the checked merge, the resolution warning, the command line."""

from __future__ import annotations

import itertools
import math

import numpy as np
import polars as pl
import pytest
from paths import SHARED_DATA

from qacamp.errors import InputError, UsageError
from qacamp.io import write_parquet
from qacamp.loader import read_matrix_file
from qacamp.reliability.builders import from_pan
from qacamp.reliability.matrix import ScoreMatrix
from qacamp.reliability.significance import (
    merge_significance,
    significance_counts,
    significance_results,
    significance_test,
)

MATRICES = SHARED_DATA / "score-matrices"
needs_data = pytest.mark.skipif(not MATRICES.is_dir(), reason="needs ../shared/data")


def real(name: str, runs: int | None = None) -> ScoreMatrix:
    m = read_matrix_file(MATRICES / f"{name}.csv", measure="ap")
    return m.select_runs(list(m.runs[:runs])) if runs else m


# --------------------------------------------------------------------------- analytic tests

@needs_data
@pytest.mark.parametrize("name", ["web2004", "genomics2004"])
def test_t_test_and_holm_equal_scipy_and_statsmodels_on_real_matrices(name):
    from scipy.stats import ttest_rel
    from statsmodels.stats.multitest import multipletests

    m = real(name, runs=40)  # 780 pairs, each a separate scipy call
    pairs, summary = significance_test(m, "t-test")
    ii, jj = np.triu_indices(m.n_runs, k=1)
    res = [ttest_rel(m.values[:, i], m.values[:, j]) for i, j in zip(ii, jj, strict=True)]
    p = np.array([r.pvalue for r in res])
    t = np.array([r.statistic for r in res])
    # identical runs: scipy's NaN (0 / 0) is reported as t = 0, p = 1 (no evidence)
    same = np.isnan(p)
    assert np.array_equal(same, np.all(m.values[:, ii] == m.values[:, jj], axis=0))
    p, t = np.where(same, 1.0, p), np.where(same, 0.0, t)
    assert pairs["run_a"].to_list() == [m.runs[i] for i in ii]
    assert np.allclose(pairs["p_value"].to_numpy(), p, rtol=0, atol=1e-12)
    assert np.allclose(pairs["statistic"].to_numpy(), t, rtol=1e-12, atol=1e-12)
    reject, holm, _, _ = multipletests(p, alpha=0.05, method="holm")
    assert np.allclose(pairs["p_adjusted"].to_numpy(), holm, rtol=0, atol=1e-12)
    assert pairs["significant"].to_list() == reject.tolist()
    assert summary["correction"][0] == "holm" and summary["pairs"][0] == len(ii)
    for corr, method in (("bonferroni", "bonferroni"), ("bh", "fdr_bh")):
        adj = significance_test(m, "t-test", correction=corr)[0]["p_adjusted"].to_numpy()
        assert np.allclose(adj, multipletests(p, alpha=0.05, method=method)[1], atol=1e-12)


@pytest.mark.slow  # scipy's studentized range: many CPU-seconds per call
@needs_data
@pytest.mark.parametrize("name", ["web2004", "genomics2004"])
def test_anova_f_and_tukey_intervals_equal_statsmodels_on_the_long_table(name):
    from statsmodels.formula.api import ols
    from statsmodels.sandbox.stats.multicomp import tukeyhsd
    from statsmodels.stats.anova import anova_lm

    full = real(name)
    long = pl.DataFrame({"unit": np.repeat(np.arange(full.n_units), full.n_runs).astype(str),
                         "run": np.tile(np.array(full.runs), full.n_units),
                         "value": full.values.ravel()}).to_pandas()
    fit = ols("value ~ C(run) + C(unit)", data=long).fit()
    table = anova_lm(fit, typ=2)
    # the Tukey intervals and p-values on 6 of the real runs (the studentized
    # range's p-value is a slow numerical integral); the F on every run
    from qacamp.reliability.significance.anova_tukey import anova

    a = anova(full)
    assert math.isclose(a.f, table.loc["C(run)", "F"], rel_tol=1e-9)
    assert a.df_res == fit.df_resid and math.isclose(a.mse, fit.mse_resid, rel_tol=1e-9)
    m = full.select_runs(list(full.runs[:6]))
    sub = long[long["run"].isin(m.runs)]
    fit = ols("value ~ C(run) + C(unit)", data=sub).fit()
    pairs, summary = significance_test(m, "anova-tukey", alpha=0.05)
    assert math.isclose(summary["anova_f"][0], anova_lm(fit, typ=2).loc["C(run)", "F"],
                        rel_tol=1e-9)
    means = m.values.mean(axis=0)
    # statsmodels' sandbox tukeyhsd multiplies a scalar df by the number of means
    res = tukeyhsd(means, m.n_units, fit.mse_resid, df=fit.df_resid / m.n_runs, alpha=0.05)
    confint, pvals = res[4], res[8]
    # statsmodels' differences are mean_b - mean_a; ours mean_a - mean_b
    assert np.allclose(pairs["ci_lower"].to_numpy(), -confint[:, 1], atol=1e-12)
    assert np.allclose(pairs["ci_upper"].to_numpy(), -confint[:, 0], atol=1e-12)
    assert np.allclose(pairs["p_value"].to_numpy(), pvals, atol=1e-9)
    assert pairs["significant"].to_list() == res[1].tolist()


def test_analytic_tests_refuse_what_they_cannot_do():
    m = ScoreMatrix(("u1", "u2", "u3"), ("a", "b"), "c_at_1",
                    right=np.array([[1, 0], [0, 1], [1, 1]], bool),
                    unanswered=np.zeros((3, 2), bool), measure="c_at_1")
    with pytest.raises(UsageError, match="mean of per-unit scores"):
        significance_test(m, "t-test")
    v = ScoreMatrix(("u1", "u2", "u3"), ("a", "b"), values=np.eye(3, 2), measure="m")
    with pytest.raises(UsageError, match="draws no random permutations"):
        significance_test(v, "t-test", permutations=100)
    with pytest.raises(UsageError, match="family-wise"):
        significance_test(v, "tukey-hsd", 100, correction="holm")
    with pytest.raises(UsageError, match="nothing to shard"):
        significance_counts(v, "anova-tukey", None, shard=0, n_shards=2)
    with pytest.raises(UsageError, match="no exact mode"):
        significance_test(v, "tukey-hsd", exact=True)


# --------------------------------------------------------------------------- exact enumerations

def enumerate_p(n: int, statistic) -> float:
    """p of a paired randomisation test by enumerating all 2^n swap vectors by hand."""
    observed = abs(statistic(np.zeros(n, bool)))
    hits = sum(abs(statistic(np.array(s, bool))) >= observed - 1e-12
               for s in itertools.product((0, 1), repeat=n))
    return hits / 2 ** n


def test_randomisation_equals_exact_enumeration_for_a_mean():
    rng = np.random.default_rng(5)
    v = rng.integers(0, 5, size=(11, 3)) / 4.0
    m = ScoreMatrix(tuple(f"q{i}" for i in range(11)), ("a", "b", "c"), values=v, measure="m")
    pairs, _ = significance_test(m, "randomisation", exact=True, correction="none")
    for row in pairs.iter_rows(named=True):
        x, y = v[:, "abc".index(row["run_a"])], v[:, "abc".index(row["run_b"])]
        p = enumerate_p(11, lambda s, x=x, y=y: np.where(s, y, x).mean() - np.where(s, x, y).mean())
        assert row["p_value"] == pytest.approx(p, abs=1e-15)
        assert row["permutations"] == 2 ** 11
    # Monte Carlo within 5 standard errors of the exact value
    mc, _ = significance_test(m, "randomisation", 20_000, seed=3, correction="none")
    for e, r in zip(pairs["p_value"], mc["p_value"], strict=True):
        assert abs(e - r) <= 5 * math.sqrt(e * (1 - e) / 20_000) + 1e-4


def c_at_1(right, unanswered):
    n = len(right)
    return (right.sum() + unanswered.sum() * right.sum() / n) / n


def test_c_at_1_is_recomputed_from_the_swapped_responses_exactly():
    right = np.array([[1, 0], [1, 0], [0, 0], [1, 1], [0, 1], [1, 0], [0, 0], [1, 0],
                      [1, 0]], bool)
    unans = np.array([[0, 1], [0, 1], [1, 0], [0, 0], [0, 0], [0, 1], [1, 1], [0, 0],
                      [0, 1]], bool)
    m = ScoreMatrix(tuple(f"q{i}" for i in range(9)), ("x", "y"), "c_at_1", right=right,
                    unanswered=unans, measure="c_at_1")

    def stat(s):
        rx, ux = np.where(s, right[:, 1], right[:, 0]), np.where(s, unans[:, 1], unans[:, 0])
        ry, uy = np.where(s, right[:, 0], right[:, 1]), np.where(s, unans[:, 0], unans[:, 1])
        return c_at_1(rx, ux) - c_at_1(ry, uy)

    pairs, _ = significance_test(m, "randomisation", exact=True)
    assert pairs["diff"][0] == pytest.approx(stat(np.zeros(9, bool)), abs=1e-15)
    p = enumerate_p(9, stat)
    assert pairs["p_value"][0] == pytest.approx(p, abs=1e-15)
    # the mean of per-question scores would be a different test: c@1 is not a mean
    acc = enumerate_p(9, lambda s: (np.where(s, right[:, 1], right[:, 0]).mean()
                                    - np.where(s, right[:, 0], right[:, 1]).mean()))
    assert acc != p
    # with two runs, randomised Tukey HSD's permutations are the same swaps
    tk, _ = significance_test(m, "tukey-hsd", 20_000, seed=9)
    assert abs(tk["p_value"][0] - p) <= 5 * math.sqrt(p * (1 - p) / 20_000) + 1e-4


def cws(right, rank):
    """Voorhees 2003: (1/n) sum_i (#correct in first i) / i, answers by rank, ties by unit."""
    order = sorted(range(len(rank)), key=lambda u: (rank[u], u))
    hits, total = 0, 0.0
    for i, u in enumerate(order, 1):
        hits += bool(right[u])
        total += hits / i
    return total / len(rank)


def test_cws_is_recomputed_in_each_permuted_runs_confidence_order():
    right = np.array([[1, 0], [0, 1], [1, 1], [0, 0], [1, 0], [0, 1], [1, 0], [0, 0]], bool)
    rank = np.array([[1, 8], [2, 1], [3, 4], [4, 2], [5, 7], [6, 3], [7, 5], [8, 6]])
    m = ScoreMatrix(tuple(f"q{i}" for i in range(8)), ("x", "y"), "cws", right=right, rank=rank,
                    measure="cws")

    def stat(s):
        ax, ay = np.where(s, 1, 0), np.where(s, 0, 1)
        u = np.arange(8)
        return (cws(right[u, ax], rank[u, ax]) - cws(right[u, ay], rank[u, ay]))

    pairs, _ = significance_test(m, "randomisation", exact=True)
    assert pairs["diff"][0] == pytest.approx(stat(np.zeros(8, bool)), abs=1e-12)
    assert pairs["p_value"][0] == pytest.approx(enumerate_p(8, stat), abs=1e-15)


def auc(truth, values):
    """Mann-Whitney by hand: a tied (positive, negative) pair counts 1/2."""
    pos, neg = values[truth], values[~truth]
    wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return wins / (len(pos) * len(neg))


def test_pan_auc_is_recomputed_from_the_swapped_values_exactly():
    from sklearn.metrics import roc_auc_score

    truth = np.array([True, False, True, True, False, False, True, False, True, False])
    vals = np.array([[0.9, 0.6], [0.2, 0.5], [0.7, 0.7], [0.5, 0.8], [0.4, 0.1],
                     [0.6, 0.3], [0.8, 0.4], [0.5, 0.55], [0.3, 0.9], [0.1, 0.2]])
    qids = [f"p{i}" for i in range(10)]
    values = pl.DataFrame({"run": ["x"] * 10 + ["y"] * 10, "qid": qids * 2,
                           "value": np.concatenate([vals[:, 0], vals[:, 1]])})
    m = from_pan(values, pl.DataFrame({"qid": qids, "same": truth}), "auc")

    for k in (0, 1):  # the hand AUC is scikit-learn's
        assert auc(truth, vals[:, k]) == pytest.approx(roc_auc_score(truth, vals[:, k]))

    def stat(s):
        vx, vy = np.where(s, vals[:, 1], vals[:, 0]), np.where(s, vals[:, 0], vals[:, 1])
        return auc(truth, vx) - auc(truth, vy)

    pairs, _ = significance_test(m, "randomisation", exact=True)
    assert pairs["diff"][0] == pytest.approx(stat(np.zeros(10, bool)), abs=1e-12)
    assert pairs["p_value"][0] == pytest.approx(enumerate_p(10, stat), abs=1e-15)


@needs_data
def test_randomisation_agrees_with_ranx_fisher_within_monte_carlo_error():
    from ranx.statistical_tests import fisher_randomization_test

    m = real("web2004", runs=6)
    b = 5_000
    pairs, _ = significance_test(m, "randomisation", b, seed=11, correction="none")
    ii, jj = np.triu_indices(m.n_runs, k=1)
    for row, i, j in zip(pairs.iter_rows(named=True), ii, jj, strict=True):
        p_ranx, _ = fisher_randomization_test(m.values[:, i], m.values[:, j], b, 0.05, 42)
        se = math.sqrt(max(p_ranx * (1 - p_ranx), 1e-4) * 2 / b)
        assert abs(row["p_value"] - p_ranx) <= 5 * se + 2 / b, (row, p_ranx)


# --------------------------------------------------------------------------- shards and merge

def small_c_at_1(runs: int = 7, units: int = 60, seed: int = 1) -> ScoreMatrix:
    rng = np.random.default_rng(seed)
    right = rng.random((units, runs)) < np.linspace(0.3, 0.6, runs)
    unans = ~right & (rng.random((units, runs)) < 0.3)
    return ScoreMatrix(tuple(f"q{i}" for i in range(units)),
                       tuple(f"r{k}" for k in range(runs)), "c_at_1", right=right,
                       unanswered=unans, measure="c_at_1")


@pytest.mark.parametrize("test", ["tukey-hsd", "randomisation"])
def test_three_and_five_shards_merge_to_the_same_bytes(tmp_path, test):
    m = small_c_at_1()
    out = {}
    for n in (1, 3, 5):
        shards = [significance_counts(m, test, 997, seed=4, shard=i, n_shards=n)
                  for i in range(n)]
        pairs, summary = significance_results(merge_significance(shards))
        write_parquet(pairs, tmp_path / f"p{n}.parquet")
        write_parquet(summary, tmp_path / f"s{n}.parquet")
        out[n] = ((tmp_path / f"p{n}.parquet").read_bytes(),
                  (tmp_path / f"s{n}.parquet").read_bytes())
    assert out[3] == out[5] == out[1]


def test_merge_refuses_duplicated_missing_and_foreign_shards():
    m = small_c_at_1()
    sh = [significance_counts(m, "tukey-hsd", 300, seed=4, shard=i, n_shards=3)
          for i in range(3)]
    with pytest.raises(InputError, match="shard 1/3 is given twice"):
        merge_significance([sh[0], sh[1], sh[1]], ["a", "b", "c"])
    with pytest.raises(InputError, match=r"1 of the 3 shards are missing \(2/3\)"):
        merge_significance(sh[:2], ["a", "b"])
    other = significance_counts(m, "tukey-hsd", 300, seed=5, shard=2, n_shards=3)
    with pytest.raises(InputError, match="seed 5 differs from the seed 4"):
        merge_significance([sh[0], sh[1], other], ["a", "b", "c"])
    with pytest.raises(UsageError, match="merge every shard"):
        significance_results(sh[0])
    elsewhere = significance_counts(small_c_at_1(runs=5), "tukey-hsd", 300, seed=4, shard=2,
                                    n_shards=3)
    with pytest.raises(InputError, match="settings differ"):
        merge_significance([sh[0], sh[1], elsewhere], ["a", "b", "c"])


def test_too_few_permutations_for_the_correction_are_warned():
    m = small_c_at_1(runs=12)
    _, s = significance_test(m, "randomisation", 200, seed=1)  # Holm over 66 pairs
    assert s["min_p"][0] == pytest.approx(66 / 201)
    assert "use at least 1,320 permutations" in s["warning"][0]
    assert s["significant_pairs"][0] == 0
    _, s = significance_test(m, "tukey-hsd", 200, seed=1)  # family-wise: 1 / 201
    assert s["min_p"][0] == pytest.approx(1 / 201) and s["warning"][0] is None


def test_command_line_writes_pairs_and_summary(tmp_path, capsys):
    from workflow_util import qacamp_here

    csv = tmp_path / "m.csv"
    rng = np.random.default_rng(2)
    pl.DataFrame({f"s{k}": rng.random(30) + 0.05 * k for k in range(5)}).write_csv(csv)
    res = qacamp_here(capsys, "reliability", "significance", "--matrix", str(csv), "--test", "randomisation",
                 "--permutations", "500", "--seed", "3", "--out", str(tmp_path / "sig.parquet"),
                 "--summary", str(tmp_path / "sum.parquet"))
    assert res.returncode == 0, res.stderr
    pairs = pl.read_parquet(tmp_path / "sig.parquet")
    assert pairs.columns[:10] == ["run_a", "run_b", "measure", "test", "statistic", "diff",
                                  "p_value", "p_adjusted", "significant", "permutations"]
    assert pairs.height == 10
    s = pl.read_parquet(tmp_path / "sum.parquet")
    assert s.select("pairs", "test", "correction").row(0) == (10, "randomisation", "holm")
    assert "pairs significant at alpha 0.05" in res.stderr


def test_docs_embed_the_registry_and_config_follows_it():
    from paths import ROOT

    from qacamp.plan import GLOBAL_DEFAULTS
    from qacamp.reliability.significance import (
        DEFAULT_PERMUTATIONS,
        DEFAULT_TEST,
        to_markdown,
    )

    doc = (ROOT / "docs" / "reliability.md").read_text(encoding="utf-8")
    block = doc.split("<!-- significance:begin -->\n")[1].split("<!-- significance:end -->")[0]
    assert block.strip() == to_markdown().strip()
    plan = GLOBAL_DEFAULTS["significance"]
    assert (plan["test"], plan["permutations"]) == (DEFAULT_TEST, DEFAULT_PERMUTATIONS)
