"""The mean-field maps iterated to large depth, and the asymptotic rate at which correlations approach 1 (Poole et al.
2016; Schoenholz et al. 2017, Section 3; Hayou et al. 2019 for the polynomial rates on the edge of chaos).

* :func:`correlation_trajectory` — c^l = C(c^{l−1}) for two inputs at the length q (default the fixed point q*, which
  the length map reaches within a few ξ_q layers), tracked as the *deviation* t^l = 1 − c^l so that 1 − c keeps its
  full relative precision as c → 1 (c itself is 1 to the last bit from t ≈ 1e-16 on). The deviation map is
  D(t) = 1 − C(1 − t) = σ_w² [E φ(u)² − E φ(u₁)φ(u₂)]/q′, q′ = L(q) (Schoenholz eqs 3–5 at ρ = 1), evaluated by:

  - *closed form* (φ positively homogeneous of degree k with a known dual σ̂, the ReLU family and the step):
    E φ(u₁)φ(u₂) = q^k σ̂(c); for t < 10⁻⁴ the Puiseux series of σ̂(1) − σ̂(1 − s²) in s = √t (sympy, exact
    coefficients: ReLU's D(t) = t − (2√2/3π) t^{3/2} + …), above it σ̂ in mpmath at 40 digits;
  - *Taylor* (φ analytic: no breakpoint): D(t) = Σ_{j≤8} (−1)^{j+1} C^{(j)}(1) t^j/j! with
    C^{(j)}(1) = σ_w² q^j E φ^{(j)}(√q z)²/q′ (Price's theorem), each an mpmath quadrature, below the t where the
    last term is under 10⁻¹⁷ of the sum; above it a Chebyshev interpolant of D(t)/t (degree 48, checked to 10⁻¹³
    against the bivariate float rule at the midpoints of its nodes) or the rule itself;
  - otherwise (a kink without a closed-form dual) the bivariate rule at every step, refused once its relative error
    would exceed 10⁻⁸ (the deviation is then below what it can resolve).

  A trajectory that settles (a fixed point c* < 1, or t below 10⁻³⁰⁰) is filled with its limit. Each step's
  relative error bound is accumulated (a sum: conservative for the contracting dynamics here) with the float rounding.
* :func:`length_trajectory` — q^l = L(q^{l−1}) by a float64 Gauss–Legendre rule per layer (relative error ~1e-15),
  filled with q* once it settles.
* :func:`asymptotic_rate` — the constant and exponent of 1 − c^l ≈ A l^{−p} (or A e^{−l/ξ}) with an error, from a
  trajectory: p from the local slope d log t/d log l, taken exact when it is within 0.02 of a half-integer; then
  u = t^{−1/p} is fitted linearly in (l, log l, 1, log l/l, 1/l) — the expansion of the recursion
  t ← t − κ t^{1+1/p} + … — over [l₀, L]; A = slope^{−p}, its error the spread of the fits over two windows and
  two bases plus the fit's own standard error.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import mpmath
import numpy as np
import sympy as sp

from . import validate
from .activations import Activation, rho as _rho
from .errors import DeepinitError, UndefinedQuantityError
from .gaussian import bivariate_expectation
from .meanfield_mlp import (_DPS, _act, _float_moments, _homogeneous_marginal, _moment, _params, _q,
                            fixed_point_q)
from .results import Estimate

__all__ = ["RateFit", "Trajectory", "asymptotic_rate", "correlation_trajectory", "length_trajectory"]

#: the largest depth a trajectory may ask for
MAX_DEPTH = 10 ** 7
#: the small-t branch of a closed-form deviation map: below this t the Puiseux series is used
_PUISEUX_SWITCH = 1e-4
_PUISEUX_ORDER = 14          # powers of s = √t up to s^13
_TAYLOR_TERMS = 8
_EPS = 2.0 ** -53


@dataclass(frozen=True)
class Trajectory:
    """A mean-field trajectory l = 0..depth.

    Attributes
    ----------
    layers : numpy.ndarray
        0, 1, …, depth.
    values : numpy.ndarray
        q^l (:func:`length_trajectory`) or c^l (:func:`correlation_trajectory`, in [−1, 1]).
    deviation : numpy.ndarray or None
        1 − c^l with full relative precision (correlations only).
    relative_error : numpy.ndarray
        A bound on the relative error of ``deviation`` (or of ``values`` for q) at each layer: non-negative
        (checked at construction, with one entry per layer in every array).
    method : str
        The routes used and where they switched.

    Examples
    --------
    >>> tr = length_trajectory("relu", 1.0, 0.5, 4.0, 3)           # q ← q/2 + 1/2
    >>> [round(float(v), 12) for v in tr.values], tr.deviation is None
    ([4.0, 2.5, 1.75, 1.375], True)
    """

    layers: np.ndarray
    values: np.ndarray
    deviation: np.ndarray | None
    relative_error: np.ndarray
    method: str

    def __post_init__(self):
        n = len(self.layers)
        if not (len(self.values) == len(self.relative_error) == n
                and (self.deviation is None or len(self.deviation) == n)):
            raise ValueError("a Trajectory's layers, values, deviation and relative errors must have one entry per layer")
        if not np.all(self.relative_error >= 0):                  # NaN fails too
            raise ValueError("a Trajectory's relative errors must be non-negative")


# ---------------------------------------------------------------------------------------------
# the deviation map D(t) = 1 − C(1 − t)
# ---------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=32)
def _puiseux(expr_key: str, order: int) -> tuple[float, ...]:
    """Float coefficients p_1..p_order of σ̂(1) − σ̂(1 − s²) = Σ p_j s^j (s = √t > 0), from sympy's series."""
    expr = sp.sympify(expr_key, locals={"rho": _rho})
    s = sp.Symbol("s", positive=True)
    f = expr.subs(_rho, 1) - expr.subs(_rho, 1 - s ** 2)
    f = f.rewrite(sp.asin) if f.has(sp.acos) else f
    ser = sp.series(f, s, 0, order + 1).removeO()
    poly = sp.Poly(sp.expand(ser), s)
    coeffs = [0.0] * (order + 1)
    for (power,), c in poly.terms():
        coeffs[power] = float(sp.N(c, 30))
    if coeffs[0] != 0.0:
        raise DeepinitError("the dual's series at c = 1 has a constant term: σ̂(1) − σ̂(1 − t) must vanish at t = 0")
    return tuple(coeffs[1:])


