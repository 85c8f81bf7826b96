"""Reading one campaign's result folder for the report (``<outdir>/<campaign>/``).

A campaign folder holds ``ingest/campaign.json`` (its ``kind`` decides which
tables and figures exist), ``scores/*.parquet``, ``reliability/*.parquet``,
``plan.json`` (the resolved reliability plan) and ``manifest.json``
(provenance) (docs/architecture.md).  The files a kind must have are listed
in :func:`expected_files` (campaign.json, runs.parquet, units.parquet for
the TREC factoid run table, and per measure of the reliability plan the swap counts, fits,
summary, stability and bootstrap files); a missing one is an
:class:`~qacamp.errors.InputError` naming it, never a silently skipped
table.  Files that no workflow rule writes for every campaign
(``kendall.parquet``, ``agreement.parquet``, ``equivalence*.parquet``,
``significance_<m>.parquet`` and its summary,
``distributions*.parquet``, ``ingest/warnings.parquet``,
``scores/dropped.parquet``, ``manifest.json``) are used when present.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

import polars as pl

from ..errors import InputError
from ..io import read_bytes
from ..io import read_json as read_pipeline_json
from ..io import read_parquet as read_pipeline_parquet
from ..kinds import KINDS, Edition
from ..measures import label
from ..plan import reliability_plan
from ..reliability.analyses import declared_schema
from .tables import choose_judgment_set

KENDALL_FILE = "kendall.parquet"
AGREEMENT_FILE = "agreement.parquet"


def read_json(path: Path, what: str = "file") -> dict:
    """A JSON object qacamp wrote at ``path``, verified against its record
    (InputError naming the file and line if invalid or changed)."""
    if not path.is_file():
        raise InputError(path, None, f"{what} not found",
                         "run the workflow step that writes it for this campaign first")
    return read_pipeline_json(path, what)


def load_campaign(campaign_dir: Path) -> dict:
    """``ingest/campaign.json`` with at least a known ``kind``."""
    path = campaign_dir / "ingest" / "campaign.json"
    if not path.is_file():
        raise InputError(path, None, "file not found",
                         "run `qacamp ingest` for this campaign first (or fix --campaign-dir)")
    campaign = read_json(path, "campaign.json")
    kind = campaign.get("kind")
    if kind not in KINDS:
        raise InputError(path, "kind", f"unknown campaign kind {kind!r}",
                         f"use one of {', '.join(KINDS)}")
    return campaign


def read_parquet(path: Path) -> pl.DataFrame:
    """An intermediate of the campaign folder, verified against its record, its
    declared columns (:func:`qacamp.reliability.analyses.declared_schema`) checked for their types (the
    report uses some columns of each file; a file without any is refused)."""
    if not path.is_file():
        raise InputError(path, None, "expected file not found",
                         "run the workflow step that writes it (`qacamp score` or "
                         "`qacamp reliability`) for this campaign")
    return read_pipeline_parquet(path, schema=declared_schema(path), strict=False)


def report_settings(campaign_dir: Path) -> dict:
    """The campaign's report settings (config ``report``) from ``plan.json``,
    empty when it has none: the kind's defaults apply."""
    path = campaign_dir / "plan.json"
    if path.is_file():
        settings = read_json(path, "plan.json").get("report")
        if isinstance(settings, dict):
            return settings
    return {}


def campaign_plan(campaign: dict, campaign_dir: Path) -> dict:
    """The resolved reliability plan: ``plan.json`` written by the workflow when
    present (it includes the config's top-level settings), else the plan of
    ``campaign.json`` alone; empty if neither resolves."""
    path = campaign_dir / "plan.json"
    if path.is_file():
        plan = read_json(path, "plan.json").get("reliability_plan")
        if isinstance(plan, dict):
            return plan
    try:
        return reliability_plan(campaign)
    except Exception:  # noqa: BLE001 - a partial campaign.json: no plan, files decide
        return {}


def plan_measures(plan: dict, campaign_dir: Path, override: list[str] | None) -> list[str]:
    """Measures with reliability analyses: ``--measure`` if given, else the
    plan's, plus any other measure whose swap summary exists."""
    if override:
        return list(override)
    measures = list(plan.get("measures") or [])
    rel = campaign_dir / "reliability"
    found = sorted(p.name[len("swap_"):-len("_summary.parquet")]
                   for p in rel.glob("swap_*_summary.parquet")) if rel.is_dir() else []
    return measures + [m for m in found if m not in measures]


