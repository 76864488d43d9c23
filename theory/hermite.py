"""Normalised Hermite polynomials and coefficients (isometry paper, Definition 2).

He_k(x) := (k!)^{-1/2} (−1)^k e^{x²/2} d^k/dx^k e^{−x²/2}, so that E[He_j(X) He_k(X)] = δ_jk, and

    c_k := E_{X~N(0,1)}[σ(X) He_k(X)].

Three routes: exact sympy (activations that are piecewise sums of x^m e^{ax}), mpmath at any
precision, and a vectorised float64 Gauss–Legendre rule for many coefficients at once.
"""
from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
import sympy as sp

from .activations import Activation, activation, x
from . import validate
from .errors import ActivationError, DeepinitError, QuadratureError
from .gaussian import (NotExact, exact_expectation, gaussian_rule, integration_radius,
                       mp_expectation, tidy)


def hermite_polynomial(k: int) -> sp.Expr:
    """He_k(x) of Definition 2 (probabilists' Hermite polynomial divided by sqrt(k!)).

    Parameters
    ----------
    k : int
        The degree, k ≥ 0.

    Returns
    -------
    sympy.Expr
        A polynomial in ``x``, orthonormal under the standard Gaussian.

    Examples
    --------
    >>> from theory import hermite_polynomial
    >>> hermite_polynomial(2)
    sqrt(2)*x**2/2 - sqrt(2)/2
    """
    k = validate.integer(k, "Hermite degree k", 0, validate.MAX_HERMITE_DEGREE)
    return sp.expand(sp.hermite_prob(k, x) / sp.sqrt(sp.factorial(k)))


def hermite_values(k_max: int, z: np.ndarray, scale=None) -> np.ndarray:
    """[He_0(z), …, He_{k_max}(z)] by the stable three-term recurrence
    He_{k+1} = (z He_k − sqrt(k) He_{k−1}) / sqrt(k+1); shape ``(k_max+1, *z.shape)``.

    ``scale`` (an array like z): returns scale·He_k(z) instead, computed in the recurrence itself — with
    scale = e^{−z²/4} these are the Hermite functions, bounded by ≈1 for every k (no overflow at k = 1000).

    Parameters
    ----------
    k_max : int
        The largest degree.
    z : array_like
        The points.
    scale : array_like, optional
        A factor applied to every He_k(z) within the recurrence (same shape as ``z``).

    Returns
    -------
    numpy.ndarray
        Shape ``(k_max + 1, *z.shape)``: the normalised Hermite polynomials of Definition 2 at ``z``.

    Examples
    --------
    >>> import numpy as np
    >>> from theory import hermite_values
    >>> np.round(hermite_values(3, np.array([1.0, 2.0])), 6)      # He_2(z) = (z² − 1)/√2, He_3(z) = (z³ − 3z)/√6
    array([[ 1.      ,  1.      ],
           [ 1.      ,  2.      ],
           [ 0.      ,  2.12132 ],
           [-0.816497,  0.816497]])
    """
    z = np.asarray(z, dtype=float)
    out = np.empty((k_max + 1,) + z.shape)
    out[0] = 1.0 if scale is None else scale
    if k_max >= 1:
        out[1] = z * out[0]
    for k in range(1, k_max):
        out[k + 1] = (z * out[k] - math.sqrt(k) * out[k - 1]) / math.sqrt(k + 1)
    return out


def hermite_values_mp(k_max: int, z):
    vals = [mpmath.mpf(1), z]
    for k in range(1, k_max):
        vals.append((z * vals[k] - mpmath.sqrt(k) * vals[k - 1]) / mpmath.sqrt(k + 1))
    return vals[: k_max + 1]


def exact_hermite_coefficient(act: Activation, k: int) -> sp.Expr:
    """c_k in closed form; raises NotExact when the activation has no elementary decomposition."""
    return tidy(exact_expectation(act, 1, hermite_polynomial(k)))


