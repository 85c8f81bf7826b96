"""trec-series: TREC question series, TREC 2004-2007 (Voorhees 2005): factoid,
list and Other questions per series, runs ranked by the average per-series
score."""

from __future__ import annotations

from .record import Kind
from .trec import EVAL_BETA_RANK, SCHEMA, SET_NAME, eval_skip, schema_skip

PARTS = ("factoid", "list", "other", "other_nuggets")
_FILE = {"metavar": "FILE"}

KIND = Kind(
    name="trec-series",
    title="TREC question series (as TREC 2004, Voorhees 2005)",
    headline="series_score",
    measures=("series_score", "type_score", "accuracy", "cws", "mrr", "mrr_lenient",
              "accuracy_lenient", "accuracy_local", "nil_precision", "nil_recall",
              "list_precision", "list_recall", "list_f", "other_recall", "other_precision",
              "other_f", "other_pyramid_recall", "other_pyramid_f", "n_right", "n_wrong"),
    # Voorhees 2005 (TREC 2004): sizes 5..half of the series, 50 trials; fit on c >= 5.
    reliability={"measures": ["series_score"], "unit": "series",
                 "swap": {"sizes": "5:half", "trials": 50, "min_fit_size": 5},
                 "stability": {"size": "half", "trials": 100}},
    judgment_set="adjudicated",
    required=("year", "questions", "judgment_sets"),
    file_keys=("questions", "nuggets", "pyramid", "list_key", "patterns_factoid",
               "patterns_list"),
    ingest=("trec", "trec_series"),
    family="trec",
    judgment_parts=PARTS,
    skippable=("factoid", "list", "other"),
    scoring_keys=("other_score", "beta", "max_rank"),
    pattern_keys=("patterns_factoid", "patterns_list"),
    series=True,
    run_table="series",
    # Voorhees 2005: the per-series score and its components
    run_columns=("accuracy", "list_f", "other_f"),
    breakdown_measure="series_score",
    figures=("series",),
    kendall_pairs=(("series_score", "type_score"),),
    simulator="trec_series",
    simulate_questions="a TREC series XML",
    eval_help="TREC 2004-2007 series: --questions Q.xml --year Y --nuggets N ...",
    eval_options=(
        (("--questions",), {"required": True, "metavar": "Q.xml",
                            "help": "question series XML (campaign key questions)"}),
        (("--year",), {"type": int, "default": None,
                       "help": "TREC year 2004-2007 (required unless --preset gives it)"}),
        (("--other-score",), {"default": None, "choices": ["nugget", "pyramid"],
                              "help": "Other score in the series score (default by year: 2007 "
                                      "pyramid)"}),
        (("--nuggets",), {**_FILE, "default": None, "help": "Other nuggets with vital/okay "
                                                            "labels (campaign key nuggets)"}),
        (("--pyramid",), {**_FILE, "default": None, "help": "nugget pyramid weights, TREC "
                                                            "2006-2007 (campaign key pyramid)"}),
        (("--list-key",), {**_FILE, "default": None,
                           "help": "list answer key (campaign key list_key)"}),
        (("--patterns-factoid",), {"default": None, "help": "factoid answer patterns: add the "
                                                            "'automatic' judgment set"}),
        (("--patterns-list",), {"default": None, "help": "list answer patterns: add the "
                                                         "'automatic' judgment set"}),
        SET_NAME,
        (("--factoid",), {"nargs": "*", "default": [], "metavar": "FILE",
                          "help": "judged factoid runs"}),
        (("--list",), {"nargs": "*", "default": [], "metavar": "FILE",
                       "help": "judged list runs"}),
        (("--other",), {"nargs": "*", "default": [], "metavar": "FILE",
                        "help": "judged Other runs, part one"}),
        (("--other-nuggets",), {"nargs": "*", "default": [], "metavar": "FILE",
                                "help": "judged Other runs, part two (paired with part one by "
                                        "run tag)"}),
        *EVAL_BETA_RANK,
        eval_skip(("factoid", "list", "other")),
    ),
    path_keys=("questions", "nuggets", "pyramid", "list_key", "patterns_factoid",
               "patterns_list"),
    questions_key="questions",
    schema={
        "required": ["kind", "questions", "judgment_sets"],
        "properties": {
            "year": {"type": "integer", "minimum": 2004, "maximum": 2007, "description": "TREC "
                     "year: decides the series weights and the Other score (required unless "
                     "the preset sets it)"},
            "preset": {"description": "the campaign's method parameters as its paper or "
                       "guidelines set them (docs/presets.md)"},
            "other_score": {"enum": ["nugget", "pyramid"], "description": "Other score of the "
                            "series score: the single-assessor nugget F (through 2006) or the "
                            "pyramid F (2007 default)"},
            **SCHEMA,
            "questions": {"type": "string"},
            "nuggets": {"type": "string"},
            "pyramid": {"type": "string"},
            "list_key": {"type": "string"},
            "patterns_factoid": {"type": "string"},
            "patterns_list": {"type": "string"},
            "autojudge": {"type": "boolean", "default": False, "description": "Judge factoid "
                          "and list responses with the answer patterns as an extra judgment "
                          "set named 'automatic'."},
            "skip": schema_skip(("factoid", "list", "other"), "Question types whose measures "
                                "are left out of every score (series scores included).  "
                                "Without it, a type present in the questions needs its files "
                                "(list: list_key and judged list files; other: nuggets or "
                                "pyramid and judged Other files, part one and part two; "
                                "factoid: judged factoid files), else ingest stops with an "
                                "error."),
            "primary": {"$ref": "#/$defs/set_name"},
            "weights": {"type": "object", "additionalProperties": False,
                        "description": "Per-series weights (default by year).",
                        "properties": {k: {"type": "number", "minimum": 0} for k in (
                            "factoid", "list", "other", "no_list_factoid", "no_list_other")}},
            "judgment_sets": {
                "type": "object", "minProperties": 1,
                "propertyNames": {"$ref": "#/$defs/set_name", "not": {"const": "automatic"}},
                "additionalProperties": {"type": "object", "additionalProperties": False,
                                         "properties": {p: {"$ref": "#/$defs/files"}
                                                        for p in PARTS}}},
        },
    },
)
