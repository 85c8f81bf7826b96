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
import re
from collections.abc import Mapping

import polars as pl

from ...measures import label
from ..campaign import Campaign
from ..figures.base import LEVEL_COLOR, footnote, new_figure, plural, style
from ..html import figure_view, table_view
from ..tables import Column, Table, cap
from .record import Section

#: flagged units named in the re-check sentence at most
NAMED = 8
#: characters of a question's text or key shown at most
TEXT_CHARS = 100


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


def _short(text: object) -> str | None:
    if text is None:
        return None
    text = " ".join(str(text).split())
    return text if len(text) <= TEXT_CHARS else text[:TEXT_CHARS - 1] + "\u2026"


def _count(n: int | None) -> str:
    return "\u2013" if n is None else f"{n:,}"


# --------------------------------------------------------------------------- the sizes

def _requirement(r: Mapping, units: str) -> str:
    m = r["method"]
    if m in ("erho2", "phi"):
        name = "E(rho^2)" if m == "erho2" else "Phi"
        return f"{name} at least {r['target']:g} ({r['confidence']:.0%} interval)"
    if m == "t-test":
        return f"d = {r['difference']:.2f}, alpha {r['alpha']:g}, power {r['power']:.2f}"
    if m == "anova":
        return (f"range {r['difference']:.2f} over {r['n_runs']} runs, alpha {r['alpha']:g}, "
                f"power {r['power']:.2f}")
    if m == "ci":
        return f"{1 - r['alpha']:.0%} interval of a difference no wider than {r['difference']:.2f}"
    return f"d = {r['difference']:.2f} with at most {r['level']:.0%} swaps"


def _at_campaign(r: Mapping) -> str | None:
    v = r["at_campaign"]
    if v is None:
        return None
    m = r["method"]
    if m in ("erho2", "phi"):
        return f"{v:.3f} [{r['at_campaign_lower']:.3f}, {r['at_campaign_upper']:.3f}]"
    if m in ("t-test", "anova"):
        return f"power {v:.2f}"
    if m == "ci":
        return f"expected width {v:.3f}"
    return f"swap error {v:.1%}"


def _range(r: Mapping) -> str | None:
    if r["method"] not in ("erho2", "phi") or r["n_units_lower"] is None:
        return None
    upper = "unbounded" if r["n_units_upper"] is None else f"{r['n_units_upper']:,}"
    return f"{r['n_units_lower']:,}-{upper}"


def design_table(c: Campaign, sizes: Mapping[str, pl.DataFrame]) -> Table:
    """The sizes of every method and measure (module docstring)."""
    units = plural(c.unit)
    rows, without, size = [], [], None
    for m, df in sizes.items():
        size = size or (df["campaign_units"][0] if df.height else None)
        values = df.filter(pl.col("method") == "erho2")["reason"].to_list()
        no_values = bool(values) and values[0] is not None and "not a mean" in values[0]
        if no_values:
            without.append(label(m))
        for r in df.iter_rows(named=True):
            if no_values and r["method"] != "swap":
                continue
            rows.append({"measure": m, "method": r["title"],
                         "requirement": _requirement(r, units), "assumption": r["assumption"],
                         "n_units": r["n_units"], "range": _range(r),
                         "at_campaign": _at_campaign(r),
                         "note": r["reason"] if r["n_units"] is None else None})
    notes = ["Range: the units needed by the bounds of the interval of E(rho^2) (Feldt) and "
             "Phi (Arteaga et al.); 'unbounded' where the lower bound of the coefficient is 0. "
             "d: the swap method's required difference of the measure (0.05 where it gives "
             "none), unless the config sets reliability.design.min_diff (docs/reliability.md, "
             "\"Designing the next campaign\")."]
    if without:
        notes.append(f"{', '.join(without)}: not a mean of per-{c.unit} values, so "
                     f"generalizability theory and the topic set sizes do not apply; only the "
                     "swap method's row is shown.")
    schema = {"measure": pl.Utf8, "method": pl.Utf8, "requirement": pl.Utf8,
              "assumption": pl.Utf8, "n_units": pl.Int64, "range": pl.Utf8,
              "at_campaign": pl.Utf8, "note": pl.Utf8}
    return Table("design", f"How many {units} the next campaign needs, by method: the "
                 f"requirement, its assumption, the {units} needed and where this campaign's "
                 + (f"{size:,} " if size else "") + f"{units} stand.",
                 pl.DataFrame(rows, schema=schema),
                 (Column("measure", "Measure", "measure"), Column("method", "Method", "text"),
                  Column("requirement", "Requirement", "text"),
                  Column("assumption", "Assumption", "text", width="0.3\\linewidth"),
                  Column("n_units", f"{cap(units)} needed", "int"),
                  Column("range", "Range", "text"),
                  Column("at_campaign", "This campaign", "text"),
                  Column("note", "Note", "text", width="0.2\\linewidth")),
                 notes=tuple(notes))


