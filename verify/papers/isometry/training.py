"""Training experiments of the isometry paper: Fig 7 (β_σ and the speed of SGD, Section 7) and Appendix B.5, Figs B.6
and B.7 (the isometry of the representations before and after training).

The paper trains on CIFAR10 (Fig 7: depth 10, width 1000, batch 512, 5 runs). Nothing downloads here: the data are
scikit-learn's 8×8 digits (numerics.datasets; 10 classes, 64 features, 1348 training images), a substitute — the same
task type, far fewer features and images, so losses and speeds are not the paper's numbers; ``--param
dataset=PATH.npz`` runs the same protocol on your CIFAR10/MNIST. Batches of 64 (512 would be 2 steps per epoch on
1348 images), plain SGD with lr 0.01 for every activation (the paper does not state its learning rate), width 128 /
256 / 1000 by budget.

Network (numerics.training.train_isometry_mlp): eq (1) — x^{ℓ+1} = LN(σ(W^ℓ x^ℓ) − mean), W ~ N(0, 1/fan_in), no
affine parameters — with a linear readout and softmax cross-entropy; the isometry gap −log 𝓘 (eq 3) of a probe batch
(the first training image of each class) is recorded at every layer after every epoch.

The seeds of each activation train as one batched ensemble (numerics.ensembles.train_isometry_mlp_ensemble, member i =
the solo run with seed i); each claim also retrains one member alone — ReLU's last seed — with the solo trainer
(numerics.training.train_isometry_mlp, the same arguments) and compares the losses, gaps, margins and accuracy it
reads: a run-integrity row (verify.papers._integrity); a member off its solo run beyond 1e-6 relative (1e-10
absolute on gaps and margins) leaves the claim inconclusive. Judged on CPU, where that tolerance was measured.

theory/ functions used: theory.isometry_strength (β_σ, Definition 3), theory.isometry (eq 3).
numerics/ functions used: numerics.training.train_isometry_mlp, numerics.ensembles.train_isometry_mlp_ensemble,
numerics.ensembles.member_difference, numerics.datasets.load_dataset.
"""
from __future__ import annotations

import collections
import math

import numpy as np

import theory

from ...api import (activation_label, Context, Evidence, INCONCLUSIVE, judged_with_integrity, kinds as P,
                    lazy_module as _lazy, map_points, member_row, memo, Panel, Parameter, ratio_of_means, Series,
                    shared, sweep_point, t_quantile, Verdict, write_figure)
from ._common import PAPER

training = _lazy("numerics.training")
ensembles = _lazy("numerics.ensembles")
datasets = _lazy("numerics.datasets")
stats = _lazy("scipy.stats")

#: activations spanning β_σ from 1.016 (sigmoid) to 1.418 (exp); step is left out (zero gradient almost everywhere)
ACTIVATIONS = ("sigmoid", "selu", "tanh", "softplus", "sin", "silu", "relu", "gelu", "exp")
LR = 0.01
BATCH = 64
LEVEL = 0.05     # one-sided level of the rank-correlation tests (exact Kendall τ null)


def _settings(ctx: Context) -> dict:
    return ctx.pick(dict(width=128, seeds=3, epochs=6, deep=None),
                    dict(width=256, seeds=5, epochs=10, deep=30),
                    dict(width=1000, seeds=5, epochs=20, deep=30))


def _dataset(ctx: Context) -> str:
    return str(ctx.params.get("dataset") or "digits")


def _data(ctx: Context) -> tuple[str, str]:
    """(note, caption) of the data this run trains on."""
    return datasets.describe_dataset(_dataset(ctx), "CIFAR10", "same task type, far fewer features and images; speeds and losses are "
                    "not the paper's numbers")


@sweep_point
@shared
def _run(dataset: str, act: str, depth: int, width: int, epochs: int, seed: int, device: str):
    return training.train_isometry_mlp(dataset, act, depth, width, BATCH, epochs, lr=LR, seed=seed, device=device)


