"""Campaign configuration: the raw files a campaign names, its primary
judgment set, and the one-line errors of a config checked against a JSON
schema (:func:`schema_error`).  The reliability plan and the validation of a
workflow config are :mod:`qacamp.plan`'s.  It imports nothing heavy.
"""

from __future__ import annotations

import copy
import difflib
import glob
from pathlib import Path
from typing import Any

from .errors import ConfigError
from .kinds import KINDS


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
    return KINDS.lookup(kind).judgment_set


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
        raise ConfigError(key, f"{short(spec)} is not a path or a list of paths",
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


def short(value: Any, limit: int = 80) -> str:
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
        close = difflib.get_close_matches(name, allowed, n=1) if unknown else []
        return key, f"unknown key {name!r}", \
            (f"did you mean {close[0]!r}? " if close else "") + "allowed here: " + ", ".join(allowed)
    if kind == "required" and isinstance(inst, dict):
        missing = [k for k in value if k not in inst]
        return key, f"missing required key {missing[0]!r}" if missing else error.message, \
            f"add '{missing[0] if missing else ''}:'"
    if kind == "propertyNames":
        return key, f"name {short(inst)} is not allowed", "use letters, digits, _ and - only " \
            "(and not a reserved name)"
    if kind == "not":
        return key, f"{short(inst)} is reserved", "choose another name"
    if kind == "pattern":
        hint = " ".join(str(error.schema.get("description") or f"match {value}").split())
        return key, f"{short(inst)} is not allowed", hint
    if kind == "enum":
        return key, f"{short(inst)} is not allowed", "use one of " + ", ".join(map(str, value))
    if kind == "type":
        return key, f"{short(inst)} is not of type {value}", "see the key's description in " \
            "workflow/schemas/config.schema.yaml"
    if kind == "oneOf" and error.schema.get("description"):
        return key, f"{short(inst)} is not allowed", error.schema["description"]
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


def schema_error(config: dict, schema: dict) -> ConfigError | None:
    """The first problem of ``config`` against ``schema`` (filling the schema's
    defaults in place) as a :class:`ConfigError` naming the key; None when valid."""
    from jsonschema.exceptions import best_match

    errors = list(_validator(schema).iter_errors(config))
    # a misspelt key is named before the required key it was meant to be
    unknown = [e for e in errors if e.validator == "additionalProperties"]
    error = best_match(unknown or errors)
    return None if error is None else ConfigError(*_describe(error))
