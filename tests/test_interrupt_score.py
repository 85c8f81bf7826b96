"""Ctrl-C during `qacamp score`: one line and exit code 130, no traceback, and
nothing of the scores left in the output folder, though each score file was
being encoded in a thread of its own when the interrupt came."""

from __future__ import annotations

import threading

from workflow_util import qacamp_in_root

import qacamp.scoring


def test_an_interrupt_while_scoring_is_one_line_and_leaves_no_score_file(
        demo_scores, tmp_path, monkeypatch, capsys):
    ingest, _ = demo_scores("trec2002")
    real = qacamp.scoring.score_batches

    def interrupted(*args, **kwargs):
        for i, part in enumerate(real(*args, **kwargs)):
            if i == 1:
                raise KeyboardInterrupt
            yield part

    monkeypatch.setattr(qacamp.scoring, "score_batches", interrupted)
    monkeypatch.setattr(qacamp.scoring.batches, "BATCH_CELLS", 2_000)  # (several batches)
    out = tmp_path / "scores"
    assert qacamp_in_root("score", "--ingest", ingest, "--out", out) == 130
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == "qacamp score: interrupted", err
    assert "Traceback" not in err
    left = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) \
        if out.exists() else []
    assert left == []
    # the files' threads ended (the scoring's own end on their own: ordered.in_order)
    assert [t.name for t in threading.enumerate() if t.name == "qacamp-behind"] == []
