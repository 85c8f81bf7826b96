"""Claiming output paths: what qacamp writes it owns, and nothing else.

Every command that writes files runs inside one :func:`writing` block::

    with writing("qacamp score", dirs=[args.out], inputs=[args.ingest], force=args.force):
        ...                      # read, compute
        write_parquet(df, Path(args.out) / "runs.parquet")

The block first claims each output path, before anything is computed:

* a path that is an input of the command, a symbolic link, a device, a named
  pipe or a socket is refused, and so is an existing path of the other kind (a
  file where a folder is asked for, a folder where a file is);
* a folder is written into only if it is new, empty, or qacamp's (it holds
  ``.qacamp-output/``, see :mod:`.records`); ``force`` takes over a folder
  that holds other files (they are never touched: qacamp writes only its own
  file names);
* an existing file is replaced only if qacamp's record of it is there (or
  ``force``).

Each refusal is an :class:`~qacamp.errors.OutputError`: one line naming the
path and the fix (exit code 2).  Inside the block, the writers of
:mod:`qacamp.io` (``write_parquet``, ``write_text``, ``write_csv``,
``atomic_path``) stage every file as a temporary file beside its target; the
files the block reads through :func:`qacamp.io.read_parquet` and
:func:`qacamp.io.read_json` are noted as its inputs.  When the block ends
normally, the records are written (SHA-256 of each output and of each input),
then every temporary file is renamed onto its target.  When it ends with an
exception, every temporary file is removed, and so is every folder the block
created, so nothing partial is left.  In a folder the block claimed, files
that the same step wrote before and did not write this time are removed (a
table a report no longer has).

Files get the mode the umask gives (``0666 & ~umask``); temporary files are
private until they are renamed.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import OutputError
from . import records
from .records import MARKER, Record

_ACTIVE: contextvars.ContextVar[Writing | None] = contextvars.ContextVar("qacamp_writing",
                                                                         default=None)

FORCE_FIX = ("--force to let qacamp write its files there (it replaces only files of the names "
             "it writes)")
DISK_FIX = ("give an output folder on a disk qacamp can write to (free space, write "
            "permission, not read-only)")
#: What Snakemake itself leaves in a folder output
SNAKEMAKE_FILES = (".snakemake_timestamp",)


def kind_of(mode: int) -> str | None:
    """What a path that is neither a regular file nor a folder is."""
    for test, name in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return None


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise OutputError(path, exc.strerror or str(exc),
                          "give a path qacamp can write to") from None


def file_mode() -> int:
    """``0666 & ~umask``: the mode a file gets (the umask read without changing
    it where Linux shows it, else set and restored at once)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


@dataclass
class _Staged:
    tmp: Path
    root: Path
    sha256: str | None
    size: int | None


