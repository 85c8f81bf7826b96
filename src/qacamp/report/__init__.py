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

from ..names import BASELINE_PREFIX, is_baseline, natural_key

__all__ = ["BASELINE_PREFIX", "is_baseline", "natural_key"]
