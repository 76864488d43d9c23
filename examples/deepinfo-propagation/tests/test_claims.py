"""The schoenholz2017 plugin: its claims at the quick budget (verdicts, key numbers, controls), its expected statuses,
its independent routes against golden values, and its discovery through the entry point.

Run: ``OMP_NUM_THREADS=1 python -m pytest -q examples/deepinfo-propagation/tests -p no:cacheprovider``.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from verify import api

# σ_w²,crit(σ_b²) of tanh: mpmath (30 digits, findroot on the joint system q* = L(q*), χ₁ = 1) and the trapezoid
# rule with Brent's method agree to 1e-15
GOLDEN_CRIT = {0.01: 1.4242052904885957346, 0.05: 1.7609546396067391316, 0.1: 1.9860726411358642072,
               0.3: 2.5051271896797649738}
CLAIMS = ("edge-of-chaos", "depth-scales", "dropout", "backprop", "finite-width-tracking", "trainability",
          "q-star-stability", "critical-power-law", "dataset-kernels")
_VERDICTS: dict = {}


def verdict(name: str):
    """The claim's quick verdict with its controls, computed once per test session."""
    if name not in _VERDICTS:
        _VERDICTS[name] = api.run(f"schoenholz2017:{name}", budget="quick")
    return _VERDICTS[name]


def rows(v, text: str):
    out = [e for e in v.evidence if text in e.name]
    assert out, f"no evidence row of {v.claim_id} contains {text!r}"
    return out


def test_paper_is_discovered():
    from verify.registry import papers
    p = papers()["schoenholz2017"]
    assert set(CLAIMS) <= set(p.claims)
    for item in p.coverage:
        assert set(item.claims) <= set(p.claims), item
        assert item.claims or item.note
    assert os.path.isfile(p.expectations)


def test_independent_route_against_golden_values():
    from deepinfo_claims import _routes as R
    for sb2, golden in GOLDEN_CRIT.items():
        assert abs(R.sigma_crit(sb2) - golden) < 1e-12
    assert abs(R.chi1(GOLDEN_CRIT[0.05], 0.05) - 1.0) < 1e-13


def test_edge_of_chaos():
    v = verdict("edge-of-chaos")
    assert v.status == "holds", v.summary
    for sb2, golden in GOLDEN_CRIT.items():
        (r,) = rows(v, f"σ_w²,crit(σ_b² = {sb2}): engine")
        assert abs(r.theory - golden) < 1e-10 and abs(r.numeric - golden) < 1e-10
        (mc,) = rows(v, f"χ₁ at σ_w²,crit(σ_b² = {sb2})")
        assert mc.bound < 0.005 and mc.passed          # the Monte Carlo resolution is well below the 5% control
    (net,) = rows(v, "finite-width networks")
    assert net.bound < 0.025 and abs(net.numeric - 1.0) < net.bound
    assert v.negative_control.status == "violated"
    assert v.resolution == {"schoenholz2017:chi1": 0.05}


def test_depth_scales():
    v = verdict("depth-scales")
    assert v.status == "holds", v.summary
    (r,) = rows(v, "ξ_c at σ_w² = 2.2")
    assert abs(r.theory - 16.2232) < 1e-3 and r.observed < 1e-4
    (r,) = rows(v, "ξ_q at σ_w² = 1.2")
    assert abs(r.theory - 1.80878) < 1e-4
    for side in ("ordered", "chaotic"):
        (s,) = rows(v, f"{side} side: d log ξ_c")
        assert abs(s.numeric + 1) < 0.002
    (q,) = rows(v, "ξ_q at the boundary")
    assert abs(q.numeric - 1.5211) < 1e-3
    assert v.negative_control.status == "violated"
    assert set(v.resolution) == {"schoenholz2017:xi_q", "schoenholz2017:xi_c"}


def test_dropout_and_its_structural_control():
    v = verdict("dropout")
    assert v.status == "holds", v.summary
    assert [r.observed < 1 for r in rows(v, "c* < 1")] == [True] * 3
    bounded = rows(v, "ξ_c stays bounded")
    assert all(0.9 < r.observed < 1.1 for r in bounded)
    (c,) = rows(v, "ρ = 0.9: c* at σ_w²,crit(1 + 1e-4) vs finite-width")
    assert abs(c.theory - 0.3564) < 1e-3 and c.passed
    assert v.negative_control.status == "violated"
    structural = [e for e in v.negative_control.evidence if e.name.startswith("structural control")]
    assert structural and structural[0].observed == "violated"


