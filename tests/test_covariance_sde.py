"""covariance-sde: sympy derivations against the printed formulas, the simulators (shaped networks, Markov chain,
SDE schemes) with statistical tests, bad input, and the claims' verdicts."""
import math

import numpy as np
import pytest

from conftest import assert_controls, assert_figure_files, quick_context
import sympy as sp
from scipy import stats

from numerics import covariance_sde as ncs
from theory import covariance_sde as tcs
from theory.errors import DeepinitError
from verify.core import HOLDS, VIOLATED, Context
from verify.registry import resolve
from verify.runner import run_claim

rho = tcs.rho


# ------------------------------------------------------------------ derivations

@pytest.mark.parametrize("p,q,r", [(1, 1, 0.3), (2, 2, -0.6), (3, 1, 0.8), (4, 0, 0.1), (2, 0, -0.9)])
def test_relu_moments_closed_form_vs_quadrature(p, q, r):
    exact = float(tcs.relu_bivariate_moment(p, q).subs(rho, r))
    assert exact == pytest.approx(tcs.relu_moment_numeric(p, q, r), rel=1e-9)


def test_relu_like_drift_and_constants():
    assert sp.simplify(tcs.sde_drift_relu_like() - tcs.nu_printed()) == 0
    assert tcs.relu_like_constants(1, 0) == (2, 5)
    c, s2 = tcs.relu_like_constants(1, 1)           # identity: c = 1, Var(g²) = 2
    assert c == 1 and s2 == 2


def test_diffusion_and_ito():
    for m in (2, 3):
        n = m * (m + 1) // 2
        assert sp.simplify(tcs.covariance_diffusion(m) - tcs.covariance_diffusion_printed(m)) == sp.zeros(n)
    corr = tcs.correlation_sde_from_ito()
    assert sp.simplify(corr.ito_correction + rho * (1 - rho ** 2) / 2) == 0
    assert sp.simplify(corr.diffusion ** 2 - (1 - rho ** 2) ** 2) == 0


def test_smooth_drift_and_criterion():
    b, diag = tcs.smooth_covariance_drift()
    pb, pd = tcs.smooth_drift_printed()
    assert sp.simplify(b - pb) == 0 and sp.simplify(diag - pd) == 0
    t = tcs.explosion_criterion("tanh")
    assert (t.phi2, t.phi3, t.value, t.stable) == (0, -2, -2, True)
    s = tcs.explosion_criterion("4*sigmoid(x)-2")
    assert (s.phi2, s.phi3) == (0, sp.Rational(-1, 2)) and s.recentred == ""
    sig = tcs.explosion_criterion("sigmoid")
    assert sig.recentred and sig.phi3 == sp.Rational(-1, 2)
    sp_ = tcs.explosion_criterion("softplus")
    assert sp_.value == sp.Rational(3, 16) and not sp_.stable


def test_example_4_2_erratum():
    p2, p3, crit, thr = tcs.softplus_shift_criterion()
    x0 = sp.Symbol("x_0", real=True)
    assert sp.simplify(crit - (sp.Rational(7, 4) - sp.exp(x0)) / (1 + sp.exp(x0)) ** 2) == 0
    assert len(thr) == 1 and float(thr[0]) == pytest.approx(math.log(7 / 4))
    assert float(crit.subs(x0, 0.41)) > 0   # the shift of [38] is unstable


@pytest.mark.parametrize("b,explodes", [(-2, False), (-0.5, False), (0, False), (0.25, True), (3, True)])
def test_feller(b, explodes):
    r = tcs.feller_explosion_test(b)
    assert r.explodes == explodes and not r.v_zero_finite
    v = [tcs.feller_v_numeric(b, M) for M in (1e2, 1e4)]
    assert (v[1] < 1.1 * v[0]) == explodes


