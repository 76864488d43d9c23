"""Theorem 4 (eq 12) and its finite-width figures: Fig 3 (n = 100, d = 5000) and Fig A.1 (γ at finite width)."""
from __future__ import annotations

import math

import numpy as np

import numerics
import theory

from ...api import (Context, Erratum, Evidence, fit_log_rate, HOLDS, HypothesisCheck, HypothesisNotMet, kinds as P,
                    mean_ci, memo, Panel, Parameter, Series, shared, status_from_rows, Verdict, write_figure)
from ._common import _acts_param, _control, _mf_trajectory, _rng, beta_rows, beta_value, CONF, invariant_row, PAPER
from ._common import _mf_inputs


# =============================================================================================
# Theorem 4 (eq 12) — the isometry gap decays at rate β_σ; in mean field and at finite width
# =============================================================================================

def _log_bound_theorem4(ell: np.ndarray, log_beta: float, n: int, log_iso0: float) -> np.ndarray:
    """log of the right-hand side of eq (12): −ℓ log β − n log 𝓘(G0) + log(4n)."""
    return -ell * log_beta - n * log_iso0 + math.log(4 * n)


def _theorem4_meanfield_rows(ctx: Context, acts, log_rate_fn, depth: int) -> list[Evidence]:
    rng = _rng(ctx, 91)
    rows = []
    for nm in acts:
        log_rate = log_rate_fn(nm)
        fails, worst, total = 0, math.inf, 0
        for n in (10, 100) if ctx.budget != "quick" else (10,):
            for label, G0 in _mf_inputs(n, rng).items():
                gaps = memo(("mean-field isometry gaps", nm, G0.tobytes(), depth),
                              lambda: theory.isometry_gap(_mf_trajectory(nm, G0, depth).grams()))
                ell = np.arange(depth + 1)
                with np.errstate(divide="ignore"):
                    log_gap = np.log(gaps)
                lb = _log_bound_theorem4(ell, log_rate, n, float(theory.log_isometry(G0)))
                margin = lb - log_gap
                total += 1
                if np.any(margin < 0):
                    fails += 1
                finite = margin[np.isfinite(margin)]
                worst = min(worst, float(finite.min()) if finite.size else math.inf)
        rows.append(Evidence(f"{nm}: −log 𝓘(G_*^ℓ) ≤ exp(−ℓ·{log_rate:.4g} − n log 𝓘(G0) + log 4n) for all ℓ ≤ {depth}",
                             theory=0, numeric=fails, samples=total, passed=fails == 0,
                             note=f"inputs violating it (of {total}); smallest bound/gap over layers and inputs "
                                  f"{math.exp(min(worst, 700)):.6g} (n = 10 and 100)"))
    return rows


def _threshold_evidence(nm: str, n: int, rho0: float, depth: int) -> tuple[Evidence, dict]:
    """Where eq (12)'s proof starts to apply, against the printed ℓ ≳ β⁻¹(−n log 𝓘(G0) + log 4n)."""
    G0 = numerics.equicorrelated_gram(n, rho0)
    beta = beta_value(nm)
    C = -n * float(theory.log_isometry(G0)) + math.log(4 * n)
    printed = C / beta
    corrected = C / math.log(beta)
    tr = _mf_trajectory(nm, G0, depth)
    g = np.abs(tr.offdiag).max(axis=1)
    gamma = g / (1 - g)
    hit = np.nonzero(gamma < 1 / (2 * n - 2))[0]
    proof_layer = int(hit[0]) if hit.size else None
    bound_at_printed = math.exp(C - printed * math.log(beta))
    info = {"activation": nm, "n": n, "rho0": rho0, "beta": beta, "printed_threshold": printed,
            "corrected_threshold": corrected, "first_layer_gamma_below_1/(2n-2)": proof_layer,
            "bound_at_printed_threshold": bound_at_printed}
    ev = Evidence(f"{nm}, n = {n}, ρ₀ = {rho0}: depth threshold of Theorem 4", theory=printed, numeric=proof_layer,
                  passed=None,
                  note=f"predicted: the printed threshold; measured: the first mean-field layer meeting the proof's "
                       f"condition; printed β⁻¹(…) = {printed:.1f} layers, where the bound still equals {bound_at_printed:.3g} "
                       f"(vacuous: the gap is at most {float(theory.isometry_gap(G0)):.3g}); (log β)⁻¹(…) = {corrected:.1f}; "
                       f"mean field first meets the proof's condition γ < 1/(2n−2) at layer {proof_layer}")
    return ev, info


