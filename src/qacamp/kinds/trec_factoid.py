"""trec-factoid: TREC factoid question answering, TREC 8-2003 (Voorhees 2003):
judged factoid runs ranked by the confidence-weighted score; TREC 2003 added
list and definition questions and ranked the runs by their combined final
score, "FinalScore = .5FactoidAccuracy + .25ListAveF + .25DefinitionAveF"
(Voorhees 2005 on the TREC 2003 evaluation; measure ``type_score``)."""

from __future__ import annotations

from .record import Edition, Kind
from .trec import EVAL_BETA_RANK, SCHEMA, SET_NAME, eval_skip, schema_skip

#: the parts of a judgment set given as a mapping (TREC 2003: judged definition
#: runs in two parts, like the Other runs of the series); a list of files is the
#: same as {factoid: files}
PARTS = ("factoid", "list", "definition", "definition_nuggets")

KIND = Kind(
    name="trec-factoid",
    title="TREC factoid question answering (as TREC 2002, Voorhees 2003)",
    headline="cws",
    editions=(Edition("TREC 2003", "TREC 2003 question answering: factoid, list and definition "
                      "questions, ranked by the final score (Voorhees 2005)", "type_score",
                      "final score", "final_score", ("accuracy", "list_f", "other_f"),
                      presets=("trec2003",), qtypes=("DEFINITION",), defaults={"beta": 5},
                      why="TREC 2003 scored definition questions by the nugget F with beta 5 "
                          "(from 2004 on, 3; docs/semantics.md, \"Year rules\")"),),
    measures=("accuracy", "cws", "mrr", "mrr_lenient", "accuracy_lenient", "accuracy_local",
              "nil_precision", "nil_recall", "list_precision", "list_recall", "list_f",
              "other_recall", "other_precision", "other_f", "other_pyramid_recall",
              "other_pyramid_f", "type_score", "n_right", "n_wrong"),
    # Voorhees 2003 (TREC 2002): every size 1..half, 10 trials; fit on sizes > 20.
    reliability={"measures": ["cws", "accuracy"], "unit": "question",
                 "swap": {"sizes": "1:half", "trials": 10, "min_fit_size": 21},
                 "stability": {"size": "half", "trials": 100}},
    judgment_set="adjudicated",
    required=("questions", "judgment_sets"),
    file_keys=("questions", "nuggets", "list_key", "patterns"),
    ingest=("trec", "trec_factoid"),
    family="trec",
    judgment_parts=PARTS,
    plain_part="factoid",
    skippable=("list", "definition"),
    scoring_keys=("beta", "max_rank"),
    pattern_keys=("patterns",),
    run_table="trec_factoid",
    # Voorhees 2003, Table 1: CWS, correct answers, NIL precision and recall
    run_columns=("accuracy", "nil_precision", "nil_recall"),
    breakdown_measure="accuracy",
    simulator="trec_factoid",
    simulate_questions="a TREC <top> question file",
    eval_help="TREC 2002-2003 factoid: --questions Q JUDGED_RUN... (2003 definitions: "
              "--nuggets N --definition D... --definition-nuggets D2...)",
    eval_options=(
        (("--questions",), {"required": True, "action": "append",
                            "help": "<top> question file or series XML (repeatable; a <top> "
                                    "file whose name contains 'list' holds LIST questions)"}),
        SET_NAME,
        (("--list-key",), {"default": None, "metavar": "FILE",
                           "help": "list answer key (for judged list runs)"}),
        (("--nuggets",), {"default": None, "metavar": "FILE",
                          "help": "definition nugget list (TREC 2003, e.g. "
                                  "trec12answers_definition)"}),
        (("--definition",), {"nargs": "*", "default": [], "metavar": "FILE",
                             "help": "judged definition runs, part one (TREC 2003)"}),
        (("--definition-nuggets",), {"nargs": "*", "default": [], "metavar": "FILE",
                                     "help": "judged definition runs, part two (paired with "
                                             "part one by run tag)"}),
        (("--patterns",), {"default": None, "metavar": "FILE",
                           "help": "answer patterns: add the 'automatic' judgment set "
                                   "(autojudge)"}),
        (("runs",), {"nargs": "+", "metavar": "JUDGED_RUN",
                     "help": "judged run files (qid tag docid judgment answer)"}),
        (("--run-format",), {"default": None, "choices": ["single", "ranked"],
                             "help": "single answer per question (default) or ranked answers "
                                     "`qid tag rank docid judgment answer` (TREC 8-10)"}),
        *EVAL_BETA_RANK,
        eval_skip(("list", "definition")),
    ),
    path_keys=("list_key", "nuggets", "patterns"),
    questions_key="questions",
    schema={
        "required": ["kind", "questions", "judgment_sets"],
        "properties": {
            "preset": {"description": "the campaign's method parameters as its paper set them "
                       "(docs/presets.md)"},
            **SCHEMA,
            "run_format": {"enum": ["single", "ranked"], "description": "single: one answer "
                           "per question (TREC 2002 on, default); ranked: `qid tag rank docid "
                           "judgment answer` lines, up to max_rank answers per question "
                           "(TREC 8-10)"},
            "questions": {"$ref": "#/$defs/files", "description": "TREC <top> question "
                          "file(s) or series XML (a <type> line gives the question's type: "
                          "factoid, list or definition, as in trec12questions)"},
            "judgment_sets": {
                "type": "object",
                "description": "Judgment set name -> its judged run files (factoid and list "
                               "runs, told apart by their first question), or a mapping "
                               "{factoid, list, definition, definition_nuggets} (TREC 2003 "
                               "judged definition runs, part one and part two).",
                "minProperties": 1,
                "propertyNames": {"$ref": "#/$defs/set_name", "not": {"const": "automatic"}},
                "additionalProperties": {"oneOf": [
                    {"$ref": "#/$defs/files"},
                    {"type": "object", "additionalProperties": False, "minProperties": 1,
                     "properties": {p: {"$ref": "#/$defs/files"} for p in PARTS}}]}},
            "nuggets": {"type": "string", "description": "Definition nugget list (TREC 2003: "
                        "trec12answers_definition); needed when the questions include "
                        "definition questions, unless skip: [definition]."},
            "list_key": {"type": "string", "description": "List answer key "
                         "(trecNNanswers_list); needed when judged list runs are given, "
                         "unless skip: [list]."},
            "skip": schema_skip(("list", "definition"), "Leave the list (or definition) "
                                "measures out when their answer key or judged runs are not "
                                "given (scoring skips them; never a silent renormalisation)."),
            "primary": {"$ref": "#/$defs/set_name", "description": "Judgment set the "
                        "responses and official scores come from (default: adjudicated, else "
                        "the first)."},
            "patterns": {"$ref": "#/$defs/files"},
            "autojudge": {"type": "boolean", "default": False, "description": "Judge every "
                          "response with the answer patterns as an extra judgment set named "
                          "'automatic' (approximate; never mixed with human judgments)."},
        },
    },
)
