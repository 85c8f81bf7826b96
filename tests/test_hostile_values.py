"""Hostile input, part 3: numbers that were wrong with exit 0.

* a judged list run repeating a right instance: refused (the same string
  marked distinct twice, or more distinct instances than the answer key
  holds), and the numbers of a valid run checked against a hand computation;
* NaN and infinity through every numeric key of the config schema, every
  numeric ``qacamp eval`` option and the numeric ``qacamp reliability``
  options: refused naming the key or the option;
* a QA4MRE gold question without a correct option: refused naming it.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from hostile_util import (
    GOLD,
    both_config_error,
    both_refuse,
    error_line,
    qa4mre,
    run_eval,
    run_ingest,
    same_numbers,
    series,
    w,
)

from qacamp.cli import main
from qacamp.errors import ConfigError
from qacamp.plan import config_schema, validate_config

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"


# --------------------------------------------------------------------------- list runs

KEY4 = "# 1.2\nQ:Which?\nAlpha\nBeta\nGamma\nDelta\n"


def test_list_instance_repeated_as_distinct_is_refused(here, capsys):
    """Six lines `1.2 r1 DOC1 1 1 Alpha` against a key of 4 instances gave list
    recall 1.5: the same instance marked distinct twice is refused at its line."""
    camp, argv = series(here)
    w(here, "list_key", KEY4)
    w(here, "l/r1", "1.2 r1 DOC1 1 1 Alpha\n" * 6)
    msg = both_refuse(capsys, here, camp, argv, "l/r1", "line 2")
    assert "the instance 'Alpha' of question 1.2 is marked distinct again (first at line 1)" in msg


def test_list_run_counting_the_instance_once_hand_computed(here, capsys):
    """The same six responses with the instance marked distinct once (as NIST's
    assessor does): S = 4 known instances, N = 6 responses, D = 1 distinct right
    one, so IP = D/N = 1/6, IR = D/S = 1/4, F = 2 IP IR / (IP + IR) = 0.2."""
    camp, argv = series(here)
    w(here, "list_key", KEY4)
    w(here, "l/r1", "1.2 r1 DOC1 1 1 Alpha\n" + "1.2 r1 DOC1 1 0 Alpha\n" * 5)
    same_numbers(capsys, here, camp, argv)
    rc, out, err = run_eval(capsys, argv + ["-m", "list_precision", "-m", "list_recall",
                                            "-m", "list_f", "--precision", "full"])
    assert rc == 0, err
    got = {ln.split("\t")[1]: float(ln.split("\t")[4]) for ln in out.splitlines()[1:]}
    assert got["list_precision"] == pytest.approx(1 / 6, abs=1e-15)
    assert got["list_recall"] == pytest.approx(1 / 4, abs=1e-15)
    assert got["list_f"] == pytest.approx(0.2, abs=1e-15)


def test_list_run_with_more_distinct_instances_than_the_key_is_refused(here, capsys):
    """Five different right instances marked distinct against a key of 4 would
    give list recall 5/4: the key is the final answer set, so D <= S."""
    camp, argv = series(here)
    w(here, "list_key", KEY4)
    w(here, "l/r1", "".join(f"1.2 r1 DOC{i} 1 1 Name{i}\n" for i in range(5)))
    msg = both_refuse(capsys, here, camp, argv, "l/r1", "line 5")
    assert "marks more than 4 right instances of question 1.2 distinct" in msg
    assert "list recall would exceed 1" in msg


# --------------------------------------------------------------------------- NaN in the config

MINIMAL = {
    "trec-factoid": {"questions": "q", "judgment_sets": {"adjudicated": "j"}},
    "trec-series": {"year": 2004, "questions": "q.xml",
                    "judgment_sets": {"adjudicated": {"factoid": "f"}}},
    "qa4mre": {"gold": "g.xml", "runs": "r.xml"},
    "clef-qa": {"questions": "q.tsv", "runs": "r.tsv"},
    "pan": {"truth": "t.jsonl", "answers": "a.jsonl"},
    "score-matrix": {"matrix": "m.csv"},
}


def _numeric(node: dict, defs: dict) -> bool:
    node = defs.get(node.get("$ref", "").rsplit("/", 1)[-1], node) if "$ref" in node else node
    types = node.get("type")
    types = types if isinstance(types, list) else [types]
    return bool({"number", "integer"} & set(types)) or any(
        _numeric(alt, defs) for alt in node.get("oneOf", []))


def _numeric_keys(props: dict, defs: dict, prefix: tuple = ()) -> list[tuple]:
    """Dotted paths of every numeric key under ``props`` (nested objects too)."""
    out = []
    for name, node in props.items():
        target = defs.get(node.get("$ref", "").rsplit("/", 1)[-1], node) if "$ref" in node \
            else node
        if _numeric(node, defs):
            out.append((*prefix, name))
        elif target.get("type") == "object" and "properties" in target:
            out += _numeric_keys(target["properties"], defs, (*prefix, name))
    return out


def schema_numeric_keys() -> list[tuple[str, tuple]]:
    """(kind, path) of every numeric key the schema allows: top level, the
    reliability block (top level and per campaign) and each kind's own keys."""
    schema = config_schema(SCHEMA)
    defs = schema["$defs"]
    out = [("clef-qa", key) for key in _numeric_keys(schema["properties"], defs)
           if key[0] != "campaigns"]
    for rule in defs["campaign"]["allOf"]:
        kind = rule["if"]["properties"]["kind"]["const"]
        props = dict(rule["then"]["properties"])
        props["reliability"] = {"$ref": "#/$defs/reliability"}
        out += [(kind, ("campaigns", "c", *key)) for key in _numeric_keys(props, defs)]
    return out


