"""`qacamp report`: the overview paper's tables and figures.

::

    qacamp report tables   --campaign-dir results/<c> --out results/<c>/tables
    qacamp report figures  --campaign-dir results/<c> --out results/<c>/figures
    qacamp report editions --campaign-dir results/a --campaign-dir results/b --out DIR

A campaign directory holds ``ingest/campaign.json`` (its ``kind`` decides
which tables and figures exist), ``scores/*.parquet`` and
``reliability/*.parquet`` (docs/architecture.md).  The files a kind must have
are listed in :func:`expected_files` (campaign.json, runs.parquet, units.parquet
for TREC factoid, and per measure of the reliability plan the swap counts,
fits, summary, stability and bootstrap files); a missing one is an
:class:`~qacamp.errors.InputError` naming it, never a silently skipped table.
Files that no workflow rule writes for every campaign (``kendall.parquet``,
``agreement.parquet``, ``equivalence*.parquet``, ``distributions*.parquet``
under ``reliability/``) are rendered when present.
Tables are written as ``<name>.tex`` (booktabs), ``.md`` and ``.csv``;
figures as ``<name>.png`` and ``.svg``.  The paths written are printed,
sorted, one per line; a rerun gives byte-identical tex / md / csv / svg.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import polars as pl

from ..config import KIND_DEFAULTS, bootstrap_measures, reliability_plan
from ..errors import InputError, UsageError
from ..io import read_parquet as read_pipeline_parquet
from ..io import write_text

#: Kinds whose runs may abstain (c@1 tables and figures).
NONRESPONSE_KINDS = ("qa4mre", "clef-qa", "pan")
KENDALL_FILE = "kendall.parquet"
AGREEMENT_FILE = "agreement.parquet"


# --------------------------------------------------------------------------- loading

def load_campaign(campaign_dir: Path) -> dict:
    """``ingest/campaign.json`` with at least a known ``kind``."""
    path = campaign_dir / "ingest" / "campaign.json"
    if not path.is_file():
        raise InputError(path, None, "file not found",
                         "run `qacamp ingest` for this campaign first (or fix --campaign-dir)")
    try:
        campaign = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(path, f"line {exc.lineno}", f"invalid JSON ({exc.msg})",
                         "rerun `qacamp ingest`") from None
    kind = campaign.get("kind") if isinstance(campaign, dict) else None
    if kind not in KIND_DEFAULTS:
        raise InputError(path, "kind", f"unknown campaign kind {kind!r}",
                         f"use one of {', '.join(KIND_DEFAULTS)}")
    return campaign


def read_parquet(path: Path) -> pl.DataFrame:
    if not path.is_file():
        raise InputError(path, None, "expected file not found",
                         "run the workflow step that writes it (`qacamp score` or "
                         "`qacamp reliability`) for this campaign")
    return read_pipeline_parquet(path)


def plan_measures(campaign: dict, campaign_dir: Path, override: list[str] | None) -> list[str]:
    """Measures with reliability analyses: ``--measure`` if given, else the
    campaign's reliability plan, plus any other measure whose swap summary exists."""
    if override:
        return list(override)
    try:
        measures = list(reliability_plan(campaign)["measures"])
    except Exception:  # noqa: BLE001 - a partial campaign.json: fall back to the files
        measures = []
    rel = campaign_dir / "reliability"
    found = sorted(p.name[len("swap_"):-len("_summary.parquet")]
                   for p in rel.glob("swap_*_summary.parquet")) if rel.is_dir() else []
    return measures + [m for m in found if m not in measures]


def expected_files(kind: str, measures: list[str], reliability: bool = True) -> list[str]:
    """Paths (relative to the campaign directory) the report needs for ``kind``."""
    out = ["ingest/campaign.json", "scores/runs.parquet"]
    if kind == "trec-factoid":
        out.append("scores/units.parquet")
    if reliability:
        for m in measures:
            out += [f"reliability/swap_{m}.parquet", f"reliability/swap_{m}_fits.parquet",
                    f"reliability/swap_{m}_summary.parquet", f"reliability/stability_{m}.parquet"]
        out += [f"reliability/bootstrap_{m}.parquet" for m in bootstrap_measures(measures)]
    return out


