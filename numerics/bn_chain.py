"""The batch-normalised MLP chain of bn-finite-width (eq 2), batched over seeds.

    h_{ℓ+1} = W_ℓ σ(φ(h_ℓ)),  W_ℓ ~ N(0, 1/d)^{d×d},  φ = batch norm of each row (over the n samples),
    G_ℓ = (1/d) σ(φ(h_ℓ))ᵀ σ(φ(h_ℓ))          (eq 3).

* ``method="dense"``: explicit weight matrices — O(d² n) flops and d² normal draws per layer.
* ``method="exact"``: exact in distribution. Given h_ℓ, the rows of W_ℓ A (A = σ(φ(h_ℓ))) are i.i.d.
  N(0, AᵀA/d) = N(0, G_ℓ), so h_{ℓ+1} has the law of Z R with Z ~ N(0,1)^{d×n} and RᵀR = G_ℓ:
  O(d n²) per layer, never a d×d matrix.
* ``batchnorm=False``: the same chain without batch norm, h_{ℓ+1} = W_ℓ σ(h_ℓ), G_ℓ = σ(h_ℓ)ᵀσ(h_ℓ)/d (with σ = id
  the paper's Fig 1a contrast, G_ℓ = h_ℓᵀh_ℓ/d).
* ``paired_input``: a second batch through the *same* weights (Corollaries 2 and 4): both batches are
  simulated jointly (2n columns, batch norm applied to each batch separately).

Inputs: ``input_cov`` is the n×n covariance of the i.i.d. rows of h_0 (default: equicorrelated 0.5).
"""
from __future__ import annotations

import math

import numpy as np
import torch

from theory import activation as _activation
from theory import validate
from theory.errors import DeepinitError

from .isometry_mlp import SimulationDiverged, default_device
from .linalg import gram_factor, psd_sqrt
from .threads import intra_op_threads


class DegenerateBatchError(DeepinitError):
    """A row of h has zero variance over the batch: batch norm is undefined (no ε is added).

    Raised by :func:`simulate_bn_chain` (and the BN simulators) for duplicated or constant samples.

    Examples
    --------
    >>> import numpy as np
    >>> from numerics import DegenerateBatchError, simulate_bn_chain
    >>> try:
    ...     simulate_bn_chain("relu", 8, 4, 2, input=np.ones((8, 4)), device="cpu")
    ... except DegenerateBatchError as e:
    ...     print(str(e)[:47])
    a row of h has zero variance over the batch (du
    """


def _centring(m: int, blocks: int, dtype, device) -> torch.Tensor:
    """The block-diagonal centring matrix C (m×m): C h subtracts each block's mean over its n samples."""
    n = m // blocks
    return torch.block_diag(*[torch.eye(n, dtype=dtype, device=device) - 1.0 / n] * blocks)


def _normalise_centred(hc: torch.Tensor, blocks: int, out: torch.Tensor | None = None,
                       inv_sd: torch.Tensor | None = None) -> torch.Tensor:
    """φ of eq (2) for centred h: [S, m, d] (samples × features): each feature divided by its standard deviation
    over the n samples of its block. A feature of zero variance gives NaN, which the caller's finiteness check turns
    into :class:`DegenerateBatchError`. (Samples-major layout: the reduction over n is a sum of n contiguous rows,
    4–8× faster than a normalisation over a last dimension of size n.) ``out`` ([S, m, d]) and ``inv_sd``
    ([S, blocks, 1, d]): buffers to write into (the exact layer's :class:`_Workspace`); the same numbers either way."""
    S, m, d = hc.shape
    n = m // blocks
    hb = hc.view(S, blocks, n, d)
    if out is None:
        inv = (hb * hb).sum(dim=-2, keepdim=True).mul_(1.0 / n).rsqrt_()
        return (hb * inv).view(S, m, d)
    ob = out.view(S, blocks, n, d)
    torch.mul(hb, hb, out=ob)
    torch.sum(ob, dim=-2, keepdim=True, out=inv_sd)
    inv_sd.mul_(1.0 / n).rsqrt_()
    torch.mul(hb, inv_sd, out=ob)
    return out


