"""The spectrum of JJᵀ for any φ at the fixed point (theory.jacobian_density_smooth) against independent routes:
the rational equation of theory.jacobian_density where φ′² is two-valued, the closed-form moments of
theory.jacobian_spectrum_moments (m₁ = (σ_w² μ₁)^L and σ² from μ₂), and finite networks' eigenvalues
(numerics.jacobian_eigenvalues_mc) with a ±5% control."""
from __future__ import annotations

import numpy as np
import pytest

from numerics import jacobian_eigenvalues_mc
from theory import jacobian_spectral_density, jacobian_spectrum_moments
from theory.errors import DeepinitError
from theory.jacobian_density_smooth import jacobian_spectral_density_smooth

HARD_TANH = "min(max(x, -1), 1)"


@pytest.mark.parametrize("weights", ["gaussian", "orthogonal"])
def test_a_two_valued_derivative_gives_the_rational_law(weights):
    """Hard tanh (φ′² ∈ {0, 1}) at its fixed point: the general solver on the rule for φ′(h)² equals the rational
    route's density to 1e-8 relative across the support."""
    rational = jacobian_spectral_density(HARD_TANH, 1.3, 0.05, 4, weights=weights)
    general = jacobian_spectral_density_smooth(HARD_TANH, 1.3, 0.05, 4, weights=weights)
    top = rational.edges[-1]
    lam = top * np.array([0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.97])
    a, b = general.pdf(lam), rational.pdf(lam)
    assert np.all(b > 0) and np.max(np.abs(a - b) / b) < 1e-8, (a, b)


@pytest.mark.parametrize("act, sw, sb, depth, weights", [
    ("tanh", 1.05, 0.01, 8, "orthogonal"), ("tanh", 1.05, 0.01, 8, "gaussian"), ("erf", 1.2, 0.02, 2, "orthogonal")])
def test_moments_equal_the_closed_forms(act, sw, sb, depth, weights):
    """∫ρ = 1, ∫λρ = m₁ and the variance σ² of the closed forms, each within the stated error (and 1e-5)."""
    law = jacobian_spectral_density_smooth(act, sw, sb, depth, weights=weights)
    ref = jacobian_spectrum_moments(act, sw, sb, depth, weights=weights)
    m0, m1, m2 = (law.moment(k) for k in (0, 1, 2))
    assert abs(m0.value - 1) <= m0.error + 1e-12 and abs(m0.value - 1) < 1e-5
    assert abs(m1.value - ref.mean.value) <= m1.error + ref.mean.error and abs(m1.value / ref.mean.value - 1) < 1e-5
    var = m2.value - m1.value ** 2
    assert abs(var - ref.variance.value) <= m2.error + 2 * m1.value * m1.error + ref.variance.error
    assert abs(var / ref.variance.value - 1) < 1e-4
    assert law.mean == pytest.approx(ref.mean.value, rel=1e-9)


def test_finite_orthogonal_tanh_networks_follow_the_law_and_a_5pct_scaling_is_rejected():
    """16 tanh networks of width 256, depth 4, orthogonal weights at the fixed point: the per-network fraction of
    eigenvalues below five of the sample's quantiles agrees with the law's distribution function within 4 standard
    errors plus 1/N; the law of 1.05·λ (every eigenvalue 5% larger) is rejected at one of them at least."""
    law = jacobian_spectral_density_smooth("tanh", 1.05, 0.01, 4, weights="orthogonal")
    ev = jacobian_eigenvalues_mc("tanh", 1.05, 0.01, 4, width=256, seeds=16, q1=law.q, weights="orthogonal", seed=3)
    at = np.quantile(ev.ravel(), [0.1, 0.25, 0.5, 0.75, 0.9])
    below = np.array([[np.mean(row <= v) for v in at] for row in ev])
    mean, se = below.mean(0), below.std(0, ddof=1) / np.sqrt(len(below))
    allowance = 4 * se + 1 / 256
    assert np.all(np.abs(mean - law.cdf(at)) <= allowance), (mean - law.cdf(at), se)
    assert np.any(np.abs(mean - law.cdf(at / 1.05)) > allowance)


def test_bad_arguments_are_refused_in_one_line():
    for kwargs, match in [(dict(weights="unitary"), "weights"), (dict(depth=0), "depth"),
                          (dict(nodes=10), "nodes")]:
        args = dict(act="tanh", sigma_w2=1.05, sigma_b2=0.01, depth=2) | kwargs
        with pytest.raises(DeepinitError, match=match):
            jacobian_spectral_density_smooth(args.pop("act"), args.pop("sigma_w2"), args.pop("sigma_b2"),
                                             args.pop("depth"), **args)
