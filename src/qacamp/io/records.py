"""What qacamp owns: one record per file it wrote, and the one rule built on them.

A folder qacamp writes into holds ``.qacamp-output/`` (:data:`MARKER`), with
one JSON record per file written there (``.qacamp-output/<file>.json``)::

    {"file": "judgments.parquet", "format": 1, "inputs": {"../../data/j.txt": "<sha256>"},
     "sha256": "<sha256>", "size": 1945, "step": "qacamp ingest", "temporary": false}

``inputs``: the SHA-256 of every file the step read (keyed relative to the
record's folder when given relative); ``sha256``/``size`` are null for
``campaign.duckdb`` (not byte-reproducible, checked by its views instead);
``temporary`` marks a shard the workflow deletes once merged.  One record per
file, so jobs writing into one folder at once need no shared lock.

The rule (:func:`status`, :func:`remove_owned`): a file is qacamp's when its
bytes equal its record, in a folder holding the marker; nothing else is ever
deleted, and nothing is read or written through a symbolic link
(:func:`link_on_way`).  Temporary files live in a folder per process inside
the marker (:func:`temp_dir`), removed by the next writer once that process
is gone.  :func:`lock` is one writer per output path (exit code 75 for the
second, naming the first).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import socket
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import BusyError, InputError, OutputError

MARKER = ".qacamp-output"
SUFFIX = ".json"
FORMAT = 1
TMP = ".tmp"  # in a marker: one folder of temporary files per writing process
LOCK = ".lock"
NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


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
    """SHA-256 of a file (an input: links followed)."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def digest(path: str | Path) -> tuple[str, int] | None:
    """(SHA-256, size) of the regular file at ``path``, never through a link;
    None when it is missing, a link, not a regular file or unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY | NOFOLLOW)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        with open(fd, "rb", closefd=False) as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest(), st.st_size
    except OSError:
        return None
    finally:
        os.close(fd)


def is_marked(folder: str | Path) -> bool:
    """Whether ``folder`` holds qacamp's marker (a real folder, not a link)."""
    try:
        return stat.S_ISDIR(os.lstat(Path(folder) / MARKER).st_mode)
    except OSError:
        return False


def record_path(root: str | Path, target: str | Path) -> Path:
    """Where the record of ``target`` (a file under the folder ``root``) lives."""
    rel = Path(os.path.relpath(target, root)).as_posix()
    return Path(root) / MARKER / f"{rel}{SUFFIX}"


def load(path: str | Path, target: str | Path | None = None) -> Record:
    """The record at ``path`` (never through a link); a damaged one is an
    InputError naming it."""
    try:
        fd = os.open(path, os.O_RDONLY | NOFOLLOW)
        with open(fd, "rb") as fh:
            doc = json.loads(fh.read(1 << 20))
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ValueError("not a qacamp output record")
        if not isinstance(doc.get("inputs") or {}, dict):
            raise ValueError("'inputs' is not an object")
        return Record(file=str(doc["file"]), step=str(doc["step"]), sha256=doc.get("sha256"),
                      size=None if doc["size"] is None else int(doc["size"]),
                      inputs={str(k): v for k, v in (doc.get("inputs") or {}).items()},
                      temporary=bool(doc.get("temporary", False)))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        what = f"the record of {target}" if target is not None else "a qacamp output record"
        raise InputError(path, None, f"{what} is damaged ({exc})",
                         "rerun the command that wrote the file to rebuild it and its record"
                         ) from None


def record_of(target: str | Path) -> tuple[Path, Record] | None:
    """``(folder, record)`` of ``target`` from the nearest folder above it that
    holds a marker; None if that marker holds no record of it (or none is found)."""
    target = Path(os.path.abspath(target))
    for root in target.parents:
        if is_marked(root):
            rp = record_path(root, target)
            return (root, load(rp, target)) if os.path.lexists(rp) else None
    return None


def status(target: Path, rec: Record | None) -> str:
    """``ok`` (bytes equal the record; a record without SHA-256: present),
    ``changed``, ``missing`` or ``unrecorded`` (no record)."""
    if not os.path.lexists(target):
        return "missing"
    if rec is None:
        return "unrecorded"
    if rec.sha256 is None:
        return "ok" if os.path.isfile(target) and not os.path.islink(target) else "changed"
    return "ok" if digest(target) == (rec.sha256, rec.size) else "changed"


def remove_owned(target: Path, root: Path, rec: Record) -> bool:
    """Delete ``target`` and its record if its bytes equal the record (the one
    rule for every removal); False, nothing touched, otherwise."""
    if rec.sha256 is None or link_on_way(root, target) is not None \
            or status(target, rec) != "ok":
        return False
    with contextlib.suppress(FileNotFoundError):
        os.unlink(target)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(record_path(root, target))
    return True


def iter_records(folder: str | Path):
    """``(target, record path)`` of every record in ``folder``'s marker (nested
    ones for files in subfolders), sorted; temporary folders skipped."""
    base = Path(folder) / MARKER
    if not is_marked(folder):
        return
    for dirpath, dirnames, filenames in os.walk(base):
        if dirpath == str(base) and TMP in dirnames:
            dirnames.remove(TMP)
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(SUFFIX) and not name.startswith("."):
                rp = Path(dirpath) / name
                yield Path(folder) / rp.relative_to(base).as_posix()[: -len(SUFFIX)], rp


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


