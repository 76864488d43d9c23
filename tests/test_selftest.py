"""The verdict machinery checks itself on known answers (verify.selftest): every canary as known on the real code, and
a weakened decision rule — the kind no verdict that already holds reveals — is caught and makes `verify all` exit 4."""
from __future__ import annotations

import numpy as np
import pytest

from verify import core, runner, selftest, stats
from verify import quantities as Q
from verify.cli import main
from verify.core import ERROR, HOLDS, HYPOTHESES_NOT_MET, INCONCLUSIVE, VIOLATED


def test_every_canary_is_as_known():
    canaries = selftest.run()
    assert [c.name for c in canaries if not c.passed] == []
    assert len(canaries) == 191  # 23 of the verdict machinery and statistics, 85 of the inputs (test_selftest_inputs),
    # 50 of the engine paths no claim takes (test_selftest_engines), 18 of the functions no claim executes
    # (test_selftest_reach), 15 of what the engine states beside its values (test_selftest_contracts)


def test_the_perturbed_runs_consume_exactly_one_plus_minus_delta():
    """The resolution-edge canary reports the constant its three runs consumed: 1, 1·(1 + 0.05), 1·(1 − 0.05)."""
    edge = next(c for c in selftest.run() if c.name == "resolution-edge")
    assert edge.observed == "holds, negative control violated, consumed 1.0, 1.05, 0.95"


# (weakening, the canary that must catch it, what that canary then gives)
WEAKENINGS = [
    # a perturbed run that still holds counted as "flagged": the blind canary would pass its control
    (lambda mp: mp.setattr(runner, "_FLAGGED", (VIOLATED, INCONCLUSIVE, HYPOTHESES_NOT_MET, HOLDS)),
     "true-unresolved", "holds, negative control violated"),
    # a control counted as flagged when only one sign is
    (lambda mp: mp.setattr(runner, "perturbation_control", _either_sign_control), "one-sided-bound",
     "holds, negative control violated"),
    # a violated claim reported violated without a positive control
    (lambda mp: mp.setattr(runner, "run_claim", _no_positive_control_needed), "false-without-positive-control",
     "violated"),
    # a perturbed run that crashes counted as "flagged" (the mutant ve-runner-error-flags)
    (lambda mp: mp.setattr(runner, "_FLAGGED", (VIOLATED, INCONCLUSIVE, HYPOTHESES_NOT_MET, ERROR)),
     "crashing-control", "holds, negative control violated"),
    # the positive control run but not consulted unless it crashes (ve-runner-positive-ignored)
    (lambda mp: mp.setattr(runner, "run_claim", _positive_control_not_consulted), "positive-control-fails",
     "violated, positive control violated"),
    # an inconclusive structural control counted as flagged (ve-runner-structural-lenient)
    (lambda mp: mp.setattr(runner, "_run", _inconclusive_structural_control_flags), "structural-inconclusive",
     "holds, negative control violated"),
    # the structural control not consulted at all
    (lambda mp: mp.setattr(runner, "_run", _structural_control_ignored), "structural-holds",
     "holds, negative control violated"),
    # a verdict with no judged row holds (ve-core-nothing-judged)
    (lambda mp: (mp.setattr(core, "status_from_rows", _nothing_judged_holds),
                 mp.setattr(selftest, "status_from_rows", _nothing_judged_holds)), "nothing-judged", "holds"),
    # every perturbation applied as δ/2 (ve-quantities-half-delta): the controls test half the promised resolution
    (lambda mp: mp.setattr(Q, "scaled", _half_delta), "resolution-edge",
     "inconclusive, negative control holds, consumed 1.0, 1.025, 0.975"),
    # memo() caches a value that consumed a perturbable quantity (ve-quantities-memo-unguarded)
    (lambda mp: mp.setattr(Q, "memo", _unguarded_memo), "memoised-constant", "inconclusive, negative control holds"),
    # an interval 10% too wide (a standard error scaled twice, say)
    (lambda mp: mp.setattr(stats, "_st", _WideT()), "mean_ci of 1..10 at 95%", None),
    # the delta-method error divided by the mean numerator instead of the mean denominator (equal when ȳ = 1):
    # the cosmic-ray operator mutants of verify/stats.py that survived the unit-denominator canary
    (lambda mp: mp.setattr(stats, "ratio_of_means", _ratio_wrong_mean), "ratio_of_means([2,3,9], [1,2,4])", None),
    # unpaired samples not refused (the cosmic-ray mutant `x.shape != y.shape` → `is`): [2] broadcasts, R = 1,
    # se = sd(−1, 0, 1)/(√3·2) = 1/(2√3)
    (lambda mp: mp.setattr(stats, "ratio_of_means", _ratio_unpaired), "ratio_of_means([1,2,3], [2])",
     "R = 1, se = 0.288675134594813"),
    # the t-interval of a fitted rate with its ends swapped or its width dropped (zero width on exact data)
    (lambda mp: mp.setattr(stats, "fit_log_rate", _rate_without_width), "fit_log_rate with residuals",
     "0.3 [0.3, 0.3]"),
    # the t-interval of a fitted rate twice as wide (ve-fitrate-wide): 0.3 ± 2 × 0.0972253405939676
    (lambda mp: mp.setattr(stats, "fit_log_rate", _rate_twice_as_wide), "fit_log_rate with residuals",
     "0.3 [0.105549318812065, 0.494450681187935]"),
    # the normal interval's lower end at mean − z^se (the sampled cosmic-ray mutant Mul → Pow; equal to mean − z·se
    # at se = 1, which the canary at (0, 1) used): 1 − 1.96² and 1 + 2 × 1.96
    (lambda mp: mp.setattr(stats, "normal_ci", _normal_ci_power), "normal_ci(1, 2) at 95%",
     "[-2.84145882069413, 4.91992796908011]"),
]
_IDS = [f"{i}-{w[1]}" for i, w in enumerate(WEAKENINGS)]


