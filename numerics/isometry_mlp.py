"""Finite-width MLPs of the isometry paper (eq 1 and the variants of Section 6), batched over seeds.

Eq (1):  x^{ℓ+1} = LN(h_ℓ − h̄_ℓ)/√d,  h_ℓ = σ(W^ℓ x^ℓ),  W^ℓ ~ N(0,1)^{d×d},  LN(v) = v/sqrt(mean v²).

Variants (``variant=``):

* ``"layernorm"``             — eq (1): layer centering and layer normalisation;
* ``"meanfield-centering"``   — Fig 4:  x^{ℓ+1} = LN(a − c_0)/√d;
* ``"no-normalisation"``      — Fig 5:  x^{ℓ+1} = (a − c_0)/√d;
* ``"meanfield-normalisation"`` — Figs 6, 9: x^{ℓ+1} = (a − c_0)/sqrt(σ̄(1) d);
* ``"norm-then-activation"``  — Fig 8b: x^{ℓ+1} = σ(LN(h − h̄))/√d with h = W x (the other order);
* ``"xavier"``                — Fig B.3: x^{ℓ+1} = g·a/√d, a gain g (``gain=``, e.g. torch's
  ``calculate_gain``) and no centring — Xavier/Glorot initialisation W ~ N(0, g²/d) in this parametrisation.

Two simulators share one signature (``method=``):

* ``"dense"`` — explicit Gaussian weight matrices: O(d² n) flops and d² normal draws per layer;
* ``"exact"`` — exact in distribution: conditionally on the layer's input X (d×n), the rows of
  W X are i.i.d. N(0, XᵀX), so W X has the law of Z·R with Z ~ N(0,1)^{d×n} and RᵀR = XᵀX.
  The next layer only depends on X through its Gram matrix, so the whole chain is simulated in
  O(d n²) per layer without ever forming a d×d matrix.

Outputs are Gram matrices G^ℓ = X^ℓᵀX^ℓ (eq 2) as a tensor ``[seeds, layers, n, n]``;
:func:`run_isometry_mlp` returns them with the configuration the layer loop ran (:class:`IsometryMLPRun`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch

from theory import validate
from theory.errors import DeepinitError

from theory import activation as _activation
from theory.dual import float_moments, variance

from .linalg import gram_factor, psd_sqrt  # noqa: F401  (psd_sqrt: public here since 0.1)
from .threads import intra_op_threads

#: the networks :func:`simulate_isometry_mlp` simulates (``variant=``): eq (1) with layer norm and the variants of
#: Section 6 and Appendix B (see the module docstring)
VARIANTS = ("layernorm", "meanfield-centering", "no-normalisation", "meanfield-normalisation",
            "norm-then-activation", "xavier")


class SimulationDiverged(ArithmeticError):
    """The network's values overflowed or became non-finite; ``layer`` is the first bad layer and
    ``partial`` the Gram tensor [seeds, layers, n, n] of the requested layers before it.

    Raised by :func:`simulate_isometry_mlp`; ``seeds`` lists the seeds (batch indices) that diverged.

    Parameters
    ----------
    layer : int
        The first layer with non-finite values.
    partial : torch.Tensor
        The Gram matrices of the requested layers before ``layer``.
    seeds : list of int
        The seeds that diverged (empty: every seed).

    Examples
    --------
    >>> from numerics import SimulationDiverged, equicorrelated_gram, simulate_isometry_mlp
    >>> try:                                          # exp without normalisation overflows within a few layers
    ...     simulate_isometry_mlp("exp(x)", 16, equicorrelated_gram(3, 0.5), depth=200, variant="no-normalisation",
    ...                           device="cpu")
    ... except SimulationDiverged as e:
    ...     print(e.layer, tuple(e.partial.shape), e.seeds)
    3 (1, 3, 3, 3) [0]
    """

    def __init__(self, layer: int, partial: torch.Tensor, seeds: list[int]):
        which = f"seed(s) {seeds}" if seeds else "every seed"
        super().__init__(f"the simulation diverged (non-finite values) at layer {layer} for {which}")
        self.layer, self.partial, self.seeds = layer, partial, seeds


def default_device(device: str | None = None) -> torch.device:
    """The torch device of a simulation: CUDA when available for ``None``/``"auto"``, else the one named.

    Parameters
    ----------
    device : str, optional
        ``"cpu"``, ``"cuda"``, ``"cuda:1"``, …, or ``None``/``"auto"``.

    Returns
    -------
    torch.device
        The device; ``ValueError`` if CUDA is named but not available.

    Examples
    --------
    >>> from numerics import default_device
    >>> default_device("cpu")
    device(type='cpu')
    """
    if device in (None, "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda requested but no CUDA device is available")
    return torch.device(device)


def inputs_with_gram(G0: np.ndarray, width: int, generator: torch.Generator | None = None,
                     dtype=torch.float64, device="cpu") -> torch.Tensor:
    """An input batch X^0 (d×n) whose eq-(1) embedding x^0 = LN(x − x̄)/√d has Gram exactly G0.

    Columns are Q R with Q orthonormal and orthogonal to the all-ones vector (so centring is
    the identity) and RᵀR = G0 (G0 must have unit diagonal).

    Parameters
    ----------
    G0 : array_like
        The n×n Gram matrix, unit diagonal.
    width : int
        d > n.
    generator : torch.Generator, optional
        The random generator of Q (CPU).
    dtype : torch.dtype
        float64 (default) or float32.
    device : str or torch.device
        Where the result is put.

    Returns
    -------
    torch.Tensor
        X^0, d×n, with centred columns and X^0ᵀX^0 = G0.

    Examples
    --------
    >>> import torch
    >>> from numerics import equicorrelated_gram, inputs_with_gram
    >>> X = inputs_with_gram(equicorrelated_gram(3, 0.5), 8, torch.Generator().manual_seed(0))
    >>> tuple(X.shape), torch.allclose(X.T @ X, torch.tensor(equicorrelated_gram(3, 0.5)))
    ((8, 3), True)
    """
    return _inputs_with_gram_batch(G0, width, 1, generator, dtype)[0].to(device)


def _inputs_with_gram_batch(G0, width: int, seeds: int, generator, dtype) -> torch.Tensor:
    """``seeds`` independent :func:`inputs_with_gram` draws, [seeds, width, n]: the same per-seed random numbers
    (drawn one seed after another from ``generator``) and one batched QR instead of ``seeds`` tiny ones (each a
    thread-pool round trip inside the simulation's threaded region)."""
    G0 = np.asarray(G0, dtype=float)
    n = G0.shape[0]
    if width < n + 1:
        raise ValueError(f"width d = {width} must exceed the batch size n = {n}")
    g = torch.stack([torch.randn(width, n + 1, generator=generator, dtype=dtype, device="cpu") for _ in range(seeds)])
    g[:, :, 0] = 1.0
    q, _ = torch.linalg.qr(g)
    return q[:, :, 1:] @ torch.as_tensor(_psd_sqrt_np(G0), dtype=dtype)


def _psd_sqrt_np(G):
    w, v = np.linalg.eigh(G)
    return (v * np.sqrt(np.clip(w, 0, None))) @ v.T


def _layer_norm(a: torch.Tensor) -> torch.Tensor:
    # a: [S, d, n]; LN over the d features of each sample, then 1/√d so that ‖x‖ = 1
    d = a.shape[-2]
    ms = torch.mean(a * a, dim=-2, keepdim=True)
    return a / torch.sqrt(ms) / math.sqrt(d)


@dataclass
class IsometryMLPRun:
    """The Gram matrices of one ensemble of MLPs (:func:`run_isometry_mlp`) and the configuration that ran.

    Attributes
    ----------
    grams : torch.Tensor
        G^ℓ = X^ℓᵀX^ℓ (eq 2), ``[seeds, len(layers), n, n]``.
    config : dict
        What the layer loop ran: activation, variant, method, ``post`` (the map a ↦ x^{ℓ+1} applied to
        a = σ(h), in words), gain (the g of the xavier variant's g·a/√d, ``None`` for the other variants), c0 (the
        constant c_0 subtracted by the mean-field variants, else ``None``), scale (sqrt(σ̄(1)) of
        "meanfield-normalisation", else 1), widths (the width of each layer 1..depth as simulated), n, depth, seeds,
        layers, dtype, device, seed.

    Examples
    --------
    >>> from numerics import equicorrelated_gram, run_isometry_mlp
    >>> run = run_isometry_mlp("relu", 64, equicorrelated_gram(3, 0.5), depth=2, variant="xavier", gain=1.5,
    ...                        device="cpu")
    >>> tuple(run.grams.shape), run.config["gain"], run.config["widths"], run.config["post"]
    ((1, 3, 3, 3), 1.5, [64, 64], 'g·a/√d')
    """

    grams: torch.Tensor
    config: dict = field(default_factory=dict)

    def invariants(self) -> dict:
        """What these Gram matrices are exactly, whatever the random draws, each as (observed, bound): the bound is
        the rounding of the layer's sums (:data:`INVARIANT_ULPS` units in the last place times the width), so a
        formula off by a factor 1 ± 1/d fails here although every statistic of the claims is blind to it.

        * ``symmetric`` — max |G − Gᵀ| / max |G| (G = XᵀX);
        * ``positive semi-definite`` — −min eigenvalue / max |G|, clipped at 0;
        * ``unit diagonal`` (the variants that end in LN(·)/√d: ``layernorm``, ``meanfield-centering``) —
          max |G_ii − 1| at layers ≥ 1: every column of X^ℓ has norm 1;
        * ``widths as asked`` — the number of layers whose simulated width differs from the requested one.

        Examples
        --------
        >>> from numerics import equicorrelated_gram, run_isometry_mlp
        >>> inv = run_isometry_mlp("tanh", 64, equicorrelated_gram(3, 0.5), depth=3, device="cpu").invariants()
        >>> sorted(inv), all(observed <= bound for observed, bound in inv.values())
        (['positive semi-definite', 'symmetric', 'unit diagonal', 'widths as asked'], True)
        """
        G = self.grams.detach().to("cpu", torch.float64)
        c = self.config
        eps = float(torch.finfo(getattr(torch, c.get("dtype", "float64"))).eps)
        widths = c.get("widths") or []
        tol = INVARIANT_ULPS * eps * max(widths + [1])
        scale = float(G.abs().max()) or 1.0
        out = {"symmetric": (float((G - G.transpose(-1, -2)).abs().max()) / scale, tol)}
        sym = (G + G.transpose(-1, -2)) / 2
        out["positive semi-definite"] = (max(0.0, -float(torch.linalg.eigvalsh(sym).min())) / scale, tol)
        if c.get("variant") in ("layernorm", "meanfield-centering"):
            later = [k for k, ell in enumerate(c.get("layers", [])) if ell >= 1]
            diag = G[:, later].diagonal(dim1=-2, dim2=-1) if later else G.new_zeros(1) + 1
            out["unit diagonal"] = (float((diag - 1).abs().max()), tol)
        asked = c.get("asked_widths") or []
        out["widths as asked"] = (float(sum(int(a != w) for a, w in zip(asked, widths))
                                        + abs(len(asked) - len(widths))), 0.0)
        return out


#: the rounding allowance of :meth:`IsometryMLPRun.invariants`: this many units in the last place per unit of
#: width (a layer's Gram entry is a sum of d products; LN divides by a norm computed the same way)
INVARIANT_ULPS = 16


#: the map a = σ(h) ↦ x^{ℓ+1} of each variant, as recorded in :attr:`IsometryMLPRun.config` (``post``)
_POST = {"layernorm": "LN(a − ā)/√d", "meanfield-centering": "LN(a − c_0)/√d", "no-normalisation": "(a − c_0)/√d",
         "meanfield-normalisation": "(a − c_0)/sqrt(σ̄(1) d)", "norm-then-activation": "σ(LN(h − h̄))/√d",
         "xavier": "g·a/√d"}


def simulate_isometry_mlp(act, width: int, input_gram: np.ndarray, depth: int, seeds: int = 1,
                          *, variant: str = "layernorm", method: str = "exact", seed: int = 0,
                          device: str | None = None, dtype=torch.float64,
                          layers=None, gain: float = 1.0, widths=None) -> torch.Tensor:
    """Gram matrices G^ℓ of the MLP (eq 1 or a variant) for ``seeds`` independent networks.

    Returns a tensor ``[seeds, len(layers), n, n]`` (``layers`` defaults to 0..depth). ``widths``: the width of each
    layer 1..depth (variable-width MLPs, Fig B.4; ``method="exact"`` only), instead of one ``width``.
    Raises :class:`SimulationDiverged` (with the layers computed so far) if values overflow.

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    width : int
        d, the width of every layer.
    input_gram : array_like
        G^0, the n×n input Gram matrix (unit diagonal; :func:`equicorrelated_gram`, :func:`embedded_input_gram`).
    depth : int
        The number of layers.
    seeds : int
        The number of independent networks.
    variant : str
        One of :data:`VARIANTS` (the module docstring).
    method : {"exact", "dense"}
        Exact in distribution (O(d n²) per layer) or explicit weight matrices.
    seed : int
        The random seed.
    device : str, optional
        ``"cpu"``, ``"cuda"`` or ``None``/``"auto"`` (:func:`default_device`).
    dtype : torch.dtype
        float64 (default) or float32.
    layers : sequence of int, optional
        The layers to return (default 0..depth).
    gain : float
        The gain g of the ``"xavier"`` variant.
    widths : sequence of int, optional
        One width per layer 1..depth instead of ``width`` (``method="exact"``).

    Returns
    -------
    torch.Tensor
        G^ℓ, ``[seeds, len(layers), n, n]``.

    Examples
    --------
    >>> from numerics import equicorrelated_gram, simulate_isometry_mlp
    >>> G = simulate_isometry_mlp("tanh", 64, equicorrelated_gram(3, 0.5), depth=3, seeds=2, device="cpu")
    >>> tuple(G.shape), G.dtype
    ((2, 4, 3, 3), torch.float64)
    >>> [round(float(v), 12) for v in G[0, 3].diagonal()]        # layer normalisation: unit diagonal
    [1.0, 1.0, 1.0]
    """
    return run_isometry_mlp(act, width, input_gram, depth, seeds, variant=variant, method=method, seed=seed,
                            device=device, dtype=dtype, layers=layers, gain=gain, widths=widths).grams


def run_isometry_mlp(act, width: int, input_gram: np.ndarray, depth: int, seeds: int = 1,
                     *, variant: str = "layernorm", method: str = "exact", seed: int = 0,
                     device: str | None = None, dtype=torch.float64,
                     layers=None, gain: float = 1.0, widths=None) -> IsometryMLPRun:
    """:func:`simulate_isometry_mlp` with the configuration it ran: the Gram matrices and ``config``.

    The same networks, draws and Gram matrices as :func:`simulate_isometry_mlp` (which returns ``grams`` alone); the
    configuration is recorded by the layer loop (the widths it drew, the gain and constants it applied), so a caller
    can assert that what ran is what it asked for.

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    width : int
        d, the width of every layer.
    input_gram : array_like
        G^0, the n×n input Gram matrix (unit diagonal).
    depth : int
        The number of layers.
    seeds : int
        The number of independent networks.
    variant : str
        One of :data:`VARIANTS`.
    method : {"exact", "dense"}
        Exact in distribution or explicit weight matrices.
    seed : int
        The random seed.
    device : str, optional
        ``"cpu"``, ``"cuda"`` or ``None``/``"auto"``.
    dtype : torch.dtype
        float64 (default) or float32.
    layers : sequence of int, optional
        The layers to return (default 0..depth).
    gain : float
        The gain g of the ``"xavier"`` variant.
    widths : sequence of int, optional
        One width per layer 1..depth instead of ``width`` (``method="exact"``).

    Returns
    -------
    IsometryMLPRun
        ``grams`` ``[seeds, len(layers), n, n]`` and ``config``.

    Examples
    --------
    >>> from numerics import equicorrelated_gram, run_isometry_mlp
    >>> run = run_isometry_mlp("tanh", 32, equicorrelated_gram(3, 0.5), depth=2, widths=[16, 48], device="cpu")
    >>> run.config["variant"], run.config["widths"], run.config["gain"], run.config["dtype"]
    ('layernorm', [16, 48], None, 'float64')
    """
    act = _activation(act)
    if variant not in VARIANTS:
        raise DeepinitError(f"unknown variant {variant!r}; one of {', '.join(VARIANTS)}")
    if not (isinstance(gain, (int, float)) and math.isfinite(gain) and 0 < gain <= 1e3):
        raise DeepinitError(f"gain = {gain!r} must be a finite number in (0, 1e3]")
    if method not in ("exact", "dense"):
        raise DeepinitError("method must be 'exact' or 'dense'")
    G0 = validate.gram_matrix(input_gram, "input_gram", batched=False, tol=1e-8)
    n = G0.shape[0]
    if widths is not None:
        widths = [int(validate.simulation_sizes(w, n, depth, seeds)[0]) for w in widths]
        if len(widths) != depth:
            raise DeepinitError(f"widths: one width per layer 1..{depth}, got {len(widths)}")
        if method != "exact":
            raise DeepinitError("variable widths are simulated by method='exact' only")
        width = max(widths)
    width, n, depth, seeds = validate.simulation_sizes(width, n, depth, seeds)
    itemsize = 8 if dtype == torch.float64 else 4
    # cost model: exact holds a few [seeds, width, n] tensors; dense also [seeds, width, width] weights
    validate.memory(itemsize * seeds * (4 * width * n + (width * width if method == "dense" else 0)),
                    f"simulate_isometry_mlp (width {width}, n {n}, {seeds} seeds, {method})")
    dev = default_device(device)
    layers = list(range(depth + 1)) if layers is None else sorted(set(int(l) for l in layers))
    if layers and (layers[0] < 0 or layers[-1] > depth):
        raise ValueError("requested layers must lie in 0..depth")
    gen = torch.Generator(device=dev)
    gen.manual_seed(validate.seed(seed))
    cpu_gen = torch.Generator()
    cpu_gen.manual_seed(int(seed) + 7919)
    sigma = act.torch
    c0 = float_moments(act)[0]
    scale = math.sqrt(variance(act)) if variant == "meanfield-normalisation" else 1.0

    config = dict(activation=act.name, variant=variant, method=method, post=_POST[variant],
                  gain=float(gain) if variant == "xavier" else None,
                  c0=c0 if variant in ("meanfield-centering", "no-normalisation", "meanfield-normalisation") else None,
                  scale=scale, widths=[], asked_widths=list(widths) if widths is not None else [width] * depth,
                  n=n, depth=depth, seeds=seeds, layers=list(layers),
                  dtype=str(dtype).replace("torch.", ""), device=str(dev), seed=int(seed))
    with intra_op_threads(seeds * width * n * (width if method == "dense" else 1)):
        grams = _layers(act, sigma, G0, width, n, depth, seeds, layers, variant, method, gen, cpu_gen, c0, scale,
                        gain, widths, dtype, dev, config["widths"])
    return IsometryMLPRun(grams, config)


def _layers(act, sigma, G0, width, n, depth, seeds, layers, variant, method, gen, cpu_gen, c0, scale, gain,
            widths, dtype, dev, ran_widths: list):
    """The layer loop of :func:`run_isometry_mlp`; appends each layer's simulated width to ``ran_widths``."""
    G = torch.as_tensor(G0, dtype=dtype, device=dev).expand(seeds, n, n).clone()
    X = None
    if method == "dense":
        X = _inputs_with_gram_batch(G0, width, seeds, cpu_gen, dtype).to(dev)
    out = []
    if 0 in layers:
        out.append(G.clone())
    for ell in range(1, depth + 1):
        if method == "dense":
            W = torch.randn(seeds, width, width, generator=gen, dtype=dtype, device=dev)
            H = W @ X
        else:
            d_l = widths[ell - 1] if widths is not None else width
            Z = torch.randn(seeds, d_l, n, generator=gen, dtype=dtype, device=dev)
            H = torch.bmm(Z, gram_factor(G)[0])  # any RᵀR = G gives the law; Cholesky where it succeeds
        ran_widths.append(int(H.shape[-2]))
        if variant == "norm-then-activation":
            dl = H.shape[-2]
            Xn = sigma(_layer_norm(H - H.mean(dim=-2, keepdim=True)) * math.sqrt(dl)) / math.sqrt(dl)
        else:
            A = sigma(H)
            if variant == "layernorm":
                Xn = _layer_norm(A - A.mean(dim=-2, keepdim=True))
            elif variant == "meanfield-centering":
                Xn = _layer_norm(A - c0)
            elif variant == "xavier":
                Xn = gain * A / math.sqrt(A.shape[-2])
            else:  # no-normalisation, meanfield-normalisation
                Xn = (A - c0) / (scale * math.sqrt(A.shape[-2]))
        G = Xn.transpose(-1, -2) @ Xn
        bad = ~torch.isfinite(G).flatten(1).all(dim=1)
        if bool(bad.any()) or bool((G.diagonal(dim1=-2, dim2=-1) > 1e150).any()):
            bad = bad | (G.diagonal(dim1=-2, dim2=-1) > 1e150).any(dim=-1)
            partial = torch.stack(out, dim=1) if out else G.new_empty((seeds, 0, n, n))
            raise SimulationDiverged(ell, partial, torch.nonzero(bad).flatten().tolist())
        if method == "dense":
            X = Xn
        if ell in layers:
            out.append(G.clone())
    return torch.stack(out, dim=1)


def equicorrelated_gram(n: int, rho0: float) -> np.ndarray:
    """(1−ρ₀) I + ρ₀ 11ᵀ: the input Gram used by default (non-degenerate for −1/(n−1) < ρ₀ < 1).

    Parameters
    ----------
    n : int
        The batch size.
    rho0 : float
        ρ₀, the correlation of every pair.

    Returns
    -------
    numpy.ndarray
        The n×n matrix.

    Examples
    --------
    >>> from numerics import equicorrelated_gram
    >>> equicorrelated_gram(3, 0.5)
    array([[1. , 0.5, 0.5],
           [0.5, 1. , 0.5],
           [0.5, 0.5, 1. ]])
    """
    return (1 - rho0) * np.eye(n) + rho0 * np.ones((n, n))


def embedded_input_gram(samples) -> np.ndarray:
    """The Gram matrix G^0 of eq (1)'s first embedding x^0 = LN(x − x̄)/√d of real inputs (samples as rows, any
    feature count): each sample centred over its features and scaled to unit norm, then G^0 = X^0ᵀX^0 (unit
    diagonal). A constant sample (no variation over its features) has no embedding: a DeepinitError says which.

    Parameters
    ----------
    samples : array_like
        The inputs, one per row (at least 2 rows of at least 2 features).

    Returns
    -------
    numpy.ndarray
        G^0, n×n with unit diagonal.

    Examples
    --------
    >>> import numpy as np
    >>> from numerics import embedded_input_gram
    >>> G = embedded_input_gram([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [2.0, 2.0, 5.0]])
    >>> [round(float(G[0, 1]), 12), round(float(G[0, 2]), 6)]
    [-1.0, 0.866025]
    """
    X = np.asarray(samples, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 2:
        raise DeepinitError("embedded_input_gram: give at least 2 samples (rows) of at least 2 features")
    if not np.all(np.isfinite(X)):
        raise DeepinitError("embedded_input_gram: the samples contain NaN or infinite values")
    Xc = X - X.mean(axis=1, keepdims=True)
    norms = np.linalg.norm(Xc, axis=1)
    flat = np.nonzero(norms == 0)[0]
    if flat.size:
        raise DeepinitError(f"embedded_input_gram: sample(s) {flat.tolist()} are constant over their features")
    U = Xc / norms[:, None]
    G = U @ U.T
    np.fill_diagonal(G, 1.0)
    return G
