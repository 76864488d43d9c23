"""Known-answer canaries of what a run reads and keeps: the parameter kinds, the activation-formula guards, the
expectations file, the shared store and the text of an estimate (part 10 of :mod:`verify.selftest`); and the
contracts of the engines beyond their values — cost models, argument refusals, a classifier at the edge of its
tolerance, the torch translation of activations, the cores a process may use.

A claim's verdict cannot show a bug in these: a ``--param`` kind that admits a value outside its limits, a formula
guard that lets ``0**0`` through, an expectations file whose misspelt key is no longer named, a store that evicts the
wrong entry or miscounts a tensor's bytes — every claim still runs, and still holds. Each canary here is an input
whose answer is known by construction (the limits stated in the kinds' messages, the exact text of a refusal, the
LRU order, the bytes of an array) at the edge where a wrong comparison, bound or message changes it: a limit and one
past it, the exact message of an over-long name, an exponent of exactly 0. They run in a few milliseconds, with the
verdict canaries, before any claim; one not as known makes ``verify all`` exit 4.
"""
from __future__ import annotations

import os
import tempfile
import time

import numpy as np


def _outcome(fn, *args, **kwargs) -> str:
    """``repr`` of what ``fn`` returns, or ``"<ExceptionType>: message"`` for what it raises."""
    try:
        return repr(fn(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001 - the canary records any refusal, by type and message
        return f"{type(exc).__name__}: {exc}"


def _table(canary, cases, only=None) -> list:
    """One canary per (name, expected, call): passed when the call's outcome equals (or, for a tuple of fragments,
    starts with and contains) the expected text; ``only``: a collection of names, to run just those."""
    out = []
    for name, expected, call in cases:
        if only is not None and name not in only:
            continue
        try:
            got = call()
        except Exception as exc:  # noqa: BLE001 - a canary that crashes is not as known
            got = f"crashed: {type(exc).__name__}: {exc}"
        if isinstance(expected, tuple):
            head, *parts = expected
            ok = got.startswith(head) and all(p in got for p in parts)
            want = " … ".join(expected)
        else:
            ok, want = got == expected, expected
        out.append(canary(name, want, got[:300], ok))
    return out


def _parameters(canary) -> list:
    """The ``--param`` kinds at their limits and one past them (:mod:`verify.params`)."""
    from . import params
    zero_ok, strict = params.batch_size(allow_default_zero=True), params.batch_size()
    relus = ",".join(["relu"] * 32)
    return _table(canary, [
        ("batch_size(allow 0) of 0, 4, 256", "(0, 4, 256)", lambda: _outcome(lambda: (zero_ok("0"), zero_ok("4"),
                                                                                       zero_ok("256")))),
        ("batch_size(allow 0) of 3", ("ValueError: batch size 3 must be in [4, 256]",), lambda: _outcome(zero_ok, "3")),
        ("batch_size(allow 0) of 257", ("ValueError: batch size 257 must be in [4, 256]",),
         lambda: _outcome(zero_ok, "257")),
        ("batch_size() of 0", ("ValueError: batch size 0 must be in [4, 256]",), lambda: _outcome(strict, "0")),
        ("activation_names of 32", "32", lambda: _outcome(lambda: len(params.activation_names(relus)))),
        ("activation_names of 33", "ValueError: at most 32 activations per run (got 33)",
         lambda: _outcome(params.activation_names, relus + ",tanh")),
        ("width_list of 2, 100000", "(2, 100000)", lambda: _outcome(params.width_list, "2, 100000")),
        ("width_list of 100001", ("ValueError: width 100001 must be at most 100000", "(0.24 GB at d = 100001"),
         lambda: _outcome(params.width_list, "100001")),
        ("width_list of 1", ("ValueError: width 1 must be at least 2",), lambda: _outcome(params.width_list, "1")),
        # "auto" and a word after it in the alphabet: only the word "auto" means the paper's widths
        ("width_list of auto and of big", "('auto', \"ValueError: a width must be an integer (at most 12 digits), not "
         "'big'\")", lambda: repr((params.width_list("auto"), _outcome(params.width_list, "big")))),
        ("seed of 2³² − 1 and 2³²", ("4294967295; ValueError: --seed '4294967296' must be in [0, 4294967295]",),
         lambda: f"{params.seed('4294967295')}; {_outcome(params.seed, '4294967296')}"),
        ("learning_rate of 0, 10 and 10.5", ("0.0, 10.0; ValueError: learning rate 10.5 must be in (0, 10]",),
         lambda: f"{params.learning_rate('0')}, {params.learning_rate('10')}; "
                 f"{_outcome(params.learning_rate, '10.5')}"),
        ("learning_rate of −0.5 (below the open limit 0)", ("ValueError: learning rate -0.5 must be in (0, 10]",),
         lambda: _outcome(params.learning_rate, "-0.5")),
    ])


def _formulas(canary) -> list:
    """The guards of an activation formula (:func:`theory.formula.parse_formula`) at their edges."""
    from theory.activations import activation
    from theory.formula import parse_formula
    big = "1" + "0" * 300           # 10³⁰⁰, 301 digits: the largest literal allowed
    long_name = "frobnicate_the_activation_function_x"
    return _table(canary, [
        ("a 301-digit literal (10³⁰⁰)", f"{big}*x", lambda: str(parse_formula(f"x*{big}"))),
        # a function of one argument given two; one of 2 to 8 given one
        ("tanh(x, 1) and min(x)", "ActivationError: tanh takes 1 argument(s), got 2 in 'tanh(x, 1)' | ActivationError: "
         "min takes 2 to 8 argument(s), got 1 in 'min(x)'",
         lambda: " | ".join(_outcome(parse_formula, f) for f in ("tanh(x, 1)", "min(x)"))),
        ("a 302-digit literal", ("ActivationError: a number in ", "is larger than 1e300"),
         lambda: _outcome(parse_formula, f"x*{big}0")),
        ("0**0", "ActivationError: 0 raised to a non-positive power in 'x + 0**0'",
         lambda: _outcome(parse_formula, "x + 0**0")),
        ("0**x", "ActivationError: a power of '0' in '0**x*x': the base must be a positive number",
         lambda: _outcome(parse_formula, "0**x*x")),
        ("exp(1000), exp(690)", "(\"ActivationError: a number in 'x*exp(1000)' is larger than 1e300\", "
         "'x*exp(690)')", lambda: repr((_outcome(parse_formula, "x*exp(1000)"), str(parse_formula("x*exp(690)"))))),
        ("(−0.5)**0.5, a negative base above −1", "ActivationError: a negative number raised to a non-integer power "
         "in 'x + (-0.5)**0.5' is not real", lambda: _outcome(parse_formula, "x + (-0.5)**0.5")),
        ("sin(1000x)/10⁴: a variation of 0.19 that doubles on the finer grid",
         ("ActivationError: activation 'sin(1000*x)/10000' oscillates faster than the quadratures resolve",),
         lambda: _outcome(activation, "sin(1000*x)/10000")),
        # the exponent's limit (64) and one past it
        ("x**64 and x**65", "(\"'x**64'\", \"ActivationError: exponent '65' too large in 'x**65' (at most 64 in "
         "size)\")", lambda: repr((repr(str(parse_formula("x**64"))), _outcome(parse_formula, "x**65")))),
        ("an unknown name, xx", ("ActivationError: name 'xx' is not allowed in 'xx + 1' (did you mean 'x'?)",),
         lambda: _outcome(parse_formula, "xx + 1")),
        ("a constant", "'1'", lambda: repr(str(parse_formula("1")))),
        ("a parameter alone", "'a'", lambda: repr(str(parse_formula("a", parameters=("a",))))),
        ("an over-long function name", (f"ActivationError: function '{long_name[:20]}'…(36 characters) is not allowed "
                                        f"in '{long_name}(x)'",),
         lambda: _outcome(parse_formula, f"{long_name}(x)")),
    ])


def _expectations(canary) -> list:
    """The expectations file's refusals (:func:`verify.expectations.load`): a misspelt key is named with its
    nearest key, a status outside the verdicts is refused with the list of those allowed."""
    from .core import ERROR, STATUSES
    from .expectations import ExpectationError, load
    from .registry import all_claims
    claim = next(iter(all_claims())).id
    allowed = ", ".join(s for s in STATUSES if s != ERROR)
    cases = []
    with tempfile.TemporaryDirectory(prefix="deepinit-selftest-") as tmp:
        def read(body: str) -> str:
            path = os.path.join(tmp, "expect.toml")
            with open(path, "w", encoding="utf-8") as f:
                f.write(f'["{claim}"]\n{body}\n')
            try:
                return repr({k: (e.status, e.by_budget) for k, e in load(path).items()})
            except ExpectationError as exc:
                return f"ExpectationError: {str(exc).replace(repr(path), 'FILE')}"
        cases.append(("a misspelt key", f"ExpectationError: --expect FILE: [{claim!r}] unknown key 'staus'; did you "
                      "mean 'status'?", read('staus = "holds"')))
        cases.append(("a status outside the verdicts", f"ExpectationError: --expect FILE: [{claim!r}] status must be "
                      f"one of {allowed}", read('status = "error"')))
        cases.append(("a status for one budget", repr({claim: ("holds", (("quick", "inconclusive"),))}),
                      read('status = "holds"\nstatus_quick = "inconclusive"')))
    from .expectations import Comparison, render

    def erratum(k: int) -> Comparison:
        return Comparison(f"p:e{k}", "violated", "violated", "match", kind="erratum")
    cases.append(("the summary of one and of two reproduced errata",
                  "('expectations: 1 of 1 claims as expected (1 known erratum reproduced)', "
                  "'expectations: 2 of 2 claims as expected (2 known errata reproduced)')",
                  repr((render([erratum(1)]), render([erratum(1), erratum(2)])))))
    # an expected deviation of no stated kind is counted once; claims expected to hold are not deviations
    plain = [Comparison("p:a", "holds", "holds", "match"), Comparison("p:b", "holds", "holds", "match"),
             Comparison("p:c", "violated", "violated", "match")]
    cases.append(("the summary of two expected holds and one expected violation of no stated kind",
                  "('expectations: 3 of 3 claims as expected (1 expected deviations of no stated kind)', "
                  "'expectations: 2 of 2 claims as expected')", repr((render(plain), render(plain[:2])))))
    # a claim expected to hold that came out otherwise is a regression; one expected violated that holds no longer
    # reproduces its erratum
    from types import SimpleNamespace

    from .expectations import Expectation, compare
    got = compare([SimpleNamespace(claim_id="p:a", status="inconclusive", settings={"budget": "quick"}),
                   SimpleNamespace(claim_id="p:b", status="holds", settings={"budget": "quick"})],
                  {"p:b": Expectation("p:b", "violated", kind="erratum")})
    cases.append(("an expected holds that is inconclusive, an expected violation that holds",
                  "('regression', 'no longer reproduces')", repr(tuple(c.outcome for c in got))))
    # an expectation read from a file that says "holds" with a kind: the kind is not carried (only deviations have
    # one), whatever the string object its status is (a parsed file's "holds" is equal to, not identical with, HOLDS)
    parsed = "".join(["ho", "lds"])
    got = compare([SimpleNamespace(claim_id="p:a", status="holds", settings={"budget": "quick"})],
                  {"p:a": Expectation("p:a", parsed, kind="erratum")})
    cases.append(("the kind of a matched 'holds' read from a file", "('match', '')",
                  repr((got[0].outcome, got[0].kind))))
    # a crashed claim exits 4 whatever the string object its status is: a verdict unpickled from a worker process or
    # read back from a report carries "error" equal to, not identical with, the constant
    from .expectations import exit_code
    unpickled = "".join(["err", "or"])
    cases.append(("the exit status of a crash whose status string came from another process",
                  "(4, 4, 1)", repr((exit_code([Comparison("p:a", "holds", unpickled, "regression")]),
                                     exit_code([Comparison("p:a", "holds", ERROR, "regression")]),
                                     exit_code([Comparison("p:a", "holds", "inconclusive", "regression")])))))
    return _table(canary, [(n, e, (lambda g=g: g)) for n, e, g in cases])


class _Tensorlike:
    """What :func:`verify.store.nbytes` counts a torch tensor by: 3 elements of 8 bytes."""

    def element_size(self) -> int:
        return 8

    def nelement(self) -> int:
        return 3


def _store(canary) -> list:
    """A private :class:`verify.store.Store` on known operations: its LRU bounds, its byte count, ``clear`` of one
    function, and the seconds it records."""
    from .store import Store, nbytes
    out = []
    s = Store(max_entries=2, max_bytes=1000)
    for k in "abc":
        s.get(("f", k), lambda k=k: k)
    s.get(("f", "b"), lambda: "recomputed")                # reused, and made the most recent
    s.get(("f", "d"), lambda: "d")                         # evicts c, the least recently used
    keys = sorted(k[1] for k in s._entries)
    out.append(canary("an LRU of 2 entries after a, b, c, b, d", "['b', 'd'], reused 1",
                      f"{keys}, reused {s.reused['f']}", keys == ["b", "d"] and s.reused["f"] == 1))
    s = Store(max_entries=10, max_bytes=1000)
    s.get(("g", 1), lambda: np.zeros(100))                 # 800 bytes
    s.get(("h", 1), lambda: np.zeros(50))                  # 400 more: past 1000, the first goes
    s.get(("h", 2), lambda: "text")                        # no array: 0 bytes
    keys = sorted(s._entries)
    out.append(canary("a store of 1000 bytes after 800 + 400 + 0", "[('h', 1), ('h', 2)], 400 bytes",
                      f"{keys}, {s.bytes} bytes", keys == [("h", 1), ("h", 2)] and s.bytes == 400))
    s.clear("h")
    s.get(("g", 2), lambda: np.zeros(10))
    s.clear("h")
    out.append(canary("clear('h') keeps g's", "[('g', 2)], 80 bytes", f"{sorted(s._entries)}, {s.bytes} bytes",
                      sorted(s._entries) == [("g", 2)] and s.bytes == 80))
    sizes = (nbytes(_Tensorlike()), nbytes({"a": [np.zeros(2), (np.zeros(3, dtype=np.float32),)]}))
    out.append(canary("nbytes of a 3 × 8-byte tensor, of a dict of arrays", "(24, 28)", repr(sizes), sizes == (24, 28)))
    s = Store()
    before = time.monotonic()
    s.get(("t", 0), lambda: time.sleep(0.002))
    took = time.monotonic() - before
    spent = s.seconds_computed["t"]
    out.append(canary("seconds of a 2 ms computation", f"in [0.002, {took:.4f}]", f"{spent:.4f}",
                      0.002 <= spent <= took))
    old = os.environ.get("DEEPINIT_STORE_MB")
    os.environ["DEEPINIT_STORE_MB"] = "3"                  # MiB: 3·2²⁰ bytes
    try:
        budget = Store().max_bytes
    finally:
        if old is None:
            del os.environ["DEEPINIT_STORE_MB"]
        else:
            os.environ["DEEPINIT_STORE_MB"] = old
    out.append(canary("the byte budget of a store under DEEPINIT_STORE_MB=3", "3145728", repr(budget),
                      budget == 3145728))
    return out


def _estimates(canary) -> list:
    """The text reports print for a value and its error (:class:`theory.results.Estimate`), and the refusal of a
    negative error (:class:`theory.results.MatrixEstimate`); the integers :func:`theory.validate.integer` takes."""
    from theory.results import Estimate, MatrixEstimate
    from theory.validate import integer
    return _table(canary, [
        ("Estimate text of 1 ± 2, 9.99996 ± 1e-4, 0.012345 ± 4e-4", "('1 ± 2', '1.00000(1)e1', '1.23(4)e-2')",
         lambda: repr(tuple(str(Estimate(v, e, "")) for v, e in ((1.0, 2.0), (9.99996, 1e-4), (0.012345, 4e-4))))),
        # 1.234 ± 0.0097: 10 units of 10⁻³, so one decimal fewer and 1 unit of 10⁻²
        ("Estimate text of 1.234 ± 0.0097 (the error's digit rounds up to 10)", "'1.23(1)e0'",
         lambda: repr(str(Estimate(1.234, 0.0097, "")))),
        # an error of one unit of the last digit, exactly or to 1e-9 after a decimal is dropped (0.01 − 10⁻¹³: 9.99…
        # units of 10⁻³ round to 10, so 1 unit of 10⁻²), stays 1 — not rounded up past rounding; an error equal to the
        # value is printed as value ± error (no significant digit)
        ("Estimate text of 1.23 ± 0.01, 1.234 ± (0.01 − 10⁻¹³) and 2 ± 2", "('1.23(1)e0', '1.23(1)e0', '2 ± 2')",
         lambda: repr(tuple(str(Estimate(v, e, "")) for v, e in ((1.23, 0.01), (1.234, 0.01 - 1e-13), (2.0, 2.0))))),
        ("MatrixEstimate with an error −0.5", "ValueError: a MatrixEstimate's errors must be non-negative",
         lambda: _outcome(MatrixEstimate, np.zeros(2), np.array([0.0, -0.5]), "")),
        ("integer of 3.0 and 3.5", ("(3, 'DeepinitError: n must be an integer",),
         lambda: repr((integer(3.0, "n", 0), _outcome(integer, 3.5, "n", 0)))),
    ])


class _MemoryLimit:
    """``DEEPINIT_MEMORY_GB`` set for a block (restored after): with a limit of 1e-12 GiB every simulation is refused
    before it allocates anything, and its refusal states the working set its cost model estimated."""

    def __init__(self, gb: str):
        self.gb, self.old = gb, None

    def __enter__(self):
        self.old = os.environ.get("DEEPINIT_MEMORY_GB")
        os.environ["DEEPINIT_MEMORY_GB"] = self.gb

    def __exit__(self, *exc):
        if self.old is None:
            os.environ.pop("DEEPINIT_MEMORY_GB", None)
        else:
            os.environ["DEEPINIT_MEMORY_GB"] = self.old


def _estimated_gib(fn, *args, **kwargs) -> str:
    """The working set (GiB, 3 digits) in ``fn``'s refusal under a limit of 1e-12 GiB, or what happened instead."""
    with _MemoryLimit("1e-12"):
        got = _outcome(fn, *args, **kwargs)
    return got.split("needs about ")[1].split(" GiB")[0] if "needs about " in got else got


def _file_size_text() -> str:
    """The size a dataset file's refusal states: a compressed .npz holding x (512 × 512 zeros, 2 MiB as float64) and
    y, read under a memory limit of 1e-12 GiB."""
    from numerics.datasets import check_file
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "big.npz")
        np.savez_compressed(path, x=np.zeros((512, 512)), y=np.zeros(0))
        with _MemoryLimit("1e-12"):
            got = _outcome(check_file, path)
    return got[got.find("("):got.find(")") + 1] if "MiB" in got else got


def _one_core(available_cores) -> str:
    """``available_cores()`` while this process is pinned to one core (its affinity restored after): 1, not the
    machine's count. Where affinity cannot be set, the machine's count."""
    if not hasattr(os, "sched_setaffinity"):
        return repr(available_cores() == max(1, os.cpu_count() or 1))
    old = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {min(old)})
        return repr(available_cores() == 1)
    finally:
        os.sched_setaffinity(0, old)


