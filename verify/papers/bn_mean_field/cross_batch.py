"""Two batches through one BN network (bn-mean-field, beyond the printed text): the cross-batch block of the forward
and backward maps.

Yang et al. (ICLR 2019) set up the mean-field map of one batch (eqs 10, 21); the text copy stops inside Appendix A.2
and prints no statement about two batches. The authors' code computes two-batch kernels, and this package derives
their fixed point (theory.bn_meanfield.TwoBatchFixedPoint): for two batches of B normalised each with its own
statistics, the forward map keeps the class of Σ with BSB1 diagonal blocks and a constant cross block c·11ᵀ, the
cross block of the image is μ(s₁)μ(s₂)·11ᵀ with μ(s) = E φ(BN h)ᵢ (GΣG = sG, G = I − 11ᵀ/B), the fixed point is
Σ*₂ = [[Σ*, μ*²11ᵀ], [μ*²11ᵀ, Σ*]], and the backward map's cross block there is α*²·GΔ₁₂G with E J = α*G. The claim
states that derivation, so a failure is an error of this package, never an erratum of the paper.

Routes: closed forms (ReLU at ε = 0, B = 4: μ* = √3/4, α* = (2/3)√(2/π)/√s*; an odd φ: μ* = 0); the two-batch Monte
Carlo maps of numerics.bn_kernels (``batches=(B, B)``: each batch normalised with its own statistics, autograd
Jacobians for the backward map); finite-width networks with two batches (numerics.bn_meanfield.simulate_bn_gradients,
exact in law). Criteria, fixed before any run: entrywise z-tests at 99.9% with Bonferroni over the entries compared;
the networks' deep cross block within 4 SE + 2q*/N of μ*² (an O(1/N) finite-width allowance).

Quantities: μ (``bn-mean-field:mu*``, μ(s) and its fixed-point value μ*) and α (``bn-mean-field:alpha*``, α(s), α*)
are consumed where the statement uses them, so the controls scale them by (1 ± 5%); the structural control takes one
factor of μ (of α) where the statement has two: the cross block μ* instead of μ*², α*·GΔ₁₂G instead of α*²·GΔ₁₂G.

theory/ functions used (theory.bn_meanfield): two_batch_fixed_point, bn_output_mean, bn_mean_jacobian,
theorem5_relu_fixed_point. numerics/ functions used: numerics.bn_kernels.bn_forward_map_mc,
numerics.bn_kernels.bn_backward_map_mc, numerics.bn_meanfield.simulate_bn_gradients.
"""
from __future__ import annotations

import math

import numpy as np

from theory import bn_meanfield as tbm

from ...api import Context, Evidence, memo, Verdict
from ._common import _control, _max_z, nbk, nbm, PAPER, stats

MU = PAPER.quantity("mu*", "μ*", "E φ(BN h)ᵢ for h ~ N(0, Σ) with GΣG = sG: the mean output of one batch, μ* "
                          "at the BSB1 fixed point (the cross block of two batches is μ(s₁)μ(s₂); beyond the printed "
                          "text)", "theory.bn_meanfield.bn_output_mean")
ALPHA = PAPER.quantity("alpha*", "α*", "E J = α·G for J = ∂φ(BN h)/∂h, GΣG = sG; α* at the BSB1 fixed point "
                             "(the backward cross block of two batches is α(s₁)α(s₂)·GΔ₁₂G; beyond the printed text)",
                             "theory.bn_meanfield.bn_mean_jacobian")

B = 4
LEVEL = 0.001                                           # two-sided, over all entries compared (Bonferroni)
# a Σ with two different BSB1 diagonal blocks (q₁, c₁), (q₂, c₂) and a constant cross block c: s₁ = 0.7, s₂ = 0.45
GENERIC = dict(q1=1.0, c1=0.3, q2=0.5, c2=0.1, c=0.2)
SMOOTH_CASE = ("gelu", dict(eps=0.05, gamma=1.2, beta=0.1))     # the forward rows' smooth φ, every BN term active
BACKWARD_CASES = (("relu", dict(eps=0.1)), ("tanh", dict(eps=0.05, gamma=1.2, beta=0.1)),
                  ("gelu", dict(eps=0.05, gamma=1.2, beta=0.1)))   # gelu: φ′ changes sign