class Writing:
    """One command's outputs (see the module docstring); made by :func:`writing`."""

    def __init__(self, step: str, force: bool, temporary: bool):
        self.step = step
        self.force = force
        self.temporary = temporary
        self.dirs: list[Path] = []
        self.files: list[Path] = []
        self.inputs: dict[Path, str | None] = {}
        self.given: dict[Path, str] = {}
        self.staged: dict[Path, _Staged] = {}
        self.created: list[Path] = []
        self.spelled: dict[Path, str] = {}

    def show(self, path: Path) -> str:
        """``path`` (absolute) as the command's arguments spell it, for messages."""
        for claimed, given in self.spelled.items():
            if path == claimed:
                return given
            if path.is_relative_to(claimed):
                return os.path.join(given, os.path.relpath(path, claimed))
            if claimed.is_relative_to(path):
                up = Path(given)
                for _ in range(len(claimed.parts) - len(path.parts)):
                    up = up.parent
                return str(up)
        return str(path)

    # ------------------------------------------------------------------ claims
    def add_inputs(self, paths: Iterable[str | Path]) -> None:
        """Inputs of the command (files or folders): never an output; files are
        recorded with their SHA-256 when the block ends."""
        for p in paths:
            key = Path(os.path.abspath(p))
            self.inputs.setdefault(key, None)
            self.given.setdefault(key, os.fspath(p))

    def note_read(self, path: str | Path, sha256: str) -> None:
        key = Path(os.path.abspath(path))
        self.inputs[key] = sha256
        self.given.setdefault(key, os.fspath(path))

    def _check_not_input(self, path: Path) -> None:
        for inp in self.inputs:
            if path == inp or (os.path.lexists(path) and os.path.exists(inp) and _same(path, inp)):
                raise OutputError(self.show(path), "it is an input of this command",
                                  "give an output path that is not one of the command's inputs")

    def _mkdirs(self, folder: Path) -> None:
        missing = []
        p = folder
        while not os.path.lexists(p):
            missing.append(p)
            p = p.parent
        for d in reversed(missing):
            try:
                os.mkdir(d)
            except FileExistsError:
                continue
            except OSError as exc:
                raise OutputError(self.show(d), exc.strerror or str(exc),
                                  DISK_FIX) from None
            self.created.append(d)

    def claim_dir(self, path: str | Path) -> Path:
        folder = Path(os.path.abspath(path))
        self.spelled.setdefault(folder, os.fspath(path))
        self._check_not_input(folder)
        st = _lstat(folder)
        if st is None:
            self._mkdirs(folder)
            self._mark(folder)
        elif stat.S_ISLNK(st.st_mode):
            raise OutputError(
                self.show(folder), f"it is a symbolic link (to {os.readlink(folder)})",
                "give the folder itself, not a link to it")
        elif not stat.S_ISDIR(st.st_mode):
            what = kind_of(st.st_mode) or "an existing file"
            raise OutputError(self.show(folder), f"it is {what}, not a folder",
                              "give a new or empty folder (qacamp never replaces a file, "
                              "device or pipe by a folder)")
        elif not records.is_marked(folder):
            try:
                entries = sorted(e for e in os.listdir(folder) if e not in SNAKEMAKE_FILES)
            except OSError as exc:
                raise OutputError(self.show(folder), exc.strerror or str(exc),
                                  "give a folder qacamp can read and write") from None
            if entries and not self.force:
                shown = ", ".join(repr(e) for e in entries[:3]) + (", ..." if entries[3:] else "")
                raise OutputError(
                    self.show(folder), f"the folder holds files qacamp did not write ({shown})",
                    f"give a new or empty folder, or {FORCE_FIX}")
            self._mark(folder)
        self.dirs.append(folder)
        return folder

    def _mark(self, folder: Path) -> None:
        marker = folder / MARKER
        try:
            os.mkdir(marker)
        except FileExistsError:
            return
        except OSError as exc:
            raise OutputError(self.show(folder), exc.strerror or str(exc),
                              DISK_FIX) from None
        self.created.append(marker)

    def claim_file(self, path: str | Path) -> Path:
        target = Path(os.path.abspath(path))
        self.spelled.setdefault(target, os.fspath(path))
        self._check_not_input(target)
        st = _lstat(target)
        if st is None:
            self._mkdirs(target.parent)
        else:
            self._check_replaceable(target, st, target.parent)
        self.files.append(target)
        return target

    def _check_replaceable(self, target: Path, st: os.stat_result, root: Path) -> None:
        if stat.S_ISLNK(st.st_mode):
            raise OutputError(
                self.show(target), f"it is a symbolic link (to {os.readlink(target)})",
                "give the path of a new file or of a file qacamp wrote")
        if stat.S_ISDIR(st.st_mode):
            raise OutputError(self.show(target), "it is a folder, not a file",
                              "give the path of a new file or of a file qacamp wrote")
        what = kind_of(st.st_mode)
        if what is not None:
            raise OutputError(self.show(target), f"it is {what}, not a regular file",
                              "give the path of a new file or of a file qacamp wrote "
                              "(qacamp never writes to devices, pipes or sockets)")
        if not self.force and not records.record_path(root, target).is_file():
            raise OutputError(self.show(target), "the file exists and was not written by qacamp",
                              f"give another path, or {FORCE_FIX}")

    # ------------------------------------------------------------------ staging
    def root_of(self, target: Path) -> Path:
        """The claimed folder whose record folder records ``target``."""
        if target in self.files:
            return target.parent
        for folder in sorted(self.dirs, key=lambda d: -len(d.parts)):
            if target.is_relative_to(folder) and target != folder:
                return folder
        raise OutputError(self.show(target), "not among the outputs this command claimed",
                          "report this as a bug of qacamp (every output is claimed first)")

    def prepare(self, path: str | Path) -> tuple[Path, Path]:
        """Check that ``path`` may be (re)written now; ``(target, root)``."""
        target = Path(os.path.abspath(path))
        root = self.root_of(target)
        self._check_not_input(target)
        if target.name == MARKER or MARKER in target.relative_to(root).parts:
            raise OutputError(self.show(target), "a name qacamp keeps for its records",
                              "report this as a bug of qacamp")
        st = _lstat(target)
        if st is not None and target not in self.files:
            self._check_replaceable(target, st, root)
        self._mkdirs(target.parent)
        return target, root

    def stage(self, target: Path, root: Path, tmp: Path, sha256: str | None,
              size: int | None) -> None:
        old = self.staged.pop(target, None)
        if old is not None:
            with contextlib.suppress(OSError):
                old.tmp.unlink()
        self.staged[target] = _Staged(tmp, root, sha256, size)

    # ------------------------------------------------------------------ end
    def commit(self) -> None:
        hashed = {}
        for path, sha in sorted(self.inputs.items()):
            if sha is None and path.is_file() and path not in self.staged:
                try:
                    sha = records.sha256_file(path)
                except OSError:
                    sha = None
            if sha is not None or path.is_file():
                hashed[path] = sha
        for target in self.staged:
            self._check_not_input(target)
        # records first, then the renames: a file is never in place without its
        # record, and a run that dies in between leaves a record its old file
        # does not match (refused, rebuilt), never an unchecked file
        written: list[tuple[Path, Path, bytes | None]] = []
        renamed: set[Path] = set()
        target = None
        try:
            for target, s in sorted(self.staged.items()):
                inputs = {records.input_key(self.given[p], s.root): sha
                          for p, sha in hashed.items() if p != target}
                rec = Record(file=Path(os.path.relpath(target, s.root)).as_posix(),
                             step=self.step, sha256=s.sha256, size=s.size, inputs=inputs,
                             temporary=self.temporary)
                rp = records.record_path(s.root, target)
                old = rp.read_bytes() if rp.is_file() else None
                written.append((target, rp, old))
                write_record(rp, rec)
            existed = {t: os.path.lexists(t) for t in self.staged}
            for target, s in sorted(self.staged.items()):
                os.replace(s.tmp, target)
                renamed.add(target)
        except OSError as exc:
            for t, rp, old in written:
                with contextlib.suppress(OSError):
                    if t in renamed and not existed[t]:
                        os.unlink(t)  # a new file: gone again with its record
                    elif t in renamed:
                        continue  # its old version is replaced: keep the new record
                    if old is None:
                        rp.unlink()
                    else:
                        rp.write_bytes(old)
            raise OutputError(self.show(target), exc.strerror or str(exc),
                              "free disk space or fix the folder's permissions, then rerun "
                              "(nothing partial was kept)") from None
        self._remove_obsolete()

    def _remove_obsolete(self) -> None:
        for folder in self.dirs:
            for target, rp in records.iter_records(folder):
                if Path(os.path.abspath(target)) in self.staged:
                    continue
                try:
                    rec = records.load(rp, target)
                except Exception:  # noqa: BLE001 - a damaged record of another step: leave it
                    continue
                if rec.step != self.step:
                    continue
                st = _lstat(target)
                with contextlib.suppress(OSError):
                    if st is not None and stat.S_ISREG(st.st_mode):
                        os.unlink(target)
                    os.unlink(rp)

    def abort(self) -> None:
        for s in self.staged.values():
            with contextlib.suppress(OSError):
                s.tmp.unlink()
        self.staged.clear()
        for d in reversed(self.created):
            with contextlib.suppress(OSError):
                os.rmdir(d)


