"""The independent routes of the claims: the mean-field maps of a tanh network by the trapezoid rule, and Monte Carlo.

The claims compare the engine (:mod:`theory.meanfield_mlp`, Gauss–Legendre rules and closed forms) with these routes,
never with itself. For an analytic integrand against the Gaussian weight the trapezoid rule converges exponentially
in 1/h (the poles of tanh(√q z) lie at distance π/(2√q) from the real axis), so the step h = 1/32 on [−14, 14] (1-d)
and h = 1/16 on [−10, 10]² (2-d) give the Gaussian integrals of this module to about 1e-15.

The correlation map is written for t = 1 − c (§ Forward maps): with u₁ = √q z₁, u₂ = √q (c z₁ + √(1 − c²) z₂),

    1 − C(c) = [σ_w² (1/ρ − 1) E φ(u)² + ½ σ_w² E (φ(u₁) − φ(u₂))²] / q_aa ,

which has no cancellation as c → 1 (ρ: the keep probability of dropout, § Dropout; q_aa the length map at q).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

_h1, _h2 = 1 / 32, 1 / 16
Z = np.arange(-14.0, 14.0 + _h1 / 2, _h1)
W = _h1 * np.exp(-Z * Z / 2) / math.sqrt(2 * math.pi)
_z2 = np.arange(-10.0, 10.0 + _h2 / 2, _h2)
_w2 = _h2 * np.exp(-_z2 * _z2 / 2) / math.sqrt(2 * math.pi)
Z1, Z2 = (a.ravel() for a in np.meshgrid(_z2, _z2, indexing="ij"))
W12 = np.outer(_w2, _w2).ravel()


def length_map(q: float, sw2: float, sb2: float, keep: float = 1.0) -> float:
    """q ↦ (σ_w²/ρ) E tanh(√q z)² + σ_b² (§ Forward maps; § Dropout for ρ < 1)."""
    return sw2 / keep * float(W @ np.tanh(math.sqrt(q) * Z) ** 2) + sb2


def q_star(sw2: float, sb2: float, keep: float = 1.0) -> float:
    """The fixed point q* of :func:`length_map`, iterated to machine precision (a contraction for tanh)."""
    q = 1.0
    for _ in range(100_000):
        nq = length_map(q, sw2, sb2, keep)
        if abs(nq - q) <= 1e-16 * nq:
            return nq
        q = nq
    raise ArithmeticError(f"length map did not converge at σ_w² = {sw2}, σ_b² = {sb2}")


def q_root(sw2: float, sb2: float) -> float:
    """q* as the root of L(q) − q by Brent's method on [1e-12, 10] (xtol 1e-300, rtol 1e-15): a second route to
    :func:`q_star` that needs no contraction, for σ_b² = 0 near σ_w² = 1 where the iteration crawls; 0.0 when
    L(q) < q already at q = 1e-12 (σ_b² = 0 and σ_w² ≤ 1: q* = 0, tanh² u < u²).

    Parameters
    ----------
    sw2, sb2 : float
        σ_w², σ_b².

    Returns
    -------
    float
        q*, to about 1e-15/(1 − L′(q*)) relative.
    """
    f = lambda q: length_map(q, sw2, sb2) - q  # noqa: E731
    if f(1e-12) <= 0:
        return 0.0
    return brentq(f, 1e-12, 10.0, xtol=1e-300, rtol=1e-15)


def chi1(sw2: float, sb2: float) -> float:
    """χ₁ = σ_w² E tanh′(√q* z)² (§ Forward maps)."""
    q = q_star(sw2, sb2)
    return sw2 * float(W @ np.cosh(np.minimum(math.sqrt(q) * np.abs(Z), 350.0)) ** -4)


def sigma_crit(sb2: float) -> float:
    """σ_w² with χ₁ = 1, by Brent's method on the trapezoid-rule χ₁ (xtol 1e-14).

    Parameters
    ----------
    sb2 : float
        σ_b² > 0.

    Returns
    -------
    float
        σ_w²,crit(σ_b²) (§ Forward maps), to about 1e-15.
    """
    return brentq(lambda s: chi1(s, sb2) - 1.0, 0.5, 20.0, xtol=1e-14, rtol=4 * np.finfo(float).eps)


def gap(t: float, q: float, sw2: float, sb2: float, keep: float = 1.0) -> float:
    """1 − C(1 − t): the correlation map in t = 1 − c at length q (module docstring).

    Parameters
    ----------
    t : float
        1 − c ∈ [0, 2].
    q : float
        The common length q_aa = q_bb of the two inputs.
    sw2, sb2, keep : float
        σ_w², σ_b² and the dropout keep probability ρ.

    Returns
    -------
    float
        1 − c of the next layer, without cancellation as t → 0.
    """
    c, s = 1.0 - t, math.sqrt(max(t * (2.0 - t), 0.0))
    rq = math.sqrt(q)
    f1 = np.tanh(rq * Z1)
    f2 = np.tanh(rq * (c * Z1 + s * Z2))
    e11 = float(W @ np.tanh(rq * Z) ** 2)
    num = sw2 * ((1.0 / keep - 1.0) * e11 + 0.5 * float(W12 @ (f1 - f2) ** 2))
    return num / length_map(q, sw2, sb2, keep)


def t_star(sw2: float, sb2: float, keep: float = 1.0) -> tuple[float, float]:
    """(q*, t* = 1 − c*): t* = 0 when c = 1 is a stable fixed point (ρ = 1, χ₁ ≤ 1), else the root of gap(t) = t."""
    q = q_star(sw2, sb2, keep)
    f = lambda t: gap(t, q, sw2, sb2, keep) / t - 1.0  # noqa: E731  (→ χ₁ − 1 as t → 0 when ρ = 1)
    lo = 1e-13
    if f(lo) <= 0:
        return q, 0.0
    return q, brentq(f, lo, 1.0, xtol=1e-16, rtol=1e-13)


def slope_at_fixed_point(q: float, t: float, sw2: float, sb2: float, keep: float = 1.0) -> float:
    """C′(c*) by finite differences of :func:`gap` (Richardson-extrapolated one-sided ones at t* = 0)."""
    if t == 0.0:
        h = 1e-7
        return 2 * gap(h / 2, q, sw2, sb2, keep) / (h / 2) - gap(h, q, sw2, sb2, keep) / h
    h = 1e-3 * t
    return (gap(t + h, q, sw2, sb2, keep) - gap(t - h, q, sw2, sb2, keep)) / (2 * h)


def chi1_monte_carlo(sw2: float, sb2: float, samples: int, seed: int) -> tuple[float, float]:
    """χ₁ by Monte Carlo: q* solved on the Gaussian sample itself (secant iteration on the sample-average length
    map, started by plain iteration), χ₁ = σ_w² · mean tanh′(√q* z)²; returns (value, delta-method standard error),
    the error propagating the sample's q* through the influence function
    σ_w²[s(z) − s̄] + ∂χ₁/∂q · σ_w²[t(z) − t̄]/(1 − L′(q*)) with t = tanh², s = tanh′² at √q* z.

    Parameters
    ----------
    sw2, sb2 : float
        σ_w², σ_b².
    samples : int
        Number of standard normal draws.
    seed : int
        Seed of numpy's default generator.

    Returns
    -------
    (float, float)
        The estimate and its standard error.
    """
    z = np.random.default_rng(seed).standard_normal(samples)

    def L(q):
        return sw2 * float(np.mean(np.tanh(math.sqrt(q) * z) ** 2)) + sb2

    def S(q):
        return np.cosh(np.minimum(math.sqrt(q) * np.abs(z), 350.0)) ** -4

    a = 1.0
    for _ in range(6):                      # a contraction: a few plain iterations, then the secant method
        a = L(a)
    b = L(a)
    fa, fb = b - a, L(b) - b
    for _ in range(100):
        if fb == fa or abs(b - a) <= 1e-15 * b:
            break
        a, b, fa = b, b - fb * (b - a) / (fb - fa), fb
        fb = L(b) - b
    q, h = b, 1e-6 * b
    s, t = S(q), np.tanh(math.sqrt(q) * z) ** 2
    chi = sw2 * float(s.mean())
    dchi = sw2 * (float(S(q + h).mean()) - float(S(q - h).mean())) / (2 * h)
    dL = (L(q + h) - L(q - h)) / (2 * h)
    psi = sw2 * (s - s.mean()) + dchi * sw2 * (t - t.mean()) / (1.0 - dL)
    return chi, float(psi.std() / math.sqrt(samples))


# ---------------------------------------------------------------------------------------------------------------
# finite-width networks (numerics.simulate_mlp)
# ---------------------------------------------------------------------------------------------------------------

def network(key, sw2: float, sb2: float, width: int, depth: int, X, seeds, **kw):
    """tanh networks of :func:`numerics.simulate_mlp` on the CPU, once per claim run (``verify.api.memo``)."""
    from numerics import simulate_mlp
    from verify import api
    return api.memo(key, lambda: simulate_mlp("tanh", sw2, sb2, width, depth, X, seeds=seeds, device="cpu", **kw))


def first_layer_inputs(q1: float, c1: float, sw2: float, sb2: float, n: int = 2, dim: int = 64):
    """Inputs x whose first pre-activations have E q¹ = q1 and E q¹_ab = q1 c1 (z¹ = W¹x + b¹ is linear in x)."""
    from numerics import inputs_with_moments
    q0 = (q1 - sb2) / sw2
    c0 = (c1 * q1 - sb2) / (sw2 * q0) if n > 1 else 0.0
    return inputs_with_moments(q0, c0, n, dim, seed=0)


def mean_and_se(per_seed: np.ndarray) -> tuple[float, float]:
    """Mean over seeds (axis 0) and its standard error."""
    per_seed = np.asarray(per_seed, dtype=float)
    return float(per_seed.mean()), float(per_seed.std(ddof=1) / math.sqrt(len(per_seed)))


def jackknife(stat, per_seed: np.ndarray) -> tuple[float, float]:
    """``stat`` of the seed ensemble (axis 0) and its delete-one-seed jackknife standard error."""
    S = len(per_seed)
    full = stat(per_seed)
    loo = np.array([stat(np.delete(per_seed, i, axis=0)) for i in range(S)])
    return float(full), float(math.sqrt((S - 1) / S * np.sum((loo - loo.mean()) ** 2)))


# ---------------------------------------------------------------------------------------------------------------
# the length map of another φ, and the closed-form ReLU correlation map in mpmath (the stability and rate claims)
# ---------------------------------------------------------------------------------------------------------------

def silu(u: np.ndarray) -> np.ndarray:
    """φ(u) = u/(1 + e^{−u}) (SiLU), written with numpy's logistic form that does not overflow."""
    return u * 0.5 * (1.0 + np.tanh(0.5 * u))


