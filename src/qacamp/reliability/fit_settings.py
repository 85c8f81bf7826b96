"""The settings of the swap method's fits (:mod:`.fits`): how swap counts
become per-bin fits and a summary, and their limits."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UsageError
from .curves import DEFAULT_MODEL, check_model

MODES = ("extrapolate", "observed")
#: an extrapolated error above this is no extrapolation (a coin toss errs half the time)
MAX_ERROR = 0.5
#: fewer runs than this (45 pairs) is weak evidence
MIN_RUNS = 10
#: a bin with fewer comparisons than this (at the fitted sizes, or at the observed
#: size) has an uncertain error rate: at 100 comparisons a 5% rate has a binomial
#: standard error of 2.2 points, and comparisons within a trial are not independent
MIN_COMPARISONS = 100
#: Voorhees 2003: "only question set sizes greater than 20"
DEFAULT_MIN_FIT_SIZE = 21


def parse_fitted_bins(spec: str | None) -> tuple[float, float] | None:
    """``"LO:HI"`` (lower bin edges, inclusive, e.g. ``0.01:0.16``) or None/"all"."""
    if spec is None or str(spec).strip().lower() in ("", "all"):
        return None
    try:
        lo, hi = (float(x) for x in str(spec).split(":"))
    except ValueError:
        raise UsageError(f"fitted bins {spec!r}: expected LO:HI (lower bin edges, e.g. "
                         "0.01:0.16) or 'all'") from None
    if not 0 <= lo <= hi:
        raise UsageError(f"fitted bins {spec!r}: need 0 <= LO <= HI")
    return lo, hi


@dataclass(frozen=True)
class FitSettings:
    """How swap counts become fits and a summary (see the module docstring)."""

    level: float = 0.05
    min_fit_size: int = DEFAULT_MIN_FIT_SIZE
    model: str = DEFAULT_MODEL
    bin_width: float = 0.01
    mode: str = "extrapolate"
    observed_at: int | None = None
    fitted_bins: tuple[float, float] | None = None
    min_runs: int = MIN_RUNS
    min_comparisons: int = MIN_COMPARISONS

    def __post_init__(self) -> None:
        check_model(self.model)
        if not 0 < self.level < 1:
            raise UsageError(f"level {self.level}: need 0 < level < 1")
        if self.min_fit_size < 1 or self.bin_width <= 0:
            raise UsageError("min_fit_size must be >= 1 and bin_width > 0")
        if self.mode not in MODES:
            raise UsageError(f"mode {self.mode!r}: use one of {', '.join(MODES)}")
        if self.mode == "extrapolate" and self.observed_at is not None:
            raise UsageError("observed_at is only used with mode 'observed' (drop it, or "
                             "use mode 'observed')")
        if self.observed_at is not None and self.observed_at < 1:
            raise UsageError("observed_at must be a subset size >= 1")
        if self.fitted_bins is not None and not 0 <= self.fitted_bins[0] <= self.fitted_bins[1]:
            raise UsageError(f"fitted bins {self.fitted_bins}: need 0 <= LO <= HI")
        if self.min_runs < 2 or self.min_comparisons < 1:
            raise UsageError("min_runs must be >= 2 and min_comparisons >= 1")

    def fitted(self, lo: float) -> bool:
        if self.fitted_bins is None:
            return True
        return self.fitted_bins[0] - 1e-9 <= lo <= self.fitted_bins[1] + 1e-9

    def bins_text(self) -> str:
        return "all" if self.fitted_bins is None else \
            f"{self.fitted_bins[0]:g}:{self.fitted_bins[1]:g}"


def settings_of(settings: FitSettings | None, kw: dict) -> FitSettings:
    if settings is not None and kw:
        raise UsageError(f"give FitSettings or keywords, not both (got {sorted(kw)})")
    return settings if settings is not None else FitSettings(**kw)


__all__ = ["MODES", "MAX_ERROR", "MIN_RUNS", "MIN_COMPARISONS", "DEFAULT_MIN_FIT_SIZE",
           "FitSettings", "parse_fitted_bins", "settings_of"]
