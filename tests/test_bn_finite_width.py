"""bn-finite-width: G* by two routes, the batch-norm chain simulators, and the claims' verdicts."""
import math

import numpy as np
import pytest

from conftest import assert_controls, assert_figure_files, quick_context
import torch
from scipy import stats

import numerics
import theory
from verify.core import HOLDS, HYPOTHESES_NOT_MET, VIOLATED, Context
from verify.registry import resolve
from verify.runner import run_claim


@pytest.mark.parametrize("act", ["relu", "tanh", "sin", "selu"])
@pytest.mark.parametrize("n", [4, 10])
def test_bsb1_quadrature_vs_monte_carlo(act, n):
    fp = theory.bsb1_constants(act, n)
    b, c, b_se, bc_se = theory.bsb1_constants_mc(act, n, 200_000, seed=n)
    assert abs(b - fp.b) < 4.5 * b_se
    assert abs(b * c - fp.b * fp.c) < 4.5 * bc_se


@pytest.mark.parametrize("n", [4, 5, 10, 64])
def test_bsb1_exact_values(n):
    ident = theory.bsb1_constants("identity", n)
    assert ident.b == pytest.approx(1.0, abs=1e-12) and ident.c == pytest.approx(-1 / (n - 1), abs=1e-12)
    assert ident.singular and ident.inverse_norm == math.inf  # G* = n/(n−1)·M annihilates 1
    assert theory.bsb1_constants("relu", n).b == pytest.approx(0.5, abs=1e-12)  # E relu(x)² = E x²/2


def test_bsb1_spectrum_and_errors():
    fp = theory.bsb1_constants("relu", 10)
    assert np.allclose(np.linalg.eigvalsh(fp.gram)[::-1], fp.eigenvalues)
    assert fp.eigenvalue_ones == pytest.approx(fp.b * (1 + 9 * fp.c))
    with pytest.raises(theory.DeepinitError):
        theory.bsb1_constants("relu", 3)


def test_bn_exact_and_dense_same_distribution():
    """Two-sample KS tests on G_ℓ entries over 300 networks each (α = 0.001 per test)."""
    a = numerics.simulate_bn_chain("tanh", 64, 4, 3, 300, method="exact", seed=1, layers=[3]).numpy()[:, 0]
    b = numerics.simulate_bn_chain("tanh", 64, 4, 3, 300, method="dense", seed=2, layers=[3]).numpy()[:, 0]
    for (i, j) in ((0, 0), (0, 1), (2, 3)):
        assert stats.ks_2samp(a[:, i, j], b[:, i, j]).pvalue > 1e-3


def test_bn_ks_has_power():
    a = numerics.simulate_bn_chain("tanh", 64, 4, 3, 300, seed=1, layers=[3]).numpy()[:, 0]
    b = numerics.simulate_bn_chain("tanh", 16, 4, 3, 300, seed=2, layers=[3]).numpy()[:, 0]  # a wrong width
    assert stats.ks_2samp(a[:, 0, 1], b[:, 0, 1]).pvalue < 1e-3


def test_bn_chain_converges_to_gstar():
    fp = theory.bsb1_constants("relu", 6)
    G = numerics.simulate_bn_chain("relu", 20000, 6, 10, 2, layers=[10]).numpy()[:, 0]
    assert np.max(np.abs(G - fp.gram)) < 6 / math.sqrt(20000) * 3


def test_paired_inputs_and_no_bn():
    """Values, not shapes: with BN both batches through one network sit at G* after a few layers, whatever their
    inputs; without BN the linear chain is a martingale, E G_ℓ = the input covariance at every layer."""
    fp = theory.bsb1_constants("relu", 4)
    G, G2 = numerics.simulate_bn_chain("relu", 4000, 4, 6, 8, paired_input=np.eye(4), layers=[6])
    for g in (G, G2):
        assert np.max(np.abs(g.numpy().mean(axis=(0, 1)) - fp.gram)) < 0.02  # ≈ 5 standard errors
    nob = numerics.simulate_bn_chain("identity", 2000, 4, 5, 64, batchnorm=False, input_cov=np.eye(4)).numpy()
    assert nob.shape == (64, 6, 4, 4)
    assert np.max(np.abs(nob.mean(axis=0) - np.eye(4))) < 0.05


