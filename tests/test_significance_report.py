"""The significance part of the report: the p-value heatmap at any number of
runs (names on both axes, one triangle, no markers repeating the colour, runs
by score), the sentence and table of differences with their intervals and
effect sizes, and the comparison tables (runs a run beats, markers against a
baseline) in Markdown, LaTeX and HTML."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from qacamp.reliability.matrix import ScoreMatrix
from qacamp.reliability.significance import significance_test
from qacamp.reliability.significance.baseline import baseline_comparison
from qacamp.report import comparison as C
from qacamp.report.figures.significance import MIN_FONT, significance_matrix_figure
from qacamp.report.sections.significance import difference_sentence
from qacamp.report.tables.significance import adjacent_table, significance_table


def matrix(runs: int, units: int = 40, seed: int = 0) -> ScoreMatrix:
    rng = np.random.default_rng(seed)
    v = np.clip(rng.random((units, runs)) * 0.4 + np.linspace(0.6, 0.0, runs), 0, 1)
    names = tuple(f"team{k:02d}-run{'abc'[k % 3]}" for k in range(runs))
    return ScoreMatrix(tuple(f"q{i}" for i in range(units)), names, values=v, measure="m")


def by_score(m: ScoreMatrix) -> list[str]:
    return [m.runs[i] for i in np.lexsort((np.array(m.runs), -m.full_scores()))]


@pytest.mark.parametrize("runs", [4, 24, 91])
def test_heatmap_names_every_run_on_both_axes_in_one_triangle_without_dots(runs):
    m = matrix(runs)
    pairs, summary = significance_test(m, "t-test")
    order = by_score(m)
    fig = significance_matrix_figure(pairs, order, "m", summary.row(0, named=True))
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == order[:-1]
    assert [t.get_text() for t in ax.get_yticklabels()] == order[1:]
    assert not ax.collections  # no scatter of dots over the colours
    grid = ax.images[0].get_array()
    upper = np.triu(np.ones(grid.shape, bool), k=1)
    assert grid.mask[upper].all() and not grid.mask[~upper].any()  # one triangle, full
    # row i, column j: the pair of the (i+1)-th and j-th best runs
    p = dict(((a, b), q) for a, b, q in pairs.select("run_a", "run_b", "p_adjusted").iter_rows())
    i, j = grid.shape[0] - 1, 0
    key = (order[i + 1], order[j]) if (order[i + 1], order[j]) in p else (order[j], order[i + 1])
    assert grid[i, j] == p[key]
    # the names' font fits a cell and is never below the floor
    height_pt = ax.get_window_extent().height / fig.dpi * 72 / (runs - 1)
    font = ax.get_yticklabels()[0].get_fontsize()
    assert MIN_FONT <= font <= height_pt + 1e-9


def test_difference_sentence_and_adjacent_table_carry_intervals_and_effect_sizes():
    m = matrix(5, units=30, seed=2)
    pairs, summary = significance_test(m, "t-test")
    row = summary.row(0, named=True)
    order = by_score(m)
    text = difference_sentence("m", pairs, order, row, 3)
    top = pairs.filter(((pl.col("run_a") == order[0]) & (pl.col("run_b") == order[1]))
                       | ((pl.col("run_a") == order[1]) & (pl.col("run_b") == order[0]))).row(
        0, named=True)
    sign = 1 if top["run_a"] == order[0] else -1
    lo, hi = sorted((sign * top["ci_lower"], sign * top["ci_upper"]))
    assert text == (f"In m, the best run, {order[0]}, leads the second, {order[1]}, by "
                    f"{sign * top['diff']:.3f} (95% CI {lo:.3f} to {hi:.3f}, t interval of the "
                    f"mean difference, per pair; effect size {sign * top['effect_size']:.2f}): "
                    f"{'significant' if top['significant'] else 'not significant'} by the paired "
                    f"t-test (adjusted p = {top['p_adjusted']:.3g}).")
    t = adjacent_table({"m": pairs}, {"m": order}, {"m": row})
    assert t.frame["run"].to_list() == order[:-1] and t.frame["next"].to_list() == order[1:]
    assert (t.frame["lower"] <= t.frame["diff"]).all() and (t.frame["diff"] <= t.frame["upper"]).all()
    assert [c.header for c in t.columns][4:7] == ["95% CI low", "95% CI high", "Effect size"]
    assert t.notes == ("The paired t-test (m): 95% intervals by t interval of the mean "
                       "difference (per pair); effect size = difference / standard deviation of "
                       "the per-unit differences of the per-unit scores.",)
    s = significance_table({"m": summary})
    assert t.notes[0] in s.notes


def test_beats_table_lists_the_runs_each_run_beats_and_escapes_names():
    pairs = pl.DataFrame({"run_a": ["x<y>", "x<y>", "b|c"], "run_b": ["b|c", "z_", "z_"],
                          "diff": [0.2, 0.3, 0.1], "significant": [True, True, False]})
    scores = pl.DataFrame({"run": ["x<y>", "b|c", "z_"], "score": [0.5, 0.3, 0.2]})
    f = C.beats_frame(pairs, scores)
    assert f.select("label", "run", "marks").rows() == [("a", "x<y>", "bc"), ("b", "b|c", ""),
                                                        ("c", "z_", "")]
    md = C.to_markdown(f, "MAP", "Runs", [C.beats_note(0.05, "the paired t-test")])
    assert "| a | x&lt;y&gt; | 0.500<sup>bc</sup> |" in md and "| b | b\\|c | 0.300 |" in md
    tex = C.to_latex(f, "MAP")
    assert r"a & x\textless{}y\textgreater{} & 0.500$^{\mathrm{bc}}$ \\" in tex
    assert r"c & z\_ & 0.200 \\" in tex
    page = C.to_html(f, "MAP")
    assert '<td>x&lt;y&gt;</td><td class="num">0.500<sup>bc</sup></td>' in page
    # past 52 runs the labels are a letter and an index
    many = pl.DataFrame({"run": [f"r{k:02d}" for k in range(60)],
                         "score": np.linspace(1, 0, 60)})
    labels = C.beats_frame(pairs.head(0), many)["label"].to_list()
    assert labels[:2] == ["a1", "b1"] and labels[52] == "a2" and len(set(labels)) == 60


def test_baseline_table_marks_runs_better_and_worse_than_the_baseline():
    rng = np.random.default_rng(5)
    v = rng.random((40, 4)) * 0.2 + np.array([0.5, 0.3, 0.31, 0.1])
    m = ScoreMatrix(tuple(f"q{i}" for i in range(40)), ("best", "base", "same", "worst"),
                    values=v, measure="m")
    out = baseline_comparison(m, "base", "t-test")
    f = C.baseline_frame(out)
    assert sorted(f.select("run", "marks", "baseline").rows()) == [
        ("base", "", True), ("best", "+", False), ("same", "", False), ("worst", "-", False)]
    assert f["score"].to_list() == sorted(f["score"].to_list(), reverse=True)
    md = C.to_markdown(f, "Score", notes=[C.baseline_note("base", 0.05, "the paired t-test")])
    assert "<sup>+</sup>" in md and "<sup>\u2212</sup>" in md and "base (baseline)" in md
    tex = C.to_latex(f, "Score", notes=[C.baseline_note("base", 0.05, "the paired t-test")])
    assert r"$^{\mathrm{-}}$" in tex and "\u2212" not in tex
    assert "<em>(baseline)</em>" in C.to_html(f, "Score")
