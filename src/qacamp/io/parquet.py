"""Parquet bytes in and out, and a verified table read a row group at a time.

Written with fixed options and a CRC-32 checksum on every page, so identical
frames give identical bytes.  qacamp parses in its own process only bytes
equal to their record (:mod:`.verified`); a Parquet file of unknown origin (a
user's score matrix) is parsed in a child process (:func:`parse_untrusted`),
so any failure of pyarrow on hostile bytes, an abort too, is one clean error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:  # (pyarrow is imported where it is used: `qacamp eval` needs no Parquet)
    import pyarrow as pa
    import pyarrow.parquet as pq

WRITE_OPTIONS = {"compression": "zstd", "compression_level": 3, "use_dictionary": True,
                 "write_statistics": False, "write_page_checksum": True}


#: Rows per row group: pyarrow's default, what :func:`parquet_bytes` writes.
ROW_GROUP = 1024 * 1024


def parquet_bytes(df: pl.DataFrame, row_group: int = ROW_GROUP) -> pa.Buffer:
    """``df`` as Parquet bytes (deterministic options, page checksums), in row
    groups of ``row_group`` rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    sink = pa.BufferOutputStream()
    pq.write_table(df.to_arrow(), sink, row_group_size=row_group, **WRITE_OPTIONS)
    return sink.getvalue()


class Damaged(ValueError):
    """The bytes are not a readable Parquet file."""


class SchemaMismatch(ValueError):
    """The file's columns are not the declared ones."""


def _plain_type(t: pa.DataType) -> bool:
    """The column types qacamp writes: numbers, booleans, strings, nulls and
    lists of them."""
    import pyarrow as pa
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return _plain_type(t.value_type)
    return (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t)
            or pa.types.is_string(t) or pa.types.is_large_string(t)
            or pa.types.is_string_view(t) or pa.types.is_null(t))


def schema_problem(schema: pa.Schema, declared: dict | None, strict: bool = True) -> str | None:
    """What is wrong with the columns of ``schema`` against ``declared``
    (name -> polars dtype), None if they match; types must be those qacamp
    writes.  ``strict=False``: only the declared columns present are compared
    (at least one must be), and a number of another width or an all-null
    column passes."""
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
        if col in got and got[col] != dtype and (strict or not _usable(got[col], dtype)):
            return f"column {col!r} is {got[col]}, not {dtype}"
    return None


def _usable(got, declared) -> bool:
    """Lenient comparison: an all-null column, or a number where a number is declared."""
    return got == pl.Null or (got.is_numeric() and declared.is_numeric())


def _detail(exc: Exception) -> str:
    return " ".join(str(exc).split())[:160] or type(exc).__name__


def open_parquet(source, columns: list[str] | None = None, declared: dict | None = None,
                 strict: bool = True, dictionary: list[str] | None = None) -> pq.ParquetFile:
    """The Parquet file qacamp wrote in ``source`` (bytes, a pyarrow buffer or
    random access file), its columns checked against ``declared`` and the
    ``columns`` asked for; ``dictionary``: string columns decoded as
    dictionaries.  Raises :class:`Damaged` or :class:`SchemaMismatch`."""
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
    """The table ``read()`` decodes, its fields' metadata dropped; :class:`Damaged`."""
    import pyarrow as pa
    try:
        table = read()
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many types
        raise Damaged(_detail(exc)) from None
    return pa.Table.from_arrays(table.columns, schema=pa.schema(
        [f.remove_metadata() for f in table.schema]))


def parse_parquet(data, columns: list[str] | None = None, declared: dict | None = None,
                  strict: bool = True) -> pa.Table:
    """The table in Parquet ``data`` that qacamp wrote (only ``columns`` if
    given), checked against ``declared`` (:func:`schema_problem`)."""
    pf = open_parquet(data, columns, declared, strict)
    table = decode(lambda: pf.read(columns=columns, use_threads=False))
    if declared is not None and columns is None and strict:
        table = table.select(list(declared))
    return table


