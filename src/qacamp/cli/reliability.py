"""`qacamp reliability`: resampling analyses of score matrices (docs/reliability.md).

One subcommand per analysis record (:mod:`qacamp.reliability.analyses`:
``swap``, ``fit``, ``stability``, ``bootstrap``, ``significance``,
``kendall``, ``extras``), each run the same way: its options checked, its
outputs claimed (:func:`qacamp.io.writing`), its inputs read by the loader
(:mod:`qacamp.loader`), its kernel run, its frames written (or printed as
TSV on stdout when no file is named, as trec_eval prints).  Input is either
``--matrix FILE`` (wide CSV/Parquet, header of run names) or ``--scores DIR
--measure NAME --unit question|series|test|topic [--judgment-set S]`` (the
pipeline's scores/*.parquet).  Sharded runs (``--shard I/N``, 0-based) write
mergeable counts; ``merge --kind ANALYSIS`` sums them.  ``A ... --then B ...``
runs several in one process, in turn (:func:`qacamp.cli.commands`: every part
checked first, the first failure ends the chain with its exit code).

Trials are seeded by (``--seed``, measure name, size, trial).  With
``--matrix`` the measure name is ``--measure``, or ``score`` when it is not
given, never the file's name: renaming or moving the matrix file does not
change the trials.
"""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl

from ..io import write_parquet, writing
from ..loader import input_paths, load, shard_frames
from ..reliability.analyses import ANALYSES, merged_analyses
from ..reliability.analyses.record import Analysis, Result, check_options
from ..reliability.seeds import parse_shard
from . import HELP, add_force_option


def tsv(df: pl.DataFrame) -> str:
    """A frame as tab-separated text: a header line, every row, nothing
    truncated; floats written exactly (shortest repr), nulls empty."""
    return df.write_csv(None, separator="\t")


def _finish(analysis: Analysis, result: Result, args) -> None:
    """Write the result's frames (into the output folder, or each to the file
    its option names; the ``stdout`` output as TSV when it names none), then
    the one-line summary and the warnings on stderr."""
    folder = getattr(args, analysis.folder) if analysis.folder else None
    for dest, frame in result.frames.items():
        path = Path(folder) / f"{dest}.parquet" if folder else getattr(args, dest, None)
        if path:
            write_parquet(frame, path)
        elif dest == analysis.stdout:
            sys.stdout.write(tsv(frame))
    lines = [result.message] if result.message else []
    for line in [*lines, *(f"warning: {w}" for w in result.warnings)]:
        print(f"qacamp reliability {analysis.name}: {line}", file=sys.stderr)


def run(args) -> int:
    """One run of the analysis the subcommand names."""
    analysis = ANALYSES[args.analysis]
    check_options(analysis, args)
    shard = getattr(args, "shard", None)
    args.shard_index = parse_shard(shard)
    files = [] if analysis.folder else [getattr(args, o.dest, None) for o in analysis.outputs]
    dirs = [getattr(args, analysis.folder)] if analysis.folder else []
    with writing(f"qacamp reliability {analysis.name}", files=files, dirs=dirs,
                 inputs=input_paths(analysis, args), force=args.force,
                 temporary=shard is not None):
        _finish(analysis, analysis.run(load(analysis, args), args), args)
    return 0


def merge_outputs() -> dict[str, list[Analysis]]:
    """Output option dest -> the merged analyses that write it (besides ``out``):
    ``merge`` offers each once."""
    out: dict[str, list[Analysis]] = {}
    for a in merged_analyses():
        for o in a.outputs:
            if o.dest != "out":
                out.setdefault(o.dest, []).append(a)
    return out


def run_merge(args) -> int:
    """``merge --kind ANALYSIS OUT SHARD...``: the shards' counts summed (checked
    complete and consistent by the analysis's merge), then its results."""
    from ..errors import UsageError

    analysis = ANALYSES[args.kind]
    extra = []
    for dest, owners in merge_outputs().items():
        value = getattr(args, dest, None)
        if value is not None and analysis not in owners:
            flag = owners[0].option(dest).flags[0]
            raise UsageError(f"merge --kind {analysis.name} writes no {flag} file (only "
                             f"{', '.join(a.name for a in owners)}): drop {flag}")
        extra.append(value)
    with writing("qacamp reliability merge", files=[args.out, *extra],
                 inputs=args.inputs, force=args.force):
        result = analysis.merge(args.inputs, shard_frames(analysis, args.inputs), args)
        _finish(analysis, result, args)
    return 0


def register(sub) -> None:
    p = sub.add_parser("reliability", help=HELP["reliability"],
                       description=__doc__.splitlines()[0],
                       epilog="Several runs in one process: `qacamp reliability swap ... --then "
                       "stability ... --then merge ...` (every part is checked before the first "
                       "runs; the first that fails ends the chain with its exit code).")
    rs = p.add_subparsers(dest="analysis", metavar="ANALYSIS", required=True)
    for analysis in ANALYSES.values():
        s = rs.add_parser(analysis.name, help=analysis.help,
                          description=analysis.description or None)
        groups = {}
        for o in analysis.options:
            target = s
            if o.group is not None:
                target = groups.setdefault(o.group, s.add_argument_group(o.group))
            target.add_argument(*o.flags, **o.argparse_kwargs())
        add_force_option(s)
        s.set_defaults(func=run)
    s = rs.add_parser("merge", help="sum shard outputs: merge --kind K OUT IN...")
    s.add_argument("--kind", required=True, choices=[a.name for a in merged_analyses()],
                   help="which analysis the shard files hold")
    s.add_argument("--counts", action="store_true", help="keep merged counts (stability/bootstrap)")
    for dest, owners in merge_outputs().items():
        o = owners[0].option(dest)
        s.add_argument(*o.flags, default=None, metavar=o.metavar,
                       help=f"{', '.join(a.name for a in owners)}: {o.help}")
    s.add_argument("out", help="merged result (Parquet)")
    s.add_argument("inputs", nargs="+", help="shard files (Parquet)")
    add_force_option(s)
    s.set_defaults(func=run_merge)
