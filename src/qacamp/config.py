"""Campaign configuration: defaults by campaign kind and the resolved plan of
the reliability analyses.

The workflow validates the config against ``workflow/schemas/config.schema.yaml``
before anything runs; this module only fills in what the schema leaves to the
kind of campaign (which measures to analyse, the unit of resampling, the
subset sizes and trial counts the papers used), so the Snakefile stays
declarative and cheap to parse.  It imports nothing heavy.
"""

from __future__ import annotations

import copy
import glob
from pathlib import Path
from typing import Any

from .errors import ConfigError

#: Reliability defaults per campaign kind (the settings of the source papers).
KIND_DEFAULTS: dict[str, dict[str, Any]] = {
    # Voorhees 2003 (TREC 2002): c = 1..250 questions, 10 trials; fit on c > 20.
    "trec-factoid": {
        "measures": ["cws", "accuracy"],
        "unit": "question",
        "swap": {"sizes": "1:250", "trials": 10, "min_fit_size": 20},
        "stability": {"size": 250, "trials": 100},
        "judgment_set_default": "adjudicated",
    },
    # Voorhees 2005 (TREC 2004): c = 5..32 series, 50 trials; fit on c >= 5.
    "trec-series": {
        "measures": ["series_score"],
        "unit": "series",
        "swap": {"sizes": "5:32", "trials": 50, "min_fit_size": 5},
        "stability": {"size": 32, "trials": 100},
        "judgment_set_default": "adjudicated",
    },
    # c@1 paper: c = 250, 100 trials (here capped at half the questions).
    "qa4mre": {
        "measures": ["c_at_1", "accuracy", "utility"],
        "unit": "question",
        "swap": {"sizes": "10:120:10", "trials": 20, "min_fit_size": 20},
        "stability": {"size": 120, "trials": 100},
        "judgment_set_default": "gold",
    },
    "clef-qa": {
        "measures": ["c_at_1", "accuracy", "utility"],
        "unit": "question",
        "swap": {"sizes": "10:250:10", "trials": 20, "min_fit_size": 20},
        "stability": {"size": 250, "trials": 100},
        "judgment_set_default": "official",
    },
    "pan": {
        "measures": ["c_at_1", "accuracy"],
        "unit": "question",
        "swap": {"sizes": "5:50:5", "trials": 20, "min_fit_size": 10},
        "stability": {"size": 50, "trials": 100},
        "judgment_set_default": "gold",
    },
    "score-matrix": {
        "measures": None,  # the campaign's `measure` (default "score")
        "unit": "topic",
        "swap": {"sizes": "5:25", "trials": 20, "min_fit_size": 5},
        "stability": {"size": 25, "trials": 100},
        "judgment_set_default": "matrix",
    },
}

GLOBAL_DEFAULTS: dict[str, Any] = {
    "seed": 20030527,
    # swap: `fit` is the curve model of `qacamp reliability fit --model`
    # (exp-binomial: a exp(-b c) by binomial maximum likelihood); `mode`
    # extrapolate (Voorhees) or observed (c@1 paper Table 2: rates observed at
    # `observed_at`, null = the largest size counted); `fitted_bins` "LO:HI"
    # (lower bin edges) or null = all; `min_runs` / `min_comparisons`: below
    # these the summary warns of weak evidence (docs/reliability.md).
    "swap": {"bin_width": 0.01, "bins": 21, "pairing": "shared", "fit": "exp-binomial",
             "level": 0.05, "mode": "extrapolate", "observed_at": None, "fitted_bins": None,
             "min_runs": 10, "min_comparisons": 100},
    "stability": {"fuzz": "0.01:0.10:0.01"},
    "bootstrap": {"trials": 1000, "alpha": 0.05},
    # Kendall tau variant of `qacamp reliability extras --kendall-variant`
    "kendall": {"variant": "tau_a"},
}


