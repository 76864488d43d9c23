"""The fixed points' stability and the power law at the edge of chaos (§ Forward maps, § Depth scales).

* ``q-star-stability`` — § Forward maps: for bounded φ such as tanh the length map has one stable fixed point q*;
  an unbounded φ can have several, and the order-to-chaos boundary χ₁ = 1 is a property of the one the network's
  variance reaches. The engine's fixed points (:func:`theory.meanfield_mlp.length_fixed_points`, with their slopes
  L′(q*) by Stein's lemma and their stability) against the trapezoid-rule map of :mod:`deepinfo_claims._routes`:
  its roots, its finite-difference slopes and its iterates.
* ``critical-power-law`` — § Depth scales: ξ_c diverges at χ₁ = 1, so there 1 − c^l no longer decays like e^{−l/ξ_c}
  but as a power A·l^{−p}. The engine's deep trajectories and rate fits (:mod:`theory.meanfield_depth`) against the
  trapezoid-rule correlation map iterated layer by layer and its own quadratic coefficient (tanh: p = 1, A = 1/a for
  1 − C(1 − t) = t − a t² + …), and for ReLU at σ_w² = 2, σ_b² = 0 against the arc-cosine map iterated in mpmath and
  the known constant A = 9π²/2, p = 2 (Hayou et al. 2019).
"""
from __future__ import annotations

import math

import numpy as np

from theory import meanfield_mlp as mf
from theory import meanfield_depth as md
from theory.errors import UndefinedQuantityError
from verify import api

from . import PAPER, _routes as R, lslope, rate_constant
from .forward import _rel

ACT, SB2 = "tanh", 0.05
SLOPE_TOL = 1e-7      # relative: the route's finite-difference slope is good to about 1e-11
Q_TOL = 1e-10         # relative: q* of the engine vs the route's Brent root (both ~1e-15 at these slopes)
SILU_SB2 = 0.05


# ---------------------------------------------------------------------------------------------------------------
# q-star-stability
# ---------------------------------------------------------------------------------------------------------------

def _tanh_rows() -> list[api.Evidence]:
    """tanh at σ_b² ∈ {0.05, 0.3}, σ_w² ∈ {1.2, σ_w²,crit, 3.0}: one fixed point, attracting, at the route's q*,
    with the route's slope."""
    def compute():
        out = {}
        for sb2 in (0.05, 0.3):
            for sw2 in (1.2, float(mf.critical_sigma_w2(ACT, sb2)), 3.0):
                out[(sb2, sw2)] = mf.length_fixed_points(ACT, sw2, sb2)
        return out
    fps = api.memo(("tanh-fixed-points",), compute)
    rows = []
    for (sb2, sw2), pts in fps.items():
        ref = R.q_star(sw2, sb2)
        rslope = R.length_slope_of(np.tanh, ref, sw2, sb2)
        one = len(pts) == 1
        p = pts[0] if pts else None
        obs = _rel(p.value, ref) if p else math.inf
        rows.append(api.Evidence(
            f"tanh, σ_b² = {sb2}, σ_w² = {sw2:.6g}: the engine's fixed points of the length map vs the iterated "
            "trapezoid-rule map", theory=p.value if p else None, numeric=ref, bound=Q_TOL, observed=obs,
            passed=one and obs <= Q_TOL and p.stability == "attracting",
            note=f"engine: {len(pts)} fixed point(s) " + ", ".join(f"{x} ({x.stability})" for x in pts)
                 + "; one attracting point required (§ Forward maps: bounded φ)"))
        if p is not None:
            theory = lslope.scaled(p.slope.value)
            obs = _rel(theory, rslope)
            rows.append(api.Evidence(
                f"tanh, σ_b² = {sb2}, σ_w² = {sw2:.6g}: L′(q*) of the engine (Stein) vs the route's finite difference",
                theory=theory, numeric=rslope, bound=SLOPE_TOL, observed=obs, passed=obs <= SLOPE_TOL and rslope < 1,
                note=f"engine {p.slope}; relative difference; L′(q*) < 1 (attracting) by the route"))
    return rows


