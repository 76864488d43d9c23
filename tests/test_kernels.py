"""NNGP and NTK kernels of input sets (theory.kernels): every route against an independent one.

Routes compared: the closed forms and the logistic scale mixture against the nested Gauss–Legendre quadrature of
theory.gaussian (pair by pair, 60 nodes per piece); whole recursions against neural-tangents 0.6.5's analytic
kernels (recorded in tests/data by benchmarks/peers/neural_tangents_kernels.py; JAX is not installed here), against
the engine's own length and covariance maps iterated layer by layer, against a 50-digit mpmath recursion of the
arc-cosine kernel, and (tanh) against the nested mpmath quadrature of kernel_entries_reference.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import mpmath
import numpy as np
import pytest

from theory import activation
from theory.errors import DeepinitError, UndefinedQuantityError
from theory.gaussian import bivariate_expectation
from theory.kernels import (MIXTURE_NODES, MIXTURE_NODES_CHECK, _Erf, _Pairs, _TanhMixture, _confirmed, _mixture_rule,
                            _mixture_rule_mp, _route_for, kernel_entries_reference,
                            kernel_route, kolmogorov_density, network_kernels, nngp_kernel, ntk_kernel)
from theory.meanfield_mlp import covariance_map, length_map

DATA = Path(__file__).parent / "data" / "neural_tangents_0.6.5_kernels.json"

# (q_aa, q_bb, c): c → ±1, variances from 1e-3 to 1e4, unequal variances
HARD = [(1.0, 1.0, 0.3), (0.2, 5.0, -0.9), (100.0, 50.0, 0.999), (1e-3, 2e-3, 0.5), (3.0, 3.0, 0.999999),
        (2.0, 0.5, 1.0)]


def _pairs(points):
    q1 = np.array([p[0] for p in points])
    q2 = np.array([p[1] for p in points])
    c = np.array([p[2] for p in points])
    q12 = c * np.sqrt(q1 * q2)
    det = np.where(np.abs(c) == 1, 0.0, np.maximum(q1 * q2 - q12 * q12, 0.0))
    return _Pairs(q1, q2, q12, det)


@pytest.mark.parametrize("name, kind", [
    ("relu", "arc-cosine kernel of degree 1"), ("leaky_relu", "slopes 1/0.01"), ("abs(x)", "slopes 1/-1"),
    ("step", "degree 0"), ("identity", "linear"), ("2*x", "linear 2"), ("erf", "arcsine"), ("erf(2*x)", "erf(2x)"),
    ("tanh", "logistic scale mixture"), ("3*tanh(0.5*x)", "3·tanh(0.5x)"), ("sigmoid", "logistic scale mixture"),
    ("gelu", "GELU"), ("sin", "sin"), ("cos", "cos"), ("exp", "exp"), ("silu", "quadrature"), ("elu", "quadrature"),
    ("sin(x) + 1", "quadrature"), ("max(x, 0) + 0.5", "quadrature")])
def test_route_of_each_activation(name, kind):
    assert kind in kernel_route(name)


@pytest.mark.parametrize("name", ["relu", "leaky_relu", "abs(x)", "step", "erf", "3*tanh(0.5*x)", "sigmoid", "gelu",
                                  "sin", "cos", "identity"])
def test_pair_expectations_equal_the_quadrature_at_hard_covariances(name):
    """F = E φφ and Ḟ = E φ′φ′ of the route vs nested Gauss–Legendre on φ and on φ′ (60 nodes per piece)."""
    act = activation(name)
    route, d = _route_for(act), act.derivative(1)
    p = _pairs(HARD)
    F = route.pair(p)
    D = None if d.dirac_atoms else route.pair_derivative(p)
    for i in range(len(HARD)):
        args = (p.q1[i], p.q2[i], p.q12[i])
        ref = bivariate_expectation(act, act, *args, nodes=60)
        floor = 1e-13 * math.sqrt(p.q1[i] * p.q2[i])
        assert abs(F[i] - ref.value) <= 1e-12 * abs(ref.value) + ref.error + floor, (HARD[i], F[i], ref)
        if D is not None:
            refd = bivariate_expectation(d, d, *args, nodes=60)
            assert abs(D[i] - refd.value) <= 2e-12 * abs(refd.value) + refd.error + 1e-15, (HARD[i], D[i], refd)


@pytest.mark.parametrize("name", ["tanh"])
def test_pair_expectations_at_a_large_variance(name):
    """q = 10⁴, c = −0.99: φ′(√q z) is a spike of width 10⁻² (the quadrature needs 60 nodes per piece there)."""
    act = activation(name)
    p = _pairs([(1e4, 1e4, -0.99)])
    route, d = _route_for(act), act.derivative(1)
    for got, f in ((route.pair(p)[0], act), (route.pair_derivative(p)[0], d)):
        ref = bivariate_expectation(f, f, 1e4, 1e4, float(p.q12[0]), nodes=60)
        assert abs(got - ref.value) <= 1e-12 * abs(ref.value) + ref.error


def test_step_has_no_ntk():
    with pytest.raises(UndefinedQuantityError, match="Dirac"):
        ntk_kernel("step", input_gram=np.eye(2), depth=1)
    assert nngp_kernel("step", input_gram=np.eye(2), depth=1)[0, 1] == pytest.approx(0.25, abs=1e-16)


def test_the_mixture_represents_tanh():
    """tanh(x) = ∫ erf(x/(√2 s)) p(s) ds on the Gauss rule, p a density with E 1/K = √(π/2) (so tanh′(0) = 1)."""
    from scipy.special import erf
    s, w = _mixture_rule(48)     # the representation itself; the kernels' 24-node rule is tested on the kernels
    assert abs(w.sum() - 1) < 1e-14
    assert abs(np.sum(w / s) - math.sqrt(math.pi / 2)) < 1e-14
    xs = np.array([1e-3, 0.1, 0.7, 2.0, 5.0, 20.0, -3.0])
    got = (w[None, :] * erf(xs[:, None] / (math.sqrt(2) * s[None, :]))).sum(axis=1)
    assert np.max(np.abs(got - np.tanh(xs))) < 5e-15
    # both series of the Kolmogorov density agree where they meet
    assert abs(float(kolmogorov_density(1.2 - 1e-12)) - float(kolmogorov_density(1.2))) < 1e-10


def test_a_wrong_route_is_not_confirmed():
    """The first-use check catches a mismatched closed form (erf(2x) read as erf(x); a tanh amplitude off by 1%)."""
    assert _confirmed(_Erf(1.0, 1.0), activation("erf(2*x)")) is False
    assert _confirmed(_TanhMixture(1.01, 1.0, 0.0), activation("tanh")) is False
    assert _confirmed(_TanhMixture(1.0, 1.0, 0.0), activation("tanh")) is True


def _nt_cases():
    return json.loads(DATA.read_text())


@pytest.mark.parametrize("case", _nt_cases()["cases"], ids=lambda c: f"{c['act']}-L{c['depth']}")
def test_kernels_equal_neural_tangents(case):
    """K^L and Θ^L of six inputs (two nearly equal) vs neural-tangents 0.6.5's analytic stax kernels, float64."""
    X = np.array(_nt_cases()["inputs"])
    act = {"abs": "abs(x)"}.get(case["act"], case["act"])
    k = network_kernels(act, X, case["depth"], case["sigma_w2"], case["sigma_b2"])
    for ours, theirs in ((k.nngp, case["nngp"]), (k.ntk, case["ntk"])):
        theirs = np.array(theirs)
        scale = np.abs(theirs).max()
        diff = np.abs(ours.value - theirs)
        # 1e-10 of the scale, or, where the two inputs' correlation is within ulps of 1 (relu, depth 100: both
        # codes differ from a 50-digit recursion by ~1e-9), within the error we report
        assert np.all(diff <= np.maximum(1e-10 * scale, 2 * ours.error)), (diff.max() / scale)
        assert np.all(ours.error <= 1e-7 * scale)


