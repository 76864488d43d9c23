"""Batch-norm kernel maps for any Σ, with BN's ε and affine γ, β, for one batch or several batches through the same
network (bn-mean-field; the parity the authors' GP4A/NTK4A code has). Notation: batch norm on a batch of size B,

    BN_{ε,γ,β}(h) = γ (h − h̄)/sqrt(Var h + ε) + β = γ √B Gh/sqrt(‖Gh‖² + Bε) + β,   G = I − 11ᵀ/B,

and φ̃ = φ ∘ BN. With several batches (sizes B₁, B₂, …: ``batches``), each is normalised with its own statistics and
h ~ N(0, Σ) is the joint pre-activation of all of them (Σ is (ΣB)×(ΣB)); the off-diagonal blocks are the
cross-batch kernels.

* :func:`batch_norm` — the map itself on torch tensors (:mod:`numerics.bn_layer`; the batch on the last axis).
* :func:`bn_forward_map_mc` — V(Σ) = E[φ̃(h)φ̃(h)ᵀ] by Monte Carlo, with standard errors.
* :func:`bn_backward_map_mc` — V_back(Σ){Δ} = E[JᵀΔJ], J = ∂φ̃/∂h (block-diagonal over batches), for any Σ and Δ
  (Δ is the gradient covariance at the layer's output: Π^{l−1} = V_back(Σ^l){Π^l}); J by autograd.
* :func:`bn_backward_operator_mc` — the matrix of Δ ↦ E[JᵀΔJ] on symmetric matrices (one batch), its eigenvalues,
  and λ_G = E‖GJ‖²_F/(B − 1) (the eigenvalue on G, the paper's λ_max at Σ*); away from Σ* as well.

Every estimate is a plain average over i.i.d. draws h = Lz (LLᵀ = Σ), so its standard error is the sample standard
deviation over √samples; the draws use :func:`theory.validate.seed`. Cost: O(samples·B²) per forward map,
O(samples·B³) per backward map (autograd Jacobians), O(samples·B⁴) for the operator — B ≤ 24 there.
The theory side (quadrature at BSB1 Σ) is :func:`theory.bn_meanfield.bsb1_fixed_point` and
:func:`theory.bn_meanfield.gradient_explosion_rate` with ``eps``, ``gamma``, ``beta``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from theory import activation as _activation
from theory import validate
from theory.errors import DeepinitError

from .bn_chain import DegenerateBatchError
from .bn_layer import _batches, _bn_params, batch_norm
from .bn_meanfield import _check_sigma

_MAX_OPERATOR_B = 24


def _draws(Sigma: np.ndarray, samples: int, seed: int, chunk: int):
    """Chunks of h ~ N(0, Σ) (float64 torch), from one seeded generator."""
    # the symmetric square root: unlike v·diag(√w) it does not depend on the basis LAPACK picks inside a degenerate
    # eigenspace (Σ* has a (B − 1)-fold one), which changed with the BLAS thread count and so changed the draws
    w, v = np.linalg.eigh(Sigma)
    L = torch.as_tensor((v * np.sqrt(np.clip(w, 0, None))) @ v.T, dtype=torch.float64)
    gen = torch.Generator()
    gen.manual_seed(validate.seed(seed))
    done = 0
    while done < samples:
        m = min(chunk, samples - done)
        yield torch.randn(m, Sigma.shape[0], generator=gen, dtype=torch.float64) @ L.T
        done += m


def _phi_tilde(act, eps, gamma, beta, sizes):
    phi = act.torch

    def f(h):
        return phi(batch_norm(h, eps, gamma, beta, sizes))
    return f


def _degenerate_check(h: torch.Tensor, sizes, eps: float):
    if eps > 0:
        return
    for p in torch.split(h, list(sizes), dim=-1):
        c = p - p.mean(dim=-1, keepdim=True)
        if bool(((c * c).sum(dim=-1) <= 0).any()):
            raise DegenerateBatchError("Gh = 0 for a draw: batch norm with ε = 0 is undefined there (GΣG singular)")


def _samples(samples) -> int:
    """2 ≤ samples ≤ 10⁹ (a standard error needs two draws)."""
    return validate.integer(samples, "samples", 2, 10 ** 9)


def bn_forward_map_mc(act, Sigma, samples: int = 200_000, seed: int = 0, *, eps: float = 0.0, gamma: float = 1.0,
                      beta: float = 0.0, batches=None, chunk: int = 50_000) -> tuple[np.ndarray, np.ndarray]:
    """V(Σ) = E[φ̃(h)φ̃(h)ᵀ], h ~ N(0, Σ), by Monte Carlo; returns (mean, standard error), both (ΣB)×(ΣB).
    With ``batches=(B₁, B₂)`` the off-diagonal block is the cross-batch kernel of two batches through one network.

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    Sigma : array_like
        Σ, B×B positive semi-definite.
    samples : int
        The number of draws.
    seed : int
        The random seed.
    eps, gamma, beta : float
        Batch norm's ε and affine γ, β (keyword only; the paper: 0, 1, 0).
    batches : sequence of int, optional
        Sizes adding up to B: each sub-batch is normalised with its own statistics (several batches through one
        network); ``None``: one batch.
    chunk : int
        Draws per chunk (memory).

    Returns
    -------
    tuple of numpy.ndarray
        ``(mean, standard error)``, both B×B.

    Examples
    --------
    >>> import numpy as np
    >>> from theory import bsb1_fixed_point
    >>> from numerics import bn_forward_map_mc
    >>> mean, se = bn_forward_map_mc("relu", np.eye(4), samples=20000)
    >>> fp = bsb1_fixed_point("relu", 4)              # one step from I lands on Σ* for ReLU (q* = 1/2)
    >>> bool(np.all(abs(mean - fp.sigma) < 5 * se + 1e-12))
    True
    """
    act = _activation(act)
    S = _check_sigma(Sigma)
    sizes = _batches(batches, S.shape[0])
    eps, gamma, beta = _bn_params(eps, gamma, beta)
    samples = _samples(samples)
    f = _phi_tilde(act, eps, gamma, beta, sizes)
    n = S.shape[0]
    s1 = torch.zeros(n, n, dtype=torch.float64)
    s2 = torch.zeros(n, n, dtype=torch.float64)
    for h in _draws(S, samples, seed, chunk):
        _degenerate_check(h, sizes, eps)
        y = f(h)
        if not bool(torch.isfinite(y).all()):
            raise DeepinitError(f"{act.name} returned non-finite values after batch norm")
        outer = y[:, :, None] * y[:, None, :]
        s1 += outer.sum(dim=0)
        s2 += (outer * outer).sum(dim=0)
    mean = (s1 / samples).numpy()
    var = np.clip((s2 / samples).numpy() - mean * mean, 0, None)
    return mean, np.sqrt(var * samples / (samples - 1) / samples)


def _jacobians(f, h: torch.Tensor) -> torch.Tensor:
    """J[s] = ∂f(h_s)/∂h_s (rows: outputs) for every draw, by autograd."""
    return torch.func.vmap(torch.func.jacrev(f))(h)


def bn_backward_map_mc(act, Sigma, Delta, samples: int = 100_000, seed: int = 0, *, eps: float = 0.0,
                       gamma: float = 1.0, beta: float = 0.0, batches=None,
                       chunk: int = 20_000) -> tuple[np.ndarray, np.ndarray]:
    """V_back(Σ){Δ} = E[JᵀΔJ] with J = ∂φ̃(h)/∂h at h ~ N(0, Σ): the gradient covariance one layer down when the
    gradient covariance at φ̃'s output is Δ. Returns (mean, standard error). With several ``batches`` J is
    block-diagonal and the off-diagonal blocks of the result are E[J₁ᵀΔ₁₂J₂] (the cross-batch backward kernel).

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    Sigma : array_like
        Σ, B×B positive semi-definite.
    Delta : array_like
        Δ, B×B.
    samples : int
        The number of draws.
    seed : int
        The random seed.
    eps, gamma, beta : float
        Batch norm's ε and affine γ, β (keyword only; the paper: 0, 1, 0).
    batches : sequence of int, optional
        Sizes adding up to B: each sub-batch is normalised with its own statistics (several batches through one
        network); ``None``: one batch.
    chunk : int
        Draws per chunk (memory).

    Returns
    -------
    tuple of numpy.ndarray
        ``(mean, standard error)``, both B×B.

    Examples
    --------
    >>> import numpy as np
    >>> from theory import backward_map_quadrature
    >>> from numerics import bn_backward_map_mc
    >>> mean, se = bn_backward_map_mc("tanh", np.eye(4), np.eye(4), samples=20000)
    >>> exact = backward_map_quadrature("tanh", np.eye(4), np.eye(4)).value   # the deterministic route
    >>> bool(np.all(abs(mean - exact) < 5 * se))
    True
    """
    act = _activation(act)
    S = _check_sigma(Sigma)
    n = S.shape[0]
    D = np.asarray(Delta, dtype=float)
    if D.shape != (n, n) or not np.all(np.isfinite(D)):
        raise DeepinitError(f"Δ must be a finite {n}×{n} matrix (the size of Σ)")
    sizes = _batches(batches, n)
    eps, gamma, beta = _bn_params(eps, gamma, beta)
    samples = _samples(samples)
    f = _phi_tilde(act, eps, gamma, beta, sizes)
    Dt = torch.as_tensor(D, dtype=torch.float64)
    s1 = torch.zeros(n, n, dtype=torch.float64)
    s2 = torch.zeros(n, n, dtype=torch.float64)
    for h in _draws(S, samples, seed, chunk):
        _degenerate_check(h, sizes, eps)
        J = _jacobians(f, h)
        M = J.transpose(1, 2) @ Dt @ J
        if not bool(torch.isfinite(M).all()):
            raise DeepinitError(f"{act.name}: the Jacobian of φ∘BN is not finite on a draw")
        s1 += M.sum(dim=0)
        s2 += (M * M).sum(dim=0)
    mean = (s1 / samples).numpy()
    var = np.clip((s2 / samples).numpy() - mean * mean, 0, None)
    return mean, np.sqrt(var / (samples - 1))


@dataclass
class BackwardOperator:
    """Δ ↦ E[JᵀΔJ] on B×B symmetric matrices at one Σ, estimated from ``samples`` draws (B = ΣB_k with several
    ``batches``: J block-diagonal, and the operator couples the batches' blocks).

    ``matrix``: in the basis of :func:`numerics.bn_meanfield.sym_basis` (coordinates: upper triangle, row-major);
    ``eigenvalues``: descending by real part; ``top_eigenvector``: a B×B matrix (unit Frobenius norm);
    ``lambda_G``, ``lambda_G_se``: E‖GJ‖²_F/(B − k) (G the per-batch centring, k batches) and its standard error —
    the eigenvalue on G for one batch. :meth:`apply` maps Δ (any symmetric B×B matrices, batched) to E[JᵀΔJ].

    Attributes
    ----------
    matrix : numpy.ndarray
        The operator, B(B + 1)/2 × B(B + 1)/2.
    eigenvalues : numpy.ndarray
        Its eigenvalues, descending by real part (``top_eigenvalue``: the first one's real part).
    top_eigenvector : numpy.ndarray
        B×B, unit Frobenius norm.
    lambda_G, lambda_G_se : float
        E‖GJ‖²_F/(B − k) and its standard error.
    samples : int
        The number of draws.

    Examples
    --------
    >>> import numpy as np
    >>> from numerics import bn_backward_operator_mc
    >>> op = bn_backward_operator_mc("tanh", np.eye(4), samples=20000)
    >>> op.matrix.shape, op.top_eigenvector.shape, op.samples
    ((10, 10), (4, 4), 20000)
    """

    matrix: np.ndarray
    eigenvalues: np.ndarray
    top_eigenvector: np.ndarray
    lambda_G: float
    lambda_G_se: float
    samples: int

    @property
    def top_eigenvalue(self) -> float:
        return float(self.eigenvalues[0].real)

    def apply(self, Delta) -> np.ndarray:
        """E[JᵀΔJ] for symmetric Δ: one B×B matrix or a stack [..., B, B] (the same draws for every Δ, so the map
        is exactly linear)."""
        D = np.asarray(Delta, dtype=float)
        B = int(round((math.sqrt(8 * self.matrix.shape[0] + 1) - 1) / 2))
        if D.shape[-2:] != (B, B) or not np.all(np.isfinite(D)) or not np.allclose(D, np.swapaxes(D, -1, -2)):
            raise DeepinitError(f"Δ must be finite symmetric {B}×{B} matrices")
        iu = np.triu_indices(B)
        coords = D[..., iu[0], iu[1]] @ self.matrix.T
        out = np.zeros(D.shape)
        out[..., iu[0], iu[1]] = coords
        out[..., iu[1], iu[0]] = coords
        return out


def bn_backward_operator_mc(act, Sigma, samples: int = 100_000, seed: int = 0, *, eps: float = 0.0,
                            gamma: float = 1.0, beta: float = 0.0, batches=None,
                            chunk: int = 20_000) -> BackwardOperator:
    """The backward map at Σ as a matrix (Σ of size B ≤ 24, one batch or several ``batches`` through one network),
    its spectrum and λ_G with a standard error. At the BSB1 fixed point its top eigenvalue is the gradient-explosion
    rate λ_max (Theorem 7); elsewhere it is the local rate along the trajectory.

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    Sigma : array_like
        Σ, B×B positive semi-definite, B ≤ 24.
    samples : int
        The number of draws.
    seed : int
        The random seed.
    eps, gamma, beta : float
        Batch norm's ε and affine γ, β (keyword only; the paper: 0, 1, 0).
    batches : sequence of int, optional
        Sizes adding up to B: each sub-batch is normalised with its own statistics (several batches through one
        network); ``None``: one batch.
    chunk : int
        Draws per chunk (memory).

    Returns
    -------
    BackwardOperator
        The matrix, its spectrum, the top eigenvector and λ_G.

    Examples
    --------
    >>> import numpy as np
    >>> from theory import backward_operator_quadrature
    >>> from numerics import bn_backward_operator_mc
    >>> op = bn_backward_operator_mc("tanh", np.eye(4), samples=20000)
    >>> exact = backward_operator_quadrature("tanh", np.eye(4)).top_eigenvalue    # 1.282751…
    >>> bool(abs(op.top_eigenvalue - exact) < 0.05)
    True
    """
    act = _activation(act)
    S = _check_sigma(Sigma)
    B = S.shape[0]
    sizes = _batches(batches, B)
    if B > _MAX_OPERATOR_B:
        raise DeepinitError(f"batch size {B}: the operator has (B(B+1)/2)² entries and costs samples·B⁴; use "
                            f"bn_backward_map_mc for B > {_MAX_OPERATOR_B}")
    eps, gamma, beta = _bn_params(eps, gamma, beta)
    samples = _samples(samples)
    f = _phi_tilde(act, eps, gamma, beta, sizes)
    G = torch.block_diag(*[torch.eye(b, dtype=torch.float64) - 1.0 / b for b in sizes])
    K = torch.zeros(B, B, B, B, dtype=torch.float64)
    g1 = g2 = 0.0
    for h in _draws(S, samples, seed, chunk):
        _degenerate_check(h, sizes, eps)
        J = _jacobians(f, h)
        K += torch.einsum("sik,sjl->klij", J, J)  # (JᵀΔJ)_kl = Σ_ij J_ik Δ_ij J_jl
        gj = ((G @ J) ** 2).sum(dim=(1, 2)) / (B - len(sizes))
        g1 += float(gj.sum())
        g2 += float((gj * gj).sum())
    K = (K / samples).numpy()
    if not np.all(np.isfinite(K)):
        raise DeepinitError(f"{act.name}: the backward operator is not finite")
    iu = np.triu_indices(B)
    cols = []
    for a, b in zip(*iu):  # the image of each symmetric basis matrix, in coordinates
        E = np.zeros((B, B))
        E[a, b] = E[b, a] = 1.0
        cols.append(np.einsum("klij,ij->kl", K, E)[iu])
    M = np.array(cols).T
    w, V = np.linalg.eig(M)
    order = np.argsort(-w.real)
    w, V = w[order], V[:, order]
    top = np.zeros((B, B))
    top[iu] = V[:, 0].real
    top = top + top.T - np.diag(np.diag(top))
    top /= np.linalg.norm(top)
    lam = g1 / samples
    se = math.sqrt(max(g2 / samples - lam * lam, 0.0) / (samples - 1))
    return BackwardOperator(M, w, top, lam, se, samples)
