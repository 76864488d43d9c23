"""Smooth shaping: Proposition 3.7 (Feller's test), eq (4.1), Examples 4.1 and 4.2, Theorem 3.9, Proposition 3.10 and Fig 2."""
from __future__ import annotations

import math

import numpy as np
import sympy as sp
from theory import covariance_sde as tcs

from ...api import Context, density_band, Erratum, Evidence, Panel, Series, Verdict, write_figure
from ._common import _control, _ks_row, _network, _sym_row, criterion_rows, explosion_criterion, ncs, PAPER

# =============================================================================================
# Proposition 3.7 — Feller's test; eq (4.1); Examples 4.1, 4.2; Theorem 3.9; Proposition 3.10; Fig 2
# =============================================================================================

def _explosion_fraction(b: float, T: float, paths: int, seed: int, dt: float = 1e-3) -> tuple[float, float]:
    """Fraction of paths of (3.7) (as (4.1) with a = 1) that explode (V > 1e8) by T, and the median time."""
    drift = ncs.covariance_drift("smooth", phi2=0.0, phi3=b, a=1.0)   # (φ‴/2)V(2V − 2) = bV(V − 1)
    res = ncs.simulate_covariance_sde(drift, np.array([[1.0]]), T, dt, paths, scheme="wishart", seed=seed,
                                      keep="last")
    frac = float(res.exploded.mean())
    med = float(np.nanmedian(res.explosion_time)) if frac > 0 else math.nan
    return frac, med


def _prop37_rows(ctx: Context, mislabel: bool = False) -> list[Evidence]:
    rows = []
    for b in (-2, -1, -0.5, 0, 0.5, 1, 2):
        r = tcs.feller_explosion_test(b)
        want = b > 0
        if mislabel and b == 0.5:
            want = False
        rows.append(Evidence(f"b = {b}: Feller's test (scale p′ = {sp.simplify(r.scale_density)})",
                             theory="explodes" if want else "no explosion",
                             numeric="explodes" if r.explodes else "no explosion", passed=r.explodes == want,
                             note=f"v(∞) {'finite' if r.v_infinity_finite else 'infinite'}, v(0+) "
                                  f"{'finite' if r.v_zero_finite else 'infinite'}"))
    vals = {b: [tcs.feller_v_numeric(b, M) for M in (1e2, 1e4)] for b in (-1.0, 0.0, 1.0)}
    rows.append(Evidence("numerical v(M) at M = 10², 10⁴ — converges for b = 1, grows for b = 0 and b = −1",
                         numeric=str({b: [f"{v:.4g}" for v in vs] for b, vs in vals.items()}),
                         passed=abs(vals[1.0][1] / vals[1.0][0] - 1) < 0.05 and vals[0.0][1] > 50 * vals[0.0][0]
                         and vals[-1.0][1] > 5 * vals[-1.0][0]))
    paths = ctx.pick(2000, 8000, 20000)
    for b, T in ((2.0, 2.0), (-1.0, 2.0)):
        frac, med = _explosion_fraction(b, T, paths, ctx.seed + 37)
        want = b > 0
        if mislabel and b > 0:
            want = False
        rows.append(Evidence(f"simulated (3.7), b = {b}, X₀ = 1, T = {T}: fraction exploded", numeric=frac,
                             samples=paths, passed=(frac > 0.01) == want,
                             note=f"median explosion time {med:.3f}" if frac else "no path exploded"))
    return rows


def control_proposition3_7(ctx: Context) -> Verdict:
    return _control(ctx, _prop37_rows(ctx, mislabel=True), "b = 1/2 (and b > 0 paths) labelled stable")


@PAPER.claim(
    "proposition3-7",
    title="Proposition 3.7: finite-time explosion iff b > 0 (Feller's test)",
    statement="For dX = bX(X − 1)dt + √2 X dB, X₀ > 0: P[τ* = ∞] = 1 iff b ≤ 0 (eq 3.7).",
    hypotheses="X₀ > 0",
    how="Scale and speed densities in sympy; v(0+) and v(∞) decided by asymptotic comparison (limits in sympy), "
        "confirmed by log-space cumulative quadrature of v on [1, M]; simulated explosion fractions.",
    negative_control=control_proposition3_7,
    control_description="a positive b labelled stable must be caught",
    uses=("theory.covariance_sde.feller_explosion_test", "theory.covariance_sde.feller_v_numeric",
              "numerics.covariance_sde.simulate_covariance_sde"))
