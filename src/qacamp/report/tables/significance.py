"""Significance tables and the letters of runs that cannot be told apart:
frames in, :class:`~.base.Table` out.

- :func:`significance_table`: per measure the test, correction, alpha,
  permutations, run pairs, significant pairs and their share, the smallest
  adjusted p-value the permutations can give, with the resolution warning
  and, in the notes, how the intervals and effect sizes are computed;
- :func:`adjacent_table`: per measure each run against the next run in score
  order: the difference, its confidence interval, the standardised effect
  size, the adjusted p-value and the decision;
- :func:`agreement_of_analyses_table`: per measure the share of pairs
  significant by the test, the share at least the swap method's required
  difference apart, the paired bootstrap's discriminative power, and how often
  the test and the swap method agree on a pair;
- :func:`letters_table`: per measure and run the compact letters of each
  criterion (``equivalence_<measure>.parquet``);
- :func:`add_letters`: the run table with the letter columns of its sort
  measure appended (a hook: the run table's own columns are untouched).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import polars as pl

from ...errors import InputError
from ...measures import label
from ...reliability.significance import TESTS
from .base import Column, Table, cap, require_columns

LETTER_COLUMNS = ("criterion", "run", "score", "letters", "n_indistinguishable",
                  "indistinguishable", "threshold")
SUMMARY_COLUMNS = ("measure", "test", "correction", "alpha", "permutations", "n_runs",
                   "pairs", "significant_pairs", "share_significant", "min_p", "warning")
PAIR_COLUMNS = ("run_a", "run_b", "diff", "p_adjusted", "significant", "ci_lower", "ci_upper",
                "effect_size")


def title_of_test(name: str) -> str:
    t = TESTS.get(str(name))
    return t.title if t is not None else str(name)


def criterion_text(criterion: str, threshold: float | None, test_row: dict | None = None) -> str:
    """What "cannot be distinguished" means under one criterion, in words."""
    if criterion == "swap":
        if threshold is None:
            return ("the swap method: no difference reaches the error level, so no pair of "
                    "runs can be told apart")
        return (f"the swap method: their difference is below the required difference "
                f"{threshold:.2f}")
    how = ""
    if test_row:
        b = test_row.get("permutations") or 0
        corr = test_row.get("correction")
        how = (f" ({f'{b:,} permutations, ' if b else ''}"
               + (f"{corr} correction, " if corr and corr != "none" else "")
               + f"alpha {float(test_row.get('alpha') or threshold or 0.05):g})")
    elif threshold is not None:
        how = f" (alpha {threshold:g})"
    return f"{title_of_test(criterion)}{how}: the difference is not significant"


def significance_table(summaries: Mapping[str, pl.DataFrame],
                       what: str = "significance_<measure>_summary.parquet") -> Table:
    rows = []
    notes = []
    rows_by_measure: dict[str, dict] = {}
    for m, df in summaries.items():
        require_columns(df, SUMMARY_COLUMNS, what)
        if not df.height:
            continue
        r = df.row(0, named=True)
        rows.append({"measure": m, "test": title_of_test(r["test"]), "correction": r["correction"],
                     "alpha": r["alpha"], "permutations": r["permutations"] or None,
                     "runs": r["n_runs"], "pairs": r["pairs"],
                     "significant": r["significant_pairs"],
                     "pct": None if r["share_significant"] is None
                     else 100.0 * r["share_significant"], "min_p": r["min_p"]})
        if r["warning"]:
            notes.append(f"Warning ({label(m)}): {r['warning']}.")
        rows_by_measure[m] = r
    if not rows:
        raise InputError(what, None, "no significance summaries",
                         "run `qacamp reliability significance`")
    notes += method_notes(rows_by_measure)
    out = pl.DataFrame(rows, schema={"measure": pl.String, "test": pl.String,
                                     "correction": pl.String, "alpha": pl.Float64,
                                     "permutations": pl.Int64, "runs": pl.Int64,
                                     "pairs": pl.Int64, "significant": pl.Int64,
                                     "pct": pl.Float64, "min_p": pl.Float64})
    cols = (Column("measure", "Measure", "measure"), Column("test", "Test", "text"),
            Column("correction", "Correction", "text"), Column("alpha", "alpha", "f2"),
            Column("permutations", "Permutations", "int"), Column("runs", "Runs", "int"),
            Column("pairs", "Run pairs", "int"), Column("significant", "Significant", "int"),
            Column("pct", "% significant", "pct1"),
            Column("min_p", "Smallest possible p", "f4"))
    return Table("significance", "Which differences are real: the significance test over all "
                 "pairs of participants' runs per measure, the correction of its p-values "
                 "(none for the family-wise randomised Tukey HSD and ANOVA + Tukey HSD), and "
                 "the pairs whose adjusted p-value is at most alpha.  Smallest possible p: the "
                 "smallest adjusted p-value the permutations can give (1/(B+1), times the "
                 "number of pairs under Holm or Bonferroni); a dash for the analytic tests.",
                 out, cols, notes=tuple(notes), title="Significance tests")


def method_notes(rows: Mapping[str, Mapping]) -> list[str]:
    """How the summaries' intervals and effect sizes were computed, one sentence
    per distinct way with the measures it applies to (none for summaries
    written before intervals were)."""
    ways: dict[str, list[str]] = {}
    for m, row in rows.items():
        if not row or not row.get("ci_method"):
            continue
        level = 100.0 * float(row.get("ci_level") or 0.95)
        how = (f"{level:g}% intervals by {row['ci_method']}; effect size = "
               f"{row['effect_size_method']}")
        ways.setdefault(f"{cap(title_of_test(row['test']))}|{how}", []).append(label(m))
    return [f"{key.split('|')[0]} ({', '.join(ms)}): {key.split('|', 1)[1]}."
            for key, ms in ways.items()]


def oriented(pairs: pl.DataFrame, first: str, second: str) -> dict | None:
    """The pair (first, second) of a per-pair frame with the difference, its
    interval and the effect size as ``M(first) - M(second)``."""
    hit = pairs.filter(((pl.col("run_a") == first) & (pl.col("run_b") == second))
                       | ((pl.col("run_a") == second) & (pl.col("run_b") == first)))
    if not hit.height:
        return None
    r = hit.row(0, named=True)
    if r["run_a"] == first:
        return r
    flip = dict(r, run_a=first, run_b=second, diff=-r["diff"])
    flip["ci_lower"] = None if r["ci_upper"] is None else -r["ci_upper"]
    flip["ci_upper"] = None if r["ci_lower"] is None else -r["ci_lower"]
    flip["effect_size"] = None if r["effect_size"] is None else -r["effect_size"]
    return flip


def adjacent_table(pairs: Mapping[str, pl.DataFrame], order: Mapping[str, list[str]],
                   summaries: Mapping[str, Mapping] | None = None, score_fmt: str = "f3",
                   what: str = "significance_<measure>.parquet") -> Table:
    """Per measure each run against the next run in score order (``order``:
    measure -> runs, best first): difference, interval, effect size, adjusted
    p-value, decision."""
    summaries = summaries or {}
    rows, notes = [], []
    for m, frame in pairs.items():
        require_columns(frame, PAIR_COLUMNS, what)
        runs = order.get(m, [])
        for a, b in zip(runs, runs[1:], strict=False):
            r = oriented(frame, a, b)
            if r is None:
                continue
            rows.append({"measure": m, "run": a, "next": b, "diff": r["diff"],
                         "lower": r["ci_lower"], "upper": r["ci_upper"],
                         "effect": r["effect_size"], "p": r["p_adjusted"],
                         "significant": "yes" if r["significant"] else "no"})
    if not rows:
        raise InputError(what, None, "no run pairs", "run `qacamp reliability significance`")
    notes += method_notes({m: summaries[m] for m in pairs if m in summaries})
    out = pl.DataFrame(rows, schema={"measure": pl.String, "run": pl.String, "next": pl.String,
                                     "diff": pl.Float64, "lower": pl.Float64,
                                     "upper": pl.Float64, "effect": pl.Float64,
                                     "p": pl.Float64, "significant": pl.String})
    levels = {100.0 * float(s.get("ci_level") or 0.95) for s in summaries.values()} or {95.0}
    head = f"{max(levels):g}% CI" if len(levels) == 1 else "CI"
    cols = (Column("measure", "Measure", "measure"), Column("run", "Run", "text"),
            Column("next", "Next run", "text"), Column("diff", "Difference", score_fmt),
            Column("lower", f"{head} low", score_fmt), Column("upper", f"{head} high", score_fmt),
            Column("effect", "Effect size", "f2"), Column("p", "Adjusted p", "f4"),
            Column("significant", "Significant", "text"))
    return Table("significance_adjacent", "Each run against the next run in score order: the "
                 "difference in score, its confidence interval, the standardised effect size "
                 "(the difference over the residual standard deviation), the adjusted p-value "
                 "and whether the test separates the two; where it does not, the order of the "
                 "two runs is not established.", out, cols, notes=tuple(notes),
                 title="Each run against the next")


def _distinguishable(frame: pl.DataFrame) -> dict[str, set[frozenset]]:
    """criterion -> the pairs of runs that can be told apart."""
    out = {}
    for crit in frame["criterion"].unique(maintain_order=True).to_list():
        part = frame.filter(pl.col("criterion") == crit)
        runs = part["run"].to_list()
        same = {frozenset((r, o)) for r, others in zip(runs, part["indistinguishable"].to_list(),
                                                       strict=True) for o in others}
        out[crit] = {frozenset((a, b)) for i, a in enumerate(runs) for b in runs[i + 1:]} - same
    return out


def agreement_of_analyses_table(letters: Mapping[str, pl.DataFrame],
                                bootstrap: Mapping[str, pl.DataFrame],
                                what: str = "equivalence_<measure>.parquet") -> Table:
    """Per measure: share of pairs significant (test), at least the required
    difference apart (swap), significant by the paired bootstrap, and the share
    of pairs on which the test and the swap method agree (both or neither
    tell the two runs apart)."""
    rows = []
    tests = set()
    for m, frame in letters.items():
        require_columns(frame, LETTER_COLUMNS, what)
        runs = frame.filter(pl.col("criterion") == "swap")["run"].to_list()
        n_pairs = len(runs) * (len(runs) - 1) // 2
        if not n_pairs:
            continue
        sets = _distinguishable(frame)
        test = next((c for c in sets if c != "swap"), None)
        if test:
            tests.add(test)
        row = {"measure": m, "pairs": n_pairs,
               "test_pct": 100.0 * len(sets[test]) / n_pairs if test else None,
               "swap_pct": 100.0 * len(sets["swap"]) / n_pairs if "swap" in sets else None,
               "bootstrap_pct": None, "agree_pct": None}
        if test and "swap" in sets:
            both = len(sets[test] & sets["swap"])
            neither = n_pairs - len(sets[test] | sets["swap"])
            row["agree_pct"] = 100.0 * (both + neither) / n_pairs
        b = bootstrap.get(m)
        if b is not None and "significant" in b.columns and b.height:
            row["bootstrap_pct"] = 100.0 * int(b["significant"].cast(pl.Int64).sum()) / b.height
        rows.append(row)
    out = pl.DataFrame(rows, schema={"measure": pl.String, "pairs": pl.Int64,
                                     "test_pct": pl.Float64, "swap_pct": pl.Float64,
                                     "bootstrap_pct": pl.Float64, "agree_pct": pl.Float64})
    name = ", ".join(title_of_test(t) for t in sorted(tests)) or "the significance test"
    cols = (Column("measure", "Measure", "measure"), Column("pairs", "Run pairs", "int"),
            Column("test_pct", "% significant (test)", "pct1"),
            Column("swap_pct", "% >= required difference (swap)", "pct1"),
            Column("bootstrap_pct", "% significant (bootstrap)", "pct1"),
            Column("agree_pct", "% test and swap agree", "pct1"))
    return Table("analyses_agreement", f"Three readings of the same run pairs, to be read "
                 f"together: the share of pairs significant by {name} (adjusted), the share "
                 "whose difference is at least the swap method's required difference, and the "
                 "paired bootstrap's discriminative power (Sakai 2006); the last column is the "
                 "share of pairs on which the test and the swap method agree (both or neither "
                 "tell the two runs apart).", out, cols,
                 title="Agreement of the three analyses")


def letters_table(frames: Mapping[str, pl.DataFrame], summaries: Mapping[str, dict] | None = None,
                  what: str = "equivalence_<measure>.parquet") -> Table:
    """Per measure and run (by score): the letters under each criterion and how
    many runs it cannot be told apart from."""
    summaries = summaries or {}
    parts, notes = [], []
    crits: list[str] = []
    for m, frame in frames.items():
        require_columns(frame, LETTER_COLUMNS, what)
        for crit in frame["criterion"].unique(maintain_order=True).to_list():
            if crit not in crits:
                crits.append(crit)
            thr = frame.filter(pl.col("criterion") == crit)["threshold"][0]
            notes.append(f"{cap(label(m))}, letters {'swap' if crit == 'swap' else 'test'}: "
                         f"runs sharing a letter cannot be distinguished by "
                         f"{criterion_text(crit, thr, summaries.get(m))}.")
        wide = None
        for crit in frame["criterion"].unique(maintain_order=True).to_list():
            key = "swap" if crit == "swap" else "test"
            part = frame.filter(pl.col("criterion") == crit).select(
                "run", "score", pl.col("letters").alias(f"letters_{key}"),
                pl.col("n_indistinguishable").alias(f"n_{key}"))
            wide = part if wide is None else wide.join(part.drop("score"), on="run",
                                                       how="left", maintain_order="left")
        parts.append(wide.with_columns(pl.lit(m).alias("measure")))
    if not parts:
        raise InputError(what, None, "no letters", "run `qacamp reliability extras`")
    df = pl.concat(parts, how="diagonal_relaxed")
    for c in ("letters_swap", "letters_test"):
        if c not in df.columns:
            df = df.with_columns(pl.lit(None, pl.String).alias(c))
    for c in ("n_swap", "n_test"):
        if c not in df.columns:
            df = df.with_columns(pl.lit(None, pl.Int64).alias(c))
    out = df.select("measure", "run", "score", "letters_swap", "n_swap", "letters_test", "n_test")
    cols = [Column("measure", "Measure", "measure"), Column("run", "Run", "text"),
            Column("score", "Score", "f3"), Column("letters_swap", "Letters (swap)", "text"),
            Column("n_swap", "Not distinguishable (swap)", "int")]
    if any(c != "swap" for c in crits):
        cols += [Column("letters_test", "Letters (test)", "text"),
                 Column("n_test", "Not distinguishable (test)", "int")]
    else:
        out = out.drop("letters_test", "n_test")
    return Table("equivalence", "Runs that cannot be distinguished, without artificial "
                 "boundaries: for each run, the number of other runs it cannot be told apart "
                 "from and a compact letter display (runs sharing a letter cannot be told "
                 "apart, and only those: two runs share a letter if and only if they cannot be "
                 "distinguished; the fewest letters, an exact clique cover (Gramm et al. 2007) "
                 "swept as Piepho 2004 sweeps; a letter's runs need not be adjacent).",
                 out, tuple(cols), notes=tuple(notes), title="Runs that cannot be told apart")


def add_letters(table: Table, frame: pl.DataFrame, measure: str,
                summary: dict | None = None) -> Table:
    """The run table with the letter columns of ``measure`` (its sort measure)
    appended, one per criterion; baselines get none.  Notes say which
    criterion each column follows."""
    require_columns(frame, LETTER_COLUMNS, "equivalence")
    out, cols, notes = table.frame, list(table.columns), list(table.notes)
    for crit in frame["criterion"].unique(maintain_order=True).to_list():
        key = "letters_swap" if crit == "swap" else "letters_test"
        part = frame.filter(pl.col("criterion") == crit)
        out = out.join(part.select("run", pl.col("letters").alias(key)), on="run", how="left",
                       maintain_order="left")
        head = "Letters (swap)" if crit == "swap" else "Letters (test)"
        cols.append(Column(key, head, "text"))
        notes.append(f"{head}, {label(measure)}: runs sharing a letter cannot be distinguished "
                     f"by {criterion_text(crit, part['threshold'][0], summary)} (shared if and "
                     "only if not distinguishable; past 52 letters each is a letter and an "
                     "index, a1 ... Z1, a2 ...).")
    return replace(table, frame=out, columns=tuple(cols), notes=tuple(notes))


__all__ = ["adjacent_table", "add_letters", "agreement_of_analyses_table", "criterion_text",
           "letters_table", "method_notes", "oriented", "significance_table", "title_of_test"]
