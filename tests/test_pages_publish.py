"""Pages and tables an organizer can publish from without editing, on the session's demo run and on campaigns built from the
real files in ../shared/data: the Web 2004 score matrix (``measure: ap``), the
QA4MRE 2012 gold standard (runs simulated for its real questions with
``qacamp simulate --questions-from``) and a 4-run campaign.

Expected values come from the raw files or the pipeline's Parquet read here
(column means of the CSV, the gold's ``t_name`` attributes, question ids
above 15), from hand computations, or from the wording the pages must use."""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import polars as pl
import pytest
import yaml
from campaign_util import build
from page_util import Tables, column, numbering, page_text, section
from paths import SHARED_DATA
from workflow_util import needs_make, qacamp

from qacamp.reliability import fits as F
from qacamp.reliability.matrix import ScoreMatrix
from qacamp.reliability.stability import stability
from qacamp.report import conclusions as S
from qacamp.report.campaign import Campaign

DEMO = ["trec2002", "trec2004", "qa4mre2013", "qa4mre2012", "clef2009", "pan"]
WEB = SHARED_DATA / "score-matrices" / "web2004.csv"
GOLD_2012 = SHARED_DATA / "qa4mre" / "QA4MRE-2012-EN_GS.xml"
SMALL = {"swap": {"sizes": "10:30:10", "trials": 2, "min_fit_size": 10},
         "stability": {"size": 20, "trials": 3}, "bootstrap": {"trials": 20}}


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """web2004 (real matrix), qa4mre2012 (real gold, 12 simulated runs), four
    (a 4-run CLEF campaign), built with the qacamp commands of the rules."""
    work = tmp_path_factory.mktemp("real")
    for argv in (["qa4mre", "--questions-from", GOLD_2012, "--out", work / "qa", "--runs", 12,
                  "--seed", 5], ["clef-qa", "--out", work / "four", "--runs", 4, "--questions",
                                 60, "--seed", 3]):
        res = qacamp("simulate", *map(str, argv), "--quiet")
        assert res.returncode == 0, res.stderr
    cfg = {"outdir": "out", "shards": 1, "reliability": {"seed": 7}, "campaigns": {
        "web2004": {"kind": "score-matrix", "matrix": str(WEB), "measure": "ap",
                    "reliability": SMALL},
        "qa4mre2012": {"kind": "qa4mre", "gold": str(GOLD_2012), "runs": "qa/runs/*.xml",
                       "reliability": {"measures": ["c_at_1"], **SMALL}},
        "four": {"kind": "clef-qa", "questions": "four/questions.tsv",
                 "runs": "four/runs/*.tsv",
                 "reliability": {"measures": ["c_at_1", "utility"], **SMALL},
                 # the organizer's run table
                 "report": {"run_table": {"columns": ["utility", "n_unanswered", "accuracy"],
                                          "decimals": 3}}}}}
    (work / "real.yaml").write_text(yaml.safe_dump(cfg))
    return build(work / "real.yaml", work)


def page(out, campaign: str) -> str:
    return (out / campaign / "report.html").read_text(encoding="utf-8")


def tables(out, campaign: str) -> dict:
    return Tables(page(out, campaign)).tables


# --------------------------------------------------------------------------- 1. wrong on the page

@pytest.mark.slow
@needs_make
def test_index_editions_table_holds_the_qa4mre_editions_only(demo):
    ed = Tables((demo / "index.html").read_text(encoding="utf-8")).tables["editions"]
    # the PAN campaign names edition 2022 (its evaluator's rules): not a QA4MRE edition
    assert [r[0] for r in ed["rows"]] == ["2012", "2013"]
    assert pl.read_csv(demo / "overview" / "editions.csv")["edition"].cast(str).to_list() == \
        ["2012", "2013"]


