"""Scale (issue 13): the thread policy, the exact simulators' Cholesky path and memory chunking, and claims as tasks
(``--jobs``, ``--scheduler`` on a Dask LocalCluster) giving the same numbers as a serial run."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

from numerics import threads as T
from numerics.bn_chain import DegenerateBatchError, simulate_bn_chain
from numerics.linalg import gram_factor, psd_sqrt
from theory.errors import DeepinitError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --------------------------------------------------------------------------------------------- thread policy

def test_thread_policy_is_one_thread_for_small_work_and_grows_with_the_work(monkeypatch):
    monkeypatch.delenv(T.ENV, raising=False)
    monkeypatch.setattr(T, "available_cores", lambda: 2)
    assert T.threads_for(4 * 1000 * 10) == 1            # the BN chain of the contention measurement
    assert T.threads_for(T.WORK_PER_THREAD - 1) == 1
    assert T.threads_for(T.WORK_PER_THREAD) == 2
    assert T.threads_for(1e12) == 2                      # never more than the cores
    monkeypatch.setattr(T, "available_cores", lambda: 64)
    assert T.threads_for(1e12) == T.MAX_AUTO_THREADS


def test_thread_setting_pins_the_count_and_a_bad_value_is_a_clear_error(monkeypatch):
    monkeypatch.setenv(T.ENV, "3")
    assert T.threads_for(0) == 3 and T.threads_for(1e12) == 3
    monkeypatch.setenv(T.ENV, "auto")
    assert T.setting() is None
    for bad in ("0", "two", "-1", "1e3"):
        monkeypatch.setenv(T.ENV, bad)
        with pytest.raises(DeepinitError, match="DEEPINIT_THREADS"):
            T.threads_for(0)


def test_intra_op_threads_restores_torch_and_blas_counts(monkeypatch):
    from threadpoolctl import threadpool_info
    monkeypatch.setenv(T.ENV, "2")
    before = torch.get_num_threads()
    blas_before = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
    with T.intra_op_threads(0, blas=True) as n:
        assert n == 2 and torch.get_num_threads() == 2
        assert all(i["num_threads"] == 2 for i in threadpool_info() if i["user_api"] == "blas")
    assert torch.get_num_threads() == before
    assert [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"] == blas_before


# --------------------------------------------------------------------------------------------- exact simulators

def test_gram_factor_is_cholesky_where_it_can_and_the_symmetric_root_where_it_cannot():
    g = torch.Generator().manual_seed(0)
    X = torch.randn(3, 6, 4, generator=g, dtype=torch.float64)
    G = X.transpose(-1, -2) @ X
    G[1] = torch.ones(4, 4, dtype=torch.float64)  # rank one: Cholesky fails, the root does not
    R, finite = gram_factor(G)
    assert finite
    assert torch.allclose(R.transpose(-1, -2) @ R, G, atol=1e-10)
    assert torch.equal(R[0], torch.linalg.cholesky(G[0]).T)       # the cheap factor where it exists
    assert torch.allclose(R[1], psd_sqrt(G[1:2])[0], atol=1e-12)
    G[2, 0, 0] = float("nan")
    _, finite = gram_factor(G)
    assert not finite


def test_exact_bn_chain_matches_dense_weights_in_law():
    """The Cholesky / samples-major exact chain against explicit weight matrices: the mean stationary Gram entries
    agree within 4 standard errors (relu, d = 200, n = 4)."""
    kw = dict(input_cov=0.5 * np.eye(4) + 0.5, layers=range(10, 31))
    ex = simulate_bn_chain("relu", 200, 4, 30, 64, method="exact", seed=1, **kw).numpy()
    de = simulate_bn_chain("relu", 200, 4, 30, 64, method="dense", seed=2, **kw).numpy()
    for stat in (lambda G: G[..., 0, 0], lambda G: G[..., 0, 1]):
        a, b = stat(ex).mean(1), stat(de).mean(1)  # per seed, over the window
        z = (a.mean() - b.mean()) / math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
        assert abs(z) < 4, z


def test_exact_bn_chain_never_returns_nan_and_names_a_degenerate_batch():
    x = np.random.default_rng(0).standard_normal((50, 3))
    x[:, 2] = x[:, 1]                              # two identical samples: fine (the rows still vary)
    G = simulate_bn_chain("relu", 50, 3, 5, 2, input=x)
    assert torch.isfinite(G).all()
    x[:, :] = x[:, :1]                             # every sample the same: BN is undefined
    with pytest.raises(DegenerateBatchError):
        simulate_bn_chain("relu", 50, 3, 5, 2, input=x)


def test_bn_gradient_seeds_run_in_memory_chunks_with_the_first_chunk_unchanged(monkeypatch):
    from numerics import bn_meanfield as nbm
    whole = nbm.simulate_bn_gradients("relu", 64, 8, 6, 2, method="exact", seed=5)
    per_seed = 8 * 8 * 6 * 8 * 64
    monkeypatch.setattr(nbm, "GRADIENT_CHUNK_BYTES", 2 * per_seed)   # chunks of 2 seeds
    chunked = nbm.simulate_bn_gradients("relu", 64, 8, 6, 5, method="exact", seed=5)
    assert chunked.sq_grad.shape == (5, 6)
    np.testing.assert_array_equal(chunked.sq_grad[:2], whole.sq_grad)   # chunk 0 is the unchunked run
    assert not np.allclose(chunked.sq_grad[2:4], whole.sq_grad)         # later chunks are independent draws
    again = nbm.simulate_bn_gradients("relu", 64, 8, 6, 5, method="exact", seed=5)
    np.testing.assert_array_equal(again.sq_grad, chunked.sq_grad)       # a seed gives the same numbers
    assert np.all(np.isfinite(chunked.sq_grad))


# --------------------------------------------------------------------------------------------- claims as tasks

FAST = ["bn-finite-width:figure1", "bn-finite-width:corollary7", "isometry:lemma-a1", "covariance-sde:eq2-6"]


def _cli(*args, timeout=900):
    env = dict(os.environ, DEEPINIT_NO_CACHE="1")
    env.pop("DEEPINIT_THREADS", None)  # the policy as a user gets it
    return subprocess.run([sys.executable, "-m", "verify", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)


def _numbers(path):
    from verify.parallel import comparable_verdicts
    return comparable_verdicts(path)


@pytest.fixture(scope="module")
def serial_report(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("serial") / "r.json")
    r = _cli(*FAST, "--budget", "quick", "-q", "--json", path)
    assert r.returncode == 0, r.stderr[-2000:]
    return path


def test_jobs_2_gives_the_serial_numbers_in_the_requested_order(serial_report, tmp_path):
    path = str(tmp_path / "r.json")
    r = _cli(*FAST, "--budget", "quick", "-q", "--json", path, "--jobs", "2")
    assert r.returncode == 0, r.stderr[-2000:]
    got, want = _numbers(path), _numbers(serial_report)
    assert [v["claim"] for v in got] == FAST
    assert got == want


def test_task_groups_keep_affinity_groups_together():
    from verify.parallel import affinity_groups, task_groups
    assert ("isometry:figure7", "isometry:figure-b6", "isometry:figure-b7") in affinity_groups()
    ids = ["a:x", "isometry:figure-b7", "b:y", "isometry:figure7", "c:z"]
    assert task_groups(ids) == [("a:x",), ("isometry:figure7", "isometry:figure-b7"), ("b:y",), ("c:z",)]
    assert task_groups(["isometry:figure-b6"]) == [("isometry:figure-b6",)]
    assert sorted(c for g in task_groups(FAST) for c in g) == sorted(FAST)


def test_a_group_task_runs_its_claims_in_one_worker_with_the_serial_numbers(serial_report):
    """An affinity group is one task: both claims run in the same worker process (so an in-process cache is shared)
    and each verdict equals the serial run's."""
    from verify import parallel
    from verify.cache import code_hash
    specs = tuple(parallel.TaskSpec(c, "quick", 0, "cpu", "float64") for c in FAST[2:])
    pool = parallel.Pool(jobs=2)
    try:
        fut = pool.submit_group(specs)
        out = fut.result(timeout=600)
        verdicts = [parallel.verdict_of(s, fut, code_hash(), i) for i, s in enumerate(specs)]
    finally:
        pool.close()
    assert len({o["pid"] for o in out}) == 1
    with open(serial_report, encoding="utf-8") as f:
        serial = {v["claim"]: v for v in json.load(f)["verdicts"]}
    for v in verdicts:
        got = v.to_dict()
        assert got["claim"] in FAST[2:] and got["status"] == serial[got["claim"]]["status"]
        assert [e["observed"] for e in got["evidence"]] == [e["observed"] for e in serial[got["claim"]]["evidence"]]


