"""One engine for Gaussian expectations E[f(X)], X ~ N(0, 1).

Four routes, used against each other:

* **exact** (sympy): when f is, on each smooth piece, a finite sum of terms ``c·x^m·e^{a x}``
  (``a`` possibly complex: sin, cos, sinh, cosh, exp, polynomials, ReLU, step, ELU, SELU …).
  The truncated moments J_m = ∫_lo^hi x^m e^{ax} φ(x) dx obey the integration-by-parts
  recursion J_{m+1} = a J_m + m J_{m−1} − [x^m e^{ax} φ(x)]_lo^hi, J_0 = e^{a²/2}(Φ(hi−a) − Φ(lo−a)).
* **mpmath**: adaptive tanh-sinh quadrature at any precision, split at the breakpoints.
* **float**: a fixed Gauss–Legendre rule on [−L, L] split at the breakpoints (fast, vectorised;
  used for many Hermite coefficients at once).
* **Monte Carlo**: the independent check (mean, standard error, sample size).
"""
from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
import sympy as sp

from . import validate
from .activations import Activation, x
from .errors import QuadratureError


# --------------------------------------------------------------------------------------------
# exact route
# --------------------------------------------------------------------------------------------

class NotExact(Exception):
    """The expression is not a finite sum of x^m e^{ax} terms on some piece."""


def decompose_poly_exp(expr: sp.Expr) -> list[tuple[sp.Expr, int, sp.Expr]]:
    """Write ``expr`` as Σ coef·x^m·exp(a x); return ``[(coef, m, a), ...]`` or raise NotExact."""
    e = sp.expand(sp.powsimp(sp.expand(expr.rewrite(sp.exp)), combine="exp"))
    terms = []
    for term in sp.Add.make_args(e):
        coef, dep = term.as_independent(x, as_Add=False)
        m, a = 0, sp.Integer(0)
        for f in sp.Mul.make_args(sp.powsimp(dep, combine="exp")):
            if f == 1:
                continue
            if f == x:
                m += 1
            elif isinstance(f, sp.Pow) and f.base == x and f.exp.is_Integer and f.exp >= 0:
                m += int(f.exp)
            elif isinstance(f, sp.exp):
                arg = sp.expand(f.args[0])
                poly = sp.Poly(arg, x) if arg.is_polynomial(x) else None
                if poly is None or poly.degree() > 1:
                    raise NotExact(str(f))
                coeffs = poly.all_coeffs()
                if poly.degree() == 1:
                    a += coeffs[0]
                    coef *= sp.exp(coeffs[1])
                else:
                    coef *= sp.exp(coeffs[0])
            elif isinstance(f, sp.Pow) and isinstance(f.base, sp.exp) and f.exp.is_Integer:
                arg = sp.expand(f.base.args[0] * f.exp)
                if not arg.is_polynomial(x) or sp.Poly(arg, x).degree() > 1:
                    raise NotExact(str(f))
                c1 = arg.coeff(x, 1)
                a += c1
                coef *= sp.exp(sp.expand(arg - c1 * x))
            else:
                raise NotExact(str(f))
        terms.append((coef, m, a))
    return terms


def _Phi(z):
    if z == sp.oo:
        return sp.Integer(1)
    if z == -sp.oo:
        return sp.Integer(0)
    return (1 + sp.erf(z / sp.sqrt(2))) / 2


def _phi(z):
    return sp.exp(-z ** 2 / 2) / sp.sqrt(2 * sp.pi)


@functools.lru_cache(maxsize=4096)
def truncated_moments(m_max: int, a: sp.Expr, lo, hi) -> tuple[sp.Expr, ...]:
    """(J_0, …, J_{m_max}) with J_m = ∫_lo^hi x^m e^{a x} φ(x) dx, exactly."""
    lo_s = -sp.oo if lo == -math.inf else sp.nsimplify(lo)
    hi_s = sp.oo if hi == math.inf else sp.nsimplify(hi)

    def boundary(m):
        out = sp.Integer(0)
        for end, sign in ((hi_s, 1), (lo_s, -1)):
            if end in (sp.oo, -sp.oo):
                continue
            out += sign * end ** m * sp.exp(a * end) * _phi(end)
        return out

    upper = sp.Integer(1) if hi_s == sp.oo else _Phi(hi_s - a)
    lower = sp.Integer(0) if lo_s == -sp.oo else _Phi(lo_s - a)
    J = [sp.exp(a ** 2 / 2) * (upper - lower)]
    if m_max >= 1:
        J.append(a * J[0] - boundary(0))
    for m in range(1, m_max):
        J.append(a * J[m] + m * J[m - 1] - boundary(m))
    return tuple(sp.expand(j) for j in J)


def exact_expectation_pieces(pieces, weight_poly: sp.Expr = sp.Integer(1)) -> sp.Expr:
    """E[f(X)·w(X)] exactly, f given by its smooth pieces and w a polynomial; raises NotExact."""
    wpoly = sp.Poly(weight_poly, x)
    total = sp.Integer(0)
    for (lo, hi), expr in pieces:
        if expr == 0:
            continue
        for coef, m, a in decompose_poly_exp(expr):
            deg = m + wpoly.degree()
            J = truncated_moments(deg, sp.nsimplify(a), lo, hi)
            for (i,), w in wpoly.terms():
                total += coef * w * J[m + i]
    return total


