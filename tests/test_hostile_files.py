"""Hostile input, part 5: raw files.

* valid QA4MRE runs that were refused: XML declared ISO-8859-1 or UTF-16, or
  with CR-only line ends, read as they declare (same numbers as UTF-8);
* silent acceptance: a ``<num>`` without a number, answer patterns for
  unknown questions, a tab or line break in a run name or id, an empty CLEF run
  name, ``#`` lines read as data (each format decides: docs/formats.md);
* run names reaching reports: raw HTML escaped in Markdown tables, formula
  characters neutralised in CSV files.
"""

from __future__ import annotations

import json

import polars as pl
import pytest
from hostile_util import (
    CLEF_H,
    GOLD,
    TOP,
    both_refuse,
    clef,
    error_line,
    factoid,
    matrix_both,
    pan,
    qa4mre,
    qa_run,
    run_ingest,
    same_numbers,
    w,
)

from qacamp.cli import main

# --------------------------------------------------------------------------- item 4: XML encodings

def _declared(text: str, encoding: str) -> str:
    return f'<?xml version="1.0" encoding="{encoding}"?>\n' + text


@pytest.mark.parametrize("encoding, codec, line_end", [
    ("ISO-8859-1", "latin-1", "\n"),
    ("UTF-16", "utf-16", "\n"),
    ("UTF-8", "utf-8", "\r"),          # CR-only line ends (old Mac)
    ("ISO-8859-1", "latin-1", "\r"),
])
def test_qa4mre_run_decoded_as_declared(encoding, codec, line_end, here, capsys):
    """These runs were refused as "not valid utf-8" (a line-text helper read the
    XML for an error place); the same bytes as a gold file were accepted.  They
    give exactly the numbers of the UTF-8 file."""
    camp, argv = qa4mre(here)
    want = same_numbers(capsys, here, camp, argv)
    reference = (here / "res" / "scores" / "runs.parquet").read_bytes()
    text = _declared(qa_run("rb", "2"), encoding).replace("\n", line_end)
    w(here, "runs/b.xml", text.encode(codec))
    assert same_numbers(capsys, here, camp, argv).equals(want)
    assert (here / "res" / "scores" / "runs.parquet").read_bytes() == reference
    # the gold in the same encoding is read too
    w(here, "gold.xml", GOLD.replace('encoding="UTF-8"', f'encoding="{encoding}"')
      .replace("\n", line_end).encode(codec))
    same_numbers(capsys, here, camp, argv)


def test_qa4mre_non_ascii_run_id_in_latin1_and_its_duplicate(here, capsys):
    """A run id "rä" declared ISO-8859-1 is read; the same id again in a UTF-16
    file is refused at the second file's <output> element (its XML line)."""
    camp, argv = qa4mre(here)
    w(here, "runs/b.xml", _declared(qa_run("rä", "2"), "ISO-8859-1").encode("latin-1"))
    same_numbers(capsys, here, camp, argv)
    runs = pl.read_parquet(here / "res" / "scores" / "runs.parquet")["run"].unique().to_list()
    assert "rä" in runs
    w(here, "runs/c.xml", _declared(qa_run("rä", "1"), "UTF-16").encode("utf-16"))
    camp["runs"] = ["runs/a.xml", "runs/b.xml", "runs/c.xml"]
    msg = both_refuse(capsys, here, camp, argv[:3] + camp["runs"], "runs/c.xml", "line 2")
    assert msg.startswith("runs/c.xml: line 2, <output>: run 'rä' also comes from runs/b.xml")


# --------------------------------------------------------------------------- item 5: readers

def test_trec_num_without_a_number(here, capsys):
    """`<num> Number:` with nothing after it took the next line (`<desc>`) as the id."""
    camp, argv = factoid(here)
    w(here, "q/trec11questions", TOP.replace("<num> Number: 2\n", "<num> Number:\n"))
    msg = both_refuse(capsys, here, camp, argv, "q/trec11questions", "line 8")
    assert "the <num> line gives no question number" in msg


