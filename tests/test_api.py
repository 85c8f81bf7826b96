"""The Python API: one validation path with the command line.

* the command line's hostile argument cases (tests/test_hostile_options.py,
  tests/test_hostile_values.py) run through ``qacamp.evaluate`` and the
  analyses' functions give the command's message, word for word;
* what only Python can pass (a float for an integer, a bool for a number, a
  text for a bool, an option of another kind, ``None``) is refused with the
  command line's wording, never rounded, read as true or ignored;
* frames are read by name and type (an integer ``unit`` column is the unit
  ids, not a run), pandas and Arrow as polars, with the numbers of the path;
* the README's notebook example runs as written; ``import qacamp`` reaches
  the documented API and stays light.
"""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from pathlib import Path

import polars as pl
import pytest
from hostile_util import error_line, qa4mre, series, w
from test_hostile_options import HUGE, SILENT, SWAP
from test_hostile_values import EVAL_QA4MRE, EVAL_TREC, FIT, RELIABILITY, WEB

import qacamp
from qacamp.cli import build_parser, main
from qacamp.eval_options import PYTHON_NAMES, python_options
from qacamp.kinds import KINDS
from qacamp.reliability.analyses import ANALYSES
from qacamp.reliability.analyses.python import FUNCTIONS, parameters

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    w(tmp_path, "m.csv", WEB)
    return tmp_path


# --------------------------------------------------------------------------- differential

def cli_message(capsys, argv: list[str]) -> str:
    rc = main(argv)
    msg = error_line(capsys.readouterr().err, argv[0])
    assert rc == 2, msg
    return msg


def api_message(call) -> str:
    with pytest.raises(qacamp.QacampError) as exc:
        call()
    return str(exc.value)


def reliability_call(argv: list[str]):
    """The Python call of ``qacamp reliability ...``: the options the command
    line was given, as the values argparse made of them."""
    argv = [*argv, "--out", "o.parquet"]  # (an output: not an argument of the call)
    ns = build_parser(argv).parse_args(argv)
    analysis = ANALYSES[ns.analysis]
    kwargs = {o.dest: getattr(ns, o.dest) for o in parameters(analysis)
              if getattr(ns, o.dest) != o.argparse_kwargs().get("default", False)}
    return lambda: FUNCTIONS[ns.analysis].function(scores=ns.matrix, **kwargs)


def eval_call(argv: list[str]):
    """The Python call of ``qacamp eval KIND ...``."""
    ns = build_parser(argv).parse_args(argv)
    back = {v: k for k, v in PYTHON_NAMES.items()}
    kwargs = {}
    for name, (_shown, spec) in python_options(KINDS[ns.kind]).items():
        value = getattr(ns, back.get(name, name), None)
        if value != spec.get("default", False) and name != "runs":
            kwargs[name] = value
    return lambda: qacamp.evaluate(ns.kind, getattr(ns, "runs", ()), **kwargs)


RELIABILITY_CASES = (
    [(argv, problem) for argv, problem in SILENT + HUGE]
    + [(["reliability", *argv, "--matrix", "m.csv"], problem) for argv, problem in RELIABILITY]
    + [([*SWAP[:5], "1:99999999999"], "subset size 99999999999 is impossible"),
       (SWAP + ["--bins", "2000000000"], "--bins: 2000000000 is not an integer in [2, 10000]"),
       (["reliability", "stability", "--matrix", "m.csv", "--size", "10", "--fuzz",
         "0:1:0.0000001"], "10,000,001 values, more than 1000 (the limit)"),
       (SWAP + ["--pairing", "per-pair", "--unit", "series"], "--unit series: m.csv is a score "
        "matrix"),
       (SWAP + ["--judgment-set", "x"], "--judgment-set x: m.csv is a score matrix"),
       (SWAP + ["--aggregator", "c_at_1"], "the input gives aggregator 'mean', not 'c_at_1'")])