@pytest.mark.slow  # the `real` campaigns: every command of the workflow's rules
def test_score_matrix_page_shows_units_measure_and_best_run(real):
    matrix = pl.read_csv(WEB, infer_schema_length=None)
    means = {run: matrix[run].mean() for run in matrix.columns}
    best = sorted(means, key=lambda r: (-round(means[r], 12), r))[0]
    html = page(real, "web2004")
    text = page_text(html)
    assert f"Topics {matrix.height}" in text and matrix.height == 150
    assert f"The best participants' run is {best} with ap {means[best]:.3f}" in text
    runs = Tables(html).tables["runs"]
    # the organizer's name, not "Ap" (then the letters of runs that cannot be told apart)
    assert runs["headers"][:2] == ["Run", "ap"]
    assert all(h.startswith("Letters") for h in runs["headers"][2:])
    assert runs["rows"][0][:2] == [best, f"{means[best]:.3f}"]
    assert "150 topics" in runs["caption"]
    assert "judgment set" not in text and "Questions 0" not in text
    index = Tables((real / "index.html").read_text(encoding="utf-8")).tables["campaigns"]
    row = next(r for r in index["rows"] if r[0] == "web2004")
    assert row[5:] == ["150 topics", "ap", best, f"{means[best]:.3f}"]
    # the headings run 1, 2, 3 ... as the contents list them (no breakdowns or
    # agreement here: no gap where they would be)
    toc, heads = numbering(html)
    assert toc == heads and [n for n, _ in heads] == list(range(1, len(heads) + 1))
    assert "Breakdowns" not in dict(heads).values()
    # the caption says "Run scores" once (no title repeating it)
    assert "<caption>Run scores:" in html and "Run scores.</span> Run scores" not in html
    assert "min-width" in (
        html.split("<style>")[1].split("caption {")[1].split("}")[0])


@pytest.mark.slow  # the `real` campaigns: every command of the workflow's rules
def test_report_steps_chained_write_the_bytes_of_their_runs_one_by_one(real, tmp_path):
    """The report steps of a campaign in one process (`qacamp report tables ...
    --then figures ... --then page ...`, as the workflow and ``real`` run them)
    write the files they write run one by one."""
    cdir = real / "web2004"
    for argv in (["tables", "--out", tmp_path / "tables"],
                 ["figures", "--out", tmp_path / "figures", "--dpi", 60],
                 ["page", "--figures", tmp_path / "figures", "--out", tmp_path / "report.html"]):
        res = qacamp("report", argv[0], "--campaign-dir", str(cdir), *map(str, argv[1:]))
        assert res.returncode == 0, res.stderr
    for folder in ("tables", "figures"):
        names = sorted(p.name for p in (cdir / folder).iterdir() if p.is_file())
        assert names and names == sorted(p.name for p in (tmp_path / folder).iterdir()
                                         if p.is_file()), folder
        for name in names:
            assert (cdir / folder / name).read_bytes() == \
                (tmp_path / folder / name).read_bytes(), (folder, name)
    assert (cdir / "report.html").read_bytes() == (tmp_path / "report.html").read_bytes()


@pytest.mark.slow
@needs_make
def test_qa4mre_page_says_how_many_auxiliary_questions_are_scored_apart(demo):
    q = pl.read_parquet(demo / "qa4mre2013" / "ingest" / "questions.parquet")
    number = q["qid"].str.split(".").list.last().cast(pl.Int64)
    aux = int((number > 15).sum())
    assert aux > 0
    text = page_text(page(demo, "qa4mre2013"))
    assert (f"Questions {q.height}: {q.height - aux} main questions, which c@1 and every score "
            f"of the run table are over, and {aux} auxiliary questions, scored apart") in text
    # and c@1 is indeed over the main questions only
    runs = pl.read_parquet(demo / "qa4mre2013" / "scores" / "runs.parquet").filter(
        (pl.col("scope") == "all") & pl.col("measure").is_in(["n_right", "n_wrong",
                                                              "n_unanswered"]))
    per_run = runs.group_by("run").agg(pl.col("value").sum())
    assert {round(v, 9) for v in per_run["value"].to_list()} == {float(q.height - aux)}


@pytest.mark.slow
@needs_make
def test_run_tables_show_the_columns_of_the_kinds_paper(demo):
    """The run table by default: run, the headline, the measures of the
    campaign's paper, the letters; at most 9 columns (the demo's PAN campaign,
    edition 2022: the overall score and the five measures it averages)."""
    want = {"trec2002": ["Run", "CWS", "Accuracy", "NIL precision", "NIL recall"],
            "trec2004": ["Run", "Per-series score", "Factoid accuracy", "List F", "Other F"],
            "qa4mre2013": ["Run", "c@1", "Accuracy", "Unanswered", "Tests passed"],
            "clef2009": ["Run", "c@1", "Accuracy", "Right", "Wrong", "Unanswered"],
            "pan": ["Run", "Overall", "AUC", "c@1", "F0.5u", "F1", "Brier"]}
    for c, head in want.items():
        got = tables(demo, c)["runs"]["headers"]
        assert got[:len(head)] == head and len(got) <= 9, (c, got)
        assert all(h.startswith("Letters (") for h in got[len(head):]), (c, got)


