"""A command's outputs claimed, locked and written all or nothing in one
:func:`writing` block: the writers (:mod:`.writers`) stage files in the
marker, and at the end the records are written and every file renamed into
place (docs/architecture.md, "Files: qacamp.io")."""

from __future__ import annotations

import contextlib
import contextvars
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..errors import BusyError, OutputError
from . import records
from .records import LOCK, MARKER, TMP, Record, file_mode, kind_of, lstat, note, output_error

_ACTIVE: contextvars.ContextVar[Writing | None] = contextvars.ContextVar("qacamp_writing",
                                                                         default=None)
FORCE_FIX = ("--force to let qacamp write its files there (it replaces only files of the names "
             "it writes)")
DISK_FIX = ("give an output folder on a disk qacamp can write to (free space, write "
            "permission, not read-only)")
SNAKEMAKE_FILES = (".snakemake_timestamp",)  # what Snakemake leaves in a folder output


class Writing:
    """One command's outputs (see the module docstring); made by :func:`writing`."""

    def __init__(self, step: str, force: bool, temporary: bool):
        self.step, self.force, self.temporary = step, force, temporary
        self.dirs: list[Path] = []
        self.files: list[Path] = []
        self.inputs: dict[Path, str | None] = {}
        self.given: dict[Path, str] = {}
        self.staged: dict[Path, tuple[Path, Path, str | None, int | None]] = {}
        self.created: list[Path] = []
        self.spelled: dict[Path, str] = {}
        self.locks: list[tuple[int, Path | None]] = []
        self.temps: dict[Path, Path] = {}
        self.replacing: dict[Path, str] = {}

    def show(self, path: Path) -> str:
        """``path`` (absolute) as the command's arguments spell it, for messages."""
        for claimed, given in self.spelled.items():
            if path == claimed or path.is_relative_to(claimed):
                return os.path.join(given, os.path.relpath(path, claimed)).removesuffix("/.")
            up = Path(given).parents
            if claimed.is_relative_to(path) and len(claimed.parts) - len(path.parts) <= len(up):
                return str(up[len(claimed.parts) - len(path.parts) - 1])
        return str(path)

    # ------------------------------------------------------------------ claims
    def add_input(self, path: str | Path, sha256: str | None = None) -> None:
        """An input of the command (a file or folder, never an output; a file is
        recorded with its SHA-256, given when it was read)."""
        key = Path(os.path.abspath(path))
        self.inputs[key] = sha256 or self.inputs.get(key)
        self.given.setdefault(key, os.fspath(path))

    def _input_files(self) -> set[tuple[int, int]]:
        """(device, inode) of every input there is (links followed)."""
        ids = set()
        for inp in self.inputs:
            with contextlib.suppress(OSError):  # (a dangling link is no input)
                st = os.stat(inp)
                ids.add((st.st_dev, st.st_ino))
        return ids

    def _check_not_input(self, path: Path, inputs: set[tuple[int, int]] | None = None) -> None:
        """``path`` is none of the inputs (``inputs``: :meth:`_input_files`,
        found once for several paths)."""
        same = path in self.inputs
        if not same and os.path.lexists(path):
            with contextlib.suppress(OSError):  # (a dangling link is no input)
                st = os.stat(path)
                same = (st.st_dev, st.st_ino) in (self._input_files() if inputs is None
                                                  else inputs)
        if same:
            raise OutputError(self.show(path), "it is an input of this command", "give "
                              "an output path that is not one of the command's inputs")

    def _mkdirs(self, folder: Path) -> None:
        missing = []
        while not os.path.lexists(folder):
            missing.append(folder)
            folder = folder.parent
        for d in reversed(missing):
            try:
                os.mkdir(d)
            except FileExistsError:
                continue
            except OSError as exc:
                raise OutputError(self.show(d), exc.strerror or str(exc), DISK_FIX) from None
            self.created.append(d)

    def _mark(self, folder: Path) -> None:
        st = lstat(folder / MARKER)
        if st is not None and not stat.S_ISDIR(st.st_mode):
            raise records.link_error(folder / MARKER, self.show(folder / MARKER))
        if st is None:
            self._mkdirs(folder / MARKER)

    def _lock(self, path: Path, lockfile: Path | None = None) -> None:
        try:
            self.locks.append(records.lock(path, self.show(path), lockfile))
        except BusyError:
            if path in self.created:  # made by us a moment ago: now the other writer's
                self.created.remove(path)
            raise
        except OSError as exc:
            raise OutputError(self.show(path), exc.strerror or str(exc), DISK_FIX) from None

    def claim_dir(self, path: str | Path) -> Path:
        folder = Path(os.path.abspath(path))
        self.spelled.setdefault(folder, os.fspath(path))
        self._check_not_input(folder)
        st = lstat(folder)
        if st is None:
            self._mkdirs(folder)
        elif stat.S_ISLNK(st.st_mode):
            raise records.link_error(folder, self.show(folder))
        elif not stat.S_ISDIR(st.st_mode):
            what = kind_of(st.st_mode) or "an existing file"
            raise OutputError(self.show(folder), f"it is {what}, not a folder", "give a new or "
                              "empty folder (qacamp never replaces a file, device or pipe by a "
                              "folder)")
        self._lock(folder)
        if not records.is_marked(folder):
            try:
                entries = sorted(e for e in os.listdir(folder) if e not in SNAKEMAKE_FILES)
            except OSError as exc:
                raise OutputError(self.show(folder), exc.strerror or str(exc),
                                  "give a folder qacamp can read and write") from None
            if entries and not self.force and MARKER not in entries:
                shown = ", ".join(repr(e) for e in entries[:3]) + (", ..." if entries[3:] else "")
                raise OutputError(self.show(folder), "the folder holds files qacamp did not "
                                  f"write ({shown})", f"give a new or empty folder, or {FORCE_FIX}")
            self._mark(folder)
        self.dirs.append(folder)
        return folder

    def claim_file(self, path: str | Path) -> Path:
        target = Path(os.path.abspath(path))
        self.spelled.setdefault(target, os.fspath(path))
        self._check_not_input(target)
        st = lstat(target)
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
        elif state == "unrecorded" and not self.force:
            raise OutputError(self.show(target), "the file exists and was not written by qacamp",
                              f"give another path, or {FORCE_FIX}")
        elif state == "unrecorded":
            self.replacing[target] = f"{self.show(target)}: replaced a file qacamp did not " \
                "write (--force)"

    # ------------------------------------------------------------------ staging
    def prepare(self, path: str | Path, suffix: str, create: bool = True
                ) -> tuple[Path, Path, Path]:
        """Check that ``path`` may be (re)written now: ``(target, root, a new
        temporary path for it in this writer's folder of root's marker)``."""
        target = Path(os.path.abspath(path))
        root = target.parent if target in self.files else next(
            (d for d in sorted(self.dirs, key=lambda d: -len(d.parts))
             if target.is_relative_to(d) and target != d), None)
        if root is None:
            raise OutputError(self.show(target), "not among the outputs this command claimed",
                              "report this as a bug of qacamp (every output is claimed first)")
        self._check_not_input(target)
        parts = target.relative_to(root).parts
        if MARKER in parts or parts[0] == TMP:
            raise OutputError(self.show(target), "a name qacamp keeps for its records",
                              "report this as a bug of qacamp")
        link = records.link_on_way(root, target)
        if link is not None:
            raise records.link_error(link, self.show(link))
        st = lstat(target)
        if st is not None and target not in self.files and target not in self.staged:
            self._check_replaceable(target, st, root)
        self._mkdirs(target.parent)
        return target, root, self._temp(root, target, suffix, create)

    def _temp(self, root: Path, target: Path, suffix: str, create: bool = True) -> Path:
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
        with contextlib.suppress(OSError, KeyError):
            self.staged.pop(target)[0].unlink()
        self.staged[target] = (tmp, root, sha256, size)

    # ------------------------------------------------------------------ end
    def commit(self) -> None:
        hashed = {}
        for path, sha in sorted(self.inputs.items()):
            if sha is None and path.is_file() and path not in self.staged:
                with contextlib.suppress(OSError):
                    sha = records.sha256_file(path)
            if sha is not None or path.is_file():
                hashed[path] = sha
        inputs = self._input_files()
        for target in self.staged:
            self._check_not_input(target, inputs)
        # records first, then the renames: a file is never in place without its
        # record, and a run that dies in between leaves a record its old file
        # does not match (refused, rebuilt), never an unchecked file
        written: list[tuple[Path, Path, bytes | None]] = []
        existed = {t: os.path.lexists(t) for t in self.staged}
        keys: dict[Path, dict[Path, str]] = {}  # root -> input -> its key in the root's records
        renamed: set[Path] = set()
        target = None
        try:
            for target, (_tmp, root, sha, size) in sorted(self.staged.items()):
                if root not in keys:
                    keys[root] = {p: records.input_key(self.given[p], root) for p in hashed}
                rec = Record(file=Path(os.path.relpath(target, root)).as_posix(), step=self.step,
                             sha256=sha, size=size, temporary=self.temporary,
                             inputs={keys[root][p]: h for p, h in hashed.items() if p != target})
                rp = records.record_path(root, target)
                written.append((target, rp, rp.read_bytes() if rp.is_file() else None))
                rp.parent.mkdir(parents=True, exist_ok=True)
                tmp = self._temp(root, target, ".json")
                tmp.write_text(rec.dumps(), encoding="utf-8")
                os.chmod(tmp, file_mode())
                os.replace(tmp, rp)
            for target, (tmp, *_rest) in sorted(self.staged.items()):
                os.replace(tmp, target)
                renamed.add(target)
        except OSError as exc:
            for t, rp, old in written:
                with contextlib.suppress(OSError):
                    if t in renamed and not existed[t]:
                        os.unlink(t)  # a new file: gone again with its record
                    elif t in renamed:
                        continue  # its old version is replaced: keep the new record
                    rp.unlink() if old is None else rp.write_bytes(old)
            raise output_error(self.show(target), exc) from None
        for t in sorted(renamed & set(self.replacing)):
            note(self.replacing[t])
        for folder in self.dirs:  # what this step wrote before and not now
            for target, rp in list(records.iter_records(folder)):
                try:
                    rec = records.load(rp, target)
                except Exception:  # noqa: BLE001 - a damaged record of another step: leave it
                    continue
                if rec.step != self.step or target in self.staged:
                    continue
                if not os.path.lexists(target):
                    with contextlib.suppress(OSError):
                        os.unlink(rp)
                elif not records.remove_owned(target, folder, rec):
                    note(f"{self.show(target)}: left alone: `{self.step}` no longer writes it "
                         "and it is not the file it wrote (move or delete it yourself)")

    def abort(self) -> None:
        self.release()
        for d in reversed(self.created):
            with contextlib.suppress(OSError):
                os.rmdir(d)

    def release(self) -> None:
        """Remove this writer's temporary folders and give up its locks."""
        for root, tmp in self.temps.items():
            shutil.rmtree(tmp, ignore_errors=True)
            with contextlib.suppress(OSError):
                os.rmdir(root / MARKER / TMP)
        self.temps.clear()
        self.staged.clear()
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
    """Claim output ``files`` and folders ``dirs`` of command ``step`` given its
    ``inputs`` (``None`` entries: options not given) and write them all or
    nothing; ``temporary``: shards; ``invalidates``: files removed first if
    qacamp wrote them.  Inside another block, the claims join that block."""
    outer = _ACTIVE.get()
    w = outer or Writing(step, force, temporary)
    for p in inputs:
        if p is not None:
            w.add_input(p)
    token = None if outer else _ACTIVE.set(w)
    try:
        for d in dirs:
            if d is not None and Path(os.path.abspath(d)) not in w.dirs:
                w.claim_dir(d)
        for f in files:
            if f is not None and Path(os.path.abspath(f)) not in w.files:
                w.claim_file(f)
        for f in invalidates:
            found = records.record_of(f)
            if os.path.lexists(f) and not (found and records.remove_owned(Path(f), *found)):
                note(f"{f}: left alone: it is not as qacamp wrote it")
        yield w
        if outer is None:
            w.commit()
    except BaseException:
        if outer is None:
            w.abort()
        raise
    finally:
        if outer is None:
            w.release()
            _ACTIVE.reset(token)
