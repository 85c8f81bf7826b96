"""Campaign presets: every method parameter as that campaign's paper or
guidelines set it, each with the sentence it follows.

A campaign names one with ``preset: trec2004``; :func:`apply_preset` returns
the campaign with the preset's settings under its own keys (any key the
campaign sets itself wins; inside ``reliability`` key by key).  The reliability
plan layers them as: the analysis defaults, the kind's defaults, the preset,
the config's top-level ``reliability`` block, the campaign's own block
(:func:`qacamp.config.reliability_plan`).  ``docs/presets.md`` is generated
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


@dataclass(frozen=True)
class Preset:
    """One campaign's method parameters.  ``settings`` are campaign keys (a
    nested ``reliability`` block included); ``sources`` maps a dotted key to
    (citation, the sentence it follows, verbatim or "", a note of the project's
    own or "")."""

    name: str
    kinds: tuple[str, ...]
    title: str
    settings: dict[str, Any]
    sources: dict[str, tuple[str, str, str]] = field(default_factory=dict)


_TREC2002_SWAP = {
    "sizes": "1:half", "trials": 10, "pairing": "shared", "mode": "extrapolate",
    "bins": 21, "bin_width": 0.01, "min_fit_size": 21, "fitted_bins": "0.01:0.16",
    "level": 0.05,
}

_SERIES_SWAP = {"sizes": "5:half", "trials": 50, "pairing": "shared", "mode": "extrapolate",
                "bins": 21, "bin_width": 0.01, "min_fit_size": 5, "level": 0.05}
_SERIES_SOURCES = {
    "reliability.swap.sizes": (V2005, "we can directly compute the error rate for test sizes "
                               "up to 32 series. The smallest test set used is five series",
                               "32 = half of the 64 series: 'half'"),
    "reliability.swap.trials": (V2005, "The entire procedure is repeated 50 times (i.e., we "
                                "perform 50 trials)", ""),
    "reliability.swap.pairing": (V2005, "we randomly select two disjoint sets of series of the "
                                 "required size. We compute the average series score over both "
                                 "sets for all runs, then count the number of times we see a "
                                 "disagreement as to which run is better for all pairs of runs",
                                 ""),
    "reliability.swap.min_fit_size": (V2005, "By fitting curves to the values observed for test "
                                      "set sizes between 5 and 32, we can extrapolate", ""),
    "reliability.swap.mode": (V2005, "we can extrapolate the error rates to test sets up to 64 "
                              "series", ""),
    "reliability.swap.bin_width": (V2005, "The limits for the remaining bins increase by "
                                   "increments of 0.01", ""),
    "reliability.measures": (V2005, "The mean of the per-series scores is then used as the "
                             "final score for a run", ""),
    "reliability.kendall.variant": (V2005, "The Kendall ... (Stuart, 1983) measure of "
                                    "correlation between the system rankings",
                                    "the tie rule is not stated; tau_a on rankings with ties "
                                    "broken by run name, as Voorhees 2003 describes tau"),
    "reliability.swap.level": (V2005, "An error rate no greater than 5%, requires a difference "
                               "in scores of at least 0.05", ""),
    "reliability.swap.bins": (V2005, "The first bin contains runs with a difference of less "
                              "than 0.01", "21 bins as in Voorhees 2003, the last one open"),
    "reliability.unit": (V2005, "the series is at an appropriate level of granularity for "
                         "aggregating scores", ""),
}
_LOCAL_SOURCE = ("Dang, Lin & Kelly 2006 (TREC 2006 QA overview)",
                 "the evaluation of factoid and list responses distinguished between answers "
                 "that were globally correct (with respect to the document collection), and "
                 "those that were only locally correct (with respect to the supporting "
                 "document)",
                 "NIST's judged files are believed to mark locally correct answers with 4; "
                 "not confirmed from a primary source: override judgment_codes if your files "
                 "differ")
_C1_SWAP = {"sizes": "250", "trials": 100, "pairing": "per-pair", "mode": "observed",
            "observed_at": 250, "bins": 21, "bin_width": 0.01, "level": 0.05}
_C1_SOURCES = {
    "reliability.measures": (C1, "We have compared the results over c@1 with the ones "
                             "obtained using both accuracy and the utility function (UF)", ""),
    "reliability.unit": (C1, "Let Q denote the entire evaluation collection",
                         "the questions"),
    "reliability.swap.sizes": (C1, "Thus, we use the value c=250 for our experiment", ""),
    "reliability.swap.mode": (C1, "we select the difference that represents the first bin "
                              "where the swap-rate is lower or equal than 0.05", ""),
    "reliability.swap.observed_at": (C1, "Thus, we use the value c=250 for our experiment", ""),
    "reliability.swap.trials": (C1, "for each trial from 1 to 100", ""),
    "reliability.swap.pairing": (C1, "", "the algorithm of the paper's Figure 3 draws the two "
                                 "disjoint subsets inside the loop over pairs of runs: one "
                                 "draw per pair and trial"),
    "reliability.swap.bins": (C1, "we first define 21 performance difference bins", ""),
    "reliability.swap.bin_width": (C1, "the second bin represents differences such that 0.01 "
                                   "<= d < 0.02", ""),
    "reliability.swap.level": (C1, "if we want to know the required difference for concluding "
                               "that system A is better than system B with a confidence of "
                               "95%", ""),
    "reliability.stability.size": (C1, "We use the same size for experiments in Section 4.2 "
                                   "for homogeneity reasons", "c = 250"),
    "reliability.stability.trials": (C1, "for each trial from 1 to 100", ""),
    "reliability.stability.fuzz": (C1, "we decided to vary the fuzziness value from 0.01 to "
                                   "0.10", ""),
    "reliability.stability.pairing": (C1, "", "the algorithm of the paper's Figure 1 draws the "
                                      "subset inside the loop over pairs of runs"),
}
_QA4MRE_RELIABILITY = {
    "measures": ["c_at_1", "accuracy"],
    "swap": {**{k: v for k, v in _C1_SWAP.items() if k not in ("sizes", "observed_at")},
             "sizes": "half", "observed_at": None},
    "stability": {"size": "half", "trials": 100, "fuzz": "0.01:0.10:0.01", "pairing": "per-pair"},
}
_QA4MRE_SOURCES = {
    "pass_threshold": (QA4MRE, "We consider that a system passes a test according to this "
                       "evaluation perspective if it achieves a score equal or higher than 0.5",
                       ""),
    "pass_rule": (QA4MRE, "equal or higher than 0.5", "section 5.3; section 5.2 says 'more than "
                  "0.5' (pass_rule: more_than)"),
    "reliability": (C1, "Given that Qi and Q'i must be disjoint, their size can only be up to "
                    "half of the size of the original collection",
                    "the QA4MRE overview reports no reliability analysis; the preset applies "
                    "the c@1 paper's swap and stability method at the largest subset size the "
                    "collection allows (half of its questions; observed_at null = that size)"),
}


PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("trec2002", ("trec-factoid",), "TREC 2002 QA track (Voorhees 2003)", {
        "reliability": {"measures": ["cws", "accuracy"], "unit": "question",
                        "swap": dict(_TREC2002_SWAP), "kendall": {"variant": "tau_a"}},
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
                                      "lower bin edges 0.01 to 0.16"),
        "reliability.swap.level": (V2003, "The horizontal line in the graph in Figure 2 is "
                                   "drawn at an error rate of 5 %", ""),
        "reliability.kendall.variant": (V2003, "Kendall's ... computes the distance between two "
                                        "rankings as the minimum number of pairwise adjacent "
                                        "swaps to turn one ranking into the other",
                                        "ties broken by run name"),
    }),
    Preset("trec2003", ("trec-factoid",), "TREC 2003 QA track (definition questions)", {
        "beta": 5,
    }, {
        "beta": (T2003, "", "the TREC 2003 definition questions were scored with the nugget F "
                 "with beta = 5 (from 2004 on beta = 3, Voorhees 2005: 'nugget recall three "
                 "times as important as nugget precision'); the overview's text could not be "
                 "consulted here: override beta if your source says otherwise"),
    }),
    Preset("trec2004", ("trec-series",), "TREC 2004 QA track (Voorhees 2005)", {
        "year": 2004, "other_score": "nugget", "beta": 3,
        "reliability": {"measures": ["series_score"], "unit": "series",
                        "swap": dict(_SERIES_SWAP), "kendall": {"variant": "tau_a"}},
    }, {
        "year": (V2005, "We use the same weighted average as above to compute the score for an "
                 "individual series that contains all three question types ... For those "
                 "series that did not contain any list questions, the score was computed as "
                 ".67FactoidAccuracy + .33OtherF", "weights 0.5 / 0.25 / 0.25"),
        "beta": (V2005, "the F measure with nugget recall three times as important as nugget "
                 "precision", ""),
        **_SERIES_SOURCES,
    }),
    Preset("trec2005", ("trec-series",), "TREC 2005 QA track", {
        "year": 2005, "other_score": "nugget", "beta": 3,
        "reliability": {"measures": ["series_score"], "unit": "series",
                        "swap": dict(_SERIES_SWAP), "kendall": {"variant": "tau_a"}},
    }, {
        "year": (G2005, "The runs will be evaluated using the same methodology as in TREC 2004, "
                 "though the primary measure will be the per-series combined score", ""),
        "reliability": (V2005, "", "no analysis was published for 2005; the preset applies "
                        "the TREC 2004 analysis of Voorhees 2005"),
        **_SERIES_SOURCES,
    }),
    Preset("trec2006", ("trec-series",), "TREC 2006 QA track", {
        "year": 2006, "other_score": "nugget", "beta": 3,
        "judgment_codes": {"4": "L"},
        "reliability": {"measures": ["series_score"], "unit": "series",
                        "swap": dict(_SERIES_SWAP), "kendall": {"variant": "tau_a"}},
    }, {
        "year": (G2006, "the per-series score will give equal weight to each of the three types "
                 "of questions (FACTOID, LIST, OTHER)", ""),
        "other_score": (G2006, "these secondary scores are experimental and will not be used "
                        "to calculate the per-series scores", ""),
        "reliability": (V2005, "", "the TREC 2004 analysis of Voorhees 2005, carried over"),
        "judgment_codes": _LOCAL_SOURCE,
        **_SERIES_SOURCES,
    }),
    Preset("trec2007", ("trec-series",), "TREC 2007 QA track", {
        "year": 2007, "other_score": "pyramid", "beta": 3,
        "judgment_codes": {"4": "L"},
        "reliability": {"measures": ["series_score"], "unit": "series",
                        "swap": dict(_SERIES_SWAP), "kendall": {"variant": "tau_a"}},
    }, {
        "year": (G2007, "The runs will be evaluated using the same methodology as in TREC 2006",
                 ""),
        "other_score": (G2007, "the official scores for the 'Other' questions will be computed "
                        "using multiple assessors' judgments of the importance of information "
                        "nuggets", ""),
        "reliability": (V2005, "", "the TREC 2004 analysis of Voorhees 2005, carried over"),
        "judgment_codes": _LOCAL_SOURCE,
        **_SERIES_SOURCES,
    }),
    Preset("clef2009", ("clef-qa",), "CLEF QA 2009 (ResPubliQA), the c@1 paper's analysis", {
        "reliability": {"measures": ["c_at_1", "accuracy", "utility"], "unit": "question",
                        "swap": dict(_C1_SWAP),
                        "stability": {"size": 250, "trials": 100, "fuzz": "0.01:0.10:0.01",
                                      "pairing": "per-pair"}},
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
    for p in PRESETS.values():
        out += [f"## `{p.name}`: {p.title}", "", f"Kinds: {', '.join(p.kinds)}.", "",
                "| key | value | source | sentence |", "|---|---|---|---|"]
        for k, v in flatten(p.settings):
            cite, sentence = _source(p, k)
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


def _source(p: Preset, key: str) -> tuple[str, str]:
    """(citation, text) of a setting: the quoted sentence and the project's note;
    a key without its own source takes its parent's."""
    parts = key.split(".")
    for n in range(len(parts), 0, -1):
        hit = p.sources.get(".".join(parts[:n]))
        if hit:
            cite, quote, note = hit
            text = " ".join(x for x in (f"\"{quote}\"" if quote else "",
                                        f"({note})" if note else "") if x)
            if n < len(parts):
                text = f"(for `{'.'.join(parts[:n])}`) {text}"
            return cite, text
    return "-", "the project's default for this analysis (no sentence in the source)"
