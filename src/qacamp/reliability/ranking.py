"""Rank correlation between run rankings (Voorhees 2003, 2005).

Two variants of Kendall's tau (``variant``):

- ``tau_a`` (default): Voorhees 2003's definition, "Kendall's tau computes
  the distance between two rankings as the minimum number of pairwise
  adjacent swaps to turn one ranking into the other.  The distance is
  normalized by the number of items being ranked such that two identical
  rankings produce a correlation of 1".  Rankings are total orders, so ties
  are broken first: runs are ranked by score, best first, and runs with equal
  scores by run name (Unicode code point order, ascending) - the same rule
  in both rankings.  The minimum number of adjacent swaps between two total
  orders is the number of pairs they order differently, ``S``, and
  ``tau = 1 - 4 S / (n (n - 1))``.
- ``tau_b``: ties are not broken; ``(C - D) / sqrt((P - T_a)(P - T_b))``
  with ``P`` pairs and ``T`` the pairs tied in a ranking (equals
  ``scipy.stats.kendalltau``, variant b).  It differs from ``tau_a`` when
  scores tie, as integer counts such as "number correct" often do.

Scores are rounded to 12 decimals before they are compared, so float noise
in mathematically equal scores (e.g. two summation orders) is a tie, not an
order; :func:`tied_pairs` counts the tied pairs of one ranking.

``ranking_swaps`` counts discordant pairs between two rankings, overall and
among pairs whose difference in the FIRST ranking is ``>= threshold``
(Voorhees 2003: 177 swaps, 4 with difference >= 0.05, none >= 0.07).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import polars as pl

from ..errors import UsageError

VARIANTS = ("tau_a", "tau_b")
DEFAULT_VARIANT = "tau_a"
VARIANT_HELP = ("Kendall tau variant: tau_a (default; Voorhees 2003's adjacent-swap "
                "distance, ties broken by run name) or tau_b (ties not broken, as scipy)")
#: decimals kept before comparing scores (equal after rounding = tied)
DECIMALS = 12
TAU_SCHEMA = {"ranking_a": pl.Utf8, "ranking_b": pl.Utf8, "n_runs": pl.Int64,
              "tau": pl.Float64, "variant": pl.Utf8, "tied_pairs_a": pl.Int64,
              "tied_pairs_b": pl.Int64}


def _vector(x) -> np.ndarray:
    return np.round(np.asarray(x, np.float64), DECIMALS)


def _signs(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    i, j = np.triu_indices(len(x), 1)
    return np.sign(x[i] - x[j]), x[i] - x[j]


def _names(names: Sequence[str] | None, n: int) -> np.ndarray:
    if names is None:
        return np.arange(n)
    if len(names) != n or len(set(names)) != n:
        raise UsageError("run names must be unique, one per score")
    order = sorted(range(n), key=lambda k: str(names[k]))
    rank = np.empty(n, np.int64)
    rank[order] = np.arange(n)
    return rank


def tied_pairs(x) -> int:
    """Pairs of runs with equal scores (after rounding to :data:`DECIMALS`)."""
    s, _ = _signs(_vector(x))
    return int(np.sum(s == 0))


def kendall_tau(a, b, variant: str = DEFAULT_VARIANT,
                names: Sequence[str] | None = None) -> float:
    """Kendall tau between two score vectors over the same runs (NaN if undefined).

    ``tau_a`` breaks ties by ``names`` (the runs' names; default: position).
    """
    if variant not in VARIANTS:
        raise UsageError(f"Kendall variant {variant!r}: use one of {', '.join(VARIANTS)}")
    a, b = _vector(a), _vector(b)
    if a.shape != b.shape or a.ndim != 1:
        raise UsageError("kendall_tau needs two 1-D vectors of the same length")
    if len(a) < 2:
        return float("nan")
    sa, _ = _signs(a)
    sb, _ = _signs(b)
    if variant == "tau_b":
        den = np.sqrt(np.sum(sa * sa) * np.sum(sb * sb))
        return float(np.sum(sa * sb) / den) if den > 0 else float("nan")
    # tie-broken total orders: higher score first; equal scores by name, ascending
    tie, _ = _signs(-_names(names, len(a)).astype(np.float64))
    oa = np.where(sa != 0, sa, tie)
    ob = np.where(sb != 0, sb, tie)
    swaps = int(np.sum(oa != ob))  # = minimum number of adjacent swaps
    n = len(a)
    return float(1.0 - 4.0 * swaps / (n * (n - 1)))


def tau_table(scores: pl.DataFrame, ranking_col: str = "ranking", run_col: str = "run",
              score_col: str = "score", variant: str = DEFAULT_VARIANT) -> pl.DataFrame:
    """Kendall tau for every pair of rankings in a long frame (ranking, run, score).

    A ranking is any label (judgment set, measure, aggregation).  Each pair is
    compared on the runs both rankings score.  Output (:data:`TAU_SCHEMA`):
    ranking_a, ranking_b, n_runs, tau, variant, tied_pairs_a, tied_pairs_b
    (pairs of those runs with equal scores in ranking a / b), ranking_a <
    ranking_b in the rankings' first-seen order.
    """
    if variant not in VARIANTS:
        raise UsageError(f"Kendall variant {variant!r}: use one of {', '.join(VARIANTS)}")
    wide = scores.pivot(on=ranking_col, index=run_col, values=score_col,
                        aggregate_function="first").sort(run_col)
    names = list(dict.fromkeys(scores[ranking_col].cast(pl.Utf8).to_list()))
    rows = []
    for x in range(len(names)):
        for y in range(x + 1, len(names)):
            sub = wide.select(run_col, names[x], names[y]).drop_nulls()
            a, b = sub[names[x]].to_numpy(), sub[names[y]].to_numpy()
            rows.append({"ranking_a": names[x], "ranking_b": names[y], "n_runs": sub.height,
                         "tau": kendall_tau(a, b, variant, sub[run_col].cast(pl.Utf8).to_list()),
                         "variant": variant, "tied_pairs_a": tied_pairs(a),
                         "tied_pairs_b": tied_pairs(b)})
    return pl.DataFrame(rows, schema=TAU_SCHEMA)


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
