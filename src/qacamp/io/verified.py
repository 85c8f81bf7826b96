"""Reading what qacamp wrote: only files whose bytes equal their record.

Every reader of an intermediate (``ingest/``, ``scores/``, ``reliability/``,
the workflow's JSON files, figures) goes through :func:`read_bytes`,
:func:`read_json`, :func:`read_parquet` or :func:`read_row_groups`: a file
without a record is refused before it is read ("no record: qacamp did not
write it or its record was removed"), and one whose bytes (read once,
hashed) differ from its record is refused as changed.  Parquet is then parsed
from those bytes and its columns compared with the schema the caller
declares.  The scoring's run tables are copied to an unnamed temporary file
while they are hashed and decoded from it a row group at a time
(:class:`RowGroups`).  Inside a :func:`~qacamp.io.writing` block each file
read is noted as an input of the outputs, with its hash.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from ..errors import InputError
from . import records
from .outputs import active, kind_of
from .parquet import Damaged, SchemaMismatch, decode, open_parquet, parse_parquet, parse_untrusted

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq

REBUILD = "the qacamp command that writes it (the workflow's command rebuilds it)"


def no_record(path, fix: str | None = None) -> InputError:
    return InputError(path, None, "no record: qacamp did not write it or its record was removed",
                      fix or f"rebuild with {REBUILD}")


def changed_error(path, step: str, recorded: str | None, now: str) -> InputError:
    return InputError(path, None, f"changed since `{step}` wrote it (sha256 "
                      f"{(recorded or '?')[:16]}... recorded, {now[:16]}... now)",
                      f"rerun the same command to rebuild it (the workflow rebuilds it; by "
                      f"hand, rerun `{step}`)")


def _record(path: Path, rebuild: str | None) -> records.Record:
    found = records.record_of(path)
    if found is None or found[1].sha256 is None:
        if not os.path.lexists(path):
            raise InputError(path, None, "file not found", "run the workflow step that writes it")
        raise no_record(path, rebuild)
    return found[1]


def _open(path: Path) -> tuple[int, os.stat_result]:
    """A descriptor on the regular file ``path`` (never a link, never blocking on a FIFO)."""
    try:
        fd = os.open(path, os.O_RDONLY | records.NOFOLLOW)
    except OSError as exc:
        what = "a symbolic link" if os.path.islink(path) else f"cannot open it ({exc.strerror})"
        raise InputError(path, None, f"{what}, not a file qacamp wrote",
                         "give the path of the file qacamp wrote") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        what = "a folder" if stat.S_ISDIR(st.st_mode) else kind_of(st.st_mode) or "not a file"
        raise InputError(path, None, f"the path is {what}, not a regular file",
                         "give the path of the file qacamp wrote")
    return fd, st


def _check(path: Path, rec: records.Record, sha: str, size: int) -> records.Record:
    if rec.sha256 != sha or rec.size != size:
        raise changed_error(path, rec.step, rec.sha256, sha)
    w = active()
    if w is not None:
        w.note_read(path, sha)
    return rec


def read_verified(path: str | Path, rebuild: str | None = None
                  ) -> tuple[bytearray, records.Record]:
    """The bytes of ``path`` and qacamp's record of it, refused unless they match."""
    path = Path(path)
    rec = _record(path, rebuild)
    fd, st = _open(path)
    try:
        data = bytearray(st.st_size)
        view, got = memoryview(data), 0
        while got < st.st_size and (n := os.readv(fd, [view[got:got + (1 << 26)]])):
            got += n
        view.release()
        del data[got:]
    except OSError as exc:
        raise InputError(path, None, f"cannot read it ({exc.strerror or exc})",
                         "check that the file is readable") from None
    finally:
        os.close(fd)
    return data, _check(path, rec, records.sha256_bytes(data), len(data))


def read_bytes(path: str | Path) -> bytes:
    """The bytes of ``path``, verified against qacamp's record of it."""
    return bytes(read_verified(path)[0])


def read_json(path: str | Path, what: str = "file") -> dict:
    """A JSON object qacamp wrote (verified; a damaged one names the file)."""
    path = Path(path)
    if not os.path.lexists(path):
        raise InputError(path, None, f"{what} not found", "run the workflow step that writes it")
    data, rec = read_verified(path)
    fix = f"rerun `{rec.step}` to rebuild it"
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(path, f"byte {exc.start}", "not UTF-8 text", fix) from None
    except json.JSONDecodeError as exc:
        raise InputError(path, f"line {exc.lineno}", f"invalid JSON ({exc.msg})", fix) from None
    if not isinstance(doc, dict):
        raise InputError(path, None, "not a JSON object", fix)
    return doc


