"""The demo's overview pages as a person sees them: `make run
CONFIG=config/config.yaml` (the README's command, the session's shared demo
run) writes `<outdir>/<campaign>/report.html` for every campaign and
`<outdir>/index.html`; headless Chromium (Debian's `chromium` and
`chromium-driver`, installed by .ci/run) opens each page at 1,200 px with
the network closed and finds every figure displayed, a run table with one
row per run that needs no horizontal scrolling, no empty table anywhere
(folded tables included), and section numbers that follow the contents; a
screenshot of every page is written under `<outdir>/screenshots/` for a
reviewer; the 5-run PAN page says "Too few runs to estimate a required
difference" once where a number would be weak evidence.  The p-value
heatmaps name every run on both axes (the figures' tick labels: the SVG
draws text as paths).  The figures and tables of the demo are checked for
the defects a reviewer would see.  The part "Designing the next
campaign" shows its table and figure and links every question to re-check to
its anchored row (a screenshot of the part beside the page's)."""

from __future__ import annotations

import re

import polars as pl
import pytest
from browser_util import Browser, find_browser
from workflow_util import bounded_run, needs_make

from qacamp.report.build import build_figures
from qacamp.report.campaign import Campaign

pytestmark = [pytest.mark.slow, needs_make]

DEMO = ["trec2002", "trec2004", "qa4mre2013", "qa4mre2012", "clef2009", "pan"]
needs_browser = pytest.mark.skipif(
    find_browser() is None,
    reason="no headless Chromium: install Debian's chromium and chromium-driver "
           "(apt-get install chromium chromium-driver; .ci/run does)")

#: the width the pages must fit without horizontal scrolling
WIDTH = 1200

# what the page looks like to a person, measured in the browser
INSPECT = """
const imgs = Array.from(document.images);
const rows = document.querySelectorAll('#table-runs tbody tr:not(.block)').length;
const remote = performance.getEntriesByType('resource').map(e => e.name)
    .filter(n => !n.startsWith('data:'));
const headers = Array.from(document.querySelectorAll('#table-runs thead th'))
    .map(h => h.textContent.trim());
const letterCols = headers.map((h, k) => h.startsWith('Letters (') ? k : -1).filter(k => k >= 0);
const body = document.querySelector('#table-runs tbody');
const letters = body ? Array.from(body.rows)
    .map(r => letterCols.map(k => r.cells[k].textContent.trim())) : [];
const sig = Array.from(document.querySelectorAll('figure[id^="figure-significance_"] img'))
    .map(i => [i.complete, i.naturalWidth, i.getBoundingClientRect().width]);
const design = Array.from(document.querySelectorAll('figure[id^="figure-design_"] img'))
    .map(i => [i.complete, i.naturalWidth, i.getBoundingClientRect().width]);
const recheck = Array.from(document.querySelectorAll('#table-design_recheck tbody tr'))
    .map(r => [r.id, r.cells[0].querySelector('a').getAttribute('href')]);
const wrap = document.querySelector('#table-runs') ?
    document.querySelector('#table-runs').closest('.table-wrap') : null;
const tables = Array.from(document.querySelectorAll('table')).map(t =>
    [t.id || t.className, t.querySelectorAll('tbody tr:not(.block)').length]);
const toc = Array.from(document.querySelectorAll('nav.toc > ol > li')).map(l =>
    [l.value, l.querySelector('a').textContent.trim()]);
const heads = Array.from(document.querySelectorAll('main h2')).map(h => h.textContent.trim());
return {images: imgs.map(i => [i.complete, i.naturalWidth, i.naturalHeight,
                               i.getBoundingClientRect().width]),
        runScroll: wrap ? [wrap.scrollWidth, wrap.clientWidth] : null,
        pageScroll: [document.documentElement.scrollWidth, window.innerWidth],
        height: document.documentElement.scrollHeight,
        tables: tables, toc: toc, h2: heads,
        heads: headers, letters: letters, sig: sig, design: design, recheck: recheck,
        designTable: document.querySelector('#table-design tbody tr') !== null,
        designHead: document.querySelector('#design') !== null,
        tocLinks: Array.from(document.querySelectorAll('nav.toc a')).map(a => a.getAttribute('href')),
        significance: document.querySelector('#significance') !== null,
        rows: rows, remote: remote, title: document.title,
        sections: Array.from(document.querySelectorAll('section')).map(s => s.id)};
"""


