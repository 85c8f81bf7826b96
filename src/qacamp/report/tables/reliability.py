"""Reliability tables: the swap method's summary (Penas & Rodrigo 2011 Table
2), Kendall tau between rankings (Voorhees 2003 Table 3; Voorhees 2005),
assessor disagreement (Voorhees 2003 Table 2), the
paired bootstrap's discriminative power (Sakai 2006) and the per-type
distributions (Voorhees 2005).  Frames in, :class:`~.base.Table` out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import polars as pl

from ...errors import InputError
from ...measures import label
from .base import Column, Table, cap, pick, require_columns

SUMMARY_COLUMNS = ("measure", "full_size", "level", "required_difference", "size_reached",
                   "sensitivity", "n_pairs", "highest_score", "relative_difference", "mode",
                   "observed_at", "model", "min_fit_size", "n_comparisons", "warning")
_SUMMARY_TYPES = {"measure": pl.String, "full_size": pl.Int64, "level": pl.Float64,
                  "required_difference": pl.Float64, "size_reached": pl.Int64,
                  "sensitivity": pl.Float64, "n_pairs": pl.Int64, "highest_score": pl.Float64,
                  "relative_difference": pl.Float64, "mode": pl.String, "observed_at": pl.Int64,
                  "model": pl.String, "min_fit_size": pl.Int64, "n_comparisons": pl.Int64,
                  "warning": pl.String}
#: optional summary columns (the c@1 paper's "highest value" read over the subsets)
_SUBSET_COLUMNS = {"highest_subset_score": pl.Float64, "relative_difference_subsets": pl.Float64}


def _fit_method(rows: list[dict]) -> str:
    """How the extrapolated rows were fitted (one phrase per distinct setting)."""
    from ...reliability.curves import describe_model

    seen = dict.fromkeys((r["model"], r["min_fit_size"]) for r in rows)
    return "; ".join(f"{describe_model(m)}, on subset sizes >= {k}" for m, k in seen)


#: how the swap summary's weak-evidence notes start (the page says each warning
#: once, next to the measure's sentence, and leaves these notes out)
WEAK_NOTE_PREFIX = "Weak evidence ("


def swap_summary_table(summaries: Sequence[pl.DataFrame],
                       what: str = "swap_<measure>_summary.parquet",
                       score_fmt: str = "f3") -> Table:
    """Penas & Rodrigo 2011 Table 2 per measure: (i) absolute difference
    required at the error level (the LOWER edge of the first difference bin
    whose error rate is at most the level); (ii) highest full-collection run
    score; (iii) relative difference (i)/(ii); (iv) sensitivity.  How (i) and
    (iv) were read depends on the summary's ``mode``, and the caption says
    which: ``extrapolate`` - error rates fitted per bin (the fitting method is
    named) and extrapolated to the full collection, (iv) over the run pairs
    of the full collection; ``observed`` - swap rates observed at subsets of
    size ``observed_at``, no extrapolation, (iv) over the experiment's
    comparisons at that size (as the paper).  Also the subset size at which
    the level is reached (extrapolate mode) and the pairs or comparisons (iv)
    is a share of.  Weak-evidence warnings become notes.  Rows in the order
    given.  (i) is a bin edge, printed with two decimals like the sentences
    ("at least 0.05"); (ii) with ``score_fmt``, the campaign's score format.
    (iii) is empty where (ii) is not positive (a utility whose best run is
    negative: a share of it means nothing)."""
    frames = []
    for df in summaries:
        require_columns(df, SUMMARY_COLUMNS, what)
        extra = [pl.col(c).cast(t) if c in df.columns else pl.lit(None, t).alias(c)
                 for c, t in _SUBSET_COLUMNS.items()]
        frames.append(df.select(*[pl.col(c).cast(t) for c, t in _SUMMARY_TYPES.items()], *extra))
    if not frames:
        raise InputError(what, None, "no swap summaries", "run `qacamp reliability swap`")
    df = pl.concat(frames)
    rows = df.to_dicts()
    modes = list(dict.fromkeys(r["mode"] for r in rows))
    df = df.with_columns(
        pl.when(pl.col("mode") == "observed").then(pl.col("observed_at"))
        .otherwise(pl.col("full_size")).alias("size"),
        (100.0 * pl.col("relative_difference")).alias("relative_difference_pct"),
        (100.0 * pl.col("sensitivity")).alias("sensitivity_pct"),
        (100.0 * pl.col("level")).alias("level_pct"),
        (100.0 * pl.col("relative_difference_subsets")).alias("relative_difference_subsets_pct"))
    out = df.select("measure", "mode", "level_pct", "size", "full_size", "required_difference",
                    "highest_score", "relative_difference_pct", "sensitivity_pct",
                    "n_comparisons", "n_pairs", "size_reached", "model", "min_fit_size",
                    "highest_subset_score", "relative_difference_subsets_pct")
    size_header = {("extrapolate",): "Full size", ("observed",): "Subset size c"}.get(
        tuple(modes), "Size (full or c)")
    count_header = {("extrapolate",): "Pairs", ("observed",): "Comparisons"}.get(
        tuple(modes), "Pairs or comparisons")
    cols = [Column("measure", "Measure", "measure")]
    if len(modes) > 1:
        cols.append(Column("mode", "Mode", "text"))
    cols += [Column("level_pct", "Error level %", "pct1"), Column("size", size_header, "int"),
             Column("required_difference", "(i) Abs. difference", "f2"),
             Column("highest_score", "(ii) Highest score", score_fmt),
             Column("relative_difference_pct", "(iii) Rel. difference %", "pct1"),
             Column("sensitivity_pct", "(iv) Sensitivity %", "pct1"),
             Column("n_comparisons", count_header, "int")]
    if "extrapolate" in modes:
        cols.append(Column("size_reached", "Size reaching level", "int"))
    parts = ["Swap method (Penas & Rodrigo 2011, Table 2): (i) absolute difference "
             "required, the lower edge of the first difference bin whose error rate is at "
             "most the error level; (ii) highest score of a run on the full collection; "
             "(iii) relative difference (i)/(ii); (iv) sensitivity."]
    ext = [r for r in rows if r["mode"] == "extrapolate"]
    obs = [r for r in rows if r["mode"] == "observed"]
    method = []
    if ext:
        method.append(("Error" if len(modes) == 1 else "Mode extrapolate: error")
                     + " rates extrapolated to the full collection from curves "
                     f"{_fit_method(ext)}; (iv) is the share of run pairs on the full "
                     "collection whose difference reaches (i).")
    if obs:
        sizes = ", ".join(str(c) for c in dict.fromkeys(r["observed_at"] for r in obs))
        method.append(("Swap" if len(modes) == 1 else "Mode observed: swap")
                     + f" rates observed at subsets of c = {sizes}, no extrapolation and "
                     "no fitted curve, as in the paper; (iv) is the share of the experiment's "
                     "comparisons at c (run pairs x trials) whose difference reaches (i).")
    notes = ["A dash in (i): the error level is not reached."]
    notes += [f"{WEAK_NOTE_PREFIX}{label(r['measure'])}): {r['warning']}." for r in rows
              if r["warning"]]
    return Table("swap_summary", " ".join(parts), out, tuple(cols), notes=tuple(notes),
                 title="Swap method summary", method=" ".join(method))


def _variant_text(variant: str) -> str:
    return {"tau_a": "tau_a: (concordant - discordant pairs) / pairs, a pair tied in either "
                     "ranking counting 0 (the adjacent-swap distance of Voorhees 2003, averaged "
                     "over random orders of the tied runs; independent of run names)",
            "tau_b": "tau_b: tied pairs left out of the denominator, as scipy (identical "
                     "rankings correlate 1; independent of run names)",
            "tau_a_by_name": "tau_a_by_name: the adjacent-swap distance (Voorhees 2003) with "
                             "tied runs ordered by run name"}.get(variant, variant)


#: What a pair of rankings ``measure@set`` compares, and the source that
#: compares such rankings: judgment sets with the measure fixed (Voorhees 2003,
#: Table 3: "the correlations between all pairs of rankings for both
#: evaluation metrics"); the per-series and per-type aggregations (Voorhees
#: 2005: "The Kendall tau ... between the system rankings produced by sorting
#: the runs by final score for each of the two aggregation methods was
#: 0.971"); any other pair of measures (Kendall's tau, Stuart 1983, no table
#: of a source paper).
COMPARISONS = {
    "judgment sets": "rankings by two judgment sets with the measure fixed, as in "
                     "Voorhees 2003, Table 3",
    "aggregations": "the per-series and the per-type aggregation of the same judgments, as "
                    "in Voorhees 2005",
    "measures": "rankings by two measures under the same judgment set (Kendall's tau, "
                "Stuart 1983)",
}
AGGREGATIONS = frozenset({"series_score", "type_score"})


def split_ranking(text: str) -> tuple[str, str | None]:
    measure, sep, js = str(text).partition("@")
    return (measure, js) if sep else (str(text), None)


def comparison_of(a: str, b: str) -> str:
    """``judgment sets``, ``aggregations`` or ``measures`` for two ranking labels."""
    (ma, sa), (mb, sb) = split_ranking(a), split_ranking(b)
    if ma == mb:
        return "judgment sets"
    if {ma, mb} == AGGREGATIONS:
        return "aggregations"
    return "measures" if sa == sb else "judgment sets"


def ranking_text(a: str, b: str) -> str:
    """``CWS: adjudicated vs assessor1`` / ``adjudicated: CWS vs accuracy``;
    labels without ``@`` as they are."""
    (ma, sa), (mb, sb) = split_ranking(a), split_ranking(b)
    if sa is None or sb is None:
        return f"{a} vs {b}"
    if ma == mb:
        return f"{label(ma)}: {sa} vs {sb}"
    if sa == sb:
        return f"{sa}: {label(ma)} vs {label(mb)}"
    return f"{label(ma)} ({sa}) vs {label(mb)} ({sb})"


def kendall_table(kendall: pl.DataFrame, what: str = "kendall.parquet") -> Table:
    """Kendall tau between run rankings, one row per pair of rankings (or one
    column per measure when the frame has a ``measure`` column).  The caption
    names the tau variant (``variant`` column) and, per kind of comparison
    present (:data:`COMPARISONS`), what is compared and the source that
    compares it; the pairs of runs tied in each ranking (``tied_pairs_a`` /
    ``tied_pairs_b``) are columns, or notes in the per-measure layout."""
    a, b = pick(kendall, "a", what), pick(kendall, "b", what)
    tau = pick(kendall, "tau", what)
    comp = pick(kendall, "comparison", what, required=False)
    measure = pick(kendall, "measure", what, required=False)
    ties = [c for c in ("tied_pairs_a", "tied_pairs_b") if c in kendall.columns]
    pairs = list(zip(kendall[a].cast(pl.String).to_list(), kendall[b].cast(pl.String).to_list(),
                     strict=True))
    kinds = [comparison_of(x, y) for x, y in pairs]
    texts = [ranking_text(x, y) for x, y in pairs]
    if comp is not None:
        texts = [f"{c}: {t}" for c, t in zip(kendall[comp].cast(pl.String).to_list(), texts,
                                               strict=True)]
    df = kendall.with_columns(pl.Series("rankings", texts, dtype=pl.String),
                              pl.Series("compared", kinds, dtype=pl.String))
    variants = (df["variant"].cast(pl.String).unique(maintain_order=True).to_list()
                if "variant" in df.columns else [])
    notes: list[str] = []
    order = df.select("rankings").unique(maintain_order=True)
    if measure is not None:
        measures = df[measure].cast(pl.String).unique(maintain_order=True).to_list()
        wide = (df.with_columns(pl.col(measure).cast(pl.String))
                .pivot(on=measure, index="rankings", values=tau, aggregate_function="first"))
        out = order.join(wide, on="rankings", how="left").select("rankings", *measures)
        cols = (Column("rankings", "Rankings compared", "text"),) + tuple(
            Column(m, cap(label(m)), "f3") for m in measures)
        if len(ties) == 2:
            notes += [f"Tied pairs ({label(r[measure])}, {r['rankings']}): {r['tied_pairs_a']} "
                      f"and {r['tied_pairs_b']}." for r in df.to_dicts()]
    else:
        n = "n_runs" if "n_runs" in df.columns else None
        keep_variant = len(variants) > 1
        several = len(set(kinds)) > 1
        out = df.select(*(["compared"] if several else []), "rankings",
                        *([pl.col(n).cast(pl.Int64)] if n else []),
                        pl.col(tau).cast(pl.Float64).alias("tau"),
                        *([pl.col("variant").cast(pl.String)] if keep_variant else []),
                        *[pl.col(c).cast(pl.Int64) for c in ties])
        cols = (*([Column("compared", "Compared", "text")] if several else []),
                Column("rankings", "Rankings", "text"),
                *([Column("n_runs", "Runs", "int")] if n else []),
                Column("tau", "Kendall tau", "f3"),
                *([Column("variant", "Variant", "text")] if keep_variant else []),
                *[Column(c, f"Tied pairs ({c[-1]})", "int") for c in ties])
    if len(variants) == 1:
        how = f" ({_variant_text(variants[0])})"
    elif variants:
        how = " (variant per row: " + "; ".join(_variant_text(v) for v in variants) + ")"
    else:
        how = " (variant not recorded)"
    what_text = "; ".join(COMPARISONS[k] for k in dict.fromkeys(kinds))
    tie_text = (" Tied pairs: pairs of runs with equal scores in the first (a) and second (b) "
                "ranking." if ties else "")
    return Table("kendall", f"Kendall tau between run rankings{how}. Compared: "
                 f"{what_text}.{tie_text}", out, cols, notes=tuple(notes),
                 title="Kendall tau between rankings")


def _is_disagreement(pattern: str) -> bool:
    letters = re.findall(r"[A-Za-z]+", pattern)
    if len(letters) == 1:
        letters = list(letters[0])
    return len(set(letters)) > 1


def agreement_counts(agreement: pl.DataFrame, what: str = "agreement.parquet"
                     ) -> tuple[int, int]:
    """(responses judged by every assessor, of which with differing judgments)."""
    pat, cnt = pick(agreement, "pattern", what), pick(agreement, "count", what)
    rows = agreement.select(pl.col(pat).cast(pl.String), pl.col(cnt).cast(pl.Int64)).rows()
    total = sum(c for _, c in rows)
    return total, sum(c for p, c in rows if _is_disagreement(p))


def agreement_table(agreement: pl.DataFrame, what: str = "agreement.parquet") -> Table:
    """Voorhees 2003 Table 2: distribution of the disagreeing judgment tuples
    (e.g. RRX) over responses judged by several assessors, with their share of
    all disagreements.  Zero rows for a single-assessor campaign (the report
    leaves the table out)."""
    pat, cnt = pick(agreement, "pattern", what), pick(agreement, "count", what)
    df = (agreement.select(pl.col(pat).cast(pl.String).alias("tuple"),
                           pl.col(cnt).cast(pl.Int64).alias("count"))
          .group_by("tuple").agg(pl.col("count").sum()))
    df = df.filter(pl.col("tuple").map_elements(_is_disagreement, return_dtype=pl.Boolean))
    judged, total = agreement_counts(agreement, what)
    df = df.with_columns((100.0 * pl.col("count") / total if total else pl.lit(None))
                         .cast(pl.Float64).alias("pct")).sort(["count", "tuple"],
                                                              descending=[True, False])
    cols = (Column("tuple", "Judgments", "text"), Column("count", "Count", "int"),
            Column("pct", "% of disagreements", "pct1"))
    return Table("agreement", f"Distribution of disagreements in assessor judgments "
                 f"({total:,} of the {judged:,} responses judged by every assessor; R right, "
                 "W wrong, U unsupported, X inexact; Voorhees 2003, Table 2).", df, cols,
                 title="Assessor disagreements")


def bootstrap_table(frames: Mapping[str, pl.DataFrame],
                    what: str = "bootstrap_<measure>.parquet",
                    summaries: Mapping[str, pl.DataFrame] | None = None,
                    score_fmt: str = "f3") -> Table:
    """Discriminative power per measure (Sakai 2006): run pairs tested, pairs
    significant, their share (from the per-pair ``significant`` flags, or the
    file's ``discriminative_power`` when there is no flag); with ``summaries``
    (``bootstrap_<m>_summary``) also the significance level, the number of
    bootstrap samples and Sakai's estimated difference required."""
    rows = []
    for measure, df in frames.items():
        sig = pick(df, "significant", what, required=False)
        power = pick(df, "power", what, required=False)
        if sig is None and power is None:
            pick(df, "significant", what)  # raises, naming the accepted columns
        n = df.height
        k = int(df[sig].cast(pl.Int64).sum()) if sig else None
        p = (k / n if n else None) if sig else float(df[power].drop_nulls()[0])
        srow = {}
        if summaries and measure in summaries and summaries[measure].height:
            srow = summaries[measure].row(0, named=True)
        rows.append({"measure": measure, "pairs": n, "significant": k,
                     "power_pct": None if p is None else 100.0 * p,
                     "alpha": srow.get("alpha"), "samples": srow.get("samples"),
                     "estimated_difference": srow.get("estimated_difference")})
    out = pl.DataFrame(rows, schema={"measure": pl.String, "pairs": pl.Int64,
                                     "significant": pl.Int64, "power_pct": pl.Float64,
                                     "alpha": pl.Float64, "samples": pl.Int64,
                                     "estimated_difference": pl.Float64})
    cols = [Column("measure", "Measure", "measure"), Column("pairs", "Run pairs", "int"),
            Column("significant", "Significant", "int"),
            Column("power_pct", "Discriminative power %", "pct1")]
    caption = ("Paired bootstrap tests (Sakai 2006): share of run pairs whose difference is "
               "significant (discriminative power).")
    if summaries:
        cols += [Column("alpha", "alpha", "f2"), Column("samples", "Samples", "int"),
                 Column("estimated_difference", "Est. difference required", score_fmt)]
        caption += (" Estimated difference required: the largest over all pairs of the "
                    "difference just at the significance threshold (Sakai's conservative "
                    "estimate).")
    else:
        out = out.drop("alpha", "samples", "estimated_difference")
    return Table("bootstrap", caption, out, tuple(cols),
                 title="Discriminative power (paired bootstrap)")


#: the per-unit score of each question type in the distributions (the measures
#: of qacamp.reliability.extras.QTYPE_MEASURES, in words)
_DISTRIBUTION_SCORES = {"LIST": "list F", "OTHER": "Other F"}


def distributions_table(df: pl.DataFrame, what: str = "distributions.parquet",
                        unit: str = "question") -> Table:
    """Per question type, the questions whose median score across the runs is 0
    (Voorhees 2005: "212 of the 230 factoid questions (92.2%) have a zero
    median").  The caption names the per-unit score of the types present only
    (list F and Other F only where there are list and Other questions)."""
    from ..figures.base import plural

    require_columns(df, ("qtype", "n_units", "n_median_zero", "share"), what)
    out = df.select(pl.col("qtype").cast(pl.String), pl.col("n_units").cast(pl.Int64),
                    pl.col("n_median_zero").cast(pl.Int64),
                    (100.0 * pl.col("share").cast(pl.Float64)).alias("pct_median_zero"))
    units = cap(plural(unit))
    kind_of = "question type" if unit == "question" else f"{unit} type"
    cols = (Column("qtype", cap(kind_of), "text"), Column("n_units", units, "int"),
            Column("n_median_zero", "Median score 0", "int"),
            Column("pct_median_zero", "% with median 0", "pct1"))
    types = [str(t) for t in out["qtype"].to_list()]
    scores = []
    plain = [t for t in types if t.upper() not in _DISTRIBUTION_SCORES]
    if plain:
        scores.append(f"per-{unit} correctness (1 right, 0 otherwise)"
                      + (" for " + ", ".join(plain) + f" {plural(unit)}" if len(types) > 1
                         else ""))
    scores += [f"{_DISTRIBUTION_SCORES[t.upper()]} for {t.lower()} {plural(unit)}"
               for t in types if t.upper() in _DISTRIBUTION_SCORES]
    per = f", per {kind_of}" if len(types) > 1 else ""
    return Table("distributions", f"{units} whose median score across the participants' "
                 f"runs is 0{per} (as Voorhees 2005 counts "
                 f"{'them' if unit == 'question' else 'questions'}): "
                 + "; ".join(scores) + ".", out, cols,
                 title=f"{units} with a median score of 0")


def generic_table(df: pl.DataFrame, name: str, caption: str) -> Table:
    """Any frame, printed by dtype: integers as integers, floats with 3 decimals."""
    cols = []
    for c, dt in df.schema.items():
        fmt = "int" if dt.is_integer() else "f3" if dt.is_float() else "text"
        cols.append(Column(c, cap(c.replace("_", " ")), fmt))
    out = df.with_columns([pl.col(c).cast(pl.String) for c, dt in df.schema.items()
                           if not (dt.is_numeric() or dt == pl.String)])
    return Table(name, caption, out, tuple(cols), title=cap(name.replace("_", " ")))


__all__ = ["swap_summary_table", "kendall_table", "agreement_table", "agreement_counts",
           "bootstrap_table", "distributions_table", "generic_table",
           "comparison_of", "ranking_text", "split_ranking", "COMPARISONS", "SUMMARY_COLUMNS",
           "WEAK_NOTE_PREFIX"]
