"""The Python API for notebooks: ``qacamp.evaluate(kind, ...)``.

``qacamp eval`` is a thin command-line face of :func:`evaluate_campaign`: the
options become the same campaign config ``qacamp ingest`` reads
(:func:`campaign_config`), read by :func:`qacamp.ingest.ingest_campaign` and
scored by :func:`qacamp.scoring.score_campaign`, the workflow's own code path,
so the checks, the errors and the numbers are those of the workflow.

>>> import qacamp
>>> df = qacamp.evaluate("qa4mre", gold="GS.xml", runs=["run1.xml", "run2.xml"])  # doctest: +SKIP
>>> df.filter(measure="c_at_1")                                                    # doctest: +SKIP

The frame has the columns ``run, measure, scope, unit, value``: scope ``all``
(one row per run and measure) and, with ``per_question=True``, the per-unit
rows (``question`` for every measure that has a per-question value, and the
kind's groupings: ``qtype``, ``series``, ``topic``, ``test``).  Participants'
runs come first (by name), baselines (``baseline:*``) only with
``baselines=True``, after them; units in natural order (test 3.9 before
3.10).  Ingest warnings (low coverage ...) are issued as Python warnings
(:class:`QacampWarning`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from .errors import ConfigError, QacampError, QacampWarning, UsageError
from .eval_frames import FrameFiles
from .eval_options import (
    NAME,
    PASSED_KEYS,
    campaign_config,
    check_measures,
    eval_kind,
    option_of,
    python_arguments,
)
from .kinds import KINDS
from .measures import UNIT_VALUES, nonresponse
from .names import BASELINE_PREFIX, is_baseline, natural_key

#: The order of the scopes within a run (per-question rows first, as trec_eval -q).
SCOPE_ORDER = {"question": 0, "qtype": 1, "series": 2, "topic": 3, "test": 4, "all": 5}


@dataclass(frozen=True)
class Evaluation:
    """What :func:`evaluate_campaign` returns: the rows, the ingest warnings
    (the ``warnings`` table), the measures asked for per question that have
    no per-question value, and a line per group of units of the judgment set
    dropped from scoring (:func:`dropped_lines`)."""

    rows: pl.DataFrame
    warnings: pl.DataFrame
    without_per_question: tuple[str, ...]
    dropped: tuple[str, ...] = ()


def dropped_lines(dropped: pl.DataFrame, judgment_set: str) -> tuple[str, ...]:
    """The units of ``judgment_set`` dropped from scoring (the scores'
    ``dropped`` rows), a line per scope and reason, as the overview page says
    them: ``judgment set adjudicated: question 4 dropped from scoring (no
    judgments for this question in this judgment set)``."""
    rows = dropped.filter(pl.col("judgment_set") == judgment_set)
    out = []
    for (scope, reason), group in rows.group_by("scope", "reason", maintain_order=True):
        units = sorted(group["unit"].drop_nulls().to_list(), key=natural_key)
        shown = ", ".join(units[:20]) + (f" and {len(units) - 20} more" if len(units) > 20
                                         else "")
        what = scope if len(units) == 1 or scope == "series" else f"{scope}s"
        out.append(f"judgment set {judgment_set}: {what} {shown} dropped from scoring "
                   f"({reason})")
    return tuple(out)


def per_question_measures(kind: str, measures: Sequence[str]) -> tuple[list[str], list[str]]:
    """(measures with a per-question value, measures without one) of ``kind``:
    those of the scores' ``units.parquet`` and those that are means or sums of
    a value per question (:data:`qacamp.measures.nonresponse.PER_QUESTION`)."""
    has = UNIT_VALUES | (set(nonresponse.PER_QUESTION) if KINDS[kind].nonresponse else set())
    return [m for m in measures if m in has], [m for m in measures if m not in has]


def evaluate_campaign(kind: str, campaign: dict, measures: Sequence[str] | None = None,
                      per_question: bool = False, baselines: bool = False,
                      judgment_set: str | None = None) -> Evaluation:
    """Score the campaign config ``campaign`` (see :func:`campaign_config`) as
    the workflow does and return its rows (see the module docstring).  A
    config error names the option and the campaign key
    (``--beta (campaign key 'campaigns.eval.beta'): ...``)."""
    chosen = check_measures(eval_kind(kind), measures) if measures else list(KINDS[kind].measures)
    try:
        return _evaluate(kind, campaign, chosen, per_question, baselines, judgment_set)
    except ConfigError as exc:
        raise UsageError(f"{option_of(exc.key)} (campaign key '{exc.key}'): {exc.problem}"
                         + (f". Fix: {exc.fix}" if exc.fix else "")) from exc


def _evaluate(kind: str, campaign: dict, chosen: list[str], per_question: bool,
              baselines: bool, judgment_set: str | None) -> Evaluation:
    from .ingest import ingest_campaign, resolved_campaign
    from .scoring import score_campaign

    resolved = resolved_campaign(NAME, campaign)
    sets = resolved["judgment_sets"] + (["automatic"]
                                        if resolved["options"].get("autojudge") else [])
    js = judgment_set or resolved["primary"]
    if js not in sets:
        raise UsageError(f"--judgment-set: there is no judgment set '{js}'; this campaign has "
                         f"{', '.join(sets)}")
    tables = ingest_campaign(NAME, campaign)
    result = score_campaign(kind, tables, resolved)
    runs = result["runs"].filter((pl.col("judgment_set") == js)
                                 & pl.col("measure").is_in(chosen))
    if runs.height == 0:
        dropped = result["dropped"].filter(pl.col("judgment_set") == js).height
        raise UsageError(f"judgment set '{js}' has no scores for {', '.join(chosen)}"
                         + (f" ({dropped} units were dropped as unjudged)" if dropped else "")
                         + "; check the judged files and the measures")
    if not per_question:
        runs = runs.filter(pl.col("scope") == "all")
    rows = runs.select("run", "measure", "scope", "unit", "value")
    without: list[str] = []
    if per_question:
        _, without = per_question_measures(kind, chosen)
        units = result["units"].filter((pl.col("judgment_set") == js)
                                       & pl.col("measure").is_in(chosen))
        have = set(units["measure"].unique().to_list())
        extra = nonresponse.per_question(
            result["outcomes"].filter(pl.col("judgment_set") == js),
            [m for m in chosen if m not in have and m not in without]) \
            if KINDS[kind].nonresponse else units.head(0)
        q = pl.concat([units.select("run", "measure", "unit", "value"),
                       extra.select("run", "measure", "unit", "value")])
        rows = pl.concat([rows, q.select("run", "measure", pl.lit("question").alias("scope"),
                                         "unit", "value")])
    return Evaluation(order_rows(rows, chosen, baselines), tables["warnings"], tuple(without),
                      dropped_lines(result["dropped"], js))


def order_rows(rows: pl.DataFrame, measures: Sequence[str], baselines: bool) -> pl.DataFrame:
    """Participants' runs first (by name), then (``baselines``) the baselines;
    within a run the per-question rows, the groupings, then ``all``; units in
    natural order (3.9 before 3.10); measures in ``measures``' order."""

    if not baselines:
        rows = rows.filter(~pl.col("run").str.starts_with(BASELINE_PREFIX))
    units = sorted(rows["unit"].unique().to_list(), key=natural_key)
    runs = sorted(rows["run"].unique().to_list(), key=lambda r: (is_baseline(r), r))
    return (rows.with_columns(
        pl.col("run").replace_strict(runs, list(range(len(runs))), return_dtype=pl.Int64)
        .alias("_r"),
        pl.col("scope").replace_strict(SCOPE_ORDER, default=9, return_dtype=pl.Int64)
        .alias("_s"),
        pl.col("unit").replace_strict(units, list(range(len(units))), return_dtype=pl.Int64)
        .alias("_u"),
        pl.col("measure").replace_strict({m: i for i, m in enumerate(measures)}, default=999,
                                         return_dtype=pl.Int64).alias("_m"))
        .sort("_r", "_s", "_u", "_m").select("run", "measure", "scope", "unit", "value"))


