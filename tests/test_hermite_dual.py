"""Hermite coefficients and dual activations: golden values and independent routes."""
import math

import numpy as np
import pytest
import sympy as sp

import theory
from theory.gaussian import mc_expectation

RELU_GOLDEN = [1 / math.sqrt(2 * math.pi), 0.5, 1 / (2 * math.sqrt(math.pi)), 0.0,
               -1 / (4 * math.sqrt(3 * math.pi))]  # c_4 = −1/sqrt(48π), by hand


def test_relu_golden_coefficients_three_routes():
    ex = theory.hermite_coefficients("relu", 4, kind="exact")
    mp = theory.hermite_coefficients("relu", 4, kind="mpmath")
    fl = theory.hermite_coefficients("relu", 4, kind="float")
    for k, g in enumerate(RELU_GOLDEN):
        assert float(ex[k]) == pytest.approx(g, abs=1e-15)
        assert float(mp[k]) == pytest.approx(g, abs=1e-15)
        assert fl[k] == pytest.approx(g, abs=1e-13)


def test_exact_coefficients_closed_forms():
    c = theory.hermite_coefficients("exp", 5, kind="exact")
    for k in range(6):
        assert sp.simplify(c[k] - sp.exp(sp.Rational(1, 2)) / sp.sqrt(sp.factorial(k))) == 0
    s = theory.hermite_coefficients("sin", 5, kind="exact")
    assert sp.simplify(s[3] + sp.exp(-sp.Rational(1, 2)) / sp.sqrt(6)) == 0
    assert s[2] == 0


def test_exact_coefficients_beyond_degree_40():
    """kind="exact" is exact at every degree (the degree-40 switch is auto's alone): exp's c_k = √e/√(k!) as sympy
    expressions up to k = 44, and an activation without closed forms refused, not answered by quadrature."""
    c = theory.hermite_coefficients("exp", 44, kind="exact")
    assert len(c) == 45 and all(isinstance(e, sp.Expr) for e in c)
    assert sp.simplify(c[44] - sp.exp(sp.Rational(1, 2)) / sp.sqrt(sp.factorial(44))) == 0
    with pytest.raises(theory.ActivationError, match="no closed-form Hermite coefficients"):
        theory.hermite_coefficients("tanh", 44, kind="exact")


@pytest.mark.parametrize("name", ["tanh", "gelu", "selu", "softplus", "elu"])
def test_float_vs_mpmath_coefficients(name):
    fl = theory.hermite_coefficients(name, 12, kind="float")
    mp = theory.hermite_coefficients(name, 12, kind="mpmath", dps=25)
    assert np.max(np.abs(fl - np.array([float(v) for v in mp]))) < 1e-12


def test_hermite_orthonormal():
    gx, gw = np.polynomial.hermite_e.hermegauss(120)
    H = theory.hermite_values(40, gx)
    M = (H * gw) @ H.T / math.sqrt(2 * math.pi)
    assert np.max(np.abs(M - np.eye(41))) < 1e-10


def test_parseval_sum_of_squares_equals_variance():
    for name in ("tanh", "sin", "gelu"):
        c = theory.hermite_coefficients(name, 150, kind="float")
        assert np.sum(c[1:] ** 2) == pytest.approx(theory.variance(name), rel=1e-12)


DUAL_ACTS = ["relu", "step", "exp", "sin", "cos", "erf", "leaky_relu", "he3", "identity"]


@pytest.mark.parametrize("name", DUAL_ACTS)
def test_closed_form_dual_vs_quadrature_vs_series(name):
    r = np.array([-1.0, -0.7, -0.2, 0.0, 0.4, 0.85, 0.999, 1.0])
    cf = theory.dual_activation(name, r)
    q = theory.dual_quadrature(name, r)
    assert np.max(np.abs(cf - q)) < 1e-11
    s = theory.DualSeries(name, 200)
    lo, hi = s.bracket(r)
    c0 = theory.hermite_coefficients(name, 0, kind="float")[0]
    assert np.all(cf - c0 ** 2 >= lo - 1e-12) and np.all(cf - c0 ** 2 <= hi + 1e-12)


@pytest.mark.parametrize("name", ["tanh", "selu", "sigmoid"])
def test_numeric_dual_vs_monte_carlo(name):
    act = theory.activation(name)
    nd = theory.numeric_dual(name)
    rng = np.random.default_rng(3)
    for r in (-0.5, 0.6):
        N = 400_000
        x = rng.standard_normal(N)
        y = r * x + math.sqrt(1 - r * r) * rng.standard_normal(N)
        p = act.numpy(x) * act.numpy(y)
        z = abs(p.mean() - float(nd.hat(np.array([r]))[0])) / (p.std() / math.sqrt(N))
        assert z < 4.5