@functools.lru_cache(maxsize=512)
def _float_coefficients(act: Activation, k_max: int) -> np.ndarray:
    L = integration_radius(act, k_max)
    n = max(300, int(2.5 * k_max) + 200)
    # the Gaussian weight split between the Hermite functions He_k e^{−x²/4} and the rule (e^{−x²/4}): neither
    # overflows or underflows where σ He_k φ matters, for k up to MAX_HERMITE_DEGREE
    xs, ws = gaussian_rule(tuple(act.breakpoints), L, n, 0.25)
    vals = act.numpy(xs)
    if not np.all(np.isfinite(vals)):
        raise ActivationError(f"activation {act.name!r} is not finite on [−{L:.0f}, {L:.0f}]")
    H = hermite_values(k_max, xs, scale=np.exp(-xs * xs / 4))
    out = H @ (ws * vals)
    if not np.all(np.isfinite(out)):
        raise QuadratureError(f"Hermite coefficients of {act.name!r} up to k = {k_max}: the float quadrature "
                              "overflowed (σ grows too fast for this degree); use kind='mpmath'")
    return out


def hermite_coefficients(act, k_max: int, kind: str = "auto", dps: int = 30):
    """Normalised Hermite coefficients (c_0, …, c_{k_max}) of Definition 2.

    ``kind``:
      * ``"exact"`` — sympy expressions (raises :class:`ActivationError` if none exist);
      * ``"mpmath"`` — :class:`~theory.results.Estimate` s (value, error, method; ``text`` has the ``dps`` digits);
      * ``"float"`` — a float64 numpy array (fast; good to ~1e-14 absolute);
      * ``"auto"`` — exact when a closed form exists and ``k_max ≤ 40``, else mpmath.

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    k_max : int
        The largest degree.
    kind : {"auto", "exact", "mpmath", "float"}
        The route (above).
    dps : int
        Decimal digits of the mpmath route (15 to 200).

    Returns
    -------
    list or numpy.ndarray
        ``k_max + 1`` coefficients c_k = E σ(X) He_k(X), X ~ N(0, 1), He_k the normalised Hermite polynomials
        (:func:`hermite_polynomial`), so that Σ_k c_k² = E σ(X)². Coefficients that vanish by parity
        (:func:`parity_zero_degrees`) are exact zeros on every route: ``0`` (sympy), ``0.0`` (float),
        an exact :class:`~theory.results.Estimate` (mpmath).

    Examples
    --------
    >>> from theory import hermite_coefficients
    >>> hermite_coefficients("relu", 3, kind="exact")
    [sqrt(2)/(2*sqrt(pi)), 1/2, 1/(2*sqrt(pi)), 0]
    >>> [round(float(c), 12) for c in hermite_coefficients("relu", 3, kind="float")]
    [0.398942280401, 0.5, 0.282094791774, 0.0]
    >>> c = hermite_coefficients("tanh", 3, kind="mpmath")      # tanh is odd: c_0 = c_2 = 0 exactly
    >>> [round(float(e), 12) for e in c], [e.error == 0.0 for e in c]
    ([0.0, 0.605705509602, 0.0, -0.148437190787], [True, False, True, False])
    >>> c[1].text
    '0.605705509602158825583540227556'
    >>> c[1].error < 1e-15
    True
    """
    act = activation(act)
    if kind not in ("auto", "mpmath", "exact", "float"):
        raise DeepinitError(f"unknown kind {kind!r}: exact, mpmath, float or auto")
    slow = kind in ("mpmath", "exact") or (kind == "auto" and not (k_max <= 40 if isinstance(k_max, int) else False))
    k_max = validate.integer(k_max, "k_max", 0, validate.MAX_HERMITE_DEGREE_MP if slow else validate.MAX_HERMITE_DEGREE,
                             "the Hermite degree is bounded: " + (
                                 f"the mpmath route integrates each coefficient at {dps} digits (kind='float' goes "
                                 f"to {validate.MAX_HERMITE_DEGREE})" if slow else
                                 "beyond it He_k on the rule's radius overflows and the float coefficients lose "
                                 "their relative accuracy"))
    if kind != "float":
        dps = validate.dps(dps)
    if kind == "float":
        c = _float_coefficients(act, int(k_max)).copy()
        c[[k for k in range(int(k_max) + 1) if _zero_by_parity(act, k)]] = 0.0   # exact zeros are 0
        return c
    if kind in ("exact", "auto") and (kind == "exact" or k_max <= 40):
        try:
            return [exact_hermite_coefficient(act, k) for k in range(k_max + 1)]
        except NotExact:
            if kind == "exact":
                raise ActivationError(f"no closed-form Hermite coefficients for {act.name!r}") from None
    return mp_hermite_coefficients(act, k_max, dps)


