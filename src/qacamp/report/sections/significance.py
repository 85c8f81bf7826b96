"""The "Significance" part of a campaign's report and the letters of runs
that cannot be told apart, assembled from the campaign's
``reliability/significance_<m>.parquet``, ``significance_<m>_summary.parquet``,
``equivalence_<m>.parquet`` and ``bootstrap_<m>.parquet`` (pure: frames in,
tables, figures and page context out; used when the files are present).

The section's record (:data:`SECTION`): :func:`run_table_with_letters` (the
run table gets the letter columns of its sort measure),
:func:`significance_tables`, :func:`significance_figures` and
:func:`significance_section` (the page's part, template
``significance.html.j2``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace

import polars as pl

from ...measures import label
from ...names import BASELINE_PREFIX
from .. import comparison as C
from ..campaign import Campaign
from ..figures.base import plural
from ..figures.significance import significance_matrix_figure
from ..formats import spreadsheet_safe
from ..html import figure_view, table_view
from ..tables import Table, cap, score_decimals, score_format
from ..tables.significance import (
    add_letters,
    adjacent_table,
    agreement_of_analyses_table,
    letters_table,
    oriented,
    significance_table,
    title_of_test,
)
from .record import Section


def summaries(c: Campaign) -> dict[str, dict]:
    """measure -> its significance summary row (measures with one)."""
    out = {}
    for m in c.measures:
        df = c.optional_frame("reliability", f"significance_{m}_summary.parquet")
        if df is not None and df.height:
            out[m] = df.row(0, named=True)
    return out


def letter_frames(c: Campaign) -> dict[str, pl.DataFrame]:
    out = {}
    for m in c.measures:
        df = c.optional_frame("reliability", f"equivalence_{m}.parquet")
        if df is not None and df.height and "letters" in df.columns:
            out[m] = df
    return out


def run_table_with_letters(c: Campaign, table: Table) -> Table:
    m = c.headline
    frames = letter_frames(c) if c.reliability else {}
    if m not in frames:
        return table
    return add_letters(table, frames[m], m, summaries(c).get(m))


def significance_tables(c: Campaign) -> list[Table]:
    if not c.reliability:
        return []
    out = []
    rows = summaries(c)
    sums = {m: c.rel(f"significance_{m}_summary.parquet") for m in rows}
    if sums:
        out.append(significance_table(sums, what=c.rel_path("significance_<m>_summary.parquet")))
        pairs = {m: c.rel(f"significance_{m}.parquet") for m in rows}
        if all("effect_size" in f.columns for f in pairs.values()):
            out.append(adjacent_table(pairs, {m: _runs_by_score(c, m) for m in rows}, rows,
                                      score_format(c.kind),
                                      what=c.rel_path("significance_<m>.parquet")))
    frames = letter_frames(c)
    if frames:
        out.append(letters_table(frames, summaries(c), what=c.rel_path("equivalence_<m>.parquet")))
        boot = {m: df for m in frames
                if (df := c.optional_frame("reliability", f"bootstrap_{m}.parquet")) is not None}
        out.append(agreement_of_analyses_table(frames, boot,
                                               what=c.rel_path("equivalence_<m>.parquet")))
    return out


def _runs_by_score(c: Campaign, m: str) -> list[str]:
    runs = c.runs.filter((pl.col("judgment_set") == c.judgment_set) & (pl.col("scope") == "all")
                         & (pl.col("measure") == m)
                         & ~pl.col("run").str.starts_with(BASELINE_PREFIX))
    return runs.sort(["value", "run"], descending=[True, False], nulls_last=True)["run"].to_list()


def significance_figures(c: Campaign) -> dict:
    figs = {}
    for m, row in (summaries(c) if c.reliability else {}).items():
        pairs = c.rel(f"significance_{m}.parquet")
        runs = _runs_by_score(c, m)
        if runs and row.get("test") is not None:
            figs[f"significance_{m}"] = significance_matrix_figure(pairs, runs, m, row)
    return figs


def significance_sentence(measure: str, row: Mapping, unit: str) -> str:
    """"With randomised Tukey HSD over 63 runs and 10,000 permutations, 1,204 of the
    1,953 pairs differ significantly at alpha 0.05 in series score." """
    title = title_of_test(row["test"])
    corr = row.get("correction")
    with_corr = f" with the {corr} correction" if corr and corr != "none" else ""
    perms = f" and {int(row['permutations']):,} permutations" if row.get("permutations") else ""
    text = (f"With {title}{with_corr} over {int(row['n_runs']):,} runs{perms} "
            f"({int(row['n_units']):,} {plural(unit)}), {int(row['significant_pairs']):,} of "
            f"the {int(row['pairs']):,} pairs differ significantly at alpha {row['alpha']:g} "
            f"in {label(measure)}.")
    f = row.get("anova_f")
    if f is not None and not (isinstance(f, float) and math.isnan(f)):
        p = row.get("anova_p")
        ptxt = "p < 0.001" if p is not None and p < 0.001 else f"p = {p:.3f}"
        text += f" The ANOVA's F for the runs is {f:.2f} ({ptxt})."
    if row.get("warning"):
        text += f" Warning: {row['warning']}."
    return text