#: the relative accuracy the isometry gap must have in its series branch (|μ_i| < 1e-3): the terms the series
#: μ − log(1 + μ) = μ²/2 − μ³/3 + μ⁴/4 − μ⁵/5 + … omits are below |μ|⁴/3 ≤ 3.4e-13 of μ²/2 there, rounding ~1e-15
GAP_SERIES_TOL = 1e-12


def gap_reference(G: np.ndarray, dps: int = 50) -> float:
    """−log 𝓘(G) = log(tr G/n) − (log det G)/n (eq 3) in ``dps``-digit arithmetic on the float entries of G (exact as
    given): an independent route to theory.isometry_gap, which sums μ − log(1 + μ) over the eigenvalues μ of
    G/(tr G/n) − I."""
    import mpmath
    n = G.shape[0]
    with mpmath.workdps(dps):
        M = mpmath.matrix(np.asarray(G, dtype=float).tolist())
        return float(mpmath.log(sum(M[i, i] for i in range(n)) / n) - mpmath.log(mpmath.det(M)) / n)


def _gap_series_matrices(ctx: Context) -> list[tuple[str, np.ndarray]]:
    """Gram matrices whose μ_i lie in the series branch of theory.isometry_gap: I + m·A with max|μ| = m just inside
    (5e-4, 9e-4) and outside (2e-3: the branches mixed), A equicorrelated (μ = (n−1)a, −a, …: Σμ³ ≠ 0) or random
    symmetric with zero diagonal, both signs; and the mean-field Grams of tanh at ℓ = 120..200 that the decay fit
    of this claim uses (|μ| from 4e-4 down to 3e-6)."""
    n = 10
    J = (np.ones((n, n)) - np.eye(n)) / (n - 1)
    R = _rng(ctx, 97).standard_normal((n, n))
    R = R + R.T
    np.fill_diagonal(R, 0.0)
    R /= np.max(np.abs(np.linalg.eigvalsh(R)))
    out = [(f"I {'+' if sg > 0 else '−'} {m:g}·{nm}", np.eye(n) + sg * m * A)
           for m in (5e-4, 9e-4, 2e-3) for sg in (1, -1) for nm, A in (("equicorrelated", J), ("random", R))]
    tr = _mf_trajectory("tanh", numerics.equicorrelated_gram(n, 0.5), 200)
    out += [(f"tanh G_*^{ell}", G) for ell, G in zip(range(120, 201, 20), tr.grams(range(120, 201, 20)))]
    return out


def _gap_series_row(ctx: Context) -> Evidence:
    """theory.isometry_gap near G = cI, where eq (12)'s gaps end up, against :func:`gap_reference`."""
    worst, at, inside = -1.0, None, 0
    mats = _gap_series_matrices(ctx)
    for label, G in mats:
        n = G.shape[0]
        mu = np.linalg.eigvalsh(G / (np.trace(G) / n) - np.eye(n))
        inside += int(np.max(np.abs(mu)) < 1e-3)
        value, ref = float(theory.isometry_gap(G)), gap_reference(G)
        err = abs(value / ref - 1)
        if err > worst:
            worst, at = err, (label, value, ref, float(np.max(np.abs(mu))))
    return Evidence("the isometry gap −log 𝓘(G) near G = cI (the series branch |μ_i| < 1e-3 that eq (12)'s decaying "
                    "gaps reach) vs 50-digit log(tr G/n) − (log det G)/n (eq 3): max relative error",
                    theory=at[2], numeric=at[1], observed=worst, bound=GAP_SERIES_TOL,
                    slack=GAP_SERIES_TOL / worst if worst > 0 else math.inf, samples=inside,
                    passed=worst <= GAP_SERIES_TOL,
                    note=f"{inside} matrices with every |μ_i| < 1e-3 and {len(mats) - inside} with max|μ_i| = 2e-3 "
                         f"(both branches); worst at {at[0]} (max|μ| = {at[3]:.2g}, gap {at[2]:.6g}); the omitted "
                         "series terms are below |μ|⁴/3 ≤ 3.4e-13 relative")


