"""Known-answer canaries of the verdict machinery, run at the start of every ``verify all`` (and in CI).

A lenient decision rule cannot be seen in a verdict that already holds: a control that counts a run which still
holds as "flagged", a positive control that is never consulted, a confidence interval a factor too wide. These
canaries are statements whose verdicts are known by construction, decided by the same runner every claim goes
through (:func:`verify.runner.run_claim`), and statistics with tabulated values:

1. a true statement whose check resolves 5%: ``holds``, its ±5% control ``violated`` on both signs, resolution 5%;
2. a true statement whose check cannot resolve 5% (a 50% tolerance): ``inconclusive`` — the control was not flagged;
   and a one-sided bound, flagged by −5% only: ``inconclusive`` — a control must be flagged on both signs;
3. a false statement with a positive control: ``violated``, the positive control ``holds``; with a positive control
   that does not hold (it checks the same false statement): ``inconclusive``, the positive control ``violated``;
4. a false statement without a positive control: ``inconclusive``;
5. hypotheses: a declared hypothesis check that fails gives ``hypotheses-not-met``, an undeclared one ``inconclusive``,
   a crash ``error``;
6. controls that crash or are not flagged: a check that crashes only when its constant is perturbed gives
   ``inconclusive`` (a crash is not a detection), and a claim with declared quantities *and* a structural control
   is ``inconclusive`` when the structural control comes out ``inconclusive`` or ``holds``, ``holds`` when it is
   ``violated``;
7. the perturbation itself: a check at the resolution edge (8 standard errors: ±5% is 11 away and flagged, ±2.5% is
   5.6 away and would not be) ``holds`` with its control ``violated``, and the constants its three runs consumed are
   exactly 1, 1.05, 0.95; a printed constant obtained through :func:`verify.quantities.memo` is perturbed all the
   same (a memoised value that consumed a quantity is never served to another perturbation): ``holds``, control
   ``violated``;
8. a verdict none of whose rows is judged (all informational): ``inconclusive``, never ``holds``;
9. statistics: Student-t and normal intervals, the delta-method ratio (and its refusal of unpaired samples), a fitted
   log-rate, against tabulated values;
10. what a run reads and keeps (:mod:`verify.selftest_inputs`): the ``--param`` kinds at their limits and one past
    them, the activation-formula guards at their edges (a 301-digit literal, ``0**0``, ``exp(1000)``), the
    expectations file's refusals, the exit status of a crash reported from another process, the store's LRU, byte
    count and timing, and the text of an estimate; and what the simulators and quadratures promise beyond their
    values: the working sets of their cost models, their refusals
    of malformed arguments, the BN covariance classifier at a near-BSB2 matrix, the native torch functions and a
    three-piece ``Piecewise`` in torch, the cores a process pinned to one may use; and the simulators' guards at
    their limit and one past it, with the working sets they pass to;
11. the engine paths no built-in claim takes (:mod:`verify.selftest_engines`), each against an answer known by
    construction or an independent route: positive semi-definiteness at a scale of 1e-305, the bivariate rule's
    truncation radius, homogeneity degrees of activations positive at every probe, the secant fixed-point route,
    negative bases in the formula probe, the covariance SDE's own noise against the seed's increments, the Laplace
    route's flags, two-slope arc-cosine kernels, the general Jacobian-spectrum solver, the identity's length map,
    the bivariate rule with one variance 0, the correlation law's CDF in its last cells, the explosion criterion's
    jump and kink refusals, the covariance SDE's time grid, ReLU's BN output mean, the isometry MLP's exact method
    at width d = n, BN gradients of a given input and of its double, the Monte Carlo BN map's standard error, the MLP
    simulator's gradients through widening layers, an Estimate's relative error and the Hermite values at their
    smallest cases, the covariance map at σ_b² = 0, ReLU's polar moments at odd orders, a negative non-integer
    power in torch, the explosion criterion's recentring of exp, the BN trainers' sub-batch normalisation, the
    exact layer's pseudo-inverse, the kernel routes' confirmation, every batch of an epoch, the Dirac mass of a kink
    in E φ″φ, the BN layer's default axis, the growth probe's limits past its guard, a correlation trajectory
    moving away from 1, the isometry gap's refusal of a matrix that is not a Gram matrix, a BN ensemble member
    trained with sub-batches against its solo run, the BN backward map's radial rule at a large scale against Γ
    moments, the BN forward map's Monte Carlo standard error, Illinois at triple roots, Theorem 4's float θ-integrals
    at B = 4 against the sphere-marginal quadrature, the α-ReLU kernel with an odd rule, the parity degrees,
    the correlation SDE's time grid, an explicit BN mean-field method;
12. the engine functions no checked claim executes (:mod:`verify.selftest_reach`; the reach map of
    ``tests/test_engine_reach.py`` lists them): result fields and accessors, activation introspection, the BN and
    SDE results' estimates, the kernels' linear and quadrature routes and their mpmath reference, the Kolmogorov
    mixture, the device kernels, inputs with a given Gram, dataset files, the formula time limit, and the smooth
    Jacobian solver against Marchenko–Pastur;
13. what the engine states beside its values (:mod:`verify.selftest_contracts`): the kind, exponent and error of a
    decay law fitted to an exact power law, ξ_∇'s error against the growth rate's propagated by mpmath's derivative,
    the order of tanh's distortion bounds, the mean-reduced dual series against the bivariate rule, the quadrature
    route's kernel at a negative correlation, the PSD invariant's scale, the BN iteration's last-step change, Theorem
    3's positive-definiteness refusal at two scales, the bivariate rule off its default cuts against nested mpmath,
    an ensemble member's relative excess over its solo run on known records, and guards at their documented edges.

The statement is E z² = 1 for z ~ N(0, 1), checked by Monte Carlo (10⁵ samples, seed 0, 4 standard errors, a 5%
error is 11 standard errors away). Any canary that does not come out as stated makes ``verify all`` exit 4
("self-test failed") before a single claim runs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from theory.errors import QuadratureError

from . import quantities as Q
from .core import (ERROR, HOLDS, HYPOTHESES_NOT_MET, INCONCLUSIVE, VIOLATED, Claim, Context, Evidence, HypothesisCheck,
                   HypothesisNotMet, Verdict, status_from_rows)

_M2 = "selftest:m2"      # the canary's perturbable constant (never a registered quantity)
_N = 100_000


@dataclass(frozen=True)
class Canary:
    """One known-answer canary: what it must give and what it gave.

    Attributes
    ----------
    name : str
        The canary.
    expected : str
        What it must give.
    observed : str
        What it gave.
    passed : bool
        Whether the two agree.

    Examples
    --------
    >>> from verify.selftest import Canary, render
    >>> print(render([Canary("normal_ci(1, 2) at 95%", "1 ± 3.92", "[-2.92, 4.92]", True)]))
    self-test: 1 of 1 canaries as known
    """

    name: str
    expected: str
    observed: str
    passed: bool


def _second_moment(ctx: Context, printed: float, tolerance_se: float, cid: str, scale: float = 1.0) -> Verdict:
    """E (scale·z)² = printed to ``tolerance_se`` standard errors (scale ≠ 1: a structurally wrong sample)."""
    z = scale * Q.memo(("selftest-z", _N), lambda: np.random.default_rng(0).standard_normal(_N))
    m = float(np.mean(z * z))
    se = float(np.std(z * z, ddof=1) / math.sqrt(_N))
    stat = abs(m - printed) / se
    row = Evidence("E z² (Monte Carlo) vs the statement", theory=printed, numeric=m, observed=stat,
                   bound=tolerance_se, statistic="|z|", samples=_N, passed=stat <= tolerance_se)
    return Verdict(cid, status_from_rows([row]), f"|z| = {stat:.2f}", [row])


def _upper_bound(ctx: Context, printed: float, cid: str) -> Verdict:
    """E z² ≤ printed, allowing 4 standard errors above: true at 1, so a larger constant only loosens it."""
    z = Q.memo(("selftest-z", _N), lambda: np.random.default_rng(0).standard_normal(_N))
    m = float(np.mean(z * z))
    se = float(np.std(z * z, ddof=1) / math.sqrt(_N))
    row = Evidence("E z² (Monte Carlo) ≤ the statement's bound", theory=printed, numeric=m, bound=printed + 4 * se,
                   observed=m, samples=_N, passed=m <= printed + 4 * se)
    return Verdict(cid, status_from_rows([row]), f"E z² = {m:.4f} vs bound {printed + 4 * se:.4f}", [row])


def _reported_only(ctx: Context, cid: str) -> Verdict:
    """E z² reported in an informational row (``passed=None``): nothing is judged, so nothing can hold."""
    z = Q.memo(("selftest-z", _N), lambda: np.random.default_rng(0).standard_normal(_N))
    row = Evidence("E z² (Monte Carlo), reported only", numeric=float(np.mean(z * z)), samples=_N)
    return Verdict(cid, status_from_rows([row]), "E z² reported, not compared with anything", [row])


def _claims() -> list[tuple[Claim, str, dict]]:
    """(claim, expected status, expected details) — statements whose verdicts are known by construction."""
    sensitive = Claim("selftest", "true-resolved", "E z² = 1, resolved to 5%", "E z² = 1",
                      check=lambda c: _second_moment(c, Q.scaled(_M2, 1.0), 4.0, "selftest:true-resolved"),
                      depends_on=(_M2,))
    blind = Claim("selftest", "true-unresolved", "E z² = 1 within 50% (cannot resolve 5%)", "E z² = 1",
                  check=lambda c: _second_moment(c, Q.scaled(_M2, 1.0), 0.5 * 1.0 / (math.sqrt(2 / _N)),
                                                 "selftest:true-unresolved"),
                  depends_on=(_M2,))
    # a one-sided statement: 5% more in the constant loosens the bound (not flagged), 5% less breaks it (flagged) —
    # a control must be flagged on both signs, so this one has no demonstrated power
    one_sided = Claim("selftest", "one-sided-bound", "E z² ≤ 1", "E z² ≤ 1",
                      check=lambda c: _upper_bound(c, Q.scaled(_M2, 1.0), "selftest:one-sided-bound"),
                      depends_on=(_M2,))
    false_pc = Claim("selftest", "false-with-positive-control", "E z² = 1.2", "E z² = 1.2",
                     check=lambda c: _second_moment(c, 1.2, 4.0, "selftest:false-with-positive-control"),
                     positive_control=lambda c: _second_moment(c, 1.0, 4.0, "selftest:false-with-positive-control"),
                     positive_control_description="the same check of E z² = 1")
    false_bare = Claim("selftest", "false-without-positive-control", "E z² = 1.2", "E z² = 1.2",
                       check=lambda c: _second_moment(c, 1.2, 4.0, "selftest:false-without-positive-control"))
    hyp = HypothesisCheck("finite variance", "the canary's declared hypothesis")

    def declared(c):
        raise HypothesisNotMet("finite variance", "declared and not met (by construction)")

    def undeclared(c):
        raise HypothesisNotMet("not declared", "a hypothesis the claim does not declare")

    def crash(c):
        raise ZeroDivisionError("a bug, by construction")

    return [
        (sensitive, HOLDS, {"negative_control": VIOLATED, "resolution": {_M2: 0.05}}),
        (blind, INCONCLUSIVE, {"negative_control": HOLDS}),
        (one_sided, INCONCLUSIVE, {"negative_control": HOLDS}),
        (false_pc, VIOLATED, {"positive_control": HOLDS}),
        (false_bare, INCONCLUSIVE, {}),
        (Claim("selftest", "declared-hypothesis", "t", "s", check=declared, hypothesis_checks=(hyp,)),
         HYPOTHESES_NOT_MET, {}),
        (Claim("selftest", "undeclared-hypothesis", "t", "s", check=undeclared, hypothesis_checks=(hyp,)),
         INCONCLUSIVE, {}),
        (Claim("selftest", "crash", "t", "s", check=crash), ERROR, {}),
    ] + _control_claims()


def _control_claims() -> list[tuple[Claim, str, dict]]:
    """Canaries 3 (a positive control that fails), 6, 7 and 8 of the module docstring."""
    cid = "selftest:{}".format
    false_pc_fails = Claim("selftest", "positive-control-fails", "E z² = 1.2", "E z² = 1.2",
                           check=lambda c: _second_moment(c, 1.2, 4.0, cid("positive-control-fails")),
                           positive_control=lambda c: _second_moment(c, 1.2, 4.0, cid("positive-control-fails")),
                           positive_control_description="the same check of the same false E z² = 1.2")

    def crashes_when_perturbed(c):
        printed = Q.scaled(_M2, 1.0)
        if printed != 1.0:
            raise RuntimeError("the check crashes when its constant is perturbed (by construction)")
        return _second_moment(c, printed, 4.0, cid("crashing-control"))

    crashing = Claim("selftest", "crashing-control", "E z² = 1", "E z² = 1", check=crashes_when_perturbed,
                     depends_on=(_M2,))

    def structural(name, control, what):
        return Claim("selftest", name, "E z² = 1", "E z² = 1", depends_on=(_M2,),
                     check=lambda c: _second_moment(c, Q.scaled(_M2, 1.0), 4.0, cid(name)),
                     negative_control=control, control_description=what)

    def undecided(c):
        raise QuadratureError("the structural control cannot decide (by construction)")

    seen: list = []   # the constant each run of the resolution-edge check consumed (main, +δ, −δ)

    def at_edge(c):
        seen.append(Q.scaled(_M2, 1.0))
        return _second_moment(c, seen[-1], 8.0, cid("resolution-edge"))

    memoised = Claim("selftest", "memoised-constant", "E z² = 1", "E z² = 1", depends_on=(_M2,),
                     check=lambda c: _second_moment(c, Q.memo(("selftest-printed",), lambda: Q.scaled(_M2, 1.0)),
                                                    4.0, cid("memoised-constant")))
    return [
        (false_pc_fails, INCONCLUSIVE, {"positive_control": VIOLATED}),
        (crashing, INCONCLUSIVE, {"negative_control": HOLDS}),
        (structural("structural-inconclusive", undecided, "a structural control that cannot decide"),
         INCONCLUSIVE, {"negative_control": HOLDS}),
        (structural("structural-holds", lambda c: _second_moment(c, 1.0, 4.0, cid("structural-holds")),
                    "a structural control that holds (the unperturbed check again)"),
         INCONCLUSIVE, {"negative_control": HOLDS}),
        (structural("structural-violated",
                    lambda c: _second_moment(c, 1.0, 4.0, cid("structural-violated"), scale=1.1),
                    "the same check on 1.1·z, whose E (1.1z)² = 1.21"),
         HOLDS, {"negative_control": VIOLATED, "resolution": {_M2: 0.05}}),
        # 1·(1 + 0.05) and 1·(1 − 0.05): what a ±5% control must feed the check (a δ/2 would give 1.025, 0.975,
        # which at 8 standard errors are not flagged: 5.5 and 5.6 standard errors)
        (Claim("selftest", "resolution-edge", "E z² = 1, resolved to 5% and no finer than 3.6%", "E z² = 1",
               check=at_edge, depends_on=(_M2,)),
         HOLDS, {"negative_control": VIOLATED, "consumed_values": (seen, (1.0, 1.05, 0.95))}),
        (memoised, HOLDS, {"negative_control": VIOLATED}),
        (Claim("selftest", "nothing-judged", "E z² is reported", "E z² is reported",
               check=lambda c: _reported_only(c, cid("nothing-judged"))), INCONCLUSIVE, {}),
    ]


def _statistics() -> list[Canary]:
    """The intervals the claims decide with, against tabulated values (not recomputed by the same library call)."""
    from . import stats
    out = []
    t975_9 = 2.2621571627982055          # Student t, 97.5% quantile, 9 degrees of freedom (mpmath, 30 digits)
    m, (lo, hi), n = stats.mean_ci(np.arange(1.0, 11.0), 0.95)
    half = t975_9 * math.sqrt(55.0 / 6.0) / math.sqrt(10.0)
    out.append(Canary("mean_ci of 1..10 at 95%", f"5.5 ± {half:.12g}", f"{m:.12g} [{lo:.12g}, {hi:.12g}]",
                      n == 10 and abs(m - 5.5) < 1e-14 and abs(hi - 5.5 - half) < 1e-12 and abs(5.5 - lo - half) < 1e-12))
    # mean ≠ 0 and se ≠ 1: at (0, 1) a rule with z**se or z/se for z·se, or without the mean, gives the same interval
    lo, hi = stats.normal_ci(1.0, 2.0, 0.95)
    out.append(Canary("normal_ci(1, 2) at 95%", "1 ± 2 × 1.959963984540054", f"[{lo:.15g}, {hi:.15g}]",
                      abs(hi - 1 - 2 * 1.959963984540054) < 1e-12 and abs(1 - lo - 2 * 1.959963984540054) < 1e-12))
    r, se, n = stats.ratio_of_means([1.0, 2.0, 3.0], [1.0, 1.0, 1.0])
    out.append(Canary("ratio_of_means([1,2,3], [1,1,1])", "R = 2, se = 1/√3", f"R = {r:.15g}, se = {se:.15g}",
                      abs(r - 2) < 1e-15 and abs(se - 1 / math.sqrt(3)) < 1e-15))
    # unequal denominators: R = (14/3)/(7/3) = 2, x − R·y = (0, −1, 1), se = sd/(√3 ȳ) = √3/7 (a rule that divides
    # by the wrong mean, or squares where it divides, passes the unit-denominator canary above but not this one)
    r, se, n = stats.ratio_of_means([2.0, 3.0, 9.0], [1.0, 2.0, 4.0])
    out.append(Canary("ratio_of_means([2,3,9], [1,2,4])", "R = 2, se = √3/7", f"R = {r:.15g}, se = {se:.15g}",
                      abs(r - 2) < 1e-15 and abs(se - math.sqrt(3) / 7) < 1e-15))
    # unpaired samples are refused: a length-1 denominator would broadcast silently (R = 1, a made-up error)
    try:
        got = "R = {:.15g}, se = {:.15g}".format(*stats.ratio_of_means([1.0, 2.0, 3.0], [2.0])[:2])
    except ValueError as exc:
        got = f"ValueError: {exc}"
    out.append(Canary("ratio_of_means([1,2,3], [2])", "ValueError (unpaired)", got, got.startswith("ValueError")))
    layers = np.arange(10.0)
    rate, (a, b) = stats.fit_log_rate(layers, np.exp(1.0 - 0.3 * layers))
    out.append(Canary("fit_log_rate of e^(1 − 0.3ℓ)", "0.3, zero width", f"{rate:.15g} [{a:.3g}, {b:.3g}]",
                      abs(rate - 0.3) < 1e-12 and 0 <= b - a < 1e-10))
    # with residuals (0, .1, −.1, .1, 0) on ℓ = 0..4: slope exactly −0.3, s² = 0.028/3, S_xx = 10, t(97.5%, 3 dof)
    # = 3.18244630528370952 (mpmath): the interval is 0.3 ± 0.0972253405939676
    rate, (a, b) = stats.fit_log_rate(np.arange(5.0), np.exp(1.0 - 0.3 * np.arange(5.0)
                                                            + np.array([0.0, 0.1, -0.1, 0.1, 0.0])))
    half = 0.0972253405939676
    out.append(Canary("fit_log_rate with residuals", f"0.3 ± {half}", f"{rate:.15g} [{a:.15g}, {b:.15g}]",
                      abs(rate - 0.3) < 1e-12 and abs(b - 0.3 - half) < 1e-12 and abs(0.3 - a - half) < 1e-12))
    return out


#: the self-test in four parts, in :func:`run`'s order; ``verify all --jobs N`` runs them on its
#: worker processes at once (:func:`run_part`), and they import there what the claims will use
PARTS = ("verdicts", "engines", "reach", "contracts")
#: each part's seconds in a fresh process with torch, theory and numerics imported, on one core of the 2-core CI
#: machine class (``verify all --jobs N`` starts the costliest first)
PART_SECONDS = {"verdicts": 2.6, "engines": 10.3, "reach": 6.6, "contracts": 3.9}


def run_part(part: str) -> list[Canary]:
    """The canaries of one of :data:`PARTS`: ``"verdicts"`` (1–10 of the module docstring), ``"engines"`` (11),
    ``"reach"`` (12) or ``"contracts"`` (13).

    Parameters
    ----------
    part : str
        One of :data:`PARTS`.

    Returns
    -------
    list of Canary
        That part's canaries, in :func:`run`'s order.

    Examples
    --------
    >>> from verify import selftest
    >>> [c.passed for c in selftest.run_part("verdicts")][:3]
    [True, True, True]
    """
    if part == "verdicts":
        from .runner import run_claim
        from .selftest_inputs import canaries
        out = [_judge(claim, run_claim(claim, Context(budget="quick", seed=0)), expected, details)
               for claim, expected, details in _claims()]
        return out + _statistics() + canaries(Canary)
    if part == "engines":
        from .selftest_engines import engine_canaries
        return engine_canaries(Canary)
    if part == "reach":
        from .selftest_reach import reach_canaries
        return reach_canaries(Canary)
    if part == "contracts":
        from .selftest_contracts import contract_canaries
        return contract_canaries(Canary)
    raise ValueError(f"no self-test part {part!r}; the parts are {', '.join(PARTS)}")


def run() -> list[Canary]:
    """Every canary, with what it must give and what it gave.

    Returns
    -------
    list of Canary
        The verdict canaries (1–8 of the module docstring), the statistics canaries (9), the input canaries (10),
        then the engine-path (11), reach (12) and contract (13) canaries: :func:`run_part` of each of
        :data:`PARTS` in turn.

    Examples
    --------
    >>> from verify import selftest
    >>> canaries = selftest.run()
    >>> canaries[0].name, canaries[0].passed
    ('true-resolved', True)
    >>> print(selftest.render(canaries))
    self-test: 191 of 191 canaries as known
    """
    return [c for part in PARTS for c in run_part(part)]


def _judge(claim: Claim, v: Verdict, expected: str, details: dict) -> Canary:
    """The canary of one claim's verdict against what it must give."""
    ok = v.status == expected
    got, want = [f"{v.status}"], [expected]
    for key, attr in (("negative_control", v.negative_control), ("positive_control", v.positive_control)):
        if key in details:
            st = attr.status if attr else "none"
            ok &= st == details[key]
            got.append(f"{key.replace('_', ' ')} {st}")
            want.append(f"{key.replace('_', ' ')} {details[key]}")
    if "resolution" in details:
        ok &= v.resolution == details["resolution"]
        got.append(f"resolution {v.resolution}")
        want.append(f"resolution {details['resolution']}")
    if "consumed_values" in details:
        seen, values = details["consumed_values"]
        ok &= len(seen) == len(values) and all(abs(a - b) <= 1e-15 for a, b in zip(seen, values))
        got.append(f"consumed {', '.join(f'{x!r}' for x in seen)}")
        want.append(f"consumed {', '.join(f'{x:g}' for x in values)}")
    return Canary(claim.name, ", ".join(want), ", ".join(got), bool(ok))


def failures() -> list[Canary]:
    """The canaries that did not come out as known (empty when the verdict machinery is sound).

    Returns
    -------
    list of Canary
        The failed canaries.

    Examples
    --------
    >>> from verify.selftest import failures
    >>> failures()
    []
    """
    return [c for c in run() if not c.passed]


def render(canaries: list[Canary]) -> str:
    """One line when every canary is as known, else one line per failed canary.

    Parameters
    ----------
    canaries : list of Canary
        The canaries of :func:`run`.

    Returns
    -------
    str
        The report.

    Examples
    --------
    >>> from verify.selftest import Canary, render
    >>> print(render([Canary("crash", "error", "holds", False)]))
    self-test FAILED: 1 of 1 canaries are not as known — the verdict machinery itself is wrong; no claim was run
      crash: must give error; gave holds
    """
    bad = [c for c in canaries if not c.passed]
    if not bad:
        return f"self-test: {len(canaries)} of {len(canaries)} canaries as known"
    return "\n".join([f"self-test FAILED: {len(bad)} of {len(canaries)} canaries are not as known — the verdict "
                      "machinery itself is wrong; no claim was run"]
                     + [f"  {c.name}: must give {c.expected}; gave {c.observed}" for c in bad])
