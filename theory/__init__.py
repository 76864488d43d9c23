"""Exact and high-precision mathematics for the deep-network-at-initialisation papers.

Public surface (each name below has Parameters, Returns and Examples):

* :func:`activation` — registry names and whitelisted user formulas → :class:`Activation`;
* :func:`hermite_coefficients` — normalised Hermite coefficients c_k (isometry paper, Def. 2);
* :func:`dual_activation`, :func:`mean_reduced_dual` — σ̂ and σ̄ (Def. 5);
* :func:`isometry_strength` — β_σ (Def. 3); ``float()`` accepts its result;
* :func:`isometry`, :func:`isometry_gap`, :func:`gram_potential` — 𝓘(G), −log 𝓘(G), γ(G);
* :func:`bsb1_fixed_point`, :func:`bn_jacobian_eigenvalues`, :func:`gradient_explosion_rate`, :func:`depth_scale`
  — the batch-norm mean-field constants (bn-mean-field; more in :mod:`theory.bn_meanfield`);
* :func:`backward_map_quadrature` — the BN backward map V_back(Σ){Δ} = E[JᵀΔJ] at any Σ (4 ≤ B ≤ 6) with ε, γ, β,
  deterministic (polar quadrature): the second route to numerics.bn_backward_map_mc; :func:`backward_operator_quadrature`
  — the same as an operator on symmetric matrices, with its spectrum;
* :func:`two_batch_fixed_point`, :func:`bn_output_mean`, :func:`bn_mean_jacobian` — two batches through one network:
  the cross-batch block of the forward map is exactly μ(s₁)μ(s₂), μ = E φ(BN(h)), and of the backward map
  α(s₁)α(s₂)·GΔ₁₂G, E J = αG (1-coordinate sphere integrals);
* :func:`sde_drift_relu_like`, :func:`explosion_criterion` — the covariance-SDE drift ν(ρ) and the criterion
  (3/4)φ″(0)² + φ‴(0) (covariance-sde; more in :mod:`theory.covariance_sde`);
* :class:`Estimate` — the (value, error, method) result convention (:mod:`theory.results`);
  :func:`gaussian_expectation`, :func:`bivariate_expectation` — E f(√v z) and E f(u₁)g(u₂) with stated errors;
  :func:`solve_fixed_point`, :func:`slope`, :func:`stability`, :class:`FixedPoint`, :func:`classify_slope` — the
  fixed-point toolkit (:mod:`theory.fixed_points`);
* :func:`length_map`, :func:`covariance_map`, :func:`correlation_map`, :func:`fixed_point_q`, :func:`fixed_point_c`,
  :func:`chi_1`, :func:`chi_c`, :func:`depth_scales`, :func:`critical_sigma_w2`, :func:`gradient_growth_rate`,
  :func:`gradient_depth_scale` — the σ_w²/σ_b² mean field of fully connected networks with dropout (Poole et al.
  2016, Schoenholz et al. 2017; :mod:`theory.meanfield_mlp`); :func:`length_fixed_points` (every fixed point with
  its stability and basin), :func:`critical_points` (every χ₁ = 1 crossing, labelled, :class:`CriticalPoint`);
* :func:`correlation_trajectory`, :func:`length_trajectory`, :func:`asymptotic_rate` — the maps iterated to depth
  10⁶ with 1 − c at full relative precision, and the constant and exponent of its decay (:mod:`theory.meanfield_depth`);
* :func:`nngp_kernel`, :func:`ntk_kernel`, :func:`network_kernels` — the NNGP kernel and the neural tangent kernel
  of a whole input set through L layers, as a :class:`MatrixEstimate` (closed forms, the logistic scale mixture for
  tanh and sigmoid, quadrature otherwise: :func:`kernel_route`; :mod:`theory.kernels`);
* :func:`jacobian_spectrum_moments` — mean and variance of the squared singular values of the input–output Jacobian,
  Gaussian or orthogonal weights (Pennington et al. 2017; :mod:`theory.jacobian`); :func:`jacobian_spectral_density`
  — their whole law by free probability when φ′² ∈ {0, c²} (:mod:`theory.jacobian_density`);
  :func:`jacobian_spectral_density_smooth` — the law for any φ at the fixed point
  (:mod:`theory.jacobian_density_smooth`);
"""
from .activations import Activation, activation, gain_family, parse_formula, registered_names
from .bn_meanfield import (BackwardMapQuadrature, BackwardOperatorQuadrature, BSB1FixedPoint, JacobianEigenvalues,
                           backward_map_quadrature, backward_operator_quadrature,
                           TwoBatchFixedPoint, bn_jacobian_eigenvalues, bn_mean_jacobian, bn_output_mean, bsb1_fixed_point, depth_scale,
                           gradient_explosion_rate, two_batch_fixed_point)
