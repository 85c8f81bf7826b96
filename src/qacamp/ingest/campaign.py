"""The resolved campaign: one campaign's config dict -> kind, options (with
defaults), judgment sets, primary set and the sorted file lists.

Used by ``qacamp ingest`` (and the workflow) and by ``qacamp eval``, which
builds the same config dict from its command-line options, so both validate
exactly alike.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ..bounds import number_problem, range_text
from ..config import expand_files, primary_judgment_set
from ..errors import ConfigError
from ..kinds import KINDS, Kind
from ..presets import apply_preset

#: Per-series weights by TREC year (Voorhees 2005; 2006-2007 guidelines: thirds).
SERIES_WEIGHTS: dict[int, dict[str, float]] = {
    **{y: {"factoid": 0.5, "list": 0.25, "other": 0.25,
           "no_list_factoid": 0.67, "no_list_other": 0.33} for y in (2004, 2005)},
    **{y: {"factoid": 1 / 3, "list": 1 / 3, "other": 1 / 3,
           "no_list_factoid": 0.5, "no_list_other": 0.5} for y in (2006, 2007)},
}

DEFAULT_MIN_COVERAGE = 0.9
"""A run answering fewer than this share of the questions of its type gets a
``coverage`` warning (TREC, QA4MRE and CLEF runs answer every question; a
lower share is most often a truncated file)."""

def resolved_campaign(name: str, campaign: dict, base_dir: Path = Path(".")) -> dict:
    """The resolved campaign: ``name``, ``kind``, ``options`` (defaults filled),
    ``judgment_sets`` (names), ``primary`` and ``files`` (sorted path lists,
    relative to the current directory when ``base_dir`` is relative)."""
    if not isinstance(campaign, dict):
        raise ConfigError(f"campaigns.{name}", "is not a mapping", "give the campaign's keys")
    # a preset's settings under the campaign's own keys (docs/presets.md)
    campaign = apply_preset(campaign, key=f"campaigns.{name}.preset")
    kind = campaign.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        raise ConfigError(f"campaigns.{name}.kind", f"unknown or missing kind {kind!r}",
                          f"use one of {', '.join(KINDS)}")
    k = KINDS[kind]
    for key in k.required:
        if campaign.get(key) is None:
            raise ConfigError(f"campaigns.{name}.{key}", f"missing (required for kind {kind})"
                              if key not in campaign else f"is null (required for kind {kind})",
                              f"give the key '{key}' its value")
    prefix = f"campaigns.{name}"
    files: dict[str, Any] = {}
    for key in k.file_keys:
        if campaign.get(key) is not None:
            files[key] = expand_files(campaign[key], base_dir, f"{prefix}.{key}")
    options: dict[str, Any] = {}
    sets: list[str]
    if k.judged:
        sets = _judgment_files(k, prefix, campaign["judgment_sets"], base_dir, files)
        primary = primary_judgment_set(campaign)
        options["autojudge"] = _autojudge(k, prefix, campaign, files)
        options["skip"] = _skip(k, prefix, campaign)
        if "judgment_codes" in campaign:
            options["judgment_codes"] = _judgment_codes(prefix, campaign["judgment_codes"])
        if not k.series:
            options["run_format"] = _run_format(prefix, campaign.get("run_format", "single"))
        else:
            year = campaign["year"]
            if isinstance(year, bool) or year not in SERIES_WEIGHTS:
                raise ConfigError(f"{prefix}.year", f"year {year!r} is not 2004-2007",
                                  "give the TREC year of the question series")
            options["year"] = year
            options["weights"] = {**SERIES_WEIGHTS[year], **(campaign.get("weights") or {})}
    else:
        if "skip" in campaign:
            judged = " and ".join(x.name for x in KINDS.values() if x.skippable)
            raise ConfigError(f"{prefix}.skip", f"kind {kind} has no measures to skip",
                              f"remove the key (it applies to {judged})")
        primary = primary_judgment_set(campaign)
        sets = [primary]
        options = {s.key: (_number(prefix, campaign, s.key, s.default, **s.bounds) if s.bounds
                           else campaign.get(s.key, s.default)) for s in k.settings}
    if k.family != "matrix":
        options["min_coverage"] = _min_coverage(prefix, campaign)
    options.update(_scoring_options(k, prefix, campaign, options))
    out = {"name": name, "kind": kind, "options": options, "judgment_sets": sets,
           "primary": primary, "files": files}
    for key in ("title", "preset"):
        if key in campaign:
            out[key] = campaign[key]
    return out


def _number(prefix: str, campaign: dict, key: str, default: float, **bounds) -> Any:
    """The campaign's number ``key`` (``default`` when absent), finite and in range."""
    value = campaign.get(key, default)
    problem = number_problem(value, **bounds)
    if problem is not None:
        raise ConfigError(f"{prefix}.{key}", problem,
                          f"give {range_text(**bounds)} (default {default})")
    return value


