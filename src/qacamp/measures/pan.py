"""PAN authorship verification measures (PAN 2014-2015, 2020-2023), as PAN's evaluators compute them.

A run gives every problem a value in [0, 1] (the probability that the two texts
have the same author); the truth says whether they have (``True`` = positive).
The rules, from the organizers' evaluator of 2020-2023 (``pan20_verif_evaluator``
and ``pan22_verif_evaluator``, pan-code repository, MIT licence; the 2014-2015
Octave scripts follow the same rules for AUC and c@1):

- "A score of *exactly* 0.5, will be considered a non-decision"; a value > 0.5
  decides "same author", < 0.5 "different authors".
- "All problems which are present in the ground truth, but which are *not*
  provided an answer to by the system, will automatically be set to 0.5"
  (:func:`qacamp.measures.pan_frames.align` fills them).
- AUC: ROC AUC over all problems, the non-answers (0.5) included: the
  Mann-Whitney statistic with average ranks for tied values (a tied
  (positive, negative) pair counts 1/2), which is the area under the ROC curve
  with ties as diagonal segments (scikit-learn's ``roc_auc_score``, and Fawcett's
  algorithm in the 2014-2015 scripts).
- c@1 = (nc + nu * nc / n) / n (Peñas & Rodrigo 2011): nc decided right, nu
  non-answers (missing problems included), n all problems.
- F1: "Non-answers are removed for the F1 score calculation", then
  F1 = 2 TP / (2 TP + FP + FN) with "same author" the positive class.
- F0.5u (Bevendorff et al. 2019): non-answers count as false negatives,
  F0.5u = 1.25 TP / (1.25 TP + 0.25 (FN + nu) + FP).  That is the evaluator
  since its commit "Fix F_0.5 calculation" (4a56c34, 2021-05-28), evaluator
  ``current``.  Before it (evaluator ``published``, the version that computed
  the PAN 2020 organizers' table) the F0.5u input was binarised with
  ``>= 0.5 -> 1``: a value of exactly 0.5 (and a missing problem) counted as a
  "same author" decision, so nu was always 0 and such a problem was a TP or
  an FP.  Only F0.5u (and so ``overall``) differs between the two; the
  campaign key ``pan_evaluator`` chooses, its default follows the edition
  (:data:`EVALUATOR_DEFAULTS`, docs/semantics.md).
- Brier: reported as its complement, 1 - (1/n) sum (value - truth)^2, over all
  problems (non-answers included as 0.5).
- overall: the mean of the edition's measures (PAN 2020: AUC, c@1, F0.5u, F1;
  PAN 2021-2023: the same and Brier; the PAN 2021 overview compares the runs
  "using five diverse evaluation metrics" and its evaluator averages five);
  PAN 2014-2015: the final score AUC x c@1 (Stamatatos et al. 2014, 2015).
  The official scripts round the printed values to 3 decimals; qacamp keeps
  full precision (rounding is the report's job).

Degenerate cases, decided here (tested in ``tests/test_pan_measures.py``):

- AUC when the truth has one class only: 0.0, the 2020-2023 evaluator's own rule
  (``except ValueError: return 0.0``, what it printed with the scikit-learn of
  those years; scikit-learn 1.6 and later return NaN instead, and the 2014
  Octave script divides 0 by 0).  A number is needed to rank runs and to
  resample small subsets; 0.0 makes every run tie on such a subset.
- An empty denominator gives 0.0 (the project's convention, and
  scikit-learn's ``zero_division`` default for F-measures): F1 when every value
  is 0.5 (the official script stops with an error there), F0.5u when the truth
  and every decision are negative (the official script divides by zero), and
  every measure of an empty vector (no problems).

Functions take ``values`` shaped (..., n) (problems on the last axis, e.g.
runs x problems) and ``truth`` broadcastable to it, and return a float64 array
of shape ``values.shape[:-1]``.  The same kernels (:func:`from_cells`) score
the subsets of the reliability analyses (``qacamp.reliability.matrix``).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..errors import UsageError
from ._cite import BRIER, F05U, PAN2014, PAN2015, PAN2020, PAN2021, PAN2022, PAN2023
from .record import Measure

#: a value of exactly 0.5 is a non-answer; a missing problem counts 0.5
NON_ANSWER = 0.5
#: AUC when the truth of the problems has one class only (see module docstring)
SINGLE_CLASS_AUC = 0.0

_FOUR = ("auc", "c_at_1", "f_05_u", "f1")
#: edition -> the measures that enter its overall / final score, in the
#: official evaluator's order (the order of its mean)
EDITIONS: dict[str, tuple[str, ...]] = {
    "2014": ("auc", "c_at_1"), "2015": ("auc", "c_at_1"),
    "2020": _FOUR, "2021": (*_FOUR, "brier"), "2022": (*_FOUR, "brier"),
    "2023": (*_FOUR, "brier"),
}
#: editions whose final score is the product AUC x c@1 (the others: the mean)
PRODUCT_EDITIONS = ("2014", "2015")
#: the measures the array functions and the score matrix compute
ARRAY_MEASURES = ("auc", "c_at_1", "f_05_u", "f1", "brier", "overall")
#: the edition of a campaign that names none: the newest evaluator's rules
DEFAULT_EDITION = "2023"
#: F0.5u rules: ``published`` = the evaluator before its commit "Fix F_0.5
#: calculation" (2021-05-28; a value of exactly 0.5 is a "same author"
#: decision), ``current`` = since that commit (0.5 is a non-answer)
EVALUATORS = ("published", "current")
#: the evaluator whose numbers each edition's published table shows: PAN 2020's
#: table was computed before the fix (its organizers' metrics.xlsx equals the
#: 2020-06 evaluator, not today's); PAN 2021's results were computed after it
#: (the fix was committed to the 2021 evaluator on 2021-05-28, before the
#: 2021 baselines were added and rerun for TIRA in June 2021); 2022-2023 use
#: evaluators written after it; 2014-2015 report no F0.5u (AUC x c@1)
EVALUATOR_DEFAULTS: dict[str, str] = {"2014": "current", "2015": "current",
                                      "2020": "published", "2021": "current",
                                      "2022": "current", "2023": "current"}

MEASURES = (
    Measure("auc", "pan", "ROC AUC over all problems (non-answers 0.5 and missing problems "
            "included); tied values count 1/2; 0 when the truth has one class only.",
            "(sum_{p same} rank(p) - n1 (n1 + 1) / 2) / (n1 n0), average ranks for ties",
            f"{PAN2014}; {PAN2020}", "order", unit="problem", label="AUC", aggregator="pan"),
    Measure("f1", "pan", "F1 of the decisions (value > 0.5 = same author) with the "
            "non-answers (value 0.5, missing problems) removed; 0 when nothing is decided.",
            "2 TP / (2 TP + FP + FN) over the answered problems", PAN2020, "counts",
            unit="problem", label="F1", aggregator="pan"),
    Measure("f_05_u", "pan", "F0.5u: F0.5 of the decisions with every non-answer counted "
            "as a false negative (pan_evaluator current); the evaluator that computed PAN "
            "2020's table (pan_evaluator published) took a value of exactly 0.5 as a same-author "
            "decision (nU = 0); 0 when the denominator is 0.",
            "1.25 TP / (1.25 TP + 0.25 (FN + nU) + FP)", f"{F05U}; {PAN2020}", "counts",
            unit="problem", label="F0.5u", aggregator="pan"),
    Measure("brier", "pan", "Complement of the Brier score over all problems (non-answers "
            "and missing problems as 0.5), as PAN reports it; 0 with no problems.",
            "1 - (1/n) sum_p (value_p - same_p)^2", f"{BRIER}; {PAN2021}; {PAN2022}", "mean",
            unit="problem", label="Brier", aggregator="pan"),
    Measure("overall", "pan", "The edition's final score: the mean of its measures "
            "(2020: AUC, c@1, F0.5u, F1; 2021-2023: the same and Brier) or, in 2014-2015, "
            "AUC x c@1; the campaign's edition key decides.",
            "2020: mean(AUC, c@1, F0.5u, F1); 2021-2023: mean(AUC, c@1, F0.5u, F1, Brier); "
            "2014-2015: AUC x c@1",
            f"{PAN2014}; {PAN2015}; {PAN2020}; {PAN2021}; {PAN2022}; {PAN2023}", "order",
            unit="problem", label="overall", aggregator="pan"),
)

# outcome category of a (problem, run) cell: non-answers split by the truth
# (_U different authors, _UP same author) so that the published F0.5u can
# count them as the "same author" decisions it took them for
_U, _TP, _FP, _FN, _TN, _UP = range(6)


# ----------------------------------------------------------------------------- editions
def check_edition(edition: object) -> str:
    """The edition as a string key of :data:`EDITIONS`; :class:`UsageError` if unknown."""
    key = str(edition).strip() if edition is not None else ""
    if key not in EDITIONS:
        raise UsageError(f"PAN edition {edition!r} is not known; use one of "
                         + ", ".join(EDITIONS))
    return key


def check_evaluator(evaluator: object, edition: object | None = None) -> str:
    """The F0.5u rules of :data:`EVALUATORS`; ``None`` takes the edition's default
    (:data:`EVALUATOR_DEFAULTS`; ``current`` without an edition)."""
    if evaluator is None:
        return "current" if edition is None else EVALUATOR_DEFAULTS[check_edition(edition)]
    if evaluator not in EVALUATORS:
        raise UsageError(f"PAN evaluator {evaluator!r} is not known; use one of "
                         + ", ".join(EVALUATORS))
    return str(evaluator)


def edition_measures(edition: object) -> tuple[str, ...]:
    """The measures of the edition's results table: its components, then ``overall``."""
    return (*EDITIONS[check_edition(edition)], "overall")


