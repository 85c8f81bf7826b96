"""What every scoring step reads: the campaign's tables, its options, its
judgment sets and runs, and the questions with their auxiliary flag."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from ..kinds import KINDS, Kind
from .frames import JS
from .options import primary_set
from .runtables import Survey, survey


@dataclass(frozen=True)
class Context:
    kind: str
    # the campaign's tables; the run tables (.runtables) of the whole campaign
    # may be row-group sources, a batch's (.batches.restrict) are frames
    t: dict[str, pl.DataFrame]
    opts: dict
    questions: pl.DataFrame  # the questions table plus a boolean ``aux``
    sets: list[str]
    runs: list[str]
    # campaign-level facts a batch of runs (scoring.batches) cannot see in its
    # own rows; None: taken from this context's own tables (all runs)
    baselines: tuple[str, ...] | None = None  # the QA4MRE baseline runs scored here
    multi: bool | None = None  # some run returned several ranked answers
    nil_judged: pl.DataFrame | None = None  # (judgment_set, qid) with a NIL judged right
    survey: Survey | None = None  # the run tables as a whole (.runtables.survey)
    threads: int | None = None  # threads reading a row-group source (.runtables.each)

    @property
    def spec(self) -> Kind:
        """The campaign kind's record (:mod:`qacamp.kinds`)."""
        return KINDS[self.kind]

    @property
    def sets_df(self) -> pl.DataFrame:
        return pl.DataFrame({JS: self.sets}, schema={JS: pl.String})

    @property
    def runs_df(self) -> pl.DataFrame:
        return pl.DataFrame({"run": self.runs}, schema={"run": pl.String})

    def skipped(self, component: str) -> bool:
        """True when the config skips a component (``skip: [list]``); the nugget
        component ``other`` is skipped by ``skip: [definition]`` too (TREC 2003)."""
        skip = self.opts["skip"]
        return component in skip or (component == "other" and "definition" in skip)


def auxiliary(kind: str, main_questions: int | None) -> pl.Expr:
    """True for a QA4MRE auxiliary question: ``auxiliary_of`` set, or (a kind of
    reading tests, qa4mre) its number (the id's last part) above ``main_questions``.  Auxiliary
    questions are scored apart (question type ``auxiliary``), never in the
    main scopes; the report counts them with this same rule."""
    aux = pl.col("auxiliary_of").is_not_null()
    if KINDS[kind].reading_tests:
        num = pl.col("qid").str.extract(r"(\d+)$").cast(pl.Int64, strict=False)
        aux = aux | (num > int(main_questions if main_questions is not None else 15)) \
            .fill_null(False)
    return aux


def build_context(kind: str, t: dict[str, pl.DataFrame], opts: dict,
                  threads: int | None = None) -> Context:
    """Judgment sets = those named by any judgment or nugget match (else the
    primary set); runs = those with a response plus ``run_names``; QA4MRE
    auxiliary questions = ``auxiliary_of`` set or question number >
    ``main_questions``.  ``threads`` read the run tables' row groups."""
    q = t["questions"]
    questions = q.with_columns(auxiliary(kind, opts.get("main_questions")).alias("aux"))
    found = survey(t, threads)
    sets = set(found.sets)
    if not sets:
        sets = {primary_set(kind, opts, [])}
    runs = found.runs | set(opts.get("run_names") or [])
    return Context(kind, t, opts, questions, sorted(sets), sorted(r for r in runs if r is not None),
                   survey=found, threads=threads)