def check_proposition3_7(ctx: Context) -> Verdict:
    return Verdict.judged(ctx.claim_id, _prop37_rows(ctx),
                          "Feller's test in sympy: finite-time explosion iff b > 0; simulation agrees",
                          "Proposition 3.7 not reproduced")


def _smooth_drift_rows(wrong: bool = False) -> list[Evidence]:
    b, diag = tcs.smooth_covariance_drift()
    pb, pd = tcs.smooth_drift_printed()
    if wrong:
        pb = pb.subs(tcs.phi3, 2 * tcs.phi3)
        pd = pd.subs(tcs.phi3, 2 * tcs.phi3)
    return [_sym_row("b^{αβ} (3.10): Taylor expansion of sφ(x/s) to s⁻², Isserlis moments, c = 1/E φ_s(g)²", b, pb),
            _sym_row("diagonal (4.1): b^{αα} = (¾φ″(0)² + φ‴(0))V(V − 1)/a²", diag, pd),
            simulated_drift_row(b)]


#: (φ″(0), φ‴(0), a) where the simulators' drift is checked: both terms of (3.10) non-zero (tanh, which the
#: simulations use, has φ″(0) = 0 and would hide an error in the φ″(0)² term)
DRIFT_CHECK_POINT = (0.7, -0.4, 1.3)


def simulated_drift_row(derived: sp.Expr, seed: int = 3909) -> Evidence:
    """The drift the SDE simulations integrate (``numerics.covariance_sde.covariance_drift("smooth")``) against
    (3.10) as derived in sympy, entrywise on 2×2 and 3×3 covariance matrices (random, seeded), at
    :data:`DRIFT_CHECK_POINT` where both of its terms contribute."""
    p2, p3, a = DRIFT_CHECK_POINT
    drift = ncs.covariance_drift("smooth", phi2=p2, phi3=p3, a=a)
    f = sp.lambdify((tcs.V11, tcs.V12, tcs.V22), derived.subs({tcs.phi2: p2, tcs.phi3: p3, tcs.a_shape: a}), "math")
    rng = np.random.default_rng(seed)
    worst = 0.0
    for m in (2, 3):
        X = rng.standard_normal((8, m, m + 2))
        V = X @ X.transpose(0, 2, 1) / (m + 2)
        got = drift(V)
        for p in range(V.shape[0]):
            for i in range(m):
                for j in range(m):
                    want = f(V[p, i, i], V[p, i, j], V[p, j, j]) if i != j else f(V[p, i, i], V[p, i, i], V[p, i, i])
                    worst = max(worst, abs(got[p, i, j] - want) / max(1.0, abs(want)))
    return Evidence(f"the drift the SDE simulations integrate vs (3.10) derived in sympy, at φ″(0) = {p2}, "
                    f"φ‴(0) = {p3}, a = {a} (both terms non-zero), entrywise on 16 random 2×2 and 3×3 covariances",
                    observed=float(worst), bound=1e-12, passed=bool(worst <= 1e-12),
                    note="observed: max relative |Δb|; the claims simulate tanh (φ″(0) = 0), where the φ″(0)² term "
                         "does not show")


def _theorem39_rows(ctx: Context, omit_drift: bool = False) -> list[Evidence]:
    rows = [] if omit_drift else _smooth_drift_rows()
    n = d = 100
    samples = ctx.pick(2000, 6000, 8192)
    a = 1.0
    crit = tcs.explosion_criterion("tanh")  # only φ″(0), φ‴(0): the criterion's value is not consumed here
    net = _network("smooth", n, d, 0.3, samples, ctx.seed + 39, act="tanh", a=a)
    drift = ncs.covariance_drift("none" if omit_drift else "smooth", phi2=float(crit.phi2), phi3=float(crit.phi3), a=a)
    sde = ncs.simulate_covariance_sde(drift, np.array([[1.0, 0.3], [0.3, 1.0]]), 1.0, 1e-2, samples,
                                      scheme="wishart", seed=ctx.seed + 40, keep="last")
    for (i, j), name in (((0, 0), "V¹¹"), ((0, 1), "V¹²")):
        rows.append(_ks_row(f"{name} at T = 1: shaped tanh network (a = {a}, n = d = {n}) vs SDE (3.9)"
                            f"{' without drift' if omit_drift else ''}", net.V[:, -1, i, j], sde.values[:, -1, i, j]))
    return rows


