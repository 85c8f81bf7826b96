"""Sakai's paired bootstrap test and discriminative power (Sakai 2006,
"Evaluating evaluation metrics based on the bootstrap", SIGIR).

For a run pair (X, Y) over ``n`` units let ``z_i = x_i - y_i``,
``t(z) = mean(z) / (sd(z) / sqrt(n))`` (studentised, sd with n - 1) and
``w_i = z_i - mean(z)`` (the null hypothesis).  For each bootstrap sample
``b = 1..B`` (n units drawn with replacement; ONE sample of units shared by
all pairs, seeded by ``SeedSequence([seed, stable_hash(measure), n, b])``),
``t*_b = t(w*_b)``.  The achieved significance level is
``ASL = #{b : |t*_b| >= |t(z)|} / B``; the pair is significant when
``ASL < alpha``.  Discriminative power = share of pairs significant.

Estimated difference required (Sakai 2006, "estimating the performance
difference required"): per pair, take the bootstrap sample whose ``|t*_b|``
is the ``floor(B * alpha)``-th largest and record ``|mean(w*_b)|`` - the
difference that is just at the significance threshold for that pair; the
estimate is the MAXIMUM of these over all pairs (Sakai's conservative choice);
the median is reported too.

Measures that are not a mean of per-unit scores (c@1, CWS, PAN's AUC and
overall: aggregators other than ``mean``) have no per-unit differences to
studentise.  For them the statistic is the difference itself, recomputed on
each bootstrap sample (``subset_scores`` of the drawn units, repeats
included): ``d*_b = M_x(b) - M_y(b)``, centred on the observed difference
``d`` for the null hypothesis, and ``ASL = #{b : |d*_b - d| >= |d|} / B``
(the paired bootstrap test of a difference, Efron & Tibshirani 1993, ch. 16);
the difference at the threshold is the ``floor(B * alpha)``-th largest
``|d*_b - d|``.  The ``statistic`` column says which form a row used
(``t`` or ``difference``).  The draws are the same for both forms.

Kernel: the bootstrap samples become a counts matrix ``C`` (B, n); then
``C @ W`` and ``C @ W**2`` give the means and variances of every pair on every
sample in two matrix products.  Shard outputs are per-pair mergeable counts:
``extreme`` and ``samples`` add up; ``top_abs_t``/``top_abs_diff`` keep the
``floor(B_total * alpha)`` largest ``|t*|`` (and their ``|mean(w*)|``).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import polars as pl

from ..errors import UsageError
from .matrix import ScoreMatrix
from .seeds import shard_trials, trial_rng
from .swap import pair_index

COUNT_SCHEMA = {"measure": pl.Utf8, "run_x": pl.Utf8, "run_y": pl.Utf8, "n_units": pl.Int64,
                "statistic": pl.Utf8,
                "mean_diff": pl.Float64, "t_obs": pl.Float64, "alpha": pl.Float64,
                "total_samples": pl.Int64, "extreme": pl.Int64, "samples": pl.Int64,
                "top_abs_t": pl.List(pl.Float64), "top_abs_diff": pl.List(pl.Float64)}
PAIR_SCHEMA = {"measure": pl.Utf8, "run_x": pl.Utf8, "run_y": pl.Utf8, "statistic": pl.Utf8,
               "mean_diff": pl.Float64,
               "t_obs": pl.Float64, "asl": pl.Float64, "significant": pl.Boolean,
               "diff_at_threshold": pl.Float64}
SUMMARY_SCHEMA = {"measure": pl.Utf8, "statistic": pl.Utf8, "alpha": pl.Float64,
                  "samples": pl.Int64,
                  "n_pairs": pl.Int64, "n_significant": pl.Int64,
                  "discriminative_power": pl.Float64, "estimated_difference": pl.Float64,
                  "median_difference": pl.Float64}


def _studentise(mean: np.ndarray, var: np.ndarray, n: int) -> np.ndarray:
    var = np.maximum(var, 0.0)
    se = np.sqrt(var / n)
    small = se <= 1e-12 * np.maximum(1.0, np.abs(mean))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(small, np.where(np.abs(mean) <= 1e-12, 0.0, np.sign(mean) * np.inf),
                     mean / np.where(small, 1.0, se))
    return t


def memory_bytes(n_runs: int, n_units: int, samples: int, total_samples: int,
                 alpha: float, chunk: int = 128) -> int:
    """About the peak bytes :func:`bootstrap_counts` holds for ``samples``
    samples of one shard: blocks of ``chunk`` samples, and the ``floor(total x
    alpha)`` largest statistics kept per pair."""
    p = n_runs * (n_runs - 1) // 2
    k = int(total_samples * alpha)
    return (8 * samples + 24 * n_units * p + 16 * chunk * n_units + 48 * chunk * p
            + 100 * p * (k + chunk))


def bootstrap_counts(matrix: ScoreMatrix, samples: int = 1000, seed: int = 0,
                     alpha: float = 0.05, measure: str | None = None, shard: int = 0,
                     n_shards: int = 1, shard_mode: str = "contiguous",
                     chunk: int = 128) -> pl.DataFrame:
    """Per-pair mergeable counts for the bootstrap samples of one shard."""
    if samples < 1 or not 0 < alpha < 1:
        raise UsageError("samples must be >= 1 and 0 < alpha < 1")
    if matrix.n_runs < 2 or matrix.n_units < 2:
        raise UsageError("the bootstrap needs at least two runs and two units")
    name = matrix.measure if measure is None else measure
    n = matrix.n_units
    ii, jj = pair_index(matrix.n_runs)
    k = int(np.floor(samples * alpha))
    tr = shard_trials(samples, shard, n_shards, shard_mode)
    studentised = matrix.aggregator == "mean"
    if studentised:
        z = matrix.values[:, ii] - matrix.values[:, jj]  # (n, P)
        zbar = z.mean(axis=0)
        t_obs = _studentise(zbar, z.var(axis=0, ddof=1), n)
        w = z - zbar
        w2 = w * w
    else:
        full = matrix.full_scores()
        zbar = full[ii] - full[jj]
        t_obs = zbar.copy()
    extreme = np.zeros(len(ii), np.int64)
    top_t = np.zeros((0, len(ii)))
    top_d = np.zeros((0, len(ii)))
    # Blocks are aligned to absolute sample indices and always ``chunk`` rows, so every
    # sample is computed at the same position of an identically shaped matrix product
    # whatever the sharding (BLAS results can depend on the block shape).
    for block_id in np.unique(tr // chunk):  # memory blocks of bootstrap samples
        block = tr[tr // chunk == block_id]
        rows = block % chunk
        draws = np.zeros((chunk, n), np.int64)
        for b in block:  # seeding per sample
            draws[b % chunk] = trial_rng(seed, name, n, int(b)).integers(0, n, n)
        if studentised:
            cnt = np.zeros((chunk, n))
            for r in rows:
                cnt[r] = np.bincount(draws[r], minlength=n)
            m = (cnt @ w / n)[rows]
            var = ((cnt @ w2 / n)[rows] - m * m) * (n / (n - 1))
            abs_t = np.abs(_studentise(m, var, n))
            abs_d = np.abs(m)
        else:  # the measure recomputed on each sample, centred on the observed difference
            sc = matrix.subset_scores(draws[rows])
            abs_t = abs_d = np.abs(sc[:, ii] - sc[:, jj] - zbar)
        extreme += (abs_t >= np.abs(t_obs) - 1e-12).sum(axis=0)
        if k:
            top_t, top_d = _keep_top(np.vstack([top_t, abs_t]), np.vstack([top_d, abs_d]), k)
    runs = np.asarray(matrix.runs, dtype=object)
    order = np.argsort(-top_t, axis=0, kind="stable")
    top_t = np.take_along_axis(top_t, order, 0).T
    top_d = np.take_along_axis(top_d, order, 0).T
    p = len(ii)
    return pl.DataFrame({
        "measure": [name] * p, "run_x": runs[ii].tolist(), "run_y": runs[jj].tolist(),
        "n_units": np.full(p, n, np.int64),
        "statistic": ["t" if studentised else "difference"] * p,
        "mean_diff": zbar, "t_obs": t_obs,
        "alpha": np.full(p, alpha), "total_samples": np.full(p, samples, np.int64),
        "extreme": extreme, "samples": np.full(p, len(tr), np.int64),
        "top_abs_t": [r.tolist() for r in top_t], "top_abs_diff": [r.tolist() for r in top_d],
    }, schema=COUNT_SCHEMA)


def _keep_top(t: np.ndarray, d: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Keep the k largest rows of ``t`` per column (with ``d`` alongside)."""
    if t.shape[0] <= k:
        return t, d
    part = np.argpartition(-t, k - 1, axis=0)[:k]
    return np.take_along_axis(t, part, 0), np.take_along_axis(d, part, 0)


