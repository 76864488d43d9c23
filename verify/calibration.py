"""Calibration of a reported Monte Carlo standard error by an independent route.

A standard error is a reported value like any other: a √2-too-large one cannot turn a verdict that holds (every
interval only widens), so it is checked by itself. K independent replicates θ̂_k of the same Monte Carlo, each with
the standard error se_k it reports, and s̄² = mean_k se_k² (the pooled reported variance):

* with the exact value θ known by an independent route (a closed form, never the helper under test),
  χ² = Σ_k (θ̂_k − θ)²/s̄² is χ²_K-distributed when the standard error is calibrated (:func:`known_value_row`);
* without one, the replicates' own spread: F = Σ_k (θ̂_k − θ̄)²/((K − 1) s̄²) is F(K − 1, ν)-distributed, ν the
  degrees of freedom of the pooled s̄² (ν = ∞: χ²_{K−1}/(K − 1)) (:func:`replicate_spread_row`).

Each row passes when its statistic lies in the equal-tailed interval of that distribution at ``confidence``
(99.9%). A standard error off by a factor f moves the statistic to ≈ 1/f²: √2 too large gives ≈ 1/2, outside the
interval once K ≳ 200 (K = 400: [0.78, 1.25]).

The variance is pooled rather than the z_k = (θ̂_k − θ)/se_k squared one by one: for skewed summands (products of
relus) θ̂_k and se_k are correlated, which inflates E z_k² above 1 at small sample sizes (measured for
:func:`numerics.meanfield_map_mc`, relu, 1000 draws: mean z² = 1.065 over 200 rows of K = 400, against 1.008 for
the pooled ratio), while s̄² only averages se_k², whose mean is the estimator's variance.
"""
from __future__ import annotations

import math

import numpy as np

from .core import Evidence
from .lazy import lazy_module

_st = lazy_module("scipy.stats")  # loaded on first use

#: the confidence of a calibration row's two-sided interval
CALIBRATION_CONF = 0.999


def replicate_seeds(seed: int, tag: int, count: int) -> list[int]:
    """``count`` independent seeds for the replicates of one calibration, derived from the run's ``seed`` and a
    ``tag`` naming the calibration (numpy's SeedSequence; the same arguments, the same seeds).

    Parameters
    ----------
    seed : int
        The run's seed (``ctx.seed``).
    tag : int
        A number naming the calibration (distinct calibrations of one claim use distinct tags).
    count : int
        How many seeds.

    Returns
    -------
    list of int
        Seeds below 2³².

    Examples
    --------
    >>> from verify.calibration import replicate_seeds
    >>> replicate_seeds(0, 1, 3) == replicate_seeds(0, 1, 3), len(set(replicate_seeds(0, 1, 100)))
    (True, 100)
    """
    state = np.random.SeedSequence([int(seed), int(tag)]).generate_state(int(count), dtype=np.uint32)
    return [int(s) for s in state]


def _row(name: str, stat: float, interval: tuple, samples: int, label: str, note: str) -> Evidence:
    lo, hi = float(interval[0]), float(interval[1])
    return Evidence(name, theory=1.0, numeric=stat, observed=stat, bound=(lo, hi), statistic=label,
                    confidence=CALIBRATION_CONF, samples=samples, passed=bool(lo <= stat <= hi),
                    note=f"{label} = {stat:.4f}, two-sided {100 * CALIBRATION_CONF:g}% interval [{lo:.4f}, {hi:.4f}]; "
                         f"a standard error √2 too large gives ≈ 0.5, √2 too small ≈ 2; " + note)


