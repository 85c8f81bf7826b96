"""The one outer loader of the reliability analyses: the files an analysis's
record names (:mod:`qacamp.reliability.analyses`) read into score matrices
and frames, so that every kernel takes and returns frames.

- a score matrix: ``--matrix FILE`` (the strict matrix reader,
  :mod:`qacamp.readers.matrix`) or ``--scores DIR --measure M --unit U
  [--judgment-set S]`` (:func:`scores_matrix`: the pipeline's
  ``scores/*.parquet``, and for PAN's measures the ingested responses and
  truth beside them);
- Parquet files an option names, verified and checked against their declared
  schema (:func:`read_frames`);
- ``LABEL=matrix`` rankings (``qacamp reliability kendall``);
- a campaign's ``ingest/`` and ``scores/`` folders (``qacamp reliability
  extras``: campaign.json, runs, units, questions, judgments).

Every file is read through :mod:`qacamp.io` (verified against qacamp's
record of it); a missing or wrong file is an :class:`InputError` naming it.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from .errors import InputError, UsageError
from .ingest import read_resolved
from .io import read_parquet
from .measures import REGISTRY, pan, pan_frames
from .reliability.analyses.inputs import (
    check_aggregator,
    matrix_of,
    read_frames,
    read_matrix_file,
    select_scores,
)
from .reliability.analyses.record import DEFAULT_MATRIX_MEASURE, Analysis, CampaignTables, Inputs
from .reliability.builders import from_outcomes, from_pan
from .reliability.matrix import ScoreMatrix, normalise_measure
from .scoring.frames import OUT_SCHEMAS
from .tables import SCHEMAS


def _read(path: Path, schema: dict, fix: str = "run `qacamp score` first") -> pl.DataFrame:
    if not path.exists():
        raise InputError(path, None, "file not found", fix)
    return read_parquet(path, schema=schema)


def scores_matrix(scores_dir: str | Path, measure: str, unit: str = "question",
                  judgment_set: str | None = None,
                  include_baselines: bool = False) -> ScoreMatrix:
    """A matrix from the pipeline's ``scores/`` folder.

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
    record = REGISTRY.get(m)
    if unit == "question" and record is not None and record.aggregator == "pan":
        return _pan_matrix(d.parent / "ingest", m, include_baselines)
    if unit == "question":
        if record is not None and record.outcome and (d / "outcomes.parquet").exists():
            frame = read_parquet(d / "outcomes.parquet",
                                 ["judgment_set", "run", "qid", "rank", "outcome"],
                                 None if judgment_set is None
                                 else pl.col("judgment_set") == judgment_set,
                                 schema=OUT_SCHEMAS["outcomes"])
            return from_outcomes(frame, m, judgment_set, include_baselines)
        src = d / "units.parquet"
        df = _read(src, OUT_SCHEMAS["units"])
    else:
        src = d / "runs.parquet"
        df = _read(src, OUT_SCHEMAS["runs"])
    return select_scores(df, src, measure, unit, judgment_set, include_baselines)


def _pan_matrix(ingest: Path, measure: str, include_baselines: bool) -> ScoreMatrix:
    cfg_path = ingest / "campaign.json"
    if not cfg_path.exists():
        raise InputError(cfg_path, None, "file not found",
                         f"the PAN measure {measure!r} is recomputed from the ingested scores: "
                         "run `qacamp ingest` first (scores/ and ingest/ side by side)")
    cfg = read_resolved(cfg_path)
    if cfg.get("kind") != "pan":
        raise UsageError(f"measure {measure!r} is a PAN measure; {cfg_path} is a "
                         f"{cfg.get('kind')!r} campaign")
    options = cfg.get("options") or {}
    edition = options.get("edition") or pan.DEFAULT_EDITION
    values, truth = pan_frames.frames_from_tables(
        _read(ingest / "responses.parquet", SCHEMAS["responses"]),
        _read(ingest / "options.parquet", SCHEMAS["options"]))
    return from_pan(values, truth, measure, edition, include_baselines,
                    options.get("pan_evaluator"))


