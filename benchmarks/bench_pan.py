"""Benchmark: score a PAN-2022-sized verification campaign, officially and with qacamp.

Simulates 13 submissions x 14,311 problems (the shape of PAN 2022's test set;
``qacamp.simulate.pan``: non-answers, missing problems, 3-decimal values), then
times

- the official PAN 2022 evaluator, one process per submission as organizers
  run it (``python clef22_pan22_verif_evaluator.py -i TRUTH -a ANSWERS -o OUT``:
  interpreter start, imports, reading the JSON lines, scoring, writing);
- ``qacamp eval pan --truth TRUTH --edition 2022 --precision full ANSWERS...``
  as one process for all submissions, start-up included (the strict readers,
  the ingest checks and the scoring the workflow uses), ``--repeat`` times:
  the median and the best wall time, the median CPU time of the process
  (user + sys of the child, from ``getrusage``: steadier than the wall time on
  a shared machine) and the load average before each run;
- with ``--src DIR`` (another source tree, e.g. ``git archive COMMIT src``),
  that tree's ``qacamp eval pan`` alternated with this one's, run for run, for
  a before/after figure at the same load; the outputs must be byte-identical;
- and, for reference, reading the files with polars plus
  :func:`qacamp.measures.pan_frames.score_runs`, and the pure functions alone on the
  aligned arrays (:func:`qacamp.measures.pan.evaluate`);

prints the times, their ratios, and the largest difference between the
evaluator's printed (3-decimal) values and qacamp's (at most 0.0005).

The evaluator is PAN's own script (needs scikit-learn, a test dependency);
by default it is looked up in ``../shared/peers/pan`` beside the project, as
the tests do (``tests/paths.py``).  The environment is passed on as it is
(the script says whether ``PYTHONDONTWRITEBYTECODE`` is set: then every run
compiles qacamp's modules again); ``--bytecode`` runs qacamp with its
bytecode cached instead (``PYTHONPYCACHEPREFIX`` in the temporary folder,
written by one untimed run per source tree), as an installed package runs.

    .venv/bin/python benchmarks/bench_pan.py [--runs 13] [--problems 14311] [--evaluator PATH]
        [--repeat 5] [--src DIR] [--bytecode]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

from qacamp.measures import pan, pan_frames
from qacamp.simulate import simulate

ROOT = Path(__file__).resolve().parents[1]
EVALUATOR = ROOT.parent / "shared" / "peers" / "pan" / "clef22_pan22_verif_evaluator.py"
KEYS = {"auc": "auc", "c@1": "c_at_1", "f_05_u": "f_05_u", "F1": "f1", "brier": "brier",
        "overall": "overall"}


def write_campaign(root: Path, runs: int, problems: int, seed: int) -> dict[str, Path]:
    """Simulate; write each submission's answers unwrapped (the evaluator cannot
    read a value in a one-element list) to ``root/answers/<run>/answers.jsonl``."""
    simulate("pan", root / "sim", seed, quiet=True, questions=problems, runs=runs)
    folders = {}
    for path in sorted((root / "sim" / "runs").glob("*/answers.jsonl")):
        lines = []
        for line in path.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            value = rec["value"][0] if isinstance(rec["value"], list) else rec["value"]
            lines.append(json.dumps({"id": rec["id"], "value": value}))
        folder = root / "answers" / path.parent.name
        folder.mkdir(parents=True)
        (folder / "answers.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        folders[path.parent.name] = folder
    return folders


def official(evaluator: Path, truth_dir: Path, folders: dict[str, Path], out: Path):
    results = {}
    start = time.perf_counter()
    for name, folder in folders.items():
        target = out / name
        target.mkdir(parents=True)
        subprocess.run([sys.executable, str(evaluator), "-i", str(truth_dir), "-a", str(folder),
                        "-o", str(target)], check=True, capture_output=True)
        results[name] = json.loads((target / "out.json").read_text())
    return time.perf_counter() - start, results


def eval_cmd(truth_dir: Path, folders: dict[str, Path], src: Path | None) -> list[str]:
    args = ["eval", "pan", "--truth", str(truth_dir / "truth.jsonl"), "--edition", "2022",
            "--precision", "full", *[str(f / "answers.jsonl") for f in folders.values()]]
    if src is not None:  # another source tree, on PYTHONPATH
        return [sys.executable, "-c", "import sys; from qacamp.cli import main; "
                "sys.exit(main(sys.argv[1:]))", *args]
    return [str(Path(sys.executable).parent / "qacamp"), *args]


def qacamp_eval(truth_dir: Path, folders: dict[str, Path], src: Path | None = None,
                pycache: Path | None = None):
    """``qacamp eval pan`` as a whole process: (wall s, user + sys s, load average
    before, stdout).  ``pycache``: Python's bytecode cache there
    (``PYTHONPYCACHEPREFIX``, writing allowed), as an installed package runs."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src.resolve())
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache / ("before" if src is not None else "this"))
    load = os.getloadavg()[0]
    start = time.perf_counter()
    proc = subprocess.Popen(eval_cmd(truth_dir, folders, src), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    out, err = proc.communicate()
    took = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise SystemExit(f"qacamp eval failed ({proc.returncode}): {err.decode()[-2000:]}")
    return took, usage, load, out


def eval_values(out: bytes) -> dict:
    values = {}
    for line in out.decode().splitlines()[1:]:
        run, measure, _scope, _unit, value = line.split("\t")
        values[(run, measure)] = float(value)
    return values


def repeated(truth_dir: Path, folders: dict[str, Path], repeat: int, src: Path | None,
             pycache: Path | None = None):
    """``repeat`` runs of this tree's ``qacamp eval pan`` (and of ``src``'s,
    alternated): {side: {"wall": [...], "cpu": [...], "load": [...], "out": bytes}}.
    With ``pycache``, one untimed run per side first writes the bytecode."""
    sides = {"this": None} if src is None else {"before": src, "this": None}
    res = {side: {"wall": [], "cpu": [], "load": []} for side in sides}
    if pycache is not None:
        for tree in sides.values():
            qacamp_eval(truth_dir, folders, tree, pycache)
    for _ in range(repeat):
        for side, tree in sides.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            took, after, load, out = qacamp_eval(truth_dir, folders, tree, pycache)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            r = res[side]
            r["wall"].append(took)
            r["cpu"].append(cpu)
            r["load"].append(load)
            if r.setdefault("out", out) != out:
                raise SystemExit(f"qacamp eval ({side}) printed different output on a rerun")
    if src is not None and res["before"]["out"] != res["this"]["out"]:
        raise SystemExit("the two source trees printed different output")
    return res


def qacamp_scores(truth_dir: Path, folders: dict[str, Path]):
    start = time.perf_counter()
    truth = pl.read_ndjson(truth_dir / "truth.jsonl").select(
        pl.col("id").cast(pl.Utf8).alias("qid"), pl.col("same").cast(pl.Boolean))
    values = pl.concat([pl.read_ndjson(folder / "answers.jsonl").select(
        pl.lit(name).alias("run"), pl.col("id").cast(pl.Utf8).alias("qid"),
        pl.col("value").cast(pl.Float64)) for name, folder in folders.items()])
    scores = pan_frames.score_runs(values, truth, "2022")
    total = time.perf_counter() - start
    _, _, dense, same = pan_frames.align(values, truth)
    start = time.perf_counter()
    pan.evaluate(dense.T, same, edition="2022")
    pure = time.perf_counter() - start
    return total, pure, scores


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=13)
    ap.add_argument("--problems", type=int, default=14311)
    ap.add_argument("--seed", type=int, default=2022)
    ap.add_argument("--evaluator", type=Path, default=EVALUATOR)
    ap.add_argument("--repeat", type=int, default=5,
                    help="whole-process runs of qacamp eval pan (default 5)")
    ap.add_argument("--src", type=Path, default=None,
                    help="also run this source tree's qacamp (PYTHONPATH), alternated")
    ap.add_argument("--bytecode", action="store_true",
                    help="run qacamp with its bytecode cached (a PYTHONPYCACHEPREFIX in the "
                         "temporary folder, written by one untimed run), as an installed "
                         "package runs even where PYTHONDONTWRITEBYTECODE is set")
    args = ap.parse_args(argv)
    if not args.evaluator.is_file():
        print(f"evaluator not found: {args.evaluator} (pass --evaluator)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folders = write_campaign(root, args.runs, args.problems, args.seed)
        t_official, printed = official(args.evaluator, root / "sim", folders, root / "out")
        runs = repeated(root / "sim", folders, max(1, args.repeat), args.src,
                        root / "pycache" if args.bytecode else None)
        t_qacamp, t_pure, scores = qacamp_scores(root / "sim", folders)
    evaluated = eval_values(runs["this"]["out"])
    mine = {(r, m): v for r, m, v in scores.iter_rows()}
    worst = max(abs(mine[(run, KEYS[k])] - v) for run, res in printed.items() for k, v in res.items())
    worst_eval = max(abs(evaluated[(run, KEYS[k])] - v)
                     for run, res in printed.items() for k, v in res.items())
    worst = max(worst, worst_eval)
    print(f"campaign: {len(folders)} submissions x {args.problems:,} problems (simulated, seed {args.seed})")
    if args.bytecode:
        print("qacamp runs with its bytecode cached (--bytecode)")
    else:
        print(f"PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r} "
              "(set: every run compiles qacamp's modules again; --bytecode caches them)")
    print(f"official PAN 2022 evaluator, one process per submission: {t_official:.2f} s")
    for side, r in runs.items():
        wall = statistics.median(r["wall"])
        name = "qacamp eval pan" if side == "this" else f"qacamp eval pan of {args.src}"
        print(f"{name}, one process, start-up included, {len(r['wall'])} runs: median "
              f"{wall:.2f} s (best {min(r['wall']):.2f} s; ratio {t_official / wall:.1f}x), "
              f"CPU user+sys median {statistics.median(r['cpu']):.2f} s, load average "
              f"{min(r['load']):.1f}-{max(r['load']):.1f}")
    if args.src is not None:
        print("outputs of the two trees: byte-identical")
    print(f"qacamp, read files + score_runs (in process):             {t_qacamp:.3f} s "
          f"(ratio {t_official / t_qacamp:.0f}x)")
    print(f"qacamp pure functions on the aligned arrays:             {t_pure:.3f} s "
          f"(ratio {t_official / t_pure:.0f}x)")
    print(f"largest |official (3 decimals) - qacamp|: {worst:.6f} (bound 0.0005)")
    return 0 if worst <= 0.0005 + 1e-12 else 1


if __name__ == "__main__":
    raise SystemExit(main())
