"""Designing the next campaign: the G-study and D-study, topic set sizes, the
swap method's size and the question diagnostics (qacamp.reliability.design),
against the peers a user would use (the PyPI package generalizit, statsmodels'
power classes), hand computations and published numbers."""

from __future__ import annotations

import contextlib
import io
import math
import sys

import numpy as np
import polars as pl
import pytest
from paths import ROOT, SHARED_DATA
from scipy import stats

from qacamp.errors import UsageError
from qacamp.loader import read_matrix_file
from qacamp.reliability.builders import from_outcomes
from qacamp.reliability.design import (
    COMPONENT_SCHEMA,
    D_STUDY_SCHEMA,
    ITEM_SCHEMA,
    NEEDED_SCHEMA,
    SIZE_SCHEMA,
    SWAP_SIZE_SCHEMA,
    anova_size,
    ci_size,
    components,
    d_study,
    flagged,
    item_statistics,
    swap_error_curve,
    swap_size,
    t_test_size,
    topic_set_sizes,
    two_way,
    unit_values,
    units_needed,
)
from qacamp.reliability.design import common as design_common
from qacamp.reliability.design.topic_set_size import anova_power, t_test_power
from qacamp.reliability.fits import fit_bins

MATRICES = SHARED_DATA / "score-matrices"
needs_data = pytest.mark.skipif(not MATRICES.is_dir(), reason="needs ../shared/data")
REAL = ("web2004", "genomics2004")


def real(name: str) -> np.ndarray:
    """A real TREC matrix read by the project's matrix reader: (topics, runs)."""
    return unit_values(read_matrix_file(MATRICES / f"{name}.csv", measure="ap"))


def hand_gstudy(x: np.ndarray) -> dict[str, float]:
    """The textbook ANOVA by exact summation (math.fsum) over Python lists:
    SS_total - SS_runs - SS_units is the residual here (the package takes it
    directly), so the two computations share no step."""
    n_u, n_r = x.shape
    cells = x.tolist()
    grand = math.fsum(v for row in cells for v in row) / (n_u * n_r)
    run_mean = [math.fsum(cells[u][r] for u in range(n_u)) / n_u for r in range(n_r)]
    unit_mean = [math.fsum(row) / n_r for row in cells]
    ss_total = math.fsum((v - grand) ** 2 for row in cells for v in row)
    ss_r = n_u * math.fsum((m - grand) ** 2 for m in run_mean)
    ss_u = n_r * math.fsum((m - grand) ** 2 for m in unit_mean)
    ms_r, ms_u = ss_r / (n_r - 1), ss_u / (n_u - 1)
    ms_e = (ss_total - ss_r - ss_u) / ((n_r - 1) * (n_u - 1))
    v_r, v_u, v_e = (ms_r - ms_e) / n_u, (ms_u - ms_e) / n_r, ms_e
    return {"n_u": n_u, "n_r": n_r, "ms_r": ms_r, "ms_u": ms_u, "ms_e": ms_e,
            "runs": v_r, "units": v_u, "residual": v_e,
            "erho2": v_r / (v_r + v_e / n_u), "phi": v_r / (v_r + (v_u + v_e) / n_u)}


