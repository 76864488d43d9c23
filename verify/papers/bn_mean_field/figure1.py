"""Fig 1 — ReLU gradients against batch size and depth; the BSB1 → BSB2 transition of α-ReLU."""
from __future__ import annotations

import math

import numpy as np
from scipy import optimize
from theory import bn_meanfield as tbm

from ...api import Context, Evidence, mean_band, memo, Panel, Series, Verdict, write_figure
from ._common import (_fw_run, _fw_settings, _rate_row, bn_jacobian_eigenvalues, CONF, gradient_explosion_rate,
                      growth_rate_se_row, nbm, PAPER, stats)
from ._common import _random_cov
from ._common import forward_eigenvalue_rows

# =============================================================================================
# Figure 1 — ReLU gradients vs B and depth; the BSB1 → BSB2 transition of α-ReLU
# =============================================================================================

def alpha_transition(B: int, lo: float = 1.0, hi: float = 4.0, level: float = 1.0) -> float:
    """α_transition(B): the α at which max(|λ_𝕃|, |λ_𝕄|) of φ = max(x,0)^α crosses ``level`` (1: the BSB1 point
    loses stability); ∞ if not in [lo, hi], ``lo`` if already above at lo."""
    def f(a):
        ev = bn_jacobian_eigenvalues(f"max(x,0)**{a:.10f}", B)
        return max(abs(ev.L), abs(ev.M)) - level
    if f(hi) < 0:
        return math.inf
    if f(lo) > 0:
        return lo
    return float(optimize.brentq(f, lo, hi, xtol=1e-6))


