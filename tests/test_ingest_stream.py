"""`qacamp ingest` in bounded memory: the run tables are kept in a
spill folder while the files are read and written a row group at a time, with
the bytes the in-memory frames give (`qacamp eval`'s path, and the writer
before the change); nothing is left behind when it fails."""

from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest
import yaml
from paths import ROOT, SHARED_DATA

from qacamp import tables
from qacamp.cli import main
from qacamp.ingest import (
    INGEST_ROW_GROUP,
    ingest_campaign,
    read_campaign,
    resolved_campaign,
    write_ingest,
)
from qacamp.io import ROW_GROUP, parquet_bytes, spilling
from qacamp.io.spill import PLAIN_BYTES
from qacamp.io.writers import write_row_groups

DEMO = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["campaigns"]
TREC = SHARED_DATA / "trec-qa"


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def _streamed(name: str, campaign: dict, base: Path, outs: dict[int, Path],
              plain_bytes: int = PLAIN_BYTES) -> dict:
    """Read once with a spill folder (its first ``plain_bytes`` uncompressed),
    write it in row groups of each size of ``outs`` (size -> folder); returns
    each folder's files."""
    with spilling(plain_bytes=plain_bytes) as spill:
        acc = read_campaign(name, campaign, base, spill=spill)
        resolved = resolved_campaign(name, campaign, base)
        for row_group, out in outs.items():
            write_ingest(acc, resolved, out, row_group=row_group)
    return {row_group: _files(out) for row_group, out in outs.items()}


def _expected(frames: dict, row_group: int) -> dict[str, bytes]:
    """Each in-memory frame as Parquet bytes in row groups of ``row_group`` rows,
    with statistics on its sort keys."""
    return {f"{name}.parquet": bytes(parquet_bytes(frames[name], row_group,
                                                    tables.SORT_KEYS[name]))
            for name in tables.SCHEMAS}


#: a small row group (prime): every run table of the demo cut at many places,
#: inside buckets and inside the pieces read
TINY = 97


def _same_as_in_memory(name: str, campaign: dict, base: Path, tmp: Path) -> None:
    frames = ingest_campaign(name, campaign, base)
    # the writer before the change, on the in-memory frames (what `qacamp eval` reads)
    write_ingest(frames, resolved_campaign(name, campaign, base), tmp / "memory")
    want = _files(tmp / "memory")
    assert _streamed(name, campaign, base, {INGEST_ROW_GROUP: tmp / "streamed"}) \
        == {INGEST_ROW_GROUP: want}
    # (the spill's first 64 KiB uncompressed, the rest LZ4-compressed)
    tiny = _streamed(name, campaign, base, {TINY: tmp / "tiny"}, plain_bytes=1 << 16)[TINY]
    assert {k: v for k, v in tiny.items() if k.endswith(".parquet")} == _expected(frames, TINY)
    assert tiny["campaign.json"] == want["campaign.json"]


@pytest.mark.parametrize("name", sorted(DEMO))
def test_demo_campaign_streamed_same_bytes(name, tmp_path, monkeypatch):
    """The demo config's six campaigns: sorted run tables (trec2002, four
    judgment sets; trec2004, several files per run), and tables read in
    canonical order (pan, written in the files' own chunks)."""
    monkeypatch.chdir(ROOT)
    _same_as_in_memory(name, DEMO[name], ROOT, tmp_path)


def test_demo_cli_ingest_same_bytes(tmp_path, monkeypatch):
    """`qacamp ingest --config config/config.yaml` writes every file as the
    in-memory writer does."""
    monkeypatch.chdir(ROOT)
    for name in ("qa4mre2012", "pan"):
        out = tmp_path / name
        assert main(["ingest", "--config", "config/config.yaml", "--campaign", name,
                     "--out", str(out)]) == 0
        write_ingest(ingest_campaign(name, DEMO[name]), resolved_campaign(name, DEMO[name]),
                     tmp_path / f"{name}-memory")
        assert _files(out) == _files(tmp_path / f"{name}-memory")