def test_mean_reduced_dual_relative_accuracy_near_zero():
    nd = theory.numeric_dual("relu")
    r = np.array([1e-30, 1e-200])
    c1sq = 0.25
    assert np.allclose(nd.bar(r) / r, c1sq, rtol=1e-10)


def test_mc_expectation_matches_exact():
    m, se, n = mc_expectation(theory.activation("relu").numpy, 200_000, seed=1)
    assert abs(m - 1 / math.sqrt(2 * math.pi)) < 4.5 * se


@pytest.mark.parametrize("name,degrees", [("tanh", (-1, None)), ("relu", (None, 1)), ("gelu", (None, 1)),
                                          ("step", (0, None)), ("he4", (4, -1)), ("cos", (None, -1)),
                                          ("x**3 + x**2", (2, 3)), ("exp", (None, None)), ("selu", (None, None))])
def test_parity_zeros_are_exact_and_agree_with_the_quadrature(name, degrees):
    """The symbolic parity statement against the raw float quadrature (before any zeroing): every coefficient it
    declares zero is below the route's accuracy, and every route reports it as an exact zero."""
    from theory.hermite import _float_coefficients, parity_zero_degrees
    act = theory.activation(name)
    assert parity_zero_degrees(act) == degrees
    raw = _float_coefficients(act, 30)
    fl = theory.hermite_coefficients(act, 30, kind="float")
    mp = theory.hermite_coefficients(act, 8, kind="mpmath")
    zeros = [k for k in range(31) if (degrees[k % 2] is not None and k > degrees[k % 2])]
    for k in zeros:
        assert abs(raw[k]) < 1e-13 * max(1.0, float(np.max(np.abs(raw)))) and fl[k] == 0.0
        if k <= 8:
            assert mp[k].value == 0.0 and mp[k].error == 0.0
    kept = [k for k in range(31) if k not in zeros]
    assert np.array_equal(fl[kept], raw[kept])
    assert all(mp[k].error > 0.0 or mp[k].value != 0.0 for k in kept if k <= 8 and abs(raw[k]) > 1e-10)


def test_the_series_skips_only_terms_below_its_stated_tail_and_both_evaluations_agree():
    """NumericDual.bar for |ρ| ≤ 1/2 sums the Hermite series only up to DualSeries.terms_for(max|ρ|) terms. Against
    ReLU's arc-cosine closed form σ̄(ρ) = (√(1−ρ²) + (π − arccos ρ)ρ)/(2π) − 1/(2π) (an independent route) the error
    is that of the float c_k (≤ 1e-14), and no larger than with all 96 terms (the skipped terms are below 2^-97 c_k²
    each); the cumulative-product evaluation of small arrays and Horner's rule of large ones agree to a few ulps."""
    s = theory.DualSeries("relu", 96)
    # c_1² = 1/4, Var σ = 1/2 − 1/(2π): K = ⌈(97 ln 2 + ln(Var σ/c_1²))/(−ln m)⌉ below |ρ| = m
    assert [s.terms_for(m) for m in (0.0, 1e-100, 1e-3, 0.1, 0.5, 0.9)] == [0, 1, 10, 30, 96, 96]
    nd = theory.numeric_dual("relu")
    for scale in (0.5, 0.1, 1e-3):
        r = np.random.default_rng(1).uniform(-scale, scale, 300)
        exact = (np.sqrt(1 - r * r) + (np.pi - np.arccos(r)) * r) / (2 * np.pi) - 1 / (2 * np.pi)
        err, err_all_terms = np.abs(nd.bar(r) - exact), np.abs(nd._series.mean_reduced(r) - exact)
        rounding = 4 * np.finfo(float).eps * np.abs(exact)
        assert err.max() < 1e-14 and np.all(err <= err_all_terms + rounding + 2 ** -96 * s.var)
    he2 = theory.numeric_dual("x**2 - 1")         # c_1 = 0: σ̄(ρ) = 2ρ² exactly, relative accuracy down to ρ ~ 1e-150
    r = np.array([1e-150, -3e-80, 1e-20, 0.01, 0.3])
    assert he2.bar(r) == pytest.approx(2 * r * r, rel=1e-14)
    r = np.random.default_rng(2).uniform(-0.5, 0.5, 4000)               # Horner's rule (4000 × 96 > 2^14)
    small = np.concatenate([s.mean_reduced(r[i:i + 100]) for i in range(0, 4000, 100)])   # cumulative products
    assert np.max(np.abs(s.mean_reduced(r) - small)) < 4 * np.finfo(float).eps * s.var
