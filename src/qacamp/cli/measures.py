"""`qacamp measures`: print the measure registry (or as Markdown: docs/measures.md)."""

from __future__ import annotations

from . import HELP, add_markdown_option, put_markdown


def register(sub):
    p = sub.add_parser("measures", help=HELP["measures"],
                       description="Print the measure registry as a tab-separated table.")
    add_markdown_option(p, "the registry as Markdown",
                        "docs/measures.md is `qacamp measures --markdown docs/measures.md`")
    p.set_defaults(func=run)


def run(args) -> int:
    from .. import measures

    if args.markdown is not None:
        text = measures.to_markdown() + "\n"
        put_markdown(text, args.markdown)
        return 0
    cols = ("name", "family", "aggregation", "unit", "formula", "citation")
    print("\t".join(cols))
    for row in measures.table_rows():
        print("\t".join(row[c] for c in cols))
    return 0
