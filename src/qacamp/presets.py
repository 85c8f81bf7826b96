"""Campaign presets: every method parameter as that campaign's paper or
guidelines set it, each with the sentence it follows.

A campaign names one with ``preset: trec2004``; :func:`apply_preset` returns
the campaign with the preset's settings under its own keys (any key the
campaign sets itself wins; inside ``reliability`` key by key).  The reliability
plan layers them as: the analysis defaults, the kind's defaults, the preset,
the config's top-level ``reliability`` block, the campaign's own block
(:func:`qacamp.plan.reliability_plan`).  ``docs/presets.md`` is generated
from :data:`PRESETS` (``qacamp presets --markdown``).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from .errors import ConfigError

V2003 = "Voorhees 2003, Evaluating the Evaluation (TREC 2002), HLT-NAACL 2003"
V2005 = "Voorhees 2005, Using Question Series to Evaluate QA System Effectiveness, HLT/EMNLP 2005"
C1 = "Penas & Rodrigo 2011, A Simple Measure to Assess Non-response, ACL-HLT 2011, section 4"
QA4MRE = "Penas et al. 2013, QA4MRE 2011-2013 overview, CLEF 2013"
G2005 = "TREC 2005 QA track guidelines"
G2006 = "TREC 2006 QA track guidelines"
G2007 = "TREC 2007 QA track guidelines"
T2003 = "Voorhees 2004, Overview of the TREC 2003 QA track"
#: the citation of a setting that no source states: the value is the project's
#: own choice and the entry says why
PROJECT = "project choice"
#: where each citation's text is (a seed paper of ../shared/seeds, or a short
#: excerpt stored under docs/sources/ with its citation); tests/test_presets.py
#: finds every quoted sentence there
SOURCE_FILES: dict[str, tuple[str, ...]] = {
    V2003: ("seeds/002_45b8ebc9b01ee613.txt",), V2005: ("seeds/004_ed8c83526d7859a2.txt",),
    C1: ("seeds/000_01a877378fd4baec.txt", "seeds/001_f8690b08cd629139.txt"),
    QA4MRE: ("seeds/003_f931decfb23d779d.txt",),
    G2005: ("docs/sources/trec2005-guidelines.md",),
    G2006: ("docs/sources/trec2006-guidelines.md",),
    G2007: ("docs/sources/trec2007-guidelines.md",),
}


def choice(reason: str) -> tuple[str, str, str]:
    """The source entry of a value no source states: the project's choice, with why."""
    return (PROJECT, "", reason)


@dataclass(frozen=True)
class Preset:
    """One campaign's method parameters.  ``settings`` are campaign keys (a
    nested ``reliability`` block included); ``sources`` maps every setting's
    dotted key to (citation, the sentence that supports the value, verbatim
    with ``...`` marking cuts, a note of the project's own or ""), or to
    :func:`choice` (citation :data:`PROJECT`, no sentence, the reason)."""

    name: str
    kinds: tuple[str, ...]
    title: str
    settings: dict[str, Any]
    sources: dict[str, tuple[str, str, str]] = field(default_factory=dict)


_TIES = ("the paper defines Kendall's tau by adjacent swaps (\"two identical rankings produce "
         "a correlation of 1\") but gives no rule for runs with equal scores; tau_b equals "
         "that tau when nothing is tied, keeps identical rankings at 1 and does not change "
         "when runs are renamed (docs/reliability.md)")

_TREC2002_SWAP = {
    "sizes": "1:half", "trials": 10, "pairing": "shared", "mode": "extrapolate",
    "bins": 21, "bin_width": 0.01, "min_fit_size": 21, "fitted_bins": "0.01:0.15",
    "level": 0.05,
}

_SERIES_SWAP = {"sizes": "5:half", "trials": 50, "pairing": "shared", "mode": "extrapolate",
                "bins": 21, "bin_width": 0.01, "min_fit_size": 5, "level": 0.05}
_SERIES_RELIABILITY = {"measures": ["series_score"], "unit": "series",
                       "swap": dict(_SERIES_SWAP), "kendall": {"variant": "tau_b"}}
