"""Appendix A lemmas: Lemma A.4 (eq 24), Lemma A.6 (eq 36), Lemma A.7 (eq 38, certified), Lemma A.8."""
from __future__ import annotations

import math

import numpy as np
import sympy as sp

import theory
from theory.certify import certify_lemma_a7, sigma_bar_enclosure
from theory.hermite import hermite_polynomial, hermite_values

from ...api import Context, Erratum, Evidence, HOLDS, memo, status_from_rows, Verdict
from ._common import (_control, _rational_unit_vector, _rng, _x, beta_rows, CONF, CORR_KINDS, dual_quadrature,
                      isometry_strength, PAPER, random_correlation, TIGHT_ACTIVATION)


# =============================================================================================
# Lemma A.4 (eq 24) — Gershgorin lower bound and the upper bound on det G
# =============================================================================================

def _lemma_a4_rows(upper_fn, ctx: Context, label: str) -> list[Evidence]:
    rng = _rng(ctx, 51)
    trials = ctx.pick(400, 4000, 40000)
    lower_fail, upper_fail, lower_judged = 0, 0, 0
    min_upper_slack, min_lower_slack = math.inf, math.inf
    for t in range(trials):
        n = int(rng.integers(2, 16))
        G = random_correlation(rng, n, CORR_KINDS[t % len(CORR_KINDS)])
        lower, det, _ = theory.lemma_a4_bounds(G)
        m = float(np.max(np.abs(G[~np.eye(n, dtype=bool)])))
        upper = upper_fn(m)
        tol = 1e-12 * max(1.0, abs(det)) + 1e-15
        if det > upper + tol:
            upper_fail += 1
        if upper > 0:
            min_upper_slack = min(min_upper_slack, upper / max(det, 1e-300))
        if not math.isnan(lower):
            lower_judged += 1
            if lower > det + tol:
                lower_fail += 1
            if lower > 0:
                min_lower_slack = min(min_lower_slack, det / lower)
    exact_trials = ctx.pick(20, 80, 300)
    exact_fail = 0
    for _ in range(exact_trials):
        n = int(rng.integers(2, 6))
        B = [_rational_unit_vector(rng, n + 1) for _ in range(n)]
        G = sp.Matrix(n, n, lambda i, j: sum(p * q for p, q in zip(B[i], B[j])))
        m = max(abs(G[i, j]) for i in range(n) for j in range(n) if i != j)
        det = G.det()
        ok = det <= (upper_fn(m) if upper_fn is not _upper_printed else 1 - m ** 2)
        if (n - 1) * m <= 1:
            ok = ok and (1 - (n - 1) * m) ** n <= det
        exact_fail += 0 if ok else 1
    return [
        Evidence(f"upper bound det G ≤ {label}: violations", theory=0, numeric=upper_fail,
                 samples=trials, passed=upper_fail == 0,
                 note=f"smallest bound/det over the trials {min_upper_slack:.4g}"),
        Evidence("lower bound (1 − (n−1) max|G_ij|)^n ≤ det G where (n−1) max|G_ij| ≤ 1: violations", theory=0,
                 numeric=lower_fail, samples=lower_judged, passed=lower_fail == 0,
                 note="includes matrices at the Gershgorin edge (n−1)m = 1 − 1e-6; smallest det/bound over the "
                      f"trials {min_lower_slack:.4g}"),
        Evidence("exact rational correlation matrices, n ≤ 5 (both bounds)", theory=0, numeric=exact_fail,
                 samples=exact_trials, passed=exact_fail == 0),
    ]


def _upper_printed(m):
    return 1 - m * m


def control_lemma_a4(ctx: Context) -> Verdict:
    rows = _lemma_a4_rows(lambda m: 1 - m, ctx, "1 − max|G_ij| (deliberately wrong)")
    return _control(ctx, rows, "upper bound replaced by 1 − max|G_ij|")


