"""Outcomes of question-level responses (FACTOID, QA, MC, VERIFICATION).

One row per (judgment set, run, judged question) with the outcome of the
run's (first) response (docs/semantics.md, "Outcomes"):

- R right; W wrong: judged W, U (unsupported), X (inexact) or L (locally
  correct: right only with respect to its document, TREC 2006-2007 "answers
  that were globally correct ... and those that were only locally correct"),
  or answered without a judgment;
- UR / UW: unanswered, the hypothetical candidate judged right / not right;
- UE: unanswered without a (judged) candidate, or no response at all.

Besides the 0/1 outcome indicators (r, w, ur, uw, ue) each row carries
``r_lenient`` (judged R or U: TREC 8-10 "lenient" judging counts unsupported
answers) and ``r_local`` (judged R or L).  All work is frame expressions over
integer (Enum) codes: no loops over runs or questions.
"""

from __future__ import annotations

import functools
import operator

import numpy as np
import polars as pl

from ..measures import nonresponse
from .baselines import (
    BASELINE_EXPECTED,
    BASELINES,
    baseline_outcomes,
    expected_rows,
    scored_baselines,
)
from .context import Context
from .frames import JS

OUTCOME_CODES = ["R", "W", "UR", "UW", "UE"]
NOT_RIGHT = ["W", "U", "X", "L"]
OC_COLS = [JS, "run", "qid", "qtype", "series", "topic", "test", "_u", "aux", "nil_answer",
           "position", "rank", "answered", "nil", "outcome", "judgment"]


def question_outcomes(ctx: Context, judged: pl.DataFrame
                      ) -> tuple[pl.DataFrame, pl.DataFrame | None, dict, bool]:
    """The outcome grid of the judged question-level questions, with the QA4MRE
    baselines as extra runs.  Returns ``(grid, expected, enums, multi)``:
    ``expected`` holds the rows of the expected random-choice run (fractional
    r and w; None for other kinds), kept apart so that the big grid's sums
    stay exact integers; ``enums`` maps key columns to the Enum dtypes the
    frames use, ``multi`` is true when some run returned several ranked
    answers for a question."""
    t = ctx.t
    meta = ctx.questions.select("qid", "qtype", "series", "topic", "test", "aux", "nil_answer",
                                "position")
    jq = judged.join(meta, on="qid")
    # key columns as Enums of their sorted values: the codes sort as the strings
    # do, and a String cast to them (strict=False) is null when not a key
    qe = pl.Enum(jq["qid"].drop_nulls().unique().sort())
    run_list = sorted(set(ctx.runs) | (set(BASELINES) if ctx.spec.reading_tests else set()))
    re_, je = pl.Enum(run_list), pl.Enum(ctx.sets)
    oe = pl.Enum(OUTCOME_CODES)
    jq = jq.with_columns(pl.col(JS).cast(je), pl.col("qid").cast(qe)).sort(
        JS, "qid", maintain_order=True)
    # small per-question labels as Enums (sorted categories): the big grid then
    # carries integer codes only, and group-bys run on integers
    u = pl.when(pl.col("aux")).then(pl.lit("auxiliary")).otherwise(pl.col("qtype"))
    jq = jq.with_columns(u.alias("_u"))
    lab = {c: pl.Enum(sorted(jq[c].drop_nulls().unique().to_list()))
           for c in ("topic", "test", "_u")}
    jq_lean = jq.with_columns([pl.col(c).cast(e) for c, e in lab.items()])
    # the grid in the outcomes' canonical order (judgment set, run, question)
    grid = ctx.runs_df.select(pl.col("run").cast(re_)).join(jq_lean, how="cross")
    if len(ctx.sets) > 1:
        grid = grid.sort(JS, maintain_order=True)
    grid = grid.select(*jq_lean.columns, "run")
    # judgments that are the responses' rows one for one (one judgment set, the
    # same run, question and item in the same order: the gold-standard kinds'
    # canonical tables) come along with the responses, no keys to match
    aligned = _row_aligned(t["responses"], t["judgments"], ctx.sets)
    r = (t["responses"].with_columns(pl.col("qid").cast(qe, strict=False),
                                     *([t["judgments"]["judgment"]] if aligned else []))
         .filter(pl.col("qid").is_not_null()).with_columns(pl.col("run").cast(re_)))
    multi = ctx.multi if ctx.multi is not None else has_multi(r)
    aligned = aligned and not multi
    first = r
    if multi:
        first = r.sort(["run", "qid", "item"]).unique(["run", "qid"], keep="first")
    first = first.select("run", "qid", "item", "rank", "answered", "nil", "candidate",
                         *(["judgment"] if aligned else []))
    enums = {JS: je, "run": re_, "qid": qe, "outcome": oe, **lab}

    def judged_rows() -> pl.DataFrame:
        return (t["judgments"].select(pl.col(JS).cast(je, strict=False),
                                      pl.col("run").cast(re_, strict=False),
                                      pl.col("qid").cast(qe, strict=False), "item", "judgment")
                .filter(pl.col(JS).is_not_null() & pl.col("run").is_not_null()
                        & pl.col("qid").is_not_null()))

    jd = None if aligned else judged_rows()
    g = _dense_attach(grid, first, jd, len(ctx.sets), len(qe.categories), len(run_list))
    if g is None:  # duplicate keys: keep the join semantics (row multiplication)
        if jd is None:
            first, jd = first.drop("judgment"), judged_rows()
        g = (grid.join(first, on=["run", "qid"], how="left")
             .join(jd, on=[JS, "run", "qid", "item"], how="left"))
    ans, judg = pl.col("answered"), pl.col("judgment")

    def o(code: str) -> pl.Expr:
        return pl.lit(code, dtype=oe)

    outcome = (pl.when(ans.is_null()).then(o("UE"))
               .when(ans).then(pl.when(judg == "R").then(o("R")).otherwise(o("W")))
               .when(judg == "R").then(o("UR"))
               .when(_one_of(judg, NOT_RIGHT)).then(o("UW"))
               .otherwise(o("UE")))
    g = g.with_columns(outcome.alias("outcome"), ans.fill_null(False).alias("answered"))
    if ctx.spec.reading_tests:
        base = baseline_outcomes(ctx, jq.with_columns(pl.col(JS).cast(pl.String),
                                                      pl.col("qid").cast(pl.String)))
        base = base.with_columns([pl.col(c).cast(pl.String).cast(e) for c, e in enums.items()
                                  if c in base.columns])
        g = pl.concat([g.select(OC_COLS), base.select(OC_COLS)], how="vertical_relaxed")
    g = g.with_columns(*nonresponse.outcome_indicators(pl.col("outcome")))
    if ctx.spec.judged:  # lenient (R or U) and locally correct (R or L)
        answered = pl.col("answered")
        g = g.with_columns(
            (answered & _one_of(judg, ["R", "U"])).fill_null(False).cast(pl.UInt8)
            .alias("r_lenient"),
            (answered & _one_of(judg, ["R", "L"])).fill_null(False).cast(pl.UInt8)
            .alias("r_local"))
    expected = None
    if ctx.spec.reading_tests and BASELINE_EXPECTED in scored_baselines(ctx):
        expected = expected_rows(ctx, jq, enums).select(g.columns)
    return g, expected, enums, multi


