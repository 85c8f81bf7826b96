"""Kendall tau variants (Voorhees 2003's adjacent-swap tau_a vs tau_b) and the
seed of a matrix file that does not depend on its name."""

from __future__ import annotations

import shutil

import numpy as np
import polars as pl
import pytest
from paths import SHARED_DATA
from scipy import stats

from qacamp.cli import main
from qacamp.reliability import extras, kendall_tau, tau_table, tied_pairs

WEB = SHARED_DATA / "score-matrices" / "web2004.csv"

RUNS = ["a", "b", "c", "d", "e", "f"]
# ranking 1: a = b > c > d = e > f; tie-broken by name: a b c d e f
R1 = [0.6, 0.6, 0.5, 0.4, 0.4, 0.1]
# ranking 2: d > b = c > a = f > e; tie-broken by name: d b c a f e
R2 = [0.3, 0.5, 0.5, 0.6, 0.1, 0.3]


def adjacent_swaps(first: list[str], second: list[str]) -> int:
    """Bubble sort ``first`` into ``second``, counting the adjacent swaps."""
    pos = {run: i for i, run in enumerate(second)}
    seq = [pos[r] for r in first]
    swaps = 0
    for end in range(len(seq) - 1, 0, -1):
        for i in range(end):
            if seq[i] > seq[i + 1]:
                seq[i], seq[i + 1] = seq[i + 1], seq[i]
                swaps += 1
    return swaps


def test_tau_a_is_the_normalised_adjacent_swap_distance_with_ties():
    # "Kendall's tau computes the distance between two rankings as the minimum number
    # of pairwise adjacent swaps to turn one ranking into the other" (Voorhees 2003);
    # by hand: from a b c d e f to d b c a f e takes 6 adjacent swaps
    # (d past c, b, a; b past a; c past a; f past e)
    assert adjacent_swaps(list("abcdef"), list("dbcafe")) == 6
    tau = kendall_tau(R1, R2, "tau_a", RUNS)
    assert tau == pytest.approx(1 - 4 * 6 / (6 * 5))  # = 0.2: identical = 1, inverse = -1
    assert kendall_tau(R1, R1, "tau_a", RUNS) == 1.0
    assert kendall_tau(R1, [-x for x in R1], "tau_a", RUNS) < 0
    # tau_b does not break ties, and differs here
    tau_b = kendall_tau(R1, R2, "tau_b")
    assert tau_b == pytest.approx(stats.kendalltau(R1, R2, variant="b").statistic)
    assert tau_b != pytest.approx(tau)
    # the tie-break is by run name: renaming the tied runs changes tau_a only
    assert kendall_tau(R1, R2, "tau_a", ["b", "a", "c", "d", "e", "f"]) != pytest.approx(tau)
    assert kendall_tau(R1, R2, "tau_b") == pytest.approx(tau_b)
    assert (tied_pairs(R1), tied_pairs(R2)) == (2, 2)


def test_tau_b_equals_scipy_on_integer_counts():
    rng = np.random.default_rng(11)
    for _ in range(20):
        a = rng.integers(0, 8, 30).astype(float)   # "number correct": many ties
        b = a + rng.integers(-2, 3, 30)
        assert kendall_tau(a, b, "tau_b") == pytest.approx(
            stats.kendalltau(a, b, variant="b").statistic)


def test_tau_table_and_extras_name_variant_and_ties():
    long = pl.DataFrame({"ranking": ["x"] * 6 + ["y"] * 6, "run": RUNS * 2, "score": R1 + R2})
    a = tau_table(long).row(0, named=True)
    assert (a["variant"], a["tied_pairs_a"], a["tied_pairs_b"]) == ("tau_a", 2, 2)
    assert a["tau"] == pytest.approx(0.2)
    b = tau_table(long, variant="tau_b").row(0, named=True)
    assert b["variant"] == "tau_b" and b["tau"] == pytest.approx(
        stats.kendalltau(R1, R2, variant="b").statistic)
    runs = pl.DataFrame({"judgment_set": ["adj"] * 6 + ["a1"] * 6, "run": RUNS * 2,
                         "measure": "accuracy", "scope": "all", "unit": "all", "value": R1 + R2})
    k = extras.kendall_frame(runs, ["accuracy"], "adj", variant="tau_b")
    assert k["variant"].to_list() == ["tau_b"] and k["tied_pairs_a"].to_list() == [2]


def test_cli_kendall_variant_option(tmp_path):
    x, y = tmp_path / "x.csv", tmp_path / "y.csv"
    x.write_text(",".join(RUNS) + "\n" + ",".join(map(str, R1)) + "\n")
    y.write_text(",".join(RUNS) + "\n" + ",".join(map(str, R2)) + "\n")
    for variant, want in (("tau_a", 0.2), ("tau_b", stats.kendalltau(R1, R2).statistic)):
        out = tmp_path / f"{variant}.parquet"
        assert main(["reliability", "kendall", f"x={x}", f"y={y}", "--variant", variant,
                     "--out", str(out)]) == 0
        row = pl.read_parquet(out).row(0, named=True)
        assert row["tau"] == pytest.approx(want) and row["variant"] == variant
        assert (row["tied_pairs_a"], row["tied_pairs_b"]) == (2, 2)


def test_matrix_seed_does_not_depend_on_the_file_name(tmp_path):
    # without --measure the trials used to be seeded by the file's stem
    first, second = tmp_path / "web2004.csv", tmp_path / "renamed" / "other-name.csv"
    second.parent.mkdir()
    shutil.copy(WEB, first)
    shutil.copy(WEB, second)
    outs = []
    for i, path in enumerate((first, second)):
        out = tmp_path / f"swap{i}.parquet"
        assert main(["reliability", "swap", "--matrix", str(path), "--sizes", "5:25:10",
                     "--trials", "4", "--seed", "3", "--out", str(out)]) == 0
        outs.append(out.read_bytes())
        stab = tmp_path / f"stab{i}.parquet"
        assert main(["reliability", "stability", "--matrix", str(path), "--size", "20",
                     "--trials", "4", "--seed", "3", "--out", str(stab)]) == 0
        outs.append(stab.read_bytes())
    assert outs[0] == outs[2] and outs[1] == outs[3]
    # and the name 'score' is what seeds them: the same as --measure score
    named = tmp_path / "named.parquet"
    assert main(["reliability", "swap", "--matrix", str(second), "--measure", "score",
                 "--sizes", "5:25:10", "--trials", "4", "--seed", "3", "--out", str(named)]) == 0
    assert named.read_bytes() == outs[0]
