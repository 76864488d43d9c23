"""Activations: one object per activation, built from one sympy expression.

An :class:`Activation` carries its name, its sympy expression in the symbol ``x`` (piecewise
where needed), its breakpoints (where it is not smooth), its restriction to each smooth piece,
numeric callables for numpy, mpmath and torch derived from that one expression, and the facts
the papers need (odd/even, positive homogeneity, affine/constant, derivatives at 0).

Registry names and user formulas produce the same kind of object::

    activation("relu")            activation("x*erf(x)")       activation("sin(2*x)")

User formulas are parsed by a whitelist parser on Python's ``ast`` (:func:`parse_formula`):
only arithmetic, numbers, the variable ``x``, the constants ``pi`` and ``e`` and the functions
in :data:`ALLOWED_FUNCTIONS` are accepted. Nothing is ever passed to ``eval`` or ``sympify``.
"""
from __future__ import annotations

import difflib
import functools
import math
from dataclasses import dataclass, field
from typing import Callable

import mpmath
import numpy as np
import sympy as sp

from .errors import ActivationError
from .formula import (ALLOWED_FUNCTIONS, ALLOWED_NAMES, ANALYSIS_SECONDS, GrowsTooFast, GrowthUndecided, NotRealValued,
                      OscillatesTooFast, growth_probe, parse_formula, quote, split_formulas, time_limit, x)

__all__ = ["ALLOWED_FUNCTIONS", "ALLOWED_NAMES", "Activation", "activation", "gain_family", "parse_formula",
           "registered_names", "split_formulas", "x"]

# --------------------------------------------------------------------------------------------
# the Activation object
# --------------------------------------------------------------------------------------------

def _numpy_modules():
    from scipy import special

    def heaviside(z, h0=0.5):
        return np.heaviside(z, h0)

    return [{"erf": special.erf, "erfc": special.erfc, "Heaviside": heaviside}, "numpy"]


def _mpmath_modules():
    def heaviside(z, h0=mpmath.mpf(1) / 2):
        return mpmath.mpf(1) if z > 0 else (mpmath.mpf(0) if z < 0 else h0)

    def mp_max(*a):
        return max(a)

    def mp_min(*a):
        return min(a)

    def mp_sign(z):
        return mpmath.sign(z)

    return [{"Heaviside": heaviside, "Max": mp_max, "Min": mp_min, "sign": mp_sign}, "mpmath"]


