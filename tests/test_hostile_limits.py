"""Hostile input, part 2: bounded reading (child processes for hangs and peak
memory) and automatic judging never silently wrong, through ``qacamp ingest``
and ``qacamp eval`` alike; one workflow-level case; the documented limits.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from hostile_util import (
    TOP,
    both_refuse,
    clef,
    error_line,
    factoid,
    matrix_both,
    names_place,
    pan,
    qa4mre,
    run_eval,
    run_ingest,
    same_numbers,
    w,
)

# --------------------------------------------------------------------------- 3: bounded reading

CHILD = """
import resource, subprocess, sys
cli = "import sys; from qacamp.cli import main; sys.exit(main(sys.argv[1:]))"
res = subprocess.run([sys.executable, "-c", cli, *sys.argv[1:]], capture_output=True, text=True)
sys.stderr.write(res.stderr)
print(res.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)
"""
"""A small process running the CLI in its own child and reporting the child's
peak RSS.  (Linux carries the peak RSS of the forking process over ``exec``,
so a child forked straight from pytest would report pytest's own size; forked
from this small process it reports its own.)"""


def child(cwd: Path, *argv: str) -> tuple[int, str, int]:
    """Run the CLI in a child process (a hang fails the test after 120 s instead of
    blocking it) -> (exit code, stderr, peak RSS in KiB)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    res = subprocess.run([sys.executable, "-c", CHILD, *argv], cwd=cwd, capture_output=True,
                         text=True, timeout=120, env=env)
    assert res.returncode == 0, res.stderr
    *lines, last = res.stderr.rstrip("\n").split("\n")
    rc, rss = (int(x) for x in last.split())
    return rc, "\n".join(lines), rss


def _gzip_of(block: bytes, times: int) -> bytes:
    """A gzip file expanding to ``block * times`` (one member per block: built in
    milliseconds; gzip readers read every member)."""
    return gzip.compress(block, 9) * times


def both_children(tmp: Path, campaign: dict, argv: list[str], file: str,
                  place: str) -> tuple[str, int]:
    """Ingest and eval in child processes -> (the shared message, the larger peak RSS)."""
    out = tmp / "results" / "ingest"
    rc_i, err_i, rss_i = child(tmp, "ingest", "--name", "eval", "--campaign-json",
                               json.dumps(campaign), "--out", str(out))
    rc_e, err_e, rss_e = child(tmp, "eval", *argv)
    assert (rc_i, rc_e) == (2, 2), (err_i, err_e)
    msg = error_line(err_i, "ingest")
    assert msg == error_line(err_e, "eval")
    assert names_place(msg, file, place), msg
    assert not out.exists()
    return msg, max(rss_i, rss_e)


MIB = 1024 * 1024


@pytest.mark.slow  # two child processes read millions of lines
def test_gzip_of_1_9_gb_of_newlines(here):
    camp, argv = clef(here)
    w(here, "runs/b.tsv.gz", _gzip_of(b"\n" * MIB, 1900))  # about 2 MB on disk
    camp["runs"] = ["runs/a.tsv", "runs/b.tsv.gz"]
    argv = argv[:3] + camp["runs"]
    msg, rss = both_children(here, camp, argv, "runs/b.tsv.gz", "line 10000001")
    assert "more than 10000000 lines (the limit)" in msg
    assert rss < 400 * 1024, rss  # KiB: far below the expanded 1.9 GB


@pytest.mark.slow  # two child processes read gigabyte-sized streams
def test_gzip_of_3_gb_of_zeros(here):
    camp, argv = factoid(here)
    w(here, "adj/runB.txt.gz", _gzip_of(b"\0" * MIB, 3000))  # about 3 MB on disk
    camp["judgment_sets"]["adjudicated"] = ["adj/runA.txt", "adj/runB.txt.gz"]
    argv = argv[:3] + camp["judgment_sets"]["adjudicated"]
    msg, rss = both_children(here, camp, argv, "adj/runB.txt.gz", "line 1")
    assert "longer than 1048576 bytes (the limit)" in msg
    assert rss < 400 * 1024, rss


