"""qacamp.report and `qacamp report`: tables checked number by number against
the hand-built score / reliability frames they come from, LaTeX escaping,
figures (PNG header, SVG parse), byte-identical reruns, missing-file errors,
and (when pdflatex is installed) that the LaTeX tables compile."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import polars as pl
import pytest
from files_util import png_size

from qacamp.cli import main
from qacamp.errors import InputError
from qacamp.io import write_parquet, write_text
from qacamp.reliability.letters import swap_letters
from qacamp.report import tables as T
from qacamp.report.formats import format_value, to_csv
from qacamp.report.latex import latex_escape, to_latex
from qacamp.report.markdown import to_markdown

# --------------------------------------------------------------------------- builders

RUNS_SCHEMA = {"judgment_set": pl.String, "run": pl.String, "measure": pl.String,
               "scope": pl.String, "unit": pl.String, "value": pl.Float64}

# QA4MRE-like: run -> (right, wrong, unanswered, unanswered-right), n = 40
QA_COUNTS = {
    "team_a%1": (20, 10, 10, 4),
    "b&c_run": (18, 22, 0, 0),
    "zeta": (12, 8, 20, 5),
    "baseline:always-nca": (0, 0, 40, 0),
    "baseline:random-expected": (8, 32, 0, 0),
}
TOPICS = {"T1": ("1_1", "1_2"), "T2": ("2_1", "2_2")}


def c_at_1(r: int, w: int, u: int) -> float:
    n = r + w + u
    return (r + u * r / n) / n


def qa_runs(js: str = "gold", shift: int = 0) -> pl.DataFrame:
    rows = []
    for k, (run, (r, w, u, ur)) in enumerate(QA_COUNTS.items()):
        r = max(0, r - shift) if not run.startswith("baseline:") else r
        w = 40 - r - u
        n = 40
        vals = {"c_at_1": c_at_1(r, w, u), "accuracy": r / n, "qa4mre_accuracy": (r + ur) / n,
                "correctly_discarded": (u - ur) / u if u else None, "utility": (r - w) / n,
                "n_right": r, "n_wrong": w, "n_unanswered": u, "tests_passed": 3 - k % 3,
                "tests": 4}
        for m, v in vals.items():
            rows.append((js, run, m, "all", "all", None if v is None else float(v)))
        for i, (topic, tests) in enumerate(TOPICS.items()):
            rows.append((js, run, "c_at_1", "topic", topic, 0.1 * (k + 1) + 0.05 * i))
            for j, test in enumerate(tests):
                rows.append((js, run, "c_at_1", "test", test, min(1.0, 0.1 * (k + j + 2 * i))))
    return pl.DataFrame(rows, schema=RUNS_SCHEMA, orient="row")


def swap_frames(measure: str, a0: float = 0.5, full: int = 40):
    sizes, bins = [5, 10, 15, 20], range(21)
    counts = pl.DataFrame(
        [(s, b, int(round(100 * a0 * math.exp(-0.05 * (b + 1) * s))), 100)
         for s in sizes for b in bins],
        schema={"size": pl.Int64, "bin": pl.Int64, "swaps": pl.Int64, "comparisons": pl.Int64},
        orient="row")
    fits = pl.DataFrame({
        "bin": list(bins), "lo": [b * 0.01 for b in bins],
        "hi": [(b + 1) * 0.01 if b < 20 else None for b in bins],
        "a": [a0] * 21, "b": [0.05 * (b + 1) for b in bins], "n_points": [4] * 21,
        "error_at_full": [a0 * math.exp(-0.05 * (b + 1) * full) for b in bins],
        "size_at_level": [math.log(a0 / 0.05) / (0.05 * (b + 1)) for b in bins]})
    summary = pl.DataFrame({"measure": [measure], "full_size": [full], "level": [0.05],
                            "required_difference": [0.09 if measure != "accuracy" else None],
                            "size_reached": [23], "sensitivity": [0.584], "n_pairs": [10],
                            "highest_score": [0.77], "relative_difference": [0.1169],
                            "mode": ["extrapolate"], "observed_at": [None],
                            "model": ["exp-binomial"], "min_fit_size": [5],
                            "n_comparisons": [10], "warning": [None]},
                           schema_overrides={"observed_at": pl.Int64, "warning": pl.String})
    fuzz = [round(0.01 * i, 2) for i in range(1, 11)]
    stability = pl.DataFrame({"measure": [measure] * 10, "fuzziness": fuzz,
                              "error_rate": [0.08 / (1 + i) + a0 / 50 for i in range(10)],
                              "prop_ties": [0.03 * (i + 1) for i in range(10)]})
    bootstrap = pl.DataFrame({"measure": [measure] * 4, "run_a": ["a", "a", "b", "c"],
                              "run_b": ["b", "c", "c", "d"], "significant": [True, False, True,
                                                                             True]})
    return counts, fits, summary, stability, bootstrap


def write_reliability(cdir: Path, measures) -> None:
    rel = cdir / "reliability"
    rel.mkdir(parents=True, exist_ok=True)
    for i, m in enumerate(measures):
        counts, fits, summary, stab, boot = swap_frames(m, a0=0.5 - 0.1 * i)
        write_parquet(counts, rel / f"swap_{m}.parquet")
        write_parquet(fits, rel / f"swap_{m}_fits.parquet")
        write_parquet(summary, rel / f"swap_{m}_summary.parquet")
        write_parquet(stab, rel / f"stability_{m}.parquet")
        write_parquet(boot, rel / f"bootstrap_{m}.parquet")


def make_campaign(root: Path, name: str, kind: str, runs: pl.DataFrame, measures,
                  units: pl.DataFrame | None = None, extra_meta: dict | None = None) -> Path:
    cdir = root / name
    (cdir / "ingest").mkdir(parents=True)
    (cdir / "scores").mkdir()
    meta = {"name": name, "kind": kind, **(extra_meta or {})}
    write_text(json.dumps(meta), cdir / "ingest" / "campaign.json")
    write_parquet(runs, cdir / "scores" / "runs.parquet")
    if units is not None:
        write_parquet(units, cdir / "scores" / "units.parquet")
    write_reliability(cdir, measures)
    return cdir


def qa4mre_campaign(root: Path, name: str = "qa4mre2013", edition: str = "2013",
                    shift: int = 0) -> Path:
    cdir = make_campaign(root, name, "qa4mre", qa_runs(shift=shift),
                         ["c_at_1", "accuracy", "utility"], extra_meta={"edition": edition})
    q = pl.DataFrame({"qid": ["q1", "q2", "q3", "q4"], "topic": ["T1", "T1", "T2", "T2"],
                      "test": ["1_1", "1_2", "2_1", "2_2"]})
    write_parquet(q, cdir / "ingest" / "questions.parquet")
    return cdir


# TREC-2002-like: run -> (CWS, right out of 10, NIL returned, NIL right), 2 NIL questions
TREC = {"run_one": (0.61, 7, 2, 1), "run&two": (0.75, 6, 0, 0), "run%3": (0.61, 5, 4, 2)}


def trec_frames():
    rows, units = [], []
    for js, delta in (("adjudicated", 0), ("assessor1", 1)):
        for run, (cws, right, nil_ret, nil_ok) in TREC.items():
            r = right - delta
            vals = {"cws": cws - 0.01 * delta, "accuracy": r / 10, "n_right": r,
                    "n_wrong": 10 - r, "nil_precision": nil_ok / nil_ret if nil_ret else None,
                    "nil_recall": nil_ok / 2}
            rows += [(js, run, m, "all", "all", v) for m, v in vals.items()]
            units += [(js, run, "accuracy", f"q{i}", float(i < r)) for i in range(10)]
    runs = pl.DataFrame(rows, schema=RUNS_SCHEMA, orient="row")
    units = pl.DataFrame(units, schema={"judgment_set": pl.String, "run": pl.String,
                                        "measure": pl.String, "unit": pl.String,
                                        "value": pl.Float64}, orient="row")
    return runs, units


def trec_campaign(root: Path) -> Path:
    runs, units = trec_frames()
    cdir = make_campaign(root, "trec2002", "trec-factoid", runs, ["cws", "accuracy"], units,
                         {"primary": "adjudicated"})
    # the columns of qacamp.reliability (tau_table, judgment_tuples, swap_letters)
    rel = cdir / "reliability"
    write_parquet(pl.DataFrame({"ranking_a": ["adjudicated", "adjudicated"],
                                "ranking_b": ["assessor1", "assessor2"], "n_runs": [3, 3],
                                "tau": [0.93, 0.9]}), rel / "kendall.parquet")
    write_parquet(pl.DataFrame({"tuple": ["RRR", "RRX", "RXX", "RWW", "WWW"],
                                "count": [500, 30, 20, 50, 900],
                                "share": [0.3, 0.02, 0.01, 0.03, 0.6]}), rel / "agreement.parquet")
    write_parquet(swap_letters(["run&two", "run_one", "run%3"], [0.75, 0.61, 0.61], 0.07),
                  rel / "equivalence_cws.parquet")
    return cdir


def series_campaign(root: Path) -> Path:
    rows = []
    for k, run in enumerate(["s_run1", "s_run2", "s_run3", "s_run4"]):
        vals = {"series_score": 0.3 + 0.05 * k, "type_score": 0.31 + 0.05 * k,
                "accuracy": 0.4 + 0.02 * k, "list_f": 0.2, "other_f": 0.25 - 0.01 * k}
        rows += [("adjudicated", run, m, "all", "all", v) for m, v in vals.items()]
        rows += [("adjudicated", run, "series_score", "series", f"S{s}", ((s * 7 + k) % 10) / 10)
                 for s in range(1, 13)]
    runs = pl.DataFrame(rows, schema=RUNS_SCHEMA, orient="row")
    return make_campaign(root, "trec2004", "trec-series", runs, ["series_score"])


def row_of(df: pl.DataFrame, run: str) -> dict:
    return df.filter(pl.col("run") == run).row(0, named=True)


def value(runs: pl.DataFrame, run: str, measure: str, js: str = "gold") -> float:
    return runs.filter((pl.col("run") == run) & (pl.col("measure") == measure)
                       & (pl.col("scope") == "all") & (pl.col("judgment_set") == js))["value"][0]


# --------------------------------------------------------------------------- table functions

def test_nonresponse_run_table_numbers_order_and_blocks():
    runs = qa_runs()
    t = T.run_table(runs, "clef-qa", "gold")  # the c@1 paper's Table 3 columns
    df = t.frame
    assert [c.key for c in t.columns] == ["run", "c_at_1", "accuracy", "n_right", "n_wrong",
                                          "n_unanswered"]
    for run in QA_COUNTS:
        row = row_of(df, run)
        assert row["c_at_1"] == pytest.approx(value(runs, run, "c_at_1"))
        assert row["accuracy"] == pytest.approx(value(runs, run, "accuracy"))
        r, w, u, _ = QA_COUNTS[run]
        assert (row["n_right"], row["n_wrong"], row["n_unanswered"]) == (r, w, u)
    # participants first sorted by c@1 descending, then the baselines block
    assert df["block"].to_list() == ["runs"] * 3 + ["baselines"] * 2
    part = df.filter(pl.col("block") == "runs")["c_at_1"].to_list()
    assert part == sorted(part, reverse=True)
    assert df["run"][0] == "team_a%1"
    # QA4MRE: the overview's columns; c@1 per topic is a table of its own
    qa = T.run_table(runs, "qa4mre", "gold")
    assert [c.key for c in qa.columns] == ["run", "c_at_1", "accuracy", "n_unanswered",
                                           "tests_passed"]
    topics = T.runs_by_unit_table(runs, "gold", "qa4mre", "topic", "c_at_1",
                                  topic_names={"T2": "Tidal Energy"})
    assert [c.header for c in topics.columns] == ["Run", "topic T1", "Tidal Energy"]
    assert topics.frame["run"].to_list() == qa.frame["run"].to_list()
    for run in QA_COUNTS:
        assert row_of(topics.frame, run)["topic_T2"] == pytest.approx(
            runs.filter((pl.col("run") == run) & (pl.col("scope") == "topic")
                        & (pl.col("unit") == "T2"))["value"][0])


def test_the_organizer_chooses_the_run_tables_columns_order_and_decimals():
    runs = qa_runs()
    spec = T.RunTableSpec("accuracy", ("utility", "c_at_1", "n_right"), 4)
    t = T.run_table(runs, "qa4mre", "gold", spec)
    assert [c.key for c in t.columns] == ["run", "accuracy", "utility", "c_at_1", "n_right"]
    assert [c.fmt for c in t.columns] == ["text", "f4", "f4", "f4", "int"]
    part = t.frame.filter(pl.col("block") == "runs")["accuracy"].to_list()
    assert part == sorted(part, reverse=True) and "sorted by accuracy" in t.caption
    md, csv = to_markdown(t), to_csv(t)
    head = next(line for line in md.splitlines() if line.startswith("| Run "))
    assert head == "| Run | Accuracy | Utility | c@1 | Right |"
    assert csv.splitlines()[0] == "run,accuracy,utility,c_at_1,n_right"
    assert "| team_a%1 | 0.5000 | 0.2500 | 0.6250 | 20 |" in md
    # a chosen measure that was not scored is an error naming it
    with pytest.raises(InputError, match="type_score"):
        T.run_table(runs, "qa4mre", "gold", T.RunTableSpec("c_at_1", ("type_score",)))


def test_c_at_1_table_reproduces_paper_counts():
    # c@1 paper Table 3 (n = 500): icia091ro 237/156/107 -> 0.58 / 0.47
    rows = []
    for run, (r, w, u) in {"icia091ro": (237, 156, 107), "uaic092ro": (236, 264, 0),
                           "loga092de": (187, 230, 83), "base092de": (189, 311, 0)}.items():
        for m, v in {"c_at_1": c_at_1(r, w, u), "accuracy": r / 500, "n_right": r,
                     "n_wrong": w, "n_unanswered": u}.items():
            rows.append(("official", run, m, "all", "all", float(v)))
    t = T.c_at_1_table(pl.DataFrame(rows, schema=RUNS_SCHEMA, orient="row"), "official")
    assert t.frame["run"].to_list() == ["icia091ro", "uaic092ro", "loga092de", "base092de"]
    md = to_markdown(t)
    assert "| icia091ro | 0.58 | 0.47 | 237 | 156 | 107 | 500 |" in md
    assert "| loga092de | 0.44 | 0.37 | 187 | 230 | 83 | 500 |" in md
    assert t.frame["n"].to_list() == [500] * 4


def test_trec_factoid_run_table_follows_voorhees_table_1():
    runs, _ = trec_frames()
    t = T.run_table(runs, "trec-factoid", "adjudicated")
    df = t.frame
    assert [c.header for c in t.columns] == ["Run", "CWS", "Accuracy", "NIL precision",
                                             "NIL recall"]
    # sorted by CWS descending, ties by run name
    assert df["run"].to_list() == ["run&two", "run%3", "run_one"]
    for run, (cws, right, nil_ret, nil_ok) in TREC.items():
        row = row_of(df, run)
        assert row["cws"] == pytest.approx(cws)
        assert row["accuracy"] == pytest.approx(right / 10)
        assert row["nil_recall"] == pytest.approx(nil_ok / 2)
        if nil_ret:
            assert row["nil_precision"] == pytest.approx(nil_ok / nil_ret)
    assert row_of(df, "run&two")["nil_precision"] is None
    assert "run\\&two & 0.750 & 0.600 & -- & 0.000" in to_latex(t)
    assert "(Voorhees 2003, Table 1)" in t.caption and T.runs.NIL_NOTE in t.notes
    # the other judgment set gives other numbers
    t1 = T.run_table(runs, "trec-factoid", "assessor1")
    assert row_of(t1.frame, "run_one")["accuracy"] == pytest.approx(0.6)


def test_default_run_tables_have_at_most_eight_columns():
    """run, the headline, the measures of the kind's paper, two letter columns."""
    from qacamp.kinds import KINDS

    for k in KINDS.values():
        for columns in (k.run_columns, *[e.run_columns for e in k.editions]):
            assert 1 + 1 + len(columns) + 2 <= T.MAX_DEFAULT_COLUMNS, k.name
            assert set(columns) <= set(k.measures), k.name


