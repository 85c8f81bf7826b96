"""One Parquet file joined from files of one row group each, encoded apart.

pyarrow encodes a file's row groups one after the other; the row groups of a
large table encoded side by side in threads, each as a file of its own
(:class:`qacamp.io.rowgroup_writer.RowGroupWriter` with ``threads``), are joined
here into the file pyarrow's one writer would have written: the same magic
number, each part's column chunks as they are (a row group's pages do not
depend on where they lie), then the footer of the first part with every
part's row groups, their byte offsets moved to where their chunks now lie
and their row counts summed.

The footer is a Thrift struct in the compact protocol (Parquet's
``parquet.thrift``, ``FileMetaData``; Thrift's "compact protocol"
specification).  pyarrow reads and writes it but offers no way to join row
groups, so :class:`_Reader` and :class:`_Writer` decode it to nested lists
of ``[field id, type, value]`` and encode it back: a footer that does not
encode back to its own bytes is refused before anything is joined, and the
tests compare joined files with pyarrow's own, byte for byte.
"""

from __future__ import annotations

#: Thrift compact protocol types.
_STOP, _TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY, _LIST, _SET, _MAP, _STRUCT \
    = range(13)
_BOOLS = (_TRUE, _FALSE)
MAGIC = b"PAR1"

#: Field ids of parquet.thrift holding a byte offset in the file, by struct:
#: RowGroup.file_offset; ColumnChunk.file_offset (0 when unset, as pyarrow
#: writes it), offset_index_offset, column_index_offset;
#: ColumnMetaData.data_page_offset, index_page_offset, dictionary_page_offset,
#: bloom_filter_offset.
_ROW_GROUP_OFFSETS = (5,)
_CHUNK_OFFSETS = (2, 4, 6)
_COLUMN_OFFSETS = (9, 10, 11, 14)
_FILE_ROWS, _FILE_ROW_GROUPS = 3, 4  # FileMetaData.num_rows, row_groups
_GROUP_COLUMNS, _GROUP_ORDINAL = 1, 7  # RowGroup.columns, ordinal
_CHUNK_META = 3  # ColumnChunk.meta_data


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def byte(self) -> int:
        b = self.data[self.pos]
        self.pos += 1
        return b

    def varint(self) -> int:
        shift = out = 0
        while True:
            b = self.byte()
            out |= (b & 0x7F) << shift
            if not b & 0x80:
                return out
            shift += 7

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def value(self, t: int):
        if t in _BOOLS:  # (a field's value is its type)
            return t == _TRUE
        if t == _BYTE:
            return self.byte()
        if t in (_I16, _I32, _I64):
            return self.zigzag()
        if t in (_DOUBLE, _BINARY):
            n = 8 if t == _DOUBLE else self.varint()
            self.pos += n
            return self.data[self.pos - n:self.pos]
        if t in (_LIST, _SET):
            head = self.byte()
            n, kind = head >> 4, head & 0x0F
            if n == 15:
                n = self.varint()
            # (a boolean element is a byte of its own)
            return kind, [self.byte() if kind in _BOOLS else self.value(kind) for _ in range(n)]
        if t == _MAP:
            n = self.varint()
            head = self.byte() if n else 0
            return head, [(self.value(head >> 4), self.value(head & 0x0F)) for _ in range(n)]
        if t == _STRUCT:
            return self.struct()
        raise ValueError(f"unknown Thrift type {t} at byte {self.pos}")

    def struct(self) -> list[list]:
        fields, last = [], 0
        while (head := self.byte()) != _STOP:
            t, delta = head & 0x0F, head >> 4
            fid = last + delta if delta else self.zigzag()
            fields.append([fid, t, self.value(t)])
            last = fid
        return fields


class _Writer:
    def __init__(self) -> None:
        self.out = bytearray()

    def varint(self, n: int) -> None:
        while n >= 0x80:
            self.out.append((n & 0x7F) | 0x80)
            n >>= 7
        self.out.append(n)

    def zigzag(self, n: int) -> None:  # (n >> 63: -1 or 0 for any i16, i32, i64)
        self.varint((n << 1) ^ (n >> 63))

    def value(self, t: int, v) -> None:
        if t in _BOOLS:
            return
        if t == _BYTE:
            self.out.append(v)
        elif t in (_I16, _I32, _I64):
            self.zigzag(v)
        elif t in (_DOUBLE, _BINARY):
            if t == _BINARY:
                self.varint(len(v))
            self.out += v
        elif t in (_LIST, _SET):
            kind, items = v
            if len(items) < 15:
                self.out.append(len(items) << 4 | kind)
            else:
                self.out.append(0xF0 | kind)
                self.varint(len(items))
            for item in items:
                self.out.append(item) if kind in _BOOLS else self.value(kind, item)
        elif t == _MAP:
            head, items = v
            self.varint(len(items))
            if items:
                self.out.append(head)
            for key, item in items:
                self.value(head >> 4, key)
                self.value(head & 0x0F, item)
        elif t == _STRUCT:
            self.struct(v)
        else:
            raise ValueError(f"unknown Thrift type {t}")

    def struct(self, fields: list[list]) -> None:
        last = 0
        for fid, t, v in fields:
            if t in _BOOLS:
                t = _TRUE if v else _FALSE
            if 0 < fid - last <= 15:
                self.out.append((fid - last) << 4 | t)
            else:
                self.out.append(t)
                self.zigzag(fid)
            self.value(t, v)
            last = fid
        self.out.append(_STOP)


