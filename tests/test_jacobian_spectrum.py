"""Mean and variance of the Jacobian's squared singular values (theory.jacobian) against finite-width networks
(numerics.jacobian: J accumulated layer by layer, Gaussian and Haar-orthogonal weights) and closed cases."""
from __future__ import annotations

import numpy as np
import pytest

from numerics.jacobian import jacobian_moments_mc
from theory import critical_sigma_w2, fixed_point_q
from theory.errors import DeepinitError, UndefinedQuantityError
from theory.jacobian import jacobian_spectrum_moments


@pytest.mark.parametrize("weights, per_layer", [("gaussian", 2.0), ("orthogonal", 1.0)])
def test_relu_and_linear_closed_cases(weights, per_layer):
    """ReLU at σ_w² = 2: μ₁ = μ₂ = ½, so σ² = L(2 − 1 + s_W); linear: σ² = L·s_W (orthogonal: isometry)."""
    s = jacobian_spectrum_moments("relu", 2.0, 0.0, 7, q1=0.3, weights=weights)
    assert s.mean.value == pytest.approx(1.0, abs=1e-14)
    assert s.variance.value == pytest.approx(7 * per_layer, rel=1e-13)
    lin = jacobian_spectrum_moments("identity", 1.0, 0.0, 7, q1=2.0, weights=weights)
    assert lin.variance.value == pytest.approx(7 * (per_layer - 1.0), abs=1e-13)


def _tanh_critical():
    sw = critical_sigma_w2("tanh", 0.05).value
    return sw, fixed_point_q("tanh", sw, 0.05).value


@pytest.mark.parametrize("weights", ["gaussian", "orthogonal"])
@pytest.mark.parametrize("case", ["tanh-critical", "relu", "erf-ordered"])
def test_moments_equal_finite_width_networks(case, weights):
    """Depth 4, width 256, 32 networks: m₁ and σ² within 4 standard errors plus the O(L/N) finite-width bias (2L/N of
    the value); the other weight ensemble's variance is rejected (> 4 SE + bias away)."""
    act, sw, sb, q1 = {"tanh-critical": ("tanh", *_tanh_critical()[:1], 0.05, _tanh_critical()[1]),
                       "relu": ("relu", 2.0, 0.0, 1.0), "erf-ordered": ("erf", 1.3, 0.1, 0.8)}[case]
    depth, width = 4, 256
    th = jacobian_spectrum_moments(act, sw, sb, depth, q1=q1, weights=weights)
    mc = jacobian_moments_mc(act, sw, sb, depth, width=width, seeds=32, q1=q1, weights=weights, seed=5)
    bias = 2 * depth / width
    assert abs(mc.mean - th.mean.value) <= 4 * mc.mean_se + bias * th.mean.value
    assert abs(mc.variance - th.variance.value) <= 4 * mc.variance_se + bias * th.variance.value
    other = jacobian_spectrum_moments(act, sw, sb, depth, q1=q1,
                                      weights="orthogonal" if weights == "gaussian" else "gaussian")
    assert abs(mc.variance - other.variance.value) > 4 * mc.variance_se + bias * other.variance.value


def test_bad_inputs():
    with pytest.raises(DeepinitError, match="weights"):
        jacobian_spectrum_moments("tanh", 1.0, 0.0, 3, weights="unitary")
    with pytest.raises(UndefinedQuantityError, match="Dirac"):
        jacobian_spectrum_moments("step", 1.0, 0.0, 3, q1=1.0)
    with pytest.raises(DeepinitError, match="q1"):
        jacobian_moments_mc("tanh", 1.0, 0.5, 3, q1=0.1)
    assert np.isfinite(jacobian_spectrum_moments("tanh", 1.0, 0.0, 2).mean.value)   # q* = 0: φ′(0)² = 1


def test_the_documented_defaults_run_eight_networks_of_width_512():
    """jacobian_moments_mc and jacobian_eigenvalues_mc without ``width`` and ``seeds``: 8 networks of width 512, as
    their docstrings state (8 rows of 512 eigenvalues), with m₁ near the free-probability value at depth 1 (ReLU at
    σ_w² = 2, σ_b² = 0, q¹ = 1: m₁ = σ_w² E φ′² = 1) within 6 standard errors."""
    from numerics.jacobian import jacobian_eigenvalues_mc
    r = jacobian_moments_mc("relu", 2.0, 0.0, 1)
    assert (r.seeds, r.width, r.depth) == (8, 512, 1)
    assert abs(r.mean - 1.0) <= 6 * r.mean_se, r
    assert jacobian_eigenvalues_mc("relu", 2.0, 0.0, 1).shape == (8, 512)