@sweep_point
@shared
def _run_ensemble(dataset: str, act: str, depth: int, width: int, epochs: int, seeds: tuple, device: str):
    """The seeds of one activation trained as one batched ensemble (numerics.ensembles): member i is
    ``_run(dataset, act, depth, width, epochs, seeds[i], device)``, bit for bit in its training (the module
    docstring of numerics.ensembles gives the measured agreement)."""
    return tuple(ensembles.train_isometry_mlp_ensemble(dataset, act, depth, width, BATCH, epochs, lr=LR,
                                                       seeds=list(seeds), device=device))


#: trained runs by (dataset, activation, depth, width, epochs, seed, device): Figs 7, B.6 and B.7 share their networks
_MEMBERS: collections.OrderedDict = collections.OrderedDict()
_MEMBERS_SIZE = 4096


def _runs(ctx: Context, depth: int, acts=ACTIVATIONS, seeds: int | None = None) -> dict:
    st = dict(_settings(ctx))
    if seeds is not None:
        st["seeds"] = seeds
    ctx.progress(f"training depth-{depth} MLPs: {len(acts)} activations × {st['seeds']} seeds", 0.0)
    data, wanted = _dataset(ctx), [ctx.seed * 100 + s for s in range(st["seeds"])]

    def key(nm, s):
        return (data, nm, depth, st["width"], st["epochs"], s, ctx.device)
    # the seeds of each activation not trained yet, as one batched ensemble: a sweep point (a task of its own on a Dask
    # cluster, verify.parallel.map_points)
    points = [(data, nm, depth, st["width"], st["epochs"], missing, ctx.device) for nm in acts
              for missing in [tuple(s for s in wanted if key(nm, s) not in _MEMBERS)] if missing]
    out = {}
    for p, runs in zip(points, map_points(_run_ensemble, points)):
        for s, r in zip(p[5], runs):
            out[key(p[1], s)] = r
    for nm in acts:
        for s in wanted:
            if key(nm, s) not in out:
                out[key(nm, s)] = _MEMBERS[key(nm, s)]
    for k, r in out.items():
        _MEMBERS[k] = r
        _MEMBERS.move_to_end(k)
    while len(_MEMBERS) > _MEMBERS_SIZE:
        _MEMBERS.popitem(last=False)
    return {nm: [out[key(nm, s)] for s in wanted] for nm in acts}


#: the activation whose ensemble member is retrained alone for the run-integrity row (every activation's ensemble runs
#: the same code; ReLU is one of the claims' activations in every call)
INTEGRITY_ACT = "relu"


def _integrity_rows(ctx: Context, runs: dict, depth: int) -> list[Evidence]:
    """The run-integrity row (verify.papers._integrity) of the ensembles behind ``runs`` (activation → runs, as
    :func:`_runs` returns them): the last seed of ReLU's — the last, so that a bug sparing an ensemble's first member
    shows too — retrained alone by numerics.training.train_isometry_mlp with the same arguments and compared on the
    training loss after every epoch, the isometry gaps at every layer and epoch, the Corollary 2 margins and the test
    accuracy. The solo run is memoised (and cached in the process, :func:`_run`): Figs 7 and B.6 read the same one."""
    st = _settings(ctx)
    act = INTEGRITY_ACT if INTEGRITY_ACT in runs else next(iter(runs))
    member = runs[act][-1]
    args = (_dataset(ctx), act, depth, st["width"], st["epochs"], member.seed, ctx.device)
    solo = memo(("isometry solo run",) + args, lambda: _run(*args))
    return [member_row(member, solo, f"the {act} member of seed {member.seed} (the last of {len(runs[act])} "
                                 f"seeds, depth {depth})", "numerics.training.train_isometry_mlp", ctx.device)]


def _beta(nm: str) -> float:
    """β_σ (Definition 3). The training claims use it only through its order over the activations (rank statistics),
    so a relative error that keeps the order cannot change them: they declare no perturbable quantity."""
    return float(theory.isometry_strength(nm))


