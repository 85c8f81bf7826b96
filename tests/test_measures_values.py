"""Hand-computed values for every measure family (arithmetic in the comments)."""

import math
import statistics

import numpy as np
import polars as pl
import pytest

from qacamp import measures
from qacamp.errors import UsageError
from qacamp.kinds import KINDS
from qacamp.measures import factoid, lists, nonresponse, other, reading, series


@pytest.mark.parametrize("right,wrong,unans,c1,acc", [
    (237, 156, 107, 0.58, 0.47),  # icia091ro: (237 + 107*237/500)/500 = 0.5754 -> 0.58
    (236, 264, 0, 0.47, 0.47),    # uaic092ro: 236/500 = 0.472
    (187, 230, 83, 0.44, 0.37),   # loga092de: (187 + 83*187/500)/500 = 0.4361
    (189, 311, 0, 0.38, 0.38),    # base092de: 189/500 = 0.378
])
def test_c_at_1_paper_table3(right, wrong, unans, c1, acc):
    n = 500
    assert right + wrong + unans == n
    assert round(nonresponse.c_at_1(right, unans, n), 2) == c1
    df = pl.DataFrame({"k": ["x"] * n,
                       "r": [1.0] * right + [0.0] * (n - right),
                       "w": [0.0] * right + [1.0] * wrong + [0.0] * unans,
                       "ur": [0.0] * n, "uw": [0.0] * n,
                       "ue": [0.0] * (right + wrong) + [1.0] * unans})
    out = nonresponse.aggregate(df, ["k"]).row(0, named=True)
    assert round(out["c_at_1"], 2) == c1
    assert round(out["accuracy"], 2) == acc
    assert out["utility"] == pytest.approx((right - wrong) / n)


def test_nonresponse_counts():
    # outcomes R, W, UR, UW, UE, UE: n=6, nR=1, nW=1, nU=4 (nUR=1, nUW=1, nUE=2)
    oc = ["R", "W", "UR", "UW", "UE", "UE"]
    df = pl.DataFrame({"k": ["x"] * 6, "o": oc}).with_columns(
        *nonresponse.outcome_indicators(pl.col("o")))
    out = nonresponse.aggregate(df, ["k"]).row(0, named=True)
    assert out["c_at_1"] == pytest.approx((1 + 4 * 1 / 6) / 6)  # 0.2778
    assert out["qa4mre_accuracy"] == pytest.approx(2 / 6)       # (nR + nUR) / n
    assert out["correctly_discarded"] == pytest.approx(3 / 4)   # (1 + 2) / 4
    assert out["utility"] == pytest.approx(0.0)                 # (1 - 1) / 6
    assert (out["n_right"], out["n_wrong"], out["n_unanswered"]) == (1, 1, 4)
    assert (out["n_unanswered_right"], out["n_unanswered_wrong"],
            out["n_unanswered_empty"]) == (1, 1, 2)


def test_c_at_1_edge_cases():
    assert nonresponse.c_at_1(0, 10, 10) == 0.0   # nR = 0 -> 0
    assert nonresponse.c_at_1(3, 0, 10) == 0.3    # nU = 0 -> accuracy
    assert nonresponse.c_at_1(0, 0, 0) == 0.0     # empty: 0 by convention


def test_cws_small_ordering():
    # correct pattern [1, 0, 1] in confidence order -> (1/1 + 1/2 + 2/3) / 3 = 0.7222
    df = pl.DataFrame({"run": ["a"] * 3, "rank": [3, 1, 2], "qid": ["z", "x", "y"],
                       "r": [1.0, 1.0, 0.0]})
    out = factoid.cws(df, ["run"])
    assert out["cws"][0] == pytest.approx((1 + 1 / 2 + 2 / 3) / 3)


def test_mrr_reciprocal_rank():
    # q1: first right at item 2 -> 1/2; q2: none right -> 0; mean = 0.25
    items = pl.DataFrame({"qid": ["1", "1", "1", "2", "2"], "item": [1, 2, 3, 1, 2],
                          "right": [False, True, True, False, False]})
    rr = factoid.reciprocal_rank(items, ["qid"]).sort("qid")
    assert rr["rr"].to_list() == [0.5, 0.0]
    assert rr["rr"].mean() == 0.25


