"""Reading what qacamp wrote only when its bytes equal its record (then parsed
from those bytes, Parquet's columns compared with the caller's schema), and a
user's Parquet file parsed in a child process (docs/architecture.md)."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from ..errors import InputError
from . import records
from .outputs import active

if TYPE_CHECKING:  # (pyarrow is imported where it is used: `qacamp eval` needs no Parquet)
    import pyarrow as pa
    import pyarrow.parquet as pq

class Damaged(ValueError):
    """The bytes are not a readable Parquet file."""


class SchemaMismatch(ValueError):
    """The file's columns are not the declared ones."""


def _open(path: Path, fix: str | None) -> tuple[int, os.stat_result, records.Record]:
    """A descriptor on the regular file ``path`` (never a link) and its record."""
    found = records.record_of(path)
    if found is None or found[1].sha256 is None:
        if not os.path.lexists(path):
            raise InputError(path, None, "file not found", "run the workflow step that writes it")
        raise InputError(path, None, "no record: qacamp did not write it or its record was "
                         "removed", fix or "rebuild with the qacamp command that writes it (the "
                         "workflow's command rebuilds it)")
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
        raise InputError(path, None, f"changed since `{rec.step}` wrote it (sha256 "
                         f"{(rec.sha256 or '?')[:16]}... recorded, {sha[:16]}... now)",
                         f"rerun the same command to rebuild it (the workflow rebuilds it; by "
                         f"hand, rerun `{rec.step}`)")
    if active() is not None:
        active().add_input(path, sha)
    return rec


def _readerr(path: Path, exc: OSError) -> InputError:
    return InputError(path, None, f"cannot read it ({exc.strerror or exc})",
                      "check that the file is readable")


def read_verified(path: str | Path, fix: str | None = None) -> tuple[bytearray, records.Record]:
    """The bytes of ``path`` and qacamp's record of it, refused unless they match."""
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
    return data, _check(path, rec, hashlib.sha256(data).hexdigest(), len(data))


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


# --------------------------------------------------------------------------- Parquet

def _is_string(t: pa.DataType) -> bool:
    import pyarrow as pa
    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t)


def _plain_type(t: pa.DataType) -> bool:
    """The column types qacamp writes: numbers, booleans, strings, nulls and lists of them."""
    import pyarrow as pa
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return _plain_type(t.value_type)
    return (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t)
            or _is_string(t) or pa.types.is_null(t))


def schema_problem(schema: pa.Schema, declared: dict | None, strict: bool = True) -> str | None:
    """What is wrong with ``schema`` against ``declared`` (name -> polars dtype), or
    None; ``strict=False``: only declared columns present, a number of another
    width or an all-null column passing."""
    import pyarrow as pa
    for f in schema:
        if not _plain_type(f.type):
            return f"column {f.name!r} has the type {f.type}, which qacamp never writes"
    if declared is None:
        return None
    # (an empty table made from batches: Schema.empty_table() imports pandas)
    plain = pa.schema([f.remove_metadata() for f in schema])
    got = pl.from_arrow(pa.Table.from_batches([], schema=plain)).schema
    missing = [c for c in declared if c not in got]
    extra = [c for c in got if c not in declared]
    if not strict:
        if len(missing) == len(declared):
            return f"has none of the expected columns {', '.join(declared)} (another file?)"
        missing = extra = []
    if missing or extra:
        return " and ".join([f"lacks the column(s) {', '.join(missing)}"] * bool(missing) + [
            f"has the unexpected column(s) {', '.join(extra)}"] * bool(extra)
        ) + " (another table's file?)"
    for col, dtype in declared.items():
        usable = col in got and (got[col] == pl.Null or got[col].is_numeric() and dtype.is_numeric())
        if col in got and got[col] != dtype and (strict or not usable):
            return f"column {col!r} is {got[col]}, not {dtype}"
    return None


def _detail(exc: Exception) -> str:
    return " ".join(str(exc).split())[:160] or type(exc).__name__


