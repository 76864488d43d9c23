"""Training deep batch-normalised MLPs (bn-mean-field Figs 2–4): the experiments behind "16ξ is the maximal trainable
depth". CPU by default (a GPU when ``device="cuda"``); small per-layer work, so one intra-op thread.

Network (the paper's setting at initialisation): x → L × [Linear(no bias, W ~ N(0, 1/fan_in)) → BN → φ] →
Linear readout (N(0, 1/width), bias 0) → softmax cross-entropy. BN normalises each neuron over the batch (or over
sub-batches of ``sub_batch`` rows: Fig 2(b)), ε as given, trainable γ = 1, β = 0 at the start, running statistics
(momentum 0.1) for evaluation. Batches are drawn without replacement, reshuffled every epoch, from a seeded generator;
the weights come from the same seed, so a seed gives the same run.

:func:`train_bn_mlp` returns a :class:`TrainingRun`: test accuracy after ``steps`` steps, the loss curve, whether the
loss became non-finite (then the accuracy reported is the chance level and ``diverged`` says so), and for the first
``record_steps`` steps the per-layer norms of the weights, of ∂L/∂h^l (pre-activations) and of ∂L/∂W^l (Fig 3).
Cost: O(steps · depth · batch · width²) flops.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch

from theory import activation as _activation
from theory import validate
from theory.errors import DeepinitError

from .threads import intra_op_threads
from .datasets import Dataset, load_dataset

OPTIMIZERS = ("sgd", "rmsprop")


def _check_lr(lr) -> float:
    if not (isinstance(lr, (int, float)) and math.isfinite(lr) and 0 < lr <= 10):
        raise DeepinitError(f"learning rate {lr!r} must be in (0, 10]")
    return float(lr)


def _init_linears(gen: torch.Generator, fan_in: int, width: int, depth: int, classes: int):
    """``depth`` bias-free layers W ~ N(0, 1/fan_in) and a readout (N(0, 1/width), bias 0), drawn in that order from
    ``gen`` — the initialisation both trainers share (a seed gives the same weights)."""
    linears = torch.nn.ModuleList()
    for _ in range(depth):
        lin = torch.nn.Linear(fan_in, width, bias=False)
        with torch.no_grad():
            lin.weight.copy_(torch.randn(width, fan_in, generator=gen) / math.sqrt(fan_in))
        linears.append(lin)
        fan_in = width
    readout = torch.nn.Linear(width, classes)
    with torch.no_grad():
        readout.weight.copy_(torch.randn(classes, width, generator=gen) / math.sqrt(width))
        readout.bias.zero_()
    return linears, readout


class _SubBatchNorm(torch.nn.Module):
    """BN over the batch axis, or over consecutive sub-batches of ``sub_batch`` rows (each with its own statistics)."""

    def __init__(self, width: int, eps: float, sub_batch: int | None):
        super().__init__()
        self.eps, self.sub = eps, sub_batch
        self.weight = torch.nn.Parameter(torch.ones(width))
        self.bias = torch.nn.Parameter(torch.zeros(width))
        self.register_buffer("running_mean", torch.zeros(width))
        self.register_buffer("running_var", torch.ones(width))

    def forward(self, h):
        if self.sub is None or self.sub == h.shape[0] or not self.training:
            # one batch: torch's fused kernel (biased variance in the map, unbiased in the running variance, momentum
            # 0.1 — the same map and updates as the sub-batch branch below, in one operation and its backward)
            return torch.nn.functional.batch_norm(h, self.running_mean, self.running_var, self.weight, self.bias,
                                                  self.training, 0.1, self.eps)
        B, W = h.shape
        g = self.sub
        hg = h.reshape(B // g, g, W)
        mean = hg.mean(dim=1, keepdim=True)
        var = ((hg - mean) ** 2).mean(dim=1, keepdim=True)
        out = ((hg - mean) / torch.sqrt(var + self.eps)).reshape(B, W)
        with torch.no_grad():
            self.running_mean.mul_(0.9).add_(0.1 * mean.mean(dim=(0, 1)))
            self.running_var.mul_(0.9).add_(0.1 * var.mean(dim=(0, 1)) * g / (g - 1))
        return out * self.weight + self.bias


@dataclass
class TrainingRun:
    depth: int
    width: int
    batch_size: int
    steps: int
    optimizer: str
    lr: float
    seed: int
    test_accuracy: float
    loss: np.ndarray
    diverged: bool
    chance: float
    #: for the first ``record_steps`` steps, [step, layer] (layer 1 = next to the input), before each update
    weight_norm: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    preact_grad_norm: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    weight_grad_norm: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    #: at the steps ``record_at`` (before each update), [k, layer]: ‖∂L/∂W^l‖/‖W^l‖ and ‖∂L/∂γ^l‖/‖γ^l‖ (Fig A.2)
    record_at: tuple = ()
    relative_weight_grad: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    relative_gamma_grad: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))


def _bn_arguments(ds, depth, width, batch_size, steps, record_steps, record_at, optimizer, lr, eps, sub_batch):
    """The BN trainers' arguments validated (shared by :func:`train_bn_mlp` and the batched ensembles)."""
    depth = validate.integer(depth, "depth", 1, 2000)
    width = validate.integer(width, "width", 2, 8192)
    batch_size = validate.integer(batch_size, "batch size", 2, len(ds.x_train))
    steps = validate.integer(steps, "steps", 1, 10 ** 6)
    record_steps = validate.integer(record_steps, "record_steps", 0, steps)
    record_at = tuple(sorted(set(validate.integer(k, "record_at step", 0, steps - 1) for k in record_at)))
    if optimizer not in OPTIMIZERS:
        raise DeepinitError(f"optimizer {optimizer!r}: one of {', '.join(OPTIMIZERS)}")
    lr = _check_lr(lr)
    if not (math.isfinite(eps) and 0 <= eps <= 1e3):
        raise DeepinitError(f"BN ε = {eps!r} must be in [0, 1e3]")
    if sub_batch is not None:
        sub_batch = validate.integer(sub_batch, "sub_batch", 2, batch_size)
        if batch_size % sub_batch:
            raise DeepinitError(f"sub_batch {sub_batch} must divide the batch size {batch_size}")
    return depth, width, batch_size, steps, record_steps, record_at, lr, eps, sub_batch


