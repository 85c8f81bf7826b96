"""`qacamp simulate KIND --out DIR`: write a simulated campaign in the raw formats.

Kinds: trec-factoid, trec-series, qa4mre, clef-qa, pan, and ``demo`` (every
demo campaign under ``--out``, e.g. ``resources/demo``).  The same seed gives
byte-identical files.

``--questions-from FILE`` simulates runs and judgments for a campaign's own
real questions, to try the whole pipeline on the real collection before the
real runs arrive: trec-series takes the series XML (runs, judged factoid /
list / Other files, nuggets and list key for exactly those questions),
qa4mre the gold standard (runs over its topics, reading tests and answer
ids).  The real file is read by the project's reader and not rewritten:
point the campaign's ``questions:`` / ``gold:`` at it.  Size options apply to the kinds that have them
(``--questions``: trec-factoid, clef-qa, pan; ``--judgment-sets``:
trec-factoid; ``--series``: trec-series; ``--topics``/``--tests``: qa4mre);
giving one to another kind is a usage error.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time

from ..errors import UsageError
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
    from ..simulate import SIMULATED

    p = sub.add_parser("simulate", help=HELP["simulate"],
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kind", choices=[*SIMULATED, "demo"], help="campaign kind, or demo")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--seed", type=int, default=None,
                   help="random seed (default: the kind's own; demo: qacamp.simulate.DEMO_SEED)")
    for name, help_ in SIZE_OPTIONS.items():
        p.add_argument(f"--{name.replace('_', '-')}", dest=name, type=int, default=None,
                       help=help_)
    p.add_argument("--questions-from", default=None, metavar="FILE",
                   help="simulate for a campaign's own questions: a TREC series XML "
                        "(trec-series) or a QA4MRE gold standard (qa4mre)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    add_force_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..io import writing

    with writing(f"qacamp simulate {args.kind}", dirs=[args.out], inputs=[args.questions_from],
                 force=args.force):
        counts = _simulate(args)
    print(json.dumps(counts, sort_keys=True))
    return 0


def _simulate(args: argparse.Namespace) -> dict:
    from .. import simulate as sim

    given = {k: getattr(args, k) for k in SIZE_OPTIONS if getattr(args, k) is not None}
    start = time.monotonic()
    if args.kind == "demo":
        if given:
            raise UsageError(f"simulate demo takes no size options (got {', '.join(given)})")
        seed = sim.DEMO_SEED if args.seed is None else args.seed
        counts = sim.demo(args.out, seed=seed, quiet=args.quiet)
    elif args.questions_from is not None:
        counts = sim.simulate_for_questions(args.kind, args.out, args.questions_from,
                                            seed=args.seed, quiet=args.quiet, **given)
    else:
        module = sim.simulator(args.kind)
        fields = {f.name for f in dataclasses.fields(module.Options)}
        bad = sorted(set(given) - fields)
        if bad:
            raise UsageError(f"simulate {args.kind} has no option "
                             f"{', '.join('--' + b.replace('_', '-') for b in bad)}")
        kwargs = {} if args.seed is None else {"seed": args.seed}
        opts = dataclasses.replace(module.Options(), **given)
        counts = module.simulate(args.out, opts=opts, quiet=args.quiet, **kwargs)
    if not args.quiet:
        print(f"simulate {args.kind}: wrote {args.out} in {time.monotonic() - start:.1f}s",
              file=sys.stderr)
    return counts
