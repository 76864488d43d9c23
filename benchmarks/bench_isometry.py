"""Benchmarks for the isometry paper's simulators (ratios against a plain baseline, same process).

    python benchmarks/bench_isometry.py [--device cpu|cuda] [--quick]

Not a timed test: it prints a table; docs/benchmarks.md records the figures measured.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numerics  # noqa: E402
import theory  # noqa: E402


def timed(fn, repeat=1):
    best = float("inf")
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def baseline_meanfield(act, G0, depth, K=200):
    """Plain route: the Hermite series Σ_{k≤K} c_k² ρ^k (Horner) on every entry at every layer."""
    c = theory.hermite_coefficients(act, K, kind="float")
    c2 = c * c
    c2[0] = 0.0
    var = float(np.sum(c2))
    iu = np.triu_indices(G0.shape[0], 1)
    r = G0[iu].copy()
    for _ in range(depth):
        r = np.polynomial.polynomial.polyval(r, c2) / var
    return r


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cpu")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--bn", action="store_true", help="also the batch-norm chain benchmarks")
    a = p.parse_args()
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, device {a.device}")
    rows = []
    G0 = numerics.equicorrelated_gram(100, 0.5)
    for act in ("relu", "tanh"):
        theory.numeric_dual(act)  # build once (cached), as a check run would
        t_fast, tr = timed(lambda: numerics.layernorm_meanfield_trajectory(act, G0, 1000), 3)
        t_base, rb = timed(lambda: baseline_meanfield(act, G0, 1000), 1)
        diff = float(np.max(np.abs(tr.offdiag[-1] - rb)))
        rows.append((f"mean-field Gram dynamics, {act}, n = 100, depth 1000", t_fast, t_base,
                     f"series baseline differs by {diff:.1e} at depth 1000"))
    # Fig 3 finite-width run, exact simulator
    n, d, depth, seeds = (100, 5000, 30, 10) if not a.quick else (100, 2000, 10, 4)
    G0 = numerics.equicorrelated_gram(n, 0.5)
    t_exact, _ = timed(lambda: numerics.simulate_isometry_mlp("relu", d, G0, depth, seeds, device=a.device))
    # dense baseline: 1 seed × 2 layers measured, scaled to seeds × depth (linear in both)
    t_dense_part, _ = timed(lambda: numerics.simulate_isometry_mlp("relu", d, G0, 2, 1, method="dense",
                                                                   device=a.device))
    t_dense = t_dense_part * seeds * depth / 2
    rows.append((f"Fig 3 run: relu, n = {n}, d = {d}, depth {depth}, {seeds} seeds (exact vs dense)",
                 t_exact, t_dense, "dense time extrapolated from 1 seed × 2 layers"))
    # a fully measured comparison
    G0 = numerics.equicorrelated_gram(10, 0.5)
    t_e, _ = timed(lambda: numerics.simulate_isometry_mlp("tanh", 1000, G0, 100, 10, device=a.device))
    t_d, _ = timed(lambda: numerics.simulate_isometry_mlp("tanh", 1000, G0, 100, 10, method="dense", device=a.device))
    rows.append(("tanh, n = 10, d = 1000, depth 100, 10 seeds (exact vs dense, both measured)", t_e, t_d, ""))
    print(f"{'benchmark':78s} {'fast [s]':>9s} {'baseline [s]':>12s} {'ratio':>8s}")
    for name, f, b, note in rows:
        print(f"{name:78s} {f:9.3f} {b:12.3f} {b / f:8.1f}  {note}")


if __name__ == "__main__":
    main()


def bench_bn_chain():
    """bn-finite-width: exact vs dense at d = 1000, n = 10, depth 600, 10 seeds; width 1e5."""
    t_e, _ = timed(lambda: numerics.simulate_bn_chain("relu", 1000, 10, 600, 10, layers=[600]))
    t_d, _ = timed(lambda: numerics.simulate_bn_chain("relu", 1000, 10, 60, 10, method="dense", layers=[60]))
    print(f"{'BN chain relu d=1000 n=10 depth 600 10 seeds: exact vs dense (dense ×10 from 60 layers)':78s} "
          f"{t_e:9.3f} {10 * t_d:12.3f} {10 * t_d / t_e:8.1f}")
    t_w, _ = timed(lambda: numerics.simulate_bn_chain("relu", 100_000, 10, 600, 1, layers=[600]))
    print(f"{'BN chain relu d=1e5 n=10 depth 600 1 seed (exact)':78s} {t_w:9.3f}")


if __name__ == "__main__" and "--bn" in sys.argv:
    bench_bn_chain()
