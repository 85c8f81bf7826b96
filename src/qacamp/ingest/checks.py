"""The cross-file checks shared by the kinds (the accumulator is :mod:`.accumulator`).

Each check raises :class:`~qacamp.errors.InputError` naming the file and the
line of the first offender; :meth:`Acc.warn` records what is accepted but
worth a look (the ``warnings`` table).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import polars as pl

from ..errors import InputError
from ..readers._text import data_lines
from ..readers._words import control_character, end_of_file
from .accumulator import Acc

PART_QTYPES = {"factoid": "FACTOID", "list": "LIST", "other": "OTHER",
               "definition": "DEFINITION"}
"""Judged-run part -> the question type its lines must answer."""


# --------------------------------------------------------------------------- finding lines

def line_of(path: str, qid: str, field: int = 0, tab: bool = False, nth: int = 1) -> int | None:
    """Line number of the ``nth`` data line of ``path`` whose field ``field`` is ``qid``."""
    seen = 0
    for no, line in data_lines(path, comments=not tab):
        parts = line.split("\t") if tab else line.split()
        if len(parts) > field and parts[field].strip() == qid:
            seen += 1
            if seen == nth:
                return no
    return None


def line_of_item(path: str, part: str, qid: str, item: int) -> int | None:
    """The line of response (qid, item) in a judged TREC run file of ``part``:
    the item-th line of the question (factoid, list) or the line numbering
    the item (Other and definition part one)."""
    if part not in ("other", "definition"):
        return line_of(path, qid, nth=item)
    for no, line in data_lines(path):
        parts = line.split()
        if len(parts) > 2 and parts[0] == qid and parts[2].isdigit() and int(parts[2]) == item:
            return no
    return None


def _place(line: int | None) -> str | None:
    return f"line {line}" if line else None


def first_place(path: str, header: int = 0) -> str:
    """``line N`` of the first data line of ``path`` after its ``header`` lines
    (for errors about a whole run file: its first line of responses)."""
    for k, (no, _line) in enumerate(data_lines(path)):
        if k >= header:
            return f"line {no}"
    return end_of_file(path)


def word_place(path: str, word: str) -> str | None:
    """``line N`` of the first line of ``path`` holding ``word`` as a separate token."""
    for no, line in data_lines(path, comments=False):
        if word in line.replace('"', " ").replace("'", " ").replace("=", " ")\
                .replace(">", " ").replace("<", " ").replace(":", " ").split():
            return f"line {no}"
    return None


# --------------------------------------------------------------------------- checks

def check_known(path: str, responses: pl.DataFrame, known: pl.Series, what: str,
                field: int = 0, tab: bool = False) -> None:
    """Every response names a question of ``known`` (the question ids, a
    Series made once per campaign, not a Python collection per file)."""
    bad = responses.filter(~pl.col("qid").is_in(known.implode()))
    if bad.height:
        qid = bad["qid"][0]
        raise InputError(path, _place(line_of(path, qid, field, tab)),
                         f"question {qid} is not in {what}",
                         "answer only questions of the question set (check the qid, or the "
                         "questions file in the config)")


def check_types(path: str, part: str, responses: pl.DataFrame, questions: pl.DataFrame) -> None:
    """Every response of a judged ``part`` file answers a question of that part's
    type (a factoid file cannot answer an Other question); ``questions`` holds
    each qid once, with its qtype.  Called after :func:`check_known`."""
    want = PART_QTYPES[part]
    types = questions["qtype"]
    if types.n_unique() == 1 and types[0] == want:
        return  # every question is of the part's type (and the qids are checked known)
    qtype = pl.col("qid").replace_strict(questions["qid"], types, default=None)
    bad = responses.filter(qtype != want)
    if bad.height:
        qid = bad["qid"][0]
        its = questions.filter(pl.col("qid") == qid)["qtype"][0]
        raise InputError(path, _place(line_of(path, qid)),
                         f"question {qid} is a {its} question, but this is a judged "
                         f"{part} run ({want} questions only)",
                         f"put the responses to {its} questions in the run's "
                         f"{its.lower()} file (check the qid)")


def check_run_unique(seen: dict[str, str], run: str, path: str, what: str,
                     place: Callable[[], str | None] | None = None) -> None:
    """``run`` comes from no earlier file (``place()``, called only then, gives
    the place to name; default the file's first data line)."""
    if run in seen:
        raise InputError(path, (place() if place else None) or first_place(path),
                         f"run '{run}' also comes from {seen[run]} ({what})",
                         "give each run one file (check for copies of the same file)")
    seen[run] = path


def check_run_name(path: str, run: str, place: Callable[[], str]) -> None:
    """A run name is text that tables can hold: not empty, no control
    character (a tab or line break would split eval's tab-separated output)."""
    bad = "no name" if not run.strip() else control_character(run)
    if bad is not None:
        what = "the run has no name" if bad == "no name" else \
            f"the run name {run!r} holds a {bad}"
        raise InputError(path, place(), what, "give the run a name of visible characters "
                         "(letters, digits, - _ . and spaces)")


def coverage(acc: Acc, path: str, responses: pl.DataFrame, n_questions: int, what: str,
             min_coverage: float) -> None:
    """Warn when the run file answers fewer than ``min_coverage`` of the
    ``n_questions`` questions it should (a truncated file?)."""
    if n_questions == 0:
        return
    k = responses["qid"].n_unique()
    if k < min_coverage * n_questions:
        acc.warn(path, end_of_file(path), "coverage",
                 f"the run answers {k} of the {n_questions} {what} ({k / n_questions:.0%}), "
                 f"less than min_coverage {min_coverage:g}: is the file truncated?")


def missing_parts(acc: Acc, where: dict[tuple[str, str, str], str], primary: str,
                  n_type: dict[str, int], min_coverage: float) -> None:
    """Warn about a run with no file of a part that other runs of the primary
    set have (a TREC 2004-2007 run without its list file): it answers none of
    that part's questions, less than ``min_coverage`` of them, as
    :func:`coverage` says of a file."""
    parts = {(part, run): path for (s, part, run), path in where.items() if s == primary}
    runs = sorted({run for _, run in parts})
    for part, qtype in PART_QTYPES.items():
        n = n_type.get(qtype, 0)
        if not any(p == part for p, _ in parts) or not 0 < min_coverage * n:
            continue
        for run in runs:
            if (part, run) not in parts:
                path = next(parts[(p, run)] for p in PART_QTYPES if (p, run) in parts)
                acc.warn(path, None, "coverage",
                         f"the run {run} has no {part} file (judgment set {primary}): it "
                         f"answers 0 of the {n} {qtype} questions (0%), less than "
                         f"min_coverage {min_coverage:g}: is a file missing?")


def compare_sets(primary: str, name: str, part: str, path: str, prim: pl.DataFrame,
                 other: pl.DataFrame) -> None:
    """``other`` (one run's responses in set ``name``) must be exactly the primary
    set's responses of that run: same (qid, item) and the same answer strings,
    docids and NIL flags (only the judgments may differ)."""
    keys = ["qid", "item"]
    extra = other.join(prim, on=keys, how="anti")
    missing = prim.join(other, on=keys, how="anti")
    fix = "give every judgment set the same run responses (only the judgments may differ)"
    if extra.height:
        qid, item = extra["qid"][0], extra["item"][0]
        raise InputError(path, _place(line_of_item(path, part, qid, item)),
                         f"judgment set '{name}' does not judge the same responses as the "
                         f"primary set: it judges question {qid} item {item}, which the "
                         f"primary set '{primary}' does not have", fix)
    if missing.height:
        raise InputError(path, end_of_file(path), f"judgment set '{name}' does not judge the same responses "
                         f"as the primary set: it lacks question {missing['qid'][0]} item "
                         f"{missing['item'][0]} of the primary set '{primary}'", fix)
    cols = ["docid", "answer", "nil"]
    both = prim.select(*keys, *cols).join(other.select(*keys, *cols), on=keys, suffix="_o")
    diff = both.filter(pl.any_horizontal(pl.col(c).ne_missing(pl.col(f"{c}_o")) for c in cols))
    if diff.height:
        row = diff.sort(keys).row(0, named=True)
        what = next(c for c in cols if row[c] != row[f"{c}_o"])
        raise InputError(path, _place(line_of_item(path, part, row["qid"], row["item"])),
                         f"judgment set '{name}' gives question {row['qid']} item {row['item']} "
                         f"the {what} {_short(row[f'{what}_o'])}, the primary set "
                         f"'{primary}' {_short(row[what])}", fix)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:50]}...'"