NETWORK_CASE = ("relu", dict(eps=0.1))


def _bn_label(kw: dict) -> str:
    parts = [f"ε = {kw.get('eps', 0.0):g}"]
    if "gamma" in kw or "beta" in kw:
        parts.append(f"γ = {kw.get('gamma', 1.0):g}, β = {kw.get('beta', 0.0):g}")
    return ", ".join(parts)


def _zcrit(entries: int) -> float:
    return float(stats.norm.ppf(1 - LEVEL / (2 * entries)))


def _generic_sigma() -> tuple[np.ndarray, float, float]:
    g = GENERIC
    blk = lambda q, c: q * ((1 - c) * np.eye(B) + c * np.ones((B, B)))    # noqa: E731
    X = np.full((B, B), g["c"])
    return np.block([[blk(g["q1"], g["c1"]), X], [X, blk(g["q2"], g["c2"])]]), \
        g["q1"] * (1 - g["c1"]), g["q2"] * (1 - g["c2"])


def _generic_delta() -> np.ndarray:
    """A fixed generic symmetric Δ (2B×2B): its diagonal blocks must not reach the cross block of V_back."""
    A = np.random.default_rng(7).standard_normal((2 * B, 2 * B))
    return (A + A.T) / 2


def _settings(ctx: Context) -> dict:
    return ctx.pick(dict(fwd=50_000, back=20_000, N=1000, S=6, depth=30, window=15, smooth_fixed_point=False),
                    dict(fwd=200_000, back=80_000, N=2000, S=16, depth=40, window=20, smooth_fixed_point=True),
                    dict(fwd=800_000, back=320_000, N=4000, S=32, depth=48, window=24, smooth_fixed_point=True))


def _golden_rows(power: int) -> list[Evidence]:
    """Closed forms (independent of the sphere-marginal quadrature). ReLU, ε = 0, B = 4: √B u₁ (u uniform on the
    unit sphere of 1^⊥) is uniform on [−√3, √3], so μ* = E relu = √3/4 and μ*² = 3/16; E[1(X > 0)(3/4 − X²/4)] = 1/4
    and E 1/r = √(2/π) for r ~ χ₃ give α* = (2/3)√(2/π)/√s* with s* = q*(1 − c*) from Theorem 5 (eq 16). An odd φ
    has μ* = 0: its two batches are uncorrelated at Σ*₂."""
    tb = tbm.two_batch_fixed_point("relu", 4)
    mu = MU.scaled(tb.mean)
    cross = mu ** power
    exact_mu, exact_cross = math.sqrt(3) / 4, 3 / 16
    err = max(abs(mu / exact_mu - 1), abs(cross / exact_cross - 1))
    rows = [Evidence("relu, B = 4, ε = 0: the cross block of Σ*₂ is μ*²·11ᵀ = 3/16 (closed form: μ* = E relu(√B u₁) "
                     "= √3/4, √B u₁ uniform on [−√3, √3])", theory=exact_cross, numeric=cross, observed=err,
                     bound=1e-12, passed=err <= 1e-12,
                     note=f"μ* = {mu:.15g} (sphere-marginal quadrature), √3/4 = {exact_mu:.15g}; observed: the larger "
                          "relative error of μ* and of the cross block")]
    q5, c5 = tbm.theorem5_relu_fixed_point(4)
    s5 = float(q5) * (1 - c5)
    alpha = ALPHA.scaled(tb.jacobian_mean)
    exact_alpha = (2 / 3) * math.sqrt(2 / math.pi) / math.sqrt(s5)
    err = abs(alpha / exact_alpha - 1)
    rows.append(Evidence("relu, B = 4, ε = 0: E J = α*G with α* = (2/3)√(2/π)/√s*, s* = q*(1 − c*) of Theorem 5",
                         theory=exact_alpha, numeric=alpha, observed=err, bound=1e-12, passed=err <= 1e-12,
                         note=f"s* = {s5:.15g} (eq 16: q* = {q5}, c* = J(−1/3)); numeric: the radial × sphere-marginal "
                              "quadrature"))
    odd = tbm.two_batch_fixed_point("tanh", 8, eps=0.1)
    mu_odd = MU.scaled(odd.mean)
    rows.append(Evidence("tanh, B = 8, ε = 0.1: μ* = 0 for an odd φ (the two batches are uncorrelated at Σ*₂)",
                         theory=0.0, numeric=mu_odd, observed=abs(mu_odd), bound=1e-12,
                         passed=abs(mu_odd) <= 1e-12, note=f"q* = {odd.diagonal.q:.6f}: the scale of the blocks"))
    return rows


