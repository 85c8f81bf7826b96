"""What qacamp owns is a file's content, never a record's presence or a link.

Each case a hostile or unlucky user met before (README, step 5 of "Using your
own campaign"): the user's bytes are hashed before and after and must be
unchanged; a file without a matching record is refused, never read; `qacamp
verify` names it; after the rebuild `verify` passes with a clean run's
numbers.  Two writers of one ``--out``: the second stops at once with exit
code 75, naming the first.  A killed ingest leaves nothing behind that the
next run does not remove.  (The workflow's side: tests/test_workflow.py.)
"""

from __future__ import annotations

import contextvars
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import polars as pl
import pytest
from files_util import sha256_of
from test_hostile_outputs import fingerprint, refused
from workflow_util import BIN, env, qacamp, run_together

from qacamp.cli import main
from qacamp.io import read_parquet, writing


@pytest.fixture(scope="module")
def camp(tmp_path_factory) -> Path:
    """A small CLEF campaign ingested and scored by the CLI."""
    base = tmp_path_factory.mktemp("own")
    assert main(["simulate", "clef-qa", "--out", str(base / "data"), "--runs", "4",
                 "--questions", "30", "--seed", "3", "--quiet"]) == 0
    cfg = {"kind": "clef-qa", "questions": str(base / "data/questions.tsv"),
           "runs": str(base / "data/runs/*.tsv")}
    (base / "campaign.json").write_text(json.dumps(cfg))
    assert main(["ingest", "--campaign-json", json.dumps(cfg), "--name", "c",
                 "--out", str(base / "c" / "ingest")]) == 0
    assert main(["score", "--ingest", str(base / "c" / "ingest"),
                 "--out", str(base / "c" / "scores")]) == 0
    return base


def _copy(camp: Path, to: Path) -> Path:
    shutil.copytree(camp / "c", to / "c")
    return to / "c"


def _score(c: Path, *extra: str) -> list[str]:
    return ["score", "--ingest", str(c / "ingest"), "--out", str(c / "scores"), *extra]


def _verify(folder: Path) -> list[str]:
    res = qacamp("verify", str(folder))
    assert res.returncode in (0, 1), res.stderr
    return [ln for ln in res.stdout.splitlines() if not ln.startswith(("qacamp verify", "note"))]


def test_a_forged_record_never_deletes_a_users_file(camp, tmp_path, capsys):
    c = _copy(camp, tmp_path)
    notes = c / "scores" / "notes.txt"
    notes.write_text("my notes\n")
    forged = {"format": 1, "file": "notes.txt", "step": "qacamp score", "sha256": "00",
              "size": 9, "inputs": {}, "temporary": False}
    (c / "scores" / ".qacamp-output" / "notes.txt.json").write_text(json.dumps(forged))
    before = sha256_of(notes)
    assert main(_score(c)) == 0
    err = capsys.readouterr().err
    assert sha256_of(notes) == before
    assert f"qacamp: {notes}: left alone: `qacamp score` no longer writes it and it is not the " \
        "file it wrote" in err, err
    assert [ln for ln in _verify(c) if "notes.txt" in ln] == [
        f"changed: {notes} (sha256 00... written by `qacamp score`, "
        f"{before[:16]}... now)"]


def test_force_never_deletes_a_file_named_like_a_temporary(camp, tmp_path, capsys):
    c = _copy(camp, tmp_path)
    mine = c / "scores" / ".units.parquet.mynotes1.parquet"
    mine.write_bytes(b"my own notes, named as I like\n")
    before = fingerprint(c / "scores")
    assert main([*_score(c), "--force"]) == 0
    after = fingerprint(c / "scores")
    assert after[mine.name] == before[mine.name]
    assert [ln for ln in _verify(c) if "mynotes" in ln] == [
        f"unrecorded: {mine} (qacamp did not write it, or its record was removed)"]


def test_a_link_inside_an_output_folder_is_never_followed(tmp_path, capsys):
    """A run folder of a simulated campaign replaced by a link to a copy
    elsewhere (the same bytes, so only the link tells them apart): a smaller
    rerun writes and deletes nothing behind it and names the link."""
    out = tmp_path / "sim"
    argv = ["simulate", "clef-qa", "--out", str(out), "--questions", "10", "--quiet"]
    assert main([*argv, "--runs", "6"]) == 0
    elsewhere = tmp_path / "elsewhere"
    shutil.move(out / "runs", elsewhere)
    (out / "runs").symlink_to(elsewhere)
    before = fingerprint(tmp_path)
    msg = refused(capsys, [*argv, "--runs", "3"], out / "runs", "it is a symbolic link (to "
                  f"{elsewhere}), and qacamp never writes or deletes through one",
                  "replace the link by the folder or file itself")
    assert fingerprint(tmp_path) == before, msg


