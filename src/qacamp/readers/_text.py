"""Low-level reading shared by every reader: plain or gzip files, bounded
reading, strict decoding, numbered lines.

Every limit is a module constant (documented in docs/formats.md, "Limits";
tests monkeypatch them):

* :data:`MAX_FILE_BYTES` bytes per file, counted after gzip decompression;
* :data:`MAX_LINE_BYTES` bytes per line and :data:`MAX_LINES` lines per file
  for every text file (line formats, ``<top>`` files, CSV, JSON lines and XML);
* :data:`MAX_XML_DEPTH` (see :mod:`._xml`).

Files are read in chunks of at most :data:`CHUNK_BYTES` (gzip is decompressed
chunk by chunk) and every limit is checked on each chunk, so reading stops at
the first limit crossed: a compression bomb costs at most about one limit's
worth of memory, never its expanded size.  Only regular files are read (a
named pipe, device or directory is refused before anything is read).  An empty
file is an error.  Text is decoded strictly: a byte sequence that is invalid
in the file's encoding raises :class:`~qacamp.errors.InputError` naming the
line.  A UTF-8 byte-order mark is dropped and ``\\r\\n`` line ends are
accepted; any other character that software reads as a line break (a lone CR,
VT, FF, the separators U+001C-U+001E, NEL, U+2028, U+2029) is refused in
line-oriented files, so one line can never hide several records.
"""

from __future__ import annotations

import gzip
import os
import re
import stat
import unicodedata
import zlib
from collections.abc import Iterator
from pathlib import Path

import polars as pl

from ..errors import InputError

MAX_FILE_BYTES = 1024**3
"""Largest raw file accepted (1 GiB, counted after gzip decompression)."""
MAX_LINE_BYTES = 1024**2
"""Longest line accepted in a text file (1 MiB, bytes before the line feed)."""
MAX_LINES = 10_000_000
"""Most lines accepted in a text file (ten million)."""
CHUNK_BYTES = 1024**2
"""Bytes read (or decompressed) at a time."""

_BOM = b"\xef\xbb\xbf"
_BREAKS = re.compile("[\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_BREAK_NAMES = {"\r": "carriage return (CR) without a line feed", "\v": "vertical tab (VT)",
                "\f": "form feed (FF)", "\x1c": "file separator (U+001C)",
                "\x1d": "group separator (U+001D)", "\x1e": "record separator (U+001E)",
                "\x85": "next-line character (NEL, U+0085)",
                "\u2028": "line separator (U+2028)", "\u2029": "paragraph separator (U+2029)"}
_KINDS = ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISDIR, "a directory"))