def check_measure(measure: str, edition: object | None) -> str | None:
    """Validate a measure of :data:`ARRAY_MEASURES`; returns the edition key
    (required for ``overall`` only, else ``None`` unless given)."""
    if measure not in ARRAY_MEASURES:
        raise UsageError(f"PAN measure {measure!r}: use one of {', '.join(ARRAY_MEASURES)}")
    if measure == "overall" and edition is None:
        raise UsageError("the PAN measure 'overall' needs the campaign's edition "
                         f"({', '.join(EDITIONS)})")
    return None if edition is None else check_edition(edition)


def needs(measures: Iterable[str], edition: object | None = None) -> frozenset[str]:
    """Which cell arrays (``keys``, ``cats``, ``loss``) the measures need."""
    out: set[str] = set()
    for m in measures:
        ed = check_measure(m, edition)
        if m == "overall":
            out |= needs(EDITIONS[ed])
        else:
            out.add({"auc": "keys", "brier": "loss"}.get(m, "cats"))
    return frozenset(out)


# ----------------------------------------------------------------------------- cells
def _key_dtype(n: int) -> type:
    for dtype in (np.int16, np.int32):
        if 2 * n + 1 <= np.iinfo(dtype).max:
            return dtype
    return np.int64


def rank_keys(values: np.ndarray, truth: np.ndarray, axis: int = -1) -> np.ndarray:
    """Sort keys ``2 * code + truth`` with ``code`` the dense rank of the value
    along ``axis`` (equal values, equal code): sorting a subset's keys orders its
    problems by value, negatives before positives among equal values."""
    v = np.asarray(values, dtype=np.float64)
    t = np.broadcast_to(np.asarray(truth, dtype=bool), v.shape)
    v, t = np.moveaxis(v, axis, -1), np.moveaxis(t, axis, -1)
    n = v.shape[-1]
    dtype = _key_dtype(n)
    if n == 0:
        return np.moveaxis(np.zeros(v.shape, dtype), -1, axis)
    # equal values get one code whatever their order among themselves, so any
    # sort does; NaN (each its own code) needs the stable one's order
    order = np.argsort(v, axis=-1, kind="stable" if np.isnan(v).any() else None)
    srt = np.take_along_axis(v, order, axis=-1)
    step = np.zeros(srt.shape, np.int64)
    step[..., 1:] = srt[..., 1:] != srt[..., :-1]
    code = np.empty_like(step)
    np.put_along_axis(code, order, np.cumsum(step, axis=-1), axis=-1)
    return np.moveaxis((2 * code + t).astype(dtype), -1, axis)


