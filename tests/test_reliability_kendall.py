"""Kendall tau variants (the label-free default tau_b, tau_a with tied pairs
counting 0, and Voorhees 2003's adjacent-swap tau with ties ordered by run name,
only on request) and the seed of a matrix file that does not depend on its name."""

from __future__ import annotations

import itertools
import shutil

import numpy as np
import polars as pl
import pytest
from paths import SHARED_DATA
from scipy import stats

from qacamp.cli import main
from qacamp.reliability import campaign_level as extras
from qacamp.reliability import kendall_tau, tau_table, tied_pairs

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


def tie_orders(scores: list[float]) -> list[list[str]]:
    """Every total order of RUNS consistent with ``scores`` (best first): the
    permutations of each group of equal scores."""
    groups = [[r for r, x in zip(RUNS, scores, strict=True) if x == v]
              for v in sorted(set(scores), reverse=True)]
    return [list(itertools.chain(*p))
            for p in itertools.product(*(itertools.permutations(g) for g in groups))]


def test_tau_a_is_the_adjacent_swap_distance_averaged_over_tie_orders():
    # "Kendall's tau computes the distance between two rankings as the minimum number
    # of pairwise adjacent swaps to turn one ranking into the other" (Voorhees 2003).
    # With ties, average that tau over every order of the tied runs, each ranking's
    # ties ordered independently: 4 orders of R1 x 4 of R2, swaps by bubble sort
    n = len(RUNS)
    taus = [1 - 4 * adjacent_swaps(x, y) / (n * (n - 1))
            for x in tie_orders(R1) for y in tie_orders(R2)]
    assert len(taus) == 16
    # by hand, of the 15 pairs: concordant ae be bf ce cf df (6), discordant
    # ac ad bd cd ef (5), tied in R1 ab de or in R2 af bc (4, count 0)
    sign = {(x, y): np.sign(R1[i] - R1[j]) * np.sign(R2[i] - R2[j])
            for (i, x), (j, y) in itertools.combinations(enumerate(RUNS), 2)}
    c, d = sum(v > 0 for v in sign.values()), sum(v < 0 for v in sign.values())
    assert (c, d, sum(v == 0 for v in sign.values())) == (6, 5, 4)
    assert kendall_tau(R1, R2, "tau_a") == pytest.approx(np.mean(taus), abs=1e-15)
    assert kendall_tau(R1, R2, "tau_a") == pytest.approx((6 - 5) / 15, abs=1e-15)
    assert kendall_tau(R1, R1, "tau_a") == pytest.approx(13 / 15)  # its 2 tied pairs count 0
    # the default, tau_b, leaves the tied pairs out of the denominator instead:
    # (6 - 5) / sqrt((15 - 2)(15 - 2)), and an identical ranking correlates 1
    assert kendall_tau(R1, R2) == pytest.approx(1 / 13, abs=1e-15) == pytest.approx(
        stats.kendalltau(R1, R2, variant="b").statistic)
    assert kendall_tau(R1, R1) == 1.0
    for variant in ("tau_a", "tau_b", "tau_a_by_name"):
        assert kendall_tau([1, 2, 3], [1, 2, 3], variant) == 1.0
        assert kendall_tau([1, 2, 3], [3, 2, 1], variant) == -1.0
    assert (tied_pairs(R1), tied_pairs(R2)) == (2, 2)


def test_tau_a_by_name_is_the_explicit_name_ordered_variant():
    # from a b c d e f to d b c a f e takes 6 adjacent swaps by hand
    # (d past c, b, a; b past a; c past a; f past e)
    assert adjacent_swaps(list("abcdef"), list("dbcafe")) == 6
    tau = kendall_tau(R1, R2, "tau_a_by_name", RUNS)
    assert tau == pytest.approx(1 - 4 * 6 / (6 * 5))  # = 0.2
    # it depends on the names: that is why it is not the default
    assert kendall_tau(R1, R2, "tau_a_by_name", ["b", "a", "c", "d", "e", "f"]) \
        != pytest.approx(tau)


