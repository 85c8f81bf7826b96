"""Nothing stale or unrecorded trusted: damaged intermediates are errors
(never crashes, never different numbers), and changes upstream propagate.

* Bit-flip scans over ``ingest/judgments.parquet``, ``ingest/responses.parquet``
  and ``scores/runs.parquet``: 300 positions each, in every class of byte
  (header magic, page data, footer metadata, key-value metadata, footer
  length and magic).  Through the CLI (``qacamp score`` / ``qacamp report``,
  in-process, one call per flip): exit code 2 naming the file, never exit 0,
  never a panic.  A file without its record is never read, whatever its bytes
  (a valid Parquet file of other numbers included).
* A Parquet file a user gives (a score matrix) is parsed in a child process:
  truncation, a valid footer over garbage, absurd lengths, even the parser
  dying, are one clean error.
* Another table's file under a table's name: refused.
* ``qacamp verify`` on the session's demo run, then on a copy with an altered
  file and an edited judgment file; the README's command then rebuilds exactly
  what changed, with the clean run's numbers.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from workflow_util import (
    DEMO_OUT,
    ROOT,
    bounded_run,
    differing_files,
    make_cmd,
    needs_make,
    qacamp,
)

from qacamp.cli import main
from qacamp.errors import InputError
from qacamp.io import read_parquet

PANIC = ("panicked", "RUST_BACKTRACE", "memory allocation of", "Traceback")
SCANNED = ("ingest/judgments.parquet", "ingest/responses.parquet", "scores/runs.parquet")


# --------------------------------------------------------------------------- positions

def byte_classes(data: bytes) -> dict[str, list[int]]:
    """Every byte of a Parquet file by class: header (leading magic), page data
    (the column chunks: page headers and pages), footer (the Thrift file
    metadata), metadata (its key-value part, the stored Arrow schema), tail
    (footer length and trailing magic)."""
    n = len(data)
    flen = int.from_bytes(data[n - 8:n - 4], "little")
    fstart = n - 8 - flen
    md = pq.ParquetFile(pa.BufferReader(data)).metadata
    pages = set()
    for i in range(md.num_row_groups):
        for j in range(md.num_columns):
            c = md.row_group(i).column(j)
            start = c.dictionary_page_offset if c.has_dictionary_page else c.data_page_offset
            pages.update(range(start, start + c.total_compressed_size))
    value = md.metadata[b"ARROW:schema"]
    at = data.index(value, fstart)
    kv = set(range(data.rindex(b"ARROW:schema", fstart, at), at + len(value)))
    return {"header": [0, 1, 2, 3], "page data": sorted(pages),
            "footer": [p for p in range(fstart, n - 8) if p not in kv],
            "metadata": sorted(kv), "tail": list(range(n - 8, n))}


def positions(data: bytes, total: int = 300) -> list[tuple[str, int, int]]:
    """``total`` (class, byte, bit) spread evenly over every class (all of the
    header and tail, the rest shared by the others)."""
    classes = byte_classes(data)
    fixed = classes["header"] + classes["tail"]
    out = [("header" if p < 4 else "tail", p, p % 8) for p in fixed]
    rest = [c for c in ("page data", "footer", "metadata")]
    left = total - len(out)
    for k, name in enumerate(rest):
        pool = classes[name]
        share = left // (len(rest) - k)
        step = max(1, len(pool) / share)
        picks = sorted({pool[int(i * step)] for i in range(min(share, len(pool)))})
        out += [(name, p, (p * 5 + 3) % 8) for p in picks]
        left -= len(picks)
    assert len(out) == total, len(out)
    return out


def flipped(data: bytes, pos: int, bit: int) -> bytes:
    b = bytearray(data)
    b[pos] ^= 1 << bit
    return bytes(b)


# --------------------------------------------------------------------------- a campaign

@pytest.fixture(scope="module")
def camp(tmp_path_factory) -> Path:
    """A CLEF campaign (8 runs, 120 questions) ingested and scored by the CLI."""
    base = tmp_path_factory.mktemp("damage")
    assert main(["simulate", "clef-qa", "--out", str(base / "data"), "--runs", "8",
                 "--questions", "120", "--seed", "16", "--quiet"]) == 0
    cfg = {"kind": "clef-qa", "questions": str(base / "data/questions.tsv"),
           "runs": str(base / "data/runs/*.tsv")}
    assert main(["ingest", "--campaign-json", json.dumps(cfg), "--name", "c",
                 "--out", str(base / "c" / "ingest")]) == 0
    assert main(["score", "--ingest", str(base / "c" / "ingest"),
                 "--out", str(base / "c" / "scores")]) == 0
    return base


def reader_argv(camp: Path, rel: str, out: Path) -> list[str]:
    """The command that reads ``rel``: score reads the ingest tables, the report
    the scores."""
    if rel.startswith("ingest/"):
        return ["score", "--ingest", str(camp / "c" / "ingest"), "--out", str(out)]
    return ["report", "tables", "--campaign-dir", str(camp / "c"), "--no-reliability",
            "--out", str(out)]


def test_positions_cover_every_class(camp):
    for rel in SCANNED:
        data = (camp / "c" / rel).read_bytes()
        pos = positions(data)
        assert len(pos) == len({(p, b) for _, p, b in pos}) == 300
        counts = {c: sum(1 for k, _, _ in pos if k == c) for c in
                  ("header", "page data", "footer", "metadata", "tail")}
        assert counts["header"] == 4 and counts["tail"] == 8, counts
        assert min(counts["page data"], counts["footer"], counts["metadata"]) >= 80, counts


@pytest.mark.parametrize("rel", SCANNED)
def test_cli_refuses_every_flipped_bit_naming_the_file(camp, tmp_path, capfd, rel):
    path = camp / "c" / rel
    good = path.read_bytes()
    out = tmp_path / "out"
    argv = reader_argv(camp, rel, out)
    command = argv[0]
    try:
        # 120 flips: all of the header and tail, about 36 in each other class
        # (each is refused by its SHA-256 before any byte is parsed)
        for cls, pos, bit in positions(good, 120):
            path.write_bytes(flipped(good, pos, bit))
            rc = main(argv)
            err = capfd.readouterr().err
            assert rc == 2, (cls, pos, bit, err)
            assert not any(p in err for p in PANIC), (cls, pos, bit, err)
            lines = [ln for ln in err.splitlines() if ": error: " in ln]
            assert len(lines) == 1 and lines[0].startswith(
                f"qacamp {command}: error: {path}: changed since `qacamp "), (cls, pos, err)
            assert "rerun the same command to rebuild it" in lines[0]
            assert not out.exists()  # nothing written
    finally:
        path.write_bytes(good)
    assert main(argv) == 0  # the file as written reads cleanly


def test_without_a_record_nothing_is_read(camp, tmp_path, capsys):
    """The judgments rewritten as a valid Parquet file (every judgment R) with
    its record removed: `qacamp score` refuses it (it scored it before, and
    c@1 changed), `qacamp verify` names it, and so for a flipped copy."""
    ingest = tmp_path / "c" / "ingest"
    shutil.copytree(camp / "c" / "ingest", ingest)
    path = ingest / "judgments.parquet"
    forged = pl.read_parquet(path).with_columns(pl.lit("R").alias("judgment"))
    forged.write_parquet(path)
    (ingest / ".qacamp-output" / "judgments.parquet.json").unlink()
    before = path.read_bytes()
    out = tmp_path / "c" / "scores"
    rc = main(["score", "--ingest", str(ingest), "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"qacamp score: error: {path}: no record: qacamp did not write it "
                          "or its record was removed. Fix: rebuild with "), err
    assert not out.exists() and path.read_bytes() == before
    res = qacamp("verify", str(tmp_path / "c"))
    assert res.returncode == 1
    assert f"unrecorded: {path} (qacamp did not write it, or its record was removed)" \
        in res.stdout.splitlines()
    for _cls, pos, bit in positions(before)[::60]:
        path.write_bytes(flipped(before, pos, bit))
        with pytest.raises(InputError, match="no record"):
            read_parquet(path)


def test_workflow_check_removes_every_flipped_file_it_owns(camp, tmp_path):
    """What the workflow runs before it plans (qacamp.io.prepare_outdir), at
    every sixth position of the scan (50 per file, every class; the check is
    the file's hash, whatever the position): the damaged file qacamp owns is
    named and removed (so the run rebuilds it), nothing else is touched."""
    from qacamp.io import prepare_outdir

    out = tmp_path / "results"
    shutil.copytree(camp / "c", out / "c")
    (out / ".qacamp-output").mkdir()
    files = {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    assert prepare_outdir(out, [out / "c"]) == []
    for rel in SCANNED:
        path = out / "c" / rel
        good = files[path]
        for cls, pos, bit in positions(good)[::6]:
            path.write_bytes(flipped(good, pos, bit))
            done = prepare_outdir(out, [out / "c"])
            assert len(done) == 1 and done[0].startswith(
                f"{path} changed since it was written (sha256 "), (cls, pos, done)
            assert done[0].endswith("removed, this run rebuilds it")
            assert not path.exists()
            path.write_bytes(good)
    assert {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()} == files


def test_a_dry_run_says_what_it_would_rebuild_and_changes_nothing(camp, tmp_path):
    """Snakemake's -n: the outdir's check names the damaged file but leaves it
    (and its time stamp) as it is, and creates no new outdir."""
    from qacamp.io import prepare_outdir

    assert prepare_outdir(tmp_path / "new", dry_run=True) == []
    assert not (tmp_path / "new").exists()
    out = tmp_path / "results"
    shutil.copytree(camp / "c", out / "c")
    (out / ".qacamp-output").mkdir()
    path = out / "c" / SCANNED[0]
    good = path.read_bytes()
    cls, pos, bit = positions(good)[150]
    path.write_bytes(flipped(good, pos, bit))
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in out.rglob("*") if p.is_file()}
    done = prepare_outdir(out, [out / "c"], dry_run=True)
    assert len(done) == 1 and done[0].startswith(f"{path} changed since it was written")
    assert done[0].endswith("a run removes and rebuilds it")
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in out.rglob("*")
            if p.is_file()} == before
    assert prepare_outdir(out, [out / "c"])[0].endswith("removed, this run rebuilds it")
    assert not path.exists()


def test_a_users_parquet_matrix_is_parsed_in_a_child(camp, tmp_path, capfd, monkeypatch):
    """Truncation, a valid footer over garbage, absurd lengths, maxed footer
    bytes: one clean error naming the file, or the same numbers; and if the
    Parquet library dies on the bytes, still one clean error."""
    from qacamp.io import verified
    from qacamp.readers.matrix import read_matrix_table

    good_frame = pl.DataFrame({"a": [0.1, 0.5, 0.9], "b": [0.2, 0.4, 1.0]})
    good_frame.write_parquet(tmp_path / "good.parquet")
    good = (tmp_path / "good.parquet").read_bytes()
    want = read_matrix_table(tmp_path / "good.parquet")
    n = len(good)
    flen = int.from_bytes(good[n - 8:n - 4], "little")
    garbage = bytes((i * 131 + 7) % 256 for i in range(n - 8 - flen - 4))
    cases = {f"truncated to {k}": good[:k] for k in (3, 12, n // 2, n - 1)}
    cases["valid footer over garbage"] = good[:4] + garbage + good[n - 8 - flen:]
    cases["footer length 2**31 - 1"] = good[:n - 8] + (2**31 - 1).to_bytes(4, "little") + b"PAR1"
    cases["footer length 0"] = good[:n - 8] + (0).to_bytes(4, "little") + b"PAR1"
    for start in range(n - 8 - flen, n - 8, max(1, flen // 3)):
        b = bytearray(good)
        b[start] = 0xFF
        cases[f"footer byte {start} = 0xff"] = bytes(b)
    path = tmp_path / "m.parquet"
    for what, data in cases.items():
        path.write_bytes(data)
        try:
            got = read_matrix_table(path)
        except InputError as exc:
            assert str(exc).startswith(f"{path}: byte 0: "), (what, exc)
        else:
            assert got.runs == want.runs and (got.values == want.values).all(), what
        err = capfd.readouterr().err
        assert not any(p in err for p in PANIC), (what, err)
    # the child dies (an abort of the C++ library): one error, this process lives on
    monkeypatch.setattr(verified, "_CHILD", "import os; os.abort()")
    path.write_bytes(good)
    rc = main(["reliability", "swap", "--matrix", str(path), "--sizes", "1:2", "--trials", "2",
               "--out", str(tmp_path / "s.parquet")])
    err = capfd.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1, err
    assert f"{path}: byte 0: not a readable Parquet file (the Parquet reader failed on it " \
        "(exit status -6))" in err


def test_another_tables_file_is_refused_not_scored(camp, tmp_path, capsys):
    """A copied questions.parquet under the name judgments.parquet: never every
    c@1 = 0 with exit 0."""
    ingest = tmp_path / "ingest"
    shutil.copytree(camp / "c" / "ingest", ingest)
    shutil.copy(ingest / "questions.parquet", ingest / "judgments.parquet")
    rc = main(["score", "--ingest", str(ingest), "--out", str(tmp_path / "s1")])
    err = capsys.readouterr().err
    assert rc == 2 and f"error: {ingest / 'judgments.parquet'}: changed since `qacamp ingest` " \
        "wrote it" in err, err
    # with the questions' record copied too: the declared schema refuses it
    shutil.copy(ingest / ".qacamp-output" / "questions.parquet.json",
                ingest / ".qacamp-output" / "judgments.parquet.json")
    rc = main(["score", "--ingest", str(ingest), "--out", str(tmp_path / "s2")])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert (f"error: {ingest / 'judgments.parquet'}: lacks the column(s) judgment_set, run, "
            "item, judgment, distinct and has the unexpected column(s) qtype, series") in err
    assert "(another table's file?)" in err
    assert not (tmp_path / "s1").exists() and not (tmp_path / "s2").exists()


# ------------------------------------------------------------------ verify and the workflow

def _copy_demo(demo_work: Path, to: Path, own: str) -> Path:
    """The session's demo workdir copied (results, Snakemake's metadata, mtimes
    kept) with a private copy of campaign ``own``'s raw files."""
    shutil.copytree(demo_work / DEMO_OUT, to / DEMO_OUT, symlinks=True)
    shutil.copytree(demo_work / ".snakemake" / "metadata", to / ".snakemake" / "metadata")
    (to / "config").symlink_to(ROOT / "config")
    res = to / "resources" / "demo"
    res.mkdir(parents=True)
    for entry in sorted((ROOT / "resources" / "demo").iterdir()):
        if entry.name == own:
            shutil.copytree(entry, res / entry.name)
        else:
            (res / entry.name).symlink_to(entry)
    return to