def _engine_contracts(canary) -> list:
    """What the simulators and quadratures promise beyond their values, each at an input where a wrong comparison,
    default or formula changes it: the cost models' working sets (counted here by hand from the documented models),
    the refusals of malformed arguments, the native torch functions and a
    three-piece ``Piecewise``, the mpmath route's text, the cores a process may use."""
    import sympy as sp
    import torch

    import numerics
    from numerics.bn_chain import bn_sphere_grams, simulate_bn_chain
    from numerics.covariance_sde import simulate_correlation_sde
    from numerics.datasets import describe_dataset, load_dataset
    from numerics.bn_kernels import bn_forward_map_mc
    from numerics.bn_meanfield import bn_meanfield_map_laplace, classify_covariance
    from numerics.isometry_mlp import run_isometry_mlp
    from numerics.jacobian import jacobian_moments_mc
    from numerics.mlp import simulate_mlp
    from numerics.ntk import empirical_kernels
    from numerics.threads import available_cores
    from theory import activation
    from theory._torch_lambdify import torch_callable
    from theory.gaussian import gaussian_expectation

    def native(name):
        expr = activation(name).expr
        return torch_callable(expr, *expr.free_symbols)
    x = sp.Symbol("x")
    three = sp.Piecewise((-1, x < -1), (x, x < 1), (1, True))   # hard tanh: three pieces
    t = torch.tensor([-2.0, 0.0, 0.5, 2.0], dtype=torch.float64)
    sde = lambda: simulate_correlation_sde(0.5, 0.5, 0.3, 0.0, 0.01, 4).values  # noqa: E731 - T = 0: ρ₀ only
    xy = (np.arange(40.0).reshape(20, 2), np.arange(20) % 2)
    X2 = np.array([[1.0, 0.0, 0.0, 0.0], [0.6, 0.8, 0.0, 0.0]])
    # a BSB2 matrix (groups {0, 1}, {2, 3}) scaled by 100, with a symmetric perturbation 1e-7 of its norm
    bsb2 = 100 * (np.kron(np.array([[1.0, -0.5], [-0.5, 1.0]]), np.ones((2, 2))) + np.eye(4))
    bump = np.zeros((4, 4))
    bump[0, 2] = bump[2, 0] = 1e-7 * np.linalg.norm(bsb2) / np.sqrt(2)   # not block-constant
    lopsided = np.eye(4) + 0.1
    lopsided[0, 1] += 0.05
    return _table(canary, [
        # 8 B · 2 seeds · 4·16·4 (exact: a few [seeds, width, n] tensors) = 4096 B
        ("simulate_bn_chain's working set, width 16, n 4, 2 seeds", "3.81e-06",
         lambda: _estimated_gib(simulate_bn_chain, "relu", 16, 4, 3, seeds=2, device="cpu")),
        # 8 B · (2·8 + 4·2·8·2) without backprop = 1152 B
        ("simulate_mlp's working set without backprop, width 8, 2 inputs, 2 seeds", "1.07e-06",
         lambda: _estimated_gib(simulate_mlp, "tanh", 1.5, 0.0, 8, 3, X2, seeds=2, method="exact", device="cpu")),
        # with backprop, + 8 B · depth 3 · 4 · 2 seeds · w 8 · n 2 = 3072 B: 4224 B
        ("simulate_mlp's working set with backprop, width 8, 2 inputs, 2 seeds", "3.93e-06",
         lambda: _estimated_gib(simulate_mlp, "tanh", 1.5, 0.0, 8, 3, X2, seeds=2, method="exact", device="cpu",
                                backprop=True)),
        # 8 B · (depth·w² + d·w) · (2 + n) = 8 · (2·64 + 4·8) · 4 = 5120 B
        ("empirical_kernels' working set, width 8, depth 2, 2 inputs of 4", "4.77e-06",
         lambda: _estimated_gib(empirical_kernels, "tanh", X2, width=8, depth=2, sigma_w2=1.5, seeds=2)),
        ("run_isometry_mlp with 2 widths for depth 3", "DeepinitError: widths: one width per layer 1..3, got 2",
         lambda: _outcome(run_isometry_mlp, "relu", 8, np.eye(2), 3, widths=[8, 8])),
        ("bn_sphere_grams whitened by a finite 5×5 matrix for n = 4",
         "DeepinitError: whiten: a finite 4×4 matrix is needed",
         lambda: _outcome(bn_sphere_grams, "relu", 4, 16, 3, whiten=np.eye(5))),
        ("simulate_correlation_sde to T = 0", "[0.3, 0.3, 0.3, 0.3]",
         lambda: repr(np.asarray(sde()).ravel().tolist())),
        ("load_dataset of arrays with test_fraction 0.6",
         "DeepinitError: test_fraction = 0.6 must be in [0.05, 0.5]",
         lambda: _outcome(load_dataset, xy, test_fraction=0.6)),
        ("describe_dataset of the digits", ("data: scikit-learn digits (8×8, 10 classes, ", "a substitute for MNIST"),
         lambda: describe_dataset("digits", "MNIST", "smaller")[0]),
        ("numerics' lazy submodule bn_layer", "numerics.bn_layer",
         lambda: numerics.__getattr__("bn_layer").__name__),
        ("classify_covariance of a BSB2 matrix, and of it ×100 moved by 1e-7 of its norm",
         "('BSB2 (groups of 2 and 2)', 'BSB2 (groups of 2 and 2)')",
         lambda: repr((str(classify_covariance(bsb2 / 100)), str(classify_covariance(bsb2 + bump))))),
        ("the BN mean-field map of a Σ asymmetric by 0.05", "DeepinitError: Σ must be symmetric",
         lambda: _outcome(bn_meanfield_map_laplace, lopsided)),
        ("bn_forward_map_mc at Σ = 11ᵀ (every draw constant over the batch)",
         ("DegenerateBatchError: Gh = 0 for a draw",),
         lambda: _outcome(bn_forward_map_mc, "relu", np.ones((4, 4)), samples=2)),
        ("jacobian_moments_mc's default seeds (documented: 8)", "8",
         lambda: repr(jacobian_moments_mc("identity", 1.0, 0.0, 1, width=4).seeds)),
        ("native torch functions of GELU and SiLU", "(True, True)",
         lambda: repr((native("gelu") is torch.nn.functional.gelu, native("silu") is torch.nn.functional.silu))),
        ("a three-piece Piecewise in torch at −2, 0, 0.5, 2", "[-1.0, 0.0, 0.5, 1.0]",
         lambda: repr(torch_callable(three, x)(t).tolist())),
        ("E[Z − 1] by mpmath: value and text", "(-1.0, '-1.0')",
         lambda: repr((lambda e: (e.value, e.text))(gaussian_expectation(lambda u: u - 1, 1.0, dps=15)))),
        ("the cores this process may use, pinned to one", "True", lambda: _one_core(available_cores)),
    ])


