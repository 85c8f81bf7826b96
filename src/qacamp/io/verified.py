"""Reading what qacamp wrote, only when its bytes equal its record; the
DuckDB index over those files.

A file without a record is refused before it is read ("no record: qacamp did
not write it or its record was removed"), one whose bytes (read once,
hashed) differ from its record as changed; Parquet is then parsed from those
bytes and its columns compared with the schema the caller declares.  The
scoring's run tables are copied to an unnamed temporary file while hashed
and decoded from it a row group at a time.  Inside a :func:`~qacamp.io.writing`
block each file read becomes a recorded input of the outputs.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from ..errors import InputError, OutputError
from . import records
from .outputs import active, writing
from .parquet import (
    Damaged,
    RowGroups,
    SchemaMismatch,
    open_parquet,
    parse_parquet,
    parse_untrusted,
)
from .writers import atomic_path

if TYPE_CHECKING:
    import pyarrow as pa

REBUILD = "rebuild with the qacamp command that writes it (the workflow's command rebuilds it)"


def changed_error(path, step: str, recorded: str | None, now: str) -> InputError:
    return InputError(path, None, f"changed since `{step}` wrote it (sha256 "
                      f"{(recorded or '?')[:16]}... recorded, {now[:16]}... now)",
                      f"rerun the same command to rebuild it (the workflow rebuilds it; by "
                      f"hand, rerun `{step}`)")


def _open(path: Path, fix: str | None) -> tuple[int, os.stat_result, records.Record]:
    """A descriptor on the regular file ``path`` (never a link, never blocking)
    and qacamp's record of it; InputError without a record."""
    found = records.record_of(path)
    if found is None or found[1].sha256 is None:
        if not os.path.lexists(path):
            raise InputError(path, None, "file not found", "run the workflow step that writes it")
        raise InputError(path, None, "no record: qacamp did not write it or its record was "
                         "removed", fix or REBUILD)
    try:
        fd = os.open(path, os.O_RDONLY | records.NOFOLLOW)
    except OSError as exc:
        what = "a symbolic link" if os.path.islink(path) else f"cannot open it ({exc.strerror})"
        raise InputError(path, None, f"{what}, not a file qacamp wrote",
                         "give the path of the file qacamp wrote") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        what = "a folder" if stat.S_ISDIR(st.st_mode) else records.kind_of(st.st_mode) or "not a file"
        raise InputError(path, None, f"the path is {what}, not a regular file",
                         "give the path of the file qacamp wrote")
    return fd, st, found[1]


def _check(path: Path, rec: records.Record, sha: str, size: int) -> records.Record:
    if rec.sha256 != sha or rec.size != size:
        raise changed_error(path, rec.step, rec.sha256, sha)
    if active() is not None:
        active().note_read(path, sha)
    return rec


def _readerr(path: Path, exc: OSError) -> InputError:
    return InputError(path, None, f"cannot read it ({exc.strerror or exc})",
                      "check that the file is readable")


def read_verified(path: str | Path, fix: str | None = None) -> tuple[bytearray, records.Record]:
    """The bytes of ``path`` and qacamp's record of it, refused unless they
    match (``fix``: what to do about a file without a record)."""
    path = Path(path)
    fd, st, rec = _open(path, fix)
    try:
        data = bytearray(st.st_size)
        view, got = memoryview(data), 0
        while got < st.st_size and (n := os.readv(fd, [view[got:got + (1 << 26)]])):
            got += n
        view.release()
        del data[got:]
    except OSError as exc:
        raise _readerr(path, exc) from None
    finally:
        os.close(fd)
    return data, _check(path, rec, records.sha256_bytes(data), len(data))


def read_bytes(path: str | Path) -> bytes:
    """The bytes of ``path``, verified against qacamp's record of it."""
    return bytes(read_verified(path)[0])


def read_json(path: str | Path, what: str = "file") -> dict:
    """A JSON object qacamp wrote (verified; a damaged one names the file)."""
    if not os.path.lexists(path):
        raise InputError(path, None, f"{what} not found", "run the workflow step that writes it")
    data, rec = read_verified(path)
    fix = f"rerun `{rec.step}` to rebuild it"
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(path, f"byte {exc.start}", "not UTF-8 text", fix) from None
    except json.JSONDecodeError as exc:
        raise InputError(path, f"line {exc.lineno}", f"invalid JSON ({exc.msg})", fix) from None
    if not isinstance(doc, dict):
        raise InputError(path, None, "not a JSON object", fix)
    return doc


