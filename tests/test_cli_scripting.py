"""A command line that scripts like trec_eval, and the notebook API on the
same code path: participants' runs first and
baselines on request, per-question rows for every measure that has them,
TSV on stdout when no --out is given, nothing truncated, a help text for
every option; ``qacamp.evaluate`` and ``qacamp.reliability.swap`` return
what the commands print and write."""

from __future__ import annotations

import argparse
import io

import polars as pl
import pytest
from paths import SHARED_DATA

from qacamp.cli import build_parser, main

WEB_FULL = SHARED_DATA / "score-matrices" / "web2004.csv"


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    """The real Web 2004 matrix cut to its first 12 runs and 60 topics (fast)."""
    m = pl.read_csv(WEB_FULL, infer_schema_length=None)
    path = tmp_path_factory.mktemp("web") / "web2004_small.csv"
    m.select(m.columns[:12]).head(60).cast(pl.Float64).write_csv(path)
    return path


def cli(capsys, *argv) -> tuple[str, str]:
    capsys.readouterr()
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out, err


def test_every_option_of_every_command_has_a_help_text():
    missing, seen = [], 0

    def walk(parser, path):
        nonlocal seen
        for a in parser._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, sub in a.choices.items():
                    walk(sub, [*path, name])
            elif not isinstance(a, argparse._HelpAction | argparse._VersionAction):
                seen += 1
                if not a.help or a.help == argparse.SUPPRESS:
                    missing.append(f"{' '.join(path)} {'/'.join(a.option_strings) or a.dest}")

    walk(build_parser(), ["qacamp"])
    assert seen > 200 and missing == []


@pytest.fixture(scope="module")
def qa(tmp_path_factory):
    """A small QA4MRE campaign (it has baselines) with auxiliary questions."""
    out = tmp_path_factory.mktemp("qa")
    assert main(["simulate", "qa4mre", "--out", str(out), "--runs", "4", "--topics", "2",
                 "--tests", "2", "--seed", "9", "--quiet"]) == 0
    return out, sorted(str(p) for p in (out / "runs").glob("*.xml"))


def eval_rows(capsys, *argv) -> tuple[list[list[str]], str]:
    out, err = cli(capsys, "eval", *argv)
    lines = out.splitlines()
    assert lines[0] == "run\tmeasure\tscope\tunit\tvalue"
    return [ln.split("\t") for ln in lines[1:]], err


def test_eval_prints_participants_first_and_baselines_only_on_request(qa, capsys):
    gold, runs = str(qa[0] / "gold.xml"), qa[1]
    rows, _ = eval_rows(capsys, "qa4mre", "--gold", gold, *runs, "-m", "c_at_1")
    assert not any(r[0].startswith("baseline:") for r in rows)
    assert [r[0] for r in rows] == sorted(r[0] for r in rows) and len(rows) == 4
    rows, _ = eval_rows(capsys, "qa4mre", "--gold", gold, *runs, "-m", "c_at_1", "--baselines")
    names = [r[0] for r in rows]
    first_base = next(i for i, n in enumerate(names) if n.startswith("baseline:"))
    assert first_base == 4 and all(n.startswith("baseline:") for n in names[4:])


def test_eval_q_gives_per_question_rows_for_every_measure_that_has_them(qa, capsys):
    gold, runs = str(qa[0] / "gold.xml"), qa[1]
    rows, err = eval_rows(capsys, "qa4mre", "--gold", gold, *runs, "-q", "--precision", "full")
    per_q = {}
    for run, m, scope, unit, v in rows:
        if scope == "question":
            per_q.setdefault((run, m), {})[unit] = float(v)
    overall = {(r[0], r[1]): float(r[4]) for r in rows if r[2] == "all"}
    run = rows[0][0]
    for m in ("accuracy", "utility", "qa4mre_accuracy"):
        values = per_q[(run, m)]
        assert set(values.values()) <= ({-1.0, 0.0, 1.0} if m == "utility" else {0.0, 1.0})
        # a mean of per-question values: their mean is the run's score
        assert sum(values.values()) / len(values) == pytest.approx(overall[(run, m)], abs=1e-12)
    for m in ("n_right", "n_wrong", "n_unanswered"):
        assert sum(per_q[(run, m)].values()) == overall[(run, m)]
    assert len(per_q[(run, "n_right")]) == overall[(run, "n_right")] + \
        overall[(run, "n_wrong")] + overall[(run, "n_unanswered")]
    # and says which measures have none
    line = next(ln for ln in err.splitlines() if "-q: no per-question rows for" in ln)
    for m in ("c_at_1", "correctly_discarded", "tests_passed"):
        assert m in line
    assert not any((run, m) in per_q for m in ("c_at_1", "correctly_discarded"))


