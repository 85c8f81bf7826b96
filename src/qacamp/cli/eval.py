"""`qacamp eval KIND [options] RUN...`: score runs straight from raw files, trec_eval style.

The options are turned into the campaign config that ``qacamp ingest`` takes
(same keys, see workflow/schemas/config.schema.yaml) and read with
:func:`qacamp.ingest.ingest_campaign`, then scored with
:func:`qacamp.scoring.score_campaign`: the workflow's code path, so the checks,
the errors and the numbers are the same.  Prints a tab-separated table
``run  measure  scope  unit  value``: scope ``all`` only by default, ``-q``
adds per-unit rows (question, series, topic, test, qtype).  Ingest warnings
go to stderr.
"""

from __future__ import annotations

import argparse
import glob
import sys

import polars as pl

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
    p.add_argument("-q", action="store_true", help="also print per-unit rows")
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
    k.add_argument("--gold", required=True)
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
    k.add_argument("runs", nargs="+", metavar="RUN")
    _common(k, "qa4mre")
    k = kinds.add_parser("pan", help=KIND_HELP["pan"])
    k.add_argument("--truth", required=True)
    k.add_argument("--edition", default=None,
                   help="PAN edition whose measures enter overall (2014, 2015, 2020-2023; "
                        "default 2023)")
    k.add_argument("--pan-evaluator", default=None, choices=["published", "current"],
                   help="F0.5u rule: published (the evaluator before its 2021-05-28 fix, which "
                        "took 0.5 as a same-author decision: PAN 2020's table) or current; "
                        "default by edition (2020 published, others current)")
    k.add_argument("runs", nargs="+", metavar="ANSWERS")
    _common(k, "pan")
    k = kinds.add_parser("clef-qa", help=KIND_HELP["clef-qa"])
    k.add_argument("--questions", required=True)
    k.add_argument("runs", nargs="+", metavar="RUN")
    _common(k, "clef-qa")
    k = kinds.add_parser("trec-factoid", help=KIND_HELP["trec-factoid"])
    k.add_argument("--questions", required=True, action="append",
                   help="<top> question file or series XML (repeatable; a <top> file whose "
                        "name contains 'list' holds LIST questions)")
    k.add_argument("--set-name", default="adjudicated",
                   help="judgment set name of the judged runs (default adjudicated)")
    k.add_argument("--list-key", default=None, help="list answer key (for judged list runs)")
    k.add_argument("--nuggets", default=None,
                   help="definition nugget list (TREC 2003, e.g. trec12answers_definition)")
    k.add_argument("--definition", nargs="*", default=[],
                   help="judged definition runs, part one (TREC 2003)")
    k.add_argument("--definition-nuggets", nargs="*", default=[],
                   help="judged definition runs, part two (paired with part one by run tag)")
    k.add_argument("--patterns", default=None,
                   help="answer patterns: add the 'automatic' judgment set (autojudge)")
    k.add_argument("runs", nargs="+", metavar="JUDGED_RUN")
    k.add_argument("--run-format", default=None, choices=["single", "ranked"],
                   help="single answer per question (default) or ranked answers "
                        "`qid tag rank docid judgment answer` (TREC 8-10)")
    _beta_rank(k)
    _skip(k, ("list", "definition"))
    _common(k, "trec-factoid")
    k = kinds.add_parser("trec-series", help=KIND_HELP["trec-series"])
    k.add_argument("--questions", required=True)
    k.add_argument("--year", type=int, default=None,
                   help="TREC year 2004-2007 (required unless --preset gives it)")
    k.add_argument("--other-score", default=None, choices=["nugget", "pyramid"],
                   help="Other score in the series score (default by year: 2007 pyramid)")
    k.add_argument("--nuggets", default=None)
    k.add_argument("--pyramid", default=None)
    k.add_argument("--list-key", default=None)
    k.add_argument("--patterns-factoid", default=None,
                   help="factoid answer patterns: add the 'automatic' judgment set")
    k.add_argument("--patterns-list", default=None,
                   help="list answer patterns: add the 'automatic' judgment set")
    k.add_argument("--set-name", default="adjudicated")
    k.add_argument("--factoid", nargs="*", default=[])
    k.add_argument("--list", nargs="*", default=[])
    k.add_argument("--other", nargs="*", default=[], help="judged Other runs, part one")
    k.add_argument("--other-nuggets", nargs="*", default=[],
                   help="judged Other runs, part two (paired with part one by run tag)")
    _beta_rank(k)
    _skip(k, ("factoid", "list", "other"))
    _common(k, "trec-series")
    for parser in kinds.choices.values():
        parser.set_defaults(func=run)
    p.set_defaults(func=run)


