"""The writers (each file staged in the :func:`~.outputs.writing` block, a block
of its own outside one): Parquet with fixed options and page checksums, also
a row group at a time; the DuckDB index."""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from ..errors import InputError, OutputError
from ..ordered import behind
from . import records
from .outputs import active, writing
from .records import file_mode, output_error
from .rowgroup_writer import (  # noqa: F401 (the row-group writer's names, here too)
    ROW_GROUP,
    WRITE_OPTIONS,
    RowGroupWriter,
    write_options,
    write_row_groups,
)
from .spill import Spill, spilling
from .verified import Damaged, SchemaMismatch, decode, open_parquet, parquet_error, read_verified

if TYPE_CHECKING:  # (pyarrow is imported where it is used: `qacamp eval` needs no Parquet)
    import pyarrow as pa

#: The folders of a campaign holding its intermediates (Parquet files that
#: get a DuckDB view, and whose hashes manifest.json lists), in order.
INTERMEDIATE_FOLDERS = ("ingest", "scores", "reliability")

@contextlib.contextmanager
def _staging(path: str | Path, suffix: str, create: bool = True):
    """``(temporary path, finish(sha256, size))`` staging it for ``path``."""
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
    """A temporary path that becomes ``path`` on success (``create=False``: not
    made yet; ``hashed=False``: recorded without SHA-256)."""
    with _staging(path, suffix or ".tmp", create) as (tmp, finish):
        yield tmp
        finish(*((records.sha256_file(tmp), os.path.getsize(tmp)) if hashed else (None, None)))


def write_all(fd: int, view: memoryview) -> None:
    while view:
        view = view[os.write(fd, view[: 1 << 24]):]


def write_bytes(data, path: str | Path, suffix: str = ".tmp") -> None:
    """Write ``data`` (bytes or a buffer) atomically."""
    view = memoryview(data).cast("B")
    with _staging(path, suffix) as (tmp, finish):
        fd = os.open(tmp, os.O_WRONLY | os.O_CLOEXEC)
        try:
            write_all(fd, view)
        finally:
            os.close(fd)
        finish(hashlib.sha256(view).hexdigest(), view.nbytes)


def write_text(text: str, path: str | Path) -> None:
    write_bytes(text.encode("utf-8"), path)


def write_csv(df: pl.DataFrame, path: str | Path, float_precision: int | None = 6) -> None:
    write_bytes(df.write_csv(None, float_precision=float_precision).encode("utf-8"), path,
                ".csv")