# --------------------------------------------------------------------------- links

def link_on_way(root: Path, target: Path) -> Path | None:
    """The first symbolic link on the way from ``root`` (not included) down to
    ``target`` (included), None if there is none."""
    p = Path(root)
    for part in Path(os.path.relpath(target, root)).parts:
        p = p / part
        if os.path.islink(p):
            return p
        if not os.path.lexists(p):
            return None
    return None


def link_error(link: Path, shown: str | None = None) -> OutputError:
    return OutputError(shown or link, f"it is a symbolic link (to {os.readlink(link)}), and "
                       "qacamp never writes or deletes through one",
                       "replace the link by the folder or file itself, or give another path")


# --------------------------------------------------------------------------- temporaries

def _started(pid: int) -> str:
    """When process ``pid`` started (clock ticks since boot; '' where unknown)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        return ""


def _me() -> str:
    return f"{socket.gethostname()}.{os.getpid()}.{_started(os.getpid())}"


def _gone(name: str) -> bool:
    """Whether the process a temporary folder ``name`` belongs to has ended
    (only this host's processes are judged)."""
    host, pid, started = ([*name.rsplit(".", 3), "", "", ""])[:3]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        pass
    return bool(started) and _started(int(pid)) not in ("", started)


def sweep_temps(folder: Path) -> None:
    """Remove from ``folder``'s marker the temporary folders of ended
    processes and the lock files nobody holds."""
    marker = Path(folder) / MARKER
    with contextlib.suppress(OSError):
        for entry in list(os.scandir(marker / TMP)):
            if entry.is_dir(follow_symlinks=False) and _gone(entry.name):
                shutil.rmtree(entry.path, ignore_errors=True)
        os.rmdir(marker / TMP)
    with contextlib.suppress(OSError):
        for entry in list(os.scandir(marker)):
            if entry.name.endswith(LOCK) and entry.is_file(follow_symlinks=False):
                fd = os.open(entry.path, os.O_RDONLY | NOFOLLOW)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    unlock(fd, Path(entry.path))
                except OSError:
                    os.close(fd)


def temp_dir(folder: Path) -> Path:
    """A new private temporary folder in ``folder``'s marker, named by this
    process (those of ended processes are removed first)."""
    sweep_temps(folder)
    base = Path(folder) / MARKER / TMP
    for _ in range(9):  # (another writer may remove the empty folder in between)
        base.mkdir(exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            return Path(tempfile.mkdtemp(prefix=f"{_me()}.", dir=base))
    return Path(tempfile.mkdtemp(prefix=f"{_me()}.", dir=base))


# --------------------------------------------------------------------------- locks

def holder(path: Path) -> str:
    """Who holds the flock on ``path`` (Linux's /proc/locks), for messages."""
    try:
        st = os.lstat(path)
        with open("/proc/locks", encoding="ascii", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return "another process"
    dev = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    for line in lines:
        parts = line.split()
        if len(parts) > 5 and parts[1] == "FLOCK" and parts[5] == dev and parts[4].isdigit():
            try:
                with open(f"/proc/{parts[4]}/cmdline", "rb") as fh:
                    words = fh.read().decode(errors="replace").split("\0")
            except OSError:
                words = []
            words = [w for w in words if w]
            if len(words) > 1 and os.path.basename(words[0]).startswith("python"):
                words = words[1:]  # the script, not the interpreter
            words = [os.path.basename(words[0])] + words[1:] if words else []
            cmd = " ".join(w for w in words if w)
            return f"pid {parts[4]}" + (f": {cmd[:100]}" if cmd else "")
    return "another process"


def lock(path: Path, shown: str | None = None, lockfile: Path | None = None) -> tuple[int, Path | None]:
    """An exclusive flock on the folder ``path`` itself, or on ``lockfile``
    (for a file output: created, removed again by :func:`unlock`); a
    :class:`BusyError` naming the holder if another process has it."""
    for _ in range(20):
        target = path if lockfile is None else lockfile
        if lockfile is None:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | NOFOLLOW)
        else:
            fd = os.open(lockfile, os.O_RDWR | os.O_CREAT | NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise BusyError(shown or path, f"another qacamp run is writing it "
                            f"({holder(target)})", "wait until it has finished, then run the "
                            "same command again") from None
        except OSError:  # a file system without flock: nothing to lock
            return fd, lockfile
        if lockfile is None or os.fstat(fd).st_ino == _ino(lockfile):
            return fd, lockfile
        os.close(fd)  # removed by its last holder meanwhile: lock the new one
    raise BusyError(shown or path, "its lock keeps changing", "run the command again")


def _ino(path: Path) -> int | None:
    try:
        return os.lstat(path).st_ino
    except OSError:
        return None


def unlock(fd: int, lockfile: Path | None) -> None:
    if lockfile is not None:
        with contextlib.suppress(OSError):
            if os.fstat(fd).st_ino == _ino(lockfile):
                os.unlink(lockfile)
    os.close(fd)


__all__ = ["MARKER", "Record", "sha256_bytes", "sha256_file", "digest", "record_path",
           "is_marked", "load", "record_of", "status", "remove_owned", "iter_records",
           "input_key", "input_path", "link_on_way", "link_error", "temp_dir", "sweep_temps",
           "BusyError", "lock", "unlock"]
