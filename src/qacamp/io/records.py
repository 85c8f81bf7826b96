"""What qacamp wrote: one small record per output file.

A folder that qacamp writes into holds a hidden folder ``.qacamp-output/``
(:data:`MARKER`): its presence marks the folder as qacamp's (an empty or new
folder gets it when a command claims it), and it holds one JSON record per
file written there, at ``.qacamp-output/<file>.json``::

    {"file": "judgments.parquet", "format": 1, "inputs": {"../../data/j.txt": "<sha256>"},
     "sha256": "<sha256>", "size": 1945, "step": "qacamp ingest", "temporary": false}

``inputs`` maps every file the step read (path relative to the record's folder
when it was given relative, else absolute) to its SHA-256 when it was read, so
a changed input makes the outputs built from it stale (:mod:`.verify`).
``sha256`` and ``size`` are null for a file that is not byte-reproducible by
design (``campaign.duckdb``); ``temporary`` marks a shard that the workflow deletes
once it is merged.  Records hold no time stamp and no absolute path that the
command was not given, so two runs in two folders write the same bytes.

One record per file (not one per folder) because the workflow writes many
files into one folder at the same time (every measure's swap and fit jobs
write into ``reliability/``): each record has exactly one writer and needs no
lock, also on a cluster file system.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError

MARKER = ".qacamp-output"
SUFFIX = ".json"
FORMAT = 1
CHUNK = 1 << 20


@dataclass(frozen=True)
class Record:
    """The record of one output file (see the module docstring)."""

    file: str
    step: str
    sha256: str | None
    size: int | None
    inputs: dict[str, str | None] = field(default_factory=dict)
    temporary: bool = False

    def dumps(self) -> str:
        doc = {"format": FORMAT, "file": self.file, "step": self.step, "sha256": self.sha256,
               "size": self.size, "inputs": dict(sorted(self.inputs.items())),
               "temporary": self.temporary}
        return json.dumps(doc, indent=1, sort_keys=True) + "\n"


def sha256_bytes(data) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | Path) -> str:
    """SHA-256 of a file, read in one streaming pass."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(CHUNK):
            h.update(block)
    return h.hexdigest()


def remove_stale_temps(path: str | Path, suffix: str = ".tmp") -> None:
    """Delete temporary files that an earlier, killed writer of ``path`` left
    beside it (``.<name>.<8 random chars><suffix>``, as qacamp's writers name
    them, and a database's ``.wal`` beside one).  A SIGKILL skips the cleanup
    of the writers; without this sweep such files would stay in the results
    folder for good.  Only the writer of ``path`` itself calls this (Snakemake
    runs one job per output)."""
    path = Path(path)
    stale = re.compile(rf"^\.{re.escape(path.name)}\.[a-z0-9_]{{8}}{re.escape(suffix)}(\.wal)?$")
    with contextlib.suppress(FileNotFoundError):
        for entry in os.scandir(path.parent):
            if stale.match(entry.name) and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)


#: How qacamp's writers name a temporary file: ``.<name>.<8 chars><suffix>``.
TEMP_NAME = re.compile(r"^\..+\.[a-z0-9_]{8}\.(tmp|parquet|csv|png|svg|duckdb|json)(\.wal)?$")


def is_temp_name(name: str) -> bool:
    """Whether ``name`` is one of qacamp's temporary files (left by a killed writer)."""
    return TEMP_NAME.match(name) is not None


def record_path(root: str | Path, target: str | Path) -> Path:
    """Where the record of ``target`` (a file under the folder ``root``) lives."""
    rel = Path(os.path.relpath(target, root)).as_posix()
    return Path(root) / MARKER / f"{rel}{SUFFIX}"


def is_marked(folder: str | Path) -> bool:
    """Whether ``folder`` is one qacamp writes into (holds ``.qacamp-output/``)."""
    return os.path.isdir(Path(folder) / MARKER) and not os.path.islink(Path(folder) / MARKER)


def load(path: str | Path, target: str | Path | None = None) -> Record:
    """The record at ``path``; a damaged one is an InputError naming it."""
    try:
        doc = json.loads(Path(path).read_bytes())
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ValueError("not a qacamp output record")
        inputs = doc.get("inputs") or {}
        if not isinstance(inputs, dict):
            raise ValueError("'inputs' is not an object")
        return Record(file=str(doc["file"]), step=str(doc["step"]), sha256=doc.get("sha256"),
                      size=None if doc["size"] is None else int(doc["size"]),
                      inputs={str(k): v for k, v in inputs.items()},
                      temporary=bool(doc.get("temporary", False)))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        what = f"the record of {target}" if target is not None else "a qacamp output record"
        raise InputError(path, None, f"{what} is damaged ({exc})",
                         "rerun the command that wrote the file to rebuild it and its record"
                         ) from None


def record_of(target: str | Path) -> tuple[Path, Record] | None:
    """``(folder, record)`` of a file from the record folder beside it, None if
    qacamp keeps no record of it there."""
    target = Path(target)
    rp = record_path(target.parent, target)
    if not rp.is_file():
        return None
    return target.parent, load(rp, target)


def iter_records(folder: str | Path):
    """``(target, record path)`` of every record in ``folder``'s record folder
    (nested ones for files in subfolders), sorted."""
    base = Path(folder) / MARKER
    if not base.is_dir():
        return
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(SUFFIX) and not name.startswith("."):
                rp = Path(dirpath) / name
                rel = rp.relative_to(base).as_posix()[: -len(SUFFIX)]
                yield Path(folder) / rel, rp


def input_key(path: str | Path, root: str | Path) -> str:
    """How a record names an input: relative to the record's folder when the
    command was given a relative path, else the absolute path."""
    text = os.fspath(path)
    if os.path.isabs(text):
        return os.path.normpath(text)
    return Path(os.path.relpath(os.path.abspath(text), os.path.abspath(root))).as_posix()


def input_path(key: str, root: str | Path) -> Path:
    """The file an input key of a record in ``root`` names."""
    return Path(key) if os.path.isabs(key) else Path(os.path.normpath(Path(root) / key))


__all__ = ["MARKER", "Record", "sha256_bytes", "sha256_file", "record_path", "is_marked",
           "load", "record_of", "iter_records", "input_key", "input_path"]
