"""Paper tables and figures (the last layer of the pipeline).

- :mod:`.tables`: pure functions, score / reliability frames -> :class:`~.tables.Table`
  (a frame plus column headers, number formats, blocks and a caption);
- :mod:`.latex`, :mod:`.markdown`, :mod:`.formats`: pure formatting of a
  :class:`~.tables.Table` into booktabs LaTeX, Markdown and CSV text (fixed
  float formats, escaped LaTeX specials);
- :mod:`.figures`: matplotlib figures (Agg canvas created inside each function)
  and a deterministic PNG + SVG writer.

Reading a campaign directory and writing the files is the command line's job
(:mod:`qacamp.cli.report`): ``qacamp report tables|figures|editions``.
"""

from __future__ import annotations

BASELINE_PREFIX = "baseline:"


def is_baseline(run: str) -> bool:
    """True for the pipeline's baseline runs (``baseline:...``)."""
    return str(run).startswith(BASELINE_PREFIX)


__all__ = ["BASELINE_PREFIX", "is_baseline"]
