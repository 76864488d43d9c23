"""Known-answer canaries of the engine paths no built-in claim takes (part 11 of :mod:`verify.selftest`).

A researcher's own claim may take a branch of the engine that none of the four papers' claims exercises at the quick
budget: a Gram matrix of entries far below 1, the truncation radius of the bivariate rule, the zero-bias origin of the
length map, an activation positive at every probe, the secant route of the fixed-point solver, a formula with a
negative base, the covariance SDE with its own noise, the Laplace route's convergence flag, the arc-cosine kernels of
two-slope activations, the general Jacobian-spectrum solver, the float length map and the MLP simulator's tangents and
its exact method's pseudo-inverse backward, the isometry MLP's exact method at a width no larger than the batch, the
BN gradient simulator on an input of the user's, the Monte Carlo BN map's standard error, the MLP simulator's backward
pass through widening layers, an Estimate's relative error and the Hermite values at their smallest cases, the
covariance map without bias, ReLU's polar moments at odd orders, a negative non-integer power in torch, the explosion
criterion's recentring, the BN trainers' sub-batch normalisation, the exact layer's pseudo-inverse, the kernel routes'
confirmation at a negative covariance, every full batch of a training epoch, the Dirac mass of a kink in E φ″φ, the BN
layer's default axis, the growth probe's limits past its guard, a correlation trajectory moving away from 1, the
isometry gap's refusal of a matrix that is not a Gram matrix, a BN ensemble member trained with sub-batches against
its solo run, the BN backward map's radial rule at a scale no claim's ε reaches, the BN forward map's standard error,
the Illinois iteration at a triple root, Theorem 4's float θ-integrals at B = 4, the α-ReLU kernel with an odd number
of nodes, the Hermite coefficients that vanish by parity, the correlation SDE's time grid, an explicit BN mean-field
method. A wrong comparison or constant there leaves every built-in verdict as it was. Each canary below computes such
a path and compares it with an answer known by construction or by an independent route (the float bivariate Gaussian
rule, the closed-form moments, the identity's geometric length map, the documented draws of the seed, the Penrose
equations, the solo trainer, Γ's moments and the incomplete Γ by mpmath), at an input where a wrong line changes the
answer. One not as known makes ``verify all`` exit 4 before any claim runs.
"""
from __future__ import annotations

import math

import numpy as np


def _psd_at_scales() -> str:
    """:func:`theory.validate.gram_matrix` decides positive semi-definiteness relative to the matrix's own scale
    (its docstring: any scale in the float range): a Gram with λ_min = −10⁻⁶ λ_max is refused at scale 1 and at
    scale 10⁻³⁰⁵, and a PSD one at 10⁻³⁰⁵ is accepted."""
    from theory import validate

    def verdict(G) -> str:
        try:
            validate.gram_matrix(G)
            return "accepted"
        except Exception as exc:  # noqa: BLE001 - the refusal's type is the observation
            return type(exc).__name__
    bad = np.diag([1.0, -1e-6])
    good = np.array([[1.0, 0.5], [0.5, 1.0]])
    return repr((verdict(bad), verdict(1e-305 * bad), verdict(1e-305 * good)))


def _truncation_radius() -> str:
    """The bivariate rule's truncation radius for f = g = 1 at unit variances: the smallest integer r ≥ 9 with
    e^(−r²/2) below 10⁻²⁰ of the probe, i.e. r²/2 > ln 10²⁰ = 46.05: r = 10 (a cost contract: a larger radius
    is still correct, only slower)."""
    from theory import gaussian
    one = lambda u: np.ones_like(u)  # noqa: E731
    return repr(gaussian._radius(one, one, 1.0, 1.0))


def _zero_bias_origin() -> str:
    """σ_b² = 0, φ(0) = 0: SiLU at σ_w² = 3 has L′(0⁺) = 3/4 < 1, so the fixed point reached from small q is 0
    (a repelling one lies above it); x − tanh x has φ′(0) = 0, so χ₁ = 0 at q* = 0 for every σ_w² and no σ_w² is
    critical there."""
    from theory import critical_points, fixed_point_q
    fp = fixed_point_q("silu", 3.0, 0.0)
    return repr((fp.value, fp.stability, critical_points("x - tanh(x)", 0.0)))


def _homogeneity() -> str:
    """The positive-homogeneity degree of |x|, x², max(x, 0) and eˣ: 1, 2, 1 and none (|x| and x² are positive at
    every probe point, ReLU vanishes at half of them)."""
    from theory import activation
    return repr([activation(f).homogeneity_degree for f in ("abs(x)", "x**2", "relu", "exp(x)")])


def _secant() -> str:
    """x = cos x by the secant route (no bracket) from 0.5: the Dottie number 0.7390851332151607 (Illinois on
    [0, 1], the other route, gives the same) within 10⁻¹⁵, its stated error below 10⁻¹²."""
    from theory.fixed_points import solve_fixed_point
    e = solve_fixed_point(math.cos, x0=0.5)
    ref = solve_fixed_point(math.cos, bracket=(0.0, 1.0)).value
    return repr((abs(e.value - 0.7390851332151607) <= 1e-15, abs(ref - 0.7390851332151607) <= 1e-15,
                 e.error <= 1e-12))


def _negative_bases() -> str:
    """The growth probe of a formula at negative arguments: √x at −0.5 is not real, ∛x at −0.125 is −0.5, x² at
    −0.5 is 0.25; and past the size guard, where only the sign of a huge power survives a bounded function:
    tanh(x¹⁰⁰⁰¹) at −8 is −1 (an odd power keeps the sign), tanh(x¹⁰⁰⁰⁰) at −8 is 1 (8¹⁰⁰⁰⁰ is e^20794,
    past the guard e^10000)."""
    import sympy as sp

    from theory.activations import x
    from theory.formula import growth_probe

    def probe(expr, r) -> str:
        try:
            return repr(float(growth_probe(expr, r)))
        except Exception as exc:  # noqa: BLE001 - the refusal's type is the observation
            return type(exc).__name__
    return ", ".join(probe(e, r) for e, r in ((sp.sqrt(x), -0.5), (x ** sp.Rational(1, 3), -0.125), (x ** 2, -0.5),
                                              (sp.tanh(x ** 10001), -8.0), (sp.tanh(x ** 10000), -8.0)))


def _zero_power() -> str:
    """``x + 0**2`` parses to x (a zero base to a positive power is 0)."""
    from theory.formula import parse_formula
    return repr(str(parse_formula("x + 0**2")))


