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

:func:`scan_lines` reads a UTF-8 line file in batches of whole lines
(:data:`BATCH_BYTES`, :data:`BATCH_LINES`) as polars frames, with the same
checks and the same first error as the whole text; the columnar readers
(judged TREC runs, canonical PAN JSON lines and CLEF runs, answer keys, CSV
score matrices) parse each batch.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import re
import stat
import zlib
from collections.abc import Callable, Iterator
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
BATCH_BYTES = 8 * 1024**2
"""Bytes of whole lines parsed at a time by the columnar line readers
(:func:`scan_lines`): their memory holds one batch of text, not the file."""
BATCH_LINES = 1_000_000
"""Lines after which a batch closes even if it is short of :data:`BATCH_BYTES`."""

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
    data = bytearray()
    for chunk, _lines in _chunks(path, text):
        data += chunk
    if not data or data.isspace():  # (isspace: no copy of a large buffer)
        raise _empty(path)
    return data


def _empty(path: Path) -> InputError:
    return InputError(path, "byte 0", "the file is empty (or holds only white space)",
                      "give the file its content, or remove it from the config")


def _chunks(path: Path, text: bool) -> Iterator[tuple[bytes, int]]:
    """The chunks of ``path``'s (decompressed) bytes, each yielded once every
    limit has been checked on it (:func:`read_bytes` describes the errors),
    with the line feeds in it (a ``text`` file's; else 0)."""
    fd = _open_regular(path)
    done, end = 0, None
    gz = path.suffix == ".gz"
    try:
        with os.fdopen(fd, "rb") as raw:
            stream = gzip.GzipFile(fileobj=raw, mode="rb") if gz else raw
            with stream:
                try:
                    for chunk, lines in _limited(stream, path, text):
                        done += len(chunk)
                        yield chunk, lines
                except InputError as limit:
                    if gz:
                        _check_gzip_rest(stream, path, done, limit)
                    raise
    except InputError:
        raise
    except EOFError as exc:  # (a gzip stream without its end: cut short, or damaged)
        with contextlib.suppress(OSError):
            end = path.stat().st_size
        raise InputError(path, f"byte {end} (end of file)" if end is not None else "end of file",
                         "cannot read the file: its gzip data ends "
                         f"before the end marker, after {done:,} bytes of text (the file is "
                         f"cut short or damaged: {exc})",
                         "give the complete file (copy or download it again)") from exc
    except (gzip.BadGzipFile, zlib.error, OSError) as exc:
        raise InputError(path, f"byte {done}", f"cannot read the file ({exc})",
                         "check that the file is readable and, if it ends in .gz, "
                         "a complete gzip file") from exc


def _check_gzip_rest(stream, path: Path, done: int, limit: InputError) -> None:
    """A limit crossed in a gzip file may be the garbage that damaged data
    decompresses to (a flipped bit turns text into a megabyte without a line
    break): the rest of the member is decompressed, without keeping it and up
    to the file-size limit, so that its checksum decides which error to report."""
    total = done
    try:
        while total <= MAX_FILE_BYTES:
            chunk = stream.read(CHUNK_BYTES)
            if not chunk:
                return  # the data is intact: the limit it crossed is the error
            total += len(chunk)
    except (gzip.BadGzipFile, EOFError, zlib.error, OSError) as exc:
        raise InputError(path, f"byte {done}", f"the gzip data is damaged ({exc}); read as "
                         f"it decompresses, {limit.place}: {limit.problem}",
                         "get an undamaged copy of the file (`gzip -t FILE` tests one)"
                         ) from exc


