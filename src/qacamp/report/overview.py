"""What the campaign overview page says, in the order of an overview paper
(pure: a :class:`~.campaign.Campaign`'s frames and the figures' PNG bytes in,
the template's context out).

1. the campaign: kind, edition, questions, runs, judgment sets, what was
   dropped and why;
2. the run table (sortable on the page);
3. breakdowns per question type, topic, series, reading test;
4. reliability: per measure the swap method's conclusion in a sentence with
   its figure, the Table 2 summary, discriminative power, stability vs
   discrimination, and the analyses' sections (:mod:`.sections`; significance:
   the test's sentence and p-value matrix per measure, the letters of runs
   that cannot be told apart, the agreement of the analyses);
5. agreement: Kendall tau between rankings, assessor disagreement;
6. warnings: ingest warnings (truncated answers, low coverage ...), weak
   evidence of the swap method, automatic judgments, dropped units;
7. provenance from ``manifest.json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import polars as pl

from ..measures import label
from .build import build_tables
from .campaign import Campaign
from .conclusions import (
    agreement_sentence,
    bootstrap_sentence,
    kendall_sentences,
    stability_sentence,
    swap_conclusion,
)
from .figures.base import plural
from .figures.swap import swap_footnote
from .html import figure_view, table_view
from .sections import SECTIONS
from .tables import BLOCK_BASELINES, cap, score_decimals
from .tables.reliability import WEAK_NOTE_PREFIX

AUTOMATIC_SET = "automatic"


def main_measure(c: Campaign) -> str:
    """The measure the run table is sorted by (:attr:`.campaign.Campaign.headline`)."""
    return c.headline


def units_text(c: Campaign) -> tuple[str, str] | None:
    """(label, value) of the campaign's size: its questions by type (QA4MRE:
    main questions, and the auxiliary ones scored apart), PAN's problems, a
    score matrix's units (150 topics)."""
    n = c.n_units()
    if n is None:
        return None
    if c.spec.family == "matrix":
        return cap(plural(c.unit)), f"{n:,} (the rows of the score matrix)"
    name = cap(plural(c.unit)) if c.unit == "problem" else "Questions"
    aux = c.auxiliary_questions()
    if aux:
        main = n - aux
        return name, (f"{n:,}: {main:,} main questions, which c@1 and every score of the "
                      f"run table are over, and {aux:,} auxiliary questions, scored apart "
                      "(question type 'auxiliary' in the breakdowns)")
    questions = c.questions()
    by_type = []
    if questions is not None and questions.height and "qtype" in questions.columns:
        counts = questions.group_by("qtype").len().sort("qtype")
        by_type = [(str(t), int(k)) for t, k in counts.iter_rows()]
    if len(by_type) > 1:
        return name, f"{n:,} (" + ", ".join(f"{t} {k:,}" for t, k in by_type) + ")"
    if by_type:
        return name, f"{n:,} (all {by_type[0][0]})"
    return name, f"{n:,}"


def facts(c: Campaign, run_table) -> dict:
    """The campaign section: kind, edition, questions by type, runs, judgment sets, dropped."""
    options = c.meta.get("options") or {}
    blocks = run_table.frame["block"].to_list()
    n_base = sum(b == BLOCK_BASELINES for b in blocks)
    dropped = c.dropped()
    drops = [{"scope": r["scope"], "unit": r["unit"], "reason": r["reason"]}
             for r in dropped.sort("scope", "unit").to_dicts()]
    sets = list(c.meta.get("judgment_sets") or c.judgment_sets)
    if AUTOMATIC_SET in c.judgment_sets and AUTOMATIC_SET not in sets:
        sets.append(AUTOMATIC_SET)
    size = units_text(c)
    matrix = c.spec.family == "matrix"
    return {
        "kind": c.kind, "kind_name": c.kind_title,
        "edition": options.get("edition") or options.get("year"),
        "size": size, "unit": c.unit,
        "measure": label(c.measure_name) if matrix else None,
        "runs": len(blocks) - n_base, "baselines": n_base,
        # a score matrix has no judgment sets: its one "set" names its column of scores
        "judgment_sets": [] if matrix else sets, "primary": None if matrix else c.judgment_set,
        "dropped": drops,
    }


