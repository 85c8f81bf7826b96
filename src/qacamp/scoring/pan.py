"""PAN authorship verification: the edition's measures per run, as PAN's
official evaluators compute them (:mod:`qacamp.measures.pan`).

The values are the runs' own scores (``responses.score``; a problem a run did
not answer counts 0.5), the truth is the option marked correct (``Y`` = same
author).  AUC, F1, F0.5u, Brier and ``overall`` are added at scope ``all``;
c@1 (and the outcome counts) come from the question-level path shared with
the other non-response kinds, which gives the same number (tested against the
official evaluators).  The edition (``edition``, default 2023, the newest
evaluator's rules) decides which measures enter ``overall``; ``pan_evaluator``
(default: the edition's) which F0.5u rule applies (``published``: the
evaluator before its 2021-05-28 fix, as PAN 2020's table; ``current``).
"""

from __future__ import annotations

import polars as pl

from ..measures import pan, pan_frames
from .context import Context
from .frames import JS, Collector


def pan_scores(ctx: Context, out: Collector) -> None:
    """The edition's measures (c@1 excepted) per run and judgment set."""
    values, truth = pan_frames.frames_from_tables(ctx.t["responses"], ctx.t["options"])
    if not truth.height:
        return
    edition, evaluator = ctx.opts["edition"], ctx.opts["pan_evaluator"]
    long = pan_frames.score_runs(values, truth, edition, evaluator)
    # runs with no answer at all (run_names) score as all-0.5 runs
    missing = sorted(set(ctx.runs) - set(long["run"].to_list()))
    if missing:
        filler = pl.DataFrame({"run": missing, "qid": [truth["qid"][0]] * len(missing),
                               "value": [pan.NON_ANSWER] * len(missing)})
        extra = pan_frames.score_runs(filler, truth, edition, evaluator)
        long = pl.concat([long, extra])
    wide = (long.filter(pl.col("measure") != "c_at_1")
            .pivot(on="measure", index="run", values="value", sort_columns=False))
    for js in ctx.sets:
        out.add(wide.with_columns(pl.lit(js).alias(JS)), "all", "all")