@PAPER.claim(
    "lemma-a4",
    title="Lemma A.4: Gershgorin lower bound and the upper bound on det G",
    statement="For PSD G with unit diagonal: (1 − (n−1) max_{i≠j}|G_ij|)^n ≤ det G ≤ 1 − max_{i≠j} G_ij² (eq 24), "
        "the lower bound when (n−1)|G_ij| ≤ 1.",
    hypotheses="G PSD with unit diagonal",
    how="Random Wishart, equicorrelated, near-degenerate and Gershgorin-edge correlation matrices (n ≤ 15); exact "
        "rational correlation matrices from rational unit vectors (n ≤ 5).",
    negative_control=control_lemma_a4,
    control_description="the upper bound replaced by 1 − max|G_ij|",
    uses=("theory.lemma_a4_bounds",))
def check_lemma_a4(ctx: Context) -> Verdict:
    rows = _lemma_a4_rows(_upper_printed, ctx, "1 − max G_ij²")
    st = status_from_rows(rows)
    return Verdict(ctx.claim_id, st, "both bounds of eq (24) hold on every random, near-degenerate and "
                   "Gershgorin-edge correlation matrix, and exactly in rationals" if st == HOLDS
                   else "a bound of eq (24) fails", rows)


# =============================================================================================
# Lemma A.6 (eq 36) — σ̂(ρ) = Σ c_k² ρ^k
# =============================================================================================

def _lemma_a6_acts(ctx: Context) -> list[str]:
    names = [n for n in theory.registered_names() if n not in ("he0", "linear", "swish")]
    return ctx.pick(["relu", "tanh", "sin", "step", "selu", "gelu", "he3"], names, names)


def _product_means(ctx: Context, act, N: int, points: tuple) -> list[tuple[float, float]]:
    """Monte Carlo (mean, standard error) of σ(X)σ(Y) over N draws of (X, Y) ~ N(0, [[1, ρ], [ρ, 1]]) at each ρ of
    ``points`` (seeded by the run seed), drawn once per claim run: the controls judge the same samples."""
    def compute():
        rng = _rng(ctx, 61)
        out = []
        for r in points:
            xs = rng.standard_normal(N)
            ys = r * xs + math.sqrt(1 - r * r) * rng.standard_normal(N)
            p = act.numpy(xs) * act.numpy(ys)
            out.append((float(np.mean(p)), float(np.std(p)) / math.sqrt(N)))
        return out
    return memo(("lemma_a6_product_means", act, N, ctx.seed, tuple(points)), compute)


def _lemma_a6_rows(ctx: Context, square: bool = True) -> list[Evidence]:
    rows = []
    grid = np.concatenate([np.linspace(-1, 1, ctx.pick(21, 81, 201)), [-0.999, 0.999]])
    K = 200
    for nm in _lemma_a6_acts(ctx):
        act = theory.activation(nm)
        series = theory.DualSeries(act, K)
        c0 = float(theory.hermite_coefficients(act, 0, kind="float")[0])
        c = theory.hermite_coefficients(act, K, kind="float")
        coef = c * c if square else np.abs(c)
        lo_s = np.polynomial.polynomial.polyval(grid, coef)
        t = series.tail_bound(grid)
        reference = dual_quadrature(act, grid)
        closed = theory.dual_closed_form(act)
        tol = 1e-11 * max(1.0, series.var + c0 * c0)
        excess = np.maximum(np.abs(reference - lo_s) - t - tol, 0)
        worst = float(np.max(excess))
        if closed is not None:
            cf = theory.dual_activation(act, grid)
            agree = float(np.max(np.abs(cf - reference)))
        else:
            agree = None
        # Monte Carlo at three correlations (independent of both)
        N = ctx.pick(100_000, 1_000_000, 4_000_000)
        zmax = 0.0
        deg = act.polynomial_degree
        mc_points = (-0.6, 0.3, 0.9) if deg is None or deg < 5 else ()  # heavy-tailed products: CLT unreliable
        for r, (m, se) in zip(mc_points, _product_means(ctx, act, N, mc_points)):
            ref = float(dual_quadrature(act, r))
            zmax = max(zmax, abs(m - ref) / se if se > 0 else 0.0)
        passed = worst == 0.0 and zmax < 4.5 and (agree is None or agree < 1e-10)
        rows.append(Evidence(
            f"{nm}: series Σ_k≤{K} c_k²ρ^k ± tail vs 2-D quadrature on {grid.size} ρ ∈ [−1, 1]",
            bound=0.0, observed=worst, confidence=CONF, samples=N, passed=passed,
            note="observed: the largest excess of |quadrature − series| over the tail bound (must be 0); "
                 + (f"closed form vs quadrature max diff {agree:.1e}; " if agree is not None else "")
                 + f"tail bound at ρ = 1: {series.tail:.1e}; "
                 + (f"Monte Carlo max |z| = {zmax:.2f} at ρ ∈ {{−0.6, 0.3, 0.9}} (threshold 4.5: two-sided 1e-5, "
                    "Bonferroni over ≤ 90 tests)" if mc_points else
                    "Monte Carlo skipped: products of degree ≥ 5 polynomials are too heavy-tailed for a z-test; "
                    "the series is finite and the Gauss rule exact here")))
    return rows