def merge_bootstrap(frames: Iterable[pl.DataFrame]) -> pl.DataFrame:
    """Merge shard counts: add extreme/samples, keep the k largest |t*| per pair.

    Rows keep the pair order of the inputs (the matrix's upper triangle)."""
    frames = list(frames)
    if not frames:
        raise UsageError("nothing to merge")
    df = pl.concat([f.select(list(COUNT_SCHEMA)).cast(COUNT_SCHEMA) for f in frames])
    key = ["measure", "run_x", "run_y"]
    base = (df.group_by(key, maintain_order=True)
            .agg(pl.col("n_units", "statistic", "mean_diff", "t_obs", "alpha",
                        "total_samples").first(),
                 pl.col("extreme").sum(), pl.col("samples").sum()))
    tops = (df.select(*key, "alpha", "total_samples", "top_abs_t", "top_abs_diff")
            .explode("top_abs_t", "top_abs_diff").drop_nulls("top_abs_t")
            .sort([*key, "top_abs_t", "top_abs_diff"], descending=[False] * 3 + [True, True])
            .with_columns(pl.int_range(pl.len()).over(key).alias("_r"))
            .filter(pl.col("_r") < (pl.col("total_samples") * pl.col("alpha")).floor())
            .group_by(key, maintain_order=True).agg(pl.col("top_abs_t"), pl.col("top_abs_diff")))
    out = base.join(tops, on=key, how="left", maintain_order="left").with_columns(
        pl.col("top_abs_t").fill_null(pl.lit([], dtype=pl.List(pl.Float64))),
        pl.col("top_abs_diff").fill_null(pl.lit([], dtype=pl.List(pl.Float64))))
    return out.select(list(COUNT_SCHEMA)).cast(COUNT_SCHEMA)


