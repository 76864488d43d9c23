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


@pytest.mark.parametrize("name", ["x + (x**2 - 1)/sqrt(2)", "tanh"])
def test_wrong_constant_rejected(name):
    c = certify_lemma_a7(name, float(theory.isometry_strength(name)) * 1.01)
    assert not c.certified and c.counterexample is not None


def test_arb_callable_encloses():
    import sympy as sp
    from flint import arb
    r = sp.Symbol("rho", real=True)
    f = arb_callable(sp.sqrt(1 - r ** 2) + sp.acos(r) * r / sp.pi, r)
    v = f(arb("0.5"))
    exact = (3 ** 0.5) / 2 + (1 / 3) * 0.5
    assert abs(float(v.mid()) - exact) < 1e-15
