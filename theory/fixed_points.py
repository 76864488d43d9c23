"""Fixed points of one-dimensional maps and their stability (the mean-field maps of :mod:`theory.meanfield_mlp`).

* :func:`solve_fixed_point` — x* = T(x*) by the Illinois (modified regula falsi) iteration on a sign-changing
  bracket of F(x) = T(x) − x, or by the secant iteration from a starting point; works in floats or in mpmath
  numbers (whatever T returns). The error of x* is half the final bracket plus the map's own error divided by
  |1 − T′(x*)| (a root of F moves by δT/|F′| when T moves by δT).
* :func:`slope` — T′(x) by an analytic route (``method="price"``: a derivative the caller supplies, e.g. by Price's
  theorem d/dc E f(u₁)g(u₂) = q E f′(u₁)g′(u₂) for the correlation map) or by Richardson-extrapolated finite
  differences (``method="finite-difference"``; one-sided at the edge of the domain, e.g. c = 1).
* :func:`stability` — both slopes at a fixed point, their difference and the verdict |T′(x*)| < 1.

Maps may return an :class:`~theory.results.Estimate`, a float or an mpmath number.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from .errors import DeepinitError
from .results import Estimate

__all__ = ["FixedPoint", "Stability", "classify_slope", "illinois", "slope", "solve_fixed_point", "stability"]

#: the stability of a fixed point x* of a one-dimensional map T, from its slope s = T′(x*) and the slope's error e:
#: |s| < 1 − e attracts, |s| > 1 + e repels, and otherwise (|s| = 1 to within the error) it is marginal, its fate
#: decided by the higher-order terms (one side may attract, the other repel)
STABILITIES = ("attracting", "repelling", "marginal")


def classify_slope(slope: Estimate, band: float = 1e-14) -> str:
    """The stability of a fixed point from its slope: a slope within its own error of ±1 is never called stable or
    unstable.

    Parameters
    ----------
    slope : Estimate
        T′(x*) with its error.
    band : float
        The least tolerance around |T′| = 1.

    Returns
    -------
    str
        ``"attracting"`` (|s| < 1 − tol), ``"repelling"`` (|s| > 1 + tol) or ``"marginal"``, tol = max(band, error).

    Examples
    --------
    >>> classify_slope(Estimate(0.5, 1e-16, "")), classify_slope(Estimate(1.1, 1e-3, ""))
    ('attracting', 'repelling')
    >>> classify_slope(Estimate(1.0 - 1e-20, 1e-16, ""))
    'marginal'
    """
    tol = max(float(band), float(slope.error))
    s = abs(float(slope.value))
    if s < 1.0 - tol:
        return "attracting"
    if s > 1.0 + tol:
        return "repelling"
    return "marginal"


@dataclass(frozen=True)
class FixedPoint(Estimate):
    """A fixed point x* = T(x*) of a one-dimensional map: an :class:`~theory.results.Estimate` of x* (value, error,
    method) that also carries its slope, its stability and its basin.

    Attributes
    ----------
    value, error, method, text
        x* as an :class:`~theory.results.Estimate`.
    slope : Estimate or None
        T′(x*) with its error (one-sided at the edge of the domain).
    stability : str
        ``"attracting"``, ``"repelling"`` or ``"marginal"`` (:func:`classify_slope`).
    basin : tuple or None
        (lo, hi): the starting points x⁰ whose iterates converge to x* (an interval for an increasing map; ``None``
        when the map was not seen to be increasing); lo = hi = x* for a repelling point.
    note : str
        What the slope alone does not say (a marginal point's one-sided behaviour; why the basin is unknown).

    Examples
    --------
    >>> fp = FixedPoint(0.5, 1e-16, "example", slope=Estimate(0.25, 1e-16, ""), stability="attracting",
    ...                 basin=(0.0, 2.0))
    >>> float(fp), fp.stability, fp.attracting
    (0.5, 'attracting', True)
    """

    slope: Estimate | None = field(default=None, compare=False)
    stability: str = field(default="", compare=False)
    basin: tuple | None = field(default=None, compare=False)
    note: str = field(default="", compare=False)

    @property
    def attracting(self) -> bool:
        """True for an attracting point and for a marginal one that attracts from at least one side."""
        return self.stability == "attracting" or (self.stability == "marginal" and "attracting from" in self.note)



def _value(y):
    """(value, error) of a map's output: an Estimate, a float or an mpmath number (error 0)."""
    if isinstance(y, Estimate):
        return y.value, y.error
    return y, 0.0


def illinois(F: Callable, a, b, fa=None, fb=None, *, xtol=1e-15, maxiter: int = 200):
    """A root of F in the bracket [a, b] (F(a)·F(b) ≤ 0) by the Illinois iteration.

    Returns ``(x, lo, hi, iterations)`` with the final bracket [lo, hi] ∋ x; stops when hi − lo ≤ xtol·max(1, |x|)
    or F(x) = 0. Arithmetic follows the type of a, b and F's values (floats or mpmath numbers).

    Examples
    --------
    >>> x, lo, hi, n = illinois(lambda t: t * t - 2, 1.0, 2.0)
    >>> abs(x - 2 ** 0.5) < 1e-15
    True
    """
    fa = F(a) if fa is None else fa
    fb = F(b) if fb is None else fb
    if fa == 0:
        return a, a, a, 0
    if fb == 0:
        return b, b, b, 0
    if (fa > 0) == (fb > 0):
        raise DeepinitError(f"illinois: F does not change sign on [{a}, {b}]")
    side, x = 0, a
    for it in range(1, maxiter + 1):
        x = (a * fb - b * fa) / (fb - fa)
        if not (min(a, b) < x < max(a, b)):
            x = (a + b) / 2
            if not (min(a, b) < x < max(a, b)):   # adjacent floats: the bracket cannot shrink further
                break
        fx = F(x)
        if fx == 0:
            return x, x, x, it
        if (fx > 0) == (fb > 0):
            b, fb = x, fx
            if side == -1:
                fa = fa / 2
            side = -1
        else:
            a, fa = x, fx
            if side == 1:
                fb = fb / 2
            side = 1
        if abs(b - a) <= xtol * max(1, abs(x)):
            break
        if it % 8 == 0:  # a bisection step every 8: the bracket shrinks however flat F is at one end
            m = (a + b) / 2
            fm = F(m)
            if fm == 0:
                return m, m, m, it
            if (fm > 0) == (fb > 0):
                b, fb = m, fm
            else:
                a, fa = m, fm
    return x, min(a, b), max(a, b), it


def solve_fixed_point(T: Callable, x0=None, bracket=None, *, xtol: float = 1e-15, maxiter: int = 200,
                      method: str = "") -> Estimate:
    """x* with T(x*) = x*.

    Parameters
    ----------
    T : callable
        The map; returns an Estimate, a float or an mpmath number.
    x0 : float, optional
        Start of the secant iteration (used when no bracket is given).
    bracket : (a, b), optional
        F(x) = T(x) − x changes sign (or vanishes) on [a, b]: the Illinois iteration, which cannot leave it.
    xtol : float
        Relative width of the final bracket (or secant step).
    maxiter : int
        The most iterations.
    method : str
        Prefix for the Estimate's method.

    Returns
    -------
    Estimate
        ``error`` = half the final bracket (or the last secant step) + (T's error)/|1 − T′(x*)|, T′ from the
        final secant; ``inf`` when |1 − T′| vanishes (a marginal fixed point).

    Examples
    --------
    >>> import math
    >>> e = solve_fixed_point(math.cos, bracket=(0.0, 1.0))
    >>> abs(e.value - 0.7390851332151607) < 1e-15
    True
    """
    errs = []

    def F(x):
        v, e = _value(T(x))
        errs.append(e)
        return v - x
    if bracket is not None:
        a, b = bracket
        x, lo, hi, n = illinois(F, a, b, xtol=xtol, maxiter=maxiter)
        width = hi - lo
        dF = _bracket_slope(F, x, lo, hi, xtol)
        how = f"Illinois on [{float(a):.6g}, {float(b):.6g}], {n} iterations"
    elif x0 is not None:
        x, width, dF, n = _secant(F, x0, xtol, maxiter)
        how = f"secant from {float(x0):.6g}, {n} iterations"
    else:
        raise DeepinitError("solve_fixed_point needs x0 or a bracket")
    map_err = max(errs) if errs else 0.0
    if dF is None or float(dF) == 0.0:
        prop = 0.0 if map_err == 0.0 else math.inf
    else:
        prop = map_err / abs(float(dF))
    err = float(abs(width)) / 2 + prop
    xf = float(x)
    err += abs(float(x - xf)) if not isinstance(x, float) else 0.0
    return Estimate(xf, err, (method + ": " if method else "") + how)


def _bracket_slope(F, x, lo, hi, xtol):
    """F′ near the root: the secant over the final bracket, or (a root hit exactly) a one-sided difference inside
    the map's domain (left first, then right)."""
    if hi > lo:
        return (F(hi) - F(lo)) / (hi - lo)
    step = max(1e4 * xtol, 1e-9) * max(1, abs(x))
    for d in (-step, step):
        try:
            return (F(x + d) - F(x)) / d
        except (ValueError, ArithmeticError):
            continue
    return None


def _secant(F, x0, xtol, maxiter):
    x1 = x0 * (1 + 1e-4) + 1e-4
    f0, f1 = F(x0), F(x1)
    for it in range(1, maxiter + 1):
        if f1 == f0:
            break
        x2 = x1 - f1 * (x1 - x0) / (f1 - f0)
        x0, f0, x1 = x1, f1, x2
        f1 = F(x1)
        if abs(x1 - x0) <= xtol * max(1, abs(x1)) or f1 == 0:
            dF = (f1 - f0) / (x1 - x0) if x1 != x0 else None
            return x1, abs(x1 - x0), dF, it
    raise DeepinitError(f"solve_fixed_point: the secant iteration did not converge in {maxiter} steps")


def slope(T: Callable, x, method: str = "finite-difference", *, derivative: Callable | None = None,
          h: float | None = None, side: str = "central") -> Estimate:
    """T′(x) by Price's theorem (an analytic derivative) or by finite differences.

    Parameters
    ----------
    T : callable
        The map (returns an Estimate, a float or an mpmath number).
    x : float
        Where to differentiate.
    method : {"price", "finite-difference"}
        ``"price"``: ``derivative(x)`` (or ``T.derivative(x)``), the analytic slope — for the correlation map
        d/dc [σ_w² E φ(u₁)φ(u₂) + σ_b²]/q = σ_w² E φ′(u₁)φ′(u₂) (Price's theorem). ``"finite-difference"``:
        the central (or one-sided, ``side="left"``/``"right"``, e.g. at c = 1) second-order difference at h and
        h/2, Richardson-extrapolated.
    derivative : callable, optional
        T′ for ``method="price"`` (default: ``T.derivative``).
    h : float, optional
        Step (default 1e-3·max(1, |x|)).
    side : {"central", "left", "right"}
        The finite difference's stencil.

    Returns
    -------
    Estimate
        Finite differences: ``error`` = |extrapolated − D(h/2)| + 6·(T's error)/h.

    Examples
    --------
    >>> import math
    >>> s = slope(math.exp, 0.0)
    >>> abs(s.value - 1.0) <= s.error + 1e-12
    True
    >>> slope(math.exp, 0.0, "price", derivative=math.exp).value
    1.0
    """
    if method == "price":
        d = derivative if derivative is not None else getattr(T, "derivative", None)
        if d is None:
            raise DeepinitError("slope(method='price') needs derivative= (or a map with a .derivative)")
        v, e = _value(d(x))
        return Estimate(float(v), float(e), "analytic slope (Price's theorem)")
    if method != "finite-difference":
        raise DeepinitError(f"slope method must be 'price' or 'finite-difference', not {method!r}")
    h = 1e-3 * max(1.0, abs(float(x))) if h is None else float(h)
    errs = []

    def M(t):
        v, e = _value(T(t))
        errs.append(e)
        return float(v)

    def D(step):
        if side == "central":
            return (M(x + step) - M(x - step)) / (2 * step)
        sgn = 1.0 if side == "left" else -1.0  # points x − sgn·h, x − 2 sgn·h
        return sgn * (3 * M(x) - 4 * M(x - sgn * step) + M(x - 2 * sgn * step)) / (2 * step)
    if side not in ("central", "left", "right"):
        raise DeepinitError(f"side must be 'central', 'left' or 'right', not {side!r}")
    d1, d2 = D(h), D(h / 2)
    rich = (4 * d2 - d1) / 3
    err = abs(rich - d2) + 6 * max(errs) / (h / 2)
    return Estimate(rich, err, f"finite differences ({side}, h = {h:.3g} and h/2, Richardson)")


@dataclass(frozen=True)
class Stability:
    """A fixed point with its slope by two routes.

    ``slope`` is the analytic (Price) slope when one was given, else the finite-difference one; ``difference``
    = |price − finite difference| (``nan`` without an analytic route); ``stable`` = |slope| < 1.

    Attributes
    ----------
    fixed_point : Estimate
        The fixed point x*.
    branch : str
        A label of the fixed point (which branch of the map).
    slope : Estimate
        T′(x*), analytic when a derivative was given.
    slope_fd : Estimate
        T′(x*) by finite differences.
    difference : float
        |price − finite difference|.
    stable : bool
        |T′(x*)| < 1.

    Examples
    --------
    >>> import math
    >>> from theory import stability
    >>> st = stability(math.cos, 0.7390851332151607, derivative=lambda t: -math.sin(t), branch="cos")
    >>> st.branch, round(st.slope.value, 12), st.stable
    ('cos', -0.673612029183, True)
    """

    fixed_point: Estimate
    branch: str
    slope: Estimate
    slope_fd: Estimate
    difference: float
    stable: bool


def stability(T: Callable, fixed_point, *, derivative: Callable | None = None, branch: str = "",
              h: float | None = None, side: str = "central") -> Stability:
    """The slope of T at a fixed point by Price's theorem (``derivative``) and by finite differences.

    Parameters
    ----------
    T : callable
        The map (returns an Estimate, a float or an mpmath number).
    fixed_point : Estimate or float
        x*.
    derivative : callable, optional
        T′, the analytic route (default: ``T.derivative`` if the map has one).
    branch : str
        A label for the fixed point.
    h : float, optional
        The finite-difference step (as :func:`slope`).
    side : {"central", "left", "right"}
        The finite difference's stencil.

    Returns
    -------
    Stability
        The fixed point, both slopes, their difference and whether |T′(x*)| < 1.

    Examples
    --------
    >>> import math
    >>> st = stability(math.cos, 0.7390851332151607, derivative=lambda t: -math.sin(t), branch="cos")
    >>> st.stable, st.difference < 1e-8
    (True, True)
    """
    fp = fixed_point if isinstance(fixed_point, Estimate) else Estimate(float(fixed_point), 0.0, "given")
    fd = slope(T, fp.value, "finite-difference", h=h, side=side)
    has_price = derivative is not None or getattr(T, "derivative", None) is not None
    pr = slope(T, fp.value, "price", derivative=derivative) if has_price else fd
    diff = abs(pr.value - fd.value) if has_price else math.nan
    return Stability(fp, branch, pr, fd, diff, abs(pr.value) < 1.0)