def _scoring_options(k: Kind, prefix: str, campaign: dict, options: dict) -> dict:
    """The kind's keys that only the scoring reads (:attr:`~qacamp.kinds.Kind.scoring_keys`),
    checked by the scoring's own option resolution (so a bad value stops ingest,
    naming the key) and passed on in ``options``."""
    from ..scoring.options import resolve_options

    mine = {key: campaign[key] for key in k.scoring_keys if key in campaign}
    try:
        resolve_options(k.name, {**options, **mine})
    except ConfigError as exc:
        raise ConfigError(f"{prefix}.{exc.key}", exc.problem, exc.fix) from None
    return mine


def _judgment_files(k: Kind, prefix: str, js: Any, base_dir: Path, files: dict) -> list[str]:
    if not isinstance(js, dict) or not js:
        raise ConfigError(f"{prefix}.judgment_sets", "must map judgment set names to files",
                          "e.g. judgment_sets: {adjudicated: runs/*.judged}")
    if "automatic" in js:
        raise ConfigError(f"{prefix}.judgment_sets.automatic",
                          "the name 'automatic' is reserved for pattern judging",
                          "rename the judgment set")
    files["judgment_sets"] = {}
    for set_name, spec in js.items():
        key = f"{prefix}.judgment_sets.{set_name}"
        if k.plain_part is not None and not isinstance(spec, dict):
            files["judgment_sets"][set_name] = {k.plain_part: expand_files(spec, base_dir, key)}
            continue
        parts = k.judgment_parts
        if not isinstance(spec, dict) or not set(spec) <= set(parts) or not spec:
            raise ConfigError(key, f"must map {'/'.join(parts)} to files",
                              "e.g. {" + ", ".join(f"{p}: j/*.{p}" for p in parts[:2]) + "}")
        files["judgment_sets"][set_name] = {
            part: expand_files(sub, base_dir, f"{key}.{part}") for part, sub in spec.items()}
    return list(js)


def _autojudge(k: Kind, prefix: str, campaign: dict, files: dict) -> bool:
    value = campaign.get("autojudge", False)
    if not isinstance(value, bool):
        raise ConfigError(f"{prefix}.autojudge", f"{value!r} is not true or false",
                          "write autojudge: true or autojudge: false")
    if value and not any(files.get(key) for key in k.pattern_keys):
        raise ConfigError(f"{prefix}.autojudge", "is true but no answer patterns are given",
                          f"give {' and/or '.join(k.pattern_keys)}, or remove autojudge")
    return value


def _skip(k: Kind, prefix: str, campaign: dict) -> list[str]:
    skip = campaign.get("skip", [])
    allowed = k.skippable
    if not isinstance(skip, list) or not all(isinstance(s, str) for s in skip) \
            or not set(skip) <= set(allowed) or len(set(skip)) != len(skip):
        raise ConfigError(f"{prefix}.skip", f"{skip!r} is not a list of distinct names "
                          f"from {list(allowed)}", f"e.g. skip: [{allowed[-1]}]")
    return sorted(skip)


def _judgment_codes(prefix: str, codes: Any) -> dict[str, str]:
    """Extra raw judgment codes -> canonical R W U X L (e.g. ``{"4": L}`` when a
    campaign's files mark locally correct answers with 4; no source at hand
    confirms which code NIST's 2006-2007 files use, so no preset sets one)."""
    from ..tables import JUDGMENT_CODES

    ok = isinstance(codes, dict) and all(
        isinstance(k, str | int) and not isinstance(k, bool) and str(k).strip()
        and v in JUDGMENT_CODES for k, v in codes.items())
    if not ok:
        raise ConfigError(f"{prefix}.judgment_codes", f"{codes!r} does not map raw codes to "
                          f"one of {', '.join(JUDGMENT_CODES)}",
                          'e.g. judgment_codes: {"4": L} (L = locally correct)')
    return {str(k).strip(): v for k, v in codes.items()}


def _run_format(prefix: str, value: Any) -> str:
    if value not in ("single", "ranked"):
        raise ConfigError(f"{prefix}.run_format", f"{value!r} is not single or ranked",
                          "single: one answer per question (TREC 2002 on); ranked: up to five "
                          "ranked answers per question (TREC 8-10)")
    return value


def _min_coverage(prefix: str, campaign: dict) -> float:
    value = campaign.get("min_coverage", DEFAULT_MIN_COVERAGE)
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or not math.isfinite(value) or not 0 <= value <= 1:
        raise ConfigError(f"{prefix}.min_coverage", f"{value!r} is not a number in [0, 1]",
                          f"give a share such as {DEFAULT_MIN_COVERAGE} (0 turns the "
                          "warning off)")
    return float(value)
