"""Row groups encoded apart and joined (qacamp.io.joined): the bytes of
pyarrow's one writer, on the demo campaign's real tables; a part that is not
a whole Parquet file of the same schema is refused before anything is
joined."""

from __future__ import annotations

import io

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from paths import ROOT

from qacamp import tables
from qacamp.ingest import ingest_campaign
from qacamp.io import parquet_bytes
from qacamp.io.joined import JoinedFile, _encoded, _Reader, join

DEMO = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["campaigns"]


def _parts(df: pl.DataFrame, rows: int, statistics=()) -> list[pa.Buffer]:
    """``df`` cut every ``rows`` rows, each cut a Parquet file of its own."""
    return [parquet_bytes(df.slice(i, rows), rows, statistics)
            for i in range(0, max(df.height, 1), rows)]


@pytest.fixture(scope="module")
def trec2002(request) -> dict[str, pl.DataFrame]:
    """The demo's TREC 2002 campaign, ingested in memory (four judgment sets)."""
    mp = pytest.MonkeyPatch()
    mp.chdir(ROOT)
    request.addfinalizer(mp.undo)
    return ingest_campaign("trec2002", DEMO["trec2002"], ROOT)


@pytest.mark.parametrize("rows", [1_000, 4_099, 1_000_000])
@pytest.mark.parametrize("name", ["responses", "judgments", "questions"])
def test_joined_parts_are_the_bytes_of_one_writer(trec2002, name, rows):
    df = tables.canonical_order(name, trec2002[name])
    keys = tables.SORT_KEYS[name]
    whole = parquet_bytes(df, rows, keys)
    sink = io.BytesIO()
    join(_parts(df, rows, keys), sink)
    assert sink.getvalue() == whole.to_pybytes()
    meta = pq.ParquetFile(pa.BufferReader(sink.getvalue())).metadata
    assert meta.num_rows == df.height and meta.num_row_groups == max(1, -(-df.height // rows))


def test_a_footer_decodes_and_encodes_back_to_its_own_bytes(trec2002):
    data = parquet_bytes(trec2002["responses"], 2_000, ["run"]).to_pybytes()
    n = int.from_bytes(data[-8:-4], "little")
    footer = data[-8 - n:-8]
    fields = _Reader(footer).struct()
    assert _encoded(fields) == footer
    assert [f[0] for f in fields][:4] == [1, 2, 3, 4]  # version, schema, num_rows, row_groups
    assert fields[2][2] == trec2002["responses"].height


def test_parts_of_other_schemas_or_not_parquet_are_refused(trec2002):
    df = trec2002["judgments"]
    joined = JoinedFile(io.BytesIO())
    joined.append(parquet_bytes(df.head(10)))
    with pytest.raises(ValueError, match="differ in schema or metadata"):
        joined.append(parquet_bytes(df.head(10).drop("distinct")))
    for bad in (b"PAR1PAR1", b"not a parquet file at all", parquet_bytes(df)[:-1]):
        with pytest.raises(ValueError, match="not a whole Parquet file"):
            JoinedFile(io.BytesIO()).append(bad)
    with pytest.raises(ValueError, match="no part to join"):
        JoinedFile(io.BytesIO()).close()
