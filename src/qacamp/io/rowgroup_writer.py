"""Parquet written a row group at a time, the row groups encoded in threads
when asked (:class:`RowGroupWriter`): the bytes of writing the whole frame
at once (:func:`qacamp.io.writers.parquet_bytes`).

Written in row groups of one chunk per column, the string columns the first
row group has coded as dictionaries (polars Enums) are handed to the Parquet
writer as string views (:func:`_writer_schema`): a coded column is looked up
by copying each row's 16-byte view of its value (:func:`_looked_up`), not
the value's bytes.  Parquet stores a
string the same whatever its Arrow type; the one trace of the Arrow type is
the schema pyarrow keeps in the footer, written here as pyarrow writes it for
the declared schema (:func:`_footer_metadata`), so the bytes are the same."""

from __future__ import annotations

import contextlib
import os
from collections import deque
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING

from .joined import JoinedFile
from .verified import _is_string

if TYPE_CHECKING:  # (pyarrow is imported where it is used: `qacamp eval` needs no Parquet)
    import pyarrow as pa
    import pyarrow.parquet as pq

WRITE_OPTIONS = {"compression": "zstd", "compression_level": 3, "use_dictionary": True,
                 "write_statistics": False, "write_page_checksum": True}
#: Rows per row group: pyarrow's default, what :func:`qacamp.io.writers.parquet_bytes` writes.
ROW_GROUP = 1024 * 1024


def write_options(statistics: Sequence[str] = ()) -> dict:
    """:data:`WRITE_OPTIONS`, with min/max statistics for the columns
    ``statistics`` only (the sort keys readers select row groups by; a
    file's bytes depend only on its rows, its row groups and these columns)."""
    return WRITE_OPTIONS | ({"write_statistics": list(statistics)} if statistics else {})


