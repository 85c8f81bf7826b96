"""Paper tables as pure functions: score / reliability frames in, :class:`Table` out.

A :class:`Table` is a polars frame (raw numbers, written as-is to CSV) plus
the presentation that LaTeX and Markdown need: printed headers, a number
format per column, an optional block column (runs, then baselines) and a
caption.  Nothing here reads or writes files; :mod:`qacamp.report.formats`
turns a table into text and :mod:`qacamp.cli.report` writes it.

Inputs follow docs/architecture.md: ``runs.parquet`` (judgment_set, run,
measure, scope, unit, value), ``units.parquet`` (judgment_set, run, measure,
unit, value) and the reliability frames (``swap_<m>_summary``, ``kendall``,
``agreement``, ``equivalence_<m>``, ``bootstrap_<m>``).  Where the
reliability layer's column names are not fixed yet, each role accepts a short
list of aliases (:data:`ALIASES`); a frame with none of them is an
:class:`~qacamp.errors.InputError` naming the table and the missing role.

Tables imitate the source papers: Voorhees 2003 Table 1 (TREC 2002 run
table), Table 2 (assessor disagreement triples) and Table 3 (Kendall tau
between judgment sets); Penas & Rodrigo 2011 Table 2 (swap method) and
Table 3 (c@1 vs accuracy with counts); the QA4MRE overview Table 1
(editions).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import polars as pl

from ..errors import InputError
from . import is_baseline

#: Number formats of a column: text, integer, fixed decimals, a percentage
#: (the value is already in percent and printed with one decimal).
FORMATS = ("text", "int", "f2", "f3", "f4", "pct1")
BLOCK_RUNS = "runs"
BLOCK_BASELINES = "baselines"


@dataclass(frozen=True)
class Column:
    """One printed column: frame column ``key``, header text, number format."""

    key: str
    header: str
    fmt: str = "f3"

    def __post_init__(self) -> None:
        if self.fmt not in FORMATS:
            raise ValueError(f"column {self.key!r}: unknown format {self.fmt!r}")


@dataclass(frozen=True)
class Table:
    """A paper table: ``frame`` (what goes to CSV) and how to print it.

    ``block`` names a frame column splitting the rows into blocks printed in
    order of first appearance (e.g. ``runs`` then ``baselines``); ``notes``
    are printed under the table.
    """

    name: str
    caption: str
    frame: pl.DataFrame
    columns: tuple[Column, ...]
    block: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)


# --------------------------------------------------------------------------- helpers

#: Accepted column names per role in the reliability frames (first match wins).
ALIASES: dict[str, tuple[str, ...]] = {
    "measure": ("measure",),
    "a": ("a", "left", "set_a", "judgment_set_a", "ranking_a", "x", "first"),
    "b": ("b", "right", "set_b", "judgment_set_b", "ranking_b", "y", "second"),
    "tau": ("tau", "kendall_tau", "kendall"),
    "comparison": ("comparison", "kind", "compare"),
    "pattern": ("pattern", "tuple", "triple", "judgments", "combination"),
    "count": ("count", "n", "responses", "n_responses"),
    "group": ("group", "group_id", "equivalence_group"),
    "run": ("run",),
    "score": ("score", "value"),
    "power": ("discriminative_power", "power"),
    "significant": ("significant", "is_significant"),
}


def pick(df: pl.DataFrame, role: str, what: str, required: bool = True) -> str | None:
    """The column of ``df`` playing ``role`` (see :data:`ALIASES`)."""
    for name in ALIASES[role]:
        if name in df.columns:
            return name
    if required:
        raise InputError(what, None, f"no column for '{role}' (accepted names: "
                         f"{', '.join(ALIASES[role])}; found: {', '.join(df.columns) or 'none'})",
                         "regenerate it with `qacamp reliability`, or rename the column")
    return None


def require_columns(df: pl.DataFrame, columns: Iterable[str], what: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise InputError(what, None, f"missing column(s) {', '.join(missing)} "
                         f"(found: {', '.join(df.columns) or 'none'})",
                         "regenerate it with the current `qacamp score` / `qacamp reliability`")


def judgment_sets(runs: pl.DataFrame) -> list[str]:
    return sorted(runs["judgment_set"].unique().to_list())


def choose_judgment_set(runs: pl.DataFrame, preferred: str | None = None,
                        what: str = "runs.parquet") -> str:
    """``preferred`` if present; else the only set; else ``adjudicated``; else the first."""
    sets = judgment_sets(runs)
    if not sets:
        raise InputError(what, None, "no scores at all", "run `qacamp score` first")
    if preferred is not None:
        if preferred not in sets:
            raise InputError(what, None, f"judgment set '{preferred}' not scored "
                             f"(scored: {', '.join(sets)})", "pick one of the scored sets")
        return preferred
    if len(sets) == 1:
        return sets[0]
    return "adjudicated" if "adjudicated" in sets else sets[0]


def wide_scores(runs: pl.DataFrame, judgment_set: str, scope: str = "all",
                what: str = "runs.parquet") -> pl.DataFrame:
    """One row per run, one column per measure (scope ``scope``), plus ``block``
    (``runs`` / ``baselines``); rows in run-name order."""
    require_columns(runs, ("judgment_set", "run", "measure", "scope", "unit", "value"), what)
    df = runs.filter((pl.col("judgment_set") == judgment_set) & (pl.col("scope") == scope))
    if df.is_empty():
        raise InputError(what, None, f"no scope-'{scope}' scores for judgment set "
                         f"'{judgment_set}'", "rerun `qacamp score`")
    dup = df.group_by("run", "measure").len().filter(pl.col("len") > 1)
    if not dup.is_empty():
        r = dup.sort("run", "measure").row(0, named=True)
        raise InputError(what, None, f"run '{r['run']}' has {r['len']} scope-'{scope}' values "
                         f"of '{r['measure']}'", "rerun `qacamp score`")
    wide = df.pivot(on="measure", index="run", values="value").sort("run")
    return wide.with_columns(_block_expr())


def _block_expr() -> pl.Expr:
    return (pl.when(pl.col("run").str.starts_with("baseline:"))
            .then(pl.lit(BLOCK_BASELINES)).otherwise(pl.lit(BLOCK_RUNS)).alias("block"))


def _require_measures(wide: pl.DataFrame, measures: Iterable[str], what: str) -> None:
    missing = [m for m in measures if m not in wide.columns]
    if missing:
        raise InputError(what, None, f"measure(s) {', '.join(missing)} not scored",
                         "rerun `qacamp score` with the current measure registry")


def _sort_runs(df: pl.DataFrame, key: str) -> pl.DataFrame:
    """Runs block first, then baselines; within a block by ``key`` descending
    (nulls last), ties by run name."""
    return (df.with_columns((pl.col("block") == BLOCK_BASELINES).alias("_b"))
            .sort(["_b", key, "run"], descending=[False, True, False], nulls_last=True)
            .drop("_b"))


def _cast_counts(df: pl.DataFrame, cols: Iterable[str]) -> pl.DataFrame:
    return df.with_columns([pl.col(c).round(0).cast(pl.Int64) for c in cols if c in df.columns])


def questions_per_run(units: pl.DataFrame, judgment_set: str, measure: str = "accuracy",
                      what: str = "units.parquet") -> pl.DataFrame:
    """``run, n``: the number of questions each run was scored on (units rows of ``measure``)."""
    require_columns(units, ("judgment_set", "run", "measure", "unit"), what)
    df = units.filter((pl.col("judgment_set") == judgment_set) & (pl.col("measure") == measure))
    return df.group_by("run").agg(pl.col("unit").n_unique().cast(pl.Int64).alias("n")).sort("run")


# --------------------------------------------------------------------------- run tables

def trec_factoid_run_table(runs: pl.DataFrame, judgment_set: str,
                           units: pl.DataFrame | None = None,
                           what: str = "runs.parquet") -> Table:
    """Voorhees 2003 Table 1: run, CWS, # and % correct, NIL precision and recall,
    sorted by CWS.  The number of questions per run comes from ``units``
    (rows of ``accuracy``) when given, else n_right + n_wrong (+ n_unanswered)."""
    wide = wide_scores(runs, judgment_set, what=what)
    _require_measures(wide, ("cws", "n_right", "nil_precision", "nil_recall"), what)
    wide = _cast_counts(wide, ("n_right", "n_wrong", "n_unanswered"))
    if units is not None:
        wide = wide.join(questions_per_run(units, judgment_set), on="run", how="left")
    else:
        parts = [c for c in ("n_right", "n_wrong", "n_unanswered") if c in wide.columns]
        wide = wide.with_columns(pl.sum_horizontal(parts).cast(pl.Int64).alias("n"))
    wide = wide.with_columns(
        pl.when(pl.col("n") > 0).then(100.0 * pl.col("n_right") / pl.col("n"))
        .otherwise(None).alias("pct_correct"))
    out = _sort_runs(wide, "cws").select("block", "run", "cws", "n_right", "n", "pct_correct",
                                         "nil_precision", "nil_recall")
    cols = (Column("run", "Run", "text"), Column("cws", "CWS", "f3"),
            Column("n_right", "# correct", "int"), Column("pct_correct", "% correct", "pct1"),
            Column("nil_precision", "NIL precision", "f3"),
            Column("nil_recall", "NIL recall", "f3"))
    return Table("runs", f"Evaluation scores of the runs (judgment set {judgment_set}), "
                 "sorted by confidence-weighted score (Voorhees 2003, Table 1).", out, cols,
                 block="block", notes=("NIL precision is undefined (dash) for a run that "
                                       "returned no NIL.",))


def series_run_table(runs: pl.DataFrame, judgment_set: str,
                     what: str = "runs.parquet") -> Table:
    """TREC 2004-2007: run, average per-series score, factoid accuracy, list F,
    Other F (and the question-type aggregation when scored), sorted by series score."""
    wide = wide_scores(runs, judgment_set, what=what)
    _require_measures(wide, ("series_score", "accuracy", "list_f", "other_f"), what)
    keys = ["series_score"] + (["type_score"] if "type_score" in wide.columns else []) \
        + ["accuracy", "list_f", "other_f"]
    out = _sort_runs(wide, "series_score").select("block", "run", *keys)
    headers = {"series_score": "Per-series score", "type_score": "Per-type score",
               "accuracy": "Factoid accuracy", "list_f": "List F", "other_f": "Other F"}
    cols = (Column("run", "Run", "text"),) + tuple(Column(k, headers[k], "f3") for k in keys)
    return Table("runs", f"Run scores (judgment set {judgment_set}): average per-series "
                 "score and its components, sorted by per-series score (Voorhees 2005).",
                 out, cols, block="block")


def nonresponse_run_table(runs: pl.DataFrame, judgment_set: str, kind: str,
                          what: str = "runs.parquet") -> Table:
    """QA4MRE / CLEF / PAN: run, c@1, accuracy, correctly discarded, right /
    wrong / unanswered counts; for QA4MRE also reading tests passed and c@1 per
    topic.  Sorted by c@1, baselines in their own block."""
    wide = wide_scores(runs, judgment_set, what=what)
    _require_measures(wide, ("c_at_1", "accuracy", "correctly_discarded", "n_right",
                             "n_wrong", "n_unanswered"), what)
    counts = ["n_right", "n_wrong", "n_unanswered"]
    extra: list[Column] = []
    if kind == "qa4mre":
        _require_measures(wide, ("tests_passed",), what)
        counts.append("tests_passed")
        extra.append(Column("tests_passed", "Tests passed", "int"))
        if "tests" in wide.columns:
            counts.append("tests")
            extra.append(Column("tests", "Tests", "int"))
        per_topic = (runs.filter((pl.col("judgment_set") == judgment_set)
                                 & (pl.col("scope") == "topic")
                                 & (pl.col("measure") == "c_at_1"))
                     .with_columns(("c_at_1@" + pl.col("unit")).alias("key")))
        names = sorted(per_topic["key"].unique().to_list())
        if names:
            pivot = per_topic.pivot(on="key", index="run", values="value",
                                    aggregate_function="first")
            wide = wide.join(pivot.select("run", *names), on="run", how="left")
            extra += [Column(k, f"c@1 topic {k.split('@', 1)[1]}", "f2") for k in names]
    wide = _cast_counts(wide, counts)
    keys = ["c_at_1", "accuracy", "correctly_discarded", "n_right", "n_wrong", "n_unanswered"]
    out = _sort_runs(wide, "c_at_1").select("block", "run", *keys, *[c.key for c in extra])
    cols = (Column("run", "Run", "text"), Column("c_at_1", "c@1", "f2"),
            Column("accuracy", "Accuracy", "f2"),
            Column("correctly_discarded", "Correctly discarded", "f2"),
            Column("n_right", "Right", "int"), Column("n_wrong", "Wrong", "int"),
            Column("n_unanswered", "Unanswered", "int"), *extra)
    return Table("runs", f"Run scores (judgment set {judgment_set}), sorted by c@1; "
                 "baseline runs in a separate block.", out, cols, block="block",
                 notes=("Correctly discarded is undefined (dash) for a run that left no "
                        "question unanswered.",))


def generic_run_table(runs: pl.DataFrame, judgment_set: str,
                      measures: Sequence[str] | None = None,
                      what: str = "runs.parquet") -> Table:
    """Score matrices and other kinds: every measure, sorted by the first one."""
    wide = wide_scores(runs, judgment_set, what=what)
    present = [c for c in wide.columns if c not in ("run", "block")]
    keys = [m for m in (measures or []) if m in present] or sorted(present)
    out = _sort_runs(wide, keys[0]).select("block", "run", *keys)
    cols = (Column("run", "Run", "text"),) + tuple(Column(k, k, "f3") for k in keys)
    return Table("runs", f"Run scores (judgment set {judgment_set}), sorted by {keys[0]}.",
                 out, cols, block="block")


def run_table(runs: pl.DataFrame, kind: str, judgment_set: str,
              units: pl.DataFrame | None = None, what: str = "runs.parquet") -> Table:
    """The run table of a campaign kind."""
    if kind == "trec-factoid":
        return trec_factoid_run_table(runs, judgment_set, units, what=what)
    if kind == "trec-series":
        return series_run_table(runs, judgment_set, what=what)
    if kind in ("qa4mre", "clef-qa", "pan"):
        return nonresponse_run_table(runs, judgment_set, kind, what=what)
    return generic_run_table(runs, judgment_set, what=what)


def c_at_1_table(runs: pl.DataFrame, judgment_set: str, what: str = "runs.parquet") -> Table:
    """Penas & Rodrigo 2011 Table 3: c@1 and accuracy with the right / wrong /
    unanswered counts they come from, sorted by c@1."""
    wide = wide_scores(runs, judgment_set, what=what)
    _require_measures(wide, ("c_at_1", "accuracy", "n_right", "n_wrong", "n_unanswered"), what)
    wide = _cast_counts(wide, ("n_right", "n_wrong", "n_unanswered")).with_columns(
        (pl.col("n_right") + pl.col("n_wrong") + pl.col("n_unanswered")).alias("n"))
    out = _sort_runs(wide, "c_at_1").select("block", "run", "c_at_1", "accuracy", "n_right",
                                            "n_wrong", "n_unanswered", "n")
    cols = (Column("run", "System", "text"), Column("c_at_1", "c@1", "f2"),
            Column("accuracy", "Accuracy", "f2"), Column("n_right", "(i) right", "int"),
            Column("n_wrong", "(ii) wrong", "int"), Column("n_unanswered", "(iii) unanswered", "int"),
            Column("n", "n", "int"))
    return Table("c_at_1_vs_accuracy", "c@1 versus accuracy with (i) questions answered "
                 "correctly, (ii) incorrectly, (iii) unanswered; c@1 = (nR + nU nR/n)/n "
                 "(Penas & Rodrigo 2011, Table 3).", out, cols, block="block")


# --------------------------------------------------------------------------- reliability

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
    from ..reliability.curves import describe_model

    seen = dict.fromkeys((r["model"], r["min_fit_size"]) for r in rows)
    return "; ".join(f"{describe_model(m)}, on subset sizes >= {k}" for m, k in seen)


def swap_summary_table(summaries: Sequence[pl.DataFrame],
                       what: str = "swap_<measure>_summary.parquet") -> Table:
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
    given."""
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
    cols = [Column("measure", "Measure", "text")]
    if len(modes) > 1:
        cols.append(Column("mode", "Mode", "text"))
    cols += [Column("level_pct", "Error level %", "pct1"), Column("size", size_header, "int"),
             Column("required_difference", "(i) Abs. difference", "f3"),
             Column("highest_score", "(ii) Highest score", "f3"),
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
    if ext:
        parts.append(("Error" if len(modes) == 1 else "Mode extrapolate: error")
                     + " rates extrapolated to the full collection from curves "
                     f"{_fit_method(ext)}; (iv) is the share of run pairs on the full "
                     "collection whose difference reaches (i).")
    if obs:
        sizes = ", ".join(str(c) for c in dict.fromkeys(r["observed_at"] for r in obs))
        parts.append(("Swap" if len(modes) == 1 else "Mode observed: swap")
                     + f" rates observed at subsets of c = {sizes}, no extrapolation and "
                     "no fitted curve, as in the paper; (iv) is the share of the experiment's "
                     "comparisons at c (run pairs x trials) whose difference reaches (i).")
    notes = ["A dash in (i): the error level is not reached."]
    notes += [f"Weak evidence ({r['measure']}): {r['warning']}." for r in rows if r["warning"]]
    return Table("swap_summary", " ".join(parts), out, tuple(cols), notes=tuple(notes))


def _variant_text(variant: str) -> str:
    return {"tau_a": "tau_a: the minimum number of adjacent swaps between the two rankings, "
                     "normalised to [-1, 1] (Voorhees 2003), ties broken by run name",
            "tau_b": "tau_b: ties not broken"}.get(variant, variant)


def kendall_table(kendall: pl.DataFrame, what: str = "kendall.parquet") -> Table:
    """Voorhees 2003 Table 3: Kendall tau between the run rankings of two
    judgment sets (or measures / aggregations), one column per measure when
    the frame has a ``measure`` column.  The caption names the tau variant
    (``variant`` column); the pairs of runs tied in each ranking
    (``tied_pairs_a`` / ``tied_pairs_b``) are columns, or notes in the
    per-measure layout."""
    a, b = pick(kendall, "a", what), pick(kendall, "b", what)
    tau = pick(kendall, "tau", what)
    comp = pick(kendall, "comparison", what, required=False)
    measure = pick(kendall, "measure", what, required=False)
    ties = [c for c in ("tied_pairs_a", "tied_pairs_b") if c in kendall.columns]
    label = pl.col(a).cast(pl.String) + " vs " + pl.col(b).cast(pl.String)
    if comp is not None:
        label = pl.col(comp).cast(pl.String) + ": " + label
    df = kendall.with_columns(label.alias("rankings"))
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
            Column(m, m, "f3") for m in measures)
        if len(ties) == 2:
            notes += [f"Tied pairs ({r[measure]}, {r['rankings']}): {r['tied_pairs_a']} and "
                      f"{r['tied_pairs_b']}." for r in df.to_dicts()]
    else:
        n = "n_runs" if "n_runs" in df.columns else None
        keep_variant = len(variants) > 1
        out = df.select("rankings", *([pl.col(n).cast(pl.Int64)] if n else []),
                        pl.col(tau).cast(pl.Float64).alias("tau"),
                        *([pl.col("variant").cast(pl.String)] if keep_variant else []),
                        *[pl.col(c).cast(pl.Int64) for c in ties])
        cols = (Column("rankings", "Rankings compared", "text"),
                *([Column("n_runs", "Runs", "int")] if n else []), Column("tau", "Kendall tau", "f3"),
                *([Column("variant", "Variant", "text")] if keep_variant else []),
                *[Column(c, f"Tied pairs ({c[-1]})", "int") for c in ties])
    if len(variants) == 1:
        how = f" ({_variant_text(variants[0])})"
    elif variants:
        how = " (variant per row: " + "; ".join(_variant_text(v) for v in variants) + ")"
    else:
        how = " (variant not recorded)"
    tie_text = (" Tied pairs: pairs of runs with equal scores in the first (a) and second (b) "
                "ranking." if ties else "")
    return Table("kendall", f"Kendall tau between run rankings{how} (Voorhees 2003, Table 3)."
                 + tie_text, out, cols, notes=tuple(notes))


