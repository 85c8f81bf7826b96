"""Campaign-level reliability analyses (docs/reliability.md): rank correlation,
ranking swaps, assessor agreement, per-unit distributions, runs that cannot be
distinguished (letters).

These functions work on the pipeline's frames (``scores/runs.parquet``,
``scores/units.parquet``, ``ingest/questions.parquet``,
``ingest/judgments.parquet``); the loader (:mod:`qacamp.loader`) reads the
files and :mod:`qacamp.cli.reliability` writes the results.  Runs named ``baseline:*`` are always excluded.  A
ranking is labelled ``<measure>@<judgment_set>`` (e.g. ``cws@assessor1``); run
scores are the ``runs.parquet`` rows with ``scope == "all"``.

- :func:`kendall_frame` (ranking_a, ranking_b, n_runs, tau, variant,
  tied_pairs_a, tied_pairs_b; see :mod:`.ranking` for the variants ``tau_b``
  (default, label-free), ``tau_a`` and ``tau_a_by_name``), rows in this order:
  1. for each measure (in the given order), every pair of judgment sets, the
     primary set first (so the first rows are primary vs each other set, as in
     Voorhees 2003 Table 3), then the other sets in campaign order;
  2. every pair of measures under the primary set (e.g. ``cws@adjudicated``
     vs ``accuracy@adjudicated``);
  3. the kind's own pairs (:attr:`qacamp.kinds.Kind.kendall_pairs`; trec-series:
     ``series_score@P`` vs ``type_score@P``, series aggregation vs
     question-type aggregation, Voorhees 2005).
  A pair already listed is not repeated.
- :func:`swaps_frame` (ranking_a, ranking_b, threshold, swaps, pairs): for each
  measure and each non-primary set, ``ranking_a`` = the primary ranking (whose
  score differences define the thresholds), ``ranking_b`` = the other set's
  ranking; see :func:`.ranking.ranking_swaps`.
- :func:`agreement_frame` (tuple, count, share): judgment tuples (sorted
  letters, e.g. ``RRX``) over responses judged in every non-primary human set
  (all sets but the primary and ``automatic``); zero rows unless there are at
  least two such sets.  Null judgments count as not judged.
- :func:`distributions_frame` (qtype, n_units, n_median_zero, share): share of
  questions whose median score across runs is 0, per question type, from
  ``units.parquet`` of the primary set with the measure ``list_f`` for LIST,
  ``other_f`` for OTHER and ``accuracy`` (per-question correctness) for every
  other type.
- :func:`boxplot_frame` (unit, n, min, q1, median, q3, max, whisker_lo,
  whisker_hi): per-series ``series_score`` (``runs.parquet`` scope ``series``,
  primary set) across runs, units in natural_key order; zero rows when the
  campaign has no series scores.
- :func:`equivalence_frame` (criterion, run, score, letters,
  n_indistinguishable, indistinguishable, threshold): for each of the primary
  set's runs, the runs it cannot be distinguished from and a compact letter
  display (:mod:`.letters`), under the swap method's required difference
  (criterion ``swap``, threshold = the difference; null when the error level
  is never reached: then no pair is distinguishable) and, when the
  significance analysis ran, under its adjusted test (criterion = the test's
  name, threshold = alpha).  Rows: the swap criterion's runs by score, then
  the test's.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import polars as pl

from ..errors import UsageError
from ..kinds import KINDS
from ..names import BASELINE_PREFIX, natural_key
from .agreement import judgment_tuples
from .distributions import box_stats, median_zero_share
from .letters import SCHEMA as EQUIVALENCE_SCHEMA
from .letters import significance_letters, swap_letters
from .ranking import DEFAULT_VARIANT, TAU_SCHEMA, ranking_swaps, tau_table

AUTOMATIC_SET = "automatic"
KENDALL_SCHEMA = TAU_SCHEMA
SWAPS_SCHEMA = {"ranking_a": pl.Utf8, "ranking_b": pl.Utf8, "threshold": pl.Float64,
                "swaps": pl.Int64, "pairs": pl.Int64}
AGREEMENT_SCHEMA = {"tuple": pl.Utf8, "count": pl.Int64, "share": pl.Float64}
DISTRIBUTION_SCHEMA = {"qtype": pl.Utf8, "n_units": pl.Int64, "n_median_zero": pl.Int64,
                       "share": pl.Float64}
BOXPLOT_SCHEMA = {"unit": pl.Utf8, "n": pl.Int64, "min": pl.Float64, "q1": pl.Float64,
                  "median": pl.Float64, "q3": pl.Float64, "max": pl.Float64,
                  "whisker_lo": pl.Float64, "whisker_hi": pl.Float64}
#: per-question measure of each question type for the median-zero shares
QTYPE_MEASURES = {"LIST": "list_f", "OTHER": "other_f", "DEFINITION": "other_f"}
DEFAULT_QTYPE_MEASURE = "accuracy"
THRESHOLDS = (0.0, 0.01, 0.02, 0.05, 0.07)


def label(measure: str, judgment_set: str) -> str:
    return f"{measure}@{judgment_set}"


def _no_baselines(df: pl.DataFrame) -> pl.DataFrame:
    return df.filter(~pl.col("run").cast(pl.Utf8).str.starts_with(BASELINE_PREFIX))


def judgment_sets(runs: pl.DataFrame, primary: str, order: Iterable[str] = ()) -> list[str]:
    """Sets in ``runs``: the primary first, then ``order`` (campaign order), then the rest sorted."""
    present = set(runs["judgment_set"].cast(pl.Utf8).unique().to_list())
    if primary not in present:
        raise UsageError(f"primary judgment set {primary!r} has no run scores (have {sorted(present)})")
    out = [primary]
    for s in [*order, *sorted(present)]:
        if s in present and s not in out:
            out.append(s)
    return out


def run_scores(runs: pl.DataFrame, measure: str, judgment_set: str) -> pl.DataFrame:
    """(run, score) of one measure and set (scope ``all``), baselines dropped, sorted by run."""
    df = runs.filter((pl.col("measure") == measure) & (pl.col("scope") == "all")
                     & (pl.col("judgment_set") == judgment_set))
    df = _no_baselines(df).select(pl.col("run").cast(pl.Utf8),
                                  pl.col("value").cast(pl.Float64).alias("score"))
    if df["run"].is_duplicated().any():
        raise UsageError(f"duplicate scope-all rows for measure {measure!r}, set {judgment_set!r}")
    return df.drop_nulls("score").sort("run")


def _long(runs: pl.DataFrame, measure: str, judgment_set: str) -> pl.DataFrame:
    return run_scores(runs, measure, judgment_set).with_columns(
        pl.lit(label(measure, judgment_set)).alias("ranking")).select("ranking", "run", "score")


def _measure_sets(runs: pl.DataFrame, measure: str, sets: list[str]) -> list[str]:
    have = set(runs.filter((pl.col("measure") == measure) & (pl.col("scope") == "all"))
               ["judgment_set"].unique().to_list())
    return [s for s in sets if s in have]


def _require(runs: pl.DataFrame, measure: str, primary: str) -> None:
    if run_scores(runs, measure, primary).height == 0:
        have = sorted(runs.filter(pl.col("scope") == "all")["measure"].unique().to_list())
        raise UsageError(f"no scope-all scores of measure {measure!r} under the primary set "
                         f"{primary!r} (measures: {', '.join(have)})")


def kendall_frame(runs: pl.DataFrame, measures: list[str], primary: str, kind: str = "",
                  set_order: Iterable[str] = (), variant: str = DEFAULT_VARIANT) -> pl.DataFrame:
    """Kendall tau rows (see module docstring for the row order)."""
    sets = judgment_sets(runs, primary, set_order)
    parts: list[pl.DataFrame] = []
    for m in measures:
        _require(runs, m, primary)
        ms = _measure_sets(runs, m, sets)
        if len(ms) >= 2:
            parts.append(tau_table(pl.concat([_long(runs, m, s) for s in ms]), variant=variant))
    if len(measures) >= 2:
        parts.append(tau_table(pl.concat([_long(runs, m, primary) for m in measures]),
                               variant=variant))
    for pair in KINDS[kind].kendall_pairs if kind in KINDS else ():
        for m in pair:
            _require(runs, m, primary)
        parts.append(tau_table(pl.concat([_long(runs, m, primary) for m in pair]),
                               variant=variant))
    if not parts:
        return pl.DataFrame(schema=KENDALL_SCHEMA)
    out = pl.concat(parts)
    key = [frozenset(p) for p in zip(out["ranking_a"], out["ranking_b"], strict=True)]
    seen: set = set()
    keep = []
    for k in key:
        keep.append(k not in seen)
        seen.add(k)
    return out.filter(pl.Series(keep)).cast(KENDALL_SCHEMA)


def swaps_frame(runs: pl.DataFrame, measures: list[str], primary: str,
                thresholds: Iterable[float] = THRESHOLDS, set_order: Iterable[str] = ()) -> pl.DataFrame:
    """Swaps between each non-primary set's ranking and the primary's, per measure."""
    sets = judgment_sets(runs, primary, set_order)
    thresholds = list(thresholds)
    parts = []
    for m in measures:
        _require(runs, m, primary)
        base = run_scores(runs, m, primary)
        for s in _measure_sets(runs, m, sets)[1:]:
            j = base.join(run_scores(runs, m, s), on="run", suffix="_b").sort("run")
            sw = ranking_swaps(j["score"].to_numpy(), j["score_b"].to_numpy(), thresholds)
            parts.append(sw.select(pl.lit(label(m, primary)).alias("ranking_a"),
                                   pl.lit(label(m, s)).alias("ranking_b"), pl.all()))
    if not parts:
        return pl.DataFrame(schema=SWAPS_SCHEMA)
    return pl.concat(parts).cast(SWAPS_SCHEMA)


def agreement_frame(judgments: pl.DataFrame, primary: str) -> pl.DataFrame:
    """Judgment tuples over the non-primary human sets (zero rows if fewer than two)."""
    sets = sorted(s for s in judgments["judgment_set"].cast(pl.Utf8).unique().to_list()
                  if s not in (primary, AUTOMATIC_SET))
    if len(sets) < 2:
        return pl.DataFrame(schema=AGREEMENT_SCHEMA)
    judged = _no_baselines(judgments.filter(pl.col("judgment").is_not_null()))
    return judgment_tuples(judged, sets).select(list(AGREEMENT_SCHEMA)).cast(AGREEMENT_SCHEMA)


def distributions_frame(units: pl.DataFrame, questions: pl.DataFrame, primary: str) -> pl.DataFrame:
    """Share of questions with median score 0 across runs, per question type."""
    q = questions.select(pl.col("qid").cast(pl.Utf8).alias("unit"),
                         pl.col("qtype").cast(pl.Utf8)).drop_nulls("qtype").unique("unit")
    q = q.with_columns(pl.col("qtype").str.to_uppercase()
                       .replace_strict(QTYPE_MEASURES, default=DEFAULT_QTYPE_MEASURE)
                       .alias("measure"))
    u = _no_baselines(units.filter(pl.col("judgment_set") == primary)).select(
        pl.col("unit").cast(pl.Utf8), "run", "measure", pl.col("value").cast(pl.Float64))
    df = u.join(q, on=["unit", "measure"]).drop_nulls("value")
    if df.height == 0:
        return pl.DataFrame(schema=DISTRIBUTION_SCHEMA)
    return median_zero_share(df).select(list(DISTRIBUTION_SCHEMA)).cast(DISTRIBUTION_SCHEMA)


def boxplot_frame(runs: pl.DataFrame, primary: str, measure: str = "series_score") -> pl.DataFrame:
    """Box-plot rows of per-series scores across runs (zero rows without series)."""
    df = _no_baselines(runs.filter((pl.col("measure") == measure) & (pl.col("scope") == "series")
                                   & (pl.col("judgment_set") == primary))).drop_nulls("value")
    if df.height == 0:
        return pl.DataFrame(schema=BOXPLOT_SCHEMA)
    df = df.select(pl.col("unit").cast(pl.Utf8), pl.col("value").cast(pl.Float64))
    out = box_stats(df).select(list(BOXPLOT_SCHEMA)).cast(BOXPLOT_SCHEMA)
    order = sorted(range(out.height), key=lambda i: natural_key(out["unit"][i]))
    return out[order]


def equivalence_frame(runs: pl.DataFrame, measure: str, primary: str,
                      required_difference: float | None,
                      significance: pl.DataFrame | None = None,
                      swap: bool = True) -> pl.DataFrame:
    """Runs that cannot be distinguished (see the module docstring); a null/NaN
    required difference leaves every pair indistinguishable; ``swap=False``
    (too few runs to estimate a required difference) leaves the swap
    criterion out."""
    _require(runs, measure, primary)
    rd = required_difference
    if rd is not None and isinstance(rd, float) and math.isnan(rd):
        rd = None
    s = run_scores(runs, measure, primary)
    parts = [swap_letters(s["run"].to_list(), s["score"].to_numpy(), rd)] if swap else []
    if significance is not None:
        alpha = None
        if "alpha" in significance.columns and significance.height:
            alpha = float(significance["alpha"][0])
        parts.append(significance_letters(s["run"].to_list(), s["score"].to_numpy(),
                                          significance, alpha))
    if not parts:
        return pl.DataFrame(schema=EQUIVALENCE_SCHEMA)
    return pl.concat(parts).cast(EQUIVALENCE_SCHEMA)


def campaign_extras(tables: dict[str, pl.DataFrame], kind: str, primary: str,
                    order: Iterable[str], measures: list[str],
                    required: dict[str, float | None], thresholds: Iterable[float],
                    variant: str = DEFAULT_VARIANT,
                    significance: dict[str, pl.DataFrame] | None = None,
                    few_runs: Iterable[str] = ()) -> dict[str, pl.DataFrame]:
    """Every campaign-level analysis, by output name: ``kendall``,
    ``ranking_swaps``, ``agreement``, ``distributions``, ``boxplot`` and one
    ``equivalence_<measure>`` per measure with a required difference in
    ``required`` (with the test's letters too when ``significance`` holds the
    measure's per-pair significance frame; without the swap method's letters
    for the measures in ``few_runs``, whose swap summary says the campaign has
    too few runs to estimate a required difference).  ``tables`` holds the scores' ``runs`` and ``units`` and the
    ingest's ``questions`` and ``judgments``.  Everything is computed before the
    caller writes anything, so a failure leaves no partial set of outputs."""
    significance = significance or {}
    stray = sorted((set(required) | set(significance)) - set(measures))
    if stray:
        raise UsageError(f"a swap summary (--summary) or significance file for measure(s) "
                         f"{', '.join(stray)}, not given as --measure: add the measure or drop "
                         "the file")
    runs, order = tables["runs"], list(order)
    out = {
        "kendall": kendall_frame(runs, measures, primary, kind, order, variant=variant),
        "ranking_swaps": swaps_frame(runs, measures, primary, list(thresholds), order),
        "agreement": agreement_frame(tables["judgments"], primary),
        "distributions": distributions_frame(tables["units"], tables["questions"], primary),
        "boxplot": boxplot_frame(runs, primary),
    }
    for m in measures:
        if m in required:
            out[f"equivalence_{m}"] = equivalence_frame(runs, m, primary, required[m],
                                                        significance.get(m),
                                                        swap=m not in set(few_runs))
    return out