def _check_rows_vary(h: torch.Tensor, blocks: int) -> None:
    """h: [S, m, d] (samples × features): no feature may be constant over a batch. (The centred sum of squares over
    the n contiguous sample rows: a strided ``var`` over that axis costs as much as a whole small layer.)"""
    S, m, d = h.shape
    hb = h.reshape(S, blocks, m // blocks, d)
    hc = hb - hb.mean(dim=-2, keepdim=True)
    if bool(((hc * hc).sum(dim=-2) <= 0).any()):
        raise DegenerateBatchError("a row of h has zero variance over the batch (duplicated or constant "
                                   "samples): batch norm φ(x) = (x − x̄)/sqrt(Var x) is undefined")


def simulate_bn_chain(act, width: int, batch_size: int, depth: int, seeds: int = 1, *, method: str = "exact",
                      device: str | None = None, input=None, input_cov=None, paired_input=None, layers=None,
                      batchnorm: bool = True, seed: int = 0, dtype=torch.float64):
    """Gram matrices G_ℓ (eq 3) for ``seeds`` independent networks: ``[seeds, len(layers), n, n]``.

    ``input``: the input batch h_0 itself, a ``width × n`` array (the same for every seed); or use
    ``input_cov`` (n×n) to draw h_0 with i.i.d. rows N(0, input_cov) per seed. With ``paired_input``
    (a second n×n input covariance) returns ``(G, G')`` for the two batches through the same network.
    ``layers`` defaults to 0..depth.

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    width : int
        d, the number of neurons.
    batch_size : int
        The batch size n.
    depth : int
        The number of layers.
    seeds : int
        The number of independent networks.
    method : {"exact", "dense"}
        Exact in distribution or explicit weight matrices.
    device : str, optional
        ``"cpu"``, ``"cuda"`` or ``None``/``"auto"``.
    input : array_like, optional
        h_0, ``width × n``.
    input_cov : array_like, optional
        n×n: h_0 with i.i.d. rows N(0, input_cov) per seed.
    paired_input : array_like, optional
        A second n×n input covariance: two batches through the same network.
    layers : sequence of int, optional
        The layers to return (default 0..depth).
    batchnorm : bool
        False: the same chain without batch norm (a control).
    seed : int
        The random seed.
    dtype : torch.dtype
        float64 (default) or float32.

    Returns
    -------
    torch.Tensor or tuple of torch.Tensor
        G_ℓ, ``[seeds, len(layers), n, n]``; ``(G, G')`` with ``paired_input``.

    Examples
    --------
    >>> from numerics import simulate_bn_chain
    >>> G = simulate_bn_chain("relu", 32, 4, 3, seeds=2, device="cpu")
    >>> tuple(G.shape), G.dtype
    ((2, 4, 4, 4), torch.float64)
    """
    act = _activation(act)
    if method not in ("exact", "dense"):
        raise ValueError("method must be 'exact' or 'dense'")
    width, n, depth, seeds = validate.simulation_sizes(width, batch_size, depth, seeds)
    if n < 2:
        raise DeepinitError("batch norm needs a batch of at least 2 samples")
    itemsize = 8 if dtype == torch.float64 else 4
    blocks_ = 2 if paired_input is not None else 1
    # cost model: a few [seeds, width, blocks·n] tensors per layer (exact); dense adds [seeds, width, width] weights
    validate.memory(itemsize * seeds * (4 * width * n * blocks_ + (width * width if method == "dense" else 0)),
                    f"simulate_bn_chain (width {width}, n {n}, {seeds} seeds, {method})")
    dev = default_device(device)
    covs = [np.asarray(input_cov if input_cov is not None else 0.5 * np.eye(n) + 0.5, dtype=float)]
    if paired_input is not None:
        covs.append(np.asarray(paired_input, dtype=float))
    for C in covs:
        if C.shape != (n, n) or not np.all(np.isfinite(C)):
            raise DeepinitError(f"an input covariance must be a finite {n}×{n} matrix")
    blocks = len(covs)
    layers = list(range(depth + 1)) if layers is None else sorted(set(int(l) for l in layers))
    gen = torch.Generator(device=dev)
    gen.manual_seed(validate.seed(seed))
    sigma = act.torch

    if input is not None:
        h0 = torch.as_tensor(np.asarray(input, dtype=float), dtype=dtype, device=dev)
        if h0.shape != (width, n) or not bool(torch.isfinite(h0).all()) or paired_input is not None:
            raise DeepinitError(f"input must be a finite {width}×{n} matrix (and cannot be combined with paired_input)")
        covs = [None]
        blocks = 1
        h = h0.expand(seeds, width, n).clone()
    else:
        h = None
    # h_0: rows i.i.d. N(0, C) for each batch (independent batches)
    with intra_op_threads(seeds * width * n * blocks):
        h = h if h is not None else torch.cat([torch.randn(seeds, width, n, generator=gen, dtype=dtype, device=dev)
                                               @ psd_sqrt(torch.as_tensor(C, dtype=dtype, device=dev)) for C in covs],
                                              dim=-1)
        h = h.transpose(-1, -2).contiguous()  # samples × features from here on
        if batchnorm:
            _check_rows_vary(h, blocks)
        out = _layers(h, sigma, blocks, depth, set(layers), method, gen, batchnorm)
    G = torch.stack(out, dim=1)
    if blocks == 1:
        return G
    return G[..., :n, :n], G[..., n:, n:]


#: exact layers run between two reads of the Cholesky status (one host synchronisation per block; on a GPU a read
#: per layer would stall the stream). A block whose status shows a failure is replayed from its checkpoint with a
#: read per layer; the numbers are the same for any block length (same draws, same factors).
CHECK_EVERY = 16
#: the largest block of normal draws made in one call (the draws of a :data:`CHECK_EVERY`-layer block when they fit)
DRAW_BLOCK_BYTES = 1 << 25


#: σ's in-place torch kernels (the same kernels as the out-of-place ones, so the same numbers): the exact layer then
#: applies σ to its work buffer instead of allocating a new tensor per layer
_IN_PLACE = {torch.relu: torch.relu_, torch.tanh: torch.tanh_, torch.sigmoid: torch.sigmoid_, torch.sin: torch.sin_}


class _Workspace:
    """The exact layer's buffers, allocated once per simulation and reused by every layer (per-layer allocations and
    first-touch page faults were ≈ 20% of the float32 chain at d = 1000, n = 10: docs/benchmarks.md)."""

    def __init__(self, h: torch.Tensor, blocks: int, depth: int, k: int):
        seeds, m, width = h.shape
        self.pre = torch.empty_like(h)                        # h², then φ(h) and σ(φ(h)) in place
        self.inv_sd = h.new_empty((seeds, blocks, 1, width))  # per feature and batch: 1/sd over the n samples
        self.h = torch.empty_like(h)   # h_{ℓ+1} = M Z (h_ℓ is not read once A_ℓ is formed)
        self.checkpoint = torch.empty_like(h)                 # h at the start of a block (for a replay)
        # the normal draws: a block's worth in one call when a layer's count is a multiple of 16 (torch's CPU normal_
        # fills in groups of 16, so the stream is then that of one call per layer — tested — and the numbers do not
        # depend on the block length); ``buffer.normal_`` draws the same numbers as ``torch.randn`` of its shape
        per_layer = h.numel()
        draws = min(k, depth)
        if not (draws > 1 and per_layer % 16 == 0 and draws * per_layer * h.element_size() <= DRAW_BLOCK_BYTES):
            draws = 1
        self.z = torch.empty((draws, seeds, m, width), dtype=h.dtype, device=h.device)
        self.unused = h.new_zeros(1, 1, 1)   # baddbmm's ignored input (beta = 0): G = A Aᵀ/d in one op


def _layers(h, sigma, blocks, depth, layers, method, gen, batchnorm, check_every: int | None = None):
    """The layer loop of :func:`simulate_bn_chain` on h: [S, m, d] (samples × features): the requested G_ℓ.

    Exact layer (cost model): one normal draw Z [S, m, d] — the bound — then h = M Z with M = C Rᵀ, R the Cholesky
    factor of G_ℓ and C the batch centring folded into it (one batched m×m by m×d product), each feature scaled
    by its inverse standard deviation (one squared sum over the n samples, one product), σ, and G_{ℓ+1} = A Aᵀ/d
    (one batched product); plus an m×m Cholesky. Per layer ≈ 5 passes over S·m·d numbers besides the draw, all into
    buffers allocated once (:class:`_Workspace`), no d×d matrix. The Cholesky status is read once per
    :data:`CHECK_EVERY` layers; a failure (a singular or non-finite G) replays the block with a read per layer, which
    falls back to the symmetric root or raises (a non-finite G is never returned)."""
    seeds, m, width = h.shape
    k = max(1, int(check_every or CHECK_EVERY)) if method == "exact" else 1
    centre = _centring(m, blocks, h.dtype, h.device).expand(seeds, m, m).contiguous() if batchnorm else None
    if batchnorm:
        h = torch.bmm(centre, h)
    ws = _Workspace(h, blocks, depth, k) if method == "exact" else None
    out = []
    ell = 0
    while ell <= depth:
        # checkpoint: the block [ell, ell + k) runs without reading the Cholesky status
        state, n_out = gen.get_state(), len(out)
        h0 = ws.checkpoint.copy_(h) if ws is not None else h
        h, ell_next, ok = _block(h, sigma, blocks, depth, layers, method, gen, batchnorm, centre, out, ell, k, ws,
                                 checked=False)
        if not ok:  # replay the block from its checkpoint, reading the status every layer
            gen.set_state(state)
            del out[n_out:]
            h, ell_next, _ = _block(h0.clone(), sigma, blocks, depth, layers, method, gen, batchnorm, centre, out,
                                    ell, k, ws, checked=True)
        ell = ell_next
    return out


def _exact_activations(h, sigma, blocks, batchnorm, ws):
    """A = σ(φ(h)) into ``ws.pre`` (φ: each feature over the n samples of its batch; h is centred)."""
    if not batchnorm:
        return sigma(h)
    pre = _normalise_centred(h, blocks, out=ws.pre, inv_sd=ws.inv_sd)
    in_place = _IN_PLACE.get(sigma)
    return in_place(pre) if in_place is not None else sigma(pre)


def _block(h, sigma, blocks, depth, layers, method, gen, batchnorm, centre, out, start, k, ws, checked):
    """Layers start … start + k − 1 (and G_depth). Unchecked: returns ok = False if some Cholesky failed."""
    seeds, m, width = h.shape
    exact = method == "exact"
    unused = ws.unused if exact else h.new_zeros(1, 1, 1)
    infos = []
    ell = start
    stop = min(start + k, depth + 1)
    n_draw = min(stop, depth) - start
    Zs = ws.z[:n_draw].normal_(generator=gen) if exact and ws.z.shape[0] > 1 and n_draw > 0 else None
    for ell in range(start, stop):
        if exact:
            A = _exact_activations(h, sigma, blocks, batchnorm, ws)
        else:
            A = sigma(_normalise_centred(h, blocks)) if batchnorm else sigma(h)
        G = torch.baddbmm(unused, A, A.transpose(-1, -2), beta=0.0, alpha=1.0 / width)
        M = None   # the lower factor: M Mᵀ = G
        if exact and ell < depth:
            if checked:
                R, finite = gram_factor(G)
                M = R.transpose(-1, -2)
            else:
                M, info = torch.linalg.cholesky_ex(G)
                infos.append(info)   # read once at the end of the block (no host sync per layer)
                finite = True
        else:
            finite = bool(torch.isfinite(G).all())
        if not finite:
            if batchnorm:
                _check_rows_vary(h, blocks)
            partial = torch.stack(out, dim=1) if out else G.new_empty((seeds, 0, m, m))
            bad = ~torch.isfinite(G).flatten(1).all(dim=1)
            raise SimulationDiverged(ell, partial, torch.nonzero(bad).flatten().tolist())
        if ell in layers:
            out.append(G)
        if ell == depth:
            return h, depth + 1, not infos or not bool(torch.stack(infos).any())
        if exact:
            if batchnorm:   # C M: the centring folded into the factor (one tiny batched product)
                M = torch.bmm(centre, M)
            Z = Zs[ell - start] if Zs is not None else ws.z[0].normal_(generator=gen)
            h = torch.bmm(M, Z, out=ws.h)
        else:
            W = torch.randn(seeds, width, width, generator=gen, dtype=h.dtype, device=h.device) / math.sqrt(width)
            h = A @ W.transpose(-1, -2)
            if batchnorm:
                h = torch.bmm(centre, h)
    return h, ell + 1, not infos or not bool(torch.stack(infos).any())


def bn_sphere_grams(act, batch_size: int, width: int, reps: int, *, whiten=None, seed: int = 0):
    """Gram matrices of i.i.d. batch-normalised rows (bn-finite-width Lemma 9's setting).

    Each of the ``width`` = d rows z_k is a batch-normalised Gaussian row: z = √n·P g/‖P g‖, g ~ N(0, I_n), P the
    centring — the law of BN(h) for h ~ N(0, Σ) with any BSB1 Σ (P Σ P ∝ P), uniform on the √n-sphere of 1^⊥.
    Returns ``G`` [reps, n, n], G = (1/d) Σ_k σ(z_k)σ(z_k)ᵀ for ``reps`` independent draws, and, when ``whiten`` (an
    n×n matrix W) is given, ``fourth`` [reps]: the mean over k of (σ(z_k)ᵀ W σ(z_k))² (with W = C⁻¹, E‖y‖⁴ of Lemma
    9's proof). Cost: reps·d·n normal draws (float64, numpy's PCG64 from ``seed``).

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    batch_size : int
        The batch size n.
    width : int
        d, the number of rows.
    reps : int
        The number of independent Gram matrices.
    whiten : array_like, optional
        W (n×n) for the fourth moments.
    seed : int
        The random seed.

    Returns
    -------
    tuple
        ``(G, fourth)``: G ``[reps, n, n]``; ``fourth`` ``[reps]``, or ``None`` without ``whiten``.

    Examples
    --------
    >>> from numerics import bn_sphere_grams
    >>> G, fourth = bn_sphere_grams("relu", 4, 16, 3)
    >>> G.shape, fourth is None
    ((3, 4, 4), True)
    """
    act = _activation(act)
    n = validate.integer(batch_size, "batch size", 2, 4096)
    d = validate.integer(width, "width", 1, 10 ** 7)
    reps = validate.integer(reps, "reps", 1, 10 ** 7)
    W = None if whiten is None else np.asarray(whiten, dtype=np.float64)
    if W is not None and (W.shape != (n, n) or not np.all(np.isfinite(W))):
        raise DeepinitError(f"whiten: a finite {n}×{n} matrix is needed")
    validate.memory(8 * 3 * min(reps, max(1, 2 ** 22 // (d * n))) * d * n, f"bn_sphere_grams (d {d}, n {n})")
    rng = np.random.default_rng(validate.seed(seed))
    G = np.empty((reps, n, n))
    fourth = np.empty(reps) if W is not None else None
    chunk = max(1, 2 ** 22 // (d * n))
    for start in range(0, reps, chunk):
        m = min(chunk, reps - start)
        g = rng.standard_normal((m, d, n))
        g -= g.mean(axis=2, keepdims=True)
        z = math.sqrt(n) * g / np.linalg.norm(g, axis=2, keepdims=True)
        s = act.numpy(z)
        G[start:start + m] = np.einsum("rki,rkj->rij", s, s) / d
        if W is not None:
            q = np.einsum("rki,ij,rkj->rk", s, W, s)
            fourth[start:start + m] = np.mean(q * q, axis=1)
    return G, fourth