@dataclass(frozen=True)
class Activation:
    """An activation function σ: ℝ → ℝ and the facts about it that the papers use.

    Build one with :func:`activation`. ``pieces`` are ``((lo, hi), expr)`` with ``expr`` the
    smooth (analytic) restriction of σ to the open interval ``(lo, hi)``; ``breakpoints`` are
    the finite interval ends, the only places σ may fail to be smooth.

    Attributes
    ----------
    name : str
        The registry name or the formula as given.
    expr : sympy.Expr
        σ(x) as one sympy expression in ``x``.
    breakpoints : tuple of float
        The kinks and jumps of σ (isometry paper, Section 2: σ is smooth except at finitely many points).
    pieces : tuple
        ``((lo, hi), expr)`` pairs: the smooth restriction of σ to each open interval.
    description : str
        A one-line description (registry activations).
    dual_closed_form : sympy.Expr or None
        A closed form of the dual activation σ̂(ρ) (Definition 5), in ``rho``, when one is known.
    dirac_atoms : tuple
        ``(location, weight, k)`` Dirac masses that a derivative dropped from ``expr``.

    Examples
    --------
    >>> from theory import activation
    >>> r = activation("relu")
    >>> r.name, r.expr, r.breakpoints
    ('relu', Max(0, x), (0.0,))
    >>> r.dual_closed_form
    (rho*(pi - acos(rho)) + sqrt(1 - rho**2))/(2*pi)
    >>> [round(float(v), 6) for v in r.numpy([-1.0, 2.0])]
    [0.0, 2.0]
    """

    name: str
    expr: sp.Expr
    breakpoints: tuple[float, ...] = ()
    pieces: tuple = field(default=(), compare=False)
    description: str = ""
    #: an optional closed form of the dual activation σ̂(ρ) = E σ(X)σ(Y) (Definition 5), in ``rho``
    dual_closed_form: sp.Expr | None = field(default=None, compare=False)
    #: Dirac masses that :meth:`derivative` dropped from ``expr``: ``(location, weight, k)`` stands for the term
    #: weight·δ^(k)(x − location) of the distributional derivative (k = 0: a jump of the function differentiated)
    dirac_atoms: tuple = field(default=(), compare=False)

    # -- numeric callables built from the one expression ------------------------------------
    @functools.cached_property
    def numpy(self) -> Callable[[np.ndarray], np.ndarray]:
        f = sp.lambdify(x, self.expr, modules=_numpy_modules())

        def call(z):
            z = np.asarray(z, dtype=float)
            with np.errstate(over="ignore", invalid="ignore"):
                try:
                    out = f(z)
                except OverflowError:   # an exact constant of the expression beyond float64 (erf(1e300*x)′: 10⁶⁰⁰)
                    raise ActivationError(f"{self.name}: a constant of the expression overflows float64; "
                                          "rescale the formula") from None
            return np.broadcast_to(np.asarray(out, dtype=float), z.shape).copy()
        return call

    @functools.cached_property
    def mpmath(self) -> Callable:
        return sp.lambdify(x, self.expr, modules=_mpmath_modules())

    @functools.cached_property
    def torch(self) -> Callable:
        from ._torch_lambdify import torch_callable
        return torch_callable(self.expr, x)

    # -- facts ------------------------------------------------------------------------------
    @functools.cached_property
    def is_constant(self) -> bool:
        if not self.expr.has(x):
            return True
        pts = np.linspace(-4, 4, 41)
        vals = self.numpy(pts)
        return bool(np.all(np.isfinite(vals)) and np.ptp(vals) <= 1e-13 * max(1.0, float(np.max(np.abs(vals)))))

    @functools.cached_property
    def polynomial_degree(self) -> int | None:
        """Degree if σ is a polynomial (on the whole line), else ``None``."""
        if self.breakpoints:
            return None
        try:
            poly = sp.Poly(sp.expand(self.expr), x)
        except sp.PolynomialError:
            return None
        if not all(c.is_number for c in poly.all_coeffs()):
            return None
        return poly.degree()

    @property
    def is_affine(self) -> bool:
        deg = self.polynomial_degree
        return deg is not None and deg <= 1

    @functools.cached_property
    def parity(self) -> str | None:
        """``"odd"``, ``"even"`` or ``None`` (checked on a grid and symbolically where cheap)."""
        pts = np.linspace(0.1, 5, 50)
        a, b = self.numpy(pts), self.numpy(-pts)
        if np.allclose(a, -b, rtol=1e-13, atol=1e-14):
            return "odd"
        if np.allclose(a, b, rtol=1e-13, atol=1e-14):
            return "even"
        return None

    @functools.cached_property
    def homogeneity_degree(self) -> float | None:
        """k such that σ(tx) = t^k σ(x) for all t > 0 (positive homogeneity, any real k: max(x, 0)^1.5 has k = 1.5),
        else ``None``. Decided numerically: k = log₂(σ(2x)/σ(x)) at the point of largest |σ| among six, then
        σ(tx) = t^k σ(x) at all six for t = 0.5, 2, 3.7 (relative 1e-12); k is reported to 12 decimals (1.5, not
        1.4999999999999998)."""
        pts = np.array([-3.0, -1.3, -0.4, 0.7, 1.9, 2.6])
        base = self.numpy(pts)
        if not np.any(base != 0):
            return None
        i = int(np.argmax(np.abs(base)))
        ratio = float(self.numpy(np.array([2 * pts[i]]))[0]) / float(base[i])
        if not (math.isfinite(ratio) and ratio > 0):
            return None
        k = round(math.log2(ratio), 12) + 0.0
        ok = all(np.allclose(self.numpy(t * pts), t ** k * base, rtol=1e-12, atol=1e-14) for t in (0.5, 2.0, 3.7))
        return k if ok else None

    def derivative_at_zero(self, order: int) -> sp.Expr | None:
        """σ^(order)(0) exactly, or ``None`` where σ is not smooth at 0."""
        if any(abs(b) < 1e-15 for b in self.breakpoints):
            return None
        return sp.simplify(sp.diff(self.expr, x, order).subs(x, 0))

    @property
    def has_dirac(self) -> bool:
        """True when :meth:`derivative` dropped Dirac masses at kinks (listed in :attr:`dirac_atoms`)."""
        return bool(self.dirac_atoms)

    def derivative(self, order: int = 1) -> "Activation":
        """σ′ (``order=1``), σ″ (``order=2``), … as an :class:`Activation`, by sympy differentiation.

        Away from the kinks the derivative is the classical one: ReLU′ is the step 1[x > 0] (value ½ at 0, which
        no Gaussian expectation sees), the step′ is 0. At a kink where the function differentiated jumps by J, the
        distributional derivative also has the mass J·δ(x − b): it is **dropped** from ``expr`` (and so from every
        numeric callable) and recorded in :attr:`dirac_atoms` as ``(b, J, 0)``; a mass dropped at a lower order
        comes back differentiated, ``(b, J, k + 1)`` for δ^(k+1). :attr:`has_dirac` flags either. Callers that
        need the masses (E σ″(u)σ(u) of ReLU-like σ) add them from :attr:`dirac_atoms`.

        Parameters
        ----------
        order : int
            1 to 4.

        Returns
        -------
        Activation
            Named with primes: ``"tanh′"``, ``"relu″"``.

        Examples
        --------
        >>> d = activation("tanh").derivative()
        >>> d.name, sp.simplify(d.expr - (1 - sp.tanh(x) ** 2))
        ('tanh′', 0)
        >>> r2 = activation("relu").derivative(2)
        >>> r2.expr, r2.dirac_atoms, r2.has_dirac
        (0, ((0.0, 1.0, 0),), True)
        """
        return _derivative(self, int(order))

    def __repr__(self) -> str:
        return f"Activation({self.name!r}: {self.expr})"

    def __str__(self) -> str:
        return self.name