def reliability_section(c: Campaign, tables: dict, figures: Mapping[str, bytes]) -> dict:
    """Per measure: sentence, swap figure with its caption; then the tables.
    Each weak-evidence warning is said once per measure: in the sentence
    (too few runs: no required difference at all; higher bins above the
    level: flagged) or the note under it; the Warnings section only names the
    measures concerned, and the summary table on the page drops its copies."""
    measures, weak_measures = [], []
    decimals = score_decimals(c.kind)
    for m in c.measures:
        summary = c.rel(f"swap_{m}_summary.parquet")
        counts = c.rel(f"swap_{m}.parquet")
        fits = c.rel(f"swap_{m}_fits.parquet")
        row = summary.row(0, named=True) if summary.height else {"measure": m}
        sentence, weak = swap_conclusion(row, c.unit, counts)
        sentences = [sentence]
        bsum = c.optional_frame("reliability", f"bootstrap_{m}_summary.parquet")
        sentences.append(bootstrap_sentence(
            m, c.rel(f"bootstrap_{m}.parquet"),
            bsum.row(0, named=True) if bsum is not None and bsum.height else None,
            decimals=decimals))
        caption = (f"Swap method, {label(m)}: error rate (swaps / comparisons over pairs of "
                   f"runs scored on two disjoint random subsets) against subset size, one "
                   f"colour per 0.01-wide score-difference bin, every bin up to the one the "
                   f"required difference is read from. " + swap_footnote(fits, summary, warning=False))
        if row.get("warning"):
            weak_measures.append(label(m))
        measures.append({"measure": m, "label": label(m), "title": cap(label(m)),
                         "sentences": [s for s in sentences if s], "weak": weak,
                         "figure": figure_view(f"swap_{m}", figures,
                                           f"Swap-method error rates of {label(m)}", caption)})
    notes = []
    if weak_measures:
        notes.append("Weak evidence in the swap method for " + ", ".join(weak_measures)
                     + ": see each measure's sentence and note in section 4.")
    stability = None
    if c.measures:
        frames = {m: c.rel(f"stability_{m}.parquet") for m in c.measures}
        size = next((int(df["size"][0]) for df in frames.values()
                     if "size" in df.columns and df.height), None)
        caption = ("Stability versus discrimination (Penas & Rodrigo 2011, Figure 2): for "
                   "each measure the error rate (decisions contradicting the majority over "
                   "the trials) against the proportion of ties as the fuzziness f grows"
                   + (f", on subsets of {size} {plural(c.unit, size)}" if size else "") + ".")
        stability = {"sentence": stability_sentence(frames),
                     "figure": figure_view("stability", figures, "Error rate against "
                                       "proportion of ties", caption)}
    views = []
    for n in ("swap_summary", "bootstrap"):
        if n in tables:
            t = tables[n]
            if n == "swap_summary":  # its weak-evidence notes are said by the sentences
                t = replace(t, notes=tuple(x for x in t.notes
                                           if not x.startswith(WEAK_NOTE_PREFIX)))
            views.append(table_view(t))
    return {"measures": measures, "stability": stability, "notes": notes, "tables": views,
            "sections": []}


def breakdown_section(c: Campaign, tables: dict, figures: Mapping[str, bytes]) -> dict:
    figs = []
    if "series" in c.spec.figures:
        figs.append(figure_view("series_boxplot", figures, "Per-series scores",
                            "Per-series score of every participants' run, one box per series "
                            "(Voorhees 2005, Figure 3); series without a score are named "
                            "under the plot."))
        top = min(TOP_RUNS, participants(c))
        best = "the best run" if top == 1 else f"the {number_words(top)} best runs"
        figs.append(figure_view("top_runs", figures, "Top runs",
                            f"Average per-series score of {best} (Voorhees 2005, Figure 2)."))
    if "reading_tests" in c.spec.figures:
        threshold = (c.meta.get("options") or {}).get("pass_threshold", 0.5)
        figs.append(figure_view("reading_tests", figures, "c@1 per reading test and topic",
                            "c@1 of every participants' run per reading test (left, coloured "
                            f"by topic) and per topic (right), with the pass mark {threshold}."))
    views = [table_view(tables[n]) for n in ("by_qtype", "by_topic", "distributions")
             if n in tables]
    return {"tables": views, "figures": figs}


def agreement_section(c: Campaign, tables: dict) -> dict:
    sentences = []
    kendall = c.optional_frame("reliability", "kendall.parquet")
    if kendall is not None and kendall.height and {"ranking_a", "ranking_b", "tau"} <= \
            set(kendall.columns):
        sentences += kendall_sentences(kendall, c.judgment_set)
    if "agreement" in tables:
        sentences.append(agreement_sentence(c.rel("agreement.parquet")))
    return {"sentences": [s for s in sentences if s],
            "tables": [table_view(tables[n]) for n in ("kendall", "agreement") if n in tables]}


