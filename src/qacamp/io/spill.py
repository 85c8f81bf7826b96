"""The spill file of a command: frames kept on disk while it runs (the
ingest's run tables, the score files' parts waiting for their place)."""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

import polars as pl

from ..errors import OutputError

if TYPE_CHECKING:
    import pyarrow as pa

PLAIN_BYTES = 2 << 30
"""Bytes a spill file holds uncompressed before the frames put in it are
LZ4-compressed: compressing and decompressing cost about 8% of a 10 M-response
ingest's CPU for a file 2.7 times smaller, which matters only for the largest
campaigns (``benchmarks/README.md``, "Ingest memory")."""

SPILL_FIX = ("free space in the temporary folder (TMPDIR), or point TMPDIR at a disk with room, "
             "then rerun (nothing partial was kept)")


class Spill:
    """Frames kept on disk while a command runs: Arrow IPC in one unnamed
    temporary file, uncompressed while it holds less than ``plain_bytes``
    (:data:`PLAIN_BYTES`), LZ4-compressed after; read back batch for batch as
    written (threads may put and get at once)."""

    def __init__(self, fh, plain_bytes: int = PLAIN_BYTES) -> None:
        self.fh, self.spans, self.end = fh, [], 0
        self.plain_bytes = plain_bytes
        self._lock = threading.Lock()

    def put(self, frame: pl.DataFrame | pa.Table) -> int:
        """Write ``frame`` (polars or Arrow); returns its handle."""
        import pyarrow as pa

        table = frame.to_arrow() if isinstance(frame, pl.DataFrame) else frame
        sink = pa.BufferOutputStream()
        # (``end`` read without the lock: a put racing another may take either form)
        compression = None if self.end < self.plain_bytes else "lz4"
        with pa.ipc.new_file(sink, table.schema,
                             options=pa.ipc.IpcWriteOptions(compression=compression)) as w:
            for batch in table.to_batches():
                w.write_batch(batch)
        data = memoryview(sink.getvalue()).cast("B")
        with self._lock:
            start = self.end
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
        return pl.from_arrow(self.get(handle), rechunk=False)


@contextlib.contextmanager
def spilling(prefix: str = "qacamp-spill-", plain_bytes: int = PLAIN_BYTES) -> Iterator[Spill]:
    """A :class:`Spill` in a new unnamed temporary file, gone when the block ends."""
    try:
        fh = tempfile.TemporaryFile(prefix=prefix)
    except OSError as exc:
        raise OutputError(tempfile.gettempdir(), exc.strerror or str(exc), SPILL_FIX) from None
    with fh:
        yield Spill(fh, plain_bytes)


__all__ = ["PLAIN_BYTES", "SPILL_FIX", "Spill", "spilling"]
