"""Messages that point at the cause: each case names the line, the file, the
option or the config key that is wrong, in words about that cause (not about
a symptom elsewhere: the header line, the line length of damaged data, "not
found" for a pipe, the good shard, a folder's files, flags the user never
typed)."""

from __future__ import annotations

import gzip
import logging
import os
from pathlib import Path

import polars as pl
import pytest
import yaml
from hostile_util import CLEF_H, clef, error_line, run_eval, w

from qacamp.cli import main
from qacamp.errors import ConfigError, OutputError, UsageError
from qacamp.readers import _text
from qacamp.workflow_log import ProgressLog

ROOT = Path(__file__).resolve().parents[1]


def eval_error(capsys, argv: list[str]) -> str:
    rc, out, err = run_eval(capsys, argv)
    assert rc == 2 and out == ""
    return error_line(err, "eval")


def test_a_control_character_in_a_clef_run_name_is_reported_at_its_line(here, capsys):
    """It was reported at line 1, the header, which holds no run name."""
    _camp, argv = clef(here)
    w(here, "runs/a.tsv", CLEF_H + "a\x01b\t1\t1\tR\tx\na\x01b\t2\t0\tW\ty\n")
    assert eval_error(capsys, argv) == (
        "runs/a.tsv: line 2: the run name 'a\\x01b' holds a control character U+0001. Fix: "
        "give the run a name of visible characters (letters, digits, - _ . and spaces)")


def test_a_bit_flip_in_gzip_data_says_the_data_is_damaged(here, capsys):
    """A flipped bit that joins two lines of 600 kB made a line longer than the
    limit, reported as such; the gzip checksum says the data is damaged."""
    _camp, argv = clef(here)
    body = CLEF_H + "a\t1\t1\tR\t" + "x" * 600_000 + "\na\t2\t0\tW\t" + "y" * 600_000 + "\n" \
        + "".join(f"a\t{i}\t0\tW\t{'z' * 100}\n" for i in range(3, 30_000))
    data = bytearray(gzip.compress(body.encode(), compresslevel=0, mtime=0))  # stored blocks
    at = data.index(b"x\na\t2")
    data[at + 1] ^= 0x02  # the line feed becomes a line tab: one line of 1.2 MB
    (here / "runs" / "a.tsv").unlink()
    (here / "runs" / "a.tsv.gz").write_bytes(bytes(data))
    msg = eval_error(capsys, [*argv[:3], "runs/a.tsv.gz", "runs/b.tsv"])
    assert msg.startswith("runs/a.tsv.gz: byte ") and ": the gzip data is damaged (CRC check " \
        "failed" in msg
    assert msg.endswith("read as it decompresses, line 2: the line is longer than 1048576 bytes "
                        "(the limit). Fix: get an undamaged copy of the file (`gzip -t FILE` "
                        "tests one)")
    # intact data crossing the limit is still the limit's error
    (here / "runs" / "a.tsv.gz").write_bytes(gzip.compress(
        (CLEF_H + "a\t1\t1\tR\t" + "x" * 1_100_000 + "\n").encode(), mtime=0))
    with pytest.raises(Exception) as exc:
        _text.read_bytes("runs/a.tsv.gz")
    assert str(exc.value) == ("runs/a.tsv.gz: line 2: the line is longer than 1048576 bytes (the "
                              "limit). Fix: check that the file has line breaks and is in the "
                              "right format")


def test_a_named_pipe_as_the_config_of_qacamp_run_is_no_missing_file(here, capsys):
    os.mkfifo(here / "c.yaml")
    assert main(["run", "c.yaml"]) == 2
    assert error_line(capsys.readouterr().err, "run") == (
        "c.yaml: byte 0: the path is a named pipe, not a regular file. Fix: give the path of a "
        "regular file (qacamp never reads pipes or devices)")
    assert main(["run", "none.yaml"]) == 2
    assert error_line(capsys.readouterr().err, "run").startswith(
        "config file none.yaml not found")


