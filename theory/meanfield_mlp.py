"""Mean field of deep fully connected networks at initialisation: the σ_w²/σ_b² maps, fixed points, the
order-to-chaos boundary and the depth scales (Poole, Lahiri, Raghu, Sohl-Dickstein, Ganguli, NeurIPS 2016;
Schoenholz, Gilmer, Ganguli, Sohl-Dickstein, ICLR 2017). Equation labels below are those of Schoenholz et al.
(and of ``/work/shared/papers/schoenholz2017-equations.md``, whose sections are named in brackets).

Setting: z^l = W^l y^{l−1} + b^l, y^l = φ(z^l), W^l_ij ~ N(0, σ_w²/N), b^l_i ~ N(0, σ_b²); Dz the standard Gaussian
measure; with dropout each y^l_j is kept with probability ρ (``keep``) and rescaled by 1/ρ, independently for
every input.

* Length map (Poole et al. eq 3; Schoenholz eq 3) [Forward maps]: q ↦ (σ_w²/ρ) ∫Dz φ(√q z)² + σ_b² —
  :func:`length_map`, fixed point q* — :func:`fixed_point_q`.
* Covariance and correlation maps (Poole eq 5; Schoenholz eqs 4–5): q_ab ↦ σ_w² ∫Dz₁Dz₂ φ(u₁)φ(u₂) + σ_b²
  (no 1/ρ: the two inputs' dropout masks are independent), c ↦ C(c) = q_ab′/q′ at q_aa = q_bb = q —
  :func:`covariance_map`, :func:`correlation_map`, fixed point c* — :func:`fixed_point_c`.
* χ₁ = σ_w² ∫Dz φ′(√q* z)² (Schoenholz eq 6) = ∂C/∂c at c = 1 (Price's theorem); χ_c = σ_w² ∫Dz₁Dz₂
  φ′(u₁*)φ′(u₂*) at c* (eq 9) — :func:`chi_1`, :func:`chi_c`.
* Depth scales (eqs 7–9) [Depth scales]: ξ_q⁻¹ = −log[(χ₁ + σ_w² ∫Dz φ″(√q* z)φ(√q* z))/ρ] — which is exactly
  the slope of the length map at q* (Stein's lemma: d/dq E h(√q z) = ½E h″(√q z) with h = φ²);
  ξ_c⁻¹ = −log χ_c — :func:`depth_scales`. The boundary χ₁ = 1 — :func:`critical_sigma_w2`.
* Backpropagation (eq 16) [Backpropagation]: E(δ^l)² = (N_{l+1}/N_l)(χ₁/ρ) E(δ^{l+1})², ξ_∇⁻¹ = −log χ₁ —
  :func:`gradient_growth_rate`, :func:`gradient_depth_scale`.

Numerics. One-dimensional integrals (length map, χ₁, q*, the boundary) are mpmath tanh–sinh quadratures at
``dps`` = 30 digits (:func:`theory.gaussian.mp_gaussian`); q* and the boundary are solved in mpmath to 10^(5−dps)
relative, so their errors are far below the float rounding of the reported values. Two-dimensional integrals
(c < 1) use the float64 nested Gauss–Legendre route of :func:`theory.gaussian.bivariate_expectation` (≈1e-15,
error stated). Every scalar is an :class:`~theory.results.Estimate`.

Noise floor at criticality. χ₁ is computed to a relative error ``chi_1(...).error/χ₁`` of about 1e-16 (the float
rounding; the quadrature and q*'s error are ≤ 1e-24). Within the band |χ₁ − 1| ≤ :data:`CRITICAL_BAND` (1e-14,
about a hundred float steps of σ_w² — or ten times χ₁'s error if that is larger) the phase is ``"critical"``,
c* = 1 and ξ_c is reported as +inf, with ``DepthScales.xi_c_lower_bound`` = −1/log(1 − band) ≈ 1e14 layers: what
the computation can actually assert there is ξ_c ≥ that bound.
"""
from __future__ import annotations

import functools
import math
import dataclasses
from dataclasses import dataclass, field

import mpmath
import numpy as np

from . import validate
from .activations import Activation, activation
from .errors import DeepinitError, UndefinedQuantityError
from .fixed_points import FixedPoint, Stability, classify_slope, illinois, solve_fixed_point, stability
from .gaussian import bivariate_expectation, mp_gaussian
from .results import Estimate

__all__ = ["CRITICAL_BAND", "Q_MAX", "DepthScales", "chi_1", "chi_c", "correlation_map", "correlation_stability",
           "covariance_map", "CriticalPoint", "critical_points", "critical_sigma_w2", "depth_scales", "fixed_point_c", "fixed_point_q",
           "gradient_depth_scale", "gradient_growth_rate", "length_fixed_points", "length_map"]

#: half-width of the band around χ₁ = 1 reported as "critical" (ξ_c = +inf, ξ_c ≥ −1/log(1 − band))
CRITICAL_BAND = 1e-14
_DPS = 30


# ---------------------------------------------------------------------------------------------
# inputs
# ---------------------------------------------------------------------------------------------

def _act(a) -> Activation:
    return a if isinstance(a, Activation) else activation(a)


def _params(sigma_w2, sigma_b2, keep=1.0):
    try:
        sw, sb, rho = float(sigma_w2), float(sigma_b2), float(keep)
    except (TypeError, ValueError):
        raise DeepinitError("σ_w², σ_b² and keep must be numbers") from None
    if not (math.isfinite(sw) and sw > 0):
        raise DeepinitError(f"σ_w² = {sigma_w2!r} must be a finite positive number")
    if not (math.isfinite(sb) and sb >= 0):
        raise DeepinitError(f"σ_b² = {sigma_b2!r} must be a finite number ≥ 0")
    if not (0 < rho <= 1):
        raise DeepinitError(f"keep = {keep!r}: the dropout keep probability ρ must lie in (0, 1]")
    return sw, sb, rho


def _q(q, name="q") -> float:
    q = float(q)
    if not (math.isfinite(q) and q >= 0):
        raise DeepinitError(f"{name} = {q!r} must be a finite number ≥ 0")
    return q


def _derivative(act: Activation, order: int) -> Activation:
    d = act.derivative(order)
    if any(k >= 1 or order == 1 for _, _, k in d.dirac_atoms):
        raise UndefinedQuantityError(f"{act.name} is discontinuous: φ′ carries a Dirac mass, so χ₁, χ_c and ξ_q "
                                     "(Schoenholz eqs 6–9) are infinite or undefined")
    return d


# ---------------------------------------------------------------------------------------------
# one-dimensional moments in mpmath
# ---------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=4096)
def _moment(act: Activation, kind: str, q, dps: int):
    """(value, error) as mpf of E h(√q z): kind "phi2" (φ²), "phi2_stein" (φ²·(z² − 1), which needs no derivative
    of φ), "dphi2" (φ′²), "phi_ddphi" (φ″φ, with the Dirac masses of φ″ at kinks where φ′ jumps added back:
    J·φ(b)·p_q(b))."""
    if kind == "phi2":
        f = act.mpmath
        val, err, _ = mp_gaussian(lambda u: f(u) ** 2, q, act.breakpoints, dps)
        return val, err
    if kind == "phi2_stein":                     # E φ(u)²(z² − 1), u = √q z: 2q·d/dq E φ(√q z)² (Stein's lemma)
        f = act.mpmath
        with mpmath.workdps(dps + 10):
            qm = mpmath.mpf(q)
        val, err, _ = mp_gaussian(lambda u: f(u) ** 2 * (u * u / qm - 1), q, act.breakpoints, dps)
        return val, err
    if kind == "dphi2":
        d = _derivative(act, 1)
        f = d.mpmath
        val, err, _ = mp_gaussian(lambda u: f(u) ** 2, q, act.breakpoints + d.breakpoints, dps)
        return val, err
    d2 = _derivative(act, 2)
    f, g = d2.mpmath, act.mpmath
    val, err, _ = mp_gaussian(lambda u: f(u) * g(u), q, act.breakpoints + d2.breakpoints, dps)
    with mpmath.workdps(dps + 10):
        qm = mpmath.mpf(q)
        for b, jump, _ in d2.dirac_atoms:
            if qm > 0:
                bm = mpmath.mpf(b)
                val += jump * g(bm) * mpmath.exp(-bm * bm / (2 * qm)) / mpmath.sqrt(2 * mpmath.pi * qm)
    return val, err


