"""Small batched linear algebra shared by the exact-in-law simulators.

An exact-in-law layer draws Z ~ N(0, 1)^{d×n} and returns Z·R with RᵀR = G (the layer's Gram matrix): any such
factor gives the same law, since Z Q has the law of Z for orthogonal Q. :func:`gram_factor` takes the cheapest one,
the Cholesky factor (one LAPACK call for the whole batch, no eigendecomposition), and falls back to the symmetric
square root :func:`psd_sqrt` (eigh, robust to singular G) only for the matrices of the batch where Cholesky fails.
"""
from __future__ import annotations

import torch


def psd_sqrt(G: torch.Tensor) -> torch.Tensor:
    """Symmetric square root of a batch of PSD matrices (robust to singular G).

    Parameters
    ----------
    G : torch.Tensor
        Symmetric positive semi-definite matrices, ``[..., n, n]`` (negative eigenvalues from rounding count as 0).

    Returns
    -------
    torch.Tensor
        R = Rᵀ with R R = G, the same shape.

    Examples
    --------
    >>> import torch
    >>> from numerics import psd_sqrt
    >>> psd_sqrt(torch.tensor([[4.0, 0.0], [0.0, 9.0]], dtype=torch.float64))
    tensor([[2., 0.],
            [0., 3.]], dtype=torch.float64)
    """
    G = 0.5 * (G + G.transpose(-1, -2))
    w, v = torch.linalg.eigh(G)
    return (v * torch.sqrt(torch.clamp(w, min=0))[..., None, :]) @ v.transpose(-1, -2)


def gram_factor(G: torch.Tensor) -> tuple[torch.Tensor, bool]:
    """``(R, ok)`` with RᵀR = G for a batch of PSD matrices [..., n, n]: R = Lᵀ from Cholesky, or the symmetric root
    where Cholesky fails (singular or indefinite by rounding). ``ok`` is False when some G is not finite (R then
    holds NaN there): the caller decides what a non-finite Gram matrix means.

    One host synchronisation (the Cholesky status); callers on a GPU may batch several layers before reading it."""
    L, info = torch.linalg.cholesky_ex(G)
    if not bool(info.any()):
        return L.transpose(-1, -2), True
    finite = torch.isfinite(G).flatten(-2).all(-1)
    failed = (info != 0) & finite
    R = L.transpose(-1, -2)
    if bool(failed.any()):
        R = R.clone()
        R[failed] = psd_sqrt(G[failed])
    return R, bool(finite.all())