#: Measures that are not a mean of per-unit scores (c@1 is recomputed from
#: counts, CWS depends on each run's confidence order).  Sakai's paired
#: bootstrap resamples per-unit score differences, so it runs only for the
#: other (mean-aggregated) measures.
NON_MEAN_MEASURES = frozenset({"c_at_1", "cws"})


def bootstrap_measures(measures: list[str]) -> list[str]:
    """The measures of ``measures`` the paired bootstrap test applies to."""
    return [m for m in measures if m not in NON_MEAN_MEASURES]


def _merge(base: dict, over: dict | None) -> dict:
    out = copy.deepcopy(base)
    for key, value in (over or {}).items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def primary_judgment_set(campaign: dict) -> str:
    """The judgment set whose responses and scores are official: the config's
    ``primary``; else ``adjudicated`` when present; else the first one; for
    kinds judged against a gold standard, the kind's fixed set name."""
    kind = campaign["kind"]
    sets = campaign.get("judgment_sets")
    if sets:
        if "primary" in campaign:
            if campaign["primary"] not in sets:
                raise ConfigError("primary", f"'{campaign['primary']}' is not one of the "
                                  f"judgment sets {sorted(sets)}",
                                  "name one of the keys of judgment_sets")
            return campaign["primary"]
        return "adjudicated" if "adjudicated" in sets else next(iter(sets))
    return KIND_DEFAULTS[kind]["judgment_set_default"]


def reliability_plan(campaign: dict, global_cfg: dict | None = None) -> dict:
    """Resolved reliability settings of one campaign: global defaults, then the
    kind's defaults, then the config's top-level ``reliability``, then the
    campaign's own ``reliability`` block."""
    kind = campaign["kind"]
    kd = {k: v for k, v in KIND_DEFAULTS[kind].items() if k != "judgment_set_default"}
    plan = _merge(GLOBAL_DEFAULTS, kd)
    plan = _merge(plan, (global_cfg or {}).get("reliability"))
    plan = _merge(plan, campaign.get("reliability"))
    if not plan.get("measures"):
        plan["measures"] = [campaign.get("measure", "score")]
    plan["judgment_set"] = primary_judgment_set(campaign)
    return plan


def expand_files(spec: str | list[str] | None, base_dir: str | Path = ".",
                 key: str = "files") -> list[str]:
    """Paths named by ``spec`` (a path or glob, or a list of them), resolved
    against ``base_dir``, sorted within each entry.  A glob that matches
    nothing is a :class:`ConfigError` naming ``key``."""
    if spec is None:
        return []
    entries = [spec] if isinstance(spec, str) else list(spec)
    out: list[str] = []
    base = Path(base_dir)
    for entry in entries:
        pattern = entry if Path(entry).is_absolute() else str(base / entry)
        if glob.has_magic(pattern):
            matches = sorted(glob.glob(pattern))
        else:
            matches = [pattern] if Path(pattern).exists() else []
        if not matches:
            raise ConfigError(key, f"'{entry}' matches no file",
                              "check the path (relative paths are relative to the directory "
                              "the workflow runs in)")
        out.extend(matches)
    return out


_FILE_KEYS = ("questions", "nuggets", "pyramid", "list_key", "patterns", "patterns_factoid",
              "patterns_list", "gold", "runs", "truth", "answers", "matrix")


def raw_files(campaign: dict, base_dir: str | Path = ".") -> list[str]:
    """Every raw file a campaign reads (so the workflow reruns ingest when one changes)."""
    files: list[str] = []
    for key in _FILE_KEYS:
        if key in campaign:
            files += expand_files(campaign[key], base_dir, key)
    for set_name, spec in (campaign.get("judgment_sets") or {}).items():
        if isinstance(spec, dict):
            for part, sub in spec.items():
                files += expand_files(sub, base_dir, f"judgment_sets.{set_name}.{part}")
        else:
            files += expand_files(spec, base_dir, f"judgment_sets.{set_name}")
    return files
