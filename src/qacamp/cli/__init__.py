"""The ``qacamp`` command line.

Each subcommand lives in its own module of this package and exposes
``register(subparsers)``, which adds its parser and sets ``func`` to the
function that runs it (taking the parsed namespace, returning an exit code).
Errors the project raises on purpose (:class:`qacamp.errors.QacampError`)
become one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from ..errors import QacampError

SUBCOMMANDS = ("simulate", "ingest", "measures", "eval", "score", "reliability", "report",
               "manifest", "duckdb")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="qacamp",
        description="Re-run a question-answering evaluation campaign: ingest, score, "
        "reliability analyses, paper tables and figures.",
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"qacamp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in SUBCOMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except QacampError as exc:
        print(f"qacamp {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `qacamp eval ... | head`
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
