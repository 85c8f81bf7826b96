"""The workflow config's keys as a reference: config/README.md.

Generated from the composed schema (:func:`qacamp.plan.config_schema`: the
file ``workflow/schemas/config.schema.yaml`` with the reliability analyses'
sections and each campaign kind's keys added from their records), so the
reference lists exactly the keys the validation accepts.  The command
``qacamp schema`` prints the same rows as a table, ``qacamp schema --markdown``
the file's text (``make docs`` writes it); a test compares the committed file
with :func:`to_markdown`.
"""

from __future__ import annotations

import re
from typing import Any

from .reliability.analyses import ANALYSES

_TYPES = {"string": "text", "integer": "integer", "number": "number", "boolean": "true/false",
          "array": "list", "object": "mapping", "null": "null"}


def _resolve(node: dict, defs: dict) -> dict:
    """``node`` with its ``$ref`` (one level, ``#/$defs/NAME``) merged in; the
    node's own keys (its description) win."""
    ref = node.get("$ref")
    if not ref:
        return node
    target = _resolve(defs[ref.rsplit("/", 1)[-1]], defs)
    return {**target, **{k: v for k, v in node.items() if k != "$ref"}}


def _code(value: Any) -> str:
    """A value as YAML writes it, in backticks."""
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    return "`null`" if value is None else f"`{value}`"


def _bounds(node: dict) -> str:
    lo = node.get("minimum", node.get("exclusiveMinimum"))
    hi = node.get("maximum", node.get("exclusiveMaximum"))
    parts = []
    if lo is not None:
        parts.append((">" if "exclusiveMinimum" in node else ">=") + f" {lo}")
    if hi is not None:
        parts.append(("<" if "exclusiveMaximum" in node else "<=") + f" {hi}")
    return ", ".join(parts)


def type_text(node: dict, defs: dict) -> str:
    """A schema node's type in words: ``integer >= 1, <= 1000``, ``one of
    `shared`, `per-pair```, ``files: a path or glob, or a list of them``."""
    node = _resolve(node, defs)
    if "enum" in node:
        values = list(dict.fromkeys(str(v) if v is not None else None for v in node["enum"]))
        return "one of " + ", ".join(_code(v) for v in values)
    if "const" in node:
        return _code(node["const"])
    if "oneOf" in node:
        options = [type_text(o, defs) for o in node["oneOf"]]
        if node.get("description", "").startswith("One path or glob"):
            return "a path or glob, or a list of them"
        return " or ".join(dict.fromkeys(options))
    kinds = node.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds] if kinds else []
    words = [_TYPES[k] for k in kinds]
    text = " or ".join(words) if words else "any"
    if "array" in kinds and "items" in node:
        text = f"list of ({type_text(node['items'], defs)})"
    if "object" in kinds and isinstance(node.get("additionalProperties"), dict):
        text = f"mapping: name -> ({type_text(node['additionalProperties'], defs)})"
    bounds = _bounds(node)
    return f"{text} {bounds}" if bounds else text


def option_help() -> dict[str, str]:
    """``section.key`` of the reliability plan -> the help text of the command
    line option the workflow passes it as, without the command's default (the
    workflow's comes from the analysis, the kind and the preset), naming the
    option: the words of a key whose schema has no description."""
    out: dict[str, str] = {}
    for a in ANALYSES.values():
        for o in a.options:
            if o.key and o.key not in out and o.help:
                words = re.sub(r"\s*\(default [^()]*\)$", "", o.help)
                out[o.key] = f"{words} (`qacamp reliability {a.name} {o.flags[0]}`)"
    return out


