"""Claims of the isometry paper — Joudaki, Daneshmand, Bach, "On the impact of activation and
normalization in obtaining isometric embeddings at initialization" (NeurIPS 2023).

Notation (the paper's): n = batch size, d = width, L or ℓ = depth/layer, G^ℓ the Gram matrix of
eq (2), 𝓘 the isometry of eq (3), γ the potential of eq (21), c_k the normalised Hermite
coefficients of Definition 2, β_σ the isometry strength of eq (11), σ̂ and σ̄ the dual
activations of eq (35). One section per claim, in paper order.

theory/ functions used: activation, hermite_coefficients, isometry_strength, isometry,
isometry_gap, gram_potential, lemma_a4_bounds, numeric_dual, dual_quadrature, DualSeries,
certify.certify_lemma_a7.  numerics/ functions used: simulate_isometry_mlp,
layernorm_meanfield_trajectory, meanfield_map_mc.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import sympy as sp

import numerics
import theory
from theory.certify import certify_lemma_a7
from theory.dual import float_moments
from theory.hermite import hermite_polynomial, hermite_values
from theory.isometry import isometry_strength_mp

from .. import params as P
from ..core import (HOLDS, Claim, Context, Erratum, Evidence,
                    HypothesisCheck, HypothesisNotMet,
                    Parameter, Verdict, status_from_rows)
from .. import quantities as Q
from ..registry import register
from ..figures import Panel, Series, mean_band, write_figure
from ..stats import fit_log_rate, mean_ci

PAPER = "isometry"
CONF = 0.95


def _rng(ctx: Context, salt: int) -> np.random.Generator:
    return np.random.default_rng([ctx.seed, salt])


def _mf_trajectory(act, G0, depth: int):
    """numerics.layernorm_meanfield_trajectory, memoised for the claim run: the deterministic mean-field trajectory
    consumes no perturbable quantity, so the controls and --sensitivity reuse it."""
    key = ("ln-meanfield", str(act), np.asarray(G0, dtype=float).tobytes(), np.shape(G0), int(depth))
    return Q.memo(key, lambda: numerics.layernorm_meanfield_trajectory(act, G0, depth))


def _control(name: str, rows: list[Evidence], summary: str) -> Verdict:
    """A negative control's verdict: the same evidence rows, judged the same way."""
    return Verdict(f"{PAPER}:{name}", status_from_rows(rows), summary, rows)


def _acts_param(default: str) -> Parameter:
    # validated when the command line is read: a malformed formula is a usage error (exit 2)
    return Parameter("activations", P.activation_names, default, "comma-separated activation names or formulas")


# =============================================================================================
# random and adversarial inputs
# =============================================================================================

def random_batch(rng: np.random.Generator, n: int, d: int, kind: str) -> np.ndarray:
    """n vectors in ℝ^d as columns of a d×n matrix, of one of several adversarial kinds."""
    X = rng.standard_normal((d, n))
    if kind == "wild-norms":
        X *= 10.0 ** rng.uniform(-6, 6, size=n)
    elif kind == "correlated":
        X = X + 3.0 * rng.standard_normal((d, 1))
    elif kind == "near-degenerate":
        X[:, -1] = X[:, 0] * rng.uniform(0.5, 2) + 1e-7 * rng.standard_normal(d)
    elif kind == "nearly-equal-norms":
        X /= np.linalg.norm(X, axis=0)
        X *= 1 + 1e-9 * rng.standard_normal(n)
    return X


BATCH_KINDS = ("gaussian", "wild-norms", "correlated", "near-degenerate", "nearly-equal-norms")


