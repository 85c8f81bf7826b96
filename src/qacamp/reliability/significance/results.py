"""Shard counts, their checked merge, p-values, corrections and the output frames.

Per-pair output (``significance_<measure>.parquet``): ``run_a, run_b, measure,
test, statistic, diff, p_value, p_adjusted, significant, permutations,
ci_lower, ci_upper`` (one row per pair, the upper triangle of the runs in
name order; ``diff = M(run_a) - M(run_b)``; ``statistic``: ``|diff|`` for
the permutation tests, t for the t-test, the studentized range q for ANOVA +
Tukey; the interval only for ANOVA + Tukey).  Summary (one row):
``measure, test, correction, alpha, permutations, n_runs, n_units, pairs,
significant_pairs, share_significant, family_wise, min_p, anova_f, anova_p,
warning``.  ``min_p`` is the smallest adjusted p-value the permutations can
give (``1 / (B + 1)``, or ``1 / 2^n`` exact, times the number of pairs under
Holm or Bonferroni); when it exceeds alpha no pair can be significant and
``warning`` says how many permutations are needed.

Shard counts (``--shard I/N``): one row per pair with ``extreme`` (the
permutations at least as extreme) and ``permutations`` (this shard's), the
settings the p-values need (measure, test, total_permutations, exact, alpha,
correction, n_units, n_runs), and the shard identity every resampling shard
carries (:mod:`qacamp.reliability.shards`: index, count, seed, and a settings
text with the matrix's SHA-256): :func:`merge_significance` refuses a
duplicated, missing or foreign shard through :func:`~qacamp.reliability.shards.check_shards`,
naming its file, and checks each shard's share of the permutations.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from ...errors import InputError, UsageError
from .. import shards
from ..matrix import ScoreMatrix
from ..seeds import shard_trials
from .corrections import CORRECTIONS, adjust
from .randomisation import MAX_EXACT_UNITS
from .registry import DEFAULT_PERMUTATIONS, TESTS

PAIR_SCHEMA = {"run_a": pl.Utf8, "run_b": pl.Utf8, "measure": pl.Utf8, "test": pl.Utf8,
               "statistic": pl.Float64, "diff": pl.Float64, "p_value": pl.Float64,
               "p_adjusted": pl.Float64, "significant": pl.Boolean, "permutations": pl.Int64,
               "ci_lower": pl.Float64, "ci_upper": pl.Float64}
SUMMARY_SCHEMA = {"measure": pl.Utf8, "test": pl.Utf8, "correction": pl.Utf8,
                  "alpha": pl.Float64, "permutations": pl.Int64, "n_runs": pl.Int64,
                  "n_units": pl.Int64, "pairs": pl.Int64, "significant_pairs": pl.Int64,
                  "share_significant": pl.Float64, "family_wise": pl.Boolean,
                  "min_p": pl.Float64, "anova_f": pl.Float64, "anova_p": pl.Float64,
                  "warning": pl.Utf8}
#: settings the p-values of (merged) counts need
SETTINGS = {"measure": pl.Utf8, "test": pl.Utf8, "total_permutations": pl.Int64,
            "exact": pl.Boolean, "alpha": pl.Float64, "correction": pl.Utf8,
            "n_units": pl.Int64, "n_runs": pl.Int64}
#: merged counts; a shard file has the identity columns of shards.ID_SCHEMA besides
COUNT_SCHEMA = {"run_a": pl.Utf8, "run_b": pl.Utf8, "diff": pl.Float64,
                "extreme": pl.Int64, "permutations": pl.Int64, **SETTINGS}


def check_settings(matrix: ScoreMatrix, test: str, correction: str | None,
                   permutations: int | None, alpha: float, exact: bool = False) -> tuple[str, int]:
    """Validate the settings against the test's record; returns ``(correction,
    permutations)`` with the test's default correction filled in and, in exact
    mode, the ``2^n`` enumerated assignments."""
    t = TESTS.lookup(test)
    corr = t.default_correction if correction is None else correction
    CORRECTIONS.lookup(corr)
    if not 0 < alpha < 1:
        raise UsageError(f"alpha must be in (0, 1) (got {alpha})")
    if t.family_wise and corr != "none":
        raise UsageError(f"{t.title} controls the family-wise error over all pairs itself: "
                         f"use correction none, not {corr!r}")
    if t.mean_only and matrix.aggregator != "mean":
        raise UsageError(f"{t.title} needs a measure that is a mean of per-unit scores; "
                         f"{matrix.measure or 'this measure'} is recomputed "
                         f"({matrix.aggregator}): use randomisation or tukey-hsd")
    if matrix.n_runs < 2 or matrix.n_units < 2:
        raise UsageError("significance tests need at least two runs and two units")
    if permutations is not None and (exact or not t.resampling):
        raise UsageError(f"{t.title} draws no random permutations"
                         + (" in exact mode" if exact else "") + ": drop the permutations")
    if exact:
        if not t.exact:
            raise UsageError(f"{t.title} has no exact mode (only: "
                             + ", ".join(x.name for x in TESTS.values() if x.exact) + ")")
        if matrix.n_units > MAX_EXACT_UNITS:
            raise UsageError(f"exact enumeration needs at most {MAX_EXACT_UNITS} "
                             f"units (2^n assignments); the matrix has {matrix.n_units}")
        return corr, 2 ** matrix.n_units
    if t.resampling:
        permutations = DEFAULT_PERMUTATIONS if permutations is None else permutations
        if permutations < 1:
            raise UsageError(f"{t.title} needs permutations >= 1 (got {permutations})")
        return corr, int(permutations)
    return corr, 0


def significance_counts(matrix: ScoreMatrix, test: str, permutations: int | None = None,
                        seed: int = 0,
                        alpha: float = 0.05, correction: str | None = None,
                        measure: str | None = None, shard: int = 0, n_shards: int = 1,
                        exact: bool = False) -> pl.DataFrame:
    """Per-pair counts of the permutations of one shard (permutation tests only)."""
    t = TESTS.lookup(test)
    if not t.resampling:
        raise UsageError(f"{t.title} draws no permutations: nothing to shard (run it "
                         "without --shard)")
    corr, total = check_settings(matrix, test, correction, permutations, alpha, exact)
    name = matrix.measure if measure is None else measure
    perms = shard_trials(total, shard, n_shards)
    d, extreme = t.kernel(matrix, perms, seed, name, exact)
    ii, jj = np.triu_indices(matrix.n_runs, k=1)
    runs = np.asarray(matrix.runs, dtype=object)
    p = len(ii)
    settings = {"measure": name, "test": t.name, "total_permutations": total,
                "exact": exact, "alpha": alpha, "correction": corr, "n_units": matrix.n_units,
                "n_runs": matrix.n_runs}
    counts = pl.DataFrame({
        "run_a": runs[ii].tolist(), "run_b": runs[jj].tolist(), "diff": d, "extreme": extreme,
        "permutations": np.full(p, len(perms), np.int64),
        **{k: [v] * p for k, v in settings.items()}}, schema=COUNT_SCHEMA)
    return shards.tag(counts, shard, n_shards, seed,
                      shards.settings_text("significance", matrix, **settings))


def merge_significance(frames: Sequence[pl.DataFrame],
                       paths: Sequence[str | Path] | None = None) -> pl.DataFrame:
    """Add the shards' counts once :func:`~qacamp.reliability.shards.check_shards`
    finds them the complete, consistent shards of one analysis, and each holds
    its share of the permutations and the same run pairs."""
    frames = list(frames)
    names = [str(p) for p in paths] if paths is not None else \
        [f"shard file {k + 1}" for k in range(len(frames))]
    ids = [(int(f["shard"][0]), int(f["n_shards"][0])) if f.height and "n_shards" in f.columns
           else None for f in frames]
    frames = shards.check_shards("significance", names, frames)
    fix = "merge the shards of one run of `qacamp reliability significance --shard I/N`"
    cast = []
    for f, name in zip(frames, names, strict=True):
        missing = [c for c in COUNT_SCHEMA if c not in f.columns]
        if missing:
            raise InputError(name, None, f"not a significance shard file (lacks {missing})", fix)
        cast.append(f.select(list(COUNT_SCHEMA)).cast(COUNT_SCHEMA))
    total = int(cast[0]["total_permutations"][0])
    key = cast[0].select("run_a", "run_b", "diff")
    for f, name, (s, n) in zip(cast, names, ids, strict=True):
        want = len(shard_trials(total, s, n))
        if f["permutations"].n_unique() != 1 or int(f["permutations"][0]) != want:
            raise InputError(name, "column permutations", f"shard {s} counted "
                             f"{f['permutations'].unique().to_list()} permutations, expected "
                             f"{want}", fix)
        if not f.select("run_a", "run_b", "diff").equals(key):
            raise InputError(name, None, "its run pairs or observed differences differ from "
                             f"{names[0]}'s", fix)
    extreme = cast[0]["extreme"].to_numpy().copy()
    for f in cast[1:]:
        extreme += f["extreme"].to_numpy()
    return cast[0].with_columns(pl.Series("extreme", extreme, pl.Int64),
                                pl.lit(total, pl.Int64).alias("permutations"))


def min_p(test: str, correction: str, permutations: int, exact: bool, pairs: int) -> float | None:
    """Smallest adjusted p-value the permutations can give (None: analytic tests)."""
    if not TESTS[test].resampling:
        return None
    smallest = 1.0 / permutations if exact else 1.0 / (permutations + 1)
    return min(1.0, smallest * (pairs if CORRECTIONS[correction].scales_with_pairs else 1))


def resolution_warning(test: str, correction: str, permutations: int, exact: bool,
                       pairs: int, alpha: float) -> str:
    low = min_p(test, correction, permutations, exact, pairs)
    if low is None or low <= alpha:
        return ""
    scale = pairs if CORRECTIONS[correction].scales_with_pairs else 1
    need = math.ceil(scale / alpha)
    how = f" after the {correction} correction over {pairs:,} pairs" if scale > 1 else ""
    return (f"{permutations:,} permutations cannot give an adjusted p-value below {low:.3g}"
            f"{how}, above alpha {alpha:g}: no pair can be significant; use at least "
            f"{need:,} permutations")


def _frames(measure: str, test: str, runs_a, runs_b, statistic, d, p, correction: str,
            alpha: float, permutations: int, exact: bool, n_runs: int, n_units: int,
            lower=None, upper=None, f=None, f_p=None) -> tuple[pl.DataFrame, pl.DataFrame]:
    p = np.asarray(p, dtype=np.float64)
    adjusted, significant = adjust(p, correction, alpha)
    n = len(p)
    none = [None] * n
    pairs = pl.DataFrame({
        "run_a": list(runs_a), "run_b": list(runs_b), "measure": [measure] * n,
        "test": [test] * n, "statistic": np.asarray(statistic, np.float64),
        "diff": np.asarray(d, np.float64), "p_value": p, "p_adjusted": adjusted,
        "significant": significant, "permutations": np.full(n, permutations, np.int64),
        "ci_lower": none if lower is None else lower, "ci_upper": none if upper is None else upper,
    }, schema=PAIR_SCHEMA)
    k = int(significant.sum())
    summary = pl.DataFrame([{
        "measure": measure, "test": test, "correction": correction, "alpha": alpha,
        "permutations": permutations, "n_runs": n_runs, "n_units": n_units, "pairs": n,
        "significant_pairs": k, "share_significant": k / n if n else None,
        "family_wise": TESTS[test].family_wise,
        "min_p": min_p(test, correction, permutations, exact, n), "anova_f": f, "anova_p": f_p,
        "warning": resolution_warning(test, correction, permutations, exact, n, alpha) or None,
    }], schema=SUMMARY_SCHEMA)
    return pairs, summary


def significance_results(counts: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``(pairs, summary)`` of (merged) permutation counts."""
    s = {c: counts[c][0] for c in SETTINGS}
    total, exact = int(s["total_permutations"]), bool(s["exact"])
    if int(counts["permutations"].max()) != total:
        raise UsageError("these are the counts of one shard: merge every shard first "
                         "(`qacamp reliability merge --kind significance`)")
    extreme = counts["extreme"].to_numpy()
    p = extreme / total if exact else (1.0 + extreme) / (1.0 + total)
    d = counts["diff"].to_numpy()
    return _frames(s["measure"], s["test"], counts["run_a"], counts["run_b"], np.abs(d), d, p,
                   s["correction"], float(s["alpha"]), total, exact, int(s["n_runs"]),
                   int(s["n_units"]))


def significance_test(matrix: ScoreMatrix, test: str, permutations: int | None = None,
                      seed: int = 0, alpha: float = 0.05, correction: str | None = None,
                      measure: str | None = None, exact: bool = False
                      ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The whole analysis in one process: ``(pairs, summary)``."""
    t = TESTS.lookup(test)
    if t.resampling:
        return significance_results(significance_counts(
            matrix, test, permutations, seed, alpha, correction, measure, exact=exact))
    corr, _ = check_settings(matrix, test, correction, permutations, alpha, exact)
    name = matrix.measure if measure is None else measure
    ii, jj = np.triu_indices(matrix.n_runs, k=1)
    runs = np.asarray(matrix.runs, dtype=object)
    common = dict(correction=corr, alpha=alpha, permutations=0, exact=False,
                  n_runs=matrix.n_runs, n_units=matrix.n_units)
    return _frames(name, t.name, runs[ii], runs[jj], **t.kernel(matrix, alpha), **common)
