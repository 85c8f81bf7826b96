"""The resolved reliability plan of a campaign, and the validation of a
workflow config.

Plan: the analyses' defaults (each analysis record's ``settings``,
:mod:`qacamp.reliability.analyses`) < the kind's (its record's
``reliability``, :mod:`qacamp.kinds`; subset sizes follow the collection:
``half`` is the largest size two disjoint subsets allow, Voorhees 2003:
"Since the QA track used 500 questions, we can directly compute the error
rate for question set sizes up to 250 questions", ``auto`` a step giving
about 25 sizes; the stability subsets are half the collection, as in the
c@1 paper, c = 250 of 500) < the campaign's preset (:mod:`qacamp.presets`:
what its paper used) < the config's top-level ``reliability`` block < the
campaign's own block.

Report settings (:func:`report_settings`): the config's top-level ``report``
block < the campaign's own (the run table's headline, columns and decimals);
the workflow writes them into ``plan.json`` beside the plan.

The config schema is ``workflow/schemas/config.schema.yaml`` with the kinds'
branches and the analyses' sections added from their records
(:func:`config_schema`).
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

from .bounds import parse_grid
from .config import primary_judgment_set, schema_error, short
from .errors import ConfigError, UsageError
from .kinds import KINDS
from .measures import per_unit_problem
from .presets import PRESETS, preset_settings
from .reliability.analyses import ANALYSES
from .reliability.seeds import parse_sizes

#: the analysis seed when the config names none
SEED = 20030527


def _merge(base: dict, over: dict | None) -> dict:
    out = copy.deepcopy(base)
    for key, value in (over or {}).items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def global_defaults() -> dict[str, Any]:
    """The plan's defaults before the kind's: the seed and every analysis's settings."""
    out: dict[str, Any] = {"seed": SEED}
    for a in ANALYSES.values():
        out = _merge(out, {section: dict(values) for section, values in a.settings.items()})
    return out


GLOBAL_DEFAULTS = global_defaults()


def reliability_plan(campaign: dict, global_cfg: dict | None = None) -> dict:
    """Resolved reliability settings of one campaign (module docstring)."""
    plan = _merge(GLOBAL_DEFAULTS, copy.deepcopy(dict(KINDS.lookup(campaign["kind"]).reliability)))
    plan = _merge(plan, preset_settings(campaign).get("reliability"))
    plan = _merge(plan, (global_cfg or {}).get("reliability"))
    plan = _merge(plan, campaign.get("reliability"))
    if not plan.get("measures"):
        plan["measures"] = [campaign.get("measure", "score")]
    plan["judgment_set"] = primary_judgment_set(campaign)
    return plan


def report_settings(campaign: dict, global_cfg: dict | None = None) -> dict:
    """The campaign's report settings: the config's top-level ``report`` block <
    the campaign's own (``run_table``: headline, columns, decimals); the report
    fills what neither sets from the kind (:mod:`qacamp.report`)."""
    return _merge((global_cfg or {}).get("report") or {}, campaign.get("report"))


def configured(campaign: dict, global_cfg: dict | None, section: str, key: str) -> bool:
    """True when the campaign's preset, the config's top-level ``reliability``
    block or the campaign's own block sets ``reliability.<section>.<key>``
    (False: the kind's default, which the jobs fit to the collection)."""
    layers = (preset_settings(campaign).get("reliability"), (global_cfg or {}).get("reliability"),
              campaign.get("reliability"))
    return any(key in ((layer or {}).get(section) or {}) for layer in layers)


def config_schema(schema_path: str | Path) -> dict:
    """The workflow config's schema: the file's, with the analyses' sections of
    ``reliability`` and each kind's keys (a branch of ``campaign``; the names
    of its presets) from their records."""
    import yaml

    with open(schema_path, encoding="utf-8") as fh:
        schema = yaml.safe_load(fh)
    sections = schema["$defs"]["reliability"]["properties"]
    for a in ANALYSES.values():
        for section, properties in a.schema.items():
            sections.setdefault(section, {"type": "object", "additionalProperties": False,
                                          "properties": {}})["properties"].update(properties)
    campaign = schema["$defs"]["campaign"]
    campaign["properties"]["kind"] = {"enum": list(KINDS)}
    campaign["allOf"] = []
    for k in KINDS.values():
        properties = {"kind": {}, "title": {}, "reliability": {}, "report": {},
                      **k.schema["properties"]}
        if "preset" in properties:
            properties["preset"] = {**properties["preset"], "enum": [
                p.name for p in PRESETS.values() if k.name in p.kinds]}
        campaign["allOf"].append({
            "if": {"properties": {"kind": {"const": k.name}}},
            "then": {"required": list(k.schema["required"]), "additionalProperties": False,
                     "properties": properties}})
    return schema


