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
        if self.training:
            B, W = h.shape
            g = self.sub or B
            hg = h.reshape(B // g, g, W)
            mean = hg.mean(dim=1, keepdim=True)
            var = ((hg - mean) ** 2).mean(dim=1, keepdim=True)
            out = ((hg - mean) / torch.sqrt(var + self.eps)).reshape(B, W)
            with torch.no_grad():
                self.running_mean.mul_(0.9).add_(0.1 * mean.mean(dim=(0, 1)))
                self.running_var.mul_(0.9).add_(0.1 * var.mean(dim=(0, 1)) * g / max(g - 1, 1))
        else:
            out = (h - self.running_mean) / torch.sqrt(self.running_var + self.eps)
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


def train_bn_mlp(data, act, depth: int, width: int, batch_size: int, steps: int, *, lr: float,
                 optimizer: str = "sgd", eps: float = 1e-5, sub_batch: int | None = None, seed: int = 0,
                 record_steps: int = 0, device: str = "cpu", threads: int = 1) -> TrainingRun:
    """Train one BN MLP (module docstring) and return its :class:`TrainingRun`."""
    ds: Dataset = load_dataset(data)
    act = _activation(act)
    depth = validate.integer(depth, "depth", 1, 2000)
    width = validate.integer(width, "width", 2, 8192)
    batch_size = validate.integer(batch_size, "batch size", 2, len(ds.x_train))
    steps = validate.integer(steps, "steps", 1, 10 ** 6)
    record_steps = validate.integer(record_steps, "record_steps", 0, steps)
    if optimizer not in OPTIMIZERS:
        raise DeepinitError(f"optimizer {optimizer!r}: one of {', '.join(OPTIMIZERS)}")
    if not (isinstance(lr, (int, float)) and math.isfinite(lr) and 0 < lr <= 10):
        raise DeepinitError(f"learning rate {lr!r} must be in (0, 10]")
    if not (math.isfinite(eps) and 0 <= eps <= 1e3):
        raise DeepinitError(f"BN ε = {eps!r} must be in [0, 1e3]")
    if sub_batch is not None:
        sub_batch = validate.integer(sub_batch, "sub_batch", 2, batch_size)
        if batch_size % sub_batch:
            raise DeepinitError(f"sub_batch {sub_batch} must divide the batch size {batch_size}")
    validate.memory(4 * 6 * depth * batch_size * width + 4 * 3 * depth * width * width,
                    f"train_bn_mlp (depth {depth}, width {width}, batch {batch_size})")
    with intra_op_threads(threads=threads):
        return _train(ds, act, depth, width, batch_size, steps, lr, optimizer, eps, sub_batch, seed, record_steps,
                      device)


def _train(ds, act, depth, width, B, steps, lr, optimizer, eps, sub_batch, seed, record_steps, device):
    gen = torch.Generator()
    gen.manual_seed(validate.seed(seed))
    phi = act.torch
    linears, norms = torch.nn.ModuleList(), torch.nn.ModuleList()
    fan_in = ds.features
    for _ in range(depth):
        lin = torch.nn.Linear(fan_in, width, bias=False)
        with torch.no_grad():
            lin.weight.copy_(torch.randn(width, fan_in, generator=gen) / math.sqrt(fan_in))
        linears.append(lin)
        norms.append(_SubBatchNorm(width, eps, sub_batch))
        fan_in = width
    readout = torch.nn.Linear(width, ds.classes)
    with torch.no_grad():
        readout.weight.copy_(torch.randn(ds.classes, width, generator=gen) / math.sqrt(width))
        readout.bias.zero_()
    model = torch.nn.ModuleList([linears, norms, readout]).to(device)
    params = list(model.parameters())
    opt = torch.optim.SGD(params, lr=lr) if optimizer == "sgd" else torch.optim.RMSprop(params, lr=lr)
    xtr = torch.as_tensor(ds.x_train, device=device)
    ytr = torch.as_tensor(ds.y_train, device=device)
    n = len(xtr)
    order = torch.randperm(n, generator=gen)
    pos = 0
    losses = np.full(steps, np.nan)
    rec_w = np.zeros((record_steps, depth))
    rec_h = np.zeros((record_steps, depth))
    rec_gw = np.zeros((record_steps, depth))
    diverged = False

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
        if not all(bool(torch.isfinite(p.grad).all()) for p in params if p.grad is not None):
            diverged = True
            break
        opt.step()
    chance = float(np.max(np.bincount(ds.y_test)) / len(ds.y_test))
    if diverged:
        acc = chance
    else:
        model.eval()
        with torch.no_grad():
            logits = forward(torch.as_tensor(ds.x_test, device=device))
            ok = torch.isfinite(logits).all(dim=1)
            pred = logits.argmax(dim=1).cpu().numpy()
            acc = float(np.mean((pred == ds.y_test) & ok.cpu().numpy()))
    return TrainingRun(depth, width, B, steps, optimizer, lr, seed, acc, losses, diverged, chance,
                       rec_w, rec_h, rec_gw)
