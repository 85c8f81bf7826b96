"""The "Designing the next campaign" part of a campaign's report, assembled
from the campaign's ``reliability/design_<m>.parquet`` (the sizes of every
method), ``design_<m>_curve.parquet`` and ``design_<m>_diagnostics.parquet``
(``qacamp reliability design``; pure: frames in, tables, a figure and the
page's context out; used when the files are present).

- one table (:func:`design_table`): per measure, each method, its
  requirement and assumption, the units it needs (with the range the
  intervals of E(rho^2) and Phi imply) and where this campaign stands; a
  measure that is not a mean of per-unit values (c@1, CWS, PAN's measures)
  has only the swap method's row, and a note says why;
- one figure (:func:`design_figure`) for the design measure (the headline
  measure when it has per-unit values, else the first measure of the plan
  that has): E(rho^2) and Phi with their intervals and the swap error rate
  of the same difference against the number of units, the campaign's size
  marked;
- one sentence stating the answer with its assumptions (:func:`answer_sentence`);
- the units to re-check (:func:`recheck_table`): unit, its text, its gold
  answer or key, difficulty, discrimination, flag; each row anchored
  (``<unit>-<id>``) and linked from its id and from the sentence naming it.

Words by kind: the campaign's unit (questions; PAN's problems; trec-series'
series; a score matrix's topics), and for QA4MRE the reading tests the
questions make.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import polars as pl

from ....measures import label
from ...campaign import Campaign
from ...figures.base import plural
from ...html import figure_view, table_view
from ...tables import Table, cap
from ..record import Section
from .figure import design_figure
from .tables import anchor, count_text, design_table, needed_range, recheck_table

#: flagged units named in the re-check sentence at most
NAMED = 8


def frames(c: Campaign, suffix: str = "") -> dict[str, pl.DataFrame]:
    """measure -> its ``design_<m><suffix>.parquet`` (measures with one)."""
    out = {}
    for m in (c.measures if c.reliability else []):
        df = c.optional_frame("reliability", f"design_{m}{suffix}.parquet")
        if df is not None:
            out[m] = df
    return out


def design_measure(c: Campaign, sizes: Mapping[str, pl.DataFrame]) -> str | None:
    """The measure of the figure, the sentence and the re-check table: the
    headline when generalizability theory answered for it, else the first
    measure of the plan that it answered for."""
    for m in [c.headline, *c.measures]:
        df = sizes.get(m)
        if df is not None and df.filter((pl.col("method") == "erho2")
                                        & pl.col("at_campaign").is_not_null()).height:
            return m
    return None


def _reading_tests(c: Campaign, n: int | None) -> str:
    """QA4MRE: " (K reading tests of M questions)" for ``n`` questions."""
    per = (c.meta.get("options") or {}).get("main_questions")
    if not c.spec.reading_tests or n is None or not per:
        return ""
    return f" ({math.ceil(n / per):,} reading tests of {per})"


def answer_sentence(c: Campaign, m: str, sizes: pl.DataFrame) -> str:
    """The answer with its assumptions, in one sentence."""
    r = {x["method"]: x for x in sizes.iter_rows(named=True)}
    units = plural(c.unit)
    g, p, s = r["erho2"], r["phi"], r["swap"]

    def needed(row, tests: bool = False) -> str:
        if row["n_units"] is None:
            return f"no size ({row['reason']})"
        return count_text(row["n_units"]) + (f" {units}{_reading_tests(c, row['n_units'])}"
                                         if tests else "")

    def span(row) -> str:
        rng = needed_range(row)
        return f", {rng} within the interval" if rng else ""

    d = s["difference"]
    why = ("the swap method's required difference" if s["difference_source"].startswith(
        "the swap") else "set in the config" if s["difference_source"].startswith("set")
        else "the default")
    return (f"With {g['campaign_units']:,} {units} and {g['n_runs']:,} runs, {label(m)} "
            f"reaches E(\u03c1\u00b2) {g['at_campaign']:.3f} and \u03a6 {p['at_campaign']:.3f}; "
            f"for {g['target']:g} the next campaign needs {needed(g, True)} by "
            f"E(\u03c1\u00b2){span(g)}, and {needed(p)} by \u03a6{span(p)} "
            f"({g['confidence']:.0%} intervals); to tell apart a difference of {d:.2f} ({why}) "
            f"it needs {needed(r['t-test'])} for a paired t-test (alpha "
            f"{r['t-test']['alpha']:g}, power {r['t-test']['power']:.2f}), "
            f"{needed(r['anova'])} for a one-way ANOVA over "
            f"{g['n_runs']:,} runs, {needed(r['ci'])} for a "
            f"{1 - r['ci']['alpha']:.0%} interval no wider than {r['ci']['difference']:.2f}, "
            f"and {needed(s)} by the swap method \u2014 assuming runs and {units} are random "
            f"samples with normal, additive effects, and a next campaign whose runs and "
            f"{units} vary like these.")


def frames_reasons(sizes: Mapping[str, pl.DataFrame], method: str) -> list[str]:
    """The reasons ``method`` gives no size, per measure."""
    return [r for df in sizes.values() for r in df.filter(
        (pl.col("method") == method) & pl.col("n_units").is_null())["reason"].to_list() if r]


def design_tables(c: Campaign) -> list[Table]:
    sizes = frames(c)
    if not sizes:
        return []
    table = design_table(c, sizes)
    out = [table] if table.frame.height else []
    m = design_measure(c, sizes)
    items = frames(c, "_diagnostics").get(m) if m else None
    if items is not None and items.height:
        out.append(recheck_table(c, m, items))
    return out


def design_figures(c: Campaign) -> dict:
    sizes = frames(c)
    m = design_measure(c, sizes)
    if m is None:
        return {}
    curve = c.rel(f"design_{m}_curve.parquet")
    return {f"design_{m}": design_figure(curve, sizes[m], m, c.unit)}


def _recheck_part(c: Campaign, m: str | None, tables: Mapping[str, Table]) -> dict:
    units = plural(c.unit)
    t = tables.get("design_recheck")
    if m is None:
        return {"title": f"{cap(units)} to re-check", "table": None, "anchors": [],
                "lead": f"No {c.unit} diagnostics: no measure of this campaign is a mean of "
                        f"per-{c.unit} values (difficulty and discrimination need one).",
                "links": [], "tail": ""}
    title = f"{cap(units)} to re-check ({label(m)})"
    if t is None or not t.frame.height:
        return {"title": title, "table": None, "anchors": [], "links": [], "tail": "",
                "lead": f"No {c.unit} is flagged: some run scored on every {c.unit}, no "
                        f"{c.unit} gave every run full credit, and none discriminates "
                        "negatively."}
    f = t.frame
    counts = {k: f.filter(pl.col("flag").str.contains(k)).height for k in
              ("negative discrimination", "no run right", "every run right")}
    parts = [f"{n:,} with {k}" if k.startswith("negative")
             else f"{n:,} that {k.replace('right', 'got right')}" for k, n in counts.items() if n]
    ids = f["unit"].to_list()
    links = [{"id": u, "anchor": anchor(c.unit, u)} for u in ids[:NAMED]]
    more = f" and {len(ids) - NAMED:,} more" if len(ids) > NAMED else ""
    return {"title": title, "table": table_view(t), "anchors": [anchor(c.unit, u) for u in ids],
            "lead": f"{len(ids):,} {plural(c.unit, len(ids))} to re-check before publishing "
                    f"({'; '.join(parts)}), strongest suspicion first: ",
            "links": links, "tail": f"{more}."}


def design_section(c: Campaign, tables: Mapping[str, Table],
                   figures: Mapping[str, bytes]) -> dict | None:
    sizes = frames(c)
    if not sizes:
        return None
    m = design_measure(c, sizes)
    sentences, figure = [], None
    if m is not None:
        sentences.append(answer_sentence(c, m, sizes[m]))
        figure = figure_view(
            f"design_{m}", figures, f"Reliability of {label(m)} against the number of "
            f"{plural(c.unit)}",
            f"E(\u03c1\u00b2) and \u03a6 of {label(m)} with their intervals, and the swap "
            f"method's error rate of the same difference, against the number of "
            f"{plural(c.unit)}; the vertical line marks this campaign's size, the markers "
            "the sizes each method needs.")
    else:
        names = ", ".join(label(x) for x in sizes)
        swap = ("the swap method's answer is in the table" if "design" in tables else
                "the swap method gives none either: "
                + "; ".join(dict.fromkeys(r for r in frames_reasons(sizes, "swap"))))
        sentences.append(f"None of the measures ({names}) is a mean of per-{c.unit} values, so "
                         f"generalizability theory, the topic set sizes and the {c.unit} "
                         f"diagnostics do not apply; {swap}.")
    return {"sentences": sentences, "figure": figure,
            "tables": [table_view(tables["design"])] if "design" in tables else [],
            "recheck": _recheck_part(c, m, tables), "notes": []}


SECTION = Section("design", "Designing the next campaign", "design", "design.html.j2",
                  design_tables, design_figures, design_section)

__all__ = ["SECTION", "anchor", "answer_sentence", "design_figure", "design_figures",
           "design_measure", "design_section", "design_table", "design_tables", "frames",
           "recheck_table"]