def test_degenerate_batch_is_a_clear_error():
    with pytest.raises(numerics.DegenerateBatchError, match="zero variance"):
        numerics.simulate_bn_chain("relu", 50, 4, 2, 1, input_cov=np.ones((4, 4)))


def test_seed_reproducible():
    a = numerics.simulate_bn_chain("relu", 100, 4, 3, 2, seed=3)
    b = numerics.simulate_bn_chain("relu", 100, 4, 3, 2, seed=3)
    assert torch.equal(a, b)


EXPECTED = {"theorem1": HOLDS, "eq6": HOLDS, "figure1": HOLDS, "corollary8": HOLDS, "assumption1": HOLDS,
            "corollary2": HOLDS, "poster-theorem2": HOLDS, "figure2": VIOLATED, "theorem3": HOLDS,
            "corollary4": HOLDS, "corollary6": HOLDS, "corollary7": HOLDS, "lemma5": VIOLATED,
            "eq19": VIOLATED, "lemma9": HOLDS, "lemma12": VIOLATED}


def test_every_checked_claim_is_covered_here():
    from verify.registry import all_claims
    assert {c.name for c in all_claims() if c.paper == "bn-finite-width" and c.checked} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_claim_verdict_and_control(name, tmp_path):
    v = run_claim(resolve(f"bn-finite-width:{name}"), quick_context(f"bn-finite-width:{name}", tmp_path))
    assert v.status == EXPECTED[name], v.summary
    assert_controls(v)
    assert_figure_files(v, tmp_path)


def test_theorem1_values():
    v = run_claim(resolve("theorem1"), Context(budget="quick", params={"activations": "relu"}), with_control=False)
    exp = [e for e in v.evidence if e.name.startswith("relu: width exponent")][0]
    assert exp.ci[0] < -0.5 < exp.ci[1] + 0.1
    assert any("eq (8)" in e.location for e in v.errata)


def test_theorem1_hypotheses():
    v = run_claim(resolve("theorem1"), Context(budget="quick", params={"activations": "identity"}))
    assert v.status == HYPOTHESES_NOT_MET and "singular" in v.summary
    v = run_claim(resolve("theorem1"), Context(budget="quick", params={"activations": "tanh", "widths": "500,2000"}),
                  with_control=False)
    assert v.status == HYPOTHESES_NOT_MET and "n²‖G*⁻¹‖" in v.summary


def test_figure2_erratum_spread():
    v = run_claim(resolve("bn-finite-width:figure2"), Context(budget="quick"), with_control=False)
    # KS distance to Marchenko–Pastur against its critical value: that of an exact Wishart bulk of the same size + 0.05;
    # the last row checks the Marchenko–Pastur CDF itself against its density's integral
    ks, (cdf,) = v.evidence[:-1], v.evidence[-1:]
    assert v.errata and ks and all(e.statistic == "KS" and e.observed > 5 * (e.bound - 0.05) for e in ks)
    assert cdf.name.startswith("the Marchenko–Pastur CDF") and cdf.passed is True and cdf.observed < 1e-13


def test_corollary8_erratum_numbers():
    v = run_claim(resolve("bn-finite-width:corollary8"), Context(budget="quick"), with_control=False)
    assert any("Section 6.1" in e.location for e in v.errata)
    row = [e for e in v.evidence if e.name.startswith("relu: eigenvalue along 1")][0]
    printed = theory.bsb1_constants("relu", 10).c * 10   # the printed λ_1* = c*·n
    assert abs(row.numeric - row.theory) < 0.1 * row.theory and abs(row.numeric - printed) > 0.5


@pytest.mark.parametrize("act,expected", [("relu", 1.0), ("tanh", math.tanh(1.0)),
                                          ("sigmoid", 1 / (1 + math.exp(-1))), ("sin", math.sin(1.0))])
