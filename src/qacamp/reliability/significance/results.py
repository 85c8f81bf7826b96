"""Shard counts, their checked merge, p-values, corrections and the output frames.

Per-pair output (``significance_<measure>.parquet``): ``run_a, run_b, measure,
test, statistic, diff, p_value, p_adjusted, significant, permutations,
ci_lower, ci_upper, effect_size`` (one row per pair, the upper triangle of
the runs in name order; ``diff = M(run_a) - M(run_b)``; ``statistic``:
``|diff|`` for the permutation tests, t for the t-test, the studentized range
q for ANOVA + Tukey, null where the test has no residual variance; the
interval of ``diff`` at level 1 - alpha and the standardised effect size as
:mod:`.effects` defines them per test).  Summary (one row): ``measure, test,
correction, alpha, permutations, n_runs, n_units, pairs, significant_pairs,
share_significant, family_wise, min_p, anova_f, anova_p, warning, ci_level,
ci_method, effect_size_method``.  ``min_p`` is the smallest adjusted p-value
the permutations can give (``1 / (B + 1)``, or ``1 / 2^n`` exact, times the
number of pairs under Holm or Bonferroni); when it exceeds alpha no pair can
be significant and ``warning`` says how many permutations are needed (alpha
is at least :data:`MIN_ALPHA`, so that number can be stated); the warning
also names pairs the analytic tests could not weigh (no residual variance).

Shard counts (``--shard I/N``): one row per pair (``family`` ``all``) and,
with a baseline run, one more per comparison with it (``family``
``baseline``: :mod:`.baseline`), each with the two runs' scores, ``extreme`` (the
permutations at least as extreme) and ``permutations`` (this shard's), the
effect size (computed by shard 0 only, null in the others), the shard's bootstrap samples of the interval
(``interval_samples``) with the ``k`` smallest and largest bootstrap
differences (``low_tail``, ``high_tail``), the settings the p-values need
(measure, test, total_permutations, exact, alpha, correction, n_units,
n_runs, interval_total, aggregator, baseline), and the shard identity every resampling shard
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
from .effects import (
    INTERVAL_SAMPLES,
    bootstrap_tails,
    merge_tails,
    pair_effects,
    percentile_interval,
    tail_size,
)
from .randomisation import MAX_EXACT_UNITS
from .record import baseline_pairs
from .registry import DEFAULT_PERMUTATIONS, TESTS
from .wording import (
    MIN_ALPHA,
    effect_method,
    interval_method,
    interval_warning,
    min_p,
    no_variance_warning,
    resolution_warning,
)

PAIR_SCHEMA = {"run_a": pl.Utf8, "run_b": pl.Utf8, "measure": pl.Utf8, "test": pl.Utf8,
               "statistic": pl.Float64, "diff": pl.Float64, "p_value": pl.Float64,
               "p_adjusted": pl.Float64, "significant": pl.Boolean, "permutations": pl.Int64,
               "ci_lower": pl.Float64, "ci_upper": pl.Float64, "effect_size": pl.Float64}
SUMMARY_SCHEMA = {"measure": pl.Utf8, "test": pl.Utf8, "correction": pl.Utf8,
                  "alpha": pl.Float64, "permutations": pl.Int64, "n_runs": pl.Int64,
                  "n_units": pl.Int64, "pairs": pl.Int64, "significant_pairs": pl.Int64,
                  "share_significant": pl.Float64, "family_wise": pl.Boolean,
                  "min_p": pl.Float64, "anova_f": pl.Float64, "anova_p": pl.Float64,
                  "warning": pl.Utf8, "ci_level": pl.Float64, "ci_method": pl.Utf8,
                  "effect_size_method": pl.Utf8}
#: settings the p-values of (merged) counts need
SETTINGS = {"measure": pl.Utf8, "test": pl.Utf8, "total_permutations": pl.Int64,
            "exact": pl.Boolean, "alpha": pl.Float64, "correction": pl.Utf8,
            "n_units": pl.Int64, "n_runs": pl.Int64, "interval_total": pl.Int64,
            "aggregator": pl.Utf8, "baseline": pl.Utf8}
#: the rows of the all-pairs analysis and of the comparisons with a baseline run
FAMILIES = ("all", "baseline")
#: merged counts; a shard file has the identity columns of shards.ID_SCHEMA besides
COUNT_SCHEMA = {"family": pl.Utf8, "run_a": pl.Utf8, "run_b": pl.Utf8, "score_a": pl.Float64,
                "score_b": pl.Float64, "diff": pl.Float64,
                "effect_size": pl.Float64, "extreme": pl.Int64, "permutations": pl.Int64,
                "interval_samples": pl.Int64, "low_tail": pl.List(pl.Float64),
                "high_tail": pl.List(pl.Float64), **SETTINGS}


def check_settings(matrix: ScoreMatrix, test: str, correction: str | None,
                   permutations: int | None, alpha: float, exact: bool = False) -> tuple[str, int]:
    """Validate the settings against the test's record; returns ``(correction,
    permutations)`` with the test's default correction filled in and, in exact
    mode, the ``2^n`` enumerated assignments."""
    t = TESTS.lookup(test)
    corr = t.default_correction if correction is None else correction
    CORRECTIONS.lookup(corr)
    if not MIN_ALPHA <= alpha < 1:
        raise UsageError(f"alpha must be in [{MIN_ALPHA:g}, 1) (got {alpha:g}): a permutation "
                         f"test resolves p-values of 1/(B + 1), so alpha {MIN_ALPHA:g} already "
                         "needs a million permutations; use e.g. 0.05 or 0.01")
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


def _tails_frame(low: np.ndarray, high: np.ndarray) -> tuple[pl.Series, pl.Series]:
    return (pl.Series("low_tail", low.tolist(), pl.List(pl.Float64)),
            pl.Series("high_tail", high.tolist(), pl.List(pl.Float64)))


def _tails(frame: pl.DataFrame, column: str) -> np.ndarray:
    """A list column of equally long lists as a (rows, width) array."""
    width = frame[column].list.len()
    w = int(width[0]) if frame.height else 0
    if frame.height and (width != w).any():
        raise UsageError(f"the {column} lists differ in length")
    if not w:
        return np.empty((frame.height, 0))
    return frame[column].explode().to_numpy().astype(np.float64).reshape(frame.height, w)


def finite_or_null(x: np.ndarray) -> list[float | None]:
    """Floats with NaN written as null (nothing infinite or NaN reaches a file)."""
    return [None if not math.isfinite(v) else float(v) for v in np.asarray(x, np.float64)]


def baseline_index(matrix: ScoreMatrix, baseline: str) -> int:
    """The index of the run ``baseline`` (a usage error naming the runs if it is none of them)."""
    if baseline not in matrix.runs:
        shown = ", ".join(matrix.runs[:8]) + (" ..." if matrix.n_runs > 8 else "")
        raise UsageError(f"baseline run {baseline!r} is not among the {matrix.n_runs} runs "
                         f"({shown}): name one of them")
    return matrix.runs.index(baseline)


def significance_counts(matrix: ScoreMatrix, test: str, permutations: int | None = None,
                        seed: int = 0,
                        alpha: float = 0.05, correction: str | None = None,
                        measure: str | None = None, shard: int = 0, n_shards: int = 1,
                        exact: bool = False, baseline: str | None = None,
                        all_pairs: bool = True) -> pl.DataFrame:
    """Per-pair counts of the permutations of one shard (permutation tests only),
    with the shard's share of the interval's bootstrap samples: the rows of
    every pair (``all_pairs``) and, with ``baseline``, of the comparisons with
    that run (the record's baseline kernel)."""
    t = TESTS.lookup(test)
    if not t.resampling:
        raise UsageError(f"{t.title} draws no permutations: nothing to shard (run it "
                         "without --shard)")
    corr, total = check_settings(matrix, test, correction, permutations, alpha, exact)
    base = None if baseline is None else baseline_index(matrix, baseline)
    name = matrix.measure if measure is None else measure
    perms = shard_trials(total, shard, n_shards)
    boot = shard_trials(INTERVAL_SAMPLES, shard, n_shards)
    k = tail_size(INTERVAL_SAMPLES, alpha)
    settings = {"measure": name, "test": t.name, "total_permutations": total,
                "exact": exact, "alpha": alpha, "correction": corr, "n_units": matrix.n_units,
                "n_runs": matrix.n_runs, "interval_total": INTERVAL_SAMPLES,
                "aggregator": matrix.aggregator, "baseline": baseline}
    parts = []
    if all_pairs:
        ii, jj = np.triu_indices(matrix.n_runs, k=1)
        d, extreme = t.kernel(matrix, perms, seed, name, exact)
        parts.append(("all", ii, jj, d, extreme))
    if base is not None:
        ii, jj = baseline_pairs(matrix.n_runs, base)
        d, extreme = t.baseline(matrix, perms, seed, name, exact, base)
        parts.append(("baseline", ii, jj, d, extreme))
    runs = np.asarray(matrix.runs, dtype=object)
    full = matrix.full_scores()
    frames = []
    for family, ii, jj, d, extreme in parts:
        low, high = bootstrap_tails(matrix, ii, jj, boot, seed, name, k)
        p = len(ii)
        frames.append(pl.DataFrame({
            "family": [family] * p, "run_a": runs[ii].tolist(), "run_b": runs[jj].tolist(),
            "score_a": full[ii], "score_b": full[jj], "diff": d,
            # the effect sizes need no randomness: shard 0 computes them, once
            "effect_size": finite_or_null(pair_effects(matrix, ii, jj, t.family_wise))
            if shard == 0 else [None] * p,
            "extreme": extreme, "permutations": np.full(p, len(perms), np.int64),
            "interval_samples": np.full(p, len(boot), np.int64), "low_tail": [[]] * p,
            "high_tail": [[]] * p,
            **{k: [v] * p for k, v in settings.items()}}, schema=COUNT_SCHEMA)
            .with_columns(*_tails_frame(low, high)))
    counts = pl.concat(frames) if frames else pl.DataFrame(schema=COUNT_SCHEMA)
    return shards.tag(counts, shard, n_shards, seed,
                      shards.settings_text("significance", matrix, **settings))


def merge_significance(frames: Sequence[pl.DataFrame],
                       paths: Sequence[str | Path] | None = None) -> pl.DataFrame:
    """Add the shards' counts once :func:`~qacamp.reliability.shards.check_shards`
    finds them the complete, consistent shards of one analysis, and each holds
    its share of the permutations and of the interval's bootstrap samples and
    the same run pairs; the bootstrap tails are combined."""
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
    boot_total = int(cast[0]["interval_total"][0])
    same = ("family", "run_a", "run_b", "diff")
    key = cast[0].select(same)
    first = next((f for f, i in zip(cast, ids, strict=True) if i and i[0] == 0), cast[0])
    for f, name, (s, n) in zip(cast, names, ids, strict=True):
        for column, of in (("permutations", total), ("interval_samples", boot_total)):
            want = len(shard_trials(of, s, n))
            if f[column].n_unique() != 1 or int(f[column][0]) != want:
                raise InputError(name, f"column {column}", f"shard {s} counted "
                                 f"{f[column].unique().to_list()} {column.replace('_', ' ')}, "
                                 f"expected {want}", fix)
        if not f.select(same).equals(key):
            raise InputError(name, None, "its run pairs or observed differences differ from "
                             f"{names[0]}'s", fix)
    extreme = cast[0]["extreme"].to_numpy().copy()
    for f in cast[1:]:
        extreme += f["extreme"].to_numpy()
    k = tail_size(boot_total, float(cast[0]["alpha"][0]))
    try:
        low, high = merge_tails([_tails(f, "low_tail") for f in cast],
                                        [_tails(f, "high_tail") for f in cast], k)
    except UsageError as exc:
        raise InputError(names[0], "columns low_tail, high_tail", str(exc), fix) from None
    return cast[0].with_columns(first["effect_size"], pl.Series("extreme", extreme, pl.Int64),
                                pl.lit(total, pl.Int64).alias("permutations"),
                                pl.lit(boot_total, pl.Int64).alias("interval_samples"),
                                *_tails_frame(low, high))


def _frames(measure: str, test: str, runs_a, runs_b, statistic, d, p, correction: str,
            alpha: float, permutations: int, exact: bool, n_runs: int, n_units: int,
            lower, upper, effect, aggregator: str = "mean", f=None, f_p=None,
            flat: int = 0) -> tuple[pl.DataFrame, pl.DataFrame]:
    p = np.asarray(p, dtype=np.float64)
    adjusted, significant = adjust(p, correction, alpha)
    n = len(p)
    pairs = pl.DataFrame({
        "run_a": list(runs_a), "run_b": list(runs_b), "measure": [measure] * n,
        "test": [test] * n, "statistic": finite_or_null(statistic),
        "diff": np.asarray(d, np.float64), "p_value": p, "p_adjusted": adjusted,
        "significant": significant, "permutations": np.full(n, permutations, np.int64),
        "ci_lower": finite_or_null(lower), "ci_upper": finite_or_null(upper), "effect_size": finite_or_null(effect),
    }, schema=PAIR_SCHEMA)
    k = int(significant.sum())
    f_missing = f is not None and not math.isfinite(f)
    warning = "; ".join(w for w in (
        resolution_warning(test, correction, permutations, exact, n, alpha),
        no_variance_warning(test, flat, f_missing), interval_warning(test, alpha)) if w)
    summary = pl.DataFrame([{
        "measure": measure, "test": test, "correction": correction, "alpha": alpha,
        "permutations": permutations, "n_runs": n_runs, "n_units": n_units, "pairs": n,
        "significant_pairs": k, "share_significant": k / n if n else None,
        "family_wise": TESTS[test].family_wise,
        "min_p": min_p(test, correction, permutations, exact, n),
        "anova_f": None if f is None or f_missing else f,
        "anova_p": None if f_p is None or not math.isfinite(f_p) else f_p,
        "warning": warning or None, "ci_level": 1.0 - alpha,
        "ci_method": interval_method(test), "effect_size_method": effect_method(test, aggregator),
    }], schema=SUMMARY_SCHEMA)
    return pairs, summary


def settings_of(counts: pl.DataFrame) -> dict:
    """The settings of (merged) counts, checked to be those of every shard
    (a partial count is refused: merge every shard first)."""
    s = {c: counts[c][0] for c in SETTINGS}
    if int(counts["permutations"].max()) != int(s["total_permutations"]) or \
            int(counts["interval_samples"].max()) != int(s["interval_total"]):
        raise UsageError("these are the counts of one shard: merge every shard first "
                         "(`qacamp reliability merge --kind significance`)")
    return s


def p_values(counts: pl.DataFrame, settings: dict) -> np.ndarray:
    """The permutation p-values of counts: ``(1 + extreme) / (1 + B)``, or
    ``extreme / 2^n`` exact."""
    total, exact = int(settings["total_permutations"]), bool(settings["exact"])
    extreme = counts["extreme"].to_numpy()
    return extreme / total if exact else (1.0 + extreme) / (1.0 + total)


def intervals(counts: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The percentile bootstrap intervals of (merged) counts."""
    return percentile_interval(_tails(counts, "low_tail"), _tails(counts, "high_tail"))


def significance_results(counts: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``(pairs, summary)`` of (merged) permutation counts (their rows of every pair)."""
    s = settings_of(counts)
    counts = counts.filter(pl.col("family") == "all")
    total, exact = int(s["total_permutations"]), bool(s["exact"])
    d = counts["diff"].to_numpy()
    lower, upper = intervals(counts)
    return _frames(s["measure"], s["test"], counts["run_a"], counts["run_b"], np.abs(d), d,
                   p_values(counts, s), s["correction"], float(s["alpha"]), total, exact,
                   int(s["n_runs"]), int(s["n_units"]), lower, upper,
                   counts["effect_size"].to_numpy().astype(np.float64), s["aggregator"])


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