@pytest.mark.parametrize("argv, problem", RELIABILITY_CASES,
                         ids=[" ".join(a[1:]) for a, _ in RELIABILITY_CASES])
def test_the_api_refuses_what_the_command_line_refuses_with_its_message(argv, problem, here,
                                                                        capsys):
    cli = cli_message(capsys, [*argv, "--out", "o.parquet"])
    assert problem in cli
    assert api_message(reliability_call(argv)) == cli
    assert not (here / "o.parquet").exists()


@pytest.mark.parametrize("option, value, problem", FIT)
def test_fit_options_alike(option, value, problem, here, capsys):
    assert main([*SWAP, "--out", "c.parquet"]) == 0
    argv = ["reliability", "fit", "--counts", "c.parquet", "--matrix", "m.csv", option, value]
    cli = cli_message(capsys, [*argv, "--out", "f.parquet"])
    assert problem in cli and api_message(reliability_call(argv)) == cli


@pytest.mark.parametrize("make, option, value, problem",
                         [(series, *case) for case in EVAL_TREC]
                         + [(qa4mre, *case) for case in EVAL_QA4MRE])
def test_eval_options_alike(make, option, value, problem, here, capsys):
    _camp, argv = make(here)
    argv = ["eval", *argv, f"{option}={value}"]
    cli = cli_message(capsys, argv)
    assert problem in cli and api_message(eval_call(argv)) == cli


@pytest.mark.parametrize("extra, problem", [
    (["-m", "cws"], "-m cws: not a qa4mre measure (it is a measure of trec-factoid and "
     "trec-series); the qa4mre measures are c_at_1, accuracy"),
    (["--gold", "nothere.xml"], "--gold: 'nothere.xml': no such file (a relative path is read "
     "from the current folder, "),
    (["--judgment-set", "x"], "--judgment-set: there is no judgment set 'x'; this campaign has "
     "gold"),
])
def test_eval_errors_alike(extra, problem, here, capsys):
    _camp, argv = qa4mre(here)
    argv = ["eval", *argv, *extra]
    cli = cli_message(capsys, argv)
    assert cli.startswith(problem), cli
    assert "campaigns.eval" not in cli and "the workflow runs in" not in cli
    assert api_message(eval_call(argv)) == cli


# --------------------------------------------------------------------------- Python's own values

@pytest.mark.parametrize("kwargs, message", [
    ({"trials": 2.5}, "--trials: 2.5 is not an integer >= 1"),
    ({"trials": 2.9999}, "--trials: 2.9999 is not an integer >= 1"),
    ({"seed": 1.5}, "--seed: 1.5 is not an integer in [0, 9223372036854775807]"),
    ({"trials": True}, "--trials: True is not an integer >= 1"),
    ({"trials": "20"}, "--trials: '20' is not an integer >= 1"),
    ({"trials": 0}, "--trials: 0 is not an integer >= 1"),
    ({"bin_width": float("nan")}, "--bin-width: nan is not a finite number > 0"),
    ({"bins": None}, "--bins: None is not an integer in [2, 10000]"),
    ({"include_baselines": "no"}, "--include-baselines: 'no' is not True or False"),
    ({"pairing": "both"}, "--pairing: 'both' is not one of shared, per-pair"),
    ({"sizes": 5}, "--sizes: 5 is not a list of sizes or their text (give a list of integers "
     "such as [5] or [5, 10], or text such as '5:10' or '10:half:auto')"),
    ({"sizes": [5.0]}, "--sizes: [5.0] is not a list of sizes"),
    ({"shard": "0/2"}, "swap: unknown option(s) shard; allowed: scores, sizes, measure"),
])
def test_python_values_are_checked_exactly(kwargs, message, here):
    args = {"sizes": "5:10", "trials": 3, **kwargs}
    assert api_message(lambda: qacamp.swap("m.csv", **args)).startswith(message)


