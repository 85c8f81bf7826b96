"""A verified Parquet table read row group by row group (issue 19).

The scoring's run tables (responses, judgments, nugget matches) grow with the
number of runs; the other tables do not.  A batch or shard of runs reads only
the row groups that hold its runs' rows (the ingest writes these tables sorted
by run, so a batch's rows sit in one or two neighbouring row groups), and the
facts that look across all runs are found by a scan of a few columns, one row
group at a time: memory follows the batch, not the campaign.

The file's bytes are verified against qacamp's record when the object is made
(:func:`qacamp.io.verified.read_row_groups`), its frame, footer and schema
checked; each row group's pages are checked (CRC) when it is decoded, and a
damaged one raises the same error naming the file as a whole read would.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

import polars as pl

from .parquet import Damaged, decode

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq


class RowGroups:
    """The rows of one Parquet table, decoded a row group at a time.

    ``opener(dictionary)``: the checked file, its string columns ``dictionary``
    decoded as dictionary arrays (:func:`qacamp.io.parquet.open_parquet`);
    ``columns``: the columns read (in that order); ``error``: the error to
    raise for a :class:`~qacamp.io.parquet.Damaged` row group; ``verified``:
    the bytes matched qacamp's record (arrays need no full validation)."""

    def __init__(self, opener: Callable[[list[str] | None], pq.ParquetFile], columns: list[str],
                 error: Callable[[Exception], Exception], verified: bool) -> None:
        self._pf = opener(None)
        self._opener = opener
        self._coded: pq.ParquetFile | None = None
        self.columns = list(columns)
        self._error = error
        self._verified = verified
        self._values: dict[str, list[frozenset]] = {}  # key column -> its values per group
        self._last: tuple[tuple[int, tuple[str, ...]], pa.Table] | None = None

    @property
    def height(self) -> int:
        return self._pf.metadata.num_rows

    def _group(self, g: int, columns: list[str]) -> pa.Table:
        """Row group ``g``'s ``columns`` (the last one decoded is kept: batches
        of runs in order share the row group at their boundary)."""
        key = (g, tuple(columns))
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        pf = self._pf
        try:
            table = decode(lambda g=g: pf.read_row_group(g, columns=columns, use_threads=False),
                           self._verified)
        except Damaged as exc:
            raise self._error(exc) from None
        self._last = (key, table)
        return table

    def _empty(self, columns: list[str]) -> pl.DataFrame:
        return pl.from_arrow(self._pf.schema_arrow.empty_table().select(columns))

    def chunks(self, columns: list[str] | None = None, coded: bool = False
               ) -> Iterator[pl.DataFrame]:
        """The table's ``columns`` (default: all read), one frame per row group
        in file order (one empty frame for a table without rows).  ``coded``:
        string columns as Categorical (dictionary codes, not decoded strings:
        a scan that counts or selects a few rows)."""
        columns = list(columns or self.columns)
        n = self._pf.num_row_groups
        if not n:
            yield self._empty(columns)
        if not coded:
            for g in range(n):
                yield pl.from_arrow(self._group(g, columns))
            return
        for g in range(n):
            yield pl.from_arrow(self._coded_group(g, columns))

    def _coded_group(self, g: int, columns: list[str]) -> pa.Table:
        """Row group ``g``'s ``columns``, strings as dictionary arrays."""
        import pyarrow as pa

        if self._coded is None:
            self._coded = self._opener([f.name for f in self._pf.schema_arrow
                                        if f.name in self.columns
                                        and (pa.types.is_string(f.type)
                                             or pa.types.is_large_string(f.type)
                                             or pa.types.is_string_view(f.type))])
        pf = self._coded
        try:
            return decode(lambda: pf.read_row_group(g, columns=columns, use_threads=False),
                          self._verified)
        except Damaged as exc:
            raise self._error(exc) from None

    def rows(self, key: str, values: Iterable[str], columns: list[str] | None = None
             ) -> pl.DataFrame:
        """The rows whose ``key`` is one of ``values``, in file order: the same
        frame as the whole table filtered, decoding only the row groups that
        hold such rows."""
        import pyarrow as pa
        import pyarrow.compute as pc

        columns = list(columns or self.columns)
        wanted = frozenset(values)
        if key not in self._values:
            self._values[key] = [frozenset(self._coded_group(g, [key]).column(0).unique()
                                           .to_pylist())
                                 for g in range(self._pf.num_row_groups)]
        parts = []
        for g, present in enumerate(self._values[key]):
            if not present & wanted:
                continue
            table = self._group(g, columns)
            if not present <= wanted:
                col = table.column(key)
                table = table.filter(pc.is_in(col, value_set=pa.array(sorted(wanted),
                                                                      type=col.type)))
            parts.append(table)
        if not parts:
            return self._empty(columns)
        return pl.from_arrow(pa.concat_tables(parts))


__all__ = ["RowGroups"]
