"""Coverage of printed formulas: every numbered item of a paper → the claims that check it, or why none does.

One row per numbered equation, theorem, lemma, corollary, proposition, definition, assumption, example, table and
figure (for bn-mean-field: of shared/papers/yang2019-equations.md and the paper text). ``claims`` empty means the item
is not checked; ``note`` says why and ``kind`` which of these it is (``Item.status``):

* ``no claim`` — a definition or setting implemented (and tested) in numerics/theory, notation, a remark with no
  statement of its own, a proof step whose conclusion a listed claim checks, an illustration;
* ``vacuous`` — a statement that cannot fail in any setting the package can build (reported with the measurement);
* ``text lost`` — a statement whose content (the settings compared, an appendix) is not in the text copies;
* ``offline`` — needs data or pretrained weights that cannot exist offline;
* ``not yet`` — a statement that could be checked and is not (none today: a test keeps it so).

``python -m verify list`` shows the status of every unchecked item; ``python -m verify.docs`` renders the table into
docs/papers/<paper>.md.
"""
from __future__ import annotations

from dataclasses import dataclass


UNCHECKED_KINDS = ("no claim", "vacuous", "text lost", "offline", "not yet")


@dataclass(frozen=True)
class Item:
    """One numbered item of a paper (a theorem, an equation, a figure) and the claims that check it, or why none does.

    Attributes
    ----------
    item : str
        As printed: ``"Theorem 1"``, ``"eq (13)"``, ``"Fig 2"``, ``"Table B.1"``.
    claims : tuple of str
        The names of the claims that check it (without the paper prefix); empty: unchecked.
    note : str
        A remark, shown in the coverage table.
    kind : str
        For an unchecked item, why: one of ``"no claim"``, ``"vacuous"``, ``"text lost"``, ``"offline"``,
        ``"not yet"``.

    Examples
    --------
    >>> from verify.api import Item
    >>> Item("Theorem 1", ("theorem1",)).status
    'checked'
    >>> Item("eq (7)", (), "a definition").status
    'no claim'
    """

    item: str                   # as printed: "Theorem 1", "eq (13)", "Fig 2", "Table B.1"
    claims: tuple[str, ...]     # claim names of this paper (without the paper prefix)
    note: str = ""
    kind: str = "no claim"      # for an unchecked item: one of UNCHECKED_KINDS

    def __post_init__(self):
        if self.kind not in UNCHECKED_KINDS:
            raise ValueError(f"{self.item}: kind {self.kind!r} is not one of {UNCHECKED_KINDS}")

    @property
    def covered(self) -> bool:
        return bool(self.claims)

    @property
    def status(self) -> str:
        return "checked" if self.claims else self.kind


def _eqs(numbers, claims=(), note="", kind="no claim"):
    return [Item(f"eq ({k})", tuple(claims), note, kind) for k in numbers]


PROOF = "a step of a proof; its conclusion is what the listed claim checks"

