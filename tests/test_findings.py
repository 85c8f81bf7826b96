"""One edited judgment file is one cause, said once per campaign, with what it
makes stale under it (qacamp.findings): `qacamp verify` leads with the causes,
the workflow's start says it once per campaign folder and cause."""

from __future__ import annotations

from pathlib import Path

from qacamp.findings import preparation_lines, verify_lines
from qacamp.io.verify import Finding

OUT = "results-demo"
EDITED = f"{OUT}/qa4mre2012"
GOLD = "resources/demo/qa4mre2012/gold.xml"
TABLES = ("judgments", "questions", "options", "nugget_matches", "nuggets", "list_key",
          "patterns", "matrix", "responses", "campaign", "warnings")


def findings() -> list[Finding]:
    direct = f"its input {GOLD} changed since `qacamp ingest` read it"
    out = [Finding("stale", Path(f"{EDITED}/ingest/{t}.parquet"), direct) for t in TABLES]
    out += [Finding("stale", Path(f"{EDITED}/scores/{n}"), f"built from {EDITED}/ingest/"
                    "judgments.parquet, which is stale", False) for n in ("runs.parquet",
                                                                          "runs.csv")]
    out.append(Finding("stale", Path(f"{EDITED}/report.html"), f"built from {EDITED}/scores/"
                       "runs.parquet, which is stale", False))
    flipped = Path(f"{OUT}/trec2004/scores/runs.parquet")
    out.append(Finding("changed", flipped, "sha256 0123... written by `qacamp score`, "
                       "4567... now"))
    out.append(Finding("stale", Path(f"{OUT}/trec2004/tables/runs.csv"),
                       f"built from {flipped}, which is changed", False))
    return sorted(out, key=lambda f: str(f.path))  # as verify_tree gives them


def test_verify_leads_with_the_causes_then_what_they_make_stale():
    lines = verify_lines(findings())
    assert lines[0] == f"changed input: {GOLD} (changed since `qacamp ingest` read it)"
    assert lines[1] == (f"  stale: {EDITED}: report.html")
    assert lines[2].startswith(f"  stale: {EDITED}/ingest: campaign.parquet, ")
    assert lines[2].endswith(f"({len(TABLES)} files)")
    assert lines[3] == f"  stale: {EDITED}/scores: runs.csv, runs.parquet (2 files)"
    assert lines[4].startswith(f"changed: {OUT}/trec2004/scores/runs.parquet (sha256 ")
    assert lines[5] == f"  stale: {OUT}/trec2004/tables: runs.csv"
    assert len(lines) == 6  # 17 findings, 2 causes


def test_the_workflow_says_a_stale_campaign_once_with_its_cause():
    direct = [f for f in findings() if f.kind == "stale" and f.direct]
    raw = [f"{f.path} is stale ({f.detail}): this run rebuilds it" for f in direct]
    raw.append(f"{OUT}/trec2004/scores/runs.parquet changed since it was written (sha256 "
               "...): removed, this run rebuilds it")
    lines = preparation_lines(raw, OUT)
    assert lines == [
        raw[-1],
        f"{EDITED}: {GOLD} changed since `qacamp ingest` read it: this run rebuilds the "
        f"{len(TABLES)} files of ingest/ built from it and what follows from them"]
    dry = preparation_lines([line.replace("this run", "a run") for line in raw[:-1]], OUT)
    assert dry == [lines[1].replace("this run", "a run")]