def _limits(canary) -> list:
    """The simulators' guards at their limit *and* one past it, and the cost models a guard passes to: a working set
    in a refusal under a limit of 1e-12 GiB shows that the arguments were accepted (the memory check comes after
    every argument check) without running anything. Each working set is counted here by hand from the documented
    model, at sizes where each term of it moves the third digit."""
    from numerics.bn_chain import bn_sphere_grams
    from numerics.bn_meanfield import simulate_bn_gradients
    from numerics.covariance_sde import Shape
    from numerics.datasets import load_dataset, raw_arrays
    from numerics.ensembles import train_bn_mlp_ensemble, train_isometry_mlp_ensemble
    from numerics.isometry_mlp import run_isometry_mlp
    from numerics.jacobian import jacobian_moments_mc
    from numerics.training import train_bn_mlp, train_isometry_mlp
    from theory.bn_meanfield import backward_map_quadrature
    from theory.gaussian import bivariate_expectation
    from theory.jacobian import jacobian_spectrum_moments
    from theory.meanfield_depth import correlation_trajectory
    xy = (np.arange(40.0).reshape(20, 2), np.arange(20) % 2)     # 15 training samples, 2 classes
    G0 = np.array([[1.0, 0.5], [0.5, 1.0]])

    def trained(probe):
        return _estimated_gib(train_isometry_mlp, xy, "relu", 2, 8, 4, 0, lr=0.1, probe=probe)
    return _table(canary, [
        # 8 B · 2 seeds · (4·8·2 + 8²) = 2048 B with the dense weights, 1024 B without
        ("run_isometry_mlp's working set, width 8, n 2, 2 seeds, dense and exact", "('1.91e-06', '9.54e-07')",
         lambda: repr(tuple(_estimated_gib(run_isometry_mlp, "relu", 8, G0, 1, 2, method=m)
                            for m in ("dense", "exact")))),
        # 8 B · (3·depth·w² + 4·n_train·w) = 8 · (3·2·64 + 4·15·8) = 6912 B: a probe of 2 (the limit) and of
        # width − 1 = 7 (the other limit) pass the guard; 1 and 8 do not
        ("train_isometry_mlp with a probe of 2 and of 7 samples at width 8 (the limits)", "('6.44e-06', '6.44e-06')",
         lambda: repr((trained([0, 1]), trained(list(range(7)))))),
        # probe indices are training-sample indices: 14 is the last of 15, 15 is past them
        ("train_isometry_mlp with probe indices 14 and 15 of 15 training samples",
         "('6.44e-06', 'DeepinitError: probe index = 15 must be in [0, 14]')",
         lambda: repr((trained([0, 14]), trained([0, 15])))),
        ("train_isometry_mlp with a probe of 8 samples at width 8",
         "DeepinitError: probe: between 2 and width − 1 = 7 samples, got 8", lambda: trained(list(range(8)))),
        # two members: 2 · 6912 B
        ("train_isometry_mlp_ensemble's working set, 2 members", "1.29e-05",
         lambda: _estimated_gib(train_isometry_mlp_ensemble, xy, "relu", 2, 8, 4, 0, lr=0.1, seeds=[0, 1])),
        # 2 members · 4 B · (6·depth·B·w + 3·depth·w²) = 2 · 4 · (6·3·4·8 + 3·3·64) = 9216 B (depth 3: a factor
        # of 6·depth written 6 % depth would vanish)
        ("train_bn_mlp_ensemble's working set, 2 members, depth 3, width 8, batch 4", "8.58e-06",
         lambda: _estimated_gib(train_bn_mlp_ensemble, xy, "relu", 3, 8, 4, 1, lr=0.1, seeds=[0, 1])),
        # 8 B · 4 · w² = 8192 B at width 16
        ("the Jacobian's working set, width 16", "7.63e-06",
         lambda: _estimated_gib(jacobian_moments_mc, "tanh", 1.5, 0.0, 2, width=16, seeds=2)),
        # test fractions 0.5 and 0.05 are the limits: 10 and 1 of 20 samples held out (0.6 is refused, above)
        ("load_dataset of arrays with test_fraction 0.5 and 0.05 (the limits)", "(10, 1)",
         lambda: repr(tuple(len(load_dataset(xy, test_fraction=f).x_test) for f in (0.5, 0.05)))),
        # labels of shape (20, 1), one past the 1-D labels the loader takes: a column of labels from a user's file
        ("load_dataset of arrays with labels of shape (20, 1)", "DeepinitError: arrays: labels must be a non-empty "
         "1-D array", lambda: _outcome(load_dataset, (xy[0], xy[1].reshape(-1, 1)))),
        # one label fewer and one more than the 20 inputs: refused before the permutation either way
        ("load_dataset of 20 inputs with 19 and 21 labels",
         "DeepinitError: as many labels as inputs are needed (x 20 vs y 19) | DeepinitError: as many labels as "
         "inputs are needed (x 20 vs y 21)",
         lambda: " | ".join(_outcome(load_dataset, (xy[0], np.arange(k) % 2)) for k in (19, 21))),
        # inputs past 1e150 are divided by their largest entry before standardising (scale-free): the features of
        # 1e200·x are those of x
        ("load_dataset of 1e200·x against x", "True", lambda: repr(bool(np.allclose(
            load_dataset((xy[0] * 1e200, xy[1])).x_train, load_dataset(xy).x_train, rtol=1e-6, atol=1e-6)))),
        # a 512 × 512 float64 array is 2 MiB (its header is read, not its data): the size in the refusal
        ("a dataset file of 2 MiB under a limit of 1e-12 GiB", "(2 MiB as float64)", lambda: _file_size_text()),
        # depth 1 is the limit: 4 B · (6·1·B 4·w 8 + 3·1·w²) = 1536 B; depth 0 is refused
        ("train_bn_mlp at depth 1 (the limit) and 0", "('1.43e-06', 'DeepinitError: depth = 0 must be in [1, 2000]')",
         lambda: repr((_estimated_gib(train_bn_mlp, xy, "relu", 1, 8, 4, 1, lr=0.1),
                       _outcome(train_bn_mlp, xy, "relu", 0, 8, 4, 1, lr=0.1)))),
        # batch size 2 is the limit: 8 B · 4 · depth 3 · 2 seeds · B 2 · width 8 = 3072 B; 1 is refused
        ("simulate_bn_gradients at batch size 2 (the limit) and 1",
         "('2.86e-06', 'DeepinitError: need batch size ≥ 2, width ≥ 2, depth ≥ 1 and seeds ≥ 1')",
         lambda: repr(tuple(_estimated_gib(simulate_bn_gradients, "relu", 8, b, 3, seeds=2, device="cpu")
                            for b in (2, 1)))),
        # 10⁷ repetitions is the limit (8 B · 10⁷ · (n² + …) = 0.0938 GiB at n 4, d 8); 10⁷ + 1 is refused
        ("bn_sphere_grams with 10⁷ repetitions (the limit) and 10⁷ + 1",
         "('0.0938', 'DeepinitError: reps = 10000001 must be in [1, 10000000]')",
         lambda: repr(tuple(_estimated_gib(bn_sphere_grams, "relu", 4, 8, r) for r in (10 ** 7, 10 ** 7 + 1)))),
        ("jacobian_spectrum_moments with q¹ = −0.5", "DeepinitError: q1 = -0.5 must be a finite number ≥ 0",
         lambda: _outcome(jacobian_spectrum_moments, "tanh", 1.5, 0.0, 2, q1=-0.5)),
        # |q₁₂| = √(q₁₁q₂₂) is the limit (c = ±1: E relu(u)relu(2u) = 2·½ and disjoint supports); 1 + 5e-8 past it
        # is refused (the tolerance is 1e-12 relative)
        # a covariance past the bound by a rounding (10⁻¹³ relative) is taken as the bound
        ("bivariate_expectation of ReLU at q₁₂ = 2(1 + 1e-13), √(q₁₁q₂₂) = 2", "1.0",
         lambda: repr(round(bivariate_expectation("relu", "relu", 1.0, 4.0, 2.0 * (1 + 1e-13)).value, 9))),
        ("bivariate_expectation of ReLU at q₁₂ = ±√(q₁₁q₂₂) (the limit) and 1 + 5e-8 past it",
         "(1.0, 0.0); DeepinitError: |q12| = 2.0000000999999998 exceeds √(q11 q22) = 2: not a covariance",
         lambda: f"{tuple(bivariate_expectation('relu', 'relu', 1.0, 4.0, c).value for c in (2.0, -2.0))}; "
                 f"{_outcome(bivariate_expectation, 'relu', 'relu', 1.0, 4.0, 2.0000001)}"),
        # c⁰ = ±1 is the limit: accepted, as the next check's refusal (of q = 0) shows, without running anything
        ("correlation_trajectory at c⁰ = −1, 1 (the limits) and −1 − 1e-7",
         "('DeepinitError: the length q must be > 0', 'DeepinitError: the length q must be > 0', "
         "'DeepinitError: c0 = -1.0000001 must lie in [−1, 1]')",
         lambda: repr(tuple(_outcome(correlation_trajectory, "relu", 2.0, 0.0, c, 3, q=0.0)
                            for c in (-1.0, 1.0, -1.0000001)))),
        ("the covariance SDE's smooth shape with a = 0", "DeepinitError: the shaping constant a must be positive "
         "(got 0.0)", lambda: _outcome(Shape, "smooth", 16, a=0.0)),
        # 2·nodes^(B−1) ≤ 4·10⁶ quadrature points: at B = 4, 125 nodes make 3 906 250 and 126 make 4 000 752
        ("backward_map_quadrature at B = 4 with 126 nodes", "DeepinitError: 4000752 quadrature points exceed 4·10⁶",
         lambda: _outcome(backward_map_quadrature, "relu", np.eye(4), np.eye(4), nodes=126)),
        # any name but "digits", before it in the alphabet or after, is not a registered dataset
        ("raw_arrays of 'cifar10', 'mnist' and 'digits'", "(None, None, (1797, 64))",
         lambda: _outcome(lambda: (raw_arrays("cifar10"), raw_arrays("mnist"), raw_arrays("digits")[0].shape))),
    ])


def canaries(canary) -> list:
    """Every input canary, built with ``canary(name, expected, observed, passed)`` (:class:`verify.selftest.Canary`).

    Parameters
    ----------
    canary : callable
        The canary type.

    Returns
    -------
    list
        The parameter, formula, expectations, store, estimate, engine-contract and limit canaries, in that order.

    Examples
    --------
    >>> from verify.selftest import Canary
    >>> from verify.selftest_inputs import canaries
    >>> got = canaries(Canary)
    >>> len(got), all(c.passed for c in got)
    (85, True)
    """
    out = []
    for label, group in (("parameter kinds", _parameters), ("formula guards", _formulas),
                         ("expectations file", _expectations), ("store", _store), ("estimate text", _estimates),
                         ("engine contracts", _engine_contracts), ("limits", _limits)):
        try:
            out += group(canary)
        except Exception as exc:  # noqa: BLE001 - a group that crashes is a failed canary, never a traceback
            out.append(canary(f"the {label} canaries", "no crash", f"{type(exc).__name__}: {str(exc)[:200]}", False))
    return out