def peer_gstudy(x: np.ndarray) -> dict[str, float]:
    """generalizit's ``p x i`` G-study of the same matrix (runs = p, units = i).

    generalizit rounds its T values and variance components to 4 decimals
    (``np.round(X, 4)`` in ``Design._calculate_variance``) and its printed
    coefficients too; the scores are therefore scaled by 10^6 (components
    scale by 10^12, exactly, and coefficients not at all) and the
    coefficients read from its own unrounded functions
    (``_calculate_rho_squared``, ``_calculate_phi_squared``) on its own
    variance table and level coefficients."""
    import pandas as pd
    from generalizit import GeneralizIT

    scale = 1e6
    n_u, n_r = x.shape
    frame = pd.DataFrame({"s": np.tile(np.arange(n_r), n_u), "q": np.repeat(np.arange(n_u), n_r),
                          "y": (x * scale).ravel()})
    with contextlib.redirect_stdout(io.StringIO()):
        gt = GeneralizIT(frame, "s x q", "y")
        gt.calculate_anova()
        gt.calculate_g_coefficients()
    d = gt.design
    table = d.anova_table
    var = table.drop("mean", axis=0).drop("mean", axis=1)
    facets = {k: v for k, v in d.variance_tuple_dictionary.items() if k != "mean"}
    with contextlib.redirect_stdout(io.StringIO()):
        rho = d._calculate_rho_squared(var, "s", facets, d.levels_coeffs)
        phi = d._calculate_phi_squared(var, "s", facets, d.levels_coeffs)
    return {"runs": table.loc["s", "Variance"] / scale**2,
            "units": table.loc["q", "Variance"] / scale**2,
            "residual": table.loc["s x q", "Variance"] / scale**2, "erho2": rho, "phi": phi,
            "erho2_printed": d.g_coeffs_table.loc["s", "rho^2"],
            "phi_printed": d.g_coeffs_table.loc["s", "phi^2"]}


# ---------------------------------------------------------------- G-study ----

@needs_data
@pytest.mark.filterwarnings("ignore:The inplace keyword")  # inside generalizit, pandas 3
@pytest.mark.parametrize("name", REAL)
def test_components_and_coefficients_equal_generalizit_and_a_hand_computation(name):
    x = real(name)
    tw = two_way(x)
    comp = components(tw)
    assert comp.schema == pl.Schema(COMPONENT_SCHEMA)
    ours = dict(zip(comp["component"], comp["variance"], strict=True))
    own = d_study(tw).row(0, named=True)
    assert own["n_units"] == x.shape[0]
    hand, peer = hand_gstudy(x), peer_gstudy(x)
    for key in ("runs", "units", "residual"):
        assert ours[key] == pytest.approx(hand[key], rel=1e-9), key
        assert ours[key] == pytest.approx(peer[key], rel=1e-9), key
    for key in ("erho2", "phi"):
        assert own[key] == pytest.approx(hand[key], rel=1e-9), key
        assert own[key] == pytest.approx(peer[key], rel=1e-9), key
        assert own[key] == pytest.approx(peer[f"{key}_printed"], abs=5e-5), key
    assert not comp["set_to_zero"].any()
    assert comp["share"].sum() == pytest.approx(1.0)


def gt4ireval_phi_1(h: dict[str, float], q: float) -> float:
    """The one-unit Phi bound of Arteaga, Jeyaratnam & Graybill (1982) as
    Urbano's gt4ireval writes it (dstudy.R; qf(q, df, Inf) is chi2 / df)."""
    n_u, n_r = h["n_u"], h["n_r"]
    df_r, df_u, df_e = n_r - 1, n_u - 1, (n_r - 1) * (n_u - 1)
    f_inf = stats.chi2.ppf(q, df_r) / df_r
    f_e, f_u = stats.f.ppf(q, df_r, df_e), stats.f.ppf(q, df_r, df_u)
    lq = h["ms_r"] ** 2 - f_inf * h["ms_r"] * h["ms_e"]
    lq = lq + (f_inf - f_e) * f_e * h["ms_e"] ** 2
    lq = lq / ((n_r - 1) * f_inf * h["ms_r"] * h["ms_e"] + f_u * h["ms_r"] * h["ms_u"])
    return n_r * lq / (n_r * lq + n_u)


def test_the_phi_interval_follows_arteaga_et_al_on_a_small_matrix():
    # few units and runs (6 x 5): every term of the interval counts
    x = SYNTHETIC_4.T[:6, :5]
    h = hand_gstudy(x)
    row = d_study(two_way(x), [6, 40], confidence=0.9)
    for q, col in ((0.95, "phi_lower"), (0.05, "phi_upper")):
        phi_1 = gt4ireval_phi_1(h, q)
        want = [n * phi_1 / (1 + (n - 1) * phi_1) for n in (6, 40)]
        assert row[col].to_list() == pytest.approx(want, rel=1e-12)
    # 5 x 4: the lower bound's formula goes below 0; a coefficient's bound stays at 0
    # and the size it implies has no bound
    tiny = SYNTHETIC_4.T[:5, :4]
    assert gt4ireval_phi_1(hand_gstudy(tiny), 0.95) < 0
    assert d_study(two_way(tiny), [5], confidence=0.9)["phi_lower"].to_list() == [0.0]
    assert units_needed(two_way(tiny), confidence=0.9)["n_units_upper"].to_list()[1] is None