def _reached_from_row(sw2: float, high: float, below: float, above: float) -> api.Evidence:
    """What the network's variance reaches from a given q⁰ (:func:`theory.meanfield_mlp.fixed_point_q` with ``q0``):
    from 0.95 q_rep the engine's answer must be the route's iterate limit (the attracting q*, to Q_TOL), from
    1.05 q_rep a refusal (the iterates grow without a fixed point)."""
    def compute():
        got = mf.fixed_point_q("silu", sw2, SILU_SB2, q0=0.95 * high)
        try:
            mf.fixed_point_q("silu", sw2, SILU_SB2, q0=1.05 * high)
            refusal = None
        except UndefinedQuantityError as exc:
            refusal = str(exc)
        return got, refusal
    got, refusal = api.memo(("silu-from-q0", sw2), compute)
    ok = (_rel(got.value, below) <= Q_TOL and got.stability == "attracting" and math.isinf(above)
          and refusal is not None)
    return api.Evidence(
        "SiLU: fixed_point_q from q⁰ = 0.95 q_rep is the route's iterate limit, from 1.05 q_rep a refusal",
        theory=got.value, numeric=below, bound=Q_TOL, observed=_rel(got.value, below), passed=ok,
        note=f"engine from 0.95 q_rep: {got} ({got.stability}; {got.method}); from 1.05 q_rep: "
             f"{refusal or 'a fixed point returned'}; the route's iterates: {below:.12g} and {above}")


def _silu_rows() -> list[api.Evidence]:
    """SiLU at σ_b² = 0.05 and the σ_w² where χ₁ = 1 at a fixed point: two fixed points, one attracting and one
    repelling; χ₁ = 1 at the repelling one only; the boundary refused."""
    phi, dphi = R.silu, R.silu_prime

    def compute():
        cps = mf.critical_points("silu", SILU_SB2)
        sw2 = float(cps[0])
        try:
            mf.critical_sigma_w2("silu", SILU_SB2)
            refusal = None
        except UndefinedQuantityError as exc:
            refusal = str(exc)
        return cps, sw2, mf.length_fixed_points("silu", sw2, SILU_SB2), refusal
    cps, sw2, pts, refusal = api.memo(("silu",), compute)
    roots = api.memo(("silu-roots", sw2), lambda: R.fixed_points_of(phi, sw2, SILU_SB2))
    rows = []
    same = len(roots) == len(pts)
    rows.append(api.Evidence(
        f"SiLU, σ_b² = {SILU_SB2}, σ_w² = {sw2:.6g}: the engine's fixed points vs the trapezoid-rule roots of "
        "L(q) = q on [σ_b², 100]", theory=[p.value for p in pts], numeric=roots,
        bound=Q_TOL, observed=max((_rel(p.value, r) for p, r in zip(pts, roots)), default=math.inf) if same else
        math.inf, passed=same and all(_rel(p.value, r) <= Q_TOL for p, r in zip(pts, roots)),
        note="engine: " + ", ".join(f"{p} ({p.stability}, basin {p.basin})" for p in pts)
             + f"; route: {', '.join(f'{r:.12g}' for r in roots)}"))
    for p, r in zip(pts, roots):
        rs = R.length_slope_of(phi, r, sw2, SILU_SB2)
        want = "attracting" if rs < 1 else "repelling"
        theory = lslope.scaled(p.slope.value)
        obs = _rel(theory, rs)
        rows.append(api.Evidence(
            f"SiLU at q* = {r:.6g}: L′(q*) of the engine vs the route's finite difference, and its stability",
            theory=theory, numeric=rs, bound=SLOPE_TOL, observed=obs, passed=obs <= SLOPE_TOL and p.stability == want,
            note=f"engine {p.slope}, {p.stability}; the route's slope says {want}"))
    if len(roots) == 2:
        low, high = roots
        # the basin: iterates from either side of the repelling point go to the attracting one or away
        below, above = api.memo(("silu-iterates", sw2), lambda: (R.iterate_length(phi, 0.95 * high, sw2, SILU_SB2, 3000),
                                                                  R.iterate_length(phi, 1.05 * high, sw2, SILU_SB2, 3000)))
        basin = pts[0].basin if same else None
        ok = (abs(below - low) <= 1e-9 * low and math.isinf(above) and basin is not None
              and basin[0] == 0.0 and _rel(basin[1], high) <= 1e-6)
        rows.append(api.Evidence(
            "SiLU: the engine's basin of the attracting q* ends at the repelling one (the route's iterates from "
            "0.95 and 1.05 times it)", theory=list(basin) if basin else None, numeric=[low, high],
            passed=ok, note=f"iterates from 0.95 q_rep → {below:.12g}; from 1.05 q_rep → {above}"))
        rows.append(_reached_from_row(sw2, high, below, above))
        x_low, x_high = R.chi1_of(dphi, low, sw2), R.chi1_of(dphi, high, sw2)
        cp = cps[0]
        ok = (abs(x_high - 1) <= 1e-9 and abs(x_low - 1) > 0.05 and not cp.reached and refusal is not None
              and cp.q_star.stability == "repelling")
        rows.append(api.Evidence(
            "SiLU: χ₁ = 1 at the repelling fixed point only, so the engine must refuse the edge of chaos "
            "(critical_sigma_w2) and label critical_points' solution not reached",
            theory=1.0, numeric=[x_low, x_high], passed=ok,
            note=f"route χ₁ = {x_low:.6g} at the attracting q* = {low:.6g}, {x_high:.12g} at the repelling "
                 f"q* = {high:.6g}; engine: {cp.branch}; refusal: {refusal or 'none (an edge of chaos returned)'}"))
    return rows