def test_distortion_certificate(act, expected):
    """γ = sup_{‖x‖=√n} ‖σ(x)‖/‖x‖; for these σ the maximiser is x = (±1, …, ±1) (σ(t)²/t² decreasing)."""
    g = theory.distortion(act, 10)
    assert g.lower <= expected + 1e-12 <= g.upper + 1e-12
    assert g.upper - g.lower < 1e-3
    # at n = 32 the grid on [0, √n] is coarser: the enclosure is within 5e-3 (measured: relu 1.6e-3, tanh 4e-4,
    # sin 5e-4) when the golden-section search refines the dual's λ (a search that leaves the bracket: relu 0.13)
    g = theory.distortion(act, 32)
    assert g.lower <= expected + 1e-12 <= g.upper + 1e-12 and g.upper - g.lower < 5e-3


def test_distortion_lower_bound_is_feasible():
    g = theory.distortion("selu", 10)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((20000, 10))
    x = math.sqrt(10) * x / np.linalg.norm(x, axis=1, keepdims=True)
    sampled = np.max(np.linalg.norm(theory.activation("selu").numpy(x), axis=1)) / math.sqrt(10)
    assert sampled <= g.upper + 1e-12


def test_corollary4_erratum():
    v = run_claim(resolve("bn-finite-width:corollary4"), Context(budget="quick"), with_control=False)
    assert any("transitory" in e.found for e in v.errata)
    assert v.evidence[1].numeric > 0.5  # O(1) at ℓ = 0, whatever the width


def test_lemma5_tv_lower_bound_does_not_shrink():
    v = run_claim(resolve("bn-finite-width:lemma5"), Context(budget="quick"), with_control=False)
    lows = [e.observed for e in v.evidence]
    assert min(lows) > 0.5 and v.errata  # Ω(1) at every width, while ε² ∝ 1/d


def test_explicit_input_batch():
    h0 = np.random.default_rng(0).standard_normal((100, 4))
    G = numerics.simulate_bn_chain("relu", 100, 4, 2, 3, input=h0).numpy()
    assert np.allclose(G[0, 0], G[2, 0])  # same h_0, same G_0 for every seed
    assert not np.allclose(G[0, 2], G[2, 2])  # independent weights afterwards
    with pytest.raises(theory.DeepinitError):
        numerics.simulate_bn_chain("relu", 100, 4, 2, 1, input=np.ones((5, 4)))


def test_marchenko_pastur_cdf_against_wishart_and_moments():
    """Independent routes for the MP law: its first two moments (1 and 1 + y) by integrating the CDF, and
    exact Wishart spectra (KS distance small at n = 40, d = 400)."""
    y = 0.1
    a, b = (1 - math.sqrt(y)) ** 2, (1 + math.sqrt(y)) ** 2
    t = np.linspace(a, b, 4001)
    F = theory.marchenko_pastur_cdf(t, y)
    assert F[0] == 0.0 and F[-1] == pytest.approx(1.0, abs=1e-10) and np.all(np.diff(F) >= -1e-12)
    dens = np.gradient(F, t)
    assert np.trapezoid(t * dens, t) == pytest.approx(1.0, abs=2e-3)
    assert np.trapezoid(t * t * dens, t) == pytest.approx(1 + y, abs=3e-3)
    rng = np.random.default_rng(0)
    ev = np.concatenate([np.linalg.eigvalsh(Z.T @ Z / 400) for Z in rng.standard_normal((100, 400, 40))])
    assert stats.kstest(ev, lambda v: theory.marchenko_pastur_cdf(v, y)).statistic < 0.03
    with pytest.raises(theory.DeepinitError):
        theory.marchenko_pastur_cdf([1.0], 1.5)


@pytest.mark.standard
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_claim_standard_budget(name):
    """The verdicts recorded in docs/papers/bn-finite-width.md, with their ±5% controls."""
    v = run_claim(resolve(f"bn-finite-width:{name}"), Context(budget="standard", seed=0))
    assert v.status == EXPECTED[name], v.summary
    assert_controls(v)


