"""Known-answer canaries of what the engine states beside its values (part 13 of :mod:`verify.selftest`).

A value can be right while what comes with it is wrong: the standard error of a fit on data it fits exactly, the
error of a depth scale propagated from its growth rate, the order of a two-sided bound, the kind of a decay law, the
relative change a convergence flag is decided on, the scale an invariant is measured in. And a guard can move its
edge: the admissible correlations of equicorrelated inputs, the positive definiteness Theorem 3's Fourier form needs,
the Marchenko–Pastur ratio, BN's β. The claims read the values; none of them fails when only these move. Each canary
computes one of them where a wrong line changes it and compares it with an answer known by construction (an exact
power law, a matrix whose eigenvalues are chosen, a trajectory recomputed from the returned iterates, the guard's
documented edge and one past it) or by an independent route (mpmath's numerical derivative, the float bivariate rule
against the nested mpmath quadrature, Gaussian moments of a polynomial). One not as known makes ``verify all`` exit 4
before any claim runs.
"""
from __future__ import annotations

import math

import numpy as np


def _outcome(call) -> str:
    """What a call gives: its value's repr, or the error it raises as ``Type: message``."""
    try:
        return repr(call())
    except Exception as exc:  # noqa: BLE001 - a refusal is the observation
        return f"{type(exc).__name__}: {exc}"


def _exact_power_law() -> str:
    """An exact power law 1 − c^l = 1/(l − ½) (l = 1…1000; u = t^(−1/p) = l − ½ is linear): the rate is a power
    law with p = 1 (the half-integer the local slope points to), A = 1 to 10⁻¹², and A's error — the fits' spread plus
    their standard error on residuals of zero — below 10⁻¹⁰. Here the local exponent over the first decade is 1.02,
    just above 1: a test of the exponential branch that divides by a decade's log-length — not modulo it — keeps
    the power law."""
    from theory.meanfield_depth import Trajectory, asymptotic_rate
    layers = np.arange(1001, dtype=float)
    t = 1.0 / np.maximum(layers - 0.5, 0.5)
    fit = asymptotic_rate(Trajectory(layers, 1.0 - t, t, np.zeros_like(t), "1 − c^l = 1/(l − 1/2)"))
    return repr((fit.kind, fit.exponent.value, abs(fit.constant.value - 1.0) <= 1e-12, fit.constant.error <= 1e-10))


def _gradient_depth_scale_error() -> str:
    """ξ_∇ = −1/log r of tanh at σ_w² = 2.5, σ_b² = 0.05 (r = χ₁ ≈ 1.13, the gradients' growth per layer): its
    stated error is the rate's error times |dξ/dr|, the derivative taken here by mpmath's numerical differentiation
    at 30 digits, within 10⁻⁶ relative; and the rate's error is not zero (so the comparison has power)."""
    import mpmath

    from theory.meanfield_mlp import depth_scales, gradient_growth_rate
    rate = gradient_growth_rate("tanh", 2.5, 0.05)
    xi = depth_scales("tanh", 2.5, 0.05).xi_grad
    with mpmath.workdps(30):
        slope = abs(float(mpmath.diff(lambda r: -1 / mpmath.log(r), mpmath.mpf(rate.value))))
    want = slope * rate.error
    return repr((rate.error > 0, abs(xi.value + 1 / math.log(rate.value)) <= 1e-12 * abs(xi.value),
                 abs(xi.error - want) <= 1e-6 * want))


def _distortion_bounds() -> str:
    """γ of tanh and of GELU at n = 8 (eq (10) of the BN finite-width paper): the dual upper bound lies strictly
    above the feasible lower bound — it carries the grid's slack (Lipschitz constant × h/2 > 0), so it cannot meet a
    feasible value (an upper bound that fell below the lower one is reported as equal to it) — and within 10⁻³ of it
    (the docstring's promise at the default grid; GELU's dual minimum lies between grid points, where a bracket that
    misses it leaves the bound 2·10⁻² loose)."""
    from theory.batchnorm import distortion
    out = []
    for act in ("tanh", "gelu"):
        d = distortion(act, 8)
        out += [d.lower < d.upper, d.upper - d.lower < 1e-3]
    return repr(tuple(out))