def write_record(path: Path, rec: Record) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    records.remove_stale_temps(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(rec.dumps())
        os.chmod(tmp, file_mode())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def active() -> Writing | None:
    """The :class:`Writing` block the current code runs in, if any."""
    return _ACTIVE.get()


@contextlib.contextmanager
def writing(step: str, *, files: Iterable[str | Path | None] = (),
            dirs: Iterable[str | Path | None] = (), inputs: Iterable[str | Path | None] = (),
            force: bool = False, temporary: bool = False) -> Iterator[Writing]:
    """Claim output ``files`` and folders ``dirs`` of command ``step`` (e.g.
    ``"qacamp score"``), given its ``inputs``, and write them all or nothing
    (module docstring).  ``None`` entries are skipped (options not given).
    ``temporary``: the outputs are shards the workflow deletes once merged.
    Inside another block, the claims join that block."""
    outer = _ACTIVE.get()
    w = outer or Writing(step, force, temporary)
    w.add_inputs(p for p in inputs if p is not None)
    if outer is not None:
        for d in dirs:
            if d is not None and Path(os.path.abspath(d)) not in w.dirs:
                w.claim_dir(d)
        for f in files:
            if f is not None and Path(os.path.abspath(f)) not in w.files:
                w.claim_file(f)
        yield w
        return
    token = _ACTIVE.set(w)
    try:
        try:
            for d in dirs:
                if d is not None:
                    w.claim_dir(d)
            for f in files:
                if f is not None:
                    w.claim_file(f)
            yield w
        except BaseException:
            w.abort()
            raise
        try:
            w.commit()
        except BaseException:
            w.abort()
            raise
    finally:
        _ACTIVE.reset(token)


__all__ = ["writing", "active", "Writing", "file_mode", "kind_of", "write_record", "FORCE_FIX"]
