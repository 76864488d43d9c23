"""Finite-width input–output Jacobians: the independent route for :func:`theory.jacobian_spectrum_moments`.

``seeds`` networks of width N and depth L (the setting of :mod:`theory.jacobian`: Gaussian weights N(0, σ_w²/N) or
σ_w × a Haar orthogonal matrix, biases N(0, σ_b²)) are drawn; one input x⁰ per network is chosen so that the first
layer's pre-activations have variance ≈ q¹ (x⁰ = √((q¹ − σ_b²)/σ_w²) · g with g ~ N(0, I_N), which needs
q¹ ≥ σ_b²). J = D^L W^L ⋯ D¹ W¹ is accumulated layer by layer in float64, and the network's spectral moments are
m₁ = (1/N) tr JJᵀ and m₂ = (1/N) tr (JJᵀ)² (so σ² = m₂ − m₁²). The result is the mean of each over the networks with
its standard error.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from theory import activation as _activation
from theory import validate
from theory.errors import DeepinitError

from .bn_meanfield import derived_seed
from .threads import intra_op_threads

__all__ = ["JacobianMoments", "jacobian_moments_mc", "jacobian_eigenvalues_mc"]


@dataclass(frozen=True)
class JacobianMoments:
    """Means over networks of m₁, σ² = m₂ − m₁² of JJᵀ's eigenvalues, with standard errors.

    Attributes
    ----------
    mean, mean_se : float
        m₁ and its standard error.
    variance, variance_se : float
        σ² (per network, then averaged) and its standard error.
    width, depth, seeds : int
        What ran.

    Examples
    --------
    >>> r = jacobian_moments_mc("identity", 1.0, 0.0, depth=2, width=64, seeds=3, weights="orthogonal")
    >>> round(r.mean, 12), abs(round(r.variance, 12))            # a product of orthogonal matrices
    (1.0, 0.0)
    """

    mean: float
    mean_se: float
    variance: float
    variance_se: float
    width: int
    depth: int
    seeds: int


def _orthogonal(n: int, g: torch.Generator) -> torch.Tensor:
    A = torch.randn(n, n, generator=g, dtype=torch.float64)
    Q, R = torch.linalg.qr(A)
    return Q * torch.sign(torch.diagonal(R))          # Haar: fix the signs of R's diagonal (Mezzadri 2007)


def jacobian_moments_mc(act, sigma_w2: float, sigma_b2: float, depth: int, *, width: int = 512, seeds: int = 8,
                        q1: float = 1.0, weights: str = "gaussian", seed: int = 0) -> JacobianMoments:
    """Spectral moments of JJᵀ of ``seeds`` finite networks (module docstring).

    Parameters
    ----------
    act : Activation or str
        φ (a registry name, a formula or an Activation).
    sigma_w2, sigma_b2 : float
        σ_w² > 0, σ_b² ≥ 0.
    depth : int
        L ≥ 1.
    width : int, default 512
        N.
    seeds : int, default 8
        Networks drawn (≥ 2).
    q1 : float
        Target variance of the first layer's pre-activations (≥ σ_b²).
    weights : str
        "gaussian" or "orthogonal".
    seed : int
        Seed (network k uses an independent stream derived from it).

    Returns
    -------
    JacobianMoments
        The networks' mean m₁ and σ² with standard errors.

    Examples
    --------
    >>> r = jacobian_moments_mc("relu", 2.0, 0.0, depth=3, width=128, seeds=4, weights="gaussian")
    >>> 0.5 < r.mean < 1.5, r.seeds
    (True, 4)
    """
    m1s, vs = [], []
    for J in _jacobians(act, sigma_w2, sigma_b2, depth, width, seeds, q1, weights, seed):
        JJ = J @ J.T
        m1 = float(torch.trace(JJ)) / width
        m2 = float(torch.sum(JJ * JJ)) / width
        m1s.append(m1)
        vs.append(m2 - m1 * m1)
    m1s, vs = np.array(m1s), np.array(vs)
    se = lambda a: float(a.std(ddof=1) / np.sqrt(len(a)))  # noqa: E731
    return JacobianMoments(float(m1s.mean()), se(m1s), float(vs.mean()), se(vs), width, depth, seeds)


def jacobian_eigenvalues_mc(act, sigma_w2: float, sigma_b2: float, depth: int, *, width: int = 512, seeds: int = 8,
                            q1: float = 1.0, weights: str = "gaussian", seed: int = 0) -> np.ndarray:
    """The eigenvalues of JJᵀ (the squared singular values of J) of ``seeds`` finite networks: the independent route
    for :func:`theory.jacobian_spectral_density` (same setting as :func:`jacobian_moments_mc`).

    Parameters
    ----------
    act : Activation or str
        φ (a registry name, a formula or an Activation).
    sigma_w2, sigma_b2 : float
        σ_w² > 0, σ_b² ≥ 0.
    depth : int
        L ≥ 1.
    width : int, default 512
        N.
    seeds : int, default 8
        Networks drawn (≥ 2).
    q1 : float
        Target variance of the first layer's pre-activations (≥ σ_b²).
    weights : str
        "gaussian" or "orthogonal".
    seed : int
        Seed (network k uses an independent stream derived from it).

    Returns
    -------
    numpy.ndarray
        Shape (seeds, width), each row the singular values of one network's J squared, in increasing order
        (float64 SVD, so eigenvalues of a rank-deficient J are at rounding level, not negative).

    Examples
    --------
    >>> ev = jacobian_eigenvalues_mc("identity", 1.0, 0.0, depth=3, width=64, seeds=2, weights="orthogonal")
    >>> ev.shape, bool(np.allclose(ev, 1.0))                       # a product of orthogonal matrices
    ((2, 64), True)
    """
    out = []
    for J in _jacobians(act, sigma_w2, sigma_b2, depth, width, seeds, q1, weights, seed):
        out.append(np.sort(torch.linalg.svdvals(J).numpy() ** 2))
    return np.array(out)


def _jacobians(act, sigma_w2, sigma_b2, depth, width, seeds, q1, weights, seed):
    """J = D^L W^L ⋯ D¹ W¹ of each network in turn (module docstring), after validating the parameters."""
    act = _activation(act)
    depth = validate.integer(depth, "depth", 1, 10_000)
    width = validate.integer(width, "width", 2, 1 << 14)
    seeds = validate.integer(seeds, "seeds", 2, 100_000)
    seed = validate.seed(seed)
    sw2, sb2, q1 = float(sigma_w2), float(sigma_b2), float(q1)
    if weights not in ("gaussian", "orthogonal"):
        raise DeepinitError(f"weights must be 'gaussian' or 'orthogonal', not {weights!r}")
    if not (sw2 > 0 and sb2 >= 0 and q1 >= sb2):
        raise DeepinitError("need σ_w² > 0, σ_b² ≥ 0 and q1 ≥ σ_b²")
    validate.memory(8.0 * 4 * width * width, "the Jacobian")
    dphi = act.derivative(1).torch
    phi = act.torch
    sw, sb = sw2 ** 0.5, sb2 ** 0.5
    with intra_op_threads(width * width):
        for s in range(seeds):
            g = torch.Generator().manual_seed(derived_seed(seed, s))
            x = ((q1 - sb2) / sw2) ** 0.5 * torch.randn(width, generator=g, dtype=torch.float64)
            J = torch.eye(width, dtype=torch.float64)
            for _ in range(depth):
                if weights == "gaussian":
                    W = sw * torch.randn(width, width, generator=g, dtype=torch.float64) / width ** 0.5
                else:
                    W = sw * _orthogonal(width, g)
                h = W @ x + sb * torch.randn(width, generator=g, dtype=torch.float64)
                J = dphi(h)[:, None] * (W @ J)
                x = phi(h)
            yield J