@pytest.mark.skipif(not TREC.exists(), reason="../shared/data missing")
def test_real_data_campaigns_streamed_same_bytes(tmp_path, capsys):
    """Real question sets and keys: TREC 2003 (factoid, list, definition parts;
    distinct list instances), automatic judging with the real TREC 2004
    patterns (one judgments frame holding every run), simulated runs of the
    real TREC 2004 series (four parts), the real web2004 score matrix."""
    from test_trec2003 import campaign as trec2003

    (tmp_path / "t03").mkdir()
    sim = tmp_path / "sim"
    assert main(["simulate", "trec-series", "--questions-from", str(TREC / "trec13questions.xml"),
                 "--out", str(sim), "--runs", "4", "--seed", "3", "--quiet"]) == 0
    judged = sim / "judged" / "adjudicated"
    runs = tmp_path / "auto"
    runs.mkdir()
    for run, answers in (("r1", ("black", "red", "Limp Bizkit")),
                         ("r2", ("blue", "blue", "Durst"))):
        (runs / f"{run}.txt").write_text("".join(  # (not in qid order: rows to sort)
            f"{q} {run} D{i} R {a}\n" for i, (q, a) in enumerate(zip(("2.1", "1.4", "1.5"),
                                                                    answers, strict=True))))
    camps = {
        "trec2003": trec2003(tmp_path / "t03"),
        "auto": {"kind": "trec-factoid", "questions": str(TREC / "trec13questions.xml"),
                 "judgment_sets": {"adjudicated": str(runs / "*.txt")},
                 "patterns": str(TREC / "trec13patterns_factoid"), "autojudge": True,
                 "min_coverage": 0},
        "series": {"kind": "trec-series", "year": 2004,
                   "questions": str(TREC / "trec13questions.xml"),
                   "nuggets": str(sim / "nuggets.txt"), "list_key": str(sim / "list_key.txt"),
                   "judgment_sets": {"adjudicated": {
                       p: str(judged / p / "*.txt.gz")
                       for p in ("factoid", "list", "other", "other_nuggets")}}},
        "web2004": {"kind": "score-matrix", "measure": "ap",
                    "matrix": str(SHARED_DATA / "score-matrices" / "web2004.csv")},
    }
    capsys.readouterr()
    with spilling() as spill:  # the automatic set: one frame of every run, cut into buckets
        judgments = read_campaign("auto", camps["auto"], tmp_path, spill=spill).spilled["judgments"]
        assert not judgments.ordered and len(judgments.buckets) == 4
        assert len(judgments.frames) == 3 and len(spill.spans) == 2 + 3 + 2  # (+ its two parts)
    for name, camp in camps.items():
        _same_as_in_memory(name, camp, tmp_path, tmp_path / f"out-{name}")


def test_a_spill_keeps_its_first_bytes_uncompressed_and_compresses_the_rest():
    """Frames put while the spill holds less than ``plain_bytes`` are kept
    as they are, later ones LZ4-compressed; both read back the same."""
    frame = pl.DataFrame({"run": ["aeba02a"] * 20_000, "qid": [str(i % 500) for i in range(20_000)],
                          "score": [None] * 20_000}, schema={"run": pl.String, "qid": pl.String,
                                                             "score": pl.Float64})
    with spilling(plain_bytes=1) as spill:
        plain, packed = spill.put(frame), spill.put(frame.to_arrow())
        plain_size, packed_size = spill.spans[plain][1], spill.spans[packed][1]
        assert packed_size < plain_size / 4
        for handle in (plain, packed):
            assert spill.frame(handle).equals(frame)
            assert spill.get(handle).equals(frame.to_arrow())
    with spilling() as spill:  # (the default: far more than these bytes kept plain)
        assert [spill.spans[spill.put(frame)][1] for _ in range(3)] == [plain_size] * 3


