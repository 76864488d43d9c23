"""Shared parts of the covariance-SDE claims: the paper and its quantities as the claims consume them, and the
Kolmogorov–Smirnov and mean rows."""
from __future__ import annotations

import dataclasses
import math
import os

import numpy as np
import sympy as sp
from theory import covariance_sde as tcs

from ...api import Context, Evidence, lazy_module as _lazy, Paper, shared, status_from_rows, Verdict
from .coverage import ITEMS

stats = _lazy("scipy.stats")  # loaded on first use (listing claims stays fast)
ncs = _lazy("numerics.covariance_sde")

PAPER = Paper(key='covariance-sde', title='The neural covariance SDE: shaped infinite depth-and-width networks at initialization',
              citation='Li, Nica, Roy — the neural covariance SDE (NeurIPS 2022)',
              cite_key='li2022neural',
              coverage=ITEMS, expectations=os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.toml"))

# the quantities the claims consume (perturbed by the controls and --perturb covariance-sde:NAME=δ)
NU = PAPER.quantity("nu", "ν", "drift of the ReLU-like correlation SDE, ν(ρ) (eq 2.6 / Theorem 3.2)",
                    "theory.covariance_sde.sde_drift_relu_like")
MU_RELU = PAPER.quantity("mu_relu", "μ_ReLU", "drift of the ReLU Markov chain's correlation (eq 2.10)",
                         "theory.covariance_sde.relu_chain_coefficients")
SIGMA2_RELU = PAPER.quantity("sigma2_relu", "σ²", "variance Var(cφ(g)²) of the log-norm's Brownian motion for "
                             "ReLU-like φ (eq 2.6; ReLU: 5)", "theory.covariance_sde.relu_like_constants")
CRITERION = PAPER.quantity("criterion", "(3/4)φ″(0)² + φ‴(0)", "the explosion criterion of Proposition 3.10",
                           "theory.covariance_sde.explosion_criterion")


def nu_relu_like(c_plus=tcs.c_plus, c_minus=tcs.c_minus):
    """ν(ρ) of the ReLU-like correlation SDE (sympy) as the claims consume it."""
    return NU.scaled(tcs.sde_drift_relu_like(c_plus, c_minus))


def relu_like_constants(s_plus, s_minus):
    """(c, σ²) of eq (2.6) for φ = s₊max(x,0) + s₋min(x,0) (sympy), σ² as the claims consume it."""
    c, s2 = tcs.relu_like_constants(s_plus, s_minus)
    return c, SIGMA2_RELU.scaled(s2)


def nu_scale() -> float:
    """The factor (1 + δ_ν) by which the drift the SDE simulations use is scaled (numerics' ``nu_scale``)."""
    return NU.scaled(1.0)


def mu_relu_scale() -> float:
    """The factor (1 + δ) by which μ_ReLU of the chain (2.10) is scaled (numerics' ``mu_scale``)."""
    return MU_RELU.scaled(1.0)


def relu_chain_numeric():
    """(μ_ReLU, σ²_ReLU) as numpy functions of ρ (theory.covariance_sde.relu_chain_numeric), μ_ReLU as consumed."""
    f_mu, f_s2 = tcs.relu_chain_numeric()
    k = mu_relu_scale()
    return (f_mu if k == 1.0 else (lambda r: k * f_mu(r))), f_s2


def explosion_criterion(act, x0=0):
    """The criterion (3/4)φ″(0)² + φ‴(0) of theory.covariance_sde.explosion_criterion as the claims consume it."""
    crit = tcs.explosion_criterion(act, x0)
    d = CRITERION.delta()
    if d == 0.0:
        return crit
    return dataclasses.replace(crit, value=crit.value * (1 + d))


ALPHA = 0.001   # KS significance level


def _control(ctx: Context, rows: list[Evidence], summary: str) -> Verdict:
    return Verdict(ctx.claim_id, status_from_rows(rows), summary, rows)


def _ks_row(label: str, a: np.ndarray, b: np.ndarray, expect_same: bool = True, note: str = "") -> Evidence:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    res = stats.ks_2samp(a, b)
    ok = res.pvalue > ALPHA if expect_same else res.pvalue < ALPHA
    return Evidence(label, numeric=float(res.statistic), bound=ALPHA, observed=float(res.pvalue),
                    samples=min(len(a), len(b)), confidence=1 - ALPHA, passed=ok,
                    note=(note + "; " if note else "") + f"KS D = {res.statistic:.4f}, p = {res.pvalue:.3g} (measured: D; "
                         f"observed: p, which must be {'above' if expect_same else 'below'} the level α = {ALPHA:g})")


MEAN_CONF = 0.999


def _mean_row(label: str, net: np.ndarray, sde: np.ndarray, n: int) -> Evidence:
    """Two-sample comparison of means (network vs SDE) with a 99.9% normal interval: a statistic of known power (the
    drift ν shifts the mean of ρ_T), unlike an omnibus KS test. The finite-width bias of the network is O(n^(−1/2))
    in law but its mean is judged without an allowance: calibrated over 20 seeds (benchmarks/calibration.py)."""
    a, b = np.asarray(net, dtype=float), np.asarray(sde, dtype=float)
    diff = float(a.mean() - b.mean())
    se = float(math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size))
    z = abs(diff) / se if se > 0 else 0.0
    zc = float(stats.norm.ppf(0.5 + MEAN_CONF / 2))
    return Evidence(label, theory=float(b.mean()), numeric=float(a.mean()), observed=z, bound=zc, statistic="|z|",
                    confidence=MEAN_CONF, samples=min(a.size, b.size),
                    passed=z <= zc, note=f"difference of means {diff:+.4f} ± {zc * se:.4f} (n = {n}); resolves a drift "
                                          f"change that moves the mean by ≳ {2 * zc * se:.3f}")