def _is_disagreement(pattern: str) -> bool:
    letters = re.findall(r"[A-Za-z]+", pattern)
    if len(letters) == 1:
        letters = list(letters[0])
    return len(set(letters)) > 1


def agreement_table(agreement: pl.DataFrame, what: str = "agreement.parquet") -> Table:
    """Voorhees 2003 Table 2: distribution of the disagreeing judgment tuples
    (e.g. RRX) over responses judged by several assessors, with their share of
    all disagreements."""
    pat, cnt = pick(agreement, "pattern", what), pick(agreement, "count", what)
    df = (agreement.select(pl.col(pat).cast(pl.String).alias("tuple"),
                           pl.col(cnt).cast(pl.Int64).alias("count"))
          .group_by("tuple").agg(pl.col("count").sum()))
    df = df.filter(pl.col("tuple").map_elements(_is_disagreement, return_dtype=pl.Boolean))
    total = int(df["count"].sum() or 0)
    df = df.with_columns((100.0 * pl.col("count") / total if total else pl.lit(None))
                         .cast(pl.Float64).alias("pct")).sort(["count", "tuple"],
                                                              descending=[True, False])
    cols = (Column("tuple", "Judgments", "text"), Column("count", "Count", "int"),
            Column("pct", "% of disagreements", "pct1"))
    return Table("agreement", f"Distribution of disagreements in assessor judgments "
                 f"({total} disagreeing responses; R right, W wrong, U unsupported, "
                 "X inexact; Voorhees 2003, Table 2).", df, cols)


