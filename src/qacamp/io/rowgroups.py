"""Verified Parquet read a row group at a time: the run tables `qacamp score`
decodes batch by batch of runs (:class:`RowGroups`, from a private copy of
the file made while it is hashed and checked against qacamp's record)."""

from __future__ import annotations

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


def read_row_groups(path: str | Path, schema: dict, columns: list[str] | None = None
                    ) -> RowGroups:
    """A Parquet file qacamp wrote, read a row group at a time from a private
    copy (an unnamed temporary file) made while it is hashed and verified."""
    import pyarrow as pa

    path = Path(path)
    fd, _st, rec = _open(path, None)
    copy = None

    def copying(call, *args):  # (a failure of the copy: no room in the temporary folder)
        try:
            return call(*args)
        except OSError as exc:
            raise InputError(path, None, "cannot make a private copy of it in the temporary "
                             f"folder {tempfile.gettempdir()} ({exc.strerror or exc})",
                             "free space there, or set TMPDIR to a folder with space") from None
    try:
        copy = copying(tempfile.TemporaryFile)
        h, size = hashlib.sha256(), 0
        while block := os.read(fd, 1 << 26):
            h.update(block)
            size += len(block)
            copying(copy.write, block)
        copying(copy.flush)
        _check(path, rec, h.hexdigest(), size)
    except BaseException as exc:
        if copy is not None:
            copy.close()
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
        self._values: dict[str, list[frozenset]] = {}  # key column -> its values per group
        self._last: tuple[tuple[int, tuple[str, ...]], pa.Table] | None = None
        #: the stretches of equal key values of the kept group (:meth:`_stretches`)
        self._stretch: tuple[tuple, list[tuple[str, int, int]]] | None = None

    def close(self) -> None:
        self._last = self._stretch = None
        self._close()

    def __enter__(self) -> RowGroups:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _read(self, pf, g: int, columns: list[str]) -> pa.Table:
        try:
            return decode(lambda: pf.read_row_group(g, columns=columns, use_threads=False))
        except Damaged as exc:
            raise self._error(exc) from None

    def _coded_group(self, g: int, columns: list[str]) -> pa.Table:
        return self._read(self._coded, g, columns)

    def _kept_group(self, g: int, columns: list[str]) -> pa.Table:
        """Row group ``g``'s ``columns``, strings coded: the last one is kept
        (consecutive batches of runs share one), holding each distinct
        string once; the one before is freed before this one is decoded."""
        if self._last is None or self._last[0] != (g, tuple(columns)):
            self._last = self._stretch = None
            self._last = ((g, tuple(columns)), self._coded_group(g, columns))
        return self._last[1]

    def _plain(self, table: pa.Table) -> pa.Table:
        """``table`` with its coded strings as the file's declared types."""
        import pyarrow as pa

        return pa.table([c.cast(self._types[name]) if pa.types.is_dictionary(c.type) else c
                         for name, c in zip(table.column_names, table.columns, strict=True)],
                        names=table.column_names)

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
            yield pl.from_arrow(self._plain(self._kept_group(g, columns)))

    def each(self, columns: list[str], func: Callable[[pl.DataFrame], T],
             threads: int | None = None) -> list[T]:
        """``func`` of each row group's ``columns`` (strings as Categorical; one
        empty frame if the file has no row group), in order: the groups are
        decoded and ``func`` runs in ``threads`` threads
        (:func:`qacamp.ordered.in_order`), each with its own reader of the copy."""
        if not self._pf.num_row_groups:
            return [func(self._empty(columns))]
        local = threading.local()

        def one(g: int) -> T:
            if getattr(local, "file", None) is None:
                local.file = self._opener(self._strings)
            return func(pl.from_arrow(self._read(local.file, g, columns)))

        return [result() for result in in_order(
            (functools.partial(one, g) for g in range(self._pf.num_row_groups)), threads)]

    def coded_rows(self, key: str, values: Iterable[str], columns: list[str] | None = None
                   ) -> pa.Table:
        """The rows whose ``key`` is one of ``values``, in file order, their
        strings still coded (dictionary columns, as decoded): reading is the
        source's own (one thread, in order); :meth:`plain` makes the frame of
        it in any thread."""
        import pyarrow as pa
        import pyarrow.compute as pc

        columns, wanted = list(columns or self.columns), frozenset(values)
        if key not in self._values:
            self._values[key] = [frozenset(self._coded_group(g, [key]).column(0).unique()
                                           .to_pylist()) for g in range(self._pf.num_row_groups)]
        parts = []
        for g, present in enumerate(self._values[key]):
            if present & wanted:
                table = self._kept_group(g, columns)
                if not present <= wanted:
                    stretches = self._stretches(g, columns, key, table)
                    if stretches is None:  # (a key with nulls: no stretches to slice)
                        col = table.column(key)
                        values = pa.array(sorted(wanted), type=col.type.value_type
                                          if pa.types.is_dictionary(col.type) else col.type)
                        table = table.filter(pc.is_in(col, value_set=values))
                    else:
                        table = pa.concat_tables(
                            [table.slice(start, n) for start, n in _ranges(stretches, wanted)])
                parts.append(table)
        return pa.concat_tables(parts) if parts else self._empty_table(columns)

    def plain(self, table: pa.Table) -> pl.DataFrame:
        """The frame of :meth:`coded_rows`' ``table``, its coded strings as the
        file's declared types (safe in any thread: it reads no file)."""
        return pl.from_arrow(self._plain(table))

    def _stretches(self, g: int, columns: list[str], key: str, table: pa.Table
                   ) -> list[tuple[str, int, int]] | None:
        """(value, first row, rows) of each stretch of equal ``key`` values of
        the kept row group ``table`` (the run tables are sorted with the run
        among the leading keys: a batch's runs are a few stretches, sliced
        without a copy); None when the column has nulls.  Kept with the group."""
        import numpy as np
        import pyarrow as pa

        ident = (g, tuple(columns), key)
        if self._stretch is not None and self._stretch[0] == ident:
            return self._stretch[1]
        col = table.column(key)
        if col.null_count or not pa.types.is_dictionary(col.type):
            return None
        out, offset = [], 0
        for chunk in col.chunks:
            codes = pl.from_arrow(chunk.indices).to_numpy()  # (pyarrow's to_numpy loads pandas)
            if len(codes):
                starts = np.concatenate(([0], np.flatnonzero(codes[1:] != codes[:-1]) + 1))
                ends = np.append(starts[1:], len(codes))
                names = chunk.dictionary.to_pylist()
                out += [(names[codes[a]], offset + int(a), int(b - a))
                        for a, b in zip(starts, ends, strict=True)]
            offset += len(chunk)
        self._stretch = (ident, out)
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
