"""Hostile input, part 1: one validation for every entry point.

Every bad input is given to ``qacamp ingest`` and to ``qacamp eval`` (or, for
score matrices, ``qacamp ingest`` and ``qacamp reliability``): both must exit
2 with the same one-line message naming the file and the place, no traceback
and nothing written; good input gives the same numbers both ways.  Classes
(docs/formats.md): cross-file checks (1) and semantic checks (2); bounded
reading and automatic judging are in test_hostile_limits.py.
"""

from __future__ import annotations

import json

import polars as pl
import pytest
from hostile_util import (
    CLEF_H,
    GOLD,
    KINDS,
    both_config_error,
    both_refuse,
    clef,
    error_line,
    factoid,
    matrix_both,
    pan,
    qa4mre,
    qa_run,
    run_eval,
    run_ingest,
    same_numbers,
    series,
    w,
)

# --------------------------------------------------------------------------- good input

@pytest.mark.parametrize("kind", sorted(KINDS))
def test_good_input_same_numbers(kind, here, capsys):
    camp, argv = KINDS[kind](here)
    warnings = same_numbers(capsys, here, camp, argv)
    assert warnings.height == 0


# --------------------------------------------------------------------------- 1: cross-file

def test_pan_same_answers_file_twice(here, capsys):
    camp, argv = pan(here)
    camp["answers"] = ["runs/t1/answers.jsonl", "runs/t1/answers.jsonl"]
    argv = argv[:3] + camp["answers"]
    msg = both_refuse(capsys, here, camp, argv, "runs/t1/answers.jsonl", "line 1")
    assert "run 't1' also comes from runs/t1/answers.jsonl" in msg


def test_qa4mre_one_run_id_in_two_files(here, capsys):
    camp, argv = qa4mre(here)
    w(here, "runs/b.xml", qa_run("ra", "2"))
    msg = both_refuse(capsys, here, camp, argv, "runs/b.xml", "line 1")
    assert "run 'ra' also comes from runs/a.xml" in msg


def test_clef_response_to_unknown_question(here, capsys):
    camp, argv = clef(here)
    w(here, "runs/b.tsv", CLEF_H + "b\t1\t1\tR\tx\nb\t9\t1\tR\ty\n")
    msg = both_refuse(capsys, here, camp, argv, "runs/b.tsv", "line 3")
    assert "question 9 is not in the question set" in msg


def test_trec_response_to_unknown_question(here, capsys):
    camp, argv = factoid(here)
    w(here, "adj/runB.txt", "1 runB D1 R a\n77 runB D2 W b\n")
    msg = both_refuse(capsys, here, camp, argv, "adj/runB.txt", "line 2")
    assert "question 77 is not in the question set" in msg


def test_series_unknown_nugget(here, capsys):
    camp, argv = series(here)
    w(here, "o/r1.two", "1.3 r1 1 2\n2.2 r1 1 9\n")
    msg = both_refuse(capsys, here, camp, argv, "o/r1.two", "line 2")
    assert "nugget 9 of question 2.2 is not in the nugget list" in msg


def test_series_list_questions_without_list_key(here, capsys):
    camp, argv = series(here)
    del camp["list_key"]
    argv = [a for a in argv if a not in ("--list-key", "list_key")]
    msg = both_config_error(capsys, here, camp, argv, "list_key", "--list-key")
    assert "1 LIST questions but no list answer key" in msg and "skip: [list]" in msg
    # saying so explicitly is accepted, and passed on to scoring
    camp["skip"] = ["list"]
    same_numbers(capsys, here, camp, argv + ["--skip", "list"])
    resolved = json.loads((here / "res" / "ingest" / "campaign.json").read_text())
    assert resolved["options"]["skip"] == ["list"]


def test_series_other_questions_without_nuggets(here, capsys):
    camp, argv = series(here)
    del camp["nuggets"]
    argv = [a for a in argv if a not in ("--nuggets", "nuggets")]
    msg = both_config_error(capsys, here, camp, argv, "nuggets", "--nuggets")
    assert "2 OTHER questions but no nugget list" in msg