H_NONLINEAR = HypothesisCheck("σ nonlinear", "σ is not affine, so β_σ > 1 (an affine σ has β_σ = 1 and no decay)")
H_INPUT = HypothesisCheck("G_*^0 non-degenerate", "the input Gram matrix is non-degenerate (no duplicated sample)")


#: e-folds of the bound β_σ^{−ℓ} before the fitted window (ℓ = 100) for the window to count as asymptotic
ASYMPTOTIC_EFOLDS = 5.0


def simulator_variant_rows(ctx: Context, act: str = "tanh") -> list[Evidence]:
    """The layer-norm MLP of eq (1) by its two simulators: ``method="exact"`` draws each layer's pre-activations from
    their Gaussian law given G^ℓ (what the claims use), ``method="dense"`` builds explicit inputs with Gram G^0
    (:func:`numerics.inputs_with_gram`) and multiplies by explicit d × d weights. Both are the same finite-width
    law, so at n = 4, d = 64, depth 5 the isometry gap −log 𝓘(G^5) and the entry G^5[0, 1] must agree in two-sample
    KS tests at α = 0.001 (independent seeds)."""
    from scipy import stats
    n, d, depth, seeds = 4, 64, 5, ctx.pick(400, 800, 1600)
    G0 = numerics.equicorrelated_gram(n, 0.5)
    G = {m: numerics.simulate_isometry_mlp(act, d, G0, depth, seeds, method=m, seed=ctx.seed + 50 + k,
                                           layers=[depth], dtype=ctx.torch_dtype).cpu().numpy()[:, 0]
         for k, m in enumerate(("exact", "dense"))}
    rows = []
    for what, get in (("isometry gap −log 𝓘(G^5)", theory.isometry_gap), ("G^5[0,1]", lambda g: g[:, 0, 1])):
        res = stats.ks_2samp(get(G["exact"]), get(G["dense"]))
        rows.append(Evidence(f"{act}: {what} (n = {n}, d = {d}) of the layer-norm MLP simulated exactly in law vs with "
                             "explicit inputs and weights", numeric=float(res.statistic), observed=float(res.pvalue),
                             bound=0.001, samples=seeds, confidence=0.999, passed=bool(res.pvalue > 0.001),
                             note=f"two-sample KS D = {res.statistic:.4f}, p = {res.pvalue:.3g} (observed: p, which "
                                  "must be above the level α = 0.001)"))
    return rows


def control_theorem4(ctx: Context) -> Verdict:
    def too_fast(nm):  # 3·log(1/(2−β)): above β and 1.5× the true asymptotic decay of the gap
        return 3 * math.log(1 / (2 - beta_value(nm)))
    rows = _theorem4_meanfield_rows(ctx, ["relu", "tanh"], too_fast, ctx.pick(400, 600, 2000))
    return _control(ctx, rows, "eq (12) with log β_σ replaced by 3 log(1/(2 − β_σ)) (a rate above β_σ)")

# ---------------------------------------------------------------------------------------------
# Fig 3 — finite width vs the Theorem 4 bound (n = 100, d = 5000, relu/tanh/sigmoid, 10 seeds)
# ---------------------------------------------------------------------------------------------


def _figure3_runs(ctx: Context) -> dict:
    """The Fig 3 networks (shared by isometry:theorem4 and isometry:figure3 through the run's store) with the
    β_σ-dependent bound."""
    ctx.progress("Fig 3 networks (relu, tanh, sigmoid)", None)
    return _figure3_with_bound(_figure3_simulations(ctx.budget, ctx.seed, ctx.device, ctx.dtype))


@shared
def _figure3_simulations(budget: str, seed: int, device: str, dtype: str) -> dict:
    ctx = Context(budget=budget, seed=seed, device=device, dtype=dtype)
    n, d, depth, seeds = ctx.pick((30, 1000, 12, 4), (100, 5000, 30, 10), (100, 5000, 30, 10))
    rho0 = 0.5
    G0 = numerics.equicorrelated_gram(n, rho0)
    log_iso0 = float(theory.log_isometry(G0))
    runs = {}
    acts = ["relu", "tanh", "sigmoid"]
    for i, nm in enumerate(acts):
        run = numerics.run_isometry_mlp(nm, d, G0, depth, seeds, seed=ctx.seed + i, device=ctx.device,
                                        dtype=ctx.torch_dtype)
        G = run.grams.cpu().numpy()
        gaps = theory.isometry_gap(G)  # [seeds, layers]
        mean = gaps.mean(0)
        ci = [mean_ci(gaps[:, l], CONF)[1] for l in range(depth + 1)]
        mf = theory.isometry_gap(_mf_trajectory(nm, G0, depth).grams())
        runs[nm] = {"mean": mean, "ci": ci, "meanfield": mf, "invariants": run.invariants()}
    return {"n": n, "d": d, "depth": depth, "seeds": seeds, "rho0": rho0, "runs": runs, "log_iso0": log_iso0}


