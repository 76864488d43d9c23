"""Section 3 — normalisation and isometry: Lemma A.1 (properties of 𝓘), Theorem 1 (eq 4), Corollary 2 (layer normalisation, Fig 2), Corollary 3 (batch normalisation)."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import sympy as sp

import theory

from ...api import Context, Erratum, Evidence, HOLDS, Panel, Series, status_from_rows, Verdict, write_figure
from ._common import _control, _log_iso_qr, _rational_unit_vector, _rng, BATCH_KINDS, PAPER, random_batch


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
        Evidence("scale invariance: max |𝓘(cM) − 𝓘(M)|/𝓘(M), c ∈ [1e-8, 1e8], cond(M) < 1e8", bound=1e-9,
                 observed=scale_err, samples=judged, passed=scale_err < 1e-9),
        Evidence("range: trials with 𝓘 ∉ [0, 1]", theory=0, numeric=range_bad, samples=trials,
                 passed=range_bad == 0, note="random, wild-norm, correlated, near-degenerate batches, n ≤ 12"),
        Evidence("maximum: 𝓘(c I_n) for c ∈ {1, 2, 1e-6}", theory=1.0, numeric=min(ident),
                 passed=all(abs(v - 1) < 1e-12 for v in ident), note="measured: the smallest of the three"),
        Evidence("maximum only at multiples of I: trials with 𝓘 = 1 but M ≠ cI", theory=0, numeric=not_max,
                 samples=judged, passed=not_max == 0),
        Evidence("minimum: duplicated sample, trials with 𝓘^n > 1e-12 (float rounding level)", theory=0,
                 numeric=zero_bad, samples=trials, passed=zero_bad == 0),
        Evidence("exact rationals (n ≤ 5, M = AᵀA integer, rational c): 𝓘^n ∈ [0,1], 𝓘(cM) = 𝓘(M), "
                 "𝓘 = 0 ⇔ det M = 0, duplicated sample ⇒ 0", theory=0, numeric=exact_bad, samples=exact_trials,
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


def control_lemma_a1(ctx: Context) -> Verdict:
    def wrong_iso(M):  # the determinant without its 1/n power: not scale invariant
        M = np.asarray(M, dtype=float)
        n = M.shape[-1]
        return np.linalg.det(M) / (np.trace(M) / n)
    rows = _lemma_a1_rows(wrong_iso, ctx)
    status = status_from_rows(rows)
    return Verdict(ctx.claim_id, status, "the property checks applied to det(M)/(tr M/n)", rows)


@PAPER.claim(
    "lemma-a1",
    title="Lemma A.1: scale invariance and range of the isometry 𝓘",
    statement="For PSD M: 𝓘(cM) = 𝓘(M); 𝓘(M) ∈ [0, 1]; 𝓘(M) = 1 iff M = I_n; 𝓘(M) = 0 iff M is degenerate (eq 3).",
    hypotheses="M positive semi-definite, tr M > 0",
    how="Random and adversarial PSD matrices (wild norms 1e±6, near-degenerate, duplicated samples), "
        "float checks with stated tolerances, plus an exact rational check of det M/(tr M/n)^n ∈ [0,1].",
    negative_control=control_lemma_a1,
    control_description="the same checks applied to det(M)/(tr M / n), missing the 1/n power",
    uses=("theory.isometry",),
    aliases=("definition1",))
def check_lemma_a1(ctx: Context) -> Verdict:
    rows = _lemma_a1_rows(theory.isometry, ctx)
    status = status_from_rows(rows)
    errata = [Erratum(
        "Lemma A.1 (3) and Section 3 property (ii)",
        "𝓘(M) = 1 ⟺ M = I_n", "𝓘(M) = 1 ⟺ M = c·I_n for some c > 0",
        "𝓘 is scale invariant (property 1), so 𝓘(2·I_n) = 1 although 2·I_n ≠ I_n; checked for "
        "n ∈ {2, 5, 17}, c ∈ {1, 2, 1e-6}: 𝓘(cI) = 1 to 1e-12.", "typo")]
    return Verdict(ctx.claim_id, status,
                   "all four properties hold on every random and adversarial trial" if status == HOLDS
                   else "a property of 𝓘 failed", rows, errata)


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
        Evidence("exact rational check, n ≤ 5 (𝓘^n compared exactly)", theory=0, numeric=exact_fails,
                 samples=exact_trials, passed=exact_fails == 0 if label == "x/‖x‖" else None),
    ]


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


def control_theorem1(ctx: Context) -> Verdict:
    rows = _theorem1_rows(lambda X: X * np.linalg.norm(X, axis=0), ctx, "x·‖x‖ (not a normalisation)")
    return _control(ctx, rows, "eq (4) applied to x ↦ x‖x‖, which does not normalise")


@PAPER.claim(
    "theorem1",
    title="Theorem 1: projection onto the sphere increases isometry by the norm-variation factor",
    statement="𝓘(G̃) ≥ 𝓘(G)(1 + (1/n)Σ(a_i − ā)²/ā²), a_i = ‖x_i‖, G̃ the Gram of x_i/‖x_i‖ (eq 4).",
    hypotheses="x_i ∈ ℝ^d \\ {0}",
    how="Thousands of random/adversarial batches (norms spread over 12 decades, near-degenerate, nearly equal norms), "
        "log-scale with QR determinants; exact rational check for n ≤ 5 with rational unit vectors and norms.",
    negative_control=control_theorem1,
    control_description="the inequality applied to x ↦ x·‖x‖, which does not normalise",
    uses=("theory.isometry",))
def check_theorem1(ctx: Context) -> Verdict:
    rows = _theorem1_rows(_unit, ctx, "x/‖x‖")
    st = status_from_rows(rows)
    errata = [Erratum("Theorem 1 proof, annotation of eq (7)", "det(D) = Π a_i²", "det(D)² = Π a_i² (det D = Π a_i)",
                      "D = diag(a_1..a_n) so det D = Π a_i; the proof uses det(G) = det(G̃) det(D)².", "typo")]
    return Verdict(ctx.claim_id, st,
                   "the inequality holds on every random, wild-norm and near-degenerate batch, and exactly in rationals"
                   if st == HOLDS else "a batch violates eq (4)", rows, errata)


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


def control_corollary2(ctx: Context) -> Verdict:
    rows = _theorem1_rows(lambda X: X - X.mean(axis=0), ctx, "centering only (no normalisation)")
    return _control(ctx, rows, "eq (4) applied to centering without LN")


@PAPER.claim(
    "corollary2",
    title="Corollary 2 (and Fig 2): layer normalisation increases isometry",
    statement="For x̃_i = LN(x_i): 𝓘(G̃) ≥ 𝓘(G)(1 + (1/n)Σ(a_i − ā)²/ā²), a_i = ‖x_i‖.",
    hypotheses="x_i ∈ ℝ^d \\ {0}",
    how="As Theorem 1 with LN(x) = x/sqrt(mean x²); plus the Fig 2 network (tanh, depth 10, width 1000, "
        "batch 512, synthetic Gaussian inputs) with the margin of eq (4) at every norm layer.",
    negative_control=control_corollary2,
    control_description="the inequality applied to centering alone, which does not normalise",
    uses=("theory.isometry",),
    aliases=("figure2",))
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
            "Fig 2: isometry through the sub-layers of an MLP (tanh)", r"sub-layer (fc, act, centre, norm) $\times$ depth",
            r"$\log\,\mathcal{I}$", [Series("every sub-layer", x, y, "theory", "tanh"),
                                        Series("after layer normalisation", norm, y[norm], "simulation", "LN",
                                               draw="points")])],
            f"depth {depth}, width {width}, batch {batch}, Gaussian inputs (CIFAR10 and training not reproduced); "
            f"budget {ctx.budget}")
        arte.update({f"figure2_{k}": v for k, v in files.items()})
    return Verdict(ctx.claim_id, st,
                   "layer normalisation never lowers isometry below eq (4)'s bound, in random batches and inside an MLP"
                   if st == HOLDS else "a layer-norm step violates Corollary 2", rows, artefacts=arte)


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
    return [Evidence(f"Corollary 3, {reading} reading: violations of the inequality", theory=0, numeric=fails,
                     samples=trials - vacuous, passed=fails == 0,
                     note=f"{vacuous} trials with d > n are vacuous (rank XXᵀ ≤ n < d so both sides are 0)"
                          + (f"; smallest ratio of the two sides {math.exp(worst):.6g}" if math.isfinite(worst) else ""))]


def control_corollary3(ctx: Context) -> Verdict:
    rows = _corollary3_rows(ctx, "printed")
    return _control(ctx, rows, "the literal printed statement")


@PAPER.claim(
    "corollary3",
    title="Corollary 3: batch normalisation increases the isometry of the feature covariance",
    statement="Intended: X ∈ ℝ^{d×n}, X̃ = BN(X), C = XXᵀ, C̃ = X̃X̃ᵀ, a_i = ‖X_i·‖, ā = (1/d)Σa_i: "
        "𝓘(C̃) ≥ 𝓘(C)(1 + (1/d)Σ(a_i − ā)²/ā²).",
    hypotheses="rows X_i· ≠ 0; non-trivial for d ≤ n",
    how="Random and adversarial X with d ≤ n (and d > n, reported as vacuous); the printed reading and the "
        "sample-Gram reading are evaluated too, as evidence for the errata.",
    negative_control=control_corollary3,
    control_description="the statement exactly as printed (C̃ := XXᵀ, ā with 1/n)",
    uses=("theory.isometry",))
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
                f"{printed.numeric} of {printed.samples} random batches violate it.", "typo"),
        Erratum("Corollary 3", "ā := (1/n) Σ_{i=1}^d a_i", "ā := (1/d) Σ_{i=1}^d a_i (mean of the d row norms)",
                "the corollary is Theorem 1 applied to the d feature rows X_i· ∈ ℝ^n; with the intended C̃ and ā "
                f"it holds on all {rows[0].samples} non-vacuous trials.", "typo"),
        Erratum("Table 1 (BN)", "BN(X)_ij = X_ij / sqrt((1/n) Σ_{k}^{d} X_ik²)", "sum over k = 1..n (the batch)",
                "BN normalises each feature over the n samples of the batch.", "typo"),
        Erratum("Corollary 3 (scope)", "stated for any d, n", "non-trivial only for d ≤ n",
                "C = XXᵀ is d×d of rank ≤ n: for d > n both isometries vanish and the inequality reads 0 ≥ 0.", "typo"),
    ]
    return Verdict(ctx.claim_id, st,
                   "the intended statement (Theorem 1 on the feature rows) holds; the printed one has typos"
                   if st == HOLDS else "the intended Corollary 3 fails", rows, errata)
