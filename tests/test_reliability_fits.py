"""Required difference, sensitivity and the fits of the swap method, built from
the papers' sentences and numbers (docs/reliability.md) and hand computations."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy import optimize

from qacamp.cli import main
from qacamp.errors import UsageError
from qacamp.io import write_parquet
from qacamp.reliability import fit_bins, fit_curve, fit_swap, model_error, required_difference
from qacamp.reliability.fits import OUTSIDE, FitSettings, parse_fitted_bins
from qacamp.reliability.matrix import ScoreMatrix

SCHEMA = {"size": pl.Int64, "bin": pl.Int64, "swaps": pl.Int64, "comparisons": pl.Int64}


def exact_counts(curves: dict[int, tuple[float, float]], sizes, n: int = 10**9,
                 bins: int = 21) -> pl.DataFrame:
    """Counts whose error rates follow a exp(-b c) exactly (bins without a curve: no swaps)."""
    rows = []
    for c in sizes:
        for b in range(bins):
            a, k = curves.get(b, (0.0, 0.0))
            rows.append((int(c), b, int(round(a * math.exp(-k * c) * n)), n))
    return pl.DataFrame(rows, schema=SCHEMA, orient="row")


def mean_matrix(columns: list[list[float]]) -> ScoreMatrix:
    vals = np.array(columns, dtype=np.float64).T
    return ScoreMatrix(tuple(f"u{i}" for i in range(vals.shape[0])),
                       tuple(f"r{j}" for j in range(vals.shape[1])), "mean", values=vals,
                       measure="m")


# --------------------------------------------------------------------------- lower edge

def voorhees_2005_counts() -> pl.DataFrame:
    """TREC 2004 as Voorhees 2005 describes it: 64 series, sizes 5..32; the bin
    0.04 <= d < 0.05 extrapolates to 'slightly greater than 5%' at 64 series and
    the bin 0.05 <= d < 0.06 reaches 5% 'with a test set of 47 series'."""
    b4 = 0.02
    a4 = 0.055 * math.exp(b4 * 64)            # e_4(64) = 5.5%
    b5 = 0.03
    a5 = 0.05 * math.exp(b5 * 46.5)           # e_5(c) <= 5% from c = 46.5, i.e. 47 series
    curves = {0: (0.48, 0.001), 1: (0.45, 0.004), 2: (0.40, 0.008), 3: (0.35, 0.012),
              4: (a4, b4), 5: (a5, b5), 6: (0.30, 0.06), 7: (0.2, 0.1)}
    return exact_counts(curves, range(5, 33), bins=8)


def test_required_difference_is_the_lower_edge_voorhees_2005():
    fits, summary = fit_swap(voorhees_2005_counts(), 64, min_fit_size=5)
    err = dict(zip(fits["bin"], fits["error_at_full"], strict=True))
    assert err[4] == pytest.approx(0.055, rel=1e-6)          # "slightly greater than 5%"
    assert err[5] < 0.05
    row = summary.row(0, named=True)
    # "requires a difference in scores of at least 0.05, which can be obtained with a
    # test set of 47 series": the bin [0.05, 0.06) read at its LOWER edge
    assert row["required_difference"] == 0.05 and row["required_bin"] == 5
    assert row["size_reached"] == 47
    assert required_difference(fits, 0.05) == (0.05, 47)
    assert row["mode"] == "extrapolate" and row["model"] == "exp-binomial"


def test_hand_count_table_lower_edge_and_sensitivity():
    # one size, c = 20: error rates 10/20 5/20 4/20 3/20 2/20 | 1/20 (= 5%) 0/20 ...
    swaps = [10, 5, 4, 3, 2, 1, 0, 0, 2]
    comps = [20, 20, 20, 20, 20, 20, 20, 10, 50]
    counts = pl.DataFrame({"size": [20] * 9, "bin": list(range(9)), "swaps": swaps,
                           "comparisons": comps}, schema=SCHEMA)
    fits, summary = fit_swap(counts, 40, mode="observed", min_comparisons=5)
    row = summary.row(0, named=True)
    assert row["required_difference"] == 0.05 and row["observed_at"] == 20
    # sensitivity: comparisons in bins >= 5 over all comparisons = (20 + 20 + 10 + 50) / 200
    assert row["sensitivity"] == pytest.approx(100 / 200) and row["n_comparisons"] == 200
    assert row["size_reached"] is None
    # the open last bin [0.08, ...) errs 2/50 = 4%: no warning about a higher bin
    assert row["warning"] is None
    # the first bin is never the required one: on subsets of 20 an accuracy moves in
    # steps of 0.05, so that bin holds only ties, which never swap (error 0)
    ties = counts.with_columns(pl.when(pl.col("bin") == 0).then(0).otherwise(pl.col("swaps"))
                               .alias("swaps"))
    assert fit_swap(ties, 40, mode="observed", min_comparisons=5)[1][
        "required_difference"][0] == 0.05
    # a higher bin above the level is said out loud
    worse = counts.with_columns(pl.when(pl.col("bin") == 7).then(5).otherwise(pl.col("swaps"))
                                .alias("swaps"))
    w = fit_swap(worse, 40, mode="observed", min_comparisons=5)[1]["warning"][0]
    assert "higher bin(s) 0.07-0.08" in w


# --------------------------------------------------------------------------- c@1 Table 2

TABLE2 = {  # measure: (required bin, highest value, sensitivity %, (iii) printed)
    "UF": (17, 0.484, 59.30, 35.12),
    "c@1": (9, 0.77, 58.40, 11.69),
    "accuracy": (9, 0.68, 55.00, 13.24),
}


def table2_counts(req_bin: int, share: float, c: int = 250, total: int = 100_000) -> pl.DataFrame:
    """Counts at c: bins below ``req_bin`` err 20%, the bin ``req_bin`` exactly 5%,
    higher bins 1%; a share ``share`` of the comparisons falls in bins >= req_bin."""
    above = round(share * total)
    below = total - above
    rows = []
    for b in range(21):
        if b < req_bin:
            n = below // req_bin + (1 if b < below % req_bin else 0)
            k = n // 5
        else:
            m = 21 - req_bin
            n = above // m + (1 if b - req_bin < above % m else 0)
            k = n // 20 if b == req_bin else n // 100
        rows.append((c, b, k, n))
    return pl.DataFrame(rows, schema=SCHEMA, orient="row")


#: Raw swap counts at c = 250, written out by hand (bin: comparisons, swaps).
#: Error rates: 60/120 40/100 27/90 16/80 9/60 5/50 3/40 2/30 2/24 (all above 5%),
#: bin 9 1/20 = 5% (the first at or under the level: (i) = 0.09), bin 10 1/60,
#: bins 11-19 0/30 each, bin 20 (d >= 0.20) 0/56.  1000 comparisons in all, of
#: which bins 9-20 hold 20 + 60 + 9 * 30 + 56 = 406: (iv) = 40.6%.
RAW_250 = {0: (120, 60), 1: (100, 40), 2: (90, 27), 3: (80, 16), 4: (60, 9), 5: (50, 5),
           6: (40, 3), 7: (30, 2), 8: (24, 2), 9: (20, 1), 10: (60, 1),
           **{b: (30, 0) for b in range(11, 20)}, 20: (56, 0)}


def raw_counts(max_score: float | None = None) -> pl.DataFrame:
    df = pl.DataFrame([(250, b, k, n) for b, (n, k) in RAW_250.items()], schema=SCHEMA,
                      orient="row")
    return df if max_score is None else df.with_columns(pl.lit(max_score).alias("max_score"))


def right_matrix(rights: list[int], n: int = 500) -> ScoreMatrix:
    """Accuracy matrix of runs answering the first ``rights[j]`` of ``n`` questions right."""
    return mean_matrix([[1.0] * r + [0.0] * (n - r) for r in rights])


def test_table2_columns_from_raw_counts_by_hand():
    """(i)-(iv) of the c@1 paper's Table 2 from counts and scores written out by hand,
    where every other reading gives another number: (ii) is the highest score on
    the full collection (385/500 = 0.77), not the highest on a subset of c (the
    counts say 0.80); (iv) is the share of the experiment's comparisons at c in
    bins reaching (i) (406/1000), not the share of the runs' pairs on the full
    collection (differences 0.17, 0.27 and 0.10: all three reach 0.09)."""
    m = right_matrix([385, 300, 250])          # 0.77, 0.60, 0.50
    _, summary = fit_swap(raw_counts(max_score=0.80), 500, matrix=m, mode="observed",
                          observed_at=250)
    row = summary.row(0, named=True)
    assert (row["required_difference"], row["required_bin"]) == (0.09, 9)     # (i)
    assert row["highest_score"] == pytest.approx(385 / 500, abs=1e-15)       # (ii)
    assert row["relative_difference"] == pytest.approx(0.09 / 0.77)          # (iii)
    assert row["sensitivity"] == pytest.approx(406 / 1000, abs=1e-15)        # (iv)
    assert row["n_comparisons"] == 1000 and row["n_pairs"] == 3
    assert row["highest_subset_score"] == 0.80
    assert row["relative_difference_subsets"] == pytest.approx(0.09 / 0.80)


@pytest.mark.parametrize("measure", list(TABLE2))
def test_table2_relative_difference_is_the_papers(measure):
    """The paper's own (i) and (ii) give its printed (iii): (ii) is not rounded before
    the division (0.17 / 0.484 = 35.12%).  (i) comes from counts whose first bin at
    5% is the paper's; (ii) from a run answering highest x 1000 of 1000 questions."""
    req_bin, highest, _sens, rel = TABLE2[measure]
    counts = pl.DataFrame([(250, b, 1 if b == req_bin else (10 if b < req_bin else 0), 20)
                           for b in range(21)], schema=SCHEMA, orient="row")
    m = right_matrix([round(highest * 1000), 100], n=1000)
    row = fit_swap(counts, 1000, matrix=m, mode="observed", observed_at=250)[1].row(
        0, named=True)
    assert row["required_difference"] == pytest.approx(req_bin / 100)
    assert row["highest_score"] == pytest.approx(highest, abs=1e-15)
    assert round(100 * row["relative_difference"], 2) == rel


