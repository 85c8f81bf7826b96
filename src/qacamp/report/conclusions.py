"""The reliability conclusions in sentences, from the analyses' frames (pure).

Each function returns plain text for the overview page; every number comes
from the frame it is given, formatted as the tables print it.  The wording
follows the sources: the swap method's required difference and sensitivity
(Voorhees 2005: "An error rate no greater than 5%, requires a difference in
scores of at least 0.05 ... there are 1953 run pairs; 70% of the pairs have a
difference in average per-series score that is at least 0.05"; the c@1
paper's Table 2 for the observed mode), stability vs discrimination (Penas &
Rodrigo 2011), discriminative power (Sakai 2006), Kendall tau between
rankings (Voorhees 2003, 2005) and assessor disagreement (Voorhees 2003).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import polars as pl

from ..measures import label
from .figures.base import plural
from .tables import agreement_counts, comparison_of
from .tables.reliability import split_ranking


def pct(x: float | None, digits: int = 0) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) \
        else f"{100 * x:.{digits}f}%"


def _missing(x: object) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def fit_text(row: dict, counts: pl.DataFrame | None) -> str:
    """How the error rates were obtained: the fitted curve and sizes, or observed at c."""
    from ..reliability.curves import MODELS, describe_model

    if row.get("mode") == "observed":
        return f"swap rates observed at subsets of c = {row.get('observed_at')}, no extrapolation"
    model = row.get("model")
    text = (f"error rates extrapolated from curves {describe_model(model)}"
            if model in MODELS else "error rates extrapolated (fitting method not recorded)")
    if counts is not None and counts.height and row.get("min_fit_size") is not None:
        text += f", on subset sizes {row['min_fit_size']}\u2013{int(counts['size'].max())}"
    return text


def split_warnings(row: dict) -> tuple[str | None, str | None, list[str]]:
    """The summary's warning items: (few runs, higher bins above the level,
    the others), each as :func:`qacamp.reliability.fits.weak_evidence` wrote it."""
    from ..reliability.fits import FEW_RUNS, NON_MONOTONE, warning_items

    few = above = None
    rest = []
    for item in warning_items(row.get("warning")):
        if item.startswith(FEW_RUNS) and few is None:
            few = item
        elif item.startswith(NON_MONOTONE) and above is None:
            above = item
        else:
            rest.append(item)
    return few, above, rest


def too_few_runs(row: dict) -> bool:
    """Below the weak-evidence threshold of runs: no required difference is
    estimated from this summary."""
    return split_warnings(row)[0] is not None


def too_few_sentence(row: dict, few: str) -> str:
    import re

    m = label(row["measure"])
    n = row.get("n_runs")
    least = re.search(r"fewer than (\d+) runs", few)
    counts = (f"the campaign has {int(n)} runs ({int(n) * (int(n) - 1) // 2:,} run pairs)"
              if n is not None else few)
    need = f", and below {least.group(1)} runs" if least else ", and with so few runs"
    return (f"Too few runs to estimate a required difference in {m}: {counts}{need} the "
            "swap method's error rates are weak evidence (docs/reliability.md), so no "
            "difference is called reliable here; the figure shows the observed rates only.")


def swap_conclusion(row: dict, unit: str, counts: pl.DataFrame | None = None,
                    method: bool = True) -> tuple[str, str | None]:
    """(sentence, note): the swap method's conclusion for one measure, and the
    weak-evidence warnings the sentence does not already say (None if none).
    Below the weak-evidence threshold of runs the sentence gives no number; a
    required difference whose higher bins stay above the level says so.
    ``method``: the sentence says how the error rates were obtained (the page
    says it once per section instead, :func:`swap_method`)."""
    few, above, rest = split_warnings(row)
    if few is not None:
        return too_few_sentence(row, few), ("; ".join([*([above] if above else []), *rest])
                                            or None)
    text = swap_sentence(row, unit, counts, method)
    if above is not None and not _missing(row.get("required_difference")):
        level = float(row.get("level") or 0.05)
        bins = above.split(" bin(s) ", 1)[-1].split(":", 1)[0]
        text += (f" But the higher difference bin(s) {bins} still err more than {level:.0%}: "
                 "the error rate does not fall steadily with the difference, so "
                 f"{row['required_difference']:.2f} is not a safe threshold on its own.")
    return text, "; ".join(rest) or None


def swap_sentence(row: dict, unit: str, counts: pl.DataFrame | None = None,
                  method: bool = True) -> str:
    """The swap method's conclusion for one measure (its summary row), as the
    papers word it (see :func:`swap_conclusion` for the weak-evidence forms);
    ``method``: with how the error rates were obtained, in parentheses."""
    m, units = label(row["measure"]), plural(unit)
    level, req = float(row.get("level") or 0.05), row.get("required_difference")
    how = fit_text(row, counts) if method else ""
    if row.get("mode") == "observed":
        c = row.get("observed_at")
        if _missing(req):
            return (f"On subsets of c = {c} {units}, no difference bin of {m} has a swap rate "
                    f"of at most {level:.0%}{_paren(how)}: no difference in {m} can be called "
                    "reliable at that size.")
        return (f"On subsets of c = {c} {units}, differences of at least {req:.2f} in {m} have "
                f"a swap rate of at most {level:.0%}{_paren(how)}; {pct(row.get('sensitivity'))} "
                f"of the {int(row.get('n_comparisons') or 0):,} comparisons at c (run pairs "
                "x trials) differ by at least that.")
    full = int(row["full_size"])
    if _missing(req):
        return (f"With {full:,} {units}, no difference bin of {m} reaches a swap error of at "
                f"most {level:.0%}{_paren(how)}: no difference in {m} can be called reliable "
                "with this collection.")
    text = (f"With {full:,} {units}, differences of at least {req:.2f} in {m} have at most "
            f"{level:.0%} swap error{_paren(how)}; {pct(row.get('sensitivity'))} of the "
            f"{int(row.get('n_pairs') or 0):,} run pairs differ by at least that.")
    if row.get("size_reached") is not None:
        text += (f" That error level is reached with {int(row['size_reached']):,} "
                 f"{plural(unit, int(row['size_reached']))}.")
    return text


def _paren(text: str) -> str:
    return f" ({text})" if text else ""


def swap_method(rows: Mapping[str, dict], counts: Mapping[str, pl.DataFrame | None],
                unit: str) -> str:
    """How the swap method's error rates were obtained, said once for every
    measure (Voorhees 2003: "count the number of times we see a swap for all
    pairs of runs using the bins to segregate the counts by size of the
    difference in scores"), with the fit of each measure when they differ."""
    units = plural(unit)
    fits: dict[str, list[str]] = {}
    for m, row in rows.items():
        fits.setdefault(fit_text(row, counts.get(m)), []).append(label(m))
    if not fits:
        return ""
    how = "; ".join(text if len(fits) == 1 else f"{', '.join(ms)}: {text}"
                    for text, ms in fits.items())
    return (f"Swap method (Voorhees 2003; Voorhees 2005): every pair of runs is scored on two "
            f"disjoint random subsets of {units}; a swap is a pair the two subsets order "
            "differently, and the error rate of a 0.01-wide score-difference bin is its swaps "
            f"over its comparisons. Here: {how}. The required difference is the lower edge of "
            "the first bin whose error rate is at most the error level.")


def stability_sentence(frames: Mapping[str, pl.DataFrame], fuzziness: float = 0.05) -> str:
    """Error rate and ties of every measure at one fuzziness value (the one
    closest to ``fuzziness``)."""
    parts = []
    at = None
    for m, df in frames.items():
        if not df.height:
            continue
        row = df.with_columns((pl.col("fuzziness") - fuzziness).abs().alias("_d")) \
            .sort("_d", "fuzziness").row(0, named=True)
        at = row["fuzziness"] if at is None else at
        parts.append(f"{label(m)} errs in {pct(row['error_rate'], 1)} of the decisions with "
                     f"{pct(row['prop_ties'], 1)} ties")
    if not parts:
        return ""
    return (f"At fuzziness f = {at:.2f} (a difference below {at:.0%} of the larger score, "
            f"in absolute value, is a tie), " + "; ".join(parts) + ". Fewer errors for as many "
            "ties is better (Penas & Rodrigo 2011).")


def bootstrap_sentence(measure: str, pairs: pl.DataFrame, summary: dict | None,
                       decimals: int = 3) -> str:
    """Discriminative power of one measure (Sakai 2006)."""
    summary = summary or {}
    n = int(summary.get("n_pairs") or pairs.height)
    k = summary.get("n_significant")
    if k is None and "significant" in pairs.columns:
        k = int(pairs["significant"].cast(pl.Int64).sum())
    if k is None or not n:
        return ""
    text = (f"{int(k):,} of the {n:,} run pairs ({pct(k / n, 1)}) differ significantly in "
            f"{label(measure)} by the paired bootstrap test")
    if summary.get("alpha") is not None:
        text += f" (\u03b1 = {summary['alpha']:g}, {int(summary.get('samples') or 0):,} samples)"
    text += "."
    if not _missing(summary.get("estimated_difference")):
        text += (" Sakai's estimated difference required for significance (the largest "
                 f"over the pairs): {summary['estimated_difference']:.{decimals}f}.")
    return text


def kendall_sentences(kendall: pl.DataFrame, primary: str) -> list[str]:
    """One sentence per measure compared across judgment sets (range of tau with
    the primary set), and per pair of measures or aggregations."""
    out = []
    rows = kendall.to_dicts()
    variant = rows[0].get("variant") if rows else None
    var = f" ({variant})" if variant else ""
    by_measure: dict[str, list[float]] = {}
    others = []
    for r in rows:
        a, b = str(r["ranking_a"]), str(r["ranking_b"])
        kind = comparison_of(a, b)
        (ma, sa), (_, sb) = split_ranking(a), split_ranking(b)
        if kind == "judgment sets" and primary in (sa, sb):
            by_measure.setdefault(ma, []).append(float(r["tau"]))
        elif kind != "judgment sets":
            others.append((kind, a, b, float(r["tau"])))
    for m, taus in by_measure.items():
        lo, hi = min(taus), max(taus)
        span = f"tau {lo:.3f}" if len(taus) == 1 or lo == hi else f"tau from {lo:.3f} to {hi:.3f}"
        n = len(taus)
        out.append(f"Ranked by {label(m)}, the other judgment set{'s' if n > 1 else ''} "
                   f"give{'' if n > 1 else 's'} rankings with Kendall {span}{var} against the "
                   f"ranking under {primary} (Voorhees 2003, Table 3).")
    for kind, a, b, tau in others:
        (ma, _), (mb, _) = split_ranking(a), split_ranking(b)
        source = (" (per-series vs per-type aggregation, as Voorhees 2005 compares them)"
                  if kind == "aggregations" else "")
        out.append(f"Ranking the runs by {label(ma)} and by {label(mb)} gives orders with "
                   f"Kendall tau {tau:.3f}{var}{source}.")
    return out


def agreement_sentence(agreement: pl.DataFrame) -> str:
    """Share of the commonly judged responses with differing judgments (Voorhees 2003)."""
    judged, differing = agreement_counts(agreement)
    if not judged:
        return ""
    width = len(str(agreement["tuple"][0])) if "tuple" in agreement.columns else None
    who = f"all {width} assessors" if width else "every assessor"
    return (f"Of the {judged:,} responses judged by {who}, {differing:,} "
            f"({pct(differing / judged, 1)}) received differing judgments (Voorhees 2003, "
            "Table 2).")


__all__ = ["swap_sentence", "swap_conclusion", "swap_method", "split_warnings", "too_few_runs",
           "stability_sentence", "bootstrap_sentence",
           "kendall_sentences", "agreement_sentence", "fit_text", "pct"]
