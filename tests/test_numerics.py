"""Simulators: exact-in-distribution vs dense (two-sample test), mean field vs wide networks,
Monte Carlo of eq (10), divergence handling and reproducibility."""
import math

import numpy as np
import pytest
import torch
from scipy import stats

import numerics
import theory


def test_inputs_have_requested_gram():
    G0 = numerics.equicorrelated_gram(5, 0.3)
    X = numerics.inputs_with_gram(G0, 50, torch.Generator().manual_seed(0))
    assert torch.allclose(X.T @ X, torch.tensor(G0), atol=1e-12)
    assert torch.allclose(X.mean(0), torch.zeros(5, dtype=X.dtype), atol=1e-14)


@pytest.mark.parametrize("variant", ["layernorm", "no-normalisation"])
def test_exact_and_dense_simulators_same_distribution(variant):
    """Kolmogorov–Smirnov on G^ℓ entries over 400 networks (α = 0.001 each, 3 tests)."""
    G0 = numerics.equicorrelated_gram(4, 0.5)
    kw = dict(variant=variant, layers=[3])
    a = numerics.simulate_isometry_mlp("tanh", 60, G0, 3, 400, method="exact", seed=1, **kw).numpy()[:, 0]
    b = numerics.simulate_isometry_mlp("tanh", 60, G0, 3, 400, method="dense", seed=2, **kw).numpy()[:, 0]
    for (i, j) in ((0, 1), (2, 3), (1, 1)):
        p = stats.ks_2samp(a[:, i, j], b[:, i, j]).pvalue
        assert p > 1e-3, (i, j, p)


def test_exact_simulator_detects_wrong_distribution():
    """Power: the same test rejects a first layer with N(0, 1/d) weights instead of N(0, 1)."""
    G0 = numerics.equicorrelated_gram(4, 0.5)
    a = numerics.simulate_isometry_mlp("tanh", 200, G0, 1, 400, seed=1, layers=[1]).numpy()[:, 0]
    b = numerics.simulate_isometry_mlp("tanh", 200, G0 / 200, 1, 400, seed=2, layers=[1]).numpy()[:, 0]
    assert stats.ks_2samp(a[:, 0, 1], b[:, 0, 1]).pvalue < 1e-3


def test_wide_network_tracks_mean_field():
    G0 = numerics.equicorrelated_gram(6, 0.6)
    mf = numerics.layernorm_meanfield_trajectory("relu", G0, 5).grams()
    fw = numerics.simulate_isometry_mlp("relu", 40000, G0, 5, 2, seed=0).numpy()
    err = np.abs(fw - mf[None]).max()
    assert err < 6 / math.sqrt(40000) * 3  # O(d^(-1/2)) deviations


def test_meanfield_map_monte_carlo_matches_dual():
    G = numerics.equicorrelated_gram(3, 0.4)
    est, se, n = numerics.meanfield_map_mc("tanh", G, 400_000, seed=0)
    pred = theory.numeric_dual("tanh").normalised(G)
    np.fill_diagonal(pred, 1.0)
    assert np.max(np.abs(est - pred) / np.maximum(se, 1e-12)) < 4.5


def test_meanfield_map_monte_carlo_standard_errors_equal_the_gaussian_fourth_moments():
    """For φ = identity (c₀ = 0, σ̄(1) = 1) the summand h_i h_j has mean G_ij and second moment
    G_ii G_jj + 2 G_ij² (Isserlis), so n·se² is 1 + ρ² off the diagonal and 2 on it; 10⁶ draws at ρ = 0.5 recover
    1.25 and 2 within 2 % (a variance with E[h_i h_j] in place of its square gives 1.0 off the diagonal)."""
    from numerics.meanfield import meanfield_map_mc
    rho = 0.5
    G = np.array([[1.0, rho], [rho, 1.0]])
    est, se, n = meanfield_map_mc("x", G, 1_000_000, seed=4)
    assert n == 1_000_000 and abs(est[0, 1] - rho) <= 5 * se[0, 1]
    assert n * se[0, 1] ** 2 == pytest.approx(1 + rho ** 2, rel=0.02)
    assert n * se[0, 0] ** 2 == pytest.approx(2.0, rel=0.02) and n * se[1, 1] ** 2 == pytest.approx(2.0, rel=0.02)


def test_reproducible_with_seed():
    G0 = numerics.equicorrelated_gram(4, 0.5)
    a = numerics.simulate_isometry_mlp("relu", 100, G0, 4, 3, seed=7)
    b = numerics.simulate_isometry_mlp("relu", 100, G0, 4, 3, seed=7)
    c = numerics.simulate_isometry_mlp("relu", 100, G0, 4, 3, seed=8)
    assert torch.equal(a, b) and not torch.equal(a, c)


def test_divergence_is_reported_not_nan():
    G0 = numerics.equicorrelated_gram(4, 0.5)
    with pytest.raises(numerics.SimulationDiverged) as exc:
        numerics.simulate_isometry_mlp("exp", 500, G0, 20, 2, variant="no-normalisation")
    assert 1 <= exc.value.layer <= 20
    assert torch.isfinite(exc.value.partial).all()


def test_degenerate_input_stays_degenerate():
    G0 = numerics.equicorrelated_gram(4, 0.5)
    G0[3, :] = G0[0, :]
    G0[:, 3] = G0[:, 0]
    G0[3, 3] = 1
    G = numerics.simulate_isometry_mlp("tanh", 300, G0, 5, 1, seed=0).numpy()[0]
    assert np.allclose(G[:, 0, 0], G[:, 3, 3]) and np.allclose(G[:, 0, 3], G[:, 0, 0], atol=1e-10)


