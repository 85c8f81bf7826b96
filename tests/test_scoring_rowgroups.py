"""The run tables read a row group at a time (memory follows the batch or
shard of runs, not the campaign).

`qacamp score` reads responses, judgments and nugget matches through
:class:`qacamp.io.rowgroups.RowGroups`: each batch decodes only the row groups
holding its runs' rows, and the campaign-level facts come from one scan of a
few columns (:func:`qacamp.scoring.runtables.survey`).  These tests check that
this gives exactly the frames of the tables read whole, on demo campaigns
whose tables are rewritten in row groups of a few rows (so batches, shards
and row groups cut across each other), and that a damaged row group is an
error naming the file.
"""

from __future__ import annotations

import functools
import gc
import os
import random
import warnings
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from polars.testing import assert_frame_equal
from workflow_util import qacamp_in_root

from qacamp.errors import InputError
from qacamp.ingest import read_resolved
from qacamp.io import read_parquet, read_row_groups, rowgroups, write_bytes, write_parquet_parts
from qacamp.scoring import batches, frames, score_campaign
from qacamp.scoring.runtables import RUN_TABLES, of_runs
from qacamp.tables import SCHEMAS, SORT_KEYS


@pytest.fixture(scope="module", params=["trec2002", "trec2004", "qa4mre2013", "pan"])
def ingested(request, demo_ingest, tmp_path_factory):
    """(kind, campaign, tables read whole, folder of the run tables rewritten
    in about 23 row groups) of one demo campaign."""
    ingest = demo_ingest(request.param)
    campaign = read_resolved(ingest / "campaign.json")
    kind = campaign.get("kind") or campaign["options"]["kind"]
    tables = {name: read_parquet(ingest / f"{name}.parquet", schema=SCHEMAS[name])
              for name in SCHEMAS}
    small = tmp_path_factory.mktemp(request.param) / "small"
    small.mkdir()
    for name in RUN_TABLES:
        size = max(7, tables[name].height // 23)  # about 23 row groups
        table = tables[name].to_arrow()
        write_parquet_parts([table], table.schema, small / f"{name}.parquet", one_chunk=True,
                            row_group=size, statistics=SORT_KEYS[name])
    return kind, campaign, tables, small


def _sources(tables: dict, small: Path) -> dict:
    return {name: read_row_groups(small / f"{name}.parquet", SCHEMAS[name])
            if name in RUN_TABLES else df for name, df in tables.items()}


def _same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for name in a:
        assert_frame_equal(a[name], b[name], check_exact=True), name


@pytest.fixture(scope="module")
def whole_scores(ingested):
    """The scores of a shard from the tables read whole, in the default
    batches, each made once (the scores do not depend on the batches:
    tests/test_scoring_parallel.py)."""
    kind, campaign, tables, _ = ingested
    return functools.cache(lambda shard: score_campaign(kind, tables, campaign, shard))


# (codes: every output frame of a batch sorted on codes, the per-question
# ones given as Enum codes, as frames of 100,000 rows or more are: the
# campaign's frames still come with the declared string columns)
@pytest.mark.parametrize(("cells", "shard", "scan", "codes"), [
    (None, (0, 1), None, False), (300, (0, 1), None, False), (300, (2, 3), None, False),
    (None, (0, 1), 7, False), (300, (0, 1), None, True)])
def test_scores_from_row_groups_equal_scores_from_whole_tables(ingested, whole_scores,
                                                               monkeypatch, cells, shard, scan,
                                                               codes):
    kind, campaign, tables, small = ingested
    whole = whole_scores(shard)
    if codes:
        monkeypatch.setattr(frames, "CODES_FROM", 0)
    if cells is not None:  # batches of a few runs: they cut across row groups
        monkeypatch.setattr(batches, "BATCH_CELLS", cells)
    if scan is not None:  # the first scan of the run tables in parts of about 3 row groups
        monkeypatch.setattr(rowgroups, "SCAN_ROWS", max(1, tables["responses"].height // scan))
    _same(score_campaign(kind, _sources(tables, small), campaign, shard), whole)


def test_rows_of_any_runs_equal_the_filtered_table(ingested):
    _, _, tables, small = ingested
    rng = random.Random(19)
    for name in RUN_TABLES:
        src = read_row_groups(small / f"{name}.parquet", SCHEMAS[name])
        df = tables[name]
        runs = sorted(set(df["run"].drop_nulls().to_list()))
        # every chunk, whole or coded (Categorical strings, read in 1 and 3
        # threads each with its own reader), adds up to the table
        assert_frame_equal(pl.concat(list(src.chunks())), df)
        few, default = max(1, df.height // 7), rowgroups.SCAN_ROWS  # (few: about 3 groups)
        for threads, scan in ((1, default), (3, default), (3, few)):
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(rowgroups, "SCAN_ROWS", scan)
                parts = src.each(src.columns, lambda c: c, threads)
                assert len(parts) == 1 if scan == default else \
                    df.height < 30 or 3 <= len(parts) <= 12, (name, len(parts))
                coded = pl.concat(parts)
            assert_frame_equal(coded.with_columns(pl.col(pl.Categorical).cast(pl.String)), df)
        for _ in range(12):
            names = rng.sample(runs, rng.randint(0, len(runs))) if runs else []
            assert_frame_equal(of_runs(src, names)(), df.filter(pl.col("run").is_in(names)))
        # the row group kept for the next batch holds its strings coded (each
        # distinct string once); the rows taken from it have the declared types
        of_runs(src, runs[:1])()
        if runs:
            kept = src._last[1]
            strings = [c for c, t in SCHEMAS[name].items() if t == pl.String]
            assert strings and all(pa.types.is_dictionary(kept.schema.field(c).type)
                                   for c in strings), kept.schema


def test_a_damaged_row_group_is_an_error_naming_the_file(ingested, tmp_path):
    kind, campaign, tables, small = ingested
    path = tmp_path / "responses.parquet"
    data = bytearray((small / "responses.parquet").read_bytes())
    meta = pq.ParquetFile(small / "responses.parquet").metadata
    if meta.num_row_groups < 2:
        pytest.skip("too few responses for two row groups")
    chunk = meta.row_group(meta.num_row_groups - 1).column(0)
    # the last bytes of the chunk are its last page's data (CRC-checked): the
    # footer and the other row groups intact
    at = (chunk.dictionary_page_offset or chunk.data_page_offset) + chunk.total_compressed_size - 2
    data[at] ^= 0x10
    write_bytes(bytes(data), path)  # (recorded as it is: only the page checksum sees it)
    t = dict(tables)
    t["responses"] = read_row_groups(path, SCHEMAS["responses"])  # opens: footer is intact
    with pytest.raises(InputError) as err:
        score_campaign(kind, t, campaign)
    assert str(err.value).startswith(f"{path}: cannot be read although it is as `qacamp.io` "
                                     "wrote it (")


def test_what_is_decoded_is_what_was_verified_though_the_file_changes_after(ingested,
                                                                            tmp_path):
    """The run tables are decoded from a private copy made (and hashed) when
    the file is opened, not from the file: bytes written into it afterwards
    change nothing (memory holds a row group's bytes, not the file's)."""
    kind, campaign, tables, small = ingested
    path = tmp_path / "responses.parquet"
    original = (small / "responses.parquet").read_bytes()
    write_bytes(original, path)
    t = dict(tables)
    t["responses"] = read_row_groups(path, SCHEMAS["responses"])
    with open(path, "r+b") as fh:  # the same file, overwritten in place
        fh.write(b"\0" * (len(original) - 8))
    _same(score_campaign(kind, t, campaign), score_campaign(kind, tables, campaign))


def test_no_room_for_the_private_copy_is_an_error_naming_the_file_and_the_fix(
        ingested, tmp_path, monkeypatch):
    import tempfile

    _kind, _campaign, _tables, small = ingested
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no-such-folder"))
    with pytest.raises(InputError) as err:
        read_row_groups(small / "responses.parquet", SCHEMAS["responses"])
    text = str(err.value)
    assert str(small / "responses.parquet") in text and "private copy" in text
    assert "TMPDIR" in text


def _kernel_copy(monkeypatch, how: str) -> list[int]:
    """``os.copy_file_range`` as ``how`` says: counted (``kernel``), absent
    (``none``), refusing (``refused``: another file system), ending at once
    (``short``: 0 bytes, as some file systems do) or failing with the errno
    ``how`` names (ENOSPC, EIO); returns the list of its calls."""
    import errno

    calls, real = [], getattr(os, "copy_file_range", None)

    def fake(*args):
        calls.append(args[2])
        if how == "kernel":
            return real(*args)
        if how == "short":
            return 0
        code = errno.EXDEV if how == "refused" else getattr(errno, how)
        raise OSError(code, os.strerror(code))
    if how == "none":
        monkeypatch.delattr(os, "copy_file_range", raising=False)
    else:
        monkeypatch.setattr(os, "copy_file_range", fake)
    return calls


@pytest.mark.skipif(not hasattr(os, "copy_file_range"), reason="os.copy_file_range (Linux)")
@pytest.mark.parametrize("how", ["kernel", "none", "refused", "short"])
def test_the_private_copy_is_the_same_whether_the_kernel_makes_it_or_not(demo_ingest, tmp_path,
                                                                         monkeypatch, how):
    """The kernel makes the private copy where it can (``os.copy_file_range``)
    and the copy's own bytes are hashed; where the system has no such call or
    refuses it (another file system), the bytes go through memory.  Either
    way the rows decoded are the file's, and a file changed since qacamp
    wrote it is refused.  A kernel copy that ends short of the file (0 bytes
    at once, as some file systems give) is made again through memory."""
    calls = _kernel_copy(monkeypatch, how)
    source = demo_ingest("trec2002") / "responses.parquet"
    with read_row_groups(source, SCHEMAS["responses"]) as table:
        got = pl.concat(list(table.chunks()))
    assert_frame_equal(got, pl.read_parquet(source).cast(got.schema), check_exact=True)
    assert len(calls) == {"kernel": 2, "none": 0, "refused": 1, "short": 1}[how]
    changed = tmp_path / "responses.parquet"
    data = bytearray(source.read_bytes())
    write_bytes(bytes(data), changed)
    data[len(data) // 2] ^= 1
    with open(changed, "r+b") as fh:
        fh.write(data)
    with pytest.raises(InputError, match="changed since"):
        read_row_groups(changed, SCHEMAS["responses"])


@pytest.mark.skipif(not hasattr(os, "copy_file_range"), reason="os.copy_file_range (Linux)")
@pytest.mark.parametrize(("how", "said"), [("ENOSPC", "private copy of it in the temporary"),
                                           ("EIO", "cannot read it (Input/output error)")])
def test_a_failing_kernel_copy_is_an_error_naming_the_file(demo_ingest, monkeypatch, how, said):
    _kernel_copy(monkeypatch, how)
    source = demo_ingest("trec2002") / "responses.parquet"
    before = _open_files()
    with pytest.raises(InputError) as err:
        read_row_groups(source, SCHEMAS["responses"])
    assert str(err.value).startswith(f"{source}: ") and said in str(err.value)
    assert ("TMPDIR" in str(err.value)) == (how == "ENOSPC")
    assert _open_files() == before  # (the copy and the file closed)


def _open_files() -> list[str]:
    """What this process's file descriptors point to (Linux)."""
    fds = Path("/proc/self/fd")
    targets = []
    for fd in fds.iterdir():
        try:
            targets.append(os.readlink(fd))
        except OSError:  # (the descriptor of the listing itself, closed by now)
            pass
    return sorted(targets)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="lists /proc/self/fd (Linux)")
def test_score_shards_and_merge_in_process_leave_no_file_open(demo_scores, tmp_path):
    """`qacamp score` closes the private copies it reads the run tables and the
    shards' tables from (an API or notebook user scores many campaigns in one
    process): whole, as two shards and their merge, no descriptor is left,
    and none was left for the garbage collector to close (a ResourceWarning)."""
    ingest, whole = demo_scores("trec2002")
    gc.collect()  # (what earlier tests left is not this test's)
    before = _open_files()
    shards = [tmp_path / f"s{i}" for i in range(2)]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", ResourceWarning)
        for i, out in enumerate(shards):
            assert qacamp_in_root("score", "--ingest", ingest, "--shard", f"{i}/2",
                                  "--out", out) == 0
        assert qacamp_in_root("score", "--ingest", ingest, "--out", tmp_path / "merged",
                              "--merge", *shards) == 0
        assert qacamp_in_root("score", "--ingest", ingest, "--out", tmp_path / "again") == 0
        gc.collect()
    assert [str(w.message) for w in seen if w.category is ResourceWarning] == []
    assert _open_files() == before
    assert (tmp_path / "merged" / "units.parquet").read_bytes() == \
        (whole / "units.parquet").read_bytes()


def test_a_closed_row_group_table_has_closed_its_copy(ingested):
    _kind, _campaign, _tables, small = ingested
    before = _open_files()
    with read_row_groups(small / "responses.parquet", SCHEMAS["responses"]) as table:
        assert len(_open_files()) > len(before)  # the private copy
        assert sum(c.height for c in table.chunks()) == \
            pq.ParquetFile(small / "responses.parquet").metadata.num_rows
    assert _open_files() == before


@pytest.mark.parametrize("statistics", [(), ("run",)])
@pytest.mark.parametrize("runs", [["a", "a", "b", "a", "c", "c"],  # a run in two stretches
                                  ["a", None, "b", "b", None, "a"]])  # nulls
def test_rows_of_runs_in_stretches_or_with_nulls_equal_the_filtered_table(runs, statistics,
                                                                          tmp_path):
    """With and without min/max statistics of the run (the ingest writes them;
    an older file has none): the rows of any runs are the filtered table's."""
    n = len(runs)
    df = pl.DataFrame({"run": runs, "qid": [str(i) for i in range(n)], "item": [1] * n},
                      schema_overrides={"item": pl.Int32})
    table = df.to_arrow()
    write_parquet_parts([table], table.schema, tmp_path / "t.parquet", one_chunk=True,
                        row_group=4, statistics=statistics)  # (two row groups)
    schema = dict(df.schema)
    with read_row_groups(tmp_path / "t.parquet", schema) as src:
        for names in (["a"], ["b"], ["a", "c"], ["c", "b"], [], ["a", "b", "c"], ["z"]):
            assert_frame_equal(of_runs(src, names)(), df.filter(pl.col("run").is_in(names)))


@pytest.mark.parametrize("statistics", [(), ("run",)])
def test_only_the_row_groups_holding_the_runs_are_decoded(statistics, tmp_path, monkeypatch):
    """20 runs of 5 rows in row groups of 10 rows (two runs a group): with the
    run's statistics, a batch of runs decodes only its groups, nothing of
    the others; without (a file written before), the run column of every
    group too."""
    from qacamp.io.rowgroups import RowGroups

    runs = [f"r{i:02d}" for i in range(20) for _ in range(5)]
    df = pl.DataFrame({"run": runs, "qid": [f"q{i % 5}" for i in range(100)]})
    table = df.to_arrow()
    write_parquet_parts([table], table.schema, tmp_path / "t.parquet", one_chunk=True,
                        row_group=10, statistics=statistics)
    decoded: list[tuple[int, tuple[str, ...]]] = []
    real = RowGroups._coded_group

    def spy(self, g, columns):
        decoded.append((g, tuple(columns)))
        return real(self, g, columns)
    monkeypatch.setattr(RowGroups, "_coded_group", spy)
    with read_row_groups(tmp_path / "t.parquet", dict(df.schema)) as src:
        for names, groups in ((["r07"], [3]), (["r05", "r06", "r07", "r08"], [2, 3, 4]),
                              (["r19", "r00"], [0, 9])):
            decoded.clear()
            assert_frame_equal(of_runs(src, names)(), df.filter(pl.col("run").is_in(names)))
            whole = sorted({g for g, columns in decoded if columns == ("run", "qid")})
            assert whole == groups
            keys = {g for g, columns in decoded if columns == ("run",)}
            assert keys <= (set(groups) if statistics else set(range(10)))
        # (a group's stretches of runs are kept: its run column is decoded once)
        decoded.clear()
        of_runs(src, ["r07"])()
        assert decoded == [(3, ("run", "qid"))]


def test_batch_rows_are_read_in_the_main_thread_and_decoded_in_the_batches(
        demo_scores, tmp_path, monkeypatch):
    """A row-group source is read by one thread, in order (the main thread
    reads each batch's coded rows); their strings are made plain in the
    batch's thread, beside the next batch's reading: the same bytes."""
    import threading

    from qacamp.io.rowgroups import RowGroups

    ingest, whole = demo_scores("trec2002")
    seen: dict[str, set[str]] = {"coded_rows": set(), "plain": set()}
    for name in seen:
        method = getattr(RowGroups, name)

        def recorded(self, *args, _method=method, _name=name, **kw):
            seen[_name].add(threading.current_thread().name)
            return _method(self, *args, **kw)
        monkeypatch.setattr(RowGroups, name, recorded)
    monkeypatch.setattr(batches, "BATCH_CELLS", 20_000)  # (several batches of runs)
    assert qacamp_in_root("score", "--ingest", ingest, "--threads", "2",
                          "--out", tmp_path / "out") == 0
    assert seen["coded_rows"] == {threading.main_thread().name}
    assert seen["plain"] and threading.main_thread().name not in seen["plain"]
    for name in ("outcomes", "units", "runs", "dropped"):
        assert (tmp_path / "out" / f"{name}.parquet").read_bytes() == \
            (whole / f"{name}.parquet").read_bytes(), name


@pytest.mark.parametrize("string", [pa.large_string(), pa.string()])
def test_coded_strings_are_decoded_as_arrow_casts_them(string, tmp_path):
    """A coded table's strings looked up by polars (:meth:`RowGroups.plain`)
    are Arrow's cast of its dictionaries to the file's type, made a frame:
    chunks with dictionaries of their own, null codes, long strings (not
    inlined in a view), an unused dictionary value, no chunk at all."""
    df = pl.DataFrame({"run": ["a"], "qid": ["q"]})
    path = tmp_path / "t.parquet"
    table = df.to_arrow().cast(pa.schema([("run", string), ("qid", string)]))
    write_parquet_parts([table], table.schema, path, one_chunk=True)
    kind = pa.dictionary(pa.int32(), string)
    long = "a string longer than a view holds, " * 3
    chunks = [pa.DictionaryArray.from_arrays(pa.array([2, None, 0, 2], pa.int32()),
                                             pa.array(["x", "unused", long], string)),
              pa.DictionaryArray.from_arrays(pa.array([0, 0, None], pa.int32()),
                                             pa.array(["y"], string))]
    cases = {"chunks": pa.table({"run": pa.chunked_array(chunks, kind),
                                 "qid": pa.chunked_array([pa.array(["1", "2", None, "4"], string),
                                                          pa.array(["5", "6", "7"], string)])}),
             "none": pa.table({"run": pa.chunked_array([], kind),
                               "qid": pa.chunked_array([], kind)})}
    with read_row_groups(path, dict(df.schema)) as src:
        for case, coded in cases.items():
            want = pl.from_arrow(pa.table(
                [c.cast(string) for c in coded.columns], names=coded.column_names))
            got = src.plain(coded)
            assert_frame_equal(got, want, check_exact=True), case
            assert got.schema == df.schema, case