def _check_dtype(dtype):
    if dtype not in (torch.float32, torch.float64):
        raise DeepinitError(f"dtype {dtype!r}: torch.float32 or torch.float64")
    return dtype


def train_bn_mlp(data, act, depth: int, width: int, batch_size: int, steps: int, *, lr: float,
                 optimizer: str = "sgd", eps: float = 1e-5, sub_batch: int | None = None, seed: int = 0,
                 record_steps: int = 0, record_at=(), device: str = "cpu", threads: int = 1,
                 dtype=torch.float32) -> TrainingRun:
    """Train one BN MLP (module docstring) and return its :class:`TrainingRun`. ``dtype``: the network's float type
    (float32 by default; float64 for reference runs — the initial weights are the same float32 draws either way).
    :func:`numerics.ensembles.train_bn_mlp_ensemble` trains many seeds of the same shape at once."""
    ds: Dataset = load_dataset(data)
    act = _activation(act)
    depth, width, batch_size, steps, record_steps, record_at, lr, eps, sub_batch = _bn_arguments(
        ds, depth, width, batch_size, steps, record_steps, record_at, optimizer, lr, eps, sub_batch)
    dtype = _check_dtype(dtype)
    validate.memory(4 * 6 * depth * batch_size * width + 4 * 3 * depth * width * width,
                    f"train_bn_mlp (depth {depth}, width {width}, batch {batch_size})")
    with intra_op_threads(threads=threads):
        return _train(ds, act, depth, width, batch_size, steps, lr, optimizer, eps, sub_batch, seed, record_steps,
                      device, record_at, dtype)


def _finite(tensors: list[torch.Tensor]) -> bool:
    """Every entry of every tensor finite. A finite sum of the tensors' sums proves it (an inf or NaN entry makes it
    inf or NaN) in one reduction per tensor and one synchronisation; only when that sum is not finite — a non-finite
    entry, or finite entries whose sum overflowed — are the entries themselves tested."""
    if bool(torch.isfinite(torch.stack([t.sum() for t in tensors]).sum())):
        return True
    return all(bool(torch.isfinite(t).all()) for t in tensors)


