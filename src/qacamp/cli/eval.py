"""`qacamp eval KIND [options] RUN...`: score runs straight from raw files, trec_eval style.

Reads the files with :mod:`qacamp.readers`, scores them with
:func:`qacamp.scoring.score_campaign` (the workflow's code path, so the
numbers are the same) and prints a tab-separated table
``run  measure  scope  unit  value``: scope ``all`` only by default, ``-q``
adds per-unit rows (question, series, topic, test, qtype).
"""

from __future__ import annotations

import argparse
import sys

import polars as pl

from .. import measures

KIND_HELP = {
    "qa4mre": "QA4MRE: --gold GS.xml RUN.xml...",
    "pan": "PAN verification: --truth truth.jsonl answers.jsonl... (run = parent folder)",
    "clef-qa": "CLEF QA (ResPubliQA-style TSV): --questions Q.tsv RUN.tsv...",
    "trec-factoid": "TREC 2002-2003 factoid: --questions Q JUDGED_RUN...",
    "trec-series": "TREC 2004-2007 series: --questions Q.xml --year Y --nuggets N ...",
}


def _common(p: argparse.ArgumentParser, kind: str) -> None:
    names = measures.KIND_MEASURES[kind]
    p.add_argument("-m", "--measure", action="append", default=None, metavar="NAME",
                   help="measure to print (repeatable; default all): " + ", ".join(names))
    p.add_argument("-q", action="store_true", help="also print per-unit rows")
    p.add_argument("--judgment-set", default=None, metavar="NAME",
                   help="judgment set to print (default: the primary one)")


def register(sub):
    p = sub.add_parser("eval", help="score runs from raw files (trec_eval style)",
                       description=__doc__.split("\n\n")[0])
    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True)
    k = kinds.add_parser("qa4mre", help=KIND_HELP["qa4mre"])
    k.add_argument("--gold", required=True)
    k.add_argument("--main-questions", type=int, default=15)
    k.add_argument("--language", default="EN")
    k.add_argument("--pass-threshold", type=float, default=0.5)
    k.add_argument("--baseline-seed", type=int, default=1)
    k.add_argument("runs", nargs="+", metavar="RUN")
    _common(k, "qa4mre")
    k = kinds.add_parser("pan", help=KIND_HELP["pan"])
    k.add_argument("--truth", required=True)
    k.add_argument("runs", nargs="+", metavar="ANSWERS")
    _common(k, "pan")
    k = kinds.add_parser("clef-qa", help=KIND_HELP["clef-qa"])
    k.add_argument("--questions", required=True)
    k.add_argument("runs", nargs="+", metavar="RUN")
    _common(k, "clef-qa")
    k = kinds.add_parser("trec-factoid", help=KIND_HELP["trec-factoid"])
    k.add_argument("--questions", required=True, action="append",
                   help="<top> question file or series XML (repeat the option for a LIST "
                        "question file)")
    k.add_argument("--set-name", default="adjudicated",
                   help="judgment set name of the judged runs (default adjudicated)")
    k.add_argument("--patterns", default=None,
                   help="answer patterns: add the 'automatic' judgment set")
    k.add_argument("runs", nargs="+", metavar="JUDGED_RUN")
    _common(k, "trec-factoid")
    k = kinds.add_parser("trec-series", help=KIND_HELP["trec-series"])
    k.add_argument("--questions", required=True)
    k.add_argument("--year", type=int, required=True)
    k.add_argument("--nuggets", default=None)
    k.add_argument("--pyramid", default=None)
    k.add_argument("--list-key", default=None)
    k.add_argument("--set-name", default="adjudicated")
    k.add_argument("--factoid", nargs="*", default=[])
    k.add_argument("--list", nargs="*", default=[])
    k.add_argument("--other", nargs="*", default=[])
    k.add_argument("--other-nuggets", nargs="*", default=[])
    _common(k, "trec-series")
    for parser in kinds.choices.values():
        parser.set_defaults(func=run)
    p.set_defaults(func=run)


def _cat(frames: list[pl.DataFrame], name: str) -> pl.DataFrame:
    from ..tables import conform, empty

    frames = [conform(name, f) for f in frames if f is not None and f.height]
    return pl.concat(frames) if frames else empty(name)