def campaign_config(args) -> dict:
    """The campaign config (as ``qacamp ingest`` takes it) that the options describe.
    Paths are glob-escaped: the shell has expanded any pattern already."""
    def one(path):
        return None if path is None else glob.escape(path)

    def many(paths):
        return [glob.escape(p) for p in paths]

    kind = args.kind
    c: dict = {"kind": kind}
    if kind == "qa4mre":
        c.update(gold=one(args.gold), runs=many(args.runs))
    elif kind == "pan":
        c.update(truth=one(args.truth), answers=many(args.runs))
    elif kind == "clef-qa":
        c.update(questions=one(args.questions), runs=many(args.runs))
    elif kind == "trec-factoid":
        judged = many(args.runs)
        if args.definition or args.definition_nuggets:
            judged = {"factoid": judged, **{part: many(getattr(args, part)) for part in
                                            ("definition", "definition_nuggets")
                                            if getattr(args, part)}}
        c.update(questions=many(args.questions), judgment_sets={args.set_name: judged},
                 primary=args.set_name)
        for key in ("list_key", "nuggets"):
            if getattr(args, key):
                c[key] = one(getattr(args, key))
        if args.patterns:
            c.update(patterns=one(args.patterns), autojudge=True)
    else:
        parts = {part: many(getattr(args, part)) for part in
                 ("factoid", "list", "other", "other_nuggets") if getattr(args, part)}
        c.update(questions=one(args.questions), judgment_sets={args.set_name: parts},
                 primary=args.set_name)
        for key in ("nuggets", "pyramid", "list_key", "patterns_factoid", "patterns_list"):
            if getattr(args, key):
                c[key] = one(getattr(args, key))
        if args.patterns_factoid or args.patterns_list:
            c["autojudge"] = True
    # options left unset keep the preset's or the kind's default
    for key in ("preset", "year", "main_questions", "language", "pass_threshold", "pass_rule",
                "test_std_ddof", "baseline_seed", "edition", "pan_evaluator", "beta", "max_rank",
                "other_score", "run_format"):
        if getattr(args, key, None) is not None:
            c[key] = getattr(args, key)
    if getattr(args, "judgment_code", None):
        codes = {}
        for spec in args.judgment_code:
            raw, sep, code = spec.partition("=")
            if not sep:
                raise UsageError(f"--judgment-code {spec!r}: write RAW=CODE, e.g. 4=L")
            codes[raw] = code
        c["judgment_codes"] = codes
    if getattr(args, "skip", None):
        c["skip"] = sorted(set(args.skip))
    if args.min_coverage is not None:
        c["min_coverage"] = args.min_coverage
    return c


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
    from ..ingest import ingest_campaign, resolved_campaign
    from ..scoring import score_campaign
    from .ingest import print_warnings

    names = measures.KIND_MEASURES[args.kind]
    chosen = measures.validate(args.measure, names) if args.measure else list(names)
    fmt = _formatter(args.precision)
    campaign = campaign_config(args)
    try:
        resolved = resolved_campaign(NAME, campaign)
        sets = resolved["judgment_sets"] + (["automatic"]
                                            if resolved["options"].get("autojudge") else [])
        js = args.judgment_set or resolved["primary"]
        if js not in sets:
            raise UsageError(f"--judgment-set: there is no judgment set '{js}'; this campaign "
                             f"has {', '.join(sets)}")
        tables = ingest_campaign(NAME, campaign)
    except ConfigError as exc:
        raise UsageError(f"{_option(exc.key)} (campaign key '{exc.key}'): {exc.problem}"
                         + (f". Fix: {exc.fix}" if exc.fix else "")) from exc
    print_warnings("eval", tables["warnings"])
    result = score_campaign(args.kind, tables, resolved)
    runs = result["runs"].filter((pl.col("judgment_set") == js)
                                 & pl.col("measure").is_in(chosen))
    if runs.height == 0:
        dropped = result["dropped"].filter(pl.col("judgment_set") == js).height
        raise UsageError(f"judgment set '{js}' has no scores for {', '.join(chosen)}"
                         + (f" ({dropped} units were dropped as unjudged)" if dropped else "")
                         + "; check the judged files and the measures")
    order = {m: i for i, m in enumerate(chosen)}
    if not args.q:
        runs = runs.filter(pl.col("scope") == "all")
    rows = runs.select("run", "measure", "scope", "unit", "value")
    if args.q:
        units = result["units"].filter((pl.col("judgment_set") == js)
                                       & pl.col("measure").is_in(chosen))
        rows = pl.concat([rows, units.select("run", "measure", pl.lit("question").alias("scope"),
                                             "unit", "value")])
    scope_rank = {"question": 0, "qtype": 1, "series": 2, "topic": 3, "test": 4, "all": 5}
    rows = rows.with_columns(
        pl.col("scope").replace_strict(scope_rank, default=9).alias("_s"),
        pl.col("measure").replace_strict(order, default=999).alias("_m"),
    ).sort(["run", "_s", "unit", "_m"])
    out = sys.stdout
    out.write("run\tmeasure\tscope\tunit\tvalue\n")
    for run_, measure, scope, unit, value in rows.select(
            "run", "measure", "scope", "unit", "value").iter_rows():
        out.write(f"{run_}\t{measure}\t{scope}\t{unit}\t{fmt(measure, value)}\n")
    return 0