# --------------------------------------------------------------------------------------------
# breakpoints and pieces
# --------------------------------------------------------------------------------------------

_KINK_FUNCS = (sp.Max, sp.Min, sp.Abs, sp.Heaviside, sp.sign, sp.Piecewise)


def _breakpoints(expr: sp.Expr) -> tuple[float, ...]:
    """Real points where a non-smooth sub-expression switches branch."""
    points: set = set()
    for sub in sp.preorder_traversal(expr):
        if isinstance(sub, (sp.Max, sp.Min)):
            args = sub.args
            for i in range(len(args)):
                for j in range(i + 1, len(args)):
                    points |= _real_roots(args[i] - args[j])
        elif isinstance(sub, (sp.Abs, sp.Heaviside, sp.sign)):
            points |= _real_roots(sub.args[0])
        elif isinstance(sub, sp.Piecewise):
            for _, cond in sub.args:
                if isinstance(cond, sp.core.relational.Relational):
                    points |= _real_roots(cond.lhs - cond.rhs)
    return tuple(sorted(points))


def _cheap_simplify(e: sp.Expr) -> sp.Expr:
    """sympy's simplify for an expression of at most 12 operations without sinh, cosh or tanh (it can take minutes
    on e.g. 2**x − sinh(64)); any other expression unchanged."""
    if sp.count_ops(e) <= 12 and not e.has(sp.sinh, sp.cosh, sp.tanh):
        return sp.simplify(e)
    return e


def _real_roots(e: sp.Expr) -> set:
    e = _cheap_simplify(e)
    if not e.has(x):
        return set()
    try:
        poly = sp.Poly(e, x)
        return {float(r) for r in poly.real_roots()}
    except (sp.PolynomialError, NotImplementedError):
        pass  # not a polynomial, or irrational coefficients (sympy's real_roots works over ℚ only)
    sols = sp.solveset(e, x, sp.S.Reals)
    if isinstance(sols, sp.FiniteSet):
        return {float(r) for r in sols}
    raise ActivationError(f"cannot locate the kinks of the non-smooth term {e}: the arguments of "
                          "max/min/abs/sign/step must have finitely many real zeros")


def _select_branch(expr: sp.Expr, point: float) -> sp.Expr:
    """The smooth expression that ``expr`` equals near ``point`` (not a breakpoint)."""
    p = sp.Float(point, 30)

    def visit(e):
        if isinstance(e, (sp.Max, sp.Min)):
            vals = [float(a.subs(x, p)) for a in e.args]
            idx = int(np.argmax(vals) if isinstance(e, sp.Max) else np.argmin(vals))
            return visit(e.args[idx])
        if isinstance(e, sp.Abs):
            inner = visit(e.args[0])
            return inner if float(inner.subs(x, p)) >= 0 else -inner
        if isinstance(e, sp.sign):
            return sp.Integer(1 if float(e.args[0].subs(x, p)) > 0 else -1)
        if isinstance(e, sp.Heaviside):
            return sp.Integer(1 if float(e.args[0].subs(x, p)) > 0 else 0)
        if isinstance(e, sp.Piecewise):
            for val, cond in e.args:
                if bool(cond.subs(x, p)):
                    return visit(val)
            raise ActivationError(f"piecewise expression {e} undefined at x={point}")
        if not e.args:
            return e
        return e.func(*[visit(a) for a in e.args])

    return visit(expr)