def test_relu_chain_coefficients_one_layer():
    """μ_ReLU, σ²_ReLU against 60 000 one-layer updates of a width-150 network at ρ = −0.5."""
    n, r0, N = 150, -0.5, 60_000
    shape = ncs.Shape("relu", n, c_plus=0.0, c_minus=-math.sqrt(n))
    r1 = ncs.simulate_shaped_network(shape, 1, np.array([[1, r0], [r0, 1.0]]), N, seed=4).rho[:, -1]
    mu, s2 = tcs.relu_chain_numeric()
    dev = (r1.mean() - ncs.relu_map(r0)) * n
    se = r1.std() / math.sqrt(N) * n
    assert abs(dev - float(mu(np.array(r0)))) < 4 * se
    assert r1.var() * n == pytest.approx(float(s2(np.array(r0))), rel=0.05)


def test_bad_input():
    with pytest.raises(DeepinitError, match="relu has a kink at x₀ = 0.*Definition 3.1"):
        tcs.explosion_criterion("relu")            # kink at 0: not C⁴
    with pytest.raises(DeepinitError, match="step has a jump at x₀ = 0: not continuous"):
        tcs.explosion_criterion("step")            # a jump is not a kink
    with pytest.raises(DeepinitError):
        tcs.explosion_criterion("cos")             # σ′(0) = 0: cannot recentre
    with pytest.raises(DeepinitError):
        ncs.Shape("smooth", 100, act="tanh", a=-1.0)
    with pytest.raises(DeepinitError):
        ncs.Shape("relu", 100, p=-0.5)
    with pytest.raises(DeepinitError):
        ncs.simulate_correlation_sde(0, -1, 1.5, 1.0, 0.01, 10)
    with pytest.raises(DeepinitError):
        ncs.simulate_shaped_network(ncs.Shape("relu", 10), 3, np.array([[1, 2], [2, 1.0]]), 5)


# ------------------------------------------------------------------ simulators

def test_exact_network_matches_dense_in_law():
    shape = ncs.Shape("relu", 60, c_plus=0.0, c_minus=-1.0)
    V0 = np.array([[1.0, 0.3], [0.3, 1.0]])
    ex = ncs.simulate_shaped_network(shape, 20, V0, 600, method="exact", seed=1, layers=[20])
    de = ncs.simulate_shaped_network(shape, 20, V0, 600, method="dense", seed=2, layers=[20])
    assert stats.ks_2samp(ex.rho[:, -1], de.rho[:, -1]).pvalue > 0.001
    assert stats.ks_2samp(ex.V[:, -1, 0, 0], de.V[:, -1, 0, 0]).pvalue > 0.001
    # power: a network with 20% wider slopes gap is told apart
    other = ncs.simulate_shaped_network(ncs.Shape("relu", 60, c_plus=0.0, c_minus=-6.0), 20, V0, 600, seed=3, layers=[20])
    assert stats.ks_2samp(ex.rho[:, -1], other.rho[:, -1]).pvalue < 0.001


def test_reproducible_and_explosions_reported():
    shape = ncs.Shape("smooth", 50, act="softplus", a=0.3)
    a = ncs.simulate_shaped_network(shape, 50, np.array([[1.0]]), 300, seed=7)
    b = ncs.simulate_shaped_network(shape, 50, np.array([[1.0]]), 300, seed=7)
    assert np.array_equal(a.V, b.V) and np.all(np.isfinite(a.V))
    assert a.exploded.any() and np.all(a.explosion_layer[a.exploded] > 0)
    sde = ncs.simulate_covariance_sde(ncs.covariance_drift("smooth", phi2=0.0, phi3=3.0), np.array([[1.0]]), 2.0,
                                      1e-2, 500, scheme="wishart", seed=1)
    assert sde.exploded.any() and np.all(np.isfinite(sde.values))
    assert np.all(np.isfinite(sde.explosion_time[sde.exploded]))


