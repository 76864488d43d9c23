"""A 30-digit reference for tanh NNGP and NTK entries at depth 100 (tests/data/tanh_kernels_depth100.json).

The recursion of theory.kernels for a few pairs of the benchmark's inputs, in mpmath at 30 digits:

* diagonal entries E tanh(u)² and E tanh′(u)² by theory.gaussian.mp_gaussian (1-D, split, Gauss–Legendre/tanh–sinh);
* off-diagonal entries by the logistic scale mixture (tanh(x) = ∫ erf(x/(√2 s)) p(s) ds, p the Kolmogorov density;
  Stefanski 1991) on a Gauss rule in v = log s built *in mpmath* — Stieltjes on 13 pieces × 3·2^6 Gauss–Legendre
  points, Golub–Welsch by mpmath.eigsy — with NODES nodes, and again with NODES + 8: the two agree to the digits
  recorded (the spread is stored as the reference's error).

It shares the mixture identity with the float route (the identity itself is held to 5e-15 by
tests/test_kernels.py::test_the_mixture_represents_tanh and, at depth 1, to nested 2-D mpmath quadrature) and the way
its rule is constructed (theory.kernels._mixture_rule_mp is also Stieltjes and Golub–Welsch in mpmath, since the
float-built rule was biased), but not that rule — 32 and 40 nodes here against 16 and 12, 192 points per piece on
15 pieces from s = 0.02 against 48 on 13 from 0.05, 40 digits against 30 — nor its float64 recursion or code. Run once (about 10 minutes on one core); the tests read the JSON.

    python benchmarks/tanh_kernel_reference.py
"""
from __future__ import annotations

import json
import os
import sys
import time

import mpmath as mp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from theory.gaussian import mp_gaussian  # noqa: E402

DPS, NODES, DEPTH = 30, 32, 100
CASES = [  # (σ_w², σ_b², pairs of the 64 inputs of benchmarks/bench_kernels.py)
    (1.5, 0.05, [(0, 1), (2, 3), (10, 40)]),
    (1.0, 0.0, [(0, 1), (5, 6)]),
]


def kolmogorov_density(s):
    if s < mp.mpf("1.2"):
        acc = mp.mpf(0)
        for j in range(1, 12):
            a = (2 * j - 1) ** 2 * mp.pi ** 2 / 8
            acc += mp.sqrt(2 * mp.pi) * mp.exp(-a / s ** 2) * (2 * a / s ** 4 - 1 / s ** 2)
        return acc
    return sum(8 * s * (-1) ** (j - 1) * j * j * mp.exp(-2 * j * j * s * s) for j in range(1, 20))


def log_rule(nodes):
    gl = mp.calculus.quadrature.GaussLegendre(mp.mp)
    base = gl.calc_nodes(7, mp.mp.prec)           # 3·2^6 = 192 points on [−1, 1]
    cuts = [mp.log(mp.mpf(c)) for c in ("0.02", "0.1", "0.15", "0.25", "0.35", "0.5", "0.7", "0.9", "1.2", "1.6",
                                         "2.1", "2.8", "3.6", "4.6", "6.0", "8.0")]
    V, W = [], []
    for a, b in zip(cuts[:-1], cuts[1:]):
        for x, w in base:
            v = (a + b) / 2 + (b - a) / 2 * x
            V.append(v)
            W.append((b - a) / 2 * w * kolmogorov_density(mp.exp(v)) * mp.exp(v))
    alpha, beta = [], []
    prev, cur, norm_prev = [mp.mpf(0)] * len(V), [mp.mpf(1)] * len(V), mp.mpf(1)
    for k in range(nodes):
        norm = mp.fsum(w * c * c for w, c in zip(W, cur))
        alpha.append(mp.fsum(w * v * c * c for w, v, c in zip(W, V, cur)) / norm)
        beta.append(norm / norm_prev if k else mp.mpf(0))
        prev, cur, norm_prev = cur, [(v - alpha[k]) * c - beta[k] * p for v, c, p in zip(V, cur, prev)], norm
    J = mp.matrix(nodes, nodes)
    for i in range(nodes):
        J[i, i] = alpha[i]
        if i + 1 < nodes:
            J[i, i + 1] = J[i + 1, i] = mp.sqrt(beta[i + 1])
    E, Q = mp.eigsy(J)
    total = mp.fsum(W)
    return [mp.exp(E[i]) for i in range(nodes)], [total * Q[0, i] ** 2 for i in range(nodes)]


def pair_maps(rule, q1, q2, q12):
    s, w = rule
    det = q1 * q2 - q12 * q12
    F = D = mp.mpf(0)
    for sa, wa in zip(s, w):
        for sb, wb in zip(s, w):
            R = mp.sqrt(sa * sa * sb * sb + q1 * sb * sb + q2 * sa * sa + det)
            F += wa * wb * mp.atan2(q12, R)
            D += wa * wb / R
    return 2 / mp.pi * F, 2 / mp.pi * D


def diag_maps(q):
    K = mp_gaussian(lambda t: mp.tanh(t) ** 2, q, (), DPS)[0]
    D = mp_gaussian(lambda t: (1 - mp.tanh(t) ** 2) ** 2, q, (), DPS)[0]
    return K, D


def entry(rule, G, a, b, sw, sb):
    sw, sb = mp.mpf(sw), mp.mpf(sb)
    K = {"aa": sw * G[a][a] + sb, "bb": sw * G[b][b] + sb, "ab": sw * G[a][b] + sb}
    T = dict(K)
    for _ in range(DEPTH):
        (ka, da), (kb, db) = diag_maps(K["aa"]), diag_maps(K["bb"])
        F, D = pair_maps(rule, K["aa"], K["bb"], K["ab"])
        new = {"aa": sw * ka + sb, "bb": sw * kb + sb, "ab": sw * F + sb}
        T = {"aa": new["aa"] + sw * da * T["aa"], "bb": new["bb"] + sw * db * T["bb"], "ab": new["ab"] + sw * D * T["ab"]}
        K = new
    return K["ab"], T["ab"]


def main():
    mp.mp.dps = DPS + 10
    X = np.random.default_rng(2017).standard_normal((64, 16))
    G = [[mp.fsum(mp.mpf(float(x)) * mp.mpf(float(y)) for x, y in zip(X[i], X[j])) / 16 for j in range(64)]
         for i in range(64)]
    t = time.time()
    rules = {n: log_rule(n) for n in (NODES, NODES + 8)}
    print(f"rules: {time.time() - t:.1f} s", flush=True)
    out = {"method": __doc__.split("\n\n")[1].replace("\n", " "), "dps": DPS, "depth": DEPTH,
           "inputs": "numpy.random.default_rng(2017).standard_normal((64, 16)); X Xᵀ/16 in mpmath", "cases": []}
    for sw, sb, pairs in CASES:
        for a, b in pairs:
            t = time.time()
            K1, T1 = entry(rules[NODES], G, a, b, sw, sb)
            K2, T2 = entry(rules[NODES + 8], G, a, b, sw, sb)
            case = {"sigma_w2": sw, "sigma_b2": sb, "pair": [a, b], "nngp": mp.nstr(K1, 25), "ntk": mp.nstr(T1, 25),
                    "nngp_error": mp.nstr(abs(K1 - K2), 3), "ntk_error": mp.nstr(abs(T1 - T2), 3)}
            print(case, f"{time.time() - t:.0f} s", flush=True)
            out["cases"].append(case)
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data",
                        "tanh_kernels_depth100.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
    print("wrote", path)


if __name__ == "__main__":
    main()