def _kendall_row(name: str, x: dict, y: dict, *, expect_negative: bool = True, judged: bool = True,
                 note: str = "") -> Evidence:
    """Kendall's τ between x and y over the activations, with the exact one-sided p-value (scipy, method='exact')."""
    keys = [k for k in x if k in y and math.isfinite(y[k])]
    dropped = [k for k in x if k not in keys]
    if dropped:
        note = (note + "; " if note else "") + "left out (a diverged run or a singular Gram): " + ", ".join(dropped)
    if len(keys) < 4:
        return Evidence(name, samples=len(keys), passed=None,
                        note=f"not judged: only {len(keys)} activations with finite values; " + note)
    res = stats.kendalltau([x[k] for k in keys], [y[k] for k in keys], method="exact",
                           alternative="less" if expect_negative else "greater")
    tau, p = float(res.statistic), float(res.pvalue)
    order = ", ".join(f"{k} (β {x[k]:.3f}: {y[k]:.4g})" for k in sorted(keys, key=lambda k: x[k]))
    return Evidence(name, numeric=tau, bound=LEVEL, observed=p, samples=len(keys), confidence=1 - LEVEL,
                    passed=(p <= LEVEL) if judged else None,
                    note=f"Kendall τ = {tau:.3f} (measured), exact one-sided p = {p:.3g} (observed, against the level "
                         f"{LEVEL:g}; {len(keys)} activations); "
                         + order + (f"; {note}" if note else ""))


def _auc(runs) -> float:
    """Mean training loss over epochs 1..E, averaged over seeds (a diverged run counts as +∞)."""
    vals = [float(np.mean(r.train_loss[1:])) if not r.diverged else math.inf for r in runs]
    return float(np.mean(vals))


# =============================================================================================
# Fig 7 — β_σ correlates with SGD training speed (shallow MLPs)
# =============================================================================================

def _figure7_rows(ctx: Context, figure: dict | None = None) -> tuple[list[Evidence], list[Evidence]]:
    """The rows that decide Fig 7, and the run-integrity row of its depth-10 ensembles."""
    st = _settings(ctx)
    runs = _runs(ctx, 10)
    betas = {nm: _beta(nm) for nm in runs}
    auc = {nm: _auc(rs) for nm, rs in runs.items()}
    rows = [_kendall_row(f"depth 10: larger β_σ ⇒ faster SGD (lower mean training loss over {st['epochs']} epochs)",
                         betas, auc, note=f"{st['seeds']} seeds per activation, width {st['width']}; " + _data(ctx)[0])]
    if st["deep"]:
        deep = _runs(ctx, st["deep"])
        rows.append(_kendall_row(f"depth {st['deep']}: the same correlation (the paper: it does not extend to deeper "
                                 "networks)", betas, {nm: _auc(rs) for nm, rs in deep.items()}, judged=False,
                                 note="informational: the paper reports the absence of a correlation, which a rank "
                                      "test cannot establish"))
    if figure is not None:
        figure.update(runs=runs, betas=betas)
    return rows, _integrity_rows(ctx, runs, 10)


def _figure7_plot(ctx: Context, fig: dict) -> dict:
    st = _settings(ctx)
    epochs = np.arange(st["epochs"] + 1, dtype=float)
    panel = Panel(r"training loss vs epoch (Fig 7), ordered by $\beta_\sigma$", "epoch", "training loss", [], logy=True)
    for nm in sorted(fig["runs"], key=lambda k: fig["betas"][k]):
        rs = [r for r in fig["runs"][nm] if not r.diverged]
        if rs:
            panel.series.append(Series(rf"{activation_label(nm)} ($\beta_\sigma = {fig['betas'][nm]:.3f}$)", epochs,
                                       np.mean([r.train_loss for r in rs], axis=0), "simulation", nm))
    files = write_figure(ctx.artefact_dir, "isometry_figure7", [panel],
                         f"eq (1) MLPs, depth 10, width {st['width']}, batch {BATCH}, SGD lr {LR:g}, mean of "
                         f"{st['seeds']} seeds, budget {ctx.budget}; {_data(ctx)[1]}")
    return {f"figure7_{k}": v for k, v in files.items()}


