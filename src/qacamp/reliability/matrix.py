"""Score matrices (units x runs) and their subset-scoring kernels.

A :class:`ScoreMatrix` holds, for one measure, what is needed to recompute
every run's score on any subset of units (the swap method, stability and
bootstrap analyses resample units):

- ``aggregator="mean"``: ``values`` (float64); score = mean of the subset.
- ``aggregator="c_at_1"``: ``right`` and ``unanswered`` (bool); on a subset of
  ``n`` units, c@1 = (nR + nU * nR / n) / n (Penas & Rodrigo 2011).
- ``aggregator="cws"``: ``right`` (bool) and ``rank`` (int, the run's
  confidence position of the unit); on a subset each run's units are re-ordered
  by that run's own rank and CWS = (1/c) sum_{i=1..c} (correct among first i)/i
  (Voorhees 2003).  Implemented as ``(1/c) sum_p right_p (H_c - H_{p-1})`` with
  ``H`` the harmonic numbers, after a radix sort of ``2 * position + right``.
- ``aggregator="pan"``: ``values`` (float64, PAN's per-problem values in
  [0, 1], 0.5 for a non-answer or a missing problem), ``truth`` (bool, shape
  ``(n_units,)``), ``measure`` one of :data:`qacamp.measures.pan.ARRAY_MEASURES`
  and, for ``overall``, ``edition``; on each subset the measure is recomputed
  as PAN's evaluator computes it (:mod:`qacamp.measures.pan`, same kernels):
  AUC by a radix sort of each run's ``2 * rank + truth`` keys within the
  subset, c@1 / F1 / F0.5u from outcome counts, Brier from summed squared
  errors, overall as the edition's mean (or AUC x c@1).  Subsets may repeat
  units (bootstrap samples).

:meth:`ScoreMatrix.mixed_scores` scores "virtual" runs whose response on
each unit is taken from a chosen run (the permutation tests of
:mod:`qacamp.reliability.significance`): the cells of the chosen runs are
gathered and the measure is recomputed with the same formulas as above (c@1
from the summed counts; CWS in the virtual run's own confidence order, the
responses ordered by their run's rank, ties by unit; PAN's measures from the
gathered values with the same kernels).

All arrays are shaped ``(n_units, n_runs)`` (except ``truth``).  The builders are
in :mod:`.builders`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from ..errors import UsageError
from ..measures import pan

#: the kernels a matrix has (a measure names its own: :attr:`qacamp.measures.Measure.aggregator`)
AGGREGATORS = ("mean", "c_at_1", "cws", "pan")
#: a residual standard deviation at most this times the largest absolute score
#: is rounding noise: no variance to test against (significance) or to
#: estimate coefficients and sizes from (design)
ROUNDING = 64 * np.finfo(np.float64).eps
_ALIASES = {"c@1": "c_at_1", "uf": "utility", "acc": "accuracy"}
#: (subset row x unit x run) cells per block of the PAN kernel (bounds its temporaries)
PAN_BLOCK = 1 << 21


@dataclass(frozen=True)
class ScoreMatrix:
    """Units x runs matrix of one measure (see module docstring)."""

    units: tuple[str, ...]
    runs: tuple[str, ...]
    aggregator: str = "mean"
    values: np.ndarray | None = None
    right: np.ndarray | None = None
    unanswered: np.ndarray | None = None
    rank: np.ndarray | None = None
    measure: str = ""
    truth: np.ndarray | None = None
    edition: str | None = None
    evaluator: str | None = None

    def __post_init__(self) -> None:
        shape = (len(self.units), len(self.runs))
        if self.aggregator not in AGGREGATORS:
            raise UsageError(f"aggregator {self.aggregator!r}: use one of {', '.join(AGGREGATORS)}")
        need = {"mean": ("values",), "c_at_1": ("right", "unanswered"),
                "cws": ("right", "rank"), "pan": ("values",)}[self.aggregator]
        for name in need:
            arr = getattr(self, name)
            if arr is None:
                raise UsageError(f"aggregator {self.aggregator!r} needs the array {name!r}")
            if arr.shape != shape:
                raise UsageError(f"array {name!r} has shape {arr.shape}, expected {shape}")
        if len(set(self.runs)) != len(self.runs) or len(set(self.units)) != len(self.units):
            raise UsageError("run and unit names must be unique")
        if self.aggregator == "pan":
            self._check_pan()

    def _check_pan(self) -> None:
        if self.truth is None or np.shape(self.truth) != (self.n_units,):
            raise UsageError(f"aggregator 'pan' needs the array 'truth' of shape ({self.n_units},)")
        if np.asarray(self.truth).dtype != bool:
            raise UsageError("aggregator 'pan': 'truth' must be boolean (True = same author)")
        v = np.asarray(self.values, dtype=np.float64)
        if not np.all((v >= 0.0) & (v <= 1.0)):  # also rejects NaN
            raise UsageError("aggregator 'pan': every value must be a number in [0, 1] "
                             "(0.5 = no answer)")
        edition = pan.check_measure(self.measure, self.edition)
        object.__setattr__(self, "edition", edition)
        object.__setattr__(self, "evaluator", pan.check_evaluator(self.evaluator, edition))

    @property
    def n_units(self) -> int:
        return len(self.units)

    @property
    def n_runs(self) -> int:
        return len(self.runs)

    @cached_property
    def _cws_key(self) -> np.ndarray:
        """``2 * position + right`` where position is the unit's place in the run's
        confidence order (ascending rank, ties by unit index)."""
        return cws_keys(self.rank, self.right, axis=0)

    @cached_property
    def _dense_rank(self) -> np.ndarray:
        """``rank`` as dense ranks of all its values (the same order within and
        across runs, so any mix of runs' ranks sorts the same), 16-bit when
        they fit: NumPy's stable sort of 16-bit integers is a radix sort."""
        values, dense = np.unique(self.rank, return_inverse=True)
        dense = dense.reshape(self.rank.shape)
        return dense.astype(np.int16) if len(values) <= 2**15 else dense

    @cached_property
    def _float_values(self) -> np.ndarray:
        return np.ascontiguousarray(self.values, dtype=np.float64)

    @cached_property
    def _small_int_values(self) -> np.ndarray | None:
        """``values`` as int8 when they are all integers in [-127, 127] (accuracy,
        utility): subset sums are then exact integer sums over 8x less memory."""
        v = self._float_values
        if v.size and np.all(v == np.round(v)) and np.abs(v).max() <= 127:
            return v.astype(np.int8)
        return None

    @cached_property
    def _pan_cells(self) -> dict[str, np.ndarray]:
        """The PAN kernel's cell arrays, transposed to (n_runs, n_units) so that a
        subset gather reads each run's row."""
        need = pan.needs((self.measure,), self.edition)
        made = pan.cells(self.values, self.truth[:, None], need, axis=0)
        return {k: np.ascontiguousarray(a.T) for k, a in made.items()}

    def _pan_blocks(self, lead: int, cells_per_row: int,
                    gather: Callable[[np.ndarray, slice], np.ndarray]) -> np.ndarray:
        """Evaluate the PAN measure on ``lead`` rows of subsets in blocks of about
        :data:`PAN_BLOCK` cells; ``gather(cell_array, rows)`` -> (..., c).  Each
        row's result depends on that row only, so blocking never changes it."""
        step = max(1, PAN_BLOCK // max(1, cells_per_row))
        parts = []
        for k0 in range(0, lead, step):
            rows = slice(k0, min(lead, k0 + step))
            got = {k: gather(a, rows) for k, a in self._pan_cells.items()}
            parts.append(pan.from_cells((self.measure,), self.edition, **got,
                                        evaluator=self.evaluator)[self.measure])
        return np.concatenate(parts, axis=0) if parts else np.empty((0,))

    def subset_scores(self, idx: np.ndarray) -> np.ndarray:
        """Scores of every run on each subset: ``idx`` (K, c) unit indices -> (K, R)."""
        idx = np.asarray(idx)
        c = idx.shape[-1]
        if self.aggregator == "pan":
            flat = idx.reshape(-1, c)
            run = np.arange(self.n_runs)[None, :, None]
            # one C-contiguous gather (K', R, c): each row sums like a 1-D vector
            out = self._pan_blocks(len(flat), c * self.n_runs,
                                   lambda a, rows: a[run, flat[rows][:, None, :]])
            return out.reshape(*idx.shape[:-1], self.n_runs)
        if self.aggregator == "mean":
            small = self._small_int_values
            if small is not None:
                return np.take(small, idx, axis=0).sum(axis=-2, dtype=np.int32) / c
            return np.take(self._float_values, idx, axis=0).sum(axis=-2) / c
        if self.aggregator == "c_at_1":
            n_r = self.right[idx].sum(axis=-2, dtype=np.float64)
            n_u = self.unanswered[idx].sum(axis=-2, dtype=np.float64)
            return c_at_1_from_counts(n_r, n_u, c)
        keys = np.swapaxes(self._cws_key[idx], -1, -2)  # (K, R, c)
        return _cws_from_keys(keys)

    def mixed_scores(self, src: np.ndarray) -> np.ndarray:
        """Scores of virtual runs taking unit ``u``'s response from run ``src[..., u]``:
        ``src`` (..., n_units) run indices -> (...).  Each virtual run's score
        depends on its own row only (blocking never changes it)."""
        src = np.asarray(src, dtype=np.intp)
        n = self.n_units
        if src.shape[-1] != n:
            raise UsageError(f"mixed_scores: last axis must hold {n} run indices")
        unit = np.arange(n)
        if self.aggregator == "mean":
            small = self._small_int_values
            if small is not None:
                return small[unit, src].sum(axis=-1, dtype=np.int32) / n
            return self._float_values[unit, src].sum(axis=-1) / n
        if self.aggregator == "c_at_1":
            n_r = self.right[unit, src].sum(axis=-1, dtype=np.float64)
            n_u = self.unanswered[unit, src].sum(axis=-1, dtype=np.float64)
            return c_at_1_from_counts(n_r, n_u, n)
        if self.aggregator == "cws":
            return _cws_from_keys(cws_keys(self._dense_rank[unit, src], self.right[unit, src]))
        flat = src.reshape(-1, n)
        step = max(1, PAN_BLOCK // max(1, n))
        need = pan.needs((self.measure,), self.edition)
        parts = []
        for k0 in range(0, len(flat), step):
            vals = self._float_values[unit, flat[k0:k0 + step]]
            got = pan.cells(vals, self.truth, need)
            parts.append(pan.from_cells((self.measure,), self.edition, **got)[self.measure])
        out = np.concatenate(parts) if parts else np.empty((0,))
        return out.reshape(src.shape[:-1])

    def pair_subset_scores(self, idx: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Score of run ``cols[p]`` on subset ``idx[k, p]``: idx (K, P, c), cols (P,) -> (K, P)."""
        idx = np.asarray(idx)
        c = idx.shape[-1]
        col = np.asarray(cols)[None, :, None]
        if self.aggregator == "pan":
            return self._pan_blocks(len(idx), c * idx.shape[1],
                                    lambda a, rows: a[col, idx[rows]]).reshape(idx.shape[:-1])
        if self.aggregator == "mean":
            return self._float_values[idx, col].sum(axis=-1) / c
        if self.aggregator == "c_at_1":
            n_r = self.right[idx, col].sum(axis=-1, dtype=np.float64)
            n_u = self.unanswered[idx, col].sum(axis=-1, dtype=np.float64)
            return c_at_1_from_counts(n_r, n_u, c)
        return _cws_from_keys(self._cws_key[idx, col])

    def full_scores(self) -> np.ndarray:
        """Every run's score on all units, shape (R,)."""
        return self.subset_scores(np.arange(self.n_units)[None, :])[0]

    def select_runs(self, keep: list[str] | tuple[str, ...]) -> ScoreMatrix:
        """A matrix restricted to the runs ``keep`` (in that order)."""
        pos = {r: i for i, r in enumerate(self.runs)}
        missing = [r for r in keep if r not in pos]
        if missing:
            raise UsageError(f"unknown runs: {', '.join(missing[:5])}")
        cols = np.array([pos[r] for r in keep], dtype=np.int64)

        def sub(a):
            return None if a is None else a[:, cols]

        return replace(self, runs=tuple(keep), values=sub(self.values), right=sub(self.right),
                       unanswered=sub(self.unanswered), rank=sub(self.rank))


def c_at_1_from_counts(n_r: np.ndarray, n_u: np.ndarray, c: int) -> np.ndarray:
    """c@1 = (nR + nU nR / c) / c (Penas & Rodrigo 2011) of counts over ``c`` units."""
    return (n_r + n_u * n_r / c) / c


def cws_keys(rank: np.ndarray, right: np.ndarray, axis: int = -1) -> np.ndarray:
    """``2 * position + right`` along ``axis`` (the units): position is the unit's
    place in ascending ``rank`` order, ties by unit index (a stable sort)."""
    n = rank.shape[axis]
    order = np.argsort(rank, axis=axis, kind="stable")
    pos = np.empty_like(order)
    shape = [1] * rank.ndim
    shape[axis] = n
    np.put_along_axis(pos, order, np.arange(n).reshape(shape), axis=axis)
    dtype = np.int16 if 2 * n + 1 < 2**15 else np.int32
    return (2 * pos + right.astype(np.int64)).astype(dtype)


def _cws_from_keys(keys: np.ndarray) -> np.ndarray:
    """CWS from keys ``2*position+right`` shaped (..., c) -> (...)."""
    c = keys.shape[-1]
    srt = np.sort(keys, axis=-1, kind="stable")  # radix sort for 16-bit keys
    harm = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, c + 1))))
    weights = (harm[c] - harm[:c]) / c
    # einsum's own sum-of-products loop (not BLAS, which may block rows
    # differently): each row's result does not depend on how many rows are
    # computed together, so shards merge bit-identically (tested); about 13x
    # faster than a masked np.where(...).sum
    return np.einsum("...k,k->...", (srt & 1).astype(np.float64), weights)


def normalise_measure(measure: str) -> str:
    m = str(measure).strip().lower()
    return _ALIASES.get(m, m)
