"""A bounded reader of a Parquet footer (Thrift compact protocol), in Python.

pyarrow decodes a footer in C++, and some damage in it (a column chunk's size
statistics whose histograms do not fit the schema) throws from a place that
cannot report it: the process aborts.  So before pyarrow sees the footer of a
file that qacamp holds no record of, :func:`check_footer` walks it here,
where every length is checked against the bytes left (nothing is allocated
from a length), and checks what pyarrow would trust: the schema tree, UTF-8
names, one column chunk per leaf per row group, no external or encrypted
column data, every chunk and page offset inside the file's data bytes, row
counts that add up, and size-statistics histograms of the schema's levels.

Field numbers follow parquet-format's ``parquet.thrift``.
"""

from __future__ import annotations

MAX_DEPTH = 24
_BOOL_TRUE, _BOOL_FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY, _LIST, _SET, _MAP, _STRUCT = \
    range(1, 13)


class FooterError(ValueError):
    """The footer is not a whole, consistent Parquet file metadata."""


class _Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise FooterError("its footer ends inside a field")
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
            if shift > 70:
                raise FooterError("its footer holds an integer longer than 10 bytes")

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def take(self, n: int) -> bytes:
        if n < 0 or n > len(self.data) - self.pos:
            raise FooterError(f"its footer claims {n} bytes where {len(self.data) - self.pos} "
                              "are left")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def value(self, kind: int, depth: int):
        if kind in (_BOOL_TRUE, _BOOL_FALSE):
            return kind == _BOOL_TRUE
        if kind == _BYTE:
            return self.byte()
        if kind in (_I16, _I32, _I64):
            return self.zigzag()
        if kind == _DOUBLE:
            return self.take(8)
        if kind == _BINARY:
            return self.take(self.varint())
        if kind in (_LIST, _SET):
            head = self.byte()
            size, elem = head >> 4, head & 0x0F
            if size == 15:
                size = self.varint()
            if size > len(self.data) - self.pos:
                raise FooterError(f"its footer claims a list of {size} items where "
                                  f"{len(self.data) - self.pos} bytes are left")
            if elem in (_BOOL_TRUE, _BOOL_FALSE):
                return [self.byte() == 1 for _ in range(size)]
            return [self.value(elem, depth + 1) for _ in range(size)]
        if kind == _MAP:
            size = self.varint()
            if size == 0:
                return []
            if 2 * size > len(self.data) - self.pos:
                raise FooterError(f"its footer claims a map of {size} entries")
            types = self.byte()
            return [(self.value(types >> 4, depth + 1), self.value(types & 0x0F, depth + 1))
                    for _ in range(size)]
        if kind == _STRUCT:
            return self.struct(depth + 1)
        raise FooterError(f"its footer holds an unknown field type {kind}")

    def struct(self, depth: int = 0) -> dict:
        if depth > MAX_DEPTH:
            raise FooterError("its footer nests deeper than any Parquet metadata")
        out: dict[int, object] = {}
        last = 0
        while True:
            head = self.byte()
            if head == 0:
                return out
            kind, delta = head & 0x0F, head >> 4
            last = last + delta if delta else self.zigzag()
            out[last] = self.value(kind, depth)


def _int(d: dict, key: int, what: str, lo: int = 0, hi: int | None = None) -> int:
    v = d.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or v < lo or (hi is not None and v > hi):
        raise FooterError(f"its footer has no valid {what} ({v!r})")
    return v


