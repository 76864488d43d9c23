"""Simulation and numerical maps (torch, numpy, scipy). May use ``theory`` for constants.

Public surface:

* :func:`simulate_isometry_mlp` — finite-width MLP of the isometry paper (eq 1 and Section 6
  variants), exact-in-distribution or dense, batched over seeds → Gram tensor [seeds, layers, n, n];
  :func:`run_isometry_mlp` — the same with the configuration it ran (:class:`IsometryMLPRun`);
  :func:`embedded_input_gram` — G^0 of real inputs under eq (1)'s first embedding;
* :func:`layernorm_meanfield_trajectory` — the mean-field Gram dynamics (eq 10) with layer norm;
* :func:`meanfield_map_mc` — one step of eq (10) by Monte Carlo;
* :func:`simulate_bn_chain` — the batch-normalised chain of bn-finite-width (eq 2), exact or dense;
  :func:`bn_sphere_grams` — Gram matrices of i.i.d. batch-normalised rows (Lemma 9);
* :func:`bn_meanfield_map_laplace`, :func:`bn_meanfield_map_mc`, :func:`iterate_bn_meanfield`,
  :func:`classify_covariance` — the BN mean-field map of bn-mean-field (eq 10) and its limits;
* :func:`simulate_bn_gradients` — BN networks with autograd backpropagation (squared gradient norms per layer);
  BN's ε, γ, β and several batches through one network;
* :func:`simulate_mlp` — fully connected networks with σ_w², σ_b² and dropout (Poole et al. 2016, Schoenholz et al.
  2017), dense or exact in law, batched over seeds: q^l, c^l, forward tangents and backpropagated gradients
  (:class:`MLPRun`); :func:`inputs_with_moments` — inputs with given q⁰, c⁰;
* :func:`empirical_kernels` — finite-width NNGP and NTK by autograd, the route :func:`theory.network_kernels` is
  compared with (:class:`EmpiricalKernels`); :func:`network_kernels_on_device` — the infinite-width kernels of
  :func:`theory.network_kernels` with the layers run by torch on a GPU; :func:`jacobian_moments_mc` — spectral
  moments of finite networks' input–output Jacobians, Gaussian or orthogonal weights (:class:`JacobianMoments`);
* :func:`batch_norm`, :func:`bn_forward_map_mc`, :func:`bn_backward_map_mc`, :func:`bn_backward_operator_mc` — the
  BN kernel maps for any Σ (forward, backward V_back(Σ){Δ} = E[JᵀΔJ], cross-batch) with ε, γ, β (bn_layer: batch norm with its closed-form
  backward, one autograd node; bn_kernels: the maps).
"""
import importlib

# The public names are loaded on first use (PEP 562): importing ``numerics`` does not import torch, so that
# ``python -m verify list`` and input errors answer before torch (≈2 s) is loaded.
_WHERE = {
    "VARIANTS": "isometry_mlp", "SimulationDiverged": "isometry_mlp", "default_device": "isometry_mlp",
    "equicorrelated_gram": "isometry_mlp", "inputs_with_gram": "isometry_mlp", "psd_sqrt": "isometry_mlp",
    "simulate_isometry_mlp": "isometry_mlp", "embedded_input_gram": "isometry_mlp",
    "run_isometry_mlp": "isometry_mlp", "IsometryMLPRun": "isometry_mlp",
    "DegenerateBatchError": "bn_chain", "simulate_bn_chain": "bn_chain",
    "bn_sphere_grams": "bn_chain",
    "BNGradientRun": "bn_meanfield", "bn_meanfield_map_laplace": "bn_meanfield", "bn_meanfield_map_mc": "bn_meanfield",
    "classify_covariance": "bn_meanfield", "iterate_bn_meanfield": "bn_meanfield",
    "simulate_bn_gradients": "bn_meanfield", "MeanFieldTrajectory": "meanfield",
    "layernorm_meanfield_trajectory": "meanfield", "meanfield_map_mc": "meanfield",
    "batch_norm": "bn_layer", "bn_forward_map_mc": "bn_kernels", "bn_backward_map_mc": "bn_kernels",
    "bn_backward_operator_mc": "bn_kernels", "BackwardOperator": "bn_kernels",
    "MLPRun": "mlp", "simulate_mlp": "mlp", "inputs_with_moments": "mlp",
    "train_bn_mlp_ensemble": "ensembles", "train_isometry_mlp_ensemble": "ensembles",
    "EmpiricalKernels": "ntk", "empirical_kernels": "ntk", "network_kernels_on_device": "device_kernels",
    "JacobianMoments": "jacobian", "jacobian_moments_mc": "jacobian", "jacobian_eigenvalues_mc": "jacobian",
}
_SUBMODULES = ("isometry_mlp", "bn_chain", "bn_meanfield", "bn_layer", "bn_kernels", "meanfield", "covariance_sde",
               "mlp", "ntk", "jacobian", "device_kernels")


def __getattr__(name):
    if name in _WHERE:
        value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'numerics' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_WHERE, *_SUBMODULES])


__all__ = ["VARIANTS", "SimulationDiverged", "default_device", "equicorrelated_gram", "inputs_with_gram", "psd_sqrt",
           "simulate_isometry_mlp", "run_isometry_mlp", "IsometryMLPRun", "embedded_input_gram",
           "MeanFieldTrajectory", "layernorm_meanfield_trajectory",
           "meanfield_map_mc", "simulate_bn_chain", "bn_sphere_grams", "DegenerateBatchError", "BNGradientRun", "bn_meanfield_map_laplace",
           "bn_meanfield_map_mc", "classify_covariance", "iterate_bn_meanfield", "simulate_bn_gradients",
           "batch_norm", "bn_forward_map_mc", "bn_backward_map_mc", "bn_backward_operator_mc", "BackwardOperator",
           "MLPRun", "simulate_mlp", "inputs_with_moments",
           "train_bn_mlp_ensemble", "train_isometry_mlp_ensemble", "EmpiricalKernels", "empirical_kernels",
           "network_kernels_on_device", "JacobianMoments", "jacobian_moments_mc", "jacobian_eigenvalues_mc"]
