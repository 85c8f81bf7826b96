"""PAN-authorship-verification-like campaign (kind ``pan``, small).

Writes::

    OUT/truth.jsonl               {"id": ..., "same": true|false}
    OUT/runs/<run>/answers.jsonl  {"id": ..., "value": float}

Model (see :mod:`qacamp.simulate.model`): a run is right on a problem when its
evidence is positive; an answered value is ``0.5 +/- U(0.02, 0.5)`` on the side
of its decision (rounded to 3 decimals, never exactly 0.5); it answers exactly
0.5 (no answer) on the share ``u_r`` of problems with its lowest confidence.
Run 2 (0-based 1) omits a few ids; run 3 wraps every value in a one-element list
(as some real submissions did).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ._files import write_lines
from .common import check_positive, each_run, run_names
from .model import (
    ModelParams,
    confidence,
    draw_difficulty,
    draw_runs,
    lowest_share,
    rng,
)

KIND = "pan"


@dataclass(frozen=True)
class Options:
    """Campaign size."""

    questions: int = 100
    runs: int = 5
    missing: int = 4


def simulate(out: str | Path, seed: int = 2015, opts: Options | None = None,
             params: ModelParams | None = None, quiet: bool = False) -> dict[str, int]:
    """Write the campaign to ``out``; return counts."""
    opts = opts or Options()
    params = params or ModelParams(ability_mean=0.5, ability_sd=0.6, difficulty_sd=1.0)
    n = check_positive("questions", opts.questions)
    n_runs = check_positive("runs", opts.runs)
    out = Path(out)
    g = rng(seed, KIND, "truth")
    ids = [f"{int(x):016x}" for x in g.integers(0, 2**62, n)]
    same = g.random(n) < 0.5
    write_lines([json.dumps({"id": i, "same": bool(s)}) for i, s in zip(ids, same, strict=True)],
                out / "truth.jsonl")
    difficulty = draw_difficulty(seed, KIND, n, params)
    runs = draw_runs(seed, KIND, n_runs, params)
    names = run_names(seed, KIND, runs, lambda team, i: f"{team}{i + 1}")

    def write_run(r: int, g: np.random.Generator, z: np.ndarray) -> list[Path]:
        conf = confidence(g, z, float(runs.noise[r]))
        says_same = np.where(z > 0, same, ~same)
        margin = np.round(g.uniform(0.02, 0.5, n), 3)
        value = np.round(np.where(says_same, 0.5 + margin, 0.5 - margin), 3)
        value[lowest_share(conf, 0.0 if r == 0 else g.uniform(0.02, 0.2))] = 0.5
        keep = np.ones(n, dtype=bool)
        if r == 1:
            keep[g.choice(n, min(opts.missing, n - 1), replace=False)] = False
        lines = []
        for i in np.flatnonzero(keep):
            v: float | list[float] = float(value[i])
            lines.append(json.dumps({"id": ids[i], "value": [v] if r == 2 else v}))
        path = out / "runs" / names[r] / "answers.jsonl"
        write_lines(lines, path)
        return [path]

    each_run(f"simulate {KIND}", seed, KIND, runs, difficulty, params, quiet,
             out / "runs", ("answers.jsonl",), write_run)
    return {"questions": n, "runs": n_runs}
