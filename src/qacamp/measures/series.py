"""Series measures (TREC 2004-2007 question series; Voorhees 2005, HLT/EMNLP 2005).

Per-series score = w_f * factoid accuracy + w_l * mean list F + w_o * Other
score within the series ("using only the scores for questions belonging to
that series in the computation and using the Other question's score in place
of the average of definition questions scores"); 2004-2005: 0.5 / 0.25 / 0.25,
and 0.67 / 0.33 (factoid / Other) for a series without list questions ("For
those series that did not contain any list questions, the score was computed
as .67 FactoidAccuracy + .33 OtherF"); 2006-2007: equal thirds (2006
guidelines: "the per-series score will give equal weight to each of the three
types of questions").  The Other score is the nugget F through 2006 and the
pyramid F in 2007.  Run score = mean over series.  type_score (TREC 2003
style, "FinalScore = .5FactoidAccuracy + .25ListAveF + .25DefinitionAveF") over
the whole test set.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from ..errors import ConfigError
from ._cite import SERIES, TREC2003, TREC2006, TREC2007
from .record import Measure

WEIGHTS_2004 = {"factoid": 0.5, "list": 0.25, "other": 0.25,
                "no_list_factoid": 0.67, "no_list_other": 0.33}
WEIGHTS_2006 = {"factoid": 1 / 3, "list": 1 / 3, "other": 1 / 3,
                "no_list_factoid": 0.5, "no_list_other": 0.5}
TYPE_WEIGHTS = {"factoid": 0.5, "list": 0.25, "other": 0.25}

MEASURES = (
    Measure("series_score", "series", "Per-series weighted combination of factoid accuracy, "
            "mean list F and the official Other score (nugget F through 2006, pyramid F in "
            "2007); run score = mean over the series (a series whose Other question was never "
            "judged is left out).",
            "2004-05: 0.5 acc + 0.25 listF + 0.25 otherF (no list: 0.67 acc + 0.33 otherF); "
            "2006-07: thirds", f"{SERIES}; {TREC2006}; {TREC2007}", "mean", unit="series",
            parameters=(("weights", "by year"), ("other_score", "nugget; 2007: pyramid")), label="series score"),
    Measure("type_score", "series", "TREC 2003-style score by question type over the whole "
            "test set (every judged question, the campaign's Other score and beta).",
            "0.5 acc + 0.25 mean listF + 0.25 mean otherF", f"{TREC2003}; {SERIES}", "set",
            unit="run", parameters=(("weights", "0.5/0.25/0.25"),), label="per-type score"),
)


def default_weights(year: int | None) -> dict[str, float]:
    """The series weights of a TREC year (2004-2005 or 2006-2007)."""
    if year is None or year <= 2005:
        return dict(WEIGHTS_2004)
    return dict(WEIGHTS_2006)


def resolve_weights(year: int | None, override: Mapping[str, float] | None) -> dict[str, float]:
    """Year defaults updated with the config's ``weights``."""
    w = default_weights(year)
    for key, value in (override or {}).items():
        if key not in w:
            raise ConfigError(f"weights.{key}", "unknown weight",
                              f"use one of {', '.join(w)}")
        w[key] = float(value)
    return w


def combine(df: pl.DataFrame, weights: Mapping[str, float], other: str = "other_f"
            ) -> pl.DataFrame:
    """Add ``series_score`` from columns ``accuracy``, ``list_f`` and ``other``
    (the campaign's official Other score, by default ``other_f``; null where
    the series has no judged question of that type).

    Both list and Other present: factoid/list/other weights; no list questions:
    the no_list weights.  Any other missing component: the present components'
    weights renormalised to sum 1 (documented in docs/semantics.md).
    """
    acc, lf, of = pl.col("accuracy"), pl.col("list_f"), pl.col(other)
    wf, wl, wo = weights["factoid"], weights["list"], weights["other"]
    nf, no = weights["no_list_factoid"], weights["no_list_other"]
    has_f, has_l, has_o = acc.is_not_null(), lf.is_not_null(), of.is_not_null()
    num = (pl.when(has_f).then(acc * wf).otherwise(0.0)
           + pl.when(has_l).then(lf * wl).otherwise(0.0)
           + pl.when(has_o).then(of * wo).otherwise(0.0))
    den = (pl.when(has_f).then(wf).otherwise(0.0) + pl.when(has_l).then(wl).otherwise(0.0)
           + pl.when(has_o).then(wo).otherwise(0.0))
    score = (pl.when(has_f & ~has_l & has_o).then(nf * acc + no * of)
             .when(has_f & has_l & has_o).then(wf * acc + wl * lf + wo * of)
             .when(den > 0).then(num / den).otherwise(None))
    return df.with_columns(score.alias("series_score"))


def type_score(df: pl.DataFrame, weights: Mapping[str, float] = TYPE_WEIGHTS) -> pl.DataFrame:
    """Add ``type_score`` from run-level ``accuracy``, ``list_f``, ``other_f``
    (a component the campaign lacks counts 0; a component the config skips has
    weight 0 and the others are renormalised by the caller)."""
    return df.with_columns(
        (weights["factoid"] * pl.col("accuracy").fill_null(0.0)
         + weights["list"] * pl.col("list_f").fill_null(0.0)
         + weights["other"] * pl.col("other_f").fill_null(0.0)).alias("type_score"))