#: Voorhees 2005's analysis of TREC 2004, the sentence behind each setting
_V2005_SENTENCES = {
    "reliability.measures": ("The mean of the per-series scores is then used as the final "
                             "score for a run", ""),
    "reliability.unit": ("the series is at an appropriate level of granularity for "
                         "aggregating scores", ""),
    "reliability.swap.sizes": ("we can directly compute the error rate for test sizes up to 32 "
                               "series. The smallest test set used is five series",
                               "32 = half of TREC 2004's 64 series: 'half'"),
    "reliability.swap.trials": ("The entire procedure is repeated 50 times (i.e., we perform "
                                "50 trials)", ""),
    "reliability.swap.pairing": ("we randomly select two disjoint sets of series of the "
                                 "required size. We compute the average series score over both "
                                 "sets for all runs, then count the number of times we see a "
                                 "disagreement as to which run is better for all pairs of runs",
                                 ""),
    "reliability.swap.mode": ("we can extrapolate the error rates to test sets up to 64 "
                              "series", ""),
    "reliability.swap.bins": ("The first bin contains runs with a difference of less than "
                              "0.01", "21 bins as in Voorhees 2003, the last one open"),
    "reliability.swap.bin_width": ("The limits for the remaining bins increase by increments "
                                   "of 0.01", ""),
    "reliability.swap.min_fit_size": ("By fitting curves to the values observed for test set "
                                      "sizes between 5 and 32, we can extrapolate", ""),
    "reliability.swap.level": ("An error rate no greater than 5%, requires a difference in "
                               "scores of at least 0.05", ""),
}
#: TREC 2004 (Voorhees 2005's own campaign): every reliability setting quoted
_SERIES_SOURCES = {**{k: (V2005, q, n) for k, (q, n) in _V2005_SENTENCES.items()},
                   "reliability.kendall.variant": choice(_TIES)}


def _carried(year: int, series: int) -> dict[str, tuple[str, str, str]]:
    """TREC 2005-2007: no reliability analysis was published for the year; each
    setting is Voorhees 2005's on TREC 2004, carried over by the project."""
    why = (f"no swap analysis was published for TREC {year}; the preset applies Voorhees "
           "2005's analysis of TREC 2004")
    out = {k: choice(f"{why}: \"{q}\"" + (f" ({n})" if n and "half" not in n else ""))
           for k, (q, n) in _V2005_SENTENCES.items()}
    out["reliability.swap.sizes"] = choice(
        f"{why}, from five series up to half the campaign's series ('half': {series // 2} of "
        f"TREC {year}'s {series} series; TREC 2004 had 64, hence its 32)")
    out["reliability.swap.mode"] = choice(
        f"{why}: curves fitted on the observed sizes and extrapolated to all {series} series")
    out["reliability.kendall.variant"] = choice(_TIES)
    return out


_C1_SWAP = {"sizes": "250", "trials": 100, "pairing": "per-pair", "mode": "observed",
            "observed_at": 250, "bins": 21, "bin_width": 0.01, "level": 0.05}
_C1_STABILITY = {"size": 250, "trials": 100, "fuzz": "0.01:0.10:0.01", "pairing": "per-pair"}
#: the c@1 paper's method, the sentence behind each swap and stability setting
_C1_SENTENCES = {
    "reliability.swap.trials": "for each trial from 1 to 100",
    "reliability.swap.pairing": "for each pair of runs x,y ϵ S for each trial from 1 to 100 "
                                "select Qi , Q ′ i ⊂ Q",
    "reliability.swap.bins": "we first define 21 performance difference bins",
    "reliability.swap.bin_width": "the second bin represents differences such that 0.01 <= d "
                                  "< 0.02",
    "reliability.swap.mode": "we select the difference that represents the first bin where the "
                             "swap-rate is lower or equal than 0.05",
    "reliability.swap.level": "if we want to know the required difference for concluding that "
                              "system A is better than system B with a confidence of 95%",
    "reliability.stability.trials": "for each trial from 1 to 100",
    "reliability.stability.fuzz": "we decided to vary the fuzziness value from 0.01 to 0.10",
    "reliability.stability.pairing": "for each pair of runs x,y ϵ S for each trial from 1 to "
                                     "100 Qi = select at random subcol of size c from Q",
}
_C1_SOURCES = {
    **{k: (C1, q, "") for k, q in _C1_SENTENCES.items()},
    "reliability.measures": (C1, "We have compared the results over c@1 with the ones "
                             "obtained using both accuracy and the utility function (UF)", ""),
    "reliability.unit": (C1, "Let Q denote the entire evaluation collection", "the questions"),
    "reliability.swap.sizes": (C1, "Thus, we use the value c=250 for our experiment", ""),
    "reliability.swap.observed_at": (C1, "Thus, we use the value c=250 for our experiment", ""),
    "reliability.stability.size": (C1, "We use the same size for experiments in Section 4.2 "
                                   "for homogeneity reasons", "c = 250"),
}
_QA4MRE_RELIABILITY = {
    "measures": ["c_at_1", "qa4mre_accuracy"],
    "swap": {**{k: v for k, v in _C1_SWAP.items() if k not in ("sizes", "observed_at")},
             "sizes": "half", "observed_at": None},
    "stability": {**_C1_STABILITY, "size": "half"},
}
_NO_QA4MRE_ANALYSIS = ("the QA4MRE overview reports no reliability analysis; the preset "
                       "applies the c@1 paper's swap and stability method")
