"""NIL recall's denominator, the questions whose NIL answer some run had
judged right as its first answer, is a fact about every run: scored in
batches of one run (the fact found once over the run tables,
:func:`qacamp.scoring.batches.nil_judged`), a run's NIL recall is the one it
has when every run is scored in one batch (the fact read off the outcome
grid), with one answer per question and with ranked answers, where a NIL
answer judged right below the first answer does not count."""

from __future__ import annotations

import json

import polars as pl
import pytest

import qacamp.scoring
from qacamp.cli import main

QUESTIONS = "".join(f"<top>\n<num> Number: {q}\n<desc> Description:\nWhat {q}?\n</top>\n"
                    for q in (1, 2, 3))
# q1: runA's first answer is NIL, judged right; q2: runA's NIL judged right is
# its second answer (ranked runs only); q3: runB answers NIL, judged wrong
RUNS = {
    "ranked": {"runA": "1 runA 1 NIL R\n2 runA 1 APW1 W Paris\n2 runA 2 NIL R\n"
                       "3 runA 1 APW2 W x\n",
               "runB": "1 runB 1 APW3 W foo\n2 runB 1 APW4 W bar\n3 runB 1 NIL W\n",
               "runC": "1 runC 1 NIL R\n3 runC 1 APW5 R y\n"},
    "single": {"runA": "1 runA NIL R\n2 runA APW1 W Paris\n3 runA APW2 W x\n",
               "runB": "1 runB APW3 W foo\n2 runB NIL R\n3 runB NIL W\n",
               "runC": "1 runC APW4 W z\n3 runC APW5 R y\n"},
}


@pytest.mark.parametrize("layout", ["ranked", "single"])
def test_nil_recall_of_runs_scored_one_a_batch_is_that_of_one_batch(tmp_path, monkeypatch,
                                                                   layout):
    (tmp_path / "runs").mkdir()
    (tmp_path / "questions.txt").write_text(QUESTIONS)
    for name, text in RUNS[layout].items():
        (tmp_path / "runs" / f"{name}.txt").write_text(text)
    campaign = {"kind": "trec-factoid", "questions": str(tmp_path / "questions.txt"),
                "run_format": layout, "judgment_sets": {"adj": str(tmp_path / "runs" / "*.txt")}}
    assert main(["ingest", "--campaign-json", json.dumps(campaign), "--name", "nil",
                 "--out", str(tmp_path / "ingest")]) == 0
    scores = {}
    for per_batch in (3, 1):
        monkeypatch.setattr(qacamp.scoring, "batch_runs", lambda names, judged, threads, n=per_batch:
                            [names[i:i + n] for i in range(0, len(names), n)])
        out = tmp_path / f"scores-{per_batch}"
        assert main(["score", "--ingest", str(tmp_path / "ingest"), "--out", str(out)]) == 0
        scores[per_batch] = out
    runs = pl.read_parquet(scores[1] / "runs.parquet").filter(
        (pl.col("measure") == "nil_recall") & (pl.col("scope") == "all"))
    # one question (q1) is known to have NIL as its answer: judged right as a
    # first answer by runA (ranked: and runC); q2's NIL judged right counts
    # only where it is the first answer (single: runB's)
    expected = {"ranked": {"runA": 1.0, "runB": 0.0, "runC": 1.0},
                "single": {"runA": 0.5, "runB": 0.5, "runC": 0.0}}[layout]
    assert dict(runs.select("run", "value").iter_rows()) == pytest.approx(expected)
    for f in ("outcomes.parquet", "units.parquet", "runs.parquet", "dropped.parquet",
              "runs.csv"):
        assert (scores[1] / f).read_bytes() == (scores[3] / f).read_bytes(), f
