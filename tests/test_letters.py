"""Runs that cannot be told apart as a compact letter display: the defining
property on random relations of any size (more than 52 letters included, read
as printed), the fewest letters on the real TREC matrices against a minimum
computed here independently (maximal cliques by a plain Bron-Kerbosch, set
cover by scipy's milp), the swap criterion without the greedy partition's
artificial boundary, the test criterion."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from paths import SHARED_DATA

from qacamp.errors import UsageError
from qacamp.reliability import letters as L
from qacamp.reliability.letters import (
    compact_letters,
    significance_letters,
    split_letters,
    swap_letters,
)

MATRICES = SHARED_DATA / "score-matrices"
needs_data = pytest.mark.skipif(not MATRICES.is_dir(), reason="needs ../shared/data")


def broken_pairs(letters: list[str], different: np.ndarray) -> list[tuple[int, int]]:
    """Pairs breaking "share a letter iff not distinguishable", the letters read
    as printed: one character each while there are at most 52, else the
    character-and-index tokens."""
    tokens = [set(split_letters(x)) for x in letters]
    assert all(tokens)  # every run has a letter
    return [(a, b) for a in range(len(letters)) for b in range(a + 1, len(letters))
            if bool(tokens[a] & tokens[b]) == bool(different[a, b])]


def random_relation(rng, n: int) -> np.ndarray:
    upper = np.triu(rng.random((n, n)) < rng.random(), 1)
    return upper | upper.T


def test_letters_are_shared_iff_not_distinguishable():
    rng = np.random.default_rng(2004)
    for trial in range(300):
        n = int(rng.integers(1, 13))
        different = random_relation(rng, n)
        letters = compact_letters([f"r{k}" for k in range(n)], rng.random(n), different)
        assert not broken_pairs(letters, different), (trial, letters)
        assert all(len(x) == len(split_letters(x)) for x in letters)  # one character each


def test_past_52_letters_every_letter_is_a_character_and_an_index():
    # 91 runs on a line, each indistinguishable from its neighbours only:
    # 90 letters, one per neighbouring pair (the TREC Enterprise 2006 case of
    # more than 52 letters that used to be glued as "...XYZaaabac")
    n = 91
    different = np.ones((n, n), bool)
    for k in range(n - 1):
        different[k, k + 1] = different[k + 1, k] = False
    np.fill_diagonal(different, False)
    scores = np.linspace(1, 0, n)
    letters = compact_letters([f"r{k:02d}" for k in range(n)], scores, different)
    assert not broken_pairs(letters, different)
    assert letters[:3] == ["a1", "a1b1", "b1c1"] and letters[51:53] == ["Y1Z1", "Z1a2"]
    assert len({t for x in letters for t in split_letters(x)}) == n - 1
    # random relations of 53 to 120 runs, including ones with too many maximal
    # cliques for the exact cover (the greedy edge clique cover then)
    rng = np.random.default_rng(7)
    sizes = 0
    for n in (53, 70, 91, 120):
        different = random_relation(rng, n)
        letters = compact_letters([f"r{k}" for k in range(n)], rng.random(n), different)
        assert not broken_pairs(letters, different)
        sizes += len({t for x in letters for t in split_letters(x)}) > 52
    assert sizes >= 2


def test_a_relation_with_too_many_maximal_cliques_falls_back_to_the_greedy_cover():
    rng = np.random.default_rng(1)
    n = 91
    upper = np.triu(rng.random((n, n)) < 0.5, 1)
    different = upper | upper.T
    neighbours = [sum(1 << j for j in range(n) if j != i and not different[i, j])
                  for i in range(n)]
    with pytest.raises(L._TooMany):
        L.maximal_cliques(neighbours, L.MAX_CLIQUES)
    letters = compact_letters([f"r{k}" for k in range(n)], rng.random(n), different)
    assert not broken_pairs(letters, different)
    assert compact_letters([f"r{k}" for k in range(n)], rng.random(n) * 0 + 1, different) == \
        compact_letters([f"r{k}" for k in range(n)], np.ones(n), different)  # deterministic


def bron_kerbosch(adj: list[set[int]]) -> list[frozenset[int]]:
    """Every maximal clique: the textbook recursion on sets, pivoting on the
    vertex of P | X with most neighbours in P (independent of qacamp's
    iterative bit-set version)."""
    out = []

    def grow(r: set, p: set, x: set) -> None:
        if not p and not x:
            out.append(frozenset(r))
            return
        pivot = max(sorted(p | x), key=lambda u: len(p & adj[u]))
        for v in sorted(p - adj[pivot]):
            grow(r | {v}, p & adj[v], x & adj[v])
            p = p - {v}
            x = x | {v}

    grow(set(), set(range(len(adj))), set())
    return out


def minimum_letters(different: np.ndarray) -> int:
    """The edge clique cover number of the indistinguishability graph (plus its
    isolated runs): the fewest letters any correct display can use."""
    from scipy.optimize import LinearConstraint, milp

    n = len(different)
    adj = [{j for j in range(n) if j != i and not different[i, j]} for i in range(n)]
    cliques = bron_kerbosch(adj)
    need = [frozenset((i, j)) for i in range(n) for j in adj[i] if i < j]
    need += [frozenset((i,)) for i in range(n) if not adj[i]]
    a = np.array([[float(e <= c) for c in cliques] for e in need])
    res = milp(np.ones(len(cliques)), constraints=LinearConstraint(a, lb=1),
               integrality=np.ones(len(cliques)), bounds=(0, 1))
    assert res.status == 0
    return round(res.fun)


def relation_of(pairs: pl.DataFrame, runs: list[str]) -> np.ndarray:
    at = {r: k for k, r in enumerate(runs)}
    different = np.zeros((len(runs), len(runs)), bool)
    for a, b, s in pairs.select("run_a", "run_b", "significant").iter_rows():
        different[at[a], at[b]] = different[at[b], at[a]] = s
    return different


@needs_data
@pytest.mark.parametrize("name", ["genomics2004", "web2004"])
@pytest.mark.parametrize("test", ["t-test", "tukey-hsd"])
def test_letters_on_real_matrices_are_right_and_within_1_2_of_the_minimum(name, test):
    """Every pair read as printed follows the defining property, and the
    display uses at most 1.2 times the fewest letters possible (on Genomics
    2004 with the t-test and Holm the insert-absorb display used 49 where 19
    suffice)."""
    from qacamp.loader import read_matrix_file
    from qacamp.reliability.significance import significance_test

    m = read_matrix_file(MATRICES / f"{name}.csv", measure="ap")
    perms = {"permutations": 2000, "seed": 1} if test == "tukey-hsd" else {}
    pairs, _ = significance_test(m, test, **perms)
    runs = list(m.runs)
    different = relation_of(pairs, runs)
    eq = significance_letters(runs, m.full_scores(), pairs, 0.05)
    letters = dict(zip(eq["run"], eq["letters"], strict=True))
    assert not broken_pairs([letters[r] for r in runs], different)
    used = len({t for x in letters.values() for t in split_letters(x)})
    low = minimum_letters(different)
    assert low <= used <= 1.2 * low, (used, low)
    if (name, test) == ("genomics2004", "t-test"):
        assert (used, low) == (19, 19)


@pytest.mark.slow  # scipy's studentized range: many CPU-seconds per call
@needs_data
def test_anova_tukey_letters_on_genomics_are_the_fewest(real_tukey):
    m, pairs, _ = real_tukey("genomics2004")
    runs = list(m.runs)
    different = relation_of(pairs, runs)
    letters = compact_letters(runs, m.full_scores(), different)
    assert not broken_pairs(letters, different)
    used = len({t for x in letters for t in split_letters(x)})
    assert used <= 1.2 * minimum_letters(different)


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
    """Below the weak-evidence threshold of runs the swap
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
