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

from dataclasses import dataclass, replace


UNCHECKED_KINDS = ("no claim", "vacuous", "text lost", "offline", "not yet")

#: What a claim named in a row does with the printed item (the head of :attr:`Item.audit`, before any ": remark").
AUDITS = ("as printed", "derived", "uses only")

#: When the rows of the four built-in papers were last audited, by reading each named claim's code (its statement,
#: ``how``, its check function and the ``theory.*`` function that computes its reference) against the printed item.
AUDIT_DATE = "2026-11-25"


@dataclass(frozen=True)
class Item:
    """One numbered item of a paper (a theorem, an equation, a figure) and the claims that check it, or why none does.

    The rule: a row is ``checked`` (``covered``) only when some claim checks it *as printed*. A row whose best claim
    checks a derived form has status ``"derived"``, one whose claims only use the item ``"uses only"``: both keep
    their claims (so the table says who uses what) but are not counted as checked — ``verify list`` shows them among
    the unchecked items, with the audit remark. A printed identity without an *as printed* row is a hole.

    Attributes
    ----------
    item : str
        As printed: ``"Theorem 1"``, ``"eq (13)"``, ``"Fig 2"``, ``"Table B.1"``.
    claims : tuple of str
        The names of the claims named for it (without the paper prefix); empty: unchecked.
    note : str
        A remark, shown in the coverage table.
    kind : str
        For an unchecked item, why: one of ``"no claim"``, ``"vacuous"``, ``"text lost"``, ``"offline"``,
        ``"not yet"``.
    audit : str or tuple of str
        What each named claim does with the item *as printed* — normalising constants, exponents and prefactors
        included: ``"as printed"`` (it compares the printed formula with an independent route, or checks the printed
        statement directly), ``"derived: …"`` (an equivalent or derived form, or only part of the statement — the
        remark says which; required) or ``"uses only"`` (an ingredient it uses without checking it); each may carry
        ``": remark"``. One string applies to every claim of the row; a tuple gives one per claim, in order. Empty: not
        audited (a plugin's rows, counted as before).

    Examples
    --------
    >>> from verify.api import Item
    >>> Item("Theorem 1", ("theorem1",), audit="as printed").status
    'checked'
    >>> Item("eq (7)", (), "a definition").status
    'no claim'
    >>> row = Item("eq (36)", ("lemma5", "lemma9"), audit=("derived: eq (13)'s form", "uses only"))
    >>> row.status, row.covered, row.checked_by, row.audit_of("lemma9")
    ('derived', False, (), 'uses only')
    >>> Item("eq (5)", ("a",), audit="uses only").covered
    False
    >>> Item("Lemma 1", ("a",)).status          # not audited (a plugin's row): counted as before
    'checked'
    """

    item: str                   # as printed: "Theorem 1", "eq (13)", "Fig 2", "Table B.1"
    claims: tuple[str, ...]     # claim names of this paper (without the paper prefix)
    note: str = ""
    kind: str = "no claim"      # for an unchecked item: one of UNCHECKED_KINDS
    audit: str | tuple[str, ...] = ""   # per claim: "as printed" | "derived: …" | "uses only" (see AUDITS)

    def __post_init__(self):
        if self.kind not in UNCHECKED_KINDS:
            raise ValueError(f"{self.item}: kind {self.kind!r} is not one of {UNCHECKED_KINDS}")
        if not self.audit:
            return
        if not self.claims:
            raise ValueError(f"{self.item}: an audit without claims")
        if not isinstance(self.audit, str) and len(self.audit) != len(self.claims):
            raise ValueError(f"{self.item}: {len(self.audit)} audit values for {len(self.claims)} claims")
        for a in self.audits:
            head, _, remark = a.partition(":")
            if head.strip() not in AUDITS:
                raise ValueError(f"{self.item}: audit {a!r} is not one of {AUDITS} (optionally ': remark')")
            if head.strip() == "derived" and not remark.strip():
                raise ValueError(f"{self.item}: a 'derived' audit must say which form or part is checked")

    @property
    def audited(self) -> bool:
        return bool(self.audit)

    @property
    def audits(self) -> tuple[str, ...]:
        """One audit value per claim (empty strings when the row is not audited)."""
        if isinstance(self.audit, str):
            return (self.audit,) * len(self.claims)
        return tuple(self.audit)

    def audit_of(self, claim: str) -> str:
        return dict(zip(self.claims, self.audits))[claim]

    @staticmethod
    def _head(audit: str) -> str:
        return audit.partition(":")[0].strip()

    @property
    def checked_by(self) -> tuple[str, ...]:
        """The claims that check the item as printed (all named claims for a row that is not audited)."""
        if not self.audited:
            return tuple(self.claims)
        return tuple(c for c, a in zip(self.claims, self.audits) if self._head(a) == "as printed")

    @property
    def covered(self) -> bool:
        """Checked as printed by some claim: what ``checked`` means."""
        return bool(self.checked_by)

    @property
    def status(self) -> str:
        if not self.claims:
            return self.kind
        if self.covered:
            return "checked"
        heads = {self._head(a) for a in self.audits}
        return "derived" if "derived" in heads else "uses only"

    @property
    def audit_text(self) -> str:
        """The audit as one line: the common value, or ``claim: value`` per claim."""
        if not self.audited:
            return ""
        values = self.audits
        if len(set(values)) == 1:
            return values[0]
        return "; ".join(f"{c}: {a}" for c, a in zip(self.claims, values))


