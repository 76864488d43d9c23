"""The GPU check, unattended, in one process: every simulator on CUDA against the same call on the CPU.

    python benchmarks/bench_gpu.py [--smoke] [--json gpu.json] [--no-verify] [--jobs 8] [--max-width 1000000]

For each simulator (BN chain exact and dense, the isometry MLP exact and dense, BN gradients, the plain σ_w²/σ_b² MLP
exact and dense, shaped networks, the two training ensembles) and each dtype (float64, float32) the same call runs
on the CPU and on CUDA. The two devices draw different random numbers (torch's CPU and CUDA generators are different
streams), so the outputs are compared *in law*: one scalar statistic per network (a Gram entry of the last layer, a
squared gradient norm, a final loss), a two-sample Kolmogorov–Smirnov test and the difference of the means in units
of its Monte Carlo standard error — the bound that the random numbers alone allow. A row passes when the KS p-value
is at least ``ALPHA`` and |z| ≤ ``Z_MAX`` (1e-3 for the whole report, Bonferroni over its in-law rows). It also
times both devices (CUDA synchronised) and, for the exact-in-law simulators, runs a width ladder up to
``--max-width`` (10⁶ by default; a width that does not fit in the GPU's memory is reported and skipped).

The covariance SDE and correlation SDE solvers are numpy on the CPU (small m×m matrices per path): they have no
CUDA path, and the report says so with their CPU time.

Then, unless ``--no-verify``: ``python -m verify all --budget quick --expect shipped`` with ``--device cuda`` and with
``--device cpu`` (``--jobs N``, no cache); the verdicts of the two runs must be equal claim by claim.

``--smoke`` runs the same code paths at small sizes; without CUDA every CUDA half is skipped with a message (the CPU
half still runs against a second CPU call with other seeds), and the verify step checks that ``--device cuda`` is
refused with exit status 2. The test suite runs the smoke mode (tests/test_gpu_check.py). Exit status: 0 when every
row passes, 1 otherwise. docs/benchmarks.md records the figures of each GPU run, with the device named.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import subprocess
import sys
import time
from typing import Callable

import numpy as np
import torch
from scipy import stats

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import numerics  # noqa: E402
from numerics.covariance_sde import Shape, covariance_drift, simulate_covariance_sde  # noqa: E402

#: the level of each in-law row: the KS p-value must be at least ALPHA and |z| ≤ Z_MAX — 1e-3 for the whole report,
#: Bonferroni over at most 32 in-law rows (a correct CUDA path fails a full run with probability ≤ 1e-3)
ALPHA = 1e-3 / 32
Z_MAX = float(stats.norm.isf(ALPHA / 2))


@dataclasses.dataclass(frozen=True)
class Case:
    """One simulator call: ``run(device, dtype, seed0, members, size)`` returns one statistic per network member."""

    name: str
    run: Callable
    members: int            # networks per call (full mode; smoke uses ``smoke_members``)
    size: int               # the width of the full mode
    smoke_size: int
    smoke_members: int = 40
    exact: bool = False     # exact in law: cost O(N n²), the width ladder applies
    what: str = ""


def _np(x) -> np.ndarray:
    return x.detach().cpu().double().numpy() if isinstance(x, torch.Tensor) else np.asarray(x, dtype=float)


def _bn_chain(method):
    def run(device, dtype, seed, members, width):
        G = numerics.simulate_bn_chain("relu", width, 4, 6, members, method=method, device=device, dtype=dtype,
                                       seed=seed, layers=[6])
        return _np(G)[:, 0, 0, 1]
    return run


def _isometry(method):
    def run(device, dtype, seed, members, width):
        G0 = numerics.equicorrelated_gram(4, 0.5)
        G = numerics.simulate_isometry_mlp("tanh", width, G0, 6, members, method=method, seed=seed, device=device,
                                           dtype=dtype, layers=[6])
        return _np(G)[:, 0, 0, 1]
    return run


def _bn_gradients(device, dtype, seed, members, width):
    run = numerics.simulate_bn_gradients("relu", width, 4, 6, members, method="dense", device=device, dtype=dtype,
                                         seed=seed)
    return np.log(_np(run.sq_grad)[:, 0])


def _mlp(method):
    def run(device, dtype, seed, members, width):
        X = numerics.inputs_with_moments(1.0, 0.5, 2, 64)
        r = numerics.simulate_mlp("tanh", 1.5, 0.05, width, 6, X, seeds=list(range(seed, seed + members)),
                                  method=method, dtype=dtype, device=device, backprop=True)
        return _np(r.cov)[:, -1, 0, 1] + _np(r.grad_sq)[:, 0, 0]
    return run


def _shaped(device, dtype, seed, members, width):
    V0 = np.array([[1.0, 0.5], [0.5, 1.0]])
    r = numerics.covariance_sde.simulate_shaped_network(Shape("relu", width, 1.0, -1.0), 8, V0, members,
                                                        method="exact", seed=seed, device=device, dtype=dtype,
                                                        layers=[8])
    return r.rho[:, 0]


def _train_bn(device, dtype, seed, members, width):
    runs = numerics.train_bn_mlp_ensemble("digits", "relu", 4, width, 32, 40, lr=0.05,
                                          seeds=list(range(seed, seed + members)), device=device, dtype=dtype)
    return np.array([r.loss[-1] for r in runs], dtype=float)


def _train_isometry(device, dtype, seed, members, width):
    runs = numerics.train_isometry_mlp_ensemble("digits", "tanh", 4, width, 32, 1, lr=0.05,
                                                seeds=list(range(seed, seed + members)), device=device, dtype=dtype)
    return np.array([r.train_loss[-1] for r in runs], dtype=float)


CASES = (
    Case("BN chain, exact", _bn_chain("exact"), 2000, 4096, 64, exact=True, what="G₆[0,1], ReLU, B = 4"),
    Case("BN chain, dense", _bn_chain("dense"), 400, 1024, 32, what="G₆[0,1], ReLU, B = 4"),
    Case("isometry MLP, exact", _isometry("exact"), 2000, 4096, 64, exact=True, what="G⁶[0,1], tanh, n = 4"),
    Case("isometry MLP, dense", _isometry("dense"), 400, 1024, 32, what="G⁶[0,1], tanh, n = 4"),
    Case("BN gradients", _bn_gradients, 400, 512, 32, what="log ‖∂L/∂h¹‖², ReLU, B = 4"),
    Case("plain MLP, exact", _mlp("exact"), 1000, 4096, 64, exact=True, what="K⁶[0,1] + |δ⁰|², tanh"),
    Case("plain MLP, dense", _mlp("dense"), 400, 1024, 32, what="K⁶[0,1] + |δ⁰|², tanh"),
    Case("shaped network", _shaped, 1000, 256, 16, what="ρ₈, shaped ReLU c± = ±1"),
    Case("BN training ensemble", _train_bn, 24, 128, 16, smoke_members=6, what="loss after 40 SGD steps"),
    Case("isometry training ensemble", _train_isometry, 24, 128, 16, smoke_members=6, what="training loss, 1 epoch"),
)


def cuda_available() -> bool:
    return torch.cuda.is_available()


def _timed(fn, device):
    if device == "cuda":
        torch.cuda.synchronize()
    t = time.perf_counter()
    out = fn()
    if device == "cuda":
        torch.cuda.synchronize()
    return out, time.perf_counter() - t


def in_law(a: np.ndarray, b: np.ndarray) -> dict:
    """KS two-sample p-value and z = (mean a − mean b)/√(se_a² + se_b²) of two samples of one statistic."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    finite = bool(np.all(np.isfinite(a)) and np.all(np.isfinite(b)))
    if not finite:
        return {"ks_p": None, "z": None, "finite": False, "passed": False}
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    z = (a.mean() - b.mean()) / se if se > 0 else (0.0 if a.mean() == b.mean() else math.inf)
    p = float(stats.ks_2samp(a, b).pvalue)
    return {"ks_p": p, "z": float(z), "finite": True, "passed": bool(p >= ALPHA and abs(z) <= Z_MAX),
            "mean_a": float(a.mean()), "mean_b": float(b.mean()), "se": se}