# the page's part "Designing the next campaign", for its screenshot: (x, y, width, height)
DESIGN_PART = """
const top = document.getElementById('design').getBoundingClientRect().top + window.scrollY;
const last = document.getElementById('table-design_recheck')
    || document.getElementById('design-recheck').nextElementSibling;
const bottom = last.getBoundingClientRect().bottom + window.scrollY;
return [0, top - 10, document.documentElement.scrollWidth, bottom - top + 30];
"""


def runs_of(demo, campaign: str) -> int:
    c = Campaign(demo / campaign, reliability=False)
    return c.runs.filter((pl.col("scope") == "all")
                         & (pl.col("judgment_set") == c.judgment_set))["run"].n_unique()


def test_demo_writes_every_overview_page_and_the_index(demo):
    index = (demo / "index.html").read_text(encoding="utf-8")
    for c in DEMO:
        page = (demo / c / "report.html").read_text(encoding="utf-8")
        assert f'href="{c}/report.html"' in index
        assert 'href="../index.html"' in page
        assert not re.search(r"(src|href)=\"(https?:)?//", page)
        assert "<h2>4. Reliability of the comparisons</h2>" in page
        assert '<h3 id="significance">' in page and "With randomised Tukey HSD over" in page
    assert 'id="table-editions"' in index  # qa4mre2012 + qa4mre2013
    # the page's sentences on the swap method, with the demo's own numbers
    s = pl.read_parquet(demo / "trec2004/reliability/swap_series_score_summary.parquet").row(
        0, named=True)
    page = (demo / "trec2004/report.html").read_text(encoding="utf-8")
    assert (f"With 64 series, differences of at least {s['required_difference']:.2f} in "
            "series score have at most 5% swap error") in page
    assert (f"{100 * s['sensitivity']:.0f}% of the 1,953 run pairs differ by at least "
            "that") in page
    assert "series 7: Other question never judged" in page


