"""Campaign config -> canonical tables, with the cross-file checks.

:func:`read_campaign` reads and checks every raw file of one campaign (its
config dict exactly as in ``workflow/schemas/config.schema.yaml``) into an
accumulator (:mod:`.accumulator`) of *all* the tables of :data:`qacamp.SCHEMAS`
(empty ones for what the kind lacks): in memory, or with a spill folder
(``qacamp ingest``) the run tables on disk a file's frame at a time.
:func:`ingest_campaign` returns its tables as frames, conformed and in
canonical row order (``qacamp eval``, which builds the same config dict from
its command line: one validation for every entry point); :func:`write_ingest`
writes them to ``<outdir>/<table>.parquet`` plus ``campaign.json``
atomically, the spilled run tables a row group at a time in canonical order,
with the same bytes.

Cross-file checks (each raises :class:`~qacamp.errors.InputError` naming the
file and the line of the first offender; docs/formats.md, "Cross-file checks"):

* a response to a question id that is not in the question set / gold;
* a judged TREC run part answering a question of another type (a factoid
  file answering an Other question);
* two files with the same run name (one judgment set and part, or two runs of
  a QA4MRE / CLEF / PAN campaign; the same file given twice);
* for TREC kinds, every non-primary judgment set judges exactly the responses
  of the primary set (same run, qid, item, answer string, docid, NIL);
  responses come from the primary set;
* trec-series: Other part-two files pair with part-one files by run tag;
  nugget matches must name known nuggets; a nugget list and a pyramid file
  given together must list the same nuggets (the weights come from the
  pyramid); answer keys may only name questions of their type;
* a question type whose measures need a file that is not given (list
  questions without a list key, Other questions without nuggets or judged
  Other files) is a :class:`~qacamp.errors.ConfigError` unless the campaign
  says ``skip: [...]`` (scoring then leaves that component out).

What is accepted but reported goes to the ``warnings`` table (a run covering
less than ``min_coverage`` of its questions, a run without an Other part two,
automatic-judging time-outs and truncated answers).  With ``autojudge: true``
the ``automatic`` judgment set is added to ``judgments`` here.

trec-factoid ``questions`` may list ``<top>`` files (a file whose name
contains ``list`` holds LIST questions) and/or series XML.  A judged run file
whose first question is a LIST question is read as a NIST judged list run.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from ..errors import OutputError
from ..io import (
    Spill,
    atomic_path,
    write_parquet,
    write_parquet_file,
    write_parquet_parts,
    write_text,
    writing,
)
from ..kinds import KINDS
from ..ordered import ready_for_threads, workers
from ..tables import SCHEMAS, SORT_KEYS, canonical_order, conform, empty
from .accumulator import RUN_TABLES, Acc
from .campaign import DEFAULT_MIN_COVERAGE, SERIES_WEIGHTS, resolved_campaign

if TYPE_CHECKING:
    import pyarrow as pa


def _kind_reader(kind: str) -> Callable[[dict, Acc], dict]:
    """The function of this package reading a kind's files (the kind record's
    ``ingest``), imported when the kind is read (a PAN campaign loads no XML,
    TREC or pattern reader)."""
    module, function = KINDS[kind].ingest
    return getattr(importlib.import_module(f"{__name__}.{module}"), function)


def _run_file_count(files: dict) -> int:
    n = sum(len(files.get(k, [])) for k in ("runs", "answers", "matrix"))
    for spec in (files.get("judgment_sets") or {}).values():
        parts = spec.values() if isinstance(spec, dict) else [spec]
        n += sum(len(v) for v in parts)
    return n


def read_campaign(name: str, campaign: dict, base_dir: Path = Path("."),
                  progress: Callable[[int, int], None] | None = None,
                  spill: Spill | None = None, threads: int | None = None) -> Acc:
    """Read and check one campaign's raw files (the one reading path of
    ``qacamp ingest`` and ``qacamp eval``) -> the :class:`~.accumulator.Acc` holding
    its tables: in memory, or with ``spill`` its run tables on disk.
    ``progress(done, total)`` is called after each run file is read; ``threads``
    run files are read ahead at once (default :func:`qacamp.ordered.workers`)."""
    resolved = resolved_campaign(name, campaign, Path(base_dir))
    auto = bool(resolved["options"].get("autojudge"))
    # (the automatic judging reads the responses back run by run in read order)
    acc = Acc(_run_file_count(resolved["files"]), progress, spill, threads,
              read_order=("responses",) if auto else ())
    with acc.spilling_behind():
        where = _kind_reader(resolved["kind"])(resolved, acc)
    _edition_note(resolved, acc)
    if auto:
        from .auto import add_automatic

        add_automatic(resolved, acc, where)
    if progress is not None:
        progress(acc.total, acc.total)
    return acc


def _edition_note(resolved: dict, acc: Acc) -> None:
    """One note when the campaign's questions say its edition (TREC 2003: definition
    questions) and the edition's rules set a key the campaign does not
    (:attr:`qacamp.kinds.Edition.defaults`, applied by the scoring): which value,
    and why."""
    kind = KINDS[resolved["kind"]]
    if not kind.editions:
        return
    qtypes = acc.table("questions")["qtype"].unique().to_list()
    edition = kind.edition(resolved.get("preset"), qtypes)
    if edition is None:
        return
    files = resolved["files"].get(kind.questions_key or "questions") or [None]
    for key, value in edition.defaults.items():
        if resolved["options"].get(key) is None:
            acc.warn(files[0], None, "edition", f"{key} {value} ({edition.name}): "
                     f"{edition.why}; the campaign key {key} (qacamp eval --"
                     f"{key.replace('_', '-')}) sets another")


def ingest_campaign(name: str, campaign: dict, base_dir: Path = Path("."),
                    progress: Callable[[int, int], None] | None = None) -> dict[str, pl.DataFrame]:
    """Read one campaign's raw files -> every table of ``SCHEMAS``
    (conformed, canonical order; empty frames for tables the kind lacks;
    ``warnings`` lists what was accepted but should be looked at), in memory.
    ``progress(done, total)`` is called after each run file is read."""
    return read_campaign(name, campaign, base_dir, progress).result()


def warning_lines(warnings: pl.DataFrame) -> list[str]:
    """One line per ``warnings`` row: ``FILE: PLACE: message`` (for the log)."""
    out = []
    for file, place, _kind, message, _count in warnings.iter_rows():
        out.append(f"{file}: {place}: {message}" if place else f"{file}: {message}")
    return out


def read_resolved(path: str | Path) -> dict:
    """The resolved campaign ``campaign.json`` that :func:`write_ingest` wrote,
    verified against qacamp's record of it (:func:`qacamp.io.read_json`: a
    JSON object), with an ``options`` object; else an InputError naming it."""
    from ..errors import InputError
    from ..io import read_json

    doc = read_json(path, "the resolved campaign (campaign.json)")
    if not isinstance(doc.get("options", {}), dict):
        raise InputError(path, "key 'options'", "the resolved campaign's options are not a "
                         "JSON object", "run `qacamp ingest` again (it writes campaign.json)")
    return doc


# --------------------------------------------------------------------------- writing

#: Rows per row group of the ingest tables.  The scoring reads a batch of
#: runs' rows of the run tables by row group (:mod:`qacamp.io.rowgroups`), so
#: a group is what it holds beside the batch, and the ingest holds about one
#: group per table as it writes; every table has min/max statistics on its
#: sort keys (:data:`qacamp.tables.SORT_KEYS`), by which a reader selects the
#: groups holding some runs' rows.
INGEST_ROW_GROUP = 128 * 1024


def write_ingest(tabs: dict[str, pl.DataFrame] | Acc, resolved: dict, outdir: str | Path,
                 row_group: int = INGEST_ROW_GROUP,
                 progress: Callable[[int, int], None] | None = None) -> None:
    """Write ``<outdir>/<table>.parquet`` for every canonical table and
    ``<outdir>/campaign.json`` (sorted keys, indent 2), all or nothing.

    ``tabs``: the frames :func:`ingest_campaign` returns, or the
    :class:`~.accumulator.Acc` of :func:`read_campaign` (its spilled run tables are
    written a row group at a time, in canonical order, with the bytes the
    frames would give); ``row_group``: rows per Parquet row group (every
    table has statistics on its sort keys: :data:`INGEST_ROW_GROUP`);
    ``progress(done, total)`` is called as rows are written (``total``: the
    rows of all tables).
    ``outdir`` is claimed as a ``qacamp ingest`` output folder
    (:func:`qacamp.io.writing`: new, empty or qacamp's own; joins the
    command's block when called inside one).  Every file is written to a
    temporary name and they are renamed together at the end, so a failure
    leaves the previous files (or no folder) behind; an operating-system
    error (full disk, no permission) is an :class:`~qacamp.errors.OutputError`
    naming the file.
    """
    outdir = Path(outdir)
    spilled = isinstance(tabs, Acc)
    total = sum(tabs.rows(name) if spilled else
                (tabs[name].height if tabs.get(name) is not None else 0) for name in SCHEMAS)
    lock, done = threading.Lock(), 0

    def written(rows: int) -> None:
        nonlocal done
        with lock:  # (the run tables are written in threads)
            done += rows
            if progress is not None:
                progress(done, total)
    try:
        with writing("qacamp ingest", dirs=[outdir]):
            if spilled:
                _write_tables(tabs, outdir, row_group, written)
            else:
                for name in SCHEMAS:
                    df = tabs.get(name)
                    df = empty(name) if df is None else conform(name, df)
                    write_parquet(canonical_order(name, df), outdir / f"{name}.parquet",
                                  row_group, SORT_KEYS[name])
                    written(df.height)
            write_text(json.dumps(resolved, sort_keys=True, indent=2) + "\n",
                       outdir / "campaign.json")
    except OSError as exc:
        raise OutputError(outdir, exc.strerror or str(exc),
                          "free space or fix the folder's permissions, then rerun") from exc


def _write_tables(acc: Acc, outdir: Path, row_group: int, written: Callable[[int], None]
                  ) -> None:
    """Every table of ``acc`` in canonical order (:meth:`.accumulator.Acc.pieces`):
    the run tables, the large ones, side by side, each encoded in a thread of
    its own (and sorted run by run in threads of their own) while the others
    are written here; ``written(rows)`` as each part of rows is taken.  Their
    temporary files are made and given up here, after the threads have ended:
    an error or an interrupt here stops them at their next part."""
    from concurrent.futures import ThreadPoolExecutor

    paths = {name: outdir / f"{name}.parquet" for name in SCHEMAS}
    stop = threading.Event()

    def counted(parts: Iterator[pa.Table]) -> Iterator[pa.Table]:
        for part in parts:
            if stop.is_set():
                raise RuntimeError("stopped")  # (the error raised in the main thread counts)
            yield part
            written(part.num_rows)

    def write(name: str, tmp: Path | None = None) -> None:
        parts, one_chunk = acc.pieces(name, row_group)
        options = {"one_chunk": one_chunk, "row_group": row_group, "statistics": SORT_KEYS[name]}
        schema = empty(name).to_arrow().schema
        if tmp is None:
            write_parquet_parts(counted(parts), schema, paths[name], **options)
        else:  # (a run table; the responses, the largest, encoded in threads)
            threads = (acc.threads or workers()) if name == "responses" else 1
            write_parquet_file(tmp, paths[name], counted(parts), schema, **options,
                               threads=threads)

    with contextlib.ExitStack() as files:
        tmps = {name: files.enter_context(atomic_path(paths[name], ".parquet"))
                for name in RUN_TABLES}
        ready_for_threads()
        with ThreadPoolExecutor(len(tmps), thread_name_prefix="qacamp-write") as pool:
            try:
                futures = [pool.submit(write, name, tmp) for name, tmp in tmps.items()]
                for name in SCHEMAS:
                    if name not in tmps:
                        write(name)
                for future in futures:
                    future.result()
            except BaseException:
                stop.set()
                raise


__all__ = ["INGEST_ROW_GROUP", "ingest_campaign", "read_campaign", "resolved_campaign", "write_ingest", "warning_lines", "read_resolved",
           "SERIES_WEIGHTS", "DEFAULT_MIN_COVERAGE"]