class RowGroupWriter:
    """Arrow tables appended in order, written to ``sink`` a row group at a time:
    the bytes of :func:`qacamp.io.writers.parquet_bytes` of the frame they
    concatenate to (one chunk per row group with ``one_chunk``, else the
    parts' chunks), with statistics for the columns ``statistics``.  With
    ``one_chunk`` a part's column may be a dictionary of the declared type
    (a polars Enum): its rows are kept coded until their row group is
    written.

    ``threads`` above 1: the row groups are made and encoded in that many
    threads, each as a Parquet file of its own, and joined in order
    (:class:`qacamp.io.joined.JoinedFile`: the same bytes); at most
    ``threads`` row groups are held being encoded.  ``sink``: a path, or a
    writable stream."""

    def __init__(self, sink, schema: pa.Schema, one_chunk: bool, row_group: int = ROW_GROUP,
                 statistics: Sequence[str] = (), threads: int = 1):
        import pyarrow as pa

        if row_group < 1:
            raise ValueError(f"row_group must be at least 1, not {row_group}")
        self.schema, self.one_chunk, self.row_group = schema, one_chunk, row_group
        self._options = write_options(statistics)
        # the schema handed to the Parquet writer, and the footer's metadata it
        # lacks: fixed by the first row group (:meth:`_hand`)
        self._schema: pa.Schema | None = None
        self._metadata: dict[bytes, bytes] | None = None
        self._sink = sink
        self._pending: list[pa.Table] = []
        self._held = self.written = 0
        self._threads = max(1, threads)
        self._writer = self._joined = self._pool = self._own_sink = None
        self._encoding: deque[Future] = deque()
        if self._threads == 1:
            return
        if isinstance(sink, str | os.PathLike):
            sink = self._own_sink = pa.OSFile(os.fspath(sink), "wb")
        try:
            self._joined = JoinedFile(sink)
        except BaseException:
            self._close_sink()
            raise
        self._pool = ThreadPoolExecutor(self._threads, thread_name_prefix="qacamp-encode")

    def _hand(self, parts: list[pa.Table]) -> None:
        """Fix the schema handed to the Parquet writer by the first row group's
        ``parts``: with ``one_chunk``, its string columns coded as
        dictionaries as string views (module docstring); the declared schema
        otherwise, or if its footer holds more than the schema."""
        import pyarrow as pa

        if self._schema is not None:
            return
        self._schema = self.schema
        if not self.one_chunk:
            return
        coded = {i for p in parts for i, column in enumerate(p.columns)
                 if any(pa.types.is_dictionary(c.type) for c in column.chunks)}
        views = _writer_schema(self.schema, coded)
        if not views.equals(self.schema):
            self._metadata = _footer_metadata(self.schema, self._options)
            if self._metadata is not None:
                self._schema, self._options = views, self._options | {"store_schema": False}

    def _parquet_writer(self, sink) -> pq.ParquetWriter:
        import pyarrow.parquet as pq

        writer = pq.ParquetWriter(sink, self._schema, **self._options)
        if self._metadata is not None:  # (kept until it is closed)
            writer.add_key_value_metadata(self._metadata)
        return writer

    def add(self, part: pa.Table) -> None:
        if not part.num_rows:
            return
        self._pending.append(part)
        self._held += part.num_rows
        if self._held < self.row_group:
            return
        split = False
        while self._held >= self.row_group:  # (only the rows written are copied)
            group, self._pending, split = _cut(self._pending, self.row_group)
            self._write([group])
            del group
            self.written += self.row_group
            self._held -= self.row_group
        if self.one_chunk and split:
            # the rows left of a part partly written copied: as a slice they
            # would keep the whole part alive until the next row group (its
            # dictionary columns are kept: their codes are small)
            self._pending[0] = _own(self._pending[0])

    def _table(self, parts: list[pa.Table]) -> pa.Table:
        import pyarrow as pa

        if not parts:
            return pa.Table.from_batches([], schema=self._schema)
        if self.one_chunk:
            return pa.Table.from_arrays(
                [_one_array([c for p in parts for c in p.column(i).chunks], field.type)
                 for i, field in enumerate(self._schema)], schema=self._schema)
        return pa.concat_tables(parts)

    def _encoded(self, held: list[list[pa.Table]]) -> pa.Buffer:
        """The parts ``held`` holds as a Parquet file of one row group (in a
        thread of the pool; they are let go once their table is made)."""
        import pyarrow as pa

        table = self._table(held.pop())
        sink = pa.BufferOutputStream()
        writer = self._parquet_writer(sink)
        writer.write_table(table, row_group_size=self.row_group)
        writer.close()
        return sink.getvalue()

    def _write(self, held: list[list[pa.Table]]) -> None:
        """Write the row group of the parts ``held`` holds (let go once its
        table is made: a row group's rows are not held twice while it is
        encoded)."""
        self._hand(held[0])
        if self._threads == 1:
            if self._writer is None:
                self._writer = self._parquet_writer(self._sink)
            self._writer.write_table(self._table(held.pop()), row_group_size=self.row_group)
            return
        self._encoding.append(self._pool.submit(self._encoded, held))
        while len(self._encoding) >= self._threads:  # (the oldest joined once it is done)
            self._joined.append(self._encoding.popleft().result())

    def _close_sink(self) -> None:
        if self._own_sink is not None:
            self._own_sink.close()

    def abandon(self) -> None:
        """Stop writing (the caller discards the file): the Parquet writer is
        closed here, while its sink is open, not by the garbage collector
        (the row groups being encoded are waited for and dropped)."""
        self._pending, self._held = [], 0
        if self._threads == 1:
            if self._writer is not None:
                with contextlib.suppress(Exception):
                    self._writer.close()
            return
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._encoding.clear()
        with contextlib.suppress(Exception):
            self._close_sink()

    def close(self) -> None:
        try:
            if self._held or not self.written:  # (an empty table is one row group of no rows)
                held, self._pending, self._held = [self._pending], [], 0
                self._write(held)
            if self._threads == 1:
                self._writer.close()
                return
            while self._encoding:
                self._joined.append(self._encoding.popleft().result())
            self._joined.close()
        except BaseException:
            self.abandon()
            raise
        self._pool.shutdown()
        self._close_sink()


def _writer_schema(schema: pa.Schema, columns: set[int]) -> pa.Schema:
    """``schema`` with its string columns among ``columns`` (positions) as
    string views (module docstring)."""
    import pyarrow as pa

    return pa.schema([f.with_type(pa.string_view()) if i in columns and _is_string(f.type)
                      else f for i, f in enumerate(schema)], metadata=schema.metadata)


