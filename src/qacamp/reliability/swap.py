"""The swap method (Voorhees & Buckley 2002; Voorhees 2003, 2005; c@1 paper).

For a subset size ``c`` and trial ``t``, draw two disjoint unit subsets
``A`` and ``B`` of size ``c``, score every run on both, and for every pair of
runs (x, y) with ``d1 = M_A(x) - M_A(y)`` and ``d2 = M_B(x) - M_B(y)``:
put the comparison in bin ``min(floor(|d1| / width), bins - 1)`` (default
width 0.01, 21 bins, the last one open: ``|d1| >= 0.20``) and count a swap
when ``d1 * d2 < 0``.  The error rate of a (size, bin) is swaps / comparisons.
A tiny epsilon (1e-9 of a bin) is added before ``floor`` so that a difference
that is a multiple of the width in decimal (e.g. 0.03) lands in its own bin
despite binary rounding.  Differences below ``TIE_TOLERANCE`` (1e-12) are
treated as exactly 0 (a tie on either subset is never a swap), so that float
rounding of mathematically equal scores cannot create or hide swaps.

``pairing="shared"`` (default, Voorhees): the two subsets of a trial are
shared by all pairs.  ``pairing="per-pair"`` (c@1 paper): each pair gets its
own two subsets (still one seed per trial; the pair's draws come from that
trial's generator in the fixed pair order).

``max_score`` records the highest score any run obtained on any subset of
the size in these trials (repeated on every bin row of the size; null for a
shard without trials): the c@1 paper's Table 2 column "Highest value
obtained" may be read over the experiment's subsets (:mod:`.fits`).  Shards
merge it by ``max``, which does not depend on the order or the shard count.

Kernel: per size, a numpy gather over trials and all runs: indices (T, 2, c)
-> scores (T, 2, R); then differences over the upper triangle (S, T, 2, P) ->
bins (offset by size) -> ``np.bincount``.  Small problems take blocks of sizes
with all the shard's trials at once; large ones (e.g. 1,000 runs = 499,500
pairs) take one size and a chunk of trials at a time so that no array exceeds
about ``PAIR_BUDGET`` differences (and the gather ``GATHER_BUDGET`` cells).
The counts are integer sums and each trial's scores do not depend on which
other trials are computed with it, so the chunking never changes a result.
Seeds: :mod:`qacamp.reliability.seeds`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
import polars as pl

from ..errors import UsageError
from .matrix import ScoreMatrix
from .seeds import shard_trials, trial_rng

PAIRINGS = ("shared", "per-pair")
SWAP_SCHEMA = {"size": pl.Int64, "bin": pl.Int64, "swaps": pl.Int64, "comparisons": pl.Int64,
               "max_score": pl.Float64}
_EPS = 1e-9
#: differences smaller than this are exact ties (guards against float rounding)
TIE_TOLERANCE = 1e-12
#: pair differences per kernel block (bounds memory: ~10 float64 temporaries of this size)
PAIR_BUDGET = 4_000_000
#: (subset row x unit x run) cells per gather block of :meth:`ScoreMatrix.subset_scores`
GATHER_BUDGET = 64_000_000


def memory_bytes(n_runs: int, sizes: list[int], trials: int, bins: int,
                 pairing: str = "shared") -> int:
    """About the peak bytes :func:`swap_counts` holds for ``trials`` trials of
    one shard (the CLI refuses a job that would not fit; see qacamp.bounds)."""
    p = n_runs * (n_runs - 1) // 2
    fixed = 8 * trials + 56 * len(sizes) * bins
    if pairing == "shared":  # blocks of about PAIR_BUDGET differences, GATHER_BUDGET cells
        return fixed + 80 * max(PAIR_BUDGET, 2 * p) + 8 * GATHER_BUDGET
    return fixed + 48 * trials * p * (max(sizes, default=1) + 1)  # (T, P, 2, c) indices


def pair_index(n_runs: int) -> tuple[np.ndarray, np.ndarray]:
    """Upper-triangle run pairs (i < j) in row-major order."""
    return np.triu_indices(n_runs, k=1)


def check_sizes(sizes: Iterable[int], n_units: int, subsets: int = 2) -> list[int]:
    sizes = sorted({int(s) for s in sizes})
    if not sizes or sizes[0] < 1:
        raise UsageError("subset sizes must be >= 1")
    too_big = [s for s in sizes if subsets * s > n_units]
    if too_big:
        raise UsageError(
            f"subset size {too_big[0]} is impossible: {subsets} disjoint subsets need "
            f"{subsets * too_big[0]} units but the matrix has {n_units} "
            f"(largest possible size: {n_units // subsets})")
    return sizes


def draw_subsets(n_units: int, size: int, n_subsets: int, trials: np.ndarray, seed: int,
                 measure: str, n_pairs: int | None = None) -> np.ndarray:
    """Disjoint subsets for each trial: (T, n_subsets, size), or with ``n_pairs``
    (T, n_pairs, n_subsets, size).  Trial ``t``'s draw depends only on
    (seed, measure, size, t)."""
    k = n_subsets * size
    if n_pairs is None:
        out = np.empty((len(trials), k), dtype=np.int64)
        for row, t in enumerate(trials):  # RNG set-up per trial (seeding), not the kernel
            out[row] = trial_rng(seed, measure, size, int(t)).permutation(n_units)[:k]
        return out.reshape(len(trials), n_subsets, size)
    out = np.empty((len(trials), n_pairs, k), dtype=np.int64)
    for row, t in enumerate(trials):
        keys = trial_rng(seed, measure, size, int(t)).random((n_pairs, n_units))
        if k < n_units:
            part = np.argpartition(keys, k - 1, axis=1)[:, :k]
            order = np.argsort(np.take_along_axis(keys, part, axis=1), axis=1)
            out[row] = np.take_along_axis(part, order, axis=1)
        else:
            out[row] = np.argsort(keys, axis=1)
    return out.reshape(len(trials), n_pairs, n_subsets, size)


def bin_index(absdiff: np.ndarray, bin_width: float, bins: int) -> np.ndarray:
    """Bin of an absolute difference: ``min(floor(|d|/width + eps), bins-1)``."""
    return np.minimum(np.floor(absdiff / bin_width + _EPS), bins - 1).astype(np.int64)


def swap_counts(matrix: ScoreMatrix, sizes: Iterable[int], trials: int, seed: int = 0,
                measure: str | None = None, bin_width: float = 0.01, bins: int = 21,
                pairing: str = "shared", shard: int = 0, n_shards: int = 1,
                shard_mode: str = "contiguous",
                progress: Callable[[int, int], None] | None = None) -> pl.DataFrame:
    """Swap counts per (size, bin) for the trials of one shard.

    ``progress``, if given, is called as ``progress(done, total)`` with the
    number of (size, trial) cells finished (the command line prints it).

    Returns a frame (size, bin, swaps, comparisons: Int64; max_score: Float64),
    one row per size and bin (zeros included), sorted by size then bin.  Merge
    shards with :func:`merge_swap` (sums, and the max of ``max_score``).
    """
    if pairing not in PAIRINGS:
        raise UsageError(f"pairing {pairing!r}: use one of {', '.join(PAIRINGS)}")
    if bin_width <= 0 or bins < 1:
        raise UsageError("bin width must be > 0 and bins >= 1")
    if matrix.n_runs < 2:
        raise UsageError("the swap method needs at least two runs")
    name = matrix.measure if measure is None else measure
    sizes = check_sizes(sizes, matrix.n_units)
    tr = shard_trials(trials, shard, n_shards, shard_mode)
    ii, jj = pair_index(matrix.n_runs)
    n_pairs = len(ii)
    swaps = np.zeros(len(sizes) * bins, np.int64)
    comps = np.zeros(len(sizes) * bins, np.int64)
    best = np.full(len(sizes), -np.inf)
    total, done = len(sizes) * len(tr), 0

    def count(d: np.ndarray, first: int) -> None:
        """Add the counts of differences ``d`` (k sizes, T, 2, P) starting at size ``first``."""
        # in place (same values as bin_index(|d1|) after zeroing ties), to save memory passes
        a = np.abs(d)
        tie = a < TIE_TOLERANCE  # float noise is a tie, not a sign
        np.copyto(d, 0.0, where=tie)
        np.copyto(a, 0.0, where=tie)
        d1, d2 = d[:, :, 0], d[:, :, 1]
        q = a[:, :, 0] / bin_width
        q += _EPS
        np.floor(q, out=q)
        np.minimum(q, bins - 1, out=q)
        b = q.astype(np.int64)
        if d.shape[0] > 1 or first:
            b += (first + np.arange(d.shape[0]))[:, None, None] * bins
        n = len(sizes) * bins
        comps[:] += np.bincount(b.ravel(), minlength=n)
        swaps[:] += np.bincount(b[d1 * d2 < 0], minlength=n)

    def scores(idx: np.ndarray, c: int) -> np.ndarray:
        """Subset scores of idx (K, c) -> (K, R), gathered in row blocks."""
        rows = max(1, GATHER_BUDGET // (c * matrix.n_runs))
        if len(idx) <= rows:
            return matrix.subset_scores(idx)
        return np.concatenate([matrix.subset_scores(idx[k:k + rows])
                               for k in range(0, len(idx), rows)])

    if len(tr):
        if pairing == "shared":
            # per block of sizes and chunk of trials: scores (S', T', 2, R), then pair
            # differences / binning / counting; blocks hold ~PAIR_BUDGET differences
            per_size = len(tr) * 2 * n_pairs
            if per_size <= PAIR_BUDGET:
                size_step, trial_step = max(1, PAIR_BUDGET // per_size), len(tr)
            else:
                size_step, trial_step = 1, max(1, PAIR_BUDGET // (2 * n_pairs))
            for first in range(0, len(sizes), size_step):
                block = sizes[first:first + size_step]
                for t0 in range(0, len(tr), trial_step):
                    trc = tr[t0:t0 + trial_step]
                    sc = np.empty((len(block), len(trc), 2, matrix.n_runs))
                    for k, c in enumerate(block):
                        idx = draw_subsets(matrix.n_units, c, 2, trc, seed, name)
                        sc[k] = scores(idx.reshape(-1, c), c).reshape(len(trc), 2, -1)
                        best[first + k] = max(best[first + k], float(sc[k].max()))
                    d = sc[..., ii]
                    d -= sc[..., jj]
                    count(d, first)
                    done += len(block) * len(trc)
                    if progress is not None:
                        progress(done, total)
        else:
            for s_i, c in enumerate(sizes):
                idx = draw_subsets(matrix.n_units, c, 2, tr, seed, name, n_pairs)  # (T, P, 2, c)
                flat = np.swapaxes(idx, 1, 2).reshape(-1, n_pairs, c)  # (T*2, P, c)
                si, sj = matrix.pair_subset_scores(flat, ii), matrix.pair_subset_scores(flat, jj)
                best[s_i] = max(float(si.max()), float(sj.max()))
                d = si - sj
                count(d.reshape(1, len(tr), 2, n_pairs), s_i)
                done += len(tr)
                if progress is not None:
                    progress(done, total)
    return pl.DataFrame({
        "size": np.repeat(np.asarray(sizes, np.int64), bins),
        "bin": np.tile(np.arange(bins, dtype=np.int64), len(sizes)),
        "swaps": swaps, "comparisons": comps,
        "max_score": np.repeat(np.where(np.isfinite(best), best, np.nan), bins),
    }, schema=SWAP_SCHEMA).with_columns(pl.col("max_score").fill_nan(None))


def merge_swap(frames: Iterable[pl.DataFrame]) -> pl.DataFrame:
    """Sum swap counts of shards (``max_score``: the max); rows sorted by (size, bin)."""
    frames = list(frames)
    if not frames:
        raise UsageError("nothing to merge")
    df = pl.concat([f.select(list(SWAP_SCHEMA)).cast(SWAP_SCHEMA) for f in frames])
    return (df.group_by("size", "bin").agg(pl.col("swaps").sum(), pl.col("comparisons").sum(),
                                           pl.col("max_score").max())
            .sort("size", "bin").cast(SWAP_SCHEMA))


def error_rates(counts: pl.DataFrame, bin_width: float = 0.01) -> pl.DataFrame:
    """Add ``lo``, ``hi`` (null for the open last bin) and ``error_rate``
    (null where there are no comparisons)."""
    last = counts["bin"].max()
    return counts.with_columns(
        (pl.col("bin") * bin_width).alias("lo"),
        pl.when(pl.col("bin") == last).then(None).otherwise((pl.col("bin") + 1) * bin_width)
        .cast(pl.Float64).alias("hi"),
        pl.when(pl.col("comparisons") > 0)
        .then(pl.col("swaps") / pl.col("comparisons")).otherwise(None).alias("error_rate"),
    )