def validate_config(config: dict, schema_path: str | Path) -> None:
    """Check the workflow config against the schema (filling its defaults in
    place), then what a schema cannot say: reliability measures are names of
    the measure registry that the campaign's kind computes, and ``primary``
    names one of the campaign's judgment sets.  The first problem found is a
    :class:`ConfigError` whose message is one line naming the key
    (``campaigns.<name>.<key>``), what is wrong and what is allowed."""
    from .configfile import check_plain

    if not isinstance(config, dict):
        raise ConfigError("<top level>", "the config is not a mapping", "give `campaigns:`")
    check_plain(config)  # before the schema: aliases bounded, text keys, finite numbers
    error = schema_error(config, config_schema(schema_path))
    if error is not None:
        raise error
    for name, campaign in config["campaigns"].items():
        _check_campaign(name, campaign, config.get("reliability") or {},
                        config.get("report") or {})


def _check_run_table(name: str, campaign: dict, top: dict, valid) -> None:
    """``report.run_table``'s measures are measures of the campaign's kind."""
    own = (campaign.get("report") or {}).get("run_table") or {}
    for key in ("headline", "columns"):
        where = f"campaigns.{name}.report.run_table" if key in own else "report.run_table"
        value = own.get(key, (top.get("run_table") or {}).get(key))
        for i, m in enumerate([value] if key == "headline" else (value or [])):
            if m is not None and valid and m not in valid:
                at = f"{where}.{key}" + ("" if key == "headline" else f"[{i}]")
                raise ConfigError(at, f"{short(m)} is not a measure of a {campaign['kind']} "
                                  f"campaign ({name})", "use one of " + ", ".join(valid))


def _check_campaign(name: str, campaign: dict, top: dict, top_report: dict) -> None:
    prefix = f"campaigns.{name}"
    kind = campaign["kind"]
    preset = preset_settings(campaign, key=f"{prefix}.preset")
    missing = [k for k in KINDS.lookup(kind).required if k not in campaign and k not in preset
               and k not in KINDS.lookup(kind).schema["required"]]
    if missing:  # required keys a preset may give (trec-series: year)
        raise ConfigError(prefix, f"missing required key {missing[0]!r}",
                          f"add '{missing[0]}:', or a preset that sets it (docs/presets.md)")
    sets = campaign.get("judgment_sets") or {}
    if "primary" in campaign and campaign["primary"] not in sets:
        raise ConfigError(f"{prefix}.primary", f"{short(campaign['primary'])} is not one of "
                          "the judgment sets", "name one of: " + ", ".join(sorted(sets)))
    valid = KINDS.lookup(kind).measures  # score-matrix: any name (the schema's pattern)
    _check_run_table(name, campaign, top_report, valid)
    own = (campaign.get("reliability") or {}).get("measures")
    key, measures = (f"{prefix}.reliability.measures", own) if own else \
        ("reliability.measures", top.get("measures") or [])
    unit = reliability_plan(campaign, {"reliability": top})["unit"]
    for i, m in enumerate(measures):
        if valid and m not in valid:
            raise ConfigError(f"{key}[{i}]", f"{short(m)} is not a measure of a {kind} "
                              f"campaign ({name})", "use one of " + ", ".join(valid))
        problem = per_unit_problem(m, unit) if isinstance(m, str) else None
        if problem is not None:
            usable = [v for v in valid if per_unit_problem(v, unit) is None]
            raise ConfigError(f"{key}[{i}]", f"{problem} (the reliability unit of campaign "
                              f"{name} is {unit})", "use one of " + ", ".join(usable))
    _check_grids(name, campaign, top)


def _check_grids(name: str, campaign: dict, top: dict) -> None:
    """The plan's grids parse and stay within their limits (checked before any
    job runs).  The swap sizes are checked for their form and order only
    (``10:5`` is refused here; whether the collection holds them, the jobs
    check): against a collection of twice their largest number."""
    plan = reliability_plan(campaign, {"reliability": top})
    for section, sub in (("stability", "fuzz"), ("swap", "fitted_bins"), ("swap", "sizes")):
        value = plan[section].get(sub)
        if value is None:
            continue
        try:
            if sub == "sizes":
                numbers = [int(n) for n in re.findall(r"\d+", str(value))]
                try:
                    parse_sizes(str(value), n_units=2 * max(numbers, default=0) + 2)
                except UsageError:
                    raise UsageError(
                        f"sizes {value!r}: expected a:b or a:b:step with 1 <= a <= b "
                        "(inclusive; step >= 1 or auto; b may be half) or a comma list of "
                        "integers >= 1") from None
            elif sub == "fuzz":
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


__all__ = ["SEED", "GLOBAL_DEFAULTS", "global_defaults", "reliability_plan", "report_settings",
           "configured",
           "config_schema", "validate_config"]