def load(args) -> tuple[dict[str, pl.DataFrame], dict]:
    """Read the raw files named on the command line into canonical tables."""
    from ..errors import UsageError
    from ..readers import answer_keys, clef, pan, qa4mre, trec_questions, trec_runs

    kind = args.kind
    t: dict[str, list[pl.DataFrame]] = {}
    opts: dict = {"kind": kind}

    def add(name, df):
        t.setdefault(name, []).append(df)

    if kind == "qa4mre":
        q, o = qa4mre.read_gold(args.gold, args.main_questions, args.language)
        add("questions", q)
        add("options", o)
        for path in args.runs:
            r, j = qa4mre.read_run(path, q, o)
            add("responses", r)
            add("judgments", j)
        opts.update(main_questions=args.main_questions, pass_threshold=args.pass_threshold,
                    baseline_seed=args.baseline_seed)
    elif kind == "pan":
        q, o = pan.read_truth(args.truth)
        add("questions", q)
        add("options", o)
        for path in args.runs:
            r, j = pan.read_answers(path, q, o)
            add("responses", r)
            add("judgments", j)
    elif kind == "clef-qa":
        add("questions", clef.read_questions(args.questions))
        for path in args.runs:
            r, j = clef.read_run(path)
            add("responses", r)
            add("judgments", j)
    elif kind == "trec-factoid":
        for i, path in enumerate(args.questions):
            add("questions", trec_questions.read_top_questions(path, "FACTOID" if i == 0
                                                               else "LIST"))
        for path in args.runs:
            r, j = trec_runs.read_judged_factoid(path, args.set_name)
            add("responses", r)
            add("judgments", j)
        if args.patterns:
            add("patterns", answer_keys.read_patterns(args.patterns))
            opts["autojudge"] = True
        opts["primary"] = args.set_name
    elif kind == "trec-series":
        if len(args.other) != len(args.other_nuggets):
            raise UsageError("--other and --other-nuggets must name the same number of files "
                             "(part one and part two of each judged Other run, in order)")
        add("questions", trec_questions.read_series_xml(args.questions))
        if args.nuggets:
            add("nuggets", answer_keys.read_nuggets(args.nuggets))
        if args.pyramid:
            add("nuggets", answer_keys.read_pyramid(args.pyramid))
        if args.list_key:
            add("list_key", answer_keys.read_list_key(args.list_key))
        for path in args.factoid:
            r, j = trec_runs.read_judged_factoid(path, args.set_name)
            add("responses", r)
            add("judgments", j)
        for path in args.list:
            r, j = trec_runs.read_judged_list(path, args.set_name)
            add("responses", r)
            add("judgments", j)
        for one, two in zip(args.other, args.other_nuggets, strict=True):
            r, m = trec_runs.read_judged_other(one, two, args.set_name)
            add("responses", r)
            add("nugget_matches", m)
        opts.update(year=args.year, primary=args.set_name)
    from ..tables import SCHEMAS

    tables = {name: _cat(t.get(name, []), name) for name in SCHEMAS}
    if kind == "trec-series" and args.nuggets and args.pyramid:
        # one nugget list with the pyramid weights filled in where known
        base = _cat(t["nuggets"][:1], "nuggets").drop("weight")
        w = t["nuggets"][1].select("qid", "nugget", "weight")
        tables["nuggets"] = _cat([base.join(w, on=["qid", "nugget"], how="left")], "nuggets")
    return tables, opts


def _fmt(measure: str, value: float) -> str:
    m = measures.REGISTRY.get(measure)
    if m is not None and m.integer and float(value).is_integer():
        return str(int(value))
    return f"{value:.4f}"


def run(args) -> int:
    from ..scoring import primary_set, score_campaign

    names = measures.KIND_MEASURES[args.kind]
    chosen = measures.validate(args.measure, names) if args.measure else list(names)
    tables, opts = load(args)
    result = score_campaign(args.kind, tables, opts)
    present = sorted(set(result["runs"]["judgment_set"].unique().to_list()))
    js = args.judgment_set or primary_set(args.kind, opts, present)
    if present and js not in present:
        from ..errors import UsageError
        raise UsageError(f"judgment set '{js}' not present; present: {', '.join(present)}")
    order = {m: i for i, m in enumerate(chosen)}
    runs = result["runs"].filter((pl.col("judgment_set") == js)
                                 & pl.col("measure").is_in(chosen))
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
        out.write(f"{run_}\t{measure}\t{scope}\t{unit}\t{_fmt(measure, value)}\n")
    return 0
