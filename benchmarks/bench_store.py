"""Claims that read the same simulations, with and without the run's store of shared simulations (verify/store.py).

Both modes run in this process, one after the other, with the same claims in the same order and one intra-op thread:

- ``apart``: the store is emptied before each claim, so each claim simulates what it needs (as separate processes do);
- ``shared``: the store is kept, so a claim reads what an earlier one simulated.

It prints each claim's seconds in both modes, the totals and their ratio, the store's statistics, and checks that the
two modes give the same verdict JSON (everything but the seconds). Run it on a quiet machine::

    python benchmarks/bench_store.py --budget standard
    python benchmarks/bench_store.py --budget quick --claims bn-finite-width:theorem1,bn-finite-width:theorem3
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("DEEPINIT_THREADS", "1")

#: bn-finite-width's claims that read the same BN chains and sphere Monte Carlo (Theorems 1, 3, Corollaries 6–8)
DEFAULT = ("bn-finite-width:theorem1", "bn-finite-width:theorem3", "bn-finite-width:corollary6",
           "bn-finite-width:corollary7", "bn-finite-width:corollary8")


def _comparable(v) -> str:
    d = v.to_dict()
    d.pop("seconds", None)
    for key in ("negative_control", "positive_control"):
        if isinstance(d.get(key), dict):
            d[key].pop("seconds", None)
    return json.dumps(d, sort_keys=True, default=str)


def run(claims, budget: str, seed: int, keep: bool) -> tuple[list, list[float]]:
    import torch

    from verify.core import Context
    from verify.registry import resolve
    from verify.runner import run_claim
    from verify.store import STORE
    torch.set_num_threads(1)
    STORE.clear()
    verdicts, seconds = [], []
    for cid in claims:
        if not keep:
            STORE.clear()
        t = time.perf_counter()
        verdicts.append(run_claim(resolve(cid), Context(budget=budget, seed=seed)))
        seconds.append(time.perf_counter() - t)
    return verdicts, seconds


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--budget", default="quick", choices=("quick", "standard", "full"))
    p.add_argument("--claims", default=",".join(DEFAULT), help="comma-separated claim ids, run in this order")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    claims = [c.strip() for c in args.claims.split(",") if c.strip()]
    from verify.store import STORE
    apart, t_apart = run(claims, args.budget, args.seed, keep=False)
    before = STORE.stats()
    shared, t_shared = run(claims, args.budget, args.seed, keep=True)
    stats = {name: {k: round(v - before.get(name, {}).get(k, 0), 3) for k, v in s.items()}
             for name, s in STORE.stats().items()}
    print(f"budget {args.budget}, seed {args.seed}, torch threads 1")
    print(f"{'claim':36s} {'apart':>9s} {'shared':>9s}  status")
    same = True
    for cid, a, b, ta, tb in zip(claims, apart, shared, t_apart, t_shared):
        identical = _comparable(a) == _comparable(b)
        same &= identical
        print(f"{cid:36s} {ta:8.1f}s {tb:8.1f}s  {a.status} / {b.status}{'' if identical else '  DIFFERENT NUMBERS'}")
    print(f"{'total':36s} {sum(t_apart):8.1f}s {sum(t_shared):8.1f}s  ratio {sum(t_apart) / sum(t_shared):.2f}x")
    print("store (shared run):", json.dumps(stats, indent=1))
    print("verdict JSON identical in both modes:", same)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
