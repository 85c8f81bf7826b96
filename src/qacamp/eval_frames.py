"""Frames given to ``qacamp.evaluate`` where a file is expected.

A frame (polars; pandas or a pyarrow table, through Arrow) is taken for the
files that are tables of fields (:data:`FORMATS`): CLEF QA runs (columns
``run, qid, answered, judgment, answer``) and questions (``qid``, optionally
``language``, ``text``), PAN answers (``id, value``) and truth (``id,
same``).  Its columns are found by name (every required one, no other).
Each frame is written in its file format into a private temporary folder,
removed however the call ends, and read there by the readers and checks a
file gets: one validation path, the same numbers as the files.  An error or
a warning about such a file names the argument instead (``runs[0] (a
frame)``) and the frame's row for the file's line.  PAN names a run by its
answers file's folder, so PAN runs given as frames come as a mapping run
name -> frame.  XML (QA4MRE, TREC series) and TREC's judged files are
given as files.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import InputError, QacampError, UsageError
from .tables import polars_frame


@dataclass(frozen=True)
class Format:
    """A file format a frame can be written in: its columns in file order
    (``optional`` ones may be absent), TSV with a header line or JSON lines."""

    columns: tuple[str, ...]
    optional: tuple[str, ...] = ()
    jsonl: bool = False

    @property
    def header_lines(self) -> int:
        return 0 if self.jsonl else 1


#: (kind, argument) -> the format a frame given for it is written in
FORMATS = {
    ("clef-qa", "runs"): Format(("run", "qid", "answered", "judgment", "answer")),
    ("clef-qa", "questions"): Format(("qid",), ("language", "text")),
    ("pan", "runs"): Format(("id", "value"), jsonl=True),
    ("pan", "truth"): Format(("id", "same"), jsonl=True),
}
_LINE = re.compile(r"\bline (\d+)")


def is_frame(value: Any) -> bool:
    """A polars, pandas or pyarrow frame."""
    return polars_frame(value) is not None


class FrameFiles:
    """The frames of one ``qacamp.evaluate`` call as files (module docstring):
    a context manager whose folder is removed at its end."""

    def __init__(self, kind: str):
        self.kind = kind
        self.folder: Path | None = None
        #: temporary file -> (the argument's label, header lines)
        self.labels: dict[str, tuple[str, int]] = {}

    def __enter__(self) -> FrameFiles:
        return self

    def __exit__(self, *exc) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)

    # ------------------------------------------------------------------ frames -> files
    def files(self, given: dict[str, Any]) -> dict[str, Any]:
        """``given`` with every frame replaced by the path of its file."""
        out = dict(given)
        for key, value in given.items():
            fmt = FORMATS.get((self.kind, key))
            if isinstance(value, Mapping) and key == "runs":
                if fmt is None or not fmt.jsonl:
                    raise UsageError(f"{key}: a mapping names PAN runs; a {self.kind} run is "
                                     "named in its file: give a list")
                files = [v for v in value.values() if not is_frame(v)]
                if files:
                    raise UsageError(f"{key}: a mapping gives each run's name to its frame; "
                                     f"{files[0]!r} is no frame (a file names its run by its "
                                     "folder: give files as a list)")
                out[key] = [self._one(fmt, key, f"{key}[{name!r}]", v, str(name))
                            for name, v in value.items()]
            elif isinstance(value, list | tuple):
                out[key] = [self._one(fmt, key, f"{key}[{i}]", v) for i, v in enumerate(value)]
            else:
                out[key] = self._one(fmt, key, key, value)
        return out

    def _one(self, fmt: Format | None, key: str, label: str, value: Any,
             name: str | None = None) -> Any:
        frame = polars_frame(value)
        if frame is None:
            return value
        label = f"{label} (a frame)"
        if fmt is None:
            raise UsageError(f"{label}: a {self.kind} campaign takes its {key} as files (a "
                             "frame is taken for "
                             + ", ".join(f"{k}'s {a}" for k, a in FORMATS) + ")")
        names = [c for c in (*fmt.columns, *fmt.optional) if c in frame.columns]
        missing = [c for c in fmt.columns if c not in frame.columns]
        other = [c for c in frame.columns if c not in names]
        if missing or other:
            raise InputError(label, f"column {(missing or other)[0]}",
                             f"the frame's columns are {', '.join(frame.columns)}",
                             f"give the columns {', '.join(fmt.columns)}"
                             + (f" (and optionally {', '.join(fmt.optional)})"
                                if fmt.optional else ""))
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="qacamp-frames-"))
        if fmt.jsonl and key == "runs":
            if name is None:
                raise UsageError(f"{label}: PAN names a run by its folder: give the runs as a "
                                 "mapping of run names to frames, e.g. runs={'team-a': frame}")
            if not name or "/" in name or "\0" in name or name in (".", ".."):
                raise UsageError(f"{label}: {name!r} cannot name a run's folder")
            path = self.folder / str(len(self.labels)) / name / "answers.jsonl"
        else:
            path = self.folder / f"{len(self.labels)}.{'jsonl' if fmt.jsonl else 'tsv'}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_jsonl(frame, names) if fmt.jsonl else _tsv(label, frame, names),
                        encoding="utf-8")
        self.labels[str(path)] = (label, fmt.header_lines)
        return str(path)

    # ------------------------------------------------------------------ files -> frames
    def _place(self, path: str, place: str | None) -> str | None:
        header = self.labels[path][1]
        if place is None:
            return None
        return _LINE.sub(lambda m: f"row {int(m.group(1)) - header}", place)

    def _text(self, text: str) -> str:
        for path, (label, _h) in self.labels.items():
            text = text.replace(path, label)
        return text

    def error(self, exc: QacampError) -> QacampError:
        """``exc`` naming the argument and row where it names a frame's file."""
        if not self.labels:
            return exc
        if isinstance(exc, InputError) and exc.path in self.labels:
            return InputError(self.labels[exc.path][0], self._place(exc.path, exc.place),
                              self._text(exc.problem), self._text(exc.fix))
        text = self._text(str(exc))
        return exc if text == str(exc) else UsageError(text)

    def warnings(self, frame):
        """The ingest's warnings table naming the arguments and rows."""
        if not self.labels or not frame.height:
            return frame
        import polars as pl

        rows = frame.to_dicts()
        for r in rows:
            if r["file"] in self.labels:
                r["place"] = self._place(r["file"], r["place"])
                r["file"] = self.labels[r["file"]][0]
            r["message"] = self._text(r["message"])
        return pl.DataFrame(rows, schema=frame.schema)


def _tsv(label: str, frame, names: list[str]) -> str:
    """The frame as TSV with a header (a bool as 1/0, a null as an empty field)."""
    import polars as pl

    cols = frame.select(
        (pl.col(c).cast(pl.Int8) if frame.schema[c] == pl.Boolean else pl.col(c))
        .cast(pl.String).fill_null("").alias(c) for c in names)
    for c in names:
        bad = cols[c].str.contains(r"[\t\n\r]")
        if bad.any():
            row = int(bad.arg_max()) + 1
            raise InputError(label, f"row {row}, column {c}", "the value holds a tab or a line "
                             "break, which a TSV field cannot hold", "remove it from the value")
    lines = ["\t".join(names)] + ["\t".join(r) for r in cols.iter_rows()]
    return "\n".join(lines) + "\n"


def _jsonl(frame, names: list[str]) -> str:
    """The frame as JSON lines of its columns (a NaN is written as JSON cannot
    hold it, and refused at its row by the reader)."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n"
                   for r in frame.select(names).iter_rows(named=True))


__all__ = ["FORMATS", "Format", "FrameFiles", "is_frame"]