def compare_case(case: Case, dtype, smoke: bool, cuda: bool) -> dict:
    """The case on the CPU (seeds 0..M−1) against CUDA (seeds M..2M−1), or, without CUDA, against a second CPU call
    (seeds M..2M−1): the same code path, in law."""
    members = case.smoke_members if smoke else case.members
    size = case.smoke_size if smoke else case.size
    other = "cuda" if cuda else "cpu"
    a, t_cpu = _timed(lambda: case.run("cpu", dtype, 0, members, size), "cpu")
    try:
        b, t_other = _timed(lambda: case.run(other, dtype, members, members, size), other)
    except torch.cuda.OutOfMemoryError as exc:   # pragma: no cover - GPU only
        return {"case": case.name, "dtype": str(dtype).replace("torch.", ""), "width": size, "members": members,
                "against": other, "passed": True, "skipped": f"out of GPU memory: {exc}".splitlines()[0]}
    row = {"case": case.name, "statistic": case.what, "dtype": str(dtype).replace("torch.", ""), "width": size,
           "members": members, "against": other, "seconds_cpu": round(t_cpu, 3), f"seconds_{other}": round(t_other, 3),
           **in_law(a, b)}
    if cuda:
        row["speedup"] = round(t_cpu / t_other, 2) if t_other > 0 else None
    return row


