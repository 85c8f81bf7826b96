"""The design analysis as users reach it: its record (`qacamp reliability
design`, the workflow's plan and config schema, the declared schemas of its
files), the whole analysis of one measure (qacamp.reliability.design.analysis),
`qacamp.reliability.design(...)` and the report section.  The kernels
themselves are checked in tests/test_design.py; the demo's pages in
tests/test_demo.py and tests/test_report_browser.py."""

from __future__ import annotations

import io
import math

import numpy as np
import polars as pl
import pytest
from paths import ROOT, SHARED_DATA

import qacamp.reliability
from qacamp.cli import main
from qacamp.errors import ConfigError, InputError, UsageError
from qacamp.plan import config_schema, reliability_plan
from qacamp.reliability.analyses import ANALYSES, campaign_files, declared_schema, settings_words
from qacamp.reliability.builders import from_outcomes
from qacamp.reliability.design import (
    DESIGN_CURVE_SCHEMA,
    DESIGN_SCHEMA,
    ITEM_SCHEMA,
    Settings,
    design_analysis,
    flagged,
    item_statistics,
    swap_size,
    t_test_size,
    two_way,
    units_needed,
)
from qacamp.reliability.design.analysis import DEFAULT_DIFFERENCE, curve_sizes
from qacamp.reliability.design.gtheory import COMPONENT_SCHEMA
from qacamp.reliability.fits import FitSettings, fit_swap
from qacamp.reliability.matrix import ScoreMatrix
from qacamp.reliability.swap import swap_counts

WEB = SHARED_DATA / "score-matrices" / "web2004.csv"
needs_data = pytest.mark.skipif(not WEB.is_file(), reason="needs ../shared/data")
METHODS = ["erho2", "phi", "t-test", "anova", "ci", "swap"]


def from_wide(frame: pl.DataFrame, measure: str) -> ScoreMatrix:
    """A mean matrix, one column of ``frame`` per run, units u1, u2, ..."""
    return ScoreMatrix(tuple(f"u{i + 1}" for i in range(frame.height)), tuple(frame.columns),
                       "mean", values=frame.cast(pl.Float64).to_numpy(), measure=measure)


def simulated(n_units=120, n_runs=12, seed=5):
    """A right/wrong matrix: run abilities spread, question difficulties spread."""
    rng = np.random.default_rng(seed)
    ability = np.linspace(-1.5, 1.5, n_runs)
    ease = rng.normal(0, 1.2, n_units)
    p = 1 / (1 + np.exp(-(ability[None, :] + ease[:, None])))
    x = (rng.random((n_units, n_runs)) < p).astype(float)
    return from_wide(pl.DataFrame({f"r{j:02d}": x[:, j] for j in range(n_runs)}),
                     measure="accuracy")


def recorded(frame: pl.DataFrame, path) -> None:
    """``frame`` written as qacamp writes a file (with its record: qacamp reads
    only what it wrote)."""
    from qacamp.io import write_parquet, writing

    with writing("a test", files=[path]):
        write_parquet(frame, path)


@pytest.fixture(scope="module")
def swap_of_simulated():
    m = simulated()
    counts = swap_counts(m, list(range(5, 61, 5)), 20, 3, "accuracy")
    fits, summary = fit_swap(counts, m.n_units, FitSettings(min_fit_size=5), m, "accuracy")
    return m, fits, summary


# ------------------------------------------------------------------ the record ----

def test_the_record_gives_the_workflow_its_files_plan_and_schema():
    a = ANALYSES["design"]
    assert a.per == "measure" and a.merge is None and not a.sharded({})
    # after the swap method's fit: its fits and summary of the same measure
    assert a.after == (("fits", "fit", "out"), ("summary", "fit", "summary"))
    plan = reliability_plan({"kind": "clef-qa", "questions": "q", "runs": "r"})
    assert plan["design"] == {"target": 0.95, "confidence": 0.95, "alpha": 0.05, "power": 0.8,
                              "min_diff": None, "min_range": None, "ci_width": None}
    files = campaign_files(plan)["measure"]
    for m in plan["measures"]:
        for f in (f"design_{m}.parquet", f"design_{m}_components.parquet",
                  f"design_{m}_curve.parquet", f"design_{m}_diagnostics.parquet"):
            assert f in files
    where = "x/reliability/design_accuracy"
    assert declared_schema(f"{where}.parquet") == DESIGN_SCHEMA
    assert declared_schema(f"{where}_components.parquet") == COMPONENT_SCHEMA
    assert declared_schema(f"{where}_curve.parquet") == DESIGN_CURVE_SCHEMA
    assert declared_schema(f"{where}_diagnostics.parquet") == ITEM_SCHEMA
    # a setting reaches the command line only when the plan sets it
    plan["design"]["min_range"] = 0.1
    words = settings_words(a, plan, "campaigns.c.reliability", lambda s, k: True)
    assert words == ["--target", "0.95", "--confidence", "0.95", "--alpha", "0.05", "--power",
                     "0.8", "--min-range", "0.1", "--config-prefix", "campaigns.c.reliability"]
    schema = config_schema(ROOT / "workflow" / "schemas" / "config.schema.yaml")
    keys = schema["$defs"]["reliability"]["properties"]["design"]["properties"]
    assert sorted(keys) == sorted(plan["design"])