# --------------------------------------------------------------------------- re-check

def _keys(c: Campaign) -> dict[str, str]:
    """unit id -> its gold answer or key, from the campaign's ingest: the
    correct option (QA4MRE, PAN), the answer patterns (TREC factoid), the list
    key's instances, the Other question's nuggets."""
    out: dict[str, str] = {}
    opts = c.optional_frame("ingest", "options.parquet")
    if opts is not None and opts.height:
        for r in opts.filter(pl.col("correct").fill_null(False)).iter_rows(named=True):
            out[str(r["qid"])] = f"{r['option']}: {r['text']}" if r["text"] else r["option"]
    pats = c.optional_frame("ingest", "patterns.parquet")
    if pats is not None and pats.height:
        for q, ps in pats.group_by("qid", maintain_order=True).agg("pattern").iter_rows():
            out.setdefault(str(q), " | ".join(ps))
    key = c.optional_frame("ingest", "list_key.parquet")
    if key is not None and key.height:
        for q, xs in key.group_by("qid", maintain_order=True).agg("instance").iter_rows():
            out.setdefault(str(q), f"{len(xs)} instances: " + ", ".join(xs))
    nug = c.optional_frame("ingest", "nuggets.parquet")
    if nug is not None and nug.height:
        for q, n, v in nug.group_by("qid", maintain_order=True).agg(
                pl.len(), pl.col("vital").fill_null(False).sum()).iter_rows():
            out.setdefault(str(q), f"{n} nuggets ({v} vital)")
    return out


def _texts(c: Campaign) -> dict[str, str]:
    """unit id -> its text: a question's, or a series' question count."""
    q = c.questions()
    if q is None or not q.height:
        return {}
    if c.unit == "series" and "series" in q.columns:
        per = q.drop_nulls("series").group_by("series", maintain_order=True).agg(pl.len())
        return {str(s): f"{n} questions" for s, n in per.iter_rows()}
    return {str(i): t for i, t in zip(q["qid"], q["text"], strict=True) if t}


def anchor(unit: str, uid: str) -> str:
    """The page's anchor of a unit's row: ``question-1394``, ``series-7``."""
    return f"{unit}-" + re.sub(r"\s+", "_", str(uid))


def recheck_table(c: Campaign, m: str, items: pl.DataFrame) -> Table:
    """The flagged units of measure ``m`` (negative discrimination first)."""
    from ...reliability.design import flagged

    keys, texts = _keys(c), _texts(c)
    f = flagged(items)
    graded = items.height and (items["mean_value"] - items["difficulty"]).abs().max() > 1e-12
    frame = pl.DataFrame({
        "unit": f["unit"], "text": [_short(texts.get(u)) for u in f["unit"]],
        "key": [_short(keys.get(u)) for u in f["unit"]], "difficulty": f["difficulty"],
        "mean_value": f["mean_value"], "discrimination": f["discrimination"],
        "flag": f["flag"]}, schema={"unit": pl.Utf8, "text": pl.Utf8, "key": pl.Utf8,
                                    "difficulty": pl.Float64, "mean_value": pl.Float64,
                                    "discrimination": pl.Float64, "flag": pl.Utf8})
    cols = [Column("unit", cap(c.unit), "text"), Column("text", "Text", "text"),
            Column("key", "Gold answer or key", "text", width="0.25\\linewidth"),
            Column("difficulty", "Difficulty", "f2")]
    if graded:
        cols.append(Column("mean_value", "Mean value", "f3"))
    cols += [Column("discrimination", "Discrimination", "f3"), Column("flag", "Flag", "text")]
    units = plural(c.unit)
    notes = [f"Difficulty: the share of runs right (full credit); discrimination: the "
             f"correlation over the runs between a run's value on the {c.unit} and its score "
             f"on the other {units} (item-rest; point-biserial for right/wrong); "
             "negative discrimination: the strong runs fail where weak ones succeed, a likely "
             "key error or an ambiguous question (Bodoff 2008).  A dash: no key in the "
             "campaign's files, or no correlation (every run alike)."]
    return Table("design_recheck", f"{cap(units)} to re-check in {label(m)}: "
                 f"{f.height:,} of {items.height:,} flagged.", frame, tuple(cols),
                 notes=tuple(notes))


