"""Reading perspective (QA4MRE; Penas et al. 2013, CLEF 2013 overview).

c@1 per reading test and per topic (recomputed from counts); median, mean and
standard deviation of the reading tests' c@1 per topic and overall ("Median,
average and standard deviation of c@1 scores at test level, grouped by
topic"); tests passed = reading tests whose c@1 passes the threshold.

Two choices the overview leaves open, both options:

- the pass rule: section 5.3 says "passes a test ... if it achieves a score
  equal or higher than 0.5" (``pass_rule: at_least``, the default) while
  section 5.2 says passing "requires obtaining more than 0.5 of c@1"
  (``pass_rule: more_than``);
- the standard deviation's ddof: population (``test_std_ddof: 0``, default)
  or sample (``1``); the overview does not say which it printed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from ..aggregate import group_starts, sorted_by
from ._cite import QA4MRE
from .record import Measure

PASS_THRESHOLD = 0.5
PASS_RULE = "at_least"
STD_DDOF = 0
#: c@1 values are ratios of small counts; compare with this tolerance
_TOL = 1e-12

MEASURES = (
    Measure("test_c_at_1_median", "reading", "Median of the reading tests' c@1 (per topic and "
            "overall).", "median_t c@1(t)", QA4MRE, "set", unit="test", label="median test c@1"),
    Measure("test_c_at_1_mean", "reading", "Mean of the reading tests' c@1.", "mean_t c@1(t)",
            QA4MRE, "set", unit="test", label="mean test c@1"),
    Measure("test_c_at_1_std", "reading", "Standard deviation of the reading tests' c@1 "
            "(population by default; test_std_ddof: 1 for the sample std).",
            "sqrt(sum_t (c@1(t) - mean)^2 / (T - ddof))", QA4MRE, "set", unit="test",
            higher_is_better=False, parameters=(("test_std_ddof", STD_DDOF),), label="sd of test c@1"),
    Measure("tests_passed", "reading", "Reading tests passed (c@1 >= threshold; "
            "pass_rule: more_than for c@1 > threshold).",
            "#{t : c@1(t) >= threshold}", QA4MRE, "set", unit="test",
            parameters=(("pass_threshold", PASS_THRESHOLD), ("pass_rule", PASS_RULE)),
            integer=True, label="tests passed"),
    Measure("tests", "reading", "Reading tests scored.", "#tests", QA4MRE, "set", unit="test",
            integer=True, label="tests"),
)


def passes(value: pl.Expr, threshold: float = PASS_THRESHOLD, rule: str = PASS_RULE) -> pl.Expr:
    """Whether a test's c@1 passes: ``>= threshold`` (at_least) or ``> threshold``
    (more_than), with a 1e-12 tolerance for ratios like 5/10."""
    if rule == "more_than":
        return value > threshold + _TOL
    return value >= threshold - _TOL


def test_stats(df: pl.DataFrame, keys: Sequence[str], threshold: float = PASS_THRESHOLD,
               rule: str = PASS_RULE, ddof: int = STD_DDOF, value: str = "c_at_1",
               order: Sequence[str] = ()) -> pl.DataFrame:
    """Statistics of the per-test ``value`` (one row per reading test) per group
    ``keys``; ``order`` makes the tests of a group unique (fixed summation order).

    The rows are sorted by ``keys`` then ``order`` once, and every sum adds a
    group's values in that order (``numpy.add.reduceat``, as
    :func:`qacamp.aggregate.group_agg` does), so the same tests give the same
    bits: the mean is the sum over the count of values, the standard
    deviation the root of the summed squared deviations from that mean over
    ``count - ddof`` (none when that is not positive)."""
    keys = list(keys)
    v = pl.col(value)
    base = sorted_by(df.select(*keys, *[c for c in order if c not in keys],
                               v.cast(pl.Float64).alias("_v"),
                               passes(v, threshold, rule).cast(pl.Float64).alias("_pass")),
                     [*keys, *order])
    if not base.height:
        return base.select(keys).with_columns(
            [pl.lit(None, pl.Float64).alias(c) for c in ("test_c_at_1_median", "test_c_at_1_mean",
                                                          "test_c_at_1_std", "tests_passed",
                                                          "tests")])
    starts = group_starts(base, keys)
    sizes = np.diff(np.append(starts, base.height))
    values = base.get_column("_v")
    present = values.is_not_null().to_numpy()
    counted = np.add.reduceat(present.astype(np.int64), starts)
    mean = np.add.reduceat(values.fill_null(0.0).to_numpy(), starts) / np.maximum(counted, 1)
    mean = pl.Series("_m", mean, dtype=pl.Float64).scatter(np.flatnonzero(counted == 0), None)
    d2 = base.select(((pl.col("_v") - mean.gather(np.repeat(np.arange(len(starts)), sizes)))
                      ** 2).alias("_d2")).to_series()
    ss = np.add.reduceat(d2.fill_null(0.0).to_numpy(), starts)
    passed = np.add.reduceat(base.get_column("_pass").fill_null(0.0).to_numpy(), starts)
    median = (base.group_by(keys, maintain_order=True).agg(pl.col("_v").median())
              if keys else base.select(pl.col("_v").median())).get_column("_v")
    denom = sizes - ddof
    std = pl.Series(np.sqrt(ss / np.where(denom > 0, denom, 1)), dtype=pl.Float64)
    out = pl.DataFrame({"test_c_at_1_median": median, "test_c_at_1_mean": mean,
                        "test_c_at_1_std": std.scatter(np.flatnonzero(denom <= 0), None),
                        "tests_passed": pl.Series(passed, dtype=pl.Float64),
                        "tests": pl.Series(sizes, dtype=pl.Float64)})
    return pl.concat([base.select(keys).gather(starts), out], how="horizontal") if keys else out


__all__ = ["MEASURES", "PASS_THRESHOLD", "PASS_RULE", "STD_DDOF", "passes", "test_stats"]
