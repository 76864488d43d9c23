"""The input canaries of the self-test (verify.selftest_inputs): every one as known on the real code, and each of the
sampled operator mutants of the parameter kinds, formula guards, expectations file, store and estimate text that
survived verify at 327a8ca (docs/mutation.md) now fails a named canary — so `verify all` exits 4 on it."""
from __future__ import annotations

import pytest

import numerics
from conftest import source_mutant
from numerics import (bn_chain, bn_kernels, bn_meanfield, covariance_sde, datasets, ensembles, isometry_mlp, jacobian,
                      mlp, ntk, threads, training)
from theory import _torch_lambdify, activations, formula, gaussian, meanfield_depth, results, validate
from theory import bn_meanfield as theory_bn_meanfield
from theory import jacobian as jacobian_theory
from verify import expectations, params, selftest, store
from verify.cli import main
from verify.selftest_inputs import canaries


def test_every_input_canary_is_as_known():
    got = canaries(selftest.Canary)
    assert [c.name for c in got if not c.passed] == []
    assert len(got) == 85
    assert sum(c.passed for c in selftest.run()) == 191


def _canary(name):
    return next(c for c in canaries(selftest.Canary) if c.name == name)


def test_the_canaries_state_the_limits_of_the_kinds():
    """The expected texts are the documented limits, not the code's own output copied: batch sizes in [4, 256],
    32 activations, widths in [2, 100000] with the memory 8·d·10·30 bytes, seeds below 2³²."""
    assert _canary("batch_size(allow 0) of 0, 4, 256").observed == "(0, 4, 256)"
    assert 8 * 100001 * 10 * 30 / 1e9 == pytest.approx(0.24, abs=0.005)
    assert "(0.24 GB at d = 100001" in _canary("width_list of 100001").expected
    assert _canary("nbytes of a 3 × 8-byte tensor, of a dict of arrays").observed == "(24, 28)"   # 16 + 12


