"""Known-answer canaries of what a run reads and keeps: the parameter kinds, the activation-formula guards, the
expectations file, the shared store and the text of an estimate (part 10 of :mod:`verify.selftest`).

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


def _table(canary, cases) -> list:
    """One canary per (name, expected, call): passed when the call's outcome equals (or, for a tuple of fragments,
    starts with and contains) the expected text."""
    out = []
    for name, expected, call in cases:
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
        ("seed of 2³² − 1 and 2³²", ("4294967295; ValueError: --seed '4294967296' must be in [0, 4294967295]",),
         lambda: f"{params.seed('4294967295')}; {_outcome(params.seed, '4294967296')}"),
        ("learning_rate of 0, 10 and 10.5", ("0.0, 10.0; ValueError: learning rate 10.5 must be in (0, 10]",),
         lambda: f"{params.learning_rate('0')}, {params.learning_rate('10')}; "
                 f"{_outcome(params.learning_rate, '10.5')}"),
    ])


def _formulas(canary) -> list:
    """The guards of an activation formula (:func:`theory.formula.parse_formula`) at their edges."""
    from theory.formula import parse_formula
    big = "1" + "0" * 300           # 10³⁰⁰, 301 digits: the largest literal allowed
    long_name = "frobnicate_the_activation_function_x"
    return _table(canary, [
        ("a 301-digit literal (10³⁰⁰)", f"{big}*x", lambda: str(parse_formula(f"x*{big}"))),
        ("a 302-digit literal", ("ActivationError: a number in ", "is larger than 1e300"),
         lambda: _outcome(parse_formula, f"x*{big}0")),
        ("0**0", "ActivationError: 0 raised to a non-positive power in 'x + 0**0'",
         lambda: _outcome(parse_formula, "x + 0**0")),
        ("0**x", "ActivationError: a power of '0' in '0**x*x': the base must be a positive number",
         lambda: _outcome(parse_formula, "0**x*x")),
        ("exp(1000), exp(690)", "(\"ActivationError: a number in 'x*exp(1000)' is larger than 1e300\", "
         "'x*exp(690)')", lambda: repr((_outcome(parse_formula, "x*exp(1000)"), str(parse_formula("x*exp(690)"))))),
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
    return out


def _estimates(canary) -> list:
    """The text reports print for a value and its error (:class:`theory.results.Estimate`), and the refusal of a
    negative error (:class:`theory.results.MatrixEstimate`); the integers :func:`theory.validate.integer` takes."""
    from theory.results import Estimate, MatrixEstimate
    from theory.validate import integer
    return _table(canary, [
        ("Estimate text of 1 ± 2, 9.99996 ± 1e-4, 0.012345 ± 4e-4", "('1 ± 2', '1.00000(1)e1', '1.23(4)e-2')",
         lambda: repr(tuple(str(Estimate(v, e, "")) for v, e in ((1.0, 2.0), (9.99996, 1e-4), (0.012345, 4e-4))))),
        ("MatrixEstimate with an error −0.5", "ValueError: a MatrixEstimate's errors must be non-negative",
         lambda: _outcome(MatrixEstimate, np.zeros(2), np.array([0.0, -0.5]), "")),
        ("integer of 3.0 and 3.5", ("(3, 'DeepinitError: n must be an integer",),
         lambda: repr((integer(3.0, "n", 0), _outcome(integer, 3.5, "n", 0)))),
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
        The parameter, formula, expectations, store and estimate canaries, in that order.

    Examples
    --------
    >>> from verify.selftest import Canary
    >>> from verify.selftest_inputs import canaries
    >>> got = canaries(Canary)
    >>> len(got), all(c.passed for c in got)
    (30, True)
    """
    out = []
    for label, group in (("parameter kinds", _parameters), ("formula guards", _formulas),
                         ("expectations file", _expectations), ("store", _store), ("estimate text", _estimates)):
        try:
            out += group(canary)
        except Exception as exc:  # noqa: BLE001 - a group that crashes is a failed canary, never a traceback
            out.append(canary(f"the {label} canaries", "no crash", f"{type(exc).__name__}: {str(exc)[:200]}", False))
    return out