def matrix(args) -> ScoreMatrix:
    """The score matrix of ``--matrix`` or ``--scores ... --measure``."""
    if bool(args.matrix) == bool(args.scores):
        raise UsageError("give exactly one of --matrix or --scores")
    if args.matrix:
        return matrix_of(args.matrix, args.matrix, args.measure, args.unit, args.judgment_set,
                         args.include_baselines, args.aggregator, DEFAULT_MATRIX_MEASURE)
    if not args.measure:
        raise UsageError("--scores needs --measure")
    m = scores_matrix(args.scores, args.measure, args.unit, args.judgment_set,
                      args.include_baselines)
    check_aggregator(m, args.aggregator)
    return m


def _ranking(spec: str) -> tuple[str, str]:
    label, _, path = spec.partition("=")
    return (label, path) if path else (Path(spec).stem, spec)


def campaign(ingest: str | Path, scores: str | Path) -> CampaignTables:
    """A campaign's resolved config (kind, primary judgment set, set order) and
    the frames of its scores (runs, units) and ingest (questions, judgments)."""
    ingest, scores = Path(ingest), Path(scores)
    cfg_path = ingest / "campaign.json"
    if not cfg_path.exists():
        raise InputError(cfg_path, None, "file not found", "run `qacamp ingest` first")
    cfg = read_resolved(cfg_path)
    primary = cfg.get("primary")
    if not primary:
        raise InputError(cfg_path, None, "no primary judgment set", "re-run `qacamp ingest`")
    tables = {t: read_frames([scores / f"{t}.parquet"], OUT_SCHEMAS[t])[0][1]
              for t in ("runs", "units")}
    tables.update({t: read_frames([ingest / f"{t}.parquet"], SCHEMAS[t])[0][1]
                   for t in ("questions", "judgments")})
    return CampaignTables(cfg.get("kind", ""), primary, cfg.get("judgment_sets") or [], tables)


def input_paths(analysis: Analysis, args) -> list:
    """The files and folders an analysis reads (its outputs must not be one)."""
    paths = [getattr(args, "matrix", None), getattr(args, "scores", None)]
    for f in analysis.files:
        value = getattr(args, f.dest)
        values = value if isinstance(value, list) else [value]
        paths += [_ranking(v)[1] for v in values] if f.read == "rankings" else values
    return paths


def load(analysis: Analysis, args) -> Inputs:
    """Everything ``analysis`` reads for the parsed options ``args``: the files
    its record names first, then its score matrix."""
    files = {}
    for f in analysis.files:
        value = getattr(args, f.dest)
        if f.read == "campaign":
            files[f.dest] = campaign(value, args.scores)
        elif f.read == "rankings":
            files[f.dest] = [(label, read_matrix_file(path, include_baselines=args.include_baselines))
                             for label, path in map(_ranking, value)]
        else:  # an optional file not given (None) is no file
            values = value if isinstance(value, list) else [] if value is None else [value]
            files[f.dest] = read_frames(values, f.schema, f.fix or None, f.strict)
    m = None
    if analysis.matrix == "required" or (analysis.matrix == "optional"
                                         and (args.matrix or args.scores)):
        m = matrix(args)
    return Inputs(m, files)


def shard_frames(analysis: Analysis, paths) -> list[pl.DataFrame]:
    """The shard files of ``analysis`` (``qacamp reliability merge``): the
    declared columns present are checked for their types; which columns a shard
    must have, and its identity, the merge checks next."""
    return [f for _, f in read_frames(paths, analysis.shard_schema,
                                      f"pass files written by `reliability {analysis.name} "
                                      "--shard I/N`", strict=False)]


__all__ = ["read_matrix_file", "scores_matrix", "matrix", "read_frames", "campaign",
           "input_paths", "load", "shard_frames"]