ESTIMATES = "Estimate text of 1.23 ± 0.01, 1.234 ± (0.01 − 10⁻¹³) and 2 ± 2"

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
# the sampled survivors of the simulators, quadratures and torch translation (docs/mutation.md): the engine contracts
MUTANTS += [
    (bn_chain, "simulate_bn_chain", "validate.memory(itemsize * seeds *", "validate.memory(itemsize + seeds *",
     "simulate_bn_chain's working set, width 16, n 4, 2 seeds"),
    (bn_chain, "bn_sphere_grams", "(W.shape != (n, n) or not np.all", "(W.shape != (n, n) and not np.all",
     "bn_sphere_grams whitened by a finite 5×5 matrix for n = 4"),
    (mlp, "simulate_mlp", "if backprop else 0)", "if not backprop else 0)",
     "simulate_mlp's working set without backprop, width 8, 2 inputs, 2 seeds"),
    (ntk, "empirical_kernels", "(2 + X.shape[0]), \"the networks' gradients\")",
     "(2 + X.shape[-1]), \"the networks' gradients\")", "empirical_kernels' working set, width 8, depth 2, 2 inputs of 4"),
    (isometry_mlp, "run_isometry_mlp", "if len(widths) != depth:", "if len(widths) > depth:",
     "run_isometry_mlp with 2 widths for depth 3"),
    (covariance_sde, "simulate_correlation_sde", "if not (dt > 0 and T >= 0):", "if not (dt > 0 and T > 0):",
     "simulate_correlation_sde to T = 0"),
    (datasets, "_split", "if not 0.05 <= test_fraction <= 0.5:", "if not 0.05 <= test_fraction <= 1.5:",
     "load_dataset of arrays with test_fraction 0.6"),
    (datasets, "describe_dataset", 'if ds.name == "digits":', 'if not ds.name == "digits":',
     "describe_dataset of the digits"),
    (numerics, "__getattr__", "if name in _SUBMODULES:", "if not name in _SUBMODULES:",
     "numerics' lazy submodule bn_layer"),
    (threads, "available_cores", "os.sched_getaffinity(0)", "os.sched_getaffinity(-1)",
     "the cores this process may use, pinned to one"),
    (_torch_lambdify, "_native", "x * (sp.erf(sp.sqrt(2) * x / 2) + 1) / 2: F.gelu",
     "x - (sp.erf(sp.sqrt(2) * x / 2) + 1) / 2: F.gelu", "native torch functions of GELU and SiLU"),
    (_torch_lambdify, "_native", "x * (sp.erf(sp.sqrt(2) * x / 2) + 1) / 2: F.gelu",
     "x * (sp.erf(sp.sqrt(2) * x - 2) + 1) / 2: F.gelu", "native torch functions of GELU and SiLU"),
    (_torch_lambdify, "torch_callable", "for val, cond in reversed(branches[:-1]):",
     "for val, cond in reversed(branches[:+1]):", "a three-piece Piecewise in torch at −2, 0, 0.5, 2"),
    (bn_meanfield, "classify_covariance", "if labels.min() == labels.max():", "if not labels.min() == labels.max():",
     "classify_covariance of a BSB2 matrix, and of it ×100 moved by 1e-7 of its norm"),
    (bn_meanfield, "classify_covariance", "_block_projection(S, labels))) / nrm", "_block_projection(S, labels))) * nrm",
     "classify_covariance of a BSB2 matrix, and of it ×100 moved by 1e-7 of its norm"),
    (bn_meanfield, "_check_sigma", "np.allclose(S, S.T, rtol=1e-10,", "np.allclose(S, S.T, rtol=1.0000000001,",
     "the BN mean-field map of a Σ asymmetric by 0.05"),
    (bn_kernels, "_degenerate_check", "c = p - p.mean(dim=-1, keepdim=True)", "c = p ** p.mean(dim=-1, keepdim=True)",
     "bn_forward_map_mc at Σ = 11ᵀ (every draw constant over the batch)"),
    (jacobian, "jacobian_moments_mc", "width: int = 512, seeds: int = 8,", "width: int = 512, seeds: int = 7,",
     "jacobian_moments_mc's default seeds (documented: 8)"),
    (gaussian, "_estimate_from_mp", 'if f != 0.0 else "0")', 'if f > 0.0 else "0")', "E[Z − 1] by mpmath: value and text"),
]
# survivors of the sample at 5159536: a guard moved by one, working sets with a term dropped
MUTANTS += [
    (isometry_mlp, "run_isometry_mlp", "(width * width if method", "(width / width if method",
     "run_isometry_mlp's working set, width 8, n 2, 2 seeds, dense and exact"),
    (training, "_isometry_arguments", "if len(probe) < 2 or", "if len(probe) < 3 or",
     "train_isometry_mlp with a probe of 2 and of 7 samples at width 8 (the limits)"),
    (training, "_isometry_arguments", "or len(probe) >= width:", "or len(probe) > width:",
     "train_isometry_mlp with a probe of 8 samples at width 8"),
    (ensembles, "train_isometry_mlp_ensemble", "(3 * depth * width * width + 4", "(3 * depth * width + width + 4",
     "train_isometry_mlp_ensemble's working set, 2 members"),
    # a survivor of the sample at 0da9794: the BN ensemble's activation term 4·6·depth written 4·6 % depth
    (ensembles, "train_bn_mlp_ensemble", "validate.memory(E * (4 * 6 * depth", "validate.memory(E * (4 * 6 % depth",
     "train_bn_mlp_ensemble's working set, 2 members, depth 3, width 8, batch 4"),
    # a survivor of the sample at 0da9794: 2-D labels let through
    (datasets, "_labels", "if y.ndim != 1 or y.size == 0:", "if y.ndim < 1 or y.size == 0:",
     "load_dataset of arrays with labels of shape (20, 1)"),
    # and the BN trainers' depth limit moved to 0
    (training, "_bn_arguments", 'validate.integer(depth, "depth", 1, 2000)', 'validate.integer(depth, "depth", 0, 2000)',
     "train_bn_mlp at depth 1 (the limit) and 0"),
    # "auto" compared by order: every word after it in the alphabet taken for the paper's widths
    (params, "width_list", 'if t == "auto":', 'if t >= "auto":', "width_list of auto and of big"),
    # the exponent guard divided away, and the name hint's list built with //
    (formula._Builder, "power", "ex > math.log10(MAX_POWER) + 1e-12", "ex > math.log10(MAX_POWER) / 1e-12",
     "x**64 and x**65"),
    (formula._Builder, "build", "list(ALLOWED_NAMES) + list(ALLOWED_FUNCTIONS)",
     "list(ALLOWED_NAMES) // list(ALLOWED_FUNCTIONS)", "an unknown name, xx"),
    (mlp, "simulate_mlp", "depth * 4 * S * wmax * k if backprop", "depth * 4 * S // wmax * k if backprop",
     "simulate_mlp's working set with backprop, width 8, 2 inputs, 2 seeds"),
    (jacobian, "_jacobians", "validate.memory(8.0 * 4 * width * width,", "validate.memory(8.0 * 4 * width + width,",
     "the Jacobian's working set, width 16"),
    (bn_meanfield, "simulate_bn_gradients", "if B < 2 or width", "if B < 3 or width",
     "simulate_bn_gradients at batch size 2 (the limit) and 1"),
    (results.Estimate, "__str__", "unit *= 10\n", "unit *= 9\n",
     "Estimate text of 1.234 ± 0.0097 (the error's digit rounds up to 10)"),
    (expectations, "render", "if n['erratum'] == 1 else 'errata'", "if n['erratum'] == 2 else 'errata'",
     "the summary of one and of two reproduced errata"),
    # a survivor of the sample at f5c4110: the upper limit itself refused
    (datasets, "_split", "if not 0.05 <= test_fraction <= 0.5:", "if not 0.05 <= test_fraction < 0.5:",
     "load_dataset of arrays with test_fraction 0.5 and 0.05 (the limits)"),
    # more survivors of the sample at f5c4110: an open limit moved, a tolerance widened, an exact error rounded up
    (params, "learning_rate", "math.isfinite(v) and 0 < v <= 10", "math.isfinite(v) and -1 < v <= 10",
     "learning_rate of −0.5 (below the open limit 0)"),
    (formula._Builder, "power", "if float(base.evalf(15)) < 0 and", "if float(base.evalf(15)) < -1 and",
     "(−0.5)**0.5, a negative base above −1"),
    (activations, "_check_square_integrable", "1.1 * tv[0] + 1e-12 * max(", "1.1 * tv[0] + 1e-12 + max(",
     "sin(1000x)/10⁴: a variation of 0.19 that doubles on the finer grid"),
    (results.Estimate, "__str__", "unit *= 10\n        err_units = math.ceil(e / unit - 1e-9)",
     "unit *= 10\n        err_units = math.ceil(e / unit + 1e-9)", ESTIMATES),
    (results.Estimate, "__str__", "max(1, math.ceil(e / unit - 1e-9))", "max(1, math.ceil(e / unit + 1e-9))", ESTIMATES),
    (results.Estimate, "__str__", "(v != 0.0 and e >= abs(v))", "(v != 0.0 and e > abs(v))", ESTIMATES),
    (bn_chain, "bn_sphere_grams", 'reps = validate.integer(reps, "reps", 1, 10 ** 7)',
     'reps = validate.integer(reps, "reps", 1, 10 ** 8)', "bn_sphere_grams with 10⁷ repetitions (the limit) and 10⁷ + 1"),
    (jacobian_theory, "jacobian_spectrum_moments", "if not (q >= 0 and", "if not (q >= -1 and",
     "jacobian_spectrum_moments with q¹ = −0.5"),
    # more survivors of the sample at f5c4110: a covariance's limit doubled, a closed limit opened, a positive
    # constant allowed 0, a name refused only after "digits" in the alphabet
    (gaussian, "bivariate_expectation", "if abs(q12) > bound * (1 + 1e-12)", "if abs(q12) > bound * (2 + 1e-12)",
     "bivariate_expectation of ReLU at q₁₂ = ±√(q₁₁q₂₂) (the limit) and 1 + 5e-8 past it"),
    (meanfield_depth, "correlation_trajectory", "if not (-1.0 <= c0 <= 1.0):", "if not (-1.0 < c0 <= 1.0):",
     "correlation_trajectory at c⁰ = −1, 1 (the limits) and −1 − 1e-7"),
    (covariance_sde.Shape, "__post_init__", "if not (self.a > 0 and", "if not (self.a >= 0 and",
     "the covariance SDE's smooth shape with a = 0"),
    (datasets, "raw_arrays", 'if name != "digits":', 'if name > "digits":',
     "raw_arrays of 'cifar10', 'mnist' and 'digits'"),
    (theory_bn_meanfield, "backward_map_quadrature", "if 2 * nodes ** (B - 1) > 4_000_000:",
     "if 2 * nodes + (B - 1) > 4_000_000:", "backward_map_quadrature at B = 4 with 126 nodes"),
    (expectations, "render", 'c.outcome == "match" and c.expected != HOLDS and not c.kind',
     'c.outcome == "match" and c.expected >= HOLDS and not c.kind',
     "the summary of two expected holds and one expected violation of no stated kind"),
    # survivors of the 0da9794 sample: more inputs than labels let through to the permutation (an IndexError); the
    # division by a huge scale made a product (inf features); the size in a refusal halved
    (datasets, "_split", "if len(x) != len(y):", "if len(x) < len(y):",
     "load_dataset of 20 inputs with 19 and 21 labels"),
    (datasets, "_finish", "xtr, xte = xtr / scale, xte / scale", "xtr, xte = xtr * scale, xte / scale",
     "load_dataset of 1e200·x against x"),
    (datasets, "_check_sizes", "({total / 2 ** 20:.0f} MiB as float64)", "({total / 2 ** 21:.0f} MiB as float64)",
     "a dataset file of 2 MiB under a limit of 1e-12 GiB"),
    # the store's byte budget from DEEPINIT_STORE_MB multiplied by 2 // 20 (0: a store that keeps nothing)
    (store.Store, "__init__", '"2048")) * 2 ** 20)', '"2048")) * 2 // 20)',
     "the byte budget of a store under DEEPINIT_STORE_MB=3"),
    # the rounding tolerance of the covariance bound dropped; the last probe index one past the samples; an
    # expected holds that came out otherwise taken for a lost erratum (a string comparison)
    (gaussian, "bivariate_expectation", "if abs(q12) > bound * (1 + 1e-12) + 1e-300:",
     "if abs(q12) > bound * (1 ** 1e-12) + 1e-300:",
     "bivariate_expectation of ReLU at q₁₂ = 2(1 + 1e-13), √(q₁₁q₂₂) = 2"),
    (training, "_isometry_arguments", '"probe index", 0, len(ds.x_train) - 1)',
     '"probe index", 0, len(ds.x_train) / 1)',
     "train_isometry_mlp with probe indices 14 and 15 of 15 training samples"),
    (expectations, "compare", "elif expected == VIOLATED:", "elif expected <= VIOLATED:",
     "an expected holds that is inconclusive, an expected violation that holds"),
    (formula._Builder, "call", 'want = f"{lo}" if lo == hi else', 'want = f"{lo}" if lo != hi else',
     "tanh(x, 1) and min(x)"),
    # a survivor of the sample at 43adb06: a crash's status compared by identity (an unpickled "error" is not the
    # constant): exit 1 instead of 4
    (expectations, "exit_code", "if any(c.observed == ERROR for c in comparisons):",
     "if any(c.observed is ERROR for c in comparisons):",
     "the exit status of a crash whose status string came from another process"),
    # a survivor of the sample at 43adb06: the expected status compared with HOLDS by identity (a parsed file's
    # "holds" is another object): a kind stated on a holds entry carried into the match
    (expectations, "compare", 'e.kind if e and expected != HOLDS else ""))', 'e.kind if e and expected is not HOLDS else ""))',
     "the kind of a matched 'holds' read from a file"),
]
_IDS = [f"{i}-{m[1]}" for i, m in enumerate(MUTANTS)]


@pytest.mark.parametrize("owner, attr, old, new, caught", MUTANTS, ids=_IDS)
def test_a_sampled_survivor_fails_its_canary(monkeypatch, owner, attr, old, new, caught):
    monkeypatch.setattr(owner, attr, source_mutant(getattr(owner, attr), old, new))
    activations._activation_from_text.cache_clear()     # an activation accepted under the mutant stays accepted
    try:
        failed = {c.name: c.observed for c in canaries(selftest.Canary) if not c.passed}
    finally:
        activations._activation_from_text.cache_clear()
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
