"""Isometry, γ, Lemma A.4 and β_σ: golden values, exact rationals, property-based tests."""
import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, strategies as st
from hypothesis.extra.numpy import arrays

import theory

GOLDEN_BETA = {  # Table 2 and values computed to 30 digits (mpmath), checked against sympy
    "relu": (3 * math.pi - 4) / (2 * math.pi - 2),
    "step": 2 - 2 / math.pi,
    "sin": 2 - 2 * math.e / (math.e ** 2 - 1),
    "exp": 2 - 1 / (math.e - 1),
    "identity": 1.0,
    "he2": 2.0,
    "tanh": 1.069530076384705,
    "sigmoid": 1.015832833108798,
    "gelu": 1.276712478659475,
}


@pytest.mark.parametrize("name,value", GOLDEN_BETA.items())
def test_beta_golden(name, value):
    assert float(theory.isometry_strength(name)) == pytest.approx(value, rel=1e-14)


def test_beta_exact_expression():
    b = theory.isometry_strength("relu")
    assert sp.simplify(b.exact - (3 * sp.pi - 4) / (2 * sp.pi - 2)) == 0
    assert b.method.startswith("exact")
    assert theory.isometry_strength("tanh").exact is None


def test_isometry_basic():
    assert theory.isometry(np.eye(4)) == pytest.approx(1.0)
    assert theory.isometry(3 * np.eye(4)) == pytest.approx(1.0)
    assert theory.isometry(np.ones((3, 3))) == pytest.approx(0.0, abs=1e-5)
    assert theory.isometry_gap(np.ones((3, 3))) == math.inf
    with pytest.raises(theory.DeepinitError):
        theory.isometry(np.array([[1.0, np.nan], [np.nan, 1.0]]))


def test_isometry_gap_accurate_near_identity():
    rng = np.random.default_rng(0)
    E = rng.standard_normal((6, 6)) * 1e-40
    E = (E + E.T) / 2
    np.fill_diagonal(E, 0)
    G = np.eye(6) + E
    # −log 𝓘 ≈ ‖E‖_F²/(2n) for tiny off-diagonals
    assert theory.isometry_gap(G) == pytest.approx(np.sum(E * E) / 12, rel=1e-8)
    # against mpmath at a moderate size
    G2 = np.array([[1, 0.3, -0.2], [0.3, 1, 0.1], [-0.2, 0.1, 1.0]])
    with mpmath.workdps(40):
        ref = -mpmath.log(mpmath.det(mpmath.matrix(G2.tolist()))) / 3
    assert theory.isometry_gap(G2) == pytest.approx(float(ref), rel=1e-13)


def _gram(X):
    return X.T @ X


batches = arrays(np.float64, st.tuples(st.integers(3, 9), st.integers(2, 5)),
                 elements=st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False))


@given(batches, st.floats(1e-6, 1e6))
def test_property_scale_invariance_and_range(X, c):
    G = _gram(X)
    if np.trace(G) < 1e-6 or np.linalg.cond(G) > 1e8:
        return
    v = float(theory.isometry(G))
    assert -1e-12 <= v <= 1 + 1e-12
    assert float(theory.isometry(c * G)) == pytest.approx(v, rel=1e-8)


@given(batches, st.lists(st.floats(-6, 6), min_size=5, max_size=5))
def test_property_theorem1(X, logscales):
    n = X.shape[1]
    X = X * 10.0 ** np.array(logscales[:n])
    a = np.linalg.norm(X, axis=0)
    if np.any(a == 0) or X.shape[0] < n or np.linalg.cond(_gram(X / a)) > 1e10:
        return  # singular: both sides are 0 (checked exactly in the claim's rational test)
    lhs = theory.log_isometry(_gram(X / a))
    rhs = theory.log_isometry(_gram(X)) + math.log1p(np.var(a) / np.mean(a) ** 2)
    assert lhs >= rhs - 1e-8 * (1 + abs(rhs))


@given(arrays(np.float64, st.tuples(st.integers(3, 8), st.integers(2, 6)),
              elements=st.floats(-10, 10, allow_nan=False)))
def test_property_lemma_a4(X):
    n = X.shape[1]
    a = np.linalg.norm(X, axis=0)
    if np.any(a < 1e-6):
        return
    G = _gram(X / a)
    lower, det, upper = theory.lemma_a4_bounds(G)
    assert det <= upper + 1e-12
    if not math.isnan(lower):
        assert lower <= det + 1e-12


def test_lemma_a4_adversarial_equicorrelated():
    for n in (2, 5, 20):
        m = 1 / (n - 1)
        G = (1 - m) * np.eye(n) + m * np.ones((n, n))
        lower, det, upper = theory.lemma_a4_bounds(G)
        assert lower == pytest.approx(0.0, abs=1e-14) and det <= upper


def test_gram_potential():
    G = np.array([[4.0, 1.0], [1.0, 1.0]])  # normalised off-diagonal 1/2 → γ = 1
    assert theory.gram_potential(G) == pytest.approx(1.0)
    assert theory.gram_potential(np.ones((2, 2))) == math.inf