@needs_data
@pytest.mark.parametrize("name", REAL)
def test_d_study_sizes_equal_the_closed_form(name):
    x = real(name)
    tw = two_way(x)
    h = hand_gstudy(x)
    need = units_needed(tw, target=0.95)
    assert need.schema == pl.Schema(NEEDED_SCHEMA)
    got = dict(zip(need["coefficient"], need["n_units"], strict=True))
    # the n' with var_runs / (var_runs + noise / n') = 0.95, rounded up
    assert got["erho2"] == math.ceil(0.95 * h["residual"] / (h["runs"] * 0.05))
    assert got["phi"] == math.ceil(0.95 * (h["units"] + h["residual"]) / (h["runs"] * 0.05))
    # the intervals' sizes, as Urbano's gt4ireval computes them (dstudy.R)
    a = 0.025
    n_u, n_r = h["n_u"], h["n_r"]
    df_r, df_e = n_r - 1, (n_r - 1) * (n_u - 1)
    lo_sig = (h["ms_r"] / (h["ms_e"] * stats.f.ppf(1 - a, df_r, df_e)) - 1) / n_u
    hi_sig = (h["ms_r"] / (h["ms_e"] * stats.f.ppf(a, df_r, df_e)) - 1) / n_u
    row = need.row(0, named=True)
    assert row["n_units_upper"] == math.ceil(0.95 / (lo_sig * 0.05))
    assert row["n_units_lower"] == math.ceil(0.95 / (hi_sig * 0.05))
    assert row["at_campaign_lower"] == pytest.approx(n_u * lo_sig / (1 + n_u * lo_sig), rel=1e-12)
    assert row["n_units_lower"] <= row["n_units"] <= row["n_units_upper"]
    phi = need.row(1, named=True)
    assert phi["at_campaign_lower"] <= phi["at_campaign"] <= phi["at_campaign_upper"]
    assert phi["n_units_lower"] <= phi["n_units"] <= phi["n_units_upper"]
    for q, bound, size in ((1 - a, "at_campaign_lower", "n_units_upper"),
                           (a, "at_campaign_upper", "n_units_lower")):
        phi_1 = gt4ireval_phi_1(h, q)
        assert phi[bound] == pytest.approx(n_u * phi_1 / (1 + (n_u - 1) * phi_1), rel=1e-12)
        assert phi[size] == math.ceil(0.95 * (1 - phi_1) / (phi_1 * 0.05))
    # the D-study at other sizes is the same formula
    d = d_study(tw, [1, 10, 500])
    assert d.schema == pl.Schema(D_STUDY_SCHEMA)
    for n, e, p in zip(d["n_units"], d["erho2"], d["phi"], strict=True):
        assert e == pytest.approx(h["runs"] / (h["runs"] + h["residual"] / n), rel=1e-9)
        assert p == pytest.approx(h["runs"] / (h["runs"] + (h["units"] + h["residual"]) / n),
                                  rel=1e-9)


# Brennan (2001), Synthetic Data Set No. 1 (10 persons x 12 items, p x i): the
# components .0574, .0754, .1269 and E(rho^2) = .844, Phi = .773 (the numbers
# GeneralizIT's own tests take from the book).  Persons are the runs here.
SYNTHETIC_1 = [[1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0],
               [1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0], [1, 1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0],
               [1, 1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0], [1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0],
               [1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0], [1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 0],
               [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]]