def parquet_error(path: Path, rec: records.Record, exc: Exception) -> InputError:
    """The error naming ``path`` for a :class:`SchemaMismatch` or :class:`Damaged`."""
    if isinstance(exc, SchemaMismatch):
        return InputError(path, None, str(exc), f"rerun `{rec.step}` to rebuild it (it may come "
                          "from another version of qacamp)")
    return InputError(path, None, f"cannot be read although it is as `{rec.step}` wrote it "
                      f"({exc})", f"rerun `{rec.step}` to rebuild it")


def read_parquet(path: str | Path, columns: list[str] | None = None,
                 where: pl.Expr | None = None, schema: dict | None = None,
                 fix: str | None = None, strict: bool = True) -> pl.DataFrame:
    """A Parquet file qacamp wrote as a polars frame (verified), its columns
    compared with ``schema`` (name -> dtype, in that order) when given; only
    ``columns`` and the rows matching ``where`` if given.  ``fix``: what to do
    about a file without a record; ``strict=False`` compares only the declared
    columns present.  Every problem is an InputError naming the file."""
    data, rec = read_verified(path, fix)
    wanted = columns
    if columns is not None and where is not None:
        wanted = list(dict.fromkeys([*columns, *where.meta.root_names()]))
    try:
        df = pl.from_arrow(parse_parquet(data, wanted, schema, strict=strict))
    except (SchemaMismatch, Damaged) as exc:
        raise parquet_error(Path(path), rec, exc) from None
    df = df if where is None else df.filter(where)
    return df.select(columns) if columns is not None and wanted != columns else df


def parquet_file_bytes(path: str | Path, schema: dict | None = None) -> bytearray:
    """The bytes of a Parquet file qacamp wrote, verified (record, schema), rows not decoded."""
    data, rec = read_verified(path)
    try:
        open_parquet(data, [], schema)
    except (Damaged, SchemaMismatch) as exc:
        raise parquet_error(Path(path), rec, exc) from None
    return data


def check_parquet(path: str | Path, schema: dict | None = None) -> None:
    """Verify a Parquet file (record, schema) without keeping its rows."""
    parquet_file_bytes(path, schema)


def read_given_parquet(path: str | Path, data) -> pa.Table:
    """The table in ``data``, read by a reader from a Parquet file a user gave:
    verified when qacamp recorded it (the workflow's ``ingest/matrix.parquet``),
    else parsed and checked in full in a child process; raises
    :class:`Damaged` or :class:`SchemaMismatch`."""
    found = records.record_of(path)
    if found is None or found[1].sha256 is None:
        return parse_untrusted(data)
    _check(Path(path), found[1], records.sha256_bytes(data), len(data))
    return parse_parquet(data)


def read_row_groups(path: str | Path, schema: dict, columns: list[str] | None = None
                    ) -> RowGroups:
    """A Parquet file qacamp wrote, read later a row group at a time
    (:class:`~.parquet.RowGroups`) from a private copy in an unnamed temporary
    file, made while it is hashed and verified: what is decoded is what was
    verified, and memory holds one row group's bytes at a time."""
    import pyarrow as pa

    path = Path(path)
    fd, _st, rec = _open(path, None)
    try:
        copy = tempfile.TemporaryFile()
    except OSError as exc:
        os.close(fd)
        raise _no_room(path, exc) from None
    try:
        h, size = hashlib.sha256(), 0
        while block := os.read(fd, 1 << 26):
            h.update(block)
            size += len(block)
            try:
                copy.write(block)
            except OSError as exc:
                raise _no_room(path, exc) from None
        try:
            copy.flush()
        except OSError as exc:
            raise _no_room(path, exc) from None
        _check(path, rec, h.hexdigest(), size)
    except OSError as exc:
        copy.close()
        raise _readerr(path, exc) from None
    except BaseException:
        copy.close()
        raise
    finally:
        os.close(fd)

    def opener(dictionary: list[str] | None = None):
        try:
            return open_parquet(pa.PythonFile(copy, mode="r"), columns, schema,
                                dictionary=dictionary)
        except (SchemaMismatch, Damaged) as exc:
            raise parquet_error(path, rec, exc) from None

    return RowGroups(opener, columns or list(schema), lambda exc: parquet_error(path, rec, exc))


