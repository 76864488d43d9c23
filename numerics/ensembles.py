"""Batched training ensembles: E networks of the same shape trained as one computation (issue 29, item 1).

The training claims (bn-mean-field Figs 3 and A.2, isometry Figs 7, B.6 and B.7) train many small MLPs of the same
shape that differ only by their seed (and, for the isometry paper, by the activation). Trained one at a time
(:func:`numerics.training.train_bn_mlp`, :func:`numerics.training.train_isometry_mlp`), a width-128 network on the 8×8
digits spends most of its time in Python and in torch's per-operation dispatch, not in arithmetic. Here the E
members' weights are stacked ``[E, out, in]`` and every layer is one batched matrix product (``torch.baddbmm`` /
``torch.bmm``), batch norm / the isometry normalisation act per member, the loss is the sum of the members' losses
(so autograd gives each member exactly its own gradient: the members share no operation that mixes them), and the
optimiser step (plain SGD, or RMSProp as torch's with its defaults) is the solo step applied elementwise to the
stacked parameters.

**Each member keeps its own seed stream.** A member draws its initial weights and its minibatch orders from its own
``torch.Generator`` seeded exactly as the solo trainer seeds it, in the same order, so member i *is* the solo run with
``seeds[i]``: the same data in the same order from the same weights. What may differ is the floating-point reduction
order of the batched kernels. Measured with torch 2.13 on CPU (x86-64, one intra-op thread), and checked by
``tests/test_training.py`` on every recorded quantity:

* float32 (the trainers' dtype): the training itself is **bit for bit** the solo run's — the weights after every step,
  the losses, the test accuracies, ``diverged``, Fig 3's per-layer norms and Fig A.2's relative gradient norms are
  identical (the batched CPU kernels reduce each member in the solo order; the readout's weight gradient and the
  recorded losses are computed the way the solo ``nn.Linear`` / ``cross_entropy`` compute them, see
  :class:`_Readout` and :func:`_member_ce`). The isometry gaps and Corollary 2 margins are float64 Gram matrices of
  the probe batch's representations, which each member computes as its solo run does (2-D products in the solo
  weight layout: a product batched over the members reduces the probe's few rows in another order from width 256 on,
  1e-7 relative in float32 and 1e-6 in the gaps); measured identical at widths 128 and 256. Tolerance tested:
  :data:`RTOL_FLOAT32` = 1e-6 relative, with an absolute :data:`GAP_ATOL` = 1e-10 for the gaps and margins (a margin
  can be ~0);
* float64 (``dtype=torch.float64``; the solo trainers take the same argument): the batched float64 products round
  differently from the solo ones (1e-16), and training carries that along: at most 2e-15 relative with SGD over 60
  steps and 3e-8 with RMSProp over 40 steps (its 1/sqrt amplifies). Tolerance tested: :data:`RTOL_FLOAT64` = 1e-6.

On a GPU or with another BLAS the batched kernels may reduce in another order; then a member follows its solo run to
rounding at first, and a long (or chaotic, e.g. near divergence) trajectory may drift further.

:func:`member_difference` measures a member against its solo run, record by record. The training claims that use these
ensembles retrain one member alone and compare with it (their run-integrity rows, ``verify/integrity.py``), so
that a bug shared by every member — which no verdict could see otherwise — leaves them inconclusive.

A member whose loss or gradients become non-finite stops exactly where its solo run stops (the same step, the same
records up to it, ``diverged=True``, the chance-level accuracy): it is masked out of the loss and its updates, and it
cannot change the other members, since no batched operation mixes members. The ensemble stops when every member has.

Cost: the arithmetic of the E solo runs (O(E · steps · depth · batch · width²)), but one Python step and one set of
dispatches per layer for all E; ``benchmarks/bench_training.py`` measures the ratio against E sequential solo runs
(docs/benchmarks.md, "Batched training ensembles"). Intra-op threads: one by default, as the solo trainers (small
per-layer work, where torch's threads gain little and lose badly under contention; :mod:`numerics.threads`).
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch

from theory import validate
from theory.errors import DeepinitError

from . import training as _tr
from .threads import intra_op_threads

__all__ = ["train_bn_mlp_ensemble", "train_isometry_mlp_ensemble", "member_difference", "RTOL_FLOAT32", "RTOL_FLOAT64",
           "GAP_ATOL"]

#: the max relative difference between a member's recorded numbers and its solo run's that the tests allow (float32;
#: measured: 0 for the training records and for the isometry gaps and margins, at widths 128 and 256)
RTOL_FLOAT32 = 1e-6
#: the same for float64 networks (measured ≤ 3e-8)
RTOL_FLOAT64 = 1e-6
#: absolute allowance on the isometry gaps and Corollary 2 margins (float64 Grams; a margin can be ~0)
GAP_ATOL = 1e-10


def _members(act, seeds, name: str) -> tuple[list, list[int]]:
    """The members' activations (one per member; a single activation for all) and validated seeds."""
    if isinstance(seeds, (int, np.integer)) or not isinstance(seeds, Sequence) and not isinstance(seeds, np.ndarray):
        raise DeepinitError(f"{name}: seeds must be a sequence of integers (one per member), got {seeds!r}")
    seeds = [validate.seed(s) for s in seeds]
    if not seeds:
        raise DeepinitError(f"{name}: at least one seed (one member)")
    if isinstance(act, (list, tuple)):
        if len(act) != len(seeds):
            raise DeepinitError(f"{name}: {len(act)} activations for {len(seeds)} seeds (one per member, or one for "
                                "all)")
        acts = [_tr._activation(a) for a in act]
    else:
        acts = [_tr._activation(act)] * len(seeds)
    return acts, seeds


