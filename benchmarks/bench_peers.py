"""Peers in one process: value differences and time ratios of the engine against the libraries a researcher would
otherwise use, each an optional install (none is a dependency of this package). The script says what it skipped.

* **dks** 0.1.2 (DeepMind's deep kernel shaping, its NumPy base): the local C map's slope C′(1) = E φ′(z)²/E φ(z)²
  and its value C(½) at q = 1 (``dks.base.activation_transform._calc_c_slope``/``_calc_c_map``: a 10⁵-point
  Gauss–Legendre rule on [−10, 10] and scipy's dblquad) against the engine's mpmath routes
  (:func:`theory.gaussian_expectation`, :func:`theory.bivariate_expectation`); the reference is a 30-digit mpmath
  quadrature of E φ′², E φ² and Mehler's series for C(½).
* **torchsde** 0.2.6: the correlation SDE dρ = (ν(ρ) − ρ(1 − ρ²)/2)dt + (1 − ρ²)dB of the covariance-sde paper
  (c₊ = 0, c₋ = −1), Euler–Maruyama with the same step, :func:`numerics.covariance_sde.simulate_correlation_sde`
  against ``torchsde.sdeint(method="euler")``: the law of ρ_T (two-sample Kolmogorov–Smirnov) and the time.
* **neural-tangents** 0.6.5: needs JAX, which is not installed with this package; the recorded analytic kernels of
  ``tests/data/neural_tangents_0.6.5_kernels.json`` (made by ``benchmarks/peers/neural_tangents_kernels.py``) are
  compared with :func:`theory.network_kernels` here, and timings live in docs/benchmarks.md.

Threads are pinned to 1 on both sides. Run::

    pip install --target /tmp/peers dks==0.1.2 torchsde==0.2.6 autograd absl-py --no-deps
    PYTHONPATH=/tmp/peers OMP_NUM_THREADS=1 python benchmarks/bench_peers.py [--quick]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import mpmath  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
torch.set_num_threads(1)

from theory import activation, bivariate_expectation, gaussian_expectation, network_kernels  # noqa: E402

ACTS = ("tanh", "softplus", "elu", "swish", "gelu_exact", "erf")
OURS = {"tanh": "tanh", "softplus": "softplus", "elu": "elu", "swish": "silu", "gelu_exact": "gelu", "erf": "erf"}


def _timed(fn, repeat=1):
    best, out = math.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return out, best


def _reference_c_maps(name):
    """C′(1) and C(½) at 30 digits: mpmath quadrature of E φ′² and E φ², and C(½) by Mehler's expansion
    E φ(x)φ(ρx + √(1 − ρ²)y) = Σ_k c_k² ρ^k, c_k = E φ(z)He_k(z)/√k! (56 terms: 2⁻⁵⁶ at ρ = ½)."""
    act = activation(OURS[name])
    f, d = act.mpmath, act.derivative(1).mpmath
    with mpmath.workdps(30):
        g = lambda h: mpmath.exp(-h * h / 2) / mpmath.sqrt(2 * mpmath.pi)  # noqa: E731
        cuts = [-mpmath.inf] + [mpmath.mpf(b) for b in act.breakpoints] + [0, mpmath.inf]
        cuts = sorted(set(cuts))
        q = mpmath.quad(lambda x: f(x) ** 2 * g(x), cuts)
        slope = mpmath.quad(lambda x: d(x) ** 2 * g(x), cuts) / q
        half = mpmath.mpf(0)
        for k in range(56):
            ck = mpmath.quad(lambda x: f(x) * mpmath.hermite(k, x / mpmath.sqrt(2)) * 2 ** (-mpmath.mpf(k) / 2) * g(x),
                             cuts) / mpmath.sqrt(mpmath.factorial(k))
            half += ck * ck / 2 ** k
        half /= q
    return float(slope), float(half)


class _TooSlow(Exception):
    pass


def _limited(fn, seconds):
    """fn() or None when it runs past ``seconds`` (SIGALRM)."""
    import signal

    def stop(*_):
        raise _TooSlow()
    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        return fn()
    except _TooSlow:
        return None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def bench_dks(quick: bool) -> list[dict]:
    try:
        from dks.base import activation_getter, activation_transform as at
    except ImportError as e:
        print(f"dks: skipped ({e}); install: pip install dks==0.1.2 autograd absl-py", file=sys.stderr)
        return []
    rows = []
    for name in ACTS[:3] if quick else ACTS:
        phi = activation_getter.get_activation_function(name)
        ours = activation(OURS[name])
        ref_slope, ref_half = _reference_c_maps(name)
        (d_slope, t_d_slope) = _timed(lambda: float(at._calc_c_slope(phi, c=1.0)))

        def our_slope():
            d = ours.derivative(1).mpmath
            return (gaussian_expectation(lambda x: d(x) ** 2, 1.0, ours.breakpoints).value
                    / gaussian_expectation(lambda x: ours.mpmath(x) ** 2, 1.0, ours.breakpoints).value)
        (o_slope, t_o_slope) = _timed(our_slope)
        (d_half, t_d_half) = _timed(lambda: _limited(lambda: float(at._calc_c_map(phi, c=0.5)), 60))

        def our_half():
            q = gaussian_expectation(lambda x: ours.mpmath(x) ** 2, 1.0, ours.breakpoints).value
            return bivariate_expectation(ours, ours, 1.0, 1.0, 0.5).value / q
        (o_half, t_o_half) = _timed(our_half)
        rows.append({"activation": name, "C'(1) reference": ref_slope,
                     "C'(1) |dks - ref|": abs(d_slope - ref_slope), "C'(1) |ours - ref|": abs(o_slope - ref_slope),
                     "C'(1) dks s": t_d_slope, "C'(1) ours s": t_o_slope,
                     "C(1/2) |dks - ref|": abs(d_half - ref_half) if d_half is not None else "over 60 s",
                     "C(1/2) |ours - ref|": abs(o_half - ref_half),
                     "C(1/2) dks s": t_d_half, "C(1/2) ours s": t_o_half})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def bench_torchsde(quick: bool) -> list[dict]:
    try:
        import torchsde
    except ImportError as e:
        print(f"torchsde: skipped ({e}); install: pip install torchsde==0.2.6", file=sys.stderr)
        return []
    from scipy import stats
    from numerics.covariance_sde import nu_numeric, simulate_correlation_sde
    cp, cm, rho0, T, dt = 0.0, -1.0, 0.3, 1.0, 1e-3
    paths = 2000 if quick else 20000
    k = (cp - cm) ** 2 / (2 * math.pi)

    class Correlation(torch.nn.Module):
        noise_type, sde_type = "diagonal", "ito"

        def f(self, t, y):
            r = y.clamp(-1, 1)
            return k * (torch.sqrt((1 - r * r).clamp(min=0)) - r * torch.arccos(r)) - 0.5 * r * (1 - r * r)

        def g(self, t, y):
            r = y.clamp(-1, 1)
            return 1 - r * r

    ours, t_ours = _timed(lambda: simulate_correlation_sde(cp, cm, rho0, T, dt, paths, scheme="em", seed=1,
                                                           keep="last").values[:, -1])
    torch.manual_seed(2)
    y0 = torch.full((paths, 1), rho0, dtype=torch.float64)
    ts = torch.tensor([0.0, T], dtype=torch.float64)
    with torch.no_grad():
        peer, t_peer = _timed(lambda: torchsde.sdeint(Correlation(), y0, ts, method="euler", dt=dt)[-1, :, 0]
                              .clamp(-1, 1).numpy())
    ks = stats.ks_2samp(ours, peer)
    _ = nu_numeric  # the drift simulated by ours (same formula as Correlation.f)
    row = {"paths": paths, "dt": dt, "T": T, "ours s": t_ours, "torchsde s": t_peer, "ratio": t_peer / t_ours,
           "KS D": float(ks.statistic), "KS p": float(ks.pvalue), "mean ours": float(np.mean(ours)),
           "mean torchsde": float(np.mean(peer))}
    print(json.dumps(row), flush=True)
    return [row]


def bench_neural_tangents_recorded() -> list[dict]:
    path = os.path.join(ROOT, "tests", "data", "neural_tangents_0.6.5_kernels.json")
    try:
        import jax  # noqa: F401
        print("neural-tangents: JAX is importable, but this script compares the recorded values only; timings: "
              "benchmarks/bench_kernels.py's peer section", file=sys.stderr)
    except ImportError:
        print("neural-tangents: not timed (JAX not installed); comparing the recorded values", file=sys.stderr)
    with open(path, encoding="utf-8") as f:
        rec = json.load(f)
    X = np.array(rec["inputs"])
    rows = []
    for case in rec["cases"]:
        if case["depth"] != 100:
            continue
        k = network_kernels(case["act"] if case["act"] != "abs" else "abs(x)", X, case["depth"], case["sigma_w2"],
                            case["sigma_b2"])
        for key, ours in (("nngp", k.nngp.value), ("ntk", k.ntk.value)):
            peer = np.array(case[key])
            rows.append({"activation": case["act"], "kernel": key,
                         "max |ours - peer| / max |peer|": float(np.max(np.abs(ours - peer)) / np.max(np.abs(peer)))})
            print(json.dumps(rows[-1]), flush=True)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer activations and paths")
    ap.add_argument("--json", help="write the rows here")
    args = ap.parse_args(argv)
    out = {"threads": torch.get_num_threads(), "dks": bench_dks(args.quick), "torchsde": bench_torchsde(args.quick),
           "neural_tangents_recorded": bench_neural_tangents_recorded()}
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