def _pieces(expr: sp.Expr, bps: tuple[float, ...]):
    ends = [-math.inf, *bps, math.inf]
    out = []
    for lo, hi in zip(ends[:-1], ends[1:]):
        if math.isinf(lo) and math.isinf(hi):
            mid = 0.0
        elif math.isinf(lo):
            mid = hi - 1.0
        elif math.isinf(hi):
            mid = lo + 1.0
        else:
            mid = 0.5 * (lo + hi)
        out.append(((lo, hi), _cheap_simplify(_select_branch(expr, mid)) if bps else expr))
    return tuple(out)


_PRIMES = {1: "′", 2: "″", 3: "‴", 4: "⁗"}


def _jumps(act: Activation) -> tuple:
    """(b, J, 0) for every kink b where σ jumps by J = σ(b⁺) − σ(b⁻) ≠ 0 (from the pieces)."""
    out = []
    for ((_, hi), left), ((lo, _), right) in zip(act.pieces[:-1], act.pieces[1:]):
        b = sp.Float(hi, 30)
        jump = float(sp.limit(right, x, b, "+") - sp.limit(left, x, b, "-"))
        if abs(jump) > 1e-14:
            out.append((float(hi), jump, 0))
    return tuple(out)


def _on_points_only(c) -> bool:
    """Whether a Piecewise condition holds on finitely many points: ``Eq(x, b)`` or a union of such."""
    return isinstance(c, sp.Eq) or (isinstance(c, sp.Or) and all(_on_points_only(a) for a in c.args))


def _drop_point_branches(expr: sp.Expr) -> sp.Expr:
    """Remove the branches of a Piecewise that hold on single points only (``Eq(x, b)``, which sympy's
    differentiation of ``x*abs(x)`` produces, or ``Eq(x, 0) | Eq(x, 1)`` from ``abs(x) - abs(x - 1)``): no Gaussian
    expectation sees them and torch cannot translate them."""
    def fix(*args):
        kept = [(v, c) for v, c in args if not _on_points_only(c)]
        if len(kept) == 1 and kept[0][1] in (True, sp.true):
            return kept[0][0]
        return sp.Piecewise(*kept) if kept else sp.Piecewise(*args)
    return expr.replace(sp.Piecewise, fix)


@functools.lru_cache(maxsize=512)
def _derivative(act: Activation, order: int) -> Activation:
    if not 1 <= order <= 4:
        raise ActivationError(f"derivative order {order} must be 1, 2, 3 or 4")
    cur = act
    for k in range(order):
        atoms = tuple((b, w, j + 1) for b, w, j in cur.dirac_atoms) + _jumps(cur)
        expr = sp.diff(cur.expr, x).replace(sp.DiracDelta, lambda *args: sp.Integer(0))
        expr = _drop_point_branches(_cheap_simplify(expr))
        bps = _breakpoints(expr)
        name = act.name + _PRIMES[k + 1]
        cur = Activation(name=name, expr=expr, breakpoints=bps, pieces=_pieces(expr, bps),
                         description=f"derivative of order {k + 1} of {act.name} (Dirac masses at kinks dropped)",
                         dirac_atoms=atoms)
    return cur


# --------------------------------------------------------------------------------------------
# the registry
# --------------------------------------------------------------------------------------------

rho = sp.Symbol("rho", real=True)

SELU_LAMBDA = sp.Float("1.0507009873554804934193349852946", 40)
SELU_ALPHA = sp.Float("1.6732632423543772848170429916717", 40)


def _relu_dual(scale=1):
    # arc-cosine kernel of degree 1 for unit-variance inputs (Cho & Saul 2009)
    return scale ** 2 * (sp.sqrt(1 - rho ** 2) + (sp.pi - sp.acos(rho)) * rho) / (2 * sp.pi)


