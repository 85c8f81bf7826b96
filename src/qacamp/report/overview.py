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

import re
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
    split_warnings,
    stability_sentence,
    swap_conclusion,
    swap_method,
    too_few_runs,
)
from .figures.base import plural
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


def swap_caption(m: str, row: dict, unit: str) -> str:
    """The page's caption of a measure's swap figure, by its mode (the observed
    mode draws the error rate against the difference at one subset size);
    the method is said once, in the section's method note."""
    if row.get("mode") == "observed":
        return (f"Swap method, {label(m)}: the swap rate of each 0.01-wide score-difference "
                f"bin at subsets of c = {row.get('observed_at')} {plural(unit)} against the "
                "difference (the bin's lower edge), the error level dotted and the deciding "
                "bin circled (method: see the note at the head of this section).")
    return (f"Swap method, {label(m)}: error rate against subset size, one colour per "
            "0.01-wide score-difference bin up to the one the required difference is read "
            "from; points observed, solid curves fitted, dashed extrapolated to the full "
            "collection (method: see the note at the head of this section).")


def weak_campaign(c: Campaign, rows: Mapping[str, dict]) -> bool:
    """Every measure has fewer runs than the swap method's weak-evidence
    threshold: the page's reliability part is one short section."""
    return bool(rows) and all(too_few_runs(r) for r in rows.values())


def weak_sentence(rows: Mapping[str, dict]) -> str:
    row = next(iter(rows.values()))
    n = row.get("n_runs")
    few = split_warnings(row)[0] or ""
    least = re.search(r"fewer than (\d+) runs", few)
    counts = (f"{int(n)} runs ({int(n) * (int(n) - 1) // 2:,} run pairs)" if n is not None
              else "few runs")
    below = f"below {least.group(1)} runs" if least else "with so few runs"
    return (f"Too few runs to estimate a required difference: the campaign has {counts}, and "
            f"{below} the swap method's error rates are weak evidence (docs/reliability.md). "
            "No difference is called reliable by the swap method, and its figures and "
            "summary table are left out of this page (their files are under reliability/ "
            "and figures/); the significance tests below do not need many runs.")


def reliability_section(c: Campaign, tables: dict, figures: Mapping[str, bytes]) -> dict:
    """The swap method's method note (once), then per measure its sentence and
    figure, the summary tables and stability; weak-evidence warnings are said
    once per measure, in the sentence or the note under it, and the Warnings
    section only names the measures concerned.  A campaign with fewer runs than
    the weak-evidence threshold gets one short paragraph instead of the swap
    method's figures and tables."""
    measures, weak_measures = [], []
    decimals = score_decimals(c.kind)
    rows, counts = {}, {}
    for m in c.measures:
        summary = c.rel(f"swap_{m}_summary.parquet")
        rows[m] = summary.row(0, named=True) if summary.height else {"measure": m}
        counts[m] = c.rel(f"swap_{m}.parquet")
    weak = weak_campaign(c, rows)
    for m in c.measures:
        row = rows[m]
        bsum = c.optional_frame("reliability", f"bootstrap_{m}_summary.parquet")
        boot = bootstrap_sentence(
            m, c.rel(f"bootstrap_{m}.parquet"),
            bsum.row(0, named=True) if bsum is not None and bsum.height else None,
            decimals=decimals)
        if weak:
            continue
        sentence, note = swap_conclusion(row, c.unit, counts[m], method=False)
        if row.get("warning"):
            weak_measures.append(label(m))
        measures.append({"measure": m, "label": label(m), "title": cap(label(m)),
                         "sentences": [x for x in (sentence, boot) if x], "weak": note,
                         "figure": figure_view(f"swap_{m}", figures,
                                               f"Swap-method error rates of {label(m)}",
                                               swap_caption(m, row, c.unit))})
    notes = []
    if weak_measures:
        notes.append("Weak evidence in the swap method for " + ", ".join(weak_measures)
                     + ": see each measure's sentence and note under Reliability.")
    elif weak:
        notes.append("Too few runs for the swap method to estimate a required difference: "
                     "see Reliability.")
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
                     "figure": None if weak else figure_view(
                         "stability", figures, "Error rate against proportion of ties",
                         caption)}
    views = []
    for n in ("bootstrap",) if weak else ("swap_summary", "bootstrap"):
        if n in tables and tables[n].frame.height:
            t = tables[n]
            if n == "swap_summary":  # its weak-evidence notes are said by the sentences
                t = replace(t, notes=tuple(x for x in t.notes
                                           if not x.startswith(WEAK_NOTE_PREFIX)))
            views.append(table_view(t))
    method = "" if weak else swap_method(rows, counts, c.unit)
    return {"measures": measures, "stability": stability, "notes": notes, "tables": views,
            "sections": [], "method": method, "weak": weak_sentence(rows) if weak else None}


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
             if n in tables and tables[n].frame.height]
    # every run per topic: long, and what the figure and the summary above show
    # at a glance, so folded (its files are in tables/)
    more = [table_view(tables[n]) for n in ("runs_by_topic",)
            if n in tables and tables[n].frame.height]
    return {"tables": views, "figures": figs, "more": more}


