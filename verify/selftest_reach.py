"""Known-answer canaries of the engine functions no checked claim executes (part 12 of :mod:`verify.selftest`).

The reach map (``benchmarks/mutation/reach.py``; ``tests/test_engine_reach.py``) asks that every function of
``theory/`` and ``numerics/`` is executed by some checked claim at the quick budget or by the self-test, or is exempt
for a stated reason. A function no verdict executes can be broken without any verdict changing: its users — a
researcher's plugin, a notebook, the documented API — meet the bug first. Each canary here calls such functions at an
input with an answer known independently (a closed form, scipy's Kolmogorov distribution, the Marchenko–Pastur law,
a polynomial's Gaussian moments, the arc-cosine recursion, the definition of a result's field), so that a wrong line
changes what the canary sees. One not as known makes ``verify all`` exit 4 before any claim runs.
"""
from __future__ import annotations

import math

import numpy as np


def _activation_introspection() -> str:
    """tanh‴(0) = −2 exactly; ReLU has a kink at 0, so no derivative there (None); the derivative of sign carries a
    Dirac mass, ReLU's does not; the repr names the registry name and the formula; a Piecewise branch that holds at
    single points only (Eq(x, 0), Eq(x, 0) | Eq(x, 1)) is dropped, a branch on an interval kept."""
    import sympy as sp

    from theory import activation
    from theory.activations import _drop_point_branches, x
    tanh, relu = activation("tanh"), activation("relu")
    pieces = (_drop_point_branches(sp.Piecewise((0, sp.Eq(x, 0)), (x, True))),
              _drop_point_branches(sp.Piecewise((1, sp.Eq(x, 0) | sp.Eq(x, 1)), (x ** 2, x > 0), (0, True))))
    return repr((tanh.derivative_at_zero(3), relu.derivative_at_zero(1), activation("sign(x)").derivative(1).has_dirac,
                 relu.derivative(1).has_dirac, repr(relu), *map(str, pieces)))


def _result_fields() -> str:
    """A :class:`theory.results.MatrixEstimate`'s shape, largest error, indexing, array view and entry (i, j) against
    the arrays it was built from; a :class:`theory.batchnorm.Distortion`'s value is the midpoint of its bounds; a
    Monte Carlo iteration's final Σ is its trajectory's last."""
    from numerics.bn_meanfield import iterate_bn_meanfield
    from theory.batchnorm import Distortion
    from theory.results import MatrixEstimate
    m = MatrixEstimate(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[0.1, 0.2], [0.3, 0.05]]), "made up")
    e = m.entry(1, 0)
    it = iterate_bn_meanfield("relu", np.eye(4) + 0.5, 2, method="laplace")
    return repr((m.shape, m.max_error, float(m[0, 1]), np.asarray(m, dtype=np.float32).dtype.name,
                 (e.value, e.error, e.method), Distortion("t", 3, 1.0, 2.0).value,
                 bool(np.array_equal(it.final, it.trajectory[-1])), it.final.shape))


