"""What identifies a shard file, and the merge's checks of completeness and consistency.

A shard file (``qacamp reliability swap|stability|bootstrap --shard I/N``)
carries, on every row, the columns of :data:`ID_SCHEMA`: its index ``shard``
(0-based) of ``n_shards``, the analysis ``seed`` and ``settings``, a canonical
JSON text of everything else that decides its counts (analysis, measure,
sizes, trials, bins, pairing, the matrix's shape and a SHA-256 of its
contents).  ``qacamp reliability merge`` sums shards only when
:func:`check_shards` finds them complete and consistent: every file a shard
file of that analysis, one ``n_shards``, ``seed`` and ``settings`` for all,
and every index ``0 .. n_shards - 1`` exactly once (a shard given twice, a
missing shard, or shards of another seed or matrix are refused naming the
file).  The merged output drops these columns (docs/results.md).
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import polars as pl

from ..errors import InputError, UsageError
from .matrix import ScoreMatrix

ID_SCHEMA = {"shard": pl.Int64, "n_shards": pl.Int64, "seed": pl.Int64, "settings": pl.Utf8}


def fingerprint(matrix: ScoreMatrix) -> str:
    """SHA-256 of the matrix's run and unit names and arrays (the data a shard resampled)."""
    h = hashlib.sha256()
    h.update(json.dumps([matrix.aggregator, matrix.measure, matrix.edition, list(matrix.runs),
                         list(matrix.units)]).encode())
    for name in ("values", "right", "unanswered", "rank", "truth"):
        arr = getattr(matrix, name)
        if arr is not None:
            h.update(name.encode())
            h.update(np.ascontiguousarray(arr).tobytes())
    return h.hexdigest()


def settings_text(analysis: str, matrix: ScoreMatrix, **settings) -> str:
    """The canonical ``settings`` text of a shard of ``analysis`` over ``matrix``."""
    doc = {"analysis": analysis, "n_units": matrix.n_units, "n_runs": matrix.n_runs,
           "matrix_sha256": fingerprint(matrix), **settings}
    return json.dumps(doc, sort_keys=True, separators=(",", ":"))


def tag(frame: pl.DataFrame, shard: int, n_shards: int, seed: int, settings: str) -> pl.DataFrame:
    """``frame`` with the identity columns of shard ``shard`` of ``n_shards``."""
    return frame.with_columns(pl.lit(shard, pl.Int64).alias("shard"),
                              pl.lit(n_shards, pl.Int64).alias("n_shards"),
                              pl.lit(seed, pl.Int64).alias("seed"),
                              pl.lit(settings, pl.Utf8).alias("settings"))


def _identity(kind: str, path: str, frame: pl.DataFrame,
              command: str | None = None) -> tuple[int, int, int, str]:
    fix = f"merge the files written by `{command or f'qacamp reliability {kind}'} --shard I/N`"
    missing = [c for c in ID_SCHEMA if c not in frame.columns]
    if missing:
        raise InputError(path, f"column {missing[0]}", "not a shard file: it does not say "
                         f"which shard it is (no column {', '.join(missing)})", fix)
    values = []
    for col, dtype in ID_SCHEMA.items():
        if frame.schema[col] != dtype:
            raise InputError(path, f"column {col}", f"the column is {frame.schema[col]}, "
                             f"not {dtype}", fix)
        uniq = frame[col].unique()
        if frame.height == 0 or uniq.len() != 1 or uniq[0] is None:
            raise InputError(path, f"column {col}", "the shard identity is missing or not the "
                             "same on every row", fix)
        values.append(uniq[0])
    shard, n, seed, settings = values
    try:
        analysis = json.loads(settings).get("analysis")
    except (ValueError, AttributeError):
        analysis = None
    if analysis != kind:
        raise InputError(path, "column settings", f"a shard of the {analysis or 'an unknown'} "
                         f"analysis, not of {kind}", fix)
    if not 0 <= shard < n:
        raise InputError(path, "column shard", f"shard {shard} of {n} is not a shard index "
                         "(0 <= I < N)", fix)
    return shard, n, seed, settings


def _differ(a: str, b: str) -> str:
    """The settings that differ between two settings texts."""
    da, db = json.loads(a), json.loads(b)
    keys = sorted(k for k in set(da) | set(db) if da.get(k) != db.get(k))
    return ", ".join(keys) or "?"


def _odd_one(ids: list[tuple[str, int, int, int, str]]) -> tuple[tuple, tuple] | None:
    """(a file of a minority run, a file of the majority run) when the files come
    from more than one run (seed, shard count, settings), else None: the files
    that agree the most are taken as the run being merged, so the error names the
    file that does not belong, whichever order the files come in."""
    groups: dict[tuple, list[tuple]] = {}
    for entry in ids:
        groups.setdefault(entry[2:], []).append(entry)
    if len(groups) < 2:
        return None
    ranked = sorted(groups.values(), key=lambda g: -len(g))  # stable: first seen wins a tie
    odd = next(e for e in ids if e[2:] != ranked[0][0][2:])
    return odd, ranked[0][0]


def check_shards(kind: str, paths: list[str], frames: list[pl.DataFrame],
                 command: str | None = None) -> list[pl.DataFrame]:
    """The frames without their identity columns, once the shards are found
    complete and consistent (module docstring); else an InputError naming the file.
    ``command``: the command that writes the shards (default ``qacamp reliability
    KIND``; ``qacamp score`` for scoring shards).  Of files from several runs,
    the one named is of the run fewer files belong to."""
    scoring = kind == "score"
    if not paths:
        raise UsageError("nothing to merge: give the shard files")
    ids = [(str(path), *_identity(kind, str(path), frame, command))
           for path, frame in zip(paths, frames, strict=True)]
    odd = _odd_one(ids)
    if odd is not None:
        (path, shard, n, seed, settings), (p0, _, n0, seed0, settings0) = odd
        fix = ("merge the shards of one scoring (same ingest tables and shard count); "
               "rescore the shards that differ" if scoring else
               "merge the shards of one run (same seed, settings and matrix); rerun the "
               "shards that differ")
        if seed != seed0:
            raise InputError(path, "column seed", f"seed {seed} differs from the seed "
                             f"{seed0} of {p0}: shards of different runs", fix)
        if n != n0:
            raise InputError(path, "column n_shards", f"shard {shard}/{n} is one of {n} "
                             f"shards, {p0} one of {n0}", fix)
        differ = _differ(settings, settings0)
        other = " (a shard of another score matrix: another campaign, measure or judgment " \
            "set)" if "matrix_sha256" in differ else ""
        raise InputError(path, "column settings", f"the settings differ from those of "
                         f"{p0} ({differ}){other}", fix)
    seen: dict[int, str] = {}
    for path, shard, n, _seed, _settings in ids:
        if shard in seen:
            raise InputError(path, "column shard", f"shard {shard}/{n} is given twice (also "
                             f"{seen[shard]})", "give each shard file once")
        seen[shard] = path
    n = ids[0][2]
    missing = [i for i in range(n) if i not in seen]
    if missing:
        names = ", ".join(f"{i}/{n}" for i in missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise InputError(paths[-1], "column shard", f"{len(missing)} of the {n} shards are "
                         f"missing ({names}): the merged "
                         f"{'scores would lack their runs' if scoring else 'counts would be incomplete'}",
                         "give every shard folder of the scoring" if scoring else
                         "give every shard file of the run")
    return [f.drop(list(ID_SCHEMA)) for f in frames]


__all__ = ["ID_SCHEMA", "fingerprint", "settings_text", "tag", "check_shards"]