def _one_of(e: pl.Expr, values: list[str]) -> pl.Expr:
    """``e.is_in(values)`` for a few judgment letters, as equalities: a String
    column's values are compared in place, not hashed (null stays null)."""
    return functools.reduce(operator.or_, (e == v for v in values))


def has_multi(responses: pl.DataFrame) -> bool:
    """True when some response is not its run's first answer to the question."""
    return bool(responses.height and (responses["item"].max() or 1) > 1)


def _codes(df: pl.DataFrame, col: str) -> np.ndarray:
    return df[col].to_physical().to_numpy().astype(np.int64)


def _row_aligned(responses: pl.DataFrame, judgments: pl.DataFrame, sets: list[str]) -> bool:
    """True when row i of ``judgments`` judges row i of ``responses`` for every i:
    one judgment set, the same (run, qid, item) in the same order."""
    return (len(sets) == 1 and 0 < responses.height == judgments.height
            and judgments.select(pl.col(JS).eq_missing(pl.lit(sets[0])).all()).item()
            and all(judgments[c].equals(responses[c]) for c in ("run", "qid", "item")))


def _dense_attach(grid: pl.DataFrame, first: pl.DataFrame, jd: pl.DataFrame | None,
                  n_sets: int, n_q: int, n_runs: int) -> pl.DataFrame | None:
    """``grid`` left-joined with ``first`` on (run, qid) and ``jd`` on (judgment_set,
    run, qid, item), by dense integer positions over the Enum codes instead of hash
    joins (``jd`` None: ``first`` carries its responses' judgments).  None when a
    key is duplicated or an item is null (the caller then falls back to joins)."""
    if n_sets * n_q * n_runs >= 2**62:
        return None
    fpos = _codes(first, "qid") * n_runs + _codes(first, "run")
    fidx = np.full(n_q * n_runs, -1, np.int64)
    fidx[fpos] = np.arange(first.height)
    if first.height and np.bincount(fpos, minlength=1).max() > 1:
        return None
    if first["item"].null_count() or (jd is not None and jd["item"].null_count()):
        return None
    gq = _codes(grid, "qid") * n_runs + _codes(grid, "run")
    gi = fidx[gq]

    def gather(df: pl.DataFrame, idx: np.ndarray, cols: list[str]) -> list[pl.Series]:
        s = pl.Series("_i", np.where(idx < 0, 0, idx), dtype=pl.Int64)
        s = pl.select(pl.when(pl.lit(pl.Series(idx >= 0))).then(s)).to_series()
        return [df[c].gather(s) for c in cols]

    fcols = [c for c in first.columns if c not in ("run", "qid")]
    if jd is None:
        return grid.with_columns(*gather(first, gi, fcols))
    # judgments: keep those whose item is the first item of their (run, qid)
    jq_pos = _codes(jd, "qid") * n_runs + _codes(jd, "run")
    ji_first = fidx[jq_pos]
    first_item = first["item"].to_numpy()
    jitem = jd["item"].to_numpy()
    ok = ji_first >= 0
    ok[ok] = jitem[ok] == first_item[ji_first[ok]]
    jpos = (_codes(jd, JS) * n_q * n_runs + jq_pos)[ok]
    if jpos.size and np.bincount(jpos).max() > 1:
        return None
    jidx = np.full(n_sets * n_q * n_runs, -1, np.int64)
    jidx[jpos] = np.flatnonzero(ok)
    gj = jidx[_codes(grid, JS) * n_q * n_runs + gq]
    gj[gi < 0] = -1
    jcols = [c for c in jd.columns if c not in (JS, "run", "qid", "item")]
    return grid.with_columns(*gather(first, gi, fcols), *gather(jd, gj, jcols))
