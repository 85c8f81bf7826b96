"""Reading what qacamp wrote, verified before use.

Every reader of an intermediate (``ingest/``, ``scores/``, ``reliability/``,
the workflow's JSON files, figures) goes through :func:`read_bytes`,
:func:`read_parquet` or :func:`read_json`: the file is read once into memory,
hashed, and compared with qacamp's record of it (:mod:`.records`); a file that
changed since it was written is refused ("changed since `qacamp ingest` wrote
it ... rerun the same command to rebuild it").  Parquet is then parsed from
the same bytes with the checks of :mod:`.parquet` and compared with the
schema the reader declares.  The scoring's run tables, which grow with the
number of runs, are instead copied to a private unnamed temporary file while
they are hashed (:func:`read_row_groups`), and decoded from that copy a row
group at a time.  A file without a record (a user's file, results
of an older qacamp) is read with those checks alone.  Inside a
:func:`~qacamp.io.writing` block each file read is noted as an input of the
outputs, with the hash just computed (never read a second time).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from ..errors import InputError
from . import records
from .outputs import active, kind_of
from .parquet import Damaged, SchemaMismatch, open_parquet, parse_parquet

if TYPE_CHECKING:
    from .rowgroups import RowGroups

MISSING_FIX = "run the workflow step that writes it"


def _open_regular(path: Path) -> tuple[int, os.stat_result]:
    """A descriptor open for reading on ``path`` and its status, refused
    (InputError) unless it is a regular file (never blocks on a FIFO)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError(path, None, "file not found", MISSING_FIX) from None
    except OSError as exc:
        raise InputError(path, None, f"cannot open it ({exc.strerror or exc})",
                         "check the path and that the file is readable") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            what = "a folder" if stat.S_ISDIR(st.st_mode) else (kind_of(st.st_mode)
                                                               or "not a regular file")
            raise InputError(path, None, f"the path is {what}, not a regular file",
                             "give the path of the file qacamp wrote")
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def _read_regular(path: Path) -> bytearray:
    fd, st = _open_regular(path)
    try:
        data = bytearray(st.st_size)  # read once into one buffer (no copies)
        view = memoryview(data)
        got = 0
        while got < st.st_size:
            n = os.readv(fd, [view[got:got + records.CHUNK * 64]])
            if n == 0:
                break
            got += n
        view.release()
        if got < st.st_size:
            del data[got:]
        return data
    except OSError as exc:
        raise InputError(path, None, f"cannot read it ({exc.strerror or exc})",
                         "check that the file is readable") from None
    finally:
        os.close(fd)


def changed_error(path, step: str, recorded: str | None, now: str) -> InputError:
    return InputError(path, None, f"changed since `{step}` wrote it (sha256 "
                      f"{(recorded or '?')[:16]}... recorded, {now[:16]}... now)",
                      f"rerun the same command to rebuild it (the workflow rebuilds it; by "
                      f"hand, rerun `{step}`)")


def read_verified(path: str | Path) -> tuple[bytearray, records.Record | None]:
    """The bytes of ``path`` and qacamp's record of it (None if it keeps none),
    refused if they do not match the record."""
    path = Path(path)
    data = _read_regular(path)
    return data, verify_bytes(path, data)


def verify_bytes(path: str | Path, data) -> records.Record | None:
    """Check ``data``, the bytes just read from ``path`` (by any reader),
    against qacamp's record of the file; note it as an input of the current
    :func:`~qacamp.io.writing` block.  Returns the record (None if none)."""
    return check_digest(path, records.sha256_bytes(data), len(data))


def check_digest(path: str | Path, sha: str, size: int) -> records.Record | None:
    """:func:`verify_bytes` of bytes already hashed: ``sha`` (SHA-256) and
    ``size`` of what was just read from ``path``."""
    found = records.record_of(path)
    rec = found[1] if found else None
    if rec is not None and rec.sha256 is not None and (rec.sha256 != sha or rec.size != size):
        raise changed_error(path, rec.step, rec.sha256, sha)
    w = active()
    if w is not None:
        w.note_read(path, sha)
    return rec


def read_bytes(path: str | Path) -> bytes:
    """The bytes of ``path``, verified against qacamp's record of it."""
    return bytes(read_verified(path)[0])