#: The child of :func:`parse_untrusted`: Parquet on stdin, every page checksum
#: and array checked, the table back on stdout as Arrow IPC; a problem on stderr.
# The child ends with os._exit once its answer is written and flushed: Arrow's
# thread pools, torn down at the interpreter's exit, now and then abort the
# process (SIGABRT, "terminate called without an active exception"; Arrow
# issue 34314), which would read as a crash of the parser on the user's bytes.
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
    """The table in Parquet ``data`` of unknown origin, parsed and validated in
    a child process; :class:`Damaged` for anything it cannot read, also when
    the parser dies (a crash of the C++ library on hostile bytes)."""
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




class RowGroups:
    """The rows of one verified Parquet table, decoded a row group at a time
    (:func:`qacamp.io.read_row_groups`): the scoring's run tables grow with
    the runs, so a batch of runs decodes only the row groups holding its rows
    (ingest writes them sorted by run), and facts across all runs come from a
    scan of a few columns.  ``opener(dictionary)`` opens the checked file
    (string columns ``dictionary`` as dictionaries); ``error`` makes the
    error for a damaged row group."""

    def __init__(self, opener: Callable[[list[str] | None], pq.ParquetFile], columns: list[str],
                 error: Callable[[Exception], Exception]) -> None:
        self._pf, self._opener, self._coded = opener(None), opener, None
        self.columns, self._error = list(columns), error
        self._values: dict[str, list[frozenset]] = {}  # key column -> its values per group
        self._last: tuple[tuple[int, tuple[str, ...]], pa.Table] | None = None

    @property
    def height(self) -> int:
        return self._pf.metadata.num_rows

    def _read(self, pf, g: int, columns: list[str]) -> pa.Table:
        try:
            return decode(lambda: pf.read_row_group(g, columns=columns, use_threads=False))
        except Damaged as exc:
            raise self._error(exc) from None

    def _group(self, g: int, columns: list[str]) -> pa.Table:
        """Row group ``g``'s ``columns`` (the last one decoded is kept: batches
        of runs in order share the row group at their boundary)."""
        if self._last is None or self._last[0] != (g, tuple(columns)):
            self._last = ((g, tuple(columns)), self._read(self._pf, g, columns))
        return self._last[1]

    def _coded_group(self, g: int, columns: list[str]) -> pa.Table:
        import pyarrow as pa

        if self._coded is None:
            self._coded = self._opener([f.name for f in self._pf.schema_arrow
                                        if f.name in self.columns and (
                                            pa.types.is_string(f.type)
                                            or pa.types.is_large_string(f.type)
                                            or pa.types.is_string_view(f.type))])
        return self._read(self._coded, g, columns)

    def _empty(self, columns: list[str]) -> pl.DataFrame:
        return pl.from_arrow(self._pf.schema_arrow.empty_table().select(columns))

    def chunks(self, columns: list[str] | None = None, coded: bool = False
               ) -> Iterator[pl.DataFrame]:
        """The table's ``columns`` (default: all read), one frame per row group
        (one empty frame for a table without rows); ``coded``: strings as
        Categorical (a scan that counts or selects rows)."""
        columns = list(columns or self.columns)
        if not self._pf.num_row_groups:
            yield self._empty(columns)
        for g in range(self._pf.num_row_groups):
            yield pl.from_arrow(self._coded_group(g, columns) if coded
                                else self._group(g, columns))

    def rows(self, key: str, values: Iterable[str], columns: list[str] | None = None
             ) -> pl.DataFrame:
        """The rows whose ``key`` is one of ``values``, in file order (the whole
        table filtered), decoding only the row groups that hold such rows."""
        import pyarrow as pa
        import pyarrow.compute as pc

        columns, wanted = list(columns or self.columns), frozenset(values)
        if key not in self._values:
            self._values[key] = [frozenset(self._coded_group(g, [key]).column(0).unique()
                                           .to_pylist()) for g in range(self._pf.num_row_groups)]
        parts = []
        for g, present in enumerate(self._values[key]):
            if present & wanted:
                table = self._group(g, columns)
                if not present <= wanted:
                    col = table.column(key)
                    table = table.filter(pc.is_in(col, pa.array(sorted(wanted), type=col.type)))
                parts.append(table)
        return pl.from_arrow(pa.concat_tables(parts)) if parts else self._empty(columns)
