"""The σ_w²/σ_b² mean field of fully connected networks (theory.meanfield_mlp, theory.gaussian's scaled and bivariate
expectations, theory.fixed_points, Activation.derivative) and its finite-width simulator (numerics.mlp).

Every value is checked against an independent route: sympy's exact expectations, closed forms (arc-cosine kernel
of ReLU, arcsine kernel of erf, Stein/Gaussian identities), scipy's adaptive quadrature, Monte Carlo, finite
differences, torch autograd, and finite-width networks. Mutation tests show that the tolerances catch a 5% error.
"""
import math
import warnings

import numpy as np
import pytest
import sympy as sp
import torch
from scipy import integrate, optimize

from numerics.mlp import MLPRun, inputs_with_moments, simulate_mlp
from theory import activation
from theory.activations import x
from theory.fixed_points import slope, solve_fixed_point
from theory.gaussian import bivariate_expectation, exact_expectation, gaussian_expectation
from theory.meanfield_mlp import (chi_1, chi_c, correlation_map, correlation_stability, covariance_map,
                                  critical_sigma_w2, depth_scales, fixed_point_c, fixed_point_q,
                                  gradient_growth_rate, length_map)
from theory.results import Estimate

SB = 0.05   # the papers' σ_b² (Schoenholz et al. Figs 1–6)
_PHI = lambda z: np.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731


def _scipy_gauss(h):
    with warnings.catch_warnings():   # QUADPACK's "roundoff error detected" near 1e-15: the assertions judge accuracy
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        return integrate.quad(lambda z: h(z) * _PHI(z), -np.inf, np.inf, epsabs=1e-15, epsrel=1e-14, limit=400)[0]


def _relu_kernel(q11, q22, q12):
    c = q12 / math.sqrt(q11 * q22)
    th = math.acos(max(-1.0, min(1.0, c)))
    return math.sqrt(q11 * q22) / (2 * math.pi) * (math.sin(th) + (math.pi - th) * c)


def _erf_kernel(q11, q22, q12):
    return 2 / math.pi * math.asin(2 * q12 / math.sqrt((1 + 2 * q11) * (1 + 2 * q22)))


# ---------------------------------------------------------------------------------------------
# the result convention
# ---------------------------------------------------------------------------------------------

def test_estimate_convention():
    e = Estimate(1.75960123, 3e-4, "m")
    assert float(e) == 1.75960123 and str(e) == "1.7596(3)e0" and f"{e:.2f}" == "1.76"
    z = Estimate(-0.0, 0.0, "exact")
    assert z.value == 0.0 and math.copysign(1.0, z.value) == 1.0
    with pytest.raises(ValueError):
        Estimate(1.0, -1.0, "negative error")
    from theory.results import MatrixEstimate
    m = MatrixEstimate([[1.0, -0.0]], [[0.0, 1e-16]], "m")
    assert m.shape == (1, 2) and math.copysign(1.0, m.value[0, 1]) == 1.0
    for bad in (-0.5, -1e-300):          # any negative error is refused, however small
        with pytest.raises(ValueError, match="non-negative"):
            MatrixEstimate([[1.0, 2.0]], [[0.0, bad]], "negative error")


# ---------------------------------------------------------------------------------------------
# Gaussian expectations
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("v", [0.3, 2.5, 40.0])
def test_gaussian_expectation_scaled_closed_forms(v):
    e = gaussian_expectation(lambda u: max(u, 0) ** 2, variance=v, breakpoints=(0.0,))
    assert abs(e.value - v / 2) <= max(e.error, 2e-16 * v) and e.error < 1e-14 * v
    # E tanh′(√v z)² against scipy's adaptive quadrature (another rule, another implementation)
    d = activation("tanh").derivative()
    e = gaussian_expectation(lambda u: d.mpmath(u) ** 2, variance=v)
    ref = _scipy_gauss(lambda z: (1 - np.tanh(math.sqrt(v) * z) ** 2) ** 2)
    assert abs(e.value - ref) < 1e-12 and e.error < 1e-14
    # an odd integrand is exactly zero
    assert gaussian_expectation("tanh", variance=v).value == 0.0


def test_gaussian_expectation_vs_exact_sympy_route():
    """E elu(√v z)² at v = 9/4 by sympy's exact route (the activation σ(x) = elu(3x/2) at unit variance)."""
    elu = activation("elu")
    scaled = activation(elu.expr.subs(x, sp.Rational(3, 2) * x))
    exact = float(sp.re(sp.N(exact_expectation(scaled, 2), 30)))
    e = gaussian_expectation(lambda u: elu.mpmath(u) ** 2, variance=2.25, breakpoints=elu.breakpoints)
    assert abs(e.value - exact) <= e.error + 1e-16 and e.error < 1e-15