@needs_browser
def test_demo_pages_in_headless_chromium(demo):
    shots = demo / "screenshots"
    heights = {}
    with Browser(width=WIDTH, height=900) as b:
        b.open(demo / "index.html")
        info = b.run(INSPECT)
        assert info["remote"] == [], info["remote"]
        b.screenshot(shots / "index.png")
        for c in DEMO:
            b.open(demo / c / "report.html")
            info = b.run(INSPECT)
            assert info["remote"] == [], (c, info["remote"])  # nothing but the file itself
            assert info["images"], c
            for complete, w, h, shown in info["images"]:
                if shown:  # (a folded figure is not shown until opened)
                    assert complete and w > 0 and h > 0, (c, info["images"])
            assert info["rows"] == runs_of(demo, c), (c, info["rows"])
            assert {"campaign", "results", "reliability", "warnings", "provenance"} <= \
                set(info["sections"]), (c, info["sections"])
            # the run table fits 1,200 px: no horizontal scrolling, nor of the page
            scroll, client = info["runScroll"]
            assert scroll <= client, (c, info["runScroll"], info["heads"])
            assert info["pageScroll"][0] <= info["pageScroll"][1], (c, info["pageScroll"])
            assert len(info["heads"]) <= 8, (c, info["heads"])
            # no section has an empty table (folded ones included)
            assert all(rows > 0 for _, rows in info["tables"]), (c, info["tables"])
            # the headings' numbers follow the contents, 1, 2, 3 ...
            assert [f"{n}. {t}" for n, t in info["toc"]] == info["h2"], (c, info["toc"],
                                                                        info["h2"])
            assert [n for n, _ in info["toc"]] == list(range(1, len(info["toc"]) + 1)), c
            # the significance part: its p-value matrix is displayed and the run
            # table has a letter column per criterion, filled for every run
            assert info["significance"] and info["sig"], c
            assert any(ok and w > 0 and shown > 0 for ok, w, shown in info["sig"]), c
            # no swap letters where too few runs give no required difference (PAN's 5)
            few = swap_req(demo, c) is None
            want = ["Letters (test)"] if few else ["Letters (swap)", "Letters (test)"]
            assert info["heads"][-len(want):] == want, c
            assert ("Letters (swap)" in info["heads"]) == (not few), c
            assert info["letters"] and all(all(x) for x in info["letters"]), c
            heights[c] = info["height"]
            shot = b.screenshot(shots / f"{c}.png")
            assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            # designing the next campaign: in the contents, its table, its figure
            # where a measure has per-unit values (not PAN's), the re-check table's
            # rows anchored and linked from their ids
            assert info["designHead"] and "#design" in info["tocLinks"], c
            # PAN (5 runs, no per-problem means): no method gives a size, the
            # sentence says why and no table of dashes is shown
            assert info["designTable"] == (c != "pan"), c
            assert bool(info["design"]) == (c != "pan"), c
            assert all(ok and w > 0 and shown > 0 for ok, w, shown in info["design"]), c
            assert all(href == f"#{rid}" for rid, href in info["recheck"]), c
            assert bool(info["recheck"]) == (c not in ("pan", "trec2004")), c
            part = b.run(DESIGN_PART)
            shot = b.screenshot(shots / f"{c}-design.png", clip=tuple(part))
            assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        # a question named in the re-check sentence leads to its row
        b.open(demo / "trec2002" / "report.html")
        hit = b.run("""
            const a = document.querySelector('#design-recheck + p.conclusion a');
            a.click();
            const row = document.getElementById(location.hash.slice(1));
            return [location.hash, a.textContent, row ? row.cells[0].textContent : null,
                    row ? row.getBoundingClientRect().top : null];""")
        assert hit[0] == f"#question-{hit[1]}" and hit[2] == hit[1], hit
        assert -1 < hit[3] < 900, hit  # scrolled into the window (to the subpixel)
                # weak evidence as a reader sees it: the 5-run PAN campaign's reliability
        # section gives no required difference, and says why, once
        b.open(demo / "pan" / "report.html")
        said = b.run("""return Array.from(document.querySelectorAll(
            '#reliability p.conclusion')).map(p => p.innerText).join('\\n');""")
        assert said.count("Too few runs to estimate a required difference") == 1, said
        assert "differences of at least" not in said
        # the comparison with the TREC 2004 demo's baseline run is on its page
        b.open(demo / "trec2004" / "report.html")
        base = b.run("""const t = document.querySelector('#comparison-baseline + .table-wrap table');
            return t ? [t.rows.length, t.innerText] : null;""")
        assert base is not None and base[0] == runs_of(demo, "trec2004") + 1, base
        assert "(baseline)" in base[1], base
        # sortable with JavaScript: a click on the c@1 header puts the lowest first
        b.open(demo / "clef2009" / "report.html")
        order = b.run("""
            const th = Array.from(document.querySelectorAll('#table-runs thead th'))
                .find(h => h.textContent.trim() === 'c@1');
            th.querySelector('button').click(); th.querySelector('button').click();
            return Array.from(document.querySelectorAll('#table-runs tbody')[0].rows)
                .map(r => parseFloat(r.cells[1].getAttribute('data-sort')));""")
        assert order == sorted(order) and len(order) == 44
    # pages shorter than before: say it once (trec2002 was 14,100 px tall
    # without the part "Designing the next campaign", which adds its figure,
    # its table and the questions to re-check, about 1,000 px)
    assert heights["trec2002"] < 12_000 and heights["pan"] < 6_000, heights


