"""User formulas for activations: a whitelist parser with limits decided before any evaluation.

:func:`parse_formula` reads a formula such as ``"x*erf(x)"`` with Python's ``ast`` and builds the sympy
expression itself; nothing is passed to ``eval`` or ``sympify``. Only numbers, the variable ``x``, the
constants ``pi`` and ``e``, ``+ - * / **`` (``^`` is a power) and the functions of :data:`ALLOWED_FUNCTIONS`
are accepted. Every limit is checked on the syntax tree or on bounded numbers *before* sympy computes
anything, so that no 40-character formula can make it work for minutes:

* at most :data:`MAX_FORMULA_LENGTH` characters, :data:`MAX_NODES` syntax nodes, nesting depth :data:`MAX_DEPTH`;
* every number, typed or computed from numbers, has magnitude in [1e-300, 1e300] or is 0 — a power of two
  numbers is estimated in log space first (``(9**64)**64`` is refused without computing 9^4096);
* every power of an expression in ``x`` has a numeric exponent of size at most :data:`MAX_POWER` (also after
  sympy merges ``(x**64)**64`` into ``x**4096``);
* floats are kept exactly as written: ``0.333333333333`` is the rational 333333333333/10^12, not 1/3, and
  ``x**64.0000001`` keeps its exponent (and so is not real for x < 0).

:func:`growth_probe` evaluates a formula at large |x| in log space with guards on exp/sinh/cosh/powers, so that
``exp(exp(exp(x)))`` is "grows too fast" at once instead of an mpmath computation of e^(e^(e^80)).
:func:`time_limit` is a backstop around the sympy analyses (kinks, poles) of a formula.
"""
from __future__ import annotations

import ast
import contextlib
import difflib
import math
import signal
import threading
import time
from fractions import Fraction
from typing import Callable

import mpmath
import sympy as sp

from .errors import ActivationError

x = sp.Symbol("x", real=True)

MAX_FORMULA_LENGTH = 500
MAX_NODES = 200
MAX_DEPTH = 64
MAX_POWER = 64
#: largest and smallest non-zero magnitude of any number in a formula
MAX_MAGNITUDE_LOG10 = 300
#: seconds the analysis of one formula (parse, kinks, poles, square-integrability probe) may take
ANALYSIS_SECONDS = 5.0


def _sigmoid(z):
    return 1 / (1 + sp.exp(-z))


def _relu(z):
    return sp.Max(z, 0)


def _softplus(z):
    return sp.log(1 + sp.exp(z))


def _step(z):
    return sp.Heaviside(z, sp.Rational(1, 2))


#: function names a user formula may call, and the sympy function each becomes (with its number of arguments).
ALLOWED_FUNCTIONS: dict[str, Callable] = {
    "exp": sp.exp, "log": sp.log, "sqrt": sp.sqrt,
    "sin": sp.sin, "cos": sp.cos, "tan": sp.tan,
    "sinh": sp.sinh, "cosh": sp.cosh, "tanh": sp.tanh,
    "atan": sp.atan, "arctan": sp.atan, "asinh": sp.asinh,
    "erf": sp.erf, "erfc": sp.erfc,
    "abs": sp.Abs, "sign": sp.sign,
    "max": sp.Max, "min": sp.Min,
    "sigmoid": _sigmoid, "relu": _relu, "softplus": _softplus,
    "step": _step, "heaviside": _step,
}
_ARITY = {"max": (2, 8), "min": (2, 8)}
#: names (other than functions) a user formula may use.
ALLOWED_NAMES = {"x": x, "pi": sp.pi, "e": sp.E}


def quote(text: str, limit: int = 80) -> str:
    """``repr`` of ``text`` cut to about ``limit`` characters (error messages never repeat a long input)."""
    text = str(text)
    if len(text) <= limit:
        return repr(text)
    return repr(text[: limit - 10]) + f"…({len(text)} characters)"


def allowed_text() -> str:
    return ("Allowed: numbers, x, pi, e, + - * / ** (or ^), and the functions "
            + ", ".join(sorted(ALLOWED_FUNCTIONS)) + ".")


