"""Benchmarks for bn-mean-field (theory.bn_meanfield, numerics.bn_meanfield): times and ratios against plain
baselines run in the same process.

    python benchmarks/bench_bn_meanfield.py [--device cpu|cuda] [--quick]

Targets (issue): BSB1 constants of a smooth activation to 1e-12 relative < 0.5 s per (activation, B); λ_max for any
activation and B ≤ 1024 < 1 s; the mean-field map at B = 32 to 1e-8 < 1 s. Not a timed test; docs/benchmarks.md
records the figures measured.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import theory  # noqa: E402
from numerics import bn_meanfield as nbm  # noqa: E402
from theory import bn_meanfield as tbm  # noqa: E402


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def fresh(fn):
    """Clear the theory caches so that each timing is a cold computation."""
    for f in (tbm._fixed_point_cached, tbm._jacobian_cached, tbm._rate_cached, tbm._rule_1d, tbm._rule_2d):
        f.cache_clear()
    return timed(fn)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cpu")
    p.add_argument("--quick", action="store_true")
    args = p.parse_args()
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, device {args.device}")

    print("\n# BSB1 fixed point (cold cache, includes the two-rule-size convergence test) vs plain Monte Carlo")
    for act in ("tanh", "gelu", "relu"):
        for B in (8, 128, 1024):
            t, fp = fresh(lambda: theory.bsb1_fixed_point(act, B))
            n = 200_000
            tmc, (b, c, b_se, _) = timed(lambda: theory.bsb1_constants_mc(act, B, n, 0))
            # samples Monte Carlo would need for the quadrature's accuracy (≈ 1e-12 relative on q*)
            need = n * (b_se / (1e-12 * fp.q)) ** 2
            print(f"  {act:5s} B={B:5d}: {t:.3f} s (two-size error {fp.error:.1e}); Monte Carlo {n} samples {tmc:.2f} s "
                  f"(SE {b_se / fp.q:.1e}; 1e-12 would need {need:.1e} samples ≈ {tmc * need / n:.1e} s)")

    print("\n# λ_max (eq 24 reduction) — cold cache, includes the fixed point")
    for act in ("relu", "tanh", "selu", "exp"):
        for B in (4, 32, 1024):
            t, lam = fresh(lambda: theory.gradient_explosion_rate(act, B))
            print(f"  {act:5s} B={B:5d}: {t:.3f} s  λ_max = {lam:.12g}")
    t, g = timed(lambda: tbm.theorem9_gegenbauer_rate("tanh", 1024))
    print(f"  Gegenbauer series (Theorem 9), tanh, B = 1024, 200 terms: {t:.3f} s, enclosure width {g.upper - g.lower:.1e}")

    print("\n# mean-field map V_φ̃(Σ) at a random Σ, B = 32: Laplace (eq 11) vs Monte Carlo")
    rng = np.random.default_rng(0)
    A = rng.standard_normal((32, 34))
    S = A @ A.T / 32
    t_lap, V = timed(lambda: nbm.bn_meanfield_map_laplace(S))
    V2 = nbm.bn_meanfield_map_laplace(S, h=0.15)
    n = 100_000
    t_mc, (m, se) = timed(lambda: nbm.bn_meanfield_map_mc("relu", S, n))
    need = n * (float(np.max(se)) / 1e-8) ** 2
    print(f"  Laplace: {t_lap:.3f} s (step-halving change {np.max(np.abs(V - V2)):.1e}); Monte Carlo {n}: {t_mc:.2f} s, "
          f"max SE {np.max(se):.1e} → 1e-8 needs ≈ {t_mc * need / n:.1e} s (ratio {t_mc * need / n / t_lap:.1e})")
    t15, _ = timed(lambda: nbm.bn_meanfield_map_laplace(S, 1.5))
    print(f"  Laplace, α = 1.5 (k_α by Gauss–Jacobi): {t15:.3f} s")

    print("\n# finite-width networks with autograd: exact-in-law layers vs dense weights (same process)")
    sizes = [(1000, 8, 20, 8)] if args.quick else [(1000, 8, 30, 10), (1000, 32, 30, 10), (4000, 32, 20, 4)]
    for N, B, depth, S_ in sizes:
        te, _ = timed(lambda: nbm.simulate_bn_gradients("relu", N, B, depth, S_, method="exact", device=args.device))
        td, _ = timed(lambda: nbm.simulate_bn_gradients("relu", N, B, depth, S_, method="dense", device=args.device))
        print(f"  N={N} B={B} depth={depth} seeds={S_}: exact {te:.2f} s, dense {td:.2f} s, ratio {td / te:.1f}×")


if __name__ == "__main__":
    main()