def _sde_own_noise() -> str:
    """The Euler–Maruyama covariance SDE with its own noise equals the run given the increments the seed
    documents (``default_rng(seed)``, one N(0, dt) draw of [paths, m, m] a step), to the last bit."""
    from numerics.covariance_sde import simulate_covariance_sde
    paths, m, dt, steps, seed = 3, 2, 0.01, 5, 7
    V0 = np.array([[1.0, 0.3], [0.3, 0.5]])
    drift = lambda V: -0.5 * V  # noqa: E731
    rng = np.random.default_rng(seed)
    dW = np.stack([rng.standard_normal((paths, m, m)) * math.sqrt(dt) for _ in range(steps)], axis=1)
    own = simulate_covariance_sde(drift, V0, steps * dt, dt, paths, seed=seed).values
    given = simulate_covariance_sde(drift, V0, steps * dt, dt, paths, seed=seed, dW=dW).values
    return repr(bool(np.array_equal(own, given)))


def _laplace_flags() -> str:
    """The Laplace route's flags, recomputed from its own trajectory by their definitions: ``converged`` is the last
    step's relative change below ``tol`` = 10⁻⁸, the shape is that of the last iterate at tolerance 10⁻⁶ (the
    route is exact: no Monte Carlo allowance). From diag(1, 2, 3, 4) + 0.2, four ReLU layers still move by about
    2 % a step."""
    from numerics.bn_meanfield import classify_covariance, iterate_bn_meanfield
    it = iterate_bn_meanfield("relu", np.diag([1.0, 2.0, 3.0, 4.0]) + 0.2, 4, method="laplace")
    last, before = it.trajectory[-1], it.trajectory[-2]
    change = float(np.linalg.norm(last - before) / np.linalg.norm(last))
    return repr((it.converged == (change < 1e-8), it.shape.kind == classify_covariance(last, tol=1e-6).kind))


def _two_slope_kernels() -> str:
    """The depth-1 NNGP entry K¹₁₂ of leaky ReLU (slopes 1 and 0.01: the arc-cosine kernel of degree 1) and of the
    step function (degree 0) for the input Gram [[1, 0.3], [0.3, 2]], against E φ(u₁)φ(u₂) by the float bivariate
    Gaussian rule (no closed form), within 10⁻¹⁰ relative."""
    from theory import activation
    from theory.gaussian import bivariate_expectation
    from theory.kernels import nngp_kernel
    G = np.array([[1.0, 0.3], [0.3, 2.0]])
    worst = 0.0
    for name in ("leaky_relu", "step"):
        act = activation(name)
        K = float(nngp_kernel(act, input_gram=G, depth=1).value[0, 1])
        ref = bivariate_expectation(act, act, G[0, 0], G[1, 1], G[0, 1]).value
        worst = max(worst, abs(K - ref) / abs(ref))
    return repr(worst <= 1e-10)


def _smooth_jacobian_law() -> str:
    """The general Jacobian-spectrum solver (softplus, σ_w² = 1, σ_b² = 0.05, depth 2, Gaussian weights: φ′² is not
    even, so its rule must cover both signs of the pre-activation): the mean of its law, from its rule for φ′(h)² at
    the fixed point, against the closed-form mean (σ_w² μ₁)^L of :func:`theory.jacobian_spectrum_moments`
    (mpmath), within 10⁻⁹ relative."""
    from theory import jacobian_spectrum_moments
    from theory.jacobian_density_smooth import jacobian_spectral_density_smooth
    law = jacobian_spectral_density_smooth("softplus", 1.0, 0.05, 2, weights="gaussian", nodes=200)
    ref = jacobian_spectrum_moments("softplus", 1.0, 0.05, 2, weights="gaussian").mean.value
    return repr(abs(law.mean / ref - 1) <= 1e-9)


def _identity_length_map() -> str:
    """The float length map of the identity, q^l = σ_w² q^(l−1) + σ_b², against its geometric closed form
    (σ_w² = 0.5, σ_b² = 0.25, q⁰ = 2, six layers), within 10⁻¹² relative, with one stated error per layer."""
    from theory.meanfield_depth import length_trajectory
    traj = length_trajectory("identity", 0.5, 0.25, 2.0, 6)
    exact = np.array([0.5 ** k * 2.0 + 0.25 * (1 - 0.5 ** k) / 0.5 for k in range(7)])
    return repr((bool(np.allclose(traj.values, exact, rtol=1e-12, atol=0)), len(traj.relative_error)))


def _probe_message() -> str:
    """The isometry training's refusal of a one-sample probe names the documented range for width 8: 2 to 7."""
    from numerics.training import train_isometry_mlp
    try:
        train_isometry_mlp("digits", "relu", 2, 8, 8, 0, lr=0.1, probe=[0])
    except Exception as exc:  # noqa: BLE001 - the refusal's text is the observation
        return str(exc)
    return "accepted"


def _degenerate_variances() -> str:
    """The bivariate Gaussian expectation with one variance 0: E[f(X) g(0)] for q₂₂ = 0 and E[f(0) g(Y)] for
    q₁₁ = 0, with f = x², g = 1 + x at the other variance 2: both E X² · 1 = 2 (a branch that served f(0) g(·) for
    either would give 0 for the first)."""
    from theory import activation
    from theory.gaussian import bivariate_expectation
    sq, lin = activation("x**2"), activation("1 + x")
    return repr((round(bivariate_expectation(sq, lin, 2.0, 0.0, 0.0).value, 12),
                 round(bivariate_expectation(lin, sq, 0.0, 2.0, 0.0).value, 12)))


def _law_cdf_at_the_top() -> str:
    """The CDF of the correlation law with mass ½ at each of the grid's last two nodes (ρ₀ = 15/16 on the 16-cell
    grid, T = 0), each node's mass spread over its cell: 0.35 at 0.9 (in the cell of 7/8), 0.75 at 0.96875 (the
    middle of the last cell [15/16, 1]), 1 at 1."""
    from numerics.covariance_sde import correlation_sde_law
    law = correlation_sde_law(1.0, 1.0, 0.9375, 0.0, cells=16)
    return repr([round(float(v), 12) for v in law.cdf([0.9, 0.96875, 1.0])])


def _jump_or_kink() -> str:
    """The covariance SDE's explosion criterion refuses a φ that is not C⁴ at 0, saying which way it fails: the step
    function jumps at 0 (its one-sided values differ), ReLU has a kink (continuous, φ′ jumps)."""
    from theory.covariance_sde import explosion_criterion

    def why(name: str) -> str:
        try:
            explosion_criterion(name)
        except Exception as exc:  # noqa: BLE001 - the refusal's text is the observation
            return str(exc).split(":")[0]
        return "accepted"
    return repr((why("step"), why("relu")))


