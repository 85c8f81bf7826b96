"""The outer layer's files: owned, atomic, deterministic, and read back only
when equal to their record (docs/architecture.md, "Files: qacamp.io").

:mod:`.records` (what qacamp owns, locks, temporaries), :mod:`.outputs`
(:func:`writing`: claims, locks, records), :mod:`.writers` (the writers), :mod:`.parquet` (Parquet bytes, a table
read by row groups), :mod:`.streams` (Parquet written a row group at a time,
the spill file), :mod:`.verified` (verified reads, the DuckDB index),
:mod:`.verify` (``qacamp verify``, the workflow's check of its outdir).
"""

from __future__ import annotations

from .outputs import active, writing
from .parquet import ROW_GROUP, parquet_bytes
from .records import sha256_file
from .streams import Spill, spilling
from .verified import (
    INTERMEDIATE_FOLDERS,
    parquet_file_bytes,
    read_bytes,
    read_given_parquet,
    read_json,
    read_parquet,
    read_row_groups,
    write_campaign_duckdb,
    write_duckdb,
)
from .verify import prepare_outdir, recorded_hashes, verify_tree
from .writers import (
    atomic_path,
    sorted_parquet,
    write_bytes,
    write_csv,
    write_parquet,
    write_parquet_parts,
    write_text,
)

__all__ = ["INTERMEDIATE_FOLDERS", "ROW_GROUP", "Spill", "active", "atomic_path",
           "parquet_bytes", "parquet_file_bytes", "prepare_outdir", "read_bytes",
           "read_given_parquet", "read_json", "read_parquet", "read_row_groups",
           "recorded_hashes", "sha256_file", "sorted_parquet", "spilling", "verify_tree", "write_bytes",
           "write_campaign_duckdb", "write_csv", "write_duckdb", "write_parquet",
           "write_parquet_parts", "write_text", "writing"]
