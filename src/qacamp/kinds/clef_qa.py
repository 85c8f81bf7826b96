"""clef-qa: CLEF question answering with abstention (ResPubliQA-style runs),
scored with c@1 (Penas & Rodrigo 2011)."""

from __future__ import annotations

from .record import Kind

KIND = Kind(
    name="clef-qa",
    title="CLEF question answering with abstention, scored with c@1 (Penas & Rodrigo 2011)",
    headline="c_at_1",
    measures=("c_at_1", "accuracy", "qa4mre_accuracy", "correctly_discarded", "utility",
              "n_right", "n_wrong", "n_unanswered", "n_unanswered_right", "n_unanswered_wrong",
              "n_unanswered_empty"),
    reliability={"measures": ["c_at_1", "accuracy", "utility"], "unit": "question",
                 "swap": {"sizes": "10:half:auto", "trials": 20, "min_fit_size": 21},
                 "stability": {"size": "half", "trials": 100}},
    judgment_set="official",
    required=("questions", "runs"),
    file_keys=("questions", "runs"),
    ingest=("gold", "clef_kind"),
    runs_key="runs",
    nonresponse=True,
    score_decimals=2,
    run_table="nonresponse",
    # the c@1 paper's Table 3: c@1 and accuracy with the counts they come from
    run_columns=("accuracy", "n_right", "n_wrong", "n_unanswered"),
    breakdown_measure="c_at_1",
    simulator="clef",
    eval_help="CLEF QA (ResPubliQA-style TSV): --questions Q.tsv RUN.tsv...",
    eval_options=(
        (("--questions",), {"required": True, "metavar": "Q.tsv",
                            "help": "CLEF QA questions TSV (campaign key questions)"}),
        (("runs",), {"nargs": "+", "metavar": "RUN", "help": "judged run TSV files"}),
    ),
    path_keys=("questions",),
    questions_key="questions",
    schema={
        "required": ["kind", "questions", "runs"],
        "properties": {
            "preset": {"description": "the c@1 paper's analysis of CLEF QA 2009 "
                       "(docs/presets.md)"},
            "questions": {"type": "string", "description": "TSV with header qid (and optional "
                          "language, text)"},
            "runs": {"$ref": "#/$defs/files"},
            "min_coverage": {"$ref": "#/$defs/min_coverage"},
        },
    },
)
