"""The outer layer's file reading and writing: atomic, deterministic, checked.

Every output is written to a temporary file in the destination folder and
renamed into place, so a crash never leaves a partial file that a later step
could trust.  Parquet is written with fixed options (zstd, no statistics
timestamps, dictionary-encoded strings) so identical frames give identical
bytes.  A write that fails at the operating-system level (full disk, no
permission) is an :class:`~qacamp.errors.OutputError` naming the file; a
pipeline Parquet file that cannot be read (truncated, corrupt) is an
:class:`~qacamp.errors.InputError` naming the file to delete.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import polars as pl

from .errors import InputError, OutputError


def remove_stale_temps(path: str | Path, suffix: str = ".tmp") -> None:
    """Delete temporary files that an earlier, killed writer of ``path`` left
    beside it (``.<name>.<8 random chars><suffix>``, as :func:`atomic_path`
    names them).  A SIGKILL skips the cleanup of :func:`atomic_path`; without
    this sweep such files would stay in the results folder for good.  Only the
    writer of ``path`` itself calls this (Snakemake runs one job per output)."""
    path = Path(path)
    stale = re.compile(rf"^\.{re.escape(path.name)}\.[a-z0-9_]{{8}}{re.escape(suffix)}$")
    with contextlib.suppress(FileNotFoundError):
        for entry in os.scandir(path.parent):
            if stale.match(entry.name) and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)


def output_error(path: str | Path, exc: OSError) -> OutputError:
    """The project's error for an operating-system failure while writing ``path``."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    return OutputError(path, reason, "free disk space or fix the folder's permissions, then "
                       "rerun (nothing partial was kept)")


@contextlib.contextmanager
def atomic_path(path: str | Path, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it onto ``path`` on success,
    delete it on failure.  An :class:`OSError` (e.g. ``ENOSPC``) becomes an
    :class:`~qacamp.errors.OutputError` naming ``path``."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temps(path, suffix or ".tmp")
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix or ".tmp",
                                   dir=path.parent)
        os.close(fd)
    except OSError as exc:
        raise output_error(path, exc) from None
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.replace(tmp_path, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp_path.unlink()
        if isinstance(exc, OSError):
            raise output_error(path, exc) from None
        raise


def write_parquet(df: pl.DataFrame, path: str | Path) -> None:
    """Write ``df`` atomically with deterministic options."""
    with atomic_path(path, ".parquet") as tmp:
        df.write_parquet(tmp, compression="zstd", compression_level=3, statistics=False,
                         use_pyarrow=True,
                         pyarrow_options={"use_dictionary": True, "write_statistics": False})


def write_text(text: str, path: str | Path) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends) atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8", newline="\n")


def write_csv(df: pl.DataFrame, path: str | Path, float_precision: int | None = 6) -> None:
    """Write ``df`` as CSV atomically with a fixed float format."""
    with atomic_path(path, ".csv") as tmp:
        df.write_csv(tmp, float_precision=float_precision)


def _unreadable(path: str | Path, exc: BaseException) -> InputError:
    detail = " ".join(str(exc).split())[:160]
    return InputError(path, None, f"is truncated or corrupt ({type(exc).__name__}: {detail})",
                      "delete it and rerun (the step that writes it runs again)")


def read_parquet(path: str | Path, columns: list[str] | None = None,
                 where: pl.Expr | None = None) -> pl.DataFrame:
    """Read a Parquet file the pipeline wrote (optionally only ``columns`` and
    the rows matching ``where``, filtered while reading).  A missing file is
    an :class:`~qacamp.errors.InputError` asking for the step that writes it;
    a file polars cannot read (truncated by a full disk, corrupted) is an
    ``InputError`` saying it is truncated or corrupt and to delete it, never
    a traceback."""
    if not Path(path).is_file():
        raise InputError(path, None, "file not found", "run the workflow step that writes it")
    try:
        scan = pl.scan_parquet(path)
        if where is not None:
            scan = scan.filter(where)
        if columns is not None:
            scan = scan.select(columns)
        return scan.collect()
    except (pl.exceptions.ComputeError, pl.exceptions.PanicException, OSError) as exc:
        # what polars raises on a file that is not whole (the caller's mistakes,
        # e.g. a column that does not exist, stay ordinary exceptions)
        raise _unreadable(path, exc) from None


def check_parquet(path: str | Path) -> None:
    """Cheap integrity check of a Parquet file (magic bytes and footer), with the
    errors of :func:`read_parquet`."""
    import pyarrow.parquet as pq

    if not Path(path).is_file():
        raise InputError(path, None, "file not found", "run the workflow step that writes it")
    try:
        pq.read_metadata(path)
    except Exception as exc:  # noqa: BLE001
        raise _unreadable(path, exc) from None


def write_scores(frames: dict[str, pl.DataFrame], wide: pl.DataFrame,
                 outdir: str | Path) -> None:
    """Write the scoring frames (``outcomes``, ``units``, ``runs``, ``dropped``) as
    Parquet into ``outdir`` and the wide run table ``wide`` as ``runs.csv`` (6
    decimals).  The campaign's DuckDB file is :func:`write_campaign_duckdb`'s."""
    outdir = Path(outdir)
    for name, frame in frames.items():
        write_parquet(frame, outdir / f"{name}.parquet")
    write_csv(wide, outdir / "runs.csv", float_precision=6)


#: The folders of a campaign whose Parquet files get a DuckDB view, in order.
DUCKDB_FOLDERS = ("ingest", "scores", "reliability")


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
    Parquet file is checked first (:func:`check_parquet`); the database is
    written to a temporary name and renamed into place."""
    import duckdb

    db = Path(db)
    views: dict[str, Path] = {}
    for folder in folders:
        if Path(folder).is_dir():
            for f in sorted(Path(folder).glob("*.parquet")):
                check_parquet(f)
                views[f.stem] = f.resolve()
    tmp = db.with_name(f".{db.name}.{os.getpid()}.tmp")
    try:
        db.parent.mkdir(parents=True, exist_ok=True)
        # also the temporaries (and WAL) of an earlier writer killed before its cleanup
        for p in db.parent.glob(f".{db.name}.*.tmp*"):
            p.unlink(missing_ok=True)
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
        os.replace(tmp, db)
    except OSError as exc:
        raise output_error(db, exc) from None
    except duckdb.IOException as exc:
        raise OutputError(db, " ".join(str(exc).split())[:200],
                          "free disk space or fix the folder's permissions, then rerun") from None
    finally:
        for p in (tmp, Path(str(tmp) + ".wal")):
            with contextlib.suppress(OSError):
                p.unlink()
