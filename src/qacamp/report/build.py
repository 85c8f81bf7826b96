"""Which tables and figures a campaign has, built from its frames, and
writing them (tables as ``<name>.tex`` (booktabs), ``.md`` and ``.csv``;
figures as ``<name>.png`` and ``.svg``; every file written atomically, a
rerun gives byte-identical files).

Tables: the run table (the organizer's columns, config ``report.run_table``,
or those of the kind's paper) with the letters of runs that cannot be told
apart; breakdowns per question type and per topic when there are at least
two such units, and every run's score per topic (QA4MRE); per measure of the reliability plan
the swap summary, bootstrap, the significance test, the runs each run cannot
be told apart from (letters) and the agreement of the three analyses; Kendall
tau; assessor agreement only when several
assessors judged the same responses (a single-assessor campaign has no
table, not an empty one); the per-type distributions.  Figures: per measure
the swap curves and the matrix of adjusted p-values, one stability figure, and per kind the per-series box plot
and top runs (question series) or the reading tests (QA4MRE).
"""

from __future__ import annotations

from pathlib import Path

from ..io import write_text
from .campaign import AGREEMENT_FILE, KENDALL_FILE, Campaign, read_parquet
from .sections import SECTIONS
from .tables import (
    Table,
    agreement_table,
    bootstrap_table,
    breakdown_table,
    distributions_table,
    kendall_table,
    run_table,
    runs_by_unit_table,
    score_format,
    swap_summary_table,
)

#: breakdown scopes with a table (series and reading tests have figures)
BREAKDOWN_SCOPES = ("qtype", "topic")


def has_agreement(agreement) -> bool:
    """Several assessors judged common responses and some disagreed."""
    from .tables import agreement_counts

    return agreement.height > 0 and agreement_counts(agreement)[1] > 0


def build_tables(c: Campaign) -> dict[str, Table]:
    """name -> table, in the order of the overview page (pure functions of the
    frames read)."""
    table = campaign_run_table(c)
    for s in SECTIONS.values():
        table = s.run_table(c, table)
    out = [table]
    fmt = score_format(c.kind)
    names = c.topic_names()
    for scope in BREAKDOWN_SCOPES:
        table = breakdown_table(c.runs, c.judgment_set, c.kind, scope,
                                  what=c.path("scores", "runs.parquet"), topic_names=names)
        if table.frame.height >= 2:
            out.append(table)
    per_topic = runs_by_unit_table(c.runs, c.judgment_set, c.kind, "topic",
                                   c.spec.breakdown_measure, c.path("scores", "runs.parquet"),
                                   names, c.run_spec.decimals)
    if len(per_topic.columns) >= 3:  # two topics or more
        out.append(per_topic)
    if c.measures:
        out.append(swap_summary_table([c.rel(f"swap_{m}_summary.parquet") for m in c.measures],
                                        what=c.rel_path("swap_<measure>_summary.parquet"),
                                        score_fmt=fmt))
        boot = c.measures
        summaries = {m: c.rel(f"bootstrap_{m}_summary.parquet") for m in boot
                     if (c.dir / "reliability" / f"bootstrap_{m}_summary.parquet").is_file()}
        out.append(bootstrap_table({m: c.rel(f"bootstrap_{m}.parquet") for m in boot},
                                     what=c.rel_path("bootstrap_<measure>.parquet"),
                                     summaries=summaries or None, score_fmt=fmt))
    if c.reliability:
        for s in SECTIONS.values():
            out += s.tables(c)
        kendall = c.dir / "reliability" / KENDALL_FILE
        if kendall.is_file():
            frame = read_parquet(kendall)
            if frame.height:
                out.append(kendall_table(frame, what=str(kendall)))
        agreement = c.dir / "reliability" / AGREEMENT_FILE
        if agreement.is_file():
            frame = read_parquet(agreement)
            if has_agreement(frame):
                out.append(agreement_table(frame, what=str(agreement)))
        for p in c.optional("distributions*.parquet"):
            frame = read_parquet(p)
            if frame.height:
                out.append(distributions_table(frame, what=str(p), unit=c.count_unit))
    return {t.name: t for t in out}


def campaign_run_table(c: Campaign) -> Table:
    """The campaign's run table: the organizer's or the kind's columns
    (:attr:`.campaign.Campaign.run_spec`), a score matrix's units."""
    return run_table(c.runs, c.kind, c.judgment_set, c.run_spec,
                     what=c.path("scores", "runs.parquet"), n_units=c.n_units(), unit=c.unit,
                     table=c.run_table)


def latex_label_prefix(name: str) -> str:
    """``tab:<campaign>-``: LaTeX labels unique across the campaigns of a paper."""
    return f"tab:{name}-"


