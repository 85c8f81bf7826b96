"""Score-matrix builders: the pipeline's frames -> :class:`ScoreMatrix`.

From the frame of ``scores/outcomes.parquet`` (question-level accuracy,
utility, c@1, CWS), long or wide frames (mean-aggregated per-unit scores),
PAN's per-problem scores and truth (:func:`from_pan`) or the table of the
strict matrix reader (:func:`from_matrix_table`).  Reading the files is the
loader's (:mod:`qacamp.loader`).  Builders drop baseline runs (names starting
with ``baseline:``) unless ``include_baselines=True``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from ..errors import InputError, UsageError
from ..measures import REGISTRY, nonresponse, pan, pan_frames
from ..names import BASELINE_PREFIX, natural_key
from .matrix import ScoreMatrix, normalise_measure


def _drop_baselines(df: pl.DataFrame, run_col: str, include: bool) -> pl.DataFrame:
    if include:
        return df
    return df.filter(~pl.col(run_col).cast(pl.Utf8).str.starts_with(BASELINE_PREFIX))


def _index(df: pl.DataFrame, unit_col: str, run_col: str):
    """Sorted unit and run labels and each row's (unit, run) position, computed
    with vectorised lookups (no per-row Python work: 10M rows in about a second)."""
    ucol, rcol = df[unit_col].cast(pl.Utf8), df[run_col].cast(pl.Utf8)
    units = tuple(sorted(ucol.unique().to_list(), key=natural_key))
    runs = tuple(sorted(rcol.unique().to_list()))
    ui = ucol.replace_strict(list(units), list(range(len(units))),
                             return_dtype=pl.Int64).to_numpy()
    ri = rcol.replace_strict(list(runs), list(range(len(runs))),
                             return_dtype=pl.Int64).to_numpy()
    return units, runs, ui, ri


def from_outcomes(outcomes: pl.DataFrame, measure: str, judgment_set: str | None = None,
                  include_baselines: bool = False) -> ScoreMatrix:
    """Question-level matrix from ``scores/outcomes.parquet``.

    ``measure``: ``accuracy`` (values = outcome == "R"), ``qa4mre_accuracy``
    (outcome R or UR: the QA4MRE overview's accuracy), ``utility`` (+1 R,
    -1 W, 0 unanswered), ``c_at_1`` (right = R, unanswered = outcome starts
    with "U") or ``cws`` (right = R, rank with nulls last).  A (run, question)
    cell absent from the frame counts as unanswered with no response.
    ``judgment_set=None`` is allowed only when the frame holds one set.
    """
    m = normalise_measure(measure)
    if m not in REGISTRY or not REGISTRY[m].outcome:
        raise UsageError(f"measure {measure!r} is not question-level; use one of "
                         + ", ".join(n for n, x in REGISTRY.items() if x.outcome))
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
    agg = REGISTRY[m].aggregator
    if agg == "mean":
        vals = np.zeros(shape)
        # the measure's per-question value (one definition: nonresponse.PER_QUESTION)
        vals[ui, ri] = nonresponse.outcome_values(outcome, m).to_numpy()
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
             edition: object | None = None, include_baselines: bool = False,
             evaluator: str | None = None) -> ScoreMatrix:
    """PAN matrix (aggregator ``"pan"``) from the pipeline's per-problem frames.

    ``values``: one row per answered (run, problem) with columns ``run``,
    ``qid`` (strings) and ``value`` (float in [0, 1], 0.5 = no answer);
    ``truth``: one row per problem with ``qid`` and ``same`` (bool).  A problem
    a run did not answer counts 0.5 (PAN's rule).  ``measure``: one of
    ``auc, c_at_1, f_05_u, f1, brier, overall``; ``edition`` (2014, 2015,
    2020-2023) is required for ``overall``; ``evaluator`` the F0.5u rules
    (default: the edition's, :func:`qacamp.measures.pan.check_evaluator`).  Units are the problems in string
    order of their ids, runs sorted by name; baseline runs are dropped unless
    ``include_baselines``.  :class:`UsageError` on malformed frames (see
    :func:`qacamp.measures.pan_frames.align`).
    """
    m = normalise_measure(measure)
    pan.check_measure(m, edition)
    if "run" in values.columns:
        values = _drop_baselines(values, "run", include_baselines)
    qids, runs, dense, same = pan_frames.align(values, truth)
    return ScoreMatrix(qids, runs, "pan", values=dense, measure=m, truth=same,
                       edition=None if edition is None else str(edition), evaluator=evaluator)


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


def from_matrix_table(table, path: str | Path, measure: str = "",
                      include_baselines: bool = False) -> ScoreMatrix:
    """A matrix of the strict matrix reader's table
    (:func:`qacamp.readers.matrix.read_matrix_table` of ``path``; CSV,
    optionally ``.gz``, or Parquet; wide with a header of run names, or long
    ``unit, run, value`` as ingest writes it; every rule is documented there
    and in docs/formats.md).  Wide tables keep their unit and run order; long
    ones are indexed like :func:`from_long`.  A table of baselines only is an
    :class:`InputError` naming ``path``."""
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