def _mean_reduced_series() -> str:
    """Σ_{k≥1} c_k² ρ^k of tanh (40 Hermite terms) at ρ = ½ against Cov(tanh X, tanh Y) at correlation ½ by the
    float bivariate Gaussian rule (E tanh X = 0), within 10⁻¹⁰; and at ρ = 0 it is 0 (no c₀ term)."""
    from theory import DualSeries, activation
    from theory.gaussian import bivariate_expectation
    s = DualSeries("tanh", 40)
    act = activation("tanh")
    cov = bivariate_expectation(act, act, 1.0, 1.0, 0.5)
    return repr((bool(abs(float(s.mean_reduced(0.5)) - cov.value) <= 1e-10 + cov.error),
                 float(s.mean_reduced(0.0))))


def _anticorrelated_quadrature_kernel() -> str:
    """The pair-by-pair quadrature route of the kernels (φ = x + x², no closed form matched) at two inputs of equal
    norm and correlation −0.6: K¹₁₂ = E φ(u₁)φ(u₂) = q₁₂ + q₁q₂ + 2q₁₂² = −0.6 + 1 + 0.72 = 1.12 (σ_w² = 1,
    σ_b² = 0), within 10⁻¹² relative — the clamp of q₁₂ to [−√(q₁q₂), √(q₁q₂)] leaves it where it is."""
    from theory.kernels import network_kernels
    K = network_kernels("x + x**2", input_gram=np.array([[1.0, -0.6], [-0.6, 1.0]]), depth=1).nngp.value
    return repr(bool(abs(float(K[0, 1]) - 1.12) <= 1.12e-12))


def _psd_invariant_scale() -> str:
    """The positive-semi-definite invariant of a Gram ensemble is the most negative eigenvalue *relative to the
    largest entry*: 100·diag(1, −10⁻³) gives 10⁻³ (to rounding), whatever the scale."""
    import torch

    from numerics.isometry_mlp import IsometryMLPRun
    G = torch.tensor([[100.0, 0.0], [0.0, -0.1]], dtype=torch.float64).reshape(1, 1, 2, 2)
    observed, _ = IsometryMLPRun(G, {"dtype": "float64", "widths": [8]}).invariants()["positive semi-definite"]
    return repr(bool(abs(observed - 1e-3) <= 1e-15))


def _bn_step_change() -> str:
    """The BN mean-field iteration's convergence is decided on the last step's change relative to the *last*
    iterate: ReLU by the Laplace route (α = 1) from Σ⁰ = diag(1, 2, 3, 4) + ½, 3 steps — the returned change
    recomputed from the returned trajectory to 10⁻¹⁴ relative; the first and last iterates' norms differ by more
    than 1% (so a change relative to another iterate would show)."""
    from numerics.bn_meanfield import iterate_bn_meanfield
    it = iterate_bn_meanfield("relu", np.diag([1.0, 2.0, 3.0, 4.0]) + 0.5, 3, method="laplace", alpha=1.0)
    tr = it.trajectory
    want = float(np.linalg.norm(tr[-1] - tr[-2]) / np.linalg.norm(tr[-1]))
    apart = abs(np.linalg.norm(tr[1]) / np.linalg.norm(tr[-1]) - 1) > 0.01
    return repr((bool(abs(it.step_change - want) <= 1e-14 * want), bool(apart)))


def _fourier_form_refusals() -> str:
    """Theorem 3's Fourier form needs Σ⁻¹: a Σ with eigenvalues 1 and 5·10⁻¹³ (relative) is refused at the scales
    100 and 0.01 alike; one with 1 and 10⁻¹⁰ is not refused for positive definiteness at either scale."""
    from numerics.bn_meanfield import bn_meanfield_map_fourier
    Q = np.linalg.qr(np.arange(16.0).reshape(4, 4) ** 0.5 + np.eye(4))[0]

    def refused(scale, smallest):
        S = scale * (Q * np.array([1.0, 0.8, 0.6, smallest])) @ Q.T
        try:
            bn_meanfield_map_fourier((S + S.T) / 2, r2_nodes=8)
        except Exception as exc:  # noqa: BLE001 - which refusal is the observation
            return "positive definite" in str(exc)
        return False
    return repr(tuple(refused(s, e) for e in (5e-13, 1e-10) for s in (100.0, 0.01)))


