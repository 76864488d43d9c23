"""Claims of covariance-sde — Li, Nica, Roy, "The neural covariance SDE: shaped infinite depth-and-width networks
at initialization" (NeurIPS 2022). Main text only: whatever the appendices held is derived in theory.covariance_sde.

Notation (the paper's): n = width, d = depth, T = d/n, m inputs, V_ℓ^{αβ} = (c/n)⟨φ_ℓ^α, φ_ℓ^β⟩, ρ the correlation,
s± = 1 + c±/√n (Def 3.1), φ_s(x) = sφ(x/s) with s = a√n (Def 3.6), ν, μ, σ of (3.5).

theory/ functions used (theory.covariance_sde): relu_bivariate_moment, relu_like_constants, sde_drift_relu_like,
covariance_diffusion, correlation_sde_from_ito, smooth_covariance_drift, explosion_criterion,
softplus_shift_criterion, feller_explosion_test, feller_v_numeric, relu_chain_coefficients.
numerics/ functions used (numerics.covariance_sde): Shape, simulate_shaped_network, simulate_relu_chain, relu_map,
simulate_correlation_sde, simulate_covariance_sde, covariance_drift.

Distribution comparisons are two-sample Kolmogorov–Smirnov tests (statistic D and p-value; a claim passes at
p > 0.001 and a negative control must give p < 0.001).

One module per section of the paper, in paper order; importing the package registers every claim in that order.
Shared parts are in ``_common``; the coverage rows in ``coverage`` and the expected verdicts in ``expected.toml``.
"""
from ._common import PAPER  # noqa: F401 - the paper (entry point verify.papers.covariance_sde:PAPER)
from . import section2, relu_like_shaping, proposition3_4, smooth_shaping, schemes, m_point, appendix_f  # noqa: F401
from . import tables  # noqa: F401
