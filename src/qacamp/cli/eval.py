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

import argparse
import sys

from .. import measures
from ..errors import ConfigError, UsageError
from . import HELP

NAME = "eval"
"""Campaign name of the config built from the command line."""

KIND_HELP = {
    "qa4mre": "QA4MRE: --gold GS.xml RUN.xml...",
    "pan": "PAN verification: --truth truth.jsonl answers.jsonl... (run = parent folder)",
    "clef-qa": "CLEF QA (ResPubliQA-style TSV): --questions Q.tsv RUN.tsv...",
    "trec-factoid": "TREC 2002-2003 factoid: --questions Q JUDGED_RUN... (2003 definitions: "
                    "--nuggets N --definition D... --definition-nuggets D2...)",
    "trec-series": "TREC 2004-2007 series: --questions Q.xml --year Y --nuggets N ...",
}


def _common(p: argparse.ArgumentParser, kind: str) -> None:
    names = measures.KIND_MEASURES[kind]
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
    p.add_argument("--precision", default="4", metavar="DIGITS|full",
                   help="decimals printed (default 4); 'full' prints every value exactly as "
                        "stored (shortest repr that reads back to the same float)")


def _skip(p: argparse.ArgumentParser, choices: tuple[str, ...]) -> None:
    p.add_argument("--skip", action="append", default=None, choices=choices,
                   help="leave this question type's measures out when its files are not "
                        "given (campaign key skip; repeatable)")


def _beta_rank(p: argparse.ArgumentParser) -> None:
    p.add_argument("--beta", type=float, default=None,
                   help="beta of the nugget F (default 3; TREC 2003 definitions: 5)")
    p.add_argument("--max-rank", type=int, default=None,
                   help="ranked answers MRR counts per question (default 5)")
    p.add_argument("--judgment-code", action="append", default=None, metavar="RAW=CODE",
                   help="map a raw judgment code to R W U X or L (campaign key "
                        "judgment_codes; repeatable), e.g. 4=L to read code 4 as locally correct")


