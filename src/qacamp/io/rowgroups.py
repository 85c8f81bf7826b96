"""Verified Parquet read a row group at a time: the run tables `qacamp score`
decodes batch by batch of runs (:class:`RowGroups`, from a private copy of
the file whose bytes are hashed and checked against qacamp's record)."""

from __future__ import annotations

import bisect
import errno
import functools
import hashlib
import io
import os
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import polars as pl

from ..errors import InputError
from ..ordered import in_order
from .verified import (
    Damaged,
    SchemaMismatch,
    _check,
    _is_string,
    _open,
    _readerr,
    decode,
    open_parquet,
    parquet_error,
)

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq

T = TypeVar("T")

#: Rows at least in one part of :meth:`RowGroups.each` (consecutive row
#: groups read together: a scan of a few columns costs per part, not per row).
SCAN_ROWS = 1024 * 1024


def read_row_groups(path: str | Path, schema: dict, columns: list[str] | None = None
                    ) -> RowGroups:
    """A Parquet file qacamp wrote, read a row group at a time from a private
    copy (an unnamed temporary file) whose bytes are hashed and verified
    (:func:`_private_copy`)."""
    import pyarrow as pa

    path = Path(path)
    fd, _st, rec = _open(path, None)
    copy = None

    def no_room(exc: OSError) -> InputError:  # (a failure to write the copy)
        return InputError(path, None, "cannot make a private copy of it in the temporary "
                          f"folder {tempfile.gettempdir()} ({exc.strerror or exc})",
                          "free space there, or set TMPDIR to a folder with space")
    try:
        copy = _written(tempfile.TemporaryFile)
        _check(path, rec, *_private_copy(fd, copy))
    except BaseException as exc:
        if copy is not None:
            copy.close()
        if isinstance(exc, _NoRoom):
            raise no_room(exc.__cause__) from None
        if isinstance(exc, OSError):
            raise _readerr(path, exc) from None
        raise
    finally:
        os.close(fd)

    def opener(dictionary: list[str] | None = None):
        try:  # (each reader at its own place in the copy: threads read side by side)
            return open_parquet(pa.PythonFile(_At(copy.fileno()), mode="r"), columns, schema,
                                dictionary=dictionary)
        except (SchemaMismatch, Damaged) as exc:
            raise parquet_error(path, rec, exc) from None

    try:
        return RowGroups(opener, columns or list(schema), lambda exc: parquet_error(path, rec, exc),
                         copy.close)
    except BaseException:
        copy.close()
        raise


class _NoRoom(Exception):
    """Writing the private copy failed (its ``OSError`` is the cause)."""


def _private_copy(fd: int, copy) -> tuple[str, int]:
    """The bytes of ``fd`` from its place to its end written to the file
    ``copy``; their SHA-256 and size.  The kernel copies them where it can
    (``os.copy_file_range``: not through this process's memory) and the
    copy's own bytes are hashed; elsewhere they are read, hashed and written
    here (also after a kernel copy shorter than the file: some file systems
    end it early).  A failure to write the copy is :class:`_NoRoom`, one to
    read ``fd`` an ``OSError``."""
    start = os.lseek(fd, 0, os.SEEK_CUR)
    if _kernel_copy(fd, copy.fileno()):
        size = os.fstat(copy.fileno()).st_size
        if size == os.fstat(fd).st_size - start:
            copy.seek(0)
            return hashlib.file_digest(copy, "sha256").hexdigest(), size
        os.lseek(fd, start, os.SEEK_SET)  # (read it again, through memory)
        _written(copy.truncate, 0)
        copy.seek(0)
    h, size = hashlib.sha256(), 0
    while block := os.read(fd, 1 << 26):
        h.update(block)
        size += len(block)
        _written(copy.write, block)
    _written(copy.flush)
    return h.hexdigest(), size


