"""Score matrices: builders, readers and the subset kernels (c@1, CWS)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from qacamp.errors import InputError, UsageError
from qacamp.loader import read_matrix_file
from qacamp.reliability.builders import from_long, from_outcomes
from qacamp.reliability.matrix import ScoreMatrix


def naive_cws(right_in_conf_order):
    c = len(right_in_conf_order)
    correct, total = 0, 0.0
    for i, r in enumerate(right_in_conf_order, start=1):
        correct += int(r)
        total += correct / i
    return total / c


def test_cws_kernel_matches_per_run_python():
    rng = np.random.default_rng(3)
    for _ in range(20):
        n, r, c, k = rng.integers(4, 30), rng.integers(1, 6), None, 5
        c = int(rng.integers(1, n + 1))
        right = rng.random((n, r)) < 0.5
        rank = np.stack([rng.permutation(n) for _ in range(r)], axis=1)
        if rng.random() < 0.5:  # some ties and "nulls last"
            rank[rng.random((n, r)) < 0.2] = 10**9
        m = ScoreMatrix(tuple(map(str, range(n))), tuple(map(str, range(r))), "cws",
                        right=right, rank=rank)
        idx = np.stack([rng.permutation(n)[:c] for _ in range(k)])
        got = m.subset_scores(idx)
        for t in range(k):
            for run in range(r):
                sub = sorted(idx[t], key=lambda u, run=run: (rank[u, run], u))
                assert got[t, run] == pytest.approx(naive_cws([right[u, run] for u in sub]))
        pairs = m.pair_subset_scores(idx[:, None, :].repeat(r, 1), np.arange(r))
        np.testing.assert_allclose(pairs, got)


def test_cws_of_mixed_runs_matches_per_virtual_run_python():
    # a virtual run takes each unit's response, rank included, from some run:
    # its answers are sorted by those ranks (compared across runs), ties by
    # unit; the ranks are sorted as 16-bit dense ranks when they fit, so also
    # with more distinct ranks than that (the ranks as they are)
    rng = np.random.default_rng(11)
    big = np.iinfo(np.int64).max  # (what from_outcomes gives a missing response)
    for n, r, distinct in [(9, 3, 4), (30, 5, 1000), (40, 2, 10**9), (33_000, 2, 10**9)]:
        right = rng.random((n, r)) < 0.5
        rank = rng.integers(0, distinct, size=(n, r))
        rank[rng.random((n, r)) < 0.1] = big
        m = ScoreMatrix(tuple(map(str, range(n))), tuple(map(str, range(r))), "cws",
                        right=right, rank=rank)
        src = rng.integers(0, r, size=(2, 3, n))
        got = m.mixed_scores(src)
        assert got.shape == (2, 3)
        u = np.arange(n)
        for at in np.ndindex(2, 3):
            mixed_rank, mixed_right = rank[u, src[at]], right[u, src[at]]
            order = sorted(range(n), key=lambda i: (mixed_rank[i], i))
            assert got[at] == pytest.approx(naive_cws(mixed_right[order]), abs=1e-12)


def test_c_at_1_matches_paper_table3():
    # c@1 paper Table 3: icia091ro 237 R / 156 W / 107 U -> 0.58; loga092de 187/230/83 -> 0.44
    def col(nr, nw, nu):
        return np.array([True] * nr + [False] * (nw + nu)), np.array([False] * (nr + nw) + [True] * nu)

    r1, u1 = col(237, 156, 107)
    r2, u2 = col(187, 230, 83)
    m = ScoreMatrix(tuple(map(str, range(500))), ("icia", "loga"), "c_at_1",
                    right=np.stack([r1, r2], 1), unanswered=np.stack([u1, u2], 1))
    np.testing.assert_allclose(np.round(m.full_scores(), 2), [0.58, 0.44])


def outcomes_frame():
    rows = []
    for run, outs in {"a": ["R", "W", "UE", "R"], "b": ["W", "UR", "R", "R"],
                      "baseline:random-expected": ["R", "R", "R", "R"]}.items():
        for q, o in enumerate(outs):
            rows.append({"judgment_set": "gold", "run": run, "qid": f"q{q + 1}",
                         "rank": None if o == "UE" else 4 - q, "answered": not o.startswith("U"),
                         "outcome": o})
    return pl.DataFrame(rows, schema={"judgment_set": pl.Utf8, "run": pl.Utf8, "qid": pl.Utf8,
                                      "rank": pl.Int32, "answered": pl.Boolean, "outcome": pl.Utf8})


def test_from_outcomes_measures_and_baselines():
    df = outcomes_frame()
    acc = from_outcomes(df, "accuracy", "gold")
    assert acc.runs == ("a", "b") and acc.units == ("q1", "q2", "q3", "q4")
    np.testing.assert_allclose(acc.full_scores(), [0.5, 0.5])
    np.testing.assert_allclose(from_outcomes(df, "utility", "gold").full_scores(), [0.25, 0.25])
    c1 = from_outcomes(df, "c@1", "gold").full_scores()
    np.testing.assert_allclose(c1, [(2 + 1 * 2 / 4) / 4, (2 + 1 * 2 / 4) / 4])
    cws = from_outcomes(df, "cws", "gold")
    # run a: ranks q1=4,q2=3,q4=1 (q3 null last): order q4 q2 q1 q3 -> R W R W
    assert cws.full_scores()[0] == pytest.approx(naive_cws([1, 0, 1, 0]))
    assert len(from_outcomes(df, "accuracy", "gold", include_baselines=True).runs) == 3
    with pytest.raises(UsageError):
        from_outcomes(df, "accuracy", "nope")
    with pytest.raises(UsageError):
        from_outcomes(df, "nugget_f", "gold")


def test_from_long_and_missing():
    df = pl.DataFrame({"unit": ["s1", "s2", "s1", "s2"], "run": ["x", "x", "y", "y"],
                       "value": [0.1, 0.3, 0.5, 0.7]})
    m = from_long(df)
    np.testing.assert_allclose(m.full_scores(), [0.2, 0.6])
    with pytest.raises(UsageError):
        from_long(df.head(3))
    assert from_long(df.head(3), missing="zero").values[1, 1] == 0


def test_read_matrix_file_csv_parquet_and_errors(tmp_path):
    p = tmp_path / "m.csv"
    p.write_text('"r1","r2","baseline:x"\n0.1,0.2,0.3\n0.3,0.4,0.5\n')
    m = read_matrix_file(p)
    assert m.runs == ("r1", "r2") and m.n_units == 2
    pq = tmp_path / "m.parquet"
    pl.DataFrame({"r1": [0.1, 0.3], "r2": [0.2, 0.4]}).write_parquet(pq)
    np.testing.assert_allclose(read_matrix_file(pq).values, m.values)
    bad = tmp_path / "bad.csv"
    bad.write_text("r1,r2\n0.1,0.2\n0.3,abc\n")
    with pytest.raises(InputError, match="line 3"):
        read_matrix_file(bad)
    short = tmp_path / "short.csv"
    short.write_text("r1,r2\n0.1\n")
    with pytest.raises(InputError, match="line 2"):
        read_matrix_file(short)
    with pytest.raises(InputError):
        read_matrix_file(tmp_path / "missing.csv")


def test_cws_subset_scores_do_not_depend_on_batching():
    """Shards compute different numbers of subsets at once; each subset's CWS
    must come out bit-identical however many are computed together."""
    import numpy as np

    from qacamp.reliability.matrix import ScoreMatrix

    rng = np.random.default_rng(5)
    n_units, n_runs = 120, 9
    m = ScoreMatrix(tuple(map(str, range(n_units))), tuple(f"r{i}" for i in range(n_runs)), "cws",
                    right=rng.random((n_units, n_runs)) < 0.4,
                    rank=rng.permuted(np.tile(np.arange(n_units), (n_runs, 1)), axis=1).T)
    for c in (1, 5, 37, 60):
        idx = np.stack([rng.choice(n_units, c, replace=False) for _ in range(23)])
        together = m.subset_scores(idx)
        one_by_one = np.concatenate([m.subset_scores(idx[i:i + 1]) for i in range(len(idx))])
        assert np.array_equal(together, one_by_one)
