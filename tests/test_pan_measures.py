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
from qacamp.kinds import KINDS
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
    # PAN 2020's table was computed by the evaluator before its F0.5u fix, which took
    # the 0.5 (a same-author problem) as a "same author" decision: TP 2, FP 1, FN 0
    f05_published = 1.25 * 2 / (1.25 * 2 + 1)
    for edition, want in (("2014", a * c), (2015, a * c),
                          ("2020", (a + c + f05_published + f1) / 4),
                          (2021, (a + c + f05 + f1 + b) / 5), ("2022", (a + c + f05 + f1 + b) / 5),
                          ("2023", (a + c + f05 + f1 + b) / 5)):
        assert pan.overall(VALUES, TRUTH, edition) == pytest.approx(want, abs=1e-15), edition
    assert pan.overall(VALUES, TRUTH, "2020", "current") == pytest.approx(
        (a + c + f05 + f1) / 4, abs=1e-15)
    assert pan.overall(VALUES, TRUTH, "2022", "published") == pytest.approx(
        (a + c + f05_published + f1 + b) / 5, abs=1e-15)


def test_published_evaluator_takes_half_as_same_author():
    """The evaluator before "Fix F_0.5 calculation" (2021-05-28) binarised the
    F0.5u input with ``>= 0.5 -> 1``: a 0.5 on a same-author problem is a TP, on a
    different-authors problem an FP, and nu is 0.  Nothing else changes."""
    t = np.array([True, True, False, False, True])
    v = np.array([0.9, 0.5, 0.5, 0.2, 0.1])   # TP, U(same), U(diff), TN, FN
    # current: TP 1, FP 0, FN 1, nu 2 -> 1.25 / (1.25 + 0.25 * 3)
    assert pan.f_05_u(v, t) == pytest.approx(1.25 / 2.0, abs=1e-15)
    # published: TP 2, FP 1, FN 1, nu 0 -> 2.5 / (2.5 + 0.25 + 1)
    assert pan.f_05_u(v, t, "published") == pytest.approx(2.5 / 3.75, abs=1e-15)
    both = {ev: pan.evaluate(v, t, ("auc", "c_at_1", "f1", "brier"), evaluator=ev)
            for ev in pan.EVALUATORS}
    assert both["published"] == both["current"]
    assert pan.check_evaluator(None, "2020") == "published"
    assert [pan.check_evaluator(None, e) for e in ("2014", "2015", "2021", "2022", "2023")] \
        == ["current"] * 5
    assert pan.check_evaluator(None) == "current"
    with pytest.raises(UsageError, match="published, current"):
        pan.check_evaluator("2020-06", "2020")


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
    # run a = the hand example reordered: p1 0.7 T, p2 0.5 T, p3 0.3 F, p4 0.6 F;
    # 2020's default evaluator (published) takes p2's 0.5 as a TP: 2.5 / (2.5 + 1)
    assert a["auc"] == 0.75 and a["f_05_u"] == pytest.approx(2.5 / 3.5)
    current = pan_frames.score_runs(values, truth, 2020, "current")
    assert dict(current.filter(pl.col("run") == "a").select("measure", "value")
                .iter_rows())["f_05_u"] == pytest.approx(0.5)
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
    assert set(pan.ARRAY_MEASURES) <= set(KINDS["pan"].measures)
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


def test_pan14_text_format_reads_like_json_lines(tmp_path, capsys):
    """PAN 2014-2015: `PROBLEM SCORE` answers and `PROBLEM Y|N` truth (the organizers'
    pan14/pan15 Octave scripts' input) read exactly as the JSON lines of the same
    content; scored as 2014 (AUC x c@1), by hand."""
    from qacamp.cli import main
    from qacamp.errors import InputError
    from qacamp.readers import pan as reader

    truth = {"EN001": True, "EN002": False, "EN003": True, "EN004": False}
    answers = {"EN001": "0.7", "EN002": "0.3", "EN003": "0.5", "EN004": "0.6"}
    txt, jsn = tmp_path / "txt", tmp_path / "jsn"
    for d in (txt / "run1", jsn / "run1"):
        d.mkdir(parents=True)
    (txt / "truth.txt").write_text("".join(f"{q} {'Y' if v else 'N'}\n" for q, v in truth.items()))
    (txt / "run1" / "answers.txt").write_text("\ufeff" + "".join(
        f"{q} {v}\n" for q, v in answers.items()))
    (jsn / "truth.jsonl").write_text("".join(
        f'{{"id": "{q}", "same": {str(v).lower()}}}\n' for q, v in truth.items()))
    (jsn / "run1" / "answers.jsonl").write_text("".join(
        f'{{"id": "{q}", "value": {v}}}\n' for q, v in answers.items()))
    assert reader.is_text_format(txt / "truth.txt") and not reader.is_text_format(
        jsn / "truth.jsonl")
    q1, o1 = reader.read_truth(txt / "truth.txt")
    q2, o2 = reader.read_truth(jsn / "truth.jsonl")
    assert q1.equals(q2) and o1.equals(o2)
    r1 = reader.read_answers(txt / "run1" / "answers.txt", q1, o1)
    r2 = reader.read_answers(jsn / "run1" / "answers.jsonl", q2, o2)
    assert r1[0].equals(r2[0]) and r1[1].equals(r2[1])
    capsys.readouterr()
    assert main(["eval", "pan", "--truth", str(txt / "truth.txt"), "--edition", "2014",
                 "-m", "overall", "--precision", "full",
                 str(txt / "run1" / "answers.txt")]) == 0
    # the hand example of test_hand_computed_example: AUC 3/4, c@1 2.5/4
    assert float(capsys.readouterr().out.splitlines()[1].split("\t")[-1]) == \
        pytest.approx(0.75 * 0.625, abs=1e-15)
    for name, text, match in (
            ("truth.txt", "EN001 Y\nEN002 maybe\n", "line 2.*same is 'maybe'"),
            ("truth.txt", "EN001 Y extra\n", "line 1.*3 fields, expected 2"),
            ("run1/answers.txt", "EN001 0x1\n", "line 1.*not a plain decimal"),
            ("run1/answers.txt", "EN001 Y\n", "line 1.*not a plain decimal"),
            ("run1/answers.txt", "EN002 0.2\nEN001 1.5\n", r"line 2.*not a number in \[0, 1\]"),
            ("run1/answers.txt", "EN009 0.2\n", "line 1.*not in the truth file")):
        path = tmp_path / "bad" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        with pytest.raises(InputError, match=match):
            if name == "truth.txt":
                reader.read_truth(path)
            else:
                reader.read_answers(path, q1, o1)
