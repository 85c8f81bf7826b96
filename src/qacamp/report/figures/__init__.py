"""Paper figures (matplotlib) and their deterministic PNG + SVG writer.

Figures (source paper in brackets), each titled with the measures' display
labels from the registry:

- :func:`swap_curves_figure` (:mod:`.swap`): error rate of the swap method per
  difference bin over subset size (Voorhees 2003 Figure 2; Voorhees 2005
  Figure 4);
- :func:`stability_figure` (:mod:`.stability`): error rate against
  proportion of ties (Penas & Rodrigo 2011 Figure 2);
- :func:`series_boxplot_figure`, :func:`top_runs_figure`,
  :func:`reading_tests_figure` (:mod:`.campaign`): per-series scores
  (Voorhees 2005 Figures 2 and 3) and c@1 per reading test and topic (QA4MRE);
- :func:`save_figure` (:mod:`.base`): PNG + SVG, byte-identical on a rerun.
"""

from __future__ import annotations

from ...names import natural_key
from .base import DPI, save_figure
from .campaign import reading_tests_figure, series_boxplot_figure, top_runs_figure
from .stability import stability_figure
from .swap import swap_curves_figure

__all__ = ["swap_curves_figure", "stability_figure", "series_boxplot_figure",
           "top_runs_figure", "reading_tests_figure", "save_figure", "natural_key", "DPI"]
