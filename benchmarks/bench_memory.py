"""Benchmark: wall time and peak memory of `qacamp score` as a whole process.

Simulates a TREC-factoid campaign (`qacamp simulate trec-factoid`, default
1,000 runs x 10,000 questions = 10 M responses), ingests it (both cached under
``--workdir``), then runs `qacamp score` as a child process and reports its
wall time, its peak RSS (``os.wait4``: the child's own maximum resident set)
and the peak per response.  ``--shards N`` also scores it as N shard jobs
(`--shard I/N`, one after the other) plus `--merge`, reports each job and
checks that the merged files are byte-identical to the unsharded ones.
``--src DIR`` runs the scoring of another source tree (e.g. an older commit's
``src``, exported with ``git archive``) for a side-by-side figure.
``--big`` is the 100 M responses campaign (10,000 runs x 10,000 questions):
the simulation (5.5 min) and ingest (2.5 min, a spill file of about 7 GB
under TMPDIR) alone take a long time.  ``--replicate K`` scores a campaign K times the size of the
simulated one instead: its ingest tables are the simulated campaign's,
repeated K times with the runs renamed (``x000-<run>``, ``x001-<run>``...: K
times the runs, the same questions), written row group by row group with
qacamp's Parquet options and records, as `qacamp ingest` would write them
(the rows stay in canonical order); only the scoring is measured on it.

``--ingest`` measures `qacamp ingest` itself instead of the scoring: the
simulated campaign ingested again as a child process (``--src DIR``: with
that source tree), its wall time, CPU and peak RSS, and every file compared
with the cached ingest's (``cmp``), side by side with DuckDB reading the same
gzipped run files into declared column types and writing them as Parquet
(:data:`DUCKDB_INGEST`, a whole process too); with ``--autojudge`` the campaign is
judged automatically too (``autojudge: true``, a pattern file of one answer
pattern per question: the last word of its first right answer), and the
files are compared with those of ``--src`` when given.  ``--threads N`` passes ``--threads N``
to the measured `qacamp score` / `qacamp ingest` (default: theirs, the cores
the process may use, at most 4).  Each table row gives the CPU seconds (user
+ system) beside the wall time, and the load average before and after the
measured step: other jobs on the machine inflate the wall time, not the CPU.

    .venv/bin/python benchmarks/bench_memory.py [--runs 1000] [--questions 10000]
        [--shards 4] [--src DIR] [--big] [--replicate K] [--ingest [--autojudge]]
        [--threads N] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scale import machine, qacamp_cmd, run_measured  # noqa: E402

#: The peer of `qacamp ingest`: DuckDB reads the judged run files (gzip; the
#: answer's words as padded columns, joined) into a table of declared column
#: types and writes it as Parquet (argv: the files' glob, the Parquet file).
DUCKDB_INGEST = """
import sys, duckdb
words = [f"a{i}" for i in range(1, 9)]
cols = ", ".join(f"'{c}': 'VARCHAR'" for c in ["qid", "tag", "docid", "judgment", *words])
con = duckdb.connect()
con.execute("create table judged as select qid, tag, docid, judgment, "
            f"nullif(concat_ws(' ', {', '.join(words)}), '') as answer from read_csv(?, "
            f"delim=' ', header=false, quote='', escape='', columns={{{cols}}}, "
            "null_padding=true, auto_detect=false, compression='gzip')", [sys.argv[1]])