def _sde_time_grid() -> str:
    """What the covariance SDE ran on: its time grid, kept whole (keep="all": 0, dt, …, 5dt at dt = 0.25, exact in
    binary) and as its last time (keep="last"), with one stored state per time."""
    from numerics.covariance_sde import simulate_covariance_sde
    V0 = np.array([[1.0, 0.3], [0.3, 0.5]])
    drift = lambda V: -0.5 * V  # noqa: E731
    whole = simulate_covariance_sde(drift, V0, 1.25, 0.25, 2, seed=1)
    last = simulate_covariance_sde(drift, V0, 1.25, 0.25, 2, seed=1, keep="last")
    return repr((whole.times.tolist(), whole.values.shape[1], last.times.tolist(), last.values.shape[1]))


def _bn_output_mean() -> str:
    """E ReLU(BN(h))ᵢ at ε = 0 (the default) for a BSB1 Σ: BN(h) is uniform on the sphere of radius √B in 1^⊥, so
    its i-th coordinate is √(B − 1)·t with t the first coordinate of a uniform point of S^(B−2): t uniform on
    [−1, 1] at B = 4 (E t⁺ = 1/4, μ = √3/4), density ∝ √(1 − t²) at B = 5 (E t⁺ = 2/(3π), μ = 4/(3π)); either
    within 10⁻¹³, and independent of s."""
    from theory.bn_meanfield import bn_output_mean
    return repr((abs(bn_output_mean("relu", 4, s=2.0) - math.sqrt(3) / 4) < 1e-13,
                 abs(bn_output_mean("relu", 5, s=3.0) - 4 / (3 * math.pi)) < 1e-13))


def _closed_form_routes() -> str:
    """Each kernel route with a closed form is confirmed for its activations: a route is taken only after it agrees
    with the float bivariate Gaussian rule at three covariances, for φ and φ′ (:func:`theory.kernels._confirmed`), so a
    wrong closed form falls back to quadrature: the kernels stay right, only slower, and the route's name is the one
    place the broken closed form shows. The names of the routes of ReLU, leaky ReLU (0.2), |x|, step, sign, erf, sin,
    cos, GELU, the identity and tanh (the logistic scale mixture), and of 2·erf(3x) and sin(2x): a scale k or a
    frequency α of 1 hides a term that squares it."""
    from theory import kernel_route
    names = ("relu", "max(x, 0.2*x)", "abs(x)", "step", "sign(x)", "erf", "sin", "cos", "gelu", "x", "tanh",
             "2*erf(3*x)", "sin(2*x)")
    return repr(tuple(kernel_route(a) for a in names))


def _erf_mean_field() -> str:
    """The mean-field quantities of φ = erf at σ_w² = 1.5, σ_b² = 0.05 (the chaotic phase: c* < 1, χ_c ≠ χ₁) against
    the arcsine closed forms, solved afresh by mpmath's findroot at 30 digits: E erf(u₁)erf(u₂) = (2/π)
    arcsin(2q₁₂/√((1 + 2q₁₁)(1 + 2q₂₂))) gives q* and c*; E φ′(u₁)φ′(u₂) = (4/π)/√((1 + 2q)² − 4c²q²) gives χ₁ (c = 1)
    and χ_c; L′(q*) = χ₁/(1 + 2q*); ξ_q = −1/log L′(q*), ξ_c = −1/log χ_c. Each value within its stated error (plus
    one rounding of the reference) and each error below 10⁻⁹ relative: an error term that swells or shrinks is as
    wrong as the value."""
    import mpmath

    from theory.meanfield_mlp import depth_scales
    sw, sb = 1.5, 0.05
    ds = depth_scales("erf", sw, sb)
    with mpmath.workdps(30):
        two_pi = 2 / mpmath.pi
        q = mpmath.findroot(lambda t: sw * two_pi * mpmath.asin(2 * t / (1 + 2 * t)) + sb - t, 0.6)
        c = mpmath.findroot(lambda t: sw * two_pi * mpmath.asin(2 * t * q / (1 + 2 * q)) + sb - t * q, 0.8)
        chi1 = sw * 2 * two_pi / mpmath.sqrt(1 + 4 * q)
        chic = sw * 2 * two_pi / mpmath.sqrt((1 + 2 * q) ** 2 - (2 * c * q) ** 2)
        refs = [float(v) for v in (q, c, chi1, chic, -1 / mpmath.log(chi1 / (1 + 2 * q)), -1 / mpmath.log(chic))]
    got = (ds.q_star, ds.c_star, ds.chi_1, ds.chi_c, ds.xi_q, ds.xi_c)
    return repr(tuple(abs(g.value - r) <= g.error + 2 ** -52 * abs(r) and g.error <= 1e-9 * abs(r)
                      for g, r in zip(got, refs)))


def _drift_scales() -> str:
    """The covariance SDE's drifts at a scale: ReLU's with ``nu_scale`` 2 and 0.5 is twice and half the unscaled one
    (ν multiplies the whole drift, eq 3.2); the smooth drift (eq 3.10) with a = 2 is a quarter of that with a = 1
    (both terms carry 1/a²). Entrywise within 10⁻¹⁵ relative, at a batch covariance with unequal diagonal."""
    from numerics.covariance_sde import covariance_drift
    V = np.array([[[1.0, 0.4], [0.4, 2.0]]])
    relu = [covariance_drift("relu", c_plus=0.5, c_minus=-1.0, nu_scale=k)(V) for k in (1.0, 2.0, 0.5)]
    smooth = [covariance_drift("smooth", phi2=0.7, phi3=-0.4, a=a)(V) for a in (1.0, 2.0)]

    def close(a, b):
        return bool(np.allclose(a, b, rtol=1e-15, atol=0) and np.any(a != 0))
    return repr((close(relu[1], 2 * relu[0]), close(relu[2], 0.5 * relu[0]), close(smooth[1], smooth[0] / 4)))


def _default_input_covariance() -> str:
    """``simulate_bn_chain`` without ``input_cov`` draws its inputs with the documented default 0.5·I + 0.5 (unit
    variances, correlation ½): the same Grams, bit for bit, as with that matrix passed (same seed)."""
    import torch

    from numerics.bn_chain import simulate_bn_chain
    default = simulate_bn_chain("relu", 16, 4, 2, seeds=2, device="cpu")
    given = simulate_bn_chain("relu", 16, 4, 2, seeds=2, device="cpu", input_cov=0.5 * np.eye(4) + 0.5)
    return repr(bool(torch.equal(default, given)))


