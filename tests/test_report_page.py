"""The campaign overview page, the index, and the figures and tables,
checked on hand-built campaign folders (tests/test_report.py's
builders) and on the reliability layer's own fits: measures by their
registry labels, the deciding swap bin drawn, legends outside the axes,
stability labels inside the figure, dropped series named, Markdown without
LaTeX escapes, correctly discarded printed as a dash (as docs/semantics.md
says), no agreement table for one assessor,
the Kendall caption's source per comparison, the PAN run table."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import polars as pl
import pytest
from test_reliability_fits import mean_matrix, voorhees_2005_counts
from test_report import (
    QA_COUNTS,
    RUNS_SCHEMA,
    qa4mre_campaign,
    qa_runs,
    run_cli,
    series_campaign,
    trec_campaign,
)

from qacamp.io import write_parquet
from qacamp.measures import REGISTRY
from qacamp.reliability import fit_swap
from qacamp.report import tables as T
from qacamp.report.build import build_tables
from qacamp.report.campaign import Campaign
from qacamp.report.figures import (
    reading_tests_figure,
    series_boxplot_figure,
    stability_figure,
    swap_curves_figure,
)
from qacamp.report.markdown import to_markdown

ROOT = Path(__file__).resolve().parents[1]


def figure_texts(fig) -> list[str]:
    """Every text drawn on a figure (titles, labels, legends, annotations, notes)."""
    from matplotlib.text import Text

    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


# --------------------------------------------------------------------------- registry labels

def test_every_registered_measure_has_a_display_label():
    assert all(m.label for m in REGISTRY.values())
    assert REGISTRY["c_at_1"].label == "c@1" and REGISTRY["series_score"].label == "series score"
    assert REGISTRY["auc"].label == "AUC" and REGISTRY["cws"].label == "CWS"


# --------------------------------------------------------------------------- swap figure

def voorhees_fit(**kw):
    counts = voorhees_2005_counts()
    fits, summary = fit_swap(counts, 64, min_fit_size=5, matrix=mean_matrix(
        [[0.1 * j] * 64 for j in range(12)]), **kw)
    return counts, fits, summary


def test_swap_figure_draws_every_bin_up_to_the_deciding_one_and_says_so():
    counts, fits, summary = voorhees_fit()
    assert summary["required_bin"][0] == 5 and summary["required_difference"][0] == 0.05
    fig = swap_curves_figure(counts, fits, "series_score", 64, unit="series",
                             required_difference=0.05, summary=summary)
    legend = fig.legends[0]
    labels = [t.get_text() for t in legend.get_texts()]
    for lo in (0.01, 0.02, 0.03, 0.04, 0.05):
        assert any(lab.startswith(f"{lo:.2f} \u2264 d < {lo + 0.01:.2f}") for lab in labels), lo
    assert "0.05 \u2264 d < 0.06 (decides)" in labels
    assert "bins 0.01\u20130.06 shown" in legend.get_title().get_text()
    title = fig.axes[0].get_title()
    assert "d \u2265 0.05 needed" in title


def test_swap_figure_legend_is_outside_the_axes_and_titles_use_labels():
    counts, fits, summary = voorhees_fit()
    fig = swap_curves_figure(counts, fits, "series_score", 64, unit="series",
                             required_difference=0.05, summary=summary)
    fig.canvas.draw()
    ax = fig.axes[0]
    assert ax.get_legend() is None
    box, legend = ax.get_window_extent(), fig.legends[0].get_window_extent()
    assert legend.x0 >= box.x1 - 1, (legend, box)  # right of the axes: covers no curve
    text = " ".join(figure_texts(fig))
    assert "series score" in text and "series_score" not in text
    assert "seriess" not in text and "number of series" in text
    fig2 = swap_curves_figure(counts, fits, "c_at_1", 64, unit="question", summary=summary,
                              required_difference=0.05)
    assert "Swap method, c@1:" in fig2.axes[0].get_title()
    assert "c_at_1" not in " ".join(figure_texts(fig2))


# --------------------------------------------------------------------------- stability figure

def stab(measure, xs, ys):
    f = [round(0.01 * (i + 1), 2) for i in range(len(xs))]
    return pl.DataFrame({"measure": measure, "size": 120, "fuzziness": f, "error_rate": ys,
                         "prop_ties": xs})


def annotations(fig):
    from matplotlib.text import Annotation

    return [a for a in fig.axes[0].findobj(Annotation)]


def test_stability_labels_every_curve_and_nothing_is_clipped():
    frames = {"c_at_1": stab("c_at_1", [0.017 + 0.0185 * i for i in range(10)],
                             [0.058 - 0.0046 * i for i in range(10)]),
              "accuracy": stab("accuracy", [0.017 + 0.0165 * i for i in range(10)],
                               [0.057 - 0.0048 * i for i in range(10)]),
              "utility": stab("utility", [0.010 + 0.001 * i for i in range(10)],
                              [0.065 - 0.0004 * i for i in range(10)])}
    fig = stability_figure(frames, size=120)
    fig.canvas.draw()
    notes = annotations(fig)
    texts = [a.get_text() for a in notes]
    assert texts.count("f=0.10") == 3  # the utility curve has its labels too
    assert "f=0.01" in texts
    axes_box = fig.axes[0].get_window_extent()
    boxes = [a.get_window_extent() for a in notes]
    for a, b in zip(notes, boxes, strict=True):
        assert axes_box.x0 <= b.x0 and b.x1 <= axes_box.x1, a.get_text()  # not clipped
        assert axes_box.y0 <= b.y0 and b.y1 <= axes_box.y1, a.get_text()
    for i, b in enumerate(boxes):
        for c in boxes[i + 1:]:
            assert not b.overlaps(c), texts
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == ["c@1", "accuracy", "utility"]


def test_stability_with_few_runs_does_not_collapse_to_overlapping_labels():
    zeros = [0.0] * 10
    frames = {m: stab(m, zeros, zeros) for m in ("c_at_1", "accuracy")}
    fig = stability_figure(frames, size=5, unit="problem")
    texts = [a.get_text() for a in annotations(fig)]
    assert texts == ["f=0.01\u20130.10"]  # one label for the one point
    assert "all points are at the origin" in " ".join(" ".join(figure_texts(fig)).split())
    assert "subsets of 5 problems" in fig.axes[0].get_title()
    lo, hi = fig.axes[0].get_xlim()
    assert hi > lo


def test_series_boxplot_names_the_dropped_series():
    rows = [("adjudicated", f"r{k}", "series_score", "series", s, 0.1 * ((k + int(s)) % 9))
            for k in range(4) for s in ("1", "2", "3", "5")]
    runs = pl.DataFrame(rows, schema=RUNS_SCHEMA, orient="row")
    fig = series_boxplot_figure(runs, "adjudicated", dropped=[
        ("4", "Other question never judged")])
    text = " ".join(" ".join(figure_texts(fig)).split())
    assert "Not shown (no series score): series 4 (Other question never judged)" in text


def test_reading_tests_legend_fits_the_figure_with_long_topic_names():
    """QA4MRE 2013's legend was cut at both edges ("Desert Agricultur"): long
    topic names wrap onto more rows, every entry inside the figure."""
    names = {"T1": "Urban Beekeeping", "T2": "Tidal Energy and Offshore Wind Farms",
             "T3": "Folk Music Archives", "T4": "Desert Agriculture"}
    tests = {f"{k}_{i}": f"T{k}" for k in range(1, 5) for i in (1, 2)}
    rows = [("gold", run, "c_at_1", scope, unit, 0.1 * k)
            for k, run in enumerate(["a", "b", "c"])
            for scope, unit in [*(("test", t) for t in tests), *(("topic", t) for t in names)]]
    fig = reading_tests_figure(pl.DataFrame(rows, schema=RUNS_SCHEMA, orient="row"), "gold",
                               tests, topic_names=names)
    fig.canvas.draw()
    box = fig.bbox
    legend = fig.legends[0]
    entries = [t.get_text() for t in legend.get_texts()]
    assert "topic T2: Tidal Energy and Offshore Wind Farms" in entries
    renderer = fig.canvas.get_renderer()
    for t in [legend, *legend.get_texts()]:
        e = t.get_window_extent(renderer)
        assert box.x0 <= e.x0 and e.x1 <= box.x1, (t, e, box)


# --------------------------------------------------------------------------- tables

def test_correctly_discarded_is_a_dash_where_nothing_was_unanswered_as_documented():
    spec = T.RunTableSpec("c_at_1", ("accuracy", "correctly_discarded", "n_right", "n_wrong",
                                     "n_unanswered"), 2)
    t = T.run_table(qa_runs(), "qa4mre", "gold", spec)
    row = t.frame.filter(pl.col("run") == "b&c_run").row(0, named=True)
    assert row["n_unanswered"] == 0 and row["correctly_discarded"] is None
    md = to_markdown(t)  # (& is written as an HTML entity in Markdown: README "Outputs")
    assert re.search(r"\| b&amp;c_run \| [0-9.]+ \| [0-9.]+ \| - \| 18 \| 22 \| 0 \|", md), md
    assert any("a dash for a run that left no question unanswered" in n for n in t.notes)
    semantics = (ROOT / "docs" / "semantics.md").read_text()
    assert "a dash" in semantics and "correctly discarded" in semantics
    # a run that did leave questions unanswered keeps its value
    assert t.frame.filter(pl.col("run") == "zeta")["correctly_discarded"][0] == pytest.approx(0.75)


def test_single_assessor_campaign_has_no_agreement_table(tmp_path):
    cdir = trec_campaign(tmp_path)
    assert "agreement" in build_tables(Campaign(cdir))
    agreement = cdir / "reliability" / "agreement.parquet"
    write_parquet(pl.DataFrame({"tuple": ["RRR", "WWW"], "count": [10, 5], "share": [0.6, 0.4]}),
                  agreement)  # nobody disagrees
    assert "agreement" not in build_tables(Campaign(cdir))
    write_parquet(pl.DataFrame(schema={"tuple": pl.String, "count": pl.Int64,
                                       "share": pl.Float64}), agreement)  # one assessor: no tuples
    assert "agreement" not in build_tables(Campaign(cdir))


def kendall_frame(pairs):
    return pl.DataFrame({"ranking_a": [a for a, _ in pairs], "ranking_b": [b for _, b in pairs],
                         "n_runs": [5] * len(pairs), "tau": [0.9] * len(pairs),
                         "variant": ["tau_b"] * len(pairs), "tied_pairs_a": [0] * len(pairs),
                         "tied_pairs_b": [1] * len(pairs)})


def test_kendall_caption_cites_the_source_of_each_comparison():
    measures = T.kendall_table(kendall_frame([("c_at_1@gold", "accuracy@gold")]))
    assert "Voorhees 2003" not in measures.caption
    assert "two measures" in measures.caption
    assert measures.frame["rankings"].to_list() == ["gold: c@1 vs accuracy"]
    sets = T.kendall_table(kendall_frame([("cws@adjudicated", "cws@assessor1"),
                                          ("cws@adjudicated", "accuracy@adjudicated")]))
    assert "Voorhees 2003, Table 3" in sets.caption and "two measures" in sets.caption
    assert [c.header for c in sets.columns][0] == "Compared"
    agg = T.kendall_table(kendall_frame([("series_score@adj", "type_score@adj")]))
    assert "Voorhees 2005" in agg.caption and "Table 3" not in agg.caption
    assert "tau_b" in agg.caption and "Tied pairs" in agg.caption


def test_pan_run_table_shows_the_pan_measures_sorted_by_overall():
    pan = ("auc", "c_at_1", "f_05_u", "f1", "brier", "overall")
    rows = []
    for k, run in enumerate(["a", "b", "c"]):
        for i, m in enumerate(pan):
            rows.append(("gold", run, m, "all", "all", 0.5 + 0.1 * ((k + i) % 3)))
        for m, v in (("n_right", 60), ("n_wrong", 30), ("n_unanswered", 10)):
            rows.append(("gold", run, m, "all", "all", float(v)))
    runs = pl.DataFrame(rows, schema=RUNS_SCHEMA, orient="row")
    # the default edition (2023), as PAN 2021-2023: overall and the five measures it
    # is the mean of
    t = T.run_table(runs, "pan", "gold")
    assert [c.header for c in t.columns] == ["Run", "Overall", "AUC", "c@1", "F0.5u", "F1",
                                             "Brier"]
    overall = t.frame["overall"].to_list()
    assert overall == sorted(overall, reverse=True)
    assert "overall score being the mean of the edition's measures" in t.caption
    assert "Brier is reported as its complement" in t.caption
    # the measures of the organizer's choice (config report.run_table)
    chosen = T.run_table(runs, "pan", "gold", T.RunTableSpec("overall", ("auc", "f1"), 3))
    assert [c.header for c in chosen.columns][1:] == ["Overall", "AUC", "F1"]
    assert "Brier" not in chosen.caption


@pytest.mark.parametrize("edition, headers, overall", [
    (None, ["AUC", "c@1", "F0.5u", "F1", "Brier"], "the mean of the edition's measures"),
    ("2023", ["AUC", "c@1", "F0.5u", "F1", "Brier"], "the mean of the edition's measures"),
    (2021, ["AUC", "c@1", "F0.5u", "F1", "Brier"], "the mean of the edition's measures"),
    ("2020", ["AUC", "c@1", "F0.5u", "F1"], "the mean of the edition's measures"),
    (2015, ["AUC", "c@1"], "the product of AUC and c@1 (PAN 2014-2015 overviews)"),
    ("2014", ["AUC", "c@1"], "the product of AUC and c@1 (PAN 2014-2015 overviews)"),
])
def test_pan_run_table_has_the_measures_of_the_editions_overall_score(edition, headers,
                                                                        overall):
    """The run table of a PAN campaign shows the measures its edition's overall
    score is made of (docs/measures.md, ``overall``): Brier from 2021 on (the
    table left it out, though the 2021-2023 overall score averages it)."""
    from qacamp.kinds import KINDS

    kind = KINDS["pan"]
    rules = kind.edition(None, (), edition)
    columns = rules.run_columns if rules else kind.run_columns
    style = rules.run_table if rules else kind.run_table
    pan = ("auc", "c_at_1", "f_05_u", "f1", "brier", "overall")
    runs = pl.DataFrame([("gold", run, m, "all", "all", 0.5 + 0.1 * k)
                         for k, run in enumerate("ab") for m in pan],
                        schema=RUNS_SCHEMA, orient="row")
    t = T.run_table(runs, "pan", "gold", T.RunTableSpec("overall", columns, 3), table=style)
    assert [c.header for c in t.columns] == ["Run", "Overall", *headers]
    assert f"the overall score being {overall}" in t.caption


# --------------------------------------------------------------------------- the page

class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.imgs, self.scripts, self.links, self.ids = [], [], [], set()
        self.rows: dict[str, int] = {}
        self._table = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "img":
            self.imgs.append(a.get("src", ""))
        if tag in ("script", "link"):
            (self.scripts if tag == "script" else self.links).append(a)
        if tag == "table":
            self._table = a.get("id")
            self.rows[self._table] = 0
        if tag == "tr" and self._table and a.get("class") != "block":
            self.rows[self._table] += 1


def fake_figures(cdir: Path) -> Path:
    run_cli("report", "figures", "--campaign-dir", str(cdir), "--out", str(cdir / "figures"))
    return cdir / "figures"


@pytest.mark.parametrize("builder", [qa4mre_campaign, series_campaign, trec_campaign])
def test_campaign_page_is_self_contained_and_complete(tmp_path, capsys, builder):
    cdir = builder(tmp_path)
    fake_figures(cdir)
    out = cdir / "report.html"
    run_cli("report", "page", "--campaign-dir", str(cdir), "--out", str(out))
    html = out.read_text(encoding="utf-8")
    page = _Page()
    page.feed(html)
    assert page.imgs and all(src.startswith("data:image/png;base64,") for src in page.imgs)
    assert not re.search(r"(src|href)=\"(https?:)?//", html)  # nothing from the network
    assert all("src" not in s for s in page.scripts) and not page.links
    for section in ("campaign", "results", "reliability", "warnings"):
        assert section in page.ids
    runs = pl.read_parquet(cdir / "scores" / "runs.parquet")
    js = Campaign(cdir).judgment_set
    n_runs = runs.filter((pl.col("scope") == "all") & (pl.col("judgment_set") == js))["run"] \
        .n_unique()
    assert page.rows["table-runs"] == n_runs + 1  # + the header row
    assert "Swap method" in html and "have at most 5% swap error" in html
    assert "_at_" not in re.sub(r"<[^>]+>|data:[^\"]+", "", html).replace("c_at_1_vs", "")
    # byte-identical on a rerun
    run_cli("report", "page", "--campaign-dir", str(cdir), "--out", str(tmp_path / "again.html"))
    assert (tmp_path / "again.html").read_bytes() == out.read_bytes()


def test_page_sentences_carry_the_summary_numbers(tmp_path, capsys):
    cdir = qa4mre_campaign(tmp_path)
    fake_figures(cdir)
    run_cli("report", "page", "--campaign-dir", str(cdir), "--out", str(cdir / "report.html"))
    html = (cdir / "report.html").read_text(encoding="utf-8")
    # swap_frames: full size 40, required 0.09, sensitivity 58.4%, 10 pairs, reached at 23
    assert ("With 40 questions, differences of at least 0.09 in c@1 have at most 5% swap "
            "error") in html
    assert "58% of the 10 run pairs differ by at least that" in html
    assert "no difference bin of accuracy reaches a swap error of at most 5%" in html
    assert "The best participants' run is <strong>team_a%1</strong>" in html


def test_index_links_every_campaign_and_the_editions(tmp_path, capsys):
    a = qa4mre_campaign(tmp_path, "qa4mre2013", "2013", shift=2)
    b = qa4mre_campaign(tmp_path, "qa4mre2012", "2012")
    c = series_campaign(tmp_path)
    out = tmp_path / "index.html"
    run_cli("report", "index", "--campaign-dir", str(a), "--campaign-dir", str(b),
            "--campaign-dir", str(c), "--out", str(out))
    html = out.read_text(encoding="utf-8")
    for name in ("qa4mre2013", "qa4mre2012", "trec2004"):
        assert f'href="{name}/report.html"' in html
    page = _Page()
    page.feed(html)
    assert page.rows["table-campaigns"] == 4
    assert page.rows["table-editions"] == 3
    part = [r for r in QA_COUNTS if not r.startswith("baseline:")]
    assert html.count(">3<") >= 2  # participants' runs of each QA4MRE edition
    assert len(part) == 3


def test_page_warnings_list_ingest_warnings_automatic_judgments_and_weak_evidence(tmp_path,
                                                                                   capsys):
    cdir = qa4mre_campaign(tmp_path)
    write_parquet(pl.DataFrame({"file": ["runs/x.xml"], "place": ["line 12"],
                                "kind": ["autojudge-truncated"],
                                "message": ["3 answers of run 'x' are longer than 5000 characters"],
                                "count": [3]}), cdir / "ingest" / "warnings.parquet")
    runs = pl.read_parquet(cdir / "scores" / "runs.parquet")
    write_parquet(pl.concat([runs, runs.with_columns(pl.lit("automatic").alias("judgment_set"))]),
                  cdir / "scores" / "runs.parquet")
    summary = pl.read_parquet(cdir / "reliability" / "swap_c_at_1_summary.parquet")
    write_parquet(summary.with_columns(pl.lit("only 5 runs (10 pairs)").alias("warning")),
                  cdir / "reliability" / "swap_c_at_1_summary.parquet")
    fake_figures(cdir)
    run_cli("report", "page", "--campaign-dir", str(cdir), "--out", str(cdir / "report.html"),
            "--judgment-set", "gold")
    html = (cdir / "report.html").read_text(encoding="utf-8")
    warnings = html.split('id="warnings"')[1].split("</section>")[0]
    assert "3 answers of run &#39;x&#39; are longer than 5000 characters (3 cases)" in warnings
    assert "runs/x.xml line 12" in warnings
    assert "Automatic judgments" in warnings
    # weak evidence is said once per measure, in section 4; the list points there
    assert "Weak evidence in the swap method for c@1: see each measure" in warnings
    rel = html.split('id="reliability"')[1].split("</section>")[0]
    c_at_1 = rel.split('id="reliability-c_at_1"')[1].split("<h3")[0]
    assert "Too few runs to estimate a required difference in c@1" in c_at_1
    assert "differences of at least" not in c_at_1


def test_the_swap_figures_caption_describes_its_mode():
    """The observed-mode figure plots the error rate against the difference at
    one subset size: its caption said "against subset size, one colour per
    bin", the extrapolated figure's."""
    from qacamp.report.overview import swap_caption

    observed = swap_caption("c_at_1", {"mode": "observed", "observed_at": 250}, "question")
    assert "at subsets of c = 250 questions against the difference" in observed
    assert "against subset size" not in observed and "one colour per" not in observed
    extrapolated = swap_caption("cws", {"mode": "extrapolate"}, "question")
    assert "against subset size, one colour per 0.01-wide" in extrapolated
    assert "dashed extrapolated" in extrapolated
    for caption in (observed, extrapolated):  # the method is said once, in the section
        assert "fitted by binomial maximum likelihood" not in caption
        assert "see the note at the head of this section" in caption


def test_pan_pages_speak_of_problems_not_question_types():
    frame = pl.DataFrame({"qtype": ["VERIFICATION"], "n_units": [100], "n_median_zero": [36],
                          "share": [0.36]})
    t = T.distributions_table(frame, unit="problem")
    assert [c.header for c in t.columns][:2] == ["Problem type", "Problems"]
    assert "question type" not in t.caption and "VERIFICATION problems" not in t.caption
    assert t.caption.startswith("Problems whose median score") and "per-problem" in t.caption
    assert t.title == "Problems with a median score of 0"
