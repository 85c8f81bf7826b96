"""The shape of a measure's record (:mod:`qacamp.measures`)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Measure:
    """One evaluation measure (computing lives in the family module).

    ``aggregation`` says how the measure aggregates over units (the docs);
    ``aggregator`` is how the reliability analyses' score matrix recomputes it
    on any subset of units (:class:`qacamp.reliability.matrix.ScoreMatrix`):
    ``mean`` of per-unit values, ``c_at_1`` from the summed counts, ``cws`` in
    each run's own confidence order, ``pan`` with PAN's evaluator kernels.
    ``outcome``: its per-question values come from the outcomes table
    (``scores/outcomes.parquet``) rather than ``units.parquet``."""

    name: str
    family: str
    description: str
    formula: str
    citation: str
    aggregation: str = "mean"  # "mean" | "counts" | "order" | "set"
    unit: str = "question"
    higher_is_better: bool = True
    parameters: tuple[tuple[str, object], ...] = field(default_factory=tuple)
    integer: bool = False  # a count: printed without decimals
    label: str = ""  # display name for readers (tables, figures, the report pages)
    aggregator: str = "mean"  # "mean" | "c_at_1" | "cws" | "pan"
    outcome: bool = False

    def __post_init__(self) -> None:
        if not self.label:
            raise ValueError(f"measure {self.name!r}: no display label")

    @property
    def params(self) -> dict[str, object]:
        return dict(self.parameters)


__all__ = ["Measure"]
