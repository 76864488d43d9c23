"""Batch norm on torch tensors, the one implementation every simulator uses (bn-mean-field; bn-finite-width's chain
has its own exact-in-law layer). Notation: a batch of size B along one axis,

    BN_{ε,γ,β}(h) = γ x̂ + β,   x̂ = (h − h̄)/s,   s = sqrt(Var h + ε)   (biased variance over the batch),

with several batches (sizes B₁, B₂, …: ``batches``) each normalised with its own statistics.

* :func:`batch_norm` — the map, on any axis.
* :func:`batch_norm_and_variance` — the map and Var h (whose zeros make BN with ε = 0 undefined).

Both are one autograd node whose backward is the closed form

    ∂L/∂h = (γ/s)(ḡ − mean ḡ − x̂ mean(ḡ x̂)),   ḡ = ∂L/∂y   (means over the batch),

instead of the dozen elementwise nodes autograd records for the formula (the finite-width gradient simulations of
:func:`numerics.simulate_bn_gradients` spend a quarter less time; ``tests/test_bn_mean_field.py`` checks the
backward against finite differences).
"""
from __future__ import annotations

import torch

from theory import validate
from theory.errors import DeepinitError


def _bn_params(eps, gamma, beta) -> tuple[float, float, float]:
    """ε in [0, 1e6], γ and β finite (Monte Carlo takes any finite γ, β): theory.validate.bn_parameters."""
    return validate.bn_parameters(eps, gamma, beta, bounded=False)


def _batches(batches, total: int) -> tuple[int, ...]:
    """The sizes of the batches along the batch axis of length ``total`` (one batch when ``batches`` is None)."""
    if batches is None:
        return (total,)
    try:
        sizes = tuple(int(b) for b in batches)
    except (TypeError, ValueError):
        raise DeepinitError(f"batches must be a sequence of batch sizes, got {batches!r}") from None
    if any(b < 2 for b in sizes) or sum(sizes) != total:
        raise DeepinitError(f"batches {sizes}: each batch needs ≥ 2 members and they must add up to Σ's size {total}")
    return sizes


def _join(ts: list, dim: int) -> torch.Tensor:
    return torch.cat(ts, dim=dim) if len(ts) > 1 else ts[0]


class _BatchNorm(torch.autograd.Function):
    """BN over ``dim``, per batch of ``sizes`` along it; returns (y, Var h), Var h without a gradient. Written in the
    form torch.func transforms accept (``setup_context``, a generated vmap rule): the backward maps of
    :mod:`numerics.bn_kernels` take Jacobians with ``torch.func.jacrev`` under ``vmap``."""

    generate_vmap_rule = True

    @staticmethod
    def forward(h, eps: float, gamma: float, beta: float, sizes: tuple, dim: int):
        parts = torch.split(h, list(sizes), dim=dim) if len(sizes) > 1 else (h,)
        xhats, rstds, variances = [], [], []
        for part in parts:
            c = part - part.mean(dim=dim, keepdim=True)
            var = (c * c).mean(dim=dim, keepdim=True)
            rstd = torch.rsqrt(var + eps)
            xhats.append(c * rstd)
            rstds.append(rstd)
            variances.append(var)
        xhat, rstd, var = _join(xhats, dim), _join(rstds, dim), _join(variances, dim)
        return (xhat if gamma == 1 and beta == 0 else gamma * xhat + beta), var, rstd

    @staticmethod
    def setup_context(ctx, inputs, output):
        _, _, gamma, beta, sizes, dim = inputs
        y, var, rstd = output
        ctx.save_for_backward(y, rstd)
        ctx.gamma, ctx.beta, ctx.sizes, ctx.dim = gamma, beta, sizes, dim
        ctx.mark_non_differentiable(var, rstd)

    @staticmethod
    def backward(ctx, g, _g_var, _g_rstd):
        y, rstd = ctx.saved_tensors
        sizes, dim = list(ctx.sizes), ctx.dim
        if ctx.gamma == 0:                              # y = β: no dependence on h
            return torch.zeros_like(g), None, None, None, None, None
        xhat = y if ctx.gamma == 1 and ctx.beta == 0 else (y - ctx.beta) / ctx.gamma
        if ctx.gamma != 1:
            g = g * ctx.gamma
        parts = zip(torch.split(g, sizes, dim=dim), torch.split(xhat, sizes, dim=dim), torch.split(rstd, 1, dim=dim))
        return _join([r * (gp - gp.mean(dim=dim, keepdim=True) - xp * (gp * xp).mean(dim=dim, keepdim=True))
                      for gp, xp, r in parts], dim), None, None, None, None, None


