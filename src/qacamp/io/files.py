"""Writing files atomically and deterministically, and the command's spill file.

Every output is written to a temporary file in the writing process's own
temporary folder inside the destination's marker and renamed into place when
its :func:`~qacamp.io.writing` block ends, with its record; a writer called
outside a block is a block of its own (one file, claimed and recorded).
Parquet is written with fixed options (:mod:`.parquet`), so identical frames
give identical bytes.  An operating-system failure (full disk, no
permission) is an :class:`~qacamp.errors.OutputError` naming the file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from ..errors import InputError, OutputError
from . import records
from .outputs import active, file_mode, writing
from .parquet import ROW_GROUP, parquet_bytes, write_row_groups
from .verified import check_parquet

if TYPE_CHECKING:
    import pyarrow as pa


def output_error(path: str | Path, exc: OSError) -> OutputError:
    """The project's error for an operating-system failure while writing ``path``."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    return OutputError(path, reason, "free disk space or fix the folder's permissions, then "
                       "rerun (nothing partial was kept)")


@contextlib.contextmanager
def _staging(path: str | Path, suffix: str, create: bool = True):
    """``(temporary path, finish)``: write the temporary, then call
    ``finish(sha256, size)`` to stage it for ``path``; on failure it is gone."""
    w = active()
    with contextlib.nullcontext(w) if w is not None else writing("qacamp.io", files=[path]) as w:
        try:
            target, root = w.prepare(path)
            tmp = w.temp(target, root, suffix, create)
        except OSError as exc:
            raise output_error(path, exc) from None

        def finish(sha: str | None, size: int | None) -> None:
            os.chmod(tmp, file_mode())
            w.stage(target, root, tmp, sha, size)
        try:
            yield tmp, finish
        except BaseException as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            if isinstance(exc, OSError):
                raise output_error(path, exc) from None
            raise


@contextlib.contextmanager
def atomic_path(path: str | Path, suffix: str = "", create: bool = True,
                hashed: bool = True) -> Iterator[Path]:
    """A temporary path for a writer that needs one; on success it becomes
    ``path``, on failure it is deleted.  ``create=False``: the path does not
    exist yet; ``hashed=False``: the record holds no SHA-256 (DuckDB)."""
    with _staging(path, suffix or ".tmp", create) as (tmp, finish):
        yield tmp
        finish(records.sha256_file(tmp) if hashed else None,
               os.path.getsize(tmp) if hashed else None)


def write_all(fd: int, view: memoryview) -> None:
    """Write every byte of ``view`` to the descriptor ``fd``."""
    while view:
        n = os.write(fd, view[: 1 << 24])
        view = view[n:]


def write_bytes(data, path: str | Path, suffix: str = ".tmp") -> None:
    """Write ``data`` (bytes or a buffer) atomically; hashed from memory."""
    view = memoryview(data).cast("B")
    with _staging(path, suffix) as (tmp, finish):
        fd = os.open(tmp, os.O_WRONLY | os.O_CLOEXEC)
        try:
            write_all(fd, view)
        finally:
            os.close(fd)
        finish(records.sha256_bytes(view), view.nbytes)


def write_parquet(df: pl.DataFrame, path: str | Path) -> None:
    """Write ``df`` atomically with deterministic options and page checksums."""
    write_bytes(parquet_bytes(df), path, ".parquet")


def write_parquet_parts(parts: Iterable[pa.Table], schema: pa.Schema, path: str | Path, *,
                        one_chunk: bool, row_group: int = ROW_GROUP) -> None:
    """Write the rows of ``parts`` (Arrow tables, in order) as one Parquet file a
    row group at a time (the bytes :func:`write_parquet` writes for the frame
    they concatenate to), atomically and recorded."""
    import pyarrow as pa

    with atomic_path(path, ".parquet") as tmp:
        try:
            with pa.OSFile(str(tmp), "wb") as sink:
                write_row_groups(sink, parts, schema, one_chunk, row_group)
        except OSError as exc:  # pyarrow's words: "Error writing bytes to file. Detail: ..."
            raise (OSError(exc.errno, os.strerror(exc.errno)) if exc.errno else exc) from None