def test_series_run_table():
    root_runs = []
    for k, run in enumerate(["x", "y"]):
        for m, v in {"series_score": 0.3 + 0.1 * k, "accuracy": 0.5, "list_f": 0.2,
                     "other_f": 0.1 * k}.items():
            root_runs.append(("adjudicated", run, m, "all", "all", v))
    t = T.run_table(pl.DataFrame(root_runs, schema=RUNS_SCHEMA, orient="row"), "trec-series",
                    "adjudicated")
    assert t.frame["run"].to_list() == ["y", "x"]
    assert [c.key for c in t.columns] == ["run", "series_score", "accuracy", "list_f", "other_f"]
    assert row_of(t.frame, "y")["series_score"] == pytest.approx(0.4)


def test_missing_measure_is_an_input_error_naming_it():
    runs = qa_runs().filter(pl.col("measure") != "n_wrong")
    with pytest.raises(InputError, match="n_wrong"):
        T.run_table(runs, "clef-qa", "gold")


def test_swap_summary_table_columns_follow_the_paper():
    summaries = [swap_frames(m)[2] for m in ("c_at_1", "accuracy")]
    t = T.swap_summary_table(summaries)
    row = t.frame.row(0, named=True)
    assert row["measure"] == "c_at_1"
    assert row["required_difference"] == pytest.approx(0.09)
    assert row["relative_difference_pct"] == pytest.approx(11.69)
    assert row["sensitivity_pct"] == pytest.approx(58.4)
    md = to_markdown(t)
    # the measure's display label, no LaTeX-style escapes in Markdown
    assert "| c@1 | 5.0 | 40 | 0.09 | 0.770 | 11.7 | 58.4 | 10 | 23 |" in md
    assert "\\_" not in md
    assert "| accuracy | 5.0 | 40 | - |" in md  # level never reached