def _figure1_rows(ctx: Context, factor: float = 1.0, mislabel: bool = False, figure: dict | None = None) -> list[Evidence]:
    rows = []
    # (a) λ_max vs B, ReLU, finite width 1000
    Bs = ctx.pick((8, 16, 32), (8, 16, 32, 64), (8, 16, 32, 64, 128))
    S = ctx.pick(24, 100, 200)
    for B in Bs:
        rows.append(_rate_row(ctx, "relu", B, factor, N=1000, S=S, label="(a) "))
    # small B: the per-layer factor ∝ r⁻² = 1/(s χ²_{B−1}) has infinite variance for B ≤ 5 (heavy tails at B = 6),
    # so the width-1000 rate is biased low; judged by its convergence in width instead
    for B in ctx.pick((), (4, 5, 6), (4, 5, 6)):
        lam = factor * gradient_explosion_rate("relu", B)
        devs, hats = {}, {}
        for N in (1000, 4000):
            run = _fw_run("relu", B, N, S, _fw_settings(ctx)["depth"], ctx.seed * 1000 + B, "exact", ctx.device)
            lam_hat, ci, _ = run.growth_rate(_fw_settings(ctx)["window"], CONF)
            devs[N], hats[N] = (lam_hat / lam - 1, ci), lam_hat
        d1, d4 = abs(devs[1000][0]), abs(devs[4000][0])
        rows.append(Evidence(f"(a) relu, B = {B}: relative deviation of the width-N rate at N = 1000 and 4000",
                             theory=lam, numeric=hats[4000], ci=devs[4000][1], observed=d4 / d1 if d1 else 0.0,
                             bound=0.75, samples=S, confidence=CONF,
                             passed=d4 < 0.75 * d1 or devs[4000][1][0] <= lam <= devs[4000][1][1],
                             note="measured: the rate at N = 4000; observed: the ratio of the relative deviations at "
                                  "N = 4000 and 1000 — the finite-width bias must shrink with width (or the N = 4000 "
                                  "interval contain λ_max): "
                                  f"{100 * devs[1000][0]:+.2f}% → {100 * devs[4000][0]:+.2f}%"))
    # (b) gradient norm vs depth, dense weights, B = 32
    depth = ctx.pick(24, 40, 48)
    run = _fw_run("relu", 32, 1000, ctx.pick(4, 16, 32), depth, ctx.seed * 1000 + 32, "dense", ctx.device)
    lo, hi = ctx.pick((6, 18), (10, 30), (12, 36))
    y = np.log(run.sq_grad[:, lo:hi]).mean(axis=0)
    r2 = stats.linregress(np.arange(lo, hi), y).rvalue ** 2
    lam = factor * gradient_explosion_rate("relu", 32)
    lam_hat, ci, slopes = run.growth_rate((lo, hi), CONF)
    t = float(stats.t.ppf(0.5 + CONF / 2, len(slopes) - 1))
    dev = abs(math.log(lam_hat) - math.log(lam))
    allow = t * float(slopes.std(ddof=1)) / math.sqrt(len(slopes)) + 3 / 1000
    if figure is not None:
        figure.update(rates=[(int(r.name.split("B = ")[1].split(":")[0]), r.theory, r.numeric, r.ci)
                             for r in rows if r.name.startswith("(a) relu, B = ") and ": λ_max" in r.name and r.ci],
                      logsq=np.log(run.sq_grad), window=(lo, hi), lam32=lam, S=S, depth=depth)
    rows.append(Evidence("(b) ReLU, B = 32, N = 1000, dense weights: log‖∂L/∂h^l‖² is linear in l with slope −log λ_max",
                         theory=lam, numeric=lam_hat, ci=ci, confidence=CONF, observed=dev, bound=allow,
                         samples=len(slopes), passed=r2 > 0.99 and dev <= allow,
                         note=f"R² of the seed-averaged curve = {r2:.5f}, layers {lo}–{hi} of {depth}"))
    # (c, d) the BSB1 → BSB2 transition of α-ReLU
    for B in ctx.pick((8,), (6, 8, 16), (6, 8, 16, 32)):
        at = alpha_transition(B)
        rng = np.random.default_rng([ctx.seed, B])
        S0 = _random_cov(rng, B)
        # either side, where the slowest forward eigenvalue is 0.85 (BSB1 attracts: 1e-9 in ~130 layers) or 1.15
        a_below = alpha_transition(B, level=0.85)
        a_above = alpha_transition(B, hi=6.0, level=1.15)
        res = {}
        ev_below = bn_jacobian_eigenvalues(f"max(x,0)**{a_below:.4f}", B)
        depth = min(400, int(math.log(1e-8) / math.log(max(abs(ev_below.L), abs(ev_below.M)))) + 30)
        for label, a in (("below", a_below), ("above", a_above)):
            name = f"max(x,0)**{a:.4f}"
            it = memo(("iterate_bn_meanfield", name, S0.tobytes(), depth),
                        lambda: nbm.iterate_bn_meanfield(name, S0, depth, method="laplace"))
            res[label] = (a, it)
        a_lo, it_lo = res["below"]
        a_hi, it_hi = res["above"]
        rows += forward_eigenvalue_rows([(B, round(a_lo, 4)), (B, round(a_hi, 4))], label="(c,d) ")
        # above the transition the limit must be far from any BSB1 matrix (it approaches a two-block BSB2 form,
        # slowly when the symmetry inside a block is only weakly restored)
        broken_hi = it_hi.shape.kind != "BSB1" and it_hi.shape.distance_bsb1 > 0.1
        broken_lo = it_lo.shape.kind != "BSB1" and it_lo.shape.distance_bsb1 > 0.1
        ok = it_lo.shape.kind == "BSB1" and broken_hi
        if mislabel:  # the control asserts the opposite labels
            ok = broken_lo and it_hi.shape.kind == "BSB1"
        rows.append(Evidence(f"(c,d) B = {B}: α_transition = {at:.4f} (max(λ_𝕃, λ_𝕄) = 1); iterating eq (11) from a "
                             f"random Σ", theory="BSB1 below, BSB2 above" if not mislabel else "BSB2 below, BSB1 above",
                             numeric=f"α = {a_lo:.2f}: {it_lo.shape}; α = {a_hi:.2f}: {it_hi.shape}", passed=ok,
                             note=f"{depth} layers; distance to the BSB1 form {it_lo.shape.distance_bsb1:.1e} below, "
                                  f"{it_hi.shape.distance_bsb1:.2f} above; distance of the limit above to the best "
                                  f"two-block form {it_hi.shape.distance_bsb2:.1e}"))
    return rows


