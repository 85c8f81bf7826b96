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

#: Reliability defaults per campaign kind.  Subset sizes follow the collection:
#: ``half`` is the largest size two disjoint subsets allow (Voorhees 2003:
#: "Since the QA track used 500 questions, we can directly compute the error
#: rate for question set sizes up to 250 questions"), ``auto`` a step giving
#: about 25 sizes; the stability subsets are half the collection, as in the
#: c@1 paper (c = 250 of 500).  Presets (qacamp.presets) set what a campaign's
#: paper used.
KIND_DEFAULTS: dict[str, dict[str, Any]] = {
    # Voorhees 2003 (TREC 2002): every size 1..half, 10 trials; fit on sizes > 20.
    "trec-factoid": {
        "measures": ["cws", "accuracy"],
        "unit": "question",
        "swap": {"sizes": "1:half", "trials": 10, "min_fit_size": 21},
        "stability": {"size": "half", "trials": 100},
        "judgment_set_default": "adjudicated",
    },
    # Voorhees 2005 (TREC 2004): sizes 5..half of the series, 50 trials; fit on c >= 5.
    "trec-series": {
        "measures": ["series_score"],
        "unit": "series",
        "swap": {"sizes": "5:half", "trials": 50, "min_fit_size": 5},
        "stability": {"size": "half", "trials": 100},
        "judgment_set_default": "adjudicated",
    },
    # The c@1 paper's measures; sizes up to half the questions.
    "qa4mre": {
        "measures": ["c_at_1", "accuracy", "utility"],
        "unit": "question",
        "swap": {"sizes": "10:half:auto", "trials": 20, "min_fit_size": 21},
        "stability": {"size": "half", "trials": 100},
        "judgment_set_default": "gold",
    },
    "clef-qa": {
        "measures": ["c_at_1", "accuracy", "utility"],
        "unit": "question",
        "swap": {"sizes": "10:half:auto", "trials": 20, "min_fit_size": 21},
        "stability": {"size": "half", "trials": 100},
        "judgment_set_default": "official",
    },
    # PAN ranks by the edition's overall score; AUC and c@1 beside it.
    "pan": {
        "measures": ["overall", "auc", "c_at_1"],
        "unit": "question",
        "swap": {"sizes": "10:half:auto", "trials": 20, "min_fit_size": 21},
        "stability": {"size": "half", "trials": 100},
        "judgment_set_default": "gold",
    },
    "score-matrix": {
        "measures": None,  # the campaign's `measure` (default "score")
        "unit": "topic",
        "swap": {"sizes": "5:half", "trials": 20, "min_fit_size": 5},
        "stability": {"size": "half", "trials": 100},
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
    "stability": {"fuzz": "0.01:0.10:0.01", "pairing": "shared"},
    "bootstrap": {"trials": 1000, "alpha": 0.05},
    # significance tests over all run pairs (qacamp.reliability.significance): the
    # project's default, as no campaign's source documents a test of its own
    # (docs/reliability.md, "Significance"); correction null = the test's default
    "significance": {"test": "tukey-hsd", "correction": None, "permutations": 10_000,
                     "alpha": 0.05},
    # Kendall tau variant of `qacamp reliability extras --kendall-variant`
    "kendall": {"variant": "tau_b"},
}


#: the tests that draw permutations (sharded in the workflow); the others run in one job
RESAMPLING_TESTS = ("randomisation", "tukey-hsd")


def bootstrap_measures(measures: list[str]) -> list[str]:
    """The measures of ``measures`` the paired bootstrap test runs on: all of
    them (mean-aggregated measures with Sakai's studentised statistic, the
    others, recomputed on each sample, with the difference itself;
    :mod:`qacamp.reliability.bootstrap`)."""
    return list(measures)


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
    """Resolved reliability settings of one campaign: the analysis defaults, the
    kind's defaults, the campaign's preset (docs/presets.md), the config's
    top-level ``reliability`` block, then the campaign's own block."""
    from .presets import preset_settings

    kind = campaign["kind"]
    kd = {k: v for k, v in KIND_DEFAULTS[kind].items() if k != "judgment_set_default"}
    plan = _merge(GLOBAL_DEFAULTS, kd)
    plan = _merge(plan, preset_settings(campaign).get("reliability"))
    plan = _merge(plan, (global_cfg or {}).get("reliability"))
    plan = _merge(plan, campaign.get("reliability"))
    if not plan.get("measures"):
        plan["measures"] = [campaign.get("measure", "score")]
    plan["judgment_set"] = primary_judgment_set(campaign)
    return plan


def configured(campaign: dict, global_cfg: dict | None, section: str, key: str) -> bool:
    """True when the campaign's preset, the config's top-level ``reliability``
    block or the campaign's own block sets ``reliability.<section>.<key>``
    (False: the kind's default, which the jobs fit to the collection)."""
    from .presets import preset_settings

    layers = (preset_settings(campaign).get("reliability"), (global_cfg or {}).get("reliability"),
              campaign.get("reliability"))
    return any(key in ((layer or {}).get(section) or {}) for layer in layers)


def expand_files(spec: str | list[str] | None, base_dir: str | Path = ".",
                 key: str = "files") -> list[str]:
    """Paths named by ``spec`` (a path or glob, or a list of them), resolved
    against ``base_dir``, sorted within each entry.  A glob that matches
    nothing is a :class:`ConfigError` naming ``key``."""
    if spec is None:
        return []
    entries = [spec] if isinstance(spec, str) else spec
    if not isinstance(entries, list) or not entries or not all(
            isinstance(e, str) and e for e in entries):
        raise ConfigError(key, f"{_short(spec)} is not a path or a list of paths",
                          "give a path or glob (text), or a list of them")
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


# --------------------------------------------------------------------------- validation

#: Where results go when the config names no ``outdir`` (the schema's default).
DEFAULT_OUTDIR = "results"


def _dotted(path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)  # repr: a newline in a hostile value stays on one line
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _describe(error) -> tuple[str, str, str]:
    """(dotted key, problem, fix) of one jsonschema ValidationError."""
    key = _dotted(error.absolute_path) or "<top level>"
    kind, value, inst = error.validator, error.validator_value, error.instance
    if kind == "additionalProperties" and isinstance(inst, dict):
        allowed = sorted(error.schema.get("properties", {}))
        unknown = sorted(k for k in inst if k not in allowed)
        name = unknown[0] if unknown else "?"
        return key, f"unknown key {name!r}", "allowed here: " + ", ".join(allowed)
    if kind == "required" and isinstance(inst, dict):
        missing = [k for k in value if k not in inst]
        return key, f"missing required key {missing[0]!r}" if missing else error.message, \
            f"add '{missing[0] if missing else ''}:'"
    if kind == "propertyNames":
        return key, f"name {_short(inst)} is not allowed", "use letters, digits, _ and - only " \
            "(and not a reserved name)"
    if kind == "not":
        return key, f"{_short(inst)} is reserved", "choose another name"
    if kind == "pattern":
        hint = " ".join(str(error.schema.get("description") or f"match {value}").split())
        return key, f"{_short(inst)} is not allowed", hint
    if kind == "enum":
        return key, f"{_short(inst)} is not allowed", "use one of " + ", ".join(map(str, value))
    if kind == "type":
        return key, f"{_short(inst)} is not of type {value}", "see the key's description in " \
            "workflow/schemas/config.schema.yaml"
    if kind == "oneOf" and error.schema.get("description"):
        return key, f"{_short(inst)} is not allowed", error.schema["description"]
    return key, error.message.replace("\n", " ")[:200], "see workflow/schemas/config.schema.yaml"


def _validator(schema: dict):
    """A draft 2020-12 validator that fills schema defaults (as Snakemake's
    ``validate`` does) and treats an anchored ``pattern`` strictly: Python's
    ``$`` also matches before a final newline, which must not let
    ``"5:32\\n"`` through."""
    import re

    import jsonschema
    from jsonschema.exceptions import ValidationError

    base = jsonschema.Draft202012Validator

    def properties(validator, props, instance, schema):
        if isinstance(instance, dict):
            for name, sub in props.items():
                if isinstance(sub, dict) and "default" in sub:
                    instance.setdefault(name, copy.deepcopy(sub["default"]))
        yield from base.VALIDATORS["properties"](validator, props, instance, schema)

    def pattern(validator, patrn, instance, schema):
        if not isinstance(instance, str):
            return
        if not re.search(patrn, instance) or (patrn.endswith("$") and instance.endswith("\n")):
            yield ValidationError(f"{instance!r} does not match {patrn!r}")

    cls = jsonschema.validators.extend(base, {"properties": properties, "pattern": pattern})
    return cls(schema)


def validate_config(config: dict, schema_path: str | Path) -> None:
    """Check the workflow config against the schema (filling its defaults in
    place), then what a schema cannot say: reliability measures are names of
    the measure registry that the campaign's kind computes, and ``primary``
    names one of the campaign's judgment sets.  The first problem found is a
    :class:`ConfigError` whose message is one line naming the key
    (``campaigns.<name>.<key>``), what is wrong and what is allowed."""
    import yaml
    from jsonschema.exceptions import best_match

    from .configfile import check_plain

    if not isinstance(config, dict):
        raise ConfigError("<top level>", "the config is not a mapping", "give `campaigns:`")
    check_plain(config)  # before the schema: aliases bounded, text keys, finite numbers
    with open(schema_path, encoding="utf-8") as fh:
        schema = yaml.safe_load(fh)
    error = best_match(_validator(schema).iter_errors(config))
    if error is not None:
        raise ConfigError(*_describe(error))
    for name, campaign in config["campaigns"].items():
        _check_campaign(name, campaign, config.get("reliability") or {})


def _check_campaign(name: str, campaign: dict, top: dict) -> None:
    from .measures import KIND_MEASURES
    from .presets import preset_settings

    prefix = f"campaigns.{name}"
    kind = campaign["kind"]
    preset = preset_settings(campaign, key=f"{prefix}.preset")
    if kind == "trec-series" and "year" not in campaign and "year" not in preset:
        raise ConfigError(prefix, "missing required key 'year'",
                          "add 'year:' (2004-2007), or a preset that sets it (e.g. trec2004)")
    sets = campaign.get("judgment_sets") or {}
    if "primary" in campaign and campaign["primary"] not in sets:
        raise ConfigError(f"{prefix}.primary", f"{_short(campaign['primary'])} is not one of "
                          "the judgment sets", "name one of: " + ", ".join(sorted(sets)))
    valid = KIND_MEASURES.get(kind) or ()  # score-matrix: any name (the schema's pattern)
    own = (campaign.get("reliability") or {}).get("measures")
    key, measures = (f"{prefix}.reliability.measures", own) if own else \
        ("reliability.measures", top.get("measures") or [])
    for i, m in enumerate(measures):
        if valid and m not in valid:
            raise ConfigError(f"{key}[{i}]", f"{_short(m)} is not a measure of a {kind} "
                              f"campaign ({name})", "use one of " + ", ".join(valid))
    _check_grids(name, campaign, top)


def _check_grids(name: str, campaign: dict, top: dict) -> None:
    """The plan's grids parse and stay within their limits (checked before any
    job runs; the sizes need the collection and are checked by the jobs)."""
    from .bounds import parse_grid
    from .errors import UsageError

    plan = reliability_plan(campaign, {"reliability": top})
    for section, sub in (("stability", "fuzz"), ("swap", "fitted_bins")):
        value = plan[section].get(sub)
        if value is None:
            continue
        try:
            if sub == "fuzz":
                parse_grid(value, f"fuzz {value!r}")
            elif len(value.split(":")) != 2:
                raise UsageError(f"fitted_bins {value!r}: expected LO:HI, e.g. 0.01:0.16")
            else:
                lo, hi = (parse_grid(x, f"fitted_bins {value!r}")[0] for x in value.split(":"))
                if hi < lo:
                    raise UsageError(f"fitted_bins {value!r}: LO is above HI")
        except UsageError as exc:
            own = ((campaign.get("reliability") or {}).get(section) or {}).get(sub)
            key = f"campaigns.{name}.reliability" if own is not None else "reliability"
            raise ConfigError(f"{key}.{section}.{sub}", str(exc),
                              "see the key's description in workflow/schemas/config.schema.yaml"
                              ) from None
