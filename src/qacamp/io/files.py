"""Writing files atomically and deterministically.

Every output is written to a temporary file in the destination folder and
renamed into place, so a crash never leaves a partial file that a later step
could trust.  Parquet is written with fixed options and page checksums
(:mod:`.parquet`) so identical frames give identical bytes.  Inside a
:func:`~qacamp.io.writing` block the temporary files are staged and renamed
together when the block ends, with a record of each (:mod:`.outputs`);
outside one, each file is renamed as soon as it is written.  A write that
fails at the operating-system level (full disk, no permission) is an
:class:`~qacamp.errors.OutputError` naming the file.  Files get the mode the
umask gives; temporary files are private until renamed.
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
from .records import remove_stale_temps
from .verified import check_parquet

if TYPE_CHECKING:
    import pyarrow as pa


def output_error(path: str | Path, exc: OSError) -> OutputError:
    """The project's error for an operating-system failure while writing ``path``."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    return OutputError(path, reason, "free disk space or fix the folder's permissions, then "
                       "rerun (nothing partial was kept)")


def _temp_beside(path: Path, suffix: str, create: bool = True) -> Path:
    remove_stale_temps(path, suffix)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=path.parent)
    os.close(fd)
    if not create:  # a writer that must create the file itself (DuckDB)
        os.unlink(tmp)
    return Path(tmp)


def _begin(path: str | Path, suffix: str, create: bool = True):
    """The active writing block (or None), the target, its claimed root and a
    temporary path beside it: the first step of every atomic write."""
    w = active()
    try:
        if w is not None:
            target, root = w.prepare(path)
        else:
            target, root = Path(path), None
            target.parent.mkdir(parents=True, exist_ok=True)
        return w, target, root, _temp_beside(target, suffix, create)
    except OSError as exc:
        raise output_error(path, exc) from None


@contextlib.contextmanager
def _finishing(path: str | Path, tmp: Path) -> Iterator[None]:
    """The last step of every atomic write: on any failure the temporary is
    removed, and an OS error becomes an OutputError naming ``path``."""
    try:
        yield
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError):
            raise output_error(path, exc) from None
        raise


def _commit(w, target: Path, root, tmp: Path, sha: str | None, size: int | None) -> None:
    """The temporary becomes ``target``: staged in the writing block (renamed
    when it ends), or at once without one."""
    os.chmod(tmp, file_mode())
    if w is not None:
        w.stage(target, root, tmp, sha, size)
    else:
        os.replace(tmp, target)


@contextlib.contextmanager
def atomic_path(path: str | Path, suffix: str = "", create: bool = True,
                hashed: bool = True) -> Iterator[Path]:
    """Yield a temporary path beside ``path`` for a writer that needs a path;
    on success it becomes ``path`` (at once, or when the enclosing
    :func:`~qacamp.io.writing` block ends), on failure it is deleted.  An
    :class:`OSError` (e.g. ``ENOSPC``) becomes an
    :class:`~qacamp.errors.OutputError` naming ``path``.  ``create=False``:
    the temporary path does not exist yet; ``hashed=False``: the record holds
    no SHA-256 (a file that is not byte-reproducible)."""
    w, target, root, tmp = _begin(path, suffix or ".tmp", create)
    with _finishing(path, tmp):
        yield tmp
        _commit(w, target, root, tmp, records.sha256_file(tmp) if hashed else None,
                os.path.getsize(tmp) if hashed else None)


def write_all(fd: int, view: memoryview) -> None:
    """Write every byte of ``view`` to the descriptor ``fd``."""
    while view:
        n = os.write(fd, view[: 1 << 24])
        view = view[n:]


