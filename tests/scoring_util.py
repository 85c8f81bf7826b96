"""Helpers shared by the scoring tests: canonical tables built from dicts, and
one value read from a ``runs`` frame."""

from __future__ import annotations

import polars as pl

from qacamp.tables import SCHEMAS, conform, empty


def T(**kw):
    """Every canonical table, empty except those given (name=dict of columns)."""
    out = {n: empty(n) for n in SCHEMAS}
    for k, v in kw.items():
        out[k] = conform(k, pl.DataFrame(v))
    return out


def val(res, run, measure, scope="all", unit="all", js=None):
    """The one value of ``measure`` for ``run`` at (scope, unit) in ``res['runs']``."""
    df = res["runs"].filter((pl.col("run") == run) & (pl.col("measure") == measure)
                            & (pl.col("scope") == scope) & (pl.col("unit") == unit))
    if js:
        df = df.filter(pl.col("judgment_set") == js)
    assert df.height == 1, (run, measure, scope, unit, df)
    return df["value"][0]
