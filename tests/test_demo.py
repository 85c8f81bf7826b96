"""The main job on the bundled demo campaigns (what `make demo` runs, here
with the README's `make run CONFIG=config/config.yaml`): every campaign gets
its ingest tables, scores, reliability results, tables and figures under the
demo's own outdir, and the tables' numbers are those of the results they come
from."""

from __future__ import annotations

import io
import json
import os

import polars as pl
import pytest
import yaml
from files_util import png_size
from workflow_util import (
    DEMO_OUT,
    ROOT,
    TEST_ARTEFACTS,
    needs_make,
    qacamp,
    snakemake,
)

pytestmark = [pytest.mark.slow, needs_make]

DEMO = ["trec2002", "trec2004", "qa4mre2013", "qa4mre2012", "clef2009", "pan"]


def test_demo_writes_only_under_its_own_outdir(demo):
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    assert cfg["outdir"] == DEMO_OUT and sorted(cfg["campaigns"]) == sorted(DEMO)
    work = demo.parent
    assert sorted(p.name for p in work.iterdir() if not p.name.startswith(".")) == \
        sorted(["config", "resources", DEMO_OUT])
    assert sorted(p.name for p in demo.iterdir() if p.name not in TEST_ARTEFACTS) == \
        sorted(DEMO + ["overview", "logs", "index.html", ".qacamp-output"])


def test_every_campaign_has_every_stage(demo):
    for c in DEMO:
        for rel in ["ingest/questions.parquet", "scores/runs.parquet", "campaign.duckdb",
                    "manifest.json", "tables/runs.tex", "tables/swap_summary.md",
                    "tables/kendall.csv", "figures/stability.png", "figures/stability.svg",
                    "report.html"]:
            assert (demo / c / rel).is_file(), f"{c}/{rel}"
        for png in (demo / c / "figures").glob("*.png"):
            w, h = png_size(png)
            assert 400 <= w <= 4000 and 300 <= h <= 4000, (png, w, h)
    assert (demo / "trec2004/figures/series_boxplot.png").is_file()
    assert (demo / "trec2004/figures/top_runs.png").is_file()
    assert (demo / "qa4mre2013/figures/reading_tests.png").is_file()
    assert (demo / "overview/editions.md").is_file()


def test_trec2002_reports_required_difference_and_sensitivity(demo):
    for m in ("cws", "accuracy"):
        s = pl.read_parquet(demo / f"trec2002/reliability/swap_{m}_summary.parquet").row(0, named=True)
        assert s["full_size"] == 500 and s["n_pairs"] == 67 * 66 // 2
        assert 0 < s["required_difference"] < 0.25
        assert 0 < s["sensitivity"] <= 1
        table = pl.read_csv(demo / "trec2002/tables/swap_summary.csv")
        row = table.filter(pl.col("measure") == m).row(0, named=True)
        assert any(abs(v - s["required_difference"]) < 1e-9 for v in row.values()
                   if isinstance(v, float))


def test_series_campaign_uses_full_series_count(demo):
    s = pl.read_parquet(demo / "trec2004/reliability/swap_series_score_summary.parquet")
    # 65 series, series 7's Other question unjudged -> dropped -> 64 (as TREC 2004)
    assert s["full_size"][0] == 64
    dropped = pl.read_parquet(demo / "trec2004/scores/dropped.parquet")
    assert dropped.height >= 1


def test_the_significance_sentence_docs_reliability_quotes(demo):
    page = (demo / "trec2004/report.html").read_text(encoding="utf-8")
    assert ("With randomised Tukey HSD over 63 runs and 1,000 permutations (64 series), "
            "974 of the 1,953 pairs differ significantly at alpha 0.05 in series score.") in page