def test_a_changed_output_is_replaced_with_one_line(camp, tmp_path, capsys):
    c = _copy(camp, tmp_path)
    table = c / "scores" / "runs.csv"
    clean = table.read_bytes()
    table.write_text("run,c_at_1\nmine,1.0\n")
    assert _verify(c)[0].startswith(f"changed: {table} (sha256 ")
    assert main(_score(c)) == 0
    assert f"qacamp: {table}: replaced; it had changed since `qacamp score` wrote it" \
        in capsys.readouterr().err
    assert table.read_bytes() == clean and _verify(c) == []


def test_an_unrecorded_intermediate_is_never_read(camp, tmp_path, capsys):
    """scores/runs.parquet rewritten with every value 1.0 and its record
    removed: the report refuses it (it printed 1.00 before), `verify` names it;
    the command that writes it rebuilds it, once the file is moved away."""
    c = _copy(camp, tmp_path)
    runs = c / "scores" / "runs.parquet"
    clean = read_parquet(runs)
    clean.with_columns(pl.lit(1.0).alias("value")).write_parquet(runs)
    (c / "scores" / ".qacamp-output" / "runs.parquet.json").unlink()
    before = sha256_of(runs)
    refused(capsys, ["report", "tables", "--campaign-dir", str(c), "--no-reliability",
                     "--out", str(tmp_path / "t")], runs,
            "no record: qacamp did not write it or its record was removed. Fix: rebuild with")
    assert f"unrecorded: {runs} (qacamp did not write it, or its record was removed)" \
        in _verify(c)
    # rewriting it would destroy a file qacamp did not write: refused too
    refused(capsys, _score(c), runs, "the file exists and was not written by qacamp")
    assert sha256_of(runs) == before and not (tmp_path / "t").exists()
    runs.rename(tmp_path / "kept.parquet")
    assert main(_score(c)) == 0
    assert read_parquet(runs).equals(clean) and _verify(c) == []


def test_a_tampered_duckdb_is_named_and_rebuilt(camp, tmp_path):
    import duckdb

    c = _copy(camp, tmp_path)
    assert main(["duckdb", str(c)]) == 0
    assert _verify(c) == []
    con = duckdb.connect(str(c / "campaign.duckdb"))
    con.execute("create or replace view runs as select 0.999 as value")
    con.close()
    assert _verify(c) == [f"changed: {c / 'campaign.duckdb'} (its views or other objects differ "
                          "from those `qacamp duckdb` writes)"]
    assert main(["duckdb", str(c)]) == 0
    assert _verify(c) == []


def test_a_second_writer_of_one_out_is_refused_at_once(camp, tmp_path, capsys):
    """While a block holds the folder (here: this process, the command run in
    a context of its own), `qacamp score` into it stops at once: exit code 75,
    one line naming the holder."""
    c = _copy(camp, tmp_path)
    before = fingerprint(c)
    with writing("a test", dirs=[c / "scores"]):
        rc = contextvars.Context().run(main, _score(c))
    err = capsys.readouterr().err
    assert rc == 75, err
    assert err.startswith(f"qacamp score: error: {c / 'scores'}: cannot write: another qacamp "
                          f"run is writing it (pid {os.getpid()}"), err
    assert "Fix: wait until it has finished, then run the same command again" in err
    assert len(err.strip().splitlines()) == 1
    assert fingerprint(c) == before
    with writing("a test", files=[c / "scores" / "runs.csv"]):  # a file output, likewise
        assert contextvars.Context().run(main, ["reliability", "swap", "--scores", str(c / "scores"), "--measure",
                     "c_at_1", "--sizes", "5:10:5", "--trials", "2", "--out",
                     str(c / "scores" / "runs.csv")]) == 75
    assert "another qacamp run is writing it" in capsys.readouterr().err


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> tuple[Path, list[str]]:
    """A TREC factoid campaign large enough for `qacamp score` to take a
    second (80 runs, 500 questions, 3 judgment sets): (folder, ingest argv
    without the --out folder)."""
    base = tmp_path_factory.mktemp("big")
    data = base / "data"
    assert main(["simulate", "trec-factoid", "--out", str(data), "--runs", "80",
                 "--questions", "500", "--seed", "4", "--quiet"]) == 0
    cfg = json.dumps({"kind": "trec-factoid", "questions": str(data / "questions.txt"),
                      "primary": "adjudicated", "judgment_sets": {
                          s: str(data / "judged" / s / "*.txt.gz")
                          for s in ("adjudicated", "assessor1", "assessor2")}})
    argv = ["ingest", "--campaign-json", cfg, "--name", "t", "--out"]
    assert main([*argv, str(base / "ingest")]) == 0
    assert main(["score", "--ingest", str(base / "ingest"), "--out", str(base / "scores")]) == 0
    return base, argv


@pytest.mark.slow
def test_two_scores_into_one_out_started_together(big):
    """Started together QACAMP_RACES times (default 5; 20 for the figures
    reported): one completes, the other is refused with 75, and the
    survivor's files are a clean run's."""
    base, _ = big
    clean = fingerprint(base / "scores")
    cmd = [str(BIN / "qacamp"), "score", "--ingest", str(base / "ingest"), "--out"]
    for i in range(int(os.environ.get("QACAMP_RACES", "5"))):
        out = base / f"race{i}"
        done = run_together([*cmd, out], [base / f"race{i}.{k}.err" for k in range(2)],
                            timeout=300)
        assert sorted(rc for rc, _ in done) == [0, 75], (i, done)
        refusal = next(e for rc, e in done if rc == 75)
        assert refusal.startswith(f"qacamp score: error: {out}: cannot write: another qacamp run "
                                  "is writing it (pid "), refusal
        assert len(refusal.strip().splitlines()) == 1
        assert fingerprint(out) == clean, i