def _arc_cosine_recursion(X, i, j, slopes, depth, sw, sb):
    """K^L_ij and Θ^L_ij of φ = a·x⁺ − b·x⁻ at 50 digits (θ = arccos c in mpmath)."""
    a, b = (mpmath.mpf(v) for v in slopes)
    sw, sb = mpmath.mpf(sw), mpmath.mpf(sb)
    g = lambda p, q: sum(mpmath.mpf(X[p, t]) * mpmath.mpf(X[q, t]) for t in range(X.shape[1])) / X.shape[1]
    q1, q2, q12 = (sw * g(p, q) + sb for p, q in ((i, i), (j, j), (i, j)))
    t1, t2, t12 = q1, q2, q12
    half = (a * a + b * b) / 2                                    # F at c = 1 is half·q, Ḟ is half
    for _ in range(depth):
        th = mpmath.acos(q12 / mpmath.sqrt(q1 * q2))
        root = mpmath.sqrt(q1 * q2) * mpmath.sin(th)
        n12 = sw * ((a * a + b * b) * (root + (mpmath.pi - th) * q12) - 2 * a * b * (root - th * q12)) / (2 * mpmath.pi) + sb
        t12 = n12 + sw * ((a * a + b * b) * (mpmath.pi - th) + 2 * a * b * th) / (2 * mpmath.pi) * t12
        t1, t2 = sw * half * q1 + sb + sw * half * t1, sw * half * q2 + sb + sw * half * t2
        q1, q2, q12 = sw * half * q1 + sb, sw * half * q2 + sb, n12
    return q12, t12