def _edit_gold(gold: Path) -> None:
    """Move the first question's right answer to its first option in a QA4MRE
    gold file, keeping the file's old mtime (as `cp -p`, `rsync -t` or an
    archive would)."""
    st = gold.stat()
    text = gold.read_text(encoding="utf-8")
    first = text.index("<answer a_id='1' ")
    assert text.index(' correct="Yes"') > first
    text = text.replace(' correct="Yes"', "", 1)
    text = text[:first] + "<answer a_id='1' correct=\"Yes\" " + \
        text[first + len("<answer a_id='1' "):]
    gold.write_text(text, encoding="utf-8")
    os.utime(gold, ns=(st.st_atime_ns, st.st_mtime_ns))


# the two demo campaigns cheapest to rebuild
FLIPPED = "trec2004"   # bit flips in its intermediates
EDITED = "qa4mre2012"  # its gold standard (the judgments) edited after the run


@pytest.fixture(scope="module")
def damaged_copy(demo_work, tmp_path_factory) -> tuple[Path, Path, dict]:
    work = _copy_demo(demo_work, tmp_path_factory.mktemp("demo_damaged"), EDITED)
    out = work / DEMO_OUT
    flips = {}
    for rel, k in zip(SCANNED, (0, 1, 2), strict=True):
        p = out / FLIPPED / rel
        data = p.read_bytes()
        cls, pos, bit = positions(data)[[20, 150, 260][k]]
        p.write_bytes(flipped(data, pos, bit))
        flips[rel] = cls
    gold = work / "resources/demo" / EDITED / "gold.xml"
    _edit_gold(gold)
    return work, gold, flips


