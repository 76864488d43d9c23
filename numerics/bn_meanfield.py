"""The batch-norm mean-field map and finite-width batch-normalised networks with backpropagation
(bn-mean-field: Yang et al., ICLR 2019). Notation: batch size B, width N, φ̃(h) = φ(√B Gh/‖Gh‖),
V_φ̃(Σ) = E[φ̃(h)φ̃(h)ᵀ], h ~ N(0, Σ) (eq 10).

Mean-field map, two routes:

* :func:`bn_meanfield_map_laplace` — Theorem 2 (Laplace method) for φ = max(x, 0)^α, exact up to a 1-D
  quadrature: with Σ^G = GΣG = QμQᵀ, V(Σ) = B^α/Γ(α) ∫ s^{α−1} V_φ(Σ^G(I + 2sΣ^G)^{−1}) det(I + 2sΣ^G)^{−1/2} ds
  (eq 11), V_φ entrywise (C_ii C_jj)^{α/2} k_α(ρ_ij); the s-integral is a trapezoidal rule in log s (the
  integrand is analytic in a strip of half-width π/2 in log s, so the rule converges like e^{−π²/h}).
* :func:`bn_meanfield_map_mc` — plain Monte Carlo over h ~ N(0, Σ), any activation, with standard errors.

:func:`iterate_bn_meanfield` iterates either route and :func:`classify_covariance` says whether the result is
BSB1, BSB2 (two blocks — the symmetry breaking of Fig 1c,d) or neither, instead of reporting BSB1 numbers.

Finite-width networks (:func:`simulate_bn_gradients`): h^l = W^l x^{l−1}, x^l = φ(BN(h^l)), W ~ N(0, 1/N),
a random linear readout, torch autograd backpropagation, batched over seeds. Weight layers:

* ``method="dense"`` — explicit N×N weights; a custom autograd function regenerates W from its seed in the
  backward pass instead of storing it (memory O(S N²) rather than O(depth S N²)); cost O(S B N²) per layer
  and 2 N² normal draws per layer and seed.
* ``method="exact"`` — exact in distribution in O(S B² N): forward H = x Wᵀ has i.i.d. columns
  N(0, xxᵀ/N); backward, given H, W = Hᵀ(xxᵀ)⁺x + Z(I − P_x) with Z ~ N(0, 1/N) independent, so
  ∂L/∂x = (gHᵀ)(xxᵀ)⁺x + (gZ)(I − P_x) and the rows of gZ are N(0, ggᵀ/N) across the batch.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch
from scipy import special

from theory import activation as _activation
from theory.bn_meanfield import alpha_relu_kernel
from theory import validate
from theory.errors import DeepinitError

from .bn_chain import DegenerateBatchError
from .bn_layer import _batches, _bn_params, batch_norm_and_variance
from .isometry_mlp import SimulationDiverged, default_device, psd_sqrt
from .threads import intra_op_threads


def _check_sigma(Sigma) -> np.ndarray:
    S = np.asarray(Sigma, dtype=float)
    if S.ndim != 2 or S.shape[0] != S.shape[1] or S.shape[0] < 2:
        raise DeepinitError(f"Σ must be a square B×B matrix with B ≥ 2, got shape {S.shape}")
    if not np.all(np.isfinite(S)):
        raise DeepinitError("Σ has non-finite entries")
    if not np.allclose(S, S.T, rtol=1e-10, atol=1e-12 * max(1.0, float(np.max(np.abs(S))))):
        raise DeepinitError("Σ must be symmetric")
    w = np.linalg.eigvalsh(S)
    if w.min() < -1e-10 * max(1.0, w.max()):
        raise DeepinitError(f"Σ is not positive semi-definite (smallest eigenvalue {w.min():.3g})")
    return 0.5 * (S + S.T)


def centering(B: int) -> np.ndarray:
    """G = I − 11ᵀ/B."""
    return np.eye(B) - np.ones((B, B)) / B


def _relu_kernel(alpha: float):
    if alpha == 1.0:
        return lambda rho: (np.sqrt(np.clip(1 - rho * rho, 0, None)) + (np.pi - np.arccos(rho)) * rho) / (2 * np.pi)
    return lambda rho: alpha_relu_kernel(alpha, rho)


def bn_meanfield_map_laplace(Sigma, alpha: float = 1.0, h: float = 0.3, gaussian_moments=None,
                             det_power: float = 0.5) -> np.ndarray:
    """V_φ̃(Σ) for φ(x) = max(x, 0)^α by Theorem 2 (eq 11); α > 0. Accurate to ≈1e-13 at the default step
    (≈1e-10 for non-integer α, where k_α is a 32-node Gauss–Jacobi rule).

    ``gaussian_moments``: for another φ positive-homogeneous of degree α, a function C[T, B, B] → V_φ(C)[T, B, B].
    ``det_power``: the exponent of det(I + 2sΣ^G)⁻¹ — 1/2 in eq (11); other values only for negative controls.

    Parameters
    ----------
    Sigma : array_like
        Σ, B×B (or a stack ``[T, B, B]``).
    alpha : float
        α > 0.
    h : float
        The step of the s-quadrature.
    gaussian_moments : callable, optional
        V_φ for another positive-homogeneous φ.
    det_power : float
        The exponent of the determinant (1/2 in eq 11).

    Returns
    -------
    numpy.ndarray
        V_φ̃(Σ), the shape of ``Sigma``.

    Examples
    --------
    >>> import numpy as np
    >>> from numerics import bn_meanfield_map_laplace
    >>> V = bn_meanfield_map_laplace(np.eye(4))                  # ReLU: a BSB1 matrix with diagonal 1/2
    >>> round(float(V[0, 0]), 10), round(float(V[0, 1]), 6)
    (0.5, 0.084748)
    """
    S = _check_sigma(Sigma)
    if not alpha > 0:
        raise DeepinitError("the Laplace method needs a positive homogeneity degree α")
    B = S.shape[0]
    G = centering(B)
    SG = G @ S @ G
    mu, Q = np.linalg.eigh(0.5 * (SG + SG.T))
    scale = max(float(mu.max()), 0.0)
    keep = mu > 1e-13 * scale
    if not keep.any():
        raise DegenerateBatchError("GΣG = 0: every sample has the same pre-activation, batch norm is undefined")
    mu, Q = mu[keep], Q[:, keep]
    r = len(mu)
    kern = _relu_kernel(float(alpha))
    # log s from where s·μ_max ≈ e^{−37/α} (integrand ~ s^α) to where s·μ_min ≈ e^{74/r} (~ s^{−r/2})
    t_lo = -math.log(mu.max()) - 37.0 / alpha
    t_hi = -math.log(mu.min()) + 80.0 / r + 2.0
    ts = np.arange(t_lo, t_hi + h, h)
    iu = np.triu_indices(B)
    sv = np.exp(ts)[:, None]                                   # [T, 1]
    d = mu[None, :] / (1 + 2 * sv * mu[None, :])               # [T, r]
    C = np.einsum("ik,tk,jk->tij", Q, d, Q)                    # [T, B, B]
    sd = np.sqrt(np.clip(np.einsum("tii->ti", C), 0, None))
    denom = sd[:, :, None] * sd[:, None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.where(denom > 0, C / np.where(denom > 0, denom, 1), 0.0)
    rho = np.clip(rho[:, iu[0], iu[1]], -1, 1)
    if gaussian_moments is not None:
        V = np.asarray(gaussian_moments(C))[:, iu[0], iu[1]]
    else:
        V = denom[:, iu[0], iu[1]] ** alpha * kern(rho)
    logdet = det_power * np.sum(np.log1p(2 * sv * mu[None, :]), axis=1)
    wts = h * np.exp(alpha * ts - logdet)
    out = np.zeros((B, B))
    out[iu] = wts @ V
    out = out + np.triu(out, 1).T
    return B ** alpha / math.gamma(alpha) * out


def bn_meanfield_map_mc(act, Sigma, samples: int = 200_000, seed: int = 0, chunk: int = 100_000):
    """V_φ̃(Σ) by Monte Carlo over h ~ N(0, Σ); returns (mean, standard error), any activation (bn-mean-field eq 10).

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
    chunk : int
        Draws per chunk (memory).

    Returns
    -------
    tuple of numpy.ndarray
        ``(mean, standard error)``, both B×B.

    Examples
    --------
    >>> import numpy as np
    >>> from numerics import bn_meanfield_map_laplace, bn_meanfield_map_mc
    >>> mean, se = bn_meanfield_map_mc("relu", np.eye(4), samples=20000)
    >>> bool(np.all(abs(mean - bn_meanfield_map_laplace(np.eye(4))) < 5 * se + 1e-12))
    True
    """
    act = _activation(act)
    S = _check_sigma(Sigma)
    B = S.shape[0]
    w, v = np.linalg.eigh(S)
    L = (v * np.sqrt(np.clip(w, 0, None))) @ v.T   # symmetric root: independent of LAPACK's basis in degenerate
    G = centering(B)
    rng = np.random.default_rng(validate.seed(seed))
    s1 = np.zeros((B, B))
    s2 = np.zeros((B, B))
    done = 0
    while done < samples:
        m = min(chunk, samples - done)
        hs = rng.standard_normal((m, B)) @ L.T
        gh = hs @ G
        nrm = np.linalg.norm(gh, axis=1, keepdims=True)
        if np.any(nrm <= 0):
            raise DegenerateBatchError("Gh = 0 for a sample: batch norm undefined (Σ has GΣG singular on the draw)")
        f = act.numpy(math.sqrt(B) * gh / nrm)
        if not np.all(np.isfinite(f)):
            raise DeepinitError(f"{act.name} returned non-finite values on the sphere of radius √B")
        outer = f[:, :, None] * f[:, None, :]
        s1 += outer.sum(axis=0)
        s2 += (outer * outer).sum(axis=0)
        done += m
    mean = s1 / samples
    var = np.clip(s2 / samples - mean * mean, 0, None)
    return mean, np.sqrt(var / samples)


# ---------------------------------------------------------------------------------------------
# Iteration and classification of the limit
# ---------------------------------------------------------------------------------------------

@dataclass
class CovarianceShape:
    """What a covariance matrix looks like: ``kind`` ∈ {"BSB1", "BSB2", "other"}.

    Attributes
    ----------
    kind : str
        ``"BSB1"``, ``"BSB2"`` or ``"other"``.
    distance_bsb1 : float
        ‖Σ − P_BSB1 Σ‖_F/‖Σ‖_F.
    groups : tuple
        For BSB2: the two index groups.
    distance_bsb2 : float
        ‖Σ − P_blocks Σ‖_F/‖Σ‖_F for the detected grouping.

    Examples
    --------
    >>> import numpy as np
    >>> from numerics import classify_covariance
    >>> classify_covariance(0.5 * np.eye(4) + 0.1).kind
    'BSB1'
    """

    kind: str
    distance_bsb1: float             # ‖Σ − P_BSB1 Σ‖_F/‖Σ‖_F
    groups: tuple = ()               # for BSB2: the two index groups
    distance_bsb2: float = math.nan  # ‖Σ − P_blocks Σ‖_F/‖Σ‖_F for the detected grouping

    def __str__(self):
        if self.kind == "BSB2":
            return f"BSB2 (groups of {len(self.groups[0])} and {len(self.groups[1])})"
        return self.kind


def _block_projection(S: np.ndarray, labels: np.ndarray) -> np.ndarray:
    P = np.zeros_like(S)
    B = S.shape[0]
    eye = np.eye(B, dtype=bool)
    for a in np.unique(labels):
        for b in np.unique(labels):
            mask = (labels[:, None] == a) & (labels[None, :] == b)
            for part in (mask & eye, mask & ~eye):
                if part.any():
                    P[part] = S[part].mean()
    return P


def classify_covariance(Sigma, tol: float = 1e-6) -> CovarianceShape:
    """BSB1 if Σ is (1 − tol)-close to q((1 − c)I + c11ᵀ); else BSB2 if the batch splits into two groups with
    block-constant entries (groups from the sign of the top non-constant eigenvector of the correlation).

    Parameters
    ----------
    Sigma : array_like
        Σ, B×B.
    tol : float
        The relative Frobenius distance within which a shape is recognised.

    Returns
    -------
    CovarianceShape
        ``kind`` and the distances; ``str()`` names the shape.

    Examples
    --------
    >>> import numpy as np
    >>> from numerics import classify_covariance
    >>> str(classify_covariance(0.5 * np.eye(4) + 0.1))
    'BSB1'
    >>> S = np.kron(np.array([[1.0, -0.5], [-0.5, 1.0]]), np.ones((2, 2))) + np.eye(4)
    >>> str(classify_covariance(S))
    'BSB2 (groups of 2 and 2)'
    """
    S = np.asarray(Sigma, dtype=float)
    B = S.shape[0]
    nrm = float(np.linalg.norm(S))
    if nrm == 0:
        return CovarianceShape("other", math.nan)
    d1 = float(np.linalg.norm(S - _block_projection(S, np.zeros(B, dtype=int)))) / nrm
    if d1 < tol:
        return CovarianceShape("BSB1", d1)
    sd = np.sqrt(np.clip(np.diag(S), 1e-300, None))
    R = S / np.outer(sd, sd)
    Gc = centering(B)
    w, v = np.linalg.eigh(Gc @ R @ Gc)
    best = None
    for k in (0, B - 1):  # the most negative and most positive eigen-directions
        labels = (v[:, k] > 0).astype(int)
        if labels.min() == labels.max():
            continue
        d2 = float(np.linalg.norm(S - _block_projection(S, labels))) / nrm
        if best is None or d2 < best[0]:
            best = (d2, labels)
    if best is not None and best[0] < tol:
        lab = best[1]
        groups = (tuple(np.flatnonzero(lab == 0).tolist()), tuple(np.flatnonzero(lab == 1).tolist()))
        return CovarianceShape("BSB2", d1, groups, best[0])
    return CovarianceShape("other", d1, (), best[0] if best else math.nan)


@dataclass
class MeanFieldIteration:
    """The iterates of the BN mean-field map (:func:`iterate_bn_meanfield`) and the shape of the last one.

    Attributes
    ----------
    trajectory : numpy.ndarray
        ``[depth + 1, B, B]``: Σ⁰, …, Σ^depth.
    shape : CovarianceShape
        The shape of the last iterate.
    converged : bool
        The last step moved less than ``tol`` (relative).
    step_change : float
        The relative change of the last step.

    Examples
    --------
    >>> import numpy as np
    >>> from numerics import iterate_bn_meanfield
    >>> it = iterate_bn_meanfield("relu", np.eye(4), 5)
    >>> it.trajectory.shape, str(it.shape), it.converged
    ((6, 4, 4), 'BSB1', True)
    """
    trajectory: np.ndarray   # [depth + 1, B, B]
    shape: CovarianceShape   # of the last iterate
    converged: bool          # last step moved less than tol (relative)
    step_change: float

    @property
    def final(self) -> np.ndarray:
        return self.trajectory[-1]


def iterate_bn_meanfield(act, Sigma0, depth: int, *, method: str = "auto", alpha: float | None = None,
                         samples: int = 200_000, seed: int = 0, tol: float = 1e-8) -> MeanFieldIteration:
    """Σ^l = V_φ̃(Σ^{l−1}) for ``depth`` steps. ``method``: "laplace" (α-ReLU, exact), "mc", or "auto"
    (Laplace when the activation is max(x,0)^α, else Monte Carlo). The limit is classified (BSB1, BSB2, other).

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    Sigma0 : array_like
        Σ⁰, B×B.
    depth : int
        The number of steps.
    method : {"auto", "laplace", "mc"}
        The route of each step.
    alpha : float, optional
        α of max(x, 0)^α for ``"laplace"`` (default: detected from the activation).
    samples : int
        Monte Carlo draws per step.
    seed : int
        The random seed of the Monte Carlo steps.
    tol : float
        The relative step below which the iteration counts as converged.

    Returns
    -------
    MeanFieldIteration
        The trajectory, the shape of the last iterate and whether it converged.

    Examples
    --------
    >>> import numpy as np
    >>> from numerics import iterate_bn_meanfield
    >>> it = iterate_bn_meanfield("relu", np.eye(4), 5)        # ReLU: Laplace route, BSB1 limit (Theorem 4)
    >>> round(float(it.trajectory[-1, 0, 0]), 10), str(it.shape)
    (0.5, 'BSB1')
    """
    act = _activation(act)
    S = _check_sigma(Sigma0)
    if method == "auto":
        alpha = alpha if alpha is not None else _relu_power(act)
        method = "laplace" if alpha is not None else "mc"
    if method == "laplace":
        alpha = alpha if alpha is not None else _relu_power(act)
        if alpha is None:
            raise DeepinitError(f"{act.name}: the Laplace method (Theorem 2) needs φ = max(x,0)^α")
    elif method != "mc":
        raise DeepinitError("method must be 'laplace', 'mc' or 'auto'")
    traj = [S]
    for layer in range(depth):
        if method == "laplace":
            S = bn_meanfield_map_laplace(S, alpha)
        else:
            S, _ = bn_meanfield_map_mc(act, S, samples, seed + layer)
        traj.append(S)
    change = float(np.linalg.norm(traj[-1] - traj[-2]) / np.linalg.norm(traj[-1])) if depth else math.nan
    mc_tol = 0 if method == "laplace" else 20 / math.sqrt(samples)
    shape = classify_covariance(S, tol=max(1e-6, mc_tol))
    return MeanFieldIteration(np.array(traj), shape, change < max(tol, mc_tol), change)


def _relu_power(act) -> float | None:
    """α if the activation is max(x, 0)^α (α > 0), else None."""
    import sympy as sp
    from theory.activations import x as X
    base, expo = act.expr.as_base_exp()
    expo = sp.sympify(expo)
    if base == sp.Max(X, 0) and expo.is_number and float(expo) > 0:
        return float(expo)
    return None


# ---------------------------------------------------------------------------------------------
# Finite-width networks with backpropagation
# ---------------------------------------------------------------------------------------------

class _DenseRegenerated(torch.autograd.Function):
    """y = x Wᵀ with W ~ N(0, 1/N_in)^{S×N_out×N_in} drawn from ``seed``; W is redrawn in backward."""

    @staticmethod
    def forward(ctx, x, seed: int, n_out: int):
        W = _draw(seed, x, n_out)
        ctx.seed, ctx.n_out = seed, n_out
        ctx.x_meta = (x.shape, x.dtype, x.device)
        return torch.bmm(x, W.transpose(1, 2))

    @staticmethod
    def backward(ctx, g):
        shape, dtype, device = ctx.x_meta
        W = _draw(ctx.seed, torch.empty(shape, dtype=dtype, device=device), ctx.n_out)
        return torch.bmm(g, W), None, None


def _draw(seed: int, x: torch.Tensor, n_out: int) -> torch.Tensor:
    gen = torch.Generator(device=x.device)
    gen.manual_seed(validate.seed(seed))
    S, _, n_in = x.shape
    return torch.randn(S, n_out, n_in, generator=gen, dtype=x.dtype, device=x.device) / math.sqrt(n_in)


def _pinv_psd(K: torch.Tensor, rtol: float = 1e-10) -> torch.Tensor:
    w, v = torch.linalg.eigh(0.5 * (K + K.transpose(-1, -2)))
    cut = rtol * w.amax(dim=-1, keepdim=True)
    inv = torch.where(w > cut, 1.0 / torch.where(w > cut, w, torch.ones_like(w)), torch.zeros_like(w))
    return (v * inv[..., None, :]) @ v.transpose(-1, -2)


class _ExactGaussianLayer(torch.autograd.Function):
    """The law of (x Wᵀ, ∂L/∂x) without W (module docstring); noise from a generator seeded by ``seed``."""

    @staticmethod
    def forward(ctx, x, seed: int, n_out: int):
        S, B, n_in = x.shape
        gen = torch.Generator(device=x.device)
        gen.manual_seed(validate.seed(seed))
        K = x @ x.transpose(1, 2) / n_in
        H = psd_sqrt(K) @ torch.randn(S, B, n_out, generator=gen, dtype=x.dtype, device=x.device)
        ctx.save_for_backward(x, H, K)
        ctx.seed = seed
        return H

    @staticmethod
    def backward(ctx, g):
        x, H, K = ctx.saved_tensors
        S, B, n_in = x.shape
        gen = torch.Generator(device=x.device)
        gen.manual_seed(int(ctx.seed) + 7_919)
        Kx = _pinv_psd(K) / n_in                    # (xxᵀ)⁺, from the forward pass's K = xxᵀ/N
        noise = psd_sqrt(g @ g.transpose(1, 2) / n_in) @ torch.randn(S, B, n_in, generator=gen, dtype=x.dtype,
                                                                      device=x.device)
        # (gHᵀ)(xxᵀ)⁺x + noise(I − P_x), with P_x = xᵀ(xxᵀ)⁺x: one product with x for both terms
        return ((g @ H.transpose(1, 2) - noise @ x.transpose(1, 2)) @ Kx) @ x + noise, None, None


@dataclass
class BNGradientRun:
    """One ensemble of finite-width BN networks: per seed and layer l = 1..depth,
    ``sq_grad[s, l−1] = ‖∂L/∂h^l‖²``, ``cov[s, l−1] = h^l h^lᵀ/N`` and, when asked for,
    ``grad_gram[s, l−1] = Π^l = g^l g^lᵀ``
    (B×B, g^l = ∂L/∂h^l summed over the N neurons; tr Π^l = ‖∂L/∂h^l‖²). In the mean-field limit
    Π^{l−1} = V_back(Σ^{l−1}){Π^l} (bn-mean-field eq 21), Σ^{l−1} = ``cov[s, l−2]``, with the cross-batch blocks when
    the run has several ``batches``.

    Attributes
    ----------
    sq_grad : numpy.ndarray
        ``[seeds, depth]``: ‖∂L/∂h^l‖².
    cov : numpy.ndarray
        ``[seeds, depth, B, B]``: h^l h^lᵀ/N.
    width : int
        N, the number of neurons.
    batch_size : int
        The batch size B.
    method : str
        ``"dense"`` or ``"exact"``.
    grad_gram : numpy.ndarray or None
        ``[seeds, depth, B, B]``: Π^l (only with ``grad_gram=True``).
    config : dict
        What ran: activation, width, batch_size, batches, depth, seeds, method, eps, gamma, beta (the batch norm
        γ (h − h̄)/sqrt(Var h + ε) + β the layers applied), dtype, device, seed.

    Examples
    --------
    >>> from numerics import simulate_bn_gradients
    >>> run = simulate_bn_gradients("relu", 32, 4, 3, seeds=2, device="cpu", gamma=2.0)
    >>> run.sq_grad.shape, run.cov.shape, run.grad_gram is None, run.config["gamma"]
    ((2, 3), (2, 3, 4, 4), True, 2.0)
    """

    sq_grad: np.ndarray
    cov: np.ndarray
    width: int
    batch_size: int
    method: str
    grad_gram: np.ndarray | None = None   # only with simulate_bn_gradients(grad_gram=True)
    config: dict = field(default_factory=dict)

    def growth_rate(self, window: tuple[int, int] | None = None, confidence: float = 0.95):
        """λ̂ with a t-interval over seeds: per seed, the least-squares slope of log‖∂L/∂h^l‖² on l over the
        layer window (default: the middle half), λ̂ = exp(−slope)."""
        from scipy import stats
        S, L = self.sq_grad.shape
        lo, hi = window if window is not None else (L // 4, 3 * L // 4)
        layers = np.arange(lo, hi)
        y = np.log(self.sq_grad[:, lo:hi])
        xc = layers - layers.mean()
        slopes = (y - y.mean(axis=1, keepdims=True)) @ xc / float(xc @ xc)
        m = float(slopes.mean())
        se = float(slopes.std(ddof=1) / math.sqrt(S)) if S > 1 else math.inf
        t = float(stats.t.ppf(0.5 + confidence / 2, max(S - 1, 1)))
        return math.exp(-m), (math.exp(-(m + t * se)), math.exp(-(m - t * se))), slopes


def simulate_bn_gradients(act, width: int, batch_size: int, depth: int, seeds: int = 1, *, method: str = "dense",
                          input=None, device: str | None = None, dtype=torch.float64, seed: int = 0,
                          eps: float = 0.0, gamma: float = 1.0, beta: float = 0.0, batches=None,
                          readout_cov=None, grad_gram: bool = False) -> BNGradientRun:
    """Forward covariances and backpropagated squared gradient norms of ``seeds`` batch-normalised networks.

    ``input``: a B×N₀ batch used for every seed (default: i.i.d. N(0, 1) entries, drawn per seed).
    Loss: L = Σ_{b,i} v_{bi} x^depth_{bi}/√N with v ~ N(0, 1) i.i.d.; with ``readout_cov`` (B×B, positive
    semi-definite) each neuron's v_{·i} ~ N(0, readout_cov), so that Π^depth has that mean (e.g. two batches whose
    matched samples share their targets: a non-zero cross-batch block of the gradient covariance).
    ``grad_gram=True`` also records the gradient Grams Π^l (as much memory as ``cov``, so off by default).
    Batch norm: γ (h − h̄)/sqrt(Var h + ε) + β per neuron (the paper: ε = 0, γ = 1, β = 0); ``batches``
    (sizes adding up to B) normalises each sub-batch with its own statistics — several batches through one network,
    whose covariance ``cov`` then holds the cross-batch blocks.

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    width : int
        N, the number of neurons per layer.
    batch_size : int
        The batch size B.
    depth : int
        The number of layers.
    seeds : int
        The number of independent networks.
    method : {"dense", "exact"}
        Explicit weight matrices, or exact in distribution.
    input : array_like, optional
        A B×N₀ input batch for every seed.
    device : str, optional
        ``"cpu"``, ``"cuda"`` or ``None``/``"auto"``.
    dtype : torch.dtype
        float64 (default) or float32.
    seed : int
        The random seed.
    eps, gamma, beta : float
        Batch norm's ε and affine γ, β (keyword only; the paper: 0, 1, 0).
    batches : sequence of int, optional
        Sizes adding up to B: each sub-batch is normalised with its own statistics (several batches through one
        network); ``None``: one batch.
    readout_cov : array_like, optional
        B×B covariance of each neuron's readout weights.
    grad_gram : bool
        Also record the gradient Grams Π^l.

    Returns
    -------
    BNGradientRun
        ``sq_grad``, ``cov`` (and ``grad_gram``), and ``config``: what ran.

    Examples
    --------
    >>> from numerics import simulate_bn_gradients
    >>> run = simulate_bn_gradients("relu", 32, 4, 3, seeds=2, device="cpu")
    >>> run.width, run.batch_size, run.method, bool((run.sq_grad > 0).all())
    (32, 4, 'dense', True)
    """
    eps, gamma, beta = _bn_params(eps, gamma, beta)
    act = _activation(act)
    if method not in ("dense", "exact"):
        raise DeepinitError("method must be 'dense' or 'exact'")
    B = int(batch_size)
    if B < 2 or width < 2 or depth < 1 or seeds < 1:
        raise DeepinitError("need batch size ≥ 2, width ≥ 2, depth ≥ 1 and seeds ≥ 1")
    width, B_, depth_, seeds_ = validate.simulation_sizes(width, batch_size, depth, seeds)
    # cost model: autograd keeps about 4 [seeds, B, width] tensors per layer for the backward pass
    validate.memory((8 if dtype == torch.float64 else 4) * 4 * depth_ * seeds_ * B_ * width,
                    f"simulate_bn_gradients (width {width}, B {B_}, depth {depth_}, {seeds_} seeds)")
    if act.is_constant:
        raise DeepinitError(f"{act.name}: a constant φ has identically zero gradients and a degenerate BSB1 fixed "
                            "point; gradient explosion (Theorem 7) is undefined for it")
    dev = default_device(device)
    seed = validate.seed(seed)
    sizes = _batches(batches, B)
    readout = None
    if readout_cov is not None:
        R = np.asarray(readout_cov, dtype=float)
        if R.shape != (B, B) or not np.all(np.isfinite(R)) or not np.allclose(R, R.T, atol=1e-12) \
                or float(np.linalg.eigvalsh(0.5 * (R + R.T)).min()) < -1e-12:
            raise DeepinitError(f"readout_cov must be a finite symmetric positive semi-definite {B}×{B} matrix")
        readout = psd_sqrt(torch.as_tensor(0.5 * (R + R.T), dtype=dtype, device=dev))
    x0 = None
    if input is not None:
        x0 = torch.as_tensor(np.asarray(input, dtype=float), dtype=dtype, device=dev)
        if x0.ndim != 2 or x0.shape[0] != B or not bool(torch.isfinite(x0).all()):
            raise DeepinitError(f"input must be a finite {B}×N₀ array")
    # memory: autograd keeps every layer of every seed until the backward pass, so the seeds run in chunks of at
    # most GRADIENT_CHUNK_BYTES (a chunk size decided by the sizes alone: the same seed gives the same numbers on
    # any machine). The first chunk uses ``seed`` itself, later ones seeds derived from (seed, chunk index).
    per_seed = (8 if dtype == torch.float64 else 4) * 8 * depth * B * width
    chunk = max(1, min(seeds, GRADIENT_CHUNK_BYTES // per_seed))
    parts = []
    with intra_op_threads(chunk * B * width * (width if method == "dense" else 1)):
        for k, start in enumerate(range(0, seeds, chunk)):
            try:
                parts.append(_gradient_chunk(act, width, B, depth, min(chunk, seeds - start), method, x0, dtype, dev,
                                             derived_seed(seed, k), eps, gamma, beta, sizes, readout, grad_gram))
            except SimulationDiverged as exc:  # seed indices of the whole run, not of the chunk
                raise SimulationDiverged(exc.layer, exc.partial, [start + i for i in exc.seeds]) from None
    sq = np.concatenate([p[0] for p in parts])
    cov = np.concatenate([p[1] for p in parts])
    config = dict(activation=act.name, width=width, batch_size=B, batches=list(sizes), depth=depth, seeds=seeds,
                  method=method, eps=eps, gamma=gamma, beta=beta, dtype=str(dtype).replace("torch.", ""),
                  device=str(dev), seed=seed)
    return BNGradientRun(sq, cov, width, B, method, np.concatenate([p[2] for p in parts]) if grad_gram else None,
                         config)


#: the most memory one chunk of seeds of :func:`simulate_bn_gradients` may hold for autograd (1 GiB)
GRADIENT_CHUNK_BYTES = 1 << 30


def derived_seed(seed: int, k: int) -> int:
    """An independent seed for the k-th part of a run seeded by ``seed`` (numpy's SeedSequence; k = 0 → seed)."""
    if k == 0:
        return int(seed)
    return int(np.random.SeedSequence([int(seed), int(k)]).generate_state(1, dtype=np.uint64)[0] >> 2)


def _gradient_chunk(act, width, B, depth, seeds, method, x0, dtype, dev, seed, eps, gamma, beta, sizes, readout=None,
                    grad_gram: bool = False):
    gen = torch.Generator(device=dev)
    gen.manual_seed(seed)
    phi = act.torch
    layer = _DenseRegenerated if method == "dense" else _ExactGaussianLayer
    if x0 is None:
        x = torch.randn(seeds, B, width, generator=gen, dtype=dtype, device=dev)
    else:
        x = x0.expand(seeds, *x0.shape).contiguous()
    base = int(torch.randint(0, 2 ** 40, (1,), generator=gen, device=dev).item())
    x = x.detach().requires_grad_(True)
    hs = []
    with torch.enable_grad():
        for l in range(depth):
            h = layer.apply(x, base + 1_000_003 * (l + 1), width)
            h.retain_grad()
            hs.append(h)
            # a finite sum proves every entry finite; only then are the entries tested
            if not (bool(torch.isfinite(h.sum())) or bool(torch.isfinite(h).all())):
                bad = ~torch.isfinite(h).flatten(1).all(dim=1)
                raise SimulationDiverged(l + 1, torch.empty(0), torch.nonzero(bad).flatten().tolist())
            y, var = batch_norm_and_variance(h, eps, gamma, beta, sizes, dim=1)   # the batch is axis 1
            if eps == 0 and bool((var <= 0).any()):
                raise DegenerateBatchError(f"layer {l + 1}: a neuron has zero variance over the batch; BN with ε = 0 "
                                           "is undefined")
            x = phi(y)
        v = torch.randn(x.shape, generator=gen, dtype=dtype, device=dev)
        if readout is not None:   # each neuron's targets across the batch ~ N(0, readout_cov)
            v = readout @ v
        loss = (x * v).sum() / math.sqrt(width)
        loss.backward()
    sq = torch.stack([(h.grad ** 2).sum(dim=(1, 2)) for h in hs], dim=1)
    gram = torch.stack([h.grad @ h.grad.transpose(1, 2) for h in hs], dim=1) if grad_gram else None
    cov = torch.stack([(h.detach() @ h.detach().transpose(1, 2)) / width for h in hs], dim=1)
    if not bool(torch.isfinite(sq).all()):
        bad = ~torch.isfinite(sq).all(dim=1)
        raise SimulationDiverged(depth, torch.empty(0), torch.nonzero(bad).flatten().tolist())
    return sq.cpu().numpy(), cov.cpu().numpy(), gram.cpu().numpy() if gram is not None else None


# ---------------------------------------------------------------------------------------------
# Theorem 3 (Fourier method) for polynomial activations, as an independent check of eq (12)
# ---------------------------------------------------------------------------------------------

def _poly_gaussian_moments(coeffs):
    """V_φ(C) for φ(x) = Σ_m a_m x^m (m ≤ 2), valid for complex symmetric C (analytic continuation):
    E[x_i x_j] = C_ij, E[x_i² x_j²] = C_ii C_jj + 2C_ij², E[x_i] = 0, E[x_i²] = C_ii, E[x_i x_j²] = 0."""
    a0, a1, a2 = (list(coeffs) + [0, 0, 0])[:3]

    def V(C):
        d = np.diag(C)
        return (a0 * a0 + a0 * a2 * (d[:, None] + d[None, :]) + a1 * a1 * C
                + a2 * a2 * (np.outer(d, d) + 2 * C * C))
    return V


def bn_meanfield_map_fourier(Sigma, coeffs=(0.0, 1.0), printed: bool = False, r2_nodes: int = 60):
    """V_φ̃(Σ) by Theorem 3 (eq 12) for φ(x) = a₀ + a₁x + a₂x² (Σ positive definite).

    Derivation: insert 1 = ∫d(r²) δ(r² − ‖Gh‖²/B) = ∫d(r²)∫dλ/2π e^{iλ(r² − hᵀGh/B)}; the h-integral is a
    complex Gaussian with covariance (Σ⁻¹ + 2iλG/B)⁻¹, so the argument of V_φ is G(Σ⁻¹ + 2iλG/B)⁻¹G r⁻².
    ``printed=True`` uses the transcribed argument G(Σ⁻¹ + 2iλG/B)G r⁻² (no inverse) instead.
    The λ-integral uses the Hermitian symmetry F(−λ) = conj F(λ): ∫dλ/2π e^{iλr²}F = (1/π)Re∫_0^∞ e^{iλr²}F dλ,
    on a Gauss–Legendre grid in λ = tan-mapped; the r²-integral by Gauss–Laguerre scaled to the spectrum.
    """
    S = _check_sigma(Sigma)
    B = S.shape[0]
    w_eig = np.linalg.eigvalsh(S)
    if w_eig.min() <= 1e-12 * w_eig.max():
        raise DeepinitError("Theorem 3's form needs Σ⁻¹: Σ must be positive definite")
    G = centering(B)
    Si = np.linalg.inv(S)
    V = _poly_gaussian_moments(coeffs)
    mu = np.linalg.eigvalsh(G @ S @ G)
    mu = mu[mu > 1e-12 * mu.max()]
    scale = B / mu.mean()  # λ scale where 2λμ/B ~ 1
    # λ ∈ (0, ∞): λ = scale·tan(πy/2), y ∈ (0, 1); Gauss–Legendre in y (the integrand decays like λ^{−(B−1)/2−1})
    gy, gw = np.polynomial.legendre.leggauss(800)
    y = (gy + 1) / 2
    lam = scale * np.tan(np.pi * y / 2)
    dlam = scale * np.pi / 2 / np.cos(np.pi * y / 2) ** 2 * gw / 2
    Cs, dets = [], []
    for l in lam:
        M = Si + 2j * l * G / B
        C = G @ (np.linalg.inv(M) if not printed else M) @ G
        Cs.append(C)
        dets.append(np.prod(np.sqrt(1 + 2j * l * mu / B)))  # principal branch factor by factor: continuous in λ
    Cs, dets = np.array(Cs), np.array(dets)
    # r² grid: the density of ‖Gh‖²/B lives on the scale mean(μ)(B−1)/B; Gauss–Laguerre in r²/m
    m = float(mu.sum() / B)
    xl, wl = special.roots_genlaguerre(r2_nodes, 0.0)
    r2 = xl * m / 2.0
    wr2 = wl * np.exp(xl) * m / 2.0
    out = np.zeros((B, B))
    for rr, wr in zip(r2, wr2):
        phase = np.exp(1j * lam * rr)
        vals = np.array([V(C / rr) for C in Cs])  # [nλ, B, B]
        inner = np.real(np.einsum("l,lij->ij", dlam * phase / dets, vals)) / np.pi
        out += wr * inner
    return out


# ---------------------------------------------------------------------------------------------
# The Jacobian of the mean-field map as a matrix on symmetric matrices (Theorem 1's setting)
# ---------------------------------------------------------------------------------------------

def sym_basis(B: int) -> list[np.ndarray]:
    """E_aa = e_a e_aᵀ and E_ab = e_a e_bᵀ + e_b e_aᵀ (a < b): a basis of B×B symmetric matrices."""
    out = []
    for a in range(B):
        for b in range(a, B):
            E = np.zeros((B, B))
            E[a, b] = E[b, a] = 1.0
            out.append(E)
    return out


def sym_coordinates(M: np.ndarray) -> np.ndarray:
    """Coordinates of a symmetric M in :func:`sym_basis` (upper triangle, row-major)."""
    return M[np.triu_indices(M.shape[0])]


def meanfield_jacobian_fd(Sigma, alpha: float = 1.0, eps: float = 1e-5) -> np.ndarray:
    """dV_φ̃/dΣ at Σ for φ = max(x,0)^α as a matrix on the symmetric matrices, by central finite differences
    of the Laplace-method map (no symmetry assumed)."""
    S = _check_sigma(Sigma)
    cols = []
    for E in sym_basis(S.shape[0]):
        d = (bn_meanfield_map_laplace(S + eps * E, alpha) - bn_meanfield_map_laplace(S - eps * E, alpha)) / (2 * eps)
        cols.append(sym_coordinates(d))
    return np.array(cols).T


def meanfield_jacobian_mc(act, Sigma, samples: int = 400_000, seed: int = 0, eps: float = 1e-3) -> np.ndarray:
    """dV_φ̃/dΣ at Σ (positive definite) by central finite differences of the Monte Carlo map with common random
    numbers: h = chol(Σ ± εE) z with the same z for every perturbation (no symmetry assumed)."""
    act = _activation(act)
    S = _check_sigma(Sigma)
    B = S.shape[0]
    z = np.random.default_rng(validate.seed(seed)).standard_normal((samples, B))
    Gc = centering(B)

    def V(M):
        hs = z @ np.linalg.cholesky(M).T
        gh = hs @ Gc
        f = act.numpy(math.sqrt(B) * gh / np.linalg.norm(gh, axis=1, keepdims=True))
        return f.T @ f / samples
    cols = []
    for E in sym_basis(B):
        cols.append(sym_coordinates((V(S + eps * E) - V(S - eps * E)) / (2 * eps)))
    return np.array(cols).T
