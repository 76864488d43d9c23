"""Coverage of the covariance-SDE paper (Li et al. 2022): every numbered item, the claims that check it and what each does with it
(``verify.api.Item``: "as printed", "derived: …", "uses only"), or why no claim does."""
from __future__ import annotations

from ...api import Item

AP = "as printed"
USES = "uses only"
PROOF = "a step of a proof; its conclusion is what the listed claim checks"


def _eqs(numbers, claims=(), note="", kind="no claim", audit=""):
    return [Item(f"eq ({k})", tuple(claims), note, kind, audit) for k in numbers]


ITEMS: list[Item] = [
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
]