_QA4MRE_SOURCES = {
    "pass_threshold": (QA4MRE, "We consider that a system passes a test according to this "
                       "evaluation perspective if it achieves a score equal or higher than 0.5",
                       ""),
    "pass_rule": (QA4MRE, "equal or higher than 0.5", "section 5.3; section 5.2 says 'more than "
                  "0.5' (pass_rule: more_than)"),
    "reliability.measures": (QA4MRE, "The measure was an extension of accuracy called $c@1$ "
                             "... used also in the current evaluation ... As a secondary "
                             "measure, we also provided scores according to *accuracy* ... We "
                             "define *accuracy* considering both answered and unanswered "
                             "questions", "c@1 and the overview's accuracy (nR + nUR) / n, "
                             "qa4mre_accuracy; the preset analyses the measures the overview "
                             "reports"),
    "reliability.swap.sizes": (C1, "Given that Qi and Q'i must be disjoint, their size can only "
                               "be up to half of the size of the original collection",
                               f"{_NO_QA4MRE_ANALYSIS} at the largest subset size the "
                               "collection allows"),
    "reliability.swap.observed_at": choice(
        "null: the required difference is read at the swap size (half the questions), as the "
        "c@1 paper read it at its largest size, c = 250 of 500"),
    **{k: choice(f"{_NO_QA4MRE_ANALYSIS}: \"{q}\" (Penas & Rodrigo 2011)")
       for k, q in _C1_SENTENCES.items()},
    "reliability.stability.size": choice(
        f"{_NO_QA4MRE_ANALYSIS}, at the swap experiment's size as the paper did (\"We use the "
        "same size for experiments in Section 4.2 for homogeneity reasons\")"),
}


PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("trec2002", ("trec-factoid",), "TREC 2002 QA track (Voorhees 2003)", {
        "reliability": {"measures": ["cws", "accuracy"], "unit": "question",
                        "swap": dict(_TREC2002_SWAP), "kendall": {"variant": "tau_b"}},
    }, {
        "reliability.measures": (V2003, "the runs were ranked ... using either the "
                                 "confidence-weighted score or the raw number of correctly "
                                 "answered questions", ""),
        "reliability.swap.sizes": (V2003, "Each question set size from 1 to 250 is treated as "
                                   "a separate experiment", "250 = half of the 500 questions: "
                                   "'half'"),
        "reliability.unit": (V2003, "we randomly select two disjoint sets of questions", ""),
        "reliability.swap.mode": (V2003, "By fitting curves to the values observed for question "
                                  "set sizes up to 250, we can extrapolate the error rates to "
                                  "question sets up to 500 questions", ""),
        "reliability.swap.bin_width": (V2003, "The next bin contains runs whose difference is "
                                       "at least 0.01 but less than 0.02", ""),
        "reliability.swap.trials": (V2003, "The entire procedure is repeated 10 times (i.e., "
                                    "we perform 10 trials)", ""),
        "reliability.swap.pairing": (V2003, "we randomly select two disjoint sets of questions "
                                     "of the required size. We compute the confidence-weighted "
                                     "score over both question sets for all runs", ""),
        "reliability.swap.bins": (V2003, "categorized into one of 21 bins ... with the last bin "
                                  "containing all runs with a difference of at least 0.2", ""),
        "reliability.swap.min_fit_size": (V2003, "The input to the curve-fitting procedure used "
                                          "only question set sizes greater than 20",
                                          "sizes >= 21"),
        "reliability.swap.fitted_bins": (V2003, "Curves could not be fit for the first bin "
                                         "(differences less than .01) ... or for bins where "
                                         "differences were greater than 0.16",
                                         "lower bin edges 0.01 to 0.15: the bin 0.16 <= d < "
                                         "0.17 holds differences greater than 0.16"),
        "reliability.swap.level": (V2003, "The horizontal line in the graph in Figure 2 is "
                                   "drawn at an error rate of 5 %", ""),
        "reliability.kendall.variant": choice(_TIES),
    }),
    Preset("trec2003", ("trec-factoid",),
           "TREC 2003 QA track (factoid, list and definition questions)", {"beta": 5}, {
        "beta": choice("the TREC 2003 definition questions were scored by the nugget F with "
                       "beta = 5 according to the project's method summary (METHODS.md), but "
                       "the TREC 2003 overview's text could not be consulted (only its abstract "
                       "is stored, docs/sources/trec2003-overview.md): unconfirmed, set beta if "
                       "your source says otherwise (from 2004 on beta = 3, Voorhees 2005)"),
    }),
    Preset("trec2004", ("trec-series",), "TREC 2004 QA track (Voorhees 2005)", {
        "year": 2004, "other_score": "nugget", "beta": 3,
        "reliability": copy.deepcopy(_SERIES_RELIABILITY),
    }, {
        "year": (V2005, "We use the same weighted average as above to compute the score for an "
                 "individual series that contains all three question types ... For those "
                 "series that did not contain any list questions, the score was computed as "
                 ".67FactoidAccuracy + .33OtherF", "weights 0.5 / 0.25 / 0.25"),
        "other_score": (V2005, "The Other questions were evaluated using the same methodology "
                        "as the TREC 2003 definition questions", "the single-assessor nugget F"),
        "beta": (V2005, "the F measure with nugget recall three times as important as nugget "
                 "precision", ""),
        **_SERIES_SOURCES,
    }),
    Preset("trec2005", ("trec-series",), "TREC 2005 QA track", {
        "year": 2005, "other_score": "nugget", "beta": 3,
        "reliability": copy.deepcopy(_SERIES_RELIABILITY),
    }, {
        "year": (G2005, "The runs will be evaluated using the same methodology as in TREC 2004, "
                 "though the primary measure will be the per-series combined score",
                 "the TREC 2004 weights"),
        "other_score": (G2005, "The runs will be evaluated using the same methodology as in "
                        "TREC 2004", "TREC 2004's single-assessor nugget F"),
        "beta": (G2005, "The runs will be evaluated using the same methodology as in TREC 2004",
                 "TREC 2004's beta = 3"),
        **_carried(2005, 75),
    }),
    Preset("trec2006", ("trec-series",), "TREC 2006 QA track", {
        "year": 2006, "other_score": "nugget", "beta": 3,
        "reliability": copy.deepcopy(_SERIES_RELIABILITY),
    }, {
        "year": (G2006, "the per-series score will give equal weight to each of the three types "
                 "of questions (FACTOID, LIST, OTHER)", ""),
        "other_score": (G2006, "these secondary scores are experimental and will not be used "
                        "to calculate the per-series scores", ""),
        "beta": (G2006, "The runs will be evaluated using the same methodology as in TREC 2005",
                 "beta = 3 as in 2004-2005"),
        **_carried(2006, 75),
    }),
    Preset("trec2007", ("trec-series",), "TREC 2007 QA track", {
        "year": 2007, "other_score": "pyramid", "beta": 3,
        "reliability": copy.deepcopy(_SERIES_RELIABILITY),
    }, {
        "year": (G2007, "The runs will be evaluated using the same methodology as in TREC 2006",
                 ""),
        "other_score": (G2007, "the official scores for the 'Other' questions will be computed "
                        "using multiple assessors' judgments of the importance of information "
                        "nuggets", ""),
        "beta": (G2007, "The runs will be evaluated using the same methodology as in TREC 2006",
                 "beta = 3 as in 2004-2006"),
        **_carried(2007, 70),
    }),
    Preset("clef2009", ("clef-qa",), "CLEF QA 2009 (ResPubliQA), the c@1 paper's analysis", {
        "reliability": {"measures": ["c_at_1", "accuracy", "utility"], "unit": "question",
                        "swap": dict(_C1_SWAP), "stability": dict(_C1_STABILITY)},
    }, dict(_C1_SOURCES)),
    Preset("qa4mre2011", ("qa4mre",), "QA4MRE 2011 (10 questions per reading test)", {
        "main_questions": 10, "pass_threshold": 0.5, "pass_rule": "at_least",
        "reliability": copy.deepcopy(_QA4MRE_RELIABILITY),
    }, {"main_questions": (QA4MRE, "one document with its ten questions", ""),
        **_QA4MRE_SOURCES}),
    Preset("qa4mre2012", ("qa4mre",), "QA4MRE 2012 (10 questions per reading test)", {
        "main_questions": 10, "pass_threshold": 0.5, "pass_rule": "at_least",
        "reliability": copy.deepcopy(_QA4MRE_RELIABILITY),
    }, {"main_questions": (QA4MRE, "the set with 160 questions ... one document with its ten "
                           "questions", ""), **_QA4MRE_SOURCES}),
    Preset("qa4mre2013", ("qa4mre",), "QA4MRE 2013 (15 main + auxiliary questions, NCA option)", {
        "main_questions": 15, "pass_threshold": 0.5, "pass_rule": "at_least",
        "reliability": copy.deepcopy(_QA4MRE_RELIABILITY),
    }, {"main_questions": (QA4MRE, "Fifteen multiple-choice questions are then devised for "
                           "each test document (the 'Main' questions) ... the 2013 edition "
                           "included also one or more Auxiliary questions", ""),
        **_QA4MRE_SOURCES}),
)}