def _short(method: str | None) -> str:
    """"percentile bootstrap, per pair" of "percentile bootstrap, 2,000 samples
    of the units (per pair)"; Tukey's interval stays "simultaneous"."""
    text = str(method or "")
    head = text.split(",")[0].split(" (")[0]
    return head + (", per pair" if "(per pair)" in text else "")


def difference_sentence(measure: str, pairs: pl.DataFrame, runs: list[str], row: Mapping,
                        decimals: int = 3) -> str:
    """The two best runs' difference with its interval and effect size: "In
    c@1, the best run, A, leads the second, B, by 0.012 (95% CI -0.020 to
    0.044, percentile bootstrap, per pair; effect size 0.15): not significant
    by randomised Tukey HSD (adjusted p = 0.41)." """
    if len(runs) < 2 or "effect_size" not in pairs.columns or not row.get("ci_method"):
        return ""
    r = oriented(pairs, runs[0], runs[1])
    if r is None:
        return ""
    f = f".{decimals}f"
    interval = ""
    if r["ci_lower"] is not None and r["ci_upper"] is not None:
        interval = (f"{100.0 * float(row.get('ci_level') or 0.95):g}% CI "
                    f"{r['ci_lower']:{f}} to {r['ci_upper']:{f}}, {_short(row['ci_method'])}")
    effect = ("effect size undefined: no residual variance" if r["effect_size"] is None
              else f"effect size {r['effect_size']:.2f}")
    verdict = "significant" if r["significant"] else "not significant"
    return (f"In {label(measure)}, the best run, {runs[0]}, leads the second, {runs[1]}, by "
            f"{r['diff']:{f}} ({'; '.join(x for x in (interval, effect) if x)}): {verdict} "
            f"by {title_of_test(row['test'])} (adjusted p = {r['p_adjusted']:.3g}).")


def letters_sentence(measure: str, frame: pl.DataFrame, row: Mapping | None,
                     where: str = "the tables below") -> str:
    parts = []
    for crit in frame["criterion"].unique(maintain_order=True).to_list():
        part = frame.filter(pl.col("criterion") == crit)
        n = part["n_indistinguishable"]
        by = "the swap method" if crit == "swap" else title_of_test(crit)
        parts.append(f"by {by}, a run cannot be told apart from {n.mean():.1f} other runs on "
                     f"average (at most {int(n.max())})")
    if not parts:
        return ""
    return (f"In {label(measure)}, " + "; ".join(parts) + f". Runs sharing a letter in "
            f"{where} cannot be distinguished.")


def page_letters(c: Campaign, frames: Mapping[str, pl.DataFrame]) -> Table | None:
    """The letters the run table does not show: those of the measures other than
    its headline, without a criterion that gives no letters (the swap method
    with too few runs); None when nothing is left."""
    others = {m: f for m, f in frames.items() if m != c.headline}
    if not others:
        return None
    table = letters_table(others, summaries(c), what=c.rel_path("equivalence_<m>.parquet"))
    empty = [k for k in ("swap", "test") if f"letters_{k}" in table.frame.columns
             and table.frame[f"letters_{k}"].null_count() == table.frame.height]
    if len(empty) == 2:
        return None
    drop = {f"{x}_{k}" for k in empty for x in ("letters", "n")}
    return replace(table, columns=tuple(col for col in table.columns if col.key not in drop),
                   notes=tuple(n for n in table.notes
                               if not any(f"letters {k}:" in n for k in empty)),
                   title="Letters of the other measures")


def comparison_frames(c: Campaign) -> dict[str, pl.DataFrame]:
    """The ranx-style comparison frames of the headline measure
    (:mod:`qacamp.report.comparison`): ``comparison`` (the runs each run beats
    significantly) and, when the campaign names a baseline run, ``baseline``
    (markers against it)."""
    m = c.headline
    if not c.reliability or m not in summaries(c):
        return {}
    runs = _runs_by_score(c, m)
    scores = c.runs.filter((pl.col("judgment_set") == c.judgment_set)
                           & (pl.col("scope") == "all") & (pl.col("measure") == m)
                           & pl.col("run").is_in(runs)).select("run", pl.col("value")
                                                                .alias("score"))
    out = {"comparison": C.beats_frame(c.rel(f"significance_{m}.parquet"), scores,
                                  what=c.rel_path(f"significance_{m}.parquet"))}
    base = c.optional_frame("reliability", f"significance_{m}_baseline.parquet")
    if base is not None and base.height:
        out["baseline"] = C.baseline_frame(base)
    return out