def split_formulas(text: str) -> list[str]:
    """Split a comma-separated list of formulas at the commas outside parentheses: ``"max(x,0),tanh"`` →
    ``["max(x,0)", "tanh"]``. Unbalanced parentheses raise :class:`ActivationError`."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise ActivationError(f"unbalanced ')' in {quote(text)}")
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if depth != 0:
        raise ActivationError(f"unbalanced '(' in {quote(text)}")
    out.append("".join(cur).strip())
    return [t for t in out if t]


# --------------------------------------------------------------------------------------------
# time limit (a backstop: every known slow case is refused by a limit before evaluation)
# --------------------------------------------------------------------------------------------

@contextlib.contextmanager
def time_limit(seconds: float, what: str, error=None, defer=None):
    """Raise :class:`ActivationError` if the block runs longer than ``seconds`` (SIGALRM; only in the main thread
    of a POSIX process — elsewhere the block runs unlimited). An enclosing limit is kept: the shorter one wins.
    ``error``: a function returning the exception to raise instead; ``defer``: a function that, when true at the
    moment the limit expires, postpones the exception by 0.1 s (code that must not be interrupted)."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return
    prev_remaining = signal.getitimer(signal.ITIMER_REAL)[0]
    if prev_remaining and prev_remaining < seconds:
        yield  # an outer, shorter limit is already running
        return
    start = time.monotonic()

    def on_alarm(signum, frame):
        if defer is not None and defer():
            signal.setitimer(signal.ITIMER_REAL, 0.1)
            return
        if error is not None:
            raise error()
        raise ActivationError(f"{what}: gave up after {seconds:g} s (the formula is too complex to analyse)")
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if prev_remaining:  # restore the outer timer, less the time spent here
            signal.setitimer(signal.ITIMER_REAL, max(1e-3, prev_remaining - (time.monotonic() - start)))


# --------------------------------------------------------------------------------------------
# the parser
# --------------------------------------------------------------------------------------------

def parse_formula(text: str, parameters: tuple = ()) -> sp.Expr:
    """Parse a user formula such as ``"x*erf(x)"`` into a sympy expression in ``x``.

    Only a whitelist of syntax is accepted; anything else, or anything beyond the limits of this module's
    docstring, raises :class:`ActivationError` with a message naming what is allowed. ``parameters``: extra names
    allowed as real symbols (an activation *family* such as ``tanh(a*x)``, for ``verify design``); the expression
    then depends on x and those symbols. The power limits apply to the powers of x only.

    Parameters
    ----------
    text : str
        The formula (at most 500 characters): numbers, ``x``, ``pi``, ``e``, ``+ - * / **`` and the whitelisted
        functions (``exp log sqrt sin cos tanh erf abs max min relu softplus …``). Nothing reaches ``eval`` or
        ``sympify``.
    parameters : tuple of str, optional
        Names besides ``x`` allowed as real symbols.

    Returns
    -------
    sympy.Expr
        The formula in ``x`` (and the ``parameters``).

    Examples
    --------
    >>> from theory import parse_formula
    >>> parse_formula("x*erf(x)")
    x*erf(x)
    >>> parse_formula("tanh(a*x)", ("a",))
    tanh(a*x)
    >>> parse_formula("__import__('os')")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    theory.errors.ActivationError: ...
    """
    if not isinstance(text, str) or not text.strip():
        raise ActivationError("an activation formula must be a non-empty string")
    if len(text) > MAX_FORMULA_LENGTH:
        raise ActivationError(f"formula {quote(text)} is longer than {MAX_FORMULA_LENGTH} characters")
    source = text.strip().replace("^", "**")
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError) as exc:
        msg = getattr(exc, "msg", str(exc))
        raise ActivationError(f"malformed activation formula {quote(text)}: {msg}. {allowed_text()}") from None
    _check_shape(tree.body, text)
    names = dict(ALLOWED_NAMES)
    for p in parameters:
        if p in names or p in ALLOWED_FUNCTIONS or not isinstance(p, str) or not p.isidentifier():
            raise ActivationError(f"{quote(str(p), 20)} cannot be a parameter name")
        names[p] = sp.Symbol(p, real=True)
    expr = _Builder(source, text, names).build(tree.body)
    if not isinstance(expr, sp.Basic):
        expr = sp.Integer(expr)
    if not expr.free_symbols <= {x} | {names[p] for p in parameters}:
        raise ActivationError(f"formula {quote(text)} must depend on x only")
    _check_powers(expr, text)
    return expr


def _check_shape(root: ast.AST, text: str) -> None:
    count, stack = 0, [(root, 1)]
    while stack:
        node, depth = stack.pop()
        count += 1
        if depth > MAX_DEPTH:
            raise ActivationError(f"formula {quote(text)} is nested more than {MAX_DEPTH} levels deep")
        if count > MAX_NODES:
            raise ActivationError(f"formula {quote(text)} has more than {MAX_NODES} terms")
        stack.extend((c, depth + 1) for c in ast.iter_child_nodes(node))