COVERAGE: dict[str, list[Item]] = {
    "bn-finite-width": [
        *_eqs([1], ["theorem1"], "the informal rate e^{−α·depth/2} + width^{−1/2} (abstract)"),
        *_eqs([2, 3], [], "definition of the chain and of G_ℓ: implemented by numerics.simulate_bn_chain (exact vs dense "
                          "KS test in tests/test_bn_finite_width.py)"),
        *_eqs([4, 5], ["corollary8", "theorem1"], "the mean-field recursion and its fixed point G*: b*, c* by quadrature "
                                                  "vs Monte Carlo, and the stationary mean Gram of the networks"),
        *_eqs([6], ["eq6"]),
        *_eqs([7], ["assumption1", "lemma5"], "the Markov kernel T of the chain"),
        Item("Assumption 1", ("assumption1",)),
        *_eqs([8], ["theorem1"]), Item("Theorem 1", ("theorem1",)),
        *_eqs([9], ["corollary2"]), Item("Corollary 2", ("corollary2",)),
        *_eqs([10], ["theorem3"], "the distortion γ, enclosed by a duality certificate"),
        *_eqs([11], ["theorem3"]), Item("Theorem 3", ("theorem3",)),
        *_eqs([12], ["corollary4"]), Item("Corollary 4", ("corollary4",)),
        *_eqs([13], ["lemma5"]), Item("Lemma 5", ("lemma5",)),
        *_eqs([14, 15], [], "proof sketch of Theorem 3 (TV triangle inequalities); rests on Lemma 5, which is violated "
                            "— Theorem 3's prediction is checked directly (theorem3)"),
        *_eqs([16], ["corollary8", "theorem1"]),
        *_eqs([17], ["corollary6"]), Item("Corollary 6", ("corollary6",)),
        *_eqs([18], ["corollary7"]), Item("Corollary 7", ("corollary7",)),
        Item("Corollary 8", ("corollary8",)),
        Item("Remark 1", (), "remark on the constants of Theorem 1 (no separate statement to check)"),
        Item("Remark 2", (), "remark on the probability form; see the erratum recorded under theorem1"),
        Item("Remark 3", (), "remark relating to the mean-field literature (no statement to check)"),
        *_eqs([19], ["eq19"], "the cited TV bound between Gaussians (erratum: min(1, sqrt(Σλ²)), not Σλ²)"),
        *_eqs([20], ["lemma9"]), Item("Lemma 9", ("lemma9",)),
        *_eqs(range(21, 31), ["lemma9"], PROOF + " (Lemma 9: the moment identity of its Bernstein step is checked; the "
                                        "first step's restatement is an erratum)"),
        Item("Lemma 10", (), "P{‖G*⁻¹G − I‖ ≥ t} ≤ (100/t)·tv(h′, h) cannot fail here — with the TV of one "
                             "chain step ≥ 0.75 (lemma5's lower bound, relu, n = 10), the right side exceeds 1 for every t "
                             "≤ 75, and ‖G*⁻¹G − I‖ stays far below 75; it says something only when the TV is small, "
                             "which Lemma 5 (violated) was to provide", "vacuous"),
        *_eqs([31], [], "Lemma 10's inequality (see Lemma 10)", "vacuous"),
        *_eqs(range(32, 36), [], "the proof of Lemma 10 (its (33) uses eq (19)'s lower end, see eq19)"),
        *_eqs([36], ["lemma5"]), Item("Lemma 11", ("lemma5",)),
        *_eqs(range(37, 48), ["lemma5"], PROOF + " (Lemma 11; the step (40)–(41) is the erratum recorded under lemma5)"),
        *_eqs([48], ["lemma12"]), Item("Lemma 12", ("lemma12",)),
        *_eqs([49], ["assumption1"]),
        Item("Fig 1", ("eq6", "figure1")), Item("Fig 2", ("figure2",)),
        Item("Poster Theorem 1", ("theorem1",), "the poster's statement of Theorem 1"),
        Item("Poster Theorem 2", ("poster-theorem2",)),
        Item("Poster Figs 1–2", ("eq6", "figure1", "figure2"), "the same figures as the paper's"),
    ],
    "bn-mean-field": [
        *_eqs(range(1, 11), [], "the setting (network, gradients, BN as a map on the sphere): implemented by "
                                "numerics.bn_meanfield (Laplace/MC/Fourier maps, autograd networks), tested there"),
        Item("Theorem 1", ("theorem1",)),
        *_eqs([11], ["theorem2"]), Item("Theorem 2", ("theorem2",)),
        *_eqs([12], ["theorem3"], "with the missing inverse restored (erratum)"), Item("Theorem 3", ("theorem3",)),
        *_eqs([13, 14, 15], ["theorem4", "constants"]), Item("Theorem 4", ("theorem4",)),
        *_eqs([16, 17], ["theorem5"]), Item("Theorem 5", ("theorem5",)),
        *_eqs([18, 19, 20], ["theorem6"], "with v* = q*(1 − c*) (erratum)"), Item("Theorem 6", ("theorem6",)),
        *_eqs([21, 22, 23], ["theorem7"], "the backward recursion: autograd through BN in the finite-width networks"),
        *_eqs([24], ["theorem7", "constants"]), Item("Theorem 7", ("theorem7",)),
        *_eqs([25], ["theorem8"]), Item("Theorem 8", ("theorem8",)),
        *_eqs([26, 27], ["theorem9"]), Item("Theorem 9", ("theorem9",)),
        *_eqs([28], [], "not located in the equations file; the paper text's (28) belongs to the training section"),
        Item("Fig 1", ("figure1",)),
        Item("Fig 2", ("figure2",), "trained on scikit-learn's digits, a substitute for MNIST/CIFAR10 (nothing "
                                    "downloads; --param dataset=PATH.npz for your MNIST); (b) sub-batches and (c) RMSProp "
                                    "by --param"),
        Item("Fig 3", ("figure3",), "digits substitute, as Fig 2"),
        Item("Section 3, effect of ε", ("epsilon",), "the ε > 0 generalisation (the package's own derivation: the paper "
                                                  "gives none) against Monte Carlo and networks"),
        Item("Fig 4", ("epsilon", "figure4"), "(c, d): the theory curve λ_max(ε), 16ξ(ε) and networks' gradient "
                                              "growth (epsilon); trained networks (digits substitute) for (a)–(d) "
                                              "(figure4); (b) read as max(x, ax), a → 1 (the text lost its parameter)"),
        Item("Fig A.2", ("figure-a2",), "a ReLU BN MLP on scikit-learn's digits, a substitute for VGG19 on CIFAR100"),
        Item("Fig A.3", (), "\"acceleration effects … due to setting γ and/or initializing γ\" (VGG19, "
                            "CIFAR100): which γ settings and initial values are compared is only in the figures, lost "
                            "from the text copy, so there is no statement to test", "text lost"),
        Item("Fig A.4", (), "as Fig A.3 (the γ settings compared are only in the lost figure)", "text lost"),
        Item("Tables of constants", ("constants",), "q*, c*, λ_𝔾, λ_𝕃, λ_𝕄, λ_max, 16ξ (the package's own tables)"),
    ],
    "isometry": [
        *_eqs([1, 2], [], "the network and its Gram matrices: numerics.simulate_isometry_mlp (exact vs dense KS test)"),
        *_eqs([3], ["lemma-a1"], "the isometry 𝓘(G)"), Item("Definition 1", ("lemma-a1",)),
        Item("Lemma A.1", ("lemma-a1",)),
        *_eqs(range(4, 10), ["theorem1"], "Theorem 1 and its proof (norm-variation factor)"),
        Item("Theorem 1", ("theorem1",)), Item("Fig 1", (), "an illustration (volume of a parallelotope); no claim"),
        *_eqs([10], ["corollary2"]), Item("Corollary 2", ("corollary2",)), Item("Fig 2", ("corollary2",)),
        *_eqs([11, 12], ["definition3", "theorem4"]), Item("Definition 2", ("lemma-a6", "definition3"),
                                                          "Hermite coefficients c_k"),
        Item("Definition 3", ("definition3",)), Item("Table 2", ("table2",)), Item("Table B.1", ("table-b1",)),
        *_eqs([13], ["corollary3"]), Item("Corollary 3", ("corollary3",)),
        Item("Definition 4", ("theorem4", "corollary-a3"), "the potential γ(G)"),
        Item("Definition 5", ("lemma-a6",), "the dual activation σ̂, σ̄"),
        Item("Table 1", (), "a summary of the building blocks (definitions implemented in numerics.isometry_mlp)"),
        *_eqs(range(14, 20), [], "the MLP of Section 6 (eqs 14–19): numerics.simulate_isometry_mlp variants, used by "
                                 "section6, figure6, figure8, figure9"),
        Item("Theorem 4", ("theorem4",)), Item("Theorem A.5", ("theorem4",), "the appendix statement of Theorem 4"),
        Item("Fig 3", ("figure3",)), Item("Fig 4", ("section6",)), Item("Fig 5", ("section6",)),
        Item("Fig 6", ("figure6",)),
        Item("Fig 7", ("figure7",), "trained on scikit-learn's digits, a substitute for CIFAR10"),
        Item("Fig 8", ("figure8",)), Item("Fig 9", ("figure9",)),
        *_eqs(range(20, 33), ["theorem4"], PROOF + " (Theorem 4; eq (28) recorded as a typo)"),
        Item("Lemma A.4", ("lemma-a4",)),
        Item("Theorem A.2", ("theorem-a2",)), Item("Corollary A.3", ("corollary-a3",)),
        *_eqs(range(33, 43), ["theorem-a2", "lemma-a7"], PROOF + " (Theorem A.2)"),
        Item("Lemma A.6", ("lemma-a6",)),
        Item("Lemma A.7", ("lemma-a7",)),
        *_eqs(range(43, 53), ["lemma-a7"], PROOF + " (Lemma A.7, incl. eq (52) checked numerically)"),
        Item("Lemma A.8", ("lemma-a8",)),
        *_eqs(range(53, 62), ["lemma-a8", "lemma-a6"], PROOF + " (Lemma A.8 / Mehler's formula; the series is checked)"),
        Item("Fig A.1", ("figure-a1",)), Item("Figs B.1–B.2", ("figure-b1",)),
        Item("Fig B.3", ("figure-b3",)),
        Item("Fig B.4", ("figure-b4",), "inputs: scikit-learn's digits, a substitute for MNIST/CIFAR10"),
        Item("Fig B.5", (), "LayerNorm in pre-trained GPT-2 (no weights offline; random weights would not test a "
                            "claim about trained ones)", "offline"),
        Item("Fig B.6", ("figure-b6",), "digits substitute, as Fig 7"),
        Item("Fig B.7", ("figure-b7",), "digits substitute, as Fig 7"),
    ],
    "covariance-sde": [
        *_eqs(["2.1", "2.2"], ["eq2-6", "theorem3-2"], "the network and the ReLU-like activation: "
                                                       "numerics.covariance_sde.simulate_shaped_network"),
        *_eqs(["2.3", "2.4", "2.5"], ["eq2-6"], PROOF + " (eq 2.6)"), *_eqs(["2.6"], ["eq2-6"]),
        *_eqs(["2.7", "2.8", "2.9"], ["eq2-10"], PROOF + " (eq 2.10)"), *_eqs(["2.10"], ["eq2-10"]),
        Item("Definition 3.1", ("theorem3-2",), "ReLU-like shaping s± = 1 + c±/√n"),
        *_eqs(["3.1", "3.2"], ["theorem3-2"]), Item("Theorem 3.2", ("theorem3-2",)),
        *_eqs(["3.3"], ["theorem3-2", "proposition3-4"]),
        *_eqs(["3.4", "3.5"], ["theorem3-3"]), Item("Theorem 3.3", ("theorem3-3",)),
        *_eqs(["3.6"], ["proposition3-4"]), Item("Proposition 3.4", ("proposition3-4",)),
        Item("Assumption 3.5", ("example4-1", "constants"), "φ(0) = 0, φ′(0) = 1, C⁴: explosion_criterion recentres "
                                                            "and rejects kinks"),
        Item("Definition 3.6", ("theorem3-9",), "smooth shaping s = a√n"),
        *_eqs(["3.7"], ["proposition3-7"]), Item("Proposition 3.7", ("proposition3-7",)),
        *_eqs(["3.8"], ["figure2"], "stopping times: Fig 2 compares the stopped processes"),
        Item("Definition 3.8", ("figure2",)),
        *_eqs(["3.9", "3.10", "3.11"], ["theorem3-9"]), Item("Theorem 3.9", ("theorem3-9",)),
        *_eqs(["3.12"], ["proposition3-10"]), Item("Proposition 3.10", ("proposition3-10",)),
        *_eqs(["4.1"], ["eq4-1"]),
        Item("Example 4.1", ("example4-1",)), Item("Example 4.2", ("example4-2",)),
        Item("Fig 1", ("figure1", "eq2-10")), Item("Fig 2", ("figure2",)),
        Item("Theorem 3.2 for m ≥ 3 inputs", ("m-point",), "beyond the printed text (the m-point appendix is "
                                                            "missing): m = 3"),
        Item("Appendix F (KS distance vs width)", ("width-convergence",),
             "beyond the printed text (Section 3 cites it, the appendix is missing): the network–SDE KS distance as the "
             "width grows, and the mean extrapolated to n = ∞"),
        Item("Table 1", (), "notation table (no claim)"),
        Item("Proposition A.6, Proposition B.8, Theorem 5.5", (), "appendix results cited in the main text; the "
                                                                  "appendices are not in shared/papers", "text lost"),
    ],
}


def items(paper: str) -> list[Item]:
    """The coverage rows a paper declares (:attr:`verify.api.Paper.coverage`); none for an unknown paper."""
    from .registry import papers
    declared = papers().get(paper)
    return list(declared.coverage) if declared is not None else []


def uncovered(paper: str) -> list[Item]:
    return [it for it in items(paper) if not it.covered]
