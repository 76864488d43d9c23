"""The Jacobian's spectrum at criticality (§ Jacobian spectrum, § Nonlinearities, § Spectral densities, Abstract).

* ``jacobian-moments`` — m₁ = χ^L and σ²_{JJᵀ} = L(μ₂/μ₁² − 1 − s₁) for linear, ReLU, hard tanh and erf networks with
  Gaussian and orthogonal weights: the closed forms of μ₂/μ₁² written here against the engine's mpmath quadrature,
  and against finite networks extrapolated to N → ∞.
* ``spectral-density`` — the whole eigenvalue law of JJᵀ from S_{JJᵀ} = Π S_{D²}S_{WWᵀ}: the Fuss–Catalan closed form,
  the law's moments against the moment formula, its atoms and its quantiles against finite networks.
* ``isometry`` — ReLU networks never concentrate the spectrum (σ²/L ≥ 1 for every q*); Gaussian weights never do
  (σ²/L = μ₂/μ₁² ≥ 1); orthogonal weights with a sigmoidal φ do as q* → 0 (σ²/L → 0), and finite networks show it.
"""
from __future__ import annotations

import math

import numpy as np

from numerics import jacobian_eigenvalues_mc, jacobian_moments_mc
from theory import fuss_catalan_density, jacobian_spectral_density, jacobian_spectrum_moments
from verify import api

from . import PAPER, chi, law, sigma2

HARD_TANH = "min(max(x, -1), 1)"
S1 = {"gaussian": -1.0, "orthogonal": 0.0}


def _npdf(x: float) -> float:
    return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def hard_tanh_critical(q: float) -> tuple[float, float, float]:
    """(σ_w², σ_b², p) putting hard tanh at criticality with fixed point q*: p = P(|√q z| < 1) = erf(1/√(2q)),
    χ = σ_w² p = 1, and σ_b² = q − σ_w² E htanh(√q z)² with E htanh² = q(p − 2aφ(a)) + 1 − p, a = 1/√q (closed
    forms, independent of the engine's quadrature)."""
    a = 1 / math.sqrt(q)
    p = math.erf(a / math.sqrt(2))
    second = q * (p - 2 * a * _npdf(a)) + math.erfc(a / math.sqrt(2))
    return 1 / p, q - second / p, p


def erf_critical(q: float) -> tuple[float, float]:
    """(σ_w², σ_b²) putting erf at criticality with fixed point q*: E φ′(√q z)² = (4/π)/√(1 + 4q), so
    σ_w² = (π/4)√(1 + 4q), and E erf(√q z)² = (2/π) arcsin(2q/(1 + 2q))."""
    sw = math.pi / 4 * math.sqrt(1 + 4 * q)
    return sw, q - sw * 2 / math.pi * math.asin(2 * q / (1 + 2 * q))


def ratio_closed_form(name: str, q: float) -> float:
    """μ₂/μ₁² with μ_k = E φ′(√q z)^{2k} (§ Nonlinearities): linear 1; ReLU 2 (μ₁ = μ₂ = ½); hard tanh 1/p;
    erf (1 + 4q)/√(1 + 8q) (μ_k = (4/π)^k/√(1 + 4kq))."""
    if name == "linear":
        return 1.0
    if name == "relu":
        return 2.0
    if name == "hard tanh":
        return 1 / math.erf(1 / math.sqrt(2 * q))
    if name == "erf":
        return (1 + 4 * q) / math.sqrt(1 + 8 * q)
    raise ValueError(name)


def critical_networks(q_ht: float = 0.3, q_erf: float = 0.5) -> dict:
    """name → (activation, σ_w², σ_b², q*) of the four networks at criticality."""
    sw_h, sb_h, _ = hard_tanh_critical(q_ht)
    sw_e, sb_e = erf_critical(q_erf)
    return {"linear": ("identity", 1.0, 0.0, 1.0), "relu": ("relu", 2.0, 0.0, 1.0),
            "hard tanh": (HARD_TANH, sw_h, sb_h, q_ht), "erf": ("erf", sw_e, sb_e, q_erf)}


def _rel(a: float, b: float) -> float:
    return abs(a - b) / max(abs(b), 1e-300)


