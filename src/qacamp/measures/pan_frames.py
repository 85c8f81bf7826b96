"""PAN campaigns' frames to the dense arrays of :mod:`qacamp.measures.pan`, and back.

The pipeline keeps a PAN campaign as polars frames (the runs' values per
problem, the truth per problem); the measures work on dense arrays (problems x
runs).  :func:`align` builds the arrays with the evaluators' rule that a problem
a run did not answer counts 0.5; :func:`score_runs` scores every run of an
edition, long (``run, measure, value``).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ..errors import UsageError
from .pan import NON_ANSWER, edition_measures, evaluate


def align(values: pl.DataFrame, truth: pl.DataFrame
          ) -> tuple[tuple[str, ...], tuple[str, ...], np.ndarray, np.ndarray]:
    """Dense arrays from the pipeline's frames.

    ``values``: one row per answered (run, problem): ``run`` (string), ``qid``
    (string), ``value`` (float in [0, 1]).  ``truth``: one row per problem:
    ``qid``, ``same`` (bool).  Returns ``(qids, runs, V, T)``: problems in
    string order of their ids (the official evaluator's order), runs sorted,
    ``V`` (n_problems, n_runs) float64 with every problem a run did not answer
    set to 0.5, ``T`` (n_problems,) bool.  Malformed frames raise
    :class:`UsageError` (the readers reject malformed files before this)."""
    for frame, name, cols in ((values, "values", ("run", "qid", "value")),
                              (truth, "truth", ("qid", "same"))):
        missing = [c for c in cols if c not in frame.columns]
        if missing:
            raise UsageError(f"PAN {name} frame lacks columns {missing} (has {frame.columns})")
    tq = truth.select(pl.col("qid").cast(pl.Utf8), pl.col("same").cast(pl.Boolean))
    if tq.null_count().sum_horizontal().item():
        raise UsageError("PAN truth frame has null qid or same")
    if tq["qid"].is_duplicated().any():
        raise UsageError(f"PAN truth frame repeats problem {tq.filter(pl.col('qid').is_duplicated())['qid'][0]!r}")
    tq = tq.sort("qid")  # the order of Python's sorted(): by code point
    vq = values.select(pl.col("run").cast(pl.Utf8), pl.col("qid").cast(pl.Utf8),
                       pl.col("value").cast(pl.Float64))
    if vq.null_count().sum_horizontal().item():
        raise UsageError("PAN values frame has null run, qid or value")
    bad = vq.filter(~pl.col("value").is_between(0.0, 1.0))
    if bad.height:
        raise UsageError(f"PAN value {bad['value'][0]!r} (run {bad['run'][0]!r}, problem "
                         f"{bad['qid'][0]!r}) is not a number in [0, 1]")
    run_names = vq["run"].unique().sort()
    # positions: the codes of Enums of the sorted problems and runs (a problem
    # not in the truth has none)
    pos = vq.select(pl.col("qid").cast(pl.Enum(tq["qid"]), strict=False).to_physical()
                    .alias("_q"), pl.col("run").cast(pl.Enum(run_names)).to_physical().alias("_r"))
    n_q, n_r = tq.height, run_names.len()
    if pos["_q"].null_count():
        if vq.select(pl.struct("run", "qid").is_duplicated().any()).item():
            raise UsageError("PAN values frame has duplicate (run, qid) rows")
        unknown = vq.filter(pos["_q"].is_null())
        raise UsageError(f"PAN run {unknown['run'][0]!r} answers problem "
                         f"{unknown['qid'][0]!r}, which is not in the truth")
    q = pos["_q"].to_numpy().astype(np.int64)
    r = pos["_r"].to_numpy().astype(np.int64)
    if q.size and np.bincount(q * n_r + r).max() > 1:
        raise UsageError("PAN values frame has duplicate (run, qid) rows")
    dense = np.full((n_q, n_r), NON_ANSWER)
    dense[q, r] = vq["value"].to_numpy()
    return (tuple(tq["qid"].to_list()), tuple(run_names.to_list()), dense,
            tq["same"].to_numpy().astype(bool))


def frames_from_tables(responses: pl.DataFrame, options: pl.DataFrame
                       ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``(values, truth)`` for :func:`align` from the canonical tables: the runs'
    scores (``responses.score``) and the truth (option ``Y`` marked correct)."""
    values = (responses.filter(pl.col("score").is_not_null())
              .select("run", "qid", pl.col("score").alias("value")))
    truth = (options.filter(pl.col("option") == "Y")
             .select("qid", pl.col("correct").fill_null(False).alias("same")))
    return values, truth


def score_runs(values: pl.DataFrame, truth: pl.DataFrame, edition: object,
               evaluator: str | None = None) -> pl.DataFrame:
    """The edition's measures per run, long: ``run, measure, value`` (runs sorted,
    measures in :func:`edition_measures` order); frames as in :func:`align`;
    ``evaluator``: the F0.5u rules (default: the edition's,
    :func:`qacamp.measures.pan.check_evaluator`)."""
    names = edition_measures(edition)
    _, runs, dense, same = align(values, truth)
    res = evaluate(dense.T, same, names, edition, evaluator)
    return pl.DataFrame({"run": [r for r in runs for _ in names],
                         "measure": [m for _ in runs for m in names],
                         "value": np.stack([res[m] for m in names], axis=1).ravel()},
                        schema={"run": pl.Utf8, "measure": pl.Utf8, "value": pl.Float64})