def _figure1_plot(ctx: Context, fig: dict, trans: list) -> dict:
    """Fig 1 (a, b) and the α_transition curve (c): PNG + PDF + CSV."""
    Bg = np.array(sorted({*range(6, 129)}))
    theory_curve = np.array([gradient_explosion_rate("relu", int(B)) for B in Bg])
    pts = sorted(fig["rates"])
    a = Panel("(a) ReLU gradient growth rate vs batch size", "batch size $B$", r"$\lambda_{\max}$", [
        Series(r"eq (24)", Bg, theory_curve, "theory", "relu"),
        Series(r"$\pi/(\pi - 1)$ ($B \to \infty$)", Bg, np.full(Bg.shape, tbm.relu_rate_limit()), "bound", "limit"),
        Series(r"networks, $N = 1000$", [p[0] for p in pts], [p[2] for p in pts], "simulation", "networks",
               [p[3][0] for p in pts], [p[3][1] for p in pts])], logx=True)
    ls = fig["logsq"]
    ell = np.arange(ls.shape[1])
    mean, lo, hi = mean_band(ls, CONF)
    w0, w1 = fig["window"]
    icpt = float(np.mean(mean[w0:w1] + math.log(fig["lam32"]) * ell[w0:w1]))
    b = Panel(r"(b) ReLU, $B = 32$: gradient norm vs depth", r"layer $l$", r"$\log\|\partial L/\partial h^l\|^2$", [
        Series(r"dense networks, $N = 1000$", ell, mean, "simulation", "networks", lo, hi),
        Series(r"slope $-\log\lambda_{\max}$ (eq 24)", ell, icpt - math.log(fig["lam32"]) * ell, "theory", "relu")])
    finite = [(B, t) for B, t in trans if math.isfinite(t)]
    c = Panel(r"(c) BSB1 $\to$ BSB2 transition of $\max(x,0)^\alpha$", "batch size $B$", r"$\alpha_{\mathrm{transition}}$",
              [Series(r"$\max(|\lambda_{\mathbb{L}}|, |\lambda_{\mathbb{M}}|) = 1$", [p[0] for p in finite],
                      [p[1] for p in finite], "theory", "transition")], logx=True)
    files = write_figure(ctx.artefact_dir, "bn_mean_field_figure1", [a, b, c],
                         f"exact-in-law layers for (a), {len(pts)} batch sizes; dense weights for (b), "
                         f"{ls.shape[0]} seeds, depth {ls.shape[1]}; budget {ctx.budget}; bands: 95% t-intervals")
    return {f"figure1_{k}": v for k, v in files.items()}


@PAPER.claim(
    "figure1",
    title="Fig 1: ReLU backward rate vs B, gradient norm vs depth, BSB1 → BSB2 transition",
    statement="(a, b) For ReLU networks of width 1000 the squared gradient norm grows per layer by λ_max(B) (theory vs 200 "
        "networks); (c, d) α-ReLU networks converge to BSB1 below α_transition(B) and break symmetry (BSB2) above it.",
    hypotheses="B ≥ 4",
    how="(a) exact-in-law networks with autograd, width 1000, per-seed slopes with t-intervals (checked against the "
        "spread of replicates, F, 99.9%); (b) dense weights, "
        "linear fit of the seed-averaged log gradient norm; (c, d) α_transition(B) by root-finding on the forward "
        "eigenvalues, then the Laplace map iterated from a random covariance on both sides and classified.",
    negative_control=None,
    control_description="",
    uses=("theory.bn_meanfield.gradient_explosion_rate", "theory.bn_meanfield.bn_jacobian_eigenvalues",
              "numerics.bn_meanfield.simulate_bn_gradients", "numerics.bn_meanfield.iterate_bn_meanfield"),
    depends_on=('lambda_L', 'lambda_M', 'lambda_max'))
def check_figure1(ctx: Context) -> Verdict:
    fig: dict = {}
    rows = _figure1_rows(ctx, figure=fig) + [growth_rate_se_row(ctx)]
    trans = [(B, alpha_transition(B)) for B in (4, 5, 6, 8, 16, 32, 64)]
    return Verdict.judged(ctx.claim_id, rows,
                          "ReLU gradient growth matches λ_max(B) for B ≥ 6 at width 1000, log-linear in depth; α-ReLU "
                          "leaves BSB1 for BSB2 past α_transition(B)", "Fig 1 not reproduced",
                          tables=[("α_transition(B) of φ = max(x,0)^α (max(λ_𝕃, λ_𝕄) = 1)", ["B", "α_transition"],
                                   [[B, "> 4" if math.isinf(a) else float(a)] for B, a in trans])],
                          artefacts=_figure1_plot(ctx, fig, trans) if ctx.artefact_dir else {})


