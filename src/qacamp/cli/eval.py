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
warnings go to stderr.  ``--format trec`` prints trec_eval's lines instead,
``measure<TAB>run<TAB>value``, one per run and measure (the overall scores;
trec_eval's second column is the query, ``all`` for its summary, and here the
run, as every run of the command is scored at once).
"""

from __future__ import annotations

import argparse
import sys

from .. import measures
from ..errors import ConfigError, UsageError
from ..kinds import KINDS
from . import HELP

NAME = "eval"
"""Campaign name of the config built from the command line."""

def _common(p: argparse.ArgumentParser, kind: str) -> None:
    names = KINDS[kind].measures
    p.add_argument("-m", "--measure", action="append", default=None, metavar="NAME",
                   help="measure to print (repeatable; default all): " + ", ".join(names))
    p.add_argument("-q", action="store_true",
                   help="also print per-unit rows: per question for every measure that has a "
                        "per-question value (stderr names those that do not), and per "
                        "question type, series, topic and reading test")
    p.add_argument("--baselines", action="store_true",
                   help="also print the pipeline's baseline runs (baseline:*), after the "
                        "participants' runs")
    p.add_argument("--judgment-set", default=None, metavar="NAME",
                   help="judgment set to print (default: the primary one)")
    p.add_argument("--min-coverage", type=float, default=None, metavar="SHARE",
                   help="warn about runs answering fewer than this share of their questions "
                        "(campaign key min_coverage; default 0.9)")
    from ..presets import PRESETS

    presets = [n for n, pr in PRESETS.items() if kind in pr.kinds]
    if presets:
        p.add_argument("--preset", default=None, choices=presets,
                       help="the campaign's method parameters as its paper set them "
                            "(campaign key preset; docs/presets.md)")
    p.add_argument("--format", default="tsv", choices=("tsv", "trec"),
                   help="tsv (default): a header line and run, measure, scope, unit, value "
                        "rows; trec: trec_eval's measure<TAB>run<TAB>value lines of the "
                        "overall scores, no header")
    p.add_argument("--precision", default="4", metavar="DIGITS|full",
                   help="decimals printed (default 4); 'full' prints every value exactly as "
                        "stored (shortest repr that reads back to the same float)")


def register(sub):
    p = sub.add_parser("eval", help=HELP["eval"],
                       description=__doc__.split("\n\n")[0])
    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True)
    for kind in KINDS.values():
        if kind.eval_help is None:
            continue
        k = kinds.add_parser(kind.name, help=kind.eval_help)
        for flags, keywords in kind.eval_options:
            k.add_argument(*flags, **keywords)
        _common(k, kind.name)
    for parser in kinds.choices.values():
        parser.set_defaults(func=run)
    p.set_defaults(func=run)


def campaign_config(args) -> dict:
    """The campaign config (as ``qacamp ingest`` takes it) that the options
    describe: :func:`qacamp.api.campaign_config` of the parsed options (the
    shell has expanded any pattern already; paths are taken literally)."""
    from ..api import PASSED_KEYS
    from ..api import campaign_config as config_of

    kind = KINDS[args.kind]
    keys = [*PASSED_KEYS, *kind.path_keys, kind.questions_key,
            *[part for part in kind.judgment_parts if part != kind.plain_part]]
    options = {k: getattr(args, k) for k in keys if getattr(args, k, None) is not None}
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


def _option(key: str) -> str:
    """The command-line option behind config key ``campaigns.eval.<key>``."""
    key = key.removeprefix(f"campaigns.{NAME}").lstrip(".")
    if key.startswith("judgment_sets"):
        part = key.split(".")[2] if key.count(".") >= 2 else None
        return f"--{part.replace('_', '-')}" if part else "the judged run arguments"
    special = {"runs": "the RUN arguments", "answers": "the ANSWERS arguments",
               "autojudge": "--patterns", "primary": "--set-name", "judgment_codes":
               "--judgment-code", "": "the options"}
    return special.get(key, f"--{key.replace('_', '-')}")


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
    from .ingest import print_warnings

    fmt = _formatter(args.precision)
    if args.format == "trec" and args.q:
        raise UsageError("--format trec prints the overall scores (trec_eval's lines); the "
                         "per-unit rows of -q come in the default format: drop one of them")
    try:
        result = evaluate_campaign(args.kind, campaign_config(args), args.measure, args.q,
                                   args.baselines, args.judgment_set)
    except ConfigError as exc:
        raise UsageError(f"{_option(exc.key)} (campaign key '{exc.key}'): {exc.problem}"
                         + (f". Fix: {exc.fix}" if exc.fix else "")) from exc
    except UsageError as exc:
        if str(exc).startswith("there is no judgment set '"):
            raise UsageError(f"--judgment-set: {exc}") from None
        raise
    print_warnings("eval", result.warnings)
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