def test_series_other_questions_without_judged_other_files(here, capsys):
    camp, argv = series(here)
    spec = camp["judgment_sets"]["adjudicated"]
    del spec["other"], spec["other_nuggets"]
    argv = argv[:argv.index("--other")]
    both_config_error(capsys, here, camp, argv, "judgment_sets.adjudicated.other", "--other")


def test_series_factoid_questions_without_judged_factoid_files(here, capsys):
    camp, argv = series(here)
    del camp["judgment_sets"]["adjudicated"]["factoid"]
    i = argv.index("--factoid")
    argv = argv[:i] + argv[i + 2:]
    msg = both_config_error(capsys, here, camp, argv, "judgment_sets.adjudicated.factoid",
                            "--factoid")
    assert "2 FACTOID questions but judgment set 'adjudicated' has no factoid files" in msg


def test_series_unsupported_year(here, capsys):
    camp, argv = series(here)
    camp["year"] = 2010
    argv[argv.index("--year") + 1] = "2010"
    msg = both_config_error(capsys, here, camp, argv, "year", "--year")
    assert "year 2010 is not 2004-2007" in msg


def test_eval_unknown_judgment_set(here, capsys):
    _camp, argv = clef(here)
    rc, out, err = run_eval(capsys, argv + ["--judgment-set", "nope"])
    assert rc == 2 and out == ""
    assert "there is no judgment set 'nope'" in error_line(err, "eval")


def test_eval_judgment_set_without_scores_is_an_error(here, capsys):
    camp, argv = series(here)
    argv = [a for a in argv if a not in ("--list-key", "list_key")]
    rc, out, err = run_eval(capsys, argv + ["--skip", "list", "-m", "list_f"])
    assert rc == 2 and out == ""
    assert "judgment set 'adjudicated' has no scores for list_f" in error_line(err, "eval")


def test_factoid_list_run_without_list_key(here, capsys):
    camp, argv = factoid(here)
    w(here, "q/trec11questions_list", "<top>\n<num> Number: 9\n<desc> Description:\nName 3.\n"
                                       "</top>\n")
    w(here, "adj/runA.list", "9 runA D1 1 1 Paris\n9 runA D2 -1 0 Rome\n")
    camp["questions"].append("q/trec11questions_list")
    camp["judgment_sets"]["adjudicated"].append("adj/runA.list")
    argv = argv[:3] + ["--questions", "q/trec11questions_list"] + argv[3:] + ["adj/runA.list"]
    both_config_error(capsys, here, camp, argv, "list_key", "--list-key")
    w(here, "q/list_key", "# 9\nQ: Name 3.\nParis\nLyon\nNice\n")
    camp["list_key"] = "q/list_key"
    same_numbers(capsys, here, camp, argv + ["--list-key", "q/list_key"])


# --------------------------------------------------------------------------- 2: semantic

def test_qa4mre_ids_colliding_once_joined(here, capsys):
    camp, argv = qa4mre(here)
    gold = GOLD.replace("</test-set>", '<topic t_id="1.1"><reading-test r_id="1">'
                        '<q q_id="1"><q_str>C?</q_str><answer a_id="1">c</answer></q>'
                        "</reading-test></topic>\n</test-set>")
    gold = gold.replace('<reading-test r_id="1"><doc', '<reading-test r_id="1.1"><doc')
    w(here, "gold.xml", gold)
    msg = both_refuse(capsys, here, camp, argv, "gold.xml", "line 9")
    assert "both join to the id 1.1.1" in msg


def test_qa4mre_run_in_another_topic_split(here, capsys):
    camp, argv = qa4mre(here)
    w(here, "gold.xml", GOLD.replace('<reading-test r_id="1">', '<reading-test r_id="1.1">'))
    w(here, "runs/a.xml", qa_run("ra", "1", t_id="1.1", r_id="1"))
    msg = both_refuse(capsys, here, camp, argv, "runs/a.xml", "line 4")
    assert "is in topic '1' reading test '1.1.1' of the gold standard" in msg


