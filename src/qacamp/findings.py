"""What a person reads about the files of a results folder that changed, are
missing or are stale (:func:`qacamp.io.verify_tree`): the causes first, then
what they make stale, grouped per folder, so one edited judgment file is one
cause with the files built from it under it, not one line per file.

- :func:`verify_lines` (``qacamp verify``): every changed, missing or
  unrecorded file and every changed input as a cause line, each followed by the files it
  makes stale (directly or through other stale files), one indented line per
  folder;
- :func:`preparation_lines` (the workflow's start,
  :func:`qacamp.io.prepare_outdir`'s lines): the changed files one line
  each, the stale ones once per campaign folder and cause.

Pure text: the findings' paths and details in, lines out.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

#: the details of :mod:`qacamp.io.verify`'s stale findings, and the input each names
_DIRECT = (re.compile(r"^its input (?P<input>.+) changed since `(?P<step>[^`]+)` read it$"),
           re.compile(r"^(?P<input>.+) was rebuilt after `(?P<step>[^`]+)` read it$"))
_UPSTREAM = re.compile(r"^built from (?P<input>.+), which is (?P<state>stale|changed|missing)$")
#: a line of prepare_outdir: ``PATH is stale (DETAIL): WHAT HAPPENS``
_PREPARED = re.compile(r"^(?P<path>.+?) is stale \((?P<detail>.+)\): (?P<will>[^():]+)$")


def _direct(detail: str) -> tuple[str, str, str] | None:
    """(how, input, step) of a stale finding whose own input differs: ``changed``
    or ``rebuilt``; None for any other detail."""
    for how, pattern in zip(("changed", "rebuilt"), _DIRECT, strict=True):
        m = pattern.match(detail)
        if m:
            return how, m["input"], m["step"]
    return None


def _cause_of_direct(detail: str) -> str | None:
    found = _direct(detail)
    if found is None:
        return None
    how, inp, step = found
    return f"{how} input: {inp} ({how} {'since' if how == 'changed' else 'after'} `{step}` " \
           "read it)"


def grouped(paths: Iterable[Path | str], root: Path | str | None = None) -> list[str]:
    """``folder: a, b, c (3 files)`` per folder, folders and names sorted."""
    by: dict[str, list[str]] = {}
    for p in paths:
        p = Path(p)
        by.setdefault(p.parent.as_posix(), []).append(p.name)
    out = []
    for folder, names in sorted(by.items()):
        names = sorted(names)
        count = f" ({len(names)} files)" if len(names) > 1 else ""
        out.append(f"{folder}: {', '.join(names)}{count}")
    return out


def verify_lines(findings: Sequence) -> list[str]:
    """``qacamp verify``'s lines: each cause (a changed or missing file, a
    changed or rebuilt input, a stale manifest), then, indented, the files it
    makes stale, grouped per folder; causes in path order."""
    by_path = {Path(f.path): f for f in findings}
    roots: dict[Path, str] = {}

    def root(f, seen: frozenset) -> str:
        """The cause line of a finding: itself when changed or missing, the
        input its stale chain starts from otherwise."""
        path = Path(f.path)
        if path in roots:
            return roots[path]
        if f.kind != "stale":  # changed, missing, unrecorded: a cause of its own
            cause = f"{f.kind}: {f.path} ({f.detail})"
        else:
            cause = _cause_of_direct(f.detail)
            up = _UPSTREAM.match(f.detail)
            if cause is None and up is not None:
                src = by_path.get(Path(up["input"]))
                cause = (root(src, seen | {path}) if src is not None and path not in seen
                         else f"{up['state']}: {up['input']}")
            if cause is None:
                cause = f"stale: {f.path} ({f.detail})"
        roots[path] = cause
        return cause

    causes: dict[str, list[Path]] = {}
    for f in sorted(findings, key=lambda f: str(f.path)):
        cause = root(f, frozenset())
        bucket = causes.setdefault(cause, [])
        if f.kind == "stale" and cause != f"stale: {f.path} ({f.detail})":
            bucket.append(Path(f.path))
    order = sorted(causes, key=lambda c: (not c.startswith(("changed input", "rebuilt input")),
                                          c))
    out = []
    for cause in order:
        out.append(cause)
        stale = causes[cause]
        if stale:
            out += [f"  stale: {line}" for line in grouped(stale)]
    return out


def preparation_lines(lines: Sequence[str], outdir: str | Path) -> list[str]:
    """prepare_outdir's lines said once per campaign folder and cause: the
    stale files of one folder that one changed input makes stale are one line
    naming the cause and how many files it rebuilds, per subfolder; every
    other line as it is."""
    out: list[str] = []
    groups: dict[tuple, list[Path]] = {}
    top = Path(outdir)
    for line in lines:
        m = _PREPARED.match(line)
        found = _direct(m["detail"]) if m else None
        if m is None or found is None:
            out.append(line)
            continue
        path = Path(m["path"])
        rel = Path(os.path.relpath(path, top))
        folder = top / rel.parts[0] if len(rel.parts) > 1 else top
        groups.setdefault((folder.as_posix(), found, m["will"]), []).append(path)
    for (folder, (how, inp, step), will), paths in groups.items():
        parts: dict[str, int] = {}
        for p in paths:
            rel = Path(os.path.relpath(p, folder))
            key = f"{rel.parent.as_posix()}/" if len(rel.parts) > 1 else rel.name
            parts[key] = parts.get(key, 0) + 1
        what = ", ".join(f"{n} files of {k}" if n > 1 else f"{k}" for k, n in
                         sorted(parts.items()))
        when = "changed since" if how == "changed" else "was rebuilt after"
        out.append(f"{folder}: {inp} {when} `{step}` read it: "
                   f"{will.removesuffix(' it').removesuffix(' rebuilds')} rebuilds the "
                   f"{what} built from it and what follows from them")
    return out


__all__ = ["grouped", "preparation_lines", "verify_lines"]