def parquet_bytes(df: pl.DataFrame, row_group: int = ROW_GROUP,
                  statistics: Sequence[str] = ()) -> pa.Buffer:
    """``df`` as Parquet bytes, in row groups of ``row_group`` rows, with
    statistics for the columns ``statistics`` (:func:`write_options`)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    sink = pa.BufferOutputStream()
    pq.write_table(df.to_arrow(), sink, row_group_size=row_group, **write_options(statistics))
    return sink.getvalue()


def write_parquet(df: pl.DataFrame, path: str | Path, row_group: int = ROW_GROUP,
                  statistics: Sequence[str] = ()) -> None:
    write_bytes(parquet_bytes(df, row_group, statistics), path, ".parquet")


def _os_error(exc: OSError) -> OSError:
    """pyarrow's "Error writing bytes to file. Detail: ..." as the system's words."""
    return OSError(exc.errno, os.strerror(exc.errno)) if exc.errno else exc


def write_parquet_parts(parts: Iterable[pa.Table], schema: pa.Schema, path: str | Path, *,
                        one_chunk: bool, row_group: int = ROW_GROUP,
                        statistics: Sequence[str] = ()) -> None:
    """The rows of ``parts`` written as :func:`write_parquet` writes their frame."""
    with atomic_path(path, ".parquet") as tmp:
        write_parquet_file(tmp, path, parts, schema, one_chunk=one_chunk, row_group=row_group,
                           statistics=statistics)


def write_parquet_file(tmp: Path, path: str | Path, parts: Iterable[pa.Table],
                       schema: pa.Schema, *, one_chunk: bool, row_group: int = ROW_GROUP,
                       statistics: Sequence[str] = (), threads: int = 1) -> None:
    """:func:`write_parquet_parts`' bytes written to ``tmp``, the temporary
    file of an :func:`atomic_path` for ``path`` the caller holds (so a thread
    of the caller's may write it; ``threads``: its row groups encoded in that
    many threads, :class:`.rowgroup_writer.RowGroupWriter`); an
    operating-system error is an :class:`~qacamp.errors.OutputError` naming
    ``path``."""
    import pyarrow as pa

    try:
        with pa.OSFile(str(tmp), "wb") as sink:
            write_row_groups(sink, parts, schema, one_chunk, row_group, statistics, threads)
    except OSError as exc:
        raise output_error(path, _os_error(exc)) from None


class SortedWriter:
    """Parts each sorted on ``key`` (nulls last) written to ``path`` in the
    order of their stable sort: rows of the smallest value seen go to the
    file, the others wait in ``spill`` until :meth:`close` (a smaller value
    coming later takes the file's rows back to the spill first)."""

    def __init__(self, path: str, schema: pa.Schema, key: str, spill: Spill,
                 row_group: int = ROW_GROUP) -> None:
        self.path, self.schema, self.key, self.spill = path, schema, key, spill
        self.row_group, self._head, self._later = row_group, (), {}
        self._writer = RowGroupWriter(path, schema, True, row_group)

    def add(self, frame: pl.DataFrame) -> None:
        part = frame.to_arrow()  # (here, in the file's thread)
        if not part.num_rows:
            return
        col = part.column(self.key)
        first, last = col[0], col[-1]
        if first.is_valid and last.is_valid and first == last:  # (sorted: one value)
            stretches = [(first.as_py(), part.num_rows)]
        else:
            stretches = pl.from_arrow(part.select([self.key])).group_by(
                self.key, maintain_order=True).len().iter_rows()
        start = 0
        for value, n in stretches:
            rows = part.slice(start, n)
            start += n
            if self._head == ():
                self._head = value
            if value is not None and (self._head is None or value < self._head):
                self._take_back()
                self._head = value
            if value == self._head:
                self._writer.add(rows)
            else:
                self._later.setdefault(value, []).append(self.spill.put(rows))

    def _take_back(self) -> None:
        import pyarrow.parquet as pq

        self._writer.close()
        f = pq.ParquetFile(self.path)
        kept = [self.spill.put(decode(lambda g=g: f.read_row_group(g)))
                for g in range(f.num_row_groups)]
        f.close()
        self._later[self._head] = kept + self._later.get(self._head, [])
        self._writer = RowGroupWriter(self.path, self.schema, True, self.row_group)

    def close(self) -> None:
        for value in sorted(self._later, key=lambda v: (v is None, v or "")):
            for handle in self._later[value]:
                self._writer.add(self.spill.get(handle))
        self._writer.close()


@contextlib.contextmanager
def sorted_parquet(schemas: dict[str, pa.Schema], outdir: str | Path, key: str
                   ) -> Iterator[Callable[[str, pl.DataFrame], None]]:
    """``<outdir>/<name>.parquet`` for each of ``schemas``, written by
    :class:`SortedWriter` s as parts come (``add(name, frame)``, converted
    to Arrow in the file's thread), each in a
    thread behind the caller (:func:`qacamp.ordered.behind`: the files are
    encoded side by side while the caller makes the next parts; each file
    gets its parts in the order added, so the bytes are those of writing
    them in turn)."""
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
        with contextlib.ExitStack() as threads:  # a thread per file, its parts in order
            submit = {name: threads.enter_context(behind(call)) for name in writers}
            yield lambda name, frame: submit[name](name, "add", frame)
        for name in writers:
            call(name, "close")


# --------------------------------------------------------------------------- DuckDB

def write_campaign_duckdb(campaign_dir: str | Path) -> Path:
    """``<campaign_dir>/campaign.duckdb``: a view per verified Parquet file of
    :data:`INTERMEDIATE_FOLDERS` (named by stem); recorded without SHA-256
    (absolute paths, a random identifier), checked by its catalogue."""
    import duckdb

    campaign_dir = Path(campaign_dir)
    if not campaign_dir.is_dir():
        raise InputError(campaign_dir, None, "campaign folder not found",
                         "give results/<campaign> (the folder holding ingest/ and scores/)")
    db = campaign_dir / "campaign.duckdb"
    with writing("qacamp duckdb", files=[db]):
        views: dict[str, Path] = {}
        for folder in (campaign_dir / f for f in INTERMEDIATE_FOLDERS):
            for f in sorted(folder.glob("*.parquet")) if folder.is_dir() else ():
                data, rec = read_verified(f)  # (every file it indexes verified)
                try:
                    open_parquet(data, [])
                except (Damaged, SchemaMismatch) as exc:
                    raise parquet_error(f, rec, exc) from None
                views[f.stem] = f.resolve()
        try:
            with atomic_path(db, ".duckdb", create=False, hashed=False) as tmp:
                con = duckdb.connect(str(tmp))
                try:
                    duckdb_views(con, views)
                    con.execute("CHECKPOINT")
                finally:
                    con.close()
                    with contextlib.suppress(OSError):
                        os.unlink(f"{tmp}.wal")
        except duckdb.IOException as exc:
            raise OutputError(db, " ".join(str(exc).split())[:200],
                              "free disk space or fix the folder's permissions, then rerun"
                              ) from None
    return db


def duckdb_views(con, views: dict[str, Path]) -> None:
    for name, path in sorted(views.items()):
        lit, ident = str(path).replace("'", "''"), name.replace('"', '""')
        con.execute(f'CREATE OR REPLACE VIEW "{ident}" AS SELECT * FROM read_parquet(\'{lit}\')')