def test_huge_trials_are_a_clean_memory_error(here):
    msg = api_message(lambda: qacamp.swap("m.csv", "5:10", trials=10**15))
    assert msg.startswith("--trials 1000000000000000 (shard 0/1: ") and "would need about" in msg


def test_numpy_numbers_are_numbers(here):
    import numpy as np

    a = qacamp.swap("m.csv", "5:10", trials=np.int64(3), seed=np.int32(7),
                    bin_width=np.float64(0.01))
    assert a.equals(qacamp.swap("m.csv", "5:10", trials=3, seed=7))


@pytest.mark.parametrize("kwargs, message", [
    ({"per_question": "no"}, "-q: 'no' is not True or False"),
    ({"baselines": 1}, "--baselines: 1 is not True or False"),
    ({"year": 2004}, "evaluate clef-qa: unknown option(s) year; allowed: questions, runs, "
     "measures, per_question, baselines, judgment_set, min_coverage, preset"),
    ({"runs": None}, "the RUN arguments: None is not a list"),
    ({"runs": []}, "the RUN arguments: give at least one value"),
    ({"measures": "c_at_1"}, "-m: 'c_at_1' is not a list (give a list, e.g. ['c_at_1'])"),
    ({"min_coverage": True}, "--min-coverage: True is not a number"),
    ({"min_coverage": "0.5"}, "--min-coverage: '0.5' is not a number"),
    ({"questions": 5}, "--questions: 5 is not text or a path"),
])
def test_evaluate_values_are_checked_exactly(kwargs, message, here):
    from hostile_util import clef

    clef(here)
    args = {"runs": ["runs/a.tsv", "runs/b.tsv"], "questions": "q.tsv", **kwargs}
    runs = args.pop("runs")
    assert api_message(lambda: qacamp.evaluate("clef-qa", runs, **args)).startswith(message)


def test_errors_are_one_documented_hierarchy():
    for name in ("InputError", "ConfigError", "UsageError", "OutputError"):
        assert issubclass(getattr(qacamp, name), qacamp.QacampError)
    assert issubclass(qacamp.QacampWarning, UserWarning)


# --------------------------------------------------------------------------- frames

def test_frames_are_read_by_name_and_type_with_the_numbers_of_the_path(here):
    """`unit` ids 1..40 read by polars as integers were one more run (1,800
    comparisons where the path gave 1,200); string ids were a polars error."""
    ints = "unit,a,b,c,d\n" + "".join(f"{i + 1}," + line.split(",", 1)[1] + "\n"
                                      for i, line in enumerate(WEB.splitlines()[1:]))
    w(here, "ints.csv", ints)
    by_path = qacamp.swap("ints.csv", "5:10", trials=20, seed=7)
    assert int(by_path["comparisons"].sum()) == 6 * 20 * 6  # 4 runs: 6 pairs, 6 sizes
    frame = pl.read_csv("ints.csv")
    assert frame.schema["unit"] == pl.Int64
    assert qacamp.swap(frame, "5:10", trials=20, seed=7).equals(by_path)
    assert qacamp.swap(frame.to_pandas(), "5:10", trials=20, seed=7).equals(by_path)
    assert qacamp.swap(frame.to_arrow(), "5:10", trials=20, seed=7).equals(by_path)
    # text ids: the same units in the same order
    strings = pl.read_csv("m.csv")
    assert qacamp.swap(strings, "5:10", trials=20, seed=7).equals(
        qacamp.swap("m.csv", "5:10", trials=20, seed=7))
    # a pandas frame with the ids as its (named) index
    assert qacamp.swap(strings.to_pandas().set_index("unit"), "5:10", trials=20,
                       seed=7).equals(qacamp.swap("m.csv", "5:10", trials=20, seed=7))


