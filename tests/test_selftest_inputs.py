"""The input canaries of the self-test (verify.selftest_inputs): every one as known on the real code, and each of the
sampled operator mutants of the parameter kinds, formula guards, expectations file, store and estimate text that
survived verify at 327a8ca (docs/mutation.md) now fails a named canary — so `verify all` exits 4 on it."""
from __future__ import annotations

import pytest

from conftest import source_mutant
from theory import formula, results, validate
from verify import expectations, params, selftest, store
from verify.cli import main
from verify.selftest_inputs import canaries


def test_every_input_canary_is_as_known():
    got = canaries(selftest.Canary)
    assert [c.name for c in got if not c.passed] == []
    assert len(got) == 30
    assert sum(c.passed for c in selftest.run()) == 53


def _canary(name):
    return next(c for c in canaries(selftest.Canary) if c.name == name)


def test_the_canaries_state_the_limits_of_the_kinds():
    """The expected texts are the documented limits, not the code's own output copied: batch sizes in [4, 256],
    32 activations, widths in [2, 100000] with the memory 8·d·10·30 bytes, seeds below 2³²."""
    assert _canary("batch_size(allow 0) of 0, 4, 256").observed == "(0, 4, 256)"
    assert 8 * 100001 * 10 * 30 / 1e9 == pytest.approx(0.24, abs=0.005)
    assert "(0.24 GB at d = 100001" in _canary("width_list of 100001").expected
    assert _canary("nbytes of a 3 × 8-byte tensor, of a dict of arrays").observed == "(24, 28)"   # 16 + 12


# (module or class, attribute, old, new, the canary that must fail): the sampled survivors' one-line changes
MUTANTS = [
    (store.Store, "get", "seconds = time.monotonic() - start", "seconds = time.monotonic() + start",
     "seconds of a 2 ms computation"),
    (store.Store, "get", "(len(self._entries) > self.max_entries or", "(len(self._entries) is not self.max_entries or",
     "an LRU of 2 entries after a, b, c, b, d"),
    (store.Store, "clear", "k[0] == name]", "k[0] is not name]", "clear('h') keeps g's"),
    (store, "nbytes", "value.element_size() * value.nelement()", "value.element_size() + value.nelement()",
     "nbytes of a 3 × 8-byte tensor, of a dict of arrays"),
    (store, "nbytes", "value.element_size() * value.nelement()", "value.element_size() % value.nelement()",
     "nbytes of a 3 × 8-byte tensor, of a dict of arrays"),
    (expectations, "load", "KEYS, n=1, cutoff=0.6)", "KEYS, n=0, cutoff=0.6)", "the expectations file canaries"),
    (expectations, "load", 'f"{\', \'.join(s for s in STATUSES if s != ERROR)}")\n        by_budget',
     'f"{\', \'.join(s for s in STATUSES if s < ERROR)}")\n        by_budget', "a status outside the verdicts"),
    (params, "batch_size", "if not minimum <= n <= maximum:", "if minimum <= n <= maximum:",
     "batch_size(allow 0) of 3"),
    (params, "batch_size", "if allow_default_zero and n == 0:", "if allow_default_zero and n != 0:",
     "batch_size(allow 0) of 0, 4, 256"),
    (params, "activation_names", "if len(names) > 32:", "if len(names) > 31:", "activation_names of 32"),
    (params, "width_list", "gb = 8 * w * 10 * 30 / 1e9", "gb = 8 ** w * 10 * 30 / 1e9", "width_list of 100001"),
    (params, "width_list", "gb = 8 * w * 10 * 30 / 1e9", "gb = 8 * w * 10 * 30 * 1e9", "width_list of 100001"),
    (formula._Builder, "number", "if len(literal) > MAX_MAGNITUDE_LOG10 + 1:",
     "if len(literal) > MAX_MAGNITUDE_LOG10 + 0:", "a 301-digit literal (10³⁰⁰)"),
    (formula._Builder, "call", "{quote(str(name), 30)} is not allowed", "{quote(str(name), 29)} is not allowed",
     "an over-long function name"),
    (formula._Builder, "call", "if lv is None or lv > MAX_MAGNITUDE_LOG10:",
     "if lv is None and lv > MAX_MAGNITUDE_LOG10:", "exp(1000), exp(690)"),
    (formula._Builder, "power", "if float(exponent.evalf(15)) <= 0:", "if float(exponent.evalf(15)) != 0:", "0**0"),
    (formula, "parse_formula", "if not expr.free_symbols <= {x}", "if not expr.free_symbols >= {x}", "a constant"),
    (validate, "integer", "math.isfinite(value) and value == int(value)", "math.isfinite(value) and value > int(value)",
     "integer of 3.0 and 3.5"),
    (results.Estimate, "__str__", "(v != 0.0 and e >= abs(v))", "(v != 1.0 and e >= abs(v))",
     "Estimate text of 1 ± 2, 9.99996 ± 1e-4, 0.012345 ± 4e-4"),
    (results.Estimate, "__str__", 'mantissa = f"{v / 10.0 ** exp10:', 'mantissa = f"{v / 11.0 ** exp10:',
     "Estimate text of 1 ± 2, 9.99996 ± 1e-4, 0.012345 ± 4e-4"),
    (results.MatrixEstimate, "__post_init__", "if not np.all(e >= 0.0):", "if not np.all(e >= -1.0):",
     "MatrixEstimate with an error −0.5"),
]
_IDS = [f"{i}-{m[1]}" for i, m in enumerate(MUTANTS)]


@pytest.mark.parametrize("owner, attr, old, new, caught", MUTANTS, ids=_IDS)
def test_a_sampled_survivor_fails_its_canary(monkeypatch, owner, attr, old, new, caught):
    monkeypatch.setattr(owner, attr, source_mutant(getattr(owner, attr), old, new))
    failed = {c.name: c.observed for c in canaries(selftest.Canary) if not c.passed}
    assert caught in failed, failed


@pytest.mark.parametrize("owner, attr, old, new, caught", MUTANTS[:2] + MUTANTS[7:8], ids=_IDS[:2] + _IDS[7:8])
def test_verify_all_exits_4_on_an_input_mutant(monkeypatch, capsys, owner, attr, old, new, caught):
    monkeypatch.setattr(owner, attr, source_mutant(getattr(owner, attr), old, new))
    assert main(["all", "--paper", "isometry", "--budget", "quick", "-q"]) == 4
    assert f"  {caught}: must give" in capsys.readouterr().err


def test_a_crashing_group_is_a_failed_canary(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")
    monkeypatch.setattr(store, "Store", broken)
    failed = [c for c in canaries(selftest.Canary) if not c.passed]
    assert [(c.name, c.observed) for c in failed] == [("the store canaries", "RuntimeError: boom")]
