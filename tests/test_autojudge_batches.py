"""Automatic judging in batches of runs: the ``automatic`` judgments, the
warnings and the ingest's files are those of judging every response at once
(one batch), for batches of one run and of a few runs, in memory (``qacamp
eval``'s path) and streamed (``qacamp ingest``'s, at a row group size that
cuts the judgments inside the batches).  The campaign: real TREC 2004
questions and answer patterns, seven runs, a pattern that times out on
answers of several runs (three time-outs, then skipped: the count goes on
across batches) and answers longer than MAX_INPUT."""

from __future__ import annotations

import random
from pathlib import Path

import polars as pl
import pytest
from paths import SHARED_DATA

from qacamp import tables
from qacamp.autojudge import MAX_INPUT, MAX_TIMEOUTS
from qacamp.ingest import (
    INGEST_ROW_GROUP,
    auto,
    ingest_campaign,
    read_campaign,
    resolved_campaign,
    write_ingest,
)
from qacamp.ingest.accumulator import Acc
from qacamp.io import ROW_GROUP, parquet_bytes, spilling, write_parquet_parts

DATA = SHARED_DATA / "trec-qa"
RUNS = 7
QIDS = ("1.4", "1.5", "2.1", "2.2")  # factoid questions of the TREC 2004 set
ANSWERS = ("black", "blue", "Limp Bizkit", "red", "Interscope Records", "Durst")
#: backtracks 2^30 steps on "a" * n + "c": every search of it times out
EVIL = "(?:a|a)" * 30 + "b"



def _campaign(base: Path) -> dict:
    patterns = base / "patterns"
    patterns.write_text((DATA / "trec13patterns_factoid").read_text() + f"1.5 {EVIL}\n")
    runs = base / "runs"
    runs.mkdir()
    for r in range(RUNS):
        lines = []
        for i, qid in enumerate(QIDS):
            answer = ANSWERS[(r + i) % len(ANSWERS)]
            if qid == "1.5" and r % 2 == 0:  # a new text each time: no cached result
                answer = "a" * (30 + r) + "c"
            if qid == "2.1" and r in (2, 5):
                answer = "Limp Bizkit " + "x" * MAX_INPUT
            lines.append(f"{qid} run{r} D{r}{i} {'RW'[(r + i) % 2]} {answer}\n")
        (runs / f"run{r}.txt").write_text("".join(lines))
    return {"kind": "trec-factoid", "questions": str(DATA / "trec13questions.xml"),
            "judgment_sets": {"adjudicated": str(runs / "*.txt")},
            "patterns": str(patterns), "autojudge": True, "min_coverage": 0}


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """(base folder, campaign, its tables judged in one batch)."""
    if not DATA.exists():
        pytest.skip("../shared/data missing")
    base = tmp_path_factory.mktemp("auto")
    campaign = _campaign(base)
    frames = ingest_campaign("auto", campaign, base)
    return base, campaign, frames


def test_the_campaign_has_what_batches_could_change(whole):
    _base, _campaign_, frames = whole
    judged = frames["judgments"].filter(pl.col("judgment_set") == "automatic")
    assert judged.height == RUNS * len(QIDS)
    assert set(judged["judgment"]) == {"R", "W"}
    warnings = frames["warnings"]
    timeouts = warnings.filter(pl.col("kind") == "autojudge-timeout")
    # runs 0, 2, 4 time out; runs 5 and 6 come after: not tried (run 6's answer
    # would time out, run 5's would not)
    assert timeouts.height == 1 and timeouts["count"][0] == MAX_TIMEOUTS + 2
    assert f"timed out (0.1 s) on {MAX_TIMEOUTS} answers" in timeouts["message"][0]
    assert "not tried on 2 more answers" in timeouts["message"][0]
    assert warnings.filter(pl.col("kind") == "autojudge-truncated")["count"].to_list() == [1, 1]