def test_demo_heatmaps_name_every_run_on_both_axes(demo):
    """Every p-value heatmap's axes carry the participants' run names (the
    figure's tick labels, as its generation draws them): rows from the second
    best run down, columns from the best to the second worst."""
    from qacamp.report.sections.significance import _runs_by_score, significance_figures

    for c in DEMO:
        camp = Campaign(demo / c)
        figs = significance_figures(camp)
        assert figs, c
        for name, fig in figs.items():
            runs = _runs_by_score(camp, name.removeprefix("significance_"))
            ax = fig.axes[0]
            xs = [t.get_text() for t in ax.get_xticklabels()]
            ys = [t.get_text() for t in ax.get_yticklabels()]
            assert xs == runs[:-1] and ys == runs[1:], (c, name)
            assert all(xs) and all(ys), (c, name)


def swap_req(demo, c, m=None):
    """The swap method's required difference of campaign c's main measure, None
    when there is none or too few runs make it no estimate (as the report reads it)."""
    from qacamp.reliability.fits import too_few_runs
    from qacamp.report.overview import main_measure

    m = m or main_measure(Campaign(demo / c))
    s = pl.read_parquet(demo / c / f"reliability/swap_{m}_summary.parquet")
    return None if too_few_runs(s["warning"][0]) else s["required_difference"][0]


def test_demo_run_table_letters_follow_the_pairwise_criteria(demo):
    """Two runs share a letter of the run table iff they cannot be told
    apart: by the swap method's required difference, and by the adjusted test."""
    from qacamp.report.overview import main_measure

    for c in DEMO:
        camp = Campaign(demo / c)
        m = main_measure(camp)
        table = pl.read_csv(demo / c / "tables" / "runs.csv").filter(
            ~pl.col("run").str.starts_with("baseline:"))
        exact = camp.runs.filter((pl.col("judgment_set") == camp.judgment_set)
                                 & (pl.col("scope") == "all") & (pl.col("measure") == m))
        score = dict(zip(exact["run"], exact["value"], strict=True))
        req = swap_req(demo, c, m)
        sig = pl.read_parquet(demo / c / f"reliability/significance_{m}.parquet")
        tested = {frozenset((a, b)): s for a, b, s in
                  sig.select("run_a", "run_b", "significant").iter_rows()}
        runs = table["run"].to_list()
        # with too few runs there is no required difference, hence no swap letters
        assert ("letters_swap" in table.columns) == (req is not None), c
        swap = dict(zip(runs, table["letters_swap"] if req is not None
                        else [""] * len(runs), strict=True))
        test = dict(zip(runs, table["letters_test"], strict=True))
        for i, a in enumerate(runs):
            for b in runs[i + 1:]:
                if req is not None:
                    apart = abs(score[a] - score[b]) >= req - 1e-9
                    assert bool(set(swap[a]) & set(swap[b])) == (not apart), (c, a, b)
                apart = tested[frozenset((a, b))]
                assert bool(set(test[a]) & set(test[b])) == (not apart), (c, a, b)