@pytest.mark.parametrize("frame, message", [
    (pl.DataFrame({"a": [0.1, 0.2], "unit": ["q1", "q2"]}),
     "scores (a frame): column unit: the unit column comes after the runs"),
    (pl.DataFrame({"unit": ["q1", "q2"], "a": ["x", "y"]}),
     "scores (a frame): column a: the column has type String, not a number"),
    (pl.DataFrame({"unit": ["q1", "q2"], "a": [0.1, None]}),
     "scores (a frame): row 2, column a: a missing or non-finite value"),
    (pl.DataFrame({"run": ["a", "a"], "measure": ["x", "y"], "unit": ["1", "2"],
                   "value": [0.1, 0.2]}),
     "scores (a frame): several measures (x, y); pass --measure"),
    (pl.DataFrame({"run": ["a"], "measure": ["x"], "unit": ["1"], "value": ["0.1"]}),
     "scores (a frame): column value: the column has type String, not Float64"),
    ({"unit": [1]}, "scores: cannot make a score matrix of a dict"),
])
def test_frames_outside_the_declared_schema_are_refused(frame, message):
    assert api_message(lambda: qacamp.swap(frame, "1")).startswith(message)


def test_frames_of_scores_select_rows_as_the_scores_folder(here):
    rows = pl.DataFrame({"run": ["a", "b"] * 4, "measure": ["m"] * 8,
                         "scope": ["question"] * 4 + ["topic"] * 4,
                         "unit": ["1", "1", "2", "2", "t1", "t1", "t2", "t2"],
                         "value": [0.1, 0.9, 0.8, 0.2, 0.5, 0.4, 0.3, 0.6]})
    tau, _ = qacamp.kendall({"q": rows.filter(scope="question"),
                             "t": rows.filter(scope="topic").with_columns(scope=pl.lit("question"))})
    assert tau.height == 1
    pairs, _, _ = qacamp.significance(rows, unit="topic", test="t-test")
    assert pairs.height == 1
    msg = api_message(lambda: qacamp.significance(rows.drop("scope"), unit="topic"))
    assert msg.startswith("--unit topic: scores (a frame) has no scope column")


# --------------------------------------------------------------------------- README, import

def test_the_readme_notebook_example_runs_as_written(monkeypatch):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Installing without a clone; Python API"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    monkeypatch.chdir(ROOT)
    names: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", qacamp.QacampWarning)  # the demo runs are complete
        exec(compile(code, "README.md", "exec"), names)  # noqa: S102 - the README's own code
    df, rows, counts = names["df"], names["rows"], names["counts"]
    assert df.columns == ["run", "measure", "scope", "unit", "value"]
    assert df.filter(measure="c_at_1").height == len(names["runs"]) == 44
    assert counts.columns == ["size", "bin", "swaps", "comparisons", "max_score"]
    # the swap counts equal the command's on the same matrix
    pairs, summary = names["pairs"], names["summary"]
    assert pairs.height == 44 * 43 // 2 and summary["correction"][0] == "holm"
    assert rows.filter(scope="question").height == 44 * 500