def test_gaussian_expectation_with_a_singularity_at_a_declared_kink():
    """E log|Z + 2|: the integrand is −∞ at the declared kink u = −2, one of the points where the mpmath route
    probes the integrand's size. The integral is finite; before the probe skipped non-finite values it was refused as
    "not integrable". Against scipy's adaptive quadrature split at −2."""
    import mpmath
    e = gaussian_expectation(lambda u: mpmath.log(abs(u + 2)), 1.0, breakpoints=[-2.0], dps=15)
    density = lambda u: math.log(abs(u + 2)) * math.exp(-u * u / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    ref = integrate.quad(density, -40, -2, limit=200)[0] + integrate.quad(density, -2, 40, limit=200)[0]
    assert abs(e.value - ref) < 1e-9 and e.error < 1e-12


@pytest.mark.parametrize("q11,q22,q12", [(1.0, 4.0, 1.0), (0.3, 2.5, -0.5), (2.0, 0.5, 0.99999 * 1.0),
                                         (1.0, 1.0, 1 - 1e-9), (7.0, 3.0, -4.5), (1.0, 1.0, 0.0)])
def test_bivariate_relu_and_erf_closed_forms(q11, q22, q12):
    r = bivariate_expectation("relu", "relu", q11, q22, q12)
    assert abs(r.value - _relu_kernel(q11, q22, q12)) <= r.error + 4e-16 * math.sqrt(q11 * q22)
    assert r.error < 1e-13 * math.sqrt(q11 * q22)
    e = bivariate_expectation("erf", "erf", q11, q22, q12)
    assert abs(e.value - _erf_kernel(q11, q22, q12)) <= e.error + 4e-16 and e.error < 1e-13


@pytest.mark.parametrize("q11,q22,c", [(1.0, 2.0, 0.3), (0.5, 3.0, -0.8), (2.0, 2.0, 0.999)])
def test_bivariate_f_neq_g(q11, q22, c):
    q12 = c * math.sqrt(q11 * q22)
    # Stein: E u₁ erf(u₂) = q12 E erf′(u₂) = q12 (2/√π)/√(1 + 2 q22)
    e = bivariate_expectation("identity", "erf", q11, q22, q12)
    assert abs(e.value - q12 * 2 / math.sqrt(math.pi) / math.sqrt(1 + 2 * q22)) <= e.error + 1e-15
    # kinks in both variables: E 1[u₁ > 0] relu(u₂) = √q22 (1 + c)/(2√(2π))
    e = bivariate_expectation("step", "relu", q11, q22, q12)
    assert abs(e.value - math.sqrt(q22) * (1 + c) / (2 * math.sqrt(2 * math.pi))) <= e.error + 1e-15
    assert e.error < 1e-13


def test_bivariate_tanh_vs_scipy_dblquad_and_c_pm_one():
    q11, q22, q12 = 0.8, 1.7, 0.6
    e = bivariate_expectation("tanh", "sigmoid", q11, q22, q12)
    c = q12 / math.sqrt(q11 * q22)
    s = math.sqrt(1 - c * c)
    ref = integrate.dblquad(
        lambda z2, z1: math.tanh(math.sqrt(q11) * z1) / (1 + math.exp(-math.sqrt(q22) * (c * z1 + s * z2)))
        * _PHI(z1) * _PHI(z2), -12, 12, -12, 12, epsabs=1e-14, epsrel=1e-13)[0]
    assert abs(e.value - ref) < 1e-11 and e.error < 1e-13
    # c = ±1: one-dimensional routes; relu(u)relu(−u) vanishes identically: exactly 0.0
    assert bivariate_expectation("relu", "relu", 2.0, 3.0, -math.sqrt(6.0)).value == 0.0
    one = bivariate_expectation("relu", "relu", 2.0, 3.0, math.sqrt(6.0))
    assert abs(one.value - math.sqrt(6.0) / 2) <= one.error + 1e-15
    with pytest.raises(ValueError):
        bivariate_expectation("relu", "relu", 1.0, 1.0, 1.01)
    # plain (mpmath-style scalar) callables with their kinks given
    e = bivariate_expectation(lambda u: max(u, 0), lambda u: max(u, 0), 1.0, 2.0, 0.7, breakpoints_f=(0.0,),
                              breakpoints_g=(0.0,))
    assert abs(e.value - _relu_kernel(1.0, 2.0, 0.7)) <= e.error + 1e-15


# ---------------------------------------------------------------------------------------------
# derivatives of activations
# ---------------------------------------------------------------------------------------------

def test_activation_derivative_against_sympy():
    d = activation("tanh").derivative()
    assert d.name == "tanh′" and sp.simplify(d.expr - (1 - sp.tanh(x) ** 2)) == 0 and not d.has_dirac
    d2 = activation("tanh").derivative(2)
    assert sp.simplify(d2.expr - sp.diff(sp.tanh(x), x, 2)) == 0
    r1 = activation("relu").derivative()
    assert r1.expr == activation("step").expr and r1.breakpoints == (0.0,) and not r1.has_dirac
    pts = np.array([-2.0, -0.3, 0.4, 3.0])
    assert np.array_equal(r1.numpy(pts), (pts > 0).astype(float))
    r2 = activation("relu").derivative(2)
    assert r2.expr == 0 and r2.dirac_atoms == ((0.0, 1.0, 0),) and r2.has_dirac
    s1 = activation("step").derivative()
    assert s1.expr == 0 and s1.dirac_atoms == ((0.0, 1.0, 0),)
    # a kinked activation with a smooth derivative elsewhere: ELU′ = 1 (x > 0), eˣ (x < 0), continuous, no mass
    e1 = activation("elu").derivative()
    assert np.allclose(e1.numpy(pts), np.where(pts > 0, 1.0, np.exp(pts)), rtol=0, atol=1e-15) and not e1.has_dirac


# ---------------------------------------------------------------------------------------------
# maps, fixed points and slopes
# ---------------------------------------------------------------------------------------------

def test_chi1_price_vs_finite_differences_of_the_correlation_map():
    for sw in (1.5, 2.5):
        q = fixed_point_q("tanh", sw, SB).value
        fd = slope(lambda c: correlation_map("tanh", c, q, sw, SB), 1.0, side="left")
        x1 = chi_1("tanh", sw, SB)
        assert abs(fd.value - x1.value) <= fd.error + 1e-12 and fd.error < 1e-6
    st = correlation_stability("tanh", 2.5, SB)            # chaotic: c* < 1, central differences at c*
    assert st.branch == "c* < 1" and st.stable and st.difference < 1e-9
    assert abs(correlation_map("tanh", st.fixed_point.value, fixed_point_q("tanh", 2.5, SB).value, 2.5,
                               SB).value - st.fixed_point.value) < 1e-13


def test_xi_q_is_the_slope_of_the_length_map():
    """ξ_q⁻¹ = −log[χ₁ + σ_w² E φ″φ] (eq 7) against finite differences of the length map at q*."""
    for act, sw, sb in (("tanh", 1.5, SB), ("erf", 2.0, 0.3), ("elu", 1.2, 0.2)):
        qs = fixed_point_q(act, sw, sb).value
        fd = slope(lambda q: length_map(act, q, sw, sb), qs)
        d = depth_scales(act, sw, sb)
        assert abs(math.exp(-1 / d.xi_q.value) - fd.value) <= fd.error + 1e-12


def test_fixed_point_q_erf_closed_form_and_mutation():
    """q* of erf from its closed-form length map (E erf(√q z)² = (2/π) asin(2q/(1 + 2q))), solved by brentq."""
    sw, sb, rho = 2.0, 0.3, 0.8
    closed = lambda q, b: sw / rho * 2 / math.pi * math.asin(2 * q / (1 + 2 * q)) + b - q  # noqa: E731
    ref = optimize.brentq(lambda q: closed(q, sb), sb, 50.0, xtol=1e-15, rtol=1e-15)
    e = fixed_point_q("erf", sw, sb, keep=rho)
    tol = 1e-12 * ref
    assert abs(e.value - ref) <= tol and e.error < tol
    # mutation: σ_b² scaled by 1.05 inside the map moves q* far beyond the tolerance
    mutated = fixed_point_q("erf", sw, 1.05 * sb, keep=rho).value
    assert abs(mutated - ref) > 1e6 * tol
    assert fixed_point_q("tanh", 0.9, 0.0).value == 0.0 and fixed_point_q("tanh", 1.0, 0.0).value == 0.0


def test_critical_point_tanh_independent_routes():
    crit = critical_sigma_w2("tanh", SB)
    # scipy route: adaptive quadrature + brentq on E tanh²/E tanh′² + σ_b² = q
    m2 = lambda q: _scipy_gauss(lambda z: np.tanh(math.sqrt(q) * z) ** 2)  # noqa: E731
    d2 = lambda q: _scipy_gauss(lambda z: (1 - np.tanh(math.sqrt(q) * z) ** 2) ** 2)  # noqa: E731
    qc = optimize.brentq(lambda q: m2(q) / d2(q) + SB - q, SB, 4.0, xtol=1e-15, rtol=1e-15)
    assert abs(crit.value - 1 / d2(qc)) < 1e-10 * crit.value and crit.error < 1e-14
    assert abs(crit.value - 1.76) < 5e-3                          # the papers' phase diagram
    x1 = chi_1("tanh", crit.value, SB)
    assert abs(x1.value - 1.0) < 1e-10
    # Monte Carlo: χ₁ = σ_w² E tanh′(√q* z)² and q* = σ_w² E tanh(√q* z)² + σ_b² at the critical point
    qs = fixed_point_q("tanh", crit.value, SB).value
    z = np.random.default_rng(20170424).standard_normal(2_000_000)
    t = np.tanh(math.sqrt(qs) * z)
    chi_mc = crit.value * (1 - t * t) ** 2
    q_mc = crit.value * t * t + SB
    assert abs(chi_mc.mean() - 1.0) < 4 * chi_mc.std() / math.sqrt(z.size)
    assert abs(q_mc.mean() - qs) < 4 * q_mc.std() / math.sqrt(z.size)
    d = depth_scales("tanh", crit.value, SB)
    assert d.phase == "critical" and d.xi_c.value == math.inf and d.xi_c_lower_bound > 1e13
    assert math.isfinite(d.xi_q.value) and d.c_star.value == 1.0


def test_critical_point_erf_closed_form():
    """erf: E erf(√q z)² = (2/π) asin(2q/(1+2q)), E erf′(√q z)² = (4/π)/√(1 + 4q): the boundary in closed form."""
    for sb in (0.05, 0.5):
        G = lambda q: math.asin(2 * q / (1 + 2 * q)) * math.sqrt(1 + 4 * q) / 2 + sb - q  # noqa: E731
        qc = optimize.brentq(G, sb, 50.0, xtol=1e-15, rtol=1e-15)
        ref = math.pi / 4 * math.sqrt(1 + 4 * qc)
        e = critical_sigma_w2("erf", sb)
        assert abs(e.value - ref) < 2e-15 * ref and e.error < 1e-15
    assert critical_sigma_w2("tanh", 0.0).value == 1.0


def test_xi_c_diverges_at_the_boundary_xi_q_does_not():
    sc = critical_sigma_w2("tanh", SB).value
    ks = np.arange(2, 6)
    for sign in (-1, 1):
        xs = [depth_scales("tanh", sc * (1 + sign * 10.0 ** -k), SB) for k in ks]
        assert all(d.phase == ("chaotic" if sign > 0 else "ordered") for d in xs)
        dist = np.abs(sc * 10.0 ** -ks)
        slope_ll = np.polyfit(np.log(dist), np.log([d.xi_c.value for d in xs]), 1)[0]
        assert abs(slope_ll + 1) < 0.02, slope_ll
        xq = np.array([d.xi_q.value for d in xs])
        assert np.all(np.isfinite(xq)) and np.ptp(xq) < 0.05 * xq.mean()
        if sign > 0:   # chaotic: ξ_c from χ_c at c* < 1, and χ_c ≈ 2 − χ₁ near the boundary
            assert all(d.c_star.value < 1 for d in xs)
            assert all(abs(d.chi_c.value - (2 - d.chi_1.value)) < 50 * (d.chi_1.value - 1) ** 2 for d in xs)


def test_dropout_removes_the_critical_point():
    sc = critical_sigma_w2("tanh", SB).value
    for sw in (1.2, sc, 2.5):
        cs = fixed_point_c("tanh", sw, SB, keep=0.9)
        d = depth_scales("tanh", sw, SB, keep=0.9)
        assert cs.value < 1 - 1e-3 and cs.error < 1e-10 and math.isfinite(d.xi_c.value) and d.phase != "critical"
        q = fixed_point_q("tanh", sw, SB, keep=0.9).value
        assert abs(correlation_map("tanh", cs.value, q, sw, SB, keep=0.9).value - cs.value) < 1e-12
        assert correlation_map("tanh", 1.0, q, sw, SB, keep=0.9).value < 1 - 1e-3   # c = 1 is not fixed
        # the dropout length map's fixed point: q* = (σ_w²/ρ) E φ² + σ_b² (scipy)
        assert abs(q - (sw / 0.9 * _scipy_gauss(lambda z: np.tanh(math.sqrt(q) * z) ** 2) + SB)) < 1e-12
    assert fixed_point_c("tanh", 1.2, SB).value == 1.0 and chi_c("tanh", 1.2, SB).value == chi_1("tanh", 1.2, SB).value


def test_solve_fixed_point_generic():
    e = solve_fixed_point(lambda t: math.cos(t), bracket=(0.0, 1.0))
    assert abs(e.value - 0.7390851332151607) <= e.error + 1e-16
    assert abs(solve_fixed_point(lambda t: 0.5 * t + 1.0, x0=0.3).value - 2.0) < 1e-13


# ---------------------------------------------------------------------------------------------
# finite-width networks
# ---------------------------------------------------------------------------------------------

def _trajectory(act, sw, sb, q0, c0, depth, keep=1.0):
    """Mean-field q^l, c^l (l = 1..depth) from inputs with x·x/N₀ = q0, correlation c0."""
    q, q12 = sw * q0 + sb, sw * q0 * c0 + sb
    qs, cs = [q], [q12 / q]
    for _ in range(depth - 1):
        q12 = covariance_map(act, q, q, q12, sw, sb).value
        q = length_map(act, q, sw, sb, keep).value
        qs.append(q)
        cs.append(q12 / q)
    return np.array(qs), np.array(cs)


def _pooled(sim, ref):
    """Per-seed average over layers of sim − ref (seeds independent): (mean, standard error)."""
    per_seed = (sim - ref[None, :]).mean(axis=1)
    return per_seed.mean(), per_seed.std(ddof=1) / math.sqrt(len(per_seed))


def test_finite_width_tracks_the_maps():
    N, depth, S, sw, sb, q0, c0 = 1000, 10, 32, 4.0, SB, 0.7, 0.9
    X = inputs_with_moments(q0, c0, 2, 300, seed=3)
    run = simulate_mlp("tanh", sw, sb, N, depth, X, seeds=S, method="exact", device="cpu")
    qs, cs = _trajectory("tanh", sw, sb, q0, c0, depth)
    allowance = 3.0 / N                          # the O(1/N) finite-width bias, relative
    mq, se_q = _pooled(run.q[:, 1:, 0] / qs[None, :], np.ones(depth))
    mc, se_c = _pooled(run.c[:, 1:, 0, 1], cs)
    assert abs(mq) < 4 * se_q + allowance and abs(mc) < 4 * se_c + allowance, (mq, se_q, mc, se_c)
    assert cs[-1] < 0.6 and np.allclose(run.q[:, 0, 0], q0)      # the chaotic map decorrelated the pair
    # mutation: σ_w² 5% off in the maps is caught by the same tolerance
    qm, cm = _trajectory("tanh", 1.05 * sw, sb, q0, c0, depth)
    mq2, _ = _pooled(run.q[:, 1:, 0] / qm[None, :], np.ones(depth))
    assert abs(mq2) > 4 * se_q + allowance
    # dense weights, a few seeds: the same maps, dropout's 1/ρ on the length map included
    X2 = inputs_with_moments(q0, c0, 2, 1000, seed=4)
    dense = simulate_mlp("tanh", sw, sb, N, 4, X2, seeds=4, keep=0.8, method="dense", device="cpu")
    qd, _ = _trajectory("tanh", sw, sb, q0, c0, 4, keep=0.8)
    md, se_d = _pooled(dense.q[:, 1:, 0] / qd[None, :], np.ones(4))
    assert abs(md) < 4 * se_d + allowance


def test_exact_and_dense_agree_in_law():
    X = inputs_with_moments(0.8, 0.6, 3, 200, seed=5)
    runs = [simulate_mlp("tanh", 1.9, SB, 200, 6, X, seeds=24, method=m, backprop=True, tangent=True, seed=100,
                         device="cpu") for m in ("dense", "exact")]
    for stat in (lambda r: r.q[:, 1:, :].mean(axis=2), lambda r: r.c[:, 1:, 0, 2],
                 lambda r: r.gradient_ratios().mean(axis=2), lambda r: r.tangent_ratios().mean(axis=2)):
        a, b = (stat(r).mean(axis=1) for r in runs)
        se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
        assert abs(a.mean() - b.mean()) < 4 * se


def test_gradient_and_tangent_growth_is_chi1():
    sw, N, depth = 1.5, 1000, 10
    qs = fixed_point_q("tanh", sw, SB, keep=0.9).value
    X = inputs_with_moments((qs - SB) / sw, 0.4, 2, 500, seed=7)      # q^1 = q*: the network starts at the fixed point
    run = simulate_mlp("tanh", sw, SB, N, depth, X, seeds=32, method="exact", backprop=True, tangent=True, keep=0.9,
                       device="cpu")
    rate = gradient_growth_rate("tanh", sw, SB, keep=0.9)             # χ₁/ρ at the dropout fixed point
    for ratios in (run.gradient_ratios(), run.tangent_ratios()):
        per_seed = ratios.mean(axis=(1, 2))
        m, se = per_seed.mean(), per_seed.std(ddof=1) / math.sqrt(per_seed.size)
        assert abs(m - rate.value) < 4 * se + 3.0 / N, (m, se, rate.value)
        assert abs(m - 1.05 * rate.value) > 4 * se + 3.0 / N          # a 5% error would be caught
    X = inputs_with_moments((fixed_point_q("tanh", sw, SB).value - SB) / sw, 0.4, 2, 500, seed=7)
    dense = simulate_mlp("tanh", sw, SB, N, 6, X, seeds=3, method="dense", backprop=True, device="cpu")
    per_seed = dense.gradient_ratios().mean(axis=(1, 2))
    x1 = chi_1("tanh", sw, SB).value
    assert abs(per_seed.mean() - x1) < 4 * per_seed.std(ddof=1) / math.sqrt(3) + 3.0 / N


def _autograd_reference(seed, sw, sb, N, L, X, keep):
    """The same dense network written out with torch autograd (readout and dropout as in numerics.mlp): the squared
    gradients by reverse mode and the forward tangents' squared norms per unit, |∂z^l/∂x · u|²/N_l with u the
    simulator's default direction (layer 0: |u|²/N₀), by forward mode (torch.func.jvp)."""
    from numerics.bn_meanfield import derived_seed
    g, a = torch.Generator(), torch.Generator()
    g.manual_seed(seed)
    a.manual_seed(derived_seed(seed, 1))
    n, n0 = X.shape
    T = torch.empty(n0, n, dtype=torch.float64).normal_(generator=a)
    v = torch.empty(N, dtype=torch.float64).normal_(generator=a)
    layers, width = [], n0
    for ell in range(L):
        W = torch.empty(N, width, dtype=torch.float64).normal_(generator=g) * math.sqrt(sw / width)
        b = torch.empty(N, dtype=torch.float64).normal_(generator=g) * math.sqrt(sb)
        mask = (torch.bernoulli(torch.full((N, n), keep, dtype=torch.float64), generator=g) / keep
                if keep < 1 and ell < L - 1 else None)
        layers.append((W, b, mask))
        width = N

    def forward(x):
        Y, zs = x, []
        for W, b, mask in layers:
            z = W @ Y + b[:, None]
            zs.append(z)
            Y = torch.tanh(z) if mask is None else torch.tanh(z) * mask
        return zs
    x0 = torch.tensor(X.T, requires_grad=True)
    zs = forward(x0)
    for z in zs:
        z.retain_grad()
    ((v[:, None] * zs[-1]).sum() / math.sqrt(N)).backward()
    grads = np.array([(x0.grad ** 2).sum(0).numpy()] + [(z.grad ** 2).sum(0).numpy() for z in zs])
    _, tangents = torch.func.jvp(lambda x: tuple(forward(x)), (x0.detach(),), (T,))
    tans = np.array([(T * T).sum(0).numpy() / n0] + [(t * t).sum(0).numpy() / N for t in tangents])
    return grads, tans


def test_simulator_reproducibility_config_and_autograd():
    X = inputs_with_moments(1.0, 0.3, 3, 30, seed=2)
    kw = dict(keep=0.9, tangent=True, backprop=True, device="cpu")
    solos = {}
    for method in ("dense", "exact"):
        batched = simulate_mlp("tanh", 1.7, SB, 40, 5, X, seeds=[3, 7, 11], method=method, **kw)
        solo = solos[method] = simulate_mlp("tanh", 1.7, SB, 40, 5, X, seeds=[7], method=method, **kw)
        again = simulate_mlp("tanh", 1.7, SB, 40, 5, X, seeds=[7], method=method, **kw)
        for f in ("cov", "tangent_sq", "grad_sq"):
            assert np.array_equal(getattr(solo, f), getattr(again, f))
            b, s = getattr(batched, f)[1], getattr(solo, f)[0]
            assert np.max(np.abs(b - s)) <= 1e-12 * np.max(np.abs(s))
        assert isinstance(batched, MLPRun) and batched.cov.shape == (3, 6, 3, 3)
        assert batched.config == dict(activation="tanh", sigma_w2=1.7, sigma_b2=SB, keep=0.9, width=40,
                                      widths=[30, 40, 40, 40, 40, 40], depth=5, n_inputs=3, method=method,
                                      dtype="float64", device="cpu", seeds=[3, 7, 11], tangent=True, backprop=True)
    ref, ref_tangents = _autograd_reference(7, 1.7, SB, 40, 5, X, 0.9)
    assert np.max(np.abs(ref - solos["dense"].grad_sq[0])) <= 1e-12 * np.max(ref)
    # every layer's tangent, the input's included (a tangent norm off at layer 0 moves no ratio a claim reads)
    assert np.max(np.abs(ref_tangents - solos["dense"].tangent_sq[0])) <= 1e-12 * np.max(ref_tangents)
    for method in ("dense", "exact"):  # asking for tangents/gradients leaves the forward pass alone
        fwd = simulate_mlp("tanh", 1.7, SB, 40, 5, X, seeds=[7], method=method, keep=0.9, device="cpu")
        assert np.max(np.abs(fwd.cov - solos[method].cov)) < 1e-13


def test_one_gaussian_engine_the_isometry_dual_is_the_bivariate_rule_and_matches_the_hermite_series():
    """theory.dual_quadrature (the isometry paper's σ̂) is theory.gaussian.bivariate_expectation at unit variances,
    and that rule agrees with the independent Hermite series Σ c_k² ρ^k (1-D integrals of σ·He_k; tail below
    2⁻²⁰⁰ Var σ at |ρ| ≤ 1/2) to 1e-13, for smooth, kinked and jump activations. (scipy's dblquad and the closed forms
    check the rule at other correlations and variances in the tests above and in tests/test_hermite_dual.py.)"""
    import numpy as np
    from theory import DualSeries, activation, dual_quadrature, hermite_coefficients, variance
    from theory.gaussian import bivariate_expectation
    rs = np.array([-0.5, -0.2, 0.0, 0.3, 0.5])
    for name in ("relu", "tanh", "step", "gelu", "selu", "exp"):
        act = activation(name)
        d = dual_quadrature(act, rs)
        assert list(d) == [bivariate_expectation(act, act, 1.0, 1.0, r).value for r in rs], name
        series = DualSeries(act, 200)
        c0 = float(hermite_coefficients(act, 0, kind="float")[0])
        ref = series.mean_reduced(rs) + c0 * c0
        assert np.max(np.abs(d - ref)) < 1e-13 * max(1.0, series.var + c0 * c0), name
    c = hermite_coefficients("tanh", 150, kind="float")
    assert np.sum(c[1:] ** 2) == pytest.approx(variance("tanh"), rel=1e-12)

def test_gaussian_expectation_refuses_what_it_cannot_integrate():
    """A non-integrable integrand is an error with one line, never a finite number, inf or a raw exception."""
    import mpmath
    from theory.errors import QuadratureError
    from theory.gaussian import gaussian_expectation
    with pytest.raises(QuadratureError, match="does not decay"):
        gaussian_expectation(lambda u: mpmath.exp(u * u / 2))       # E e^{Z²/2} = ∞ (used to give 1.39e44)
    with pytest.raises(QuadratureError, match="not finite|does not decay"):
        gaussian_expectation(lambda u: mpmath.exp(u * u))           # used to return inf
    with pytest.raises(QuadratureError, match="cannot be evaluated at u = 0.0: ZeroDivisionError"):
        gaussian_expectation(lambda u: 1 / abs(u))                  # used to raise ZeroDivisionError
    assert float(gaussian_expectation(lambda u: mpmath.exp(u * u / 4)).value) == pytest.approx(math.sqrt(2), rel=1e-14)
    assert float(gaussian_expectation(lambda u: mpmath.exp(3 * u)).value) == pytest.approx(math.exp(4.5), rel=1e-14)


def test_an_attracting_fixed_point_above_the_default_scan_range_is_found_from_above():
    """σ(x) = x(1 + 1/(1 + x²/30000)) at σ_w² = 0.5, σ_b² = 0.05: L(q)/q falls through 1 at q* ≈ 22515, above the
    default scan range 10⁴; from q⁰ = 3·10⁴ and 5·10⁴ the scan reaches 10q⁰ and finds it (scipy's adaptive quadrature
    and Brent's method: 22515.41211324213)."""
    phi = lambda u: u * (1 + 1 / (1 + u * u / 3e4))  # noqa: E731

    def length(q):
        g = lambda z: phi(math.sqrt(q) * z) ** 2 * math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
        return 0.5 * integrate.quad(g, -np.inf, np.inf, epsabs=0, epsrel=1e-13, limit=200)[0] + 0.05
    ref = optimize.brentq(lambda q: length(q) - q, 1e4, 1e5, xtol=1e-10, rtol=1e-14)
    for q0 in (3e4, 5e4):
        fp = fixed_point_q("x*(1 + 1/(1 + x**2/30000))", 0.5, 0.05, q0=q0)
        assert abs(fp.value - ref) <= 1e-9 * ref and fp.error < 1e-9 * ref


def test_a_basin_reaching_the_scan_end_ends_at_ten_times_q_star():
    """ReLU at σ_w² = 1, σ_b² = 1000: L(q) = q/2 + 1000 attracts every q⁰ to q* = 2000 (exact); the basin reported is
    the scanned range [0, max(10⁴, 10 q*)] = [0, 20000], as documented ("at least up to there"); with q⁰ = 3·10⁴ the
    range is [0, 3·10⁵]."""
    fp = fixed_point_q("relu", 1.0, 1000.0)
    assert fp.value == pytest.approx(2000.0, rel=1e-14) and fp.stability == "attracting"
    assert fp.basin == (0.0, 20000.0)
    assert fixed_point_q("relu", 1.0, 1000.0, q0=3e4).basin == (0.0, 3e5)


def test_an_exact_root_of_zero_slope_keeps_its_zero_error():
    """T(x) = x − (x − 1)³ on [0, 2]: Illinois lands on the fixed point 1 exactly, where F = T − x has slope 0 and T
    carries no error: the estimate is exact (0 error), not ∞ (nothing to propagate through the zero slope)."""
    from theory import solve_fixed_point
    e = solve_fixed_point(lambda t: t - (t - 1) ** 3, bracket=(0.0, 2.0))
    assert e.value == 1.0 and e.error == 0.0


def _mp_fixed_point_q(sw, sb, dps=30):
    """q* = σ_w² E tanh(√q z)² + σ_b² by mpmath's quadrature and findroot (no engine code)."""
    import mpmath
    with mpmath.workdps(dps):
        def m2(q):
            return mpmath.quad(lambda z: mpmath.tanh(mpmath.sqrt(q) * z) ** 2 * mpmath.npdf(z), [-mpmath.inf, 0, mpmath.inf])
        return mpmath.findroot(lambda q: sw * m2(q) + sb - q, 0.5)


def test_gradient_growth_rate_equals_an_mpmath_route_within_a_tight_stated_error():
    """(N_{l+1}/N_l)·χ₁/ρ (Schoenholz et al. eq 16) for tanh at σ_w² = 1.2, σ_b² = 0.05, N_{l+1}/N_l = 2: the
    engine's value within its stated error (+1 ulp) of 2σ_w² E tanh′(√q* z)² computed with mpmath (q* by findroot),
    and that error a float64 one (≤ 1e-14 relative) — a stated error of the order of the value would let a claim
    that reads it pass anything."""
    import mpmath
    sw = 1.2
    with mpmath.workdps(30):
        q = _mp_fixed_point_q(sw, SB)
        ref = float(2 * sw * mpmath.quad(lambda z: mpmath.sech(mpmath.sqrt(q) * z) ** 4 * mpmath.npdf(z),
                                         [-mpmath.inf, 0, mpmath.inf]))
    rate = gradient_growth_rate("tanh", sw, SB, width_ratio=2.0)
    assert abs(rate.value - ref) <= rate.error + 2.3e-16 * ref, (rate, ref)
    assert 0 < rate.error <= 1e-14 * ref, rate


def test_chi_c_carries_the_error_of_the_correlation_fixed_point():
    """χ_c = σ_w² E φ′(u₁)φ′(u₂) at c* < 1 (tanh, σ_w² = 2.5, σ_b² = 0.05): its value against a 240×240-node
    Gauss–Hermite rule in numpy, and its stated error at least what c*'s stated error moves it by — the slope
    dχ_c/dc = σ_w² q* E φ″(u₁)φ″(u₂) (Price's theorem) from the same numpy rule times c*'s error."""
    sw = 2.5
    cs, qs = fixed_point_c("tanh", sw, SB), fixed_point_q("tanh", sw, SB).value
    z, w = np.polynomial.hermite_e.hermegauss(240)              # converged to 1e-16 here (120 nodes: 2e-12 off)
    w = w / w.sum()
    c = cs.value
    u1 = math.sqrt(qs) * z[:, None] + 0 * z[None, :]
    u2 = math.sqrt(qs) * (c * z[:, None] + math.sqrt(1 - c * c) * z[None, :])
    W = w[:, None] * w[None, :]
    d1 = lambda u: 1 / np.cosh(u) ** 2                                       # noqa: E731
    d2 = lambda u: -2 * np.tanh(u) / np.cosh(u) ** 2                          # noqa: E731
    value = sw * float(np.sum(W * d1(u1) * d1(u2)))
    slope = sw * qs * float(np.sum(W * d2(u1) * d2(u2)))
    xc = chi_c("tanh", sw, SB)
    assert abs(xc.value - value) <= xc.error + 1e-14, (xc, value)
    assert cs.error > 0 and xc.error >= 0.9 * abs(slope) * cs.error, (xc.error, slope, cs.error)


@pytest.mark.parametrize("root", [0.1, 0.77, 1.9])
@pytest.mark.parametrize("power", [3, 9, 15])
def test_illinois_keeps_the_sign_change_through_its_bisection_steps(root, power):
    """F(x) = ±sign(x − r)|x − r|^k on [0, 2], both orientations of the bracket: flat near its root, so the Illinois
    iteration takes its bisection step every 8 iterations; the bracket returned still contains the exact root r and
    x is within 1e-6 of it (a bisection step that keeps the wrong half loses the root: x = 1.99999…, 0.047…)."""
    from theory.fixed_points import illinois
    for sign in (1, -1):
        def F(t):
            return sign * math.copysign(abs(t - root) ** power, t - root)
        for a, b in ((0.0, 2.0), (2.0, 0.0)):
            x, lo, hi, n = illinois(F, a, b)
            assert lo - 1e-12 <= root <= hi + 1e-12 and abs(x - root) <= 1e-6, (sign, a, b, x, lo, hi, n)


def test_an_estimates_text_keeps_its_error_when_the_value_rounds_up_to_a_power_of_ten():
    """Estimate's text m(k)eX: the value rounded at the unit of the error's last digit, k units of it. Hand-worked
    cases — 9.99996 ± 1e-4 rounds to 10.0000 = 1.00000(1)e1 (not 1.0000(1)e1, an error shown 10× too large) — and,
    over 20 000 seeded random values and errors, the text's value within half a unit of v and its error between e and
    2.5e (the unit is at most e; one digit of error at most)."""
    cases = {(2.5, 0.01): "2.50(1)e0", (9.99996, 1e-4): "1.00000(1)e1", (-9.99996, 1e-4): "-1.00000(1)e1",
             (99.9, 39.0): "1.0(4)e2", (0.0999996, 1e-6): "1.00000(1)e-1", (9.96, 0.1): "1.00(1)e1",
             (-0.00123, 4e-6): "-1.230(4)e-3"}
    for (v, e), text in cases.items():
        assert str(Estimate(v, e, "")) == text, (v, e)
    rng = np.random.default_rng(20261129)
    for _ in range(20_000):
        v = float(rng.choice([-1, 1]) * 10 ** rng.uniform(-20, 20))
        e = float(abs(v) * 10 ** rng.uniform(-15, -0.01))
        text = str(Estimate(v, e, ""))
        mantissa, rest = text.split("(")
        units, exp10 = rest.split(")e")
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        unit = 10.0 ** (int(exp10) - decimals)
        assert abs(float(mantissa) * 10.0 ** int(exp10) - v) <= 0.5 * unit * (1 + 1e-9) + 1e-15 * abs(v), (v, e, text)
        assert e * (1 - 1e-9) <= int(units) * unit <= 2.5 * e, (v, e, text)


@pytest.mark.parametrize("formula, slope2", [("relu", 0.5), ("max(x, 0.2*x)", 0.52), ("abs(x)", 1.0)])
def test_chi_1_of_a_degree_one_activation_without_bias_at_a_non_dyadic_weight_variance(formula, slope2):
    """φ positively homogeneous of degree 1 and σ_b² = 0: χ₁ = σ_w² E φ′(z)² = σ_w² (φ′(0⁺)² + φ′(0⁻)²)/2 at every q
    — ReLU 0.5, leaky ReLU with slope 0.2 (1 + 0.04)/2, |x| 1 — at σ_w² = 1.7 (not a short binary fraction, so a
    product taken at too few digits shows): to 2 ulp, with a stated error below 1e-15."""
    x1 = chi_1(formula, 1.7, 0.0)
    assert x1.value == pytest.approx(1.7 * slope2, rel=5e-16, abs=0) and x1.error <= 1e-15, x1


@pytest.mark.parametrize("q, c", [(1.0, 0.5), (2.3, -0.4)])
def test_bivariate_expectation_splits_at_kinks_off_the_grid(q, c):
    """E f(u₁)f(u₂) for f = |x − 0.77| (a kink off every grid point of the nested rule), u ~ N(0, q[[1, c], [c, 1]]):
    the rule splits its outer and inner pieces at the kink, so its value agrees with scipy's adaptive quadrature
    (nested, split at the kink in both variables) within 1e-10 and states an error below 1e-12 (without the outer
    split the value moves by ~1e-6 and the stated error grows to ~1e-4)."""
    a = 0.77
    s = math.sqrt(1 - c * c)

    def inner(z1):
        u1 = math.sqrt(q) * z1
        kink = (a / math.sqrt(q) - c * z1) / s                       # u₂ = a
        g = lambda z2: abs(math.sqrt(q) * (c * z1 + s * z2) - a) * _PHI(z2)  # noqa: E731
        return abs(u1 - a) * _PHI(z1) * sum(integrate.quad(g, lo, hi, epsabs=1e-14, epsrel=1e-13, limit=200)[0]
                                             for lo, hi in ((-np.inf, kink), (kink, np.inf)))
    k1 = a / math.sqrt(q)
    ref = sum(integrate.quad(inner, lo, hi, epsabs=1e-13, epsrel=1e-12, limit=200)[0]
              for lo, hi in ((-np.inf, k1), (k1, np.inf)))
    act = activation("abs(x - 0.77)")
    e = bivariate_expectation(act, act, q, q, c * q)
    assert abs(e.value - ref) <= 1e-10 and e.error <= 1e-12, (e, ref)


def test_a_negative_gaussian_expectation_keeps_its_digits_in_the_text():
    """E[−Z² − 1] = −2: the estimate's text is −2.0, not "0" (the text is "0" only for a zero value, E Z³)."""
    e = gaussian_expectation(lambda u: -u * u - 1)
    assert e.value == -2.0 and e.text == "-2.0", e
    assert gaussian_expectation(lambda u: u ** 3).text == "0"
