"""The swap method (Voorhees 2003): swap counts per (subset size, difference
bin) of trials on two disjoint random subsets; kernel :mod:`qacamp.reliability.swap`."""

from __future__ import annotations

from ...bounds import MAX_BINS, check_memory
from ...progress import Progress
from ..swap import PAIRINGS, SWAP_SCHEMA, memory_bytes, merge_swap, swap_counts
from .record import (
    CONFIG_PREFIX,
    FIT_TO_COLLECTION,
    MATRIX_INPUT,
    OUT,
    Analysis,
    Option,
    Output,
    Result,
    always,
    checked_shards,
    config_key,
    seed_name,
    seed_option,
    shard_share,
    sizes_text,
    subset_sizes,
    tag_shard,
    too_big,
    wrote,
)


def run(inputs, args) -> Result:
    m, (i, n) = inputs.matrix, args.shard_index
    sizes, notes = subset_sizes(args, m, args.sizes, 2, "swap.sizes")
    t = shard_share(args.trials, (i, n))
    with config_key(args, "swap.trials"):
        check_memory(f"--trials {args.trials} (shard {i}/{n}: {t} trials of {len(sizes)} sizes, "
                     f"{m.n_runs} runs, {args.bins} bins)",
                     memory_bytes(m.n_runs, sizes, t, args.bins, args.pairing),
                     too_big("trials"))
    bar = Progress(f"swap {m.measure} shard {i}/{n} (size x trial)", 1)
    df = swap_counts(m, sizes, args.trials, args.seed, seed_name(args, m),
                            args.bin_width, args.bins, args.pairing, i, n, progress=bar.report)
    if args.shard:
        df = tag_shard(args, "swap", m, df, (i, n), sizes=sizes, trials=args.trials,
                       bin_width=args.bin_width, bins=args.bins, pairing=args.pairing)
    return Result({"out": df}, wrote(args, f"{m.measure}: {len(sizes)} sizes x {args.trials} "
                                          f"trials (shard {i}/{n}), {m.n_runs} runs, "
                                          f"{int(df['comparisons'].sum()):,} comparisons and "
                                          f"{int(df['swaps'].sum()):,} swaps"), notes)


def merge(paths, frames, args) -> Result:
    return Result({"out": merge_swap(checked_shards("swap", SWAP_SCHEMA, paths,
                                                           frames))})


ANALYSIS = Analysis(
    name="swap",
    help="swap counts per (size, bin): size, bin, swaps, comparisons",
    run=run,
    options=(
        *MATRIX_INPUT,
        Option(("--sizes",), "a:b or a:b:step (inclusive) or a,b,c; b may be 'half' (the "
               "largest size the collection allows), step 'auto' (about 25 sizes)",
               required=True, key="swap.sizes", fitted=True, python=sizes_text),
        CONFIG_PREFIX,
        FIT_TO_COLLECTION,
        Option(("--trials",), "trials per size (default 50)", type=int, default=50,
               bounds={"lo": 1, "integer": True}, key="swap.trials"),
        seed_option(),
        Option(("--bin-width",), "width of the score-difference bins (default 0.01)",
               type=float, default=0.01, bounds={"lo": 0, "lo_open": True},
               key="swap.bin_width"),
        Option(("--bins",), "number of bins, the last one open (default 21: d >= 0.20)",
               type=int, default=21, bounds={"lo": 2, "hi": MAX_BINS, "integer": True},
               key="swap.bins"),
        Option(("--pairing",), "shared: a trial's two subsets serve every pair (Voorhees); "
               "per-pair: each pair draws its own (c@1 paper)", choices=PAIRINGS,
               default="shared", key="swap.pairing"),
        Option(("--shard",), "I/N: run only shard I (0-based) of N"),
        OUT,
    ),
    outputs=(Output("out", "swap_{measure}.parquet", SWAP_SCHEMA),),
    shard_schema=SWAP_SCHEMA,
    merge=merge,
    sharded=always,
    settings={"swap": {"bin_width": 0.01, "bins": 21, "pairing": "shared"}},
    schema={"swap": {
        "sizes": {"type": "string",
                  "pattern": "^([0-9]+(:([0-9]+|half)(:([0-9]+|auto))?)?|half|[0-9]+(,[0-9]+)+)$",
                  "description": "start:stop[:step] (inclusive) or a comma list of integers; "
                                 "stop may be 'half' (the largest size two disjoint subsets of "
                                 "the collection allow), step 'auto' (about 25 sizes); a lone "
                                 "'half' is that size"},
        "trials": {"type": "integer", "minimum": 1},
        "bin_width": {"type": "number", "exclusiveMinimum": 0},
        "bins": {"type": "integer", "minimum": 2, "maximum": MAX_BINS, "description":
                 f"difference bins (default 21; at most {MAX_BINS}, qacamp.bounds.MAX_BINS)"},
        "pairing": {"enum": list(PAIRINGS)},
    }},
)
