"""Coverage of the BN finite-width paper (Daneshmand et al. 2021): every numbered item, the claims that check it and what each does with it
(``verify.api.Item``: "as printed", "derived: …", "uses only"), or why no claim does."""
from __future__ import annotations

from ...api import Item

AP = "as printed"
USES = "uses only"
PROOF = "a step of a proof; its conclusion is what the listed claim checks"
_RATE = ("derived: the width dependence only — the fitted width exponent of the stationary deviation, the implied "
         "constant D/(ε ln 1/ε) in d and the t⁻² tail constant per width, at fixed n; the probability form corrected "
         "(the printed '≥ 1 − t²' is an erratum); the n and ‖G*⁻¹‖ factors of ε and the transitory term are not varied")
_RATE_AS_T1 = ("derived: as Theorem 1 with this norm — width exponent (must vanish at least like d^(−0.35)), drift in "
               "depth and implied constant per width, at fixed n; the n and ‖G*⁻¹‖ factors of ε are not varied")


def _eqs(numbers, claims=(), note="", kind="no claim", audit=""):
    return [Item(f"eq ({k})", tuple(claims), note, kind, audit) for k in numbers]


ITEMS: list[Item] = [
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
]