def positive_figure7(ctx: Context) -> Verdict:
    """The same rank test on a quantity β_σ does predict (Theorem 4): the isometry gap at the last layer of the same
    networks at initialisation decreases with β_σ."""
    runs = _runs(ctx, 10)
    betas = {nm: _beta(nm) for nm in runs}
    gap = {nm: float(np.mean([r.gaps[0, -1] for r in rs])) for nm, rs in runs.items()}
    rows = [_kendall_row("depth 10, at initialisation: larger β_σ ⇒ smaller isometry gap at the last layer", betas, gap)]
    return judged_with_integrity(ctx.claim_id, rows, _integrity_rows(ctx, runs, 10),
                            "the rank test detects the β_σ-order of the initial isometry gap",
                            "the rank test misses even the β_σ-order of the initial isometry gap")


def control_figure7(ctx: Context) -> Verdict:
    """β_σ's order reversed (the predictor c_1²/Var σ = 2 − β_σ): the rank test must reject it."""
    runs = _runs(ctx, 10)
    rev = {nm: 2 - _beta(nm) for nm in runs}
    rows = [_kendall_row("depth 10: larger 2 − β_σ ⇒ faster SGD", rev, {nm: _auc(rs) for nm, rs in runs.items()})]
    return judged_with_integrity(ctx.claim_id, rows, _integrity_rows(ctx, runs, 10),
                            "the reversed order fits (not rejected)", "the reversed order is rejected")


@PAPER.claim(
    "figure7",
    title="Fig 7: β_σ correlates with SGD training speed (shallow MLPs)",
    statement="\"The convergence of SGD is faster for activations with a significantly larger isometry strength β_σ for "
        "shallow MLPs, e.g., with 10 layers or less … this correlation does not extend to deeper networks\" (CIFAR10, "
        "depth 10, width 1000, batch 512, 5 runs).",
    hypotheses="a \"specific range of neural network hyper-parameters\" the paper does not state in full (learning rate)",
    how="Eq (1) MLPs of depth 10 (9 activations, β_σ from 1.016 to 1.418) trained with SGD (lr 0.01, batch 64) on "
        "scikit-learn's digits (a substitute for CIFAR10); speed = the mean training loss over the epochs, averaged over "
        "seeds. The claim holds when Kendall's τ between β_σ and that loss is negative with exact one-sided p ≤ 0.05. "
        "Depth 30 reported (standard budget). A rank statistic: β_σ errors that keep the activations' order cannot "
        "change it, so no quantity is perturbed; the control reverses the order. Run integrity: ReLU's last seed "
        "retrained alone (the solo trainer) must match its ensemble member within 1e-6 relative, else no verdict.",
    negative_control=control_figure7,
    control_description="β_σ's order reversed (2 − β_σ as the predictor) must be rejected",
    uses=("numerics.ensembles.train_isometry_mlp_ensemble", "numerics.training.train_isometry_mlp",
              "numerics.ensembles.member_difference", "theory.isometry_strength", "numerics.datasets.load_dataset"),
    parameters=(Parameter("dataset", P.dataset, "digits", "a registered dataset (digits) or a path to an .npz file"),),
    depends_on=(),
    positive_control=positive_figure7,
    positive_control_description="the same rank test on the initial isometry gap at the last layer, which β_σ predicts "
                                     "(Theorem 4), must hold")
def check_figure7(ctx: Context) -> Verdict:
    fig = {} if ctx.artefact_dir else None
    rows, checks = _figure7_rows(ctx, fig)
    return judged_with_integrity(ctx.claim_id, rows, checks,
                            "at depth 10 the activations with larger β_σ train faster (digits substitute)",
                            "at depth 10, on the digits substitute with SGD lr 0.01, the training speed does not "
                            "increase with β_σ (the paper's CIFAR10 hyper-parameter range is not reproduced)",
                            artefacts=_figure7_plot(ctx, fig) if fig else {})


