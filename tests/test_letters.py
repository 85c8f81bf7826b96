"""Runs that cannot be told apart as a compact letter display (issue 20 item 3):
Piepho's insert-absorb guarantee on random relations, the swap criterion
without the greedy partition's artificial boundary, the test criterion."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from qacamp.errors import UsageError
from qacamp.reliability.letters import compact_letters, significance_letters, swap_letters


def share(a: str, b: str) -> bool:
    return bool(set(a) & set(b)) if len(a + b) and max(map(len, (a, b))) else False


def test_insert_absorb_letters_are_shared_iff_not_distinguishable():
    rng = np.random.default_rng(2004)
    for trial in range(300):
        n = int(rng.integers(1, 13))
        upper = np.triu(rng.random((n, n)) < rng.random(), 1)
        different = upper | upper.T
        scores = rng.random(n)
        runs = [f"r{k}" for k in range(n)]
        letters = compact_letters(runs, scores, different)
        assert all(letters), (trial, letters)  # every run has a letter
        for a in range(n):
            for b in range(a + 1, n):
                # single-character letters while there are at most 52
                common = bool(set(letters[a]) & set(letters[b]))
                assert common == (not different[a, b]), (trial, a, b, letters)


def test_best_run_gets_a_and_letters_need_no_adjacency():
    # the greedy partition split 0.46 from 0.439 (0.021 apart) with a required
    # difference of 0.05 because 0.439 is 0.061 below the top run; letters do not
    eq = swap_letters(["top", "mid", "low", "far"], [0.50, 0.46, 0.439, 0.20], 0.05)
    got = dict(zip(eq["run"], eq["letters"], strict=True))
    assert got == {"top": "a", "mid": "ab", "low": "b", "far": "c"}
    assert eq.filter(pl.col("run") == "mid")["indistinguishable"][0].to_list() == ["top", "low"]
    assert eq["criterion"].unique().to_list() == ["swap"]
    # exactly the required difference separates (within 1e-12)
    eq = swap_letters(["a", "b"], [0.55, 0.50], 0.05)
    assert eq["letters"].to_list() == ["a", "b"]
    # never reached: nothing can be told apart
    eq = swap_letters(["a", "b", "c"], [0.9, 0.5, 0.1], None)
    assert eq["letters"].to_list() == ["a", "a", "a"] and eq["threshold"][0] is None


def test_test_letters_follow_the_adjusted_decisions():
    pairs = pl.DataFrame({"run_a": ["a", "a", "b"], "run_b": ["b", "c", "c"],
                          "test": ["tukey-hsd"] * 3, "significant": [False, True, False]})
    eq = significance_letters(["a", "b", "c"], [0.6, 0.5, 0.4], pairs, 0.05)
    assert eq["criterion"][0] == "tukey-hsd" and eq["threshold"][0] == 0.05
    assert eq["letters"].to_list() == ["a", "ab", "b"]
    with pytest.raises(UsageError, match="lack the pair"):
        significance_letters(["a", "b", "c"], [0.6, 0.5, 0.4], pairs.head(2), 0.05)


def test_no_swap_letters_when_too_few_runs_to_estimate_a_required_difference():
    """Issue 20 item 2: below the weak-evidence threshold of runs the swap
    method estimates no required difference, so no letters are drawn from it
    (the test's letters stay); the warning text is the one fit_swap writes."""
    from qacamp.reliability.campaign_level import equivalence_frame
    from qacamp.reliability.fits import FEW_RUNS, too_few_runs

    assert too_few_runs(f"{FEW_RUNS}4 runs (6 pairs); another item")
    assert not too_few_runs("error rate above 5% in a higher bin")
    runs = pl.DataFrame({"judgment_set": "adj", "run": ["a", "b", "c", "d"], "measure": "c_at_1",
                         "scope": "all", "unit": "all", "value": [0.6, 0.5, 0.4, 0.1]})
    pairs = pl.DataFrame({"run_a": ["a", "a", "a", "b", "b", "c"],
                          "run_b": ["b", "c", "d", "c", "d", "d"], "test": "tukey-hsd",
                          "significant": [False, False, True, False, True, True],
                          "alpha": 0.05})
    eq = equivalence_frame(runs, "c_at_1", "adj", 0.05, pairs, swap=False)
    assert eq["criterion"].unique().to_list() == ["tukey-hsd"]
    assert equivalence_frame(runs, "c_at_1", "adj", 0.05, swap=False).height == 0
    with_swap = equivalence_frame(runs, "c_at_1", "adj", 0.05)
    assert with_swap["criterion"].unique().to_list() == ["swap"]
