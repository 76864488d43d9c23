"""Benchmarks for covariance-sde (numerics.covariance_sde): times and ratios in the same process.

    python benchmarks/bench_covariance_sde.py [--device cpu|cuda]

Targets (issue): the correlation SDE, 2¹³ paths to T = 1 at dt = 1e-3, under a second on CPU; Fig 1's network
ensemble (n = d = 150, 2¹³ samples) through the exact simulator under 30 s on 2 cores. Also: network vs Markov
chain vs SDE at equal accuracy (the SDE's step need not shrink with width). Not a timed test.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np
import torch
from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from numerics import covariance_sde as ncs  # noqa: E402


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cpu")
    args = p.parse_args()
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, device {args.device}")
    N = 2 ** 13
    for scheme in ("em", "milstein", "weak2"):
        t, _ = timed(lambda: ncs.simulate_correlation_sde(0.0, -1.0, 0.3, 1.0, 1e-3, N, scheme=scheme, keep="last"))
        print(f"correlation SDE, {scheme:8s}, 2^13 paths, T = 1, dt = 1e-3: {t:.3f} s")
    V0 = np.array([[1.0, 0.3], [0.3, 1.0]])
    drift = ncs.covariance_drift("relu", c_plus=0.0, c_minus=-1.0)
    for scheme in ("em", "wishart"):
        t, _ = timed(lambda: ncs.simulate_covariance_sde(drift, V0, 1.0, 1e-2, N, scheme=scheme, keep="last"))
        print(f"covariance SDE (m = 2), {scheme:7s}, 2^13 paths, dt = 1e-2: {t:.3f} s")
    shape = ncs.Shape("relu", 150, c_plus=0.0, c_minus=-1.0)
    t_net, net = timed(lambda: ncs.simulate_shaped_network(shape, 150, V0, N, device=args.device, layers=[150]))
    print(f"Fig 1 network ensemble, exact-in-law, n = d = 150, 2^13 samples: {t_net:.2f} s")
    t_dense, _ = timed(lambda: ncs.simulate_shaped_network(shape, 150, V0, 64, method="dense", device=args.device,
                                                           layers=[150]))
    print(f"  dense weights, 64 samples: {t_dense:.2f} s → 2^13 samples ≈ {t_dense * N / 64:.0f} s "
          f"(ratio {t_dense * N / 64 / t_net:.0f}×)")
    # equal accuracy: KS distance of the SDE (fixed dt) to the network, vs the network's own sampling noise
    for dt in (0.1, 0.05, 0.01):
        t_sde, sde = timed(lambda: ncs.simulate_correlation_sde(0.0, -1.0, 0.3, 1.0, dt, 4 * N, scheme="weak2",
                                                                keep="last"))
        D = stats.ks_2samp(net.rho[:, -1], sde.values[:, -1]).statistic
        print(f"SDE weak-2, dt = {dt}: {t_sde:.3f} s, KS distance to the network {D:.4f} "
              f"(sampling noise ≈ {1.36 * math.sqrt(1 / N + 1 / (4 * N)):.4f}); network/SDE time {t_net / t_sde:.0f}×")


if __name__ == "__main__":
    main()
