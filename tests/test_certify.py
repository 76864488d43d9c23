"""Lemma A.7 certificates: rigorous where possible, and they reject a wrong constant."""
import pytest

import theory
from theory.certify import arb_callable, certify_lemma_a7


@pytest.mark.parametrize("name,rigorous", [("relu", True), ("sin", True), ("step", True), ("tanh", False),
                                           ("he3", True), ("identity", True)])
def test_certified(name, rigorous):
    b = theory.isometry_strength(name)
    c = certify_lemma_a7(name, b.exact if b.exact is not None else b.value)
    assert c.certified and c.counterexample is None and c.rigorous == rigorous
    assert c.max_ratio_bound <= c.inverse_beta + 1e-15


def test_relu_slack_value():
    c = certify_lemma_a7("relu", theory.isometry_strength("relu").exact)
    # sup R ≈ 0.7434 at ρ ≈ 0.49 while 1/β = 0.7896: about 6% slack
    assert 0.743 < c.max_ratio_sampled < 0.744 and c.slack > 1.05
    assert c.slack == c.inverse_beta / c.max_ratio_bound and c.slack < 1.07      # 0.7896/0.7452 = 1.0596


@pytest.mark.parametrize("name", ["x + (x**2 - 1)/sqrt(2)", "tanh"])
def test_wrong_constant_rejected(name):
    c = certify_lemma_a7(name, float(theory.isometry_strength(name)) * 1.01)
    assert not c.certified and c.counterexample is not None


def test_a_bound_touched_inside_the_interval_is_certified_but_not_strict():
    """σ = (√3/2)he₁ + (1/2)he₂ + (1/√17)he₄ (c² = 3/4, 1/4, 0, 1/17): its ratio N/D peaks at ρ = 1/2 with the
    value 5/7 exactly, so at β = 7/5 the polynomial βN − D ≤ 0 touches 0 at ρ = 1/2: certified, not strict (a root
    strictly inside); at 0.99β strict, at 1.01β refused with the counterexample ρ = 1/2."""
    import sympy as sp
    f = "sqrt(3)/2*x + (x**2-1)/(2*sqrt(2)) + (x**4 - 6*x**2 + 3)/sqrt(408)"
    c = certify_lemma_a7(f, sp.Rational(7, 5))
    assert c.certified and c.rigorous and not c.strict
    assert c.max_ratio_sampled == pytest.approx(5 / 7, abs=1e-15) and c.argmax_sampled == 0.5
    assert certify_lemma_a7(f, sp.Rational(7, 5) * sp.Rational(99, 100)).strict
    over = certify_lemma_a7(f, sp.Rational(7, 5) * sp.Rational(101, 100))
    assert not over.certified and over.counterexample == 0.5


def test_arb_callable_encloses():
    import sympy as sp
    from flint import arb
    r = sp.Symbol("rho", real=True)
    f = arb_callable(sp.sqrt(1 - r ** 2) + sp.acos(r) * r / sp.pi, r)
    v = f(arb("0.5"))
    exact = (3 ** 0.5) / 2 + (1 / 3) * 0.5
    assert abs(float(v.mid()) - exact) < 1e-15


def test_arb_callable_encloses_every_node_it_translates():
    """Each translated node (integers, rationals, π, e, floats, sums, products, square roots, integer and real powers
    and the ten functions) at ρ = 0.3 in a term that is no common factor, so a wrong constant cannot cancel in a
    ratio: at 160 bits the ball is narrower than 1e-40 and meets the 45-digit mpmath value."""
    import mpmath
    import sympy as sp
    from flint import arb, ctx
    r = sp.Symbol("rho", real=True)
    exprs = [r / 3 + sp.Rational(1, 2), 2 * r - 7, r + sp.pi, r * sp.E, r + sp.Float("0.125"), sp.sqrt(2 - r),
             (1 + r) ** 3, (1 + r) ** r, sp.exp(r) - sp.acos(r) + sp.asin(r), sp.sinh(r) * sp.cosh(r) + sp.sin(r),
             sp.cos(r) + sp.log(1 + r) - sp.atan(r)]
    prec = ctx.prec
    ctx.prec = 160
    try:
        with mpmath.workdps(50):
            for e in exprs:
                ball = arb_callable(e, r)(arb(3) / 10)
                ref = arb(mpmath.nstr(sp.lambdify(r, e, modules="mpmath")(mpmath.mpf(3) / 10), 45), "1e-43")
                assert float(ball.rad()) < 1e-40 and ball.overlaps(ref), (e, ball, ref)
    finally:
        ctx.prec = prec


from hypothesis import given, strategies as st  # noqa: E402
import numpy as np  # noqa: E402

_ACTS = ["relu", "tanh", "sin", "step", "gelu", "selu", "exp", "sigmoid", "he2", "x + (x**2 - 1)/sqrt(2)"]


@given(st.sampled_from(_ACTS), st.floats(-0.999999, 0.999999))
def test_property_lemma_a7_pointwise(name, r):
    """eq (38) at arbitrary ρ, including ρ < 0 and ρ within 1e-6 of ±1."""
    nd = theory.numeric_dual(name)
    beta = float(theory.isometry_strength(name))
    s = abs(float(nd.normalised(np.array([r]))[0]))
    lhs = s / (1 - s)
    rhs = abs(r) / (1 - abs(r)) / beta
    assert lhs <= rhs * (1 + 1e-9) + 1e-12


@given(st.lists(st.floats(0, 1), min_size=2, max_size=6).filter(lambda c: sum(c[1:]) > 1e-3),
       st.floats(0.0, 0.999))
def test_property_lemma_a7_random_hermite_mixtures(weights, r):
    """Random activations σ = Σ w_k He_k: σ̄(ρ) = Σ_{k≥1} w_k² ρ^k exactly, β = 2 − w_1²/Σ w_k²."""
    w2 = np.array(weights) ** 2
    num = float(np.polynomial.polynomial.polyval(r, np.concatenate([[0.0], w2[1:]])))
    var = float(np.sum(w2[1:]))
    beta = 2 - w2[1] / var
    s = num / var
    assert s / (1 - s) <= r / (1 - r) / beta * (1 + 1e-12) + 1e-15


def test_a_polynomial_whose_ratio_peaks_inside_the_interval_is_refused():
    """σ = He₁ + (4/7)He₂ + (1/16)He₅: R(ρ) = N/D peaks at ρ ≈ 0.215 (0.47751) above its values at 0, ½ and 1
    (0.47130, 0.46950, 0.45632), so with β = 2.1 (1/β = 0.47619) the lemma's inequality fails on a sub-interval
    strictly inside (0, 1) that no end point or midpoint of [0, 1] meets: only the real roots of βN − D inside
    [0, 1] show it. A certifier that kept the roots outside [0, 1] instead (a sampled mutant, seed 20261129) certified
    it."""
    import sympy as sp
    from theory import activation
    from theory.certify import _certify_polynomial
    act = activation("x + 4/7*(x**2 - 1) + (x**5 - 10*x**3 + 15*x)/16")
    cert = _certify_polynomial(act, sp.Rational(21, 10))
    assert cert.certified is False and 0.2 < cert.counterexample < 0.24
    assert abs(cert.max_ratio_sampled - 0.47751161) < 1e-7 and abs(cert.argmax_sampled - 0.2145) < 1e-9
    assert _certify_polynomial(act, sp.Rational(2)).certified is True         # 1/β = 0.5 > max R
