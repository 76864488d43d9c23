"""Claims of bn-finite-width — Joudaki, Daneshmand, Bach, "On bridging the gap between mean field and
finite width in deep random neural networks with batch normalization" (ICML 2023) and its poster.

Notation (the paper's): d = width, n = batch size, ℓ = layer, h_ℓ ∈ ℝ^{d×n} (eq 2), G_ℓ the Gram matrix
of eq (3), G* = b*((1 − c*)I + c* 11ᵀ) the stable mean-field Gram matrix (eq 16), α the mixing rate of
Assumption 1, ε = n‖G*^{-1/2}‖/√d (Theorem 1). The bounds hide absolute constants ("≳"), so each check
tests what they predict: the width exponent, flatness in depth, and that the implied constant
(observed deviation / rate) stays bounded across widths — with confidence intervals.

theory/ functions used: bsb1_constants (G*, by Gauss–Jacobi quadrature of the sphere integrals),
bsb1_constants_mc. numerics/ functions used: simulate_bn_chain (exact-in-distribution and dense).

One module per section of the paper, in paper order; importing the package registers every claim in that order.
Shared parts are in ``_common``; the coverage rows in ``coverage`` and the expected verdicts in ``expected.toml``.
"""
from ._common import PAPER  # noqa: F401 - the paper (entry point verify.papers.bn_finite_width:PAPER)
from . import assumption1, theorem1, corollary2, poster_theorem2, theorem3, corollary4, lemma5  # noqa: F401
from . import corollary8, eq19, lemma9, lemma12, figure1, figure2  # noqa: F401