def _forward_rows(ctx: Context, st: dict, power: int) -> list[Evidence]:
    rows = []
    n = st["fwd"]
    fixed = [("relu", {})] + ([SMOOTH_CASE] if st["smooth_fixed_point"] else [])
    for act, kw in fixed:
        # Σ*₂ is a fixed point of the two-batch map: V(Σ*₂) = Σ*₂ over every entry (diagonal blocks: Σ*, Theorem 4's)
        tb = tbm.two_batch_fixed_point(act, B, **kw)
        mean, se = memo(("cross-batch fixed point", act, tuple(kw.items()), n, ctx.seed), lambda: nbk.bn_forward_map_mc(
            act, tb.sigma, n, seed=ctx.seed + 31, batches=(B, B), **kw))
        mu = MU.scaled(tb.mean)
        cross = mu ** power
        target = tb.sigma.copy()
        target[:B, B:] = target[B:, :B] = cross
        z = _max_z(mean, target, np.maximum(se, 1e-12 * tb.diagonal.q))
        zc = _zcrit(B * (2 * B + 1))
        rows.append(Evidence(f"{act}, two batches of B = {B}, {_bn_label(kw)}: Σ*₂ (diagonal blocks Σ*, cross blocks "
                             "μ*²11ᵀ) is a fixed point of the two-batch map, V(Σ*₂) = Σ*₂, by Monte Carlo (each batch normalised with its "
                             "own statistics)", theory=cross, numeric=float(mean[:B, B:].mean()), samples=n,
                             observed=z, bound=zc, statistic="max |z|", confidence=1 - LEVEL, passed=z <= zc,
                             note=f"over the {B * (2 * B + 1)} entries of the symmetric {2 * B}×{2 * B} matrix "
                                  f"(Bonferroni); μ* = {mu:.6f}; theory, numeric: the cross entry and the mean cross "
                                  "entry"))
    Sigma, s1, s2 = _generic_sigma()
    for act, kw in (("relu", dict(eps=0.1)), SMOOTH_CASE):
        # one step at a generic Σ of the invariant class (s₁ ≠ s₂: with ε > 0 the two means differ)
        mu1 = MU.scaled(tbm.bn_output_mean(act, B, s=s1, **kw))
        mu2 = MU.scaled(tbm.bn_output_mean(act, B, s=s2, **kw))
        pred = (mu1 * mu2) ** (power / 2)
        mean, se = memo(("cross-batch one step", act, tuple(kw.items()), n, ctx.seed), lambda: nbk.bn_forward_map_mc(
            act, Sigma, n, seed=ctx.seed + 37, batches=(B, B), **kw))
        cross, cross_se = mean[:B, B:], se[:B, B:]
        z = float(np.max(np.abs(cross - pred) / cross_se))
        zc = _zcrit(B * B)
        rows.append(Evidence(f"{act}, two batches of B = {B}, {_bn_label(kw)}: one step of the two-batch map at Σ with BSB1 "
                             f"blocks (s₁ = {s1:g}, s₂ = {s2:g}) and a constant cross block {GENERIC['c']:g}: the "
                             "image's cross block is μ(s₁)μ(s₂)·11ᵀ", theory=pred, numeric=float(cross.mean()),
                             samples=n, observed=z, bound=zc, statistic="max |z|", confidence=1 - LEVEL,
                             passed=z <= zc, note=f"over the {B * B} cross entries (Bonferroni); μ(s₁) = {mu1:.6f}, "
                                                  f"μ(s₂) = {mu2:.6f}; numeric: the mean cross entry"))
    return rows