def test_a_dry_run_stopped_by_a_config_error_plans_no_steps():
    """After a config error a dry run said "dry run: 0 steps would run"."""
    lines: list[str] = []
    log = ProgressLog(lines.append, dryrun=True, clock=lambda: 1.0)
    log.handle(None, {}, logging.ERROR, "qacamp: config key 'campaigns.c': unknown key 'x'")
    log.close()
    assert lines == ["qacamp: config key 'campaigns.c': unknown key 'x'",
                     "qacamp: dry run stopped before any step was planned (the lines above say "
                     "why): fix the cause and type the same command again"]
    lines.clear()
    log = ProgressLog(lines.append, dryrun=True, clock=lambda: 1.0)
    log.handle("run_info", {"stats": {"total": 7}}, logging.INFO, "job counts")
    log.close()
    assert lines[-1] == "qacamp: dry run: 7 steps would run"


def _shards(here, matrix: str, seed: int, n: int = 3) -> list[str]:
    out = []
    for i in range(n):
        path = f"{Path(matrix).stem}_{i}.parquet"
        assert main(["reliability", "swap", "--matrix", matrix, "--sizes", "2:10:4", "--trials",
                     "3", "--seed", str(seed), "--shard", f"{i}/{n}", "--out", path]) == 0
        out.append(path)
    return out


@pytest.mark.parametrize("order", ["foreign first", "foreign last"])
def test_a_merge_names_the_shard_of_another_campaign(order, here, capsys):
    """The first file was the reference, so a foreign shard given first made
    every good shard the culprit."""
    from test_hostile_values import WEB

    w(here, "mine.csv", WEB)
    w(here, "other.csv", WEB.replace("q1,", "q1x,"))
    mine, other = _shards(here, "mine.csv", 7), _shards(here, "other.csv", 7)
    files = [other[0], mine[1], mine[2]] if order == "foreign first" else \
        [mine[0], mine[1], other[2]]
    capsys.readouterr()
    assert main(["reliability", "merge", "--kind", "swap", "out.parquet", *files]) == 2
    msg = error_line(capsys.readouterr().err, "reliability")
    foreign = other[0] if order == "foreign first" else other[2]
    assert msg.startswith(f"{foreign}: column settings: the settings differ from those of "
                          "mine_"), msg
    assert "(a shard of another score matrix: another campaign, measure or judgment set)" in msg
    assert not (here / "out.parquet").exists()


