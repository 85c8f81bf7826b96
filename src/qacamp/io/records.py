"""What qacamp owns (a file whose bytes equal its record in the folder's
``.qacamp-output/``), symbolic links, the writers' temporary folders and the
locks of outputs (docs/architecture.md, "Files: qacamp.io")."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import socket
import stat
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import BusyError, InputError, OutputError

MARKER = ".qacamp-output"
SUFFIX = ".json"
FORMAT = 1
TMP = ".tmp"  # in a marker: the writers' temporary folders
LOCK = ".lock"  # in a marker: <file>.lock, the lock of a file output
NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
#: The largest record read back.  A record names each input of the step that
#: wrote its file, about 150 bytes each (1.5 MB for an ingest of 10,000 run
#: files), so this allows over 400,000 inputs.
MAX_RECORD_BYTES = 64 * 1024**2


@dataclass(frozen=True)
class Record:
    """The record of one output file."""

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


def sha256_file(path: str | Path) -> str:
    """SHA-256 of a file (an input: links followed)."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def digest(path: str | Path) -> tuple[str, int] | None:
    """(SHA-256, size) of the regular file ``path`` (never through a link), else None."""
    try:
        fd = os.open(path, os.O_RDONLY | NOFOLLOW)
    except OSError:
        return None
    with open(fd, "rb") as fh:
        st = os.fstat(fd)
        try:
            return (hashlib.file_digest(fh, "sha256").hexdigest(), st.st_size) \
                if stat.S_ISREG(st.st_mode) else None
        except OSError:
            return None


def file_mode() -> int:
    """``0666 & ~umask`` (read where Linux shows it: setting it is not thread-safe)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            mask = next(int(ln.split()[1], 8) for ln in fh if ln.startswith("Umask:"))
    except (OSError, StopIteration, ValueError):
        mask = os.umask(0o022)
        os.umask(mask)
    return 0o666 & ~mask


def kind_of(mode: int) -> str | None:
    """What a path that is neither a regular file nor a folder is."""
    for test, name in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return None


def lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise OutputError(path, exc.strerror or str(exc), "give a path qacamp can write to"
                          ) from None


def note(line: str) -> None:
    """One line on stderr about a file qacamp replaced or left alone."""
    print(f"qacamp: {line}", file=sys.stderr)


def output_error(path: str | Path, exc: OSError) -> OutputError:
    """The project's error for an operating-system failure while writing ``path``."""
    return OutputError(path, exc.strerror or str(exc) or type(exc).__name__,
                       "free disk space or fix the folder's permissions, then rerun (nothing "
                       "partial was kept)")


def is_marked(folder: str | Path) -> bool:
    """Whether ``folder`` holds qacamp's marker (a real folder, not a link)."""
    try:
        return stat.S_ISDIR(os.lstat(Path(folder) / MARKER).st_mode)
    except OSError:
        return False


def record_path(root: str | Path, target: str | Path) -> Path:
    """Where the record of ``target`` (a file under the folder ``root``) lives."""
    return Path(root) / MARKER / f"{Path(os.path.relpath(target, root)).as_posix()}{SUFFIX}"


def load(path: str | Path, target: str | Path | None = None) -> Record:
    """The record at ``path`` (never through a link); InputError if damaged."""
    try:
        with open(os.open(path, os.O_RDONLY | NOFOLLOW), "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            data = fh.read(min(size, MAX_RECORD_BYTES) + 1)  # (one more: a file that grew)
        if len(data) > MAX_RECORD_BYTES:
            raise ValueError(f"it is larger than {MAX_RECORD_BYTES} bytes, the most a record "
                             "holds")
        doc = json.loads(data)
        if not isinstance(doc, dict) or doc.get("format") != FORMAT \
                or not isinstance(doc.get("inputs") or {}, dict):
            raise ValueError("not a qacamp output record")
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
    """``(folder, record)`` of ``target`` from the nearest marker above it, or None."""
    target = Path(os.path.abspath(target))
    root = next((p for p in target.parents if is_marked(p)), None)
    rp = root and record_path(root, target)
    return (root, load(rp, target)) if rp and os.path.lexists(rp) else None


def status(target: Path, rec: Record | None) -> str:
    """``ok``, ``changed``, ``missing`` or ``unrecorded`` (a record without
    SHA-256 is ``ok`` when a regular file is there)."""
    if not os.path.lexists(target):
        return "missing"
    if rec is None:
        return "unrecorded"
    if rec.sha256 is None:
        return "ok" if os.path.isfile(target) and not os.path.islink(target) else "changed"
    return "ok" if digest(target) == (rec.sha256, rec.size) else "changed"


def remove_owned(target: Path, root: Path, rec: Record) -> bool:
    """Delete ``target`` and its record if its bytes equal the record, else return False."""
    if rec.sha256 is None or link_on_way(root, target) or status(target, rec) != "ok":
        return False
    for p in (target, record_path(root, target)):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(p)
    return True


def iter_records(folder: str | Path):
    """``(target, record path)`` of every record in ``folder``'s marker, sorted."""
    base = Path(folder) / MARKER
    if not is_marked(folder):
        return
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if not (dirpath == str(base) and d == TMP))
        for name in sorted(n for n in filenames if n.endswith(SUFFIX) and n[0] != "."):
            rp = Path(dirpath) / name
            yield Path(folder) / rp.relative_to(base).as_posix()[: -len(SUFFIX)], rp


