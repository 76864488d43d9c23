"""The maps on every pair of a dataset: the network's kernel K^L and the gradients' inner products Θ^L of digits
images (§ Forward maps with two lengths, § Dropout, § Backpropagation for two inputs).

The theory side is :func:`theory.network_kernels` (the whole Gram matrix at once: the logistic scale mixture for
tanh and sigmoid, closed forms for GELU, erf and sin, every layer in one array operation); the independent routes are the trapezoid-rule maps applied pair by pair
(:func:`deepinfo_claims._routes.dataset_kernels`) and finite-width networks whose gradients are taken by autograd
(:func:`numerics.empirical_kernels`)."""
from __future__ import annotations

import numpy as np

from numerics import datasets, empirical_kernels
from theory import network_kernels
from verify import api

from . import PAPER, _routes as R, gradient_kernel, kernel

ACT, SB2 = "tanh", 0.05
INPUTS = 12                                  # the first digits images of the training split (standardised pixels)
DEPTH = 8                                    # the exact comparison's depth
SETTINGS = ((1.2, 1.0, "ordered"), (3.0, 1.0, "chaotic"), (1.76, 0.9, "near the boundary, dropout ρ = 0.9"))
ROUTE_ERROR = 1e-14   # the pair-by-pair route's own error, relative to max |K|: the rule's 1e-15 per layer × depth 8
NET_DEPTH, BIAS = 3, 5.0   # networks: depth 3, O(1/N) allowance 5/N as in the finite-width claims
READOUT = 1024             # readout units averaged for a network's NNGP estimate


def _inputs() -> np.ndarray:
    return np.asarray(datasets.load_dataset("digits").x_train[:INPUTS], dtype=float)


#: the engine's other routes on the same images (σ_w² = 1.5): each activation's expected route, checked by name
OTHER_ROUTES = (("gelu", "closed form (GELU"), ("sigmoid", "logistic scale mixture"), ("erf", "closed form (arcsine"),
                ("sin", "closed form (1·sin"))
OTHER_SW2 = 1.5


def _exact_rows() -> list[api.Evidence]:
    """The engine's K^L and Θ^L (every entry) against the trapezoid-rule maps pair by pair: the difference within the
    engine's stated error plus the route's 1e-14 of max |K| (entrywise; the worst entry is reported) — for tanh at
    the three settings, and for every other route of the engine (GELU's orthant moments, the shifted and scaled
    mixture of sigmoid, erf's arcsine kernel, sin's characteristic function) at σ_w² = 1.5."""
    X, rows = _inputs(), []
    cases = [(ACT, sw2, keep, phase, "logistic scale mixture", "tanh's documented route") for sw2, keep, phase in SETTINGS]
    cases += [(act, OTHER_SW2, 1.0, act, route, f"{act}'s documented route") for act, route in OTHER_ROUTES]
    for act, sw2, keep, label, route_name, documented in cases:
        eng = api.memo(("kernels", act, sw2, keep, DEPTH), lambda: network_kernels(act, X, DEPTH, sw2, SB2, keep))
        ref = api.memo(("pairwise", act, sw2, keep, DEPTH), lambda: R.dataset_kernels(X, DEPTH, sw2, SB2, keep, act))
        where = f"σ_w² = {sw2} ({label})"
        rows.append(api.Evidence(
            f"{where}: the route that ran is {route_name}…, {documented}", theory=route_name, numeric=eng.route,
            passed=eng.route.startswith(route_name),
            note="a route that fails its check against the bivariate quadrature falls back to quadrature pair by "
                 "pair: the same values, hundreds of times slower"))
        for est, handle, route, what in ((eng.nngp, kernel, ref[0], "K^L (the maps)"),
                                         (eng.ntk, gradient_kernel, ref[1], "Θ^L (gradient inner products)")):
            value = handle.scaled(est.value)
            allow = est.error + ROUTE_ERROR * np.max(np.abs(route))
            ratio = np.abs(value - route) / allow
            a, b = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
            rows.append(api.Evidence(
                f"{where}, depth {DEPTH}: {what}, engine vs the trapezoid-rule maps pair by pair, "
                f"all {INPUTS * (INPUTS + 1) // 2} pairs", theory=float(value[a, b]), numeric=float(route[a, b]),
                bound=float(allow[a, b]), observed=float(abs(value[a, b] - route[a, b])),
                passed=bool(ratio[a, b] <= 1.0),
                note=f"the worst entry ({a}, {b}): |engine − route|/(stated error + {ROUTE_ERROR:g}·max|K|) = "
                     f"{ratio[a, b]:.2g}; engine: {est.method}"))
    return rows


def _pooled(values: np.ndarray, theory: np.ndarray) -> float:
    """Σ_ab sign(T_ab)(V_ab − T_ab) / Σ_ab |T_ab|: the relative deviation pooled over the entries (a scaling of the
    theory by 1 + δ moves it by −δ exactly)."""
    return float(np.sum(np.sign(theory) * (values - theory)) / np.sum(np.abs(theory)))