def length_map_of(phi, q: float, sw2: float, sb2: float) -> float:
    """q ↦ σ_w² E φ(√q z)² + σ_b² by the trapezoid rule of this module, for a numpy φ (§ Forward maps)."""
    return sw2 * float(W @ phi(math.sqrt(q) * Z) ** 2) + sb2


def length_slope_of(phi, q: float, sw2: float, sb2: float) -> float:
    """L′(q) by the central difference of :func:`length_map_of` with step 10⁻⁴q, Richardson-extrapolated (error
    about 10⁻¹¹ relative: the rule's 10⁻¹⁵ divided by the step, and h⁴ from the truncation)."""
    def d(h):
        return (length_map_of(phi, q + h, sw2, sb2) - length_map_of(phi, q - h, sw2, sb2)) / (2 * h)
    h = 1e-4 * q
    return (4 * d(h / 2) - d(h)) / 3


def chi1_of(dphi, q: float, sw2: float) -> float:
    """χ₁ = σ_w² E φ′(√q z)² at the length q by the trapezoid rule (§ Forward maps)."""
    return sw2 * float(W @ dphi(math.sqrt(q) * Z) ** 2)


def silu_prime(u: np.ndarray) -> np.ndarray:
    """φ′ of :func:`silu`: s(u)(1 + u(1 − s(u))), s the logistic function."""
    s = 0.5 * (1.0 + np.tanh(0.5 * u))
    return s * (1.0 + u * (1.0 - s))


