"""Helpers of the hostile-input suite (tests/test_hostile_*.py): tiny good
campaigns of every kind, and checks that ``qacamp ingest`` and ``qacamp eval``
refuse bad input alike (one error line naming the file and the place, no
traceback, nothing written) and score good input alike."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
from files_util import w  # noqa: F401 - the suite writes its files with it

from qacamp.cli import main

PLACE = re.compile(r": (?:line \d+|byte \d+|row \d+|column \w+|<[\w-]+)")


def error_line(err: str, command: str) -> str:
    """The one error line of ``command`` in ``err`` (after the prefix)."""
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.startswith(f"qacamp {command}: error: ")]
    assert len(lines) == 1, err
    return lines[0].removeprefix(f"qacamp {command}: error: ")


def names_place(msg: str, file: str, place: str) -> bool:
    """``msg`` names ``file`` and then ``place`` (an XML place goes on with the element)."""
    return msg.startswith(f"{file}: {place}: ") or msg.startswith(f"{file}: {place}, <")


def run_ingest(capsys, campaign: dict, out: Path) -> tuple[int, str]:
    rc = main(["ingest", "--name", "eval", "--campaign-json", json.dumps(campaign),
               "--out", str(out)])
    return rc, capsys.readouterr().err


def run_eval(capsys, argv: list[str]) -> tuple[int, str, str]:
    rc = main(["eval", *argv])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def both_refuse(capsys, tmp_path: Path, campaign: dict, argv: list[str], file: str,
                place: str | None = None) -> str:
    """Ingest and eval refuse the input with the same message naming ``file`` and
    a place (``place`` exactly when given); nothing is written.  Returns it."""
    out = tmp_path / "results" / "ingest"
    rc_i, err_i = run_ingest(capsys, campaign, out)
    rc_e, out_e, err_e = run_eval(capsys, argv)
    assert (rc_i, rc_e) == (2, 2), (err_i, err_e)
    msg_i, msg_e = error_line(err_i, "ingest"), error_line(err_e, "eval")
    assert msg_i == msg_e
    assert msg_i.startswith(f"{file}: "), msg_i
    assert PLACE.search(msg_i.removeprefix(file)), msg_i
    if place is not None:
        assert names_place(msg_i, file, place), msg_i
    assert out_e == ""
    assert not out.exists() and not (tmp_path / "results").exists()
    return msg_i


def both_config_error(capsys, tmp_path: Path, campaign: dict, argv: list[str], key: str,
                      option: str) -> str:
    """A missing or wrong setting: ingest names the config key, eval the option
    and the key, with the same problem and fix."""
    out = tmp_path / "results" / "ingest"
    rc_i, err_i = run_ingest(capsys, campaign, out)
    rc_e, out_e, err_e = run_eval(capsys, argv)
    assert (rc_i, rc_e) == (2, 2), (err_i, err_e)
    msg_i, msg_e = error_line(err_i, "ingest"), error_line(err_e, "eval")
    prefix = f"config key 'campaigns.eval.{key}': "
    assert msg_i.startswith(prefix), msg_i
    assert msg_e == f"{option} (campaign key 'campaigns.eval.{key}'): " + msg_i.removeprefix(
        prefix)
    assert not out.exists() and out_e == ""
    return msg_i


def same_numbers(capsys, tmp_path: Path, campaign: dict, argv: list[str],
                 judgment_set: str | None = None) -> pl.DataFrame:
    """Good input: ``qacamp ingest`` + ``qacamp score`` and ``qacamp eval`` give
    the same run scores, compared at full precision (``eval --precision full``,
    the shortest repr of each float).  Returns the ingest warnings."""
    from qacamp.cli.eval import _formatter

    fmt = _formatter("full")

    out = tmp_path / "res" / "ingest"
    rc_i, err_i = run_ingest(capsys, campaign, out)
    assert rc_i == 0, err_i
    assert main(["score", "--ingest", str(out), "--out", str(tmp_path / "res" / "scores")]) == 0
    capsys.readouterr()
    # --baselines: the workflow scores the baselines too (eval prints them only on request)
    extra = ["--precision", "full", "--baselines"] + (["--judgment-set", judgment_set]
                                                       if judgment_set else [])
    rc_e, out_e, err_e = run_eval(capsys, argv + extra)
    assert rc_e == 0, err_e
    assert "Traceback" not in err_e
    runs = pl.read_parquet(tmp_path / "res" / "scores" / "runs.parquet")
    js = judgment_set or json.loads((out / "campaign.json").read_text())["primary"]
    want = {(r, m, fmt(m, v)) for r, m, v in runs.filter(
        (pl.col("judgment_set") == js) & (pl.col("scope") == "all")).select(
        "run", "measure", "value").iter_rows()}
    got = {tuple(ln.split("\t")[i] for i in (0, 1, 4)) for ln in out_e.splitlines()[1:]}
    assert got == want and len(want) > 0
    warnings = pl.read_parquet(out / "warnings.parquet")
    # the warnings are printed by both commands
    for line in err_i.splitlines():
        if "warning:" in line:
            assert line.replace("qacamp ingest:", "qacamp eval:") in err_e
    return warnings


# --------------------------------------------------------------------------- campaigns

CLEF_H = "run\tqid\tanswered\tjudgment\tanswer\n"


def clef(tmp: Path) -> tuple[dict, list[str]]:
    w(tmp, "q.tsv", "qid\n1\n2\n3\n4\n")
    w(tmp, "runs/a.tsv", CLEF_H + "a\t1\t1\tR\tx\na\t2\t0\tW\ty\na\t3\t1\tW\tz\na\t4\t0\t-\t\n")
    w(tmp, "runs/b.tsv", CLEF_H + "b\t1\t1\tR\tx\nb\t2\t1\tR\ty\nb\t3\t1\tW\tz\nb\t4\t1\tR\tw\n")
    runs = ["runs/a.tsv", "runs/b.tsv"]
    return ({"kind": "clef-qa", "questions": "q.tsv", "runs": runs},
            ["clef-qa", "--questions", "q.tsv", *runs])


def pan(tmp: Path) -> tuple[dict, list[str]]:
    w(tmp, "truth.jsonl", "".join(json.dumps({"id": f"p{i}", "same": i % 2 == 0}) + "\n"
                                   for i in range(4)))
    w(tmp, "runs/t1/answers.jsonl", "".join(
        json.dumps({"id": f"p{i}", "value": v}) + "\n" for i, v in enumerate([0.9, 0.2, 0.5, 0.7])))
    w(tmp, "runs/t2/answers.jsonl", "".join(
        json.dumps({"id": f"p{i}", "value": v}) + "\n" for i, v in enumerate([0.1, 0.8, 0.6, 0.3])))
    runs = ["runs/t1/answers.jsonl", "runs/t2/answers.jsonl"]
    return ({"kind": "pan", "truth": "truth.jsonl", "answers": runs},
            ["pan", "--truth", "truth.jsonl", *runs])


GOLD = """<?xml version="1.0" encoding="UTF-8"?>
<test-set>
<topic t_id="1" t_name="T">
<reading-test r_id="1"><doc d_id="1">text</doc>
<q q_id="1"><q_str>A?</q_str><answer a_id="1" correct="Yes">a</answer><answer a_id="2">None of the above</answer></q>
<q q_id="2"><q_str>B?</q_str><answer a_id="1">a</answer><answer a_id="2" correct="Yes">b</answer></q>
</reading-test>
</topic>
</test-set>
"""


def qa_run(run_id: str, a1: str, t_id: str = "1", r_id: str = "1") -> str:
    return (f'<output run_id="{run_id}">\n<topic t_id="{t_id}">\n<reading-test r_id="{r_id}">\n'
            f'<question q_id="1" answered="YES"><answer a_id="{a1}"/></question>\n'
            '<question q_id="2" answered="NO"/>\n</reading-test>\n</topic>\n</output>\n')


def qa4mre(tmp: Path) -> tuple[dict, list[str]]:
    w(tmp, "gold.xml", GOLD)
    w(tmp, "runs/a.xml", qa_run("ra", "1"))
    w(tmp, "runs/b.xml", qa_run("rb", "2"))
    runs = ["runs/a.xml", "runs/b.xml"]
    return ({"kind": "qa4mre", "gold": "gold.xml", "runs": runs},
            ["qa4mre", "--gold", "gold.xml", *runs])


TOP = "".join(f"<top>\n<num> Number: {i}\n<desc> Description:\nQuestion {i}?\n</top>\n\n"
              for i in (1, 2, 3))


def factoid(tmp: Path) -> tuple[dict, list[str]]:
    w(tmp, "q/trec11questions", TOP)
    w(tmp, "adj/runA.txt", "3 runA D3 R ans3\n1 runA D1 W ans1\n2 runA NIL R\n")
    w(tmp, "adj/runB.txt", "1 runB D1 R ans1\n2 runB D2 W ans2\n3 runB D3 X ans3\n")
    runs = ["adj/runA.txt", "adj/runB.txt"]
    return ({"kind": "trec-factoid", "questions": ["q/trec11questions"],
             "judgment_sets": {"adjudicated": runs}, "primary": "adjudicated"},
            ["trec-factoid", "--questions", "q/trec11questions", *runs])


SERIES_XML = """<?xml version="1.0" encoding="ISO-8859-1"?>
<trecqa year="2004" task="main">
<target id="1" text="Crips">
<qa><q id="1.1" type="FACTOID">When?</q></qa>
<qa><q id="1.2" type="LIST">Which cities?</q></qa>
<qa><q id="1.3" type="OTHER">Other</q></qa>
</target>
<target id="2" text="Durst">
<qa><q id="2.1" type="FACTOID">Who?</q></qa>
<qa><q id="2.2" type="OTHER">Other</q></qa>
</target>
</trecqa>
"""


def series(tmp: Path) -> tuple[dict, list[str]]:
    w(tmp, "q.xml", SERIES_XML)
    w(tmp, "nuggets", "Qid 1.3: x\n1.3 1\tvital\ta\n1.3 2\tokay\tb\n\n"
                       "Qid 2.2: y\n2.2 1\tvital\tc\n")
    w(tmp, "list_key", "# 1.2\nQ:Which?\nParis\nRome\n")
    w(tmp, "f/r1", "1.1 r1 D1 R 1995\n2.1 r1 NIL W\n")
    w(tmp, "l/r1", "1.2 r1 D1 1 1 Paris\n1.2 r1 D2 -1 0 Oslo\n")
    w(tmp, "o/r1.one", "1.3 r1 1 D1 blah\n1.3 r1 2 D2 more\n2.2 r1 1 D3 x\n")
    w(tmp, "o/r1.two", "1.3 r1 1 2\n2.2 r1 1 1\n")
    camp = {"kind": "trec-series", "year": 2004, "questions": "q.xml", "nuggets": "nuggets",
            "list_key": "list_key",
            "judgment_sets": {"adjudicated": {"factoid": ["f/r1"], "list": ["l/r1"],
                                              "other": ["o/r1.one"],
                                              "other_nuggets": ["o/r1.two"]}}}
    argv = ["trec-series", "--questions", "q.xml", "--year", "2004", "--nuggets", "nuggets",
            "--list-key", "list_key", "--factoid", "f/r1", "--list", "l/r1",
            "--other", "o/r1.one", "--other-nuggets", "o/r1.two"]
    return camp, argv


KINDS = {"clef-qa": clef, "pan": pan, "qa4mre": qa4mre, "trec-factoid": factoid,
         "trec-series": series}


def matrix_both(capsys, tmp: Path, file: str) -> str:
    """``qacamp ingest`` (score-matrix) and ``qacamp reliability`` read the matrix
    with the one strict reader: the same message."""
    out = tmp / "results" / "ingest"
    rc_i, err_i = run_ingest(capsys, {"kind": "score-matrix", "matrix": file}, out)
    rc_r = main(["reliability", "swap", "--matrix", file, "--sizes", "1:2", "--trials", "2",
                 "--out", str(tmp / "results" / "swap.parquet")])
    err_r = capsys.readouterr().err
    assert (rc_i, rc_r) == (2, 2), (err_i, err_r)
    msg, other = error_line(err_i, "ingest"), error_line(err_r, "reliability")
    assert msg == other, (msg, other)
    assert msg.startswith(f"{file}: ") and PLACE.search(msg.removeprefix(file)), msg
    assert not (tmp / "results").exists()
    return msg
