"""Benchmark: score 1,000 QA4MRE-shaped runs x 10,000 questions, qacamp vs the
same core work in plain DuckDB SQL.

Builds the ingest tables of a QA4MRE campaign directly with numpy, as `qacamp
ingest` would write them from a gold standard and run XML files (25 topics x 25
reading tests x 16 questions: 15 main + 1 auxiliary; five options, the fifth
"None of the above" and the gold answer of 39% of the questions; 2% missing
responses, abstentions with and without a candidate answer), and writes them
with :func:`qacamp.ingest.write_ingest` (``--ingest DIR`` takes an existing
QA4MRE ingest folder instead, e.g. a ``qacamp simulate qa4mre`` campaign).

Then, side by side, on those Parquet files:

- qacamp: ``qacamp score`` called in process (reading the verified ingest
  tables, :func:`qacamp.scoring.score_batches`, encoding and writing the four
  Parquet files and ``runs.csv``), with the breakdown of its steps (judged
  units, outcomes, question-level scores, output frames, ...), and as a whole
  process (``qacamp score --ingest DIR --out DIR``);
- DuckDB: ``sql_scoring.py`` (this folder), the same outcomes, baselines,
  scopes and reading-test statistics as SQL reading the same Parquet and
  writing the same files in the same row order, in process and as a whole
  process (``python benchmarks/sql_scoring.py``).

Wall and CPU seconds are given for each (the machine is shared: CPU seconds
are the steadier figure; in process, CPU is this process's, all threads);
whole-process figures add the peak RSS (``os.wait4``).  The benchmark CHECKS
that the two sides wrote the same rows in the same order, with outcomes equal
and every value within 1e-12 (relative above 1; it prints the largest
difference and exits 1 otherwise), so that the comparison is of the same work.
``--repeat N`` measures each side N times, the order of the sides alternating.

``--profile`` also runs ``qacamp score`` in process under cProfile and prints
qacamp's functions by cumulative time and every function by its own time.  Quick check at a small size::

    .venv/bin/python benchmarks/bench_scoring.py --runs 50 --questions 800
    .venv/bin/python benchmarks/bench_scoring.py [--runs 1000] [--questions 10000]
        [--repeat 3] [--profile] [--ingest DIR] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_scale import machine, qacamp_cmd  # noqa: E402
from sql_scoring import score_sql  # noqa: E402

import qacamp.cli.score  # noqa: E402, F401  (imported before any timing)
import qacamp.ingest  # noqa: E402, F401
import qacamp.report.formats  # noqa: E402, F401
from qacamp import scoring  # noqa: E402
from qacamp.tables import SCHEMAS, canonical_order, conform, empty  # noqa: E402

TESTS_PER_TOPIC = 25
QUESTIONS_PER_TEST = 16  # 15 main + 1 auxiliary (QA4MRE 2013)
MAIN = 15
TOLERANCE = 1e-12
COMPARED = ("outcomes", "units", "runs")


# --------------------------------------------------------------------------- the campaign
def build(n_runs: int, n_q: int, seed: int = 7) -> dict[str, pl.DataFrame]:
    """The ingest tables of a QA4MRE-shaped campaign (what
    ``qacamp.readers.qa4mre.read_gold`` / ``read_run`` give for such files)."""
    rng = np.random.default_rng(seed)
    qn = np.arange(n_q)
    t_idx = qn // (TESTS_PER_TOPIC * QUESTIONS_PER_TEST) + 1
    r_idx = (qn // QUESTIONS_PER_TEST) % TESTS_PER_TOPIC + 1
    q_no = qn % QUESTIONS_PER_TEST + 1
    topic = pl.Series(t_idx).cast(pl.String)
    test = topic + "." + pl.Series(r_idx).cast(pl.String)
    qid = test + "." + pl.Series(q_no).cast(pl.String)
    questions = pl.DataFrame({
        "qid": qid, "qtype": "MC", "topic": topic, "topic_name": "Topic " + topic,
        "test": test, "language": "EN", "position": (qn + 1).astype(np.int32)})
    # an auxiliary question simplifies main question 1 of its test
    questions = questions.with_columns(
        pl.when(pl.lit(pl.Series(q_no > MAIN))).then(pl.col("test") + ".1")
        .alias("auxiliary_of"))
    correct = rng.integers(1, 5, n_q)
    correct[rng.permutation(n_q)[:round(0.39 * n_q)]] = 5  # "None of the above"
    opt_no = np.tile(np.arange(1, 6), n_q)
    options = pl.DataFrame({
        "qid": qid.gather(np.repeat(qn, 5)), "option": pl.Series(opt_no).cast(pl.String),
        "text": np.where(opt_no == 5, "None of the above", "an answer"),
        "correct": opt_no == np.repeat(correct, 5), "is_noa": opt_no == 5})
    # runs: skill, abstention share (none for 40% of the runs), candidate habit
    skill = rng.uniform(0.2, 0.8, n_runs)
    u_share = np.where(rng.random(n_runs) < 0.4, 0.0, rng.uniform(0.02, 0.4, n_runs))
    p_cand = rng.choice([0.0, 1.0, 0.5], n_runs)
    keep = rng.random(n_runs * n_q) > 0.02  # 2% missing responses
    run_idx = np.repeat(np.arange(n_runs), n_q)[keep]
    q_idx = np.tile(qn, n_runs)[keep]
    m = len(run_idx)
    right = rng.random(m) < skill[run_idx]
    wrong_pick = (correct[q_idx] - 1 + rng.integers(1, 5, m)) % 5 + 1  # another option
    chosen = np.where(right, correct[q_idx], wrong_pick)
    answered = rng.random(m) >= u_share[run_idx]
    has_opt = answered | (rng.random(m) < p_cand[run_idx])
    starts = np.searchsorted(run_idx, np.arange(n_runs))
    rank = (np.arange(m) - starts[run_idx] + 1).astype(np.int32)
    names = pl.Series([f"run{i:04d}" for i in range(n_runs)])
    run = names.gather(run_idx)
    q = qid.gather(q_idx)
    opt = pl.Series(chosen).cast(pl.String)
    responses = pl.DataFrame({
        "run": run, "qid": q, "item": np.ones(m, np.int32), "rank": rank,
        "answer": pl.select(pl.when(pl.lit(pl.Series(answered))).then(opt)).to_series(),
        "answered": answered,
        "candidate": pl.select(pl.when(pl.lit(pl.Series(~answered & has_opt)))
                               .then(opt)).to_series(),
        "nil": np.zeros(m, bool)})
    judgments = pl.DataFrame({
        "judgment_set": pl.repeat("gold", m, eager=True), "run": run, "qid": q,
        "item": np.ones(m, np.int32),
        "judgment": pl.select(pl.when(pl.lit(pl.Series(has_opt)))
                              .then(pl.when(pl.lit(pl.Series(right))).then(pl.lit("R"))
                                    .otherwise(pl.lit("W")))).to_series()})
    t = {name: empty(name) for name in SCHEMAS}
    t.update(questions=questions, options=options, responses=responses, judgments=judgments)
    return {name: canonical_order(name, conform(name, df)) for name, df in t.items()}


def write_campaign(tables: dict[str, pl.DataFrame], ingest: Path) -> None:
    """Write the tables and a resolved QA4MRE campaign as `qacamp ingest` does."""
    from qacamp.ingest import write_ingest

    resolved = {"name": "bench", "kind": "qa4mre", "judgment_sets": ["gold"],
                "primary": "gold", "files": {},
                "options": {"language": "EN", "main_questions": MAIN, "pass_threshold": 0.5,
                            "baseline_seed": 1, "edition": "2013", "min_coverage": 0.9}}
    write_ingest(tables, resolved, ingest)


# --------------------------------------------------------------------------- timing
class Phases:
    """Timers around qacamp's steps, filled while `qacamp score` runs in process."""

    STEPS = ("build_context", "judged_units", "campaign_facts", "restrict",
             "question_outcomes", "question_scores")

    def __init__(self) -> None:
        self.sec: dict[str, dict[str, float]] = {}
        import qacamp.io
        import qacamp.io.writers
        for name in self.STEPS:
            self._wrap(scoring, name, name)
        self._wrap(scoring.frames.Collector, "finish", "output frames (Collector.finish)")
        self._wrap(qacamp.io, "read_parquet", "read verified ingest tables")
        self._wrap(qacamp.io.writers.SortedWriter, "add", "encode Parquet row groups")
        self._wrap(qacamp.io.writers.SortedWriter, "close", "last row groups, close files")
        self._wrap(qacamp.cli.score, "_write", "runs_wide, write runs.csv")
        gen = scoring.score_batches

        def batches(*a, **k):  # the time spent inside the generator
            it = gen(*a, **k)
            while True:
                t0, c0 = time.perf_counter(), time.process_time()
                try:
                    part = next(it)
                except StopIteration:
                    return
                finally:
                    self._add("score_batches (all scoring)", time.perf_counter() - t0,
                              time.process_time() - c0)
                yield part
        scoring.score_batches = batches

    def _add(self, label: str, wall: float, cpu: float) -> None:
        r = self.sec.setdefault(label, {"wall_s": 0.0, "cpu_s": 0.0})
        r["wall_s"] += wall
        r["cpu_s"] += cpu

    def _wrap(self, owner, name: str, label: str) -> None:
        f = getattr(owner, name)

        def timed(*a, **k):
            t0, c0 = time.perf_counter(), time.process_time()
            try:
                return f(*a, **k)
            finally:
                self._add(label, time.perf_counter() - t0, time.process_time() - c0)
        setattr(owner, name, timed)


