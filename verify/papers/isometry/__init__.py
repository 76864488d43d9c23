"""Claims of the isometry paper — Joudaki, Daneshmand, Bach, "On the impact of activation and
normalization in obtaining isometric embeddings at initialization" (NeurIPS 2023).

Notation (the paper's): n = batch size, d = width, L or ℓ = depth/layer, G^ℓ the Gram matrix of
eq (2), 𝓘 the isometry of eq (3), γ the potential of eq (21), c_k the normalised Hermite
coefficients of Definition 2, β_σ the isometry strength of eq (11), σ̂ and σ̄ the dual
activations of eq (35). One section per claim, in paper order.

theory/ functions used: activation, hermite_coefficients, isometry_strength, isometry,
isometry_gap, gram_potential, lemma_a4_bounds, numeric_dual, dual_quadrature, DualSeries,
certify.certify_lemma_a7.  numerics/ functions used: simulate_isometry_mlp,
layernorm_meanfield_trajectory, meanfield_map_mc.

One module per section (this package, in paper order); importing the package registers every claim in that
order. Shared helpers are in ``_common``.
"""
from ._common import PAPER  # noqa: F401 - the paper (entry point verify.papers.isometry:PAPER)
from . import normalisation, isometry_strength, appendix_a_lemmas, meanfield  # noqa: F401
from . import theorem4, sections_6_7, gain, appendix_b, training  # noqa: F401