# ---------------------------------------------------------------------------------------------------------------
# jacobian-moments
# ---------------------------------------------------------------------------------------------------------------

DEPTH, WIDTHS = 8, (128, 256)


def _extrapolated(name, weights, seeds, seed):
    """m₁ and σ² of finite networks at N = 128 and 256, extrapolated linearly in 1/N to N → ∞ (2·f(256) − f(128)),
    with standard errors."""
    act, sw, sb, q = critical_networks()[name]
    a, b = (jacobian_moments_mc(act, sw, sb, DEPTH, width=n, seeds=seeds, q1=q, weights=weights, seed=seed + k)
            for k, n in enumerate(WIDTHS))
    return {"m1": (2 * b.mean - a.mean, math.hypot(2 * b.mean_se, a.mean_se)),
            "var": (2 * b.variance - a.variance, math.hypot(2 * b.variance_se, a.variance_se)),
            "var256": b.variance}


@PAPER.claim(
    "jacobian-moments", title="Mean and variance of the Jacobian's squared singular values at criticality",
    statement="At criticality (χ = σ_w² μ₁ = 1, inputs at q*) the eigenvalues of JJᵀ have mean m₁ = χ^L = 1 and "
              "variance σ²_{JJᵀ} = L(μ₂/μ₁² − 1 − s₁), μ_k = E φ′(√q* z)^{2k}, s₁ = −1 for Gaussian and 0 for "
              "orthogonal weights (§ Jacobian spectrum); μ₂/μ₁² = 1 (linear), 2 (ReLU), 1/erf(1/√(2q*)) (hard tanh), "
              "(1 + 4q*)/√(1 + 8q*) (erf) (§ Nonlinearities).",
    depends_on=(chi, sigma2), hypotheses="N → ∞; inputs at the fixed point q*; criticality",
    how="Depth 8: linear (σ_w² = 1), ReLU (σ_w² = 2, σ_b² = 0), hard tanh at q* = 0.3 and erf at q* = 0.5 (σ_w², σ_b² "
        "from closed forms), each with Gaussian and orthogonal weights. The closed forms against the engine's "
        "jacobian_spectrum_moments (μ_k by mpmath quadrature) to 1e-9 relative; finite networks (N = 128 and 256, "
        "32/64/128 seeds by budget) extrapolated linearly in 1/N, within 4 standard errors + (L/256)² of the value "
        "(the second-order remainder); the orthogonal linear network's σ² = 0 to 1e-10.",
    control_description="χ or σ²_{JJᵀ} scaled by 1 ± 5% must leave the tolerance")