@pytest.mark.slow  # the `real` campaigns: every command of the workflow's rules
def test_the_organizers_run_table_is_the_same_in_every_file_and_on_the_page(real):
    """Config report.run_table: the columns, their order and decimals, in
    runs.md, runs.tex, runs.csv and the page alike."""
    t = tables(real, "four")["runs"]
    head = ["Run", "c@1", "Utility", "Unanswered", "Accuracy"]
    assert t["headers"][:5] == head and all(h.startswith("Letters (") for h in t["headers"][5:])
    assert all(re.fullmatch(r"-?\d+\.\d{3}", v) for v in column(t, "Utility"))
    out = real / "four" / "tables"
    md = (out / "runs.md").read_text()
    assert "| " + " | ".join(t["headers"]) + " |" in md
    keys = ["run", "c_at_1", "utility", "n_unanswered", "accuracy"]
    csv = pl.read_csv(out / "runs.csv")
    assert csv.columns[:5] == keys and len(csv.columns) == len(t["headers"])
    tex = (out / "runs.tex").read_text()
    assert " & ".join(t["headers"]) in tex
    src = pl.read_parquet(real / "four" / "scores" / "runs.parquet").filter(
        (pl.col("scope") == "all") & (pl.col("measure") == "utility"))
    want = dict(zip(src["run"].to_list(), src["value"].to_list(), strict=True))
    got = dict(zip(column(t, "Run"), column(t, "Utility"), strict=True))
    assert got and all(got[r] == f"{want[r]:.3f}" for r in got)


def test_stability_margin_is_absolute_for_negative_scores():
    # two runs with utilities -0.50 and -0.52 on every question: the difference
    # 0.02 is below |0.05 * max(-0.50, -0.52)| = 0.025, so a tie at f = 0.05
    # (c@1 paper, Figure 1: |margin|); at f = 0.03 (margin 0.015) a win for x.
    m = ScoreMatrix(tuple(f"q{i}" for i in range(40)), ("x", "y"), "mean",
                    values=np.array([[-0.50, -0.52]] * 40), measure="utility")
    rows = stability(m, 10, 4, seed=1, fuzz=[0.03, 0.05]).sort("fuzziness").to_dicts()
    assert [(r["fuzziness"], r["prop_ties"], r["error_rate"]) for r in rows] == \
        [(0.03, 0.0, 0.0), (0.05, 1.0, 0.0)]


@pytest.mark.parametrize(("right_x", "right_y", "n", "f"), [(10, 9, 20, 0.1), (25, 24, 40, 0.04)])
def test_a_difference_equal_to_the_margin_is_a_win(right_x, right_y, n, f):
    # accuracies 0.50 vs 0.45 at f = 0.1, 0.625 vs 0.600 at f = 0.04: the
    # difference is the margin exactly (the first rounds to 0.04999999999999999,
    # below the margin's 0.05); |d| < margin is false, a win for x every trial.
    # A margin a little larger makes it a tie.
    values = np.zeros((n, 2))
    values[:right_x, 0], values[:right_y, 1] = 1.0, 1.0
    m = ScoreMatrix(tuple(f"q{i}" for i in range(n)), ("x", "y"), "mean", values=values,
                    measure="accuracy")
    rows = stability(m, n, 3, seed=1, fuzz=[f, f * 1.001]).sort("fuzziness").to_dicts()
    assert [(r["prop_ties"], r["error_rate"]) for r in rows] == [(0.0, 0.0), (1.0, 0.0)]