def build_texts(c: Campaign) -> dict[str, str]:
    """file name -> text of the sections' other tables (the comparison tables
    with superscripts: :attr:`.sections.Section.texts`)."""
    out: dict[str, str] = {}
    if c.reliability:
        for s in SECTIONS.values():
            out.update(s.texts(c))
    return out


def write_texts(texts: dict[str, str], out_dir: Path) -> list[Path]:
    written = []
    for name, text in sorted(texts.items()):
        write_text(text, out_dir / name)
        written.append(out_dir / name)
    return written


def write_tables(tables: list[Table], out_dir: Path, label_prefix: str = "tab:") -> list[Path]:
    """Every table as ``.tex`` (labels ``<label_prefix><table name>``), ``.md``
    and ``.csv`` under ``out_dir``."""
    from .formats import to_csv
    from .latex import to_latex
    from .markdown import to_markdown

    written = []
    for table in tables:
        for ext, text in (("tex", to_latex(table, label_prefix)), ("md", to_markdown(table)),
                          ("csv", to_csv(table))):
            path = out_dir / f"{table.name}.{ext}"
            write_text(text, path)
            written.append(path)
    return written


def stability_size(c: Campaign, frames: dict) -> int | None:
    """The subset size of the stability experiment (the frames' ``size``, else the plan's)."""
    for df in frames.values():
        if "size" in df.columns and df.height:
            return int(df["size"][0])
    return (c.plan.get("stability") or {}).get("size")


def build_figures(c: Campaign) -> dict:
    """name -> figure for every figure of the campaign."""
    from ..errors import InputError
    from .figures import (
        reading_tests_figure,
        series_boxplot_figure,
        stability_figure,
        swap_curves_figure,
        top_runs_figure,
    )

    figs = {}
    for m in c.measures:
        summary = c.rel(f"swap_{m}_summary.parquet")
        if "full_size" not in summary.columns or not summary.height:
            raise InputError(c.rel_path(f"swap_{m}_summary.parquet"), None, "no full_size",
                             "rerun `qacamp reliability`")
        row = summary.row(0, named=True)
        figs[f"swap_{m}"] = swap_curves_figure(
            c.rel(f"swap_{m}.parquet"), c.rel(f"swap_{m}_fits.parquet"), m,
            int(row["full_size"]), level=float(row.get("level") or 0.05), unit=c.unit,
            required_difference=row.get("required_difference"), summary=summary)
    if c.measures:
        stab = {m: c.rel(f"stability_{m}.parquet") for m in c.measures}
        figs["stability"] = stability_figure(stab, size=stability_size(c, stab), unit=c.unit)
    for s in SECTIONS.values():
        figs.update(s.figures(c))
    runs_path = c.path("scores", "runs.parquet")
    if "series" in c.spec.figures:
        figs["series_boxplot"] = series_boxplot_figure(c.runs, c.judgment_set, what=runs_path,
                                                         dropped=c.dropped_series())
        figs["top_runs"] = top_runs_figure(c.runs, c.judgment_set, what=runs_path)
    if "reading_tests" in c.spec.figures:
        threshold = (c.meta.get("options") or {}).get("pass_threshold", 0.5)
        figs["reading_tests"] = reading_tests_figure(c.runs, c.judgment_set, c.test_topics(),
                                                       what=runs_path, pass_mark=threshold,
                                                       topic_names=c.topic_names())
    return figs


def write_figures(figs: dict, out_dir: Path, dpi: int) -> list[Path]:
    from .figures import save_figure

    written = []
    for name, fig in sorted(figs.items()):
        written += save_figure(fig, out_dir / name, dpi=dpi)
    return written


def build_editions(campaign_dirs: list, judgment_set: str | None = None,
                   measure: str = "c_at_1") -> Table:
    """The multi-edition overview (QA4MRE overview Table 1) of two or more
    campaign folders, editions in natural order (the edition, else the year,
    else the campaign's name labels a row)."""
    from ..errors import UsageError
    from ..names import natural_key
    from .tables import editions_table

    if len(campaign_dirs) < 2:
        raise UsageError("report editions: give --campaign-dir at least twice")
    camps = [Campaign(d, judgment_set, reliability=False) for d in campaign_dirs]
    labels = [c.label for c in camps]
    if len(set(labels)) != len(labels):
        labels = [c.dir.name for c in camps]
    editions = sorted(zip(labels, camps, strict=True), key=lambda lc: natural_key(lc[0]))
    return editions_table([(lab, c.runs, c.judgment_set) for lab, c in editions],
                          measure=measure)


__all__ = ["build_editions", "build_tables", "build_texts", "write_texts",
           "campaign_run_table", "latex_label_prefix",
           "write_tables", "build_figures", "write_figures", "has_agreement",
           "BREAKDOWN_SCOPES"]