def test_default_tau_does_not_change_when_runs_are_renamed():
    """Renaming the runs of 12 tied scores (the name-ordered tau moves with the
    names) leaves the default Kendall output (and tau_a's) identical, byte for
    byte, through tau_table and the campaign extras."""
    rng = np.random.default_rng(17)
    a = rng.integers(0, 5, 12) / 10          # 12 runs, many ties
    b = np.clip(a + rng.integers(-1, 2, 12) / 10, 0, 1)
    names = [f"run{i:02d}" for i in range(12)]
    by_name = {kendall_tau(a, b, "tau_a_by_name", [names[i] for i in perm])
               for perm in itertools.islice(itertools.permutations(range(12)), 0, 5000, 97)}
    assert len(by_name) > 1                   # the name-ordered tau moves with the names
    outputs = []
    for k, perm in enumerate(([*range(12)], rng.permutation(12), rng.permutation(12)[::-1])):
        renamed = [f"{'zyx'[k]}-{names[i]}" for i in perm]
        runs = pl.DataFrame({"judgment_set": ["adj"] * 12 + ["a1"] * 12, "run": renamed * 2,
                             "measure": "accuracy", "scope": "all", "unit": "all",
                             "value": np.concatenate([a, b])})
        long = pl.DataFrame({"ranking": ["x"] * 12 + ["y"] * 12, "run": renamed * 2,
                             "score": np.concatenate([a, b])})
        outputs.append(tuple(out for kw in ({}, {"variant": "tau_a"}) for out in (
            extras.kendall_frame(runs, ["accuracy"], "adj", **kw).write_csv(),
            tau_table(long, **kw).write_csv())))
    assert outputs[0] == outputs[1] == outputs[2]
    row = tau_table(long).row(0, named=True)
    assert row["variant"] == "tau_b" and row["tied_pairs_a"] == tied_pairs(a) > 0


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
    assert (a["variant"], a["tied_pairs_a"], a["tied_pairs_b"]) == ("tau_b", 2, 2)
    assert a["tau"] == pytest.approx(1 / 13)
    assert tau_table(long, variant="tau_a")["tau"][0] == pytest.approx(1 / 15)
    assert tau_table(long, variant="tau_a_by_name")["tau"][0] == pytest.approx(0.2)
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
    for variant, want in (("tau_a", 1 / 15), ("tau_a_by_name", 0.2),
                          ("tau_b", stats.kendalltau(R1, R2).statistic)):
        out = tmp_path / f"{variant}.parquet"
        assert main(["reliability", "kendall", f"x={x}", f"y={y}", "--variant", variant,
                     "--out", str(out)]) == 0
        row = pl.read_parquet(out).row(0, named=True)
        assert row["tau"] == pytest.approx(want) and row["variant"] == variant
        assert (row["tied_pairs_a"], row["tied_pairs_b"]) == (2, 2)


def test_cli_kendall_names_runs_not_in_both_and_an_undefined_tau(tmp_path, capsys):
    x, y, z = (tmp_path / f"{n}.csv" for n in "xyz")
    x.write_text("a,b,c,d\n0.1,0.4,0.3,0.2\n0.3,0.2,0.5,0.1\n")
    y.write_text("a,b,c\n0.2,0.5,0.4\n0.1,0.3,0.2\n")  # no d: compared on a, b, c
    z.write_text("a,b,c\n0.5,0.5,0.5\n0.2,0.2,0.2\n")  # every run tied
    out = tmp_path / "k.parquet"
    assert main(["reliability", "kendall", f"x={x}", f"y={y}", f"z={z}", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "ranking y has no score for 1 run(s) another ranking scores (d)" in err
    assert "ranking z has no score for 1 run(s)" in err
    assert err.count("tau is undefined") == 2  # x vs z, y vs z
    assert "y vs z: tau is undefined, written as NaN (every pair of runs is tied" in err
    rows = pl.read_parquet(out).rows(named=True)
    assert [r["n_runs"] for r in rows] == [3, 3, 3]
    assert rows[0]["tau"] == pytest.approx(stats.kendalltau([0.2, 0.3, 0.4],
                                                            [0.15, 0.4, 0.3]).statistic)
    assert np.isnan(rows[1]["tau"]) and np.isnan(rows[2]["tau"])


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