def test_schemes_orders_quick():
    T, paths, fine = 1.0, 4000, 2 ** 9
    dW = np.random.default_rng(0).standard_normal((paths, fine)) * math.sqrt(T / fine)
    ref = ncs.simulate_correlation_sde(0, -1, 0.3, T, T / fine, paths, scheme="milstein", dW=dW, keep="last").values[:, -1]

    def strong(scheme, k):
        m = fine // 2 ** k
        v = ncs.simulate_correlation_sde(0, -1, 0.3, T, 2.0 ** -k, paths, scheme=scheme,
                                         dW=dW.reshape(paths, -1, m).sum(axis=2), keep="last").values[:, -1]
        return np.mean(np.abs(v - ref))
    em = [strong("em", k) for k in (3, 5)]
    mil = [strong("milstein", k) for k in (3, 5)]
    assert 0.3 < math.log(em[0] / em[1]) / math.log(4) < 0.75       # strong order 1/2
    assert 0.75 < math.log(mil[0] / mil[1]) / math.log(4) < 1.25     # strong order 1


def test_wishart_scheme_moments_and_psd():
    V0 = np.array([[1.0, 0.5], [0.5, 2.0]])
    out = ncs.simulate_covariance_sde(ncs.covariance_drift("none"), V0, 0.1, 0.1, 200_000, scheme="wishart",
                                      seed=3, keep="last").values[:, -1]
    assert np.all(np.linalg.eigvalsh(out) >= 0)
    assert np.allclose(out.mean(axis=0), V0, atol=0.01)                       # martingale
    var12 = out[:, 0, 1].var() / 0.1
    assert var12 == pytest.approx(V0[0, 0] * V0[1, 1] + V0[0, 1] ** 2, rel=0.03)  # Σ of (3.2)


def test_correlation_law_generator_matches_the_sde_coefficients():
    """Over a short time the forward equation's law moves by the drift ν + μ and spreads by σ² (eqs 3.4–3.5),
    evaluated here from their formulas, not from the solver's rates."""
    T = 1e-3
    for r0, nu_scale in ((0.3, 1.0), (-0.5, 1.0), (0.1, 0.0), (-0.8, 2.0)):
        law = ncs.correlation_sde_law(0.0, -1.0, r0, T, cells=1000, nu_scale=nu_scale)
        a = nu_scale * ncs.nu_numeric(0.0, -1.0)(np.array(r0)) - 0.5 * r0 * (1 - r0 * r0)
        assert (law.mean - r0) / T == pytest.approx(float(a), rel=0.02, abs=2e-3)
        assert law.var / T == pytest.approx((1 - r0 * r0) ** 2, rel=0.03)


def test_correlation_law_matches_weak2_paths_and_is_a_law():
    """The forward equation against the weak order-2 scheme (a second route): mean and variance of ρ_T, and the CDF
    within the one-sample KS floor."""
    law = ncs.correlation_sde_law(0.0, -1.0, -0.5, 1.0)
    paths = ncs.simulate_correlation_sde(0.0, -1.0, -0.5, 1.0, 1e-2, 100_000, scheme="weak2", seed=7,
                                         keep="last").values[:, -1]
    se = paths.std() / math.sqrt(paths.size)
    assert abs(paths.mean() - law.mean) < 4 * se
    assert paths.var() == pytest.approx(law.var, rel=0.02)
    assert stats.kstest(paths, law.cdf).pvalue > 0.001
    assert law.pmf.sum() == pytest.approx(1.0) and law.pmf.min() >= 0
    F = law.cdf(np.linspace(-1.5, 1.5, 301))
    assert F[0] == 0.0 and F[-1] == 1.0 and np.all(np.diff(F) >= 0)
    # ν moves the law: without it the mean is lower (ν ≥ 0) — the check's sensitivity
    assert ncs.correlation_sde_law(0.0, -1.0, -0.5, 1.0, drift_nu=False).mean < law.mean - 0.15
    # second order in the grid for the mean
    assert abs(ncs.correlation_sde_law(0.0, -1.0, -0.5, 1.0, cells=1000).mean - law.mean) < 1e-5


