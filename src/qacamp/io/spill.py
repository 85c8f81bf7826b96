"""Frames kept on disk while one command runs (a spill folder).

``qacamp ingest`` reads a campaign's run files one at a time; the rows that
grow with the runs (responses, judgments, nugget matches) go to a private
temporary folder (:func:`spilling`: ``tempfile``'s folder, ``TMPDIR``, never an
output folder) as Arrow IPC files, and only small facts stay in memory.  The
folder and everything in it is removed when the block ends, on every exit
path (an error, an interrupt).  A frame is read back with the record batches
it was written with (:meth:`Spill.get`), so its chunk layout, which decides
where Parquet pages end, is kept.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from ..errors import OutputError

if TYPE_CHECKING:
    import pyarrow as pa

SPILL_FIX = ("free space in the temporary folder (TMPDIR), or point TMPDIR at a disk with room, "
             "then rerun (nothing partial was kept)")


class Spill:
    """Frames written to ``folder`` (one Arrow IPC file each, LZ4-compressed),
    named by the handle :meth:`put` returns."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.count = 0

    def put(self, df: pl.DataFrame) -> int:
        """Write ``df`` (its chunks as record batches); returns its handle."""
        import pyarrow as pa

        handle = self.count
        self.count += 1
        table = df.to_arrow()
        try:
            with pa.OSFile(str(self._path(handle)), "wb") as sink, \
                    pa.ipc.new_file(sink, table.schema,
                                    options=pa.ipc.IpcWriteOptions(compression="lz4")) as w:
                for batch in table.to_batches():
                    w.write_batch(batch)
        except OSError as exc:
            reason = os.strerror(exc.errno) if exc.errno else " ".join(str(exc).split())[:160]
            raise OutputError(self.folder, reason, SPILL_FIX) from None
        return handle

    def get(self, handle: int) -> pa.Table:
        """The frame of ``handle`` as an Arrow table, batch for batch as written."""
        import pyarrow as pa

        with pa.OSFile(str(self._path(handle)), "rb") as source:
            return pa.ipc.open_file(source).read_all()

    def frame(self, handle: int) -> pl.DataFrame:
        """The frame of ``handle`` (polars)."""
        return pl.from_arrow(self.get(handle), rechunk=False)

    def _path(self, handle: int) -> Path:
        return self.folder / f"{handle}.arrow"


@contextlib.contextmanager
def spilling(prefix: str = "qacamp-spill-") -> Iterator[Spill]:
    """A :class:`Spill` in a new private temporary folder, removed with its
    files when the block ends, however it ends."""
    try:
        folder = tempfile.TemporaryDirectory(prefix=prefix)
    except OSError as exc:
        raise OutputError(tempfile.gettempdir(), exc.strerror or str(exc), SPILL_FIX) from None
    with folder as name:
        yield Spill(Path(name))


__all__ = ["Spill", "spilling", "SPILL_FIX"]