def _linear_network_tangents_and_gradients() -> str:
    """``simulate_mlp`` on the identity with σ_b² = 0 and the tangent direction u = x: then t^l = ∂z^l/∂x·x = z^l
    at every layer, so each recorded |t^l_a|²/N_l equals the kernel's diagonal K^l_aa to rounding (both methods;
    layer 0 included). Two identical inputs make the exact method's [y, t] columns collinear, the pseudo-inverse
    branch of its conditional backward: the two inputs' gradient norms are then equal to rounding and finite."""
    from numerics.mlp import simulate_mlp
    x = np.array([[0.3, -1.2, 0.8, 0.5, -0.1], [1.1, 0.4, -0.6, 0.2, 0.9]])
    same = []
    for method in ("dense", "exact"):
        run = simulate_mlp("x", 1.7, 0.0, 24, 3, x, seeds=2, method=method, tangent=True, tangent_direction=x)
        diag = np.diagonal(run.cov, axis1=-2, axis2=-1)
        same.append(bool(run.tangent_sq.shape == diag.shape and np.allclose(run.tangent_sq, diag, rtol=1e-12, atol=0)))
    twin = simulate_mlp("x", 1.7, 0.0, 24, 3, np.stack([x[0], x[0]]), seeds=2, method="exact", backprop=True)
    g = np.asarray(twin.grad_sq)
    return repr((*same, bool(np.all(np.isfinite(g)) and np.all(g > 0) and np.allclose(g[..., 0], g[..., 1],
                                                                                       rtol=1e-10, atol=0))))


def _exact_at_width_n() -> str:
    """The isometry MLP's exact-in-law method at width d = n (n = 5 inputs, tanh, layer norm): it needs no inputs with
    the given Gram (the dense method does, and they exist only for d > n), so it simulates, each layer at the width
    asked, and its Gram matrices keep their exact properties (symmetric, PSD, unit diagonal) to rounding."""
    from numerics import equicorrelated_gram, run_isometry_mlp
    try:
        run = run_isometry_mlp("tanh", 5, equicorrelated_gram(5, 0.5), depth=2, seeds=2, device="cpu")
    except Exception as exc:  # noqa: BLE001 - a refusal is the observation
        return f"{type(exc).__name__}: {exc}"
    return repr((run.config["widths"], all(o <= b for o, b in run.invariants().values())))


def _bn_given_input() -> str:
    """``simulate_bn_gradients`` with a given input x (B = 4, N = 16, tanh, three layers, the same seed) and with 2x:
    h¹ = W x doubles exactly (a power of 2 scales floating point exactly), so the first layer's covariance is 4 times
    as large, ‖∂L/∂h¹‖² a quarter, and batch norm removes the scale: every later layer is bit for bit the same. A
    drawn input (no ``input``) gives other numbers: the given one was used."""
    from numerics.bn_meanfield import simulate_bn_gradients
    x = np.random.default_rng(3).standard_normal((4, 16))
    try:
        one, two = (simulate_bn_gradients("tanh", 16, 4, 3, seeds=2, input=k * x, device="cpu", seed=5)
                    for k in (1, 2))
    except Exception as exc:  # noqa: BLE001 - a refusal is the observation
        return f"{type(exc).__name__}: {exc}"
    drawn = simulate_bn_gradients("tanh", 16, 4, 3, seeds=2, device="cpu", seed=5)
    return repr((bool(np.array_equal(two.cov[:, 0], 4 * one.cov[:, 0]) and np.array_equal(two.cov[:, 1:], one.cov[:, 1:])),
                 bool(np.array_equal(4 * two.sq_grad[:, 0], one.sq_grad[:, 0])
                      and np.array_equal(two.sq_grad[:, 1:], one.sq_grad[:, 1:])),
                 bool(not np.allclose(drawn.cov, one.cov))))


def _bn_map_mc_error() -> str:
    """The Monte Carlo BN map's standard error against its definition, for φ = sign: every product φ_i φ_j is ±1, so
    its variance is 1 − mean² exactly and the standard error of n samples is √((1 − mean²)/n) — 0 on the diagonal
    (φ_i² = 1 always). se²·n + mean² = 1 to rounding, entry by entry (Σ = ½I + ½, 4000 samples)."""
    from numerics.bn_meanfield import bn_meanfield_map_mc
    mean, se = bn_meanfield_map_mc("sign(x)", 0.5 * np.eye(4) + 0.5, 4000, seed=1)
    return repr(bool(np.all(np.abs(se ** 2 * 4000 + mean ** 2 - 1) < 1e-12)))


def _widening_backward() -> str:
    """``simulate_mlp``'s backward pass through layers of widths 8, 12, 16 (both methods): the readout vector has the
    last layer's width, so the gradients of the 4 layers (input included) of 2 seeds and 2 inputs come back finite."""
    from numerics.mlp import simulate_mlp
    x = np.array([[0.3, -1.2, 0.8, 0.5, -0.1], [1.1, 0.4, -0.6, 0.2, 0.9]])
    out = []
    for method in ("dense", "exact"):
        try:
            g = np.asarray(simulate_mlp("tanh", 1.5, 0.1, [8, 12, 16], 3, x, seeds=2, method=method,
                                        backprop=True).grad_sq)
            out += [g.shape, bool(np.all(np.isfinite(g)))]
        except Exception as exc:  # noqa: BLE001 - a crash is the observation
            out += [type(exc).__name__, False]
    return repr(tuple(out))


def _definitions_at_the_edge() -> str:
    """Two definitions at their smallest case: an Estimate's relative error at value 0 (0 for an exact zero, ∞ with an
    error) and at −2 ± 10⁻³ (5·10⁻⁴); the normalised Hermite values at k_max = 1 (He₀ = 1, He₁ = z)."""
    from theory.hermite import hermite_values
    from theory.results import Estimate
    return repr((Estimate(0.0, 0.0, "").relative_error, Estimate(0.0, 1e-3, "").relative_error,
                 Estimate(-2.0, 1e-3, "").relative_error, hermite_values(1, np.array([0.5, -2.0])).tolist()))


def _covariance_map_without_bias() -> str:
    """The covariance map q_ab = σ_w² E φ(u_a)φ(u_b) + σ_b² at σ_b² = 0 (the bias-free networks of the isometry and
    covariance-SDE papers): ReLU at q_aa = q_bb = 1, q_ab = ½, σ_w² = 2 against the arc-cosine closed form
    2·(√(1 − ρ²) + (π − arccos ρ)ρ)/(2π), within the map's stated error plus one rounding."""
    from theory.meanfield_mlp import covariance_map
    try:
        e = covariance_map("relu", 1.0, 1.0, 0.5, 2.0, 0.0)
    except Exception as exc:  # noqa: BLE001 - a crash is the observation
        return f"{type(exc).__name__}: {exc}"
    exact = 2 * (math.sqrt(0.75) + (math.pi - math.acos(0.5)) * 0.5) / (2 * math.pi)
    return repr(bool(abs(e.value - exact) <= e.error + 4e-16 * exact))