def outcomes_for_c_at_1(tmp_path):
    """A c@1 campaign of 500 questions whose best run scores c@1 = 0.77
    (350 right, 100 wrong, 50 unanswered: (350 + 50 * 0.7) / 500)."""
    plan = {"best": (350, 100, 50), "mid": (300, 150, 50), "low": (200, 300, 0)}
    rows = []
    for run, (r, w, u) in plan.items():
        outcomes = ["R"] * r + ["W"] * w + ["UE"] * u
        for q, o in enumerate(outcomes):
            rows.append({"judgment_set": "gold", "run": run, "qid": f"q{q}", "rank": q + 1,
                         "answered": o in ("R", "W"), "outcome": o})
    write_parquet(pl.DataFrame(rows).cast({"rank": pl.Int32}), tmp_path / "outcomes.parquet")


def test_cli_observed_at_250_reads_table2_columns(tmp_path, capsys):
    """The command line on a campaign whose best run has c@1 = 0.77 by hand and on
    the raw counts above: (i) 0.09, (ii) 0.77, (iii) 11.69%, (iv) 406/1000 = 40.60%
    (the runs' full-collection c@1 differ by 0.11, 0.26 and 0.37: every pair would
    reach 0.09 under the other reading of (iv))."""
    outcomes_for_c_at_1(tmp_path)
    write_parquet(raw_counts(), tmp_path / "counts.parquet")
    summary = tmp_path / "summary.parquet"
    assert main(["reliability", "fit", "--scores", str(tmp_path), "--measure", "c_at_1",
                 "--judgment-set", "gold", "--counts", str(tmp_path / "counts.parquet"),
                 "--observed-at", "250", "--out", str(tmp_path / "fits.parquet"),
                 "--summary", str(summary)]) == 0
    row = pl.read_parquet(summary).row(0, named=True)
    assert (row["mode"], row["observed_at"], row["full_size"]) == ("observed", 250, 500)
    table2 = (row["required_difference"], round(row["highest_score"], 2),
              round(100 * row["relative_difference"], 2), round(100 * row["sensitivity"], 2))
    assert table2 == (0.09, 0.77, 11.69, 40.60)
    err = capsys.readouterr().err
    assert "observed swap rates at size 250 (no extrapolation)" in err
    # three runs: weak evidence, in the summary and on stderr
    assert "only 3 runs (3 pairs)" in row["warning"] and "warning: only 3 runs" in err