# --------------------------------------------------------------------------- the figure

def design_figure(curve: pl.DataFrame, sizes: pl.DataFrame, measure: str, unit: str):
    """E(rho^2) and Phi (lines, their intervals shaded) and the swap error rate
    of the difference d (dashed) against the number of units; the target and
    the error level (dotted), the campaign's size (vertical line), the sizes
    each method needs (markers)."""
    units = plural(unit)
    rows = {r["method"]: r for r in sizes.iter_rows(named=True)}
    g, swap = rows["erho2"], rows["swap"]
    n = int(g["campaign_units"])
    x = curve["n_units"].to_numpy()
    with style():
        fig, ax = new_figure(8.6, 4.6)
        for key, name, color in (("erho2", r"E($\rho^2$)", "#2166ac"),
                                 ("phi", r"$\Phi$", "#e08214")):
            ax.plot(x, curve[key].to_numpy(), "-", color=color, lw=1.6, label=name)
            ax.fill_between(x, curve[f"{key}_lower"].to_numpy(), curve[f"{key}_upper"].to_numpy(),
                            color=color, alpha=0.18, lw=0,
                            label=f"{name}: {g['confidence']:.0%} interval")
            need = rows[key]["n_units"]
            if need is not None and need <= x.max():
                ax.plot([need], [g["target"]], "o", color=color, ms=6,
                        label=f"{name} \u2265 {g['target']:g} at {need:,} {units}")
        d = swap["difference"]
        if curve["swap_error"].drop_nulls().len():
            ax.plot(x, curve["swap_error"].to_numpy(), "--", color="#1b7837", lw=1.4,
                    label=f"swap error rate, d \u2265 {d:.2f}")
            need = swap["n_units"]
            if need is not None and need <= x.max():
                ax.plot([need], [swap["level"]], "s", color="#1b7837", ms=6,
                        label=f"swap error \u2264 {swap['level']:.0%} at {need:,} {units}")
        ax.axhline(g["target"], color="0.35", lw=0.9, ls=":", label=f"target {g['target']:g}")
        if curve["swap_error"].drop_nulls().len():
            ax.axhline(swap["level"], color=LEVEL_COLOR, lw=0.9, ls=":",
                       label=f"{swap['level']:.0%} error level")
        ax.axvline(n, color="0.15", lw=1.0, ls="-.", label=f"this campaign: {n:,} {units}")
        ax.set_xlim(0, float(x.max()) * 1.02)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel(f"Number of {units}")
        ax.set_ylabel("Coefficient, or swap error rate")
        ax.set_title(f"Designing the next campaign, {label(measure)}:\nreliability and swap "
                     f"error against the number of {units}")
        fig.legend(*ax.get_legend_handles_labels(), loc="outside right upper", frameon=True)
        footnote(fig, "Generalizability theory (Brennan 2001): E(rho^2) with Feldt's exact "
                 "interval, Phi with Arteaga et al.'s approximate one.  Swap method (Voorhees "
                 "2003): the fitted error rate of the bin holding d"
                 + ("" if curve["swap_error"].drop_nulls().len()
                    else f" (not drawn: {swap['reason']})") + ".", width=150)
    return fig


# --------------------------------------------------------------------------- the page

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
        return _count(row["n_units"]) + (f" {units}{_reading_tests(c, row['n_units'])}"
                                         if tests else "")

    def span(row) -> str:
        rng = _range(row)
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


def design_tables(c: Campaign) -> list[Table]:
    sizes = frames(c)
    if not sizes:
        return []
    out = [design_table(c, sizes)]
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
                "lead": f"No {c.unit} is flagged: every {c.unit} was answered right by some "
                        f"run and not by all, and none discriminates negatively."}
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
        sentences.append(f"None of the measures ({names}) is a mean of per-{c.unit} values, so "
                         f"generalizability theory, the topic set sizes and the {c.unit} "
                         "diagnostics do not apply; the swap method's answer is in the table.")
    return {"sentences": sentences, "figure": figure,
            "tables": [table_view(tables["design"])] if "design" in tables else [],
            "recheck": _recheck_part(c, m, tables), "notes": []}


SECTION = Section("design", "Designing the next campaign", "design", "design.html.j2",
                  design_tables, design_figures, design_section)

__all__ = ["SECTION", "anchor", "answer_sentence", "design_figure", "design_figures",
           "design_measure", "design_section", "design_table", "design_tables", "frames",
           "recheck_table"]
