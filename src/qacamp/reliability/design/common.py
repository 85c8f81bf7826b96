"""What every design kernel checks: the per-unit score matrix and the numbers
a user gives.

The matrix is a 2-D array shaped ``(n_units, n_runs)`` like every array of a
:class:`~qacamp.reliability.matrix.ScoreMatrix`: **one row per unit** (a
question, a series, a reading test, a topic), **one column per run**, and
the run's score on the campaign is the mean of its column.  Only a measure
that is such a mean has per-unit values to analyse (accuracy, utility, a
list or Other question's F, a series score, a score matrix's values);
:func:`unit_values` refuses the others (c@1, CWS, PAN's measures) by name.
"""

from __future__ import annotations

import numpy as np

from ...errors import UsageError
from ..matrix import ScoreMatrix

#: rows of the matrix handled at once by the kernels that need a temporary of
#: the chunk's shape (about 2**20 cells: bounded memory, a fixed summation order)
CHUNK_CELLS = 1 << 20


def check_values(values: object, what: str = "score matrix", min_units: int = 2,
                 min_runs: int = 2) -> np.ndarray:
    """``values`` as a C-contiguous float64 array ``(n_units, n_runs)``, every
    cell a finite number; :class:`UsageError` naming the first bad cell."""
    try:
        arr = np.ascontiguousarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise UsageError(f"{what}: expected a 2-D array of numbers shaped "
                         "(n_units, n_runs)") from None
    if arr.ndim != 2:
        raise UsageError(f"{what}: expected a 2-D array shaped (n_units, n_runs), got "
                         f"{arr.ndim} dimension(s)")
    n_units, n_runs = arr.shape
    if n_units < min_units or n_runs < min_runs:
        raise UsageError(f"{what}: {n_units} unit(s) x {n_runs} run(s); this analysis needs "
                         f"at least {min_units} units (rows) and {min_runs} runs (columns)")
    bad = ~np.isfinite(arr)
    if bad.any():
        u, r = (int(i) for i in np.argwhere(bad)[0])
        raise UsageError(f"{what}: the value of unit (row) {u}, run (column) {r} is "
                         f"{float(arr[u, r])!r}, not a finite number; every unit needs a score "
                         "for every run (0 for a run that did not answer)")
    return arr


def check_names(names: object, n: int, what: str) -> list[str]:
    """``n`` distinct names (the units of a matrix's rows)."""
    out = [str(x) for x in names] if not isinstance(names, str) else None
    if out is None or len(out) != n:
        got = "a single string" if out is None else f"{len(out)} names"
        raise UsageError(f"{what}: expected {n} names (one per row of the matrix), got {got}")
    if len(set(out)) != n:
        raise UsageError(f"{what}: the names are not unique")
    return out


def unit_values(matrix: ScoreMatrix) -> np.ndarray:
    """The per-unit values of a matrix whose measure is a mean of them
    (aggregator ``mean``), shaped ``(n_units, n_runs)``."""
    if matrix.aggregator != "mean":
        name = matrix.measure or matrix.aggregator
        raise UsageError(f"measure {name!r} is not a mean of per-unit values (aggregator "
                         f"{matrix.aggregator!r}); the design analyses need one (accuracy, "
                         "utility, a list or Other F, a series score, a score matrix)")
    return check_values(matrix.values, f"score matrix of {matrix.measure or 'the measure'}")


def chunk_rows(n_runs: int) -> int:
    """Rows per chunk of :data:`CHUNK_CELLS` cells (at least one row)."""
    return max(1, CHUNK_CELLS // max(1, n_runs))


__all__ = ["CHUNK_CELLS", "check_values", "check_names", "unit_values",
           "chunk_rows"]
