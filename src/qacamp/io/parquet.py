"""Parquet bytes in and out, checked.

Written with fixed options (zstd level 3, dictionary-encoded strings, no
statistics) and a CRC-32 checksum on every page, so identical frames give
identical bytes and a damaged page is caught even where no record of the file
exists.  Read from bytes already in memory (hashed once, parsed once) with:

* the frame checked before anything is allocated from it: the magic bytes,
  a footer length that fits in the file, Thrift string and container sizes
  bounded by the footer's length; for a file qacamp holds no record of, the
  footer walked in Python first (:mod:`.thrift`: schema, column chunks inside
  the file, row counts that add up, statistics that fit the schema);
* page checksums verified while decoding, and, for a file qacamp holds no
  record of, every array validated in full (offsets, UTF-8);
* the frame's columns and types compared with the declared schema, if one is
  given; field names checked as UTF-8 and the file's key-value metadata
  dropped before polars sees the table.

pyarrow (C++) reports every damage as an exception; polars' Rust reader is not
used for files that may be damaged, because it aborts the process on some
(an allocation of the size a corrupt header claims).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import polars as pl

from .thrift import FooterError, check_footer

if TYPE_CHECKING:  # (pyarrow is imported where it is used: `qacamp eval` needs no Parquet)
    import pyarrow as pa
    import pyarrow.parquet as pq

MAGIC = b"PAR1"
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


def concat_parquet_bytes(sources: list, key: str) -> pa.Buffer:
    """The rows of the Parquet files ``sources`` (bytes written by
    :func:`parquet_bytes`, one schema, each sorted on ``key`` first) as one
    file: for each value of ``key`` in sorted order (nulls last), every
    source's rows of that value in source order.  The same bytes as
    :func:`parquet_bytes` of that concatenated frame, written row group by row
    group: only one row group's rows are held at a time."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    if len(sources) == 1:
        return pa.py_buffer(sources[0])
    files = [pq.ParquetFile(pa.BufferReader(src)) for src in sources]
    if not any(f.metadata.num_rows for f in files):
        return pa.py_buffer(sources[0])
    values: set = set()
    for f in files:
        values.update(f.read(columns=[key]).column(0).unique().to_pylist())
    ordered = sorted(v for v in values if v is not None) + ([None] if None in values else [])
    sink = pa.BufferOutputStream()
    with pq.ParquetWriter(sink, files[0].schema_arrow, **WRITE_OPTIONS) as writer:
        pending: list[pa.RecordBatch] = []
        held = 0
        for value in ordered:
            for f in files:
                for batch in f.iter_batches(batch_size=65536):
                    if len(ordered) > 1:
                        col = batch.column(key)
                        batch = batch.filter(col.is_null() if value is None
                                             else pc.equal(col, value).fill_null(False))
                    if not batch.num_rows:
                        continue
                    pending.append(batch)
                    held += batch.num_rows
                    while held >= ROW_GROUP:
                        table = pa.Table.from_batches(pending).combine_chunks()
                        writer.write_table(table.slice(0, ROW_GROUP), row_group_size=ROW_GROUP)
                        rest = table.slice(ROW_GROUP)
                        pending, held = rest.to_batches(), rest.num_rows
        if held:
            writer.write_table(pa.Table.from_batches(pending).combine_chunks(),
                               row_group_size=ROW_GROUP)
    return sink.getvalue()


def write_row_groups(sink, parts: Iterable[pa.Table], schema: pa.Schema, one_chunk: bool,
                     row_group: int = ROW_GROUP) -> None:
    """Write the rows of ``parts`` (Arrow tables of ``schema``, in order) to
    ``sink`` as one Parquet file, row group by row group (``row_group`` rows
    each, the last one shorter): only about one row group's rows are held at a
    time.  Where pages end depends on the chunks of the table written, so the
    bytes are those of :func:`parquet_bytes` of the concatenated frame when
    that frame is one chunk (``one_chunk``: the parts are joined into one
    chunk per row group, as a sorted frame is) or holds the parts' own chunks
    (``one_chunk=False``: a concatenation of the parts)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if row_group < 1:
        raise ValueError(f"row_group must be at least 1, not {row_group}")
    with pq.ParquetWriter(sink, schema, **WRITE_OPTIONS) as writer:
        pending: list[pa.Table] = []
        held, written = 0, 0

        def joined() -> pa.Table:
            table = pa.concat_tables(pending) if pending else \
                pa.Table.from_batches([], schema=schema)
            return table.combine_chunks() if one_chunk else table

        for part in parts:
            if not part.num_rows:
                continue
            pending.append(part)
            held += part.num_rows
            while held >= row_group:
                table = joined()
                writer.write_table(table.slice(0, row_group), row_group_size=row_group)
                written += row_group
                rest = table.slice(row_group)
                pending, held = [rest], rest.num_rows
        if held or not written:  # (an empty table is one row group of no rows)
            writer.write_table(joined(), row_group_size=row_group)


class Damaged(ValueError):
    """The bytes are not a whole, consistent Parquet file."""


def _check_frame(reader) -> tuple[int, int]:
    """(size, footer length) of the Parquet file ``reader`` (a pyarrow random
    access file) reads, from its magic bytes and footer length only."""
    n = reader.size()
    if n < 12:
        raise Damaged(f"{n} bytes, too short for a Parquet file")
    if bytes(reader.read_at(4, 0)) != MAGIC or bytes(reader.read_at(4, n - 4)) != MAGIC:
        raise Damaged("no Parquet magic bytes at its start and end")
    footer = int.from_bytes(bytes(reader.read_at(4, n - 8)), "little")
    if footer <= 0 or footer > n - 12:
        raise Damaged(f"its footer claims {footer} bytes, more than the file holds")
    return n, footer


def _readers(data) -> Callable[[], pa.NativeFile]:
    """``data`` (bytes, a pyarrow buffer, or a function opening a pyarrow
    random access file) as a function giving a new reader of those bytes."""
    import pyarrow as pa
    if callable(data):
        return data
    buf = data if isinstance(data, pa.Buffer) else pa.py_buffer(data)
    return lambda: pa.BufferReader(buf)


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
    (name -> polars dtype), None if they match; field names must be UTF-8 and
    types those qacamp writes.  ``strict=False``: only the declared columns
    present are compared (at least one must be), and a number of another width
    or an all-null column passes."""
    import pyarrow as pa
    for f in schema:
        try:
            f.name.encode("utf-8")
        except UnicodeEncodeError:
            return "a column name is not valid UTF-8"
        if not _plain_type(f.type):
            return f"column {f.name!r} has the type {f.type}, which qacamp never writes"
    if declared is None:
        return None
    # (an empty table made from batches: Schema.empty_table() imports pandas
    # when it is installed, a third of a short command's start-up)
    plain = pa.schema([f.remove_metadata() for f in schema])
    got = pl.from_arrow(pa.Table.from_batches([], schema=plain)).schema
    missing = [c for c in declared if c not in got]
    extra = [c for c in got if c not in declared]
    if not strict:
        if len(missing) == len(declared):
            return f"has none of the expected columns {', '.join(declared)} (another file?)"
        missing = extra = []
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"lacks the column(s) {', '.join(missing)}")
        if extra:
            parts.append(f"has the unexpected column(s) {', '.join(extra)}")
        return " and ".join(parts) + " (another table's file?)"
    for col, dtype in declared.items():
        if col in got and got[col] != dtype and (strict or not _usable(got[col], dtype)):
            return f"column {col!r} is {got[col]}, not {dtype}"
    return None


