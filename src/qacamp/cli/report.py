"""`qacamp report`: the overview paper's tables and figures, the campaign
overview page and the index over the campaigns.

::

    qacamp report tables   --campaign-dir results/<c> --out results/<c>/tables
    qacamp report figures  --campaign-dir results/<c> --out results/<c>/figures
    qacamp report editions --campaign-dir results/a --campaign-dir results/b --out DIR
    qacamp report page     --campaign-dir results/<c> --out results/<c>/report.html
    qacamp report index    --campaign-dir results/a --campaign-dir results/b --out results/index.html

What each writes and which files a campaign needs: :mod:`qacamp.report.build`,
:mod:`qacamp.report.campaign`, :mod:`qacamp.report.page`.  Tables are written
as ``<name>.tex`` (booktabs), ``.md`` and ``.csv`` (the comparison tables with
superscripts also as ``.html``); figures as ``<name>.png``
and ``.svg``; the pages as single self-contained HTML files (figures
embedded, no network, readable without JavaScript).  The paths written are
printed, sorted, one per line; a rerun gives byte-identical files.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..io import write_text, writing
from . import HELP, add_force_option


def _print(paths: list[Path]) -> None:
    for p in sorted(str(x) for x in paths):
        print(p)


def cmd_tables(args: argparse.Namespace) -> list[Path]:
    from ..report.build import (
        build_tables,
        build_texts,
        latex_label_prefix,
        write_tables,
        write_texts,
    )
    from ..report.campaign import Campaign

    c = Campaign(args.campaign_dir, args.judgment_set, args.measure, not args.no_reliability)
    return write_tables(list(build_tables(c).values()), Path(args.out),
                        latex_label_prefix(c.name)) + write_texts(build_texts(c), Path(args.out))


def cmd_figures(args: argparse.Namespace) -> list[Path]:
    from ..report.build import build_figures, write_figures
    from ..report.campaign import Campaign

    c = Campaign(args.campaign_dir, args.judgment_set, args.measure, not args.no_reliability)
    return write_figures(build_figures(c), Path(args.out), dpi=args.dpi)


def cmd_editions(args: argparse.Namespace) -> list[Path]:
    from ..report.build import build_editions, latex_label_prefix, write_tables

    table = build_editions(args.campaign_dir, args.judgment_set, args.measure_name)
    # the overview's labels: tab:overview-editions (unique beside the campaigns')
    return write_tables([table], Path(args.out), latex_label_prefix(Path(args.out).name))


def cmd_page(args: argparse.Namespace) -> list[Path]:
    from ..report.page import campaign_page

    text = campaign_page(args.campaign_dir, args.figures, args.judgment_set, args.measure,
                         index_href=args.index_href or None)
    write_text(text, args.out)
    return [Path(args.out)]


def cmd_index(args: argparse.Namespace) -> list[Path]:
    from ..report.page import index_page

    out = Path(args.out)
    write_text(index_page(args.campaign_dir, out.parent, title=args.title), out)
    return [out]


#: subcommands writing a folder (the others write the one file --out names)
FOLDER_OUTPUTS = ("tables", "figures", "editions")


def run(args: argparse.Namespace) -> int:
    """Claim ``--out`` (a folder or a file, :func:`qacamp.io.writing`), run the
    subcommand, then print the paths written."""
    dirs = [args.campaign_dir] if isinstance(args.campaign_dir, str) else args.campaign_dir
    folder = args.report_command in FOLDER_OUTPUTS
    with writing(f"qacamp report {args.report_command}", dirs=[args.out] if folder else [],
                 files=[] if folder else [args.out],
                 inputs=[*dirs, getattr(args, "figures", None)], force=args.force):
        written = args.report_func(args)
    _print(written)
    return 0


def register(sub) -> None:
    p = sub.add_parser("report", help=HELP["report"],
                       description=__doc__.split("::")[0].strip(),
                       epilog="Several steps in one process: `qacamp report tables ... --then "
                       "figures ... --then page ...` (every part is checked before the first "
                       "runs; the first that fails ends the chain with its exit code).",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(func=run)
    what = p.add_subparsers(dest="report_command", metavar="WHAT", required=True)
    for name, func, hlp in (("tables", cmd_tables, "tables as .tex, .md and .csv"),
                            ("figures", cmd_figures, "figures as .png and .svg")):
        q = what.add_parser(name, help=hlp)
        q.add_argument("--campaign-dir", required=True, help="results/<campaign>")
        q.add_argument("--out", required=True, help="output folder")
        q.add_argument("--judgment-set", help="judgment set to report (default: the primary)")
        q.add_argument("--measure", action="append",
                       help="measure with reliability analyses (repeatable; default: the plan)")
        q.add_argument("--no-reliability", action="store_true",
                       help="scores only: do not read reliability/")
        if name == "figures":
            q.add_argument("--dpi", type=int, default=150, help="PNG resolution (default 150)")
        add_force_option(q)
        q.set_defaults(report_func=func)
    e = what.add_parser("editions", help="overview of several editions (QA4MRE Table 1)")
    e.add_argument("--campaign-dir", action="append", required=True,
                   help="results/<campaign> (repeat, one per edition)")
    e.add_argument("--out", required=True, help="output folder")
    e.add_argument("--judgment-set", help="judgment set (default: each campaign's primary)")
    e.add_argument("--measure", dest="measure_name", default="c_at_1",
                   help="measure to average (default c_at_1)")
    add_force_option(e)
    e.set_defaults(report_func=cmd_editions)
    g = what.add_parser("page", help="the campaign overview page (one self-contained HTML file)")
    g.add_argument("--campaign-dir", required=True, help="results/<campaign>")
    g.add_argument("--out", required=True, help="the HTML file (results/<campaign>/report.html)")
    g.add_argument("--figures", help="figures folder (default: <campaign-dir>/figures)")
    g.add_argument("--judgment-set", help="judgment set to report (default: the primary)")
    g.add_argument("--measure", action="append",
                   help="measure with reliability analyses (repeatable; default: the plan)")
    g.add_argument("--index-href", default="../index.html",
                   help="link back to the index (default ../index.html; '' for none)")
    add_force_option(g)
    g.set_defaults(report_func=cmd_page)
    x = what.add_parser("index", help="the index page over the campaigns of a config")
    x.add_argument("--campaign-dir", action="append", required=True,
                   help="results/<campaign> (repeat, one per campaign)")
    x.add_argument("--out", required=True, help="the HTML file (results/index.html)")
    x.add_argument("--title", default="Evaluation campaigns", help="page title")
    add_force_option(x)
    x.set_defaults(report_func=cmd_index)


if __name__ == "__main__":  # pragma: no cover
    from . import main

    sys.exit(main(["report", *sys.argv[1:]]))