def tail_bracket_extremal_row() -> Evidence:
    """The tail bracket of eq (36)'s truncation, |σ̄(ρ) − Σ_{1≤k≤K} c_k²ρ^k| ≤ |ρ|^{K+1}(Var σ − Σ_{1≤k≤K} c_k²)
    (:class:`theory.DualSeries`), on the activations that attain it: σ = He_{K+1} (normalised, Definition 2) has its
    whole variance at degree K + 1, so σ̄(ρ) = ρ^{K+1} exactly and the bracket's edge touches it. For K = 3..7 at 41
    points of [−1, 1], ρ^{K+1} must lie in the bracket and on one of its edges (both to 1e-13): a bound too tight
    leaves ρ^{K+1} outside, one too loose (|ρ| for |ρ|^{K+1}, say) leaves it inside but off the edge. Elsewhere the
    bracket is loose and shows neither."""
    r = np.linspace(-1.0, 1.0, 41)
    outside = off_edge = 0.0
    for K in range(3, 8):
        series = theory.DualSeries(f"he{K + 1}", K)
        lo, hi = series.bracket(r)
        exact = r ** (K + 1)
        outside = max(outside, float(np.max(np.maximum(lo - exact, exact - hi))))
        off_edge = max(off_edge, float(np.max(np.minimum(np.abs(lo - exact), np.abs(hi - exact)))))
    worst = max(outside, off_edge)
    return Evidence("Lemma A.6's tail bracket where it is attained: σ = He_{K+1}, K = 3..7, σ̄(ρ) = ρ^{K+1} inside "
                    "the K-term bracket and on its edge at 41 ρ ∈ [−1, 1]", observed=worst, bound=1e-13,
                    passed=worst <= 1e-13,
                    note=f"observed: the larger of the distance by which ρ^{{K+1}} falls outside the bracket "
                         f"({outside:.1e}; ≤ 0 inside) and its distance from the nearer edge ({off_edge:.1e})")


def mp_coefficient_row(ctx: Context) -> Evidence:
    """The float Hermite coefficients c_k the series uses (a fixed Gauss rule split at the kinks) against mpmath's
    adaptive quadrature at 30 digits (:func:`theory.hermite_coefficients` with ``kind="mpmath"``): tanh (exact zeros
    of even degree by parity) and, from the standard budget on, gelu; k ≤ 6 at quick, 12 beyond."""
    K = ctx.pick(6, 12, 12)
    worst, where = 0.0, ""
    for nm in ctx.pick(("tanh",), ("tanh", "gelu"), ("tanh", "gelu")):
        mp = theory.hermite_coefficients(nm, K, kind="mpmath")
        fl = theory.hermite_coefficients(nm, K, kind="float")
        for k, (a, b) in enumerate(zip(mp, fl)):
            err = abs(float(a) - float(b))
            if err >= worst:
                worst, where = err, f"{nm}, k = {k}: mpmath {a} vs float {b:.17g}"
    return Evidence(f"Hermite coefficients c_0..c_{K}: float Gauss rule vs mpmath quadrature at 30 digits",
                    observed=worst, bound=1e-13, passed=worst <= 1e-13, note=f"max |difference|, at {where}")


def control_lemma_a6(ctx: Context) -> Verdict:
    rows = _lemma_a6_rows(ctx, square=False)
    return _control(ctx, rows, "series with |c_k| instead of c_k²")


