"""Designing the next campaign: how many units it needs, and which units of
this one to re-check (docs/reliability.md, "Designing the next campaign").

Pure kernels over the run x unit matrix of a measure with per-unit values,
shaped ``(n_units, n_runs)`` (one row per question, series, reading test or
topic; one column per run; :mod:`.common`), and over the swap method's fits:

- :mod:`.gtheory`: generalizability theory, the G-study (:func:`two_way`,
  :func:`components`) and the D-study (:func:`d_study`, :func:`units_needed`)
  with Feldt's interval for E(rho^2) and Arteaga et al.'s for Phi;
- :mod:`.topic_set_size`: Sakai's topic set size design, the paired t-test,
  one-way ANOVA and confidence-interval methods (:func:`topic_set_sizes`),
  with the residual variance ``V_E`` of the two-way ANOVA
  (``TwoWay.ms_residual``);
- :mod:`.swap_method`: the size at which the swap method's error rate of a
  difference falls to the error level (:func:`swap_size`);
- :mod:`.items`: per-unit difficulty, discrimination and flags
  (:func:`item_statistics`, :func:`flagged`);
- :mod:`.analysis`: all of them for one measure, as ``qacamp reliability
  design`` and ``qacamp.reliability.design(...)`` run them
  (:func:`design_analysis`: the matrix, the swap fits and summary in, a
  :class:`Design` of four frames out).

Every function takes arrays or frames and returns polars frames with the
declared schemas (``*_SCHEMA``); bad arguments raise
:class:`~qacamp.errors.UsageError`.
"""

from .analysis import DESIGN_CURVE_SCHEMA, DESIGN_SCHEMA, Design, Settings, design_analysis
from .common import check_values, unit_values
from .gtheory import (
    COMPONENT_SCHEMA,
    D_STUDY_SCHEMA,
    NEEDED_SCHEMA,
    TwoWay,
    components,
    d_study,
    two_way,
    units_needed,
)
from .items import ITEM_SCHEMA, flagged, item_statistics
from .swap_method import CURVE_SCHEMA, SWAP_SIZE_SCHEMA, swap_error_curve, swap_size
from .topic_set_size import (
    SIZE_SCHEMA,
    anova_size,
    ci_size,
    t_test_size,
    topic_set_sizes,
)

__all__ = ["DESIGN_CURVE_SCHEMA", "DESIGN_SCHEMA", "Design", "Settings", "design_analysis",
           "check_values", "unit_values", "COMPONENT_SCHEMA", "D_STUDY_SCHEMA",
           "NEEDED_SCHEMA", "TwoWay", "components", "d_study", "two_way", "units_needed",
           "ITEM_SCHEMA", "flagged", "item_statistics", "CURVE_SCHEMA", "SWAP_SIZE_SCHEMA",
           "swap_error_curve", "swap_size", "SIZE_SCHEMA", "anova_size", "ci_size",
           "t_test_size", "topic_set_sizes"]