def test_kendall_agreement_equivalence_tables():
    k = T.kendall_table(pl.DataFrame({"measure": ["cws", "n_right", "cws"],
                                      "a": ["adj", "adj", "adj"], "b": ["as1", "as1", "as2"],
                                      "tau": [0.93, 0.945, 0.9]}))
    assert k.frame.columns == ["rankings", "cws", "n_right"]
    assert row_of(k.frame.rename({"rankings": "run"}), "adj vs as1")["n_right"] == 0.945
    assert row_of(k.frame.rename({"rankings": "run"}), "adj vs as2")["n_right"] is None
    a = T.agreement_table(pl.DataFrame({"triple": ["RRR", "RRX", "R,X,X", "WWW", "RWW"],
                                        "count": [100, 30, 20, 50, 50]}))
    # unanimous tuples are not disagreements; shares are of the 100 disagreements
    assert a.frame["tuple"].to_list() == ["RWW", "RRX", "R,X,X"]
    assert a.frame["pct"].to_list() == pytest.approx([50.0, 30.0, 20.0])
    e = T.letters_table({"m": swap_letters(["a", "b", "c"], [0.5, 0.45, 0.1], 0.06)})
    assert e.frame["measure"].to_list() == ["m"] * 3
    assert e.frame["letters_swap"].to_list() == ["a", "a", "b"]
    assert e.frame["n_swap"].to_list() == [1, 1, 0]