def evaluate(kind: str, runs: Iterable[str | Path] = (), *, measures: Sequence[str] | None = None,
             per_question: bool = False, baselines: bool = False,
             judgment_set: str | None = None, **options) -> pl.DataFrame:
    """Score ``runs`` of a campaign of ``kind`` from the raw files, as ``qacamp
    eval`` (and the workflow) does; return ``run, measure, scope, unit, value``.

    ``options`` are the options of ``qacamp eval KIND`` by name
    (:mod:`qacamp.eval_options`): the kind's files (``gold=`` (qa4mre),
    ``truth=`` (pan), ``questions=`` (clef-qa, trec-*), ``nuggets=``,
    ``list_key=``, ``factoid=[...]`` ... (trec-series)) and settings
    (``year=``, ``edition=``, ``preset=``, ``beta=`` ...; ``judgment_codes=``
    a mapping, as ``--judgment-code``); ``measures`` (default: all of the
    kind), ``per_question`` (trec_eval's ``-q``), ``baselines`` (the
    pipeline's ``baseline:*`` runs, QA4MRE), ``judgment_set`` (default: the
    primary one).  A CLEF QA or PAN file may be given as a frame (polars,
    pandas; :mod:`qacamp.eval_frames`).  The values are checked as the command line checks them,
    with its messages (exact types: ``per_question="no"`` or ``beta=True`` is
    refused); an option the kind's command has not (``year=`` for clef-qa)
    is refused.  Bad input raises :class:`qacamp.QacampError` naming the
    option, or the file and the place.

    Example::

        import qacamp
        df = qacamp.evaluate("clef-qa", questions="q.tsv", runs=["a.tsv", "b.tsv"])
        df.filter(measure="c_at_1").sort("value", descending=True)
    """
    import warnings

    from .ingest import warning_lines

    k = eval_kind(kind)
    given = {"runs": runs, "measures": measures, "per_question": per_question,
             "baselines": baselines, "judgment_set": judgment_set, **options}
    with FrameFiles(k.name) as frames:
        try:
            a = python_arguments(k, frames.files(given))
            chosen = a.pop("measures", None)
            if chosen is not None:
                check_measures(k, chosen)
            flags = {key: a.pop(key, False) for key in ("per_question", "baselines")}
            js = a.pop("judgment_set", None)
            config = campaign_config(kind, a.pop("runs", ()),
                                     set_name=a.pop("set_name", "adjudicated"),
                                     judgment_codes=a.pop("judgment_codes", None),
                                     skip=a.pop("skip", None), **a)
            result = evaluate_campaign(kind, config, chosen, flags["per_question"],
                                       flags["baselines"], js)
        except QacampError as exc:  # a frame's file is named by its argument and row
            raise frames.error(exc) from None
        for line in [*warning_lines(frames.warnings(result.warnings)), *result.dropped]:
            warnings.warn(line, QacampWarning, stacklevel=2)
    return result.rows


__all__ = ["evaluate", "evaluate_campaign", "campaign_config", "dropped_lines", "order_rows",
           "per_question_measures", "Evaluation", "QacampWarning", "SCOPE_ORDER", "PASSED_KEYS"]