def _figure3_with_bound(out: dict) -> dict:
    """The β_σ-dependent parts, recomputed on every call (β is a perturbable quantity; the cache holds simulations)."""
    n, d, depth = out["n"], out["d"], out["depth"]
    runs = {}
    for nm, r in out["runs"].items():
        beta = beta_value(nm)
        bound = np.exp(_log_bound_theorem4(np.arange(depth + 1), math.log(beta), n, out["log_iso0"]))
        runs[nm] = {**r, "beta": beta, "bound": bound, "max_ratio": float(np.max(r["mean"] / bound)),
                    "noise_floor_prediction": n / (2 * d * (1 - (2 - beta) ** 2))}
    return {**out, "runs": runs}


def control_figure3(ctx: Context) -> Verdict:
    fw = _figure3_runs(ctx)
    rows = []
    for nm, r in fw["runs"].items():  # the dashed curve with its constant 4n/det(G0) dropped and rate squared
        ell = np.arange(fw["depth"] + 1)
        wrong = float(r["mean"][0]) * r["beta"] ** (-2.0 * ell)
        ratio = float(np.max(r["mean"] / wrong))
        rows.append(Evidence(f"{nm}: gap ≤ gap(0)·β^(−2ℓ)", bound=1.0, observed=ratio, passed=ratio <= 1))
    return _control(ctx, rows, "bound gap(0)·β_σ^(−2ℓ) without the 4n/det G0 constant")


@PAPER.claim(
    "theorem4",
    title="Theorem 4: the isometry gap decays exponentially with rate β_σ (in mean field)",
    statement="For non-degenerate G_*^0 and ℓ ≳ β_σ⁻¹(−n log 𝓘(G_*^0) + log 4n): −log 𝓘(G_*^ℓ) ≤ exp(−ℓ log β_σ − n log 𝓘(G_*^0) + log 4n) (eq 12).",
    hypotheses="σ non-linear (β_σ > 1); G_*^0 non-degenerate",
    how="Mean-field trajectories for many activations and inputs (n = 10, 100) checked at every layer in log space "
        "(accurate gaps down to 1e-300); fitted asymptotic decay rate with a 95% CI; the Fig 3 finite-width networks "
        "(n = 100, d = 5000, 10 seeds) against the bound; the depth threshold compared with the proof. The gap itself "
        "near G = cI (eigenvalues μ_i of G/(tr G/n) − I below 1e-3, where it is a series in μ) against 50-digit mpmath "
        "of eq (3), to 1e-12 relative. The network's two simulators (exact in law, explicit inputs and weights) against "
        "each other (KS, n = 4, d = 64).",
    negative_control=control_theorem4,
    control_description="log β_σ replaced by 3 log(1/(2 − β_σ)), a rate above β_σ and the true decay",
    uses=("numerics.layernorm_meanfield_trajectory", "numerics.simulate_isometry_mlp", "theory.isometry_gap",
              "numerics.inputs_with_gram"),
    parameters=(_acts_param("relu,tanh,sigmoid,…"),
                    Parameter("input", P.choice("equicorrelated", "duplicated"), "equicorrelated",
                              "input batch: equicorrelated or duplicated")),
    aliases=("theorem-a5",),
    depends_on=('beta',),
    hypothesis_checks=(H_NONLINEAR, H_INPUT))