@pytest.mark.slow
@needs_make
def test_verify_names_changed_and_stale_files(demo_work, damaged_copy):
    res = qacamp("verify", str(demo_work / DEMO_OUT))
    assert res.returncode == 0, res.stdout[-3000:]
    assert res.stdout.strip().splitlines()[-1].endswith(
        ": 0 changed, 0 missing, 0 unrecorded, 0 stale")
    work, gold, flips = damaged_copy
    res = qacamp("verify", DEMO_OUT, cwd=work)
    assert res.returncode == 1 and "Traceback" not in res.stderr
    lines = res.stdout.splitlines()
    for rel in SCANNED:
        assert any(ln.startswith(f"changed: {DEMO_OUT}/{FLIPPED}/{rel} (sha256 ")
                   for ln in lines), (rel, lines[:20])
    edited = f"resources/demo/{EDITED}/gold.xml"
    # the causes first: the edited input, then what it makes stale, per folder
    assert lines[0] == f"changed input: {edited} (changed since `qacamp ingest` read it)"
    block = []
    for ln in lines[1:]:
        if not ln.startswith("  stale: "):
            break
        block.append(ln.removeprefix("  stale: "))
    named = {f"{folder}/{name}" for folder, names in (b.split(": ", 1) for b in block)
             for name in names.split(" (")[0].split(", ")}
    for rel in ("ingest/judgments.parquet", "scores/runs.parquet", "scores/runs.csv",
                "reliability/swap_c_at_1_summary.parquet", "tables/runs.csv",
                "figures/stability.png", "report.html"):
        assert f"{DEMO_OUT}/{EDITED}/{rel}" in named, (rel, block[:10])
    # nothing of the other campaigns is named (the index and the editions'
    # overview are built from the two) but their DuckDB index: its views name
    # the files where the copy was made from (README: rebuild it after a move)
    others = [n for n in named if f"/{EDITED}/" not in n and f"{DEMO_OUT}/overview/" not in n
              and not n.endswith("index.html")]
    assert others == []
    causes = [ln for ln in lines if ln.startswith(("changed", "stale", "missing", "unrecorded"))
              and f"/{FLIPPED}/" not in ln and f"/{EDITED}/" not in ln
              and f"{DEMO_OUT}/overview/" not in ln and not ln.startswith("changed input: ")
              and not ln.split(" ")[1].endswith("index.html")]
    assert {ln.split(" ")[1] for ln in causes} == {
        f"{DEMO_OUT}/{c}/campaign.duckdb" for c in ("trec2002", "pan", "clef2009", "qa4mre2013")}
    for ln in causes:  # (the folder the views read: the clean run's, copied from)
        c = ln.split(" ")[1].split("/")[1]
        assert ln.startswith(f"changed: {DEMO_OUT}/{c}/campaign.duckdb (its views read the "
                             "Parquet files under /") and ln.endswith(
            f"/{DEMO_OUT}/{c}, not this folder's (the results were moved or copied): rebuild "
            f"it with `qacamp duckdb {DEMO_OUT}/{c}`)"), ln
    assert all(ln.startswith(("changed", "missing", "unrecorded", "  stale: ", "qacamp verify:",
                              "note:")) for ln in lines), lines