def width_ladder(case: Case, max_width: int, cuda: bool, smoke: bool) -> list[dict]:
    """An exact-in-law simulator at widths 10³…max_width on CUDA (the CPU without CUDA): time per call and whether
    the statistic stays finite; out-of-memory widths are reported, not fatal."""
    device = "cuda" if cuda else "cpu"
    rows = []
    widths = [10 ** k for k in range(3, 7) if 10 ** k <= max_width] if not smoke else [256, 1024]
    for w in widths:
        members = 8 if smoke else 64
        try:
            out, t = _timed(lambda: case.run(device, torch.float64, 0, members, w), device)
            rows.append({"case": case.name, "device": device, "width": w, "members": members, "seconds": round(t, 3),
                         "finite": bool(np.all(np.isfinite(out))), "passed": bool(np.all(np.isfinite(out)))})
        except torch.cuda.OutOfMemoryError:      # pragma: no cover - GPU only
            rows.append({"case": case.name, "device": device, "width": w, "members": members,
                         "skipped": "out of GPU memory", "passed": True})
            torch.cuda.empty_cache()
            break
    return rows


def numpy_only_rows(smoke: bool) -> list[dict]:
    """The covariance SDE (numpy, CPU): no CUDA path; timed so that the report names its cost."""
    paths = 200 if smoke else 20_000
    drift = covariance_drift("relu", c_plus=1.0, c_minus=-1.0)
    V0 = np.array([[1.0, 0.5], [0.5, 1.0]])
    t = time.perf_counter()
    r = simulate_covariance_sde(drift, V0, 1.0, 0.01, paths, seed=0, keep="last")
    return [{"case": "covariance SDE (Euler–Maruyama)", "device": "cpu", "paths": paths,
             "seconds": round(time.perf_counter() - t, 3), "finite": bool(np.all(np.isfinite(r.values))),
             "passed": bool(np.all(np.isfinite(r.values))),
             "note": "numpy on the CPU: no CUDA path (m×m matrices per path)"}]


def verify_rows(jobs: int, smoke: bool, cuda: bool, workdir: str) -> list[dict]:
    """``verify all --budget quick --expect shipped`` on CUDA and on the CPU: equal verdicts claim by claim. Without
    CUDA: ``--device cuda`` must be refused with exit 2 before any work."""
    env = {**os.environ, "DEEPINIT_NO_CACHE": "1", "OMP_NUM_THREADS": "1"}
    base = [sys.executable, "-m", "verify", "all", "--budget", "quick", "--expect", "shipped", "-q"]
    if not cuda:
        t = time.perf_counter()
        r = subprocess.run(base + ["--device", "cuda"], capture_output=True, text=True, env=env, cwd=ROOT,
                           timeout=300)
        refused = r.returncode == 2 and "no CUDA device" in r.stderr and "Traceback" not in r.stderr
        return [{"case": "verify all --device cuda", "skipped": "no CUDA device: the run must be refused",
                 "exit": r.returncode, "message": r.stderr.strip()[:200], "seconds": round(time.perf_counter() - t, 2),
                 "passed": refused}]
    if smoke:                                       # pragma: no cover - GPU only
        base = base[:3] + ["bn-finite-width:eq6", "isometry:figure3"] + base[4:]
    out = {}
    for device in ("cuda", "cpu"):
        path = os.path.join(workdir, f"verify-{device}.json")
        t = time.perf_counter()
        r = subprocess.run(base + ["--device", device, "--jobs", str(jobs), "--json", path], capture_output=True,
                           text=True, env=env, cwd=ROOT, timeout=3600)
        verdicts = {v["claim"]: v["status"] for v in json.load(open(path, encoding="utf-8"))["verdicts"]} \
            if os.path.exists(path) else {}
        out[device] = (r.returncode, verdicts, time.perf_counter() - t, r.stdout.strip().splitlines()[-1:])
    differ = sorted(c for c in set(out["cuda"][1]) | set(out["cpu"][1])
                    if out["cuda"][1].get(c) != out["cpu"][1].get(c))
    return [{"case": "verify all --budget quick --expect shipped", "jobs": jobs,
             "exit_cuda": out["cuda"][0], "exit_cpu": out["cpu"][0],
             "seconds_cuda": round(out["cuda"][2], 1), "seconds_cpu": round(out["cpu"][2], 1),
             "claims": len(out["cpu"][1]), "differing": differ, "summary_cuda": out["cuda"][3],
             "passed": out["cuda"][0] == 0 and out["cpu"][0] == 0 and not differ and bool(out["cpu"][1])}]


