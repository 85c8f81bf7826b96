"""The reliability analyses, one record each (:class:`.record.Analysis`).

Everything that differs between analyses is in its record; everything else
is derived from the records:

- the command line ``qacamp reliability ANALYSIS`` (:mod:`qacamp.cli.reliability`:
  one generic run over a record: check the options, claim the outputs, load
  the inputs, run the kernel, write the frames) and ``qacamp reliability merge
  --kind ANALYSIS`` for the analyses run in shards;
- what the loader reads (:mod:`qacamp.loader`);
- the workflow's jobs, their command lines and targets (``workflow/rules``:
  :func:`settings_words`, :func:`campaign_files`);
- the declared schema of every intermediate by its place in a campaign
  folder (:func:`declared_schema`, which callers pass to
  :func:`qacamp.io.read_parquet`).

Adding an analysis: a record module here (options, outputs, ``run``), its
kernel module in :mod:`qacamp.reliability`, its name in :data:`ANALYSES`, a
report section (:mod:`qacamp.report.sections`) and tests.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from ...registry import Registry
from ...scoring.frames import OUT_SCHEMAS
from ...tables import SCHEMAS
from ..shards import ID_SCHEMA
from . import bootstrap, design, extras, fit, kendall, significance, stability, swap
from .record import Analysis

#: name -> analysis, in the order of the command line's help and the workflow's targets
ANALYSES: Registry[Analysis] = Registry("reliability analysis", (
    m.ANALYSIS for m in (swap, fit, stability, bootstrap, significance, kendall, extras,
                         design)),
    plural="reliability analyses")


def workflow_analyses(per: str) -> list[Analysis]:
    """The analyses the workflow runs once per campaign and ``per`` ("measure",
    "campaign")."""
    return [a for a in ANALYSES.values() if a.per == per]


def merged_analyses() -> list[Analysis]:
    """The analyses whose shards ``qacamp reliability merge`` sums."""
    return [a for a in ANALYSES.values() if a.merge is not None]


def campaign_files(plan: dict) -> dict[str, list[str]]:
    """per ("measure", "campaign") -> the names of the files the workflow's
    analyses write into a campaign's ``reliability/`` folder for ``plan``."""
    out: dict[str, list[str]] = {}
    for per in ("measure", "campaign"):
        files = []
        for a in workflow_analyses(per):
            files += a.files_for(None)
            files += [f for m in plan["measures"] for f in a.files_for(m)]
        out[per] = files
    return out


def plan_value(plan: dict, key: str):
    """``plan["swap"]["trials"]`` for the key ``swap.trials``."""
    value = plan
    for part in key.split("."):
        value = (value or {}).get(part)
    return value


def settings_words(analysis: Analysis, plan: dict, config_prefix: str,
                   configured: Callable[[str, str], bool]) -> list[str]:
    """The options the workflow passes to ``analysis`` for ``plan``: every
    option with a plan key whose value is set (and whose ``when`` holds), the
    config prefix errors name, and ``--fit-to-collection`` when a size the
    collection must hold is the kind's default (``configured(section, key)``
    false)."""
    words: list[str] = []
    names = {o.dest for o in analysis.options}
    for o in analysis.options:
        if o.key is None or (o.when is not None and not o.when(plan)):
            continue
        value = plan_value(plan, o.key)
        if value is None or value is False:
            continue
        words += [o.flags[0]] if value is True else [o.flags[0], str(value)]
        if o.fitted and not configured(*o.key.split(".")):
            words.append("--fit-to-collection")
    if "config_prefix" in names:
        words += ["--config-prefix", config_prefix]
    return words


def _regex(file: str) -> str:
    return "(.+)".join(re.escape(part) for part in file.split("{measure}"))


#: (pattern, schema) of the files in ``reliability/``, the longest fixed text first
#: (``swap_{measure}_fits`` before ``swap_{measure}``)
_RELIABILITY = sorted(((re.compile(_regex(o.file)), o.schema, len(o.file)) for a in ANALYSES.values()
                       for o in a.outputs if o.file is not None), key=lambda t: -t[2])
_SHARDS = [(re.compile(_regex(f"{a.name}_{{measure}}.") + r"\d+\.parquet"), a.shard_schema)
           for a in merged_analyses()]


def declared_schema(path: str | Path) -> dict | None:
    """name -> polars dtype of the intermediate at ``path``, by its place in a
    campaign folder: ``ingest/<table>.parquet`` (:data:`qacamp.tables.SCHEMAS`),
    ``scores/<name>.parquet`` (:data:`qacamp.scoring.frames.OUT_SCHEMAS`),
    ``reliability/<file>`` (the analysis records' outputs) and
    ``reliability/shards/<file>`` (a shard's counts and identity); None for
    any other file."""
    p = Path(path)
    if p.suffix != ".parquet":
        return None
    folder = p.parent.name
    if folder == "ingest":
        return SCHEMAS.get(p.stem)
    if folder == "scores":
        return OUT_SCHEMAS.get(p.stem)
    if folder == "reliability":
        return next((dict(schema) for pattern, schema, _ in _RELIABILITY
                     if pattern.fullmatch(p.name)), None)
    if folder == "shards" and p.parent.parent.name == "reliability":
        return next(({**schema, **ID_SCHEMA} for pattern, schema in _SHARDS
                     if pattern.fullmatch(p.name)), None)
    return None


__all__ = ["ANALYSES", "Analysis", "workflow_analyses", "merged_analyses", "campaign_files",
           "plan_value", "settings_words", "declared_schema"]
