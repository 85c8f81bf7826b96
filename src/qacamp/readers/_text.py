"""Low-level reading shared by every reader: plain or gzip files, strict
decoding, size limits, numbered lines, safe XML.

Limits (documented in docs/formats.md): a raw file may hold at most
:data:`MAX_FILE_BYTES` bytes (after gzip decompression) and a line at most
:data:`MAX_LINE_BYTES` bytes.  An empty file is an error.  Text is decoded
strictly: a byte sequence that is invalid in the file's encoding raises
:class:`~qacamp.errors.InputError` naming the line.  A UTF-8 byte-order mark
is dropped and ``\\r\\n`` line ends are accepted.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from pathlib import Path
from xml.etree.ElementTree import Element, ParseError

import polars as pl
from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

from ..errors import InputError

MAX_FILE_BYTES = 2 * 1024**3
"""Largest raw file accepted (2 GiB, after decompression)."""
MAX_LINE_BYTES = 1024**2
"""Longest line accepted in a line-oriented file (1 MiB)."""
MAX_XML_DEPTH = 64
"""Deepest element nesting accepted in an XML file (the real files nest 6 deep;
deeper nesting would exhaust the recursion of ElementTree's tree walks)."""

_BOM = b"\xef\xbb\xbf"


def read_bytes(path: str | Path) -> bytes:
    """The bytes of ``path`` (decompressed if it ends in ``.gz``).

    Raises InputError if the file is missing, empty, not valid gzip, or larger
    than :data:`MAX_FILE_BYTES`.
    """
    path = Path(path)
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rb") as fh:
                data = fh.read(MAX_FILE_BYTES + 1)
        else:
            if path.stat().st_size > MAX_FILE_BYTES:
                raise _too_big(path)
            data = path.read_bytes()
    except FileNotFoundError as exc:
        raise InputError(path, None, "file not found", "check the path in the config") from exc
    except (gzip.BadGzipFile, EOFError, OSError) as exc:
        raise InputError(path, None, f"cannot read the file ({exc})",
                         "check that the file is readable and, if it ends in .gz, "
                         "a complete gzip file") from exc
    if len(data) > MAX_FILE_BYTES:
        raise _too_big(path)
    if not data.strip():
        raise InputError(path, "byte 0", "the file is empty (or holds only white space)",
                         "give the file its content, or remove it from the config")
    return data


def _too_big(path: Path) -> InputError:
    return InputError(path, f"byte {MAX_FILE_BYTES}", f"the file is larger than {MAX_FILE_BYTES} bytes (the limit)",
                      "split the file (e.g. one file per run)")


def decode(data: bytes, path: str | Path, encoding: str = "utf-8") -> str:
    """Decode ``data`` strictly; an invalid byte raises InputError naming its line."""
    if data.startswith(_BOM) and encoding.replace("-", "").lower() == "utf8":
        data = data[len(_BOM):]
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(path, f"line {line}",
                         f"byte 0x{data[exc.start]:02x} is not valid {encoding}",
                         f"save the file as {encoding}") from exc


def read_text(path: str | Path, encoding: str = "utf-8") -> str:
    """The decoded text of ``path`` with ``\\r\\n`` normalised to ``\\n``."""
    text = decode(read_bytes(path), path, encoding)
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    return text


def _check_line_lengths(lines: list[str], path: str | Path) -> None:
    for i, line in enumerate(lines, 1):
        if len(line) > MAX_LINE_BYTES // 4 and len(line.encode("utf-8")) > MAX_LINE_BYTES:
            raise InputError(path, f"line {i}",
                             f"the line is longer than {MAX_LINE_BYTES} bytes (the limit)",
                             "check that the file has line breaks and is in the right format")


def read_lines(path: str | Path, encoding: str = "utf-8") -> list[str]:
    """All lines of ``path`` (without line ends), line ``i`` at index ``i - 1``."""
    text = read_text(path, encoding)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    _check_line_lengths(lines, path)
    return lines


def iter_lines(path: str | Path, encoding: str = "utf-8") -> Iterator[tuple[int, str]]:
    """Yield ``(line_no, line)`` for every line of ``path``, numbered from 1."""
    yield from enumerate(read_lines(path, encoding), 1)


def data_lines(path: str | Path, encoding: str = "utf-8",
               comments: bool = True) -> Iterator[tuple[int, str]]:
    """Yield ``(line_no, line)`` for the non-blank lines, skipping ``#`` comment
    lines when ``comments`` is true."""
    for no, line in iter_lines(path, encoding):
        if not line.strip() or (comments and line.lstrip().startswith("#")):
            continue
        yield no, line


def lines_frame(path: str | Path, encoding: str = "utf-8") -> pl.DataFrame:
    """A frame ``line_no (Int64), line (String)`` of the non-blank, non-comment
    lines of ``path`` (vectorised; for large line-oriented files)."""
    text = read_text(path, encoding)
    s = pl.Series("line", text.split("\n"), dtype=pl.String)
    df = pl.DataFrame({"line_no": pl.int_range(1, len(s) + 1, eager=True), "line": s})
    too_long = df.filter(pl.col("line").str.len_bytes() > MAX_LINE_BYTES)
    if too_long.height:
        raise InputError(path, f"line {too_long['line_no'][0]}",
                         f"the line is longer than {MAX_LINE_BYTES} bytes (the limit)",
                         "check that the file has line breaks and is in the right format")
    stripped = pl.col("line").str.strip_chars()
    return df.filter((stripped != "") & ~stripped.str.starts_with("#"))


def first_line(df: pl.DataFrame, mask: pl.Expr | pl.Series) -> int | None:
    """The ``line_no`` of the first row of ``df`` where ``mask`` holds, else None."""
    hit = df.filter(mask)
    return int(hit["line_no"][0]) if hit.height else None


def split_fields(path: str | Path, df: pl.DataFrame, names: list[str], rest: str | None,
                 fmt: str) -> pl.DataFrame:
    """Split the ``line`` column of ``df`` into white-space separated fields
    ``names`` plus, if ``rest`` is given, the remainder of the line (possibly
    empty) as column ``rest``.  A line with too few fields raises InputError."""
    fields = r"\s+".join(r"(\S+)" for _ in names)
    pattern = r"^\s*" + fields + (r"(?:\s+(.*?))?\s*$" if rest else r"\s*$")
    cols = names + ([rest] if rest else [])
    parts = df["line"].str.extract_groups(pattern).struct.rename_fields(cols)
    out = df.select("line_no").with_columns(parts.struct.unnest())
    bad = first_line(out, pl.col(names[0]).is_null())
    if bad is not None:
        n = len(names)
        want = f"{n} fields and the rest of the line" if rest else f"exactly {n} fields"
        raise InputError(path, f"line {bad}",
                         f"expected {want} separated by white space ({fmt})",
                         f"write the line as `{fmt}`")
    if rest:
        out = out.with_columns(pl.col(rest).fill_null(""))
    return out


def check_one_tag(path: str | Path, df: pl.DataFrame, col: str = "tag") -> str:
    """The single run tag of a run file; a line naming another tag raises InputError."""
    tag = df[col][0]
    bad = first_line(df, pl.col(col) != tag)
    if bad is not None:
        other = df.filter(pl.col("line_no") == bad)[col][0]
        raise InputError(path, f"line {bad}",
                         f"the line names run tag '{other}' but the file's first line names '{tag}'",
                         "put each run in its own file (one run tag per file)")
    return tag


def check_unique(path: str | Path, df: pl.DataFrame, keys: list[str], what: str,
                 fix: str) -> None:
    """Raise InputError at the first line repeating a value of ``keys``."""
    dup = first_line(df, ~pl.struct(keys).is_first_distinct())
    if dup is not None:
        row = df.filter(pl.col("line_no") == dup).row(0, named=True)
        val = " ".join(str(row[k]) for k in keys)
        raise InputError(path, f"line {dup}", f"duplicate {what} ({val})", fix)


def end_of_file(path: str | Path) -> str:
    """The place "line N (end of file)" of ``path`` (for errors about the whole file)."""
    try:
        data = read_bytes(path)
    except InputError:
        return "byte 0"
    n = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    return f"line {n} (end of file)"


def no_data(path: str | Path, fmt: str) -> InputError:
    """The error for a file without any data line."""
    return InputError(path, end_of_file(path), "the file has no data lines",
                      f"give the file its content in the format `{fmt}`")


# --------------------------------------------------------------------------- XML

class _Parser(DefusedXMLParser):
    """defusedxml's parser (entity declarations, external entities refused) that
    also refuses a DOCTYPE naming an external DTD (SYSTEM or PUBLIC id).
    Internal DTD subsets without entity declarations are accepted.  Elements
    nested deeper than :data:`MAX_XML_DEPTH` are refused."""

    def __init__(self, source: str):
        super().__init__(forbid_dtd=False, forbid_entities=True, forbid_external=True)
        self._source = source
        self._depth = 0
        self.parser.StartDoctypeDeclHandler = self._refuse_external_dtd
        start, end = self.parser.StartElementHandler, self.parser.EndElementHandler

        def start_element(*args):
            self._depth += 1
            if self._depth > MAX_XML_DEPTH:
                raise InputError(self._source, f"line {self.parser.CurrentLineNumber}",
                                 f"elements nested more than {MAX_XML_DEPTH} deep (the limit)",
                                 "check the file's markup (the formats nest a few levels)")
            return start(*args)

        def end_element(*args):
            self._depth -= 1
            return end(*args)

        self.parser.StartElementHandler = start_element
        self.parser.EndElementHandler = end_element

    def _refuse_external_dtd(self, name, sysid, pubid, has_internal_subset):
        if sysid or pubid:
            raise InputError(self._source, f"line {self.parser.CurrentLineNumber}",
                             f"the DOCTYPE names an external DTD ({sysid or pubid})",
                             "remove the external DTD reference (it is never fetched)")


def parse_xml(path: str | Path) -> Element:
    """Parse an XML file safely and return its root element.

    The encoding is the one the XML declaration names (UTF-8 by default).
    Entity declarations, external entities and external DTDs raise InputError.
    """
    data = read_bytes(path)
    parser = _Parser(str(path))
    try:
        parser.feed(data)
        return parser.close()
    except DefusedXmlException as exc:
        line = parser.parser.CurrentLineNumber
        raise InputError(path, f"line {line}",
                         f"the XML declares entities or references external content ({exc})",
                         "remove <!ENTITY> declarations and external references "
                         "(qacamp never expands or fetches them)") from exc
    except (ValueError, LookupError) as exc:
        # pyexpat: an encoding declaration naming an unknown or multi-byte
        # encoding it cannot decode (e.g. shift_jis, utf-7, utf-32)
        line = parser.parser.CurrentLineNumber
        raise InputError(path, f"line {line}", f"unsupported XML encoding ({exc})",
                         "save the file as UTF-8 (or ISO-8859-1) and declare that encoding"
                         ) from exc
    except ParseError as exc:
        line, col = exc.position
        raise InputError(path, f"line {line}, column {col}", f"malformed XML ({exc})",
                         "fix the XML (check encoding declaration, tags and escaping)") from exc


def all_text(elem: Element) -> str:
    """The text of ``elem`` and its descendants in document order, like
    ``"".join(elem.itertext())`` but without recursion (deeply nested
    markup would otherwise raise RecursionError)."""
    out: list[str] = []
    stack: list[tuple[Element, bool]] = [(elem, False)]
    while stack:
        node, tail = stack.pop()
        if tail:
            out.append(node.tail or "")
            continue
        if isinstance(node.tag, str):
            out.append(node.text or "")
        for child in reversed(node):
            stack.append((child, True))
            stack.append((child, False))
    return "".join(out)


def describe(elem: Element, *keys: str) -> str:
    """``<tag k='v'>`` for error messages."""
    attrs = " ".join(f"{k}='{elem.get(k)}'" for k in keys if elem.get(k) is not None)
    return f"<{elem.tag}{' ' + attrs if attrs else ''}>"


def norm_space(text: str | None) -> str:
    """Collapse runs of white space to one space and strip."""
    return re.sub(r"\s+", " ", text or "").strip()