def test_observed_mode_checks_its_size():
    counts = table2_counts(9, 0.5, c=100)
    with pytest.raises(UsageError, match="no size 250"):
        fit_swap(counts, 500, mode="observed", observed_at=250)
    with pytest.raises(UsageError, match="only used with mode 'observed'"):
        FitSettings(observed_at=250)
    # observed mode without a size: the largest size counted
    assert fit_swap(counts, 500, mode="observed")[1]["observed_at"][0] == 100


def test_highest_subset_score_is_recorded():
    counts = table2_counts(9, 0.584).with_columns(pl.lit(0.80).alias("max_score"))
    m = mean_matrix([[0.77] * 500, [0.5] * 500])
    row = fit_swap(counts, 500, matrix=m, mode="observed", observed_at=250)[1].row(0, named=True)
    assert row["highest_subset_score"] == 0.80
    assert row["relative_difference_subsets"] == pytest.approx(0.09 / 0.80)
    assert row["relative_difference"] == pytest.approx(0.09 / 0.77)


# --------------------------------------------------------------------------- estimators

def simulate_bins(replicates: int, seed: int = 20030527):
    """The true curve 0.2 exp(-0.03 c), 60 comparisons at every size 21..250."""
    rng = np.random.default_rng(seed)
    sizes = np.arange(21, 251)
    n = np.full(len(sizes), 60)
    for _ in range(replicates):
        yield sizes, rng.binomial(60, 0.2 * np.exp(-0.03 * sizes)), n


