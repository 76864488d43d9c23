"""Small statistics used by the checks (confidence intervals, fitted rates). Stated, not hidden."""
from __future__ import annotations

import math

import numpy as np
from .lazy import lazy_module

_st = lazy_module("scipy.stats")  # loaded on first use


def mean_ci(values, confidence: float = 0.95):
    """The mean of i.i.d. samples and its Student-t confidence interval.

    Parameters
    ----------
    values : array_like
        The samples.
    confidence : float
        The interval's level.

    Returns
    -------
    tuple
        ``(mean, (lo, hi), n)``.

    Examples
    --------
    >>> from verify.api import mean_ci
    >>> m, (lo, hi), n = mean_ci([1.0, 2.0, 3.0])
    >>> m, n, round(hi - m, 4)
    (2.0, 3, 2.4841)
    """
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
    """The per-layer decay rate r of ``values`` ∝ e^{−r·layer}: a least-squares fit of log(values) = a − r·layer.

    Parameters
    ----------
    layers : array_like
        The layers.
    values : array_like
        Positive values, one per layer.
    confidence : float
        The level of the t-interval of r.

    Returns
    -------
    tuple
        ``(r, (lo, hi))``.

    Examples
    --------
    >>> import numpy as np
    >>> from verify.api import fit_log_rate
    >>> r, (lo, hi) = fit_log_rate([1, 2, 3, 4], np.exp(-0.5 * np.array([1, 2, 3, 4])))
    >>> round(r, 12), round(lo, 12) == round(hi, 12) == 0.5
    (0.5, True)
    """
    x = np.asarray(layers, dtype=float)
    y = np.log(np.asarray(values, dtype=float))
    res = _st.linregress(x, y)
    n = x.size
    t = float(_st.t.ppf(0.5 + confidence / 2, max(n - 2, 1)))
    r = -float(res.slope)
    return r, (r - t * float(res.stderr), r + t * float(res.stderr))


def ratio_of_means(numerators, denominators):
    """The ratio of means R = mean(x)/mean(y) of paired i.i.d. samples and its delta-method standard error.

    se = sd(x − R·y)/(√n·mean(y)), the linearisation of the ratio estimator. With n < 2 or a zero mean denominator the
    standard error is ``nan`` (nothing can be decided from it).

    Parameters
    ----------
    numerators : array_like
        The x samples.
    denominators : array_like
        The y samples, paired with x.

    Returns
    -------
    tuple
        ``(R, se, n)``.

    Examples
    --------
    >>> from verify.api import ratio_of_means
    >>> R, se, n = ratio_of_means([2.0, 4.0, 6.0], [1.0, 2.0, 3.0])
    >>> R, se, n
    (2.0, 0.0, 3)
    """
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
    """The p-quantile of Student's t distribution.

    Parameters
    ----------
    p : float
        The probability.
    df : int
        The degrees of freedom.

    Returns
    -------
    float
        The quantile; ``nan`` when df < 1.

    Examples
    --------
    >>> from verify.api import t_quantile
    >>> round(t_quantile(0.975, 10), 4), t_quantile(0.975, 0)
    (2.2281, nan)
    """
    return float(_st.t.ppf(p, df)) if df >= 1 else math.nan
