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
- bounded time, never silently: a pattern that repeats (``*``, ``+``, ``{n,}``,
  ``{n,m}`` with m > 1) a group holding an unbounded quantifier or an
  alternation (``(a+)+``, ``(\\w+\\s?)*``, ``(a|aa)+``: the shapes of
  catastrophic backtracking) is rejected when compiled; every search has a
  ``timeout`` (default :data:`TIMEOUT` s, a timed-out search counts as no
  match) and a pattern that timed out :data:`MAX_TIMEOUTS` times is not tried
  again (the remaining searches count as no match), so a campaign costs at
  most patterns x MAX_TIMEOUTS x timeout on top of the ordinary searches.
  Timed-out and skipped searches are counted per pattern, and answers longer
  than :data:`MAX_INPUT` characters (matched on their first MAX_INPUT only)
  per response, in the :class:`Judged` report; ingest turns both into rows of
  the ``warnings`` table and lines in the log.
"""

from __future__ import annotations

import re as _re
from dataclasses import dataclass

import polars as pl
import regex as _rx

from .errors import InputError
from .tables import conform

SET_NAME = "automatic"
MAX_INPUT = 1000
"""Answers are matched on their first MAX_INPUT characters (longer ones are reported)."""
MAX_PATTERN = 2000
"""Longest pattern accepted (characters)."""
TIMEOUT = 0.1
"""Seconds one search may take before it counts as no match (and is reported)."""
MAX_TIMEOUTS = 3
"""Timed-out searches after which a pattern is not tried again (the rest count
as no match and are reported as skipped)."""
_QE = _re.compile(r"\\Q(.*?)(?:\\E|$)", _re.S)
_QUANT = _re.compile(r"\*|\+|\?|\{(\d*)(,?)(\d*)\}")


def translate(pattern: str) -> str:
    """Translate Perl-only regex syntax to what Python's ``regex``/``re`` accepts."""
    out = _QE.sub(lambda m: _re.escape(m.group(1)), pattern)
    out = out.replace(r"\z", r"\Z")
    return out


def _quantifier(text: str, i: int) -> tuple[int, float]:
    """(length, upper bound) of the quantifier at ``text[i:]`` ((0, 1) if none);
    a lazy or possessive suffix is included in the length."""
    m = _QUANT.match(text, i)
    if m is None:
        return 0, 1
    tok = m.group()
    if tok in "*+":
        upper = float("inf")
    elif tok == "?":
        upper = 1
    else:
        lo, comma, hi = m.groups()
        if not lo and not hi:
            return 0, 1  # a literal "{}" or "{,}"
        upper = float(hi) if hi else (float("inf") if comma else float(lo or 0))
    n = len(tok) + (1 if m.end() < len(text) and text[m.end()] in "?+" else 0)
    return n, upper


def repeated_risky_group(text: str) -> int | None:
    """Offset of the first group that holds an unbounded quantifier or an
    alternation and is itself repeated more than once (``(a+)+``, ``(a|aa)*``,
    ``(x*){2,}``), else None.  Escapes and character classes are skipped."""
    stack: list[list] = []  # [offset of "(", holds a risky construct]
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "(":
            stack.append([i, False])
            i += 1
            continue
        if c == ")":
            start, risky = stack.pop() if stack else (i, False)
            size, upper = _quantifier(text, i + 1)
            if risky and upper > 1:
                return start
            if stack and (risky or upper == float("inf")):
                stack[-1][1] = True
            i += 1 + size
            continue
        if c == "|":
            if stack:
                stack[-1][1] = True
            i += 1
            continue
        # one atom: an escape, a character class or a character, then its quantifier
        if c == "\\":
            j = i + 2
        elif c == "[":
            j = i + (2 if text[i + 1:i + 2] == "^" else 1)
            j += 1 if text[j:j + 1] == "]" else 0
            while j < n and text[j] != "]":
                j += 2 if text[j] == "\\" else 1
            j += 1
        else:
            j = i + 1
        size, upper = _quantifier(text, j)
        if stack and upper == float("inf"):
            stack[-1][1] = True
        i = j + size
    return None


def compile_pattern(pattern: str, qid: str | None = None):
    """Compile a Perl-style answer pattern (case-insensitive) or raise InputError
    (too long, not compilable, or a repeated risky group: see the module docstring)."""
    where = f"pattern for question {qid}"
    if len(pattern) > MAX_PATTERN:
        raise InputError(None, where, f"pattern longer than {MAX_PATTERN} characters",
                         "shorten the pattern")
    text = translate(pattern)
    risky = repeated_risky_group(text)
    if risky is not None:
        raise InputError(None, f"{where}: {pattern!r}",
                         f"the group at character {risky + 1} holds a repetition or an "
                         "alternation and is itself repeated (catastrophic backtracking)",
                         "rewrite the pattern without a repeated group that repeats inside, "
                         "e.g. (a+)+ as a+, (\\w+\\s?)+ as [\\w\\s]+")
    try:
        return _rx.compile(text, _rx.IGNORECASE | _rx.V0)
    except (_rx.error, ValueError, OverflowError) as exc:
        raise InputError(None, f"{where}: {pattern!r}",
                         f"not a usable regular expression ({exc})",
                         "rewrite the pattern in the Perl/Python common subset") from exc