@pytest.mark.parametrize("which, bad, place, problem", [
    ("gold", '<reading-test r_id="1"><doc d_id="1">text</doc>\n<reading-test r_id="2">',
     "line 5", "a <reading-test> inside <reading-test>"),
    ("run", '<topic t_id="1">\n<question q_id="1" answered="NO"/>', "line 3",
     "a <question> inside <topic>"),
])
def test_qa4mre_nesting(which, bad, place, problem, here, capsys):
    camp, argv = qa4mre(here)
    if which == "gold":
        text = GOLD.replace('<reading-test r_id="1"><doc d_id="1">text</doc>', bad)
        text = text.replace("</reading-test>", "</reading-test></reading-test>")
        w(here, "gold.xml", text)
        file = "gold.xml"
    else:
        w(here, "runs/a.xml", qa_run("ra", "1").replace('<topic t_id="1">', bad))
        file = "runs/a.xml"
    msg = both_refuse(capsys, here, camp, argv, file, place)
    assert problem in msg


@pytest.mark.parametrize("value, correct", [("Yes", True), ("YES", True), (" true ", True),
                                            ("1", True), ("No", False), ("false", False),
                                            ("0", False)])
def test_qa4mre_correct_variants_accepted(value, correct, here, capsys):
    camp, argv = qa4mre(here)
    gold = GOLD.replace('<answer a_id="1" correct="Yes">', f'<answer a_id="1" correct="{value}">')
    if not correct:  # the question keeps a correct option (a gold question needs one)
        gold = gold.replace('<answer a_id="2">None', '<answer a_id="2" correct="Yes">None')
    w(here, "gold.xml", gold)
    same_numbers(capsys, here, camp, argv)
    options = pl.read_parquet(here / "res" / "ingest" / "options.parquet")
    assert options.filter((pl.col("qid") == "1.1.1") & (pl.col("option") == "1"))[
        "correct"].item() is correct


@pytest.mark.parametrize("value", ["Y", "y", "N", "ja", "correct", ""])
def test_qa4mre_correct_variants_refused(value, here, capsys):
    camp, argv = qa4mre(here)
    w(here, "gold.xml", GOLD.replace('<answer a_id="1" correct="Yes">',
                                      f'<answer a_id="1" correct="{value}">'))
    msg = both_refuse(capsys, here, camp, argv, "gold.xml", "line 5")
    assert f"correct='{value}' is not an accepted value" in msg


@pytest.mark.parametrize("char, name", [("\r", "carriage return"), ("\v", "vertical tab"),
                                        ("\f", "form feed"), ("\u2028", "U+2028"),
                                        ("\x85", "NEL"), ("\u2029", "U+2029"),
                                        ("\x1e", "U+001E")])
def test_trec_line_breaks_other_than_lf_refused(char, name, here, capsys):
    camp, argv = factoid(here)
    # three responses joined by a character other programs read as a line break
    w(here, "adj/runB.txt", "1 runB D1 R a" + char + "2 runB D2 W b" + char + "3 runB D3 R c\n")
    msg = both_refuse(capsys, here, camp, argv, "adj/runB.txt", "line 1")
    assert name in msg