def test_relative_difference_is_left_empty_for_a_negative_best_score():
    m = ScoreMatrix(tuple(f"q{i}" for i in range(20)), tuple("abcdefghijkl"), "mean",
                    values=np.tile(-0.1 - 0.05 * np.arange(12), (20, 1)), measure="utility")
    fits_df = pl.DataFrame({"bin": [0, 1, 2], "lo": [0.0, 0.01, 0.02], "hi": [0.01, 0.02, None],
                            "error_at_full": [None, 0.01, 0.0]}).with_columns(
        *[pl.lit(None, t).alias(c) for c, t in F.FIT_SCHEMA.items()
          if c not in ("bin", "lo", "hi", "error_at_full")])
    summary = F.summarize(fits_df.select(list(F.FIT_SCHEMA)), 20, matrix=m, measure="utility")
    row = summary.row(0, named=True)
    assert row["required_difference"] == 0.01 and row["highest_score"] == pytest.approx(-0.1)
    assert row["relative_difference"] is None  # (i)/(ii) with (ii) < 0 means nothing


@pytest.mark.slow
@needs_make
def test_captions_fit_the_campaign(demo):
    for c in ("qa4mre2013", "clef2009", "pan"):
        cap_ = tables(demo, c)["distributions"]["caption"]
        assert "list F" not in cap_ and "Other F" not in cap_, (c, cap_)
    series = tables(demo, "trec2004")["distributions"]["caption"]
    assert "list F for list questions" in series and "Other F for other questions" in series
    assert "baseline" not in tables(demo, "clef2009")["runs"]["caption"]  # it has none
    assert "baseline runs in a separate block" in tables(demo, "qa4mre2013")["runs"]["caption"]
    assert "Average per-series score of the ten best runs" in page(demo, "trec2004")


@pytest.mark.slow
@needs_make
def test_top_runs_caption_counts_the_runs_there_are(demo):
    from qacamp.report.overview import breakdown_section

    c = Campaign(demo / "trec2004", reliability=False)
    keep = sorted(c.runs["run"].unique().to_list())[:4]
    c.runs = c.runs.filter(pl.col("run").is_in(keep))
    figs = {n: b"\x89PNG\r\n\x1a\n" for n in ("series_boxplot", "top_runs")}
    captions = [f["caption"] for f in breakdown_section(c, {}, figs)["figures"]]
    assert "Average per-series score of the four best runs (Voorhees 2005, Figure 2)." in captions


# --------------------------------------------------------------------------- 2. weak evidence

def conclusions(html: str) -> str:
    part = section(html, "reliability").split('<h3 id="significance">')[0]
    return " ".join(re.findall(r'<p class="conclusion">(.*?)</p>', part, flags=re.S))


@pytest.mark.slow  # the `real` campaigns: every command of the workflow's rules
def test_a_four_run_campaign_gives_no_required_difference(real):
    html = page(real, "four")
    said = conclusions(html)
    # one short section: said once for every measure, no swap figure or summary table
    assert said.count("Too few runs to estimate a required difference: the campaign has 4 "
                      "runs (6 run pairs)") == 1, said
    assert not re.search(r"differences? of at least \d", said), said
    assert "groups whose" not in said  # no equivalence groups drawn from it
    rel = section(html, "reliability")
    assert 'id="figure-swap_' not in rel and 'id="table-swap_summary"' not in rel
    assert 'id="figure-stability"' not in rel
    from qacamp.report.build import build_figures

    for name, fig in build_figures(Campaign(real / "four")).items():
        if name.startswith("swap_"):
            title = fig.axes[0].get_title()
            assert "too few runs (4) to estimate a required difference" in title
            assert "needed" not in title
            legend = [t.get_text() for t in fig.legends[0].get_texts()]
            assert not any(t.endswith("(decides)") for t in legend), legend


@pytest.mark.slow
@needs_make
def test_a_weak_evidence_campaign_shows_one_short_section(demo):
    """The 5-run PAN page: said once, no swap figures, no empty table, no
    column of dashes."""
    html = page(demo, "pan")
    text = page_text(html)
    camp = Campaign(demo / "pan")
    for m in camp.measures:
        row = camp.rel(f"swap_{m}_summary.parquet").row(0, named=True)
        assert S.split_warnings(row)[0] is not None  # 5 runs
    assert conclusions(html).count("Too few runs to estimate a required difference") == 1
    assert text.count("weak evidence") == 1
    assert "Weak evidence (" not in text  # the summary table's copies are left out
    t = Tables(html).tables
    assert "swap_summary" not in t and 'id="figure-swap_' not in html
    assert all(tab["rows"] for tab in t.values()), [n for n, x in t.items() if not x["rows"]]
    for name, tab in t.items():
        for k, h in enumerate(tab["headers"]):
            cells = [r[k] for r in tab["rows"] if len(r) == len(tab["headers"])]
            assert cells and set(cells) != {"\u2013"}, (name, h)
    warnings = page_text(section(html, "warnings"))
    assert warnings.count("Too few runs") == 1 and "see Reliability" in warnings