def open_parquet(source, columns: list[str] | None = None, declared: dict | None = None,
                 strict: bool = True, dictionary: list[str] | None = None) -> pq.ParquetFile:
    """The Parquet file in ``source`` (bytes, buffer or file), its columns checked
    against ``declared`` and ``columns``; ``dictionary``: strings as dictionaries."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not isinstance(source, pa.NativeFile):
        source = pa.BufferReader(source if isinstance(source, pa.Buffer) else pa.py_buffer(source))
    try:
        pf = pq.ParquetFile(source, pre_buffer=False, page_checksum_verification=True)
        problem = schema_problem(pf.schema_arrow, declared, strict)
        if problem is None and columns is not None:
            unknown = [c for c in columns if c not in pf.schema_arrow.names]
            problem = f"lacks the column(s) {', '.join(unknown)}" if unknown else None
        if problem is None and dictionary:  # the same file, its strings as dictionaries
            pf = pq.ParquetFile(source, pre_buffer=False, page_checksum_verification=True,
                                read_dictionary=dictionary)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many types
        raise Damaged(_detail(exc)) from None
    if problem is not None:
        raise SchemaMismatch(problem)
    return pf


def decode(read) -> pa.Table:
    """The table ``read()`` decodes, its fields' metadata dropped."""
    import pyarrow as pa
    try:
        table = read()
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many types
        raise Damaged(_detail(exc)) from None
    return pa.Table.from_arrays(table.columns, schema=pa.schema(
        [f.remove_metadata() for f in table.schema]))


def parse_parquet(data, columns: list[str] | None = None, declared: dict | None = None,
                  strict: bool = True) -> pa.Table:
    pf = open_parquet(data, columns, declared, strict)
    table = decode(lambda: pf.read(columns=columns, use_threads=False))
    if declared is not None and columns is None and strict:
        table = table.select(list(declared))
    return table


#: The child of :func:`parse_untrusted`: Parquet on stdin, checked in full, the
#: table on stdout as Arrow IPC.  (os._exit: Arrow's thread pools, torn down at
#: the interpreter's exit, now and then abort the process; Arrow issue 34314.)
_CHILD = """
import os, sys
import pyarrow as pa, pyarrow.parquet as pq
data = sys.stdin.buffer.read()
try:
    table = pq.read_table(pa.BufferReader(data), thrift_string_size_limit=len(data),
                          thrift_container_size_limit=len(data),
                          page_checksum_verification=True, use_threads=False)
    table.validate(full=True)
except Exception as exc:
    sys.stderr.write(" ".join(str(exc).split())[:160] or type(exc).__name__)
    sys.stderr.flush()
    os._exit(3)
sink = pa.BufferOutputStream()
with pa.ipc.new_stream(sink, table.schema) as w:
    w.write_table(table)
sys.stdout.buffer.write(sink.getvalue())
sys.stdout.buffer.flush()
os._exit(0)
"""


def parse_untrusted(data) -> pa.Table:
    """The table in Parquet ``data`` of unknown origin, parsed and validated in a
    child process; :class:`Damaged` for anything it cannot read or a crash."""
    import subprocess
    import sys

    import pyarrow as pa

    if len(data) < 12 or bytes(data[:4]) != b"PAR1" or bytes(data[-4:]) != b"PAR1":
        raise Damaged("no Parquet magic bytes at its start and end")
    proc = subprocess.run([sys.executable, "-c", _CHILD], input=bytes(data),
                          capture_output=True, check=False)
    if proc.returncode != 0:
        why = proc.stderr.decode(errors="replace").strip().splitlines()
        raise Damaged(why[-1][:160] if proc.returncode == 3 and why else
                      f"the Parquet reader failed on it (exit status {proc.returncode})")
    table = pa.ipc.open_stream(pa.py_buffer(proc.stdout)).read_all()
    problem = schema_problem(table.schema, None)
    if problem is not None:
        raise SchemaMismatch(problem)
    return decode(lambda: table)


def parquet_error(path: Path, rec: records.Record, exc: Exception) -> InputError:
    if isinstance(exc, SchemaMismatch):
        return InputError(path, None, str(exc), f"rerun `{rec.step}` to rebuild it (it may come "
                          "from another version of qacamp)")
    return InputError(path, None, f"cannot be read although it is as `{rec.step}` wrote it "
                      f"({exc})", f"rerun `{rec.step}` to rebuild it")


def read_parquet(path: str | Path, columns: list[str] | None = None,
                 where: pl.Expr | None = None, schema: dict | None = None,
                 fix: str | None = None, strict: bool = True) -> pl.DataFrame:
    """A Parquet file qacamp wrote (verified; only ``columns`` and the rows
    matching ``where`` if given) as a polars frame, its columns compared with
    ``schema`` (name -> dtype, in order; ``strict=False``: only the declared
    columns present).  ``fix``: what to do about a file without a record."""
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


def read_given_parquet(path: str | Path, data) -> pa.Table:
    """The table in ``data``, from a Parquet file a user gave: verified when
    qacamp recorded it (``ingest/matrix.parquet``), else :func:`parse_untrusted`."""
    found = records.record_of(path)
    if found is None or found[1].sha256 is None:
        return parse_untrusted(data)
    _check(Path(path), found[1], hashlib.sha256(data).hexdigest(), len(data))
    return parse_parquet(data)