def random_correlation(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    """A unit-diagonal PSD matrix of one of several kinds (used by Lemma A.4, Theorem A.2)."""
    if kind == "equicorrelated":
        r = rng.uniform(-1 / (n - 1) + 1e-3, 0.999)
        G = (1 - r) * np.eye(n) + r * np.ones((n, n))
    elif kind == "near-degenerate":
        X = rng.standard_normal((n + 2, n))
        X[:, -1] = X[:, 0] + 1e-3 * rng.standard_normal(n + 2)
        G = X.T @ X
    elif kind == "gershgorin-edge":
        # off-diagonal magnitudes just inside (n−1) max|G_ij| ≤ 1
        m = (1 - 1e-6) / (n - 1)
        S = rng.choice([-1.0, 1.0], size=(n, n))
        S = np.triu(S, 1)
        S = S + S.T
        G = np.eye(n) + m * S
        w = np.linalg.eigvalsh(G)
        if w.min() < 0:
            G = np.eye(n) + m * np.abs(S)
    else:  # wishart
        X = rng.standard_normal((max(n, int(rng.integers(n, 3 * n + 1))), n))
        G = X.T @ X
    dg = np.sqrt(np.diag(G))
    return G / np.outer(dg, dg)


CORR_KINDS = ("wishart", "equicorrelated", "near-degenerate", "gershgorin-edge")


def _log_iso_qr(X: np.ndarray) -> float:
    """log 𝓘(XᵀX) from a QR factorisation (accurate for ill-conditioned batches)."""
    n = X.shape[1]
    r = np.abs(np.diag(np.linalg.qr(X, mode="r")))
    if np.any(r == 0):
        return -math.inf
    return 2 * float(np.sum(np.log(r))) / n - math.log(float(np.sum(X * X)) / n)


# =============================================================================================
# Lemma A.1 — basic properties of 𝓘 (and properties (i), (ii) of Section 3)
# =============================================================================================

def _lemma_a1_rows(iso, ctx: Context) -> list[Evidence]:
    """Float checks on well-conditioned matrices (cond < 1e8); exact rational checks for the rest."""
    rng = _rng(ctx, 11)
    trials = ctx.pick(200, 2000, 20000)
    scale_err, range_bad, not_max, zero_bad, judged = 0.0, 0, 0, 0, 0
    for t in range(trials):
        n = int(rng.integers(2, 13))
        kind = BATCH_KINDS[t % len(BATCH_KINDS)]
        X = random_batch(rng, n, int(rng.integers(n, 3 * n + 2)), kind)
        M = X.T @ X
        v = float(iso(M))
        if not (-1e-12 <= v <= 1 + 1e-12) or not math.isfinite(v):
            range_bad += 1
        Xs = X.copy()
        Xs[:, -1] = Xs[:, 0]
        # a duplicated sample: exactly singular, so in floats 𝓘^n = det/(tr/n)^n is at rounding level
        vd = float(iso(Xs.T @ Xs))
        if not (math.isfinite(vd) and abs(vd) <= 1.0) or vd ** n > 1e-12:
            zero_bad += 1
        if np.linalg.cond(M) > 1e8:
            continue
        judged += 1
        c = 10.0 ** rng.uniform(-8, 8)
        scale_err = max(scale_err, abs(float(iso(c * M)) - v) / v)
        if v >= 1 - 1e-12 and np.linalg.norm(M / np.trace(M) * n - np.eye(n)) > 1e-6:
            not_max += 1
    ident = [float(iso(c * np.eye(n))) for n in (2, 5, 17) for c in (1.0, 2.0, 1e-6)]
    # exact rationals: 𝓘(M)^n = det M/(tr M/n)^n for integer M = AᵀA, n ≤ 5
    exact_trials = ctx.pick(30, 100, 400)
    exact_bad = 0
    for t in range(exact_trials):
        n = int(rng.integers(2, 6))
        A = sp.Matrix(rng.integers(-5, 6, size=(n + 1, n)).tolist())
        M = A.T * A
        if M.trace() == 0:
            continue
        c = sp.Rational(int(rng.integers(1, 1000)), int(rng.integers(1, 1000)))
        val = _iso_power_exact(iso, M)
        Md = M.copy()
        Md[:, -1] = Md[:, 0]
        Md[-1, :] = Md[0, :]
        ok = (0 <= val <= 1 and _iso_power_exact(iso, c * M) == val
              and (val == 0) == (M.det() == 0) and _iso_power_exact(iso, Md) == 0)
        exact_bad += 0 if ok else 1
    rows = [
        Evidence("scale invariance: max |𝓘(cM) − 𝓘(M)|/𝓘(M), c ∈ [1e-8, 1e8], cond(M) < 1e8", theory=0.0,
                 observed=scale_err, samples=judged, passed=scale_err < 1e-9),
        Evidence("range: trials with 𝓘 ∉ [0, 1]", theory=0, observed=range_bad, samples=trials,
                 passed=range_bad == 0, note="random, wild-norm, correlated, near-degenerate batches, n ≤ 12"),
        Evidence("maximum: 𝓘(c I_n) for c ∈ {1, 2, 1e-6}", theory=1.0, observed=min(ident),
                 passed=all(abs(v - 1) < 1e-12 for v in ident)),
        Evidence("maximum only at multiples of I: trials with 𝓘 = 1 but M ≠ cI", theory=0, observed=not_max,
                 samples=judged, passed=not_max == 0),
        Evidence("minimum: duplicated sample, trials with 𝓘^n > 1e-12 (float rounding level)", theory=0,
                 observed=zero_bad, samples=trials, passed=zero_bad == 0),
        Evidence("exact rationals (n ≤ 5, M = AᵀA integer, rational c): 𝓘^n ∈ [0,1], 𝓘(cM) = 𝓘(M), "
                 "𝓘 = 0 ⇔ det M = 0, duplicated sample ⇒ 0", theory=0, observed=exact_bad, samples=exact_trials,
                 passed=exact_bad == 0),
    ]
    return rows


def _iso_power_exact(iso, M: sp.Matrix):
    """𝓘(M)^n in exact arithmetic for the true definition; the float function for a test double."""
    n = M.shape[0]
    if iso is theory.isometry:
        return M.det() / (M.trace() / n) ** n
    v = float(iso(np.array(M.tolist(), dtype=float)))
    return sp.nsimplify(v ** n) if math.isfinite(v) and v >= 0 else sp.Integer(-1)


def check_lemma_a1(ctx: Context) -> Verdict:
    rows = _lemma_a1_rows(theory.isometry, ctx)
    status = status_from_rows(rows)
    errata = [Erratum(
        "Lemma A.1 (3) and Section 3 property (ii)",
        "𝓘(M) = 1 ⟺ M = I_n", "𝓘(M) = 1 ⟺ M = c·I_n for some c > 0",
        "𝓘 is scale invariant (property 1), so 𝓘(2·I_n) = 1 although 2·I_n ≠ I_n; checked for "
        "n ∈ {2, 5, 17}, c ∈ {1, 2, 1e-6}: 𝓘(cI) = 1 to 1e-12.", "typo")]
    return Verdict(f"{PAPER}:lemma-a1", status,
                   "all four properties hold on every random and adversarial trial" if status == HOLDS
                   else "a property of 𝓘 failed", rows, errata)


def control_lemma_a1(ctx: Context) -> Verdict:
    def wrong_iso(M):  # the determinant without its 1/n power: not scale invariant
        M = np.asarray(M, dtype=float)
        n = M.shape[-1]
        return np.linalg.det(M) / (np.trace(M) / n)
    rows = _lemma_a1_rows(wrong_iso, ctx)
    status = status_from_rows(rows)
    return Verdict(f"{PAPER}:lemma-a1", status, "the property checks applied to det(M)/(tr M/n)", rows)


register(Claim(
    PAPER, "lemma-a1", "Lemma A.1: scale invariance and range of the isometry 𝓘",
    "For PSD M: 𝓘(cM) = 𝓘(M); 𝓘(M) ∈ [0, 1]; 𝓘(M) = 1 iff M = I_n; 𝓘(M) = 0 iff M is degenerate (eq 3).",
    "M positive semi-definite, tr M > 0",
    "Random and adversarial PSD matrices (wild norms 1e±6, near-degenerate, duplicated samples), "
    "float checks with stated tolerances, plus an exact rational check of det M/(tr M/n)^n ∈ [0,1].",
    check_lemma_a1, control_lemma_a1, "the same checks applied to det(M)/(tr M / n), missing the 1/n power",
    uses=("theory.isometry",), aliases=("definition1",)))


# =============================================================================================
# Theorem 1 (eq 4) — normalisation increases isometry
# =============================================================================================

def _theorem1_rows(normalise, ctx: Context, label: str) -> list[Evidence]:
    """Check 𝓘(G̃) ≥ 𝓘(G)(1 + var(a)/ā²) where G̃ is the Gram of normalise(X)."""
    rng = _rng(ctx, 21)
    trials = ctx.pick(300, 3000, 30000)
    worst = math.inf
    worst_kind = ""
    fails = 0
    skipped = 0
    for t in range(trials):
        kind = BATCH_KINDS[t % len(BATCH_KINDS)]
        n = int(rng.integers(2, 16))
        X = random_batch(rng, n, int(rng.integers(n, 4 * n + 2)), kind)
        if np.linalg.cond(X) > 1e10:
            skipped += 1
            continue
        a = np.linalg.norm(X, axis=0)
        lhs = _log_iso_qr(normalise(X))
        rhs = _log_iso_qr(X) + math.log1p(float(np.var(a)) / float(np.mean(a)) ** 2)
        margin = lhs - rhs  # ≥ 0 ⇔ the inequality holds (log scale)
        tol = 1e-9 * (1 + abs(rhs))
        if margin < -tol:
            fails += 1
        if margin < worst:
            worst, worst_kind = margin, kind
    exact_trials = ctx.pick(20, 60, 200)
    exact_fails = _theorem1_exact(rng, exact_trials, normalise_exact=label == "x/‖x‖")
    return [
        Evidence(f"min over trials of log 𝓘(G̃) − log[𝓘(G)(1 + var a/ā²)] ({label})", bound=0.0,
                 observed=worst, slack=math.exp(worst) if math.isfinite(worst) else None, samples=trials - skipped,
                 passed=fails == 0,
                 note=f"{fails} violations; worst case kind {worst_kind!r}; {skipped} numerically singular batches "
                      "(cond > 1e10) left to the exact check"),
        Evidence("exact rational check, n ≤ 5 (𝓘^n compared exactly)", theory=0, observed=exact_fails,
                 samples=exact_trials, passed=exact_fails == 0 if label == "x/‖x‖" else None),
    ]


def _rational_unit_vector(rng, dim: int) -> list[Fraction]:
    """A rational point on the unit sphere (inverse stereographic projection of a rational point)."""
    u = [Fraction(int(rng.integers(-9, 10)), int(rng.integers(1, 10))) for _ in range(dim - 1)]
    s = sum(v * v for v in u)
    return [2 * v / (1 + s) for v in u] + [(s - 1) / (1 + s)]


def _theorem1_exact(rng, trials: int, normalise_exact: bool) -> int:
    fails = 0
    for _ in range(trials):
        n = int(rng.integers(2, 6))
        B = [_rational_unit_vector(rng, n + 1) for _ in range(n)]
        Gt = sp.Matrix(n, n, lambda i, j: sum(p * q for p, q in zip(B[i], B[j])))
        a = [Fraction(int(rng.integers(1, 40)), int(rng.integers(1, 7))) for _ in range(n)]
        G = sp.Matrix(n, n, lambda i, j: Gt[i, j] * a[i] * a[j])
        if not normalise_exact:
            Gt = G
        abar = sum(a) / n
        var = sum((v - abar) ** 2 for v in a) / n
        lhs = Gt.det() / (Gt.trace() / n) ** n
        rhs = G.det() / (G.trace() / n) ** n * (1 + sp.Rational(var.numerator, var.denominator)
                                                / sp.Rational(abar.numerator, abar.denominator) ** 2) ** n
        if lhs < rhs:
            fails += 1
    return fails


def _unit(X):
    return X / np.linalg.norm(X, axis=0)


def check_theorem1(ctx: Context) -> Verdict:
    rows = _theorem1_rows(_unit, ctx, "x/‖x‖")
    st = status_from_rows(rows)
    errata = [Erratum("Theorem 1 proof, annotation of eq (7)", "det(D) = Π a_i²", "det(D)² = Π a_i² (det D = Π a_i)",
                      "D = diag(a_1..a_n) so det D = Π a_i; the proof uses det(G) = det(G̃) det(D)².", "typo")]
    return Verdict(f"{PAPER}:theorem1", st,
                   "the inequality holds on every random, wild-norm and near-degenerate batch, and exactly in rationals"
                   if st == HOLDS else "a batch violates eq (4)", rows, errata)


def control_theorem1(ctx: Context) -> Verdict:
    rows = _theorem1_rows(lambda X: X * np.linalg.norm(X, axis=0), ctx, "x·‖x‖ (not a normalisation)")
    return _control("theorem1", rows, "eq (4) applied to x ↦ x‖x‖, which does not normalise")


register(Claim(
    PAPER, "theorem1", "Theorem 1: projection onto the sphere increases isometry by the norm-variation factor",
    "𝓘(G̃) ≥ 𝓘(G)(1 + (1/n)Σ(a_i − ā)²/ā²), a_i = ‖x_i‖, G̃ the Gram of x_i/‖x_i‖ (eq 4).",
    "x_i ∈ ℝ^d \\ {0}",
    "Thousands of random/adversarial batches (norms spread over 12 decades, near-degenerate, nearly equal norms), "
    "log-scale with QR determinants; exact rational check for n ≤ 5 with rational unit vectors and norms.",
    check_theorem1, control_theorem1, "the inequality applied to x ↦ x·‖x‖, which does not normalise",
    uses=("theory.isometry",)))


# =============================================================================================
# Corollary 2 — layer normalisation; and Fig 2 (isometry through an MLP's layers)
# =============================================================================================

def _layer_norm_cols(X):
    return X / np.sqrt(np.mean(X * X, axis=0))


def _mlp_sublayer_isometries(ctx: Context, act: str, depth: int, width: int, batch: int):
    """log 𝓘 after each sub-layer (fc, act, centre, norm) of a dense eq-(1) MLP, and the
    Corollary 2 margins at every norm layer."""
    rng = _rng(ctx, 31)
    sigma = theory.activation(act).numpy
    X = rng.standard_normal((width, batch)) + 0.8 * rng.standard_normal((width, 1))
    X = _layer_norm_cols(X - X.mean(axis=0)) / math.sqrt(width)
    trace, margins = [], []
    for ell in range(depth):
        H = rng.standard_normal((width, width)) @ X
        A = sigma(H)
        C = A - A.mean(axis=0)
        N = _layer_norm_cols(C) / math.sqrt(width)
        for name, M in ((f"fc-{ell}", H), (f"act-{ell}", A), (f"centre-{ell}", C), (f"norm-{ell}", N)):
            trace.append((name, _log_iso_qr(M)))
        a = np.linalg.norm(C, axis=0)
        margins.append(_log_iso_qr(N) - _log_iso_qr(C) - math.log1p(float(np.var(a) / np.mean(a) ** 2)))
        X = N
    return trace, margins


def check_corollary2(ctx: Context) -> Verdict:
    rows = _theorem1_rows(_layer_norm_cols, ctx, "LN(x) = x/sqrt(mean x²)")
    depth, width, batch = 10, ctx.pick(200, 1000, 1000), ctx.pick(64, 512, 512)
    trace, margins = _mlp_sublayer_isometries(ctx, "tanh", depth, width, batch)
    rows.append(Evidence(f"Fig 2 setting (tanh, depth {depth}, width {width}, batch {batch}, Gaussian inputs): "
                         "min margin of eq (4) at the norm layers (log scale)", bound=0.0, observed=min(margins),
                         samples=depth, passed=min(margins) >= -1e-9,
                         note="CIFAR10 and the trained network of Fig 2 (right) are not reproduced"))
    st = status_from_rows(rows)
    arte = {"figure2_log_isometry": [{"layer": n, "log_isometry": v} for n, v in trace]}
    if ctx.artefact_dir:  # Fig 2 (left): log 𝓘 after every sub-layer, the norm layers marked
        x = np.arange(len(trace))
        y = np.array([v for _, v in trace])
        norm = np.array([i for i, (n, _) in enumerate(trace) if n.startswith("norm")])
        files = write_figure(ctx.artefact_dir, "isometry_figure2", [Panel(
            "Fig 2: isometry through the sub-layers of an MLP (tanh)", "sub-layer (fc, act, centre, norm) × depth",
            r"$\log\,\mathcal{I}$", [Series("every sub-layer", x, y, "theory", "tanh"),
                                        Series("after layer normalisation", norm, y[norm], "simulation", "LN")])],
            f"depth {depth}, width {width}, batch {batch}, Gaussian inputs (CIFAR10 and training not reproduced); "
            f"budget {ctx.budget}")
        arte.update({f"figure2_{k}": v for k, v in files.items()})
    return Verdict(f"{PAPER}:corollary2", st,
                   "layer normalisation never lowers isometry below eq (4)'s bound, in random batches and inside an MLP"
                   if st == HOLDS else "a layer-norm step violates Corollary 2", rows, artefacts=arte)


def control_corollary2(ctx: Context) -> Verdict:
    rows = _theorem1_rows(lambda X: X - X.mean(axis=0), ctx, "centering only (no normalisation)")
    return _control("corollary2", rows, "eq (4) applied to centering without LN")


register(Claim(
    PAPER, "corollary2", "Corollary 2 (and Fig 2): layer normalisation increases isometry",
    "For x̃_i = LN(x_i): 𝓘(G̃) ≥ 𝓘(G)(1 + (1/n)Σ(a_i − ā)²/ā²), a_i = ‖x_i‖.",
    "x_i ∈ ℝ^d \\ {0}",
    "As Theorem 1 with LN(x) = x/sqrt(mean x²); plus the Fig 2 network (tanh, depth 10, width 1000, "
    "batch 512, synthetic Gaussian inputs) with the margin of eq (4) at every norm layer.",
    check_corollary2, control_corollary2, "the inequality applied to centering alone, which does not normalise",
    uses=("theory.isometry",), aliases=("figure2",)))


# =============================================================================================
# Corollary 3 — batch normalisation (printed statement has typos; intended statement checked)
# =============================================================================================

def _bn_rows(X):
    return X / np.sqrt(np.mean(X * X, axis=1, keepdims=True))


def _corollary3_rows(ctx: Context, reading: str) -> list[Evidence]:
    rng = _rng(ctx, 41)
    trials = ctx.pick(300, 3000, 20000)
    fails, worst, vacuous = 0, math.inf, 0
    for t in range(trials):
        n = int(rng.integers(3, 20))
        d = int(rng.integers(2, n + 1)) if t % 4 else int(rng.integers(n + 1, 2 * n + 2))
        kind = BATCH_KINDS[t % 3]
        X = random_batch(rng, n, d, kind)  # d×n: rows are features
        Xt = _bn_rows(X)
        a = np.linalg.norm(X, axis=1)
        if reading == "intended":
            lhs, rhs0 = _log_iso_qr(Xt.T), _log_iso_qr(X.T)  # 𝓘(X̃X̃ᵀ), 𝓘(XXᵀ) (d×d)
            abar = float(np.mean(a))
        elif reading == "printed":
            lhs, rhs0 = _log_iso_qr(X.T), _log_iso_qr(X.T)  # C̃ := XXᵀ as printed
            abar = float(np.sum(a)) / n                     # ā := (1/n) Σ_{i ≤ d} a_i as printed
        else:  # sample-Gram reading: C = XᵀX (n×n)
            lhs, rhs0 = _log_iso_qr(Xt), _log_iso_qr(X)
            abar = float(np.mean(a))
        if d > n and reading != "sample-gram":
            vacuous += 1  # XXᵀ has rank ≤ n < d: both isometries are 0
            continue
        factor = math.log1p(float(np.mean((a - abar) ** 2)) / abar ** 2)
        margin = lhs - (rhs0 + factor)
        worst = min(worst, margin)
        if margin < -1e-9 * (1 + abs(rhs0)):
            fails += 1
    return [Evidence(f"Corollary 3, {reading} reading: violations of the inequality", theory=0, observed=fails,
                     slack=math.exp(worst) if math.isfinite(worst) else None, samples=trials - vacuous,
                     passed=fails == 0,
                     note=f"{vacuous} trials with d > n are vacuous (rank XXᵀ ≤ n < d so both sides are 0)")]


def check_corollary3(ctx: Context) -> Verdict:
    rows = _corollary3_rows(ctx, "intended")
    alt = _corollary3_rows(ctx, "sample-gram")[0]
    alt.passed = None
    alt.note = "not the claim: shows that the features' Gram XXᵀ (not the samples' XᵀX) is the right reading"
    printed = _corollary3_rows(ctx, "printed")[0]
    printed.passed = None
    printed.note = "the statement as printed (C̃ := XXᵀ, ā := (1/n)Σ_{i≤d} a_i) fails; see errata"
    rows += [alt, printed]
    st = status_from_rows(rows)
    errata = [
        Erratum("Corollary 3", "C̃ := XXᵀ", "C̃ := X̃X̃ᵀ",
                f"as printed C̃ = C and the claim reads 𝓘(C) ≥ 𝓘(C)(1 + …), false whenever the row norms differ: "
                f"{printed.observed} of {printed.samples} random batches violate it.", "typo"),
        Erratum("Corollary 3", "ā := (1/n) Σ_{i=1}^d a_i", "ā := (1/d) Σ_{i=1}^d a_i (mean of the d row norms)",
                "the corollary is Theorem 1 applied to the d feature rows X_i· ∈ ℝ^n; with the intended C̃ and ā "
                f"it holds on all {rows[0].samples} non-vacuous trials.", "typo"),
        Erratum("Table 1 (BN)", "BN(X)_ij = X_ij / sqrt((1/n) Σ_{k}^{d} X_ik²)", "sum over k = 1..n (the batch)",
                "BN normalises each feature over the n samples of the batch.", "typo"),
        Erratum("Corollary 3 (scope)", "stated for any d, n", "non-trivial only for d ≤ n",
                "C = XXᵀ is d×d of rank ≤ n: for d > n both isometries vanish and the inequality reads 0 ≥ 0.", "typo"),
    ]
    return Verdict(f"{PAPER}:corollary3", st,
                   "the intended statement (Theorem 1 on the feature rows) holds; the printed one has typos"
                   if st == HOLDS else "the intended Corollary 3 fails", rows, errata)


def control_corollary3(ctx: Context) -> Verdict:
    rows = _corollary3_rows(ctx, "printed")
    return _control("corollary3", rows, "the literal printed statement")


register(Claim(
    PAPER, "corollary3", "Corollary 3: batch normalisation increases the isometry of the feature covariance",
    "Intended: X ∈ ℝ^{d×n}, X̃ = BN(X), C = XXᵀ, C̃ = X̃X̃ᵀ, a_i = ‖X_i·‖, ā = (1/d)Σa_i: "
    "𝓘(C̃) ≥ 𝓘(C)(1 + (1/d)Σ(a_i − ā)²/ā²).",
    "rows X_i· ≠ 0; non-trivial for d ≤ n",
    "Random and adversarial X with d ≤ n (and d > n, reported as vacuous); the printed reading and the "
    "sample-Gram reading are evaluated too, as evidence for the errata.",
    check_corollary3, control_corollary3, "the statement exactly as printed (C̃ := XXᵀ, ā with 1/n)",
    uses=("theory.isometry",)))


# =============================================================================================
# Definition 3 — β_σ ∈ [1, 2], β_σ = 1 iff σ is linear
# =============================================================================================

_DEF3_EXTRA = ("2*x + 3", "x**2", "x + x**2/5", "x**3", "abs(x)", "x*erf(x)", "sin(2*x)", "exp(x/2)",
               "max(3*x, 0)", "x + 0.01*x**3")


def _definition3_rows(beta_fn, ctx: Context) -> list[Evidence]:
    names = [n for n in theory.registered_names() if n != "he0"] + list(_DEF3_EXTRA)
    if ctx.budget == "quick":
        names = names[::2] + ["2*x + 3", "identity", "he2"]
    rows = []
    out_of_range, iff_bad = [], []
    for nm in names:
        act = theory.activation(nm)
        b = float(beta_fn(act))
        if not (1 - 1e-13 <= b <= 2 + 1e-13):
            out_of_range.append((nm, b))
        affine = act.is_affine
        if affine != (abs(b - 1) < 1e-12):
            iff_bad.append((nm, b))
    rows.append(Evidence("activations with β_σ ∉ [1, 2]", theory=0, observed=len(out_of_range), samples=len(names),
                         passed=not out_of_range, note=", ".join(f"{n}: {v:.6g}" for n, v in out_of_range)))
    rows.append(Evidence("activations violating 'β_σ = 1 iff affine'", theory=0, observed=len(iff_bad),
                         samples=len(names), passed=not iff_bad, note=", ".join(f"{n}: {v:.6g}" for n, v in iff_bad)))
    # β = 2 iff c_1 = 0 (even activations): a sharper statement of the upper end
    even = [n for n in names if theory.activation(n).parity == "even"]
    rows.append(Evidence("even activations have β_σ = 2 (c_1 = 0)", theory=2.0,
                         observed=min((float(beta_fn(theory.activation(n))) for n in even), default=2.0),
                         samples=len(even), passed=all(abs(float(beta_fn(theory.activation(n))) - 2) < 1e-12 for n in even)))
    return rows


def check_definition3(ctx: Context) -> Verdict:
    rows = _definition3_rows(lambda a: Q.isometry_strength(a), ctx)
    st = status_from_rows(rows)
    errata = [Erratum("Definition 3, property (ii)", "β_σ = 1 iff the activation is linear",
                      "β_σ = 1 iff σ is affine (σ(x) = c_0 + c_1 x, c_1 ≠ 0)",
                      "σ(x) = 2x + 3 has c_k = 0 for k ≥ 2 and β_σ = 1 exactly (sympy).", "typo")]
    return Verdict(f"{PAPER}:definition3", st,
                   "β_σ ∈ [1, 2] for every registered and sample activation; β_σ = 1 exactly for the affine ones"
                   if st == HOLDS else "a property of β_σ fails", rows, errata)


def control_definition3(ctx: Context) -> Verdict:
    def wrong_beta(act):  # c_0 wrongly included in the denominator: 2 − c_1²/Σ_{k≥0} c_k²
        mean, c1, var = float_moments(act)
        return 2 - c1 ** 2 / (var + mean ** 2)
    rows = _definition3_rows(wrong_beta, ctx)
    return _control("definition3", rows, "β with c_0² in the denominator")


register(Claim(
    PAPER, "definition3", "Definition 3: the isometry strength β_σ lies in [1, 2] and equals 1 iff σ is linear",
    "β_σ := 2 − c_1²/Σ_{k≥1} c_k² ∈ [1, 2], and β_σ = 1 iff σ is linear (eq 11).",
    "σ square-integrable under N(0,1), not constant",
    "β_σ exactly (sympy) or to 30 digits (mpmath) for every registered activation and sample formulas; "
    "affine-ness decided symbolically.",
    check_definition3, control_definition3, "β computed with c_0² wrongly added to the denominator",
    depends_on=('beta',),
    uses=("theory.isometry_strength", "theory.activation")))


# =============================================================================================
# Table 2 and Table B.1 — closed forms of β_σ
# =============================================================================================

_x = sp.Symbol("x", real=True)
_E = sp.E

TABLE2 = [  # (column, activation, printed β_σ)
    ("He_1(x) = x", "x", sp.Integer(1)),
    ("He_2(x) = x² − 1", "x**2 - 1", sp.Integer(2)),
    ("sin(x)", "sin(x)", 2 - 2 * _E / (_E ** 2 - 1)),
    ("exp(x − 2)", "exp(x - 2)", 2 - 1 / (_E - 1)),
    ("1[x > 0]", "step", 2 - 2 / sp.pi),
    ("max(x, 0)", "relu", (3 * sp.pi - 4) / (2 * sp.pi - 2)),
]


def _beta_mc(act, samples: int, seed: int):
    """β_σ by Monte Carlo with a delta-method standard error (independent of quadrature)."""
    rng = np.random.default_rng(seed)
    z = rng.standard_normal(samples)
    s = act.numpy(z)
    m = float(np.mean(s))
    c1 = float(np.mean(s * z))
    var = float(np.var(s))
    beta = 2 - c1 ** 2 / var
    # delta method on (E σz, E σ, E σ²)
    g = np.array([-2 * c1 / var, -2 * c1 ** 2 * m / var ** 2, c1 ** 2 / var ** 2])
    S = np.cov(np.stack([s * z, s, s * s]))
    se = float(np.sqrt(max(g @ S @ g, 0) / samples))
    return beta, se


def _table_rows(table, ctx: Context, numeric_digits: float = 1e-15):
    rows, latex = [], []
    mc_n = ctx.pick(200_000, 2_000_000, 20_000_000)
    for label, spec, printed in table:
        act = theory.activation(spec)
        b = Q.isometry_strength(act)
        exact_equal = b.exact is not None and sp.simplify(b.exact - printed) == 0
        mp = isometry_strength_mp(act, 40)
        printed_val = float(sp.N(printed, 40))
        rel = abs(float(mp) - printed_val) / abs(printed_val)
        mc, se = Q.memo(("beta_mc", str(act.expr), mc_n, ctx.seed + 17), lambda: _beta_mc(act, mc_n, ctx.seed + 17))
        z = abs(mc - printed_val) / se if se > 0 else (0.0 if mc == printed_val else math.inf)
        ok = exact_equal and rel < numeric_digits and z < 4.0
        rows.append(Evidence(f"β for {label}", theory=printed_val, numeric=float(mp), observed=mc,
                             ci=(mc - 1.96 * se, mc + 1.96 * se), confidence=CONF, samples=mc_n, passed=ok,
                             note=f"sympy proves equality: {exact_equal}; |quadrature − printed|/printed = {rel:.1e}; "
                                  f"Monte Carlo z = {z:.2f}"))
        latex.append([label, sp.latex(printed), sp.latex(b.exact) if b.exact is not None else "",
                      f"{printed_val:.15f}", f"{float(mp):.15f}", f"{mc:.5f} ± {1.96 * se:.5f}"])
    return rows, latex


def check_table2(ctx: Context, table=None) -> Verdict:
    rows, latex = _table_rows(table or TABLE2, ctx)
    st = status_from_rows(rows)
    return Verdict(f"{PAPER}:table2", st,
                   "every printed β_σ equals the exact sympy value, agrees with 40-digit quadrature to 1e-15 and "
                   "with Monte Carlo at 95%" if st == HOLDS else "a printed β_σ disagrees", rows,
                   tables=[("Table 2: isometry strength β_σ (printed closed form, sympy, 15 digits, Monte Carlo ±95%)",
                            ["σ", "printed", "sympy", "printed (num.)", "quadrature", "Monte Carlo"], latex, (1, 2))])


def control_table2(ctx: Context) -> Verdict:
    wrong = [r if r[1] != "relu" else (r[0], r[1], (3 * sp.pi - 4) / (2 * sp.pi - 1)) for r in TABLE2]
    v = check_table2(ctx, wrong)
    v.summary = "Table 2 with the ReLU entry changed to (3π − 4)/(2π − 1)"
    return v


register(Claim(
    PAPER, "table2", "Table 2: closed forms of β_σ for He_1, He_2, sin, exp, step, ReLU",
    "β = 1, 2, 2 − 2e/(e² − 1), 2 − 1/(e − 1), 2 − 2/π, (3π − 4)/(2π − 2).",
    "",
    "sympy computes β_σ exactly from exact Gaussian moments and proves equality with the printed form; "
    "40-digit mpmath quadrature agrees to 1e-15; Monte Carlo (2·10⁶ samples, delta-method CI) agrees at 95%.",
    check_table2, control_table2, "the ReLU entry replaced by (3π − 4)/(2π − 1)",
    depends_on=('beta',),
    uses=("theory.isometry_strength",)))


_alpha = sp.Symbol("alpha", positive=True)
TABLE_B1 = [  # (family, printed β(α))
    ("exp", (2 - 2 * sp.exp(_alpha ** 2) + _alpha ** 2) / (1 - sp.exp(_alpha ** 2))),
    ("sin", 2 * (-1 + sp.exp(2 * _alpha ** 2) - sp.exp(_alpha ** 2) * _alpha ** 2) / (-1 + sp.exp(2 * _alpha ** 2))),
    ("relu", (4 - 3 * sp.pi) / (2 - 2 * sp.pi)),
]


def _symbolic_beta_family(kind: str) -> sp.Expr | None:
    """β(α) for α > 0 symbolic, from exact Gaussian moments (exp and sin families)."""
    from theory.gaussian import exact_expectation_pieces, tidy
    f = {"exp": sp.exp(_alpha * _x), "sin": sp.sin(_alpha * _x)}.get(kind)
    if f is None:
        return None
    pieces = (((-math.inf, math.inf), f),)
    mean = tidy(exact_expectation_pieces(pieces))
    c1 = tidy(exact_expectation_pieces(pieces, _x))
    second = tidy(exact_expectation_pieces((((-math.inf, math.inf), sp.expand(f ** 2)),)))
    return sp.simplify(2 - c1 ** 2 / (second - mean ** 2))


def check_table_b1(ctx: Context, table=None) -> Verdict:
    table = table or TABLE_B1
    alphas = ctx.pick([0.5, 1.0, 2.0], [0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0], [0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 2.5, 3, 4])
    rows, latex = [], []
    for kind, printed in table:
        sym = _symbolic_beta_family(kind)
        sym_ok = None if sym is None else bool(sp.simplify(sym - printed) == 0)
        worst = 0.0
        for a in alphas + ([-a for a in alphas[:3]] if kind == "relu" else []):
            act = theory.gain_family(kind, a)
            mp = Q.scaled("beta", float(isometry_strength_mp(act, 40)))
            pv = float(sp.N(printed.subs(_alpha, sp.nsimplify(abs(a))), 40))  # exact α: no cancellation
            worst = max(worst, abs(mp - pv) / pv)
            latex.append([f"{kind}({a}x)" if kind != "relu" else f"max({a}x, 0)", f"{pv:.15f}", f"{mp:.15f}"])
        rows.append(Evidence(f"β(α) for the {kind} family: max rel. error, {len(alphas)} gains", theory=0.0,
                             observed=worst, passed=worst < 1e-15 and sym_ok is not False,
                             note=("sympy proves the printed closed form for symbolic α > 0"
                                   if sym_ok else "symbolic α not attempted (kink); numeric at each α, incl. α < 0")
                             if sym_ok is not False else "sympy: printed form differs from the exact β(α)"))
    st = status_from_rows(rows)
    return Verdict(f"{PAPER}:table-b1", st,
                   "the three printed β(α) hold (symbolically for exp and sin; at every sampled gain to 1e-15)"
                   if st == HOLDS else "a Table B.1 entry disagrees", rows,
                   tables=[("Table B.1: β of gain-scaled activations (printed vs 40-digit quadrature)",
                            ["σ", "printed", "quadrature"], latex)])


def control_table_b1(ctx: Context) -> Verdict:
    wrong = [(k, p.subs(sp.exp(2 * _alpha ** 2), sp.exp(3 * _alpha ** 2)) if k == "sin" else p) for k, p in TABLE_B1]
    v = check_table_b1(ctx, wrong)
    v.summary = "Table B.1 with e^{2α²} replaced by e^{3α²} in the sin entry"
    return v


register(Claim(
    PAPER, "table-b1", "Table B.1: β_σ of the gain families exp(αx), sin(αx), max(αx, 0)",
    "β = (2 − 2e^{α²} + α²)/(1 − e^{α²}), 2(−1 + e^{2α²} − e^{α²}α²)/(−1 + e^{2α²}), (4 − 3π)/(2 − 2π).",
    "α ≠ 0",
    "sympy derives β(α) with α a positive symbol and proves equality; 40-digit quadrature at a grid of gains "
    "(and negative gains for ReLU).",
    check_table_b1, control_table_b1, "the sin entry with e^{2α²} replaced by e^{3α²}",
    depends_on=('beta',),
    uses=("theory.gain_family", "theory.isometry_strength"), aliases=("tableb1",)))


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
        Evidence(f"upper bound det G ≤ {label}: violations", theory=0, observed=upper_fail, slack=min_upper_slack,
                 samples=trials, passed=upper_fail == 0, note="slack = min over trials of bound/det"),
        Evidence("lower bound (1 − (n−1) max|G_ij|)^n ≤ det G where (n−1) max|G_ij| ≤ 1: violations", theory=0,
                 observed=lower_fail, slack=min_lower_slack, samples=lower_judged, passed=lower_fail == 0,
                 note="includes matrices at the Gershgorin edge (n−1)m = 1 − 1e-6"),
        Evidence("exact rational correlation matrices, n ≤ 5 (both bounds)", theory=0, observed=exact_fail,
                 samples=exact_trials, passed=exact_fail == 0),
    ]