def comparison_texts(c: Campaign) -> dict[str, str]:
    """``comparison.md``/``.tex``/``.html``/``.csv`` (the runs each run beats) and,
    with a baseline run, ``baseline.*`` (markers against it): the tables system
    papers print, for the headline measure."""
    out = {}
    row = summaries(c).get(c.headline)
    for name, frame in comparison_frames(c).items():
        caption, notes = comparison_caption(c, name, frame, row)
        header = cap(label(c.headline))
        decimals = c.run_spec.decimals
        out[f"{name}.md"] = C.to_markdown(frame, header, caption, notes, decimals)
        out[f"{name}.tex"] = C.to_latex(frame, header, caption, notes, decimals,
                                        label=f"tab:{c.name}-{name}")
        out[f"{name}.html"] = C.to_html(frame, header, caption, notes, decimals)
        # (the run names neutralised; the marks are qacamp's: + and - against a baseline)
        out[f"{name}.csv"] = spreadsheet_safe(frame.select(
            "label", "run", "score", "marks", "baseline"), ["run"]).write_csv(
                None, float_precision=6)
    return out


def comparison_caption(c: Campaign, name: str, frame: pl.DataFrame,
                       row: Mapping | None) -> tuple[str, list[str]]:
    test = title_of_test(row["test"]) if row else "the significance test"
    alpha = float(row["alpha"]) if row else 0.05
    if name == "baseline":
        base = frame.filter(pl.col("baseline"))["run"][0]
        return (f"{cap(label(c.headline))} of every participants' run against the baseline "
                f"run {base}, best first.", [C.baseline_note(base, alpha, test)])
    return (f"{cap(label(c.headline))} of every participants' run, best first, labelled "
            "a, b, ... by rank; the superscripts name the runs it beats significantly.",
            [C.beats_note(alpha, test)])


def significance_section(c: Campaign, tables: Mapping[str, Table],
                         figures: Mapping[str, bytes]) -> dict | None:
    sums = summaries(c) if c.reliability else {}
    frames = letter_frames(c) if c.reliability else {}
    if not sums and not frames:
        return None
    measures = []
    for m in c.measures:
        if m not in sums:
            continue
        row = sums[m]
        sentences = [significance_sentence(m, row, c.unit)]
        runs = _runs_by_score(c, m)
        if runs:
            sentences.append(difference_sentence(m, c.rel(f"significance_{m}.parquet"), runs,
                                                 row, score_decimals(c.kind)))
        if m in frames:
            where = "the run table" if m == c.headline else "the table of the other measures' letters"
            sentences.append(letters_sentence(m, frames[m], row, where))
        # how to read it (one triangle, runs by score, blue: significant) is the
        # figure's own note: said once
        caption = (f"Adjusted p-values of every pair of participants' runs in {label(m)} "
                   f"({title_of_test(row['test'])}).")
        figure = None
        if f"significance_{m}" in figures:
            figure = figure_view(f"significance_{m}", figures,
                             f"Adjusted p-values of {label(m)} between runs", caption)
        measures.append({"measure": m, "title": label(m), "sentences": [s for s in sentences if s],
                         "figure": figure, "folded": m != c.headline,
                         "warning": row.get("warning")})
    notes = [f"Significance, {label(m)}: {r['warning']}." for m, r in sums.items()
             if r.get("warning")]
    views = [table_view(tables[n]) for n in ("significance", "analyses_agreement")
             if n in tables and tables[n].frame.height]
    letters = page_letters(c, frames)
    folded = [table_view(letters)] if letters is not None else []
    comparisons = []
    row = sums.get(c.headline)
    for name, frame in comparison_frames(c).items():
        caption, cnotes = comparison_caption(c, name, frame, row)
        html = C.to_html(frame, cap(label(c.headline)), caption, cnotes,
                         c.run_spec.decimals)
        comparisons.append({"name": name, "folded": name == "comparison",
                            "title": ("Against the baseline run" if name == "baseline"
                                      else "Runs each run beats"),
                            "html": html, "rows": frame.height})
    return {"measures": measures, "tables": views, "folded": folded, "notes": notes,
            "comparisons": comparisons}


SECTION = Section("significance", "Significance", "significance", "significance.html.j2",
                  significance_tables, significance_figures, significance_section,
                  run_table_with_letters, comparison_texts)

__all__ = ["SECTION", "comparison_frames", "comparison_texts", "difference_sentence",
           "page_letters", "letter_frames", "letters_sentence", "run_table_with_letters", "significance_figures",
           "significance_section", "significance_sentence", "significance_tables", "summaries"]
