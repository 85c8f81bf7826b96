"""Paper tables, figures and the campaign overview pages (the last layer of the
pipeline).

- :mod:`.tables`: pure functions, score / reliability frames ->
  :class:`~.tables.Table` (a frame plus column headers, number formats,
  blocks, a caption and notes);
- :mod:`.formats`, :mod:`.latex`, :mod:`.markdown`, :mod:`.html`: pure
  formatting of a table into CSV, booktabs LaTeX, Markdown and HTML (fixed
  float formats, escaped specials, measures by their registry label);
- :mod:`.figures`: matplotlib figures (Agg canvas created inside each function)
  and a deterministic PNG + SVG writer;
- :mod:`.campaign`: reading a campaign's result folder (:class:`~.campaign.Campaign`);
- :mod:`.build`: which tables and figures a campaign has, and writing them;
- :mod:`.overview`, :mod:`.conclusions`, :mod:`.page`: the campaign overview
  page ``<outdir>/<campaign>/report.html`` and the index ``<outdir>/index.html``
  (Jinja2 templates under ``templates/``).

The command line (:mod:`qacamp.cli.report`) only parses arguments:
``qacamp report tables|figures|editions|page|index``.
"""

from __future__ import annotations

import re

BASELINE_PREFIX = "baseline:"


def is_baseline(run: str) -> bool:
    """True for the pipeline's baseline runs (``baseline:...``)."""
    return str(run).startswith(BASELINE_PREFIX)


def natural_key(text: str) -> tuple:
    """Sort key putting ``S2`` before ``S10``."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p)
                 for p in re.split(r"(\d+)", str(text)) if p != "")


__all__ = ["BASELINE_PREFIX", "is_baseline", "natural_key"]
