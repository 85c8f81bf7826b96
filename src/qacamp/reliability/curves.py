"""Error-rate curves of the swap method and their two estimators.

Voorhees 2003 fits, per difference bin, "curves of the form" ``e(c) = a
exp(-b c)`` to the error rates observed at subset sizes ``c`` and
extrapolates them to the full collection; Voorhees 2005 uses "the best-fit
exponential curve".  Neither paper says how the curve is fitted.  A model
name is ``<form>-<estimator>``:

forms
    ``exp``: ``e(c) = a exp(-b c)``; ``power``: ``e(c) = a c^-b``;
    ``logit``: ``e(c) = 1 / (1 + exp(-(a - b c)))``.  In every form ``b > 0``
    means the error falls as the subsets grow.

estimators
    ``binomial`` (the default, ``exp-binomial``): maximum likelihood of
    ``swaps ~ Binomial(comparisons, e(c))`` over every fitted size, sizes
    without a swap included (Newton's method with step halving on the
    log-likelihood, which is concave in the linear predictor for these
    links).  ``loglinear``: least squares on ``log e(c)`` (``exp``: against
    ``c``; ``power``: against ``log c``), which has to drop the sizes without
    a swap (``log 0``) and so over-estimates small error rates: on a true
    curve ``0.2 exp(-0.03 c)`` with 60 comparisons at each size 21..250 it
    extrapolates ``e(500)`` to about 2e-4 instead of 6e-8
    (``tests/test_reliability_fits.py`` shows both).

The binomial likelihood has no finite maximum when no size has a swap (the
maximum-likelihood curve is then 0 everywhere: ``a = 0``, ``b = 0``, or for
``logit`` ``a = -inf``) or when the swaps all fall on one extreme size (the
slope runs off to infinity); :func:`fit_curve` reports the latter as a
failure with a reason instead of a number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import UsageError

#: model name -> (form, estimator)
MODELS: dict[str, tuple[str, str]] = {
    "exp-binomial": ("exp", "binomial"),
    "exp-loglinear": ("exp", "loglinear"),
    "power-binomial": ("power", "binomial"),
    "power-loglinear": ("power", "loglinear"),
    "logit-binomial": ("logit", "binomial"),
}
DEFAULT_MODEL = "exp-binomial"
#: names used before the estimator was part of the name
_RENAMED = {"exp": "exp-loglinear", "power": "power-loglinear", "logit": "logit-binomial"}
_FORMULAS = {"exp": "e(c) = a exp(-b c)", "power": "e(c) = a c^-b",
             "logit": "e(c) = 1/(1 + exp(-(a - b c)))"}
_ESTIMATORS = {"binomial": "binomial maximum likelihood (sizes without swaps included)",
               "loglinear": "least squares on log error rates (sizes without swaps dropped)"}
MAX_ITERATIONS = 200


def check_model(model: str) -> tuple[str, str]:
    """(form, estimator) of a model name; :class:`UsageError` for unknown names."""
    if model in MODELS:
        return MODELS[model]
    hint = (f" ('{model}' was renamed: the former fit is '{_RENAMED[model]}')"
            if model in _RENAMED else "")
    raise UsageError(f"model {model!r}: use one of {', '.join(MODELS)}{hint}")


def describe_model(model: str) -> str:
    """One line naming the curve and how it is fitted (for captions and logs)."""
    form, est = check_model(model)
    return f"{_FORMULAS[form]} fitted by {_ESTIMATORS[est]}"


def model_error(model: str, a: float, b: float, c):
    """The fitted error rate at size(s) ``c`` (``model`` may also be a bare form)."""
    form = model if model in _FORMULAS else check_model(model)[0]
    c = np.asarray(c, dtype=np.float64)
    if form == "exp":
        return a * np.exp(-b * c)
    if form == "power":
        return a * c ** (-b)
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-(a - b * c)))


#: sizes beyond this are reported as "never" (no collection is that large)
MAX_SIZE = 10**9


def size_at_level(model: str, a: float, b: float, level: float) -> int | None:
    """Smallest integer size ``>= 1`` whose modelled error is ``<= level``
    (None when the curve never gets there, or only beyond :data:`MAX_SIZE`)."""
    form = check_model(model)[0]
    if float(model_error(form, a, b, 1.0)) <= level:
        return 1
    if b <= 0:
        return None
    if form == "exp":
        c = math.log(a / level) / b
    elif form == "power":
        c = math.exp(math.log(a / level) / b)
    else:
        c = (a - math.log(level / (1 - level))) / b
    if not c < MAX_SIZE:
        return None
    k = max(1, math.ceil(c - 1e-9))
    while float(model_error(form, a, b, k)) > level:  # guard the float rounding of ceil
        k += 1
    return k


@dataclass(frozen=True)
class Curve:
    """A fitted curve: ``a``, ``b`` (None when there is none) and why not."""

    a: float | None
    b: float | None
    reason: str | None = None


def _predictor(form: str, c: np.ndarray) -> np.ndarray:
    """The covariate x of the linear predictor ``eta = alpha + b x``."""
    return -np.log(c) if form == "power" else -c


def _loglik(eta: np.ndarray, k: np.ndarray, n: np.ndarray, link: str) -> float:
    if link == "log":
        if np.any(eta >= 0):  # p = exp(eta) must stay below 1 where there are comparisons
            return -math.inf
        return float(np.sum(k * eta) + np.sum((n - k) * np.log(-np.expm1(eta))))
    return float(np.sum(k * eta) - np.sum(n * np.logaddexp(0.0, eta)))


def _newton(x: np.ndarray, k: np.ndarray, n: np.ndarray, link: str) -> tuple[float, float] | None:
    """Maximum-likelihood (alpha, beta) of ``eta = alpha + beta x``; None if no convergence."""
    xm = float(np.mean(x))
    xc = x - xm  # centred covariate: a well-conditioned 2x2 system
    design = np.column_stack([np.ones_like(xc), xc])
    p0 = float(k.sum() / n.sum())
    theta = np.array([math.log(p0) if link == "log" else math.log(p0 / (1 - p0)), 0.0])
    ll = _loglik(design @ theta, k, n, link)
    for _ in range(MAX_ITERATIONS):
        eta = design @ theta
        p = np.exp(eta) if link == "log" else 1.0 / (1.0 + np.exp(-eta))
        if link == "log":
            score, weight = (k - n * p) / (1 - p), (n - k) * p / (1 - p) ** 2
        else:
            score, weight = k - n * p, n * p * (1 - p)
        grad = design.T @ score
        hess = (design * weight[:, None]).T @ design
        try:
            step = np.linalg.solve(hess, grad)
        except np.linalg.LinAlgError:
            return None
        t = 1.0
        while True:  # step halving: never accept a lower likelihood
            new = theta + t * step
            ll_new = _loglik(design @ new, k, n, link)
            if ll_new >= ll - 1e-12 * abs(ll):
                break
            t /= 2
            if t < 1e-12:
                return None
        theta, ll = new, ll_new
        if np.max(np.abs(t * step)) < 1e-10 * (1.0 + np.max(np.abs(theta))):
            return float(theta[0] - theta[1] * xm), float(theta[1])
    return None


def fit_curve(model: str, c, swaps, comparisons) -> Curve:
    """Fit one bin: sizes ``c``, swaps and comparisons at each size (comparisons > 0).

    The caller selects the sizes (those ``>= min_fit_size``).  Returns the
    curve's ``a`` and ``b``; ``a``/``b`` are None with a ``reason`` when the
    estimator cannot give a curve (fewer than 3 usable sizes, no finite
    maximum of the likelihood, no convergence).
    """
    form, est = check_model(model)
    c = np.asarray(c, np.float64)
    k = np.asarray(swaps, np.float64)
    n = np.asarray(comparisons, np.float64)
    if np.any(n <= 0) or np.any(k < 0) or np.any(k > n):
        raise UsageError("swap counts need 0 <= swaps <= comparisons and comparisons > 0")
    if est == "loglinear":
        keep = k > 0
        if len(np.unique(c[keep])) < 3:
            return Curve(None, None, "fewer than 3 sizes with swaps (log-linear least squares "
                                     "drops sizes without swaps)")
        x = c[keep] if form == "exp" else np.log(c[keep])
        slope, intercept = np.polyfit(x, np.log(k[keep] / n[keep]), 1)
        return Curve(float(math.exp(intercept)), float(-slope))
    if len(np.unique(c)) < 3:
        return Curve(None, None, "fewer than 3 fitted sizes")
    if k.sum() == n.sum():
        return Curve(None, None, "every comparison is a swap: no maximum-likelihood fit")
    if k.sum() == 0:  # the likelihood is largest for the zero curve
        return Curve(-math.inf if form == "logit" else 0.0, 0.0)
    with_swaps = np.unique(c[k > 0])
    if len(with_swaps) == 1 and with_swaps[0] == c.min():
        return Curve(None, None, "no finite maximum-likelihood fit: swaps only at the "
                                 "smallest fitted size")
    if len(with_swaps) == 1 and with_swaps[0] == c.max():
        return Curve(None, None, "fit rises with size: swaps only at the largest fitted size")
    got = _newton(_predictor(form, c), k, n, "logit" if form == "logit" else "log")
    if got is None:
        return Curve(None, None, "maximum-likelihood fit did not converge")
    alpha, beta = got
    return Curve(alpha if form == "logit" else math.exp(alpha), beta)


__all__ = ["MODELS", "DEFAULT_MODEL", "Curve", "check_model", "describe_model", "fit_curve",
           "model_error", "size_at_level"]