def equivalence_table(frames: Mapping[str, pl.DataFrame],
                      what: str = "equivalence_<measure>.parquet") -> Table:
    """Runs whose score differences are below the required difference,
    grouped (:func:`qacamp.reliability.equivalence_groups`: run, score, group,
    and ``required_difference`` when the frame has it); ``frames`` maps a
    measure name to its frame (a ``measure`` column, if any, wins).  One row
    per measure and group with its runs and score range; the caption gives
    each measure's required difference."""
    rows, required = [], {}
    for name, df in frames.items():
        m = pick(df, "measure", what, required=False)
        if "required_difference" in df.columns and df.height:
            label = str(df[m][0]) if m else name
            required[label] = df["required_difference"][0]
        g, r = pick(df, "group", what), pick(df, "run", what)
        s = pick(df, "score", what, required=False)
        sel = [(pl.col(m).cast(pl.String) if m else pl.lit(name)).alias("measure"),
               pl.col(g).alias("group"), pl.col(r).cast(pl.String).alias("run"),
               (pl.col(s) if s else pl.lit(None)).cast(pl.Float64).alias("score")]
        rows.append(df.select(sel))
    if not rows:
        raise InputError(what, None, "no equivalence groups", "run `qacamp reliability`")
    df = pl.concat(rows)
    measures = df["measure"].unique(maintain_order=True).to_list()
    out = (df.sort(["measure", "group", "score", "run"], descending=[False, False, True, False],
                   nulls_last=True)
           .group_by("measure", "group", maintain_order=True)
           .agg(pl.len().cast(pl.Int64).alias("n_runs"), pl.col("score").max().alias("best"),
                pl.col("score").min().alias("worst"), pl.col("run").str.join(", ").alias("runs")))
    out = (out.with_columns(pl.col("measure").replace_strict(
        {m: i for i, m in enumerate(measures)}, return_dtype=pl.Int64).alias("_o"))
        .sort("_o", "group").drop("_o").with_columns(pl.col("group").cast(pl.String)))
    cols = (Column("measure", "Measure", "text"), Column("group", "Group", "text"),
            Column("n_runs", "Runs", "int"), Column("best", "Best", "f3"),
            Column("worst", "Worst", "f3"), Column("runs", "Members", "text"))
    req = "; ".join(f"{m}: {'not reached (one group)' if v is None else f'{v:.2f}'}"
                    for m, v in required.items())
    return Table("equivalence", "Groups of runs whose score differences are smaller than "
                 "the difference required by the swap method (the lower edge of the first "
                 "difference bin whose error rate is at most the level, read as the "
                 "swap_summary table says; a difference of at least it is reliable); runs in "
                 "a group should be reported as equally effective"
                 + (f" (required difference {req})." if req else "."), out, cols)


