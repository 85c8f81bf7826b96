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

import glob
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from .errors import QacampWarning, UsageError
from .kinds import KINDS, Kind
from .measures import nonresponse, validate
from .names import BASELINE_PREFIX, is_baseline, natural_key

#: Campaign name of the config built from the arguments.
NAME = "eval"
#: The order of the scopes within a run (per-question rows first, as trec_eval -q).
SCOPE_ORDER = {"question": 0, "qtype": 1, "series": 2, "topic": 3, "test": 4, "all": 5}
#: Options that are campaign config keys as they are (left unset: the preset's
#: or the kind's default).
PASSED_KEYS = ("preset", "year", "main_questions", "language", "pass_threshold", "pass_rule",
               "test_std_ddof", "baseline_seed", "edition", "pan_evaluator", "beta", "max_rank",
               "other_score", "run_format", "min_coverage")
def _escape(path: str | Path) -> str:
    # the config's paths are globs; a path given here is one file, taken literally
    return glob.escape(str(path))


def campaign_config(kind: str, runs: Iterable[str | Path] = (), *,
                    set_name: str = "adjudicated", judgment_codes: dict | None = None,
                    skip: Iterable[str] | None = None, **options) -> dict:
    """The campaign config (the keys of ``qacamp ingest``) for ``kind`` with
    ``runs`` and the kind's files: ``gold`` (qa4mre), ``truth`` (pan, runs =
    the answers.jsonl files), ``questions`` (clef-qa, trec-series; trec-factoid:
    a list, with ``list_key``, ``nuggets`` and the judged ``definition`` /
    ``definition_nuggets`` runs of TREC 2003), ``nuggets``/``pyramid``/``list_key``/``patterns_*`` and the judged
    ``factoid``/``list``/``other``/``other_nuggets`` files (trec-series), plus
    any of :data:`PASSED_KEYS`.  Unknown keywords are a :class:`UsageError`."""
    k = KINDS[kind] if isinstance(kind, str) and kind in KINDS else None
    if k is None or k.eval_help is None:
        raise UsageError(f"evaluate: kind {kind!r} is not one of "
                         + ", ".join(x.name for x in KINDS.values() if x.eval_help))
    parts = [p for p in k.judgment_parts if p != k.plain_part]
    allowed = set(PASSED_KEYS) | set(k.path_keys) | {k.questions_key} | set(parts)
    unknown = sorted(key for key, v in options.items() if key not in allowed and v is not None)
    if unknown:
        raise UsageError(f"evaluate {kind}: unknown option(s) {', '.join(unknown)}; "
                         f"allowed: {', '.join(sorted(allowed))}")
    runs = [_escape(p) for p in runs]
    c: dict = {"kind": kind}
    if k.judged:
        _judged(c, k, runs, set_name, options)
    else:
        c.update({k.questions_key: _need(options, k.questions_key, kind), k.runs_key: runs})
    for key in PASSED_KEYS:
        if options.get(key) is not None:
            c[key] = options[key]
    if judgment_codes:
        c["judgment_codes"] = dict(judgment_codes)
    if skip:
        c["skip"] = sorted(set(skip))
    return c


def _judged(c: dict, k: Kind, runs: list[str], set_name: str, options: dict) -> None:
    """The questions, the judgment set of the judged runs (``runs`` are the
    kind's plain part, e.g. trec-factoid's factoid and list runs; the other
    parts are keywords, e.g. TREC 2003's ``definition``), the answer keys and
    patterns (autojudge) of a judged TREC campaign."""
    if k.plain_part is None:
        c["questions"] = _need(options, "questions", k.name)
    else:  # one file or several
        q = options.get("questions")
        qs = [q] if isinstance(q, str | Path) else list(q or [])
        if not qs:
            raise UsageError(f"evaluate {k.name}: give questions (a file or a list)")
        c["questions"] = [_escape(p) for p in qs]
    parts = {part: [_escape(p) for p in options.get(part) or []] for part in k.judgment_parts
             if part != k.plain_part}
    judged: list | dict = {part: files for part, files in parts.items() if files}
    if k.plain_part is not None:
        judged = {k.plain_part: runs, **judged} if judged else runs
    c.update(judgment_sets={set_name: judged}, primary=set_name)
    for key in k.path_keys:
        if key != "questions" and options.get(key):
            c[key] = _escape(options[key])
    if any(options.get(key) for key in k.pattern_keys):
        c["autojudge"] = True


