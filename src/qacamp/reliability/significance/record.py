"""The shape of a significance test's record (:mod:`qacamp.reliability.significance`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class SignificanceTest:
    """One significance test and its kernel (defined in the test's module).

    ``kernel``: for a test that draws permutations (``resampling``),
    ``kernel(matrix, permutations, seed, measure, exact) -> (d, extreme)``,
    the observed differences of the upper-triangle run pairs and how many of
    the given permutation indices are at least as extreme; for the others,
    ``kernel(matrix, alpha) -> dict`` of the per-pair columns (``d``,
    ``statistic``, ``p``; ``lower``, ``upper``, ``f``, ``f_p`` where the test
    gives them)."""

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
    #: the p-value may be computed exactly by enumerating every assignment
    exact: bool = False

    @property
    def default_correction(self) -> str:
        return "none" if self.family_wise else "holm"


__all__ = ["SignificanceTest"]
