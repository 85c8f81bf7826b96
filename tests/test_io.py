"""qacamp.io at the edges: a truncated pipeline Parquet file is reported (the
file named, changed since its step wrote it, no traceback) by every command
that reads one; a write that fails at the operating-system level (full disk)
is the project's OutputError naming the file and leaves nothing partial;
campaign.duckdb is rebuilt by ``qacamp duckdb`` wherever the results folder
moves.  (Damage of every kind: tests/test_hostile_damage.py; output paths:
tests/test_hostile_outputs.py.)"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import uuid
from pathlib import Path

import duckdb
import polars as pl
import pytest

from qacamp.cli import main
from qacamp.errors import InputError, OutputError
from qacamp.io import (
    read_parquet,
    write_campaign_duckdb,
    write_csv,
    write_parquet,
    write_text,
)

FRAME = pl.DataFrame({"run": ["a", "b", "c"], "value": [0.5, 0.25, 1.0]})


def truncate(path: Path, keep: float = 0.6) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])


def test_read_parquet_refuses_a_changed_or_unrecorded_file(tmp_path):
    p = tmp_path / "runs.parquet"
    write_parquet(FRAME, p)  # outside a command: a block of its own, recorded
    assert read_parquet(p).equals(FRAME)
    assert read_parquet(p, ["value"], pl.col("run") == "b")["value"].to_list() == [0.25]
    truncate(p)
    with pytest.raises(InputError) as info:
        read_parquet(p)
    msg = str(info.value)
    assert msg.startswith(f"{p}: changed since `qacamp.io` wrote it (sha256 ")
    assert "\n" not in msg
    # without its record a file is never read, whatever its bytes
    write_parquet(FRAME, p)
    (tmp_path / ".qacamp-output" / "runs.parquet.json").unlink()
    with pytest.raises(InputError, match="no record: qacamp did not write it or its record "
                       "was removed. Fix: rebuild with"):
        read_parquet(p)
    with pytest.raises(InputError, match="file not found"):
        read_parquet(tmp_path / "missing.parquet")


def _one_line_exit_2(capsys, argv: list[str], path: Path) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert str(path) in err, err
    assert "changed since `qacamp" in err, err
    return err


def _ingest_dir(tmp_path: Path) -> Path:
    """A real ingested campaign (simulated CLEF QA)."""
    data = tmp_path / "data"
    assert main(["simulate", "clef-qa", "--out", str(data), "--runs", "3", "--questions", "20",
                 "--seed", "2", "--quiet"]) == 0
    cfg = {"kind": "clef-qa", "questions": str(data / "questions.tsv"),
           "runs": str(data / "runs" / "*.tsv")}
    out = tmp_path / "c" / "ingest"
    assert main(["ingest", "--campaign-json", json.dumps(cfg), "--name", "c",
                 "--out", str(out)]) == 0
    return out


def test_cli_reports_truncated_pipeline_parquet(tmp_path, capsys):
    ingest = _ingest_dir(tmp_path)
    scores = tmp_path / "c" / "scores"
    assert main(["score", "--ingest", str(ingest), "--out", str(scores)]) == 0
    capsys.readouterr()

    # qacamp reliability (--scores reads outcomes.parquet / units.parquet)
    truncate(scores / "outcomes.parquet")
    _one_line_exit_2(capsys, ["reliability", "swap", "--scores", str(scores), "--measure",
                              "accuracy", "--judgment-set", "official", "--sizes", "2:4",
                              "--trials", "2", "--out", str(tmp_path / "s.parquet")],
                     scores / "outcomes.parquet")
    # qacamp reliability merge (shards)
    shard = tmp_path / "shard.parquet"
    write_parquet(FRAME, shard)
    truncate(shard)
    _one_line_exit_2(capsys, ["reliability", "merge", "--kind", "swap",
                              str(tmp_path / "m.parquet"), str(shard)], shard)
    # qacamp report (reads scores/runs.parquet)
    truncate(scores / "runs.parquet")
    _one_line_exit_2(capsys, ["report", "tables", "--campaign-dir", str(tmp_path / "c"),
                              "--no-reliability", "--out", str(tmp_path / "t")],
                     scores / "runs.parquet")
    # qacamp score (reads ingest/*.parquet)
    truncate(ingest / "responses.parquet")
    _one_line_exit_2(capsys, ["score", "--ingest", str(ingest), "--out", str(scores)],
                     ingest / "responses.parquet")
    # qacamp duckdb checks every file it indexes
    _one_line_exit_2(capsys, ["duckdb", str(tmp_path / "c")], ingest / "responses.parquet")


# --------------------------------------------------------------------------- full disk

def _no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize("writer", ["parquet", "csv", "text"])
def test_full_disk_is_an_output_error_and_keeps_the_old_file(tmp_path, monkeypatch, writer):
    import qacamp.io.writers

    target = tmp_path / f"out.{writer}"
    write_text("previous result", target)
    # every writer ends in the one low-level write of qacamp.io.writers
    monkeypatch.setattr(qacamp.io.writers, "write_all", _no_space)
    if writer == "parquet":
        call = lambda: write_parquet(FRAME, target)  # noqa: E731
    elif writer == "csv":
        call = lambda: write_csv(FRAME, target)  # noqa: E731
    else:
        call = lambda: write_text("x", target)  # noqa: E731
    with pytest.raises(OutputError) as info:
        call()
    assert str(info.value).startswith(f"{target}: cannot write: No space left on device")
    assert target.read_text(encoding="utf-8") == "previous result"
    # no temporary left (they live in the writer's own folder in the marker)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        ".qacamp-output", f".qacamp-output/{target.name}.json", target.name]


def test_full_disk_in_a_command_is_one_line(tmp_path, monkeypatch, capsys):
    import qacamp.io.writers

    ingest = _ingest_dir(tmp_path)
    capsys.readouterr()
    monkeypatch.setattr(qacamp.io.writers, "write_all", _no_space)
    # (the score tables are written a row group at a time by the Parquet writer)
    monkeypatch.setattr(qacamp.io.writers.RowGroupWriter, "close", _no_space)
    assert main(["score", "--ingest", str(ingest), "--out", str(tmp_path / "scores")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "cannot write: No space left on device" in err
    assert str(tmp_path / "scores" / "outcomes.parquet") in err
    assert not (tmp_path / "scores").exists() or not any((tmp_path / "scores").iterdir())


@pytest.fixture
def tiny_tmpfs(tmp_path):
    """A real 64 KiB file system (needs root and mount; skipped otherwise)."""
    mnt = tmp_path / f"tiny-{uuid.uuid4().hex[:8]}"
    mnt.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("needs root to mount a tmpfs")
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)],
                         capture_output=True, text=True)
    if res.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {res.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


def test_real_full_disk(tiny_tmpfs):
    big = pl.DataFrame({"value": [float(i) * 1.000001 for i in range(200_000)]})
    for name, call in (("x.parquet", write_parquet), ("x.csv", write_csv)):
        with pytest.raises(OutputError, match="cannot write"):
            call(big, tiny_tmpfs / "out" / name)
    assert list(tiny_tmpfs.iterdir()) == []  # not even the folder the writes made


# --------------------------------------------------------------------------- duckdb

def _campaign_dir(root: Path) -> Path:
    c = root / "camp"
    write_parquet(pl.DataFrame({"qid": ["1", "2"]}), c / "ingest" / "questions.parquet")
    write_parquet(FRAME, c / "scores" / "runs.parquet")
    write_parquet(pl.DataFrame({"size": [5], "swaps": [1]}), c / "reliability" / "swap_x.parquet")
    return c


def _views(db: Path) -> dict[str, int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        names = [r[0] for r in con.execute("select view_name from duckdb_views() "
                                           "where not internal order by 1").fetchall()]
        return {n: con.execute(f'select count(*) from "{n}"').fetchall()[0][0] for n in names}
    finally:
        con.close()


def test_duckdb_is_rebuilt_where_the_results_are(tmp_path, capsys):
    c = _campaign_dir(tmp_path / "a")
    db = write_campaign_duckdb(c)
    assert _views(db) == {"questions": 2, "runs": 3, "swap_x": 1}
    moved = tmp_path / "b" / "camp"
    moved.parent.mkdir()
    shutil.move(c, moved)
    con = duckdb.connect(str(moved / "campaign.duckdb"), read_only=True)
    with pytest.raises(duckdb.Error):  # the views still name the old folder
        con.execute("select * from runs").fetchall()
    con.close()
    # the README's command rebuilds it in place
    assert main(["duckdb", str(moved)]) == 0
    assert capsys.readouterr().out.strip() == str(moved / "campaign.duckdb")
    assert _views(moved / "campaign.duckdb") == {"questions": 2, "runs": 3, "swap_x": 1}
    con = duckdb.connect(str(moved / "campaign.duckdb"), read_only=True)
    sqls = [r[0] for r in con.execute("select sql from duckdb_views() where not internal")
            .fetchall()]
    con.close()
    assert all(str(moved.resolve()) in s for s in sqls), sqls
    assert sorted(p.name for p in moved.iterdir()) == [".qacamp-output", "campaign.duckdb",
                                                      "ingest", "reliability", "scores"]


def test_verify_names_the_index_of_a_copied_folder_and_how_to_rebuild_it(tmp_path, capsys):
    """A copy of a results folder (the original kept): `qacamp verify` of the
    copy passed while its index's views read the original's Parquet files
    (records naming their inputs by absolute path), or said only that its
    views differ (relative).  It names the folder they read and the command
    that rebuilds the index; after it, the copy verifies."""
    c = _campaign_dir(tmp_path / "a")
    write_campaign_duckdb(c)
    assert main(["verify", str(c)]) == 0
    copy = tmp_path / "b" / "camp"
    shutil.copytree(c, copy)
    capsys.readouterr()
    assert main(["verify", str(copy)]) == 1
    out = capsys.readouterr().out
    assert f"changed: {copy}/campaign.duckdb (its views read the Parquet files under " \
        f"{c.resolve()}, not this folder's (the results were moved or copied): rebuild it " \
        f"with `qacamp duckdb {copy}`)" in out, out
    assert main(["duckdb", str(copy)]) == 0
    assert main(["verify", str(copy)]) == 0


def test_a_copy_of_results_written_to_an_absolute_outdir_is_checked_against_the_original(
        tmp_path, capsys):
    """What docs/results.md says of an absolute outdir: the records name the
    intermediates by absolute path, so `qacamp verify` of a copy finds a
    changed table of the copy but checks the copy's scores against the
    original's tables (nothing stale); a relative outdir has no such limit
    (test_hostile_damage.py::test_verify_names_changed_and_stale_files)."""
    import json

    truth = tmp_path / "raw" / "truth.jsonl"
    answers = tmp_path / "raw" / "team" / "answers.jsonl"
    answers.parent.mkdir(parents=True)
    truth.write_text('{"id": "1", "same": true}\n{"id": "2", "same": false}\n')
    answers.write_text('{"id": "1", "value": 0.9}\n{"id": "2", "value": 0.2}\n')
    campaign = {"kind": "pan", "truth": str(truth), "answers": str(answers)}
    c = (tmp_path / "res" / "camp").resolve()
    assert main(["ingest", "--campaign-json", json.dumps(campaign), "--name", "camp",
                 "--out", str(c / "ingest")]) == 0
    assert main(["score", "--ingest", str(c / "ingest"), "--out", str(c / "scores")]) == 0
    record = json.loads((c / "scores" / ".qacamp-output" / "runs.parquet.json").read_text())
    assert str(c / "ingest" / "responses.parquet") in record["inputs"], record["inputs"]
    ingest = json.loads((c / "ingest" / ".qacamp-output" / "responses.parquet.json").read_text())
    assert str(truth) in ingest["inputs"], ingest["inputs"]  # a raw input: absolute
    copy = tmp_path / "copy" / "camp"
    shutil.copytree(c, copy)
    with (copy / "ingest" / "questions.parquet").open("ab") as f:
        f.write(b"x")
    capsys.readouterr()
    assert main(["verify", str(copy)]) == 1
    out = capsys.readouterr().out
    assert f"changed: {copy}/ingest/questions.parquet" in out, out
    assert "0 stale" in out and f"{copy}/scores" not in out, out
    assert main(["verify", str(c)]) == 0  # the original untouched


def test_ingest_folder_write_failure_is_one_line(tmp_path, monkeypatch, capsys):
    """An OS error while ingest renames its files into place is the project's
    error naming the file, not a traceback; nothing is left (no folder, no
    record, no temporary file)."""
    import json
    import os

    from qacamp.cli import main

    truth = tmp_path / "truth.jsonl"
    truth.write_text('{"id": "1", "same": true}\n')
    answers = tmp_path / "team" / "answers.jsonl"
    answers.parent.mkdir()
    answers.write_text('{"id": "1", "value": 0.9}\n')
    campaign = {"kind": "pan", "truth": str(truth), "answers": str(answers)}
    real = os.replace

    def failing(src, dst):
        if str(dst).endswith("responses.parquet"):
            raise OSError(28, "No space left on device")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", failing)
    capsys.readouterr()
    rc = main(["ingest", "--campaign-json", json.dumps(campaign), "--name", "p",
               "--out", str(tmp_path / "res" / "ingest")])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err
    assert "res/ingest/responses.parquet: cannot write: No space left on device" in err
    assert not (tmp_path / "res").exists()


def test_a_step_of_ten_thousand_input_files_is_read_back_and_verified(tmp_path, capsys):
    """An ingest of 10,000 run files writes records of about 1.5 MB (one line
    per input): they are read back whole (a record was read up to 1 MiB, so
    such a campaign could be ingested but not scored or verified); a record
    over :data:`records.MAX_RECORD_BYTES` is refused with that reason."""
    from qacamp.io import records
    from qacamp.io.outputs import writing

    raw = tmp_path / "raw" / ("runs-" + "x" * 60)
    raw.mkdir(parents=True)
    inputs = [raw / f"run{i:05d}.txt" for i in range(10_000)]
    for p in inputs:
        p.write_bytes(b"1 r D R x\n")
    out = tmp_path / "res" / "table.txt"
    with writing("qacamp test", files=[out], inputs=inputs):
        write_text("rows\n", out)
    rp = records.record_path(out.parent, out)
    assert rp.stat().st_size > 1024**2
    rec = records.load(rp, out)
    assert len(rec.inputs) == 10_000 and rec.sha256 == records.sha256_file(out)
    capsys.readouterr()
    assert main(["verify", str(tmp_path / "res")]) == 0, capsys.readouterr()
    assert "1 files checked against their records: 0 changed" in capsys.readouterr().out
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(records, "MAX_RECORD_BYTES", 1024**2)
        with pytest.raises(InputError, match=r"is damaged \(it is larger than 1048576 bytes, "
                                             r"the most a record holds\)"):
            records.load(rp, out)