def test_kendall_without_tau_column_names_the_role():
    with pytest.raises(InputError, match="tau"):
        T.kendall_table(pl.DataFrame({"a": ["x"], "b": ["y"], "rho": [0.5]}))


def test_editions_table_numbers():
    e1, e2 = qa_runs(), qa_runs(shift=2)
    t = T.editions_table([("2012", e1, "gold"), ("2013", e2, "gold")])
    part = [r for r in QA_COUNTS if not r.startswith("baseline:")]
    row = t.frame.row(0, named=True)
    assert row["runs"] == 3
    assert row["average"] == pytest.approx(sum(value(e1, r, "c_at_1") for r in part) / 3)
    assert row["best"] == pytest.approx(max(value(e1, r, "c_at_1") for r in part))
    assert row["pct_unanswered"] == pytest.approx(
        sum(100 * QA_COUNTS[r][2] / 40 for r in part) / 3)
    assert t.frame["edition"].to_list() == ["2012", "2013"]


# --------------------------------------------------------------------------- formatting

def test_latex_escaping_and_booktabs():
    assert latex_escape("a_b%c&d#e$f{g}~^\\") == (
        r"a\_b\%c\&d\#e\$f\{g\}\textasciitilde{}\textasciicircum{}\textbackslash{}")
    t = T.run_table(qa_runs(), "qa4mre", "gold")
    tex = to_latex(t)
    assert r"team\_a\%1" in tex and r"b\&c\_run" in tex
    assert "team_a%1" not in tex and "b&c_run" not in tex
    for cmd in (r"\toprule", r"\midrule", r"\bottomrule", r"\emph{Baselines}"):
        assert cmd in tex
    # every body row has as many cells as there are columns
    body = tex.split(r"\midrule", 1)[1].split(r"\bottomrule")[0]
    for line in body.splitlines():
        if line.endswith(r"\\") and "multicolumn" not in line:
            assert line.replace(r"\&", "").count("&") == len(t.columns) - 1


