"""`qacamp score`: score an ingested campaign (used by the Snakemake rule).

    qacamp score --ingest DIR --out DIR                  # the whole campaign
    qacamp score --ingest DIR --out SHARD_DIR --shard I/N  # block I of N of the runs
    qacamp score --ingest DIR --out DIR --merge SHARD_DIR...  # the N shards -> the scores

A shard folder holds the four score tables of its runs and ``shard.parquet``,
its identity (:data:`qacamp.reliability.shards.ID_SCHEMA`: index, count, and
a SHA-256 of the ingest tables scored).  ``--merge`` refuses a missing,
repeated or foreign shard, and writes the same bytes as one unsharded
``qacamp score`` (:mod:`qacamp.scoring.batches`).
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from . import HELP, add_force_option, add_threads_option, threads_of

SHARD_ID = "shard.parquet"


def register(sub):
    p = sub.add_parser("score", help=HELP["score"])
    p.add_argument("--ingest", required=True, metavar="DIR",
                   help="the campaign's ingest folder (tables and campaign.json)")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="the scores folder to write (new, empty, or written by qacamp); "
                        "with --shard, the shard's folder")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--shard", metavar="I/N", default=None,
                     help="score only shard I of N (0-based): block I of the runs in name "
                          "order, written for --merge")
    how.add_argument("--merge", nargs="+", metavar="SHARD_DIR", default=None,
                     help="merge the N shard folders of `--shard I/N` (any order) into the "
                          "scores of the campaign of --ingest")
    add_threads_option(p, "scoring batches of runs at once (not with --merge)")
    add_force_option(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..io import writing
    from ..reliability.seeds import parse_shard

    ingest = Path(args.ingest)
    shard = parse_shard(args.shard)
    threads = threads_of(args)
    if args.merge and args.threads is not None:
        from ..errors import UsageError

        raise UsageError("--threads: --merge scores nothing (it joins the shards' files); "
                         "give --threads to the `--shard I/N` runs")
    inputs = [ingest, *(args.merge or [])]
    with writing("qacamp score", dirs=[args.out], inputs=inputs, force=args.force,
                 temporary=args.shard is not None):
        if args.merge:
            _merge(ingest, args.merge, args.out)
        else:
            campaign, kind, runs, present = _score(ingest, shard, args.out, threads)
            if args.shard is None:
                _write(campaign, kind, runs, present, args.out)
            else:
                _write_shard(ingest, kind, shard, args.out)
    return 0


def _score(ingest: Path, shard: tuple[int, int], out, threads: int):
    """(campaign, kind, run-level rows, judgment sets) of the runs of ``shard``,
    scored batch by batch (``threads`` batches at once), each batch's rows
    written to the four score tables in ``out`` as it comes (:func:`_stream`)."""
    from ..ingest import read_resolved
    from ..io import read_parquet, read_row_groups
    from ..kinds import KINDS
    from ..progress import Progress
    from ..scoring import OUT_SCHEMAS, score_batches
    from ..scoring.runtables import RUN_TABLES
    from ..tables import SCHEMAS

    campaign = read_resolved(ingest / "campaign.json")
    kind = campaign.get("kind") or (campaign.get("options") or {}).get("kind")
    # every table ingest writes, verified and checked against its declared
    # schema (another table's file is refused, never conformed); the run
    # tables are decoded a row group at a time, by batch of runs
    # (scoring.runtables), and the response columns the scoring never reads
    # are not decoded (memory): the answer text only counts towards the length
    # of the answers to Other questions, scored only against nuggets
    tables = {name: read_parquet(ingest / f"{name}.parquet", schema=SCHEMAS[name])
              for name in SCHEMAS if name not in RUN_TABLES}
    unused = set(KINDS[kind].unused_columns) if kind in KINDS else {"docid", "score"}
    if not tables["nuggets"].height:
        unused.add("answer")
    with contextlib.ExitStack() as stack:  # (the run tables' private copies closed at the end)
        tables |= {name: stack.enter_context(read_row_groups(
                       ingest / f"{name}.parquet", SCHEMAS[name],
                       [c for c in SCHEMAS[name] if c not in unused]))
                   for name in SCHEMAS if name in RUN_TABLES}
        bar = Progress(f"score {ingest.parent.name or ingest}: batches of runs scored", 1,
                       quiet_for=2.0)
        parts = ((name, part[name])
                 for part in score_batches(kind, tables, campaign, shard, progress=bar.report,
                                           threads=threads)
                 for name in OUT_SCHEMAS)
        return (campaign, kind, *_stream(parts, out))


def _stream(parts, out):
    """The score tables of ``parts`` ((name, frame) pairs: blocks of runs
    in run order, each in canonical order) written to ``out`` in canonical
    order, each row group encoded once (:func:`qacamp.io.sorted_parquet`);
    returns the run-level rows (scope ``all``) and the judgment sets of the
    run scores, for ``runs.csv``."""
    import polars as pl

    from ..io import sorted_parquet
    from ..scoring import OUT_SCHEMAS

    schemas = {name: pl.DataFrame(schema=schema).to_arrow().schema
               for name, schema in OUT_SCHEMAS.items()}
    runs, present = [], set()
    with sorted_parquet(schemas, out, "judgment_set") as add:
        for name, df in parts:
            add(name, df)
            if name == "runs":
                runs.append(df.filter(pl.col("scope") == "all"))
                present.update(df["judgment_set"].unique().to_list())
    return (pl.concat(runs) if runs else pl.DataFrame(schema=OUT_SCHEMAS["runs"])), \
        sorted(present)


def _write(campaign: dict, kind: str, runs, present: list[str], out) -> None:
    """``runs.csv``, the wide run table of the primary judgment set (among
    ``present``, the sets of the run scores) from ``runs`` (the run-level rows
    of scope ``all``)."""
    from ..io import write_csv
    from ..report.formats import spreadsheet_safe
    from ..scoring import primary_set, runs_wide

    flat = dict(campaign.get("options") or {}) | campaign
    primary = primary_set(kind, flat, present)
    write_csv(spreadsheet_safe(runs_wide(runs, primary, kind)), Path(out) / "runs.csv",
              float_precision=6)


def _settings(ingest: Path, kind: str) -> str:
    """The shard identity's settings: what was scored (the ingest tables' SHA-256)."""
    from ..io.records import sha256_file
    from ..tables import SCHEMAS

    names = ["campaign.json", *(f"{name}.parquet" for name in SCHEMAS)]
    doc = {"analysis": "score", "kind": kind,
           "ingest_sha256": {n: sha256_file(ingest / n) for n in names}}
    return json.dumps(doc, sort_keys=True, separators=(",", ":"))


def _write_shard(ingest: Path, kind: str, shard: tuple[int, int], out) -> None:
    import polars as pl

    from ..io import write_parquet
    from ..reliability.shards import ID_SCHEMA

    identity = pl.DataFrame({"shard": [shard[0]], "n_shards": [shard[1]], "seed": [0],
                             "settings": [_settings(ingest, kind)]}, schema=ID_SCHEMA)
    write_parquet(identity, Path(out) / SHARD_ID)


def _merge(ingest: Path, dirs: list[str], out) -> None:
    from ..errors import InputError
    from ..ingest import read_resolved
    from ..io import read_parquet
    from ..reliability.shards import ID_SCHEMA, check_shards

    paths = [str(Path(d) / SHARD_ID) for d in dirs]
    ids = [read_parquet(p, schema=ID_SCHEMA, fix="give the folders written by "
                        "`qacamp score --shard I/N`") for p in paths]
    check_shards("score", paths, ids, command="qacamp score")
    campaign = read_resolved(ingest / "campaign.json")
    kind = campaign.get("kind") or (campaign.get("options") or {}).get("kind")
    want = _settings(ingest, kind)
    for path, frame in zip(paths, ids, strict=True):
        if frame["settings"][0] != want:
            raise InputError(path, "column settings", "the shard scored other ingest tables "
                             f"than those of {ingest}", "rescore the shards from this ingest "
                             "folder (qacamp score --shard I/N)")
    order = sorted(range(len(dirs)), key=lambda k: ids[k]["shard"][0])
    runs, present = _stream(_shard_parts([Path(dirs[k]) for k in order]), out)
    _write(campaign, kind, runs, present, out)


def _shard_parts(dirs: list[Path]):
    """The score tables of the shard folders ``dirs`` (in shard order), verified,
    a row group at a time as (name, frame); ``dropped`` (campaign-level,
    the same in every shard holding runs) from the first."""
    from ..io import read_row_groups
    from ..scoring import OUT_SCHEMAS

    for i, folder in enumerate(dirs):
        for name, schema in OUT_SCHEMAS.items():
            if name != "dropped" or not i:
                with read_row_groups(folder / f"{name}.parquet", schema) as table:
                    for chunk in table.chunks():
                        yield name, chunk