@PAPER.claim(
    "lemma-a6",
    title="Lemma A.6: the dual activation is the generating function of c_k²",
    statement="σ̂(ρ) = Σ_{k≥0} c_k² ρ^k and σ̄(ρ) = Σ_{k≥1} c_k² ρ^k (eq 36).",
    hypotheses="σ square-integrable under N(0,1); |ρ| ≤ 1",
    how="For each activation: 200 float Hermite coefficients with the rigorous tail bracket ρ^{K+1}(Var σ − Σc_k²) "
        "against a kink-split nested Gauss–Legendre quadrature of the 2-D integral on a ρ grid including ±1; closed "
        "forms (arc-cosine, arcsine, exp, sinh) compared too; Monte Carlo at three ρ. The bracket on He_{K+1}, where it "
        "is attained; the float c_k against mpmath quadrature; every registered closed-form dual against the "
        "quadrature at ρ = −0.5, 0.3, 0.9 (1e-10 relative), at every budget.",
    negative_control=control_lemma_a6,
    control_description="the series with |c_k| in place of c_k²",
    uses=("theory.DualSeries", "theory.dual_quadrature", "theory.dual_activation", "theory.hermite_coefficients"),
    depends_on=('dual',))
def check_lemma_a6(ctx: Context) -> Verdict:
    rows = _lemma_a6_rows(ctx)
    rows += memo(("lemma_a6_routes", ctx.budget), lambda: [tail_bracket_extremal_row(), mp_coefficient_row(ctx),
                                                           closed_forms_row()])
    st = status_from_rows(rows)
    return Verdict(ctx.claim_id, st,
                   "σ̂(ρ) = Σ c_k² ρ^k on all of [−1, 1]: series brackets contain the 2-D quadrature, closed forms "
                   "agree to 1e-10, Monte Carlo agrees" if st == HOLDS else "the Hermite series disagrees", rows)


def closed_forms_row() -> Evidence:
    """Every registered closed-form dual σ̂(ρ) (eq 36's sum written out: the arc-cosine kernels of ReLU, leaky ReLU
    and the step, the arcsine kernel of erf, e^(ρ−1)… of sin, cos, exp, the monomials of the Hermite polynomials) at
    ρ = −0.5, 0.3, 0.9 against the 2-D quadrature of E σ(X)σ(Y), which never reads a closed form — at every budget,
    also for the activations the series rows above sample only at the larger budgets; 1e-10 relative."""
    rhos = np.array([-0.5, 0.3, 0.9])
    worst, where, count = 0.0, "", 0
    for nm in theory.registered_names():
        act = theory.activation(nm)
        closed = theory.dual_closed_form(act)
        if closed is None or closed.is_number:       # he0: a constant, no dual to speak of
            continue
        cf = np.array([float(closed.subs(_rho, r)) for r in rhos])
        quad = dual_quadrature(act, rhos)
        rel = float(np.max(np.abs(cf - quad) / np.maximum(np.abs(quad), 1e-300)))
        count += 1
        if rel >= worst:
            worst, where = rel, f"{nm}: σ̂ = {closed}"
    return Evidence(f"every registered closed-form dual ({count}) vs 2-D quadrature at ρ = −0.5, 0.3, 0.9",
                    bound=1e-10, observed=worst, passed=worst <= 1e-10, note=f"the largest relative difference at {where}")


def _lemma_a7_acts(ctx: Context) -> list[str]:
    names = [n for n in theory.registered_names() if n not in ("he0", "linear", "swish")]
    return ctx.pick(["relu", "tanh", "sigmoid", "step", "he2", "identity", TIGHT_ACTIVATION],
                    names + [TIGHT_ACTIVATION], names + [TIGHT_ACTIVATION, "x*erf(x)", "abs(x)"])