def _bn_results() -> str:
    """The BSB1 fixed point of ReLU at B = 8 has q* = 1/2 exactly (its Estimate within its error, the error below
    10⁻¹², unpacked as (q, c)); the identity's BN Jacobian eigenvalues at B = 8: λ_𝔾 = 0 and λ_𝕃 = (B − 1)/(B + 1)
    = 7/9 (by key, by items, as Estimates; an unknown key refused); GELU's explosion criterion: φ = 2·GELU meets
    φ′(0) = 1, so φ″(0) = 2·2φ_N(0) = 2√(2/π), φ‴(0) = 0 and (3/4)φ″(0)² + φ‴(0) = 6/π (as floats and Estimates with
    their exact texts); ReLU's mean BN Jacobian at B = 4, s = 1.3 is
    (2/3)√(2/π)/√s; the depth scale ξ = 1/log λ_max with λ_max and its error as the rate's."""
    from theory import bn_jacobian_eigenvalues, bsb1_fixed_point, explosion_criterion, gradient_explosion_rate
    from theory.bn_meanfield import bn_mean_jacobian, depth_scale, gradient_explosion_rate_error
    fp = bsb1_fixed_point("relu", 8)
    q = fp.estimates()["q"]
    ev = bn_jacobian_eigenvalues("x", 8)
    L = ev.estimates()["L"]
    try:
        ev["X"]
        refused = "accepted"
    except KeyError:
        refused = "KeyError"
    crit = explosion_criterion("gelu")
    est = crit.estimates()
    alpha = bn_mean_jacobian("relu", 4, 1.3)
    rate = gradient_explosion_rate("relu", 8)
    value, err = gradient_explosion_rate_error("relu", 8)
    return repr((abs(q.value - 0.5) <= q.error < 1e-12, tuple(fp) == (fp.q, fp.c),
                 ev.keys(), [k for k, _ in ev.items()], ev["G"] == 0.0, abs(ev["L"] - 7 / 9) < 1e-12,
                 abs(L.value - 7 / 9) <= L.error < 1e-12, refused,
                 abs(float(crit) - 6 / math.pi) < 1e-15, est["criterion"].text, est["phi2"].text, est["phi3"].text,
                 abs(est["phi2"].value - 2 * math.sqrt(2 / math.pi)) <= est["phi2"].error,
                 abs(alpha - 2 / 3 * math.sqrt(2 / math.pi) / math.sqrt(1.3)) < 1e-13,
                 (value, err) == (rate.value, rate.error),
                 abs(depth_scale("relu", 8) - 1 / math.log(rate.value)) < 1e-12))


def _mean_reduced_dual() -> str:
    """σ̄(ρ) = Cov(φ(X), φ(Y)) of ReLU against its closed form (√(1 − ρ²) + (π − arccos ρ)ρ)/(2π) − 1/(2π) at
    ρ = 0, ½, 1 (0, …, Var ReLU(Z) = ½ − 1/(2π)), within 10⁻¹⁴."""
    from theory.dual import mean_reduced_dual
    r = np.array([0.0, 0.5, 1.0])
    ref = (np.sqrt(1 - r * r) + (math.pi - np.arccos(r)) * r) / (2 * math.pi) - 1 / (2 * math.pi)
    return repr(bool(np.max(np.abs(mean_reduced_dual("relu", r) - ref)) < 1e-14))


def _kernel_routes() -> str:
    """The kernels of φ = 3x (the linear route: K¹ = 9K⁰, Θ¹ = 18K⁰ — at 3, unlike 2, k² ≠ 2k) and of φ = x + x² (no
    closed form matched: the
    pair-by-pair quadrature route), whose Gaussian moments are exact: E φ(X)φ(Y) = q₁₂ + q₁q₂ + 2q₁₂² and
    E φ′(X)φ′(Y) = 1 + 4q₁₂, so Θ¹ = K¹ + (1 + 4q₁₂)q₁₂ at σ_w² = 1, σ_b² = 0 — each entry within 10⁻¹² relative."""
    from theory import kernel_route, network_kernels, ntk_kernel
    G = np.array([[1.0, 0.3], [0.3, 2.0]])
    lin = network_kernels("3*x", input_gram=G, depth=1)
    quad = ntk_kernel("x + x**2", input_gram=G, depth=1)
    K = G + np.outer(np.diag(G), np.diag(G)) + 2 * G * G
    T = K + (1 + 4 * G) * G
    return repr((kernel_route("3*x"), kernel_route("x + x**2")[:10],
                 bool(np.allclose(lin.nngp.value, 9 * G, rtol=1e-12, atol=0)),
                 bool(np.allclose(lin.ntk.value, 18 * G, rtol=1e-12, atol=0)),
                 bool(np.allclose(quad.value, T, rtol=1e-12, atol=0))))


