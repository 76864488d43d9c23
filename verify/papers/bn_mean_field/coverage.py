"""Coverage of the BN mean-field paper (Yang et al. 2019): every numbered item, the claims that check it and what each does with it
(``verify.api.Item``: "as printed", "derived: …", "uses only"), or why no claim does."""
from __future__ import annotations

from ...api import Item

AP = "as printed"
USES = "uses only"
_DIGITS = "derived: trained on scikit-learn's digits, a substitute for the paper's data"


def _eqs(numbers, claims=(), note="", kind="no claim", audit=""):
    return [Item(f"eq ({k})", tuple(claims), note, kind, audit) for k in numbers]


ITEMS: list[Item] = [
    *_eqs(range(1, 11), [], "the setting (network, gradients, BN as a map on the sphere): implemented by "
                            "numerics.bn_meanfield (Laplace/MC/Fourier maps, autograd networks), tested there"),
    Item("Theorem 1", ("theorem1",), audit="as printed: the eigenspace dimensions of random ultrasymmetric "
                                           "operators and of the BN Jacobian at Σ*"),
    *_eqs([11], ["theorem2"], audit="as printed: eq (11) by quadrature vs Monte Carlo of V_φ̃, and Σ* ↦ Σ*"),
    Item("Theorem 2", ("theorem2",), audit="as printed: as eq (11)"),
    *_eqs([12], ["theorem3"], "with the missing inverse restored (erratum)",
          audit="as printed: the transcribed eq (12) is rejected by Monte Carlo (the control), the restored one "
                "agrees, for φ polynomial of degree ≤ 2"),
    Item("Theorem 3", ("theorem3",), audit="as printed: as eq (12)"),
    *_eqs([13, 14, 15], ["theorem4", "constants"],
          audit=("as printed: the θ-integrals as printed (theory.theorem4_fixed_point) vs the Gauss–Jacobi sphere "
                 "marginals, Monte Carlo, mpmath and networks",
                 "as printed: q*, c* cross-checked against the θ-integrals")),
    Item("Theorem 4", ("theorem4",), audit="as printed: as eqs (13)–(15)"),
    *_eqs([16, 17], ["theorem5"], audit="as printed: q* simplified in sympy, c* = J(−1/(B−1)) vs the sphere "
                                        "quadrature and the homogeneity identity"),
    Item("Theorem 5", ("theorem5",), audit="as printed: as eq (16)"),
    *_eqs([18, 19, 20], ["theorem6"], "with v* = q*(1 − c*) (erratum)",
          audit="as printed: eqs (18)–(20) as printed (theory.theorem6_relu_eigenvalues) vs finite differences of "
                "eq (11); v* is undefined in the statement: q*(1 − c*) fits, q*c* is rejected"),
    Item("Theorem 6", ("theorem6",), audit="as printed: as eqs (18)–(20)"),
    *_eqs([21, 22, 23], ["theorem7"], "the backward recursion: autograd through BN in the finite-width networks",
          audit="derived: the recursion's growth rate only — λ_max (eq 24) against the backward-map reduction and "
                "the autograd gradients of finite-width networks"),
    *_eqs([24], ["theorem7", "constants"],
          audit=("as printed: theory.theorem7_rate (the printed prefactor and Z) vs the backward-map reduction and "
                 "networks",
                 "uses only: λ_max tabulated from theory.gradient_explosion_rate, not from eq (24)")),
    Item("Theorem 7", ("theorem7",), audit="as printed: as eq (24)"),
    *_eqs([25], ["theorem8"], audit="as printed: eq (25) with the degree-α arccosine kernel vs "
                                    "theory.gradient_explosion_rate; the B → ∞ limit and (B−2)/(B−3)"),
    Item("Theorem 8", ("theorem8",), audit="as printed: as eq (25)"),
    *_eqs([26], ["theorem9"], "the Gegenbauer normalisation",
          audit="derived: the normalisation enters as the orthonormal Gegenbauer basis under the sphere-marginal "
                "rule, with Parseval Σa_k² = q* bounding the tail; the printed prefactor "
                "(B−1)^{(B−3)/2}Γ(B/2 − 1/2)/(Γ(B/2 − 1)√π) is not evaluated by a claim. As restated in "
                "yang2019-equations.md it normalises φ ≡ 1 to (B−1)^{B−3}, not a_0² = 1 (16807 at B = 8; "
                "tests/test_bn_mean_field.py): the exponent must be −(B−3)/2 — a misprint of the restatement "
                "or of the paper (its text lost the equation), not yet a claim"),
    *_eqs([27], ["theorem9"], audit="as printed: eq (27) (c_k by ₂F₁, 200 terms, tail enclosed) vs eq (24)"),
    Item("Theorem 9", ("theorem9",), audit="as printed: as eq (27)"),
    *_eqs([28], [], "not located in the equations file; the paper text's (28) belongs to the training section"),
    Item("Fig 1", ("figure1",), audit="as printed: λ_max(B) vs 200 networks of width 1000; α_transition(B)"),
    Item("Fig 2", ("figure2",), "trained on scikit-learn's digits, a substitute for MNIST/CIFAR10 (nothing "
                                "downloads; --param dataset=PATH.npz for your MNIST); (b) sub-batches and (c) RMSProp "
                                "by --param", audit=_DIGITS + " (MNIST/CIFAR10)"),
    Item("Fig 3", ("figure3",), "digits substitute, as Fig 2", audit=_DIGITS + " (MNIST)"),
    Item("Section 3, effect of ε", ("epsilon",), "the ε > 0 generalisation (the package's own derivation: the paper "
                                              "gives none) against Monte Carlo and networks",
         audit="as printed: the qualitative statement (ε ameliorates but does not eliminate; a critical ε where "
               "gradients do not explode); no printed formula"),
    Item("Fig 4", ("epsilon", "figure4"), "(c, d): the theory curve λ_max(ε), 16ξ(ε) and networks' gradient "
                                          "growth (epsilon); trained networks (digits substitute) for (a)–(d) "
                                          "(figure4); (b) read as max(x, ax), a → 1 (the text lost its parameter)",
         audit=("derived: the theory curve of (c, d) only",
                _DIGITS + " (MNIST); (b) read as max(x, ax)")),
    Item("Fig A.2", ("figure-a2",), "a ReLU BN MLP on scikit-learn's digits, a substitute for VGG19 on CIFAR100",
         audit="derived: a ReLU BN MLP on digits for VGG19 on CIFAR100"),
    Item("Fig A.3", (), "\"acceleration effects … due to setting γ and/or initializing γ\" (VGG19, "
                        "CIFAR100): which γ settings and initial values are compared is only in the figures, lost "
                        "from the text copy, so there is no statement to test", "text lost"),
    Item("Fig A.4", (), "as Fig A.3 (the γ settings compared are only in the lost figure)", "text lost"),
    Item("Two batches through one network (cross-batch kernels)", ("cross-batch",),
         "beyond the printed text (the text copy stops in Appendix A.2; the authors' code computes two-batch "
         "kernels): the cross block μ*²·11ᵀ of the two-batch fixed point and the backward cross block α*²·GΔ₁₂G",
         audit="derived: the package's derivation for two batches (theory.bn_meanfield.TwoBatchFixedPoint), "
               "checked against closed forms, Monte Carlo of the two-batch maps and finite-width networks"),
    Item("Tables of constants", ("constants",), "q*, c*, λ_𝔾, λ_𝕃, λ_𝕄, λ_max, 16ξ (the package's own tables)",
         audit="derived: the package's own tables (the paper prints none); the formulas they rest on are "
               "checked under Theorems 4–8"),
]