def parquet_error(path: Path, rec: records.Record, exc: Exception) -> InputError:
    """The error naming ``path`` for a :class:`SchemaMismatch` or :class:`Damaged`."""
    if isinstance(exc, SchemaMismatch):
        return InputError(path, None, str(exc), f"rerun `{rec.step}` to rebuild it (it may come "
                          "from another version of qacamp)")
    return InputError(path, None, f"cannot be read although it is as `{rec.step}` wrote it "
                      f"({exc})", f"rerun `{rec.step}` to rebuild it")


def read_parquet(path: str | Path, columns: list[str] | None = None,
                 where: pl.Expr | None = None, schema: dict | None = None,
                 fix: str | None = None, strict: bool = True) -> pl.DataFrame:
    """A Parquet file qacamp wrote as a polars frame, verified against its
    record, its columns compared with ``schema`` (name -> dtype; the frame's
    columns come in that order) when given; only ``columns`` and the rows
    matching ``where`` if given.  Every problem is an InputError naming the
    file; ``fix``: the command that rebuilds it, for a file without a record.
    ``strict=False`` compares only the declared columns present."""
    path = Path(path)
    data, rec = read_verified(path, fix)
    wanted = columns
    if columns is not None and where is not None:
        wanted = list(dict.fromkeys([*columns, *where.meta.root_names()]))
    try:
        table = parse_parquet(data, wanted, schema, strict=strict)
    except (SchemaMismatch, Damaged) as exc:
        raise parquet_error(path, rec, exc) from None
    df = pl.from_arrow(table)
    if where is not None:
        df = df.filter(where)
    return df.select(columns) if columns is not None and wanted != columns else df


def parquet_file_bytes(path: str | Path, schema: dict | None = None) -> bytearray:
    """The bytes of a Parquet file qacamp wrote, verified (record, schema), rows not decoded."""
    data, rec = read_verified(path)
    try:
        open_parquet(data, [], schema)
    except (Damaged, SchemaMismatch) as exc:
        raise parquet_error(Path(path), rec, exc) from None
    return data


def check_parquet(path: str | Path, schema: dict | None = None) -> None:
    """Verify a Parquet file (record, schema) without keeping its rows."""
    parquet_file_bytes(path, schema)


def read_given_parquet(path: str | Path, data) -> pa.Table:
    """The table in ``data``, the bytes a reader read from a Parquet file a
    user gave: verified and parsed here when qacamp recorded the file (the
    workflow's ``ingest/matrix.parquet``), else parsed and checked in full in
    a child process (:func:`~.parquet.parse_untrusted`).  Raises
    :class:`Damaged` or :class:`SchemaMismatch`."""
    found = records.record_of(path)
    if found is None or found[1].sha256 is None:
        return parse_untrusted(data)
    _check(Path(path), found[1], records.sha256_bytes(data), len(data))
    return parse_parquet(data)


def read_row_groups(path: str | Path, schema: dict,
                    columns: list[str] | None = None) -> RowGroups:
    """A Parquet file qacamp wrote, read later row group by row group
    (:class:`RowGroups`): copied to an unnamed temporary file while it is
    hashed and verified, so memory holds one row group's bytes at a time."""
    import tempfile

    import pyarrow as pa

    path = Path(path)
    rec = _record(path, None)
    fd, _st = _open(path)
    try:
        try:
            copy = tempfile.TemporaryFile()
        except OSError as exc:
            raise _no_room(path, exc) from None
        h, size = hashlib.sha256(), 0
        try:
            while block := os.read(fd, 1 << 26):
                h.update(block)
                size += len(block)
                try:
                    copy.write(block)
                except OSError as exc:
                    raise _no_room(path, exc) from None
            try:
                copy.flush()
            except OSError as exc:
                raise _no_room(path, exc) from None
            _check(path, rec, h.hexdigest(), size)
        except BaseException:
            copy.close()
            raise
    except OSError as exc:
        raise InputError(path, None, f"cannot read it ({exc.strerror or exc})",
                         "check that the file is readable") from None
    finally:
        os.close(fd)

    def opener(dictionary: list[str] | None = None) -> pq.ParquetFile:
        try:
            return open_parquet(pa.PythonFile(copy, mode="r"), columns, schema,
                                dictionary=dictionary)
        except (SchemaMismatch, Damaged) as exc:
            raise parquet_error(path, rec, exc) from None

    return RowGroups(opener, columns or list(schema), lambda exc: parquet_error(path, rec, exc))


