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
