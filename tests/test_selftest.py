"""The verdict machinery checks itself on known answers (verify.selftest): every canary as known on the real code, and
a weakened decision rule — the kind no verdict that already holds reveals — is caught and makes `verify all` exit 4."""
from __future__ import annotations

import numpy as np
import pytest

from verify import runner, selftest, stats
from verify.cli import main
from verify.core import HOLDS, HYPOTHESES_NOT_MET, INCONCLUSIVE, VIOLATED


def test_every_canary_is_as_known():
    canaries = selftest.run()
    assert [c.name for c in canaries if not c.passed] == []
    assert len(canaries) == 14


@pytest.mark.parametrize("weaken, caught", [
    # a perturbed run that still holds counted as "flagged": the blind canary would pass its control
    (lambda mp: mp.setattr(runner, "_FLAGGED", (VIOLATED, INCONCLUSIVE, HYPOTHESES_NOT_MET, HOLDS)),
     "true-unresolved"),
    # a control counted as flagged when only one sign is
    (lambda mp: mp.setattr(runner, "perturbation_control", _either_sign_control), "one-sided-bound"),
    # a violated claim reported violated without a positive control
    (lambda mp: mp.setattr(runner, "run_claim", _no_positive_control_needed), "false-without-positive-control"),
    # an interval 10% too wide (a standard error scaled twice, say)
    (lambda mp: mp.setattr(stats, "_st", _WideT()), "mean_ci of 1..10 at 95%"),
    # the delta-method error divided by the mean numerator instead of the mean denominator (equal when ȳ = 1):
    # the cosmic-ray operator mutants of verify/stats.py that survived the unit-denominator canary
    (lambda mp: mp.setattr(stats, "ratio_of_means", _ratio_wrong_mean), "ratio_of_means([2,3,9], [1,2,4])"),
    # the t-interval of a fitted rate with its ends swapped or its width dropped (zero width on exact data)
    (lambda mp: mp.setattr(stats, "fit_log_rate", _rate_without_width), "fit_log_rate with residuals"),
])
def test_a_weakened_decision_rule_is_caught(monkeypatch, weaken, caught):
    weaken(monkeypatch)
    bad = [c.name for c in selftest.run() if not c.passed]
    assert caught in bad


def test_verify_all_exits_4_when_the_self_test_fails(monkeypatch, capsys):
    monkeypatch.setattr(runner, "_FLAGGED", (VIOLATED, INCONCLUSIVE, HYPOTHESES_NOT_MET, HOLDS))
    assert main(["all", "--paper", "isometry", "--budget", "quick", "-q"]) == 4
    err = capsys.readouterr().err
    assert "self-test FAILED" in err and "true-unresolved" in err


_real_control = runner.perturbation_control
_real_run_claim = runner.run_claim


def _either_sign_control(claim, ctx, debug, memo):
    v = _real_control(claim, ctx, debug, memo)
    if any(("violated" in str(r.observed) or "inconclusive" in str(r.observed)) for r in v.evidence):
        v.status = VIOLATED     # flagged on one sign counts
    return v


def _no_positive_control_needed(claim, ctx, **kw):
    v = _real_run_claim(claim, ctx, **kw)
    if "no positive control" in v.summary:
        v.status = VIOLATED
    return v


class _WideT:
    """scipy.stats with Student's t quantiles 10% too large."""

    def __getattr__(self, name):
        import scipy.stats as st
        if name == "t":
            class T:
                @staticmethod
                def ppf(p, df):
                    return 1.1 * st.t.ppf(p, df)
            return T
        return getattr(st, name)


_true_ratio = stats.ratio_of_means
_true_rate = stats.fit_log_rate


def _ratio_wrong_mean(x, y):
    r, se, n = _true_ratio(x, y)
    return r, se * float(np.mean(y)) / float(np.mean(x)), n


def _rate_without_width(layers, values, confidence=0.95):
    r, _ = _true_rate(layers, values, confidence)
    return r, (r, r)