def expected_files(measures: list[str], reliability: bool = True) -> list[str]:
    """Paths (relative to the campaign directory) the report needs for a
    campaign with reliability analyses of ``measures``."""
    out = ["ingest/campaign.json", "scores/runs.parquet"]
    if reliability:
        for m in measures:
            out += [f"reliability/swap_{m}.parquet", f"reliability/swap_{m}_fits.parquet",
                    f"reliability/swap_{m}_summary.parquet", f"reliability/stability_{m}.parquet"]
        out += [f"reliability/bootstrap_{m}.parquet" for m in measures]
    return out


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def read_figures(figures_dir: Path) -> dict[str, bytes]:
    """name -> PNG bytes of every ``<name>.png`` in ``figures_dir`` (a file that
    is not a PNG is an InputError naming it)."""
    if not figures_dir.is_dir():
        raise InputError(figures_dir, None, "figures folder not found",
                         "run `qacamp report figures` for this campaign first")
    out = {}
    for path in sorted(figures_dir.glob("*.png")):
        data = read_bytes(path)
        if not data.startswith(PNG_SIGNATURE):
            raise InputError(path, None, "not a PNG file",
                             "rerun `qacamp report figures` (the workflow: the same command)")
        out[path.stem] = data
    return out


class Campaign:
    """The frames of one campaign directory, read lazily, with the checks above."""

    def __init__(self, campaign_dir: str | Path, judgment_set: str | None = None,
                 measures: list[str] | None = None, reliability: bool = True):
        self.dir = Path(campaign_dir)
        self.meta = load_campaign(self.dir)
        self.kind: str = self.meta["kind"]
        self.spec = KINDS[self.kind]
        self.runs = read_parquet(self.dir / "scores" / "runs.parquet")
        self.judgment_sets = sorted(self.runs["judgment_set"].unique().to_list()) \
            if "judgment_set" in self.runs.columns else []
        preferred = judgment_set or self.meta.get("primary") \
            or self.meta.get("primary_judgment_set")
        if preferred is not None and preferred not in self.judgment_sets and not judgment_set:
            preferred = None
        self.judgment_set = choose_judgment_set(self.runs, preferred, self.path("scores",
                                                                                "runs.parquet"))
        self.reliability = reliability
        self.plan = campaign_plan(self.meta, self.dir)
        self.measures = plan_measures(self.plan, self.dir, measures) if reliability else []
        self.settings = report_settings(self.dir)
        missing = [p for p in expected_files(self.measures, reliability)
                   if not (self.dir / p).is_file()]
        if missing:
            raise InputError(self.dir / missing[0], None,
                             f"expected file not found for a '{self.kind}' campaign"
                             + (f" (also missing: {', '.join(missing[1:])})" if missing[1:]
                                else ""),
                             "run the workflow steps before `qacamp report` (or pass "
                             "--no-reliability for a scores-only report)")

    @cached_property
    def rules(self) -> Edition | None:
        """The edition whose rules apply (:meth:`qacamp.kinds.Kind.edition`: TREC
        2003 by its preset or its scored definition questions, the ``qtype``
        rows of ``runs.parquet``), None for the kind's own."""
        if not self.spec.editions:
            return None
        qtypes = ()
        if {"scope", "unit"} <= set(self.runs.columns):
            qtypes = self.runs.filter(pl.col("scope") == "qtype")["unit"].unique().to_list()
        return self.spec.edition(self.meta.get("preset"), qtypes, self.edition)

    @property
    def kind_title(self) -> str:
        """The kind as the pages name it (TREC 2003's own rules by its edition)."""
        return self.rules.title if self.rules else self.spec.title

    @property
    def chosen(self) -> dict:
        """The organizer's run table (config ``report.run_table``), empty if none."""
        return dict(self.settings.get("run_table") or {})

    @property
    def headline(self) -> str:
        """The measure the pages are headed and ranked by: the organizer's
        (``report.run_table.headline``), else the edition's (TREC 2003: the
        final score), the kind's (CWS, series score, c@1, PAN's overall), a
        score matrix's own ``measure`` (``ap``)."""
        if self.chosen.get("headline"):
            return str(self.chosen["headline"])
        if self.rules:
            return self.rules.headline
        return self.spec.headline or self.measure_name or (self.measures[0] if self.measures
                                                           else "score")

    @property
    def headline_label(self) -> str:
        if self.rules and not self.chosen.get("headline"):
            return self.rules.label
        return label(self.headline)

    @property
    def run_spec(self):
        """What the run table shows (:class:`~.tables.RunTableSpec`): the
        organizer's headline, columns and decimals where the config gives
        them, else the edition's or the kind's."""
        from .tables import RunTableSpec, score_decimals
        from .tables.runs import skippable_measures

        chosen = self.chosen
        default = self.rules.run_columns if self.rules else self.spec.run_columns
        columns = chosen.get("columns")
        decimals = chosen.get("decimals")
        return RunTableSpec(self.headline, tuple(default if columns is None else columns),
                            score_decimals(self.kind) if decimals is None else int(decimals),
                            skippable_measures(self.kind) if columns is None else ())

    @property
    def run_table(self) -> str:
        """The kind of run table of this campaign (the edition's or the kind's):
        its captions, headers and notes."""
        return self.rules.run_table if self.rules else self.spec.run_table

    @property
    def name(self) -> str:
        return str(self.meta.get("name") or self.dir.name)

    @property
    def label(self) -> str:
        """The edition (or year) for the multi-edition overview, else the name."""
        options = self.meta.get("options") or {}
        for value in (options.get("edition"), options.get("year"), self.meta.get("edition"),
                      self.meta.get("name")):
            if value not in (None, ""):
                return str(value)
        return self.dir.name

    @property
    def edition(self) -> str | None:
        """The campaign's ``edition`` (config key), None when it names none."""
        value = (self.meta.get("options") or {}).get("edition") or self.meta.get("edition")
        return None if value in (None, "") else str(value)

    @property
    def unit(self) -> str:
        """The unit of the reliability analyses and the full-size collection."""
        unit = self.plan.get("unit") or KINDS[self.kind].reliability["unit"]
        return self.spec.unit_name if unit == "question" else unit

    def path(self, *parts: str) -> str:
        return str(self.dir.joinpath(*parts))

    def rel(self, name: str) -> pl.DataFrame:
        return read_parquet(self.dir / "reliability" / name)

    def rel_path(self, name: str) -> str:
        return self.path("reliability", name)

    def optional(self, pattern: str) -> list[Path]:
        rel = self.dir / "reliability"
        return sorted(rel.glob(pattern)) if rel.is_dir() else []

    def optional_frame(self, *parts: str) -> pl.DataFrame | None:
        path = self.dir.joinpath(*parts)
        return read_parquet(path) if path.is_file() else None

    def units(self) -> pl.DataFrame:
        return read_parquet(self.dir / "scores" / "units.parquet")

    def dropped(self) -> pl.DataFrame:
        """``scores/dropped.parquet`` of the reported judgment set (empty if absent)."""
        df = self.optional_frame("scores", "dropped.parquet")
        if df is None or "judgment_set" not in df.columns:
            return pl.DataFrame(schema={"judgment_set": pl.String, "scope": pl.String,
                                        "unit": pl.String, "reason": pl.String})
        return df.filter(pl.col("judgment_set") == self.judgment_set)

    def dropped_series(self) -> list[tuple[str, str]]:
        df = self.dropped().filter(pl.col("scope") == "series")
        return [(str(u), str(r)) for u, r in df.select("unit", "reason").iter_rows()]

    def warnings(self) -> pl.DataFrame | None:
        """``ingest/warnings.parquet`` (None if absent)."""
        return self.optional_frame("ingest", "warnings.parquet")

    def questions(self) -> pl.DataFrame | None:
        return self.optional_frame("ingest", "questions.parquet")

    def manifest(self) -> dict | None:
        path = self.dir / "manifest.json"
        return read_json(path, "manifest.json") if path.is_file() else None

    def matrix(self) -> pl.DataFrame | None:
        """``ingest/matrix.parquet`` (a score-matrix campaign's unit x run scores)."""
        return self.optional_frame("ingest", "matrix.parquet")

    @property
    def measure_name(self) -> str | None:
        """A score-matrix campaign's ``measure`` (config key; default ``score``)."""
        if self.spec.family != "matrix":
            return None
        return str((self.meta.get("options") or {}).get("measure") or "score")

    @property
    def count_unit(self) -> str:
        """What :meth:`n_units` counts: questions (PAN: problems), or a score
        matrix's units (its reliability unit, e.g. topic)."""
        if self.spec.family == "matrix":
            return self.unit
        return self.spec.unit_name

    def n_units(self) -> int | None:
        """How many units the campaign has: its questions (PAN: problems), or a
        score matrix's units (topics); None when the file is absent."""
        if self.spec.family == "matrix":
            m = self.matrix()
            return m["unit"].n_unique() if m is not None and "unit" in m.columns else None
        q = self.questions()
        return q.height if q is not None else None

    def auxiliary_questions(self) -> int:
        """QA4MRE auxiliary questions (scored apart; same rule as the scorer)."""
        from ..scoring.context import auxiliary

        q = self.questions()
        if not self.spec.reading_tests or q is None or not q.height:
            return 0
        main = (self.meta.get("options") or {}).get("main_questions")
        if "auxiliary_of" not in q.columns:
            q = q.with_columns(pl.lit(None, pl.String).alias("auxiliary_of"))
        return int(q.select(auxiliary(self.kind, main).sum()).item())

    def topic_names(self) -> dict[str, str]:
        """Topic id -> its name from the gold (``t_name``); empty when none."""
        q = self.questions()
        if q is None or not {"topic", "topic_name"} <= set(q.columns):
            return {}
        pairs = q.select("topic", "topic_name").drop_nulls().unique()
        return {str(t): str(n) for t, n in pairs.iter_rows() if str(n).strip()}

    def test_topics(self) -> dict[str, str]:
        """Reading test -> topic from ``ingest/questions.parquet`` (empty if absent)."""
        q = self.questions()
        if q is None or not {"test", "topic"} <= set(q.columns):
            return {}
        pairs = q.select("test", "topic").drop_nulls().unique().sort("test", "topic")
        return dict(zip(pairs["test"].to_list(), pairs["topic"].to_list(), strict=True))


__all__ = ["Campaign", "KENDALL_FILE", "AGREEMENT_FILE",
           "load_campaign", "read_parquet", "read_json", "campaign_plan", "plan_measures",
           "report_settings",
           "expected_files", "read_figures"]