def check_theorem4(ctx: Context) -> Verdict:
    requested = P.as_names(ctx.params.get("activations")) or ctx.pick(
        ["relu", "tanh", "sigmoid"], ["relu", "tanh", "sigmoid", "sin", "exp", "step", "gelu", "selu", "he2"],
        [n for n in theory.registered_names() if n not in ("he0", "linear", "swish", "identity", "he1")])
    if ctx.params.get("input") == "duplicated":
        G0 = numerics.equicorrelated_gram(10, 0.5)
        G0[-1, :] = G0[0, :]
        G0[:, -1] = G0[:, 0]
        G0[-1, -1] = 1.0
        raise HypothesisNotMet(H_INPUT.name, "the input batch has a duplicated sample: G_*^0 is degenerate (𝓘(G0) = "
                               f"{float(theory.isometry(G0)):.3g}), so Theorem 4 does not apply; the duplicate stays "
                               "duplicated at every layer and the gap stays infinite",
                               [Evidence("isometry of the input Gram", numeric=float(theory.isometry(G0)), passed=None)])
    # each activation is judged on its own: an affine one is outside the hypotheses, the others still decide
    affine = [nm for nm in requested if theory.activation(nm).is_affine]
    acts = [nm for nm in requested if nm not in affine]
    if not acts:
        raise HypothesisNotMet(H_NONLINEAR.name, f"{', '.join(affine)}: affine, β_σ = 1 and eq (12) predicts no decay "
                               "(Theorem 4 needs a nonlinear σ)")
    depth = ctx.pick(150, 600, 2000)
    rows = _theorem4_meanfield_rows(ctx, acts, lambda nm: math.log(beta_value(nm)), depth) + beta_rows(acts[:3])
    rows.append(_gap_series_row(ctx))
    # asymptotic rate: the gap decays like (2 − β)^{2ℓ}, at least as fast as the bound's β^{−ℓ}
    for nm in acts[:3]:
        tr = _mf_trajectory(nm, numerics.equicorrelated_gram(10, 0.5), 200)
        gaps = theory.isometry_gap(tr.grams(range(100, 201, 10)))
        ok = np.all(gaps > 0) and np.all(np.isfinite(gaps))
        if ok:
            rate, ci = fit_log_rate(np.arange(100, 201, 10), gaps)
            beta = beta_value(nm)
            # eq (12) bounds the gap, not its local decay rate: only in the asymptotic regime (linearisation at G = I)
            # must the rate reach log β_σ. The window ℓ = 100..200 is asymptotic when the bound has fallen by e^5
            # before it, 100·log β_σ ≥ 5 (decided from β_σ, before looking at the trajectory); else informational
            asymptotic = 100 * math.log(beta) >= ASYMPTOTIC_EFOLDS
            rows.append(Evidence(f"{nm}: fitted asymptotic decay rate of the mean-field gap (ℓ = 100..200)",
                                 theory=-2 * math.log(2 - beta), numeric=rate, ci=ci, bound=math.log(beta),
                                 observed=ci[1], confidence=CONF,
                                 passed=(ci[1] >= math.log(beta)) if asymptotic else None,
                                 note="predicted: −2 log(2 − β_σ) (linearisation at G = I); bound: log β_σ, the rate of "
                                      "eq (12), which the CI's upper end (observed) must reach"
                                      + ("" if asymptotic else
                                         f"; informational: 100·log β_σ = {100 * math.log(beta):.3g} < "
                                         f"{ASYMPTOTIC_EFOLDS:g}, the window is not in the asymptotic regime, where "
                                         "alone eq (12) forces this rate")))
    # finite width: the Fig 3 setting (shared with isometry:figure3)
    fw = _figure3_runs(ctx)
    for nm, res in fw["runs"].items():
        rows.append(Evidence(f"{nm}: finite width n = {fw['n']}, d = {fw['d']}, depth {fw['depth']}: max over ℓ of "
                             "observed gap / bound", bound=1.0, observed=res["max_ratio"],
                             slack=1 / res["max_ratio"], samples=fw["seeds"], passed=res["max_ratio"] <= 1.0,
                             note=f"the bound is loose by a factor ≥ {1 / res['max_ratio']:.3g} "
                                  f"(at ℓ = {fw['depth']}: bound {res['bound'][-1]:.3g} vs gap {res['mean'][-1]:.3g})"))
    rows += [invariant_row(f"{nm}: the Fig 3 networks", res["invariants"]) for nm, res in fw["runs"].items()]
    rows += memo(("isometry_mlp_variants", ctx.budget, ctx.seed, ctx.dtype), lambda: simulator_variant_rows(ctx))
    thresholds = []
    errata_ev = []
    for nm, n in (("sigmoid", 100), ("relu", 100), ("tanh", 10)):
        ev, info = _threshold_evidence(nm, n, 0.5, ctx.pick(3000, 6000, 10000))
        rows.append(ev)
        thresholds.append(info)
        errata_ev.append(f"{nm}, n = {n}: printed {info['printed_threshold']:.0f}, corrected "
                         f"{info['corrected_threshold']:.0f}, proof's condition first met at layer "
                         f"{info['first_layer_gamma_below_1/(2n-2)']}")
    st = status_from_rows(rows)
    errata = [Erratum("Theorem 4 / Theorem A.5, depth condition", "ℓ ≳ β_σ⁻¹(−n log 𝓘(G_*^0) + log(4n))",
                      "ℓ ≳ (log β_σ)⁻¹(−n log 𝓘(G_*^0) + log(4n))",
                      "the right side of eq (12) is below the initial gap only once ℓ log β_σ exceeds −n log 𝓘(G0) + "
                      "log 4n, and the proof's step (31) needs γ(G_*^ℓ) < 1/(2n−2), i.e. ℓ > log(2(n−1)γ(G0))/log β_σ; "
                      "β_σ ∈ [1, 2] so β_σ⁻¹ ≥ 1/2 cannot provide the 1/log β_σ → ∞ scaling as β_σ → 1. "
                      + "; ".join(errata_ev), "error"),
              Erratum("Proof of Theorem 4, eq (28)", "det(G_*^ℓ) = (1 − (n−1)γ/(1+γ))^n", "det(G_*^ℓ) ≥ …",
                      "continues the inequality of eq (27)", "typo")]
    outside = (f"; outside the hypotheses (affine, β_σ = 1): {', '.join(affine)}" if affine else "")
    rows += [Evidence(f"{nm}: affine σ — outside the hypotheses (β_σ = 1, no decay predicted)", passed=None)
             for nm in affine]
    return Verdict(ctx.claim_id, st,
                   (f"eq (12) holds at every layer in mean field ({len(acts)} activations, depth {depth}) and at finite "
                    "width, where it is loose by many orders of magnitude; the depth condition is misprinted"
                    if st == HOLDS else "eq (12) is violated") + outside, rows, errata,
                   artefacts={"thresholds": thresholds})

