"""Adjusted p-values of every run pair as a matrix, runs ordered by score (issue 18).

Row and column ``k`` are the ``k``-th best run; a cell's colour is the
adjusted p-value of the pair (bands: <= 0.001, <= 0.01, <= alpha, <= 0.1,
<= 0.5, > 0.5), and a significant pair is marked with a dot.  Run names are
written when there are at most 60 runs; beyond, the axes count ranks.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ...measures import label
from ..tables.significance import title_of_test
from .base import footnote, new_figure, style

#: at most this many runs are named on the axes
MAX_NAMED = 60


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
    other_shades = ["#fdae6b", "#fdd0a2", "#f0f0f0"]
    n_sig = sum(1 for e in edges[1:] if e <= alpha)
    cmap = ListedColormap(sig_shades[:n_sig] + other_shades[-(len(edges) - 1 - n_sig):]
                          ).with_extremes(bad="white")
    size = min(9.0, 3.5 + 0.09 * n)
    with style():
        fig, ax = new_figure(size + 1.2, size)
        img = ax.imshow(np.ma.masked_invalid(p), cmap=cmap,
                        norm=BoundaryNorm(edges, cmap.N), interpolation="nearest")
        ys, xs = np.nonzero(sig)
        if n <= 100:
            ax.scatter(xs, ys, s=max(1.0, 60.0 / max(n, 1)) ** 1.2, c="white", marker="o",
                       linewidths=0)
        ax.grid(False)
        if n <= MAX_NAMED:
            font = max(4.0, min(8.0, 300.0 / max(n, 1)))
            ax.set_xticks(range(n), runs, rotation=90, fontsize=font)
            ax.set_yticks(range(n), runs, fontsize=font)
        else:
            ax.set_xlabel("run rank by score")
            ax.set_ylabel("run rank by score")
        bar = fig.colorbar(img, ax=ax, shrink=0.8, ticks=edges)
        bar.set_label("adjusted p-value")
        test = title_of_test(summary.get("test", ""))
        ax.set_title(f"{test[0].upper() + test[1:]}: adjusted p-values of {label(measure)}, "
                     "runs by score", fontsize=9)
        k = int(sig.sum() // 2)
        footnote(fig, f"Dots: the {k:,} of {n * (n - 1) // 2:,} pairs significant at alpha "
                 f"{alpha:g}; rows and columns are the runs from the best score down.")
    return fig


__all__ = ["significance_matrix_figure", "pvalue_matrix"]