def bootstrap_table(frames: dict[str, pl.DataFrame], what: str = "bootstrap_<measure>.parquet"
                    ) -> Table:
    """Discriminative power per measure: run pairs tested, pairs significant,
    their share (from the per-pair ``significant`` flags, or the file's
    ``discriminative_power`` when there is no flag)."""
    rows = []
    for measure, df in frames.items():
        sig = pick(df, "significant", what, required=False)
        power = pick(df, "power", what, required=False)
        if sig is None and power is None:
            pick(df, "significant", what)  # raises, naming the accepted columns
        n = df.height
        k = int(df[sig].cast(pl.Int64).sum()) if sig else None
        p = (k / n if n else None) if sig else float(df[power].drop_nulls()[0])
        rows.append({"measure": measure, "pairs": n, "significant": k,
                     "power_pct": None if p is None else 100.0 * p})
    out = pl.DataFrame(rows, schema={"measure": pl.String, "pairs": pl.Int64,
                                     "significant": pl.Int64, "power_pct": pl.Float64})
    cols = (Column("measure", "Measure", "text"), Column("pairs", "Run pairs", "int"),
            Column("significant", "Significant", "int"),
            Column("power_pct", "Discriminative power %", "pct1"))
    return Table("bootstrap", "Paired bootstrap tests: share of run pairs whose "
                 "difference is significant (discriminative power).", out, cols)


