"""Reading perspective (QA4MRE; Peñas et al. 2013, CLEF 2013 overview).

c@1 per reading test and per topic (recomputed from counts); median, mean and
standard deviation (population, ddof = 0) of the reading tests' c@1 per topic
and overall; tests passed = reading tests with c@1 >= pass threshold (0.5).
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from . import Measure
from ._cite import QA4MRE

PASS_THRESHOLD = 0.5

MEASURES = (
    Measure("test_c_at_1_median", "reading", "Median of the reading tests' c@1 (per topic and "
            "overall).", "median_t c@1(t)", QA4MRE, "set", unit="test"),
    Measure("test_c_at_1_mean", "reading", "Mean of the reading tests' c@1.", "mean_t c@1(t)",
            QA4MRE, "set", unit="test"),
    Measure("test_c_at_1_std", "reading", "Population standard deviation of the reading tests' "
            "c@1.", "sqrt(mean_t (c@1(t) - mean)^2)", QA4MRE, "set", unit="test",
            higher_is_better=False),
    Measure("tests_passed", "reading", "Reading tests passed (c@1 >= threshold).",
            "#{t : c@1(t) >= threshold}", QA4MRE, "set", unit="test",
            parameters=(("pass_threshold", PASS_THRESHOLD),), integer=True),
    Measure("tests", "reading", "Reading tests scored.", "#tests", QA4MRE, "set", unit="test",
            integer=True),
)


def test_stats(df: pl.DataFrame, keys: Sequence[str], threshold: float = PASS_THRESHOLD,
               value: str = "c_at_1") -> pl.DataFrame:
    """Statistics of the per-test ``value`` (one row per reading test) per group ``keys``."""
    v = pl.col(value)
    return df.group_by(list(keys), maintain_order=True).agg(
        v.median().alias("test_c_at_1_median"), v.mean().alias("test_c_at_1_mean"),
        v.std(ddof=0).alias("test_c_at_1_std"),
        (v >= threshold - 1e-12).sum().cast(pl.Float64).alias("tests_passed"),
        pl.len().cast(pl.Float64).alias("tests"))