def test_correlation_law_bad_input():
    for kw in ({"cells": 8}, {"cells": 10 ** 6}, {"cells": 2.5}):
        with pytest.raises(DeepinitError):
            ncs.correlation_sde_law(0.0, -1.0, 0.3, 1.0, **kw)
    for args in ((0.0, -1.0, 1.2, 1.0), (0.0, -1.0, float("nan"), 1.0), (0.0, -1.0, 0.3, -1.0),
                 (float("inf"), -1.0, 0.3, 1.0)):
        with pytest.raises(DeepinitError):
            ncs.correlation_sde_law(*args)


def test_width_extrapolation_recovers_the_limit_and_flags_a_misfit():
    from verify.papers.covariance_sde.appendix_f import _extrapolate
    widths = np.array([4, 8, 16, 32, 64])
    se = np.full(5, 1e-3)
    exact = 0.02 + 0.11 * widths ** -0.5 - 0.37 / widths
    coef, C, chi2, dof = _extrapolate(widths, exact, se)
    assert coef == pytest.approx([0.02, 0.11, -0.37], abs=1e-9) and chi2 < 1e-12 and dof == 2
    # a term the model lacks (n^-2, large at n = 4) is caught by the χ² (the verdict would be inconclusive)
    _, _, chi2, dof = _extrapolate(widths, exact + 2.0 / widths ** 2, se)
    assert stats.chi2.sf(chi2, dof) < 0.001


def test_width_convergence_turns_when_nu_is_off_by_the_resolution():
    """Mutation: the SDE side with ν scaled by 1 ± 25% (the quick budget's resolution) makes the limit row fail."""
    from verify import quantities as Q
    from verify.papers.covariance_sde.appendix_f import _width_rows
    ctx = Context(budget="quick", seed=0)
    shared: dict = {}   # the networks are simulated once and reused, as in the runner's controls
    with Q.perturbed({}, memo=shared):
        rows, fits = _width_rows(ctx)
    assert fits and all(r.passed for r in rows if r.passed is not None)
    for d in (0.25, -0.25):
        with Q.perturbed({"nu": d}, memo=shared):
            rows, _ = _width_rows(ctx)
        limit = [r for r in rows if r.name.startswith("the limit")][0]
        assert limit.passed is False, (d, limit.note)


# ------------------------------------------------------------------ claims

EXPECTED = {
    "eq2-6": HOLDS, "eq2-10": HOLDS, "theorem3-2": HOLDS, "theorem3-3": HOLDS, "proposition3-4": HOLDS,
    "proposition3-7": HOLDS, "theorem3-9": HOLDS, "proposition3-10": VIOLATED, "eq4-1": HOLDS,
    "example4-1": HOLDS, "example4-2": HOLDS, "figure1": HOLDS, "figure2": HOLDS, "sde-schemes": HOLDS,
    "sde-step-size": HOLDS, "constants": HOLDS, "m-point": HOLDS,
    "width-convergence": HOLDS,
}


def test_every_claim_has_an_expectation():
    from verify.registry import all_claims
    assert {c.name for c in all_claims() if c.paper == "covariance-sde" and c.checked} == set(EXPECTED)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_claim_quick(name, tmp_path):
    v = run_claim(resolve(f"covariance-sde:{name}"), quick_context(f"covariance-sde:{name}", tmp_path))
    assert v.status == EXPECTED[name], v.summary
    assert_controls(v)
    assert_figure_files(v, tmp_path)


def test_errata_recorded():
    v = run_claim(resolve("covariance-sde:example4-2"), Context(budget="quick"), with_control=False)
    assert any("7/4" in e.found for e in v.errata)
    v = run_claim(resolve("covariance-sde:proposition3-10"), Context(budget="quick"), with_control=False)
    assert v.errata and "diagonal" in v.errata[0].found