def _rows(prefix: str, node: dict, defs: dict, required: set[str] = frozenset()) -> list[dict]:
    """One row per key under ``node`` (an object schema), recursing into
    nested objects with fixed keys; ``prefix`` ends with a dot or is empty."""
    rows = []
    for key, child in (node.get("properties") or {}).items():
        child = _resolve(child, defs)
        if not child:  # a key a kind's branch only allows (kind, title ...): listed once
            continue
        name = prefix + key
        nested = child.get("properties")
        description = " ".join(str(child.get("description", "")).split())
        if description.startswith("One path or glob"):  # said by the type
            description = ""
        if not description and name.startswith("reliability."):
            description = option_help().get(name.removeprefix("reliability."), "")
        rows.append({"key": name, "type": "mapping" if nested else type_text(child, defs),
                     "default": "required" if key in required else
                     (_code(child["default"]) if "default" in child else ""),
                     "description": description})
        if nested:
            rows += _rows(name + ".", child, defs, set(child.get("required", ())))
        each = child.get("additionalProperties")
        if isinstance(each, dict) and key != "campaigns":  # a mapping of named entries
            for option in [_resolve(each, defs), *each.get("oneOf", ())]:
                if "properties" in option:
                    rows += _rows(name + ".<name>.", option, defs)
    return rows


def sections(schema: dict) -> list[tuple[str, str, list[dict]]]:
    """(title, text, rows) of each part of the reference: the top level, the
    ``reliability`` and ``report`` blocks, the keys of every campaign, then
    each kind's keys (from its branch of ``$defs.campaign.allOf``)."""
    defs = schema["$defs"]
    top = _rows("", {"properties": {k: v for k, v in schema["properties"].items()
                                    if k not in ("reliability", "report")}},
                defs, set(schema.get("required", ())))
    out = [("Top level", " ".join(str(schema.get("description", "")).split()), top),
           ("`reliability`", "The top-level block applies to every campaign, a campaign's "
            "own block (`campaigns.<name>.reliability`) to that campaign; layered over the "
            "analyses' and the kind's defaults and the campaign's preset (docs/presets.md; "
            "docs/reliability.md, \"Settings\"), so a key without a default here takes it "
            "from those.  "
            + " ".join(str(defs["reliability"].get("description", "")).split()),
            _rows("reliability.", defs["reliability"], defs)),
           ("`report`", " ".join(str(defs["report"].get("description", "")).split()),
            _rows("report.", defs["report"], defs))]
    campaign = defs["campaign"]
    every = {k: v for k, v in campaign["properties"].items() if k not in ("reliability", "report")}
    out.append(("Every campaign (`campaigns.<name>`)",
                "Keys every kind allows; `reliability` and `report` as above.  "
                + " ".join(str(schema["properties"]["campaigns"].get("description", "")).split()),
                _rows("", {"properties": every}, defs, set(campaign.get("required", ())))))
    for branch in campaign.get("allOf", ()):
        kind = branch["if"]["properties"]["kind"]["const"]
        then = branch["then"]
        out.append((f"`kind: {kind}`", f"Keys of a `{kind}` campaign besides those of every "
                    "campaign; any other key is refused.",
                    _rows("", then, defs, set(then.get("required", ())) - {"kind"})))
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(schema: dict) -> str:
    """config/README.md (generated; do not edit by hand)."""
    out = ["# Config keys", "",
           "Generated from the config schema (`qacamp.plan.config_schema`: "
           "`workflow/schemas/config.schema.yaml` with the reliability analyses' sections and "
           "each campaign kind's keys from their records) by `qacamp schema --markdown` "
           "(`make docs`); do not edit by hand.  `config/config.yaml` is "
           "the demo's config; the README's minimal config is a smaller start.  The workflow "
           "validates a config against this schema before anything runs: an unknown key or a "
           "bad value stops it with one line naming the key.", ""]
    for title, text, rows in sections(schema):
        out += [f"## {title}", ""]
        if text:
            out += [text, ""]
        out += ["| key | type | default | description |", "|---|---|---|---|"]
        out += [f"| `{r['key']}` | {_cell(r['type'])} | {_cell(r['default'])} | "
                f"{_cell(r['description'])} |" for r in rows]
        out.append("")
    return "\n".join(out).rstrip("\n")