def test_a_dask_local_cluster_gives_the_serial_numbers(serial_report, tmp_path):
    distributed = pytest.importorskip("distributed")
    path = str(tmp_path / "r.json")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        r = _cli(*FAST, "--budget", "quick", "-q", "--json", path, "--scheduler", c.scheduler_address)
    assert r.returncode == 0, r.stderr[-2000:]
    assert _numbers(path) == _numbers(serial_report)


def test_jobs_resume_keeps_finished_verdicts_and_runs_only_the_rest(serial_report, tmp_path):
    path = str(tmp_path / "r.json")
    with open(serial_report, encoding="utf-8") as f:
        doc = json.load(f)
    doc["verdicts"] = doc["verdicts"][:2]   # an interrupted run: two claims finished
    doc["complete"] = False
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    r = _cli(*FAST, "--budget", "quick", "-q", "--resume", path, "--jobs", "2")
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.count("not rerun") == 2 and "running 2 claims on 2 processes" in r.stdout
    assert _numbers(path) == _numbers(serial_report)


@pytest.mark.parametrize("args, message", [
    (["--jobs", "0"], "--jobs 0 must be in [1, 256]"),
    (["--jobs", "two"], "--jobs takes a positive integer"),
    (["--threads", "0"], "--threads 0 must be in"),
    (["--jobs", "2", "--scheduler", "tcp://127.0.0.1:1"], "exclude each other"),
    (["--scheduler", "not an address"], "a Dask scheduler address"),
    (["--scheduler", "tcp://127.0.0.1:1"], "cannot reach a Dask scheduler"),
])
def test_bad_parallel_options_exit_2_with_one_line(args, message, monkeypatch):
    monkeypatch.setenv("DEEPINIT_DASK_TIMEOUT", "3")   # an unreachable scheduler is given up after 3 s
    r = _cli("isometry:lemma-a1", "--budget", "quick", *args, timeout=120)
    assert r.returncode == 2, (r.returncode, r.stderr[-1000:])
    assert message in r.stderr and "Traceback" not in r.stderr


