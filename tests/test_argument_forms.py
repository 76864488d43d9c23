"""Rare argument forms of the decision code's helpers: every parameter kind at both sides of each limit, the store
with keyword, positional and default arguments and each of its bounds, expectation files with per-budget statuses and
layering, the exit status for each observed status, and the intervals at known quantiles.

The claims call these with a few argument forms only, so a bug in another form (a limit off by one, a default that
keys the store differently, a budget override read for the wrong budget) changes no verdict of the quick run; these
tests are what notices it. Each assertion is a value, not a type.
"""
from __future__ import annotations

import math
import time
import types

import numpy as np
import pytest
import sympy as sp
import torch

from verify import expectations as E
from verify import params as P
from verify import stats as S
from verify.core import ERROR, HOLDS, INCONCLUSIVE, Parameter, VIOLATED
from verify.registry import UsageError
from verify.store import Store, nbytes, shared


# ------------------------------------------------------------------------------------------ parameter kinds
def test_seed_at_both_ends_of_its_range():
    assert P.seed("0") == 0 and P.seed(" 4294967295 ") == P.SEED_MAX == 2 ** 32 - 1 and P.seed(7) == 7
    for bad in ("-1", "4294967296", "1.5", "seven"):
        with pytest.raises(ValueError):
            P.seed(bad)


def test_activation_lists_up_to_32_and_commas_inside_formulas():
    assert P.activation_names("max(x,0),tanh") == ("max(x,0)", "tanh")
    assert P.activation_names(",".join(["relu"] * 32)) == ("relu",) * 32
    with pytest.raises(ValueError, match="at most 32 activations per run"):
        P.activation_names(",".join(["relu"] * 33))
    with pytest.raises(ValueError, match="at least one"):
        P.activation_names(" , ")


def test_batch_size_limits_and_the_default_zero():
    kind = P.batch_size(4, 256)
    assert kind("4") == 4 and kind("256") == 256 and kind(" +8 ") == 8
    for bad in ("3", "257", "0", "-4", "4.0"):
        with pytest.raises(ValueError):
            kind(bad)
    zero = P.batch_size(4, 256, allow_default_zero=True)
    assert zero("0") == 0 and zero("8") == 8 and zero("256") == 256
    with pytest.raises(ValueError, match=r"must be in \[4, 256\]"):
        zero("2")


def test_width_lists_limits_and_their_memory_message():
    assert P.width_list(" auto ") == "auto"
    assert P.width_list(" 2, 100000 ,") == (2, 100_000)
    assert P.width_list(",".join(["8"] * 16)) == (8,) * 16
    with pytest.raises(ValueError, match="1 to 16"):
        P.width_list(",".join(["8"] * 17))
    with pytest.raises(ValueError, match="at least 2"):
        P.width_list("64,1")
    # seeds × d × n float64 per layer: 8 · 100001 · 10 · 30 bytes = 0.24 GB
    with pytest.raises(ValueError, match=r"\(0\.24 GB at d = 100001, n = 10, 30 seeds\)"):
        P.width_list("100001")


def test_choices_and_learning_rates():
    kind = P.choice("sgd", "adam")
    assert kind(" adam ") == "adam"
    with pytest.raises(ValueError, match="is not one of sgd, adam"):
        kind("rmsprop")
    assert P.learning_rate("0") == 0.0 and P.learning_rate("10") == 10.0 and P.learning_rate("1e-3") == 1e-3
    for bad in ("10.5", "-0.1", "nan", "inf", "fast"):
        with pytest.raises(ValueError):
            P.learning_rate(bad)


def test_bind_converts_strings_passes_values_skips_unknown_names_and_checks_choices():
    claim = types.SimpleNamespace(id="paper:claim", parameters=[
        Parameter("widths", P.width_list, "auto", "widths"),
        Parameter("optimizer", str, "sgd", "the optimiser", choices=("sgd", "adam")),
    ])
    assert P.bind(claim, {"widths": "8,16", "optimizer": "adam", "other": "1"}) == {"widths": (8, 16),
                                                                                   "optimizer": "adam"}
    assert P.bind(claim, {"widths": (4, 4)}) == {"widths": (4, 4)}          # a value, not a string: kept as given
    with pytest.raises(UsageError, match="--param optimizer must be one of sgd, adam"):
        P.bind(claim, {"optimizer": "rmsprop"})
    with pytest.raises(UsageError, match=r"--param widths=.* for paper:claim"):
        P.bind(claim, {"widths": "1"})


