"""Judged TREC runs (one file per run per judgment set).

* Judged factoid run: ``qid tag docid judgment answer-string`` — white-space
  separated, the answer is the rest of the line (may be empty for NIL); lines
  in the run's confidence order (rank = line order); docid ``NIL`` = NIL
  answer; judgment ``R W U X L`` or NIST's ``1 -1 2 3``; one line per question.
* Judged ranked factoid run (TREC 8-10, up to five ranked answers per
  question; campaign key ``run_format: ranked``): ``qid tag rank docid judgment
  answer-string``; ``rank`` is the answer's rank (a positive integer, once per
  question); questions keep the order of their first line.
* NIST judged list run: ``qid tag docid correctness distinct string`` —
  correctness ``-1 1 2 3`` (or ``W R U X``), distinct ``1`` on one instance of
  each right answer, else ``0``; item = order of the question's lines.
* Judged Other run, part one ``qid tag item docid string``; part two
  ``qid tag item nugget`` (items must exist in part one).

Blank lines and ``#`` comment lines are ignored.  Every line of a file must
carry the same run tag.  Parsing is vectorised (polars) so a million-line file
takes about a second.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..errors import InputError
from ..tables import conform, empty
from ._fields import SPACE, check_one_tag, check_unique, first_line, split_fields, strip
from ._text import lines_frame, scan_lines
from ._words import no_data

JUDGMENT_MAP = {"R": "R", "W": "W", "U": "U", "X": "X", "L": "L",
                "1": "R", "-1": "W", "2": "U", "3": "X"}
"""Judgment codes accepted in judged runs -> canonical code (R right, W wrong,
U unsupported, X inexact, L locally correct: TREC 2006-2007).  A campaign maps
further raw codes with ``judgment_codes`` (e.g. ``{"4": L}``)."""

FACTOID_FMT = "qid tag docid judgment answer-string"
RANKED_FMT = "qid tag rank docid judgment answer-string"
LIST_FMT = "qid tag docid correctness distinct string"
OTHER1_FMT = "qid tag item docid string"
OTHER2_FMT = "qid tag item nugget"


def _frame(path, names, rest, fmt) -> pl.DataFrame:
    """The fields of the data lines of ``path``, split batch by batch as the
    file is read (:func:`._text.scan_lines`)."""
    frames = scan_lines(path, lambda df: split_fields(path, df, names, rest, fmt))
    if not frames:
        raise no_data(path, fmt)
    return pl.concat(frames)


def _judgments(path, df: pl.DataFrame, col: str = "judgment",
               codes: dict[str, str] | None = None) -> pl.Expr:
    mapping = {**JUDGMENT_MAP, **(codes or {})}
    codes_expr = pl.col(col).replace_strict(mapping, default=None, return_dtype=pl.String)
    bad = first_line(df, codes_expr.is_null())
    if bad is not None:
        code = df.filter(pl.col("line_no") == bad)[col][0]
        raise InputError(path, f"line {bad}", f"unknown judgment code '{code}'",
                         "use R W U X L or 1 -1 2 3 (right, wrong, unsupported, inexact, "
                         "locally correct), or map the code with the campaign's judgment_codes")
    return codes_expr


def _first_seen_rank(df: pl.DataFrame) -> pl.Series:
    """Rank of each line's question among the run's questions (first appearance order)."""
    firsts = df.select("qid").unique(maintain_order=True).with_row_index("r", offset=1)
    return df.select("qid").join(firsts, on="qid", how="left", maintain_order="left")["r"]


def _responses(df: pl.DataFrame, run: str, path) -> pl.DataFrame:
    """The canonical responses of a run's lines (columns ``qid``, ``item``,
    ``rank``, ``docid``, ``answer``): docid ``NIL`` (any case) marks a nil
    response, an empty answer string is null; every line is an answer."""
    nil = pl.col("docid").str.to_uppercase() == "NIL"
    return conform("responses", df.select(
        pl.lit(run).alias("run"), "qid", "item", "rank",
        pl.when(nil).then(pl.lit("NIL")).otherwise(pl.col("docid")).alias("docid"),
        pl.when(pl.col("answer") == "").then(None).otherwise(pl.col("answer")).alias("answer"),
        pl.lit(True).alias("answered"), nil.alias("nil"),
    ), str(path))


def read_judged_factoid(path: str | Path, judgment_set: str, codes: dict[str, str] | None = None,
                        ranked: bool = False) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Read a judged factoid run -> ``(responses, judgments)``; ``ranked`` reads the
    ranked-answer layout (one line per answer, ``item`` = its rank)."""
    if ranked:
        return _read_ranked(path, judgment_set, codes)
    df = _frame(path, ["qid", "tag", "docid", "judgment"], "answer", FACTOID_FMT)
    run = check_one_tag(path, df)
    codes_expr = _judgments(path, df, codes=codes)
    check_unique(path, df, ["qid"], "response to question",
                 "give one line per question (factoid runs return one answer; runs with "
                 "ranked answers need run_format: ranked)")
    responses = _responses(df.with_columns(
        pl.lit(1, pl.Int32).alias("item"),
        pl.int_range(1, df.height + 1, dtype=pl.Int32).alias("rank")), run, path)
    judgments = df.select(
        pl.lit(judgment_set).alias("judgment_set"), pl.lit(run).alias("run"), "qid",
        pl.lit(1, pl.Int32).alias("item"), codes_expr.alias("judgment"),
    )
    return responses, conform("judgments", judgments, str(path))


