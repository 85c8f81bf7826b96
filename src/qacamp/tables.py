"""Canonical tables: the one place where their schemas are written down.

Every reader returns frames with exactly these columns and dtypes (checked by
:func:`conform`); ingest writes each to ``results/<campaign>/ingest/<name>.parquet``.
Ids are kept exactly as they appear in the raw files (strings, never hashed);
Parquet stores string columns dictionary-encoded.

Tables
------
questions
    One row per question (unit of scoring).  ``qtype`` is FACTOID, LIST, OTHER
    (TREC), DEFINITION (TREC 2003; scored by nuggets like OTHER), MC (QA4MRE
    multiple choice), QA (CLEF QA) or VERIFICATION (PAN).
    ``series`` is the TREC target id, ``topic``/``test`` the QA4MRE topic and
    reading test, ``auxiliary_of`` the main question an auxiliary question
    simplifies (QA4MRE 2013; null if unknown or a main question),
    ``nil_answer`` is true when the question has no known answer (TREC NIL),
    null when unknown.  ``position`` is the order in the question file.
options
    QA4MRE answer options: one row per (qid, option).  ``is_noa`` marks the
    "None of the above" option, ``correct`` the gold answer.
responses
    One row per returned item: ``run``, ``qid``, ``item`` (1 for single-answer
    questions; the item number for list and Other responses), ``rank`` (the
    line's position among the run's questions: the run's confidence order for
    TREC factoid runs), ``docid`` (null if none; "NIL" for a NIL answer),
    ``answer`` (the string or chosen option), ``answered`` (false for a
    deliberate non-response), ``candidate`` (for unanswered responses, the
    hypothetical answer or option, null if none), ``nil`` (the answer is NIL),
    ``score`` (the run's own value for the question where the format has one:
    the PAN probability in [0, 1]; null otherwise).
judgments
    One row per judged item and judgment set: ``judgment`` is R, W, U, X or L
    (right, wrong, unsupported, inexact, locally correct: TREC 2006-2007).  For
    an unanswered response it judges the candidate (null when there is no
    candidate).  ``distinct`` marks the
    one counted instance of each right list answer (null for non-list).
nuggets
    Other- and definition-question nuggets: ``vital`` and the optional pyramid
    ``weight``.
nugget_matches
    Other and definition judgments: nugget ``nugget`` found in item ``item``
    of run ``run``.
list_key
    Known list instances (answer keys), one row per (qid, instance).
patterns
    Answer patterns (Perl-style regexes) with optional supporting docid.
matrix
    A generic score matrix in long form: (unit, run, value).
warnings
    What ingest noticed without refusing the input (docs/formats.md,
    "Warnings"): ``file`` and ``place`` (e.g. ``line 12``) it concerns,
    ``kind`` (``coverage``, ``other-no-part-two``, ``autojudge-truncated``,
    ``autojudge-timeout``), a one-line ``message`` and ``count`` (how many
    cases the row stands for).  Also printed on stderr (the ingest log).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from .errors import InputError, UsageError

S = pl.String
SCHEMAS: dict[str, dict[str, pl.DataType]] = {
    "questions": {
        "qid": S,
        "qtype": S,
        "series": S,
        "topic": S,
        "topic_name": S,
        "test": S,
        "language": S,
        "auxiliary_of": S,
        "nil_answer": pl.Boolean,
        "position": pl.Int32,
        "text": S,
    },
    "options": {"qid": S, "option": S, "text": S, "correct": pl.Boolean, "is_noa": pl.Boolean},
    "responses": {
        "run": S,
        "qid": S,
        "item": pl.Int32,
        "rank": pl.Int32,
        "docid": S,
        "answer": S,
        "answered": pl.Boolean,
        "candidate": S,
        "nil": pl.Boolean,
        "score": pl.Float64,
    },
    "judgments": {
        "judgment_set": S,
        "run": S,
        "qid": S,
        "item": pl.Int32,
        "judgment": S,
        "distinct": pl.Boolean,
    },
    "nuggets": {"qid": S, "nugget": S, "vital": pl.Boolean, "weight": pl.Float64, "text": S},
    "nugget_matches": {"judgment_set": S, "run": S, "qid": S, "item": pl.Int32, "nugget": S},
    "list_key": {"qid": S, "instance": S},
    "patterns": {"qid": S, "pattern": S, "docid": S},
    "matrix": {"unit": S, "run": S, "value": pl.Float64},
    "warnings": {"file": S, "place": S, "kind": S, "message": S, "count": pl.Int64},
}

JUDGMENT_CODES = ("R", "W", "U", "X", "L")
#: question types scored by nuggets: TREC 2004-2007 Other questions and the TREC
#: 2003 definition questions they succeeded (Voorhees 2005: "The Other questions
#: were evaluated using the same methodology as the TREC 2003 definition questions")
NUGGET_QTYPES = ("OTHER", "DEFINITION")

# Sort keys giving every table a canonical row order (bit-identical output).
SORT_KEYS: dict[str, list[str]] = {
    "questions": ["position", "qid"],
    "options": ["qid", "option"],
    "responses": ["run", "qid", "item"],
    "judgments": ["judgment_set", "run", "qid", "item"],
    "nuggets": ["qid", "nugget"],
    "nugget_matches": ["judgment_set", "run", "qid", "item", "nugget"],
    "list_key": ["qid", "instance"],
    "patterns": ["qid", "pattern", "docid"],
    "matrix": ["unit", "run"],
    "warnings": ["kind", "file", "place", "message"],
}


def empty(name: str) -> pl.DataFrame:
    """An empty frame of canonical table ``name``."""
    return pl.DataFrame(schema=SCHEMAS[name])


def conform(name: str, df: pl.DataFrame, source: str | None = None) -> pl.DataFrame:
    """Return ``df`` with exactly the columns of table ``name``, in order, cast
    to the declared dtypes; missing nullable columns are added as nulls.

    Raises :class:`InputError` if a column cannot be cast.
    """
    schema = SCHEMAS[name]
    if df.schema == schema:  # (a reader's table, conformed already: nothing to cast)
        return df
    cols = []
    for col, dtype in schema.items():
        if col in df.columns:
            cols.append(pl.col(col).cast(dtype, strict=True))
        else:
            cols.append(pl.lit(None, dtype=dtype).alias(col))
    try:
        return df.select(cols)
    except pl.exceptions.PolarsError as exc:  # pragma: no cover - defensive
        raise InputError(source, None, f"cannot build table '{name}': {exc}",
                         "check the file against the format in docs/formats.md") from exc


def canonical_order(name: str, df: pl.DataFrame) -> pl.DataFrame:
    """Sort ``df`` into the canonical row order of table ``name`` (a frame
    already in that order, checked in one pass, is returned as it is: the same
    rows a stable sort would give)."""
    keys = [k for k in SORT_KEYS.get(name, []) if k in df.columns]
    if not keys or is_ordered(df, keys):
        return df
    return df.sort(keys, nulls_last=True, maintain_order=True)


def is_ordered(df: pl.DataFrame, keys: list[str]) -> bool:
    """True when the rows of ``df`` are in ascending order of ``keys``
    (lexicographic, nulls last, equal rows allowed), as ``df.sort(keys,
    nulls_last=True)`` orders them."""
    if df.height < 2:
        return True
    in_order = pl.lit(True)  # row i <= row i + 1 on the keys after this one
    for k in reversed(keys):
        a, b = pl.col(k), pl.col(k).shift(-1)
        less = (a < b).fill_null(False) | (a.is_not_null() & b.is_null())
        in_order = less | (a.eq_missing(b) & in_order)
    return bool(df.select(in_order.slice(0, df.height - 1).all()).item())


def polars_frame(value: Any) -> pl.DataFrame | None:
    """``value`` as a polars frame when it is a frame (a notebook's input): polars
    as it is, a pandas frame through Arrow (a named index becomes a column of
    that name), a pyarrow table; None for anything else."""

    if isinstance(value, pl.DataFrame):
        return value
    if isinstance(value, pl.LazyFrame):
        raise UsageError("a polars LazyFrame: collect it first (frame.collect())")
    module = type(value).__module__.split(".")[0]
    if module == "pandas" and hasattr(value, "columns") and hasattr(value, "index"):
        named = any(n is not None for n in getattr(value.index, "names", [None]))
        return pl.from_pandas(value, include_index=named)
    if module == "pyarrow" and type(value).__name__ in ("Table", "RecordBatch"):
        out = pl.from_arrow(value)
        return out if isinstance(out, pl.DataFrame) else out.to_frame()
    return None