def test_formula_integers_up_to_exactly_1e300_and_no_further():
    """An integer literal of 301 digits is 1e300 at the least: 10³⁰⁰ written out is accepted, 10³⁰¹ refused in one
    line; the literal's digits count, not its underscores."""
    from theory import activation
    from theory.errors import ActivationError
    assert activation("1" + "0" * 300 + "*x").expr == sp.Integer(10) ** 300 * sp.Symbol("x", real=True)
    assert activation("1_" + "0" * 300 + "*x").expr == activation("1" + "0" * 300 + "*x").expr
    with pytest.raises(ActivationError, match="larger than 1e300"):
        activation("1" + "0" * 301 + "*x")


def test_a_function_of_a_number_beyond_1e300_is_refused_in_one_line():
    """cosh(700) ≈ 5e303 and exp(800) ≈ 1e347 as constants of a formula: refused with the magnitude message (not
    accepted, not a TypeError); exp(690) ≈ 1e299 is accepted."""
    from theory import activation
    from theory.errors import ActivationError
    for f in ("cosh(700)*x", "exp(800)*x", "x + exp(800)"):
        with pytest.raises(ActivationError, match="larger than 1e300"):
            activation(f)
    assert activation("exp(690)*x").expr == sp.exp(690) * sp.Symbol("x", real=True)


def test_zero_to_a_power_in_a_formula():
    """0 raised to a positive power is 0 (x + 0**2 is x); to the power 0 or a negative one it is refused in one line."""
    from theory import activation
    from theory.errors import ActivationError
    assert activation("x + 0**2").expr == activation("x").expr
    assert activation("x + 0**0.5").expr == activation("x").expr
    for f in ("x + 0**0", "x + 0**(-1)"):
        with pytest.raises(ActivationError, match="0 raised to a non-positive power"):
            activation(f)


def test_the_bn_chain_memory_estimate_and_the_whitening_matrix_check(monkeypatch):
    """simulate_bn_chain's working set as its cost model states it — 8 bytes × 4 seeds × (4·1000·10 + 1000²) for the
    dense method, 0.031 GiB — refused above DEEPINIT_MEMORY_GB with that number; bn_sphere_grams refuses a whitening
    matrix of the wrong shape (finite) and a non-finite one of the right shape, each in one line."""
    from numerics import bn_sphere_grams, simulate_bn_chain
    from theory.errors import DeepinitError
    monkeypatch.setenv("DEEPINIT_MEMORY_GB", "0.01")
    with pytest.raises(DeepinitError, match=r"needs about 0\.031 GiB, above the limit of 0\.01 GiB"):
        simulate_bn_chain("relu", 1000, 10, 2, 4, method="dense", device="cpu")
    monkeypatch.delenv("DEEPINIT_MEMORY_GB")
    with pytest.raises(DeepinitError, match="finite 4×4"):
        bn_sphere_grams("relu", 4, 16, 3, whiten=np.eye(3))
    with pytest.raises(DeepinitError, match="finite 4×4"):
        bn_sphere_grams("relu", 4, 16, 3, whiten=np.full((4, 4), np.nan))


def test_the_empirical_kernels_memory_estimate_counts_the_inputs_not_the_features(monkeypatch):
    """empirical_kernels keeps one gradient per input: 8 bytes × (L·N² + d·N) × (2 + n) — for 40 inputs of 2 features
    at N = 1000, L = 1 0.314 GiB, refused above DEEPINIT_MEMORY_GB = 0.1 with that number (with d for n: 0.030 GiB,
    let through)."""
    from numerics import empirical_kernels
    from theory.errors import DeepinitError
    monkeypatch.setenv("DEEPINIT_MEMORY_GB", "0.1")
    with pytest.raises(DeepinitError, match=r"gradients needs about 0\.314 GiB, above the limit of 0\.1 GiB"):
        empirical_kernels("relu", np.ones((40, 2)), width=1000, depth=1, sigma_w2=2.0, seeds=2)


def test_the_mlp_memory_estimate_counts_backward_buffers_only_with_backprop(monkeypatch):
    """simulate_mlp's working set as its cost model states it: 8 bytes × (S·N² + 4·S·N·n) per layer for the dense
    method, plus 8 bytes × L·4·S·N·n of backward buffers only when backprop is asked — at N = 200, n = 16 inputs,
    L = 50, S = 2 seeds 0.000787 GiB without backprop (let through under DEEPINIT_MEMORY_GB = 0.005) and 0.0103 GiB
    with it (refused with that number)."""
    from numerics import simulate_mlp
    from theory.errors import DeepinitError
    monkeypatch.setenv("DEEPINIT_MEMORY_GB", "0.005")
    X = np.eye(16, 8) + 0.5
    with pytest.raises(DeepinitError, match=r"simulate_mlp \(width 200, 16 inputs, depth 50, 2 seeds, dense\) needs "
                                            r"about 0\.0103 GiB, above the limit of 0\.005 GiB"):
        simulate_mlp("tanh", 1.5, 0.05, 200, 50, X, seeds=2, backprop=True, device="cpu")
    run = simulate_mlp("tanh", 1.5, 0.05, 200, 50, X, seeds=2, device="cpu")
    assert run.cov.shape == (2, 51, 16, 16) and run.config["backprop"] is False