def control_theorem3_9(ctx: Context) -> Verdict:
    return _control(ctx, _theorem39_rows(ctx, omit_drift=True), "the covariance SDE without drift")


@PAPER.claim(
    "theorem3-9",
    title="Theorem 3.9: the covariance SDE for smooth shaped activations",
    statement="With φ_s = sφ(x/s), s = a√n, V → dV = b dt + Σ^{1/2}dB with b^{αβ} = φ″(0)²/(4a²)(V^{αα}V^{ββ} + V^{αβ}(2V^{αβ} − 3)) "
        "+ φ‴(0)/(2a²)V^{αβ}(V^{αα} + V^{ββ} − 2) (eq 3.10), locally (up to explosion).",
    hypotheses="Assumption 3.5",
    how="sympy derivation of (3.10) and (4.1); shaped tanh networks (a = 1, n = d = 100) vs the SDE, KS on V¹¹, V¹².",
    negative_control=control_theorem3_9,
    control_description="the SDE without drift must be rejected",
    uses=("theory.covariance_sde.smooth_covariance_drift", "numerics.covariance_sde.simulate_covariance_sde"))
def check_theorem3_9(ctx: Context) -> Verdict:
    return Verdict.judged(ctx.claim_id, _theorem39_rows(ctx),
                          "the smooth-activation drift (3.10) is derived exactly and the SDE matches shaped networks",
                          "Theorem 3.9 not reproduced")


def control_eq4_1(ctx: Context) -> Verdict:
    return _control(ctx, _smooth_drift_rows(wrong=True)[1:], "(4.1) with φ‴(0) doubled")


@PAPER.claim(
    "eq4-1",
    title="Eq (4.1): the diagonal marginal dV = (¾φ″(0)² + φ‴(0))V(V − 1)/a² dt + √2 V dB",
    statement="The V^{αα} marginal of (3.9) is dV = (¾φ″(0)² + φ‴(0))(V/a²)(V − 1)dt + √2 V dB.",
    hypotheses="Assumption 3.5",
    how="The diagonal of the derived (3.10); single-input shaped networks (tanh, softplus) vs (4.1), KS.",
    negative_control=control_eq4_1,
    control_description="a drift with φ‴(0) doubled must differ from the derivation",
    uses=("theory.covariance_sde.smooth_covariance_drift", "numerics.covariance_sde.simulate_shaped_network"),
    depends_on=('criterion',))
def check_eq4_1(ctx: Context) -> Verdict:
    rows = _smooth_drift_rows()[1:] + criterion_rows(("tanh", "softplus", "4*sigmoid(x)-2", "sin", "gelu"))
    # the diagonal of a single-input shaped network vs (4.1)
    n = d = 100
    samples = ctx.pick(2000, 6000, 8192)
    for act, a in (("tanh", 1.0), ("softplus", 1.0)):
        crit = explosion_criterion(act)
        net = _network("smooth", n, d, 0.0, samples, ctx.seed + 41, act=act, a=a, m=1)
        k = float(crit.value)
        drift = ncs.covariance_drift("smooth", phi2=0.0, phi3=k, a=a)   # (φ‴/2a²)V(2V−2) = kV(V−1)/a²
        sde = ncs.simulate_covariance_sde(drift, np.array([[1.0]]), 1.0, 1e-2, samples, scheme="wishart",
                                          seed=ctx.seed + 42, keep="last")
        rows.append(_ks_row(f"{act} (criterion {k:.4g}, a = {a}): V^{{αα}} of n = d = {n} networks vs (4.1)",
                            net.V[:, -1, 0, 0], sde.values[:, -1, 0, 0]))
    return Verdict.judged(ctx.claim_id, rows, "the diagonal marginal (4.1) is derived and matches networks",
                          "eq (4.1) not reproduced")


