"""Stability vs discrimination (Buckley & Voorhees 2000; c@1 paper, Figure 1).

For each trial draw one subset of ``size`` units and score every run.  For a
pair (x, y) and fuzziness ``f``: margin = ``f * max(M(x), M(y))``; the trial
is a tie if ``|M(x) - M(y)| < |margin|`` (or the scores are equal, which
matters only when both are 0 and the margin is 0; a difference within
``TIE_TOLERANCE``, 1e-12, of the margin is taken as equal to it, so that
0.50 against 0.45 at f = 0.1 is a win however the subtraction rounds, as
float noise in a difference is a tie), otherwise a win for the
higher run.  The absolute value is the c@1 paper's own ("if(|M(x,Qi) -
M(y,Qi)| < |margin|)", Figure 1), and it is what keeps the definition
meaningful for a measure that can be negative, as UF (utility), which the
paper analyses this way: with both scores negative, ``f * max`` is negative
and without it no difference would ever be a tie.  Over all trials:

    error_rate = sum_pairs min(wins_x, wins_y) / decisions
    prop_ties  = sum_pairs ties / decisions

with ``decisions = pairs * trials``.  ``pairing="shared"`` (default) uses one
subset per trial shared by all pairs (like the swap method); ``"per-pair"``
draws a fresh subset per pair and trial, as the original description says.

Because ``min`` is taken after summing over trials, shard outputs keep the
counts per pair and fuzziness (``stability_counts``); :func:`summarize_stability`
turns merged pair counts into the rows (measure, fuzziness, error_rate,
prop_ties, wins_min_sum, ties, decisions).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import polars as pl

from ..errors import UsageError
from .matrix import ScoreMatrix
from .seeds import shard_trials
from .swap import PAIRINGS, TIE_TOLERANCE, check_sizes, draw_subsets, pair_index

COUNT_SCHEMA = {"measure": pl.Utf8, "size": pl.Int64, "fuzziness": pl.Float64,
                "run_x": pl.Utf8, "run_y": pl.Utf8, "wins_x": pl.Int64, "wins_y": pl.Int64,
                "ties": pl.Int64, "trials": pl.Int64}
SUMMARY_SCHEMA = {"measure": pl.Utf8, "size": pl.Int64, "fuzziness": pl.Float64,
                  "error_rate": pl.Float64, "prop_ties": pl.Float64, "wins_min_sum": pl.Int64,
                  "ties": pl.Int64, "decisions": pl.Int64}
DEFAULT_FUZZ = tuple(round(0.01 * k, 2) for k in range(1, 11))


def memory_bytes(n_runs: int, size: int, trials: int, n_fuzz: int,
                 pairing: str = "shared") -> int:
    """About the peak bytes :func:`stability_counts` holds for ``trials`` trials
    of one shard: every trial at once, (fuzziness x trial x pair) arrays."""
    p = n_runs * (n_runs - 1) // 2
    per_pair = 8 * trials * p * size * 2 if pairing != "shared" else 0
    return (8 * trials * (size + n_runs) + 32 * trials * p + 26 * n_fuzz * trials * p
            + per_pair + 120 * n_fuzz * p)


def stability_counts(matrix: ScoreMatrix, size: int, trials: int, seed: int = 0,
                     fuzz: Iterable[float] = DEFAULT_FUZZ, measure: str | None = None,
                     pairing: str = "shared", shard: int = 0, n_shards: int = 1,
                     shard_mode: str = "contiguous") -> pl.DataFrame:
    """Pair-level counts for the shard's trials: measure, size, fuzziness,
    run_x, run_y, wins_x, wins_y, ties, trials (sorted by fuzziness, pair)."""
    if pairing not in PAIRINGS:
        raise UsageError(f"pairing {pairing!r}: use one of {', '.join(PAIRINGS)}")
    if matrix.n_runs < 2:
        raise UsageError("stability needs at least two runs")
    f = np.asarray(sorted(set(float(x) for x in fuzz)), np.float64)
    if len(f) == 0 or (f < 0).any():
        raise UsageError("fuzziness values must be >= 0")
    check_sizes([size], matrix.n_units, subsets=1)
    name = matrix.measure if measure is None else measure
    tr = shard_trials(trials, shard, n_shards, shard_mode)
    ii, jj = pair_index(matrix.n_runs)
    n_pairs = len(ii)
    if len(tr):
        if pairing == "shared":
            idx = draw_subsets(matrix.n_units, size, 1, tr, seed, name)[:, 0]
            sc = matrix.subset_scores(idx)
            sx, sy = sc[:, ii], sc[:, jj]  # (T, P)
        else:
            idx = draw_subsets(matrix.n_units, size, 1, tr, seed, name, n_pairs)[:, :, 0]
            sx, sy = matrix.pair_subset_scores(idx, ii), matrix.pair_subset_scores(idx, jj)
        d = sx - sy
        d = np.where(np.abs(d) < TIE_TOLERANCE, 0.0, d)
        margin = np.abs(f[:, None, None] * np.maximum(sx, sy)[None])  # (F, T, P)
        # (a difference within the tolerance of the margin is the margin: a win)
        tie = (np.abs(d)[None] < margin - TIE_TOLERANCE) | (d == 0)[None]
        wins_x = (~tie & (d > 0)[None]).sum(axis=1)
        wins_y = (~tie & (d < 0)[None]).sum(axis=1)
        ties = tie.sum(axis=1)
    else:
        wins_x = wins_y = ties = np.zeros((len(f), n_pairs), np.int64)
    runs = np.asarray(matrix.runs, dtype=object)
    return pl.DataFrame({
        "measure": [name] * (len(f) * n_pairs),
        "size": np.full(len(f) * n_pairs, size, np.int64),
        "fuzziness": np.repeat(f, n_pairs),
        "run_x": np.tile(runs[ii], len(f)).tolist(), "run_y": np.tile(runs[jj], len(f)).tolist(),
        "wins_x": wins_x.ravel().astype(np.int64), "wins_y": wins_y.ravel().astype(np.int64),
        "ties": ties.ravel().astype(np.int64),
        "trials": np.full(len(f) * n_pairs, len(tr), np.int64),
    }, schema=COUNT_SCHEMA)


def merge_stability_counts(frames: Iterable[pl.DataFrame]) -> pl.DataFrame:
    """Sum pair-level counts of shards; rows keep the order of the inputs."""
    frames = list(frames)
    if not frames:
        raise UsageError("nothing to merge")
    df = pl.concat([f.select(list(COUNT_SCHEMA)).cast(COUNT_SCHEMA) for f in frames])
    return (df.group_by("measure", "size", "fuzziness", "run_x", "run_y", maintain_order=True)
            .agg(pl.col("wins_x", "wins_y", "ties", "trials").sum()).cast(COUNT_SCHEMA))


def summarize_stability(counts: pl.DataFrame) -> pl.DataFrame:
    """Rows (measure, size, fuzziness, error_rate, prop_ties, wins_min_sum, ties, decisions)."""
    return (counts.group_by("measure", "size", "fuzziness")
            .agg(pl.min_horizontal("wins_x", "wins_y").sum().alias("wins_min_sum"),
                 pl.col("ties").sum(), pl.col("trials").sum().alias("decisions"))
            .with_columns((pl.col("wins_min_sum") / pl.col("decisions")).alias("error_rate"),
                          (pl.col("ties") / pl.col("decisions")).alias("prop_ties"))
            .select(list(SUMMARY_SCHEMA)).sort("measure", "size", "fuzziness")
            .cast(SUMMARY_SCHEMA))


def stability(matrix: ScoreMatrix, size: int, trials: int, seed: int = 0,
              fuzz: Iterable[float] = DEFAULT_FUZZ, measure: str | None = None,
              pairing: str = "shared") -> pl.DataFrame:
    """All trials at once: the summary rows."""
    return summarize_stability(stability_counts(matrix, size, trials, seed, fuzz, measure, pairing))
