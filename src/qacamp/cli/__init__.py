"""The ``qacamp`` command line.

Each subcommand lives in its own module of this package and exposes
``register(subparsers)``, which adds its parser and sets ``func`` to the
function that runs it (taking the parsed namespace, returning an exit code).
Errors the project raises on purpose (:class:`qacamp.errors.QacampError`)
become one line on stderr and exit code 2 (75 when another process is
writing the same output: :class:`qacamp.errors.BusyError`), never a traceback.  When stderr
cannot take that line (the workflow sends it to a log file on a full disk),
it goes to the file descriptor named by ``QACAMP_ERROR_FD`` (the workflow's
own stderr) instead.

A subcommand that writes files claims its outputs with
:func:`qacamp.io.writing` and offers :func:`add_force_option`.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys

from ..errors import QacampError, UsageError

#: Subcommand -> its one-line help.  Only the module of the subcommand being run
#: is imported (``qacamp --version`` imports no polars, numpy or matplotlib).
HELP = {
    "simulate": "write a simulated campaign in the raw formats",
    "ingest": "read a campaign's raw files into canonical Parquet tables",
    "measures": "list the measures (name, family, aggregation, formula, citation)",
    "presets": "list the campaign presets (each campaign's method parameters with the "
               "sentence they follow)",
    "schema": "list the workflow config's keys (key, type, default, description)",
    "eval": "score runs from raw files (trec_eval style)",
    "score": "score an ingested campaign: ingest/*.parquet + campaign.json -> "
             "scores/*.parquet, runs.csv",
    "reliability": "swap method, fits, stability, bootstrap, Kendall tau",
    "report": "write the overview paper's tables, figures and pages",
    "manifest": "write the provenance manifest of a campaign's results",
    "duckdb": "(re)build <campaign folder>/campaign.duckdb: one SQL view per Parquet table",
    "verify": "check a results folder against qacamp's records: changed, missing, "
              "unrecorded and stale files",
    "run": "run the whole workflow on a config in the current folder (as `make run`)",
}
SUBCOMMANDS = tuple(HELP)


_RST_LITERAL = re.compile(r"``([^`]*)``")
_RST_ROLE = re.compile(r":(?:mod|func|class|meth|attr|data|exc):`~?([^`]*)`")


def plain(text: str) -> str:
    """Help text as a terminal shows it: the docstrings' reStructuredText
    literals (````qacamp ingest````) and roles (``:mod:`qacamp.runner```) as
    their plain words."""
    return _RST_ROLE.sub(r"\1", _RST_LITERAL.sub(r"\1", text))


class Parser(argparse.ArgumentParser):
    """argparse's parser whose help and usage are :func:`plain` text; every
    subcommand's parser is one too (``add_subparsers`` makes its parsers of
    the parent's class)."""

    def format_help(self) -> str:
        return plain(super().format_help())

    def format_usage(self) -> str:
        return plain(super().format_usage())


