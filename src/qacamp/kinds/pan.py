"""pan: PAN authorship verification (PAN 2014-2015, 2020-2023): per-problem
values in [0, 1], 0.5 a non-answer, runs ranked by the edition's overall
score."""

from __future__ import annotations

from .record import Edition, Kind

KIND = Kind(
    name="pan",
    title="PAN authorship verification",
    headline="overall",
    measures=("auc", "c_at_1", "f_05_u", "f1", "brier", "overall", "accuracy",
              "correctly_discarded", "utility", "n_right", "n_wrong", "n_unanswered"),
    # PAN ranks by the edition's overall score; AUC and c@1 beside it.
    reliability={"measures": ["overall", "auc", "c_at_1"], "unit": "question",
                 "swap": {"sizes": "10:half:auto", "trials": 20, "min_fit_size": 21},
                 "stability": {"size": "half", "trials": 100}},
    judgment_set="gold",
    required=("truth", "answers"),
    file_keys=("truth", "answers"),
    ingest=("gold", "pan_kind"),
    scoring_keys=("edition", "pan_evaluator"),
    runs_key="answers",
    verification=True,
    nonresponse=True,
    unit_name="problem",
    run_table="pan",
    # the measures of the edition's overview, those its overall score is made of:
    # 2021-2023 (the default edition, 2023) AUC, c@1, F0.5u, F1 and Brier; 2020
    # without Brier; 2014-2015 AUC and c@1 (their product)
    run_columns=("auc", "c_at_1", "f_05_u", "f1", "brier"),
    editions=(Edition("PAN 2020", "PAN authorship verification", "overall", "overall",
                      "pan", ("auc", "c_at_1", "f_05_u", "f1"), editions=("2020",)),
              Edition("PAN 2014-2015", "PAN authorship verification", "overall", "overall",
                      "pan_product", ("auc", "c_at_1"), editions=("2014", "2015"))),
    breakdown_measure="c_at_1",
    unused_columns=("docid",),
    simulator="pan",
    eval_help="PAN verification: --truth truth.jsonl answers.jsonl... (run = parent folder)",
    eval_options=(
        (("--truth",), {"required": True, "metavar": "truth.jsonl",
                        "help": "PAN truth file (campaign key truth)"}),
        (("--edition",), {"default": None, "help": "PAN edition whose measures enter overall "
                                                   "(2014, 2015, 2020-2023; default 2023)"}),
        (("--pan-evaluator",), {"default": None, "choices": ["published", "current"],
                                "help": "F0.5u rule: published (the evaluator before its "
                                        "2021-05-28 fix, which took 0.5 as a same-author "
                                        "decision: PAN 2020's table) or current; default by "
                                        "edition (2020 published, others current)"}),
        (("runs",), {"nargs": "+", "metavar": "ANSWERS",
                     "help": "answers.jsonl files; a run is named after its parent folder"}),
    ),
    path_keys=("truth",),
    questions_key="truth",
    schema={
        "required": ["kind", "truth", "answers"],
        "properties": {
            "edition": {"enum": ["2014", "2015", "2020", "2021", "2022", "2023", 2014, 2015,
                                 2020, 2021, 2022, 2023],
                        "description": "PAN edition whose measures enter overall: 2014-2015 "
                                       "AUC x c@1; 2020 mean of AUC, c@1, F1, F0.5u; 2021-2023 "
                                       "the same plus Brier (default 2023)"},
            "pan_evaluator": {"enum": ["published", "current"], "description": "F0.5u rule: "
                              "published = the evaluator before its commit 'Fix F_0.5 "
                              "calculation' (2021-05-28), which took a value of exactly 0.5 as "
                              "a same-author decision (PAN 2020's published table); current = "
                              "0.5 is a non-answer (a false negative). Default by edition: "
                              "2020 published, the others current (docs/semantics.md)."},
            "truth": {"type": "string"},
            "answers": {"$ref": "#/$defs/files"},
            "min_coverage": {"$ref": "#/$defs/min_coverage"},
        },
    },
)
