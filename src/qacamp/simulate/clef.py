"""CLEF-QA-2009-like abstention campaign (kind ``clef-qa``, ResPubliQA-style).

Writes::

    OUT/questions.tsv       qid<TAB>language<TAB>text (header line)
    OUT/runs/<run>.tsv      run<TAB>qid<TAB>answered<TAB>judgment<TAB>answer (header line)

Model (see :mod:`qacamp.simulate.model`): a run is right on a question when its
evidence is positive.  It leaves unanswered the share ``u_r`` of questions with
its lowest confidence (``u_r = 0`` for 45% of the runs, else uniform in
0.03-0.35), so well-calibrated runs abstain mostly where they would be wrong
and gain c@1 over accuracy.  An unanswered question carries a hypothetical
candidate (judged R when the evidence is positive, else W) with the run's
``p_candidate_r`` (0 for 30% of runs, 1 for 30%, otherwise uniform 0.2-0.8);
without one its judgment is ``-`` and its answer empty.  One run (the fourth,
when there are at least four) omits a few questions (unanswered, no candidate).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from . import text
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

KIND = "clef-qa"
N_WRONG = 5


@dataclass(frozen=True)
class Options:
    """Campaign size."""

    questions: int = 500
    runs: int = 44
    missing_lines: int = 3


def simulate(out: str | Path, seed: int = 2009, opts: Options | None = None,
             params: ModelParams | None = None, quiet: bool = False) -> dict[str, int]:
    """Write the campaign to ``out``; return counts."""
    opts = opts or Options()
    params = params or ModelParams(ability_mean=-0.2, ability_sd=0.8, difficulty_sd=1.3)
    n = check_positive("questions", opts.questions)
    n_runs = check_positive("runs", opts.runs)
    out = Path(out)
    qids = np.array([str(i + 1) for i in range(n)], dtype=object)
    g = rng(seed, KIND, "questions")
    texts = [text.factoid_question(g) for _ in range(n)]
    write_lines(["qid\tlanguage\ttext"] + [f"{q}\tEN\t{t}" for q, t in zip(qids, texts,
                                                                          strict=True)],
                out / "questions.tsv")
    g = rng(seed, KIND, "answers")
    pool = np.array([[text.tiny_answer(g) for _ in range(N_WRONG + 1)] for _ in range(n)],
                    dtype=object).ravel()
    difficulty = draw_difficulty(seed, KIND, n, params)
    runs = draw_runs(seed, KIND, n_runs, params)
    langs = text.LANGUAGES
    team_lang = rng(seed, KIND, "languages").integers(0, len(langs), int(runs.team.max()) + 1)
    names = run_names(seed, KIND, runs, lambda team, i: f"{team}09{i + 1}", max_len=4)
    names = [f"{nm}{langs[team_lang[t]].lower()}" for nm, t in zip(names, runs.team, strict=True)]

    def write_run(r: int, g: np.random.Generator, z: np.ndarray) -> list[Path]:
        conf = confidence(g, z, float(runs.noise[r]))
        share = 0.0 if g.random() < 0.45 else g.uniform(0.03, 0.35)
        u = g.random()
        p_cand = 0.0 if u < 0.3 else 1.0 if u < 0.6 else g.uniform(0.2, 0.8)
        right = z > 0
        unanswered = lowest_share(conf, share)
        cand = unanswered & (g.random(n) < p_cand)
        slot = np.where(right, 0, g.integers(1, N_WRONG + 1, n))
        answer = pool[np.arange(n) * (N_WRONG + 1) + slot]
        judgment = np.where(right, "R", "W").astype(object)
        judgment[unanswered & ~cand] = "-"
        answer[unanswered & ~cand] = ""
        keep = np.ones(n, dtype=bool)
        if r == 3 and n > opts.missing_lines:
            keep[g.choice(n, opts.missing_lines, replace=False)] = False
        df = pl.DataFrame({"qid": qids[keep], "answered": np.where(unanswered, "0", "1")[keep]
                           .astype(object), "judgment": judgment[keep], "answer": answer[keep]},
                          schema={"qid": pl.String, "answered": pl.String,
                                  "judgment": pl.String, "answer": pl.String})
        lines = df.select(pl.concat_str([pl.lit(names[r]), pl.col("qid"), pl.col("answered"),
                                         pl.col("judgment"), pl.col("answer")],
                                        separator="\t")).to_series()
        path = out / "runs" / f"{names[r]}.tsv"
        write_lines(["run\tqid\tanswered\tjudgment\tanswer"] + lines.to_list(), path)
        return [path]

    each_run(f"simulate {KIND}", seed, KIND, runs, difficulty, params, quiet,
             out / "runs", ("*.tsv",), write_run)
    return {"questions": n, "runs": n_runs}
