"""Output frames of the scoring: schemas, canonical order, the collector the
steps write into, and the wide run table.

- ``outcomes``: judgment_set, run, qid, rank (Int32), answered (bool), outcome
  (R, W, UR, UW, UE) for question-level questions (FACTOID, QA, MC,
  VERIFICATION), main questions only;
- ``units``: judgment_set, run, measure, unit (qid), value;
- ``runs``: judgment_set, run, measure, scope (all, qtype, series, topic, test),
  unit, value;
- ``dropped``: judgment_set, scope, unit, reason.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ..kinds import KINDS
from ..measures import REGISTRY

JS = "judgment_set"
SCOPES = ("all", "qtype", "series", "topic", "test")

OUT_SCHEMAS: dict[str, dict[str, pl.DataType]] = {
    "outcomes": {JS: pl.String, "run": pl.String, "qid": pl.String,
                 "rank": pl.Int32, "answered": pl.Boolean, "outcome": pl.String},
    "units": {JS: pl.String, "run": pl.String, "measure": pl.String,
              "unit": pl.String, "value": pl.Float64},
    "runs": {JS: pl.String, "run": pl.String, "measure": pl.String,
             "scope": pl.String, "unit": pl.String, "value": pl.Float64},
    "dropped": {JS: pl.String, "scope": pl.String, "unit": pl.String, "reason": pl.String},
}
#: Rows from which :func:`concat_sorted` sorts on integer codes (fewer: on
#: the strings, which costs less than finding the codes).
CODES_FROM = 100_000
#: The output tables a batch of runs may give with Enum codes for strings
#: (:meth:`Collector.finish`): the per-question ones, a row per cell.
CODED = ("outcomes", "units")
OUT_SORT = {
    "outcomes": [JS, "run", "qid"],
    "units": [JS, "run", "measure", "unit"],
    "runs": [JS, "run", "scope", "unit", "measure"],
    "dropped": [JS, "scope", "unit"],
}


class Collector:
    """What the scoring steps produce: outcome rows, per-unit rows, wide score
    frames (one column per measure at a scope) and dropped-unit rows."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.outcomes: list[pl.DataFrame] = []
        self.units: list[pl.DataFrame] = []
        self.wide: list[pl.DataFrame] = []
        self.dropped: list[pl.DataFrame] = []

    def add(self, df: pl.DataFrame, scope: str, unit: pl.Expr | str) -> None:
        """A wide frame (judgment_set, run, measure columns...) at ``scope``;
        ``unit`` is a constant or an expression over ``df``."""
        if isinstance(unit, str):
            unit_expr = pl.lit(unit, dtype=pl.Enum([unit]))
        elif isinstance(df.schema.get("unit"), pl.Enum):
            unit_expr = unit
        else:
            unit_expr = unit.cast(pl.String)
        self.wide.append(df.with_columns(pl.lit(scope, dtype=pl.Enum([scope])).alias("scope"),
                                         unit_expr.alias("unit")))

    def unit_rows(self, df: pl.DataFrame, cols: list[str]) -> None:
        """Per-question rows (unit = qid) of the measures ``cols``."""
        if not df.height:
            return
        for c in cols:
            long = df.select(JS, "run", pl.col("qid").alias("unit"),
                             pl.lit(c, dtype=pl.Enum([c])).alias("measure"),
                             pl.col(c).alias("value"))
            self.units.append(long.filter(pl.col("value").is_not_null()))

    def drop(self, df: pl.DataFrame, scope: str, reason: str | pl.Expr) -> None:
        """Dropped units: ``df`` has columns judgment_set and unit."""
        if df.height:
            r = pl.lit(reason) if isinstance(reason, str) else reason
            self.dropped.append(df.select(JS, pl.lit(scope).alias("scope"),
                                          pl.col("unit").cast(pl.String), r.alias("reason")))

    def finish(self) -> dict[str, pl.DataFrame]:
        """The four output frames in canonical order, cast to :data:`OUT_SCHEMAS`
        except that a large table of :data:`CODED` keeps its strings as Enum
        codes (:func:`concat_sorted`): the same values, made strings only where
        they are written (:class:`qacamp.io.rowgroup_writer.RowGroupWriter`, a row
        group at a time) or joined (:func:`.batches.combine`)."""
        # the kind's measures (registry order); a kind without a fixed list (score
        # matrices) keeps every column
        allowed = set(KINDS[self.kind].measures if self.kind in KINDS else ()) or None
        index = [JS, "run", "scope", "unit"]
        longs = []
        for w in self.wide:
            cols = [c for c in w.columns
                    if c not in index and (allowed is None or c in allowed)]
            if cols:  # (one query per wide frame: a batch adds a few dozen)
                longs.append(w.lazy().select(*index, *[pl.col(c).cast(pl.Float64) for c in cols])
                             .unpivot(cols, index=index, variable_name="measure",
                                      value_name="value")
                             .filter(pl.col("value").is_not_null() & pl.col("unit").is_not_null())
                             .collect())
        units = [u for u in self.units
                 if allowed is None
                 or set(u.get_column("measure").dtype.categories.to_list()) & allowed]
        parts = {"outcomes": self.outcomes, "units": units, "runs": longs,
                 "dropped": self.dropped}
        return {name: concat_sorted([f for f in parts[name] if f.height], schema, OUT_SORT[name],
                                    coded=name in CODED)
                for name, schema in OUT_SCHEMAS.items()}


