"""The canaries of the engine functions no checked claim executes (verify.selftest_reach): every one as known on the
real code, and a broken line in each function they cover — the operator mutants of the sampled run at 5159536
(docs/mutation.md) that no verdict reached among them — fails its named canary, so `verify all` exits 4 on it."""
from __future__ import annotations

import pytest

from conftest import source_mutant
from numerics import covariance_sde, device_kernels, isometry_mlp, meanfield
from theory import activations, batchnorm, bn_meanfield, dual, formula, jacobian_density, jacobian_density_smooth, kernels
from theory import hermite, results
from verify import selftest
from verify.selftest_reach import reach_canaries

SMOOTH = jacobian_density_smooth.SmoothJacobianDensity
MP = "the smooth Jacobian solver on the identity vs Marchenko–Pastur"
BN = "BSB1 q* of ReLU, the identity's BN eigenvalues, GELU's criterion, ReLU's mean BN Jacobian, depth scale"
DEFAULTS = "meanfield_map_mc's default seed is seed 0; the identity's Hermite coefficients up to k = 1"
CDF = "ReLU's Jacobian law at depth 1: CDF and a quantile vs ½ + ½ Marchenko–Pastur"
KERNELS = "the kernels of 3x (linear route) and x + x² (quadrature route) vs their Gaussian moments"


def test_every_reach_canary_is_as_known():
    got = reach_canaries(selftest.Canary)
    assert [(c.name, c.observed) for c in got if not c.passed] == []
    assert len(got) == 18


def _failed() -> dict:
    kernels._route_for.cache_clear()          # a route built before the mutant would hide it
    try:
        return {c.name: c.observed for c in reach_canaries(selftest.Canary) if not c.passed}
    finally:
        kernels._route_for.cache_clear()


# (module or class, attribute, old, new, the canary that must fail)
MUTANTS = [
    # the sample at 5159536: mutants on lines no claim and no canary executed then
    (SMOOTH, "moment", "abs(v - v4) + 3", "abs(v // v4) + 3", MP),
    (SMOOTH, "_panels", "0.5 * (c - a)[:, None] * gx", "0.5 * (c % a)[:, None] * gx", MP),
    (SMOOTH, "pdf", "pos = lam > 0", "pos = lam > 1", MP),
    (SMOOTH, "_solve", "(1 / delta - 1 / m + L", "(1 / delta - 0 / m + L", MP),
    (batchnorm.Distortion, "value", "0.5 * (self.lower + self.upper)", "0.5 * (self.lower ** self.upper)",
     "a MatrixEstimate's fields, a Distortion's value, an iteration's final Σ"),
    (kernels, "_kolmogorov_density_mp", "8 * s * (-1)", "8 % s * (-1)",
     "the Kolmogorov density, float and mpmath, vs scipy's kstwobign"),
    # a broken line in each of the other functions the canaries cover
    (results.MatrixEstimate, "entry", "float(self.value[i, j])", "float(self.value[j, i])",
     "a MatrixEstimate's fields, a Distortion's value, an iteration's final Σ"),
    (activations.Activation, "derivative_at_zero", "abs(b) < 1e-15", "abs(b) < -1e-15",
     "tanh‴(0), ReLU′(0), Dirac masses of sign′ and ReLU′, repr, point-only Piecewise branches"),
    (activations, "_on_points_only", "isinstance(c, sp.Eq) or", "isinstance(c, sp.Eq) and",
     "tanh‴(0), ReLU′(0), Dirac masses of sign′ and ReLU′, repr, point-only Piecewise branches"),
    (bn_meanfield.JacobianEigenvalues, "estimates", "scale + 0.5 * math.ulp", "scale * 0.5 * math.ulp", BN),
    (bn_meanfield, "bn_mean_jacobian", "beta))[0]", "beta))[1]", BN),
    (kernels._Identity, "pair_derivative", "p.xp.full_like(p.q12, self.k2)", "p.xp.full_like(p.q12, self.k2 / 2)",
     KERNELS),
    (kernels._Identity, "__init__", "self.k2 = k * k", "self.k2 = k + k", KERNELS),    # the f5c4110 sample: 2·2 = 2 + 2
    (kernels._Quadrature, "pair_derivative", "return self._each(d, p)", "return self._each(self.act, p)", KERNELS),
    (kernels, "kernel_entries_reference", "sw_ * mpmath.mpf(G[i, j]) + sb_", "sw_ * mpmath.mpf(G[i, j])",
     "the mpmath reference kernels of ReLU on the diagonal"),
    (kernels, "_mixture_rule_mp", "J[i + 1, i] = mpmath.sqrt(beta[i + 1])", "J[i + 1, i] = beta[i + 1]",
     "a fresh 6-node Kolmogorov mixture rule reproduces tanh"),
    (dual, "mean_reduced_dual", "numeric_dual(activation(act)).bar(r)", "numeric_dual(activation(act)).hat(r)",
     "σ̄ of ReLU at ρ = 0, ½, 1 vs its closed form"),
    (device_kernels, "network_kernels_on_device", "sigma_b2, keep, input_gram=input_gram",
     "0.0, keep, input_gram=input_gram",
     "the kernels on the CPU device vs the arc-cosine recursion"),
    (isometry_mlp, "inputs_with_gram", "[0].to(device)", "[-1].to(device) * 1.0000001",
     "inputs built for a Gram: centred, exact Gram, fixed by the eq-(1) embedding"),
    (formula, "time_limit", "gave up after {seconds:g} s", "gave up after {seconds:g} ms",
     "the formula time limit at 20 ms, under a shorter and a longer outer limit"),
    (formula, "time_limit", "if prev_remaining and prev_remaining < seconds:", "if prev_remaining or prev_remaining < seconds:",
     "the formula time limit at 20 ms, under a shorter and a longer outer limit"),
    (covariance_sde.CorrelationLaw, "var", "((self.x - m) ** 2) @ self.pmf", "((self.x - m) ** 2) @ self.pmf / 2",
     "the correlation law at T = 0 between two grid nodes"),
    (jacobian_density.JacobianDensity, "continuous_mass", "float(t[1][0].sum())", "float(t[1][0].max())",
     "ReLU's Jacobian law at depth 1: depth and continuous mass"),
    # survivors of the sample at f5c4110: a default argument moved, the last term of a series dropped
    (meanfield, "meanfield_map_mc", "seed: int = 0,", "seed: int = 1,", DEFAULTS),
    (hermite, "mp_hermite_coefficients", "for k in range(k_max + 1):", "for k in range(k_max ** 1):", DEFAULTS),
    # the Jacobian law's distribution function and quantile (a plugin's quantiles read them; no built-in claim does)
    (jacobian_density.JacobianDensity, "cdf", "upper = np.where(lam >= b[-1], 0.0, tail[k] + part)",
     "upper = np.where(lam >= b[-1], 0.0, tail[k] - part)", CDF),
    (jacobian_density.JacobianDensity, "quantile", "done = (np.abs(f) <= 1e-11)", "done = (np.abs(f) <= 1e-3)", CDF),
]
_IDS = [f"{i}-{m[1]}" for i, m in enumerate(MUTANTS)]


@pytest.mark.parametrize("owner, attr, old, new, caught", MUTANTS, ids=_IDS)
def test_a_broken_line_fails_its_reach_canary(monkeypatch, owner, attr, old, new, caught):
    func = owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr)
    if isinstance(func, property):
        func = func.fget                      # recompiled with its decorator: a property again
    monkeypatch.setattr(owner, attr, source_mutant(getattr(func, "__wrapped__", func), old, new))
    assert caught in _failed()