def test_a_config_value_out_of_range_is_refused_by_the_schema(tmp_path):
    from qacamp.plan import validate_config

    cfg = {"outdir": "out", "shards": 1, "reliability": {"design": {"target": 1.0}},
           "campaigns": {"c": {"kind": "clef-qa", "questions": "q.tsv", "runs": "r/*.tsv"}}}
    with pytest.raises(ConfigError, match=r"reliability\.design\.target"):
        validate_config(cfg, ROOT / "workflow" / "schemas" / "config.schema.yaml")


# ------------------------------------------------------- the whole analysis ----

def test_the_analysis_puts_every_method_side_by_side(swap_of_simulated):
    m, fits, summary = swap_of_simulated
    row = summary.row(0, named=True)
    d = design_analysis(m, fits, row)
    assert d.sizes.schema == pl.Schema(DESIGN_SCHEMA)
    assert d.sizes["method"].to_list() == METHODS
    got = dict(zip(d.sizes["method"], d.sizes["n_units"], strict=True))
    # d follows the swap method's required difference
    req = row["required_difference"]
    assert req is not None and d.difference == req
    assert d.difference_source == "the swap method's required difference"
    tw = two_way(m.values)
    needed = units_needed(tw)
    assert [got["erho2"], got["phi"]] == needed["n_units"].to_list()
    assert got["t-test"] == t_test_size(req, tw.ms_residual)
    assert got["swap"] == swap_size(fits, req, row["level"])["n_units"][0]
    # the diagnostics are those of the kernel, in the matrix's order
    assert d.items.equals(item_statistics(m.values, m.units))
    # the curve holds the campaign's size and the swap error of the same bin
    assert d.curve.schema == pl.Schema(DESIGN_CURVE_SCHEMA)
    at = d.curve.filter(pl.col("n_units") == m.n_units).row(0, named=True)
    assert at["erho2"] == pytest.approx(needed["at_campaign"][0], rel=1e-12)
    swap_row = d.sizes.filter(pl.col("method") == "swap").row(0, named=True)
    assert at["swap_error"] == pytest.approx(swap_row["at_campaign"], rel=1e-12)


def test_the_difference_a_user_sets_wins_and_each_method_may_have_its_own(swap_of_simulated):
    m, fits, summary = swap_of_simulated
    d = design_analysis(m, fits, summary.row(0, named=True),
                        Settings(min_diff=0.2, ci_width=0.3))
    rows = {r["method"]: r for r in d.sizes.iter_rows(named=True)}
    assert d.difference == 0.2 and rows["swap"]["difference"] == 0.2
    assert rows["t-test"]["difference"] == 0.2 and rows["anova"]["difference"] == 0.2
    assert rows["ci"]["difference"] == 0.3 and rows["ci"]["difference_source"] == "set (ci_width)"
    assert rows["t-test"]["difference_source"] == "set (min_diff)"


def test_without_a_usable_required_difference_the_default_is_used_and_said(swap_of_simulated):
    m, fits, summary = swap_of_simulated
    row = summary.row(0, named=True)
    few = {**row, "warning": "only 5 runs (10 pairs): fewer than 10 runs (45 pairs) are weak "
                             "evidence"}
    d = design_analysis(m, fits, few)
    assert d.difference == DEFAULT_DIFFERENCE == 0.05
    assert "too few runs" in d.notes[0] and "min_diff" in d.notes[0]
    swap = d.sizes.filter(pl.col("method") == "swap").row(0, named=True)
    assert swap["n_units"] is None and swap["reason"].startswith("too few runs")
    none = design_analysis(m, None, None)
    assert none.difference_source == "default (no swap summary given)"
    assert none.sizes.filter(pl.col("method") == "swap")["reason"][0] == "no swap fits given"
    assert none.curve["swap_error"].null_count() == none.curve.height


