"""Workflow config files, read safely, and the plain-data check of a loaded config.

:func:`read_config_file` is the one reader of a config file: ``qacamp ingest
--config``, ``make run`` (``workflow/run.py``, before Snakemake starts) and
the workflow itself (``workflow/rules/common.smk`` reads every
``--configfile`` again) use it.  It refuses, as one error naming the file and
the line:

* anything but a regular file (a named pipe is never opened for reading, so
  it cannot block), and files over :data:`MAX_CONFIG_BYTES` (this bounds the
  parse time too);
* text that is not UTF-8 (a UTF-16 or UTF-32 byte-order mark is named; a
  UTF-8 one is dropped);
* a mapping that gives a key twice (YAML loaders keep the last one silently);
* YAML tags beyond plain data (``!!python/...``), and nesting too deep to parse.

:func:`check_plain` then checks the loaded data, whoever loaded it (Snakemake
loads ``--configfile`` itself): YAML aliases may share one value between
several keys, but the config's size with every alias expanded is bounded
(:data:`MAX_CONFIG_NODES`; an "alias bomb" of nine nested lists of nine
aliases is a billion values), an alias may not contain itself, every mapping
key is text (``2013:`` is a YAML integer and ``yes:`` a boolean; only the raw
codes of ``judgment_codes`` may be numbers) and every number is finite
(``.nan`` and ``.inf`` pass every JSON Schema bound, since comparisons with
NaN are false).
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from .errors import ConfigError, InputError

MAX_CONFIG_BYTES = 1024**2
"""Largest config file read (1 MiB; the demo's is 3 kB)."""
MAX_CONFIG_NODES = 100_000
"""Most values (mappings, lists and scalars) in a config, every YAML alias expanded."""
NUMBER_KEYS = ("judgment_codes",)
"""Mappings whose keys may be numbers (raw judgment codes such as ``4: L``)."""

_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
         (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))


def _loader():
    import yaml

    class StrictLoader(yaml.SafeLoader):
        """PyYAML's safe loader refusing a mapping that repeats a key."""

        def construct_mapping(self, node, deep=False):
            if isinstance(node, yaml.MappingNode):
                seen: dict[Any, int] = {}
                for key_node, _value in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":
                        continue  # `<<: *base`: its keys may be overridden
                    key = self.construct_object(key_node, deep=True)
                    try:
                        first = seen.get(key)
                    except TypeError:  # an unhashable key: the constructor says so
                        continue
                    line = key_node.start_mark.line + 1
                    if first is not None:
                        raise _Duplicate(key, line, first)
                    seen[key] = line
            return super().construct_mapping(node, deep=deep)

    return StrictLoader


class _Duplicate(Exception):
    def __init__(self, key: Any, line: int, first: int):
        super().__init__(key, line, first)
        self.key, self.line, self.first = key, line, first


