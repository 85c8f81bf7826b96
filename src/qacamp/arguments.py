"""Python values given for command-line options: the notebook API's arguments
checked by the same option specs (``argparse``'s keywords) as the command line.

The command line gets text, which ``argparse`` converts (``type=int``) and
:func:`qacamp.bounds.check_option` bounds; a Python call gets objects, which
:func:`python_value` turns into what ``argparse`` would have produced, or
refuses with the command line's message (``--trials: 2.5 is not an integer
>= 1``).  Types are exact: a float is never truncated to an integer (``2.5``,
``2.9999``), a bool is no number (``True`` is not 1), a text is no bool
(``"no"`` is not false) and nothing else is text; numpy's integers and floats
count as Python's.  Ranges are those of the option's ``bounds`` (the same
:func:`~qacamp.bounds.number_problem` as the command line's check).

Imports nothing heavy (no numpy: numbers are recognised by :mod:`numbers`).
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Mapping
from typing import Any

from .bounds import number_problem
from .errors import UsageError


def is_path(value: object) -> bool:
    """Text or a path object (``pathlib.Path``, ``os.PathLike``)."""
    return isinstance(value, str | os.PathLike)


def _bool(value: object) -> bool | None:
    """``value`` as a bool when it is one (Python's or numpy's), else None."""
    if isinstance(value, bool):
        return value
    if type(value).__name__ == "bool_" and type(value).__module__ == "numpy":
        return bool(value)
    return None


def number(name: str, value: object, integer: bool = False,
           bounds: Mapping[str, Any] | None = None) -> int | float:
    """``value`` as the number the option takes (an integer with ``integer``),
    within ``bounds`` (:func:`qacamp.bounds.number_problem`'s keywords); without
    ``bounds`` its type only, as ``argparse``'s ``int``/``float`` (a range
    checked later, by the config schema, gives its own message there)."""
    if bounds is None:
        ok = _bool(value) is None and isinstance(value, numbers.Integral if integer
                                                 else numbers.Real)
        if not ok:
            raise UsageError(f"{name}: {value!r} is not {'an integer' if integer else 'a number'}")
        if integer:
            return int(value)  # type: ignore[arg-type]
        try:
            return float(value)  # type: ignore[arg-type]
        except OverflowError:  # an int beyond the float range, as float("1e400")
            return float("inf") if value > 0 else float("-inf")  # type: ignore[operator]
    b = dict(bounds)
    b["integer"] = integer or b.get("integer", False)
    if _bool(value) is None and isinstance(value, numbers.Real):
        if isinstance(value, numbers.Integral):
            value = int(value)  # numpy's integers too
        if not b["integer"]:  # as argparse's float(): 3 is 3.0
            try:
                value = float(value)
            except OverflowError:  # an int beyond the float range
                value = float("inf") if value > 0 else float("-inf")
    problem = number_problem(value, **b)
    if problem is not None:
        raise UsageError(f"{name}: {problem}")
    return value


def flag(name: str, value: object) -> bool:
    """A yes/no option (``action="store_true"``): True or False, nothing else."""
    b = _bool(value)
    if b is None:
        raise UsageError(f"{name}: {value!r} is not True or False")
    return b


def text(name: str, value: object, paths: bool = False) -> str:
    """A text option (a path too with ``paths``: ``pathlib.Path`` is taken)."""
    if paths and isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        what = "text or a path" if paths else "text"
        raise UsageError(f"{name}: {value!r} is not {what}")
    return value


def listed(name: str, value: object) -> list:
    """The values of a repeatable option: a list or tuple (a lone text is
    refused: it would be read as its characters)."""
    if isinstance(value, str | bytes) or not isinstance(value, list | tuple):
        example = f"[{value!r}]" if isinstance(value, str) else "['...']"
        raise UsageError(f"{name}: {value!r} is not a list (give a list, e.g. {example})")
    return list(value)


def python_value(name: str, spec: Mapping[str, Any], value: object,
                 bounds: Mapping[str, Any] | None = None, paths: bool = False) -> Any:
    """``value`` given from Python for the option ``name`` (as the command line
    names it: ``--trials``) whose ``argparse`` keywords are ``spec``: the value
    ``argparse`` would have made of its text, checked against ``bounds``.
    ``paths``: a text option naming a file takes a path object too."""
    action = spec.get("action")
    if action == "store_true":
        return flag(name, value)
    if action == "append" or spec.get("nargs") in ("+", "*"):
        items = listed(name, value)
        if spec.get("nargs") == "+" and not items:
            raise UsageError(f"{name}: give at least one value")
        return [single(f"{name}[{i}]", spec, v, bounds, paths) for i, v in enumerate(items)]
    return single(name, spec, value, bounds, paths)


def single(name: str, spec: Mapping[str, Any], value: object,
           bounds: Mapping[str, Any] | None = None, paths: bool = False) -> Any:
    """One value of an option (see :func:`python_value`)."""
    kind = spec.get("type")
    if kind is int or kind is float:
        value = number(name, value, kind is int, bounds)
    elif kind is None:
        value = text(name, value, paths)
    else:  # a converter of the command line's text
        value = kind(text(name, value))
    choices = spec.get("choices")
    if choices is not None and value not in list(choices):
        raise UsageError(f"{name}: {value!r} is not one of "
                         f"{', '.join(str(c) for c in choices)}")
    return value


__all__ = ["python_value", "single", "number", "flag", "text", "listed", "is_path"]