@PAPER.claim(
    "q-star-stability", title="The length map's fixed point: one and stable for tanh; the attracting one elsewhere",
    statement="The length map q ↦ σ_w² ∫Dz φ(√q z)² + σ_b² has a fixed point q* which, for bounded φ such as tanh, "
              "is unique and stable; χ₁ and the boundary χ₁ = 1 are taken at the q* the network's variance reaches "
              "(§ Forward maps).",
    depends_on=(lslope,), hypotheses="σ_b² > 0; the scanned range of q is [σ_b², 100]",
    how="tanh at σ_b² ∈ {0.05, 0.3}, σ_w² ∈ {1.2, σ_w²,crit, 3.0}: the engine's length_fixed_points must return one "
        "attracting point at the iterated trapezoid-rule q* (1e-10 relative) with L′(q*) (Stein's lemma) equal to "
        "the route's Richardson finite difference (1e-7 relative). SiLU (unbounded) at σ_b² = 0.05 and the σ_w² of "
        "critical_points: every fixed point against the route's Brent roots, each slope and stability against the "
        "route's, the basin against the route's iterates from either side of the repelling point (and fixed_point_q "
        "from those starting points: the attracting q*, then a refusal), and χ₁ = 1 only "
        "at the repelling point — so critical_sigma_w2 must refuse.",
    control_description="L′(q*) scaled by 1 ± 5% must leave the 1e-7 tolerance")
def q_star_stability(ctx: api.Context) -> api.Verdict:
    """The engine's fixed points, slopes, stability and basins against the trapezoid-rule map (§ Forward maps)."""
    rows = _tanh_rows() + _silu_rows()
    return api.judged(ctx.claim_id, rows,
                      "tanh: one attracting q* with the route's slope at every (σ_w², σ_b²); SiLU: both fixed points, "
                      "slopes, stability and basin as the route finds them, and the boundary refused where χ₁ = 1 "
                      "only at the repelling point",
                      "a fixed point, its slope, stability or basin disagrees with the trapezoid-rule map")


