"""Deterministic group sums and means of float columns.

Floating-point addition is not associative, so a sum over a group depends on
the order in which its values are added.  polars' multi-threaded ``group_by``
adds partial sums in an order that changes from run to run, which made the
last bits of list, Other and series scores differ between two runs of the same
campaign.  Every float aggregation of the scoring goes through
:func:`group_agg` instead: rows are sorted by the group keys and a tie-breaking
``order`` (e.g. the question id, unique within a group), and each group's
values are added by ``numpy.add.reduceat`` over that fixed order.  The same
input therefore always gives the same bits, whatever the thread count.

Groups whose values are all integers (0/1 outcome indicators, counts) take a
fast path: a sum of integer-valued float64 below 2**53 is exact in any order,
so polars' parallel ``group_by`` gives the same bits there.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

#: sums of integer-valued float64 below this are exact in any order
_EXACT = 2.0**52


def group_agg(df: pl.DataFrame, keys: Sequence[str], order: Sequence[str] = (),
              sums: Sequence[str] = (), means: Sequence[str] = (),
              count: str | None = None) -> pl.DataFrame:
    """One row per group of ``keys`` (in sorted key order) with the sum of each
    column of ``sums`` and the mean of each column of ``means`` (nulls ignored;
    a group without a non-null value gets a null mean), plus the group's row
    count as column ``count`` if given.

    ``order`` are extra sort columns that make the rows of a group unique, so
    that the addition order does not depend on the input order.  A column is
    either summed or averaged, not both.
    """
    keys, order = list(keys), list(order)
    overlap = set(sums) & set(means)
    if overlap:
        raise ValueError(f"columns both summed and averaged: {sorted(overlap)}")
    # the dtypes of the columns used, read once (a frame's whole schema would
    # convert every column's dtype, a large Enum's categories included)
    dtype = {c: df.get_column(c).dtype for c in dict.fromkeys([*keys, *sums, *means])}
    out_schema = {k: dtype[k] for k in keys}
    out_schema.update({c: pl.Float64 for c in [*sums, *means]})
    if count:
        out_schema[count] = pl.Int64
    if df.height == 0:
        return pl.DataFrame(schema=out_schema)
    values = [*sums, *means]
    if not keys or not values:
        return _ordered(df, keys, order, sums, means, count, out_schema)
    integers = all(dtype[c].is_integer() or dtype[c] == pl.Boolean for c in values)
    if integers:
        exact = pl.lit(True)  # integer columns: summed as integers, exact
    else:
        # integers whose every partial sum stays below 2**52: exact in any order
        bound = _EXACT / df.height
        exact = pl.all_horizontal([pl.col(c).is_null() | ((pl.col(c) == pl.col(c).round(0))
                                                          & (pl.col(c).abs() < bound))
                                   for c in values])

    def total(c: str) -> pl.Expr:
        """An integer column's exact integer sum, a float column's sum."""
        dt = dtype[c]
        if dt.is_integer() or dt == pl.Boolean:
            return pl.col(c).cast(pl.Int64).sum().cast(pl.Float64)
        return pl.col(c).cast(pl.Float64).sum()

    agg = df.lazy().group_by(keys).agg(
        *[total(c) for c in sums],
        *[total(c).alias(f"_s_{c}") for c in means],
        *[pl.col(c).count().alias(f"_n_{c}") for c in means],
        pl.len().alias("_len"), exact.all().alias("_exact"))
    agg = agg.with_columns(
        [pl.when(pl.col(f"_n_{c}") > 0).then(pl.col(f"_s_{c}") / pl.col(f"_n_{c}"))
         .otherwise(None).alias(c) for c in means])
    if count:
        agg = agg.with_columns(pl.col("_len").alias(count))
    if integers:  # (every group exact: one query)
        return (agg.select(list(out_schema)).cast(out_schema)
                .sort(keys, nulls_last=True, maintain_order=True).collect())
    agg = agg.collect()
    inexact = agg.filter(~pl.col("_exact")).select(keys)
    parts = [agg.filter(pl.col("_exact")).select(list(out_schema)).cast(out_schema)]
    if inexact.height:  # redo these groups in the fixed order
        rows = df.join(inexact, on=keys, how="semi", nulls_equal=True)
        parts.append(_ordered(rows, keys, order, sums, means, count, out_schema))
    return pl.concat(parts).sort(keys, nulls_last=True, maintain_order=True)


def sorted_by(df: pl.DataFrame, cols: Sequence[str]) -> pl.DataFrame:
    """``df`` sorted by ``cols`` (nulls last, ties in input order): the same
    frame as ``df.sort(cols, nulls_last=True, maintain_order=True)``.  Where
    every column is an Enum or an integer and their ranges fit, the rows are
    ordered on one 64-bit key combining them (Enum categories are ordered by
    their codes, as polars sorts them), which is several times faster than a
    sort on several columns; where the first columns alone give every row a
    key of its own in a small range, by counting (:func:`_counting_order`),
    without a sort."""
    cols = list(cols)
    codes = _codes(df, cols) if df.height > 1 else None
    if codes is None:
        return df.sort(cols, nulls_last=True, maintain_order=True)
    order = _counting_order(df, codes)
    if order is None:
        key = _key(df, codes)
        order = pl.DataFrame({"k": key}).with_row_index("i").sort("k", maintain_order=True)["i"]
    return df[order]


#: Keys per row at most (or 65,536 in all) that :func:`_counting_order` counts.
COUNTED_KEYS_PER_ROW = 4


def _codes(df: pl.DataFrame, cols: list[str]) -> list[tuple[pl.Expr, int]] | None:
    """Each column of ``cols`` as (an expression of its codes from 0, UInt64,
    in the column's sort order, nulls last; how many codes), or None where a
    column is neither an Enum nor an integer, or their combined range passes
    63 bits."""
    dtypes = [df.get_column(c).dtype for c in cols]
    if not all(isinstance(d, pl.Enum) or d.is_integer() for d in dtypes):
        return None
    ints = [c for c, d in zip(cols, dtypes, strict=True) if not isinstance(d, pl.Enum)]
    bounds = df.select([pl.col(c).min().cast(pl.Int64).alias(f"{c}_lo") for c in ints]
                       + [pl.col(c).max().cast(pl.Int64).alias(f"{c}_hi") for c in ints]
                       ).row(0, named=True) if ints else {}
    out, radix = [], 1
    for c, d in zip(cols, dtypes, strict=True):
        if isinstance(d, pl.Enum):
            code, size = pl.col(c).to_physical().cast(pl.Int64), len(d.categories) + 1
        else:
            lo, hi = bounds[f"{c}_lo"], bounds[f"{c}_hi"]
            lo, hi = (0, 0) if lo is None else (lo, hi)
            code, size = pl.col(c).cast(pl.Int64) - lo, hi - lo + 2
        radix *= size  # (one more value: null, last)
        if radix >= 2**63:
            return None
        out.append((code.fill_null(size - 1).cast(pl.UInt64), size))
    return out


def _key(df: pl.DataFrame, codes: list[tuple[pl.Expr, int]]) -> np.ndarray:
    """One uint64 per row of ``df`` ordering the rows as ``codes`` do."""
    key = None
    for code, size in codes:
        key = code if key is None else key * size + code
    return df.select(key.alias("k")).to_series().to_numpy()


def _counting_order(df: pl.DataFrame, codes: list[tuple[pl.Expr, int]]) -> np.ndarray | None:
    """The sorted order of the rows of ``df`` (their row numbers) found by
    counting, or None.  The first ``codes`` whose combined keys number at
    most :data:`COUNTED_KEYS_PER_ROW` per row (or 65,536) must give every row
    a key of its own: the later columns then cannot reorder anything, and a
    row's place is the number of smaller keys.  None where they give two
    rows one key (ties: the caller sorts on the whole key)."""
    limit, radix, m = max(1 << 16, COUNTED_KEYS_PER_ROW * df.height), 1, 0
    while m < len(codes) and radix * codes[m][1] <= limit:
        radix *= codes[m][1]
        m += 1
    if m == 0:
        return None
    key = _key(df, codes[:m]).astype(np.intp)
    counts = np.bincount(key, minlength=radix)
    if counts.max() > 1:
        return None
    place = np.cumsum(counts) - 1  # (each key at most once: the smaller keys before it)
    order = np.empty(df.height, np.intp)
    order[place[key]] = np.arange(df.height)
    return order


def group_starts(srt: pl.DataFrame, keys: Sequence[str]) -> np.ndarray:
    """The first row of each group of ``keys`` in a frame sorted by them."""
    if not keys:
        return np.array([0], np.int64)
    ids = srt.select(pl.struct(list(keys)).rle_id()).to_series().to_numpy()
    return np.flatnonzero(np.diff(ids, prepend=-1))


def _ordered(df: pl.DataFrame, keys: list[str], order: list[str], sums: Sequence[str],
             means: Sequence[str], count: str | None, out_schema: dict) -> pl.DataFrame:
    """Sums and means in the fixed order of ``keys`` + ``order`` (numpy.add.reduceat)."""
    srt = sorted_by(df, [*keys, *order])
    starts = group_starts(srt, keys)
    cols: dict[str, pl.Series] = {k: srt[k].gather(starts) for k in keys}
    ends = np.append(starts[1:], srt.height)
    for c in [*sums, *means]:
        s = srt[c].cast(pl.Float64)
        v = s.fill_null(0.0).to_numpy()
        total = np.add.reduceat(v, starts)
        if c in means:
            n = np.add.reduceat(s.is_not_null().to_numpy().astype(np.int64), starts)
            mean = pl.Series(c, total / np.maximum(n, 1), dtype=pl.Float64)
            empty_groups = np.flatnonzero(n == 0)
            cols[c] = mean.scatter(empty_groups, None) if empty_groups.size else mean
        else:
            cols[c] = pl.Series(c, total, dtype=pl.Float64)
    if count:
        cols[count] = pl.Series(count, ends - starts, dtype=pl.Int64)
    return pl.DataFrame(cols).select(list(out_schema)).cast(out_schema)
