"""The report sections of the analyses, one record each (:class:`.record.Section`):
its tables, figures, the page's part and its columns of the run table.
:mod:`qacamp.report.build` and :mod:`qacamp.report.overview` ask every
section in turn, so a new analysis adds its section module here and its
name in :data:`SECTIONS` (and its template under ``templates/``).

- :mod:`.significance`: the significance tests, the letters of runs that
  cannot be told apart, the agreement of the analyses;
- :mod:`.design`: designing the next campaign, the units it needs and the
  units of this one to re-check.
"""

from __future__ import annotations

from ...registry import Registry
from .design import SECTION as DESIGN
from .record import Section
from .significance import SECTION as SIGNIFICANCE

#: name -> section, in the order of the page
SECTIONS: Registry[Section] = Registry("report section", (SIGNIFICANCE, DESIGN))


__all__ = ["SECTIONS", "Section"]
