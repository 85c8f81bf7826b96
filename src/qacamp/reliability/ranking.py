"""Rank correlation between run rankings (Voorhees 2003, 2005).

Voorhees 2003 defines the distance: "Kendall's tau computes the distance
between two rankings as the minimum number of pairwise adjacent swaps to turn
one ranking into the other.  The distance is normalized by the number of items
being ranked such that two identical rankings produce a correlation of 1".
On rankings without ties that is ``1 - 4 S / (n (n - 1))`` with ``S`` the
pairs the two orders disagree on, ``= (C - D) / P`` (``C``/``D`` concordant /
discordant pairs, ``P = n (n - 1) / 2``).  Neither Voorhees paper says what
happens to runs with equal scores, and a rule that orders them by anything
outside the scores (their names) makes tau change when runs are renamed.
Three variants (``variant``):

- ``tau_b`` (default, label-free): ``(C - D) / sqrt((P - T_a)(P - T_b))``
  with ``T`` the pairs tied in a ranking (equals ``scipy.stats.kendalltau``,
  variant b).  Without ties it is the adjacent-swap tau above; with ties it
  still gives two identical rankings "a correlation of 1", and it does not
  depend on the runs' names.
- ``tau_a`` (label-free): ``(C - D) / P``, a pair tied in either ranking
  counting zero.  This is the expected value of the adjacent-swap tau when
  each ranking's ties are put in an independent, uniformly random order (a
  tied pair is then concordant or discordant with probability 1/2 each); a
  ranking with ties compared with itself gets ``1 - T / P``, not 1.
- ``tau_a_by_name`` (explicit option only): the adjacent-swap tau of the
  total orders obtained by ordering runs with equal scores by run name
  (Unicode code point order, ascending), the same rule in both rankings.  It
  depends on the names: renaming two tied runs can change it (0.3030 vs
  0.2727 on the same 12 scores).

Every variant reports how many pairs are tied in each ranking
(:func:`tied_pairs`; columns ``tied_pairs_a``/``tied_pairs_b`` of
:func:`tau_table`).  Scores are rounded to 12 decimals before they are
compared, so float noise in mathematically equal scores (e.g. two summation
orders) is a tie, not an order.

``ranking_swaps`` counts discordant pairs between two rankings, overall and
among pairs whose difference in the FIRST ranking is ``>= threshold``
(Voorhees 2003: 177 swaps, 4 with difference >= 0.05, none >= 0.07).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import polars as pl

from ..errors import UsageError

VARIANTS = ("tau_a", "tau_b", "tau_a_by_name")
DEFAULT_VARIANT = "tau_b"
VARIANT_HELP = ("Kendall tau variant: tau_b (default; as scipy: independent of run names, 1 "
                "for identical rankings), tau_a ((C - D) / pairs, tied pairs count 0: "
                "Voorhees 2003's adjacent-swap tau averaged over random tie orders) or "
                "tau_a_by_name (ties broken by run name: changes when runs are renamed)")
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

    Only ``tau_a_by_name`` reads ``names`` (the runs' names; default:
    position), to break ties; the other variants never look at them.
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
    if variant == "tau_a":  # a pair tied in either ranking counts 0
        return float(np.sum(sa * sb) / len(sa))
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
