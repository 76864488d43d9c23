"""The mean-field engine's cost, as ratios against a baseline in the same process (one thread).

    OMP_NUM_THREADS=1 python benchmarks/bench_engine.py

* mpmath Gaussian expectations (theory.gaussian.mp_gaussian, 30 digits): Gauss–Legendre first with the tanh–sinh
  fallback (the engine's route) against tanh–sinh on every piece (the former route) — evaluations, seconds, and the
  largest difference of the values;
* critical_sigma_w2 and fixed_point_q from empty caches (tanh, erf, ELU, SiLU);
* correlation_trajectory to depth 10⁶ (ReLU on the edge of chaos: cold, i.e. with the Puiseux series derived by
  sympy, and warm), tanh on its edge of chaos, and asymptotic_rate on each.

Not a timed test; docs/benchmarks.md records the figures with the machine.
"""
from __future__ import annotations

import math
import os
import sys
import time

import mpmath

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import theory  # noqa: E402
from theory import gaussian as G  # noqa: E402
from theory import meanfield_depth as md  # noqa: E402
from theory import meanfield_mlp as mf  # noqa: E402


def _clear():
    for f in (mf._moment, mf._qstar, mf._cstar, mf._critical, md._puiseux):
        f.cache_clear()


def quadrature_rows():
    tanh_sinh = lambda g, a, b, dps: mpmath.quad(g, [a, b], error=True, maxdegree=10)  # noqa: E731
    print("mp_gaussian E φ(√q z)², 30 digits: evaluations and seconds, engine (GL first) vs tanh–sinh only")
    tot = {"engine": 0.0, "ts": 0.0}
    for name in ("tanh", "relu", "gelu", "silu", "elu", "sin"):
        act = theory.activation(name)
        f = act.mpmath
        for q in (0.5, 3.0):
            out = {}
            for label, piece in (("engine", G._mp_piece), ("ts", tanh_sinh)):
                n = [0]

                def fn(u):
                    n[0] += 1
                    return f(u) ** 2
                G._mp_piece, saved = piece, G._mp_piece
                try:
                    t = time.perf_counter()
                    v, e, _ = G.mp_gaussian(fn, q, act.breakpoints, 30)
                    out[label] = (v, n[0], time.perf_counter() - t)
                finally:
                    G._mp_piece = saved
                tot[label] += out[label][2]
            diff = abs(out["engine"][0] - out["ts"][0]) / abs(out["ts"][0])
            print(f"  {name:5s} q = {q:3}: {out['engine'][1]:5d} vs {out['ts'][1]:5d} evaluations, "
                  f"{out['engine'][2] * 1e3:6.1f} vs {out['ts'][2] * 1e3:6.1f} ms, relative difference "
                  f"{mpmath.nstr(diff, 2)}")
    print(f"  total {tot['engine']:.2f} s vs {tot['ts']:.2f} s: ratio {tot['ts'] / tot['engine']:.2f}")


def engine_rows():
    print("from empty caches (dps 30):")
    for name, sb in (("tanh", 0.05), ("erf", 0.1), ("elu", 0.1), ("silu", 0.05)):
        _clear()
        t = time.perf_counter()
        try:
            c = theory.critical_sigma_w2(name, sb)
            what = f"{c.value:.10g}"
        except theory.UndefinedQuantityError:
            c, what = None, "refused (no attracting edge of chaos)"
        t1 = time.perf_counter() - t
        t = time.perf_counter()
        fp = theory.fixed_point_q(name, c.value if c else 2.72861, sb)
        t2 = time.perf_counter() - t
        print(f"  {name:5s} σ_b² = {sb}: critical_sigma_w2 {t1:5.2f} s ({what}); fixed_point_q there {t2:5.2f} s "
              f"({fp.stability}, slope {fp.slope.value:.4f})")


def trajectory_rows():
    print("correlation_trajectory, depth 10⁶:")
    _clear()
    for label in ("cold", "warm"):
        t = time.perf_counter()
        tr = theory.correlation_trajectory("relu", 2.0, 0.0, 0.5, 10 ** 6)
        dt = time.perf_counter() - t
        fit = theory.asymptotic_rate(tr)
        print(f"  relu σ_w² = 2 ({label}): {dt:5.2f} s, 1 − c^(10⁶) = {tr.deviation[-1]:.10e} (relative error bound "
              f"{tr.relative_error[-1]:.1e}); A = {fit.constant} vs 9π²/2 = {9 * math.pi ** 2 / 2:.12f} "
              f"(relative {abs(fit.constant.value / (9 * math.pi ** 2 / 2) - 1):.1e})")
    sw = theory.critical_sigma_w2("tanh", 0.05).value
    t = time.perf_counter()
    tr = theory.correlation_trajectory("tanh", sw, 0.05, 0.5, 10 ** 6)
    dt = time.perf_counter() - t
    fit = theory.asymptotic_rate(tr)
    print(f"  tanh on its edge (σ_b² = 0.05): {dt:5.2f} s, A = {fit.constant}, p = {fit.exponent.value:g}")


if __name__ == "__main__":
    quadrature_rows()
    engine_rows()
    trajectory_rows()
