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

#: Subcommand -> its one-line help.  Only the module of the subcommand being run
#: is imported (``qacamp --version`` imports no polars, numpy or matplotlib).
HELP = {
    "simulate": "write a simulated campaign in the raw formats",
    "ingest": "read a campaign's raw files into canonical Parquet tables",
    "measures": "list the measures (name, family, aggregation, formula, citation)",
    "presets": "list the campaign presets (each campaign's method parameters with the "
               "sentence they follow)",
    "eval": "score runs from raw files (trec_eval style)",
    "score": "score an ingested campaign: ingest/*.parquet + campaign.json -> "
             "scores/*.parquet, runs.csv",
    "reliability": "swap method, fits, stability, bootstrap, Kendall tau",
    "report": "write the overview paper's tables, figures and pages",
    "manifest": "write the provenance manifest of a campaign's results",
    "duckdb": "(re)build <campaign folder>/campaign.duckdb: one SQL view per Parquet table",
    "run": "run the whole workflow on a config in the current folder (as `make run`)",
}
SUBCOMMANDS = tuple(HELP)


def _command(argv: list[str]) -> str | None:
    """The subcommand named on the command line (the first word that is not an option)."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in HELP else None
    return None


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser; with ``argv``, only the named subcommand's module is imported
    and registered (the others get a placeholder with their help line)."""
    parser = argparse.ArgumentParser(
        prog="qacamp",
        description="Re-run a question-answering evaluation campaign: ingest, score, "
        "reliability analyses, paper tables and figures.",
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"qacamp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    wanted = _command(argv) if argv is not None else None
    for name in SUBCOMMANDS:
        if argv is None or name == wanted:
            importlib.import_module(f"{__name__}.{name}").register(sub)
        else:
            sub.add_parser(name, help=HELP[name])
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
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