@pytest.mark.parametrize("name, slopes", [("relu", (1, 0)), ("leaky_relu", (1, 0.01))])
def test_depth_100_against_a_50_digit_recursion(name, slopes):
    """σ_w² = 1.5 (ordered): every pair reaches 1 − c ≈ 1e-13 at depth 100 and inputs 0 and 4 ≈ 3e-16, where
    float64 no longer holds θ = √(2(1 − c)) and the NTK entries are known to 1e-11–1e-9 only. The reported error
    covers the true one (the arc-cosine recursion at 50 digits) on every pair, and stays below 1e-7."""
    X = np.array(_nt_cases()["inputs"])
    k = network_kernels(name, X, 100, 1.5, 0.05)
    with mpmath.workdps(50):
        for i in range(6):
            for j in range(i + 1, 6):
                K, T = _arc_cosine_recursion(X, i, j, slopes, 100, 1.5, 0.05)
                for est, ref in ((k.nngp, K), (k.ntk, T)):
                    assert abs(est[i, j] - float(ref)) <= est.error[i, j], (i, j, est[i, j] - float(ref))
        assert abs(k.ntk[0, 4] - float(_arc_cosine_recursion(X, 0, 4, slopes, 100, 1.5, 0.05)[1])) > 1e-11
    assert k.ntk.max_error < 1e-7


@pytest.mark.parametrize("name, keep", [("tanh", 1.0), ("erf", 0.8), ("silu", 1.0), ("gelu", 0.9)])
def test_recursion_equals_the_engine_maps_iterated(name, keep):
    """Depth 3: the diagonal is length_map iterated (mpmath 1-D, with dropout), the off-diagonal covariance_map
    (nested Gauss–Legendre) on the previous layer's entries — the engine's scalar maps as a second route."""
    G = np.array([[1.3, 0.4, -0.2], [0.4, 0.7, 0.1], [-0.2, 0.1, 2.2]])
    sw, sb, depth = 1.7, 0.2, 3
    K = nngp_kernel(name, input_gram=G, depth=depth, sigma_w2=sw, sigma_b2=sb, keep=keep)
    ref = sw * G + sb
    for _ in range(depth):
        new = np.empty_like(ref)
        for a in range(3):
            new[a, a] = length_map(name, ref[a, a], sw, sb, keep).value
            for b in range(a + 1, 3):
                new[a, b] = new[b, a] = covariance_map(name, ref[a, a], ref[b, b], ref[a, b], sw, sb).value
        ref = new
    assert np.max(np.abs(K.value - ref)) <= 1e-12 * np.abs(ref).max()