NUMERIC_KEYS = schema_numeric_keys()


def test_the_schema_walk_finds_the_numeric_keys():
    paths = {".".join(p) for _k, p in NUMERIC_KEYS}
    for key in ("shards", "reliability.seed", "reliability.swap.level",
                "reliability.swap.bin_width", "reliability.bootstrap.alpha",
                "campaigns.c.beta", "campaigns.c.pass_threshold", "campaigns.c.min_coverage",
                "campaigns.c.weights.factoid", "campaigns.c.reliability.stability.size",
                "campaigns.c.reliability.swap.observed_at", "campaigns.c.baseline_seed"):
        assert key in paths, key
    assert len(NUMERIC_KEYS) > 60


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
@pytest.mark.parametrize("kind, path", NUMERIC_KEYS, ids=lambda x: ".".join(x)
                         if isinstance(x, tuple) else x)
def test_non_finite_number_in_every_numeric_config_key(kind, path, value):
    """JSON Schema comparisons with NaN are false, so `minimum: 0` let `.nan`
    through: every numeric key refuses NaN and infinities, naming the key."""
    config = {"campaigns": {"c": {"kind": kind, **copy.deepcopy(MINIMAL[kind])}}}
    node = config
    for part in path[:-1]:
        node = node.setdefault(part, {})
    node[path[-1]] = value
    with pytest.raises(ConfigError) as exc:
        validate_config(config, SCHEMA)
    assert exc.value.key == ".".join(path)
    assert f"{value!r} is not a finite number" in str(exc.value)


#: (option, value, problem) of `qacamp eval` (the Python API gets them too, tests/test_api.py)
EVAL_TREC = [
    ("--beta", "inf", "inf is not a finite number > 0"),
    ("--beta", "nan", "nan is not a finite number > 0"),
    ("--beta", "0", "0.0 is not a finite number > 0"),
    ("--max-rank", "0", "0 is not an integer >= 1"),
]


@pytest.mark.parametrize("option, value, problem", EVAL_TREC)
def test_eval_trec_number_options(option, value, problem, here, capsys):
    camp, argv = series(here)
    key = option.removeprefix("--").replace("-", "_")
    camp[key] = float(value) if option == "--beta" else int(value)
    msg = both_config_error(capsys, here, camp, argv + [f"{option}={value}"], key, option)
    assert problem in msg


EVAL_QA4MRE = [
    ("--pass-threshold", "2", "2.0 is not a finite number in [0, 1]"),
    ("--pass-threshold", "nan", "nan is not a finite number in [0, 1]"),
    ("--pass-threshold", "-inf", "-inf is not a finite number in [0, 1]"),
    ("--baseline-seed", "-1", "-1 is not an integer in [0, 9223372036854775807]"),
    ("--baseline-seed", str(2**63), "9223372036854775808 is not an integer in [0, 9223372036854775807]"),
    ("--main-questions", "0", "0 is not an integer >= 1"),
    ("--min-coverage", "nan", "nan is not a number in [0, 1]"),
    ("--min-coverage", "inf", "inf is not a number in [0, 1]"),
]


@pytest.mark.parametrize("option, value, problem", EVAL_QA4MRE)
def test_eval_qa4mre_number_options(option, value, problem, here, capsys):
    """`--pass-threshold nan` gave 0 tests passed for every run, `--baseline-seed
    -1` a traceback: each is one line naming the option and the key."""
    camp, argv = qa4mre(here)
    key = option.removeprefix("--").replace("-", "_")
    camp[key] = int(value) if key in ("baseline_seed", "main_questions") else float(value)
    msg = both_config_error(capsys, here, camp, argv + [f"{option}={value}"], key, option)
    assert problem in msg