def test_nil_precision_recall():
    # 3 NIL returned, 1 right; 2 NIL questions -> P = 1/3, R = 1/2
    df = pl.DataFrame({"k": ["a"] * 4, "nil_returned": [True, True, True, False],
                       "nil_right": [True, False, False, False],
                       "nil_question": [True, False, False, True]})
    out = factoid.nil_scores(df, ["k"]).row(0, named=True)
    assert out["nil_precision"] == pytest.approx(1 / 3)
    assert out["nil_recall"] == pytest.approx(1 / 2)
    # nothing returned, no NIL questions: 0 by convention
    z = factoid.nil_scores(df.with_columns(pl.lit(False).alias("nil_returned"),
                                           pl.lit(False).alias("nil_right"),
                                           pl.lit(False).alias("nil_question")), ["k"])
    assert z.row(0, named=True) == {"k": "a", "nil_precision": 0.0, "nil_recall": 0.0}


def test_list_measures():
    # N=4, D=2, S=8: IP = 0.5, IR = 0.25, F = 2*.5*.25/.75 = 1/3; D = 0 -> F = 0; N = 0 -> IP 0
    df = lists.per_question(pl.DataFrame({"N": [4, 3, 0], "D": [2, 0, 0], "S": [8, 5, 5]}))
    assert df["list_precision"].to_list() == [0.5, 0.0, 0.0]
    assert df["list_recall"].to_list() == [0.25, 0.0, 0.0]
    assert df["list_f"][0] == pytest.approx(1 / 3)
    assert df["list_f"][1:].to_list() == [0.0, 0.0]


def _other(**kw):
    base = {"length": [0], "matched": [0], "vital_matched": [0], "vital_total": [1],
            "weight_matched": [0.0], "weight_total": [None]}
    base.update({k: [v] for k, v in kw.items()})
    return other.per_question(pl.DataFrame(base, schema_overrides={"weight_total": pl.Float64})
                              ).row(0, named=True)


def test_other_nugget_f():
    # 2 of 4 vital matched + 1 okay -> R = 0.5, allowance 300; length 400 ->
    # P = 1 - 100/400 = 0.75; F(3) = 10*.75*.5 / (9*.75 + .5) = 3.75/7.25 = 0.51724
    r = _other(length=400, matched=3, vital_matched=2, vital_total=4)
    assert r["other_recall"] == 0.5
    assert r["other_precision"] == 0.75
    assert r["other_f"] == pytest.approx(3.75 / 7.25)
    assert r["other_pyramid_recall"] is None  # no pyramid weights -> not computed


def test_other_length_exactly_at_allowance():
    # length == allowance == 200: not < allowance, so 1 - (200-200)/200 = 1
    r = _other(length=200, matched=2, vital_matched=1, vital_total=2)
    assert r["other_precision"] == 1.0
    # one character over: 1 - 1/201
    assert _other(length=201, matched=2, vital_matched=1,
                  vital_total=2)["other_precision"] == pytest.approx(1 - 1 / 201)
    # F with P = 1, R = 0.5: 10*.5/(9+.5) = 0.526316
    assert r["other_f"] == pytest.approx(5 / 9.5)


def test_other_empty_response_and_pyramid():
    r = _other(length=0, matched=0)  # nothing returned: P = 0 (0/0), R = 0, F = 0
    assert (r["other_precision"], r["other_recall"], r["other_f"]) == (0.0, 0.0, 0.0)
    # pyramid: weights matched 1.5 of 3.0 -> 0.5; length 50 < allowance 100 -> P = 1
    p = _other(length=50, matched=1, vital_matched=1, vital_total=2, weight_matched=1.5,
               weight_total=3.0)
    assert p["other_pyramid_recall"] == 0.5
    assert p["other_pyramid_f"] == pytest.approx(10 * 0.5 / (9 + 0.5))


def _series(acc, lf, of, year):
    df = pl.DataFrame({"accuracy": [acc], "list_f": [lf], "other_f": [of]},
                      schema={"accuracy": pl.Float64, "list_f": pl.Float64, "other_f": pl.Float64})
    return series.combine(df, series.resolve_weights(year, None))["series_score"][0]


def test_series_score_weights():
    # 2004: 0.5*0.4 + 0.25*0.2 + 0.25*0.6 = 0.2 + 0.05 + 0.15 = 0.4
    assert _series(0.4, 0.2, 0.6, 2004) == pytest.approx(0.4)
    # 2004 without list questions: 0.67*0.4 + 0.33*0.6 = 0.268 + 0.198 = 0.466
    assert _series(0.4, None, 0.6, 2004) == pytest.approx(0.466)
    # 2006 equal thirds: (0.4 + 0.2 + 0.6)/3 = 0.4
    assert _series(0.4, 0.2, 0.6, 2006) == pytest.approx(0.4)
    assert _series(0.3, 0.0, 0.9, 2007) == pytest.approx(0.4)
    # configurable weights
    w = series.resolve_weights(2004, {"factoid": 1.0, "list": 0.0, "other": 0.0})
    df = pl.DataFrame({"accuracy": [0.4], "list_f": [0.2], "other_f": [0.6]})
    assert series.combine(df, w)["series_score"][0] == pytest.approx(0.4)