def _upper_printed(m):
    return 1 - m * m


def check_lemma_a4(ctx: Context) -> Verdict:
    rows = _lemma_a4_rows(_upper_printed, ctx, "1 − max G_ij²")
    st = status_from_rows(rows)
    return Verdict(f"{PAPER}:lemma-a4", st, "both bounds of eq (24) hold on every random, near-degenerate and "
                   "Gershgorin-edge correlation matrix, and exactly in rationals" if st == HOLDS
                   else "a bound of eq (24) fails", rows)


def control_lemma_a4(ctx: Context) -> Verdict:
    rows = _lemma_a4_rows(lambda m: 1 - m, ctx, "1 − max|G_ij| (deliberately wrong)")
    return _control("lemma-a4", rows, "upper bound replaced by 1 − max|G_ij|")


register(Claim(
    PAPER, "lemma-a4", "Lemma A.4: Gershgorin lower bound and the upper bound on det G",
    "For PSD G with unit diagonal: (1 − (n−1) max_{i≠j}|G_ij|)^n ≤ det G ≤ 1 − max_{i≠j} G_ij² (eq 24), "
    "the lower bound when (n−1)|G_ij| ≤ 1.",
    "G PSD with unit diagonal",
    "Random Wishart, equicorrelated, near-degenerate and Gershgorin-edge correlation matrices (n ≤ 15); exact "
    "rational correlation matrices from rational unit vectors (n ≤ 5).",
    check_lemma_a4, control_lemma_a4, "the upper bound replaced by 1 − max|G_ij|",
    uses=("theory.lemma_a4_bounds",)))


