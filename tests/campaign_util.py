"""A campaign's results folder built in the test process with the qacamp
commands the workflow's rules run (ingest, score, swap / fit / design /
stability / bootstrap, extras, report tables, figures, page, index), without Snakemake's
per-job start-up: the pages of real-data campaigns in seconds.  The workflow
itself is tested on the demo (tests/test_demo.py) and in tests/test_workflow.py."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from qacamp.cli import main
from qacamp.io import write_text
from qacamp.plan import reliability_plan, report_settings, validate_config
from qacamp.reliability.analyses import ANALYSES, settings_words

ROOT = Path(__file__).resolve().parents[1]


def _run(*argv) -> None:
    rc = main([str(a) for a in argv])
    if rc != 0:
        raise RuntimeError(f"qacamp {' '.join(map(str, argv))} exited {rc}")


def build(config_path: Path, workdir: Path) -> Path:
    """Every campaign of ``config_path`` (paths relative to ``workdir``) under
    ``workdir / outdir``; returns the outdir."""
    import os

    config = yaml.safe_load(config_path.read_text())
    validate_config(config, ROOT / "workflow" / "schemas" / "config.schema.yaml")
    out = workdir / config["outdir"]
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        dirs = []
        for name, campaign in sorted(config["campaigns"].items()):
            dirs.append(_campaign(name, campaign, config, out / name))
        _run("report", "index", *[w for d in dirs for w in ("--campaign-dir", d)],
             "--out", out / "index.html")
    finally:
        os.chdir(cwd)
    return out


def _campaign(name: str, campaign: dict, config: dict, cdir: Path) -> Path:
    cdir.mkdir(parents=True, exist_ok=True)
    cfg = cdir / "config.json"
    cfg.write_text(json.dumps({"campaigns": {name: campaign}}))
    plan = reliability_plan(campaign, config)
    write_text(json.dumps({"campaign": name, "reliability_plan": plan,
                           "report": report_settings(campaign, config), "shards": 1}),
               cdir / "plan.json")
    _run("ingest", "--config", cfg, "--campaign", name, "--out", cdir / "ingest")
    _run("score", "--ingest", cdir / "ingest", "--out", cdir / "scores")
    rel = cdir / "reliability"
    rel.mkdir(exist_ok=True)
    s, st, b = plan["swap"], plan["stability"], plan["bootstrap"]
    summaries = []
    for m in plan["measures"]:
        if campaign["kind"] == "score-matrix":
            src = ["--matrix", cdir / "ingest" / "matrix.parquet", "--measure", m]
        else:
            src = ["--scores", cdir / "scores", "--measure", m, "--unit", plan["unit"],
                   "--judgment-set", plan["judgment_set"]]
        seed = ["--seed", plan["seed"]]
        _run("reliability", "swap", *src, "--sizes", s["sizes"], "--trials", s["trials"],
             "--pairing", s["pairing"], *seed, "--out", rel / f"swap_{m}.parquet")
        fit = ["--model", s["fit"], "--min-fit-size", s["min_fit_size"], "--level", s["level"],
               "--mode", s["mode"], "--min-runs", s["min_runs"],
               "--min-comparisons", s["min_comparisons"]]
        if s.get("observed_at") is not None:
            fit += ["--observed-at", s["observed_at"]]
        _run("reliability", "fit", *src, "--counts", rel / f"swap_{m}.parquet", *fit,
             "--out", rel / f"swap_{m}_fits.parquet",
             "--summary", rel / f"swap_{m}_summary.parquet")
        summaries += ["--summary", rel / f"swap_{m}_summary.parquet"]
        design = settings_words(ANALYSES["design"], plan, f"campaigns.{name}.reliability",
                                lambda section, key: True)
        _run("reliability", "design", *src, "--fits", rel / f"swap_{m}_fits.parquet",
             "--summary", rel / f"swap_{m}_summary.parquet", *design,
             "--out", rel / f"design_{m}.parquet",
             "--components", rel / f"design_{m}_components.parquet",
             "--curve", rel / f"design_{m}_curve.parquet",
             "--diagnostics", rel / f"design_{m}_diagnostics.parquet")
        _run("reliability", "stability", *src, "--size", st["size"], "--trials", st["trials"],
             *seed, "--out", rel / f"stability_{m}.parquet")
        _run("reliability", "bootstrap", *src, "--samples", b["trials"], "--alpha",
             b["alpha"], *seed, "--out", rel / f"bootstrap_{m}.parquet",
             "--summary", rel / f"bootstrap_{m}_summary.parquet")
    _run("reliability", "extras", "--ingest", cdir / "ingest", "--scores", cdir / "scores",
         "--out", rel, *[w for m in plan["measures"] for w in ("--measure", m)], *summaries)
    # in one process, as the workflow's report_campaign rule runs them
    _run("report", "tables", "--campaign-dir", cdir, "--out", cdir / "tables",
         "--then", "figures", "--campaign-dir", cdir, "--out", cdir / "figures", "--dpi", 60,
         "--then", "page", "--campaign-dir", cdir, "--out", cdir / "report.html")
    return cdir