# Brennan (2001), Synthetic Data Set No. 4 (10 persons x 12 ratings), analysed as
# p x i in Table 6.5: E(rho^2) = .729 with the 80% interval [.541, .876] (Feldt)
# and Phi = .672 with [.457, .845] (Arteaga et al.); gt4ireval's tests check
# the same numbers.  One row per person.
SYNTHETIC_4 = np.array([
    [5, 6, 5, 5, 5, 3, 4, 5, 6, 7, 3, 3], [9, 3, 7, 7, 7, 5, 5, 5, 7, 7, 5, 2],
    [3, 4, 3, 3, 5, 3, 3, 5, 6, 5, 1, 6], [7, 5, 5, 3, 3, 1, 4, 3, 5, 3, 3, 5],
    [9, 2, 9, 7, 7, 7, 3, 7, 2, 7, 5, 3], [3, 4, 3, 5, 3, 3, 6, 3, 4, 5, 1, 2],
    [7, 3, 7, 7, 7, 5, 5, 7, 5, 5, 5, 4], [5, 8, 5, 7, 7, 5, 5, 4, 3, 2, 1, 1],
    [9, 9, 8, 8, 6, 6, 6, 5, 5, 8, 1, 1], [4, 4, 4, 3, 3, 5, 6, 5, 5, 7, 1, 1]], float)


def test_brennans_synthetic_data_give_the_books_numbers():
    tw = two_way(np.array(SYNTHETIC_1, float).T)
    comp = dict(zip(components(tw)["component"], components(tw)["variance"], strict=True))
    assert comp == pytest.approx({"runs": 0.0574, "units": 0.0754, "residual": 0.1269},
                                 abs=5e-5)
    own = d_study(tw).row(0, named=True)
    assert (round(own["erho2"], 3), round(own["phi"], 3)) == (0.844, 0.773)
    table = d_study(two_way(SYNTHETIC_4.T), confidence=0.80).row(0, named=True)
    got = [round(table[k], 3) for k in ("erho2", "erho2_lower", "erho2_upper", "phi",
                                        "phi_lower", "phi_upper")]
    assert got == [0.729, 0.541, 0.876, 0.672, 0.457, 0.845]


def test_a_negative_estimate_is_set_to_zero_and_said():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(40, 6)) + np.linspace(0, 1, 40)[:, None]
    x -= x.mean(axis=0) - 0.5  # every run has the same mean: MS_runs = 0
    tw = two_way(x)
    comp = components(tw).row(0, named=True)
    assert comp["component"] == "runs" and comp["estimate"] < 0
    assert comp["variance"] == 0.0 and comp["set_to_zero"]
    need = units_needed(tw)
    assert need["n_units"].to_list() == [None, None]
    assert need["at_campaign"].to_list() == [0.0, 0.0]
    assert d_study(tw, [10])["erho2"].to_list() == [0.0]


def test_the_passes_in_chunks_give_the_same_numbers(monkeypatch):
    rng = np.random.default_rng(3)
    x = (rng.random((300, 40)) < np.linspace(0.1, 0.9, 40)).astype(float)
    units = [f"q{i}" for i in range(300)]
    whole_tw, whole_items = two_way(x), item_statistics(x, units)
    monkeypatch.setattr(design_common, "CHUNK_CELLS", 1)  # one row at a time
    assert two_way(x).ss_residual == pytest.approx(whole_tw.ss_residual, rel=1e-12)
    chunked = item_statistics(x, units)
    assert chunked.drop("discrimination").equals(whole_items.drop("discrimination"))
    assert np.allclose(chunked["discrimination"].to_numpy(),
                       whole_items["discrimination"].to_numpy(), rtol=1e-12, equal_nan=True)


# -------------------------------------------------------- topic set sizes ----

def statsmodels_sizes(min_diff, variance, n_runs, alpha, power):
    from statsmodels.stats.power import FTestAnovaPower, TTestPower

    d = min_diff / math.sqrt(2 * variance)
    f = math.sqrt(min_diff**2 / (2 * variance) / n_runs)
    n_t = TTestPower().solve_power(effect_size=d, alpha=alpha, power=power)
    nobs = FTestAnovaPower().solve_power(effect_size=f, alpha=alpha, power=power,
                                         k_groups=n_runs)
    return math.ceil(n_t), math.ceil(nobs / n_runs)