@pytest.mark.parametrize("weaken, caught, observed", WEAKENINGS, ids=_IDS)
def test_a_weakened_decision_rule_is_caught(monkeypatch, weaken, caught, observed):
    weaken(monkeypatch)
    bad = {c.name: c.observed for c in selftest.run() if not c.passed}
    assert caught in bad
    if observed is not None:
        assert bad[caught] == observed


@pytest.mark.parametrize("weaken, caught, observed", WEAKENINGS, ids=_IDS)
def test_verify_all_exits_4_when_the_self_test_fails(monkeypatch, capsys, weaken, caught, observed):
    weaken(monkeypatch)
    assert main(["all", "--paper", "isometry", "--budget", "quick", "-q"]) == 4
    err = capsys.readouterr().err
    assert "self-test FAILED" in err and f"  {caught}: must give" in err


_WORKER_WEAKENING = """
import sys
if "--multiprocessing-fork" in sys.orig_argv:   # the --jobs workers only, not the run's own process
    from verify import stats
    _real = stats.ratio_of_means
    def _wrong_mean(x, y):
        r, se, n = _real(x, y)
        return r, se * sum(y) / sum(x), n
    stats.ratio_of_means = _wrong_mean
"""


def test_verify_all_jobs_2_runs_the_self_test_on_its_workers_and_exits_4_when_it_fails(tmp_path):
    """Under --jobs 2 the canaries run in the worker processes: a decision rule weakened only there (a
    ``sitecustomize`` that acts in the spawned workers alone) is caught, the run exits 4 before any claim, and the parts come
    back in the serial order (the same canaries, the same render as :func:`selftest.run`)."""
    import os
    import subprocess
    import sys
    (tmp_path / "sitecustomize.py").write_text(_WORKER_WEAKENING)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "DEEPINIT_CACHE": str(tmp_path / "cache")}
    r = subprocess.run([sys.executable, "-m", "verify", "all", "--paper", "isometry", "--budget", "quick", "--jobs",
                        "2", "-q"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 4, r.stderr
    assert r.stderr.startswith("self-test FAILED: ") and "of 191 canaries are not as known" in r.stderr
    assert "  ratio_of_means([2,3,9], [1,2,4]): must give" in r.stderr
    assert "running" not in r.stderr and "Traceback" not in r.stderr


def test_the_self_test_parts_are_the_whole_self_test_in_order():
    whole = selftest.run()
    parts = [c for part in selftest.PARTS for c in selftest.run_part(part)]
    assert [(c.name, c.passed) for c in parts] == [(c.name, c.passed) for c in whole]
    assert len(whole) == 191 and all(c.passed for c in whole)
    with pytest.raises(ValueError, match="no self-test part 'claims'"):
        selftest.run_part("claims")


_real_control = runner.perturbation_control
_real_run_claim = runner.run_claim
_real_run = runner._run


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


def _positive_control_not_consulted(claim, ctx, **kw):
    v = _real_run_claim(claim, ctx, **kw)
    if v.positive_control is not None and v.positive_control.status != ERROR:
        v.status = VIOLATED     # the positive control was run, its verdict not looked at
    return v


def _inconclusive_structural_control_flags(fn, claim, ctx, debug, perturbation, memo):
    v, consumed = _real_run(fn, claim, ctx, debug, perturbation, memo)
    if fn is claim.negative_control and claim.depends_on and v.status == INCONCLUSIVE:
        v.status = VIOLATED     # "could not decide" counted as "flagged"
    return v, consumed


def _structural_control_ignored(fn, claim, ctx, debug, perturbation, memo):
    v, consumed = _real_run(fn, claim, ctx, debug, perturbation, memo)
    if fn is claim.negative_control and claim.depends_on:
        v.status = VIOLATED
    return v, consumed


def _nothing_judged_holds(rows):
    judged = [r.passed for r in rows if r.passed is not None]
    return HOLDS if all(judged) else VIOLATED


def _half_delta(name, value):
    d = Q.delta(name)
    return value if d == 0.0 else value * (1 + d / 2)


def _unguarded_memo(key, compute):
    state = Q._STATE.get()
    if key not in state.memo:
        state.memo[key] = compute()
    return state.memo[key]


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


def _normal_ci_power(mean, se, confidence=0.95):
    from conftest import source_mutant
    return source_mutant(_real_normal_ci, "mean - z * se,", "mean - z ** se,")(mean, se, confidence)


_real_normal_ci = stats.normal_ci


def _rate_twice_as_wide(layers, values, confidence=0.95):
    r, (a, b) = _true_rate(layers, values, confidence)
    return r, (r - 2 * (r - a), r + 2 * (b - r))


def _ratio_unpaired(x, y):
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    r = float(np.mean(x) / np.mean(y))
    return r, float(np.std(x - r * y, ddof=1) / (np.sqrt(x.size) * abs(np.mean(y)))), x.size