def jacobian_moments(ctx: api.Context) -> api.Verdict:
    """The moment formula against the engine and finite networks (§ Jacobian spectrum)."""
    seeds = ctx.pick(32, 64, 128)
    rows = []
    nets = critical_networks()
    for i, (name, (act, sw, sb, q)) in enumerate(nets.items()):
        ctx.progress(name, i / len(nets))
        for weights in ("gaussian", "orthogonal"):
            closed = DEPTH * (ratio_closed_form(name, q) - 1 - S1[weights])
            engine = api.memo(("engine", name, weights),
                              lambda: jacobian_spectrum_moments(act, sw, sb, DEPTH, q1=q, weights=weights))
            th_var = sigma2.scaled(closed)
            th_m1 = chi.scaled(1.0) ** DEPTH
            scale = max(abs(closed), 1.0)
            obs = abs(engine.variance.value - th_var) / scale
            rows.append(api.Evidence(
                f"{name}, {weights}: σ²_{{JJᵀ}} = L(μ₂/μ₁² − 1 − s₁) in closed form vs the engine's quadrature",
                theory=th_var, numeric=engine.variance.value, bound=1e-9, observed=obs, passed=obs <= 1e-9,
                note=f"L = {DEPTH}, q* = {q:.6g}, σ_w² = {sw:.10g}, σ_b² = {sb:.6g}; relative to max(|σ²|, 1); "
                     f"engine m₁ = {engine.mean}"))
            if name == "linear" and weights == "orthogonal":
                mc = api.memo(("mc-lin-orth",), lambda: jacobian_moments_mc(
                    act, sw, sb, DEPTH, width=WIDTHS[-1], seeds=4, q1=q, weights=weights, seed=ctx.seed))
                obs = abs(mc.variance - th_var)
                rows.append(api.Evidence(
                    "linear, orthogonal: σ²_{JJᵀ} of finite networks (a product of orthogonal matrices: exactly 0)",
                    theory=th_var, numeric=mc.variance, bound=1e-10, observed=obs, passed=obs <= 1e-10,
                    samples=4, note=f"N = {WIDTHS[-1]}; m₁ = {mc.mean:.15g}"))
                continue
            ex = api.memo(("mc", name, weights), lambda: _extrapolated(name, weights, seeds, ctx.seed * 1000 + 11))
            for key, sym, th in (("m1", "m₁ = χ^L", th_m1), ("var", "σ²_{JJᵀ}", th_var)):
                val, se = ex[key]
                bound = 4 * se + (DEPTH / WIDTHS[-1]) ** 2 * abs(th)
                rows.append(api.Evidence(
                    f"{name}, {weights}: {sym} of finite networks (N → ∞ by 1/N extrapolation) vs the formula",
                    theory=th, numeric=val, bound=bound, observed=abs(val - th), samples=seeds,
                    passed=abs(val - th) <= bound,
                    note=f"N = 128, 256, {seeds} networks each; standard error {se:.3g}; 4 SE + (L/256)²·|value|"
                         + (f"; σ² at N = 256 alone: {ex['var256']:.5g}" if key == "var" else "")))
    return api.judged(ctx.claim_id, rows,
                      "m₁ = 1 and σ²_{JJᵀ} = L(μ₂/μ₁² − 1 − s₁) for the four networks and both ensembles",
                      "the moment formula disagrees with the engine or with finite networks")


# ---------------------------------------------------------------------------------------------------------------
# spectral-density
# ---------------------------------------------------------------------------------------------------------------

#: the laws compared with networks: name → (network, weights, depth)
LAWS = {"ReLU, Gaussian": ("relu", "gaussian", 4), "ReLU, orthogonal": ("relu", "orthogonal", 4),
        "hard tanh, orthogonal": ("hard tanh", "orthogonal", 8), "linear, Gaussian": ("linear", "gaussian", 4)}
QUANTILES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
SNAP = 1e-9        # relative: an eigenvalue this close to an atom's location is the atom (rounding)
ATOM_FLOOR = 1e-8  # relative to the upper edge: an eigenvalue below it is the atom at 0


def _law(name):
    net, weights, depth = LAWS[name]
    act, sw, sb, q = critical_networks()[net]
    return jacobian_spectral_density(act, sw, sb, depth, q1=q, weights=weights)


def _conditional_quantiles(dens) -> np.ndarray:
    """λ at which the law of the eigenvalues above the floor (:data:`ATOM_FLOOR`·E), the atom at (σ_w²c²)^L
    excluded, reaches each of :data:`QUANTILES` (:meth:`theory.JacobianDensity.quantile`)."""
    floor = ATOM_FLOOR * dens.support[-1][1]
    lo_mass, top = float(dens.cdf(np.array([floor]))[0]), dens.top_atom[1].value
    targets = lo_mass + np.array(QUANTILES) * (1 - lo_mass - top)
    # below the top atom's location the distribution function does not include it, so the levels are those of F
    return dens.quantile(targets)


def _network_spectrum(name, dens, width, seeds, seed):
    """Per network: the fraction of eigenvalues below :data:`ATOM_FLOOR`·E (the atom at 0, rounded, and the
    density's mass there), the fraction at the top atom, and the :data:`QUANTILES` of the rest."""
    net, weights, depth = LAWS[name]
    act, sw, sb, q = critical_networks()[net]
    ev = jacobian_eigenvalues_mc(act, sw, sb, depth, width=width, seeds=seeds, q1=q, weights=weights, seed=seed)
    floor, top = ATOM_FLOOR * dens.support[-1][1], dens.top_atom[0]
    zero = (ev <= floor).mean(1)
    at_top = (np.abs(ev - top) <= SNAP * top).mean(1) if weights == "orthogonal" else np.zeros(len(ev))
    quant = np.array([np.quantile(row[(row > floor) & ~(np.abs(row - top) <= SNAP * top)], QUANTILES) for row in ev])
    return zero, at_top, np.log(quant)