def _check_magnitude(v: sp.Expr, text: str) -> sp.Expr:
    """A number computed in the formula stays within 1e±300 (exact rationals compare cheaply)."""
    if v.is_Rational:
        a = abs(v)
        if a != 0 and (a > sp.Integer(10) ** MAX_MAGNITUDE_LOG10 or a < sp.Rational(1, 10 ** MAX_MAGNITUDE_LOG10)):
            raise ActivationError(f"a number in {quote(text)} is outside 1e-{MAX_MAGNITUDE_LOG10}…1e{MAX_MAGNITUDE_LOG10}")
    return v


def _log10_fraction(f: Fraction) -> float:
    """log10 |f| of an exact fraction of any size (math.log10 takes big integers exactly)."""
    return math.log10(abs(f.numerator)) - math.log10(f.denominator)


def _log10_abs(v: sp.Expr) -> float | None:
    """log10 |v| of a bounded number (v is a rational or a constant expression of bounded numbers)."""
    try:
        f = float(abs(v.evalf(15)))
    except (TypeError, ValueError, OverflowError):
        return None
    if f == 0:
        return -math.inf
    return math.log10(f) if math.isfinite(f) else None


class _Builder:
    def __init__(self, source: str, text: str, names: dict | None = None):
        self.source, self.text = source, text
        self.names = ALLOWED_NAMES if names is None else names

    def build(self, node: ast.AST) -> sp.Expr:
        text = self.text
        if isinstance(node, ast.Constant):
            return self.number(node)
        if isinstance(node, ast.Name):
            if node.id in self.names:
                return self.names[node.id]
            hint = difflib.get_close_matches(node.id, list(ALLOWED_NAMES) + list(ALLOWED_FUNCTIONS), n=1)
            extra = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise ActivationError(f"name {quote(node.id, 30)} is not allowed in {quote(text)}{extra}. {allowed_text()}")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = self.build(node.operand)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp):
            return self.binop(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        raise ActivationError(f"syntax {type(node).__name__} not allowed in {quote(text)}. {allowed_text()}")

    def number(self, node: ast.Constant) -> sp.Expr:
        text = self.text
        v = node.value
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ActivationError(f"constant {quote(repr(v), 30)} not allowed in {quote(text)}. {allowed_text()}")
        if isinstance(v, float) and not math.isfinite(v):
            raise ActivationError(f"a number in {quote(text)} overflows (outside 1e±{MAX_MAGNITUDE_LOG10})")
        literal = ast.get_source_segment(self.source, node) or repr(v)
        literal = literal.replace("_", "")
        if isinstance(v, int):
            if len(literal) > MAX_MAGNITUDE_LOG10 + 1:
                raise ActivationError(f"a number in {quote(text)} is larger than 1e{MAX_MAGNITUDE_LOG10}")
            return _check_magnitude(sp.Integer(v), text)
        try:  # the decimal as written, exactly: "0.1" is 1/10, "1e-3" is 1/1000
            frac = Fraction(literal)
        except (ValueError, ZeroDivisionError):
            frac = Fraction(v)
        if frac != 0 and not (-MAX_MAGNITUDE_LOG10 <= _log10_fraction(frac) <= MAX_MAGNITUDE_LOG10):
            raise ActivationError(f"a number in {quote(text)} is outside 1e-{MAX_MAGNITUDE_LOG10}…1e{MAX_MAGNITUDE_LOG10}")
        return sp.Rational(frac.numerator, frac.denominator)

    def binop(self, node: ast.BinOp) -> sp.Expr:
        text = self.text
        left, right = self.build(node.left), self.build(node.right)
        numeric = left.is_number and right.is_number
        if isinstance(node.op, ast.Add):
            out = left + right
        elif isinstance(node.op, ast.Sub):
            out = left - right
        elif isinstance(node.op, ast.Mult):
            out = left * right
        elif isinstance(node.op, ast.Div):
            if right == 0:
                raise ActivationError(f"division by zero in {quote(text)}")
            out = left / right
        elif isinstance(node.op, ast.Pow):
            out = self.power(left, right)
        else:
            raise ActivationError(f"operator {type(node.op).__name__} not allowed in {quote(text)}. {allowed_text()}")
        if numeric:
            if out.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
                raise ActivationError(f"an undefined number (like 0**-1) in {quote(text)}")
            _check_magnitude(out, text)
        return out

    def power(self, base: sp.Expr, exponent: sp.Expr) -> sp.Expr:
        text = self.text
        if exponent.is_number:
            ex = _log10_abs(exponent)
            if ex is None or ex > math.log10(MAX_POWER) + 1e-12:
                raise ActivationError(f"exponent {quote(str(exponent), 30)} too large in {quote(text)} "
                                      f"(at most {MAX_POWER} in size)")
            if base.is_number:
                # decide the size of base**exponent in log space before sympy computes it
                lb = _log10_abs(base)
                if lb is None:
                    raise ActivationError(f"a number in {quote(text)} is too large")
                if float(base.evalf(15)) < 0 and not exponent.is_Integer:
                    raise ActivationError(f"a negative number raised to a non-integer power in {quote(text)} is "
                                          "not real")
                if lb == -math.inf:
                    if float(exponent.evalf(15)) <= 0:
                        raise ActivationError(f"0 raised to a non-positive power in {quote(text)}")
                    return sp.Integer(0)
                if abs(lb * float(exponent.evalf(15))) > MAX_MAGNITUDE_LOG10:
                    raise ActivationError(f"a power in {quote(text)} is outside 1e±{MAX_MAGNITUDE_LOG10}")
        elif base.is_number:
            lb = _log10_abs(base)
            if lb is None or lb == -math.inf:
                raise ActivationError(f"a power of {quote(str(base), 30)} in {quote(text)}: the base must be a "
                                      "positive number")
            if float(base.evalf(15)) < 0:
                raise ActivationError(f"a negative number raised to a power in x in {quote(text)} is not real")
        return base ** exponent

    def call(self, node: ast.Call) -> sp.Expr:
        text = self.text
        if not isinstance(node.func, ast.Name) or node.func.id not in ALLOWED_FUNCTIONS:
            name = getattr(node.func, "id", type(node.func).__name__)
            hint = difflib.get_close_matches(str(name), list(ALLOWED_FUNCTIONS), n=1)
            extra = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise ActivationError(f"function {quote(str(name), 30)} is not allowed in {quote(text)}{extra}. "
                                  f"{allowed_text()}")
        if node.keywords:
            raise ActivationError(f"keyword arguments are not allowed in {quote(text)}")
        lo, hi = _ARITY.get(node.func.id, (1, 1))
        if not lo <= len(node.args) <= hi:
            want = f"{lo}" if lo == hi else f"{lo} to {hi}"
            raise ActivationError(f"{node.func.id} takes {want} argument(s), got {len(node.args)} in {quote(text)}")
        args = [self.build(a) for a in node.args]
        try:
            out = ALLOWED_FUNCTIONS[node.func.id](*args)
        except (ValueError, TypeError) as exc:  # max/min of a non-real argument: sympy cannot order it
            raise ActivationError(f"{node.func.id}(…) in {quote(text)} is undefined: {str(exc)[:80]}") from None
        if out.is_number:
            if out.has(sp.zoo, sp.nan, sp.oo, -sp.oo) or out.is_real is False:
                raise ActivationError(f"{node.func.id} of a number in {quote(text)} is undefined or not real")
            lv = _log10_abs(out)
            if lv is None or lv > MAX_MAGNITUDE_LOG10:
                raise ActivationError(f"a number in {quote(text)} is larger than 1e{MAX_MAGNITUDE_LOG10}")
        return out


def _check_powers(expr: sp.Expr, text: str) -> None:
    """After sympy's own merging (``(x**64)**64`` → ``x**4096``), no power of an expression in x is above the cap."""
    for sub in sp.preorder_traversal(expr):
        if isinstance(sub, sp.Rational):
            _check_magnitude(sub, text)
        if isinstance(sub, sp.Pow) and sub.base.has(x) and sub.exp.is_number:
            if abs(float(sub.exp.evalf(15))) > MAX_POWER:
                raise ActivationError(f"power {quote(str(sub), 30)} in {quote(text)}: exponents are at most "
                                      f"{MAX_POWER} in size")


# --------------------------------------------------------------------------------------------
# the growth probe: σ(r) at large |r| in log space, with guards
# --------------------------------------------------------------------------------------------

class GrowsTooFast(Exception):
    """σ(r) exceeds e^(EXP_GUARD) in size where the probe looks (``sign`` is its sign): σ² e^(−r²/2) cannot
    decay there, unless a bounded function (tanh, erf, atan, 1/·) takes it back to a finite limit."""

    def __init__(self, sign: int = 1):
        super().__init__(sign)
        self.sign = 1 if sign >= 0 else -1


class OscillatesTooFast(Exception):
    """sin/cos/tan of an argument beyond e^(EXP_GUARD): no quadrature can resolve σ there."""


class GrowthUndecided(Exception):
    """The probe cannot tell σ(r)'s size (the log of a huge sum whose terms could cancel, …): refuse as undecided,
    never as "not square-integrable"."""


class NotRealValued(Exception):
    """σ(r) is not a real number (log of a negative, a non-integer power of a negative, a pole)."""


#: the probe refuses to evaluate e^u for u above this (then σ² e^{-r²/2} ≥ e^{2·10⁴ − 3200} at r ≤ 80)
EXP_GUARD = 1.0e4

_MP_FUNCS = {
    sp.sin: mpmath.sin, sp.cos: mpmath.cos, sp.tan: mpmath.tan, sp.tanh: mpmath.tanh, sp.atan: mpmath.atan,
    sp.asinh: mpmath.asinh, sp.erf: mpmath.erf, sp.erfc: mpmath.erfc,
}


def growth_probe(expr: sp.Expr, r) -> mpmath.mpf:
    """σ(r) by a guarded recursive mpmath evaluation (the working precision is the caller's).

    Raises :class:`GrowsTooFast` before any e^u with u > EXP_GUARD (and any power whose log-size is as large),
    :class:`NotRealValued` for a non-real value or a pole. Cost: one pass over the tree."""
    return _ev(expr, mpmath.mpf(r))


def _log_abs(e, r):
    """log|e(r)| for an e too large for :func:`_ev`, in log space: e^u → u, cosh u and sinh u → |u| − log 2, products
    → sums, numeric powers → p·log,
    sums of positive terms → log-sum-exp. A sum whose terms could cancel (a negative term beyond e^EXP_GUARD) or any
    other form is beyond the probe: :class:`GrowthUndecided`."""
    try:
        v = _ev(e, r)
        if v == 0:
            raise GrowthUndecided("log of a term that vanishes")
        return mpmath.log(abs(v))
    except GrowsTooFast:
        pass
    if isinstance(e, sp.exp):
        return _ev(e.args[0], r)
    if isinstance(e, (sp.cosh, sp.sinh)):   # |u| > EXP_GUARD: cosh u, |sinh u| = e^|u|/2 to a relative e^(−2|u|)
        return abs(_ev(e.args[0], r)) - mpmath.log(2)
    if isinstance(e, sp.Mul):
        return mpmath.fsum(_log_abs(a, r) for a in e.args)
    if isinstance(e, sp.Pow) and e.exp.is_number:
        return _ev(e.exp, r) * _log_abs(e.base, r)
    if isinstance(e, sp.Add):
        logs = []
        for a in e.args:
            try:
                v = _ev(a, r)
                if v < 0:
                    raise GrowthUndecided("a negative term next to one beyond e^EXP_GUARD")
                if v > 0:
                    logs.append(mpmath.log(v))
            except GrowsTooFast as exc:
                if exc.sign < 0:
                    raise GrowthUndecided("a negative term beyond e^EXP_GUARD in a sum") from None
                logs.append(_log_abs(a, r))
        top = max(logs)
        return top + mpmath.log(mpmath.fsum(mpmath.exp(t - top) for t in logs))
    raise GrowthUndecided(f"log of {type(e).__name__} beyond e^EXP_GUARD")


def _ev(e, r):
    if e is x:
        return r
    if e.is_Number or e.is_NumberSymbol:
        return mpmath.mpf(e.evalf(mpmath.mp.dps + 5))
    if isinstance(e, sp.Add):
        vals, signs = [], set()
        for a in e.args:
            try:
                vals.append(_ev(a, r))
            except GrowsTooFast as exc:
                signs.add(exc.sign)
        if len(signs) == 1:
            raise GrowsTooFast(signs.pop())
        if signs:   # e^(x³) − e^(x³/2): which term wins is beyond the probe (never the sign of the first one met)
            raise GrowthUndecided("a sum of terms beyond e^EXP_GUARD of both signs")
        return mpmath.fsum(vals)
    if isinstance(e, sp.Mul):
        out, huge = mpmath.mpf(1), None
        for a in e.args:
            try:
                out *= _ev(a, r)
            except GrowsTooFast as exc:
                huge = exc.sign if huge is None else huge * exc.sign
        if huge is not None:
            if out == 0:
                return out
            raise GrowsTooFast(huge * (1 if out > 0 else -1))
        return out
    if isinstance(e, sp.Pow):
        p = _ev(e.exp, r)
        try:
            b = _ev(e.base, r)
        except GrowsTooFast as exc:
            if p < 0:
                return mpmath.mpf(0)
            raise GrowsTooFast(exc.sign if (e.exp.is_Integer and int(e.exp) % 2) else 1) from None
        if b == 0:
            if p <= 0:
                raise NotRealValued("pole")
            return mpmath.mpf(0)
        if b < 0 and not (e.exp.is_Integer or (e.exp.is_Rational and e.exp.q % 2 == 1)):
            raise NotRealValued("a non-integer power of a negative number")
        size = p * mpmath.log(abs(b))
        if size > EXP_GUARD:
            raise GrowsTooFast(-1 if (b < 0 and e.exp.is_Integer and int(e.exp) % 2) else 1)
        if size < -EXP_GUARD:
            return mpmath.mpf(0)
        if b < 0:
            # odd-denominator rational power of a negative base: the real root
            return (-1 if int(e.exp.p) % 2 else 1) * mpmath.power(-b, p)
        return mpmath.power(b, p)
    if isinstance(e, sp.exp):
        u = _ev(e.args[0], r)
        if u > EXP_GUARD:
            raise GrowsTooFast()
        return mpmath.mpf(0) if u < -EXP_GUARD else mpmath.exp(u)
    if isinstance(e, (sp.sinh, sp.cosh)):
        u = _ev(e.args[0], r)
        if abs(u) > EXP_GUARD:
            raise GrowsTooFast(int(mpmath.sign(u)) if isinstance(e, sp.sinh) else 1)
        return mpmath.sinh(u) if isinstance(e, sp.sinh) else mpmath.cosh(u)
    if isinstance(e, (sp.tanh, sp.erf, sp.erfc, sp.atan, sp.sign, sp.Heaviside)):
        try:
            _ev(e.args[0], r)
        except GrowsTooFast as exc:  # a bounded function of a huge argument: its limit
            s = exc.sign
            limit = {sp.tanh: s, sp.erf: s, sp.erfc: 1 - s, sp.atan: s * mpmath.pi / 2, sp.sign: s,
                     sp.Heaviside: (1 + s) // 2}[e.func]
            return mpmath.mpf(limit)
    if isinstance(e, (sp.sin, sp.cos, sp.tan)):
        try:
            _ev(e.args[0], r)
        except GrowsTooFast:
            raise OscillatesTooFast() from None
    if isinstance(e, sp.log):
        try:
            u = _ev(e.args[0], r)
        except GrowsTooFast as exc:   # log of a number beyond e^EXP_GUARD: evaluated in log space (log(1 + e^(x³)))
            if exc.sign < 0:
                raise NotRealValued("log of a non-positive number") from None
            return _log_abs(e.args[0], r)
        if u <= 0:
            raise NotRealValued("log of a non-positive number")
        return mpmath.log(u)
    if isinstance(e, sp.Abs):
        return abs(_ev(e.args[0], r))
    if isinstance(e, sp.sign):
        return mpmath.sign(_ev(e.args[0], r))
    if isinstance(e, sp.Heaviside):
        u = _ev(e.args[0], r)
        h0 = _ev(e.args[1], r) if len(e.args) > 1 else mpmath.mpf(0.5)
        return mpmath.mpf(1) if u > 0 else (mpmath.mpf(0) if u < 0 else h0)
    if isinstance(e, (sp.Max, sp.Min)):
        vals = [_ev(a, r) for a in e.args]
        return max(vals) if isinstance(e, sp.Max) else min(vals)
    if isinstance(e, sp.Piecewise):
        for val, cond in e.args:
            if cond is sp.true or bool(cond.subs(x, sp.Float(str(r), 30))):
                return _ev(val, r)
        raise NotRealValued("piecewise undefined")
    fn = _MP_FUNCS.get(e.func)
    if fn is not None:
        if isinstance(e, sp.tan):
            u = _ev(e.args[0], r)
            if abs(mpmath.cos(u)) < mpmath.mpf(10) ** (-mpmath.mp.dps // 2):
                raise NotRealValued("pole")
            return mpmath.tan(u)
        return fn(*[_ev(a, r) for a in e.args])
    # anything else a registry expression may hold: sympy's own evaluation at this point
    v = e.subs(x, sp.Float(str(r), mpmath.mp.dps)).evalf(mpmath.mp.dps)
    if not v.is_real:
        raise NotRealValued("not real")
    return mpmath.mpf(v)
