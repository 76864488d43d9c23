"""The poster's Theorem 2 — ‖G* − G_ℓ‖_F = O(κ(G*)(1−α)^{ℓ/2} + (n/√d) α^{−1/2} ln^{1/2}(d/n))."""
from __future__ import annotations

import math

import numpy as np

from ...api import Context, Evidence, HOLDS, status_from_rows, Verdict
from ._common import _control, _slope_ci, bsb1_gstar, CONF, PAPER
from ._common import _chain, stationary_mean_rows

# =============================================================================================
# Poster, Theorem 2 — ‖G* − G_ℓ‖_F = O(κ(G*)(1−α)^{ℓ/2} + (n/√d) α^{−1/2} ln^{1/2}(d/n))
# =============================================================================================

def _poster_rows(ctx: Context, n_exponent: float = 1.0, window=None) -> list[Evidence]:
    """G* (which the rate is measured against) by the stationary mean Gram at each n, and the batch-size dependence of
    the stationary error at fixed width — reported, not judged, unless a ``window`` for the exponent is given (the
    structural control uses one to show that the fit resolves the exponent)."""
    act, d = "relu", ctx.pick(2000, 4000, 8000)
    ns = ctx.pick([5, 10, 20], [5, 10, 20, 40], [5, 10, 20, 40, 80])
    x, y, consts, mean_rows = [], [], {}, []
    for n in ns:
        fp = bsb1_gstar(act, n)
        burn = int(math.ceil(3 * math.log(d / n))) + 10
        seeds = ctx.pick(6, 10, 20)
        G = _chain(ctx, act, d, n, burn + 10, seeds, ctx.seed + n, range(burn, burn + 11))
        burn4 = int(math.ceil(3 * math.log(d / 4 / n))) + 10
        G4 = _chain(ctx, act, d // 4, n, burn4 + 10, seeds, ctx.seed + 7 * n + 1, range(burn4, burn4 + 11))
        mean_rows += stationary_mean_rows({d // 4: G4, d: G}, fp, label=f"n = {n}, d ∈ {{{d // 4}, {d}}}: ")
        e = np.linalg.norm(G - fp.gram, axis=(-2, -1)).mean(axis=1)
        x += [math.log(n)] * seeds
        y += list(np.log(e))
        consts[n] = float(e.mean() / (n / math.sqrt(d) * math.sqrt(math.log(d / n))))
    s, ci = _slope_ci(x, y)
    local = float(np.mean([1 - 1 / (2 * math.log(d / n)) for n in ns]))
    judged = window is not None
    return mean_rows + [Evidence(f"batch-size exponent of the stationary ‖G_ℓ − G*‖_F at d = {d}", theory=n_exponent,
                                 numeric=s, ci=ci, confidence=CONF, samples=len(x),
                                 passed=(ci[0] <= window[1] and ci[1] >= window[0]) if judged else None,
                                 note=(f"holds if the CI meets [{window[0]}, {window[1]}]" if judged else
                                       "informational: the bound's n-dependence includes α^(−1/2), and the mixing rate α "
                                       "may depend on n (not measured here), so the statement fixes no exponent in n to "
                                       "judge")
                                      + f"; with α fixed, the rate (n/√d)·ln^(1/2)(d/n) has local exponent {local:.2f}"
                                      + "; implied constant error/rate: "
                                      + ", ".join(f"n={k}: {v:.3g}" for k, v in consts.items())),
                        Evidence("implied constant error/((n/√d) ln^(1/2)(d/n)) across n (max/min)",
                                 numeric=max(consts.values()) / min(consts.values()), passed=None,
                                 note="informational (α(n) unknown, see above); it grows with n for relu (≈ n^0.3 at "
                                      "d = 2000–8000, n = 5–80; 0.20 → 0.53): the error is ≈ n/√d while the "
                                      "ln^(1/2)(d/n) factor shrinks")]


def control_poster_theorem2(ctx: Context) -> Verdict:
    return _control(ctx, [r for r in _poster_rows(ctx, n_exponent=0.5, window=(0.35, 0.65))
                                        if r.name.startswith("batch-size exponent")],
                    "batch-size exponent 1/2 instead of 1")


@PAPER.claim(
    "poster-theorem2",
    title="Poster Theorem 2: ‖G* − G_ℓ‖_F = O(κ(G*)(1−α)^{ℓ/2} + (n/√d)α^{−1/2} ln^{1/2}(d/n))",
    statement="Under geometric ergodicity, non-degenerate G*, |σ(x)| = O(|x|): the explicit rate above holds w.h.p.",
    hypotheses="as Theorem 1",
    how="The batch-size dependence at fixed width (fitted exponent of the stationary Frobenius error, 95% t-interval) and "
        "the implied constant error/((n/√d) ln^{1/2}(d/n)) across n; the width dependence is checked under theorem1.",
    negative_control=control_poster_theorem2,
    control_description="the batch-size exponent 1/2 must be rejected",
    uses=("theory.bsb1_constants", "numerics.simulate_bn_chain"),
    depends_on=("b*", "c*"))
def check_poster_theorem2(ctx: Context) -> Verdict:
    rows = _poster_rows(ctx)
    st = status_from_rows(rows)
    return Verdict(ctx.claim_id, st, "G_ℓ converges in mean to G* at every batch size (99.9% intervals); the "
                   "stationary Frobenius error's batch-size exponent and implied constant are reported, not judged "
                   "(the rate's n-dependence involves the unmeasured α(n))" if st == HOLDS
                   else "the stationary Gram does not converge to G* at some batch size",
                   rows)