def hand_ci_size(width, variance, alpha):
    """Sakai's CI requirement, first n from 2 up: 2 t_{1-alpha/2; n-1} E[s] / sqrt(n)
    <= width, with E[s] = sigma_t sqrt(2/(n-1)) Gamma(n/2) / Gamma((n-1)/2)."""
    sigma_t = math.sqrt(2 * variance)
    n = 2
    while True:
        e_s = sigma_t * math.sqrt(2 / (n - 1)) * math.exp(math.lgamma(n / 2)
                                                          - math.lgamma((n - 1) / 2))
        if 2 * stats.t.ppf(1 - alpha / 2, n - 1) * e_s / math.sqrt(n) <= width:
            return n
        n += 1


@needs_data
@pytest.mark.parametrize("name", REAL)
@pytest.mark.parametrize(("min_diff", "alpha", "power"),
                         [(0.05, 0.05, 0.80), (0.10, 0.01, 0.90), (0.08, 0.05, 0.70)])
def test_topic_set_sizes_equal_statsmodels_and_the_ci_closed_form(name, min_diff, alpha, power):
    tw = two_way(real(name))
    v_e = tw.ms_residual
    sizes = topic_set_sizes(v_e, tw.n_runs, min_diff, alpha=alpha, power=power)
    assert sizes.schema == pl.Schema(SIZE_SCHEMA)
    got = dict(zip(sizes["method"], sizes["n_units"], strict=True))
    assert (got["t-test"], got["anova"]) == statsmodels_sizes(min_diff, v_e, tw.n_runs, alpha,
                                                              power)
    assert got["ci"] == hand_ci_size(min_diff, v_e, alpha)
    achieved = dict(zip(sizes["method"], sizes["achieved"], strict=True))
    assert achieved["t-test"] >= power and achieved["anova"] >= power
    assert achieved["ci"] <= min_diff


@pytest.mark.parametrize(("min_diff", "variance", "n_runs"),
                         [(0.02, 0.05, 30), (0.3, 0.01, 5), (1.5, 0.1, 10), (0.2, 0.04, 2)])
def test_sizes_equal_statsmodels_from_small_to_large(min_diff, variance, n_runs):
    assert (t_test_size(min_diff, variance), anova_size(min_diff, variance, n_runs)) == \
        statsmodels_sizes(min_diff, variance, n_runs, 0.05, 0.80)
    assert ci_size(min_diff, variance) == hand_ci_size(min_diff, variance, 0.05)


@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.2])
def test_power_is_a_probability_for_any_effect_size(alpha):
    # SciPy's noncentral t gives NaN in its far lower tail (df 29, noncentrality
    # 10) and both noncentral distributions give NaN for huge noncentralities;
    # the powers stay probabilities, grow with the effect, equal the direct
    # formula wherever that is finite, and are 1 where the tails underflow
    effects = np.concatenate([np.linspace(0.0, 30.0, 121), np.geomspace(30.0, 1e15, 30)])
    for n in (2, 3, 5, 30, 200, 5000):
        crit = float(stats.t.ppf(1.0 - alpha / 2.0, n - 1.0))
        t_power = [t_test_power(n, e, alpha) for e in effects]
        f_power = [anova_power(n, 4, e * e, alpha) for e in effects]
        for p in (t_power, f_power):
            assert all(0.0 <= x <= 1.0 for x in p), n
            assert all(b >= a - 1e-12 for a, b in zip(p, p[1:], strict=False)), n
        assert t_power[-1] == 1.0 and f_power[-1] == 1.0
        for e, got in zip(effects, t_power, strict=True):
            nc = math.sqrt(n) * e
            direct = float(stats.nct.sf(crit, n - 1.0, nc) + stats.nct.cdf(-crit, n - 1.0, nc))
            if math.isfinite(direct):
                assert got == direct, (n, e)
    assert t_test_power(30, -0.5, alpha) == t_test_power(30, 0.5, alpha)