# =============================================================================================
# Fig B.6 — Corollary 2 and Theorem 4 before and after training
# =============================================================================================

B6_DEPTH = 10


def _b6_rows(ctx: Context, theorem4_order: int = 1) -> list[Evidence]:
    st = _settings(ctx)
    runs = _runs(ctx, B6_DEPTH)
    betas = {nm: _beta(nm) for nm in runs}
    rows = []
    for when, e in (("at initialisation", 0), (f"after {st['epochs']} epochs of SGD", st["epochs"])):
        # Theorem 4: the gap of the last layer falls with β_σ; informational after training (random weights only)
        gap = {nm: float(np.mean([r.gaps[e, -1] for r in rs if not r.diverged] or [math.nan]))
               for nm, rs in runs.items()}
        pred = {nm: theorem4_order * b for nm, b in betas.items()}
        rows.append(_kendall_row(f"Theorem 4 {when}: larger β_σ ⇒ smaller isometry gap at layer {B6_DEPTH}", pred, gap,
                                 judged=(e == 0),
                                 note="" if e == 0 else "informational: Theorem 4 is a statement about random weights"))
        # the decay along depth: gap at the last layer below the gap of the embedded input, for every activation
        ratio = {nm: float(np.mean([r.gaps[e, -1] / r.gaps[e, 0] for r in rs if not r.diverged] or [math.nan]))
                 for nm, rs in runs.items()}
        worst = max(ratio, key=lambda k: ratio[k])
        n = runs[worst][0].probe_size
        floor = {nm: n / (2 * st["width"] * (1 - (2 - b) ** 2)) for nm, b in betas.items()}
        rows.append(Evidence(f"{when}: gap at layer {B6_DEPTH} / gap of the input, every activation", bound=1.0,
                             observed=ratio[worst], samples=st["seeds"], passed=None,
                             note=f"informational: Theorem 4's decay is a mean-field statement; at width {st['width']} "
                                  "the gap settles near the finite-width floor n/(2d(1 − (2 − β_σ)²)), above the input's "
                                  "gap when β_σ is close to 1; largest ratio for "
                                  f"{worst}; " + ", ".join(f"{k} {v:.3g} (floor {floor[k]:.3g})" for k, v in ratio.items())))
    return rows


def _b6_plot(ctx: Context) -> dict:
    st = _settings(ctx)
    runs = _runs(ctx, B6_DEPTH)
    layers = np.arange(B6_DEPTH + 1, dtype=float)
    panels = [Panel("isometry at initialisation (Fig B.6)", r"layer $\ell$", r"$\mathcal{I}(G^\ell)$", []),
              Panel(f"isometry after {st['epochs']} epochs of SGD", r"layer $\ell$", r"$\mathcal{I}(G^\ell)$", [])]
    for nm, rs in runs.items():
        ok = [r for r in rs if not r.diverged]
        if not ok:
            continue
        g = np.array([r.gaps for r in ok])
        label = rf"{activation_label(nm)} ($\beta_\sigma = {_beta(nm):.3f}$)"
        panels[0].series.append(Series(label, layers, np.exp(-g[:, 0]).mean(0), "simulation", nm))
        panels[1].series.append(Series(label, layers, np.exp(-g[:, -1]).mean(0), "simulation", nm))
    files = write_figure(ctx.artefact_dir, "isometry_figure_b6", panels,
                         f"eq (1) MLPs (every hidden layer ends in a layer norm), depth {B6_DEPTH}, width {st['width']}, "
                         f"SGD lr {LR:g}, mean of {st['seeds']} seeds, budget {ctx.budget}; {_data(ctx)[1]}")
    return {f"figure_b6_{k}": v for k, v in files.items()}


def control_figure_b6(ctx: Context) -> Verdict:
    return judged_with_integrity(ctx.claim_id, _b6_rows(ctx, theorem4_order=-1),
                            _integrity_rows(ctx, _runs(ctx, B6_DEPTH), B6_DEPTH),
                            "the reversed β_σ order fits the initial gaps (not rejected)",
                            "the reversed β_σ order is rejected by the initial gaps")


