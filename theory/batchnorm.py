"""The stable mean-field Gram matrix of a batch-normalised MLP (bn-finite-width eq 16; bn-mean-field BSB1).

Batch norm φ(x) = (x − x̄)/sqrt(Var x) = √n M x/‖M x‖ (M = I − 11ᵀ/n) on each row of h. For a BSB1
covariance G = b((1 − c)I + c 11ᵀ), M w with w ~ N(0, G) is isotropic in 1^⊥, so φ(w) = √n u with u
uniform on the unit sphere of the (n − 1)-dimensional subspace 1^⊥ — whatever b and c are. The
mean-field map (eq 4) therefore sends every BSB1 matrix to the same matrix

    G* = E[σ(√n u) σ(√n u)ᵀ] = b*((1 − c*) I + c* 11ᵀ)      (eq 16),

which is its fixed point. Its two constants are low-dimensional integrals:

* b* = E σ(x_1)²: x_1 = sqrt(n−1)·s, s a coordinate of a uniform point of S^{n−2} ⊂ ℝ^{n−1},
  with density ∝ (1 − s²)^{(n−4)/2} on [−1, 1];
* b* c* = E σ(x_1) σ(x_2): (x_1, x_2) = sqrt(n−1)·(a, cos θ a + sin θ b) with cos θ = −1/(n−1) and (a, b)
  the projection of that uniform point on a plane, density ∝ (1 − a² − b²)^{(n−5)/2} on the unit disk.

Both are computed by the Gauss–Jacobi core of :mod:`theory.bn_meanfield` (:func:`bsb1_constants`) and,
independently, by Monte Carlo over uniform points of the sphere (:func:`bsb1_constants_mc`).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from . import validate
from .activations import activation
from .bn_meanfield import BSB1FixedPoint, bsb1_fixed_point
from .errors import DeepinitError


# One type for the one fixed point: bn-mean-field's Σ* = q*((1 − c*)I + c*11ᵀ) and this paper's G* (b* = q*).
BSB1 = BSB1FixedPoint


@functools.lru_cache(maxsize=1024)
def bsb1_constants(act, n: int) -> BSB1:
    """(b*, c*) of the BSB1 fixed point for batch size ``n`` ≥ 4 (eq 16).

    The same fixed point as bn-mean-field's Σ* = q*((1 − c*)I + c*11ᵀ): b* = q*, computed by the one quadrature
    core :func:`theory.bn_meanfield.bsb1_fixed_point` (Gauss–Jacobi rules on the 1- and 2-coordinate sphere
    marginals, split at the kinks, converged to ≈1e-13 and checked at two rule sizes).

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    n : int
        The batch size, n ≥ 4.

    Returns
    -------
    BSB1
        The fixed point (the type of :func:`theory.bsb1_fixed_point`, with the bn-finite-width names ``b``, ``n``,
        ``gram`` besides ``q``, ``batch_size``, ``sigma``).

    Examples
    --------
    >>> from theory import bsb1_constants
    >>> G = bsb1_constants("relu", 8)
    >>> round(G.b, 12), round(G.c, 12)
    (0.5, 0.250134932861)
    """
    act = activation(act)
    if n < 4:
        raise DeepinitError(f"batch size n = {n}: the BSB1 integrals need n ≥ 4 (the 2-D marginal of the "
                            "sphere in 1^⊥ is degenerate for n ≤ 3)")
    return bsb1_fixed_point(act, n)


def bsb1_constants_mc(act, n: int, samples: int, seed: int = 0):
    """(b*, c*) and their standard errors by Monte Carlo: u = Mz/‖Mz‖, z ~ N(0, I_n).

    The independent route to :func:`bsb1_constants`.

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    n : int
        The batch size, n ≥ 4.
    samples : int
        Monte Carlo samples.
    seed : int
        The random seed.

    Returns
    -------
    tuple of float
        ``(b*, c*, standard error of b*, standard error of c*)``.

    Examples
    --------
    >>> from theory import bsb1_constants_mc
    >>> b, c, se_b, se_c = bsb1_constants_mc("relu", 8, 20000, seed=0)
    >>> round(b, 2), round(c, 2)                # bsb1_constants: 0.5, 0.250135
    (0.5, 0.25)
    """
    act = activation(act)
    rng = np.random.default_rng(validate.seed(seed))
    z = rng.standard_normal((samples, n))
    z -= z.mean(axis=1, keepdims=True)
    x = math.sqrt(n) * z / np.linalg.norm(z, axis=1, keepdims=True)
    s = act.numpy(x)
    diag = np.mean(s * s, axis=1)                         # average over the n diagonal entries
    tot = np.sum(s, axis=1) ** 2 - np.sum(s * s, axis=1)  # Σ_{i≠j} σ_i σ_j
    off = tot / (n * (n - 1))
    b, b_se = float(diag.mean()), float(diag.std() / math.sqrt(samples))
    bc, bc_se = float(off.mean()), float(off.std() / math.sqrt(samples))
    return b, bc / b, b_se, bc_se


def distortion_lower_bound(act, n: int, samples: int = 20000, seed: int = 0) -> float:
    """A lower bound on γ = sup_{‖x‖=√n} ‖σ(x)‖/‖x‖ (eq 10) from sampled and coordinate points."""
    act = activation(act)
    rng = np.random.default_rng(validate.seed(seed))
    z = rng.standard_normal((samples, n))
    x = math.sqrt(n) * z / np.linalg.norm(z, axis=1, keepdims=True)
    e = np.zeros((2, n))
    e[0, 0], e[1, 0] = math.sqrt(n), -math.sqrt(n)
    x = np.vstack([x, e])
    return float(np.max(np.linalg.norm(act.numpy(x), axis=1)) / math.sqrt(n))


def marchenko_pastur_cdf(x, ratio: float, scale: float = 1.0) -> np.ndarray:
    """CDF of the Marchenko–Pastur law with aspect ratio y = n/d ≤ 1 and variance ``scale`` (support
    [scale(1 − √y)², scale(1 + √y)²]); by Gauss–Legendre quadrature of the density
    sqrt((b − t)(t − a))/(2π y t).

    Parameters
    ----------
    x : float or array_like
        Where to evaluate the CDF.
    ratio : float
        y = n/d in (0, 1].
    scale : float
        The variance of the entries.

    Returns
    -------
    numpy.ndarray
        The CDF at ``x`` (the shape of ``x``).

    Examples
    --------
    >>> import numpy as np
    >>> from theory import marchenko_pastur_cdf
    >>> [round(float(v), 8) for v in marchenko_pastur_cdf(np.array([0.25, 1.0, 2.25]), 0.25)]
    [0.0, 0.55339008, 1.0]
    """
    if not 0 < ratio <= 1:
        raise DeepinitError("the Marchenko–Pastur ratio n/d must lie in (0, 1]")
    a, b = (1 - math.sqrt(ratio)) ** 2, (1 + math.sqrt(ratio)) ** 2
    x = np.asarray(x, dtype=float) / scale
    # substitute t = a + (b − a) sin²(θ/2) to remove the square-root endpoints
    gx, gw = np.polynomial.legendre.leggauss(200)

    def cdf1(v):
        if v <= a:
            return 0.0
        if v >= b:
            return 1.0
        th_max = 2 * math.asin(math.sqrt((v - a) / (b - a)))
        th = th_max / 2 * (gx + 1)
        t = a + (b - a) * np.sin(th / 2) ** 2
        dt = (b - a) * np.sin(th / 2) * np.cos(th / 2)
        dens = np.sqrt(np.clip((b - t) * (t - a), 0, None)) / (2 * math.pi * ratio * t)
        return float(np.dot(gw, dens * dt) * th_max / 2)
    return np.vectorize(cdf1)(x)


@dataclass(frozen=True)
class Distortion:
    """γ = sup_{‖x‖=√n} ‖σ(x)‖/‖x‖ (bn-finite-width eq 10) enclosed in [lower, upper].

    Attributes
    ----------
    activation : str
        The activation's name.
    n : int
        The dimension n.
    lower, upper : float
        The certified enclosure lower ≤ γ ≤ upper; ``value`` is its midpoint.

    Examples
    --------
    >>> from theory import distortion
    >>> d = distortion("relu", 4)
    >>> d.lower, d.upper - d.lower < 1e-3
    (1.0, True)
    """

    activation: str
    n: int
    lower: float
    upper: float

    @property
    def value(self) -> float:
        return 0.5 * (self.lower + self.upper)


def distortion(act, n: int, grid: int = 20001) -> Distortion:
    """Certified enclosure of γ (eq 10), not a random search.

    With s_i = x_i² and f(s) = max(σ(√s)², σ(−√s)²) (each coordinate may take either sign),
    n γ² = max {Σ f(s_i) : Σ s_i = n, s_i ≥ 0}. Upper bound: for any λ, Σ f(s_i) ≤ n(max_s (f(s) − λs) + λ)
    (weak duality), with the inner max bounded on a grid in x = √s plus a Lipschitz allowance. Lower bound:
    feasible points (all s_i = 1, and two-level allocations from the concave hull of f).

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    n : int
        The dimension n of eq (10).
    grid : int
        Points of the grid in x = √s (more: a tighter upper bound).

    Returns
    -------
    Distortion
        ``lower`` ≤ γ ≤ ``upper``.

    Examples
    --------
    >>> from theory import distortion
    >>> d = distortion("tanh", 8)
    >>> d.lower <= d.upper < d.lower + 1e-3
    True
    >>> round(d.lower, 10)                    # tanh(1): every |x_i| = 1
    0.761594156
    """
    act = activation(act)
    if n < 1:
        raise DeepinitError("n must be positive")
    R = math.sqrt(n)
    xs = np.linspace(0.0, R, grid)
    h = xs[1] - xs[0]
    fx = np.maximum(act.numpy(xs) ** 2, act.numpy(-xs) ** 2)
    if not np.all(np.isfinite(fx)):
        raise DeepinitError(f"σ is not finite on [−√n, √n] for {act.name!r}")
    s = xs ** 2
    # Lipschitz constant of x ↦ f(x²) − λx² on [0, R]: |2σσ'| + 2λR, σ' by finite differences on a finer grid
    fine = np.linspace(-R, R, 4 * grid)
    sf = act.numpy(fine)
    dsf = np.abs(np.gradient(sf, fine))
    lip_f = 2 * float(np.max(np.abs(sf) * dsf)) * 1.01 + 1e-12

    def dual(lam):
        return float(np.max(fx - lam * s)) + lam + (lip_f + 2 * abs(lam) * R) * h / 2

    lams = np.linspace(0.0, max(2.0, 4 * float(np.max(fx))), 401)
    vals = [dual(l) for l in lams]
    i = int(np.argmin(vals))
    lo_l, hi_l = lams[max(i - 1, 0)], lams[min(i + 1, len(lams) - 1)]
    for _ in range(60):  # golden-section refinement of the convex dual
        a = lo_l + 0.382 * (hi_l - lo_l)
        b = lo_l + 0.618 * (hi_l - lo_l)
        if dual(a) < dual(b):
            hi_l = b
        else:
            lo_l = a
    upper = min(vals[i], dual(0.5 * (lo_l + hi_l)))
    # lower bounds (feasible points, f evaluated exactly): equal allocation; and for each s_b on the grid,
    # k coordinates at s_b and the other n − k equal
    def f_exact(v):
        r = np.sqrt(np.maximum(v, 0.0))
        return np.maximum(act.numpy(r) ** 2, act.numpy(-r) ** 2)
    lower = float(f_exact(np.array([1.0]))[0])
    for k in range(1, n):
        mask = (s > 1.0) & (k * s <= n)
        if mask.any():
            sb = s[mask]
            sa = (n - k * sb) / (n - k)
            val = (k * fx[mask] + (n - k) * f_exact(sa)) / n
            lower = max(lower, float(np.max(val)))
    return Distortion(act.name, n, math.sqrt(max(lower, 0.0)), math.sqrt(max(upper, lower)))