def _zero_limit(act: Activation, dps: int):
    """lim_{q→0⁺} E φ′(√q z)² = (φ′(0⁺)² + φ′(0⁻)²)/2 as (value, error) in mpmath — the limits at q* = 0 (χ₁, L′(0⁺)
    when φ(0) = 0). One-sided values at ±10^(−dps−10), not a quadrature at a tiny q: for a kink at 0 (ELU) the
    quadrature at q = 10^(−dps) is off by O(√q), ten orders above its stated error."""
    d = _derivative(act, 1).mpmath
    with mpmath.workdps(dps + 20):
        eps = mpmath.mpf(10) ** (-dps - 10)
        v = (d(eps) ** 2 + d(-eps) ** 2) / 2
        v2 = (d(2 * eps) ** 2 + d(-2 * eps) ** 2) / 2
        return v, abs(v2 - v) + abs(v) * mpmath.mpf(10) ** (-dps - 5)


def _at(act, kind, q, dq, dps):
    """E h(√q z) at an mpmath fixed point q known to ±dq: (value, error including |E h(q + dq) − E h(q)|)."""
    val, err = _moment(act, kind, q, dps)
    if dq > 0:
        other, _ = _moment(act, kind, q + dq, dps)
        err = err + abs(other - val)
    return val, err


def _mp_estimate(val, err, method, dps=_DPS) -> Estimate:
    f = float(val)
    with mpmath.workdps(dps + 10):
        rounding = abs(mpmath.mpf(f) - val)
    return Estimate(f, float(err + rounding), method, text=mpmath.nstr(val, dps) if f != 0.0 else "0")


def length_map(act, q, sigma_w2, sigma_b2, keep=1.0, *, dps: int = _DPS) -> Estimate:
    """The length map q ↦ (σ_w²/ρ) ∫Dz φ(√q z)² + σ_b² (Poole et al. eq 3; Schoenholz eq 3).

    Parameters
    ----------
    act : Activation or str
        φ (a registry name, a formula or an Activation).
    q : float
        The previous layer's q^{l−1} ≥ 0.
    sigma_w2, sigma_b2 : float
        Weight and bias variances.
    keep : float
        Dropout keep probability ρ ∈ (0, 1] (the weight term gets 1/ρ).
    dps : int
        Digits of the mpmath quadrature.

    Returns
    -------
    Estimate
        q^l with its error.

    Examples
    --------
    >>> e = length_map("relu", 2.0, 1.5, 0.1)          # σ_w² q/2 + σ_b²
    >>> abs(e.value - 1.6) <= e.error
    True
    """
    act = _act(act)
    sw, sb, rho = _params(sigma_w2, sigma_b2, keep)
    dps = validate.dps(dps)
    val, err = _moment(act, "phi2", mpmath.mpf(_q(q)), dps)
    with mpmath.workdps(dps + 10):
        a = mpmath.mpf(sw) / mpmath.mpf(rho)
        out, oerr = a * val + mpmath.mpf(sb), a * err
    return _mp_estimate(out, oerr, f"length map, mpmath dps={dps}", dps)


def covariance_map(act, q11, q22, q12, sigma_w2, sigma_b2) -> Estimate:
    """The covariance map q_ab ↦ σ_w² ∫Dz₁Dz₂ φ(u₁)φ(u₂) + σ_b² (Poole et al. eq 5; Schoenholz eq 4), u₁, u₂
    jointly Gaussian with variances q11, q22 and covariance q12. The diagonal entries of the next layer are
    :func:`length_map` (q11), (q22); dropout does not enter the off-diagonal.

    Parameters
    ----------
    act : Activation or str
        φ (a registry name, a formula or an Activation).
    q11, q22, q12 : float
        Variances and covariance of the previous layer's pre-activations.
    sigma_w2, sigma_b2 : float
        Weight and bias variances σ_w² > 0, σ_b² ≥ 0.

    Returns
    -------
    Estimate
        The next layer's covariance q_ab (error from :func:`theory.gaussian.bivariate_expectation`).

    Examples
    --------
    >>> e = covariance_map("erf", 0.5, 2.0, 0.6, 1.0, 0.0)   # arcsine kernel
    >>> abs(e.value - 2 / math.pi * math.asin(1.2 / math.sqrt(2 * 5))) < 1e-14
    True
    """
    act = _act(act)
    sw, sb, _ = _params(sigma_w2, sigma_b2)
    e = bivariate_expectation(act, act, _q(q11, "q11"), _q(q22, "q22"), float(q12))
    return Estimate(sw * e.value + sb, sw * e.error + 1e-16 * abs(sw * e.value + sb), "covariance map: " + e.method)


def correlation_map(act, c, q, sigma_w2, sigma_b2, keep=1.0) -> Estimate:
    """C(c) = [σ_w² ∫Dz₁Dz₂ φ(u₁)φ(u₂) + σ_b²] / q′ at q_aa = q_bb = q, with q′ = :func:`length_map` (q)
    (Schoenholz eq 5): the correlation of the next layer. At q = q* and ρ = 1, C(1) = 1.

    Parameters
    ----------
    act : Activation or str
        φ (a registry name, a formula or an Activation).
    c : float
        Correlation in [−1, 1].
    q : float
        The common variance q_aa = q_bb > 0 (usually :func:`fixed_point_q`).
    sigma_w2, sigma_b2 : float
        Weight and bias variances σ_w² > 0, σ_b² ≥ 0.
    keep : float
        Dropout keep probability ρ (enters q′ only).

    Returns
    -------
    Estimate
        C(c) with its error.

    Examples
    --------
    >>> q = fixed_point_q("tanh", 2.0, 0.05).value
    >>> correlation_map("tanh", 1.0, q, 2.0, 0.05).value
    1.0
    """
    act = _act(act)
    sw, sb, rho = _params(sigma_w2, sigma_b2, keep)
    c, q = float(c), _q(q)
    if not (-1.0 <= c <= 1.0) or q <= 0:
        raise DeepinitError(f"the correlation map needs c ∈ [−1, 1] and q > 0 (got c = {c!r}, q = {q!r})")
    new_q = length_map(act, q, sw, sb, rho)
    num = covariance_map(act, q, q, c * q, sw, sb)
    val = num.value / new_q.value
    err = num.error / new_q.value + abs(val) * new_q.error / new_q.value + 1e-16 * abs(val)
    return Estimate(val, err, "correlation map: " + num.method)


# ---------------------------------------------------------------------------------------------
# fixed points
# ---------------------------------------------------------------------------------------------

#: digits of the first stage of the root finders (the bracket scan and the Illinois iteration to ~1e-13); the
#: second stage refines at the full ``dps`` inside a bracket of ~1e-11 relative, a few evaluations
_DPS_COARSE = 15


def _refine_root(F, lo, hi, dps):
    """A root of F(q, digits) in [lo, hi] (sign change): Illinois at 15 digits, then at ``dps`` digits inside a
    bracket around the first-stage root (widened ×100 until F changes sign there). Returns
    (q, final bracket lo, hi, F′ over that bracket, iterations)."""
    q1, a1, b1, n1 = illinois(lambda q: F(q, _DPS_COARSE), lo, hi, xtol=mpmath.mpf(10) ** -13 * hi, maxiter=400)
    d = max(b1 - a1, mpmath.mpf(10) ** -11 * abs(q1))
    a, b = lo, hi
    for _ in range(5):
        ta, tb = max(lo, q1 - d), min(hi, q1 + d)
        Fa, Fb = F(ta, dps), F(tb, dps)
        if Fa == 0 or Fb == 0 or (Fa > 0) != (Fb > 0):
            a, b = ta, tb
            break
        d *= 100
    else:
        Fa, Fb = F(a, dps), F(b, dps)
    q, qlo, qhi, n2 = illinois(lambda t: F(t, dps), a, b, Fa, Fb, xtol=mpmath.mpf(10) ** (5 - dps) * hi, maxiter=400)
    dF = (F(qhi, dps) - F(qlo, dps)) / (qhi - qlo) if qhi > qlo else (Fb - Fa) / (b - a)
    return q, qlo, qhi, dF, n1 + n2


def _bracket_up(F, lo, start, what):
    """A sign-changing bracket of F (at 15 digits) above ``lo`` (where F ≥ 0): double q from ``start`` until
    F(q) < 0; when F(start) < 0 already and ``lo`` is tiny (σ_b² = 0), divide by 8 down from ``start`` until
    F > 0, so that a root near 0 (σ_w² just above its critical value) is bracketed in few steps."""
    if F(start, _DPS_COARSE) < 0:
        hi, t = start, start / 8
        while t > 1000 * lo:
            if F(t, _DPS_COARSE) >= 0:
                return t, hi
            hi, t = t, t / 8
        return lo, hi
    prev, t = start, 2 * start
    for _ in range(60):
        if F(t, _DPS_COARSE) < 0:
            return prev, t
        prev, t = t, 2 * t
    raise UndefinedQuantityError(what + f" (up to q = {float(t):.3g})")


