"""The project's typed errors.

Every problem with an input is raised as :class:`InputError`, whose message
names the file, the place in it (line number or XML element), what is wrong
and how to fix it.  The command line turns these into one line on stderr and
exit code 2, never a traceback.
"""

from __future__ import annotations

from pathlib import Path


class QacampError(Exception):
    """Base class of every error the project raises on purpose."""


class InputError(QacampError):
    """A raw input file is malformed.

    ``place`` is e.g. ``"line 12"`` or ``"<q q_id='3'> in <reading-test r_id='2'>"``.
    """

    def __init__(self, path: str | Path | None, place: str | None, problem: str, fix: str):
        self.path = str(path) if path is not None else "<input>"
        self.place = place
        self.problem = problem
        self.fix = fix
        shown = printable(self.path)
        where = shown if not place else f"{shown}: {place}"
        super().__init__(f"{where}: {problem}. Fix: {fix}")


def printable(text: str) -> str:
    """``text`` with control characters written as escapes (``\\t``, ``\\n``,
    ``\\x1b``), so a path holding a line break still gives a one-line error."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


class ConfigError(QacampError):
    """The configuration is invalid; ``key`` is the dotted path of the offending key."""

    def __init__(self, key: str, problem: str, fix: str = ""):
        self.key = key
        self.problem = problem
        self.fix = fix
        msg = f"config key '{key}': {problem}"
        if fix:
            msg += f". Fix: {fix}"
        super().__init__(msg)


class OutputError(QacampError):
    """A result file cannot be written (full disk, no permission, read-only
    file system); ``path`` is the file being written."""

    def __init__(self, path: str | Path, problem: str, fix: str):
        self.path = str(path)
        self.problem = problem
        self.fix = fix
        super().__init__(f"{self.path}: cannot write: {problem}. Fix: {fix}")


class BusyError(OutputError):
    """Another process is writing the same output; the command line exits with
    75 (EX_TEMPFAIL: try again once it has finished)."""

    exit_code = 75


class UsageError(QacampError):
    """A command-line or API argument is invalid."""