class Campaign:
    """The frames of one campaign directory, read lazily, with the checks above."""

    def __init__(self, campaign_dir: str | Path, judgment_set: str | None = None,
                 measures: list[str] | None = None, reliability: bool = True):
        from ..report.tables import choose_judgment_set

        self.dir = Path(campaign_dir)
        self.meta = load_campaign(self.dir)
        self.kind: str = self.meta["kind"]
        self.runs = read_parquet(self.dir / "scores" / "runs.parquet")
        self.judgment_sets = sorted(self.runs["judgment_set"].unique().to_list()) \
            if "judgment_set" in self.runs.columns else []
        preferred = judgment_set or self.meta.get("primary") \
            or self.meta.get("primary_judgment_set")
        if preferred is not None and preferred not in self.judgment_sets and not judgment_set:
            preferred = None
        self.judgment_set = choose_judgment_set(self.runs, preferred,
                                                str(self.dir / "scores" / "runs.parquet"))
        self.reliability = reliability
        self.measures = plan_measures(self.meta, self.dir, measures) if reliability else []
        missing = [p for p in expected_files(self.kind, self.measures, reliability) if not (self.dir / p).is_file()]
        if missing:
            raise InputError(self.dir / missing[0], None,
                             f"expected file not found for a '{self.kind}' campaign"
                             + (f" (also missing: {', '.join(missing[1:])})" if missing[1:]
                                else ""),
                             "run the workflow steps before `qacamp report` (or pass "
                             "--no-reliability for a scores-only report)")

    @property
    def label(self) -> str:
        options = self.meta.get("options") or {}
        for value in (options.get("edition"), options.get("year"), self.meta.get("edition"),
                      self.meta.get("name")):
            if value not in (None, ""):
                return str(value)
        return self.dir.name

    @property
    def full_size_unit(self) -> str:
        return KIND_DEFAULTS[self.kind]["unit"]

    def rel(self, name: str) -> pl.DataFrame:
        return read_parquet(self.dir / "reliability" / name)

    def rel_path(self, name: str) -> str:
        return str(self.dir / "reliability" / name)

    def optional(self, pattern: str) -> list[Path]:
        rel = self.dir / "reliability"
        return sorted(rel.glob(pattern)) if rel.is_dir() else []

    def test_topics(self) -> dict[str, str]:
        """Reading test -> topic from ``ingest/questions.parquet`` (empty if absent)."""
        path = self.dir / "ingest" / "questions.parquet"
        if not path.is_file():
            return {}
        q = read_parquet(path)
        if not {"test", "topic"} <= set(q.columns):
            return {}
        pairs = q.select("test", "topic").drop_nulls().unique().sort("test", "topic")
        return dict(zip(pairs["test"].to_list(), pairs["topic"].to_list(), strict=True))


# --------------------------------------------------------------------------- building

def build_tables(c: Campaign) -> list:
    """Every table of the campaign (pure functions of the frames read)."""
    from ..report import tables as T

    runs_path = str(c.dir / "scores" / "runs.parquet")
    units = read_parquet(c.dir / "scores" / "units.parquet") if c.kind == "trec-factoid" else None
    out = [T.run_table(c.runs, c.kind, c.judgment_set, units=units, what=runs_path)]
    if c.kind in NONRESPONSE_KINDS:
        out.append(T.c_at_1_table(c.runs, c.judgment_set, what=runs_path))
    if c.measures:
        out.append(T.swap_summary_table([c.rel(f"swap_{m}_summary.parquet") for m in c.measures],
                                        what=c.rel_path("swap_<measure>_summary.parquet")))
        out.append(T.bootstrap_table({m: c.rel(f"bootstrap_{m}.parquet")
                                      for m in bootstrap_measures(c.measures)},
                                     what=c.rel_path("bootstrap_<measure>.parquet")))
    if c.reliability:
        kendall = c.dir / "reliability" / KENDALL_FILE
        if kendall.is_file():
            out.append(T.kendall_table(read_parquet(kendall), what=str(kendall)))
        agreement = c.dir / "reliability" / AGREEMENT_FILE
        if agreement.is_file():
            out.append(T.agreement_table(read_parquet(agreement), what=str(agreement)))
        eq = c.optional("equivalence*.parquet")
        if eq:
            frames = {p.stem.removeprefix("equivalence").lstrip("_") or "-": read_parquet(p)
                      for p in eq}
            out.append(T.equivalence_table(frames, what=c.rel_path("equivalence*.parquet")))
        for p in c.optional("distributions*.parquet"):
            out.append(T.generic_table(read_parquet(p), p.stem,
                                       f"Per-unit score distributions ({p.name})."))
    return out


def write_tables(tables: list, out_dir: Path) -> list[Path]:
    from ..report.formats import to_csv
    from ..report.latex import to_latex
    from ..report.markdown import to_markdown

    written = []
    for table in tables:
        for ext, text in (("tex", to_latex(table)), ("md", to_markdown(table)),
                          ("csv", to_csv(table))):
            path = out_dir / f"{table.name}.{ext}"
            write_text(text, path)
            written.append(path)
    return written


