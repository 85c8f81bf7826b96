"""Factoid measures (TREC 2002 QA track; Voorhees 2003, HLT-NAACL 2003).

accuracy = R / Q; CWS = (1/Q) sum_i (R among the first i) / i over the run's
confidence order; MRR = mean of 1/rank of the first right answer (0 if none);
NIL precision = NIL returned and right / NIL returned; NIL recall = NIL
returned and right / questions whose answer is NIL.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from ..aggregate import group_starts, sorted_by
from ._cite import TREC8, TREC2002, TREC2006_LOCAL
from .record import Measure

MEASURES = (
    Measure("accuracy", "factoid", "Share of questions answered right (strict: U and X are wrong; "
            "unanswered and missing responses count as not right).",
            "R / n", TREC2002, "mean", label="accuracy", outcome=True),
    Measure("cws", "factoid", "Confidence-weighted score: rewards right answers early in the "
            "run's confidence order (analog of uninterpolated average precision).",
            "(1/Q) sum_{i=1..Q} (right among first i) / i", TREC2002, "order", label="CWS",
            aggregator="cws", outcome=True),
    Measure("mrr", "factoid", "Mean reciprocal rank of the first right answer among the "
            "question's ranked answers (item number = rank), 0 if none.",
            "mean_q 1/rank_q (0 if no right answer)", TREC8, "mean", label="MRR"),
    Measure("mrr_lenient", "factoid", "Mean reciprocal rank counting unsupported answers (U) "
            "as right, as TREC 8-10 'lenient' judging did.",
            "mean_q 1/rank_q of the first R or U answer (0 if none)", TREC8, "mean", label="MRR (lenient)"),
    Measure("accuracy_lenient", "factoid", "Share of questions whose (first) answer is judged "
            "right or unsupported (lenient judging).", "(R + U) / n", TREC8, "mean", label="accuracy (lenient)"),
    Measure("accuracy_local", "factoid", "Share of questions whose (first) answer is judged "
            "globally or only locally correct (TREC 2006-2007 'locally correct' judgments, "
            "wrong in the official accuracy).", "(R + L) / n", TREC2006_LOCAL, "mean", label="accuracy (locally correct)"),
    Measure("nil_precision", "factoid", "Of the NIL responses returned, the share judged right; "
            "0 when no NIL was returned.",
            "NIL returned & right / NIL returned", TREC2002, "counts", label="NIL precision"),
    Measure("nil_recall", "factoid", "Of the questions whose answer is NIL, the share answered "
            "NIL (right); 0 when there are none.",
            "NIL returned & right / NIL questions", TREC2002, "counts", label="NIL recall"),
)


def cws(df: pl.DataFrame, keys: Sequence[str], order: Sequence[str] = ("rank", "qid"),
        correct: str = "r") -> pl.DataFrame:
    """Confidence-weighted score per group ``keys``.

    ``df`` has one row per question with a 0/1 ``correct`` column (no nulls);
    questions are ranked within each group by ``order`` (nulls last: missing
    responses are the least confident).  CWS = (1/Q) sum_i c_i / i with c_i
    the right answers among the first i (Voorhees 2003), the terms added in
    that order (:func:`qacamp.aggregate.group_agg`'s fixed order)."""
    keys = list(keys)
    ranked = sorted_by(df.select(*keys, *order, correct), [*keys, *order])
    starts = group_starts(ranked, keys)
    sizes = np.diff(np.append(starts, ranked.height))
    right = ranked[correct].fill_null(0).cast(pl.Int64).to_numpy()
    total = np.cumsum(right)
    before = np.repeat(total[starts] - right[starts], sizes)  # right answers before the group
    position = np.arange(ranked.height) - np.repeat(starts, sizes) + 1
    prec = (total - before) / position  # c_i / i
    means = np.add.reduceat(prec, starts) / sizes if ranked.height else np.zeros(0)
    out = ranked.select(keys)[pl.Series(starts)] if ranked.height else ranked.select(keys)
    return out.with_columns(pl.Series("cws", means, dtype=pl.Float64))


def reciprocal_rank(items: pl.DataFrame, keys: Sequence[str], rank: str = "item",
                    correct: str = "right") -> pl.DataFrame:
    """Per question (``keys``): 1 / rank of the first right item, 0 if none."""
    return items.group_by(list(keys)).agg(
        (1.0 / pl.col(rank).filter(pl.col(correct)).min()).fill_null(0.0).alias("rr"))


def nil_scores(df: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """NIL precision and recall per group ``keys``.

    ``df`` has one row per question with boolean ``nil_returned``,
    ``nil_right`` (NIL returned and judged R) and ``nil_question`` (the
    question's answer is NIL).  Recall counts only right NIL responses on NIL
    questions.  Empty denominators give 0.
    """
    agg = df.group_by(list(keys), maintain_order=True).agg(
        pl.col("nil_right").sum().alias("_nr"),
        (pl.col("nil_right") & pl.col("nil_question")).sum().alias("_nrq"),
        pl.col("nil_returned").sum().alias("_nret"),
        pl.col("nil_question").sum().alias("_nq"))
    return agg.select(*keys,
                      _safe_div(pl.col("_nr"), pl.col("_nret")).alias("nil_precision"),
                      _safe_div(pl.col("_nrq"), pl.col("_nq")).alias("nil_recall"))


def _safe_div(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    """num / den, 0 where den == 0 (the project's empty-denominator convention)."""
    return pl.when(den > 0).then(num.cast(pl.Float64) / den).otherwise(0.0)
