"""Finite-width fully connected networks with weight and bias variances (Poole et al. 2016; Schoenholz et al. 2017),
batched over seeds: the finite-N route to the mean-field maps of :mod:`theory.meanfield_mlp`.

z^l = W^l y^{l−1} + b^l (l = 1..L), y^0 = x, y^l = φ(z^l)·m^l/ρ, W^l_ij ~ N(0, σ_w²/N_{l−1}), b^l_i ~ N(0, σ_b²),
m^l_ia ~ Bernoulli(ρ) dropout masks (independent for every unit and input; none on the inputs, none when ρ = 1).

Recorded per seed and layer (l = 0 are the inputs): the Gram matrices K^l_ab = z^l_a·z^l_b/N_l (K^0 = x_a·x_b/N₀),
so q^l_a = K^l_aa and c^l_ab = K^l_ab/√(K^l_aa K^l_bb); optionally the forward tangents t^l = ∂z^l/∂x·u along a
direction u (t^0 = u) as |t^l_a|²/N_l, and the backpropagated errors δ^l = ∂E/∂z^l of the fixed random linear readout
E = Σ_a v·z^L_a/√N_L, v ~ N(0, I), as |δ^l_a|² (δ^0 = ∂E/∂x).

Two methods (``method=``), one signature:

* ``"dense"`` — explicit weights, stacked [S, N_l, N_{l−1}] and applied by ``torch.bmm``: O(S N_l N_{l−1} n) flops and
  S N_l N_{l−1} normal draws per layer (the draws dominate: ≈ 10 ns each on one CPU core). The backward pass
  regenerates each W^l from its saved generator state instead of storing it (memory O(S N n) per layer).
* ``"exact"`` — exact in law: given y^{l−1} (and the tangent), the rows of W^l B, B = [y^{l−1}, t-part], are i.i.d.
  N(0, σ_w² BᵀB/N_{l−1}), so W^l B = Z R with Z ~ N(0, 1)^{N_l×k}, RᵀR = σ_w² BᵀB/N_{l−1} (Cholesky), k = n
  (2n with tangents); b^l is drawn explicitly, so z^l has the kernel σ_w² YᵀY/N + σ_b² 11ᵀ. Cost O(S N_l k²) flops
  and S N_l k draws per layer — no N×N matrix is formed. Backward, W^l given W^l B is
  W^l B (BᵀB)⁺Bᵀ + (σ_w/√N_{l−1}) Z′(I − P_B), Z′ independent, so W^lᵀδ = B(BᵀB)⁺(W^l B)ᵀδ + (σ_w/√N_{l−1})
  (I − P_B) G with the rows of G ~ N(0, δᵀδ): exact in law for forward, tangents and gradients jointly, O(S N k²).

Randomness: member s of a run has its own ``torch.Generator`` seeded by its seed (weights, biases, masks, the exact
method's forward draws) and a second one seeded by ``derived_seed(seed, 1)`` (readout, tangent direction, the exact
method's tangent and backward draws); so member i of a batched run equals the solo run with seed i, and the forward
numbers do not depend on whether tangents or gradients were asked for. Only the draws loop over seeds; every
product is batched.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch

from theory import activation as _activation
from theory import validate
from theory.errors import DeepinitError

from .bn_meanfield import derived_seed
from .isometry_mlp import SimulationDiverged, default_device
from .threads import intra_op_threads

METHODS = ("dense", "exact")


@dataclass
class MLPRun:
    """One ensemble of finite-width networks (see the module docstring).

    Attributes
    ----------
    cov : ndarray [seeds, depth + 1, n, n]
        K^l_ab = z^l_a·z^l_b/N_l (l = 0: x_a·x_b/N₀).
    tangent_sq : ndarray [seeds, depth + 1, n] or None
        |t^l_a|²/N_l (l = 0: |u_a|²/N₀).
    grad_sq : ndarray [seeds, depth + 1, n] or None
        |δ^l_a|² = Σ_i (∂E/∂z^l_ia)² (l = 0: |∂E/∂x_a|²).
    config : dict
        What ran: activation, sigma_w2, sigma_b2, keep, width, widths (N₀..N_L), depth, n_inputs, method, dtype,
        device, seeds, tangent, backprop.

    Examples
    --------
    >>> from numerics import inputs_with_moments, simulate_mlp
    >>> run = simulate_mlp("tanh", 1.5, 0.05, 64, 3, inputs_with_moments(1.0, 0.5, 2, 64), seeds=2, device="cpu")
    >>> run.cov.shape, run.q.shape, run.tangent_sq is None, run.config["depth"]
    ((2, 4, 2, 2), (2, 4, 2), True, 3)
    """

    cov: np.ndarray
    tangent_sq: np.ndarray | None
    grad_sq: np.ndarray | None
    config: dict = field(default_factory=dict)

    @property
    def q(self) -> np.ndarray:
        """q^l_a = K^l_aa, [seeds, depth + 1, n]."""
        return np.diagonal(self.cov, axis1=-2, axis2=-1).copy()

    @property
    def c(self) -> np.ndarray:
        """Correlation matrices c^l_ab = K^l_ab/√(K^l_aa K^l_bb), [seeds, depth + 1, n, n]."""
        d = np.sqrt(self.q)
        return self.cov / (d[..., :, None] * d[..., None, :])

    def gradient_ratios(self) -> np.ndarray:
        """|δ^l|²/|δ^{l+1}|² for l = 1..depth − 1, [seeds, depth − 1, n]: ≈ χ₁/ρ (eq 16). These are sums over the
        units: per unit, E(δ^l)²/E(δ^{l+1})² = (|δ^l|²/N_l)/(|δ^{l+1}|²/N_{l+1}) ≈ (N_{l+1}/N_l) χ₁/ρ."""
        if self.grad_sq is None:
            raise DeepinitError("this run has no gradients: simulate_mlp(..., backprop=True)")
        return self.grad_sq[:, 1:-1] / self.grad_sq[:, 2:]

    def tangent_ratios(self) -> np.ndarray:
        """|t^{l+1}|²/|t^l|² (per unit) for l = 1..depth − 1, [seeds, depth − 1, n]: ≈ σ_w² E φ′(z^l)²/ρ."""
        if self.tangent_sq is None:
            raise DeepinitError("this run has no tangents: simulate_mlp(..., tangent=True)")
        return self.tangent_sq[:, 2:] / self.tangent_sq[:, 1:-1]


def inputs_with_moments(q: float, c: float, n: int, dim: int, seed: int = 0) -> np.ndarray:
    """n inputs (rows, dimension ``dim``) with x_a·x_a/dim = q and x_a·x_b/dim = q c exactly (random orientation).

    Parameters
    ----------
    q : float
        q⁰ > 0, the squared length per dimension.
    c : float
        c⁰, the correlation of every pair, −1/(n − 1) ≤ c ≤ 1.
    n : int
        The number of inputs.
    dim : int
        N₀ ≥ n, their dimension.
    seed : int
        The random seed of the orientation.

    Returns
    -------
    numpy.ndarray
        ``[n, dim]``, one input per row.

    Examples
    --------
    >>> X = inputs_with_moments(0.5, 0.3, 3, 50)
    >>> np.allclose(X @ X.T / 50, 0.5 * (0.7 * np.eye(3) + 0.3))
    True
    """
    n, dim = validate.integer(n, "n", 1), validate.integer(dim, "dim", 1)
    if dim < n:
        raise DeepinitError(f"dim = {dim} must be at least the number of inputs n = {n}")
    if not (q > 0 and -1.0 / max(n - 1, 1) <= c <= 1):
        raise DeepinitError(f"need q > 0 and −1/(n − 1) ≤ c ≤ 1 (got q = {q!r}, c = {c!r})")
    rng = np.random.default_rng(validate.seed(seed))
    Q, _ = np.linalg.qr(rng.standard_normal((dim, n)))
    G = dim * q * ((1 - c) * np.eye(n) + c * np.ones((n, n)))
    w, V = np.linalg.eigh(G)
    R = (V * np.sqrt(np.clip(w, 0, None))) @ V.T
    return (Q @ R).T


def _seed_list(seeds, seed) -> list[int]:
    if isinstance(seeds, (int, np.integer)) and not isinstance(seeds, bool):
        k = validate.integer(seeds, "seeds", 1)
        return [validate.seed(int(seed) + i) for i in range(k)]
    out = [validate.seed(s) for s in seeds]
    if not out:
        raise DeepinitError("seeds: give a count ≥ 1 or a non-empty list of seeds")
    return out


def _widths(width, depth) -> list[int]:
    if isinstance(width, (list, tuple, np.ndarray)):
        ws = [validate.integer(w, "width", 1) for w in width]
        if len(ws) != depth:
            raise DeepinitError(f"widths: one width per layer 1..{depth}, got {len(ws)}")
        return ws
    return [validate.integer(width, "width", 1)] * depth


def simulate_mlp(act, sigma_w2: float, sigma_b2: float, width, depth: int, inputs, seeds=1, keep: float = 1.0,
                 method: str = "dense", dtype=torch.float64, tangent: bool = False, backprop: bool = False, *,
                 tangent_direction=None, seed: int = 0, device: str | None = None) -> MLPRun:
    """Run ``seeds`` random networks on the same inputs and record q^l, c^l (and tangents, gradients).

    Parameters
    ----------
    act : Activation or str
        Anything :func:`theory.activation` accepts.
    sigma_w2, sigma_b2 : float
        Weight and bias variances (W_ij ~ N(0, σ_w²/N_{l−1}), b_i ~ N(0, σ_b²)).
    width : int or sequence of int
        N_l of the hidden layers 1..depth (one int: all equal).
    depth : int
        Number of layers L ≥ 1.
    inputs : array [n, N₀]
        The inputs, one per row (:func:`inputs_with_moments` makes some with given q⁰, c⁰).
    seeds : int or sequence of int
        A count k (seeds ``seed, …, seed + k − 1``) or the seeds themselves; one network per seed.
    keep : float
        Dropout keep probability ρ ∈ (0, 1] on the hidden post-activations y^1..y^{L−1}.
    method : {"dense", "exact"}
        See the module docstring (cost models).
    dtype : torch.dtype
        float64 (default) or float32.
    tangent : bool
        Record forward tangents along ``tangent_direction`` ([n, N₀]; default i.i.d. N(0, 1) per seed).
    backprop : bool
        Record |∂E/∂z^l|² of the random linear readout.
    tangent_direction : array [n, N₀], optional
        The direction of the forward tangents (keyword only).
    seed : int
        The first seed when ``seeds`` is a count (keyword only).
    device : str, optional
        ``"cpu"``, ``"cuda"`` or None/"auto".

    Returns
    -------
    MLPRun
        The covariances K^l (and tangents, gradients) per seed and layer.

    Examples
    --------
    >>> X = inputs_with_moments(1.0, 0.5, 2, 64)
    >>> run = simulate_mlp("tanh", 1.5, 0.05, 64, 3, X, seeds=2, method="exact", device="cpu")
    >>> run.cov.shape, run.config["method"], run.q[0, 0].round(12).tolist()
    ((2, 4, 2, 2), 'exact', [1.0, 1.0])
    """
    act = _activation(act)
    if method not in METHODS:
        raise DeepinitError(f"method must be one of {METHODS}, not {method!r}")
    sw, sb, rho = float(sigma_w2), float(sigma_b2), float(keep)
    if not (math.isfinite(sw) and sw > 0 and math.isfinite(sb) and sb >= 0 and 0 < rho <= 1):
        raise DeepinitError("need σ_w² > 0, σ_b² ≥ 0 finite and keep ∈ (0, 1]")
    depth = validate.integer(depth, "depth", 1)
    X = np.asarray(inputs, dtype=float)
    if X.ndim != 2 or not np.all(np.isfinite(X)):
        raise DeepinitError("inputs must be a finite array [n, N₀] (one input per row)")
    n, n0 = X.shape
    ws = _widths(width, depth)
    seed_list = _seed_list(seeds, seed)
    S, k = len(seed_list), (2 * n if tangent else n)
    item = 8 if dtype == torch.float64 else 4
    wmax = max(ws + [n0])
    per_layer = S * wmax * (wmax if method == "dense" else 1) + 4 * S * wmax * k
    validate.memory(item * (per_layer + (depth * 4 * S * wmax * k if backprop else 0)),
                    f"simulate_mlp (width {wmax}, {n} inputs, depth {depth}, {S} seeds, {method})")
    dev = default_device(device)
    U = None
    if tangent_direction is not None:
        U = np.asarray(tangent_direction, dtype=float)
        if U.shape != X.shape or not np.all(np.isfinite(U)):
            raise DeepinitError(f"tangent_direction must be a finite array of the inputs' shape {X.shape}")
    config = dict(activation=act.name, sigma_w2=sw, sigma_b2=sb, keep=rho, width=width if isinstance(width, int)
                  else list(ws), widths=[n0] + ws, depth=depth, n_inputs=n, method=method,
                  dtype=str(dtype).replace("torch.", ""), device=str(dev), seeds=list(seed_list),
                  tangent=bool(tangent), backprop=bool(backprop))
    gens = []
    for s in seed_list:
        g, a = torch.Generator(device=dev), torch.Generator(device=dev)
        g.manual_seed(s)
        a.manual_seed(derived_seed(s, 1))
        gens.append((g, a))
    with intra_op_threads(S * wmax * k * (wmax if method == "dense" else 1)):
        return _run(act, sw, sb, rho, ws, X, U, gens, method, dtype, dev, tangent, backprop, config)


def _fill(shape, gens, which: int, dtype, dev, scale: float = 1.0) -> torch.Tensor:
    """[S, *shape] standard normals, member s from its own generator (``which``: 0 forward, 1 auxiliary)."""
    out = torch.empty((len(gens), *shape), dtype=dtype, device=dev)
    for s, pair in enumerate(gens):
        out[s].normal_(generator=pair[which])
    return out * scale if scale != 1.0 else out


def _run(act, sw, sb, rho, ws, X, U, gens, method, dtype, dev, tangent, backprop, config) -> MLPRun:
    """The layer loop of :func:`simulate_mlp` (forward), then the backward pass."""
    S, (n, n0) = len(gens), X.shape
    phi, dphi = act.torch, (act.derivative(1).torch if (tangent or backprop) else None)
    Y = torch.as_tensor(X.T, dtype=dtype, device=dev).expand(S, n0, n).contiguous()
    if tangent:
        T = (torch.as_tensor(U.T, dtype=dtype, device=dev).expand(S, n0, n).contiguous() if U is not None
             else _fill((n0, n), gens, 1, dtype, dev))
    v = _fill((ws[-1],), gens, 1, dtype, dev) if backprop else None
    covs = [Y.transpose(1, 2) @ Y / n0]
    tans = [(T * T).sum(1) / n0] if tangent else None
    saved = []
    for ell, N in enumerate(ws, start=1):
        n_prev = Y.shape[1]
        B = torch.cat([Y, T], dim=2) if tangent else Y
        state = [g.get_state() for g, _ in gens] if (backprop and method == "dense") else None
        if method == "dense":
            W = _fill((N, n_prev), gens, 0, dtype, dev, math.sqrt(sw / n_prev))
            WB = torch.bmm(W, B)
            del W
        else:
            R = _r_factor(B) * math.sqrt(sw / n_prev)       # RᵀR = σ_w² BᵀB/N_{l−1}
            m = R.shape[1]
            Z = _fill((N, min(m, n)), gens, 0, dtype, dev)
            if m > n:                                     # the tangent columns: auxiliary generator
                Z = torch.cat([Z, _fill((N, m - n), gens, 1, dtype, dev)], dim=2)
            WB = torch.bmm(Z, R)
        b = _fill((N,), gens, 0, dtype, dev, math.sqrt(sb))
        z = WB[:, :, :n] + b[:, :, None]
        cov = z.transpose(1, 2) @ z / N
        if not bool(torch.isfinite(cov).all()):
            raise SimulationDiverged(ell, torch.stack(covs, 1), [])
        covs.append(cov)
        mask = None
        if rho < 1.0 and ell < len(ws):        # y^L feeds only the readout of z^L: no mask
            mask = torch.stack([torch.bernoulli(torch.full((N, n), rho, dtype=dtype, device=dev), generator=g)
                                for g, _ in gens]) / rho
        Y = phi(z) if mask is None else phi(z) * mask
        if tangent:
            t = WB[:, :, n:]
            tans.append((t * t).sum(1) / N)
            T = dphi(z) * t if mask is None else dphi(z) * t * mask
        if backprop:
            saved.append((z, mask, state, B if method == "exact" else None, WB if method == "exact" else None))
    grads = _backward(saved, v, gens, sw, method, dphi, n, ws, n0, dtype, dev) if backprop else None
    return MLPRun(torch.stack(covs, 1).cpu().numpy(), torch.stack(tans, 1).cpu().numpy() if tangent else None,
                  grads, config)


def _backward(saved, v, gens, sw, method, dphi, n, ws, n0, dtype, dev) -> np.ndarray:
    """|δ^l|² for l = depth..0 by the chain rule, weights regenerated (dense) or drawn conditionally (exact)."""
    widths = [n0] + ws
    delta = (v / math.sqrt(ws[-1]))[:, :, None].expand(-1, -1, n).contiguous()
    out = [None] * (len(ws) + 1)
    out[-1] = (delta * delta).sum(1)
    for ell in range(len(ws), 0, -1):
        z, mask, state, B, WB = saved[ell - 1]
        n_prev = widths[ell - 1]
        if method == "dense":
            W = torch.empty((len(gens), ws[ell - 1], n_prev), dtype=dtype, device=dev)
            for s, st in enumerate(state):
                g = torch.Generator(device=dev)
                g.set_state(st)
                W[s].normal_(generator=g)
            g_up = torch.bmm(W.transpose(1, 2), delta) * math.sqrt(sw / n_prev)
            del W
        else:
            g_up = _conditional_transpose(B, WB, delta, gens, sw, n_prev, dtype, dev)
        if ell > 1:
            zp, mp_ = saved[ell - 2][0], saved[ell - 2][1]
            delta = dphi(zp) * g_up if mp_ is None else dphi(zp) * g_up * mp_
        else:
            delta = g_up
        out[ell - 1] = (delta * delta).sum(1)
    return torch.stack(out, 1).cpu().numpy()


def _r_factor(B: torch.Tensor) -> torch.Tensor:
    """R with RᵀR = BᵀB from a Householder QR of B ([S, N, k] → [S, min(N, k), k]): upper triangular, so the first
    columns of Z R depend on the first columns of B only, and stable for rank-deficient B (a Cholesky or an
    eigendecomposition of BᵀB would amplify its rounding to √ε)."""
    return torch.linalg.qr(B, mode="r")[1]


def _conditional_transpose(B, WB, delta, gens, sw, n_prev, dtype, dev):
    """Wᵀδ for W ~ N(0, σ_w²/N_prev) given W B (exact method's backward; module docstring)."""
    solve = _gram_solver(_r_factor(B), B)
    known = B @ solve(WB.transpose(1, 2) @ delta)
    Rd = _r_factor(delta)                                  # rows of G = Z′ᵀδ ~ N(0, δᵀδ): G = Z Rd
    noise = torch.bmm(_fill((n_prev, Rd.shape[1]), gens, 1, dtype, dev), Rd)
    noise = noise - B @ solve(B.transpose(1, 2) @ noise)
    return known + math.sqrt(sw / n_prev) * noise


def _gram_solver(R, B):
    """X ↦ (BᵀB)⁺X given the QR factor R of B: two triangular solves where R is square and well conditioned (the
    same bits batched or alone), the pseudo-inverse of BᵀB for the members where it is not (collinear columns, or
    fewer units than columns)."""
    S, r, k = R.shape
    if r == k:
        d = torch.diagonal(R, dim1=-2, dim2=-1).abs()
        ok = d.min(-1).values > 1e-10 * d.max(-1).values
    else:
        ok = torch.zeros(S, dtype=torch.bool, device=R.device)
    bad = ~ok
    pinv = torch.linalg.pinv(B[bad].transpose(1, 2) @ B[bad], hermitian=True) if bool(bad.any()) else None
    Rok = R[ok]

    def solve(X):
        out = torch.empty_like(X)
        if Rok.shape[0]:
            Y = torch.linalg.solve_triangular(Rok.transpose(1, 2), X[ok], upper=False)
            out[ok] = torch.linalg.solve_triangular(Rok, Y, upper=True)
        if pinv is not None:
            out[bad] = pinv @ X[bad]
        return out
    return solve
