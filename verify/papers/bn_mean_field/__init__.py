"""The claims of bn-mean-field — Yang, Pennington, Rao, Sohl-Dickstein, Schoenholz, "A mean field theory of batch
normalization" (ICLR 2019). Equations from ../shared/papers/yang2019-equations.md (hand transcription).

Notation (the paper's): B = batch size, N = width, φ̃(h) = φ(√B Gh/‖Gh‖), G = I − 11ᵀ/B, V_φ̃ the mean-field
map (eq 10), Σ* = q*((1 − c*)I + c*11ᵀ) the BSB1 fixed point, λ_𝔾, λ_𝕃, λ_𝕄 the forward Jacobian eigenvalues
(Theorem 6), λ_max the gradient-explosion rate (Theorems 7–9), ξ = 1/log λ_max, 16ξ the trainable depth.

theory/ functions used (theory.bn_meanfield): bsb1_fixed_point, theorem4_fixed_point, theorem5_relu_fixed_point,
alpha_relu_fixed_point, bn_jacobian_eigenvalues, theorem6_relu_eigenvalues, forward_jacobian_linear,
gradient_explosion_rate, theorem7_rate, theorem7_density_mass, theorem8_alpha_relu_rate, theorem9_gegenbauer_rate,
gegenbauer_c, relu_rate_limit, depth_scale, backward_map_quadrature, backward_operator_quadrature.
numerics/ functions used (numerics.bn_meanfield): bn_meanfield_map_laplace, bn_meanfield_map_mc,
bn_meanfield_map_fourier, iterate_bn_meanfield, classify_covariance, meanfield_jacobian_fd, meanfield_jacobian_mc,
sym_basis, simulate_bn_gradients; (numerics.bn_kernels) bn_forward_map_mc, bn_backward_map_mc, bn_backward_operator_mc.

Finite-width rate checks: per seed, the least-squares slope of log‖∂L/∂h^l‖² over a window of middle layers;
λ̂ = exp(−mean slope) with a t-interval over seeds. A rate passes when |log λ̂ − log λ| ≤ t·SE + 3/N — the 3/N is
a stated allowance for the O(1/N) finite-width bias (measured: ≤ 0.26% at N = 1000 for B ≥ 6; see the width
rows). A rate one percent off must fail (negative controls).

One module per section of the paper, in paper order; importing the package registers every claim in that order.
Shared parts are in ``_common``; the coverage rows in ``coverage`` and the expected verdicts in ``expected.toml``.
"""
from ._common import PAPER  # noqa: F401 - the paper (entry point verify.papers.bn_mean_field:PAPER)
from . import theorems_1_3, theorems_4_5, theorem6, theorem7, theorems_8_9  # noqa: F401
from . import epsilon, figure1, training, figure4, figure_a2, cross_batch, tables  # noqa: F401