def test_available_cores_follows_the_affinity_of_this_process():
    """available_cores() counts the cores this process may run on (os.sched_getaffinity of pid 0), not the
    machine's: a child pinned to one core sees 1 (os.cpu_count() would say more)."""
    import os
    import subprocess
    import sys
    if not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs sched_setaffinity and at least two cores")
    code = ("import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
            "from numerics.threads import available_cores; print(available_cores(), os.cpu_count())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__)))).stdout.split()
    assert out[0] == "1" and int(out[1]) >= 2, out


# ------------------------------------------------------------------------------------------ the store
def test_store_counts_its_seconds_and_evicts_least_recently_used_first():
    store = Store(max_entries=2)
    slow = lambda: time.sleep(0.02) or 1                                  # noqa: E731
    assert store.get(("f", 1), slow) == 1
    computed = store.seconds_computed["f"]
    assert 0.02 <= computed < 5, computed
    store.get(("f", 2), lambda: 2)
    store.get(("f", 1), lambda: 99)               # reused: now the most recent
    store.get(("f", 3), lambda: 3)                # evicts ("f", 2), the least recently used
    assert store.get(("f", 1), lambda: 99) == 1 and store.get(("f", 2), lambda: 22) == 22
    assert store.reused["f"] == 2 and store.computed["f"] == 4


def test_store_keeps_no_value_larger_than_its_byte_bound_and_clears_one_name_only():
    store = Store(max_entries=10, max_bytes=100)
    big = np.zeros(20)                            # 160 bytes
    assert store.get(("g", 0), lambda: big) is big
    assert len(store) == 0 and store.bytes == 0
    store.get(("a", 0), lambda: np.zeros(4))
    store.get(("b", 0), lambda: np.zeros(4))
    assert len(store) == 2 and store.bytes == 64
    store.clear("a")
    assert len(store) == 1 and store.bytes == 32
    assert store.get(("b", 0), lambda: "recomputed") is not None and store.reused["b"] == 1


def test_nbytes_of_tensors_arrays_and_shared_parts():
    t = torch.zeros(10, dtype=torch.float64)
    a = np.zeros((3, 5), dtype=np.float32)
    assert nbytes(t) == 80 and nbytes(a) == 60
    assert nbytes({"x": [t, (a, a)], "y": None}) == 140          # the same array twice counts once


def test_a_shared_function_keys_positional_keyword_and_default_arguments_alike():
    calls = []

    @shared
    def draw(act: str, width: int, seed: int = 0):
        calls.append((act, width, seed))
        return width + seed

    draw.cache_clear()
    assert draw("relu", 8) == draw("relu", 8, 0) == draw("relu", width=8, seed=0) == draw(act="relu", width=8) == 8
    assert draw("relu", 8, seed=1) == 9
    assert calls == [("relu", 8, 0), ("relu", 8, 1)]
    draw.cache_clear()


# ------------------------------------------------------------------------------------------ expectations
def _verdict(claim, status, budget):
    return types.SimpleNamespace(claim_id=claim, status=status, settings={"budget": budget})


def test_a_budget_override_applies_to_its_budget_only(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('["isometry:theorem1"]\nstatus = "holds"\nstatus_standard = "violated"\nkind = "erratum"\n'
                 'reason = "  a printed constant  "\n', encoding="utf-8")
    e = E.load(str(f))["isometry:theorem1"]
    assert (e.status_for("quick"), e.status_for("standard"), e.status_for("full"), e.status_for(None)) == \
        (HOLDS, VIOLATED, HOLDS, HOLDS)
    assert e.reason == "a printed constant" and e.kind == "erratum"
    quick, standard = E.compare([_verdict("isometry:theorem1", HOLDS, "quick"),
                                 _verdict("isometry:theorem1", HOLDS, "standard")], {"isometry:theorem1": e})
    assert (quick.outcome, quick.kind) == ("match", "")
    assert (standard.outcome, standard.expected, standard.kind) == ("no longer reproduces", VIOLATED, "erratum")


def test_files_layer_over_the_shipped_ones_unless_replacing(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('["isometry:theorem1"]\nstatus = "inconclusive"\n', encoding="utf-8")
    shipped = E.load_many([])
    layered = E.load_many(str(f))                                  # a path as a string, not a list
    replaced = E.load_many([str(f)], replace=True)
    assert len(shipped) > 5 and set(layered) == set(shipped) | {"isometry:theorem1"}
    assert layered["isometry:theorem1"].status == INCONCLUSIVE
    assert set(replaced) == {"isometry:theorem1"}
    assert E.load_many(["shipped"], replace=True) == shipped == E.load("shipped")


@pytest.mark.parametrize("body, message", [
    ('["isometry:theorem1"]\nstaus = "holds"\n', "unknown key 'staus'; did you mean 'status'?"),
    ('["isometry:theorem1"]\n' + "x" * 80 + ' = 1\nstatus = "holds"\n', "unknown key '" + "x" * 60 + "' (keys: "),
    ('["isometry:theorem1"]\nstatus = "error"\n',
     "status must be one of holds, violated, hypotheses-not-met, inconclusive"),
    ('["isometry:theorem1"]\nstatus = "holds"\nstatus_huge = "holds"\n', "the budget must be quick, standard or full"),
    ('["isometry:theorem1"]\nstatus = "holds"\nstatus_quick = "error"\n', "status_quick must be one of"),
    ('["isometry:theorem1"]\nstatus = "holds"\nkind = "typo"\n', "kind must be one of"),
    ('["isometry:theorem1"]\nreason = "no status"\n', "needs a status"),
    ('["isometry:no-such"]\nstatus = "holds"\n', "unknown claim 'isometry:no-such'"),
    ('"isometry:theorem1" = "holds"\n', "must be a table with a status"),
])
def test_each_malformed_entry_is_refused_with_its_reason(tmp_path, body, message):
    f = tmp_path / "bad.toml"
    f.write_text(body, encoding="utf-8")
    with pytest.raises(E.ExpectationError) as info:
        E.load(str(f))
    assert message in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("observed, outcomes, code", [
    ([HOLDS, VIOLATED, INCONCLUSIVE], ["match"] * 3, 0),
    ([HOLDS, INCONCLUSIVE], ["match", "regression"], 1),
    ([HOLDS, ERROR], ["match", "regression"], 4),
    ([VIOLATED], ["no longer reproduces"], 1),
])
def test_exit_status_for_each_observed_status(observed, outcomes, code):
    comps = [E.Comparison(f"p:c{i}", HOLDS, o, oc) for i, (o, oc) in enumerate(zip(observed, outcomes))]
    assert E.exit_code(comps) == code


# ------------------------------------------------------------------------------------------ intervals
def test_intervals_at_known_quantiles():
    # Student's t with 2 degrees of freedom in closed form: t_p = (2p − 1)/√(2p(1 − p)); se = 1/√3 here
    t2 = lambda p: (2 * p - 1) / math.sqrt(2 * p * (1 - p))             # noqa: E731
    m, (lo, hi), n = S.mean_ci([1.0, 2.0, 3.0])
    assert (m, n) == (2.0, 3) and hi - m == pytest.approx(t2(0.975) / math.sqrt(3), rel=1e-12)
    assert m - lo == pytest.approx(hi - m, rel=1e-14)
    _, (lo99, hi99), _ = S.mean_ci([1.0, 2.0, 3.0], confidence=0.99)
    assert hi99 - 2.0 == pytest.approx(t2(0.995) / math.sqrt(3), rel=1e-12)
    assert S.mean_ci([5.0]) == (5.0, (5.0, 5.0), 1)
    assert S.normal_ci(1.0, 2.0) == pytest.approx((1 - 2 * 1.959963984540054, 1 + 2 * 1.959963984540054), rel=1e-14)
    assert S.normal_ci(0.0, 1.0, 0.99)[1] == pytest.approx(2.5758293035489004, rel=1e-14)


# ------------------------------------------------------------------------------------------ the tests above, on broken lines
def test_these_tests_fail_on_deliberately_broken_lines(monkeypatch):
    """Mutants of the sampled kind (cosmic-ray operators, sample seed 20261129), which no quick-run verdict sees:
    an exit status that reads every status sorting after "error" as a crash, a store that clears every name but the
    one asked for, a batch-size kind that returns 0 for every size but 0."""
    from conftest import source_mutant
    monkeypatch.setattr(E, "exit_code", source_mutant(E.exit_code, "c.observed == ERROR", "c.observed >= ERROR"))
    with pytest.raises(AssertionError):
        test_exit_status_for_each_observed_status([HOLDS, VIOLATED, INCONCLUSIVE], ["match"] * 3, 0)
    monkeypatch.undo()
    monkeypatch.setattr(Store, "clear", source_mutant(Store.clear, "k[0] == name", "k[0] is not name"))
    with pytest.raises(AssertionError):
        test_store_keeps_no_value_larger_than_its_byte_bound_and_clears_one_name_only()
    monkeypatch.undo()
    monkeypatch.setattr(P, "batch_size", source_mutant(P.batch_size, "allow_default_zero and n == 0",
                                                       "allow_default_zero and n != 0"))
    with pytest.raises((AssertionError, ValueError)):          # "0" refused: the test fails either way
        test_batch_size_limits_and_the_default_zero()
