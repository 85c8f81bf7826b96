"""Paper tables as pure functions: score / reliability frames in, :class:`Table` out.

- :mod:`.base`: :class:`Table`, :class:`Column` and the frame helpers;
- :mod:`.runs`: the run table (the organizer's columns or the kind's), every
  run per unit, c@1 vs accuracy;
- :mod:`.breakdowns`: per-unit breakdowns, the editions overview;
- :mod:`.reliability`: swap summary, Kendall tau, assessor agreement,
  bootstrap, distributions;
- :mod:`.significance`: the significance tests, the letters of runs that
  cannot be told apart (and their columns in the run table), the agreement of
  the analyses.

:mod:`qacamp.report.formats` turns a table into LaTeX, Markdown, CSV and HTML
text; :mod:`qacamp.report.build` decides which tables a campaign has.
"""

from __future__ import annotations

from .base import (
    ALIASES,
    BLOCK_BASELINES,
    BLOCK_RUNS,
    FORMATS,
    Column,
    Table,
    cap,
    choose_judgment_set,
    measure_header,
    questions_per_run,
    score_decimals,
    score_format,
    wide_scores,
)
from .breakdowns import breakdown_table, editions_table
from .reliability import (
    agreement_counts,
    agreement_table,
    bootstrap_table,
    comparison_of,
    distributions_table,
    generic_table,
    kendall_table,
    ranking_text,
    swap_summary_table,
)
from .runs import (
    MAX_DEFAULT_COLUMNS,
    RunTableSpec,
    c_at_1_table,
    default_spec,
    run_table,
    runs_by_unit_table,
)
from .significance import (
    add_letters,
    agreement_of_analyses_table,
    letters_table,
    significance_table,
)

__all__ = ["ALIASES", "BLOCK_BASELINES", "BLOCK_RUNS", "FORMATS", "Column", "Table", "cap",
           "choose_judgment_set", "measure_header", "questions_per_run", "wide_scores",
           "score_decimals", "score_format",
           "agreement_counts", "agreement_table", "bootstrap_table", "comparison_of",
           "distributions_table", "generic_table", "kendall_table",
           "ranking_text", "swap_summary_table", "MAX_DEFAULT_COLUMNS", "breakdown_table",
           "add_letters", "agreement_of_analyses_table", "letters_table", "significance_table",
           "c_at_1_table", "editions_table", "RunTableSpec", "default_spec", "run_table",
           "runs_by_unit_table"]