def matches(compiled, text: str | None, timeout: float = TIMEOUT) -> bool:
    """Whether ``compiled`` finds a match in ``text`` (truncated to MAX_INPUT);
    a timeout counts as no match."""
    if not text:
        return False
    try:
        return compiled.search(text[:MAX_INPUT], timeout=timeout) is not None
    except TimeoutError:
        return False


@dataclass
class _Pattern:
    qid: str
    text: str
    compiled: object
    timeouts: int = 0
    skipped: int = 0

    def search(self, answer: str, timeout: float) -> bool:
        if self.timeouts >= MAX_TIMEOUTS:
            self.skipped += 1
            return False
        try:
            return self.compiled.search(answer, timeout=timeout) is not None
        except TimeoutError:
            self.timeouts += 1
            return False


@dataclass
class Judged:
    """The ``automatic`` judgments and what to report about them:
    ``timeouts`` (qid, pattern, timeouts, skipped) per pattern that timed out,
    ``truncated`` (run, qid, item, length) per answer longer than MAX_INPUT."""

    judgments: pl.DataFrame
    timeouts: pl.DataFrame
    truncated: pl.DataFrame


class Judge:
    """Judges the FACTOID and LIST responses (set ``automatic``) batch after
    batch of whole runs (every response of a run in one batch, the batches in
    run order, :meth:`batch`), as :func:`judge` does for all of them at once:
    the compiled patterns with their time-out counts, and the answers already
    searched, are kept from one batch to the next, so the judgments, the
    time-outs and the truncated answers are the same for any cut."""

    def __init__(self, questions: pl.DataFrame, patterns: pl.DataFrame,
                 timeout: float = TIMEOUT) -> None:
        qs = questions.filter(pl.col("qtype").is_in(["FACTOID", "LIST"]))
        self.qtype = dict(zip(qs["qid"].to_list(), qs["qtype"].to_list(), strict=True))
        self.nil_q = {q for q, n in zip(qs["qid"].to_list(), qs["nil_answer"].to_list(),
                                        strict=True) if n}
        self.timeout = timeout
        self.compiled: dict[str, list[_Pattern]] = {}
        for qid, pat in patterns.select("qid", "pattern").unique(maintain_order=True).iter_rows():
            if qid in self.qtype and pat:
                self.compiled.setdefault(qid, []).append(_Pattern(qid, pat,
                                                                  compile_pattern(pat, qid)))
        self.cache: dict[tuple[str, str], list[int]] = {}

    def batch(self, responses: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
        """(judgments, truncated) of ``responses`` (whole runs), rows by run, qid, item:
        :class:`Judged`'s ``judgments`` and ``truncated`` for these runs."""
        qtype, compiled, cache = self.qtype, self.compiled, self.cache
        rows = {k: [] for k in ("run", "qid", "item", "judgment", "distinct")}
        cut = {k: [] for k in ("run", "qid", "item", "length")}
        used: dict[tuple[str, str], set[int]] = {}
        resp = responses.filter(pl.col("qid").is_in(list(qtype))).sort(["run", "qid", "item"])
        for run, qid, item, answer, answered, cand, nil in resp.select(
                "run", "qid", "item", "answer", "answered", "candidate", "nil").iter_rows():
            text = answer if answered else cand
            if bool(nil) and answered:
                judgment, hit = ("R" if qid in self.nil_q else "W"), []
            elif qid not in compiled or (not answered and cand is None):
                continue
            else:
                text = text or ""
                if len(text) > MAX_INPUT:
                    for k, v in zip(cut, (run, qid, item, len(text)), strict=True):
                        cut[k].append(v)
                    text = text[:MAX_INPUT]
                key = (qid, text)
                if key not in cache:
                    cache[key] = [i for i, p in enumerate(compiled[qid])
                                  if text and p.search(text, self.timeout)]
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
        return (conform("judgments", df.with_columns(pl.lit(SET_NAME).alias("judgment_set"))),
                pl.DataFrame(cut, schema={"run": pl.String, "qid": pl.String,
                                          "item": pl.Int32, "length": pl.Int64}))

    def timeouts(self) -> pl.DataFrame:
        """:class:`Judged`'s ``timeouts`` of the batches judged so far."""
        slow = [(p.qid, p.text, p.timeouts, p.skipped) for ps in self.compiled.values()
                for p in ps if p.timeouts]
        return pl.DataFrame(slow, schema={"qid": pl.String, "pattern": pl.String,
                                          "timeouts": pl.Int64, "skipped": pl.Int64},
                            orient="row")


def judge(questions: pl.DataFrame, responses: pl.DataFrame, patterns: pl.DataFrame,
          timeout: float = TIMEOUT) -> Judged:
    """Judge the FACTOID and LIST responses of every run (set ``automatic``)."""
    judging = Judge(questions, patterns, timeout)
    judgments, truncated = judging.batch(responses)
    return Judged(judgments=judgments, timeouts=judging.timeouts(), truncated=truncated)


def judge_runs(questions: pl.DataFrame, responses: pl.DataFrame, patterns: pl.DataFrame,
               timeout: float = TIMEOUT) -> pl.DataFrame:
    """Judgments (set ``automatic``) of the FACTOID and LIST responses of every run."""
    return judge(questions, responses, patterns, timeout).judgments
