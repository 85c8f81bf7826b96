"""Score matrices (units x runs) and their subset-scoring kernels.

A :class:`ScoreMatrix` holds, for one measure, what is needed to recompute
every run's score on any subset of units (METHODS.md section 3):

- ``aggregator="mean"``: ``values`` (float64); score = mean of the subset.
- ``aggregator="c_at_1"``: ``right`` and ``unanswered`` (bool); on a subset of
  ``n`` units, c@1 = (nR + nU * nR / n) / n (Penas & Rodrigo 2011).
- ``aggregator="cws"``: ``right`` (bool) and ``rank`` (int, the run's
  confidence position of the unit); on a subset each run's units are re-ordered
  by that run's own rank and CWS = (1/c) sum_{i=1..c} (correct among first i)/i
  (Voorhees 2003).  Implemented as ``(1/c) sum_p right_p (H_c - H_{p-1})`` with
  ``H`` the harmonic numbers, after a radix sort of ``2 * position + right``.

All arrays are shaped ``(n_units, n_runs)``.  Builders drop baseline runs
(names starting with ``baseline:``) unless ``include_baselines=True``.
"""

from __future__ import annotations

import csv
import gzip
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import polars as pl

from ..errors import InputError, UsageError
from ..io import read_parquet

AGGREGATORS = ("mean", "c_at_1", "cws")
#: question-level measures that :func:`from_outcomes` builds, with their aggregator
OUTCOME_MEASURES = {"accuracy": "mean", "utility": "mean", "c_at_1": "c_at_1", "cws": "cws"}
_ALIASES = {"c@1": "c_at_1", "uf": "utility", "acc": "accuracy"}
BASELINE_PREFIX = "baseline:"


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

    def __post_init__(self) -> None:
        shape = (len(self.units), len(self.runs))
        if self.aggregator not in AGGREGATORS:
            raise UsageError(f"aggregator {self.aggregator!r}: use one of {', '.join(AGGREGATORS)}")
        need = {"mean": ("values",), "c_at_1": ("right", "unanswered"),
                "cws": ("right", "rank")}[self.aggregator]
        for name in need:
            arr = getattr(self, name)
            if arr is None:
                raise UsageError(f"aggregator {self.aggregator!r} needs the array {name!r}")
            if arr.shape != shape:
                raise UsageError(f"array {name!r} has shape {arr.shape}, expected {shape}")
        if len(set(self.runs)) != len(self.runs) or len(set(self.units)) != len(self.units):
            raise UsageError("run and unit names must be unique")

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
        n = self.n_units
        order = np.argsort(self.rank, axis=0, kind="stable")
        pos = np.empty_like(order)
        np.put_along_axis(pos, order, np.arange(n)[:, None], axis=0)
        dtype = np.int16 if 2 * n + 1 < 2**15 else np.int32
        return (2 * pos + self.right.astype(np.int64)).astype(dtype)

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

    def subset_scores(self, idx: np.ndarray) -> np.ndarray:
        """Scores of every run on each subset: ``idx`` (K, c) unit indices -> (K, R)."""
        idx = np.asarray(idx)
        c = idx.shape[-1]
        if self.aggregator == "mean":
            small = self._small_int_values
            if small is not None:
                return np.take(small, idx, axis=0).sum(axis=-2, dtype=np.int32) / c
            return np.take(self._float_values, idx, axis=0).sum(axis=-2) / c
        if self.aggregator == "c_at_1":
            n_r = self.right[idx].sum(axis=-2, dtype=np.float64)
            n_u = self.unanswered[idx].sum(axis=-2, dtype=np.float64)
            return (n_r + n_u * n_r / c) / c
        keys = np.swapaxes(self._cws_key[idx], -1, -2)  # (K, R, c)
        return _cws_from_keys(keys)

    def pair_subset_scores(self, idx: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Score of run ``cols[p]`` on subset ``idx[k, p]``: idx (K, P, c), cols (P,) -> (K, P)."""
        idx = np.asarray(idx)
        c = idx.shape[-1]
        col = np.asarray(cols)[None, :, None]
        if self.aggregator == "mean":
            return self._float_values[idx, col].sum(axis=-1) / c
        if self.aggregator == "c_at_1":
            n_r = self.right[idx, col].sum(axis=-1, dtype=np.float64)
            n_u = self.unanswered[idx, col].sum(axis=-1, dtype=np.float64)
            return (n_r + n_u * n_r / c) / c
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

        return ScoreMatrix(self.units, tuple(keep), self.aggregator, sub(self.values),
                           sub(self.right), sub(self.unanswered), sub(self.rank), self.measure)


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


def _drop_baselines(df: pl.DataFrame, run_col: str, include: bool) -> pl.DataFrame:
    if include:
        return df
    return df.filter(~pl.col(run_col).cast(pl.Utf8).str.starts_with(BASELINE_PREFIX))


def _index(df: pl.DataFrame, unit_col: str, run_col: str):
    """Sorted unit and run labels and each row's (unit, run) position, computed
    with vectorised lookups (no per-row Python work: 10M rows in about a second)."""
    ucol, rcol = df[unit_col].cast(pl.Utf8), df[run_col].cast(pl.Utf8)
    units = tuple(sorted(ucol.unique().to_list(), key=_natural))
    runs = tuple(sorted(rcol.unique().to_list()))
    ui = ucol.replace_strict(list(units), list(range(len(units))),
                             return_dtype=pl.Int64).to_numpy()
    ri = rcol.replace_strict(list(runs), list(range(len(runs))),
                             return_dtype=pl.Int64).to_numpy()
    return units, runs, ui, ri


def _natural(s: str):
    """Sort key putting ``"2"`` before ``"10"`` and ``"1.2"`` before ``"1.10"``."""
    import re

    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", s)]


def normalise_measure(measure: str) -> str:
    m = str(measure).strip().lower()
    return _ALIASES.get(m, m)


def from_outcomes(outcomes: pl.DataFrame, measure: str, judgment_set: str | None = None,
                  include_baselines: bool = False) -> ScoreMatrix:
    """Question-level matrix from ``scores/outcomes.parquet``.

    ``measure``: ``accuracy`` (values = outcome == "R"), ``utility`` (+1 R,
    -1 W, 0 unanswered), ``c_at_1`` (right = R, unanswered = outcome starts
    with "U") or ``cws`` (right = R, rank with nulls last).  A (run, question)
    cell absent from the frame counts as unanswered with no response.
    ``judgment_set=None`` is allowed only when the frame holds one set.
    """
    m = normalise_measure(measure)
    if m not in OUTCOME_MEASURES:
        raise UsageError(f"measure {measure!r} is not question-level; use one of "
                         f"{', '.join(OUTCOME_MEASURES)}")
    need = {"judgment_set", "run", "qid", "rank", "outcome"}
    missing = need - set(outcomes.columns)
    if missing:
        raise UsageError(f"outcomes frame lacks columns {sorted(missing)}")
    sets = outcomes["judgment_set"].unique().to_list()
    if judgment_set is None:
        if len(sets) != 1:
            raise UsageError(f"outcomes hold judgment sets {sorted(sets)}; pass judgment_set")
        judgment_set = sets[0]
    df = outcomes.filter(pl.col("judgment_set") == judgment_set)
    if df.height == 0:
        raise UsageError(f"no outcomes for judgment set {judgment_set!r} (have {sorted(sets)})")
    df = _drop_baselines(df, "run", include_baselines)
    units, runs, ui, ri = _index(df, "qid", "run")
    shape = (len(units), len(runs))
    if np.bincount(ui * shape[1] + ri, minlength=shape[0] * shape[1]).max(initial=0) > 1:
        raise UsageError("outcomes hold duplicate (run, qid) rows")
    outcome = df["outcome"].cast(pl.Utf8)
    is_r = (outcome == "R").fill_null(False).to_numpy()
    is_u = outcome.str.starts_with("U").fill_null(False).to_numpy()
    agg = OUTCOME_MEASURES[m]
    if agg == "mean":
        vals = np.zeros(shape)
        cell = is_r.astype(np.float64) if m == "accuracy" else np.where(is_r, 1.0, np.where(is_u, 0.0, -1.0))
        vals[ui, ri] = cell
        return ScoreMatrix(units, runs, "mean", values=vals, measure=m)
    right = np.zeros(shape, bool)
    right[ui, ri] = is_r
    if agg == "c_at_1":
        unans = np.ones(shape, bool)
        unans[ui, ri] = is_u
        return ScoreMatrix(units, runs, "c_at_1", right=right, unanswered=unans, measure=m)
    big = np.iinfo(np.int64).max
    rank = np.full(shape, big, np.int64)
    rank[ui, ri] = df["rank"].cast(pl.Int64).fill_null(big).to_numpy()
    return ScoreMatrix(units, runs, "cws", right=right, rank=rank, measure=m)


def from_long(df: pl.DataFrame, unit_col: str = "unit", run_col: str = "run",
              value_col: str = "value", measure: str = "", include_baselines: bool = False,
              missing: str = "error") -> ScoreMatrix:
    """Mean-aggregated matrix from a long frame (e.g. ``runs.parquet`` rows of one
    measure and scope, or ``units.parquet`` rows of one measure).

    ``missing="error"`` raises when a (unit, run) cell is absent or null;
    ``missing="zero"`` scores it 0.
    """
    for col in (unit_col, run_col, value_col):
        if col not in df.columns:
            raise UsageError(f"frame lacks column {col!r} (has {df.columns})")
    df = _drop_baselines(df, run_col, include_baselines)
    if df.height == 0:
        raise UsageError("no rows to build a score matrix from")
    if df.select(pl.struct(unit_col, run_col).is_duplicated().any()).item():
        raise UsageError(f"duplicate ({unit_col}, {run_col}) rows")
    units, runs, ui, ri = _index(df, unit_col, run_col)
    vals = np.full((len(units), len(runs)), np.nan)
    vals[ui, ri] = df[value_col].cast(pl.Float64).to_numpy()
    holes = np.isnan(vals)
    if holes.any():
        if missing != "zero":
            u, r = np.argwhere(holes)[0]
            raise UsageError(f"{int(holes.sum())} (unit, run) cells are missing or null, "
                             f"e.g. unit {units[u]!r} run {runs[r]!r}; pass missing='zero' to score them 0")
        vals[holes] = 0.0
    return ScoreMatrix(units, runs, "mean", values=vals, measure=measure)


def from_wide(frame: pl.DataFrame, measure: str = "", unit_col: str | None = None,
              include_baselines: bool = False) -> ScoreMatrix:
    """Mean-aggregated matrix from a wide frame (one column per run)."""
    runs = [c for c in frame.columns if c != unit_col]
    if not include_baselines:
        runs = [r for r in runs if not r.startswith(BASELINE_PREFIX)]
    units = (tuple(frame[unit_col].cast(pl.Utf8).to_list()) if unit_col
             else tuple(f"u{i + 1}" for i in range(frame.height)))
    vals = frame.select(runs).cast(pl.Float64).to_numpy()
    return ScoreMatrix(units, tuple(runs), "mean", values=np.ascontiguousarray(vals), measure=measure)


def read_matrix_file(path: str | Path, measure: str = "", include_baselines: bool = False) -> ScoreMatrix:
    """Read a wide score matrix: CSV (optionally ``.gz``) or Parquet, header of run
    names, one row per unit, no row names (an optional first column named
    ``unit`` gives unit ids); or a long Parquet table ``unit, run, value`` (as
    ingest writes it).  Raises :class:`InputError` naming file and line."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, None, "file not found", "check the path to the score matrix")
    if path.suffix == ".parquet":
        try:
            frame = pl.read_parquet(path)
        except Exception as exc:  # noqa: BLE001 - report any reader failure as input error
            raise InputError(path, None, f"not a readable Parquet file ({exc})",
                             "write the matrix with one numeric column per run") from None
        if set(frame.columns) == {"unit", "run", "value"}:  # long form (ingest's matrix table)
            if frame.height == 0:
                raise InputError(path, None, "empty matrix", "provide at least one unit and one run")
            return from_long(frame, "unit", "run", "value", measure=measure,
                             include_baselines=include_baselines)
        unit_col = "unit" if "unit" in frame.columns else None
        bad = [c for c in frame.columns if c != unit_col and not frame[c].dtype.is_numeric()]
        if bad:
            raise InputError(path, f"column {bad[0]!r}", "column is not numeric",
                             "store one numeric column per run")
        nulls = [c for c in frame.columns if frame[c].null_count()]
        if nulls:
            row = int(frame[nulls[0]].is_null().arg_max())
            raise InputError(path, f"row {row + 1}, column {nulls[0]!r}", "missing score",
                             "fill every cell of the matrix")
        if frame.height == 0 or len(frame.columns) - (unit_col is not None) == 0:
            raise InputError(path, None, "empty matrix", "provide at least one unit and one run")
        return from_wide(frame, measure, unit_col, include_baselines)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    if not rows or not any(h.strip() for h in rows[0]):
        raise InputError(path, "line 1", "missing header of run names",
                         "put the run names on the first line")
    header = [h.strip() for h in rows[0]]
    if len(set(header)) != len(header) or "" in header:
        raise InputError(path, "line 1", "run names must be unique and non-empty",
                         "rename duplicate or empty columns")
    unit_first = header[0] == "unit"
    data, units = [], []
    for lineno, row in enumerate(rows[1:], start=2):
        if not row or all(not x.strip() for x in row):
            continue
        if len(row) != len(header):
            raise InputError(path, f"line {lineno}", f"{len(row)} fields, expected {len(header)}",
                             "give one value per run on every line")
        cells = row[1:] if unit_first else row
        try:
            data.append([float(x) for x in cells])
        except ValueError:
            bad = next(x for x in cells if not _is_float(x))
            raise InputError(path, f"line {lineno}", f"not a number: {bad!r}",
                             "every cell must be a decimal score") from None
        units.append(row[0].strip() if unit_first else f"u{len(units) + 1}")
    if not data:
        raise InputError(path, None, "no data rows", "add one line per unit")
    runs = header[1:] if unit_first else header
    vals = np.array(data, dtype=np.float64)
    if np.isnan(vals).any():
        r = int(np.argwhere(np.isnan(vals))[0][0])
        raise InputError(path, f"data row {r + 1}", "NaN score", "fill every cell")
    keep = [i for i, r in enumerate(runs) if include_baselines or not r.startswith(BASELINE_PREFIX)]
    return ScoreMatrix(tuple(units), tuple(runs[i] for i in keep), "mean",
                       values=np.ascontiguousarray(vals[:, keep]), measure=measure)


def _is_float(x: str) -> bool:
    try:
        float(x)
    except ValueError:
        return False
    return True


def from_scores_dir(scores_dir: str | Path, measure: str, unit: str = "question",
                    judgment_set: str | None = None, include_baselines: bool = False) -> ScoreMatrix:
    """Build a matrix from the pipeline's ``scores/`` folder.

    ``unit="question"``: question-level measures (accuracy, c_at_1, utility,
    cws) come from ``outcomes.parquet``; any other measure from
    ``units.parquet``.  ``unit`` in ``series``, ``test``, ``topic``, ``qtype``:
    rows of ``runs.parquet`` with that scope (mean-aggregated).
    """
    d = Path(scores_dir)
    m = normalise_measure(measure)
    if unit == "question":
        if m in OUTCOME_MEASURES and (d / "outcomes.parquet").exists():
            frame = read_parquet(d / "outcomes.parquet",
                                 ["judgment_set", "run", "qid", "rank", "outcome"],
                                 None if judgment_set is None
                                 else pl.col("judgment_set") == judgment_set)
            return from_outcomes(frame, m, judgment_set, include_baselines)
        src = d / "units.parquet"
        df = _read(src).filter(pl.col("measure") == measure)
    else:
        src = d / "runs.parquet"
        df = _read(src).filter((pl.col("measure") == measure) & (pl.col("scope") == unit))
    if judgment_set is None:
        sets = df["judgment_set"].unique().to_list()
        if len(sets) > 1:
            raise UsageError(f"{src}: several judgment sets {sorted(sets)}; pass --judgment-set")
    else:
        df = df.filter(pl.col("judgment_set") == judgment_set)
    if df.height == 0:
        raise InputError(src, None, f"no rows for measure {measure!r}, unit {unit!r}, "
                         f"judgment set {judgment_set!r}", "check --measure/--unit/--judgment-set")
    return from_long(df, "unit", "run", "value", measure=m, include_baselines=include_baselines)


def _read(path: Path) -> pl.DataFrame:
    if not path.exists():
        raise InputError(path, None, "file not found", "run `qacamp score` first")
    return read_parquet(path)