def _command(argv: list[str]) -> str | None:
    """The subcommand named on the command line (the first word that is not an option)."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in HELP else None
    return None


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser; with ``argv``, only the named subcommand's module is imported
    and registered (the others get a placeholder with their help line)."""
    parser = Parser(
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


def add_force_option(p: argparse.ArgumentParser) -> None:
    """``--force``: let the command write into a folder that holds files qacamp
    did not write, or replace such a file (see :func:`qacamp.io.writing`)."""
    p.add_argument("--force", action="store_true",
                   help="write into an output folder that holds files qacamp did not write (they "
                   "are left alone), or replace an output file qacamp did not write")


def add_threads_option(p: argparse.ArgumentParser, what: str) -> None:
    """``--threads N``: the threads of :func:`qacamp.ordered.in_order` for
    ``what`` (default: the cores this process may use, at most 4); checked by
    :func:`threads_of`."""
    p.add_argument("--threads", type=int, default=None, metavar="N",
                   help=f"threads {what} (default: the cores this process may use, at "
                   "most 4; the workflow gives the cores of the step)")


def threads_of(args) -> int:
    """The ``--threads`` of ``args`` (an integer in [1, :data:`qacamp.ordered.MAX_THREADS`],
    else a usage error naming the option), or :func:`qacamp.ordered.workers`."""
    from ..bounds import check_option
    from ..ordered import MAX_THREADS, workers

    if args.threads is None:
        return workers()
    check_option("--threads", args.threads, lo=1, hi=MAX_THREADS, integer=True)
    return args.threads


def add_markdown_option(p: argparse.ArgumentParser, what: str, made: str) -> None:
    """``--markdown [PATH]``: the listing as Markdown, on stdout or written to PATH."""
    p.add_argument("--markdown", nargs="?", const="-", default=None, metavar="PATH",
                   help=f"{what}: on stdout, or written to PATH ({made})")


def put_markdown(text: str, where: str) -> None:
    """``text`` on stdout (``where`` is ``-``), else written to the file ``where``."""
    if where == "-":
        sys.stdout.write(text)
    else:
        from ..io import write_text

        write_text(text, where)


#: errors of a stream on a full or failing disk (a log file the workflow gave it)
_DISK_ERRNOS = (28, 122, 27, 5)  # ENOSPC, EDQUOT, EFBIG, EIO


class _LogStream:
    """A stream (stderr, stdout) whose writes never raise for a full disk: the
    command's work goes on, and :func:`report_error` knows the line was lost."""

    def __init__(self, inner, flush_each: bool):
        self.inner = inner
        self.flush_each = flush_each
        self.lost = False

    def write(self, text: str) -> int:
        try:
            n = self.inner.write(text)
            if self.flush_each:
                self.inner.flush()
            return n
        except OSError as exc:
            if exc.errno not in _DISK_ERRNOS:
                raise
            self.lost = True
            return len(text)

    def flush(self) -> None:
        try:
            self.inner.flush()
        except OSError as exc:
            if exc.errno not in _DISK_ERRNOS:
                raise
            self.lost = True

    def __getattr__(self, name):
        return getattr(self.inner, name)


def report_error(line: str) -> None:
    """Print ``line`` on stderr; if it was lost there (a log file on a full
    disk), also on the descriptor ``QACAMP_ERROR_FD`` names (the workflow's
    own stderr)."""
    import os

    print(line, file=sys.stderr, flush=True)
    if not getattr(sys.stderr, "lost", False):
        return
    fd = os.environ.get("QACAMP_ERROR_FD", "")
    if fd.isdigit():
        try:
            os.write(int(fd), (line + "\n").encode("utf-8", "replace"))
        except OSError:
            pass


#: ``qacamp reliability A ... --then B ...``: the word that ends one analysis's
#: (or report step's) command line and starts the next, run in the same
#: process (an option value of its own word cannot start with ``--``, so the
#: word is never a value)
THEN = "--then"
#: the commands whose runs may be chained with :data:`THEN`
CHAINED = ("reliability", "report")


def commands(argv: list[str]) -> list[list[str]]:
    """``argv`` split at every :data:`THEN` word: the first part as given, each
    later part as the same command's arguments (``qacamp reliability swap ...
    --then merge ...`` -> ``[reliability swap ...], [reliability merge ...]``).
    A chain of any other command is a usage error."""
    if THEN not in argv:
        return [argv]
    command = _command(argv)
    if command not in CHAINED:
        chainable = " or ".join(f"`qacamp {c}`" for c in CHAINED)
        raise UsageError(f"{THEN} chains runs of {chainable} only; "
                         f"run `qacamp {command or 'COMMAND'}` once per command line")
    parts, part = [], []
    for word in argv:
        if word == THEN:
            parts.append(part)
            part = [command]
        else:
            part.append(word)
    return [*parts, part]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        chain = commands(argv)
    except UsageError as exc:
        report_error(f"qacamp: error: {exc}")
        return 2
    parser = build_parser(argv)
    # every part is checked before the first runs: a mistyped option in the
    # last part writes nothing
    runs = [parser.parse_args(part) for part in chain]
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _LogStream(sys.stdout, False), _LogStream(sys.stderr, True)
    try:
        for args in runs:
            code = _run(args)
            if code:
                return code
        return 0
    finally:
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            pass
        sys.stdout, sys.stderr = streams


def _run(args) -> int:
    """One parsed command: its exit code, a project error as one line."""
    try:
        return int(args.func(args) or 0)
    except QacampError as exc:
        report_error(f"qacamp {args.command}: error: {exc}")
        return getattr(exc, "exit_code", 2)
    except BrokenPipeError:  # e.g. `qacamp eval ... | head`
        return 0
    except KeyboardInterrupt:  # Ctrl-C: one line, what it was writing taken back
        report_error(f"qacamp {args.command}: interrupted")
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