def _groups(acts) -> list[tuple[int, int, object]]:
    """Runs of consecutive members with the same activation (by name): (start, stop, torch callable)."""
    out, names = [], []
    for i, a in enumerate(acts):
        if out and names[-1] == a.name:
            out[-1] = (out[-1][0], i + 1, out[-1][2])
        else:
            out.append((i, i + 1, a.torch))
            names.append(a.name)
    return out


def _phi(h: torch.Tensor, groups) -> torch.Tensor:
    """Each member's activation applied to its slice of the stacked tensor ``h`` [E, ...]."""
    if len(groups) == 1:
        return groups[0][2](h)
    return torch.cat([fn(h[a:b]) for a, b, fn in groups], dim=0)


def _init_stacked(gens, fan_in: int, width: int, depth: int, classes: int, dtype, device):
    """Each member's weights drawn from its own generator exactly as :func:`numerics.training._init_linears` draws
    them (the same draws, in the same order), stacked: ``depth`` hidden weights stored transposed, [E, fan_in, width]
    (so that x @ Wᵀ is ``bmm(x, Wt)`` and the weight gradient xᵀg lands contiguous, as the solo run computes it, with
    no copy), the readout [E, C, width] and its bias [E, C] (zero)."""
    per = []
    for gen in gens:
        lins, read = _tr._init_linears(gen, fan_in, width, depth, classes)
        per.append([l.weight.detach() for l in lins] + [read.weight.detach()])
    hidden = [torch.stack([p[k].T for p in per]).to(device=device, dtype=dtype).contiguous().requires_grad_(True)
              for k in range(depth)]
    readout = torch.stack([p[depth] for p in per]).to(device=device, dtype=dtype).requires_grad_(True)
    bias = torch.zeros(len(gens), classes, device=device, dtype=dtype, requires_grad=True)
    return hidden, readout, bias


class _Readout(torch.autograd.Function):
    """Per member x @ wᵀ + b (x [E, B, in], w [E, C, in], b [E, C]) with the gradients torch computes for the solo
    ``nn.Linear`` — ∂w = gᵀx, not (xᵀg)ᵀ: for an output width like C = 10 the two gemm layouts round differently,
    and autograd's own backward of ``baddbmm`` takes the second (measured: 1 ulp per step, then a drift)."""

    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x, w)
        return torch.baddbmm(b.unsqueeze(1), x, w.transpose(1, 2))

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        gx = torch.bmm(g, w) if ctx.needs_input_grad[0] else None
        return gx, torch.bmm(g.transpose(1, 2), x), g.sum(dim=1)


def _linear(x: torch.Tensor, wt: torch.Tensor) -> torch.Tensor:
    """Per member x @ W with W stored transposed: x [E, B, in] (or [B, in], shared), wt [E, in, out] → [E, B, out]."""
    if x.dim() == 2:
        x = x.expand(wt.shape[0], *x.shape)
    return torch.bmm(x, wt)