def test_a_measure_without_per_unit_values_gets_the_swap_method_only(swap_of_simulated):
    _, fits, summary = swap_of_simulated
    outcomes = pl.DataFrame({
        "judgment_set": "official", "run": ["r1", "r2", "r3"] * 4,
        "qid": [q for q in "abcd" for _ in range(3)],
        "rank": pl.Series([None] * 12, dtype=pl.Int32), "answered": [True] * 12,
        "outcome": ["R", "W", "UR", "W", "R", "R", "UW", "W", "R", "R", "R", "W"]})
    m = from_outcomes(outcomes, "c_at_1")
    d = design_analysis(m, fits, {"required_difference": 0.05, "level": 0.05})
    reasons = d.sizes["reason"].to_list()
    assert all("c_at_1 is not a mean of per-unit values" in r for r in reasons[:5])
    assert d.components.height == 0 and d.items.height == 0
    assert d.sizes["n_units"][5] is not None  # the swap method still answers
    assert any("not a mean" in n for n in d.notes)


def test_a_matrix_without_residual_variance_is_said_not_fatal():
    m = from_wide(pl.DataFrame({"a": [1.0, 0.0, 1.0], "b": [1.0, 0.0, 1.0],
                                "c": [1.0, 0.0, 1.0]}), measure="accuracy")
    d = design_analysis(m)
    assert all("no residual variance" in r for r in d.sizes["reason"][:5])
    assert d.items["flag"].to_list() == ["every run right", "no run right", "every run right"]


@pytest.mark.parametrize("runs", [2, 4])
def test_runs_a_constant_apart_have_no_residual_variance_not_a_traceback(runs):
    # every run is the first plus a constant: the residual is rounding noise
    # (about 1e-17 here), said as for a constant matrix
    base = np.random.default_rng(5).uniform(0.1, 0.9, 30)
    m = from_wide(pl.DataFrame({f"r{i}": base + 0.1 * i for i in range(runs)}),
                  measure="accuracy")
    d = design_analysis(m, settings=Settings(min_diff=0.05))
    assert all("no residual variance" in r for r in d.sizes["reason"][:5])


def test_a_tiny_residual_gives_the_smallest_sizes():
    # a constant apart plus noise of 1e-11: a real residual, an effect of
    # about 1e9 standard deviations; the power is 1 from the smallest size on
    base = np.random.default_rng(5).uniform(0.1, 0.9, 30)
    noise = np.random.default_rng(6).normal(0.0, 1e-11, 30)
    m = from_wide(pl.DataFrame({"a": base, "b": base + 0.1 + noise}), measure="accuracy")
    d = design_analysis(m, settings=Settings(min_diff=0.05))
    sizes = dict(zip(d.sizes["method"], d.sizes["n_units"], strict=True))
    assert sizes["t-test"] == 2 and sizes["anova"] == 2 and sizes["ci"] == 2


def test_the_curve_reaches_the_sizes_needed_within_bounds():
    assert curve_sizes(50) == list(range(1, 101))
    assert curve_sizes(50, [180]) == list(range(1, 199))  # 1.1 x 180
    far = curve_sizes(50, [10_000])
    assert far[-1] == 250 and len(far) <= 201  # at most 5 x the campaign
    big = curve_sizes(500, [87, 110, 380])
    assert big[0] == 1 and big[-1] == 1000 and {87, 110, 380, 500} <= set(big)
    assert len(big) <= 205 and big == sorted(set(big))


def test_graded_units_are_flagged_only_when_no_run_scored():
    """A series score or an F: no run with full credit is no flag; no run
    with any credit is."""
    values = np.array([[0.5, 0.2, 0.0, 0.1], [0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0],
                       [0.3, 0.6, 0.1, 0.0]])
    items = item_statistics(values, ["a", "b", "c", "d"])
    assert items["flag"].to_list() == [None, "no run right", "every run right", None]
    assert items["n_right"].to_list() == [0, 0, 4, 0]
    assert flagged(items)["unit"].to_list() == ["b", "c"]


# ------------------------------------------------------------ command line ----