def known_value_row(name: str, estimates, ses, exact: float, note: str = "") -> Evidence:
    """The reported standard errors of K replicate estimates of a value known exactly: χ²/K =
    Σ_k (θ̂_k − θ)²/Σ_k se_k², against the equal-tailed 99.9% interval of χ²_K/K.

    Parameters
    ----------
    name : str
        The row's name (what is calibrated, in the paper's notation).
    estimates : array_like
        The K replicate estimates θ̂_k (independent).
    ses : array_like
        The standard error each replicate reports.
    exact : float
        The exact value θ, from an independent route.
    note : str
        Appended to the row's note (the setting and how θ is known).

    Returns
    -------
    Evidence
        ``statistic="χ²/K"``, ``observed`` its value, ``bound`` the interval (lo, hi), ``samples`` = K.

    Examples
    --------
    >>> import numpy as np
    >>> from verify.calibration import known_value_row
    >>> rng = np.random.default_rng(0)
    >>> x = rng.standard_normal((400, 100))                     # 400 replicates of a mean of 100 N(0, 1)
    >>> se = x.std(axis=1, ddof=1) / 10
    >>> known_value_row("mean", x.mean(axis=1), se, 0.0).passed
    True
    >>> known_value_row("mean, se ×√2", x.mean(axis=1), np.sqrt(2) * se, 0.0).passed
    False
    """
    est, se = np.asarray(estimates, dtype=float).ravel(), np.asarray(ses, dtype=float).ravel()
    K = est.size
    stat = float(np.sum((est - exact) ** 2) / np.sum(se ** 2))
    interval = _st.chi2.ppf([(1 - CALIBRATION_CONF) / 2, (1 + CALIBRATION_CONF) / 2], K) / K
    return _row(name, stat, interval, K, "χ²/K",
                f"K = {K} replicates; exact value {exact:.10g}; rms reported SE {math.sqrt(np.mean(se ** 2)):.3g}, "
                f"rms error {math.sqrt(np.mean((est - exact) ** 2)):.3g}" + (f"; {note}" if note else ""))


def replicate_spread_row(name: str, estimates, ses, se_dof: float = math.inf, note: str = "") -> Evidence:
    """The reported standard errors of K replicate estimates against their own spread (no exact value):
    F = Σ_k (θ̂_k − θ̄)²/((K − 1)·mean_k se_k²), against the equal-tailed 99.9% interval of F(K − 1, ``se_dof``).

    Parameters
    ----------
    name : str
        The row's name (what is calibrated, in the paper's notation).
    estimates : array_like
        The K replicate estimates θ̂_k (independent, identically distributed).
    ses : array_like
        The standard error each replicate reports.
    se_dof : float
        The degrees of freedom of the pooled mean_k se_k² (K(S − 1) for standard errors of means of S values each;
        ``inf``: χ²_{K−1}/(K − 1)).
    note : str
        Appended to the row's note (the setting).

    Returns
    -------
    Evidence
        ``statistic="F"``, ``observed`` its value, ``bound`` the interval (lo, hi), ``samples`` = K.

    Examples
    --------
    >>> import numpy as np
    >>> from verify.calibration import replicate_spread_row
    >>> x = np.random.default_rng(0).standard_normal((400, 3))  # 400 replicates of a mean of 3 values
    >>> se = x.std(axis=1, ddof=1) / np.sqrt(3)
    >>> replicate_spread_row("mean", x.mean(axis=1), se, se_dof=400 * 2).passed
    True
    >>> replicate_spread_row("mean, se ×√2", x.mean(axis=1), np.sqrt(2) * se, se_dof=400 * 2).passed
    False
    """
    est, se = np.asarray(estimates, dtype=float).ravel(), np.asarray(ses, dtype=float).ravel()
    K = est.size
    stat = float(np.var(est, ddof=1) / np.mean(se ** 2))
    p = [(1 - CALIBRATION_CONF) / 2, (1 + CALIBRATION_CONF) / 2]
    interval = (_st.chi2.ppf(p, K - 1) / (K - 1) if math.isinf(se_dof) else _st.f.ppf(p, K - 1, se_dof))
    return _row(name, stat, interval, K, "F",
                f"K = {K} replicates; F(K − 1, {se_dof:g}); rms reported SE {math.sqrt(np.mean(se ** 2)):.3g}, "
                f"spread of the estimates {float(np.std(est, ddof=1)):.3g}" + (f"; {note}" if note else ""))