def _backward_rows(ctx: Context, st: dict, power: int) -> list[Evidence]:
    rows = []
    n = st["back"]
    D = _generic_delta()
    G = np.eye(B) - 1.0 / B
    P = G @ D[:B, B:] @ G
    for act, kw in BACKWARD_CASES:
        tb = tbm.two_batch_fixed_point(act, B, **kw)
        mean, se = memo(("cross-batch backward", act, tuple(kw.items()), n, ctx.seed), lambda: nbk.bn_backward_map_mc(
            act, tb.sigma, D, n, seed=ctx.seed + 41, batches=(B, B), **kw))
        alpha = ALPHA.scaled(tb.jacobian_mean)
        factor = alpha ** power
        pred = tb.backward_cross(D[:B, B:]) * (factor / tb.jacobian_mean ** 2)
        V, V_se = mean[:B, B:], se[:B, B:]
        z = float(np.max(np.abs(V - pred) / V_se))
        zc = _zcrit(B * B)
        t = float(np.sum(V * P) / np.sum(P * P))   # the least-squares factor of GΔ₁₂G in the measured block
        rows.append(Evidence(f"{act}, two batches of B = {B}, {_bn_label(kw)}: the backward map's cross block at Σ*₂ is "
                             "α*²·GΔ₁₂G (E[J₁ᵀΔ₁₂J₂] = E J₁ᵀ Δ₁₂ E J₂, E J = α*G), generic Δ, by Monte Carlo with "
                             "autograd Jacobians", theory=factor, numeric=t, samples=n, observed=z, bound=zc,
                             statistic="max |z|", confidence=1 - LEVEL, passed=z <= zc,
                             note=f"over the {B * B} cross entries (Bonferroni); α* = {alpha:.6f}; theory: α*², "
                                  "numeric: the least-squares factor ⟨V₁₂, GΔ₁₂G⟩/⟨GΔ₁₂G, GΔ₁₂G⟩"))
    return rows


def _network_rows(ctx: Context, st: dict, power: int) -> list[Evidence]:
    act, kw = NETWORK_CASE
    N, S, depth, w = st["N"], st["S"], st["depth"], st["window"]
    run = memo(("cross-batch networks", act, tuple(kw.items()), N, S, depth, ctx.seed, ctx.device),
                 lambda: nbm.simulate_bn_gradients(act, N, 2 * B, depth, seeds=S, method="exact",
                                                   seed=ctx.seed * 1000 + 5, device=ctx.device, batches=(B, B), **kw))
    tb = tbm.two_batch_fixed_point(act, B, **kw)
    cross = MU.scaled(tb.mean) ** power
    per_seed = np.asarray(run.cov)[:, w:, :B, B:].mean(axis=(1, 2, 3))
    m, se = float(per_seed.mean()), float(per_seed.std(ddof=1) / math.sqrt(len(per_seed)))
    allow = 4 * se + 2 * tb.diagonal.q / N
    dev = abs(m - cross)
    return [Evidence(f"{act}, two batches of B = {B}, {_bn_label(kw)}: the deep cross-batch block of N = {N} networks (two "
                     f"batches through one network, layers ≥ {w} of {depth}) is μ*²", theory=cross, numeric=m,
                     ci=(m - 4 * se, m + 4 * se), samples=S, observed=dev, bound=allow, passed=dev <= allow,
                     note=f"bound: 4 SE (over {S} seeds) + 2q*/N (finite-width allowance), q* = {tb.diagonal.q:.6f}; "
                          "exact-in-law networks, independent N(0, 1) inputs")]