def _fuss_catalan_rows() -> list[api.Evidence]:
    """Linear networks with Gaussian weights at σ_w² = 1: the engine's law against the Fuss–Catalan closed form."""
    rows = []
    for depth in (2, 8):
        dens = api.memo(("fc", depth), lambda: jacobian_spectral_density("identity", 1.0, 0.0, depth, q1=1.0))
        phi = np.linspace(0.02, 0.98, 13) * math.pi / (depth + 1)
        x, ref = fuss_catalan_density(depth, phi)
        got = law.scaled(dens.pdf(x))
        obs = float(np.max(np.abs(got / ref - 1)))
        rows.append(api.Evidence(
            f"linear, Gaussian, L = {depth}: the density from S-transforms vs the Fuss–Catalan closed form",
            theory=float(got[6]), numeric=float(ref[6]), bound=1e-10, observed=obs, passed=obs <= 1e-10,
            note=f"max relative difference at 13 points x ∈ [{x.min():.3g}, {x.max():.3g}] (Haagerup–Möller "
                 "parametrisation); theory, numeric: the middle point"))
        edge = law.scaled(dens.support[-1][1])
        ref_edge = (depth + 1) ** (depth + 1) / depth ** depth
        obs = _rel(edge, ref_edge)
        rows.append(api.Evidence(
            f"linear, Gaussian, L = {depth}: upper edge of the support vs (L+1)^{{L+1}}/L^L", theory=edge,
            numeric=ref_edge, bound=1e-12, observed=obs, passed=obs <= 1e-12, note="relative difference"))
    return rows


#: the largest relative error a compared moment may state: with a wider one any value would agree
MOMENT_ERROR_REL = 1e-9


def law_moment_rows(name: str, depth: int, dens, mom) -> list:
    """m₁ and σ² of the law (∫λ^k dμ by its panels) against the moment formula: within 1e-8 relative plus both
    routes' stated errors — and those errors themselves below :data:`MOMENT_ERROR_REL` of the value, so that a route
    stating a wide error (a lost moment reported with an error the size of the value) fails instead of agreeing."""
    m1, m2 = dens.moment(1), dens.moment(2)
    var = law.scaled(law.scaled(m2.value)) - law.scaled(m1.value) ** 2   # λ → (1 + δ)λ: m_k → (1 + δ)^k m_k
    rows = []
    for sym, th, num, err in (("m₁", law.scaled(m1.value), mom.mean.value, m1.error + mom.mean.error),
                              ("σ²", var, mom.variance.value, m2.error + 2 * m1.error * m1.value
                               + mom.variance.error)):
        bound = 1e-8 * abs(num) + err
        tight = err <= MOMENT_ERROR_REL * abs(num)
        rows.append(api.Evidence(
            f"{name}, L = {depth}: {sym} of the law (∫λ^k dμ) vs the moment formula", theory=th, numeric=num,
            bound=bound, observed=abs(th - num), passed=bool(abs(th - num) <= bound and tight),
            note=f"stated errors {err:.3g} together ({'within' if tight else 'NOT within'} {MOMENT_ERROR_REL:g} of "
                 f"the value); law: atoms {dens.atom:.6g} at 0 and {dens.top_atom[1].value:.6g} at "
                 f"{dens.top_atom[0]:.6g}, support {tuple(tuple(round(v, 6) for v in s) for s in dens.support)}"))
    return rows