def read_json(path: str | Path, what: str = "file") -> dict:
    """A JSON object qacamp wrote (verified; a damaged one names the file)."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, None, f"{what} not found", MISSING_FIX)
    data, rec = read_verified(path)
    fix = (f"rerun `{rec.step}` to rebuild it" if rec is not None
           else "give the JSON file qacamp writes there (rerun the command that writes it)")
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(path, f"byte {exc.start}", "not UTF-8 text", fix) from None
    except json.JSONDecodeError as exc:
        raise InputError(path, f"line {exc.lineno}", f"invalid JSON ({exc.msg})", fix) from None
    if not isinstance(doc, dict):
        raise InputError(path, None, "not a JSON object", fix)
    return doc


def read_parquet(path: str | Path, columns: list[str] | None = None,
                 where: pl.Expr | None = None, schema: dict | None = None,
                 fix: str | None = None, strict: bool = True) -> pl.DataFrame:
    """A Parquet file as a polars frame: verified against qacamp's record, its
    frame and page checksums checked, its columns compared with ``schema``
    (name -> dtype; the frame's columns come in that order) when given; only
    ``columns`` and the rows matching ``where`` if given.  Every problem is an
    :class:`~qacamp.errors.InputError` naming the file: missing, changed since
    written, damaged, another table.  ``fix``: what to tell the user about a
    damaged file that is not qacamp's own.  ``strict=False`` compares only the
    declared columns present (a reader that uses some of them)."""
    path = Path(path)
    data, rec = read_verified(path)
    wanted = columns
    if columns is not None and where is not None:
        wanted = list(dict.fromkeys([*columns, *where.meta.root_names()]))
    try:
        table = parse_parquet(data, wanted, schema, verified=rec is not None, strict=strict)
    except (SchemaMismatch, Damaged) as exc:
        raise parquet_error(path, rec, exc, fix) from None
    df = pl.from_arrow(table)
    if where is not None:
        df = df.filter(where)
    return df.select(columns) if columns is not None and wanted != columns else df


def parquet_error(path: Path, rec: records.Record | None, exc: Exception,
                  fix: str | None = None) -> InputError:
    """The error naming ``path`` for a :class:`SchemaMismatch` or :class:`Damaged`
    raised while reading it (``rec``: qacamp's record of it, if any)."""
    if isinstance(exc, SchemaMismatch):
        return InputError(path, None, str(exc),
                          f"rerun `{rec.step}` to rebuild it (it may come from another version "
                          "of qacamp)" if rec is not None else
                          fix or "give the file qacamp writes there (rerun the command that "
                          "writes it)")
    if rec is not None:
        return InputError(path, None, f"cannot be read although it is as `{rec.step}` wrote "
                          f"it ({exc})", f"rerun `{rec.step}` to rebuild it")
    return InputError(path, None, f"is not a readable Parquet file ({exc})",
                      fix or "give a Parquet file written by qacamp (rerun the command that "
                      "writes it)")


def _private_copy(path: Path):
    """(file, record): a private copy of ``path`` in an unnamed temporary file
    (removed when closed), hashed while it is copied and verified against
    qacamp's record as :func:`read_verified` does; what is decoded from the
    copy later is what was verified, although only a row group's bytes are
    held in memory at a time."""
    import hashlib
    import tempfile

    fd, _st = _open_regular(path)
    try:
        def no_room(exc: OSError) -> InputError:
            return InputError(path, None, "cannot make a private copy of it in the temporary "
                              f"folder {tempfile.gettempdir()} ({exc.strerror or exc})",
                              "free space there, or set TMPDIR to a folder with space")

        try:
            copy = tempfile.TemporaryFile()
        except OSError as exc:
            raise no_room(exc) from None
        h, size = hashlib.sha256(), 0
        try:
            while block := os.read(fd, records.CHUNK * 64):
                h.update(block)
                size += len(block)
                try:
                    copy.write(block)
                except OSError as exc:
                    raise no_room(exc) from None
            try:
                copy.flush()
            except OSError as exc:
                raise no_room(exc) from None
        except BaseException:
            copy.close()
            raise
    except OSError as exc:
        raise InputError(path, None, f"cannot read it ({exc.strerror or exc})",
                         "check that the file is readable") from None
    finally:
        os.close(fd)
    rec = check_digest(path, h.hexdigest(), size)
    return copy, rec


def read_row_groups(path: str | Path, schema: dict,
                    columns: list[str] | None = None) -> RowGroups:
    """A Parquet file read later row group by row group
    (:class:`~qacamp.io.rowgroups.RowGroups`: the scoring's run tables, whose
    rows a batch of runs reads without decoding the whole table): verified as
    :func:`read_parquet` does, but from a private copy on disk
    (:func:`_private_copy`), so memory holds one row group's bytes, not the
    file's; its frame, footer and ``schema`` checked now, each row group's
    pages when decoded."""
    import pyarrow as pa

    from .rowgroups import RowGroups

    path = Path(path)
    copy, rec = _private_copy(path)

    def opener(dictionary: list[str] | None = None):
        try:
            return open_parquet(lambda: pa.PythonFile(copy, mode="r"), columns, schema,
                                verified=rec is not None, dictionary=dictionary)
        except (SchemaMismatch, Damaged) as exc:
            raise parquet_error(path, rec, exc) from None

    return RowGroups(opener, columns or list(schema), lambda exc: parquet_error(path, rec, exc),
                     verified=rec is not None)


def check_parquet(path: str | Path, schema: dict | None = None) -> None:
    """Verify a Parquet file (record, frame, metadata, schema) without keeping its rows."""
    parquet_file_bytes(path, schema)


def parquet_file_bytes(path: str | Path, schema: dict | None = None) -> bytearray:
    """The bytes of a Parquet file, verified as :func:`check_parquet` does
    (record, frame, metadata, schema), rows not decoded."""
    path = Path(path)
    data, rec = read_verified(path)
    try:
        parse_parquet(data, [], schema, verified=rec is not None)
    except (Damaged, SchemaMismatch) as exc:
        step = f"rerun `{rec.step}` to rebuild it" if rec is not None else \
            "give a Parquet file written by qacamp (rerun the command that writes it)"
        raise InputError(path, None, f"is not a readable Parquet file ({exc})", step) from None
    return data


__all__ = ["read_verified", "verify_bytes", "read_bytes", "read_json", "read_parquet",
           "check_parquet", "parquet_file_bytes", "parquet_error", "read_row_groups",
           "changed_error", "MISSING_FIX"]