def _sym_row(label: str, derived: sp.Expr, printed: sp.Expr) -> Evidence:
    diff = sp.simplify(derived - printed)
    return Evidence(label, theory=str(printed), numeric=str(derived), passed=diff == 0,
                    note="derived − printed simplifies to 0" if diff == 0 else f"derived − printed = {diff}")


def nu_implementation_row(c_plus: float = 0.0, c_minus: float = -1.0) -> Evidence:
    """The drift the simulations use (numerics' ν × the ν scale the check consumes) against the sympy ν(ρ) derived
    from the exact kernel, at 2001 points of [−1, 1]: deterministic, so a 0.1% implementation error turns it."""
    scale = nu_scale()
    r = np.linspace(-1.0, 1.0, 2001)
    sym = sp.lambdify(tcs.rho, tcs.sde_drift_relu_like(sp.nsimplify(c_plus), sp.nsimplify(c_minus)), "numpy")
    want = np.asarray(sym(r), dtype=float)
    got = scale * ncs.nu_numeric(c_plus, c_minus)(r)
    err = float(np.max(np.abs(got - want)))
    return Evidence(f"ν(ρ) simulated (numerics, c₊ = {c_plus:g}, c₋ = {c_minus:g}) vs the sympy ν derived from the exact "
                    "kernel, 2001 points of [−1, 1]", observed=err, bound=1e-12,
                    passed=err <= 1e-12, note=f"max |difference| (max |ν| = {float(np.max(np.abs(want))):.6g}); "
                                              "deterministic (the SDE statistics alone resolve only large drift errors)")