def _rows(ctx: Context, power: int = 2) -> list[Evidence]:
    st = _settings(ctx)
    return (_golden_rows(power) + _forward_rows(ctx, st, power) + _backward_rows(ctx, st, power)
            + _network_rows(ctx, st, power))


def control_cross_batch(ctx: Context) -> Verdict:
    return _control(ctx, _rows(ctx, power=1), "one factor of μ (α) for two: μ* and α*·GΔ₁₂G")


@PAPER.claim(
    "cross-batch",
    title="Two batches through one BN network: the cross-batch fixed point and backward block (beyond the printed text: the "
        "package's derivation)",
    statement="Not printed in the text copy (it stops inside Appendix A.2; the authors' code computes two-batch kernels). The "
        "package's derivation (theory.bn_meanfield.TwoBatchFixedPoint): two batches of B through one network, each "
        "normalised with its own statistics. When Σ's cross block is constant, the centred batches are independent, so "
        "the forward map's cross block is μ(s₁)μ(s₂)·11ᵀ with μ(s) = E φ(BN h)ᵢ; the fixed point Σ*₂ has the diagonal blocks Σ* and "
        "the cross blocks μ*²11ᵀ; and the backward map's cross block at Σ*₂ is α*²·GΔ₁₂G, where E J = α*G. A failure would be an "
        "error of this package, not an erratum of the paper.",
    hypotheses="B ≥ 4 per batch; φ with kinks only at 0 (β = 0 for a kinked φ); BN with ε, γ, β, each batch normalised with its "
        "own statistics; a continuous φ for the backward block",
    how="Closed forms for ReLU at ε = 0, B = 4 (μ* = √3/4, cross block 3/16, α* = (2/3)√(2/π)/√s* with s* of Theorem 5) "
        "and μ* = 0 for tanh; the two-batch Monte Carlo map of numerics.bn_kernels (batches = (4, 4)) at "
        "Σ*₂ (ReLU, ε = 0) and one step at a Σ with different BSB1 blocks and a constant cross block (ReLU, ε = 0.1; GELU, "
        "ε = 0.05, γ = 1.2, β = 0.1); the two-batch backward map (Monte Carlo, autograd Jacobians) at Σ*₂ with a "
        "generic Δ (ReLU, ε = 0.1; tanh and GELU, ε = 0.05, γ = 1.2, β = 0.1): entrywise z-tests, 99.9% with Bonferroni. Width-1000 "
        "networks with two batches (numerics.bn_meanfield, exact in law; ReLU, ε = 0.1): the deep cross block within "
        "4 SE + 2q*/N of μ*². Samples grow with the budget (5·10⁴ forward, 2·10⁴ backward draws at quick).",
    negative_control=control_cross_batch,
    control_description="one factor of μ (of α) where the statement has two — the cross block μ* instead of μ*², μ(s₁)μ(s₂) replaced by "
        "its square root, α*·GΔ₁₂G instead of α*²·GΔ₁₂G — must be rejected",
    uses=("theory.bn_meanfield.two_batch_fixed_point", "theory.bn_meanfield.bn_output_mean",
              "theory.bn_meanfield.bn_mean_jacobian", "theory.bn_meanfield.theorem5_relu_fixed_point",
              "numerics.bn_kernels.bn_forward_map_mc", "numerics.bn_kernels.bn_backward_map_mc",
              "numerics.bn_meanfield.simulate_bn_gradients"),
    depends_on=("bn-mean-field:mu*", "bn-mean-field:alpha*"))
def check_cross_batch(ctx: Context) -> Verdict:
    return Verdict.judged(ctx.claim_id, _rows(ctx),
                          "two batches through one BN network: the cross block is μ*²·11ᵀ at Σ*₂ (closed forms, "
                          "Monte Carlo of the two-batch map, networks) and the backward cross block α*²·GΔ₁₂G",
                          "the two-batch derivation (theory.bn_meanfield.TwoBatchFixedPoint) is not reproduced")