def _need(options: dict, key: str, kind: str) -> str:
    if not options.get(key):
        raise UsageError(f"evaluate {kind}: give {key}")
    return _escape(options[key])


@dataclass(frozen=True)
class Evaluation:
    """What :func:`evaluate_campaign` returns: the rows, the ingest warnings
    (the ``warnings`` table) and the measures asked for per question that have
    no per-question value."""

    rows: pl.DataFrame
    warnings: pl.DataFrame
    without_per_question: tuple[str, ...]


def per_question_measures(kind: str, measures: Sequence[str]) -> tuple[list[str], list[str]]:
    """(measures with a per-question value, measures without one) of ``kind``:
    those of the scores' ``units.parquet`` and those that are means or sums of
    a value per question (:data:`qacamp.measures.nonresponse.PER_QUESTION`)."""
    unit_level = {"accuracy", "mrr", "mrr_lenient", "accuracy_lenient", "accuracy_local",
                  "list_precision", "list_recall", "list_f", "other_recall",
                  "other_precision", "other_f", "other_pyramid_recall", "other_pyramid_f"}
    has = unit_level | (set(nonresponse.PER_QUESTION) if KINDS[kind].nonresponse else set())
    return [m for m in measures if m in has], [m for m in measures if m not in has]


def evaluate_campaign(kind: str, campaign: dict, measures: Sequence[str] | None = None,
                      per_question: bool = False, baselines: bool = False,
                      judgment_set: str | None = None) -> Evaluation:
    """Score the campaign config ``campaign`` (see :func:`campaign_config`) as
    the workflow does and return its rows (see the module docstring)."""
    from .errors import ConfigError
    from .ingest import ingest_campaign, resolved_campaign
    from .scoring import score_campaign

    names = KINDS[kind].measures
    chosen = validate(measures, names) if measures else list(names)
    try:
        resolved = resolved_campaign(NAME, campaign)
        sets = resolved["judgment_sets"] + (["automatic"]
                                            if resolved["options"].get("autojudge") else [])
        js = judgment_set or resolved["primary"]
        if js not in sets:
            raise UsageError(f"there is no judgment set '{js}'; this campaign has "
                             f"{', '.join(sets)}")
        tables = ingest_campaign(NAME, campaign)
    except ConfigError:
        raise  # names the config key; the command line names its option instead
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
    return Evaluation(order_rows(rows, chosen, baselines), tables["warnings"], tuple(without))


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

    ``options`` are the kind's files and settings (:func:`campaign_config`):
    ``gold=`` (qa4mre), ``truth=`` (pan), ``questions=`` (clef-qa, trec-*),
    ``year=``, ``nuggets=``, ``list_key=``, ``factoid=[...]`` ... (trec-series),
    ``edition=``, ``preset=`` ...  ``measures`` (default: all of the kind),
    ``per_question`` (trec_eval's ``-q``), ``baselines`` (the pipeline's
    ``baseline:*`` runs, QA4MRE), ``judgment_set`` (default: the primary one).
    Bad input raises :class:`qacamp.errors.QacampError` naming the file and
    the place.

    Example::

        import qacamp
        df = qacamp.evaluate("clef-qa", questions="q.tsv", runs=["a.tsv", "b.tsv"])
        df.filter(measure="c_at_1").sort("value", descending=True)
    """
    import warnings

    from .ingest import warning_lines

    result = evaluate_campaign(kind, campaign_config(kind, runs, **options), measures,
                               per_question, baselines, judgment_set)
    for line in warning_lines(result.warnings):
        warnings.warn(line, QacampWarning, stacklevel=2)
    return result.rows


__all__ = ["evaluate", "evaluate_campaign", "campaign_config", "order_rows",
           "per_question_measures", "Evaluation", "QacampWarning", "SCOPE_ORDER"]