def warnings_list(c: Campaign, reliability_notes: list[str]) -> list[str]:
    out = []
    w = c.warnings()
    if w is not None and w.height:
        for r in w.to_dicts():
            where = " ".join(str(x) for x in (r.get("file"), r.get("place")) if x)
            count = f" ({r['count']:,} cases)" if r.get("count") and r["count"] > 1 else ""
            out.append(f"Ingest ({r.get('kind')}): {r.get('message')}{count}"
                       + (f" [{where}]" if where else ""))
    if AUTOMATIC_SET in c.judgment_sets:
        used = " The run table uses them." if c.judgment_set == AUTOMATIC_SET else ""
        out.append("Automatic judgments: the judgment set 'automatic' was made by matching "
                   "the answer patterns, not by assessors." + used)
    dropped = c.dropped()
    if dropped.height:
        per = dropped.group_by("scope").len().sort("scope")
        out.append("Dropped from scoring: " + ", ".join(
            f"{n} {plural(s, n)}" for s, n in per.iter_rows()) + " (see The campaign).")
    out += reliability_notes
    return out


def provenance(c: Campaign) -> dict | None:
    m = c.manifest()
    if m is None:
        return None
    plan = m.get("reliability_plan") or {}
    return {"git_commit": m.get("git_commit"), "versions": sorted((m.get("versions") or
                                                                   {}).items()),
            "seed": plan.get("seed"), "shards": m.get("shards"),
            "measures": [label(x) for x in plan.get("measures") or []],
            "inputs": [(i.get("path"), i.get("sha256")) for i in m.get("inputs") or []]}


#: runs in the top-runs figure (Voorhees 2005, Figure 2: the ten best)
TOP_RUNS = 10
_NUMBERS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
            "ten")


def number_words(n: int) -> str:
    return _NUMBERS[n] if 0 <= n < len(_NUMBERS) else f"{n:,}"


def participants(c: Campaign) -> int:
    """Participants' runs (baselines excluded) of the reported judgment set."""
    from ..names import is_baseline

    runs = c.runs.filter((pl.col("judgment_set") == c.judgment_set)
                         & (pl.col("scope") == "all"))["run"].unique().to_list()
    return sum(not is_baseline(r) for r in runs)


def best_run(c: Campaign, frame: pl.DataFrame) -> dict | None:
    """The best participants' run of a run-table frame by the main measure,
    its value in the campaign's score format."""
    main = main_measure(c)
    top = frame.filter(pl.col("block") != BLOCK_BASELINES)
    if main not in top.columns or not top.height:
        return None
    r = top.row(0, named=True)
    if r.get(main) is None:
        return None
    return {"run": r["run"], "measure": c.headline_label,
            "value": f"{r[main]:.{score_decimals(c.kind)}f}"}


def campaign_context(c: Campaign, figures: Mapping[str, bytes],
                     index_href: str | None = None) -> dict:
    """Everything the campaign page shows (``templates/campaign.html.j2``)."""
    tables = build_tables(c)
    run_table = tables["runs"]
    info = facts(c, run_table)
    best = best_run(c, run_table.frame)
    results_tables = [table_view(run_table, sortable=True)]
    rel = reliability_section(c, tables, figures) if c.measures else None
    if rel is not None:
        for s in SECTIONS.values():
            part = s.page(c, tables, figures)
            if part is not None:
                rel["sections"].append({"name": s.name, "title": s.title, "anchor": s.anchor,
                                        "template": s.template, "page": part})
                rel["notes"] += part["notes"]
    return {
        "name": c.name, "title": c.meta.get("title") or c.name, "index_href": index_href,
        "facts": info, "best": best, "main_measure": c.headline_label,
        "results": results_tables,
        "breakdowns": breakdown_section(c, tables, figures),
        "reliability": rel,
        "agreement": agreement_section(c, tables) if c.reliability else None,
        "warnings": warnings_list(c, rel["notes"] if rel else []),
        "provenance": provenance(c),
    }


def index_row(c: Campaign, href: str) -> dict:
    """One campaign's line on the index page: what it is, its units (questions,
    problems, a score matrix's topics) and its best run."""
    from .build import campaign_run_table

    frame = campaign_run_table(c).frame
    part = frame.filter(pl.col("block") != BLOCK_BASELINES)
    best = best_run(c, frame)
    options = c.meta.get("options") or {}
    return {"name": c.name, "href": href, "title": c.meta.get("title") or c.name,
            "kind": c.kind, "edition": options.get("edition") or options.get("year") or "",
            "runs": part.height, "questions": c.n_units(), "unit": plural(c.count_unit),
            "measure": c.headline_label,
            "best_run": best["run"] if best else None,
            "best_value": best["value"] if best else None}


__all__ = ["campaign_context", "index_row", "main_measure"]
