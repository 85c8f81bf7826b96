"""Helpers for the tests that run the Snakemake workflow as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["PATH"] = f"{BIN}{os.pathsep}{e.get('PATH', '')}"
    return e


def snakemake(workdir: Path, *args: str, configfile: Path | None = None,
              timeout: int = 900) -> subprocess.CompletedProcess:
    # targets first: --configfile and --quiet take several values
    cmd = [str(BIN / "snakemake"), *args, "-s", str(ROOT / "Snakefile"), "-d", str(workdir),
           "--workflow-profile", str(ROOT / "workflow" / "profiles" / "default"), "--cores", "2"]
    if configfile is not None:
        cmd += ["--configfile", str(configfile)]
    cmd += ["--quiet", "rules"]
    return subprocess.run(cmd, capture_output=True, text=True, env=env(), timeout=timeout)


def qacamp(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "qacamp"), *args], capture_output=True, text=True,
                          env=env(), cwd=cwd)


def small_clef_campaign(tmp: Path, runs: int = 6, questions: int = 80, seed: int = 11,
                        shards: int = 2) -> Path:
    """An organizer's own CLEF-QA campaign in ``tmp``: simulated raw files plus a
    config with small reliability settings.  Returns the config path."""
    data = tmp / "data"
    res = qacamp("simulate", "clef-qa", "--out", str(data), "--runs", str(runs),
                 "--questions", str(questions), "--seed", str(seed), "--quiet")
    if res.returncode != 0:
        raise RuntimeError(res.stderr)
    cfg = {
        "shards": shards,
        "reliability": {"seed": 7},
        "campaigns": {
            "mine": {
                "kind": "clef-qa",
                "questions": "data/questions.tsv",
                "runs": "data/runs/*.tsv",
                "reliability": {
                    "measures": ["c_at_1", "accuracy"],
                    "swap": {"sizes": "10:40:10", "trials": 4, "min_fit_size": 10},
                    "stability": {"size": 30, "trials": 10},
                    "bootstrap": {"trials": 50},
                },
            }
        },
    }
    path = tmp / "mine.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=True))
    return path