def _example41_rows(wrong: bool = False) -> list[Evidence]:
    rows = [] if wrong else criterion_rows(("4*sigmoid(x)-2", "tanh", "sigmoid", "erf", "atan(x)"))
    for act, p2, p3 in (("4*sigmoid(x)-2", 0, sp.Rational(-1, 2)), ("tanh", 0, -2)):
        c = explosion_criterion(act)
        if wrong:
            p3 = -p3
        rows.append(Evidence(f"{act}: φ″(0), φ‴(0), criterion, stable", theory=(str(p2), str(p3)),
                             numeric=(str(c.phi2), str(c.phi3)), passed=(c.phi2 == p2 and c.phi3 == p3 and c.stable),
                             note=f"criterion = {c.value}"))
    if not wrong:
        for act in ("sigmoid", "erf", "atan(x)", "tanh"):
            c = explosion_criterion(act)
            rows.append(Evidence(f"CDF-like {act} (recentred): φ″(0) = 0, φ‴(0) < 0", numeric=(str(c.phi2), str(c.phi3)),
                                 passed=c.phi2 == 0 and float(c.phi3) < 0, note=c.recentred or "already meets 3.5"))
    return rows


@PAPER.claim(
    "example4-1",
    title="Example 4.1: sigmoid recentred as 4σ − 2, and tanh",
    statement="4σ(x) − 2: φ″(0) = 0, φ‴(0) = −1/2; tanh: φ″(0) = 0, φ‴(0) = −2; both stable; CDFs of symmetric unimodal "
        "densities give φ″(0) = 0, φ‴(0) < 0.",
    hypotheses="Assumption 3.5",
    how="sympy derivatives of the (recentred) activations; the criterion (3/4)φ″(0)² + φ‴(0).",
    negative_control=None,
    control_description="",
    uses=("theory.covariance_sde.explosion_criterion",),
    depends_on=('criterion',))
def check_example4_1(ctx: Context) -> Verdict:
    return Verdict.judged(ctx.claim_id, _example41_rows(), "sigmoid (4σ − 2) and tanh are stable, as printed",
                          "Example 4.1 not reproduced")


def _example42_rows(ctx: Context, printed_threshold: bool = False) -> list[Evidence]:
    rows = []
    p2, p3, crit, thr = tcs.softplus_shift_criterion()
    x0 = sp.Symbol("x_0", real=True)
    rows.append(_sym_row("φ″(0)", p2, 1 / (1 + sp.exp(x0))))
    rows.append(_sym_row("φ‴(0)", p3, (1 - sp.exp(x0)) / (1 + sp.exp(x0)) ** 2))
    printed = (sp.Rational(5, 4) - sp.exp(x0)) / (1 + sp.exp(x0)) ** 2
    derived_ok = sp.simplify(crit - (sp.Rational(7, 4) - sp.exp(x0)) / (1 + sp.exp(x0)) ** 2) == 0
    rows.append(Evidence("criterion ¾φ″(0)² + φ‴(0): derived vs printed (5/4 − e^{x₀})/(1 + e^{x₀})²",
                         theory=str(printed), numeric=str(crit), passed=None,
                         note=f"derived = (7/4 − e^{{x₀}})/(1 + e^{{x₀}})²: {derived_ok}; the printed form is wrong"))
    threshold = float(thr[0])
    claimed = math.log(5 / 4) if printed_threshold else threshold
    rows.append(Evidence("stability threshold x₀* (criterion = 0)", theory=claimed, numeric=threshold,
                         passed=abs(claimed - threshold) < 1e-12,
                         note=f"log(7/4) = {math.log(7 / 4):.6f}; printed log(5/4) = {math.log(5 / 4):.6f}"))
    # simulation between the two thresholds: x₀ = 0.3 is stable by the printed criterion, unstable by the derived one
    a = 0.25
    paths = ctx.pick(2000, 8000, 20000)
    for xv in (0.3, 1.0):
        k = float(crit.subs(x0, xv))
        frac, med = _explosion_fraction(k / a ** 2, 2.0, paths, ctx.seed + 42)
        unstable_claim = xv < claimed
        rows.append(Evidence(f"x₀ = {xv}: (4.1) with a = {a}: fraction of paths exploded by T = 2",
                             theory="explodes" if unstable_claim else "no explosion", numeric=frac, samples=paths,
                             passed=(frac > 0.01) == unstable_claim,
                             note=f"b = criterion/a² = {k / a ** 2:.4f}" + (f", median time {med:.3f}" if frac else "")))
    rows.append(Evidence("the shift x₀ ≈ 0.41 found numerically in [38]", numeric=float(crit.subs(x0, 0.41)),
                         passed=None, note="criterion > 0: UNSTABLE by the derived criterion (the paper calls it stable)"))
    return rows