def test_crlf_line_ends_and_bom_accepted(here, capsys):
    camp, argv = factoid(here)
    text = (here / "adj/runB.txt").read_text()
    w(here, "adj/runB.txt", b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    same_numbers(capsys, here, camp, argv)


def test_series_response_to_a_question_of_another_type(here, capsys):
    camp, argv = series(here)
    w(here, "f/r1", "1.1 r1 D1 R 1995\n2.2 r1 D2 W Durst\n")  # 2.2 is the Other question
    msg = both_refuse(capsys, here, camp, argv, "f/r1", "line 2")
    assert "question 2.2 is a OTHER question, but this is a judged factoid run" in msg


def test_second_judgment_set_with_other_answer_strings(here, capsys):
    camp, argv = factoid(here)
    w(here, "a1/runA.txt", "3 runA D3 R ans3\n1 runA D1 W ans1\n2 runA NIL R\n")
    w(here, "a1/runB.txt", "1 runB D1 R ans1\n2 runB D2 W other answer\n3 runB D3 X ans3\n")
    camp["judgment_sets"]["a1"] = ["a1/runA.txt", "a1/runB.txt"]
    out = here / "results" / "ingest"
    rc, err = run_ingest(capsys, camp, out)
    msg = error_line(err, "ingest")
    assert rc == 2 and msg.startswith("a1/runB.txt: line 2: ")
    assert "the answer 'other answer', the primary set 'adjudicated' 'ans2'" in msg
    assert not out.exists()


@pytest.mark.parametrize("which, line", [("truth", 2), ("answers", 3)])
def test_json_duplicate_keys(which, line, here, capsys):
    camp, argv = pan(here)
    if which == "truth":
        w(here, "truth.jsonl", (here / "truth.jsonl").read_text().replace(
            '"same": false}', '"same": false, "same": true}', 1))
        file = "truth.jsonl"
    else:
        file = "runs/t2/answers.jsonl"
        w(here, file, (here / file).read_text().replace('"value": 0.6', '"value": 0.6, "value": 0.4'))
    msg = both_refuse(capsys, here, camp, argv, file, f"line {line}")
    assert "appears twice in one object" in msg


def test_coverage_warning_for_a_run_without_the_file_of_a_part(here, capsys):
    """A run of a series campaign without its list file answers none of the
    list questions: warned as a file answering too few of them is (it was
    scored list F 0 without a word)."""
    camp, argv = series(here)
    w(here, "f/r2", "1.1 r2 D1 W 1996\n2.1 r2 NIL R\n")
    w(here, "o/r2.one", "1.3 r2 1 D1 blah\n2.2 r2 1 D3 x\n")
    w(here, "o/r2.two", "1.3 r2 1 1\n2.2 r2 1 1\n")
    spec = camp["judgment_sets"]["adjudicated"]
    spec["factoid"].append("f/r2")
    spec["other"].append("o/r2.one")
    spec["other_nuggets"].append("o/r2.two")
    argv = argv[:argv.index("--list")] + ["f/r2"] + argv[argv.index("--list"):]
    argv = argv[:argv.index("--other-nuggets")] + ["o/r2.one"] + \
        argv[argv.index("--other-nuggets"):] + ["o/r2.two"]
    warnings = same_numbers(capsys, here, camp, argv)
    assert warnings.rows() == [("f/r2", None, "coverage",
                                "the run r2 has no list file (judgment set adjudicated): it "
                                "answers 0 of the 1 LIST questions (0%), less than "
                                "min_coverage 0.9: is a file missing?", 1)]
    camp["min_coverage"] = 0  # (0 turns the warning off)
    assert same_numbers(capsys, here, camp, argv + ["--min-coverage", "0"]).height == 0


def test_coverage_warning_for_a_truncated_run(here, capsys):
    camp, argv = clef(here)
    w(here, "runs/b.tsv", CLEF_H + "b\t1\t1\tR\tx\n")  # 1 of 4 questions
    warnings = same_numbers(capsys, here, camp, argv)
    assert warnings.rows() == [("runs/b.tsv", "line 2 (end of file)", "coverage",
                                "the run answers 1 of the 4 questions (25%), less than "
                                "min_coverage 0.9: is the file truncated?", 1)]
    # the share is configurable (0 turns the warning off)
    camp["min_coverage"] = 0.25
    assert same_numbers(capsys, here, camp, argv + ["--min-coverage", "0.25"]).height == 0
    camp["min_coverage"] = 1.5
    both_config_error(capsys, here, camp, argv + ["--min-coverage", "1.5"], "min_coverage",
                      "--min-coverage")


# --------------------------------------------------------------------------- 2: score matrices

@pytest.mark.parametrize("cell", ["1_000", "\u0661", "\uff11", "true", "NaN", "inf", "1e400",
                                  "", "0x1p3", "½"])
def test_matrix_csv_strict_numbers(cell, here, capsys):
    w(here, "m.csv", f"unit,a,b\nq1,0.5,1\nq2,{cell},0.25\n")
    msg = matrix_both(capsys, here, "m.csv")
    assert msg.startswith("m.csv: line 3, column a: ") and "not a finite decimal number" in msg


@pytest.mark.parametrize("cell", ["1e308", "-1e308", "1e101", "-2.5e160"])
def test_matrix_values_beyond_1e100_are_refused(cell, here, capsys):
    """Two cells of 1e308 in a run's column made its mean inf (exit 0, `inf` in
    runs.csv), 1e160 overflowed the design's sums of squares: a value's
    magnitude is at most 1e100, and the error names its line and run."""
    w(here, "m.csv", f"unit,a,b\nq1,0.5,1\n\nq2,0.25,{cell}\nq3,{cell},0\n")
    msg = matrix_both(capsys, here, "m.csv")
    assert msg == (f"m.csv: line 4, column b: the value {float(cell):g} is beyond the largest "
                   "magnitude, 1e+100 (the runs' means and the analyses' sums of squares would "
                   "overflow). Fix: give the scores on a scale of at most 1e100 (e.g. rescale "
                   "the measure)"), msg


@pytest.mark.parametrize("frame, place", [
    (pl.DataFrame({"unit": ["q1", "q2"], "a": [0.5, 1e101], "b": [-1e300, 0.0]}),
     "row 1, column b"),
    (pl.DataFrame({"unit": ["q1", "q1", "q2", "q2"], "run": ["a", "b", "a", "b"],
                   "value": [1.0, 0.5, -1e200, 0.2]}), "row 3, column value"),
])
def test_matrix_parquet_values_beyond_1e100_are_refused(frame, place, here, capsys):
    frame.write_parquet(here / "m.parquet")
    msg = matrix_both(capsys, here, "m.parquet")
    assert msg.startswith(f"m.parquet: {place}: the value ") and "largest magnitude" in msg


def test_matrix_values_of_magnitude_1e100_are_read(here):
    from qacamp.readers.matrix import MAX_VALUE, read_matrix_table

    w(here, "m.csv", "unit,a,b\nq1,1e100,-1e100\nq2,0.5,0.25\n")
    m = read_matrix_table(here / "m.csv")
    assert MAX_VALUE == 1e100 and m.values.tolist() == [[1e100, -1e100], [0.5, 0.25]]


@pytest.mark.parametrize("text, place, problem", [
    ("unit,a,b\n,0.5,1\n", "line 2, column unit", "an empty unit id"),
    ("unit,a,b\nq1,0.5,1\nq1,1,1\n", "line 3, column unit", "unit id 'q1' appears twice"),
    ("unit,a,a\nq1,0.5,1\n", "line 1", "appears twice"),
    ("a,b\n0.5\n", "line 2", "expected 2 fields, got 1"),
])
def test_matrix_csv_ids_and_cells(text, place, problem, here, capsys):
    w(here, "m.csv", text)
    msg = matrix_both(capsys, here, "m.csv")
    assert msg.startswith(f"m.csv: {place}: ") and problem in msg


@pytest.mark.parametrize("frame, place, problem", [
    (pl.DataFrame({"a": [0.5, 1.0], "b": [True, False]}), "column b", "type Boolean"),
    (pl.DataFrame({"a": [[0.5], [1.0]], "b": [0.1, 0.2]}), "column a", "type List(Float64)"),
    (pl.DataFrame({"a": ["0.5", "1"]}), "column a", "type String"),
    (pl.DataFrame({"unit": ["q1", None], "a": [0.5, 1.0]}), "row 2, column unit",
     "an empty or null unit"),
    (pl.DataFrame({"unit": ["q1", ""], "a": [0.5, 1.0]}), "row 2, column unit",
     "an empty or null unit"),
    (pl.DataFrame({"a": [0.5, None]}), "row 2, column a", "a missing or non-finite value"),
    (pl.DataFrame({"unit": ["q1", "q1", "q2"], "run": ["a", "b", "a"], "value": [1.0, 0.5, 0.2]}),
     "row 3, column unit", "unit q2 has no value for run b (a missing cell)"),
    (pl.DataFrame({"unit": ["q1", "q1"], "run": ["a", None], "value": [1.0, 0.5]}),
     "row 2, column run", "an empty or null run"),
    (pl.DataFrame({"unit": ["q1", "q1"], "run": ["a", "a"], "value": [1.0, 0.5]}),
     "row 2", "unit q1 and run a appear twice"),
])
def test_matrix_parquet_strict(frame, place, problem, here, capsys):
    frame.write_parquet(here / "m.parquet")
    msg = matrix_both(capsys, here, "m.parquet")
    assert msg.startswith(f"m.parquet: {place}: ") and problem in msg