def test_row_groups_of_sorted_and_read_in_order_pieces():
    """write_row_groups gives parquet_bytes' bytes for a frame sorted into one
    chunk and for a concatenation keeping its pieces' chunks (where Parquet
    pages end depends on them), at every row group size."""
    import polars as pl

    df = pl.DataFrame({"run": [f"r{i % 5}" for i in range(200)], "qid": [str(i) for i in range(200)],
                       "item": pl.Series(range(200), dtype=pl.Int32)})
    pieces = [df.slice(i, 23) for i in range(0, 200, 23)]
    whole = pl.concat(pieces)
    assert whole.n_chunks() > 1
    for rg in (1, 7, 23, 64, 199, 200, ROW_GROUP):
        for one_chunk, frame in ((True, whole.rechunk()), (False, whole)):
            for threads in (1, 2, 3):  # (row groups encoded apart and joined)
                sink = pa.BufferOutputStream()
                write_row_groups(sink, [p.to_arrow() for p in pieces], df.to_arrow().schema,
                                 one_chunk, rg, ("run", "item"), threads)
                assert sink.getvalue() == parquet_bytes(frame, rg, ("run", "item")), \
                    (rg, one_chunk, threads)
    for threads in (1, 2):
        sink = pa.BufferOutputStream()
        write_row_groups(sink, [], df.to_arrow().schema, True, threads=threads)
        assert sink.getvalue() == parquet_bytes(df.head(0))


def test_a_bucket_is_a_leading_part_of_its_tables_sort_keys():
    """A bucket's rows are sorted on the keys after its own (equal in it):
    the whole sort only when a bucket's keys lead the table's."""
    from qacamp.ingest.accumulator import BUCKETS

    for name, bucket in BUCKETS.items():
        assert tables.SORT_KEYS[name][:len(bucket)] == bucket, name


def test_spilled_frames_of_one_or_several_buckets_give_the_canonical_order():
    """Frames of one run, of several runs interleaved, and with a null key,
    spilled and read back bucket by bucket: the table's canonical order
    (a stable sort of the rows as read), for judgments too (two key columns)."""
    from qacamp.ingest.accumulator import _Spilled

    frames = [
        pl.DataFrame({"judgment_set": ["b"] * 3, "run": ["r2"] * 3, "qid": ["9", "1", "5"]}),
        pl.DataFrame({"judgment_set": ["a", "b", "a", "b", None],
                      "run": ["r1", "r2", "r1", "r1", "r1"], "qid": ["7", "3", "2", "1", "4"]}),
        pl.DataFrame({"judgment_set": ["a"] * 2, "run": ["r1"] * 2, "qid": ["0", "7"]}),
        pl.DataFrame({"judgment_set": ["a"] * 3, "run": ["r0"] * 3, "qid": ["6", "2", "6"]}),
    ]
    frames = [tables.conform("judgments", f.with_columns(pl.lit(1).alias("item"),
                                                         pl.lit("R").alias("judgment")))
              for f in frames]
    with spilling() as spill:
        spilled = _Spilled("judgments", spill)
        for f in frames:
            spilled.add(f)
        parts, one_chunk = list(spilled.pieces(ROW_GROUP)), not spilled.ordered
        got = pl.from_arrow(pa.concat_tables(parts))
        presorted = len(spilled.sorted)
    assert one_chunk and len(parts) == 5  # (a, r0), (a, r1), (b, r1), (b, r2), (null, r1)
    assert presorted == 3  # the frames of one bucket: (a, r0) is one of them alone
    assert got.equals(tables.canonical_order("judgments", pl.concat(frames)))


