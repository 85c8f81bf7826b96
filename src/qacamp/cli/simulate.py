"""`qacamp simulate KIND --out DIR`: write a simulated campaign in the raw formats.

Kinds: trec-factoid, trec-series, qa4mre, clef-qa, pan, and ``demo`` (every
demo campaign under ``--out``, e.g. ``resources/demo``).  The same seed gives
byte-identical files.  ``qacamp simulate KIND --help`` lists the kind's own
options.

``--questions-from FILE`` simulates runs and judgments for a campaign's own
real questions, to try the whole pipeline on the real collection before the
real runs arrive: trec-factoid takes a TREC 2002 or 2003 ``<top>`` question
file (judged runs for its factoid questions; a 2003 file's list and
definition questions get none: give the campaign ``skip: [list,
definition]``), trec-series the series XML (runs, judged factoid / list /
Other files, nuggets and list key for exactly those questions), qa4mre the
gold standard (runs over its topics, reading tests and answer ids).  The
real file is read by the project's reader and not rewritten: point the
campaign's ``questions:`` / ``gold:`` at it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time

from . import HELP, add_force_option

# option name -> (attribute, help)
SIZE_OPTIONS = {
    "runs": "number of runs",
    "questions": "number of questions (trec-factoid, clef-qa, pan)",
    "judgment_sets": "judgment sets: adjudicated + N-1 assessors (trec-factoid)",
    "series": "number of series (trec-series)",
    "topics": "number of topics (qa4mre)",
    "tests": "reading tests per topic (qa4mre)",
}


def register(sub) -> None:
    from .. import simulate as sim

    p = sub.add_parser("simulate", help=HELP["simulate"],
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True)
    for kind in [*sim.SIMULATED, "demo"]:
        module = sim.simulator(kind) if kind != "demo" else None
        fields = {f.name for f in dataclasses.fields(module.Options)} if module else set()
        doc = (module.__doc__ if module else sim.demo.__doc__) or ""
        k = kinds.add_parser(kind, help=doc.strip().splitlines()[0],
                             description=doc.strip(),
                             formatter_class=argparse.RawDescriptionHelpFormatter)
        k.add_argument("--out", required=True, help="output folder")
        k.add_argument("--seed", type=int, default=None,
                       help="random seed (default: the kind's own; demo: "
                            f"{sim.DEMO_SEED})")
        for name, help_ in SIZE_OPTIONS.items():
            if name in fields:
                k.add_argument(f"--{name.replace('_', '-')}", dest=name, type=int,
                               default=None, help=help_.split(" (")[0])
        if kind in sim.REAL_QUESTION_KINDS:
            k.add_argument("--questions-from", default=None, metavar="FILE",
                           help=f"simulate for a campaign's own questions: "
                                f"{sim.REAL_QUESTION_KINDS[kind]} (the file fixes the "
                                "campaign's size: only --runs applies)")
        k.add_argument("--quiet", action="store_true", help="no progress on stderr")
        add_force_option(k)
        k.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..io import writing

    with writing(f"qacamp simulate {args.kind}", dirs=[args.out],
                 inputs=[getattr(args, "questions_from", None)],
                 force=args.force):
        counts = _simulate(args)
    print(json.dumps(counts, sort_keys=True))
    return 0


def _simulate(args: argparse.Namespace) -> dict:
    from .. import simulate as sim
    from ..bounds import SEED_BOUNDS, check_option

    if args.seed is not None:
        check_option("--seed", args.seed, **SEED_BOUNDS)
    given = {k: getattr(args, k) for k in SIZE_OPTIONS if getattr(args, k, None) is not None}
    questions_from = getattr(args, "questions_from", None)
    start = time.monotonic()
    if args.kind == "demo":  # (its parser takes no size options)
        seed = sim.DEMO_SEED if args.seed is None else args.seed
        counts = sim.demo(args.out, seed=seed, quiet=args.quiet)
    elif questions_from is not None:
        counts = sim.simulate_for_questions(args.kind, args.out, questions_from,
                                            seed=args.seed, quiet=args.quiet, **given)
        if counts.get("other_questions"):
            print(f"simulate {args.kind}: the file's {counts['other_questions']:,} list and "
                  "definition questions get no runs: give the campaign skip: [list, "
                  "definition]", file=sys.stderr)
    else:
        module = sim.simulator(args.kind)  # (its parser takes only its own size options)
        kwargs = {} if args.seed is None else {"seed": args.seed}
        opts = dataclasses.replace(module.Options(), **given)
        counts = module.simulate(args.out, opts=opts, quiet=args.quiet, **kwargs)
    if not args.quiet:
        print(f"simulate {args.kind}: wrote {args.out} in {time.monotonic() - start:.1f}s",
              file=sys.stderr)
    return counts
