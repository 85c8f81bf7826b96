"""qa4mre: QA4MRE machine reading, multiple-choice reading tests with
abstention (Penas et al. 2013), scored with c@1 and accuracy."""

from __future__ import annotations

from ..bounds import MAX_SEED, SEED_BOUNDS
from .record import Kind, Setting

KIND = Kind(
    name="qa4mre",
    title="QA4MRE machine reading, multiple choice with abstention (Penas et al. 2013)",
    headline="c_at_1",
    measures=("c_at_1", "accuracy", "qa4mre_accuracy", "correctly_discarded", "utility",
              "n_right", "n_wrong", "n_unanswered", "n_unanswered_right", "n_unanswered_wrong",
              "n_unanswered_empty", "test_c_at_1_median", "test_c_at_1_mean",
              "test_c_at_1_std", "tests_passed", "tests"),
    # The c@1 paper's measures; sizes up to half the questions.
    reliability={"measures": ["c_at_1", "accuracy", "utility"], "unit": "question",
                 "swap": {"sizes": "10:half:auto", "trials": 20, "min_fit_size": 21},
                 "stability": {"size": "half", "trials": 100}},
    judgment_set="gold",
    required=("gold", "runs"),
    file_keys=("gold", "runs"),
    ingest=("gold", "qa4mre_kind"),
    scoring_keys=("pass_rule", "test_std_ddof"),
    settings=(Setting("language", "EN"),
              Setting("main_questions", 15, {"lo": 1, "integer": True}),
              Setting("pass_threshold", 0.5, {"lo": 0, "hi": 1}),
              Setting("baseline_seed", 1, SEED_BOUNDS),
              Setting("edition")),
    runs_key="runs",
    reading_tests=True,
    nonresponse=True,
    editions_table=True,
    score_decimals=2,
    run_table="nonresponse",
    # the QA4MRE overview: c@1, accuracy, unanswered questions, reading tests passed
    run_columns=("accuracy", "n_unanswered", "tests_passed"),
    breakdown_measure="c_at_1",
    figures=("reading_tests",),
    simulator="qa4mre",
    simulate_questions="a QA4MRE gold standard",
    eval_help="QA4MRE: --gold GS.xml RUN.xml...",
    eval_options=(
        (("--gold",), {"required": True, "metavar": "GS.xml",
                       "help": "QA4MRE gold standard XML (campaign key gold)"}),
        (("--main-questions",), {"type": int, "default": None,
                                 "help": "main questions per reading test (default 15)"}),
        (("--language",), {"default": None, "help": "gold language (default EN)"}),
        (("--pass-threshold",), {"type": float, "default": None,
                                 "help": "c@1 a reading test needs to pass (default 0.5)"}),
        (("--pass-rule",), {"default": None, "choices": ["at_least", "more_than"],
                            "help": "pass at c@1 >= threshold (at_least, default) or > "
                                    "threshold"}),
        (("--test-std-ddof",), {"type": int, "default": None, "choices": [0, 1],
                                "help": "std of the tests' c@1: population (0, default) or "
                                        "sample (1)"}),
        (("--baseline-seed",), {"type": int, "default": None,
                                "help": "seed of the random-choice baseline run (default 1)"}),
        (("runs",), {"nargs": "+", "metavar": "RUN", "help": "run XML files"}),
    ),
    path_keys=("gold",),
    questions_key="gold",
    schema={
        "required": ["kind", "gold", "runs"],
        "properties": {
            "gold": {"type": "string"},
            "runs": {"$ref": "#/$defs/files"},
            "edition": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9 ._-]*$",
                        "description": "Edition label for multi-edition overviews, e.g. 2013 "
                                       "(letters, digits, space . _ -)."},
            "preset": {"description": "the edition's method parameters (docs/presets.md)"},
            "language": {"type": "string", "pattern": "^[A-Za-z]{2,3}$",
                         "description": "a two- or three-letter language code (default EN)"},
            "main_questions": {"type": "integer", "minimum": 1, "description": "main "
                               "questions per reading test (default 15); higher question "
                               "numbers are auxiliary"},
            "pass_threshold": {"type": "number", "minimum": 0, "maximum": 1,
                               "description": "c@1 a reading test needs to pass (default "
                                              "0.5)"},
            "pass_rule": {"enum": ["at_least", "more_than"], "description": "pass at c@1 >= "
                          "threshold (at_least, default: QA4MRE overview section 5.3) or > "
                          "threshold (section 5.2)"},
            "test_std_ddof": {"enum": [0, 1], "description": "standard deviation of the "
                              "tests' c@1: population (0, default) or sample (1)"},
            "baseline_seed": {"type": "integer", "minimum": 0, "maximum": MAX_SEED,
                              "description": "seed of the "
                              "random-choice baseline run (default 1)"},
            "min_coverage": {"$ref": "#/$defs/min_coverage"},
        },
    },
)
