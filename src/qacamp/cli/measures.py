"""`qacamp measures`: print the measure registry (or as Markdown: docs/measures.md)."""

from __future__ import annotations

import sys
from pathlib import Path

from . import HELP


def register(sub):
    p = sub.add_parser("measures", help=HELP["measures"],
                       description="Print the measure registry as a tab-separated table.")
    p.add_argument("--markdown", nargs="?", const="-", default=None,
                   metavar="PATH", help="the registry as Markdown: on stdout, or written to PATH "
                   "(docs/measures.md is `qacamp measures --markdown docs/measures.md`)")
    p.set_defaults(func=run)


def run(args) -> int:
    from .. import measures
    from ..io import write_text

    if args.markdown is not None:
        text = measures.to_markdown() + "\n"
        if args.markdown == "-":
            sys.stdout.write(text)
        else:
            write_text(text, Path(args.markdown))
        return 0
    cols = ("name", "family", "aggregation", "unit", "formula", "citation")
    print("\t".join(cols))
    for row in measures.table_rows():
        print("\t".join(row[c] for c in cols))
    return 0