class _Deviation:
    """D(t) = 1 − C(1 − t) at length q, and a bound on its relative error, for one (φ, σ_w², σ_b², q)."""

    def __init__(self, act: Activation, sw: float, sb: float, q: float):
        self.act, self.sw, self.sb, self.q = act, sw, sb, q
        with mpmath.workdps(40):
            self.m2 = _moment(act, "phi2", mpmath.mpf(q), _DPS)[0]           # E φ(√q z)²
            self.qprime = float(sw * self.m2 + sb)
        self.small = None
        self.switch = 0.0
        k = act.homogeneity_degree
        if act.dual_closed_form is not None and k is not None:
            self.kind = "closed form"
            self.scale = sw * q ** k / self.qprime
            self.coeffs = _puiseux(sp.srepr(act.dual_closed_form), _PUISEUX_ORDER)
            self.switch = _PUISEUX_SWITCH
            self.dual_mp = sp.lambdify(_rho, act.dual_closed_form, modules="mpmath")
            self.small = self._puiseux_value
        elif self._smooth():
            self.kind = "Taylor"
            self._taylor_setup()
        else:
            self.kind = "quadrature"

    # -- routes ------------------------------------------------------------------------------------------------
    def _smooth(self) -> bool:
        """No breakpoint: φ is analytic on the line and its derivatives carry no Dirac mass."""
        return not self.act.breakpoints and not self.act.is_constant

    def _taylor_setup(self):
        """C^{(j)}(1)/j! = σ_w² q^j E φ^{(j)}(√q z)²/(q′ j!), j = 1..J (Price's theorem), in mpmath, the derivatives
        by sympy."""
        from .activations import x as _x
        from .gaussian import mp_gaussian
        q, out = mpmath.mpf(self.q), []
        expr = self.act.expr
        with mpmath.workdps(30):
            for j in range(1, _TAYLOR_TERMS + 1):
                expr = sp.diff(expr, _x)
                f = sp.lambdify(_x, expr, modules="mpmath")
                v, _, _ = mp_gaussian(lambda u: f(u) ** 2, q, (), 20)
                out.append(float(self.sw * q ** j * v / (self.qprime * mpmath.factorial(j))))
        self.taylor = out
        # the largest t at which the last term is below 1e-17 of the first (a geometric tail beyond it)
        first, last = abs(out[0]), abs(out[-1])
        if last == 0.0:
            self.switch = 0.1
        else:
            self.switch = min(0.1, (1e-17 * first / last) ** (1.0 / (_TAYLOR_TERMS - 1)))
        self.small = self._taylor_value
        self._chebyshev()

    def _chebyshev(self, degree: int = 48):
        """D(t)/t on [switch, 2] as a Chebyshev interpolant of the bivariate rule (φ analytic: C is analytic on
        [−1, 1]), checked at the midpoints between its nodes; used when it is good to 1e-13 relative."""
        lo, hi = self.switch, 2.0
        k = np.arange(degree + 1)
        nodes = 0.5 * (hi + lo) + 0.5 * (hi - lo) * np.cos(np.pi * k / degree)
        vals = np.array([self._direct(t)[0] / t for t in nodes])
        cheb = np.polynomial.chebyshev.Chebyshev.fit(nodes, vals, degree, domain=[lo, hi])
        mids = 0.5 * (hi + lo) + 0.5 * (hi - lo) * np.cos(np.pi * (k[:-1] + 0.5) / degree)
        check = max(abs(cheb(t) - self._direct(t)[0] / t) / abs(self._direct(t)[0] / t) for t in mids[::2])
        if check < 1e-13:
            self.cheb, self.cheb_error = cheb, check + 1e-15

    def _puiseux_value(self, t: float) -> tuple[float, float]:
        s = math.sqrt(t)
        acc = 0.0
        for c in reversed(self.coeffs):
            acc = acc * s + c
        val = self.scale * acc * s
        tail = abs(self.coeffs[-1]) * s ** len(self.coeffs) * self.scale
        return val, (tail / abs(val) if val else 0.0) + 4 * _EPS

    def _taylor_value(self, t: float) -> tuple[float, float]:
        acc = 0.0
        for j in range(len(self.taylor), 0, -1):
            acc = acc * t + (self.taylor[j - 1] if j % 2 else -self.taylor[j - 1])
        val = acc * t
        tail = abs(self.taylor[-1]) * t ** len(self.taylor)
        return val, (tail / abs(val) if val else 0.0) + 4 * _EPS

    cheb = None
    cheb_error = 0.0

    def large(self, t: float) -> tuple[float, float]:
        """D(t) away from 0 (and its relative error): the Chebyshev interpolant where one was built, else direct."""
        if self.cheb is not None and t >= self.switch:
            return float(self.cheb(t)) * t, self.cheb_error
        return self._direct(t)

    def _direct(self, t: float) -> tuple[float, float]:
        c = 1.0 - t
        if self.kind == "closed form":
            with mpmath.workdps(40):
                d = self.dual_mp(mpmath.mpf(1)) - self.dual_mp(1 - mpmath.mpf(t))
                return float(self.scale * d), 4 * _EPS
        e = bivariate_expectation(self.act, self.act, self.q, self.q, c * self.q)
        num = float(self.m2) - e.value
        val = self.sw * num / self.qprime
        rel = (e.error + _EPS * float(self.m2)) / abs(num) if num else math.inf
        return val, rel + 4 * _EPS

    def __call__(self, t: float) -> tuple[float, float]:
        if self.small is not None and t < self.switch:
            return self.small(t)
        return self.large(t)