def test_reading_the_cholesky_status_every_k_layers_gives_the_same_numbers(monkeypatch):
    """Without BN, two identical samples make every G singular: the unchecked block fails and is replayed from its
    checkpoint with the symmetric root. The numbers do not depend on the block length."""
    import numerics.bn_chain as bc
    calls = []
    real = bc.gram_factor
    monkeypatch.setattr(bc, "gram_factor", lambda G: calls.append(1) or real(G))
    x = np.random.default_rng(0).standard_normal((50, 4))
    x[:, 3] = x[:, 2]
    runs = {}
    for k in (1, 5, 16):
        monkeypatch.setattr(bc, "CHECK_EVERY", k)
        calls.clear()
        runs[k] = bc.simulate_bn_chain("tanh", 50, 4, 30, 2, input=x, batchnorm=False)
        assert calls, "the singular Gram matrices must go through the replay"
    assert torch.isfinite(runs[1]).all()
    assert torch.equal(runs[1], runs[5]) and torch.equal(runs[1], runs[16])


def test_block_draws_give_the_same_numbers_as_per_layer_draws(monkeypatch):
    """The exact BN chain draws a block's normals in one call (DRAW_BLOCK_BYTES): the generator's stream is that of one
    call per layer, so the Gram matrices are bitwise those of per-layer draws, in float64 and float32."""
    import numpy as np
    import torch
    import numerics.bn_chain as nb
    for dtype in (torch.float64, torch.float32):
        for d, n, S in ((320, 5, 2), (300, 6, 3)):   # 3200 draws per layer (a multiple of 16: one call per block); 5400
            a = nb.simulate_bn_chain("relu", d, n, 40, S, dtype=dtype, seed=11).numpy()
            monkeypatch.setattr(nb, "DRAW_BLOCK_BYTES", 0)
            b = nb.simulate_bn_chain("relu", d, n, 40, S, dtype=dtype, seed=11).numpy()
            monkeypatch.undo()
            assert np.array_equal(a, b)