def _kernel_reference() -> str:
    """The mpmath reference route of the kernels on ReLU at depth 1, σ_w² = 2, σ_b² = 0.5: with K⁰_aa = 2·1 + 0.5
    = 2.5, K¹_aa = 2·½·K⁰_aa + 0.5 = 3 and Θ¹_aa = K¹ + 2·½·Θ⁰_aa = 5.5 (its off-diagonal route costs seconds per
    entry: the tests compare it)."""
    from theory.kernels import kernel_entries_reference
    ref = kernel_entries_reference("relu", [[1.0, 0.5], [0.5, 1.0]], [(0, 0)], depth=1, sigma_w2=2.0, sigma_b2=0.5)
    return repr([float(v) for v in ref[(0, 0)]])


def _kolmogorov_law() -> str:
    """The Kolmogorov density (the scale mixture behind tanh's kernel route), float and mpmath, against scipy's
    ``kstwobign`` at points on both sides of s = 1.2 (where it changes series), within 10⁻¹³ relative."""
    from scipy.stats import kstwobign

    from theory.kernels import _kolmogorov_density_mp, kolmogorov_density
    s = np.array([0.3, 0.8, 1.19, 1.21, 2.5])
    ref = kstwobign.pdf(s)
    fl = float(np.max(np.abs(kolmogorov_density(s) / ref - 1)))
    mp = max(abs(float(_kolmogorov_density_mp(v)) / r - 1) for v, r in zip(s, ref))
    return repr((fl < 1e-13, bool(mp < 1e-13)))


def _mixture_rule() -> str:
    """A Gauss rule for the Kolmogorov weight computed afresh (6 nodes, 20 digits; the kernels store the 12- and
    16-node ones): its weights sum to 1 and Σ wᵢ erf(x/(√2 sᵢ)) reproduces tanh x (Stefanski 1991) within 5·10⁻⁶ at
    x = 0.1, 0.5, 1, 2, 4 (the rule's own accuracy at 6 nodes is 2·10⁻⁶)."""
    from scipy.special import erf

    from theory.kernels import _mixture_rule_mp
    s, w = _mixture_rule_mp(6, 20)
    xs = np.array([0.1, 0.5, 1.0, 2.0, 4.0])
    got = (w[None, :] * erf(xs[:, None] / (math.sqrt(2) * s[None, :]))).sum(1)
    return repr((bool(abs(w.sum() - 1) < 1e-15), float(np.max(np.abs(got - np.tanh(xs)))) < 5e-6))


def _kernels_on_device() -> str:
    """The kernels evaluated by torch (on the CPU) against the arc-cosine recursion of ReLU written out here (depth
    2, σ_w² = 2, σ_b² = 0.1): K^l_ab = σ_w² √(K_aa K_bb)(sin θ + (π − θ) cos θ)/(2π) + σ_b², Θ^l = K^l +
    σ_w² (π − θ)/(2π) Θ^(l−1), within 10⁻¹² relative."""
    from numerics.device_kernels import network_kernels_on_device
    G = np.array([[1.0, 0.3], [0.3, 2.0]])
    got = network_kernels_on_device("relu", input_gram=G, depth=2, sigma_w2=2.0, sigma_b2=0.1, device="cpu")
    K = 2.0 * G + 0.1
    T = K.copy()
    for _ in range(2):
        d = np.sqrt(np.diag(K))
        c = np.clip(K / np.outer(d, d), -1, 1)
        np.fill_diagonal(c, 1.0)        # θ = 0 exactly on the diagonal (arccos of a rounded 1 is 2·10⁻⁸)
        th = np.arccos(c)
        Kn = 2.0 * np.outer(d, d) * (np.sin(th) + (math.pi - th) * c) / (2 * math.pi) + 0.1
        T = Kn + 2.0 * (math.pi - th) / (2 * math.pi) * T
        K = Kn
    return repr((bool(np.allclose(got.nngp.value, K, rtol=1e-12, atol=0)),
                 bool(np.allclose(got.ntk.value, T, rtol=1e-12, atol=0))))