def _no_room(path: Path, exc: OSError) -> InputError:
    return InputError(path, None, "cannot make a private copy of it in the temporary folder "
                      f"{tempfile.gettempdir()} ({exc.strerror or exc})",
                      "free space there, or set TMPDIR to a folder with space")


# --------------------------------------------------------------------------- DuckDB

#: The folders of a campaign holding its intermediates (Parquet files that
#: get a DuckDB view, and whose hashes manifest.json lists), in order.
INTERMEDIATE_FOLDERS = ("ingest", "scores", "reliability")


def write_campaign_duckdb(campaign_dir: str | Path) -> Path:
    """``<campaign_dir>/campaign.duckdb``: one view per Parquet file of its
    ``ingest/``, ``scores/`` and ``reliability/`` folders.  Returns its path."""
    campaign_dir = Path(campaign_dir)
    if not campaign_dir.is_dir():
        raise InputError(campaign_dir, None, "campaign folder not found",
                         "give results/<campaign> (the folder holding ingest/ and scores/)")
    write_duckdb(campaign_dir / "campaign.duckdb", [campaign_dir / f for f in INTERMEDIATE_FOLDERS])
    return campaign_dir / "campaign.duckdb"


def _views(con, views: dict[str, Path]) -> None:
    for name, path in sorted(views.items()):
        lit, ident = str(path).replace("'", "''"), name.replace('"', '""')
        con.execute(f'CREATE OR REPLACE VIEW "{ident}" AS SELECT * FROM read_parquet(\'{lit}\')')


def write_duckdb(db: str | Path, folders: list[Path]) -> None:
    """A DuckDB file with one view per Parquet file in ``folders`` (view name =
    file stem; later folders win), each file verified first.  The views name
    their files by absolute path and DuckDB writes a random identifier into
    every file: neither relocatable nor byte-reproducible, so it is recorded
    without a SHA-256 and checked by its catalogue (:func:`duckdb_problem`)."""
    import duckdb

    with writing("qacamp duckdb", files=[db]):
        views: dict[str, Path] = {}
        for folder in folders:
            for f in sorted(Path(folder).glob("*.parquet")) if Path(folder).is_dir() else ():
                check_parquet(f)
                views[f.stem] = f.resolve()
        try:
            with atomic_path(db, ".duckdb", create=False, hashed=False) as tmp:
                con = duckdb.connect(str(tmp))
                try:
                    _views(con, views)
                    con.execute("CHECKPOINT")
                finally:
                    con.close()
                    with contextlib.suppress(OSError):
                        os.unlink(f"{tmp}.wal")
        except duckdb.IOException as exc:
            raise OutputError(db, " ".join(str(exc).split())[:200],
                              "free disk space or fix the folder's permissions, then rerun"
                              ) from None


_CATALOG = """select 'view', view_name, sql from duckdb_views() where not internal
union all select 'table', table_name, sql from duckdb_tables()
union all select 'sequence', sequence_name, sql from duckdb_sequences()
union all select 'index', index_name, sql from duckdb_indexes()
union all select 'macro', function_name, macro_definition from duckdb_functions()
  where not internal and function_type in ('macro', 'table_macro')
union all select 'type', type_name, '' from duckdb_types() where not internal
union all select 'schema', schema_name, '' from duckdb_schemas() where not internal
order by 1, 2, 3"""


def duckdb_problem(db: Path, rec: records.Record, root: Path) -> str | None:
    """What differs between the catalogue of the DuckDB file ``db`` (views,
    tables, macros, ...) and the views ``qacamp duckdb`` writes for the
    Parquet files its record ``rec`` lists; None when nothing does."""
    import duckdb

    views = {(p := records.input_path(k, root)).stem: p.resolve()
             for k in sorted(rec.inputs) if k.endswith(".parquet")}
    try:
        with duckdb.connect(":memory:") as want:
            _views(want, views)
            expected = want.execute(_CATALOG).fetchall()
    except duckdb.Error:
        return "a Parquet file it indexes is missing"
    try:
        with duckdb.connect(str(db), read_only=True) as con:
            found = con.execute(_CATALOG).fetchall()
    except duckdb.Error as exc:
        return f"not a DuckDB file qacamp can open ({' '.join(str(exc).split())[:80]})"
    return None if found == expected else \
        "its views or other objects differ from those `qacamp duckdb` writes"