def control_example4_2(ctx: Context) -> Verdict:
    rows = _example42_rows(ctx, printed_threshold=True)
    return _control(ctx, [r for r in rows if "threshold" in r.name or "x₀ = 0.3" in r.name],
                    "the printed threshold log(5/4) (x₀ = 0.3 labelled stable)")


@PAPER.claim(
    "example4-2",
    title="Example 4.2: shifted softplus and its stability threshold",
    statement="φ(x) = (1 + e^{−x₀})log((1 + e^{x+x₀})/(1 + e^{x₀})): φ″(0) = 1/(1+e^{x₀}), φ‴(0) = (1−e^{x₀})/(1+e^{x₀})², "
        "criterion (5/4 − e^{x₀})/(1+e^{x₀})², stable iff x₀ ≥ log(5/4).",
    hypotheses="Assumption 3.5",
    how="sympy: derivatives, criterion and its root; simulation of (4.1) between the printed and derived thresholds.",
    negative_control=control_example4_2,
    control_description="the printed threshold must be rejected by the simulation",
    uses=("theory.covariance_sde.softplus_shift_criterion", "numerics.covariance_sde.simulate_covariance_sde"))
def check_example4_2(ctx: Context) -> Verdict:
    rows = _example42_rows(ctx)
    er = Erratum("Example 4.2", "¾φ″(0)² + φ‴(0) = (5/4 − e^{x₀})/(1 + e^{x₀})²; stable iff x₀ ≥ log(5/4) ≈ 0.097; "
                 "[38]'s x₀ ≈ 0.41 is stable (and log(5/4) is 0.223; 0.097 is log₁₀(5/4))",
                 "¾φ″(0)² + φ‴(0) = (7/4 − e^{x₀})/(1 + e^{x₀})² (¾ + 1 = 7/4); stable iff x₀ ≥ log(7/4) ≈ 0.5596; "
                 "x₀ ≈ 0.41 is unstable",
                 "The printed φ″(0) = 1/(1 + e^{x₀}) and φ‴(0) = (1 − e^{x₀})/(1 + e^{x₀})² are right (sympy), and their "
                 "combination is (3/4 + 1 − e^{x₀})/(1 + e^{x₀})². Simulating (4.1) at x₀ = 0.3 (a = 1/4) explodes on "
                 "a positive fraction of paths by T = 2; x₀ = 1 never does.", "error")
    return Verdict.judged(ctx.claim_id, rows,
                          "φ″(0), φ‴(0) as printed; the criterion and threshold corrected to log(7/4) (erratum), confirmed "
                          "by simulation", "Example 4.2 not reproduced", errata=[er])


def _figure2_rows(ctx: Context, swap: bool = False, figure: dict | None = None) -> list[Evidence]:
    """Theorem 3.9 converges *locally* (Definition 3.8): compare the processes stopped when V leaves [1/r, r]
    (r = 20) — final stopped values by KS, stopped fractions by a two-proportion z-test."""
    rows = [] if swap else criterion_rows(("log(1 + exp(x + 1.0))", "log(1 + exp(x + -1.0))"))
    n = d = 100
    a, r = 1.0, 20.0
    samples = ctx.pick(1000, 4000, 8000)
    for x0, label in ((1.0, "stable"), (-1.0, "unstable")):
        act = f"log(1 + exp(x + {x0}))"
        crit = explosion_criterion(act)
        k = float(crit.value)
        net = _network("smooth", n, d, 0.0, samples, ctx.seed + 52 + int(x0), act=act, a=a, m=1, explode_at=r)
        drift = ncs.covariance_drift("smooth", phi2=0.0, phi3=k, a=a)
        sde = ncs.simulate_covariance_sde(drift, np.array([[1.0]]), 1.0, 1.0 / n, samples, scheme="wishart",
                                          seed=ctx.seed + 53, keep="last", explode_at=r)
        claim = ("unstable" if label == "stable" else "stable") if swap else label
        rows.append(Evidence(f"softplus shifted by x₀ = {x0}: criterion (¾φ″² + φ‴)", numeric=k,
                             theory=claim, passed=(k <= 0) == (claim == "stable")))
        f1, f2 = float(net.exploded.mean()), float(sde.exploded.mean())
        pool = (f1 + f2) / 2
        z = abs(f1 - f2) / math.sqrt(max(pool * (1 - pool) * 2 / samples, 1e-300)) if pool > 0 else 0.0
        rows.append(_ks_row(f"x₀ = {x0}: V at T = 1 stopped outside [1/{r:g}, {r:g}], n = d = {n} networks vs (4.1)",
                            net.V[:, -1, 0, 0], sde.values[:, -1, 0, 0],
                            note=f"stopped fractions: network {f1:.4f}, SDE {f2:.4f} (z = {z:.2f})"))
        rows[-1].passed = bool(rows[-1].passed and z < 3.5)
        if figure is not None:
            figure[x0] = (label, k, net.V[:, -1, 0, 0], sde.values[:, -1, 0, 0], f1, f2)
    if figure is not None:
        figure.update(n=n, r=r, samples=samples)
    return rows


