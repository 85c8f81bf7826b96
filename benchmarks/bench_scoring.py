"""Benchmark: score 1,000 simulated runs x 10,000 questions at every scope.

Builds the canonical tables directly with numpy (a QA4MRE-shaped campaign:
40 topics x 25 reading tests x 10 questions, 5 options, some unanswered
questions with candidates, some missing responses), times
:func:`qacamp.scoring.score_campaign`, and compares with a bare DuckDB scan of
the same responses written as Parquet.  Target: at most 10 s on 2 cores.

    .venv/bin/python benchmarks/bench_scoring.py [--runs 1000] [--questions 10000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import duckdb
import numpy as np
import polars as pl

from qacamp.scoring import score_campaign
from qacamp.tables import SCHEMAS, conform, empty


def build(n_runs: int, n_q: int, seed: int = 7, kind: str = "qa4mre") -> dict[str, pl.DataFrame]:
    rng = np.random.default_rng(seed)
    qn = np.arange(n_q)
    topic = (qn // 250).astype(str)
    test = np.char.add(np.char.add(topic, "."), ((qn // 10) % 25).astype(str))
    qid = np.char.add(np.char.add(test, "."), (qn % 10 + 1).astype(str))
    questions = conform("questions", pl.DataFrame({
        "qid": qid, "qtype": np.full(n_q, "MC" if kind == "qa4mre" else "QA"),
        "topic": topic, "test": test, "position": (qn + 1).astype(np.int32)}))
    correct = rng.integers(1, 6, n_q)
    options = conform("options", pl.DataFrame({
        "qid": np.repeat(qid, 5), "option": np.tile(np.arange(1, 6).astype(str), n_q),
        "correct": (np.tile(np.arange(1, 6), n_q) == np.repeat(correct, 5)),
        "is_noa": np.tile(np.arange(1, 6) == 5, n_q)}))
    n = n_runs * n_q
    keep = rng.random(n) > 0.02  # 2% missing responses
    run_idx = np.repeat(np.arange(n_runs), n_q)[keep]
    q_idx = np.tile(qn, n_runs)[keep]
    m = len(run_idx)
    skill = rng.random(n_runs)[run_idx]
    right = rng.random(m) < skill
    answered = rng.random(m) > 0.15
    runs = np.char.add("run", run_idx.astype(str))
    judg = np.where(right, "R", "W")
    responses = pl.DataFrame({
        "run": runs, "qid": qid[q_idx], "item": np.ones(m, np.int32),
        "rank": (q_idx + 1).astype(np.int32), "answer": np.full(m, "1"),
        "answered": answered, "nil": np.zeros(m, bool)}).pipe(lambda d: conform("responses", d))
    judgments = pl.DataFrame({
        "judgment_set": np.full(m, "gold"), "run": runs, "qid": qid[q_idx],
        "item": np.ones(m, np.int32), "judgment": judg}).pipe(lambda d: conform("judgments", d))
    t = {name: empty(name) for name in SCHEMAS}
    t.update(questions=questions, options=options, responses=responses, judgments=judgments)
    return t


def _time_phases() -> dict[str, float]:
    """Wrap the scoring steps (judged units, outcomes, question scores, lists, Other,
    type and series scores, output frames) with timers; returns the dict they fill."""
    from qacamp import scoring

    phases: dict[str, float] = {}

    def wrap(owner, name: str) -> None:
        f = getattr(owner, name)

        def timed(*a, **k):
            t0 = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                phases[name.strip("_")] = phases.get(name.strip("_"), 0.0) + time.perf_counter() - t0
        setattr(owner, name, timed)

    for n in ("judged_units", "question_outcomes", "question_scores", "list_scores",
              "other_scores", "type_scores", "series_scores"):
        wrap(scoring, n)
    wrap(scoring.frames.Collector, "finish")
    return phases


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--questions", type=int, default=10000)
    ap.add_argument("--kind", default="qa4mre", choices=["qa4mre", "clef-qa"])
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    tables = build(args.runs, args.questions, kind=args.kind)
    print(f"built {tables['responses'].height:,} responses in {time.perf_counter() - t0:.1f} s")
    phases = _time_phases()
    t0 = time.perf_counter()
    out = score_campaign(args.kind, tables, {"baseline_seed": 1})
    t_score = time.perf_counter() - t0
    for name, sec in phases.items():
        print(f"  phase {name:<20} {sec:6.2f} s")
    print(f"score_campaign: {t_score:.2f} s  (outcomes {out['outcomes'].height:,}, "
          f"units {out['units'].height:,}, runs {out['runs'].height:,} rows)")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "responses.parquet"
        tables["responses"].join(tables["judgments"], on=["run", "qid", "item"]).write_parquet(path)
        con = duckdb.connect()
        t0 = time.perf_counter()
        con.execute(f"select run, count(*), sum(case when judgment = 'R' then 1 else 0 end) "
                    f"from '{path}' group by run").fetchall()
        t_scan = time.perf_counter() - t0
    print(f"duckdb scan:    {t_scan:.2f} s")
    print(f"score_campaign total: {t_score:.2f} s")
    print(f"ratio score/scan: {t_score / t_scan:.1f}x; budget 10 s: "
          f"{'OK' if t_score <= 10 else 'OVER'}")


if __name__ == "__main__":
    main()