def test_backprop():
    v = verdict("backprop")
    assert v.status == "holds", v.summary
    import math
    for r in v.evidence:
        assert r.passed and r.bound < 0.03        # well below log(1.05) ≈ 0.049
    (o,) = rows(v, "(ordered): log")
    assert abs(o.theory - math.log(0.8451664278)) < 1e-8
    assert v.negative_control.status == "violated"


def test_finite_width_tracking():
    v = verdict("finite-width-tracking")
    assert v.status == "holds", v.summary
    assert len(v.evidence) == 8 and all(r.passed for r in v.evidence)
    assert v.tables and len(v.tables[0][2]) == 24
    assert v.negative_control.status == "violated"
    assert set(v.resolution) == {"schoenholz2017:q-map", "schoenholz2017:c-map"}


def test_dataset_kernels():
    v = verdict("dataset-kernels")
    assert v.status == "holds", v.summary
    exact = rows(v, "engine vs the trapezoid-rule maps pair by pair")
    assert len(exact) == 14 and all(r.passed for r in exact)      # tanh at 3 settings, GELU, sigmoid, erf, sin
    routes = rows(v, "the route that ran")
    assert [r.numeric.split(" (")[0] for r in routes] == ["logistic scale mixture of erf"] * 3 + [
        "closed form", "logistic scale mixture of erf", "closed form", "closed form"]
    for r in exact:                      # the two routes agree to a few ulps of the kernel, far inside 5%
        assert r.observed <= 1e-13 * abs(r.numeric) + 1e-13 and r.bound < 1e-11
    (k,) = rows(v, "σ_w² = 1.2 (ordered), depth 8: K^L")
    assert 0.1 < k.numeric < 3.0
    nets = rows(v, "networks vs the engine")
    assert len(nets) == 4 and all(r.passed and r.bound < 0.07 for r in nets)
    assert v.negative_control.status == "violated"
    assert v.resolution == {"schoenholz2017:nngp": 0.05, "schoenholz2017:ntk": 0.05}


def test_pair_route_against_mpmath():
    """The claim's independent route, _routes.pair_moments, against a 2-d mpmath integral at unequal lengths."""
    import mpmath
    from deepinfo_claims import _routes as R
    qa, qb, qab = 0.7, 1.9, -0.5
    F, D = R.pair_moments(qa, qb, qab)
    mpmath.mp.dps = 20
    try:
        L = mpmath.cholesky(mpmath.matrix([[qa, qab], [qab, qb]]))
        g = lambda z1, z2: mpmath.exp(-(z1 ** 2 + z2 ** 2) / 2) / (2 * mpmath.pi)  # noqa: E731

        def expect(f):
            return mpmath.quad(lambda z1, z2: f(L[0, 0] * z1, L[1, 0] * z1 + L[1, 1] * z2) * g(z1, z2),
                               [-12, 0, 12], [-12, 0, 12])
        F_ref = expect(lambda a, b: mpmath.tanh(a) * mpmath.tanh(b))
        D_ref = expect(lambda a, b: mpmath.sech(a) ** 2 * mpmath.sech(b) ** 2)
    finally:
        mpmath.mp.dps = 15
    assert abs(F - float(F_ref)) < 1e-13 and abs(D - float(D_ref)) < 1e-13
    assert F < 0 < D