def _lemma_a7_rows(ctx: Context, beta_factor: float = 1.0, acts=None, certificates=None) -> list[Evidence]:
    rows = []
    for nm in acts or _lemma_a7_acts(ctx):
        b = isometry_strength(nm)
        beta = (b.exact if b.exact is not None else b.value) * beta_factor
        cert = certify_lemma_a7(nm, beta)
        if certificates is not None:
            certificates.append(cert)
        # eq (52): |σ̄(ρ)| ≤ σ̄(|ρ|) on negative ρ (the step that extends the lemma to ρ < 0)
        dual = theory.numeric_dual(nm)
        neg = -np.linspace(0.001, 0.999, 200)
        jensen = float(np.max(np.abs(dual.bar(neg)) - dual.bar(-neg)))
        strict = None
        if not theory.activation(nm).is_affine:
            strict = bool(cert.strict)
        ok = cert.certified and jensen <= 1e-12 and strict is not False
        rows.append(Evidence(
            f"{nm}: sup_{{0≤ρ<1}} R(ρ) ≤ 1/β", bound=cert.inverse_beta,
            observed=cert.max_ratio_bound, numeric=cert.max_ratio_sampled, slack=cert.slack, passed=ok,
            note=f"{'certified' if cert.certified else 'NOT certified'} on [0,1] by {cert.method} "
                 f"({cert.cells} cells); sampled max R = {cert.max_ratio_sampled:.6g} at ρ = {cert.argmax_sampled:.3g}"
                 + "; observed: the certified upper bound on sup R (measured: the sampled maximum, a lower bound)"
                 + (f"; counterexample at ρ = {cert.counterexample:.6g}" if cert.counterexample is not None else "")
                 + f"; max(|σ̄(−ρ)| − σ̄(ρ)) = {jensen:.1e}"))
    return rows


def _certificate_rows(certificates) -> list[Evidence]:
    """What each certificate states beside its decision: its upper bound on sup R is at least the sampled maximum
    (a lower bound, from a grid), so its slack (1/β)/bound lies in [1, (1/β)/sampled max] when it certifies; and
    the Arb balls it was built on contain the float evaluation of the same closed form (numpy, itself checked
    against 2-D quadrature by Lemma A.6) at ρ = 0.1, 0.5, 0.9, with widths below 1e-9."""
    worst, where = 0.0, "none"
    for c in certificates:
        top = c.inverse_beta / c.max_ratio_sampled
        bad = (c.max_ratio_bound < c.max_ratio_sampled * (1 - 1e-12)
               or (c.certified and not 1 - 1e-12 <= c.slack <= top * (1 + 1e-12)))
        if bad:
            worst, where = math.inf, f"{c.activation}: slack {c.slack:.6g}, (1/β)/sampled max {top:.6g}"
    rows = [Evidence(f"each certificate's slack in [1, (1/β)/sampled max R] ({len(certificates)} certificates)",
                     bound=0.0, observed=worst, passed=worst == 0.0,
                     note=f"the first inconsistent one: {where}" if worst else
                          "every bound on sup R is at least the grid's maximum, every slack within it")]
    arb, outside, widest = [], [], 0.0
    for c in certificates:
        act = theory.activation(c.activation)
        enc = sigma_bar_enclosure(act)
        if act.polynomial_degree is not None or not enc.rigorous:
            continue
        arb.append(c.activation)
        dual = theory.numeric_dual(act)
        for r in (0.1, 0.5, 0.9):
            lo, hi = enc.at(r)
            v = float(dual.bar(np.array([r]))[0])
            e = max(float(dual.error), 1e-13) * (1 + abs(v))
            widest = max(widest, hi - lo)
            if not (lo - e <= v <= hi + e):
                outside.append(f"{c.activation} at ρ = {r}: [{lo:.12g}, {hi:.12g}] vs {v:.12g}")
    rows.append(Evidence(f"the Arb balls of σ̄ ({len(arb)} closed forms) vs their float evaluation at ρ = 0.1, 0.5, 0.9",
                         bound=1e-9, observed=widest if not outside else math.inf,
                         passed=not outside and widest <= 1e-9 and bool(arb),
                         note=("; ".join(outside[:3]) if outside else
                               f"each ball contains the float value; widest ball {widest:.1e}") + f"; {', '.join(arb)}"))
    return rows


def control_lemma_a7(ctx: Context) -> Verdict:
    rows = _lemma_a7_rows(ctx, beta_factor=1.01, acts=[TIGHT_ACTIVATION, "tanh"])
    return _control(ctx, rows, "β_σ raised by 1% for He_1 + He_2 and tanh")