@pytest.mark.standard
@pytest.mark.parametrize("name", list(EXPECTED))
def test_claim_standard_budget(name):
    """The verdicts recorded in docs/papers/covariance-sde.md (about 8 minutes in all on 2 cores)."""
    v = run_claim(resolve(f"covariance-sde:{name}"), Context(budget="standard", seed=0))
    assert v.status == EXPECTED[name], v.summary
    assert_controls(v)


@pytest.mark.parametrize("shift, p_range, same", [(0.14, (2e-3, 6e-3), True), (0.17, (1e-4, 3e-4), False),
                                                  (0.20, (3e-6, 8e-6), False)])
def test_ks_rows_decide_at_the_papers_level(shift, p_range, same):
    """covariance-sde's KS rows test at α = 0.001: two samples whose two-sample KS p-value lies above α count as the
    same law, below it as different. The pairs (n = 2000 normal quantiles against the same shifted) have p ≈ 4e-3,
    2e-4 and 5e-6: a looser level (α = 1e-6) would call the last two the same law."""
    from verify.papers.covariance_sde._common import _ks_row
    a = stats.norm.ppf((np.arange(2000) + 0.5) / 2000)
    same_law, different = _ks_row("same", a, a + shift), _ks_row("different", a, a + shift, expect_same=False)
    assert p_range[0] < same_law.observed < p_range[1]
    assert bool(same_law.passed) is same and bool(different.passed) is (not same)


def test_relu_moments_closed_form_against_quadrature_row(monkeypatch):
    """eq2-10's row: every closed-form moment E relu(x)^p relu(y)^q the derivations of (2.10) and (3.2) use agrees
    with nested quadrature to ~1e-14; a moment with a wrong radial factor (2^{k/2}Γ(k/2) for 2^{k/2}Γ(k/2 + 1), i.e.
    off by k/2) fails it."""
    from verify.papers.covariance_sde._common import relu_moment_rows
    row, = relu_moment_rows()
    assert row.passed and row.observed < 1e-12 and row.bound == 1e-10
    real = tcs.relu_bivariate_moment
    monkeypatch.setattr(tcs, "relu_bivariate_moment",
                        lambda p, q: real(p, q) * (sp.Integer(2) / (p + q) if (p, q) == (3, 1) else 1))
    bad, = relu_moment_rows()
    assert bad.passed is False and bad.observed == pytest.approx(1.0, rel=1e-9)   # |½m − m|/(½m)


def test_shaped_network_simulators_agree_in_law_and_a_dense_bug_is_caught(monkeypatch):
    """theorem3-2's simulator-variant rows: the exact-in-law and explicit-weight simulators of the same finite network
    (n = d = 30) agree in KS at seed 0; with c dropped from the explicit-weight pre-activations (a catalogued mutant)
    V^{11} fails and the claim no longer holds."""
    from conftest import catalogued_mutant
    from verify.papers.covariance_sde.relu_like_shaping import simulator_variant_rows
    rows = simulator_variant_rows(Context(budget="quick", seed=0))
    assert [r.passed for r in rows] == [True, True, True]
    assert [r.observed for r in rows[:2]] == pytest.approx([0.0667, 0.443], abs=5e-4)
    monkeypatch.setattr(ncs, "_shaped_layers", catalogued_mutant("nu-shaped-dense-c-dropped", ncs._shaped_layers))
    bad = simulator_variant_rows(Context(budget="quick", seed=0))
    assert bool(bad[0].passed) is False and bad[0].observed < 1e-20
    v = run_claim(resolve("covariance-sde:theorem3-2"), Context(budget="quick", seed=0), with_control=False)
    assert v.status != HOLDS