def categories(values: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Outcome of each cell (int8): TP, FP, FN, TN (value > 0.5 = same) or a
    non-answer (value 0.5), the latter split by the truth."""
    v = np.asarray(values, dtype=np.float64)
    t = np.broadcast_to(np.asarray(truth, dtype=bool), v.shape)
    cats = np.where(v > NON_ANSWER, np.where(t, _TP, _FP), np.where(t, _FN, _TN)).astype(np.int8)
    cats[(v == NON_ANSWER) & ~t] = _U
    cats[(v == NON_ANSWER) & t] = _UP
    return cats


def losses(values: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Squared error ``(value - truth)^2`` of each cell (float64)."""
    v = np.asarray(values, dtype=np.float64)
    return (v - np.asarray(truth, dtype=bool).astype(np.float64)) ** 2


def cells(values: np.ndarray, truth: np.ndarray, need: Iterable[str],
          axis: int = -1) -> dict[str, np.ndarray]:
    """The cell arrays in ``need`` (``keys`` ranks along ``axis``, the problem axis)."""
    v = np.asarray(values, dtype=np.float64)
    t = np.broadcast_to(np.asarray(truth, dtype=bool), v.shape)
    make = {"keys": lambda: rank_keys(v, t, axis), "cats": lambda: categories(v, t),
            "loss": lambda: losses(v, t)}
    return {name: make[name]() for name in sorted(need)}


# ----------------------------------------------------------------------------- kernels
def auc_from_keys(keys: np.ndarray) -> np.ndarray:
    """AUC from the (unsorted) :func:`rank_keys` of a set of problems, (..., c) -> (...).

    After sorting, a positive's Mann-Whitney count is the negatives below its
    value plus half those tied with it; with negatives sorted first among equal
    values that is ``(negatives before its group) + (negatives before it)``
    halved.  Integer sums, one division: exact up to the final rounding."""
    c = keys.shape[-1]
    if c == 0:
        return np.full(keys.shape[:-1], SINGLE_CLASS_AUC)
    srt = np.sort(keys, axis=-1, kind="stable")  # radix sort for 16-bit keys
    pos = (srt & 1).astype(bool)
    cnt = np.int32 if c < 2**31 - 1 else np.int64
    before = np.cumsum(~pos, axis=-1, dtype=cnt)
    before -= ~pos  # negatives strictly before each position
    code = srt >> 1
    first = np.empty(srt.shape, bool)
    first[..., 0] = True
    np.not_equal(code[..., 1:], code[..., :-1], out=first[..., 1:])
    group = np.maximum.accumulate(np.where(first, before, 0), axis=-1)
    u2 = np.where(pos, group.astype(np.int64) + before, 0).sum(axis=-1)
    n1 = pos.sum(axis=-1, dtype=np.int64)
    den = 2 * n1 * (c - n1)
    return np.where(den > 0, u2 / np.maximum(den, 1), SINGLE_CLASS_AUC)


def _counts(cats: np.ndarray) -> dict[str, np.ndarray]:
    k = {name: np.count_nonzero(cats == code, axis=-1).astype(np.int64)
         for name, code in (("un", _U), ("up", _UP), ("tp", _TP), ("fp", _FP), ("fn", _FN),
                            ("tn", _TN))}
    k["u"] = k["un"] + k["up"]
    return k


def _div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, 0.0 where den == 0."""
    den = np.asarray(den, dtype=np.float64)
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


def _c_at_1(k: dict[str, np.ndarray], n: int) -> np.ndarray:
    # (1 / n) * (nc + nu * nc / n), the official evaluator's expression
    nc = (k["tp"] + k["tn"]).astype(np.float64)
    if n == 0:
        return np.zeros(nc.shape)
    return (1.0 / n) * (nc + k["u"] * nc / n)


def _f1(k: dict[str, np.ndarray]) -> np.ndarray:
    return _div(2.0 * k["tp"], 2 * k["tp"] + k["fp"] + k["fn"])


def _f_05_u(k: dict[str, np.ndarray], evaluator: str = "current") -> np.ndarray:
    if evaluator == "published":  # 0.5 binarised to 1: a non-answer is a TP or an FP
        tp, fp, u = k["tp"] + k["up"], k["fp"] + k["un"], 0
    else:
        tp, fp, u = k["tp"], k["fp"], k["u"]
    return _div(1.25 * tp, 1.25 * tp + 0.25 * (k["fn"] + u) + fp)


def _brier(loss: np.ndarray) -> np.ndarray:
    n = loss.shape[-1]
    if n == 0:
        return np.zeros(loss.shape[:-1])
    return 1.0 - loss.sum(axis=-1) / n


def from_cells(measures: Iterable[str], edition: object | None = None,
               keys: np.ndarray | None = None, cats: np.ndarray | None = None,
               loss: np.ndarray | None = None, evaluator: str | None = None
               ) -> dict[str, np.ndarray]:
    """Measures from cell arrays shaped (..., c) (problems of one set on the last
    axis; only those :func:`needs` says): ``{measure: array (...)}``.
    ``evaluator``: the F0.5u rules (:func:`check_evaluator`)."""
    measures = tuple(measures)
    ed = None if edition is None else check_edition(edition)
    ev = check_evaluator(evaluator, ed)
    for m in measures:
        check_measure(m, ed)
    parts = set(measures)
    if "overall" in parts:
        parts |= set(EDITIONS[ed])
    present = [a for a in (keys, cats, loss) if a is not None]
    if not present:
        raise UsageError("from_cells needs at least one cell array")
    n = present[0].shape[-1]
    out: dict[str, np.ndarray] = {}
    if "auc" in parts:
        out["auc"] = auc_from_keys(keys)
    if parts & {"c_at_1", "f1", "f_05_u"}:
        k = _counts(cats)
        out.update({"c_at_1": _c_at_1(k, n), "f1": _f1(k), "f_05_u": _f_05_u(k, ev)})
    if "brier" in parts:
        out["brier"] = _brier(loss)
    if "overall" in parts:
        comps = EDITIONS[ed]
        if ed in PRODUCT_EDITIONS:
            out["overall"] = out["auc"] * out["c_at_1"]
        else:  # the mean, summed left to right in the evaluator's order
            total = out[comps[0]].copy()
            for m in comps[1:]:
                total = total + out[m]
            out["overall"] = total / len(comps)
    return {m: out[m] for m in measures}


# ----------------------------------------------------------------------------- arrays
def evaluate(values: np.ndarray, truth: np.ndarray, measures: Iterable[str] | None = None,
             edition: object | None = None, evaluator: str | None = None
             ) -> dict[str, np.ndarray]:
    """Measures of ``values`` (..., n) against ``truth`` (default: the edition's
    table, :func:`edition_measures`); ``evaluator``: the F0.5u rules (default
    the edition's, :func:`check_evaluator`)."""
    measures = tuple(edition_measures(edition) if measures is None else measures)
    return from_cells(measures, edition, **cells(values, truth, needs(measures, edition)),
                      evaluator=evaluator)


def auc(values: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """ROC AUC (see module docstring)."""
    return evaluate(values, truth, ("auc",))["auc"]


def c_at_1(values: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """c@1 with value 0.5 = non-answer."""
    return evaluate(values, truth, ("c_at_1",))["c_at_1"]


def f1(values: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """F1 over the answered problems."""
    return evaluate(values, truth, ("f1",))["f1"]


def f_05_u(values: np.ndarray, truth: np.ndarray, evaluator: str = "current") -> np.ndarray:
    """F0.5u (``current``: non-answers as false negatives; ``published``: 0.5 as
    a "same author" decision)."""
    return evaluate(values, truth, ("f_05_u",), evaluator=evaluator)["f_05_u"]


def brier(values: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """1 - Brier loss."""
    return evaluate(values, truth, ("brier",))["brier"]


def overall(values: np.ndarray, truth: np.ndarray, edition: object,
            evaluator: str | None = None) -> np.ndarray:
    """The edition's final score (F0.5u by ``evaluator``, default the edition's)."""
    return evaluate(values, truth, ("overall",), edition, evaluator)["overall"]