@PAPER.claim(
    "lemma-a7",
    title="Lemma A.7: the mean-reduced dual contracts the potential by β_σ",
    statement="For ρ ∈ (−1, 1): [|σ̄(ρ)|/σ̄(1)]/[1 − |σ̄(ρ)|/σ̄(1)] ≤ β_σ⁻¹ |ρ|/(1 − |ρ|) (eq 38), strict if some c_k ≠ 0, k ≥ 2.",
    hypotheses="σ with Hermite expansion, not constant",
    how="R(ρ) = N(ρ)/D(ρ) with N, D non-decreasing power series, so sup over a cell [a, b] ≤ N(b)/D(a): an adaptive "
        "cover of [0, 1] proves the bound on the whole interval (Arb balls for closed-form σ̂, value ± error otherwise); "
        "polynomial σ decided exactly by real-root isolation; ρ < 0 via eq (52), checked on a grid.",
    negative_control=control_lemma_a7,
    control_description="β_σ raised by 1% for σ = He_1 + He_2 (tight as ρ → 1) and for tanh",
    uses=("theory.certify.certify_lemma_a7", "theory.numeric_dual", "theory.isometry_strength"),
    depends_on=('beta',))
def check_lemma_a7(ctx: Context) -> Verdict:
    certificates: list = []
    rows = _lemma_a7_rows(ctx, certificates=certificates)
    rows += _certificate_rows(certificates)
    rows += beta_rows([a for a in _lemma_a7_acts(ctx) if not theory.activation(a).is_affine])
    st = status_from_rows(rows)
    loose = [r for r in rows if r.slack is not None and r.slack > 1.01]
    return Verdict(ctx.claim_id, st,
                   f"certified on the whole interval for all {len(certificates)} activations (rigorous Arb balls for "
                   f"closed-form duals, exact for polynomials); the bound has > 1% slack for {len(loose)} of them"
                   if st == HOLDS else "Lemma A.7 fails for some activation", rows)


# =============================================================================================
# Lemma A.8 and Mehler's formula (eqs 57–62)
# =============================================================================================

_rho = sp.Symbol("rho", real=True)


def _exact_hermite_cross_moment(n: int, k: int) -> sp.Expr:
    """E[He_n(X) He_k(Y)] exactly, Y = ρX + sqrt(1−ρ²) Z with X, Z independent N(0,1)."""
    X, Z, s = sp.symbols("X Z s", real=True)
    Hn = hermite_polynomial(n).subs(_x, X)
    Hk = hermite_polynomial(k).subs(_x, _rho * X + s * Z)
    poly = sp.Poly(sp.expand(Hn * Hk), X, Z)
    total = sp.Integer(0)
    for (a, b), coef in poly.terms():
        if a % 2 or b % 2:
            continue
        total += coef * sp.factorial2(a - 1) * sp.factorial2(b - 1)
    return sp.expand(sp.expand(total).subs(s, sp.sqrt(1 - _rho ** 2)))


