"""`qacamp eval KIND [options] RUN...`: score runs straight from raw files, trec_eval style.

The options are turned into the campaign config that ``qacamp ingest`` takes
(same keys, see workflow/schemas/config.schema.yaml) and scored by
:func:`qacamp.api.evaluate_campaign` (what ``qacamp.evaluate`` calls): the
workflow's code path, so the checks, the errors and the numbers are the same.
Prints a tab-separated table ``run  measure  scope  unit  value``: the
participants' runs first, baselines only with ``--baselines``; scope ``all``
only by default, ``-q`` adds per-unit rows (question for every measure that
has a per-question value, and series, topic, test, qtype), units in natural
order (3.9 before 3.10), and says on stderr which measures have none.  Ingest
warnings go to stderr.
"""

from __future__ import annotations

import sys

from .. import measures
from ..errors import UsageError
from ..eval_options import campaign_config as config_of
from ..eval_options import common_options, dest
from ..kinds import KINDS
from . import HELP


def register(sub):
    p = sub.add_parser("eval", help=HELP["eval"],
                       description=__doc__.split("\n\n")[0])
    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True)
    for kind in KINDS.values():
        if kind.eval_help is None:
            continue
        k = kinds.add_parser(kind.name, help=kind.eval_help)
        lists = _file_lists(kind)
        for flags, keywords in (*kind.eval_options, *common_options(kind)):
            if lists and flags == ("runs",):
                # an option taking any number of files swallows the runs after it: they
                # are required by run(), whose error says so (argparse's would not)
                keywords = {**keywords, "nargs": "*"}
            k.add_argument(*flags, **keywords)
    for parser in kinds.choices.values():
        parser.set_defaults(func=run)
    p.set_defaults(func=run)


def _file_lists(kind) -> list[str]:
    """The kind's options taking any number of files (``--definition F...``)."""
    return [flags[0] for flags, keywords in kind.eval_options
            if keywords.get("nargs") == "*" and flags[0].startswith("-")]


def _check_runs(args) -> None:
    """The runs are required; when none is left, an option listing files before
    them took them (``--definition d1 d2 r1``): say so."""
    kind = KINDS[args.kind]
    spec = dict(kind.eval_options).get(("runs",))
    if spec is None or args.runs:
        return
    took = [(flag, getattr(args, dest((flag,)))) for flag in _file_lists(kind)
            if getattr(args, dest((flag,)))]
    what = f"no {spec.get('metavar', 'RUN')} given"
    if took:
        flag, files = took[-1]
        raise UsageError(f"{what}: {flag} took every file after it ({' '.join(files)}); give "
                         f"the runs before {flag}, or end its files with --")
    raise UsageError(f"{what}: give the judged run files")


def campaign_config(args) -> dict:
    """The campaign config (as ``qacamp ingest`` takes it) that the options
    describe: :func:`qacamp.eval_options.campaign_config` of the parsed options
    (the shell has expanded any pattern already; paths are taken literally)."""
    kind = KINDS[args.kind]
    keys = [dest(flags) for flags, _ in kind.eval_options]
    options = {k: getattr(args, k) for k in [*keys, "min_coverage", "preset"]
               if k not in ("runs", "set_name", "judgment_code", "skip")
               and getattr(args, k, None) is not None}
    codes = None
    if getattr(args, "judgment_code", None):
        codes = {}
        for spec in args.judgment_code:
            raw, sep, code = spec.partition("=")
            if not sep:
                raise UsageError(f"--judgment-code {spec!r}: write RAW=CODE, e.g. 4=L")
            codes[raw] = code
    return config_of(kind.name, getattr(args, "runs", None) or (),
                     set_name=getattr(args, "set_name", "adjudicated"),
                     judgment_codes=codes, skip=getattr(args, "skip", None), **options)


def _formatter(precision: str):
    """value -> text: ``digits`` decimals, or ``full`` (the shortest repr that reads
    back to the same float); counts print as integers either way."""
    if precision == "full":
        def number(v: float) -> str:
            return repr(float(v))
    else:
        try:
            digits = int(precision)
        except ValueError:
            digits = -1
        if not 0 <= digits <= 17:
            raise UsageError(f"--precision {precision!r}: give a number of decimals 0-17 or "
                             "'full'")

        def number(v: float) -> str:
            return f"{v:.{digits}f}"

    def fmt(measure: str, value: float) -> str:
        m = measures.REGISTRY.get(measure)
        if m is not None and m.integer and float(value).is_integer():
            return str(int(value))
        return number(value)
    return fmt


def run(args) -> int:
    from ..api import evaluate_campaign
    from ..eval_options import check_measures
    from .ingest import print_warnings

    fmt = _formatter(args.precision)
    if args.format == "trec" and args.q:
        raise UsageError("--format trec prints the overall scores (trec_eval's lines); the "
                         "per-unit rows of -q come in the default format: drop one of them")
    _check_runs(args)
    if args.measure:
        check_measures(KINDS[args.kind], args.measure)
    result = evaluate_campaign(args.kind, campaign_config(args), args.measure, args.q,
                               args.baselines, args.judgment_set)
    print_warnings("eval", result.warnings)
    for line in result.dropped:
        print(f"qacamp eval: warning: {line}", file=sys.stderr)
    if result.without_per_question:
        print(f"qacamp eval: -q: no per-question rows for {', '.join(result.without_per_question)}"
              " (computed from counts or from a run's order over all its questions, not as a "
              "mean of per-question values): only their overall and per-group rows are "
              "printed", file=sys.stderr)
    out = sys.stdout
    if args.format == "trec":
        for run_, measure, scope, _, value in result.rows.iter_rows():
            if scope == "all":
                out.write(f"{measure}\t{run_}\t{fmt(measure, value)}\n")
        return 0
    out.write("run\tmeasure\tscope\tunit\tvalue\n")
    for run_, measure, scope, unit, value in result.rows.iter_rows():
        out.write(f"{run_}\t{measure}\t{scope}\t{unit}\t{fmt(measure, value)}\n")
    return 0
