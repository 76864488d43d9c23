"""Calibration: the false-violation rate of claims that hold, over many seeds (issue 9, item 5).

    python benchmarks/calibration.py --seeds 20 --budget quick [CLAIM ...]

Each claim is checked (no controls) with seeds 0 … N−1; a claim that holds must never come out ``violated``
(target ≤ 1% overall, 0 of 20 per claim). Default claims: those with statistical criteria (finite-width
simulations, Monte Carlo) — the deterministic ones cannot produce a false violation from sampling noise.
Prints one line per claim and the overall rate, and writes the table as JSON with ``--json``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch  # noqa: E402

from verify.core import HOLDS, VIOLATED, Context  # noqa: E402
from verify.registry import resolve  # noqa: E402
from verify.runner import run_claim  # noqa: E402

DEFAULT = (
    "bn-finite-width:theorem1", "bn-finite-width:theorem3", "bn-finite-width:corollary6", "bn-finite-width:corollary7",
    "bn-finite-width:corollary8", "bn-finite-width:poster-theorem2", "bn-finite-width:figure1", "bn-finite-width:eq6",
    "bn-mean-field:theorem4", "covariance-sde:theorem3-3", "covariance-sde:eq2-10", "isometry:theorem-a2",
)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("claims", nargs="*", default=list(DEFAULT))
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--budget", default="quick", choices=("quick", "standard", "full"))
    p.add_argument("--json", help="write the per-claim counts here")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    table, total, false = {}, 0, 0
    for cid in args.claims:
        claim = resolve(cid)
        counts, start = {}, time.monotonic()
        failing = []
        for seed in range(args.seeds):
            v = run_claim(claim, Context(budget=args.budget, seed=seed), with_control=False)
            counts[v.status] = counts.get(v.status, 0) + 1
            if v.status == VIOLATED:
                failing.append((seed, [r.name for r in v.evidence if r.passed is False]))
        secs = time.monotonic() - start
        n_false = counts.get(VIOLATED, 0)
        total += args.seeds
        false += n_false
        table[cid] = {"counts": counts, "false_violations": n_false, "seeds": args.seeds, "seconds": round(secs, 1),
                      "failing_rows": failing}
        print(f"{cid:36s} {n_false:2d}/{args.seeds} violated  {counts}  {secs:6.1f} s"
              + (f"  rows: {failing}" if failing else ""), flush=True)
        if counts.get(HOLDS, 0) + n_false < args.seeds:
            print(f"  note: {args.seeds - counts.get(HOLDS, 0) - n_false} runs neither held nor were violated", flush=True)
    rate = false / total if total else 0.0
    print(f"overall false-violation rate: {false}/{total} = {100 * rate:.2f}% (target ≤ 1%)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"budget": args.budget, "seeds": args.seeds, "rate": rate, "claims": table}, f, indent=1)
    return 0 if rate <= 0.01 else 1


if __name__ == "__main__":
    sys.exit(main())
