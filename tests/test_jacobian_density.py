"""The eigenvalue law of JJᵀ by free probability (theory.jacobian_density) against closed forms — Fuss–Catalan for
linear Gaussian networks, the arcsine law of two free projections for ReLU with orthogonal weights at depth 2,
Marchenko–Pastur at ratio ½ for ReLU with Gaussian weights at depth 1 — against the moment formula
(theory.jacobian_spectrum_moments) and against finite networks (numerics.jacobian_eigenvalues_mc)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from numerics import jacobian_eigenvalues_mc
from theory import fuss_catalan_density, jacobian_spectral_density, jacobian_spectrum_moments
from theory.errors import DeepinitError, UndefinedQuantityError
from theory.jacobian_density import bernoulli_fraction

HARD_TANH = "min(max(x, -1), 1)"


@pytest.mark.parametrize("depth", [1, 3, 20])
def test_linear_gaussian_is_fuss_catalan(depth):
    law = jacobian_spectral_density("identity", 1.0, 0.0, depth, q1=1.0)
    phi = math.pi / (depth + 1) * np.concatenate([np.linspace(0.01, 0.99, 25), 1 - np.logspace(-3, -12, 10)])
    x, ref = fuss_catalan_density(depth, phi)
    assert np.max(np.abs(law.pdf(x) / ref - 1)) < 1e-11                  # down to x ~ 1e-300 at depth 20
    assert law.edges[-1] == pytest.approx((depth + 1) ** (depth + 1) / depth ** depth, rel=1e-13)
    assert law.atom == 0 and law.mass.value == pytest.approx(1.0, abs=1e-12)
    # moments: Fuss–Catalan numbers C(s+1)k choose k / (sk + 1): 1 and s + 1
    assert law.moment(1).value == pytest.approx(1.0, abs=1e-12)
    assert law.moment(2).value == pytest.approx(depth + 1, rel=1e-12)
    assert law.continuous_mass().value == pytest.approx(1.0, abs=1e-10)


def test_relu_orthogonal_depth_two_is_the_arcsine_law_of_two_free_projections():
    """JJᵀ = 4·D₂OD₁²OᵀD₂: the product of two free projections of trace ½ — an atom ½ at 0 and the density
    1/(2π√(λ(4 − λ))) on (0, 4), divergent at both ends."""
    law = jacobian_spectral_density("relu", 2.0, 0.0, 2, q1=1.0, weights="orthogonal")
    x = np.array([1e-250, 1e-30, 1e-3, 1.0, 2.0, 3.9, 4 - 1e-9])
    assert np.max(np.abs(law.pdf(x) * 2 * np.pi * np.sqrt(x * (4 - x)) - 1)) < 1e-9
    assert law.atom == 0.5 and law.top_atom[1].value == 0.0
    u = np.array([0.55, 0.75, 0.99])
    assert law.quantile(u) == pytest.approx(4 * np.sin(np.pi * (u - 0.5)) ** 2, rel=1e-10)
    lam = np.array([0.5, 2.0, 3.5])
    assert law.cdf(lam) == pytest.approx(0.5 + np.arcsin(np.sqrt(lam / 4)) / np.pi, abs=1e-10)
    m1 = law.moment(1)
    assert abs(m1.value - 1.0) <= m1.error and m1.error < 1e-8           # the error bound covers the truth


def test_relu_gaussian_depth_one_is_marchenko_pastur_at_ratio_half():
    """D W Wᵀ D with half the rows zeroed: a (N/2) × N Gaussian matrix of variance 2/N — MP at ratio ½ on
    [2(1 − 1/√2)², 2(1 + 1/√2)²] with a gap above 0."""
    law = jacobian_spectral_density("relu", 2.0, 0.0, 1, q1=1.0)
    lo, hi = 2 * (1 - 2 ** -0.5) ** 2, 2 * (1 + 2 ** -0.5) ** 2
    assert law.support == (pytest.approx((lo, hi), rel=1e-12),)
    x = np.linspace(lo, hi, 9)[1:-1]
    shape = law.pdf(x) * x / np.sqrt((hi - x) * (x - lo))                # MP: ρ ∝ √((b − x)(x − a))/x
    assert np.ptp(shape) < 1e-10 * shape.mean()
    assert law.continuous_mass().value == pytest.approx(0.5, abs=1e-10)
    assert law.pdf(np.array([0.1])) == 0.0                              # the gap


@pytest.mark.parametrize("weights", ["gaussian", "orthogonal"])
@pytest.mark.parametrize("case", ["relu", "hard-tanh-critical", "hard-tanh-off-fixed-point"])
def test_moments_of_the_law_equal_the_moment_formula(case, weights):
    act, sw, sb, q1, depth = {"relu": ("relu", 2.0, 0.0, 0.7, 6),
                              "hard-tanh-critical": (HARD_TANH, 1 / math.erf(1 / math.sqrt(0.6)), 0.0157204, 0.3, 8),
                              "hard-tanh-off-fixed-point": (HARD_TANH, 1.3, 0.2, 2.0, 5)}[case]
    law = jacobian_spectral_density(act, sw, sb, depth, q1=q1, weights=weights)
    mom = jacobian_spectrum_moments(act, sw, sb, depth, q1=q1, weights=weights)
    m1, m2 = law.moment(1), law.moment(2)
    assert m1.value == pytest.approx(mom.mean.value, rel=1e-9)
    assert m2.value - m1.value ** 2 == pytest.approx(mom.variance.value, rel=1e-8)
    assert law.mass.value == pytest.approx(min(law.p), abs=1e-10)          # −M(0⁻): all but the atom at 0
    if weights == "orthogonal":
        top = law.top_atom[1].value
        assert law.continuous_mass().value + top == pytest.approx(law.mass.value, abs=1e-8)
        if top > 1e-3:                                                      # an atom: the residue agrees
            assert law.top_atom_residue().value == pytest.approx(top, abs=1e-8)


def test_hard_tanh_orthogonal_has_an_atom_at_the_top_edge():
    """At q* = 0.3, p = erf(1/√0.6) = 0.9321: depth 4 leaves 1 − 4(1 − p) = 0.7284 of the vectors untouched by every
    D, which JJᵀ maps to (σ_w²)^L·x exactly — finite networks have that fraction of eigenvalues at (σ_w²)^L."""
    q = 0.3
    p, _ = bernoulli_fraction(HARD_TANH, q)
    assert p == pytest.approx(math.erf(1 / math.sqrt(2 * q)), rel=1e-15)
    sw = 1 / p
    sb = 0.015720386258270935
    law = jacobian_spectral_density(HARD_TANH, sw, sb, 4, q1=q, weights="orthogonal")
    loc, w = law.top_atom
    assert loc == pytest.approx(sw ** 4, rel=1e-14) and w.value == pytest.approx(1 - 4 * (1 - p), rel=1e-14)
    ev = jacobian_eigenvalues_mc(HARD_TANH, sw, sb, 4, width=256, seeds=6, q1=q, weights="orthogonal", seed=3)
    frac = (np.abs(ev - loc) <= 1e-9 * loc).mean(1)
    assert abs(frac.mean() - w.value) <= 4 * frac.std(ddof=1) / math.sqrt(6) + 1 / 256
    assert law.cdf(np.array([loc * (1 - 1e-12)]))[0] == pytest.approx(1 - w.value, abs=1e-9)
    assert law.cdf(np.array([loc]))[0] == 1.0
    assert law.cdf(np.array([-1.0, 0.0]))[0] == 0.0 and law.cdf(np.array([0.0]))[0] == law.atom == pytest.approx(1 - p)
    assert law.cdf(np.array([1e-200]))[0] == pytest.approx(law.atom, abs=1e-9)     # no density mass near 0 here


@pytest.mark.parametrize("weights", ["gaussian", "orthogonal"])
def test_finite_networks_follow_the_law(weights):
    """ReLU at L = 3, N = 400, 6 networks: the empirical distribution of the eigenvalues above 10⁻⁸E is within the
    0.001 critical value of Kolmogorov's distance for that many i.i.d. points (1.95/√n) of the law's. (At these
    sizes the small eigenvalues still move by O(1/N) — the 0.3-quantile by 20% in λ — so this is a consistency check;
    the law's exactness rests on the closed forms above and its moments.)"""
    law = jacobian_spectral_density("relu", 2.0, 0.0, 3, q1=1.0, weights=weights)
    ev = jacobian_eigenvalues_mc("relu", 2.0, 0.0, 3, width=400, seeds=6, q1=1.0, weights=weights, seed=11)
    floor = 1e-8 * law.edges[-1]
    lo = float(law.cdf(np.array([floor]))[0])
    x = np.sort(ev[ev > floor])
    emp = (np.arange(1, len(x) + 1) - 0.5) / len(x)
    model = (law.cdf(x) - lo) / (1 - lo)
    assert np.max(np.abs(model - emp)) < 1.95 / math.sqrt(len(x))


def test_refusals_are_one_line_errors():
    with pytest.raises(DeepinitError, match="piecewise constant"):
        jacobian_spectral_density("tanh", 1.0, 0.0, 3, q1=1.0)
    with pytest.raises(DeepinitError, match="takes the values"):
        jacobian_spectral_density("leaky_relu", 2.0, 0.0, 3, q1=1.0)
    with pytest.raises(UndefinedQuantityError, match="Dirac"):
        jacobian_spectral_density("step", 2.0, 0.0, 3, q1=1.0)
    with pytest.raises(UndefinedQuantityError, match="point mass"):
        jacobian_spectral_density("identity", 1.0, 0.0, 3, q1=1.0, weights="orthogonal")
    with pytest.raises(UndefinedQuantityError, match="point masses"):
        jacobian_spectral_density("relu", 2.0, 0.0, 1, q1=1.0, weights="orthogonal")
    with pytest.raises(DeepinitError, match="weights"):
        jacobian_spectral_density("relu", 2.0, 0.0, 2, weights="unitary")
    with pytest.raises(DeepinitError, match="depth"):
        jacobian_spectral_density("relu", 2.0, 0.0, 0)
    law = jacobian_spectral_density("relu", 2.0, 0.0, 2, q1=1.0)
    with pytest.raises(DeepinitError, match="quantile"):
        law.quantile([0.0])
