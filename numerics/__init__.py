"""Simulation and numerical maps (torch, numpy, scipy). May use ``theory`` for constants.

Public surface:

* :func:`simulate_isometry_mlp` — finite-width MLP of the isometry paper (eq 1 and Section 6
  variants), exact-in-distribution or dense, batched over seeds → Gram tensor [seeds, layers, n, n];
* :func:`layernorm_meanfield_trajectory` — the mean-field Gram dynamics (eq 10) with layer norm;
* :func:`meanfield_map_mc` — one step of eq (10) by Monte Carlo;
* :func:`simulate_bn_chain` — the batch-normalised chain of bn-finite-width (eq 2), exact or dense;
* :func:`bn_meanfield_map_laplace`, :func:`bn_meanfield_map_mc`, :func:`iterate_bn_meanfield`,
  :func:`classify_covariance` — the BN mean-field map of bn-mean-field (eq 10) and its limits;
* :func:`simulate_bn_gradients` — BN networks with autograd backpropagation (squared gradient norms per layer).
"""
from .isometry_mlp import (VARIANTS, SimulationDiverged, default_device, equicorrelated_gram, inputs_with_gram, psd_sqrt,
                           simulate_isometry_mlp)
from .bn_chain import DegenerateBatchError, simulate_bn_chain
from .bn_meanfield import (BNGradientRun, bn_meanfield_map_laplace, bn_meanfield_map_mc, classify_covariance,
                           iterate_bn_meanfield, simulate_bn_gradients)
from .meanfield import MeanFieldTrajectory, layernorm_meanfield_trajectory, meanfield_map_mc

__all__ = ["VARIANTS", "SimulationDiverged", "default_device", "equicorrelated_gram", "inputs_with_gram", "psd_sqrt",
           "simulate_isometry_mlp", "MeanFieldTrajectory", "layernorm_meanfield_trajectory",
           "meanfield_map_mc", "simulate_bn_chain", "DegenerateBatchError", "BNGradientRun", "bn_meanfield_map_laplace",
           "bn_meanfield_map_mc", "classify_covariance", "iterate_bn_meanfield", "simulate_bn_gradients"]
