"""The pennington2017 plugin: its claims at the quick budget (verdicts, key numbers, controls), its closed forms against
golden values, and its discovery through the entry point.

Run: ``OMP_NUM_THREADS=1 python -m pytest -q examples/resurrecting-sigmoid/tests -p no:cacheprovider``.
"""
from __future__ import annotations

import math
import os

import pytest

from verify import api

CLAIMS = ("jacobian-moments", "spectral-density", "isometry")
_VERDICTS: dict = {}


def verdict(name: str):
    """The claim's quick verdict with its controls, computed once per test session."""
    if name not in _VERDICTS:
        _VERDICTS[name] = api.run(f"pennington2017:{name}", budget="quick")
    return _VERDICTS[name]


def rows(v, text: str):
    out = [e for e in v.evidence if text in e.name]
    assert out, f"no evidence row of {v.claim_id} contains {text!r}"
    return out


def test_paper_is_discovered_with_its_coverage():
    from verify.registry import papers
    p = papers()["pennington2017"]
    assert set(CLAIMS) == set(p.claims)
    for item in p.coverage:
        assert set(item.claims) <= set(p.claims), item
        assert item.claims or item.note
    assert os.path.isfile(p.expectations)


def test_closed_forms_against_golden_values():
    """Criticality and μ₂/μ₁² written in the plugin, against values computed independently: hard tanh at q* = 0.3
    (p = erf(1/√0.6) = 0.93211084513817…, mpmath), erf at q* = 0.5 (σ_w² = π√3/4)."""
    from sigmoid_isometry_claims.spectrum import erf_critical, hard_tanh_critical, ratio_closed_form
    sw, sb, p = hard_tanh_critical(0.3)
    assert p == pytest.approx(0.93211084513817099, rel=1e-15) and sw == pytest.approx(1 / p, rel=1e-15)
    assert sb == pytest.approx(0.015720386258270935, rel=1e-9)
    sw_e, sb_e = erf_critical(0.5)
    assert sw_e == pytest.approx(math.pi * math.sqrt(3) / 4, rel=1e-15)
    assert sb_e == pytest.approx(0.5 - sw_e / 3, rel=1e-14)               # arcsin(½) = π/6
    assert ratio_closed_form("erf", 0.5) == pytest.approx(3 / math.sqrt(5), rel=1e-15)
    assert ratio_closed_form("hard tanh", 0.3) == pytest.approx(1 / p, rel=1e-15)


def test_jacobian_moments():
    v = verdict("jacobian-moments")
    assert v.status == "holds", v.summary
    exact = rows(v, "in closed form vs the engine's quadrature")
    assert len(exact) == 8 and all(r.observed < 1e-12 for r in exact)
    (ht,) = rows(v, "hard tanh, orthogonal: σ²_{JJᵀ} of finite networks")
    assert ht.theory == pytest.approx(8 * (1 / 0.93211084513817099 - 1), rel=1e-12)
    assert ht.bound < 0.05 * ht.theory                                   # this row alone resolves ±5%
    assert v.negative_control.status == "violated"
    assert v.resolution == {"pennington2017:chi": 0.05, "pennington2017:sigma2": 0.05}


def test_spectral_density():
    v = verdict("spectral-density")
    assert v.status == "holds", v.summary
    for r in rows(v, "vs the Fuss–Catalan closed form"):
        assert r.observed < 1e-11
    (edge,) = rows(v, "L = 8: upper edge")
    assert edge.numeric == pytest.approx(9 ** 9 / 8 ** 8, rel=1e-15)
    (top,) = rows(v, "hard tanh, orthogonal: mass at")
    assert top.theory == pytest.approx(1 - 8 * (1 - 0.93211084513817099), rel=1e-12) and top.observed < 1e-9
    for r in rows(v, "of finite networks (N → ∞"):
        assert r.passed
    assert v.negative_control.status == "violated"


def test_isometry():
    v = verdict("isometry")
    assert v.status == "holds", v.summary
    (relu,) = rows(v, "relu, orthogonal: σ²_{JJᵀ}/L ≥ 1")
    assert relu.numeric == pytest.approx(1.0, abs=1e-12)
    (erf,) = rows(v, "erf, orthogonal: σ²_{JJᵀ}/L decreases")
    assert erf.numeric == pytest.approx(1.04 / math.sqrt(1.08) - 1, rel=1e-9)   # q* = 0.01
    (net,) = rows(v, "hard tanh, orthogonal, q* = 0.1: σ²_{JJᵀ} of finite networks")
    assert net.numeric < 0.32
    assert v.negative_control.status == "violated"


def test_a_moment_stated_with_a_wide_error_fails_its_row():
    """The law's m₁ reported as 0 with an error the size of the true value (an atom's term lost into the error) agrees
    with the moment formula within the stated errors — the rows must fail on the width of the error itself; the
    engine's own law passes them."""
    from sigmoid_isometry_claims.spectrum import _law, critical_networks, law_moment_rows
    from theory import Estimate, jacobian_spectrum_moments
    dens = _law("ReLU, Gaussian")
    act, sw, sb, q = critical_networks()["relu"]
    mom = jacobian_spectrum_moments(act, sw, sb, 4, q1=q, weights="gaussian")
    assert [r.passed for r in law_moment_rows("ReLU, Gaussian", 4, dens, mom)] == [True, True]

    class Lost:
        """The same law whose moments lost their value into their error."""
        def __getattr__(self, name):
            return getattr(dens, name)

        def moment(self, k):
            m = dens.moment(k)
            return Estimate(0.0, m.value + m.error, m.method)
    got = law_moment_rows("ReLU, Gaussian", 4, Lost(), mom)
    assert [r.passed for r in got] == [False, False] and "NOT within" in got[0].note
