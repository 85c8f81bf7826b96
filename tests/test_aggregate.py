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