def test_import_qacamp_reaches_the_api_and_stays_light():
    code = ("import sys, qacamp; assert 'polars' not in sys.modules, 'polars'; "
            "f = qacamp.reliability.swap; assert f is qacamp.swap; "
            "assert callable(qacamp.significance) and callable(qacamp.evaluate); "
            "print(sorted(n for n in dir(qacamp) if not n.startswith('_')))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    listed = res.stdout
    for name in ("evaluate", "swap", "stability", "fit", "bootstrap", "significance",
                 "kendall", "QacampError"):
        assert f"'{name}'" in listed
    assert "'extras'" not in listed  # its inputs are a campaign's folders


def test_every_analysis_with_inputs_in_memory_has_its_function():
    for analysis in ANALYSES.values():
        has = analysis.name in FUNCTIONS
        assert has == all(f.read in ("parquet", "rankings") for f in analysis.files)


# --------------------------------------------------------------------------- evaluate's frames

def test_evaluate_takes_frames_for_the_tabular_files_with_the_numbers_of_the_files(here):
    from hostile_util import clef

    clef(here)
    by_path = qacamp.evaluate("clef-qa", ["runs/a.tsv", "runs/b.tsv"], questions="q.tsv",
                              per_question=True)
    q = pl.read_csv("q.tsv", separator="\t")
    a, b = (pl.read_csv(f"runs/{r}.tsv", separator="\t") for r in "ab")
    assert a.schema["qid"] == pl.Int64 and a.schema["answered"] == pl.Int64
    assert qacamp.evaluate("clef-qa", [a, "runs/b.tsv"], questions=q,
                           per_question=True).equals(by_path)
    assert qacamp.evaluate("clef-qa", [a.to_pandas(), b.to_arrow()], questions=q.to_pandas(),
                           per_question=True).equals(by_path)
    # PAN: a run is named by its folder, so frames come as a mapping name -> frame
    root = ROOT / "resources" / "demo" / "pan"
    paths = sorted((root / "runs").glob("*/answers.jsonl"))[:3]
    pan = qacamp.evaluate("pan", paths, truth=root / "truth.jsonl")
    frames = {p.parent.name: pl.read_ndjson(p) for p in paths}
    assert qacamp.evaluate("pan", frames, truth=pl.read_ndjson(root / "truth.jsonl")).equals(pan)


@pytest.mark.parametrize("change, message", [
    (lambda a: a.rename({"answer": "text"}), "runs[0] (a frame): column answer: the frame's "
     "columns are run, qid, answered, judgment, text. Fix: give the columns run, qid, answered, "
     "judgment, answer"),
    (lambda a: a.with_columns(answered=pl.Series([1, 2, 1, 0])),
     "runs[0] (a frame): row 2: answered is '2'. Fix: write 1 or 0"),
    (lambda a: a.with_columns(qid=pl.Series([1, 2, 3, 9])),
     "runs[0] (a frame): row 4: question 9 is not in the question set"),
    (lambda a: a.with_columns(answer=pl.lit("x\ty")),
     "runs[0] (a frame): row 1, column answer: the value holds a tab or a line break"),
])
def test_a_frame_is_checked_as_its_file_and_named_by_its_argument_and_row(change, message,
                                                                           here):
    from hostile_util import clef

    clef(here)
    a = change(pl.read_csv("runs/a.tsv", separator="\t"))
    assert api_message(lambda: qacamp.evaluate("clef-qa", [a], questions="q.tsv")
                       ).startswith(message)


def test_frames_where_the_format_is_no_table_are_refused(here):
    from hostile_util import qa4mre

    qa4mre(here)
    frame = pl.DataFrame({"qid": ["1"]})
    assert api_message(lambda: qacamp.evaluate("qa4mre", ["runs/a.xml"], gold=frame)).startswith(
        "gold (a frame): a qa4mre campaign takes its gold as files")
    assert api_message(lambda: qacamp.evaluate("pan", [frame], truth="t.jsonl")).startswith(
        "runs[0] (a frame): column id: ")
    assert api_message(lambda: qacamp.evaluate(
        "pan", [pl.DataFrame({"id": ["p1"], "value": [0.5]})], truth="t.jsonl")).startswith(
        "runs[0] (a frame): PAN names a run by its folder: give the runs as a mapping")
    assert api_message(lambda: qacamp.evaluate("clef-qa", {"x": frame}, questions="q.tsv")
                       ).startswith("runs: a mapping names PAN runs")


def test_a_unit_column_after_the_runs_is_refused_in_files_too(here):
    w(here, "late.csv", "a,unit\n0.1,1\n0.2,2\n")
    assert api_message(lambda: qacamp.swap("late.csv", "1")) == (
        "late.csv: line 1: the unit column comes after the runs. Fix: put the unit ids in the "
        "first column")