def test_run_tables_show_the_scores(demo):
    runs = pl.read_parquet(demo / "trec2002/scores/runs.parquet").filter(
        (pl.col("scope") == "all") & (pl.col("judgment_set") == "adjudicated"))
    cws = dict(runs.filter(pl.col("measure") == "cws").select("run", "value").iter_rows())
    table = pl.read_csv(demo / "trec2002/tables/runs.csv")
    col = next(c for c in table.columns if c.lower().startswith("cws"))
    shown = dict(zip(table["run"].to_list(), table[col].to_list(), strict=True))
    assert set(cws) <= set(shown)
    for run, value in cws.items():
        assert abs(shown[run] - value) < 1e-3, run
    # sorted by CWS, best first
    order = [r for r in table["run"].to_list() if r in cws]
    assert order == sorted(cws, key=lambda r: (-cws[r], r))


def test_kendall_table_matches_reliability_output(demo):
    k = pl.read_parquet(demo / "trec2002/reliability/kendall.parquet")
    row = k.filter((pl.col("ranking_a") == "cws@adjudicated")
                   & (pl.col("ranking_b") == "cws@assessor1")).row(0, named=True)
    assert 0.5 < row["tau"] <= 1
    md = (demo / "trec2002/tables/kendall.md").read_text()
    assert f"{row['tau']:.3f}" in md


def test_eval_cli_gives_the_demo_numbers(demo):
    data = ROOT / "resources/demo/clef2009"
    runs = sorted(str(p) for p in (data / "runs").glob("*.tsv"))
    res = qacamp("eval", "clef-qa", "--questions", str(data / "questions.tsv"), *runs)
    assert res.returncode == 0, res.stderr
    cli = pl.read_csv(io.StringIO(res.stdout), separator="\t")
    wf = pl.read_parquet(demo / "clef2009/scores/runs.parquet").filter(pl.col("scope") == "all")
    joined = cli.join(wf, on=["run", "measure", "scope", "unit"], suffix="_wf")
    assert joined["run"].n_unique() == 44
    assert set(joined["measure"]) >= {"c_at_1", "accuracy", "n_right", "n_unanswered"}
    # `qacamp eval` prints 4 decimals, like trec_eval
    assert (joined["value"] - joined["value_wf"]).abs().max() <= 0.5e-4 + 1e-12


def _steps(summary: str) -> tuple[dict[str, str], dict[str, set[str]]]:
    """From `snakemake --detailed-summary`: each output -> its step (rule and
    declared inputs, as Snakemake's metadata of the run recorded them: one
    step's outputs share them), each step -> the files declared as its inputs."""
    lines = summary.splitlines()
    head = lines[0].split("\t")
    rule, files = head.index("rule"), head.index("input-file(s)")
    step_of, inputs = {}, {}
    for line in lines[1:]:
        row = line.split("\t")
        declared = "" if row[files] == "-" else row[files]
        step = f"{row[rule]} {declared}" if declared else f"{row[rule]} {row[0]}"
        step_of[os.path.normpath(row[0])] = step
        inputs[step] = {os.path.normpath(p) for p in declared.split(",") if p}
    return step_of, inputs


def test_every_file_a_step_read_is_declared_upstream_of_it(demo):
    """What each step read (the inputs qacamp records beside every file it
    writes, .qacamp-output/) is a file the workflow declares as an input of
    that step or of a step upstream of it: no step reads a file that may or
    may not exist yet depending on the order in which Snakemake runs the jobs
    (the report steps read plan.json: undeclared, a job order that ran
    campaign_plan after them gave records without it)."""
    work = demo.parent
    res = snakemake(work, "--detailed-summary", configfile=work / "config" / "config.yaml")
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    step_of, inputs = _steps(res.stdout)
    outputs = sorted(step_of, key=len, reverse=True)

    def producer(path: str) -> str | None:
        """The step that writes ``path`` (itself or a folder output holding it)."""
        return step_of.get(path) or next(
            (step_of[o] for o in outputs if path.startswith(o + "/")), None)

    upstream: dict[str, set[str]] = {}

    def above(step: str) -> set[str]:
        if step not in upstream:
            found = set()
            for p in inputs[step]:
                found.add(p)
                before = producer(p)
                if before is not None:
                    found |= {before} | above(before)
            upstream[step] = found
        return upstream[step]

    checked, undeclared = 0, []
    for record in sorted((work / DEMO_OUT).rglob(".qacamp-output/*.json")):
        folder = record.parent.parent.relative_to(work)
        doc = json.loads(record.read_text())
        target = os.path.normpath(folder / doc["file"])
        if target == DEMO_OUT:  # the outdir's own claim
            continue
        step = producer(target)
        assert step is not None, f"{target}: no workflow step writes it"
        checked += 1
        for name in doc["inputs"]:
            path = os.path.normpath(folder / name)
            if not path.startswith(DEMO_OUT + "/"):
                continue  # raw files: declared, or stamped through params (common.smk)
            if path in above(step) or producer(path) in {step} | above(step):
                continue
            undeclared.append(f"{step.split()[0]} writes {target} from {path}")
    assert checked > 400, checked
    assert undeclared == [], undeclared[:10]