# =============================================================================================
# Lemma A.6 (eq 36) — σ̂(ρ) = Σ c_k² ρ^k
# =============================================================================================

def _lemma_a6_acts(ctx: Context) -> list[str]:
    names = [n for n in theory.registered_names() if n not in ("he0", "linear", "swish")]
    return ctx.pick(["relu", "tanh", "sin", "step", "selu", "gelu", "he3"], names, names)


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
        reference = Q.dual_quadrature(act, grid)
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
        rng = _rng(ctx, 61)
        N = ctx.pick(100_000, 1_000_000, 4_000_000)
        zmax = 0.0
        deg = act.polynomial_degree
        mc_points = (-0.6, 0.3, 0.9) if deg is None or deg < 5 else ()  # heavy-tailed products: CLT unreliable
        for r in mc_points:
            xs = rng.standard_normal(N)
            ys = r * xs + math.sqrt(1 - r * r) * rng.standard_normal(N)
            p = act.numpy(xs) * act.numpy(ys)
            m, se = float(np.mean(p)), float(np.std(p)) / math.sqrt(N)
            ref = float(Q.dual_quadrature(act, r))
            zmax = max(zmax, abs(m - ref) / se if se > 0 else 0.0)
        passed = worst == 0.0 and zmax < 4.5 and (agree is None or agree < 1e-10)
        rows.append(Evidence(
            f"{nm}: series Σ_k≤{K} c_k²ρ^k ± tail vs 2-D quadrature on {grid.size} ρ ∈ [−1, 1]",
            theory=0.0, observed=worst, confidence=CONF, samples=N, passed=passed,
            note=(f"closed form vs quadrature max diff {agree:.1e}; " if agree is not None else "")
                 + f"tail bound at ρ = 1: {series.tail:.1e}; "
                 + (f"Monte Carlo max |z| = {zmax:.2f} at ρ ∈ {{−0.6, 0.3, 0.9}} (threshold 4.5: two-sided 1e-5, "
                    "Bonferroni over ≤ 90 tests)" if mc_points else
                    "Monte Carlo skipped: products of degree ≥ 5 polynomials are too heavy-tailed for a z-test; "
                    "the series is finite and the Gauss rule exact here")))
    return rows


def check_lemma_a6(ctx: Context) -> Verdict:
    rows = _lemma_a6_rows(ctx)
    st = status_from_rows(rows)
    return Verdict(f"{PAPER}:lemma-a6", st,
                   "σ̂(ρ) = Σ c_k² ρ^k on all of [−1, 1]: series brackets contain the 2-D quadrature, closed forms "
                   "agree to 1e-10, Monte Carlo agrees" if st == HOLDS else "the Hermite series disagrees", rows)


def control_lemma_a6(ctx: Context) -> Verdict:
    rows = _lemma_a6_rows(ctx, square=False)
    return _control("lemma-a6", rows, "series with |c_k| instead of c_k²")


register(Claim(
    PAPER, "lemma-a6", "Lemma A.6: the dual activation is the generating function of c_k²",
    "σ̂(ρ) = Σ_{k≥0} c_k² ρ^k and σ̄(ρ) = Σ_{k≥1} c_k² ρ^k (eq 36).",
    "σ square-integrable under N(0,1); |ρ| ≤ 1",
    "For each activation: 200 float Hermite coefficients with the rigorous tail bracket ρ^{K+1}(Var σ − Σc_k²) "
    "against a kink-split nested Gauss–Legendre quadrature of the 2-D integral on a ρ grid including ±1; closed "
    "forms (arc-cosine, arcsine, exp, sinh) compared too; Monte Carlo at three ρ.",
    check_lemma_a6, control_lemma_a6, "the series with |c_k| in place of c_k²",
    depends_on=('dual',),
    uses=("theory.DualSeries", "theory.dual_quadrature", "theory.dual_activation")))


# =============================================================================================
# Lemma A.7 (eq 38) — the contraction of the potential, certified on the whole interval
# =============================================================================================

TIGHT_ACTIVATION = "x + (x**2 - 1)/sqrt(2)"  # He_1 + He_2: R(ρ) → 1/β as ρ → 1


def _lemma_a7_acts(ctx: Context) -> list[str]:
    names = [n for n in theory.registered_names() if n not in ("he0", "linear", "swish")]
    return ctx.pick(["relu", "tanh", "sigmoid", "step", "he2", "identity", TIGHT_ACTIVATION],
                    names + [TIGHT_ACTIVATION], names + [TIGHT_ACTIVATION, "x*erf(x)", "abs(x)"])


def _lemma_a7_rows(ctx: Context, beta_factor: float = 1.0, acts=None) -> list[Evidence]:
    rows = []
    for nm in acts or _lemma_a7_acts(ctx):
        b = Q.isometry_strength(nm)
        beta = (b.exact if b.exact is not None else b.value) * beta_factor
        cert = certify_lemma_a7(nm, beta)
        # eq (52): |σ̄(ρ)| ≤ σ̄(|ρ|) on negative ρ (the step that extends the lemma to ρ < 0)
        dual = theory.numeric_dual(nm)
        neg = -np.linspace(0.001, 0.999, 200)
        jensen = float(np.max(np.abs(dual.bar(neg)) - dual.bar(-neg)))
        strict = None
        if not theory.activation(nm).is_affine:
            strict = bool(cert.strict)
        ok = cert.certified and jensen <= 1e-12 and strict is not False
        rows.append(Evidence(
            f"{nm}: sup_{{0≤ρ<1}} R(ρ) ≤ 1/β", theory=cert.inverse_beta, bound=cert.inverse_beta,
            observed=cert.max_ratio_bound, numeric=cert.max_ratio_sampled, slack=cert.slack, passed=ok,
            note=f"{'certified' if cert.certified else 'NOT certified'} on [0,1] by {cert.method} "
                 f"({cert.cells} cells); sampled max R = {cert.max_ratio_sampled:.6g} at ρ = {cert.argmax_sampled:.3g}"
                 + (f"; counterexample at ρ = {cert.counterexample:.6g}" if cert.counterexample is not None else "")
                 + f"; max(|σ̄(−ρ)| − σ̄(ρ)) = {jensen:.1e}"))
    return rows


def check_lemma_a7(ctx: Context) -> Verdict:
    rows = _lemma_a7_rows(ctx)
    rows += beta_rows([a for a in _lemma_a7_acts(ctx) if not theory.activation(a).is_affine])
    st = status_from_rows(rows)
    loose = [r for r in rows if r.slack is not None and r.slack > 1.01]
    return Verdict(f"{PAPER}:lemma-a7", st,
                   f"certified on the whole interval for all {len(rows)} activations (rigorous Arb balls for closed-form "
                   f"duals, exact for polynomials); the bound has > 1% slack for {len(loose)} of them"
                   if st == HOLDS else "Lemma A.7 fails for some activation", rows)


def control_lemma_a7(ctx: Context) -> Verdict:
    rows = _lemma_a7_rows(ctx, beta_factor=1.01, acts=[TIGHT_ACTIVATION, "tanh"])
    return _control("lemma-a7", rows, "β_σ raised by 1% for He_1 + He_2 and tanh")


register(Claim(
    PAPER, "lemma-a7", "Lemma A.7: the mean-reduced dual contracts the potential by β_σ",
    "For ρ ∈ (−1, 1): [|σ̄(ρ)|/σ̄(1)]/[1 − |σ̄(ρ)|/σ̄(1)] ≤ β_σ⁻¹ |ρ|/(1 − |ρ|) (eq 38), strict if some c_k ≠ 0, k ≥ 2.",
    "σ with Hermite expansion, not constant",
    "R(ρ) = N(ρ)/D(ρ) with N, D non-decreasing power series, so sup over a cell [a, b] ≤ N(b)/D(a): an adaptive "
    "cover of [0, 1] proves the bound on the whole interval (Arb balls for closed-form σ̂, value ± error otherwise); "
    "polynomial σ decided exactly by real-root isolation; ρ < 0 via eq (52), checked on a grid.",
    check_lemma_a7, control_lemma_a7, "β_σ raised by 1% for σ = He_1 + He_2 (tight as ρ → 1) and for tanh",
    depends_on=('beta',),
    uses=("theory.certify.certify_lemma_a7", "theory.numeric_dual", "theory.isometry_strength")))


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
        Evidence(f"exact sympy: E He_n(X)He_k(Y) − ρ^n δ_nk ≠ 0 for n, k ≤ {kmax}", theory=0, observed=bad,
                 samples=(kmax + 1) ** 2, passed=bad == 0),
        Evidence(f"2-D Gauss–Hermite, n, k ≤ {K}, ρ ∈ {{−0.8, −0.3, 0.5, 0.95}}: max |E He_n He_k − ρ^n δ_nk|",
                 theory=0.0, observed=worst, passed=worst < 1e-9),
    ]
    if kernel == "mehler":
        rows.append(Evidence("Mehler (57) = Σ_m ρ^m He_m(x)He_m(y): max abs. difference at 3 points", theory=0.0,
                             observed=mehler_worst, passed=mehler_worst < 1e-10))
        rows.append(Evidence("eq (58) as printed, Σ_m He_m(x)He_m(y) (60 terms): max abs. difference", theory=0.0,
                             observed=printed_worst, passed=None, note="not the claim; the printed kernel lacks ρ^m"))
    else:
        rows.append(Evidence("eq (58) as printed, Σ_m He_m(x)He_m(y): max abs. difference from eq (57)", theory=0.0,
                             observed=printed_worst, passed=printed_worst < 1e-10))
    return rows


def check_lemma_a8(ctx: Context) -> Verdict:
    rows = _lemma_a8_rows(ctx)
    st = status_from_rows(rows)
    errata = [Erratum("Proof of Lemma A.8, eq (58)", "Mehler kernel (57) = Σ_m He_m(x) He_m(y)",
                      "(57) = Σ_m ρ^m He_m(x) He_m(y)",
                      f"at three (x, y, ρ) the series with ρ^m matches (57) to {rows[2].observed:.1e}; the printed one is "
                      f"off by {rows[3].observed:.3g} after 60 terms and diverges; eq (60) then uses the ρ^m.", "typo")]
    return Verdict(f"{PAPER}:lemma-a8", st, "E He_n(X)He_k(Y) = ρ^n δ_nk exactly (sympy) and numerically up to degree 30"
                   if st == HOLDS else "Lemma A.8 fails", rows, errata)


def control_lemma_a8(ctx: Context) -> Verdict:
    rows = _lemma_a8_rows(ctx, kernel="printed")
    return _control("lemma-a8", rows, "Mehler's formula as printed in eq (58)")


register(Claim(
    PAPER, "lemma-a8", "Lemma A.8: Hermite polynomials of correlated Gaussians are orthogonal with weight ρ^n",
    "X, Y ~ N(0,1) with E XY = ρ: E He_n(X) He_k(Y) = ρ^n δ_nk (and Mehler's formula, eqs 57–58).",
    "|ρ| < 1 for the Mehler kernel",
    "Exact polynomial Gaussian moments in sympy (n, k ≤ 8), a 2-D Gauss–Hermite rule up to degree 30, and "
    "Mehler's kernel summed to 400 terms.",
    check_lemma_a8, control_lemma_a8, "Mehler's expansion as printed in eq (58), without ρ^m",
    uses=("theory.hermite_polynomial", "theory.hermite_values")))