def test_demo_figures_name_measures_and_keep_labels_visible(demo):
    from matplotlib.text import Annotation, Text

    for c in ("trec2004", "qa4mre2013", "pan"):
        camp = Campaign(demo / c)
        for name, fig in build_figures(camp).items():
            fig.canvas.draw()
            texts = [t.get_text() for t in fig.findobj(Text) if t.get_text()]
            joined = " ".join(texts)
            assert "seriess" not in joined, (c, name)
            for m in ("c_at_1", "series_score", "f_05_u"):
                assert m not in joined, (c, name, m)
            if name.startswith("swap_"):
                ax = fig.axes[0]
                assert ax.get_legend() is None and fig.legends
                assert fig.legends[0].get_window_extent().x0 >= ax.get_window_extent().x1 - 1
                s = pl.read_parquet(demo / c / "reliability" / f"{name}_summary.parquet")
                req = s["required_difference"][0]
                if req is not None:  # the deciding bin is drawn
                    # (with too few runs nothing decides)
                    assert any(t.startswith(f"{req:.2f} \u2264 d <") and t.endswith(
                        ("(decides)", "(first under the level)"))
                               for t in texts), (c, name)
            if name == "stability":
                box = fig.axes[0].get_window_extent()
                notes = [a for a in fig.axes[0].findobj(Annotation)]
                assert notes
                for a in notes:
                    e = a.get_window_extent()
                    assert box.x0 <= e.x0 and e.x1 <= box.x1 and box.y0 <= e.y0 \
                        and e.y1 <= box.y1, (c, a.get_text())
            if name == "series_boxplot":
                assert "series 7 (Other question never judged" in " ".join(joined.split())


def test_demo_tables_have_none_of_the_listed_defects(demo):
    for c in DEMO:
        for md in (demo / c / "tables").glob("*.md"):
            assert "\\_" not in md.read_text(), md
    assert not (demo / "trec2004/tables/agreement.md").exists()  # one assessor
    assert (demo / "trec2002/tables/agreement.md").exists()
    assert "Voorhees 2003, Table 3" not in (demo / "qa4mre2013/tables/kendall.md").read_text()
    assert "Voorhees 2003, Table 3" in (demo / "trec2002/tables/kendall.md").read_text()
    eq = (demo / "trec2002/tables/equivalence.md").read_text()
    assert "| Letters (swap) |" in eq and "| Letters (test) |" in eq
    pan = (demo / "pan/tables/runs.md").read_text()
    for header in ("Overall", "AUC", "c@1", "F0.5u", "F1"):
        assert f" {header} |" in pan, header
    # runs.md, runs.csv and runs.tex: the same columns in the same order
    for c in DEMO:
        md = (demo / c / "tables/runs.md").read_text()
        head = next(line for line in md.splitlines() if line.startswith("| Run "))
        cols = [x.strip() for x in head.strip("|").split("|")]
        assert len(pl.read_csv(demo / c / "tables/runs.csv").columns) == len(cols), c
        assert " & ".join(cols) in (demo / c / "tables/runs.tex").read_text(), c
        assert not any(x.startswith("c@1 ") for x in cols), c  # per topic: its own table
        assert not re.search(r"\*\*Table [a-z_]+\.\*\*", md), c  # titled in words
    assert (demo / "qa4mre2013/tables/runs_by_topic.md").is_file()
    # the comparison tables, and the baseline's where the campaign names one
    for ext in ("md", "tex", "html", "csv"):
        assert (demo / "trec2004/tables" / f"baseline.{ext}").is_file()
        assert (demo / "trec2002/tables" / f"comparison.{ext}").is_file()
    assert not (demo / "trec2002/tables/baseline.md").exists()


def test_make_report_writes_snakemakes_report_at_its_default_path(demo):
    """`make report` after the demo (the README's command, no REPORT given):
    Snakemake's own report lands at results-demo/report.html (the Makefile's
    default; it used to be lost to an `export` before its `?=`).  It is removed
    again: the shared demo outdir is compared
    file by file with another run."""

    from workflow_util import MAKE, ROOT, env

    target = demo / "report.html"
    try:
        res = bounded_run([MAKE or "make", "-f", ROOT / "Makefile", "report",
                           "CONFIG=config/config.yaml"], cwd=demo.parent, timeout=900,
                          environ={k: v for k, v in env().items() if k != "REPORT"})
        assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
        assert target.is_file() and target.stat().st_size > 100_000
    finally:
        target.unlink(missing_ok=True)
