"""Claims of bn-finite-width — Joudaki, Daneshmand, Bach, "On bridging the gap between mean field and
finite width in deep random neural networks with batch normalization" (ICML 2023) and its poster.

Notation (the paper's): d = width, n = batch size, ℓ = layer, h_ℓ ∈ ℝ^{d×n} (eq 2), G_ℓ the Gram matrix
of eq (3), G* = b*((1 − c*)I + c* 11ᵀ) the stable mean-field Gram matrix (eq 16), α the mixing rate of
Assumption 1, ε = n‖G*^{-1/2}‖/√d (Theorem 1). The bounds hide absolute constants ("≳"), so each check
tests what they predict: the width exponent, flatness in depth, and that the implied constant
(observed deviation / rate) stays bounded across widths — with confidence intervals.

theory/ functions used: bsb1_constants (G*, by Gauss–Jacobi quadrature of the sphere integrals),
bsb1_constants_mc. numerics/ functions used: simulate_bn_chain (exact-in-distribution and dense).
"""
from __future__ import annotations

import math

import numpy as np

import numerics
import theory
from theory.batchnorm import BSB1, distortion_lower_bound

from .. import params as P
from ..core import (HOLDS, INCONCLUSIVE, VIOLATED, Claim, Context, Erratum, Evidence,
                    HypothesisCheck, HypothesisNotMet,
                    Parameter, Verdict, status_from_rows)
from .. import quantities as Q
from ..lazy import lazy_module as _lazy
from ..figures import Panel, Series, mean_band, write_figure
from ..stats import mean_ci
from ..api import Paper, known_value_row, replicate_seeds
from ..store import shared
from ..coverage import COVERAGE
from ..expectations import SHIPPED

stats = _lazy("scipy.stats")  # loaded on first use (listing claims stays fast)

PAPER = "bn-finite-width"
DECLARATION = Paper(key='bn-finite-width', title='On bridging the gap between mean field and finite width in deep random neural networks with batch normalization',
                    citation='Joudaki, Daneshmand, Bach — mean field and finite width with batch normalization (ICML 2023)',
                    coverage=COVERAGE['bn-finite-width'], expectations=SHIPPED)
CONF = 0.95
FAMILY_F = ("relu", "tanh", "sigmoid", "sin", "selu", "celu")  # the set 𝓕 of Theorem 1


def _control(name: str, rows: list[Evidence], summary: str) -> Verdict:
    return Verdict(f"{PAPER}:{name}", status_from_rows(rows), summary, rows)


def spectral_deviation(G: np.ndarray, lam_star: np.ndarray) -> np.ndarray:
    """max_i |λ_i(G)/λ_i* − 1| with both spectra in descending order (eq 8), batched over G."""
    lam = np.sort(np.linalg.eigvalsh(G), axis=-1)[..., ::-1]
    return np.max(np.abs(lam / lam_star - 1), axis=-1)


def epsilon(fp: BSB1, d: int) -> float:
    """ε = n‖G*^{-1/2}‖/√d of Theorem 1."""
    return fp.n * math.sqrt(fp.inverse_norm) / math.sqrt(d)


def _slope_ci(x, y, confidence=CONF):
    res = stats.linregress(x, y)
    t = float(stats.t.ppf(0.5 + confidence / 2, max(len(x) - 2, 1)))
    return float(res.slope), (float(res.slope - t * res.stderr), float(res.slope + t * res.stderr))


def _implied_constant(X: np.ndarray, ts=(1.25, 1.5, 2.0, 3.0)) -> float:
    """Smallest K with empirical P(X ≥ t K) ≤ t⁻² for every t in ``ts`` (the probabilistic form)."""
    return float(max(np.quantile(X, 1 - 1 / t ** 2) / t for t in ts))


# =============================================================================================
# Theorem 1 (eq 8) — spectral concentration of BN-MLP, uniformly in depth
# =============================================================================================

def _chain(ctx: Context, act: str, d: int, n: int, depth: int, seeds: int, seed: int, layers, batchnorm=True,
           input_cov=None) -> np.ndarray:
    """Gram matrices [seeds, layers, n, n] of the exact-in-law BN chain, shared by the claims of a run (Theorems 1
    and 3 and Corollaries 6–8 read the same chains) and by the controls and the sensitivity scan: same seed, same
    numbers; the chain consumes no theory quantity."""
    cov = np.ascontiguousarray(0.5 * np.eye(n) + 0.5 if input_cov is None else input_cov, dtype=float)
    return _chain_grams(act, d, n, depth, seeds, seed, tuple(int(k) for k in layers), bool(batchnorm), cov.tobytes(),
                        ctx.device, ctx.dtype)


@shared
def _chain_grams(act: str, d: int, n: int, depth: int, seeds: int, seed: int, layers: tuple, batchnorm: bool,
                 cov_bytes: bytes, device: str, dtype: str) -> np.ndarray:
    import torch
    cov = np.frombuffer(cov_bytes).reshape(n, n).copy()
    return numerics.simulate_bn_chain(act, d, n, depth, seeds, seed=seed, device=device,
                                      dtype={"float64": torch.float64, "float32": torch.float32}[dtype],
                                      batchnorm=batchnorm, input_cov=cov, layers=list(layers)).cpu().numpy()


@shared
def _sphere_constants_mc(act: str, n: int, samples: int, seed: int) -> tuple:
    """theory.bsb1_constants_mc, shared by the claims of a run (five of them check b*, c* at the same n)."""
    return theory.bsb1_constants_mc(act, n, samples, seed)