def _leaves(schema: list) -> list[tuple[int, int]]:
    """(max definition level, max repetition level) of every leaf, in order."""
    if not schema or not all(isinstance(e, dict) for e in schema):
        raise FooterError("its footer has no schema")
    for e in schema:
        name = e.get(4)
        if not isinstance(name, bytes):
            raise FooterError("a schema element has no name")
        try:
            name.decode("utf-8")
        except UnicodeDecodeError:
            raise FooterError("a column name is not valid UTF-8") from None
    out: list[tuple[int, int]] = []
    pos = 0

    def walk(d: int, r: int, depth: int) -> None:
        nonlocal pos
        if pos >= len(schema) or depth > MAX_DEPTH:
            raise FooterError("its schema's children do not add up")
        e = schema[pos]
        pos += 1
        rep = e.get(3, 0) if depth else 0
        if rep not in (0, 1, 2):
            raise FooterError(f"a schema element has the repetition {rep!r}")
        d, r = d + (rep != 0), r + (rep == 2)
        children = e.get(5)
        if children is None and depth:
            out.append((d, r))
            return
        n = _int(e, 5, "number of schema children")
        for _ in range(n):
            walk(d, r, depth + 1)

    walk(0, 0, 0)
    if pos != len(schema):
        raise FooterError("its schema's children do not add up")
    return out


def check_footer(footer: bytes, data_end: int) -> None:
    """Decode and check a footer (module docstring); ``data_end`` is the offset
    where the footer starts (column data lies in bytes 4..data_end)."""
    r = _Reader(footer)
    meta = r.struct()
    if 8 in meta or 9 in meta:
        raise FooterError("its footer says the file is encrypted")
    leaves = _leaves(meta.get(2) or [])
    num_rows = _int(meta, 3, "row count")
    groups = meta.get(4) or []
    if not isinstance(groups, list):
        raise FooterError("its footer has no list of row groups")
    total = 0
    for i, rg in enumerate(groups):
        if not isinstance(rg, dict):
            raise FooterError(f"row group {i} is not a structure")
        rows = _int(rg, 3, f"row count of row group {i}")
        total += rows
        chunks = rg.get(1)
        if not isinstance(chunks, list) or len(chunks) != len(leaves):
            raise FooterError(f"row group {i} does not hold one column chunk per column")
        for j, (chunk, (max_def, max_rep)) in enumerate(zip(chunks, leaves, strict=True)):
            _check_chunk(chunk, i, j, rows, max_def, max_rep, data_end)
    if total != num_rows:
        raise FooterError(f"the file claims {num_rows} rows, its row groups {total}")


def _check_chunk(chunk, i: int, j: int, rows: int, max_def: int, max_rep: int,
                 end: int) -> None:
    where = f"column chunk {j} of row group {i}"
    if not isinstance(chunk, dict) or not isinstance(chunk.get(3), dict):
        raise FooterError(f"{where} has no metadata")
    if 1 in chunk or 8 in chunk or 9 in chunk:
        raise FooterError(f"{where} points to another file or is encrypted")
    md = chunk[3]
    _int(md, 1, f"type of {where}", 0, 7)
    _int(md, 4, f"compression of {where}", 0, 7)
    values = _int(md, 5, f"value count of {where}")
    size = _int(md, 7, f"size of {where}")
    _int(md, 6, f"uncompressed size of {where}")
    data = _int(md, 9, f"data offset of {where}")
    start = _int(md, 11, f"dictionary offset of {where}") if md.get(11) else data
    if size and not 4 <= start < start + size <= end:
        raise FooterError(f"{where} lies outside the file's data")
    if values and not start <= data < start + size:
        raise FooterError(f"the data pages of {where} lie outside its bytes")
    for key, what in ((10, "index page"), (14, "bloom filter")):
        if key in md and not 4 <= _int(md, key, f"{what} offset of {where}") < end:
            raise FooterError(f"the {what} of {where} lies outside the file's data")
    if max_rep == 0 and values != rows:
        raise FooterError(f"{where} holds {values} values for {rows} rows")
    stats = md.get(16)
    if stats is not None:
        if not isinstance(stats, dict):
            raise FooterError(f"the size statistics of {where} are not a structure")
        for key, levels, what in ((2, max_rep, "repetition"), (3, max_def, "definition")):
            hist = stats.get(key)
            if hist is not None and (not isinstance(hist, list) or
                                     (hist and len(hist) != levels + 1)):
                raise FooterError(f"the {what} level histogram of {where} does not fit "
                                  "the schema")


__all__ = ["check_footer", "FooterError"]