def _hermite_prob(k: int) -> sp.Expr:
    """The normalised probabilists' Hermite polynomial He_k(x)/sqrt(k!) of Definition 2."""
    return sp.expand(sp.hermite_prob(k, x) / sp.sqrt(sp.factorial(k)))


def _registry() -> dict[str, tuple[sp.Expr, str, sp.Expr | None]]:
    reg = {
        "identity": (x, "σ(x) = x (He_1)", rho),
        "relu": (sp.Max(x, 0), "max(x, 0)", _relu_dual()),
        "leaky_relu": (sp.Max(x, x / 100), "max(x, 0.01x)",
                       (1 + sp.Rational(1, 100) ** 2) * _relu_dual() - 2 * sp.Rational(1, 100) * _relu_dual().subs(rho, -rho)),
        "tanh": (sp.tanh(x), "hyperbolic tangent", None),
        "sigmoid": (1 / (1 + sp.exp(-x)), "logistic sigmoid", None),
        "sin": (sp.sin(x), "sine", sp.exp(-1) * sp.sinh(rho)),
        "cos": (sp.cos(x), "cosine", sp.exp(-1) * sp.cosh(rho)),
        "exp": (sp.exp(x), "exponential", sp.exp(1 + rho)),
        "step": (sp.Heaviside(x, sp.Rational(1, 2)), "1[x > 0]", (sp.pi - sp.acos(rho)) / (2 * sp.pi)),
        "gelu": (x * (1 + sp.erf(x / sp.sqrt(2))) / 2, "x Φ(x)", None),
        "silu": (x / (1 + sp.exp(-x)), "x sigmoid(x) (swish)", None),
        "softplus": (sp.log(1 + sp.exp(x)), "log(1 + e^x)", None),
        "selu": (SELU_LAMBDA * sp.Piecewise((x, x > 0), (SELU_ALPHA * (sp.exp(x) - 1), True)),
                 "λ·(x if x > 0 else α(e^x − 1))", None),
        "elu": (sp.Piecewise((x, x > 0), (sp.exp(x) - 1, True)), "x if x > 0 else e^x − 1", None),
        "celu": (sp.Max(x, 0) + sp.Min(0, sp.exp(x) - 1), "max(0,x) + min(0, e^x − 1) (α = 1)", None),
        "erf": (sp.erf(x), "error function", 2 / sp.pi * sp.asin(2 * rho / 3)),
    }
    reg["swish"] = reg["silu"]
    reg["linear"] = reg["identity"]
    for k in range(0, 9):
        # Hermite polynomial activations He_k (normalised as in Definition 2): dual = ρ^k exactly
        reg[f"he{k}"] = (_hermite_prob(k), f"normalised Hermite polynomial He_{k}", rho ** k)
    return reg


_REGISTRY = _registry()


def registered_names() -> list[str]:
    """The names of the activation registry, sorted: each is accepted by :func:`activation`.

    Returns
    -------
    list of str
        The registry's names, sorted.

    Examples
    --------
    >>> from theory import registered_names
    >>> {"relu", "tanh", "gelu", "selu"} <= set(registered_names())
    True
    """
    return sorted(_REGISTRY)


@functools.lru_cache(maxsize=256)
def _build_activation(name: str, expr: sp.Expr, description: str, dual) -> Activation:
    bps = _breakpoints(expr)
    return Activation(name=name, expr=expr, breakpoints=bps, pieces=_pieces(expr, bps),
                      description=description, dual_closed_form=dual)


def gain_family(kind: str, alpha) -> Activation:
    """The gain-scaled families of Table B.1: ``sin(αx)``, ``exp(αx)``, ``max(αx, 0)``.

    Parameters
    ----------
    kind : {"sin", "exp", "relu"}
        The family.
    alpha : float or sympy number
        The gain α.

    Returns
    -------
    Activation
        σ(x) of the family at gain α.

    Examples
    --------
    >>> from theory import gain_family
    >>> gain_family("sin", 2)
    Activation('sin(2x)': sin(2*x))
    """
    a = sp.nsimplify(alpha, rational=True) if not isinstance(alpha, sp.Basic) else alpha
    if kind == "sin":
        return _build_activation(f"sin({a}x)", sp.sin(a * x), "gain-scaled sine",
                                 sp.exp(-a ** 2) * sp.sinh(a ** 2 * rho))
    if kind == "exp":
        return _build_activation(f"exp({a}x)", sp.exp(a * x), "gain-scaled exponential",
                                 sp.exp(a ** 2 * (1 + rho)))
    if kind == "relu":
        return _build_activation(f"max({a}x,0)", sp.Max(a * x, 0), "gain-scaled ReLU",
                                 _relu_dual(a) if a != 0 else None)
    raise ActivationError(f"unknown gain family {kind!r}: one of sin, exp, relu")