def test_number_formats_are_fixed():
    assert format_value(0.5, "f3") == "0.500"
    assert format_value(-0.0001, "f3") == "0.000"
    assert format_value(None, "f2") == "--"
    assert format_value(12.0, "int") == "12"
    assert format_value(58.44, "pct1") == "58.4"
    t = T.c_at_1_table(qa_runs(), "gold")
    csv = to_csv(t).splitlines()
    assert csv[0] == "run,c_at_1,accuracy,n_right,n_wrong,n_unanswered,n"
    assert csv[1].startswith("team_a%1,0.625000,0.500000,20,10,10,40")


def test_markdown_blocks():
    md = to_markdown(T.run_table(qa_runs(), "qa4mre", "gold"))
    runs_part, base_part = md.split("**Baselines**")
    assert "baseline:" not in runs_part and "baseline:always-nca" in base_part
    assert "team_a%1" in runs_part and "\\_" not in md


# --------------------------------------------------------------------------- CLI

def run_cli(*args: str) -> None:
    assert main(list(args)) == 0


def test_cli_tables_qa4mre(tmp_path, capsys):
    cdir = qa4mre_campaign(tmp_path)
    out = tmp_path / "tables"
    run_cli("report", "tables", "--campaign-dir", str(cdir), "--out", str(out))
    listed = capsys.readouterr().out.split()
    assert listed == sorted(listed)
    names = {Path(p).name for p in listed}
    for stem in ("runs", "swap_summary", "bootstrap"):
        assert {f"{stem}.tex", f"{stem}.md", f"{stem}.csv"} <= names
    # c@1 vs accuracy (the c@1 paper's Table 3) is folded into the run table
    assert not any(n.startswith("c_at_1_vs_accuracy") for n in names)
    assert "Table 3" in (out / "runs.md").read_text()
    runs_csv = pl.read_csv(out / "runs.csv")
    src = pl.read_parquet(cdir / "scores" / "runs.parquet")
    for run in QA_COUNTS:
        assert row_of(runs_csv, run)["c_at_1"] == pytest.approx(value(src, run, "c_at_1"),
                                                                abs=1e-6)
    swap = pl.read_csv(out / "swap_summary.csv")
    assert swap["measure"].to_list() == ["c_at_1", "accuracy", "utility"]
    boot = pl.read_csv(out / "bootstrap.csv")
    # every measure has a bootstrap test (c@1 recomputed on each sample: config.bootstrap_measures)
    assert boot["measure"].to_list() == ["c_at_1", "accuracy", "utility"]
    assert boot["power_pct"].to_list() == pytest.approx([75.0] * 3)


