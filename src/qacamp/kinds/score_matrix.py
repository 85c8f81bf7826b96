"""score-matrix: a unit x run matrix of scores computed elsewhere (one measure,
e.g. average precision per topic); a run's score is its mean."""

from __future__ import annotations

from .record import Kind, Setting

KIND = Kind(
    name="score-matrix",
    title="score matrix computed elsewhere",
    headline=None,
    measures=(),
    reliability={"measures": None,  # the campaign's `measure` (default "score")
                 "unit": "topic",
                 "swap": {"sizes": "5:half", "trials": 20, "min_fit_size": 5},
                 "stability": {"size": "half", "trials": 100}},
    judgment_set="matrix",
    required=("matrix",),
    file_keys=("matrix",),
    ingest=("gold", "score_matrix_kind"),
    family="matrix",
    settings=(Setting("measure", "score"),),
    schema={
        "required": ["kind", "matrix"],
        "properties": {
            "matrix": {"type": "string"},
            "measure": {"$ref": "#/$defs/measure_name", "default": "score"},
        },
    },
)