def test_pair_route_of_the_other_activations_against_closed_forms_and_scipy():
    """_routes.pair_moments for the engine's other routes at unequal lengths and a negative covariance: erf and sin
    against closed forms written here (E erf erf = (2/π) asin(2q_ab/√((1 + 2q_a)(1 + 2q_b))), E erf′erf′ =
    (4/π)/√det(I + 2Σ), E sin sin = e^(−(q_a+q_b)/2) sinh q_ab, E cos cos = e^(−(q_a+q_b)/2) cosh q_ab), GELU and sigmoid
    against scipy's adaptive 2-d quadrature of their definitions."""
    import math
    from scipy.integrate import dblquad
    from scipy.special import expit, ndtr
    from deepinfo_claims import _routes as R
    qa, qb, qab = 0.7, 1.9, -0.5
    det = (1 + 2 * qa) * (1 + 2 * qb) - 4 * qab * qab
    exact = {"erf": (2 / math.pi * math.asin(2 * qab / math.sqrt((1 + 2 * qa) * (1 + 2 * qb))), 4 / math.pi / math.sqrt(det)),
             "sin": (math.exp(-(qa + qb) / 2) * math.sinh(qab), math.exp(-(qa + qb) / 2) * math.cosh(qab))}
    for act, (F_ref, D_ref) in exact.items():
        F, D = R.pair_moments(qa, qb, qab, act)
        assert abs(F - F_ref) < 1e-15 and abs(D - D_ref) < 1e-15, act
    la, lb = math.sqrt(qa), qab / math.sqrt(qa)          # Cholesky: u_a = la z1, u_b = lb z1 + lc z2
    lc = math.sqrt(qb - lb * lb)
    pdf = lambda u: math.exp(-u * u / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    defs = {"gelu": (lambda u: u * ndtr(u), lambda u: ndtr(u) + u * pdf(u)),
            "sigmoid": (expit, lambda u: expit(u) * (1 - expit(u)))}
    for act, (f, d) in defs.items():
        def expect(g):
            return dblquad(lambda z2, z1: g(la * z1, lb * z1 + lc * z2) * pdf(z1) * pdf(z2), -12, 12, -12, 12,
                           epsabs=1e-15, epsrel=1e-14)[0]
        F, D = R.pair_moments(qa, qb, qab, act)
        assert abs(F - expect(lambda a, b: f(a) * f(b))) < 1e-13, act
        assert abs(D - expect(lambda a, b: d(a) * d(b))) < 1e-13, act


_ROUTES: dict = {}


@pytest.fixture
def routes_computed_once(monkeypatch):
    """The pair-by-pair trapezoid route of the dataset claim, computed once per test session: it is independent of
    theory.kernels, which the tests using this break, so its values are the same in each of them."""
    from deepinfo_claims import _routes as R
    original = R.dataset_kernels

    def once(X, depth, sw2, sb2, keep=1.0, act="tanh"):
        key = (X.tobytes(), X.shape, depth, sw2, sb2, keep, act)
        if key not in _ROUTES:
            _ROUTES[key] = original(X, depth, sw2, sb2, keep, act)
        return _ROUTES[key]
    monkeypatch.setattr(R, "dataset_kernels", once)


@pytest.mark.parametrize("func,old,new", [
    ("_first_layer", "G = X @ X.T / X.shape[1]", "G = X @ X.T / (X.shape[1] - 1)"),   # the Gram over d − 1
    ("_layer", "scale = xp.where(on_diag, sw / rho, sw)", "scale = xp.where(on_diag, sw, sw)"),   # dropout's 1/ρ
    ("_run", "T = moved(at.put(F + D * T[at.iu]))", "T = moved(at.put(F + D * D * T[at.iu]))"),   # Θ's factor squared
])
def test_dataset_kernels_catch_engine_bugs(monkeypatch, routes_computed_once, func, old, new):
    """Bugs of theory.kernels fail the dataset claim's exact rows, also those no statistic at these sizes resolves
    (d − 1 for d = 64 moves K by 1.6%). The claim's networks are left out here: only its exact rows are asserted."""
    from deepinfo_claims import dataset
    from theory import kernels
    monkeypatch.setattr(dataset, "_network_rows", lambda ctx: [])
    monkeypatch.setattr(kernels, func, _mutant(getattr(kernels, func), old, new))
    v = api.run("schoenholz2017:dataset-kernels", budget="quick", controls=False)
    assert v.status != "holds", new
    assert not all(r.passed for r in rows(v, "engine vs the trapezoid-rule maps pair by pair")), new


def test_dataset_kernels_see_the_route_that_ran(monkeypatch):
    """A broken tanh mixture (2 // π for 2/π) fails the engine's own check against quadrature and falls back to
    quadrature pair by pair: the values stay right, so only the route row sees it. The fallback costs mpmath
    quadrature per pair and layer, so the claim runs here on 4 images, depth 2, without its networks."""
    from deepinfo_claims import dataset
    from theory import kernels
    monkeypatch.setattr(dataset, "INPUTS", 4)
    monkeypatch.setattr(dataset, "DEPTH", 2)
    monkeypatch.setattr(dataset, "_network_rows", lambda ctx: [])
    kernels._route_for.cache_clear()
    monkeypatch.setattr(kernels._TanhMixture, "pairs", _mutant(kernels._TanhMixture.pairs,
                                                               "self.k2 * (2 / math.pi) * F", "self.k2 * (2 // math.pi) * F"))
    try:
        v = api.run("schoenholz2017:dataset-kernels", budget="quick", controls=False)
    finally:
        monkeypatch.undo()
        kernels._route_for.cache_clear()
    assert v.status != "holds"
    # the mixture's rows fail (tanh at three settings, sigmoid), the other routes' pass
    assert [r.passed for r in rows(v, "the route that ran")] == [False] * 3 + [True, False, True, True]
    assert all(r.passed for r in rows(v, "engine vs the trapezoid-rule maps pair by pair"))


def test_trainability():
    v = verdict("trainability")
    assert v.status == "holds", v.summary
    assert "substitute setting" in v.summary
    for r in rows(v, "= 3ξ_c trains"):
        assert r.numeric > 0.8
    for r in rows(v, "= 12ξ_c does not train"):
        assert r.numeric < 0.15
    assert v.negative_control.status == "violated"


def test_expected_statuses_match():
    from verify.expectations import compare, load
    from verify.registry import papers
    expected = load(papers()["schoenholz2017"].expectations)
    assert set(expected) == {f"schoenholz2017:{c}" for c in CLAIMS}
    comparisons = compare([verdict(c) for c in CLAIMS], expected)
    assert all(c.outcome == "match" for c in comparisons), comparisons


def test_cli_lists_the_claims():
    out = subprocess.run([sys.executable, "-m", "verify", "list", "schoenholz2017"], capture_output=True, text=True,
                         check=True).stdout
    for c in CLAIMS:
        assert f"schoenholz2017:{c}" in out


@pytest.mark.parametrize("name", ["nonexistent"])
def test_unknown_claim_is_a_usage_error(name):
    from verify.registry import UsageError
    with pytest.raises(UsageError):
        api.run(f"schoenholz2017:{name}")


# ---------------------------------------------------------------------------------------------------------------
# the engine's second routes: σ_b² = 0, Price's theorem vs finite differences, two root finders, the width factor
# ---------------------------------------------------------------------------------------------------------------

def _mutant(func, old: str, new: str):
    """``func`` recompiled with ``old`` replaced by ``new`` in its source (exactly one occurrence), in its module's
    globals: a realistic bug to monkeypatch in its place."""
    import __future__
    import inspect
    import textwrap
    source = textwrap.dedent(inspect.getsource(func))
    assert source.count(old) == 1, f"{old!r} is not once in {func.__qualname__}"
    namespace: dict = {}
    exec(compile(source.replace(old, new), f"<mutant of {func.__name__}>", "exec",
                 flags=__future__.annotations.compiler_flag, dont_inherit=True), func.__globals__, namespace)
    return namespace[func.__name__]


@pytest.fixture
def fresh_engine():
    """The engine's caches emptied before and after: a mutant's values must not outlive it."""
    from theory import meanfield_mlp as mf

    def clear():
        for f in (mf._moment, mf._qstar, mf._cstar, mf._critical):
            f.cache_clear()
    clear()
    yield mf
    clear()


def test_edge_of_chaos_at_zero_bias():
    v = verdict("edge-of-chaos")
    (c,) = rows(v, "σ_w²,crit(σ_b² = 0)")
    assert c.numeric == 1.0 and c.passed and "(exact)" not in c.note and "e0" in c.note
    (o,) = rows(v, "σ_w² = 0.999 (ordered)")
    assert o.theory == 0.0 and o.numeric == 0.0 and o.passed and "0.0 (exact)" in o.note
    (h,) = rows(v, "σ_w² = 1.001 (chaotic)")
    assert abs(h.theory - 5.00208132260e-4) < 1e-14 and h.observed < 1e-12 and h.passed
    (m,) = rows(v, "increases with σ_b²")
    assert m.numeric[0] == 1.0 and m.passed


def test_zero_bias_q_star_bug_is_caught(monkeypatch, fresh_engine):
    mf = fresh_engine
    # q* = 0 decided when either L′(0⁺) ≤ 1 or L(1) < 1 (instead of both): the chaotic side collapses to 0
    monkeypatch.setattr(mf, "_qstar", mf.functools.lru_cache(maxsize=64)(
        _mutant(mf._qstar.__wrapped__, "if s0 <= 1 and f1 < 0:", "if s0 <= 1 or f1 < 0:")))
    v = api.run("schoenholz2017:edge-of-chaos", budget="quick", controls=False)
    (h,) = rows(v, "σ_w² = 1.001 (chaotic)")
    assert h.theory == 0.0 and not h.passed
    assert v.status != "holds"


def test_depth_scales_price_and_secant_rows():
    v = verdict("depth-scales")
    (a,) = rows(v, "C′(c*) at σ_w² = 1.5 (c* = 1)")
    assert abs(a.theory - 0.93863626819885) < 1e-12 and a.observed < 1e-9 and a.bound < 1e-7 and a.passed
    (b,) = rows(v, "C′(c*) at σ_w² = 3.0 (c* < 1)")
    assert abs(b.theory - 0.89540471575876) < 1e-12 and b.observed < 1e-9 and b.passed
    (s,) = rows(v, "secant iteration")
    assert abs(s.theory - 1.4280084621964717) < 1e-15 and s.observed < 1e-14 and s.bound < 1e-9 and s.passed
    assert "relative error" in s.note and "(exact)" in a.note     # c* = 1 printed as an exact Estimate
    (m,) = rows(v, "length map by Monte Carlo")
    assert abs(m.numeric - 1.428871472) < 1e-8 and abs(m.observed - 0.8646) < 1e-3 and m.samples == 10 ** 6 and m.passed


def test_the_fixed_point_reached_from_a_starting_variance(monkeypatch, fresh_engine):
    """q-star-stability's SiLU row on fixed_point_q(q0=…): the attracting q* from below the repelling point, a refusal
    from above; the sampled survivor that writes the method text as a difference ("…" − how) crashes the claim."""
    v = verdict("q-star-stability")
    (r,) = rows(v, "fixed_point_q from q⁰")
    assert r.passed and r.observed <= 1e-12 and abs(r.theory - 0.22786152567678) < 1e-12
    assert "grow without a fixed point" in r.note
    mf = fresh_engine
    monkeypatch.setattr(mf, "fixed_point_q", _mutant(mf.fixed_point_q, 'how = f"reached from q⁰ = {q0:g}: " + how',
                                                     'how = f"reached from q⁰ = {q0:g}: " - how'))
    assert api.run("schoenholz2017:q-star-stability", budget="quick", controls=False).status == "error"


def test_chi_c_error_carries_the_fixed_points(monkeypatch, fresh_engine):
    """depth-scales' χ_c row at σ_w² = 2.5: the value against the trapezoid rule, the stated error at least what c*'s
    error moves it by; the sampled survivor that floor-divides the two error terms (leaving ~1e-16) fails it."""
    v = verdict("depth-scales")
    (r,) = rows(v, "χ_c at σ_w² = 2.5")
    assert r.passed and abs(r.theory - 0.91871677491377) < 1e-12 and r.observed < 1e-14
    mf = fresh_engine
    monkeypatch.setattr(mf, "chi_c", _mutant(mf.chi_c, "sw * (e.error + abs(near.value - e.value))",
                                             "sw * (e.error // abs(near.value - e.value))"))
    v = api.run("schoenholz2017:depth-scales", budget="quick", controls=False)
    (r,) = rows(v, "χ_c at σ_w² = 2.5")
    assert not r.passed and v.status != "holds"


def test_a_slope_error_that_admits_anything_is_caught(monkeypatch, fresh_engine):
    """The slope rows hold each route's stated error to 1e-6 of C′(c*): the sampled survivor of the finite-difference
    slope whose error is 6 − … instead of 6·… (every difference then within it) fails them."""
    from theory import fixed_points
    monkeypatch.setattr(fixed_points, "slope", _mutant(fixed_points.slope, "err = abs(rich - d2) + 6 * max(errs)",
                                                       "err = abs(rich - d2) + 6 - max(errs)"))
    v = api.run("schoenholz2017:depth-scales", budget="quick", controls=False)
    slopes = rows(v, "C′(c*) at σ_w²")
    assert [r.passed for r in slopes] == [False, False] and all(r.bound > 1 for r in slopes)
    assert v.status != "holds"


def test_a_monte_carlo_standard_error_divided_by_n_is_caught(monkeypatch):
    """theory.gaussian.mc_expectation with its standard error √var/n instead of √(var/n): 1000 times too small, the
    length map's Monte Carlo row puts q* 865 standard errors away and depth-scales no longer holds."""
    from theory import gaussian
    monkeypatch.setattr(gaussian, "mc_expectation", _mutant(gaussian.mc_expectation, "math.sqrt(var / n), n",
                                                            "math.sqrt(var) / n, n"))
    v = api.run("schoenholz2017:depth-scales", budget="quick", controls=False)
    (m,) = rows(v, "length map by Monte Carlo")
    assert not m.passed and abs(m.observed - 864.6) < 1 and v.status != "holds"


def test_one_sided_difference_bug_is_caught(monkeypatch, fresh_engine):
    from theory import fixed_points
    # the one-sided stencil divided by h instead of 2h: every slope at c* = 1 doubles
    monkeypatch.setattr(fixed_points, "slope", _mutant(
        fixed_points.slope, "M(x - 2 * sgn * step)) / (2 * step)", "M(x - 2 * sgn * step)) / step"))
    v = api.run("schoenholz2017:depth-scales", budget="quick", controls=False)
    (a,) = rows(v, "C′(c*) at σ_w² = 1.5 (c* = 1)")
    assert not a.passed and abs(a.numeric / a.theory - 2) < 1e-3
    assert v.status != "holds"


def test_stale_secant_bug_is_caught(monkeypatch, fresh_engine):
    from theory import fixed_points
    # the secant's previous value never updated: a chord iteration that stops on a small step far from the root
    monkeypatch.setattr(fixed_points, "_secant", _mutant(
        fixed_points._secant, "x0, f0, x1 = x1, f1, x2", "x0, f0, x1 = x1, f0, x2"))
    v = api.run("schoenholz2017:depth-scales", budget="quick", controls=False)
    assert v.status != "holds"
    got = [e for e in v.evidence if "secant iteration" in e.name]
    assert len(got) == 1 and not got[0].passed


def test_backprop_width_factor_and_gradient_depth_scale():
    import math
    v = verdict("backprop")
    (w,) = rows(v, "into a wider layer")
    assert abs(w.theory - 2 * 0.8451664278006502) < 1e-12 and w.passed and w.samples == 128
    (n,) = rows(v, "into a narrower layer")
    assert abs(n.theory - 0.5 * 0.8451664278006502) < 1e-12 and n.passed
    (o,) = rows(v, "ξ_∇ at σ_w² = 1.2")
    assert abs(o.theory + 1 / math.log(0.8451664278006502)) < 1e-12 and o.observed < 1e-13
    (c,) = rows(v, "ξ_∇ at σ_w² = 3.0")
    assert c.theory < 0 and c.passed


def test_ignored_width_ratio_is_caught(monkeypatch, fresh_engine):
    mf = fresh_engine
    monkeypatch.setattr(mf, "gradient_growth_rate", _mutant(mf.gradient_growth_rate, "f = r / rho", "f = 1.0 / rho"))
    v = api.run("schoenholz2017:backprop", budget="quick", controls=False)
    (w,) = rows(v, "into a wider layer")
    assert not w.passed and v.status != "holds"


def test_the_tangent_runs_layer_zero_is_its_inputs(monkeypatch):
    """edge-of-chaos's run-integrity row: K⁰ = x·x/n₀ to rounding and |t⁰|²/n₀ of mean 1; the sampled survivor that
    records layer 0's tangent as (t + t) summed over units (mean 0) instead of t·t fails it."""
    from numerics import mlp
    v = verdict("edge-of-chaos")
    (r,) = rows(v, "the tangent run's layer 0")
    assert r.passed and abs(r.numeric - 1.0) < 0.1 and "K⁰ relative error" in r.note
    monkeypatch.setattr(mlp, "_run", _mutant(mlp._run, "tans = [(T * T).sum(1) / n0]", "tans = [(T + T).sum(1) / n0]"))
    v = api.run("schoenholz2017:edge-of-chaos", budget="quick", controls=False)
    (r,) = rows(v, "the tangent run's layer 0")
    assert not r.passed and v.status != "holds"


def test_backprop_reads_the_runs_own_gradient_ratios(monkeypatch):
    """MLPRun.gradient_ratios() against χ₁ in every phase (measured at quick: 0.8443 vs 0.8452 ordered); the sampled
    survivor that multiplies the two layers' sums instead of dividing them fails the rows."""
    from numerics import mlp
    v = verdict("backprop")
    ratios = rows(v, "MLPRun.gradient_ratios()")
    assert len(ratios) == 3 and all(r.passed and r.bound < 0.03 for r in ratios)
    monkeypatch.setattr(mlp.MLPRun, "gradient_ratios", _mutant(mlp.MLPRun.gradient_ratios,
                                                               "self.grad_sq[:, 1:-1] / self.grad_sq[:, 2:]",
                                                               "self.grad_sq[:, 1:-1] * self.grad_sq[:, 2:]"))
    v = api.run("schoenholz2017:backprop", budget="quick", controls=False)
    assert not all(r.passed for r in rows(v, "MLPRun.gradient_ratios()")) and v.status != "holds"


def test_backprop_with_dropout_grows_by_chi1_over_rho(monkeypatch):
    """The dropout row of backprop: log(χ₁/ρ) at ρ = 0.9 (−0.1156, against log χ₁ = −0.2209 without the 1/ρ), and the
    sampled survivor that adds the mask instead of multiplying by it in the backward pass fails it."""
    from numerics import mlp
    v = verdict("backprop")
    (r,) = rows(v, "dropout ρ = 0.9")
    assert r.passed and abs(r.theory - (-0.11556061946703043)) < 1e-9 and r.bound < 0.03
    assert abs(r.theory - (-0.2209)) > 3 * r.bound            # the 1/ρ is resolved
    monkeypatch.setattr(mlp, "_backward", _mutant(mlp._backward, "dphi(zp) * g_up * mp_", "dphi(zp) * g_up + mp_"))
    v = api.run("schoenholz2017:backprop", budget="quick", controls=False)
    (r,) = rows(v, "dropout ρ = 0.9")
    assert not r.passed and v.status != "holds"


def test_the_growth_rate_and_its_stated_error_against_the_route(monkeypatch, fresh_engine):
    """The engine's (N_{l+1}/N_l)·χ₁ against r·χ₁ of the trapezoid rule, its stated error honest and informative:
    the sampled survivor that states an error of 100 % (1.0 for 1e-16 in the rounding term) fails the rows."""
    v = verdict("backprop")
    rates = rows(v, "the engine's growth rate (eq 16)")
    assert len(rates) == 2 and all(r.passed and r.observed < 1e-15 and r.bound < 1e-13 for r in rates)
    assert abs(rates[0].theory - 2 * 0.8451664278006502) < 1e-15
    mf = fresh_engine
    monkeypatch.setattr(mf, "gradient_growth_rate", _mutant(mf.gradient_growth_rate, "+ 1e-16 * f * x1.value",
                                                            "+ 1.0 * f * x1.value"))
    v = api.run("schoenholz2017:backprop", budget="quick", controls=False)
    assert [r.passed for r in rows(v, "the engine's growth rate (eq 16)")] == [False, False]
    assert v.status != "holds"


def test_networks_ignoring_the_widths_are_caught(monkeypatch):
    from numerics import mlp
    monkeypatch.setattr(mlp, "_widths", _mutant(mlp._widths, "        return ws\n", "        return [ws[0]] * depth\n"))
    v = api.run("schoenholz2017:backprop", budget="quick", controls=False)
    (w,) = rows(v, "into a wider layer")
    assert not w.passed and abs(w.numeric / w.theory - 0.5) < 0.05 and v.status != "holds"


def test_dense_and_exact_networks_agree_in_law_and_a_dense_backward_without_sigma_w_is_caught(monkeypatch):
    """backprop's simulator row at seed 0: the dense networks' mean |δ^1|² (0.21525) is the exact method's (0.21593),
    KS p-values 0.79 (|δ^1|²) and 0.97 (|δ^0|²); a dense backward pass that drops σ_w from Wᵀδ shrinks |δ^1|² by
    1.2⁹ ≈ 5.2, the KS test rejects it and the claim no longer holds."""
    from numerics import mlp
    (d,) = rows(verdict("backprop"), "dense-weight networks")
    assert d.passed and abs(d.theory - 0.21593) < 5e-5 and abs(d.numeric - 0.21525) < 5e-5 and d.observed > 0.7
    monkeypatch.setattr(mlp, "_backward", _mutant(mlp._backward, "g_up = torch.bmm(W.transpose(1, 2), delta) * "
                                                  "math.sqrt(sw / n_prev)", "g_up = torch.bmm(W.transpose(1, 2), "
                                                  "delta) / math.sqrt(n_prev)"))
    v = api.run("schoenholz2017:backprop", budget="quick", controls=False)
    (d,) = rows(v, "dense-weight networks")
    assert not d.passed and d.observed < 1e-10 and abs(d.theory / d.numeric - 1.2 ** 9) < 0.6 and v.status != "holds"


def test_gradient_depth_scale_sign_bug_is_caught(monkeypatch, fresh_engine):
    mf = fresh_engine
    monkeypatch.setattr(mf, "gradient_depth_scale", _mutant(
        mf.gradient_depth_scale, "return Estimate(-1.0 / lg,", "return Estimate(1.0 / lg,"))
    v = api.run("schoenholz2017:backprop", budget="quick", controls=False)
    assert not any(e.passed for e in rows(v, "ξ_∇ at")) and v.status != "holds"


# ---------------------------------------------------------------------------------------------------------------
# the engine's fixed points, trajectories and rates (q-star-stability, critical-power-law)
# ---------------------------------------------------------------------------------------------------------------

def test_q_star_stability_values_and_control():
    v = verdict("q-star-stability")
    assert v.status == "holds", v.summary
    (s,) = rows(v, "σ_b² = 0.05, σ_w² = 1.76095: L′(q*)")
    assert abs(s.theory - 0.51818648406805) < 1e-12 and s.observed < 1e-9 and s.passed
    (f,) = rows(v, "SiLU, σ_b² = 0.05, σ_w² = 2.72861: the engine's fixed points")
    assert [round(x, 10) for x in f.numeric] == [0.2278615257, 0.8265760501] and f.observed < 1e-12 and f.passed
    slopes = rows(v, "SiLU at q*")
    assert [("attracting" in e.note.split(";")[0], e.passed) for e in slopes] == [(True, True), (False, True)]
    assert abs(slopes[1].theory - 1.09987229794818) < 1e-12
    (x,) = rows(v, "χ₁ = 1 at the repelling fixed point only")
    assert abs(x.numeric[1] - 1) < 1e-12 and abs(x.numeric[0] - 0.8094) < 1e-3 and "refusal: silu" in x.note
    assert v.negative_control.status == "violated"


def test_critical_power_law_values_and_control():
    import math
    v = verdict("critical-power-law")
    assert v.status == "holds", v.summary
    (t,) = rows(v, "tanh at σ_w²,crit(0.05) from c⁰ = 0.5")
    assert t.observed < 1e-10 and abs(t.numeric[-1] - 0.0061954) < 1e-7 and t.passed
    (a,) = rows(v, "tanh at σ_w²,crit(0.05): the engine's power law")
    assert abs(a.numeric - 6.171126142) < 1e-8 and a.observed < 1e-5 and a.passed   # 1/a: 6.17112614217 by mpmath
    (r,) = rows(v, "ReLU: the engine's power law")
    assert r.numeric == 9 * math.pi ** 2 / 2 and r.observed < 1e-9 * r.numeric and r.passed
    (d,) = rows(v, "ReLU at σ_w² = 2, σ_b² = 0 from c⁰ = 0.5")
    assert abs(d.numeric[-1] - 4.439217e-9) < 1e-14 and d.observed < 1e-12 and d.passed
    (o,) = rows(v, "tanh off the boundary")
    assert abs(o.numeric - 0.0633272356) < 1e-9 and o.passed
    assert v.negative_control.status == "violated"


def test_an_edge_of_chaos_on_a_repelling_fixed_point_is_caught(monkeypatch, fresh_engine):
    """critical_sigma_w2 returning a solution of χ₁ = 1 at any fixed point (the engine before its stability
    semantics): SiLU's σ_w² = 2.72861 comes back, and q-star-stability no longer holds."""
    mf = fresh_engine
    monkeypatch.setattr(mf, "critical_sigma_w2", _mutant(mf.critical_sigma_w2, "good = [c for c in points if "
                                                         "c.reached]", "good = list(points)"))
    v = api.run("schoenholz2017:q-star-stability", budget="quick", controls=False)
    (x,) = rows(v, "χ₁ = 1 at the repelling fixed point only")
    assert not x.passed and "none (an edge of chaos returned)" in x.note and v.status != "holds"


def test_a_deviation_rounded_through_c_is_caught(monkeypatch, fresh_engine):
    """A trajectory that keeps c and recomputes 1 − c (absolute precision 1e-16): at depth 10⁵ ReLU's 1 − c^l is
    4e-9 and the fitted constant leaves 9π²/2."""
    from theory import meanfield_depth as md
    monkeypatch.setattr(md, "correlation_trajectory", _mutant(md.correlation_trajectory, "t[l], rel[l] = new, acc",
                                                              "t[l], rel[l] = 1.0 - (1.0 - new), acc"))
    v = api.run("schoenholz2017:critical-power-law", budget="quick", controls=False)
    assert v.status != "holds"
    assert not all(e.passed for e in rows(v, "ReLU"))