def _inputs_with_gram() -> str:
    """Inputs built for a Gram G₀ (n = 3, d = 8): centred columns and X₀ᵀX₀ = G₀ within 10⁻¹⁴, the eq-(1)
    embedding LN(x − x̄)/√d computed here leaves them unchanged."""
    import torch

    from numerics.isometry_mlp import inputs_with_gram
    G0 = np.array([[1.0, 0.5, -0.2], [0.5, 1.0, 0.1], [-0.2, 0.1, 1.0]])
    X = inputs_with_gram(G0, 8, torch.Generator().manual_seed(3)).numpy()
    centred = X - X.mean(0, keepdims=True)
    emb = centred / np.linalg.norm(centred, axis=0, keepdims=True)
    return repr((X.shape, float(np.abs(X.mean(0)).max()) < 1e-15, float(np.abs(X.T @ X - G0).max()) < 1e-14,
                 float(np.abs(emb - X).max()) < 1e-14))


def _dataset_file() -> str:
    """A dataset file as the command line checks it: x, y arrays load; x_train without the others is refused with
    the names it needs."""
    import os
    import tempfile

    from numerics.datasets import check_file
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory(prefix="deepinit-selftest-") as tmp:
        good, bad = os.path.join(tmp, "good.npz"), os.path.join(tmp, "bad.npz")
        np.savez(good, x=rng.normal(size=(40, 5)), y=np.arange(40) % 3)
        np.savez(bad, x_train=rng.normal(size=(4, 5)))
        out = [check_file(good)]
        try:
            check_file(bad)
            out.append("accepted")
        except Exception as exc:  # noqa: BLE001 - the refusal's text is the observation
            out.append(str(exc).split(": ", 1)[1][:40])
    return repr(out)


def _time_limit() -> str:
    """The formula analyser's time limit (SIGALRM, main thread only): a block that runs past 20 ms is stopped with
    the documented message; the shorter of two nested limits wins, whichever encloses the other; outside the main
    thread the block runs unlimited, as documented."""
    import threading
    import time

    from theory.formula import time_limit

    def spin(limit: float, outer: float | None = None) -> str:
        t0 = time.monotonic()
        try:
            if outer is None:
                with time_limit(limit, "probe"):
                    while time.monotonic() - t0 < 1.0:
                        pass
            else:
                with time_limit(outer, "outer"):
                    with time_limit(limit, "inner"):
                        while time.monotonic() - t0 < 1.0:
                            pass
            return "ran"
        except Exception as exc:  # noqa: BLE001 - the message is the observation
            return str(exc)
    if threading.current_thread() is not threading.main_thread():
        return repr(("not the main thread", spin(0.001) == "ran"))
    return repr((spin(0.02), spin(5.0, outer=0.02).split(":")[0], spin(0.02, outer=5.0).split(":")[0]))


def _correlation_law() -> str:
    """The law of ρ_T at T = 0 from ρ₀ = 5/16 on the grid xᵢ = −1 + i/8 (16 cells): half its mass at ¼, half at
    ⅜, so mean 5/16, variance (1/16)² = 1/256 and E ρ³ = (¼³ + ⅜³)/2 = 35/1024, all exact in binary."""
    from numerics.covariance_sde import correlation_sde_law
    law = correlation_sde_law(1.0, 1.0, 0.3125, 0.0, cells=16)
    return repr((law.mean, law.var, law.expect(lambda r: r ** 3)))


def _jacobian_law_fields() -> str:
    """The piecewise-linear Jacobian law of ReLU at depth 1 (σ_w² = 2, q¹ = 1): half of φ′ is 0, so an atom of ½ at
    λ = 0 and a continuous mass of ½ — from the panels' integral and from −M(0⁻), each within its stated error, each
    error below 10⁻⁶; its depth is 1."""
    from theory.jacobian_density import jacobian_spectral_density
    law = jacobian_spectral_density("relu", 2.0, 0.0, 1, q1=1.0)
    c = law.continuous_mass()
    return repr((law.depth, abs(c.value - 0.5) <= c.error + 1e-12, c.error < 1e-6,
                 abs(law.mass.value - 0.5) <= law.mass.error < 1e-6))