def test_meanfield_speed_and_float32():
    G0 = numerics.equicorrelated_gram(10, 0.5)
    g = numerics.simulate_isometry_mlp("relu", 200, G0, 3, 2, dtype=torch.float32)
    assert g.dtype == torch.float32


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_cuda_matches_cpu_in_distribution():
    G0 = numerics.equicorrelated_gram(4, 0.5)
    a = numerics.simulate_isometry_mlp("tanh", 60, G0, 3, 400, seed=1, layers=[3], device="cuda").cpu().numpy()[:, 0]
    b = numerics.simulate_isometry_mlp("tanh", 60, G0, 3, 400, seed=2, layers=[3], device="cpu").numpy()[:, 0]
    assert stats.ks_2samp(a[:, 0, 1], b[:, 0, 1]).pvalue > 1e-3


def test_xavier_variant_is_the_uncentred_gain_network():
    """variant="xavier" is x^{ℓ+1} = g·σ(h)/√d: for tanh (c_0 = 0) with g = 1 it is exactly "no-normalisation", and
    the gain scales the Gram matrices of the first layer by g²; a bad gain is refused."""
    import numerics
    from theory.errors import DeepinitError
    G0 = numerics.equicorrelated_gram(5, 0.3)
    a = numerics.simulate_isometry_mlp("tanh", 300, G0, 3, 2, variant="xavier", gain=1.0, seed=4).numpy()
    b = numerics.simulate_isometry_mlp("tanh", 300, G0, 3, 2, variant="no-normalisation", seed=4).numpy()
    assert np.allclose(a, b, rtol=1e-12)
    c = numerics.simulate_isometry_mlp("tanh", 300, G0, 1, 2, variant="xavier", gain=2.0, seed=4).numpy()
    assert np.allclose(c[:, 1], 4 * a[:, 1], rtol=1e-12)
    with pytest.raises(DeepinitError, match="gain"):
        numerics.simulate_isometry_mlp("tanh", 30, G0, 1, 1, variant="xavier", gain=float("inf"))


def test_run_isometry_mlp_records_the_configuration_it_ran():
    """run_isometry_mlp returns simulate_isometry_mlp's Gram matrices (same draws) with the configuration the layer
    loop ran: the variant's map, the xavier gain (None elsewhere), c_0 where it is subtracted, each layer's width."""
    G0 = numerics.equicorrelated_gram(4, 0.5)
    run = numerics.run_isometry_mlp("relu", 64, G0, 3, 2, variant="xavier", gain=1.5, seed=3, device="cpu")
    assert torch.equal(run.grams, numerics.simulate_isometry_mlp("relu", 64, G0, 3, 2, variant="xavier", gain=1.5,
                                                                 seed=3, device="cpu"))
    c = run.config
    assert (c["activation"], c["variant"], c["method"], c["post"], c["gain"], c["c0"]) == \
        ("relu", "xavier", "exact", "g·a/√d", 1.5, None)
    assert (c["widths"], c["n"], c["depth"], c["seeds"], c["layers"], c["dtype"], c["device"], c["seed"]) == \
        ([64, 64, 64], 4, 3, 2, [0, 1, 2, 3], "float64", "cpu", 3)
    mf = numerics.run_isometry_mlp("relu", 64, G0, 2, 1, variant="meanfield-normalisation", widths=[16, 32],
                                   device="cpu").config
    assert mf["gain"] is None and mf["c0"] == pytest.approx(1 / math.sqrt(2 * math.pi), rel=1e-12)
    assert mf["scale"] == pytest.approx(math.sqrt(0.5 - 1 / (2 * math.pi)), rel=1e-10) and mf["widths"] == [16, 32]
    dense = numerics.run_isometry_mlp("tanh", 16, G0, 2, 1, method="dense", dtype=torch.float32, device="cpu").config
    assert (dense["method"], dense["widths"], dense["dtype"], dense["c0"]) == ("dense", [16, 16], "float32", None)


def test_variable_widths_follow_the_width_of_each_layer():
    """widths=[…] (Fig B.4's variable-width MLPs): a constant list equals the fixed-width run with the same seed,
    a wrong length or the dense method is refused, and a growing profile changes the Gram matrices."""
    import numerics
    from theory.errors import DeepinitError
    G0 = numerics.equicorrelated_gram(4, 0.5)
    fixed = numerics.simulate_isometry_mlp("relu", 200, G0, 3, 2, seed=1).numpy()
    same = numerics.simulate_isometry_mlp("relu", 999, G0, 3, 2, seed=1, widths=[200, 200, 200]).numpy()
    assert np.allclose(fixed, same, rtol=1e-12)
    grow = numerics.simulate_isometry_mlp("relu", 400, G0, 3, 2, seed=1, widths=[100, 200, 400]).numpy()
    assert not np.allclose(grow, fixed) and np.allclose(np.diagonal(grow, axis1=-2, axis2=-1), 1, atol=1e-12)
    with pytest.raises(DeepinitError, match="one width per layer"):
        numerics.simulate_isometry_mlp("relu", 200, G0, 3, 1, widths=[200, 200])
    with pytest.raises(DeepinitError, match="exact"):
        numerics.simulate_isometry_mlp("relu", 200, G0, 2, 1, widths=[200, 200], method="dense")
