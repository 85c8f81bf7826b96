"""Extrapolating swap error rates to the full collection (Voorhees 2003, 2005).

Per difference bin, the error rates ``e(c) = swaps / comparisons`` observed
at subset sizes ``c >= min_fit_size`` with ``e > 0`` are fitted with

- ``model="exp"`` (default): ``e = a * exp(-b * c)`` by least squares on
  ``log e = log a - b c`` (log-linear; Voorhees 2003 section 5);
- ``model="power"``: ``e = a * c ** -b`` by least squares on ``log e = log a - b log c``;
- ``model="logit"``: ``e = 1 / (1 + exp(-(a - b c)))``, binomial logistic
  regression of swaps out of comparisons on ``c`` (Newton-Raphson; here all
  points with comparisons > 0 and ``c >= min_fit_size`` are used, zeros too).

At least two distinct sizes are needed, otherwise ``a``/``b`` are null.
Derived quantities (``level`` defaults to 0.05):

- ``error_at_full``: the model at the full collection size ``N``;
- ``size_at_level``: the smallest integer size whose modelled error is
  ``<= level`` (null when the model never reaches it);
- ``required_difference``: convention - the upper edge ``lo + width`` of the
  lowest bin whose ``error_at_full <= level`` and all of whose higher bins
  (except bins without a fit) also satisfy it; so "a difference of at least
  ``required_difference`` has error <= level";
- ``size_reached``: ``size_at_level`` of that bin;
- ``sensitivity``: share of run pairs on the full collection whose
  ``|difference| >= required_difference`` (Voorhees 2005: 70% of 1953 pairs);
- the c@1 paper's Table 2: required (absolute) difference, highest score,
  relative difference = required / highest, share of comparisons meeting it
  (= sensitivity).
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from ..errors import UsageError
from .matrix import ScoreMatrix

MODELS = ("exp", "power", "logit")
FIT_SCHEMA = {"bin": pl.Int64, "lo": pl.Float64, "hi": pl.Float64, "a": pl.Float64,
              "b": pl.Float64, "n_points": pl.Int64, "error_at_full": pl.Float64,
              "size_at_level": pl.Int64}
SUMMARY_SCHEMA = {"measure": pl.Utf8, "full_size": pl.Int64, "level": pl.Float64,
                  "required_difference": pl.Float64, "size_reached": pl.Int64,
                  "sensitivity": pl.Float64, "n_pairs": pl.Int64, "highest_score": pl.Float64,
                  "relative_difference": pl.Float64}


def model_error(model: str, a: float, b: float, c):
    """Evaluate a fitted model at size(s) ``c``."""
    c = np.asarray(c, dtype=np.float64)
    if model == "exp":
        return a * np.exp(-b * c)
    if model == "power":
        return a * c ** (-b)
    return 1.0 / (1.0 + np.exp(-(a - b * c)))


def _size_at_level(model: str, a: float, b: float, level: float) -> int | None:
    if model == "exp":
        if a <= level:
            return 1
        if b <= 0:
            return None
        c = math.log(a / level) / b
    elif model == "power":
        if a <= level:
            return 1
        if b <= 0:
            return None
        c = math.exp(math.log(a / level) / b)
    else:
        logit = math.log(level / (1 - level))
        if a - b <= logit:
            return 1
        if b <= 0:
            return None
        c = (a - logit) / b
    k = max(1, math.ceil(c - 1e-9))
    return k


def _fit_logit(c: np.ndarray, k: np.ndarray, n: np.ndarray) -> tuple[float, float]:
    x = np.column_stack([np.ones_like(c), -c])
    beta = np.array([math.log((k.sum() + 0.5) / (n.sum() - k.sum() + 0.5)), 0.0])
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(x @ beta)))
        w = n * p * (1 - p) + 1e-12
        grad = x.T @ (k - n * p)
        hess = (x * w[:, None]).T @ x
        step = np.linalg.solve(hess + 1e-12 * np.eye(2), grad)
        beta = beta + step
        if np.abs(step).max() < 1e-10:
            break
    return float(beta[0]), float(beta[1])


def fit_bins(counts: pl.DataFrame, full_size: int, level: float = 0.05,
             min_fit_size: int = 20, model: str = "exp", bin_width: float = 0.01) -> pl.DataFrame:
    """Fit every bin of swap counts (size, bin, swaps, comparisons).

    Returns ``fits``: bin, lo, hi (null for the open last bin), a, b,
    n_points, error_at_full, size_at_level.
    """
    if model not in MODELS:
        raise UsageError(f"model {model!r}: use one of {', '.join(MODELS)}")
    if full_size < 1 or not 0 < level < 1:
        raise UsageError("full_size must be >= 1 and 0 < level < 1")
    need = {"size", "bin", "swaps", "comparisons"}
    if need - set(counts.columns):
        raise UsageError(f"swap counts lack columns {sorted(need - set(counts.columns))}")
    last = int(counts["bin"].max())
    rows = []
    for b_i in range(last + 1):  # loop over bins (at most a few dozen)
        sub = counts.filter((pl.col("bin") == b_i) & (pl.col("size") >= min_fit_size)
                            & (pl.col("comparisons") > 0)).sort("size")
        c = sub["size"].to_numpy().astype(np.float64)
        k = sub["swaps"].to_numpy().astype(np.float64)
        n = sub["comparisons"].to_numpy().astype(np.float64)
        if model != "logit":
            keep = k > 0
            c, e = c[keep], k[keep] / n[keep]
        a = b = full = None
        at = None
        if len(np.unique(c)) >= 2:
            if model == "logit":
                a, b = _fit_logit(c, k, n)
            else:
                x = c if model == "exp" else np.log(c)
                slope, intercept = np.polyfit(x, np.log(e), 1)
                a, b = float(math.exp(intercept)), float(-slope)
            full = float(model_error(model, a, b, full_size))
            at = _size_at_level(model, a, b, level)
        rows.append({"bin": b_i, "lo": round(b_i * bin_width, 12),
                     "hi": None if b_i == last else round((b_i + 1) * bin_width, 12),
                     "a": a, "b": b, "n_points": int(len(c)), "error_at_full": full,
                     "size_at_level": at})
    return pl.DataFrame(rows, schema=FIT_SCHEMA)


def required_difference(fits: pl.DataFrame, level: float = 0.05,
                        bin_width: float = 0.01) -> tuple[float | None, int | None]:
    """(required difference, size at which its bin reaches ``level``); see module docstring."""
    err = fits["error_at_full"].to_list()
    bins = fits["bin"].to_list()
    at = fits["size_at_level"].to_list()
    ok = [e is not None and e <= level for e in err]
    known = [e is not None for e in err]
    for i in range(len(err)):
        if ok[i] and all(ok[j] or not known[j] for j in range(i, len(err))):
            return round(bins[i] * bin_width + bin_width, 12), at[i]
    return None, None


def summarize(fits: pl.DataFrame, full_size: int, level: float = 0.05, bin_width: float = 0.01,
              matrix: ScoreMatrix | None = None, measure: str = "") -> pl.DataFrame:
    """One-row ``summary``: measure, full_size, level, required_difference,
    size_reached, sensitivity, n_pairs, highest_score, relative_difference
    (sensitivity and score columns need ``matrix``)."""
    req, reached = required_difference(fits, level, bin_width)
    sens = highest = rel = None
    n_pairs = None
    if matrix is not None:
        scores = matrix.full_scores()
        i, j = np.triu_indices(len(scores), 1)
        d = np.abs(scores[i] - scores[j])
        n_pairs = int(len(d))
        highest = float(scores.max())
        if req is not None and n_pairs:
            sens = float(np.mean(d >= req - 1e-12))
            rel = req / highest if highest > 0 else None
    return pl.DataFrame([{"measure": measure or (matrix.measure if matrix else ""),
                          "full_size": int(full_size), "level": float(level),
                          "required_difference": req, "size_reached": reached,
                          "sensitivity": sens, "n_pairs": n_pairs, "highest_score": highest,
                          "relative_difference": rel}], schema=SUMMARY_SCHEMA)


def fit_swap(counts: pl.DataFrame, full_size: int, level: float = 0.05, min_fit_size: int = 20,
             model: str = "exp", bin_width: float = 0.01, matrix: ScoreMatrix | None = None,
             measure: str = "") -> tuple[pl.DataFrame, pl.DataFrame]:
    """``(fits, summary)`` from swap counts; see :func:`fit_bins` and :func:`summarize`."""
    fits = fit_bins(counts, full_size, level, min_fit_size, model, bin_width)
    return fits, summarize(fits, full_size, level, bin_width, matrix, measure)
