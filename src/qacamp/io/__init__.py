"""The outer layer's file reading and writing: owned, atomic, deterministic, verified.

* :func:`writing` (:mod:`.outputs`): every command claims its output paths
  first (never an input, a device, a pipe, a link, or a folder holding files
  qacamp did not write, unless ``force``), then writes all or nothing, and
  records each file it wrote with its SHA-256 and its inputs' (:mod:`.records`).
* :func:`write_parquet`, :func:`write_parquet_parts` (a row group at a
  time), :func:`write_csv`, :func:`write_text`,
  :func:`write_bytes`, :func:`atomic_path` (:mod:`.files`): atomic,
  deterministic writes (Parquet with page checksums), umask-respecting modes,
  OS errors as :class:`~qacamp.errors.OutputError` naming the file.
* :func:`read_parquet`, :func:`read_json`, :func:`read_bytes`,
  :func:`check_parquet` (:mod:`.verified`): every read of an intermediate is
  checked against its record, then (Parquet) parsed with bounded metadata,
  page checksums and the declared schema; every problem is an
  :class:`~qacamp.errors.InputError` naming the file.
* :func:`spilling` (:mod:`.spill`): a private temporary folder holding
  frames on disk while a command runs, removed however the block ends.
* :func:`verify_tree` and :func:`prepare_outdir` (:mod:`.verify`): ``qacamp
  verify`` and the workflow's check before it plans (damaged files qacamp
  owns are rebuilt, stale ones rerun).

docs/architecture.md ("Files: qacamp.io") describes the API and how a new
command uses it.
"""

from __future__ import annotations

from .files import (
    DUCKDB_FOLDERS,
    INTERMEDIATE_FOLDERS,
    atomic_path,
    output_error,
    remove_stale_temps,
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
from .spill import Spill, spilling
from .verified import (
    check_parquet,
    parquet_file_bytes,
    read_bytes,
    read_json,
    read_parquet,
    read_row_groups,
    read_verified,
)
from .verify import prepare_outdir, recorded_hashes, verify_tree

__all__ = ["DUCKDB_FOLDERS", "INTERMEDIATE_FOLDERS", "MARKER", "Record", "active",
           "atomic_path", "check_parquet", "parquet_file_bytes", "file_mode", "is_marked", "output_error",
           "prepare_outdir", "read_bytes", "read_json", "read_parquet", "read_row_groups", "read_verified",
           "record_of", "recorded_hashes", "remove_stale_temps", "sha256_file", "Spill", "spilling",
           "verify_tree",
           "write_bytes", "write_campaign_duckdb", "write_csv", "write_duckdb", "write_parquet",
           "write_parquet_parts",
           "write_scores", "write_text", "writing"]
