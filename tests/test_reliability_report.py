"""The swap-summary (c@1 paper Table 2), Kendall and equivalence tables and the
swap-curve figure say how their numbers were obtained."""

from __future__ import annotations

import polars as pl
import pytest
from matplotlib.text import Text
from test_reliability_fits import mean_matrix, table2_counts, voorhees_2005_counts

from qacamp.reliability import campaign_level as extras
from qacamp.reliability import fit_swap, tau_table
from qacamp.report import tables as T
from qacamp.report.figures import swap_curves_figure
from qacamp.report.markdown import to_markdown


def summaries():
    m = mean_matrix([[0.1 * j] * 500 for j in range(8)])   # 8 runs: weak evidence
    ext = fit_swap(voorhees_2005_counts(), 64, min_fit_size=5, matrix=mean_matrix(
        [[0.1 * j] * 64 for j in range(10)]), measure="series_score")
    obs = fit_swap(table2_counts(9, 0.584), 500, matrix=m, measure="c_at_1", mode="observed",
                   observed_at=250)
    return ext, obs


def test_extrapolated_table_names_the_fitting_method():
    (_, ext), _ = summaries()
    t = T.swap_summary_table([ext])
    assert "a exp(-b c) fitted by binomial maximum likelihood" in t.full_caption
    assert "on subset sizes >= 5" in t.full_caption and "extrapolated to the full collection" in t.full_caption
    assert "lower edge of the first difference bin" in t.full_caption
    assert [c.header for c in t.columns][2] == "Full size"
    row = t.frame.row(0, named=True)
    assert (row["required_difference"], row["size"], row["size_reached"]) == (0.05, 64, 47)
    assert t.notes == ("A dash in (i): the error level is not reached.",)


def test_observed_table_says_so_and_footnotes_weak_evidence():
    _, (_, obs) = summaries()
    t = T.swap_summary_table([obs])
    assert "observed at subsets of c = 250, no extrapolation" in t.full_caption
    assert "share of the experiment's comparisons at c" in t.full_caption
    assert [c.header for c in t.columns][2] == "Subset size c"
    assert "Size reaching level" not in [c.header for c in t.columns]
    assert any(n.startswith("Weak evidence (c@1): only 8 runs (28 pairs)") for n in t.notes)
    md = to_markdown(t)
    assert "| c@1 | 5.0 | 250 | 0.09 | 0.700 | 12.9 | 58.4 | 100000 |" in md


def test_mixed_modes_get_a_mode_column():
    (_, ext), (_, obs) = summaries()
    t = T.swap_summary_table([ext, obs])
    assert [c.key for c in t.columns][:2] == ["measure", "mode"]
    assert "Mode extrapolate:" in t.full_caption and "Mode observed:" in t.full_caption


def test_kendall_table_names_variant_and_tied_pairs():
    long = pl.DataFrame({"ranking": ["x"] * 4 + ["y"] * 4, "run": list("abcd") * 2,
                         "score": [0.5, 0.5, 0.3, 0.1, 0.4, 0.2, 0.2, 0.2]})
    t = T.kendall_table(tau_table(long, variant="tau_a"))
    assert ("tau_a: (concordant - discordant pairs) / pairs, a pair tied in either ranking "
            "counting 0") in t.caption and "independent of run names" in t.caption
    # by hand: pairs ab (tied in x) cd bc bd (tied in y) count 0; ac ad concordant
    assert t.frame.row(0, named=True)["tau"] == pytest.approx(2 / 6)
    assert [c.header for c in t.columns][-2:] == ["Tied pairs (a)", "Tied pairs (b)"]
    assert t.frame.row(0, named=True)["tied_pairs_b"] == 3
    tb = T.kendall_table(tau_table(long))  # the default
    assert "tau_b: tied pairs left out of the denominator" in tb.caption
    # 2 / sqrt((6 - 1) (6 - 3))
    assert tb.frame.row(0, named=True)["tau"] == pytest.approx(2 / 15 ** 0.5)
    tn = T.kendall_table(tau_table(long, variant="tau_a_by_name"))
    assert "tied runs ordered by run name" in tn.caption


