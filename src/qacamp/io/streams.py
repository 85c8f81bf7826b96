"""Parquet written a row group at a time, and frames kept on disk while a
command runs.

:class:`RowGroupWriter` writes rows as they come, holding one row group: the
bytes :func:`~.parquet.parquet_bytes` gives for all of them at once.
:class:`SortedWriter` writes parts each sorted on a key (a batch of runs'
score rows) in the order of their stable sort, each row group encoded once.
:class:`Spill` keeps frames in an unnamed temporary file (``qacamp
ingest``'s run tables, a score table's rows of a later judgment set).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import polars as pl

from ..errors import OutputError
from .parquet import ROW_GROUP, WRITE_OPTIONS, decode

if TYPE_CHECKING:
    import pyarrow as pa


class RowGroupWriter:
    """Rows appended in order (:meth:`add`, Arrow tables of ``schema``) written
    to ``sink`` as one Parquet file, a row group (``row_group`` rows) held at
    a time: the bytes of :func:`parquet_bytes` of the concatenated frame, which
    is one chunk per row group (``one_chunk``, a sorted frame) or the parts'
    chunks.  :meth:`close` ends the file."""

    def __init__(self, sink, schema: pa.Schema, one_chunk: bool, row_group: int = ROW_GROUP):
        import pyarrow.parquet as pq

        if row_group < 1:
            raise ValueError(f"row_group must be at least 1, not {row_group}")
        self.schema, self.one_chunk, self.row_group = schema, one_chunk, row_group
        self._writer = pq.ParquetWriter(sink, schema, **WRITE_OPTIONS)
        self._pending: list[pa.Table] = []
        self._held = self.written = 0

    def _joined(self) -> pa.Table:
        import pyarrow as pa
        table = pa.concat_tables(self._pending) if self._pending else \
            pa.Table.from_batches([], schema=self.schema)
        return table.combine_chunks() if self.one_chunk else table

    def add(self, part: pa.Table) -> None:
        if not part.num_rows:
            return
        self._pending.append(part)
        self._held += part.num_rows
        while self._held >= self.row_group:  # (only the rows written are copied)
            import pyarrow as pa
            table = pa.concat_tables(self._pending)
            group = table.slice(0, self.row_group)
            self._writer.write_table(group.combine_chunks() if self.one_chunk else group,
                                     row_group_size=self.row_group)
            self.written += self.row_group
            rest = table.slice(self.row_group)
            self._pending, self._held = [rest], rest.num_rows

    def close(self) -> None:
        if self._held or not self.written:  # (an empty table is one row group of no rows)
            self._writer.write_table(self._joined(), row_group_size=self.row_group)
        self._pending, self._held = [], 0
        self._writer.close()


def write_row_groups(sink, parts: Iterable[pa.Table], schema: pa.Schema, one_chunk: bool,
                     row_group: int = ROW_GROUP) -> None:
    """The rows of ``parts`` (in order) to ``sink`` (:class:`RowGroupWriter`)."""
    writer = RowGroupWriter(sink, schema, one_chunk, row_group)
    for part in parts:
        writer.add(part)
    writer.close()


def _before(a, b) -> bool:
    """``a`` sorts before ``b`` (nulls last)."""
    return b is None and a is not None or a is not None and b is not None and a < b


class SortedWriter:
    """Parts each sorted on ``key`` (nulls last: a batch of runs' rows of a
    score table) written to the Parquet file ``path`` in the order of their
    stable sort on ``key``: for each value in order, every part's rows of that
    value in part order, one chunk per row group.  Rows of the smallest value
    seen go straight to the file, the others wait in ``spill`` until
    :meth:`close` (a smaller value coming later takes the file's rows back
    to the spill first), so a campaign judged once is written once."""

    def __init__(self, path: str, schema: pa.Schema, key: str, spill: Spill,
                 row_group: int = ROW_GROUP) -> None:
        self.path, self.schema, self.key, self.spill = path, schema, key, spill
        self.row_group, self._head, self._later = row_group, (), {}
        self._writer = RowGroupWriter(path, schema, True, row_group)

    def add(self, part: pa.Table) -> None:
        counts = pl.from_arrow(part.select([self.key])).group_by(
            self.key, maintain_order=True).len()
        start = 0
        for value, n in counts.iter_rows():
            rows = part.slice(start, n)
            start += n
            if self._head == ():
                self._head = value
            if value != self._head and _before(value, self._head):
                self._take_back()
                self._head = value
            if value == self._head:
                self._writer.add(rows)
            else:
                self._later.setdefault(value, []).append(self.spill.put_arrow(rows))

    def _take_back(self) -> None:
        """The rows written so far (all of the head value) to the spill."""
        import pyarrow.parquet as pq

        self._writer.close()
        f = pq.ParquetFile(self.path)
        kept = [self.spill.put_arrow(decode(lambda g=g: f.read_row_group(g)))
                for g in range(f.num_row_groups)]
        f.close()
        self._later[self._head] = kept + self._later.get(self._head, [])
        self._writer = RowGroupWriter(self.path, self.schema, True, self.row_group)

    def close(self) -> None:
        for value in sorted(self._later, key=lambda v: (v is None, v or "")):
            for handle in self._later[value]:
                self._writer.add(self.spill.get(handle))
        self._writer.close()


SPILL_FIX = ("free space in the temporary folder (TMPDIR), or point TMPDIR at a disk with room, "
             "then rerun (nothing partial was kept)")


class Spill:
    """Frames kept on disk while a command runs (``qacamp ingest``'s run
    tables): Arrow IPC (LZ4) in one unnamed temporary file, which the system
    removes however the process ends; a frame is read back batch for batch as
    written (its chunks decide where Parquet pages end)."""

    def __init__(self, fh) -> None:
        self.fh, self.spans, self.end = fh, [], 0

    def put(self, df: pl.DataFrame) -> int:
        """Write ``df``; returns its handle."""
        return self.put_arrow(df.to_arrow())

    def put_arrow(self, table: pa.Table) -> int:
        """Write the Arrow ``table``; returns its handle."""
        import pyarrow as pa

        sink = pa.BufferOutputStream()
        with pa.ipc.new_file(sink, table.schema,
                             options=pa.ipc.IpcWriteOptions(compression="lz4")) as w:
            for batch in table.to_batches():
                w.write_batch(batch)
        data, start = memoryview(sink.getvalue()).cast("B"), self.end
        try:
            while data:
                n = os.pwrite(self.fh.fileno(), data[: 1 << 24], self.end)
                data, self.end = data[n:], self.end + n
        except OSError as exc:
            raise OutputError(tempfile.gettempdir(), os.strerror(exc.errno) if exc.errno
                              else str(exc), SPILL_FIX) from None
        self.spans.append((start, self.end - start))
        return len(self.spans) - 1

    def get(self, handle: int) -> pa.Table:
        """The frame of ``handle`` as an Arrow table, batch for batch as written."""
        import pyarrow as pa

        start, size = self.spans[handle]
        data = os.pread(self.fh.fileno(), size, start)
        while len(data) < size:
            more = os.pread(self.fh.fileno(), size - len(data), start + len(data))
            if not more:
                raise OutputError(tempfile.gettempdir(), "the spill file was cut short", SPILL_FIX)
            data += more
        return pa.ipc.open_file(pa.py_buffer(data)).read_all()

    def frame(self, handle: int) -> pl.DataFrame:
        """The frame of ``handle`` (polars)."""
        return pl.from_arrow(self.get(handle), rechunk=False)


@contextlib.contextmanager
def spilling(prefix: str = "qacamp-spill-") -> Iterator[Spill]:
    """A :class:`Spill` in a new unnamed temporary file, gone when the block
    ends or the process dies."""
    try:
        fh = tempfile.TemporaryFile(prefix=prefix)
    except OSError as exc:
        raise OutputError(tempfile.gettempdir(), exc.strerror or str(exc), SPILL_FIX) from None
    with fh:
        yield Spill(fh)