def write_bytes(data, path: str | Path, suffix: str = ".tmp") -> None:
    """Write ``data`` (bytes or a buffer) atomically; hashed from memory."""
    w, target, root, tmp = _begin(path, suffix)
    with _finishing(path, tmp):
        view = memoryview(data).cast("B")
        fd = os.open(tmp, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            write_all(fd, view)
        finally:
            os.close(fd)
        _commit(w, target, root, tmp, records.sha256_bytes(view), view.nbytes)


def write_parquet(df: pl.DataFrame, path: str | Path) -> None:
    """Write ``df`` atomically with deterministic options and page checksums."""
    write_bytes(parquet_bytes(df), path, ".parquet")


def write_parquet_parts(parts: Iterable[pa.Table], schema: pa.Schema, path: str | Path, *,
                        one_chunk: bool, row_group: int = ROW_GROUP) -> None:
    """Write the rows of ``parts`` (Arrow tables, in order) as one Parquet file,
    a row group at a time (:func:`~qacamp.io.parquet.write_row_groups`: the
    bytes :func:`write_parquet` writes for the frame they concatenate to),
    atomically: to a temporary name beside ``path``, recorded with its SHA-256
    and size like every output; on any failure the temporary is removed."""
    import pyarrow as pa

    with atomic_path(path, ".parquet") as tmp:
        try:
            with pa.OSFile(str(tmp), "wb") as sink:
                write_row_groups(sink, parts, schema, one_chunk, row_group)
        except OSError as exc:
            raise plain_os_error(exc) from None


def plain_os_error(exc: OSError) -> OSError:
    """``exc`` with the operating system's own words for its error number
    (pyarrow words its errors "Error writing bytes to file. Detail: ...")."""
    return OSError(exc.errno, os.strerror(exc.errno)) if exc.errno else exc


def write_text(text: str, path: str | Path) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends) atomically."""
    write_bytes(text.encode("utf-8"), path)


def write_csv(df: pl.DataFrame, path: str | Path, float_precision: int | None = 6) -> None:
    """Write ``df`` as CSV atomically with a fixed float format."""
    write_bytes(df.write_csv(None, float_precision=float_precision).encode("utf-8"), path,
                ".csv")


def write_scores(frames: dict[str, pl.DataFrame], wide: pl.DataFrame,
                 outdir: str | Path) -> None:
    """Write the scoring frames (``outcomes``, ``units``, ``runs``, ``dropped``;
    frames, or their bytes from :func:`qacamp.io.parquet.parquet_bytes`) as
    Parquet into ``outdir`` and the wide run table ``wide`` as ``runs.csv`` (6
    decimals), all or nothing.  The campaign's DuckDB file is
    :func:`write_campaign_duckdb`'s."""
    outdir = Path(outdir)
    with writing("qacamp score", dirs=[outdir]):
        for name, frame in frames.items():
            data = parquet_bytes(frame) if isinstance(frame, pl.DataFrame) else frame
            write_bytes(data, outdir / f"{name}.parquet", ".parquet")
        write_csv(wide, outdir / "runs.csv", float_precision=6)


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


def write_duckdb(db: str | Path, folders: list[Path]) -> None:
    """A DuckDB file with one view per Parquet file in ``folders`` (view name =
    file stem; later folders win on a clash).

    Views name their Parquet files by absolute path: DuckDB resolves a relative
    path against the working directory of whoever queries, not against the
    database file.  So the file is not relocatable, and DuckDB writes a random
    database identifier into every new file, so it is not byte-reproducible
    either: it is an index over the (byte-reproducible) Parquet files, rebuilt
    by ``qacamp duckdb <campaign folder>`` wherever the results are.  Every
    Parquet file is verified first (:func:`check_parquet`); the database is
    written to a temporary name and renamed into place, its record without a
    SHA-256."""
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
                        for name, path in sorted(views.items()):
                            lit = str(path).replace("'", "''")
                            ident = name.replace('"', '""')
                            con.execute(f'CREATE OR REPLACE VIEW "{ident}" AS '
                                        f"SELECT * FROM read_parquet('{lit}')")
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