def test_a_table_read_back_in_read_order_is_not_spilled_sorted():
    """The responses that automatic judging reads back run by run come in read
    order when the Acc is made with ``read_order``; without it, a frame out
    of order is spilled sorted and reading it back in read order is refused
    (never rows in another order); the canonical tables are the same."""
    from qacamp.ingest.accumulator import Acc

    frames = [tables.conform("responses", pl.DataFrame(
        {"run": [run] * 3, "qid": qids, "item": [1] * 3, "answered": [True] * 3}))
        for run, qids in (("r2", ["9", "1", "5"]), ("r1", ["3", "2", "8"]))]
    with spilling() as spill:
        kept, presorted = Acc(spill=spill, read_order=("responses",)), Acc(spill=spill)
        for frame in frames:
            kept.add("responses", frame)
            presorted.add("responses", frame)
        batches = list(kept.run_batches(1))
        with pytest.raises(RuntimeError, match=r"read_order=\('responses',\)"):
            list(presorted.run_batches(1))
        with pytest.raises(RuntimeError, match="read_order"):
            presorted.table("responses")
        assert kept.table("responses").equals(pl.concat(frames))
        assert presorted.frame("responses").equals(kept.frame("responses"))
    assert [b["qid"].to_list() for b in batches] == [["3", "2", "8"], ["9", "1", "5"]]


def test_rows_left_after_a_row_group_hold_only_their_own_bytes():
    """After a row group is written, the rows left for the next one are a
    copy: a slice would keep every part they came from in memory."""
    from qacamp.io.writers import RowGroupWriter

    part = pa.table({"run": pa.array([f"run-{i:07d}" for i in range(100_000)], pa.large_string())})
    writer = RowGroupWriter(pa.BufferOutputStream(), part.schema, True, 60_000)
    writer.add(part)
    (left,) = writer._pending
    assert left.num_rows == 40_000 and left.column(0).to_pylist() == \
        part.column(0).to_pylist()[60_000:]
    assert left.get_total_buffer_size() < 0.5 * part.get_total_buffer_size()
    writer.close()


# --------------------------------------------------------------------------- failures

QUESTIONS = "".join(f"<top>\n<num> Number: {i}\n<desc> Description:\nQuestion {i}?\n</top>\n\n"
                    for i in (1, 2, 3))


def _many_runs(base: Path, n: int, bad: int | None) -> dict:
    (base / "q").mkdir(parents=True)
    (base / "q" / "questions").write_text(QUESTIONS)
    judged = base / "judged"
    judged.mkdir()
    for i in range(1, n + 1):
        run = f"run{i:04d}"
        lines = [f"{q} {run} D{q} {'RW'[q % 2]} ans{q}\n" for q in (3, 1, 2)]
        if i == bad:
            lines[1] = f"1 {run} D1 Q ans1\n"  # not a judgment code
        (judged / f"{run}.txt.gz").write_bytes(gzip.compress("".join(lines).encode()))
    return {"kind": "trec-factoid", "questions": str(base / "q" / "questions"),
            "judgment_sets": {"adjudicated": str(judged / "*.txt.gz")}}


