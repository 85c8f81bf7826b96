"""Helpers shared by the campaign writers: run names, output folders, progress."""

from __future__ import annotations

import string
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from ..errors import UsageError
from ..progress import Progress
from . import text
from .model import ModelParams, Runs, evidence, rng


def run_names(seed: int, kind: str, runs: Runs,
              fmt: Callable[[str, int], str], max_len: int = 7) -> list[str]:
    """One name per run: ``fmt(team_name, run_in_team)``; names are unique."""
    teams = text.team_names(rng(seed, kind, "team-names"), int(runs.team.max()) + 1, max_len)
    names = [fmt(teams[t], int(i)) for t, i in zip(runs.team, runs.run_in_team, strict=True)]
    if len(set(names)) != len(names):  # pragma: no cover - names are unique by construction
        raise AssertionError("duplicate run names")
    return names


def letter(i: int) -> str:
    return string.ascii_lowercase[i % 26]


def check_positive(name: str, value: int, minimum: int = 1) -> int:
    if value < minimum:
        raise UsageError(f"--{name} must be at least {minimum} (got {value})")
    return int(value)


def progress(label: str, total: int, quiet: bool) -> Progress:
    """Progress on stderr (every 2 s) unless ``quiet``."""
    return Progress(label, total, every=2.0, enabled=not quiet)


def clear_stale(folder: Path, keep: set[Path], patterns: tuple[str, ...]) -> None:
    """Delete files under ``folder`` matching ``patterns`` that this simulation
    did not write (stale runs of an earlier, larger simulation), each only if
    its bytes are as qacamp recorded them (a user's file is never deleted).
    Under ``qacamp simulate`` (a :func:`qacamp.io.writing` block) nothing is
    deleted here: the block removes the files its step wrote before and not
    this time, by the same rule."""
    from ..io import active
    from ..io.records import record_of, remove_owned

    if not folder.is_dir() or active() is not None:
        return
    for pat in patterns:
        for p in sorted(folder.rglob(pat)):
            found = None if p in keep else record_of(p)
            if found is not None:
                remove_owned(p, *found)


def each_run(label: str, seed: int, kind: str, runs: Runs, difficulty: np.ndarray,
             params: ModelParams, quiet: bool, folder: Path, patterns: tuple[str, ...],
             write_run: Callable[[int, np.random.Generator, np.ndarray], Iterable[Path]],
             stream: str = "run") -> set[Path]:
    """The run loop every simulator shares: for each run ``r`` its own generator
    (stream ``(kind, stream, r)``) and latent evidence on every question
    (:func:`.model.evidence`) go to ``write_run(r, g, z)``, which writes the
    run's files and returns their paths; progress on stderr unless ``quiet``;
    then the stale files of an earlier, larger simulation under ``folder``
    (matching ``patterns``) are removed (:func:`clear_stale`).  Returns the
    paths written."""
    written: set[Path] = set()
    prog = progress(label, runs.n, quiet)
    for r in range(runs.n):
        g = rng(seed, kind, stream, r)
        z = evidence(seed, kind, runs, r, difficulty, params)
        written.update(write_run(r, g, z))
        prog.update(r + 1)
    clear_stale(folder, written, patterns)
    return written


def stream(seed: int, *parts: str | int) -> np.random.Generator:
    """Alias of :func:`qacamp.simulate.model.rng`."""
    return rng(seed, *parts)
