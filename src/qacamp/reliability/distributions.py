"""Per-unit score distributions (Voorhees 2005, section 3).

- :func:`median_zero_share`: per question type, the share of units whose
  median score across runs is 0 (TREC 2004: 92.2% factoid, 70.9% list, 64.1%
  Other).  Input: long frame (unit, run, value, qtype).
- :func:`box_stats`: box-plot data per unit (e.g. per series) across runs:
  n, min, q1, median, q3, max (linear-interpolated quantiles) and Tukey
  whiskers: the most extreme values within ``1.5 * IQR`` of the quartiles.
"""

from __future__ import annotations

import polars as pl

from ..errors import UsageError


def _check(df: pl.DataFrame, cols) -> None:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise UsageError(f"frame lacks columns {missing}")


def median_zero_share(units: pl.DataFrame, unit_col: str = "unit", value_col: str = "value",
                      qtype_col: str = "qtype") -> pl.DataFrame:
    """Rows (qtype, n_units, n_median_zero, share), sorted by qtype."""
    _check(units, [unit_col, value_col, qtype_col])
    med = units.group_by(qtype_col, unit_col).agg(pl.col(value_col).median().alias("_m"))
    return (med.group_by(qtype_col)
            .agg(pl.len().cast(pl.Int64).alias("n_units"),
                 (pl.col("_m") == 0).sum().cast(pl.Int64).alias("n_median_zero"))
            .with_columns((pl.col("n_median_zero") / pl.col("n_units")).alias("share"))
            .rename({qtype_col: "qtype"}).sort("qtype"))


def box_stats(df: pl.DataFrame, unit_col: str = "unit", value_col: str = "value",
              whisker: float = 1.5) -> pl.DataFrame:
    """Rows (unit, n, min, q1, median, q3, max, whisker_lo, whisker_hi), sorted by unit."""
    _check(df, [unit_col, value_col])
    v = pl.col(value_col)
    stats = df.group_by(unit_col).agg(
        pl.len().cast(pl.Int64).alias("n"), v.min().alias("min"),
        v.quantile(0.25, "linear").alias("q1"), v.median().alias("median"),
        v.quantile(0.75, "linear").alias("q3"), v.max().alias("max"))
    j = df.join(stats.select(unit_col, "q1", "q3"), on=unit_col)
    iqr = pl.col("q3") - pl.col("q1")
    wh = j.group_by(unit_col).agg(
        v.filter(v >= pl.col("q1") - whisker * iqr).min().alias("whisker_lo"),
        v.filter(v <= pl.col("q3") + whisker * iqr).max().alias("whisker_hi"))
    return (stats.join(wh, on=unit_col).rename({unit_col: "unit"})
            .with_columns(pl.col("unit").cast(pl.Utf8)).sort("unit"))
