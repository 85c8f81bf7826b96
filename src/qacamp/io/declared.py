"""The declared schema of every intermediate, by its place in a campaign folder.

``<campaign>/ingest/<table>.parquet`` has the schema of
:data:`qacamp.tables.SCHEMAS`, ``scores/<name>.parquet`` that of
:data:`qacamp.scoring.frames.OUT_SCHEMAS`, and each file of ``reliability/``
(and its ``shards/``) the schema its analysis declares.  Readers that know
which file they read pass its schema to :func:`qacamp.io.read_parquet`;
readers of a whole folder (the report) look it up here.  The modules that
declare them are imported only when asked.
"""

from __future__ import annotations

import re
from pathlib import Path

_RELIABILITY = [
    (re.compile(r"swap_.+_fits"), "fits", "FIT_SCHEMA"),
    (re.compile(r"swap_.+_summary"), "fits", "SUMMARY_SCHEMA"),
    (re.compile(r"swap_.+"), "swap", "SWAP_SCHEMA"),
    (re.compile(r"stability_.+"), "stability", "SUMMARY_SCHEMA"),
    (re.compile(r"bootstrap_.+_summary"), "bootstrap", "SUMMARY_SCHEMA"),
    (re.compile(r"bootstrap_.+"), "bootstrap", "PAIR_SCHEMA"),
    (re.compile(r"significance_.+_summary"), "significance", "SUMMARY_SCHEMA"),
    (re.compile(r"significance_.+"), "significance", "PAIR_SCHEMA"),
    (re.compile(r"kendall"), "ranking", "TAU_SCHEMA"),
    (re.compile(r"ranking_swaps"), "extras", "SWAPS_SCHEMA"),
    (re.compile(r"agreement"), "extras", "AGREEMENT_SCHEMA"),
    (re.compile(r"distributions(_.+)?"), "extras", "DISTRIBUTION_SCHEMA"),
    (re.compile(r"boxplot"), "extras", "BOXPLOT_SCHEMA"),
    (re.compile(r"equivalence(_.+)?"), "extras", "EQUIVALENCE_SCHEMA"),
]
_SHARDS = [
    (re.compile(r"swap_.+\.\d+"), "swap", "SWAP_SCHEMA"),
    (re.compile(r"stability_.+\.\d+"), "stability", "COUNT_SCHEMA"),
    (re.compile(r"bootstrap_.+\.\d+"), "bootstrap", "COUNT_SCHEMA"),
    (re.compile(r"significance_.+\.\d+"), "significance", "COUNT_SCHEMA"),
]


def declared_schema(path: str | Path) -> dict | None:
    """name -> polars dtype of the intermediate at ``path``; None for a file
    that is not one of a campaign folder's intermediates."""
    import importlib

    p = Path(path)
    if p.suffix != ".parquet":
        return None
    stem, folder = p.stem, p.parent.name
    if folder == "ingest":
        from ..tables import SCHEMAS

        return SCHEMAS.get(stem)
    if folder == "scores":
        from ..scoring.frames import OUT_SCHEMAS

        return OUT_SCHEMAS.get(stem)
    shard = folder == "shards" and p.parent.parent.name == "reliability"
    table = _RELIABILITY if folder == "reliability" else _SHARDS if shard else []
    for pattern, module, name in table:
        if pattern.fullmatch(stem):
            schema = getattr(importlib.import_module(f"qacamp.reliability.{module}"), name)
            if shard:  # a shard carries its identity besides the counts
                from ..reliability.shards import ID_SCHEMA

                schema = {**schema, **ID_SCHEMA}
            return schema
    return None


__all__ = ["declared_schema"]
