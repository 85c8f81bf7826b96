"""Run and unit names: the pipeline's baseline runs and the natural order of
names (``S2`` before ``S10``, test ``3.9`` before ``3.10``)."""

from __future__ import annotations

import re

#: the prefix of the baseline runs the scoring adds (multiple-choice campaigns)
BASELINE_PREFIX = "baseline:"


def is_baseline(run: str) -> bool:
    """True for the pipeline's baseline runs (``baseline:...``)."""
    return str(run).startswith(BASELINE_PREFIX)


def natural_key(text: str) -> tuple:
    """Sort key putting ``S2`` before ``S10`` and ``1.2`` before ``1.10``."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p)
                 for p in re.split(r"(\d+)", str(text)) if p != "")


__all__ = ["BASELINE_PREFIX", "is_baseline", "natural_key"]
