"""Differential tests: qacamp's PAN measures against PAN's official evaluators.

The peers are the organizers' own scripts (``PEERS / "pan"``: the 2020-2021
and 2022-2023 verification evaluators, MIT licence, and the 2020 evaluator as
it stood before its commit "Fix F_0.5 calculation" of 2021-05-28, which
computed PAN 2020's published table), run as they are in subprocesses, on
campaigns that ``qacamp simulate`` writes in the PAN format (non-answers,
missing problems, values on a 3-decimal grid: many ties) and on a coarse
variant of each (values rounded to one decimal: exact 0 and 1 and heavy ties).
Every campaign holds answers of exactly 0.5, where the two 2020 versions
differ: qacamp's ``pan_evaluator: published`` equals the pre-fix script,
``current`` today's.

The scripts print every value rounded to 3 decimals.  To compare at 1e-12 the
driver runs each script's own ``main()`` unchanged with its module-level name
``round`` bound to the identity, so that ``out.json`` receives the unrounded
numbers; :func:`test_evaluator_command_line_as_organizers_run_it` runs the
scripts exactly as organizers do and checks the rounded output.

The scripts cannot read a value wrapped in a one-element list (which qacamp's
reader unwraps); they get the same answers with the value unwrapped.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from paths import PEERS

from qacamp.measures import pan, pan_frames
from qacamp.simulate import simulate

EVALUATORS = {"2020-06": PEERS / "pan" / "clef20_pan20_verif_evaluator_2020-06.py",
              "2020": PEERS / "pan" / "clef20_pan20_verif_evaluator.py",
              "2022": PEERS / "pan" / "clef22_pan22_verif_evaluator.py"}
#: the evaluators' keys -> qacamp's measure names
KEYS = {"auc": "auc", "c@1": "c_at_1", "f_05_u": "f_05_u", "F1": "f1", "brier": "brier",
        "overall": "overall"}
#: (edition, pan_evaluator) each script scores: the pre-fix 2020 script is
#: qacamp's `published` rule (PAN 2020's default), today's 2020 script the
#: `current` one; the 2022 script computes what the (fixed) 2021 one did
SCORED = {"2020-06": (("2020", "published"),), "2020": (("2020", "current"),),
          "2022": (("2021", "current"), ("2022", "current"), ("2023", "current"))}

DRIVER = r"""
import importlib.util, json, os, sys
peers, truth_dir, out_root, *run_dirs = sys.argv[1:]
for k, peer in enumerate(json.loads(peers)):  # one process: scikit-learn imported once
    spec = importlib.util.spec_from_file_location(f"peer{k}", peer)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.round = lambda value, ndigits=None: value  # keep full precision
    for i, run_dir in enumerate(run_dirs):
        out = os.path.join(out_root, str(k), str(i))
        os.makedirs(out)
        sys.argv = [peer, "-i", truth_dir, "-a", run_dir, "-o", out]
        module.main()