def _figure2_plot(ctx: Context, fig: dict) -> dict:
    """Fig 2: the law of V_1 (stopped outside [1/r, r]) for the two shifts, networks against (4.1)."""
    panels = []
    for x0 in (1.0, -1.0):
        label, k, v_net, v_sde, f1, f2 = fig[x0]
        r = fig["r"]
        inside_net = np.log(v_net[(v_net > 1 / r) & (v_net < r)])
        inside_sde = np.log(v_sde[(v_sde > 1 / r) & (v_sde < r)])
        bins = np.linspace(-math.log(r), math.log(r), 41)
        mid = (bins[1:] + bins[:-1]) / 2
        h_net, h_sde = (np.histogram(v, bins, density=True)[0] for v in (inside_net, inside_sde))
        panels.append(Panel(rf"softplus$(x {'+' if x0 >= 0 else '-'} {abs(x0):g})$: {label} (criterion ${k:+.3f}$)",
                            r"$\log V_1$ (paths not stopped)", "density", [
            Series(rf"networks, $n = d = {fig['n']}$ (stopped {100 * f1:.1f}%)", mid, h_net, "simulation", "networks",
                   *density_band(h_net, inside_net.size, bins[1] - bins[0]), draw="curve"),
            Series(f"SDE (4.1), Wishart scheme (stopped {100 * f2:.1f}%)", mid, h_sde, "simulation", "SDE",
                   *density_band(h_sde, inside_sde.size, bins[1] - bins[0]), draw="curve")]))
    files = write_figure(ctx.artefact_dir, "covariance_sde_figure2", panels,
                         f"a = 1, T = 1, {fig['samples']} samples each, processes stopped outside "
                         f"[1/{fig['r']:g}, {fig['r']:g}] (Definition 3.8); budget {ctx.budget}; bands: pointwise 95% "
                         "Wilson intervals of the histograms")
    return {f"figure2_{k}": v for k, v in files.items()}


@PAPER.claim(
    "figure2",
    title="Fig 2: shaped softplus at n = d = 100, stable and unstable shifts",
    statement="Shaped softplus networks (a = 1, V₀ = 1) are stable or explode on initialization according to the criterion.",
    hypotheses="Assumption 3.5 after recentring",
    how="The criterion per shift (sympy); n = d = 100 networks vs (4.1) stopped on leaving [1/20, 20] (the local "
        "convergence of Definition 3.8): KS on the stopped values at T = 1 and a z-test on the stopped fractions.",
    negative_control=None,
    control_description="",
    uses=("theory.covariance_sde.explosion_criterion", "numerics.covariance_sde.simulate_shaped_network"),
    depends_on=('criterion',))
def check_figure2(ctx: Context) -> Verdict:
    fig: dict = {}
    rows = _figure2_rows(ctx, figure=fig)
    return Verdict.judged(ctx.claim_id, rows,
                          "shaped softplus networks (n = d = 100, a = 1) follow (4.1) at a stable and an unstable shift",
                          "Fig 2 not reproduced", artefacts=_figure2_plot(ctx, fig) if ctx.artefact_dir else {})