def _odd_relu_moments() -> str:
    """The polar closed form of E relu(x)^p relu(y)^q at odd orders p + q (the claims use 2 and 4, where the radial
    moment 2^{k/2} Γ(k/2 + 1) equals k Γ(k/2 + 1)): E relu(x) = 1/√(2π) and E relu(y)³ = 2/√(2π), exactly (sympy)."""
    import sympy as sp

    from theory.covariance_sde import relu_bivariate_moment
    return repr((sp.simplify(relu_bivariate_moment(1, 0) - 1 / sp.sqrt(2 * sp.pi)) == 0,
                 sp.simplify(relu_bivariate_moment(0, 3) - 2 / sp.sqrt(2 * sp.pi)) == 0))


def _torch_negative_power() -> str:
    """The torch callable of (1 + x²)^(−3/2) at −2, ½, 3 against numpy's, to rounding: a non-integer exponent is
    kept as it is (an integer one is applied as an integer power)."""
    import torch

    from theory import activation
    from theory._torch_lambdify import torch_callable
    from theory.activations import x
    a = activation("(1 + x**2)**(-1.5)")
    t = torch.tensor([-2.0, 0.5, 3.0], dtype=torch.float64)
    # translated afresh (an Activation keeps its torch callable once built)
    return repr(bool(np.allclose(torch_callable(a.expr, x)(t).numpy(), a.numpy(t.numpy()), rtol=1e-14, atol=0)))


def _recentred_exp() -> str:
    """The covariance SDE's explosion criterion recentres σ = exp (σ(0) = 1, σ′(0) = 1) to φ = exp(x) − 1 and states
    it; the criterion (3/4)φ″(0)² + φ‴(0) = 7/4."""
    from theory.covariance_sde import explosion_criterion
    e = explosion_criterion("exp")
    return repr((str(e.phi), str(e.value), e.recentred.startswith("recentred")))


def _toy_data():
    """20 two-feature samples (entries 0–6, two classes alternating): 15 for training, 5 held out by load_dataset."""
    return np.arange(40.0).reshape(20, 2) % 7, np.arange(20) % 2


def _ghost_batch_norm() -> str:
    """The BN trainers' sub-batch ("ghost") normalisation (Fig 2(b) of the BN mean-field paper: statistics per
    sub-batch) in training mode, batch 4 in sub-batches of 2, γ = 2, β = ½, float64: against torch's own batch_norm on
    each sub-batch, to 1e-12."""
    import torch

    from numerics.training import _SubBatchNorm
    h = torch.arange(12.0, dtype=torch.float64).reshape(4, 3) ** 1.5
    layer = _SubBatchNorm(3, 1e-5, 2).double()
    with torch.no_grad():
        layer.weight.fill_(2.0)
        layer.bias.fill_(0.5)
    got = layer(h)
    want = torch.cat([torch.nn.functional.batch_norm(part, None, None, layer.weight, layer.bias, True, 0.1, 1e-5)
                      for part in (h[:2], h[2:])])
    return repr(bool(torch.allclose(got, want, rtol=1e-12, atol=1e-12)))


def _exact_layer_pseudo_inverse() -> str:
    """The exact Gaussian layer's backward pass (the BN gradient simulator's ``method="exact"``) projects with (xxᵀ)⁺
    of the forward pass's K: for K = AAᵀ with A 5 × 3 (rank 3 of 5) and for a full-rank 3 × 3 K scaled by 10⁻³, the
    result P satisfies the four Penrose equations KPK = K, PKP = P, (KP)ᵀ = KP, (PK)ᵀ = PK, to 1e-10 relative —
    which determine the pseudo-inverse uniquely."""
    import torch

    from numerics.bn_meanfield import _pinv_psd
    A = torch.arange(15.0, dtype=torch.float64).reshape(5, 3) ** 0.5 + torch.eye(5, 3, dtype=torch.float64)
    B = torch.tensor([[2.0, 0.5, 0.1], [0.5, 1.0, 0.3], [0.1, 0.3, 0.7]], dtype=torch.float64) * 1e-3
    ok = []
    for K in (A @ A.T, B):
        P = _pinv_psd(K[None])[0]

        def close(u, v, scale):
            return bool((u - v).abs().max() <= 1e-10 * scale)
        # KP and PK are orthogonal projections (entries of size ≤ 1)
        ok.append(close(K @ P @ K, K, float(K.abs().max())) and close(P @ K @ P, P, float(P.abs().max()))
                  and close(K @ P, (K @ P).T, 1.0) and close(P @ K, (P @ K).T, 1.0))
    return repr(tuple(ok))


def _route_confirmation() -> str:
    """A closed-form kernel route is taken only after it agrees with the bivariate rule at three covariances, one of
    them negative: ReLU's arc-cosine route is confirmed, and the same route evaluated at |q₁₂| — right for every
    q₁₂ ≥ 0, wrong below — is not."""
    from dataclasses import replace

    from theory import activation
    from theory.kernels import _candidate, _confirmed
    relu = activation("relu")
    route = _candidate(relu)

    class AtAbsoluteCovariance:
        def pair(self, p):
            return route.pair(replace(p, q12=abs(p.q12)))

        def pair_derivative(self, p):
            return route.pair_derivative(replace(p, q12=abs(p.q12)))
    return repr((_confirmed(route, relu), _confirmed(AtAbsoluteCovariance(), relu)))


def _one_batch_epoch() -> str:
    """SGD over batches without replacement takes every full batch: the isometry trainer on 15 training samples with
    batch 15 takes one step per epoch, so the loss after one epoch (lr = 0.5) differs from the initial one; with
    batch 5 it takes three."""
    from numerics.training import train_isometry_mlp
    xy = _toy_data()
    runs = [train_isometry_mlp(xy, "relu", 2, 8, b, 1, lr=0.5, probe=[0, 1]) for b in (15, 5)]
    return repr(tuple(bool(r.train_loss[1] != r.train_loss[0]) for r in runs))


