"""NNGP and NTK kernels of a 64-input set at depth 100: cost of each route, cost at q ≈ 10⁶ against q ≈ 1, and
(where neural-tangents is importable) the peer's analytic kernels on the same inputs in the same process.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_kernels.py [--acts erf,relu,gelu,tanh]
    python benchmarks/bench_kernels.py --device cuda      # also the torch layers (numerics.network_kernels_on_device)
    # with the peer (not a dependency): a venv holding neural-tangents 0.6.5, jax 0.4.30 and this package's
    # theory requirements (numpy, scipy, sympy, mpmath, python-flint):
    XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" PYTHONPATH=. \\
        /tmp/ntv/bin/python benchmarks/bench_kernels.py

With ``--device DEV``, a second table: ``numerics.network_kernels_on_device`` on DEV against the numpy route in the
same process, at 64 inputs (depth 100) and 1024 inputs (depth 10), with the largest |torch − numpy| over the two
stated errors (≤ 1 when both are within their errors of the true kernels).

Rows: ``network_kernels`` (NNGP and NTK with its error runs: the public call), the recursion alone (one run of
``theory.kernels._run``, what the answer costs without its error estimate), and the ratio of the q ≈ 10⁶ run
(σ_b² = 10⁶, so every layer's variance stays near 10⁶) to the q ≈ 1 run (σ_b² = 0.05). Not a timed test;
docs/benchmarks.md records the figures with the machine.
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from theory import kernels as tk  # noqa: E402

N_INPUTS, DIM, DEPTH, SW2 = 64, 16, 100, 1.5
ACTS = ("erf", "relu", "gelu", "tanh")


def _best(fn, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def ours(X, acts=ACTS):
    print(f"theory.network_kernels: {N_INPUTS} inputs, d = {DIM}, depth {DEPTH}, σ_w² = {SW2} (best of 3, seconds)")
    print(f"{'φ':6s} {'route':58s} {'public call':>11s} {'recursion':>9s} {'q≈1e6/q≈1':>10s} {'max rel err':>11s}")
    results = {}
    for name in acts:
        act = tk.activation(name)
        route = tk._route_for(act)
        t_pub, k = _best(lambda: tk.network_kernels(act, X, DEPTH, SW2, 0.05))
        K0 = tk._first_layer(X, None, SW2, 0.05)
        t_run, _ = _best(lambda: tk._run(route, K0, DEPTH, SW2, 0.05, 1.0, True))
        K0big = tk._first_layer(X, None, SW2, 1e6)
        t_big, _ = _best(lambda: tk._run(route, K0big, DEPTH, SW2, 1e6, 1.0, True))
        rel = max(float(np.max(m.error / np.abs(m.value).max())) for m in (k.nngp, k.ntk))
        print(f"{name:6s} {route.name[:58]:58s} {t_pub:11.3f} {t_run:9.3f} {t_big / t_run:10.2f} {rel:11.1e}")
        results[name] = k
    return results


def peer(X, results, acts=ACTS):
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        import neural_tangents as nt
        from neural_tangents import stax
    except ImportError:
        print("\nneural-tangents: not importable here — skipped (see the module docstring)")
        return
    print(f"\nneural-tangents {nt.__version__} (jax {jax.__version__}), float64, same inputs: eager and jitted "
          "kernel_fn (seconds, best of 3; jitted excludes compilation) and max |ours − peer| / max |peer|")
    layers = {"erf": stax.Erf(), "relu": stax.Relu(), "gelu": stax.Gelu()}
    for name, layer in layers.items():
        if name not in acts:
            continue
        net = []
        for _ in range(DEPTH):
            net += [stax.Dense(512, W_std=SW2 ** 0.5, b_std=0.05 ** 0.5), layer]
        net += [stax.Dense(1, W_std=SW2 ** 0.5, b_std=0.05 ** 0.5)]
        kfn = stax.serial(*net)[2]
        x = jax.numpy.asarray(X)
        t_eager, kk = _best(lambda: jax.block_until_ready(kfn(x, None, ("nngp", "ntk"))))
        jit = jax.jit(kfn, static_argnames="get")
        jax.block_until_ready(jit(x, None, ("nngp", "ntk")))
        t_jit, _ = _best(lambda: jax.block_until_ready(jit(x, None, ("nngp", "ntk"))))
        ours_k = results[name]
        d_nngp = float(np.max(np.abs(ours_k.nngp.value - np.asarray(kk.nngp))) / np.abs(np.asarray(kk.nngp)).max())
        d_ntk = float(np.max(np.abs(ours_k.ntk.value - np.asarray(kk.ntk))) / np.abs(np.asarray(kk.ntk)).max())
        print(f"{name:6s} eager {t_eager:8.3f}  jitted {t_jit:8.4f}  NNGP diff {d_nngp:.1e}  NTK diff {d_ntk:.1e}")
    if "tanh" not in acts:
        return
    # tanh has no analytic stax layer: the peer's numerical one (Gauss–Hermite, its default degree)
    net = []
    for _ in range(DEPTH):
        net += [stax.Dense(512, W_std=SW2 ** 0.5, b_std=0.05 ** 0.5), stax.ElementwiseNumerical(jax.numpy.tanh, deg=25)]
    net += [stax.Dense(1, W_std=SW2 ** 0.5, b_std=0.05 ** 0.5)]
    kfn = stax.serial(*net)[2]
    t_eager, kk = _best(lambda: jax.block_until_ready(kfn(jax.numpy.asarray(X), None, ("nngp", "ntk"))), repeat=1)
    ours_k = results["tanh"]
    d_nngp = float(np.max(np.abs(ours_k.nngp.value - np.asarray(kk.nngp))) / np.abs(np.asarray(kk.nngp)).max())
    d_ntk = float(np.max(np.abs(ours_k.ntk.value - np.asarray(kk.ntk))) / np.abs(np.asarray(kk.ntk)).max())
    print(f"tanh   ElementwiseNumerical(deg=25) eager {t_eager:8.3f}  NNGP diff {d_nngp:.1e}  NTK diff {d_ntk:.1e} "
          f"(ours' own error estimate {ours_k.ntk.max_error / np.abs(ours_k.ntk.value).max():.1e})")


def on_device(device, acts=ACTS):
    from numerics import network_kernels_on_device
    print(f"\nnumerics.network_kernels_on_device(device={device!r}) against the numpy route (public calls, NNGP and "
          "NTK with their error runs; best of 3 at 64 inputs, one run at 1024; seconds)")
    print(f"{'φ':6s} {'inputs':>6s} {'depth':>5s} {'numpy':>8s} {'torch':>8s} {'numpy/torch':>11s} {'|Δ|/(e₁+e₂)':>11s}")
    for n, depth in ((N_INPUTS, DEPTH), (1024, 10)):
        X = np.random.default_rng(2017).standard_normal((n, DIM))
        repeat = 3 if n <= 64 else 1
        for name in acts:
            network_kernels_on_device(name, X[:4], 1, SW2, 0.05, device=device)        # warm-up (CUDA context)
            t_np, ref = _best(lambda: tk.network_kernels(name, X, depth, SW2, 0.05), repeat)
            t_dev, got = _best(lambda: network_kernels_on_device(name, X, depth, SW2, 0.05, device=device), repeat)
            worst = max(float(np.max(np.abs(a.value - b.value) / (a.error + b.error)))
                        for a, b in ((got.nngp, ref.nngp), (got.ntk, ref.ntk)))
            print(f"{name:6s} {n:6d} {depth:5d} {t_np:8.3f} {t_dev:8.3f} {t_np / t_dev:11.2f} {worst:11.2f}", flush=True)


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description="NNGP/NTK kernels of 64 inputs at depth 100, ours and the peer's")
    ap.add_argument("--acts", default=",".join(ACTS), help=f"comma-separated subset of {', '.join(ACTS)}")
    ap.add_argument("--device", help="also time numerics.network_kernels_on_device on this torch device (cpu, cuda)")
    args = ap.parse_args(argv)
    acts = tuple(a for a in args.acts.split(",") if a)
    unknown = [a for a in acts if a not in ACTS]
    if unknown:
        ap.error(f"unknown activation {unknown[0]!r}: one of {', '.join(ACTS)}")
    X = np.random.default_rng(2017).standard_normal((N_INPUTS, DIM))
    results = ours(X, acts)
    peer(X, results, acts)
    if args.device:
        on_device(args.device, acts)


if __name__ == "__main__":
    main()