def test_type_score():
    # 0.5*0.4 + 0.25*0.2 + 0.25*0.6 = 0.4
    df = series.type_score(pl.DataFrame({"accuracy": [0.4], "list_f": [0.2], "other_f": [0.6]}))
    assert df["type_score"][0] == pytest.approx(0.4)


def test_reading_stats():
    # tests c@1 = [0.2, 0.5, 0.8]: median 0.5, mean 0.5, std sqrt(0.06) = 0.2449, passed 2
    df = pl.DataFrame({"run": ["a"] * 3, "c_at_1": [0.2, 0.5, 0.8]})
    out = reading.test_stats(df, ["run"]).row(0, named=True)
    assert out["test_c_at_1_median"] == pytest.approx(0.5)
    assert out["test_c_at_1_mean"] == pytest.approx(0.5)
    assert out["test_c_at_1_std"] == pytest.approx((0.18 / 3) ** 0.5)
    assert out["tests_passed"] == 2 and out["tests"] == 3


def _ordered_sum(values) -> float:
    """The sum of ``values`` in their order, as qacamp adds a group's values
    (``numpy.add.reduceat``, :mod:`qacamp.aggregate`); a missing value adds 0."""
    return float(np.add.reduceat(np.array([0.0 if v is None else v for v in values]), [0])[0])


def _stats_by_hand(rows, ddof, threshold=0.5):
    """Per group, from (group, test, value) rows: each sum over the tests in order."""
    out = {}
    for group in sorted({g for g, _, _ in rows}):
        values = [v for g, _, v in sorted(rows, key=lambda r: (r[0], r[1])) if g == group]
        present = [v for v in values if v is not None]
        mean = _ordered_sum(values) / len(present) if present else None
        d2 = _ordered_sum([None if v is None else (v - mean) * (v - mean) for v in values])
        std = math.sqrt(d2 / (len(values) - ddof)) if len(values) - ddof > 0 else None
        passed = float(sum(v >= threshold - 1e-12 for v in present))
        out[group] = (mean, std, passed, float(len(values)))
    return out


@pytest.mark.parametrize("ddof", [0, 1])
def test_reading_stats_match_a_hand_computation_in_test_order(ddof):
    # rows shuffled, a group of one test (no sample std), a test without a
    # value: the sums are added in test order, whatever the row order
    import random

    rng = random.Random(7)
    rows = [(g, t, rng.choice([0.0, 0.1, 0.2, 1 / 3, 0.5, 0.7, 0.8, 1.0]))
            for g in ("a", "b", "c") for t in range(1, 12 if g != "c" else 2)]
    rows.append(("b", 99, None))
    rng.shuffle(rows)
    df = pl.DataFrame(rows, schema={"run": pl.String, "test": pl.Int64, "c_at_1": pl.Float64},
                      orient="row")
    got = reading.test_stats(df, ["run"], order=["test"], ddof=ddof)
    assert got["run"].to_list() == ["a", "b", "c"]
    want = _stats_by_hand(rows, ddof)
    for row in got.iter_rows(named=True):
        mean, std, passed, n = want[row["run"]]
        assert row["test_c_at_1_mean"] == mean  # the same bits: the same order of sums
        assert row["test_c_at_1_std"] == std
        assert (row["tests_passed"], row["tests"]) == (passed, n)
        values = sorted(v for g, _, v in rows if g == row["run"] and v is not None)
        assert row["test_c_at_1_median"] == pytest.approx(statistics.median(values), abs=1e-15)


def test_registry_fields_and_errors():
    for m in measures.REGISTRY.values():
        assert m.aggregation in {"mean", "counts", "order", "set"}
        assert m.formula and m.citation and m.family
    assert measures.REGISTRY["cws"].aggregation == "order"
    assert measures.REGISTRY["c_at_1"].aggregation == "counts"
    for kind, names in {k.name: k.measures for k in KINDS.values()}.items():
        assert set(names) <= set(measures.REGISTRY), kind
    with pytest.raises(UsageError, match="valid measures: .*c_at_1"):
        measures.REGISTRY.lookup("c_at_2")
    md = measures.to_markdown()
    assert "`other_pyramid_f`" in md and "| name |" in md