def build_figures(c: Campaign) -> dict:
    """name -> figure for every figure of the campaign."""
    from ..report import figures as F

    figs = {}
    full = None
    for m in c.measures:
        summary = c.rel(f"swap_{m}_summary.parquet")
        full = int(summary["full_size"][0]) if "full_size" in summary.columns and \
            summary.height else None
        level = float(summary["level"][0]) if "level" in summary.columns and \
            summary.height else 0.05
        req = summary["required_difference"][0] if "required_difference" in summary.columns \
            and summary.height else None
        counts, fits = c.rel(f"swap_{m}.parquet"), c.rel(f"swap_{m}_fits.parquet")
        if full is None:
            raise InputError(c.rel_path(f"swap_{m}_summary.parquet"), None,
                             "no full_size", "rerun `qacamp reliability`")
        figs[f"swap_{m}"] = F.swap_curves_figure(counts, fits, m, full, level=level,
                                                 unit=c.full_size_unit, required_difference=req,
                                                 summary=summary)
    if c.measures:
        stab = {m: c.rel(f"stability_{m}.parquet") for m in c.measures}
        size = (c.meta.get("reliability") or {}).get("stability", {}).get("size") \
            or KIND_DEFAULTS[c.kind]["stability"]["size"]
        figs["stability"] = F.stability_figure(stab, size=size)
    runs_path = str(c.dir / "scores" / "runs.parquet")
    if c.kind == "trec-series":
        figs["series_boxplot"] = F.series_boxplot_figure(c.runs, c.judgment_set, what=runs_path)
        figs["top_runs"] = F.top_runs_figure(c.runs, c.judgment_set, what=runs_path)
    if c.kind == "qa4mre":
        figs["reading_tests"] = F.reading_tests_figure(c.runs, c.judgment_set, c.test_topics(),
                                                       what=runs_path)
    return figs


# --------------------------------------------------------------------------- commands

def _print(paths: list[Path]) -> None:
    for p in sorted(str(x) for x in paths):
        print(p)


def cmd_tables(args: argparse.Namespace) -> int:
    c = Campaign(args.campaign_dir, args.judgment_set, args.measure, not args.no_reliability)
    _print(write_tables(build_tables(c), Path(args.out)))
    return 0


def cmd_figures(args: argparse.Namespace) -> int:
    from ..report.figures import save_figure

    c = Campaign(args.campaign_dir, args.judgment_set, args.measure, not args.no_reliability)
    written = []
    for name, fig in sorted(build_figures(c).items()):
        written += save_figure(fig, Path(args.out) / name, dpi=args.dpi)
    _print(written)
    return 0


def cmd_editions(args: argparse.Namespace) -> int:
    from ..report.figures import natural_key
    from ..report.tables import editions_table

    dirs = args.campaign_dir
    if len(dirs) < 2:
        raise UsageError("report editions: give --campaign-dir at least twice")
    camps = [Campaign(d, args.judgment_set, reliability=False) for d in dirs]
    labels = [c.label for c in camps]
    if len(set(labels)) != len(labels):
        labels = [c.dir.name for c in camps]
    editions = sorted(zip(labels, camps, strict=True), key=lambda lc: natural_key(lc[0]))
    table = editions_table([(lab, c.runs, c.judgment_set) for lab, c in editions],
                           measure=args.measure_name)
    _print(write_tables([table], Path(args.out)))
    return 0


def run(args: argparse.Namespace) -> int:
    return args.report_func(args)


def register(sub) -> None:
    p = sub.add_parser("report", help="write the overview paper's tables and figures",
                       description=__doc__.split("::")[0].strip(),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(func=run)
    what = p.add_subparsers(dest="report_command", metavar="WHAT", required=True)
    for name, func, hlp in (("tables", cmd_tables, "tables as .tex, .md and .csv"),
                            ("figures", cmd_figures, "figures as .png and .svg")):
        q = what.add_parser(name, help=hlp)
        q.add_argument("--campaign-dir", required=True, help="results/<campaign>")
        q.add_argument("--out", required=True, help="output folder")
        q.add_argument("--judgment-set", help="judgment set to report (default: the primary)")
        q.add_argument("--measure", action="append",
                       help="measure with reliability analyses (repeatable; default: the plan)")
        q.add_argument("--no-reliability", action="store_true",
                       help="scores only: do not read reliability/")
        if name == "figures":
            q.add_argument("--dpi", type=int, default=150, help="PNG resolution (default 150)")
        q.set_defaults(report_func=func)
    e = what.add_parser("editions", help="overview of several editions (QA4MRE Table 1)")
    e.add_argument("--campaign-dir", action="append", required=True,
                   help="results/<campaign> (repeat, one per edition)")
    e.add_argument("--out", required=True, help="output folder")
    e.add_argument("--judgment-set", help="judgment set (default: each campaign's primary)")
    e.add_argument("--measure", dest="measure_name", default="c_at_1",
                   help="measure to average (default c_at_1)")
    e.set_defaults(report_func=cmd_editions)


if __name__ == "__main__":  # pragma: no cover
    from . import main

    sys.exit(main(["report", *sys.argv[1:]]))
