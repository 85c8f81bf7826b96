"""The outer layer's file reading and writing: owned, atomic, deterministic, verified.

* :func:`writing` (:mod:`.outputs`): a command claims and locks its outputs
  first, then writes all or nothing and records each file's SHA-256 and its
  inputs' (:mod:`.records`: what qacamp owns is what equals its record).
* :func:`write_parquet`, :func:`write_parquet_parts`, :func:`write_csv`,
  :func:`write_text`, :func:`write_bytes`, :func:`atomic_path`, the DuckDB
  index and the spill file (:mod:`.files`); Parquet bytes (:mod:`.parquet`).
* :func:`read_parquet`, :func:`read_json`, :func:`read_bytes`,
  :func:`read_row_groups`, :func:`check_parquet` (:mod:`.verified`): only a
  file equal to its record is read.
* :func:`verify_tree`, :func:`prepare_outdir` (:mod:`.verify`): ``qacamp
  verify`` and the workflow's check before it plans.

docs/architecture.md ("Files: qacamp.io") describes the API.
"""

from __future__ import annotations

from .files import (
    DUCKDB_FOLDERS,
    INTERMEDIATE_FOLDERS,
    Spill,
    atomic_path,
    output_error,
    spilling,
    write_bytes,
    write_campaign_duckdb,
    write_csv,
    write_duckdb,
    write_parquet,
    write_parquet_parts,
    write_scores,
    write_text,
)
from .outputs import active, file_mode, writing
from .records import MARKER, Record, is_marked, record_of, sha256_file
from .verified import (
    check_parquet,
    parquet_file_bytes,
    read_bytes,
    read_given_parquet,
    read_json,
    read_parquet,
    read_row_groups,
    read_verified,
)
from .verify import prepare_outdir, recorded_hashes, verify_tree

__all__ = ["DUCKDB_FOLDERS", "INTERMEDIATE_FOLDERS", "MARKER", "Record", "Spill", "active",
           "atomic_path", "check_parquet", "file_mode", "is_marked", "output_error",
           "parquet_file_bytes", "prepare_outdir", "read_bytes", "read_given_parquet",
           "read_json", "read_parquet", "read_row_groups", "read_verified", "record_of",
           "recorded_hashes", "sha256_file", "spilling", "verify_tree", "write_bytes",
           "write_campaign_duckdb", "write_csv", "write_duckdb", "write_parquet",
           "write_parquet_parts", "write_scores", "write_text", "writing"]
