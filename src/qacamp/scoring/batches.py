"""Scoring in batches of runs, and shards of runs: memory follows the batch, not the campaign.

A run's scores depend only on its own responses, judgments and nugget
matches, given four campaign-level facts that look across runs, found once
over every run before any batch is scored (:func:`campaign_facts`):

- the judgment sets, and which units each scores or drops (:mod:`.judged`;
  ``dropped.parquet``);
- whether some run returned several ranked answers (the MRR path);
- the questions whose NIL answer some run had judged right (NIL recall's
  denominator where the question file does not say);
- the QA4MRE baseline runs (scored as runs, in the batch their name falls in).

The runs to score (participants and baselines) are sorted by name and cut
into contiguous blocks: shard ``I`` of ``N`` holds block ``I`` of
``ceil(runs / N)`` runs (:func:`shard_runs`), and inside a process the runs
are scored in batches of at most :data:`BATCH_CELLS` (run, unit) cells, at
least :data:`BATCHES_PER_THREAD` per thread, of :data:`MIN_BATCH_CELLS` cells
or more (:func:`batch_runs`).  Every output row belongs to one run and every
float sum stays inside one run, in the same fixed order as in one pass, so
the batches' and shards' rows are the same numbers; :func:`combine` puts them
back in the canonical order (judgment set, then run: blocks are contiguous in
run order), with the campaign-level ``dropped`` rows of the first block.  The
bytes are therefore the same for any batch size and any shard count (tested
with 1, 3 and 5 shards).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import polars as pl

from .baselines import BASELINES, baseline_runs
from .context import Context
from .frames import JS, OUT_SCHEMAS
from .judged import Judged
from .runtables import RUN_TABLES, each, like, of_runs, strings

#: Largest (judgment set, unit) x run grid the batches being scored build
#: between them (TREC: five per-question rows of ``units`` per cell); a
#: batch costs a fixed part besides its rows, so fewer, larger batches are
#: faster and hold more (bench_memory.py, benchmarks/README.md).
BATCH_CELLS = 1_000_000
#: Batches per thread at least, when there are runs enough: a smaller
#: campaign is scored in smaller batches (its peak memory follows them) and
#: reading, scoring and writing still overlap.
BATCHES_PER_THREAD = 16
#: Cells a batch holds at least, when there are runs enough: a batch costs a
#: fixed part besides its rows (a few hundred small polars queries), so a
#: small campaign is not cut into batches of a few cells.
MIN_BATCH_CELLS = 40_000


def scored_runs(ctx: Context) -> list[str]:
    """Every run scored, participants and baselines, in name order."""
    extra = set(baseline_runs(ctx)) if ctx.spec.reading_tests else set()
    return sorted(set(ctx.runs) | extra)


def shard_runs(names: list[str], shard: int, n_shards: int) -> list[str]:
    """Block ``shard`` of ``n_shards`` contiguous blocks of ``ceil(len / n)`` names
    (the first block holds runs whenever there are any)."""
    size = max(1, math.ceil(len(names) / n_shards))
    return names[shard * size:(shard + 1) * size]


def batch_runs(names: list[str], judged: Judged, threads: int = 1) -> list[list[str]]:
    """``names`` cut into batches of at most :data:`BATCH_CELLS` grid cells
    between the ``threads`` scoring at once, and into at least
    :data:`BATCHES_PER_THREAD` batches per thread when there are runs enough,
    none under :data:`MIN_BATCH_CELLS` cells (except the last) unless
    :data:`BATCH_CELLS` says so."""
    units = max(1, judged.question.height + judged.lists.height + judged.other.height)
    threads = max(1, threads)
    spread = math.ceil(len(names) / (BATCHES_PER_THREAD * threads))
    per = max(1, min(BATCH_CELLS // (units * threads),
                     max(spread, math.ceil(MIN_BATCH_CELLS / units))))
    return [names[i:i + per] for i in range(0, len(names), per)]


def campaign_facts(ctx: Context, judged: Judged) -> Context:
    """``ctx`` with the facts that look across runs (module docstring) fixed,
    from the survey of the run tables (:func:`.runtables.survey`)."""
    qids = judged.question.select("qid").unique()
    found = ctx.survey
    multi = bool(found.ranked.join(qids, on="qid", how="semi").height)
    nil = None
    if ctx.spec.judged:
        nil = nil_judged(ctx, found.nil_right.join(qids, on="qid", how="semi"), multi)
    return dataclasses.replace(ctx, multi=multi, nil_judged=nil)


def nil_judged(ctx: Context, right: pl.DataFrame, multi: bool) -> pl.DataFrame:
    """(judgment_set, qid) where some run answered NIL first and had it judged R
    (the outcome grid's ``nil_right``, found without building the grid).
    ``right``: (judgment_set, run, qid, item) of the answered NIL responses
    judged R, of judged questions.  With several ranked answers (``multi``)
    only a run's first answer to the question counts (one more scan of the
    responses' keys, for those runs' questions)."""
    keys = ["run", "qid", "item"]
    if multi and right.height:
        pairs = right.select("run", "qid").unique()
        first = pl.concat(each(ctx.t["responses"], keys, lambda c: strings(
            c.join(like(pairs, c), on=["run", "qid"], how="semi")
            .group_by("run", "qid").agg(pl.col("item").min())), ctx.threads))
        first = first.group_by("run", "qid").agg(pl.col("item").min())
        right = right.join(first, on=keys, how="semi")
    return right.filter(pl.col(JS).is_in(ctx.sets)).select(JS, "qid").unique().sort(JS, "qid")


def restrict(ctx: Context, names: list[str], whole: bool) -> Callable[[], Context]:
    """``ctx`` scoring only the runs ``names`` (``whole``: they are all the runs,
    frames in memory are kept as they are), its run tables as frames, as a
    function: the runs' rows are read here (:func:`.runtables.of_runs`, in
    the caller's thread, batch after batch) and made frames when it is called
    (in the batch's thread, beside the next batch's reading)."""
    keep = set(names)
    rows = {name: of_runs(df, names) for name, df in ctx.t.items()
            if name in RUN_TABLES and not (whole and isinstance(df, pl.DataFrame))}

    def restricted() -> Context:
        t = {name: rows[name]() if name in rows else df for name, df in ctx.t.items()}
        return dataclasses.replace(ctx, t=t, runs=[r for r in ctx.runs if r in keep],
                                   baselines=tuple(b for b in BASELINES if b in keep))
    return restricted


def combine(parts: list[dict[str, pl.DataFrame]]) -> dict[str, pl.DataFrame]:
    """The output frames of consecutive blocks of runs (each in canonical order)
    as one: rows in canonical order, ``dropped`` (campaign-level, the same in
    every block holding runs) from the first block, with the dtypes of
    :data:`.frames.OUT_SCHEMAS` (a batch's coded keys as strings)."""
    parts = [{name: df.cast(OUT_SCHEMAS[name]) for name, df in p.items()} for p in parts]
    if len(parts) == 1:
        return parts[0]
    out = {}
    for name in OUT_SCHEMAS:
        if name == "dropped":
            out[name] = parts[0][name]
            continue
        df = pl.concat([p[name] for p in parts])
        # blocks are contiguous in run order: within a judgment set their rows
        # are already in order; a stable sort on the judgment set interleaves them
        if df[JS].n_unique() > 1:
            df = df.sort(JS, nulls_last=True, maintain_order=True)
        out[name] = df
    return out


__all__ = ["BATCHES_PER_THREAD", "BATCH_CELLS", "MIN_BATCH_CELLS", "batch_runs", "campaign_facts",
           "combine", "restrict", "scored_runs", "shard_runs"]
