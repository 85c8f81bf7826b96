"""Claiming output paths and writing them all or nothing.

Every command that writes files runs inside one :func:`writing` block::

    with writing("qacamp score", dirs=[args.out], inputs=[args.ingest], force=args.force):
        ...                      # read, compute
        write_parquet(df, Path(args.out) / "runs.parquet")

Claims come first, before anything is computed: an output that is an input,
a symbolic link, a device, a pipe, a socket or a path of the other kind is
refused; a folder is written into only if new, empty or qacamp's (it holds
``.qacamp-output/``), or with ``force``; an existing file is replaced only if
qacamp recorded it (a file changed since is replaced with one line saying
so), or with ``force`` (one line too).  Each claimed path is locked for the
block (:func:`~.records.lock`: a second writer gets exit code 75).  Each
refusal is an :class:`~qacamp.errors.OutputError`: one line, exit code 2.

Inside the block the writers (:mod:`.files`) stage temporary files in this
process's temporary folder inside the marker; the files read through
:mod:`.verified` become the outputs' recorded inputs.  At the end the records
are written, then every temporary file is renamed onto its target; an
exception removes the temporaries and every folder the block created.  Files
the same step wrote before and not this time are removed if they are as it
wrote them, else left alone and named.  Modes follow the umask.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import BusyError, OutputError
from . import records
from .records import LOCK, MARKER, TMP, Record

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
    """``0666 & ~umask`` (the umask read without changing it where Linux shows it)."""
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


def note(line: str) -> None:
    """One line on stderr about a file qacamp replaced or left alone."""
    print(f"qacamp: {line}", file=sys.stderr)


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
        self.step, self.force, self.temporary = step, force, temporary
        self.dirs: list[Path] = []
        self.files: list[Path] = []
        self.inputs: dict[Path, str | None] = {}
        self.given: dict[Path, str] = {}
        self.staged: dict[Path, _Staged] = {}
        self.created: list[Path] = []
        self.spelled: dict[Path, str] = {}
        self.locks: list[tuple[int, Path | None]] = []
        self.temps: dict[Path, Path] = {}
        self.replacing: dict[Path, str] = {}

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
                raise OutputError(self.show(d), exc.strerror or str(exc), DISK_FIX) from None
            self.created.append(d)

    def _mark(self, folder: Path) -> None:
        marker = folder / MARKER
        st = _lstat(marker)
        if st is not None and not stat.S_ISDIR(st.st_mode):
            raise records.link_error(marker, self.show(marker)) if stat.S_ISLNK(st.st_mode) \
                else OutputError(self.show(marker), "not a folder", "remove it, then rerun")
        if st is None:
            try:
                os.mkdir(marker)
            except OSError as exc:
                raise OutputError(self.show(folder), exc.strerror or str(exc), DISK_FIX) from None
            self.created.append(marker)

    def _lock(self, path: Path, lockfile: Path | None = None) -> None:
        try:
            self.locks.append(records.lock(path, self.show(path), lockfile))
        except BusyError:
            if path in self.created:  # made by us, now the other writer's
                self.created.remove(path)
            raise
        except OSError as exc:
            raise OutputError(self.show(path), exc.strerror or str(exc), DISK_FIX) from None

    def claim_dir(self, path: str | Path) -> Path:
        folder = Path(os.path.abspath(path))
        self.spelled.setdefault(folder, os.fspath(path))
        self._check_not_input(folder)
        st = _lstat(folder)
        if st is None:
            self._mkdirs(folder)
        elif stat.S_ISLNK(st.st_mode):
            raise records.link_error(folder, self.show(folder))
        elif not stat.S_ISDIR(st.st_mode):
            raise OutputError(self.show(folder), f"it is {kind_of(st.st_mode) or 'an existing file'}"
                              ", not a folder", "give a new or empty folder (qacamp never "
                              "replaces a file, device or pipe by a folder)")
        self._lock(folder)
        if not records.is_marked(folder):
            try:
                entries = sorted(e for e in os.listdir(folder) if e not in SNAKEMAKE_FILES)
            except OSError as exc:
                raise OutputError(self.show(folder), exc.strerror or str(exc),
                                  "give a folder qacamp can read and write") from None
            if entries and not self.force and MARKER not in entries:
                shown = ", ".join(repr(e) for e in entries[:3]) + (", ..." if entries[3:] else "")
                raise OutputError(
                    self.show(folder), f"the folder holds files qacamp did not write ({shown})",
                    f"give a new or empty folder, or {FORCE_FIX}")
            self._mark(folder)
        self.dirs.append(folder)
        return folder

    def claim_file(self, path: str | Path) -> Path:
        target = Path(os.path.abspath(path))
        self.spelled.setdefault(target, os.fspath(path))
        self._check_not_input(target)
        st = _lstat(target)
        if st is not None:
            self._check_replaceable(target, st, target.parent)
        self._mkdirs(target.parent)
        self._mark(target.parent)
        self._lock(target, target.parent / MARKER / f"{target.name}{LOCK}")
        self.files.append(target)
        return target

    def _check_replaceable(self, target: Path, st: os.stat_result, root: Path) -> None:
        fix = "give the path of a new file or of a file qacamp wrote"
        if stat.S_ISLNK(st.st_mode):
            raise records.link_error(target, self.show(target))
        if stat.S_ISDIR(st.st_mode):
            raise OutputError(self.show(target), "it is a folder, not a file", fix)
        if kind_of(st.st_mode) is not None:
            raise OutputError(self.show(target), f"it is {kind_of(st.st_mode)}, not a regular "
                              "file", f"{fix} (qacamp never writes to devices, pipes or sockets)")
        rp = records.record_path(root, target)
        rec = records.load(rp, target) if records.is_marked(root) and os.path.lexists(rp) \
            else None
        state = records.status(target, rec)
        if state == "changed":
            self.replacing[target] = f"{self.show(target)}: replaced; it had changed since " \
                f"`{rec.step}` wrote it"
        elif state == "unrecorded":
            if not self.force:
                raise OutputError(self.show(target), "the file exists and was not written by "
                                  "qacamp", f"give another path, or {FORCE_FIX}")
            self.replacing[target] = f"{self.show(target)}: replaced a file qacamp did not " \
                "write (--force)"

    # ------------------------------------------------------------------ staging
    def root_of(self, target: Path) -> Path:
        """The claimed folder whose marker records ``target``."""
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
        parts = target.relative_to(root).parts
        if MARKER in parts or parts[0] == TMP:
            raise OutputError(self.show(target), "a name qacamp keeps for its records",
                              "report this as a bug of qacamp")
        link = records.link_on_way(root, target)
        if link is not None:
            raise records.link_error(link, self.show(link))
        st = _lstat(target)
        if st is not None and target not in self.files and target not in self.staged:
            self._check_replaceable(target, st, root)
        self._mkdirs(target.parent)
        return target, root

    def temp(self, target: Path, root: Path, suffix: str, create: bool = True) -> Path:
        """A new private temporary path for ``target`` in this process's
        temporary folder of ``root`` (same file system, renamed at the end)."""
        if root not in self.temps:
            self.temps[root] = records.temp_dir(root)
        fd, tmp = tempfile.mkstemp(prefix=f"{target.name[:80]}.", suffix=suffix,
                                   dir=self.temps[root])
        os.close(fd)
        if not create:  # a writer that must create the file itself (DuckDB)
            os.unlink(tmp)
        return Path(tmp)

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
        existed = {t: os.path.lexists(t) for t in self.staged}
        target = None
        try:
            for target, s in sorted(self.staged.items()):
                inputs = {records.input_key(self.given[p], s.root): sha
                          for p, sha in hashed.items() if p != target}
                rec = Record(file=Path(os.path.relpath(target, s.root)).as_posix(),
                             step=self.step, sha256=s.sha256, size=s.size, inputs=inputs,
                             temporary=self.temporary)
                rp = records.record_path(s.root, target)
                old = rp.read_bytes() if rp.is_file() and not rp.is_symlink() else None
                written.append((target, rp, old))
                self._write_record(rp, rec, s.root, target)
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
        for t in sorted(renamed):
            if t in self.replacing:
                note(self.replacing[t])
        self._remove_obsolete()

    def _write_record(self, rp: Path, rec: Record, root: Path, target: Path) -> None:
        rp.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.temp(target, root, ".json")
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(rec.dumps())
        os.chmod(tmp, file_mode())
        os.replace(tmp, rp)

    def _remove_obsolete(self) -> None:
        """Files this step wrote before and not now: removed if as it wrote them."""
        for folder in self.dirs:
            for target, rp in list(records.iter_records(folder)):
                if Path(os.path.abspath(target)) in self.staged:
                    continue
                try:
                    rec = records.load(rp, target)
                except Exception:  # noqa: BLE001 - a damaged record of another step: leave it
                    continue
                if rec.step != self.step:
                    continue
                if not os.path.lexists(target):
                    with contextlib.suppress(OSError):
                        os.unlink(rp)
                elif not records.remove_owned(target, folder, rec):
                    note(f"{self.show(target)}: left alone: `{self.step}` no longer writes it "
                         "and it is not the file it wrote (move or delete it yourself)")

    def abort(self) -> None:
        for s in self.staged.values():
            with contextlib.suppress(OSError):
                s.tmp.unlink()
        self.staged.clear()
        self.release()
        for d in reversed(self.created):
            with contextlib.suppress(OSError):
                os.rmdir(d)

    def release(self) -> None:
        """Remove this process's temporary folders and give up the locks."""
        for root, tmp in self.temps.items():
            shutil.rmtree(tmp, ignore_errors=True)
            with contextlib.suppress(OSError):
                os.rmdir(root / MARKER / TMP)
        self.temps.clear()
        for fd, lockfile in self.locks:
            records.unlock(fd, lockfile)
        self.locks.clear()