def test_binomial_fit_is_unbiased_where_loglinear_is_not():
    true = 0.2 * math.exp(-0.03 * 500)        # 6.1e-8
    est = {"exp-binomial": [], "exp-loglinear": []}
    slope = {"exp-binomial": [], "exp-loglinear": []}
    for c, k, n in simulate_bins(100):
        for model in est:
            curve = fit_curve(model, c, k, n)
            assert curve.reason is None
            est[model].append(float(model_error(model, curve.a, curve.b, 500)))
            slope[model].append(curve.b)
    # maximum likelihood with the zero counts: slope and e(500) centred on the truth
    assert np.mean(slope["exp-binomial"]) == pytest.approx(0.03, rel=0.03)
    assert np.median(est["exp-binomial"]) == pytest.approx(true, rel=0.5)
    # log-linear least squares without them: e(500) around 2e-4, thousands of times too high
    assert 1e-4 < np.median(est["exp-loglinear"]) < 5e-4
    assert np.mean(slope["exp-loglinear"]) < 0.015


@pytest.mark.parametrize("model", ["exp-binomial", "power-binomial", "logit-binomial"])
def test_binomial_fit_maximises_the_likelihood(model):
    c, k, n = next(simulate_bins(1, seed=3))
    curve = fit_curve(model, c, k, n)

    def nll(p):
        e = np.clip(model_error(model, p[0], p[1], c), 1e-300, 1 - 1e-16)
        return -float(np.sum(k * np.log(e) + (n - k) * np.log1p(-e)))

    ref = optimize.minimize(nll, x0=[curve.a * 1.2 if model != "logit-binomial" else curve.a + 0.3,
                                     curve.b * 0.8], method="Nelder-Mead",
                            options={"xatol": 1e-12, "fatol": 1e-12, "maxiter": 20000})
    assert nll([curve.a, curve.b]) <= ref.fun + 1e-8
    np.testing.assert_allclose([curve.a, curve.b], ref.x, rtol=1e-4)


def test_size_at_level_by_hand():
    from qacamp.reliability.curves import size_at_level

    # 0.4 exp(-0.05 c) <= 0.05 from c = log(8) / 0.05 = 41.6
    assert size_at_level("exp-binomial", 0.4, 0.05, 0.05) == 42
    assert size_at_level("exp-binomial", 0.04, 0.05, 0.05) == 1
    assert size_at_level("exp-binomial", 0.4, -0.01, 0.05) is None
    assert size_at_level("exp-binomial", 0.4, 1e-300, 0.05) is None  # beyond any collection


def test_binomial_fit_by_hand_three_point_exact():
    # swaps exactly n e(c) at three sizes on the curve 0.3 exp(-0.1 c): the MLE is the curve
    c = np.array([10.0, 20.0, 30.0])
    n = np.array([10**6] * 3)
    k = np.round(0.3 * np.exp(-0.1 * c) * n)
    curve = fit_curve("exp-binomial", c, k, n)
    assert (curve.a, curve.b) == (pytest.approx(0.3, rel=1e-4), pytest.approx(0.1, rel=1e-4))


def test_bins_without_a_trustworthy_fit_get_a_reason():
    sizes = range(18, 40)
    rows = []
    for c in sizes:
        rows += [(c, 0, 60, 100),                          # 0: flat 60% -> above 0.5
                 (c, 1, int(c), 100),                      # 1: rises with size
                 (c, 2, 5 if c == 21 else 0, 100),         # 2: swaps only at the smallest size
                 (c, 3, 0, 100),                           # 3: no swaps at all -> the zero curve
                 (c, 4, 0, 0)]                             # 4: no comparisons at all
    rows += [(c, 5, 3, 100) for c in (21, 22)]             # 5: two sizes only
    counts = pl.DataFrame(rows, schema=SCHEMA, orient="row")
    fits = fit_bins(counts, 100, min_fit_size=21).sort("bin")
    reason = fits["reason"].to_list()
    assert reason[0].startswith("extrapolated error 0.6") and "above 0.5" in reason[0]
    assert reason[1] == "fit rises with size (b < 0)"
    assert "swaps only at the smallest fitted size" in reason[2]
    assert reason[3] is None and fits["error_at_full"][3] == 0.0 and fits["a"][3] == 0.0
    assert reason[4] == "fewer than 3 fitted sizes" and reason[5] == "fewer than 3 fitted sizes"
    assert fits["error_at_full"].to_list()[:3] == [None, None, None]
    assert fits["n_points"][1] == len(range(21, 40))       # min_fit_size is inclusive
    # no error above 0.5 is ever reported at full size
    assert all(e is None or e <= 0.5 for e in fits["error_at_full"].to_list())
    # log-linear least squares drops the zero-swap sizes, so bin 2 has one point
    ll = fit_bins(counts, 100, min_fit_size=21, model="exp-loglinear").sort("bin")
    assert ll["n_points"][2] == 1 and "fewer than 3 sizes with swaps" in ll["reason"][2]