def _patterns(here, text: str) -> tuple[dict, list[str]]:
    camp, argv = factoid(here)
    w(here, "patterns", text)
    camp.update(patterns="patterns", autojudge=True)
    return camp, argv[:5] + ["--patterns", "patterns"] + argv[5:]


def test_answer_patterns_for_unknown_questions(here, capsys):
    """Patterns for question 9 (not in the question set) were silently unused."""
    camp, argv = _patterns(here, "1 Paris\n9 Rome\n")
    msg = both_refuse(capsys, here, camp, argv, "patterns", "line 2")
    assert "the answer pattern file lists question 9, which is not in the question set" in msg
    camp, argv = _patterns(here, "1 Paris\n3 \\d+\n")
    same_numbers(capsys, here, camp, argv, judgment_set="automatic")


@pytest.mark.parametrize("folder, shown", [("t\t1", "t\\t1"), ("t\n1", "t\\n1")])
def test_tab_or_line_break_in_a_pan_folder_name(folder, shown, here, capsys):
    """The run name is the folder: a tab or newline in it split eval's TSV rows."""
    camp, argv = pan(here)
    (here / "runs" / "t2").rename(here / "runs" / folder)
    runs = ["runs/t1/answers.jsonl", f"runs/{folder}/answers.jsonl"]
    camp["answers"] = runs
    out = here / "results" / "ingest"
    rc_i, err_i = run_ingest(capsys, camp, out)
    rc_e = main(["eval", *argv[:3], *runs])
    err_e = capsys.readouterr().err
    assert (rc_i, rc_e) == (2, 2)
    msg = error_line(err_i, "ingest")
    assert msg == error_line(err_e, "eval")
    assert msg.startswith(f"runs/{shown}/answers.jsonl: byte 0: the run name '{shown}' holds a ")
    assert not out.exists()


@pytest.mark.parametrize("ref, shown, name", [("&#9;", "r\\tb", "tab (U+0009)"),
                                             ("&#10;", "r\\nb", "line feed (U+000A)")])
def test_tab_or_line_break_in_a_qa4mre_run_id(ref, shown, name, here, capsys):
    camp, argv = qa4mre(here)
    w(here, "runs/b.xml", qa_run(f"r{ref}b", "2"))
    msg = both_refuse(capsys, here, camp, argv, "runs/b.xml", "line 1")
    assert f"run_id '{shown}' holds a {name}" in msg


def test_tab_in_a_pan_problem_id(here, capsys):
    camp, argv = pan(here)
    w(here, "truth.jsonl", json.dumps({"id": "p\t0", "same": True}) + "\n")
    msg = both_refuse(capsys, here, camp, argv, "truth.jsonl", "line 1")
    assert "holds a tab (U+0009)" in msg


def test_empty_clef_run_name(here, capsys):
    camp, argv = clef(here)
    w(here, "runs/b.tsv", CLEF_H + "\t1\t1\tR\tx\n\t2\t1\tW\ty\n")
    msg = both_refuse(capsys, here, camp, argv, "runs/b.tsv", "line 2")
    assert "the run field is empty" in msg


# --------------------------------------------------------------------------- item 5: `#` lines

@pytest.mark.parametrize("file, text, line", [
    ("q.tsv", "qid\n# the 2009 questions\n1\n2\n3\n4\n", "line 2"),
    ("runs/b.tsv", CLEF_H + "# judged by assessor 2\nb\t1\t1\tR\tx\n", "line 2"),
])
def test_clef_tsv_has_no_comment_lines(file, text, line, here, capsys):
    """A `# ...` line in the questions file was read as a question (every run
    then missed it); the CLEF TSV has no comments, so it is refused."""
    camp, argv = clef(here)
    w(here, file, text)
    msg = both_refuse(capsys, here, camp, argv, file, line)
    assert "a line starting with '#': the CLEF TSV has no comment lines" in msg