@PAPER.claim(
    "figure3",
    title="Fig 3: finite-width isometry gap vs the Theorem 4 bound (n = 100, d = 5000)",
    statement="Finite-width MLPs (eq 1) with relu, tanh, sigmoid: the gap stays under the dashed Theorem 4 bound and β_σ "
        "predicts its decay.",
    hypotheses="inputs: equicorrelated batch, ρ₀ = 0.5 (the paper's inputs are unspecified)",
    how="Exact-in-distribution simulator, 10 seeds, mean ± 95% t-interval per layer; mean-field curve alongside; "
        "fitted early decay rates. Data (and a PNG with --artefacts) are written as artefacts.",
    negative_control=control_figure3,
    control_description="the bound gap(0)·β_σ^(−2ℓ), dropping the 4n/det G0 constant",
    uses=("numerics.simulate_isometry_mlp", "numerics.layernorm_meanfield_trajectory"),
    depends_on=('beta',))
def check_figure3(ctx: Context) -> Verdict:
    fw = _figure3_runs(ctx)
    rows, data, series = beta_rows(list(fw["runs"])), {}, []
    rates = {}
    k = min(8, fw["depth"])
    for nm, r in fw["runs"].items():
        rate, ci = fit_log_rate(np.arange(1, k + 1), r["mean"][1:k + 1])
        rates[nm] = (rate, ci, r["beta"])
        at = int(np.argmax(r["mean"] / r["bound"]))   # the layer closest to the bound
        rows.append(Evidence(f"{nm}: finite-width gap ≤ Theorem 4 bound at every layer", bound=float(r["bound"][at]),
                             observed=float(r["mean"][at]), numeric=float(r["mean"][at]), ci=tuple(r["ci"][at]),
                             confidence=CONF, slack=1 / r["max_ratio"], samples=fw["seeds"], passed=r["max_ratio"] <= 1,
                             note=f"at the layer closest to the bound, ℓ = {at}"))
        rows.append(Evidence(f"{nm}: gap at depth {fw['depth']}, finite width vs mean field", theory=float(r["meanfield"][-1]),
                             numeric=float(r["mean"][-1]), ci=tuple(r["ci"][-1]), confidence=CONF, samples=fw["seeds"],
                             passed=None,
                             note=f"finite-width noise accumulates: linearised prediction of the stationary gap "
                                  f"n/(2d(1 − (2−β)²)) = {r['noise_floor_prediction']:.3g}"))
        data[nm] = {"layer": list(range(fw["depth"] + 1)), "finite_width_mean": r["mean"], "finite_width_ci95": r["ci"],
                    "mean_field": r["meanfield"], "theorem4_bound": r["bound"], "beta": r["beta"]}
        ell = np.arange(fw["depth"] + 1)
        ci = np.asarray(r["ci"], dtype=float)
        series += [Series(f"{nm}: $d = {fw['d']}$", ell, r["mean"], "simulation", nm, ci[:, 0], ci[:, 1]),
                   Series(f"{nm}: mean field", ell, np.maximum(r["meanfield"], 1e-300), "theory", nm),
                   Series(f"{nm}: Theorem 4 bound", ell, r["bound"], "bound", nm)]
    order_beta = sorted(rates, key=lambda a: -rates[a][2])
    order_rate = sorted(rates, key=lambda a: -rates[a][0])
    rows.append(Evidence("β_σ orders the early decay rates (layers 1..8, fitted)", theory=", ".join(order_beta),
                         numeric=", ".join(order_rate), passed=order_beta == order_rate,
                         note="; ".join(f"{a}: rate {v[0]:.3f} [{v[1][0]:.3f}, {v[1][1]:.3f}], log β = {math.log(v[2]):.3f}"
                                        for a, v in rates.items())))
    st = status_from_rows(rows)
    arte = {"figure3_data": data}
    if ctx.artefact_dir:
        files = write_figure(ctx.artefact_dir, "isometry_figure3",
                             [Panel("isometry gap vs depth (Fig 3)", r"layer $\ell$",
                                    r"isometry gap $-\log\,\mathcal{I}(G^{\ell})$", series, logy=True)],
                             f"n = {fw['n']}, d = {fw['d']}; {fw['seeds']} seeds, input correlation {fw['rho0']}, "
                             f"budget {ctx.budget}; the Theorem 4 bound dashed, or its range marked at the top where it "
                             "is off scale; band: 95% t-interval over seeds")
        arte.update({f"figure3_{k}": v for k, v in files.items()})
    return Verdict(ctx.claim_id, st,
                   f"Fig 3 reproduced (n = {fw['n']}, d = {fw['d']}, {fw['seeds']} seeds): the bound holds and is "
                   "astronomically loose at these depths; β_σ orders the observed decay" if st == HOLDS
                   else "Fig 3 not reproduced", rows, artefacts=arte)