def test_bad_line_in_the_500th_file_leaves_nothing(tmp_path, monkeypatch, capsys):
    """A bad line in the 500th of 520 run files: the error names it; no spill
    file, no output folder, no temporary file is left."""
    spill_root = tmp_path / "tmp"
    spill_root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spill_root))
    camp = _many_runs(tmp_path / "camp", 520, bad=500)
    out = tmp_path / "results" / "ingest"
    rc = main(["ingest", "--name", "c", "--campaign-json", json.dumps(camp), "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert f"{tmp_path}/camp/judged/run0500.txt.gz: line 2: " in err, err
    assert list(spill_root.iterdir()) == []
    assert not out.exists() and not (tmp_path / "results").exists()


def test_spilled_frames_are_added_by_a_thread_of_their_own_in_read_order(tmp_path, monkeypatch):
    """While the files are read, the run tables' frames are spilled by one
    thread behind the reading (`Acc.spilling_behind`), in the order read:
    the tables equal those read without a spill."""
    import threading

    from qacamp.ingest.accumulator import _Spilled

    seen: list[tuple[str, str, str]] = []
    real = _Spilled.add

    def recording(self, df, whole=None):
        seen.append((threading.current_thread().name, self.name, df["run"][0]))
        return real(self, df, whole)

    monkeypatch.setattr(_Spilled, "add", recording)
    camp = _many_runs(tmp_path / "camp", 40, bad=None)
    with spilling() as spill:
        acc = read_campaign("c", camp, spill=spill, threads=2)
        streamed = {name: acc.frame(name) for name in tables.SCHEMAS}
    assert {thread for thread, _, _ in seen} == {"qacamp-behind"}
    runs = [f"run{i:04d}" for i in range(1, 41)]
    assert [run for _, name, run in seen if name == "responses"] == runs
    assert [run for _, name, run in seen if name == "judgments"] == runs
    memory = ingest_campaign("c", camp)
    for name in tables.SCHEMAS:
        assert streamed[name].equals(memory[name]), name


@pytest.mark.parametrize("failure", ["disk full", "interrupt"])
def test_a_failure_while_spilling_behind_the_reading_stops_it(failure, tmp_path, monkeypatch,
                                                                capsys):
    """The spill thread fails at the 10th of 300 run files (a full disk
    there; Ctrl-C): one line, the reading stops soon after, no thread and
    nothing on disk are left."""
    import threading

    from qacamp.errors import OutputError
    from qacamp.ingest.accumulator import _Spilled
    from qacamp.io.spill import SPILL_FIX

    spill_root = tmp_path / "tmp"
    spill_root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spill_root))
    calls: list[str] = []
    real = _Spilled.add

    def failing(self, df, whole=None):
        calls.append(self.name)
        if len(calls) == 20:
            if failure == "interrupt":
                raise KeyboardInterrupt
            raise OutputError(tempfile.gettempdir(), "No space left on device", SPILL_FIX)
        return real(self, df, whole)

    monkeypatch.setattr(_Spilled, "add", failing)
    camp = _many_runs(tmp_path / "camp", 300, bad=None)
    out = tmp_path / "results" / "ingest"
    rc = main(["ingest", "--name", "c", "--campaign-json", json.dumps(camp), "--out", str(out)])
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    if failure == "interrupt":
        assert rc == 130 and err.strip().splitlines()[-1] == "qacamp ingest: interrupted", err
    else:
        lines = [ln for ln in err.splitlines() if ": error: " in ln]
        assert rc == 2 and len(lines) == 1, err
        assert f"{spill_root}: cannot write: No space left on device" in lines[0], lines[0]
    assert len(calls) <= 30  # (the frames read after the failure are not spilled)
    assert [t.name for t in threading.enumerate() if t.name == "qacamp-behind"] == []
    assert list(spill_root.iterdir()) == []
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize("table", ["judgments", "responses"])
def test_failure_while_writing_leaves_nothing(tmp_path, monkeypatch, capsys, table):
    """A failure after the first tables are written (in the judgments table's
    row groups, or in a row group of the responses, encoded in threads)
    removes the spill folder, the written tables and their temporaries: the
    output folder is not created."""
    from qacamp.io import rowgroup_writer
    from qacamp.io import writers as files

    spill_root = tmp_path / "tmp"
    spill_root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spill_root))
    real = files.write_row_groups
    encoded = rowgroup_writer.RowGroupWriter._encoded

    def failing(sink, parts, schema, one_chunk, row_group, statistics, threads=1):
        if "judgment_set" in schema.names:
            raise OSError(28, "No space left on device")
        return real(sink, parts, schema, one_chunk, row_group, statistics, threads)

    def failing_group(self, held):
        raise OSError(28, "No space left on device")

    if table == "judgments":
        monkeypatch.setattr(files, "write_row_groups", failing)
    else:
        monkeypatch.setattr(rowgroup_writer.RowGroupWriter, "_encoded", failing_group)
    camp = _many_runs(tmp_path / "camp", 30, bad=None)
    out = tmp_path / "results" / "ingest"
    rc = main(["ingest", "--name", "c", "--campaign-json", json.dumps(camp), "--out", str(out),
               "--threads", "2"])
    err = capsys.readouterr().err
    assert rc == 2 and "No space left on device" in err, err
    assert f"{table}.parquet" in err
    assert list(spill_root.iterdir()) == []
    assert not (tmp_path / "results").exists()
    # and the same campaign, written: every file as the in-memory writer's
    monkeypatch.setattr(files, "write_row_groups", real)
    monkeypatch.setattr(rowgroup_writer.RowGroupWriter, "_encoded", encoded)
    assert main(["ingest", "--name", "c", "--campaign-json", json.dumps(camp),
                 "--out", str(out)]) == 0
    write_ingest(ingest_campaign("c", camp), resolved_campaign("c", camp), tmp_path / "memory")
    assert _files(out) == _files(tmp_path / "memory")
    assert list(spill_root.iterdir()) == []