def _kinked_bivariate_rule() -> str:
    """E φ(u₁)φ(u₂) for the hard tanh clip(x, −1, 1) at q₁₁ = 0.3, q₂₂ = 2, correlation 0.8 (the kinks of the outer
    variable at ±1/√0.3, off every default cut): the float rule against the nested mpmath quadrature at 20 digits
    (``dps=20``: 0.30801608287022075, error 3·10⁻¹⁸, computed once; 76 s), within the rule's stated error plus
    one rounding."""
    from theory import activation
    from theory.gaussian import bivariate_expectation
    clip = activation("min(max(x, -1), 1)")
    e = bivariate_expectation(clip, clip, 0.3, 2.0, 0.8 * math.sqrt(0.6))
    return repr(bool(abs(e.value - 0.30801608287022075) <= e.error + 4e-17))


def _stability_branch() -> str:
    """The branch correlation_stability names: tanh at σ_w² = 1.5, σ_b² = 0.05 (the ordered phase, the docstring's
    example) has c* = 1 exactly."""
    from theory.meanfield_mlp import correlation_stability
    return repr(correlation_stability("tanh", 1.5, 0.05).branch)


def _exact_hermite_coefficients() -> str:
    """The exact Hermite coefficients of x² up to k_max = 3 (normalised He_k/√k!): x² = He₀ + √2·He₂/√2!, so the list
    has k_max + 1 = 4 entries, [1, 0, √2, 0] (sympy)."""
    from theory.hermite import hermite_coefficients
    return str(hermite_coefficients("x**2", 3, kind="exact"))


def _guard_edges() -> str:
    """Guards at their documented edge and one past it: the Marchenko–Pastur ratio n/d ∈ (0, 1] (1 accepted, 0
    refused); BN's |β| ≤ 10³ (10³ accepted, 10³(1 + 10⁻¹⁵) refused); equicorrelated inputs' c ≥ −1/(n − 1) (n = 3:
    −½ accepted, −0.6 refused — a Gram with a negative eigenvalue)."""
    from numerics.mlp import inputs_with_moments
    from theory.batchnorm import marchenko_pastur_cdf
    from theory.validate import bn_parameters
    return " | ".join(_outcome(call) for call in (
        lambda: float(marchenko_pastur_cdf(4.0, 1.0)), lambda: marchenko_pastur_cdf(0.5, 0.0),
        lambda: bn_parameters(0.0, 1.0, 1e3), lambda: bn_parameters(0.0, 1.0, 1e3 * (1 + 2e-15)),
        lambda: inputs_with_moments(1.0, -0.5, 3, 8).shape, lambda: inputs_with_moments(1.0, -0.6, 3, 8).shape))


def _more_guard_edges() -> str:
    """More guards at their documented edge and past it: a memory limit of 10⁻³ GiB accepted and of 0 refused; a
    number computed in a formula (a product of two literals) of 10⁻³⁰⁰ accepted and of 10⁻³⁰¹ refused; one input of
    dimension 1 accepted (n ≤ dim); a 3 × 3 Δ refused by the backward map of a batch of 4 (its matrix acts on 4 × 4
    symmetric matrices)."""
    from numerics.bn_kernels import BackwardOperator
    from numerics.mlp import inputs_with_moments
    from theory.formula import parse_formula
    from theory.validate import memory_limit_gb

    from .selftest_inputs import _MemoryLimit

    def limit(text):
        with _MemoryLimit(text):
            return memory_limit_gb()
    op = BackwardOperator(np.eye(10), np.ones(10), np.zeros(10), 1.0, 0.0, 1)
    return " | ".join(_outcome(call) for call in (
        lambda: limit("1e-3"), lambda: limit("0"), lambda: type(parse_formula("x + 1e-200*1e-100")).__name__,
        lambda: type(parse_formula("x + 1e-200*1e-101")).__name__, lambda: inputs_with_moments(1.0, 0.0, 1, 1).shape,
        lambda: op.apply(np.eye(4)).tolist() == np.eye(4).tolist(), lambda: op.apply(np.eye(3))))


def _trainer_and_embedding_guards() -> str:
    """The BN trainers' batch of 2 accepted and of 1 refused (10 training samples); a constant sample refused by the
    isometry paper's input embedding (it has no direction), named by its index."""
    from types import SimpleNamespace

    from numerics.isometry_mlp import embedded_input_gram
    from numerics.training import _bn_arguments
    ds = SimpleNamespace(x_train=np.zeros((10, 3)))
    flat = np.array([[1.0, 2.0, 4.0], [3.0, 3.0, 3.0], [0.0, 1.0, 0.0]])

    def batch(b):
        return _bn_arguments(ds, 2, 8, b, 1, 0, (), "sgd", 0.1, 1e-5, None)[2]
    return " | ".join(_outcome(call) for call in (lambda: batch(2), lambda: batch(1),
                                                  lambda: embedded_input_gram(flat)))


