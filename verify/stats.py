"""Small statistics used by the checks (confidence intervals, fitted rates). Stated, not hidden."""
from __future__ import annotations

import math

import numpy as np
from .lazy import lazy_module

_st = lazy_module("scipy.stats")  # loaded on first use


def mean_ci(values, confidence: float = 0.95):
    """Mean and Student-t confidence interval of i.i.d. samples: (mean, (lo, hi), n)."""
    v = np.asarray(values, dtype=float).ravel()
    n = v.size
    m = float(np.mean(v))
    if n < 2:
        return m, (m, m), n
    se = float(np.std(v, ddof=1)) / math.sqrt(n)
    t = float(_st.t.ppf(0.5 + confidence / 2, n - 1))
    return m, (m - t * se, m + t * se), n


def normal_ci(mean: float, se: float, confidence: float = 0.95):
    z = float(_st.norm.ppf(0.5 + confidence / 2))
    return (mean - z * se, mean + z * se)


def fit_log_rate(layers, values, confidence: float = 0.95):
    """Fit log(values) = a − r·layer by least squares; return (r, (lo, hi)) with a t-interval.

    ``r`` is the per-layer decay rate of ``values`` (so values ∝ e^{−r ℓ}).
    """
    x = np.asarray(layers, dtype=float)
    y = np.log(np.asarray(values, dtype=float))
    res = _st.linregress(x, y)
    n = x.size
    t = float(_st.t.ppf(0.5 + confidence / 2, max(n - 2, 1)))
    r = -float(res.slope)
    return r, (r - t * float(res.stderr), r + t * float(res.stderr))


def ratio_of_means(numerators, denominators):
    """The ratio of means R = mean(x)/mean(y) of paired i.i.d. samples and its delta-method standard error
    se = sd(x − R·y)/(√n·mean(y)) (the linearisation of the ratio estimator): (R, se, n). With n < 2 or a zero
    mean denominator the standard error is ``nan`` (nothing can be decided from it)."""
    x = np.asarray(numerators, dtype=float).ravel()
    y = np.asarray(denominators, dtype=float).ravel()
    if x.shape != y.shape:
        raise ValueError("ratio_of_means: numerators and denominators must be paired (same length)")
    n = x.size
    if n == 0 or not np.all(np.isfinite(x)) or not np.all(np.isfinite(y)) or float(np.mean(y)) == 0.0:
        return math.nan, math.nan, n
    r = float(np.mean(x) / np.mean(y))
    if n < 2:
        return r, math.nan, n
    return r, float(np.std(x - r * y, ddof=1) / (math.sqrt(n) * abs(np.mean(y)))), n


def t_quantile(p: float, df: int) -> float:
    """The p-quantile of Student's t with ``df`` degrees of freedom (``nan`` when df < 1)."""
    return float(_st.t.ppf(p, df)) if df >= 1 else math.nan