def _homogeneous_marginal(act: Activation, sw: float, sb: float, rho: float, dps: int) -> bool:
    """φ positively homogeneous of degree 1, σ_b² = 0 and (σ_w²/ρ) E φ(z)² = 1: L(q) = q for every q (ReLU at
    σ_w² = 2), so q* is undefined while χ₁ = 1 and c* = 1 (the correlation map does not depend on q)."""
    if sb != 0.0 or act.homogeneity_degree != 1:
        return False
    with mpmath.workdps(dps + 10):
        v, _ = _moment(act, "phi2", mpmath.mpf(1), dps)
        # σ_w² arrives as a float: within a few of its ulps of the marginal value counts as marginal
        return abs(mpmath.mpf(sw) / mpmath.mpf(rho) * v - 1) <= mpmath.mpf(2) ** -50


@functools.lru_cache(maxsize=1024)
def _qstar(act: Activation, sw: float, sb: float, rho: float, dps: int):
    """(q*, its error, how) in mpmath: the stable fixed point of the length map reached from small q."""
    with mpmath.workdps(dps + 10):
        a, b = mpmath.mpf(sw) / mpmath.mpf(rho), mpmath.mpf(sb)
        tiny = mpmath.mpf(10) ** (-dps)

        def F(q, d):
            return a * _moment(act, "phi2", q, d)[0] + b - q
        lo = b
        if sb == 0.0 and act.mpmath(mpmath.mpf(0)) == 0:
            s0 = a * _zero_limit(act, dps)[0]                            # L′(0⁺) = (σ_w²/ρ) lim E φ′(√q z)²
            f1, f2 = F(mpmath.mpf(1), dps), F(mpmath.mpf(2), dps)
            if abs(f1) <= mpmath.mpf(10) ** (5 - dps) and abs(f2) <= 2 * mpmath.mpf(10) ** (5 - dps):
                raise UndefinedQuantityError(f"{act.name} at σ_w² = {sw:g}, σ_b² = 0: every q is a fixed point of "
                                             "the length map (marginal); q* is undefined")
            # L′(0⁺) < 1: q = 0 attracts every small q, whatever fixed points lie above (SiLU at σ_w² = 3 has an
            # attracting one beyond a repelling one); L′(0⁺) = 1: it attracts from above when L(1) < 1
            if s0 < 1:
                return mpmath.mpf(0), mpmath.mpf(0), "q* = 0: σ_b² = 0, φ(0) = 0 and L′(0⁺) < 1"
            if s0 <= 1 and f1 < 0:
                return mpmath.mpf(0), mpmath.mpf(0), "q* = 0: σ_b² = 0, φ(0) = 0, L′(0⁺) = 1 and L(1) < 1"
            lo = tiny
        prev, hi = _bracket_up(F, lo, max(b, mpmath.mpf(2) ** -8),
                               f"{act.name} at σ_w² = {sw:g}, σ_b² = {sb:g}, ρ = {rho:g}: the length map has no "
                               "finite fixed point (L(q) > q)")
        q, qlo, qhi, dF, n = _refine_root(F, prev, hi, dps)
        quad_err = a * _moment(act, "phi2", q, dps)[1]
        dq = (qhi - qlo) / 2 + quad_err / max(abs(dF), tiny)
    return q, dq, f"Illinois on [{float(prev):.4g}, {float(hi):.4g}] in mpmath (15, then {dps} digits), {n} iterations"


# ---------------------------------------------------------------------------------------------
# every fixed point of the length map, with its slope, stability and basin
# ---------------------------------------------------------------------------------------------

#: the default range of q scanned for fixed points and edge-of-chaos crossings, and the scan's resolution
Q_MAX = 1e4
_SCAN_PER_DECADE = 24
_SCAN_NODES = 40


@functools.lru_cache(maxsize=64)
def _legendre(nodes: int):
    return np.polynomial.legendre.leggauss(nodes)


