"""The NNGP and NTK recursions run by torch (numerics.network_kernels_on_device) against the numpy route.

The numpy route is held to independent references in tests/test_kernels.py (50-digit and 30-digit recursions,
nested mpmath quadrature, neural-tangents' recorded kernels); here the torch layers — the same route objects given
torch tensors, whose transcendental functions round differently — must agree with it within the two stated errors,
entry by entry, for every closed form, the logistic mixture and the quadrature route, with and without dropout. On
CUDA (marked ``gpu``) the same comparison at a larger set.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

from numerics import network_kernels_on_device
from theory import kernels as tk
from theory import network_kernels

X = np.random.default_rng(7).standard_normal((40, 12))


def _agree(a, b):
    """Largest |a − b| / (a's stated error + b's), over both kernels: at most 1 when each is within its error of
    the true kernel."""
    worst = 0.0
    for ma, mb in ((a.nngp, b.nngp), (a.ntk, b.ntk)):
        worst = max(worst, float(np.max(np.abs(ma.value - mb.value) / (ma.error + mb.error))))
    return worst


@pytest.mark.parametrize("name", ["erf", "relu", "leaky_relu", "gelu", "tanh", "sigmoid", "sin", "3*tanh(0.5*x)"])
@pytest.mark.parametrize("keep", [1.0, 0.8])
def test_torch_layers_equal_the_numpy_route_within_its_error(name, keep):
    ref = network_kernels(name, X, 60, 1.5, 0.05, keep)
    got = network_kernels_on_device(name, X, 60, 1.5, 0.05, keep, device="cpu")
    assert got.route == ref.route and isinstance(got.ntk.value, np.ndarray)
    assert _agree(got, ref) <= 1.0
    # the torch run's own error estimate is of the numpy one's size (same rules and sign patterns): the largest and the
    # median error of each matrix within a factor 2 (measured: 0.81–1.25 over these 16 cases), and entry by entry
    # within a factor 10 above a floor of a tenth of the matrix's largest error — each estimate is 3 × the change of
    # one jittered run, so where that change happens to be tiny two estimates differ by more (measured: 33× at one
    # NTK entry of tanh with numpy 2.4), while an inflated or lost error moves the whole matrix
    for mg, mr in ((got.nngp, ref.nngp), (got.ntk, ref.ntk)):
        for stat in (np.max, np.median):
            assert 0.5 <= stat(mg.error) / stat(mr.error) <= 2.0, (stat.__name__, stat(mg.error), stat(mr.error))
        assert np.all(mg.error <= 10 * np.maximum(mr.error, 0.1 * mr.error.max()))
        assert np.all(mr.error <= 10 * np.maximum(mg.error, 0.1 * mg.error.max()))


def test_the_quadrature_route_runs_on_the_host():
    G = X[:4] @ X[:4].T / X.shape[1]
    ref = network_kernels("softplus", input_gram=G, depth=1, sigma_w2=1.5, sigma_b2=0.05)
    got = network_kernels_on_device("softplus", input_gram=G, depth=1, sigma_w2=1.5, sigma_b2=0.05, device="cpu")
    assert got.route.startswith("quadrature") and _agree(got, ref) <= 1.0


def test_a_broken_layer_layout_is_caught(monkeypatch):
    """The comparison has power: the torch run with its lower triangle left as the upper one's transpose skipped
    (the symmetric fill broken) disagrees with the numpy route far beyond its error."""
    def upper_only(self, values):
        n = int(self.iu[0][-1]) + 1
        A = self.xp.zeros((n, n), dtype=values.dtype, device=self.device)
        A[self.iu] = values
        return A
    ref = network_kernels("tanh", X, 5, 1.5, 0.05)
    monkeypatch.setattr(tk._Layout, "put", upper_only)
    got = network_kernels_on_device("tanh", X, 5, 1.5, 0.05, device="cpu")
    assert _agree(got, ref) > 1e6


def test_an_unavailable_device_is_refused():
    if torch.cuda.is_available():
        pytest.skip("CUDA is available here")
    with pytest.raises(ValueError, match="CUDA"):
        network_kernels_on_device("erf", X, 2, device="cuda")


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
@pytest.mark.parametrize("name", ["erf", "relu", "gelu", "tanh"])
def test_cuda_equals_the_numpy_route_within_its_error(name):
    Xl = np.random.default_rng(8).standard_normal((256, 32))
    ref = network_kernels(name, Xl, 100, 1.5, 0.05)
    got = network_kernels_on_device(name, Xl, 100, 1.5, 0.05, device="cuda")
    assert _agree(got, ref) <= 1.0