def _limited(stream, path: Path, text: bool) -> Iterator[tuple[bytes, int]]:
    """``stream``'s bytes chunk by chunk, checking the limits on each chunk;
    with each chunk, its line feeds when ``text`` (counted once, here), else 0.

    A chunk is never longer than the line limit, so a line crossing the limit
    always reaches past a chunk boundary, where ``open_line`` (the bytes of the
    unfinished line) is checked."""
    size = max(1, min(CHUNK_BYTES, MAX_LINE_BYTES)) if text else CHUNK_BYTES
    total = lines = open_line = 0
    while True:
        chunk = stream.read(size)
        if not chunk:
            return
        if total + len(chunk) > MAX_FILE_BYTES:
            raise InputError(path, f"byte {MAX_FILE_BYTES}",
                             f"the file is larger than {MAX_FILE_BYTES} bytes (the limit)",
                             "split the file (e.g. one file per run)")
        total += len(chunk)
        feeds = 0
        if text:
            first = chunk.find(b"\n")
            if first < 0:
                open_line += len(chunk)
            elif open_line + first > MAX_LINE_BYTES:
                open_line += first
            else:
                feeds = chunk.count(b"\n")
                lines += feeds
                open_line = len(chunk) - chunk.rfind(b"\n") - 1
                if lines > MAX_LINES:
                    raise InputError(path, f"line {MAX_LINES + 1}",
                                     f"the file has more than {MAX_LINES} lines (the limit)",
                                     "split the file (e.g. one file per run), or check that "
                                     "it is not mostly blank lines")
            if open_line > MAX_LINE_BYTES:
                raise _long_line(path, lines + 1)
        yield chunk, feeds


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
        raise _break_error(path, text.count("\n", 0, m.start()) + 1, m.group())
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


def _break_error(path: str | Path, line: int, char: str) -> InputError:
    return InputError(path, f"line {line}",
                      f"the line holds a {_BREAK_NAMES[char]}, which other programs "
                      "read as a line break (one line here could be several records there)",
                      "end lines with \\n (or \\r\\n) only: replace the character by \\n "
                      "where it ends a line, or by a space inside text")


def lines_frame(path: str | Path) -> pl.DataFrame:
    """A frame ``line_no (Int64), line (String)`` of the non-blank, non-comment
    lines of the UTF-8 file ``path``, read in batches (:func:`scan_lines`)."""
    frames = scan_lines(path)
    return pl.concat(frames) if frames else \
        pl.DataFrame(schema={"line_no": pl.Int64, "line": pl.String})