@pytest.mark.slow
@needs_make
def test_no_warning_about_the_first_bin_which_never_decides(demo):
    for c in DEMO:
        for p in (demo / c / "reliability").glob("swap_*_summary.parquet"):
            assert "0.00-0.01" not in (pl.read_parquet(p)["warning"][0] or ""), p
        assert "0.00-0.01" not in page_text(page(demo, c))


def test_higher_bins_above_the_level_are_flagged_in_the_sentence():
    row = {"measure": "c_at_1", "full_size": 500, "level": 0.05, "required_difference": 0.05,
           "sensitivity": 0.6, "n_pairs": 190, "n_runs": 20, "mode": "extrapolate",
           "model": "exp-binomial", "min_fit_size": 21,
           "warning": "error rate above 0.05 in higher bin(s) 0.07-0.08, 0.09-0.10: the error "
                      "rate does not fall steadily with the difference"}
    sentence, note = S.swap_conclusion(row, "question")
    assert sentence.startswith("With 500 questions, differences of at least 0.05 in c@1")
    assert ("But the higher difference bin(s) 0.07-0.08, 0.09-0.10 still err more than 5%"
            in sentence)
    assert note is None


# --------------------------------------------------------------------------- 4. files to share

@pytest.mark.slow
@needs_make
def test_latex_labels_are_unique_per_campaign_and_long_tables_break(demo, tmp_path):
    files = sorted(demo.glob("*/tables/*.tex")) + sorted(demo.glob("overview/*.tex"))
    labels = [(p, lab) for p in files for lab in re.findall(r"\\label\{([^}]*)\}", p.read_text())]
    names = [lab for _, lab in labels]
    assert len(names) == len(set(names)) == len(files)
    for p, lab in labels:
        owner = "overview" if p.parent.name == "overview" else p.parent.parent.name
        assert lab == f"tab:{owner}-{p.stem}", (p, lab)
    runs = (demo / "qa4mre2013" / "tables" / "runs.tex").read_text()  # 44 rows
    assert "\\begin{longtable}" in runs and "\\endhead" in runs
    if shutil.which("pdflatex") is None:
        return
    doc = tmp_path / "all.tex"
    doc.write_text("\\documentclass{article}\n\\usepackage[T1]{fontenc}\n"
                   "\\usepackage{booktabs,longtable}\n\\usepackage[margin=1cm,landscape]"
                   "{geometry}\n\\begin{document}\n"
                   + "".join(f"\\input{{{p}}}\n\\clearpage\n" for p in files)
                   + "\\end{document}\n")
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "multiply defined" not in proc.stdout


@pytest.mark.slow  # the `real` campaigns: every command of the workflow's rules
def test_qa4mre_topic_names_from_the_gold_are_kept_and_shown(real):
    root = ET.parse(GOLD_2012).getroot()
    names = {t.get("t_id"): " ".join(t.get("t_name").split()) for t in root.iter("topic")}
    assert len(names) == 4 and "AIDS" in names.values()
    q = pl.read_parquet(real / "qa4mre2012" / "ingest" / "questions.parquet")
    assert dict(q.select("topic", "topic_name").unique().iter_rows()) == names
    t = tables(real, "qa4mre2012")
    order = sorted(names, key=int)
    # every run's c@1 per topic: its own table, headed by the topics' names
    assert t["runs_by_topic"]["headers"] == ["Run", *[names[k] for k in order]]
    assert not any(h.startswith("c@1 ") for h in t["runs"]["headers"])
    assert column(t["by_topic"], "Name") == [names[k] for k in order]