def test_a_published_sample_size():
    # Cohen (1988), Statistical Power Analysis for the Behavioral Sciences,
    # chapter 8's tables: one-way ANOVA over 4 groups, f = .25, alpha .05, power
    # .80 -> n = 45 per group.  Sakai's Delta = min_range^2 / (2 sigma^2) is
    # m f^2 = 0.25 with sigma^2 = 1 and min_range = sqrt(0.5).
    assert anova_size(math.sqrt(0.5), 1.0, 4) == 45


def test_the_three_difference_parameters_are_separate():
    sizes = topic_set_sizes(0.05, 20, 0.1, min_range=0.2, ci_width=0.3, alpha=0.01, power=0.9)
    assert sizes["difference"].to_list() == [0.1, 0.2, 0.3]
    assert sizes["n_units"].to_list() == [t_test_size(0.1, 0.05, 0.01, 0.9),
                                          anova_size(0.2, 0.05, 20, 0.01, 0.9),
                                          ci_size(0.3, 0.05, 0.01)]


# --------------------------------------------------------- swap method ----

def swap_fits():
    """Fits of swap counts drawn exactly from e(c) = a_b exp(-b_b c) per bin."""
    sizes = np.arange(21, 101, 4)
    rows = []
    curves = {0: (0.4, 0.005), 1: (0.3, 0.02), 2: (0.2, 0.04), 3: (0.1, 0.08)}
    for b_i, (a, b) in curves.items():
        for c in sizes:
            n = 4000
            rows.append({"size": int(c), "bin": b_i, "swaps": round(n * a * math.exp(-b * c)),
                         "comparisons": n})
    counts = pl.DataFrame(rows)
    return fit_bins(counts, full_size=100, level=0.05, fitted_bins=(0.01, 0.03))


def test_swap_size_reads_the_bin_holding_the_difference():
    fits = swap_fits()
    # a difference a rounding below an edge (0.03 - 1e-13) is read as the edge
    for d, b_i in [(0.01, 1), (0.015, 1), (0.0299, 2), (0.02, 2), (0.0299999999999, 3),
                   (0.5, 3)]:
        row = swap_size(fits, d, level=0.05).row(0, named=True)
        assert row["bin"] == b_i
        fit = fits.filter(pl.col("bin") == b_i).row(0, named=True)
        # the same size the fits hold at their level, and the hand form
        assert row["n_units"] == fit["size_at_level"]
        assert row["n_units"] == math.ceil(math.log(fit["a"] / 0.05) / fit["b"])
    assert swap_size(fits, 0.02).schema == pl.Schema(SWAP_SIZE_SCHEMA)
    at_1 = swap_size(fits, 0.02, level=0.01).row(0, named=True)
    assert at_1["n_units"] == math.ceil(math.log(at_1["a"] / 0.01) / at_1["b"])
    outside = swap_size(fits, 0.005).row(0, named=True)
    assert outside["n_units"] is None and "outside the fitted bins" in outside["reason"]
    curve = swap_error_curve(fits, 0.02, [10, 100])
    fit = fits.filter(pl.col("bin") == 2).row(0, named=True)
    assert curve["error"].to_list() == pytest.approx(
        [fit["a"] * math.exp(-fit["b"] * c) for c in (10, 100)])
    assert swap_error_curve(fits, 0.005, [10]).height == 0


# ---------------------------------------------------------- item analysis ----

