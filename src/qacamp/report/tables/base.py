"""Table building blocks: :class:`Table`, :class:`Column` and the frame helpers
shared by :mod:`.runs` (run tables, breakdowns, editions) and
:mod:`.reliability` (swap summary, Kendall tau, agreement, equivalence,
bootstrap, distributions).

A :class:`Table` is a polars frame (raw numbers, written as-is to CSV) plus
the presentation that LaTeX, Markdown and HTML need: printed headers, a
number format per column, an optional block column (runs, then baselines), a
caption and notes.  Nothing here reads or writes files.

Inputs follow docs/architecture.md: ``runs.parquet`` (judgment_set, run,
measure, scope, unit, value), ``units.parquet`` (judgment_set, run, measure,
unit, value) and the reliability frames.  Where a reliability frame's column
names vary, each role accepts a short list of aliases (:data:`ALIASES`); a
frame with none of them is an :class:`~qacamp.errors.InputError` naming the
table and the missing role.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import polars as pl

from ...errors import InputError
from ...kinds import KINDS
from ...measures import label
from ...names import BASELINE_PREFIX

#: Number formats of a column: text, a measure name (printed as its registry
#: label, the CSV keeps the name), integer, fixed decimals, a percentage (the
#: value is already in percent and printed with one decimal).
FORMATS = ("text", "measure", "int", "f2", "f3", "f4", "pct1")
BLOCK_RUNS = "runs"
BLOCK_BASELINES = "baselines"


@dataclass(frozen=True)
class Column:
    """One printed column: frame column ``key``, header text, number format."""

    key: str
    header: str
    fmt: str = "f3"
    #: LaTeX paragraph width for long text (e.g. ``0.45\\linewidth``): a ``p{}``
    #: column that wraps instead of an ``l`` column
    width: str | None = None

    def __post_init__(self) -> None:
        if self.fmt not in FORMATS:
            raise ValueError(f"column {self.key!r}: unknown format {self.fmt!r}")


@dataclass(frozen=True)
class Table:
    """A paper table: ``frame`` (what goes to CSV) and how to print it.

    ``block`` names a frame column splitting the rows into blocks printed in
    order of first appearance (e.g. ``runs`` then ``baselines``); ``notes``
    are printed under the table.  ``title``: what the table is, in words
    ("Run scores"), printed before the caption (Markdown, the page); the
    ``name`` is its files' name (``runs.md``).  ``method``: the sentence
    saying how the numbers were obtained, which the files print after the
    caption and the page says once per section (the caption points to it).
    """

    name: str
    caption: str
    frame: pl.DataFrame
    columns: tuple[Column, ...]
    block: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    title: str = ""
    method: str = ""

    @property
    def heading(self) -> str:
        """The title, or the file name in words when the table has none."""
        return self.title or cap(self.name.replace("_", " "))

    @property
    def lead(self) -> str:
        """The heading printed before the caption, or nothing when the caption
        already begins with it ("Run scores (judgment set ...)": said once)."""
        return "" if self.caption.startswith(self.heading) else self.heading

    @property
    def full_caption(self) -> str:
        """The caption with its method sentence (the files' caption)."""
        return f"{self.caption} {self.method}".strip()

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
    return wide.with_columns(block_expr())


def block_expr() -> pl.Expr:
    return (pl.when(pl.col("run").str.starts_with(BASELINE_PREFIX))
            .then(pl.lit(BLOCK_BASELINES)).otherwise(pl.lit(BLOCK_RUNS)).alias("block"))


def require_measures(wide: pl.DataFrame, measures: Iterable[str], what: str) -> None:
    missing = [m for m in measures if m not in wide.columns]
    if missing:
        raise InputError(what, None, f"measure(s) {', '.join(missing)} not scored",
                         "rerun `qacamp score` with the current measure registry")


def sort_runs(df: pl.DataFrame, key: str) -> pl.DataFrame:
    """Runs block first, then baselines; within a block by ``key`` descending
    (nulls last), ties by run name."""
    return (df.with_columns((pl.col("block") == BLOCK_BASELINES).alias("_b"))
            .sort(["_b", key, "run"], descending=[False, True, False], nulls_last=True)
            .drop("_b"))


def cap(text: str) -> str:
    """``text`` with a capital first letter, for headers and titles ("Series
    score"), but not a symbol-like name ("c@1" stays "c@1")."""
    text = str(text)
    first = text.split(" ", 1)[0]
    return text[0].upper() + text[1:] if text and first.isalpha() and first.islower() else text


def measure_header(name: str) -> str:
    """A column header for a measure: its registry label, capitalised; a name
    the registry does not know (a score matrix's ``measure: ap``) exactly as the
    organizer wrote it (``ap``, never "Ap")."""
    from ...measures import REGISTRY

    return cap(label(name)) if name in REGISTRY else str(name)


def score_decimals(kind: str | None) -> int:
    """Decimals of the scores on a campaign's page and in its tables (the kind
    record's ``score_decimals``: two for the CLEF kinds scored with c@1, as the
    c@1 paper's and QA4MRE overviews' tables print c@1, accuracy and UF; three
    otherwise: TREC's CWS, series scores, PAN's measures).  One number of
    decimals per measure across a page."""
    return KINDS[kind].score_decimals if kind in KINDS else 3


def score_format(kind: str | None) -> str:
    """The column format (:data:`FORMATS`) of a campaign's scores."""
    return f"f{score_decimals(kind)}"


def cast_counts(df: pl.DataFrame, cols: Iterable[str]) -> pl.DataFrame:
    return df.with_columns([pl.col(c).round(0).cast(pl.Int64) for c in cols if c in df.columns])


def questions_per_run(units: pl.DataFrame, judgment_set: str, measure: str = "accuracy",
                      what: str = "units.parquet") -> pl.DataFrame:
    """``run, n``: the number of questions each run was scored on (units rows of ``measure``)."""
    require_columns(units, ("judgment_set", "run", "measure", "unit"), what)
    df = units.filter((pl.col("judgment_set") == judgment_set) & (pl.col("measure") == measure))
    return df.group_by("run").agg(pl.col("unit").n_unique().cast(pl.Int64).alias("n")).sort("run")




__all__ = ["Column", "Table", "FORMATS", "ALIASES", "BLOCK_RUNS", "BLOCK_BASELINES", "pick",
           "require_columns", "judgment_sets", "choose_judgment_set", "wide_scores",
           "block_expr", "require_measures", "sort_runs", "cap", "measure_header",
           "cast_counts", "questions_per_run", "score_decimals", "score_format"]