def register(sub):
    p = sub.add_parser("eval", help=HELP["eval"],
                       description=__doc__.split("\n\n")[0])
    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True)
    k = kinds.add_parser("qa4mre", help=KIND_HELP["qa4mre"])
    k.add_argument("--gold", required=True, metavar="GS.xml",
                   help="QA4MRE gold standard XML (campaign key gold)")
    k.add_argument("--main-questions", type=int, default=None,
                   help="main questions per reading test (default 15)")
    k.add_argument("--language", default=None, help="gold language (default EN)")
    k.add_argument("--pass-threshold", type=float, default=None,
                   help="c@1 a reading test needs to pass (default 0.5)")
    k.add_argument("--pass-rule", default=None, choices=["at_least", "more_than"],
                   help="pass at c@1 >= threshold (at_least, default) or > threshold")
    k.add_argument("--test-std-ddof", type=int, default=None, choices=[0, 1],
                   help="std of the tests' c@1: population (0, default) or sample (1)")
    k.add_argument("--baseline-seed", type=int, default=None,
                   help="seed of the random-choice baseline run (default 1)")
    k.add_argument("runs", nargs="+", metavar="RUN", help="run XML files")
    _common(k, "qa4mre")
    k = kinds.add_parser("pan", help=KIND_HELP["pan"])
    k.add_argument("--truth", required=True, metavar="truth.jsonl",
                   help="PAN truth file (campaign key truth)")
    k.add_argument("--edition", default=None,
                   help="PAN edition whose measures enter overall (2014, 2015, 2020-2023; "
                        "default 2023)")
    k.add_argument("--pan-evaluator", default=None, choices=["published", "current"],
                   help="F0.5u rule: published (the evaluator before its 2021-05-28 fix, which "
                        "took 0.5 as a same-author decision: PAN 2020's table) or current; "
                        "default by edition (2020 published, others current)")
    k.add_argument("runs", nargs="+", metavar="ANSWERS",
                   help="answers.jsonl files; a run is named after its parent folder")
    _common(k, "pan")
    k = kinds.add_parser("clef-qa", help=KIND_HELP["clef-qa"])
    k.add_argument("--questions", required=True, metavar="Q.tsv",
                   help="CLEF QA questions TSV (campaign key questions)")
    k.add_argument("runs", nargs="+", metavar="RUN", help="judged run TSV files")
    _common(k, "clef-qa")
    k = kinds.add_parser("trec-factoid", help=KIND_HELP["trec-factoid"])
    k.add_argument("--questions", required=True, action="append",
                   help="<top> question file or series XML (repeatable; a <top> file whose "
                        "name contains 'list' holds LIST questions)")
    k.add_argument("--set-name", default="adjudicated", metavar="NAME",
                   help="judgment set name of the judged runs (default adjudicated)")
    k.add_argument("--list-key", default=None, metavar="FILE",
                   help="list answer key (for judged list runs)")
    k.add_argument("--nuggets", default=None, metavar="FILE",
                   help="definition nugget list (TREC 2003, e.g. trec12answers_definition)")
    k.add_argument("--definition", nargs="*", default=[], metavar="FILE",
                   help="judged definition runs, part one (TREC 2003)")
    k.add_argument("--definition-nuggets", nargs="*", default=[], metavar="FILE",
                   help="judged definition runs, part two (paired with part one by run tag)")
    k.add_argument("--patterns", default=None, metavar="FILE",
                   help="answer patterns: add the 'automatic' judgment set (autojudge)")
    k.add_argument("runs", nargs="+", metavar="JUDGED_RUN",
                   help="judged run files (qid tag docid judgment answer)")
    k.add_argument("--run-format", default=None, choices=["single", "ranked"],
                   help="single answer per question (default) or ranked answers "
                        "`qid tag rank docid judgment answer` (TREC 8-10)")
    _beta_rank(k)
    _skip(k, ("list", "definition"))
    _common(k, "trec-factoid")
    k = kinds.add_parser("trec-series", help=KIND_HELP["trec-series"])
    k.add_argument("--questions", required=True, metavar="Q.xml",
                   help="question series XML (campaign key questions)")
    k.add_argument("--year", type=int, default=None,
                   help="TREC year 2004-2007 (required unless --preset gives it)")
    k.add_argument("--other-score", default=None, choices=["nugget", "pyramid"],
                   help="Other score in the series score (default by year: 2007 pyramid)")
    k.add_argument("--nuggets", default=None, metavar="FILE",
                   help="Other nuggets with vital/okay labels (campaign key nuggets)")
    k.add_argument("--pyramid", default=None, metavar="FILE",
                   help="nugget pyramid weights, TREC 2006-2007 (campaign key pyramid)")
    k.add_argument("--list-key", default=None, metavar="FILE",
                   help="list answer key (campaign key list_key)")
    k.add_argument("--patterns-factoid", default=None,
                   help="factoid answer patterns: add the 'automatic' judgment set")
    k.add_argument("--patterns-list", default=None,
                   help="list answer patterns: add the 'automatic' judgment set")
    k.add_argument("--set-name", default="adjudicated", metavar="NAME",
                   help="judgment set name of the judged runs (default adjudicated)")
    k.add_argument("--factoid", nargs="*", default=[], metavar="FILE",
                   help="judged factoid runs")
    k.add_argument("--list", nargs="*", default=[], metavar="FILE", help="judged list runs")
    k.add_argument("--other", nargs="*", default=[], metavar="FILE",
                   help="judged Other runs, part one")
    k.add_argument("--other-nuggets", nargs="*", default=[], metavar="FILE",
                   help="judged Other runs, part two (paired with part one by run tag)")
    _beta_rank(k)
    _skip(k, ("factoid", "list", "other"))
    _common(k, "trec-series")
    for parser in kinds.choices.values():
        parser.set_defaults(func=run)
    p.set_defaults(func=run)


def campaign_config(args) -> dict:
    """The campaign config (as ``qacamp ingest`` takes it) that the options
    describe: :func:`qacamp.api.campaign_config` of the parsed options (the
    shell has expanded any pattern already; paths are taken literally)."""
    from ..api import DEFINITION_PARTS, PASSED_KEYS, PATH_KEYS, SERIES_PARTS
    from ..api import campaign_config as config_of

    kind = args.kind
    keys = [*PASSED_KEYS, *PATH_KEYS[kind], *(SERIES_PARTS if kind == "trec-series" else ())]
    if kind == "trec-factoid":
        keys += ["questions", *DEFINITION_PARTS]
    options = {k: getattr(args, k) for k in keys if getattr(args, k, None) is not None}
    codes = None
    if getattr(args, "judgment_code", None):
        codes = {}
        for spec in args.judgment_code:
            raw, sep, code = spec.partition("=")
            if not sep:
                raise UsageError(f"--judgment-code {spec!r}: write RAW=CODE, e.g. 4=L")
            codes[raw] = code
    return config_of(kind, getattr(args, "runs", None) or (),
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
    out.write("run\tmeasure\tscope\tunit\tvalue\n")
    for run_, measure, scope, unit, value in result.rows.iter_rows():
        out.write(f"{run_}\t{measure}\t{scope}\t{unit}\t{fmt(measure, value)}\n")
    return 0