def test_the_responses_come_in_batches_of_whole_runs(whole):
    base, campaign, _frames = whole
    for spill in (None, "spill"):
        with spilling() as s:
            acc = read_campaign("auto", campaign, base, spill=s if spill else None)
            for rows, sizes in ((1, [len(QIDS)] * RUNS), (9, [12, 12, 4]), (10**6, [28])):
                batches = list(acc.run_batches(rows))
                assert [b.height for b in batches] == sizes
                runs = [b["run"].unique(maintain_order=True).to_list() for b in batches]
                assert sum(runs, []) == [f"run{r}" for r in range(RUNS)]
                assert pl.concat(batches).equals(acc.frame("responses"))


@pytest.mark.parametrize("rows", [1, 9])
def test_batches_of_runs_judge_as_one_batch(whole, tmp_path, monkeypatch, rows):
    """In memory and streamed (row groups of the default size and of 5 rows,
    which cut the automatic judgments inside batches and across them): the
    bytes of the one-batch frames."""
    base, campaign, frames = whole
    monkeypatch.setattr(auto, "BATCH_ROWS", rows)
    got = ingest_campaign("auto", campaign, base)
    for name in tables.SCHEMAS:
        assert bytes(parquet_bytes(got[name])) == bytes(parquet_bytes(frames[name])), name
    resolved = resolved_campaign("auto", campaign, base)
    with spilling() as spill:
        acc = read_campaign("auto", campaign, base, spill=spill)
        assert acc.spilled["judgments"].ordered  # written as read: the chunks count
        for row_group in (INGEST_ROW_GROUP, 5):
            out = tmp_path / f"rg{row_group}"
            write_ingest(acc, resolved, out, row_group=row_group)
            files = _files(out)
            for name in tables.SCHEMAS:
                want = parquet_bytes(frames[name], row_group, tables.SORT_KEYS[name])
                assert files[f"{name}.parquet"] == bytes(want), (name, row_group)


def _bytes(acc: Acc, row_group: int, path: Path) -> bytes:
    parts, one_chunk = acc.pieces("judgments", row_group)
    write_parquet_parts(parts, tables.empty("judgments").to_arrow().schema, path,
                        one_chunk=one_chunk, row_group=row_group)
    return path.read_bytes()


@pytest.mark.parametrize("row_group", [ROW_GROUP, 100_000])
def test_a_frame_added_in_parts_is_written_as_one_frame(tmp_path, row_group):
    """300,000 judgments of about as many question ids (more than a
    dictionary page holds: where Parquet pages end depends on the chunks)
    after a frame of human judgments, added in parts of 997 rows (batches of
    runs), which do not end at row group boundaries: the bytes of adding them
    as one frame, in memory and spilled (written in the parts' own chunks,
    the pages would end elsewhere)."""
    n = 300_000
    letters = random.Random(1)
    qids = sorted("".join(letters.choice("abcdefghij") for _ in range(6)) for _ in range(n))
    human = tables.conform("judgments", pl.DataFrame({
        "judgment_set": "adjudicated", "run": "r0", "qid": "a",
        "item": pl.Series(range(1, 1001), dtype=pl.Int32), "judgment": "R"}))
    automatic = tables.conform("judgments", pl.DataFrame({
        "judgment_set": "automatic", "run": "r1", "qid": qids,
        "item": pl.Series(range(n), dtype=pl.Int32), "judgment": "W"}))
    parts = [automatic.slice(a, 997) for a in range(0, n, 997)]
    with spilling() as one_spill, spilling() as parts_spill:
        one, split = Acc(spill=one_spill), Acc(spill=parts_spill)
        for acc in (one, split):
            acc.add("judgments", human)
        one.add("judgments", automatic)
        split.add_parts("judgments", iter(parts))
        assert one.spilled["judgments"].ordered and split.spilled["judgments"].ordered
        want = _bytes(one, row_group, tmp_path / "one.parquet")
        assert _bytes(split, row_group, tmp_path / "split.parquet") == want
    memory = Acc()
    memory.add("judgments", human)
    memory.add_parts("judgments", iter(parts))
    assert bytes(parquet_bytes(memory.frame("judgments"), row_group)) == want