WEB = "unit,a,b,c,d\n" + "".join(f"q{i},{(i * 7 % 10) / 10},{(i * 3 % 10) / 10},"
                                 f"{(i * 5 % 10) / 10},{(i % 10) / 10}\n" for i in range(40))


#: (argv after `qacamp reliability`, problem), given `--matrix m.csv --out o.parquet`
RELIABILITY = [
    (["swap", "--sizes", "2:10:4", "--bin-width", "nan"], "--bin-width: nan is not a finite number > 0"),
    (["swap", "--sizes", "2:10:4", "--bin-width", "inf"], "--bin-width: inf is not a finite number > 0"),
    (["stability", "--size", "10", "--fuzz", "nan"], "grid 'nan': 'nan' is not a finite number >= 0"),
    (["stability", "--size", "10", "--fuzz", "0.01,inf"], "'inf' is not a finite number >= 0"),
    (["bootstrap", "--alpha", "nan"], "--alpha: nan is not a finite number in (0, 1)"),
    (["bootstrap", "--alpha", "1"], "--alpha: 1.0 is not a finite number in (0, 1)"),
    (["significance", "--alpha", "nan"], "--alpha: nan is not a finite number in (0, 1)"),
    (["significance", "--permutations", "0"], "--permutations: 0 is not an integer >= 1"),
    (["significance", "--seed", "-1"], "--seed: -1 is not an integer in [0, 9223372036854775807]"),
    (["significance", "--permutations", str(10**15)], "--permutations 1,000,000,000,000,000 "
     "(1,000,000,000,000,000 in this job) would need about"),
]


@pytest.mark.parametrize("argv, problem", RELIABILITY)
def test_reliability_number_options(argv, problem, here, capsys):
    w(here, "m.csv", WEB)
    rc = main(["reliability", *argv, "--matrix", "m.csv", "--out", "o.parquet"])
    assert rc == 2 and problem in error_line(capsys.readouterr().err, "reliability")
    assert not (here / "o.parquet").exists()


FIT = [
    ("--level", "nan", "--level: nan is not a finite number in (0, 1)"),
    ("--level", "inf", "--level: inf is not a finite number in (0, 1)"),
    ("--bin-width", "nan", "--bin-width: nan is not a finite number > 0"),
]


@pytest.mark.parametrize("option, value, problem", FIT)
def test_fit_number_options(option, value, problem, here, capsys):
    w(here, "m.csv", WEB)
    assert main(["reliability", "swap", "--matrix", "m.csv", "--sizes", "2:10:4", "--trials",
                 "2", "--out", "c.parquet"]) == 0
    capsys.readouterr()
    rc = main(["reliability", "fit", "--counts", "c.parquet", "--matrix", "m.csv", option, value,
               "--out", "f.parquet"])
    assert rc == 2 and problem in error_line(capsys.readouterr().err, "reliability")
    assert not (here / "f.parquet").exists()


# --------------------------------------------------------------------------- QA4MRE gold

def test_gold_question_without_a_correct_option_is_refused(here, capsys):
    """Every answer to it would have been scored wrong: the gold is refused,
    naming the question (the file marks a correct option elsewhere, so it is a
    gold standard, not a test set)."""
    camp, argv = qa4mre(here)
    w(here, "gold.xml", GOLD.replace('<answer a_id="2" correct="Yes">b</answer>',
                                      '<answer a_id="2">b</answer>'))
    msg = both_refuse(capsys, here, camp, argv, "gold.xml", "line 6")
    assert "<q q_id='2'>" in msg
    assert "question 1.1.2 has no option marked correct" in msg
    assert "every answer to it would be scored wrong" in msg


def test_test_set_without_gold_cannot_score_runs(here, capsys):
    camp, argv = qa4mre(here)
    w(here, "gold.xml", GOLD.replace(' correct="Yes"', ""))
    msg = both_refuse(capsys, here, camp, argv, "gold.xml", "line 5")
    assert "no option of any question is marked correct" in msg
    # the reader itself still reads a test set (its questions and options)
    from qacamp.readers.qa4mre import read_gold

    questions, options = read_gold(here / "gold.xml")
    assert questions.height == 2 and not options["correct"].any()
    rc, err = run_ingest(capsys, camp, here / "results" / "ingest")
    assert rc == 2
