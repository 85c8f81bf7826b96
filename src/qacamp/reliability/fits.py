"""The required difference and sensitivity of the swap method, extrapolated
(Voorhees 2003, 2005) or observed at one subset size (Penas & Rodrigo 2011).

Input: swap counts ``size, bin, swaps, comparisons`` (and ``max_score``
when the counts come from :func:`qacamp.reliability.swap.swap_counts`).
Settings: :class:`FitSettings`.  Every rule below is quoted from its paper in
``docs/reliability.md``.

Fits (:func:`fit_bins`, one row per bin)
    Per difference bin, the sizes ``c >= min_fit_size`` (inclusive; Voorhees
    2003 used "only question set sizes greater than 20", i.e. 21) with
    comparisons are fitted with the model (:mod:`.curves`; default
    ``exp-binomial``: ``e(c) = a exp(-b c)`` by binomial maximum likelihood,
    sizes without swaps included).  ``error_at_full`` is the curve at the
    full collection size ``N``; ``size_at_level`` the smallest size whose
    modelled error is ``<= level``.  A bin gets no ``error_at_full`` (null)
    and a ``reason`` when it lies outside ``fitted_bins`` (Voorhees 2003:
    "Curves could not be fit for the first bin ... or for bins where
    differences were greater than 0.16"; the observed reading below uses every
    bin), has fewer than 3 usable sizes, has
    no finite fit, rises with size (``b < 0``), or extrapolates to an error
    above 0.5 (worse than a coin toss).  ``warning`` flags bins with fewer
    than ``min_comparisons`` comparisons (at the fitted sizes; in observed
    mode at the observed size).  With ``observed_at = C`` the columns
    ``observed_*`` hold the swaps, comparisons and swap rate at size ``C``.

Required difference (:func:`required_difference`)
    The LOWER edge of the first bin (smallest differences first) whose error
    rate is ``<= level``: Voorhees 2005 reads the bin ``0.05 <= d < 0.06``
    as "requires a difference in scores of at least 0.05" while "Score
    differences of between 0.04 and 0.05 ... have an error rate slightly
    greater than 5%".  ``mode="extrapolate"`` reads ``error_at_full``
    (bins without one are skipped); ``mode="observed"`` reads the observed
    swap rate at ``observed_at`` with no extrapolation, as the c@1 paper:
    "we select the difference that represents the first bin where the
    swap-rate is lower or equal than 0.05" (bins without comparisons at that
    size are skipped).  The first bin (``0 <= d < 0.01``, "including no
    difference at all") is never the required one: its lower edge 0 is no
    difference, and its comparisons include exact ties on the first subset,
    which can never be swaps, so a discrete measure on small subsets (all
    differences multiples of ``1/c``) can show it a zero error rate.

Summary (:func:`summarize`, one row)
    ``required_difference``, ``required_bin``; ``size_reached`` =
    ``size_at_level`` of the required bin (extrapolate mode; "can be obtained
    with a test set of 47 series"), null in observed mode; ``sensitivity``:
    extrapolate mode - share of the run pairs on the full collection whose
    difference falls in the required bin or above (Voorhees 2005: "70% of
    the pairs have a difference ... at least 0.05"); observed mode - share of
    the experiment's comparisons at ``observed_at`` (pairs x trials) in the
    required bin or above (c@1 paper: "the number of times among all the
    comparisons in the experiment where this performance difference is
    obtained"); ``n_comparisons`` is that denominator.  The c@1 paper's
    Table 2: (i) ``required_difference``, (ii) ``highest_score`` = the
    highest full-collection run score, (iii) ``relative_difference`` =
    (i)/(ii) with (ii) unrounded (0.17 / 0.484 = 35.12%), (iv)
    ``sensitivity``.  The paper does not say over what (ii) is taken; the
    subset reading is kept too: ``highest_subset_score`` (highest score of
    any run on any subset of size ``observed_at`` in the experiment, from
    the counts' ``max_score``) and ``relative_difference_subsets``.
    ``warning`` ("; "-joined, null when none): fewer than ``min_runs`` runs;
    bins at or below the required difference with few comparisons; a higher
    bin whose error rate is above the level; lower bins without an
    extrapolated error.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from ..errors import UsageError
from .curves import check_model, describe_model, fit_curve, model_error, size_at_level
from .fit_settings import (
    DEFAULT_MIN_FIT_SIZE,
    MAX_ERROR,
    MIN_COMPARISONS,
    MIN_RUNS,
    MODES,
    FitSettings,
    parse_fitted_bins,
    settings_of,
)
from .matrix import ScoreMatrix
from .swap import bin_index

FIT_SCHEMA = {"bin": pl.Int64, "lo": pl.Float64, "hi": pl.Float64, "a": pl.Float64,
              "b": pl.Float64, "n_points": pl.Int64, "error_at_full": pl.Float64,
              "size_at_level": pl.Int64, "model": pl.Utf8, "swaps": pl.Int64,
              "comparisons": pl.Int64, "reason": pl.Utf8, "warning": pl.Utf8,
              "observed_size": pl.Int64, "observed_swaps": pl.Int64,
              "observed_comparisons": pl.Int64, "observed_error": pl.Float64}
SUMMARY_SCHEMA = {"measure": pl.Utf8, "full_size": pl.Int64, "level": pl.Float64,
                  "required_difference": pl.Float64, "size_reached": pl.Int64,
                  "sensitivity": pl.Float64, "n_pairs": pl.Int64, "highest_score": pl.Float64,
                  "relative_difference": pl.Float64, "mode": pl.Utf8, "observed_at": pl.Int64,
                  "model": pl.Utf8, "min_fit_size": pl.Int64, "fitted_bins": pl.Utf8,
                  "required_bin": pl.Int64, "n_runs": pl.Int64, "n_comparisons": pl.Int64,
                  "highest_subset_score": pl.Float64, "relative_difference_subsets": pl.Float64,
                  "min_comparisons": pl.Int64, "warning": pl.Utf8}
OUTSIDE = "not fitted: outside the fitted bins"


def _check_counts(counts: pl.DataFrame) -> None:
    need = {"size", "bin", "swaps", "comparisons"}
    if need - set(counts.columns):
        raise UsageError(f"swap counts lack columns {sorted(need - set(counts.columns))}")
    if counts.height == 0:
        raise UsageError("swap counts are empty")


def resolve(counts: pl.DataFrame, settings: FitSettings) -> FitSettings:
    """Settings with ``observed_at`` filled in (observed mode: default the
    largest size counted) and checked against the sizes counted."""
    if settings.mode != "observed":
        return settings
    sizes = sorted(set(counts["size"].to_list()))
    at = settings.observed_at if settings.observed_at is not None else sizes[-1]
    if at not in sizes:
        raise UsageError(f"observed_at {at}: the swap counts have no size {at} "
                         f"(sizes counted: {sizes[0]}..{sizes[-1]}, {len(sizes)} sizes)")
    return FitSettings(**{**settings.__dict__, "observed_at": int(at)})


def fit_bins(counts: pl.DataFrame, full_size: int, settings: FitSettings | None = None,
             **kw) -> pl.DataFrame:
    """One row per bin (:data:`FIT_SCHEMA`); settings as :class:`FitSettings`
    or its fields as keywords."""
    _check_counts(counts)
    s = resolve(counts, settings_of(settings, kw))
    if full_size < 1:
        raise UsageError("full_size must be >= 1")
    last = int(counts["bin"].max())
    at = counts.filter(pl.col("size") == s.observed_at) if s.observed_at else None
    rows = []
    for b_i in range(last + 1):  # loop over bins (at most a few dozen)
        lo = round(b_i * s.bin_width, 12)
        sub = counts.filter((pl.col("bin") == b_i) & (pl.col("size") >= s.min_fit_size)
                            & (pl.col("comparisons") > 0)).sort("size")
        k, n = sub["swaps"].to_numpy(), sub["comparisons"].to_numpy()
        row = {"bin": b_i, "lo": lo, "hi": None if b_i == last else round((b_i + 1) * s.bin_width, 12),
               "a": None, "b": None, "n_points": 0, "error_at_full": None, "size_at_level": None,
               "model": s.model, "swaps": int(k.sum()), "comparisons": int(n.sum()),
               "reason": None, "warning": None, "observed_size": s.observed_at,
               "observed_swaps": None, "observed_comparisons": None, "observed_error": None}
        if s.fitted(lo):
            curve = fit_curve(s.model, sub["size"].to_numpy(), k, n)
            keep = k > 0 if check_model(s.model)[1] == "loglinear" else np.ones(len(k), bool)
            row.update(a=curve.a, b=curve.b, reason=curve.reason, n_points=int(keep.sum()))
            if curve.reason is None:
                full = float(model_error(s.model, curve.a, curve.b, full_size))
                if curve.b < 0:
                    row["reason"] = "fit rises with size (b < 0)"
                elif full > MAX_ERROR:
                    row["reason"] = f"extrapolated error {full:.3f} above {MAX_ERROR}"
                else:
                    row.update(error_at_full=full,
                               size_at_level=size_at_level(s.model, curve.a, curve.b, s.level))
            if at is None and b_i > 0 and row["comparisons"] < s.min_comparisons:
                row["warning"] = (f"few comparisons at the fitted sizes ({row['comparisons']} "
                                  f"< {s.min_comparisons})")
        else:
            row["reason"] = OUTSIDE
        if at is not None:
            cell = at.filter(pl.col("bin") == b_i)
            ks, ns = int(cell["swaps"].sum()), int(cell["comparisons"].sum())
            row.update(observed_swaps=ks, observed_comparisons=ns,
                       observed_error=ks / ns if ns else None)
            if b_i > 0 and ns < s.min_comparisons:
                row["warning"] = (f"few comparisons at size {s.observed_at} "
                                  f"({ns} < {s.min_comparisons})")
        rows.append(row)
    return pl.DataFrame(rows, schema=FIT_SCHEMA)


def _reading(fits: pl.DataFrame, mode: str) -> list[float | None]:
    return fits["observed_error" if mode == "observed" else "error_at_full"].to_list()


def _required_index(fits: pl.DataFrame, level: float, mode: str) -> int | None:
    """Row of the first bin after the first whose error rate (per ``mode``) is
    ``<= level`` (the first bin, lower edge 0, is no difference at all)."""
    lows = fits["lo"].to_list()
    for i, e in enumerate(_reading(fits, mode)):
        if lows[i] > 0 and e is not None and not math.isnan(e) and e <= level:
            return i
    return None


def required_difference(fits: pl.DataFrame, level: float = 0.05,
                        mode: str = "extrapolate") -> tuple[float | None, int | None]:
    """(required difference = lower edge of the first bin with error <= level,
    size at which that bin's curve reaches the level (extrapolate mode only))."""
    if mode not in MODES:
        raise UsageError(f"mode {mode!r}: use one of {', '.join(MODES)}")
    i = _required_index(fits.sort("bin"), level, mode)
    if i is None:
        return None, None
    row = fits.sort("bin").row(i, named=True)
    return row["lo"], (row["size_at_level"] if mode == "extrapolate" else None)


def bin_label(lo: float, hi: float | None) -> str:
    return f">= {lo:.2f}" if hi is None else f"{lo:.2f}-{hi:.2f}"


#: how the summary's warnings start (:func:`weak_evidence`): fewer runs than
#: ``min_runs``, and a higher bin above the level; the report says these two in
#: its sentence (:func:`warning_items`)
FEW_RUNS = "only "
NON_MONOTONE = "error rate above "


def warning_items(warning: str | None) -> list[str]:
    """The summary's ``warning`` split into its items (``"; "``-joined)."""
    return [w for w in (warning or "").split("; ") if w]


def too_few_runs(warning: str | None) -> bool:
    """The summary's warning says the campaign has fewer runs than the
    weak-evidence threshold: its required difference is not an estimate (no
    sentence, figure or letters are drawn from it)."""
    return any(w.startswith(FEW_RUNS) for w in warning_items(warning))


def weak_evidence(fits: pl.DataFrame, s: FitSettings, req: int | None,
                  n_runs: int | None) -> list[str]:
    """The summary's warnings (see the module docstring); no warning is about
    the first bin, which never decides."""
    out = []
    if n_runs is not None and n_runs < s.min_runs:
        out.append(f"{FEW_RUNS}{n_runs} runs ({n_runs * (n_runs - 1) // 2} pairs): fewer than "
                   f"{s.min_runs} runs ({s.min_runs * (s.min_runs - 1) // 2} pairs) are weak "
                   "evidence")
    # the first bin (0 <= d < 0.01) can never decide (see required_difference):
    # nothing about it is a warning
    rows = [r for r in fits.sort("bin").to_dicts() if r["bin"] != 0]
    if s.mode == "extrapolate":
        rows = [r for r in rows if r["reason"] != OUTSIDE]
    upto = [r for r in rows if req is None or r["bin"] <= req]
    few = [r for r in upto if r["warning"]]
    if few:
        n_of = "observed_comparisons" if s.mode == "observed" else "comparisons"
        out.append(f"few comparisons (< {s.min_comparisons}) in difference bin(s) "
                   + ", ".join(f"{bin_label(r['lo'], r['hi'])} ({r[n_of]})" for r in few)
                   + ": their error rates are uncertain")
    if req is not None:
        key = "observed_error" if s.mode == "observed" else "error_at_full"
        above = [r for r in rows if r["bin"] > req and r[key] is not None and r[key] > s.level]
        if above:
            out.append(f"{NON_MONOTONE}{s.level:g} in higher bin(s) "
                       + ", ".join(bin_label(r["lo"], r["hi"]) for r in above)
                       + ": the error rate does not fall steadily with the difference")
        if s.mode == "extrapolate":
            gaps = [r for r in rows if r["bin"] < req and r["error_at_full"] is None]
            if gaps:
                out.append("no extrapolated error in lower bin(s) "
                           + ", ".join(f"{bin_label(r['lo'], r['hi'])} ({r['reason']})"
                                       for r in gaps)
                           + ": the required difference could be lower")
    return out


def summarize(fits: pl.DataFrame, full_size: int, settings: FitSettings | None = None,
              matrix: ScoreMatrix | None = None, measure: str = "",
              highest_subset_score: float | None = None, **kw) -> pl.DataFrame:
    """One-row summary (:data:`SUMMARY_SCHEMA`); ``matrix`` gives the pair
    sensitivity (extrapolate mode), the highest score and the run count."""
    s = settings_of(settings, kw)
    if s.mode == "observed" and s.observed_at is None:
        raise UsageError("observed mode needs observed_at (see fits.resolve)")
    fits = fits.sort("bin")
    i = _required_index(fits, s.level, s.mode)
    row = fits.row(i, named=True) if i is not None else None
    req = row["lo"] if row else None
    out = {"measure": measure or (matrix.measure if matrix is not None else ""),
           "full_size": int(full_size), "level": float(s.level), "required_difference": req,
           "size_reached": row["size_at_level"] if row and s.mode == "extrapolate" else None,
           "sensitivity": None, "n_pairs": None, "highest_score": None,
           "relative_difference": None, "mode": s.mode, "observed_at": s.observed_at,
           "model": s.model, "min_fit_size": s.min_fit_size, "fitted_bins": s.bins_text(),
           "required_bin": row["bin"] if row else None, "n_runs": None, "n_comparisons": None,
           "highest_subset_score": highest_subset_score, "relative_difference_subsets": None,
           "min_comparisons": s.min_comparisons, "warning": None}
    if matrix is not None:
        scores = matrix.full_scores()
        ii, jj = np.triu_indices(len(scores), 1)
        out.update(n_runs=int(len(scores)), n_pairs=int(len(ii)),
                   highest_score=float(scores.max()))
        if s.mode == "extrapolate":
            out["n_comparisons"] = int(len(ii))
            if row and len(ii):
                bins = bin_index(np.abs(scores[ii] - scores[jj]), s.bin_width, fits.height)
                out["sensitivity"] = float(np.mean(bins >= row["bin"]))
    if s.mode == "observed":
        n = fits["observed_comparisons"].fill_null(0).to_numpy()
        out["n_comparisons"] = int(n.sum())
        if row and n.sum():
            out["sensitivity"] = float(n[fits["bin"].to_numpy() >= row["bin"]].sum() / n.sum())
    if req is not None:
        # a share of a score that is not positive means nothing (a utility whose
        # best run is negative): left empty
        if out["highest_score"] is not None and out["highest_score"] > 0:
            out["relative_difference"] = req / out["highest_score"]
        if highest_subset_score is not None and highest_subset_score > 0:
            out["relative_difference_subsets"] = req / highest_subset_score
    warnings = weak_evidence(fits, s, out["required_bin"], out["n_runs"])
    out["warning"] = "; ".join(warnings) or None
    return pl.DataFrame([out], schema=SUMMARY_SCHEMA)


def fit_swap(counts: pl.DataFrame, full_size: int, settings: FitSettings | None = None,
             matrix: ScoreMatrix | None = None, measure: str = "",
             **kw) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``(fits, summary)`` from swap counts; see :func:`fit_bins` and :func:`summarize`."""
    _check_counts(counts)
    s = resolve(counts, settings_of(settings, kw))
    fits = fit_bins(counts, full_size, s)
    best = None
    if s.mode == "observed" and "max_score" in counts.columns:
        best = counts.filter(pl.col("size") == s.observed_at)["max_score"].max()
    summary = summarize(fits, full_size, s, matrix, measure, best)
    largest = counts["size"].max()
    if s.mode == "extrapolate" and largest is not None and largest < s.min_fit_size:
        # e.g. a collection too small for the kind's default sizes (the swap job
        # fitted them to it): say why no bin could be fitted
        note = (f"no subset size reaches min_fit_size {s.min_fit_size} (the largest counted "
                f"is {largest}, of a collection of {full_size}): nothing was fitted")
        old = summary["warning"][0]
        summary = summary.with_columns(pl.lit(f"{note}; {old}" if old else note,
                                              pl.Utf8).alias("warning"))
    return fits, summary


def describe(summary: pl.DataFrame) -> str:
    """One line per summary row saying how the required difference was read."""
    lines = []
    for r in summary.to_dicts():
        how = (f"observed swap rates at size {r['observed_at']} (no extrapolation)"
               if r["mode"] == "observed" else
               f"{describe_model(r['model'])} on sizes >= {r['min_fit_size']}, "
               f"extrapolated to {r['full_size']}")
        req = "not reached" if r["required_difference"] is None else \
            f"{r['required_difference']:.2f}"
        lines.append(f"{r['measure'] or 'swap'}: required difference {req} at error level "
                     f"{r['level']:g}, from {how}")
    return "\n".join(lines)


__all__ = ["FIT_SCHEMA", "SUMMARY_SCHEMA", "MODES", "FitSettings", "parse_fitted_bins",
           "fit_bins", "required_difference", "summarize", "fit_swap", "weak_evidence",
           "describe", "bin_label", "MIN_RUNS", "MIN_COMPARISONS", "DEFAULT_MIN_FIT_SIZE",
           "FEW_RUNS", "NON_MONOTONE", "warning_items", "too_few_runs"]
