"""Numbers that come from users (command-line options, config values, shard
files): finite, in range, and within what memory allows.

One place for every entry point, so ``qacamp eval``, ``qacamp reliability``,
``qacamp ingest`` and the workflow's config validation refuse a value alike:
:func:`number_problem` says why a value is not acceptable (the caller wraps
it in a :class:`~qacamp.errors.UsageError` naming the option or a
:class:`~qacamp.errors.ConfigError` naming the key), :func:`check_option`
raises the usage error itself, and :func:`check_memory` refuses a job whose
arrays would not fit in this machine's memory before it allocates them.

JSON Schema cannot say "finite": every comparison with NaN is false, so
``minimum: 0`` lets ``.nan`` through; the config validation therefore refuses
non-finite numbers anywhere (:func:`qacamp.configfile.check_plain`) before
the schema's ranges apply.  Imports nothing heavy.
"""

from __future__ import annotations

import math
import os

from .errors import UsageError

MAX_GRID_POINTS = 1000
"""Most values a number grid (``--fuzz lo:hi:step``, ``--thresholds``) may hold."""
MAX_BINS = 10_000
"""Most difference bins of the swap method (the papers use 21)."""
MAX_SHARDS = 1000
"""Most shards of a campaign's resampling (the config's ``shards``): one job
each for Snakemake to plan and run; the workflow schema has the same maximum."""
MAX_SEED = 2**63 - 1
"""The largest seed (resampling analyses, simulations, QA4MRE's random
baseline): the shards record their seed as a 64-bit integer."""
SEED_BOUNDS = {"lo": 0, "hi": MAX_SEED, "integer": True}
"""A seed's range, for :func:`check_option` and :func:`number_problem`."""
DEFAULT_MEMORY = 8 * 1024**3
"""Memory assumed when the machine's cannot be read (8 GiB)."""


def memory_limit() -> int:
    """Bytes a job may plan to hold: this machine's physical memory, or
    ``QACAMP_MEMORY_LIMIT`` (bytes) when set."""
    env = os.environ.get("QACAMP_MEMORY_LIMIT", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):  # pragma: no cover - not Linux
        return DEFAULT_MEMORY


def _gb(nbytes: float) -> str:
    return f"{nbytes / 1024**3:,.1f} GiB"


def check_memory(what: str, nbytes: float, fix: str) -> None:
    """Refuse a job whose arrays (``nbytes``, an estimate) would not fit in memory."""
    limit = memory_limit()
    if nbytes > limit:
        raise UsageError(f"{what} would need about {_gb(nbytes)} of memory, more than the "
                         f"{_gb(limit)} this machine has (the limit). Fix: {fix}")


def range_text(lo: float | None = None, hi: float | None = None, lo_open: bool = False,
               hi_open: bool = False, integer: bool = False) -> str:
    """``a finite number in (0, 1)``, ``an integer >= 1`` ..."""
    what = "an integer" if integer else "a finite number"

    def text(bound: float) -> str:  # (an integer bound in full: 9223372036854775807)
        return str(bound) if isinstance(bound, int) else f"{bound:g}"
    if lo is not None and hi is not None:
        return f"{what} in {'(' if lo_open else '['}{text(lo)}, {text(hi)}{')' if hi_open else ']'}"
    if lo is not None:
        return f"{what} {'>' if lo_open else '>='} {text(lo)}"
    if hi is not None:
        return f"{what} {'<' if hi_open else '<='} {text(hi)}"
    return what


def number_problem(value: object, lo: float | None = None, hi: float | None = None,
                   lo_open: bool = False, hi_open: bool = False,
                   integer: bool = False) -> str | None:
    """Why ``value`` is not a finite number (an integer with ``integer``) in the
    range, as ``"nan is not a finite number > 0"``; None when it is."""
    want = range_text(lo, hi, lo_open, hi_open, integer)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"{value!r} is not {want}"
    if integer and not isinstance(value, int):
        return f"{value!r} is not {want}"
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value!r} is not {want}"
    if lo is not None and (value < lo or (lo_open and value == lo)):
        return f"{value!r} is not {want}"
    if hi is not None and (value > hi or (hi_open and value == hi)):
        return f"{value!r} is not {want}"
    return None


def check_option(option: str, value: object, lo: float | None = None, hi: float | None = None,
                 lo_open: bool = False, hi_open: bool = False, integer: bool = False) -> None:
    """Raise a :class:`UsageError` naming ``option`` when ``value`` is out of range."""
    problem = number_problem(value, lo, hi, lo_open, hi_open, integer)
    if problem is not None:
        raise UsageError(f"{option}: {problem}")


def _grid_number(text: str, what: str) -> float:
    value = float(text)  # ValueError: not a number
    if not math.isfinite(value) or value < 0:
        raise UsageError(f"{what}: {text.strip()!r} is not a finite number >= 0")
    return value


def parse_grid(spec: str, what: str | None = None,
               max_points: int = MAX_GRID_POINTS) -> list[float]:
    """A grid of numbers >= 0: ``lo:hi:step`` (inclusive, each value rounded to
    10 decimals) or a comma list; at most ``max_points`` values (counted before
    the list is built, so ``0:1:0.0000001`` costs nothing)."""
    what = what or f"grid {spec!r}"
    s = str(spec).strip()
    try:
        if ":" in s:
            parts = s.split(":")
            if len(parts) != 3:
                raise ValueError
            lo, hi, step = (_grid_number(x, what) for x in parts)
            if step <= 0 or hi < lo:
                raise ValueError
            ratio = (hi - lo) / step + 1e-9
            n = math.floor(ratio) + 1 if math.isfinite(ratio) else math.inf
            if n > max_points:
                count = f"{n:,}" if n < 10**15 else f"about {float(n):.1e}"
                raise UsageError(f"{what}: {count} values, more than {max_points} (the limit); "
                                 "use a larger step")
            values = [round(lo + k * step, 10) for k in range(n)]
        else:
            values = [_grid_number(x, what) for x in s.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"{what}: expected lo:hi:step (inclusive, step > 0) or a comma list "
                         "of numbers >= 0") from None
    if not values:
        raise UsageError(f"{what}: no values")
    if len(values) > max_points:
        raise UsageError(f"{what}: {len(values):,} values, more than {max_points} (the limit)")
    return values


__all__ = ["parse_grid", "MAX_GRID_POINTS", "MAX_BINS", "MAX_SEED", "MAX_SHARDS", "SEED_BOUNDS",
           "memory_limit", "check_memory",
           "range_text", "number_problem", "check_option"]
