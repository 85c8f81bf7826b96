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

All arrays are shaped ``(n_units, n_runs)`` (except ``truth``).  Builders drop
baseline runs (names starting with ``baseline:``) unless ``include_baselines=True``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

import numpy as np
import polars as pl

from ..errors import InputError, UsageError
from ..io import read_parquet
from ..measures import pan

AGGREGATORS = ("mean", "c_at_1", "cws", "pan")
#: question-level measures that :func:`from_outcomes` builds, with their aggregator
OUTCOME_MEASURES = {"accuracy": "mean", "utility": "mean", "c_at_1": "c_at_1", "cws": "cws"}
_ALIASES = {"c@1": "c_at_1", "uf": "utility", "acc": "accuracy"}
BASELINE_PREFIX = "baseline:"
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
            parts.append(pan.from_cells((self.measure,), self.edition, **got)[self.measure])
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
            return (n_r + n_u * n_r / c) / c
        keys = np.swapaxes(self._cws_key[idx], -1, -2)  # (K, R, c)
        return _cws_from_keys(keys)

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

        return replace(self, runs=tuple(keep), values=sub(self.values), right=sub(self.right),
                       unanswered=sub(self.unanswered), rank=sub(self.rank))


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


def from_pan(values: pl.DataFrame, truth: pl.DataFrame, measure: str,
             edition: object | None = None, include_baselines: bool = False) -> ScoreMatrix:
    """PAN matrix (aggregator ``"pan"``) from the pipeline's per-problem frames.

    ``values``: one row per answered (run, problem) with columns ``run``,
    ``qid`` (strings) and ``value`` (float in [0, 1], 0.5 = no answer);
    ``truth``: one row per problem with ``qid`` and ``same`` (bool).  A problem
    a run did not answer counts 0.5 (PAN's rule).  ``measure``: one of
    ``auc, c_at_1, f_05_u, f1, brier, overall``; ``edition`` (2014, 2015,
    2020-2023) is required for ``overall``.  Units are the problems in string
    order of their ids, runs sorted by name; baseline runs are dropped unless
    ``include_baselines``.  :class:`UsageError` on malformed frames (see
    :func:`qacamp.measures.pan.align`).
    """
    m = normalise_measure(measure)
    pan.check_measure(m, edition)
    if "run" in values.columns:
        values = _drop_baselines(values, "run", include_baselines)
    qids, runs, dense, same = pan.align(values, truth)
    return ScoreMatrix(qids, runs, "pan", values=dense, measure=m, truth=same,
                       edition=None if edition is None else str(edition))


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
    """Read a score matrix file with the project's one strict matrix reader,
    :func:`qacamp.readers.matrix.read_matrix_table` (CSV, optionally ``.gz``, or
    Parquet; wide with a header of run names, or long ``unit, run, value`` as
    ingest writes it; every rule is documented there and in docs/formats.md).
    Wide files keep their unit and run order; long ones are indexed like
    :func:`from_long`.  Raises :class:`InputError` naming file and place."""
    from ..readers.matrix import read_matrix_table

    table = read_matrix_table(path)
    if table.layout == "long":
        return from_long(table.long(), "unit", "run", "value", measure=measure,
                         include_baselines=include_baselines)
    keep = [j for j, r in enumerate(table.runs)
            if include_baselines or not r.startswith(BASELINE_PREFIX)]
    if not keep:
        raise InputError(path, None, "every run is a baseline",
                         "include the baselines, or add the runs' columns")
    return ScoreMatrix(table.units, tuple(table.runs[j] for j in keep), "mean",
                       values=np.ascontiguousarray(table.values[:, keep]), measure=measure)


def from_scores_dir(scores_dir: str | Path, measure: str, unit: str = "question",
                    judgment_set: str | None = None, include_baselines: bool = False) -> ScoreMatrix:
    """Build a matrix from the pipeline's ``scores/`` folder.

    ``unit="question"``: question-level measures (accuracy, c_at_1, utility,
    cws) come from ``outcomes.parquet``; PAN's measures (auc, f1, f_05_u,
    brier, overall) from the runs' scores and the truth in the campaign's
    ``ingest/`` folder beside ``scores/`` (responses, options, and the edition
    in campaign.json), recomputed on every subset; any other measure from
    ``units.parquet``.  ``unit`` in ``series``, ``test``, ``topic``, ``qtype``:
    rows of ``runs.parquet`` with that scope (mean-aggregated).
    """
    d = Path(scores_dir)
    m = normalise_measure(measure)
    if unit == "question" and m in pan.ARRAY_MEASURES and m not in OUTCOME_MEASURES:
        return _from_pan_ingest(d.parent / "ingest", m, include_baselines)
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


def _from_pan_ingest(ingest: Path, measure: str, include_baselines: bool) -> ScoreMatrix:
    import json

    cfg_path = ingest / "campaign.json"
    if not cfg_path.exists():
        raise InputError(cfg_path, None, "file not found",
                         f"the PAN measure {measure!r} is recomputed from the ingested scores: "
                         "run `qacamp ingest` first (scores/ and ingest/ side by side)")
    cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    if cfg.get("kind") != "pan":
        raise UsageError(f"measure {measure!r} is a PAN measure; {cfg_path} is a "
                         f"{cfg.get('kind')!r} campaign")
    edition = (cfg.get("options") or {}).get("edition") or pan.DEFAULT_EDITION
    values, truth = pan.frames_from_tables(_read(ingest / "responses.parquet"),
                                           _read(ingest / "options.parquet"))
    return from_pan(values, truth, measure, edition, include_baselines)


def _read(path: Path) -> pl.DataFrame:
    if not path.exists():
        raise InputError(path, None, "file not found", "run `qacamp score` first")
    return read_parquet(path)