@needs_data
def test_the_command_writes_the_files_and_prints_tsv_without_out(tmp_path, capsys):
    web = ["--matrix", str(WEB), "--measure", "ap"]
    counts, fits, summ = (tmp_path / f for f in ("c.parquet", "f.parquet", "s.parquet"))
    assert main(["reliability", "swap", *web, "--sizes", "5:75:10", "--trials", "5",
                 "--out", str(counts)]) == 0
    assert main(["reliability", "fit", *web, "--counts", str(counts), "--min-fit-size", "5",
                 "--out", str(fits), "--summary", str(summ)]) == 0
    capsys.readouterr()
    base = ["reliability", "design", *web, "--fits", str(fits), "--summary", str(summ)]
    assert main(base) == 0
    printed = capsys.readouterr()
    tsv = pl.read_csv(io.StringIO(printed.out), separator="\t", schema=DESIGN_SCHEMA)
    assert tsv["method"].to_list() == METHODS
    outs = {d: tmp_path / f"{d}.parquet" for d in ("out", "components", "curve",
                                                    "diagnostics")}
    assert main([*base, *[w for d, p in outs.items() for w in (f"--{d}", str(p))]]) == 0
    err = capsys.readouterr().err
    assert "units needed for d = " in err and f"wrote {outs['out']}" in err
    sizes = pl.read_parquet(outs["out"])
    assert sizes.equals(tsv)
    # the same numbers as the kernels on the real matrix
    from qacamp.loader import read_matrix_file

    m = read_matrix_file(WEB, "ap")
    tw = two_way(m.values)
    assert sizes["n_units"][:2].to_list() == units_needed(tw)["n_units"].to_list()
    req = pl.read_parquet(summ)["required_difference"][0]
    assert sizes["difference"][2] == req
    assert sizes["n_units"][2] == t_test_size(req, tw.ms_residual)
    assert pl.read_parquet(outs["diagnostics"]).height == 150
    assert pl.read_parquet(outs["components"])["component"].to_list() == \
        ["runs", "units", "residual"]


@needs_data
@pytest.mark.parametrize(("extra", "message"), [
    (["--target", "1"], "--target: 1.0 is not a finite number in (0, 1)"),
    (["--min-diff", "0"], "--min-diff: 0.0 is not a finite number > 0"),
    (["--alpha", "0.5", "--power", "0.4"], "power: 0.4 must be above alpha (0.5)"),
])
def test_bad_settings_are_one_line_errors(extra, message, tmp_path, capsys):
    assert main(["reliability", "design", "--matrix", str(WEB), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


@needs_data
def test_under_the_workflow_a_bad_setting_names_its_config_key(capsys):
    assert main(["reliability", "design", "--matrix", str(WEB), "--alpha", "0.5", "--power",
                 "0.4", "--config-prefix", "campaigns.web.reliability"]) != 0
    assert "campaigns.web.reliability.design.power" in capsys.readouterr().err


@needs_data
def test_the_summary_of_another_measure_is_refused(tmp_path, capsys):
    summ = tmp_path / "s.parquet"
    recorded(pl.DataFrame({"measure": ["map"], "required_difference": [0.05]}), summ)
    assert main(["reliability", "design", "--matrix", str(WEB), "--measure", "ap",
                 "--summary", str(summ)]) == 2
    err = capsys.readouterr().err
    assert str(summ) in err and "is the swap summary of 'map', not of 'ap'" in err


# ----------------------------------------------------------------- the API ----

def test_the_api_is_the_command_on_frames(swap_of_simulated, tmp_path):
    m, fits, summary = swap_of_simulated
    long = pl.DataFrame({"unit": [u for u in m.units for _ in m.runs],
                         "run": list(m.runs) * m.n_units,
                         "value": m.values.reshape(-1).tolist()})
    sizes, components, curve, diagnostics = qacamp.reliability.design(
        long, fits=fits, summary=summary, measure="accuracy")
    d = design_analysis(m, fits, summary.row(0, named=True))
    assert sizes.equals(d.sizes) and components.equals(d.components)
    assert curve.equals(d.curve) and diagnostics.equals(d.items)
    # the command on the same matrix writes the same sizes
    wide = tmp_path / "m.csv"
    pl.DataFrame({r: m.values[:, j] for j, r in enumerate(m.runs)}).write_csv(wide)
    fp, sp, out = tmp_path / "f.parquet", tmp_path / "s.parquet", tmp_path / "o.parquet"
    recorded(fits, fp)
    recorded(summary, sp)
    assert main(["reliability", "design", "--matrix", str(wide), "--measure", "accuracy",
                 "--fits", str(fp), "--summary", str(sp), "--out", str(out)]) == 0
    assert pl.read_parquet(out).equals(sizes)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"target": 1.5}, "--target: 1.5 is not a finite number in (0, 1)"),
    ({"min_diff": -0.1}, "--min-diff: -0.1 is not a finite number > 0"),
    ({"power": 0.01}, "power: 0.01 must be above alpha (0.05)"),
    ({"seed": 3}, "design: unknown option(s) seed"),
    ({"target": "0.9"}, "--target"),
])
def test_the_api_checks_its_arguments_as_the_command_does(kwargs, message):
    with pytest.raises(UsageError) as err:
        qacamp.reliability.design(simulated(20, 5), **kwargs)
    assert message in str(err.value)