#: Why ``os.copy_file_range`` may refuse a copy this system cannot make (the
#: bytes are then copied through memory).
_NO_KERNEL_COPY = frozenset({errno.EXDEV, errno.ENOSYS, errno.EOPNOTSUPP, errno.EINVAL,
                             errno.EPERM})
#: Failures to write the private copy: no room in the temporary folder.
_NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def _written(call: Callable[..., T], *args) -> T:
    """``call(*args)``, a write to the private copy: its failure is :class:`_NoRoom`."""
    try:
        return call(*args)
    except OSError as exc:
        raise _NoRoom from exc


def _kernel_copy(fd: int, out: int) -> bool:
    """The bytes of ``fd`` from its place to its end written to ``out`` by the
    kernel; False where the system cannot (nothing is copied then)."""
    copy_range = getattr(os, "copy_file_range", None)
    done = 0
    while copy_range is not None:
        try:
            n = copy_range(fd, out, 1 << 30)
        except OSError as exc:
            if not done and exc.errno in _NO_KERNEL_COPY:
                return False
            if exc.errno in _NO_ROOM:
                raise _NoRoom from exc
            raise
        if not n:
            return True
        done += n
    return False


class _At(io.RawIOBase):
    """A file descriptor read at a place of its own (``os.pread``): readers of
    one file in several threads do not move each other's place."""

    def __init__(self, fd: int) -> None:
        self.fd, self.at = fd, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self.at,
                os.SEEK_END: os.fstat(self.fd).st_size}[whence]
        self.at = base + offset
        return self.at

    def tell(self) -> int:
        return self.at

    def readinto(self, buffer) -> int:
        data = os.pread(self.fd, len(buffer), self.at)
        buffer[:len(data)] = data
        self.at += len(data)
        return len(data)