def _train(ds, act, depth, width, B, steps, lr, optimizer, eps, sub_batch, seed, record_steps, device, record_at=(),
           dtype=torch.float32):
    gen = torch.Generator()
    gen.manual_seed(validate.seed(seed))
    phi = act.torch
    linears, readout = _init_linears(gen, ds.features, width, depth, ds.classes)
    norms = torch.nn.ModuleList([_SubBatchNorm(width, eps, sub_batch) for _ in range(depth)])   # no random draws
    model = torch.nn.ModuleList([linears, norms, readout]).to(device=device, dtype=dtype)
    params = list(model.parameters())
    opt = torch.optim.SGD(params, lr=lr) if optimizer == "sgd" else torch.optim.RMSprop(params, lr=lr)
    xtr = torch.as_tensor(ds.x_train, device=device).to(dtype)
    ytr = torch.as_tensor(ds.y_train, device=device)
    n = len(xtr)
    order = torch.randperm(n, generator=gen)
    pos = 0
    losses = np.full(steps, np.nan)
    rec_w = np.zeros((record_steps, depth))
    rec_h = np.zeros((record_steps, depth))
    rec_gw = np.zeros((record_steps, depth))
    diverged = False
    at_index = {k: i for i, k in enumerate(record_at)}
    rel_w = np.full((len(record_at), depth), np.nan)
    rel_g = np.full((len(record_at), depth), np.nan)

    def forward(x, keep=None):
        for lin, bn in zip(linears, norms):
            h = lin(x)
            if keep is not None:
                h.retain_grad()
                keep.append(h)
            x = phi(bn(h))
        return readout(x)

    model.train()
    for step in range(steps):
        if pos + B > n:
            order, pos = torch.randperm(n, generator=gen), 0
        idx = order[pos:pos + B].to(device)
        pos += B
        keep = [] if step < record_steps else None
        loss = torch.nn.functional.cross_entropy(forward(xtr[idx], keep), ytr[idx])
        if not bool(torch.isfinite(loss)):
            diverged = True
            break
        opt.zero_grad(set_to_none=True)
        loss.backward()
        losses[step] = float(loss.detach())
        if keep is not None:
            for l, (lin, h) in enumerate(zip(linears, keep)):
                rec_w[step, l] = float(lin.weight.detach().norm())
                rec_h[step, l] = float(h.grad.norm())
                rec_gw[step, l] = float(lin.weight.grad.norm())
        if step in at_index:
            i = at_index[step]
            for l, (lin, bn) in enumerate(zip(linears, norms)):
                rel_w[i, l] = float(lin.weight.grad.norm() / lin.weight.detach().norm())
                rel_g[i, l] = float(bn.weight.grad.norm() / bn.weight.detach().norm())
        if not _finite([p.grad for p in params if p.grad is not None]):
            diverged = True
            break
        opt.step()
    chance = float(np.max(np.bincount(ds.y_test)) / len(ds.y_test))
    if diverged:
        acc = chance
    else:
        model.eval()
        with torch.no_grad():
            logits = forward(torch.as_tensor(ds.x_test, device=device).to(dtype))
            ok = torch.isfinite(logits).all(dim=1)
            pred = logits.argmax(dim=1).cpu().numpy()
            acc = float(np.mean((pred == ds.y_test) & ok.cpu().numpy()))
    return TrainingRun(depth, width, B, steps, optimizer, lr, seed, acc, losses, diverged, chance,
                       rec_w, rec_h, rec_gw, record_at, rel_w, rel_g)


# =============================================================================================
# The isometry paper's MLP (eq 1) trained with SGD: Fig 7, B.6, B.7
# =============================================================================================

