"""Finite-width NNGP and neural tangent kernels by autograd: the independent route for :mod:`theory.kernels`.

A network of :mod:`theory.kernels`' setting (NTK parameterisation: z¹ = σ_w W¹x/√d + σ_b b¹,
z^{l+1} = σ_w W^{l+1} φ(z^l)/√N + σ_b b^{l+1}, all weights and biases N(0, 1)) of width N and depth L is drawn
``seeds`` times. For each draw:

* the empirical NNGP kernel is the mean over the ``outputs`` readout units k of z^{L+1}_k(x_a) z^{L+1}_k(x_b);
* the empirical NTK of the first readout unit f = z^{L+1}_1 is Σ_θ ∂f(x_a)/∂θ ∂f(x_b)/∂θ over every weight and bias,
  the gradients taken by ``torch.autograd`` (one backward pass per input).

With dropout (``keep`` = ρ < 1) every hidden unit's output φ(z^l_j) is multiplied by m/ρ, m ~ Bernoulli(ρ) drawn
independently for every input, unit and layer and fixed within the draw (the kernels and gradients are those of the
network with its masks): the setting of :mod:`theory.kernels`, where an input meets its own mask twice and the
kernels' diagonals are divided by ρ.

Both converge to K^L and Θ^L as N → ∞ (Lee et al. 2018; Jacot et al. 2018, Theorem 1 and 2) with fluctuations
O(N^{−1/2}) per draw and a bias O(L/N); the result is the mean over draws with its standard error.
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

__all__ = ["EmpiricalKernels", "empirical_kernels"]


@dataclass(frozen=True)
class EmpiricalKernels:
    """Means over ``seeds`` networks and their standard errors (n × n each).

    Attributes
    ----------
    nngp, nngp_se : numpy.ndarray
        The empirical NNGP kernel's mean and standard error.
    ntk, ntk_se : numpy.ndarray
        The empirical NTK's mean and standard error.
    width, depth, seeds : int
        What ran.

    Examples
    --------
    >>> e = empirical_kernels("erf", [[1.0, 0.5]], width=64, depth=1, sigma_w2=1.0, seeds=3)
    >>> (e.width, e.depth, e.seeds), e.nngp.shape
    ((64, 1, 3), (1, 1))
    """

    nngp: np.ndarray
    nngp_se: np.ndarray
    ntk: np.ndarray
    ntk_se: np.ndarray
    width: int
    depth: int
    seeds: int


def empirical_kernels(act, inputs, width: int, depth: int, sigma_w2: float, sigma_b2: float = 0.0, *,
                      seeds: int = 16, outputs: int = 64, seed: int = 0, keep: float = 1.0) -> EmpiricalKernels:
    """Empirical NNGP and NTK of ``seeds`` random networks (module docstring), float64 on the CPU.

    Parameters
    ----------
    act : Activation or str
        φ (a registry name, a formula or an Activation).
    inputs : array_like, shape (n, d)
        The inputs (rows).
    width : int
        N, the width of every hidden layer.
    depth : int
        L ≥ 1 hidden layers.
    sigma_w2, sigma_b2 : float
        σ_w² > 0 and σ_b² ≥ 0.
    seeds : int
        Networks drawn (≥ 2, for a standard error).
    outputs : int
        Readout units averaged for the NNGP estimate.
    seed : int
        Seed of the draws (draw k uses an independent stream derived from it).
    keep : float
        Dropout keep probability ρ ∈ (0, 1] of every hidden unit (module docstring); 1: no dropout.

    Returns
    -------
    EmpiricalKernels
        Means and standard errors over the draws.

    Examples
    --------
    >>> e = empirical_kernels("relu", [[1.0, 0.0], [0.6, 0.8]], width=256, depth=1, sigma_w2=2.0, seeds=4)
    >>> e.ntk.shape, bool(np.all(e.ntk_se > 0))
    ((2, 2), True)
    """
    act = _activation(act)
    X = np.asarray(inputs, dtype=float)
    if X.ndim != 2 or not np.all(np.isfinite(X)):
        raise DeepinitError("inputs must be a finite n × d array")
    width = validate.integer(width, "width", 1, 1 << 16)
    depth = validate.integer(depth, "depth", 1, 1000)
    seeds = validate.integer(seeds, "seeds", 2, 100_000)
    outputs = validate.integer(outputs, "outputs", 1, 1 << 16)
    seed = validate.seed(seed)
    if not (isinstance(keep, (int, float)) and 0 < keep <= 1):
        raise DeepinitError(f"keep = {keep!r}: the dropout keep probability must lie in (0, 1]")
    keep = float(keep)
    sw, sb = float(sigma_w2) ** 0.5, float(sigma_b2) ** 0.5
    validate.memory(8.0 * (depth * width * width + X.shape[1] * width) * (2 + X.shape[0]), "the networks' gradients")
    phi = act.torch
    x = torch.as_tensor(X, dtype=torch.float64)
    n, d = X.shape
    K_draws, T_draws = [], []
    with intra_op_threads(width * width):
        for s in range(seeds):
            g = torch.Generator().manual_seed(derived_seed(seed, s))
            fan_in = [d] + [width] * depth
            fan_out = [width] * depth + [outputs]
            Ws = [torch.randn(o, i, generator=g, dtype=torch.float64).requires_grad_() for i, o in zip(fan_in, fan_out)]
            bs = [torch.randn(o, generator=g, dtype=torch.float64).requires_grad_() for o in fan_out]
            masks = ([(torch.rand(n, width, generator=g, dtype=torch.float64) < keep).double() / keep
                      for _ in range(depth)] if keep < 1 else None)
            h = x
            for layer, (W, b) in enumerate(zip(Ws, bs)):
                z = sw * h @ W.T / fan_in[layer] ** 0.5 + sb * b
                h = (phi(z) * masks[layer] if masks is not None else phi(z)) if layer < depth else z
            out = h                                            # n × outputs
            K_draws.append((out @ out.T / outputs).detach().numpy())
            grads = []
            for a in range(n):
                gs = torch.autograd.grad(out[a, 0], Ws + bs, retain_graph=a < n - 1)
                grads.append(torch.cat([t.reshape(-1) for t in gs]))
            J = torch.stack(grads)
            T_draws.append((J @ J.T).detach().numpy())
    K, T = np.array(K_draws), np.array(T_draws)
    se = lambda A: A.std(axis=0, ddof=1) / np.sqrt(len(A))  # noqa: E731
    return EmpiricalKernels(K.mean(axis=0), se(K), T.mean(axis=0), se(T), width, depth, seeds)