def generic_table(df: pl.DataFrame, name: str, caption: str) -> Table:
    """Any frame, printed by dtype: integers as integers, floats with 3 decimals."""
    cols = []
    for c, dt in df.schema.items():
        fmt = "int" if dt.is_integer() else "f3" if dt.is_float() else "text"
        cols.append(Column(c, c.replace("_", " "), fmt))
    out = df.with_columns([pl.col(c).cast(pl.String) for c, dt in df.schema.items()
                           if not (dt.is_numeric() or dt == pl.String)])
    return Table(name, caption, out, tuple(cols))


# --------------------------------------------------------------------------- editions

def editions_table(editions: Sequence[tuple[str, pl.DataFrame, str]],
                   measure: str = "c_at_1") -> Table:
    """QA4MRE overview Table 1: per edition (label, runs frame, judgment set):
    number of runs, average and best ``measure`` over the participants' runs
    (baselines excluded), the best run, and the average share of unanswered
    questions (n_unanswered / (n_right + n_wrong + n_unanswered))."""
    rows = []
    for label, runs, js in editions:
        wide = wide_scores(runs, js, what=f"{label}: runs.parquet")
        _require_measures(wide, (measure, "n_right", "n_wrong", "n_unanswered"),
                          f"{label}: runs.parquet")
        part = wide.filter(pl.col("block") == BLOCK_RUNS)
        if part.is_empty():
            raise InputError(f"{label}: runs.parquet", None, "no participant runs "
                             "(only baselines)", "check the campaign's runs")
        n = pl.col("n_right") + pl.col("n_wrong") + pl.col("n_unanswered")
        part = part.with_columns(pl.when(n > 0).then(100.0 * pl.col("n_unanswered") / n)
                                 .otherwise(None).alias("pct_u"))
        best = part.sort([measure, "run"], descending=[True, False], nulls_last=True).row(
            0, named=True)
        rows.append({"edition": label, "runs": part.height,
                     "average": part[measure].mean(), "best": best[measure],
                     "best_run": best["run"], "pct_unanswered": part["pct_u"].mean()})
    out = pl.DataFrame(rows, schema={"edition": pl.String, "runs": pl.Int64,
                                     "average": pl.Float64, "best": pl.Float64,
                                     "best_run": pl.String, "pct_unanswered": pl.Float64})
    label = "c@1" if measure == "c_at_1" else measure
    cols = (Column("edition", "Edition", "text"), Column("runs", "Runs", "int"),
            Column("average", f"Average {label}", "f2"), Column("best", f"Best {label}", "f2"),
            Column("best_run", "Best run", "text"),
            Column("pct_unanswered", "Average % unanswered", "pct1"))
    return Table("editions", f"Overview of results per edition: average and best {label} "
                 "over the participants' runs (baselines excluded) and the average "
                 "percentage of unanswered questions (QA4MRE overview, Table 1).", out, cols)


__all__ = ["Column", "Table", "FORMATS", "ALIASES", "run_table", "trec_factoid_run_table",
           "series_run_table", "nonresponse_run_table", "generic_run_table", "c_at_1_table",
           "swap_summary_table", "kendall_table", "agreement_table", "equivalence_table",
           "bootstrap_table", "generic_table", "editions_table", "wide_scores",
           "choose_judgment_set", "questions_per_run", "is_baseline"]
