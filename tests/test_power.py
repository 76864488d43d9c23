"""Verdict power: a quantity made 5% wrong inside the package turns the verdicts that use it, and the exit
statuses never lie (issue 9). Mutation tests go through the one perturbation point, verify.quantities."""
import math

import numpy as np
import pytest

import theory
from verify import quantities as Q
from verify.core import (ERROR, HOLDS, HYPOTHESES_NOT_MET, INCONCLUSIVE, VIOLATED, Claim, Context, HypothesisCheck,
                         HypothesisNotMet, Verdict)
from verify.registry import all_claims, resolve
from verify.runner import _run, exit_status, run_claim

# one fast claim per quantity (quick budget): each must hold, and stop holding with the quantity 5% off either way
REPRESENTATIVE = {
    "bn-mean-field:q*": "bn-mean-field:theorem5", "bn-mean-field:c*": "bn-mean-field:theorem5",
    "bn-mean-field:lambda_L": "bn-mean-field:theorem1", "bn-mean-field:lambda_M": "bn-mean-field:theorem1",
    "bn-mean-field:lambda_max": "bn-mean-field:theorem8", "isometry:beta": "isometry:theorem-a2",
    "covariance-sde:nu": "covariance-sde:theorem3-3", "covariance-sde:mu_relu": "covariance-sde:eq2-10",
    "covariance-sde:criterion": "covariance-sde:example4-1", "isometry:dual": "isometry:lemma-a6",
    "covariance-sde:sigma2_relu": "covariance-sde:eq2-6",
}


def _statuses(claim_id: str, quantity: str, delta: float, budget: str = "quick"):
    claim = resolve(claim_id)
    ctx = Context(budget=budget, seed=0)
    memo: dict = {}
    base, consumed = _run(claim.check, claim, ctx, False, {}, memo)
    assert Q.canonical(quantity) in consumed, f"{claim_id} does not consume {quantity}"
    out = [base.status]
    for sign in (+1, -1):
        v, _ = _run(claim.check, claim, ctx, False, {quantity: sign * delta}, memo)
        out.append(v.status)
    return out


@pytest.mark.parametrize("quantity", sorted(REPRESENTATIVE))
def test_five_percent_error_turns_the_verdict(quantity):
    base, plus, minus = _statuses(REPRESENTATIVE[quantity], quantity, 0.05)
    assert base == HOLDS
    assert plus != HOLDS and minus != HOLDS, (plus, minus)


def test_headline_theorem1_catches_five_percent_in_gstar():
    for q in ("bn-finite-width:b*", "bn-finite-width:c*"):
        base, plus, minus = _statuses("bn-finite-width:theorem1", q, 0.05)
        assert (base, plus, minus) == (HOLDS, VIOLATED, VIOLATED), q


def test_every_paper_quantity_is_declared_namespaced_and_used():
    used = {q for c in all_claims() for q in c.depends_on}
    for q in ("bn-finite-width:b*", "bn-finite-width:c*", "bn-mean-field:q*", "bn-mean-field:c*",
              "bn-mean-field:lambda_L", "bn-mean-field:lambda_M", "bn-mean-field:lambda_max", "isometry:beta",
              "covariance-sde:nu", "covariance-sde:mu_relu", "covariance-sde:criterion"):
        assert q in Q.QUANTITIES and q in used, q
    assert all(":" in q for q in Q.QUANTITIES)          # no quantity outside a paper
    assert Q.canonical("bn-mean-field:b*") == "bn-mean-field:q*"     # the alias of bn-finite-width's name
    assert Q.canonical("beta") == "isometry:beta"                     # a bare name that one paper declares
    builtin = [q for q in Q.resolve("b*") if q.split(":")[0] in ("bn-finite-width", "bn-mean-field")]
    assert builtin == ["bn-finite-width:b*", "bn-mean-field:q*"]        # a bare name: every paper's
    assert Q.resolve("q*") == ("bn-mean-field:q*",) and Q.resolve("no-such") == ()


def test_declared_quantities_are_exactly_those_consumed():
    """A claim declares what its check consumes: nothing missing (an unperturbable dependency), nothing extra
    (a control that could never flag)."""
    for cid in ("bn-finite-width:theorem1", "bn-mean-field:theorem6", "isometry:table2", "covariance-sde:figure1",
                "covariance-sde:eq4-1"):
        claim = resolve(cid)
        v, consumed = _run(claim.check, claim, Context(budget="quick"), False, {}, {})
        assert consumed == {Q.canonical(q) for q in claim.depends_on}, cid


