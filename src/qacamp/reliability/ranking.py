"""Rank correlation between run rankings (Voorhees 2003, 2005).

``kendall_tau`` is Kendall's tau-b over the runs two score vectors share:
``(C - D) / sqrt((P - T_a)(P - T_b))`` computed as
``sum s_a s_b / sqrt(sum s_a^2 * sum s_b^2)`` with ``s = sign`` of the pairwise
score differences (equals ``scipy.stats.kendalltau``, variant b).
``ranking_swaps`` counts discordant pairs between two rankings, overall and
among pairs whose difference in the FIRST ranking is ``>= threshold``
(Voorhees 2003: 177 swaps, 4 with difference >= 0.05, none >= 0.07).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import polars as pl

from ..errors import UsageError


def _signs(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    i, j = np.triu_indices(len(x), 1)
    return np.sign(x[i] - x[j]), x[i] - x[j]


def kendall_tau(a, b) -> float:
    """Kendall tau-b between two score vectors over the same runs (NaN if undefined)."""
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise UsageError("kendall_tau needs two 1-D vectors of the same length")
    if len(a) < 2:
        return float("nan")
    sa, _ = _signs(a)
    sb, _ = _signs(b)
    den = np.sqrt(np.sum(sa * sa) * np.sum(sb * sb))
    return float(np.sum(sa * sb) / den) if den > 0 else float("nan")


def tau_table(scores: pl.DataFrame, ranking_col: str = "ranking", run_col: str = "run",
              score_col: str = "score") -> pl.DataFrame:
    """Kendall tau for every pair of rankings in a long frame (ranking, run, score).

    A ranking is any label (judgment set, measure, aggregation).  Each pair is
    compared on the runs both rankings score.  Output: ranking_a, ranking_b,
    n_runs, tau (ranking_a < ranking_b in the rankings' first-seen order).
    """
    wide = scores.pivot(on=ranking_col, index=run_col, values=score_col,
                        aggregate_function="first").sort(run_col)
    names = list(dict.fromkeys(scores[ranking_col].cast(pl.Utf8).to_list()))
    rows = []
    for x in range(len(names)):
        for y in range(x + 1, len(names)):
            sub = wide.select(names[x], names[y]).drop_nulls()
            rows.append({"ranking_a": names[x], "ranking_b": names[y], "n_runs": sub.height,
                         "tau": kendall_tau(sub[names[x]].to_numpy(), sub[names[y]].to_numpy())})
    return pl.DataFrame(rows, schema={"ranking_a": pl.Utf8, "ranking_b": pl.Utf8,
                                      "n_runs": pl.Int64, "tau": pl.Float64})


def ranking_swaps(a, b, thresholds: Iterable[float] = (0.05, 0.07)) -> pl.DataFrame:
    """Discordant pairs between rankings ``a`` and ``b`` (scores over the same runs).

    Rows (threshold, swaps, pairs): threshold 0 = all discordant pairs; other
    rows count those with ``|a_x - a_y| >= threshold`` (``pairs`` = pairs meeting
    the threshold).  Pairs tied in either ranking are not swaps.
    """
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    if a.shape != b.shape:
        raise UsageError("ranking_swaps needs two vectors of the same length")
    sa, da = _signs(a)
    sb, _ = _signs(b)
    disc = sa * sb < 0
    ths = [0.0] + sorted(float(t) for t in thresholds if t > 0)
    rows = [{"threshold": t, "swaps": int(np.sum(disc & (np.abs(da) >= t - 1e-12))),
             "pairs": int(np.sum(np.abs(da) >= t - 1e-12))} for t in ths]
    return pl.DataFrame(rows, schema={"threshold": pl.Float64, "swaps": pl.Int64,
                                      "pairs": pl.Int64})