def read_config_file(path: str | Path) -> Any:
    """The data of a YAML (or JSON) config file, read strictly (module docstring).
    Raises :class:`~qacamp.errors.InputError` naming the file and the line."""
    import yaml

    from .readers._text import decode, read_bytes

    path = Path(path)
    try:
        st = os.stat(path)
    except OSError as exc:
        raise InputError(path, None, f"cannot read the config file ({exc.strerror or exc})",
                         "check the path of the config file") from exc
    if st.st_size > MAX_CONFIG_BYTES:
        raise InputError(path, f"byte {MAX_CONFIG_BYTES}", f"the config file is larger than "
                         f"{MAX_CONFIG_BYTES} bytes (the limit)",
                         "check that this is the campaign config (globs keep file lists short)")
    data = read_bytes(path)  # regular files only: a named pipe is refused, never read
    if len(data) > MAX_CONFIG_BYTES:  # (a file that grew since the stat)
        raise InputError(path, f"byte {MAX_CONFIG_BYTES}", f"the config file is larger than "
                         f"{MAX_CONFIG_BYTES} bytes (the limit)", "check the config file")
    for bom, name in _BOMS:
        if data.startswith(bom):
            raise InputError(path, "byte 0", f"the config file is {name} (it starts with a "
                             f"{name} byte-order mark); Snakemake and qacamp read UTF-8 only",
                             "save the file as UTF-8")
    text = decode(data, path)
    try:
        return yaml.load(text, Loader=_loader())  # noqa: S506 - a SafeLoader subclass
    except _Duplicate as exc:
        raise InputError(path, f"line {exc.line}", f"the key {exc.key!r} appears twice in one "
                         f"mapping (first at line {exc.first}); YAML would keep the last one "
                         "silently", "give every key once (merge the two entries)") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        place = f"line {mark.line + 1}" if mark is not None else "byte 0"
        detail = " ".join(str(exc.problem or exc).split())
        raise InputError(path, place, f"not valid YAML ({detail})",
                         "fix the YAML (indent with spaces; quote values holding ': ' or '#')"
                         ) from None
    except yaml.YAMLError as exc:
        raise InputError(path, "byte 0", f"not valid YAML ({' '.join(str(exc).split())})",
                         "fix the YAML") from None
    except RecursionError:
        raise InputError(path, "byte 0", "the YAML is nested too deeply to read",
                         "check the config file (a config nests a few levels)") from None


def _dotted(path: tuple) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) and not isinstance(part, bool) else \
            (f".{part}" if out else str(part))
    return out or "<top level>"


def _key_problem(key: Any, path: tuple) -> ConfigError | None:
    if isinstance(key, str):
        return None
    if path and path[-1] in NUMBER_KEYS and isinstance(key, int) and not isinstance(key, bool):
        return None
    if isinstance(key, bool):
        return ConfigError(_dotted(path), f"the key {key!r} is a YAML boolean, not a name "
                           "(YAML reads yes, no, on, off, true and false as booleans)",
                           "quote the name, e.g. 'yes': instead of yes:")
    if isinstance(key, int | float):
        what = f"a YAML number ({type(key).__name__})"
    else:
        what = f"not text ({type(key).__name__})"
    return ConfigError(_dotted(path), f"the key {key!r} is {what}, not a name",
                       f"quote it, e.g. '{key}':")


def check_plain(config: Any) -> None:
    """Check a loaded config (module docstring): bounded size with aliases
    expanded, no alias containing itself, text keys, finite numbers.  The first
    problem is a :class:`~qacamp.errors.ConfigError` naming the key."""
    size: dict[int, int] = {}  # id(container) -> values below it, aliases expanded
    active: set[int] = set()  # containers whose values are being walked
    stack: list[tuple[Any, tuple, bool]] = [(config, (), False)]
    while stack:
        node, path, done = stack.pop()
        if not isinstance(node, dict | list):
            if isinstance(node, float) and not math.isfinite(node):
                raise ConfigError(_dotted(path), f"{node!r} is not a finite number",
                                  "give a finite number (.nan and .inf are never valid)")
            continue
        nid = id(node)
        values = list(node.values()) if isinstance(node, dict) else node
        if done:
            active.discard(nid)
            size[nid] = 1 + sum(size.get(id(v), 1) if isinstance(v, dict | list) else 1
                                for v in values)
            if size[nid] > MAX_CONFIG_NODES:
                raise ConfigError(_dotted(path), f"holds more than {MAX_CONFIG_NODES} values "
                                  "once its YAML aliases are expanded (the limit)",
                                  "write the values out, or share fewer aliases")
            continue
        if nid in size:
            continue
        if nid in active:
            raise ConfigError(_dotted(path), "a YAML alias that contains itself",
                              "remove the recursive alias")
        active.add(nid)
        stack.append((node, path, True))
        if isinstance(node, dict):
            for key, value in node.items():
                problem = _key_problem(key, path)
                if problem is not None:
                    raise problem
                stack.append((value, (*path, key), False))
        else:
            for i, value in enumerate(node):
                stack.append((value, (*path, i), False))


__all__ = ["MAX_CONFIG_BYTES", "MAX_CONFIG_NODES", "read_config_file", "check_plain"]