# =============================================================================================
# Theorem A.2 (eq 22) — one mean-field layer contracts γ by β_σ
# =============================================================================================

def _theorem_a2_rows(ctx: Context, acts, beta_factor: float = 1.0, kinds=CORR_KINDS) -> list[Evidence]:
    rng = _rng(ctx, 71)
    trials = ctx.pick(60, 400, 2000)
    rows = []
    for nm in acts:
        dual = theory.numeric_dual(nm)
        beta = Q.beta(nm) * beta_factor
        worst, fails = math.inf, 0
        for t in range(trials):
            n = int(rng.integers(3, 9))
            G = random_correlation(rng, n, kinds[t % len(kinds)])
            if t % 7 == 0:  # adversarial: one pair almost parallel
                G = (1 - 1e-4) * np.ones((n, n)) + 1e-4 * np.eye(n) if n == 3 else G
            iu = np.triu_indices(n, 1)
            G1 = np.eye(n)
            G1[iu] = dual.normalised(G[iu])
            G1.T[iu] = G1[iu]
            g0, g1 = float(theory.gram_potential(G)), float(theory.gram_potential(G1))
            ratio = g1 * beta / g0 if g0 > 0 else 0.0
            # rounding: γ = m/(1 − m) has relative error ≈ ε/(1 − m), large when a pair is almost parallel
            m0 = float(np.max(np.abs(G[iu])))
            m1 = float(np.max(np.abs(G1[iu])))
            tol = 1e-12 + 50 * np.finfo(float).eps * (1 / (1 - m0) + 1 / (1 - m1)) + dual.error / (1 - m1)
            if ratio > 1 + tol:
                fails += 1
            worst = min(worst, 1 / ratio if ratio > 0 else math.inf)
        rows.append(Evidence(f"{nm}: γ(Φ(G)) ≤ γ(G)/β over random unit-diagonal G", theory=beta, observed=fails,
                             slack=worst, samples=trials, passed=fails == 0,
                             note="slack = min of γ(G)/(β γ(Φ(G))); Φ entrywise via σ̄/σ̄(1); tolerance "
                                  "1e-12 + 50ε(1/(1−m₀) + 1/(1−m₁)) for the rounding of γ near parallel pairs"))
    return rows


def check_theorem_a2(ctx: Context) -> Verdict:
    acts = ctx.pick(["relu", "tanh", "sin", "step"], ["relu", "tanh", "sigmoid", "sin", "exp", "step", "gelu", "selu",
                                                      "he2", TIGHT_ACTIVATION],
                    [n for n in theory.registered_names() if n not in ("he0", "linear", "swish")] + [TIGHT_ACTIVATION])
    rows = _theorem_a2_rows(ctx, acts) + beta_rows(acts)
    # the entrywise map is eq (10) itself: Monte Carlo of E φ(σ(h)) φ(σ(h))ᵀ, h ~ N(0, G)
    rng = _rng(ctx, 72)
    samples = ctx.pick(100_000, 1_000_000, 4_000_000)
    zmax = 0.0
    for nm in acts[:3]:
        G = random_correlation(rng, 5, "wishart")
        est, se, N = Q.memo(("meanfield_map_mc", nm, G.tobytes(), samples, ctx.seed + 5),
                            lambda: numerics.meanfield_map_mc(nm, G, samples, seed=ctx.seed + 5))
        pred = np.array(Q.dual_normalised(nm, G))
        np.fill_diagonal(pred, 1.0)
        iu = np.triu_indices(5, 1)
        z = np.abs(est[iu] - pred[iu]) / se[iu]
        zmax = max(zmax, float(np.max(z)))
    rows.append(Evidence(f"eq (10) by Monte Carlo vs the entrywise dual map ({', '.join(acts[:3])}; n = 5)",
                         theory=0.0, observed=zmax, samples=samples, confidence=0.999, passed=zmax < 4.5,
                         note="max |z| over 10 entries × 3 activations; 4.5 ≈ two-sided 0.999 with Bonferroni over 30"))
    st = status_from_rows(rows)
    return Verdict(f"{PAPER}:theorem-a2", st, "one mean-field layer contracts γ by at least β_σ on every trial"
                   if st == HOLDS else "Theorem A.2 fails", rows)


def control_theorem_a2(ctx: Context) -> Verdict:
    rows = _theorem_a2_rows(ctx, [TIGHT_ACTIVATION], beta_factor=1.01, kinds=("near-degenerate", "equicorrelated"))
    return _control("theorem-a2", rows, "β raised by 1% for He_1 + He_2")


register(Claim(
    PAPER, "theorem-a2", "Theorem A.2: one mean-field layer contracts the potential γ by β_σ",
    "For PSD G with unit diagonal: γ(E_{h~N(0,G)}[φ(σ(h))φ(σ(h))ᵀ]) ≤ γ(G)/β_σ (eq 22).",
    "G PSD with G_ii = 1",
    "Random and adversarial correlation matrices (n ≤ 8) through the entrywise dual map for many activations; "
    "the entrywise map itself checked against Monte Carlo of eq (10).",
    check_theorem_a2, control_theorem_a2, "β_σ raised by 1% for σ = He_1 + He_2, on near-degenerate inputs",
    depends_on=('beta', 'dual'),
    uses=("theory.numeric_dual", "theory.gram_potential", "numerics.meanfield_map_mc")))


# =============================================================================================
# Corollary A.3 (eq 23) — γ(G_*^ℓ) ≤ γ(G_*^0) β_σ^{−ℓ}
# =============================================================================================

def _mf_inputs(n: int, rng) -> dict[str, np.ndarray]:
    return {"equicorrelated ρ₀ = 0.5": numerics.equicorrelated_gram(n, 0.5),
            "equicorrelated ρ₀ = 0.99": numerics.equicorrelated_gram(n, 0.99),
            "near-degenerate": random_correlation(rng, n, "near-degenerate"),
            "wishart": random_correlation(rng, n, "wishart")}


def _corollary_a3_rows(ctx: Context, acts, rate_fn, depth: int) -> list[Evidence]:
    rng = _rng(ctx, 81)
    rows = []
    for nm in acts:
        log_rate = rate_fn(nm)
        fails, worst = 0, math.inf
        for label, G0 in _mf_inputs(10, rng).items():
            tr = _mf_trajectory(nm, G0, depth)
            g = np.abs(tr.offdiag).max(axis=1)
            with np.errstate(divide="ignore"):
                log_gamma = np.log(g) - np.log1p(-g)
            log_bound = log_gamma[0] - np.arange(depth + 1) * log_rate
            margin = (log_bound - log_gamma)[1:]  # ℓ ≥ 1 (at ℓ = 0 both sides coincide)
            if np.any(margin < -1e-9):
                fails += 1
            worst = min(worst, float(np.min(margin[np.isfinite(margin)])))
        rows.append(Evidence(f"{nm}: log γ(G^ℓ) ≤ log γ(G^0) − ℓ·{log_rate:.5g}, ℓ ≤ {depth}, 4 inputs (n = 10)",
                             theory=log_rate, observed=fails, slack=math.exp(worst) if worst < 700 else math.inf,
                             samples=4, passed=fails == 0, note="slack = min over layers and inputs of bound/γ"))
    return rows


def check_corollary_a3(ctx: Context) -> Verdict:
    acts = ctx.pick(["relu", "tanh", "sigmoid"], ["relu", "tanh", "sigmoid", "sin", "exp", "step", "gelu", "selu",
                                                   "elu", "softplus", "silu", "he2"],
                    [n for n in theory.registered_names() if n not in ("he0", "linear", "swish", "identity", "he1")])
    depth = ctx.pick(100, 400, 1000)
    rows = _corollary_a3_rows(ctx, acts, lambda nm: math.log(Q.beta(nm)), depth) + beta_rows(acts)
    st = status_from_rows(rows)
    return Verdict(f"{PAPER}:corollary-a3", st, f"γ decays at least as fast as β_σ^(−ℓ) in mean field, ℓ ≤ {depth}"
                   if st == HOLDS else "Corollary A.3 fails in mean field", rows)


def control_corollary_a3(ctx: Context) -> Verdict:
    def too_fast(nm):  # 5% faster than the true asymptotic contraction (2 − β)^ℓ of small correlations
        return math.log(1.05 / (2 - Q.beta(nm)))
    rows = _corollary_a3_rows(ctx, ["relu", "tanh"], too_fast, ctx.pick(300, 400, 1000))
    return _control("corollary-a3", rows, "rate 1.05/(2 − β_σ) instead of β_σ")


register(Claim(
    PAPER, "corollary-a3", "Corollary A.3: the potential γ decays geometrically at rate β_σ in mean field",
    "γ(G_*^ℓ) ≤ γ(G_*^0) β_σ^{−ℓ} (eq 23).",
    "mean-field Gram dynamics with layer normalisation; G_*^0 non-degenerate",
    "Mean-field trajectories (eq 10, entrywise dual map) from equicorrelated, near-degenerate and Wishart inputs, "
    "checked at every layer in log space.",
    check_corollary_a3, control_corollary_a3,
    "the rate replaced by 1.05/(2 − β_σ): 5% faster than the true asymptotic contraction (2 − β_σ) of small correlations",
    depends_on=('beta',),
    uses=("numerics.layernorm_meanfield_trajectory", "theory.isometry_strength")))


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
                tr = _mf_trajectory(nm, G0, depth)
                gaps = theory.isometry_gap(tr.grams())
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
                             theory=log_rate, observed=fails, slack=math.exp(min(worst, 700)), samples=total,
                             passed=fails == 0, note="slack = min over layers and inputs of bound/gap (n = 10 and 100)"))
    return rows


def _threshold_evidence(nm: str, n: int, rho0: float, depth: int) -> tuple[Evidence, dict]:
    """Where eq (12)'s proof starts to apply, against the printed ℓ ≳ β⁻¹(−n log 𝓘(G0) + log 4n)."""
    G0 = numerics.equicorrelated_gram(n, rho0)
    beta = Q.beta(nm)
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
    ev = Evidence(f"{nm}, n = {n}, ρ₀ = {rho0}: depth threshold of Theorem 4", theory=corrected, numeric=printed,
                  observed=proof_layer, passed=None,
                  note=f"printed β⁻¹(…) = {printed:.1f} layers, where the bound still equals {bound_at_printed:.3g} "
                       f"(vacuous: the gap is at most {float(theory.isometry_gap(G0)):.3g}); (log β)⁻¹(…) = {corrected:.1f}; "
                       f"mean field first meets the proof's condition γ < 1/(2n−2) at layer {proof_layer}")
    return ev, info


H_NONLINEAR = HypothesisCheck("σ nonlinear", "σ is not affine, so β_σ > 1 (an affine σ has β_σ = 1 and no decay)")
H_INPUT = HypothesisCheck("G_*^0 non-degenerate", "the input Gram matrix is non-degenerate (no duplicated sample)")