def bootstrap_results(counts: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``(pairs, summary)`` from (merged) counts; see module docstring."""
    k = (counts["total_samples"] * counts["alpha"]).floor().cast(pl.Int64)
    pairs = counts.with_columns(
        (pl.col("extreme") / pl.col("samples")).alias("asl"),
        pl.col("top_abs_diff").list.get(pl.Series(k - 1).clip(0, None), null_on_oob=True)
        .alias("diff_at_threshold")).with_columns(
        (pl.col("asl") < pl.col("alpha")).alias("significant"))
    pairs = pairs.select(list(PAIR_SCHEMA)).cast(PAIR_SCHEMA)
    alpha = float(counts["alpha"][0]) if counts.height else float("nan")
    n_sig = int(pairs["significant"].sum())
    summary = pl.DataFrame([{
        "measure": counts["measure"][0] if counts.height else "",
        "statistic": counts["statistic"][0] if counts.height else "", "alpha": alpha,
        "samples": int(counts["samples"].max() or 0), "n_pairs": pairs.height,
        "n_significant": n_sig, "discriminative_power": n_sig / pairs.height if pairs.height else None,
        "estimated_difference": pairs["diff_at_threshold"].max(),
        "median_difference": pairs["diff_at_threshold"].median(),
    }], schema=SUMMARY_SCHEMA)
    return pairs, summary


def bootstrap_test(matrix: ScoreMatrix, samples: int = 1000, seed: int = 0, alpha: float = 0.05,
                   measure: str | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """All samples at once: ``(pairs, summary)``."""
    return bootstrap_results(bootstrap_counts(matrix, samples, seed, alpha, measure))