def test_perturbation_is_scoped_and_exact():
    from verify.papers.bn_finite_width._common import bsb1_gstar
    from verify.papers.bn_mean_field._common import bsb1_fixed_point
    fp = theory.bsb1_fixed_point("relu", 8)
    with Q.perturbed({"c*": 0.05, "bn-mean-field:q*": -0.02}) as state:
        p = bsb1_fixed_point("relu", 8)
        assert p.c == pytest.approx(fp.c * 1.05, rel=1e-15) and p.b == pytest.approx(fp.q * 0.98, rel=1e-15)
        assert p.eigenvalue_bulk == pytest.approx(fp.q * 0.98 * (1 - fp.c * 1.05), rel=1e-14)
        assert state.consumed == {"bn-mean-field:q*", "bn-mean-field:c*"}
        g = bsb1_gstar("relu", 8)               # the bare c* reaches bn-finite-width's c* too; its b* is untouched
        assert g.c == pytest.approx(fp.c * 1.05, rel=1e-15) and g.q == fp.q
    assert bsb1_fixed_point("relu", 8) is fp and bsb1_gstar("relu", 8) is fp  # outside the context: the core value
    with pytest.raises(ValueError):
        with Q.perturbed({"beta": -1.5}):
            pass


def test_memo_never_caches_a_value_that_consumed_a_quantity():
    from verify.papers.isometry._common import beta_value
    memo = {}
    with Q.perturbed({"beta": 0.1}, memo):
        a = Q.memo("k", lambda: beta_value("relu"))
    with Q.perturbed({}, memo):
        b = Q.memo("k", lambda: beta_value("relu"))
    assert a == pytest.approx(1.1 * b) and "k" not in memo


# The ±5% sweep over every declared quantity of every claim is the negative control itself (δ = 5% at every budget),
# asserted for each claim by tests/conftest.py::assert_controls in the per-paper verdict tests.


# ------------------------------------------------------------------ exit statuses that never lie

def _claim(check, **kw):
    return Claim("isometry", "test-only", "t", "s", check=check, **kw)


def test_numerical_trouble_is_inconclusive_never_hypotheses():
    def check(ctx):
        raise theory.QuadratureError("did not converge")
    v = run_claim(_claim(check), Context())
    assert v.status == INCONCLUSIVE and exit_status([v]) == 3


def test_a_check_names_its_verdict_with_ctx_claim_id_and_a_verdict_for_another_claim_is_a_crash():
    seen = []

    def check(ctx):
        seen.append(ctx.claim_id)
        return Verdict(ctx.claim_id, HOLDS, "fine")
    v = run_claim(_claim(check), Context(), with_control=False)
    assert seen == ["isometry:test-only"] and v.claim_id == "isometry:test-only" and v.status == HOLDS

    def copied(ctx):   # a check copied from another claim, still naming it
        return Verdict("isometry:theorem1", HOLDS, "fine")
    v = run_claim(_claim(copied), Context(), with_control=False)
    assert v.claim_id == "isometry:test-only" and v.status == ERROR and "'isometry:theorem1'" in v.summary
    assert exit_status([v]) == 4


def test_crash_is_its_own_status_exit_4():
    def check(ctx):
        return {}["missing"]
    v = run_claim(_claim(check), Context())
    assert v.status == ERROR and exit_status([v]) == 4
    assert exit_status([v, Verdict("x", VIOLATED, "")]) == 4


def test_only_declared_hypotheses_give_hypotheses_not_met():
    H = HypothesisCheck("n ≥ 4", "batch size")

    def declared(ctx):
        raise HypothesisNotMet("n ≥ 4", "n = 3")

    def undeclared(ctx):
        raise HypothesisNotMet("something else", "n = 3")

    def bare(ctx):
        return Verdict("isometry:test-only", HYPOTHESES_NOT_MET, "claims it without naming a check")
    assert run_claim(_claim(declared, hypothesis_checks=(H,)), Context()).status == HYPOTHESES_NOT_MET
    assert run_claim(_claim(undeclared, hypothesis_checks=(H,)), Context()).status == INCONCLUSIVE
    assert run_claim(_claim(bare, hypothesis_checks=(H,)), Context()).status == INCONCLUSIVE


def test_violated_needs_a_positive_control():
    def check(ctx):
        return Verdict("isometry:test-only", VIOLATED, "always violated")
    assert run_claim(_claim(check), Context()).status == INCONCLUSIVE  # no positive control: no power shown
    v = run_claim(_claim(check, positive_control=check), Context())
    assert v.status == INCONCLUSIVE  # a positive control that also says 'violated' proves nothing
    ok = run_claim(_claim(check, positive_control=lambda ctx: Verdict(ctx.claim_id, HOLDS, "")), Context())
    assert ok.status == VIOLATED


