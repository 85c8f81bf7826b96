"""The table accumulator of an ingest: every frame the kinds read, in read order.

In memory (``qacamp eval``) or, with a :class:`~qacamp.io.Spill`
(``qacamp ingest``), the tables that grow with the runs (:data:`RUN_TABLES`)
kept on disk a frame at a time, with only small facts in memory: per table
the frames' handles in read order, per bucket (a run, or a judgment set and a
run) its frames' handles in read order, whether the rows read so far are
already in canonical order (checked frame by frame and at each boundary), and
the right, distinct list judgments (:meth:`Acc.marked`).

Both give the same canonical tables: :meth:`Acc.result` the frames,
:meth:`Acc.pieces` a table's rows as Arrow tables in canonical order, for
:func:`qacamp.io.write_parquet_parts`.  The canonical order is a stable sort
on :data:`qacamp.SORT_KEYS` (nulls last) whose first keys are the
bucket's, so the sorted table is the buckets in key order, each bucket's rows
in read order sorted stably; a table whose rows came in canonical order is
written as read (:func:`qacamp.canonical_order` leaves it as it is).  Once a
spilled table's rows are out of order, a frame of one bucket is spilled
sorted already (by the spill thread, behind the reading), so that a bucket
of one frame is written as read back; its read order is then lost, so the
tables read back in read order (:meth:`Acc.table`, :meth:`Acc.run_batches`)
are named when the :class:`Acc` is made.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any

import polars as pl

from ..ordered import behind, in_order
from ..tables import SCHEMAS, SORT_KEYS, canonical_order, conform, empty, is_ordered

if TYPE_CHECKING:
    import pyarrow as pa

    from ..io import Spill

#: The tables that grow with the runs, and the leading sort keys of a bucket.
BUCKETS = {"responses": ["run"], "judgments": ["judgment_set", "run"],
           "nugget_matches": ["judgment_set", "run"]}
RUN_TABLES = tuple(BUCKETS)

_MARKED = ["judgment_set", "run", "qid", "item"]


class _Spilled:
    """One run table on disk: small facts in memory (module docstring);
    ``presort``: a frame of one bucket is spilled sorted once the rows are
    out of order (:meth:`add`)."""

    def __init__(self, name: str, spill: Spill, presort: bool = True) -> None:
        self.name, self.spill, self.presort = name, spill, presort
        self.keys = SORT_KEYS[name]
        self.bucket = BUCKETS[name]
        #: the keys a bucket's rows are sorted on (its own are equal in it)
        self.within = self.keys[len(self.bucket):]
        self.frames: list[int] = []
        #: per frame, the frame it is a part of (:meth:`Acc.add_parts`), else None
        self.whole: list[int | None] = []
        self.buckets: dict[tuple, list[int]] = {}
        #: the frames spilled sorted on :attr:`within` (:meth:`add`)
        self.sorted: set[int] = set()
        self.ordered = True
        self.last: pl.DataFrame | None = None
        self.rows = 0

    def add(self, df: pl.DataFrame, whole: int | None = None) -> None:
        """Spill ``df`` (in the spill thread).  Once the rows read are out of
        canonical order (written bucket by bucket, each sorted), a frame of
        one bucket is spilled sorted on :attr:`within`, the stable sort the
        writing would do (with ``presort``).  A stable sort of a bucket's
        frames, some sorted so already, gives the rows of sorting the frames
        as read: rows of equal keys keep their order within a frame, and the
        frames theirs."""
        if self.ordered:
            edge = df.select(self.keys).head(1)
            self.ordered = is_ordered(df, self.keys) and (
                self.last is None or is_ordered(pl.concat([self.last, edge]), self.keys))
            self.last = df.select(self.keys).tail(1)  # (needed while the rows are in order)
        self.rows += df.height
        # (one bucket: each key column equal to its first value, nulls alike)
        *key, one = df.select(*(pl.col(c).first() for c in self.bucket), pl.all_horizontal(
            pl.col(c).eq_missing(pl.col(c).first()).all() for c in self.bucket).alias("_one")
        ).row(0)
        if one and self.presort and not self.ordered:
            handle = self.spill.put(df.sort(self.within, nulls_last=True, maintain_order=True,
                                            multithreaded=False))
            self.sorted.add(handle)
        else:
            handle = self.spill.put(df)
        self.frames.append(handle)
        self.whole.append(whole)
        if one:
            self.buckets.setdefault(tuple(key), []).append(handle)
            return
        for key, part in df.partition_by(self.bucket, maintain_order=True,
                                         as_dict=True).items():
            self.buckets.setdefault(key, []).append(self.spill.put(part))

    def in_read_order(self) -> bool:
        """Whether :meth:`frame` gives the rows in read order (no frame spilled sorted)."""
        return not self.sorted

    def frame(self) -> pl.DataFrame:
        """The rows frame by frame in read order (a frame spilled sorted: sorted)."""
        frames = [self.spill.frame(h) for h in self.frames]
        return pl.concat(frames, how="vertical") if frames else empty(self.name)

    def pieces(self, row_group: int, threads: int | None = None) -> Iterator[pa.Table]:
        """The rows in canonical order: as read when they came in order, else
        bucket by bucket, each bucket read back and sorted in a thread while
        the caller writes the one before (``threads`` buckets at a time:
        :func:`qacamp.ordered.in_order`; a bucket is one run's rows)."""
        if self.ordered:
            yield from self._as_read(row_group)
            return
        order = pl.DataFrame(list(self.buckets), schema={c: SCHEMAS[self.name][c]
                                                         for c in self.bucket}, orient="row")
        keys = order.sort(self.bucket, nulls_last=True).iter_rows()
        for result in in_order((partial(self._bucket, key) for key in keys), threads):
            yield result()

    def _bucket(self, key: tuple) -> pa.Table:
        """A bucket's rows sorted on :attr:`within`: as read back when they are
        one frame spilled sorted, else sorted here in this thread alone
        (polars' own threads cost a small sort more than they save; buckets
        are sorted side by side)."""
        handles = self.buckets[key]
        if len(handles) == 1 and handles[0] in self.sorted:
            return self.spill.get(handles[0])
        rows = pl.concat([self.spill.frame(h) for h in handles], how="vertical")
        return rows.sort(self.within, nulls_last=True, maintain_order=True,
                         multithreaded=False).to_arrow()

    def _as_read(self, row_group: int) -> Iterator[pa.Table]:
        """The frames in read order, each in its own chunks, but the parts of one
        frame (:meth:`Acc.add_parts`) as one chunk within each row group of
        ``row_group`` rows (where Parquet pages end depends on the chunks): the
        chunks of the frames :meth:`Acc.table` concatenates, a row group of
        them held at a time."""
        import pyarrow as pa

        held: list[pa.Table] = []  # parts of one frame not yet given
        whole, done = None, 0  # (rows given so far)
        for handle, of in zip(self.frames, self.whole, strict=True):
            table = self.spill.get(handle)
            if held and of != whole:
                joined = pa.concat_tables(held).combine_chunks()
                yield joined
                done, held = done + joined.num_rows, []
            if of is None:
                yield table
                done += table.num_rows
                continue
            held.append(table)
            whole = of
            rows = sum(t.num_rows for t in held)
            cut = (done + rows) // row_group * row_group - done
            if cut > 0:
                joined = pa.concat_tables(held).combine_chunks()
                yield joined.slice(0, cut)
                done += cut
                held = [joined.slice(cut)] if cut < rows else []
        if held:
            yield pa.concat_tables(held).combine_chunks()


class Acc:
    """Accumulates per-table frames and warnings; reports ``progress(done,
    total)`` per run file read (``total`` = the campaign's run files).  With
    ``spill``, the run tables are kept on disk (module docstring).  ``threads``:
    the run files the kinds read ahead at once (:func:`qacamp.ordered.in_order`;
    None: its default).  ``read_order``: the spilled tables read back in read
    order (:meth:`table`; :meth:`run_batches` reads the responses), never
    spilled sorted (module docstring)."""

    def __init__(self, total: int = 0, progress: Callable[[int, int], None] | None = None,
                 spill: Spill | None = None, threads: int | None = None,
                 read_order: Collection[str] = ()) -> None:
        self.parts: dict[str, list[pl.DataFrame]] = {t: [] for t in SCHEMAS}
        self.spilled = {t: _Spilled(t, spill, presort=t not in read_order)
                        for t in RUN_TABLES} if spill is not None else {}
        self.spill = spill
        self.marked_parts: list[pl.DataFrame] = []
        self.warn_rows: list[dict[str, Any]] = []
        self.total, self.done, self.progress = total, 0, progress
        self.threads = threads
        self._wholes = 0
        #: the spilled tables' adds handed to a thread (:meth:`spilling_behind`), else None
        self._behind: Callable[..., None] | None = None

    @contextlib.contextmanager
    def spilling_behind(self) -> Iterator[None]:
        """Within the block, a spilled table's frames are encoded and written
        to the spill by a thread of their own, in the order added
        (:func:`qacamp.ordered.behind`), while the caller reads and checks
        the next files; its end waits for them (and raises their first
        error).  The tables are those of adding them in the caller's thread."""
        if not self.spilled:
            yield
            return
        with behind(lambda name, df, whole: self.spilled[name].add(df, whole),
                    depth=2) as submit:
            self._behind = submit
            try:
                yield
            finally:
                self._behind = None

    def add(self, name: str, df: pl.DataFrame) -> None:
        self._add(name, df)
        self._read_one(name)

    def add_parts(self, name: str, parts: Iterable[pl.DataFrame]) -> None:
        """Add one frame of ``name`` given as consecutive ``parts`` (the
        automatic judgments, judged a batch of runs at a time): the same
        tables, with the same bytes, as :meth:`add` of their concatenation,
        each part spilled as it comes."""
        whole = self._wholes = self._wholes + 1
        if name in self.spilled:
            for part in parts:
                self._add(name, part, whole)
        else:
            frames = [part for part in parts if part.height]
            if frames:  # (one chunk, as one frame added)
                self._add(name, pl.concat(frames, how="vertical", rechunk=True))
        self._read_one(name)

    def _add(self, name: str, df: pl.DataFrame, whole: int | None = None) -> None:
        if name in BUCKETS and df.height:
            conformed = conform(name, df)
            if name == "judgments" and conformed["distinct"].null_count() < conformed.height:
                self.marked_parts.append(conformed.filter(
                    (pl.col("judgment") == "R") & pl.col("distinct").fill_null(False))
                    .select(_MARKED))
            if name in self.spilled:
                if self._behind is not None:
                    self._behind(name, conformed, whole)
                else:
                    self.spilled[name].add(conformed, whole)
        if name not in self.spilled:
            self.parts[name].append(df)

    def _read_one(self, name: str) -> None:
        if name in ("judgments", "nugget_matches", "matrix") and self.progress is not None:
            self.done = min(self.done + 1, max(self.total - 1, 0))
            self.progress(self.done, self.total)

    def run_batches(self, rows: int) -> Iterator[pl.DataFrame]:
        """The responses added so far in batches of whole runs, runs in name
        order: each batch the next runs up to ``rows`` rows or more (a run is
        never cut), a run's rows in read order (conformed); a spilled table is
        read back a run at a time."""
        if "responses" in self.spilled:
            spilled = self._in_read_order("responses")
            names = pl.DataFrame({"run": [key[0] for key in spilled.buckets]},
                                 schema={"run": SCHEMAS["responses"]["run"]})
            runs = (pl.concat([spilled.spill.frame(h) for h in spilled.buckets[(run,)]],
                              how="vertical") for run in names.sort("run")["run"].to_list())
        else:
            table = self.table("responses")
            runs = (part for _key, part in sorted(
                table.partition_by("run", maintain_order=True, as_dict=True).items(),
                key=lambda kv: (kv[0][0] is not None, kv[0][0] or "")))
        batch: list[pl.DataFrame] = []
        held = 0
        for run in runs:
            batch.append(run)
            held += run.height
            if held >= rows:
                yield conform("responses", pl.concat(batch, how="vertical"))
                batch, held = [], 0
        if batch:
            yield conform("responses", pl.concat(batch, how="vertical"))

    def keep(self, df: pl.DataFrame) -> pl.DataFrame | int:
        """A frame a check needs again later: itself, or its handle on disk."""
        return df if self.spill is None else self.spill.put(df)

    def kept(self, handle: pl.DataFrame | int) -> pl.DataFrame:
        """The frame :meth:`keep` kept."""
        return handle if isinstance(handle, pl.DataFrame) else self.spill.frame(handle)

    def warn(self, file: str, place: str | None, kind: str, message: str, count: int = 1) -> None:
        self.warn_rows.append({"file": str(file), "place": place, "kind": kind,
                               "message": message, "count": count})

    def _in_read_order(self, name: str) -> _Spilled:
        spilled = self.spilled[name]
        if not spilled.in_read_order():  # (a caller's mistake, caught by the tests)
            raise RuntimeError(f"the {name} table was spilled out of its read order: "
                               f"make the Acc with read_order=({name!r},)")
        return spilled

    def table(self, name: str) -> pl.DataFrame:
        """The rows of table ``name`` added so far in read order (conformed,
        not yet ordered; a spilled table, one of ``read_order``, is read back
        whole)."""
        if name in self.spilled:
            return conform(name, self._in_read_order(name).frame())
        frames = [f for f in self.parts[name] if f.height]
        return conform(name, pl.concat(frames, how="vertical")) if frames \
            else empty(name)

    def rows(self, name: str) -> int:
        """The rows of table ``name`` added so far."""
        if name in self.spilled:
            return self.spilled[name].rows
        if name == "warnings":
            return len(self.warn_rows)
        return sum(f.height for f in self.parts[name])

    def marked(self) -> pl.DataFrame:
        """The judgments added so far that mark a right answer distinct (a
        list instance counted once): judgment_set, run, qid, item, in read order."""
        return pl.concat(self.marked_parts, how="vertical") if self.marked_parts \
            else empty("judgments").select(_MARKED)

    def frame(self, name: str) -> pl.DataFrame:
        """Table ``name``, conformed and in canonical order."""
        if name == "warnings":
            df = (pl.DataFrame(self.warn_rows, schema=SCHEMAS["warnings"])
                  if self.warn_rows else empty(name))
        elif name in self.spilled:  # (its frames, some maybe sorted: ordered here)
            df = self.spilled[name].frame()
        else:
            df = self.table(name)
        return canonical_order(name, conform(name, df))

    def result(self) -> dict[str, pl.DataFrame]:
        """Every table of ``SCHEMAS`` (:meth:`frame`)."""
        return {name: self.frame(name) for name in SCHEMAS}

    def pieces(self, name: str, row_group: int) -> tuple[Iterator[pa.Table], bool]:
        """Table ``name``'s rows in canonical order as Arrow tables, and whether
        they are to be written as one chunk per row group (sorted rows) or in
        their own chunks (rows written as read): the arguments of
        :func:`qacamp.io.write_parquet_parts` that give the bytes of
        :meth:`frame`."""
        if name in self.spilled:
            spilled = self.spilled[name]
            return spilled.pieces(row_group, self.threads), not spilled.ordered
        return iter([self.frame(name).to_arrow()]), False
