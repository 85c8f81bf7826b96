"""What the command line prints for a person: help texts in plain words (no
reStructuredText literals or roles), Markdown exports on stdout unless a path
is given, and `qacamp eval --format trec` in trec_eval's lines."""

from __future__ import annotations

import re

import pytest

from qacamp.cli import SUBCOMMANDS, build_parser, main, plain


def parsers(parser):
    """Every parser under ``parser`` (subcommands, their subcommands ...)."""
    import argparse

    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                yield from parsers(sub)


def test_every_help_text_is_plain():
    seen = 0
    for name in SUBCOMMANDS:
        for p in parsers(build_parser([name])):
            text = p.format_help()
            seen += 1
            assert "``" not in text, (p.prog, text)
            assert not re.search(r":(mod|func|class|meth|attr|data):`", text), (p.prog, text)
    assert seen > 40  # the subcommands of reliability, report, eval, simulate included
    assert plain("``qacamp ingest`` and :mod:`qacamp.runner`") == "qacamp ingest and qacamp.runner"


@pytest.mark.parametrize("command", ["measures", "presets"])
def test_markdown_goes_to_stdout_unless_a_path_is_given(command, tmp_path, capsys,
                                                        monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main([command, "--markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# ") and list(tmp_path.iterdir()) == []  # nothing written here
    assert main([command, "--markdown", "x.md"]) == 0
    assert (tmp_path / "x.md").read_text() == out


CLEF_Q = "qid\tlanguage\n1\tEN\n2\tEN\n3\tEN\n4\tEN\n"
#: alpha: 2 right, 1 wrong, 1 unanswered without a candidate; beta: 1 right, 3 wrong
CLEF_RUNS = {"alpha": ["1\t1\tR\tx", "2\t1\tR\tx", "3\t1\tW\tx", "4\t0\t-\t"],
             "beta": ["1\t1\tR\tx", "2\t1\tW\tx", "3\t1\tW\tx", "4\t1\tW\tx"]}


def clef(tmp_path):
    q = tmp_path / "q.tsv"
    q.write_text(CLEF_Q)
    runs = []
    for name, lines in CLEF_RUNS.items():
        r = tmp_path / f"{name}.tsv"
        r.write_text("run\tqid\tanswered\tjudgment\tanswer\n"
                     + "".join(f"{name}\t{line}\n" for line in lines))
        runs.append(str(r))
    return q, runs


def test_eval_format_trec_prints_measure_run_value_lines(tmp_path, capsys):
    q, runs = clef(tmp_path)
    assert main(["eval", "clef-qa", "--questions", str(q), *runs, "-m", "c_at_1", "-m",
                 "accuracy"]) == 0
    tsv = capsys.readouterr().out.splitlines()
    assert main(["eval", "clef-qa", "--questions", str(q), *runs, "-m", "c_at_1", "-m",
                 "accuracy", "--format", "trec"]) == 0
    trec = capsys.readouterr().out.splitlines()
    # no header; three tab-separated fields as trec_eval prints: measure, run, value
    assert all(len(line.split("\t")) == 3 for line in trec) and trec
    want = {(m, r): v for r, m, scope, _, v in (ln.split("\t") for ln in tsv[1:])
            if scope == "all"}
    assert {(m, r): v for m, r, v in (ln.split("\t") for ln in trec)} == want
    # c@1 by hand: alpha 2 right, 1 wrong, 1 unanswered of 4: (2 + 1 * 2/4) / 4
    got = dict(((m, r), v) for m, r, v in (ln.split("\t") for ln in trec))
    assert got[("c_at_1", "alpha")] == f"{(2 + 2 / 4) / 4:.4f}"
    assert got[("accuracy", "beta")] == f"{1 / 4:.4f}"
    assert main(["eval", "clef-qa", "--questions", str(q), *runs, "--format", "trec",
                 "-q"]) == 2
    assert "--format trec prints the overall scores" in capsys.readouterr().err