def agreement_section(c: Campaign, tables: dict) -> dict:
    sentences = []
    kendall = c.optional_frame("reliability", "kendall.parquet")
    if kendall is not None and kendall.height and {"ranking_a", "ranking_b", "tau"} <= \
            set(kendall.columns):
        sentences += kendall_sentences(kendall, c.judgment_set)
    if "agreement" in tables:
        sentences.append(agreement_sentence(c.rel("agreement.parquet")))
    return {"sentences": [s for s in sentences if s],
            "tables": [table_view(tables[n]) for n in ("kendall", "agreement")
                       if n in tables and tables[n].frame.height]}


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


#: the page's sections in order: anchor, title (numbered as present)
PAGE_SECTIONS = (("campaign", "The campaign"), ("results", "Results"),
                 ("breakdowns", "Breakdowns"), ("reliability", "Reliability of the comparisons"),
                 ("agreement", "Agreement between rankings and assessors"),
                 ("warnings", "Warnings"), ("provenance", "Provenance"))


def contents(present: Mapping[str, bool], subsections: Mapping[str, list[dict]]) -> list[dict]:
    """The page's contents: the sections present, numbered in order (the
    headings carry the same numbers), with their subsections."""
    out = []
    for anchor, title in PAGE_SECTIONS:
        if present.get(anchor):
            out.append({"anchor": anchor, "title": title, "number": len(out) + 1,
                        "sub": list(subsections.get(anchor, []))})
    return out


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
    breakdowns = breakdown_section(c, tables, figures)
    agreement = agreement_section(c, tables) if c.reliability else None
    prov = provenance(c)
    toc = contents({"campaign": True, "results": True,
                    "breakdowns": bool(breakdowns["tables"] or breakdowns["figures"]
                                       or breakdowns["more"]),
                    "reliability": rel is not None,
                    "agreement": bool(agreement and agreement["tables"]),
                    "warnings": True, "provenance": prov is not None},
                   {"reliability": [{"anchor": s["anchor"], "title": s["title"]}
                                    for s in (rel["sections"] if rel else [])]})
    return {
        "name": c.name, "title": c.meta.get("title") or c.name, "index_href": index_href,
        "facts": info, "best": best, "main_measure": c.headline_label,
        "results": results_tables,
        "breakdowns": breakdowns,
        "reliability": rel,
        "agreement": agreement,
        "warnings": warnings_list(c, rel["notes"] if rel else []),
        "provenance": prov,
        # the heading numbers of the sections present (0: absent)
        "toc": toc, "number": {a: next((s["number"] for s in toc if s["anchor"] == a), 0)
                               for a, _ in PAGE_SECTIONS},
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
