"""Dunnett's test of several treatments against one control (Dunnett 1955, "A
multiple comparison procedure for comparing several treatments with a
control", JASA 50): with ``k`` comparisons and the statistics ``t_r = (m_r -
m_base) / sqrt(2 V_E / n)``, ``p_r = 1 - P(max_j |T_j| <= |t_r|)``, ``T``
multivariate t with ``df`` degrees of freedom and correlation 1/2; the
probability as the double integral ``E[(Phi(X + c sqrt(2) S) - Phi(X - c
sqrt(2) S))^k]`` over ``X ~ N(0, 1)`` (Gauss-Hermite) and ``S ~ chi_df /
sqrt(df)`` (scipy's ``quad``); the simultaneous interval ``d +/- c_(1-alpha)
sqrt(2 V_E / n)``.  The ANOVA's baseline kernel
(:func:`qacamp.reliability.significance.anova_tukey.baseline_columns`) uses it."""

from __future__ import annotations

import math

import numpy as np

#: Gauss-Hermite nodes of Dunnett's inner integral
_HERMITE = np.polynomial.hermite.hermgauss(96)


def dunnett_tail(c: float, k: int, df: float) -> float:
    """``P(max_j |T_j| > c)`` for ``k`` comparisons with a control, ``T``
    multivariate t with ``df`` degrees of freedom and correlation 1/2: the
    double integral of ``1 - (1 - Phi(a - X) - Phi(-a - X))^k``, ``a = c
    sqrt(2) S``, computed as ``-expm1(k log1p(-tails))`` so that small
    p-values keep their relative precision."""
    from scipy.integrate import quad
    from scipy.special import ndtr
    from scipy.stats import chi

    if c <= 0:
        return 1.0
    x = math.sqrt(2.0) * _HERMITE[0]
    w = _HERMITE[1] / math.sqrt(math.pi)

    def inner(s: float) -> float:
        a = c * math.sqrt(2.0) * s
        tails = np.minimum(1.0, ndtr(x - a) + ndtr(-x - a))
        with np.errstate(divide="ignore"):
            return float(w @ -np.expm1(k * np.log1p(-tails)))

    root = math.sqrt(df)
    lo, hi = chi.ppf(1e-15, df) / root, chi.isf(1e-15, df) / root
    mid = chi.ppf(0.5, df) / root
    val, _ = quad(lambda s: inner(s) * root * chi.pdf(s * root, df), lo, hi, points=[mid],
                  epsabs=0.0, epsrel=1e-11, limit=200)
    return min(1.0, max(0.0, val))


def dunnett_p(t: np.ndarray, k: int, df: float) -> np.ndarray:
    """Two-sided Dunnett p-values of the statistics ``t``."""
    return np.array([dunnett_tail(abs(float(v)), k, df) for v in t])


def dunnett_critical(alpha: float, k: int, df: float) -> float:
    """``c`` with ``P(max_j |T_j| > c) = alpha``."""
    from scipy.optimize import brentq

    return float(brentq(lambda c: dunnett_tail(c, k, df) - alpha, 1e-9, 60.0,
                        xtol=1e-14, rtol=1e-14))


__all__ = ["dunnett_critical", "dunnett_p", "dunnett_tail"]
