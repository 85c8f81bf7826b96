"""Writing and reading back the small files tests make (one set of helpers for
every test module)."""

from __future__ import annotations

import hashlib
import struct
from pathlib import Path


def write_file(base: Path, rel: str, content: str | bytes) -> Path:
    """``content`` (text as UTF-8, or bytes) at ``base / rel``, its folders
    made; the file's path."""
    p = base / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content, encoding="utf-8")
    return p


def w(base: Path, rel: str, content: str | bytes) -> str:
    """:func:`write_file`, returning ``rel`` as given (for configs whose paths are
    relative to ``base``)."""
    write_file(base, rel, content)
    return rel


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) of a PNG file, checking its signature and header chunk."""
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", path
    return struct.unpack(">II", data[16:24])