def _dirac_mass_of_a_kink() -> str:
    """E[φ″(u)φ(u)], u ~ N(0, q), for φ = |x − 1| + 1 (φ″ = 2δ(x − 1), φ(1) = 1) at q = 2: all of it is the kink's
    Dirac mass, 2·φ(1)·e^{−1/(2q)}/√(2πq) = 2e^{−1/4}/√(4π), by hand — within 1e-25 at 30 digits."""
    import mpmath

    from theory import activation
    from theory.meanfield_mlp import _moment
    value, _ = _moment(activation("abs(x - 1) + 1"), "phi_ddphi", 2.0, 30)
    with mpmath.workdps(30):
        exact = 2 * mpmath.exp(mpmath.mpf(-1) / 4) / mpmath.sqrt(4 * mpmath.pi)
        return repr(bool(abs(value - exact) < mpmath.mpf(10) ** -25))


def _bn_default_axis() -> str:
    """batch_norm_and_variance normalises along its documented default batch axis, the last: a 3 × 4 input comes
    out with every row of mean 0 and biased variance 1 (ε = 0), and one variance per row."""
    import torch

    from numerics.bn_layer import batch_norm_and_variance
    y, var = batch_norm_and_variance(torch.arange(12.0, dtype=torch.float64).reshape(3, 4) ** 1.5)
    return repr((bool(y.mean(-1).abs().max() < 1e-14), bool(((y * y).mean(-1) - 1).abs().max() < 1e-14),
                 tuple(var.shape)))


def _growth_limits() -> str:
    """The growth probe past its size guard, where only the sign of a huge argument survives a bounded function:
    erfc(x¹⁰⁰⁰⁰) at 8 is 0 (8¹⁰⁰⁰⁰ = e^20794), erfc(−x¹⁰⁰⁰⁰) is 2, and the step Heaviside(−x¹⁰⁰⁰⁰/2) is 0: a
    negative finite factor (−½) flips the huge argument's sign (sympy keeps the step's argument as written)."""
    import sympy as sp

    from theory.activations import x
    from theory.formula import growth_probe
    return ", ".join(repr(float(growth_probe(e, 8.0))) for e in (sp.erfc(x ** 10000), sp.erfc(-x ** 10000),
                                                                  sp.Heaviside(-x ** 10000 / 2)))


def _trajectory_away_from_one() -> str:
    """A correlation trajectory that moves away from c = 1 (its deviation grows): sign(x) at σ_w² = 1, σ_b² = 0 maps
    c to (2/π) arcsin c, so from c⁰ = 0.99 the five layers are that map iterated by hand, within 1e-12 — the
    trajectory settles only when a step leaves it where it was."""
    from theory.meanfield_depth import correlation_trajectory
    tr = correlation_trajectory("sign(x)", 1.0, 0.0, 0.99, 5, q=1.0)
    c, ok = 0.99, True
    for value in tr.values[1:]:
        c = 2 / math.pi * math.asin(c)
        ok = ok and abs(value - c) <= 1e-12
    return repr(bool(ok))


def _isometry_gap_refusal() -> str:
    """The isometry gap of a matrix that is not a Gram matrix — [[1, 1.2], [1.2, 1]], eigenvalues 2.2 and −0.2 — is
    refused, and the refusal names the smallest eigenvalue."""
    from theory.isometry import isometry_gap
    try:
        isometry_gap(np.array([[1.0, 1.2], [1.2, 1.0]]))
    except Exception as exc:  # noqa: BLE001 - the refusal is the observation
        return f"{type(exc).__name__}: {exc}"
    return "accepted"


def _bn_ensemble_sub_batches() -> str:
    """A BN ensemble member trained with sub-batches of 2 (batch 4, 3 SGD steps, seed 3) against its solo run (the
    solo trainer, whose sub-batch normalisation the canary above checks against torch): the same losses, to 1e-6."""
    from numerics.ensembles import train_bn_mlp_ensemble
    from numerics.training import train_bn_mlp
    xy = _toy_data()
    solo = train_bn_mlp(xy, "relu", 2, 8, 4, 3, lr=0.1, sub_batch=2, seed=3)
    member = train_bn_mlp_ensemble(xy, "relu", 2, 8, 4, 3, lr=0.1, sub_batch=2, seeds=[3])[0]
    return repr(bool(np.allclose(member.loss, solo.loss, rtol=0, atol=1e-6)))


def _radial_rule_large_scale() -> str:
    """The radial rule of the BN backward map, ∫_0^∞ f(t) t^α e^{−t} dt (α = 3/2 and −1/2: B = 8 and 4; 24 nodes),
    at the scales 10⁻³ and 100 (the latter, Bε/(2‖Σ‖) ≥ 64, puts its first panel at [0, 1]: no claim's ε does): the
    moments f = t^k (k = 0…5) against Γ(α + k + 1), and f = 1/(t + s), which turns over at the scale s, against
    Γ(α + 1) e^s s^α Γ(−α, s) by mpmath — each within 10⁻¹⁰ relative."""
    import mpmath
    from scipy import special

    from theory.bn_meanfield import _radial_weight_rule
    ok = []
    for alpha in (1.5, -0.5):
        for s in (1e-3, 100.0):
            t, w = _radial_weight_rule(alpha, 24, s)
            moments = all(abs(np.sum(w * t ** k) / special.gamma(alpha + k + 1) - 1) <= 1e-10 for k in range(6))
            want = float(mpmath.gamma(alpha + 1) * mpmath.exp(s) * mpmath.mpf(s) ** alpha * mpmath.gammainc(-alpha, s))
            ok.append(bool(moments and abs(np.sum(w / (t + s)) / want - 1) <= 1e-10))
    return repr(tuple(ok))


def _bn_forward_map_mc_error() -> str:
    """The BN forward map's Monte Carlo standard error (numerics.bn_kernels) against its definition, for φ = sign:
    every product of normalised, signed units is ±1, so its variance is 1 − mean² and the standard error with the
    unbiased variance of n samples gives se²·(n − 1) + mean² = 1 to rounding, entry by entry (Σ = ½I + ½, B = 4,
    4000 samples)."""
    from numerics.bn_kernels import bn_forward_map_mc
    mean, se = bn_forward_map_mc("sign(x)", 0.5 * np.eye(4) + 0.5, 4000, seed=1)
    return repr(bool(np.all(np.abs(se ** 2 * 3999 + mean ** 2 - 1) < 1e-12)))