def _network_rows(ctx: api.Context) -> list[api.Evidence]:
    """Networks of width N and depth 3 on the same images: per batch of 8 networks, the pooled relative deviation of
    the empirical NNGP and NTK from the engine's; the mean over batches within 4 standard errors + 5/N."""
    N, batches = ctx.pick(256, 512, 1024), ctx.pick(8, 16, 32)
    X, rows = _inputs(), []
    for sw2, keep, phase in SETTINGS[:2]:
        eng = api.memo(("kernels", ACT, sw2, keep, NET_DEPTH),
                       lambda: network_kernels(ACT, X, NET_DEPTH, sw2, SB2, keep))
        nets = api.memo(("networks", sw2, N, batches, ctx.seed), lambda: [
            empirical_kernels(ACT, X, width=N, depth=NET_DEPTH, sigma_w2=sw2, sigma_b2=SB2, seeds=8, outputs=READOUT,
                              seed=ctx.seed * 1_000_003 + 7919 * k + int(10 * sw2)) for k in range(batches)])
        for est, handle, field, what in ((eng.nngp, kernel, "nngp", f"K^L (mean over {READOUT} readout units)"),
                                         (eng.ntk, gradient_kernel, "ntk", "Θ^L (autograd, first readout unit)")):
            theory = handle.scaled(est.value)
            dev = np.array([_pooled(getattr(e, field), theory) for e in nets])
            d, se = R.mean_and_se(dev)
            bound = 4 * se + BIAS / N
            rows.append(api.Evidence(
                f"σ_w² = {sw2} ({phase}), depth {NET_DEPTH}, N = {N}: {what} of {8 * batches} networks vs the engine, "
                "relative deviation pooled over the entries", theory=0.0, numeric=d, bound=bound, observed=abs(d),
                samples=8 * batches, passed=abs(d) <= bound,
                note=f"{batches} batches of 8 networks; standard error over batches {se:.2g}; 4 SE + {BIAS:g}/N"))
    return rows


@PAPER.claim(
    "dataset-kernels", title="The maps on every pair of a dataset: the kernel and the gradients' inner products",
    statement="For N → ∞ the pre-activations of any set of inputs x_a are Gaussian with covariance K^l given pair by "
              "pair by the length and correlation maps with unequal lengths (§ Forward maps; the diagonal's "
              "expectation divided by ρ under dropout, § Dropout), and the gradients' inner products "
              "Θ^l = ⟨∂f(x_a)/∂θ, ∂f(x_b)/∂θ⟩ backpropagate with the factor σ_w² E φ′(u_a)φ′(u_b), χ₁ on the "
              "diagonal at q* (§ Backpropagation): Θ^l = K^l + σ_w² E[φ′φ′] Θ^{l−1}.",
    depends_on=(kernel, gradient_kernel),
    hypotheses="tanh (the maps also for GELU, sigmoid, erf and sin); i.i.d. Gaussian weights and biases; N large",
    how=f"The first {INPUTS} digits images (standardised pixels, 64 features): the engine's K^{DEPTH} and Θ^{DEPTH} "
        "(theory.network_kernels, σ_b² = 0.05, σ_w² = 1.2 and 3.0, and 1.76 with dropout ρ = 0.9) against the "
        "trapezoid-rule maps applied pair by pair, every entry within the engine's stated error + 1e-14 of max |K|, "
        "and so for GELU, sigmoid, erf and sin at σ_w² = 1.5 (the engine's other routes: orthant moments, the "
        "shifted and scaled mixture, the arcsine kernel, the characteristic function; each route checked by name); "
        f"networks of depth {NET_DEPTH} and width N = 256 (quick), 512, 1024 (numerics.empirical_kernels: the NNGP "
        "from 1024 readout units, the NTK by autograd over every weight and bias) against the engine, the relative "
        "deviation pooled over the entries within 4 standard errors (over batches of 8 networks) + 5/N.",
    control_description="K^L and Θ^L scaled by 1 ± 5% must leave the engine-vs-route tolerance and the networks' "
                        "interval")
def dataset_kernels(ctx: api.Context) -> api.Verdict:
    """K^L and Θ^L of digits images: engine vs pair-by-pair maps, and vs finite-width networks."""
    ctx.progress("the maps pair by pair", 0.0)
    rows = _exact_rows()
    ctx.progress("networks", 0.5)
    rows += _network_rows(ctx)
    X = _inputs()
    eng = api.memo(("kernels", ACT, SETTINGS[0][0], 1.0, DEPTH),
                   lambda: network_kernels(ACT, X, DEPTH, SETTINGS[0][0], SB2, 1.0))
    diag = np.diag(eng.nngp.value)
    table = [[a, float(np.sum(X[a] ** 2) / X.shape[1]), float(diag[a]), float(eng.nngp.value[0, a]),
              float(eng.ntk.value[a, a])] for a in range(INPUTS)]
    return api.judged(
        ctx.claim_id, rows,
        "the engine's kernels of the digits images equal the pair-by-pair maps to their stated error, and networks "
        "follow them",
        "the dataset's kernels leave the maps or the networks",
        tables=[(f"{INPUTS} digits images through tanh networks of depth L = {DEPTH} (σ_w² = 1.2, σ_b² = 0.05): "
                 "each image's squared length per feature, its variance K^L_aa, its covariance K^L_0a with image 0 and Θ^L_aa",
                 ["a", "|x_a|²/d", "K^L_aa", "K^L_0a", "Θ^L_aa"], table)])