def iterate_length(phi, q0: float, sw2: float, sb2: float, layers: int, cap: float = 1e6) -> float:
    """q^layers of the length map of :func:`length_map_of` from q⁰; ``inf`` once q exceeds ``cap``."""
    q = q0
    for _ in range(layers):
        q = length_map_of(phi, q, sw2, sb2)
        if q > cap:
            return math.inf
    return q


def fixed_points_of(phi, sw2: float, sb2: float, q_max: float = 100.0) -> list[float]:
    """Every root of L(q) − q on [σ_b², q_max] (:func:`length_map_of`): a scan on 400 log-spaced points, each sign
    change refined by Brent's method (rtol 1e-15)."""
    qs = np.geomspace(max(sb2, 1e-8), q_max, 400)
    F = np.array([length_map_of(phi, q, sw2, sb2) - q for q in qs])
    f = lambda q: length_map_of(phi, q, sw2, sb2) - q  # noqa: E731
    return [brentq(f, qs[i], qs[i + 1], xtol=1e-300, rtol=1e-15) for i in range(len(qs) - 1) if F[i] * F[i + 1] < 0]


def relu_deviation_trajectory(t0: float, depth: int, dps: int = 40) -> list[float]:
    """1 − c^l, l = 0..depth, of ReLU networks at σ_w² = 2, σ_b² = 0 (q^l = q⁰ for every l), iterating the closed
    form c ↦ (√(1 − c²) + (π − arccos c) c)/π (the arc-cosine kernel of degree 1) on c itself in mpmath at ``dps``
    digits: no deviation variable, no series — a route independent of the engine's Puiseux expansion."""
    import mpmath
    out = [t0]
    with mpmath.workdps(dps):
        c = 1 - mpmath.mpf(t0)
        for _ in range(depth):
            c = (mpmath.sqrt(1 - c * c) + (mpmath.pi - mpmath.acos(c)) * c) / mpmath.pi
            out.append(float(1 - c))
    return out


