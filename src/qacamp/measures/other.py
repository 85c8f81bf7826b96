"""Other (nugget) measures (TREC 2003-2007 Other / definition questions).

recall R = vital nuggets matched / vital nuggets; allowance = 100 non-white-space
characters per matched nugget (vital or okay); length = non-white-space
characters of all response strings; precision P = 1 if length < allowance,
else 1 - (length - allowance) / length; F = (beta^2 + 1) P R / (beta^2 P + R)
with beta = 3 from TREC 2004 on (Voorhees 2005: "the F measure with nugget
recall three times as important as nugget precision") and beta = 5 for the
TREC 2003 definition questions (``beta: 5``, set by the ``trec2003`` preset);
trec_eval's set_F parameter is beta^2, not beta.  Pyramid
(2006-2007, Lin & Demner-Fushman 2006): recall = sum of matched nuggets'
weights / sum of all nuggets' weights, same precision.
"""

from __future__ import annotations

import polars as pl

from ._cite import PYRAMID, SERIES, TREC2003
from .record import Measure

ALLOWANCE = 100
BETA = 3.0
_P = (("beta", BETA), ("allowance", ALLOWANCE))

MEASURES = (
    Measure("other_recall", "other", "Nugget recall over vital nuggets.",
            "vital matched / vital", TREC2003, "mean", label="Other recall"),
    Measure("other_precision", "other", "Length-based nugget precision.",
            "1 if length < allowance else 1 - (length - allowance) / length; "
            "allowance = 100 * matched nuggets", TREC2003, "mean", parameters=_P, label="Other precision"),
    Measure("other_f", "other", "Nugget F(beta): beta = 3 from TREC 2004 on (recall three "
            "times as important as precision), 5 for TREC 2003 definition questions.",
            "(b^2 + 1) P R / (b^2 P + R); b = 3 (2004-2007), 5 (2003)",
            f"{SERIES} (beta = 3); {TREC2003} (beta = 5)", "mean", parameters=_P, label="Other F"),
    Measure("other_pyramid_recall", "other", "Pyramid nugget recall (weights from several "
            "assessors' vital votes).", "sum matched weights / sum all weights", PYRAMID,
            "mean", label="Other pyramid recall"),
    Measure("other_pyramid_f", "other", "Pyramid F(beta=3) with the same length precision.",
            "(b^2 + 1) P Rpyr / (b^2 P + Rpyr), b = 3", PYRAMID, "mean", parameters=_P, label="Other pyramid F"),
)


def f_beta(p: pl.Expr, r: pl.Expr, beta: float = BETA) -> pl.Expr:
    """(b^2 + 1) P R / (b^2 P + R); 0 when the denominator is 0."""
    b2 = beta * beta
    den = b2 * p + r
    return pl.when(den > 0).then((b2 + 1) * p * r / den).otherwise(0.0)


def per_question(df: pl.DataFrame, allowance: int = ALLOWANCE, beta: float = BETA
                 ) -> pl.DataFrame:
    """Add the Other measures from columns ``length`` (non-white-space chars),
    ``matched`` (nuggets matched, vital or okay), ``vital_matched``,
    ``vital_total``, ``weight_matched`` and ``weight_total``.

    Precision is 1 if length < allowance, else 1 - (length - allowance) /
    length (at equality this is 1); length = allowance = 0 gives 0 (0/0).
    Recall (and F) is null without vital nuggets, the pyramid variants without
    weights: not computable, never 0.
    """
    length = pl.col("length").cast(pl.Float64)
    allow = (allowance * pl.col("matched")).cast(pl.Float64)
    precision = (pl.when(length < allow).then(1.0)
                 .when(length > 0).then(1.0 - (length - allow) / length)
                 .otherwise(0.0))
    recall = pl.when(pl.col("vital_total") > 0).then(
        pl.col("vital_matched") / pl.col("vital_total")).otherwise(None)
    pyr = pl.when(pl.col("weight_total") > 0).then(
        pl.col("weight_matched") / pl.col("weight_total")).otherwise(None)
    out = df.with_columns(precision.alias("other_precision"), recall.alias("other_recall"),
                          pyr.alias("other_pyramid_recall"))
    p = pl.col("other_precision")
    return out.with_columns(
        pl.when(pl.col("other_recall").is_not_null())
        .then(f_beta(p, pl.col("other_recall"), beta)).otherwise(None).alias("other_f"),
        pl.when(pl.col("other_pyramid_recall").is_not_null())
        .then(f_beta(p, pl.col("other_pyramid_recall"), beta)).otherwise(None)
        .alias("other_pyramid_f"))