def _corollary2_rows(ctx: Context) -> list[Evidence]:
    """Corollary 2 on the trained and untrained weights: per layer, log 𝓘 after the layer norm − log 𝓘 of the centred
    activations − log(1 + Var(a)/ā²) ≥ 0 (a ratio of the arithmetic to the geometric mean of the squared norms, so it
    holds for any weights; checked on the probe batch at every epoch)."""
    runs = _runs(ctx, B6_DEPTH)
    m = np.concatenate([r.corollary2_margin.ravel() for rs in runs.values() for r in rs if not r.diverged] or
                       [np.array([np.nan])])
    m = m[np.isfinite(m)]   # a singular Gram on both sides of a layer norm has no margin
    count = int(m.size)
    if not count:
        return [Evidence("Corollary 2 at every epoch: no finite margin (every run diverged or every Gram singular)",
                         passed=None)]
    worst = float(m.min())
    return [Evidence(f"Corollary 2 at every epoch: log 𝓘(G̃) − log 𝓘(G) − log(1 + Var(a)/ā²) over every layer norm, "
                     f"{len(runs)} activations", bound=-1e-9, observed=worst, samples=count, passed=worst >= -1e-9,
                     note="min over layers, epochs, activations and seeds (float64 on float32 networks; tolerance "
                          "1e-9)")]


@PAPER.claim(
    "figure-b6",
    title="Fig B.6: Corollary 2 and Theorem 4 for multiple activations, before and after training",
    statement="Isometry tracked at initialisation and after optimisation for several activations validates Corollary 2 "
        "(normalisation increases isometry) and Theorem 4 (the gap decays with depth, faster for larger β_σ).",
    hypotheses="eq (1) MLPs; Theorem 4 is stated for random weights, Corollary 2 for any weights",
    how="The Fig 7 networks (depth 10, 9 activations, digits substitute). At initialisation: the gap at layer 10 below "
        "the input's for every activation, and Kendall's τ between β_σ and the layer-10 gap negative (exact one-sided "
        "p ≤ 0.05). At every epoch: Corollary 2's inequality 𝓘(G̃) ≥ 𝓘(G)(1 + Var(a)/ā²) for every layer norm (any "
        "weights). After training the Theorem 4 rows are reported. Rank statistics: the control reverses β_σ's order. "
        "Run integrity: ReLU's last seed retrained alone (the solo trainer) must match its ensemble member within 1e-6 "
        "relative, else no verdict.",
    negative_control=control_figure_b6,
    control_description="β_σ's order reversed must be rejected by the initial gaps",
    uses=("numerics.ensembles.train_isometry_mlp_ensemble", "numerics.training.train_isometry_mlp",
              "numerics.ensembles.member_difference", "theory.isometry_strength"),
    parameters=(Parameter("dataset", P.dataset, "digits", "a registered dataset (digits) or a path to an .npz file"),),
    depends_on=())
def check_figure_b6(ctx: Context) -> Verdict:
    rows = _b6_rows(ctx) + _corollary2_rows(ctx)
    return judged_with_integrity(ctx.claim_id, rows, _integrity_rows(ctx, _runs(ctx, B6_DEPTH), B6_DEPTH),
                            artefacts=_b6_plot(ctx) if ctx.artefact_dir else {},
                            holds="at initialisation the last layer's isometry gap falls with β_σ (Theorem 4's order); "
                                  "every layer norm increases the isometry by Corollary 2's factor, before and after "
                                  "training",
                            fails="Theorem 4's order or Corollary 2 fails on the trained or untrained networks")


# =============================================================================================
# Fig B.7 — the isometry gap changes little during training
# =============================================================================================

B7_CONTROL_DEPTH = 30
B7_ALLOWANCE = 0.5
B7_LEVEL = 0.05   # one-sided level: "holds" needs every activation's upper bound ≤ ½ (an intersection-union test, each
                  # at this level); "violated" needs some activation's lower bound > ½ (Bonferroni over the activations)