def test_gaussian_tv_closed_form_and_the_eq19_erratum():
    """TV(N(0,1), N(0,4)) = 2(Φ(x*) − Φ(x*/2)), x*² = 8 log 2/3; for small λ the TV is ≈ λ/sqrt(2πe)·… ∝ λ, so TV/λ²
    blows up (the printed eq (19)) while TV/λ stays bounded (the cited theorem)."""
    from scipy import stats
    from verify.papers.bn_finite_width.eq19 import _gaussian_tv_quad, gaussian_tv_1d
    x = math.sqrt(8 * math.log(2) / 3)
    assert gaussian_tv_1d(4.0) == pytest.approx(2 * (stats.norm.cdf(x) - stats.norm.cdf(x / 2)), rel=1e-14)
    for lam in (1e-3, 1e-2):
        tv = gaussian_tv_1d(1 + lam)
        assert tv == pytest.approx(_gaussian_tv_quad((1 + lam,)), abs=1e-12)
        assert tv / lam ** 2 > 1.5 and 0.01 <= tv / lam <= 1.5
    v = run_claim(resolve("bn-finite-width:eq19"), Context(budget="quick"))
    assert v.status == VIOLATED and v.errata and "min(1" in v.errata[0].found


def test_lemma9_identity_resolution_and_errata():
    v = run_claim(resolve("bn-finite-width:lemma9"), Context(budget="quick"))
    ident = [e for e in v.evidence if "(E‖y‖⁴ − n)/d" in e.name]
    assert len(ident) == 2 and all(e.observed <= e.bound for e in ident)
    assert {e.severity for e in v.errata} == {"typo", "error"}
    ratio = [e for e in v.evidence if e.passed is None and e.name.startswith("tanh")][0]
    assert ratio.numeric > 1.5   # the printed non-symmetric Frobenius norm is larger than the proof's (ratio of means)


def test_gstar_mc_standard_errors_against_the_orthant_closed_form():
    """The calibration rows of bsb1_constants_mc's standard errors: σ = step, where b* = 1/2 and
    b*c* = 1/4 + arcsin(−1/(n−1))/(2π) (Sheppard) — the quadrature agrees, but the rows do not use it."""
    from verify.papers.bn_finite_width.theorem1 import gstar_mc_se_rows
    fp = theory.bsb1_constants("step", 10)
    assert fp.b == pytest.approx(0.5, abs=1e-12)
    assert fp.b * fp.c == pytest.approx(0.25 + math.asin(-1 / 9) / (2 * math.pi), abs=1e-12)
    rows = gstar_mc_se_rows(Context(budget="quick", seed=0), 10)
    lo, hi = stats.chi2.ppf([0.0005, 0.9995], 400) / 400
    assert [r.statistic for r in rows] == ["χ²/K", "χ²/K"] and all(r.samples == 400 for r in rows)
    assert all(r.passed and r.theory == 1.0 and r.bound == pytest.approx((lo, hi)) for r in rows)
    assert [r.observed for r in rows] == pytest.approx([0.97464, 0.97195], abs=1e-4)


def test_a_standard_error_of_b_star_c_star_sqrt2_too_large_is_caught(monkeypatch):
    """bc_se ×√2 leaves the lenient quadrature-vs-Monte-Carlo rows passing; the calibration row must fail."""
    real = theory.bsb1_constants_mc

    def lenient(*args, **kwargs):
        b, c, b_se, bc_se = real(*args, **kwargs)
        return b, c, b_se, bc_se * math.sqrt(2)

    monkeypatch.setattr(theory, "bsb1_constants_mc", lenient)
    v = run_claim(resolve("bn-finite-width:corollary7"), Context(budget="quick", seed=0))
    assert v.status != HOLDS, v.summary
    assert all(e.passed for e in v.evidence if "quadrature vs Monte Carlo" in e.name)
    cal = {e.name.split(" (")[0]: e for e in v.evidence if e.name.startswith("standard error of the Monte Carlo")}
    assert cal["standard error of the Monte Carlo b*"].passed
    bc = cal["standard error of the Monte Carlo b*c*"]
    assert bc.passed is False and bc.observed == pytest.approx(0.97195 / 2, abs=1e-4)


