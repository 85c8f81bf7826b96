"""Multiple-comparison corrections of per-pair p-values, from statsmodels'
``multipletests`` (never hand-written): Holm (default for per-pair tests),
Bonferroni, Benjamini-Hochberg and none."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...registry import Registry


@dataclass(frozen=True)
class Correction:
    name: str
    method: str | None  # statsmodels' name; None = no correction
    description: str
    citation: str
    #: the smallest adjusted p-value of m pairs is m times the smallest raw one
    scales_with_pairs: bool


CORRECTIONS: Registry[Correction] = Registry("correction", (
    Correction("holm", "holm", "Holm's step-down adjustment: the i-th smallest p times "
               "(m - i + 1), made monotone, at most 1 (family-wise error)",
               "Holm 1979, A Simple Sequentially Rejective Multiple Test Procedure, Scand. J. "
               "Statistics 6(2)", True),
    Correction("bonferroni", "bonferroni", "p times the number of pairs m, at most 1 "
               "(family-wise error)", "Bonferroni; Dunn 1961, Multiple Comparisons Among "
               "Means, JASA 56", True),
    Correction("bh", "fdr_bh", "Benjamini-Hochberg step-up: the i-th smallest p times m / i, "
               "made monotone (false discovery rate)",
               "Benjamini & Hochberg 1995, Controlling the False Discovery Rate, JRSS B 57(1)",
               False),
    Correction("none", None, "no adjustment (the test itself controls the family-wise "
               "error, or the reader asked for raw p-values)", "-", False),
))


def adjust(p: np.ndarray, correction: str, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """``(p_adjusted, significant)`` of raw p-values: statsmodels' ``multipletests``
    (its ``reject`` decides significance) or, for ``none``, ``p <= alpha``."""
    c = CORRECTIONS.lookup(correction)
    p = np.asarray(p, dtype=np.float64)
    if c.method is None or p.size == 0:
        return p.copy(), p <= alpha
    from statsmodels.stats.multitest import multipletests

    reject, adjusted, _, _ = multipletests(p, alpha=alpha, method=c.method)
    return np.asarray(adjusted, dtype=np.float64), np.asarray(reject, dtype=bool)