def test_200_mb_single_line_xml_run(here):
    camp, argv = qa4mre(here)
    head = b'<output run_id="big"><topic t_id="1"><reading-test r_id="1">'
    w(here, "runs/b.xml.gz", gzip.compress(head, 9) + _gzip_of(b"<!-- x -->" * (MIB // 10), 200))
    camp["runs"] = ["runs/a.xml", "runs/b.xml.gz"]
    argv = argv[:3] + camp["runs"]
    msg, rss = both_children(here, camp, argv, "runs/b.xml.gz", "line 1")
    assert "longer than 1048576 bytes" in msg
    assert rss < 400 * 1024, rss


def test_100000_unclosed_top_lines(here):
    camp, argv = factoid(here)
    w(here, "q/trec11questions", "<top>\n" * 100_000)
    msg, _rss = both_children(here, camp, argv, "q/trec11questions", "line 2")
    assert "a <top> inside the <top> block of line 1, which has no </top>" in msg


def test_unclosed_top_at_end(here, capsys):
    camp, argv = factoid(here)
    w(here, "q/trec11questions", TOP + "<top>\n<num> Number: 4\n")
    msg = both_refuse(capsys, here, camp, argv, "q/trec11questions", "line 19")
    assert "a <top> without </top>" in msg


def test_named_pipe_is_refused_before_reading(here):
    camp, argv = clef(here)
    os.remove(here / "runs" / "b.tsv")
    os.mkfifo(here / "runs" / "b.tsv")  # no writer: reading it would block forever
    msg, _rss = both_children(here, camp, argv, "runs/b.tsv", "byte 0")
    assert "the path is a named pipe, not a regular file" in msg


def test_device_is_refused(here, capsys):
    camp, argv = clef(here)
    camp["questions"] = "/dev/zero"
    argv[2] = "/dev/zero"
    msg = both_refuse(capsys, here, camp, argv, "/dev/zero", "byte 0")
    assert "a character device" in msg


def test_symlink_loop(here, capsys):
    camp, argv = clef(here)
    os.symlink("loop.tsv", here / "runs" / "loop.tsv")
    camp["runs"] = "runs/*.tsv"  # the glob lists the looping link
    rc, err = run_ingest(capsys, camp, here / "results" / "ingest")
    msg = error_line(err, "ingest")
    assert rc == 2 and msg.startswith("runs/loop.tsv: byte 0: cannot open the file")
    assert "symbolic links" in msg
    rc, out, err = run_eval(capsys, argv[:3] + ["runs/a.tsv", "runs/loop.tsv"])
    # named literally, the loop is no readable file: said of the argument
    assert rc == 2 and error_line(err, "eval") == (
        "the RUN arguments: 'runs/loop.tsv' is a symbolic link to no readable file (its target "
        "is missing, or it links to itself). Fix: give the file itself")
    # a looping answers.jsonl: the PAN run name (its folder) is found without
    # resolving the loop, and the read reports it
    camp, argv = pan(here)
    os.remove(here / "runs" / "t2" / "answers.jsonl")
    os.symlink("answers.jsonl", here / "runs" / "t2" / "answers.jsonl")
    rc, err = run_ingest(capsys, {**camp, "answers": "runs/*/answers.jsonl"},
                      here / "results" / "ingest")
    msg = error_line(err, "ingest")
    assert rc == 2 and msg.startswith("runs/t2/answers.jsonl: byte 0: cannot open the file")


@pytest.mark.parametrize("value", ["1" + "0" * 400, "1e400", "-1" + "0" * 400, "[" + "1" * 500 + "]"])
def test_pan_value_out_of_range(value, here, capsys):
    camp, argv = pan(here)
    w(here, "runs/t2/answers.jsonl", f'{{"id": "p0", "value": {value}}}\n')
    msg = both_refuse(capsys, here, camp, argv, "runs/t2/answers.jsonl", "line 1")
    assert "is not a number in [0, 1]" in msg


def test_matrix_limits_through_reliability_and_ingest(here, capsys):
    pl.DataFrame({"a": [[0.5], [1.0]]}).write_parquet(here / "m.parquet")
    assert "type List" in matrix_both(capsys, here, "m.parquet")
    w(here, "m.csv", "a,b\n" + "1,2\r3,4\n")
    assert "carriage return" in matrix_both(capsys, here, "m.csv")


# --------------------------------------------------------------------------- 4: automatic judging

def _autojudge_campaign(tmp: Path, patterns: str, runs: dict[str, str]) -> tuple[dict, list[str]]:
    w(tmp, "q/trec11questions", TOP)
    w(tmp, "patterns", patterns)
    paths = []
    for name, text in runs.items():
        paths.append(w(tmp, f"adj/{name}.txt", text))
    return ({"kind": "trec-factoid", "questions": ["q/trec11questions"],
             "judgment_sets": {"adjudicated": paths}, "patterns": "patterns",
             "autojudge": True},
            ["trec-factoid", "--questions", "q/trec11questions", "--patterns", "patterns", *paths])


def test_autojudge_at_ingest_same_numbers(here, capsys):
    camp, argv = _autojudge_campaign(here, "1 Paris\n2 Rome|Roma\n3 ^\\d+$\n", {
        "r1": "1 r1 D R in Paris\n2 r1 D W Oslo\n3 r1 D R 1969\n",
        "r2": "1 r2 D W London\n2 r2 D R Roma\n3 r2 D W about 1969\n"})
    same_numbers(capsys, here, camp, argv, judgment_set="automatic")
    judg = pl.read_parquet(here / "res" / "ingest" / "judgments.parquet")
    auto = judg.filter(pl.col("judgment_set") == "automatic").sort("run", "qid")
    assert auto["judgment"].to_list() == ["R", "W", "R", "W", "R", "W"]


def test_autojudge_truncation_is_reported(here, capsys):
    long = "x" * 1200 + " Paris"
    camp, argv = _autojudge_campaign(here, "1 Paris\n", {
        "r1": f"2 r1 D W y\n1 r1 D R {long}\n3 r1 D W z\n"})
    warnings = same_numbers(capsys, here, camp, argv, judgment_set="automatic")
    assert warnings.select("file", "place", "kind", "count").rows() == [
        ("adj/r1.txt", "line 2", "autojudge-truncated", 1)]
    assert "1 answers of run 'r1' are longer than 1000 characters (longest 1206)" in \
        warnings["message"][0]


def test_autojudge_timeouts_are_counted_and_bounded(here, capsys):
    evil = "(?:a|a)" * 30 + "b"  # passes the static check; backtracks 2^30 steps
    runs = {f"r{i}": f"1 r{i} D R {'a' * 30}c{i}\n2 r{i} D W x\n3 r{i} D W y\n"
            for i in range(6)}
    camp, argv = _autojudge_campaign(here, f"1 {evil}\n2 x\n", runs)
    warnings = same_numbers(capsys, here, camp, argv, judgment_set="automatic")
    row = warnings.row(0, named=True)
    assert (row["file"], row["place"], row["kind"], row["count"]) == (
        "patterns", "line 1", "autojudge-timeout", 6)
    assert "timed out (0.1 s) on 3 answers" in row["message"]
    assert "not tried on 3 more answers" in row["message"]


def test_autojudge_refuses_nested_quantifiers(here, capsys):
    camp, argv = _autojudge_campaign(here, "1 Paris\n2 (\\w+\\s?)+$\n", {"r1": "1 r1 D R x\n"})
    msg = both_refuse(capsys, here, camp, argv, "patterns", "line 2")
    assert "is itself repeated (catastrophic backtracking)" in msg


def test_autojudge_uncompilable_pattern_names_its_line(here, capsys):
    camp, argv = _autojudge_campaign(here, "1 Paris\n3 (10 percent|about 15\n",
                                     {"r1": "1 r1 D R x\n"})
    msg = both_refuse(capsys, here, camp, argv, "patterns", "line 2")
    assert "not a usable regular expression" in msg


def test_autojudge_without_patterns_is_a_config_error(here, capsys):
    camp, argv = factoid(here)
    camp["autojudge"] = True
    out = here / "results" / "ingest"
    rc, err = run_ingest(capsys, camp, out)
    assert rc == 2 and "autojudge': is true but no answer patterns" in error_line(err, "ingest")


# --------------------------------------------------------------------------- workflow

@pytest.mark.slow
def test_workflow_stops_on_a_lone_carriage_return(tmp_path, small_campaign):
    from workflow_util import snakemake

    cfg = small_campaign
    bad = sorted((tmp_path / "data" / "runs").glob("*.tsv"))[1]
    lines = bad.read_text().splitlines()
    bad.write_bytes(("\n".join(lines[:4]) + "\r" + "\n".join(lines[4:]) + "\n").encode())
    res = snakemake(tmp_path, configfile=cfg)
    assert res.returncode != 0
    log_path = tmp_path / "results/mine/logs/ingest.log"
    assert log_path.is_file(), res.stdout[-3000:] + res.stderr[-3000:]
    log = log_path.read_text()
    assert "Traceback" not in log
    assert re.search(rf"{re.escape(bad.name)}: line 4: the line holds a carriage return", log), log
    assert not (tmp_path / "results/mine/ingest").exists() or not any(
        (tmp_path / "results/mine/ingest").iterdir())
    assert not (tmp_path / "results/mine/scores").exists()


def test_docs_formats_lists_every_limit():
    """docs/formats.md gives every limit constant with its exact value."""
    from qacamp import autojudge, bounds, configfile
    from qacamp.ingest import DEFAULT_MIN_COVERAGE
    from qacamp.readers import _text, _xml

    doc = (Path(__file__).resolve().parents[1] / "docs" / "formats.md").read_text()
    rows = [ln for ln in doc.splitlines() if ln.startswith("|")]
    for name, value in [("MAX_FILE_BYTES", _text.MAX_FILE_BYTES),
                        ("MAX_LINE_BYTES", _text.MAX_LINE_BYTES),
                        ("MAX_LINES", _text.MAX_LINES), ("CHUNK_BYTES", _text.CHUNK_BYTES),
                        ("MAX_XML_DEPTH", _xml.MAX_XML_DEPTH),
                        ("MAX_INPUT", autojudge.MAX_INPUT), ("MAX_PATTERN", autojudge.MAX_PATTERN),
                        ("MAX_TIMEOUTS", autojudge.MAX_TIMEOUTS), ("TIMEOUT", autojudge.TIMEOUT),
                        ("min_coverage", DEFAULT_MIN_COVERAGE),
                        ("MAX_CONFIG_BYTES", configfile.MAX_CONFIG_BYTES),
                        ("MAX_CONFIG_NODES", configfile.MAX_CONFIG_NODES),
                        ("MAX_SHARDS", bounds.MAX_SHARDS), ("MAX_BINS", bounds.MAX_BINS),
                        ("MAX_GRID_POINTS", bounds.MAX_GRID_POINTS)]:
        assert any(f"`{name}`" in row and f"`{value}`" in row for row in rows), name


def test_truncated_and_corrupt_gzip(here, capsys):
    camp, argv = clef(here)
    good = gzip.compress((here / "runs" / "b.tsv").read_bytes())
    camp["runs"] = ["runs/a.tsv", "runs/b.tsv.gz"]
    argv = argv[:3] + camp["runs"]
    for data, place in ((good[: len(good) // 2], r": byte \d+ \(end of file\): .*ends before the end marker"),
                        (good[:12] + b"\xff" * 20 + good[32:], r": byte \d+( \(end of file\))?: ")):
        w(here, "runs/b.tsv.gz", data)
        msg = both_refuse(capsys, here, camp, argv, "runs/b.tsv.gz")
        assert "cannot read the file" in msg and re.search(place, msg), msg


def test_csv_field_limit(here, capsys):
    w(here, "m.csv", 'a,b\n"' + "1" * 140_000 + '",2\n')
    msg = matrix_both(capsys, here, "m.csv")
    assert msg.startswith("m.csv: line 2: malformed CSV (field larger than field limit")


def test_autojudge_pattern_too_long(here, capsys):
    camp, argv = _autojudge_campaign(here, "1 Paris\n2 " + "a" * 2001 + "\n",
                                     {"r1": "1 r1 D R x\n"})
    msg = both_refuse(capsys, here, camp, argv, "patterns", "line 2")
    assert "pattern longer than 2000 characters" in msg


def test_json_that_python_cannot_hold(here, capsys):
    camp, argv = pan(here)
    for value in ("1" * 5000, "[" * 100_000 + "]" * 100_000):
        w(here, "runs/t2/answers.jsonl", f'{{"id": "p0", "value": {value}}}\n')
        msg = both_refuse(capsys, here, camp, argv, "runs/t2/answers.jsonl", "line 1")
        assert "unreadable JSON" in msg


@pytest.mark.parametrize("declared", ["shift_jis", "utf-7", "bogus-enc"])
def test_xml_encoding_the_parser_cannot_decode(declared, here, capsys):
    camp, argv = qa4mre(here)
    text = (here / "gold.xml").read_text().replace('encoding="UTF-8"', f'encoding="{declared}"')
    w(here, "gold.xml", text)
    msg = both_refuse(capsys, here, camp, argv, "gold.xml", "line 1")
    assert "unsupported XML encoding" in msg