@pytest.mark.parametrize("z, passes", [(3.0, True), (3.2, True), (3.4, False), (4.0, False)])
def test_gstar_mc_rows_decide_at_the_papers_level(monkeypatch, z, passes):
    """The per-row level of bn-finite-width is 99.9% (two-sided |z| ≤ 3.2905): a Monte Carlo b* and b*c* placed z
    standard errors from the quadrature must pass below that and fail above it. A looser level (99.9999%,
    |z| ≤ 4.89) would pass z = 3.4 and 4.0; no verdict that already holds could show it."""
    from verify.papers.bn_finite_width import theorem1 as P
    fp = theory.bsb1_constants("relu", 4)
    b_se, bc_se = 1e-3, 2e-3
    c_mc = (fp.b * fp.c + z * bc_se) / (fp.b + z * b_se)
    monkeypatch.setattr(theory, "bsb1_constants_mc", lambda *a, **k: (fp.b + z * b_se, c_mc, b_se, bc_se))
    rows = P.gstar_mc_rows(Context(budget="quick", seed=7919 + int(10 * z)), "relu", 4, fp)
    assert [r.observed for r in rows] == pytest.approx([z, z], rel=1e-9)
    assert [r.bound for r in rows] == pytest.approx([3.2905267, 3.2905267], abs=1e-6)
    assert [bool(r.passed) for r in rows] == [passes, passes]


def test_bn_chain_simulators_agree_in_law_and_a_dense_bug_is_caught(monkeypatch):
    """theorem1's simulator-variant rows: the exact-in-law and explicit-weight BN chains agree in KS at seed 0
    (p = 0.864, 0.281); with the dense path's batch variance over n − 1 (catalogued mutant nu-bnchain-dense-n1) the
    diagonal entry fails and the claim no longer holds."""
    from conftest import catalogued_mutant
    from numerics import bn_chain
    from verify.papers.bn_finite_width.theorem1 import chain_variant_rows
    rows = chain_variant_rows(Context(budget="quick", seed=0))
    assert [r.passed for r in rows] == [True, True]
    assert [r.observed for r in rows] == pytest.approx([0.864, 0.281], abs=2e-3)
    monkeypatch.setattr(bn_chain, "_normalise_centred",
                        catalogued_mutant("nu-bnchain-dense-n1", bn_chain._normalise_centred))
    bad = chain_variant_rows(Context(budget="quick", seed=0))
    assert bad[0].passed is False and bad[0].observed < 1e-10
    v = run_claim(resolve("bn-finite-width:theorem1"), Context(budget="quick", seed=0), with_control=False)
    assert v.status != HOLDS


def test_theorem3_distortion_upper_end_is_checked_by_a_random_search(monkeypatch):
    """theorem3's γ row: relu's certified enclosure contains 1, which ±√n e₁ attains, so the search finds exactly 1;
    a wrong enclosure [0.98, 0.99] (e.g. the grid without its Lipschitz allowance) fails the row and the claim."""
    from dataclasses import replace
    v = run_claim(resolve("bn-finite-width:theorem3"), Context(budget="quick", seed=0), with_control=False)
    row = next(e for e in v.evidence if "random search" in e.name)
    assert v.status == HOLDS and row.passed and row.observed == pytest.approx(1.0, abs=1e-12)
    real = theory.distortion
    monkeypatch.setattr(theory, "distortion", lambda act, n: replace(real(act, n), lower=0.98, upper=0.99))
    bad = run_claim(resolve("bn-finite-width:theorem3"), Context(budget="quick", seed=0), with_control=False)
    assert bad.status != HOLDS
    assert next(e for e in bad.evidence if "random search" in e.name).passed is False


def test_the_marchenko_pastur_row_catches_a_helper_with_first_order_support_edges(monkeypatch):
    """figure2's KS tests calibrate themselves on an exact Wishart sample against the same helper, so an error of the
    helper moves both; its row against the density's QUADPACK integral fails instead (1e-10)."""
    import math

    import numpy as np

    import theory.batchnorm as tb
    from verify.papers.bn_finite_width.figure2 import mp_cdf_row
    assert mp_cdf_row(0.04).passed is True and mp_cdf_row(0.04).observed < 1e-13
    right = tb.marchenko_pastur_cdf

    def first_order_edges(x, ratio, scale=1.0):   # (1 ∓ √y)² replaced by 1 ∓ 2√y: the support edges to first order
        s = math.sqrt(ratio)
        lo, hi = 1 - 2 * s, 1 + 2 * s
        a, b = (1 - s) ** 2, (1 + s) ** 2
        u = (np.asarray(x, dtype=float) / scale - lo) / (hi - lo)
        return right(scale * (a + (b - a) * u), ratio)
    monkeypatch.setattr(tb, "marchenko_pastur_cdf", first_order_edges)
    row = mp_cdf_row(0.04)
    assert row.passed is False and row.observed > 1e-3