def _leftovers(*tops: Path) -> list[str]:
    """qacamp's temporary files and folders anywhere under ``tops``."""
    return sorted(str(p) for top in tops for p in top.rglob("*")
                  if p.name.startswith("qacamp-") or p.name == ".tmp" or p.name.endswith(".lock"))


@pytest.mark.slow
def test_kill_during_ingest_leaves_nothing_after_the_rerun(big, tmp_path):
    """`kill -9` while ingest writes its tables (its temporary folder in the
    marker holds a file), then the same command: no spill, temporary or lock
    left anywhere, and the tables are a clean ingest's."""
    base, argv = big
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    cmd = [str(BIN / "qacamp"), *argv]
    out = tmp_path / "ingest"
    run_env = {**env(), "TMPDIR": str(tmp)}
    proc = subprocess.Popen([*cmd, str(out)], env=run_env, stderr=subprocess.DEVNULL)
    marker = out / ".qacamp-output" / ".tmp"
    while proc.poll() is None and not any(marker.glob("*/*")):
        time.sleep(0.002)
    assert proc.poll() is None, "ingest ended before it wrote"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert _leftovers(out)  # the kill did leave something for the rerun
    assert subprocess.run([*cmd, str(out)], env=run_env,
                          stderr=subprocess.DEVNULL).returncode == 0
    assert _leftovers(out, tmp) == [] and list(tmp.iterdir()) == []
    assert _verify(out) == []
    assert fingerprint(out) == fingerprint(base / "ingest")


def test_two_runs_creating_one_new_outdir_at_once_the_second_is_busy(tmp_path, monkeypatch):
    """Two `qacamp run` started together on a new outdir: the other run created
    it, holds its lock and marked it while this one looked (it saw no outdir).
    This one is refused as busy (exit 75), not stopped by "File exists" or told
    that the other's marker is a file qacamp did not write (once in 20 starts)."""
    from qacamp.errors import BusyError
    from qacamp.io import records, verify

    out = tmp_path / "new"
    out.mkdir()
    fd, _ = records.lock(out, str(out))  # the other run's lock, then its marker
    (out / records.MARKER).mkdir()
    real = os.path.lexists
    monkeypatch.setattr(os.path, "lexists", lambda p: False if Path(p) == out else real(p))
    try:
        with pytest.raises(BusyError, match=r"another qacamp run is writing it \(pid "):
            verify.prepare_outdir(out)
    finally:
        os.close(fd)
    assert sorted(p.name for p in out.iterdir()) == [records.MARKER]


def test_a_temporary_folder_is_made_while_another_writer_sweeps_the_empty_one(tmp_path,
                                                                            monkeypatch):
    """Shard jobs writing into one folder: another writer removes the empty
    temporaries' folder just after this one found it there.  The writer makes
    it again; it failed with "cannot write: File exists" (seen on SLURM)."""
    from qacamp.io import records

    (tmp_path / records.MARKER).mkdir()
    base = tmp_path / records.MARKER / records.TMP
    real, raced = os.mkdir, []

    def mkdir(path, *args, **kw):
        if Path(path) == base and not raced:
            raced.append(path)  # there a moment ago, swept by the other writer since
            raise FileExistsError(17, "File exists", str(path))
        return real(path, *args, **kw)

    monkeypatch.setattr(os, "mkdir", mkdir)
    made = records.temp_dir(tmp_path)
    assert raced and made.parent == base and made.is_dir()


@pytest.mark.parametrize("when", ["before", "after"])
@pytest.mark.parametrize("how", ["its path", "a hard link"])
def test_an_input_named_late_is_never_written_over(tmp_path, how, when):
    """An input named once the outputs are claimed (the ingest names each run
    file as it reads it), before or after a writer staged its file, and that
    file is the input (by its path, or a hard link to it): the staging or
    the end refuses it, naming it, and leaves the input's bytes and no
    record behind."""
    from qacamp.errors import OutputError
    from qacamp.io import write_text

    given = tmp_path / "data" / "run.txt"
    given.parent.mkdir()
    given.write_text("a user's run\n")
    out = tmp_path / "out" / "run.txt"
    out.parent.mkdir()
    if how == "a hard link":
        os.link(given, out)
    target = given if how == "its path" else out
    before = fingerprint(tmp_path)
    with pytest.raises(OutputError, match="it is an input of this command"):
        with writing("test", files=[target], force=True) as w:
            if when == "before":
                w.add_input(given)
            write_text("qacamp's bytes\n", target)
            if when == "after":
                w.add_input(given)
    assert fingerprint(tmp_path) == before