def batch_norm_and_variance(h: torch.Tensor, eps: float = 0.0, gamma: float = 1.0, beta: float = 0.0,
                            batches: tuple[int, ...] | None = None, dim: int = -1) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`batch_norm` and the biased variance Var h of each batch (whose zeros make BN with ε = 0 undefined).

    Parameters
    ----------
    h : torch.Tensor
        Pre-activations, the batch on axis ``dim``.
    eps, gamma, beta : float
        Batch norm's ε and affine γ, β (the paper: 0, 1, 0).
    batches : tuple of int, optional
        Sizes adding up to the batch axis' length, each normalised with its own statistics.
    dim : int
        The batch axis.

    Returns
    -------
    tuple of torch.Tensor
        BN(h), the shape of ``h``; and Var h, the shape of ``h`` with axis ``dim`` replaced by one entry per batch
        (no gradient flows through it).

    Examples
    --------
    >>> import torch
    >>> from numerics.bn_layer import batch_norm_and_variance
    >>> y, var = batch_norm_and_variance(torch.tensor([1.0, 3.0, 0.0, 4.0], dtype=torch.float64), batches=(2, 2))
    >>> y, var
    (tensor([-1.,  1., -1.,  1.], dtype=torch.float64), tensor([1., 4.], dtype=torch.float64))
    """
    dim = dim % h.dim()
    y, var, _ = _BatchNorm.apply(h, eps, gamma, beta, _batches(batches, h.shape[dim]), dim)
    return y, var


def batch_norm(h: torch.Tensor, eps: float = 0.0, gamma: float = 1.0, beta: float = 0.0,
               batches: tuple[int, ...] | None = None, dim: int = -1) -> torch.Tensor:
    """γ (h − h̄)/sqrt(Var h + ε) + β over the axis ``dim`` (default the last; biased variance), per batch when
    ``batches`` splits it.

    Parameters
    ----------
    h : torch.Tensor
        Pre-activations, the batch on axis ``dim``.
    eps, gamma, beta : float
        Batch norm's ε and affine γ, β (the paper: 0, 1, 0).
    batches : tuple of int, optional
        Sizes adding up to the batch axis' length, each normalised with its own statistics.
    dim : int
        The batch axis.

    Returns
    -------
    torch.Tensor
        BN(h), the shape of ``h``.

    Examples
    --------
    >>> import torch
    >>> from numerics import batch_norm
    >>> batch_norm(torch.tensor([[1.0, 2.0, 3.0, 6.0]], dtype=torch.float64))
    tensor([[-1.0690, -0.5345,  0.0000,  1.6036]], dtype=torch.float64)
    >>> batch_norm(torch.tensor([1.0, 3.0, 0.0, 4.0], dtype=torch.float64), batches=(2, 2))
    tensor([-1.,  1., -1.,  1.], dtype=torch.float64)
    >>> batch_norm(torch.tensor([[1.0, 4.0], [3.0, 2.0]], dtype=torch.float64), dim=0)   # the batch down a column
    tensor([[-1.,  1.],
            [ 1., -1.]], dtype=torch.float64)
    """
    return batch_norm_and_variance(h, eps, gamma, beta, batches, dim)[0]