def input_key(path: str | Path, root: str | Path) -> str:
    """An input as a record names it: relative to ``root`` if given relative."""
    if os.path.isabs(path):
        return os.path.normpath(path)
    return Path(os.path.relpath(os.path.abspath(path), os.path.abspath(root))).as_posix()


def input_path(key: str, root: str | Path) -> Path:
    """The file an input key of a record in ``root`` names."""
    return Path(key) if os.path.isabs(key) else Path(os.path.normpath(Path(root) / key))


def link_on_way(root: Path, target: Path) -> Path | None:
    """The first symbolic link below ``root`` on the way down to ``target`` (included)."""
    p = Path(root)
    for part in Path(os.path.relpath(target, root)).parts:
        p = p / part
        if os.path.islink(p) or not os.path.lexists(p):
            return p if os.path.islink(p) else None
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


def _gone(name: str) -> bool:
    """Whether the process of the temporary folder ``name`` (host.pid.start.x,
    of this host) has ended."""
    host, pid, started = [*name.rsplit(".", 3), "", "", ""][:3]
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
    """Remove the temporary folders of ended processes and unheld lock files."""
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
                except OSError:
                    os.close(fd)
                    continue
                unlock(fd, Path(entry.path))


def temp_dir(folder: Path) -> Path:
    """A new private temporary folder in ``folder``'s marker (``host.pid.start.random``)."""
    sweep_temps(folder)
    base = Path(folder) / MARKER / TMP
    me = f"{socket.gethostname()}.{os.getpid()}.{_started(os.getpid())}."
    for _ in range(9):  # (another writer may remove the empty folder at any moment)
        with contextlib.suppress(FileExistsError):
            os.mkdir(base)  # (not Path.mkdir(exist_ok=True): it raises if it is gone again)
        with contextlib.suppress(FileNotFoundError):
            return Path(tempfile.mkdtemp(prefix=me, dir=base))
    return Path(tempfile.mkdtemp(prefix=me, dir=base))


# --------------------------------------------------------------------------- locks

def holder(path: Path) -> str:
    """Who holds the flock on ``path`` (from Linux's /proc/locks), for messages."""
    try:
        st = os.lstat(path)
        with open("/proc/locks", encoding="ascii", errors="replace") as fh:
            lines = [ln.split() for ln in fh]
        dev = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
        pid = next(w[4] for w in lines if len(w) > 5 and w[1] == "FLOCK" and w[5] == dev)
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            words = [w for w in fh.read().decode(errors="replace").split("\0") if w]
    except (OSError, StopIteration):
        return "another process"
    if len(words) > 1 and os.path.basename(words[0]).startswith("python"):
        words = words[1:]  # the script, not the interpreter
    cmd = " ".join([os.path.basename(words[0]), *words[1:]]) if words else ""
    return f"pid {pid}" + (f": {cmd[:100]}" if cmd else "")


def lock(path: Path, shown: str | None = None, lockfile: Path | None = None
         ) -> tuple[int, Path | None]:
    """An exclusive flock on the folder ``path`` or on ``lockfile`` (a file
    output's); :class:`BusyError` naming the holder when another has it."""
    for _ in range(20):
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | NOFOLLOW) if lockfile is None \
            else os.open(lockfile, os.O_RDWR | os.O_CREAT | NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise BusyError(shown or path, "another qacamp run is writing it "
                            f"({holder(lockfile or path)})", "wait until it has finished, then "
                            "run the same command again") from None
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
    if lockfile is not None and os.fstat(fd).st_ino == _ino(lockfile):
        with contextlib.suppress(OSError):
            os.unlink(lockfile)
    os.close(fd)
