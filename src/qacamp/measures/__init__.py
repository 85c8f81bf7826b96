"""The measure registry, in the ir_measures / trec_eval style.

Every measure the project computes is described once, by a :class:`Measure`
record in :data:`REGISTRY`: its name, family, definition (formula and paper),
parameters with their defaults, how it aggregates over units (``mean``;
``counts`` = recomputed from summed counts, like c@1; ``order`` = order-aware,
like CWS, which must be recomputed on every subset in each run's own
confidence order, or PAN's AUC; ``set`` = a statistic over sub-unit scores,
like the median test c@1) and the unit it is defined on.

One module per family holds the records and the pure computing functions
(polars frames in, frames out):

- :mod:`.factoid`: accuracy, cws, mrr, nil_precision, nil_recall
- :mod:`.lists`: list_precision, list_recall, list_f
- :mod:`.other`: other_recall, other_precision, other_f, other_pyramid_recall,
  other_pyramid_f
- :mod:`.series`: series_score, type_score
- :mod:`.nonresponse`: c_at_1, qa4mre_accuracy, correctly_discarded, utility
  and the outcome counts
- :mod:`.reading`: the QA4MRE reading perspective (test c@1 statistics,
  tests passed)
- :mod:`.pan`: PAN authorship verification (auc, f1, f_05_u, brier, overall;
  c@1 is the non-response family's), on per-problem values in [0, 1]
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import UsageError
from ..registry import Registry
from . import factoid, lists, nonresponse, other, pan, reading, series
from .record import Measure

FAMILIES = (factoid, lists, other, series, nonresponse, reading, pan)

#: name -> Measure, in family order (the order of every printed table).
REGISTRY: Registry[Measure] = Registry("measure", (m for fam in FAMILIES for m in fam.MEASURES))

#: measures whose value per question the scoring writes (``scores/units.parquet``);
#: the others with a value per question come from the outcomes (``Measure.outcome``)
#: or are recomputed by PAN's evaluator (``aggregator == "pan"``)
UNIT_VALUES = frozenset({"accuracy", "mrr", "mrr_lenient", "accuracy_lenient", "accuracy_local",
                         "list_precision", "list_recall", "list_f", "other_recall",
                         "other_precision", "other_f", "other_pyramid_recall",
                         "other_pyramid_f"})


def per_unit_problem(name: str, unit: str) -> str | None:
    """Why a reliability analysis cannot draw subsets of ``unit`` for measure
    ``name`` (it needs the measure's value per unit, :mod:`qacamp.loader`);
    None when it can, or when ``name`` is not a registered measure (a score
    matrix's)."""
    m = REGISTRY.get(name)
    if m is None:
        return None
    if m.unit == "run":
        return (f"{name} is computed over a whole run (aggregation '{m.aggregation}'), with "
                f"no value per {unit} to draw subsets of")
    if unit == "question" and not (m.outcome or m.aggregator == "pan" or name in UNIT_VALUES):
        return (f"{name} has no value per question to draw subsets of (it is computed from a "
                "run's counts over all its questions)")
    return None



def label(name: str) -> str:
    """The display name of a measure (``c@1`` for ``c_at_1``); an unregistered
    name (a score matrix's measure) is shown as it is."""
    m = REGISTRY.get(name)
    return m.label if m is not None else str(name)


def validate(names: Iterable[str], valid: Iterable[str] | None = None) -> list[str]:
    """Check measure names (against ``valid`` if given, else the registry)."""
    names = list(names)
    allowed = list(valid) if valid is not None else list(REGISTRY)
    bad = [n for n in names if n not in allowed]
    if bad:
        raise UsageError(f"unknown measure(s) {', '.join(bad)}; valid measures: "
                         + ", ".join(allowed))
    return names


def table_rows() -> list[dict[str, str]]:
    """The registry as rows of strings (name, family, aggregation, unit, formula, citation)."""
    rows = []
    for m in REGISTRY.values():
        params = ", ".join(f"{k}={v}" for k, v in m.parameters)
        rows.append({"name": m.name, "family": m.family, "aggregation": m.aggregation,
                     "unit": m.unit, "higher_is_better": "yes" if m.higher_is_better else "no",
                     "parameters": params, "formula": m.formula, "citation": m.citation,
                     "description": m.description})
    return rows


def to_markdown() -> str:
    """docs/measures.md: the registry as Markdown (generated; do not edit by hand)."""
    out = ["# Measures", "",
           "Generated from `qacamp.measures.REGISTRY` by `qacamp measures --markdown`; "
           "do not edit by hand.  Semantic decisions (missing responses, NIL, unjudged "
           "units, empty denominators) are in `docs/semantics.md`.", "",
           "Aggregation: `mean` = mean of per-unit values; `counts` = recomputed from the "
           "summed outcome counts of the units (c@1 is not a mean of per-question values); "
           "`order` = order-aware (CWS, PAN's AUC and overall: recompute on every subset "
           "from the run's own order of the units); `set` = a statistic over sub-unit "
           "scores.", ""]
    for fam in FAMILIES:
        title = fam.__name__.rsplit(".", 1)[-1]
        out += [f"## {title}", "", (fam.__doc__ or "").strip().splitlines()[0], "",
                "| name | aggregation | unit | parameters | formula | description | citation |",
                "|---|---|---|---|---|---|---|"]
        for m in fam.MEASURES:
            params = ", ".join(f"{k}={v}" for k, v in m.parameters) or "-"
            cells = [f"`{m.name}`", m.aggregation, m.unit, params, m.formula, m.description,
                     m.citation]
            out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        out.append("")
    return "\n".join(out)


__all__ = ["Measure", "REGISTRY", "FAMILIES", "label", "validate",
           "to_markdown", "table_rows"]
