"""Every run against one chosen baseline run: the table most system papers
print.  The family is the ``R - 1`` comparisons with the baseline only, so the
control of the error is over those comparisons, not over all pairs.  Each
test's record carries its baseline kernel (:class:`.record.SignificanceTest`
``baseline``), as it carries its all-pairs kernel:

- the paired t-test and the randomisation test: the same per-pair tests as
  :func:`~.results.significance_test` (the same permutations, seeded per
  permutation), the correction (Holm by default) over the ``R - 1`` p-values;
- randomised Tukey HSD: the reference distribution is the largest difference
  between any permuted run and the permuted baseline,
  ``max_r |M(r*_b) - M(base*_b)|`` (the permutations of the all-pairs test;
  Westfall & Young 1993's single-step max-T over the comparisons with the
  baseline);
- two-way ANOVA: Dunnett's test with the ANOVA's residual variance
  (:mod:`.dunnett`).

The permutation tests count their permutations in the shards of the
all-pairs analysis (rows of ``family`` ``baseline`` in the counts,
:func:`~.results.significance_counts`); :func:`baseline_results` turns
(merged) counts into the comparison.  Intervals and effect sizes are those of
the all-pairs analysis (:mod:`.effects`).  :func:`baseline_comparison`
returns one row per run but the baseline (:data:`BASELINE_SCHEMA`), best
score first; a campaign without a baseline run gets the empty frame.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ..matrix import ScoreMatrix
from .corrections import adjust
from .dunnett import dunnett_critical, dunnett_p, dunnett_tail
from .record import baseline_pairs
from .registry import DEFAULT_TEST, TESTS
from .results import (
    baseline_index,
    check_settings,
    finite_or_null,
    intervals,
    p_values,
    settings_of,
    significance_counts,
)
from .wording import effect_method, interval_method

BASELINE_SCHEMA = {"run": pl.Utf8, "baseline": pl.Utf8, "measure": pl.Utf8, "test": pl.Utf8,
                   "correction": pl.Utf8, "score": pl.Float64, "baseline_score": pl.Float64,
                   "diff": pl.Float64, "ci_lower": pl.Float64, "ci_upper": pl.Float64,
                   "effect_size": pl.Float64, "statistic": pl.Float64, "p_value": pl.Float64,
                   "p_adjusted": pl.Float64, "significant": pl.Boolean,
                   "permutations": pl.Int64, "alpha": pl.Float64, "ci_method": pl.Utf8,
                   "effect_size_method": pl.Utf8}


def empty_comparison() -> pl.DataFrame:
    """The comparison of a campaign without a baseline run: no rows."""
    return pl.DataFrame(schema=BASELINE_SCHEMA)


def _frame(runs, baseline: str, measure: str, test: str, correction: str, score, base_score,
           d, lower, upper, effect, statistic, p, flat, permutations: int, alpha: float,
           ci_method: str, aggregator: str) -> pl.DataFrame:
    p = np.clip(np.asarray(p, np.float64), 0.0, 1.0)
    adjusted, significant = adjust(p, correction, alpha)
    n = len(p)
    out = pl.DataFrame({
        "run": list(runs), "baseline": [baseline] * n, "measure": [measure] * n,
        "test": [test] * n, "correction": [correction] * n,
        "score": np.asarray(score, np.float64), "baseline_score": np.asarray(base_score,
                                                                             np.float64),
        "diff": np.asarray(d, np.float64), "ci_lower": finite_or_null(lower),
        "ci_upper": finite_or_null(upper), "effect_size": finite_or_null(effect),
        "statistic": finite_or_null(statistic), "p_value": p, "p_adjusted": adjusted,
        "significant": significant & ~np.asarray(flat, bool),
        "permutations": np.full(n, permutations, np.int64), "alpha": [alpha] * n,
        "ci_method": [ci_method] * n,
        "effect_size_method": [effect_method(test, aggregator)] * n,
    }, schema=BASELINE_SCHEMA)
    return out.sort(["score", "run"], descending=[True, False])


def baseline_results(counts: pl.DataFrame) -> pl.DataFrame:
    """The comparison with the baseline run of (merged) permutation counts (their
    rows of ``family`` ``baseline``); the empty frame when they have none."""
    s = settings_of(counts)
    rows = counts.filter(pl.col("family") == "baseline")
    if s["baseline"] is None or not rows.height:
        return empty_comparison()
    d = rows["diff"].to_numpy()
    lower, upper = intervals(rows)
    return _frame(rows["run_a"], str(s["baseline"]), s["measure"], s["test"], s["correction"],
                  rows["score_a"], rows["score_b"], d, lower, upper,
                  rows["effect_size"].to_numpy().astype(np.float64), np.abs(d),
                  p_values(rows, s), np.zeros(len(d), bool), int(s["total_permutations"]),
                  float(s["alpha"]), interval_method(s["test"]), s["aggregator"])


def baseline_comparison(matrix: ScoreMatrix, baseline: str, test: str = DEFAULT_TEST,
                        permutations: int | None = None, seed: int = 0, alpha: float = 0.05,
                        correction: str | None = None, measure: str | None = None,
                        exact: bool = False) -> pl.DataFrame:
    """Every other run of ``matrix`` against the run ``baseline``, the error
    controlled over those ``R - 1`` comparisons (module docstring); the
    settings as :func:`~.results.significance_test` takes them."""
    t = TESTS.lookup(test)
    base = baseline_index(matrix, baseline)
    corr, _ = check_settings(matrix, test, correction, permutations, alpha, exact)
    if t.resampling:
        return baseline_results(significance_counts(
            matrix, test, permutations, seed, alpha, correction, measure, exact=exact,
            baseline=baseline, all_pairs=False))
    name = matrix.measure if measure is None else measure
    ii, jj = baseline_pairs(matrix.n_runs, base)
    full = matrix.full_scores()
    c = t.baseline(matrix, alpha, base)
    return _frame([matrix.runs[i] for i in ii], baseline, name, t.name, corr, full[ii],
                  full[jj], c["d"], c["lower"], c["upper"], c["effect"], c["statistic"],
                  c["p"], c["flat"], 0, alpha, c.get("ci_method") or interval_method(t.name),
                  matrix.aggregator)


__all__ = ["BASELINE_SCHEMA", "baseline_comparison", "baseline_results", "dunnett_critical",
           "dunnett_p", "dunnett_tail", "empty_comparison"]