class _CentreNorm(torch.nn.Module):
    """Eq (1)'s normalisation of a layer's activations: centre over the features of each sample and scale to unit
    root-mean-square (layer norm without the affine γ, β — the paper's theory); ``mode="none"`` leaves them as they are."""

    def __init__(self, mode: str):
        super().__init__()
        self.mode = mode

    def forward(self, a):
        if self.mode == "none":
            return a
        a = a - a.mean(dim=1, keepdim=True)
        return a * torch.rsqrt(torch.mean(a * a, dim=1, keepdim=True) + 1e-30)


@dataclass
class IsometryTrainingRun:
    """One SGD run of the eq-(1) MLP. ``train_loss[e]``: mean cross-entropy over the whole training set after epoch e
    (e = 0: at initialisation); ``gaps[e, l]``: the isometry gap −log 𝓘 of the probe batch's representation after layer
    l (l = 0: the embedded input, 1..depth: hidden layers), after epoch e."""
    activation: str
    depth: int
    width: int
    batch_size: int
    epochs: int
    lr: float
    seed: int
    train_loss: np.ndarray
    test_accuracy: float
    gaps: np.ndarray
    diverged: bool
    #: [e, l-1] for layers 1..depth: log 𝓘(G̃) − log 𝓘(G) − log(1 + Var(a)/ā²) for the layer norm of the centred
    #: activations (isometry Corollary 2: ≥ 0 for any weights); NaN without layer norm
    corollary2_margin: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    #: the number n of probe samples whose isometry is recorded
    probe_size: int = 0


def _gap_rows(reps: list[torch.Tensor]) -> np.ndarray:
    """−log 𝓘(G) of each representation (samples as rows): G = X Xᵀ, 𝓘 = det(G)^{1/n} / (tr G / n) (eq 3)."""
    out = np.empty(len(reps))
    for i, X in enumerate(reps):
        X = X.detach().to(torch.float64)
        n = X.shape[0]
        G = X @ X.T
        sign, logdet = torch.linalg.slogdet(G)
        tr = float(torch.trace(G))
        out[i] = (math.log(tr / n) - float(logdet) / n) if float(sign) > 0 and tr > 0 else math.inf
    return out


def _isometry_arguments(ds, depth, width, batch_size, epochs, lr, normalisation, probe):
    """The isometry trainers' arguments validated (shared by :func:`train_isometry_mlp` and the ensembles)."""
    depth = validate.integer(depth, "depth", 1, 500)
    width = validate.integer(width, "width", 2, 8192)
    batch_size = validate.integer(batch_size, "batch size", 1, len(ds.x_train))
    epochs = validate.integer(epochs, "epochs", 0, 10 ** 4)
    lr = _check_lr(lr)
    if normalisation not in ("layernorm", "none"):
        raise DeepinitError(f"normalisation {normalisation!r}: 'layernorm' (eq 1) or 'none'")
    if probe is None:
        probe = [int(np.nonzero(ds.y_train == k)[0][0]) for k in range(ds.classes) if np.any(ds.y_train == k)]
    probe = [validate.integer(i, "probe index", 0, len(ds.x_train) - 1) for i in probe]
    if len(probe) < 2 or len(probe) >= width:
        raise DeepinitError(f"probe: between 2 and width − 1 = {width - 1} samples, got {len(probe)}")
    return depth, width, batch_size, epochs, lr, probe


def train_isometry_mlp(data, act, depth: int, width: int, batch_size: int, epochs: int, *, lr: float,
                       seed: int = 0, probe=None, normalisation: str = "layernorm", device: str = "cpu",
                       threads: int = 1, dtype=torch.float32) -> IsometryTrainingRun:
    """Train the MLP of the isometry paper's eq (1) — x^{ℓ+1} = LN(σ(W^ℓ x^ℓ) − mean), W^ℓ ~ N(0, 1/fan_in) — with a
    linear readout and softmax cross-entropy, by plain SGD (batches without replacement, reshuffled every epoch from the
    seed). ``probe``: indices of training samples whose representations' isometry gaps are recorded after every epoch
    (default: the first training image of each class). ``normalisation="none"`` drops the centring and layer norm.
    ``dtype``: float32 (default) or float64 (the same float32 initial draws). Many seeds/activations of one shape at
    once: :func:`numerics.ensembles.train_isometry_mlp_ensemble`.
    Cost: O(epochs · N · depth · width²) flops for N training images."""
    ds: Dataset = load_dataset(data)
    act = _activation(act)
    depth, width, batch_size, epochs, lr, probe = _isometry_arguments(ds, depth, width, batch_size, epochs, lr,
                                                                      normalisation, probe)
    dtype = _check_dtype(dtype)
    validate.memory(8 * (3 * depth * width * width + 4 * len(ds.x_train) * width),
                    f"train_isometry_mlp (depth {depth}, width {width})")
    with intra_op_threads(threads=threads):
        return _train_isometry(ds, act, depth, width, batch_size, epochs, float(lr), int(seed), probe,
                               normalisation, device, dtype)


