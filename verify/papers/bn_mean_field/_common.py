"""Shared parts of the bn-mean-field claims: the paper and its quantities as the claims consume them, parameters,
hypotheses, the eigenvalue helpers of Theorems 1 and 6, and the finite-width gradient runs."""
from __future__ import annotations

import dataclasses
import math
import os

import numpy as np
import theory
from theory import bn_meanfield as tbm
from theory.errors import DeepinitError

from ...api import (Context, Evidence, HypothesisCheck, HypothesisNotMet, kinds as P, lazy_module as _lazy, memo,
                    Paper, Parameter, replicate_seeds, replicate_spread_row, shared, status_from_rows, Verdict)
from .coverage import ITEMS

stats = _lazy("scipy.stats")  # loaded on first use (listing claims stays fast)
nbm = _lazy("numerics.bn_meanfield")
nbk = _lazy("numerics.bn_kernels")

PAPER = Paper(key='bn-mean-field', title='A mean field theory of batch normalization',
              citation='Yang, Pennington, Rao, Sohl-Dickstein, Schoenholz — a mean field theory of batch normalization (ICLR 2019)',
              cite_key='yang2019mean',
              coverage=ITEMS, expectations=os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.toml"))

# the quantities the claims consume (perturbed by the controls and --perturb bn-mean-field:NAME=δ)
Q_STAR = PAPER.quantity("q*", "q*", "scale of the BSB1 fixed point Σ* = q*((1−c*)I + c*11ᵀ) (Theorem 4; bn-finite-width's "
                        "b*)", "theory.bsb1_fixed_point", aliases=("b*",))
C_STAR = PAPER.quantity("c*", "c*", "correlation of the BSB1 fixed point (Theorem 4)", "theory.bsb1_fixed_point")
LAMBDA_L = PAPER.quantity("lambda_L", "λ_𝕃", "forward-Jacobian eigenvalue on the 𝕃 eigenspace (Theorem 6)",
                          "theory.bn_jacobian_eigenvalues")
LAMBDA_M = PAPER.quantity("lambda_M", "λ_𝕄", "forward-Jacobian eigenvalue on the 𝕄 eigenspace (Theorem 6)",
                          "theory.bn_jacobian_eigenvalues")
LAMBDA_MAX = PAPER.quantity("lambda_max", "λ_max", "gradient-explosion rate, top eigenvalue of the backward map "
                            "(Theorem 7)", "theory.gradient_explosion_rate")


def bsb1_fixed_point(act, batch_size: int, **bn):
    """The BSB1 fixed point (q*, c*) of theory.bsb1_fixed_point (``bn``: eps, gamma, beta) as the claims consume it."""
    fp = theory.bsb1_fixed_point(act, batch_size, **bn)
    dq, dc = Q_STAR.delta(), C_STAR.delta()
    if dq == 0.0 and dc == 0.0:
        return fp
    return dataclasses.replace(fp, q=fp.q * (1 + dq), c=fp.c * (1 + dc))


def bn_jacobian_eigenvalues(act, batch_size: int):
    """λ_𝔾, λ_𝕃, λ_𝕄 of theory.bn_jacobian_eigenvalues as the claims consume them (λ_𝕃, λ_𝕄 perturbable)."""
    ev = theory.bn_jacobian_eigenvalues(act, batch_size)
    dl, dm = LAMBDA_L.delta(), LAMBDA_M.delta()
    if dl == 0.0 and dm == 0.0:
        return ev
    return dataclasses.replace(ev, L=ev.L * (1 + dl), M=ev.M * (1 + dm))


def gradient_explosion_rate(act, batch_size: int, **bn) -> float:
    """λ_max of theory.gradient_explosion_rate (``bn``: eps, gamma, beta) as the claims consume it."""
    return LAMBDA_MAX.scaled(float(theory.gradient_explosion_rate(act, batch_size, **bn)))


CONF = 0.95
TABLE_B = (4, 5, 8, 16, 32, 64, 128)
SMOOTH = ("tanh", "sin", "gelu", "selu", "exp", "sigmoid", "erf", "softplus", "silu")


def _control(ctx: Context, rows: list[Evidence], summary: str) -> Verdict:
    return Verdict(ctx.claim_id, status_from_rows(rows), summary, rows)


def _batch_param(help: str) -> Parameter:
    return Parameter("batch_size", P.batch_size(4, P.BATCH_MAX, allow_default_zero=True), 0,
                     f"{help} (4 to {P.BATCH_MAX}; the theorems assume B ≥ 4)")


def _act_param(default: str) -> Parameter:
    return Parameter("activation", P.activation_name, default, "activation name or formula in x"
                     + ("" if default else " (default: the claim's own activations)"))


def _rel(a, b) -> float:
    return abs(a / b - 1) if b != 0 else abs(a - b)


def _max_z(a: np.ndarray, b: np.ndarray, se: np.ndarray, allowance: float = 0.0) -> float:
    """max over the upper triangle of (|a − b| − allowance)₊/se: entrywise z-scores of a symmetric estimate."""
    iu = np.triu_indices(a.shape[0])
    return float(np.max(np.maximum(np.abs(a - b)[iu] - allowance, 0.0) / se[iu]))


H_BSB1_STABLE = HypothesisCheck("BSB1 attracting", "Σ* attracts nearby covariances: |λ_𝕃|, |λ_𝕄| < 1 (else the "
                                "network breaks the symmetry to BSB2 and the BSB1 results do not apply)")
H_BATCH = HypothesisCheck("B ≥ 4", "the batch size is at least 4 (the BSB1 sphere integrals are degenerate below)")
H_DIFFERENTIABLE = HypothesisCheck("φ′ a function", "φ is continuous and piecewise differentiable, so the backward map "
                                   "E[φ′φ′] exists (a jump makes φ′ a Dirac mass and λ_max undefined; a constant φ too)")


def _mc_forward_eigenvalues(act, B: int, samples: int = 400_000, eps: float = 1e-3, seed: int = 0) -> dict:
    """λ_𝕃, λ_𝕄 by central differences of the Monte Carlo map along the Theorem 1 eigenvectors, with common random
    numbers through a Cholesky factor (smooth in Σ): two map evaluations per eigenvalue, any φ."""
    a = theory.activation(act)
    Sig = tbm.bsb1_fixed_point(a, B).sigma
    z = np.random.default_rng(seed).standard_normal((samples, B))
    Gc = nbm.centering(B)

    def V(M):
        gh = (z @ np.linalg.cholesky(M).T) @ Gc
        f = a.numpy(math.sqrt(B) * gh / np.linalg.norm(gh, axis=1, keepdims=True))
        return f.T @ f / samples
    D, M = _theorem1_eigenvectors(B)
    return _project_eigenvalues((V(Sig + eps * D) - V(Sig - eps * D)) / (2 * eps),
                                (V(Sig + eps * M) - V(Sig - eps * M)) / (2 * eps), M)


def _confirm_unstable(act, B: int, ev) -> None:
    """Before an instability exempts a case from the claim, confirm it by an independent route: finite differences of
    the Laplace map for φ = max(x,0)^α, else the Monte Carlo Jacobian (common random numbers). A disagreement is
    numerical trouble (inconclusive), never an exemption."""
    import re
    name = theory.activation(act).name
    m = re.fullmatch(r"max\(x,0\)\*\*([0-9.]+)", name.replace(" ", ""))
    if name == "relu" or m:
        alpha = 1.0 if name == "relu" else float(m.group(1))
        fd = fd_forward_eigenvalues(B, alpha)
        other, how = max(abs(fd["L"]), abs(fd["M"])), "finite differences of eq (11)"
    else:
        mc = _mc_forward_eigenvalues(act, B)
        other, how = max(abs(mc["L"]), abs(mc["M"])), "directional derivatives of the Monte Carlo map (±≈0.005)"
    if other < 1:
        raise DeepinitError(f"{name} at B = {B}: the sphere reduction says BSB1 is unstable (max |λ| = "
                            f"{max(abs(ev.L), abs(ev.M)):.4g}) but {how} gives {other:.4g} < 1: the routes disagree")


def _require_bsb1(act, B: int) -> tbm.JacobianEigenvalues:
    """The forward eigenvalues, or a declared hypothesis failure when Σ* is not an attractor (BSB2 regime).
    Decided from the core's λ_𝕃, λ_𝕄 (not the perturbable copy): Theorems 6 and constants check those by independent
    routes (finite differences, Monte Carlo Jacobians)."""
    ev = tbm.bn_jacobian_eigenvalues(act, B)
    if not ev.bsb1_stable:
        _confirm_unstable(act, B, ev)
        raise HypothesisNotMet(H_BSB1_STABLE.name,
            f"{theory.activation(act).name} at B = {B}: the BSB1 fixed point is unstable (λ_𝕃 = {ev.L:.4g}, "
            f"λ_𝕄 = {ev.M:.4g}; one exceeds 1 in modulus) — the network does not converge to BSB1 (BSB2 symmetry "
            "breaking, Fig 1c,d), so the BSB1 results do not apply")
    return ev


# ---------------------------------------------------------------------------------------------
# Finite-width gradient runs (shared, cached so that a negative control reuses its check's simulation)
# ---------------------------------------------------------------------------------------------

def _fw_settings(ctx: Context) -> dict:
    return ctx.pick(dict(N=1000, S=24, depth=32, window=(8, 24)),
                    dict(N=2000, S=48, depth=40, window=(10, 30)),
                    dict(N=4000, S=100, depth=48, window=(12, 36)))


@shared
def _fw_run(act: str, B: int, N: int, S: int, depth: int, seed: int, method: str, device: str):
    return nbm.simulate_bn_gradients(act, N, B, depth, S, method=method, seed=seed, device=device)


#: smallest batch size at which the finite-width gradient-growth estimator has finite variance (χ²_{B−1} with B − 1 > 4)
FINITE_VARIANCE_MIN_B = 6


def _rate_row(ctx: Context, act: str, B: int, factor: float = 1.0, method: str = "exact", N=None, S=None,
              label: str = "") -> Evidence:
    st = _fw_settings(ctx)
    N = N or st["N"]
    S = S or st["S"]
    lam = factor * gradient_explosion_rate(act, B)
    run = _fw_run(act, B, N, S, st["depth"], ctx.seed * 1000 + B, method, ctx.device)
    lam_hat, ci, slopes = run.growth_rate(st["window"], CONF)
    se = float(slopes.std(ddof=1) / math.sqrt(len(slopes)))
    t = float(stats.t.ppf(0.5 + CONF / 2, len(slopes) - 1))
    dev = abs(math.log(lam_hat) - math.log(lam))
    allow = t * se + 3.0 / N
    if B < FINITE_VARIANCE_MIN_B:
        # r² = ‖Gh‖² is s·χ²_{B−1}; the per-neuron backward factor r⁻² has E r⁻⁴ = ∞ for B − 1 ≤ 4, so the per-seed
        # log-slope has no finite-variance t-interval and is biased low by more than O(1/N) (decided from B alone)
        return Evidence(f"{label}{act}, B = {B}: λ_max vs N = {N} networks (informational: heavy-tailed at B ≤ 5)",
                        theory=lam, numeric=lam_hat, ci=ci, confidence=CONF, samples=S, passed=None,
                        note=f"|log λ̂ − log λ| = {dev:.2e}; not judged: at B = {B} the backward factor r⁻² = "
                             f"‖Gh‖⁻² (r² ~ s·χ²_{B - 1}) has infinite variance, so the t-interval over seeds is "
                             "invalid and log λ̂ is biased low by a term decaying slower than 1/N (measured for tanh, "
                             "B = 4: −0.036, −0.031, +0.002 at N = 500, 2000, 8000, spread ±0.02–0.04 not shrinking "
                             "with N); eq (24) is judged against the exact backward-map integral instead")
    return Evidence(f"{label}{act}, B = {B}: λ_max{' × %.2f' % factor if factor != 1 else ''} vs N = {N} networks "
                    f"({'dense weights' if method == 'dense' else 'exact-in-law layers'}, autograd)",
                    theory=lam, numeric=lam_hat, ci=ci, confidence=CONF, samples=S, observed=dev, bound=allow,
                    slack=allow / dev if dev > 0 else math.inf, passed=dev <= allow,
                    note=f"|log λ̂ − log λ| = {dev:.2e} vs t·SE + 3/N = {allow:.2e}; layers {st['window']} of "
                         f"{st['depth']}")


def growth_rate_se_row(ctx: Context) -> Evidence:
    """The interval BNGradientRun.growth_rate reports for λ̂, against the spread of replicates (λ̂ at finite width has
    no closed form): one ensemble of K·S exact-in-law ReLU networks (B = 8, N = 32, 12 layers, the middle-half window)
    split into K replicates of S = 3 seeds. Each replicate's t-interval exp(−(m ± t_{S−1}·SE)) gives back the SE it
    used, SE_k = log(hi/lo)/(2 t_{S−1}); the variance of log λ̂_k over replicates against mean_k SE_k²:
    F(K − 1, K(S − 1)) at 99.9% (:func:`verify.calibration.replicate_spread_row`). Consumes no theory quantity; the
    ensemble is shared by the claims of a run (:func:`_fw_run`)."""
    K, S, B, N, depth = ctx.pick(400, 800, 1600), 3, 8, 32, 12
    window = (depth // 4, 3 * depth // 4)

    def compute():
        run = _fw_run("relu", B, N, K * S, depth, replicate_seeds(ctx.seed, 2, 1)[0], "exact", ctx.device)
        t = float(stats.t.ppf(0.5 + CONF / 2, S - 1))
        out = []
        for k in range(K):
            part = nbm.BNGradientRun(run.sq_grad[k * S:(k + 1) * S], run.cov[k * S:(k + 1) * S], N, B, run.method)
            lam_hat, (lo, hi), _ = part.growth_rate(window, CONF)
            out.append((math.log(lam_hat), math.log(hi / lo) / (2 * t)))
        return np.array(out)

    est = memo(("growth_rate_se", K, S, B, N, depth, ctx.seed, ctx.device), compute)
    return replicate_spread_row(f"standard error of λ̂ (growth_rate's {100 * CONF:g}% t-interval over seeds), relu, "
                                f"B = {B}, N = {N}", est[:, 0], est[:, 1], se_dof=K * (S - 1),
                                note=f"{S} networks per replicate, layers {window} of {depth}; log λ̂")


def _theorem1_eigenvectors(B: int) -> tuple[np.ndarray, np.ndarray]:
    """An 𝕃 eigenvector D(e1 − e2) (its second-copy partner is in the kernel) and an 𝕄 eigenvector (Theorem 1)."""
    D = np.zeros((B, B))
    D[0, 0], D[1, 1] = 1, -1
    M = np.zeros((B, B))
    M[0, 2] = M[2, 0] = M[1, 3] = M[3, 1] = 1
    M[0, 3] = M[3, 0] = M[1, 2] = M[2, 1] = -1
    return D, M


def _project_eigenvalues(dV_D: np.ndarray, dV_M: np.ndarray, M: np.ndarray) -> dict:
    """λ_𝕃 = a − 2b from dV[D] = a D + b O(v) (a = dV_11, b = dV_13); λ_𝕄 = ⟨dV[M], M⟩/⟨M, M⟩."""
    return {"L": float(dV_D[0, 0] - 2 * dV_D[0, 2]), "M": float(np.sum(dV_M * M) / np.sum(M * M))}


def fd_forward_eigenvalues(B: int, alpha: float = 1.0, eps: float = 1e-5) -> dict:
    """λ_𝕃, λ_𝕄 of φ = max(x,0)^α by central differences of the Laplace map (eq 11) at Σ* along the Theorem 1
    eigenvectors — independent of the sphere reduction of theory.bn_meanfield. Σ* is the core's fixed point (the base
    point only; the fixed point is checked by Theorems 4 and 5)."""
    Sig = tbm.bsb1_fixed_point(f"max(x,0)**{alpha:.10f}" if alpha != 1.0 else "relu", B).sigma
    D, M = _theorem1_eigenvectors(B)

    def dV(E):
        return (nbm.bn_meanfield_map_laplace(Sig + eps * E, alpha)
                - nbm.bn_meanfield_map_laplace(Sig - eps * E, alpha)) / (2 * eps)
    return _project_eigenvalues(dV(D), dV(M), M)


def eps_critical(act: str, B: int) -> float:
    """The ε beyond which the BSB1 point collapses (s* = 0), in closed form: ReLU (1-homogeneous) F(s) = E[ρ²]·s₀ with
    F′(0) = (B−1)s₀/(Bε), so ε_c = (B−1)s₀/B (s₀ = q*(1 − c*) at ε = 0); an odd φ with φ′(0) = 1 (tanh) has
    F′(0) = φ′(0)²·E[y]/(Bε)·B/(B−1)·… = 1/ε, so ε_c = 1."""
    if act == "relu":
        return (B - 1) * tbm.bsb1_fixed_point("relu", B).s / B
    if act == "tanh":
        return 1.0
    raise DeepinitError(f"no closed-form critical ε for {act}")


def forward_eigenvalue_rows(cases, label: str = "") -> list[Evidence]:
    """λ_𝕃, λ_𝕄 as consumed (verify.quantities) against finite differences of the Laplace map, (B, α) per case."""
    rows = []
    for B, alpha in cases:
        name = "relu" if alpha == 1.0 else f"max(x,0)**{alpha:.10f}"
        ev = bn_jacobian_eigenvalues(name, B)
        fd = memo(("fd_forward_eigenvalues", B, alpha), lambda: fd_forward_eigenvalues(B, alpha))
        err = max(_rel(ev.L, fd["L"]), _rel(ev.M, fd["M"]))
        rows.append(Evidence(f"{label}α-ReLU α = {alpha:.4g}, B = {B}: λ_𝕃, λ_𝕄 (sphere reduction) vs finite differences "
                             "of eq (11)", theory=(ev.L, ev.M), numeric=(fd["L"], fd["M"]), observed=err, bound=1e-6,
                             passed=err < 1e-6))
    return rows


def operator_top_row(act: str, B: int, nodes: int | None = None, **bn) -> Evidence:
    """λ_max (eq 24, the reduction to the eigenvector G) against the largest eigenvalue of the whole backward operator
    Δ ↦ E[(∂φ̃/∂h)ᵀΔ(∂φ̃/∂h)] at Σ* (eqs 21–23: the growth per layer is that operator's top eigenvalue λ_max = λ_𝔾),
    assembled on all B(B + 1)/2 symmetric directions by theory.backward_operator_quadrature (polar coordinates of Gh:
    a radial rule × a product rule on S^{B−2}, independent of the sphere-marginal reduction). ``bn``: BN's ε, γ, β.
    Allowance: B(B + 1)/2 × the operator's entrywise error estimate (its difference from ⅔ of the nodes; an
    eigenvalue moves by at most the matrix norm of the error) + 1e-9·λ (the reduction's own tolerance)."""
    lam = float(gradient_explosion_rate(act, B, **bn))
    key = ("backward_operator_quadrature", act, B, nodes, tuple(sorted(bn.items())))
    op = memo(key, lambda: tbm.backward_operator_quadrature(act, tbm.bsb1_fixed_point(act, B, **bn).sigma,
                                                              nodes=nodes, **bn))
    dim = B * (B + 1) // 2
    dev, allow = abs(op.top_eigenvalue - lam), dim * op.error + 1e-9 * lam
    label = "".join(f", {n} = {bn[k]:g}" for k, n in (("eps", "ε"), ("gamma", "γ"), ("beta", "β")) if k in bn)
    nxt = ", ".join(f"{v.real:.6f}" for v in op.eigenvalues[1:4])
    return Evidence(f"{act}, B = {B}{label}: λ_max (eq 24) = the largest eigenvalue of the backward operator "
                    f"Δ ↦ E[(∂φ̃/∂h)ᵀΔ(∂φ̃/∂h)] at Σ* (eqs 21–23; polar quadrature of the whole {dim}×{dim} operator)",
                    theory=lam, numeric=op.top_eigenvalue, observed=dev, bound=allow,
                    slack=allow / dev if dev > 0 else math.inf, passed=dev <= allow,
                    note=f"the next eigenvalues {nxt}; the quadrature's error estimate {op.error:.1e}")


def _random_cov(rng, B: int) -> np.ndarray:
    A = rng.standard_normal((B, B + 2))
    return A @ A.T / B
