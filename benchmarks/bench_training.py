"""Batched training ensembles against sequential solo runs, in one process (issue 29, item 1).

    python benchmarks/bench_training.py [--e 10] [--standard] [--repeat 1] [--only TEXT] [--threads 1]
                                        [--solo-threads 1]

For each setting, E networks trained one after another by the solo trainers (numerics.training.train_bn_mlp /
train_isometry_mlp, one intra-op thread each, as the claims run them) and the same E networks as one batched
ensemble (numerics.ensembles, one thread); the members differ by seed (and, in the "9 activations" rows, by
activation, as the isometry claims' sweeps do). Prints the times, the ratio and the max relative difference of every
recorded quantity between each member and its solo run. Not a timed test; docs/benchmarks.md records the figures.
Run it with OMP_NUM_THREADS=1 (the package's own setting for small work). ``--threads 2`` gives the ensemble both
cores of a 2-core machine (its batched products split over the members); ``--solo-threads`` does the same for the
solo runs, whose small per-layer products gain little from a second thread.
"""
from __future__ import annotations

import argparse
import functools
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from numerics.ensembles import train_bn_mlp_ensemble, train_isometry_mlp_ensemble  # noqa: E402
from numerics.training import train_bn_mlp, train_isometry_mlp  # noqa: E402

BN_FIELDS = ("test_accuracy", "loss", "weight_norm", "preact_grad_norm", "weight_grad_norm", "relative_weight_grad",
             "relative_gamma_grad")
ISO_FIELDS = ("test_accuracy", "train_loss", "gaps", "corollary2_margin")
ISO_ACTS = ("sigmoid", "selu", "tanh", "softplus", "sin", "silu", "relu", "gelu", "exp")   # the claims' activations


def max_rel(a, b) -> float:
    a, b = np.asarray(a, float), np.asarray(b, float)
    if not np.array_equal(np.isnan(a), np.isnan(b)):
        return float("inf")
    m = np.isfinite(a) & np.isfinite(b)
    if not m.any():
        return 0.0
    return float(np.max(np.abs(a[m] - b[m]) / np.maximum(np.abs(b[m]), 1e-300)))


def compare(batched, solo, fields) -> float:
    return max(max_rel(getattr(r, f), getattr(s, f)) for r, s in zip(batched, solo) for f in fields)


def settings(E: int, standard: bool, threads: int = 1, solo_threads: int = 1):
    seeds = list(range(E))
    train_bn_mlp_ = functools.partial(train_bn_mlp, threads=solo_threads)
    train_isometry_mlp_ = functools.partial(train_isometry_mlp, threads=solo_threads)
    train_bn_mlp_ensemble_ = functools.partial(train_bn_mlp_ensemble, threads=threads)
    train_isometry_mlp_ensemble_ = functools.partial(train_isometry_mlp_ensemble, threads=threads)
    # bn-mean-field Fig A.2 (quick and standard: depth 20, B 32, width 128, 4 epochs = 168 steps, recorded per epoch)
    a2 = dict(depth=20, width=128, batch_size=32, steps=168, lr=0.01, record_at=(0, 42, 84, 126, 167))
    yield ("bn-mean-field Fig A.2 (depth 20, width 128, B 32, 168 SGD steps)", "bn",
           lambda s: train_bn_mlp_("digits", "relu", seed=s, **a2),
           lambda: train_bn_mlp_ensemble_("digits", "relu", seeds=seeds, **a2), seeds)
    # bn-mean-field Fig 3 at standard (depth 40, B 32, 10 steps, every step recorded)
    f3 = dict(depth=40, width=128, batch_size=32, steps=10, lr=0.01, record_steps=10)
    yield ("bn-mean-field Fig 3 standard (depth 40, width 128, B 32, 10 steps, recorded)", "bn",
           lambda s: train_bn_mlp_("digits", "relu", seed=s, **f3),
           lambda: train_bn_mlp_ensemble_("digits", "relu", seeds=seeds, **f3), seeds)
    # isometry Figs 7 / B.6 / B.7 at quick: depth 10, width 128, batch 64, 6 epochs
    iq = dict(depth=10, width=128, batch_size=64, epochs=6, lr=0.01)
    yield ("isometry Fig 7/B.6/B.7 quick (depth 10, width 128, batch 64, 6 epochs), relu × E seeds", "iso",
           lambda s: train_isometry_mlp_("digits", "relu", seed=s, **iq),
           lambda: train_isometry_mlp_ensemble_("digits", "relu", seeds=seeds, **iq), seeds)
    pairs = [(a, s) for a in ISO_ACTS for s in range(3)]   # Fig 7 quick: 9 activations × 3 seeds in one call
    yield ("isometry Fig 7 quick sweep: 9 activations × 3 seeds = 27 members", "iso",
           lambda p: train_isometry_mlp_("digits", p[0], seed=p[1], **iq),
           lambda: train_isometry_mlp_ensemble_("digits", [a for a, _ in pairs], seeds=[s for _, s in pairs], **iq),
           pairs)
    iq30 = dict(iq, depth=30)
    yield ("isometry Fig B.7 control quick (depth 30, width 128, batch 64, 6 epochs), relu × E seeds", "iso",
           lambda s: train_isometry_mlp_("digits", "relu", seed=s, **iq30),
           lambda: train_isometry_mlp_ensemble_("digits", "relu", seeds=seeds, **iq30), seeds)
    if standard:
        ist = dict(depth=10, width=256, batch_size=64, epochs=10, lr=0.01)
        yield ("isometry Fig 7/B.6/B.7 standard (depth 10, width 256, batch 64, 10 epochs), relu × E seeds", "iso",
               lambda s: train_isometry_mlp_("digits", "relu", seed=s, **ist),
               lambda: train_isometry_mlp_ensemble_("digits", "relu", seeds=seeds, **ist), seeds)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--e", type=int, default=10, help="ensemble size E (default 10)")
    ap.add_argument("--standard", action="store_true", help="also the isometry claims' standard-budget size")
    ap.add_argument("--repeat", type=int, default=1, help="best of this many timings per route")
    ap.add_argument("--only", default="", help="only the settings whose name contains this text")
    ap.add_argument("--threads", type=int, default=1, help="intra-op threads of the ensemble (default 1)")
    ap.add_argument("--solo-threads", type=int, default=1, help="intra-op threads of each solo run (default 1)")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, float32, CPU, E = {args.e}; intra-op threads: ensemble {args.threads}, "
          f"solo runs {args.solo_threads}")
    print("| setting | members | sequential solo | batched | ratio | max rel. difference |")
    print("|---|---|---|---|---|---|")
    for name, kind, solo_fn, batch_fn, members in settings(args.e, args.standard, args.threads, args.solo_threads):
        if args.only not in name:
            continue
        ts, tb = float("inf"), float("inf")
        for _ in range(args.repeat):
            t = time.perf_counter()
            solo = [solo_fn(m) for m in members]
            ts = min(ts, time.perf_counter() - t)
            t = time.perf_counter()
            batched = batch_fn()
            tb = min(tb, time.perf_counter() - t)
        diff = compare(batched, solo, BN_FIELDS if kind == "bn" else ISO_FIELDS)
        print(f"| {name} | {len(members)} | {ts:.2f} s | {tb:.2f} s | {ts / tb:.1f}× | {diff:.1e} |", flush=True)


if __name__ == "__main__":
    main()