# ---------------------------------------------------------------------------------------------------------------
# critical-power-law
# ---------------------------------------------------------------------------------------------------------------

CHECK_LAYERS = (1, 10, 100, 1000)
TRAJ_TOL = 1e-9       # relative, on 1 − c^l at the check layers


def _tanh_power_rows(ctx: api.Context) -> list[api.Evidence]:
    depth = ctx.pick(10 ** 4, 10 ** 5, 10 ** 6)

    def compute():
        cp = mf.critical_sigma_w2(ACT, SB2)
        tr = md.correlation_trajectory(ACT, cp.value, SB2, 0.5, depth)
        off = md.asymptotic_rate(md.correlation_trajectory(ACT, 1.5, SB2, 0.5, 400))
        return cp, tr, md.asymptotic_rate(tr), off
    cp, tr, fit, off = api.memo(("tanh-power", depth), compute)
    sw2, q = cp.value, R.q_star(cp.value, SB2)
    route = api.memo(("tanh-route", sw2), lambda: R.deviation_trajectory(q, sw2, SB2, 0.5, CHECK_LAYERS[-1]))
    obs = max(_rel(tr.deviation[l], route[l]) for l in CHECK_LAYERS)
    rows = [api.Evidence(
        f"tanh at σ_w²,crit(0.05) from c⁰ = 0.5: 1 − c^l of the engine's trajectory vs the trapezoid-rule map "
        f"iterated, l = {', '.join(map(str, CHECK_LAYERS))}", theory=[float(tr.deviation[l]) for l in CHECK_LAYERS],
        numeric=[float(route[l]) for l in CHECK_LAYERS], bound=TRAJ_TOL, observed=obs, passed=obs <= TRAJ_TOL,
        note=f"max relative difference; the engine's own bound at l = {CHECK_LAYERS[-1]}: "
             f"{tr.relative_error[CHECK_LAYERS[-1]]:.2g}; {tr.method}")]
    a = api.memo(("tanh-a", sw2), lambda: R.quadratic_coefficient(q, sw2, SB2))
    theory = rate_constant.scaled(fit.constant.value)
    tol = fit.constant.error + 1e-8 * abs(theory)
    obs = abs(theory - 1 / a)
    rows.append(api.Evidence(
        f"tanh at σ_w²,crit(0.05): the engine's power law fitted to depth {depth} vs 1/a of the route "
        "(1 − C(1 − t) = t − a t² + …)", theory=theory, numeric=1 / a, bound=tol, observed=obs,
        passed=obs <= tol and fit.kind == "power" and fit.exponent.value == 1.0 and fit.exponent.error == 0.0,
        note=f"engine: A = {fit.constant}, p = {fit.exponent} ({fit.kind}); a = {a:.12g} by Richardson on the "
             "route's map; bound: the fit's stated error + 1e-8 relative"))
    x1 = R.chi1(1.5, SB2)
    obs = abs(off.exponent.value + math.log(x1))
    tol = off.exponent.error + 1e-9
    rows.append(api.Evidence(
        "tanh off the boundary (σ_w² = 1.5, ordered): the engine's fit is exponential with 1/ξ_c = −log χ₁ of the "
        "route", theory=off.exponent.value, numeric=-math.log(x1), bound=tol, observed=obs,
        passed=off.kind == "exponential" and obs <= tol, note=f"engine: {off.kind}, 1/ξ = {off.exponent}"))
    return rows


RELU_LAYERS = (1, 10, 100, 1000, 10 ** 4, 10 ** 5)