def _member_relative_excess() -> str:
    """How far an ensemble member's record is from its solo run's (numerics.ensembles), on records whose difference
    is known: |1.1 − 0.5|/0.5 = 1.2 with no allowance, (0.6 − 0.1)/0.5 = 1 with an allowance of 0.1, 0 for equal
    records, ∞ where NaN sits in different places."""
    from numerics.ensembles import _relative_excess
    return repr(tuple(round(_relative_excess(a, b, atol), 12) for a, b, atol in (
        ([1.1, 2.0], [0.5, 2.0], 0.0), ([1.1, 2.0], [0.5, 2.0], 0.1), ([3.0, -1.0], [3.0, -1.0], 0.0),
        ([np.nan, 1.0], [1.0, np.nan], 0.0))))


def contract_canaries(canary, only=None) -> list:
    """The canaries of what the engine states beside its values, built with ``canary(name, expected, observed,
    passed)`` (:class:`verify.selftest.Canary`); ``only``: a collection of names, to run just those."""
    from .selftest_inputs import _table
    return _table(canary, _CONTRACT_ROWS, only)


_CONTRACT_ROWS = [
    ("the rate of an exact power law 1 − c^l = 1/(l − ½)", "('power', 1.0, True, True)", _exact_power_law),
    ("ξ_∇'s error vs the rate's error times |dξ/dr| by mpmath.diff", "(True, True, True)",
     _gradient_depth_scale_error),
    ("the strict order and gap of tanh's and GELU's distortion bounds at n = 8", "(True, True, True, True)",
     _distortion_bounds),
    ("tanh's mean-reduced dual series at ρ = ½ and 0 vs the bivariate rule", "(True, 0.0)", _mean_reduced_series),
    ("the quadrature route's kernel of x + x² at correlation −0.6", "True", _anticorrelated_quadrature_kernel),
    ("the PSD invariant of 100·diag(1, −10⁻³)", "True", _psd_invariant_scale),
    ("the BN mean-field iteration's last-step change, recomputed", "(True, True)", _bn_step_change),
    ("Theorem 3's Fourier form at eigenvalue ratios 5·10⁻¹³ and 10⁻¹⁰, scales 100 and 0.01",
     "(True, True, False, False)", _fourier_form_refusals),
    ("the hard tanh's bivariate moment off the default cuts vs nested mpmath", "True", _kinked_bivariate_rule),
    ("correlation_stability's branch for tanh in the ordered phase", "'c* = 1'", _stability_branch),
    ("the exact Hermite coefficients of x² up to k = 3", "[1, 0, sqrt(2), 0]", _exact_hermite_coefficients),
    ("the Marchenko–Pastur ratio, BN's β and equicorrelated inputs' c at their edges and past them",
     "1.0 | DeepinitError: the Marchenko–Pastur ratio n/d must lie in (0, 1] | (0.0, 1.0, 1000.0) | DeepinitError: "
     "BN β = 1000.000000000002: must be finite with |β| ≤ 1e3 | (3, 8) | DeepinitError: need q > 0 and −1/(n − 1) ≤ c "
     "≤ 1 (got q = 1.0, c = -0.6)", _guard_edges),
    ("a memory limit, a formula's number, one input of dimension 1 and the BN backward map's Δ at their edges",
     "0.001 | DeepinitError: DEEPINIT_MEMORY_GB='0' must be a finite number > 0 (GiB; default 32) | "
     "'Add' | ActivationError: a number in 'x + 1e-200*1e-101' is outside 1e-300…1e300 | (1, 1) | "
     "True | DeepinitError: Δ must be finite symmetric 4×4 matrices", _more_guard_edges),
    ("the BN trainers' batch of 2 and of 1, a constant sample's embedding",
     "2 | DeepinitError: batch size = 1 must be in [2, 10] | DeepinitError: embedded_input_gram: sample(s) [1] are "
     "constant over their features", _trainer_and_embedding_guards),
    ("an ensemble member's relative excess over its solo run on known records", "(1.2, 1.0, 0.0, inf)",
     _member_relative_excess),
]