def _jacobian_law_cdf() -> str:
    """The same law's distribution function and quantiles against their definition: its continuous part is ½ times
    the Marchenko–Pastur law of ratio y = ½ and variance σ_w² = 2 (J Jᵀ = D W Wᵀ D keeps the half of the rows where
    φ′ = 1), so F(λ) = ½ + ½ ∫ p_MP over its support [2(1 − √½)², 2(1 + √½)²] up to λ — by scipy's adaptive
    quadrature of the closed-form density, within 10⁻¹¹ at λ = 0.1 (the atom alone), 1, 3 and 5.5; the quantile
    of F(3) is 3 within 10⁻⁹."""
    from scipy import integrate

    from theory.jacobian_density import jacobian_spectral_density
    law = jacobian_spectral_density("relu", 2.0, 0.0, 1, q1=1.0)
    a, e = 2 * (1 - math.sqrt(0.5)) ** 2, 2 * (1 + math.sqrt(0.5)) ** 2

    def mp(t):
        return math.sqrt(max((e - t) * (t - a), 0.0)) / (2 * math.pi * t)      # 2π σ² y t with σ² y = 1
    lam = np.array([0.1, 1.0, 3.0, 5.5])
    ref = np.array([0.5 + (0.5 * integrate.quad(mp, a, t, limit=200, epsabs=1e-14)[0] if t > a else 0.0) for t in lam])
    F = law.cdf(lam)
    back = law.quantile(ref[2:3])
    return repr((bool(np.all(np.abs(F - ref) < 1e-11)), bool(abs(back[0] - 3.0) < 1e-9)))


def _smooth_law_marchenko_pastur() -> str:
    """The general (smooth-φ) Jacobian solver with the law of φ′(h)² a point mass at 1 (the identity) at depth 1 with
    Gaussian weights, σ_w² = s = 0.8: JJᵀ is s·WWᵀ/N, the Marchenko–Pastur law of ratio 1, density
    √(λ(4s − λ))/(2πsλ) on [0, 4s] — its density at 0.3, 1, 3 within 10⁻⁹ relative and 0 at 3.3, its support's top
    within 10⁻⁵ of 3.2, its mass, mean s and second moment 2s² each within its stated error (below 10⁻⁶), its CDF at
    1 against the closed form's integral (scipy quad) within 10⁻⁹. (The rule for φ′(h)² of a given φ is built by
    :func:`theory.jacobian_density_smooth.d2_rule`, which part 11 checks.)"""
    from scipy.integrate import quad

    from theory.jacobian_density_smooth import SmoothJacobianDensity
    s = 0.8
    point = (np.array([1.0]), np.array([1.0]))
    law = SmoothJacobianDensity("gaussian", 1, s, 0.5, s, "Marchenko–Pastur", (point, point))
    lam = np.array([0.3, 1.0, 3.0])
    ref = np.sqrt(lam * (4 * s - lam)) / (2 * math.pi * s * lam)
    pdf = law.pdf(np.append(lam, 3.3))
    density = (float(np.max(np.abs(pdf[:3] / ref - 1))) < 1e-9, bool(pdf[3] == 0.0))
    if not all(density):   # a solver this wrong can scan for its support for minutes: the density already says
        return repr(density)
    m = [law.moment(k) for k in (0, 1, 2)]
    cdf1 = quad(lambda t: math.sqrt(t * (4 * s - t)) / (2 * math.pi * s * t), 0, 1.0, epsabs=1e-13)[0]
    return repr((*density, abs(law.support[-1][1] - 4 * s) < 1e-5,
                 bool(abs(law.pdf_with_error([1.0])[0][0] / ref[1] - 1) < 1e-9),
                 all(abs(e.value - v) <= e.error < 1e-6 for e, v in zip(m, (1.0, s, 2 * s * s))),
                 abs(float(law.cdf([1.0])[0]) - cdf1) < 1e-9))


def _defaults_and_last_terms() -> str:
    """Rare argument forms at known answers: ``meanfield_map_mc`` without a seed is its documented default, seed 0
    (the same draws); the Hermite coefficients of the identity up to k = 1 are exactly [0, 1] (the last one kept)."""
    from numerics.meanfield import meanfield_map_mc
    from theory import activation
    from theory.hermite import mp_hermite_coefficients
    G = np.array([[1.0, 0.3], [0.3, 0.8]])
    same = all(np.array_equal(a, b) for a, b in zip(meanfield_map_mc("tanh", G, 20)[:2],
                                                    meanfield_map_mc("tanh", G, 20, seed=0)[:2]))
    return repr((same, [c.value for c in mp_hermite_coefficients(activation("x"), 1)]))


