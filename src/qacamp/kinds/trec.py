"""What the two TREC kinds (trec-factoid, trec-series) share: their
``qacamp eval`` options and the parts of their config schema."""

from __future__ import annotations

#: qacamp eval options of both TREC kinds
EVAL_BETA_RANK = (
    (("--beta",), {"type": float, "default": None,
                   "help": "beta of the nugget F (default 3; TREC 2003 definitions: 5)"}),
    (("--max-rank",), {"type": int, "default": None,
                       "help": "ranked answers MRR counts per question (default 5)"}),
    (("--judgment-code",), {"action": "append", "default": None, "metavar": "RAW=CODE",
                            "help": "map a raw judgment code to R W U X or L (campaign key "
                                    "judgment_codes; repeatable), e.g. 4=L to read code 4 as "
                                    "locally correct"}),
)
SET_NAME = (("--set-name",), {"default": "adjudicated", "metavar": "NAME",
                              "help": "judgment set name of the judged runs (default "
                                      "adjudicated)"})


def eval_skip(choices: tuple[str, ...]):
    return (("--skip",), {"action": "append", "default": None, "choices": list(choices),
                          "help": "leave this question type's measures out when its files are "
                                  "not given (campaign key skip; repeatable)"})


def schema_skip(choices: tuple[str, ...], description: str) -> dict:
    return {"type": "array", "uniqueItems": True, "items": {"enum": list(choices)},
            "description": description}


#: schema properties of both TREC kinds
SCHEMA = {
    "beta": {"$ref": "#/$defs/beta"},
    "max_rank": {"$ref": "#/$defs/max_rank"},
    "judgment_codes": {"$ref": "#/$defs/judgment_codes"},
    "min_coverage": {"$ref": "#/$defs/min_coverage"},
}