def activation(spec: "str | Activation | sp.Expr") -> Activation:
    """Return the :class:`Activation` for a registry name or a user formula.

    Raises :class:`ActivationError` for a malformed formula, a name outside the whitelist, a formula beyond the
    limits of :mod:`theory.formula`, a constant formula (β_σ and the Gram dynamics are undefined), a pole or a
    value that is not real somewhere on the line, or a function that is not square-integrable under the
    standard Gaussian. Messages quote at most ~80 characters of the input. The analysis of a formula is
    bounded by :data:`theory.formula.ANALYSIS_SECONDS`.

    Parameters
    ----------
    spec : str, Activation or sympy expression
        A registry name (:func:`registered_names`: ``"relu"``, ``"tanh"``, …), a formula in ``x`` read by the
        whitelist parser (:func:`parse_formula`: ``"x*erf(x)"``, ``"max(x, 0.1*x)"``), a sympy expression in ``x``,
        or an :class:`Activation` (returned as it is).

    Returns
    -------
    Activation
        The activation: its name, its sympy expression ``expr`` and what the theories need of it (breakpoints,
        closed forms where the registry knows them).

    Examples
    --------
    >>> from theory import activation
    >>> activation("relu")
    Activation('relu': Max(0, x))
    >>> activation("x*erf(x)").expr
    x*erf(x)
    >>> activation("exp(x**2)")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    theory.errors.ActivationError: ...
    """
    if isinstance(spec, Activation):
        return spec
    if isinstance(spec, str):
        return _activation_from_text(spec)  # validated once per spelling (refusals are not cached)
    return _analyse(spec)


@functools.lru_cache(maxsize=1024)
def _activation_from_text(spec: str) -> Activation:
    return _analyse(spec)


def _analyse(spec) -> Activation:
    if isinstance(spec, sp.Basic):
        expr, name, dual, desc, user = spec, str(spec), None, "sympy expression", True
    elif isinstance(spec, str):
        key = spec.strip().lower()
        if key.replace("-", "_") in _REGISTRY:  # "leaky-relu" is leaky_relu; "-x" is a formula
            key = key.replace("-", "_")
        if key in _REGISTRY:
            expr, desc, dual = _REGISTRY[key]
            name, user = key, False
        else:
            if key.isidentifier() and key not in ALLOWED_NAMES:
                hint = difflib.get_close_matches(key, registered_names(), n=3)
                raise ActivationError(
                    f"unknown activation {quote(spec)}" + (f"; did you mean {', '.join(hint)}?" if hint else "")
                    + f". Registered: {', '.join(registered_names())}; or give a formula in x.")
            expr, name, dual, desc, user = None, spec.strip(), None, "user formula", True
    else:
        raise ActivationError(f"an activation is a name or a formula string, not {type(spec).__name__}")
    if not user:
        act = _build_activation(name, expr, desc, dual)
        _check_square_integrable(act)
        return act
    with time_limit(ANALYSIS_SECONDS, f"activation {quote(name)}"):
        if expr is None:
            expr = parse_formula(spec)
        if not expr.has(x):
            raise ActivationError(f"activation {quote(name)} is constant: β_σ, the dual and the Gram dynamics are "
                                  "undefined for a constant σ (Definition 3 divides by its variance)")
        try:
            _check_finite_everywhere(expr, name)
            # growth, reality and resolution on the bare expression first: the kink analysis below assumes a real σ
            _check_square_integrable(Activation(name=name, expr=expr))
            act = _build_activation(name, expr, desc, dual)
        except ActivationError:
            raise
        except (TypeError, ValueError, NotImplementedError, ArithmeticError, RecursionError, AttributeError) as exc:
            # sympy could not analyse it (kinks of an irrational polynomial, an undecidable sign): refuse, never crash
            raise ActivationError(f"activation {quote(name)} cannot be analysed ({type(exc).__name__}: "
                                  f"{quote(str(exc), 60)}); simplify the formula") from None
        if act.is_constant:
            raise ActivationError(f"activation {quote(name)} is constant on [-4, 4]: β_σ and the Gram dynamics "
                                  "are undefined for a constant σ")
    return act