# 6 questions (rows) x 5 runs (columns), runs from strongest to weakest
ITEMS = np.array([
    [1, 1, 1, 1, 1],  # q1: every run right
    [0, 0, 0, 0, 0],  # q2: no run right
    [1, 1, 0, 0, 0],  # q3: the two strongest runs right
    [1, 1, 1, 0, 0],  # q4: the three strongest runs right
    [0, 1, 0, 0, 0],  # q5: one strong run right
    [1, 0, 0, 1, 0],  # q6: a weak run right where a strong one fails: negative
], float)
# Run totals T = (4, 4, 2, 2, 1); the rest score of q is T - q.  Deviations
# from the means over the 5 runs, sums of products and squares:
#   q3: x - .4 = (.6,.6,-.4,-.4,-.4), rest (3,3,2,2,1) - 2.2 = (.8,.8,-.2,-.2,-1.2):
#       cov 1.6, var 1.2 and 2.8 -> r = 1.6 / sqrt(3.36)
#   q4: x - .6 = (.4,.4,.4,-.6,-.6), rest (3,3,1,2,1) - 2 = (1,1,-1,0,-1):
#       cov 1.0, var 1.2 and 4 -> r = 1 / sqrt(4.8)
#   q5: x - .2 = (-.2,.8,-.2,-.2,-.2), rest (4,3,2,2,1) - 2.4 = (1.6,.6,-.4,-.4,-1.4):
#       cov 0.6, var 0.8 and 5.2 -> r = 0.6 / sqrt(4.16)
#   q6: x - .4 = (.6,-.4,-.4,.6,-.4), rest (3,4,2,1,1) - 2.2 = (.8,1.8,-.2,-1.2,-1.2):
#       cov -0.4, var 1.2 and 6.8 -> r = -0.4 / sqrt(8.16)
#   q1, q2: constant values, no correlation
HAND = {"q1": None, "q2": None, "q3": 1.6 / math.sqrt(3.36), "q4": 1 / math.sqrt(4.8),
        "q5": 0.6 / math.sqrt(4.16), "q6": -0.4 / math.sqrt(8.16)}


def test_item_statistics_equal_a_hand_computation_with_every_flag():
    units = [f"q{i}" for i in range(1, 7)]
    items = item_statistics(ITEMS, units)
    assert items.schema == pl.Schema(ITEM_SCHEMA)
    got = dict(zip(items["unit"], items["discrimination"], strict=True))
    for unit, want in HAND.items():
        if want is None:
            assert got[unit] is None, unit
        else:
            assert got[unit] == pytest.approx(want, rel=1e-12), unit
            # the point-biserial correlation of scipy on the same rest scores
            row = ITEMS[units.index(unit)]
            assert got[unit] == pytest.approx(
                stats.pointbiserialr(row.astype(bool), ITEMS.sum(axis=0) - row)[0], rel=1e-12)
    assert items["difficulty"].to_list() == [1.0, 0.0, 0.4, 0.6, 0.2, 0.4]
    assert items["n_right"].to_list() == [5, 0, 2, 3, 1, 2]
    assert items["flag"].to_list() == ["every run right", "no run right", None, None, None,
                                       "negative discrimination"]
    assert items["negative_discrimination"].to_list() == [False] * 5 + [True]
    assert items["no_run_right"].to_list() == [False, True] + [False] * 4
    assert items["every_run_right"].to_list() == [True] + [False] * 5
    assert flagged(items)["unit"].to_list() == ["q6", "q2", "q1"]


def test_graded_values_and_full_credit():
    values = np.array([[1.0, 0.5, 0.2, 0.0], [0.9, 0.9, 0.1, 0.0], [1.0, 1.0, 1.0, 0.0]])
    items = item_statistics(values, ["a", "b", "c"])
    assert items["n_right"].to_list() == [1, 0, 3]
    assert items["mean_value"].to_list() == pytest.approx([0.425, 0.475, 0.75])
    assert item_statistics(values, ["a", "b", "c"], right_at=0.5)["n_right"].to_list() \
        == [2, 2, 3]
    assert items["discrimination"].to_list()[0] == pytest.approx(
        np.corrcoef(values[0], values[1:].sum(axis=0))[0, 1], rel=1e-12)


def test_item_statistics_on_a_campaign_matrix():
    outcomes = pl.DataFrame({
        "judgment_set": "official", "run": ["r1", "r2", "r3"] * 2, "qid": ["1"] * 3 + ["2"] * 3,
        "rank": pl.Series([None] * 6, dtype=pl.Int32), "answered": [True] * 6,
        "outcome": ["R", "W", "R", "W", "W", "W"]})
    m = from_outcomes(outcomes, "accuracy")
    items = item_statistics(unit_values(m), m.units)
    assert items["n_right"].to_list() == [2, 0]
    assert items["flag"].to_list() == [None, "no run right"]


# ------------------------------------------------------------- bad input ----

