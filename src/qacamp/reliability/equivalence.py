"""Equivalence groups of runs (Voorhees 2003, 2005).

Voorhees 2003, after finding that 500 questions need "an absolute difference
of at least 0.07": "the pris2002, IRST02D1, and IBMPQSQACYC runs ... should
be considered equivalently effective"; Voorhees 2005: "the difference in
scores between each of the first three runs and its next closest run is
greater than 0.05, while the next five runs are all within 0.05 of one
another".  A difference of at least the required difference (the LOWER edge
of the first bin whose error rate is at most the level, :mod:`.fits`) is a
reliable one; a smaller one is not.

Rule: runs are sorted by score, descending (ties by run name).  The first run
opens group 1 and is its top run; each following run joins the current group
if ``top_score - score < required_difference``, otherwise (the difference is
at least the required one, within 1e-12) it opens the next group and becomes
its top run.  So every run in a group is within the required difference of
the group's top run, and groups do not overlap.  Output: run, score, group
(1-based).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ..errors import UsageError


def equivalence_groups(runs, scores, required_difference: float) -> pl.DataFrame:
    runs = [str(r) for r in runs]
    scores = np.asarray(scores, np.float64)
    if len(runs) != len(scores):
        raise UsageError("runs and scores must have the same length")
    if not required_difference > 0:
        raise UsageError("required_difference must be > 0")
    order = sorted(range(len(runs)), key=lambda k: (-scores[k], runs[k]))
    groups, group, top = [], 0, None
    for k in order:  # one pass over runs (sequential rule)
        if top is None or top - scores[k] >= required_difference - 1e-12:
            group += 1
            top = scores[k]
        groups.append(group)
    return pl.DataFrame({"run": [runs[k] for k in order], "score": scores[order],
                         "group": groups}, schema={"run": pl.Utf8, "score": pl.Float64,
                                                   "group": pl.Int64})