def _layout(path: Path) -> tuple[list[int], dict[str, list]]:
    """(rows of each row group, column -> per group (min, max, null count) or
    None without statistics)."""
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(path).metadata
    stats: dict[str, list] = {}
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        for j in range(group.num_columns):
            s = group.column(j).statistics
            stats.setdefault(group.column(j).path_in_schema, []).append(
                (s.min, s.max, s.null_count) if s is not None and s.has_min_max else None)
    return [meta.row_group(g).num_rows for g in range(meta.num_row_groups)], stats


def test_ingest_tables_have_row_groups_of_128k_rows_and_statistics_on_their_sort_keys(
        tmp_path):
    """300,000 responses and judgments (of 30 runs): row groups of
    INGEST_ROW_GROUP rows, each with the exact min, max and null count of the
    table's sort keys, and no statistics of the other columns (the scoring
    selects a batch's row groups by them: test_scoring_rowgroups.py)."""
    n = 300_000
    runs = [f"run{i // 10_000:02d}" for i in range(n)]
    qids = [f"q{i % 10_000:05d}" for i in range(n)]
    frames = {
        "responses": tables.conform("responses", pl.DataFrame({
            "run": runs, "qid": qids, "item": [1] * n, "rank": [1] * n,
            "answer": ["an answer"] * n, "answered": [True] * n})),
        "judgments": tables.conform("judgments", pl.DataFrame({
            "judgment_set": "adjudicated", "run": runs, "qid": qids, "item": [1] * n,
            "judgment": "R"})),
    }
    write_ingest(frames, {"kind": "trec-factoid"}, tmp_path / "ingest")
    assert INGEST_ROW_GROUP == 128 * 1024
    for name, df in frames.items():
        rows, stats = _layout(tmp_path / "ingest" / f"{name}.parquet")
        assert rows == [INGEST_ROW_GROUP, INGEST_ROW_GROUP, n - 2 * INGEST_ROW_GROUP]
        keys = tables.SORT_KEYS[name]
        assert {c for c, per in stats.items() if any(per)} == set(keys)
        ordered = tables.canonical_order(name, df)
        for g, start in enumerate(range(0, n, INGEST_ROW_GROUP)):
            part = ordered.slice(start, INGEST_ROW_GROUP)
            for key in keys:
                col = part[key]
                assert stats[key][g] == (col.min(), col.max(), col.null_count()), (name, key, g)


def test_demo_ingest_has_statistics_on_every_tables_sort_keys(demo_ingest):
    """Every table of a demo campaign's ingest (`qacamp ingest`): statistics on
    its sort keys, in every row group holding rows, and on no other column."""
    folder = demo_ingest("trec2004")
    for name in tables.SCHEMAS:
        rows, stats = _layout(folder / f"{name}.parquet")
        keys = tables.SORT_KEYS[name]
        for column, per in stats.items():
            held = [s for s, n in zip(per, rows, strict=True) if n]
            if column in keys:
                assert all(s is not None for s in held), (name, column)
            else:
                assert not any(held), (name, column)


