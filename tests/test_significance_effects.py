"""Differences with confidence intervals and effect sizes, numerically sound
tests on extreme scores, the bounds of alpha, and the comparisons with a
baseline run: against scipy and statsmodels on the real TREC score matrices,
hand computations of the bootstrap interval and the jackknife, and the
command line's one-line errors."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from paths import SHARED_DATA

from qacamp.errors import UsageError
from qacamp.loader import read_matrix_file
from qacamp.reliability.matrix import ScoreMatrix
from qacamp.reliability.seeds import stable_hash, trial_rng
from qacamp.reliability.significance import (
    merge_significance,
    significance_counts,
    significance_results,
    significance_test,
)
from qacamp.reliability.significance.baseline import baseline_comparison, dunnett_p

MATRICES = SHARED_DATA / "score-matrices"
needs_data = pytest.mark.skipif(not MATRICES.is_dir(), reason="needs ../shared/data")


def real(name: str, runs: int | None = None) -> ScoreMatrix:
    m = read_matrix_file(MATRICES / f"{name}.csv", measure="ap")
    return m.select_runs(list(m.runs[:runs])) if runs else m


def values_matrix(v: np.ndarray, measure: str = "m") -> ScoreMatrix:
    return ScoreMatrix(tuple(f"q{i}" for i in range(v.shape[0])),
                       tuple(f"r{k}" for k in range(v.shape[1])), values=v, measure=measure)


def finite_everywhere(*frames: pl.DataFrame) -> bool:
    """No NaN or infinite float anywhere (nulls allowed)."""
    for f in frames:
        for c, dtype in f.schema.items():
            if dtype == pl.Float64:
                x = f[c].drop_nulls().to_numpy()
                if not np.all(np.isfinite(x)):
                    return False
    return True


# --------------------------------------------------------------------------- intervals

@needs_data
@pytest.mark.parametrize("name", ["web2004", "genomics2004"])
def test_t_test_intervals_and_effect_sizes_equal_scipy_on_every_pair(name):
    from scipy.stats import ttest_rel

    m = real(name)
    pairs, summary = significance_test(m, "t-test")
    ii, jj = np.triu_indices(m.n_runs, k=1)
    lo, hi = np.empty(len(ii)), np.empty(len(ii))
    for k, (i, j) in enumerate(zip(ii, jj, strict=True)):
        ci = ttest_rel(m.values[:, i], m.values[:, j]).confidence_interval(0.95)
        lo[k], hi[k] = ci.low, ci.high
    same = np.isnan(lo)  # identical runs: scipy's NaN, ours the point 0
    assert np.allclose(pairs["ci_lower"].to_numpy()[~same], lo[~same], rtol=0, atol=1e-9)
    assert np.allclose(pairs["ci_upper"].to_numpy()[~same], hi[~same], rtol=0, atol=1e-9)
    assert np.all(pairs["ci_lower"].to_numpy()[same] == 0)
    z = m.values[:, ii] - m.values[:, jj]
    with np.errstate(invalid="ignore"):
        d_over_sd = z.mean(axis=0) / z.std(axis=0, ddof=1)
    identical = np.all(z == 0, axis=0)  # 0 / 0 in numpy; no difference: effect 0 here
    es = pairs["effect_size"].to_numpy()
    assert np.allclose(es[~identical], d_over_sd[~identical], atol=1e-12)
    assert np.all(es[identical] == 0)
    assert summary["ci_level"][0] == 0.95
    assert summary["ci_method"][0].startswith("t interval")
    assert finite_everywhere(pairs, summary)


@pytest.mark.slow  # scipy's studentized range: many CPU-seconds per call
@needs_data
@pytest.mark.parametrize("name, runs", [("web2004", 24), ("genomics2004", None)])
def test_anova_tukey_intervals_and_es_e_equal_statsmodels_ols_on_every_pair(name, runs,
                                                                          real_tukey):
    """Tukey's simultaneous intervals: d +/- q_crit / sqrt(2) x the standard error
    statsmodels' OLS fit gives the contrast of the two runs (two-way model on
    the long table), q_crit scipy's studentized range (as statsmodels' tukeyhsd);
    Sakai's ES_E over the OLS residual standard deviation.  Every pair of
    Genomics 2004 and of 24 runs of Web 2004 (the studentized range's p-values
    of all 2,628 Web pairs take half a minute)."""
    from scipy.stats import studentized_range
    from statsmodels.formula.api import ols

    m, pairs, _ = real_tukey(name, runs)
    long = pl.DataFrame({"unit": np.repeat(np.arange(m.n_units), m.n_runs).astype(str),
                         "run": np.tile(np.array(m.runs), m.n_units),
                         "value": m.values.ravel()}).to_pandas()
    fit = ols("value ~ C(run) + C(unit)", data=long).fit()
    ii, jj = np.triu_indices(m.n_runs, k=1)
    names = list(fit.params.index)

    def column(r):  # the run's dummy (the first run is the reference level)
        key = f"C(run)[T.{r}]"
        return names.index(key) if key in names else None

    contrast = np.zeros((len(ii), len(names)))
    for k, (i, j) in enumerate(zip(ii, jj, strict=True)):
        for r, sign in ((m.runs[i], 1.0), (m.runs[j], -1.0)):
            if column(r) is not None:
                contrast[k, column(r)] = sign
    tt = fit.t_test(contrast)
    d, se = np.asarray(tt.effect).ravel(), np.asarray(tt.sd).ravel()
    q = studentized_range.ppf(0.95, m.n_runs, fit.df_resid)
    assert np.allclose(pairs["diff"].to_numpy(), d, atol=1e-12)
    assert np.allclose(pairs["ci_lower"].to_numpy(), d - q / math.sqrt(2) * se, atol=1e-9)
    assert np.allclose(pairs["ci_upper"].to_numpy(), d + q / math.sqrt(2) * se, atol=1e-9)
    assert np.allclose(pairs["effect_size"].to_numpy(), d / math.sqrt(fit.mse_resid),
                       atol=1e-9)


def test_permutation_intervals_are_the_percentile_bootstrap_and_shard_invariant():
    """The interval of randomisation and randomised Tukey HSD is the k-th
    smallest to k-th largest of 2,000 bootstrap differences, sample b drawn
    from SeedSequence([seed, crc32(measure), crc32("interval"), b]); recomputed
    here by hand, and the same for 1 and 3 shards."""
    rng = np.random.default_rng(3)
    v = rng.random((25, 4)) + np.array([0.0, 0.05, 0.1, 0.3])
    m = values_matrix(v)
    pairs, summary = significance_test(m, "randomisation", 200, seed=5)
    draws = np.stack([trial_rng(5, "m", stable_hash("interval"), b).integers(0, 25, 25)
                      for b in range(2000)])
    boot = v[draws].mean(axis=1)  # (2000, runs)
    k = math.floor(2001 * 0.05 / 2)
    assert k == 50
    ii, jj = np.triu_indices(4, k=1)
    dstar = np.sort(boot[:, ii] - boot[:, jj], axis=0)
    assert np.allclose(pairs["ci_lower"].to_numpy(), dstar[k - 1], atol=1e-15)
    assert np.allclose(pairs["ci_upper"].to_numpy(), dstar[2000 - k], atol=1e-15)
    assert summary["ci_method"][0].startswith("percentile bootstrap, 2,000 samples")
    # the interval is the test's neighbour: Tukey HSD draws the same samples
    tk, _ = significance_test(m, "tukey-hsd", 200, seed=5)
    assert tk["ci_lower"].to_list() == pairs["ci_lower"].to_list()
    shards = [significance_counts(m, "tukey-hsd", 200, seed=5, shard=i, n_shards=3)
              for i in range(3)]
    merged, _ = significance_results(merge_significance(shards))
    assert merged.equals(tk)
    # shard 0 alone computes the effect sizes; the merge finds them in any order
    assert shards[1]["effect_size"].null_count() == shards[1].height
    assert significance_results(merge_significance(shards[::-1]))[0].equals(tk)
    # ES_E: the difference over the two-way ANOVA's residual standard deviation
    res = v - v.mean(axis=0) - v.mean(axis=1)[:, None] + v.mean()
    sd = math.sqrt((res ** 2).sum() / (3 * 24))
    assert np.allclose(tk["effect_size"].to_numpy(), tk["diff"].to_numpy() / sd, atol=1e-12)


def test_c_at_1_effect_sizes_use_jackknife_pseudo_values():
    """c@1 is not a mean of per-question scores: the per-unit scores of the
    effect size are the jackknife pseudo-values n c@1 - (n - 1) c@1_(-u),
    computed here by hand from the formula (nR + nU nR / n) / n."""
    rng = np.random.default_rng(8)
    right = rng.random((30, 3)) < np.array([0.4, 0.5, 0.7])
    unans = ~right & (rng.random((30, 3)) < 0.3)
    m = ScoreMatrix(tuple(f"q{i}" for i in range(30)), ("x", "y", "z"), "c_at_1",
                    right=right, unanswered=unans, measure="c_at_1")

    def c1(r, u):
        n = len(r)
        return (r.sum() + u.sum() * r.sum() / n) / n

    full = np.array([c1(right[:, k], unans[:, k]) for k in range(3)])
    pv = np.array([[30 * full[k] - 29 * c1(np.delete(right[:, k], u), np.delete(unans[:, k], u))
                    for k in range(3)] for u in range(30)])
    pairs, summary = significance_test(m, "randomisation", 100, seed=1)
    for row, (i, j) in zip(pairs.iter_rows(named=True), [(0, 1), (0, 2), (1, 2)], strict=True):
        z = pv[:, i] - pv[:, j]
        assert row["effect_size"] == pytest.approx((full[i] - full[j]) / z.std(ddof=1),
                                                   abs=1e-12)
        assert row["ci_lower"] <= row["diff"] <= row["ci_upper"]
    assert "jackknife pseudo-values" in summary["effect_size_method"][0]


# --------------------------------------------------------------------------- extreme values

def test_scores_near_1e300_give_the_same_tests_as_the_same_scores_near_1():
    """Values around 1e300 used to overflow the variance (t-test and ANOVA p = 1,
    interval bounds inf) while the randomisation test found p = 0.02."""
    rng = np.random.default_rng(11)
    v = rng.random((30, 3)) * 0.2 + np.array([0.5, 0.6, 0.52])
    small, huge = values_matrix(v), values_matrix(v * 1e300)
    for test in ("t-test", "anova-tukey"):
        a, sa = significance_test(small, test)
        b, sb = significance_test(huge, test)
        assert np.allclose(b["p_value"].to_numpy(), a["p_value"].to_numpy(), rtol=1e-9,
                           atol=1e-15), test
        assert np.allclose(b["statistic"].to_numpy(), a["statistic"].to_numpy(), rtol=1e-9)
        assert np.allclose(b["effect_size"].to_numpy(), a["effect_size"].to_numpy(), rtol=1e-9)
        for c in ("diff", "ci_lower", "ci_upper"):
            assert np.allclose(b[c].to_numpy() / 1e300, a[c].to_numpy(), rtol=1e-9), (test, c)
        assert finite_everywhere(b, sb)
        if test == "anova-tukey":
            assert sb["anova_f"][0] == pytest.approx(sa["anova_f"][0], rel=1e-9)
    t_pairs, _ = significance_test(huge, "t-test", correction="none")
    r_pairs, _ = significance_test(huge, "randomisation", 2000, seed=2, correction="none")
    assert t_pairs["p_value"][0] < 0.05 and r_pairs["p_value"][0] < 0.05


def test_constant_differences_are_reported_as_untestable_without_nan_or_inf():
    """The same difference (5e-324, the smallest float) on every unit: the
    t-test has no variance to weigh it against; it used to write inf and NaN
    and declare the pair significant at p = 0."""
    v = np.zeros((12, 3))
    v[:, 0] = 5e-324
    v[:, 2] = np.linspace(0.0, 1.0, 12)
    pairs, summary = significance_test(values_matrix(v), "t-test")
    row = pairs.row(0, named=True)  # r0 - r1: 5e-324 everywhere
    assert (row["statistic"], row["p_value"], row["significant"]) == (None, 1.0, False)
    assert row["effect_size"] is None and row["ci_lower"] == row["ci_upper"] == 5e-324
    assert finite_everywhere(pairs, summary)
    assert summary["warning"][0] == (
        "1 pairs have the same difference on every unit (no variance): the paired t-test "
        "cannot weigh them and reports them with p = 1, not significant; the randomisation "
        "test can")
    # all differences zero: no evidence, t = 0 (scipy: NaN)
    same = significance_test(values_matrix(np.tile(v[:, 2:], (1, 2))), "t-test")[0].row(0)
    assert same[4:9] == (0.0, 0.0, 1.0, 1.0, False)
    # an exactly additive matrix: the ANOVA has no residual variance
    add = np.add.outer(np.linspace(0, 0.5, 10), np.array([0.0, 0.25, 0.5]))
    pairs, summary = significance_test(values_matrix(add), "anova-tukey")
    assert summary["anova_f"][0] is None and summary["anova_p"][0] is None
    assert pairs["statistic"].null_count() == 3 and not pairs["significant"].any()
    assert summary["warning"][0].startswith("the scores are exactly additive")
    assert finite_everywhere(pairs, summary)


@pytest.mark.parametrize("alpha", [5e-324, 1e-320, 1e-300, 1e-7, 0.0, 1.0])
def test_alpha_is_bounded_to_a_statable_permutation_resolution(alpha):
    m = values_matrix(np.random.default_rng(1).random((8, 3)))
    with pytest.raises(UsageError) as err:
        significance_test(m, "randomisation", 100, alpha=alpha)
    assert str(err.value) == (
        f"alpha must be in [1e-06, 1) (got {alpha:g}): a permutation test resolves p-values "
        "of 1/(B + 1), so alpha 1e-06 already needs a million permutations; use e.g. 0.05 "
        "or 0.01")


def test_the_smallest_alpha_states_its_permutations():
    m = values_matrix(np.random.default_rng(1).random((8, 4)))
    _, s = significance_test(m, "randomisation", 100, alpha=1e-6)
    assert "use at least 6,000,000 permutations" in s["warning"][0]


@pytest.mark.parametrize(("test", "alpha", "said"), [
    ("randomisation", 1e-4, True), ("tukey-hsd", 2e-4, True),
    ("randomisation", 1e-3, False), ("t-test", 1e-4, False)])
def test_an_interval_the_bootstrap_cannot_resolve_says_its_level(test, alpha, said):
    # 2,000 samples: k = floor(2001 alpha / 2) is 0 below alpha 1/1000.5, and
    # the percentile interval is then the smallest to the largest difference
    m = values_matrix(np.random.default_rng(1).random((8, 4)))
    _, s = significance_test(m, test, None if test == "t-test" else 100, alpha=alpha)
    text = s["warning"][0] or ""
    assert ("the intervals' level is about 0.9990, not " in text) is said, text
    assert s["ci_level"][0] == 1.0 - alpha


@pytest.mark.parametrize("alpha", ["5e-324", "1e-300"])
def test_command_line_refuses_a_tiny_alpha_in_one_line(tmp_path, alpha, capsys):
    from workflow_util import qacamp_here

    csv = tmp_path / "m.csv"
    pl.DataFrame({f"s{k}": np.linspace(0, 1, 10) ** (k + 1) for k in range(3)}).write_csv(csv)
    res = qacamp_here(capsys, "reliability", "significance", "--matrix", str(csv), "--test",
                 "randomisation", "--alpha", alpha, "--out", str(tmp_path / "sig.parquet"))
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert f"alpha must be in [1e-06, 1) (got {float(alpha):g})" in lines[0]
    assert not (tmp_path / "sig.parquet").exists()


# --------------------------------------------------------------------------- baseline

@needs_data
def test_baseline_comparison_equals_scipy_and_holm_over_the_baseline_family_on_genomics():
    from scipy.stats import ttest_rel
    from statsmodels.stats.multitest import multipletests

    m = real("genomics2004")
    base = "sys10"
    out = baseline_comparison(m, base, "t-test")
    assert out.height == m.n_runs - 1 and base not in out["run"].to_list()
    assert out["score"].to_list() == sorted(out["score"].to_list(), reverse=True)
    b = m.values[:, m.runs.index(base)]
    res = [ttest_rel(m.values[:, m.runs.index(r)], b) for r in out["run"]]
    p = np.array([r.pvalue for r in res])
    assert np.allclose(out["p_value"].to_numpy(), p, atol=1e-12)
    assert np.allclose(out["statistic"].to_numpy(), [r.statistic for r in res], rtol=1e-12)
    reject, holm, _, _ = multipletests(p, alpha=0.05, method="holm")
    assert np.allclose(out["p_adjusted"].to_numpy(), holm, atol=1e-12)
    assert out["significant"].to_list() == reject.tolist()
    ci = [r.confidence_interval() for r in res]
    assert np.allclose(out["ci_lower"].to_numpy(), [c.low for c in ci], atol=1e-9)
    assert np.allclose(out["ci_upper"].to_numpy(), [c.high for c in ci], atol=1e-9)
    assert np.allclose(out["diff"].to_numpy(),
                       out["score"].to_numpy() - out["baseline_score"].to_numpy(), atol=1e-15)
    # corrected over the 46 comparisons, not the 1,081 pairs: more are significant
    allpairs, _ = significance_test(m, "t-test")
    both = allpairs.filter((pl.col("run_a") == base) | (pl.col("run_b") == base))
    assert out["significant"].sum() >= both["significant"].sum()


@pytest.mark.slow  # scipy's Dunnett distribution on the whole matrix
@needs_data
def test_baseline_anova_is_dunnetts_test_on_genomics():
    """Dunnett's p-values equal scipy's multivariate t (randomised quasi-Monte
    Carlo, so within its error) for the same statistics; the statistics are
    the OLS contrasts with the baseline."""
    from scipy.stats import multivariate_t

    m = real("genomics2004")
    out = baseline_comparison(m, "sys10", "anova-tukey")
    k, df = m.n_runs - 1, (m.n_runs - 1) * (m.n_units - 1)
    y = m.values
    res = y - y.mean(axis=0) - y.mean(axis=1)[:, None] + y.mean()
    se = math.sqrt((res ** 2).sum() / df * 2 / m.n_units)
    assert np.allclose(out["statistic"].to_numpy(), out["diff"].to_numpy() / se, rtol=1e-9)
    rho = np.full((k, k), 0.5)
    np.fill_diagonal(rho, 1.0)
    mvt = multivariate_t(shape=rho, df=df, seed=7)
    for row in out.filter(pl.col("p_value").is_between(1e-4, 0.9)).head(2).iter_rows(named=True):
        x = np.full(k, abs(row["statistic"]))
        assert row["p_value"] == pytest.approx(1 - mvt.cdf(x, lower_limit=-x, maxpts=400_000),
                                               abs=2e-5)
    assert (out["ci_lower"] <= out["diff"]).all() and (out["diff"] <= out["ci_upper"]).all()
    assert out["significant"].to_list() == (out["p_value"] <= 0.05).to_list()


def test_dunnett_p_values_equal_scipys_dunnett_on_a_one_way_design():
    from scipy.stats import dunnett

    rng = np.random.default_rng(4)
    groups = [rng.normal(0.0, 1.0, 12) + shift for shift in (0.0, 0.4, 0.9, 1.3)]
    res = dunnett(*groups[1:], control=groups[0], random_state=1)
    df = 4 * 11
    pooled = sum(((g - g.mean()) ** 2).sum() for g in groups) / df
    t = np.array([(g.mean() - groups[0].mean()) / math.sqrt(pooled * 2 / 12)
                  for g in groups[1:]])
    assert np.allclose(res.statistic, t, rtol=1e-12)
    assert np.allclose(dunnett_p(t, 3, df), res.pvalue, atol=1e-4)


def test_baseline_permutation_tests_share_the_all_pairs_permutations():
    rng = np.random.default_rng(6)
    v = rng.random((20, 5)) + np.linspace(0, 0.3, 5)
    m = values_matrix(v)
    out = baseline_comparison(m, "r0", "randomisation", 500, seed=3, correction="none")
    allp, _ = significance_test(m, "randomisation", 500, seed=3, correction="none")
    first = allp.filter(pl.col("run_a") == "r0")  # r0 - rk: the opposite sign
    got = dict(zip(out["run"], out["p_value"], strict=True))
    assert {r: got[r] for r in first["run_b"]} == dict(zip(first["run_b"], first["p_value"],
                                                           strict=True))
    # randomised Tukey HSD over the baseline family: max_r |M(r*) - M(base*)|,
    # recomputed here from the same permuted sources
    from qacamp.reliability.significance.tukey_hsd import permuted_sources

    tk = baseline_comparison(m, "r0", "tukey-hsd", 300, seed=3)
    src = permuted_sources(np.arange(300), 20, 5, 3, "m")
    sc = v[np.arange(20)[None, None, :], src].mean(axis=2)
    top = np.abs(sc - sc[:, :1]).max(axis=1)
    for row in tk.iter_rows(named=True):
        hits = (top >= abs(row["diff"]) - 1e-12 * max(1.0, abs(row["diff"]))).sum()
        assert row["p_value"] == pytest.approx((1 + hits) / 301, abs=1e-15)
    all_tk, _ = significance_test(m, "tukey-hsd", 300, seed=3)
    fam = all_tk.filter(pl.col("run_a") == "r0")
    assert (tk.sort("run")["p_value"].to_numpy() <= fam.sort("run_b")["p_value"].to_numpy()
            + 1e-15).all()


def test_baseline_must_be_one_of_the_runs():
    m = values_matrix(np.random.default_rng(1).random((8, 3)))
    with pytest.raises(UsageError, match=r"baseline run 'bm25' is not among the 3 runs "
                                         r"\(r0, r1, r2\): name one of them"):
        baseline_comparison(m, "bm25", "t-test")


@needs_data
def test_baseline_through_the_command_line_equals_scipy_and_holm_on_genomics(tmp_path, capsys):
    """`qacamp reliability significance --baseline RUN`: the t-test of every run
    against the baseline run on the real Genomics 2004 matrix equals scipy's
    ttest_rel and statsmodels' Holm correction over those 46 comparisons,
    written to --baseline-out and, without it, printed as tab-separated text."""
    import io

    from scipy.stats import ttest_rel
    from statsmodels.stats.multitest import multipletests
    from workflow_util import qacamp_here

    csv = MATRICES / "genomics2004.csv"
    out = tmp_path / "baseline.parquet"
    res = qacamp_here(capsys, "reliability", "significance", "--matrix", str(csv), "--test", "t-test",
                 "--baseline", "sys10", "--out", str(tmp_path / "pairs.parquet"),
                 "--baseline-out", str(out))
    assert res.returncode == 0, res.stderr
    assert "against the baseline sys10:" in res.stderr
    got = pl.read_parquet(out)
    wide = pl.read_csv(csv)
    base = wide["sys10"].to_numpy()
    others = [c for c in wide.columns if c not in ("unit", "topic", "sys10")
              and wide[c].dtype.is_numeric()]
    assert sorted(got["run"].to_list()) == sorted(others) and len(others) == 46
    rows = {r["run"]: r for r in got.iter_rows(named=True)}
    tests = {r: ttest_rel(wide[r].to_numpy(), base) for r in others}
    p = np.array([tests[r].pvalue for r in others])
    reject, holm, _, _ = multipletests(p, alpha=0.05, method="holm")
    for k, r in enumerate(others):
        assert rows[r]["p_value"] == pytest.approx(p[k], abs=1e-12)
        assert rows[r]["p_adjusted"] == pytest.approx(holm[k], abs=1e-12)
        assert rows[r]["significant"] == bool(reject[k])
        assert rows[r]["diff"] == pytest.approx(wide[r].mean() - base.mean(), abs=1e-12)
        ci = tests[r].confidence_interval()
        assert (rows[r]["ci_lower"], rows[r]["ci_upper"]) == pytest.approx((ci.low, ci.high),
                                                                           abs=1e-9)
    printed = qacamp_here(capsys, "reliability", "significance", "--matrix", str(csv), "--test", "t-test",
                     "--baseline", "sys10", "--out", str(tmp_path / "pairs2.parquet"))
    assert printed.returncode == 0, printed.stderr
    assert pl.read_csv(io.StringIO(printed.stdout), separator="\t").select(
        "run", "p_adjusted").equals(got.select("run", "p_adjusted"))


def test_baseline_counts_in_shards_merge_to_the_one_process_comparison():
    """The shards of the permutation tests count the comparisons with the
    baseline too; merged, they give the comparison of one process."""
    from qacamp.reliability.significance.baseline import baseline_results

    rng = np.random.default_rng(11)
    m = values_matrix(rng.random((25, 6)) + np.linspace(0, 0.2, 6))
    for test in ("tukey-hsd", "randomisation"):
        one = baseline_comparison(m, "r2", test, 300, seed=5)
        counts = [significance_counts(m, test, 300, 5, shard=i, n_shards=3, baseline="r2")
                  for i in range(3)]
        merged = merge_significance(counts)
        assert baseline_results(merged).equals(one), test
        pairs, _ = significance_results(merged)
        assert pairs.equals(significance_test(m, test, 300, 5)[0]), test
    plain = merge_significance([significance_counts(m, "tukey-hsd", 300, 5)])
    assert baseline_results(plain).height == 0


def test_baseline_kernels_are_the_test_records():
    """No dispatch by test name: every test's record carries its baseline kernel."""
    import inspect

    from qacamp.reliability.significance import TESTS
    from qacamp.reliability.significance import baseline as module

    assert all(callable(t.baseline) for t in TESTS.values())
    source = inspect.getsource(module)
    assert all(f'"{t.name}"' not in source for t in TESTS.values())


def test_a_baseline_that_is_no_run_is_one_line_naming_the_config_key(tmp_path, capsys):
    from workflow_util import qacamp_here

    csv = tmp_path / "m.csv"
    csv.write_text("a,b,c\n0.1,0.5,0.3\n0.2,0.6,0.1\n0.3,0.7,0.4\n")
    res = qacamp_here(capsys, "reliability", "significance", "--matrix", str(csv), "--test", "t-test",
                 "--baseline", "bm25", "--out", str(tmp_path / "p.parquet"),
                 "--baseline-out", str(tmp_path / "b.parquet"),
                 "--config-prefix", "campaigns.mine.reliability")
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert "'campaigns.mine.reliability.significance.baseline'" in res.stderr
    assert "baseline run 'bm25' is not among the 3 runs (a, b, c)" in res.stderr
    assert not (tmp_path / "p.parquet").exists() and not (tmp_path / "b.parquet").exists()
