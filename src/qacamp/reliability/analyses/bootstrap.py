"""Sakai's paired bootstrap test over all run pairs and the discriminative
power it gives; kernel :mod:`qacamp.reliability.bootstrap`."""

from __future__ import annotations

from ...bounds import check_memory
from .. import bootstrap as kernel
from .record import (
    MATRIX_INPUT,
    OUT,
    SHARD,
    SUMMARY,
    Analysis,
    Option,
    Output,
    Result,
    always,
    checked_shards,
    seed_name,
    seed_option,
    shard_share,
    tag_shard,
    too_big,
    wrote,
)


def run(inputs, args) -> Result:
    m, (i, n) = inputs.matrix, args.shard_index
    t = shard_share(args.samples, (i, n))
    check_memory(f"--samples {args.samples} (shard {i}/{n}: {t} samples, {m.n_runs} runs, "
                 f"{m.n_units} units, alpha {args.alpha:g})",
                 kernel.memory_bytes(m.n_runs, m.n_units, t, args.samples, args.alpha),
                 too_big("samples"))
    counts = kernel.bootstrap_counts(m, args.samples, args.seed, args.alpha, seed_name(args, m),
                                     i, n)
    if args.shard:
        counts = tag_shard(args, "bootstrap", m, counts, (i, n), samples=args.samples,
                           alpha=args.alpha)
    if args.shard or args.counts:
        return Result({"out": counts}, wrote(args, f"{m.measure}: pair counts of "
                                                   f"{counts.height:,} run pairs (shard {i}/{n})"))
    pairs, summary = kernel.bootstrap_results(counts)
    k = int(pairs["significant"].sum()) if pairs.height else 0
    return Result({"out": pairs, "summary": summary},
                  wrote(args, f"{m.measure}: {k:,} of {pairs.height:,} run pairs significant at "
                              f"alpha {args.alpha:g} ({args.samples:,} samples)"))


def merge(paths, frames, args) -> Result:
    merged = kernel.merge_bootstrap(checked_shards("bootstrap", kernel.COUNT_SCHEMA, paths,
                                                   frames))
    if args.counts:
        return Result({"out": merged})
    pairs, summary = kernel.bootstrap_results(merged)
    return Result({"out": pairs, "summary": summary})


ANALYSIS = Analysis(
    name="bootstrap",
    help="Sakai's paired bootstrap test, discriminative power",
    run=run,
    options=(
        *MATRIX_INPUT,
        Option(("--samples",), "bootstrap samples B (default 1000)", type=int, default=1000,
               bounds={"lo": 1, "integer": True}, key="bootstrap.trials"),
        seed_option("seed of the samples (default 0)"),
        Option(("--alpha",), "significance level (default 0.05)", type=float, default=0.05,
               bounds={"lo": 0, "hi": 1, "lo_open": True, "hi_open": True},
               key="bootstrap.alpha"),
        SHARD,
        Option(("--counts",), "write per-pair counts", action="store_true"),
        SUMMARY,
        OUT,
    ),
    outputs=(Output("out", "bootstrap_{measure}.parquet", kernel.PAIR_SCHEMA),
             Output("summary", "bootstrap_{measure}_summary.parquet", kernel.SUMMARY_SCHEMA)),
    shard_schema=kernel.COUNT_SCHEMA,
    merge=merge,
    sharded=always,
    settings={"bootstrap": {"trials": 1000, "alpha": 0.05}},
    schema={"bootstrap": {
        "trials": {"type": "integer", "minimum": 10},
        "alpha": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
    }},
)