Reader = Callable[[str, Any], Iterable[tuple[str, str, pl.DataFrame, pl.DataFrame | None]]]


def judged_sets(resolved: dict, acc: Acc, questions: pl.DataFrame,
                read_files: Reader) -> dict[tuple[str, str, str], str]:
    """Read every judgment set's files via ``read_files(set_name, spec)``, which
    yields ``(part, path, responses, judgments)``.  Responses are kept from the
    primary set only; every other set must judge exactly those responses.
    Checks: known questions, question type per part, one file per run and
    part, coverage (primary set).  Returns ``{(set, part, run): path}``."""
    primary = resolved["primary"]
    min_cov = resolved["options"]["min_coverage"]
    n_type = questions["qtype"].value_counts()
    n_type = dict(zip(n_type["qtype"].to_list(), n_type["count"].to_list(), strict=True))
    # (the responses of every set, kept only when there are sets to compare)
    compared = len(resolved["files"]["judgment_sets"]) > 1
    per_set: dict[str, dict[tuple[str, str], pl.DataFrame | int | None]] = {}
    where: dict[tuple[str, str, str], str] = {}
    for set_name, spec in _primary_first(resolved["files"]["judgment_sets"], primary):
        per_set[set_name] = {}
        for part, path, resp, judg in read_files(set_name, spec):
            if resp.height == 0:
                continue
            run = resp["run"][0]
            check_run_name(path, run, lambda p=path: first_place(p))
            key = (part, run)
            if key in per_set[set_name]:
                raise InputError(path, first_place(path),
                                 f"run '{run}' also comes from {where[(set_name, part, run)]} "
                                 f"(judgment set '{set_name}')",
                                 "give each run one file per judgment set (check for copies)")
            where[(set_name, part, run)] = path
            check_known(path, resp, questions["qid"], "the question set")
            check_types(path, part, resp, questions)
            per_set[set_name][key] = acc.keep(resp) if compared else None
            if set_name == primary:
                want = PART_QTYPES[part]
                coverage(acc, path, resp, n_type.get(want, 0), f"{want} questions", min_cov)
                acc.add("responses", resp)
            if judg is not None:
                acc.add("judgments", judg)
    prim = per_set[primary]
    missing_parts(acc, where, primary, n_type, min_cov)
    for set_name, runs in per_set.items():
        if set_name == primary:
            continue
        for key, resp in runs.items():
            path = where[(set_name, *key)]
            if key not in prim:
                raise InputError(path, first_place(path), f"run '{key[1]}' ({key[0]}) of judgment set "
                                 f"'{set_name}' is not in the primary set '{primary}'",
                                 "judge the same runs in every judgment set")
            compare_sets(primary, set_name, key[0], path, acc.kept(prim[key]), acc.kept(resp))
        for key in prim:
            if key not in runs:
                raise InputError(where[(primary, *key)], first_place(where[(primary, *key)]),
                                 f"run '{key[1]}' ({key[0]}) has no file in judgment set "
                                 f"'{set_name}'",
                                 "judge the same runs in every judgment set")
    return where


def _primary_first(spec: dict[str, Any], primary: str) -> Iterator[tuple[str, Any]]:
    yield primary, spec[primary]
    yield from ((k, v) for k, v in spec.items() if k != primary)