def _b7_seeds(ctx: Context) -> int:
    """Fig B.7 decides with intervals over seeds, so it trains more seeds than Fig 7 (the first ones are Fig 7's runs)."""
    return ctx.pick(6, 10, 10)


def b7_decision(change, start, n_activations: int, allowance: float = B7_ALLOWANCE, level: float = B7_LEVEL) -> dict:
    """Fig B.7's statistic for one activation: R = mean|g_end − g_0| / mean g_0 over seeds (the mean absolute change of
    the last layer's gap, relative to the mean initial gap) with its delta-method standard error
    (:func:`verify.stats.ratio_of_means`). ``passed`` is True when the one-sided (1 − level) upper bound
    R + t·se ≤ allowance, False when the Bonferroni lower bound R − t'·se (level/n_activations) exceeds it, else None
    (this many seeds cannot decide)."""
    r, se, n = ratio_of_means(np.abs(np.asarray(change, dtype=float)), start)
    upper = r + t_quantile(1 - level, n - 1) * se
    lower = r - t_quantile(1 - level / max(n_activations, 1), n - 1) * se
    passed = True if upper <= allowance else False if lower > allowance else None
    return dict(ratio=r, se=se, n=n, upper=upper, lower=lower, passed=passed)


def _b7_rows(ctx: Context, depth: int = B6_DEPTH, figure: dict | None = None, acts=ACTIVATIONS) -> list[Evidence]:
    st = _settings(ctx)
    runs = _runs(ctx, depth, acts=acts, seeds=_b7_seeds(ctx))
    rows = []
    for nm, rs in runs.items():
        ok = [r for r in rs if not r.diverged]
        if len(ok) < len(rs):
            rows.append(Evidence(f"{nm}: {len(rs) - len(ok)} of {len(rs)} training runs diverged (loss not finite)",
                                 observed=len(rs) - len(ok), bound=0, samples=len(rs), passed=False,
                                 note="a diverged run has no trained representation: the gap did not stay stable"))
            continue
        g = np.array([r.gaps for r in ok])            # [seeds, epochs+1, layers]
        start, end = g[:, 0, -1], g[:, -1, -1]
        d = b7_decision(end - start, start, len(runs))
        verdict = {True: "upper bound ≤ ½", False: "lower bound > ½", None: "undecided: the interval contains ½"}
        rows.append(Evidence(f"{nm}: mean |change of the layer-{depth} isometry gap during training| / mean gap at "
                             "initialisation", bound=B7_ALLOWANCE, observed=d["ratio"], samples=d["n"],
                             passed=d["passed"],
                             note=f"gap at layer {depth}: {np.mean(start):.4g} → {np.mean(end):.4g} after "
                                  f"{st['epochs']} epochs (mean over {d['n']} seeds); delta-method se {d['se']:.3g}, "
                                  f"one-sided {1 - B7_LEVEL:.0%} upper bound {d['upper']:.3g}, Bonferroni lower bound "
                                  f"{d['lower']:.3g}: {verdict[d['passed']]}"))
        if figure is not None:
            figure[nm] = g
    return rows


def _b7_verdict(ctx: Context, rows: list[Evidence], holds: str, fails: str, checks: list[Evidence] = (),
                **extra) -> Verdict:
    """Violated if some activation's change exceeds ½ (or a run diverged); inconclusive if some activation is
    undecided; holds only when every activation's upper bound is ≤ ½. Inconclusive whatever the rows if a
    run-integrity row of ``checks`` failed (verify.papers._integrity)."""
    checks = list(checks)
    undecided = [e.name.split(":")[0] for e in rows if e.passed is None]
    if any(e.passed is False for e in checks + rows) or not undecided:
        return judged_with_integrity(ctx.claim_id, rows, checks, holds, fails, **extra)
    return Verdict(ctx.claim_id, INCONCLUSIVE,
                   f"the seeds cannot decide whether training changes the gap by at most half for: "
                   f"{', '.join(undecided)} (the interval contains ½)", rows + checks, **extra)


