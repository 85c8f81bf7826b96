"""Scoring options: the resolved campaign dict -> the settings the steps read.

Year rules (docs/semantics.md, "Year rules"):

- series weights: 2004-2005 0.5 / 0.25 / 0.25 (no list: 0.67 / 0.33), Voorhees
  2005; 2006-2007 equal thirds (2006 guidelines: "the per-series score will
  give equal weight to each of the three types of questions");
- the Other score that enters the series score (``other_score``): the
  single-assessor nugget F through 2006; the multi-assessor pyramid F in 2007
  (2007 guidelines: "the official scores for the 'Other' questions will be
  computed using multiple assessors' judgments of the importance of
  information nuggets");
- beta of the nugget F: 3 (Voorhees 2005: "nugget recall three times as
  important as nugget precision"); TREC 2003 definition questions used 5
  (the TREC 2003 edition's default, :attr:`qacamp.kinds.Edition.defaults`:
  applied where definition questions are scored and the campaign sets no
  ``beta``, with the ``trec2003`` preset or without it).

Every rule can be overridden by the campaign's own key.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..bounds import number_problem
from ..errors import ConfigError, UsageError
from ..kinds import KINDS
from ..measures import other, pan, reading, series

OTHER_SCORES = ("nugget", "pyramid")
PASS_RULES = ("at_least", "more_than")
COMPONENTS = ("factoid", "list", "other", "definition")
#: Ranked answers counted per question by MRR (TREC 8-10 runs returned up to 5).
MAX_RANK = 5


def default_other_score(year: int | None) -> str:
    """``pyramid`` for TREC 2007 (official Other score), ``nugget`` otherwise."""
    return "pyramid" if year is not None and year >= 2007 else "nugget"


def resolve_options(kind: str, options: Mapping[str, Any] | None,
                    qtypes: Iterable[str] = ()) -> dict[str, Any]:
    """Flatten a resolved campaign dict (an ``options`` sub-dict is merged in),
    check the values the scoring reads and fill in their defaults: the
    campaign's edition's first (:meth:`qacamp.kinds.Kind.edition` of its preset
    and its questions' types ``qtypes``: TREC 2003's beta 5 where definition
    questions are scored), then the kind's."""
    opts: dict[str, Any] = {}
    for key, value in (options or {}).items():
        if key == "options" and isinstance(value, Mapping):
            opts.update(value)
        else:
            opts[key] = value
    if not isinstance(kind, str) or kind not in KINDS:
        raise ConfigError("kind", f"unknown campaign kind '{kind}'", f"use one of {', '.join(KINDS)}")
    opts["kind"] = kind
    edition = KINDS[kind].edition(opts.get("preset"), qtypes)
    for key, value in (edition.defaults if edition is not None else {}).items():
        if opts.get(key) is None:
            opts[key] = value
    year = opts.get("year")
    year = int(year) if year is not None else None
    opts.setdefault("pass_threshold", reading.PASS_THRESHOLD)
    opts.setdefault("pass_rule", "at_least")
    _choice(opts, "pass_rule", PASS_RULES)
    opts.setdefault("test_std_ddof", reading.STD_DDOF)
    _choice(opts, "test_std_ddof", (0, 1))
    opts.setdefault("baseline_seed", 1)
    opts.setdefault("main_questions", 15)
    opts.setdefault("allowance", other.ALLOWANCE)
    if opts.get("beta") is None:
        opts["beta"] = other.BETA
    _number(opts, "beta", "give the F-measure's beta, e.g. 3", lo=0, lo_open=True)
    opts["beta"] = float(opts["beta"])
    opts.setdefault("max_rank", MAX_RANK)
    _number(opts, "max_rank", "give the number of ranked answers MRR counts (TREC 8-10: 5)",
            lo=1, integer=True)
    _number(opts, "pass_threshold", "give the c@1 a reading test needs, e.g. 0.5", lo=0, hi=1)
    for key, value in (opts.get("weights") or {}).items():
        problem = number_problem(value, lo=0)
        if problem is not None:
            raise ConfigError(f"weights.{key}", problem, "give a weight >= 0")
    if opts.get("other_score") is None:
        opts["other_score"] = default_other_score(year)
    _choice(opts, "other_score", OTHER_SCORES)
    skip = opts.get("skip") or []
    bad = [s for s in skip if s not in COMPONENTS]
    if bad:
        raise ConfigError("skip", f"unknown component(s) {bad}", f"use some of {', '.join(COMPONENTS)}")
    opts["skip"] = sorted(set(skip))
    opts["series_weights"] = series.resolve_weights(year, opts.get("weights"))
    if KINDS[kind].verification:
        try:
            opts["edition"] = pan.check_edition(opts.get("edition") or pan.DEFAULT_EDITION)
        except UsageError as exc:
            raise ConfigError("edition", str(exc), f"use one of {', '.join(pan.EDITIONS)}"
                              ) from None
        try:
            opts["pan_evaluator"] = pan.check_evaluator(opts.get("pan_evaluator"),
                                                        opts["edition"])
        except UsageError as exc:
            raise ConfigError("pan_evaluator", str(exc),
                              "published (the evaluator before its 2021-05-28 F0.5u fix, as "
                              "PAN 2020's table) or current") from None
    return opts


def _number(opts: dict, key: str, fix: str, **bounds) -> None:
    problem = number_problem(opts[key], **bounds)
    if problem is not None:
        raise ConfigError(key, problem, fix)


def _choice(opts: dict, key: str, allowed: tuple) -> None:
    if opts[key] not in allowed:
        raise ConfigError(key, f"{opts[key]!r} is not one of {', '.join(map(str, allowed))}",
                          f"use one of {', '.join(map(str, allowed))}")


def primary_set(kind: str, options: Mapping[str, Any], present: list[str]) -> str:
    """The primary judgment set: ``primary`` / ``primary_judgment_set`` /
    ``judgment_set`` of the options, else adjudicated, else the kind's default,
    else the first present."""
    for key in ("primary", "primary_judgment_set", "judgment_set"):
        if isinstance(options.get(key), str):
            return options[key]
    default = KINDS[kind].judgment_set if kind in KINDS else "adjudicated"
    for cand in ("adjudicated", default):
        if cand in present:
            return cand
    return present[0] if present else default