def active() -> Writing | None:
    """The :class:`Writing` block the current code runs in, if any."""
    return _ACTIVE.get()


@contextlib.contextmanager
def writing(step: str, *, files: Iterable[str | Path | None] = (),
            dirs: Iterable[str | Path | None] = (), inputs: Iterable[str | Path | None] = (),
            force: bool = False, temporary: bool = False,
            invalidates: Iterable[str | Path] = ()) -> Iterator[Writing]:
    """Claim output ``files`` and folders ``dirs`` of command ``step`` (e.g.
    ``"qacamp score"``), given its ``inputs``, and write them all or nothing
    (module docstring).  ``None`` entries are skipped (options not given).
    ``temporary``: the outputs are shards the workflow deletes once merged.
    ``invalidates``: files built from what this command replaces, removed
    first if they are as qacamp wrote them (else left alone and named).
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
            for f in invalidates:
                _invalidate(Path(f))
            yield w
            w.commit()
        except BaseException:
            w.abort()
            raise
    finally:
        w.release()
        _ACTIVE.reset(token)


def _invalidate(path: Path) -> None:
    found = records.record_of(path)
    if found is not None and not records.remove_owned(path, *found) and os.path.lexists(path):
        note(f"{path}: left alone: it is not as `{found[1].step}` wrote it")
    elif found is None and os.path.lexists(path):
        note(f"{path}: left alone: qacamp did not write it")


__all__ = ["writing", "active", "Writing", "file_mode", "kind_of", "note", "FORCE_FIX",
           "SNAKEMAKE_FILES"]
