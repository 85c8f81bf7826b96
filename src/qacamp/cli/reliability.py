"""`qacamp reliability`: resampling analyses of score matrices (docs/reliability.md).

Subcommands: ``swap``, ``fit``, ``stability``, ``bootstrap``, ``significance``
(:mod:`qacamp.cli.significance`), ``merge``, ``kendall``, ``extras`` (campaign-level Kendall tau, ranking swaps, assessor
agreement, median-zero shares, series box plots, equivalence groups; see
:mod:`qacamp.reliability.extras`).  Input is either ``--matrix FILE`` (wide CSV/Parquet, header of
run names) or ``--scores DIR --measure NAME --unit question|series|test|topic
[--judgment-set S]`` (the pipeline's scores/*.parquet).  Sharded runs
(``--shard I/N``, 0-based) write mergeable counts; ``merge`` sums them.

Trials are seeded by (``--seed``, measure name, size, trial).  With
``--matrix`` the measure name is ``--measure``, or ``score`` when it is not
given (:data:`DEFAULT_MATRIX_MEASURE`), never the file's name: renaming or
moving the matrix file does not change the trials.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

import polars as pl

from ..bounds import MAX_BINS, check_memory, check_option
from ..errors import ConfigError, InputError, UsageError
from ..ingest import read_resolved
from ..io import read_parquet, write_parquet, writing
from ..progress import Progress
from ..reliability import bootstrap as bs
from ..reliability import curves, extras, fits, ranking, shards
from ..reliability import swap as swap_api
from ..reliability.builders import from_scores_dir, read_matrix_file
from ..reliability.fits import too_few_runs
from ..reliability.matrix import normalise_measure
from ..reliability.seeds import fit_sizes, parse_grid, parse_shard, parse_size, parse_sizes
from ..reliability.significance import COUNT_SCHEMA as SIGNIFICANCE_COUNTS
from ..reliability.significance import PAIR_SCHEMA as SIGNIFICANCE_PAIRS
from ..reliability.stability import COUNT_SCHEMA as STABILITY_COUNTS
from ..reliability.stability import memory_bytes as stability_memory
from ..reliability.stability import (
    merge_stability_counts,
    stability_counts,
    summarize_stability,
)
from ..reliability.swap import PAIRINGS, SWAP_SCHEMA, check_sizes, merge_swap
from ..reliability.swap import memory_bytes as swap_memory
from ..scoring.frames import OUT_SCHEMAS
from ..tables import SCHEMAS
from . import HELP, add_force_option

#: measure name (and trial seed name) of a ``--matrix`` file given without ``--measure``
DEFAULT_MATRIX_MEASURE = "score"


def _warn(command: str, lines) -> None:
    for line in lines:
        print(f"qacamp reliability {command}: warning: {line}", file=sys.stderr)


def _config_prefix(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config-prefix", default=None, metavar="KEY",
                   help="config key the settings come from (the workflow passes "
                        "campaigns.<name>.reliability): errors about sizes name it")


def _fit_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--fit-to-collection", action="store_true",
                   help="the sizes are a default the campaign did not configure (the "
                        "workflow passes it then): a collection too small for them gets "
                        "sizes 1..half instead of an error, with a warning")


def _add_input(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("input (one of --matrix or --scores)")
    g.add_argument("--matrix", help="wide score matrix (CSV or Parquet), header of run names")
    g.add_argument("--scores", help="the pipeline's scores/ folder")
    g.add_argument("--measure", default=None,
                   help="measure name (selects rows with --scores; names the matrix and seeds "
                   f"the trials; a --matrix without it is called {DEFAULT_MATRIX_MEASURE!r})")
    g.add_argument("--unit", default="question",
                   choices=["question", "series", "test", "topic", "qtype"],
                   help="the unit the subsets are drawn from, with --scores (default question)")
    g.add_argument("--judgment-set", default=None,
                   help="judgment set, with --scores (default: the only or primary one)")
    g.add_argument("--include-baselines", action="store_true",
                   help="keep runs named baseline:*")
    g.add_argument("--aggregator", default=None, choices=["mean", "c_at_1", "cws"],
                   help="check the matrix's aggregator (a --matrix file is always 'mean')")


def _load(args):
    if bool(args.matrix) == bool(args.scores):
        raise UsageError("give exactly one of --matrix or --scores")
    if args.matrix:
        m = read_matrix_file(args.matrix, measure=args.measure or DEFAULT_MATRIX_MEASURE,
                             include_baselines=args.include_baselines)
    else:
        if not args.measure:
            raise UsageError("--scores needs --measure")
        m = from_scores_dir(args.scores, args.measure, args.unit, args.judgment_set,
                            args.include_baselines)
    if args.aggregator and args.aggregator != m.aggregator:
        raise UsageError(f"the input gives aggregator {m.aggregator!r}, not {args.aggregator!r}")
    return m


def _seed_name(args, m) -> str:
    return args.measure or m.measure


def _config_sizes(args, key: str, parse):
    """Sizes parsed and checked against the collection; with ``--config-prefix``
    (the workflow) an impossible size is a ConfigError naming the config key."""
    with _config_key(args, key, "lower the size, or write 'half' for the largest size the "
                     "collection allows"):
        return parse()


@contextlib.contextmanager
def _config_key(args, key: str, fix: str = "see the key's description in "
                "workflow/schemas/config.schema.yaml"):
    """With ``--config-prefix`` (the workflow), a usage error about an option is
    a ConfigError naming the config key it came from."""
    try:
        yield
    except UsageError as exc:
        if not args.config_prefix:
            raise
        raise ConfigError(f"{args.config_prefix}.{key}", str(exc), fix) from None


def _shard_trials(trials: int, i: int, n: int) -> int:
    """How many of ``trials`` trials shard ``i`` of ``n`` runs (seeds.shard_trials)."""
    return (trials * (i + 1)) // n - (trials * i) // n


def _check_common(args, section: str) -> None:
    """The seed, and the trials (or samples) of ``section``, as numbers."""
    check_option("--seed", args.seed, lo=0, integer=True)
    trials = getattr(args, "trials", None)
    if trials is not None:
        with _config_key(args, f"{section}.trials"):
            check_option("--trials", trials, lo=1, integer=True)


def _sizes(args, m, spec: str, subsets: int, key: str) -> list[int]:
    """The sizes of ``spec``; with ``--fit-to-collection`` (the kind's default
    sizes) those the collection holds, with a warning when they had to shrink."""
    if args.fit_to_collection:
        with _config_key(args, key):
            sizes, note = fit_sizes(spec, m.n_units, subsets)
        if note:
            where = f"{args.config_prefix}.{key}" if args.config_prefix else key
            _warn(args.analysis, [f"{note} (set {where} to choose them)"])
        return sizes
    if subsets == 1:
        return _config_sizes(args, key, lambda: check_sizes(
            [parse_size(spec, m.n_units)], m.n_units, subsets=1))
    return _config_sizes(args, key, lambda: check_sizes(parse_sizes(spec, m.n_units),
                                                        m.n_units))


def _too_big(what: str) -> str:
    return f"use fewer {what}, or more shards (--shard I/N) so that each job holds less"


def tsv(df: pl.DataFrame) -> str:
    """A frame as tab-separated text: a header line, every row, nothing
    truncated; floats written exactly (shortest repr), nulls empty."""
    return df.write_csv(None, separator="\t")


def _emit(df: pl.DataFrame, out: str | None, what: str, summary: str) -> None:
    """Write ``df`` to ``out`` (Parquet) and a one-line ``summary`` on stderr;
    without ``out``, print ``df`` as TSV on stdout (for scripts, as trec_eval)."""
    if out:
        write_parquet(df, out)
        print(f"qacamp reliability {what}: {summary}; wrote {out}", file=sys.stderr)
    else:
        sys.stdout.write(tsv(df))


def _outputs(args, *files, temporary: bool = False, inputs=()):
    """The one output block of an analysis (:func:`qacamp.io.writing`): its
    ``--out`` files claimed, its matrix or scores folder (and ``inputs``) inputs."""
    return writing(f"qacamp reliability {args.analysis}", files=files,
                   inputs=[getattr(args, "matrix", None), getattr(args, "scores", None), *inputs],
                   force=args.force, temporary=temporary)


def _run_swap(args) -> int:
    _check_common(args, "swap")
    with _config_key(args, "swap.bin_width"):
        check_option("--bin-width", args.bin_width, lo=0, lo_open=True)
    with _config_key(args, "swap.bins"):
        check_option("--bins", args.bins, lo=2, hi=MAX_BINS, integer=True)
    with _outputs(args, args.out, temporary=bool(args.shard)):
        m = _load(args)
        i, n = parse_shard(args.shard)
        sizes = _sizes(args, m, args.sizes, 2, "swap.sizes")
        with _config_key(args, "swap.trials"):
            check_memory(f"--trials {args.trials} (shard {i}/{n}: {_shard_trials(args.trials, i, n)}"
                         f" trials of {len(sizes)} sizes, {m.n_runs} runs, {args.bins} bins)",
                         swap_memory(m.n_runs, sizes, _shard_trials(args.trials, i, n),
                                     args.bins, args.pairing), _too_big("trials"))
        bar = Progress(f"swap {m.measure} shard {i}/{n} (size x trial)", 1)
        df = swap_api(m, sizes, args.trials, args.seed, _seed_name(args, m), args.bin_width,
                      args.bins, args.pairing, i, n, progress=bar.report)
        if args.shard:
            df = shards.tag(df, i, n, args.seed, shards.settings_text(
                "swap", m, measure=_seed_name(args, m), sizes=sizes, trials=args.trials,
                bin_width=args.bin_width, bins=args.bins, pairing=args.pairing))
        _emit(df, args.out, "swap", f"{m.measure}: {len(sizes)} sizes x {args.trials} trials "
              f"(shard {i}/{n}), {m.n_runs} runs, {int(df['comparisons'].sum()):,} comparisons "
              f"and {int(df['swaps'].sum()):,} swaps")
    return 0


def _run_stability(args) -> int:
    _check_common(args, "stability")
    with _config_key(args, "stability.fuzz"):
        fuzz = parse_grid(args.fuzz)
    with _outputs(args, args.out, temporary=bool(args.shard)):
        m = _load(args)
        i, n = parse_shard(args.shard)
        size = _sizes(args, m, args.size, 1, "stability.size")[0]
        t = _shard_trials(args.trials, i, n)
        with _config_key(args, "stability.trials"):
            check_memory(f"--trials {args.trials} (shard {i}/{n}: {t} trials of size {size}, "
                         f"{m.n_runs} runs, {len(fuzz)} fuzziness values)",
                         stability_memory(m.n_runs, size, t, len(fuzz), args.pairing),
                         _too_big("trials or fuzziness values"))
        counts = stability_counts(m, size, args.trials, args.seed, fuzz,
                                  _seed_name(args, m), args.pairing, i, n)
        if args.shard:
            counts = shards.tag(counts, i, n, args.seed, shards.settings_text(
                "stability", m, measure=_seed_name(args, m), size=size, trials=args.trials,
                fuzz=fuzz, pairing=args.pairing))
        out = counts if args.shard or args.counts else summarize_stability(counts)
        _emit(out, args.out, "stability", f"{m.measure}: subsets of {size} x {args.trials} trials "
              f"(shard {i}/{n}), {m.n_runs} runs, {out['fuzziness'].n_unique()} fuzziness values"
              + (" (pair counts)" if args.shard or args.counts else ""))
    return 0


def _run_bootstrap(args) -> int:
    check_option("--seed", args.seed, lo=0, integer=True)
    check_option("--samples", args.samples, lo=1, integer=True)
    check_option("--alpha", args.alpha, lo=0, hi=1, lo_open=True, hi_open=True)
    with _outputs(args, args.out, args.summary, temporary=bool(args.shard)):
        m = _load(args)
        i, n = parse_shard(args.shard)
        t = _shard_trials(args.samples, i, n)
        check_memory(f"--samples {args.samples} (shard {i}/{n}: {t} samples, {m.n_runs} runs, "
                     f"{m.n_units} units, alpha {args.alpha:g})",
                     bs.memory_bytes(m.n_runs, m.n_units, t, args.samples, args.alpha),
                     _too_big("samples"))
        counts = bs.bootstrap_counts(m, args.samples, args.seed, args.alpha, _seed_name(args, m), i, n)
        if args.shard:
            counts = shards.tag(counts, i, n, args.seed, shards.settings_text(
                "bootstrap", m, measure=_seed_name(args, m), samples=args.samples,
                alpha=args.alpha))
        if args.shard or args.counts:
            _emit(counts, args.out, "bootstrap", f"{m.measure}: pair counts of {counts.height:,} "
                  f"run pairs (shard {i}/{n})")
        else:
            pairs, summary = bs.bootstrap_results(counts)
            k = int(pairs["significant"].cast(pl.Int64).sum()) if pairs.height else 0
            _emit(pairs, args.out, "bootstrap", f"{m.measure}: {k:,} of {pairs.height:,} run "
                  f"pairs significant at alpha {args.alpha:g} ({args.samples:,} samples)")
            if args.summary:
                write_parquet(summary, args.summary)
    return 0


def _read_all(paths, schema: dict | None = None, fix: str | None = None,
              strict: bool = True) -> list[pl.DataFrame]:
    frames = []
    for p in paths:
        if not Path(p).exists():
            raise InputError(p, None, "file not found", "check the shard file paths")
        frames.append(read_parquet(p, schema=schema, fix=fix, strict=strict))
    return frames


_KIND_COLUMNS = {"swap": SWAP_SCHEMA, "stability": STABILITY_COUNTS,
                 "bootstrap": bs.COUNT_SCHEMA, "significance": SIGNIFICANCE_COUNTS}


def _run_merge(args) -> int:
    with writing("qacamp reliability merge", files=[args.out, args.summary], inputs=args.inputs,
                 force=args.force):
        _merge(args)
    return 0


def _merge(args) -> None:
    # the declared columns present are checked for their types; which columns a
    # shard must have, and its identity, are checked next
    frames = _read_all(args.inputs, _KIND_COLUMNS[args.kind],
                       f"pass files written by `reliability {args.kind} --shard I/N`",
                       strict=False)
    if args.kind == "significance":
        from . import significance

        significance.run_merge(args, frames)
        return
    need = _KIND_COLUMNS[args.kind]
    for path, frame in zip(args.inputs, frames, strict=True):
        missing = [c for c in need if c not in frame.columns]
        if missing:
            raise InputError(path, f"column {missing[0]}", f"not a {args.kind} shard file "
                             f"(lacks {missing})",
                             f"pass files written by `reliability {args.kind} --shard I/N`")
    frames = shards.check_shards(args.kind, args.inputs, frames)
    if args.kind == "swap":
        out = merge_swap(frames)
    elif args.kind == "stability":
        merged = merge_stability_counts(frames)
        out = merged if args.counts else summarize_stability(merged)
    else:
        merged = bs.merge_bootstrap(frames)
        if args.counts:
            out = merged
        else:
            out, summary = bs.bootstrap_results(merged)
            if args.summary:
                write_parquet(summary, args.summary)
    write_parquet(out, args.out)


def _fit_settings(args) -> fits.FitSettings:
    mode = args.mode or ("observed" if args.observed_at is not None else "extrapolate")
    return fits.FitSettings(level=args.level, min_fit_size=args.min_fit_size, model=args.model,
                            bin_width=args.bin_width, mode=mode, observed_at=args.observed_at,
                            fitted_bins=fits.parse_fitted_bins(args.fitted_bins),
                            min_runs=args.min_runs, min_comparisons=args.min_comparisons)


def _check_fit_options(args) -> None:
    check_option("--level", args.level, lo=0, hi=1, lo_open=True, hi_open=True)
    check_option("--bin-width", args.bin_width, lo=0, lo_open=True)
    check_option("--min-fit-size", args.min_fit_size, lo=1, integer=True)
    check_option("--min-runs", args.min_runs, lo=2, integer=True)
    check_option("--min-comparisons", args.min_comparisons, lo=1,
                 integer=True)
    for option, value in (("--full-size", args.full_size), ("--observed-at", args.observed_at)):
        if value is not None:
            check_option(option, value, lo=1, integer=True)


def _run_fit(args) -> int:
    _check_fit_options(args)
    settings = _fit_settings(args)
    with _outputs(args, args.out, args.summary, inputs=[args.counts]):
        _fit(args, settings)
    return 0


def _fit(args, settings) -> None:
    fix = ("give the swap counts that `qacamp reliability swap` or `reliability merge --kind "
           "swap` wrote")
    # declared columns checked for their types; max_score (the highest subset
    # score, for the observed mode's relative difference) may be absent
    counts = _read_all([args.counts], SWAP_SCHEMA, fix, strict=False)[0]
    missing = [c for c in SWAP_SCHEMA if c != "max_score" and c not in counts.columns]
    if missing:
        raise InputError(args.counts, None, f"lacks the column(s) {', '.join(missing)}", fix)
    m = _load(args) if (args.matrix or args.scores) else None
    full = args.full_size or (m.n_units if m is not None else None)
    if not full:
        raise UsageError("give --full-size or the matrix (--matrix/--scores)")
    largest = counts["size"].max() if "size" in counts.columns and counts.height else None
    if isinstance(largest, int) and full < 2 * largest:
        raise UsageError(f"--full-size {full}: the counts hold subsets of size {largest}, and "
                         f"two disjoint subsets of that size need {2 * largest} units; give the "
                         "size of the whole collection the counts were drawn from")
    fit_df, summary = fits.fit_swap(counts, full, settings, m,
                                    args.measure or (m.measure if m else ""))
    print(f"qacamp reliability fit: {fits.describe(summary)}", file=sys.stderr)
    if m is None:
        needs = "the highest score needs it" if settings.mode == "observed" else \
            "the sensitivity and the highest score need it"
        _warn("fit", [f"no matrix given: the number of runs was not checked and {needs}"])
    warning = summary["warning"][0]
    _warn("fit", warning.split("; ") if warning else [])
    # the result a script wants is the summary: TSV on stdout unless --summary
    # names its file; the per-bin fits only with --out
    if args.out:
        write_parquet(fit_df, args.out)
    if args.summary:
        write_parquet(summary, args.summary)
    else:
        sys.stdout.write(tsv(summary))


def _run_kendall(args) -> int:
    paths = [spec.partition("=")[2] or spec for spec in args.rankings]
    with writing("qacamp reliability kendall", files=[args.out, args.swaps_out], inputs=paths,
                 force=args.force):
        _kendall(args)
    return 0


def _kendall(args) -> None:
    frames = []
    for spec in args.rankings:
        label, _, path = spec.partition("=")
        if not path:
            label, path = Path(spec).stem, spec
        m = read_matrix_file(path, include_baselines=args.include_baselines)
        frames.append(pl.DataFrame({"ranking": label, "run": list(m.runs),
                                    "score": m.full_scores()}))
    if len(frames) < 2:
        raise UsageError("kendall needs at least two rankings (LABEL=matrix.csv ...)")
    long = pl.concat(frames)
    table = ranking.tau_table(long, variant=args.variant)
    _emit(table, args.out, "kendall", f"{table.height} pairs of rankings ({args.variant})")
    if args.swaps_out:
        j = frames[0].join(frames[1], on="run", suffix="_b").sort("run")
        sw = ranking.ranking_swaps(j["score"].to_numpy(), j["score_b"].to_numpy(),
                                   parse_grid(args.thresholds))
        write_parquet(sw, args.swaps_out)


def _summary_measure(path: Path, frame: pl.DataFrame) -> str:
    if "measure" in frame.columns and frame.height and frame["measure"][0]:
        return normalise_measure(frame["measure"][0])
    stem = path.name.removesuffix(".parquet")
    if stem.startswith("swap_") and stem.endswith("_summary"):
        return normalise_measure(stem[len("swap_"):-len("_summary")])
    raise InputError(path, None, "cannot tell the measure of this swap summary",
                     "name it swap_<measure>_summary.parquet or keep its 'measure' column")


def _run_extras(args) -> int:
    with writing("qacamp reliability extras", dirs=[args.out],
                 inputs=[args.ingest, args.scores, *args.summary, *args.significance],
                 force=args.force):
        _extras(args)
    return 0


def _extras(args) -> None:
    ingest, scores, out = Path(args.ingest), Path(args.scores), Path(args.out)
    cfg_path = ingest / "campaign.json"
    if not cfg_path.exists():
        raise InputError(cfg_path, None, "file not found", "run `qacamp ingest` first")
    cfg = read_resolved(cfg_path)
    kind, primary = cfg.get("kind", ""), cfg.get("primary")
    if not primary:
        raise InputError(cfg_path, None, "no primary judgment set", "re-run `qacamp ingest`")
    order = cfg.get("judgment_sets") or []
    measures = list(dict.fromkeys(normalise_measure(m) for m in args.measure))
    tables = {t: _read_all([scores / f"{t}.parquet"], OUT_SCHEMAS[t])[0]
              for t in ("runs", "units")}
    tables.update({t: _read_all([ingest / f"{t}.parquet"], SCHEMAS[t])[0]
                   for t in ("questions", "judgments")})
    summaries: dict[str, float | None] = {}
    few: set[str] = set()
    for p in map(Path, args.summary):
        frame = _read_all([p], fits.SUMMARY_SCHEMA,
                          "pass the --summary file of `reliability fit`", strict=False)[0]
        if "required_difference" not in frame.columns or frame.height != 1:
            raise InputError(p, None, "not a one-row swap summary with required_difference",
                             "pass the --summary file of `reliability fit`")
        measure = _summary_measure(p, frame)
        summaries[measure] = frame["required_difference"][0]
        if "warning" in frame.columns and too_few_runs(frame["warning"][0]):
            few.add(measure)
    tests = {}
    for p in map(Path, args.significance):
        frame = _read_all([p], SIGNIFICANCE_PAIRS, "pass the --out file of `reliability "
                          "significance` (or its merge)", strict=False)[0]
        if not {"run_a", "run_b", "measure", "test", "significant"} <= set(frame.columns) \
                or not frame.height:
            raise InputError(p, None, "not a per-pair significance file",
                             "pass the --out file of `reliability significance` (or its merge)")
        tests[normalise_measure(frame["measure"][0])] = frame
    results = extras.campaign_extras(tables, kind, primary, order, measures, summaries,
                                     parse_grid(args.thresholds), args.kendall_variant, tests,
                                     few_runs=few)
    for name, frame in results.items():
        write_parquet(frame, out / f"{name}.parquet")
    print(f"qacamp reliability extras: wrote {', '.join(f'{n}.parquet' for n in results)} "
          f"to {out}", file=sys.stderr)


def register(sub) -> None:
    p = sub.add_parser("reliability", help=HELP["reliability"],
                       description=__doc__.splitlines()[0])
    rs = p.add_subparsers(dest="analysis", metavar="ANALYSIS", required=True)

    s = rs.add_parser("swap", help="swap counts per (size, bin): size, bin, swaps, comparisons")
    _add_input(s)
    s.add_argument("--sizes", required=True,
                   help="a:b or a:b:step (inclusive) or a,b,c; b may be 'half' (the largest "
                        "size the collection allows), step 'auto' (about 25 sizes)")
    _config_prefix(s)
    _fit_option(s)
    s.add_argument("--trials", type=int, default=50, help="trials per size (default 50)")
    s.add_argument("--seed", type=int, default=0,
                   help="seed: trials are seeded by (seed, measure, size, trial) (default 0)")
    s.add_argument("--bin-width", type=float, default=0.01,
                   help="width of the score-difference bins (default 0.01)")
    s.add_argument("--bins", type=int, default=21,
                   help="number of bins, the last one open (default 21: d >= 0.20)")
    s.add_argument("--pairing", choices=list(PAIRINGS), default="shared",
                   help="shared: a trial's two subsets serve every pair (Voorhees); per-pair: "
                        "each pair draws its own (c@1 paper)")
    s.add_argument("--shard", default=None, help="I/N: run only shard I (0-based) of N")
    s.add_argument("--out", default=None, help="write the result here (Parquet) and a one-line summary on stderr; "
                        "without it the result is printed as TSV on stdout")
    add_force_option(s)
    s.set_defaults(func=_run_swap)

    s = rs.add_parser("stability", help="stability vs discrimination: fuzziness, error_rate, prop_ties")
    _add_input(s)
    s.add_argument("--size", required=True,
                   help="subset size: an integer or 'half' (half the collection)")
    _config_prefix(s)
    _fit_option(s)
    s.add_argument("--trials", type=int, default=100, help="trials (default 100)")
    s.add_argument("--seed", type=int, default=0,
                   help="seed: trials are seeded by (seed, measure, size, trial) (default 0)")
    s.add_argument("--fuzz", default="0.01:0.10:0.01", metavar="GRID",
                   help="fuzziness values f, start:stop:step or a,b,c (default 0.01:0.10:0.01)")
    s.add_argument("--pairing", choices=list(PAIRINGS), default="shared",
                   help="shared: one subset per trial for every pair; per-pair: one per pair")
    s.add_argument("--shard", default=None, help="I/N: write pair counts of shard I (0-based)")
    s.add_argument("--counts", action="store_true", help="write pair counts, not the summary")
    s.add_argument("--out", default=None, help="write the result here (Parquet) and a one-line summary on stderr; "
                        "without it the result is printed as TSV on stdout")
    add_force_option(s)
    s.set_defaults(func=_run_stability)

    s = rs.add_parser("bootstrap", help="Sakai's paired bootstrap test, discriminative power")
    _add_input(s)
    s.add_argument("--samples", type=int, default=1000,
                   help="bootstrap samples B (default 1000)")
    s.add_argument("--seed", type=int, default=0, help="seed of the samples (default 0)")
    s.add_argument("--alpha", type=float, default=0.05,
                   help="significance level (default 0.05)")
    s.add_argument("--shard", default=None, help="I/N: write pair counts of shard I (0-based)")
    s.add_argument("--counts", action="store_true", help="write per-pair counts")
    s.add_argument("--summary", default=None, help="also write the one-row summary here")
    s.add_argument("--out", default=None, help="write the result here (Parquet) and a one-line summary on stderr; "
                        "without it the result is printed as TSV on stdout")
    add_force_option(s)
    s.set_defaults(func=_run_bootstrap)

    from . import significance

    significance.register(rs, _add_input, _config_prefix)

    s = rs.add_parser("merge", help="sum shard outputs: merge --kind K OUT IN...")
    s.add_argument("--kind", required=True,
                   choices=["swap", "stability", "bootstrap", "significance"],
                   help="which analysis the shard files hold")
    s.add_argument("--counts", action="store_true", help="keep merged counts (stability/bootstrap)")
    s.add_argument("--summary", default=None,
                   help="bootstrap, significance: also write the summary here")
    s.add_argument("out", help="merged result (Parquet)")
    s.add_argument("inputs", nargs="+", help="shard files (Parquet)")
    add_force_option(s)
    s.set_defaults(func=_run_merge)

    s = rs.add_parser("fit", help="extrapolate swap error rates: fits + summary")
    _add_input(s)
    s.add_argument("--counts", required=True, help="swap counts Parquet (from swap/merge)")
    s.add_argument("--full-size", type=int, default=None, help="default: the matrix's units")
    s.add_argument("--level", type=float, default=0.05, help="error level (default 0.05)")
    s.add_argument("--min-fit-size", type=int, default=fits.DEFAULT_MIN_FIT_SIZE,
                   help="fit sizes >= this (inclusive; default 21: Voorhees 2003 fitted "
                   "'question set sizes greater than 20')")
    s.add_argument("--model", choices=list(curves.MODELS), default=curves.DEFAULT_MODEL,
                   help="curve and estimator (default exp-binomial: a exp(-b c) by binomial "
                   "maximum likelihood, sizes without swaps included; exp-loglinear: least "
                   "squares on log error rates)")
    s.add_argument("--mode", choices=list(fits.MODES), default=None,
                   help="extrapolate: read the fitted error at the full size (Voorhees); "
                   "observed: read the observed swap rates at --observed-at, no extrapolation "
                   "(Penas & Rodrigo 2011 Table 2).  Default: observed if --observed-at is "
                   "given, else extrapolate")
    s.add_argument("--observed-at", type=int, default=None, metavar="C",
                   help="subset size whose observed swap rates give the required difference "
                   "(observed mode; default there: the largest size counted)")
    s.add_argument("--fitted-bins", default=None, metavar="LO:HI",
                   help="fit only the bins whose lower edge is in LO..HI (e.g. 0.01:0.16 as "
                   "Voorhees 2003); other bins get reason 'not fitted' (default: all)")
    s.add_argument("--min-runs", type=int, default=fits.MIN_RUNS,
                   help="warn below this many runs (default 10 = 45 pairs)")
    s.add_argument("--min-comparisons", type=int, default=fits.MIN_COMPARISONS,
                   help="warn for bins with fewer comparisons (default 100)")
    s.add_argument("--bin-width", type=float, default=0.01,
                   help="width of the counts' score-difference bins (default 0.01)")
    s.add_argument("--summary", default=None,
                   help="write the summary row here (Parquet); without it the summary is "
                        "printed as TSV on stdout")
    s.add_argument("--out", default=None, help="write the per-bin fits here (Parquet)")
    add_force_option(s)
    s.set_defaults(func=_run_fit)

    s = rs.add_parser("kendall", help="Kendall tau between rankings of matrices")
    s.add_argument("rankings", nargs="+", help="LABEL=matrix.csv (run scores = column means)")
    s.add_argument("--include-baselines", action="store_true",
                   help="keep runs named baseline:*")
    s.add_argument("--swaps-out", default=None,
                   help="write swaps between the first two rankings (threshold, swaps, pairs)")
    s.add_argument("--thresholds", default="0.05,0.07",
                   help="score differences for the swap counts of --swaps-out "
                        "(default 0.05,0.07)")
    s.add_argument("--variant", choices=list(ranking.VARIANTS), default=ranking.DEFAULT_VARIANT,
                   help=ranking.VARIANT_HELP)
    s.add_argument("--out", default=None, help="write the result here (Parquet) and a one-line summary on stderr; "
                        "without it the result is printed as TSV on stdout")
    add_force_option(s)
    s.set_defaults(func=_run_kendall)

    s = rs.add_parser("extras", help="Kendall tau, ranking swaps, agreement, distributions, "
                      "equivalence of one campaign",
                      description="Writes kendall, ranking_swaps, agreement, distributions, "
                      "boxplot and equivalence_<measure> Parquet files into --out "
                      "(see qacamp.reliability.extras).")
    s.add_argument("--ingest", required=True, help="the campaign's ingest/ folder")
    s.add_argument("--scores", required=True, help="the campaign's scores/ folder")
    s.add_argument("--measure", required=True, action="append",
                   help="run-level measure (repeatable), e.g. --measure cws --measure accuracy")
    s.add_argument("--summary", action="append", default=[],
                   help="swap fit summary (repeatable; matched to a measure by its 'measure' "
                   "column or a swap_<measure>_summary.parquet name): writes equivalence_<measure>; "
                   "measures without a summary get no equivalence file")
    s.add_argument("--significance", action="append", default=[],
                   help="per-pair significance file (repeatable; matched by its 'measure' "
                   "column): adds the test's letters to equivalence_<measure>")
    s.add_argument("--thresholds", default="0,0.01,0.02,0.05,0.07",
                   help="score differences (primary ranking) for the swap counts")
    s.add_argument("--kendall-variant", choices=list(ranking.VARIANTS),
                   default=ranking.DEFAULT_VARIANT, help=ranking.VARIANT_HELP)
    s.add_argument("--out", required=True, help="output folder")
    add_force_option(s)
    s.set_defaults(func=_run_extras)
