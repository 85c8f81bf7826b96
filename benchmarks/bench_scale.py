"""Scale benchmark: swap analysis of a large campaign in sharded jobs.

Generates a simulated TREC-factoid campaign (default 1,000 runs x 10,000
questions), ingests and scores it once (cached under ``--workdir``), then runs
``qacamp reliability swap --shard I/N`` as separate processes, ``--jobs`` at a
time, and ``qacamp reliability merge --kind swap``.  Prints and records
(``benchmarks/out/scale.json``, ``benchmarks/out/scale.md`` and a section of
``benchmarks/README.md``):

- total wall time of the sharded analysis (first spawn to end of merge);
- time per trial, per size and overall (sum of the shards' in-kernel time
  divided by the trials: one job slot's cost of a trial), and wall per trial;
- per-shard overhead = wall time from spawning the process to the start of its
  first trial (first call of ``draw_subsets``, i.e. interpreter start, imports,
  argument parsing, loading the score matrix, pair index), and its share of the
  shard's wall time (spawn to exit, including writing the shard file).  As a
  cross-check, the wall time of the same command with one trial of the
  smallest size (``--trials 1``: everything but the kernel, and one cheap
  trial) is reported too;
- peak memory per shard: the child's maximum resident set size as reported by
  the kernel through ``os.wait4`` (exact per process, not the cumulative
  ``RUSAGE_CHILDREN`` maximum).

The shard processes run the real CLI (``qacamp.cli.main``) through a tiny
wrapper (this file with ``--child``) that only timestamps the first trial and
the kernel's end; it imports nothing extra before ``qacamp``.

If ``--trials`` is below ``--target-trials`` (10,000) the figures for the
target are extrapolated linearly from the measured per-trial time (the kernel
is linear in trials; the overhead does not depend on them).

Finally it checks that merged results do not depend on the shard count
(``--check-trials`` trials, ``--check-shards`` e.g. 3 vs 5).

Run: ``.venv/bin/python benchmarks/bench_scale.py [--trials 2000]``.
``--tiny --workdir DIR`` is a check that it runs: 8 runs x 200 questions, a
few trials in 2 shards, nothing recorded in benchmarks/, and the targets
(overhead share, peak memory) not judged: they hold at scale only; the
shard-count check is.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import datetime as dt
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BEGIN, END = "<!-- bench_scale:begin -->", "<!-- bench_scale:end -->"


# --------------------------------------------------------------------------- child
def child(marker: str, argv: list[str]) -> int:
    """Run ``qacamp`` with ``argv``; write first-trial / per-size / kernel-end times."""
    import importlib  # noqa: PLC0415

    # the module (qacamp.reliability.swap is also the API function of that name)
    sw = importlib.import_module("qacamp.reliability.swap")
    from qacamp.cli import main  # noqa: PLC0415

    marks: dict = {"size_start": {}, "first_work": None, "kernel_end": None}
    draw, counts = sw.draw_subsets, sw.swap_counts

    def draw_subsets(n_units, size, *a, **k):
        now = time.time()
        if marks["first_work"] is None:
            marks["first_work"] = now
        marks["size_start"].setdefault(str(size), now)
        return draw(n_units, size, *a, **k)

    def swap_counts(*a, **k):
        try:
            return counts(*a, **k)
        finally:
            marks["kernel_end"] = time.time()

    sw.draw_subsets, sw.swap_counts = draw_subsets, swap_counts
    # the command's analysis calls the kernel through its own import of it
    analysis = importlib.import_module("qacamp.reliability.analyses.swap")
    analysis.swap_counts = swap_counts
    rc = main(argv)
    marks["exit"] = time.time()
    Path(marker).write_text(json.dumps(marks))
    return rc


# --------------------------------------------------------------------------- parent
def qacamp_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("qacamp")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "qacamp.cli"]


def child_env() -> dict:
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    return env


def run_measured(cmd: list[str], log: Path) -> dict:
    """Spawn ``cmd``; wall time and exact peak RSS of that process (os.wait4)."""
    with open(log, "w") as err:
        t0 = time.time()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env=child_env())
        _, status, usage = os.wait4(proc.pid, 0)
        t1 = time.time()
        proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{log.read_text()[-2000:]}")
    return {"spawn": t0, "end": t1, "wall_s": t1 - t0, "peak_rss_mb": usage.ru_maxrss / 1024,
            "user_s": usage.ru_utime, "sys_s": usage.ru_stime}


def prepare(args, work: Path) -> Path:
    """Simulate, ingest and score once (cached); returns the scores folder."""
    camp = work / f"trec-factoid_r{args.runs}_q{args.questions}_s{args.sim_seed or 'default'}"
    sim, ingest, scores = camp / "sim", camp / "ingest", camp / "scores"
    q = qacamp_cmd()
    steps = [
        ("simulate", sim, q + ["simulate", "trec-factoid", "--runs", str(args.runs),
                               "--questions", str(args.questions), "--judgment-sets", "1", "--quiet",
                               "--out", str(sim)]
         + ([] if args.sim_seed is None else ["--seed", str(args.sim_seed)])),
        ("ingest", ingest, q + ["ingest", "--campaign-json", json.dumps({
            "kind": "trec-factoid", "questions": str(sim / "questions.txt"),
            "judgment_sets": {"adjudicated": str(sim / "judged/adjudicated/*.txt.gz")}}),
            "--name", "scale", "--out", str(ingest)]),
        ("score", scores, q + ["score", "--ingest", str(ingest), "--out", str(scores)]),
    ]
    for name, out, cmd in steps:
        done = camp / f".{name}.done"
        if done.exists():
            print(f"[prepare] {name}: cached ({out})", flush=True)
            continue
        shutil.rmtree(out, ignore_errors=True)
        camp.mkdir(parents=True, exist_ok=True)
        r = run_measured(cmd, camp / f"{name}.log")
        done.write_text(json.dumps(r))
        print(f"[prepare] {name}: {r['wall_s']:.1f} s, peak {r['peak_rss_mb']:.0f} MB", flush=True)
    return scores


def swap_args(args, scores: Path, trials: int, sizes: str | None = None) -> list[str]:
    return ["reliability", "swap", "--scores", str(scores), "--measure", args.measure,
            "--unit", "question", "--judgment-set", "adjudicated", "--sizes",
            sizes or args.sizes, "--trials", str(trials), "--seed", str(args.seed)]


def run_sharded(args, scores: Path, trials: int, shards: int, out_dir: Path,
                verbose: bool = True) -> dict:
    """All shards (``--jobs`` at a time) then the merge; per-shard measurements."""
    out_dir.mkdir(parents=True, exist_ok=True)
    me = [sys.executable, str(Path(__file__).resolve()), "--child"]

    def one(i: int) -> dict:
        marker = out_dir / f"shard{i}.marks.json"
        marker.unlink(missing_ok=True)
        cmd = me + [str(marker), "--"] + swap_args(args, scores, trials) + [
            "--shard", f"{i}/{shards}", "--out", str(out_dir / f"shard{i}.parquet")]
        r = run_measured(cmd, out_dir / f"shard{i}.log")
        m = json.loads(marker.read_text())
        first = m["first_work"] or m["kernel_end"]
        r.update(shard=i, overhead_s=first - r["spawn"], kernel_s=m["kernel_end"] - first,
                 after_kernel_s=r["end"] - m["kernel_end"])
        starts = sorted((float(t), int(s)) for s, t in m["size_start"].items())
        bounds = [t for t, _ in starts[1:]] + [m["kernel_end"]]
        r["size_s"] = {str(s): b - t for (t, s), b in zip(starts, bounds, strict=True)}
        r["overhead_share"] = r["overhead_s"] / r["wall_s"]
        if verbose:
            print(f"  shard {i}/{shards}: wall {r['wall_s']:7.1f} s  overhead {r['overhead_s']:5.2f} s "
                  f"({100 * r['overhead_share']:4.1f}%)  peak RSS {r['peak_rss_mb']:6.0f} MB", flush=True)
        return r

    t0 = time.time()
    with cf.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        rows = list(pool.map(one, range(shards)))
    merged = out_dir / "merged.parquet"
    mr = run_measured(qacamp_cmd() + ["reliability", "merge", "--kind", "swap", str(merged)]
                      + [str(out_dir / f"shard{i}.parquet") for i in range(shards)],
                      out_dir / "merge.log")
    return {"shards": rows, "merge": mr, "total_wall_s": time.time() - t0, "merged": str(merged)}


def machine() -> dict:
    info = {"nproc": os.cpu_count(), "usable_cpus": len(os.sched_getaffinity(0)),
            "python": platform.python_version(), "platform": platform.platform(),
            "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "loadavg_at_start": os.getloadavg()}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["mem_gb"] = round(int(line.split()[1]) / 1024**2, 1)
    except OSError:
        pass
    try:
        import numpy
        import polars
        info["numpy"], info["polars"] = numpy.__version__, polars.__version__
    except ImportError:
        pass
    return info


def summarise(args, res: dict, trials: int, zero: dict, sizes: list[int]) -> dict:
    sh = res["shards"]
    kern = sum(r["kernel_s"] for r in sh)
    per_size = {s: sum(r["size_s"].get(str(s), 0.0) for r in sh) / trials for s in sizes}
    scale = args.target_trials / trials
    proj = [r["overhead_s"] + r["kernel_s"] * scale + r["after_kernel_s"] for r in sh]
    proj_share = [r["overhead_s"] / p for r, p in zip(sh, proj, strict=True)]
    return {
        "trials": trials, "target_trials": args.target_trials, "shards": args.shards,
        "jobs": args.jobs, "sizes": sizes, "runs": args.runs, "questions": args.questions,
        "pairs": args.runs * (args.runs - 1) // 2, "measure": args.measure,
        "total_wall_s": res["total_wall_s"], "merge_s": res["merge"]["wall_s"],
        "kernel_s_per_trial": kern / trials, "wall_s_per_trial": res["total_wall_s"] / trials,
        "kernel_s_per_trial_per_size": per_size,
        "overhead_s": [r["overhead_s"] for r in sh],
        "overhead_share": [r["overhead_share"] for r in sh],
        "shard_wall_s": [r["wall_s"] for r in sh],
        "peak_rss_mb": [r["peak_rss_mb"] for r in sh],
        "trials0_wall_s": zero["wall_s"], "trials0_peak_rss_mb": zero["peak_rss_mb"],
        "projected": {
            "trials": args.target_trials, "extrapolated": trials != args.target_trials,
            "shard_wall_s": proj, "overhead_share": proj_share,
            "total_wall_s": sum(proj) / args.jobs + res["merge"]["wall_s"],
        },
    }


def markdown(s: dict, mach: dict, check: dict) -> str:
    p = s["projected"]
    lines = [
        f"Machine: {mach.get('cpu', '?')}, {mach['nproc']} CPUs, {mach.get('mem_gb', '?')} GB RAM; "
        f"Python {mach['python']}, numpy {mach.get('numpy', '?')}, polars {mach.get('polars', '?')}; "
        f"load average at start {mach['loadavg_at_start'][0]:.2f}.",
        "",
        f"Campaign: simulated trec-factoid, {s['runs']:,} runs x {s['questions']:,} questions "
        f"({s['pairs']:,} run pairs), measure {s['measure']}, sizes {', '.join(map(str, s['sizes']))}; "
        f"**{s['trials']:,} trials per size** in {s['shards']} shards, {s['jobs']} jobs at a time.",
        "",
        "| figure | value |", "|---|---|",
        f"| total wall time (shards + merge) | {s['total_wall_s']:.1f} s |",
        f"| merge | {s['merge_s']:.2f} s |",
        f"| time per trial, all sizes (one job slot) | {1000 * s['kernel_s_per_trial']:.1f} ms |",
        f"| wall time per trial ({s['jobs']} jobs) | {1000 * s['wall_s_per_trial']:.1f} ms |",
    ]
    for size, v in s["kernel_s_per_trial_per_size"].items():
        lines.append(f"| time per trial, size {size} | {1000 * v:.1f} ms |")
    lines += [
        f"| one-trial command, smallest size (fixed cost) | {s['trials0_wall_s']:.2f} s, "
        f"{s['trials0_peak_rss_mb']:.0f} MB |",
        "", "| shard | wall (s) | overhead (s) | overhead share | peak RSS (MB) | "
        f"projected wall at {p['trials']:,} trials (s) | projected overhead share |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for i in range(s["shards"]):
        lines.append(f"| {i} | {s['shard_wall_s'][i]:.1f} | {s['overhead_s'][i]:.2f} | "
                     f"{100 * s['overhead_share'][i]:.1f}% | {s['peak_rss_mb'][i]:.0f} | "
                     f"{p['shard_wall_s'][i]:.0f} | {100 * p['overhead_share'][i]:.2f}% |")
    lines += [
        "",
        f"Max overhead share: {100 * max(s['overhead_share']):.1f}% measured "
        f"(target < 10%); max peak RSS {max(s['peak_rss_mb']):.0f} MB (target < 2,048 MB).",
    ]
    if p["extrapolated"]:
        lines.append(f"Extrapolated to {p['trials']:,} trials per size (linear in trials, same "
                     f"overheads): total wall about {p['total_wall_s'] / 60:.0f} min with "
                     f"{s['jobs']} jobs, max overhead share "
                     f"{100 * max(p['overhead_share']):.2f}%.")
    if check:
        lines.append(f"Shard-count check ({check['trials']} trials, shards "
                     f"{' vs '.join(map(str, check['shards']))}): merged results "
                     f"{'identical' if check['identical'] else 'DIFFER'}"
                     f"{' (byte-identical files)' if check.get('bytes_identical') else ''}.")
    return "\n".join(lines) + "\n"


def update_readme(path: Path, section: str) -> None:
    block = (f"{BEGIN}\n## Scale benchmark (`bench_scale.py`)\n\n"
             "Recorded by `.venv/bin/python benchmarks/bench_scale.py` (see its docstring "
             "for the definitions of the figures).\n\n" + section + END + "\n")
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + block + rest.split(END, 1)[1].lstrip("\n")
    else:
        text = text.rstrip("\n") + "\n\n" + block
    path.write_text(text, encoding="utf-8")


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        marker, rest = sys.argv[2], sys.argv[3:]
        return child(marker, rest[1:] if rest[:1] == ["--"] else rest)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--questions", type=int, default=10000)
    ap.add_argument("--trials", type=int, default=10000, help="trials per size actually run")
    ap.add_argument("--target-trials", type=int, default=10000,
                    help="trials per size the figures are projected to")
    ap.add_argument("--sizes", default="500,2500,5000")
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--measure", default="accuracy")
    ap.add_argument("--seed", type=int, default=0, help="swap analysis seed")
    ap.add_argument("--sim-seed", type=int, default=None,
                    help="simulation seed (default: the simulator's own)")
    ap.add_argument("--workdir", default=str(Path(tempfile.gettempdir()) / "qacamp-bench-scale"),
                    help="cache of the campaign and shard files")
    ap.add_argument("--check-trials", type=int, default=40)
    ap.add_argument("--check-shards", default="3,5")
    ap.add_argument("--out", default=str(HERE / "out" / "scale.md"))
    ap.add_argument("--readme", default=str(HERE / "README.md"),
                    help="README to record the figures in ('' to skip)")
    ap.add_argument("--tiny", action="store_true",
                    help="8 runs x 200 questions, 4 trials, 2 shards, figures written under "
                         "--workdir only, targets not judged (a check that it runs)")
    args = ap.parse_args()
    if args.tiny:
        args.runs, args.questions, args.sizes, args.shards = 8, 200, "20,50", 2
        args.trials = args.target_trials = args.check_trials = 4
        args.check_shards, args.readme = "1,2", ""
        args.out = str(Path(args.workdir) / "scale.md")
    from qacamp.reliability.seeds import parse_sizes  # noqa: PLC0415

    sizes = sorted(set(parse_sizes(args.sizes)))
    work = Path(args.workdir)
    mach = machine()
    print(f"[machine] {mach.get('cpu')}, {mach['nproc']} CPUs, {mach.get('mem_gb')} GB, "
          f"load {mach['loadavg_at_start'][0]:.2f}", flush=True)
    scores = prepare(args, work)

    tag = f"t{args.trials}_n{args.shards}"
    # (the command needs a trial: one of the smallest size, a negligible kernel)
    zero = run_measured(qacamp_cmd() + swap_args(args, scores, 1, str(sizes[0])) + [
        "--out", str(work / "trials0.parquet")], work / "trials0.log")
    print(f"[fixed cost] one-trial command, size {sizes[0]}: {zero['wall_s']:.2f} s, "
          f"peak {zero['peak_rss_mb']:.0f} MB", flush=True)
    print(f"[swap] {args.trials} trials x sizes {sizes}, {args.shards} shards, {args.jobs} jobs",
          flush=True)
    res = run_sharded(args, scores, args.trials, args.shards, work / f"swap_{tag}")
    s = summarise(args, res, args.trials, zero, sizes)

    check = {}
    if args.check_trials > 0:
        import polars as pl  # noqa: PLC0415

        counts = [int(x) for x in args.check_shards.split(",")]
        frames, blobs = [], []
        for n in counts:
            r = run_sharded(args, scores, args.check_trials, n,
                            work / f"check_t{args.check_trials}_n{n}", verbose=False)
            frames.append(pl.read_parquet(r["merged"]))
            blobs.append(Path(r["merged"]).read_bytes())
        check = {"trials": args.check_trials, "shards": counts,
                 "identical": all(f.equals(frames[0]) for f in frames[1:]),
                 "bytes_identical": all(b == blobs[0] for b in blobs[1:]),
                 "comparisons": int(frames[0]["comparisons"].sum())}
        print(f"[check] {args.check_trials} trials, shards {counts}: identical={check['identical']} "
              f"bytes_identical={check['bytes_identical']}", flush=True)

    md = markdown(s, mach, check)
    print("\n" + md)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("# Scale benchmark\n\n" + md, encoding="utf-8")
    out.with_suffix(".json").write_text(json.dumps({"machine": mach, "results": s, "check": check},
                                                   indent=2), encoding="utf-8")
    if args.readme:
        update_readme(Path(args.readme), md)
    ok = args.tiny or (max(s["overhead_share"]) < 0.10 and max(s["peak_rss_mb"]) < 2048)
    return 0 if ok and check.get("identical", True) else 1


if __name__ == "__main__":
    sys.exit(main())