def concat_sorted(frames: list[pl.DataFrame], schema: dict[str, pl.DataType],
                  keys: list[str], coded: bool = False) -> pl.DataFrame:
    """Concatenate ``frames`` (cast to ``schema``) sorted by the string ``keys``
    (lexical, nulls last).  Large inputs are sorted on integer codes: Enum key
    columns are remapped through their categories (no string hashing), String
    ones cast to an Enum of the union of distinct values; strings are attached
    only after the sort.  Frames each in order whose keys but the last never
    meet across frames (a batch's per-question rows: a frame per measure) are
    not sorted but put in order as blocks of rows (:func:`_blocks`).
    ``coded``: large inputs keep them coded instead, the
    keys as Enums of their sorted values, the other string columns that are
    one Enum in every frame as they are (:data:`CODED`)."""
    def plain() -> pl.DataFrame:
        fs = [f.select([pl.col(c).cast(d) for c, d in schema.items()]) for f in frames]
        return pl.concat(fs) if fs else pl.DataFrame(schema=schema)

    if not frames or sum(f.height for f in frames) < CODES_FROM:
        return plain().sort(keys, nulls_last=True, maintain_order=True)
    # the key columns' dtypes, read once per frame and column (a frame's schema
    # converts every dtype, a large Enum's categories included)
    dts = [{c: f.get_column(c).dtype for c in keys} for f in frames]
    cats: dict[str, pl.Series] = {}
    for c in keys:
        vals = []
        for f, dt in zip(frames, (d[c] for d in dts), strict=True):
            vals.append(dt.categories if isinstance(dt, pl.Enum)
                        else f[c].cast(pl.String).drop_nulls().unique())
        if len(vals) == 1 and isinstance(dts[0][c], pl.Enum) and vals[0].is_sorted():
            cats[c] = vals[0]  # an Enum's categories are distinct
        else:  # sorted as Python sorts strings (by code point: UTF-8 byte order)
            cats[c] = pl.concat(vals).unique().sort()
    radix = 1
    for v in cats.values():
        radix *= len(v) + 1
    if radix >= 2**63:
        return plain().sort(keys, nulls_last=True, maintain_order=True)
    # (``coded``: a string column that is one Enum in every frame stays codes)
    kept = {c for c, d in schema.items() if coded and c not in keys and d == pl.String
            and isinstance(frames[0].get_column(c).dtype, pl.Enum)
            and all(f.get_column(c).dtype == frames[0].get_column(c).dtype for f in frames)}
    codes = []  # per frame: its key columns' codes, their values' places in cats
    for f, fdt in zip(frames, dts, strict=True):
        exprs = []
        for c in keys:
            dt = fdt[c]
            if isinstance(dt, pl.Enum) and dt.categories.equals(cats[c]):
                e = pl.col(c).to_physical()  # its codes are the sorted positions already
            elif isinstance(dt, pl.Enum):
                m = dt.categories.cast(pl.Enum(cats[c])).to_physical()
                e = pl.lit(m).gather(pl.col(c).to_physical())
            else:
                e = pl.col(c).cast(pl.String).cast(pl.Enum(cats[c])).to_physical()
            exprs.append(e.alias(c))
        codes.append(f.select(exprs))

    def key(cf: pl.DataFrame) -> pl.Series:
        k = None
        for c in keys:
            n = len(cats[c])
            e = pl.col(c).cast(pl.UInt64)
            e = e.fill_null(n) if cf.get_column(c).null_count() else e
            k = e if k is None else k * (n + 1) + e
        return cf.select(k.alias("_key")).to_series()

    values = {c: cats[c].cast(pl.Enum(cats[c])) if coded else cats[c] for c in keys}
    others = [pl.col(c) if c in kept else pl.col(c).cast(d) for c, d in schema.items()
              if c not in keys]

    def attached(df: pl.DataFrame, done: set[str] = frozenset()) -> pl.DataFrame:
        """``df`` (codes for the keys but ``done``) with the keys' values."""
        return df.select([pl.lit(values[c]).gather(pl.col(c)).alias(c)
                          if c in keys and c not in done else pl.col(c) for c in schema])

    frame_keys = [key(cf) for cf in codes]
    blocks = _blocks(frame_keys, len(cats[keys[-1]]) + 1)
    if blocks is not None:  # (no sort: the frames' blocks put in order)
        parts = []
        for f, fdt, cf in zip(frames, dts, codes, strict=True):
            done = {c for c in keys if fdt[c] == values[c].dtype}  # (the values already)
            parts.append(attached(pl.concat([cf.drop(done), f.select(*done, *others)],
                                            how="horizontal"), done))
        if len(blocks) == 1:
            return parts[blocks[0][0]]
        return pl.concat([parts[i].slice(at, n) for i, at, n in blocks], rechunk=True)
    df = pl.concat([pl.concat([cf.cast(pl.UInt32), f.select(others)], how="horizontal")
                    for f, cf in zip(frames, codes, strict=True)])
    df = df.with_columns(pl.concat(frame_keys).alias("_key"))
    if not df["_key"].is_sorted():  # (frames built in canonical order need no sort)
        df = df.sort("_key")  # the keys identify a row (see OUT_SORT): no ties to keep in order
    return attached(df)