@pytest.mark.slow
@needs_make
def test_workflow_rebuilds_damaged_and_stale_files(demo_work, damaged_copy):
    work, gold, _ = damaged_copy
    before = json.loads((work / DEMO_OUT / EDITED / "manifest.json").read_text())
    res = bounded_run(make_cmd("config/config.yaml"), cwd=work, timeout=1800)
    out = res.stdout + res.stderr
    assert res.returncode == 0, out[-4000:]
    for rel in SCANNED:
        assert f"qacamp: {DEMO_OUT}/{FLIPPED}/{rel} changed since it was written" in out, rel
    # the edited judgments said once, with their cause; the copy's DuckDB index
    # (its views name the files where the copy was made from) is said apart
    said = [ln for ln in out.splitlines() if f"{DEMO_OUT}/{EDITED}" in ln
            and ln.startswith("qacamp: ") and "rebuilds" in ln]
    assert len(said) == 2 and said[0].startswith(
        f"qacamp: {DEMO_OUT}/{EDITED}/campaign.duckdb changed since it was written (its views "
        "read the Parquet files under /") and said[0].endswith(
        f"/{DEMO_OUT}/{EDITED}, not this folder's (the results were moved or copied): rebuild "
        f"it with `qacamp duckdb {DEMO_OUT}/{EDITED}`): removed, this run rebuilds it"), said
    assert said[1:] == [
        f"qacamp: {DEMO_OUT}/{EDITED}: resources/demo/{EDITED}/gold.xml changed since "
        "`qacamp ingest` read it: this run rebuilds the 10 files of ingest/ built from it and "
        "what follows from them"], said
    # the damaged campaign: rebuilt to the clean run's bytes
    assert differing_files(demo_work / DEMO_OUT / FLIPPED, work / DEMO_OUT / FLIPPED) == []
    # the edited one: rebuilt from the new judgment, recorded in its manifest
    after = json.loads((work / DEMO_OUT / EDITED / "manifest.json").read_text())
    key = f"resources/demo/{EDITED}/gold.xml"
    old = {i["path"]: i["sha256"] for i in before["inputs"]}
    new = {i["path"]: i["sha256"] for i in after["inputs"]}
    assert old[key] != new[key]
    assert {k: v for k, v in old.items() if k != key} == {k: v for k, v in new.items()
                                                          if k != key}
    assert after["intermediates"] != before["intermediates"]
    clean = pl.read_parquet(demo_work / DEMO_OUT / EDITED / "scores/runs.parquet")
    rerun = pl.read_parquet(work / DEMO_OUT / EDITED / "scores/runs.parquet")
    assert not clean.equals(rerun)
    # every other campaign untouched, and nothing left stale or changed anywhere
    for c in ("trec2002", "pan", "clef2009", "qa4mre2013"):
        assert differing_files(demo_work / DEMO_OUT / c, work / DEMO_OUT / c) == [], c
    res = qacamp("verify", DEMO_OUT, cwd=work)
    assert res.returncode == 0, res.stdout[-3000:]
