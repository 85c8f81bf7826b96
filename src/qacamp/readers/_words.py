"""What the readers' messages and cleaning share: the place "line N (end of
file)" of an error about a whole file, the error of a file without data, the
name of a control character in a field, white space collapsed."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from ..errors import InputError
from ._text import read_bytes


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