def _prop310_rows(ctx: Context, flip: bool = False) -> list[Evidence]:
    rows = [] if flip else criterion_rows(("softplus", "tanh"))
    ns = ctx.pick((64, 128), (64, 256), (64, 256, 1024))
    samples = ctx.pick(500, 1000, 2000)
    T = 0.5
    # (i) unstable activation (softplus at x₀ = 0: criterion 3/16 > 0), p = 1/4: V^{αα} → 0 or ∞
    act_unstable, act_stable = ("tanh", "softplus") if flip else ("softplus", "tanh")
    fr = []
    for n in ns:
        run = _network("smooth", n, int(T * n), 0.0, samples, ctx.seed + n, act=act_unstable, a=1.0, p=0.25, m=1)
        V = run.V[:, -1, 0, 0]
        fr.append(float(np.mean((V > 10) | (V < 0.1) | run.exploded)))
    rows.append(Evidence(f"(i) {act_unstable}, p = 1/4: fraction of V^{{αα}}_T outside [0.1, 10] (or exploded) grows with n "
                         "(→ 0 or ∞)", numeric=fr, passed=all(a < b for a, b in zip(fr, fr[1:])) and fr[-1] > 0.2,
                         note=", ".join(f"n = {n}: {f:.3f}" for n, f in zip(ns, fr))))
    # (i) stable activation (tanh), p = 1/4, V₀ = [[2, .3], [.3, 1]]: the diagonal is pinned at 1; the correlation
    V0 = np.array([[2.0, 0.3], [0.3, 1.0]])
    means, sds, rsd = [], [], []
    for n in ns:
        shape = ncs.Shape("smooth", n, act=act_stable, a=1.0, p=0.25)
        run = ncs.simulate_shaped_network(shape, int(T * n), V0, samples, seed=ctx.seed + 3 * n, layers=[0, int(T * n)])
        means.append(float(run.V[:, -1, 0, 0].mean()))
        sds.append(float(run.V[:, -1, 0, 0].std()))
        rsd.append(float(run.rho[:, -1].std()))
    rows.append(Evidence(f"(i) {act_stable}, p = 1/4, V₀¹¹ = 2: the diagonal degenerates to the constant 1 (mean → 1, spread → 0)",
                         numeric=(means, sds), passed=abs(means[-1] - 1) < 0.1 and all(a > b for a, b in zip(sds, sds[1:])),
                         note=", ".join(f"n = {n}: mean {m:.3f}, sd {s:.3f}" for n, m, s in zip(ns, means, sds))))
    if not flip:
        rows.append(Evidence(f"(i) {act_stable}, p = 1/4: the correlation is constant in time (printed) — spread of ρ_T "
                             f"from ρ₀ = 0.3 at T = {T}", theory=0.0, numeric=rsd[-1], bound=0.1,
                             observed=rsd[-1], passed=rsd[-1] < 0.1,
                             note=", ".join(f"n = {n}: sd(ρ_T) {s:.3f}" for n, s in zip(ns, rsd))
                                  + " — the off-diagonal keeps diffusing (no drift pins it once the diagonal is 1)"))
        # (ii) p = 1/2: the law of ρ_T is width-independent (the SDE of Theorem 3.9)
        r = [_network("smooth", n, int(T * n), 0.3, samples, ctx.seed + 7 * n, act="tanh", a=1.0, p=0.5).rho[:, -1]
             for n in ns[:2]]
        rows.append(_ks_row(f"(ii) tanh, p = 1/2: ρ_T at n = {ns[0]} vs n = {ns[1]} (same limit)", r[0], r[1]))
        # (iii) p = 3/4: the linear-network limit dV = Σ^{1/2}dB
        n = ns[-1]
        net = _network("smooth", n, int(T * n), 0.3, samples, ctx.seed + 11 * n, act="softplus", a=1.0, p=0.75)
        sde = ncs.simulate_covariance_sde(ncs.covariance_drift("none"), np.array([[1.0, 0.3], [0.3, 1.0]]), T, 1e-2,
                                          samples * 2, scheme="wishart", seed=ctx.seed + 12, keep="last")
        rows.append(_ks_row(f"(iii) softplus, p = 3/4, n = {n}: V¹¹_T vs the linear-network SDE dV = Σ^{{1/2}}dB",
                            net.V[:, -1, 0, 0], sde.values[:, -1, 0, 0]))
    return rows