@PAPER.claim(
    "spectral-density", title="The whole singular value distribution of J from free probability",
    statement="In the limit N → ∞ the factors D^l, W^l of J are asymptotically free, so S_{JJᵀ} = Π_l S_{D_l²} "
              "S_{W_lW_lᵀ} determines the entire distribution of JJᵀ's eigenvalues; with S_{WWᵀ} = 1/(σ_w²(1 + z)) "
              "(Gaussian) or 1/σ_w² (orthogonal) and, for φ′² ∈ {0, c²}, S_{D²} = (1 + z)/(c²(p + z)) (§ Free "
              "probability, § Spectral densities).",
    depends_on=(law,), hypotheses="N → ∞; φ′² takes two values; inputs at q*; criticality",
    how="The engine's law (theory.jacobian_density: M(λ + i0) by Newton continuation, density −Im M/(πλ)) against "
        "(i) the Fuss–Catalan density and edge of linear Gaussian networks (closed form, 1e-10 and 1e-12 relative); "
        "(ii) its own m₁ and σ² against theory.jacobian_spectrum_moments (1e-8 relative + the quadrature errors, "
        "which must themselves stay below 1e-9 relative); "
        "(iii) finite networks (N = 128 and 256, 8/16/32 seeds by budget; ReLU with Gaussian and orthogonal weights "
        "at L = 4, hard tanh with orthogonal weights at q* = 0.3, L = 8, linear Gaussian at L = 4): the mass at 0 "
        "below 10⁻⁸E (1 − p and the density's mass there; extrapolated in 1/√N, since J's rank is the least of the "
        "layers' binomial counts of active units) and at (σ_w²c²)^L (max(0, 1 − L(1 − p)); in 1/N) within 4 standard "
        "errors + 1/N, and the 0.1…0.9 quantiles of the rest, in log λ, extrapolated in 1/N, each within "
        "4 SE + 0.005.",
    control_description="the law's λ axis (density values, edge, moments, quantiles) scaled by 1 ± 5% must leave "
                        "the tolerance")
def spectral_density(ctx: api.Context) -> api.Verdict:
    """The free-probability law against closed forms, the moment formula and finite networks."""
    seeds = ctx.pick(8, 16, 32)
    rows = _fuss_catalan_rows()
    for i, name in enumerate(LAWS):
        ctx.progress(name, i / len(LAWS))
        net, weights, depth = LAWS[name]
        act, sw, sb, q = critical_networks()[net]
        dens = api.memo(("law", name), lambda: _law(name))
        mom = api.memo(("moments", name), lambda: jacobian_spectrum_moments(act, sw, sb, depth, q1=q,
                                                                            weights=weights))
        rows += law_moment_rows(name, depth, dens, mom)
        if weights == "orthogonal":
            resid = api.memo(("residue", name), dens.top_atom_residue)
            w = dens.top_atom[1].value
            obs = abs(resid.value - w)
            bound = 1e-6 + resid.error
            rows.append(api.Evidence(
                f"{name}: mass at (σ_w²c²)^L, max(0, 1 − Σ(1 − p_l)) vs the residue of M there",
                theory=w, numeric=resid.value, bound=bound, observed=obs, passed=obs <= bound,
                note="the residue carries O(√y) from a density diverging at the edge; y = 1e-11·(σ_w²c²)^L"))
        runs = api.memo(("networks", name), lambda: [_network_spectrum(name, dens, n, seeds, ctx.seed * 1000 + 37 + k)
                                                     for k, n in enumerate(WIDTHS)])
        (z1, t1, lq1), (z2, t2, lq2) = runs
        floor = ATOM_FLOOR * dens.support[-1][1]
        below = law.scaled(float(dens.cdf(np.array([floor]))[0]))
        root2 = math.sqrt(2)
        for sym, th, pair, rate in ((f"mass below {floor:.3g} (the atom at 0 and the density's)", below, (z1, z2),
                                     "1/√N"),
                                    ("mass at (σ_w²c²)^L", dens.top_atom[1].value, (t1, t2), "1/N")):
            if weights == "gaussian" and sym.startswith("mass at"):
                continue
            (m1_, s1_), (m2_, s2_) = ((float(a.mean()), float(a.std(ddof=1) / math.sqrt(len(a)))) for a in pair)
            if rate == "1/√N":     # the rank is the least of the layers' active counts: a deficit ∝ 1/√N
                val, se = (root2 * m2_ - m1_) / (root2 - 1), math.hypot(root2 * s2_, s1_) / (root2 - 1)
            else:                  # the untouched vectors: 1 − Σ_l (1 − p̂_l), unbiased up to O(1/N)
                val, se = 2 * m2_ - m1_, math.hypot(2 * s2_, s1_)
            bound = 4 * se + 1 / WIDTHS[-1]
            rows.append(api.Evidence(
                f"{name}, L = {depth}: {sym} of finite networks (N → ∞ in {rate}) vs the law", theory=th,
                numeric=val, bound=bound, observed=abs(val - th), samples=seeds, passed=abs(val - th) <= bound,
                note=f"N = 128: {m1_:.4f}, N = 256: {m2_:.4f}; extrapolated in {rate}; 4 SE + 1/N"))
        qth = np.log(law.scaled(api.memo(("quantiles", name), lambda: _conditional_quantiles(dens))))
        ex = 2 * lq2.mean(0) - lq1.mean(0)
        se = np.hypot(2 * lq2.std(0, ddof=1) / math.sqrt(seeds), lq1.std(0, ddof=1) / math.sqrt(seeds))
        ratio = np.abs(ex - qth) / (4 * se + 0.005)
        w = int(np.argmax(ratio))
        rows.append(api.Evidence(
            f"{name}, L = {depth}: log-quantiles of the continuous part, finite networks (N → ∞ by 1/N "
            f"extrapolation) vs the law", theory=float(qth[w]), numeric=float(ex[w]),
            bound=float(4 * se[w] + 0.005), observed=float(abs(ex[w] - qth[w])), samples=seeds,
            passed=bool(ratio.max() <= 1.0),
            note=f"the worst of the quantiles {QUANTILES[0]}…{QUANTILES[-1]}: u = {QUANTILES[w]} "
                 f"(|difference|/bound = {ratio[w]:.2g}); N = 128, 256; 4 SE + 0.005"))
    return api.judged(ctx.claim_id, rows,
                      "the free-probability law matches the Fuss–Catalan form, the moment formula and finite networks",
                      "the free-probability law disagrees with a closed form, the moments or finite networks")