from .covariance_sde import ExplosionCriterion, explosion_criterion, sde_drift_relu_like
from .batchnorm import BSB1, Distortion, bsb1_constants, bsb1_constants_mc, distortion, marchenko_pastur_cdf
from .dual import (DualSeries, NumericDual, dual_activation, dual_closed_form, dual_quadrature,
                   exact_mean_reduced_dual, mean_reduced_dual, numeric_dual, variance)
from .errors import ActivationError, DeepinitError, QuadratureError, UndefinedQuantityError
from .hermite import hermite_coefficients, hermite_polynomial, hermite_values
from .isometry import (IsometryStrength, gram_potential, isometry, isometry_gap, isometry_strength,
                       lemma_a4_bounds, log_isometry, normalised_gram)
from .results import Estimate, MatrixEstimate
from .jacobian import JacobianSpectrum, jacobian_spectrum_moments
from .jacobian_density import JacobianDensity, fuss_catalan_density, jacobian_spectral_density
from .jacobian_density_smooth import SmoothJacobianDensity, jacobian_spectral_density_smooth
from .kernels import NetworkKernels, kernel_entries_reference, kernel_route, network_kernels, nngp_kernel, ntk_kernel
from .gaussian import bivariate_expectation, gaussian_expectation
from .fixed_points import FixedPoint, Stability, classify_slope, slope, solve_fixed_point, stability
from .meanfield_mlp import (CriticalPoint, DepthScales, chi_1, chi_c, correlation_map, correlation_stability,
                            covariance_map, critical_points, critical_sigma_w2, depth_scales, fixed_point_c,
                            fixed_point_q, gradient_depth_scale, gradient_growth_rate, length_fixed_points, length_map)
from .meanfield_depth import RateFit, Trajectory, asymptotic_rate, correlation_trajectory, length_trajectory

__all__ = [
    "BackwardMapQuadrature", "backward_map_quadrature", "BackwardOperatorQuadrature", "backward_operator_quadrature", "BSB1FixedPoint", "JacobianEigenvalues", "TwoBatchFixedPoint", "two_batch_fixed_point", "bn_output_mean", "bn_mean_jacobian", "bsb1_fixed_point", "bn_jacobian_eigenvalues", "gradient_explosion_rate",
    "depth_scale", "ExplosionCriterion", "explosion_criterion", "sde_drift_relu_like",
    "BSB1", "Distortion", "bsb1_constants", "bsb1_constants_mc", "distortion", "marchenko_pastur_cdf",
    "Activation", "activation", "gain_family", "parse_formula", "registered_names",
    "DualSeries", "NumericDual", "dual_activation", "dual_closed_form", "dual_quadrature",
    "exact_mean_reduced_dual", "mean_reduced_dual", "numeric_dual", "variance",
    "ActivationError", "DeepinitError", "QuadratureError", "UndefinedQuantityError",
    "hermite_coefficients", "hermite_polynomial", "hermite_values",
    "IsometryStrength", "gram_potential", "isometry", "isometry_gap", "isometry_strength",
    "lemma_a4_bounds", "log_isometry", "normalised_gram",
    "Estimate", "gaussian_expectation", "bivariate_expectation", "Stability", "slope", "solve_fixed_point", "stability",
    "FixedPoint", "classify_slope",
    "DepthScales", "chi_1", "chi_c", "correlation_map", "correlation_stability", "covariance_map", "critical_sigma_w2",
    "depth_scales", "fixed_point_c", "fixed_point_q", "gradient_depth_scale", "gradient_growth_rate", "length_map",
    "CriticalPoint", "critical_points", "length_fixed_points",
    "RateFit", "Trajectory", "asymptotic_rate", "correlation_trajectory", "length_trajectory",
    "MatrixEstimate", "NetworkKernels", "kernel_entries_reference", "kernel_route", "network_kernels", "nngp_kernel",
    "ntk_kernel", "JacobianSpectrum", "jacobian_spectrum_moments", "JacobianDensity", "jacobian_spectral_density",
    "SmoothJacobianDensity", "jacobian_spectral_density_smooth",
    "fuss_catalan_density",
]
