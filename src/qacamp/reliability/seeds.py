"""Seeding and sharding of resampling trials.

Every trial of every resampling analysis draws its randomness from
``numpy.random.SeedSequence([analysis_seed, stable_hash(measure), size, trial])``
(docs/reliability.md, "Randomness"): the seed never depends on the shard, so
merging the counts of any number of shards gives identical results.
``stable_hash`` is CRC-32 of the UTF-8 name (Python's ``hash`` is salted per
process and must not be used).
"""

from __future__ import annotations

import math
import zlib

import numpy as np

from ..errors import UsageError


def stable_hash(name: str) -> int:
    """CRC-32 of the UTF-8 encoding of ``name`` (stable across processes)."""
    return zlib.crc32(str(name).encode("utf-8"))


def trial_seed(seed: int, measure: str, size: int, trial: int) -> np.random.SeedSequence:
    """The seed sequence of one trial: ``[seed, stable_hash(measure), size, trial]``."""
    if seed < 0 or size < 0 or trial < 0:
        raise UsageError(f"seed, size and trial must be >= 0 (got {seed}, {size}, {trial})")
    return np.random.SeedSequence([int(seed), stable_hash(measure), int(size), int(trial)])


def trial_rng(seed: int, measure: str, size: int, trial: int) -> np.random.Generator:
    """A PCG64 generator for one trial."""
    return np.random.Generator(np.random.PCG64(trial_seed(seed, measure, size, trial)))


def shard_trials(trials: int, shard: int = 0, n_shards: int = 1,
                 mode: str = "contiguous") -> np.ndarray:
    """Trial indices handled by ``shard`` (0-based) of ``n_shards``.

    ``mode="contiguous"`` gives the ``shard``-th of ``n_shards`` near-equal
    contiguous blocks of ``range(trials)``; ``mode="strided"`` gives
    ``range(shard, trials, n_shards)``.  The union over all shards is
    ``range(trials)`` and the shards are disjoint.
    """
    if trials < 0:
        raise UsageError(f"trials must be >= 0 (got {trials})")
    if n_shards < 1 or not 0 <= shard < n_shards:
        raise UsageError(f"shard must satisfy 0 <= shard < n_shards (got {shard}/{n_shards})")
    if mode == "strided":
        return np.arange(shard, trials, n_shards, dtype=np.int64)
    if mode != "contiguous":
        raise UsageError(f"unknown shard mode {mode!r}; use 'contiguous' or 'strided'")
    lo = (trials * shard) // n_shards
    hi = (trials * (shard + 1)) // n_shards
    return np.arange(lo, hi, dtype=np.int64)


def parse_shard(spec: str | None) -> tuple[int, int]:
    """Parse ``"I/N"`` (0-based shard I of N shards); ``None`` means ``(0, 1)``."""
    if spec is None:
        return 0, 1
    try:
        i, n = (int(x) for x in str(spec).split("/"))
    except ValueError:
        raise UsageError(f"--shard {spec!r}: expected I/N with integers, e.g. 0/4") from None
    if n < 1 or not 0 <= i < n:
        raise UsageError(f"--shard {spec!r}: need 0 <= I < N (shards are numbered from 0)")
    return i, n


