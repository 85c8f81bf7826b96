"""The workflow as an organizer runs it: their own campaign with --configfile,
config validation before anything runs (one line naming the key), bad input
leaving nothing partial (no manifest either) with the failed job's log
printed, a truncated intermediate refused by the step reading it and rebuilt
by the same command, missing and altered outputs rebuilt, an output qacamp
did not write refused (never replaced, never read), no link followed, one run
per outdir, and the command line giving the workflow's numbers."""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import polars as pl
import pytest
import yaml
from files_util import sha256_of
from paths import SHARED_DATA
from test_hostile_outputs import fingerprint
from workflow_util import (
    BIN,
    ROOT,
    bounded_run,
    differing_files,
    error_lines,
    local_env,
    qacamp,
    run_together,
    small_clef_campaign,
    snakemake,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def own_campaign(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("own")
    cfg = small_clef_campaign(tmp, shards=1)  # (the demo runs its shards and merges)
    # one run named as a spreadsheet formula (test_every_csv_table_keeps_a_formula_run_name_text)
    last = sorted((tmp / "data" / "runs").glob("*.tsv"))[-1]
    head, *rows = last.read_text().splitlines()
    last.write_text("\n".join([head] + [FORMULA_RUN + row[row.index("\t"):] for row in rows])
                    + "\n")
    res = snakemake(tmp, configfile=cfg)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return tmp


#: a run name a spreadsheet would take as a formula
FORMULA_RUN = '=HYPERLINK("http://x")'


def test_every_csv_table_keeps_a_formula_run_name_text(own_campaign):
    """Every CSV file of the tables and the scores gives the run named as a
    formula as text (the neutralising ``'``); tables/comparison.csv gave it
    as written."""
    out = own_campaign / "results" / "mine"
    files = sorted((out / "tables").glob("*.csv")) + [out / "scores" / "runs.csv"]
    assert out / "tables" / "comparison.csv" in files
    for path in files:
        text = path.read_text()
        cells = {c for row in pl.read_csv(path, infer_schema=False).iter_rows() for c in row
                 if isinstance(c, str)}
        marks = set(pl.read_csv(path, infer_schema=False)["marks"].to_list()) \
            if path.stem in ("comparison", "baseline") else set()
        formulas = {c for c in cells - marks if c[:1] in ("=", "+", "@") or c.startswith("-")
                    and not c.lstrip("-").replace(".", "", 1).isdigit()}
        assert not formulas, (path, formulas)
        if "HYPERLINK" in text:
            assert "'" + FORMULA_RUN in cells, path


def test_own_campaign_writes_every_stage(own_campaign):
    out = own_campaign / "results" / "mine"
    for rel in ["ingest/responses.parquet", "ingest/campaign.json", "scores/runs.parquet",
                "scores/units.parquet", "scores/runs.csv", "campaign.duckdb", "manifest.json",
                "reliability/swap_c_at_1.parquet", "reliability/swap_c_at_1_summary.parquet",
                "reliability/stability_accuracy.parquet", "reliability/bootstrap_accuracy.parquet",
                "reliability/kendall.parquet", "tables/runs.tex", "tables/runs.md",
                "tables/swap_summary.csv", "figures/stability.png", "figures/swap_c_at_1.svg",
                "reliability/significance_c_at_1.parquet",
                "reliability/significance_c_at_1_summary.parquet",
                "tables/significance.md", "tables/analyses_agreement.md",
                "figures/significance_c_at_1.png"]:
        assert (out / rel).is_file(), rel
    # no demo campaign leaked into the organizer's run (logs/: the index page's log)
    assert sorted(p.name for p in (own_campaign / "results").iterdir()
                  if p.is_dir() and p.name not in ("logs", ".qacamp-output")) == ["mine"]
    assert (own_campaign / "results" / "index.html").is_file()
    assert (out / "report.html").is_file()
    runs = pl.read_parquet(out / "scores" / "runs.parquet")
    assert runs.filter(pl.col("run").str.starts_with("baseline:").not_())["run"].n_unique() == 6
    swap = pl.read_parquet(out / "reliability" / "swap_c_at_1.parquet")
    # 4 sizes x 21 bins, every trial compares all 15 pairs of 6 runs
    assert swap.group_by("size").agg(pl.col("comparisons").sum())["comparisons"].to_list() \
        == [4 * 15] * 4


def test_eval_cli_gives_the_workflow_numbers(own_campaign):
    data = own_campaign / "data"
    runs = sorted(str(p) for p in (data / "runs").glob("*.tsv"))
    res = qacamp("eval", "clef-qa", "--questions", str(data / "questions.tsv"), *runs)
    assert res.returncode == 0, res.stderr
    cli = pl.read_csv(io.StringIO(res.stdout), separator="\t")
    assert cli.columns == ["run", "measure", "scope", "unit", "value"]
    wf = pl.read_parquet(own_campaign / "results/mine/scores/runs.parquet").filter(
        pl.col("scope") == "all")
    joined = cli.join(wf, on=["run", "measure", "scope", "unit"], suffix="_wf")
    assert joined.height >= 6 * 4
    # `qacamp eval` prints 4 decimals, like trec_eval
    assert (joined["value"] - joined["value_wf"]).abs().max() <= 0.5e-4 + 1e-12


def test_rerun_is_a_noop_and_a_changed_judgment_reruns_dependents(own_campaign):
    res = snakemake(own_campaign, "-n", configfile=own_campaign / "mine.yaml")
    assert "Nothing to be done" in res.stdout + res.stderr
    run_file = sorted((own_campaign / "data" / "runs").glob("*.tsv"))[0]
    lines = run_file.read_text().splitlines()
    fields = lines[1].split("\t")
    fields[3] = "W" if fields[3] == "R" else "R"
    lines[1] = "\t".join(fields)
    run_file.write_text("\n".join(lines) + "\n")
    before = (own_campaign / "results/mine/manifest.json").read_text()
    res = snakemake(own_campaign, configfile=own_campaign / "mine.yaml")
    assert res.returncode == 0, res.stderr[-3000:]
    assert (own_campaign / "results/mine/manifest.json").read_text() != before


@pytest.mark.parametrize(("key", "hint"), [("shards_typo", ""), ("run", "did you mean 'runs'? ")])
def test_config_error_names_the_key_in_one_line(tmp_path, key, hint):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(yaml.safe_dump({"campaigns": {"x": {"kind": "clef-qa", "questions": "q.tsv",
                                                       "runs": "r/*.tsv", key: 3}}}))
    res = snakemake(tmp_path, "-n", configfile=cfg)
    assert res.returncode != 0
    assert error_lines(res) == [
        f"qacamp: config key 'campaigns.x': unknown key '{key}'. "
        f"Fix: {hint}allowed here: kind, min_coverage, preset, questions, reliability, report, "
        "runs, title"], res.stderr
    assert not (tmp_path / "results").exists()


def test_default_profile_is_picked_up(tmp_path, small_campaign):
    # the Snakefile is at the repository root, so Snakemake would look for
    # profiles/default there; `make demo` (and the README) name the profile
    res = bounded_run([BIN / "snakemake", "-s", ROOT / "Snakefile", "-d", tmp_path,
                       "--cores", "2", "--configfile", small_campaign, "-n",
                       "--workflow-profile", ROOT / "workflow/profiles/default"],
                      cwd=ROOT, timeout=300, environ=local_env())
    assert res.returncode == 0, res.stderr[-2000:]
    assert "Using workflow specific profile" in res.stdout + res.stderr


def test_missing_raw_file_names_campaign_and_key_in_one_line(tmp_path, small_campaign):
    cfg = small_campaign
    doc = yaml.safe_load(cfg.read_text())
    doc["campaigns"]["mine"]["runs"] = "data/runz/*.tsv"
    cfg.write_text(yaml.safe_dump(doc))
    res = snakemake(tmp_path, "-n", configfile=cfg)
    assert res.returncode != 0
    lines = error_lines(res)
    assert len(lines) == 1 and "campaigns.mine.runs" in lines[0] and "data/runz/*.tsv" in lines[0]


def test_failed_reingest_removes_the_old_manifest(own_campaign, tmp_path):
    work = tmp_path / "copy"
    shutil.copytree(own_campaign, work, symlinks=True)
    manifest = work / "results/mine/manifest.json"
    assert manifest.is_file()
    bad = sorted((work / "data" / "runs").glob("*.tsv"))[0]
    bad.write_text(bad.read_text().replace("\tR\t", "\tMAYBE\t", 1))
    res = snakemake(work, configfile=work / "mine.yaml", quiet=False)
    assert res.returncode != 0
    assert f"{bad.name}: line" in res.stdout + res.stderr
    # the manifest described the previous inputs: gone, not left to vouch for them
    assert not manifest.exists()
    assert not (work / "results/mine/ingest/campaign.json").exists()


def test_damaged_intermediate_is_rebuilt_by_the_same_command(own_campaign, tmp_path):
    work = tmp_path / "copy"
    shutil.copytree(own_campaign, work, symlinks=True)  # mtimes kept: nothing to do
    cfg = work / "mine.yaml"
    runs = work / "results/mine/scores/runs.parquet"
    good = runs.read_bytes()
    runs.write_bytes(good[: len(good) // 2])
    # a step reading it refuses it with the file named, no traceback
    res = qacamp("report", "tables", "--campaign-dir", str(work / "results/mine"),
                 "--no-reliability", "--out", str(tmp_path / "t"))
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.startswith(f"qacamp report: error: {runs}: changed since `qacamp score` "
                                 "wrote it (sha256 "), res.stderr
    assert "rerun the same command to rebuild it" in res.stderr
    # the README's command (here: the same snakemake command) removes it and rebuilds it
    res = snakemake(work, configfile=cfg, quiet=False)
    out = res.stdout + res.stderr
    assert res.returncode == 0, out[-3000:]
    assert "qacamp: results/mine/scores/runs.parquet changed since it was written" in out
    assert "removed, this run rebuilds it" in out
    assert runs.read_bytes() == good
    assert qacamp("verify", str(work / "results")).returncode == 0


def test_bad_input_names_file_and_line_and_leaves_nothing(tmp_path, small_campaign):
    cfg = small_campaign
    bad = sorted((tmp_path / "data" / "runs").glob("*.tsv"))[1]
    lines = bad.read_text().splitlines()
    lines[4] = lines[4].replace("\tR\t", "\tMAYBE\t").replace("\tW\t", "\tMAYBE\t")
    bad.write_text("\n".join(lines) + "\n")
    res = snakemake(tmp_path, configfile=cfg, quiet=False)
    assert res.returncode != 0
    assert "results/mine/logs/ingest.log" in res.stdout + res.stderr  # the failed job's log
    log = (tmp_path / "results/mine/logs/ingest.log").read_text()
    assert bad.name in log and "line 5" in log, log
    assert "Traceback" not in log
    # the failed job's log itself is printed, not only its path (show-failed-logs)
    assert f"{bad.name}: line 5" in res.stdout + res.stderr
    assert not (tmp_path / "results/mine/ingest").exists() or not any(
        (tmp_path / "results/mine/ingest").iterdir())
    assert not (tmp_path / "results/mine/scores").exists()
    # a failed ingest leaves no manifest (it records a campaign that was read)
    assert not (tmp_path / "results/mine/manifest.json").exists()


def test_gzip_inputs_are_read(tmp_path, small_campaign):
    cfg = small_campaign
    for p in (tmp_path / "data" / "runs").glob("*.tsv"):
        Path(str(p) + ".gz").write_bytes(gzip.compress(p.read_bytes(), mtime=0))
        p.unlink()
    doc = yaml.safe_load(cfg.read_text())
    doc["campaigns"]["mine"]["runs"] = "data/runs/*.tsv.gz"
    cfg.write_text(yaml.safe_dump(doc))
    res = snakemake(tmp_path, "results/mine/scores/runs.parquet", configfile=cfg)
    assert res.returncode == 0, res.stderr[-3000:]
    assert Path(tmp_path / "results/mine/scores/runs.parquet").is_file()


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not on PATH (CI installs it)")
def test_workflow_latex_tables_compile(own_campaign, tmp_path):
    tables = sorted((own_campaign / "results/mine/tables").glob("*.tex"))
    assert {p.stem for p in tables} >= {"runs", "swap_summary", "bootstrap"}
    doc = tmp_path / "doc.tex"
    doc.write_text("\\documentclass{article}\n\\usepackage[T1]{fontenc}\n"
                   "\\usepackage{booktabs,longtable}\n"
                   "\\usepackage[margin=1cm,landscape]{geometry}\n\\begin{document}\n"
                   + "".join(f"\\input{{{p}}}\n" for p in tables) + "\\end{document}\n")
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:]


def test_html_report_offline(own_campaign):
    res = snakemake(own_campaign, "--report", str(own_campaign / "report.html"),
                    configfile=own_campaign / "mine.yaml")
    assert res.returncode == 0, res.stderr[-3000:]
    html = (own_campaign / "report.html").read_text(errors="replace")
    assert len(html) > 10_000
    for needle in ("swap_c_at_1.png", "runs.csv", "Swap method", "manifest.json", "SHA-256"):
        assert needle in html, needle


SHARED = SHARED_DATA


@pytest.mark.skipif(not (SHARED / "score-matrices").exists(), reason="../shared/data missing")
def test_score_matrix_campaign_on_real_web2004(tmp_path):
    cfg = tmp_path / "web.yaml"
    cfg.write_text(yaml.safe_dump({"shards": 2, "campaigns": {"web2004": {
        "kind": "score-matrix", "measure": "ap",
        "matrix": str(SHARED / "score-matrices" / "web2004.csv"),
        "reliability": {"swap": {"sizes": "5:50:5", "trials": 5},
                        "stability": {"size": 50, "trials": 10}, "bootstrap": {"trials": 100}},
    }}}))
    res = snakemake(tmp_path, configfile=cfg)
    assert res.returncode == 0, res.stderr[-3000:]
    out = tmp_path / "results" / "web2004"
    summary = pl.read_parquet(out / "reliability/swap_ap_summary.parquet").row(0, named=True)
    assert summary["full_size"] == 150 and summary["n_pairs"] == 73 * 72 // 2
    runs = pl.read_csv(out / "tables/runs.csv")
    assert runs.height == 73


def test_missing_altered_and_tampered_outputs_are_rebuilt(own_campaign, tmp_path):
    """A figure removed, a table edited, the DuckDB index's view redefined:
    the same command rebuilds each (it said "nothing to do" before), `qacamp
    verify` named them and passes after, every file as the clean run's."""
    import duckdb

    work = tmp_path / "copy"
    shutil.copytree(own_campaign, work, symlinks=True)
    mine = work / "results" / "mine"
    (mine / "figures" / "stability.png").unlink()
    (mine / "tables" / "runs.md").write_text("| run | c@1 |\n|---|---|\n| mine | 1.00 |\n")
    con = duckdb.connect(str(mine / "campaign.duckdb"))
    con.execute("create or replace view runs as select 0.999 as value")
    con.close()
    res = qacamp("verify", "results", cwd=work)
    assert res.returncode == 1
    for kind, rel in (("missing", "figures/stability.png"), ("changed", "tables/runs.md"),
                      ("changed", "campaign.duckdb")):
        assert any(ln.startswith(f"{kind}: results/mine/{rel} (") for ln in
                   res.stdout.splitlines()), (kind, rel, res.stdout)
    res = snakemake(work, configfile=work / "mine.yaml", quiet=False)
    out = res.stdout + res.stderr
    assert res.returncode == 0, out[-3000:]
    assert "qacamp: results/mine/figures/stability.png is missing: removed " \
        "results/mine/figures, this run rebuilds it" in out
    assert "qacamp: results/mine/tables/runs.md changed since it was written (sha256 " in out
    assert "qacamp: results/mine/campaign.duckdb changed since it was written (its views" in out
    assert differing_files(own_campaign / "results", work / "results") == []
    assert qacamp("verify", "results", cwd=work).returncode == 0


def test_an_output_qacamp_did_not_write_is_refused_then_rebuilt(own_campaign, tmp_path):
    """config.json edited (the runs narrowed to one file) and its record
    removed: the run stops with one line and the user's bytes unchanged
    (before, it scored 1 run of 6 and `verify` passed); `verify` names it;
    moved away, it is rebuilt and every file is the clean run's."""
    work = tmp_path / "copy"
    shutil.copytree(own_campaign, work, symlinks=True)
    cfg_json = work / "results" / "mine" / "config.json"
    doc = json.loads(cfg_json.read_text())
    first = sorted((work / "data" / "runs").glob("*.tsv"))[0].name
    doc["campaigns"]["mine"]["runs"] = f"data/runs/{first}"
    cfg_json.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    (cfg_json.parent / ".qacamp-output" / "config.json.json").unlink()
    before = sha256_of(cfg_json)
    res = snakemake(work, configfile=work / "mine.yaml")
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert error_lines(res) == [
        "qacamp: results/mine/config.json: cannot write: no record: qacamp did not write it or "
        "its record was removed, and this run writes that path. Fix: move the file out of the "
        "outdir (qacamp never replaces a file it did not write), then rerun"], res.stderr
    assert sha256_of(cfg_json) == before
    res = qacamp("verify", "results", cwd=work)
    assert res.returncode == 1 and "unrecorded: results/mine/config.json (qacamp did not " \
        "write it, or its record was removed)" in res.stdout.splitlines()
    cfg_json.rename(work / "my-config.json")
    res = snakemake(work, configfile=work / "mine.yaml")
    assert res.returncode == 0, res.stderr[-3000:]
    assert differing_files(own_campaign / "results", work / "results") == []
    assert qacamp("verify", "results", cwd=work).returncode == 0


def test_no_link_is_followed_in_or_as_the_outdir(tmp_path, small_campaign):
    """An outdir that is a link to a user's folder holding a copied
    .qacamp-output (index.html recorded as it is), then a link inside the
    outdir: one line each naming the link, nothing behind it touched."""
    cfg = small_campaign
    user = tmp_path / "mine"
    (user / ".qacamp-output").mkdir(parents=True)
    page = user / "index.html"
    page.write_text("<p>my own page</p>\n")
    record = {"format": 1, "file": "index.html", "step": "qacamp report index",
              "sha256": sha256_of(page), "size": page.stat().st_size, "inputs": {},
              "temporary": False}
    (user / ".qacamp-output" / "index.html.json").write_text(json.dumps(record))
    (tmp_path / "results").symlink_to(user)
    before = fingerprint(user)
    res = snakemake(tmp_path, configfile=cfg)
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert error_lines(res) == [
        f"qacamp: results: cannot write: the outdir is a symbolic link (to {user}), and qacamp "
        "never writes or deletes through one. Fix: set `outdir:` to the folder itself, not a "
        "link to it"], res.stderr
    assert fingerprint(user) == before
    (tmp_path / "results").unlink()
    (tmp_path / "results" / "mine" / ".qacamp-output").mkdir(parents=True)
    (tmp_path / "results" / ".qacamp-output").mkdir()
    (tmp_path / "results" / "mine" / "figures").symlink_to(user)
    res = snakemake(tmp_path, configfile=cfg)
    assert res.returncode == 1
    assert error_lines(res) == [
        f"qacamp: results/mine/figures: cannot write: it is a symbolic link (to {user}), and "
        "qacamp never writes or deletes through one. Fix: replace the link by the folder or "
        "file itself, or give another path"], res.stderr
    assert fingerprint(user) == before


def test_two_runs_on_one_outdir_from_two_folders(tmp_path):
    """`qacamp run` twice at once on one (absolute) outdir from two working
    folders (QACAMP_RACES times, default 1): one completes, the other stops
    at once with exit code 75 naming the first; the survivor's results are a
    clean run's (made first at the same absolute path, then moved aside)."""
    cfg = small_clef_campaign(tmp_path, runs=3, shards=1)
    doc = yaml.safe_load(cfg.read_text())
    for key in ("questions", "runs"):
        doc["campaigns"]["mine"][key] = str(tmp_path / doc["campaigns"]["mine"][key])
    out = tmp_path / "race" / "results"
    doc["outdir"] = str(out)
    cfg.write_text(yaml.safe_dump(doc))
    qacamp_run = [str(BIN / "qacamp"), "run", str(cfg)]
    (tmp_path / "ref").mkdir()
    ref = bounded_run(qacamp_run, cwd=tmp_path / "ref", timeout=1800)
    assert ref.returncode == 0, ref.stderr[-3000:]
    out.rename(tmp_path / "clean")
    for i in range(int(os.environ.get("QACAMP_RACES", "1"))):
        works = [tmp_path / f"{side}{i}" for side in "ab"]
        for work in works:
            work.mkdir()
        done = run_together(qacamp_run, [w / "stderr" for w in works], works)
        assert sorted(rc for rc, _ in done) == [0, 75], (i, [(rc, e[-2000:]) for rc, e in done])
        refusal = [ln for ln in next(e for rc, e in done if rc == 75).splitlines()
                   if ln.startswith("qacamp")]
        assert len(refusal) == 1 and refusal[0].startswith(
            f"qacamp: {out}: cannot write: another qacamp run is writing it (pid "), refusal
        assert refusal[0].endswith("Fix: wait until it has finished, then run the same "
                                   "command again"), refusal
        assert differing_files(tmp_path / "clean", out) == [], i
        shutil.rmtree(out)
