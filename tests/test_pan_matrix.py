"""The PAN score matrix (aggregator "pan"): subset scores recomputed as PAN's
evaluator computes them, equal to the scalar functions (which equal the
official evaluators, tests/test_pan_differential.py), shard- and
block-independent, and usable by the swap, stability and bootstrap-style
resampling."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from qacamp.errors import UsageError
from qacamp.measures import pan, pan_frames
from qacamp.reliability import matrix as matrix_mod
from qacamp.reliability.builders import from_pan
from qacamp.reliability.matrix import ScoreMatrix
from qacamp.reliability.stability import merge_stability_counts, stability_counts
from qacamp.reliability.swap import merge_swap, swap_counts

EDITION_OF = {"auc": None, "c_at_1": None, "f_05_u": None, "f1": None, "brier": None,
              "overall": "2022"}


def campaign(seed: int = 0, n: int = 120, runs: int = 6, decimals: int = 2):
    """Values on a coarse grid (ties), non-answers, truth of both classes."""
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < 0.5
    skill = rng.uniform(0.0, 0.4, runs)
    values = np.clip(np.where(truth[:, None], 0.5 + skill, 0.5 - skill)
                     + rng.normal(0, 0.3, (n, runs)), 0, 1).round(decimals)
    values[rng.random((n, runs)) < 0.1] = 0.5
    return values, truth


def pan_matrix(values, truth, measure, edition=None):
    n, r = values.shape
    return ScoreMatrix(tuple(f"p{i}" for i in range(n)), tuple(f"run{j}" for j in range(r)),
                       "pan", values=values, truth=truth, measure=measure, edition=edition)


def scalar(values, truth, idx, measure, edition):
    """The measure of every run on the problems ``idx``, one run at a time."""
    return np.array([pan.evaluate(values[idx, r], truth[idx], (measure,), edition)[measure]
                     for r in range(values.shape[1])])


@pytest.mark.parametrize("measure", pan.ARRAY_MEASURES)
def test_subset_scores_equal_scalar_functions(measure):
    values, truth = campaign(1)
    rng = np.random.default_rng(2)
    editions = ("2014", "2020", "2022") if measure == "overall" else (None,)
    for edition in editions:
        m = pan_matrix(values, truth, measure, edition)
        for c in (1, 2, 7, 60):
            idx = np.stack([rng.permutation(len(truth))[:c] for _ in range(25)])
            got = m.subset_scores(idx)
            want = np.stack([scalar(values, truth, row, measure, edition) for row in idx])
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
            # the per-pair pairing: pair p scores run cols[p] on its own subset
            cols = rng.integers(0, values.shape[1], 4)
            pidx = np.stack([np.stack([rng.permutation(len(truth))[:c] for _ in cols])
                             for _ in range(5)])
            pair = m.pair_subset_scores(pidx, cols)
            for k in range(5):
                for p, col in enumerate(cols):
                    assert pair[k, p] == pytest.approx(
                        scalar(values, truth, pidx[k, p], measure, edition)[col], abs=1e-12)
        full = pan.evaluate(values.T, truth, (measure,), edition)[measure]
        np.testing.assert_allclose(m.full_scores(), full, rtol=0, atol=1e-12)


def test_bootstrap_samples_repeat_units():
    values, truth = campaign(3, n=40)
    rng = np.random.default_rng(4)
    idx = rng.integers(0, 40, (20, 40))  # drawn with replacement
    for measure, edition in EDITION_OF.items():
        got = pan_matrix(values, truth, measure, edition).subset_scores(idx)
        want = np.stack([scalar(values, truth, row, measure, edition) for row in idx])
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_single_class_subset_ties_every_run():
    values, truth = campaign(5, n=30)
    m = pan_matrix(values, truth, "auc")
    idx = np.flatnonzero(truth)[None, :5]
    np.testing.assert_array_equal(m.subset_scores(idx), np.zeros((1, values.shape[1])))


def test_results_do_not_depend_on_blocking(monkeypatch):
    values, truth = campaign(6, n=90)
    rng = np.random.default_rng(7)
    idx = np.stack([rng.permutation(90)[:30] for _ in range(40)])
    pidx = np.stack([np.stack([rng.permutation(90)[:30] for _ in range(15)]) for _ in range(6)])
    cols = np.arange(15) % values.shape[1]
    whole = {}
    for measure, edition in EDITION_OF.items():
        m = pan_matrix(values, truth, measure, edition)
        whole[measure] = (m.subset_scores(idx), m.pair_subset_scores(pidx, cols))
    monkeypatch.setattr(matrix_mod, "PAN_BLOCK", 200)  # a few rows per block
    for measure, edition in EDITION_OF.items():
        m = pan_matrix(values, truth, measure, edition)
        np.testing.assert_array_equal(m.subset_scores(idx), whole[measure][0])
        np.testing.assert_array_equal(m.pair_subset_scores(pidx, cols), whole[measure][1])
        # one subset at a time, as a shard with one trial would
        np.testing.assert_array_equal(np.concatenate([m.subset_scores(idx[k:k + 1])
                                                      for k in range(len(idx))]), whole[measure][0])


@pytest.mark.parametrize("measure, pairing", [("overall", "shared"), ("auc", "shared"),
                                              ("auc", "per-pair"), ("f_05_u", "shared")])
def test_swap_counts_independent_of_shards(measure, pairing):
    values, truth = campaign(8, n=100)
    m = pan_matrix(values, truth, measure, EDITION_OF[measure])
    one = swap_counts(m, [5, 20, 50], trials=12, seed=3, pairing=pairing)
    three = merge_swap([swap_counts(m, [5, 20, 50], trials=12, seed=3, pairing=pairing,
                                    shard=s, n_shards=3) for s in range(3)])
    assert one.equals(three)
    assert one["comparisons"].sum() == 3 * 12 * 15  # sizes x trials x pairs
    assert one["swaps"].sum() > 0


def test_stability_runs_on_overall_and_merges():
    values, truth = campaign(9, n=100)
    m = pan_matrix(values, truth, "overall", "2020")
    one = stability_counts(m, 40, trials=9, seed=1)
    three = merge_stability_counts([stability_counts(m, 40, trials=9, seed=1, shard=s, n_shards=3)
                                    for s in range(3)])
    assert one.equals(three)
    assert (one["wins_x"] + one["wins_y"] + one["ties"] == 9).all()


def test_matrix_validation():
    values, truth = campaign(10, n=10, runs=2)
    with pytest.raises(UsageError, match="'truth'"):
        pan_matrix(values, None, "auc")
    with pytest.raises(UsageError, match="boolean"):
        pan_matrix(values, truth.astype(int), "auc")
    bad = values.copy()
    bad[0, 0] = 1.5
    with pytest.raises(UsageError, match=r"in \[0, 1\]"):
        pan_matrix(bad, truth, "auc")
    bad[0, 0] = np.nan
    with pytest.raises(UsageError, match=r"in \[0, 1\]"):
        pan_matrix(bad, truth, "auc")
    with pytest.raises(UsageError, match="PAN measure 'accuracy'"):
        pan_matrix(values, truth, "accuracy")
    with pytest.raises(UsageError, match="needs the campaign's edition"):
        pan_matrix(values, truth, "overall")
    with pytest.raises(UsageError, match="not known"):
        pan_matrix(values, truth, "overall", "2019")
    assert pan_matrix(values, truth, "overall", 2021).edition == "2021"


def test_select_runs_keeps_truth_and_edition():
    values, truth = campaign(11, n=50, runs=4)
    m = pan_matrix(values, truth, "overall", "2014")
    sub = m.select_runs(["run3", "run1"])
    assert sub.edition == "2014" and sub.truth is m.truth
    np.testing.assert_array_equal(sub.full_scores(), m.full_scores()[[3, 1]])


def test_from_pan_builder():
    truth = pl.DataFrame({"qid": ["b", "a", "c", "d"], "same": [True, False, True, False]})
    values = pl.DataFrame({"run": ["t1", "t1", "t1", "t2", "t2", "baseline:x"],
                           "qid": ["a", "b", "c", "a", "d", "a"],
                           "value": [0.2, 0.9, 0.5, 0.7, 0.1, 0.5]})
    m = from_pan(values, truth, "c@1")
    assert (m.aggregator, m.measure, m.units, m.runs) == ("pan", "c_at_1", ("a", "b", "c", "d"),
                                                          ("t1", "t2"))
    # t1: a right, b right, c no answer, d missing -> nc 2, nu 2; t2: a wrong, d right, b, c missing
    np.testing.assert_allclose(m.full_scores(), [(2 + 2 * 2 / 4) / 4, (1 + 2 * 1 / 4) / 4])
    assert from_pan(values, truth, "auc", include_baselines=True).runs == ("baseline:x", "t1", "t2")
    m = from_pan(values, truth, "overall", 2022)
    want = pan_frames.score_runs(values.filter(pl.col("run") != "baseline:x"), truth, 2022)
    np.testing.assert_allclose(m.full_scores(),
                               want.filter(pl.col("measure") == "overall")["value"].to_numpy(),
                               rtol=0, atol=1e-15)
    with pytest.raises(UsageError, match="needs the campaign's edition"):
        from_pan(values, truth, "overall")