def test_letters_table_says_which_criterion():
    runs = pl.DataFrame({"judgment_set": "adj", "run": ["a", "b", "c"], "measure": "cws",
                         "scope": "all", "unit": "all", "value": [0.50, 0.46, 0.40]})
    eq = extras.equivalence_frame(runs, "cws", "adj", 0.05)
    t = T.letters_table({"cws": eq})
    assert any("required difference 0.05" in n for n in t.notes)
    assert t.frame["letters_swap"].to_list() == ["a", "a", "b"]   # .04 < .05; .10 >= .05
    assert t.frame["n_swap"].to_list() == [1, 1, 0]


@pytest.mark.parametrize("mode", ["extrapolate", "observed"])
def test_swap_figure_title_and_no_method_note(mode):
    """The figure says what is read in its title; how the curves were fitted is
    said once, by the page's section and the summary table, not in the figure."""
    counts = voorhees_2005_counts()
    kw = {"mode": "observed", "observed_at": 32} if mode == "observed" else {}
    fits, summary = fit_swap(counts, 64, min_fit_size=5, matrix=mean_matrix(
        [[0.1 * j] * 64 for j in range(4)]), **kw)
    fig = swap_curves_figure(counts, fits, "series_score", 64, unit="series",
                             required_difference=summary["required_difference"][0],
                             summary=summary)
    assert fig._supxlabel is None  # no footnote
    texts = " ".join(t.get_text() for t in fig.findobj(Text))
    assert "fitted by binomial maximum likelihood" not in texts and "Weak evidence" not in texts
    # 4 runs: below the weak-evidence threshold, the title says no required
    # difference is estimated
    title = fig.axes[0].get_title()
    assert "too few runs (4) to estimate a required difference" in title
    assert "needed" not in title
    assert "Swap method, series score:" in title  # the registry's label, not series_score
    if mode == "observed":
        assert "error rate by score difference d" in title and "at c = 32" in title


def test_observed_swap_figure_reads_table_2_at_c():
    """One subset size (c = 250, the c@1 paper's experiment): the figure is the
    error rate against the score difference at c, not points on a line at x = c.
    Counts by hand: bins 0-4 err 10/20, 6/20, 4/20, 3/20, 2/20, bin 5 1/20 (= 5%,
    the deciding bin), bin 6 0/20, bin 20 (d >= 0.20) 1/40."""
    swaps = {0: 10, 1: 6, 2: 4, 3: 3, 4: 2, 5: 1, 6: 0, 20: 1}
    comps = {**dict.fromkeys(range(7), 20), 20: 40}
    counts = pl.DataFrame({"size": [250] * 8, "bin": list(swaps), "swaps": list(swaps.values()),
                           "comparisons": [comps[b] for b in swaps]},
                          schema={"size": pl.Int64, "bin": pl.Int64, "swaps": pl.Int64,
                                  "comparisons": pl.Int64})
    fits, summary = fit_swap(counts, 500, mode="observed", observed_at=250, min_comparisons=5)
    assert summary["required_difference"][0] == 0.05 and summary["required_bin"][0] == 5
    fig = swap_curves_figure(counts, fits, "c_at_1", 500, summary=summary)
    ax = fig.axes[0]
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    rates = lines["swap rate\n(swaps / comparisons)"]
    assert rates.get_xdata().tolist() == pytest.approx([0, .01, .02, .03, .04, .05, .06, .2])
    assert rates.get_ydata().tolist() == pytest.approx(
        [.5, .3, .2, .15, .1, .05, 0, .025])
    assert list(lines["5% error level"].get_ydata()) == [0.05, 0.05]
    deciding = [ln for name, ln in lines.items() if name.endswith("(decides)")]
    assert len(deciding) == 1 and deciding[0].get_xdata().tolist() == [0.05]
    assert deciding[0].get_label() == "0.05 \u2264 d < 0.06 (decides)"
    assert [t.get_text() for t in ax.texts] == ["decides: d \u2265 0.05 (error 5.0%)"]
    assert ax.get_xlim()[1] < 1 and "Score difference d" in ax.get_xlabel()
    assert "at c = 250 questions: d \u2265 0.05 needed" in ax.get_title()