def write_text(text: str, path: str | Path) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends) atomically."""
    write_bytes(text.encode("utf-8"), path)


def write_csv(df: pl.DataFrame, path: str | Path, float_precision: int | None = 6) -> None:
    """Write ``df`` as CSV atomically with a fixed float format."""
    write_bytes(df.write_csv(None, float_precision=float_precision).encode("utf-8"), path,
                ".csv")


def write_scores(frames: dict[str, pl.DataFrame], wide: pl.DataFrame,
                 outdir: str | Path) -> None:
    """The scoring frames (frames, or their Parquet bytes) as ``<name>.parquet``
    in ``outdir`` and the wide run table as ``runs.csv``, all or nothing."""
    outdir = Path(outdir)
    with writing("qacamp score", dirs=[outdir]):
        for name, frame in frames.items():
            data = parquet_bytes(frame) if isinstance(frame, pl.DataFrame) else frame
            write_bytes(data, outdir / f"{name}.parquet", ".parquet")
        write_csv(wide, outdir / "runs.csv", float_precision=6)


# --------------------------------------------------------------------------- DuckDB

#: The folders of a campaign holding its intermediates (Parquet files that
#: get a DuckDB view, and whose hashes manifest.json lists), in order.
DUCKDB_FOLDERS = ("ingest", "scores", "reliability")
INTERMEDIATE_FOLDERS = DUCKDB_FOLDERS


def write_campaign_duckdb(campaign_dir: str | Path) -> Path:
    """``<campaign_dir>/campaign.duckdb``: one view per Parquet file of its
    ``ingest/``, ``scores/`` and ``reliability/`` folders.  Returns its path."""
    campaign_dir = Path(campaign_dir)
    if not campaign_dir.is_dir():
        raise InputError(campaign_dir, None, "campaign folder not found",
                         "give results/<campaign> (the folder holding ingest/ and scores/)")
    db = campaign_dir / "campaign.duckdb"
    write_duckdb(db, [campaign_dir / f for f in DUCKDB_FOLDERS])
    return db


def _views(con, views: dict[str, Path]) -> None:
    for name, path in sorted(views.items()):
        lit = str(path).replace("'", "''")
        ident = name.replace('"', '""')
        con.execute(f'CREATE OR REPLACE VIEW "{ident}" AS SELECT * FROM read_parquet(\'{lit}\')')


def write_duckdb(db: str | Path, folders: list[Path]) -> None:
    """A DuckDB file with one view per Parquet file in ``folders`` (view name =
    file stem; later folders win).  Views name their files by absolute path
    (DuckDB resolves a relative one against the querying process's folder)
    and DuckDB writes a random identifier into every file, so it is neither
    relocatable nor byte-reproducible: an index over the verified Parquet
    files (each checked first), recorded without a SHA-256 and checked by
    its views (:func:`duckdb_problem`)."""
    import duckdb

    db = Path(db)
    with writing("qacamp duckdb", files=[db]):
        views: dict[str, Path] = {}
        for folder in folders:
            if Path(folder).is_dir():
                for f in sorted(Path(folder).glob("*.parquet")):
                    check_parquet(f)
                    views[f.stem] = f.resolve()
        try:
            with atomic_path(db, ".duckdb", create=False, hashed=False) as tmp:
                try:
                    con = duckdb.connect(str(tmp))
                    try:
                        _views(con, views)
                        con.execute("CHECKPOINT")
                    finally:
                        con.close()
                finally:
                    with contextlib.suppress(OSError):
                        os.unlink(f"{tmp}.wal")
        except duckdb.IOException as exc:
            raise OutputError(db, " ".join(str(exc).split())[:200],
                              "free disk space or fix the folder's permissions, then rerun"
                              ) from None


_CATALOG = """
select 'view', view_name, sql from duckdb_views() where not internal
union all select 'table', table_name, sql from duckdb_tables()
union all select 'sequence', sequence_name, sql from duckdb_sequences()
union all select 'index', index_name, sql from duckdb_indexes()
union all select 'macro', function_name, macro_definition from duckdb_functions()
  where not internal and function_type in ('macro', 'table_macro')
union all select 'type', type_name, '' from duckdb_types() where not internal
union all select 'schema', schema_name, '' from duckdb_schemas() where not internal
order by 1, 2, 3"""


def duckdb_problem(db: Path, rec: records.Record, root: Path) -> str | None:
    """What differs between the DuckDB file ``db`` and what ``qacamp duckdb``
    writes for the Parquet files its record ``rec`` lists (the catalogue:
    views, tables, macros, ...); None when they are the same."""
    import duckdb

    views = {}
    for key in sorted(rec.inputs):
        if key.endswith(".parquet"):
            p = records.input_path(key, root)
            views[p.stem] = p.resolve()
    try:
        want = duckdb.connect(":memory:")
        try:
            _views(want, views)
            expected = want.execute(_CATALOG).fetchall()
        finally:
            want.close()
    except duckdb.Error:
        return "a Parquet file it indexes is missing"
    try:
        con = duckdb.connect(str(db), read_only=True)
        try:
            found = con.execute(_CATALOG).fetchall()
        finally:
            con.close()
    except duckdb.Error as exc:
        return f"not a DuckDB file qacamp can open ({' '.join(str(exc).split())[:80]})"
    if found != expected:
        return "its views or other objects differ from those `qacamp duckdb` writes"
    return None


# --------------------------------------------------------------------------- spill

SPILL_FIX = ("free space in the temporary folder (TMPDIR), or point TMPDIR at a disk with room, "
             "then rerun (nothing partial was kept)")


class Spill:
    """Frames kept on disk while a command runs (``qacamp ingest``'s run
    tables): Arrow IPC (LZ4) in one unnamed temporary file, which the system
    removes however the process ends (also SIGKILL); a frame is read back
    batch for batch as written (its chunks decide where Parquet pages end)."""

    def __init__(self, fh) -> None:
        self.fh = fh
        self.spans: list[tuple[int, int]] = []
        self.end = 0

    def put(self, df: pl.DataFrame) -> int:
        """Write ``df``; returns its handle."""
        import pyarrow as pa

        table = df.to_arrow()
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
        parts, got = [], 0
        while got < size:
            block = os.pread(self.fh.fileno(), min(size - got, 1 << 24), start + got)
            if not block:
                raise OutputError(tempfile.gettempdir(), "the spill file was cut short", SPILL_FIX)
            parts.append(block)
            got += len(block)
        return pa.ipc.open_file(pa.py_buffer(b"".join(parts))).read_all()

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


__all__ = ["atomic_path", "write_bytes", "write_parquet", "write_parquet_parts", "write_text",
           "write_csv", "write_scores", "write_campaign_duckdb", "write_duckdb",
           "duckdb_problem", "output_error", "DUCKDB_FOLDERS", "INTERMEDIATE_FOLDERS", "Spill",
           "spilling", "SPILL_FIX"]
