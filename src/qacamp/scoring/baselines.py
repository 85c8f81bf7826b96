"""Multiple-choice baselines computed as runs (QA4MRE; Penas et al. 2013,
sections 5.4-5.5).

- ``baseline:random-expected``: random choice among a question's k options,
  expected value (r = 1/k, w = 1 - 1/k per question; "Since there is one
  correct option among five, the overall result of this random baseline is
  0.2").  Fractional, so it has no outcome rows.
- ``baseline:random-seeded``: one uniformly drawn option per question, in
  question order, from ``numpy.random.SeedSequence(baseline_seed)``.
- ``baseline:always-nca``: always answers the "None of the above answers is
  correct" option (NCA; 2013: "a dummy system that always returns this option
  ... obtained a c@1 of 0.39").  Only when the gold has NCA options; where a
  question has none, the run is wrong.  (The paper's NoA means "no answer",
  a different thing: the run below.)
- ``baseline:answer-nothing``: leaves every question unanswered (NoA), c@1 0.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ..names import BASELINE_PREFIX
from .context import Context
from .frames import JS

BASELINE_EXPECTED = f"{BASELINE_PREFIX}random-expected"
BASELINE_SEEDED = f"{BASELINE_PREFIX}random-seeded"
BASELINE_NCA = f"{BASELINE_PREFIX}always-nca"
BASELINE_NOTHING = f"{BASELINE_PREFIX}answer-nothing"
BASELINES = (BASELINE_EXPECTED, BASELINE_SEEDED, BASELINE_NCA, BASELINE_NOTHING)


def has_nca(ctx: Context) -> bool:
    """True when some option of the gold is a "None of the above" option."""
    return bool(ctx.t["options"]["is_noa"].fill_null(False).any())


def baseline_runs(ctx: Context) -> tuple[str, ...]:
    """The baseline runs this campaign gets."""
    return tuple(b for b in BASELINES if b != BASELINE_NCA or has_nca(ctx))


def scored_baselines(ctx: Context) -> tuple[str, ...]:
    """The baseline runs scored in this context (a batch scores those among its runs)."""
    return BASELINES if ctx.baselines is None else ctx.baselines


def baseline_outcomes(ctx: Context, jq: pl.DataFrame) -> pl.DataFrame:
    """Outcome rows of the seeded, NCA and answer-nothing baselines for the judged
    questions ``jq`` (judgment_set, qid, question metadata; String keys); no
    rows (the same columns) when none of them is scored here (a batch of
    runs without them, :mod:`.batches`)."""
    drawn, scored = (BASELINE_SEEDED, BASELINE_NCA, BASELINE_NOTHING), scored_baselines(ctx)
    if not any(b in drawn for b in scored):
        none = pl.DataFrame(schema={"qid": pl.String, "c": pl.Boolean, "a": pl.Boolean,
                                    "run": pl.String})
        return _outcome_rows(jq, none)
    opt = ctx.t["options"].join(jq.select("qid").unique(), on="qid", how="semi")
    qorder = jq.select("qid", "position").unique().sort(["position", "qid"], nulls_last=True)
    k = opt.group_by("qid").agg(pl.len().alias("k"))
    qk = qorder.join(k, on="qid", how="left").with_columns(pl.col("k").fill_null(0))
    rng = np.random.default_rng(np.random.SeedSequence(int(ctx.opts["baseline_seed"])))
    draws = np.floor(rng.random(qk.height) * np.maximum(qk["k"].to_numpy(), 1)).astype(np.int64)
    pick = qk.with_columns(pl.Series("pick", draws, dtype=pl.Int64))
    opt_idx = opt.sort(["qid", "option"]).with_columns(
        pl.int_range(pl.len()).over("qid").alias("idx"))
    seeded = pick.join(opt_idx, left_on=["qid", "pick"], right_on=["qid", "idx"], how="left")
    seeded = seeded.select("qid", pl.col("correct").fill_null(False).alias("c"),
                           (pl.col("k") > 0).alias("a"))
    nothing = qorder.select("qid", pl.lit(False).alias("c"), pl.lit(False).alias("a"))
    runs = [(BASELINE_SEEDED, seeded), (BASELINE_NOTHING, nothing)]
    if has_nca(ctx):
        nca = (qorder.join(opt.filter(pl.col("is_noa").fill_null(False))
                           .group_by("qid").agg(pl.col("correct").fill_null(False).any().alias("c")),
                           on="qid", how="left")
               .select("qid", pl.col("c").fill_null(False), pl.lit(True).alias("a")))
        runs.append((BASELINE_NCA, nca))
    b = pl.concat([df.with_columns(pl.lit(name).alias("run")) for name, df in runs])
    b = b.filter(pl.col("run").is_in(list(scored)))
    return _outcome_rows(jq, b)


def _outcome_rows(jq: pl.DataFrame, b: pl.DataFrame) -> pl.DataFrame:
    """The outcome rows of the baseline answers ``b`` (qid, c: right, a:
    answered, run) to the questions ``jq``."""
    return jq.join(b, on="qid").with_columns(
        pl.col("position").alias("rank"), pl.col("a").alias("answered"),
        pl.when(~pl.col("a")).then(pl.lit("UE"))
        .when(pl.col("c")).then(pl.lit("R")).otherwise(pl.lit("W")).alias("outcome"),
        pl.lit(False).alias("nil"), pl.lit(None, pl.String).alias("judgment"))


def expected_rows(ctx: Context, jq: pl.DataFrame, enums: dict) -> pl.DataFrame:
    """Rows of the expected random-choice run: r = 1/k, w = 1 - 1/k per question."""
    k = ctx.t["options"].group_by("qid").agg(pl.len().alias("k"))
    jq = jq.with_columns(pl.col(JS).cast(pl.String), pl.col("qid").cast(pl.String))
    e = jq.join(k, on="qid", how="left").with_columns(
        pl.lit(BASELINE_EXPECTED).alias("run"), pl.col("position").alias("rank"),
        pl.lit(True).alias("answered"), pl.lit("R").alias("outcome"), pl.lit(False).alias("nil"),
        pl.lit(None, pl.String).alias("judgment"),
        pl.when(pl.col("k") > 0).then(1.0 / pl.col("k")).otherwise(0.0).alias("r"))
    e = e.with_columns((1.0 - pl.col("r")).alias("w"), pl.lit(0.0).alias("ur"),
                       pl.lit(0.0).alias("uw"), pl.lit(0.0).alias("ue"))
    return e.with_columns([pl.col(c).cast(pl.String).cast(dt) for c, dt in enums.items()
                           if c in e.columns])
