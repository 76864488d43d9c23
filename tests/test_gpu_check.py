"""The GPU check (benchmarks/bench_gpu.py): its smoke mode on any machine, its in-law comparison's power, and — with
``-m gpu`` on a machine with CUDA — every simulator's CUDA path against its CPU path."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "benchmarks", "bench_gpu.py")

#: the simulators the issue names: each must have a row in the check
SIMULATORS = {"BN chain, exact", "BN chain, dense", "isometry MLP, exact", "isometry MLP, dense", "BN gradients",
              "plain MLP, exact", "plain MLP, dense", "shaped network", "BN training ensemble",
              "isometry training ensemble", "covariance SDE (Euler–Maruyama)"}


def _bench():
    if "bench_gpu" in sys.modules:
        return sys.modules["bench_gpu"]
    spec = importlib.util.spec_from_file_location("bench_gpu", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_gpu"] = module          # its dataclasses resolve their annotations through it
    spec.loader.exec_module(module)
    return module


def test_smoke_mode_runs_every_simulator_and_says_what_it_skipped(tmp_path):
    out = tmp_path / "gpu.json"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    r = subprocess.run([sys.executable, SCRIPT, "--smoke", "--json", str(out)], capture_output=True, text=True,
                       env=env, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    doc = json.loads(out.read_text())
    names = {row["case"] for row in doc["rows"]}
    assert SIMULATORS <= names, SIMULATORS - names
    assert doc["failed"] == 0 and doc["smoke"] is True
    in_law = [row for row in doc["rows"] if "ks_p" in row]
    assert {row["dtype"] for row in in_law} == {"float64", "float32"}
    assert all(row["ks_p"] >= doc["alpha"] and abs(row["z"]) <= doc["z_max"] for row in in_law)
    if not torch.cuda.is_available():
        assert "CUDA is not available: every CUDA half is skipped" in r.stdout
        assert all(row["against"] == "cpu" for row in in_law)
        refusal = next(row for row in doc["rows"] if row["case"] == "verify all --device cuda")
        assert refusal["exit"] == 2 and "no CUDA device is available" in refusal["message"]


def test_verify_refuses_cuda_in_one_line_without_a_device():
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    r = subprocess.run([sys.executable, "-m", "verify", "isometry:figure3", "--budget", "quick", "--device", "cuda"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == ["error: --device cuda: no CUDA device is available on this machine"]


def test_the_in_law_comparison_flags_a_device_path_that_differs():
    """The check's power at the sizes of a full run (400 networks, width 4096): a "device path" whose Gram entries are
    3% too large (a lost normalisation; z ≈ 6) or that runs one layer short (z ≈ 12) fails the row at the check's own
    level, while a second correct call passes."""
    bench = _bench()
    case = next(c for c in bench.CASES if c.name == "isometry MLP, exact")
    a = case.run("cpu", torch.float64, 0, 400, 4096)
    b = case.run("cpu", torch.float64, 400, 400, 4096)
    assert bench.in_law(a, b)["passed"]
    scaled = bench.in_law(a, 1.03 * b)
    assert not scaled["passed"] and abs(scaled["z"]) > bench.Z_MAX
    import numerics
    short = numerics.simulate_isometry_mlp("tanh", 4096, numerics.equicorrelated_gram(4, 0.5), 5, 400, method="exact",
                                           seed=400, dtype=torch.float64, layers=[5]).numpy()[:, 0, 0, 1]
    assert not bench.in_law(a, short)["passed"]
    assert not bench.in_law(a, np.append(b[:-1], np.nan))["passed"]     # a NaN is never "the same law"


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("name", sorted(SIMULATORS - {"covariance SDE (Euler–Maruyama)"}))
def test_cuda_path_has_the_cpu_paths_law(name, dtype):
    bench = _bench()
    case = next(c for c in bench.CASES if c.name == name)
    row = bench.compare_case(case, dtype, smoke=True, cuda=True)
    assert row["against"] == "cuda" and row["passed"], row
