"""Appendix B of the isometry paper (Joudaki, Daneshmand, Bach, NeurIPS 2023): Fig B.3, mean-field centring and
normalisation against Xavier initialisation; Fig B.4, Theorem 4 for variable-width MLPs on real inputs.

Setting (the Fig 3 setting of the main text): n inputs of pairwise correlation 0.5, width d, MLP of eq (1)'s form
without layer norm — x^{ℓ+1} = (σ(h) − c_0)/sqrt(σ̄(1) d) (mean-field: "meanfield-normalisation") against
x^{ℓ+1} = g·σ(h)/√d (Xavier with torch's gain g: "xavier"); exact-in-law simulation
(numerics.simulate_isometry_mlp), the isometry gap −log 𝓘(G^ℓ) (theory.isometry_gap). The two variants of one seed
draw the same Gaussian matrices, so their difference is compared pairwise.

theory/ functions used: theory.isometry_gap, theory.dual.float_moments (c_0, σ̄(1) inside the simulator).
numerics/ functions used: numerics.run_isometry_mlp (simulate_isometry_mlp with its recorded configuration),
numerics.equicorrelated_gram.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

import numerics
import theory
from theory.dual import float_moments, variance
from theory.gaussian import float_expectation

from ...api import (Claim, Context, Erratum, Evidence, HypothesisCheck, HypothesisNotMet, INCONCLUSIVE, kinds as P,
                    lazy_module as _lazy, mean_band, Panel, Parameter, Series, shared, Verdict, write_figure)
from ._common import dual_normalised, PAPER

stats = _lazy("scipy.stats")
datasets = _lazy("numerics.datasets")

CONF = 0.99
#: torch.nn.init.calculate_gain for each activation (leaky_relu: negative slope 0.01, the registered leaky_relu)
XAVIER_GAIN = {"relu": math.sqrt(2.0), "leaky_relu": math.sqrt(2.0 / (1 + 0.01 ** 2)), "tanh": 5.0 / 3.0,
               "sigmoid": 1.0, "selu": 0.75}
OFFSET = ("relu", "leaky_relu")   # the activations with a large offset c_0 that Xavier does not correct


def _settings(ctx: Context) -> dict:
    return ctx.pick(dict(n=10, d=1000, depth=15, seeds=6), dict(n=10, d=2000, depth=20, seeds=12),
                    dict(n=10, d=4000, depth=30, seeds=24))


class _B3Run(NamedTuple):
    """One ensemble of Fig B.3: the isometry gaps [seeds, layers], per seed the mean of G¹_ii over the n inputs,
    and the configuration the simulator recorded (numerics.IsometryMLPRun.config)."""
    gaps: np.ndarray
    q1: np.ndarray
    config: dict


@shared
def _gaps(act: str, variant: str, gain: float, n: int, d: int, depth: int, seeds: int, seed: int,
          device: str) -> _B3Run:
    G0 = numerics.equicorrelated_gram(n, 0.5)
    run = numerics.run_isometry_mlp(act, d, G0, depth, seeds, variant=variant, gain=gain, seed=seed, device=device)
    G = run.grams.cpu().numpy()
    q1 = np.diagonal(G[:, 1], axis1=-2, axis2=-1).mean(axis=-1)
    return _B3Run(theory.isometry_gap(G), q1, run.config)


#: |z| beyond which the first layer's second moment contradicts g² E σ(z)² (the standard error is an upper bound)
MOMENT_Z = 4.0


def _config_row(act: str, runs: list[tuple[str, float, _B3Run]], st: dict) -> Evidence:
    """The configuration each simulation recorded is the one asked for: activation, variant, gain (xavier only),
    width d at every layer, n, depth, seeds, float64, exact in law."""
    wrong = []
    for variant, gain, run in runs:
        asked = dict(activation=act, variant=variant, gain=gain if variant == "xavier" else None,
                     widths=[st["d"]] * st["depth"], n=st["n"], depth=st["depth"], seeds=st["seeds"],
                     dtype="float64", method="exact")
        wrong += [f"{variant} {k}: asked {v!r}, ran {run.config.get(k)!r}" for k, v in asked.items()
                  if run.config.get(k) != v]
    return Evidence(f"{act}, run configuration: each network ran the variant, gain and sizes asked for (recorded by "
                    "numerics.run_isometry_mlp)", theory=len(runs), numeric=len(runs) - len({w.split()[0] for w in wrong}),
                    passed=not wrong,
                    note="; ".join(wrong) or "; ".join(f"{v}: {r.config['post']}, gain {r.config['gain']}, width "
                                                       f"{st['d']} × {st['depth']} layers" for v, _, r in runs))


def _first_layer_row(act: str, g: float, run: _B3Run, st: dict) -> Evidence:
    """Xavier's first layer x¹ = g·σ(h)/√d with h ~ N(0, 1) per feature (G⁰ has unit diagonal), so
    E G¹_ii = g² E σ(z)² (eq 2); the gap being scale invariant, this is where the gain shows. E σ², E σ⁴ by the
    kink-split Gauss–Legendre rule of theory.gaussian; the standard error of the mean over d·S features uses
    Var σ(z)² ≥ Var((1/n)Σ_i σ(h_i)²) (Cauchy–Schwarz: the n inputs of a feature are correlated), an upper bound."""
    a = theory.activation(act)
    m2 = float_expectation(a, g=lambda t: a.numpy(t), nodes_per_piece=600)
    m4 = float_expectation(a, g=lambda t: a.numpy(t) ** 3, nodes_per_piece=600)
    expected, mean = g * g * m2, float(run.q1.mean())
    se = g * g * math.sqrt(max(m4 - m2 * m2, 0.0) / (st["d"] * len(run.q1)))
    z = abs(mean - expected) / se if se > 0 else (0.0 if mean == expected else math.inf)
    return Evidence(f"{act}, run configuration: Xavier's first layer, mean G¹_ii vs g² E σ(z)² (gain {g:.4g})",
                    theory=expected, numeric=mean, ci=(mean - MOMENT_Z * se, mean + MOMENT_Z * se),
                    samples=st["d"] * len(run.q1), observed=z, bound=MOMENT_Z, statistic="|z|", passed=z <= MOMENT_Z,
                    note=f"|z| = {z:.2f} with se ≤ {se:.3g} (an upper bound); E σ(z)² = {m2:.6g}, so networks that "
                         f"ignored the gain would give {m2:.4g}, |z| = {abs(mean / (g * g) - expected) / se:.0f}")


def _compare(act: str, mf: np.ndarray, xa: np.ndarray, g: float, L: int, label: str) -> Evidence:
    """One activation: the paired difference of the isometry gaps at layer L (Xavier − mean-field), 99% t-interval.
    A Gram matrix that became numerically singular has gap +∞ (𝓘 = 0 in float64): then the per-seed order decides,
    with the exact sign-test level 2^−S."""
    a, b = xa[:, L], mf[:, L]
    name = f"{act}: isometry gap at depth {L}, Xavier (gain {g:.4g}) minus {label} (paired seeds)"
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        wins = int(np.sum(a > b))
        S = len(a)
        return Evidence(name, observed=wins, bound=S, samples=S, passed=wins == S,
                        note=f"{int(np.sum(~np.isfinite(a)))} of {S} Xavier and {int(np.sum(~np.isfinite(b)))} of {S} "
                             f"{label} Gram matrices are numerically singular (gap +∞); Xavier is worse in {wins} of {S} "
                             f"seeds (all: sign-test level 2^−{S} = {2.0 ** -S:.3g})")
    diff = a - b
    m, se = float(diff.mean()), float(diff.std(ddof=1) / math.sqrt(len(diff)))
    t = float(stats.t.ppf(0.5 + CONF / 2, len(diff) - 1))
    lo = m - t * se
    return Evidence(name, numeric=m, observed=lo, bound=0.0, ci=(lo, m + t * se),
                    confidence=CONF, samples=len(diff), passed=lo > 0,
                    note=f"difference {m:.4g} ± {t * se:.3g} ({100 * CONF:g}%); the mean-field gain improves the "
                         "isometry iff the interval lies above 0 (observed: its lower end); mean gaps: Xavier "
                         f"{float(a.mean()):.4g}, {label} {float(b.mean()):.4g}")


def _rows(ctx: Context, centre: bool = True, figure: dict | None = None,
          acts: tuple | None = None) -> tuple[list[Evidence], list[Evidence]]:
    """The rows that decide Fig B.3, and the run-integrity rows (configuration, Xavier's first-layer moment)."""
    st = _settings(ctx)
    L = st["depth"]
    rows, checks, ratios = [], [], {}
    for act in acts or tuple(XAVIER_GAIN):
        g = XAVIER_GAIN[act]
        if centre:
            mf_variant, mf_gain = "meanfield-normalisation", 1.0
        else:  # the control: the mean-field scale without the centring by c_0: σ/sqrt(E σ²)
            second = float(variance(act)) + float_moments(theory.activation(act))[0] ** 2   # E σ²
            mf_variant, mf_gain = "xavier", 1.0 / math.sqrt(second)
        mf_run = _gaps(act, mf_variant, mf_gain, st["n"], st["d"], L, st["seeds"], ctx.seed, ctx.device)
        xa_run = _gaps(act, "xavier", g, st["n"], st["d"], L, st["seeds"], ctx.seed, ctx.device)
        checks.append(_config_row(act, [(mf_variant, mf_gain, mf_run), ("xavier", g, xa_run)], st))
        checks += [_first_layer_row(act, gain, run, st) for variant, gain, run in
                   ((mf_variant, mf_gain, mf_run), ("xavier", g, xa_run)) if variant == "xavier"]
        mf, xa = mf_run.gaps, xa_run.gaps
        rows.append(_compare(act, mf, xa, g, L, "mean-field" if centre else "the uncentred mean-field scale"))
        ratios[act] = float(np.mean(xa[:, L]) / np.mean(mf[:, L]))   # +∞ when Xavier's Gram collapsed
        if figure is not None:
            figure[act] = (mf, xa)
    top = min(ratios[a] for a in OFFSET)
    rest = max(r for a, r in ratios.items() if a not in OFFSET)
    fmt = lambda r: "∞ (singular Gram)" if not math.isfinite(r) else f"{r:.3g}"  # noqa: E731
    rows.append(Evidence("the improvement (gap ratio Xavier / mean-field) is largest for ReLU and leaky ReLU",
                         passed=top > rest,
                         note="ratios: " + ", ".join(f"{a} {fmt(r)}" for a, r in ratios.items())
                              + " — the paper's explanation: their offset c_0, which Xavier does not remove"))
    return rows, checks


def _judged(ctx: Context, rows: list[Evidence], checks: list[Evidence], holds: str, fails: str,
            **extra) -> Verdict:
    """Verdict.judged on the rows and the run-integrity rows, unless an integrity row failed: then the networks are
    not the ones the claim asked for, which says nothing about the paper (inconclusive, not violated)."""
    bad = [r.name for r in checks if r.passed is False]
    if bad:
        return Verdict(ctx.claim_id, INCONCLUSIVE, "no verdict: the simulated networks are not the ones asked "
                       "for — " + "; ".join(bad), rows + checks, **extra)
    return Verdict.judged(ctx.claim_id, rows + checks, holds, fails, **extra)


def _plot(ctx: Context, fig: dict) -> dict:
    st = _settings(ctx)
    layers = np.arange(st["depth"] + 1, dtype=float)
    panel = Panel("isometry gap vs depth: mean-field (solid) vs Xavier (dashed)", r"layer $\ell$",
                  r"$-\log\mathcal{I}(G^\ell)$", [], logy=True)
    for act, (mf, xa) in fig.items():
        m, lo, hi = mean_band(mf, 0.95)
        panel.series.append(Series(f"{act}: mean-field", layers, m, "simulation", act, lo, hi))
        panel.series.append(Series(f"{act}: Xavier", layers, xa.mean(axis=0), "bound", act))
    files = write_figure(ctx.artefact_dir, "isometry_figure_b3", [panel],
                         f"n = {st['n']} inputs of correlation 0.5, d = {st['d']}, {st['seeds']} seeds, budget "
                         f"{ctx.budget}; bands: 95% t-intervals (mean-field)")
    return {f"figure_b3_{k}": v for k, v in files.items()}


def control_figure_b3(ctx: Context) -> Verdict:
    return _judged(ctx, *_rows(ctx, centre=False), "the mean-field scale without centring still beats Xavier as the claim says",
                   "without the centring by c_0 the claimed advantage is not there")


def positive_figure_b3(ctx: Context) -> Verdict:
    return _judged(ctx, *_rows(ctx, acts=("relu", "leaky_relu", "selu")), "ReLU, leaky ReLU and SELU: the check holds",
                   "not even for ReLU, leaky ReLU and SELU")


@PAPER.claim(
    "figure-b3",
    title="Fig B.3: mean-field gains vs Xavier initialisation",
    statement="\"All mean-field based gains improve the isometry when compared with Xavier initialization. However, this is "
        "markedly stronger for ReLU and leaky ReLU … both activations have a significant offset term c_0, which is not "
        "corrected by the Xavier initialization.\"",
    hypotheses="finite width d, inputs of correlation 0.5 (the Fig 3 setting); Xavier gains as torch.nn.init.calculate_gain",
    how="Exact-in-law MLPs with (σ − c_0)/sqrt(σ̄(1)) against g·σ (Xavier), same Gaussian draws per seed: per activation "
        "the paired difference of isometry gaps at the last layer must have its 99% t-interval above 0; the ratio of "
        "gaps must be largest for ReLU and leaky ReLU. Control: the mean-field scale without the centring by c_0 — the "
        "paper's explanation — must lose the advantage. Each simulation's recorded configuration (variant, gain, widths, "
        "sizes) must be the one asked for, and Xavier's first-layer mean G¹_ii must match g² E σ(z)² (|z| ≤ 4 with an "
        "upper bound on the standard error; the gap is scale invariant, so this is where the gain shows); if either "
        "fails the networks are not the claim's and there is no verdict.",
    negative_control=control_figure_b3,
    control_description="the mean-field scale without the centring by c_0 must lose the advantage",
    uses=("numerics.run_isometry_mlp", "numerics.simulate_isometry_mlp", "theory.isometry_gap",
              "theory.dual.float_moments", "theory.gaussian.float_expectation"),
    depends_on=(),
    positive_control=positive_figure_b3,
    positive_control_description="the same check on ReLU, leaky ReLU and SELU, where the mean-field gains do improve")
def check_figure_b3(ctx: Context) -> Verdict:
    fig = {} if ctx.artefact_dir else None
    rows, checks = _rows(ctx, figure=fig)
    st = _settings(ctx)
    errata = []
    tanh = next(r for r in rows if r.name.startswith("tanh:"))
    if tanh.passed is False:
        errata.append(Erratum(
            "Appendix B.2, Fig B.3", "all mean-field based gains improve the isometry when compared with Xavier "
            "initialization", "not for tanh: Xavier's gain 5/3 gives a smaller isometry gap than (σ − c_0)/sqrt(σ̄(1)) "
            "(plausibly: the larger gain makes tanh more non-linear, and a more non-linear σ contracts faster, as "
            "Theorem 4's β_σ says)",
            f"n = {st['n']}, d = {st['d']}, depth {st['depth']}, {st['seeds']} paired seeds: {tanh.note}; the same order "
            "at d = 1000, 2000, 4000 (depths 15, 20, 30) in this package's runs"))
    return _judged(ctx, rows, checks,
                   "the mean-field centring and normalisation give a smaller isometry gap than Xavier's gain for "
                   "every activation, most of all for ReLU and leaky ReLU",
                   "the mean-field gains beat Xavier by far for ReLU and leaky ReLU (and sigmoid, whose Xavier "
                   "Gram collapses), but not for tanh, where Xavier's gain 5/3 contracts faster (erratum)",
                   errata=errata, artefacts=_plot(ctx, fig) if fig else {})


# =============================================================================================
# Fig B.4 (Appendix B.3) — Theorem 4 for variable-width MLPs on real inputs
# =============================================================================================
#
# Theorem 4 is a mean-field statement: the isometry gap of G_*^ℓ, the infinite-width limit, decays at rate β_σ.
# The mean-field limit does not depend on how the widths go to infinity, so the paper's Fig B.4 claim — the decay is
# "largely consistent" across width profiles — is checked as: for each profile, the finite-width mean gap,
# extrapolated to infinite width from widths s·d and 4s·d (bias ∝ 1/d at leading order, so g_∞ ≈ (4 g_4 − g_1)/3), must
# equal the mean-field gap of eq (10) at every layer (z-test, Bonferroni over profiles × layers × inputs). The theory
# side is the mean-field map ρ ↦ σ̄(ρ)/σ̄(1) (the 'dual' quantity, iterated here); a wrong map or a width profile that
# changed the limit shows up as a layer where the extrapolation misses it.

B4_PROFILES = ("fixed", "growing", "narrowing", "interchanging")
B4_CONF = 0.999
H_B4_INPUT = HypothesisCheck("G_*^0 non-degenerate", "the embedded input batch has a non-singular Gram matrix (no "
                             "duplicated or collinear samples)")


def width_profile(kind: str, d: int, depth: int) -> list[int]:
    """Widths of layers 1..depth (Fig B.4): fixed d; growing d/2 → 2d and narrowing 2d → d/2 (geometric);
    interchanging d/2, 2d, d/2, …"""
    if kind == "fixed":
        return [d] * depth
    if kind in ("growing", "narrowing"):
        w = [int(round(d / 2 * 4 ** (k / max(depth - 1, 1)))) for k in range(depth)]
        return w if kind == "growing" else w[::-1]
    if kind == "interchanging":
        return [d // 2 if k % 2 == 0 else 2 * d for k in range(depth)]
    raise ValueError(kind)


def _b4_settings(ctx: Context) -> dict:
    return ctx.pick(dict(d=1000, depth=12, seeds=100), dict(d=1000, depth=20, seeds=200),
                    dict(d=2000, depth=30, seeds=600))


def _b4_inputs(ctx: Context) -> dict[str, np.ndarray]:
    """Two input geometries from real images (the paper: MNIST and CIFAR10): one training image of each of the first
    10 classes, and 10 training images of one class (highly correlated); G^0 under eq (1)'s embedding."""
    ds = datasets.load_dataset(str(ctx.params.get("dataset") or "digits"))
    x, y = ds.x_train, ds.y_train
    classes = [k for k in range(ds.classes) if np.any(y == k)][:10]
    one_each = x[[int(np.nonzero(y == k)[0][0]) for k in classes]]
    k0 = classes[min(3, len(classes) - 1)]
    same = x[np.nonzero(y == k0)[0][:10]]
    out = {}
    for label, X in ((f"one image of each of {len(classes)} classes", one_each),
                     (f"{len(same)} images of class {k0}", same)):
        G0 = numerics.embedded_input_gram(X)
        if len(X) < 2 or np.linalg.eigvalsh(G0)[0] <= 1e-10:
            raise HypothesisNotMet(H_B4_INPUT.name, f"{ds.name}, {label}: the embedded inputs have a (nearly) singular "
                                   f"Gram matrix (smallest eigenvalue {np.linalg.eigvalsh(G0)[0]:.3g}); Theorem 4 needs "
                                   "a non-degenerate G_*^0", [Evidence("smallest eigenvalue of G^0",
                                                                       numeric=float(np.linalg.eigvalsh(G0)[0]),
                                                                       passed=None)])
        out[label] = G0
    return out


def _meanfield_gaps_dual(act: str, G0: np.ndarray, depth: int) -> np.ndarray:
    """The mean-field isometry gaps of eq (10) with layer norm, iterating the map ρ ↦ σ̄(ρ)/σ̄(1) as consumed
    (verify.quantities.dual_normalised: the 'dual' quantity, perturbed by the controls)."""
    n = G0.shape[0]
    iu = np.triu_indices(n, 1)
    r = G0[iu].copy()
    out = np.empty(depth + 1)
    out[0] = float(theory.isometry_gap(G0))
    for ell in range(1, depth + 1):
        r = np.clip(np.asarray(dual_normalised(act, r), dtype=float), -1.0, 1.0)
        G = np.eye(n)
        G[iu] = r
        G.T[iu] = r
        out[ell] = float(theory.isometry_gap(G))
    return out


@shared
def _b4_gaps(act: str, kind: str, d: int, depth: int, seeds: int, seed: int, G0_bytes: bytes, n: int,
             device: str) -> np.ndarray:
    G0 = np.frombuffer(G0_bytes).reshape(n, n).copy()
    w = width_profile(kind, d, depth)
    G = numerics.simulate_isometry_mlp(act, max(w), G0, depth, seeds, widths=w, seed=seed, device=device).cpu().numpy()
    return theory.isometry_gap(G)   # [seeds, layers]


def _b4_rows(ctx: Context, figure: dict | None = None) -> list[Evidence]:
    st = _b4_settings(ctx)
    d, L, S = st["d"], st["depth"], st["seeds"]
    act = "relu"
    inputs = _b4_inputs(ctx)
    tests = len(inputs) * len(B4_PROFILES) * L
    zcrit = float(stats.norm.ppf(1 - (1 - B4_CONF) / (2 * tests)))
    beta = float(theory.isometry_strength(act))   # the bound's rate, reported (not a decision: see the note)
    rows = []
    for i, (label, G0) in enumerate(inputs.items()):
        mf = _meanfield_gaps_dual(act, G0, L)
        n = G0.shape[0]
        for j, kind in enumerate(B4_PROFILES):
            ctx.progress(f"Fig B.4 {label}: {kind} widths", (i * len(B4_PROFILES) + j) / (len(inputs) * len(B4_PROFILES)))
            salt = ctx.seed * 1000 + 10 * i + j
            g1 = _b4_gaps(act, kind, d, L, S, salt, G0.tobytes(), n, ctx.device)
            g4 = _b4_gaps(act, kind, 4 * d, L, S, salt + 500, G0.tobytes(), n, ctx.device)
            m1, m4 = g1.mean(0), g4.mean(0)
            rich = (4 * m4 - m1) / 3
            se = np.sqrt(16 * g4.var(0, ddof=1) / S + g1.var(0, ddof=1) / S) / 3
            w = width_profile(kind, d, L)
            if not (np.all(np.isfinite(g1)) and np.all(np.isfinite(g4)) and np.all(se[1:] > 0)):
                # a numerically singular Gram (gap +∞) or a degenerate spread: no z-test — numerical trouble, not a verdict
                rows.append(Evidence(f"{label}, {kind} widths: infinite-width extrapolation of the gap", passed=None,
                                     note=f"not judged: {int(np.sum(~np.isfinite(g1)) + np.sum(~np.isfinite(g4)))} "
                                          "non-finite gaps (singular Gram matrices) or a zero standard error"))
                continue
            z = (rich[1:] - mf[1:]) / se[1:]
            worst = int(np.argmax(np.abs(z)))
            rows.append(Evidence(
                f"{label}, {kind} widths ({w[0]}…{w[-1]}, ×4): infinite-width extrapolation of the gap = mean field, "
                f"layers 1..{L}", theory=float(mf[worst + 1]), numeric=float(rich[worst + 1]),
                observed=float(np.abs(z).max()), bound=zcrit, statistic="max |z|", confidence=B4_CONF, samples=S,
                passed=bool(np.abs(z).max() <= zcrit),
                note=f"max |z| at layer {worst + 1}; (4·g(4d) − g(d))/3 from {S} seeds per width; gap at layer {L}: "
                     f"mean field {mf[-1]:.3g}, width ×1 {m1[-1]:.3g}, ×4 {m4[-1]:.3g} (the finite-width floor "
                     "shrinks like 1/d)"))
            if figure is not None:
                figure.setdefault(label, {})[kind] = (g1, g4, mf)
        bound = np.exp(-np.arange(L + 1) * math.log(beta) + n * float(theory.isometry_gap(G0)) + math.log(4 * n))
        rows.append(Evidence(f"{label}: Theorem 4's bound (eq 12) at these depths", bound=float(bound[-1]),
                             observed=float(mf[-1]), passed=None,
                             note=f"informational: at layer {L}, the bound and the mean-field gap; the bound exceeds "
                                  f"the initial gap {mf[0]:.3g} up to layer "
                                  f"{int(np.sum(bound > mf[0])) - 1} (n = {n}), so it cannot fail here; the decay itself "
                                  "is tested through the mean-field trajectory above"))
    return rows


def _b4_plot(ctx: Context, fig: dict) -> dict:
    st = _b4_settings(ctx)
    layers = np.arange(st["depth"] + 1, dtype=float)
    panels = []
    for label, per in fig.items():
        panel = Panel(f"Fig B.4: {label}", r"layer $\ell$", r"$-\log\mathcal{I}(G^\ell)$", [], logy=True)
        for kind, (g1, g4, mf) in per.items():
            m, lo, hi = mean_band(g1, 0.95)
            panel.series.append(Series(f"{kind}: base width {st['d']}", layers, m, "simulation", kind, lo, hi))
            panel.series.append(Series(rf"{kind}: widths $\times 4$", layers, g4.mean(0), "theory", kind))
        panel.series.append(Series("mean field (eq 10)", layers, np.maximum(mf, 1e-300), "bound", "mean field"))
        panels.append(panel)
    files = write_figure(ctx.artefact_dir, "isometry_figure_b4", panels,
                         f"ReLU MLPs (eq 1), base width {st['d']}, {st['seeds']} seeds, budget {ctx.budget}; "
                         "inputs: scikit-learn digits (a substitute for MNIST/CIFAR10)")
    return {f"figure_b4_{k}": v for k, v in files.items()}


@PAPER.claim(
    "figure-b4",
    title="Fig B.4: Theorem 4 holds for variable-width MLPs (real inputs)",
    statement="\"The specific sizes of hidden layers, as long as they are large, will not impact our main results on the "
        "isometry … the decay of the isometry gap remains largely consistent across these configurations\" (fixed, growing, "
        "narrowing, interchanging widths; random weights; MNIST and CIFAR10 inputs).",
    hypotheses="random weights, ReLU, eq (1) with layer normalisation; non-degenerate embedded inputs; widths large",
    how="Inputs: scikit-learn's digits (a substitute for MNIST/CIFAR10; --param dataset=PATH.npz for yours) — one image per "
        "class, and 10 images of one class. Exact-in-law variable-width MLPs (numerics.simulate_isometry_mlp(widths=)) at "
        "base width d and 4d; per layer, the extrapolation (4·g(4d) − g(d))/3 of the mean gap must match the mean-field "
        "gap (eq 10 iterated with the dual map) within a 99.9% Bonferroni z-bound over profiles × layers × inputs. "
        "Resolution: the mean-field map ρ ↦ σ̄(ρ)/σ̄(1) scaled by 1 ± 5% is rejected (the control).",
    negative_control=None,
    control_description="",
    uses=("numerics.simulate_isometry_mlp", "numerics.embedded_input_gram", "numerics.datasets.load_dataset",
              "theory.numeric_dual", "theory.isometry_gap"),
    parameters=(Parameter("dataset", P.dataset, "digits", "a registered dataset (digits) or a path to an .npz file"),),
    depends_on=("dual",),
    hypothesis_checks=(H_B4_INPUT,))
def check_figure_b4(ctx: Context) -> Verdict:
    fig = {} if ctx.artefact_dir else None
    rows = _b4_rows(ctx, fig)
    return Verdict.judged(ctx.claim_id, rows,
                          "for fixed, growing, narrowing and interchanging widths the isometry gap of random ReLU MLPs "
                          "on real inputs converges to the same mean-field decay (Theorem 4's setting) as the widths grow",
                          "a width profile's infinite-width extrapolation departs from the mean-field decay",
                          artefacts=_b4_plot(ctx, fig) if fig else {})


PAPER.add(Claim(
    paper=PAPER.key,
    name="figure-b5",
    title="Fig B.5: LayerNorm in pre-trained GPT-2 (needs downloaded weights; none offline)",
    statement="Fig B.5: LayerNorm in pre-trained GPT-2 (needs downloaded weights; none offline)",
    pending_reason="pretrained weights cannot be had offline; random weights would not test a claim about trained ones",
    pending_kind="offline"))