def test_cli_tables_trec_and_rerun_is_byte_identical(tmp_path, capsys):
    cdir = trec_campaign(tmp_path)
    out = tmp_path / "tables"
    run_cli("report", "tables", "--campaign-dir", str(cdir), "--out", str(out))
    first = {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}
    assert {"runs.csv", "kendall.csv", "agreement.csv", "equivalence.csv"} <= set(first)
    runs_csv = pl.read_csv(out / "runs.csv")
    assert runs_csv["run"].to_list() == ["run&two", "run%3", "run_one"]
    assert row_of(runs_csv, "run_one")["accuracy"] == pytest.approx(0.7)
    kendall = pl.read_csv(out / "kendall.csv").rename({"rankings": "run"})
    assert row_of(kendall, "adjudicated vs assessor1")["tau"] == 0.93
    assert row_of(kendall, "adjudicated vs assessor2")["n_runs"] == 3
    agreement = pl.read_csv(out / "agreement.csv")
    assert agreement["tuple"].to_list() == ["RWW", "RRX", "RXX"]
    assert agreement["pct"].to_list() == pytest.approx([50.0, 30.0, 20.0])
    eq = pl.read_csv(out / "equivalence.csv")
    assert eq["measure"].to_list() == ["cws"] * 3
    assert eq["run"].to_list() == ["run&two", "run%3", "run_one"]
    assert eq["letters_swap"].to_list() == ["a", "b", "b"]  # 0.14 apart >= 0.07
    assert runs_csv["letters_swap"].to_list() == ["a", "b", "b"]  # the run table's hook
    run_cli("report", "tables", "--campaign-dir", str(cdir), "--out", str(out))
    assert {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()} == first
    # --judgment-set picks another set
    out2 = tmp_path / "t2"
    run_cli("report", "tables", "--campaign-dir", str(cdir), "--out", str(out2),
            "--judgment-set", "assessor1")
    assert row_of(pl.read_csv(out2 / "runs.csv"), "run_one")["accuracy"] == pytest.approx(0.6)


