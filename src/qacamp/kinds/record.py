"""The shape of a campaign kind's record (:mod:`qacamp.kinds`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Edition:
    """A year or edition whose rules change what a campaign's pages say: it
    applies when the campaign's preset is one of ``presets``, a question type
    of ``qtypes`` is scored, or the campaign's ``edition`` key is one of
    ``editions``."""

    name: str
    title: str  # the kind as the pages name it: "TREC 2003 question answering ..."
    headline: str  # the measure the pages are headed, ranked and titled by
    label: str  # how the pages name it: "final score"
    run_table: str  # the report's run table: its captions, headers and notes
    #: the run table's measures after the headline (those of the edition's paper)
    run_columns: tuple[str, ...] = ()
    presets: tuple[str, ...] = ()
    qtypes: tuple[str, ...] = ()
    editions: tuple[str, ...] = ()
    #: campaign keys the edition's rules set when the campaign does not: applied
    #: without a preset (the question types say the edition), and said in one
    #: ingest note (``why``: the rule and its source)
    defaults: Mapping[str, Any] = field(default_factory=dict)
    why: str = ""


@dataclass(frozen=True)
class Setting:
    """A campaign key of the kind that ingest checks and passes on in the
    resolved campaign's ``options`` (``bounds``: a number's range)."""

    key: str
    default: Any = None
    bounds: Mapping[str, Any] | None = None


#: an ``argparse`` option of ``qacamp eval``: flags and keywords
EvalOption = tuple[tuple[str, ...], Mapping[str, Any]]


@dataclass(frozen=True)
class Kind:
    """One campaign kind (module docstring)."""

    name: str
    title: str
    #: run-table and page measure; None: the campaign's own ``measure`` (score matrices)
    headline: str | None
    measures: tuple[str, ...]
    #: reliability plan defaults (qacamp.plan): measures, unit, swap, stability
    reliability: Mapping[str, Any]
    judgment_set: str
    required: tuple[str, ...]
    file_keys: tuple[str, ...]
    #: ingest: (module of qacamp.ingest, function) reading the campaign's files
    ingest: tuple[str, str]
    #: the kind's branch of the config schema (properties and required keys; the
    #: ``preset`` key's names come from the presets of the kind, qacamp.presets)
    schema: Mapping[str, Any]
    #: "trec": judged TREC runs; "gold": runs judged against a gold standard;
    #: "matrix": a score matrix computed elsewhere
    family: str = "gold"
    editions: tuple[Edition, ...] = ()
    #: judged kinds: the parts a judgment set may have, and the one a plain list is
    judgment_parts: tuple[str, ...] = ()
    plain_part: str | None = None
    skippable: tuple[str, ...] = ()
    scoring_keys: tuple[str, ...] = ()
    pattern_keys: tuple[str, ...] = ()
    settings: tuple[Setting, ...] = ()
    #: the run files' config key (gold kinds; judged kinds give judgment sets)
    runs_key: str | None = None
    #: scoring: per-series scores; QA4MRE reading tests (baselines, auxiliary
    #: questions); PAN verification (values in [0, 1] per problem)
    series: bool = False
    reading_tests: bool = False
    verification: bool = False
    #: runs may abstain: c@1 and the non-response measures
    nonresponse: bool = False
    #: campaigns naming an edition form the multi-edition table (QA4MRE Table 1)
    editions_table: bool = False
    #: what a unit is called on the pages (PAN: problem)
    unit_name: str = "question"
    score_decimals: int = 3
    #: report: the run table (its captions, headers and notes) and its measures
    #: after the headline, those the campaign's paper reports (the organizer's
    #: config ``report.run_table`` chooses others); the measure broken down per unit
    run_table: str = "generic"
    run_columns: tuple[str, ...] = ()
    breakdown_measure: str = "accuracy"
    figures: tuple[str, ...] = ()
    #: campaign-level Kendall tau between these rankings of the primary set
    kendall_pairs: tuple[tuple[str, str], ...] = ()
    #: the scores' columns the scoring does not read (qacamp score's check)
    unused_columns: tuple[str, ...] = ("docid", "score")
    #: simulator module of qacamp.simulate (None: none), and the questions file it can reuse
    simulator: str | None = None
    simulate_questions: str | None = None
    #: qacamp eval: one-line help and the kind's own options (None: not evaluable)
    eval_help: str | None = None
    eval_options: tuple[EvalOption, ...] = ()
    #: qacamp eval / qacamp.evaluate: the path keys, and the key naming the questions
    path_keys: tuple[str, ...] = ()
    questions_key: str | None = None

    @property
    def judged(self) -> bool:
        """Runs come judged in judgment sets (TREC kinds)."""
        return self.family == "trec"

    def edition(self, preset: str | None = None, qtypes=(),
                edition: str | int | None = None) -> Edition | None:
        """The edition whose rules apply to a campaign with this preset, these
        question types and this ``edition`` key (None: the kind's own)."""
        for e in self.editions:
            if (preset is not None and preset in e.presets) or set(e.qtypes) & set(qtypes) \
                    or (edition is not None and str(edition) in e.editions):
                return e
        return None


__all__ = ["Kind", "Edition", "Setting", "EvalOption"]