PY_SPACE = ("\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004"
            "\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
"""The characters Python's ``str.strip`` and ``str.split()`` take for white
space (``str.isspace``): polars' own white space (Unicode White_Space) plus
U+001C-U+001F.  Columnar readers strip with these so that a line is blank, a
comment or a field exactly when the line readers say so."""


SPACE = r"[\s\x1c-\x1f]"
"""A regular-expression class of Python's white space (``str.isspace``;
:data:`PY_SPACE`): polars' ``\\s`` is Unicode White_Space, which lacks
U+001C-U+001F."""
#: A line that is blank, or a comment, once stripped as Python's ``str.strip`` strips.
_BLANK = "^" + SPACE + "*$"
_BLANK_OR_COMMENT = "^" + SPACE + "*(?:#|$)"


def _data_rows(df: pl.DataFrame, comments: bool = True) -> pl.DataFrame:
    """The rows that :func:`data_lines` yields (blank and comment lines as
    Python's ``str.strip`` sees them: white space up to the end, or to a ``#``;
    one look at each line's start, no stripped copy of it)."""
    return df.filter(~pl.col("line").str.contains(_BLANK_OR_COMMENT if comments else _BLANK))


_SINGLE_BREAKS = (b"\r", b"\v", b"\f", b"\x1c", b"\x1d", b"\x1e")
_UTF8_BREAKS = ("\x85".encode(), "\u2028".encode(), "\u2029".encode())


def scan_lines(path: str | Path, parse: Callable[[pl.DataFrame], pl.DataFrame] | None = None,
               comments: bool = True) -> list[pl.DataFrame]:
    """The non-blank lines of the UTF-8 text file ``path`` (without the ``#``
    comment lines when ``comments`` is true), read
    and parsed in batches of about :data:`BATCH_BYTES` bytes (whole lines):
    each batch is a frame ``line_no (Int64), line (String)`` passed to
    ``parse`` (default: kept as it is); the parsed batches are returned.

    Memory holds one batch of text at a time, never the whole file.  The
    errors are exactly :func:`read_text`'s on the whole text, in the same
    order: a limit (raised while reading), an empty file, the first invalid
    byte, the first line-break character, then the first error ``parse``
    raises (``parse`` must check its batch in line order).  An error found in
    a batch is held while the rest of the file is read for an error that
    comes first in that order."""
    decode_err = break_err = parse_err = None
    frames: list[pl.DataFrame] = []
    line0, blank, first = 1, True, True
    for batch, lines in _batches(Path(path)):
        if blank and not batch.isspace():
            blank = False
        start, line0 = line0, line0 + lines
        if first:
            first = False
            if batch.startswith(_BOM):
                batch = batch[len(_BOM):]
        if decode_err is not None:
            continue
        ascii_only = batch.isascii()
        if not ascii_only:
            try:
                batch.decode("utf-8")
            except UnicodeDecodeError as exc:
                pos = exc.start
                line = start + batch.count(b"\n", 0, pos)
                decode_err = InputError(path, f"line {line}",
                                        f"byte 0x{batch[pos]:02x} is not valid utf-8",
                                        "save the file as utf-8")
                continue
        if break_err is not None:
            continue
        if b"\r" in batch:
            batch = batch.replace(b"\r\n", b"\n")
        hits = [(i, b) for b in _SINGLE_BREAKS + (() if ascii_only else _UTF8_BREAKS)
                if (i := batch.find(b)) >= 0]
        if hits:
            pos, char = min(hits)
            break_err = _break_error(path, start + batch.count(b"\n", 0, pos),
                                     char.decode("utf-8"))
            continue
        if parse_err is not None:
            continue
        df = _data_rows(_batch_frame(batch, start), comments)
        if df.height:
            try:
                frames.append(parse(df) if parse is not None else df)
            except InputError as exc:
                parse_err = exc
    if blank:
        raise _empty(Path(path))
    for err in (decode_err, break_err, parse_err):
        if err is not None:
            raise err
    return frames


def first_data_line(path: str | Path) -> tuple[int, str] | None:
    """``(line_no, line)`` of the first line of ``path`` that :func:`data_lines`
    yields (None if there is none), after the same checks of the whole file
    (limits, encoding, line breaks), without a Python string per line."""
    frames = scan_lines(path, lambda df: df.slice(0, 1))
    return (int(frames[0]["line_no"][0]), frames[0]["line"][0]) if frames else None


def _batches(path: Path) -> Iterator[tuple[bytes, int]]:
    """``path``'s bytes in batches of whole lines, each with its line feeds: a
    batch closes at the end of the first read chunk that brings it to
    :data:`BATCH_BYTES` bytes or :data:`BATCH_LINES` lines (so a file of
    blank lines is not read as millions of rows at once).  A batch ends at
    the last line feed read, so it holds every line feed read since the last
    one (the bytes after it hold none)."""
    buf = bytearray()
    lines = 0
    for chunk, feeds in _chunks(path, text=True):
        buf += chunk
        lines += feeds
        if len(buf) >= BATCH_BYTES or lines >= BATCH_LINES:
            cut = buf.rfind(b"\n") + 1
            if cut:
                yield bytes(buf[:cut]), lines
                del buf[:cut]
                lines = 0
    if buf:
        yield bytes(buf), lines


def _batch_frame(batch: bytes, start: int) -> pl.DataFrame:
    """The lines of ``batch`` (valid UTF-8) as a frame ``line_no, line``: the
    batch is one string split on its line feeds by polars (no Python string
    per line)."""
    lines = pl.Series("line", [batch.decode("utf-8")], dtype=pl.String).str.split("\n").explode()
    return pl.DataFrame({"line_no": pl.int_range(start, start + len(lines), eager=True),
                         "line": lines})