def test_tanh_entry_against_the_mpmath_route():
    """K¹ and Θ¹ of one tanh pair by nested mpmath quadrature (no mixture, no float rule) at 15 digits; deeper
    layers are the same map (test_recursion_equals_the_engine_maps_iterated)."""
    G = np.array([[1.0, 0.6], [0.6, 0.8]])
    k = network_kernels("tanh", input_gram=G, depth=1, sigma_w2=1.4, sigma_b2=0.1)
    ref = kernel_entries_reference("tanh", G, [(0, 1)], 1, 1.4, 0.1, dps=15)[(0, 1)]
    assert abs(k.nngp[0, 1] - float(ref[0])) < 1e-12
    assert abs(k.ntk[0, 1] - float(ref[1])) < 1e-12


@pytest.mark.parametrize("scale", [0.004, 1.0, 400.0])
def test_tanh_mixture_at_small_and_large_variances(scale):
    """The mixture's Gauss rule in log s at variances q ≈ 0.004 (tanh's critical line σ_w² = 1 deep down, where a
    rule in s was off by 1e-9 at 16 nodes) up to q ≈ 400, correlation 0.85: E tanh tanh and E tanh′ tanh′ of the
    pair within 1e-12 relative of the nested Gauss–Legendre route of theory.gaussian (no mixture), and the
    difference within the reported error of the depth-0 → 1 map."""
    G = scale * np.array([[1.0, 0.81], [0.81, 0.9]])
    k = network_kernels("tanh", input_gram=G, depth=1, sigma_w2=1.0, sigma_b2=0.0)
    F = bivariate_expectation("tanh", "tanh", G[0, 0], G[1, 1], G[0, 1])
    D = bivariate_expectation("1 - tanh(x)**2", "1 - tanh(x)**2", G[0, 0], G[1, 1], G[0, 1])
    for got, ref in ((k.nngp[0, 1], F.value), (k.ntk[0, 1], F.value + D.value * G[0, 1])):
        assert abs(got - ref) <= 1e-12 * abs(ref) + F.error + D.error * abs(G[0, 1]), (scale, got - ref)
    assert abs(k.nngp[0, 1] - F.value) <= k.nngp.error[0, 1] + F.error, (scale, k.nngp.error[0, 1])


def test_tanh_at_depth_100_against_a_30_digit_reference():
    """64 inputs through 100 tanh layers (the benchmark's network, σ_w² = 1.5, σ_b² = 0.05, and the critical line
    σ_w² = 1, σ_b² = 0 where the variances decay to ≈ 0.005): sampled NNGP and NTK entries within 1e-12 of the
    largest entry from the 30-digit recursion of benchmarks/tanh_kernel_reference.py (diagonals by 1-D mpmath
    quadrature, pairs on a 32-node Gauss rule in log s built in mpmath, agreeing with 40 nodes to the stored error),
    and within the reported error."""
    data = json.loads((Path(__file__).parent / "data" / "tanh_kernels_depth100.json").read_text(encoding="utf-8"))
    assert data["depth"] == 100 and data["dps"] >= 30
    X = np.random.default_rng(2017).standard_normal((64, 16))
    kernels = {}
    for case in data["cases"]:
        key = (case["sigma_w2"], case["sigma_b2"])
        if key not in kernels:
            kernels[key] = network_kernels("tanh", X, 100, *key)
        k = kernels[key]
        a, b = case["pair"]
        for est, ref, ref_err in ((k.nngp, case["nngp"], case["nngp_error"]), (k.ntk, case["ntk"], case["ntk_error"])):
            ref, scale = float(ref), float(np.abs(est.value).max())
            assert float(ref_err) < 1e-20 * scale, case
            assert abs(est[a, b] - ref) <= 1e-12 * scale, (case, est[a, b] - ref)
            assert abs(est[a, b] - ref) <= est.error[a, b], (case, est[a, b] - ref, est.error[a, b])


def test_the_stored_mixture_rules_are_the_mpmath_ones():
    """The 16- and 12-node rules stored in theory.kernels are what _mixture_rule_mp computes, to the bit, and sum
    to 1 within an ulp."""
    for nodes in (MIXTURE_NODES, MIXTURE_NODES_CHECK):
        s, w = _mixture_rule(nodes)
        s_mp, w_mp = _mixture_rule_mp(nodes)
        assert np.array_equal(s, s_mp) and np.array_equal(w, w_mp), nodes
        assert abs(math.fsum(w) - 1) <= 2.3e-16