def _eqs(numbers, claims=(), note="", kind="no claim", audit=""):
    return [Item(f"eq ({k})", tuple(claims), note, kind, audit) for k in numbers]


AP = "as printed"
USES = "uses only"


PROOF = "a step of a proof; its conclusion is what the listed claim checks"

# audit remarks shared by several rows
_RATE = ("derived: the width dependence only — the fitted width exponent of the stationary deviation, the implied "
         "constant D/(ε ln 1/ε) in d and the t⁻² tail constant per width, at fixed n; the probability form corrected "
         "(the printed '≥ 1 − t²' is an erratum); the n and ‖G*⁻¹‖ factors of ε and the transitory term are not varied")
_RATE_AS_T1 = ("derived: as Theorem 1 with this norm — width exponent (must vanish at least like d^(−0.35)), drift in "
               "depth and implied constant per width, at fixed n; the n and ‖G*⁻¹‖ factors of ε are not varied")
_DIGITS = "derived: trained on scikit-learn's digits, a substitute for the paper's data"

COVERAGE: dict[str, list[Item]] = {
    "bn-finite-width": [
        *_eqs([1], ["theorem1"], "the informal rate e^{−α·depth/2} + width^{−1/2} (abstract)",
              audit="derived: the stationary width^{−1/2} term through theorem1's width exponent (up to its log); "
                    "the transitory term through assumption1"),
        *_eqs([2, 3], [], "definition of the chain and of G_ℓ: implemented by numerics.simulate_bn_chain (exact vs dense "
                          "KS test in tests/test_bn_finite_width.py)"),
        *_eqs([4], ["corollary8", "theorem1"], "the mean-field recursion",
              audit="uses only: the recursion is never iterated at finite ℓ; only its fixed point (eq 5) is computed"),
        *_eqs([5], ["corollary8", "theorem1"], "its fixed point G*: b*, c* by quadrature vs Monte Carlo, and the "
                                               "stationary mean Gram of the networks",
              audit="derived: in its sphere form — E[(σ∘φ(w))^⊗2] with φ(w) = √n·Mz/‖Mz‖ (w of the form (16)), by "
                    "Gauss–Jacobi quadrature vs Monte Carlo (corollary8) and against the networks' stationary mean "
                    "Gram (theorem1); the printed Gaussian expectation over w ~ N(0, G*) is not evaluated"),
        *_eqs([6], ["eq6"], audit="as printed: the fitted growth of the log error and E‖G_ℓ − I_n‖ ≤ exp(3nℓ/2d) "
                                  "against the upper confidence bound of the mean error"),
        *_eqs([7], ["assumption1", "lemma5"], "the Markov kernel T of the chain",
              audit="uses only: T is simulated (numerics.simulate_bn_chain), not checked"),
        Item("Assumption 1", ("assumption1",), audit="derived: an observable consequence — geometric decay of the Gram "
                                                     "deviation to its stationary level; the TV contraction itself is "
                                                     "not measured"),
        *_eqs([8], ["theorem1"], audit=_RATE), Item("Theorem 1", ("theorem1",), audit=_RATE),
        *_eqs([9], ["corollary2"], audit="derived: the width exponent of the stationary eigenvalue-ratio deviation "
                                         "at fixed n; the probability form corrected as for Theorem 1"),
        Item("Corollary 2", ("corollary2",), audit="derived: as eq (9)"),
        *_eqs([10], ["theorem3"], "the distortion γ, enclosed by a duality certificate",
              audit="as printed: the sup over the √n-sphere, enclosed from below (a point) and above (a certificate)"),
        *_eqs([11], ["theorem3"], audit=_RATE_AS_T1), Item("Theorem 3", ("theorem3",), audit=_RATE_AS_T1),
        *_eqs([12], ["corollary4"], audit="as printed: the printed bound (no transitory term) is tested at ℓ = 0 and in "
                                          "the stationary regime; it fails at ℓ = 0 (erratum)"),
        Item("Corollary 4", ("corollary4",), audit="as printed: as eq (12)"),
        *_eqs([13], ["lemma5"], audit="as printed: a KS/DKW lower bound on the one-step TV against ε² ∝ 1/d across "
                                      "widths (violated)"),
        Item("Lemma 5", ("lemma5",), audit="as printed: as eq (13)"),
        *_eqs([14, 15], [], "proof sketch of Theorem 3 (TV triangle inequalities); rests on Lemma 5, which is violated "
                            "— Theorem 3's prediction is checked directly (theorem3)"),
        *_eqs([16], ["corollary8", "theorem1"],
              audit=("as printed: b*, c* by Gauss–Jacobi quadrature vs Monte Carlo on the sphere",
                     "as printed: the networks' stationary mean Gram, regressed on 1/d, meets b* (diagonal) and b*c* "
                     "(off-diagonal)")),
        *_eqs([17], ["corollary6"], audit=_RATE_AS_T1 + "; the printed '≤ t²' read as t⁻²"),
        Item("Corollary 6", ("corollary6",), audit="derived: as eq (17)"),
        *_eqs([18], ["corollary7"], audit=_RATE_AS_T1 + "; the printed '≲ t²' read as t⁻²"),
        Item("Corollary 7", ("corollary7",), audit="derived: as eq (18)"),
        Item("Corollary 8", ("corollary8",), audit="as printed: the bulk deviation of G_40 divided by sqrt(n/d) is "
                                                   "width-stable; the printed λ₁* = c*n is an erratum"),
        Item("Remark 1", (), "remark on the constants of Theorem 1 (no separate statement to check)"),
        Item("Remark 2", (), "remark on the probability form; see the erratum recorded under theorem1"),
        Item("Remark 3", (), "remark relating to the mean-field literature (no statement to check)"),
        *_eqs([19], ["eq19"], "the cited TV bound between Gaussians (erratum: min(1, sqrt(Σλ²)), not Σλ²)",
              audit="as printed: the printed ratio against exact TVs (closed form and quadrature)"),
        *_eqs([20], ["lemma9"], audit="as printed: the tail at the empirical quantiles (Clopper–Pearson), γ certified"),
        Item("Lemma 9", ("lemma9",), audit="as printed: as eq (20)"),
        *_eqs([21, 22, 23], ["lemma9"], "the second moment of the Bernstein step",
              audit="derived: their trace, E‖C^{−1/2}GC^{−1/2} − I‖_F² = (E‖y‖⁴ − n)/d, by a 99.9% z-interval"),
        *_eqs(range(24, 31), ["lemma9"], PROOF + " (Lemma 9; the first step's restatement is an erratum)",
              audit="uses only: steps of the Bernstein argument; only the conclusion (20) is checked"),
        Item("Lemma 10", (), "P{‖G*⁻¹G − I‖ ≥ t} ≤ (100/t)·tv(h′, h) cannot fail here — with the TV of one "
                             "chain step ≥ 0.75 (lemma5's lower bound, relu, n = 10), the right side exceeds 1 for every t "
                             "≤ 75, and ‖G*⁻¹G − I‖ stays far below 75; it says something only when the TV is small, "
                             "which Lemma 5 (violated) was to provide", "vacuous"),
        *_eqs([31], [], "Lemma 10's inequality (see Lemma 10)", "vacuous"),
        *_eqs(range(32, 36), [], "the proof of Lemma 10 (its (33) uses eq (19)'s lower end, see eq19)"),
        *_eqs([36], ["lemma5"], audit="derived: checked in eq (13)'s form ε² ∝ 1/d, without (36)'s constant 3 and "
                                      "its ln(d/(3n²γ²‖G*⁻¹‖)) factor (a width-independent TV violates both)"),
        Item("Lemma 11", ("lemma5",), audit="derived: as eq (36)"),
        *_eqs(range(37, 48), ["lemma5"], PROOF + " (Lemma 11; the step (40)–(41) is the erratum recorded under lemma5)",
              audit="uses only: steps of the proof of Lemma 11; its conclusion is what lemma5 tests"),
        *_eqs([48], ["lemma12"], audit="as printed: a KS/DKW lower bound on ‖μ_ℓ − μ_C‖_tv against e^{−ℓα} + ε² "
                                       "(α ≥ 0.1, conservative) across widths"),
        Item("Lemma 12", ("lemma12",), audit="as printed: as eq (48)"),
        *_eqs([49], ["assumption1"], audit="derived: the geometric decay of the Gram deviation (as Assumption 1); the TV "
                                           "is not measured"),
        Item("Fig 1", ("eq6", "figure1"), audit=("as printed: Fig 1a", "as printed: Fig 1b (exponent −1/2, below 2n/√d)")),
        Item("Fig 2", ("figure2",), audit="as printed: KS distance to Marchenko–Pastur vs exact Wishart matrices"),
        Item("Poster Theorem 1", ("theorem1",), "the poster's statement of Theorem 1", audit=_RATE),
        Item("Poster Theorem 2", ("poster-theorem2",),
             audit="derived: the batch-size exponent and the implied constant across n at fixed d (the width "
                   "dependence under theorem1); the transitory κ(G*)(1−α)^{ℓ/2} term and α^{−1/2} are not tested"),
        Item("Poster Figs 1–2", ("eq6", "figure1", "figure2"), "the same figures as the paper's", audit=AP),
    ],
    "bn-mean-field": [
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
    ],
    "isometry": [
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
    ],
    "covariance-sde": [
        *_eqs(["2.1", "2.2"], ["eq2-6", "theorem3-2"], "the network and the ReLU-like activation: "
                                                       "numerics.covariance_sde.simulate_shaped_network",
              audit="uses only: the definitions, simulated exactly in law"),
        *_eqs(["2.3", "2.4", "2.5"], ["eq2-6"], PROOF + " (eq 2.6)", audit="uses only: steps towards (2.6)"),
        *_eqs(["2.6"], ["eq2-6"], audit="as printed: c = 2, σ² = 5 in sympy (σ² also by Monte Carlo); log V at t = 1 "
                                        "of networks against N(−σ²/2, σ²)"),
        *_eqs(["2.7", "2.8", "2.9"], ["eq2-10"], PROOF + " (eq 2.10)", audit="uses only: steps towards (2.10)"),
        *_eqs(["2.10"], ["eq2-10"], audit="as printed: cK₁ derived vs printed in sympy; the chain (μ_ReLU, σ_ReLU "
                                          "derived here: the appendix is missing) against one-layer simulations and "
                                          "the n = d = 150 ensemble"),
        Item("Definition 3.1", ("theorem3-2",), "ReLU-like shaping s± = 1 + c±/√n",
             audit="uses only: the shaping, simulated"),
        *_eqs(["3.1", "3.2"], ["theorem3-2"], audit="as printed: ν and Σ derived (sympy series, Isserlis) equal the "
                                                    "printed ones; networks vs the SDE (KS)"),
        Item("Theorem 3.2", ("theorem3-2",), audit="as printed: as eqs (3.1)–(3.2), m = 2"),
        *_eqs(["3.3"], ["theorem3-2", "proposition3-4"], "the output law given V_T",
              audit="uses only: no claim samples z_out given V_T"),
        *_eqs(["3.4", "3.5"], ["theorem3-3"], audit="as printed: Itô's formula in sympy equals the printed drift and "
                                                    "diffusion; networks vs the SDE (KS)"),
        Item("Theorem 3.3", ("theorem3-3",), audit="as printed: as eqs (3.4)–(3.5)"),
        *_eqs(["3.6"], ["proposition3-4"], "the linear-network SDE",
              audit="derived: the p > 1/2 limit through the shaped–linear gap vanishing like n^{1−2p}; (3.6) itself "
                    "is not simulated against networks"),
        Item("Proposition 3.4", ("proposition3-4",),
             audit="derived: the three regimes through the width exponent of the paired shaped–linear gap (0 at "
                   "p = 1/2, −1/2 at p = 3/4) and ρ_T → 1 at p = 1/4; the limits are not compared with the SDEs"),
        Item("Assumption 3.5", ("example4-1", "constants"), "φ(0) = 0, φ′(0) = 1, C⁴: explosion_criterion recentres "
                                                            "and rejects kinks",
             audit="uses only: a hypothesis, enforced by explosion_criterion"),
        Item("Definition 3.6", ("theorem3-9",), "smooth shaping s = a√n", audit="uses only: the shaping, simulated"),
        *_eqs(["3.7"], ["proposition3-7"], audit="as printed: Feller's test in sympy and simulated explosion fractions"),
        Item("Proposition 3.7", ("proposition3-7",), audit="as printed: as eq (3.7)"),
        *_eqs(["3.8"], ["figure2"], "stopping times: Fig 2 compares the stopped processes",
              audit="uses only: the stopped processes are compared"),
        Item("Definition 3.8", ("figure2",), audit="uses only: as eq (3.8)"),
        *_eqs(["3.9", "3.10"], ["theorem3-9"], audit="as printed: (3.10) derived in sympy equals the printed drift; "
                                                     "shaped tanh networks vs the SDE (KS)"),
        *_eqs(["3.11"], ["theorem3-9"], "the output law given V_T", audit="uses only: no claim samples z_out"),
        Item("Theorem 3.9", ("theorem3-9",), audit="as printed: as eqs (3.9)–(3.10)"),
        *_eqs(["3.12"], ["proposition3-10"], audit="as printed: regime (i) — degenerate diagonals (softplus) and a "
                                                   "constant correlation (tanh)"),
        Item("Proposition 3.10", ("proposition3-10",),
             audit="as printed: (i) and (iii) against the printed limits; (ii) as the width-independence of ρ_T (the "
                   "SDE itself is theorem3-9's)"),
        *_eqs(["4.1"], ["eq4-1"], audit="as printed: the diagonal of the derived (3.10) equals (4.1); networks vs "
                                        "(4.1) (KS)"),
        Item("Example 4.1", ("example4-1",), audit="as printed: sympy derivatives and the criterion"),
        Item("Example 4.2", ("example4-2",), audit="as printed: the printed criterion and threshold log(5/4) are "
                                                   "tested and rejected (erratum: log(7/4))"),
        Item("Fig 1", ("figure1", "eq2-10"), audit=("as printed: networks vs SDE vs ODE (KS, medians)",
                                                    "as printed: the left column, eq (2.10)")),
        Item("Fig 2", ("figure2",), audit="as printed: stable and unstable shifts, networks vs stopped (4.1)"),
        Item("Theorem 3.2 for m ≥ 3 inputs", ("m-point",), "beyond the printed text (the m-point appendix is "
                                                            "missing): m = 3",
             audit="derived: the general-m statement at m = 3 only"),
        Item("Appendix F (KS distance vs width)", ("width-convergence",),
             "beyond the printed text (Section 3 cites it, the appendix is missing): the network–SDE KS distance as the "
             "width grows, and the mean extrapolated to n = ∞",
             audit="derived: the package's reading of the missing appendix"),
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
    """The rows no claim checks as printed: unchecked items, and audited rows whose claims check a derived form or only
    use the item (``status`` ``"derived"`` or ``"uses only"``; their note then ends with the audit, for ``verify
    list``)."""
    out = []
    for it in items(paper):
        if it.covered:
            continue
        if it.claims:
            why = f"[{', '.join(it.claims)}: {it.audit_text}]"
            it = replace(it, note=f"{it.note} {why}".strip())
        out.append(it)
    return out
