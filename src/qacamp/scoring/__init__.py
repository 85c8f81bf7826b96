"""Scoring: canonical ingest tables -> outcomes / units / runs / dropped score tables.

:func:`score_campaign` is the one code path used by the workflow (``qacamp
score``) and by ``qacamp eval``.  It is pure (frames in, frames out); ``qacamp
score`` writes :func:`score_batches`' batches as they come
(:func:`qacamp.io.sorted_parquet`).  One module per step:

- :mod:`.options`: the campaign's options and their year rules;
- :mod:`.judged`: which units each judgment set scores, which it drops;
- :mod:`.outcomes` (+ :mod:`.baselines`): outcomes of question-level responses;
- :mod:`.questions`: question-level scores (c@1, accuracy, CWS, NIL, MRR,
  reading perspective);
- :mod:`.lists`, :mod:`.other`: list and Other (nugget) questions;
- :mod:`.series`: series and question-type aggregation;
- :mod:`.pan`: PAN's measures (AUC, F1, F0.5u, Brier, the edition's overall);
- :mod:`.frames`: output schemas, canonical order, the wide run table.

Every decision about missing responses, NIL, unjudged units and empty
denominators is in ``docs/semantics.md``; the measures themselves in
:mod:`qacamp.measures`.  Output frames: :data:`.frames.OUT_SCHEMAS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import partial
from typing import Any

import polars as pl

from ..aggregate import group_agg
from ..kinds import KINDS
from ..ordered import in_order, workers
from ..tables import SCHEMAS, empty
from .baselines import (
    BASELINE_EXPECTED,
    BASELINE_NCA,
    BASELINE_NOTHING,
    BASELINE_SEEDED,
    BASELINES,
)
from .batches import batch_runs, campaign_facts, combine, restrict, scored_runs, shard_runs
from .context import build_context
from .frames import JS, OUT_SCHEMAS, OUT_SORT, SCOPES, Collector, concat_sorted, runs_wide
from .judged import judged_units
from .lists import list_scores
from .nuggets import other_scores
from .options import primary_set, resolve_options
from .outcomes import question_outcomes
from .pan import pan_scores
from .questions import question_scores
from .series import series_scores, type_scores


def score_campaign(kind: str, tables: Mapping[str, pl.DataFrame],
                   options: Mapping[str, Any] | None = None,
                   shard: tuple[int, int] = (0, 1)) -> dict[str, pl.DataFrame]:
    """Score every run of a campaign with every measure of its kind, at every scope,
    for every judgment set present.

    ``tables``: the canonical ingest tables (:data:`qacamp.tables.SCHEMAS`;
    absent ones are taken as empty).  ``options``: the resolved campaign dict
    (kind, year, weights, other_score, beta, skip, primary, pass_threshold,
    pass_rule, test_std_ddof, baseline_seed, main_questions, max_rank, edition;
    ``run_names`` lists runs that must be scored even without any response).
    ``shard``: ``(I, N)`` scores only block I of N of the runs in name order
    (:mod:`.batches`; :func:`.batches.combine` of the N results in order is
    the whole campaign's result).

    Returns ``{"outcomes", "units", "runs", "dropped"}`` with the schemas of
    :data:`OUT_SCHEMAS`, rows in canonical order; the same input gives the
    same bits on every run, for any shard count.
    """
    return combine(list(score_batches(kind, tables, options, shard)))


def score_batches(kind: str, tables: Mapping[str, pl.DataFrame],
                  options: Mapping[str, Any] | None = None,
                  shard: tuple[int, int] = (0, 1),
                  progress: Callable[[int, int], None] | None = None,
                  threads: int | None = None) -> Iterator[dict[str, pl.DataFrame]]:
    """:func:`score_campaign`'s result batch by batch of runs
    (:data:`.batches.BATCH_CELLS`), in run order, so that a caller writing
    them as they come holds a few batches' frames at a time (batches are
    scored ahead in ``threads`` threads, default :func:`qacamp.ordered.workers`,
    :func:`qacamp.ordered.in_order`; the batches share :data:`.batches.BATCH_CELLS`
    between them).  The campaign-level ``dropped`` rows come with the first
    batch (later batches have none).  ``progress(done, total)`` is called as
    each batch is yielded."""
    t = {name: tables.get(name) if tables.get(name) is not None else empty(name)
         for name in SCHEMAS}
    opts = resolve_options(kind, options, t["questions"]["qtype"].unique().to_list())
    if KINDS[kind].family == "matrix":
        out = Collector(kind)
        names = sorted(set(t["matrix"]["run"].drop_nulls().to_list()))
        mine = shard_runs(names, *shard)
        matrix = t["matrix"] if len(mine) == len(names) else \
            t["matrix"].filter(pl.col("run").is_in(mine))
        _score_matrix(matrix, opts, out)
        yield out.finish()
        return
    threads = workers() if threads is None else threads
    ctx = build_context(kind, t, opts, threads)
    head = Collector(kind)
    judged = judged_units(ctx, head)
    names = scored_runs(ctx)
    mine = shard_runs(names, *shard)
    if names and not mine:  # an empty shard: the campaign-level rows only
        yield head.finish()
        return
    blocks = batch_runs(mine, judged, threads) or [[]]
    if len(blocks) > 1 or len(mine) < len(names):
        ctx = campaign_facts(ctx, judged)
    # each batch's rows of the run tables are read here, in order (a row-group
    # source is read by one thread); the batches are decoded and scored in
    # threads (polars and Arrow work outside the interpreter lock) and come
    # back in order
    jobs = (partial(_score_batch, restrict(ctx, block, whole=len(block) == len(names)), judged,
                    head if i == 0 else Collector(kind), i > 0)
            for i, block in enumerate(blocks))
    for done, result in enumerate(in_order(jobs, min(threads, len(blocks))), 1):
        yield result()
        if progress is not None:
            progress(done, len(blocks))


def _score_batch(restricted, judged, out: Collector, later: bool) -> dict[str, pl.DataFrame]:
    """The output frames of one batch of runs (``restricted()``: its context,
    :func:`.batches.restrict`); a ``later`` batch has no ``dropped`` rows
    (campaign-level: the first batch's)."""
    _score_runs(restricted(), judged, out)
    part = out.finish()
    if later:
        part["dropped"] = part["dropped"].clear()
    return part


def _score_runs(ctx, judged, out: Collector) -> None:
    """Every measure of the runs of ``ctx`` (one batch)."""
    spec = ctx.spec
    qf = None
    if judged.question.height:
        grid, expected, enums, multi = question_outcomes(ctx, judged.question)
        qf = question_scores(ctx, grid, expected, enums, multi, out)
    if spec.verification:
        pan_scores(ctx, out)
    lf = list_scores(ctx, judged.lists, out)
    of = other_scores(ctx, judged.other, out)
    if spec.judged:
        type_scores(ctx, qf, lf, of, out)
    if spec.series:
        series_scores(ctx, qf, lf, of, judged, out)


def _score_matrix(matrix: pl.DataFrame, opts: dict, out: Collector) -> None:
    """A score matrix: per-unit rows as given, run score = mean over units."""
    measure = str(opts.get("measure", "score"))
    labelled = matrix.with_columns(pl.lit("matrix").alias(JS))
    out.units.append(labelled.select(JS, "run", pl.lit(measure).alias("measure"), "unit",
                                     "value"))
    means = group_agg(labelled, [JS, "run"], ["unit"], means=["value"]).rename(
        {"value": measure})
    out.add(means, "all", "all")


__all__ = ["BASELINES", "BASELINE_EXPECTED", "BASELINE_NCA", "BASELINE_NOTHING",
           "BASELINE_SEEDED", "OUT_SCHEMAS", "OUT_SORT", "SCOPES",
           "concat_sorted", "primary_set", "resolve_options", "runs_wide", "score_batches",
           "score_campaign"]