def _open_regular(path: Path) -> int:
    """A read-only descriptor of ``path``, refused unless it is a regular file.

    ``O_NONBLOCK`` keeps the open of a named pipe without writer from blocking;
    the type is then checked on the open descriptor, before any read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError as exc:
        raise InputError(path, None, "file not found", "check the path in the config") from exc
    except OSError as exc:  # permission, symlink loop (ELOOP), name too long, ...
        raise InputError(path, "byte 0", f"cannot open the file ({exc.strerror or exc})",
                         "check the path and that the file is readable") from exc
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        what = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        raise InputError(path, "byte 0", f"the path is {what}, not a regular file",
                         "give the path of a regular file (qacamp never reads pipes or devices)")
    return fd


def read_bytes(path: str | Path, text: bool = True) -> bytearray:
    """The bytes of ``path`` (decompressed if it ends in ``.gz``), read in chunks.

    Raises InputError if the file is missing, not a regular file, empty, not
    valid gzip, or crosses a limit: more than :data:`MAX_FILE_BYTES` bytes,
    and for a ``text`` file a line longer than :data:`MAX_LINE_BYTES` or more
    than :data:`MAX_LINES` lines.  Reading stops at the first limit crossed.
    """
    path = Path(path)
    fd = _open_regular(path)
    data = bytearray()
    try:
        with os.fdopen(fd, "rb") as raw:
            stream = gzip.GzipFile(fileobj=raw, mode="rb") if path.suffix == ".gz" else raw
            with stream:
                _read_chunks(stream, path, data, text)
    except InputError:
        raise
    except (gzip.BadGzipFile, EOFError, zlib.error, OSError) as exc:
        raise InputError(path, f"byte {len(data)}", f"cannot read the file ({exc})",
                         "check that the file is readable and, if it ends in .gz, "
                         "a complete gzip file") from exc
    if not data or data.isspace():  # (isspace: no copy of a large buffer)
        raise InputError(path, "byte 0", "the file is empty (or holds only white space)",
                         "give the file its content, or remove it from the config")
    return data


def _read_chunks(stream, path: Path, data: bytearray, text: bool) -> None:
    """Append ``stream``'s bytes to ``data`` chunk by chunk, checking the limits.

    A chunk is never longer than the line limit, so a line crossing the limit
    always reaches past a chunk boundary, where ``open_line`` (the bytes of the
    unfinished line) is checked."""
    size = max(1, min(CHUNK_BYTES, MAX_LINE_BYTES)) if text else CHUNK_BYTES
    lines = open_line = 0
    while True:
        chunk = stream.read(size)
        if not chunk:
            return
        if len(data) + len(chunk) > MAX_FILE_BYTES:
            raise InputError(path, f"byte {MAX_FILE_BYTES}",
                             f"the file is larger than {MAX_FILE_BYTES} bytes (the limit)",
                             "split the file (e.g. one file per run)")
        data += chunk
        if not text:
            continue
        first = chunk.find(b"\n")
        if first < 0:
            open_line += len(chunk)
        elif open_line + first > MAX_LINE_BYTES:
            open_line += first
        else:
            lines += chunk.count(b"\n")
            open_line = len(chunk) - chunk.rfind(b"\n") - 1
            if lines > MAX_LINES:
                raise InputError(path, f"line {MAX_LINES + 1}",
                                 f"the file has more than {MAX_LINES} lines (the limit)",
                                 "split the file (e.g. one file per run), or check that "
                                 "it is not mostly blank lines")
        if open_line > MAX_LINE_BYTES:
            raise _long_line(path, lines + 1)


def _long_line(path: str | Path, line: int) -> InputError:
    return InputError(path, f"line {line}",
                      f"the line is longer than {MAX_LINE_BYTES} bytes (the limit)",
                      "check that the file has line breaks and is in the right format")


def decode(data: bytes | bytearray, path: str | Path, encoding: str = "utf-8") -> str:
    """Decode ``data`` strictly; an invalid byte raises InputError naming its line."""
    start = len(_BOM) if data.startswith(_BOM) and \
        encoding.replace("-", "").lower() == "utf8" else 0
    try:
        return data.decode(encoding) if not start else data[start:].decode(encoding)
    except UnicodeDecodeError as exc:
        pos = exc.start + start
        line = data.count(b"\n", 0, pos) + 1
        raise InputError(path, f"line {line}",
                         f"byte 0x{data[pos]:02x} is not valid {encoding}",
                         f"save the file as {encoding}") from exc


def read_text(path: str | Path, encoding: str = "utf-8") -> str:
    """The decoded text of a line-oriented file, ``\\r\\n`` normalised to ``\\n``.

    Any other line-break character (lone CR, VT, FF, U+001C-U+001E, NEL,
    U+2028, U+2029) raises InputError at its line."""
    text = decode(read_bytes(path), path, encoding)
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    m = _BREAKS.search(text)
    if m is not None:
        line = text.count("\n", 0, m.start()) + 1
        raise InputError(path, f"line {line}",
                         f"the line holds a {_BREAK_NAMES[m.group()]}, which other programs "
                         "read as a line break (one line here could be several records there)",
                         "end lines with \\n (or \\r\\n) only: replace the character by \\n "
                         "where it ends a line, or by a space inside text")
    return text


def read_lines(path: str | Path, encoding: str = "utf-8") -> list[str]:
    """All lines of ``path`` (without line ends), line ``i`` at index ``i - 1``."""
    lines = read_text(path, encoding).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
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


def control_character(text: str) -> str | None:
    """The name of the first control character of ``text`` (a tab, a line break,
    any other C0/C1 control, U+2028/U+2029), or None."""
    for ch in text:
        if ch in "\u2028\u2029" or unicodedata.category(ch) == "Cc":
            name = {"\t": "tab", "\n": "line feed", "\r": "carriage return"}.get(ch)
            return f"{name} (U+{ord(ch):04X})" if name else f"control character U+{ord(ch):04X}"
    return None


def norm_space(text: str | None) -> str:
    """Collapse runs of white space to one space and strip."""
    return re.sub(r"\s+", " ", text or "").strip()