def device_name(cuda: bool) -> str:
    if cuda:                                        # pragma: no cover - GPU only
        p = torch.cuda.get_device_properties(0)
        return f"{p.name}, {p.total_memory / 2 ** 30:.0f} GiB, torch {torch.__version__}, CUDA {torch.version.cuda}"
    return f"no CUDA device (torch {torch.__version__}, {os.cpu_count()} CPU cores)"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python benchmarks/bench_gpu.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--smoke", action="store_true", help="small sizes, same code paths (the test suite's mode)")
    p.add_argument("--json", default=None, help="write the rows to this file")
    p.add_argument("--no-verify", action="store_true", help="skip the verify all comparison")
    p.add_argument("--jobs", type=int, default=min(8, os.cpu_count() or 1))
    p.add_argument("--max-width", type=int, default=10 ** 6)
    p.add_argument("--only", default="", help="run only the cases whose name contains this text")
    args = p.parse_args(argv)
    torch.set_num_threads(1 if args.smoke else max(1, (os.cpu_count() or 1)))
    cuda = cuda_available()
    print(f"device: {device_name(cuda)}")
    if not cuda:
        print("CUDA is not available: every CUDA half is skipped; the CPU halves run against a second CPU call")
    rows = []
    workdir = os.path.abspath(os.path.dirname(args.json) if args.json else ".")
    started = time.perf_counter()
    for case in CASES:
        if args.only and args.only not in case.name:
            continue
        for dtype in (torch.float64, torch.float32):
            row = compare_case(case, dtype, args.smoke, cuda)
            rows.append(row)
            print(_line(row))
        if case.exact:
            for row in width_ladder(case, args.max_width, cuda, args.smoke):
                rows.append(row)
                print(_line(row))
    for row in numpy_only_rows(args.smoke):
        rows.append(row)
        print(_line(row))
    if not args.no_verify:
        for row in verify_rows(args.jobs, args.smoke, cuda, workdir):
            rows.append(row)
            print(_line(row))
    failed = [r for r in rows if not r.get("passed")]
    doc = {"device": device_name(cuda), "cuda": cuda, "smoke": args.smoke, "alpha": ALPHA, "z_max": Z_MAX,
           "seconds": round(time.perf_counter() - started, 1), "rows": rows, "failed": len(failed)}
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
    print(f"{len(rows) - len(failed)} of {len(rows)} rows pass in {doc['seconds']} s"
          + (": FAILED " + "; ".join(f"{r['case']} ({r.get('dtype', '')})" for r in failed) if failed else ""))
    return 0 if not failed else 1


def _line(row: dict) -> str:
    bits = [row["case"]] + [f"{k}={row[k]}" for k in ("dtype", "width", "members", "against", "device") if k in row]
    if row.get("skipped"):
        bits.append(f"SKIPPED: {row['skipped']}")
    if row.get("ks_p") is not None:
        bits.append(f"KS p={row['ks_p']:.3g} z={row['z']:+.2f}")
    for k in ("seconds_cpu", "seconds_cuda", "seconds", "speedup", "exit", "exit_cuda", "differing", "note"):
        if k in row:
            bits.append(f"{k}={row[k]}")
    return ("ok   " if row.get("passed") else "FAIL ") + "  ".join(str(b) for b in bits)


if __name__ == "__main__":
    sys.exit(main())
