"""Coverage of the isometry paper (Joudaki et al. 2023): every numbered item, the claims that check it and what each does with it
(``verify.api.Item``: "as printed", "derived: …", "uses only"), or why no claim does."""
from __future__ import annotations

from ...api import Item

AP = "as printed"
USES = "uses only"
PROOF = "a step of a proof; its conclusion is what the listed claim checks"
_DIGITS = "derived: trained on scikit-learn's digits, a substitute for the paper's data"


def _eqs(numbers, claims=(), note="", kind="no claim", audit=""):
    return [Item(f"eq ({k})", tuple(claims), note, kind, audit) for k in numbers]


ITEMS: list[Item] = [
    *_eqs([1, 2], [], "the network and its Gram matrices: numerics.simulate_isometry_mlp (exact vs dense KS test)"),
    *_eqs([3], ["lemma-a1"], "the isometry 𝓘(G)",
          audit="as printed: det(G)^{1/n}/(tr(G)/n) evaluated (exact rationals for n ≤ 5) and its stated "
                "properties (i), (ii) checked"),
    Item("Definition 1", ("lemma-a1",), audit="as printed: as eq (3)"),
    Item("Lemma A.1", ("lemma-a1",), audit=AP),
    *_eqs([4], ["theorem1"], "Theorem 1", audit="as printed: random/adversarial batches and exact rationals"),
    *_eqs(range(5, 10), ["theorem1"], PROOF + " (Theorem 1)",
          audit="uses only: steps of the proof; only (4) is checked"),
    Item("Theorem 1", ("theorem1",), audit="as printed: as eq (4)"),
    Item("Fig 1", (), "an illustration (volume of a parallelotope); no claim"),
    Item("Corollary 2", ("corollary2",), "its inequality is unnumbered (the coverage table named it eq (10) until "
                                         "the audit)", audit="as printed: with LN(x) = x/sqrt(mean x²)"),
    Item("Fig 2", ("corollary2",), audit="derived: synthetic Gaussian inputs at initialisation (tanh, depth 10, "
                                         "width 1000, batch 512), not CIFAR10; the after-training half is "
                                         "figure-b6's"),
    Item("Corollary 3", ("corollary3",), "its inequality is unnumbered (the table named it eq (13) until the audit)",
         audit="as printed: the printed reading (C̃ := XXᵀ, ā with 1/n) is evaluated as evidence for the errata; "
               "the intended reading is checked"),
    *_eqs([10], ["theorem-a2"], "the mean-field Gram dynamics",
          audit="as printed: Monte Carlo of E[φ(σ(h))φ(σ(h))ᵀ] (numerics.meanfield_map_mc) vs the entrywise dual "
                "map"),
    *_eqs([11], ["definition3"], "the isometry strength β_σ",
          audit="derived: β_σ computed as 2 − c₁²/Var σ (Parseval: Σ_{k≥1} c_k² = Var σ), exactly or by mpmath "
                "quadrature; properties (i), (ii) checked; the Hermite sum itself only through lemma-a6 at ρ = 1"),
    Item("Definition 2", ("lemma-a8", "lemma-a6", "definition3"), "Hermite coefficients c_k",
         audit=("derived: He_k as sympy's probabilists' Hermite / √k! (orthonormality and E He_n(X)He_k(Y) = ρⁿδ_nk "
                "exact); the printed Rodrigues form is not evaluated", USES, USES)),
    Item("Definition 3", ("definition3",), audit="derived: as eq (11)"),
    *_eqs([12], ["theorem4"], audit="as printed: the bound at every layer of mean-field trajectories (log space) "
                                    "and of the Fig 3 networks; the depth threshold compared with the proof"),
    Item("Table 2", ("table2",), audit="as printed: sympy equality with the printed closed forms"),
    Item("Table B.1", ("table-b1",), audit="as printed: sympy equality with the printed closed forms"),
    *_eqs([13], ["theorem-a2"], "eq (10) restated (the table named Corollary 3 here until the audit)",
          audit="as printed: as eq (10)"),
    Item("Table 1", (), "a summary of the building blocks (definitions implemented in numerics.isometry_mlp)"),
    *_eqs(range(14, 20), [], "the MLP of Appendix A.2 (eqs 14–19): numerics.simulate_isometry_mlp variants, used by "
                             "section6, figure6, figure8, figure9"),
    *_eqs([20], ["figure-b4"], "the infinite-width limit of the network's Gram matrix",
          audit="derived: through the isometry gap — the width-extrapolated gap of networks against the mean-field "
                "gap; the Gram entries are not compared"),
    *_eqs([21], ["theorem4", "corollary-a3"], "the potential γ(G)",
          audit="uses only: γ implemented by theory.gram_potential"),
    Item("Definition 4", ("theorem4", "corollary-a3"), "the potential γ(G)", audit="uses only: as eq (21)"),
    *_eqs([22], ["theorem-a2"], audit="as printed: random and adversarial correlation matrices through the dual map"),
    Item("Theorem A.2", ("theorem-a2",), audit="as printed: as eq (22)"),
    *_eqs([23], ["corollary-a3"], audit="as printed: at every layer of mean-field trajectories, log space"),
    Item("Corollary A.3", ("corollary-a3",), audit="as printed: as eq (23)"),
    *_eqs([24], ["lemma-a4"], audit="as printed: both bounds, floats and exact rationals"),
    Item("Lemma A.4", ("lemma-a4",), audit="as printed: as eq (24)"),
    *_eqs([25], ["theorem4"], "Theorem 4 restated", audit="as printed: as eq (12)"),
    Item("Theorem 4", ("theorem4",), audit="as printed: as eq (12)"),
    Item("Theorem A.5", ("theorem4",), "the appendix statement of Theorem 4", audit="as printed: as eq (12)"),
    *_eqs(range(26, 35), ["theorem4"], PROOF + " (Theorem 4; eq (28) recorded as a typo)",
          audit="uses only: steps of the proof of Theorem 4; only (25) = (12) is checked"),
    *_eqs([35], ["lemma-a6"], "the dual activation σ̂, σ̄",
          audit="as printed: the 2-D Gaussian integral computed by kink-split quadrature is lemma-a6's reference"),
    Item("Definition 5", ("lemma-a6",), "the dual activation σ̂, σ̄", audit="as printed: as eq (35)"),
    *_eqs([36], ["lemma-a6"], audit="as printed: 200 Hermite coefficients with a rigorous tail vs quadrature of "
                                    "(35), closed forms and Monte Carlo"),
    Item("Lemma A.6", ("lemma-a6",), audit="as printed: as eq (36)"),
    *_eqs([37], ["theorem-a2"], audit="as printed: the mean-field map equals [σ̄(G_ij)/σ̄(1)] entrywise, checked "
                                      "against Monte Carlo of eq (10)"),
    *_eqs([38], ["lemma-a7"], audit="as printed: proved on [0, 1] by an adaptive interval cover"),
    Item("Lemma A.7", ("lemma-a7",), audit="as printed: as eq (38)"),
    *_eqs(range(39, 44), ["theorem-a2"], PROOF + " (Theorem A.2)",
          audit="uses only: steps of the proof of Theorem A.2; only (22) is checked"),
    *_eqs(range(44, 52), ["lemma-a7"], PROOF + " (Lemma A.7)",
          audit="uses only: steps of the proof of Lemma A.7; only (38) is checked"),
    *_eqs([52], ["lemma-a7"], "|σ̄(ρ)| ≤ σ̄(|ρ|), the reduction of ρ < 0", audit="as printed: on a grid"),
    *_eqs([53], ["lemma-a7"], PROOF + " (Lemma A.7)", audit="uses only: as (44)–(51)"),
    *_eqs([54, 55], ["lemma-a6"], PROOF + " (Lemma A.6)", audit="uses only: steps of the proof of Lemma A.6"),
    *_eqs([56], ["lemma-a6"], "the conclusion of Lemma A.6's proof", audit="as printed: as eq (36)"),
    Item("Lemma A.8", ("lemma-a8",), audit="as printed: exact sympy moments (n, k ≤ 8) and a 2-D Gauss–Hermite rule"),
    *_eqs([57, 58], ["lemma-a8"], "Mehler's formula (erratum: (58) lacks ρ^m)",
          audit="as printed: the kernel (57) against the series, and the printed series (58) evaluated"),
    *_eqs(range(59, 62), ["lemma-a8"], PROOF + " (Lemma A.8)",
          audit="uses only: steps of the proof of Lemma A.8"),
    *_eqs([62], ["lemma-a8"], "the conclusion of Lemma A.8", audit="as printed: as Lemma A.8"),
    Item("Fig 3", ("figure3",), audit=AP), Item("Fig 4", ("section6",), audit=AP),
    Item("Fig 5", ("section6",), audit=AP), Item("Fig 6", ("figure6",), audit=AP),
    Item("Fig 7", ("figure7",), "trained on scikit-learn's digits, a substitute for CIFAR10",
         audit=_DIGITS + " (CIFAR10)"),
    Item("Fig 8", ("figure8",), audit=AP), Item("Fig 9", ("figure9",), audit=AP),
    Item("Fig A.1", ("figure-a1",), audit=AP), Item("Figs B.1–B.2", ("figure-b1",), audit=AP),
    Item("Fig B.3", ("figure-b3",), audit=AP),
    Item("Fig B.4", ("figure-b4",), "inputs: scikit-learn's digits, a substitute for MNIST/CIFAR10",
         audit="derived: digits inputs, a substitute for MNIST/CIFAR10"),
    Item("Fig B.5", (), "LayerNorm in pre-trained GPT-2 (no weights offline; random weights would not test a "
                        "claim about trained ones)", "offline"),
    Item("Fig B.6", ("figure-b6",), "digits substitute, as Fig 7", audit=_DIGITS + " (CIFAR10)"),
    Item("Fig B.7", ("figure-b7",), "digits substitute, as Fig 7", audit=_DIGITS + " (CIFAR10)"),
]
