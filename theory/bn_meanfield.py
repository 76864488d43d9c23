"""Mean-field theory of batch normalisation (bn-mean-field: Yang, Pennington, Rao, Sohl-Dickstein, Schoenholz,
ICLR 2019): the BSB1 fixed point, the forward Jacobian's eigenvalues and the gradient-explosion rate.

Notation (the paper's): batch size B, φ̃(h) = φ(√B Gh/‖Gh‖) with G = I − 11ᵀ/B, the mean-field map
V_φ̃(Σ) = E[φ̃(h)φ̃(h)ᵀ], h ~ N(0, Σ) (eq 10), BSB1 fixed point Σ* = q*((1 − c*)I + c*11ᵀ).

One exact numerical core. For h ~ N(0, Σ*), Gh is isotropic in 1^⊥, so u = Gh/‖Gh‖ is uniform on the unit
sphere of the (B − 1)-dimensional space 1^⊥, independent of r = ‖Gh‖. Every quantity below is an expectation
over u that — after conditioning on one or two coordinates and using only the exchangeability of the others
(their sum is −(u_i + u_j), their sum of squares 1 − u_i² − u_j²) — reduces *exactly* to a 1-D integral over
x₁ = √B u₁ (density ∝ (B − 1 − x₁²)^{(B−4)/2}) or a 2-D integral over (x₁, x₂) (density ∝ Z^{(B−5)/2}, the
ellipse of Theorem 7). Those are computed by Gauss–Jacobi rules split at the activation's kinks (``_rule_1d``,
``_rule_2d``).

* Fixed point (Theorem 4): q* = E φ(x₁)², q*c* = E φ(x₁)φ(x₂).
* Forward Jacobian (Theorems 1, 6): with s = q*(1 − c*) and E' = GEG, the law of u under N(0, Σ* + εE) has
  the angular-central-Gaussian density whose ε-derivative gives, exactly,
  dV[E] = (1/2s) E[φ(√Bu)φ(√Bu)ᵀ ((B − 1) uᵀE'u − tr E')]; on the eigenvectors of Theorem 1 this is
  λ_𝕃 = a − 2b and λ_𝕄 below (:func:`bn_jacobian_eigenvalues`); λ_𝔾 = 0 by scale invariance.
* Backward map (eqs 21–23): ∂φ̃/∂h = √B r⁻¹ diag φ′(√Bu) (G − uuᵀ) and E r⁻² = 1/(s(B − 3)), so the top
  eigenvalue (eigenvector G) is λ_max = (1/(s(B − 3))) E[(B − 1 − x₁²)φ′(x₁)² + (1 + x₁x₂)φ′(x₁)φ′(x₂)]
  (:func:`gradient_explosion_rate`) — the integrand of Theorem 7.

Printed forms kept separately so that the checks can compare them: :func:`theorem4_fixed_point` (the θ-integrals,
also the mpmath route), :func:`theorem5_relu_fixed_point`, :func:`theorem6_relu_eigenvalues`,
:func:`theorem7_rate`, :func:`theorem8_alpha_relu_rate`, :func:`theorem9_gegenbauer_rate`.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import mpmath
import numpy as np
import sympy as sp
from scipy import special

from .activations import Activation, _build_activation, activation, x as _x
from . import validate
from .results import Estimate
from .errors import DeepinitError, QuadratureError, UndefinedQuantityError

_NODES = 160  # per piece: 1e-13 relative for the registered activations up to B = 1024 (tests)


def _check_batch(B, minimum: int = 4, what: str = "the BSB1 fixed point") -> int:
    return validate.batch_size(B, minimum, what)


def _kinks_at_zero_only(act: Activation) -> None:
    if any(abs(b) > 1e-15 for b in act.breakpoints):
        raise DeepinitError(f"{act.name}: the sphere quadrature supports activations whose kinks are at 0 only "
                            f"(kinks at {act.breakpoints})")


# ---------------------------------------------------------------------------------------------
# Quadrature rules for the 1- and 2-coordinate marginals of √B·(uniform point of the sphere in 1^⊥)
# ---------------------------------------------------------------------------------------------

def _jacobi(n: int, a: float, b: float, lo: float, hi: float):
    """Nodes/weights for ∫_lo^hi f(t)(hi − t)^a (t − lo)^b dt."""
    t, w = special.roots_jacobi(n, a, b)
    half = (hi - lo) / 2
    return lo + half * (t + 1), w * half ** (1 + a + b)


def _concentrated(n: int, k: float, power: float = 0.0):
    """Nodes/weights on [0, 1] for the weight t^power (1 − t²)^k with k large (B ≳ 40): scipy's Gauss–Jacobi
    nodes lose digits there (≈ 3e-13 at k = 510), but the weight is < 1e-32 beyond T = sqrt(1 − e^{−74/k}),
    and Gauss–Legendre on [0, T] with the weight written out is accurate to rounding."""
    T = math.sqrt(-math.expm1(-74.0 / k))
    g, gw = np.polynomial.legendre.leggauss(n)
    t = T / 2 * (g + 1)
    return t, T / 2 * gw * t ** power * np.exp(k * np.log1p(-t * t))


@functools.lru_cache(maxsize=256)
def _rule_1d(B: int, nodes: int):
    """(x, w): E f(x₁) ≈ Σ w f(x), x₁ = √B u₁ with density ∝ (1 − t²)^{(B−4)/2}, t = x₁/√(B−1); split at 0."""
    k = (B - 4) / 2
    xs, ws = [], []
    if k >= 20:
        t, w = _concentrated(nodes, k)
        xs, ws = [-t[::-1], t], [w[::-1], w]
    for lo, hi in (((-1.0, 0.0), (0.0, 1.0)) if k < 20 else ()):
        a_hi, a_lo = (0.0, k) if lo == -1.0 else (k, 0.0)
        t, w = _jacobi(nodes, a_hi, a_lo, lo, hi)
        w = w * (1 - t) ** (k - a_hi) * (1 + t) ** (k - a_lo)
        xs.append(t)
        ws.append(w)
    t, w = np.concatenate(xs), np.concatenate(ws)
    w = w / w.sum()
    x = math.sqrt(B - 1) * t
    x.setflags(write=False)
    w.setflags(write=False)
    return x, w


@functools.lru_cache(maxsize=256)
def _rule_2d(B: int, nodes: int):
    """(x₁, x₂, w) for E F(x₁, x₂) over the 2-coordinate marginal: (x₁, x₂) = √(B−1)(a, cos θ a + sin θ b),
    cos θ = −1/(B − 1), (a, b) in the unit disk with density ∝ (1 − a² − b²)^{(B−5)/2}; polar coordinates,
    the angle split on the four rays where x₁ = 0 or x₂ = 0 (the kinks)."""
    cos_t = -1.0 / (B - 1)
    sin_t = math.sqrt(1 - cos_t ** 2)
    kr = (B - 5) / 2
    if kr >= 20:
        r, wr = _concentrated(nodes, kr, 1.0)
    else:
        r, wr = _jacobi(nodes, kr, 1.0, 0.0, 1.0)   # weight (1 − r)^{kr} r
        wr = wr * (1 + r) ** kr
    th = math.atan2(sin_t, cos_t)
    cuts = sorted({0.0, 2 * math.pi, math.pi / 2, 3 * math.pi / 2,
                   (th + math.pi / 2) % (2 * math.pi), (th - math.pi / 2) % (2 * math.pi)})
    gx, gw = np.polynomial.legendre.leggauss(nodes)
    R = math.sqrt(B - 1)
    X1, X2, W = [], [], []
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        ph = (lo + hi) / 2 + (hi - lo) / 2 * gx
        wp = (hi - lo) / 2 * gw
        a = r[:, None] * np.cos(ph)[None, :]
        b = r[:, None] * np.sin(ph)[None, :]
        X1.append((R * a).ravel())
        X2.append((R * (cos_t * a + sin_t * b)).ravel())
        W.append((wr[:, None] * wp[None, :]).ravel())
    x1, x2, w = np.concatenate(X1), np.concatenate(X2), np.concatenate(W)
    w = w / w.sum()
    for v in (x1, x2, w):
        v.setflags(write=False)
    return x1, x2, w


def _finite_dot(w, v, what: str) -> float:
    v = np.asarray(v, dtype=float)
    out = float(np.dot(w, np.broadcast_to(v, w.shape)))
    if not math.isfinite(out):
        raise QuadratureError(f"{what}: the integrand is not finite on the quadrature nodes")
    return out


@functools.lru_cache(maxsize=256)
def _rule_rounding(B: int) -> float:
    """The sphere rules' own relative error on integrals known exactly, the larger of the two rule sizes: in 1-D
    E x₁² = 1 and E x₁²·1{x₁ > 0} = 1/2, in 2-D E x₁² = 1, E max(x₁, 0)² = 1/2 and E x₁x₂ = −1/(B − 1) (‖x‖² = B on
    1^⊥). Both rule sizes share the rounding of their nodes and weights (≈ 1e-14, up to 2e-13 for some B), which
    their difference cannot see; this measures it on answers known exactly."""
    worst = 0.0
    for nodes in (_NODES, _NODES // 2 + 17):
        x, w = _rule_1d(B, nodes)
        x1, x2, w2 = _rule_2d(B, nodes)
        worst = max(worst, abs(float(w @ (x * x)) - 1.0), 2 * abs(float(w @ (x * x * (x > 0))) - 0.5),
                    abs(float(w2 @ (x1 * x1)) - 1.0), 2 * abs(float(w2 @ np.maximum(x1, 0.0) ** 2) - 0.5),
                    abs(float(w2 @ (x1 * x2)) * (B - 1) + 1.0))
    return worst


def _converged(compute, what: str, rtol: float = 1e-11, batch_size: int | None = None):
    """Run ``compute(nodes)`` at two rule sizes; raise QuadratureError if they disagree beyond ``rtol``.

    The error is their largest relative difference, never below 4 float64 ulps: two rules that happen to agree to
    the last bit still carry the rounding of their sums, and an error of 0 would claim an exact value. With
    ``batch_size`` B (the sums use the sphere rules of that B), never below twice the rules' own relative error on
    integrals known exactly (:func:`_rule_rounding`): the rounding of the nodes and weights that the two rule sizes
    share, which their difference does not show."""
    a = compute(_NODES)
    b = compute(_NODES // 2 + 17)
    va, vb = np.atleast_1d(np.asarray(a, dtype=float)), np.atleast_1d(np.asarray(b, dtype=float))
    scale = np.maximum(np.abs(va), 1e-300)
    err = max(float(np.max(np.abs(va - vb) / np.maximum(scale, np.max(np.abs(va)) * 1e-3))),
              4 * float(np.finfo(float).eps))
    if batch_size is not None:
        err = max(err, 2 * _rule_rounding(batch_size))
    if not err < rtol * 1e3:
        raise QuadratureError(f"{what}: quadrature did not converge (two rule sizes differ by {err:.2e} relative); "
                              "the activation is too rough or grows too fast for this batch size")
    return a, err


# ---------------------------------------------------------------------------------------------
# BSB1 fixed point (Theorems 4, 5)
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class BSB1FixedPoint:
    """The BSB1 fixed point Σ* = q*((1 − c*)I + c*11ᵀ) (bn-mean-field Theorem 4) — the same matrix as
    bn-finite-width's G* = b*((1 − c*)I + c*11ᵀ) (eq 16), so one type serves both notations: ``q``/``b``,
    ``batch_size``/``n``, ``sigma``/``gram``, and the spectrum of G*. Iterable as (q*, c*).

    Attributes
    ----------
    activation : str
        The activation's name.
    batch_size : int
        B (bn-finite-width's n).
    q : float
        q* (bn-finite-width's b*), the diagonal of Σ*.
    c : float
        c*, the correlation of Σ*.
    error : float
        The relative disagreement of two quadrature sizes (0 for the mpmath route and the closed forms); ``error ·
        q`` bounds the error of q* and of q*c*.
    eps, gamma, beta : float
        Batch norm's ε, γ, β: BN(h) = γ √B Gh/sqrt(‖Gh‖² + Bε) + β (the paper: 0, 1, 0).
    method : str
        How q* and c* were computed (the package's result convention: values, error, method).

    Examples
    --------
    >>> from theory import bsb1_fixed_point
    >>> fp = bsb1_fixed_point("relu", 4)
    >>> round(fp.q, 10), round(fp.c, 10), round(fp.s, 10)
    (0.5, 0.169496588, 0.415251706)
    >>> [round(float(x), 6) for x in fp.eigenvalues]      # b*(1 + (n − 1)c*), then b*(1 − c*) three times (eq 16)
    [0.754245, 0.415252, 0.415252, 0.415252]
    """

    activation: str
    batch_size: int
    q: float
    c: float
    error: float = 0.0  # relative disagreement of two quadrature sizes
    # the batch norm: BN_{ε,γ,β}(h) = γ √B Gh/sqrt(‖Gh‖² + Bε) + β (the paper's setting: ε = 0, γ = 1, β = 0)
    eps: float = 0.0
    gamma: float = 1.0
    beta: float = 0.0
    method: str = ""

    def __iter__(self):
        return iter((self.q, self.c))

    def estimates(self) -> dict:
        """q* and c* as :class:`~theory.results.Estimate` s (value, absolute error, method).

        ``error · q`` bounds the errors of q* and q*c* (attribute ``error``), so c* = q*c*/q* is within
        ``error · (1 + |c*|)``; each error also holds the rounding of the float (half a unit in the last place).

        Examples
        --------
        >>> from theory import bsb1_fixed_point
        >>> q = bsb1_fixed_point("relu", 8).estimates()["q"]        # ReLU: q* = 1/2 exactly
        >>> abs(q.value - 0.5) <= q.error < 1e-12
        True
        """
        q, c, e = float(self.q), float(self.c), float(self.error)
        return {"q": Estimate(q, e * abs(q) + 0.5 * math.ulp(q), self.method),
                "c": Estimate(c, e * (1 + abs(c)) + 0.5 * math.ulp(c), self.method)}

    @property
    def s(self) -> float:
        """q*(1 − c*): the eigenvalue of Σ* on 1^⊥ (GΣ*G = sG)."""
        return self.q * (1 - self.c)

    @property
    def sigma(self) -> np.ndarray:
        B = self.batch_size
        return self.q * ((1 - self.c) * np.eye(B) + self.c * np.ones((B, B)))

    # bn-finite-width's notation for the same fixed point: G* = b*((1 − c*)I + c*11ᵀ) (eq 16), batch size n
    @property
    def b(self) -> float:
        return self.q

    @property
    def n(self) -> int:
        return self.batch_size

    @property
    def gram(self) -> np.ndarray:
        return self.sigma

    @property
    def eigenvalue_ones(self) -> float:
        """Eigenvalue on the all-ones direction: b*(1 + (n − 1)c*)."""
        return float(self.q * (1 + (self.batch_size - 1) * self.c))

    @property
    def eigenvalue_bulk(self) -> float:
        """Eigenvalue on 1^⊥ (multiplicity n − 1): b*(1 − c*) = s."""
        return float(self.q * (1 - self.c))

    @property
    def eigenvalues(self) -> np.ndarray:
        """Descending."""
        return np.sort(np.array([self.eigenvalue_ones] + [self.eigenvalue_bulk] * (self.batch_size - 1)))[::-1]

    @property
    def singular(self) -> bool:
        return min(self.eigenvalue_ones, self.eigenvalue_bulk) <= 1e-12 * float(self.q)

    @property
    def inverse_norm(self) -> float:
        """‖G*⁻¹‖ (∞ when G* is singular)."""
        return math.inf if self.singular else 1.0 / min(self.eigenvalue_ones, self.eigenvalue_bulk)

    @property
    def condition_number(self) -> float:
        return math.inf if self.singular else max(self.eigenvalue_ones, self.eigenvalue_bulk) * self.inverse_norm


def _act(act) -> Activation:
    a = activation(act)
    _kinks_at_zero_only(a)
    return a


@functools.lru_cache(maxsize=2048)
def _fixed_point_cached(act: Activation, B: int) -> BSB1FixedPoint:
    f = act.numpy

    def compute(nodes):
        x, w = _rule_1d(B, nodes)
        x1, x2, w2 = _rule_2d(B, nodes)
        q = _finite_dot(w, f(x) ** 2, "q* integral")
        qc = _finite_dot(w2, f(x1) * f(x2), "q*c* integral")
        return np.array([q, qc])
    (q, qc), err = _converged(compute, f"BSB1 fixed point of {act.name} at B = {B}", batch_size=B)
    if q <= 0:
        raise UndefinedQuantityError(f"{act.name}: φ vanishes on the sphere, q* = 0; no BSB1 fixed point")
    return BSB1FixedPoint(act.name, B, float(q), float(qc / q), err,
                          method="sphere-marginal quadrature (eq 5), two rule sizes")


def bsb1_fixed_point(act, batch_size: int, dps: int | None = None, *, eps: float = 0.0, gamma: float = 1.0,
                     beta: float = 0.0) -> BSB1FixedPoint:
    """(q*, c*) of the BSB1 fixed point Σ* = q*((1 − c*)I + c*11ᵀ) (Theorem 4) for B ≥ 4.

    Float route: Gauss–Jacobi rules on the sphere marginals (relative accuracy ≈ 1e-13, checked by two
    rule sizes — :class:`QuadratureError` if they disagree). ``dps`` (15…200): Theorem 4's θ-integrals in mpmath at
    that many digits, split at the same kinks as the float route (returns mpf values; :class:`QuadratureError` if
    mpmath's error estimate says fewer digits were delivered).

    ``eps``, ``gamma``, ``beta``: batch norm BN(h) = γ √B Gh/sqrt(‖Gh‖² + Bε) + β (the paper: 0, 1, 0). With ε > 0
    the map depends on the scale s = q(1 − c) too; s* is the stable root of F(s) = s found by a log-grid bracket and
    Brent's method (a radial Gauss–Laguerre rule over r² ~ χ²_{B−1} on top of the sphere rules; ≈1e-10). When F(s) < s
    for every s > 0 the batch collapses: s* = 0, c* = 1. β ≠ 0 needs a φ without kinks (they would move off 0).

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    batch_size : int
        B, from 4 to :data:`theory.validate.MAX_BATCH`.
    dps : int, optional
        Decimal digits of the mpmath route; ``None`` (default): the float route.
    eps, gamma, beta : float
        Batch norm's ε and affine γ, β (keyword only).

    Returns
    -------
    BSB1FixedPoint
        ``q``, ``c`` and ``error`` (iterable as ``(q*, c*)``); ``sigma`` is Σ* itself, ``eigenvalues`` its spectrum.

    Examples
    --------
    >>> from theory import bsb1_fixed_point
    >>> q, c = bsb1_fixed_point("relu", 8)
    >>> round(q, 12), round(c, 12)                  # q* = 1/2 for ReLU at every B (Theorem 5)
    (0.5, 0.250134932861)
    >>> fp = bsb1_fixed_point("tanh", 8)
    >>> round(fp.q, 10), round(fp.c, 10), fp.error < 1e-12
    (0.4201694727, -0.1336499614, True)
    """
    B = _check_batch(batch_size)
    if (eps, gamma, beta) != (0.0, 1.0, 0.0):
        a = activation(act)
        eps, gamma, beta = _bn_affine(a, eps, gamma, beta)
        if a.breakpoints:
            _kinks_at_zero_only(a)
        if dps is not None:
            raise DeepinitError("the mpmath route (dps) is for the paper's BN (ε = 0, γ = 1, β = 0) only")
        return _affine_fixed_point_cached(a, B, eps, gamma, beta)
    a = _act(act)
    if dps is not None:
        dps = validate.dps(dps)
        q, qc = theorem4_fixed_point(a, B, dps=dps)
        with mpmath.workdps(dps):  # the ratio at the same precision (mpmath's default is 15 digits)
            c = qc / q
        return BSB1FixedPoint(a.name, B, q, c, method=f"Theorem 4's θ-integrals in mpmath ({dps} digits)")
    return _fixed_point_cached(a, B)


def theorem4_fixed_point(act, B: int, dps: int | None = None, nodes: int = 200):
    """(q*, q*c*) from Theorem 4 as printed (eqs 13–15): θ-integrals with weights sin^{B−3}θ₁ sin^{B−4}θ₂.

    Float: Gauss–Legendre in θ split where ζ₁ or ζ₂ vanish. ``dps``: mpmath tanh–sinh at that precision.
    """
    act = _act(act)
    B = _check_batch(B)
    if dps is None:
        return _theorem4_float(act, B, nodes)
    dps = validate.dps(dps)
    with mpmath.workdps(dps + 10):
        f = act.mpmath
        sB = mpmath.sqrt(B)
        c1 = mpmath.gamma(mpmath.mpf(B - 1) / 2) / (mpmath.gamma(mpmath.mpf(B - 2) / 2) * mpmath.sqrt(mpmath.pi))
        z1 = lambda t: -mpmath.sqrt(mpmath.mpf(B - 1) / B) * mpmath.cos(t)  # noqa: E731
        errors = []  # absolute error estimates; every integrand is O(q*) in size, so they compare with q*

        def quad(g, pts):
            v, e = mpmath.quad(g, pts, error=True)
            errors.append(abs(e))
            return v
        q = c1 * quad(lambda t: mpmath.sin(t) ** (B - 3) * f(sB * z1(t)) ** 2, [0, mpmath.pi / 2, mpmath.pi])

        def inner(t1):
            a = mpmath.cos(t1) / sB
            bcoef = mpmath.sqrt(B - 2) * mpmath.sin(t1)

            def g(t2):
                z2 = (a - bcoef * mpmath.cos(t2)) / mpmath.sqrt(B - 1)
                return mpmath.sin(t2) ** (B - 4) * f(sB * z2)
            pts = [0, mpmath.pi]
            if bcoef != 0 and abs(a / bcoef) < 1:
                pts = [0, mpmath.acos(a / bcoef), mpmath.pi]
            return mpmath.sin(t1) ** (B - 3) * f(sB * z1(t1)) * quad(g, pts)
        # the same outer cuts as the float route: θ₁ = π/2 (ζ₁ = 0) and cot θ₁ = ±sqrt(B(B − 2)), where the ζ₂ = 0
        # point enters (0, π) and the inner integral has a kink
        t_star = mpmath.atan(1 / mpmath.sqrt(B * (B - 2)))
        outer = [0, t_star, mpmath.pi / 2, mpmath.pi - t_star, mpmath.pi]
        qc = mpmath.mpf(B - 3) / (2 * mpmath.pi) * quad(inner, outer)
        worst = max(errors) / abs(q)
        if worst > mpmath.mpf(10) ** (-dps + 2):
            raise QuadratureError(f"Theorem 4's θ-integrals for {act.name} at B = {B}: mpmath's error estimate "
                                  f"{mpmath.nstr(worst, 3)} does not deliver the {dps} digits asked for")
    with mpmath.workdps(dps):
        return +q, +qc


def _theorem4_float(act: Activation, B: int, nodes: int):
    f = act.numpy
    gx, gw = np.polynomial.legendre.leggauss(nodes)

    def gl(lo, hi):
        return (lo + hi) / 2 + (hi - lo) / 2 * gx, (hi - lo) / 2 * gw
    sB = math.sqrt(B)
    c1 = math.exp(special.gammaln((B - 1) / 2) - special.gammaln((B - 2) / 2)) / math.sqrt(math.pi)
    q = 0.0
    for lo, hi in ((0, math.pi / 2), (math.pi / 2, math.pi)):
        t, w = gl(lo, hi)
        q += np.dot(w, np.sin(t) ** (B - 3) * f(-sB * math.sqrt((B - 1) / B) * np.cos(t)) ** 2)
    q *= c1
    qc = 0.0
    # the inner integral has a kink in θ₁ where the ζ₂ = 0 point enters (0, π): cot θ₁ = ±sqrt(B(B−2))
    # There the ζ₂ = 0 cut leaves the end of the inner range like √|θ₁ − θ*|: for a φ with a jump at 0 (sign, step) the
    # inner integral has a square-root singularity in θ₁ there (plain Gauss–Legendre: 9e-9 off at B = 4, where no
    # sin^{B−4} factor damps it). θ₁ = θ* ± (segment)·s² on the segments that end at θ* or π − θ* makes it smooth in s.
    t_star = math.atan(1 / math.sqrt(B * (B - 2)))
    outer = (0, t_star, math.pi / 2, math.pi - t_star, math.pi)
    for k, (lo, hi) in enumerate(zip(outer[:-1], outer[1:])):
        s, ws = gl(0.0, 1.0)
        if k % 2 == 0:   # [0, θ*] and [π/2, π − θ*]: the singular end is hi
            t1, w1 = hi - (hi - lo) * s ** 2, 2 * (hi - lo) * s * ws
        else:            # [θ*, π/2] and [π − θ*, π]: the singular end is lo
            t1, w1 = lo + (hi - lo) * s ** 2, 2 * (hi - lo) * s * ws
        for a_t1, w_t1 in zip(t1, w1):
            a = math.cos(a_t1) / sB
            bc = math.sqrt(B - 2) * math.sin(a_t1)
            cuts = [0.0, math.pi]
            if bc > 0 and abs(a / bc) < 1:
                cuts = [0.0, math.acos(a / bc), math.pi]
            inner = 0.0
            for l2, h2 in zip(cuts[:-1], cuts[1:]):
                t2, w2 = gl(l2, h2)
                z2 = (a - bc * np.cos(t2)) / math.sqrt(B - 1)
                inner += np.dot(w2, np.sin(t2) ** (B - 4) * f(sB * z2))
            qc += w_t1 * math.sin(a_t1) ** (B - 3) * f(np.array(-sB * math.sqrt((B - 1) / B) * math.cos(a_t1))) * inner
    qc *= (B - 3) / (2 * math.pi)
    return float(q), float(qc)


def alpha_relu_kernel(alpha: float, rho, nodes: int = 32) -> np.ndarray:
    """k_α(ρ) = E[(x)₊^α (y)₊^α] for standard normals with correlation ρ (α > −1/2).

    k_α(ρ) = 2^α Γ(α+1)/(2π) ∫_{ψ−π/2}^{π/2} cos^α t cos^α(t − ψ) dt, ρ = cos ψ (polar coordinates), by a
    Gauss–Jacobi rule carrying both endpoint zeros of order α.
    """
    rho = np.clip(np.asarray(rho, dtype=float), -1.0, 1.0)
    psi = np.arccos(rho)
    y, w = _jacobi_cached(nodes, float(alpha))
    L = math.pi - psi  # interval length
    # t = ψ − π/2 + L(1 + y)/2: cos(t − ψ) = sin d_lo and cos t = sin d_hi with d_lo = L(1 + y)/2, d_hi = L(1 − y)/2.
    # Divide the singular factors d^α out (sin d/d = 1 at d = 0, where ρ = −1 makes the interval a point). The rule is
    # symmetric (y_k = −y_{n−1−k}), so d_hi at node k is d_lo at node n−1−k: the integrand is the same at both nodes of
    # a pair and only the first half is evaluated, with the pair's two weights.
    d = L[..., None] * ((1 + y[:nodes // 2 + nodes % 2]) / 2)
    s_lo = np.divide(np.sin(d), d, out=np.ones_like(d), where=d != 0)
    d_hi = L[..., None] * ((1 - y[:nodes // 2 + nodes % 2]) / 2)
    s_hi = np.divide(np.sin(d_hi), d_hi, out=np.ones_like(d_hi), where=d_hi != 0)
    integral = ((s_lo * s_hi) ** alpha) @ _paired_weights(nodes, float(alpha)) * (L / 2) ** (1 + 2 * alpha)
    return 2 ** alpha * math.gamma(alpha + 1) / (2 * math.pi) * integral


@functools.lru_cache(maxsize=64)
def _paired_weights(n: int, a: float) -> np.ndarray:
    """The weights of the first ⌈n/2⌉ nodes of the symmetric Gauss–Jacobi rule, each plus its mirror node's."""
    y, w = _jacobi_cached(n, a)
    if not np.allclose(y, -y[::-1], rtol=0, atol=1e-14):
        raise AssertionError("the Gauss–Jacobi rule with equal exponents must be symmetric")
    half = n // 2
    out = w[:half] + w[::-1][:half]
    return np.concatenate([out, w[half:half + 1]]) if n % 2 else out


@functools.lru_cache(maxsize=64)
def _jacobi_cached(n: int, a: float):
    return special.roots_jacobi(n, a, a)


def arccos_kernel_J(c):
    """J(c) = (√(1 − c²) + (π − arccos c)c)/π (Cho & Saul, degree 1; J(1) = 1)."""
    c = np.asarray(c, dtype=float)
    return (np.sqrt(np.clip(1 - c * c, 0, None)) + (math.pi - np.arccos(np.clip(c, -1, 1))) * c) / math.pi


def arccos_kernel_J_prime(c):
    """J′(c) = (π − arccos c)/π."""
    return (math.pi - np.arccos(np.clip(np.asarray(c, dtype=float), -1, 1))) / math.pi


def alpha_relu_fixed_point(B: int, alpha: float = 1.0) -> BSB1FixedPoint:
    """Closed form for φ = max(x, 0)^α (positive-homogeneous of degree α): u = g/‖g‖ with g ~ N(0, G)
    independent of ‖g‖, so Σ*_ij = B^α E[φ(g_i)φ(g_j)]/E‖g‖^{2α}, E‖g‖^{2α} = 2^α Γ((B−1)/2 + α)/Γ((B−1)/2)."""
    B = _check_batch(B)
    var = (B - 1) / B
    norm = 2 ** alpha * math.exp(special.gammaln((B - 1) / 2 + alpha) - special.gammaln((B - 1) / 2))
    scale = B ** alpha * var ** alpha / norm
    q = scale * float(alpha_relu_kernel(alpha, 1.0))
    qc = scale * float(alpha_relu_kernel(alpha, -1.0 / (B - 1)))
    return BSB1FixedPoint(f"max(x,0)**{alpha}", B, q, qc / q, method="closed form (the α-ReLU kernel)")


def theorem5_relu_fixed_point(B: int):
    """Theorem 5 as printed (eq 16): q* = (B−1)/(2√π) Γ(3/2)Γ((B−1)/2)/Γ((B+1)/2), c* = J(−1/(B−1)).
    Returns sympy-exact q* and the float c*."""
    B = _check_batch(B)
    Bs = sp.Integer(B)
    q = sp.simplify((Bs - 1) / (2 * sp.sqrt(sp.pi)) * sp.gamma(sp.Rational(3, 2)) * sp.gamma((Bs - 1) / 2)
                    / sp.gamma((Bs + 1) / 2))
    return q, float(arccos_kernel_J(-1.0 / (B - 1)))


# ---------------------------------------------------------------------------------------------
# Forward Jacobian eigenvalues (Theorems 1, 6)
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class JacobianEigenvalues:
    """Eigenvalues of dV_φ̃/dΣ at Σ* on the eigenspaces 𝔾 (dim 1 + 1), 𝕃 (B − 1, the other 𝕃 copy has 0)
    and 𝕄 (B(B − 3)/2) (bn-mean-field Theorems 1, 6). Mapping-like: ``ev["G"]``, ``ev["L"]``, ``ev["M"]``.

    Attributes
    ----------
    G, L, M : float
        λ_𝔾, λ_𝕃, λ_𝕄.
    batch_size : int
        The batch size B.
    error : float
        The relative disagreement of two quadrature sizes; ``error · max(|λ_𝕃|, |λ_𝕄|)`` bounds each eigenvalue's.
    method : str
        How the eigenvalues were computed (the package's result convention: values, error, method).

    Examples
    --------
    >>> from theory import bn_jacobian_eigenvalues
    >>> ev = bn_jacobian_eigenvalues("tanh", 8)
    >>> ev.keys(), round(ev["L"], 10), round(ev.M, 10), ev.bsb1_stable
    (('G', 'L', 'M'), 0.496210102, 0.8365567591, True)
    """

    G: float
    L: float
    M: float
    batch_size: int
    error: float = 0.0
    method: str = ""

    def __getitem__(self, key):
        if key not in ("G", "L", "M"):
            raise KeyError(f"{key!r}: the eigenspaces are 'G', 'L', 'M'")
        return getattr(self, key)

    def keys(self):
        return ("G", "L", "M")

    def items(self):
        return [(k, self[k]) for k in self.keys()]

    def estimates(self) -> dict:
        """λ_𝔾, λ_𝕃, λ_𝕄 as :class:`~theory.results.Estimate` s (value, absolute error, method): each within
        ``error · max(|λ_𝕃|, |λ_𝕄|)`` plus half a unit in the last place of its float.

        Examples
        --------
        >>> from theory import bn_jacobian_eigenvalues
        >>> L = bn_jacobian_eigenvalues("x", 8).estimates()["L"]    # the identity: (B − 1)/(B + 1)
        >>> abs(L.value - 7 / 9) <= L.error < 1e-12
        True
        """
        scale = float(self.error) * max(abs(float(self.L)), abs(float(self.M)))
        return {k: Estimate(float(v), scale + 0.5 * math.ulp(float(v)), self.method) for k, v in self.items()}

    @property
    def bsb1_stable(self) -> bool:
        """The BSB1 fixed point attracts nearby covariances iff |λ_𝕃|, |λ_𝕄| < 1."""
        return max(abs(self.L), abs(self.M)) < 1


def _forward_integrands(phi, B: int, nodes: int):
    """(a, b, m) with λ_𝕃 = (B−1)/(2s)(a − 2b), λ_𝕄 = (B−1)/s · m (module docstring)."""
    x, w = _rule_1d(B, nodes)
    x1, x2, w2 = _rule_2d(B, nodes)
    u, u1, u2 = x / math.sqrt(B), x1 / math.sqrt(B), x2 / math.sqrt(B)
    f, f1, f2 = phi(x), phi(x1), phi(x2)
    a = _finite_dot(w, f * f * (u * u - (1 - u * u) / (B - 1)), "λ_𝕃 integral")
    b = _finite_dot(w2, f1 * f2 * (u1 * u1 - (1 - u1 * u1 - u2 * u2) / (B - 2)), "λ_𝕃 integral")
    S, R, m = u1 + u2, 1 - u1 * u1 - u2 * u2, B - 2
    mm = _finite_dot(w2, f1 * f2 * (u1 * u2 + S * S / m + (S * S - R) / (m * (m - 1))), "λ_𝕄 integral")
    return np.array([a, b, mm])


def _s_error(fp: BSB1FixedPoint) -> float:
    """The relative error of s = q*(1 − c*) = q* − q*c*, which divides the Jacobian's and λ_max's integrals:
    q* and q*c* are each within ``fp.error · q*``, so s is within 2·fp.error·q*/s = 2·fp.error/(1 − c*)."""
    return 2 * fp.error / (1 - fp.c) if fp.c < 1 else math.inf


@functools.lru_cache(maxsize=2048)
def _jacobian_cached(act: Activation, B: int) -> JacobianEigenvalues:
    fp = _fixed_point_cached(act, B)
    s = fp.s
    if not s > 1e-14 * fp.q:
        raise UndefinedQuantityError(f"{act.name}: q*(1 − c*) = {s:.3g}: the fixed point is degenerate "
                                     "(φ̃ constant on the sphere); the Jacobian at Σ* is undefined")
    (a, b, m), err = _converged(lambda n: _forward_integrands(act.numpy, B, n), f"Jacobian of {act.name} at B = {B}",
                                batch_size=B)
    k = B - 1
    lam_L = k / (2 * s) * (a - 2 * b)
    lam_M = k / s * m
    return JacobianEigenvalues(0.0, float(lam_L), float(lam_M), B, err + _s_error(fp),
                               method="the forward map's integrands at Σ*, quadrature at two rule sizes")


def bn_jacobian_eigenvalues(act, batch_size: int) -> JacobianEigenvalues:
    """λ_𝔾, λ_𝕃, λ_𝕄 of the forward Jacobian of the BN mean-field map at Σ* (Theorems 1, 6), any activation.

    The fixed point attracts nearby covariances when max(λ_𝕃, λ_𝕄) < 1 (``bsb1_stable``).

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    batch_size : int
        B ≥ 4.

    Returns
    -------
    JacobianEigenvalues
        ``G``, ``L``, ``M`` (also ``ev["G"]``, …), ``error`` and ``bsb1_stable``.

    Examples
    --------
    >>> from theory import bn_jacobian_eigenvalues
    >>> ev = bn_jacobian_eigenvalues("relu", 8)
    >>> round(ev["L"], 10), round(ev["M"], 10), ev.bsb1_stable
    (0.7436110582, 0.5386107407, True)
    """
    return _jacobian_cached(_act(act), _check_batch(batch_size, 4, "the forward Jacobian at Σ*"))


def theorem6_relu_eigenvalues(B: int, v_star: float) -> dict:
    """Theorem 6 as printed (eqs 18–20), with the v* the caller supplies (the statement leaves it undefined)."""
    B = _check_batch(B)
    c = -1.0 / (B - 1)
    g = math.exp(special.gammaln(1.5) + special.gammaln((B + 1) / 2) - special.gammaln((B + 3) / 2))
    pref = g / (2 * math.sqrt(math.pi) * v_star)
    lam_M = B * pref * float(arccos_kernel_J_prime(c))
    lam_L = pref * ((B - 2) * (1 - float(arccos_kernel_J(c))) + B / (B - 1) * float(arccos_kernel_J_prime(c)))
    return {"G": 0.0, "L": lam_L, "M": lam_M}


def forward_jacobian_linear(B: int) -> float:
    """For φ(x) = x: dV[E] = (B − 1)/(B + 1)·GEG on trace-free directions (4th moments of the uniform sphere),
    so λ_𝕃 = λ_𝕄 = (B − 1)/(B + 1) exactly."""
    return (B - 1) / (B + 1)


# ---------------------------------------------------------------------------------------------
# Gradient explosion (eqs 21–23; Theorems 7, 8, 9)
# ---------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=256)
def derivative(act: Activation) -> Activation:
    """φ′ as an :class:`Activation` (sympy derivative); a jump in φ (Dirac mass in φ′) is an error."""
    d = sp.diff(act.expr, _x)
    if d.has(sp.DiracDelta):
        raise UndefinedQuantityError(f"{act.name} is discontinuous: φ′ carries a Dirac mass, the backward map "
                                     "(eqs 21–23) and λ_max are undefined (autograd would return zero gradients)")
    return _build_activation(f"d/dx {act.name}", d, "derivative", None)


@functools.lru_cache(maxsize=4096)
def _rate_cached(act: Activation, B: int) -> tuple[float, float]:
    fp = _fixed_point_cached(act, B)
    if not fp.s > 1e-14 * fp.q:
        raise UndefinedQuantityError(f"{act.name}: q*(1 − c*) = 0, the fixed point is degenerate; λ_max undefined")
    dphi = derivative(act).numpy

    def compute(nodes):
        x, w = _rule_1d(B, nodes)
        x1, x2, w2 = _rule_2d(B, nodes)
        d, d1, d2 = dphi(x), dphi(x1), dphi(x2)
        one = _finite_dot(w, (B - 1 - x * x) * d * d, "λ_max integral")
        two = _finite_dot(w2, (1 + x1 * x2) * d1 * d2, "λ_max integral")
        return (one + two) / (fp.s * (B - 3))
    lam, err = _converged(compute, f"λ_max of {act.name} at B = {B}", batch_size=B)
    return float(lam), err + _s_error(fp)


def gradient_explosion_rate(act, batch_size: int, *, eps: float = 0.0, gamma: float = 1.0,
                            beta: float = 0.0) -> "Estimate":
    """λ_max: factor by which the squared gradient norm grows per layer, backwards, at Σ* (eqs 21–23, Thm 7).
    Needs B ≥ 4 (E r⁻² = 1/(s(B − 3))).

    With BN ε, γ, β (see :func:`bsb1_fixed_point`): the eigenvalue λ_G of the backward map on its eigenvector G at
    the ε-fixed point, E‖GJ‖²_F/(B − 1) by a radial rule over r² ~ χ²_{B−1} times the sphere-marginal rules; it
    equals the paper's λ_max at ε = 0, γ = 1, β = 0 (to quadrature accuracy) and agrees with Monte Carlo of the full
    backward operator (:func:`numerics.bn_backward_operator_mc`) and with finite-width networks
    (:func:`numerics.simulate_bn_gradients`).

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    batch_size : int
        B ≥ 4.
    eps, gamma, beta : float
        Batch norm's ε and affine γ, β (keyword only; the paper: 0, 1, 0).

    Returns
    -------
    Estimate
        λ_max (> 1 at ε = 0 for every activation: batch normalisation makes gradients explode, Theorem 9), with
        ``error`` the difference between the quadrature's two rule sizes; ``float()`` gives the value.

    Examples
    --------
    >>> from theory import gradient_explosion_rate
    >>> lam = gradient_explosion_rate("relu", 8)
    >>> round(float(lam), 10), lam.error < 1e-12
    (1.7881899767, True)
    >>> round(float(gradient_explosion_rate("relu", 8, eps=0.1)), 10)       # ε ameliorates, does not eliminate
    1.5679443523
    """
    B = _check_batch(batch_size, 4, "the gradient-explosion rate")
    if (eps, gamma, beta) != (0.0, 1.0, 0.0):
        a = activation(act)
        eps, gamma, beta = _bn_affine(a, eps, gamma, beta)
        if a.breakpoints:
            _kinks_at_zero_only(a)
        value, err = _affine_rate_cached(a, B, eps, gamma, beta)
        return Estimate(value, err, f"radial × sphere quadrature at the ε-fixed point (ε = {eps:g}, γ = {gamma:g}, "
                                    f"β = {beta:g}), two rule sizes")
    value, err = _rate_cached(_act(act), B)
    return Estimate(value, err, "eq 24 reduction: radial × sphere quadrature at Σ*, two rule sizes")


def gradient_explosion_rate_error(act, batch_size: int) -> tuple[float, float]:
    """(λ_max, its error): the difference between the two rule sizes of the quadrature that computed it (ε = 0)."""
    B = validate.integer(batch_size, "batch size", 4, validate.MAX_BATCH, "B ≥ 4 (E r⁻² = 1/(s(B − 3)))")
    value, err = _rate_cached(_act(act), B)
    return float(value), float(err)


def depth_scale(act, batch_size: int, *, eps: float = 0.0, gamma: float = 1.0, beta: float = 0.0) -> float:
    """ξ = 1/log λ_max (the paper overlays 16ξ as the maximum trainable depth); ∞ when λ_max ≤ 1.

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    batch_size : int
        B ≥ 4.
    eps, gamma, beta : float
        As for :func:`gradient_explosion_rate`.

    Returns
    -------
    float
        ξ (``math.inf`` when λ_max ≤ 1).

    Examples
    --------
    >>> from theory import depth_scale
    >>> round(16 * depth_scale("relu", 8), 8)
    27.52906406
    """
    lam = float(gradient_explosion_rate(act, batch_size, eps=eps, gamma=gamma, beta=beta))
    return math.inf if lam <= 1 else 1.0 / math.log(lam)


@functools.lru_cache(maxsize=1024)
def theorem7_rate(act, B: int, nodes: int = 400) -> float:
    """Eq (24) as printed: (B(B−2))^{2−B/2}/(q*(1−c*)2π) ∫_{Z>0} (…) Z^{(B−5)/2} dz₁dz₂, integrated over the
    ellipse Z > 0 directly in z-coordinates (polar about 0, radial Gauss–Jacobi for the Z^{(B−5)/2} edge)."""
    act = _act(act)
    B = _check_batch(B)
    fp = _fixed_point_cached(act, B)
    dphi = derivative(act).numpy
    # Z = B(B−2) − zᵀQz, Q = [[B−1, 1], [1, B−1]]; along direction (cos φ, sin φ): Z = B(B−2)(1 − ρ²/ρmax²)
    gx, gw = np.polynomial.legendre.leggauss(nodes)
    k = (B - 5) / 2
    if k >= 20:
        t, wt = _concentrated(nodes, k, 1.0)
    else:
        t, wt = _jacobi(nodes, k, 1.0, 0.0, 1.0)  # t = ρ/ρmax ∈ (0, 1): weight (1 − t)^k t
        wt = wt * (1 + t) ** k
    total = 0.0
    cuts = [0, math.pi / 2, math.pi, 3 * math.pi / 2, 2 * math.pi]
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        ph = (lo + hi) / 2 + (hi - lo) / 2 * gx
        wp = (hi - lo) / 2 * gw
        c, s_ = np.cos(ph), np.sin(ph)
        quad = (B - 1) * (c * c + s_ * s_) + 2 * c * s_
        rmax = np.sqrt(B * (B - 2) / quad)
        z1 = t[:, None] * (rmax * c)[None, :]
        z2 = t[:, None] * (rmax * s_)[None, :]
        integrand = (B - 1 - z1 * z1) * dphi(z1) ** 2 + (1 + z1 * z2) * dphi(z1) * dphi(z2)
        # dz = ρ dρ dφ = rmax² t dt dφ;  Z^k = (B(B−2))^k (1 − t²)^k — the power (B(B−2))^k is merged with
        # the printed prefactor (B(B−2))^{2−B/2}/(2π) below (each alone overflows for large B)
        total += np.sum(wt[:, None] * wp[None, :] * (rmax ** 2)[None, :] * integrand)
    log_pref = (2 - B / 2 + k) * math.log(B * (B - 2)) - math.log(2 * math.pi)
    return float(math.exp(log_pref) / fp.s * total)


def theorem7_density_mass(B: int, nodes: int = 400) -> float:
    """∫_{Z>0} Z^{(B−5)/2} dz times the printed constant (B−3)(B(B−2))^{2−B/2}/(2π): 1 iff eq (24)'s
    prefactor is the right normalisation (then λ_max = E[…]/(s(B−3)))."""
    B = _check_batch(B)
    # area integral in closed form: ∫_{zᵀQz<K} (K − zᵀQz)^k dz = π K^{k+1}/((k+1)√det Q)
    k = (B - 5) / 2
    K = B * (B - 2)
    det = (B - 1) ** 2 - 1
    log_integral = math.log(math.pi) + (k + 1) * math.log(K) - math.log((k + 1) * math.sqrt(det))
    return (B - 3) * math.exp((2 - B / 2) * math.log(K) - math.log(2 * math.pi) + log_integral)


def theorem8_alpha_relu_rate(B: int, alpha: float = 1.0) -> float:
    """Eq (25) as printed, with J the degree-α arccosine kernel (any normalisation: eq 25 is homogeneous in J;
    J′ by Price's theorem, dk_α/dρ = α² k_{α−1})."""
    B = _check_batch(B)
    c = -1.0 / (B - 1)
    J = lambda r: float(alpha_relu_kernel(alpha, r))  # noqa: E731
    Jp = alpha ** 2 * float(alpha_relu_kernel(alpha - 1, c))
    num = (B - 3 + 2 * alpha) * ((2 * alpha - 1) * Jp + alpha ** 2 * (B - 1) * J(1.0))
    den = (2 * alpha - 1) * (B - 3) * (B - 1) * (J(1.0) - J(c))
    return num / den - alpha ** 2 / (B - 3)


def relu_rate_limit() -> float:
    """π/(π − 1): the B → ∞ limit of ReLU's λ_max (Theorem 8)."""
    return math.pi / (math.pi - 1)


@dataclass(frozen=True)
class GegenbauerRate:
    """Theorem 9's series truncated at K terms, with a rigorous enclosure [lower, upper] of the full sum
    (tails bounded by Parseval, Σ a_k² = q*, and the Dirichlet form Σ k(k+B−3) a_k² = E[(B−1−z²)φ′(z)²])."""

    value: float
    lower: float
    upper: float
    terms: int
    coefficients: np.ndarray
    c_k: np.ndarray


def gegenbauer_c(B: int, k: int) -> float:
    """c_k = 1 − (−1)^k ₂F₁(−k, B−3+k; B/2−1; (B−2)/(2(B−1))) (eq 27)."""
    return float(1 - (-1) ** k * special.hyp2f1(-k, B - 3 + k, B / 2 - 1, (B - 2) / (2 * (B - 1))))


def theorem9_gegenbauer_rate(act, B: int, terms: int = 200, nodes: int = 400) -> GegenbauerRate:
    """λ_max from eq (27): a_k by Gauss–Jacobi projection of φ on the normalised Gegenbauer polynomials
    C_k^{((B−3)/2)}(z/√(B−1)) (eq 26 normalisation), truncated at ``terms``."""
    act = _act(act)
    B = _check_batch(B, 4, "Theorem 9")
    lam = (B - 3) / 2
    x, w = _rule_1d(B, nodes)
    t = x / math.sqrt(B - 1)
    f = act.numpy(x)
    ks = np.arange(terms + 1)
    # orthonormal Gegenbauer polynomials by their three-term recurrence (C_k itself overflows for large B):
    # t p_k = b_{k+1} p_{k+1} + b_k p_{k−1}, b_k² = k(k + 2λ − 1)/(4(k + λ)(k + λ − 1))
    a = np.empty(terms + 1)
    p_prev, p = np.zeros_like(t), np.ones_like(t)
    b_prev = 0.0
    for k in ks:
        a[k] = float(np.dot(w, f * p))
        kk = k + 1
        b_next = math.sqrt(kk * (kk + 2 * lam - 1) / (4 * (kk + lam) * (kk + lam - 1))) if kk + lam - 1 > 0 else \
            math.sqrt(0.5)
        p_prev, p = p, (t * p - b_prev * p_prev) / b_next
        b_prev = b_next
    c = np.array([gegenbauer_c(B, int(k)) if k else 0.0 for k in ks])
    wk = ks * (B - 3 + ks) / (B - 3)
    N = float(np.sum((wk * c * a * a)[1:]))
    D = float(np.sum((c * a * a)[1:]))
    if D <= 0:
        raise UndefinedQuantityError(f"{act.name} is constant on the sphere: λ_max undefined")
    q = float(np.dot(w, f * f))
    dphi = derivative(act).numpy(x)
    dirichlet = float(np.dot(w, (B - 1 - x * x) * dphi * dphi))  # Σ_k k(k+B−3) a_k²
    tail0 = max(q - float(np.sum(a * a)), 0.0)
    tailN = max(dirichlet - float(np.sum(ks * (B - 3 + ks) * a * a)), 0.0) / (B - 3)
    lower = N / (D + 2 * tail0)
    upper = (N + 2 * tailN) / D
    return GegenbauerRate(N / D, lower, upper, terms, a, c)


# ---------------------------------------------------------------------------------------------
# Batch norm with ε > 0 and an affine map γ, β (Fig 4(c, d); the authors' code has all three)
# ---------------------------------------------------------------------------------------------
#
# BN_{ε,γ,β}(h) = γ √B Gh / sqrt(‖Gh‖² + Bε) + β. For a BSB1 Σ with eigenvalue s on 1^⊥, Gh = √s r u with u uniform
# on the sphere of 1^⊥ and r² ~ χ²_{B−1} independent of u, so BN_{ε,γ,β}(h) = γ ρ √B u + β with
# ρ² = s r²/(s r² + Bε) ∈ (0, 1]. The map sends Σ to a BSB1 matrix that depends on s alone; its eigenvalue on 1^⊥ is
# F(s) = E φ(a x₁ + β)² − E φ(a x₁ + β)φ(a x₂ + β), a = γρ, and the BSB1 fixed point is F(s*) = s* (ε = 0: ρ = 1,
# F is constant). F(0) = 0: for large ε the only fixed point may be s* = 0 (c* = 1, the batch collapses).
#
# Backward: J = ∂φ̃/∂h = γ√B n⁻¹ D (G − ρ²uuᵀ), n² = s r² + Bε, D = diag φ′(aX + β), X = √B u. J1 = 0, so the map
# Δ ↦ E[JᵀΔJ] sends span{I, 11ᵀ} into span{G}: G is an eigenvector, with eigenvalue λ_G = E‖GJ‖²_F/(B − 1). By
# exchangeability (d_i = φ′(a x_i + β)),
#   E_u‖GD(G − ρ²uuᵀ)‖²_F = (B − 2 + 1/B) E d₁² + (B−1)/B E d₁d₂ − κ (B−1)/B (E d₁²x₁² − E d₁d₂x₁x₂),
# κ = ρ²(2 − ρ²); at ε = 0, γ = 1, β = 0 (ρ = κ = 1, E n⁻² = 1/(s(B − 3))) this is Theorem 7's integrand.

_RADIAL_NODES = 48


@functools.lru_cache(maxsize=64)
def _leggauss(n: int):
    return np.polynomial.legendre.leggauss(n)


def _radial_rule(dof: int, nodes: int, split: float):
    """(y, w): E f(y) for y = r² ~ χ²_dof, by Gauss–Legendre in r = √y on [√(dof−1) ∓ 11] (the χ density
    ∝ r^{dof−1} e^{−r²/2} written out, below 1e-26 outside), split at r = ``split`` where ρ(r) turns. In r, ρ is
    analytic at 0 (in y it is √y-like, which Gauss–Laguerre in y integrates only algebraically)."""
    mode = math.sqrt(max(dof - 1, 0))
    lo, hi = max(0.0, mode - 11.0), mode + 11.0
    cuts = [lo] + ([split] if lo < split < hi else []) + [hi]
    g, gw = _leggauss(nodes)
    r, w = [], []
    for a, b in zip(cuts[:-1], cuts[1:]):
        r.append((a + b) / 2 + (b - a) / 2 * g)
        w.append((b - a) / 2 * gw)
    r, w = np.concatenate(r), np.concatenate(w)
    logd = (dof - 1) * np.log(np.maximum(r, 1e-300)) - r * r / 2
    w = w * np.exp(logd - logd.max())
    return r * r, w / w.sum()


def _bn_affine(act: Activation, eps, gamma, beta) -> tuple[float, float, float]:
    eps, gamma, beta = validate.bn_parameters(eps, gamma, beta)
    if beta != 0 and act.breakpoints:
        raise DeepinitError(f"{act.name} with BN β = {beta:g}: the kinks move to x = −β/(γρ), off the points where the "
                            "sphere quadrature splits; use numerics.bn_kernels.bn_forward_map_mc / "
                            "bn_backward_operator_mc (Monte Carlo) for kinked φ with β ≠ 0")
    return eps, gamma, beta


def _radial_scale(B: int, s: float, eps: float, rnodes: int, dof: int | None = None):
    """(w, y, ρ²): the radial rule over y = r² ~ χ²_dof (default B − 1) and ρ² = s y/(s y + Bε) at eigenvalue s;
    ε = 0 (or s = ∞) is exact with one node, ρ = 1."""
    if eps == 0 or math.isinf(s):
        return np.ones(1), np.full(1, math.nan), np.ones(1)
    split = math.sqrt(B * eps / s) if s > 0 else math.inf
    y, w = _radial_rule(dof if dof is not None else B - 1, rnodes, split)
    return w, y, s * y / (s * y + B * eps)


def _affine_moments(phi, B: int, s: float, eps: float, gamma: float, beta: float, nodes: int, rnodes: int):
    """(E φ(aX₁ + β)², E φ(aX₁ + β)φ(aX₂ + β)) averaged over the radial law, a = γρ."""
    wy, _, rho2 = _radial_scale(B, s, eps, rnodes)
    a = gamma * np.sqrt(rho2)
    x, w = _rule_1d(B, nodes)
    x1, x2, w2 = _rule_2d(B, nodes)
    f = phi(a[:, None] * x[None, :] + beta)
    q = _finite_dot(w, wy @ (f * f), "q* integral (BN with ε, γ, β)")
    qc = _finite_dot(w2, wy @ (phi(a[:, None] * x1[None, :] + beta) * phi(a[:, None] * x2[None, :] + beta)),
                     "q*c* integral (BN with ε, γ, β)")
    return q, qc


@functools.lru_cache(maxsize=1024)
def _affine_fixed_point_cached(act: Activation, B: int, eps: float, gamma: float, beta: float) -> BSB1FixedPoint:
    phi = act.numpy
    nodes, rnodes = 64, _RADIAL_NODES

    def F(s, nodes=nodes, rnodes=rnodes):
        q, qc = _affine_moments(phi, B, s, eps, gamma, beta, nodes, rnodes)
        return q - qc

    s_top = F(math.inf) if eps > 0 else F(1.0)  # ρ = 1: the ε = 0 value, an upper end for the search
    if not s_top > 0:
        raise UndefinedQuantityError(f"{act.name}: q*(1 − c*) = 0 already without ε; no non-degenerate BSB1 point")
    if eps == 0:
        s_star = s_top
    else:
        # the stable fixed point: the largest s where F(s) − s changes sign from + to −. Scan down from 1.5·s_top by
        # factors of 1.5 on coarse rules (F ≤ s_top for ReLU-like φ; any crossing above 1.5·s_top would need F to
        # exceed its ρ = 1 value by half), then Brent's method on the full rules inside the bracket.
        from scipy.optimize import brentq

        def g_coarse(s):
            return F(s, 24, 24) - s
        hi = 1.5 * s_top
        s_star = 0.0
        if g_coarse(hi) > 0:
            raise QuadratureError(f"{act.name}: F(s) > s at s = 1.5·s₀; the BSB1 fixed point with ε = {eps:g} lies "
                                  "outside the searched range")
        lo = hi / 1.5
        while lo > 1e-14 * s_top:
            if g_coarse(lo) > 0:
                a, b = lo, lo * 1.5
                if F(a) - a > 0 > F(b) - b:
                    s_star = brentq(lambda s: F(s) - s, a, b, xtol=1e-15 * b, rtol=1e-15)
                    break
                # the coarse and the full rules disagree on the sign next to a tangency: widen by one step each way
                a, b = a / 1.5, b * 1.5
                if F(a) - a > 0 > F(b) - b:
                    s_star = brentq(lambda s: F(s) - s, a, b, xtol=1e-15 * b, rtol=1e-15)
                    break
                raise QuadratureError(f"{act.name}: no clean sign change of F(s) − s near s = {lo:.3g} (ε = {eps:g})")
            hi, lo = lo, lo / 1.5
    s_eval = s_star if s_star > 0 else 0.0

    def compute(nodes):
        q, qc = _affine_moments(phi, B, s_eval, eps, gamma, beta, nodes, rnodes if nodes == 64 else rnodes - 12)
        return np.array([q, qc])

    def at(nodes):
        return compute(64 if nodes == _NODES else 40)
    (q, qc), err = _converged(at, f"BSB1 fixed point of {act.name} at B = {B}, ε = {eps:g}, γ = {gamma:g}, "
                                  f"β = {beta:g}", rtol=1e-9)
    if s_star == 0.0:  # collapsed: every input of the batch maps to the same point, Σ* = φ(β)²11ᵀ (c* = 1)
        return BSB1FixedPoint(act.name, B, float(q), 1.0, err, eps=eps, gamma=gamma, beta=beta,
                              method="collapsed batch: Σ* = φ(β)²11ᵀ")
    return BSB1FixedPoint(act.name, B, float(q), float(qc / q), err, eps=eps, gamma=gamma, beta=beta,
                          method="radial × sphere quadrature of the affine batch norm, two rule sizes")


@functools.lru_cache(maxsize=1024)
def _affine_rate_cached(act: Activation, B: int, eps: float, gamma: float, beta: float) -> tuple[float, float]:
    fp = _affine_fixed_point_cached(act, B, eps, gamma, beta)
    s = fp.s if fp.s > 1e-14 * fp.q else 0.0
    if s == 0.0 and eps == 0:
        raise UndefinedQuantityError(f"{act.name}: q*(1 − c*) = 0, the fixed point is degenerate; λ_max undefined")
    dphi = derivative(act).numpy

    def compute(nodes):
        rnodes = _RADIAL_NODES if nodes == _NODES else _RADIAL_NODES - 12
        nodes = 64 if nodes == _NODES else 40
        # E[g/n²] over r² ~ χ²_{B−1} = E_{χ²_{B−3}}[g · y/n²]/(B − 3): the 1/y of n⁻² moved into the rule's weight
        wy, y, rho2 = _radial_scale(B, s, eps, rnodes, dof=B - 3)
        # at s = 0 (collapsed) the arguments aX + β shrink to β: φ′ is taken as the limit s → 0⁺ (for a kink at 0,
        # φ′(0±) by the sign of X — not sympy's value at the kink, Heaviside(0) = 1/2)
        a = gamma * np.maximum(np.sqrt(rho2), 1e-150)
        kappa = rho2 * (2 - rho2)
        x, w = _rule_1d(B, nodes)
        x1, x2, w2 = _rule_2d(B, nodes)
        d = dphi(a[:, None] * x[None, :] + beta)
        d1, d2 = dphi(a[:, None] * x1[None, :] + beta), dphi(a[:, None] * x2[None, :] + beta)
        e_dd, e_ddxx = (d * d) @ w, (d * d * x * x) @ w
        e_d1d2, e_d1d2xx = (d1 * d2) @ w2, (d1 * d2 * x1 * x2) @ w2
        inner = ((B - 2 + 1 / B) * e_dd + (B - 1) / B * e_d1d2 - kappa * (B - 1) / B * (e_ddxx - e_d1d2xx))
        # λ_G = γ²B E[inner/n²]/(B − 1), y/n² = 1/s at ε = 0 and y/(Bε) at s = 0 (a collapsed batch)
        y_over_n2 = np.full_like(wy, 1.0 / s) if eps == 0 else y / (s * y + B * eps)
        out = gamma ** 2 * B * float(np.dot(wy, y_over_n2 * inner)) / ((B - 1) * (B - 3))
        if not math.isfinite(out):
            raise QuadratureError("λ_G integral: the integrand is not finite on the quadrature nodes")
        return out
    lam, err = _converged(compute, f"λ_max of {act.name} at B = {B}, ε = {eps:g}, γ = {gamma:g}, β = {beta:g}",
                          rtol=1e-9)
    return float(lam), err


# ---------------------------------------------------------------------------------------------
# Two batches through one network: the cross-batch block of the forward map, exactly
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TwoBatchFixedPoint:
    """The fixed point of the forward map for two batches of B through one network, each normalised with its own
    statistics: Σ*₂ = [[Σ*, μ*²11ᵀ], [μ*²11ᵀ, Σ*]] (2B×2B), Σ* the one-batch BSB1 point (:class:`BSB1FixedPoint`,
    ``.diagonal``) and μ* = E φ(BN(h))ᵢ for h ~ N(0, Σ*) (``.mean``).

    Why the cross block is exactly μ*²: when Σ's cross block is constant, c·11ᵀ, the centred pre-activations of the
    two batches have covariance G Σ₁₂ G = c·G11ᵀG = 0 (G the centring), so — jointly Gaussian — they are independent;
    each batch's BN output is a function of its own centred h, so E[φ̃(h₁)φ̃(h₂)ᵀ] = E φ̃(h₁) E φ̃(h₂)ᵀ = μ₁μ₂·11ᵀ,
    again constant. The class of Σ with BSB1 diagonal blocks and a constant cross block is invariant, and in it the
    cross block is the product of the two batches' output means. The same independence gives the backward map's
    cross block: E[J₁ᵀΔ₁₂J₂] = E[J₁]ᵀΔ₁₂E[J₂] = α₁α₂·GΔ₁₂G, where E J = αG because BN(h + t1) = BN(h) (J1 = 0) and the
    law is exchangeable (:func:`bn_mean_jacobian`; ``.backward_cross``). (The peer code computes these kernels by
    Monte Carlo or Laplace quadrature over all 2B coordinates; here each is a 1-coordinate sphere integral times the
    radial law.)

    Attributes
    ----------
    diagonal : BSB1FixedPoint
        Σ*, each batch's own BSB1 fixed point.
    mean : float
        μ* = E φ(BN(h))ᵢ at Σ*.
    error : float
        The relative disagreement of two quadrature sizes (of μ*).

    Examples
    --------
    >>> from theory import two_batch_fixed_point
    >>> tb = two_batch_fixed_point("relu", 4)
    >>> round(tb.mean, 10), round(tb.cross, 10), tb.sigma.shape
    (0.4330127019, 0.1875, (8, 8))
    >>> round(tb.jacobian_mean, 10)                    # α* with E J = α*G
    0.8254544056
    """

    diagonal: BSB1FixedPoint
    mean: float
    error: float = 0.0   # relative disagreement of two quadrature sizes (of μ*)
    _act: Activation | None = field(default=None, repr=False, compare=False)

    @property
    def batch_size(self) -> int:
        return self.diagonal.batch_size

    @property
    def _s(self) -> float:
        fp = self.diagonal
        return fp.s if fp.s > 1e-14 * fp.q else 0.0

    @property
    def jacobian_mean(self) -> float:
        """α* with E J = α*G at Σ* (:func:`bn_mean_jacobian`); computed on first use, so that a φ whose backward map
        is undefined (a discontinuous one) still has its forward two-batch fixed point."""
        fp = self.diagonal
        return _mean_jacobian_cached(self._act, self.batch_size, self._s, fp.eps, fp.gamma, fp.beta)[0]

    def backward_cross(self, delta_cross) -> np.ndarray:
        """The cross-batch block of the backward map V_back(Σ*₂){Δ} = E[JᵀΔJ]: α*²·G Δ₁₂ G for the cross block Δ₁₂
        (B×B) of Δ (J is block-diagonal, its blocks independent with mean α*G)."""
        B = self.batch_size
        D = np.asarray(delta_cross, dtype=float)
        if D.shape != (B, B) or not np.all(np.isfinite(D)):
            raise DeepinitError(f"the cross block Δ₁₂ must be a finite {B}×{B} matrix")
        G = np.eye(B) - 1.0 / B
        return self.jacobian_mean ** 2 * (G @ D @ G)

    @property
    def cross(self) -> float:
        """μ*²: every entry of the cross-batch block."""
        return self.mean ** 2

    @property
    def sigma(self) -> np.ndarray:
        """Σ*₂ (2B×2B)."""
        B, S = self.batch_size, self.diagonal.sigma
        X = np.full((B, B), self.cross)
        return np.block([[S, X], [X, S]])


def _output_moments(phi, B: int, s: float, eps: float, gamma: float, beta: float, nodes: int,
                    rnodes: int) -> np.ndarray:
    """(E φ(γρX₁ + β), E φ(γρX₁ + β)²) over the sphere marginal X₁ and the radial law of ρ² = s y/(s y + Bε),
    y ~ χ²_{B−1}. The second moment is the scale against which the first one's convergence is judged (μ = 0 for an
    odd φ)."""
    if s == 0.0 and eps > 0:   # a collapsed batch: BN(h) = β for every sample
        v = float(phi(np.array([beta]))[0])
        return np.array([v, v * v])
    wy, _, rho2 = _radial_scale(B, s, eps, rnodes)
    a = gamma * np.sqrt(rho2)
    x, w = _rule_1d(B, nodes)
    f = phi(a[:, None] * x[None, :] + beta)
    return np.array([_finite_dot(w, wy @ f, "μ integral (E φ(BN(h)))"),
                     _finite_dot(w, wy @ (f * f), "E φ(BN(h))² integral")])


def bn_output_mean(act, batch_size: int, s: float | None = None, *, eps: float = 0.0, gamma: float = 1.0,
                   beta: float = 0.0) -> float:
    """μ(s) = E φ(BN_{ε,γ,β}(h))ᵢ for h ~ N(0, Σ) with GΣG = sG (any BSB1 Σ with eigenvalue s on 1^⊥); ``s=None``:
    the BSB1 fixed point's s*. With ε = 0 it does not depend on s. The cross-batch block of the two-batch forward map
    at any Σ with BSB1 diagonal blocks (eigenvalues s₁, s₂) and a constant cross block is μ(s₁)μ(s₂)·11ᵀ
    (:class:`TwoBatchFixedPoint`). Deterministic: the sphere-marginal Gauss–Jacobi rule (× the radial rule for ε > 0),
    two rule sizes must agree (:class:`QuadratureError` otherwise).

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    batch_size : int
        B ≥ 4.
    s : float, optional
        The eigenvalue of Σ on 1^⊥; ``None`` (default): the BSB1 fixed point's s*.
    eps, gamma, beta : float
        Batch norm's ε and affine γ, β (keyword only; the paper: 0, 1, 0).

    Returns
    -------
    float
        μ(s).

    Examples
    --------
    >>> from theory import bn_output_mean
    >>> round(bn_output_mean("relu", 4), 10), round(bn_output_mean("relu", 4, s=2.0), 10)   # ε = 0: s drops out
    (0.4330127019, 0.4330127019)
    """
    return _mean_cached(*_batch_law(act, batch_size, s, eps, gamma, beta))[0]


def _batch_law(act, batch_size, s, eps, gamma, beta) -> tuple[Activation, int, float, float, float, float]:
    """The validated arguments of the one-batch laws at GΣG = sG (s = None: the BSB1 fixed point's s*, 0 when the
    batch has collapsed there)."""
    B = _check_batch(batch_size)
    a = activation(act)
    eps, gamma, beta = _bn_affine(a, eps, gamma, beta)
    if a.breakpoints:
        _kinks_at_zero_only(a)
    if s is None:
        fp = bsb1_fixed_point(a, B, eps=eps, gamma=gamma, beta=beta)
        s = fp.s if fp.s > 1e-14 * fp.q else 0.0
    s = float(s)
    if not (math.isfinite(s) and s >= 0) or (s == 0 and eps == 0):
        raise DeepinitError(f"s must be finite and > 0 (≥ 0 with ε > 0); got {s!r}")
    return a, B, s, eps, gamma, beta


@functools.lru_cache(maxsize=1024)
def _mean_cached(act: Activation, B: int, s: float, eps: float, gamma: float, beta: float) -> tuple[float, float]:
    phi = act.numpy

    def compute(nodes):
        return _output_moments(phi, B, s, eps, gamma, beta, 64 if nodes == _NODES else 40,
                               _RADIAL_NODES if nodes == _NODES else _RADIAL_NODES - 12)
    (mu, _second), err = _converged(compute, f"E φ(BN(h)) of {act.name} at B = {B}, ε = {eps:g}", rtol=1e-9)
    return float(mu), err


def _jacobian_trace_moments(dphi, B: int, s: float, eps: float, gamma: float, beta: float, nodes: int,
                            rnodes: int) -> np.ndarray:
    """(α, its scale): α = E tr J/(B − 1), J = ∂φ(BN(h))/∂h, h ~ N(0, Σ) with GΣG = sG; the scale, the same integral
    with the integrand's square (root taken), is what α's convergence is judged against (α = 0 for an even φ). A
    smooth scale, not the integral of |integrand|: that one has kinks wherever φ′ changes sign (gelu, swish), where
    the rules converge slowly, and would refuse α for them.

    With n = sqrt(‖Gh‖² + Bε), u = Gh/n, x = γ√B u + β: ∂u/∂h = G/n − (Gh)(Gh)ᵀ/n³, so
    tr J = (γ√B/n) Σᵢ φ′(xᵢ)((1 − 1/B) − uᵢ²); with Gh = √s r ω (r² = y ~ χ²_{B−1}, ω uniform on the unit sphere of 1^⊥,
    X = √B ω₁ the sphere marginal of :func:`_rule_1d`) uᵢ = ρωᵢ, ρ² = s y/n²."""
    split = math.sqrt(B * eps / s) if (eps > 0 and s > 0) else math.inf
    y, wy = _radial_rule(B - 1, rnodes, split)
    n = np.sqrt(s * y + B * eps)
    # a collapsed batch (s = 0): φ′ as the limit ρ → 0⁺, i.e. by the sign of X at a kink (as for λ_max)
    rho = np.maximum(np.sqrt(s * y) / n, 1e-150)
    x, w = _rule_1d(B, nodes)
    inner = dphi(gamma * rho[:, None] * x[None, :] + beta) * ((1 - 1 / B) - rho[:, None] ** 2 * x[None, :] ** 2 / B)
    scale = B * gamma * math.sqrt(B) / (B - 1)
    return np.array([scale * _finite_dot(wy, (inner @ w) / n, "E tr J integral"),
                     scale * math.sqrt(_finite_dot(wy, ((inner * inner) @ w) / (n * n), "its scale integral"))])


@functools.lru_cache(maxsize=1024)
def _mean_jacobian_cached(act: Activation, B: int, s: float, eps: float, gamma: float,
                          beta: float) -> tuple[float, float]:
    dphi = derivative(act).numpy

    def compute(nodes):
        return _jacobian_trace_moments(dphi, B, s, eps, gamma, beta, 64 if nodes == _NODES else 40,
                                       _RADIAL_NODES if nodes == _NODES else _RADIAL_NODES - 12)
    (alpha, _scale), err = _converged(compute, f"E J of {act.name} at B = {B}, ε = {eps:g}", rtol=1e-9)
    return float(alpha), err


def bn_mean_jacobian(act, batch_size: int, s: float | None = None, *, eps: float = 0.0, gamma: float = 1.0,
                     beta: float = 0.0) -> float:
    """α(s) with E J = α(s)·G, J = ∂φ(BN_{ε,γ,β}(h))/∂h for h ~ N(0, Σ), GΣG = sG (``s=None``: the BSB1 fixed
    point's s*); G = I − 11ᵀ/B. (BN is blind to h + t1, so J1 = 0, and E J commutes with permutations.) The
    cross-batch block of the two-batch backward map at Σ with BSB1 diagonal blocks and a constant cross block is
    α(s₁)α(s₂)·GΔ₁₂G. ReLU at ε = 0: α = (2/3)√(2/π)/√s at B = 4. Deterministic (sphere marginal × radial rule, two
    rule sizes; :class:`QuadratureError` if they disagree); a discontinuous φ (φ′ with a delta) is refused.

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    batch_size : int
        B ≥ 4.
    s : float, optional
        The eigenvalue of Σ on 1^⊥; ``None`` (default): the BSB1 fixed point's s*.
    eps, gamma, beta : float
        Batch norm's ε and affine γ, β (keyword only; the paper: 0, 1, 0).

    Returns
    -------
    float
        α(s).

    Examples
    --------
    >>> import math
    >>> from theory import bn_mean_jacobian
    >>> round(bn_mean_jacobian("relu", 4, s=1.0), 10), round((2 / 3) * math.sqrt(2 / math.pi), 10)
    (0.5319230405, 0.5319230405)
    """
    return _mean_jacobian_cached(*_batch_law(act, batch_size, s, eps, gamma, beta))[0]


def two_batch_fixed_point(act, batch_size: int, *, eps: float = 0.0, gamma: float = 1.0,
                          beta: float = 0.0) -> TwoBatchFixedPoint:
    """The two-batch fixed point Σ*₂ = [[Σ*, μ*²11ᵀ], [μ*²11ᵀ, Σ*]] (:class:`TwoBatchFixedPoint`): two batches of B
    through one network, BN with ε, γ, β per batch. Checked against numerics.bn_forward_map_mc(batches=(B, B)) and
    finite-width networks (numerics.simulate_bn_gradients(batches=(B, B))).

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    batch_size : int
        B ≥ 4, the size of each of the two batches.
    eps, gamma, beta : float
        Batch norm's ε and affine γ, β (keyword only; the paper: 0, 1, 0).

    Returns
    -------
    TwoBatchFixedPoint
        ``diagonal`` (Σ*), ``mean`` (μ*), ``error``; ``sigma`` is Σ*₂ (2B×2B).

    Examples
    --------
    >>> from theory import two_batch_fixed_point
    >>> tb = two_batch_fixed_point("relu", 4)
    >>> round(tb.diagonal.q, 10), round(tb.cross, 10)   # q* = 1/2; the cross block μ*² = 3/16
    (0.5, 0.1875)
    """
    B = _check_batch(batch_size)
    fp = bsb1_fixed_point(act, B, eps=eps, gamma=gamma, beta=beta)
    a = activation(act)
    s = fp.s if fp.s > 1e-14 * fp.q else 0.0
    if s == 0.0 and fp.eps == 0:
        raise UndefinedQuantityError(f"{a.name}: q*(1 − c*) = 0 without ε; BN is undefined at the fixed point")
    mu, err = _mean_cached(a, B, s, fp.eps, fp.gamma, fp.beta)
    return TwoBatchFixedPoint(fp, mu, err, a)


# ---------------------------------------------------------------------------------------------
# The backward map at an arbitrary Σ by deterministic quadrature (the second route to numerics' Monte Carlo)
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class BackwardMapQuadrature:
    """V_back(Σ){Δ} = E_{h~N(0,Σ)}[JᵀΔJ], J = ∂φ(BN_{ε,γ,β}(h))/∂h, by a tensor Gauss–Hermite rule; ``error``: the
    largest entrywise difference from the rule with about ⅔ of the nodes per axis (an estimate of the error).

    Attributes
    ----------
    value : numpy.ndarray
        V_back(Σ){Δ}, B×B.
    error : float
        The estimated error (above).
    nodes : int
        The rule's nodes per axis.

    Examples
    --------
    >>> import numpy as np
    >>> from theory import backward_map_quadrature
    >>> r = backward_map_quadrature("tanh", np.eye(4), np.eye(4))
    >>> r.value.shape, round(float(r.value[0, 0]), 6), round(float(r.value[0, 1]), 6), r.error < 1e-12
    ((4, 4), 1.032711, -0.344237, True)
    """
    value: np.ndarray
    error: float
    nodes: int


def _sphere_rule(m: int, nodes: int):
    """Points ω and weights (summing to 1) of a product rule for the uniform law on S^m ⊂ ℝ^{m+1}: hyperspherical
    angles θ_1..θ_{m−1} by Gauss–Jacobi in cos θ_j (weight (1 − x²)^{(m−j−1)/2}), the last angle by the trapezoid rule
    (spectral for periodic integrands)."""
    phis = 2 * math.pi * (np.arange(2 * nodes) + 0.5) / (2 * nodes)
    pts = np.stack([np.cos(phis), np.sin(phis)], axis=1)        # S^1
    wts = np.full(len(phis), 1.0 / len(phis))
    for j in range(m - 1, 0, -1):                                   # prepend one polar angle per step: S^k → S^{k+1}
        k = pts.shape[1] - 1                                        # current sphere S^k; new weight (1 − x²)^{(k−1)/2}
        x, w = special.roots_jacobi(nodes, (k - 1) / 2, (k - 1) / 2)
        w = w / w.sum()
        sx = np.sqrt(1 - x * x)
        pts = np.concatenate([np.repeat(x, len(wts))[:, None], (sx[:, None, None] * pts[None]).reshape(-1, k + 1)], 1)
        wts = (w[:, None] * wts[None]).ravel()
    return pts, wts


def _radial_weight_rule(alpha: float, nodes: int, scale: float):
    """Nodes/weights for ∫_0^∞ f(t) t^α e^{−t} dt where f varies on the scale ``scale`` near 0 (with ε > 0 the radial
    integrand of the backward map turns over at t ≈ Bε/(2‖Σ‖)): a geometric mesh from scale/64 up to 16 — Gauss–Jacobi
    (weight t^α) on the first piece, Gauss–Legendre with t^α e^{−t} written out on the others — and Gauss–Laguerre
    beyond 16. Without such a scale (ε = 0) plain generalised Gauss–Laguerre."""
    if not scale > 0:
        return special.roots_genlaguerre(nodes, alpha)
    m = max(8, nodes // 2)
    edges = [min(scale / 64, 1.0)]
    while edges[-1] < 16.0:
        edges.append(min(edges[-1] * 4, 16.0))
    x, w = special.roots_jacobi(m, 0.0, alpha)               # on [−1, 1] with weight (1 + x)^α
    T0 = edges[0]
    ts = [T0 * (x + 1) / 2]
    ws = [w * (T0 / 2) ** (alpha + 1) * np.exp(-ts[0])]
    g, gw = np.polynomial.legendre.leggauss(m)
    for lo, hi in zip(edges[:-1], edges[1:]):
        tt = lo + (hi - lo) * (g + 1) / 2
        ts.append(tt)
        ws.append(gw * (hi - lo) / 2 * tt ** alpha * np.exp(-tt))
    tl, wl = special.roots_genlaguerre(m, 0.0)               # ∫_16^∞ t^α e^{−t} f = e^{−16}∫_0^∞ (16 + s)^α e^{−s} f
    ts.append(16.0 + tl)
    ws.append(wl * np.exp(-16.0) * (16.0 + tl) ** alpha)
    return np.concatenate(ts), np.concatenate(ws)


def _backward_map_rule(dphi, S: np.ndarray, D: np.ndarray, eps: float, gamma: float, beta: float, nodes: int,
                       chunk: int = 1 << 16) -> np.ndarray:
    """E[JᵀΔJ] with c = Gh = Q M r ω (Q a basis of 1^⊥, MMᵀ = QᵀΣQ, r ~ χ_{B−1}, ω uniform on S^{B−2}): JᵀΔJ =
    γ²B·F/r² with F = (r²/n²)·Pᵀ diag φ′ Δ diag φ′ P bounded, so the radial law times 1/r² is the generalised
    Gauss–Laguerre weight t^{(B−5)/2}e^{−t} in t = r²/2 (B ≥ 4)."""
    B = S.shape[0]
    out = np.zeros((B, B, B, B) if D is None else (B, B))
    Qf, _ = np.linalg.qr(np.concatenate([np.ones((B, 1)), np.eye(B)[:, :B - 1]], axis=1))
    Q = Qf[:, 1:]
    M = np.linalg.cholesky(Q.T @ S @ Q)
    om, wo = _sphere_rule(B - 2, nodes)
    t, wt = _radial_weight_rule((B - 5) / 2, nodes, B * eps / (2 * float(np.max(np.linalg.eigvalsh(S)))))
    wt = wt / special.gamma((B - 1) / 2)      # ∫ t^{(B−3)/2} e^{−t} dt = Γ((B−1)/2): the χ²_{B−1}/2 law, times 1/r²·…
    r = np.sqrt(2 * t)
    dirs = om @ (Q @ M).T                       # [directions, B]: c/r
    G = np.eye(B) - 1.0 / B
    for i, (ri, wi) in enumerate(zip(r, wt)):
        for s0 in range(0, len(wo), chunk):
            c = ri * dirs[s0:s0 + chunk]
            n2 = np.sum(c * c, axis=1) + B * eps
            y = gamma * math.sqrt(B) * c / np.sqrt(n2)[:, None] + beta
            P = G[None] - c[:, :, None] * c[:, None, :] / n2[:, None, None]
            K = np.sqrt(ri * ri / n2)[:, None, None] * np.asarray(dphi(y), dtype=float)[:, :, None] * P
            # 1/r² from the change of weight: E_r[g(r)] with density ∝ r^{B−2}e^{−r²/2} = E_t[g]·…; the weight above
            # already holds t^{(B−5)/2} = t^{(B−3)/2}/t and 1/t = 2/r²
            if D is None:   # the operator's kernel T[a, b, i, j] = E[J_ai J_bj]·(r²/n²) terms: (JᵀΔJ)_ij = Σ Δ_ab T_abij
                out += 0.5 * wi * np.einsum("k,kai,kbj->abij", wo[s0:s0 + chunk], K, K)
            else:
                out += 0.5 * wi * np.einsum("k,kai,ab,kbj->ij", wo[s0:s0 + chunk], K, D, K)
    return gamma * gamma * B * out


def backward_map_quadrature(act, Sigma, Delta, *, eps: float = 0.0, gamma: float = 1.0, beta: float = 0.0,
                            nodes: int | None = None) -> BackwardMapQuadrature:
    """The BN backward map V_back(Σ){Δ} = E[JᵀΔJ] (bn-mean-field eqs 21–23, here at any Σ, not only Σ*) with BN's ε
    and affine γ, β, J = γ√B n⁻¹ diag φ′(BN h)(G − Gh hᵀG/n²), n² = ‖Gh‖² + Bε. Deterministic: polar coordinates of
    Gh in 1^⊥ — generalised Gauss–Laguerre in the radius (the 1/r² of J absorbed in the weight, so ε = 0 is exact) and a
    product rule on S^{B−2} — the independent route to numerics.bn_backward_map_mc. Fast convergence for smooth φ; a
    kink (ReLU) makes it algebraic, which ``error`` shows. Cost nodes·(2·nodes)·nodes^{B−3} points: 4 ≤ B ≤ 6.

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    Sigma : array_like
        Σ, a symmetric positive definite B×B matrix, 4 ≤ B ≤ 6.
    Delta : array_like
        Δ, a B×B matrix.
    eps, gamma, beta : float
        Batch norm's ε and affine γ, β (keyword only; the paper: 0, 1, 0).
    nodes : int, optional
        Nodes per axis (4 to 400); ``None``: 40, 20, 12 for B = 4, 5, 6.

    Returns
    -------
    BackwardMapQuadrature
        ``value`` (B×B), ``error`` and ``nodes``.

    Examples
    --------
    >>> import numpy as np
    >>> from theory import backward_map_quadrature
    >>> r = backward_map_quadrature("tanh", np.eye(4), np.eye(4))
    >>> np.round(r.value, 6)
    array([[ 1.032711, -0.344237, -0.344237, -0.344237],
           [-0.344237,  1.032711, -0.344237, -0.344237],
           [-0.344237, -0.344237,  1.032711, -0.344237],
           [-0.344237, -0.344237, -0.344237,  1.032711]])
    """
    a = activation(act)
    S = np.asarray(Sigma, dtype=float)
    if S.ndim != 2 or S.shape[0] != S.shape[1] or not np.all(np.isfinite(S)) or not np.allclose(S, S.T, atol=1e-12):
        raise DeepinitError("Σ must be a finite symmetric B×B matrix")
    B = S.shape[0]
    if not 4 <= B <= 6:
        raise DeepinitError(f"the polar quadrature covers batch sizes 4..6 (got B = {B}; B ≥ 4 as in Theorem 7); use "
                            "numerics.bn_backward_map_mc for larger batches")
    D = np.asarray(Delta, dtype=float)
    if D.shape != (B, B) or not np.all(np.isfinite(D)):
        raise DeepinitError(f"Δ must be a finite {B}×{B} matrix")
    for v, nm in ((eps, "ε"), (gamma, "γ"), (beta, "β")):
        if not (isinstance(v, (int, float)) and math.isfinite(v)):
            raise DeepinitError(f"BN's {nm} = {v!r} must be a finite number")
    if eps < 0:
        raise DeepinitError(f"BN's ε = {eps!r} must be ≥ 0")
    if np.any(np.linalg.eigvalsh(0.5 * (S + S.T)) <= 0):
        raise DeepinitError("Σ must be positive definite")
    if nodes is None:
        nodes = {4: 40, 5: 20, 6: 12}[B]
    nodes = validate.integer(nodes, "nodes", 4, 400)
    if 2 * nodes ** (B - 1) > 4_000_000:
        raise DeepinitError(f"{2 * nodes ** (B - 1)} quadrature points exceed 4·10⁶")
    dphi = derivative(a).numpy
    v = _backward_map_rule(dphi, S, D, float(eps), float(gamma), float(beta), nodes)
    v2 = _backward_map_rule(dphi, S, D, float(eps), float(gamma), float(beta), max(4, (2 * nodes) // 3))
    if not np.all(np.isfinite(v)):
        raise QuadratureError(f"{a.name}: the backward-map integrand is not finite on the quadrature nodes")
    err = float(np.max(np.abs(v - v2)))
    return BackwardMapQuadrature(0.5 * (v + v.T) if np.allclose(D, D.T) else v, err, nodes)


@dataclass(frozen=True)
class BackwardOperatorQuadrature:
    """Δ ↦ E[JᵀΔJ] on B×B symmetric matrices at one Σ by the polar quadrature: ``matrix`` in the basis E_aa,
    E_ab + E_ba (a < b; coordinates: upper triangle, row-major — numerics.bn_backward_operator_mc's convention),
    ``eigenvalues`` descending by real part, ``error`` the largest entrywise difference of ``matrix`` from the rule
    with ⅔ of the nodes.

    Attributes
    ----------
    matrix : numpy.ndarray
        The operator, B(B + 1)/2 × B(B + 1)/2.
    eigenvalues : numpy.ndarray
        Its eigenvalues, descending by real part (``top_eigenvalue``: the first one's real part).
    error : float
        The estimated error of ``matrix``.

    Examples
    --------
    >>> import numpy as np
    >>> from theory import backward_operator_quadrature
    >>> op = backward_operator_quadrature("tanh", np.eye(4))
    >>> op.matrix.shape, round(op.top_eigenvalue, 6)
    ((10, 10), 1.282751)
    """
    matrix: np.ndarray
    eigenvalues: np.ndarray
    error: float

    @property
    def top_eigenvalue(self) -> float:
        return float(self.eigenvalues[0].real)


def backward_operator_quadrature(act, Sigma, *, eps: float = 0.0, gamma: float = 1.0, beta: float = 0.0,
                                 nodes: int | None = None) -> BackwardOperatorQuadrature:
    """The backward map at Σ as an operator on symmetric matrices and its spectrum (its top eigenvalue is λ_max at
    Σ*, the local rate elsewhere), deterministically: :func:`backward_map_quadrature`'s rule on the 4-index kernel
    (bn-mean-field eqs 21–23 at any Σ).

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    Sigma : array_like
        Σ, a symmetric positive definite B×B matrix, 4 ≤ B ≤ 6.
    eps, gamma, beta : float
        Batch norm's ε and affine γ, β (keyword only; the paper: 0, 1, 0).
    nodes : int, optional
        Nodes per axis; ``None``: as :func:`backward_map_quadrature`.

    Returns
    -------
    BackwardOperatorQuadrature
        ``matrix``, ``eigenvalues`` (descending by real part), ``error``; ``top_eigenvalue``.

    Examples
    --------
    >>> import numpy as np
    >>> from theory import backward_operator_quadrature
    >>> op = backward_operator_quadrature("tanh", np.eye(4))
    >>> [round(float(v.real), 6) for v in op.eigenvalues[:3]]
    [1.282751, 0.978914, 0.978914]
    """
    S = np.asarray(Sigma, dtype=float)
    B = S.shape[0] if S.ndim == 2 else 0
    probe = backward_map_quadrature(act, Sigma, np.eye(B) if B else Sigma, eps=eps, gamma=gamma, beta=beta,
                                    nodes=nodes)   # validates and fixes the rule size
    dphi = derivative(activation(act)).numpy
    iu = np.triu_indices(B)

    def matrix(n):
        T = _backward_map_rule(dphi, S, None, float(eps), float(gamma), float(beta), n)
        cols = []
        for a, b in zip(*iu):
            E = np.zeros((B, B))
            E[a, b] = E[b, a] = 1.0
            cols.append(np.einsum("ab,abij->ij", E, T)[iu])
        return np.array(cols).T
    M = matrix(probe.nodes)
    err = float(np.max(np.abs(M - matrix(max(4, (2 * probe.nodes) // 3)))))
    w = np.linalg.eigvals(M)
    return BackwardOperatorQuadrature(M, w[np.argsort(-w.real)], err)