def test_tanh_ntk_at_depth_60_is_within_its_stated_error():
    """NTK entries deep in the chaotic phase (σ_w² = 1.5, σ_b² = 0.05, depth 60; Θ ≈ 6 where K ≈ 0.41, so a
    relative bias δ of every E φ′φ′ grows to ≈ 80δ of Θ) against 30-digit recursions (benchmarks/
    tanh_kernel_reference.py's ``entry`` at DEPTH = 60, its 32-node mpmath rule, dps 40; inputs
    default_rng(7).standard_normal((40, 12))). A mixture rule built in float64 (F and Ḟ biased by −2e-15 through
    its weights' sum, −3.5e-16 once normalised) was off by 6.0e-14 at (8, 18) while stating 1.35e-14."""
    X = np.random.default_rng(7).standard_normal((40, 12))
    k = network_kernels("tanh", X, 60, 1.5, 0.05)
    reference = {(8, 18): ("0.41505001896280664777", "6.0932969163028635295"),
                 (19, 35): ("0.41454706055265644519", "6.0093314713652182241"),
                 (4, 14): ("0.41367468054270964197", "5.8718036721197543856"),
                 (11, 31): ("0.41574761363671175978", "6.2157452722247574613")}
    for (a, b), (K, T) in reference.items():
        for est, ref in ((k.nngp, K), (k.ntk, T)):
            err = abs(mpmath.mpf(est[a, b]) - mpmath.mpf(ref))
            assert err <= est.error[a, b], ((a, b), float(err), est.error[a, b])
            assert err <= 2e-14 * abs(mpmath.mpf(ref)), ((a, b), float(err))


def test_nested_mpmath_route_at_a_large_variance():
    """The certificate route (nested tanh–sinh) splits where the argument is 0 once q > 1: erf at q = 400, where
    the unsplit route was off by 1e-7, against Williams' closed form (2/π) asin(2q₁₂/√((1 + 2q₁₁)(1 + 2q₂₂)))."""
    q1, q2, q12 = 400.0, 360.0, 324.0
    e = bivariate_expectation("erf", "erf", q1, q2, q12, dps=15)
    ref = 2 / math.pi * math.asin(2 * q12 / math.sqrt((1 + 2 * q1) * (1 + 2 * q2)))
    assert abs(float(e.value) - ref) < 1e-14 and float(e.error) < 1e-14


def test_cost_does_not_grow_with_the_variance():
    """Closed forms and the mixture cost the same at q ≈ 1 and q ≈ 10⁶ (σ_b² = 10⁶ keeps every layer there)."""
    import time
    X = np.random.default_rng(3).standard_normal((24, 8))
    for name in ("erf", "tanh"):
        times = []
        for sb in (0.05, 1e6):
            t = time.perf_counter()
            k = network_kernels(name, X, 20, 1.5, sb)
            times.append(time.perf_counter() - t)
            assert np.all(np.isfinite(k.ntk.value)) and k.ntk.max_error <= 1e-10 * np.abs(k.ntk.value).max()
        assert times[1] < 3 * times[0] + 0.05, (name, times)


def test_bad_inputs_are_refused_in_one_line():
    for kwargs, match in [(dict(inputs=np.ones((2, 2)), input_gram=np.eye(2)), "not both"),
                          (dict(), "not both"),
                          (dict(input_gram=[[1.0, 2.0], [2.0, 1.0]]), "positive semi-definite|PSD|eigen"),
                          (dict(inputs=[[1.0, float("nan")]]), "non-finite"),
                          (dict(inputs=np.ones(3)), "n × d"),
                          (dict(input_gram=np.eye(2), depth=-1), "depth"),
                          (dict(input_gram=np.eye(2), sigma_w2=0.0), "σ_w²"),
                          (dict(input_gram=np.eye(2), keep=0.0), "keep")]:
        with pytest.raises(DeepinitError, match=match):
            network_kernels("relu", **kwargs)
    with pytest.raises(DeepinitError, match="overflowed"):
        network_kernels("exp", input_gram=np.eye(2), depth=40, sigma_w2=4.0)