def _b7_checks(ctx: Context, depth: int = B6_DEPTH) -> list[Evidence]:
    """The run-integrity row of Fig B.7's ensembles at ``depth`` (:func:`_integrity_rows`): its last seed is one Fig 7
    does not train, so the row sees the ensemble Fig B.7 adds."""
    return _integrity_rows(ctx, _runs(ctx, depth, acts=(INTEGRITY_ACT,), seeds=_b7_seeds(ctx)), depth)


def control_figure_b7(ctx: Context) -> Verdict:
    """The same check on depth-30 networks, where (the paper, Section 7) training behaves differently: it must flag."""
    return _b7_verdict(ctx, _b7_rows(ctx, depth=B7_CONTROL_DEPTH), f"at depth {B7_CONTROL_DEPTH} the gap also changes little",
                       f"at depth {B7_CONTROL_DEPTH} training moves the gap by more than the allowance",
                       _b7_checks(ctx, B7_CONTROL_DEPTH))


@PAPER.claim(
    "figure-b7",
    title="Fig B.7: the isometry gap changes little during training",
    statement="\"The isometry gap remains relatively stable\" during training (\"Isometry gap change during training is "
        "relatively small\").",
    hypotheses="eq (1) MLPs trained with SGD",
    how="The Fig 7 networks (depth 10, digits substitute; 6 seeds at quick, 10 at standard and full): per activation, "
        "R = mean |change| of the layer-10 gap between initialisation and the end of training / mean gap at "
        "initialisation, with a delta-method standard error over seeds. Holds when every activation's one-sided 95% "
        "upper bound is ≤ ½ (\"relatively small\": the ½ is this package's reading; an intersection-union test at 5%); "
        "violated when some activation's Bonferroni lower bound exceeds ½ or a run diverged; otherwise inconclusive. "
        "Resolution: the interval's half-width, reported per activation. Control: the same check on depth-30 networks "
        "(where the paper says training behaves differently) must flag. Run integrity: ReLU's last seed (one Fig 7 does "
        "not train) retrained alone (the solo trainer) must match its ensemble member within 1e-6 relative, else no "
        "verdict.",
    negative_control=control_figure_b7,
    control_description="the same check on depth-30 networks must flag a large change",
    uses=("numerics.ensembles.train_isometry_mlp_ensemble", "numerics.training.train_isometry_mlp",
              "numerics.ensembles.member_difference"),
    parameters=(Parameter("dataset", P.dataset, "digits", "a registered dataset (digits) or a path to an .npz file"),),
    depends_on=())
def check_figure_b7(ctx: Context) -> Verdict:
    fig = {} if ctx.artefact_dir else None
    rows = _b7_rows(ctx, figure=fig)
    arte = {}
    if fig:
        st = _settings(ctx)
        layers = np.arange(B6_DEPTH + 1, dtype=float)
        panel = Panel("isometry gap before (solid) and after (dashed) training", r"layer $\ell$",
                      r"$-\log\mathcal{I}(G^\ell)$", [], logy=True)
        for nm, g in fig.items():
            panel.series.append(Series(f"{nm}: initialisation", layers, g[:, 0].mean(0), "simulation", nm))
            panel.series.append(Series(f"{nm}: after {st['epochs']} epochs", layers, g[:, -1].mean(0), "bound", nm))
        files = write_figure(ctx.artefact_dir, "isometry_figure_b7", [panel],
                             f"eq (1) MLPs, depth {B6_DEPTH}, width {st['width']}, SGD lr {LR:g}, mean of "
                             f"{_b7_seeds(ctx)} seeds, budget {ctx.budget}; {_data(ctx)[1]}")
        arte = {f"figure_b7_{k}": v for k, v in files.items()}
    return _b7_verdict(ctx, rows, "training changes the last layer's isometry gap by at most half of its initial value, "
                             "for every activation (every upper bound ≤ ½)",
                       "for some activation training changes the isometry gap by more than half of its initial value",
                       _b7_checks(ctx), artefacts=arte)