def _footer_metadata(schema: pa.Schema, options: dict) -> dict[bytes, bytes] | None:
    """The key-value metadata pyarrow writes in the footer of a file of
    ``schema``, read from such a file of no rows written with ``options``,
    if it is the serialized schema alone (None otherwise: a schema with
    metadata of its own is written as declared)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.ParquetWriter(sink, schema, **options).close()
    found = pq.read_metadata(pa.BufferReader(sink.getvalue())).metadata or {}
    return dict(found) if list(found) == [b"ARROW:schema"] else None


def _looked_up(d: pa.DictionaryArray) -> pa.Array:
    """The string views of dictionary array ``d``'s values (a dictionary of
    strings without nulls): each row's view copied from its dictionary
    value's (a short string lies in its view; a longer one stays in the
    dictionary's buffers, which the array keeps)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    dictionary = d.dictionary.cast(pa.string_view())
    buffers = dictionary.buffers()
    views = np.frombuffer(buffers[1], dtype="S16", count=len(dictionary),
                          offset=16 * dictionary.offset)
    index = d.indices
    width = index.type.bit_width // 8
    kind = "u" if pa.types.is_unsigned_integer(index.type) else "i"
    # (the positions as numpy's take wants them, and the views, in buffers of
    # Arrow's memory pool, as every other column's, not in numpy's own)
    at = np.frombuffer(pa.allocate_buffer(np.dtype(np.intp).itemsize * len(d)), dtype=np.intp)
    at[:] = np.frombuffer(index.buffers()[1], dtype=f"{kind}{width}", count=len(index),
                          offset=width * index.offset)
    # ("clip": the codes of a valid dictionary array are in range, and numpy
    # copies its output for "raise"; a null row's code may be any number, its
    # view is not read)
    got = pa.allocate_buffer(16 * len(d))
    views.take(at, out=np.frombuffer(got, dtype="S16"), mode="clip")
    valid = pc.is_valid(d).buffers()[1] if d.null_count else None
    return pa.Array.from_buffers(pa.string_view(), len(d), [valid, got, *buffers[2:]],
                                 null_count=d.null_count)


def _one_array(chunks: list[pa.Array], type_: pa.DataType) -> pa.Array:
    """``chunks`` as one array of ``type_`` (:func:`_writer_schema`), dictionaries
    as their values looked up: chunks all dictionaries of one type are joined
    first (their codes and small dictionaries), so the values are looked up
    once."""
    import pyarrow as pa

    def values(d: pa.Array) -> pa.Array:
        if pa.types.is_string_view(type_) and not d.dictionary.null_count:
            return _looked_up(d)
        v = d.dictionary.take(d.indices)
        return v if v.type == type_ else v.cast(type_)

    if not any(pa.types.is_dictionary(c.type) for c in chunks):
        out = pa.concat_arrays(chunks)
        return out if out.type == type_ else out.cast(type_)
    kind = chunks[0].type
    if all(c.type == kind for c in chunks) and sum(len(c.dictionary) for c in chunks) <= \
            1 << (kind.index_type.bit_width - (0 if pa.types.is_unsigned_integer(
                kind.index_type) else 1)):  # (their joined dictionary fits their codes)
        return values(pa.concat_arrays(chunks))
    return pa.concat_arrays([values(c) if pa.types.is_dictionary(c.type)
                             else c if c.type == type_ else c.cast(type_) for c in chunks])


def _own(part: pa.Table) -> pa.Table:
    """``part`` (a slice) with its columns of plain values copied (one chunk)."""
    import pyarrow as pa

    return pa.Table.from_arrays(
        [c if pa.types.is_dictionary(c.type) else pa.concat_arrays(c.chunks)
         for c in part.columns], names=part.column_names)


def _cut(parts: list[pa.Table], rows: int) -> tuple[list[pa.Table], list[pa.Table], bool]:
    """``parts`` cut after their first ``rows`` rows (slices, not copies), and
    whether the cut fell inside a part (the rest then starts with its slice)."""
    head, tail = [], list(parts)
    while rows and tail:
        part = tail.pop(0)
        if part.num_rows <= rows:
            head.append(part)
            rows -= part.num_rows
        else:
            head.append(part.slice(0, rows))
            tail.insert(0, part.slice(rows))
            return head, tail, True
    return head, tail, False


def write_row_groups(sink, parts: Iterable[pa.Table], schema: pa.Schema, one_chunk: bool,
                     row_group: int = ROW_GROUP, statistics: Sequence[str] = (),
                     threads: int = 1) -> None:
    writer = RowGroupWriter(sink, schema, one_chunk, row_group, statistics, threads)
    try:
        for part in parts:
            writer.add(part)
    except BaseException:
        writer.abandon()
        raise
    writer.close()


__all__ = ["ROW_GROUP", "WRITE_OPTIONS", "RowGroupWriter", "write_options", "write_row_groups"]
