"""What a significance result says about its own method: the smallest p-value
the permutations can give and the warning when it is above alpha, the pairs an
analytic test cannot weigh, and how the intervals and effect sizes were
obtained (:mod:`.effects`)."""

from __future__ import annotations

import math

from .corrections import CORRECTIONS
from .effects import INTERVAL_SAMPLES
from .registry import TESTS

#: the smallest alpha: a permutation test resolves p-values of 1 / (B + 1), so
#: alpha 1e-6 already needs a million permutations (times the pairs under Holm)
MIN_ALPHA = 1e-6


def min_p(test: str, correction: str, permutations: int, exact: bool, pairs: int) -> float | None:
    """Smallest adjusted p-value the permutations can give (None: analytic tests)."""
    if not TESTS[test].resampling:
        return None
    smallest = 1.0 / permutations if exact else 1.0 / (permutations + 1)
    return min(1.0, smallest * (pairs if CORRECTIONS[correction].scales_with_pairs else 1))


def resolution_warning(test: str, correction: str, permutations: int, exact: bool,
                       pairs: int, alpha: float) -> str:
    low = min_p(test, correction, permutations, exact, pairs)
    if low is None or low <= alpha:
        return ""
    scale = pairs if CORRECTIONS[correction].scales_with_pairs else 1
    need = math.ceil(scale / max(alpha, MIN_ALPHA))
    how = f" after the {correction} correction over {pairs:,} pairs" if scale > 1 else ""
    return (f"{permutations:,} permutations cannot give an adjusted p-value below {low:.3g}"
            f"{how}, above alpha {alpha:g}: no pair can be significant; use at least "
            f"{need:,} permutations")


def no_variance_warning(test: str, flat: int, f_missing: bool = False) -> str:
    """The pairs an analytic test could not weigh (:mod:`.effects`)."""
    if not flat:
        return ""
    t = TESTS[test]
    if f_missing:
        return (f"the scores are exactly additive (a unit effect plus a run effect, no residual "
                f"variance): {t.title} cannot weigh the {flat:,} pairs with a difference and "
                "reports them with p = 1, not significant; the permutation tests can")
    return (f"{flat:,} pairs have the same difference on every unit (no variance): "
            f"{t.title} cannot weigh them and reports them with p = 1, not significant; the "
            "randomisation test can")


def interval_warning(test: str, alpha: float) -> str:
    """The percentile interval's level when :data:`INTERVAL_SAMPLES` cannot
    reach 1 - alpha: with ``floor((B + 1) alpha / 2) < 1`` its bounds are the
    smallest and largest differences drawn, a level of about 1 - 2 / (B + 1)."""
    if not TESTS[test].resampling or math.floor((INTERVAL_SAMPLES + 1) * alpha / 2) >= 1:
        return ""
    reach = 1.0 - 2.0 / (INTERVAL_SAMPLES + 1)
    return (f"the intervals' level is about {reach:.4f}, not {1.0 - alpha:g}: "
            f"{INTERVAL_SAMPLES:,} bootstrap samples cannot resolve alpha {alpha:g}, and "
            "each interval is the smallest to the largest difference drawn")


def interval_method(test: str) -> str:
    t = TESTS[test]
    if t.resampling:
        return (f"percentile bootstrap, {INTERVAL_SAMPLES:,} samples of the units "
                "(per pair)")
    if t.family_wise:
        return "Tukey's simultaneous interval, the ANOVA's residual variance"
    return "t interval of the mean difference (per pair)"


def effect_method(test: str, aggregator: str = "mean") -> str:
    scores = ("per-unit scores" if aggregator == "mean"
              else "per-unit jackknife pseudo-values")
    if TESTS[test].family_wise:
        return (f"ES_E = difference / sqrt(V_E), V_E the residual variance of the two-way "
                f"ANOVA on the {scores}")
    return f"difference / standard deviation of the per-unit differences of the {scores}"
