"""List measures (TREC 2003-2007 list questions; Voorhees 2003 TREC 2003 overview).

S known instances (answer key), N items returned, D right and distinct items:
IP = D / N, IR = D / S, F = 2 IP IR / (IP + IR), F = 0 when D = 0.  Per
question, then averaged over the judged list questions.
"""

from __future__ import annotations

import polars as pl

from ._cite import TREC2003
from .record import Measure

MEASURES = (
    Measure("list_precision", "lists", "Instance precision of a list response (0 if nothing "
            "returned).", "IP = D / N", TREC2003, "mean", label="list precision"),
    Measure("list_recall", "lists", "Instance recall against the answer key.", "IR = D / S",
            TREC2003, "mean", label="list recall"),
    Measure("list_f", "lists", "F of instance precision and recall, 0 when D = 0.",
            "F = 2 IP IR / (IP + IR)", TREC2003, "mean", label="list F"),
)


def per_question(df: pl.DataFrame) -> pl.DataFrame:
    """Add list_precision, list_recall, list_f from integer columns N, D, S."""
    n, d, s = pl.col("N"), pl.col("D"), pl.col("S")
    ip = pl.when(n > 0).then(d / n).otherwise(0.0)
    ir = pl.when(s > 0).then(d / s).otherwise(0.0)
    out = df.with_columns(ip.alias("list_precision"), ir.alias("list_recall"))
    p, r = pl.col("list_precision"), pl.col("list_recall")
    return out.with_columns(
        pl.when(d > 0).then(2 * p * r / (p + r)).otherwise(0.0).alias("list_f"))