#: e-folds of the bound β_σ^{−ℓ} before the fitted window (ℓ = 100) for the window to count as asymptotic
ASYMPTOTIC_EFOLDS = 5.0


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
                               [Evidence("isometry of the input Gram", observed=float(theory.isometry(G0)), passed=None)])
    # each activation is judged on its own: an affine one is outside the hypotheses, the others still decide
    affine = [nm for nm in requested if theory.activation(nm).is_affine]
    acts = [nm for nm in requested if nm not in affine]
    if not acts:
        raise HypothesisNotMet(H_NONLINEAR.name, f"{', '.join(affine)}: affine, β_σ = 1 and eq (12) predicts no decay "
                               "(Theorem 4 needs a nonlinear σ)")
    depth = ctx.pick(150, 600, 2000)
    rows = _theorem4_meanfield_rows(ctx, acts, lambda nm: math.log(Q.beta(nm)), depth) + beta_rows(acts[:3])
    # asymptotic rate: the gap decays like (2 − β)^{2ℓ}, at least as fast as the bound's β^{−ℓ}
    for nm in acts[:3]:
        tr = _mf_trajectory(nm, numerics.equicorrelated_gram(10, 0.5), 200)
        gaps = theory.isometry_gap(tr.grams(range(100, 201, 10)))
        ok = np.all(gaps > 0) and np.all(np.isfinite(gaps))
        if ok:
            rate, ci = fit_log_rate(np.arange(100, 201, 10), gaps)
            beta = Q.beta(nm)
            # eq (12) bounds the gap, not its local decay rate: only in the asymptotic regime (linearisation at G = I)
            # must the rate reach log β_σ. The window ℓ = 100..200 is asymptotic when the bound has fallen by e^5
            # before it, 100·log β_σ ≥ 5 (decided from β_σ, before looking at the trajectory); else informational
            asymptotic = 100 * math.log(beta) >= ASYMPTOTIC_EFOLDS
            rows.append(Evidence(f"{nm}: fitted asymptotic decay rate of the mean-field gap (ℓ = 100..200)",
                                 theory=-2 * math.log(2 - beta), numeric=math.log(beta), observed=rate, ci=ci,
                                 confidence=CONF, passed=(ci[1] >= math.log(beta)) if asymptotic else None,
                                 note="theory = −2 log(2 − β_σ) (linearisation at G = I); numeric = log β_σ, the bound's rate"
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
    return Verdict(f"{PAPER}:theorem4", st,
                   (f"eq (12) holds at every layer in mean field ({len(acts)} activations, depth {depth}) and at finite "
                    "width, where it is loose by many orders of magnitude; the depth condition is misprinted"
                    if st == HOLDS else "eq (12) is violated") + outside, rows, errata,
                   artefacts={"thresholds": thresholds})


def control_theorem4(ctx: Context) -> Verdict:
    def too_fast(nm):  # 3·log(1/(2−β)): above β and 1.5× the true asymptotic decay of the gap
        return 3 * math.log(1 / (2 - Q.beta(nm)))
    rows = _theorem4_meanfield_rows(ctx, ["relu", "tanh"], too_fast, ctx.pick(400, 600, 2000))
    return _control("theorem4", rows, "eq (12) with log β_σ replaced by 3 log(1/(2 − β_σ)) (a rate above β_σ)")



# ---------------------------------------------------------------------------------------------
# β_σ as a claim consumes it, against two other routes (deterministic: any relative error above ~1e-6 turns them)
# ---------------------------------------------------------------------------------------------

BETA_RTOL = 1e-6


def _contraction_intercept(nm: str, depth: int = 3000):
    """2 − β_σ measured from the mean-field map itself: small correlations contract by σ̄(ρ)/(σ̄(1)ρ) → c_1²/Var σ per
    layer; the per-layer ratio regressed on ρ (quadratic) over the layers with 1e-250 < ρ < 0.05 has that intercept."""
    tr = _mf_trajectory(nm, numerics.equicorrelated_gram(2, 0.5), depth)
    r = np.abs(tr.offdiag[:, 0])
    keep = (r[:-1] > 1e-250) & (r[:-1] < 0.05) & (r[1:] > 0)
    if keep.sum() < 6:
        return None, int(keep.sum())
    x, y = r[:-1][keep], r[1:][keep] / r[:-1][keep]
    coef = np.polynomial.polynomial.polyfit(x / x.max(), y, 2)  # scaled abscissa: well conditioned, same intercept
    return float(coef[0]), int(keep.sum())


def beta_rows(acts) -> list[Evidence]:
    """For each activation: β_σ as consumed (verify.quantities) vs (i) 40-digit mpmath quadrature of Definition 3,
    (ii) the contraction factor 2 − β_σ of small correlations under the mean-field map (eq 10)."""
    rows = []
    for nm in acts:
        b = Q.beta(nm)
        mp = float(Q.memo(("beta-mp", nm), lambda: isometry_strength_mp(nm, 40)))
        err = abs(b - mp) / abs(mp)
        rows.append(Evidence(f"{nm}: β_σ used here vs 40-digit mpmath quadrature of 2 − c_1²/Var σ", theory=mp,
                             numeric=b, observed=err, bound=BETA_RTOL, passed=err <= BETA_RTOL))
        icpt, npts = _contraction_intercept(nm)
        if icpt is None:
            rows.append(Evidence(f"{nm}: contraction of small correlations under the mean-field map vs 2 − β_σ",
                                 theory=2 - b, passed=None, note=f"only {npts} layers in the linear regime (c_1 ≈ 0)"))
            continue
        dev = abs(icpt - (2 - b))
        rows.append(Evidence(f"{nm}: contraction factor of small correlations under the mean-field map (eq 10) vs 2 − β_σ",
                             theory=2 - b, numeric=icpt, observed=dev, bound=BETA_RTOL * max(1.0, abs(2 - b)),
                             samples=npts, passed=dev <= BETA_RTOL * max(1.0, abs(2 - b)),
                             note=f"intercept of ρ_(ℓ+1)/ρ_ℓ regressed on ρ_ℓ over {npts} layers (σ̄(ρ)/σ̄(1) = "
                                  "Σ c_k² ρ^k / Var σ): the linearisation that makes β_σ the rate of Theorem 4"))
    return rows

# ---------------------------------------------------------------------------------------------
# Fig 3 — finite width vs the Theorem 4 bound (n = 100, d = 5000, relu/tanh/sigmoid, 10 seeds)
# ---------------------------------------------------------------------------------------------

_FIG3_CACHE: dict = {}


def _figure3_runs(ctx: Context) -> dict:
    key = (ctx.budget, ctx.seed, ctx.device, ctx.dtype)
    if key in _FIG3_CACHE:
        return _figure3_with_bound(_FIG3_CACHE[key])
    n, d, depth, seeds = ctx.pick((30, 1000, 12, 4), (100, 5000, 30, 10), (100, 5000, 30, 10))
    rho0 = 0.5
    G0 = numerics.equicorrelated_gram(n, rho0)
    log_iso0 = float(theory.log_isometry(G0))
    runs = {}
    acts = ["relu", "tanh", "sigmoid"]
    for i, nm in enumerate(acts):
        ctx.progress(f"Fig 3 network {nm} (n={n}, d={d}, depth {depth}, {seeds} seeds)", i / len(acts))
        G = numerics.simulate_isometry_mlp(nm, d, G0, depth, seeds, seed=ctx.seed + i, device=ctx.device,
                                           dtype=ctx.torch_dtype).cpu().numpy()
        gaps = theory.isometry_gap(G)  # [seeds, layers]
        mean = gaps.mean(0)
        ci = [mean_ci(gaps[:, l], CONF)[1] for l in range(depth + 1)]
        mf = theory.isometry_gap(_mf_trajectory(nm, G0, depth).grams())
        runs[nm] = {"mean": mean, "ci": ci, "meanfield": mf}
    out = {"n": n, "d": d, "depth": depth, "seeds": seeds, "rho0": rho0, "runs": runs, "log_iso0": log_iso0}
    _FIG3_CACHE[key] = out
    return _figure3_with_bound(out)


def _figure3_with_bound(out: dict) -> dict:
    """The β_σ-dependent parts, recomputed on every call (β is a perturbable quantity; the cache holds simulations)."""
    n, d, depth = out["n"], out["d"], out["depth"]
    runs = {}
    for nm, r in out["runs"].items():
        beta = Q.beta(nm)
        bound = np.exp(_log_bound_theorem4(np.arange(depth + 1), math.log(beta), n, out["log_iso0"]))
        runs[nm] = {**r, "beta": beta, "bound": bound, "max_ratio": float(np.max(r["mean"] / bound)),
                    "noise_floor_prediction": n / (2 * d * (1 - (2 - beta) ** 2))}
    return {**out, "runs": runs}


def check_figure3(ctx: Context) -> Verdict:
    fw = _figure3_runs(ctx)
    rows, data, series = beta_rows(list(fw["runs"])), {}, []
    rates = {}
    k = min(8, fw["depth"])
    for nm, r in fw["runs"].items():
        rate, ci = fit_log_rate(np.arange(1, k + 1), r["mean"][1:k + 1])
        rates[nm] = (rate, ci, r["beta"])
        rows.append(Evidence(f"{nm}: finite-width gap ≤ Theorem 4 bound at every layer", bound=float(r["bound"][-1]),
                             observed=float(r["mean"][-1]), ci=tuple(r["ci"][-1]), confidence=CONF,
                             slack=1 / r["max_ratio"], samples=fw["seeds"], passed=r["max_ratio"] <= 1))
        rows.append(Evidence(f"{nm}: gap at depth {fw['depth']}, finite width vs mean field", theory=float(r["meanfield"][-1]),
                             observed=float(r["mean"][-1]), ci=tuple(r["ci"][-1]), confidence=CONF, samples=fw["seeds"],
                             passed=None,
                             note=f"finite-width noise accumulates: linearised prediction of the stationary gap "
                                  f"n/(2d(1 − (2−β)²)) = {r['noise_floor_prediction']:.3g}"))
        data[nm] = {"layer": list(range(fw["depth"] + 1)), "finite_width_mean": r["mean"], "finite_width_ci95": r["ci"],
                    "mean_field": r["meanfield"], "theorem4_bound": r["bound"], "beta": r["beta"]}
        ell = np.arange(fw["depth"] + 1)
        ci = np.asarray(r["ci"], dtype=float)
        series += [Series(f"{nm}: $d = {fw['d']}$ (95% CI)", ell, r["mean"], "simulation", nm, ci[:, 0], ci[:, 1]),
                   Series(f"{nm}: mean field", ell, np.maximum(r["meanfield"], 1e-300), "theory", nm),
                   Series(f"{nm}: Theorem 4 bound", ell, r["bound"], "bound", nm)]
    order_beta = sorted(rates, key=lambda a: -rates[a][2])
    order_rate = sorted(rates, key=lambda a: -rates[a][0])
    rows.append(Evidence("β_σ orders the early decay rates (layers 1..8, fitted)", theory=", ".join(order_beta),
                         observed=", ".join(order_rate), passed=order_beta == order_rate,
                         note="; ".join(f"{a}: rate {v[0]:.3f} [{v[1][0]:.3f}, {v[1][1]:.3f}], log β = {math.log(v[2]):.3f}"
                                        for a, v in rates.items())))
    st = status_from_rows(rows)
    arte = {"figure3_data": data}
    if ctx.artefact_dir:
        files = write_figure(ctx.artefact_dir, "isometry_figure3",
                             [Panel("isometry gap vs depth (Fig 3)", r"layer $\ell$",
                                    r"isometry gap $-\log\,\mathcal{I}(G^{\ell})$", series, logy=True)],
                             f"n = {fw['n']}, d = {fw['d']}, {fw['seeds']} seeds, input correlation {fw['rho0']}, "
                             f"budget {ctx.budget}; dashed: the Theorem 4 bound; band: 95% t-interval over seeds")
        arte.update({f"figure3_{k}": v for k, v in files.items()})
    return Verdict(f"{PAPER}:figure3", st,
                   f"Fig 3 reproduced (n = {fw['n']}, d = {fw['d']}, {fw['seeds']} seeds): the bound holds and is "
                   "astronomically loose at these depths; β_σ orders the observed decay" if st == HOLDS
                   else "Fig 3 not reproduced", rows, artefacts=arte)


def control_figure3(ctx: Context) -> Verdict:
    fw = _figure3_runs(ctx)
    rows = []
    for nm, r in fw["runs"].items():  # the dashed curve with its constant 4n/det(G0) dropped and rate squared
        ell = np.arange(fw["depth"] + 1)
        wrong = float(r["mean"][0]) * r["beta"] ** (-2.0 * ell)
        ratio = float(np.max(r["mean"] / wrong))
        rows.append(Evidence(f"{nm}: gap ≤ gap(0)·β^(−2ℓ)", bound=1.0, observed=ratio, passed=ratio <= 1))
    return _control("figure3", rows, "bound gap(0)·β_σ^(−2ℓ) without the 4n/det G0 constant")


register(Claim(
    PAPER, "theorem4", "Theorem 4: the isometry gap decays exponentially with rate β_σ (in mean field)",
    "For non-degenerate G_*^0 and ℓ ≳ β_σ⁻¹(−n log 𝓘(G_*^0) + log 4n): −log 𝓘(G_*^ℓ) ≤ exp(−ℓ log β_σ − n log 𝓘(G_*^0) + log 4n) (eq 12).",
    "σ non-linear (β_σ > 1); G_*^0 non-degenerate",
    "Mean-field trajectories for many activations and inputs (n = 10, 100) checked at every layer in log space "
    "(accurate gaps down to 1e-300); fitted asymptotic decay rate with a 95% CI; the Fig 3 finite-width networks "
    "(n = 100, d = 5000, 10 seeds) against the bound; the depth threshold compared with the proof.",
    check_theorem4, control_theorem4, "log β_σ replaced by 3 log(1/(2 − β_σ)), a rate above β_σ and the true decay",
    hypothesis_checks=(H_NONLINEAR, H_INPUT),
    depends_on=('beta',),
    uses=("numerics.layernorm_meanfield_trajectory", "numerics.simulate_isometry_mlp", "theory.isometry_gap"),
    parameters=(_acts_param("relu,tanh,sigmoid,…"),
                Parameter("input", P.choice("equicorrelated", "duplicated"), "equicorrelated",
                          "input batch: equicorrelated or duplicated")),
    aliases=("theorem-a5",)))

register(Claim(
    PAPER, "figure3", "Fig 3: finite-width isometry gap vs the Theorem 4 bound (n = 100, d = 5000)",
    "Finite-width MLPs (eq 1) with relu, tanh, sigmoid: the gap stays under the dashed Theorem 4 bound and β_σ "
    "predicts its decay.",
    "inputs: equicorrelated batch, ρ₀ = 0.5 (the paper's inputs are unspecified)",
    "Exact-in-distribution simulator, 10 seeds, mean ± 95% t-interval per layer; mean-field curve alongside; "
    "fitted early decay rates. Data (and a PNG with --artefacts) are written as artefacts.",
    check_figure3, control_figure3, "the bound gap(0)·β_σ^(−2ℓ), dropping the 4n/det G0 constant",
    depends_on=('beta',),
    uses=("numerics.simulate_isometry_mlp", "numerics.layernorm_meanfield_trajectory")))


# =============================================================================================
# Fig A.1 — γ(G^ℓ) at finite width (n = 10, d = 10000) against Corollary A.3
# =============================================================================================

def _figure_a1_run(ctx: Context, nm: str, d: int, depth: int, seeds: int, salt: int):
    n = 10
    G0 = numerics.equicorrelated_gram(n, 0.5)
    G = numerics.simulate_isometry_mlp(nm, d, G0, depth, seeds, seed=ctx.seed + salt, device=ctx.device,
                                       dtype=ctx.torch_dtype).cpu().numpy()
    gam = theory.gram_potential(G)
    beta = Q.beta(nm)
    bound = float(gam[0, 0]) * beta ** (-np.arange(depth + 1.0))
    return gam.mean(0), bound


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
                             theory=0.5, observed=excess / excess4 if excess4 > 0 else 0.0, samples=seeds,
                             passed=ok,
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
    return Verdict(f"{PAPER}:figure-a1", st,
                   f"finite-width γ (n = {n}, d = {d}, {seeds} seeds) follows the Corollary A.3 bound up to a "
                   "deviation that shrinks like d^(−1/2)" if st == HOLDS else
                   "finite-width γ exceeds the bound by more than a d^(−1/2) effect", rows, artefacts=arte)


register(Claim(
    PAPER, "figure-a1", "Fig A.1: γ(G^ℓ) of finite-width MLPs follows Corollary A.3 (n = 10, d = 10000)",
    "γ(G^ℓ) of MLPs with relu, tanh, sigmoid decays as predicted by γ(G^0)β_σ^(−ℓ).",
    "finite width: the prediction is meaningful above the O(d^(−1/2)) floor of γ",
    "Exact simulator at widths d and d/4; where the bound exceeds 3× the floor sqrt(2 log n²/d), the excess of the "
    "mean γ over the bound must shrink like d^(−1/2) (ratio ≤ 0.75 for a 4× width increase) or vanish.",
    check_figure_a1, None, "",
    depends_on=('beta',),
    uses=("numerics.simulate_isometry_mlp", "theory.gram_potential")))


# =============================================================================================
# Section 6 and Section 7 observations (Figs 4, 5, 6, 8, 9)
# =============================================================================================

_S6_ACTS = ("relu", "tanh", "sigmoid", "exp", "selu", "gelu", "sin")
_S6_CACHE: dict = {}


def _section6_runs(ctx: Context) -> dict:
    key = (ctx.budget, ctx.seed, ctx.device, ctx.dtype)
    if key in _S6_CACHE:
        return _S6_CACHE[key]
    n, d, depth, seeds = ctx.pick((10, 1000, 30, 4), (10, 1000, 30, 10), (10, 1000, 60, 20))
    G0 = numerics.equicorrelated_gram(n, 0.5)
    res = {}
    total = len(_S6_ACTS) * len(numerics.VARIANTS)
    for i, nm in enumerate(_S6_ACTS):
        for j, var in enumerate(numerics.VARIANTS):
            ctx.progress(f"Section 6: {nm} / {var}", (i * len(numerics.VARIANTS) + j) / total)
            try:
                G = numerics.simulate_isometry_mlp(nm, d, G0, depth, seeds, variant=var, seed=ctx.seed + 7 * i + j,
                                                   device=ctx.device, dtype=ctx.torch_dtype).cpu().numpy()
                gaps = theory.isometry_gap(G)
                res[(nm, var)] = {"gap": gaps.mean(0), "diverged": None, "grams": G}
            except numerics.SimulationDiverged as exc:
                res[(nm, var)] = {"gap": None, "diverged": exc.layer, "grams": None}
    mf = {nm: _mf_trajectory(nm, G0, depth).grams() for nm in ("relu",)}
    out = {"n": n, "d": d, "depth": depth, "seeds": seeds, "runs": res, "meanfield": mf}
    _S6_CACHE[key] = out
    return out


def _final(r) -> float:
    if r["diverged"] is not None:
        return math.inf
    return float(r["gap"][-1])


def _first(r) -> float:
    return float(r["gap"][1]) if r["gap"] is not None else math.nan


def _grows(r) -> bool:
    """Does the gap grow from layer 1 to the last layer (divergence counts as growth)?"""
    return r["diverged"] is not None or _final(r) > _first(r)


def _s6_header(S) -> str:
    return f"n = {S['n']}, d = {S['d']}, depth {S['depth']}, {S['seeds']} seeds"


_VARIANT_LABEL = {"layernorm": "LN (eq 1)", "meanfield-centering": r"centering by $c_0$",
                  "no-normalisation": "no normalisation", "meanfield-normalisation": r"$(a - c_0)/\sqrt{\bar\sigma(1)}$",
                  "norm-then-activation": "normalise, then activate"}
_GAP_LABEL = r"isometry gap $-\log\,\mathcal{I}(G^{\ell})$"


def _s6_series(S, nm: str, var: str, kind: str = "simulation", label: str | None = None) -> list:
    """The isometry gap of one Section 6 run per layer with its 95% band over seeds (nothing if it diverged)."""
    r = S["runs"][(nm, var)]
    if r["grams"] is None:
        return []
    mean, lo, hi = mean_band(theory.isometry_gap(r["grams"]), CONF)
    ell = np.arange(mean.size)
    return [Series(label or f"{nm}: {_VARIANT_LABEL[var]}", ell, mean, kind, nm, lo if kind == "simulation" else None,
                   hi if kind == "simulation" else None)]


def _s6_plot(ctx: Context, name: str, panels: list, what: str) -> dict:
    S = _section6_runs(ctx)
    diverged = [f"{nm}/{var} at layer {r['diverged']}" for (nm, var), r in S["runs"].items() if r["diverged"] is not None]
    files = write_figure(ctx.artefact_dir, name, panels,
                         f"{_s6_header(S)}, input correlation 0.5, budget {ctx.budget}; {what}; bands: 95% t-intervals"
                         + (f"; diverged (not drawn): {', '.join(diverged)}" if diverged else ""))
    return {f"{name.split('_', 1)[1]}_{k}": v for k, v in files.items()}


# -- Section 6.1–6.2 (Figs 4, 5): centering is what matters; without normalisation the gap can grow --

def _section6_rows(ctx: Context, grows_for_all: bool = False) -> list[Evidence]:
    R = _section6_runs(ctx)["runs"]
    ratios = {nm: _final(R[(nm, "meanfield-centering")]) / _final(R[(nm, "layernorm")])
              for nm in ("relu", "tanh", "sigmoid", "exp")}
    grows = {nm: _grows(R[(nm, "no-normalisation")]) for nm in _S6_ACTS}
    decays_ln = {nm: _final(R[(nm, "layernorm")]) < _first(R[(nm, "layernorm")]) for nm in _S6_ACTS}
    diverged = [nm for nm in _S6_ACTS if R[(nm, "no-normalisation")]["diverged"] is not None]
    return [
        Evidence("Fig 4: final gap, mean-field centering / layer centering (relu, tanh, sigmoid, exp)",
                 theory=1.0, observed=max(ratios.values(), key=lambda v: abs(math.log(v))),
                 passed=all(1 / 1.5 <= v <= 1.5 for v in ratios.values()),
                 note=", ".join(f"{k}: {v:.3f}" for k, v in ratios.items()) + " (criterion: within [2/3, 3/2])"),
        Evidence("Fig 5: activations whose gap grows without normalisation (x = (a − c_0)/√d)",
                 observed=sum(grows.values()), samples=len(grows),
                 passed=(all(grows.values()) if grows_for_all else any(grows.values())) and all(decays_ln.values()),
                 note="grows: " + ", ".join(k for k, v in grows.items() if v)
                      + (f" (diverged: {', '.join(diverged)})" if diverged else "")
                      + "; does not grow: " + (", ".join(k for k, v in grows.items() if not v) or "none")
                      + f"; with LN the gap decays for all: {all(decays_ln.values())}; the printed statement is "
                        "existential (“the isometry gap may increase without normalization”, Section 6.2), hence "
                        "'some activation grows'"),
    ]


def _final_gap_table(S) -> list:
    table = []
    for nm in _S6_ACTS:
        row = [nm]
        for var in numerics.VARIANTS:
            r = S["runs"][(nm, var)]
            row.append("diverged@" + str(r["diverged"]) if r["diverged"] is not None else f"{_final(r):.3g}")
        table.append(row)
    return table


def check_section6(ctx: Context) -> Verdict:
    rows = _section6_rows(ctx)
    S = _section6_runs(ctx)
    st = status_from_rows(rows)
    arte = {}
    if ctx.artefact_dir:
        fig4 = Panel("Fig 4: centering by $c_0$ vs layer centering", r"layer $\ell$", _GAP_LABEL,
                     [x for nm in ("relu", "tanh", "sigmoid", "exp") for var in ("meanfield-centering", "layernorm")
                      for x in _s6_series(S, nm, var, "simulation" if var == "meanfield-centering" else "theory")],
                     logy=True)
        fig5 = Panel("Fig 5: without normalisation", r"layer $\ell$", _GAP_LABEL,
                     [x for nm in _S6_ACTS for x in _s6_series(S, nm, "no-normalisation")], logy=True)
        arte = _s6_plot(ctx, "isometry_section6", [fig4, fig5], "solid lines in Fig 4: LN")
    return Verdict(f"{PAPER}:section6", st,
                   f"centering by c_0 matches layer centering, and without normalisation the gap grows for some "
                   f"activations ({_s6_header(S)})" if st == HOLDS else "a Section 6 observation is not reproduced", rows,
                   tables=[(f"Final isometry gap at depth {S['depth']} (n = {S['n']}, d = {S['d']})",
                            ["σ", *numerics.VARIANTS], _final_gap_table(S))], artefacts=arte)


def control_section6(ctx: Context) -> Verdict:
    rows = _section6_rows(ctx, grows_for_all=True)[1:2]
    return _control("section6", rows, "'the gap grows without normalisation for every activation'")


register(Claim(
    PAPER, "section6", "Section 6 (Figs 4, 5): centering is what matters; without normalisation the gap can grow",
    "Replacing layer centering by σ − c_0 still yields isometry (Fig 4); without normalisation the isometry gap may "
    "increase for some activations (Fig 5).",
    "observations at initialisation (the paper's training curves are not reproduced)",
    "Exact-in-distribution networks for seven activations and all variants; each observation is a stated numerical "
    "criterion (see the evidence rows).",
    check_section6, control_section6, "the over-reading 'without normalisation the gap grows for every activation'",
    uses=("numerics.simulate_isometry_mlp",), aliases=("figure4", "figure5")))


# -- Fig 6: mean-field normalisation (a − c_0)/sqrt(σ̄(1)) vs layer normalisation --

def _figure6_rows(ctx: Context, exp_effective: bool = False, acts=("tanh", "sigmoid", "relu")) -> list[Evidence]:
    R = _section6_runs(ctx)["runs"]
    rows = []
    for nm in acts:
        r = R[(nm, "meanfield-normalisation")]
        ratio = _final(r) / _final(R[(nm, "layernorm")])
        rows.append(Evidence(f"Fig 6, {nm}: final gap with mean-field normalisation / with LN", theory=1.0,
                             observed=ratio, passed=ratio <= 1.5,
                             note=f"gap at layer 1 → last: {_first(r):.3g} → {_final(r):.3g} (LN: "
                                  f"{_final(R[(nm, 'layernorm')]):.3g}); criterion 'comparable': ratio ≤ 1.5"))
    e = R[("exp", "meanfield-normalisation")]
    ineffective = e["diverged"] is not None or _final(e) >= 0.5 * _first(e)
    rows.append(Evidence("Fig 6, exp: mean-field normalisation is not effective", passed=ineffective != exp_effective,
                         observed=e["diverged"] if e["diverged"] is not None else _final(e),
                         note=("diverged at layer " + str(e["diverged"])) if e["diverged"] is not None
                              else f"final gap {_final(e):.3g}"))
    return rows


def check_figure6(ctx: Context) -> Verdict:
    rows = _figure6_rows(ctx)
    st = status_from_rows(rows)
    bad = [r.name.split(",")[1].split(":")[0].strip() for r in rows if r.passed is False]
    S = _section6_runs(ctx)
    errata = []
    if bad:
        relu = rows[2]
        errata.append(Erratum("Section 6.2 / Fig 6", "(a − c_0)/sqrt(σ̄(1)) achieves comparable isometry to layer "
                              "normalisation for hyperbolic tangent and sigmoid and ReLU",
                              f"not for ReLU at the paper's setting: final gap {relu.observed:.3g}× that of LN",
                              f"{_s6_header(S)}; {relu.note}. Both variants share one mean-field limit; the gap comes "
                              "from the finite-width random walk of the norms. Section 7 (Fig 8a) states the opposite "
                              "for ReLU.", "error"))
    return Verdict(f"{PAPER}:figure6", st,
                   "mean-field normalisation matches LN for tanh, sigmoid, relu and fails for exp" if st == HOLDS else
                   f"not reproduced for {', '.join(bad)} ({_s6_header(S)}): at finite width the norms of a "
                   "positively homogeneous activation drift like a multiplicative random walk, which LN removes and "
                   "(a − c_0)/sqrt(σ̄(1)) does not; Section 7 of the paper itself says ReLU requires layer normalisation",
                   rows, errata, artefacts=_s6_plot(ctx, "isometry_figure6", [
                       Panel(f"Fig 6: {nm}", r"layer $\ell$", _GAP_LABEL,
                             _s6_series(S, nm, "meanfield-normalisation") + _s6_series(S, nm, "layernorm", "theory"),
                             logy=True) for nm in ("tanh", "sigmoid", "relu", "exp")],
                       "points: mean-field normalisation; lines: LN") if ctx.artefact_dir else {})


def positive_figure6(ctx: Context) -> Verdict:
    return _control("figure6", _figure6_rows(ctx, acts=("tanh", "sigmoid")),
                    "the same criteria for tanh and sigmoid, where mean-field normalisation is comparable to LN")


def control_figure6(ctx: Context) -> Verdict:
    rows = _figure6_rows(ctx, exp_effective=True)[-1:]
    return _control("figure6", rows, "'mean-field normalisation also works for exp'")


register(Claim(
    PAPER, "figure6", "Fig 6: mean-field normalisation matches layer normalisation for tanh, sigmoid, ReLU, not exp",
    "x^{ℓ+1} = (a^ℓ − c_0)/sqrt(σ̄(1)) achieves isometry comparable to LN(a^ℓ − c_0) for tanh, sigmoid and ReLU, "
    "but not for exp.",
    "n = 10, d = 1000 (the Section 6 setting)",
    "Exact-in-distribution networks, final gap ratio to LN with the stated criterion ≤ 1.5.",
    check_figure6, control_figure6, "'mean-field normalisation also works for exp'",
    positive_control=positive_figure6,
    positive_control_description="the same ratio criterion (≤ 1.5) for tanh and sigmoid and the exp row, which hold",
    uses=("numerics.simulate_isometry_mlp",)))


# -- Fig 8: self-normalising activations (8a) and the order of activation and normalisation (8b) --

def _figure8_rows(ctx: Context, wrong: bool = False) -> list[Evidence]:
    R = _section6_runs(ctx)["runs"]
    sn = {nm: _final(R[(nm, "meanfield-normalisation")]) / _final(R[(nm, "layernorm")]) for nm in ("selu", "tanh", "relu")}
    other = _final(R[("relu", "norm-then-activation")])
    ln = _final(R[("relu", "layernorm")])
    if wrong:  # the negative control: relu is self-normalising and the order does not matter
        return [Evidence("relu self-normalising (ratio ≤ 1.5)", observed=sn["relu"], passed=sn["relu"] <= 1.5),
                Evidence("relu: the other order keeps isometry (≤ 2× eq (1))", observed=other / ln, passed=other <= 2 * ln)]
    return [
        Evidence("Fig 8a: offset+scale alone matches LN for selu and tanh (ratio ≤ 1.5), not for relu (≥ 3)",
                 observed=sn["relu"], passed=sn["selu"] <= 1.5 and sn["tanh"] <= 1.5 and sn["relu"] >= 3,
                 note=", ".join(f"{k}: {v:.3g}" for k, v in sn.items())),
        Evidence("Fig 8b: relu with the other order (normalise, then activate) keeps a gap ≥ 10× that of eq (1)",
                 theory=ln, observed=other, passed=other >= 10 * ln),
    ]


def check_figure8(ctx: Context) -> Verdict:
    rows = _figure8_rows(ctx)
    st = status_from_rows(rows)
    arte = {}
    if ctx.artefact_dir:
        S = _section6_runs(ctx)
        a = Panel("Fig 8a: offset and scale only", r"layer $\ell$", _GAP_LABEL,
                  [x for nm in ("selu", "tanh", "relu") for x in _s6_series(S, nm, "meanfield-normalisation")
                   + _s6_series(S, nm, "layernorm", "theory")], logy=True)
        b = Panel("Fig 8b: relu, the order of activation and normalisation", r"layer $\ell$", _GAP_LABEL,
                  _s6_series(S, "relu", "norm-then-activation", label="relu: normalise, then activate")
                  + _s6_series(S, "relu", "layernorm", "theory", label="relu: activate, then LN (eq 1)"), logy=True)
        arte = _s6_plot(ctx, "isometry_figure8", [a, b], "lines: LN (eq 1)")
    return Verdict(f"{PAPER}:figure8", st, "selu and tanh are self-normalising, relu is not; the other order leaves "
                   "a non-isotropic Gram for relu" if st == HOLDS else "a Fig 8 observation is not reproduced", rows,
                   artefacts=arte)


def control_figure8(ctx: Context) -> Verdict:
    rows = _figure8_rows(ctx, wrong=True)
    return _control("figure8", rows, "'relu is self-normalising and the order does not matter'")


register(Claim(
    PAPER, "figure8", "Fig 8: self-normalising activations; the order of activation and normalisation matters",
    "SeLU and tanh reach isometry with offset and scale only (8a); normalising before the activation gives a "
    "non-isotropic Gram matrix (8b).",
    "n = 10, d = 1000",
    "Exact-in-distribution networks with mean-field normalisation and with the other order; stated ratios.",
    check_figure8, control_figure8, "'relu is self-normalising and the order does not matter'",
    uses=("numerics.simulate_isometry_mlp",)))


# -- Fig 9: layer normalisation stops mean-field error from accumulating (relu, n = 10) --

def _figure9_rows(ctx: Context, wrong: bool = False) -> list[Evidence]:
    S = _section6_runs(ctx)
    R, mf, L = S["runs"], S["meanfield"]["relu"], S["depth"]
    errs = {var: np.linalg.norm(R[("relu", var)]["grams"] - mf[None], axis=(-2, -1))
            for var in ("layernorm", "meanfield-normalisation")}
    half = L // 2
    growth = {v: float(e.mean(0)[L] / e.mean(0)[half]) for v, e in errs.items()}
    final = {v: mean_ci(e[:, L], CONF) for v, e in errs.items()}
    if wrong:
        return [Evidence("LN error grows as fast as with mean-field normalisation", observed=growth["layernorm"],
                         theory=growth["meanfield-normalisation"],
                         passed=growth["layernorm"] >= 0.8 * growth["meanfield-normalisation"])]
    return [Evidence("Fig 9 (relu): ‖G^ℓ − G_*^ℓ‖_F from ℓ = L/2 to L: growth with LN < 1.25 and the error with "
                     "mean-field normalisation ≥ 2× LN's at ℓ = L", theory=growth["layernorm"],
                     observed=growth["meanfield-normalisation"], samples=S["seeds"], confidence=CONF,
                     ci=final["meanfield-normalisation"][1],
                     passed=growth["layernorm"] < 1.25 and final["meanfield-normalisation"][0] >= 2 * final["layernorm"][0],
                     note=f"error at ℓ = {L}: LN {final['layernorm'][0]:.3g} {tuple(round(v, 3) for v in final['layernorm'][1])}, "
                          f"mean-field normalisation {final['meanfield-normalisation'][0]:.3g}")]


def check_figure9(ctx: Context) -> Verdict:
    rows = _figure9_rows(ctx)
    st = status_from_rows(rows)
    arte = {}
    if ctx.artefact_dir:
        S = _section6_runs(ctx)
        series = []
        for var in ("layernorm", "meanfield-normalisation"):
            G = S["runs"][("relu", var)]["grams"]
            if G is not None:
                mean, lo, hi = mean_band(np.linalg.norm(G - S["meanfield"]["relu"][None], axis=(-2, -1)), CONF)
                series.append(Series(f"relu: {_VARIANT_LABEL[var]}", np.arange(mean.size), mean, "simulation",
                                     "relu" if var == "layernorm" else "mean-field normalisation", lo, hi))
        arte = _s6_plot(ctx, "isometry_figure9", [Panel("Fig 9: deviation from the mean-field Gram (relu)",
                                                        r"layer $\ell$", r"$\|G^{\ell} - G_*^{\ell}\|_F$", series)],
                        "mean field: eq (10)")
    return Verdict(f"{PAPER}:figure9", st, "with LN the deviation from mean field stays flat in depth; with mean-field "
                   "normalisation it accumulates" if st == HOLDS else "Fig 9 is not reproduced", rows, artefacts=arte)


def control_figure9(ctx: Context) -> Verdict:
    return _control("figure9", _figure9_rows(ctx, wrong=True), "'LN's error grows like mean-field normalisation's'")


register(Claim(
    PAPER, "figure9", "Fig 9: layer normalisation stops the mean-field error from accumulating with depth",
    "For relu, n = 10: ‖G^ℓ − G_*^ℓ‖ stays bounded in depth with LN, while with mean-field normalisation it grows.",
    "n = 10, d = 1000, relu",
    "Exact-in-distribution networks against the mean-field trajectory of eq (10); growth of the Frobenius error "
    "from L/2 to L and its size at L with a 95% t-interval over seeds.",
    check_figure9, control_figure9, "'LN's error grows like mean-field normalisation's'",
    uses=("numerics.simulate_isometry_mlp", "numerics.layernorm_meanfield_trajectory")))


# =============================================================================================
# Fig B.1 / B.2 — β_σ as a function of the gain; ReLU's rate does not depend on the gain
# =============================================================================================

def _beta_gain_rows(ctx: Context, table=None, figure: dict | None = None) -> tuple[list[Evidence], list]:
    alphas = ctx.pick([0.5, 1.0, 2.0], [0.25, 0.5, 1.0, 1.5, 2.0, 3.0], [0.1, 0.25, 0.5, 1, 1.5, 2, 3, 4])
    rows, latex = [], []
    for nm in ("tanh", "sigmoid", "gelu", "selu"):
        worst_z = 0.0
        vals = []
        for a in alphas:
            expr = theory.activation(nm).expr.subs(_x, a * _x)
            act = theory.activation(expr)
            b = Q.scaled("beta", float(isometry_strength_mp(act, 20)))
            n_mc = ctx.pick(100_000, 1_000_000, 4_000_000)
            mc, se = Q.memo(("beta_mc", str(act.expr), n_mc, ctx.seed + int(a * 100)),
                            lambda: _beta_mc(act, n_mc, ctx.seed + int(a * 100)))
            worst_z = max(worst_z, abs(mc - b) / se)
            vals.append(b)
            if figure is not None:
                figure.setdefault(nm, []).append((a, b, mc, se))
            latex.append([f"{nm}({a}x)", f"{b:.10f}", f"{mc:.5f} ± {1.96 * se:.5f}"])
        rows.append(Evidence(f"β of {nm}(αx), α ∈ {alphas}: quadrature vs Monte Carlo", observed=worst_z,
                             numeric=vals[-1], confidence=CONF, passed=worst_z < 4.0,
                             note="max |z| over gains (threshold 4); β(α) = " + ", ".join(f"{v:.4f}" for v in vals)))
    # Fig B.2: for ReLU the normalised dual — hence the whole mean-field trajectory — is independent of α
    G0 = numerics.equicorrelated_gram(10, 0.5)
    base = _mf_trajectory("relu", G0, 50).offdiag
    worst = max(float(np.max(np.abs(_mf_trajectory(theory.gain_family("relu", a), G0, 50).offdiag - base)))
                for a in alphas)
    rows.append(Evidence("Fig B.2: ReLU mean-field trajectory for max(αx, 0) vs α = 1 (50 layers)", theory=0.0,
                         observed=worst, passed=worst < 1e-12,
                         note="positive homogeneity: σ̄ scales by α², and the normalised map is unchanged"))
    return rows, latex


def check_figure_b1(ctx: Context) -> Verdict:
    fig: dict = {}
    rows, latex = _beta_gain_rows(ctx, figure=fig)
    arte = {}
    if ctx.artefact_dir:
        series = []
        for nm, pts in fig.items():
            a, b, mc, se = (np.array(v, dtype=float) for v in zip(*pts))
            series += [Series(f"{nm}: quadrature", a, b, "theory", nm),
                       Series(f"{nm}: Monte Carlo (95% CI)", a, mc, "simulation", nm, mc - 1.96 * se, mc + 1.96 * se)]
        a = np.array([p[0] for p in next(iter(fig.values()))])
        series.append(Series(r"relu: $\beta = \pi/(\pi-1)$ for every $\alpha$", a,
                             np.full(a.shape, float(theory.isometry_strength("relu"))), "bound", "relu"))
        files = write_figure(ctx.artefact_dir, "isometry_figure_b1", [Panel(
            r"Fig B.1: isometry strength of $\sigma(\alpha x)$ vs the gain", r"gain $\alpha$", r"$\beta_\sigma$",
            series)], f"β by mpmath quadrature (20 digits) and by Monte Carlo; budget {ctx.budget}")
        arte = {f"figure_b1_{k}": v for k, v in files.items()}
    return Verdict.judged(f"{PAPER}:figure-b1", rows, "β_σ(α) computed for smooth activations (two routes agree); "
                          "ReLU's rate is independent of the gain", "a gain computation disagrees",
                          tables=[("Isometry strength vs gain (Fig B.1)", ["σ", "β (quadrature)", "β (Monte Carlo ±95%)"],
                                   latex)], artefacts=arte)


def control_figure_b1(ctx: Context) -> Verdict:
    G0 = numerics.equicorrelated_gram(10, 0.5)
    worst = float(np.max(np.abs(_mf_trajectory("sin(2*x)", G0, 50).offdiag
                                - _mf_trajectory("sin", G0, 50).offdiag)))
    rows = [Evidence("gain independence claimed for sin(αx) (α = 2 vs 1)", theory=0.0, observed=worst, passed=worst < 1e-12)]
    return _control("figure-b1", rows, "gain independence asserted for sin, which is not homogeneous")


register(Claim(
    PAPER, "figure-b1", "Figs B.1–B.2: isometry strength vs gain; ReLU's rate is gain-independent",
    "β_σ(α) of σ(αx) for several activations (Fig B.1); for ReLU both β and the rate towards isometry do not depend "
    "on α (Fig B.2).",
    "α ≠ 0",
    "β(α) by 20-digit quadrature and by Monte Carlo with a delta-method CI; ReLU's mean-field trajectory compared "
    "across gains.",
    check_figure_b1, control_figure_b1, "gain independence asserted for sin(αx)",
    depends_on=('beta',),
    uses=("theory.isometry_strength", "numerics.layernorm_meanfield_trajectory"), aliases=("figure-b2",)))