def _theorem1_grams(ctx: Context, act: str, n: int, widths, batchnorm=True, depth=None, input_cov=None) -> dict:
    """Stationary-window Gram matrices for each width: dict width → array [seeds, window layers, n, n]."""
    out = {}
    for i, d in enumerate(widths):
        burn = depth if depth is not None else int(math.ceil(3 * math.log(d / n))) + 10
        window = ctx.pick(10, 20, 40)
        seeds = max(ctx.pick(8, 16, 32) * widths[0] // d, ctx.pick(6, 8, 16))
        ctx.progress(f"{act}: d = {d}, {seeds} seeds, {burn + window} layers", i / len(widths))
        out[d] = _chain(ctx, act, d, n, burn + window, seeds, ctx.seed + 31 * i + 7, range(burn, burn + window + 1),
                        batchnorm=batchnorm, input_cov=input_cov)
    return out


def _theorem1_runs(ctx: Context, act: str, n: int, fp: BSB1, widths, lam_star=None, batchnorm=True,
                   depth=None, input_cov=None, metric=None):
    """Stationary deviations D_ℓ for each width: dict width → array [seeds, window layers]. ``metric`` maps a
    Gram tensor to deviations (default: the spectral deviation of eq 8 against ``lam_star``)."""
    lam_star = fp.eigenvalues if lam_star is None else lam_star
    metric = metric or (lambda G: spectral_deviation(G, lam_star))
    grams = _theorem1_grams(ctx, act, n, widths, batchnorm=batchnorm, depth=depth, input_cov=input_cov)
    return {d: metric(G) for d, G in grams.items()}


MEAN_CONF = 0.999  # per row; a claim has up to ~10 such rows, so its family-wise false-violation rate is ≈ 1%


def gstar_mc_rows(ctx: Context, act: str, n: int, fp: BSB1, label: str = "") -> list[Evidence]:
    """b*, c* (the quadrature the claim consumes) against Monte Carlo on the sphere: an independent route, run
    before any hypothesis is decided from G* (a wrong c* could flip "G* non-degenerate")."""
    samples = ctx.pick(400_000, 1_000_000, 4_000_000)
    b_mc, c_mc, b_se, bc_se = _sphere_constants_mc(act, n, samples, ctx.seed + 3)
    zcrit = float(stats.norm.ppf(0.5 + MEAN_CONF / 2))
    # floating-point floor: for linear σ the normalisation fixes both averages exactly (zero spread)
    b_se, bc_se = max(b_se, 1e-12 * abs(b_mc)), max(bc_se, 1e-12 * abs(b_mc))
    zb = abs(b_mc - fp.b) / b_se
    zc = abs(b_mc * c_mc - fp.b * fp.c) / bc_se
    return [Evidence(f"{label}{act}: b* by quadrature vs Monte Carlo on the sphere (n = {n})", theory=fp.b, numeric=b_mc,
                     observed=zb, bound=zcrit, statistic="|z|", ci=(b_mc - zcrit * b_se, b_mc + zcrit * b_se), confidence=MEAN_CONF,
                     samples=samples, passed=zb <= zcrit, note=f"|z| = {zb:.2f}; SE {b_se:.2g}"),
            Evidence(f"{label}{act}: b*c* by quadrature vs Monte Carlo on the sphere (n = {n})", theory=fp.b * fp.c,
                     numeric=b_mc * c_mc, observed=zc, bound=zcrit, statistic="|z|", confidence=MEAN_CONF, samples=samples,
                     passed=zc <= zcrit, note=f"|z| = {zc:.2f}; SE {bc_se:.2g}; c* = {fp.c:.10g} (MC {c_mc:.5g})")]


def gstar_mc_se_rows(ctx: Context, n: int) -> list[Evidence]:
    """The standard errors :func:`theory.bsb1_constants_mc` reports for b* and b*c*, against a closed form. For
    σ = step (Heaviside), σ² = σ and the signs of x = √n Mz/‖Mz‖ are those of Mz ~ N(0, M), M = I − 11ᵀ/n, so
    b* = P(x₁ > 0) = 1/2 and b*c* = P(x₁ > 0, x₂ > 0) = 1/4 + arcsin(ρ)/(2π) with ρ = M₁₂/M₁₁ = −1/(n − 1)
    (Sheppard's orthant formula; no quadrature). K replicates of m sphere samples, each with its own seed; the
    pooled χ²/K against χ²_K/K (:func:`verify.calibration.known_value_row`). Consumes no theory quantity."""
    K, m = ctx.pick(400, 1000, 2000), 500
    mc = Q.memo(("bsb1_mc_se", n, K, m, ctx.seed), lambda: np.array(
        [theory.bsb1_constants_mc("step", n, m, s) for s in replicate_seeds(ctx.seed, 1, K)]))
    b, bc = mc[:, 0], mc[:, 0] * mc[:, 1]
    bc_exact = 0.25 + math.asin(-1 / (n - 1)) / (2 * math.pi)
    setting = f"σ = step, n = {n}, {m} sphere samples per replicate"
    return [known_value_row(f"standard error of the Monte Carlo b* (σ = step, n = {n}): b* = 1/2", b, mc[:, 2], 0.5,
                            setting),
            known_value_row(f"standard error of the Monte Carlo b*c* (σ = step, n = {n}): b*c* = 1/4 + "
                            "arcsin(−1/(n−1))/(2π)", bc, mc[:, 3], bc_exact, setting)]


def chain_variant_rows(ctx: Context, act: str = "relu") -> list[Evidence]:
    """The BN chain of eq (2) by its two simulators: ``method="exact"`` draws h_{ℓ+1} from its Gaussian law given
    G_ℓ (what every claim uses), ``method="dense"`` multiplies by explicit d × d Gaussian weights and normalises with
    batch statistics. They are the same finite-width law, so at d = 64, n = 4, depth 3 the entries G_3[0, 0] and
    G_3[0, 1] must agree in two-sample KS tests at α = 0.001 (independent seeds)."""
    d, n, depth, seeds = 64, 4, 3, ctx.pick(400, 800, 1600)
    G = {m: numerics.simulate_bn_chain(act, d, n, depth, seeds, method=m, seed=ctx.seed + 40 + k,
                                       layers=[depth]).cpu().numpy()[:, 0] for k, m in enumerate(("exact", "dense"))}
    rows = []
    for i, j in ((0, 0), (0, 1)):
        res = stats.ks_2samp(G["exact"][:, i, j], G["dense"][:, i, j])
        rows.append(Evidence(f"{act}: G_{depth}[{i},{j}] (d = {d}, n = {n}) of the chain simulated exactly in law vs with "
                             "explicit weights", numeric=float(res.statistic), observed=float(res.pvalue), bound=0.001,
                             samples=seeds, confidence=0.999, passed=bool(res.pvalue > 0.001),
                             note=f"two-sample KS D = {res.statistic:.4f}, p = {res.pvalue:.3g} (observed: p, which "
                                  "must be above the level α = 0.001)"))
    return rows


def stationary_mean_rows(grams: dict, fp: BSB1, label: str = "") -> list[Evidence]:
    """The mean-field limit itself: E G_ℓ → G* as d → ∞. Per seed, the stationary-window average of the diagonal
    (→ b*) and of the off-diagonal entries (→ b*c*); regressed on 1/d over all widths (the finite-width bias of the
    exact chain is a series in 1/d), the intercept's t-interval at 99.9% must contain the theory value. With one
    width, the mean itself with an allowance of 3·(its spread)/d for the bias."""
    n = fp.n
    off = ~np.eye(n, dtype=bool)
    x, yb, yc = [], [], []
    for d, G in grams.items():
        diag = np.einsum("slii->sl", G).mean(axis=1) / n
        offd = G[..., off].mean(axis=(1, 2))
        x += [1.0 / d] * diag.size
        yb += list(diag)
        yc += list(offd)
    x, yb, yc = np.array(x), np.array(yb), np.array(yc)
    rows = []
    for what, y, target in (("diagonal → b*", yb, fp.b), ("off-diagonal → b*c*", yc, fp.b * fp.c)):
        if len(set(x)) >= 2:
            res = stats.linregress(x, y)
            t = float(stats.t.ppf(0.5 + MEAN_CONF / 2, x.size - 2))
            est, half = float(res.intercept), t * float(res.intercept_stderr)
            half = half if math.isfinite(half) else 0.0  # no spread at all (see the floor below)
            how = f"intercept of a regression on 1/d over {len(set(x))} widths; slope {res.slope:.3g} (the 1/d bias)"
        else:
            est, ci, _ = mean_ci(y, MEAN_CONF)
            half = ci[1] - est + 3 * float(np.std(y)) * float(x[0])
            how = "one width: mean with a 3·spread/d bias allowance"
        dev = abs(est - target)
        scale = max(abs(fp.b), 1e-300)
        # floating-point floor: for linear σ the diagonal average and the row sums of G_ℓ are fixed exactly by the
        # normalisation, so the per-seed values have no spread at all
        half = max(half, 1e-10 * scale)
        rows.append(Evidence(f"{label}stationary mean Gram, {what} (d → ∞)", theory=target, numeric=est,
                             ci=(est - half, est + half), confidence=MEAN_CONF, samples=x.size, observed=dev / scale,
                             bound=half / scale, slack=half / dev if dev > 0 else math.inf, passed=dev <= half,
                             note=f"{how}; relative resolution ±{half / scale:.2g} of b*"))
    return rows


def _theorem1_rows(ctx: Context, act: str, n: int, fp: BSB1, runs: dict, label: str = "", eps=None) -> list[Evidence]:
    """The evidence rows for a concentration bound ``D ≲ t(e^{−αℓ/2} + ε ln 1/ε)``; ``eps(d)`` defaults to Theorem 1's ε."""
    widths = sorted(runs)
    eps = eps or (lambda d: epsilon(fp, d))
    rows = []
    if len(widths) > 1:
        rows += _width_rows(eps, runs, widths, label)
    rows += _depth_rows(runs, widths, label)
    if len(widths) > 1:
        rows += _tail_rows(eps, runs, widths, label)
    return rows


def _rate(e: float) -> float:
    return e * math.log(1 / e)


def _width_rows(eps, runs: dict, widths, label: str) -> list[Evidence]:
    """(a) the width exponent of the stationary deviation, and of the implied constant."""
    rows = []
    x, y, xk, yk = [], [], [], []
    for d in widths:
        per_seed = runs[d].mean(axis=1)
        x += [math.log(d)] * per_seed.size
        y += list(np.log(per_seed))
        if eps(d) < 1:  # the rate ε ln(1/ε) is positive only inside the hypothesis ε < 1
            xk += [math.log(d)] * per_seed.size
            yk += list(np.log(per_seed / _rate(eps(d))))
    slope, ci = _slope_ci(x, y)
    eps_lo = eps(widths[-1])
    local = -0.5 * (1 - 1 / math.log(1 / eps_lo))
    rows.append(Evidence(f"{label}width exponent of the stationary max_i|λ_i/λ_i* − 1|", theory=-0.5, numeric=slope,
                         bound=-0.35, observed=ci[1], ci=ci, confidence=CONF, samples=len(x), passed=ci[1] < -0.35,
                         note=f"predicted: −1/2 up to the log factor; holds if the CI's upper end (observed) is below −0.35 "
                              f"(the deviation vanishes at least like d^(−0.35)); the rate ε ln(1/ε) itself has local "
                              f"exponent only {local:.3f} at d = {widths[-1]} (ε = {eps_lo:.3g})"))
    if len(set(xk)) < 2:
        return rows
    kslope, kci = _slope_ci(xk, yk)
    rows.append(Evidence(f"{label}implied constant D/(ε ln 1/ε): exponent in d (must not be > 0)", theory=0.0,
                         numeric=kslope, bound=0.0, observed=kci[0], ci=kci, confidence=CONF, samples=len(x),
                         passed=False if kci[0] > 0 else None,
                         note="violated if the CI's lower end (observed) is above 0 (the constant grows with width); at these "
                              "widths ε ln(1/ε) decays so slowly that this row alone has little power"))
    return rows


def _depth_rows(runs: dict, widths, label: str) -> list[Evidence]:
    """(b) flatness in depth over the stationary window."""
    rows = []
    drifts = []
    for d in widths:
        m = runs[d].mean(axis=0)
        L = np.arange(m.size)
        s, sci = _slope_ci(L, m)
        drifts.append((d, s * m.size / m.mean(), (sci[0] * m.size / m.mean(), sci[1] * m.size / m.mean())))
    worst = max(drifts, key=lambda t: t[2][0])
    rows.append(Evidence(f"{label}relative drift of the deviation over the stationary window (flat in depth)",
                         theory=0.0, numeric=worst[1], bound=0.25, observed=worst[2][0], ci=worst[2], confidence=CONF,
                         passed=False if worst[2][0] > 0.25 else True,
                         note="drift = fitted slope × window / mean; violated if the CI's lower end (observed) exceeds +25%; "
                              + ", ".join(f"d={d}: {v:+.3f}" for d, v, _ in drifts)))
    return rows


def _tail_rows(eps, runs: dict, widths, label: str) -> list[Evidence]:
    """(c) the probabilistic form P{D ≥ t·K·rate} ≤ t⁻² with one K for all widths."""
    widths = [d for d in widths if eps(d) < 1]
    if len(widths) < 2:
        return []
    Ks = {d: _implied_constant(runs[d][:, -1] / _rate(eps(d))) for d in widths}
    grow = Ks[widths[-1]] / Ks[widths[0]]
    return [Evidence(f"{label}implied constant K of P(D ≥ tK·ε ln 1/ε) ≤ t⁻², t ∈ {{1.25, 1.5, 2, 3}}",
                     numeric=Ks[widths[-1]], bound=3, observed=grow, slack=3 / grow,
                     samples=sum(runs[d].shape[0] for d in widths), passed=grow <= 3,
                     note="per width: " + ", ".join(f"d={d}: {k:.3g}" for d, k in Ks.items())
                          + " (last layer of each seed; measured: K at the largest width; observed: its ratio to K at "
                            "the smallest width, violated if K grows more than 3×)")]


def _theorem1_widths(ctx: Context, fp: BSB1, n: int) -> list[int]:
    dmin = max(1000, int(math.ceil(4 * n * n * fp.inverse_norm / 100.0)) * 100)
    k = ctx.pick(2, 3, 4)
    return [min(dmin * 4 ** i, 1 << 17) for i in range(k)]


H_NONDEGENERATE = HypothesisCheck("G* non-degenerate", "the BSB1 fixed point G* = b*((1−c*)I + c*11ᵀ) has no zero "
                                  "eigenvalue (decided from b*, c* after they agree with Monte Carlo on the sphere)")
H_WIDTH = HypothesisCheck("d ≳ n²‖G*⁻¹‖", "every simulated width is at least n²‖G*⁻¹‖")


def check_theorem1(ctx: Context) -> Verdict:
    n = int(ctx.params.get("n", 10))
    acts = P.as_names(ctx.params.get("activations")) or ctx.pick(
        ["relu", "sin"], ["relu", "tanh", "sin", "celu"], list(FAMILY_F))
    rows, outside, judged = [], {}, []
    for act in acts:
        fp = Q.gstar(act, n)
        mc = gstar_mc_rows(ctx, act, n, fp, label="")
        rows += mc
        if all(r.passed for r in mc) and fp.singular:
            G = _chain(ctx, act, 1000, n, 30, 4, ctx.seed, [30])[:, 0]
            lam = np.linalg.eigvalsh(G)
            outside[act] = (H_NONDEGENERATE.name,
                            f"{act}: G* is singular with centring (b* = {fp.b:.4g}, c* = {fp.c:.4g}: eigenvalue "
                            f"{fp.eigenvalue_ones:.2g} on 1, confirmed by Monte Carlo); the simulation agrees: "
                            f"λ_min(G_30) = {np.max(lam[:, 0]):.1e} at d = 1000 while the others sit at "
                            f"{np.median(lam[:, 1:]):.4g} ≈ b*(1 − c*) = {fp.eigenvalue_bulk:.4g}")
            rows.append(Evidence(f"{act}: smallest eigenvalue of G* (outside the hypotheses)", theory=fp.eigenvalue_ones,
                                 numeric=float(np.max(lam[:, 0])), passed=None, note=outside[act][1]))
            continue
        # the design (widths) comes from the Monte Carlo estimate of G*, the independent route: a perturbed theory
        # is then compared with the very same simulations
        fp_mc = BSB1(act, n, mc[0].numeric, mc[1].numeric / mc[0].numeric)
        widths = P.as_widths(ctx.params.get("widths", "auto")) or _theorem1_widths(ctx, fp_mc, n)
        need = n * n * fp.inverse_norm
        grams = _theorem1_grams(ctx, act, n, widths)
        act_rows = stationary_mean_rows(grams, fp, label=f"{act}: ")
        runs = {d: spectral_deviation(G, fp.eigenvalues) for d, G in grams.items()}
        act_rows += _theorem1_rows(ctx, act, n, fp, runs, label=f"{act}: ")
        rows.append(Evidence(f"{act}: the fixed point used, G* = b*((1−c*)I + c*11ᵀ), n = {n}", passed=None,
                             note=f"b* = {fp.b:.10g}, c* = {fp.c:.10g}, ‖G*⁻¹‖ = {fp.inverse_norm:.4g}, κ = "
                                  f"{fp.condition_number:.4g}; widths {widths} (≥ 4 n²‖G*⁻¹‖ where possible)"))
        if min(widths) < need:
            outside[act] = (H_WIDTH.name, f"{act}: d = {min(widths)} < n²‖G*⁻¹‖ = {need:.0f}")
            for r in act_rows:  # outside the hypotheses: shown, but they neither support nor refute
                r.note = (r.note + "; " if r.note else "") + "informational: width below the hypothesis"
                r.passed = None
        else:
            judged.append(act)
        rows += act_rows
    rows += gstar_mc_se_rows(ctx, n)  # the error bars of the Monte Carlo route, against a closed form
    rows += Q.memo(("chain_variants", ctx.budget, ctx.seed), lambda: chain_variant_rows(ctx))
    if not judged and all(r.passed is not False for r in rows):
        first = next(iter(outside.values()))
        raise HypothesisNotMet(first[0], "; ".join(v[1] for v in outside.values()), rows)
    errata = [Erratum("Theorem 1, eq (8) (also Corollary 2 eq 9; Corollaries 6, 7)",
                      "P{∧_i |λ_i/λ_i* − 1| ≳ t(…)} ≥ 1 − t²  (Cor. 6: ≤ t²; Cor. 7: ≲ t²)",
                      "P{∨_i |λ_i/λ_i* − 1| ≥ t·C(e^{−αℓ/2} + ε ln 1/ε)} ≲ t⁻² (as in Theorem 3, eq 11)",
                      "as printed the deviation event has probability at least 1 − t², which for t < 1 says the "
                      "bound fails with high probability; the checked statement is the Chebyshev-type form of "
                      "Theorem 3, whose tails the implied-constant rows test.", "typo")]
    st = status_from_rows(rows)
    skipped = f"; outside the hypotheses: {'; '.join(v[1] for v in outside.values())}" if outside else ""
    left = [a for a in FAMILY_F if a not in acts]
    if left:  # the statement's 𝓕 has six activations: say which this run did not check, and why
        skipped += (f"; of the statement's 𝓕 not checked: {', '.join(left)} ("
                    + ("not requested by --param activations" if ctx.params.get("activations") else
                       f"the {ctx.budget} budget checks {', '.join(acts)}; --budget full checks all six") + ")")
    summary = {HOLDS: f"the stationary mean Gram converges to G* (b*, c* within 99.9% intervals), the spectral "
                      f"deviation shrinks like d^(−1/2), stays flat in depth, and its implied constant is stable "
                      f"across widths ({', '.join(judged)}, n = {n}){skipped}",
               VIOLATED: "G* or the spectral deviation does not follow Theorem 1 / eq (8)" + skipped,
               INCONCLUSIVE: "the fits cannot decide at this budget" + skipped}[st]
    return Verdict(f"{PAPER}:theorem1", st, summary, rows, errata)


DECLARATION.add(Claim(
    PAPER, "theorem1", "Theorem 1: the spectrum of G_ℓ concentrates around that of G*, uniformly in depth",
    "For σ ∈ {relu, tanh, sigmoid, sin, selu, celu}, Assumption 1 with α ∈ (0, 1], G* non-degenerate and "
    "d ≳ n²‖G*⁻¹‖: P{max_i |λ_i/λ_i* − 1| ≳ t(e^{−αℓ/2} + ε ln(1/ε))} ≲ t⁻², ε = n‖G*^{−1/2}‖/√d (eq 8, "
    "probability form corrected — see errata).",
    "Assumption 1 (geometric ergodicity; see bn-finite-width:assumption1), G* non-degenerate, d ≳ n²‖G*⁻¹‖",
    "G* from the BSB1 sphere integrals (Gauss–Jacobi), checked against Monte Carlo on the sphere (99.9% z-test) "
    "before any hypothesis is decided from it; the Monte Carlo standard errors checked on σ = step, where b*, b*c* "
    "have a closed form (χ²/K, 99.9%). The mean-field limit: the stationary mean Gram, regressed on 1/d, "
    "must meet b* and b*c* (99.9% t-intervals). Exact-in-distribution networks at "
    "widths 4^k·max(1000, 4n²‖G*⁻¹‖), after an O(log(d/n)) burn-in: fitted width exponent of the stationary "
    "deviation (95% t-interval over seeds), exponent of the implied constant D/(ε ln 1/ε) in d (must not be "
    "positive), relative drift over the stationary window, and the constant K of the t⁻² tail bound per width. "
    "The chain's two simulators (exact in law, explicit weights) against each other (KS, d = 64, n = 4).",
    check_theorem1, None, "",
    uses=("verify.quantities.gstar (theory.bsb1_fixed_point)", "theory.bsb1_constants_mc", "numerics.simulate_bn_chain"),
    depends_on=("b*", "c*"), hypothesis_checks=(H_NONDEGENERATE, H_WIDTH),
    parameters=(Parameter("activations", P.activation_names, "relu,tanh,sin,celu",
                          "comma-separated activation names or formulas"),
                Parameter("n", P.batch_size(4, P.BATCH_MAX), 10, f"batch size (4 to {P.BATCH_MAX})"),
                Parameter("widths", P.width_list, "auto",
                          f"comma-separated widths, 2 to {P.WIDTH_MAX} (below n²‖G*⁻¹‖: outside the hypotheses)"))))


# =============================================================================================
# Eq (6) and Fig 1a — without BN the mean-field error grows with depth; with BN it stabilises
# =============================================================================================

def _eq6_runs(ctx: Context, n=5, d=1000):
    depth = ctx.pick(300, 600, 1000)
    # E‖G_ℓ − I‖ without BN is heavy-tailed across seeds (sd ≈ 1.5–3.5 at ℓ = 300): 100 seeds keep the
    # Bonferroni lower end of the mean clear of 1, so the structural control (exponent removed) is caught
    seeds = ctx.pick(100, 100, 200)
    layers = list(range(0, depth + 1, 10))
    nob = _chain(ctx, "identity", d, n, depth, seeds, ctx.seed + 1, layers, batchnorm=False, input_cov=np.eye(n))
    bn = _chain(ctx, "identity", d, n, depth, seeds, ctx.seed + 2, layers, input_cov=np.eye(n))
    fp = Q.gstar("identity", n)
    gstar = fp.gram
    e_nob = np.linalg.norm(nob - np.eye(n), ord=2, axis=(-2, -1))
    f_nob = np.linalg.norm(nob - np.eye(n), axis=(-2, -1))
    f_bn = np.linalg.norm(bn - gstar, axis=(-2, -1))
    stationary = bn[:, np.array(layers) >= 50]
    return np.array(layers), e_nob, f_nob, f_bn, n, d, seeds, stationary_mean_rows({d: stationary}, fp, "with BN: ")


def _eq6_figure(ctx: Context) -> dict:
    """Fig 1a: ‖G_ℓ − I‖ without BN under eq (6)'s bound, ‖G_ℓ − G*‖_F with BN (PNG + PDF + CSV)."""
    L, e_nob, f_nob, f_bn, n, d, seeds, _ = _eq6_runs(ctx)
    m1, lo1, hi1 = mean_band(e_nob, CONF)
    m2, lo2, hi2 = mean_band(f_nob, CONF)
    m3, lo3, hi3 = mean_band(f_bn, CONF)
    files = write_figure(ctx.artefact_dir, "bn_finite_width_figure1a", [
        Panel("without BN (eq 6)", r"layer $\ell$", r"$\|G_\ell - I_n\|_2$", [
            Series(r"no BN, linear $\sigma$", L, m1, "simulation", "no BN", lo1, hi1),
            Series(r"eq (6): $\exp(3n\ell/2d)$", L, np.exp(3 * n * L / (2 * d)), "bound", "no BN")], logy=True),
        Panel("mean-field error with and without BN (Fig 1a)", r"layer $\ell$", "Frobenius error", [
            Series(r"no BN: $\|G_\ell - I_n\|_F$", L, m2, "simulation", "no BN", lo2, hi2),
            Series(r"BN: $\|G_\ell - G_*\|_F$", L, m3, "simulation", "BN", lo3, hi3)], logy=True)],
        f"n = {n}, d = {d}, linear activation, {seeds} seeds, budget {ctx.budget}; bands: 95% t-intervals over seeds")
    return {f"figure1a_{k}": v for k, v in files.items()}


def _eq6_rows(ctx: Context, bound_factor: float = 1.0) -> list[Evidence]:
    L, e_nob, f_nob, f_bn, n, d, seeds, mean_rows = _eq6_runs(ctx)
    half = L >= L[-1] // 4
    early = L >= 10
    g, gci = _slope_ci(np.repeat(L[early][None], seeds, 0).ravel(), np.log(f_nob[:, early]).ravel())
    g2, _ = _slope_ci(np.repeat(L[half][None], seeds, 0).ravel(), np.log(f_nob[:, half]).ravel())
    b, bci = _slope_ci(np.repeat(L[half][None], seeds, 0).ravel(), np.log(f_bn[:, half]).ravel())
    mean_e = e_nob.mean(0)
    # violated only where the mean is significantly above the bound: the lower end of its interval, one-sided
    # 1 − 0.01/(number of layers) (Bonferroni over the layers: ≤ 1% family-wise false violations)
    level = 1 - 2 * 0.01 / L.size
    lower = np.array([mean_ci(e_nob[:, i], level)[1][0] for i in range(L.size)])
    bound = np.exp(bound_factor * 3 * n * L / (2 * d))
    worst = float(np.max(lower / bound))
    crit = int(np.argmax(lower / bound))  # the layer closest to violating the bound
    closest = float(np.max(mean_e / bound))
    return mean_rows + [
        Evidence("no BN: growth rate of log ‖G_ℓ − I‖_F per layer (10 ≤ ℓ ≤ L)", theory=3 * n / (2 * d), numeric=g,
                 ci=gci, confidence=CONF, samples=seeds, passed=gci[0] > 0,
                 note=f"the error grows with depth (CI > 0): {f_nob.mean(0)[0]:.3g} at ℓ = 0 → {f_nob.mean(0)[-1]:.3g} "
                      f"at ℓ = {L[-1]}; theory column: eq (6)'s exponent 3n/(2d). The growth decelerates (rate over "
                      f"ℓ ≥ L/4: {g2:.2g}/layer): diffusive rather than exponential at these depths, far below eq (6)"),
        Evidence("with BN (linear σ): growth rate of log ‖G_ℓ − G*‖_F per layer (ℓ ≥ L/4)", theory=0.0, numeric=b,
                 ci=bci, confidence=CONF, samples=seeds, passed=abs(b) * L[-1] < 0.25,
                 note=f"flat: total drift over the window {b * L[-1]:+.3f} in log (criterion |·| < 0.25); "
                      f"mean error {f_bn.mean():.3g}"),
        Evidence(f"eq (6): E‖G_ℓ − I_n‖ ≤ exp({bound_factor:g}·3nℓ/2d) at every layer (lower end of the mean's interval)",
                 bound=float(bound[crit]), observed=float(lower[crit]), slack=1 / worst if worst > 0 else math.inf,
                 confidence=1 - 0.01 / L.size, samples=seeds, passed=worst <= 1.0,
                 note=f"bound and observed at the layer closest to the bound, ℓ = {L[crit]}; largest mean/bound over "
                      f"the layers {closest:.3f} (the bound is nearly tight at these sizes); "
                      f"violated only if the one-sided {100 * (1 - 0.01 / L.size):.3g}% lower end exceeds the bound at "
                      "some layer (Bonferroni over the layers)"),
    ]


def check_eq6(ctx: Context) -> Verdict:
    return Verdict.judged(f"{PAPER}:eq6", _eq6_rows(ctx), "without BN the mean-field error grows with depth (within "
                          "eq (6)'s bound); with BN it is flat (n = 5, d = 1000, linear activation)",
                          "Fig 1a / eq (6) not reproduced", artefacts=_eq6_figure(ctx) if ctx.artefact_dir else {})


def control_eq6(ctx: Context) -> Verdict:
    rows = [r for r in _eq6_rows(ctx, bound_factor=0.0) if r.name.startswith("eq (6)")]
    return _control("eq6", rows, "eq (6) with the exponent removed (E‖G_ℓ − I‖ ≤ 1)")


DECLARATION.add(Claim(
    PAPER, "eq6", "Eq (6) and Fig 1a: without BN the mean-field error grows with depth; with BN it stabilises",
    "Linear MLP without normalisation: E‖G_ℓ − I_n‖ ≤ exp(3nℓ/2d) and ‖G_ℓ − G*‖ grows with ℓ; with BN it stays "
    "bounded (Fig 1a: n = 5, d = 1000).",
    "σ = identity; inputs with covariance I_n",
    "Exact-in-distribution chains with and without BN, 100 seeds (200 at full): fitted growth rate of the log error over the last "
    "3/4 of the depth (95% t-interval), and eq (6) against the upper confidence bound of the mean error.",
    check_eq6, control_eq6, "eq (6) with its exponent removed",
    depends_on=("b*", "c*"),
    uses=("numerics.simulate_bn_chain", "theory.bsb1_constants"), aliases=("figure1a",)))


# =============================================================================================
# Fig 1b — the stationary error ∝ d^{−1/2}, below 2n/√d (linear activation, n = 10)
# =============================================================================================

def _figure1b_rows(ctx: Context, exponent: float = -0.5) -> tuple[list[Evidence], dict]:
    n = 10
    widths = ctx.pick([200, 800, 3200], [100, 200, 400, 800, 1600, 3200], [100, 200, 400, 800, 1600, 3200, 6400])
    depth = ctx.pick(200, 600, 600)
    fp = Q.gstar("identity", n)
    gstar = fp.gram
    x, y, data, over, grams, band = [], [], {}, [], {}, {}
    for i, d in enumerate(widths):
        ctx.progress(f"Fig 1b: d = {d}", i / len(widths))
        seeds = ctx.pick(4, 10, 20)
        G = grams[d] = _chain(ctx, "identity", d, n, depth, seeds, ctx.seed + d, range(41, depth))
        e = np.linalg.norm(G - gstar, axis=(-2, -1)).mean(axis=1)  # average over 40 < ℓ < depth, per seed
        x += [math.log(d)] * seeds
        y += list(np.log(e))
        data[d] = float(e.mean())
        band[d] = mean_ci(e, CONF)[1]
        if e.mean() > 2 * n / math.sqrt(d):
            over.append(d)
    s, ci = _slope_ci(x, y)
    rows = [Evidence("width exponent of the average ‖G_ℓ − G*‖_F over 40 < ℓ < L", theory=exponent, numeric=s, ci=ci,
                     confidence=CONF, samples=len(x), passed=ci[0] <= exponent + 0.05 and ci[1] >= exponent - 0.05,
                     note="holds if the CI meets [θ − 0.05, θ + 0.05] (θ the predicted exponent; ±0.05 allows the "
                          "O(d^(−1/2)) relative corrections to the leading order); mean error: "
                          + ", ".join(f"d={d}: {v:.3g}" for d, v in data.items())),
            Evidence("below the dashed line 2n/√d at every width", theory=0, numeric=len(over), samples=len(widths),
                     passed=not over, note=f"widths above the line: {over}" if over else "")]
    if ctx.artefact_dir:
        ws = np.array(widths, dtype=float)
        lo, hi = np.array([band[d][0] for d in widths]), np.array([band[d][1] for d in widths])
        fit = math.exp(np.mean(np.array(y) - s * np.array(x)))
        files = write_figure(ctx.artefact_dir, "bn_finite_width_figure1b", [Panel(
            "stationary mean-field error vs width (Fig 1b)", "width $d$",
            r"mean of $\|G_\ell - G_*\|_F$, $40 < \ell < L$", [
                Series("BN-MLP, linear $\\sigma$", ws, [data[d] for d in widths], "simulation", "identity",
                       lo, hi),
                Series(f"fit $\\propto d^{{{s:.3f}}}$", ws, fit * ws ** s, "theory", "fit"),
                Series(r"$2n/\sqrt{d}$", ws, 2 * n / np.sqrt(ws), "bound", "bound")], logx=True, logy=True)],
            f"n = {n}, depth {depth}, seeds per width {ctx.pick(4, 10, 20)}, budget {ctx.budget}; "
            "band: 95% t-interval over seeds")
        data = {**data, **{f"plot_{k}": v for k, v in files.items()}}
    return stationary_mean_rows(grams, fp, label="linear σ: ") + rows, data


def check_figure1(ctx: Context) -> Verdict:
    rows, data = _figure1b_rows(ctx)
    plots = {k[5:]: data.pop(k) for k in [k for k in data if isinstance(k, str) and k.startswith("plot_")]}
    return Verdict.judged(f"{PAPER}:figure1", rows, "the stationary error of BN-MLP (linear σ, n = 10) scales as "
                          "d^(−1/2) and stays under 2n/√d", "Fig 1b not reproduced",
                          artefacts={"figure1b_mean_error_by_width": data,
                                     **{f"figure1b_{k}": v for k, v in plots.items()}})


def control_figure1(ctx: Context) -> Verdict:
    rows, _ = _figure1b_rows(ctx, exponent=-1.0)
    return _control("figure1", [r for r in rows if r.name.startswith("width exponent")],
                    "the width exponent −1 instead of −1/2")


DECLARATION.add(Claim(
    PAPER, "figure1", "Fig 1b: the stationary mean-field error of BN-MLP is ∝ d^(−1/2), below 2n/√d",
    "BN-MLP with linear activation, n = 10: the average of ‖G_ℓ − G*‖_F over 40 < ℓ < 600 decays as d^(−1/2) and "
    "lies below 2n/√d.",
    "σ = identity (G* = n/(n−1)·(I − 11ᵀ/n) is singular but the Frobenius distance is defined)",
    "Exact-in-distribution chains at widths 100…3200, seeds averaged over the stationary window; fitted exponent "
    "with a 95% t-interval must meet [−0.55, −0.45].",
    check_figure1, control_figure1, "the exponent −1 must be rejected by the same fit",
    depends_on=("b*", "c*"),
    uses=("numerics.simulate_bn_chain",), aliases=("figure1b",)))


# =============================================================================================
# Corollary 8 and Section 6.1 — the spectrum of G* and of deep G_ℓ
# =============================================================================================

def check_corollary8(ctx: Context) -> Verdict:
    n = 10
    rows, errata = [], []
    acts = ctx.pick(["relu", "tanh"], list(FAMILY_F), list(FAMILY_F))
    for act in acts:
        fp = Q.gstar(act, n)
        rows += gstar_mc_rows(ctx, act, n, fp)
        # deep layers: n−1 eigenvalues near c = b*(1 − c*), within O(sqrt(n/d))
        consts = {}
        for d in ctx.pick([2000, 8000], [2000, 8000, 32000], [2000, 8000, 32000]):
            G = _chain(ctx, act, d, n, 40, ctx.pick(4, 8, 16), ctx.seed + d, [40])[:, 0]
            w, v = np.linalg.eigh(G)
            ones = np.ones(n) / math.sqrt(n)
            k = np.argmax(np.abs(np.einsum("sij,i->sj", v, ones)), axis=1)  # the eigenvector along 1
            mask = np.ones_like(w, dtype=bool)
            mask[np.arange(w.shape[0]), k] = False
            bulk = w[mask].reshape(w.shape[0], n - 1)
            consts[d] = float(np.max(np.abs(bulk / fp.eigenvalue_bulk - 1)) / math.sqrt(n / d))
            ones_eig = float(w[np.arange(w.shape[0]), k].mean())
        rows.append(Evidence(f"{act}: max |λ_i/(b*(1−c*)) − 1| / sqrt(n/d) over the n−1 bulk eigenvalues (ℓ = 40)",
                             bound=min(3 * min(consts.values()), 10.0), observed=max(consts.values()),
                             passed=max(consts.values()) <= 3 * min(consts.values()) and max(consts.values()) < 10,
                             note="implied constant per width: " + ", ".join(f"d={d}: {c:.3g}" for d, c in consts.items())
                                  + "; observed: the largest; bound: 3× the smallest (width-stable), at most 10"))
        rows.append(Evidence(f"{act}: eigenvalue along 1: b*(1 + (n−1)c*) vs the printed c*·n", theory=fp.eigenvalue_ones,
                             numeric=ones_eig, passed=None,
                             note=f"measured: the simulated mean at the largest width; the printed c*·n = {fp.c * n:.6g}; "
                                  f"b*(1 + (n−1)c*) is the {'largest' if fp.eigenvalue_ones > fp.eigenvalue_bulk else 'smallest'} eigenvalue of G*"))
    rows += gstar_mc_se_rows(ctx, n)
    errata.append(Erratum("Section 6.1 (before Corollary 8)", "λ_1* = c* n is the largest eigenvalue; λ_2* = … = λ_n* = b*(1 − c*)",
                          "the eigenvalue along 1 is b*(1 + (n − 1)c*); it is the largest only when c* > 0",
                          "G* = b*((1 − c*)I + c*11ᵀ) has G*1 = b*(1 + (n−1)c*)1. For relu, n = 10: b*(1+9c*) = "
                          f"{Q.gstar('relu', n).eigenvalue_ones:.4f} vs c*n = {Q.gstar('relu', n).c * n:.4f}; "
                          f"for tanh c* = {Q.gstar('tanh', n).c:.4f} < 0 and that eigenvalue "
                          f"({Q.gstar('tanh', n).eigenvalue_ones:.4f}) is the smallest. Simulated G_40 agrees "
                          "with b*(1 + (n−1)c*) (evidence rows).", "error"))
    st = status_from_rows(rows)
    return Verdict(f"{PAPER}:corollary8", st, "G* from two routes agrees; deep G_ℓ has n − 1 eigenvalues within "
                   "O(sqrt(n/d)) of b*(1 − c*) with a width-stable constant" if st == HOLDS
                   else "Corollary 8 not reproduced", rows, errata,
                   tables=[(f"Stable Gram matrix G* = b*((1−c*)I + c*11ᵀ), n = {n}",
                            ["σ", "b*", "c*", "λ on 1", "λ bulk", "‖G*⁻¹‖", "κ(G*)"],
                            [[a, *(f"{v:.6g}" for v in (f.b, f.c, f.eigenvalue_ones, f.eigenvalue_bulk, f.inverse_norm,
                                                        f.condition_number))]
                             for a, f in ((a, Q.gstar(a, n)) for a in FAMILY_F)])])


def control_corollary8(ctx: Context) -> Verdict:
    n, act = 10, "relu"
    fp = Q.gstar(act, n)
    G = numerics.simulate_bn_chain(act, 8000, n, 40, 4, layers=[40], seed=ctx.seed).cpu().numpy()[:, 0]
    ones_eig = float(np.max(np.linalg.eigvalsh(G), axis=1).mean())
    rel = abs(ones_eig / (fp.c * n) - 1)
    rows = [Evidence("printed λ_1* = c*·n vs the simulated top eigenvalue (d = 8000)", theory=fp.c * n, numeric=ones_eig,
                     passed=rel < 4 * math.sqrt(n / 8000))]
    return _control("corollary8", rows, "the printed λ_1* = c* n")


DECLARATION.add(Claim(
    PAPER, "corollary8", "Corollary 8 and Section 6.1: the spectrum of G* and of deep G_ℓ",
    "For well-conditioned G*, for ℓ ≳ log(d/α), n − 1 eigenvalues of G_ℓ lie in c(1 ± O(sqrt(n/d))) with c depending "
    "only on σ; G* = b*((1 − c*)I + c*11ᵀ) (eq 16).",
    "G* well conditioned",
    "b*, c* by Gauss–Jacobi quadrature of the sphere integrals against Monte Carlo; simulated G_40 at three widths: "
    "the bulk deviation divided by sqrt(n/d) must be width-stable; the eigenvalue along 1 compared with the printed "
    "one; the Monte Carlo standard errors checked on σ = step, where b*, b*c* have a closed form (χ²/K, 99.9%).",
    check_corollary8, control_corollary8, "the printed λ_1* = c*·n must be rejected by the simulated spectrum",
    depends_on=("b*", "c*"),
    uses=("theory.bsb1_constants", "theory.bsb1_constants_mc", "numerics.simulate_bn_chain")))


# =============================================================================================
# Assumption 1 — geometric decay of the transitory term
# =============================================================================================

def _two_cluster(n: int) -> np.ndarray:
    h = n // 2
    C = np.zeros((n, n))
    C[:h, :h] = 0.99
    C[h:, h:] = 0.99
    return C + 0.01 * np.eye(n)


def _assumption1_rows(ctx: Context, batchnorm: bool = True) -> list[Evidence]:
    n, d = 10, ctx.pick(2000, 4000, 8000)
    seeds = ctx.pick(10, 20, 40)
    act = "relu" if batchnorm else "identity"
    # the reference spectrum only: the decay of D_ℓ − D_∞ towards its floor does not depend on it (not a declared quantity)
    fp = theory.bsb1_constants("relu", n) if batchnorm else BSB1("identity", n, 1.0, 0.0)
    G = numerics.simulate_bn_chain(act, d, n, 40, seeds, input_cov=_two_cluster(n), batchnorm=batchnorm,
                                   seed=ctx.seed + 5, device=ctx.device).cpu().numpy()
    D = spectral_deviation(G, fp.eigenvalues)
    m = D.mean(0)
    floor, floor_ci, _ = mean_ci(D[:, 25:].ravel())
    se = D.std(0) / math.sqrt(seeds)
    excess = m - floor
    idx = [i for i in range(m.size) if excess[i] > 3 * (se[i] + (floor_ci[1] - floor))]
    # the first contiguous run of layers above the floor
    run = []
    for i in idx:
        if run and i != run[-1] + 1:
            break
        run.append(i)
    if len(run) < 3:
        return [Evidence("geometric decay of the transitory term", numeric=len(run), passed=False if not batchnorm else None,
                         note="fewer than 3 layers above the stationary floor: no geometric decay seen; the hypothesis "
                              "is not supported by this run")]
    rate, ci = _slope_ci(np.array(run, float), np.log(excess[run]))
    rho = math.exp(rate)
    alpha_tv = 1 - rho ** 2            # (1 − α)^{ℓ/2} per layer
    alpha_exp = -2 * rate              # e^{−αℓ/2} per layer
    r2 = stats.linregress(np.array(run, float), np.log(excess[run])).rvalue ** 2
    return [Evidence(f"transitory term: per-layer contraction of D_ℓ − D_∞ ({'relu, BN' if batchnorm else 'no BN'}), "
                     f"layers {run[0]}–{run[-1]}", numeric=rho, ci=(math.exp(ci[0]), math.exp(ci[1])), confidence=CONF,
                     samples=seeds, passed=ci[1] < 0 and r2 > 0.9,
                     note=f"α from (1 − α)^(ℓ/2): {alpha_tv:.3f}; from e^(−αℓ/2): {alpha_exp:.3f}; log-linear fit R² = "
                          f"{r2:.3f}; stationary floor D_∞ = {floor:.3g}; input: two clusters of 5 samples (ρ = 0.99 "
                          f"within, 0 across), n = {n}, d = {d}")]


def check_assumption1(ctx: Context) -> Verdict:
    rows = _assumption1_rows(ctx)
    st = status_from_rows(rows)
    if st == INCONCLUSIVE:
        return Verdict(f"{PAPER}:assumption1", INCONCLUSIVE, "no geometric decay seen: Assumption 1 not supported", rows)
    return Verdict(f"{PAPER}:assumption1", st, f"the transitory term decays geometrically ({rows[0].note.split(';')[0]})"
                   if st == HOLDS else "the transitory term does not decay geometrically", rows)


def control_assumption1(ctx: Context) -> Verdict:
    return _control("assumption1", _assumption1_rows(ctx, batchnorm=False), "the chain without batch norm")


DECLARATION.add(Claim(
    PAPER, "assumption1", "Assumption 1: geometric ergodicity — the transitory term decays at rate (1 − α)",
    "‖μ_ℓ − μ*‖_tv ≤ (1 − α)^ℓ ‖μ_0 − μ*‖_tv for some α > 0; observable consequence: the Gram deviation decays "
    "geometrically to its stationary level.",
    "an input far from the BSB1 fixed point",
    "From a two-cluster input (n = 10), the mean spectral deviation over seeds minus its stationary level, fitted "
    "log-linearly over the layers where it exceeds 3 standard errors; α estimated with a 95% CI. If fewer than three "
    "layers are above the floor, the hypothesis is reported as not supported.",
    check_assumption1, control_assumption1, "the chain without batch norm (no geometric decay)",
    uses=("numerics.simulate_bn_chain", "theory.bsb1_constants")))


# =============================================================================================
# Corollary 2 (eq 9) — two inputs through the same network have the same spectrum
# =============================================================================================

def _corollary2_rows(ctx: Context, batchnorm: bool = True) -> list[Evidence]:
    n = 10
    act = "relu" if batchnorm else "identity"
    fp = theory.bsb1_constants("relu", n)  # design only (the widths): the statement itself does not involve G*
    C1 = 0.5 * np.eye(n) + 0.5
    C2 = _two_cluster(n)
    widths = _theorem1_widths(ctx, fp, n)
    x, y = [], []
    for i, d in enumerate(widths):
        burn = int(math.ceil(3 * math.log(d / n))) + 10
        window = ctx.pick(10, 20, 40)
        seeds = max(ctx.pick(8, 16, 32) * widths[0] // d, 6)
        G, G2 = numerics.simulate_bn_chain(act, d, n, burn + window, seeds, input_cov=C1, paired_input=C2,
                                           seed=ctx.seed + 11 * i, device=ctx.device, batchnorm=batchnorm,
                                           layers=range(burn, burn + window + 1))
        lam = np.sort(np.linalg.eigvalsh(G.cpu().numpy()), axis=-1)[..., ::-1]
        lam2 = np.sort(np.linalg.eigvalsh(G2.cpu().numpy()), axis=-1)[..., ::-1]
        with np.errstate(divide="ignore", invalid="ignore"):
            D = np.max(np.abs(lam / np.where(lam2 > 1e-9 * lam2[..., :1], lam2, np.nan) - 1), axis=-1)
        D = np.where(np.isfinite(D), D, 1e6)  # a vanishing λ'_i: the ratio is unbounded
        per_seed = D.mean(axis=1)
        x += [math.log(d)] * per_seed.size
        y += list(np.log(per_seed))
    s, ci = _slope_ci(x, y)
    return [Evidence("width exponent of the stationary max_i |λ_i/λ'_i − 1| (two inputs, one network)", theory=-0.5,
                     numeric=s, ci=ci, confidence=CONF, samples=len(x), passed=ci[1] < -0.2 and ci[0] <= -0.4,
                     note=f"holds if the CI lies below −0.2 (the deviation vanishes) and meets −0.4 (compatible with "
                          f"−1/2); {act}{'' if batchnorm else ' without BN'}, n = {n}, widths {widths}; inputs: "
                          "equicorrelated 0.5 and two clusters")]


def check_corollary2(ctx: Context) -> Verdict:
    return Verdict.judged(f"{PAPER}:corollary2", _corollary2_rows(ctx), "the spectra of two inputs' Gram matrices in "
                          "one network agree up to a deviation vanishing like d^(−1/2), without using G*",
                          "Corollary 2 not reproduced")


def control_corollary2(ctx: Context) -> Verdict:
    return _control("corollary2", _corollary2_rows(ctx, batchnorm=False), "the same two inputs through a network without BN")


DECLARATION.add(Claim(
    PAPER, "corollary2", "Corollary 2: two inputs through the same BN-MLP get the same spectrum",
    "P{max_i |λ_i/λ'_i − 1| ≳ t(e^{−αℓ/2} + ε ln 1/ε)} ≲ t⁻² for G_0, G'_0 non-degenerate (eq 9, probability form "
    "corrected as for Theorem 1).",
    "as Theorem 1; both inputs non-degenerate",
    "Both batches simulated jointly through the same weights (exact in distribution, 2n columns, batch norm per "
    "batch); fitted width exponent of the stationary eigenvalue-ratio deviation (95% t-interval).",
    check_corollary2, control_corollary2, "the same two inputs through a linear network without BN must be flagged",
    uses=("numerics.simulate_bn_chain",)))


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
        fp = Q.gstar(act, n)
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


def check_poster_theorem2(ctx: Context) -> Verdict:
    rows = _poster_rows(ctx)
    st = status_from_rows(rows)
    return Verdict(f"{PAPER}:poster-theorem2", st, "G_ℓ converges in mean to G* at every batch size (99.9% intervals); the "
                   "stationary Frobenius error's batch-size exponent and implied constant are reported, not judged "
                   "(the rate's n-dependence involves the unmeasured α(n))" if st == HOLDS
                   else "the stationary Gram does not converge to G* at some batch size",
                   rows)


def control_poster_theorem2(ctx: Context) -> Verdict:
    return _control("poster-theorem2", [r for r in _poster_rows(ctx, n_exponent=0.5, window=(0.35, 0.65))
                                        if r.name.startswith("batch-size exponent")],
                    "batch-size exponent 1/2 instead of 1")


DECLARATION.add(Claim(
    PAPER, "poster-theorem2", "Poster Theorem 2: ‖G* − G_ℓ‖_F = O(κ(G*)(1−α)^{ℓ/2} + (n/√d)α^{−1/2} ln^{1/2}(d/n))",
    "Under geometric ergodicity, non-degenerate G*, |σ(x)| = O(|x|): the explicit rate above holds w.h.p.",
    "as Theorem 1",
    "The batch-size dependence at fixed width (fitted exponent of the stationary Frobenius error, 95% t-interval) and "
    "the implied constant error/((n/√d) ln^{1/2}(d/n)) across n; the width dependence is checked under theorem1.",
    check_poster_theorem2, control_poster_theorem2, "the batch-size exponent 1/2 must be rejected",
    depends_on=("b*", "c*"),
    uses=("theory.bsb1_constants", "numerics.simulate_bn_chain")))


# =============================================================================================
# Fig 2 — eigenvalues of G_ℓ vs the Marchenko–Pastur law (n = 20, d = 500, ℓ = 10)
# =============================================================================================

def _figure2_rows(ctx: Context, ratio_factor: float = 1.0, acts=("relu", "selu", "celu", "tanh", "sin", "sigmoid"),
                  batchnorm: bool = True, ell: int = 10, figure: dict | None = None) -> list[Evidence]:
    """KS distance to MP(y = ratio_factor·n/d) of the pooled, median-normalised bulk eigenvalues."""
    from theory.batchnorm import marchenko_pastur_cdf
    n, d = 20, 500
    seeds = ctx.pick(100, 300, 1000)
    rng = np.random.default_rng([ctx.seed, 2])
    ref = []
    for _ in range(seeds):  # the finite-n reference: exact Wishart bulk, same sizes
        Z = rng.standard_normal((d, n))
        w = np.linalg.eigvalsh(Z.T @ Z / d)
        ref += list(w / np.median(w))
    cdf = lambda v: marchenko_pastur_cdf(v * mp_median, ratio_factor * n / d)  # noqa: E731
    grid = np.linspace(0.3, 2.0, 2000)
    F = marchenko_pastur_cdf(grid, ratio_factor * n / d)
    mp_median = float(np.interp(0.5, F, grid))
    d_ref = stats.kstest(ref, cdf).statistic
    rows = []
    for act in acts:
        G = numerics.simulate_bn_chain(act, d, n, ell, seeds, layers=[ell], seed=ctx.seed + 3, batchnorm=batchnorm,
                                       input_cov=None if batchnorm else np.eye(n), device=ctx.device).cpu().numpy()[:, 0]
        w, v = np.linalg.eigh(G)
        k = np.argmax(np.abs(v.sum(axis=1)), axis=1)  # drop the eigenvalue along 1 (set by σ's mean)
        mask = np.ones_like(w, dtype=bool)
        mask[np.arange(w.shape[0]), k] = False
        bulk = w[mask].reshape(w.shape[0], n - 1)
        norm = (bulk / np.median(bulk, axis=1, keepdims=True)).ravel()
        ks = stats.kstest(norm, cdf).statistic
        spread = float(norm.std())
        if figure is not None:
            figure.setdefault("bulk", {})[act] = norm
        rows.append(Evidence(f"{act}: KS distance of median-normalised bulk eigenvalues to Marchenko–Pastur (y = {ratio_factor * n / d:g})",
                             bound=d_ref + 0.05, observed=ks, statistic="KS", samples=norm.size,
                             passed=ks <= d_ref + 0.05,
                             note=f"critical value: the KS distance of an exact Wishart bulk of the same size, {d_ref:.4f} "
                                  f"(the best possible at n = 20), + 0.05; spread (std) {spread:.3f} vs MP "
                                  f"√y = {math.sqrt(ratio_factor * n / d):.3f}, i.e. an effective ratio y ≈ "
                                  f"{spread ** 2:.3f} = {spread ** 2 * d / n:.2f}·n/d"))
    if figure is not None:
        figure.update(n=n, d=d, seeds=seeds, ell=ell, ref=np.asarray(ref), grid=grid, mp_median=mp_median, d_ref=d_ref,
                      y=ratio_factor * n / d)
    return rows


def _figure2_plot(ctx: Context, fig: dict) -> dict:
    """Fig 2: histograms of the median-normalised bulk of G_10 against Marchenko–Pastur (and an exact Wishart bulk)."""
    from theory.batchnorm import marchenko_pastur_cdf
    bins = np.linspace(0.0, 2.6, 53)
    mid = (bins[1:] + bins[:-1]) / 2
    x = np.linspace(0.05, 2.55, 400)
    # MP density of the median-normalised eigenvalue v = λ/median: d/dv F(v·median)
    F = marchenko_pastur_cdf(x * fig["mp_median"], fig["y"])
    dens = np.gradient(F, x)
    ref_h = np.histogram(fig["ref"], bins, density=True)[0]
    panels = []
    acts = list(fig["bulk"])
    for part in (acts[: (len(acts) + 1) // 2], acts[(len(acts) + 1) // 2:]):
        if not part:
            continue
        series = [Series(f"Marchenko–Pastur, $y = n/d = {fig['y']:g}$", x, dens, "theory", "MP"),
                  Series("exact Wishart bulk (same $n$, $d$)", mid, ref_h, "bound", "Wishart")]
        series += [Series(a, mid, np.histogram(fig["bulk"][a], bins, density=True)[0], "simulation", a) for a in part]
        panels.append(Panel(r"bulk eigenvalues of $G_{%d}$ / median" % fig["ell"], r"$\lambda / \mathrm{median}$",
                            "density", series))
    files = write_figure(ctx.artefact_dir, "bn_finite_width_figure2", panels,
                         f"n = {fig['n']}, d = {fig['d']}, layer {fig['ell']}, {fig['seeds']} networks per activation, "
                         f"budget {ctx.budget}; the eigenvalue along the all-ones vector is dropped; the spike at 1 is the "
                         "median itself (one of the n − 1 bulk eigenvalues of every network)")
    return {f"figure2_{k}": v for k, v in files.items()}


def check_figure2(ctx: Context) -> Verdict:
    fig: dict = {}
    rows = _figure2_rows(ctx, figure=fig)
    st = status_from_rows(rows)
    errata = []
    if st == VIOLATED:
        errata.append(Erratum("Section 6.1 and Fig 2 (also the poster's Observation)",
                              "the eigenvalues of G_ℓ accurately follow the Marchenko–Pastur law with γ = n/d",
                              "at ℓ = 10 the bulk is MP-shaped but 1.5–2.3× wider than MP(n/d)",
                              "n = 20, d = 500, " + "; ".join(f"{r.name.split(':')[0]}: KS {r.observed:.3f} vs "
                                                              f"{fig['d_ref']:.3f} for exact Wishart" for r in rows)
                              + ". One Wishart step gives MP; at depth the fluctuations of the earlier layers add up "
                                "(the stationary law of the chain), so G_ℓ is wider than a single Wishart matrix.",
                              "error"))
    return Verdict(f"{PAPER}:figure2", st, "the bulk spectrum of G_10 follows Marchenko–Pastur with y = n/d as closely as "
                   "an exact Wishart matrix does, for all six activations" if st == HOLDS else
                   "not reproduced: the bulk of G_10 is markedly wider than Marchenko–Pastur with y = n/d (see errata)",
                   rows, errata, artefacts=_figure2_plot(ctx, fig) if ctx.artefact_dir else {})


def control_figure2(ctx: Context) -> Verdict:
    return _control("figure2", _figure2_rows(ctx, acts=("identity",), batchnorm=False),
                    "the same test on the chain without batch norm (linear)")


def positive_figure2(ctx: Context) -> Verdict:
    return _control("figure2", _figure2_rows(ctx, acts=("identity",), batchnorm=False, ell=0),
                    "the same test on G_0 = h_0ᵀh_0/d of the chain without BN from input I: a Wishart matrix, so "
                    "Marchenko–Pastur holds")


DECLARATION.add(Claim(
    PAPER, "figure2", "Fig 2: eigenvalues of G_ℓ follow the Marchenko–Pastur law (n = 20, d = 500, ℓ = 10)",
    "The median-normalised eigenvalues of G_10 follow Marchenko–Pastur with γ = n/d, for relu, selu, celu, tanh, sin, "
    "sigmoid.",
    "the eigenvalue along 1 (set by the activation's mean) is excluded from the bulk",
    "Pooled bulk eigenvalues over many networks, Kolmogorov–Smirnov distance to the Marchenko–Pastur CDF compared "
    "with that of exact Wishart matrices of the same size.",
    check_figure2, control_figure2, "the same test applied to the chain without batch norm",
    positive_control=positive_figure2,
    positive_control_description="the same KS test on G_0 = h_0ᵀh_0/d without BN, input I (exactly Wishart: MP holds)",
    uses=("numerics.simulate_bn_chain", "theory.batchnorm.marchenko_pastur_cdf")))


# =============================================================================================
# Theorem 3 (eq 11), Corollaries 6 (eq 17) and 7 (eq 18) — the same concentration in other norms
# =============================================================================================

def _relative_frobenius(fp: BSB1):
    Ginv = np.linalg.inv(fp.gram)
    return lambda G: np.linalg.norm(Ginv @ G - np.eye(fp.n), axis=(-2, -1))


def _eigen_l2(fp: BSB1):
    lam_star = fp.eigenvalues
    return lambda G: np.sqrt(np.sum((np.sort(np.linalg.eigvalsh(G), axis=-1)[..., ::-1] - lam_star) ** 2, axis=-1))


def _frobenius(fp: BSB1):
    return lambda G: np.linalg.norm(G - fp.gram, axis=(-2, -1))


_NORM_CLAIMS = {  # name → (metric factory, ε(d) given (fp, γ), description)
    "theorem3": (_relative_frobenius, lambda fp, g, d: fp.n * g * math.sqrt(fp.inverse_norm) / math.sqrt(d),
                 "‖G*⁻¹G_ℓ − I‖_F", "ε = nγ‖G*^(−1/2)‖/√d with γ the certified distortion of eq (10)"),
    "corollary6": (_eigen_l2, lambda fp, g, d: fp.n / math.sqrt(d), "sqrt(Σ_i (λ_i − λ_i*)²)", "ε = n/√d"),
    "corollary7": (_frobenius, lambda fp, g, d: fp.n / math.sqrt(d), "‖G_ℓ − G*‖_F", "ε = n/√d"),
}


def _norm_claim_check(name: str, ctx: Context) -> Verdict:
    factory, eps_of, norm, eps_text = _NORM_CLAIMS[name]
    n = 10
    acts = ctx.pick(["relu"], ["relu", "tanh", "sin"], list(FAMILY_F))
    rows = []
    for act in acts:
        fp = Q.gstar(act, n)
        gam = theory.distortion(act, n)
        mc = gstar_mc_rows(ctx, act, n, fp)
        fp_mc = BSB1(act, n, mc[0].numeric, mc[1].numeric / mc[0].numeric)  # the design, from the independent route
        grams = _theorem1_grams(ctx, act, n, _theorem1_widths(ctx, fp_mc, n))
        runs = {d: factory(fp)(G) for d, G in grams.items()}
        rows += mc + stationary_mean_rows(grams, fp, label=f"{act}: ")
        if name == "theorem3":
            rows.append(Evidence(f"{act}: distortion γ (eq 10), certified enclosure, n = {n}", numeric=gam.upper,
                                 ci=(gam.lower, gam.upper), passed=None,
                                 note="measured: the upper end, used in ε; interval: the certified enclosure — lower: a "
                                      "feasible point on the sphere; upper: weak duality with a Lipschitz allowance on "
                                      "a grid (not a random search)"))
            lb = distortion_lower_bound(act, n, samples=20000, seed=ctx.seed + 10)
            rows.append(Evidence(f"{act}: distortion γ, certified upper end vs a random search of the sphere "
                                 f"‖x‖ = √n (20000 points and ±√n e₁, n = {n})", numeric=lb, bound=gam.upper,
                                 observed=lb, passed=lb <= gam.upper * (1 + 1e-12),
                                 note="observed: the largest ‖σ(x)‖/‖x‖ found, a lower bound on γ by another route, "
                                      "which the certified upper end must not fall below"))
        rows += _theorem1_rows(ctx, act, n, fp, runs, label=f"{act}: ",
                               eps=lambda d, fp=fp, g=gam.upper: eps_of(fp, g, d))
    rows += gstar_mc_se_rows(ctx, n)
    st = status_from_rows(rows)
    return Verdict(f"{PAPER}:{name}", st, f"G_ℓ converges to G* in mean (b*, c* within 99.9% intervals) and {norm} "
                   f"shrinks like d^(−1/2), is flat in depth and its implied constant is width-stable ({', '.join(acts)}; "
                   f"{eps_text})" if st == HOLDS else f"{norm} does not concentrate as predicted", rows)


def check_theorem3(ctx): return _norm_claim_check("theorem3", ctx)  # noqa: E704
def check_corollary6(ctx): return _norm_claim_check("corollary6", ctx)  # noqa: E704
def check_corollary7(ctx): return _norm_claim_check("corollary7", ctx)  # noqa: E704


for _name, _title, _stmt, _check in (
        ("theorem3", "Theorem 3: BN-MLP concentration of G*⁻¹G_ℓ for general activations",
         "P{‖G*⁻¹G_ℓ − I_n‖_F ≥ t(e^{−αℓ/2} + ε ln 1/ε)} ≲ t⁻², ε = nγ‖G*^{−1/2}‖/√d, γ = sup_{‖x‖=√n} ‖σ(x)‖/‖x‖ (eqs 10–11).",
         check_theorem3),
        ("corollary6", "Corollary 6: spectral concentration in ℓ² when G* is well conditioned",
         "P{sqrt(Σ_i (λ_i − λ_i*)²) ≳ t(e^{−αℓ/2} + ε ln 1/ε)} ≲ t⁻² with ε = n/√d (eq 17; printed '≤ t²').",
         check_corollary6),
        ("corollary7", "Corollary 7: ‖G_ℓ − G*‖_F concentration when G* is well conditioned",
         "P{‖G_ℓ − G*‖_F ≳ t(e^{−αℓ/2} + ε ln 1/ε)} ≲ t⁻² with ε = n/√d (eq 18; printed '≲ t²').",
         check_corollary7)):
    DECLARATION.add(Claim(
        PAPER, _name, _title, _stmt, "Assumption 1; G* non-degenerate (well conditioned for Corollaries 6, 7)",
        "As Theorem 1 with this norm: G* against Monte Carlo and the stationary mean Gram (99.9%), width exponent "
        "(95% t-interval, must vanish at least like d^(−0.35)), drift in depth, implied constant per width"
        + (", with the distortion γ enclosed by a duality certificate" if _name == "theorem3" else "")
        + "; the Monte Carlo standard errors checked on σ = step, where b*, b*c* have a closed form (χ²/K, 99.9%)",
        _check, None, "",
        uses=("verify.quantities.gstar (theory.bsb1_fixed_point)", "theory.bsb1_constants_mc", "theory.distortion",
              "numerics.simulate_bn_chain"),
        depends_on=("b*", "c*")))


# =============================================================================================
# Corollary 4 (eq 12) — two inputs, G_ℓ⁻¹G'_ℓ; the printed bound has no transitory term
# =============================================================================================

def _corollary4_data(ctx: Context):
    n, act = 10, "relu"
    C1, C2 = 0.5 * np.eye(n) + 0.5, _two_cluster(n)
    out = {}
    for d in (1100, 4400, 17600) if ctx.budget != "quick" else (1100, 4400):
        G, G2 = numerics.simulate_bn_chain(act, d, n, 40, ctx.pick(6, 10, 20), input_cov=C1, paired_input=C2,
                                           seed=ctx.seed + d, device=ctx.device)
        G, G2 = G.cpu().numpy(), G2.cpu().numpy()
        out[d] = np.linalg.norm(np.linalg.solve(G, G2) - np.eye(n), axis=(-2, -1))  # [seeds, layers]
    return out


def check_corollary4(ctx: Context) -> Verdict:
    data = _corollary4_data(ctx)
    widths = sorted(data)
    x = [math.log(d) for d in widths for _ in range(data[d].shape[0])]
    y = [math.log(v) for d in widths for v in data[d][:, 25:].mean(axis=1)]
    s, ci = _slope_ci(x, y)
    e0 = {d: float(data[d][:, 0].mean()) for d in widths}
    rows = [Evidence("stationary ‖G_ℓ⁻¹G'_ℓ − I‖_F (ℓ ≥ 25): width exponent", theory=-0.5, numeric=s, ci=ci,
                     confidence=CONF, samples=len(x), passed=ci[1] < -0.2 and ci[0] <= -0.4),
            Evidence("at ℓ = 0 (inputs differ): ‖G_0⁻¹G'_0 − I‖_F does not shrink with d", numeric=e0[widths[-1]],
                     passed=None,
                     note="measured: at the largest width; the printed eq (12) bounds it by tε → 0 as d → ∞; it stays "
                          "O(1): " +
                          ", ".join(f"d={d}: {v:.3g}" for d, v in e0.items()))]
    st = status_from_rows(rows)
    errata = [Erratum("Corollary 4, eq (12)", "P{‖G_ℓ⁻¹G'_ℓ − I_n‖_F ≥ tε} ≲ t⁻²",
                      "P{‖G_ℓ⁻¹G'_ℓ − I_n‖_F ≥ t(e^{−αℓ/2} + ε ln 1/ε)} ≲ t⁻² (the transitory term of Theorem 3 is needed)",
                      f"for two different inputs the left side at ℓ = 0 is {e0[widths[-1]]:.3g} at d = {widths[-1]} and "
                      f"{e0[widths[0]]:.3g} at d = {widths[0]} — it does not vanish with ε ∝ d^(−1/2); after the "
                      "transitory layers it does (width exponent in the evidence).", "error")]
    return Verdict(f"{PAPER}:corollary4", st, "after the transitory layers ‖G_ℓ⁻¹G'_ℓ − I‖_F vanishes like d^(−1/2); "
                   "at small ℓ the printed bound (without transitory term) fails" if st == HOLDS
                   else "Corollary 4 not reproduced", rows, errata)


def control_corollary4(ctx: Context) -> Verdict:
    data = _corollary4_data(ctx)
    widths = sorted(data)
    x = [math.log(d) for d in widths for _ in range(data[d].shape[0])]
    y = [math.log(v) for d in widths for v in data[d][:, 0]]
    s, ci = _slope_ci(x, y)
    rows = [Evidence("the printed eq (12) at ℓ = 0: width exponent of ‖G_0⁻¹G'_0 − I‖_F", theory=-0.5, numeric=s,
                     ci=ci, passed=ci[1] < -0.2 and ci[0] <= -0.4)]
    return _control("corollary4", rows, "the printed bound applied at ℓ = 0 (no transitory term)")


DECLARATION.add(Claim(
    PAPER, "corollary4", "Corollary 4: two inputs through one network — G_ℓ⁻¹G'_ℓ concentrates at I",
    "P{‖G_ℓ⁻¹G'_ℓ − I_n‖_F ≥ tε} ≲ t⁻², ε = nγ‖G*^{−1/2}‖/√d (eq 12; needs the transitory term, see errata).",
    "as Theorem 3; both inputs non-degenerate",
    "Two batches (equicorrelated, two-cluster) through the same network, jointly and exactly; the stationary value's "
    "width exponent, and the ℓ = 0 value, which the printed bound (without e^{−αℓ/2}) would also send to 0.",
    check_corollary4, control_corollary4, "the printed bound at ℓ = 0 must be flagged",
    uses=("numerics.simulate_bn_chain",)))


# =============================================================================================
# Lemma 5 (eq 13) / Lemma 11 (eq 36) — one step of the chain from μ_0 barely moves it in TV
# =============================================================================================

def _tv_lower_bound(gram: np.ndarray, ha: np.ndarray, hb: np.ndarray):
    """A lower bound on the TV distance between the laws of two samples of d×n matrices h ([samples, d, n] each):
    the two-sample KS distance of S(h) = ‖G^{−1/2}(hᵀh/d)G^{−1/2} − I‖_F² (any statistic's KS distance is ≤ TV) minus
    the 95% DKW margin. Returns (KS, lower bound, d·mean S under a, d·mean S under b)."""
    samples, d, n = ha.shape
    w, v = np.linalg.eigh(gram)
    half_inv = (v / np.sqrt(w)) @ v.T

    def stat(h):
        g = np.transpose(h, (0, 2, 1)) @ h / d
        return np.linalg.norm(half_inv @ g @ half_inv - np.eye(n), axis=(-2, -1)) ** 2
    a, b = stat(ha), stat(hb)
    ks = float(stats.ks_2samp(a, b).statistic)
    return ks, ks - 2 * math.sqrt(math.log(2 / 0.05) / (2 * samples)), float(a.mean() * d), float(b.mean() * d)


def _lemma5_tv(ctx: Context, act: str, n: int, d: int, samples: int, kernel: str = "chain"):
    """A lower bound on ‖T(μ_0) − μ_0‖_tv: the KS distance between the laws of the statistic
    S(h) = ‖G*^{−1/2}(hᵀh/d)G*^{−1/2} − I‖_F² under h ~ μ_0 (rows i.i.d. N(0, G*)) and under one step of the
    chain h' = W σ(φ(h)); any statistic's KS distance is ≤ TV. Returns (KS, 95% DKW lower bound)."""
    fp = theory.bsb1_constants(act, n)  # defines μ_0 = N(0, G*); not a compared quantity
    chol = np.linalg.cholesky(fp.gram)
    rng = np.random.default_rng([ctx.seed, d, 5])
    h0 = rng.standard_normal((samples, d, n)) @ chol.T
    # h' | h0 has i.i.d. rows N(0, G(h0)), G(h0) the Gram of σ(φ(h0)) (exact in distribution)
    if kernel == "meanfield":  # the mean-field kernel h' = W G*^{1/2}: μ_0 is invariant, the TV is 0
        G0 = np.broadcast_to(fp.gram, (samples, n, n))
    else:
        G0 = numerics.simulate_bn_chain(act, d, n, 0, samples, input_cov=fp.gram, seed=ctx.seed + d,
                                        device=ctx.device).cpu().numpy()[:, 0]
    h1 = rng.standard_normal((samples, d, n)) @ np.transpose(np.linalg.cholesky(G0), (0, 2, 1))
    return _tv_lower_bound(fp.gram, h0, h1)


def _lemma5_rows(ctx: Context, constant: float = 1.0, widths=None, kernel: str = "chain") -> list[Evidence]:
    n, act = 10, "relu"
    fp = theory.bsb1_constants(act, n)  # defines μ_0 = N(0, G*); not a compared quantity
    gam = theory.distortion(act, n).upper
    rows = []
    for d in widths or ctx.pick([1000, 4000], [1000, 4000, 16000], [1000, 4000, 16000, 64000]):
        samples = ctx.pick(200, 400, 1000)
        ks, lower, ma, mb = _lemma5_tv(ctx, act, n, d, samples, kernel)
        eps2 = n * n * gam ** 2 * fp.inverse_norm / d
        rows.append(Evidence(f"d = {d}: ‖T(μ_0) − μ_0‖_tv ≥ (95% lower bound) vs {constant:g}·ε² = {constant:g}·n²γ²‖G*⁻¹‖/d",
                             bound=constant * eps2, observed=lower, numeric=ks, slack=constant * eps2 / lower if lower > 0 else None,
                             confidence=CONF, samples=samples, passed=lower <= constant * eps2,
                             note=f"statistic mean ×d: {ma:.1f} under μ_0 vs {mb:.1f} after one step (the chain adds the "
                                  f"fluctuation of G(h) to that of the sample covariance)"))
    return rows


def check_lemma5(ctx: Context) -> Verdict:
    rows = _lemma5_rows(ctx)
    v = Verdict.judged(f"{PAPER}:lemma5", rows, "one step of the chain moves μ_0 by at most O(ε²) in total variation",
                       "violated: one step of the chain moves μ_0 by Ω(1) in total variation at every width, while ε² "
                       "∝ 1/d (relu, n = 10)")
    if v.status == VIOLATED:
        v.errata.append(Erratum(
            "Lemma 5 (eq 13) and Lemma 11 (eq 36), step (40)–(41) of the proof",
            "‖T(μ_0) − μ_0‖_tv ≲ n²γ²‖G*⁻¹‖/d = ε²", "the TV distance is bounded below by a constant (≈ 0.75 for relu, n = 10) "
            "uniformly in d",
            "the proof bounds the law of the whole d×n matrix h' = WG^{1/2} by the TV between single Gaussians "
            "N(0, G) and N(0, G*); h' has d i.i.d. rows, and the d-fold product's TV is of order "
            "min(1, √d·‖G*⁻¹G − I‖_F) = O(n), not O(‖G*⁻¹G − I‖_F²). Evidence: "
            + "; ".join(f"{r.name.split(':')[0]}: TV ≥ {r.observed:.3f} vs ε² = {r.bound:.4f}" for r in rows)
            + ". The sketch of Theorem 3 (eqs 14–15) and Lemma 12 use this lemma; Theorems 1 and 3 themselves are "
              "checked directly and their predictions hold.", "error"))
    return v


def positive_lemma5(ctx: Context) -> Verdict:
    return _control("lemma5", _lemma5_rows(ctx, kernel="meanfield"),
                    "the same TV lower bound for one step of the mean-field kernel (μ_0 invariant)")


def control_lemma5(ctx: Context) -> Verdict:
    rows = _lemma5_rows(ctx, constant=30.0, widths=[16000])
    return _control("lemma5", rows, "the lemma with a generous constant 30ε² at the largest width")


DECLARATION.add(Claim(
    PAPER, "lemma5", "Lemma 5 (and Lemma 11): one step of the chain from μ_0 moves it by O(ε²) in total variation",
    "For h with rows i.i.d. N(0, G*) (law μ_0) and T the chain's kernel: ‖T(μ_0) − μ_0‖_tv ≲ n²γ²‖G*⁻¹‖/d = ε² (eq 13).",
    "G* non-degenerate; γ the distortion of eq (10)",
    "A lower bound on the TV distance: the two-sample Kolmogorov–Smirnov distance of the statistic "
    "‖G*^{−1/2}(hᵀh/d)G*^{−1/2} − I‖_F² under μ_0 and after one exact step, minus the 95% DKW margin; compared with "
    "ε² across widths (ε² ∝ 1/d, so a width-independent lower bound violates the lemma).",
    check_lemma5, control_lemma5, "the lemma with the constant 30 must still be flagged at the largest width",
    positive_control=positive_lemma5,
    positive_control_description="the same TV lower bound for one step of the mean-field kernel h' = W G*^{1/2}, which "
                                 "leaves μ_0 invariant: it must hold",
    uses=("theory.bsb1_constants", "theory.distortion", "numerics.simulate_bn_chain")))


# =============================================================================================
# Eq (19) — the cited total-variation bound between Gaussians (Theorem 1 of the paper's ref. [10])
# =============================================================================================
#
# Printed: 1/100 ≤ ‖N(0, C₁) − N(0, C₂)‖_tv / Σ_i λ_i² ≤ 3/2, λ_i the eigenvalues of C₁⁻¹C₂ − I. The cited theorem
# (Devroye, Mehrabian, Reddad 2018, Theorem 1.1) has min(1, sqrt(Σ λ_i²)) in the denominator. For small λ the two
# differ by a factor sqrt(Σλ²): the printed upper bound fails there. The TV is computed exactly in 1-D (the densities
# cross at ±x*, x*² = 2s² log s/(s² − 1)) and by adaptive quadrature of ½∫|p − q| in 1-D and 2-D (independent route).

EQ19_RATIOS = (1e-3, 1e-2, 0.05, 0.1, 0.3, 1.0, 3.0)   # λ = s² − 1 for the 1-D pairs N(0, 1), N(0, s²)


def gaussian_tv_1d(s2: float) -> float:
    """‖N(0, 1) − N(0, s²)‖_tv exactly: 2|Φ(x*) − Φ(x*/s)|, x*² = 2s² log s/(s² − 1) (s² ≠ 1)."""
    s = math.sqrt(s2)
    x = math.sqrt(2 * s2 * math.log(s) / (s2 - 1))
    return abs(2 * (stats.norm.cdf(x) - stats.norm.cdf(x / s)))


def _abs_mixture_integral(a: float, b: float, s2: float) -> float:
    """∫|a·N(y; 0, 1) − b·N(y; 0, s2)| dy for a, b ≥ 0, in closed form (the two scaled densities cross at ±y₀)."""
    if a <= 0 or b <= 0:
        return abs(a - b)
    s = math.sqrt(s2)
    y2 = 2 * (math.log(b / s) - math.log(a)) / (1 / s2 - 1) if s2 != 1 else -1.0
    if not y2 > 0:
        return abs(a - b)
    y0 = math.sqrt(y2)
    m = a * (2 * stats.norm.cdf(y0) - 1) - b * (2 * stats.norm.cdf(y0 / s) - 1)
    return abs(m) + abs((a - b) - m)


def _gaussian_tv_quad(variances: tuple) -> float:
    """½∫|p − q| for p = N(0, I), q = N(0, diag(variances)) in 1-D or 2-D by scipy's adaptive quadrature (in 2-D over
    x, the inner integral over y in closed form): the independent route to the 1-D closed form."""
    from scipy import integrate
    v = [float(x) for x in variances]
    if len(v) == 1:
        f = lambda x: abs(stats.norm.pdf(x) - stats.norm.pdf(x, scale=math.sqrt(v[0])))  # noqa: E731
        return 0.5 * integrate.quad(f, -40, 40, points=[0.0], limit=400, epsabs=1e-13)[0]
    g = lambda x: _abs_mixture_integral(float(stats.norm.pdf(x)), float(stats.norm.pdf(x, scale=math.sqrt(v[0]))),  # noqa: E731
                                        v[1])
    return 0.5 * integrate.quad(g, -40, 40, points=[0.0], limit=400, epsabs=1e-12)[0]


def _eq19_rows(ctx: Context, corrected: bool = False) -> list[Evidence]:
    cases = [(1 + lam,) for lam in EQ19_RATIOS] + [(1.01, 1.02), (1.2, 0.9), (2.0, 3.0)]
    rows, worst_lo, worst_hi = [], math.inf, 0.0
    for var in cases:
        lam = np.asarray(var) - 1.0
        s2 = float(np.sum(lam ** 2))
        quad = _gaussian_tv_quad(var)
        if len(var) == 1:
            exact = gaussian_tv_1d(var[0])
            dev = abs(quad - exact)
            rows.append(Evidence(f"TV(N(0,1), N(0,{var[0]:g})): closed form vs quadrature", theory=exact, numeric=quad,
                                 observed=dev, bound=1e-9, passed=dev <= 1e-9))
        tv = quad
        denom = min(1.0, math.sqrt(s2)) if corrected else s2
        r = tv / denom
        worst_lo, worst_hi = min(worst_lo, r), max(worst_hi, r)
        rows.append(Evidence(f"λ = {', '.join(f'{x:g}' for x in lam)}: TV / "
                             + ("min(1, sqrt(Σλ²))" if corrected else "Σλ²") + " within [1/100, 3/2]",
                             numeric=tv, observed=r, bound=1.5, passed=0.01 <= r <= 1.5,
                             note=f"TV = {tv:.6g}, Σλ² = {s2:.4g}"))
    return rows


def check_eq19(ctx: Context) -> Verdict:
    rows = _eq19_rows(ctx)
    v = Verdict.judged(f"{PAPER}:eq19", rows, "the printed bound 1/100 ≤ TV/Σλ² ≤ 3/2 holds on every case",
                       "violated as printed: for small λ the TV is of order sqrt(Σλ²), not Σλ² (the cited theorem has "
                       "min(1, sqrt(Σλ²)))")
    if v.status == VIOLATED:
        bad = [r for r in rows if r.passed is False]
        v.errata.append(Erratum(
            "eq (19), citing Theorem 1 of ref. [10]", "1/100 ≤ ‖μ_X − μ_Y‖_tv / Σ_i λ_i² ≤ 3/2",
            "1/100 ≤ ‖μ_X − μ_Y‖_tv / min(1, (Σ_i λ_i²)^{1/2}) ≤ 3/2 (Devroye, Mehrabian, Reddad 2018, Theorem 1.1)",
            "exact TV (closed form and quadrature): " + "; ".join(f"{r.name.split(':')[0]}: TV/Σλ² = {r.observed:.4g}"
                                                                  for r in bad[:4])
            + ". With the square root, the TV of two Gaussians whose covariances differ by O(ε) is O(ε), which is why "
              "Lemma 5's O(ε²) fails (lemma5).", "error"))
    return v


def positive_eq19(ctx: Context) -> Verdict:
    return _control("eq19", _eq19_rows(ctx, corrected=True),
                    "the cited theorem's form, min(1, sqrt(Σλ²)) in the denominator")


DECLARATION.add(Claim(
    PAPER, "eq19", "Eq (19): total variation between Gaussians is of the order of Σλ² (a cited bound)",
    "For X ~ N(0, C₁), Y ~ N(0, C₂) and λ_i the eigenvalues of C₁⁻¹C₂ − I: 1/100 ≤ ‖μ_X − μ_Y‖_tv / Σ_i λ_i² ≤ 3/2 "
    "(Theorem 1 of ref. [10]).",
    "C₁, C₂ positive definite",
    "Exact TV of N(0, 1) and N(0, 1 + λ) for λ from 1e-3 to 3 (closed form via the density crossings, and scipy "
    "quadrature of ½∫|p − q| as the independent route, agreeing to 1e-9) and of 2-D pairs (quadrature over x of the "
    "inner integral in closed form), against "
    "both the printed ratio and the cited theorem's min(1, sqrt(Σλ²)).",
    check_eq19, None, "",
    positive_control=positive_eq19,
    positive_control_description="the cited theorem's form, TV/min(1, sqrt(Σλ²)) ∈ [1/100, 3/2], must hold on the "
                                 "same cases",
    uses=("scipy.integrate.quad", "scipy.integrate.dblquad", "scipy.stats.norm")))


# =============================================================================================
# Lemma 9 (eq 20) — a matrix Bernstein tail for the Gram matrix of batch-normalised rows
# =============================================================================================
#
# Setting: z_k i.i.d. batch-normalised rows (uniform on the √n-sphere of 1^⊥, numerics.bn_sphere_grams), C = E σ(z)σ(z)ᵀ,
# which is bn-finite-width's G* (the fixed point of eq 16; the claim consumes b*, c*), G = (1/d) Σ σ(z_k)σ(z_k)ᵀ (the
# printed G omits σ: a typo, the proof has y_k = C^{−1/2}σ(z_k)). The power of the check is an exact identity of the
# proof's quantities: E‖C^{−1/2}GC^{−1/2} − I‖_F² = (E‖y‖⁴ − n)/d iff E yyᵀ = I, i.e. iff C is E σσᵀ — an error in
# G* shows as a bias that does not shrink with the repetitions. The tail (20) itself is loose (its note says how loose).

L9_CONF = 0.999


def _lemma9_rows(ctx: Context) -> list[Evidence]:
    n, d = 10, 1000
    reps = ctx.pick(1000, 4000, 16000)
    rows = []
    for i, act in enumerate(ctx.pick(["relu", "tanh"], ["relu", "tanh", "sin"], list(FAMILY_F))):
        C = Q.gstar(act, n).gram
        Cinv = np.linalg.inv(C)
        w, v = np.linalg.eigh(C)
        Cmh = (v / np.sqrt(w)) @ v.T
        G, fourth = Q.memo(("lemma9-grams", act, n, d, reps, ctx.seed, C.tobytes()),
                           lambda: numerics.bn_sphere_grams(act, n, d, reps, whiten=Cinv, seed=ctx.seed * 100 + i))
        I = np.eye(n)
        sym = np.linalg.norm(Cmh @ G @ Cmh - I, axis=(-2, -1)) ** 2
        printed = np.linalg.norm(Cinv @ G - I, axis=(-2, -1)) ** 2
        D = sym - (fourth - n) / d
        m, se = float(D.mean()), float(D.std(ddof=1) / math.sqrt(reps))
        z = abs(m) / se
        zc = float(stats.norm.ppf(0.5 + L9_CONF / 2))
        rows.append(Evidence(f"{act}: E‖C^(−1/2)GC^(−1/2) − I‖_F² = (E‖y‖⁴ − n)/d with C = G* (n = {n}, d = {d})",
                             theory=float(np.mean((fourth - n) / d)), numeric=float(sym.mean()), observed=z, bound=zc, statistic="|z|",
                             confidence=L9_CONF, samples=reps, passed=z <= zc,
                             note=f"difference {m:.3g} ± {zc * se:.2g}: zero iff E yyᵀ = I, i.e. C = E σ(z)σ(z)ᵀ"))
        gam = theory.distortion(act, n).upper
        normCinv = float(np.linalg.norm(Cinv, 2))

        def bound(t):
            return n * math.exp(-(t * d / 2) / (gam ** 2 * normCinv * n * n * (1 + math.sqrt(t / n))))
        ts = np.quantile(printed, [0.5, 0.9, 0.99]).tolist() + [float(printed.max())]
        ts += [t for t in (0.5, 1, 2, 5, 10, 20, 50) if t > ts[-1]]
        fails, worst = 0, math.inf
        for t in ts:
            k = int(np.sum(printed >= t))
            lo = float(stats.beta.ppf((1 - L9_CONF) / 2, k, reps - k + 1)) if k > 0 else 0.0   # Clopper–Pearson
            b = bound(t)
            fails += lo > b
            worst = min(worst, b / max(k / reps, 1.0 / reps))
        t05 = next((t for t in np.linspace(0.01, 200, 20000) if bound(t) <= 0.05), math.inf)
        q95 = float(np.quantile(printed, 0.95))
        rows.append(Evidence(f"{act}: P{{‖C⁻¹G − I‖_F² ≥ t}} ≤ n·exp(−(td/2)/(γ²‖C⁻¹‖n²(1 + sqrt(t/n)))) at "
                             f"{len(ts)} levels t", bound=0, observed=fails, samples=reps,
                             confidence=L9_CONF, passed=fails == 0,
                             note=f"observed: the levels where the Clopper–Pearson lower end exceeds eq (20); looseness "
                                  f"{t05 / q95:.4g} = t where the bound reaches 0.05 ({t05:.3g}) / the empirical 95% "
                                  f"quantile ({q95:.3g}); γ = {gam:.6f} (certified), "
                                  f"‖C⁻¹‖ = {normCinv:.4g}"))
        rows.append(Evidence(f"{act}: the printed ‖C⁻¹G − I‖_F² vs the proof's ‖C^(−1/2)GC^(−1/2) − I‖_F² (ratio "
                             "of the means)", numeric=float(printed.mean() / sym.mean()), passed=None,
                             note=f"ratio {printed.mean() / sym.mean():.3g}: the two have the same spectrum but not the "
                                  f"same Frobenius norm (C⁻¹G − I is not symmetric); ≤ κ(C) = {w.max() / w.min():.3g}; "
                                  f"means {printed.mean():.4g} (printed) and {sym.mean():.4g} (the proof's)"))
    return rows


def check_lemma9(ctx: Context) -> Verdict:
    rows = _lemma9_rows(ctx)
    v = Verdict.judged(f"{PAPER}:lemma9", rows,
                       "eq (20) holds, loosely, for batch-normalised rows with C = G*; the proof's moment identity "
                       "holds with C = G*", "eq (20) or the proof's moment identity fails with C = G*")
    ratios = [r for r in rows if r.passed is None]
    v.errata += [
        Erratum("Lemma 9, definition of G", "G := (1/d) Σ_k z_k z_kᵀ", "G := (1/d) Σ_k σ(z_k)σ(z_k)ᵀ",
                "C := E σ(z)σ(z)ᵀ and the proof's y_k := C^{−1/2}σ(z_k) need σ applied", "typo"),
        Erratum("Proof of Lemma 9, first step", "the spectral distribution of C⁻¹G is the same as that of "
                "C^{−1/2}GC^{−1/2}, therefore we can restate the bound in terms of ‖C^{−1/2}GC^{−1/2} − I_n‖_F²",
                "‖C⁻¹G − I‖_F ≤ κ(C)^{1/2}‖C^{−1/2}GC^{−1/2} − I‖_F: equal spectra do not give equal Frobenius norms of "
                "a non-symmetric matrix, so the proof bounds the symmetric form, and the statement (20) needs κ(C) in "
                "its exponent", "; ".join(f"{r.name.split(':')[0]}: {r.note.split(':')[0]}" for r in ratios), "error")]
    return v


DECLARATION.add(Claim(
    PAPER, "lemma9", "Lemma 9: a matrix Bernstein tail for ‖C⁻¹G − I‖_F² of batch-normalised rows",
    "For z_1..z_d i.i.d. on the √n-sphere, C := E σ(z)σ(z)ᵀ ≻ 0, σ of distortion γ, G := (1/d)Σ σ(z_k)σ(z_k)ᵀ: "
    "P{‖C⁻¹G − I_n‖_F² ≥ t} ≤ n exp(−(td/2)/(γ²‖C⁻¹‖n²(1 + sqrt(t/n)))) (eq 20).",
    "z_k i.i.d. batch-normalised rows; C = G* (bn-finite-width's fixed point)",
    "numerics.bn_sphere_grams draws the Gram matrices of d = 1000 batch-normalised rows (n = 10) many times. Power: "
    "the proof's identity E‖C^{−1/2}GC^{−1/2} − I‖_F² = (E‖y‖⁴ − n)/d (99.9% z-interval), exact iff C = E σσᵀ, with "
    "C = G* from theory — b* or c* off by 5% is flagged. The tail (20) at the empirical quantiles and beyond "
    "(Clopper–Pearson 99.9%), with γ the certified distortion; loose, how loose is reported.",
    check_lemma9, None, "",
    depends_on=("b*", "c*"),
    uses=("numerics.bn_sphere_grams", "verify.quantities.gstar (theory.bsb1_fixed_point)", "theory.distortion")))


# =============================================================================================
# Lemma 12 (eq 48) — the law of h_ℓ is within e^{−ℓα} + ε² of the Gaussian candidate μ_C in total variation
# =============================================================================================

L12_DEPTH = 20
L12_ALPHA_MIN = 0.1   # e^{−ℓα} at ℓ = 20 for any α ≥ 0.1 (assumption1 measures α ≈ 0.8 for relu, n = 10)


def _lemma12_tv(ctx: Context, act: str, n: int, d: int, samples: int, depth: int, candidate_only: bool = False):
    """A lower bound on ‖μ_ℓ − μ_C‖_tv (:func:`_tv_lower_bound`) between h_ℓ (the exact chain run ℓ layers from
    h_0 ~ μ_C) and h_C ~ μ_C (rows i.i.d. N(0, G*)).
    ``candidate_only``: both samples from μ_C (the positive control: the TV is 0)."""
    fp = theory.bsb1_constants(act, n)   # defines μ_C = N(0, G*) (the candidate law), not a compared quantity
    rng = np.random.default_rng([ctx.seed, d, 12])
    hc = rng.standard_normal((samples, d, n)) @ np.linalg.cholesky(fp.gram).T
    if candidate_only:
        G = np.broadcast_to(fp.gram, (samples, n, n))
    else:   # h_ℓ | G_{ℓ−1} has i.i.d. rows N(0, G_{ℓ−1}) (exact in distribution); G_{ℓ−1} from the chain started at μ_C
        G = numerics.simulate_bn_chain(act, d, n, depth - 1, samples, input_cov=fp.gram, seed=ctx.seed + 7 * d,
                                       device=ctx.device, layers=[depth - 1]).cpu().numpy()[:, -1]
    hl = rng.standard_normal((samples, d, n)) @ np.transpose(np.linalg.cholesky(G), (0, 2, 1))
    return _tv_lower_bound(fp.gram, hl, hc)[:2]


def _lemma12_rows(ctx: Context, candidate_only: bool = False) -> list[Evidence]:
    n, act = 10, "relu"
    fp = theory.bsb1_constants(act, n)
    gam = theory.distortion(act, n).upper
    rows = []
    for d in ctx.pick([1000, 4000], [1000, 4000, 16000], [1000, 4000, 16000, 64000]):
        samples = ctx.pick(200, 400, 1000)
        ks, lower = Q.memo(("lemma12", d, samples, ctx.seed, candidate_only),
                           lambda: _lemma12_tv(ctx, act, n, d, samples, L12_DEPTH, candidate_only))
        eps2 = n * n * gam ** 2 * fp.inverse_norm / d
        bound = math.exp(-L12_DEPTH * L12_ALPHA_MIN) + eps2
        rows.append(Evidence(f"d = {d}, ℓ = {L12_DEPTH}: ‖μ_ℓ − μ_C‖_tv ≥ (95% lower bound) vs e^(−ℓα) + ε²"
                             + (" (both samples from μ_C)" if candidate_only else ""),
                             bound=bound, observed=lower, numeric=ks, confidence=CONF, samples=samples,
                             passed=lower <= bound,
                             note=f"e^(−ℓα) ≤ {math.exp(-L12_DEPTH * L12_ALPHA_MIN):.3f} for α ≥ {L12_ALPHA_MIN} "
                                  f"(assumption1 measures α ≈ 0.8); ε² = n²γ²‖G*⁻¹‖/d = {eps2:.4f}; KS distance of "
                                  "‖G*^(−1/2)(hᵀh/d)G*^(−1/2) − I‖_F² ≤ TV"))
    return rows


def check_lemma12(ctx: Context) -> Verdict:
    rows = _lemma12_rows(ctx)
    v = Verdict.judged(f"{PAPER}:lemma12", rows, "the law of h_ℓ is within e^(−ℓα) + ε² of μ_C in total variation",
                       "violated: at ℓ = 20 the law of h_ℓ stays Ω(1) from μ_C in total variation at every width, while "
                       "e^(−ℓα) + ε² → 0 (relu, n = 10)")
    if v.status == VIOLATED:
        v.errata.append(Erratum(
            "Lemma 12 (eq 48)", "‖μ_ℓ − μ_C‖_tv ≤ e^{−ℓα} + ε²",
            "‖μ_ℓ − μ_C‖_tv is bounded below by a constant uniformly in d (the stationary law keeps the fluctuation of "
            "G_{ℓ−1}, which μ_C lacks)",
            "the proof takes ‖μ_C − μ_*‖_tv ≤ ε² from Lemma 5, which is violated (lemma5; eq (19)'s missing square "
            "root, eq19). Evidence: " + "; ".join(f"{r.name.split(':')[0]}: TV ≥ {r.observed:.3f} vs {r.bound:.4f}"
                                                   for r in rows), "error"))
    return v


def positive_lemma12(ctx: Context) -> Verdict:
    return _control("lemma12", _lemma12_rows(ctx, candidate_only=True),
                    "the same TV lower bound between two samples of μ_C (TV 0)")


DECLARATION.add(Claim(
    PAPER, "lemma12", "Lemma 12 (eq 48): the law of h_ℓ approaches the Gaussian candidate μ_C within ε²",
    "Under Assumption 1 with α > 0 and G* non-degenerate, μ_C the law with rows i.i.d. N(0, G*): "
    "‖μ_ℓ − μ_C‖_tv ≤ e^{−ℓα} + ε² (eq 48), ε as in Lemma 5.",
    "Assumption 1 (assumption1 measures α ≈ 0.8 for relu); G* non-degenerate",
    "The exact chain (relu, n = 10) run ℓ = 20 layers from h_0 ~ μ_C; a lower bound on the TV distance between h_ℓ "
    "and μ_C: the two-sample KS distance of ‖G*^{−1/2}(hᵀh/d)G*^{−1/2} − I‖_F² minus the 95% DKW margin, against "
    "e^{−ℓα} + ε² with α ≥ 0.1 (conservative) across widths (ε² ∝ 1/d).",
    check_lemma12, None, "",
    positive_control=positive_lemma12,
    positive_control_description="the same TV lower bound between two independent samples of μ_C must hold",
    uses=("numerics.simulate_bn_chain", "theory.bsb1_constants", "theory.distortion")))