def _illinois_at_a_triple_root() -> str:
    """Illinois where F is flat at its root — (x − 0.7)³ on [0, 3] and atan(x − 2)³ on [−5, 10], triple roots: the
    regula falsi steps stall on one end, and only the bisection every 8th step keeps the bracket shrinking; after
    the 200 iterations the root is within 10⁻⁶ (here 2·10⁻⁹ and 7·10⁻⁹) and inside the returned bracket."""
    from theory.fixed_points import illinois
    out = []
    for F, a, b, root in ((lambda x: (x - 0.7) ** 3, 0.0, 3.0, 0.7), (lambda x: math.atan(x - 2) ** 3, -5.0, 10.0, 2.0)):
        x, lo, hi, _ = illinois(F, a, b)
        out.append(bool(abs(x - root) <= 1e-6 and lo <= root <= hi))
    return repr(tuple(out))


def _theorem4_float_route() -> str:
    """Theorem 4's θ-integrals by the float route (Gauss–Legendre split where ζ₁ or ζ₂ vanish, with the square-root
    substitution at θ* = atan(1/√(B(B − 2)))) for sign and ReLU at B = 4 — where no sin^{B−4} factor damps the
    kink — against the sphere-marginal quadrature of bsb1_fixed_point (Gauss–Jacobi, another route): q* and q*c*
    within 10⁻¹⁰."""
    from theory.bn_meanfield import bsb1_fixed_point, theorem4_fixed_point
    out = []
    for act in ("sign(x)", "relu"):
        q, qc = theorem4_fixed_point(act, 4)
        fp = bsb1_fixed_point(act, 4)
        out.append(bool(abs(q - fp.q) <= 1e-10 and abs(qc - fp.q * fp.c) <= 1e-10))
    return repr(tuple(out))


def _alpha_relu_odd_nodes() -> str:
    """k_α(ρ) = E[(x)₊^α (y)₊^α] by the paired Gauss–Jacobi rule with an odd node count (31: the middle node is
    unpaired) against the arc-cosine closed forms at ρ = −0.9…0.9: α = 0, (π − arccos ρ)/(2π); α = 1,
    (√(1 − ρ²) + (π − arccos ρ)ρ)/(2π) — within 10⁻¹²."""
    from theory.bn_meanfield import alpha_relu_kernel
    rho = np.linspace(-0.9, 0.9, 7)
    t = np.pi - np.arccos(rho)
    k0, k1 = t / (2 * np.pi), (np.sqrt(1 - rho ** 2) + t * rho) / (2 * np.pi)
    return repr(tuple(bool(np.max(np.abs(alpha_relu_kernel(a, rho, nodes=31) - k)) <= 1e-12)
                      for a, k in ((0.0, k0), (1.0, k1))))


def _parity_degrees() -> str:
    """The Hermite coefficients that vanish by parity (theory.hermite.parity_zero_degrees): tanh is odd (every even
    c_k = 0: d_even = −1), ReLU is x/2 plus an even function (odd c_k = 0 from k = 3: d_odd = 1), x + x² has an even
    part of degree 2 and an odd part of degree 1."""
    from theory import activation
    from theory.hermite import parity_zero_degrees
    return repr(tuple(parity_zero_degrees(activation(a)) for a in ("tanh", "relu", "x + x**2")))


def _correlation_sde_time_grid() -> str:
    """What the correlation SDE (eqs 3.4–3.5) ran on: its time grid kept whole (keep="all": 0, dt, …, 5dt at
    dt = 0.25, exact in binary) and as its last time T = 1.25 (keep="last"), one stored state per time and path."""
    from numerics.covariance_sde import simulate_correlation_sde
    whole = simulate_correlation_sde(1.0, 0.0, 0.3, 1.25, 0.25, 2, seed=1)
    last = simulate_correlation_sde(1.0, 0.0, 0.3, 1.25, 0.25, 2, seed=1, keep="last")
    return repr((whole.times.tolist(), whole.values.shape, last.times.tolist(), last.values.shape))


def _explicit_bn_method() -> str:
    """An explicit method is the one that runs: the BN mean-field map of ReLU (Σ = I, B = 4, one layer) by
    method="mc" (4000 samples) carries Monte Carlo noise against method="laplace" — a difference above 10⁻⁶ and
    below 0.05 — where the automatic choice would take the Laplace route for ReLU (a difference of 0)."""
    from numerics.bn_meanfield import iterate_bn_meanfield
    mc = iterate_bn_meanfield("relu", np.eye(4), 1, method="mc", samples=4000, seed=1).trajectory[1]
    exact = iterate_bn_meanfield("relu", np.eye(4), 1, method="laplace").trajectory[1]
    return repr(bool(1e-6 < float(np.max(np.abs(mc - exact))) < 0.05))


def engine_canaries(canary, only=None) -> list:
    """The canaries of the engine paths no built-in claim takes, built with ``canary(name, expected, observed,
    passed)`` (:class:`verify.selftest.Canary`); ``only``: a collection of names, to run just those (a test of one
    canary need not run them all)."""
    from .selftest_inputs import _table
    return _table(canary, _ENGINE_ROWS, only)