def test_progress_of_the_write_phase_counts_rows(tmp_path):
    """`qacamp ingest` reports the write phase in rows (the run tables are
    the long part): calls as parts are written, in every table, rising to
    the rows of all tables."""
    calls: list[tuple[int, int]] = []
    with spilling() as spill:
        acc = read_campaign("trec2004", DEMO["trec2004"], ROOT, spill=spill)
        resolved = resolved_campaign("trec2004", DEMO["trec2004"], ROOT)
        write_ingest(acc, resolved, tmp_path / "ingest", row_group=TINY,
                     progress=lambda done, total: calls.append((done, total)))
    rows = {name: pa.parquet.ParquetFile(tmp_path / "ingest" / f"{name}.parquet")
            .metadata.num_rows for name in tables.SCHEMAS}
    total = sum(rows.values())
    assert {t for _, t in calls} == {total}
    done = [d for d, _ in calls]
    assert done == sorted(done) and done[-1] == total
    # (a call per part written, a run's rows of a run table: not only per table)
    assert len(set(done)) > 10 * len(tables.SCHEMAS)


def test_an_interrupt_while_the_run_tables_are_written_stops_their_threads(
        tmp_path, monkeypatch, capsys):
    """Ctrl-C in the main thread while the run tables are written in threads
    of their own: one line, exit code 130, nothing left, and the threads stop
    at their next part instead of writing their tables to the end."""
    import threading

    import qacamp.ingest
    from qacamp.io import writers as files

    added: list[int] = []
    started = threading.Event()
    real_add = files.RowGroupWriter.add

    def slow_add(self, part):  # (a run table's part: a run's rows, 0.1 s each)
        added.append(part.num_rows)
        started.set()
        threading.Event().wait(0.1)
        return real_add(self, part)

    real_parts = qacamp.ingest.write_parquet_parts

    def interrupted(parts, schema, path, **options):  # (the first table of the main thread)
        if Path(path).name == "questions.parquet":
            started.wait(60)
            raise KeyboardInterrupt
        return real_parts(parts, schema, path, **options)

    monkeypatch.setattr(files.RowGroupWriter, "add", slow_add)
    monkeypatch.setattr(qacamp.ingest, "write_parquet_parts", interrupted)
    camp = _many_runs(tmp_path / "camp", 60, bad=None)  # (60 runs: 60 parts a run table)
    out = tmp_path / "results" / "ingest"
    rc = main(["ingest", "--name", "c", "--campaign-json", json.dumps(camp), "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 130 and err.strip().splitlines()[-1] == "qacamp ingest: interrupted", err
    assert "Traceback" not in err
    assert not (tmp_path / "results").exists()
    assert 1 <= len(added) <= 6  # (at most a part or two a thread after the interrupt)
    assert [t.name for t in threading.enumerate() if t.name.startswith("qacamp-write")] == []


@pytest.mark.parametrize("failing", [1, 3])
def test_a_row_group_failing_in_its_thread_stops_the_writing(failing, tmp_path, monkeypatch):
    """A row group encoded in a thread that fails (the first, or the third of
    many): the error is raised to the writer's caller, the row groups still
    being encoded are waited for and dropped, and the file the writer opened
    is closed (nothing written after the failure)."""
    import polars as pl

    from qacamp.io import rowgroup_writer

    encoded, calls = rowgroup_writer.RowGroupWriter._encoded, []

    def failing_group(self, held):
        calls.append(1)
        if len(calls) == failing:
            raise OSError(28, "No space left on device")
        return encoded(self, held)

    monkeypatch.setattr(rowgroup_writer.RowGroupWriter, "_encoded", failing_group)
    df = pl.DataFrame({"run": [f"r{i % 5}" for i in range(500)],
                       "item": pl.Series(range(500), dtype=pl.Int32)})
    path = tmp_path / "t.parquet"
    with pytest.raises(OSError, match="No space left"):
        write_row_groups(str(path), [df.slice(i, 50).to_arrow() for i in range(0, 500, 50)],
                         df.to_arrow().schema, True, 40, threads=2)
    size = path.stat().st_size
    assert len(calls) < 500 // 40 + 1 and path.read_bytes()[:4] == b"PAR1"
    assert path.stat().st_size == size  # (closed: no thread writes to it any more)
