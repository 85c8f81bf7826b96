"""Automatic judging of factoid and list responses against answer patterns.

TREC distributed answer patterns (``qid perl-regex``) so that new runs can be
scored approximately (Voorhees & Tice 2000).  The judgments made here are kept
as their own judgment set, ``automatic``; they are never mixed with, or
substituted for, human judgments.

Rules (docs/semantics.md, "Automatic judging"):

- a response (or, for an unanswered one, its candidate) is R when any of the
  question's patterns matches the answer string (case-insensitive search, as
  the NIST scripts did), else W; a question without patterns gives no
  judgments (it is then dropped as unjudged), except that a NIL response is R
  exactly when ``questions.nil_answer`` is true;
- list responses: the first right item (item order) matching a given pattern
  is marked ``distinct``; later items matching only already-used patterns are
  right but not distinct;
- Perl syntax that Python cannot take is translated (``\\z`` -> ``\\Z``,
  ``\\Q...\\E`` quoting, ``$`` before the end kept); a pattern that still does
  not compile is rejected with an :class:`InputError` naming it;
- guarded against pathological patterns: the ``regex`` package's per-search
  ``timeout`` (default 0.1 s; a timed-out search counts as no match) and
  answers truncated to ``MAX_INPUT`` characters.
"""

from __future__ import annotations

import re as _re

import polars as pl

from .errors import InputError
from .tables import conform

try:  # the `regex` package (timeouts, Perl-compatible features)
    import regex as _rx
    HAVE_REGEX = True
except ImportError:  # pragma: no cover - exercised only without the dependency
    _rx = None
    HAVE_REGEX = False

SET_NAME = "automatic"
MAX_INPUT = 1000
MAX_PATTERN = 2000
_QE = _re.compile(r"\\Q(.*?)(?:\\E|$)", _re.S)


def translate(pattern: str) -> str:
    """Translate Perl-only regex syntax to what Python's ``regex``/``re`` accepts."""
    out = _QE.sub(lambda m: _re.escape(m.group(1)), pattern)
    out = out.replace(r"\z", r"\Z")
    return out


def compile_pattern(pattern: str, qid: str | None = None):
    """Compile a Perl-style answer pattern (case-insensitive) or raise InputError."""
    if len(pattern) > MAX_PATTERN:
        raise InputError(None, f"pattern for question {qid}",
                         f"pattern longer than {MAX_PATTERN} characters",
                         "shorten the pattern")
    text = translate(pattern)
    try:
        if HAVE_REGEX:
            return _rx.compile(text, _rx.IGNORECASE | _rx.V0)
        if _re.search(r"\((?:[^()]*[+*])\)[+*]", text):  # nested quantifier guard
            raise _re.error("nested quantifiers refused without the 'regex' package")
        return _re.compile(text, _re.IGNORECASE)
    except (_re.error, Exception) as exc:
        raise InputError(None, f"pattern for question {qid}: {pattern!r}",
                         f"not a usable regular expression ({exc})",
                         "rewrite the pattern in the Perl/Python common subset") from exc


def matches(compiled, text: str | None, timeout: float = 0.1) -> bool:
    """Whether ``compiled`` finds a match in ``text`` (truncated to MAX_INPUT);
    a timeout counts as no match."""
    if not text:
        return False
    text = text[:MAX_INPUT]
    if HAVE_REGEX:
        try:
            return compiled.search(text, timeout=timeout) is not None
        except TimeoutError:
            return False
    return compiled.search(text) is not None


def judge_runs(questions: pl.DataFrame, responses: pl.DataFrame, patterns: pl.DataFrame,
               timeout: float = 0.1) -> pl.DataFrame:
    """Judgments (set ``automatic``) of the FACTOID and LIST responses of every run."""
    qs = questions.filter(pl.col("qtype").is_in(["FACTOID", "LIST"]))
    qtype = dict(zip(qs["qid"].to_list(), qs["qtype"].to_list(), strict=True))
    nil_q = {q for q, n in zip(qs["qid"].to_list(), qs["nil_answer"].to_list(), strict=True) if n}
    compiled: dict[str, list] = {}
    for qid, pat in zip(patterns["qid"].to_list(), patterns["pattern"].to_list(), strict=True):
        if qid in qtype and pat:
            compiled.setdefault(qid, []).append(compile_pattern(pat, qid))
    rows = {k: [] for k in ("run", "qid", "item", "judgment", "distinct")}
    used: dict[tuple[str, str], set[int]] = {}
    resp = responses.filter(pl.col("qid").is_in(list(qtype))).sort(["run", "qid", "item"])
    cache: dict[tuple[str, str], list[int]] = {}
    for run, qid, item, answer, answered, cand, nil in resp.select(
            "run", "qid", "item", "answer", "answered", "candidate", "nil").iter_rows():
        text = answer if answered else cand
        is_nil = bool(nil) and answered
        if is_nil:
            judgment, hit = ("R" if qid in nil_q else "W"), []
        elif qid not in compiled:
            continue
        elif not answered and cand is None:
            continue
        else:
            key = (qid, text or "")
            if key not in cache:
                cache[key] = [i for i, c in enumerate(compiled[qid]) if matches(c, text, timeout)]
            hit = cache[key]
            judgment = "R" if hit else "W"
        distinct = None
        if qtype[qid] == "LIST":
            seen = used.setdefault((run, qid), set())
            new = [i for i in hit if i not in seen]
            distinct = bool(new) and judgment == "R"
            if new:
                seen.add(new[0])
        for k, v in zip(rows, (run, qid, item, judgment, distinct), strict=True):
            rows[k].append(v)
    df = pl.DataFrame(rows, schema={"run": pl.String, "qid": pl.String, "item": pl.Int32,
                                    "judgment": pl.String, "distinct": pl.Boolean})
    return conform("judgments", df.with_columns(pl.lit(SET_NAME).alias("judgment_set")))
