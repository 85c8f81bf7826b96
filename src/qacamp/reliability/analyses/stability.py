"""Stability versus discrimination (Penas & Rodrigo 2011, after Buckley &
Voorhees): error rate and proportion of ties as the fuzziness grows; kernel
:mod:`qacamp.reliability.stability`."""

from __future__ import annotations

from ...bounds import check_memory, parse_grid
from ..stability import (
    COUNT_SCHEMA,
    SUMMARY_SCHEMA,
    memory_bytes,
    merge_stability_counts,
    stability_counts,
    summarize_stability,
)
from ..swap import PAIRINGS
from .record import (
    CONFIG_PREFIX,
    COUNTS,
    FIT_TO_COLLECTION,
    MATRIX_INPUT,
    OUT,
    SHARD,
    Analysis,
    Option,
    Output,
    Result,
    always,
    checked_shards,
    config_key,
    grid_text,
    seed_name,
    seed_option,
    shard_share,
    size_text,
    subset_sizes,
    tag_shard,
    too_big,
    wrote,
)


def run(inputs, args) -> Result:
    with config_key(args, "stability.fuzz"):
        fuzz = parse_grid(args.fuzz)
    m, (i, n) = inputs.matrix, args.shard_index
    sizes, notes = subset_sizes(args, m, args.size, 1, "stability.size")
    size, t = sizes[0], shard_share(args.trials, (i, n))
    with config_key(args, "stability.trials"):
        check_memory(f"--trials {args.trials} (shard {i}/{n}: {t} trials of size {size}, "
                     f"{m.n_runs} runs, {len(fuzz)} fuzziness values)",
                     memory_bytes(m.n_runs, size, t, len(fuzz), args.pairing),
                     too_big("trials or fuzziness values"))
    counts = stability_counts(m, size, args.trials, args.seed, fuzz, seed_name(args, m),
                                     args.pairing, i, n)
    if args.shard:
        counts = tag_shard(args, "stability", m, counts, (i, n), size=size, trials=args.trials,
                           fuzz=fuzz, pairing=args.pairing)
    keep = args.shard or args.counts
    out = counts if keep else summarize_stability(counts)
    return Result({"out": out}, wrote(args, f"{m.measure}: subsets of {size} x {args.trials} "
                                           f"trials (shard {i}/{n}), {m.n_runs} runs, "
                                           f"{out['fuzziness'].n_unique()} fuzziness values"
                                           + (" (pair counts)" if keep else "")), notes)


def merge(paths, frames, args) -> Result:
    merged = merge_stability_counts(checked_shards("stability", COUNT_SCHEMA,
                                                          paths, frames))
    return Result({"out": merged if args.counts else summarize_stability(merged)})


ANALYSIS = Analysis(
    name="stability",
    help="stability vs discrimination: fuzziness, error_rate, prop_ties",
    run=run,
    options=(
        *MATRIX_INPUT,
        Option(("--size",), "subset size: an integer or 'half' (half the collection)",
               required=True, key="stability.size", fitted=True, python=size_text),
        CONFIG_PREFIX,
        FIT_TO_COLLECTION,
        Option(("--trials",), "trials (default 100)", type=int, default=100,
               bounds={"lo": 1, "integer": True}, key="stability.trials"),
        seed_option(),
        Option(("--fuzz",), "fuzziness values f, start:stop:step or a,b,c (default "
               "0.01:0.10:0.01)", default="0.01:0.10:0.01", metavar="GRID",
               key="stability.fuzz", python=grid_text),
        Option(("--pairing",), "shared: one subset per trial for every pair; per-pair: one "
               "per pair", choices=PAIRINGS, default="shared", key="stability.pairing"),
        SHARD,
        COUNTS,
        OUT,
    ),
    outputs=(Output("out", "stability_{measure}.parquet", SUMMARY_SCHEMA),),
    shard_schema=COUNT_SCHEMA,
    merge=merge,
    sharded=always,
    settings={"stability": {"fuzz": "0.01:0.10:0.01", "pairing": "shared"}},
    schema={"stability": {
        "size": {"oneOf": [{"type": "integer", "minimum": 1}, {"const": "half"}],
                 "description": "subset size: an integer, or half (half the collection, the "
                                "c@1 paper's c = 250 of 500)"},
        "trials": {"type": "integer", "minimum": 1},
        "pairing": {"enum": list(PAIRINGS), "description": "shared: one subset per trial for "
                    "every pair; per-pair: a subset per pair and trial (the c@1 paper's Figure "
                    "1)"},
        "fuzz": {"type": "string", "pattern": "^([0-9]+(\\.[0-9]+)?:[0-9]+(\\.[0-9]+)?:[0-9]+"
                 "(\\.[0-9]+)?|[0-9]+(\\.[0-9]+)?(,[0-9]+(\\.[0-9]+)?)*)$",
                 "description": "fuzziness grid lo:hi:step (inclusive) or a comma list of "
                                "numbers, e.g. 0.01:0.10:0.01"},
    }},
)
