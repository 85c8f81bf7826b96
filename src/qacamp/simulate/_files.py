"""Deterministic, atomic file writing for the simulator.

Gzip files are written with ``mtime=0`` and no embedded file name, so the
same content always gives the same bytes.  The compression level is a fixed
function of the data size: 6 up to ``FAST_ABOVE`` bytes (small demo files), 1
above (large simulated campaigns, where compression dominates the run time).
"""

from __future__ import annotations

import gzip
from collections.abc import Iterable
from pathlib import Path

import polars as pl

from ..io import atomic_path

GZIP_LEVEL = 6
FAST_ABOVE = 256 * 1024


def join_lines(lines: Iterable[str] | pl.Series) -> str:
    """Lines joined with ``\\n`` and a final newline ("" for no lines)."""
    if isinstance(lines, pl.Series):
        lines = lines.to_list()
    text = "\n".join(lines)
    return text + "\n" if text else ""


def write_bytes(data: bytes, path: str | Path, gz: bool | None = None) -> int:
    """Write ``data`` atomically to ``path`` (gzip-compressed when the name ends
    in ``.gz`` or ``gz`` is true); return the number of bytes written."""
    path = Path(path)
    if gz is None:
        gz = path.name.endswith(".gz")
    if gz:
        level = GZIP_LEVEL if len(data) <= FAST_ABOVE else 1
        data = gzip.compress(data, compresslevel=level, mtime=0)
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    return len(data)


def write_text(text: str, path: str | Path, encoding: str = "utf-8") -> int:
    """Write ``text`` (``\\n`` line ends) atomically; ``.gz`` names are compressed."""
    return write_bytes(text.encode(encoding), path)


def write_lines(lines: Iterable[str] | pl.Series, path: str | Path) -> int:
    """Write lines (see :func:`join_lines`) atomically."""
    return write_text(join_lines(lines), path)
