"""qacamp.aggregate.group_agg: the same bits whatever the input row order."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from qacamp.aggregate import group_agg


def frame(seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    n = 20_000
    df = pl.DataFrame({"g": rng.integers(0, 50, n).astype(str), "u": np.arange(n),
                       "frac": rng.random(n) / 3.0,  # sums depend on the addition order
                       "ones": rng.integers(0, 2, n).astype(float)})
    return df.with_columns(pl.when(pl.col("u") % 97 == 0).then(None).otherwise(pl.col("frac"))
                           .alias("frac"))


def test_fractional_sums_do_not_depend_on_row_order():
    df = frame(1)
    ref = group_agg(df, ["g"], ["u"], sums=["ones"], means=["frac"], count="n")
    for seed in range(5):
        shuffled = df.sample(fraction=1.0, shuffle=True, seed=seed)
        out = group_agg(shuffled, ["g"], ["u"], sums=["ones"], means=["frac"], count="n")
        assert out.equals(ref)
    # the values are the plain means / sums (to rounding)
    plain = df.group_by("g").agg(pl.col("frac").mean(), pl.col("ones").sum(), pl.len()).sort("g")
    assert np.allclose(ref["frac"].to_numpy(), plain["frac"].to_numpy(), rtol=0, atol=1e-15)
    assert ref["ones"].to_list() == plain["ones"].to_list()
    assert ref["n"].to_list() == plain["len"].to_list()


def test_empty_groups_and_frames():
    df = pl.DataFrame({"g": ["a", "a", "b"], "u": [1, 2, 1], "v": [None, None, 0.5]},
                      schema_overrides={"v": pl.Float64})
    out = group_agg(df, ["g"], ["u"], means=["v"])
    assert out.rows() == [("a", None), ("b", 0.5)]
    assert group_agg(df.head(0), ["g"], ["u"], means=["v"]).height == 0
    with pytest.raises(ValueError, match="both summed and averaged"):
        group_agg(df, ["g"], ["u"], sums=["v"], means=["v"])


def _frame_to_sort(seed: int, n: int, ranks: int, null_every: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    runs = pl.Enum(["r1", "r2", "r3"])
    qids = pl.Enum([f"q{i:03d}" for i in range(n)])
    df = pl.DataFrame({"run": rng.choice(["r1", "r2", "r3"], n * 3),
                       "rank": rng.integers(1, ranks + 1, n * 3).astype(np.int32),
                       "qid": [f"q{i:03d}" for i in rng.permutation(n * 3) % n]})
    df = df.with_columns(pl.col("run").cast(runs), pl.col("qid").cast(qids))
    if null_every:
        df = df.with_columns(pl.when(pl.int_range(pl.len()) % null_every == 0).then(None)
                             .otherwise(pl.col("rank")).alias("rank"))
    return df.with_row_index("i")


@pytest.mark.parametrize(("ranks", "null_every", "counted"), [
    (10**6, 0, True),   # the run and rank tell the rows apart (a rank each, almost surely)
    (10**6, 7, False),  # null ranks tie
    (5, 0, False),      # few ranks: ties, sorted on the whole key
    (10**12, 0, False)])  # ranks too spread to count
def test_sorted_by_counting_or_sorting_equals_polars_sort(monkeypatch, ranks, null_every,
                                                          counted):
    """`sorted_by` orders rows as polars' stable sort does (nulls last, ties in
    input order), whether it counts (the first columns give each row a key of
    its own in a small range) or sorts on one combined key."""
    from qacamp import aggregate

    df = _frame_to_sort(3, 400, ranks, null_every)
    if counted:  # (made sure: ranks distinct within a run)
        df = df.with_columns(pl.int_range(pl.len()).shuffle(seed=5).cast(pl.Int32).alias("rank"))
    seen = []
    real = aggregate._counting_order
    monkeypatch.setattr(aggregate, "_counting_order",
                        lambda d, c: seen.append(real(d, c)) or seen[-1])
    for cols in (["run", "rank", "qid"], ["rank", "run"], ["qid", "rank"]):
        seen.clear()
        got = aggregate.sorted_by(df, cols)
        assert got.equals(df.sort(cols, nulls_last=True, maintain_order=True)), cols
        if cols == ["run", "rank", "qid"]:
            assert (seen[0] is not None) == counted