@functools.lru_cache(maxsize=512)
def parity_zero_degrees(act: Activation) -> tuple:
    """(d_even, d_odd): c_k = 0 exactly for even k > d_even and odd k > d_odd (``None``: no such statement).

    The even part (σ(x) + σ(−x))/2 and the odd part (σ(x) − σ(−x))/2 of σ are simplified by sympy; a part that is a
    polynomial of degree d (0 included: the part vanishes, d = −1) has no Hermite component above degree d, and
    He_k has the parity of k. So tanh (odd) has every even c_k = 0, and ReLU and GELU (x/2 plus an even function)
    every odd c_k with k ≥ 3. A part sympy cannot reduce to a polynomial (or whose piecewise form is too large to
    simplify quickly) gives ``None``: nothing is claimed.

    Examples
    --------
    >>> from theory import activation
    >>> from theory.hermite import parity_zero_degrees
    >>> parity_zero_degrees(activation("tanh")), parity_zero_degrees(activation("relu"))
    ((-1, None), (None, 1))
    """
    out = []
    for sign in (1, -1):
        try:
            part = (act.expr + sign * act.expr.subs(x, -x)) / 2
            part = sp.piecewise_fold(part.rewrite(sp.Piecewise))
            if sp.count_ops(part) > 60:       # simplify would take seconds: claim nothing
                out.append(None)
                continue
            part = sp.simplify(part)
            if part == 0:
                out.append(-1)
                continue
            poly = sp.Poly(part, x) if part.is_polynomial(x) else None
            out.append(int(poly.degree()) if poly is not None else None)
        except Exception:          # sympy could not decide: claim nothing
            out.append(None)
    return tuple(out)


def _zero_by_parity(act: Activation, k: int) -> bool:
    d_even, d_odd = parity_zero_degrees(act)
    d = d_even if k % 2 == 0 else d_odd
    return d is not None and k > d


def mp_hermite_coefficients(act: Activation, k_max: int, dps: int = 30) -> list:
    """c_0..c_{k_max} by mpmath quadrature (each coefficient its own adaptive integral), as :class:`Estimate` s.

    A coefficient that vanishes by parity (:func:`parity_zero_degrees`) is an exact 0 (error 0); one whose quadrature
    value is within its own error estimate of 0 is reported as 0.0 with that error.
    """
    from .gaussian import _estimate_from_mp
    from .results import Estimate
    out = []
    with mpmath.workdps(dps):
        for k in range(k_max + 1):
            if _zero_by_parity(act, k):
                out.append(Estimate.exact(0.0, f"zero by parity (He_{k} is {'even' if k % 2 == 0 else 'odd'})"))
                continue

            def f(t, k=k):
                return act.mpmath(t) * hermite_values_mp(k, t)[k]
            val, err = mp_expectation(f, act.breakpoints, dps, error=True)
            method = f"mpmath quadrature at dps={dps}, split at {len(act.breakpoints)} kink(s)"
            if abs(val) <= err:
                out.append(Estimate(0.0, float(err), method))
            else:
                out.append(_estimate_from_mp(+val, err, method, dps))
    return out