def _float_moments(act: Activation, qs: np.ndarray, derivative: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """E φ(√q z)² (and E φ′(√q z)² when ``derivative``) for every q of ``qs`` by float64 Gauss–Legendre rules on
    [−12, 12], split at the kinks b/√q and at ±1/√q, ±4/√q (where φ(√q z) turns), pieces no longer than
    min(1, 2/√q) — the scan's route, about 1e-10 relative; every root it brackets is refined in mpmath."""
    gx, gw = _legendre(_SCAN_NODES)
    f = act.numpy
    d = _derivative(act, 1).numpy if derivative else None
    kinks = tuple(act.breakpoints) + (tuple(_derivative(act, 1).breakpoints) if derivative else ())
    m2 = np.empty(len(qs))
    d2 = np.empty(len(qs)) if derivative else None
    for i, q in enumerate(qs):
        s = math.sqrt(q)
        if s == 0.0:                          # E φ(0·z)² = φ(0)²
            m2[i] = float(f(np.array([0.0]))[0]) ** 2
            if derivative:
                d2[i] = float(d(np.array([0.0]))[0]) ** 2
            continue
        cuts = {b / s for b in kinks} | {-8.0, -4.0, -2.0, 2.0, 4.0, 8.0}
        if s > 1:
            cuts |= {-4 / s, -1 / s, 1 / s, 4 / s}
        pts = [-12.0] + sorted(c for c in cuts if -12.0 < c < 12.0) + [12.0]
        h = min(1.0, 2.0 / s)                 # pieces no longer than 2/√q: φ(√q z) may oscillate (sin, cos)
        pts = np.concatenate([np.linspace(a, b, max(1, int(math.ceil((b - a) / h))) + 1)[:-1]
                              for a, b in zip(pts[:-1], pts[1:])] + [np.array([12.0])])
        lo, hi = pts[:-1], pts[1:]
        z = (0.5 * (hi + lo))[:, None] + (0.5 * (hi - lo))[:, None] * gx
        w = (0.5 * (hi - lo))[:, None] * gw * np.exp(-z * z / 2) / math.sqrt(2 * math.pi)
        with np.errstate(over="ignore", invalid="ignore"):
            m2[i] = float(np.sum(w * f(s * z) ** 2))
            if derivative:
                d2[i] = float(np.sum(w * d(s * z) ** 2))
    return m2, d2


def _scan_grid(lo: float, q_max: float) -> np.ndarray:
    lo = max(lo, 1e-10)
    n = max(8, int(math.ceil(_SCAN_PER_DECADE * math.log10(q_max / lo))))
    return np.geomspace(lo, q_max, n + 1)


def _sign_changes(qs: np.ndarray, F: np.ndarray) -> list[tuple[float, float]]:
    """Brackets [q_j, q_{j+1}] where the finite values of F change sign (or vanish at q_j)."""
    out = []
    for j in range(len(qs) - 1):
        a, b = F[j], F[j + 1]
        if not (math.isfinite(a) and math.isfinite(b)):
            continue
        if a == 0.0 or (a > 0) != (b > 0) and b != 0.0:
            out.append((float(qs[j]), float(qs[j + 1])))
    return out


def _length_slope_at(act, a, q, dq, dps) -> Estimate:
    """L′(q) = (σ_w²/ρ)·E[φ(√q z)²(z² − 1)]/(2q) (Stein's lemma; needs no derivative of φ); at q = 0 the limit
    L(q)/q, q → 0⁺ (q = 10^(−dps))."""
    with mpmath.workdps(dps + 10):
        if q == 0:
            v, e = _zero_limit(act, dps)
            return _mp_estimate(a * v, a * e, "L′(0⁺) = (σ_w²/ρ)(φ′(0⁺)² + φ′(0⁻)²)/2", dps)
        d = min(dps, 20)                      # a slope is judged against 1: 20 digits are plenty
        v, e = _moment(act, "phi2_stein", q, d)
        slope = a * v / (2 * q)
        # q* is known to ±dq: the slope moves by about |L″| dq ≤ 2|L′| dq/q for the maps here (a bound, not tight)
        err = a * e / (2 * q) + 2 * abs(slope) * dq / q
        return _mp_estimate(slope, err, "L′(q*) = (σ_w²/ρ) E φ²(z² − 1)/(2q*) (Stein)", d)


def _midpoint(a: float, b: float) -> float:
    return math.sqrt(a * b) if a > 0 else b / 2


def _marginal_side(F, q: float, lower: float) -> str:
    """How a marginal fixed point of the length map behaves: the sign of F = L − q just above and below it."""
    h = max(abs(q), 1e-6) * 1e-3
    above = F(q + h)
    below = F(q - h) if q - h > lower else None
    parts = ["attracting from above" if above < 0 else "repelling from above"]
    if below is not None:
        parts.append("attracting from below" if below > 0 else "repelling from below")
    return "marginal: " + ", ".join(parts)


class _LengthMap:
    """The length map of one (φ, σ_w², σ_b², ρ) with its float scan on [lo, q_max] and its mpmath roots."""

    def __init__(self, act: Activation, sw: float, sb: float, rho: float, q_max: float, dps: int):
        self.act, self.sw, self.sb, self.rho, self.q_max, self.dps = act, sw, sb, rho, float(q_max), dps
        self.a = mpmath.mpf(sw) / mpmath.mpf(rho)
        self.zero_is_fixed = sb == 0.0 and act.mpmath(mpmath.mpf(0)) == 0
        self.qs = _scan_grid(sb if sb > 0 else 1e-10, self.q_max)
        m2, _ = _float_moments(act, self.qs, derivative=False)
        self.L = sw / rho * m2 + sb
        self.F = self.L - self.qs
        finite = np.isfinite(self.L)
        self.increasing = bool(np.all(np.diff(self.L[finite]) >= -1e-12 * np.abs(self.L[finite][1:])))

    def float_F(self, q: float) -> float:
        m2, _ = _float_moments(self.act, np.array([q]), derivative=False)
        return float(self.sw / self.rho * m2[0] + self.sb - q)

    def mp_F(self, q, d):
        return self.a * _moment(self.act, "phi2", q, d)[0] + mpmath.mpf(self.sb) - q

    def root(self, lo: float, hi: float):
        """(q, dq, how) in mpmath for a float bracket, or None when mpmath does not confirm the sign change."""
        with mpmath.workdps(self.dps + 10):
            flo, fhi = self.mp_F(mpmath.mpf(lo), _DPS_COARSE), self.mp_F(mpmath.mpf(hi), _DPS_COARSE)
            if flo != 0 and fhi != 0 and (flo > 0) == (fhi > 0):
                return None
            try:
                q, qlo, qhi, dF, n = _refine_root(self.mp_F, mpmath.mpf(lo), mpmath.mpf(hi), self.dps)
            except DeepinitError:                   # the sign change vanished at full precision: a rounding artefact
                return None
            quad_err = self.a * _moment(self.act, "phi2", q, self.dps)[1]
            dq = (qhi - qlo) / 2 + quad_err / max(abs(dF), mpmath.mpf(10) ** (-self.dps))
        return q, dq, f"Illinois on [{lo:.4g}, {hi:.4g}] in mpmath (15, then {self.dps} digits), {n} iterations"

    def brackets(self) -> list[tuple[float, float]]:
        return _sign_changes(self.qs, self.F)

    def float_roots(self) -> list[float]:
        """Every fixed point in float64 (for basins and the choice of a branch): q = 0 when it is one, then a
        root of the float map in each bracket."""
        from scipy.optimize import brentq
        out = [0.0] if self.zero_is_fixed else []
        for lo, hi in self.brackets():
            out.append(lo if self.float_F(lo) == 0.0 else brentq(self.float_F, lo, hi, rtol=1e-13))
        return out

    def annotate(self, q, dq, how, others: list[float]) -> FixedPoint:
        """q* as a FixedPoint: its slope (Stein), stability and — for an increasing map — its basin between its
        neighbours ``others`` (the other fixed points, floats)."""
        slope = _length_slope_at(self.act, self.a, q, dq, self.dps)
        stab = classify_slope(slope, CRITICAL_BAND)
        qf = float(q)
        note = ""
        if stab == "marginal":
            lower = 0.0 if self.zero_is_fixed else self.sb
            note = _marginal_side(self.float_F, qf, lower)
        basin = None
        if self.increasing:
            below = max([o for o in others if o < qf], default=None)
            above = min([o for o in others if o > qf], default=None)
            lo_end = 0.0 if below is None else below
            hi_end = self.q_max if above is None else above
            up = qf > lo_end and self.float_F(_midpoint(lo_end, qf)) > 0
            down = hi_end > qf and self.float_F(_midpoint(qf, hi_end)) < 0
            basin = (lo_end if up else qf, hi_end if down else qf)
        else:
            note = (note + "; " if note else "") + "the map is not increasing on the scanned range: basin unknown"
        if q == 0:
            est = Estimate.exact(0.0, how)
        else:
            e = _mp_estimate(q, dq, how, self.dps)
            est = Estimate(e.value, e.error, e.method, text=mpmath.nstr(q, 20))
        return FixedPoint(est.value, est.error, est.method, est.text, slope=slope, stability=stab, basin=basin,
                          note=note)

    def all_roots(self) -> list[tuple]:
        """(q, dq, how) of every fixed point on the scanned range, q = 0 first when it is one."""
        out = []
        if self.zero_is_fixed:
            out.append((mpmath.mpf(0), mpmath.mpf(0), "q = 0: σ_b² = 0 and φ(0) = 0"))
        for lo, hi in self.brackets():
            r = self.root(lo, hi)
            if r is not None:
                out.append(r)
        return out


def length_fixed_points(act, sigma_w2, sigma_b2, keep=1.0, *, q_max: float = Q_MAX,
                        dps: int = _DPS) -> list[FixedPoint]:
    """Every fixed point q* = L(q*) of the length map (Schoenholz eq 3) on [0, q_max], each with its slope, its
    stability and its basin.

    The map L(q) − q is scanned in float64 on a logarithmic grid (24 points per decade from σ_b², or 1e-10, to
    ``q_max``); each sign change is refined in mpmath to 10^(5−dps) relative as :func:`fixed_point_q` does. The
    slope is L′(q*) = (σ_w²/ρ) E[φ(√q* z)²(z² − 1)]/(2q*) (Stein's lemma, so it exists for a step function too);
    |L′| < 1 − err attracts, |L′| > 1 + err repels, anything else is marginal and its note says from which side it
    attracts. For an increasing map (checked on the grid) the basin of a point is the interval between its
    neighbouring fixed points from which the iterates move towards it. A tangency that does not change the sign of
    L(q) − q between two grid points (a saddle-node exactly at these σ_w², σ_b²) is not found.

    Parameters
    ----------
    act : Activation or str
        φ (a registry name, a formula or an Activation).
    sigma_w2, sigma_b2 : float
        Weight and bias variances σ_w² > 0, σ_b² ≥ 0.
    keep : float
        Dropout keep probability ρ ∈ (0, 1].
    q_max : float
        The end of the scanned range.
    dps : int
        Digits of the mpmath refinement.

    Returns
    -------
    list of FixedPoint
        In increasing order of q*.

    Examples
    --------
    >>> [(round(float(p), 6), p.stability) for p in length_fixed_points("relu", 1.0, 0.5)]   # q = q/2 + 1/2
    [(1.0, 'attracting')]
    >>> p0, = length_fixed_points("tanh", 0.8, 0.0)                 # q* = 0 attracts every q⁰ ≥ 0
    >>> float(p0), p0.stability, p0.basin
    (0.0, 'attracting', (0.0, 10000.0))
    """
    act = _act(act)
    sw, sb, rho = _params(sigma_w2, sigma_b2, keep)
    dps = validate.dps(dps)
    q_max = _q(q_max, "q_max")
    if not q_max > max(sb, 1e-10):
        raise DeepinitError(f"q_max = {q_max!r} must exceed σ_b² (every fixed point lies in [σ_b², ∞))")
    if _homogeneous_marginal(act, sw, sb, rho, dps):
        raise UndefinedQuantityError(f"{act.name} at σ_w² = {sw:g}, σ_b² = 0: every q is a fixed point of the length "
                                     "map (marginal; χ₁ = 1 at every q)")
    lm = _LengthMap(act, sw, sb, rho, q_max, dps)
    roots = lm.all_roots()
    floats = [float(r[0]) for r in roots]
    return [lm.annotate(q, dq, how, floats[:i] + floats[i + 1:]) for i, (q, dq, how) in enumerate(roots)]


def fixed_point_q(act, sigma_w2, sigma_b2, keep=1.0, *, q0: float | None = None, dps: int = _DPS) -> FixedPoint:
    """q* = (σ_w²/ρ) ∫Dz φ(√q* z)² + σ_b² (Schoenholz eq 3; [Forward maps]): the fixed point that the iterates
    of the length map reach from q⁰, with its slope, stability and basin.

    ``q0=None``: the fixed point reached from small q — for σ_b² > 0 the smallest crossing of the diagonal from
    above on [σ_b², ∞) (bracketed by doubling, then the Illinois iteration in mpmath to 10^(5−dps) relative); for
    σ_b² = 0 and φ(0) = 0, q* = 0 exactly when L′(0⁺) ≤ 1 and L(1) < 1 (tanh: σ_w² ≤ 1), else the positive root.
    ``q0`` given: for an increasing map (checked on the scan of :func:`length_fixed_points`) the nearest fixed
    point in the direction L(q⁰) − q⁰ points to; otherwise the fixed point where the float iterates from q⁰
    settle. Every fixed point with its stability: :func:`length_fixed_points`. Raises
    :class:`UndefinedQuantityError` when the iterates have no finite limit (ReLU with σ_w² > 2) or every q is a
    fixed point (ReLU at σ_w² = 2, σ_b² = 0).

    Parameters
    ----------
    act : Activation or str
        φ (a registry name, a formula or an Activation).
    sigma_w2, sigma_b2 : float
        Weight and bias variances σ_w² > 0, σ_b² ≥ 0.
    keep : float
        Dropout keep probability ρ ∈ (0, 1].
    q0 : float, optional
        The starting variance q⁰ ≥ 0 (default: small q).
    dps : int
        Digits of the mpmath quadrature and of the root (10^(5−dps) relative).

    Returns
    -------
    FixedPoint
        An :class:`~theory.results.Estimate` of q* (``error``: the final bracket, the quadrature error over
        |1 − L′(q*)|, and the float rounding; ``text``: q* to 20 digits) with ``slope`` L′(q*), ``stability``
        and ``basin`` — within the scanned range [0, max(10⁴, 10 q*)] (``q0=None``) or [0, max(10⁴, 10 q⁰)]: an
        end at the range's end means "at least up to there".

    Examples
    --------
    >>> fixed_point_q("tanh", 0.8, 0.0).value
    0.0
    >>> e = fixed_point_q("relu", 1.0, 0.5)                 # q = q/2 + 0.5
    >>> abs(e.value - 1.0) <= e.error, e.stability, round(e.slope.value, 12)
    (True, 'attracting', 0.5)
    """
    act = _act(act)
    sw, sb, rho = _params(sigma_w2, sigma_b2, keep)
    dps = validate.dps(dps)
    if q0 is None:
        q, dq, how = _qstar(act, sw, sb, rho, dps)
        lm = _LengthMap(act, sw, sb, rho, max(Q_MAX, 10 * float(q)), dps)
        floats = lm.float_roots()
        others = [r for r in floats if abs(r - float(q)) > 1e-6 * max(float(q), 1e-8)]
        return lm.annotate(q, dq, how, others)
    q0 = _q(q0, "q0")
    lm = _LengthMap(act, sw, sb, rho, max(Q_MAX, 10 * q0), dps)
    floats = lm.float_roots()
    target = _limit_from(lm, floats, q0, act, sw, sb)
    if target == 0.0 and lm.zero_is_fixed:
        q, dq, how = mpmath.mpf(0), mpmath.mpf(0), "q* = 0: σ_b² = 0, φ(0) = 0"
    else:
        lo, hi = next((lo, hi) for lo, hi in lm.brackets() if lo <= target <= hi)
        r = lm.root(lo, hi)
        if r is None:
            raise UndefinedQuantityError(f"{act.name} at σ_w² = {sw:g}, σ_b² = {sb:g}: the fixed point near "
                                         f"{target:.6g} reached from q⁰ = {q0:g} is not confirmed in mpmath")
        q, dq, how = r
    how = f"reached from q⁰ = {q0:g}: " + how
    return lm.annotate(q, dq, how, [r for r in floats if abs(r - target) > 1e-6 * max(target, 1e-8)])


def _limit_from(lm: _LengthMap, roots: list[float], q0: float, act, sw, sb) -> float:
    """The fixed point (float) the length map's iterates reach from q⁰."""
    where = f"{act.name} at σ_w² = {sw:g}, σ_b² = {sb:g}"
    if lm.increasing:
        f0 = lm.float_F(q0)
        near = [r for r in roots if abs(r - q0) <= 1e-12 * max(q0, 1e-300)]
        if f0 == 0.0 or near:
            return near[0] if near else q0
        if f0 > 0:
            above = [r for r in roots if r > q0]
            if not above:
                raise UndefinedQuantityError(f"{where}: the iterates from q⁰ = {q0:g} grow without a fixed point up to "
                                             f"q = {lm.q_max:g} (L(q) > q)")
            return min(above)
        below = [r for r in roots if r < q0]
        return max(below)
    q = q0
    for _ in range(20_000):
        nq = lm.float_F(q) + q
        if not math.isfinite(nq) or nq > lm.q_max:
            break
        if abs(nq - q) <= 1e-13 * max(q, 1e-300):
            return min(roots, key=lambda r: abs(r - nq)) if roots else nq
        q = nq
    raise UndefinedQuantityError(f"{where}: the iterates from q⁰ = {q0:g} do not settle on a fixed point within "
                                 f"[0, {lm.q_max:g}]")


def chi_1(act, sigma_w2, sigma_b2, keep=1.0, *, dps: int = _DPS) -> Estimate:
    """χ₁ = σ_w² ∫Dz φ′(√q* z)² (Schoenholz eq 6) at the fixed point q* of the (dropout) length map.

    At q* = 0 the limit q → 0⁺ is taken (q = 10^(−dps)): φ′(0)² for smooth φ, ½ for ReLU.

    Parameters
    ----------
    act : Activation or str
        φ (a registry name, a formula or an Activation).
    sigma_w2, sigma_b2 : float
        Weight and bias variances σ_w² > 0, σ_b² ≥ 0.
    keep : float
        Dropout keep probability ρ ∈ (0, 1].
    dps : int
        Digits of the mpmath quadrature.

    Returns
    -------
    Estimate
        ``error`` includes the change of χ₁ over q* ± its error.

    Examples
    --------
    >>> chi_1("tanh", 0.8, 0.0).value                       # q* = 0: χ₁ = σ_w² φ′(0)²
    0.8
    """
    act = _act(act)
    sw, sb, rho = _params(sigma_w2, sigma_b2, keep)
    dps = validate.dps(dps)
    if sb == 0.0 and act.homogeneity_degree == 1:
        # φ′ is homogeneous of degree 0: E φ′(√q z)² = E φ′(z)² for every q > 0, so χ₁ needs no q* (which may be
        # 0, infinite or — at (σ_w²/ρ) E φ(z)² = 1 — every q)
        val, err = _moment(act, "dphi2", mpmath.mpf(1), dps)
        with mpmath.workdps(dps + 10):
            out, oerr = mpmath.mpf(sw) * val, mpmath.mpf(sw) * err
        every = _homogeneous_marginal(act, sw, sb, rho, dps)
        return _mp_estimate(out, oerr, "χ₁ = σ_w² E φ′(z)² at every q (φ positively homogeneous of degree 1, "
                                        "σ_b² = 0" + ("; every q is a fixed point of the length map" if every else "")
                                        + f"), mpmath dps={dps}", dps)
    q, dq, _ = _qstar(act, sw, sb, rho, dps)
    val, err = _at(act, "dphi2", q, dq, dps) if q > 0 else _zero_limit(act, dps)
    with mpmath.workdps(dps + 10):
        out, oerr = mpmath.mpf(sw) * val, mpmath.mpf(sw) * err
    return _mp_estimate(out, oerr, f"χ₁ = σ_w² E φ′(√q* z)²{'' if q > 0 else ' at q* = 0: (φ′(0⁺)² + φ′(0⁻)²)/2'}"
                                   f", mpmath dps={dps}", dps)


@functools.lru_cache(maxsize=1024)
def _cstar(act: Activation, sw: float, sb: float, rho: float):
    """c* (Estimate) with the phase decided by χ₁ (keep = 1) or the dropout branch (keep < 1)."""
    if rho == 1.0 and _homogeneous_marginal(act, sw, sb, rho, _DPS):
        return Estimate.exact(1.0, "every q is a fixed point and χ₁ = 1 (positive homogeneity): c* = 1")
    qs = fixed_point_q(act, sw, sb, rho)
    if qs.value == 0.0:
        return Estimate.exact(1.0, "q* = 0: all inputs collapse, c* = 1")
    if rho == 1.0:
        x1 = chi_1(act, sw, sb)
        if x1.value <= 1.0 + _band(x1):
            return Estimate.exact(1.0, "ordered (χ₁ ≤ 1): c* = 1")
    q, denom = qs.value, length_map(act, qs.value, sw, sb, rho).value

    def C(c):
        e = bivariate_expectation(act, act, q, q, c * q)
        return Estimate((sw * e.value + sb) / denom, sw * e.error / denom, "")

    def F(c):
        return C(c).value - c
    hi, prev = None, None
    for k in range(1, 53):                      # c = 1/2, 3/4, 7/8, …: the first c with F(c) < 0
        c = 1.0 - 2.0 ** -k
        if F(c) < 0:
            hi, prev = c, (1.0 - 2.0 ** -(k - 1) if k > 1 else None)
            break
    if hi is None:
        return Estimate(1.0, 2.0 ** -52, "c* within 2⁻⁵² of 1 (F(c) = C(c) − c ≥ 0 up to c = 1 − 2⁻⁵²)")
    if prev is None:                            # c* < 1/2: the first c ≤ 1/2 going down with F(c) ≥ 0
        for c in (0.0, -0.5, -1.0):
            if F(c) >= 0:
                prev = c
                break
            hi = c
    return solve_fixed_point(C, bracket=(prev, hi), xtol=2e-16, method="c* (float64 correlation map)")


def _band(x1: Estimate) -> float:
    return max(CRITICAL_BAND, 10 * x1.error)


def fixed_point_c(act, sigma_w2, sigma_b2, keep=1.0) -> Estimate:
    """c* of the correlation map at q* (Schoenholz eq 5; [Forward maps], [Dropout]).

    Ordered phase and criticality (χ₁ ≤ 1 + band, ρ = 1): c* = 1 exactly. Chaotic phase (χ₁ > 1) and every σ_w²
    with dropout (ρ < 1, where C(1) < 1): the largest root c* < 1 of C(c) = c, bracketed by scanning
    c = 1 − 2^−k, k = 1, 2, … (then 0, −½, −1) and solved by the Illinois iteration on the float64 map.

    Parameters
    ----------
    act : Activation or str
        φ (a registry name, a formula or an Activation).
    sigma_w2, sigma_b2 : float
        Weight and bias variances σ_w² > 0, σ_b² ≥ 0.
    keep : float
        Dropout keep probability ρ ∈ (0, 1].

    Returns
    -------
    Estimate
        ``error``: half the final bracket + (the map's error)/|1 − C′(c*)|; exactly 0 for c* = 1.

    Examples
    --------
    >>> fixed_point_c("tanh", 1.2, 0.05).value
    1.0
    >>> 0.0 < fixed_point_c("tanh", 2.5, 0.05).value < 1.0
    True
    """
    act = _act(act)
    sw, sb, rho = _params(sigma_w2, sigma_b2, keep)
    return _cstar(act, sw, sb, rho)


def chi_c(act, sigma_w2, sigma_b2, keep=1.0) -> Estimate:
    """χ_c = σ_w² ∫Dz₁Dz₂ φ′(u₁*)φ′(u₂*) at q*, c* (Schoenholz eq 9), = χ₁ when c* = 1. The error includes the
    change of χ_c over c* ± its error.

    Parameters
    ----------
    act : Activation or str
        φ (a registry name, a formula or an Activation).
    sigma_w2, sigma_b2 : float
        Weight and bias variances σ_w² > 0, σ_b² ≥ 0.
    keep : float
        Dropout keep probability ρ ∈ (0, 1].

    Returns
    -------
    Estimate
        χ_c with its error.

    Examples
    --------
    >>> x = chi_c("tanh", 2.5, 0.05).value
    >>> 0.0 < x < 1.0                                        # c* < 1 is stable
    True
    """
    act = _act(act)
    sw, sb, rho = _params(sigma_w2, sigma_b2, keep)
    cs = fixed_point_c(act, sw, sb, rho)
    if cs.value == 1.0 and cs.error == 0.0:
        return chi_1(act, sw, sb, rho)
    d = _derivative(act, 1)
    q = fixed_point_q(act, sw, sb, rho).value
    e = bivariate_expectation(d, d, q, q, cs.value * q)
    near = bivariate_expectation(d, d, q, q, max(-1.0, cs.value - cs.error) * q)
    err = sw * (e.error + abs(near.value - e.value)) + 1e-16 * sw * abs(e.value)
    return Estimate(sw * e.value, err, "χ_c = σ_w² E φ′(u₁*)φ′(u₂*): " + e.method)


def correlation_stability(act, sigma_w2, sigma_b2, keep=1.0) -> Stability:
    """The correlation map's fixed point c* with its slope by Price's theorem (χ_c) and by finite differences of
    :func:`correlation_map` (one-sided at c* = 1), and their difference (:func:`theory.fixed_points.stability`).

    Parameters
    ----------
    act : Activation or str
        φ (a registry name, a formula or an Activation).
    sigma_w2, sigma_b2 : float
        Weight and bias variances σ_w² > 0, σ_b² ≥ 0.
    keep : float
        Dropout keep probability ρ ∈ (0, 1].

    Returns
    -------
    Stability
        c*, both slopes, their difference and whether |slope| < 1.

    Examples
    --------
    >>> st = correlation_stability("tanh", 1.5, 0.05)
    >>> st.branch, st.stable, st.difference < 1e-6
    ('c* = 1', True, True)
    """
    act = _act(act)
    sw, sb, rho = _params(sigma_w2, sigma_b2, keep)
    cs = fixed_point_c(act, sw, sb, rho)
    q = fixed_point_q(act, sw, sb, rho).value
    branch = "c* = 1" if cs.value == 1.0 else "c* < 1"
    return stability(lambda c: correlation_map(act, c, q, sw, sb, rho), cs,
                     derivative=lambda c: chi_c(act, sw, sb, rho), branch=branch,
                     side="left" if cs.value >= 1.0 - 1e-2 else "central", h=1e-3 if cs.value < 1.0 - 1e-2 else None)


# ---------------------------------------------------------------------------------------------
# depth scales
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DepthScales:
    """The depth scales of Schoenholz et al. (eqs 7–9) at one (σ_w², σ_b², ρ), with what they are made of.

    ``phase``: ``"ordered"`` (χ₁ < 1), ``"chaotic"`` (χ₁ > 1) or ``"critical"`` (|χ₁ − 1| ≤ ``critical_band``,
    ρ = 1 only: there ξ_c = +inf and ``xi_c_lower_bound`` ≈ 1/band is what is asserted). With dropout (ρ < 1) the
    phase is named from χ₁ but c* < 1 and ξ_c is finite for every σ_w². ``xi_grad`` = −1/log(χ₁/ρ) is signed:
    negative in the chaotic phase, where gradients grow backwards (eq 16).

    Attributes
    ----------
    xi_q, xi_c : Estimate
        ξ_q and ξ_c (eqs 7–9).
    q_star : FixedPoint or None
        q* with its slope and stability; ``None`` where every q is a fixed point (ReLU at σ_w² = 2, σ_b² = 0).
    c_star : Estimate
        c*.
    chi_1, chi_c : Estimate
        χ₁ and χ_c.
    phase : str
        ``"ordered"``, ``"chaotic"`` or ``"critical"``.
    keep : float
        The dropout keep probability ρ.
    xi_grad : Estimate or None
        ξ_∇ = −1/log(χ₁/ρ), signed (eq 16).
    critical_band : float
        The half-width of the critical band around χ₁ = 1.
    xi_c_lower_bound : float or None
        In the critical phase: the lower bound on ξ_c that is asserted.

    Examples
    --------
    >>> from theory import depth_scales
    >>> d = depth_scales("tanh", 1.5, 0.05)
    >>> d.phase, round(d.xi_q.value, 10), round(d.xi_c.value, 8), round(d.q_star.value, 12)
    ('ordered', 1.6828283887, 15.79099403, 0.418037200533)
    """

    xi_q: Estimate
    xi_c: Estimate
    q_star: Estimate | None
    c_star: Estimate
    chi_1: Estimate
    chi_c: Estimate
    phase: str
    keep: float = 1.0
    xi_grad: Estimate | None = None
    critical_band: float = CRITICAL_BAND
    xi_c_lower_bound: float | None = None


def _xi(slope: Estimate, what: str) -> Estimate:
    """ξ = −1/log s with error |ds|/(s log² s); +inf for s ≥ 1."""
    s = slope.value
    if s <= 0.0:
        return Estimate.exact(0.0, f"{what}: slope {s:.3g} ≤ 0, the map reaches its fixed point in one layer")
    if s >= 1.0:
        return Estimate(math.inf, 0.0, f"{what}: slope {s:.17g} ≥ 1, no exponential approach")
    ls = math.log(s)
    return Estimate(-1.0 / ls, slope.error / (s * ls * ls) + 1e-16 / abs(ls), f"{what} = −1/log({s:.17g})")


def _length_slope(act, sw, sb, rho, dps) -> Estimate:
    """L′(q*) = (σ_w²/ρ)[E φ′² + E φ″φ] (Stein's lemma; Schoenholz eq 7's bracket when ρ = 1)."""
    q, dq, _ = _qstar(act, sw, sb, rho, dps)
    if q > 0:
        v1, e1 = _at(act, "dphi2", q, dq, dps)
        v2, e2 = _at(act, "phi_ddphi", q, dq, dps)
    else:                                       # q* = 0 needs φ(0) = 0: E φ″φ → 0, E φ′² → its one-sided limit
        (v1, e1), (v2, e2) = _zero_limit(act, dps), (mpmath.mpf(0), mpmath.mpf(0))
    with mpmath.workdps(dps + 10):
        a = mpmath.mpf(sw) / mpmath.mpf(rho)
        return _mp_estimate(a * (v1 + v2), a * (e1 + e2), "(χ₁ + σ_w² E φ″φ)/ρ", dps)


def depth_scales(act, sigma_w2, sigma_b2, keep=1.0, *, dps: int = _DPS) -> DepthScales:
    """ξ_q, ξ_c (Schoenholz eqs 7–9; [Depth scales]) with q*, c*, χ₁, χ_c and the phase.

    ξ_q⁻¹ = −log[(χ₁ + σ_w² ∫Dz φ″(√q* z)φ(√q* z))/ρ]; ξ_c⁻¹ = −log χ_c, χ_c = χ₁ in the ordered phase
    (c* = 1). ξ_c diverges like 1/|χ₁ − 1| at the edge of chaos while ξ_q stays finite; the noise floor there is
    handled by the critical band of the module docstring. A kink where φ′ jumps contributes its Dirac mass to
    E φ″φ (J φ(b) p_{q*}(b); zero for ReLU since φ(0) = 0). At q* = 0 the slopes are the limits q → 0⁺.

    Parameters
    ----------
    act : Activation or str
        Anything :func:`theory.activation` accepts.
    sigma_w2, sigma_b2 : float
        σ_w² and σ_b², the weight and bias variances.
    keep : float
        Dropout keep probability ρ.
    dps : int
        Decimal digits of the mpmath quadratures (keyword only).

    Returns
    -------
    DepthScales
        ξ_q, ξ_c, ξ_∇ with q*, c*, χ₁, χ_c and the phase.

    Examples
    --------
    >>> d = depth_scales("tanh", 1.5, 0.05)
    >>> d.phase, d.c_star.value, round(d.xi_c.value, 6) == round(-1 / math.log(d.chi_1.value), 6)
    ('ordered', 1.0, True)
    """
    act = _act(act)
    sw, sb, rho = _params(sigma_w2, sigma_b2, keep)
    dps = validate.dps(dps)
    x1 = chi_1(act, sw, sb, rho, dps=dps)
    band = _band(x1)
    phase = "ordered" if x1.value < 1.0 else "chaotic"
    if rho == 1.0 and abs(x1.value - 1.0) <= band:
        phase = "critical"
    if _homogeneous_marginal(act, sw, sb, rho, dps):
        qs = None
        xi_q = Estimate(math.inf, 0.0, "every q is a fixed point of the length map (L′ = 1): ξ_q = ∞")
    else:
        qs = fixed_point_q(act, sw, sb, rho, dps=dps)
        xi_q = _xi(_length_slope(act, sw, sb, rho, dps), "ξ_q")
    cs = fixed_point_c(act, sw, sb, rho)
    xc = chi_c(act, sw, sb, rho)
    bound = None
    if phase == "critical":
        bound = -1.0 / math.log1p(-band)
        xi_c = Estimate(math.inf, 0.0, f"critical: |χ₁ − 1| ≤ {band:.2g}, ξ_c ≥ {bound:.3g} (reported as +inf)")
    else:
        xi_c = _xi(xc, "ξ_c")
    rate = gradient_growth_rate(act, sw, sb, rho)
    xi_grad = (Estimate(math.inf, 0.0, "χ₁/ρ = 1: ξ_∇ = ∞") if abs(rate.value - 1.0) <= band
               else Estimate(-1.0 / math.log(rate.value), rate.error / (rate.value * math.log(rate.value) ** 2),
                             "ξ_∇ = −1/log(χ₁/ρ) (signed)"))
    return DepthScales(xi_q=xi_q, xi_c=xi_c, q_star=qs, c_star=cs, chi_1=x1, chi_c=xc, phase=phase, keep=rho,
                       xi_grad=xi_grad, critical_band=band, xi_c_lower_bound=bound)


def gradient_growth_rate(act, sigma_w2, sigma_b2, keep=1.0, width_ratio: float = 1.0) -> Estimate:
    """E[(δ^l)²]/E[(δ^{l+1})²] = (N_{l+1}/N_l)·χ₁/ρ per layer for δ^l = ∂E/∂z^l (Schoenholz eq 16,
    [Backpropagation], under the independence assumption; the dropout factor 1/ρ is that of the mask on y^l,
    E m²/ρ² = 1/ρ). Equal widths and no dropout: χ₁. The gradient depth scale is :func:`gradient_depth_scale`.

    Parameters
    ----------
    act : Activation or str
        φ (a registry name, a formula or an Activation).
    sigma_w2, sigma_b2 : float
        Weight and bias variances σ_w² > 0, σ_b² ≥ 0.
    keep : float
        Dropout keep probability ρ ∈ (0, 1].
    width_ratio : float
        N_{l+1}/N_l.

    Returns
    -------
    Estimate
        The per-layer growth rate with its error.

    Examples
    --------
    >>> gradient_growth_rate("tanh", 0.8, 0.0).value
    0.8
    """
    act = _act(act)
    sw, sb, rho = _params(sigma_w2, sigma_b2, keep)
    r = float(width_ratio)
    if not (math.isfinite(r) and r > 0):
        raise DeepinitError(f"width_ratio = {width_ratio!r} must be a finite positive number")
    x1 = chi_1(act, sw, sb, rho)
    f = r / rho
    return Estimate(f * x1.value, f * x1.error + 1e-16 * f * x1.value, "(N_{l+1}/N_l)·χ₁/ρ (eq 16)")


def gradient_depth_scale(act, sigma_w2, sigma_b2, keep=1.0) -> Estimate:
    """ξ_∇ = −1/log(χ₁/ρ) (Schoenholz eq 16): positive in the ordered phase (gradients vanish over ξ_∇ layers
    backwards), negative in the chaotic phase (they grow), +inf at χ₁/ρ = 1.

    Parameters
    ----------
    act : Activation or str
        φ (a registry name, a formula or an Activation).
    sigma_w2, sigma_b2 : float
        Weight and bias variances σ_w² > 0, σ_b² ≥ 0.
    keep : float
        Dropout keep probability ρ ∈ (0, 1].

    Returns
    -------
    Estimate
        Signed; +inf at χ₁/ρ = 1.

    Examples
    --------
    >>> abs(gradient_depth_scale("tanh", 0.8, 0.0).value - (-1 / math.log(0.8))) < 1e-15
    True
    """
    rate = gradient_growth_rate(act, sigma_w2, sigma_b2, keep)
    if rate.value == 1.0:
        return Estimate(math.inf, 0.0, "χ₁/ρ = 1")
    lg = math.log(rate.value)
    return Estimate(-1.0 / lg, rate.error / (rate.value * lg * lg) + 1e-16 / abs(lg), "ξ_∇ = −1/log(χ₁/ρ)")


# ---------------------------------------------------------------------------------------------
# the order-to-chaos boundary
# ---------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=256)
def _critical(act: Activation, sb: float, dps: int, q_max: float = Q_MAX):
    """Every solution of χ₁ = 1 jointly with q = L(q) on [0, q_max]: eliminate σ_w² = 1/E φ′(√q z)² and solve
    G(q) = E φ(√q z)²/E φ′(√q z)² + σ_b² − q = 0 — a float64 scan for sign changes, each refined in mpmath.
    Returns a tuple of (σ_w²,crit, error, q*, dq*, how), mpmath numbers, in increasing q*."""
    out = []
    with mpmath.workdps(dps + 10):
        b = mpmath.mpf(sb)
        tiny = mpmath.mpf(10) ** (-dps)

        def G(q, d):
            return _moment(act, "phi2", q, d)[0] / _moment(act, "dphi2", q, d)[0] + b - q
        if sb == 0.0 and act.mpmath(mpmath.mpf(0)) == 0:
            v, e = _zero_limit(act, dps)
            # φ′(0±) = 0 (x − tanh x): the limit is zero to its own error — v ~ ε^k at ε = 10^(−dps−10), and the
            # value at 2ε differs by at least v — so χ₁ = 0 at q* = 0 for every σ_w²: no critical point there
            if v > e:
                out.append((1 / v, e / v ** 2, mpmath.mpf(0), mpmath.mpf(0),
                            "σ_b² = 0, φ(0) = 0: q* = 0, σ_w²,crit = 2/(φ′(0⁺)² + φ′(0⁻)²)"))
                if act.homogeneity_degree == 1:      # G ≡ 0: at that σ_w² every q is a fixed point with χ₁ = 1
                    return tuple(out)
        qs = _scan_grid(sb if sb > 0 else 1e-10, q_max)
        m2, d2 = _float_moments(act, qs, derivative=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            Gf = m2 / d2 + sb - qs
        for lo, hi in _sign_changes(qs, Gf):
            glo, ghi = G(mpmath.mpf(lo), _DPS_COARSE), G(mpmath.mpf(hi), _DPS_COARSE)
            if glo != 0 and ghi != 0 and (glo > 0) == (ghi > 0):
                continue                                    # the float scan's sign change is not confirmed
            q, qlo, qhi, dG, n = _refine_root(G, mpmath.mpf(lo), mpmath.mpf(hi), dps)
            (m, em), (v, e) = _moment(act, "phi2", q, dps), _moment(act, "dphi2", q, dps)
            sw = 1 / v
            dq = (qhi - qlo) / 2 + (em / v + e * m / v ** 2) / max(abs(dG), tiny)
            err = abs(1 / _moment(act, "dphi2", q + dq, dps)[0] - sw) + e / v ** 2
            out.append((sw, err, q, dq, f"χ₁ = 1 and q* jointly: Illinois in mpmath (15, then {dps} digits), {n} "
                                        f"iterations, q* = {mpmath.nstr(q, 15)}"))
    return tuple(out)


@dataclass(frozen=True)
class CriticalPoint(Estimate):
    """A point of the order-to-chaos boundary: an :class:`~theory.results.Estimate` of σ_w²,crit at which
    χ₁ = 1 at a fixed point q* of the length map, with that fixed point.

    Attributes
    ----------
    value, error, method, text
        σ_w²,crit as an :class:`~theory.results.Estimate`.
    q_star : FixedPoint or None
        The fixed point where χ₁ = 1, with its slope L′(q*), stability and basin at σ_w²,crit; ``None`` where every q
        is one (ReLU at σ_b² = 0).
    reached : bool
        True when q* is the fixed point that the iterates reach from small q (:func:`fixed_point_q`) at this σ_w²:
        only then does a network initialised there sit at the edge of chaos.
    branch : str
        In words: which fixed point this is and how it behaves.

    Examples
    --------
    >>> cp, = critical_points("tanh", 0.05)
    >>> round(cp.value, 6), round(cp.q_star.value, 6), cp.q_star.stability, cp.reached
    (1.760955, 0.570048, 'attracting', True)
    """

    q_star: FixedPoint | None = field(default=None, compare=False)
    reached: bool = field(default=False, compare=False)
    branch: str = field(default="", compare=False)


def critical_points(act, sigma_b2, *, q_max: float = Q_MAX, dps: int = _DPS) -> list[CriticalPoint]:
    """Every solution (σ_w², q*) of χ₁ = σ_w² E φ′(√q* z)² = 1 with q* = L(q*) (Schoenholz eqs 3, 6) for
    q* ∈ [0, q_max], each labelled with the stability of q* and whether it is the fixed point reached from small q.

    An activation whose length map has several fixed points (SiLU, GELU with a bias) can meet χ₁ = 1 at a
    repelling fixed point: that σ_w² is not an edge of chaos for a network, whose variance settles at the
    attracting q* instead. :func:`critical_sigma_w2` returns the points that are reached.

    Parameters
    ----------
    act : Activation or str
        φ (a registry name, a formula or an Activation); φ′ must not carry a Dirac mass.
    sigma_b2 : float
        σ_b² ≥ 0.
    q_max : float
        The end of the scanned range of q*.
    dps : int
        Digits of the mpmath refinement.

    Returns
    -------
    list of CriticalPoint
        In increasing order of q*.

    Examples
    --------
    >>> [(round(c.value, 5), round(c.q_star.value, 4), c.q_star.stability, c.reached)
    ...  for c in critical_points("silu", 0.05)][:1]
    [(2.72861, 0.8266, 'repelling', False)]
    """
    act = _act(act)
    sb = float(sigma_b2)
    if not (math.isfinite(sb) and sb >= 0):
        raise DeepinitError(f"σ_b² = {sigma_b2!r} must be a finite number ≥ 0")
    dps = validate.dps(dps)
    q_max = _q(q_max, "q_max")
    if not q_max > max(sb, 1e-10):
        raise DeepinitError(f"q_max = {q_max!r} must exceed σ_b²")
    out = []
    for sw, err, q, dq, how in _critical(act, sb, dps, q_max):
        swf = float(sw)
        if _homogeneous_marginal(act, swf, sb, 1.0, dps):
            est = _mp_estimate(sw, err, how + "; every q is a fixed point (positive homogeneity of degree 1)", dps)
            out.append(CriticalPoint(est.value, est.error, est.method, est.text, q_star=None, reached=True,
                                     branch="every q is a fixed point of the length map and χ₁ = 1 at every q "
                                            "(φ positively homogeneous of degree 1, σ_b² = 0): marginal everywhere"))
            continue
        lm = _LengthMap(act, swf, sb, 1.0, max(q_max, 10 * float(q)), dps)
        floats = lm.float_roots()
        others = [r for r in floats if abs(r - float(q)) > 1e-6 * max(float(q), 1e-8)]
        fp = lm.annotate(q, dq, how, others)
        if q == 0:
            reached = fp.attracting
        else:
            try:
                limit = _limit_from(lm, floats, 1e-10 if sb == 0 else 0.0, act, swf, sb)
                reached = abs(limit - float(q)) <= 1e-6 * max(float(q), 1e-8)
            except UndefinedQuantityError:
                reached = False
        label = (f"q* = {float(q):.6g} is {fp.stability}" + (f" ({fp.note})" if fp.note else "")
                 + (", reached from small q" if reached else ", not the fixed point reached from small q"))
        est = _mp_estimate(sw, err, how, dps)
        out.append(CriticalPoint(est.value, est.error, est.method, est.text, q_star=fp, reached=reached,
                                 branch=label))
    return out


def critical_sigma_w2(act, sigma_b2, *, dps: int = _DPS) -> CriticalPoint:
    """The order-to-chaos boundary σ_b² ↦ σ_w²,crit (Poole et al. Fig 2; Schoenholz Fig 1; [Forward maps]): the
    σ_w² at which χ₁ = σ_w² ∫Dz φ′(√q* z)² = 1 at the fixed point q* = σ_w² ∫Dz φ(√q* z)² + σ_b² that the
    network's variance reaches from small q.

    σ_w² = 1/E φ′(√q z)² is eliminated and the 1-D equation E φ²/E φ′² + σ_b² = q solved for every root in
    [0, :data:`Q_MAX`] (:func:`critical_points`: a float scan, each root refined in mpmath to 10^(5−dps) relative);
    σ_b² = 0 with φ(0) = 0 gives the candidate q* = 0 and 1/lim_{q→0⁺} E φ′(√q z)² (tanh: 1). Only a root whose q*
    is the fixed point reached from small q (attracting, or marginal and attracting from above) is an edge of
    chaos; when several are, the smallest σ_w² is returned and its method says how many there are. Raises
    :class:`UndefinedQuantityError` when none is (SiLU: χ₁ = 1 only at a repelling fixed point).

    Parameters
    ----------
    act : Activation or str
        φ (a registry name, a formula or an Activation).
    sigma_b2 : float
        σ_b² ≥ 0.
    dps : int
        Digits of the mpmath quadratures (≥ 15; default 30).

    Returns
    -------
    CriticalPoint
        An Estimate of σ_w²,crit (``error`` from the final bracket, propagated through 1/E φ′², and the quadrature,
        plus the float rounding; ``text``: the value to ``dps`` digits) with ``q_star`` (a :class:`FixedPoint`).

    Examples
    --------
    >>> critical_sigma_w2("tanh", 0.0).value
    1.0
    >>> round(critical_sigma_w2("tanh", 0.05).value, 4)
    1.761
    """
    act = _act(act)
    points = critical_points(act, sigma_b2, dps=dps)
    sb = float(sigma_b2)
    good = [c for c in points if c.reached]
    if good:
        best = min(good, key=lambda c: c.value)
        if len(good) == 1:
            return best
        return dataclasses.replace(best, method=best.method + f"; {len(good)} edges of chaos on the branch reached "
                                                                "from small q (critical_points lists them), the "
                                                                "smallest σ_w² returned")
    if not points:
        raise UndefinedQuantityError(f"{act.name} at σ_b² = {sb:g}: no order-to-chaos boundary (χ₁ = 1 and the "
                                     f"length map's fixed point have no common solution for q* ≤ {Q_MAX:g})")
    c = points[0]
    try:
        there = fixed_point_q(act, c.value, sb, dps=dps)
        x1 = chi_1(act, c.value, sb, dps=dps)
        fate = f"the variance reached from small q there is q* = {there.value:.4g}, where χ₁ = {x1.value:.4g}"
    except UndefinedQuantityError as exc:
        fate = f"from small q the variance does not settle ({str(exc).split(': ', 1)[-1]})"
    raise UndefinedQuantityError(
        f"{act.name} at σ_b² = {sb:g}: no edge of chaos on the fixed point reached from small q — χ₁ = 1 only at "
        f"σ_w² = {c.value:.6g} with q* = {c.q_star.value:.4g}, which is {c.q_star.stability} "
        f"(L′ = {c.q_star.slope.value:.4g}); {fate}")
