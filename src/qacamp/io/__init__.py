"""The outer layer's files: owned, atomic, deterministic, and read back only
when equal to their record (docs/architecture.md, "Files: qacamp.io").

:mod:`.records` (what qacamp owns, locks, temporaries), :mod:`.outputs`
(:func:`writing`: claims, locks, records), :mod:`.writers` (every writer:
Parquet also a row group at a time, the DuckDB index), :mod:`.rowgroup_writer`
(Parquet a row group at a time, the row groups encoded in threads if
asked), :mod:`.joined` (row groups encoded apart joined into one file),
:mod:`.spill` (the
spill file of a command), :mod:`.verified` (verified reads, Parquet
parsed), :mod:`.rowgroups` (a verified Parquet file read a row group at a
time), :mod:`.verify` (``qacamp verify``, the workflow's check of its
outdir).
"""

from __future__ import annotations

from .outputs import active, writing
from .records import sha256_file
from .rowgroups import read_row_groups
from .spill import Spill, spilling
from .verified import (
    Damaged,
    SchemaMismatch,
    read_bytes,
    read_given_parquet,
    read_json,
    read_parquet,
)
from .verify import prepare_outdir, recorded_hashes, verify_tree
from .writers import (
    INTERMEDIATE_FOLDERS,
    ROW_GROUP,
    atomic_path,
    parquet_bytes,
    sorted_parquet,
    write_bytes,
    write_campaign_duckdb,
    write_csv,
    write_parquet,
    write_parquet_file,
    write_parquet_parts,
    write_text,
)

__all__ = ["INTERMEDIATE_FOLDERS", "ROW_GROUP", "Damaged", "SchemaMismatch", "Spill", "active",
           "atomic_path", "parquet_bytes", "prepare_outdir", "read_bytes", "read_given_parquet",
           "read_json", "read_parquet", "read_row_groups", "recorded_hashes", "sha256_file",
           "sorted_parquet", "spilling", "verify_tree", "write_bytes", "write_campaign_duckdb",
           "write_csv", "write_parquet", "write_parquet_file", "write_parquet_parts", "write_text",
           "writing"]
