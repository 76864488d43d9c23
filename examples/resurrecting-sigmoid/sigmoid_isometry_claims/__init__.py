"""Claims of Pennington, Schoenholz & Ganguli, *Resurrecting the sigmoid in deep learning through dynamical isometry:
theory and practice* (NeurIPS 2017), as a deepinit-verify plugin.

Only the abstract and the first page of the paper could be read here (the search tool's stored pages); the claims
restate its results in the setting the abstract and the engine's docs give (:mod:`theory.jacobian`): h^l = W^l x^{l−1}
+ b^l, x^l = φ(h^l), W^l Gaussian (entries N(0, σ_w²/N)) or σ_w × Haar orthogonal, b^l ~ N(0, σ_b²), inputs at the
fixed point q*, criticality χ = σ_w² E φ′(√q* z)² = 1, and J = ∂x^L/∂x⁰ = Π_l D^l W^l. Section names, not equation
numbers, are cited: § Free probability (S-transforms multiply), § Jacobian spectrum (the moments m₁, σ²_{JJᵀ}),
§ Nonlinearities (linear, ReLU, hard tanh, erf), § Isometry (ReLU never, sigmoidal with orthogonal weights only).

The theory side is :mod:`theory.jacobian` (moments) and :mod:`theory.jacobian_density` (the whole law); the
independent routes are the closed forms of μ_k = E φ′(√q z)^{2k} written out here, the Fuss–Catalan density
(Haagerup–Möller), and finite-width networks of both ensembles (:mod:`numerics.jacobian`).
"""
from __future__ import annotations

import os

from verify import api

__version__ = "0.1.0"

_ITEMS = [
    api.Item("§ Setting: deep network, Jacobian J = Π D^l W^l, criticality χ = 1", ("jacobian-moments",),
             "m₁ = χ^L = 1 at criticality, against finite networks",
             audit="derived: m₁ = χ^L as restated from the abstract's setting"),
    api.Item("§ Free probability: S_{JJᵀ} = Π S_{D²} S_{WWᵀ}", ("spectral-density", "jacobian-moments"),
             "the whole law from the product of S-transforms (spectral-density) and its first-order expansion "
             "(jacobian-moments), both against finite networks",
             audit=("derived: the density it implies for φ′² ∈ {0, c²}", "derived: its first-order expansion")),
    api.Item("§ Jacobian spectrum: σ²_{JJᵀ} = L(μ₂/μ₁² − 1 − s₁), s₁ = −1 (Gaussian), 0 (orthogonal)",
             ("jacobian-moments",), "restated; the equation's number and printed form could not be read",
             audit="derived: restated form, not read as printed"),
    api.Item("§ Nonlinearities: σ²_{JJᵀ} for linear, ReLU, hard tanh, erf", ("jacobian-moments", "spectral-density"),
             "μ₂/μ₁² in closed form for each (hard tanh: 1/p, p = erf(1/√(2q*)); erf: (1 + 4q*)/√(1 + 8q*))",
             audit=("derived: μ₂/μ₁² closed forms written here", "derived: S_{D²} of a two-valued φ′²")),
    api.Item("§ Spectral densities at finite depth", ("spectral-density",),
             "linear, ReLU and hard tanh, both ensembles; erf not (its φ′² is not two-valued)",
             audit="derived: densities computed by the engine, the figures themselves could not be read"),
    api.Item("Abstract: ReLU networks are incapable of dynamical isometry; sigmoidal networks achieve it only with "
             "orthogonal weights", ("isometry",), audit="as printed"),
    api.Item("§ Experiments: learning speed of isometric networks (CIFAR-10)", (),
             "training experiments: not checked by this plugin", "not yet"),
    api.Item("§ Maximum singular value and depth", (),
             "support edges are computed (the Fuss–Catalan edge (L+1)^{L+1}/L^L is a row of spectral-density) but "
             "the paper's statement could not be read", "text lost"),
]

PAPER = api.Paper(
    key="pennington2017",
    title="Resurrecting the sigmoid in deep learning through dynamical isometry: theory and practice",
    citation="Pennington, Schoenholz, Ganguli — Resurrecting the sigmoid in deep learning through dynamical isometry: "
             "theory and practice (NeurIPS 2017)",
    api_version="1.0", coverage=_ITEMS,
    expectations=os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.toml"),
    notation="J = ∂x^L/∂x⁰: input–output Jacobian; m₁, σ²_{JJᵀ}: mean and variance of the eigenvalues of JJᵀ (the "
             "squared singular values of J); μ_k = E φ′(√q* z)^{2k}; s₁ = −1 (Gaussian weights), 0 (orthogonal); "
             "χ = σ_w² μ₁: the mean squared singular value per layer; p = P(φ′ ≠ 0).")

chi = PAPER.quantity("chi", "χ", "mean squared singular value per layer σ_w² E φ′(√q* z)²; m₁ = χ^L "
                     "(§ Jacobian spectrum)", "theory.jacobian.jacobian_spectrum_moments")
sigma2 = PAPER.quantity("sigma2", "σ²_{JJᵀ}", "variance of JJᵀ's eigenvalues, L(μ₂/μ₁² − 1 − s₁) at criticality "
                        "(§ Jacobian spectrum)", "theory.jacobian.jacobian_spectrum_moments")
law = PAPER.quantity("jjt-law", "ρ_{JJᵀ}", "the limiting eigenvalue law of JJᵀ from S_{JJᵀ} = Π S_{D²}S_{WWᵀ}, "
                     "perturbed on its λ axis (§ Free probability)",
                     "theory.jacobian_density.jacobian_spectral_density")

from . import spectrum  # noqa: E402,F401  (the claims register themselves on PAPER)

__all__ = ["PAPER", "chi", "sigma2", "law"]
