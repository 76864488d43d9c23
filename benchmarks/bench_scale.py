"""Scale benchmarks (issue 13): the exact simulators against the time to draw their normal variates, quiet and with
one competing busy process, and whole-run parallelism (``--jobs``, a Dask LocalCluster).

    python benchmarks/bench_scale.py [--quick] [--huge] [--verify-all quick|standard] [--cluster] [--floor]

* random-number bound: the time of ONE ``torch.randn`` call drawing every normal variate the simulation draws, in
  its dtype, on the same generator (the strictest bound: no per-layer call overhead);
* quiet vs contended: the same simulation while another process runs a busy loop on one core, with the thread
  policy (numerics.threads) and with torch's default thread count;
* ``--huge``: width 10⁶, n = 10, depth 600, float32 (the issue's feasibility target);
* ``--verify-all B``: ``python -m verify all --budget B --no-cache`` with ``--jobs 1`` and ``--jobs 2`` (minutes);
* ``--cluster``: a 2-worker LocalCluster: start-up time and per-claim overhead against ``--jobs 2``;
* ``--floor``: the BN chain against what eager torch can reach (the draws plus its two small products alone; a
  minimal loop of the layer's kernels), interleaved in one process.

Ratios are against baselines measured in the same process; docs/benchmarks.md records the figures. Not a timed test.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import subprocess
import sys
import tempfile
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from numerics import threads as T  # noqa: E402
from numerics.bn_chain import simulate_bn_chain  # noqa: E402
from numerics.isometry_mlp import equicorrelated_gram, simulate_isometry_mlp  # noqa: E402


def best(fn, repeat=5):
    t = []
    for _ in range(repeat):
        a = time.perf_counter()
        fn()
        t.append(time.perf_counter() - a)
    return min(t)


def rng_bound(count: int, dtype, repeat=5) -> float:
    g = torch.Generator().manual_seed(0)
    return best(lambda: torch.randn(count, generator=g, dtype=dtype), repeat)


def _busy(stop):
    x = 0
    while not stop.is_set():
        for i in range(100000):
            x += i * i


class Contention:
    """Another process keeping one core busy for the duration of the block."""

    def __enter__(self):
        ctx = mp.get_context("spawn")
        self.stop = ctx.Event()
        self.proc = ctx.Process(target=_busy, args=(self.stop,), daemon=True)
        self.proc.start()
        time.sleep(0.5)
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.terminate()


def bn_chain_rows(sizes, repeat=9):
    """The exact chain against two random-number bounds, measured interleaved (chain, bound, chain, …; best of
    ``repeat``) so that a change of the machine's speed during the run moves both: ``bound`` is one ``torch.randn`` call
    of every variate the simulation draws (the issue's definition), ``fill`` is ``normal_`` into a buffer allocated
    beforehand (the same numbers without the allocation and its first-touch page faults; the stricter bound)."""
    print("\n# exact BN chain (relu) vs the random-number bound (one randn call of all its variates) and the fill bound")
    print(f"{'dtype':8s} {'d':>8s} {'n':>3s} {'depth':>5s} {'seeds':>5s} {'bound s':>9s} {'exact s':>9s} {'ratio':>6s}"
          f" {'fill s':>9s} {'ratio':>6s}")
    rows = []
    for dtype in (torch.float64, torch.float32):
        for d, n, depth, S in sizes:
            draws = S * n * d * depth + S * n * d
            g = torch.Generator().manual_seed(0)
            buf = torch.empty(draws, dtype=dtype)
            reps = repeat if draws * depth <= 10 ** 9 else max(2, repeat // 3)
            tb, te, tf = [], [], []
            for _ in range(reps):
                te.append(best(lambda: simulate_bn_chain("relu", d, n, depth, S, dtype=dtype, layers=[depth]), 1))
                tb.append(best(lambda: torch.randn(draws, generator=g, dtype=dtype), 1))
                tf.append(best(lambda: buf.normal_(generator=g), 1))
            tb, te, tf = min(tb), min(te), min(tf)
            buf = None   # free it before the next size
            name = str(dtype).replace("torch.", "")
            print(f"{name:8s} {d:8d} {n:3d} {depth:5d} {S:5d} {tb:9.4f} {te:9.4f} {te / tb:6.2f} {tf:9.4f} {te / tf:6.2f}")
            rows.append(dict(dtype=name, d=d, n=n, depth=depth, seeds=S, bound=tb, exact=te, ratio=te / tb,
                             fill=tf, ratio_fill=te / tf))
    return rows


def floor_rows(d=1000, n=10, depth=60, S=4, repeat=15):
    """What eager torch can reach for the exact BN chain, interleaved in one process (best of ``repeat``), one thread
    (the policy's choice at this size): the randn and fill bounds; the draws plus the layer's two n×n-by-n×d products
    and nothing else (a floor: no normalisation, σ, Cholesky or checks); a minimal eager loop with every kernel the
    layer needs and no Python beyond them; and the chain itself."""
    print(f"\n# the eager floor of the exact BN chain: relu, d = {d}, n = {n}, depth {depth}, {S} seeds, one thread")
    rows = []
    with T.intra_op_threads(threads=1):
        for dtype in (torch.float32, torch.float64):
            g = torch.Generator().manual_seed(0)
            k = 16
            Zb = torch.empty(k, S, n, d, dtype=dtype)
            h, pre = torch.empty(S, n, d, dtype=dtype), torch.empty(S, n, d, dtype=dtype)
            inv = torch.empty(S, 1, d, dtype=dtype)
            M = torch.linalg.cholesky(torch.eye(n, dtype=dtype) + 0.5).expand(S, n, n).contiguous()
            C = (torch.eye(n, dtype=dtype) - 1.0 / n).expand(S, n, n).contiguous()
            G = torch.empty(S, n, n, dtype=dtype)
            unused = h.new_zeros(1, 1, 1)
            fill = torch.empty(S * n * d * depth, dtype=dtype)

            def products():
                for ell in range(depth):
                    if ell % k == 0:
                        Zb.normal_(generator=g)
                    torch.bmm(M, Zb[ell % k], out=h)
                    torch.bmm(h, h.transpose(1, 2), out=G)

            def minimal():
                Gl = torch.eye(n, dtype=dtype).expand(S, n, n) * 0.5 + 0.5
                infos = []
                for ell in range(depth):
                    if ell % k == 0:
                        Zb.normal_(generator=g)
                    Ml, info = torch.linalg.cholesky_ex(Gl)
                    infos.append(info)
                    torch.bmm(torch.bmm(C, Ml), Zb[ell % k], out=h)
                    torch.mul(h, h, out=pre)
                    torch.sum(pre, dim=1, keepdim=True, out=inv)
                    inv.mul_(1.0 / n).rsqrt_()
                    torch.mul(h, inv, out=pre)
                    torch.relu_(pre)
                    Gl = torch.baddbmm(unused, pre, pre.transpose(1, 2), beta=0.0, alpha=1.0 / d)
                return bool(torch.stack(infos).any())
            fns = {"randn bound": lambda: torch.randn(S * n * d * depth, generator=g, dtype=dtype),
                   "fill bound": lambda: fill.normal_(generator=g),
                   "draws + 2 products": products, "minimal eager loop": minimal,
                   "chain": lambda: simulate_bn_chain("relu", d, n, depth, S, dtype=dtype, layers=[depth])}
            t = {name: [] for name in fns}
            for _ in range(repeat):
                for name, fn in fns.items():
                    t[name].append(best(fn, 1))
            t = {name: min(v) for name, v in t.items()}
            name = str(dtype).replace("torch.", "")
            for what, v in t.items():
                print(f"  {name:8s} {what:20s} {v * 1e3:8.2f} ms   / randn {v / t['randn bound']:5.2f}"
                      f"   / fill {v / t['fill bound']:5.2f}")
            rows.append(dict(dtype=name, **{k_.replace(' ', '_'): v for k_, v in t.items()}))
    return rows


def isometry_rows(repeat=3):
    print("\n# exact isometry MLP (eq 1, tanh) vs the random-number bound")
    rows = []
    for dtype in (torch.float64, torch.float32):
        for d, n, depth, S in ((1000, 10, 100, 10), (100_000, 10, 20, 1)):
            tb = rng_bound(S * n * d * depth, dtype, repeat)
            G0 = equicorrelated_gram(n, 0.5)
            te = best(lambda: simulate_isometry_mlp("tanh", d, G0, depth, S, dtype=dtype, layers=[depth]), repeat)
            name = str(dtype).replace("torch.", "")
            print(f"{name:8s} d={d:7d} n={n} depth {depth} seeds {S}: bound {tb:.4f} s, exact {te:.4f} s, ratio {te / tb:.2f}")
            rows.append(dict(dtype=name, d=d, n=n, depth=depth, seeds=S, bound=tb, exact=te, ratio=te / tb))
    return rows


def contention_rows(repeat=7):
    print("\n# quiet vs one competing busy process: BN chain d = 1000, n = 10, depth 60, 4 seeds, float64")
    run = lambda: simulate_bn_chain("relu", 1000, 10, 60, 4)  # noqa: E731
    out = {}
    for label, setting in (("policy (auto)", "auto"), ("2 threads", "2")):
        os.environ[T.ENV] = setting
        quiet = best(run, repeat)
        with Contention():
            busy = best(run, repeat)
            worst = max(best(run, 1) for _ in range(repeat))
        out[label] = dict(quiet=quiet, contended=busy, contended_worst=worst)
        print(f"  {label:14s}: quiet {quiet:.3f} s, contended {busy:.3f} s (best of {repeat}; worst {worst:.3f} s), "
              f"ratio {busy / quiet:.2f}")
    os.environ.pop(T.ENV, None)
    return out


def huge_row():
    print("\n# width 10⁶, n = 10, depth 600, float32, 1 seed (exact)")
    d, n, depth = 1_000_000, 10, 600
    tb = rng_bound(n * d * 20, torch.float32, 2) * depth / 20
    t = time.perf_counter()
    G = simulate_bn_chain("relu", d, n, depth, 1, dtype=torch.float32, layers=[depth])
    te = time.perf_counter() - t
    print(f"  {te:.1f} s (random-number bound {tb:.1f} s, ratio {te / tb:.2f}); G_600 finite: "
          f"{bool(torch.isfinite(G).all())}, threads {T.threads_for(n * d)}")
    return dict(seconds=te, bound=tb, ratio=te / tb)


def verify_all_rows(budget: str):
    print(f"\n# python -m verify all --budget {budget} --no-cache: --jobs 1 vs --jobs 2")
    out, reports = {}, {}
    env = dict(os.environ, DEEPINIT_NO_CACHE="1")
    for jobs in (1, 2):
        path = os.path.join(tempfile.mkdtemp(), "r.json")
        t = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "verify", "all", "--budget", budget, "-q", "--json", path,
                            "--jobs", str(jobs), "--expect", "shipped"], cwd=ROOT, env=env, capture_output=True,
                           text=True)
        out[jobs] = time.perf_counter() - t
        reports[jobs] = path
        print(f"  --jobs {jobs}: {out[jobs]:.0f} s (exit {r.returncode})")
    same = _numbers(reports[1]) == _numbers(reports[2])
    print(f"  speed-up {out[1] / out[2]:.2f}×; identical verdicts and numbers: {same}")
    return dict(jobs1=out[1], jobs2=out[2], speedup=out[1] / out[2], identical=same)


def _numbers(path):
    from verify.parallel import comparable_verdicts
    return comparable_verdicts(path)


def cluster_rows():
    from distributed import LocalCluster
    claims = ["bn-finite-width:figure1", "bn-finite-width:corollary7", "isometry:lemma-a1", "covariance-sde:eq2-6"]
    print(f"\n# Dask LocalCluster (2 workers) vs --jobs 2: {len(claims)} quick claims")
    env = dict(os.environ, DEEPINIT_NO_CACHE="1")
    base = [sys.executable, "-m", "verify", *claims, "--budget", "quick", "-q"]
    t = time.perf_counter()
    subprocess.run(base + ["--jobs", "2"], cwd=ROOT, env=env, capture_output=True, check=True)
    local = time.perf_counter() - t
    t = time.perf_counter()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        up = time.perf_counter() - t
        t2 = time.perf_counter()
        subprocess.run(base + ["--scheduler", c.scheduler_address], cwd=ROOT, env=env, capture_output=True, check=True)
        run = time.perf_counter() - t2
    print(f"  --jobs 2: {local:.1f} s; cluster start-up {up:.1f} s, run on it {run:.1f} s "
          f"(overhead vs --jobs 2: {run - local:+.1f} s)")
    return dict(jobs2=local, cluster_start=up, cluster_run=run)


def points_rows(claim: str = "isometry:figure7", budget: str = "quick"):
    """One claim whose sweep points are tasks (verify.parallel.map_points): serial against a 2-worker LocalCluster,
    where its points spread over both workers; identical numbers required."""
    from distributed import LocalCluster
    print(f"\n# sweep points as tasks: {claim} --budget {budget}, serial vs a 2-worker LocalCluster")
    env = dict(os.environ, DEEPINIT_NO_CACHE="1")
    paths = [os.path.join(tempfile.mkdtemp(), "r.json") for _ in range(2)]
    base = [sys.executable, "-m", "verify", claim, "--budget", budget, "-q"]
    t = time.perf_counter()
    subprocess.run(base + ["--json", paths[0]], cwd=ROOT, env=env, capture_output=True)
    serial = time.perf_counter() - t
    t = time.perf_counter()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        up = time.perf_counter() - t
        t2 = time.perf_counter()
        subprocess.run(base + ["--json", paths[1], "--scheduler", c.scheduler_address], cwd=ROOT, env=env,
                       capture_output=True)
        run = time.perf_counter() - t2
    same = _numbers(paths[0]) == _numbers(paths[1])
    print(f"  serial {serial:.1f} s; cluster start-up {up:.1f} s, run on it {run:.1f} s ({serial / run:.2f}×); "
          f"identical numbers: {same}")
    return dict(claim=claim, budget=budget, serial=serial, cluster_start=up, cluster_run=run, identical=same)


def gpu_rows(repeat=5):
    """CPU/GPU ratio of the exact BN chain (only where CUDA is present; nothing else needs a GPU)."""
    if not torch.cuda.is_available():
        print("\n# GPU: no CUDA device on this machine; the CPU/GPU ratio is not measured")
        return None
    print("\n# exact BN chain, CPU vs CUDA (float32 and float64)")
    rows = []
    for dtype in (torch.float32, torch.float64):
        for d, n, depth, S in ((1000, 10, 60, 4), (100_000, 10, 20, 1), (1_000_000, 10, 20, 1)):
            cpu = best(lambda: simulate_bn_chain("relu", d, n, depth, S, dtype=dtype, layers=[depth]), repeat)

            def gpu():
                simulate_bn_chain("relu", d, n, depth, S, dtype=dtype, layers=[depth], device="cuda")
                torch.cuda.synchronize()
            gpu()
            g = best(gpu, repeat)
            name = str(dtype).replace("torch.", "")
            print(f"  {name} d={d} n={n} depth {depth} seeds {S}: cpu {cpu:.4f} s, cuda {g:.4f} s, ratio {cpu / g:.1f}×")
            rows.append(dict(dtype=name, d=d, cpu=cpu, gpu=g, ratio=cpu / g))
    return rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--huge", action="store_true")
    p.add_argument("--verify-all", choices=("quick", "standard"))
    p.add_argument("--cluster", action="store_true")
    p.add_argument("--json", help="write the measurements here")
    p.add_argument("--chain-only", action="store_true", help="only the BN chain rows")
    p.add_argument("--floor", action="store_true", help="only: the chain against what eager torch can reach")
    p.add_argument("--points", metavar="CLAIM", help="only: CLAIM serial vs its sweep points on a 2-worker LocalCluster")
    a = p.parse_args()
    print(f"torch {torch.__version__}, cores {T.available_cores()}, default threads {torch.get_num_threads()}")
    res = {}
    if a.floor:
        res["floor"] = floor_rows()
        if a.json:
            with open(a.json, "w") as f:
                json.dump(res, f, indent=1)
        return
    if a.points:
        res["points"] = points_rows(a.points)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(res, f, indent=1)
        return
    sizes = [(1000, 10, 60, 4), (1000, 4, 60, 4), (1000, 64, 60, 4), (100_000, 10, 20, 1)]
    if not a.quick:
        sizes += [(100_000, 64, 10, 1), (1_000_000, 10, 5, 1)]
    res["bn_chain"] = bn_chain_rows(sizes)
    if a.chain_only:
        if a.json:
            with open(a.json, "w") as f:
                json.dump(res, f, indent=1)
        return
    res["isometry"] = isometry_rows()
    res["contention"] = contention_rows()
    res["gpu"] = gpu_rows()
    if a.huge:
        res["huge"] = huge_row()
    if a.verify_all:
        res["verify_all"] = verify_all_rows(a.verify_all)
    if a.cluster:
        res["cluster"] = cluster_rows()
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
