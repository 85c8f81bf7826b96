"""PAN verification measures (qacamp.measures.pan): hand computations of every
rule of the official evaluators, the degenerate cases qacamp decides, the
editions, the frame functions and the registry entries."""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
import pytest
from paths import ROOT

from qacamp import measures
from qacamp.errors import UsageError
from qacamp.measures import pan, pan_frames

# truth same/different, values: 0.7 right "same", 0.3 right "different",
# 0.5 non-answer (a same-author problem), 0.6 wrong "same"
TRUTH = np.array([True, False, True, False])
VALUES = np.array([0.7, 0.3, 0.5, 0.6])


def test_hand_computed_example():
    got = pan.evaluate(VALUES, TRUTH, pan.ARRAY_MEASURES[:-1])
    # AUC: positives {0.7, 0.5} vs negatives {0.3, 0.6}: 0.7>0.3, 0.7>0.6, 0.5>0.3, 0.5<0.6
    assert got["auc"] == 3 / 4
    # c@1: nc = 2, nu = 1, n = 4 -> (2 + 1 * 2 / 4) / 4
    assert got["c_at_1"] == pytest.approx(2.5 / 4, abs=1e-15)
    # F1 without the non-answer: TP 1, FP 1, FN 0 -> 2 / 3
    assert got["f1"] == pytest.approx(2 / 3, abs=1e-15)
    # F0.5u: the non-answer is a false negative: 1.25 / (1.25 + 0.25 * 1 + 1)
    assert got["f_05_u"] == pytest.approx(0.5, abs=1e-15)
    # 1 - (0.09 + 0.09 + 0.25 + 0.36) / 4
    assert got["brier"] == pytest.approx(1 - 0.79 / 4, abs=1e-15)


def test_overall_per_edition():
    a, c, f05, f1, b = 0.75, 0.625, 0.5, 2 / 3, 1 - 0.79 / 4
    for edition, want in (("2014", a * c), (2015, a * c), ("2020", (a + c + f05 + f1) / 4),
                          (2021, (a + c + f05 + f1 + b) / 5), ("2022", (a + c + f05 + f1 + b) / 5),
                          ("2023", (a + c + f05 + f1 + b) / 5)):
        assert pan.overall(VALUES, TRUTH, edition) == pytest.approx(want, abs=1e-15), edition


def test_editions():
    assert pan.edition_measures(2020) == ("auc", "c_at_1", "f_05_u", "f1", "overall")
    # PAN 2021 compares runs "using five diverse evaluation metrics": Brier enters overall
    assert pan.edition_measures("2021") == ("auc", "c_at_1", "f_05_u", "f1", "brier", "overall")
    assert pan.edition_measures(2023) == pan.edition_measures("2022") == pan.edition_measures(2021)
    assert pan.edition_measures(" 2014 ") == ("auc", "c_at_1", "overall")
    for bad in (2019, "2016", None, "pan22"):
        with pytest.raises(UsageError, match="2014, 2015, 2020"):
            pan.check_edition(bad)
    with pytest.raises(UsageError, match="needs the campaign's edition"):
        pan.overall(VALUES, TRUTH, None)
    with pytest.raises(UsageError, match="PAN measure 'accuracy'"):
        pan.evaluate(VALUES, TRUTH, ("accuracy",))


def naive_auc(values, truth):
    """P(positive > negative) + P(tie) / 2 by counting every pair."""
    pos = [v for v, t in zip(values, truth, strict=True) if t]
    neg = [v for v, t in zip(values, truth, strict=True) if not t]
    if not pos or not neg:
        return 0.0
    wins = sum(1.0 if p > q else 0.5 if p == q else 0.0 for p, q in itertools.product(pos, neg))
    return wins / (len(pos) * len(neg))


def test_auc_equals_pair_count_with_ties():
    rng = np.random.default_rng(11)
    for _ in range(200):
        n = int(rng.integers(1, 40))
        truth = rng.random(n) < rng.uniform(0.1, 0.9)
        values = np.round(rng.random(n), int(rng.integers(0, 3)))  # 0-2 decimals: many ties
        values[rng.random(n) < 0.2] = 0.5
        assert pan.auc(values, truth) == pytest.approx(naive_auc(values, truth), abs=1e-14)