def test_pan_json_lines_have_no_comment_lines(here, capsys):
    camp, argv = pan(here)
    w(here, "runs/t2/answers.jsonl", "# run 2\n" + (here / "runs/t2/answers.jsonl").read_text())
    msg = both_refuse(capsys, here, camp, argv, "runs/t2/answers.jsonl", "line 1")
    assert "JSON lines have no comment lines" in msg


def test_csv_has_no_comment_lines(here, capsys):
    """CSV has no comments (RFC 4180): a `#` line is a row, so a comment fails
    as a malformed row and says why; a unit id starting with # is data."""
    w(here, "m.csv", "unit,a,b\n# exported by x\nq1,0.5,1\nq2,0.25,0\n")
    msg = matrix_both(capsys, here, "m.csv")
    assert msg.startswith("m.csv: line 2: expected 3 fields, got 1 (a line starting with '#' "
                          "is data: CSV has no comment lines")
    w(here, "m.csv", "# scores\na,b\n0.5,1\n")
    msg = matrix_both(capsys, here, "m.csv")
    assert msg.startswith("m.csv: line 2: expected 1 fields, got 2 (a line starting with '#'")
    w(here, "m.csv", "# scores\nscore\n0.5\n")  # the comment would name the one run
    msg = matrix_both(capsys, here, "m.csv")
    assert msg.startswith("m.csv: line 2, column # scores: 'score' is not a finite decimal "
                          "number (a line starting with '#' is data: CSV has no comment lines")
    w(here, "m.csv", "unit,a,b\n#7,0.5,1\nq2,0.25,0\n")
    from qacamp.readers.matrix import read_matrix_table

    m = read_matrix_table(here / "m.csv")
    assert m.units == ("#7", "q2") and m.values.tolist() == [[0.5, 1.0], [0.25, 0.0]]


# --------------------------------------------------------------------------- item 6: outputs

def test_run_names_reach_markdown_escaped_and_csv_neutralised(here, capsys):
    """Markdown tables passed raw HTML from run names through, and CSV cells
    starting with = + - @ reached spreadsheets as formulas."""
    q = "qid\n1\n2\n"
    w(here, "q.tsv", q)
    names = ['=HYPERLINK("http://x","y")', "<script>alert(1)</script>", "-2+3", "@SUM(A1)",
             "plain", "*b* _i_ | p \\ `code` [l](http://x)"]
    runs = []
    for k, name in enumerate(names):
        runs.append(w(here, f"runs/{k}.tsv", CLEF_H + f"{name}\t1\t1\tR\tx\n{name}\t2\t0\t-\t\n"))
    camp = {"kind": "clef-qa", "questions": "q.tsv", "runs": runs}
    assert run_ingest(capsys, camp, here / "c" / "ingest")[0] == 0
    assert main(["score", "--ingest", "c/ingest", "--out", "c/scores"]) == 0
    assert main(["report", "tables", "--campaign-dir", "c", "--no-reliability", "--out",
                 "c/tables"]) == 0
    for csv in (here / "c" / "scores" / "runs.csv", here / "c" / "tables" / "runs.csv"):
        cells = set(pl.read_csv(csv)["run"].to_list())
        assert {"'" + n for n in names[:1] + names[2:4]} <= cells, (csv, cells)
        assert {names[1], "plain"} <= cells
    md = (here / "c" / "tables" / "runs.md").read_text()
    assert "<script>" not in md and "&lt;script&gt;alert(1)&lt;/script&gt;" in md
    # rendered (GitHub's table syntax): every name is the text of its cell, nothing
    # became a tag, a link, code or emphasis
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").enable("table").render(md)
    assert "<table>" in html
    assert [t for t in ("<script", "<a ", "<code>", "<em>", "<strong>") if t in html] == [], html
    cells = [c.strip() for c in html.replace("</td>", "<td>").split("<td>")]
    assert "*b* _i_ | p \\ `code` [l](http://x)" in cells, html
    # the Parquet results keep the names as they are
    runs_pq = pl.read_parquet(here / "c" / "scores" / "runs.parquet")
    assert set(names) <= set(runs_pq["run"].unique().to_list())