def test_results_follow_the_estimate_convention():
    k = network_kernels("erf", input_gram=[[1.0, 0.5], [0.5, 1.0]], depth=0)
    assert np.array_equal(k.nngp.value, [[1.0, 0.5], [0.5, 1.0]]) and np.array_equal(k.ntk.value, k.nngp.value)
    e = k.nngp.entry(0, 1)
    assert e.value == 0.5 and e.error <= 1e-14 and "NNGP" in e.method
    with pytest.raises(ValueError):
        k.nngp.value[0, 0] = 2.0          # read-only
    # the method says how the error was estimated: three fresh runs for a closed form, one coherent run on a
    # second rule for the mixture
    assert "from 3 runs whose every layer" in k.ntk.method
    t = network_kernels("tanh", input_gram=[[1.0, 0.5], [0.5, 1.0]], depth=2)
    assert "from 1 run whose every layer" in t.ntk.method and "on 12×12 nodes" in t.ntk.method


@pytest.mark.parametrize("name", ["relu", "tanh"])
def test_kernels_equal_finite_width_networks(name):
    """Empirical NNGP and NTK (numerics.empirical_kernels: autograd on 48 networks of width 512, depth 2) agree
    with K² and Θ² within 4 standard errors (plus the O(L/N) finite-width bias, 2·L/N of the scale), and a 5%
    error in the theory's NTK is detected on at least one entry (the check has power at this size)."""
    from numerics.ntk import empirical_kernels
    X = np.array([[1.0, 0.2, -0.5], [0.3, -1.1, 0.4], [-0.7, 0.5, 0.9]])
    sw, sb, depth, width = 1.6, 0.1, 2, 512
    k = network_kernels(name, X, depth, sw, sb)
    e = empirical_kernels(name, X, width, depth, sw, sb, seeds=48, seed=11)
    for theory_k, mean, se in ((k.nngp.value, e.nngp, e.nngp_se), (k.ntk.value, e.ntk, e.ntk_se)):
        bias = 2 * depth / width * np.abs(theory_k).max()
        assert np.all(np.abs(mean - theory_k) <= 4 * se + bias), (mean - theory_k, se)
    wrong = 1.05 * k.ntk.value
    assert np.any(np.abs(e.ntk - wrong) > 4 * e.ntk_se + 2 * depth / width * np.abs(wrong).max())


def test_kernels_with_dropout_equal_finite_width_networks_with_their_masks():
    """Dropout ρ = 0.7 (each hidden unit's output kept with probability ρ, rescaled by 1/ρ, masks independent per
    input): the diagonals of K² and Θ² are divided by ρ and the off-diagonals are not (theory.kernels); autograd on
    48 masked networks agrees within 4 standard errors plus the O(L/N) bias, and the theory without dropout is
    rejected on the diagonal."""
    from numerics.ntk import empirical_kernels
    X = np.array([[1.0, 0.2, -0.5], [0.3, -1.1, 0.4], [-0.7, 0.5, 0.9]])
    sw, sb, depth, width, keep = 1.6, 0.1, 2, 512, 0.7
    k = network_kernels("relu", X, depth, sw, sb, keep)
    e = empirical_kernels("relu", X, width, depth, sw, sb, seeds=48, seed=12, keep=keep)
    for theory_k, mean, se in ((k.nngp.value, e.nngp, e.nngp_se), (k.ntk.value, e.ntk, e.ntk_se)):
        bias = 2 * depth / width * np.abs(theory_k).max()
        assert np.all(np.abs(mean - theory_k) <= 4 * se + bias), (mean - theory_k, se)
    plain = network_kernels("relu", X, depth, sw, sb).ntk.value
    assert np.all(np.abs(np.diag(e.ntk) - np.diag(plain)) > 4 * np.diag(e.ntk_se) + 2 * depth / width * plain.max())
    with pytest.raises(DeepinitError, match="keep"):
        empirical_kernels("relu", X, 8, 1, 1.0, keep=0.0)