class RowGroups:
    """A verified Parquet table decoded a row group at a time (a batch of runs
    decodes only the row groups holding its rows).  :meth:`close` (or a
    ``with`` block) closes the private copy it reads; a closed table cannot
    be read again."""

    def __init__(self, opener: Callable[[list[str] | None], pq.ParquetFile], columns: list[str],
                 error: Callable[[Exception], Exception], close: Callable[[], None]) -> None:
        self.columns, self._error, self._close = list(columns), error, close
        self._opener = opener
        self._pf = opener(None)
        # the declared types, and the same file with its strings read as dictionaries
        self._types = {f.name: f.type for f in self._pf.schema_arrow}
        self._strings = [name for name, t in self._types.items()
                         if name in self.columns and _is_string(t)]
        self._coded = opener(self._strings)
        self._last: tuple[tuple[int, tuple[str, ...]], pa.Table] | None = None
        #: (group, key column) -> its stretches of equal values (:meth:`_stretches`)
        self._stretch: dict[tuple[int, str], list[tuple[str | None, int, int]]] = {}
        self._bound: dict[str, list] = {}  # key column -> :meth:`_bounds`

    def close(self) -> None:
        self._last, self._stretch, self._bound = None, {}, {}
        self._close()

    def __enter__(self) -> RowGroups:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _read(self, pf, groups: list[int], columns: list[str]) -> pa.Table:
        try:
            return decode(lambda: pf.read_row_groups(groups, columns=columns, use_threads=False))
        except Damaged as exc:
            raise self._error(exc) from None

    def _coded_group(self, g: int, columns: list[str]) -> pa.Table:
        return self._read(self._coded, [g], columns)

    def _kept_group(self, g: int, columns: list[str]) -> pa.Table:
        """Row group ``g``'s ``columns``, strings coded: the last one is kept
        (consecutive batches of runs share one), holding each distinct
        string once; the one before is freed before this one is decoded."""
        if self._last is None or self._last[0] != (g, tuple(columns)):
            self._last = None
            self._last = ((g, tuple(columns)), self._coded_group(g, columns))
        return self._last[1]

    def _frame(self, table: pa.Table) -> pl.DataFrame:
        """``table`` as a frame, its coded strings as the file's declared types:
        looked up in their dictionaries by polars, a string is a view of its
        dictionary's value (no Arrow string column is made on the way)."""
        import pyarrow as pa

        def column(name: str, c: pa.ChunkedArray) -> pl.Series:
            if not pa.types.is_dictionary(c.type):
                return pl.Series(name, c)
            parts = [pl.Series(name, ch.dictionary).gather(pl.Series(ch.indices))
                     for ch in c.chunks]
            return pl.concat(parts, rechunk=False) if parts else \
                pl.Series(name, pa.chunked_array([], self._types[name]))

        return pl.DataFrame([column(name, c) for name, c in
                             zip(table.column_names, table.columns, strict=True)])

    def _empty_table(self, columns: list[str]) -> pa.Table:
        import pyarrow as pa  # (Schema.empty_table() would load pandas)

        return pa.Table.from_batches([], schema=self._pf.schema_arrow).select(columns)

    def _empty(self, columns: list[str]) -> pl.DataFrame:
        return pl.from_arrow(self._empty_table(columns))

    def chunks(self, columns: list[str] | None = None) -> Iterator[pl.DataFrame]:
        """``columns``, a frame per row group (one if empty)."""
        columns = list(columns or self.columns)
        if not self._pf.num_row_groups:
            yield self._empty(columns)
        for g in range(self._pf.num_row_groups):
            yield self._frame(self._kept_group(g, columns))

    def each(self, columns: list[str], func: Callable[[pl.DataFrame], T],
             threads: int | None = None) -> list[T]:
        """``func`` of ``columns`` of each run of row groups of at least
        :data:`SCAN_ROWS` rows (:meth:`_spans`; strings as Categorical; one
        empty frame if the file has no row group), in order: the groups are
        decoded and ``func`` runs in ``threads`` threads
        (:func:`qacamp.ordered.in_order`), each with its own reader of the copy."""
        if not self._pf.num_row_groups:
            return [func(self._empty(columns))]
        local = threading.local()

        def one(groups: list[int]) -> T:
            if getattr(local, "file", None) is None:
                local.file = self._opener(self._strings)
            return func(pl.from_arrow(self._read(local.file, groups, columns)))

        return [result() for result in in_order(
            (functools.partial(one, groups) for groups in self._spans()), threads)]

    def _spans(self) -> Iterator[list[int]]:
        """The row groups in runs of consecutive ones of at least
        :data:`SCAN_ROWS` rows (the last: the rest), for :meth:`each`."""
        meta, span, rows = self._pf.metadata, [], 0
        for g in range(meta.num_row_groups):
            span.append(g)
            rows += meta.row_group(g).num_rows
            if rows >= SCAN_ROWS:
                yield span
                span, rows = [], 0
        if span:
            yield span

    def coded_rows(self, key: str, values: Iterable[str], columns: list[str] | None = None
                   ) -> pa.Table:
        """The rows whose ``key`` (a string column) is one of ``values``, in
        file order, their strings still coded (dictionary columns, as
        decoded): reading is the source's own (one thread, in order);
        :meth:`plain` makes the frame of it in any thread.  Only the row
        groups that hold such rows are decoded (:meth:`_groups`); a group's
        wanted rows are a few slices of it (the run tables are sorted with
        the run among the leading keys), taken without a copy."""
        import pyarrow as pa

        columns, wanted = list(columns or self.columns), frozenset(values)
        parts = []
        for g, stretches, bounded in self._groups(key, sorted(wanted)):
            table = None
            if stretches is None:  # (not known yet: from the group's key column)
                if bounded and key in columns:  # (it most likely holds wanted rows)
                    table = self._kept_group(g, columns)
                    column = table.column(key)
                else:  # (a group of any value: its key column alone)
                    column = self._coded_group(g, [key]).column(0)
                stretches = self._stretches(g, key, column)
            ranges = list(_ranges(stretches, wanted))
            if ranges:
                table = self._kept_group(g, columns) if table is None else table
                parts.append(table if ranges == [(0, table.num_rows)] else
                             pa.concat_tables([table.slice(at, n) for at, n in ranges]))
        return pa.concat_tables(parts) if parts else self._empty_table(columns)

    def plain(self, table: pa.Table) -> pl.DataFrame:
        """The frame of :meth:`coded_rows`' ``table``, its coded strings as the
        file's declared types (safe in any thread: it reads no file)."""
        return self._frame(table)

    def _groups(self, key: str, wanted: list[str]
                ) -> Iterator[tuple[int, list[tuple[str | None, int, int]] | None, bool]]:
        """(group, its :meth:`_stretches` of ``key`` or None if not known yet,
        whether its statistics bound it) of each row group that may hold a
        row whose ``key`` is one of ``wanted`` (sorted), by the group's
        min/max statistics of ``key`` (:meth:`_bounds`)."""
        for g, low, high, rows, one in self._bounds(key):
            if low is not None:
                at = bisect.bisect_left(wanted, low)
                if at == len(wanted) or wanted[at] > high:
                    continue  # (no wanted value between the bounds)
                if one:
                    yield g, [(low, 0, rows)], True  # (one value: no need to look)
                    continue
            yield g, self._stretch.get((g, key)), low is not None

    def _bounds(self, key: str) -> list[tuple[int, str | None, str | None, int, bool]]:
        """(group, min, max, rows, one value and no null) of ``key`` for each row
        group holding rows, from its statistics, bounds of its values (the
        ingest writes them); min and max None: a group without them (a file
        written without, a value too long for them) may hold any value.  Read
        from the footer once per key."""
        if key not in self._bound:
            meta, out = self._pf.metadata, []
            j = [meta.schema.column(i).path for i in range(meta.num_columns)].index(key)
            for g in range(meta.num_row_groups):
                group = meta.row_group(g)
                if group.num_rows:
                    stats = group.column(j).statistics
                    if stats is None or not stats.has_min_max:
                        out.append((g, None, None, group.num_rows, False))
                    else:
                        out.append((g, stats.min, stats.max, group.num_rows,
                                    stats.min == stats.max and stats.has_null_count
                                    and not stats.null_count))
            self._bound[key] = out
        return self._bound[key]

    def _stretches(self, g: int, key: str, column: pa.ChunkedArray
                   ) -> list[tuple[str | None, int, int]]:
        """(value, first row, rows) of each stretch of equal values (None: null)
        of ``column``, row group ``g``'s ``key`` (coded), kept for the next
        batches (a few per group)."""
        import numpy as np

        out, offset = [], 0
        for chunk in column.chunks:
            # (codes through polars: pyarrow's to_numpy loads pandas; -1: null)
            codes = pl.from_arrow(chunk.indices).fill_null(-1).to_numpy()
            if len(codes):
                starts = np.concatenate(([0], np.flatnonzero(codes[1:] != codes[:-1]) + 1))
                ends = np.append(starts[1:], len(codes))
                names = chunk.dictionary.to_pylist()
                out += [(names[codes[a]] if codes[a] >= 0 else None, offset + int(a), int(b - a))
                        for a, b in zip(starts, ends, strict=True)]
            offset += len(chunk)
        self._stretch[g, key] = out
        return out


def _ranges(stretches: list[tuple[str, int, int]], wanted: frozenset
            ) -> Iterator[tuple[int, int]]:
    """(first row, rows) of the runs of consecutive ``stretches`` whose value is
    wanted, in order."""
    start = end = None
    for value, first, n in stretches:
        if value in wanted:
            if start is None:
                start = first
            end = first + n
        elif start is not None:
            yield start, end - start
            start = None
    if start is not None:
        yield start, end - start