def _check_finite_everywhere(expr: sp.Expr, name: str) -> None:
    """Reject poles and singular points: a negative power of something that vanishes, log of something that
    vanishes, tan of something that reaches π/2 + kπ (the papers need σ finite on the whole line)."""
    suspects = []
    for sub in sp.preorder_traversal(expr):
        if isinstance(sub, sp.Pow) and sub.base.has(x) and sub.exp.is_number and sub.exp.is_negative:
            suspects.append((sub.base, "a pole"))
        elif isinstance(sub, sp.log) and sub.args[0].has(x):
            suspects.append((sub.args[0], "a logarithmic singularity"))
        elif isinstance(sub, sp.tan) and sub.args[0].has(x):
            suspects.append((sp.cos(sub.args[0]), "a pole"))
    for e, what in suspects:
        zeros = sp.solveset(e, x, sp.S.Reals)
        if zeros is sp.S.EmptySet:
            continue
        if isinstance(zeros, sp.FiniteSet):
            where = ", ".join(f"{float(z):.6g}" for z in list(zeros)[:3])
            raise ActivationError(f"activation {quote(name)} has {what} at x = {where}: σ must be finite on the whole line")
        if isinstance(zeros, sp.ConditionSet):
            raise ActivationError(f"activation {quote(name)}: cannot rule out {what} where {quote(str(e), 40)} = 0 "
                                  "(σ must be finite on the whole line)")
        raise ActivationError(f"activation {quote(name)} has {what} at infinitely many points: σ must be finite on "
                              "the whole line")


def _check_square_integrable(act: Activation) -> None:
    """Reject σ with ∫σ(x)² e^{-x²/2} dx = ∞: log σ(r)² − r²/2 at |r| = 20, 40, 80 must fall, the last step by more
    than 100 (evaluated by the guarded probe of :mod:`theory.formula`: e^(e^x) is "grows too fast" at once);
    and σ must be real and finite on a grid of [−8, 8]."""
    def log_weight(r):
        with mpmath.workdps(30):
            v = growth_probe(act.expr, r)
            if v == 0:
                return -mpmath.inf
            return 2 * mpmath.log(abs(v)) - mpmath.mpf(r) ** 2 / 2
    too_fast = ActivationError(
        f"activation {quote(act.name)} is not square-integrable under the standard Gaussian: σ(x)² e^(-x²/2) does "
        f"not decay as |x| → ∞ (Definition 2 needs ∫σ² e^(-x²/2) < ∞)")
    for sgn in (1, -1):
        try:
            vals = [log_weight(sgn * r) for r in (20, 40, 80)]
        except GrowsTooFast:
            raise too_fast from None
        except OscillatesTooFast:
            raise ActivationError(f"activation {quote(act.name)} oscillates too fast at large |x| to be integrated "
                                  "(sin/cos/tan of an argument beyond e^10000)") from None
        except GrowthUndecided as exc:
            raise ActivationError(f"activation {quote(act.name)}: cannot decide whether it is square-integrable under "
                                  f"the standard Gaussian ({exc}); simplify the formula") from None
        except (NotRealValued, ValueError, ZeroDivisionError, TypeError):
            raise ActivationError(f"activation {quote(act.name)} is not real-valued on the whole line") from None
        finite = [v for v in vals if v != -mpmath.inf]
        if len(finite) == 3 and not (finite[2] < finite[1] - 100 and finite[1] < finite[0]):
            raise too_fast
    grid = np.linspace(-8, 8, 161)
    vals = act.numpy(grid)
    if not np.all(np.isfinite(vals)):
        raise ActivationError(f"activation {quote(act.name)} is not real and finite everywhere on [-8, 8]")
    # resolution: the sampled total variation on [−8, 8] must settle when the grid is refined (sin(1000x) or
    # sin(x**64) change faster than any quadrature of this package resolves)
    tv = [float(np.sum(np.abs(np.diff(act.numpy(np.linspace(-8, 8, m)))))) for m in (2001, 4001)]
    if tv[1] > 1.1 * tv[0] + 1e-12 * max(1.0, float(np.max(np.abs(vals)))):
        raise ActivationError(f"activation {quote(act.name)} oscillates faster than the quadratures resolve: its "
                              f"sampled variation on [-8, 8] grows from {tv[0]:.3g} to {tv[1]:.3g} when the grid is "
                              "refined from 2001 to 4001 points")
