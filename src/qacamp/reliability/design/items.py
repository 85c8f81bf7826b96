"""Question diagnostics: classical item analysis of the run x unit matrix.

Bodoff 2008 (Information Processing & Management 44(3)) brings classical
test theory to test collections: it "supports item analysis, which
identifies queries that are hampering the test's reliability, and which may
be candidates for refinement or removal"; Rodriguez et al. 2021 (ACL,
"Evaluation examples are not equally informative") do the same for QA
leaderboards.  The runs play the examinees, the units (questions) the items.

Per unit ``u`` (:func:`item_statistics`; ``values`` shaped ``(n_units,
n_runs)``, see :mod:`.common`):

- ``n_right``: runs whose value is at least ``right_at`` (default 1: full
  credit; for a right/wrong measure, the runs right); ``difficulty`` =
  ``n_right / n_runs``, the classical item difficulty (the share of
  examinees right); ``mean_value``: the mean value over the runs (the same
  number for a 0/1 measure, the mean credit for a graded one such as F);
- ``discrimination``: the item-rest correlation, Pearson's correlation over
  the runs between a run's value on ``u`` and its score on the other units
  (the rest score ``sum_{v != u} values[v, r]``; a mean would give the same
  correlation).  For 0/1 values it is the point-biserial correlation.  Null
  when it is undefined: the unit's values are all equal (every run right,
  or none) or the rest scores are;
- flags: ``no_run_right`` (``n_right == 0`` and no run has any credit
  either, every value ``<= 0``: for right/wrong values, no run right; for
  graded values such as F or a series score, no run scored at all, where
  ``n_right == 0`` alone would only say that no run had full credit),
  ``every_run_right`` (``n_right == n_runs``: every run right, or every run
  full credit), ``negative_discrimination`` (below ``-``
  :data:`NEGATIVE_TOLERANCE`: the strong runs fail where the weak runs
  succeed, a likely key error or an ambiguous question); ``flag`` joins the
  raised ones with ``"; "`` (null when none).

Vectorised, one pass over the matrix in chunks of rows (bounded memory,
fixed summation order): with ``T_r`` the run totals, ``rest = T - x_u``,
both centred over the runs, ``r = <x_c, rest_c> / (|x_c| |rest_c|)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from ...bounds import check_option
from .common import check_names, check_values, chunk_rows

ITEM_SCHEMA = {"unit": pl.Utf8, "n_runs": pl.Int64, "n_right": pl.Int64,
               "difficulty": pl.Float64, "mean_value": pl.Float64,
               "discrimination": pl.Float64, "no_run_right": pl.Boolean,
               "every_run_right": pl.Boolean, "negative_discrimination": pl.Boolean,
               "flag": pl.Utf8}
FLAGS = {"no_run_right": "no run right", "every_run_right": "every run right",
         "negative_discrimination": "negative discrimination"}
#: a correlation above -1e-12 is not called negative (float rounding of an exact 0)
NEGATIVE_TOLERANCE = 1e-12
#: a rest score whose variance is below this share of its mean square is constant
#: (the exact constancy is lost to the rounding of the run totals)
CONSTANT_REST = 1e-14
MIN_RUNS = 3


def item_statistics(values: object, units: Sequence[str], right_at: float = 1.0) -> pl.DataFrame:
    """One row per unit, in the matrix's order (:data:`ITEM_SCHEMA`).

    Needs at least 2 units and 3 runs (with 2 runs a correlation is only
    ever -1, 1 or undefined)."""
    x = check_values(values, min_units=2, min_runs=MIN_RUNS)
    n_u, n_r = x.shape
    names = check_names(units, n_u, "units")
    check_option("right_at", right_at)
    totals = x.sum(axis=0)
    n_right = np.empty(n_u, np.int64)
    credit = np.empty(n_u, bool)
    mean = np.empty(n_u)
    disc = np.full(n_u, np.nan)
    step = chunk_rows(n_r)
    for lo in range(0, n_u, step):
        c = x[lo:lo + step]
        n_right[lo:lo + step] = np.count_nonzero(c >= right_at, axis=1)
        credit[lo:lo + step] = c.max(axis=1) > 0
        m = c.mean(axis=1)
        mean[lo:lo + step] = m
        xc = c - m[:, None]
        rest = totals[None, :] - c
        rest_sq = np.einsum("ij,ij->i", rest, rest) / n_r
        rest -= rest.mean(axis=1)[:, None]
        var_x = np.einsum("ij,ij->i", xc, xc) / n_r
        var_rest = np.einsum("ij,ij->i", rest, rest) / n_r
        cov = np.einsum("ij,ij->i", xc, rest) / n_r
        constant = (c.max(axis=1) == c.min(axis=1)) | (var_rest <= CONSTANT_REST * rest_sq)
        with np.errstate(invalid="ignore", divide="ignore"):
            r = cov / np.sqrt(var_x * var_rest)
        disc[lo:lo + step] = np.where(constant, np.nan, np.clip(r, -1.0, 1.0))
    none_right = (n_right == 0) & ~credit
    all_right = n_right == n_r
    negative = ~np.isnan(disc) & (disc < -NEGATIVE_TOLERANCE)
    flags = [
        "; ".join(text for on, text in zip((a, b, c), FLAGS.values(), strict=True) if on) or None
        for a, b, c in zip(none_right.tolist(), all_right.tolist(), negative.tolist(),
                           strict=True)]
    return pl.DataFrame({
        "unit": names, "n_runs": np.full(n_u, n_r, np.int64), "n_right": n_right,
        "difficulty": n_right / n_r, "mean_value": mean,
        "discrimination": pl.Series(disc, dtype=pl.Float64).fill_nan(None),
        "no_run_right": none_right, "every_run_right": all_right,
        "negative_discrimination": negative, "flag": flags}, schema=ITEM_SCHEMA)


def flagged(items: pl.DataFrame) -> pl.DataFrame:
    """The units to re-check: those with a flag; negative discrimination first,
    then no run right, then every run right; within each, the lowest
    discrimination first (undefined counts as 0), then the matrix's order."""
    order = (pl.when(pl.col("negative_discrimination")).then(0)
             .when(pl.col("no_run_right")).then(1).otherwise(2))
    return (items.with_row_index("_row").filter(pl.col("flag").is_not_null())
            .sort([order, pl.col("discrimination").fill_null(0.0), pl.col("_row")])
            .drop("_row"))


__all__ = ["ITEM_SCHEMA", "FLAGS", "NEGATIVE_TOLERANCE", "MIN_RUNS", "item_statistics",
           "flagged"]