_ENGINE_ROWS = [
    ("a Gram with λ_min = −1e-6 λ_max at scales 1 and 1e-305, a PSD one at 1e-305",
     "('DeepinitError', 'DeepinitError', 'accepted')", _psd_at_scales),
    ("the bivariate rule's radius for f = g = 1", "10.0", _truncation_radius),
    ("q* of SiLU at σ_w² = 3, σ_b² = 0; critical points of x − tanh x at σ_b² = 0", "(0.0, 'attracting', [])",
     _zero_bias_origin),
    ("homogeneity degrees of |x|, x², ReLU, exp", "[1.0, 2.0, 1.0, None]", _homogeneity),
    ("x = cos x by the secant and by Illinois", "(True, True, True)", _secant),
    ("the growth probe of √x, ∛x, x², tanh(x¹⁰⁰⁰¹), tanh(x¹⁰⁰⁰⁰) at negative x",
     "NotRealValued, -0.5, 0.25, -1.0, 1.0", _negative_bases),
    ("x + 0**2", "'x'", _zero_power),
    ("the covariance SDE's own noise vs the seed's documented increments", "True", _sde_own_noise),
    ("the Laplace route's converged and shape flags, recomputed", "(True, True)", _laplace_flags),
    ("two-slope arc-cosine kernels vs the bivariate rule", "True", _two_slope_kernels),
    ("the general Jacobian-spectrum solver's mean vs the closed form", "True", _smooth_jacobian_law),
    ("the identity's length map vs its geometric closed form", "(True, 7)", _identity_length_map),
    ("a one-sample probe of the isometry training, width 8",
     "probe: between 2 and width − 1 = 7 samples, got 1", _probe_message),
    ("E[X² (1 + Y)] with Var Y = 0 and E[(1 + X) Y²] with Var X = 0", "(2.0, 2.0)", _degenerate_variances),
    ("the correlation law's CDF in its last two cells", "[0.35, 0.75, 1.0]", _law_cdf_at_the_top),
    ("the explosion criterion of step and ReLU", "('step has a jump at x₀ = 0', 'relu has a kink at x₀ = 0')",
     _jump_or_kink),
    ("the covariance SDE's time grid, kept whole and last", "([0.0, 0.25, 0.5, 0.75, 1.0, 1.25], 6, [1.25], 1)",
     _sde_time_grid),
    ("ReLU's BN output mean at B = 4 and 5 vs the sphere's marginal", "(True, True)", _bn_output_mean),
    ("the kernel routes of ReLU, leaky ReLU, |x|, step, sign, erf, sin, cos, GELU, x, tanh, 2·erf(3x), sin(2x)",
     "('closed form (arc-cosine kernel of degree 1, slopes 1/0)', "
     "'closed form (arc-cosine kernel of degree 1, slopes 1/0.2)', "
     "'closed form (arc-cosine kernel of degree 1, slopes 1/-1)', "
     "'closed form (arc-cosine kernel of degree 0, values 1/0)', "
     "'closed form (arc-cosine kernel of degree 0, values 1/-1)', 'closed form (arcsine kernel of 1·erf(1x))', "
     "'closed form (1·sin(1x), Gaussian characteristic function)', "
     "'closed form (1·cos(1x), Gaussian characteristic function)', "
     "'closed form (GELU: orthant moments of a bivariate normal)', 'closed form (linear 1·x)', "
     "'logistic scale mixture of erf (1·tanh(1x) + 0; 16×16 Gauss nodes)', "
     "'closed form (arcsine kernel of 2·erf(3x))', 'closed form (1·sin(2x), Gaussian characteristic function)')",
     _closed_form_routes),
    ("erf's q*, c*, χ₁, χ_c, ξ_q, ξ_c at σ_w² = 1.5, σ_b² = 0.05 vs the arcsine closed forms",
     "(True, True, True, True, True, True)", _erf_mean_field),
    ("the covariance SDE's drift at ν scales 2 and ½ and at a = 2", "(True, True, True)", _drift_scales),
    ("simulate_bn_chain's default input covariance is 0.5·I + 0.5", "True", _default_input_covariance),
    ("the isometry MLP's exact method at width d = n = 5", "([5, 5], True)", _exact_at_width_n),
    ("BN gradients of a given input x and of 2x: layer 1 scaled by 4 and ¼, later layers equal",
     "(True, True, True)", _bn_given_input),
    ("the BN map's Monte Carlo standard error for sign: se²·n + mean² = 1", "True", _bn_map_mc_error),
    ("simulate_mlp's gradients through widths 8, 12, 16, dense and exact", "((2, 4, 2), True, (2, 4, 2), True)",
     _widening_backward),
    ("an Estimate's relative error at 0 ± 0, 0 ± 1e-3, −2 ± 1e-3; Hermite values at k_max = 1",
     "(0.0, inf, 0.0005, [[1.0, 1.0], [0.5, -2.0]])", _definitions_at_the_edge),
    ("the covariance map of ReLU at σ_b² = 0 vs the arc-cosine closed form", "True", _covariance_map_without_bias),
    ("E relu(x) and E relu(y)³ by the polar closed form (odd orders)", "(True, True)", _odd_relu_moments),
    ("the torch callable of (1 + x²)^(−3/2) vs numpy's", "True", _torch_negative_power),
    ("the explosion criterion of exp, recentred", "('exp(x) - 1', '7/4', True)", _recentred_exp),
    ("a linear network's tangents along x vs its kernel's diagonal; twin inputs' gradients",
     "(True, True, True)", _linear_network_tangents_and_gradients),
    ("the BN trainers' sub-batch normalisation vs torch's batch_norm per sub-batch", "True", _ghost_batch_norm),
    ("the exact Gaussian layer's pseudo-inverse against the Penrose equations, rank 3 of 5 and scale 1e-3",
     "(True, True)", _exact_layer_pseudo_inverse),
    ("ReLU's arc-cosine kernel route confirmed; the same at |q₁₂| refused", "(True, False)", _route_confirmation),
    ("the isometry trainer's first epoch over 15 samples in batches of 15 and of 5", "(True, True)", _one_batch_epoch),
    ("E φ″φ of |x − 1| + 1 at q = 2: the kink's Dirac mass by hand", "True", _dirac_mass_of_a_kink),
    ("batch_norm_and_variance of a 3 × 4 input along its default axis", "(True, True, (3, 1))", _bn_default_axis),
    ("the growth probe of erfc(x¹⁰⁰⁰⁰), erfc(−x¹⁰⁰⁰⁰), Heaviside(−x¹⁰⁰⁰⁰/2) at 8", "0.0, 2.0, 0.0",
     _growth_limits),
    ("sign's correlation trajectory from 0.99 vs (2/π) arcsin iterated", "True", _trajectory_away_from_one),
    ("the isometry gap of [[1, 1.2], [1.2, 1]]",
     "DeepinitError: a Gram matrix is not positive semi-definite (smallest eigenvalue -0.2)", _isometry_gap_refusal),
    ("a BN ensemble member with sub-batches of 2 vs its solo run", "True", _bn_ensemble_sub_batches),
    ("the BN backward map's radial rule at scales 10⁻³ and 100 vs Γ moments and mpmath's Γ(−α, s)",
     "(True, True, True, True)", _radial_rule_large_scale),
    ("the BN forward map's Monte Carlo standard error for sign: se²·(n − 1) + mean² = 1", "True", _bn_forward_map_mc_error),
    ("Illinois at the triple roots of (x − 0.7)³ and atan(x − 2)³", "(True, True)", _illinois_at_a_triple_root),
    ("Theorem 4's float θ-integrals for sign and ReLU at B = 4 vs the sphere-marginal quadrature", "(True, True)",
     _theorem4_float_route),
    ("the α-ReLU kernel with 31 nodes vs the arc-cosine closed forms at α = 0 and 1", "(True, True)",
     _alpha_relu_odd_nodes),
    ("the parity degrees of tanh, ReLU and x + x²", "((-1, None), (None, 1), (2, 1))", _parity_degrees),
    ("the correlation SDE's time grid, kept whole and last", "([0.0, 0.25, 0.5, 0.75, 1.0, 1.25], (2, 6), [1.25], (2, 1))",
     _correlation_sde_time_grid),
    ("the BN mean-field map of ReLU by an explicit method 'mc' vs 'laplace'", "True", _explicit_bn_method),
]