def test_cli_missing_expected_file_is_an_error_naming_it(tmp_path, capsys):
    cdir = trec_campaign(tmp_path)
    (cdir / "reliability" / "stability_cws.parquet").unlink()
    code = main(["report", "tables", "--campaign-dir", str(cdir), "--out", str(tmp_path / "o")])
    assert code == 2
    assert "stability_cws.parquet" in capsys.readouterr().err
    (cdir / "reliability" / "swap_cws_fits.parquet").unlink()
    code = main(["report", "figures", "--campaign-dir", str(cdir), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and "swap_cws_fits.parquet" in err and "stability_cws.parquet" in err
    # optional files (no workflow rule writes them for every campaign) may be absent
    (cdir / "reliability" / "kendall.parquet").unlink()
    # scores-only report does not need reliability/
    run_cli("report", "tables", "--campaign-dir", str(cdir), "--out", str(tmp_path / "o"),
            "--no-reliability")


def test_cli_editions(tmp_path, capsys):
    a = qa4mre_campaign(tmp_path, "qa4mre2013", "2013", shift=2)
    b = qa4mre_campaign(tmp_path, "qa4mre2012", "2012")
    out = tmp_path / "ed"
    run_cli("report", "editions", "--campaign-dir", str(a), "--campaign-dir", str(b),
            "--out", str(out))
    df = pl.read_csv(out / "editions.csv")
    assert df["edition"].cast(pl.String).to_list() == ["2012", "2013"]
    src = pl.read_parquet(b / "scores" / "runs.parquet")
    assert df["best"][0] == pytest.approx(value(src, "team_a%1", "c_at_1"), abs=1e-6)
    assert (out / "editions.tex").read_text().count(r"\toprule") == 1


# --------------------------------------------------------------------------- figures

@pytest.mark.parametrize("builder,expected", [
    (qa4mre_campaign, {"swap_c_at_1", "swap_accuracy", "swap_utility", "stability",
                       "reading_tests"}),
    (series_campaign, {"swap_series_score", "stability", "series_boxplot", "top_runs"}),
    (trec_campaign, {"swap_cws", "swap_accuracy", "stability"}),
])
def test_cli_figures_valid_and_deterministic(tmp_path, capsys, builder, expected):
    cdir = builder(tmp_path)
    out = tmp_path / "fig"
    run_cli("report", "figures", "--campaign-dir", str(cdir), "--out", str(out))
    listed = capsys.readouterr().out.split()
    assert listed == sorted(listed)
    assert {Path(p).name for p in listed} == {f"{n}.{e}" for n in expected for e in ("png", "svg")}
    svgs = {}
    for name in expected:
        w, h = png_size(out / f"{name}.png")
        assert 600 <= w <= 4000 and 300 <= h <= 3000
        root = ET.parse(out / f"{name}.svg").getroot()
        assert root.tag.endswith("svg")
        svgs[name] = (out / f"{name}.svg").read_bytes()
        assert b"<dc:date>" not in svgs[name]
    run_cli("report", "figures", "--campaign-dir", str(cdir), "--out", str(out))
    for name in expected:
        assert (out / f"{name}.svg").read_bytes() == svgs[name]


# --------------------------------------------------------------------------- LaTeX compiles

@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not on PATH")
def test_latex_tables_compile(tmp_path, capsys):
    cdir = trec_campaign(tmp_path)
    qdir = qa4mre_campaign(tmp_path)
    inputs = []
    for c in (cdir, qdir):
        out = tmp_path / f"tex_{c.name}"
        run_cli("report", "tables", "--campaign-dir", str(c), "--out", str(out))
        inputs += sorted(out.glob("*.tex"))
    doc = tmp_path / "doc.tex"
    doc.write_text("\\documentclass{article}\n\\usepackage[T1]{fontenc}\n"
                   "\\usepackage{booktabs,longtable}\n\\usepackage[margin=1cm,landscape]{geometry}\n"
                   "\\begin{document}\n" + "".join(f"\\input{{{p}}}\n" for p in inputs)
                   + "\\end{document}\n")
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert (tmp_path / "doc.pdf").is_file()