def exact_expectation(act: Activation, power: int = 1, weight_poly: sp.Expr = sp.Integer(1)) -> sp.Expr:
    """E[σ(X)^power · w(X)] in closed form; raises NotExact when no closed form is found."""
    pieces = tuple(((lo, hi), sp.expand(e ** power)) for (lo, hi), e in act.pieces)
    return exact_expectation_pieces(pieces, weight_poly)


def tidy(expr: sp.Expr) -> sp.Expr:
    """Simplify an exact expectation (real part taken: the integrands are real)."""
    e = sp.simplify(sp.expand_complex(expr))
    if e.has(sp.I):
        e = sp.simplify(sp.re(e))
    return e


# --------------------------------------------------------------------------------------------
# mpmath route
# --------------------------------------------------------------------------------------------

def _mp_intervals(breakpoints, extra=(-8, -4, -2, 2, 4, 8)):
    pts = sorted(set([float(b) for b in breakpoints] + list(extra)))
    return [-mpmath.inf] + [mpmath.mpf(p) for p in pts] + [mpmath.inf]


def mp_expectation(f, breakpoints=(), dps: int = 30, error: bool = False):
    """E[f(X)] by mpmath quadrature at ``dps`` digits, split at the breakpoints.

    Raises :class:`QuadratureError` when the estimated error exceeds 10^(−dps/2) in relative terms.
    """
    with mpmath.workdps(dps + 10):
        norm = 1 / mpmath.sqrt(2 * mpmath.pi)
        g = lambda t: f(t) * mpmath.exp(-t * t / 2) * norm  # noqa: E731
        val, err = mpmath.quad(g, _mp_intervals(breakpoints), error=True, maxdegree=10)
        if not mpmath.isfinite(val):
            raise QuadratureError("Gaussian expectation is not finite (the integrand is not integrable)")
        tol = mpmath.mpf(10) ** (-(dps // 2)) * max(1, abs(val))
        if err > tol:
            raise QuadratureError(f"quadrature did not converge: estimated error {mpmath.nstr(err, 3)} "
                                  f"> tolerance {mpmath.nstr(tol, 3)}")
    return (val, err) if error else val


# --------------------------------------------------------------------------------------------
# float route: a fixed Gauss–Legendre rule for the Gaussian measure, split at the breakpoints
# --------------------------------------------------------------------------------------------

def integration_radius(act: Activation, k_max: int = 0, tail: float = 1e-40) -> float:
    """L such that σ(x)² φ(x) < tail·(scale) for |x| > L, and past the Hermite turning point."""
    r = 8.0
    with mpmath.workdps(20):
        ref = max(abs(act.mpmath(mpmath.mpf(v))) for v in (-1, -0.5, 0.5, 1)) + mpmath.mpf(1)
        while r < 400:
            vals = [abs(act.mpmath(mpmath.mpf(s * r))) for s in (1, -1)]
            logw = max(2 * mpmath.log(v + mpmath.mpf("1e-300")) for v in vals) - r * r / 2
            if logw < mpmath.log(tail) + 2 * mpmath.log(ref):
                break
            r += 2.0
    return max(r, math.sqrt(4 * k_max + 2) + 14.0)


@functools.lru_cache(maxsize=256)
def gaussian_rule(breakpoints: tuple, radius: float, nodes_per_piece: int, density_exponent: float = 0.5):
    """Nodes and weights (including the density φ) for E[f(X)], X ~ N(0,1), on [−L, L].

    ``density_exponent`` a: the weights carry e^{−a t²}/√(2π) instead (a = 1/4 for Hermite *functions*
    He_k(t)e^{−t²/4}, whose recurrence does not overflow at large k)."""
    cuts = [-radius] + [b for b in breakpoints if -radius < b < radius] + [radius]
    gx, gw = np.polynomial.legendre.leggauss(nodes_per_piece)
    xs, ws = [], []
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        half, mid = 0.5 * (hi - lo), 0.5 * (hi + lo)
        t = mid + half * gx
        xs.append(t)
        ws.append(half * gw * np.exp(-density_exponent * t * t) / math.sqrt(2 * math.pi))
    return np.concatenate(xs), np.concatenate(ws)


def float_expectation(act: Activation, g=None, nodes_per_piece: int = 400) -> float:
    """E[σ(X) g(X)] with the fixed rule (g defaults to 1)."""
    L = integration_radius(act)
    xs, ws = gaussian_rule(tuple(act.breakpoints), L, nodes_per_piece)
    vals = act.numpy(xs)
    if g is not None:
        vals = vals * g(xs)
    return float(np.dot(ws, vals))


# --------------------------------------------------------------------------------------------
# Monte Carlo route
# --------------------------------------------------------------------------------------------

def mc_expectation(f, samples: int, seed: int, batch: int = 1 << 20):
    """E[f(X)] by Monte Carlo: returns (mean, standard error, samples). f acts on numpy arrays."""
    rng = np.random.default_rng(validate.seed(seed))
    total, total_sq, n = 0.0, 0.0, 0
    while n < samples:
        m = min(batch, samples - n)
        v = f(rng.standard_normal(m))
        total += float(np.sum(v))
        total_sq += float(np.sum(v * v))
        n += m
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0)
    return mean, math.sqrt(var / n), n