def deviation_trajectory(q: float, sw2: float, sb2: float, t0: float, depth: int) -> np.ndarray:
    """1 − c^l, l = 0..depth, of tanh networks at the length q (= q*), by :func:`gap` at every layer."""
    out = np.empty(depth + 1)
    out[0] = t0
    for i in range(depth):
        out[i + 1] = gap(out[i], q, sw2, sb2)
    return out


def quadratic_coefficient(q: float, sw2: float, sb2: float) -> float:
    """a of 1 − C(1 − t) = t − a t² + O(t³) at χ₁ = 1 (§ Depth scales: then 1 − c^l ≈ 1/(a l)): a(t) = (t − gap(t))/t²
    at t = 5·10⁻⁴, 10⁻³ and 2·10⁻³, Richardson-extrapolated over three points, (8a(t) − 6a(2t) + a(4t))/3, which
    removes the O(t) and O(t²) terms (about 1e-9 relative left: the O(t³) term and the rule's 1e-15 over t)."""
    def a(t):
        return (t - gap(t, q, sw2, sb2)) / (t * t)
    t = 5e-4
    return (8 * a(t) - 6 * a(2 * t) + a(4 * t)) / 3


# ---------------------------------------------------------------------------------------------------------------
# every pair of a dataset: the maps for unequal lengths, and the backward factor of two inputs (the dataset claim)
# ---------------------------------------------------------------------------------------------------------------