def parse_sizes(spec: str, n_units: int | None = None, subsets: int = 2) -> list[int]:
    """Parse subset sizes: ``"a:b"`` or ``"a:b:step"`` (inclusive), ``"a,b,c"`` or
    ``"a"``.  ``b`` may be ``half``, the largest size the collection allows
    (``n_units // subsets``: two disjoint subsets for the swap method), and a
    lone ``half`` is that size; ``step`` may be ``auto``, about 25 sizes from
    ``a`` to ``b``, both included (step ``ceil((b - a) / 24)``, then ``b``).
    ``half`` needs ``n_units``."""
    s = str(spec).strip()
    if "half" in s and n_units is None:
        raise UsageError(f"sizes {spec!r}: 'half' needs the collection size")
    half = (n_units // subsets) if n_units is not None else 0
    try:
        if s == "half":
            out = [half]
        elif ":" in s:
            parts = s.split(":")
            if len(parts) not in (2, 3):
                raise ValueError
            a = int(parts[0])
            b = half if parts[1] == "half" else int(parts[1])
            auto = len(parts) == 3 and parts[2] == "auto"
            if auto:
                step = max(1, math.ceil((b - a) / 24))
            else:
                step = int(parts[2]) if len(parts) == 3 else 1
            if step < 1 or b < a:
                raise ValueError
            _check_stop(spec, b, n_units, subsets, (b - a) // step + 1)
            out = list(range(a, b + 1, step))
            if auto and out[-1] != b:  # auto steps end at the stop size itself
                out.append(b)
        else:
            out = [int(x) for x in s.split(",") if x.strip()]
            _check_stop(spec, max(out, default=0), n_units, subsets, len(out))
    except ValueError:
        raise UsageError(f"sizes {spec!r}: expected a:b, a:b:step (inclusive, step >= 1 or "
                         "auto; b may be half) or a comma list of integers"
                         + (f"; this collection allows sizes up to {half}" if n_units else "")
                         ) from None
    if not out or min(out) < 1:
        raise UsageError(f"sizes {spec!r}: sizes must be >= 1")
    return out


MAX_SIZES = 1_000_000
"""Most subset sizes one spec may list when the collection size is not known."""


def _check_stop(spec: str, stop: int, n_units: int | None, subsets: int, count: int) -> None:
    """Refuse a size the collection cannot hold (or, without a collection, more
    than :data:`MAX_SIZES` sizes) before the list is built."""
    if n_units is not None and stop > n_units // subsets:
        raise UsageError(f"subset size {stop} is impossible: {subsets} disjoint subsets need "
                         f"{subsets * stop} units but the matrix has {n_units} (largest "
                         f"possible size: {n_units // subsets})")
    if count > MAX_SIZES:
        raise UsageError(f"sizes {spec!r}: {count:,} sizes, more than {MAX_SIZES} (the limit)")


def fit_sizes(spec: str, n_units: int, subsets: int = 2) -> tuple[list[int], str | None]:
    """The sizes of a *default* spec (one the campaign did not configure) that
    the collection holds: the spec itself when it fits, else ``1:half:auto``
    (about 25 sizes up to the largest possible one; with one subset, the
    stability analysis, half the collection), with a note saying so.
    A collection too small for ``subsets`` disjoint subsets of one unit is an error."""
    half = n_units // subsets
    if half < 1:
        raise UsageError(f"the collection has {n_units} units: too few for {subsets} disjoint "
                         "subsets of one unit")
    try:
        sizes = [parse_size(spec, n_units)] if subsets == 1 else \
            parse_sizes(spec, n_units, subsets)
        if max(sizes) <= half:
            return sizes, None
    except UsageError:
        pass
    # (one subset, the stability analysis: half the collection, its default)
    sizes = [max(1, n_units // 2)] if subsets == 1 else parse_sizes("1:half:auto", n_units,
                                                                     subsets)
    span = f"{sizes[0]}-{sizes[-1]}" if len(sizes) > 1 else str(sizes[0])
    return sizes, (f"the collection has only {n_units} units, too few for the default sizes "
                   f"{spec!r} (largest possible size {half}): using sizes {span} instead; "
                   "results on subsets this small are weak evidence")


def parse_size(spec: str | int, n_units: int | None = None, subsets: int = 1) -> int:
    """One subset size: an integer, or ``half`` (``n_units // 2``)."""
    sizes = parse_sizes(str(spec), n_units, 2 if str(spec).strip() == "half" else subsets)
    if len(sizes) != 1:
        raise UsageError(f"size {spec!r}: give one integer or 'half'")
    return sizes[0]