def test_the_api_refuses_a_summary_that_is_no_frame():
    with pytest.raises(UsageError, match="summary: .* is not a frame"):
        qacamp.reliability.design(simulated(20, 5), summary={"required_difference": 0.1})


def test_a_fits_frame_without_its_columns_is_an_input_error():
    with pytest.raises(InputError, match="fits"):
        qacamp.reliability.design(simulated(20, 5), fits=pl.DataFrame({"bin": [0]}))


def test_the_function_stays_reachable_beside_its_kernels():
    from qacamp.reliability.design import gtheory

    assert callable(qacamp.reliability.design) and math.isfinite(gtheory.DEFAULT_TARGET)


# ------------------------------------------------------------ report section ----

class Stub:
    """What the section asks of a campaign folder (qacamp.report.campaign.Campaign)."""

    def __init__(self, kind, unit, tables=None, options=None, measures=("accuracy",)):
        from qacamp.kinds import KINDS

        self.kind, self.unit, self.spec = kind, unit, KINDS[kind]
        self.meta = {"options": options or {}}
        self.measures, self.headline, self.reliability = list(measures), measures[0], True
        self.tables = tables or {}

    def optional_frame(self, folder, name):
        return self.tables.get(name)

    def questions(self):
        return self.tables.get("questions.parquet")


def test_the_section_words_the_answer_by_kind(swap_of_simulated):
    from qacamp.report.sections.design import answer_sentence, design_table

    m, fits, summary = swap_of_simulated
    sizes = design_analysis(m, fits, summary.row(0, named=True)).sizes
    n = sizes.filter(pl.col("method") == "erho2")["n_units"][0]
    qa4mre = answer_sentence(Stub("qa4mre", "question", options={"main_questions": 15}),
                             "accuracy", sizes)
    assert (f"needs {n:,} questions ({math.ceil(n / 15)} reading tests of 15) by E(\u03c1\u00b2)"
            in qa4mre)
    assert "assuming runs and questions are random samples" in qa4mre
    series = answer_sentence(Stub("trec-series", "series"), "series_score", sizes)
    assert f"With {m.n_units} series and {m.n_runs} runs" in series
    assert "reading tests" not in series and "seriess" not in series
    table = design_table(Stub("pan", "problem"), {"accuracy": sizes})
    assert [c.header for c in table.columns][4] == "Problems needed"
    assert table.frame["n_units"].to_list() == sizes["n_units"].to_list()


def test_the_recheck_table_names_each_units_key_and_anchor():
    from qacamp.report.sections.design import _recheck_part, anchor, recheck_table
    from qacamp.report.tables import Table

    values = np.array([[1, 1, 1, 1], [0, 0, 0, 0], [0, 1, 1, 0], [1, 0, 0, 1.0]])
    items = item_statistics(values, ["1.1.1", "1.1.2", "1.2.1", "1.2.2"])
    options = pl.DataFrame({"qid": ["1.1.2", "1.1.2", "1.2.2"], "option": ["1", "2", "3"],
                            "text": ["a cat", "a dog", "rain"], "correct": [False, True, True],
                            "is_noa": [False] * 3})
    questions = pl.DataFrame({"qid": ["1.1.1", "1.1.2", "1.2.1", "1.2.2"],
                              "text": ["Who?", "What " + "long " * 40, "Where?", "When?"]})
    c = Stub("qa4mre", "question", {"options.parquet": options, "questions.parquet": questions})
    t = recheck_table(c, "accuracy", items)
    assert t.frame["unit"].to_list() == flagged(items)["unit"].to_list()
    keys = dict(zip(t.frame["unit"], t.frame["key"], strict=True))
    assert keys["1.1.2"] == "2: a dog" and keys["1.1.1"] is None
    text = dict(zip(t.frame["unit"], t.frame["text"], strict=True))["1.1.2"]
    assert len(text) == 100 and text.endswith("\u2026")
    part = _recheck_part(c, "accuracy", {"design_recheck": t})
    assert part["anchors"] == [anchor("question", u) for u in t.frame["unit"]]
    assert [x["anchor"] for x in part["links"]] == part["anchors"]
    assert part["lead"].startswith(f"{t.frame.height} questions to re-check")
    empty = _recheck_part(Stub("trec-series", "series"), "series_score",
                          {"design_recheck": Table("design_recheck", "", t.frame.head(0), ())})
    assert empty["table"] is None and empty["lead"].startswith("No series is flagged: some run")
    assert anchor("problem", "a b") == "problem-a_b"