#: Blocks at most per 1,024 rows for :func:`_blocks` to put the frames in
#: order by moving blocks of rows rather than by a sort.
BLOCKS_PER_1024 = 1


def _blocks(frame_keys: list[pl.Series], last: int) -> list[tuple[int, int, int]] | None:
    """The rows of frames, each sorted on its key (``frame_keys``: a UInt64 per
    row, whose last key column counts ``last`` values), in the order of
    their keys, as (frame, first row, rows) blocks of consecutive rows of one
    frame; None where blocks cannot do it: a frame not sorted, frames whose
    keys without the last column (their prefixes) meet, or more blocks than
    :data:`BLOCKS_PER_1024` per 1,024 rows.  (A batch's per-question rows,
    a frame per measure sorted by run and question, are a block per run and
    measure.)"""
    frame, first, length, prefix, rows = [], [], [], [], 0
    for i, k in enumerate(frame_keys):
        rows += len(k)
        if not k.is_sorted():
            return None
        stretches = (k // last).rle()
        n = stretches.struct.field("len").to_numpy().astype(np.int64)
        frame.append(np.full(len(n), i))
        first.append(np.cumsum(n) - n)
        length.append(n)
        prefix.append(stretches.struct.field("value").to_numpy())
    prefixes = np.concatenate(prefix)
    if len(np.unique(prefixes)) < len(prefixes):
        return None
    order = np.argsort(prefixes)
    frame, first, length = (np.concatenate(x)[order] for x in (frame, first, length))
    # stretches that follow each other in one frame make one block
    new = np.ones(len(order), dtype=bool)
    new[1:] = (frame[1:] != frame[:-1]) | (first[1:] != first[:-1] + length[:-1])
    at = np.flatnonzero(new)
    if len(at) > max(1, BLOCKS_PER_1024 * rows // 1024):
        return None
    sizes = np.add.reduceat(length, at)
    return [(int(frame[a]), int(first[a]), int(n)) for a, n in zip(at, sizes, strict=True)]


def runs_wide(runs: pl.DataFrame, judgment_set: str, kind: str | None = None) -> pl.DataFrame:
    """The run-level table (scope ``all``) of one judgment set, one column per measure
    (registry order), one row per run."""
    sub = runs.filter((pl.col(JS) == judgment_set) & (pl.col("scope") == "all"))
    present = set(sub["measure"].unique().to_list())
    own = KINDS[kind].measures if kind in KINDS else ()
    order = [m for m in (own or REGISTRY) if m in present]
    order += sorted(present - set(order))
    if not sub.height:
        return pl.DataFrame(schema={"run": pl.String})
    wide = sub.pivot(on="measure", index="run", values="value", sort_columns=False)
    counts = [m for m in order if m in REGISTRY and REGISTRY[m].integer]
    # counts (n_right, tests_passed, ...) as integers, not 132.000000
    return (wide.select("run", *order).sort("run")
            .with_columns([pl.col(m).round(0).cast(pl.Int64) for m in counts]))