def reliability(capsys, *argv) -> tuple[str, str]:
    return cli(capsys, "reliability", *argv)


def read_tsv(text: str) -> pl.DataFrame:
    return pl.read_csv(io.StringIO(text), separator="\t")




@pytest.mark.parametrize("analysis,args", [
    ("swap", ["--sizes", "10:30:10", "--trials", "3", "--seed", "4"]),
    ("stability", ["--size", "20", "--trials", "4", "--seed", "4"]),
    ("bootstrap", ["--samples", "20", "--seed", "4"]),
])
def test_reliability_prints_tsv_without_out_and_a_summary_line_with_it(tmp_path, analysis, args,
                                                                    web, capsys):
    src = ["--matrix", web, "--measure", "ap"]
    out = tmp_path / f"{analysis}.parquet"
    printed, _ = reliability(capsys, analysis, *src, *args)
    written_out, err = reliability(capsys, analysis, *src, *args, "--out", out)
    assert written_out == ""
    summary = [ln for ln in err.splitlines() if ln.startswith(f"qacamp reliability {analysis}: ")]
    assert len(summary) == 1 and str(out) in summary[0]
    tsv, parquet = read_tsv(printed), pl.read_parquet(out)
    assert tsv.columns == parquet.columns and tsv.height == parquet.height >= 10
    for c, dt in parquet.schema.items():
        if dt.is_float():
            assert tsv[c].cast(pl.Float64).to_list() == parquet[c].to_list(), c  # exact
        else:
            assert tsv[c].cast(dt).to_list() == parquet[c].to_list(), c
    assert "\u2026" not in printed and "shape:" not in printed  # nothing truncated


def test_fit_and_kendall_print_their_results_as_tsv(tmp_path, web, capsys):
    src = ["--matrix", web, "--measure", "ap"]
    counts = tmp_path / "counts.parquet"
    reliability(capsys, "swap", *src, "--sizes", "10:30:10", "--trials", "3", "--out", counts)
    printed, err = reliability(capsys, "fit", *src, "--counts", counts, "--min-fit-size", "10")
    summary = read_tsv(printed)
    assert summary.height == 1 and "required_difference" in summary.columns
    assert summary["n_runs"][0] == 12
    ranks = [f"{i}={web}" for i in ("a", "b", "c")]
    printed, _ = reliability(capsys, "kendall", *ranks)
    tau = read_tsv(printed)
    assert tau.height == 3 and tau["tau"].to_list() == [1.0, 1.0, 1.0]
    assert "\u2026" not in printed and "shape:" not in printed


def test_python_api_returns_what_the_commands_print(qa, tmp_path, web, capsys):
    import qacamp
    import qacamp.reliability as R

    gold, runs = str(qa[0] / "gold.xml"), qa[1]
    df = qacamp.evaluate("qa4mre", runs, gold=gold, per_question=True, baselines=True)
    rows, _ = eval_rows(capsys, "qa4mre", "--gold", gold, *runs, "-q", "--baselines",
                        "--precision", "full")
    assert df.columns == ["run", "measure", "scope", "unit", "value"]
    api = [(r, m, s, u, v) for r, m, s, u, v in df.iter_rows()]
    cli = [(r, m, s, u, float(v)) for r, m, s, u, v in rows]
    assert api == cli  # same rows, same order, same values at full precision
    counts = R.swap(str(web), "10:30:10", trials=3, seed=4, measure="ap")
    out = tmp_path / "swap.parquet"
    reliability(capsys, "swap", "--matrix", web, "--measure", "ap", "--sizes", "10:30:10",
                "--trials", "3", "--seed", "4", "--out", out)
    assert counts.equals(pl.read_parquet(out))
    # from the API's own per-question rows: the swap counts of the matrix they make
    acc = df.filter((pl.col("measure") == "accuracy") & ~pl.col("run").str.starts_with(
        "baseline:"))
    assert R.swap(acc, "5:20:5", trials=2, seed=1, measure="accuracy").height == 4 * 21


def test_python_api_raises_the_commands_errors(tmp_path):
    import qacamp
    from qacamp.errors import QacampError

    bad = tmp_path / "run.xml"
    bad.write_text("<output run_id='x'><topic t_id='1'>")
    with pytest.raises(QacampError, match="run.xml"):
        qacamp.evaluate("qa4mre", [bad], gold=SHARED_DATA / "qa4mre" / "QA4MRE-2012-EN_GS.xml")
    with pytest.raises(QacampError, match="unknown option"):
        qacamp.evaluate("qa4mre", [bad], gold="g.xml", nuggets="n.txt")
