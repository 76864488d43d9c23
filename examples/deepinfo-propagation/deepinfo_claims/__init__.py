"""Claims of Schoenholz, Gilmer, Ganguli & Sohl-Dickstein, *Deep information propagation* (ICLR 2017), with the
mean-field maps of Poole et al. (2016) they build on, as a deepinit-verify plugin.

The paper is declared with :mod:`verify.api` and found through the entry point ``schoenholz2017`` of the group
``deepinit_verify.papers`` (this distribution's ``pyproject.toml``). References name the sections of the restated
equations (``shared/papers/schoenholz2017-equations.md``): § Forward maps, § Depth scales, § Dropout,
§ Backpropagation, § Trainability.

Setting throughout: tanh, σ_b² = 0.05 unless stated (the paper's main figures), ρ the keep probability of dropout.
The theory side is :mod:`theory.meanfield_mlp`; the independent routes are the trapezoid-rule maps and Monte Carlo of
:mod:`deepinfo_claims._routes` and finite-width networks (:func:`numerics.simulate_mlp`).
"""
from __future__ import annotations

import os

from verify import api

__version__ = "0.1.0"

_ITEMS = [
    api.Item("§ Setting", (), "the random network z^l = W^l y^{l−1} + b^l: implemented by numerics.simulate_mlp"),
    api.Item("§ Forward maps: length map", ("finite-width-tracking", "depth-scales")),
    api.Item("§ Forward maps: the fixed point q* (one and stable for bounded φ)", ("q-star-stability",)),
    api.Item("§ Forward maps: correlation map", ("finite-width-tracking", "depth-scales", "dropout")),
    api.Item("§ Forward maps: χ₁ and the order-to-chaos boundary", ("edge-of-chaos", "backprop")),
    api.Item("§ Forward maps: length of an input circle (Poole et al.)", (),
             "exponential growth of a circle's length in the chaotic phase: could be checked with the same networks, "
             "not checked by this plugin", "not yet"),
    api.Item("§ Depth scales: ξ_q", ("depth-scales",)),
    api.Item("§ Depth scales: ξ_c and its divergence at χ₁ = 1", ("depth-scales", "critical-power-law")),
    api.Item("§ Dropout", ("dropout",)),
    api.Item("§ Backpropagation", ("backprop",)),
    api.Item("§ Forward maps, § Dropout and § Backpropagation on every pair of a dataset: the kernel K^l and the "
             "gradients' inner products Θ^l", ("dataset-kernels",)),
    api.Item("§ Trainability: depth ≲ 6ξ_c", ("trainability",)),
]

PAPER = api.Paper(
    key="schoenholz2017", title="Deep information propagation",
    citation="Schoenholz, Gilmer, Ganguli, Sohl-Dickstein — Deep information propagation (ICLR 2017)",
    api_version="1.0", coverage=_ITEMS,
    expectations=os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.toml"),
    notation="q^l: squared length of a pre-activation per unit; c^l: correlation of two inputs; q*, c*: fixed points; "
             "χ₁: slope of the correlation map at c = 1; ξ_q, ξ_c: depth scales; ρ: keep probability of dropout; "
             "σ_w², σ_b²: weight and bias variances (W_ij ~ N(0, σ_w²/N)).")

chi1 = PAPER.quantity("chi1", "χ₁", "slope of the correlation map at c = 1, σ_w² E φ′(√q* z)² (§ Forward maps)",
                      "theory.meanfield_mlp.chi_1")
xi_q = PAPER.quantity("xi_q", "ξ_q", "depth scale of the length map, −1/log[χ₁ + σ_w² E φ″φ] (§ Depth scales)",
                      "theory.meanfield_mlp.depth_scales")
xi_c = PAPER.quantity("xi_c", "ξ_c", "depth scale of the correlation map, −1/log[σ_w² E φ′(u₁*)φ′(u₂*)] "
                      "(§ Depth scales)", "theory.meanfield_mlp.depth_scales")
cstar = PAPER.quantity("c*", "c*", "fixed point of the correlation map, with dropout (§ Dropout)",
                       "theory.meanfield_mlp.fixed_point_c")
qmap = PAPER.quantity("q-map", "q^l", "iterates of the length map from the input's q^0 (§ Forward maps)",
                      "theory.meanfield_mlp.length_map")
cmap = PAPER.quantity("c-map", "c^l", "iterates of the correlation map from the inputs' c^0 (§ Forward maps)",
                      "theory.meanfield_mlp.correlation_map")
lslope = PAPER.quantity("length-slope", "L′(q*)", "slope of the length map at its fixed point, which decides its "
                        "stability (§ Forward maps)", "theory.meanfield_mlp.length_fixed_points")
rate_constant = PAPER.quantity("rate-constant", "A", "constant of the power law 1 − c^l ≈ A l^{−p} on the boundary "
                               "χ₁ = 1 (§ Depth scales)", "theory.meanfield_depth.asymptotic_rate")

kernel = PAPER.quantity("nngp", "K^l", "covariance of the pre-activations of a set of inputs, the maps applied pair by "
                        "pair with unequal lengths (§ Forward maps)", "theory.kernels.network_kernels")
gradient_kernel = PAPER.quantity("ntk", "Θ^l", "inner products of the gradients of the output at two inputs, "
                                 "Θ^l = K^l + σ_w² E[φ′φ′] Θ^{l−1} (§ Backpropagation)",
                                 "theory.kernels.network_kernels")

from . import dataset, forward, networks, stability  # noqa: E402,F401  (the claims register themselves on PAPER)

__all__ = ["PAPER", "chi1", "xi_q", "xi_c", "cstar", "qmap", "cmap", "lslope", "rate_constant",
           "kernel", "gradient_kernel"]