@pytest.mark.parametrize(("call", "message"), [
    (lambda: two_way([1.0, 2.0]), "expected a 2-D array shaped (n_units, n_runs)"),
    (lambda: two_way([[1.0, 2.0]]), "1 unit(s) x 2 run(s); this analysis needs at least 2 units"),
    (lambda: two_way([[1.0, float("nan")], [0.0, 1.0]]),
     "the value of unit (row) 0, run (column) 1 is nan, not a finite number"),
    (lambda: two_way([["a", "b"], ["c", "d"]]), "expected a 2-D array of numbers"),
    (lambda: two_way(np.ones((3, 4))), "no residual variance"),
    (lambda: d_study(two_way(SYNTHETIC_4.T), confidence=1.0),
     "confidence: 1.0 is not a finite number in (0, 1)"),
    (lambda: d_study(two_way(SYNTHETIC_4.T), sizes=[0]), "sizes: 0 is not an integer in [1,"),
    (lambda: d_study(two_way(SYNTHETIC_4.T), sizes=[]), "sizes: give at least one"),
    (lambda: units_needed(two_way(SYNTHETIC_4.T), target=1), "target: 1 is not a finite number"),
    (lambda: t_test_size(0.05, 0.0), "variance: 0.0 is not a finite number > 0"),
    (lambda: t_test_size(-0.1, 0.1), "min_diff: -0.1 is not a finite number > 0"),
    (lambda: t_test_size(0.1, 0.1, alpha=0.2, power=0.1), "power: 0.1 must be above alpha"),
    (lambda: anova_size(0.1, 0.1, 1), "n_runs: 1 is not an integer >= 2"),
    (lambda: ci_size(0.1, 0.1, alpha=1.5), "alpha: 1.5 is not a finite number in (0, 1)"),
    (lambda: topic_set_sizes(0.1, 5, 0.1, ci_width=float("inf")), "ci_width: inf is not"),
    (lambda: item_statistics(np.eye(3)[:, :2], ["a", "b", "c"]),
     "this analysis needs at least 2 units (rows) and 3 runs"),
    (lambda: item_statistics(ITEMS, ["a", "b"]), "units: expected 6 names"),
    (lambda: item_statistics(ITEMS, list("aabcde")), "units: the names are not unique"),
    (lambda: swap_size(pl.DataFrame({"bin": [0]}), 0.05), "swap fits lack columns"),
    (lambda: swap_size(swap_fits(), -0.01), "difference: -0.01 is not a finite number >= 0"),
    (lambda: swap_size(swap_fits(), 0.05, level=0), "level: 0 is not a finite number in (0, 1)"),
])
def test_bad_arguments_are_usage_errors(call, message):
    with pytest.raises(UsageError) as err:
        call()
    assert message in str(err.value)


def test_a_measure_without_per_unit_values_is_refused_by_name():
    outcomes = pl.DataFrame({
        "judgment_set": "official", "run": ["r1", "r2"] * 2, "qid": ["1", "1", "2", "2"],
        "rank": pl.Series([None] * 4, dtype=pl.Int32), "answered": [True, False, True, True],
        "outcome": ["R", "UW", "W", "R"]})
    with pytest.raises(UsageError, match="measure 'c_at_1' is not a mean of per-unit values"):
        unit_values(from_outcomes(outcomes, "c_at_1"))


# ------------------------------------------------------------- benchmark ----

@pytest.mark.filterwarnings("ignore:The inplace keyword")
def test_the_benchmark_runs_small_and_its_peers_agree(capsys):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_design
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    out = bench_design.main(["--tiny", "--repeat", "1"])
    assert out["bad"] == []
    assert "peers agree: yes" in capsys.readouterr().out
    # the check can fail: a wrong size is reported
    out["statsmodels"]["t-test"] += 1
    assert bench_design.check(out["qacamp"], out["generalizit"], out["statsmodels"],
                              out["loop"]) == [
        f"t-test size: qacamp {out['statsmodels']['t-test'] - 1}, statsmodels "
        f"{out['statsmodels']['t-test']}"]
