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
CLAIMS = ("edge-of-chaos", "depth-scales", "dropout", "backprop", "finite-width-tracking", "trainability")
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
    (o,) = rows(v, "(ordered)")
    assert abs(o.theory - math.log(0.8451664278)) < 1e-8
    assert v.negative_control.status == "violated"


def test_finite_width_tracking():
    v = verdict("finite-width-tracking")
    assert v.status == "holds", v.summary
    assert len(v.evidence) == 8 and all(r.passed for r in v.evidence)
    assert v.tables and len(v.tables[0][2]) == 24
    assert v.negative_control.status == "violated"
    assert set(v.resolution) == {"schoenholz2017:q-map", "schoenholz2017:c-map"}


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