# ---------------------------------------------------------------------------------------------
# trajectories
# ---------------------------------------------------------------------------------------------

def _depth(depth) -> int:
    return validate.integer(depth, "depth", 0, MAX_DEPTH, f"the depth must be an integer in [0, {MAX_DEPTH}]")


def correlation_trajectory(act, sigma_w2, sigma_b2, c0: float, depth: int, *, q: float | None = None) -> Trajectory:
    """c^l = C(c^{l−1}), l = 1..depth, for two inputs at the length q (Schoenholz eq 5 at ρ = 1), with 1 − c^l at
    full relative precision (the module docstring gives the routes).

    Parameters
    ----------
    act : Activation or str
        φ (a registry name, a formula or an Activation).
    sigma_w2, sigma_b2 : float
        Weight and bias variances σ_w² > 0, σ_b² ≥ 0.
    c0 : float
        The input correlation c⁰ ∈ [−1, 1].
    depth : int
        The number of layers (up to 10⁷).
    q : float, optional
        The length of both inputs at every layer; default q* (:func:`theory.fixed_point_q`; 1 where every q is a
        fixed point, ReLU at σ_w² = 2, σ_b² = 0, whose correlation map does not depend on q).

    Returns
    -------
    Trajectory
        ``values`` c^l in [−1, 1], ``deviation`` 1 − c^l, ``relative_error`` its bound.

    Examples
    --------
    >>> tr = correlation_trajectory("relu", 2.0, 0.0, 0.5, 1000)
    >>> round(float(tr.deviation[1000]) * 1000 ** 2 / (9 * math.pi ** 2 / 2), 2)   # 1 − c^l → 9π²/(2l²)
    0.97
    """
    act = _act(act)
    sw, sb, _ = _params(sigma_w2, sigma_b2)
    depth = _depth(depth)
    c0 = float(c0)
    if not (-1.0 <= c0 <= 1.0):
        raise DeepinitError(f"c0 = {c0!r} must lie in [−1, 1]")
    if q is None:
        q = 1.0 if _homogeneous_marginal(act, sw, sb, 1.0, _DPS) else fixed_point_q(act, sw, sb).value
        if q == 0.0:
            raise UndefinedQuantityError(f"{act.name} at σ_w² = {sw:g}, σ_b² = {sb:g}: q* = 0, every input collapses "
                                         "to 0 and the correlation is undefined")
    q = _q(q)
    if q <= 0:
        raise DeepinitError("the length q must be > 0")
    dev = _Deviation(act, sw, sb, q)
    t = np.empty(depth + 1)
    rel = np.empty(depth + 1)
    t[0], rel[0] = 1.0 - c0, 0.0
    acc, settled_at = 0.0, None
    for l in range(1, depth + 1):
        prev = t[l - 1]
        if prev == 0.0:
            new, r = 0.0, 0.0
        else:
            new, r = dev(prev)
            if dev.kind == "quadrature" and r > 1e-8:
                raise UndefinedQuantityError(
                    f"{act.name}: 1 − c = {prev:.3g} at layer {l - 1} is below what the bivariate rule resolves "
                    f"(relative error {r:.2g}); a kinked activation needs a closed-form dual to go deeper")
            new = min(max(new, 0.0), 2.0)
        acc += r + _EPS
        t[l], rel[l] = new, acc
        if new == prev or new < 1e-300:
            settled_at = l
            t[l + 1:] = new if new >= 1e-300 else 0.0
            rel[l + 1:] = acc
            break
    c = np.clip(1.0 - t, -1.0, 1.0)
    how = (f"deviation map D(t) = 1 − C(1 − t) at q = {q:.10g}: {dev.kind}"
           + (f" below t = {dev.switch:.3g}" if dev.small is not None else "")
           + (f"; settled at layer {settled_at}" if settled_at else ""))
    return Trajectory(np.arange(depth + 1), c, t, rel, how)


