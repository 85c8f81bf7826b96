"""The tables of "Designing the next campaign": the sizes of every method and
measure (:func:`design_table`) and the units to re-check (:func:`recheck_table`,
with each unit's text and gold answer or key, and its page anchor
:func:`anchor`); pure, frames in, :class:`~qacamp.report.tables.Table` out."""

from __future__ import annotations

import re
from collections.abc import Mapping

import polars as pl

from ....measures import label
from ...campaign import Campaign
from ...figures.base import plural
from ...tables import Column, Table, cap

#: characters of a question's text or key shown at most
TEXT_CHARS = 100


def _short(text: object) -> str | None:
    if text is None:
        return None
    text = " ".join(str(text).split())
    return text if len(text) <= TEXT_CHARS else text[:TEXT_CHARS - 1] + "\u2026"


def count_text(n: int | None) -> str:
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


def needed_range(r: Mapping) -> str | None:
    if r["method"] not in ("erho2", "phi") or r["n_units_lower"] is None:
        return None
    upper = "unbounded" if r["n_units_upper"] is None else f"{r['n_units_upper']:,}"
    return f"{r['n_units_lower']:,}-{upper}"


def unanswered(sizes: Mapping[str, pl.DataFrame]) -> dict[str, list[str]]:
    """reason -> "method (measure)" of every method that gives no size."""
    out: dict[str, list[str]] = {}
    for m, df in sizes.items():
        for r in df.filter(pl.col("n_units").is_null()).iter_rows(named=True):
            out.setdefault(r["reason"] or "no size", []).append(f"{r['title']} ({label(m)})")
    return out


def design_table(c: Campaign, sizes: Mapping[str, pl.DataFrame]) -> Table:
    """The sizes of every method and measure that gives one (module docstring);
    the methods that give none are named under the table with their reason."""
    units = plural(c.unit)
    rows, size = [], None
    for m, df in sizes.items():
        size = size or (df["campaign_units"][0] if df.height else None)
        for r in df.filter(pl.col("n_units").is_not_null()).iter_rows(named=True):
            rows.append({"measure": m, "method": r["title"],
                         "requirement": _requirement(r, units), "assumption": r["assumption"],
                         "n_units": r["n_units"], "range": needed_range(r),
                         "at_campaign": _at_campaign(r)})
    notes = ["Range: the units needed by the bounds of the interval of E(rho^2) (Feldt) and "
             "Phi (Arteaga et al.); 'unbounded' where the lower bound of the coefficient is 0. "
             "d: the swap method's required difference of the measure (0.05 where it gives "
             "none), unless the config sets reliability.design.min_diff (docs/reliability.md, "
             "\"Designing the next campaign\")."]
    notes += [f"No size from {', '.join(which)}: {reason}."
              for reason, which in unanswered(sizes).items()]
    schema = {"measure": pl.Utf8, "method": pl.Utf8, "requirement": pl.Utf8,
              "assumption": pl.Utf8, "n_units": pl.Int64, "range": pl.Utf8,
              "at_campaign": pl.Utf8}
    return Table("design", f"How many {units} the next campaign needs, by method: the "
                 f"requirement, its assumption, the {units} needed and where this campaign's "
                 + (f"{size:,} " if size else "") + f"{units} stand.",
                 pl.DataFrame(rows, schema=schema),
                 (Column("measure", "Measure", "measure"), Column("method", "Method", "text"),
                  Column("requirement", "Requirement", "text"),
                  Column("assumption", "Assumption", "text", width="0.3\\linewidth"),
                  Column("n_units", f"{cap(units)} needed", "int"),
                  Column("range", "Range", "text"),
                  Column("at_campaign", "This campaign", "text")),
                 notes=tuple(notes), title=f"{cap(units)} needed")


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
    from ....reliability.design import flagged

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
                 notes=tuple(notes), title=f"{cap(units)} to re-check")


__all__ = ["TEXT_CHARS", "anchor", "count_text", "design_table", "needed_range",
           "recheck_table", "unanswered"]