@pytest.mark.parametrize("act", ["relu", "tanh", "gelu"])
def test_exact_chain_with_reused_buffers_equals_a_plain_reference_loop(act):
    """The exact layer writes into buffers allocated once (ping-pong h, in-place σ, a reused draw buffer). A plain loop
    that allocates everything and draws one ``randn`` per layer must give the same Gram matrices (up to rounding), for
    one batch and for a paired batch (an aliasing bug between the buffers changes them at O(1))."""
    import numerics.bn_chain as nb
    from numerics.linalg import psd_sqrt
    from theory import activation
    sigma = activation(act).torch
    d, n, depth, S = 96, 5, 37, 3
    C1 = 0.5 * np.eye(n) + 0.5
    C2 = 0.8 * np.eye(n) + 0.2
    for covs in ([C1], [C1, C2]):
        got = nb.simulate_bn_chain(act, d, n, depth, S, seed=3, input_cov=C1,
                                   paired_input=C2 if len(covs) == 2 else None)
        gen = torch.Generator()
        gen.manual_seed(3)
        h = torch.cat([torch.randn(S, d, n, generator=gen, dtype=torch.float64)
                       @ psd_sqrt(torch.as_tensor(C, dtype=torch.float64)) for C in covs], dim=-1).transpose(-1, -2)
        m = n * len(covs)
        centre = torch.block_diag(*[torch.eye(n, dtype=torch.float64) - 1.0 / n] * len(covs))
        ref = []
        for ell in range(depth + 1):
            hc = centre @ h
            hb = hc.reshape(S, len(covs), n, d)
            A = sigma(hb / torch.sqrt((hb ** 2).mean(dim=2, keepdim=True))).reshape(S, m, d)
            G = A @ A.transpose(-1, -2) / d
            ref.append(G)
            if ell < depth:
                h = centre @ torch.linalg.cholesky(G) @ torch.randn(S, m, d, generator=gen, dtype=torch.float64)
        ref = torch.stack(ref, dim=1)
        if len(covs) == 2:
            assert torch.allclose(got[0], ref[..., :n, :n], rtol=0, atol=1e-9)
            assert torch.allclose(got[1], ref[..., n:, n:], rtol=0, atol=1e-9)
        else:
            assert torch.allclose(got, ref, rtol=0, atol=1e-9)


# --------------------------------------------------------------------------------------------- sweep points as tasks

def test_sweep_points_are_tasks_on_a_dask_cluster_with_the_serial_numbers():
    """Inside a claim's task on a Dask worker, map_points submits every sweep point as a task of its own (the task
    stream shows one "deepinit-point-" task per point) and gives the numbers of the serial loop exactly; a point that
    consumes a perturbable theory quantity is refused (the controls' perturbation would not reach it)."""
    distributed = pytest.importorskip("distributed")
    from verify import parallel
    from verify.papers.isometry._common import isometry_strength
    from verify.papers.isometry.training import _run
    points = [("digits", act, 2, 16, 1, seed, "cpu") for act in ("tanh", "relu") for seed in (0, 1)]
    serial = parallel.map_points(_run, points)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c, \
            distributed.Client(c) as client:
        with distributed.get_task_stream(client) as ts:
            remote = client.submit(parallel.call_with_point_tasks, parallel.map_points, _run, points,
                                   pure=False).result()
        bad = client.submit(parallel.call_with_point_tasks, parallel.map_points, isometry_strength,
                            [("tanh",), ("relu",)], pure=False)
        with pytest.raises(Exception, match="consumed"):
            bad.result()
    point_tasks = [t for t in ts.data if str(t["key"]).startswith("deepinit-point-")]
    assert len(point_tasks) == len(points)
    for a, b in zip(serial, remote):
        assert (a.activation, a.seed) == (b.activation, b.seed)
        assert np.array_equal(a.train_loss, b.train_loss) and np.array_equal(a.gaps, b.gaps)
        assert a.test_accuracy == b.test_accuracy
    assert len({float(r.train_loss[-1]) for r in serial}) == len(points)   # four different runs, not one repeated


_BODY_CALLS = []


def _counted_point(x, scale=2.0):
    _BODY_CALLS.append(x)
    return x * scale


def test_sweep_point_calls_reuse_what_map_points_computed_as_tasks():
    """A claim submits its sweep with map_points and then walks it with plain calls: with a point runner active (as on
    a Dask worker), the plain calls — positional or keyword, defaults left out or given — return the submitted values
    without running the body again; serially map_points is the plain loop."""
    from verify import parallel
    point = parallel.sweep_point(_counted_point)
    _BODY_CALLS.clear()
    assert parallel.map_points(point, [(1,), (2,)]) == [2.0, 4.0] and _BODY_CALLS == [1, 2]   # serial: the loop
    _BODY_CALLS.clear()
    submitted = []
    token = parallel._POINT_RUNNER.set(lambda fn, pts: submitted.extend(pts) or [fn(*p) for p in pts])
    try:
        assert parallel.map_points(point, [(3,), (4, 2.0), (3,)]) == [6.0, 8.0, 6.0]
        assert submitted == [(3, 2.0), (4, 2.0)]          # defaults filled in, duplicates submitted once
        calls = len(_BODY_CALLS)
        assert point(3) == 6.0 and point(4, scale=2.0) == 8.0 and point(x=3) == 6.0
        assert len(_BODY_CALLS) == calls                   # no recomputation
        assert point(5) == 10.0 and len(_BODY_CALLS) == calls + 1   # a point not submitted is computed
    finally:
        parallel._POINT_RUNNER.reset(token)
        parallel._POINT_CACHE.clear()