def test_a_linked_folder_output_is_refused_as_a_link(here):
    """A symlinked tables/ was refused as "holds a file qacamp did not write"
    (the message is qacamp.io's, which follows no link)."""
    from qacamp.io import prepare_outdir
    from qacamp.io.records import MARKER

    (here / "elsewhere").mkdir()
    (here / "elsewhere" / "notes.txt").write_text("mine")
    (here / "out" / "c").mkdir(parents=True)
    (here / "out" / MARKER).mkdir()  # an outdir of qacamp's
    tables = here / "out" / "c" / "tables"
    os.symlink(here / "elsewhere", tables)
    with pytest.raises(OutputError) as exc:
        prepare_outdir(here / "out", [tables], [tables], dry_run=True)
    msg = str(exc.value)
    assert msg.startswith(f"{tables}: cannot write: it is a symbolic link (to "
                          f"{here / 'elsewhere'})"), msg
    assert "did not write" not in msg
    assert (here / "elsewhere" / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("measure, problem", [
    ("type_score", "type_score is computed over a whole run (aggregation 'set'), with no value "
     "per question to draw subsets of (the reliability unit of campaign trec2002 is question)"),
    ("n_right", "n_right has no value per question to draw subsets of (it is computed from a "
     "run's counts over all its questions) (the reliability unit of campaign trec2002 is "
     "question)"),
])
def test_reliability_measures_without_values_per_unit_fail_at_validation(measure, problem):
    """They passed validation, then failed at step 9 of 64 naming --measure,
    --unit and --judgment-set, which the user never typed."""
    from qacamp.plan import validate_config

    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    cfg["campaigns"]["trec2002"]["reliability"] = {"measures": ["cws", measure]}
    if measure == "n_right":
        cfg["campaigns"]["trec2002"]["reliability"]["measures"] = ["cws", "nil_precision"]
        problem = problem.replace("n_right", "nil_precision")
    with pytest.raises(ConfigError) as exc:
        validate_config(cfg, ROOT / "workflow" / "schemas" / "config.schema.yaml")
    assert exc.value.key == "campaigns.trec2002.reliability.measures[1]"
    assert exc.value.problem == problem
    assert "--measure" not in str(exc.value) and exc.value.fix.startswith("use one of accuracy, "
                                                                          "cws, mrr")


def test_a_measure_of_another_kind_is_named_so(here, capsys):
    from hostile_util import qa4mre

    _camp, argv = qa4mre(here)
    assert eval_error(capsys, [*argv, "-m", "cws"]).startswith(
        "-m cws: not a qa4mre measure (it is a measure of trec-factoid and trec-series); the "
        "qa4mre measures are c_at_1, accuracy, ")
    assert eval_error(capsys, [*argv, "-m", "nope"]).startswith(
        "-m nope: unknown measure; the qa4mre measures are c_at_1, ")


@pytest.mark.parametrize("argv, message", [
    (["clef-qa", "--questions", "q.tsv", "runs/a.tsv", "nothere.tsv"],
     "the RUN arguments: 'nothere.tsv': no such file (a relative path is read from the current "
     "folder, {here}). Fix: check the path"),
    (["clef-qa", "--questions", "q*.tsv", "runs/a.tsv"],
     "--questions: 'q*.tsv': no such file (a relative path is read from the current folder, "
     "{here}). Fix: check the path"),
    (["trec-factoid", "--questions", "q.tsv", "--nuggets", "n.txt", "runs/a.tsv"],
     "--nuggets: 'n.txt': no such file"),
])
def test_eval_path_errors_speak_of_its_own_options(argv, message, here, capsys):
    """They named "campaigns.eval.runs" and "the directory the workflow runs in"."""
    clef(here)
    msg = eval_error(capsys, argv)
    assert msg.startswith(message.format(here=here)), msg
    assert "campaigns.eval" not in msg and "workflow" not in msg


def test_runs_after_a_list_of_definition_files_are_said_to_be_taken(here, capsys):
    """`--definition d1 d2 r1` took the run too: "the following arguments are
    required: JUDGED_RUN"."""
    for name in ("q.txt", "n.txt", "d1", "d2", "r1"):
        w(here, name, "x\n")
    msg = eval_error(capsys, ["trec-factoid", "--questions", "q.txt", "--nuggets", "n.txt",
                              "--definition", "d1", "d2", "r1"])
    assert msg == ("no JUDGED_RUN given: --definition took every file after it (d1 d2 r1); give "
                   "the runs before --definition, or end its files with --")
    msg = eval_error(capsys, ["trec-factoid", "--questions", "q.txt", "--nuggets", "n.txt",
                              "--definition-nuggets", "d2", "r1"])
    assert msg.startswith("no JUDGED_RUN given: --definition-nuggets took every file after it")
    # ended with --, the run is a run (here refused for its content, not for its absence)
    msg = eval_error(capsys, ["trec-factoid", "--questions", "q.txt", "--nuggets", "n.txt",
                              "--definition", "d1", "--", "r1"])
    assert not msg.startswith("no JUDGED_RUN")


def test_the_python_api_gives_the_path_errors_alike(here):
    import qacamp

    clef(here)
    with pytest.raises(UsageError) as exc:
        qacamp.evaluate("clef-qa", ["runs/a.tsv", "nothere.tsv"], questions="q.tsv")
    assert str(exc.value).startswith("the RUN arguments: 'nothere.tsv': no such file")
    frame = pl.DataFrame({"unit": ["1"], "a": [1.0]})
    assert frame.height == 1
