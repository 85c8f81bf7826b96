"""The shape of a significance test's record (:mod:`qacamp.reliability.significance`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SignificanceTest:
    """One significance test and its kernel (defined in the test's module).

    ``kernel``: for a test that draws permutations (``resampling``),
    ``kernel(matrix, permutations, seed, measure, exact) -> (d, extreme)``,
    the observed differences of the upper-triangle run pairs and how many of
    the given permutation indices are at least as extreme; for the others,
    ``kernel(matrix, alpha) -> dict`` of the per-pair columns (``d``,
    ``statistic``, ``p``; ``lower``, ``upper``, ``f``, ``f_p`` where the test
    gives them).

    ``baseline``: the same test over the comparisons of every other run with
    one baseline run (``base``, its index), the pairs of
    :func:`baseline_pairs`.  For a test that draws permutations,
    ``baseline(matrix, permutations, seed, measure, exact, base) -> (d,
    extreme)``; for the others, ``baseline(matrix, alpha, base) -> dict`` of
    the per-pair columns (``d``, ``statistic``, ``p``, ``lower``, ``upper``,
    ``effect``, ``flat``: the pairs without residual variance; ``ci_method``
    when the interval is not the all-pairs one)."""

    name: str
    title: str  # how a sentence names it: "randomised Tukey HSD"
    description: str
    formula: str
    citation: str
    #: controls the family-wise error over all pairs itself (no further correction)
    family_wise: bool
    #: draws permutations (sharded in the workflow); else computed in one step
    resampling: bool
    #: needs a measure that is the mean of per-unit scores (t statistics, ANOVA)
    mean_only: bool
    kernel: Callable
    baseline: Callable
    #: the p-value may be computed exactly by enumerating every assignment
    exact: bool = False

    @property
    def default_correction(self) -> str:
        return "none" if self.family_wise else "holm"


def baseline_pairs(n_runs: int, base: int) -> tuple[np.ndarray, np.ndarray]:
    """``(ii, jj)``: every run but ``base`` (in the matrix's order) against ``base``."""
    ii = np.array([r for r in range(n_runs) if r != base], dtype=np.intp)
    return ii, np.full(len(ii), base, dtype=np.intp)


__all__ = ["SignificanceTest", "baseline_pairs"]