def _merge(base: dict, over: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def preset_settings(campaign: dict, key: str = "preset") -> dict[str, Any]:
    """The settings of the campaign's preset ({} without one); a preset that does
    not exist or does not fit the campaign's kind is a ConfigError."""
    name = campaign.get("preset")
    if name is None:
        return {}
    if name not in PRESETS:
        raise ConfigError(key, f"unknown preset {name!r}", f"use one of {', '.join(PRESETS)}")
    preset = PRESETS[name]
    if campaign.get("kind") not in preset.kinds:
        raise ConfigError(key, f"preset {name!r} is for kind {', '.join(preset.kinds)}, not "
                          f"{campaign.get('kind')!r}", "choose a preset of the campaign's kind")
    return preset.settings


def apply_preset(campaign: dict, key: str = "preset") -> dict[str, Any]:
    """The campaign with its preset's settings under its own keys (the campaign's
    keys win, ``reliability`` merged key by key).  The reliability block of the
    result holds only the preset's and the campaign's own reliability keys."""
    settings = preset_settings(campaign, key)
    return _merge(settings, campaign) if settings else dict(campaign)


def to_markdown() -> str:
    """docs/presets.md (generated; do not edit by hand)."""
    out = ["# Presets", "",
           "Generated from `qacamp.presets.PRESETS` by `qacamp presets --markdown`; do not edit "
           "by hand.  A campaign names a preset with `preset: NAME`; every key can still be "
           "set in the campaign itself, which wins.  In the reliability plan the layers are: "
           "analysis defaults, the kind's defaults, the preset, the config's top-level "
           "`reliability` block, the campaign's own `reliability` block.", ""]
    out += ["Every value either quotes the sentence of its source that supports it (the "
            "papers of `../shared/seeds`, or the guidelines and overviews stored as short "
            "excerpts with their citation under `docs/sources/`; `tests/test_presets.py` finds "
            "every quote there) or is marked `project choice` with the reason.", ""]
    for p in PRESETS.values():
        out += [f"## `{p.name}`: {p.title}", "", f"Kinds: {', '.join(p.kinds)}.", "",
                "| key | value | source | sentence or reason |", "|---|---|---|---|"]
        for k, v in flatten(p.settings):
            cite, sentence = source_text(p, k)
            out.append(f"| `{k}` | `{v}` | {cite} | {sentence} |".replace("\n", " "))
        out.append("")
    return "\n".join(out)


def flatten(d: dict, prefix: str = "") -> list[tuple[str, Any]]:
    rows = []
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            rows += flatten(v, key + ".")
        else:
            rows.append((key, v))
    return rows


def source_text(p: Preset, key: str) -> tuple[str, str]:
    """(citation, text) of a setting: the quoted sentence (and the project's note),
    or ``project choice: reason``; every setting has its own entry (a value is
    never covered by a sentence about another key)."""
    hit = p.sources.get(key)
    if hit is None:
        raise KeyError(f"preset {p.name}: setting {key} has no source entry")
    cite, quote, note = hit
    if cite == PROJECT:
        return PROJECT, f"project choice: {note}"
    return cite, " ".join(x for x in (f"\"{quote}\"", f"({note})" if note else "") if x)