def length_trajectory(act, sigma_w2, sigma_b2, q0: float, depth: int) -> Trajectory:
    """q^l = (σ_w²) E φ(√q^{l−1} z)² + σ_b², l = 1..depth (Schoenholz eq 3, ρ = 1), by a float64 Gauss–Legendre
    rule per layer (about 1e-12 relative, the scan rule of :func:`theory.length_fixed_points`), the rest of the
    trajectory filled with its limit once it settles.

    Parameters
    ----------
    act : Activation or str
        φ.
    sigma_w2, sigma_b2 : float
        σ_w² > 0, σ_b² ≥ 0.
    q0 : float
        q⁰ ≥ 0.
    depth : int
        The number of layers.

    Returns
    -------
    Trajectory
        ``values`` q^l.

    Examples
    --------
    >>> tr = length_trajectory("relu", 1.0, 0.5, 4.0, 60)       # q ← q/2 + 1/2 → 1
    >>> round(float(tr.values[60]), 12)
    1.0
    """
    act = _act(act)
    sw, sb, _ = _params(sigma_w2, sigma_b2)
    depth = _depth(depth)
    q = np.empty(depth + 1)
    q[0] = _q(q0, "q0")
    settled = None
    for l in range(1, depth + 1):
        m2, _ = _float_moments(act, np.array([q[l - 1]]), derivative=False)
        q[l] = sw * m2[0] + sb
        if not math.isfinite(q[l]):
            raise UndefinedQuantityError(f"{act.name}: q^l overflows at layer {l} (the length map has no finite limit "
                                         "from this q⁰)")
        if q[l] == q[l - 1]:
            q[l + 1:] = q[l]
            settled = l
            break
    rel = np.minimum(np.arange(depth + 1) * 1e-12, 1.0)
    return Trajectory(np.arange(depth + 1), q, None, rel,
                      "float64 Gauss–Legendre length map per layer" + (f"; settled at layer {settled}" if settled else ""))


