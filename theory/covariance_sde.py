"""The neural covariance SDE (covariance-sde: Li, Nica, Roy, NeurIPS 2022) — derived in sympy, not typed in.

Notation (the paper's): width n, depth d, inputs α, β; V_ℓ^{αβ} = (c/n)⟨φ_ℓ^α, φ_ℓ^β⟩, ρ the correlation, t = ℓ/n.
Given layer ℓ, the next pre-activations are N(0, V_ℓ ⊗ I_n) (eq 2.7), so every drift and diffusion below is a
Gaussian expectation of the shaped activation, expanded in 1/√n:

* ReLU-like shaping φ_s = s₊ max(x,0) + s₋ min(x,0), s± = 1 + c±/√n (Def 3.1): the exact kernel
  cK(ρ) = E[cφ_s(x)φ_s(y)] comes from the arc-cosine integral, derived here by integrating cos t·cos(t − ψ) over
  the angular sector in sympy; ν(ρ) is its n⁻¹ coefficient (:func:`sde_drift_relu_like`).
* Smooth shaping φ_s(x) = sφ(x/s), s = a√n (Def 3.6): Taylor expansion to order s⁻² with Isserlis moments gives
  the drift (3.10) and its diagonal (4.1) in terms of φ″(0), φ‴(0) (:func:`smooth_covariance_drift`).
* The diffusion Σ (eq 3.2) is the covariance of xy products (Isserlis), the same for both shapings.
* The correlation SDE (3.4)–(3.5) from the covariance SDE by Itô's formula (:func:`correlation_sde_from_ito`).
* The unshaped ReLU chain (2.10): μ_ReLU, σ_ReLU by the delta method on the ratio of averages, with the ReLU
  bivariate moments E[relu(x)^a relu(y)^b] in closed form (:func:`relu_chain_coefficients`).
* Feller's test for (3.7) (:func:`feller_explosion_test`) and the criterion (3/4)φ″(0)² + φ‴(0)
  (:func:`explosion_criterion`).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import sympy as sp

from .activations import activation
from .activations import x as X
from .errors import DeepinitError
from .results import Estimate

rho, t, psi = sp.symbols("rho t psi", real=True)
c_plus, c_minus = sp.symbols("c_+ c_-", real=True)
eps = sp.Symbol("epsilon", positive=True)          # ε = n^{-1/2}
phi2, phi3 = sp.symbols("phi2 phi3", real=True)      # φ″(0), φ‴(0)
a_shape = sp.Symbol("a", positive=True)
V11, V12, V22 = sp.symbols("V11 V12 V22", real=True)


# ---------------------------------------------------------------------------------------------
# Gaussian moments
# ---------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=64)
def relu_bivariate_moment(p: int, q: int) -> sp.Expr:
    """E[relu(x)^p relu(y)^q] for standard normals with correlation ρ = cos ψ, exact in sympy (function of ρ).

    Polar coordinates: x = r cos t, y = r cos(t − ψ); E r^{p+q} = 2^{(p+q)/2} Γ((p+q)/2 + 1) for r² ~ χ²₂ and the
    angle is uniform, so the moment is E r^{p+q}/(2π) ∫_{ψ−π/2}^{π/2} cos^p t cos^q(t − ψ) dt."""
    k = p + q
    radial = sp.Integer(2) ** sp.Rational(k, 2) * sp.gamma(sp.Rational(k, 2) + 1)
    integrand = sp.expand_trig(sp.cos(t) ** p * sp.cos(t - psi) ** q)
    # the sector where the factors with a positive power are positive: cos t > 0 if p > 0, cos(t − ψ) > 0 if q > 0
    if p > 0 and q > 0:
        lo, hi = psi - sp.pi / 2, sp.pi / 2
    elif p > 0:
        lo, hi = -sp.pi / 2, sp.pi / 2
    elif q > 0:
        lo, hi = psi - sp.pi / 2, psi + sp.pi / 2
    else:
        lo, hi = 0, 2 * sp.pi
    ang = sp.integrate(integrand, (t, lo, hi))
    expr = sp.simplify(radial / (2 * sp.pi) * ang)
    expr = expr.subs({sp.sin(psi): sp.sqrt(1 - rho ** 2), sp.cos(psi): rho}).subs(psi, sp.acos(rho))
    return sp.simplify(expr)


def relu_moment_numeric(p: int, q: int, r: float) -> float:
    """Independent check of :func:`relu_bivariate_moment`: y = ρx + √(1−ρ²)w, nested scipy quadrature over x > 0 and
    over the half-line of w where y > 0 (no kink inside either integral)."""
    from scipy import integrate
    s = math.sqrt(1 - r * r)
    phi = lambda u: math.exp(-u * u / 2) / math.sqrt(2 * math.pi)  # noqa: E731

    def inner(xv):
        if q == 0:
            return 1.0
        if s == 0:
            return max(r * xv, 0.0) ** q
        lo = -r * xv / s
        return integrate.quad(lambda w: (r * xv + s * w) ** q * phi(w), lo, np.inf, epsabs=1e-13, epsrel=1e-12)[0]
    val = integrate.quad(lambda xv: xv ** p * inner(xv) * phi(xv), 0, np.inf, epsabs=1e-13, epsrel=1e-12)[0]
    return float(val)


def isserlis(powers: tuple[int, int], cov=(V11, V12, V22)) -> sp.Expr:
    """E[x^i y^j] for (x, y) ~ N(0, [[V11, V12], [V12, V22]]) (Isserlis / Wick), as a sympy expression."""
    i, j = powers
    if (i + j) % 2:
        return sp.Integer(0)
    s1, s2 = sp.symbols("s1 s2")
    mgf = sp.exp((cov[0] * s1 ** 2 + 2 * cov[1] * s1 * s2 + cov[2] * s2 ** 2) / 2)
    return sp.expand(sp.diff(mgf, s1, i, s2, j).subs({s1: 0, s2: 0}))


def _expect_poly(poly: sp.Expr, xs=sp.Symbol("x"), ys=sp.Symbol("y"), cov=(V11, V12, V22)) -> sp.Expr:
    poly = sp.Poly(sp.expand(poly), xs, ys)
    return sp.expand(sum(coef * isserlis((i, j), cov) for (i, j), coef in poly.terms()))


# ---------------------------------------------------------------------------------------------
# ReLU-like shaping (Section 2, Theorems 3.2, 3.3)
# ---------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=8)
def relu_like_kernel() -> tuple[sp.Expr, sp.Expr]:
    """(c, cK(ρ)) for φ = s₊max(x,0) + s₋min(x,0) with symbols s₊ = sp, s₋ = sm (exact, from the moments)."""
    sp_, sm_ = sp.symbols("s_p s_m", positive=True)
    # φ(x)φ(y) = s₊² r(x)r(y) + s₋² r(−x)r(−y) − s₊s₋ (r(x)r(−y) + r(−x)r(y)),  r = relu;
    # (−x, −y) has correlation ρ, (x, −y) correlation −ρ
    m11 = relu_bivariate_moment(1, 1)
    m11_neg = m11.subs(rho, -rho).subs(sp.acos(-rho), sp.pi - sp.acos(rho))
    E = (sp_ ** 2 + sm_ ** 2) * m11 - 2 * sp_ * sm_ * m11_neg
    second = (sp_ ** 2 + sm_ ** 2) * relu_bivariate_moment(2, 0)   # E φ(g)²
    c = sp.simplify(1 / second)
    return c, sp.simplify(c * E)


def sde_drift_relu_like(cp=c_plus, cm=c_minus) -> sp.Expr:
    """ν(ρ): the n⁻¹ coefficient of cK(ρ) − ρ for s± = 1 + c±/√n (Theorem 3.2's drift), derived by series.

    Parameters
    ----------
    cp, cm : sympy expression or number
        c₊ and c₋ (default: the symbols ``c_+``, ``c_-``).

    Returns
    -------
    sympy.Expr
        ν as a function of the symbol ``rho``.

    Examples
    --------
    >>> from theory import sde_drift_relu_like
    >>> sde_drift_relu_like(0, -1)
    (-rho*acos(rho) + sqrt(1 - rho**2))/(2*pi)
    """
    c, cK = relu_like_kernel()
    sp_, sm_ = sp.symbols("s_p s_m", positive=True)
    expr = cK.subs({sp_: 1 + cp * eps, sm_: 1 + cm * eps})
    ser = sp.series(expr, eps, 0, 3).removeO()
    assert sp.simplify(ser.coeff(eps, 0) - rho) == 0 and sp.simplify(ser.coeff(eps, 1)) == 0
    return sp.simplify(sp.factor(ser.coeff(eps, 2)))


def nu_printed(cp=c_plus, cm=c_minus) -> sp.Expr:
    """ν(ρ) as printed in (3.2)/(3.5)."""
    return (cp - cm) ** 2 / (2 * sp.pi) * (sp.sqrt(1 - rho ** 2) - rho * sp.acos(rho))


def relu_like_constants(s_plus, s_minus) -> tuple[sp.Expr, sp.Expr]:
    """(c, σ²) of eq (2.6): c = 1/E φ(g)², σ² = Var(cφ(g)²), exact (ReLU: c = 2, σ² = 5)."""
    s_plus, s_minus = sp.nsimplify(s_plus), sp.nsimplify(s_minus)
    m2 = (s_plus ** 2 + s_minus ** 2) * relu_bivariate_moment(2, 0)
    m4 = (s_plus ** 4 + s_minus ** 4) * relu_bivariate_moment(4, 0)
    c = sp.simplify(1 / m2)
    return c, sp.simplify(c ** 2 * m4 - 1)


def covariance_diffusion(m: int = 2) -> sp.Matrix:
    """Σ(V) of eq (3.2) derived: Cov(x_α x_β, x_γ x_δ) for x ~ N(0, V) (Isserlis), upper-triangular index order."""
    Vs = sp.Matrix(m, m, lambda i, j: sp.Symbol(f"V{min(i, j) + 1}{max(i, j) + 1}"))
    idx = [(i, j) for i in range(m) for j in range(i, m)]
    s_ = sp.symbols(f"s1:{m + 1}")
    mgf = sp.exp(sum(Vs[i, j] * s_[i] * s_[j] for i in range(m) for j in range(m)) / 2)

    def moment(powers):
        d = mgf
        for k, p in enumerate(powers):
            if p:
                d = sp.diff(d, s_[k], p)
        return sp.expand(d.subs({v: 0 for v in s_}))

    def E(mono):
        powers = [0] * m
        for k in mono:
            powers[k] += 1
        return moment(powers)
    S = sp.zeros(len(idx))
    for A, (a, b) in enumerate(idx):
        for C, (g, d) in enumerate(idx):
            S[A, C] = sp.expand(E((a, b, g, d)) - E((a, b)) * E((g, d)))
    return S


def covariance_diffusion_printed(m: int = 2) -> sp.Matrix:
    """Σ as printed in (3.2): [V^{αγ}V^{βδ} + V^{αδ}V^{βγ}]."""
    V = lambda i, j: sp.Symbol(f"V{min(i, j) + 1}{max(i, j) + 1}")  # noqa: E731
    idx = [(i, j) for i in range(m) for j in range(i, m)]
    return sp.Matrix(len(idx), len(idx), lambda A, C: V(idx[A][0], idx[C][0]) * V(idx[A][1], idx[C][1])
                     + V(idx[A][0], idx[C][1]) * V(idx[A][1], idx[C][0]))


@dataclass(frozen=True)
class CorrelationSDE:
    drift: sp.Expr       # in ρ (ν included)
    diffusion: sp.Expr   # σ(ρ) ≥ 0
    ito_correction: sp.Expr


def correlation_sde_from_ito(nu: sp.Expr | None = None) -> CorrelationSDE:
    """dρ from dV (3.1)–(3.2) by Itô's formula on ρ = V12/sqrt(V11 V22), with b^{αβ} = ν(ρ)sqrt(V^{αα}V^{ββ}).
    Returns the drift and diffusion as functions of ρ alone (the V-dependence cancels)."""
    nu = nu_printed() if nu is None else nu
    v11, v22 = sp.symbols("v11 v22", positive=True)
    v12 = sp.Symbol("v12", real=True)
    R = v12 / sp.sqrt(v11 * v22)
    Vv = [v11, v12, v22]
    b = [0, nu.subs(rho, R) * sp.sqrt(v11 * v22), 0]  # ν(1) = 0: no drift on the diagonal
    S = covariance_diffusion(2).subs({sp.Symbol("V11"): v11, sp.Symbol("V12"): v12, sp.Symbol("V22"): v22})
    grad = [sp.diff(R, v) for v in Vv]
    hess = [[sp.diff(R, u, v) for v in Vv] for u in Vv]
    drift = sum(g * bb for g, bb in zip(grad, b)) + sp.Rational(1, 2) * sum(
        hess[i][j] * S[i, j] for i in range(3) for j in range(3))
    var = sum(grad[i] * S[i, j] * grad[j] for i in range(3) for j in range(3))
    sub = {v12: rho * sp.sqrt(v11 * v22)}
    drift = sp.simplify(drift.subs(sub))
    var = sp.factor(sp.simplify(var.subs(sub)))
    ito = sp.simplify(drift - nu)
    return CorrelationSDE(drift, sp.sqrt(var).simplify() if var != 0 else sp.Integer(0), ito)


# ---------------------------------------------------------------------------------------------
# Smooth shaping (Theorem 3.9, eq 4.1)
# ---------------------------------------------------------------------------------------------

def smooth_covariance_drift() -> tuple[sp.Expr, sp.Expr]:
    """(b^{αβ}, b^{αα}) of the covariance SDE for φ_s(x) = sφ(x/s), s = a√n: the n-step limit of
    E[V_{ℓ+1} − V_ℓ | V_ℓ]·n, derived by Taylor expansion to order s⁻² and Isserlis moments."""
    xs, ys, u = sp.symbols("x y u")
    phi_taylor = u + phi2 * u ** 2 / 2 + phi3 * u ** 3 / 6     # φ(u) to third order (φ(0)=0, φ′(0)=1)
    inv_s = sp.Symbol("w", positive=True)                       # w = 1/s
    shaped = lambda v: sp.expand(phi_taylor.subs(u, v * inv_s) / inv_s)  # noqa: E731  sφ(v/s)
    prod = sp.expand(shaped(xs) * shaped(ys))
    prod = sum(prod.coeff(inv_s, k) * inv_s ** k for k in range(3))   # keep up to s⁻²
    E_xy = _expect_poly(prod, xs, ys)
    E_unit = _expect_poly(sum(sp.expand(shaped(xs) ** 2).coeff(inv_s, k) * inv_s ** k for k in range(3)),
                          xs, ys, cov=(1, 1, 1))
    c = 1 / E_unit
    inc = sp.series(c * E_xy - V12, inv_s, 0, 3).removeO()
    # per layer the increment is O(s⁻²) = O(1/(a²n)); per unit time t = ℓ/n multiply by n: s⁻² n = 1/a²
    drift = sp.expand(inc.coeff(inv_s, 2) / a_shape ** 2)
    diag = sp.factor(drift.subs({V12: V11, V22: V11}))
    return drift, diag


def smooth_drift_printed() -> tuple[sp.Expr, sp.Expr]:
    """(3.10) and (4.1) as printed."""
    b = phi2 ** 2 / (4 * a_shape ** 2) * (V11 * V22 + V12 * (2 * V12 - 3)) \
        + phi3 / (2 * a_shape ** 2) * V12 * (V11 + V22 - 2)
    diag = (sp.Rational(3, 4) * phi2 ** 2 + phi3) * V11 / a_shape ** 2 * (V11 - 1)
    return b, diag


# ---------------------------------------------------------------------------------------------
# Assumption 3.5, the explosion criterion, Examples 4.1–4.2
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ExplosionCriterion:
    """The covariance-SDE explosion criterion (3/4)φ″(0)² + φ‴(0) of an activation (Proposition 3.7), exact.

    ``phi`` is the activation meeting Assumption 3.5 (``recentred`` says how it was obtained from the given σ, ""
    when σ met it already); ``phi2``, ``phi3`` are φ″(0), φ‴(0) and ``value`` the criterion: the SDE is stable when
    it is ≤ 0. See :func:`explosion_criterion`.

    Attributes
    ----------
    activation : str
        The name of the given σ.
    recentred : str
        How φ was obtained from σ ("" when σ met Assumption 3.5 already).
    phi : sympy.Expr
        φ, meeting Assumption 3.5.
    phi2, phi3 : sympy.Expr
        φ″(0) and φ‴(0).
    value : sympy.Expr
        (3/4)φ″(0)² + φ‴(0); ``float(criterion)`` gives it as a float, ``stable`` says whether it is ≤ 0.
    error : float
        0: the value is exact (its float is within half a unit in the last place).
    method : str
        How it was computed (the package's result convention: value, error, method).

    Examples
    --------
    >>> from theory import explosion_criterion
    >>> ec = explosion_criterion("tanh")
    >>> ec.phi, ec.phi2, ec.phi3, ec.value, ec.stable
    (tanh(x), 0, -2, -2, True)
    >>> ec = explosion_criterion("gelu")               # recentred: φ(x) = (σ(x) − σ(0))/σ′(0)
    >>> ec.value, round(float(ec), 12), ec.stable
    (6/pi, 1.909859317103, False)
    """
    activation: str
    recentred: str          # how φ was obtained from the given σ ("" if it already met Assumption 3.5)
    phi: sp.Expr            # the activation meeting Assumption 3.5
    phi2: sp.Expr
    phi3: sp.Expr
    value: sp.Expr          # (3/4)φ″(0)² + φ‴(0)
    error: float = 0.0
    method: str = "sympy: derivatives of φ at 0, exact"

    @property
    def stable(self) -> bool:
        """No finite-time explosion of (4.1) iff the criterion is ≤ 0 (Proposition 3.7)."""
        return bool(float(self.value) <= 0)

    def __float__(self):
        return float(self.value)

    def estimates(self) -> dict:
        """The criterion, φ″(0) and φ‴(0) as :class:`~theory.results.Estimate` s (value, error, method): the
        exact sympy numbers rounded to floats (error half a unit in the last place), each with its exact form in
        ``text``.

        Examples
        --------
        >>> from theory import explosion_criterion
        >>> e = explosion_criterion("gelu").estimates()["criterion"]
        >>> e.text, round(e.value, 12), e.error > 0
        ('6/pi', 1.909859317103, True)
        """
        out = {}
        for key, expr in (("criterion", self.value), ("phi2", self.phi2), ("phi3", self.phi3)):
            v = float(expr)
            exact = bool(sp.Rational(v) == sp.nsimplify(expr)) if expr.is_Rational else False
            out[key] = Estimate(v, 0.0 if exact else 0.5 * math.ulp(v), self.method, text=str(expr))
        return out


def explosion_criterion(act, x0=0) -> ExplosionCriterion:
    """(3/4)φ″(0)² + φ‴(0) for φ meeting Assumption 3.5 (φ(0) = 0, φ′(0) = 1, C⁴ near 0).

    If the activation σ does not meet it, it is recentred as in Section 3.2: φ(x) = (σ(x + x₀) − σ(x₀))/σ′(x₀)
    (``x0`` default 0), and ``recentred`` says so. Raises :class:`DeepinitError` if σ′(x₀) = 0 or σ is not C⁴ at
    x₀ (a kink, e.g. ReLU — use the ReLU-like shaping of Definition 3.1 instead).

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    x0 : number
        The recentring point x₀.

    Returns
    -------
    ExplosionCriterion
        ``value`` (a sympy number: the SDE is stable when ≤ 0), ``phi``, ``phi2``, ``phi3``, ``recentred``.

    Examples
    --------
    >>> from theory import explosion_criterion
    >>> explosion_criterion("tanh").value
    -2
    >>> e = explosion_criterion("softplus")         # recentred: φ(x) = (σ(x) − log 2)/(1/2)
    >>> e.value, e.value > 0                        # 3/16 > 0: unstable
    (3/16, True)
    """
    a = activation(act)
    x0 = sp.nsimplify(x0)
    if any(abs(float(b) - float(x0)) < 1e-12 for b in a.breakpoints):
        eps = 1e-9 * max(1.0, abs(float(x0)))
        left, right = a.numpy(np.array([float(x0) - eps, float(x0) + eps]))
        if not abs(right - left) <= 1e-6 * max(1.0, abs(left), abs(right)):   # one-sided values apart: a jump
            raise DeepinitError(f"{a.name} has a jump at x₀ = {x0}: not continuous there, let alone C⁴ "
                                "(Assumption 3.5); no shaping of this paper applies")
        raise DeepinitError(f"{a.name} has a kink at x₀ = {x0}: not C⁴ there (Assumption 3.5); ReLU-like "
                            "activations are shaped by Definition 3.1 instead")
    f = a.expr
    d1 = sp.simplify(sp.diff(f, X).subs(X, x0))
    f0 = sp.simplify(f.subs(X, x0))
    if d1 == 0:
        raise DeepinitError(f"{a.name}: σ′({x0}) = 0, cannot recentre to φ′(0) = 1")
    note = ""
    phi = f
    if x0 != 0 or f0 != 0 or d1 != 1:
        phi = (f.subs(X, X + x0) - f0) / d1
        note = f"recentred: φ(x) = (σ(x + {x0}) − σ({x0}))/σ′({x0}) with σ({x0}) = {f0}, σ′({x0}) = {d1}"
    p2 = sp.simplify(sp.diff(phi, X, 2).subs(X, 0))
    p3 = sp.simplify(sp.diff(phi, X, 3).subs(X, 0))
    for p in (p2, p3):
        if p.has(sp.DiracDelta, sp.Heaviside) or not p.is_finite:
            raise DeepinitError(f"{a.name}: not C⁴ at {x0} (Assumption 3.5)")
    value = sp.simplify(sp.Rational(3, 4) * p2 ** 2 + p3)
    return ExplosionCriterion(a.name, note, sp.simplify(phi), p2, p3, value)


def softplus_shift_criterion() -> tuple[sp.Expr, sp.Expr, sp.Expr, sp.Expr]:
    """Example 4.2 derived: φ″(0), φ‴(0), the criterion as a function of the shift x₀, and the exact threshold."""
    x0 = sp.Symbol("x_0", real=True)
    sig = sp.log(1 + sp.exp(X + x0))
    phi = (sig - sig.subs(X, 0)) / sp.diff(sig, X).subs(X, 0)
    p2 = sp.simplify(sp.diff(phi, X, 2).subs(X, 0))
    p3 = sp.simplify(sp.diff(phi, X, 3).subs(X, 0))
    crit = sp.simplify(sp.Rational(3, 4) * p2 ** 2 + p3)
    thr = sp.solve(sp.Eq(sp.numer(sp.together(crit)), 0), x0)
    return p2, p3, sp.factor(crit), thr


# ---------------------------------------------------------------------------------------------
# Feller's test for explosions (Proposition 3.7)
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class FellerResult:
    b: sp.Expr
    scale_density: sp.Expr       # p′(x)
    speed_density: sp.Expr       # 2/(σ²(x) p′(x))
    v_infinity_finite: bool
    v_zero_finite: bool

    @property
    def explodes(self) -> bool:
        return self.v_infinity_finite or self.v_zero_finite


def feller_explosion_test(b_value) -> FellerResult:
    """Feller's test for dX = bX(X − 1)dt + √2 X dB on (0, ∞) (eq 3.7): scale density p′ and speed density in
    sympy; v(x) = ∫_1^x p′(y)∫_1^y m(z)dz dy; explosion with positive probability iff v(0+) < ∞ or v(∞) < ∞.

    The boundary behaviour of v is decided from the asymptotic equivalents of p′ and m computed in sympy
    (limits of ratios, L'Hôpital for the inner integral), then confirmed by mpmath quadrature of v on a growing
    range (see :func:`feller_v_numeric`)."""
    b = sp.nsimplify(b_value)
    y, z = sp.symbols("y z", positive=True)
    drift = b * y * (y - 1)
    sig2 = 2 * y ** 2
    p_prime = sp.simplify(sp.exp(-sp.integrate(2 * drift.subs(y, z) / sig2.subs(y, z), (z, 1, y))))
    m = sp.simplify(2 / (sig2 * p_prime))
    # boundary ∞: inner F(y) = ∫_1^y m. If m is not integrable at ∞, F ~ G with G′ ~ m; v's integrand p′F.
    v_inf_finite = _v_finite(p_prime, m, y, sp.oo)
    v_zero_finite = _v_finite(p_prime, m, y, 0)
    return FellerResult(b, p_prime, m, v_inf_finite, v_zero_finite)


def _v_finite(p_prime: sp.Expr, m: sp.Expr, y: sp.Symbol, end) -> bool:
    """Is ∫^{end} p′(y)|∫_1^y m| dy finite? The inner integral is a nonzero constant near ``end`` when m is
    integrable there; otherwise it is ≍ G for a candidate G with G′/m → L ∈ (0, ∞) (L'Hôpital), G one of
    m/(log m)′ (exponential growth), m·y·log y (the borderline power y⁻¹)."""
    if _integrable(m, y, end):
        inner = sp.Integer(1)
    else:
        inner = None
        for G in (m / sp.diff(sp.log(m), y), m * y * sp.log(y)):
            G = sp.simplify(G)
            L = sp.limit(sp.simplify(sp.diff(G, y) / m), y, end, "+" if end == 0 else "-")
            if L.is_finite and L != 0:
                inner = sp.Abs(G) if end == 0 else G
                break
        if inner is None:
            raise DeepinitError(f"Feller test: no asymptotic equivalent found for ∫ m at {end}")
    return _integrable(sp.simplify(p_prime * inner), y, end)


def _integrable(f: sp.Expr, y: sp.Symbol, end) -> bool:
    """∫^{end} |f| < ∞ for f positive near ``end`` ∈ {0, ∞}, by comparison with y^{∓(1+δ)} (limit tests)."""
    delta = sp.Rational(1, 100)
    if end == sp.oo:
        good = sp.limit(f * y ** (1 + delta), y, sp.oo)   # f = o(y^{-1-δ}) ⇒ integrable
        bad = sp.limit(f * y, y, sp.oo)                    # f ≳ 1/y ⇒ not integrable
    else:
        good = sp.limit(f * y ** (1 - delta), y, 0, "+")
        bad = sp.limit(f * y, y, 0, "+")
    if good.is_finite and good.is_nonnegative is not False:
        return True
    if bad == sp.oo or (bad.is_positive and bad.is_finite):
        return False
    raise DeepinitError(f"Feller test inconclusive for integrand {f} at {end}")


def feller_v_numeric(b: float, upper: float, points: int = 200_001) -> float:
    """v(upper) = ∫_1^upper p′(y)∫_1^y m(z)dz dy for (3.7) by cumulative trapezoids on a geometric grid (converges as
    upper → ∞ iff the process can explode at ∞); ``inf`` when it overflows (p′ grows like e^{|b|y})."""
    y = np.geomspace(1.0, upper, points)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        log_pp = b * np.log(y) - b * (y - 1)          # log p′, p′(1) = 1
        log_m = -2 * np.log(y) - log_pp               # m = 2/(σ² p′) = 1/(y² p′)
        # log of the cumulative trapezoid ∫_1^y m, accumulated in log space (m overflows for b > 0)
        seg = np.logaddexp(log_m[1:], log_m[:-1]) - math.log(2) + np.log(np.diff(y))
        log_inner = np.concatenate([[-np.inf], np.logaddexp.accumulate(seg)])
        integrand = np.exp(log_pp + log_inner)
        v = float(np.sum(0.5 * (integrand[1:] + integrand[:-1]) * np.diff(y)))
    return v if math.isfinite(v) else math.inf


# ---------------------------------------------------------------------------------------------
# The unshaped ReLU Markov chain (2.10) — the missing appendix, derived
# ---------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def relu_chain_coefficients() -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """(cK₁(ρ), μ_ReLU(ρ), σ²_ReLU(ρ)) of eq (2.10) for ReLU (c = 2).

    ρ_{ℓ+1} = A/sqrt(PQ) with A = (c/n)Σφ(g^α)φ(g^β), P = (c/n)Σφ(g^α)², Q = (c/n)Σφ(g^β)², the n neurons i.i.d.
    given ρ_ℓ. With Y_ab = cφ(g^α)φ(g^β) etc. and m = E Y_ab = cK₁(ρ), the delta method to O(1/n) gives
      μ_ReLU = −½[Cov(Y_ab, Y_aa) + Cov(Y_ab, Y_bb)] + m[⅜(Var Y_aa + Var Y_bb) + ¼Cov(Y_aa, Y_bb)],
      σ²_ReLU = Var(Y_ab − m(Y_aa + Y_bb)/2),
    each moment E[relu(x)^p relu(y)^q] in closed form (:func:`relu_bivariate_moment`)."""
    c = 2
    M = relu_bivariate_moment
    m = sp.simplify(c * M(1, 1))
    var_aa = sp.simplify(c ** 2 * M(4, 0) - 1)
    cov_ab_aa = sp.simplify(c ** 2 * M(3, 1) - m)
    cov_aa_bb = sp.simplify(c ** 2 * M(2, 2) - 1)
    var_ab = sp.simplify(c ** 2 * M(2, 2) - m ** 2)
    mu = sp.simplify(-cov_ab_aa + m * (sp.Rational(3, 4) * var_aa + cov_aa_bb / 4))
    sig2 = sp.simplify(var_ab - 2 * m * cov_ab_aa + m ** 2 * (2 * var_aa + 2 * cov_aa_bb) / 4)
    return m, mu, sig2


@functools.lru_cache(maxsize=1)
def relu_chain_numeric():
    """(μ_ReLU, σ²_ReLU) as vectorised numpy functions of ρ."""
    _, mu, sig2 = relu_chain_coefficients()
    f_mu = sp.lambdify(rho, mu, "numpy")
    f_s2 = sp.lambdify(rho, sig2, "numpy")
    return (lambda r: np.asarray(f_mu(np.clip(r, -1, 1)), dtype=float),
            lambda r: np.asarray(f_s2(np.clip(r, -1, 1)), dtype=float))
