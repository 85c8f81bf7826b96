"""Scoring batches of runs in threads, written once: `qacamp score` writes the
same bytes for batches of 1, 3 and the default number of runs, scored by 1,
2 or 4 threads, on demo campaigns (several judgment sets and NIL questions:
trec2002; QA4MRE baselines scored as runs: qa4mre2013) and on a campaign of
real files (the QA4MRE 2012 gold standard of ../shared/data with simulated
runs); `qacamp score --threads N` and `qacamp ingest --threads N` use N
threads (the workflow's cores of the step) and write the same bytes, and a
count that is no positive integer is one error line; and the sorted writer
gives the bytes of the stably sorted frame whatever the order in which key
values arrive, also from parts whose strings come as Enum codes (a batch's
per-question tables: on the demo and real campaigns, in row groups of the
default size and of 997 rows) and in row groups of parts whose categories
together outgrow their codes."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from paths import SHARED_DATA
from workflow_util import qacamp_in_root

import qacamp.ingest.trec
import qacamp.scoring
from qacamp.cli import main
from qacamp.io import parquet_bytes, spilling
from qacamp.io.rowgroup_writer import RowGroupWriter, write_options
from qacamp.io.writers import SortedWriter, write_row_groups
from qacamp.scoring import batches, frames

ROOT = Path(__file__).resolve().parents[1]
FILES = ["outcomes.parquet", "units.parquet", "runs.parquet", "dropped.parquet", "runs.csv"]
GOLD = SHARED_DATA / "qa4mre" / "QA4MRE-2012-EN_GS.xml"


def _real_ingest(d: Path) -> Path:
    """The QA4MRE 2012 gold standard with 7 simulated runs, ingested in ``d``."""
    if not GOLD.exists():
        pytest.skip("shared data missing")
    assert qacamp_in_root("simulate", "qa4mre", "--questions-from", GOLD, "--out", d / "sim",
                          "--runs", "7", "--seed", "3", "--quiet") == 0
    campaign = {"kind": "qa4mre", "edition": "2012", "gold": str(GOLD),
                "runs": str(d / "sim" / "runs" / "*.xml")}
    assert qacamp_in_root("ingest", "--campaign-json", json.dumps(campaign), "--name", "real",
                          "--out", d / "ingest") == 0
    return d / "ingest"


@pytest.fixture(scope="module", params=["trec2002", "qa4mre2013", "real-qa4mre2012"])
def campaign(request, demo_scores, tmp_path_factory):
    """(ingest folder, scores folder of one default `qacamp score`)."""
    if request.param != "real-qa4mre2012":
        return demo_scores(request.param)
    d = tmp_path_factory.mktemp(request.param)
    ingest = _real_ingest(d)
    assert qacamp_in_root("score", "--ingest", ingest, "--out", d / "scores") == 0
    return ingest, d / "scores"


# (batches of 1 run: the test after this one; the default batches in as many
# threads as the machine has cores, 2 here: the reference run itself; "codes":
# every output frame sorted on codes, the per-question ones written from
# Enum codes, as a batch of 100,000 rows or more is; "blocks": the same, with
# the per-question rows put in order as blocks of a run and measure, as a
# batch's are when its blocks are few for its rows)
@pytest.mark.parametrize(("per_batch", "threads"), [(3, 1), (3, 2), (None, 1), ("codes", 2),
                                                    ("blocks", 2)])
def test_batches_and_threads_give_the_same_bytes(campaign, tmp_path, monkeypatch, per_batch,
                                                 threads, request):
    ingest, whole = campaign
    blocks = []
    if per_batch in ("codes", "blocks"):
        monkeypatch.setattr(frames, "CODES_FROM", 0)
        monkeypatch.setattr(batches, "BATCH_CELLS", 5_000)  # (parts cut by row groups)
        monkeypatch.setattr(batches, "MIN_BATCH_CELLS", 0)
        monkeypatch.setattr(frames, "BLOCKS_PER_1024", 0 if per_batch == "codes" else 1024)
        real = frames._blocks
        monkeypatch.setattr(frames, "_blocks", lambda *a: blocks.append(real(*a)) or blocks[-1])
    elif per_batch is not None:
        monkeypatch.setattr(qacamp.scoring, "batch_runs", lambda names, judged, threads: [
            names[i:i + per_batch] for i in range(0, len(names), per_batch)])
    monkeypatch.setattr(qacamp.scoring, "workers", lambda: threads)
    assert qacamp_in_root("score", "--ingest", ingest, "--out", tmp_path / "scores") == 0
    for f in FILES:
        assert (tmp_path / "scores" / f).read_bytes() == (whole / f).read_bytes(), f
    several = any(b is not None and len(b) > 1 for b in blocks)
    if per_batch == "codes":  # (frames in order as they are, or sorted)
        assert blocks and not several
    if per_batch == "blocks" and request.node.callspec.params["campaign"] == "trec2002":
        assert several  # (a frame per measure; QA4MRE's questions are not in lexical order)


@pytest.mark.parametrize(("runs", "questions", "threads", "sizes"), [
    (100, 10_000, 2, [4] * 25),  # 1 M cells: 16 batches a thread would be 3 runs, 40,000 cells at least
    (300, 10_000, 2, [10] * 30),  # 3 M cells: 16 batches a thread, 100,000 cells each
    (1000, 10_000, 2, [32] * 31 + [8]),  # 10 M cells: 16 batches a thread
    (3000, 10_000, 2, [50] * 60),  # 30 M cells: BATCH_CELLS (1,000,000) between the 2 threads
    (1000, 10_000, 1, [63] * 15 + [55]),
    (3, 10_000, 2, [3]),  # fewer cells than a batch holds at least: one batch
    (5, 10_000, 2, [4, 1]),
    (67, 500, 2, [67]),  # a small campaign (the demos'): one batch
    (3, 600_000, 2, [1, 1, 1]),  # a run is more than BATCH_CELLS between the threads
])
def test_batches_are_at_most_batch_cells_at_least_16_a_thread_and_of_40000_cells(
        runs, questions, threads, sizes):
    """A batch is at most BATCH_CELLS (run, question) cells between the
    threads; a campaign is cut into at least 16 batches a thread when it has
    runs enough (its peak follows the smaller batch), but a batch holds
    40,000 cells at least (each costs a fixed part besides its rows)."""
    judged = batches.Judged(question=pl.DataFrame({"qid": [f"q{i}" for i in range(questions)]}),
                            lists=pl.DataFrame(), other=pl.DataFrame(), series_out=pl.DataFrame())
    names = [f"r{i:04d}" for i in range(runs)]
    cut = batches.batch_runs(names, judged, threads)
    assert [len(b) for b in cut] == sizes
    assert [n for b in cut for n in b] == names


def _counting(monkeypatch, module) -> list:
    """The ``ahead`` of every :func:`qacamp.ordered.in_order` call of ``module``."""
    seen: list = []
    real = module.in_order

    def in_order(reads, ahead=None):
        seen.append(ahead)
        return real(reads, ahead)

    monkeypatch.setattr(module, "in_order", in_order)
    monkeypatch.setattr(module, "workers", lambda: pytest.fail("--threads was not used"),
                        raising=False)
    return seen


@pytest.mark.parametrize("threads", [1, 4])
def test_the_threads_option_scores_that_many_batches_at_once(campaign, tmp_path, monkeypatch,
                                                              threads):
    """`qacamp score --threads N` (the workflow's cores of the step) scores N
    batches at once, and the files have the bytes of the default run (batches
    of one run each, scored by 1 or 4 threads; the default run's threads are
    the machine's cores, 2 in CI)."""
    ingest, whole = campaign
    monkeypatch.setattr(batches, "BATCH_CELLS", 1)  # a batch per run: more batches than threads
    seen = _counting(monkeypatch, qacamp.scoring)
    out = tmp_path / f"scores{threads}"
    assert qacamp_in_root("score", "--ingest", ingest, "--out", out, "--threads", threads) == 0
    assert seen == [threads]
    for f in FILES:
        assert (out / f).read_bytes() == (whole / f).read_bytes(), f


@pytest.mark.parametrize("threads", [1, 4])
def test_the_threads_option_reads_that_many_files_ahead(tmp_path, monkeypatch, threads):
    """`qacamp ingest --threads N` reads N run files at once (each judgment
    set's files), and writes the bytes of the default ingest (as many
    threads as the machine's cores, 2 in CI)."""
    default = tmp_path / "default"
    assert qacamp_in_root("ingest", "--config", ROOT / "config" / "config.yaml",
                          "--campaign", "trec2002", "--out", default) == 0
    seen = _counting(monkeypatch, qacamp.ingest.trec)
    out = tmp_path / f"ingest{threads}"
    assert qacamp_in_root("ingest", "--config", ROOT / "config" / "config.yaml",
                          "--campaign", "trec2002", "--out", out, "--threads", threads) == 0
    assert seen and set(seen) == {threads}
    files = sorted(p.name for p in default.iterdir() if p.is_file())
    assert files == sorted(p.name for p in out.iterdir() if p.is_file())
    for f in files:
        assert (out / f).read_bytes() == (default / f).read_bytes(), f


@pytest.mark.parametrize("command", ["score", "ingest"])
@pytest.mark.parametrize("value, problem", [
    ("0", "--threads: 0 is not an integer in [1, 64]"),
    ("-2", "--threads: -2 is not an integer in [1, 64]"),
    ("65", "--threads: 65 is not an integer in [1, 64]"),
])
def test_a_thread_count_out_of_range_is_one_error_line(tmp_path, capsys, command, value,
                                                       problem):
    argv = (["score", "--ingest", str(tmp_path / "none")] if command == "score" else
            ["ingest", "--name", "c", "--campaign-json", "{}"])
    rc = main([*argv, "--out", str(tmp_path / "out"), "--threads", value])
    err = capsys.readouterr().err
    assert rc == 2
    assert err == f"qacamp {command}: error: {problem}\n"
    assert not (tmp_path / "out").exists()


def test_threads_with_merge_is_refused(tmp_path, capsys):
    """A merge scores nothing: `--threads` there would be accepted and ignored."""
    rc = main(["score", "--ingest", str(tmp_path), "--out", str(tmp_path / "out"),
               "--merge", str(tmp_path / "s0"), "--threads", "2"])
    assert rc == 2
    assert capsys.readouterr().err.startswith("qacamp score: error: --threads: --merge "
                                              "scores nothing")


def test_a_thread_count_that_is_no_integer_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["score", "--ingest", str(tmp_path), "--out", str(tmp_path / "out"),
              "--threads", "2.5"])
    assert exc.value.code == 2
    assert "argument --threads: invalid int value: '2.5'" in capsys.readouterr().err


def _sorted_bytes(path: Path, schema, key: str, parts: list[pl.DataFrame],
                  row_group: int) -> bytes:
    """The bytes of ``parts`` written by a :class:`SortedWriter` on ``key``."""
    with spilling() as spill:
        w = SortedWriter(str(path), schema, key, spill, row_group)
        for p in parts:
            w.add(p)
        w.close()
    return path.read_bytes()


@pytest.mark.parametrize("row_group", [2, 5, 1 << 20])
def test_sorted_writer_gives_the_bytes_of_the_stable_sort(tmp_path, row_group):
    """Parts sorted on the key, values arriving in any order (a smaller one
    after rows of a larger one were written, nulls last): the file holds the
    stable sort of their concatenation, in the bytes of parquet_bytes."""
    parts = [pl.DataFrame({"k": ["b", "b", "c", None], "v": [1, 2, 3, 4]}),
             pl.DataFrame({"k": ["b", "c"], "v": [5, 6]}),
             pl.DataFrame({"k": ["a", "b", None], "v": [7, 8, 9]}),
             pl.DataFrame({"k": [], "v": []}, schema={"k": pl.String, "v": pl.Int64}),
             pl.DataFrame({"k": ["a", "c", "d"], "v": [10, 11, 12]})]
    whole = pl.concat(parts).sort("k", nulls_last=True, maintain_order=True)
    assert _sorted_bytes(tmp_path / "out.parquet", whole.to_arrow().schema, "k", parts,
                         row_group) == parquet_bytes(whole, row_group).to_pybytes()
    empty = tmp_path / "empty.parquet"
    with spilling() as spill:
        SortedWriter(str(empty), whole.to_arrow().schema, "k", spill, row_group).close()
    assert empty.read_bytes() == parquet_bytes(whole.clear(), row_group).to_pybytes()


@pytest.mark.parametrize("row_group", [2, 5, 300, 1 << 20])
def test_sorted_writer_gives_the_bytes_of_the_stable_sort_from_enum_codes(tmp_path, row_group):
    """Parts whose string columns come as polars Enums (a batch's coded keys:
    other categories in every part, 8- and 16-bit codes, nulls), mixed with
    parts of plain strings, a smaller key arriving late (rows taken back from
    the file): the bytes of parquet_bytes of their stable sort as strings."""
    many = [f"u{i:04d}" for i in range(700)]  # (more than 255 categories: 16-bit codes)

    def part(keys: list, units: list, coded: bool, first: int) -> pl.DataFrame:
        v = list(range(first, first + len(keys)))
        # w: 8-bit codes, 200 values of its own in each part (joined: more than 255)
        w = [f"w{first + i % 200}" for i in range(len(keys))]
        df = pl.DataFrame({"k": keys, "u": units, "w": w, "v": v},
                          schema={"k": pl.String, "u": pl.String, "w": pl.String, "v": pl.Int64})
        if not coded:
            return df
        return df.with_columns(
            pl.col("k").cast(pl.Enum(sorted({k for k in keys if k is not None}))),
            pl.col("u").cast(pl.Enum(sorted({u for u in units if u is not None} | set(many)))),
            pl.col("w").cast(pl.Enum(sorted(set(w)))))
    parts = [part(["b"] * 400 + ["c"] * 3, many[:400] + [None, "x", "y"], True, 0),
             part(["b", "c", None], ["p", "q", "r"], False, 500),
             part(["a"] * 350 + [None], many[300:650] + ["z"], True, 600),
             part(["c"] * 150 + ["d"] * 150, [None, "w"] * 150, True, 1000)]
    whole = pl.concat([p.cast({c: pl.String for c in "kuw"}) for p in parts]).sort(
        "k", nulls_last=True, maintain_order=True)
    assert _sorted_bytes(tmp_path / "out.parquet", whole.to_arrow().schema, "k", parts,
                         row_group) == parquet_bytes(whole, row_group).to_pybytes()



def _coded(dictionary: list, codes: list, index_type) -> pa.DictionaryArray:
    """A dictionary array whose null rows (``None`` in ``codes``) hold codes
    far out of the dictionary's range (Arrow leaves them undefined)."""
    import numpy as np

    valid = pa.array([c is not None for c in codes])
    far = 100 if index_type.bit_width == 8 else 987
    raw = np.array([far if c is None else c for c in codes], dtype=index_type.to_pandas_dtype())
    indices = pa.Array.from_buffers(index_type, len(codes), [valid.buffers()[1],
                                    pa.py_buffer(raw)], null_count=codes.count(None))
    return pa.DictionaryArray.from_arrays(indices, pa.array(dictionary, pa.large_string()),
                                          safe=False)


@pytest.mark.parametrize("metadata", [None, {"campaign": "test"}])
@pytest.mark.parametrize("threads", [1, 2])
def test_dictionary_columns_handed_to_the_writer_as_views_give_the_bytes_of_their_strings(
        tmp_path, threads, metadata):
    """String columns coded as dictionaries, looked up as string views for the
    writer: values longer than a view holds beside short ones, a dictionary
    array sliced (an offset into its codes), null rows whose codes point
    anywhere, 8-, 16- and 64-bit and unsigned codes, a dictionary holding a
    null (looked up as before), plain chunks mixed in: the bytes pyarrow
    writes for their strings.  A column is handed to the writer as views if
    the first row group has it coded; a schema with metadata of its own is
    handed as declared: the same bytes."""
    words = [f"question-{i:03d}-of-a-long-series" if i % 3 else f"q{i}" for i in range(300)]
    schema = pa.schema([("s", pa.large_string()), ("t", pa.large_string()), ("v", pa.int64())],
                       metadata=metadata)
    codes = [i * 7 % 300 if i % 11 else None for i in range(600)]
    s = [_coded(words, codes[:300], pa.int16()),
         _coded(words, [5, None, 299, 0] * 25, pa.uint16()).slice(3, 90),
         _coded(["x", None, "a-value-of-twenty-one"], [2, 1, 0, None, 2], pa.int8()),
         pa.array(["plain", None, "a plain value longer than twelve"], pa.large_string()),
         _coded(words, codes[300:], pa.int64())]
    t = [_coded(words[::-1], [None if c is None else 299 - c for c in codes[:300]],
                pa.int32()),
         _coded(["short", "a-longer-value-again"], [1, 0] * 45, pa.uint8()),
         _coded(["y"], [0] * 5, pa.uint32()), pa.array([None] * 3, pa.large_string()),
         _coded(words, [None] * 300, pa.int16())]
    parts = []
    for a, b in zip(s, t, strict=True):
        parts.append(pa.Table.from_arrays(
            [a, b, pa.array(range(len(a)), pa.int64())], names=["s", "t", "v"]))
    def strings(c: pa.Array) -> pa.Array:
        return c.dictionary_decode() if pa.types.is_dictionary(c.type) else c

    # the plain part first too: then its row group hands its strings as declared
    for order in (parts, [parts[3], *parts[:3], *parts[4:]]):
        whole = pa.Table.from_arrays(
            [pa.chunked_array([strings(p.column(name).chunk(0)) for p in order],
                              pa.large_string()) for name in "st"]
            + [pa.chunked_array([p.column("v") for p in order]).combine_chunks()],
            schema=schema)
        for row_group in (3, 97, 1 << 20):
            want = pa.BufferOutputStream()
            pq.write_table(whole, want, row_group_size=row_group, **write_options(["s"]))
            path = tmp_path / f"out-{row_group}.parquet"
            with path.open("wb") as sink:
                write_row_groups(sink, order, schema, True, row_group, ["s"], threads)
            assert path.read_bytes() == want.getvalue().to_pybytes(), row_group
        assert pq.read_table(path).equals(whole)
    # the types handed to the writer: fixed by the first row group's chunks
    for first, want in [(parts[0], pa.large_string() if metadata else pa.string_view()),
                        (parts[3], pa.large_string())]:
        w = RowGroupWriter(pa.BufferOutputStream(), schema, True)
        w.add(first)
        w.close()
        assert w._schema.field("s").type == want


@pytest.mark.parametrize("sizes", [(200, 200), (100, 100), (200, 40_000)])
def test_row_groups_of_enum_parts_whose_joined_categories_outgrow_their_codes(tmp_path, sizes):
    """Parts of one row group coded with codes of one width whose categories
    together need wider codes (two parts of 200 categories in 8 bits; of 200
    and 40,000 in 8 and 16 bits), or fit them (100 and 100): the bytes of
    parquet_bytes of the frame of their strings."""
    parts = [pl.DataFrame({"s": [f"p{i}-{j}" for j in range(n)], "v": list(range(n))})
             .with_columns(pl.col("s").cast(pl.Enum([f"p{i}-{j}" for j in range(n)])))
             for i, n in enumerate(sizes)]
    whole = pl.concat([p.cast({"s": pl.String}) for p in parts])
    path = tmp_path / "out.parquet"
    with path.open("wb") as sink:
        write_row_groups(sink, [p.to_arrow() for p in parts], whole.to_arrow().schema, True)
    assert path.read_bytes() == parquet_bytes(whole).to_pybytes()

def test_enum_coded_parts_of_real_campaigns_give_the_bytes_of_their_files(campaign, monkeypatch,
                                                                          tmp_path):
    """The per-question tables of a demo or real campaign, scored in batches
    of a few runs with their strings as Enum codes (every frame sorted on
    codes), written by the sorted writer in row groups of 997 rows and of
    the default size: the bytes of parquet_bytes of the file `qacamp score`
    wrote, read back."""
    from qacamp.ingest import read_resolved
    from qacamp.io import read_parquet
    from qacamp.scoring import OUT_SCHEMAS, score_batches
    from qacamp.tables import SCHEMAS

    ingest, whole = campaign
    campaign = read_resolved(ingest / "campaign.json")
    kind = campaign.get("kind") or campaign["options"]["kind"]
    tables = {name: read_parquet(ingest / f"{name}.parquet", schema=SCHEMAS[name])
              for name in SCHEMAS}
    monkeypatch.setattr(frames, "CODES_FROM", 0)
    monkeypatch.setattr(batches, "BATCH_CELLS", 5_000)
    monkeypatch.setattr(batches, "MIN_BATCH_CELLS", 0)
    parts = list(score_batches(kind, tables, campaign))
    assert len(parts) > 1
    for name in frames.CODED:
        assert any(isinstance(p[name].schema["run"], pl.Enum) for p in parts), name
        expected = pl.read_parquet(whole / f"{name}.parquet")
        schema = pl.DataFrame(schema=OUT_SCHEMAS[name]).to_arrow().schema
        for row_group in (997, 1 << 20):
            got = _sorted_bytes(tmp_path / f"{name}-{row_group}.parquet", schema, "judgment_set",
                                [p[name] for p in parts], row_group)
            assert got == parquet_bytes(expected, row_group).to_pybytes(), (name, row_group)