def positive_proposition3_10(ctx: Context) -> Verdict:
    """The same spread-of-ρ_T test where the correlation is constant: two (numerically) identical inputs, ρ₀ = 1 − 10⁻⁶,
    whose correlation stays at 1 up to O(10⁻⁶) (the correlation diffusion vanishes at ρ = 1)."""
    ns = ctx.pick((64, 128), (64, 256), (64, 256, 1024))
    samples, T = ctx.pick(500, 1000, 2000), 0.5
    rsd = []
    for n in ns:
        shape = ncs.Shape("smooth", n, act="tanh", a=1.0, p=0.25)
        run = ncs.simulate_shaped_network(shape, int(T * n), 2 * np.array([[1.0, 1 - 1e-6], [1 - 1e-6, 1.0]]), samples,
                                          seed=ctx.seed + 3 * n, layers=[0, int(T * n)])
        rsd.append(float(run.rho[:, -1].std()))
    rows = [Evidence(f"(i) tanh, p = 1/4, identical inputs (ρ₀ = 1 − 10⁻⁶): spread of ρ_T at T = {T}", theory=0.0,
                     numeric=rsd[-1], bound=0.1, observed=rsd[-1], passed=rsd[-1] < 0.1,
                     note=", ".join(f"n = {n}: sd(ρ_T) {s:.3g}" for n, s in zip(ns, rsd)))]
    return _control(ctx, rows, "the correlation-spread test on identical inputs (ρ ≡ 1)")


def control_proposition3_10(ctx: Context) -> Verdict:
    return _control(ctx, _prop310_rows(ctx, flip=True), "tanh and softplus swapped (stable/unstable mislabel)")


@PAPER.claim(
    "proposition3-10",
    title="Proposition 3.10: the critical exponent for smooth shaping",
    statement="With s = a n^p: (i) p < 1/2: V^{αα} → 0 or ∞ if ¾φ″(0)² + φ‴(0) > 0, else V^{αβ} = const (3.12); (ii) p = 1/2: "
        "the SDE of Theorem 3.9; (iii) p > 1/2: the linear-network limit dV = Σ^{1/2}dB.",
    hypotheses="Assumption 3.5",
    how="Exact-in-law shaped networks at depth n/2 over widths: (i) softplus (unstable) — fraction of degenerate "
        "diagonals vs n; tanh (stable) — the diagonal's mean and spread, and the spread of the correlation; (ii) KS of ρ_T "
        "between widths at p = 1/2; (iii) KS against the drift-free SDE at p = 3/4.",
    negative_control=control_proposition3_10,
    control_description="stable and unstable activations swapped must be caught",
    uses=("numerics.covariance_sde.simulate_shaped_network", "numerics.covariance_sde.simulate_covariance_sde"),
    depends_on=('criterion',),
    positive_control=positive_proposition3_10,
    positive_control_description="the same spread-of-ρ_T test (sd < 0.1) on two identical inputs, whose correlation is "
                                     "constant (ρ ≡ 1): it must hold")
def check_proposition3_10(ctx: Context) -> Verdict:
    rows = _prop310_rows(ctx)
    er = Erratum("Proposition 3.10 (i), eq (3.12) and the remark after it",
                 "if ¾φ″(0)² + φ‴(0) ≤ 0 and p < 1/2: V_t^{αβ} = const for all α ≤ β, in particular a constant correlation ρ_t",
                 "only the diagonal degenerates (V_t^{αα} = 1 for t > 0, whatever V_0^{αα}); the off-diagonal entries and "
                 "the correlation keep a nondegenerate diffusion",
                 "tanh (criterion −2), a = 1, p = 1/4, ρ₀ = 0.3: the standard deviation of ρ at T = 1/2 over networks does "
                 "not shrink with width (evidence row; ≈ 0.51–0.54 for n = 64…1024) while the diagonal's spread falls like "
                 "n^{−1/4}. Mechanism: the O(n^{1−2p}) drift of (3.10) for tanh is φ‴(0)V^{αβ}(V^{αα} + V^{ββ} − 2)/(2a²), "
                 "which pins the diagonal at 1 and then vanishes, leaving the O(1) noise of V^{αβ}.", "error")
    return Verdict.judged(ctx.claim_id, rows,
                          "all three regimes as stated", "regime (i) with a stable activation is not as stated: the "
                          "correlation is not constant (erratum); the other regimes hold", errata=[er])


