"""Known-answer canaries of the verdict machinery, run at the start of every ``verify all`` (and in CI).

A lenient decision rule cannot be seen in a verdict that already holds: a control that counts a run which still
holds as "flagged", a positive control that is never consulted, a confidence interval a factor too wide. These
canaries are statements whose verdicts are known by construction, decided by the same runner every claim goes
through (:func:`verify.runner.run_claim`), and statistics with tabulated values:

1. a true statement whose check resolves 5%: ``holds``, its ±5% control ``violated`` on both signs, resolution 5%;
2. a true statement whose check cannot resolve 5% (a 50% tolerance): ``inconclusive`` — the control was not flagged;
   and a one-sided bound, flagged by −5% only: ``inconclusive`` — a control must be flagged on both signs;
3. a false statement with a positive control: ``violated``, the positive control ``holds``;
4. a false statement without a positive control: ``inconclusive``;
5. hypotheses: a declared hypothesis check that fails gives ``hypotheses-not-met``, an undeclared one ``inconclusive``,
   a crash ``error``;
6. statistics: Student-t and normal intervals, the delta-method ratio, a fitted log-rate, against tabulated values.

The statement is E z² = 1 for z ~ N(0, 1), checked by Monte Carlo (10⁵ samples, seed 0, 4 standard errors, a 5%
error is 11 standard errors away). Any canary that does not come out as stated makes ``verify all`` exit 4
("self-test failed") before a single claim runs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

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
    >>> print(render([Canary("normal_ci(0, 1) at 95%", "± 1.96", "[-1.96, 1.96]", True)]))
    self-test: 1 of 1 canaries as known
    """

    name: str
    expected: str
    observed: str
    passed: bool


def _second_moment(ctx: Context, printed: float, tolerance_se: float, cid: str) -> Verdict:
    z = Q.memo(("selftest-z", _N), lambda: np.random.default_rng(0).standard_normal(_N))
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
    lo, hi = stats.normal_ci(0.0, 1.0, 0.95)
    out.append(Canary("normal_ci(0, 1) at 95%", "± 1.959963984540054", f"[{lo:.15g}, {hi:.15g}]",
                      abs(hi - 1.959963984540054) < 1e-12 and abs(lo + 1.959963984540054) < 1e-12))
    r, se, n = stats.ratio_of_means([1.0, 2.0, 3.0], [1.0, 1.0, 1.0])
    out.append(Canary("ratio_of_means([1,2,3], [1,1,1])", "R = 2, se = 1/√3", f"R = {r:.15g}, se = {se:.15g}",
                      abs(r - 2) < 1e-15 and abs(se - 1 / math.sqrt(3)) < 1e-15))
    # unequal denominators: R = (14/3)/(7/3) = 2, x − R·y = (0, −1, 1), se = sd/(√3 ȳ) = √3/7 (a rule that divides
    # by the wrong mean, or squares where it divides, passes the unit-denominator canary above but not this one)
    r, se, n = stats.ratio_of_means([2.0, 3.0, 9.0], [1.0, 2.0, 4.0])
    out.append(Canary("ratio_of_means([2,3,9], [1,2,4])", "R = 2, se = √3/7", f"R = {r:.15g}, se = {se:.15g}",
                      abs(r - 2) < 1e-15 and abs(se - math.sqrt(3) / 7) < 1e-15))
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


def run() -> list[Canary]:
    """Every canary, with what it must give and what it gave.

    Returns
    -------
    list of Canary
        The verdict canaries (1–5 of the module docstring), then the statistics canaries (6).

    Examples
    --------
    >>> from verify import selftest
    >>> canaries = selftest.run()
    >>> canaries[0].name, canaries[0].passed
    ('true-resolved', True)
    >>> print(selftest.render(canaries))
    self-test: 14 of 14 canaries as known
    """
    from .runner import run_claim
    out = []
    for claim, expected, details in _claims():
        v = run_claim(claim, Context(budget="quick", seed=0))
        ok = v.status == expected
        got = [f"{v.status}"]
        if "negative_control" in details:
            nc = v.negative_control.status if v.negative_control else "none"
            ok &= nc == details["negative_control"]
            got.append(f"negative control {nc}")
        if "positive_control" in details:
            pc = v.positive_control.status if v.positive_control else "none"
            ok &= pc == details["positive_control"]
            got.append(f"positive control {pc}")
        if "resolution" in details:
            ok &= v.resolution == details["resolution"]
            got.append(f"resolution {v.resolution}")
        want = ", ".join([expected] + [f"{k.replace('_', ' ')} {val}" for k, val in details.items()])
        out.append(Canary(claim.name, want, ", ".join(got), ok))
    return out + _statistics()


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