con.execute("copy judged to '" + sys.argv[2].replace("'", "''") + "' (format parquet)")
print(con.sql("select count(*) from judged").fetchall()[0][0])
"""

FILES = ["outcomes.parquet", "units.parquet", "runs.parquet", "dropped.parquet", "runs.csv"]


def campaign_json(sim: Path, patterns: Path | None = None) -> str:
    camp = {"kind": "trec-factoid", "questions": str(sim / "questions.txt"),
            "judgment_sets": {"adjudicated": str(sim / "judged/adjudicated/*.txt.gz")}}
    if patterns is not None:
        camp |= {"patterns": str(patterns), "autojudge": True}
    return json.dumps(camp)


def pattern_file(ingest: Path) -> Path:
    """One answer pattern per question (the last word of its first right
    answer, escaped), beside the cached ingest."""
    import re

    import polars as pl

    path = ingest.parent / "patterns.txt"
    keys = ["run", "qid", "item"]
    right = (pl.scan_parquet(ingest / "responses.parquet").select(*keys, "answer", "answered", "nil")
             .join(pl.scan_parquet(ingest / "judgments.parquet").select(*keys, "judgment"), on=keys)
             .filter((pl.col("judgment") == "R") & pl.col("answered") & ~pl.col("nil"))
             .group_by("qid").agg(pl.col("answer").sort().first()).sort("qid").collect())
    path.write_text("".join(f"{qid} {re.escape(answer.split()[-1])}\n"
                            for qid, answer in right.iter_rows()))
    return path


def measure_ingest(args, ingest: Path, work: Path) -> int:
    """`qacamp ingest` of the cached simulation again, measured; its files
    compared with the cached ingest's."""
    tag = "src" if args.src else "this"
    auto = "_auto" if args.autojudge else ""
    out = work / f"ingest{auto}_{tag}_r{args.runs}_q{args.questions}"
    patterns = pattern_file(ingest) if args.autojudge else None
    r = measured_row(args, ["ingest", "--campaign-json",
                            campaign_json(ingest.parent / "sim", patterns), "--name", "memory",
                            "--out", str(out), "--force", *threads(args)], work / "ingest.log")
    n = pq_rows(ingest / "responses.parquet")
    print(HEADER)
    what = "`qacamp ingest`, autojudge" if args.autojudge else "`qacamp ingest`"
    print(row(f"{what} ({tag}), {n:,} responses", r, n))
    if not args.autojudge:  # the peer: DuckDB reading the same files, then Parquet
        files = str(ingest.parent / "sim" / "judged" / "adjudicated" / "*.txt.gz")
        d = measured_row(args, [sys.executable, "-c", DUCKDB_INGEST, files,
                                str(work / "duckdb_ingest.parquet")], work / "duckdb.log",
                         peer=True)
        print(row(f"DuckDB `read_csv` of the same gzip files into typed columns + Parquet, "
                  f"{n:,} lines", d, n))
        print(f"ratio qacamp / DuckDB: wall {r['wall_s'] / d['wall_s']:.2f}x, CPU "
              f"{(r['user_s'] + r['sys_s']) / (d['user_s'] + d['sys_s']):.2f}x")
    if args.autojudge:  # the files of the other source tree, where it was measured
        ingest = work / f"ingest{auto}_{'this' if args.src else 'src'}_r{args.runs}_q{args.questions}"
        if not ingest.exists():
            print(f"measure it with{'out' if args.src else ''} --src to compare the files")
            return 0
    names = sorted(p.name for p in ingest.iterdir() if p.is_file())
    same = all((out / f).read_bytes() == (ingest / f).read_bytes() for f in names)
    print(f"all {len(names)} files byte-identical to {ingest}: {same}")
    print(f"load average at end: {os.getloadavg()}")
    return 0 if same else 1


def pq_rows(path: Path) -> int:
    import pyarrow.parquet as pq

    return pq.ParquetFile(path).metadata.num_rows


def prepare(args, work: Path) -> Path:
    """Simulate and ingest once (cached); returns the ingest folder."""
    camp = work / f"trec-factoid_r{args.runs}_q{args.questions}"
    sim, ingest = camp / "sim", camp / "ingest"
    q = qacamp_cmd()
    steps = [
        ("simulate", q + ["simulate", "trec-factoid", "--runs", str(args.runs), "--questions",
                          str(args.questions), "--judgment-sets", "1", "--quiet",
                          "--out", str(sim)]),
        ("ingest", q + ["ingest", "--campaign-json", campaign_json(sim),
                        "--name", "memory", "--out", str(ingest)]),
    ]
    for name, cmd in steps:
        done = camp / f".{name}.done"
        if done.exists():
            print(f"[prepare] {name}: cached", flush=True)
            continue
        camp.mkdir(parents=True, exist_ok=True)
        r = run_measured(cmd, camp / f"{name}.log")
        done.write_text(json.dumps(r))
        print(f"[prepare] {name}: {r['wall_s']:.1f} s, peak {r['peak_rss_mb']:.0f} MB", flush=True)
    return ingest