"""


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def unwrap(value):
    return value[0] if isinstance(value, list) else value


def campaign(root: Path, seed: int, questions: int, coarse: bool) -> tuple[Path, dict[str, Path]]:
    """Simulate a PAN campaign; return the truth folder and each run's answers
    folder as the peers read it."""
    simulate("pan", root / "sim", seed, quiet=True, questions=questions, runs=6)
    peer_runs = {}
    for answers in sorted((root / "sim" / "runs").glob("*/answers.jsonl")):
        lines = []
        for rec in read_jsonl(answers):
            v = unwrap(rec["value"])
            lines.append(json.dumps({"id": rec["id"], "value": round(v, 1) if coarse else v}))
        folder = root / "peer" / answers.parent.name
        folder.mkdir(parents=True)
        (folder / "answers.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        peer_runs[answers.parent.name] = folder
    return root / "sim", peer_runs


def frames(truth_dir: Path, runs: dict[str, Path]) -> tuple[pl.DataFrame, pl.DataFrame]:
    truth = pl.DataFrame([{"qid": r["id"], "same": r["same"]}
                          for r in read_jsonl(truth_dir / "truth.jsonl")])
    values = pl.DataFrame([{"run": name, "qid": r["id"], "value": float(unwrap(r["value"]))}
                           for name, folder in runs.items()
                           for r in read_jsonl(folder / "answers.jsonl")])
    return values, truth


def run_peers(scripts: dict[str, Path], truth_dir: Path, runs: dict[str, Path],
              out: Path) -> dict[str, dict[str, dict]]:
    """Each evaluator's full-precision results per run, ``{script: {run: results}}``
    (one process for all scripts and runs; each script's ``main()`` as it is)."""
    names = list(scripts)
    subprocess.run([sys.executable, "-c", DRIVER, json.dumps([str(scripts[n]) for n in names]),
                    str(truth_dir), str(out), *map(str, runs.values())],
                   check=True, capture_output=True, text=True)
    return {n: {name: json.loads((out / str(k) / str(i) / "out.json").read_text())
                for i, name in enumerate(runs)} for k, n in enumerate(names)}


def run_peer(script: Path, truth_dir: Path, runs: dict[str, Path], out: Path) -> dict[str, dict]:
    """One evaluator's full-precision results per run."""
    return run_peers({"peer": script}, truth_dir, runs, out)["peer"]


def ours(values: pl.DataFrame, truth: pl.DataFrame, edition: str,
         evaluator: str | None = None) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for run, measure, value in pan_frames.score_runs(values, truth, edition,
                                                     evaluator).iter_rows():
        out.setdefault(run, {})[measure] = value
    return out


@pytest.mark.parametrize("seed, questions, coarse", [
    (3, 37, False), (2015, 150, False), (41, 400, False), (3, 37, True), (8, 150, True),
])
def test_all_measures_equal_official_evaluators(tmp_path, seed, questions, coarse):
    truth_dir, runs = campaign(tmp_path, seed, questions, coarse)
    values, truth = frames(truth_dir, runs)
    # the campaign exercises the rules: missing problems, non-answers, ties
    assert values.height < len(runs) * questions
    assert (values["value"] == 0.5).sum() > 0
    assert values.group_by("run").agg(pl.col("value").n_unique() < pl.len())["value"].all()
    compared = 0
    peers = run_peers(EVALUATORS, truth_dir, runs, tmp_path / "out")
    for name, peer in peers.items():
        for edition, evaluator in SCORED[name]:
            mine = ours(values, truth, edition, evaluator)
            assert set(mine) == set(peer)
            for run, res in peer.items():
                assert set(res) == {k for k, m in KEYS.items() if m in mine[run]}
                for key, value in res.items():
                    assert mine[run][KEYS[key]] == pytest.approx(value, abs=1e-12, rel=0), \
                        (name, edition, run, key)
                    compared += 1
    assert compared == len(runs) * (5 + 5 + 3 * 6)
    # the two 2020 versions differ on these answers (so the comparison can tell them
    # apart), and only in F0.5u and overall
    differ = {k for run in runs for k in KEYS if k in peers["2020"][run]
              and peers["2020"][run][k] != peers["2020-06"][run][k]}
    assert differ == {"f_05_u", "overall"}


def test_evaluator_command_line_as_organizers_run_it(tmp_path):
    """The scripts unchanged on the command line: their 3-decimal output is ours rounded."""
    truth_dir, runs = campaign(tmp_path, 12, 60, False)
    values, truth = frames(truth_dir, runs)
    sizes = values.group_by("run").len().sort("len", "run")
    chosen = {r: runs[r] for r in (sizes["run"][0], sizes["run"][-1])}  # one omits problems
    assert sizes["len"][0] < sizes["len"][-1] == 60
    for peer_name, script in EVALUATORS.items():
        edition, evaluator = SCORED[peer_name][0]
        mine = ours(values, truth, edition, evaluator)
        # the pre-fix script on the run that omits problems (missing = 0.5) only
        for name, folder in list(chosen.items())[:1 if peer_name == "2020-06" else None]:
            out = tmp_path / f"cli{peer_name}{name}"
            out.mkdir()
            subprocess.run([sys.executable, str(script), "-i", str(truth_dir), "-a", str(folder),
                            "-o", str(out)], check=True, capture_output=True, text=True)
            printed = json.loads((out / "out.json").read_text())
            assert len(printed) == len(pan.edition_measures(edition))
            for key, value in printed.items():
                assert value == round(value, 3)
                assert abs(mine[name][KEYS[key]] - value) <= 0.0005 + 1e-12, (edition, name, key)
            assert (out / "evaluation.prototext").read_text().count("measure {") == len(printed)


CORNERS = r"""
import importlib.util, json, sys, warnings
import numpy as np
warnings.simplefilter("ignore")
spec = importlib.util.spec_from_file_location("peer", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
out = []
for truth, values in json.loads(sys.argv[2]):
    t, v = np.array(truth, dtype=np.float64), np.array(values, dtype=np.float64)
    row = {}
    for key, fn in (("auc", "auc"), ("c@1", "c_at_1"), ("F1", "f1"), ("f_05_u", "f_05_u_score"),
                    ("brier", "brier_score")):
        try:
            row[key] = float(getattr(module, fn)(t, v))
        except Exception as exc:
            row[key] = type(exc).__name__
    out.append(row)
print(json.dumps(out))
"""


def test_corner_cases_against_evaluator_functions():
    """Each rule's corner, through the 2022 evaluator's own functions: equal where
    it gives a number; where it does not, the documented decision."""
    cases = [
        ([1, 0, 1, 0], [0.7, 0.3, 0.5, 0.6]),      # every outcome once
        ([1, 1, 0, 0], [0.8, 0.6, 0.6, 0.2]),      # tie across the classes
        ([1, 0, 1, 0, 1], [1.0, 0.0, 0.0, 1.0, 0.5]),  # the boundary values
        ([1, 0, 1], [0.5, 0.5, 0.5]),              # nothing answered
        ([1, 0], [0.5000001, 0.4999999]),          # a hair off the non-answer
        ([0, 0, 0], [0.1, 0.2, 0.4]),              # one class, all decided negative
        ([1, 1, 1], [0.9, 0.2, 0.5]),              # one class
        ([1], [0.9]),                              # one problem
    ]
    done = subprocess.run([sys.executable, "-c", CORNERS, str(EVALUATORS["2022"]),
                           json.dumps(cases)], check=True, capture_output=True, text=True)
    peer = json.loads(done.stdout)
    numbers = 0
    for (truth, values), res in zip(cases, peer, strict=True):
        mine = pan.evaluate(np.array(values), np.array(truth, bool), tuple(KEYS.values())[:-1])
        one_class = len(set(truth)) == 1
        for key, value in res.items():
            got = float(mine[KEYS[key]])
            if isinstance(value, float) and not math.isnan(value):
                assert got == pytest.approx(value, abs=1e-12, rel=0), (truth, values, key)
                numbers += 1
            elif key == "auc":  # scikit-learn >= 1.6 returns NaN where older ones raised
                assert one_class and got == 0.0
            elif key == "F1":  # nothing decided: the script stops with an error
                assert value == "ValueError" and all(v == 0.5 for v in values) and got == 0.0
            else:  # F0.5u with all truths and decisions negative: 0 / 0
                assert (key, value) == ("f_05_u", "ZeroDivisionError") and got == 0.0
                assert not any(truth) and all(v < 0.5 for v in values)
    assert numbers >= 33


@pytest.mark.parametrize("edition, script, option", [
    ("2020", "2020-06", []), ("2020", "2020", ["--pan-evaluator", "current"]),
    ("2022", "2022", [])])
def test_qacamp_eval_pan_equals_official_evaluators(tmp_path, capsys, edition, script, option):
    """The whole path an organizer uses (`qacamp eval pan`: readers, ingest checks,
    scoring), printed at full precision, equals the official evaluator to 1e-12:
    PAN 2020 by default the evaluator of its published table (before the F0.5u fix),
    with `--pan-evaluator current` today's."""
    from qacamp.cli import main

    truth_dir, runs = campaign(tmp_path, 77, 120, False)
    peer = run_peer(EVALUATORS[script], truth_dir, runs, tmp_path / "peer_out")
    answers = sorted(str(p) for p in (tmp_path / "sim" / "runs").glob("*/answers.jsonl"))
    capsys.readouterr()
    assert main(["eval", "pan", "--truth", str(truth_dir / "truth.jsonl"), "--edition", edition,
                 *option, "--precision", "full", *answers]) == 0
    printed: dict[str, dict[str, float]] = {}
    for line in capsys.readouterr().out.splitlines()[1:]:
        run, measure, scope, unit, value = line.split("\t")
        printed.setdefault(run, {})[measure] = float(value)
    assert set(printed) == set(peer)
    for run, res in peer.items():
        for key, value in res.items():
            assert printed[run][KEYS[key]] == pytest.approx(value, abs=1e-12, rel=0), (run, key)