def _usable(got, declared) -> bool:
    """Lenient comparison: an all-null column, or a number where a number is declared."""
    return got == pl.Null or (got.is_numeric() and declared.is_numeric())


def open_parquet(data, columns: list[str] | None = None, declared: dict | None = None,
                 verified: bool = False, strict: bool = True,
                 dictionary: list[str] | None = None) -> pq.ParquetFile:
    """The Parquet file in ``data`` (bytes, a pyarrow buffer, or a function
    opening a new pyarrow random access file on the bytes), opened after
    the checks of the module docstring that need no decoding (frame, footer,
    schema, the ``columns`` asked for); its rows are decoded by
    :func:`decode`, the columns ``dictionary`` as dictionary arrays (polars
    Categorical).  Raises :class:`Damaged` or :class:`SchemaMismatch`."""
    import pyarrow.parquet as pq
    readers = _readers(data)
    n, footer = _check_frame(readers())
    if not verified:
        try:
            check_footer(bytes(readers().read_at(footer, n - 8 - footer)), n - 8 - footer)
        except FooterError as exc:
            raise Damaged(str(exc)) from None

    def parquet_file(dictionary=None):
        return pq.ParquetFile(readers(), thrift_string_size_limit=footer,
                              thrift_container_size_limit=footer,
                              page_checksum_verification=True, pre_buffer=False,
                              read_dictionary=dictionary)
    try:
        pf = parquet_file()
        problem = schema_problem(pf.schema_arrow, declared, strict)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many types on damaged bytes
        raise Damaged(_detail(exc)) from None
    if problem is not None:
        raise SchemaMismatch(problem)
    if columns is not None:
        unknown = [c for c in columns if c not in pf.schema_arrow.names]
        if unknown:
            raise SchemaMismatch(f"lacks the column(s) {', '.join(unknown)}")
    if dictionary:  # the same file, checked above, its strings read as dictionaries
        pf = parquet_file(dictionary)
    return pf


def decode(read, verified: bool) -> pa.Table:
    """The table ``read()`` decodes from an :func:`open_parquet` file (page
    checksums checked; arrays validated in full unless ``verified``), its
    fields' metadata dropped.  Raises :class:`Damaged`."""
    import pyarrow as pa
    try:
        table = read()
        if not verified:
            table.validate(full=True)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many types on damaged bytes
        raise Damaged(_detail(exc)) from None
    fields = [f.remove_metadata() for f in table.schema]
    return pa.Table.from_arrays(table.columns, schema=pa.schema(fields))


def _detail(exc: Exception) -> str:
    return " ".join(str(exc).split())[:160] or type(exc).__name__


def parse_parquet(data, columns: list[str] | None = None, declared: dict | None = None,
                  verified: bool = False, strict: bool = True) -> pa.Table:
    """The table in Parquet ``data`` (bytes or a pyarrow buffer), only
    ``columns`` if given, checked as the module docstring says.  ``verified``:
    the bytes matched qacamp's record of the file (their arrays need no full
    validation); ``strict``: see :func:`schema_problem`.  Raises
    :class:`Damaged` with what is wrong, or :class:`SchemaMismatch`."""
    pf = open_parquet(data, columns, declared, verified, strict)
    table = decode(lambda: pf.read(columns=columns, use_threads=False), verified)
    if declared is not None and columns is None and strict:
        table = table.select(list(declared))
    return table


class SchemaMismatch(ValueError):
    """The file's columns are not the declared ones."""


__all__ = ["parquet_bytes", "write_row_groups", "parse_parquet", "open_parquet", "decode", "schema_problem", "Damaged", "SchemaMismatch",
           "WRITE_OPTIONS", "MAGIC"]
