"""The significance tests, in the order of the docs and the command line."""

from __future__ import annotations

from ...registry import Registry
from .anova_tukey import TEST as ANOVA_TUKEY
from .randomisation import TEST as RANDOMISATION
from .record import SignificanceTest
from .t_test import TEST as T_TEST
from .tukey_hsd import TEST as TUKEY_HSD

#: name -> test, in the order of the docs and the command line
TESTS: Registry[SignificanceTest] = Registry("significance test", (
    RANDOMISATION, TUKEY_HSD, T_TEST, ANOVA_TUKEY))
#: the project's default test (docs/reliability.md, "Significance")
DEFAULT_TEST = "tukey-hsd"
#: the project's default number of permutations (campaigns of fewer than ~200 runs)
DEFAULT_PERMUTATIONS = 10_000


__all__ = ["TESTS", "DEFAULT_TEST", "DEFAULT_PERMUTATIONS"]