def test_auc_ties_and_non_answers():
    # (0.8, 0.6) 1, (0.8, 0.2) 1, (0.6, 0.6) 1/2, (0.6, 0.2) 1 -> 3.5 / 4
    assert pan.auc([0.8, 0.6, 0.6, 0.2], [True, True, False, False]) == 0.875
    # every problem unanswered: all tied -> 0.5 (the evaluators count them in AUC)
    assert pan.auc([0.5] * 4, [True, False, True, False]) == 0.5
    # only the order matters: a monotone transform of the values keeps AUC
    v = np.array([0.1, 0.4, 0.45, 0.5, 0.9, 0.95])
    t = np.array([False, True, False, True, True, False])
    assert pan.auc(v, t) == pan.auc(v ** 3, t)


def test_single_class_auc_is_zero():
    """The 2020-2023 evaluator's rule (``except ValueError: return 0.0``)."""
    assert pan.SINGLE_CLASS_AUC == 0.0
    assert pan.auc([0.9, 0.2, 0.5], [True, True, True]) == 0.0
    assert pan.auc([0.9, 0.2, 0.5], [False, False, False]) == 0.0
    # the other measures are defined on one class
    assert pan.c_at_1([0.9, 0.2, 0.5], [True] * 3) == pytest.approx((1 + 1 / 3) / 3)


def test_non_answer_is_exactly_half():
    t = [True, True, False]
    # 0.5 is a non-answer; a hair above is "same author", a hair below "different"
    assert pan.c_at_1([0.5, 0.5, 0.2], t) == pytest.approx((1 + 2 * 1 / 3) / 3)
    assert pan.c_at_1([0.5000001, 0.4999999, 0.2], t) == pytest.approx(2 / 3)
    assert pan.f1([0.5000001, 0.4999999, 0.2], t) == pytest.approx(2 / 3)  # TP 1, FN 1
    # c@1 of the boundary values 0 and 1
    assert pan.c_at_1([1.0, 0.0, 0.0], t) == pytest.approx(2 / 3)


def test_f1_removes_non_answers_and_f05u_counts_them():
    base_v, base_t = np.array([0.9, 0.8, 0.1, 0.3]), np.array([True, False, True, False])
    more_v = np.concatenate([base_v, [0.5, 0.5, 0.5]])
    more_t = np.concatenate([base_t, [True, False, False]])
    assert pan.f1(base_v, base_t) == pan.f1(more_v, more_t) == pytest.approx(0.5)
    # TP 1, FP 1, FN 1; nu 0 -> 1.25 / 2.5; with three non-answers 1.25 / 3.25
    assert pan.f_05_u(base_v, base_t) == pytest.approx(1.25 / 2.5)
    assert pan.f_05_u(more_v, more_t) == pytest.approx(1.25 / (1.25 + 0.25 * 4 + 1))


def test_empty_denominators_give_zero():
    t = [True, False, True]
    assert pan.f1([0.5, 0.5, 0.5], t) == 0.0  # nothing decided (the evaluator stops here)
    assert pan.f_05_u([0.5, 0.5, 0.5], t) == 0.0  # 0 / (0.25 * 3)
    # all truths and all decisions negative: F0.5u 0 / 0 (the evaluator divides by zero)
    assert pan.f_05_u([0.1, 0.2], [False, False]) == 0.0
    assert pan.f1([0.1, 0.2], [False, False]) == 0.0
    assert pan.c_at_1([0.1, 0.2], [False, False]) == 1.0


def test_empty_vector():
    got = pan.evaluate(np.zeros(0), np.zeros(0, bool), edition="2022")
    assert {k: float(v) for k, v in got.items()} == dict.fromkeys(pan.edition_measures(2022), 0.0)
    got = pan.evaluate(np.zeros((3, 0)), np.zeros(0, bool), edition="2014")
    assert got["overall"].shape == (3,) and not got["overall"].any()


def test_shapes_runs_by_problems():
    rng = np.random.default_rng(5)
    v = np.round(rng.random((4, 30)), 2)
    t = rng.random(30) < 0.5
    got = pan.evaluate(v, t, edition=2022)
    for m, arr in got.items():
        assert arr.shape == (4,) and arr.dtype == np.float64
        for r in range(4):
            assert arr[r] == pan.evaluate(v[r], t, (m,), 2022)[m]
    assert pan.auc(v[0], t).shape == ()
    # the problem axis is where rank_keys is told it is
    keys0 = pan.rank_keys(v.T, t[:, None], axis=0)
    np.testing.assert_array_equal(keys0.T, pan.rank_keys(v, t))