def _relu_power_rows(ctx: api.Context) -> list[api.Evidence]:
    depth = ctx.pick(10 ** 5, 10 ** 6, 10 ** 6)

    def compute():
        tr = md.correlation_trajectory("relu", 2.0, 0.0, 0.5, depth)
        return tr, md.asymptotic_rate(tr)
    tr, fit = api.memo(("relu-power", depth), compute)
    route = api.memo(("relu-route",), lambda: R.relu_deviation_trajectory(0.5, RELU_LAYERS[-1]))
    obs = max(_rel(tr.deviation[l], route[l]) for l in RELU_LAYERS)
    exact = 9 * math.pi ** 2 / 2
    theory = rate_constant.scaled(fit.constant.value)
    tol = max(fit.constant.error, 1e-12 * exact)
    d = abs(theory - exact)
    return [
        api.Evidence(f"ReLU at σ_w² = 2, σ_b² = 0 from c⁰ = 0.5: 1 − c^l of the engine vs the arc-cosine map iterated "
                     f"in mpmath (40 digits), l = 1 to 10⁵ (1 − c^l down to 4e-9)",
                     theory=[float(tr.deviation[l]) for l in RELU_LAYERS], numeric=[route[l] for l in RELU_LAYERS],
                     bound=TRAJ_TOL, observed=obs, passed=obs <= TRAJ_TOL,
                     note=f"max relative difference at l = {', '.join(map(str, RELU_LAYERS))}; the engine's own bound "
                          f"at l = 10⁵: {tr.relative_error[RELU_LAYERS[-1]]:.2g}; {tr.method}"),
        api.Evidence(f"ReLU: the engine's power law fitted to depth {depth} vs A = 9π²/2, p = 2 (Hayou et al. 2019)",
                     theory=theory, numeric=exact, bound=tol, observed=d,
                     passed=d <= tol and d <= 1e-6 * exact and fit.kind == "power" and fit.exponent.value == 2.0,
                     note=f"engine: A = {fit.constant}, p = {fit.exponent}; within the fit's stated error and 1e-6 "
                          "relative")]


@PAPER.claim(
    "critical-power-law", title="At the edge of chaos correlations approach 1 as a power of depth",
    statement="ξ_c diverges at χ₁ = 1 (§ Depth scales): on the boundary 1 − c^l no longer decays like e^{−l/ξ_c} "
              "but as a power, A·l^{−p} — p = 1 with A = 1/a for a smooth φ whose correlation map is "
              "1 − C(1 − t) = t − a t² + …, p = 2 with A = 9π²/2 for ReLU at σ_w² = 2, σ_b² = 0.",
    depends_on=(rate_constant,), hypotheses="inputs at q* (tanh) or of equal length (ReLU); c⁰ = 0.5",
    how="The engine's correlation trajectories (deviation 1 − c^l kept at full relative precision) against the "
        "trapezoid-rule map iterated layer by layer (tanh at σ_w²,crit(0.05)) and the arc-cosine closed form iterated "
        "on c in 40-digit mpmath (ReLU), 1e-9 relative at layers 1 to 10³ (tanh) and 10⁵ (ReLU); the engine's asymptotic_rate to depth "
        "10⁴–10⁶ against 1/a (a by Richardson on the route's map) for tanh and 9π²/2 for ReLU, within the fit's "
        "stated error (and 1e-6 relative for ReLU); off the boundary the fit must be exponential with 1/ξ_c = −log χ₁.",
    control_description="A scaled by 1 ± 5% must leave the fit's error")
def critical_power_law(ctx: api.Context) -> api.Verdict:
    """The power law of 1 − c^l at χ₁ = 1 by the engine's trajectories and rate fits against two routes
    (§ Depth scales)."""
    rows = _tanh_power_rows(ctx) + _relu_power_rows(ctx)
    return api.judged(ctx.claim_id, rows,
                      "on the boundary 1 − c^l follows the routes to 1e-9 at every checked layer and decays as "
                      "A/l (tanh, A = 1/a) and 9π²/(2l²) (ReLU); off it, e^{−l/ξ_c}",
                      "a trajectory or a rate disagrees with the independent routes")