def test_quadrature_failure_exits_3_and_crash_in_report_exits_4(monkeypatch, capsys):
    from verify import cli
    from verify.commands import run as claims_run
    code = cli.main(["bn-mean-field:theorem4", "--param", "activation=sign(x)*abs(x)**0.01", "--param",
                     "batch_size=8", "--budget", "quick", "-q"])
    assert code == 3
    monkeypatch.setattr(claims_run, "render_text", lambda *a, **k: 1 / 0)
    code = cli.main(["bn-mean-field:theorem5", "--budget", "quick", "--no-control"])
    assert code == 4 and "crashed" in capsys.readouterr().err


def test_one_affine_activation_does_not_drop_the_others():
    v = run_claim(resolve("isometry:theorem4"), Context(budget="quick", params={"activations": "tanh,identity"}),
                  with_control=False)
    assert v.status == HOLDS and "identity" in v.summary and any(r.name.startswith("tanh") for r in v.evidence)


# ------------------------------------------------------------------ formula activations with jumps (item 7)

@pytest.mark.parametrize("formula,closed", [
    ("sign(x)", lambda r: 2 / np.pi * np.arcsin(r)),
    ("2*step(x)-1", lambda r: 2 / np.pi * np.arcsin(r)),
    ("step(x)", lambda r: 0.25 + np.arcsin(r) / (2 * np.pi)),
    ("abs(x)", lambda r: 2 / np.pi * (np.sqrt(1 - r * r) + r * np.arcsin(r))),
])
def test_jump_formulas_as_accurate_as_builtins(formula, closed):
    r = np.array([1.0, 1 - 1e-7, 1 - 1e-4, 0.9, 0.5, 0.0, -0.5, -1 + 1e-7, -1.0])
    act = theory.activation(formula)
    assert np.max(np.abs(theory.dual_quadrature(act, r) - closed(r))) < 1e-12
    assert np.max(np.abs(theory.numeric_dual(act).hat(r) - closed(r))) < 1e-12


def test_sign_layernorm_map_near_one():
    """1 − σ̄(ρ)/σ̄(1) at 1 − ρ₀ = 1e-7 (34% wrong before the boundary-layer cuts)."""
    rho = 1 - 1e-7
    got = 1 - float(theory.numeric_dual("sign(x)").normalised(np.array([rho]))[0])
    want = 1 - 2 / math.pi * math.asin(rho)
    assert abs(got / want - 1) < 1e-6


# ------------------------------------------------------------------ coverage of printed formulas (item 6)

def test_coverage_tables_name_real_claims_and_cover_every_checked_claim():
    """Every loaded paper, built in or a plugin: its declared coverage rows name its checked claims."""
    from verify.registry import papers
    claims = {c.id: c for c in all_claims()}
    for paper, declared in papers().items():
        items = declared.coverage
        assert items, f"{paper} declares no coverage rows"
        named = {n for it in items for n in it.claims}
        for n in named:
            assert f"{paper}:{n}" in claims and claims[f"{paper}:{n}"].checked, (paper, n)
        for c in claims.values():
            if c.paper == paper and c.checked and c.name not in ("sde-schemes", "sde-step-size"):
                assert c.name in named, f"{c.id} checks no numbered item?"
        for it in items:
            assert it.claims or it.note, f"{paper} {it.item}: neither a claim nor a reason"


def test_list_shows_uncovered_items():
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "verify", "list", "--paper", "bn-finite-width"], capture_output=True,
                         text=True, check=True).stdout
    line = [x for x in out.splitlines() if x.startswith("bn-finite-width:[Lemma 10]")][0]
    assert line[41:50].strip() == "vacuous" and "cannot fail" in line
    assert [x for x in out.splitlines() if x.startswith("bn-finite-width:[Remark 3]")][0][41:50].strip() == "no claim"


def test_no_numbered_item_is_left_not_yet():
    """Issue 12's 'done when': every numbered item is checked, or is no claim (definition, notation, remark, proof
    step), or cannot be checked for a stated reason (vacuous, its content lost from the text, data/weights offline)."""
    from verify.coverage import Item
    from verify.registry import papers
    for paper, declared in papers().items():
        for it in declared.coverage:
            assert it.status != "not yet", (paper, it.item)
            if it.status in ("vacuous", "text lost", "offline"):
                assert len(it.note) > 30, (paper, it.item)
    assert {c.pending_kind for c in all_claims() if not c.checked} <= {"offline"}
    with pytest.raises(ValueError):
        Item("Fig 9", (), "x", "maybe")