def _phi_and_derivative(act: str):
    """(φ, φ′) as numpy functions, written here from their definitions: tanh, and the smooth activations whose pair
    expectations the engine takes by other routes (GELU u·Φ(u), sigmoid 1/(1 + e^(−u)), erf, sin)."""
    from scipy.special import erf, expit, ndtr
    pdf = lambda u: np.exp(-u * u / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    table = {
        "tanh": (np.tanh, lambda u: 1.0 - np.tanh(u) ** 2),
        "gelu": (lambda u: u * ndtr(u), lambda u: ndtr(u) + u * pdf(u)),
        "sigmoid": (expit, lambda u: expit(u) * (1.0 - expit(u))),
        "erf": (erf, lambda u: 2 / math.sqrt(math.pi) * np.exp(-u * u)),
        "sin": (np.sin, np.cos),
    }
    return table[act]


def pair_moments(qa: float, qb: float, qab: float, act: str = "tanh") -> tuple[float, float]:
    """(E φ(u_a)φ(u_b), E φ′(u_a)φ′(u_b)) for (u_a, u_b) ~ N(0, [[q_a, q_ab], [q_ab, q_b]]) by the trapezoid rule of
    this module: u_a = √q_a z₁, u_b = √q_b (c z₁ + √(1 − c²) z₂), c = q_ab/√(q_a q_b) (§ Forward maps, with the two
    lengths of Poole et al. 2016, eq 5); a = b (q_ab = q_a = q_b) on the 1-d rule. φ = tanh by default, or one of
    the smooth activations of :func:`_phi_and_derivative` (each analytic in a strip at least as wide as tanh's, so
    the rule keeps its accuracy)."""
    phi, dphi = _phi_and_derivative(act)
    if qa == qb == qab:
        u = math.sqrt(qa) * Z
        return float(W @ (phi(u) ** 2)), float(W @ dphi(u) ** 2)
    c = qab / math.sqrt(qa * qb)
    ua = math.sqrt(qa) * Z1
    ub = math.sqrt(qb) * (c * Z1 + math.sqrt(max(1.0 - c * c, 0.0)) * Z2)
    return float(W12 @ (phi(ua) * phi(ub))), float(W12 @ (dphi(ua) * dphi(ub)))


def dataset_kernels(X: np.ndarray, depth: int, sw2: float, sb2: float, keep: float = 1.0, act: str = "tanh"):
    """The kernels of the inputs X (rows) after ``depth`` hidden layers of ``act`` (tanh by default), pair by pair
    with :func:`pair_moments`:
    K⁰ = σ_w² X Xᵀ/d + σ_b², K^l_ab = (σ_w²/ρ_ab) E φφ + σ_b² (§ Forward maps; ρ_ab = ρ on the diagonal, where an input
    meets its own dropout mask twice, else 1: § Dropout), and the gradients' inner products Θ⁰ = K⁰,
    Θ^l_ab = K^l_ab + (σ_w²/ρ_ab) E φ′φ′ Θ^{l−1}_ab (§ Backpropagation for two inputs: the factor is the χ_c of § Depth
    scales away from c*). Returns (K^depth, Θ^depth)."""
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    K = sw2 * X @ X.T / X.shape[1] + sb2
    T = K.copy()
    for _ in range(depth):
        K2, T2 = np.empty_like(K), np.empty_like(T)
        for a in range(n):
            for b in range(a, n):
                F, D = pair_moments(K[a, a], K[b, b], K[a, b] if a != b else K[a, a], act)
                s = sw2 / (keep if a == b else 1.0)
                K2[a, b] = K2[b, a] = s * F + sb2
                T2[a, b] = T2[b, a] = K2[a, b] + s * D * T[a, b]
        K, T = K2, T2
    return K, T
