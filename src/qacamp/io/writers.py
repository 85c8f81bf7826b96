"""The writers: every file qacamp writes is staged by one of these in the
:func:`~.outputs.writing` block it runs in (a block of its own outside one),
hashed, and renamed into place with its record when the block ends."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from . import records
from .outputs import active, writing
from .parquet import ROW_GROUP, parquet_bytes
from .records import file_mode, output_error
from .streams import SortedWriter, spilling, write_row_groups

if TYPE_CHECKING:
    import pyarrow as pa


@contextlib.contextmanager
def _staging(path: str | Path, suffix: str, create: bool = True):
    """``(temporary path, finish)``: write the temporary, then ``finish(sha256,
    size)`` stages it for ``path``; on failure it is gone."""
    w = active()
    with contextlib.nullcontext(w) if w is not None else writing("qacamp.io", files=[path]) as w:
        try:
            target, root, tmp = w.prepare(path, suffix, create)
        except OSError as exc:
            raise output_error(path, exc) from None

        def finish(sha: str | None, size: int | None) -> None:
            os.chmod(tmp, file_mode())
            w.stage(target, root, tmp, sha, size)
        try:
            yield tmp, finish
        except OSError as exc:
            raise output_error(path, exc) from None
        finally:
            if target not in w.staged:
                with contextlib.suppress(OSError):
                    tmp.unlink()


@contextlib.contextmanager
def atomic_path(path: str | Path, suffix: str = "", create: bool = True,
                hashed: bool = True) -> Iterator[Path]:
    """A temporary path for a writer that needs one; on success it becomes
    ``path``, on failure it is deleted.  ``create=False``: the path does not
    exist yet; ``hashed=False``: the record holds no SHA-256 (DuckDB)."""
    with _staging(path, suffix or ".tmp", create) as (tmp, finish):
        yield tmp
        finish(*((records.sha256_file(tmp), os.path.getsize(tmp)) if hashed else (None, None)))


def write_all(fd: int, view: memoryview) -> None:
    """Write every byte of ``view`` to the descriptor ``fd``."""
    while view:
        view = view[os.write(fd, view[: 1 << 24]):]


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


def _os_error(exc: OSError) -> OSError:
    """pyarrow's "Error writing bytes to file. Detail: ..." as the system's words."""
    return OSError(exc.errno, os.strerror(exc.errno)) if exc.errno else exc


def write_parquet_parts(parts: Iterable[pa.Table], schema: pa.Schema, path: str | Path, *,
                        one_chunk: bool, row_group: int = ROW_GROUP) -> None:
    """The rows of ``parts`` (Arrow tables, in order) as one Parquet file written
    a row group at a time: the bytes :func:`write_parquet` writes for the
    frame they concatenate to (:func:`~.streams.write_row_groups`)."""
    import pyarrow as pa

    with atomic_path(path, ".parquet") as tmp:
        try:
            with pa.OSFile(str(tmp), "wb") as sink:
                write_row_groups(sink, parts, schema, one_chunk, row_group)
        except OSError as exc:
            raise _os_error(exc) from None


@contextlib.contextmanager
def sorted_parquet(schemas: dict[str, pa.Schema], outdir: str | Path, key: str
                   ) -> Iterator[Callable[[str, pa.Table], None]]:
    """``<outdir>/<name>.parquet`` for each of ``schemas``, written as parts
    come (``add(name, table)``, each part sorted on ``key``) in the order of
    their stable sort on ``key``: the bytes :func:`write_parquet` writes for
    that frame, each row group encoded once (:class:`~.streams.SortedWriter`);
    staged when the block ends.  A failed write names its file."""
    with contextlib.ExitStack() as stack:
        paths = {name: Path(outdir) / f"{name}.parquet" for name in schemas}
        tmps = {name: stack.enter_context(atomic_path(paths[name], ".parquet"))
                for name in schemas}
        spill = stack.enter_context(spilling())
        writers = {name: SortedWriter(str(tmps[name]), schema, key, spill)
                   for name, schema in schemas.items()}

        def call(name: str, method: str, *args) -> None:
            try:
                getattr(writers[name], method)(*args)
            except OSError as exc:
                raise output_error(paths[name], _os_error(exc)) from None
        yield lambda name, table: call(name, "add", table)
        for name in writers:
            call(name, "close")


def write_text(text: str, path: str | Path) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends) atomically."""
    write_bytes(text.encode("utf-8"), path)


def write_csv(df: pl.DataFrame, path: str | Path, float_precision: int | None = 6) -> None:
    """Write ``df`` as CSV atomically with a fixed float format."""
    write_bytes(df.write_csv(None, float_precision=float_precision).encode("utf-8"), path,
                ".csv")
