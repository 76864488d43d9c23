"""A/B of the exact BN chain against an older revision of numerics/bn_chain.py, in one process (ratios, not timed
tests): best of N of each, interleaved, and of one ``torch.randn`` call of all the variates (the random-number bound).

    python benchmarks/bench_bn_chain_ab.py [--rev 33315b6] [--repeat 20]

d = 1000, n = 10, depth 60, 4 seeds, one torch thread (the thread policy's choice at this size). Also checks that the
two revisions give the same Gram matrices.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import time

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _old_module(rev: str):
    src = subprocess.run(["git", "show", f"{rev}:numerics/bn_chain.py"], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.replace("from .", "from numerics.")
    ns: dict = {}
    exec(compile(src, f"bn_chain@{rev}", "exec"), ns)
    return ns["simulate_bn_chain"]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rev", default="33315b6")
    p.add_argument("--repeat", type=int, default=20)
    a = p.parse_args()
    from numerics.bn_chain import simulate_bn_chain as new
    old = _old_module(a.rev)
    torch.set_num_threads(1)
    d, n, L, S = 1000, 10, 60, 4
    for dt in (torch.float32, torch.float64):
        same = np.array_equal(old("relu", d, n, 40, 3, dtype=dt, seed=5).numpy(),
                              new("relu", d, n, 40, 3, dtype=dt, seed=5).numpy())
        g = torch.Generator()
        g.manual_seed(0)
        t = {"old": [], "new": [], "bound": []}
        for _ in range(a.repeat):
            for k, f in (("old", old), ("new", new)):
                t0 = time.perf_counter()
                f("relu", d, n, L, S, dtype=dt, seed=1, layers=[L])
                t[k].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            torch.randn(L * S * n * d, generator=g, dtype=dt)
            t["bound"].append(time.perf_counter() - t0)
        b = min(t["bound"])
        print(f"{str(dt):14s} bound {b * 1e3:6.2f} ms   {a.rev}: {min(t['old']) / b:.2f}×   HEAD: {min(t['new']) / b:.2f}×   "
              f"same Gram matrices: {same}")


if __name__ == "__main__":
    main()