def _readout(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Per member x @ wᵀ + b (w [E, C, in], b [E, C]) with the solo ``nn.Linear``'s gradients (:class:`_Readout`)."""
    return _Readout.apply(x, w, b)


def _w(wt: torch.Tensor) -> torch.Tensor:
    """A hidden weight (or its gradient) in the solo layout [E, out, in], contiguous: the records' norms then reduce
    in the solo order."""
    return wt.transpose(1, 2).contiguous()


def _member_ce(logits: torch.Tensor, y: torch.Tensor, *, grad: bool = True):
    """Each member's mean softmax cross-entropy: logits [E, B, C], y [E, B] (or [B], shared) → ([E] to backpropagate
    or None, [E] to record). The recorded values are torch's ``cross_entropy`` of each member's slice, bit for bit
    (its mean reduction sums in an order a batched mean does not reproduce: 1 ulp); the backpropagated ones are a
    batched mean, whose gradient (1/B per row) is the solo one exactly."""
    E, B, C = logits.shape
    if y.dim() == 1:
        y = y.expand(E, B)
    logp = torch.log_softmax(logits, dim=-1)
    train = None
    if grad:
        per = torch.nn.functional.nll_loss(logp.reshape(E * B, C), y.reshape(E * B), reduction="none")
        train = per.reshape(E, B).mean(dim=1)
    with torch.no_grad():
        logp = logp.detach()
        record = torch.stack([torch.nn.functional.nll_loss(logp[e], y[e]) for e in range(E)])
    return train, record


def _finite_members(tensors, live: np.ndarray) -> np.ndarray:
    """[E] bool: member e has only finite entries in every tensor (each [E, ...]; None skipped). A finite per-member
    sum proves its entries finite (an inf or NaN entry makes the sum inf or NaN); only where a live member's sum is
    not finite — a non-finite entry, or finite entries whose sum overflowed — are the entries themselves tested."""
    ts = [t for t in tensors if t is not None]
    ok = torch.isfinite(torch.stack([t.flatten(1).sum(dim=1) for t in ts])).all(dim=0).cpu().numpy()
    if (live & ~ok).any():
        ok = torch.stack([torch.isfinite(t).flatten(1).all(dim=1) for t in ts]).all(dim=0).cpu().numpy()
    return ok


def _frob(t: torch.Tensor) -> torch.Tensor:
    """Per-member Frobenius norm of [E, ...] → [E]."""
    return torch.linalg.vector_norm(t.flatten(1), dim=1)


# =============================================================================================
# bn-mean-field: the BN MLP of numerics.training.train_bn_mlp
# =============================================================================================

def train_bn_mlp_ensemble(data, act, depth: int, width: int, batch_size: int, steps: int, *, lr: float, seeds,
                          optimizer: str = "sgd", eps: float = 1e-5, sub_batch: int | None = None,
                          record_steps: int = 0, record_at=(), device: str = "cpu", dtype=torch.float32,
                          threads: int = 1) -> list:
    """Train E batch-normalised MLPs, one per seed, as one batched computation.

    Member i is :func:`numerics.training.train_bn_mlp` with ``seed=seeds[i]``. The network and protocol are bn-mean-field's (Yang et al., ICLR 2019, Section 4, Figs 2–4 and A.2): x → L ×
    [Linear (no bias, W ~ N(0, 1/fan_in)) → BN (per neuron over the batch or over sub-batches, ε, trainable γ, β,
    running statistics for evaluation) → φ] → linear readout → softmax cross-entropy, trained with SGD (or RMSProp)
    on minibatches drawn without replacement and reshuffled every epoch from each member's seed.

    Parameters
    ----------
    data : str or tuple
        A registered dataset (``"digits"``), a path to an ``.npz`` file, or an ``(x, y)`` pair
        (:func:`numerics.datasets.load_dataset`).
    act : str or sequence of str
        The activation φ, one for every member, or one per member (members with the same activation in consecutive
        positions share one elementwise call).
    depth, width, batch_size, steps : int
        The network's number of BN layers and their width, the minibatch size B and the number of optimiser steps.
    lr : float
        The learning rate, in (0, 10].
    seeds : sequence of int
        One seed per member (the ensemble size E = ``len(seeds)``).
    optimizer : {"sgd", "rmsprop"}
        Plain SGD (Figs 2–4) or torch's RMSProp with its defaults (Fig 2(c)).
    eps : float
        BN's ε.
    sub_batch : int, optional
        BN statistics over consecutive sub-batches of this many rows (Fig 2(b)); it must divide ``batch_size``.
    record_steps : int
        Record the per-layer ‖W^l‖, ‖∂L/∂h^l‖, ‖∂L/∂W^l‖ over the first this many steps (Fig 3).
    record_at : sequence of int
        Steps at which ‖∂L/∂W^l‖/‖W^l‖ and ‖∂L/∂γ^l‖/‖γ^l‖ are recorded (Fig A.2).
    device : str
        ``"cpu"`` or ``"cuda"``.
    dtype : torch.dtype
        ``torch.float32`` (the solo trainer's) or ``torch.float64``.
    threads : int
        Intra-op threads (one, as :func:`numerics.training.train_bn_mlp`).

    Returns
    -------
    list of TrainingRun
        One :class:`numerics.training.TrainingRun` per member, in the order of ``seeds``: the solo run's numbers up to
        floating-point reduction order (module docstring: bitwise equal in the tested settings, tolerance
        :data:`RTOL_FLOAT32`).

    See Also
    --------
    numerics.training.train_bn_mlp : One network (the member's solo run).

    Examples
    --------
    >>> from numerics.ensembles import train_bn_mlp_ensemble
    >>> from numerics.training import train_bn_mlp
    >>> runs = train_bn_mlp_ensemble("digits", "relu", 3, 16, 8, 5, lr=0.01, seeds=[0, 1])
    >>> [r.seed for r in runs], runs[0].loss.shape
    ([0, 1], (5,))
    >>> solo = train_bn_mlp("digits", "relu", 3, 16, 8, 5, lr=0.01, seed=1)
    >>> bool((runs[1].loss == solo.loss).all())      # float32 on CPU: bit for bit (module docstring)
    True
    """
    ds = _tr.load_dataset(data)
    acts, seeds = _members(act, seeds, "train_bn_mlp_ensemble")
    depth, width, batch_size, steps, record_steps, record_at, lr, eps, sub_batch = _tr._bn_arguments(
        ds, depth, width, batch_size, steps, record_steps, record_at, optimizer, lr, eps, sub_batch)
    if dtype not in (torch.float32, torch.float64):
        raise DeepinitError(f"dtype {dtype!r}: torch.float32 or torch.float64")
    E = len(seeds)
    validate.memory(E * (4 * 6 * depth * batch_size * width + 4 * 3 * depth * width * width),
                    f"train_bn_mlp_ensemble ({E} members, depth {depth}, width {width}, batch {batch_size})")
    with intra_op_threads(threads=threads):
        return _train_bn(ds, acts, depth, width, batch_size, steps, lr, optimizer, eps, sub_batch, seeds,
                         record_steps, device, record_at, dtype)


def _train_bn(ds, acts, depth, width, B, steps, lr, optimizer, eps, sub_batch, seeds, record_steps, device,
              record_at, dtype):
    E = len(seeds)
    gens = []
    for s in seeds:
        g = torch.Generator()
        g.manual_seed(s)
        gens.append(g)
    groups = _groups(acts)
    Ws, Wr, br = _init_stacked(gens, ds.features, width, depth, ds.classes, dtype, device)
    gammas = [torch.ones(E, width, device=device, dtype=dtype, requires_grad=True) for _ in range(depth)]
    betas = [torch.zeros(E, width, device=device, dtype=dtype, requires_grad=True) for _ in range(depth)]
    run_mean = [torch.zeros(E, width, device=device, dtype=dtype) for _ in range(depth)]
    run_var = [torch.ones(E, width, device=device, dtype=dtype) for _ in range(depth)]
    # the order torch.optim iterates the solo module's parameters: linears, BN (γ, β), readout (W, b)
    params = [*Ws, *[p for gb in zip(gammas, betas) for p in gb], Wr, br]
    square_avg = [torch.zeros_like(p) for p in params] if optimizer == "rmsprop" else None
    xtr = torch.as_tensor(ds.x_train, device=device).to(dtype)
    ytr = torch.as_tensor(ds.y_train, device=device)
    n = len(xtr)
    orders = [torch.randperm(n, generator=g) for g in gens]
    pos = 0
    g_sub = sub_batch or B

    losses = np.full((E, steps), np.nan)
    rec_w = np.zeros((E, record_steps, depth))
    rec_h = np.zeros((E, record_steps, depth))
    rec_gw = np.zeros((E, record_steps, depth))
    at_index = {k: i for i, k in enumerate(record_at)}
    rel_w = np.full((E, len(record_at), depth), np.nan)
    rel_g = np.full((E, len(record_at), depth), np.nan)
    active = np.ones(E, dtype=bool)

    def bn_train(h, l):
        if g_sub == B:   # the solo trainer's fused kernel, per channel in the solo order (bit for bit); each
            # (member, neuron) is one BN channel: running statistics, γ and β as [E·width] views
            out = torch.nn.functional.batch_norm(h.transpose(0, 1).reshape(B, E * width), run_mean[l].view(-1),
                                                 run_var[l].view(-1), gammas[l].view(-1), betas[l].view(-1),
                                                 True, 0.1, eps)
            return out.reshape(B, E, width).transpose(0, 1)
        hg = h.reshape(E, B // g_sub, g_sub, width)
        mean = hg.mean(dim=2, keepdim=True)
        var = ((hg - mean) ** 2).mean(dim=2, keepdim=True)
        out = ((hg - mean) / torch.sqrt(var + eps)).reshape(E, B, width)
        with torch.no_grad():
            run_mean[l].mul_(0.9).add_(0.1 * mean.mean(dim=(1, 2)))
            run_var[l].mul_(0.9).add_(0.1 * var.mean(dim=(1, 2)) * g_sub / max(g_sub - 1, 1))
        return out * gammas[l].unsqueeze(1) + betas[l].unsqueeze(1)

    def bn_eval(h, l):
        N = h.shape[1]
        out = torch.nn.functional.batch_norm(h.transpose(0, 1).reshape(N, E * width), run_mean[l].view(-1),
                                             run_var[l].view(-1), gammas[l].view(-1), betas[l].view(-1),
                                             False, 0.1, eps)
        return out.reshape(N, E, width).transpose(0, 1)

    def forward(x, train=True, keep=None):
        for l, W in enumerate(Ws):
            h = _linear(x, W)
            if keep is not None:
                h.retain_grad()
                keep.append(h)
            x = _phi(bn_train(h, l) if train else bn_eval(h, l), groups)
        return _readout(x, Wr, br)

    for step in range(steps):
        if pos + B > n:
            orders = [torch.randperm(n, generator=g) if a else o for g, o, a in zip(gens, orders, active)]
            pos = 0
        idx = torch.stack([o[pos:pos + B] for o in orders]).to(device)
        pos += B
        keep = [] if step < record_steps else None
        member_loss, recorded = _member_ce(forward(xtr[idx], keep=keep), ytr[idx])
        ok_loss = torch.isfinite(recorded).cpu().numpy()
        active &= ok_loss          # solo: a non-finite loss stops the run before this step's backward
        if not active.any():
            break
        mask = torch.as_tensor(active, device=device)
        for p in params:
            p.grad = None
        torch.where(mask, member_loss, torch.zeros_like(member_loss)).sum().backward()
        with torch.no_grad():
            vals = [recorded]
            if keep is not None:
                vals += [torch.stack([_frob(_w(W)) for W in Ws], 1), torch.stack([_frob(h.grad) for h in keep], 1),
                         torch.stack([_frob(_w(W.grad)) for W in Ws], 1)]
            if step in at_index:
                vals += [torch.stack([_frob(_w(W.grad)) / _frob(_w(W)) for W in Ws], 1),
                         torch.stack([_frob(gm.grad) / _frob(gm) for gm in gammas], 1)]
            vals = [v.double().cpu().numpy() for v in vals]
            finite = _finite_members([p.grad for p in params], active)
        live = np.nonzero(active)[0]
        losses[live, step] = vals[0][live]
        k = 1
        if keep is not None:
            rec_w[live, step], rec_h[live, step], rec_gw[live, step] = (vals[1][live], vals[2][live], vals[3][live])
            k = 4
        if step in at_index:
            i = at_index[step]
            rel_w[live, i], rel_g[live, i] = vals[k][live], vals[k + 1][live]
        active &= finite           # solo: non-finite gradients stop the run after this step's records
        if not active.any():
            break
        with torch.no_grad():
            if optimizer == "sgd":
                for p in params:
                    p.add_(p.grad, alpha=-lr)
            else:   # torch.optim.RMSprop's single-tensor step with its defaults (alpha 0.99, eps 1e-8)
                for p, sq in zip(params, square_avg):
                    sq.mul_(0.99).addcmul_(p.grad, p.grad, value=1 - 0.99)
                    p.addcdiv_(p.grad, sq.sqrt().add_(1e-8), value=-lr)
    chance = float(np.max(np.bincount(ds.y_test)) / len(ds.y_test))
    acc = np.full(E, chance)
    if active.any():
        with torch.no_grad():
            logits = forward(torch.as_tensor(ds.x_test, device=device).to(dtype), train=False)
            ok = torch.isfinite(logits).all(dim=2).cpu().numpy()
            pred = logits.argmax(dim=2).cpu().numpy()
        for e in np.nonzero(active)[0]:
            acc[e] = float(np.mean((pred[e] == ds.y_test) & ok[e]))
    return [_tr.TrainingRun(depth, width, B, steps, optimizer, lr, seeds[e], float(acc[e]), losses[e],
                            not bool(active[e]), chance, rec_w[e], rec_h[e], rec_gw[e], record_at, rel_w[e], rel_g[e])
            for e in range(E)]


# =============================================================================================
# isometry: the eq-(1) MLP of numerics.training.train_isometry_mlp
# =============================================================================================

def train_isometry_mlp_ensemble(data, act, depth: int, width: int, batch_size: int, epochs: int, *, lr: float,
                                seeds, probe=None, normalisation: str = "layernorm", device: str = "cpu",
                                dtype=torch.float32, threads: int = 1) -> list:
    """Train E MLPs of the isometry paper's eq (1), one per (activation, seed), as one batched computation.

    Member i is :func:`numerics.training.train_isometry_mlp` with ``act[i]`` (or ``act``) and ``seed=seeds[i]``. The
    protocol of the isometry paper's Section 7 and Appendix B.5 (Figs 7, B.6, B.7): x^{ℓ+1} = LN(σ(W^ℓ x^ℓ) −
    mean), W^ℓ ~ N(0, 1/fan_in), a linear readout and softmax cross-entropy, plain SGD on batches without
    replacement reshuffled every epoch from each member's seed; after every epoch the training loss and the isometry
    gaps −log 𝓘 (eq 3) of the probe batch at every layer, and Corollary 2's margin at every layer norm.

    Parameters
    ----------
    data : str or tuple
        A registered dataset (``"digits"``), a path to an ``.npz`` file, or an ``(x, y)`` pair.
    act : str or sequence of str
        The activation σ, one for every member or one per member (e.g. the claims' 9 activations × seeds: members
        with the same activation in consecutive positions share one elementwise call).
    depth, width, batch_size, epochs : int
        Hidden layers, their width, the minibatch size and the number of epochs.
    lr : float
        The SGD learning rate, in (0, 10].
    seeds : sequence of int
        One seed per member (E = ``len(seeds)``).
    probe : sequence of int, optional
        Indices of the training samples whose isometry gaps are recorded (default: the first image of each class).
    normalisation : {"layernorm", "none"}
        Eq (1)'s centring and layer norm, or none.
    device : str
        ``"cpu"`` or ``"cuda"``.
    dtype : torch.dtype
        ``torch.float32`` (the solo trainer's) or ``torch.float64``.
    threads : int
        Intra-op threads (one, as :func:`numerics.training.train_isometry_mlp`).

    Returns
    -------
    list of IsometryTrainingRun
        One :class:`numerics.training.IsometryTrainingRun` per member, in the order of ``seeds``: the solo run's
        numbers up to floating-point reduction order (tolerance :data:`RTOL_FLOAT32`).

    See Also
    --------
    numerics.training.train_isometry_mlp : One network (the member's solo run).

    Examples
    --------
    >>> from numerics.ensembles import train_isometry_mlp_ensemble
    >>> from numerics.training import train_isometry_mlp
    >>> runs = train_isometry_mlp_ensemble("digits", ["relu", "tanh"], 3, 16, 64, 1, lr=0.01, seeds=[0, 0])
    >>> [(r.activation, r.seed) for r in runs], runs[0].gaps.shape
    ([('relu', 0), ('tanh', 0)], (2, 4))
    >>> solo = train_isometry_mlp("digits", "tanh", 3, 16, 64, 1, lr=0.01, seed=0)
    >>> bool((runs[1].train_loss == solo.train_loss).all())
    True
    """
    ds = _tr.load_dataset(data)
    acts, seeds = _members(act, seeds, "train_isometry_mlp_ensemble")
    depth, width, batch_size, epochs, lr, probe = _tr._isometry_arguments(ds, depth, width, batch_size, epochs, lr,
                                                                          normalisation, probe)
    if dtype not in (torch.float32, torch.float64):
        raise DeepinitError(f"dtype {dtype!r}: torch.float32 or torch.float64")
    E = len(seeds)
    validate.memory(E * 8 * (3 * depth * width * width + 4 * len(ds.x_train) * width),
                    f"train_isometry_mlp_ensemble ({E} members, depth {depth}, width {width})")
    with intra_op_threads(threads=threads):
        return _train_isometry(ds, acts, depth, width, batch_size, epochs, float(lr), seeds, probe, normalisation,
                               device, dtype)


def _gap_rows(reps: list[torch.Tensor]) -> np.ndarray:
    """[E, len(reps)]: −log 𝓘(G) of each member's representations (as :func:`numerics.training._gap_rows`), each
    representation [E, n, w] a batch of E Gram matrices."""
    E, n = reps[0].shape[:2]
    out = np.empty((E, len(reps)))
    for i, r in enumerate(reps):
        X = r.detach().to(torch.float64)
        G = X @ X.transpose(-1, -2)
        sign, logdet = torch.linalg.slogdet(G)
        tr = torch.diagonal(G, dim1=-2, dim2=-1).sum(-1)
        for e, (sg, ld, t) in enumerate(zip(sign.tolist(), logdet.tolist(), tr.tolist())):
            out[e, i] = (math.log(t / n) - ld / n) if sg > 0 and t > 0 else math.inf
    return out


def _centre(a: torch.Tensor) -> torch.Tensor:
    a = a - a.mean(dim=-1, keepdim=True)
    return a * torch.rsqrt(torch.mean(a * a, dim=-1, keepdim=True) + 1e-30)


def _train_isometry(ds, acts, depth, width, B, epochs, lr, seeds, probe, normalisation, device, dtype):
    E = len(seeds)
    gens = []
    for s in seeds:
        g = torch.Generator()
        g.manual_seed(s)
        gens.append(g)
    groups = _groups(acts)
    Ws, Wr, br = _init_stacked(gens, ds.features, width, depth, ds.classes, dtype, device)
    params = [*Ws, Wr, br]
    xtr = torch.as_tensor(ds.x_train, device=device).to(dtype)
    ytr = torch.as_tensor(ds.y_train, device=device)
    x_embed = _centre(xtr)
    probe_t = torch.as_tensor(probe, device=device)
    norm = _centre if normalisation == "layernorm" else (lambda a: a)

    def forward(x, lo=0, hi=E):
        """Members lo..hi−1 (all by default) on x ([B, in] shared or [hi − lo, B, in]); the probe's representations
        come from probe_forward."""
        grp = groups if (lo, hi) == (0, E) else _groups(acts[lo:hi])
        for W in Ws:
            x = norm(_phi(_linear(x, W[lo:hi]), grp))
        return _readout(x, Wr[lo:hi], br[lo:hi])

    # the evaluation over all N training images: members in chunks of about 2^18 numbers per layer, so that a layer's
    # activations stay in cache (all E at once is slower than E solo runs at width 256, measured)
    chunk = max(1, (1 << 18) // (len(xtr) * width))

    def probe_forward():
        """The probe batch's representations and centred activations, [E, n, w] per layer, each member's computed as
        its solo run computes them: 2-D products with the weight in the solo layout [out, in] (``nn.Linear``'s
        kernel), its activation, the 2-D centring. A batched product over the members reduces the probe's few rows in
        another order from width 256 on (1e-7 relative in float32, 1e-6 in the gaps)."""
        x0 = x_embed[probe_t]
        per = []
        for e in range(E):
            x, reps, centred = x0, [x0], []
            phi = acts[e].torch
            for W in Ws:
                a = phi(torch.nn.functional.linear(x, _w(W[e:e + 1])[0]))
                centred.append(a - a.mean(dim=1, keepdim=True))
                x = norm(a)
                reps.append(x)
            per.append((reps, centred))
        return ([torch.stack([p[0][i] for p in per]) for i in range(depth + 1)],
                [torch.stack([p[1][i] for p in per]) for i in range(depth)])

    def evaluate():
        with torch.no_grad():
            loss = np.concatenate([_member_ce(forward(x_embed, lo=lo, hi=min(lo + chunk, E)), ytr, grad=False)[1]
                                   .double().cpu().numpy() for lo in range(0, E, chunk)])
            reps, centred = probe_forward()
        gaps = _gap_rows(reps)
        if normalisation == "none":
            return loss, gaps, np.full((E, depth), np.nan)
        pre = _gap_rows(centred)
        with torch.no_grad():
            a = torch.linalg.vector_norm(torch.stack(centred, 1).to(torch.float64), dim=-1)   # [E, depth, n]
            ratio = (a.var(dim=-1, unbiased=False) / a.mean(dim=-1) ** 2).cpu().numpy()
        factor = np.vectorize(math.log1p, otypes=[float])(ratio)
        with np.errstate(invalid="ignore"):
            return loss, gaps, (pre - gaps[:, 1:]) - factor

    n = len(xtr)
    losses = np.full((E, epochs + 1), np.nan)
    gaps = np.full((E, epochs + 1, depth + 1), np.nan)
    margin = np.full((E, epochs + 1, depth), np.nan)
    l0, g0, m0 = evaluate()
    losses[:, 0], gaps[:, 0], margin[:, 0] = l0, g0, m0
    active = np.isfinite(l0)
    for e in range(1, epochs + 1):
        if not active.any():
            break
        orders = [torch.randperm(n, generator=g) if a else torch.arange(n) for g, a in zip(gens, active)]
        order = torch.stack(orders).to(device)
        alive = active.copy()          # members that finish this epoch's steps (solo: break on a non-finite loss)
        for pos in range(0, n - B + 1, B):
            idx = order[:, pos:pos + B]
            member_loss, recorded = _member_ce(forward(x_embed[idx]), ytr[idx])
            alive &= torch.isfinite(recorded).cpu().numpy()
            if not alive.any():
                break
            mask = torch.as_tensor(alive, device=device)
            for p in params:
                p.grad = None
            torch.where(mask, member_loss, torch.zeros_like(member_loss)).sum().backward()
            with torch.no_grad():
                for p in params:
                    p.add_(p.grad, alpha=-lr)
        if alive.any():
            le, ge, me = evaluate()
            live = np.nonzero(alive)[0]
            losses[live, e], gaps[live, e], margin[live, e] = le[live], ge[live], me[live]
            alive &= np.isfinite(le)
        active = alive
    acc = np.full(E, float(np.max(np.bincount(ds.y_test)) / len(ds.y_test)))
    if active.any():
        with torch.no_grad():
            xte = _centre(torch.as_tensor(ds.x_test, device=device).to(dtype))
            pred = np.concatenate([forward(xte, lo=lo, hi=min(lo + chunk, E)).argmax(dim=2).cpu().numpy()
                                   for lo in range(0, E, chunk)])
        for e in np.nonzero(active)[0]:
            acc[e] = float(np.mean(pred[e] == ds.y_test))
    return [_tr.IsometryTrainingRun(acts[e].name, depth, width, B, epochs, lr, seeds[e], losses[e], float(acc[e]),
                                    gaps[e], not bool(active[e]), margin[e], len(probe)) for e in range(E)]


# =============================================================================================
# A member against its solo run (the training claims' run-integrity rows, and the tests)
# =============================================================================================

#: per run type: the settings and outcomes that must be equal, and the recorded numbers compared within the tolerance
_SETTINGS = {
    "TrainingRun": ("depth", "width", "batch_size", "steps", "optimizer", "lr", "seed", "record_at", "diverged",
                    "chance"),
    "IsometryTrainingRun": ("activation", "depth", "width", "batch_size", "epochs", "lr", "seed", "probe_size",
                            "diverged"),
}
_RECORDS = {
    "TrainingRun": ("loss", "weight_norm", "preact_grad_norm", "weight_grad_norm", "relative_weight_grad",
                    "relative_gamma_grad", "test_accuracy"),
    "IsometryTrainingRun": ("train_loss", "gaps", "corollary2_margin", "test_accuracy"),
}
#: records whose entries can be ~0 (a margin, a gap near isometry): compared with the absolute allowance GAP_ATOL
_ATOL_RECORDS = ("gaps", "corollary2_margin")


def _relative_excess(a, b, atol: float) -> float:
    """max over entries of max(|a − b| − atol, 0)/|b|; ∞ when the shapes or the places of NaN and ±∞ differ."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or not (np.array_equal(np.isnan(a), np.isnan(b))
                                  and np.array_equal(np.where(np.isinf(a), a, 0), np.where(np.isinf(b), b, 0))):
        return math.inf
    m = np.isfinite(a)
    if not m.any():
        return 0.0
    excess = np.maximum(np.abs(a[m] - b[m]) - atol, 0.0)
    return float(np.max(excess / np.maximum(np.abs(b[m]), 1e-300)))


def member_difference(member, solo) -> dict:
    """How far an ensemble member's numbers are from its solo run's, record by record.

    The batched trainers promise that member i is the solo run with ``seeds[i]`` up to floating-point reduction
    order (module docstring: bit for bit with float32 on CPU, tolerance :data:`RTOL_FLOAT32`); this measures it.
    Each setting and outcome (seed, sizes, learning rate, ``diverged``, …) counts 0 when equal and ∞ otherwise; each
    recorded array or number counts its largest relative difference max(|a − b| − atol, 0)/|b| over its entries, with
    atol = :data:`GAP_ATOL` for the isometry gaps and Corollary 2 margins (which can be ~0) and 0 otherwise, and ∞
    when a NaN or an infinity sits at a different place (a run that stopped at another step).

    Parameters
    ----------
    member : TrainingRun or IsometryTrainingRun
        A run returned by :func:`train_bn_mlp_ensemble` or :func:`train_isometry_mlp_ensemble`.
    solo : TrainingRun or IsometryTrainingRun
        The same network trained alone (:func:`numerics.training.train_bn_mlp` or
        :func:`numerics.training.train_isometry_mlp` with the member's seed and settings).

    Returns
    -------
    dict
        Name → difference: the settings first, then the records (BN: ``loss``, the Fig 3 norms, the Fig A.2 relative
        gradient norms, ``test_accuracy``; isometry: ``train_loss``, ``gaps``, ``corollary2_margin``,
        ``test_accuracy``). The member is its solo run within the tolerance when every value is ≤ it.

    Examples
    --------
    >>> from numerics.ensembles import member_difference, train_bn_mlp_ensemble
    >>> from numerics.training import train_bn_mlp
    >>> runs = train_bn_mlp_ensemble("digits", "relu", 3, 16, 8, 5, lr=0.01, seeds=[0, 1], record_steps=2)
    >>> d = member_difference(runs[1], train_bn_mlp("digits", "relu", 3, 16, 8, 5, lr=0.01, seed=1, record_steps=2))
    >>> max(d.values()), d["seed"]                  # float32 on CPU: bit for bit
    (0.0, 0.0)
    >>> member_difference(runs[0], train_bn_mlp("digits", "relu", 3, 16, 8, 5, lr=0.01, seed=1, record_steps=2))["seed"]
    inf
    """
    kind = type(member).__name__
    if kind not in _RECORDS or type(solo) is not type(member):
        raise DeepinitError(f"member_difference: two TrainingRun or two IsometryTrainingRun, got {kind} and "
                            f"{type(solo).__name__}")
    out = {k: 0.0 if getattr(member, k) == getattr(solo, k) else math.inf for k in _SETTINGS[kind]}
    for k in _RECORDS[kind]:
        out[k] = _relative_excess(getattr(member, k), getattr(solo, k), GAP_ATOL if k in _ATOL_RECORDS else 0.0)
    return out