def timed(fn, *a, **k) -> tuple[dict, object]:
    """Wall and CPU seconds (this process, all threads) of ``fn(*a, **k)``."""
    w0, c0 = time.perf_counter(), time.process_time()
    result = fn(*a, **k)
    return {"wall_s": time.perf_counter() - w0, "cpu_s": time.process_time() - c0}, result


def qacamp_in_process(ingest: Path, out: Path) -> None:
    from qacamp.cli import main

    rc = main(["score", "--ingest", str(ingest), "--out", str(out)])
    if rc:
        raise SystemExit(f"qacamp score failed ({rc})")


def sql_cmd() -> list[str]:
    return [sys.executable, str(HERE / "sql_scoring.py")]


#: A small launcher process runs the command and measures it (bench_scale.run_measured):
#: a child forked from this (large) process would start with its resident set
#: as its peak (Linux carries the high-water mark over fork and exec).
LAUNCHER = ("import json, sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path; "
            "from bench_scale import run_measured; "
            "print(json.dumps(run_measured(sys.argv[3:], Path(sys.argv[2]))))")


def whole(cmd: list[str], log: Path) -> dict:
    """Wall and CPU seconds and peak RSS of ``cmd`` as a whole process."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", LAUNCHER, str(HERE), str(log), *cmd],
                          capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{done.stdout}{done.stderr}")
    r = json.loads(done.stdout)
    return {"wall_s": r["wall_s"], "cpu_s": r["user_s"] + r["sys_s"],
            "peak_rss_mb": r["peak_rss_mb"]}


# --------------------------------------------------------------------------- the check
def compare(ours: Path, sql: Path) -> tuple[dict[str, float], list[str]]:
    """Largest |difference| of ``value`` per file (and divided by max(1, |value|)),
    and the problems found: rows, their order or outcomes that differ, or a
    value differing by more than 1e-12 (relative above 1: the expected random
    run's counts are sums of thousands of fractions 1/k, and doubles near 7,500
    are 9.1e-13 apart)."""
    diffs: dict[str, float] = {}
    problems: list[str] = []
    for name in COMPARED:
        a, b = pl.read_parquet(ours / f"{name}.parquet"), pl.read_parquet(sql / f"{name}.parquet")
        if a.schema != b.schema or a.height != b.height:
            problems.append(f"{name}: qacamp {a.height:,} rows {dict(a.schema)}, "
                            f"SQL {b.height:,} rows {dict(b.schema)}")
            continue
        exact = [c for c in a.columns if c != "value"]
        same = a.select(exact).with_row_index().join(
            b.select(exact).with_row_index(), on=["index", *exact], how="anti", nulls_equal=True)
        if same.height:
            i = same["index"].min()
            problems.append(f"{name} row {i}: qacamp {a.row(i)}, SQL {b.row(i)}")
        if "value" in a.columns:
            d = (a["value"] - b["value"]).abs()
            scaled = d / a["value"].abs().clip(lower_bound=1.0)
            diffs[name] = float(d.max() or 0.0)
            diffs[f"{name} scaled"] = float(scaled.max() or 0.0)
            if not diffs[f"{name} scaled"] <= TOLERANCE:
                i = int(scaled.arg_max())
                problems.append(f"{name} row {i}: qacamp {a.row(i)}, SQL {b.row(i)} "
                                f"(difference {d[i]:.3g})")
    dropped = pl.read_parquet(ours / "dropped.parquet")
    if dropped.height:  # the SQL writes none: a QA4MRE campaign drops nothing
        problems.append(f"qacamp dropped {dropped.height} units; the SQL drops none")
    diffs["runs.csv identical"] = float(
        (ours / "runs.csv").read_bytes() == (sql / "runs.csv").read_bytes())
    return diffs, problems


def profile(ingest: Path, out: Path, top: int) -> None:
    """cProfile of `qacamp score` in process (wall clock): qacamp's own functions
    by cumulative time, then every function by its own time."""
    shutil.rmtree(out, ignore_errors=True)
    prof = cProfile.Profile()
    prof.enable()
    qacamp_in_process(ingest, out)
    prof.disable()
    stats = pstats.Stats(prof)
    total = max(stats.total_tt, 1e-9)
    own = sorted(((ct, tt, nc, f"{fn.split('/src/', 1)[1]}:{line}({name})")
                  for (fn, line, name), (_, nc, tt, ct, _) in stats.stats.items()
                  if "/src/qacamp/" in fn), reverse=True)
    print(f"\n--- cProfile of `qacamp score` in process: {total:.2f} s; qacamp's functions, "
          f"top {top} by cumulative time ---")
    print(f"{'cumul s':>8} {'share':>6} {'own s':>7} {'calls':>7}  function")
    for ct, tt, nc, name in own[:top]:
        print(f"{ct:8.2f} {ct / total:6.1%} {tt:7.2f} {nc:7d}  {name}")
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(top)
    print(f"\n--- every function, top {top} by own time ---")
    print("\n".join(line for line in s.getvalue().splitlines()[6:] if line.strip()))


# --------------------------------------------------------------------------- main
def fmt(r: dict) -> str:
    peak = f", peak {r['peak_rss_mb']:,.0f} MB" if "peak_rss_mb" in r else ""
    return f"{r['wall_s']:7.2f} s wall, {r['cpu_s']:7.2f} s CPU{peak}"


def best(rs: list[dict]) -> dict:
    return min(rs, key=lambda r: r["wall_s"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--questions", type=int, default=10000)
    ap.add_argument("--ingest", default=None, metavar="DIR",
                    help="score this QA4MRE ingest folder instead of building one")
    ap.add_argument("--workdir", default=None, help="keep the files here (default: a temp dir)")
    ap.add_argument("--repeat", type=int, default=1, help="measure each side N times (best)")
    ap.add_argument("--profile", action="store_true", help="also cProfile score_campaign")
    ap.add_argument("--top", type=int, default=30, help="functions listed by --profile")
    args = ap.parse_args(argv)
    print(json.dumps(machine()), flush=True)
    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench-scoring-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        if args.ingest:
            ingest = Path(args.ingest)
        else:
            ingest = work / "ingest"
            t0 = time.perf_counter()
            tables = build(args.runs, args.questions)
            write_campaign(tables, ingest)
            print(f"built and wrote {tables['responses'].height:,} responses "
                  f"({tables['questions'].height:,} questions, "
                  f"{args.runs:,} runs) in {time.perf_counter() - t0:.1f} s", flush=True)
            del tables
        return measure(args, ingest, work)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)


def measure(args, ingest: Path, work: Path) -> int:
    out = {k: work / k for k in ("qacamp-in", "sql-in", "qacamp-whole", "sql-whole")}
    phases = Phases()
    res: dict[str, list[dict]] = {k: [] for k in out}

    def qacamp_in() -> None:
        phases.sec.clear()
        r, _ = timed(qacamp_in_process, ingest, out["qacamp-in"])
        res["qacamp-in"].append(r | {"phases": dict(phases.sec)})
        print(f"  qacamp in process         {fmt(r)}", flush=True)

    def sql_in() -> None:
        shutil.rmtree(out["sql-in"], ignore_errors=True)
        r, steps = timed(score_sql, ingest, out["sql-in"])
        res["sql-in"].append(r | {"steps": steps})
        print(f"  DuckDB SQL in process     {fmt(r)}", flush=True)

    def qacamp_whole() -> None:
        r = whole([*qacamp_cmd(), "score", "--ingest", str(ingest), "--out",
                   str(out["qacamp-whole"])], work / "qacamp-whole.log")
        res["qacamp-whole"].append(r)
        print(f"  qacamp whole process      {fmt(r)}", flush=True)

    def sql_whole() -> None:
        shutil.rmtree(out["sql-whole"], ignore_errors=True)
        r = whole([*sql_cmd(), "--ingest", str(ingest), "--out", str(out["sql-whole"])],
                  work / "sql-whole.log")
        res["sql-whole"].append(r)
        print(f"  DuckDB SQL whole process  {fmt(r)}", flush=True)

    for i in range(args.repeat):  # the order alternates: neither side always runs first
        print(f"\n[{i + 1}/{args.repeat}] load average {os.getloadavg()}", flush=True)
        for run in ((qacamp_in, sql_in, qacamp_whole, sql_whole) if i % 2 == 0
                    else (sql_in, qacamp_in, sql_whole, qacamp_whole)):
            run()
    print(f"load average at the end {os.getloadavg()}")
    qi, si, qw, sw = (best(res[k]) for k in ("qacamp-in", "sql-in", "qacamp-whole",
                                             "sql-whole"))
    print(f"\nbest of {args.repeat} (by wall time):")
    print("| side | in process | whole process |")
    print("|---|---|---|")
    print(f"| qacamp `score` | {fmt(qi)} | {fmt(qw)} |")
    print(f"| DuckDB SQL | {fmt(si)} | {fmt(sw)} |")
    print(f"| ratio qacamp / SQL (wall; CPU) | {qi['wall_s'] / si['wall_s']:.2f}x; "
          f"{qi['cpu_s'] / si['cpu_s']:.2f}x | {qw['wall_s'] / sw['wall_s']:.2f}x; "
          f"{qw['cpu_s'] / sw['cpu_s']:.2f}x |")
    print("\nqacamp in process, breakdown (nested: score_batches holds the scoring steps, "
          "Collector.finish the output frames; batches are scored in threads, so the steps "
          "overlap and their CPU seconds are the whole process's):")
    for name, r in qi["phases"].items():
        print(f"  {name:<36} {r['wall_s']:7.2f} s  ({r['cpu_s']:.2f} s CPU)")
    print("DuckDB SQL in process, breakdown:")
    for name, r in si["steps"].items():
        print(f"  {name:<36} {r['wall_s']:7.2f} s  ({r['cpu_s']:.2f} s CPU)")
    print("\nCHECK (same rows, same order, outcomes equal, values within 1e-12, relative "
          "above 1):")
    failed = False
    for a, b in (("qacamp-in", "sql-in"), ("qacamp-whole", "sql-whole")):
        d, problems = compare(out[a], out[b])
        for p in problems:
            print(f"  MISMATCH {a} vs {b}: {p}")
        failed = failed or bool(problems)
        print(f"  {a} vs {b}: largest |difference| units {d.get('units', float('nan')):.3g}, "
              f"runs {d.get('runs', float('nan')):.3g} (relative "
              f"{d.get('runs scaled', float('nan')):.3g}); "
              f"{'MISMATCH' if problems else 'outcomes identical, same rows in the same order'}"
              f"; runs.csv {'byte-identical' if d['runs.csv identical'] else 'differs'}")
    rows = {name: pl.scan_parquet(out["qacamp-in"] / f"{name}.parquet").select(pl.len())
            .collect().item() for name in COMPARED}
    print("  rows: " + ", ".join(f"{name} {n:,}" for name, n in rows.items()))
    print(json.dumps(res))
    if args.profile:
        profile(ingest, work / "qacamp-profile", args.top)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
