"""The campaign overview page and the index, rendered with Jinja2.

``<outdir>/<campaign>/report.html`` (:func:`campaign_page`) and
``<outdir>/index.html`` (:func:`index_page`) are single self-contained HTML
files: the figures are embedded as PNG ``data:`` URIs, the style sheet and
the optional sorting script are inline, nothing is fetched from the network,
and every section reads without JavaScript (the script only makes the run
tables sortable by a click on a header).  The text is a pure function of the
campaign's results (no date, no absolute path), so a rerun writes the same
bytes.  Templates: ``templates/*.html.j2`` (autoescaped).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .campaign import Campaign, read_figures

TEMPLATES = Path(__file__).resolve().parent / "templates"


def environment():
    import jinja2

    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                              autoescape=True, undefined=jinja2.StrictUndefined,
                              trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


def render(template: str, context: dict) -> str:
    env = environment()
    return env.get_template(template).render(**context)


def campaign_page(campaign_dir: str | Path, figures_dir: str | Path | None = None,
                  judgment_set: str | None = None, measures: list[str] | None = None,
                  index_href: str | None = "../index.html") -> str:
    """The overview page of one campaign (figures from ``figures_dir``, default
    ``<campaign_dir>/figures``)."""
    from .overview import campaign_context

    c = Campaign(campaign_dir, judgment_set, measures)
    figs = read_figures(Path(figures_dir) if figures_dir else c.dir / "figures")
    return render("campaign.html.j2", campaign_context(c, figs, index_href))


def index_page(campaign_dirs: Sequence[str | Path], out_dir: str | Path,
               title: str = "Evaluation campaigns") -> str:
    """The index over the campaigns of a config: one line per campaign linking
    its page (relative to ``out_dir``, where the index is written), and the
    multi-edition table when two or more QA4MRE campaigns name an edition
    (QA4MRE overview Table 1)."""
    import os

    from .html import table_view
    from .overview import index_row
    from .tables import editions_table

    camps = [Campaign(d, reliability=False) for d in campaign_dirs]
    rows = [index_row(c, Path(os.path.relpath(c.dir / "report.html", out_dir)).as_posix())
            for c in camps]
    # only campaigns of a kind with an editions table share one: QA4MRE's (the
    # kind record's editions_table; a PAN campaign's edition names its
    # evaluator's rules, not an edition of the task; the workflow's rule
    # report_editions takes the same campaigns)
    editions = [c for c in camps if c.edition is not None and c.spec.editions_table]
    table = None
    if len(editions) >= 2:
        from ..names import natural_key

        ordered = sorted(editions, key=lambda c: natural_key(c.label))
        table = table_view(editions_table([(c.label, c.runs, c.judgment_set) for c in ordered]))
    return render("index.html.j2", {"title": title, "campaigns": rows, "editions": table})


__all__ = ["campaign_page", "index_page", "render", "TEMPLATES"]