def _read_ranked(path: str | Path, judgment_set: str,
                 codes: dict[str, str] | None) -> tuple[pl.DataFrame, pl.DataFrame]:
    df = _frame(path, ["qid", "tag", "arank", "docid", "judgment"], "answer", RANKED_FMT)
    run = check_one_tag(path, df)
    codes_expr = _judgments(path, df, codes=codes)
    item = pl.col("arank").cast(pl.Int32, strict=False)
    bad = first_line(df, item.is_null() | (item < 1))
    if bad is not None:
        raise InputError(path, f"line {bad}", "the rank field is not a positive integer",
                         f"write the line as `{RANKED_FMT}`")
    df = df.with_columns(item.alias("item"), codes_expr.alias("judgment"),
                         _first_seen_rank(df).cast(pl.Int32).alias("rank"))
    check_unique(path, df, ["qid", "item"], "answer rank for the question",
                 "give each of a question's ranked answers its own rank")
    responses = _responses(df, run, path)
    judgments = df.select(pl.lit(judgment_set).alias("judgment_set"), pl.lit(run).alias("run"),
                          "qid", "item", "judgment")
    return responses, conform("judgments", judgments, str(path))


def read_judged_list(path: str | Path, judgment_set: str, codes: dict[str, str] | None = None
                     ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Read a NIST judged list run -> ``(responses, judgments)`` (``distinct`` set)."""
    df = _frame(path, ["qid", "tag", "docid", "judgment", "distinct"], "answer", LIST_FMT)
    run = check_one_tag(path, df)
    codes = _judgments(path, df, codes=codes)
    bad = first_line(df, ~pl.col("distinct").is_in(["0", "1"]))
    if bad is not None:
        raise InputError(path, f"line {bad}", "the distinct field must be 0 or 1",
                         f"write the line as `{LIST_FMT}`")
    bad = first_line(df, (pl.col("distinct") == "1") & (codes != "R"))
    if bad is not None:
        raise InputError(path, f"line {bad}", "distinct is 1 on an instance not judged right",
                         "set distinct to 1 only on one right instance of each answer")
    _distinct_once(path, df)
    df = df.with_columns(codes.alias("judgment"),
                         pl.int_range(1, pl.len() + 1, dtype=pl.Int32).over("qid").alias("item"),
                         _first_seen_rank(df).cast(pl.Int32).alias("rank"))
    responses = _responses(df, run, path)
    judgments = df.select(
        pl.lit(judgment_set).alias("judgment_set"), pl.lit(run).alias("run"), "qid", "item",
        "judgment", (pl.col("distinct") == "1").alias("distinct"),
    )
    return responses, conform("judgments", judgments, str(path))


def _distinct_once(path, df: pl.DataFrame) -> None:
    """One answer string is one instance: the same string (white space
    collapsed) marked distinct twice for a question is refused (NIST's assessor
    marks one member of each group of equivalent responses distinct, Voorhees
    2005; counting both would push list recall above 1)."""
    text = strip(pl.col("answer")).str.replace_all(SPACE + "+", " ")
    marked = df.filter(pl.col("distinct") == "1").with_columns(text.alias("_text"))
    dup = first_line(marked, ~pl.struct("qid", "_text").is_first_distinct())
    if dup is not None:
        row = marked.filter(pl.col("line_no") == dup).row(0, named=True)
        first = marked.filter((pl.col("qid") == row["qid"]) & (pl.col("_text") == row["_text"])
                              )["line_no"][0]
        raise InputError(path, f"line {dup}", f"the instance {row['_text']!r} of question "
                         f"{row['qid']} is marked distinct again (first at line {first}); one "
                         "instance counts once in list recall",
                         "mark only one of the equivalent responses distinct (set distinct to "
                         "0 on the repeats)")


def _items(path, df: pl.DataFrame, fmt: str) -> pl.Expr:
    item = pl.col("item").cast(pl.Int32, strict=False)
    bad = first_line(df, item.is_null() | (item < 1))
    if bad is not None:
        raise InputError(path, f"line {bad}", "the item field is not a positive integer",
                         f"write the line as `{fmt}`")
    return item


def read_judged_other(part_one: str | Path, part_two: str | Path | None,
                      judgment_set: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Read a judged Other run (part one: the returned strings; part two: the
    nuggets found in them, None when there is none) -> ``(responses, nugget_matches)``."""
    one = _frame(part_one, ["qid", "tag", "item", "docid"], "answer", OTHER1_FMT)
    run = check_one_tag(part_one, one)
    one = one.with_columns(_items(part_one, one, OTHER1_FMT).alias("item"))
    check_unique(part_one, one, ["qid", "item"], "item number for a question",
                 "number the strings returned for one question 1, 2, 3, ...")
    one = one.with_columns(_first_seen_rank(one).cast(pl.Int32).alias("rank"))
    responses = _responses(one, run, part_one)
    two = lines_frame(part_two) if part_two is not None else None
    if two is None or two.height == 0:
        matches = empty("nugget_matches")
    else:
        two = split_fields(part_two, two, ["qid", "tag", "item", "nugget"], None, OTHER2_FMT)
        tag2 = check_one_tag(part_two, two)
        if tag2 != run:
            raise InputError(part_two, f"line {two['line_no'][0]}",
                             f"part two names run tag '{tag2}' but part one ({part_one}) "
                             f"names '{run}'",
                             "pair each part-two file with the part-one file of the same run")
        two = two.with_columns(_items(part_two, two, OTHER2_FMT).alias("item"))
        check_unique(part_two, two, ["qid", "item", "nugget"], "nugget match",
                     "list each nugget found in an item once")
        known = one.select("qid", "item").with_columns(pl.lit(True).alias("_k"))
        j = two.join(known, on=["qid", "item"], how="left", maintain_order="left")
        bad = first_line(j, pl.col("_k").is_null())
        if bad is not None:
            row = j.filter(pl.col("line_no") == bad).row(0, named=True)
            raise InputError(part_two, f"line {bad}",
                             f"item {row['item']} of question {row['qid']} is not in part one "
                             f"({part_one})",
                             "match nuggets only to items that the run returned")
        matches = two.select(pl.lit(judgment_set).alias("judgment_set"),
                             pl.lit(run).alias("run"), "qid", "item", "nugget")
    return responses, conform("nugget_matches", matches, str(part_two or part_one))
