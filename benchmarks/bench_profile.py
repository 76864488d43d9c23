"""`verify profile` / `verify design` timings (issue 14 targets: one activation < 10 s cold, ten < 60 s, the
three-activation LaTeX example < 30 s, on 2 cores). Each run is a fresh process, so every cache is cold and the
imports are included.

    python benchmarks/bench_profile.py
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEN = ["relu", "tanh", "gelu", "selu", "sigmoid", "softplus", "sin", "elu", "x*erf(x)", "silu"]


def run(*args) -> float:
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "verify", *args], cwd=ROOT, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if r.returncode not in (0, 1):
        raise SystemExit(f"{args}: exit {r.returncode}\n{r.stderr[-2000:]}")
    return dt


def main():
    tex = os.path.join(tempfile.mkdtemp(), "t.tex")
    rows = [("profile relu (cold, one process)", run("profile", "relu"), 10),
            ("profile tanh (cold)", run("profile", "tanh"), 10),
            ("profile x*erf(x) (cold)", run("profile", "x*erf(x)"), 10),
            ('profile relu tanh "x*erf(x)" --latex t.tex', run("profile", "relu", "tanh", "x*erf(x)", "--latex", tex), 30),
            ("profile of 10 activations", run("profile", *TEN), 60),
            ('design "log(1+exp(x+x0))" --target sde=stable', run("design", "log(1+exp(x+x0))", "--target", "sde=stable"), None),
            ('design "tanh(a*x)" --target lambda_max<=1.3@B=32 --target beta<=1.05',
             run("design", "tanh(a*x)", "--target", "lambda_max<=1.3@B=32", "--target", "beta<=1.05"), None)]
    for name, t, target in rows:
        print(f"{name:75s} {t:6.1f} s" + (f"   (target < {target} s)" if target else ""))


if __name__ == "__main__":
    main()