def replicate(ingest: Path, k: int) -> Path:
    """The ingest folder of ``ingest``'s campaign repeated ``k`` times with
    renamed runs (module docstring; cached)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from qacamp.ingest import INGEST_ROW_GROUP
    from qacamp.io import write_bytes, writing
    from qacamp.io.writers import write_options
    from qacamp.scoring.runtables import RUN_TABLES
    from qacamp.tables import SCHEMAS, SORT_KEYS

    out = ingest.parent.parent / f"{ingest.parent.name}_x{k}" / "ingest"
    done = out.parent / ".replicate.done"
    if done.exists():
        print(f"[prepare] replicate x{k}: cached", flush=True)
        return out
    sets = pq.read_table(ingest / "judgments.parquet", columns=["judgment_set"]).column(0)
    if len(pc.unique(sets)) > 1:  # rows sorted by judgment set first: not kept by the copies
        raise SystemExit("--replicate needs a campaign with one judgment set")
    with writing("qacamp ingest", dirs=[out], inputs=[ingest], force=True):
        for f in ["campaign.json", *(f"{name}.parquet" for name in SCHEMAS)]:
            name = f.removesuffix(".parquet")
            if name not in RUN_TABLES:
                write_bytes((ingest / f).read_bytes(), out / f, ".parquet")
                continue
            src = pq.ParquetFile(ingest / f)
            sink = pa.BufferOutputStream()
            with pq.ParquetWriter(sink, src.schema_arrow,
                                  **write_options(SORT_KEYS[name])) as w:
                for i in range(k):
                    for g in range(src.num_row_groups):
                        t = src.read_row_group(g)
                        j = t.schema.get_field_index("run")
                        run = pc.binary_join_element_wise(f"x{i:03d}-", t.column(j).cast(pa.string()),
                                                          "").cast(t.schema.field(j).type)
                        w.write_table(t.set_column(j, t.schema.field(j), run),
                                      row_group_size=INGEST_ROW_GROUP)
            write_bytes(sink.getvalue(), out / f, ".parquet")
            print(f"[prepare] replicate x{k}: {f}", flush=True)
    done.write_text("done")
    return out


def score_cmd(args) -> list[str]:
    if args.src:
        return [sys.executable, "-c", "import sys; from qacamp.cli import main; "
                "sys.exit(main(sys.argv[1:]))"]
    return qacamp_cmd()


def measured(args, argv: list[str], log: Path) -> dict:
    env_src = os.environ.get("PYTHONPATH")
    if args.src:
        os.environ["PYTHONPATH"] = str(Path(args.src).resolve())
    try:
        return run_measured(score_cmd(args) + argv, log)
    finally:
        if args.src:
            if env_src is None:
                os.environ.pop("PYTHONPATH", None)
            else:
                os.environ["PYTHONPATH"] = env_src


def threads(args) -> list[str]:
    """The ``--threads`` words of the measured command."""
    return [] if args.threads is None else ["--threads", str(args.threads)]


def measured_row(args, argv: list[str], log: Path, peer: bool = False) -> dict:
    """:func:`measured` (``peer``: ``argv`` is the whole command of another
    tool), with the load average (1 min) before and after."""
    before = os.getloadavg()[0]
    r = run_measured(argv, log) if peer else measured(args, argv, log)
    r["load"] = (before, os.getloadavg()[0])
    return r


HEADER = ("| step | wall (s) | CPU (s) | peak RSS (MB) | peak bytes per response | load |\n"
          "|---|---:|---:|---:|---:|---|")


def row(what: str, r: dict, n: int) -> str:
    peak = r["peak_rss_mb"] * 1024 * 1024
    load = "-".join(f"{x:.1f}" for x in r["load"]) if "load" in r else "-"
    return (f"| {what} | {r['wall_s']:.1f} | {r['user_s'] + r['sys_s']:.1f} | "
            f"{r['peak_rss_mb']:.0f} | {peak / n:.0f} | {load} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--questions", type=int, default=10000)
    ap.add_argument("--big", action="store_true", help="10,000 runs x 10,000 questions")
    ap.add_argument("--shards", type=int, default=0, help="also score as N shards + merge")
    ap.add_argument("--src", default=None, help="score with this source tree (PYTHONPATH)")
    ap.add_argument("--replicate", type=int, default=1,
                    help="score the campaign repeated K times with renamed runs")
    ap.add_argument("--ingest", action="store_true",
                    help="measure `qacamp ingest` of the simulated campaign, not the scoring")
    ap.add_argument("--autojudge", action="store_true",
                    help="with --ingest: judge automatically too, with a pattern file")
    ap.add_argument("--threads", type=int, default=None,
                    help="--threads N of the measured qacamp command (default: its own)")
    ap.add_argument("--workdir", default="/tmp/qacamp-bench-memory")
    args = ap.parse_args()
    if args.big:
        args.runs, args.questions = 10_000, 10_000
    work = Path(args.workdir)
    mach = machine()
    print(json.dumps(mach), flush=True)
    ingest = prepare(args, work)
    if args.ingest:
        return measure_ingest(args, ingest, work)
    if args.replicate > 1:
        ingest = replicate(ingest, args.replicate)
    n = pq_rows(ingest / "responses.parquet")
    tag = "src" if args.src else "this"
    size = f"r{args.runs}_q{args.questions}" + (f"_x{args.replicate}" if args.replicate > 1 else "")
    out = work / f"scores_{tag}_{size}"
    print(HEADER)
    whole = measured_row(args, ["score", "--ingest", str(ingest), "--out", str(out), "--force",
                                *threads(args)], work / "score.log")
    print(row(f"`qacamp score`, {n:,} responses", whole, n), flush=True)
    if args.shards:
        dirs = []
        for i in range(args.shards):
            d = work / f"shard_{tag}_{size}_{i}of{args.shards}"
            r = measured_row(args, ["score", "--ingest", str(ingest), "--out", str(d),
                                    "--force", "--shard", f"{i}/{args.shards}", *threads(args)],
                             work / f"shard{i}.log")
            dirs.append(str(d))
            print(row(f"`--shard {i}/{args.shards}`", r, n), flush=True)
        merged = work / f"merged_{tag}_{size}"
        r = measured_row(args, ["score", "--ingest", str(ingest), "--out", str(merged),
                                "--force", "--merge", *dirs], work / "merge.log")
        print(row("`--merge`", r, n), flush=True)
        same = all((merged / f).read_bytes() == (out / f).read_bytes() for f in FILES)
        print(f"merged shards byte-identical to the unsharded scores: {same}")
    print(f"load average at end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