def _no_room(path: Path, exc: OSError) -> InputError:
    import tempfile

    return InputError(path, None, "cannot make a private copy of it in the temporary folder "
                      f"{tempfile.gettempdir()} ({exc.strerror or exc})",
                      "free space there, or set TMPDIR to a folder with space")


class RowGroups:
    """The rows of one verified Parquet table, decoded a row group at a time.

    The scoring's run tables grow with the runs: a batch of runs reads only
    the row groups holding its rows (ingest writes them sorted by run), and
    facts across all runs come from a scan of a few columns.  ``opener``
    opens the checked file (string columns ``dictionary`` as dictionaries);
    ``error`` makes the error for a damaged row group."""

    def __init__(self, opener: Callable[[list[str] | None], pq.ParquetFile], columns: list[str],
                 error: Callable[[Exception], Exception]) -> None:
        self._pf = opener(None)
        self._opener = opener
        self._coded: pq.ParquetFile | None = None
        self.columns = list(columns)
        self._error = error
        self._values: dict[str, list[frozenset]] = {}  # key column -> its values per group
        self._last: tuple[tuple[int, tuple[str, ...]], pa.Table] | None = None

    @property
    def height(self) -> int:
        return self._pf.metadata.num_rows

    def _read(self, pf, g: int, columns: list[str]) -> pa.Table:
        try:
            return decode(lambda: pf.read_row_group(g, columns=columns, use_threads=False))
        except Damaged as exc:
            raise self._error(exc) from None

    def _group(self, g: int, columns: list[str]) -> pa.Table:
        """Row group ``g``'s ``columns`` (the last one decoded is kept: batches
        of runs in order share the row group at their boundary)."""
        key = (g, tuple(columns))
        if self._last is None or self._last[0] != key:
            self._last = (key, self._read(self._pf, g, columns))
        return self._last[1]

    def _empty(self, columns: list[str]) -> pl.DataFrame:
        return pl.from_arrow(self._pf.schema_arrow.empty_table().select(columns))

    def chunks(self, columns: list[str] | None = None, coded: bool = False
               ) -> Iterator[pl.DataFrame]:
        """The table's ``columns`` (default: all read), one frame per row group
        in file order (one empty frame for a table without rows).  ``coded``:
        string columns as Categorical (a scan that counts or selects rows)."""
        columns = list(columns or self.columns)
        n = self._pf.num_row_groups
        if not n:
            yield self._empty(columns)
        for g in range(n):
            yield pl.from_arrow(self._coded_group(g, columns) if coded
                                else self._group(g, columns))

    def _coded_group(self, g: int, columns: list[str]) -> pa.Table:
        import pyarrow as pa

        if self._coded is None:
            self._coded = self._opener([f.name for f in self._pf.schema_arrow
                                        if f.name in self.columns
                                        and (pa.types.is_string(f.type)
                                             or pa.types.is_large_string(f.type)
                                             or pa.types.is_string_view(f.type))])
        return self._read(self._coded, g, columns)

    def rows(self, key: str, values: Iterable[str], columns: list[str] | None = None
             ) -> pl.DataFrame:
        """The rows whose ``key`` is one of ``values``, in file order (the whole
        table filtered), decoding only the row groups that hold such rows."""
        import pyarrow as pa
        import pyarrow.compute as pc

        columns = list(columns or self.columns)
        wanted = frozenset(values)
        if key not in self._values:
            self._values[key] = [frozenset(self._coded_group(g, [key]).column(0).unique()
                                           .to_pylist())
                                 for g in range(self._pf.num_row_groups)]
        parts = []
        for g, present in enumerate(self._values[key]):
            if not present & wanted:
                continue
            table = self._group(g, columns)
            if not present <= wanted:
                col = table.column(key)
                table = table.filter(pc.is_in(col, value_set=pa.array(sorted(wanted),
                                                                      type=col.type)))
            parts.append(table)
        if not parts:
            return self._empty(columns)
        return pl.from_arrow(pa.concat_tables(parts))


__all__ = ["read_verified", "read_bytes", "read_json", "read_parquet", "check_parquet",
           "parquet_file_bytes", "read_given_parquet", "read_row_groups", "RowGroups",
           "parquet_error", "changed_error", "no_record"]
