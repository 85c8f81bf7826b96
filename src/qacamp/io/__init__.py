"""The outer layer's files: owned, atomic, deterministic, and read back only
when equal to their record (docs/architecture.md, "Files: qacamp.io").

:mod:`.records` (what qacamp owns, locks, temporaries), :mod:`.outputs`
(:func:`writing` and the writers), :mod:`.parquet` (Parquet bytes, row
groups, the spill file), :mod:`.verified` (verified reads, the DuckDB index),
:mod:`.verify` (``qacamp verify``, the workflow's check of its outdir).
"""

from __future__ import annotations

from .outputs import (
    active,
    atomic_path,
    output_error,
    write_bytes,
    write_csv,
    write_parquet,
    write_parquet_parts,
    write_scores,
    write_text,
    writing,
)
from .parquet import ROW_GROUP, Spill, parquet_bytes, spilling
from .records import MARKER, Record, file_mode, is_marked, record_of, sha256_file
from .verified import (
    DUCKDB_FOLDERS,
    INTERMEDIATE_FOLDERS,
    check_parquet,
    parquet_file_bytes,
    read_bytes,
    read_given_parquet,
    read_json,
    read_parquet,
    read_row_groups,
    read_verified,
    write_campaign_duckdb,
    write_duckdb,
)
from .verify import prepare_outdir, recorded_hashes, verify_tree

__all__ = ["DUCKDB_FOLDERS", "INTERMEDIATE_FOLDERS", "MARKER", "ROW_GROUP", "Record", "Spill",
           "active", "atomic_path", "check_parquet", "file_mode", "is_marked", "output_error",
           "parquet_bytes", "parquet_file_bytes", "prepare_outdir", "read_bytes",
           "read_given_parquet", "read_json", "read_parquet", "read_row_groups",
           "read_verified", "record_of", "recorded_hashes", "sha256_file", "spilling",
           "verify_tree", "write_bytes", "write_campaign_duckdb", "write_csv", "write_duckdb",
           "write_parquet", "write_parquet_parts", "write_scores", "write_text", "writing"]