# ---------------------------------------------------------------------------------------------
# asymptotic rates
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RateFit:
    """1 − c^l ≈ A·l^{−p} (``kind`` "power") or A·e^{−l/ξ} (``kind`` "exponential", ``exponent`` = 1/ξ).

    Attributes
    ----------
    constant : Estimate
        A with its error.
    exponent : Estimate
        p (exact when taken as the half-integer the local slope points to) or 1/ξ.
    kind : str
        ``"power"`` or ``"exponential"``.
    window : tuple
        The layers (first, last) fitted.
    method : str
        How.

    Examples
    --------
    >>> fit = asymptotic_rate(correlation_trajectory("tanh", 1.5, 0.05, 0.5, 400))
    >>> fit.kind, round(fit.exponent.value, 6)                     # off the edge: e^{−l/ξ_c}, 1/ξ_c = −log χ₁
    ('exponential', 0.063327)
    """

    constant: Estimate
    exponent: Estimate
    kind: str
    window: tuple
    method: str


def _power_fit(l: np.ndarray, t: np.ndarray, p: float, terms: int) -> tuple[float, float]:
    """slope of u = t^(−1/p) against (l, log l, 1, log l/l, 1/l)[:terms]; returns (A = slope^−p, its standard
    error)."""
    u = t ** (-1.0 / p)
    basis = [l, np.log(l), np.ones_like(l), np.log(l) / l, 1.0 / l][:terms]
    X = np.stack(basis, axis=1)
    scale = np.max(np.abs(X), axis=0)
    Xs = X / scale
    coef, *_ = np.linalg.lstsq(Xs, u, rcond=None)
    resid = u - Xs @ coef
    dof = max(len(u) - terms, 1)
    s2 = float(resid @ resid) / dof + (1e-16 * float(np.max(np.abs(u)))) ** 2
    cov = s2 * np.linalg.inv(Xs.T @ Xs)
    slope, se = coef[0] / scale[0], math.sqrt(max(cov[0, 0], 0.0)) / scale[0]
    A = slope ** (-p)
    return A, abs(p * A / slope) * se