def _encoded(fields: list[list]) -> bytes:
    w = _Writer()
    w.struct(fields)
    return bytes(w.out)


def _moved(fields: list[list], offsets: tuple[int, ...], delta: int) -> list[list]:
    """``fields`` with the offsets ``offsets`` moved by ``delta`` (a chunk's
    file_offset only when set)."""
    return [[fid, t, v + delta if fid in offsets and t == _I64 and v else v]
            for fid, t, v in fields]


def _row_group(fields: list[list], delta: int, ordinal: int) -> list[list]:
    """A RowGroup moved ``delta`` bytes on, numbered ``ordinal`` (if numbered)."""
    out = []
    for fid, t, v in _moved(fields, _ROW_GROUP_OFFSETS, delta):
        if fid == _GROUP_COLUMNS and t == _LIST:
            v = (v[0], [[[f, ft, _moved(fv, _COLUMN_OFFSETS, delta)
                          if f == _CHUNK_META and ft == _STRUCT else fv]
                         for f, ft, fv in _moved(chunk, _CHUNK_OFFSETS, delta)]
                        for chunk in v[1]])
        elif fid == _GROUP_ORDINAL and t == _I16:
            v = ordinal
        out.append([fid, t, v])
    return out


class JoinedFile:
    """A Parquet file written to ``sink`` (a writable binary stream) from
    parts appended in order, each a whole Parquet file of the same schema
    and options (:func:`join` describes the result)."""

    def __init__(self, sink) -> None:
        self.sink, self.size = sink, 0
        self._head: list[list] | None = None  # the first part's footer
        self._same: list[list] = []  # its fields every part must share (not rows, row groups)
        self._groups: list[list] = []
        self._rows = 0
        self._write(MAGIC)

    def _write(self, data) -> None:
        self.sink.write(data)
        self.size += len(data)

    def append(self, part) -> None:
        view = memoryview(part).cast("B")
        n = int.from_bytes(view[-8:-4], "little")
        start = len(view) - 8 - n
        if bytes(view[:4]) != MAGIC or bytes(view[-4:]) != MAGIC or not 4 <= start:
            raise ValueError("a part to join is not a whole Parquet file")
        footer = bytes(view[start:-8])
        meta = _Reader(footer).struct()
        if _encoded(meta) != footer:
            raise ValueError("a part's footer does not encode back to its own bytes")
        same = [f for f in meta if f[0] not in (_FILE_ROWS, _FILE_ROW_GROUPS)]
        if self._head is None:
            self._head, self._same = meta, same
        elif same != self._same:
            raise ValueError("the parts to join differ in schema or metadata")
        delta = self.size - len(MAGIC)
        for fid, t, v in meta:
            if fid == _FILE_ROWS:
                self._rows += v
            elif fid == _FILE_ROW_GROUPS and t == _LIST:
                self._groups += [_row_group(g, delta, len(self._groups) + i)
                                 for i, g in enumerate(v[1])]
        self._write(view[len(MAGIC):start])

    def close(self) -> None:
        """Write the footer (the sink is the caller's to close)."""
        if self._head is None:
            raise ValueError("no part to join")
        footer = _encoded([[fid, t, self._rows if fid == _FILE_ROWS else
                            (v[0], self._groups) if fid == _FILE_ROW_GROUPS else v]
                           for fid, t, v in self._head])
        self._write(footer)
        self._write(len(footer).to_bytes(4, "little") + MAGIC)


def join(parts, sink) -> None:
    """Write to ``sink`` the Parquet file whose row groups are those of
    ``parts`` (whole Parquet files of the same schema and options), in order:
    the bytes one pyarrow writer gives writing their row groups in turn."""
    joined = JoinedFile(sink)
    for part in parts:
        joined.append(part)
    joined.close()


__all__ = ["JoinedFile", "join"]