def test_identical_inputs_stay_identical_and_a_wrong_singular_root_is_caught(monkeypatch):
    """theorem3-2's rank-one row: V₀ = 11ᵀ stays rank one through 10 layers of both simulators (7.5e-8 relative, the
    square root of the rounding-level zero eigenvalue, under the 1e-6 bound); a singular root diag(√w)Q in place of
    Q diag(√w) collapses one input to 0 — every sample stops as degenerate — and the claim no longer holds."""
    from conftest import catalogued_mutant
    from verify.papers.covariance_sde.relu_like_shaping import _identical_inputs_row
    shape = ncs.Shape("relu", 30, c_plus=0.0, c_minus=-1.0)
    row = _identical_inputs_row(shape)
    assert row.passed and 1e-9 < row.observed < 1e-6 and "stopped as degenerate or exploded: 0" in row.note
    monkeypatch.setattr(ncs, "_cov_root", catalogued_mutant("nu-shaped-singular-root-rows", ncs._cov_root))
    bad = _identical_inputs_row(shape)
    assert not bad.passed and "exploded: 200 " in bad.note
    v = run_claim(resolve("covariance-sde:theorem3-2"), Context(budget="quick", seed=0), with_control=False)
    assert v.status != HOLDS


def test_the_explosion_criterion_gives_exact_estimates_with_their_sympy_forms():
    """gelu: (3/4)φ″(0)² + φ‴(0) = 6/π (φ″(0) = 2√2/√π, φ‴(0) = 0 after recentring); tanh: −2 exactly (0, −2).
    Irrational values carry half an ulp, exact binary ones 0."""
    import math
    from theory import explosion_criterion
    g = explosion_criterion("gelu").estimates()
    assert g["criterion"].value == pytest.approx(6 / math.pi, rel=1e-15) and g["criterion"].text == "6/pi"
    assert abs(g["criterion"].value - 6 / math.pi) <= g["criterion"].error == 0.5 * math.ulp(6 / math.pi)
    assert g["phi2"].value == pytest.approx(2 * math.sqrt(2 / math.pi), rel=1e-15) and g["phi3"].error == 0.0
    t = explosion_criterion("tanh").estimates()
    assert [(t[k].value, t[k].error) for k in ("criterion", "phi2", "phi3")] == [(-2.0, 0.0), (0.0, 0.0), (-2.0, 0.0)]


def test_a_wrong_phi2_term_in_the_simulated_drift_fails_its_row_though_tanh_hides_it(monkeypatch):
    """(3.10)'s φ″(0)² term multiplies 0 for tanh, the activation the SDE simulations use: an error there changes no
    simulation; the row at φ″(0) = 0.7, φ‴(0) = −0.4 catches it."""
    from verify.papers.covariance_sde.smooth_shaping import simulated_drift_row
    b, _ = tcs.smooth_covariance_drift()
    assert simulated_drift_row(b).passed is True and simulated_drift_row(b).observed < 1e-14
    right = ncs.covariance_drift

    def wrong(kind, **kw):
        if kind != "smooth":
            return right(kind, **kw)
        p2, p3, a = float(kw["phi2"]), float(kw["phi3"]), float(kw.get("a", 1.0))

        def drift(V):   # V(2V − 1) for V(2V − 3)
            dg = np.einsum("pii->pi", V)
            prod, tot = dg[:, :, None] * dg[:, None, :], dg[:, :, None] + dg[:, None, :]
            return p2 ** 2 / (4 * a * a) * (prod + V * (2 * V - 1)) + p3 / (2 * a * a) * V * (tot - 2)
        return drift
    monkeypatch.setattr(ncs, "covariance_drift", wrong)
    V = np.array([[[1.0, 0.3], [0.3, 1.0]]])
    assert np.array_equal(wrong("smooth", phi2=0.0, phi3=-2.0)(V), right("smooth", phi2=0.0, phi3=-2.0)(V))  # tanh
    row = simulated_drift_row(b)
    assert row.passed is False and row.observed > 1e-2
