"""The outer layer's file writing: atomic, deterministic.

Every output is written to a temporary file in the destination folder and
renamed into place, so a crash never leaves a partial file that a later step
could trust.  Parquet is written with fixed options (zstd, no statistics
timestamps, dictionary-encoded strings) so identical frames give identical
bytes.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import polars as pl


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


@contextlib.contextmanager
def atomic_path(path: str | Path, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it onto ``path`` on success,
    delete it on failure."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(path, suffix or ".tmp")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix or ".tmp", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.replace(tmp_path, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()
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


def read_parquet(path: str | Path) -> pl.DataFrame:
    return pl.read_parquet(path)


def write_scores(frames: dict[str, pl.DataFrame], wide: pl.DataFrame, outdir: str | Path, *,
                 ingest_dir: str | Path | None = None,
                 db_path: str | Path | None = None) -> None:
    """Write the scoring frames (``outcomes``, ``units``, ``runs``, ``dropped``) as
    Parquet into ``outdir``, the wide run table ``wide`` as ``runs.csv`` (6
    decimals) and ``campaign.duckdb`` (default: beside ``outdir``, i.e.
    ``results/<campaign>/campaign.duckdb``) with one view per Parquet file of
    ``ingest_dir`` (default ``outdir/../ingest``) and ``outdir``."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    for name, frame in frames.items():
        write_parquet(frame, outdir / f"{name}.parquet")
    write_csv(wide, outdir / "runs.csv", float_precision=6)
    ingest = Path(ingest_dir) if ingest_dir is not None else outdir.parent / "ingest"
    db = Path(db_path) if db_path is not None else outdir.parent / "campaign.duckdb"
    write_duckdb(db, [ingest, outdir])


def write_duckdb(db: str | Path, folders: list[Path]) -> None:
    """A DuckDB file with one view per Parquet file in ``folders`` (view name = file
    stem; later folders win on a clash).  Views use absolute paths (DuckDB resolves
    relative paths against the process's working directory, not the db file), so
    the database must be rebuilt if the results folder moves.  Written to a
    temporary name and renamed into place."""
    import duckdb

    db = Path(db)
    db.parent.mkdir(parents=True, exist_ok=True)
    tmp = db.with_name(f".{db.name}.{os.getpid()}.tmp")
    # also the temporaries (and WAL) of an earlier writer killed before its cleanup
    for p in db.parent.glob(f".{db.name}.*.tmp*"):
        p.unlink(missing_ok=True)
    views: dict[str, Path] = {}
    for folder in folders:
        if Path(folder).is_dir():
            for f in sorted(Path(folder).glob("*.parquet")):
                views[f.stem] = f.resolve()
    try:
        con = duckdb.connect(str(tmp))
        try:
            for name, path in sorted(views.items()):
                lit = str(path).replace("'", "''")
                con.execute(f'CREATE OR REPLACE VIEW "{name}" AS SELECT * FROM read_parquet(\'{lit}\')')
            con.execute("CHECKPOINT")
        finally:
            con.close()
        os.replace(tmp, db)
    finally:
        for p in (tmp, Path(str(tmp) + ".wal")):
            p.unlink(missing_ok=True)
