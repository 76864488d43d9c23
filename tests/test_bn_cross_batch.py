"""bn-mean-field:cross-batch — two batches through one BN network (the package's derivation beyond the printed text):
the rows at seed 0, the resolution of each row, and realistic bugs of theory.bn_meanfield's two-batch block that turn
the verdict. (The verdict with its controls is test_bn_mean_field.py::test_claim_quick[cross-batch].)"""
import math

import pytest

from conftest import assert_controls, catalogued_mutant, source_mutant
from theory import bn_meanfield as tbm
from verify import quantities as Q
from verify.core import HOLDS, VIOLATED, Context
from verify.papers.bn_mean_field import cross_batch as X
from verify.registry import resolve
from verify.runner import run_claim

# (name prefix, theory, numeric, observed, bound) of the rows at quick, seed 0
SEED0 = [
    ("relu, B = 4, ε = 0: the cross block of Σ*₂ is μ*²·11ᵀ = 3/16", 0.1875, 0.1875, None, 1e-12),
    ("relu, B = 4, ε = 0: E J = α*G with α* = (2/3)√(2/π)/√s*", 0.8254544055581904, 0.8254544055582023, None, 1e-12),
    ("tanh, B = 8, ε = 0.1: μ* = 0 for an odd φ", 0.0, None, None, 1e-12),
    ("relu, two batches of B = 4, ε = 0: Σ*₂ (diagonal blocks Σ*, cross blocks μ*²11ᵀ) is a fixed point", 0.1875, 0.18750646,
     3.0542368, 4.1909591),
    ("relu, two batches of B = 4, ε = 0.1: one step of the two-batch map", 0.13090288200076, 0.13096449, 2.1861429, 4.0031676),
    ("gelu, two batches of B = 4, ε = 0.05, γ = 1.2, β = 0.1: one step of the two-batch map", 0.15980525452779, 0.15984761,
     2.2400192, 4.0031676),
    ("relu, two batches of B = 4, ε = 0.1: the backward map's cross block at Σ*₂ is α*²·GΔ₁₂G", 0.7643280377374, 0.75870349,
     1.9927121, 4.0031676),
    ("tanh, two batches of B = 4, ε = 0.05, γ = 1.2, β = 0.1: the backward map's cross block", 0.8585888706948, 0.86164796,
     1.4556492, 4.0031676),
    ("gelu, two batches of B = 4, ε = 0.05, γ = 1.2, β = 0.1: the backward map's cross block", 0.7350100831022, 0.72825310,
     2.4384739, 4.0031676),
    ("relu, two batches of B = 4, ε = 0.1: the deep cross-batch block of N = 1000 networks", 0.09668756760815, 0.09710659,
     4.190245e-4, 1.3024399e-3),
]


def _rows(perturbation=None, power=2):
    with Q.perturbed(perturbation):
        return X._rows(Context(budget="quick", seed=0), power=power)


def test_rows_at_seed_0():
    """The nine rows at quick, seed 0: closed forms to 1e-12 (μ* = √3/4, 3/16, α* = (2/3)√(2/π)/√s*, s* = 0.4152517
    from Theorem 5; tanh μ* = 0), the two-batch Monte Carlo maps within their Bonferroni critical values (4.19 over
    the 36 entries of Σ*₂, 4.00 over the 16 cross entries), and the width-1000 networks' deep cross block 0.09711
    against μ*² = 0.09669 (ReLU, ε = 0.1) within 4 SE + 2q*/N = 1.30e-3."""
    rows = _rows()
    assert len(rows) == len(SEED0) and all(r.passed for r in rows)
    for r, (name, theory, numeric, observed, bound) in zip(rows, SEED0):
        assert r.name.startswith(name), r.name
        assert r.theory == pytest.approx(theory, rel=1e-10, abs=1e-15), r.name
        if numeric is not None:
            assert r.numeric == pytest.approx(numeric, rel=1e-6), r.name
        if observed is not None:
            assert r.observed == pytest.approx(observed, rel=1e-5), r.name
        assert r.bound == pytest.approx(bound, rel=1e-6), r.name
    assert rows[0].observed < 1e-15 and rows[1].observed < 1e-13 and abs(rows[2].numeric) < 1e-14
    assert rows[0].theory == 3 / 16 and rows[1].theory == pytest.approx((2 / 3) * math.sqrt(2 / math.pi)
                                                                        / math.sqrt(0.41525170597891), rel=1e-12)
    assert [r.samples for r in rows[3:]] == [50_000] * 3 + [20_000] * 3 + [6]


