"""Adjusted p-values of every run pair as one triangle, runs ordered by score.

Rows are the runs from the second best down, columns the runs from the best
down; the cell of row ``i`` and column ``j < i`` is the pair of the ``i``-th
and ``j``-th best runs, its colour the pair's adjusted p-value in bands
(<= 0.001, <= 0.01, <= alpha in blues: significant; <= 0.1, <= 0.5, > 0.5 in
oranges and grey; the empty half is white).  The colour alone says whether a pair is significant (no
marker repeats it), and the matrix, being symmetric, is drawn once.  Every run
is named on both axes whatever their number: the figure grows with the runs
up to :data:`MAX_INCHES` and the names' font is sized to fit one cell, never
below :data:`MIN_FONT` points (the figure then grows instead).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ...measures import label
from ..tables.significance import title_of_test
from .base import footnote, new_figure, style

#: the largest side of the matrix (inches) before the names' font shrinks
MAX_INCHES = 13.0
#: the names' font size (points): at most MAX_FONT, at least MIN_FONT
MAX_FONT = 8.0
MIN_FONT = 3.5


def pvalue_matrix(pairs: pl.DataFrame, runs: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(p_adjusted, significant) as symmetric run x run matrices in the order of ``runs``
    (diagonal NaN / False); pairs with a run not in ``runs`` are left out."""
    at = {r: k for k, r in enumerate(runs)}
    p = np.full((len(runs), len(runs)), np.nan)
    sig = np.zeros(p.shape, bool)
    for a, b, q, s in pairs.select("run_a", "run_b", "p_adjusted", "significant").iter_rows():
        if a in at and b in at:
            p[at[a], at[b]] = p[at[b], at[a]] = q
            sig[at[a], at[b]] = sig[at[b], at[a]] = bool(s)
    return p, sig


def layout(n: int, longest: int) -> tuple[float, float, float]:
    """``(side, font, margin)``: the matrix's side and the names' font size and
    margin (inches) for ``n - 1`` cells a side and names of ``longest`` characters."""
    cells = max(1, n - 1)
    font = MAX_FONT
    side = min(MAX_INCHES, max(3.0, 0.16 * cells))
    fit = side * 72.0 / cells * 0.85  # a name's height must fit its cell
    if fit < font:
        font = max(MIN_FONT, fit)
        side = max(side, cells * font / 0.85 / 72.0)
    margin = 0.3 + 0.55 * font / 72.0 * max(1, longest)
    return side, font, margin


def significance_matrix_figure(pairs: pl.DataFrame, runs: list[str], measure: str,
                               summary: dict | None = None):
    """The figure for one measure; ``runs`` in score order (best first)."""
    from matplotlib.colors import BoundaryNorm, ListedColormap

    summary = summary or {}
    alpha = float(summary.get("alpha") or 0.05)
    p, sig = pvalue_matrix(pairs, runs)
    n = len(runs)
    edges = sorted({0.0, 0.001, 0.01, alpha, 0.1, 0.5, 1.0})
    sig_shades = ["#08306b", "#2171b5", "#6baed6", "#9ecae1"]
    other_shades = ["#fdae6b", "#fdd0a2", "#d9d9d9"]
    n_sig = sum(1 for e in edges[1:] if e <= alpha)
    cmap = ListedColormap(sig_shades[:n_sig] + other_shades[-(len(edges) - 1 - n_sig):]
                          ).with_extremes(bad="white")
    # one triangle: row i (the i-th best run, i >= 1) against column j < i
    lower = np.where(np.tril(np.ones((n, n), bool), k=-1), p, np.nan)[1:, :-1]
    side, font, margin = layout(n, max((len(r) for r in runs), default=1))
    with style():
        width = side + margin + 1.6
        fig, ax = new_figure(width, side + margin + 0.9)
        img = ax.imshow(np.ma.masked_invalid(lower), cmap=cmap,
                        norm=BoundaryNorm(edges, cmap.N), interpolation="nearest",
                        aspect="equal")
        ax.grid(False)
        for spine in ("top", "right"):
            ax.spines[spine].set_visible(False)
        ax.set_xticks(range(n - 1), runs[:-1], rotation=90, fontsize=font)
        ax.set_yticks(range(n - 1), runs[1:], fontsize=font)
        ax.tick_params(length=1.5, pad=1.5)
        ax.set_xlabel("run (best score first)")
        ax.set_ylabel("run (second best first)")
        bar = fig.colorbar(img, ax=ax, shrink=0.6, ticks=edges)
        bar.set_label("adjusted p-value (blue: significant)")
        test = title_of_test(summary.get("test", ""))
        ax.set_title(f"{test[0].upper() + test[1:]}: adjusted p-values of {label(measure)}, "
                     "runs by score", fontsize=9)
        k = int(sig.sum() // 2)
        footnote(fig, f"{k:,} of {n * (n - 1) // 2:,} pairs significant at alpha {alpha:g} "
                 "(blue cells); each pair drawn once, below the diagonal; rows and columns "
                 "are the runs from the best score down.", width=int(20 * width))
    return fig


__all__ = ["layout", "significance_matrix_figure", "pvalue_matrix"]