def _lazy_names() -> str:
    """``dir(numerics)`` lists the lazily imported names (the simulators are imported on first use)."""
    import numerics
    return repr(all(n in dir(numerics) for n in ("run_isometry_mlp", "network_kernels_on_device",
                                                 "inputs_with_gram")))


def reach_canaries(canary) -> list:
    """The canaries of the engine functions no checked claim executes, built with ``canary(name, expected,
    observed, passed)`` (:class:`verify.selftest.Canary`)."""
    import threading

    from .selftest_inputs import _table
    return _table(canary, [
        ("tanh‴(0), ReLU′(0), Dirac masses of sign′ and ReLU′, repr, point-only Piecewise branches",
         "(-2, None, True, False, \"Activation('relu': Max(0, x))\", 'x', 'Piecewise((x**2, x > 0), (0, True))')",
         _activation_introspection),
        ("a MatrixEstimate's fields, a Distortion's value, an iteration's final Σ",
         "((2, 2), 0.3, 2.0, 'float32', (3.0, 0.3, 'made up'), 1.5, True, (4, 4))", _result_fields),
        ("BSB1 q* of ReLU, the identity's BN eigenvalues, GELU's criterion, ReLU's mean BN Jacobian, depth scale",
         "(True, True, ('G', 'L', 'M'), ['G', 'L', 'M'], True, True, True, 'KeyError', True, '6/pi', "
         "'2*sqrt(2)/sqrt(pi)', '0', True, True, True, True)", _bn_results),
        ("σ̄ of ReLU at ρ = 0, ½, 1 vs its closed form", "True", _mean_reduced_dual),
        ("the kernels of 3x (linear route) and x + x² (quadrature route) vs their Gaussian moments",
         "('closed form (linear 3·x)', 'quadrature', True, True, True)", _kernel_routes),
        ("the mpmath reference kernels of ReLU on the diagonal", "[3.0, 5.5]",
         _kernel_reference),
        ("the Kolmogorov density, float and mpmath, vs scipy's kstwobign", "(True, True)", _kolmogorov_law),
        ("a fresh 6-node Kolmogorov mixture rule reproduces tanh", "(True, True)", _mixture_rule),
        ("the kernels on the CPU device vs the arc-cosine recursion", "(True, True)", _kernels_on_device),
        ("inputs built for a Gram: centred, exact Gram, fixed by the eq-(1) embedding", "((8, 3), True, True, True)",
         _inputs_with_gram),
        ("a dataset file with x, y; one with x_train only", "[None, 'needs arrays x_train, y_train, x_test, y']",
         _dataset_file),
        ("the formula time limit at 20 ms, under a shorter and a longer outer limit",
         "('probe: gave up after 0.02 s (the formula is too complex to analyse)', 'outer', 'inner')"
         if threading.current_thread() is threading.main_thread() else "('not the main thread', True)", _time_limit),
        ("the correlation law at T = 0 between two grid nodes", "(0.3125, 0.00390625, 0.0341796875)", _correlation_law),
        ("ReLU's Jacobian law at depth 1: depth and continuous mass", "(1, True, True, True)", _jacobian_law_fields),
        ("ReLU's Jacobian law at depth 1: CDF and a quantile vs ½ + ½ Marchenko–Pastur", "(True, True)",
         _jacobian_law_cdf),
        ("the smooth Jacobian solver on the identity vs Marchenko–Pastur", "(True, True, True, True, True, True)",
         _smooth_law_marchenko_pastur),
        ("meanfield_map_mc's default seed is seed 0; the identity's Hermite coefficients up to k = 1",
         "(True, [0.0, 1.0])", _defaults_and_last_terms),
        ("dir(numerics) lists the lazy names", "True", _lazy_names),
    ])
