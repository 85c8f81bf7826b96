"""What an analysis reads, from a file or from memory: the one set of rules
behind the command line's ``--matrix``/``--scores`` (:mod:`qacamp.loader`)
and the notebook API's ``scores`` argument (:mod:`.python`).

A score matrix comes from

- a :class:`~qacamp.reliability.matrix.ScoreMatrix`, used as it is;
- a matrix file (CSV or Parquet), read by the strict matrix reader
  (:func:`qacamp.readers.matrix.read_matrix_table`);
- a frame (polars; pandas or a pyarrow table, converted through Arrow): a
  *frame of scores*, whose columns include ``run, measure, unit, value``
  (the rows of ``qacamp.evaluate(...)``, of ``scores/units.parquet`` or
  ``scores/runs.parquet``; with a ``scope`` and a ``judgment_set`` column
  where the table has them), from which ``measure``, ``unit`` and
  ``judgment_set`` select rows as ``--scores`` does; else a matrix frame,
  checked by the matrix reader's Parquet rules
  (:func:`qacamp.readers.matrix.frame_matrix`): wide, with the unit ids in
  a first column named ``unit`` and a numeric column per run, or long with
  exactly ``unit, run, value``.  Columns are found by name and checked for
  their type, never guessed.

Selecting options that a source cannot apply (``unit`` or ``judgment_set``
for a matrix, ``include_baselines`` for a ready matrix) are refused, not
ignored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from ...errors import InputError, UsageError
from ...io import read_parquet
from ...readers.matrix import frame_matrix, read_matrix_table
from ...tables import polars_frame
from ..builders import from_long, from_matrix_table
from ..matrix import ScoreMatrix, normalise_measure

#: the column names and types of a frame of scores (qacamp.evaluate's rows,
#: scores/units.parquet, scores/runs.parquet)
SCORE_COLUMNS = {"judgment_set": pl.String, "run": pl.String, "measure": pl.String,
                 "scope": pl.String, "unit": pl.String, "value": pl.Float64}
#: the columns every frame of scores has
SCORE_KEYS = ("run", "measure", "unit", "value")
#: the unit of question-level rows (qacamp.evaluate's scope, --unit's default)
QUESTION = "question"


def read_matrix_file(path: str | Path, measure: str = "",
                     include_baselines: bool = False) -> ScoreMatrix:
    """A score matrix file read with the project's one strict matrix reader
    (:func:`qacamp.readers.matrix.read_matrix_table`)."""
    return from_matrix_table(read_matrix_table(path), path, measure, include_baselines)


def read_frames(paths, schema: dict | None = None, fix: str | None = None,
                strict: bool = True) -> list[tuple[str, pl.DataFrame]]:
    """``(path, frame)`` of every Parquet file of ``paths``, verified and checked
    against ``schema`` (``strict=False``: only the declared columns present)."""
    out = []
    for p in paths:
        if not Path(p).exists():
            raise InputError(p, None, "file not found", "check the file paths")
        out.append((p, read_parquet(p, schema=schema, fix=fix, strict=strict)))
    return out


def check_columns(source: str, frame: pl.DataFrame, schema: dict, strict: bool = True,
                  fix: str = "") -> pl.DataFrame:
    """A frame given in memory checked against its declared ``schema`` as a
    file's columns are: each declared column present has its type (numbers:
    any integer or float type for a Float64 column), and (``strict``) every
    declared column is present.  Returns the frame with the declared types."""
    missing = [c for c in schema if c not in frame.columns]
    if strict and missing:
        raise InputError(source, f"column {missing[0]}", f"the frame lacks the column(s) "
                         f"{', '.join(missing)} (it has {', '.join(frame.columns)})",
                         fix or f"give a frame with the columns {', '.join(schema)}")
    casts = {}
    for col, want in schema.items():
        if col not in frame.columns:
            continue
        have = frame.schema[col]
        if have == want:
            continue
        if want == pl.Float64 and have.is_numeric() and have != pl.Boolean:
            casts[col] = pl.Float64
            continue
        if want == pl.String and isinstance(have, pl.Categorical | pl.Enum):
            casts[col] = pl.String
            continue
        raise InputError(source, f"column {col}", f"the column has type {have}, not {want}",
                         fix or f"cast it: frame.with_columns(pl.col({col!r}).cast(pl.{want}))")
    return frame.with_columns(pl.col(c).cast(t) for c, t in casts.items()) if casts else frame


def is_scores(frame: pl.DataFrame) -> bool:
    """A frame of scores (module docstring) rather than a matrix."""
    return set(SCORE_KEYS) <= set(frame.columns)


def select_scores(df: pl.DataFrame, source: str | Path, measure: str | None,
                  unit: str = QUESTION, judgment_set: str | None = None,
                  include_baselines: bool = False) -> ScoreMatrix:
    """The matrix of one measure, unit and judgment set of a frame of scores
    (the ``--scores`` folder's tables, or a notebook's frame of them)."""
    if "scope" in df.columns:
        df = df.filter(pl.col("scope") == unit)
    elif unit != QUESTION:
        raise UsageError(f"--unit {unit}: {source} has no scope column, so it holds question "
                         "rows only (give the rows of runs.parquet, or of qacamp.evaluate(..., "
                         "per_question=True))")
    if measure is None:
        names = sorted(df["measure"].unique().to_list())
        if len(names) > 1:
            raise UsageError(f"{source}: several measures ({', '.join(names)}); pass --measure")
        measure = names[0] if names else ""
    else:
        df = df.filter(pl.col("measure") == measure)
    if "judgment_set" in df.columns:
        if judgment_set is None:
            sets = df["judgment_set"].unique().to_list()
            if len(sets) > 1:
                raise UsageError(f"{source}: several judgment sets {sorted(sets)}; pass "
                                 "--judgment-set")
        else:
            df = df.filter(pl.col("judgment_set") == judgment_set)
    elif judgment_set is not None:
        raise UsageError(f"--judgment-set {judgment_set}: {source} has no judgment_set column")
    if df.height == 0:
        raise InputError(source, None, f"no rows for measure {measure!r}, unit {unit!r}, "
                         f"judgment set {judgment_set!r}", "check --measure/--unit/--judgment-set")
    return from_long(df, "unit", "run", "value", measure=normalise_measure(measure),
                     include_baselines=include_baselines)


def matrix_of(value: Any, source: str = "scores", measure: str | None = None, unit: str = QUESTION,
              judgment_set: str | None = None, include_baselines: bool = False,
              aggregator: str | None = None, default_measure: str = "score") -> ScoreMatrix:
    """The score matrix of ``value`` (module docstring); ``source`` names it in
    errors (a frame is "``source`` (a frame)").  ``measure`` names the matrix (and seeds its trials); a matrix
    without one is called ``default_measure``."""
    if isinstance(value, ScoreMatrix):
        if include_baselines:
            raise UsageError("--include-baselines: a ScoreMatrix is used as it is (build it "
                             "with its baselines instead)")
        _matrix_only(source, unit, judgment_set)
        m = value
    elif isinstance(value, str | Path):
        _matrix_only(value, unit, judgment_set)
        m = read_matrix_file(value, measure or default_measure, include_baselines)
    else:
        frame = polars_frame(value)
        if frame is None:
            raise UsageError(f"{source}: cannot make a score matrix of a "
                             f"{type(value).__name__}: give a polars (or pandas) frame, a "
                             "matrix file's path or a ScoreMatrix")
        source = f"{source} (a frame)"
        if is_scores(frame):
            frame = check_columns(source, frame, {c: t for c, t in SCORE_COLUMNS.items()
                                                  if c in frame.columns})
            m = select_scores(frame, source, measure, unit, judgment_set, include_baselines)
        else:
            _matrix_only(source, unit, judgment_set)
            m = from_matrix_table(frame_matrix(source, frame), source,
                                  measure or default_measure, include_baselines)
    check_aggregator(m, aggregator)
    return m


def _matrix_only(source, unit: str, judgment_set: str | None) -> None:
    """``unit`` and ``judgment_set`` select rows of scores: a matrix has none to select."""
    if unit != QUESTION:
        raise UsageError(f"--unit {unit}: {source} is a score matrix (one value per unit and "
                         "run); --unit selects rows of scores (--scores, or a frame of scores)")
    if judgment_set is not None:
        raise UsageError(f"--judgment-set {judgment_set}: {source} is a score matrix (one value "
                         "per unit and run); --judgment-set selects rows of scores (--scores, "
                         "or a frame of scores)")


def check_aggregator(m: ScoreMatrix, aggregator: str | None) -> None:
    """``--aggregator``: the matrix's must be the one named."""
    if aggregator and aggregator != m.aggregator:
        raise UsageError(f"the input gives aggregator {m.aggregator!r}, not {aggregator!r}")


__all__ = ["polars_frame", "read_matrix_file", "read_frames", "check_columns", "is_scores",
           "select_scores", "matrix_of", "check_aggregator", "SCORE_COLUMNS", "QUESTION"]