def test_rank_keys_order_and_dtype():
    keys = pan.rank_keys(np.array([0.3, 0.1, 0.3, 0.9]), np.array([True, False, False, True]))
    np.testing.assert_array_equal(keys, [2 * 1 + 1, 0, 2 * 1, 2 * 2 + 1])
    assert keys.dtype == np.int16
    assert pan.rank_keys(np.zeros(20000), np.zeros(20000, bool)).dtype == np.int32


def frames():
    truth = pl.DataFrame({"qid": ["p3", "p1", "p2", "p4"], "same": [False, True, True, False]})
    values = pl.DataFrame({"run": ["b", "b", "a", "a", "a", "a"],
                           "qid": ["p1", "p3", "p1", "p2", "p3", "p4"],
                           "value": [0.9, 0.2, 0.7, 0.5, 0.3, 0.6]})
    return values, truth


def test_align_fills_missing_problems_with_half():
    values, truth = frames()
    qids, runs, dense, same = pan_frames.align(values, truth)
    assert qids == ("p1", "p2", "p3", "p4") and runs == ("a", "b")
    np.testing.assert_array_equal(dense, [[0.7, 0.9], [0.5, 0.5], [0.3, 0.2], [0.6, 0.5]])
    np.testing.assert_array_equal(same, [True, True, False, False])


def test_score_runs_long_frame():
    values, truth = frames()
    out = pan_frames.score_runs(values, truth, 2020)
    assert out.columns == ["run", "measure", "value"]
    assert out["run"].to_list() == ["a"] * 5 + ["b"] * 5
    assert out["measure"].to_list()[:5] == list(pan.edition_measures(2020))
    a = dict(out.filter(pl.col("run") == "a").select("measure", "value").iter_rows())
    # run a = the hand example reordered: p1 0.7 T, p2 0.5 T, p3 0.3 F, p4 0.6 F
    assert a["auc"] == 0.75 and a["f_05_u"] == pytest.approx(0.5)
    b = dict(out.filter(pl.col("run") == "b").select("measure", "value").iter_rows())
    # run b answered p1 (0.9, right) and p3 (0.2, right); p2 and p4 missing -> 0.5
    assert b["c_at_1"] == pytest.approx((2 + 2 * 2 / 4) / 4)
    assert b["auc"] == pytest.approx(naive_auc([0.9, 0.5, 0.2, 0.5], [True, True, False, False]))


@pytest.mark.parametrize("change, match", [
    (lambda v, t: (v.with_columns(pl.lit("p9").alias("qid")).head(1), t), "not in the truth"),
    (lambda v, t: (pl.concat([v, v.head(1)]), t), "duplicate"),
    (lambda v, t: (v.with_columns(pl.lit(1.5).alias("value")), t), r"not a number in \[0, 1\]"),
    (lambda v, t: (v.with_columns(pl.lit(None, pl.Float64).alias("value")), t), "null"),
    (lambda v, t: (v.drop("value"), t), "lacks columns"),
    (lambda v, t: (v, pl.concat([t, t.head(1)])), "repeats problem"),
])
def test_align_rejects_malformed_frames(change, match):
    with pytest.raises(UsageError, match=match):
        pan_frames.align(*change(*frames()))


def test_registry_entries():
    for name in ("auc", "f1", "f_05_u", "brier", "overall"):
        m = measures.REGISTRY[name]
        assert m.family == "pan" and m.unit == "problem" and m.formula and m.citation
    assert measures.REGISTRY["auc"].aggregation == "order"
    assert measures.REGISTRY["overall"].aggregation == "order"
    assert measures.REGISTRY["f_05_u"].aggregation == "counts"
    assert "Bevendorff" in measures.REGISTRY["f_05_u"].citation
    assert "PAN 2014" in measures.REGISTRY["overall"].citation
    assert set(pan.ARRAY_MEASURES) <= set(measures.KIND_MEASURES["pan"])
    assert "| `f_05_u` |" in measures.to_markdown()


def test_docs_measures_md_is_generated_from_registry():
    """docs/measures.md is `qacamp measures --markdown` output, never hand-edited."""
    assert (ROOT / "docs" / "measures.md").read_text(encoding="utf-8") == measures.to_markdown() + "\n"


def test_project_code_never_imports_scikit_learn():
    """scikit-learn is a test dependency, for the official evaluators only."""
    import re

    pattern = re.compile(r"^\s*(import|from)\s+sklearn\b", re.M)
    offenders = [p.name for p in (ROOT / "src" / "qacamp").rglob("*.py")
                 if pattern.search(p.read_text(encoding="utf-8"))]
    assert offenders == []