def asymptotic_rate(trajectory: Trajectory, *, first: int | None = None, exponent: float | None = None) -> RateFit:
    """The constant and exponent of the approach 1 − c^l → 0 of a :func:`correlation_trajectory`.

    Power law (the edge of chaos): the local exponent p̂ = −Δ log t/Δ log l over the last decade decides p (taken
    exact when within 0.02 of a half-integer, else p̂ with its spread); u = t^{−1/p} is fitted by least squares in
    (l, log l, 1, log l/l, 1/l) over a log-spaced sample of [``first``, L] (default L/100), and A = slope^{−p}.
    The error adds the fit's standard error to the largest change of A when the window starts at 2·``first`` or the
    last one or two basis functions are dropped. Exponential (χ₁ < 1 off the edge): log t fitted linearly in l over
    the last half, exponent 1/ξ, its error the change when only the last quarter is fitted.

    Parameters
    ----------
    trajectory : Trajectory
        From :func:`correlation_trajectory`, with 1 − c^l > 0 over the window.
    first : int, optional
        The first layer of the window.
    exponent : float, optional
        p, when it is known (skips its estimate).

    Returns
    -------
    RateFit
        The constant A and exponent p (or 1/ξ) with their errors, the kind and the window.

    Examples
    --------
    >>> fit = asymptotic_rate(correlation_trajectory("relu", 2.0, 0.0, 0.5, 20000))
    >>> fit.kind, fit.exponent.value, abs(fit.constant.value / (9 * math.pi ** 2 / 2) - 1) < 1e-4
    ('power', 2.0, True)
    """
    t = trajectory.deviation
    if t is None:
        raise DeepinitError("asymptotic_rate needs a correlation trajectory (its deviation 1 − c^l)")
    L = int(trajectory.layers[-1])
    if L < 100:
        raise DeepinitError("asymptotic_rate needs a trajectory of at least 100 layers")
    first = max(10, L // 100) if first is None else validate.integer(first, "first", 1, L // 4)
    if not np.all(t[first:] > 0):
        raise UndefinedQuantityError("1 − c^l reaches 0 (or a fixed point) inside the window: no rate to fit")
    lo, hi = L // 10, L
    p_loc = -math.log(t[hi] / t[lo]) / math.log(hi / lo)
    slope_lin = -math.log(t[hi] / t[lo]) / (hi - lo)
    # exponential decay: the local exponent keeps growing with l (p_loc ~ l/ξ); a power law keeps it fixed
    p_mid = -math.log(t[lo] / t[max(lo // 10, 1)]) / math.log(lo / max(lo // 10, 1))
    if p_loc > 1.5 * p_mid + 0.5 and slope_lin > 1e-6:
        lo = L // 2                              # the transient of the first layers left out
        ls = np.arange(lo, hi + 1, dtype=float)
        coef = np.polyfit(ls, np.log(t[lo:hi + 1]), 1)
        rate = -coef[0]
        half = np.polyfit(ls[len(ls) // 2:], np.log(t[lo + len(ls) // 2:hi + 1]), 1)
        return RateFit(Estimate(math.exp(coef[1]), abs(math.exp(coef[1]) - math.exp(half[1])), "log t linear in l"),
                       Estimate(rate, abs(rate + half[0]), "−slope of log(1 − c^l)"), "exponential", (lo, hi),
                       "exponential: 1 − c^l ≈ A e^{−l/ξ}")
    if exponent is None:
        snapped = round(p_loc * 2) / 2
        if abs(p_loc - snapped) < 0.02 and snapped > 0:
            p, p_est = snapped, Estimate.exact(snapped, f"the half-integer the local exponent {p_loc:.4f} points to")
        else:
            p, p_est = p_loc, Estimate(p_loc, abs(p_loc - p_mid), "local exponent over the last decade")
    else:
        p = float(exponent)
        p_est = Estimate.exact(p, "given")
    fits = []
    for start in (first, 2 * first):
        ls = np.unique(np.geomspace(start, L, 400).astype(int)).astype(float)
        ts = t[ls.astype(int)]
        for terms in (5, 4, 3):
            fits.append(_power_fit(ls, ts, p, terms))
    A, se = fits[0]
    spread = max(abs(f[0] - A) for f in fits[:2] + fits[3:5])
    return RateFit(Estimate(A, se + spread, f"u = (1 − c^l)^(−1/p) fitted in (l, log l, 1, log l/l, 1/l) on "
                                           f"[{first}, {L}]"), p_est, "power", (first, L),
                   f"power law: 1 − c^l ≈ A l^(−{p:g})")