def relu_moment_rows() -> list[Evidence]:
    """The closed-form moments E[relu(x)^p relu(y)^q] (:func:`theory.covariance_sde.relu_bivariate_moment`, sympy in
    polar coordinates) that eqs (2.10) and (3.2) are derived from, against nested scipy quadrature over the half-lines
    where both factors are positive (:func:`theory.covariance_sde.relu_moment_numeric`): an independent route, at
    correlations of both signs, for every (p, q) the derivations use. Deterministic: the two routes agree to about
    1e-14 relative, so the bound 1e-10 leaves room only for quadrature rounding."""
    worst, where = 0.0, ""
    for p, q in ((1, 1), (2, 0), (4, 0), (3, 1), (2, 2)):
        f = sp.lambdify(tcs.rho, tcs.relu_bivariate_moment(p, q), "mpmath")
        for r in (-0.8, -0.3, 0.0, 0.5, 0.95):
            exact, quad = float(f(r)), tcs.relu_moment_numeric(p, q, r)
            err = abs(exact - quad) / abs(exact)
            if err >= worst:
                worst, where = err, f"(p, q) = ({p}, {q}), ρ = {r}: {exact:.15g} vs {quad:.15g}"
    return [Evidence("E relu(x)^p relu(y)^q in closed form (sympy, polar) vs nested quadrature, (p, q) ∈ {(1,1), "
                     "(2,0), (4,0), (3,1), (2,2)}, ρ ∈ {−0.8, −0.3, 0, 0.5, 0.95}", observed=worst, bound=1e-10,
                     passed=worst <= 1e-10, note=f"max relative difference, largest at {where}")]


def mu_relu_implementation_row() -> Evidence:
    """μ_ReLU and σ²_ReLU as the checks use them against a second route: moments by polar quadrature and the delta
    method with a finite-difference Hessian (numerics.covariance_sde.relu_chain_delta_method)."""
    f_mu, f_s2 = relu_chain_numeric()
    worst = 0.0
    for r in (-0.9, -0.5, 0.0, 0.3, 0.6, 0.9):
        m2, s2 = ncs.relu_chain_delta_method(r)
        worst = max(worst, abs(float(f_mu(np.array(r))) - m2) / (abs(m2) + 1e-3),
                    abs(float(f_s2(np.array(r))) - s2) / (abs(s2) + 1e-3))
    return Evidence("μ_ReLU, σ²_ReLU (sympy delta method, closed-form moments) vs quadrature moments + finite-difference "
                    "delta method, ρ ∈ {−0.9, −0.5, 0, 0.3, 0.6, 0.9}", observed=worst, bound=1e-5, passed=worst <= 1e-5,
                    note="max relative difference (the finite-difference Hessian limits the second route to ≈1e-6)")


def criterion_rows(acts) -> list[Evidence]:
    """The explosion criterion as the checks use it against the coefficient of V(V − 1)/a² in the diagonal drift
    (4.1) derived from the Taylor expansion (theory.covariance_sde.smooth_covariance_drift) at the activation's
    φ″(0), φ‴(0): a second route to the value, so a wrong coefficient (½ for ¾) or scale turns the row."""
    _, diag = tcs.smooth_covariance_drift()
    coeff = sp.simplify(diag / (tcs.V11 * (tcs.V11 - 1) / tcs.a_shape ** 2))
    rows = []
    for act in acts:
        c = explosion_criterion(act)
        derived = float(coeff.subs({tcs.phi2: c.phi2, tcs.phi3: c.phi3}))
        err = abs(float(c.value) - derived)
        rows.append(Evidence(f"{act}: criterion vs the derived (4.1) drift coefficient at its φ″(0), φ‴(0)",
                             theory=derived, numeric=float(c.value), observed=err, bound=1e-12 * max(1.0, abs(derived)),
                             passed=err <= 1e-12 * max(1.0, abs(derived))))
    return rows


@shared
def _network(kind: str, n: int, depth: int, rho0: float, samples: int, seed: int, c_plus=0.0, c_minus=-1.0,
             act="tanh", a=1.0, p=0.5, m=2, layers=None, explode_at=1e8):
    shape = ncs.Shape(kind, n, c_plus=c_plus, c_minus=c_minus, act=act, a=a, p=p)
    V0 = np.array([[1.0, rho0], [rho0, 1.0]]) if m == 2 else np.array([[1.0]])
    return ncs.simulate_shaped_network(shape, depth, V0, samples, seed=seed, explode_at=explode_at,
                                       layers=list(layers) if layers else [0, depth])