# ---------------------------------------------------------------------------------------------------------------
# isometry
# ---------------------------------------------------------------------------------------------------------------

Q_GRID = (1.0, 0.1, 0.01)
ISO_DEPTH, ISO_WIDTH = 32, 256


def _per_layer(act_name, weights, q):
    """σ²_{JJᵀ}/L of the engine at criticality with fixed point q (one layer suffices: every layer is at q*)."""
    if act_name == "relu":
        act, sw, sb = "relu", 2.0, 0.0
    elif act_name == "hard tanh":
        sw, sb, _ = hard_tanh_critical(q)
        act, sb = HARD_TANH, max(sb, 0.0)
    else:
        sw, sb = erf_critical(q)
        act = "erf"
    return jacobian_spectrum_moments(act, sw, sb, 1, q1=q, weights=weights).variance.value


@PAPER.claim(
    "isometry", title="ReLU networks cannot be dynamically isometric; sigmoidal ones can, with orthogonal weights",
    statement="ReLU networks are incapable of dynamical isometry. On the other hand, sigmoidal networks can achieve "
              "isometry, but only with orthogonal weight initialization (Abstract): at criticality σ²_{JJᵀ}/L ≥ 1 "
              "for ReLU with either ensemble and for every φ with Gaussian weights, while for hard tanh and erf with "
              "orthogonal weights σ²_{JJᵀ}/L → 0 as q* → 0.",
    depends_on=(sigma2,), hypotheses="criticality; N → ∞",
    how="σ²_{JJᵀ}/L of the engine (μ_k by mpmath) at q* = 1, 0.1, 0.01: equal to the closed forms (1e-9) and, for "
        "ReLU and Gaussian weights, ≥ 1; for hard tanh and erf with orthogonal weights, decreasing in q* and ≤ 10⁻³ at "
        "q* = 0.01. Finite networks at L = 32, N = 256 (8/16/32 seeds by budget): hard tanh at q* = 0.1 with "
        "orthogonal weights against ReLU with orthogonal weights and hard tanh with Gaussian weights, each measured σ² "
        "within 4 SE + 2L/N of its value (+ 10⁻⁶ absolute), the first below 10⁻²·L and the others above L/2 (the "
        "two orders of magnitude between them; the exact bounds are the engine's rows).",
    control_description="σ²_{JJᵀ} scaled by 1 ± 5% must leave the tolerance")
