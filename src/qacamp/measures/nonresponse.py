"""Non-response measures (c@1 paper: Peñas & Rodrigo 2011, ACL-HLT 2011; QA4MRE).

c@1 = (nR + nU nR / n) / n with nR right, nU unanswered (missing responses
included), n all questions; QA4MRE accuracy = (nR + nUR) / n; proportion
correctly discarded = (nUW + nUE) / (nUR + nUW + nUE); utility UF = (nR - nW) / n.
Outcomes: R right, W wrong (incl. U, X), UR / UW unanswered with a right /
wrong candidate, UE unanswered without a candidate.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from ..aggregate import group_agg
from ._cite import C_AT_1, QA4MRE
from .record import Measure

MEASURES = (
    Measure("c_at_1", "nonresponse", "c@1: accuracy that rewards leaving a question unanswered "
            "in proportion to the accuracy on the answered ones.",
            "(nR + nU * nR / n) / n", C_AT_1, "counts", label="c@1", aggregator="c_at_1",
            outcome=True),
    Measure("qa4mre_accuracy", "nonresponse", "Accuracy counting the unanswered questions whose "
            "hypothetical candidate was right.", "(nR + nUR) / n", QA4MRE, "counts", label="QA4MRE accuracy",
            outcome=True),
    Measure("correctly_discarded", "nonresponse", "Proportion of the unanswered questions that "
            "were correctly left unanswered (candidate wrong or absent); 0 when none unanswered.",
            "(nUW + nUE) / (nUR + nUW + nUE)", QA4MRE, "counts", label="correctly discarded"),
    Measure("utility", "nonresponse", "Utility UF: right minus wrong answers per question.",
            "(nR - nW) / n", C_AT_1, "counts", label="utility", outcome=True),
    Measure("n_right", "nonresponse", "Questions answered right.", "nR", C_AT_1, "counts",
            integer=True, label="right"),
    Measure("n_wrong", "nonresponse", "Questions answered wrong (W, U, X).", "nW", C_AT_1,
            "counts", higher_is_better=False, integer=True, label="wrong"),
    Measure("n_unanswered", "nonresponse", "Questions left unanswered (incl. missing).",
            "nU = nUR + nUW + nUE", C_AT_1, "counts", higher_is_better=False, integer=True, label="unanswered"),
    Measure("n_unanswered_right", "nonresponse", "Unanswered with a right candidate.", "nUR",
            QA4MRE, "counts", higher_is_better=False, integer=True, label="unanswered (candidate right)"),
    Measure("n_unanswered_wrong", "nonresponse", "Unanswered with a wrong candidate.", "nUW",
            QA4MRE, "counts", integer=True, label="unanswered (candidate wrong)"),
    Measure("n_unanswered_empty", "nonresponse", "Unanswered without a candidate (incl. missing).",
            "nUE", QA4MRE, "counts", integer=True, label="unanswered (no candidate)"),
)

OUTCOME_COLUMNS = ("r", "w", "ur", "uw", "ue")


def c_at_1(n_right: float, n_unanswered: float, n: float) -> float:
    """c@1 from counts: (nR + nU nR / n) / n; 0 when n = 0."""
    if n <= 0:
        return 0.0
    return (n_right + n_unanswered * n_right / n) / n


COUNT_COLUMNS = tuple(f"n_{c}" for c in OUTCOME_COLUMNS)


def outcome_indicators(outcome: pl.Expr) -> list[pl.Expr]:
    """0/1 columns r, w, ur, uw, ue (UInt8: their sums are exact) from an
    outcome string column."""
    return [(outcome == code).cast(pl.UInt8).alias(code.lower())
            for code in ("R", "W", "UR", "UW", "UE")]


#: The measures that are a mean (or, for the counts, a sum) of one value per
#: question, and that value for each outcome (R, W, UR, UW, UE; an outcome not
#: listed counts 0): accuracy = mean of R; UF = mean of U(i), "+1 correct, 0
#: unanswered, -1 incorrect" (c@1 paper, Formula 1); QA4MRE accuracy = mean of
#: (R or UR).  c@1 and correctly discarded are ratios of counts: they have no
#: per-question value.  ``qacamp eval -q`` prints these per question, and the
#: swap method's question-level matrices use the same values
#: (:func:`qacamp.reliability.builders.from_outcomes`).
PER_QUESTION: dict[str, dict[str, float]] = {
    "accuracy": {"R": 1.0},
    "utility": {"R": 1.0, "W": -1.0},
    "qa4mre_accuracy": {"R": 1.0, "UR": 1.0},
    "n_right": {"R": 1.0},
    "n_wrong": {"W": 1.0},
    "n_unanswered": {"UR": 1.0, "UW": 1.0, "UE": 1.0},
    "n_unanswered_right": {"UR": 1.0},
    "n_unanswered_wrong": {"UW": 1.0},
    "n_unanswered_empty": {"UE": 1.0},
}


def outcome_values(outcome: pl.Expr | pl.Series, measure: str):
    """The per-question value of ``measure`` (:data:`PER_QUESTION`) for an
    outcome column or series."""
    return outcome.replace_strict(PER_QUESTION[measure], default=0.0,
                                  return_dtype=pl.Float64)


def per_question(outcomes: pl.DataFrame, measures: Sequence[str]) -> pl.DataFrame:
    """``judgment_set, run, measure, unit, value``: one row per question and
    measure of ``measures`` that has a per-question value, from
    ``scores/outcomes.parquet`` (unit = the question id)."""
    frames = [outcomes.select("judgment_set", "run", pl.lit(m).alias("measure"),
                              pl.col("qid").alias("unit"),
                              outcome_values(pl.col("outcome"), m).alias("value"))
              for m in measures if m in PER_QUESTION]
    if not frames:
        return pl.DataFrame(schema={"judgment_set": pl.String, "run": pl.String,
                                    "measure": pl.String, "unit": pl.String,
                                    "value": pl.Float64})
    return pl.concat(frames)


def counts(df: pl.DataFrame, keys: Sequence[str], order: Sequence[str] = ()) -> pl.DataFrame:
    """Outcome counts n_r, n_w, n_ur, n_uw, n_ue per group ``keys`` of a frame with
    one row per question and the outcome columns r, w, ur, uw, ue (0/1, or
    probabilities for an expected-value run).  ``order`` (e.g. the question id)
    fixes the order in which fractional values are added
    (:func:`qacamp.aggregate.group_agg`): the same bits on every run."""
    return group_agg(df, list(keys), order, sums=OUTCOME_COLUMNS).rename(
        {c: f"n_{c}" for c in OUTCOME_COLUMNS})


def from_counts(sums: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """The non-response measures (and ``accuracy`` = nR / n) from the counts of
    :func:`counts` (or sums of them)."""
    nr, nw, nur, nuw, nue = (pl.col(c) for c in COUNT_COLUMNS)
    nu = nur + nuw + nue
    n = nr + nw + nu

    def div(a: pl.Expr, b: pl.Expr) -> pl.Expr:
        return pl.when(b > 0).then(a / b).otherwise(0.0)

    return sums.select(
        *keys,
        div(nr + nu * div(nr, n), n).alias("c_at_1"),
        div(nr, n).alias("accuracy"),
        div(nr + nur, n).alias("qa4mre_accuracy"),
        div(nuw + nue, nu).alias("correctly_discarded"),
        div(nr - nw, n).alias("utility"),
        nr.alias("n_right"), nw.alias("n_wrong"), nu.alias("n_unanswered"),
        nur.alias("n_unanswered_right"), nuw.alias("n_unanswered_wrong"),
        nue.alias("n_unanswered_empty"),
    )


def aggregate(df: pl.DataFrame, keys: Sequence[str], order: Sequence[str] = ()) -> pl.DataFrame:
    """Counts and non-response measures per group ``keys`` (:func:`counts`, then
    :func:`from_counts`)."""
    return from_counts(counts(df, keys, order), list(keys))