def test_fitted_bins_restriction_voorhees_2003():
    # "Curves could not be fit for the first bin (differences less than .01) ... or for
    # bins where differences were greater than 0.16": the bin 0.16 <= d < 0.17 holds
    # differences greater than 0.16, so the fitted bins are 0.01 ... 0.15 (the preset)
    from qacamp.presets import PRESETS

    spec = PRESETS["trec2002"].settings["reliability"]["swap"]["fitted_bins"]
    assert spec == "0.01:0.15"
    counts = exact_counts({b: (0.5, 0.01 * (b + 1)) for b in range(21)}, range(21, 60))
    fits = fit_bins(counts, 500, fitted_bins=parse_fitted_bins(spec))
    outside = fits.filter(pl.col("reason") == OUTSIDE)["bin"].to_list()
    assert outside == [0, *range(16, 21)]
    assert fits.filter(pl.col("bin").is_between(1, 15))["error_at_full"].null_count() == 0
    assert parse_fitted_bins("all") is None
    with pytest.raises(UsageError):
        parse_fitted_bins("0.2:0.1")


# --------------------------------------------------------------------------- warnings

def test_few_runs_and_few_comparisons_are_warned():
    counts = voorhees_2005_counts()
    m_few = mean_matrix([[0.1 * j] * 64 for j in range(9)])     # 9 runs = 36 pairs
    m_ok = mean_matrix([[0.1 * j] * 64 for j in range(10)])     # 10 runs = 45 pairs
    few = fit_swap(counts, 64, min_fit_size=5, matrix=m_few)[1]["warning"][0]
    assert few.startswith("only 9 runs (36 pairs): fewer than 10 runs (45 pairs)")
    assert fit_swap(counts, 64, min_fit_size=5, matrix=m_ok)[1]["warning"][0] is None
    # bin 3 with only 40 comparisons over its fitted sizes (below 100)
    three = pl.col("bin") == 3
    thin = counts.with_columns(
        pl.when(three).then((pl.col("size") % 4 == 0).cast(pl.Int64))
        .otherwise(pl.col("swaps")).alias("swaps"),
        pl.when(three).then(2).otherwise(pl.col("comparisons")).alias("comparisons"))
    fits, summary = fit_swap(thin, 64, min_fit_size=13, matrix=m_ok)
    assert fits.filter(pl.col("bin") == 3)["warning"][0] == \
        "few comparisons at the fitted sizes (40 < 100)"
    assert "few comparisons (< 100) in difference bin(s) 0.03-0.04 (40)" in summary["warning"][0]


def test_cli_fit_prints_warnings_and_method(tmp_path, capsys):
    counts = voorhees_2005_counts()
    write_parquet(counts, tmp_path / "c.parquet")
    matrix = tmp_path / "m.csv"
    matrix.write_text("a,b,c\n" + "\n".join("0.5,0.4,0.3" for _ in range(64)) + "\n")
    assert main(["reliability", "fit", "--matrix", str(matrix), "--counts",
                 str(tmp_path / "c.parquet"), "--min-fit-size", "5", "--out",
                 str(tmp_path / "f.parquet"), "--summary", str(tmp_path / "s.parquet")]) == 0
    err = capsys.readouterr().err
    assert "a exp(-b c) fitted by binomial maximum likelihood" in err
    assert "required difference 0.05" in err
    assert "warning: only 3 runs (3 pairs)" in err
    s = pl.read_parquet(tmp_path / "s.parquet")
    assert s["measure"][0] == "score"       # a --matrix without --measure is 'score'
    assert s["sensitivity"][0] == pytest.approx(3 / 3)  # differences .1, .1, .2 all >= .05