def _lemma_a8_rows(ctx: Context, kernel: str = "mehler") -> list[Evidence]:
    kmax = ctx.pick(4, 6, 8)
    bad = 0
    for n in range(kmax + 1):
        for k in range(kmax + 1):
            val = _exact_hermite_cross_moment(n, k)
            target = _rho ** n if n == k else sp.Integer(0)
            if sp.simplify(val - target) != 0:
                bad += 1
    # numerically for degrees up to 30 by a 2-D Gauss–Hermite rule (exact for these polynomials)
    K = 30
    gx, gw = np.polynomial.hermite_e.hermegauss(80)
    gw = gw / math.sqrt(2 * math.pi)
    worst = 0.0
    for r in (-0.8, -0.3, 0.5, 0.95):
        Y = r * gx[:, None] + math.sqrt(1 - r * r) * gx[None, :]
        HX = hermite_values(K, gx)            # [K+1, nodes]
        HY = hermite_values(K, Y)             # [K+1, nodes, nodes]
        W = gw[:, None] * gw[None, :]
        M = np.einsum("ia,jab,ab->ij", HX, HY, W)
        target = np.diag(r ** np.arange(K + 1))
        worst = max(worst, float(np.max(np.abs(M - target))))
    # Mehler's formula, eq (57) vs the expansion: with ρ^m (correct) and as printed in eq (58)
    mehler_worst, printed_worst = 0.0, 0.0
    for (xv, yv, r) in ((0.3, -1.2, 0.5), (1.5, 0.7, -0.4), (-0.8, -0.9, 0.8)):
        lhs = math.exp(-(r * r * (xv * xv + yv * yv) - 2 * xv * yv * r) / (2 * (1 - r * r))) / math.sqrt(1 - r * r)
        hx, hy = hermite_values(400, np.array(xv)), hermite_values(400, np.array(yv))
        with_rho = float(np.sum(r ** np.arange(401) * hx * hy))
        as_printed = float(np.sum(hx[:60] * hy[:60]))  # partial sum; the printed series does not converge
        mehler_worst = max(mehler_worst, abs(lhs - with_rho))
        printed_worst = max(printed_worst, abs(lhs - as_printed))
    rows = [
        Evidence(f"exact sympy: E He_n(X)He_k(Y) − ρ^n δ_nk ≠ 0 for n, k ≤ {kmax}", theory=0, numeric=bad,
                 samples=(kmax + 1) ** 2, passed=bad == 0),
        Evidence(f"2-D Gauss–Hermite, n, k ≤ {K}, ρ ∈ {{−0.8, −0.3, 0.5, 0.95}}: max |E He_n He_k − ρ^n δ_nk|",
                 bound=1e-9, observed=worst, passed=worst < 1e-9),
    ]
    if kernel == "mehler":
        rows.append(Evidence("Mehler (57) = Σ_m ρ^m He_m(x)He_m(y): max abs. difference at 3 points", bound=1e-10,
                             observed=mehler_worst, passed=mehler_worst < 1e-10))
        rows.append(Evidence("eq (58) as printed, Σ_m He_m(x)He_m(y) (60 terms): max abs. difference", bound=1e-10,
                             observed=printed_worst, passed=None, note="not the claim; the printed kernel lacks ρ^m"))
    else:
        rows.append(Evidence("eq (58) as printed, Σ_m He_m(x)He_m(y): max abs. difference from eq (57)", bound=1e-10,
                             observed=printed_worst, passed=printed_worst < 1e-10))
    return rows


def control_lemma_a8(ctx: Context) -> Verdict:
    rows = _lemma_a8_rows(ctx, kernel="printed")
    return _control(ctx, rows, "Mehler's formula as printed in eq (58)")


@PAPER.claim(
    "lemma-a8",
    title="Lemma A.8: Hermite polynomials of correlated Gaussians are orthogonal with weight ρ^n",
    statement="X, Y ~ N(0,1) with E XY = ρ: E He_n(X) He_k(Y) = ρ^n δ_nk (and Mehler's formula, eqs 57–58).",
    hypotheses="|ρ| < 1 for the Mehler kernel",
    how="Exact polynomial Gaussian moments in sympy (n, k ≤ 8), a 2-D Gauss–Hermite rule up to degree 30, and "
        "Mehler's kernel summed to 400 terms.",
    negative_control=control_lemma_a8,
    control_description="Mehler's expansion as printed in eq (58), without ρ^m",
    uses=("theory.hermite_polynomial", "theory.hermite_values"))
def check_lemma_a8(ctx: Context) -> Verdict:
    rows = _lemma_a8_rows(ctx)
    st = status_from_rows(rows)
    errata = [Erratum("Proof of Lemma A.8, eq (58)", "Mehler kernel (57) = Σ_m He_m(x) He_m(y)",
                      "(57) = Σ_m ρ^m He_m(x) He_m(y)",
                      f"at three (x, y, ρ) the series with ρ^m matches (57) to {rows[2].observed:.1e}; the printed one is "
                      f"off by {rows[3].observed:.3g} after 60 terms and diverges; eq (60) then uses the ρ^m.", "typo")]
    return Verdict(ctx.claim_id, st, "E He_n(X)He_k(Y) = ρ^n δ_nk exactly (sympy) and numerically up to degree 30"
                   if st == HOLDS else "Lemma A.8 fails", rows, errata)