def test_reading_tests_and_topics_sort_numerically(tmp_path, capsys):
    from qacamp.cli import main

    assert main(["simulate", "qa4mre", "--out", str(tmp_path / "sim"), "--topics", "10",
                 "--tests", "10", "--runs", "2", "--seed", "4", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["eval", "qa4mre", "--gold", str(tmp_path / "sim" / "gold.xml"),
                 *sorted(str(p) for p in (tmp_path / "sim" / "runs").glob("*.xml")),
                 "-q", "-m", "c_at_1"]) == 0
    rows = [ln.split("\t") for ln in capsys.readouterr().out.splitlines()[1:]]
    run0 = rows[0][0]
    tests = [r[3] for r in rows if r[0] == run0 and r[2] == "test"]
    assert tests[:11] == [f"1.{i}" for i in range(1, 11)] + ["2.1"]  # 1.9 before 1.10
    topics = [r[3] for r in rows if r[0] == run0 and r[2] == "topic"]
    assert topics == [str(i) for i in range(1, 11)]


@pytest.mark.slow
@needs_make
def test_c_at_1_versus_accuracy_is_folded_into_the_run_table(demo):
    for c in DEMO:
        assert not list((demo / c / "tables").glob("c_at_1_vs_accuracy.*")), c
        assert 'id="table-c_at_1_vs_accuracy"' not in page(demo, c)
    runs = tables(demo, "clef2009")["runs"]
    assert runs["headers"][:3] == ["Run", "c@1", "Accuracy"]
    assert {"Right", "Wrong", "Unanswered"} <= set(runs["headers"])
    assert "Penas & Rodrigo 2011, Table 3" in runs["caption"]


@pytest.mark.slow
@needs_make
@pytest.mark.parametrize("campaign,digits", [("qa4mre2013", 2), ("pan", 3)])
def test_one_number_of_decimals_per_measure_across_a_page(demo, campaign, digits):
    html = page(demo, campaign)
    t = Tables(html).tables
    shown = []
    measures = {"qa4mre2013": ["c@1", "Accuracy"], "pan": ["AUC", "c@1", "Overall"]}[campaign]
    for h in t["runs"]["headers"]:
        if h in measures or h.startswith("c@1 "):
            shown += column(t["runs"], h)
    for name in ("by_topic", "by_qtype"):
        if name in t:
            for h in ("Mean", "Median", "Best", "Worst"):
                if h in t[name]["headers"]:
                    shown += column(t[name], h)
    if "swap_summary" in t:  # (not for PAN's 5 runs: too few for the swap method)
        shown += column(t["swap_summary"], "(ii) Highest score")
    best = re.search(r"The best participants' run is <strong>[^<]+</strong> with \S+ "
                     r"([0-9.]+)", html)
    shown.append(best.group(1))
    bad = [v for v in shown if v not in ("\u2013", "-") and not re.fullmatch(
        rf"-?\d+\.\d{{{digits}}}", v)]
    # at least the run table's measures of the 5 PAN runs (15 cells)
    assert len(shown) >= 15 and bad == [], bad[:10]


@pytest.mark.slow
@needs_make
def test_correctly_discarded_of_runs_abstaining_without_candidates_is_explained(demo):
    from qacamp.report import tables as T
    from qacamp.report.formats import format_value

    runs = pl.read_parquet(demo / "qa4mre2013" / "scores" / "runs.parquet").filter(
        pl.col("scope") == "all").pivot(on="measure", index="run", values="value")
    blind = sorted(runs.filter((pl.col("n_unanswered") > 0) & (
        pl.col("n_unanswered_empty") == pl.col("n_unanswered")))["run"].to_list())
    assert blind
    camp = Campaign(demo / "qa4mre2013")
    spec = T.RunTableSpec("c_at_1", ("correctly_discarded", "n_unanswered"), 2)
    t = T.run_table(camp.runs, "qa4mre", camp.judgment_set, spec)
    shown = {r: format_value(v, "f2") for r, v in t.frame.select(
        "run", "correctly_discarded").iter_rows()}
    assert all(shown[r] == "1.00" for r in blind if r in shown)
    text = " ".join(t.notes)
    note = text.split("Correctly discarded is 1.00 by construction for ")[1]
    note = re.split(r": th(is run|ese runs) abstained", note)[0]
    named = note.split(" and ")[0].split(", ")
    assert named == blind[:8]
    if len(blind) > 8:
        assert f" and {len(blind) - 8} more" in text
    assert "abstained without giving a candidate answer" in text