# =============================================================================================
# Fig A.1 — γ(G^ℓ) at finite width (n = 10, d = 10000) against Corollary A.3
# =============================================================================================

def _figure_a1_run(ctx: Context, nm: str, d: int, depth: int, seeds: int, salt: int):
    n = 10
    G0 = numerics.equicorrelated_gram(n, 0.5)
    G = numerics.simulate_isometry_mlp(nm, d, G0, depth, seeds, seed=ctx.seed + salt, device=ctx.device,
                                       dtype=ctx.torch_dtype).cpu().numpy()
    gam = theory.gram_potential(G)
    beta = beta_value(nm)
    bound = float(gam[0, 0]) * beta ** (-np.arange(depth + 1.0))
    return gam.mean(0), bound


@PAPER.claim(
    "figure-a1",
    title="Fig A.1: γ(G^ℓ) of finite-width MLPs follows Corollary A.3 (n = 10, d = 10000)",
    statement="γ(G^ℓ) of MLPs with relu, tanh, sigmoid decays as predicted by γ(G^0)β_σ^(−ℓ).",
    hypotheses="finite width: the prediction is meaningful above the O(d^(−1/2)) floor of γ",
    how="Exact simulator at widths d and d/4; where the bound exceeds 3× the floor sqrt(2 log n²/d), the excess of the "
        "mean γ over the bound must shrink like d^(−1/2) (ratio ≤ 0.75 for a 4× width increase) or vanish.",
    negative_control=None,
    control_description="",
    uses=("numerics.simulate_isometry_mlp", "theory.gram_potential"),
    depends_on=('beta',))
