"""The swap method's answer to "how many units": read from the fitted curves.

Input: the fits frame of :func:`qacamp.reliability.fits.fit_bins` (one row per
difference bin: ``lo``, ``hi``, ``a``, ``b``, ``model``, ``reason``), already
computed by the swap analysis.  Voorhees 2003 fits per bin ``e(c) = a exp(-b
c)`` (the default model; :mod:`..curves` has the others) and reads the size
at which a bin's error rate falls to the error level; Voorhees 2005: "a
difference ... can be obtained with a test set of 47 series".

:func:`swap_size`: for a difference ``d``, the bin holding it (``lo <= d <
hi``, the last bin open above; Voorhees reads the bin ``0.05 <= d < 0.06``
as a difference "of at least 0.05") and the smallest size ``c >= 1`` whose
modelled error is at most ``level``
(:func:`qacamp.reliability.curves.size_at_level`, the same function that
fills the fits' ``size_at_level``).  A bin the fit could not use (its
``reason``: outside the fitted bins, too few sizes, rising with size, an
extrapolated error above 0.5) gives no size and says why.

:func:`swap_error_curve`: that bin's modelled error at chosen sizes (the
design figure's swap curve beside E(rho^2) and Phi).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import polars as pl

from ...bounds import check_option
from ...errors import UsageError
from ..curves import MAX_SIZE, check_model, model_error, size_at_level

SWAP_SIZE_SCHEMA = {"difference": pl.Float64, "bin": pl.Int64, "lo": pl.Float64,
                    "hi": pl.Float64, "model": pl.Utf8, "a": pl.Float64, "b": pl.Float64,
                    "level": pl.Float64, "n_units": pl.Int64, "reason": pl.Utf8}
CURVE_SCHEMA = {"n_units": pl.Int64, "error": pl.Float64}
#: float slack on bin edges (edges are rounded to 12 decimals by the fits)
EDGE = 1e-9
NEVER = f"the curve does not reach the level within {MAX_SIZE:,} units"


def _bin_row(fits: pl.DataFrame, difference: float) -> dict:
    need = {"bin", "lo", "hi", "a", "b", "model", "reason"}
    if need - set(fits.columns):
        raise UsageError(f"swap fits lack columns {sorted(need - set(fits.columns))} "
                         "(give the frame of qacamp.reliability.fits.fit_bins)")
    if fits.height == 0:
        raise UsageError("swap fits are empty")
    check_option("difference", difference, 0)
    for row in fits.sort("bin").iter_rows(named=True):
        lo, hi = row["lo"], row["hi"]
        if lo - EDGE <= difference and (hi is None or difference < hi - EDGE):
            return row
    first = fits["lo"].min()
    raise UsageError(f"difference {difference!r}: no bin of the swap fits holds it "
                     f"(the bins start at {first})")


def swap_size(fits: pl.DataFrame, difference: float, level: float = 0.05) -> pl.DataFrame:
    """One row (:data:`SWAP_SIZE_SCHEMA`): the bin holding ``difference`` and
    the number of units at which its error rate falls to ``level``
    (``n_units`` null with a ``reason`` when the bin has no usable fit)."""
    check_option("level", level, 0, 1, lo_open=True, hi_open=True)
    row = _bin_row(fits, difference)
    reason, size = row["reason"], None
    if reason is None:
        if row["a"] is None or row["b"] is None:
            reason = "no fitted curve"
        else:
            check_model(row["model"])
            size = size_at_level(row["model"], row["a"], row["b"], level)
            if size is None:
                reason = NEVER
    return pl.DataFrame([{"difference": float(difference), "bin": row["bin"], "lo": row["lo"],
                          "hi": row["hi"], "model": row["model"], "a": row["a"], "b": row["b"],
                          "level": float(level), "n_units": size, "reason": reason}],
                        schema=SWAP_SIZE_SCHEMA)


def swap_error_curve(fits: pl.DataFrame, difference: float,
                     sizes: Iterable[int]) -> pl.DataFrame:
    """The modelled error rate of the bin holding ``difference`` at each size
    (:data:`CURVE_SCHEMA`); empty when the bin has no usable fit."""
    row = _bin_row(fits, difference)
    n = [int(s) if isinstance(s, np.integer) else s for s in sizes]
    for s in n:
        check_option("sizes", s, 1, MAX_SIZE, integer=True)
    if row["reason"] is not None or row["a"] is None or row["b"] is None:
        return pl.DataFrame(schema=CURVE_SCHEMA)
    err = np.asarray(model_error(row["model"], row["a"], row["b"], np.asarray(n, np.float64)))
    return pl.DataFrame({"n_units": np.asarray(n, np.int64), "error": err},
                        schema=CURVE_SCHEMA)


__all__ = ["SWAP_SIZE_SCHEMA", "CURVE_SCHEMA", "swap_size", "swap_error_curve"]
