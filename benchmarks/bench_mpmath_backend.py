"""mpmath's integer backend: GMP (gmpy2) against pure Python, on the package's own high-precision routes.

    python benchmarks/bench_mpmath_backend.py [--repeat 3]

mpmath chooses its backend once, at import (``MPMATH_NOGMPY=1`` forces pure Python), so the two cannot share a
process: each repeat runs the same workload in two fresh subprocesses, one per backend, one after the other (the
order alternating), with one intra-op thread. The workload is what the σ_w²/σ_b² engine and the isometry claims
compute at 30–40 digits: the engine's moments E φ(√q z)² and E φ′(√q z)² (:func:`theory.meanfield_mlp._moment`)
for tanh, erf and x + tanh x at four variances, β_σ by quadrature (:func:`theory.isometry.isometry_strength_mp`) and
σ_w²,crit of tanh at σ_b² = 0.05 (:func:`theory.meanfield_mlp.critical_sigma_w2`). Prints each backend's
seconds, the ratio, and whether every printed digit agreed (the backends do the same integer arithmetic, so they
must: a difference is a failure, exit 1). Not a timed test; docs/benchmarks.md records the figures.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

WORKLOAD = r"""
import json, time
import mpmath, mpmath.libmp
from theory import meanfield_mlp as mf
from theory.activations import activation
from theory.isometry import isometry_strength_mp
t = time.perf_counter()
out = []
for name in ("tanh", "erf", "x + tanh(x)"):
    act = activation(name)
    for q in (0.3, 0.7, 1.1, 1.9):
        for kind in ("phi2", "dphi2"):
            val, err = mf._moment(act, kind, q, 30)
            out.append(mpmath.nstr(val, 30))
    out.append(mpmath.nstr(isometry_strength_mp(act, 40), 35))
e = mf.critical_sigma_w2("tanh", 0.05)
out.append(repr(e))
print(json.dumps({"backend": mpmath.libmp.BACKEND, "seconds": time.perf_counter() - t, "digits": out}))
"""


def one(backend: str) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": ROOT}
    env.pop("MPMATH_NOGMPY", None)
    env.pop("SYMPY_GROUND_TYPES", None)
    if backend == "python":
        env["MPMATH_NOGMPY"] = "1"
        env["SYMPY_GROUND_TYPES"] = "python"
    r = subprocess.run([sys.executable, "-c", WORKLOAD], env=env, capture_output=True, text=True, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    times: dict[str, list] = {"python": [], "gmpy": []}
    digits = {}
    for k in range(args.repeat):
        for backend in (("python", "gmpy") if k % 2 == 0 else ("gmpy", "python")):
            got = one(backend)
            if got["backend"] != backend:
                print(f"asked for the {backend} backend, mpmath used {got['backend']} (is gmpy2 installed?)")
                return 1
            times[backend].append(got["seconds"])
            digits.setdefault(backend, got["digits"])
    same = digits["python"] == digits["gmpy"]
    py, gm = min(times["python"]), min(times["gmpy"])
    print(f"pure Python: {', '.join(f'{t:.2f}' for t in times['python'])} s (best {py:.2f})")
    print(f"gmpy2:       {', '.join(f'{t:.2f}' for t in times['gmpy'])} s (best {gm:.2f})")
    print(f"ratio (best of each): {py / gm:.2f}×; {len(digits['python'])} values, every digit identical: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