def isometry(ctx: api.Context) -> api.Verdict:
    """σ²/L along q* for ReLU, hard tanh and erf, both ensembles, and finite networks at depth 32."""
    rows = []
    for act_name in ("relu", "hard tanh", "erf"):
        for weights in ("gaussian", "orthogonal"):
            vals = []
            for q in Q_GRID:
                closed = sigma2.scaled(ratio_closed_form(act_name, q) - 1 - S1[weights])
                eng = api.memo(("per-layer", act_name, weights, q), lambda: _per_layer(act_name, weights, q))
                vals.append(eng)
                obs = abs(eng - closed) / max(abs(closed), 1e-3)
                rows.append(api.Evidence(
                    f"{act_name}, {weights}, q* = {q:g}: σ²_{{JJᵀ}}/L of the engine vs μ₂/μ₁² − 1 − s₁ in closed form",
                    theory=closed, numeric=eng, bound=1e-9, observed=obs, passed=obs <= 1e-9,
                    note="relative to max(|value|, 1e-3)"))
            if act_name == "relu" or weights == "gaussian":
                low = min(vals)
                rows.append(api.Evidence(
                    f"{act_name}, {weights}: σ²_{{JJᵀ}}/L ≥ 1 at every q* (no dynamical isometry)", theory=1.0,
                    numeric=low, bound=1.0, observed=low, passed=low >= 1.0 - 1e-12,
                    note=f"lower bound; the smallest over q* ∈ {Q_GRID}"))
            else:
                mono = all(a > b for a, b in zip(vals, vals[1:]))
                rows.append(api.Evidence(
                    f"{act_name}, orthogonal: σ²_{{JJᵀ}}/L decreases with q* and is ≤ 1e-3 at q* = 0.01 "
                    f"(isometry as q* → 0)", theory=0.0, numeric=vals[-1], bound=1e-3, observed=vals[-1],
                    passed=mono and vals[-1] <= 1e-3,
                    note="upper bound; values at q* = " + ", ".join(f"{q:g}: {v:.3g}" for q, v in zip(Q_GRID, vals))))
    seeds = ctx.pick(8, 16, 32)
    sw_h, sb_h, _ = hard_tanh_critical(0.1)
    cases = (("hard tanh, orthogonal, q* = 0.1", HARD_TANH, sw_h, sb_h, 0.1, "orthogonal", "below"),
             ("ReLU, orthogonal", "relu", 2.0, 0.0, 1.0, "orthogonal", "above"),
             ("hard tanh, Gaussian, q* = 0.1", HARD_TANH, sw_h, sb_h, 0.1, "gaussian", "above"))
    for k, (label, act, sw, sb, q, weights, side) in enumerate(cases):
        ctx.progress(label, k / 3)
        th = sigma2.scaled(api.memo(("iso-engine", label), lambda: jacobian_spectrum_moments(
            act, sw, sb, ISO_DEPTH, q1=q, weights=weights).variance.value))
        mc = api.memo(("iso-mc", label), lambda: jacobian_moments_mc(
            act, sw, sb, ISO_DEPTH, width=ISO_WIDTH, seeds=seeds, q1=q, weights=weights, seed=ctx.seed * 1000 + 71 + k))
        bound = 4 * mc.variance_se + 2 * ISO_DEPTH / ISO_WIDTH * abs(th) + 1e-6
        limit_ok = mc.variance <= 1e-2 * ISO_DEPTH if side == "below" else mc.variance >= ISO_DEPTH / 2
        rows.append(api.Evidence(
            f"{label}: σ²_{{JJᵀ}} of finite networks at L = {ISO_DEPTH} vs L(μ₂/μ₁² − 1 − s₁), and "
            f"{'below 10⁻²·L' if side == 'below' else 'above L/2'}", theory=th, numeric=mc.variance, bound=bound,
            observed=abs(mc.variance - th), samples=seeds, passed=abs(mc.variance - th) <= bound and limit_ok,
            note=f"N = {ISO_WIDTH}; standard error {mc.variance_se:.3g}; 4 SE + 2L/N·|σ²| + 1e-6; m₁ = {mc.mean:.4f}"))
    return api.judged(ctx.claim_id, rows,
                      "ReLU and Gaussian-weight networks stay anisotropic (σ²/L ≥ 1); orthogonal sigmoidal networks "
                      "approach isometry as q* → 0, in theory and in finite networks",
                      "the isometry statement fails in the engine's moments or in finite networks")