def test_design_lists_the_questions_to_recheck_of_every_campaign(demo):
    """Designing the next campaign on the demo: each campaign's page and
    re-check table list exactly the flagged units of its design measure, in
    the kernel's order, each row anchored and linked; the file the workflow
    wrote is what `qacamp.reliability.design` computes from the same scores."""
    from qacamp.loader import scores_matrix
    from qacamp.reliability import design
    from qacamp.reliability.design import flagged
    from qacamp.report.campaign import Campaign
    from qacamp.report.figures.base import plural
    from qacamp.report.sections.design import anchor, design_measure, frames

    listed = {}
    for c in DEMO:
        camp = Campaign(demo / c)
        page = (demo / c / "report.html").read_text(encoding="utf-8")
        assert '<h3 id="design">Designing the next campaign</h3>' in page, c
        sizes = frames(camp)
        assert sorted(sizes) == sorted(camp.measures), c
        m = design_measure(camp, sizes)
        if m is None:  # PAN: no measure of the plan is a mean of per-problem values
            assert c == "pan" and "No problem diagnostics" in page
            assert not (demo / c / "tables" / "design_recheck.csv").exists()
            continue
        items = pl.read_parquet(demo / c / "reliability" / f"design_{m}_diagnostics.parquet")
        want = flagged(items)["unit"].to_list()
        listed[c] = want
        table = demo / c / "tables" / "design_recheck.csv"
        if want:
            assert pl.read_csv(table, infer_schema=False)["unit"].to_list() == want, c
        for u in want:
            a = anchor(camp.unit, u)
            assert f'<tr id="{a}"><td class="text" data-sort="{u}"><a href="#{a}">{u}</a>' \
                in page, (c, u)
        if want:
            assert f"{len(want):,} {plural(camp.unit, len(want))} to re-check" in page, c
        assert (demo / c / "figures" / f"design_{m}.png").is_file(), c
    # the simulated campaigns hold questions no run answered, and a few that
    # the strong runs miss where weak runs answer them
    assert all(listed[c] for c in ("trec2002", "clef2009", "qa4mre2013", "qa4mre2012")), listed
    # the workflow's file is the API's result on the same scores
    plan = json.loads((demo / "trec2002" / "plan.json").read_text())["reliability_plan"]
    rel = demo / "trec2002" / "reliability"
    m = scores_matrix(demo / "trec2002" / "scores", "accuracy", "question", plan["judgment_set"])
    sizes, _components, curve, items = design(
        m, fits=pl.read_parquet(rel / "swap_accuracy_fits.parquet"),
        summary=pl.read_parquet(rel / "swap_accuracy_summary.parquet"), measure="accuracy")
    assert sizes.equals(pl.read_parquet(rel / "design_accuracy.parquet"))
    assert items.equals(pl.read_parquet(rel / "design_accuracy_diagnostics.parquet"))
    assert curve.equals(pl.read_parquet(rel / "design_accuracy_curve.parquet"))