def check_figure_a1(ctx: Context) -> Verdict:
    n, d, depth, seeds = ctx.pick((10, 4000, 15, 6), (10, 10000, 30, 10), (10, 10000, 60, 20))
    G0 = numerics.equicorrelated_gram(n, 0.5)
    rows, data = beta_rows(("relu", "tanh", "sigmoid")), {}
    for i, nm in enumerate(("relu", "tanh", "sigmoid")):
        ctx.progress(f"Fig A.1 network {nm}", i / 3)
        mean, bound = _figure_a1_run(ctx, nm, d, depth, seeds, 100 + i)
        mean4, _ = _figure_a1_run(ctx, nm, d // 4, depth, seeds, 200 + i)
        # γ of n independent random unit vectors in ℝ^d is ≈ sqrt(2 log n²/d): the finite-width floor
        floor = math.sqrt(2 * math.log(n * n) / d)
        above = bound >= 3 * floor
        excess = float(np.max(np.maximum(mean - bound, 0)[above])) if above.any() else 0.0
        excess4 = float(np.max(np.maximum(mean4 - bound, 0)[above])) if above.any() else 0.0
        ok = excess == 0.0 or (excess4 > 0 and excess / excess4 <= 0.75)
        rows.append(Evidence(f"{nm}: excess of mean γ(G^ℓ) over γ(G^0)β^(−ℓ) where the bound ≥ 3× floor, width d vs d/4",
                             theory=0.5, numeric=excess / excess4 if excess4 > 0 else 0.0, bound=0.75,
                             observed=excess / excess4 if excess4 > 0 else 0.0, samples=seeds, passed=ok,
                             note=f"max excess {excess:.3g} at d = {d}, {excess4:.3g} at d = {d // 4} (ratio 0.5 expected "
                                  f"for a d^(-1/2) finite-width effect; pass if ≤ 0.75 or zero); implied constant "
                                  f"excess·√d = {excess * math.sqrt(d):.3g} vs {excess4 * math.sqrt(d / 4):.3g}; "
                                  f"floor sqrt(2 log n²/d) = {floor:.3g}; γ at depth {depth}: finite {mean[-1]:.3g}, "
                                  f"bound {bound[-1]:.3g}"))
        mf = _mf_trajectory(nm, G0, depth)
        mfg = np.abs(mf.offdiag).max(axis=1)
        data[nm] = {"layer": list(range(depth + 1)), "gamma_mean": mean, "gamma_mean_width_d/4": mean4,
                    "gamma_meanfield": mfg / (1 - mfg), "bound": bound}
    st = status_from_rows(rows)
    arte = {"figure_a1_data": data}
    if ctx.artefact_dir:
        series = []
        for nm, v in data.items():
            ell = np.arange(len(v["layer"]))
            series += [Series(f"{nm}: $d = {d}$", ell, v["gamma_mean"], "simulation", nm),
                       Series(f"{nm}: $d = {d // 4}$", ell, v["gamma_mean_width_d/4"], "theory", nm),
                       Series(f"{nm}: Corollary A.3 bound", ell, v["bound"], "bound", nm)]
        files = write_figure(ctx.artefact_dir, "isometry_figure_a1", [Panel(
            r"Fig A.1: potential $\gamma(G^{\ell})$ vs the Corollary A.3 bound", r"layer $\ell$",
            r"$\gamma(G^{\ell})$ (mean over seeds)", series, logy=True)],
            f"n = {n}, d = {d} (points) and d/4 = {d // 4} (thin lines), {seeds} seeds, input correlation 0.5, "
            f"budget {ctx.budget}; dashed: γ(G⁰)β^(−ℓ); the finite-width floor is sqrt(2 log n²/d)")
        arte.update({f"figure_a1_{k}": v for k, v in files.items()})
    return Verdict(ctx.claim_id, st,
                   f"finite-width γ (n = {n}, d = {d}, {seeds} seeds) follows the Corollary A.3 bound up to a "
                   "deviation that shrinks like d^(−1/2)" if st == HOLDS else
                   "finite-width γ exceeds the bound by more than a d^(−1/2) effect", rows, artefacts=arte)