@pytest.mark.parametrize("quantity", ["bn-mean-field:mu*", "bn-mean-field:alpha*"])
@pytest.mark.parametrize("sign", [+1, -1])
def test_each_row_resolves_five_percent_of_its_quantity(quantity, sign):
    """Every row whose theory side carries the quantity fails at ±5% of it (the Monte Carlo and network rows reuse
    the same draws), except the odd φ's μ* = 0, which no scale moves."""
    rows = _rows({quantity: 0.05 * sign})
    alpha_rows = {1, 6, 7, 8}
    for i, r in enumerate(rows):
        carries = (i in alpha_rows) if quantity.endswith("alpha*") else (i not in alpha_rows and i != 2)
        assert r.passed is (not carries), (quantity, sign, r.name, r.observed, r.bound)


def test_the_structural_control_fails_every_row_it_changes():
    """One factor of μ (α) for two: the cross block μ* for μ*², √(μ(s₁)μ(s₂)) for μ(s₁)μ(s₂), α*·GΔ₁₂G for α*²·GΔ₁₂G;
    only the closed form of α* itself and the odd φ's μ* = 0 are unchanged."""
    rows = _rows(power=1)
    assert [r.passed for r in rows] == [False, True, True] + [False] * 7


def test_claim_quick_holds_with_its_controls():
    v = run_claim(resolve("bn-mean-field:cross-batch"), Context(budget="quick", seed=0))
    assert v.status == HOLDS, v.summary
    assert_controls(v)
    assert set(v.consumed) == {"bn-mean-field:mu*", "bn-mean-field:alpha*"}
    assert v.resolution == {"bn-mean-field:mu*": 0.05, "bn-mean-field:alpha*": 0.05}
    assert v.negative_control.evidence[-1].name.startswith("structural control")
    assert v.negative_control.evidence[-1].observed == VIOLATED


def test_backward_cross_with_one_factor_of_alpha_is_caught(monkeypatch):
    """Catalogued mutant th-two-batch-backward-alpha-once: TwoBatchFixedPoint.backward_cross returns α*·GΔ₁₂G (one
    batch's E J for both). The three backward rows fail (α* = 0.874 for ReLU, 0.927 for tanh, 0.857 for gelu), the
    claim no longer holds."""
    monkeypatch.setattr(tbm.TwoBatchFixedPoint, "backward_cross",
                        catalogued_mutant("th-two-batch-backward-alpha-once", tbm.TwoBatchFixedPoint.backward_cross))
    v = run_claim(resolve("bn-mean-field:cross-batch"), Context(budget="quick", seed=0), with_control=False)
    assert v.status == VIOLATED
    assert [r.passed for r in v.evidence] == [True] * 6 + [False, False, False] + [True]


def test_output_mean_without_beta_is_caught(monkeypatch):
    """_output_moments dropping BN's β (φ(γρX₁) for φ(γρX₁ + β)): μ(s) of GELU with β = 0.1 moves, the one-step row
    of the two-batch map fails, the claim no longer holds (the other rows have β = 0)."""
    monkeypatch.setattr(tbm, "_output_moments", source_mutant(
        tbm._output_moments, "f = phi(a[:, None] * x[None, :] + beta)", "f = phi(a[:, None] * x[None, :])"))
    tbm._mean_cached.cache_clear()
    try:
        v = run_claim(resolve("bn-mean-field:cross-batch"), Context(budget="quick", seed=0), with_control=False)
    finally:
        monkeypatch.undo()
        tbm._mean_cached.cache_clear()
    assert v.status == VIOLATED
    assert [r.passed for r in v.evidence] == [True] * 5 + [False] + [True] * 4


def test_alpha_of_a_phi_whose_derivative_changes_sign():
    """E J = αG for gelu and swish (φ′ < 0 somewhere): the convergence of α is judged against a smooth scale (the
    root mean square of the integrand), not against ∫|integrand|, whose kinks at the sign changes of φ′ kept the two
    rules 3e-6 apart and refused α. Golden values (the claim's gelu backward row checks α² against Monte Carlo); tanh,
    with φ′ > 0, is unchanged."""
    assert tbm.bn_mean_jacobian("gelu", 4, eps=0.1) == pytest.approx(0.8967086777229164, rel=1e-12)
    assert tbm.bn_mean_jacobian("swish", 8, eps=0.1) == pytest.approx(0.9232697467068647, rel=1e-12)
    assert tbm.bn_mean_jacobian("tanh", 4, eps=0.1) == pytest.approx(0.9450356482434668, rel=1e-12)
    assert abs(tbm.bn_mean_jacobian("x*erf(x)", 4, eps=0.1)) < 1e-14      # an even φ: α = 0, judged against its scale