def _train_isometry(ds, act, depth, width, B, epochs, lr, seed, probe, normalisation, device, dtype=torch.float32):
    gen = torch.Generator()
    gen.manual_seed(validate.seed(seed))
    phi = act.torch
    norm = _CentreNorm(normalisation)
    linears, readout = _init_linears(gen, ds.features, width, depth, ds.classes)
    model = torch.nn.ModuleList([linears, readout]).to(device=device, dtype=dtype)
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    xtr = torch.as_tensor(ds.x_train, device=device).to(dtype)
    ytr = torch.as_tensor(ds.y_train, device=device)
    # the input embedding of eq (1): each sample centred over its features, unit RMS
    x_embed = _CentreNorm("layernorm")(xtr)
    probe_t = torch.as_tensor(probe, device=device)

    def forward(x, reps=None, centred=None):
        if reps is not None:
            reps.append(x)
        for lin in linears:
            a = phi(lin(x))
            if centred is not None:
                centred.append(a - a.mean(dim=1, keepdim=True))
            x = norm(a)
            if reps is not None:
                reps.append(x)
        return readout(x)

    def evaluate():
        with torch.no_grad():
            loss = float(torch.nn.functional.cross_entropy(forward(x_embed), ytr))
            reps, centred = [], []
            forward(x_embed[probe_t], reps, centred)
        gaps = _gap_rows(reps)
        if normalisation == "none":
            return loss, gaps, np.full(depth, np.nan)
        # Corollary 2: LN maps the centred activations (gaps of `centred`) to reps[1:]
        pre = _gap_rows(centred)
        factor = []
        for c in centred:
            a = torch.linalg.vector_norm(c.to(torch.float64), dim=1)
            factor.append(math.log1p(float(a.var(unbiased=False) / a.mean() ** 2)))
        # log 𝓘 = −gap, so log 𝓘(G̃) − log 𝓘(G) = pre − post
        with np.errstate(invalid="ignore"):   # a singular Gram (gap +∞) on both sides: no margin (NaN)
            return loss, gaps, (pre - gaps[1:]) - np.array(factor)

    n = len(xtr)
    losses = np.full(epochs + 1, np.nan)
    gaps = np.full((epochs + 1, depth + 1), np.nan)
    margin = np.full((epochs + 1, depth), np.nan)
    losses[0], gaps[0], margin[0] = evaluate()
    diverged = not math.isfinite(losses[0])
    for e in range(1, epochs + 1):
        if diverged:
            break
        order = torch.randperm(n, generator=gen).to(device)
        for pos in range(0, n - B + 1, B):
            idx = order[pos:pos + B]
            loss = torch.nn.functional.cross_entropy(forward(x_embed[idx]), ytr[idx])
            if not bool(torch.isfinite(loss)):
                diverged = True
                break
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        if not diverged:
            losses[e], gaps[e], margin[e] = evaluate()
            diverged = not math.isfinite(losses[e])
    with torch.no_grad():
        if diverged:
            acc = float(np.max(np.bincount(ds.y_test)) / len(ds.y_test))
        else:
            xte = _CentreNorm("layernorm")(torch.as_tensor(ds.x_test, device=device).to(dtype))
            pred = forward(xte).argmax(dim=1).cpu().numpy()
            acc = float(np.mean(pred == ds.y_test))
    return IsometryTrainingRun(act.name, depth, width, B, epochs, lr, seed, losses, acc, gaps, diverged, margin, len(probe))
