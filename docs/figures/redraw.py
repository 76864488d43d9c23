"""Redraw the docs figures from their CSVs (the same data): ``python docs/figures/redraw.py [--style S] [NAME ...]``.

Every figure here was produced by its claim at the standard budget (``python -m verify.docs``). A CSV of the current
format (``# caption:`` and ``# panel:`` lines) holds everything a redraw needs; a CSV written before those lines
existed gets its axis labels, log scales, labels and caption from ``OLDER`` below (copied from the claims' call
sites: verify/papers/**), and is rewritten in the current format. Only the figure changes, never the numbers — except
where a call site now draws an interval the old CSV lacks and that follows from its data alone (Figs 2 and 4 of
bn-mean-field: the Wilson interval of a test accuracy on the 449 test images of the digits split).
"""
from __future__ import annotations

import argparse
import glob
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from verify.figures import Panel, Series, activation_label, binomial_band, redraw_from_csv  # noqa: E402

N_TEST = 449   # the digits test split (numerics.datasets: 25% of 1797 images)
ACCURACY_BAND = f"95% CI ({N_TEST} test images)"
ACCURACY_NOTE = (f"; error bars: Wilson 95% intervals over the {N_TEST} test images (test-set sampling, not seed "
                 "variation)")


def _axes(panels: list[Panel], spec: list[tuple]) -> None:
    for p, (title, xlabel, ylabel, logx, logy) in zip(panels, spec, strict=True):
        p.title, p.xlabel, p.ylabel, p.logx, p.logy = title, xlabel, ylabel, logx, logy


def _beta_label(s: Series) -> None:
    """"sigmoid (β = 1.016)" → "sigmoid ($\\beta_\\sigma = 1.016$)"."""
    m = re.fullmatch(r"(\S+) \(β = ([0-9.]+)\)", s.label)
    if m:
        s.label = rf"{activation_label(m.group(1))} ($\beta_\sigma = {m.group(2)}$)"


def bn_mean_field_figure1(panels):
    _axes(panels, [("(a) ReLU gradient growth rate vs batch size", "batch size $B$", r"$\lambda_{\max}$", True, False),
                   (r"(b) ReLU, $B = 32$: gradient norm vs depth", r"layer $l$", r"$\log\|\partial L/\partial h^l\|^2$",
                    False, False),
                   (r"(c) BSB1 $\to$ BSB2 transition of $\max(x,0)^\alpha$", "batch size $B$",
                    r"$\alpha_{\mathrm{transition}}$", True, False)])
    for p in panels:
        for s in p.series:
            s.label = {"networks, N = 1000 (95% CI)": r"networks, $N = 1000$",
                       "dense networks, N = 1000 (95% CI)": r"dense networks, $N = 1000$"}.get(s.label, s.label)
    return panels


def bn_mean_field_epsilon(panels):
    _axes(panels, [(r"gradient explosion rate vs BN $\epsilon$ (Fig 4(c, d) theory)", r"BN $\epsilon$",
                    r"$\lambda_{\max}$", True, False),
                   (r"trainable depth $16\xi$ vs BN $\epsilon$", r"BN $\epsilon$", r"$16\xi = 16/\log\lambda_{\max}$",
                    True, True)])
    for p in panels:
        for s in p.series:
            m = re.fullmatch(r"(\w+), B = (\d+): (theory|networks)( \(95% CI\))?", s.label)
            if m:
                s.group = f"{m.group(1)}, $B = {m.group(2)}$"
                s.label = f"{s.group}: {m.group(3)}"
    return panels


def bn_mean_field_figure2(panels):
    _axes(panels, [(r"test accuracy vs depth (Fig 2), $16\xi$ dashed", r"depth $L$", "test accuracy", False, False)])
    for s in panels[0].series:
        m = re.fullmatch(r"B = (\d+): (trained networks|16ξ)", s.label)
        if m:
            s.group = f"$B = {m.group(1)}$"
            if m.group(2) == "16ξ":
                s.label = rf"{s.group}: $16\xi$"
            else:
                s.label = f"{s.group}: trained networks"
                s.lo, s.hi = binomial_band(s.y, N_TEST)
                s.band, s.draw = ACCURACY_BAND, "points"
    return panels


def bn_mean_field_figure4(panels):
    from verify.papers.bn_mean_field_training import EPS0, _xi16
    _axes(panels, [(r"Fig 4: test accuracy at $\frac{1}{2}\cdot 16\xi$ and $2\cdot 16\xi$", r"depth / $16\xi$",
                    "test accuracy", False, False)])
    out = []
    for s in panels[0].series:
        if s.kind == "bound":
            out.append(Series(r"$16\xi$", s.x, s.y, "bound", r"$16\xi$"))
            continue
        m = re.fullmatch(r"\(c\) tanh, depth (\d+): ε = 0 vs ε = ([0-9.]+)", s.label)
        if m:   # one depth, ε = 0 and a large ε: each point at depth / 16ξ of its own ε
            L = int(m.group(1))
            for g, x, a in ((rf"(c) tanh, depth {L}, $\epsilon = 0$", L / _xi16("tanh", EPS0), s.y[0]),
                            (rf"(c) tanh, depth {L}, $\epsilon = {m.group(2)}$", s.x[1], s.y[1])):
                out.append(Series(g, np.array([x]), np.array([a]), "simulation", g, *binomial_band([a], N_TEST),
                                  band=ACCURACY_BAND, draw="points"))
            continue
        tag, rest = s.label.split(" ", 1)
        act, what = rest.rsplit(", ", 1)
        name = activation_label(act)
        what = what.replace("α", r"\alpha").replace("ε_c", r"\,\epsilon_c").replace("ε", r"\epsilon").replace("·", "")
        g = f"{tag} {name}" + ("" if name.startswith("leaky") else f", ${what}$")
        out.append(Series(g, s.x, s.y, "simulation", g, *binomial_band(s.y, N_TEST), band=ACCURACY_BAND,
                          draw="points"))
    panels[0].series = out
    return panels


def isometry_figure_b4(panels):
    for p in panels:
        p.xlabel, p.ylabel, p.logy = r"layer $\ell$", r"$-\log\mathcal{I}(G^\ell)$", True
        for s in p.series:
            m = re.fullmatch(r"(\w+) widths", s.label)
            if m:
                s.label = f"{m.group(1)}: base width 1000"
            m = re.fullmatch(r"(\w+), ×4", s.label)
            if m:
                s.label = rf"{m.group(1)}: widths $\times 4$"
    return panels


def isometry_figure7(panels):
    _axes(panels, [(r"training loss vs epoch (Fig 7), ordered by $\beta_\sigma$", "epoch", "training loss", False,
                    True)])
    for s in panels[0].series:
        _beta_label(s)
    return panels


def isometry_figure_b6(panels):
    for p in panels:
        p.xlabel, p.ylabel = r"layer $\ell$", r"$\mathcal{I}(G^\ell)$"
        for s in p.series:
            _beta_label(s)
    return panels


def isometry_figure_b7(panels):
    _axes(panels, [("isometry gap before (solid) and after (dashed) training", r"layer $\ell$",
                    r"$-\log\mathcal{I}(G^\ell)$", False, True)])
    return panels


_GAP = r"isometry gap $-\log\,\mathcal{I}(G^{\ell})$"


def bn_finite_width_figure1a(panels):
    _axes(panels, [("without BN (eq 6)", r"layer $\ell$", r"$\|G_\ell - I_n\|_2$", False, True),
                   ("mean-field error with and without BN (Fig 1a)", r"layer $\ell$", "Frobenius error", False, True)])
    for s in panels[0].series:
        if s.label == "no BN, linear (95% CI)":
            s.label = r"no BN, linear $\sigma$"
    return panels


def bn_finite_width_figure1b(panels):
    _axes(panels, [("stationary mean-field error vs width (Fig 1b)", "width $d$",
                    r"mean of $\|G_\ell - G_*\|_F$, $40 < \ell < L$", True, True)])
    for s in panels[0].series:
        if s.label == r"BN-MLP, linear $\sigma$ (95% CI)":
            s.label = r"BN-MLP, linear $\sigma$"
    return panels


def bn_mean_field_figure3(panels):
    _axes(panels, [(r"weight norms $\|W^l\|_F$", r"layer $l$", r"$\|W^l\|_F$", False, True),
                   ("pre-activation gradients", r"layer $l$", r"$\|\partial L/\partial h^l\|$", False, True),
                   ("weight gradients", r"layer $l$", r"$\|\partial L/\partial W^l\|_F$", False, True)])
    return panels


def bn_mean_field_figure_a2(panels):
    _axes(panels, [(r"relative gradient norms of $W^l$ (Fig A.2)", r"layer $l$",
                    r"$\|\partial L/\partial W^l\|/\|W^l\|$", False, True),
                   (r"relative gradient norms of $\gamma^l$ (Fig A.2)", r"layer $l$",
                    r"$\|\partial L/\partial\gamma^l\|/\|\gamma^l\|$", False, True)])
    return panels


def isometry_figure_b3(panels):
    _axes(panels, [("isometry gap vs depth: mean-field (solid) vs Xavier (dashed)", r"layer $\ell$",
                    r"$-\log\mathcal{I}(G^\ell)$", False, True)])
    return panels


def isometry_section6(panels):
    _axes(panels, [("Fig 4: centering by $c_0$ vs layer centering", r"layer $\ell$", _GAP, False, True),
                   ("Fig 5: without normalisation", r"layer $\ell$", _GAP, False, True)])
    return panels


#: the CSVs written before the format held axes and captions: (edit, caption — read off the old PNG). The other
#: docs figures were rerun at the standard budget (each under two minutes) and gave the same numbers as their old
#: CSVs (to 1e-10); these six did not (the code moved since: up to 4% apart), so they keep their data and are redrawn.
OLDER = {
    "bn_finite_width_figure1a": (bn_finite_width_figure1a, "n = 5, d = 1000, linear activation, 100 seeds, budget "
                                 "standard; bands: 95% t-intervals over seeds"),
    "bn_finite_width_figure1b": (bn_finite_width_figure1b, "n = 10, depth 600, seeds per width 10, budget standard; "
                                 "band: 95% t-interval over seeds"),
    "bn_mean_field_figure3": (bn_mean_field_figure3, "ReLU BN MLP, width 128, depth 40, B = 32, SGD lr 0.01, seed 0, "
                              "budget standard; scikit-learn digits (a substitute for MNIST)"),
    "bn_mean_field_figure_a2": (bn_mean_field_figure_a2, "ReLU BN MLP, width 128, depth 20, B = 32, SGD lr 0.01, seed "
                                "0, budget standard; scikit-learn digits (a substitute for MNIST) (and an MLP for "
                                "VGG19)"),
    "isometry_figure_b3": (isometry_figure_b3, "n = 10 inputs of correlation 0.5, d = 2000, 12 seeds, budget standard; "
                           "bands: 95% t-intervals (mean-field)"),
    "isometry_section6": (isometry_section6, "n = 10, d = 1000, depth 30, 10 seeds, input correlation 0.5, budget "
                          "standard; solid lines in Fig 4: LN; bands: 95% t-intervals; diverged (not drawn): "
                          "exp/no-normalisation at layer 3, exp/meanfield-normalisation at layer 4, exp/xavier at "
                          "layer 3"),
    "bn_mean_field_figure1": (bn_mean_field_figure1, "exact-in-law layers for (a), 4 batch sizes; dense weights for "
                              "(b), 16 seeds, depth 40; budget standard; bands: 95% t-intervals"),
    "bn_mean_field_epsilon": (bn_mean_field_epsilon, "BN(h) = (h − mean)/sqrt(var + ε); N = 2000, 48 seeds, depth 40, "
                              "budget standard; bands: 95% t-intervals; no curve of 16ξ where λ_max ≤ 1"),
    "bn_mean_field_figure2": (bn_mean_field_figure2, "ReLU BN MLPs, width 128, 500 SGD steps (lr 0.01), 1 seed(s), "
                              "budget standard; scikit-learn digits (a substitute for MNIST)" + ACCURACY_NOTE),
    "bn_mean_field_figure4": (bn_mean_field_figure4, "BN MLPs, width 128, B = 8, 500 SGD steps (lr 0.01), budget "
                              "standard; scikit-learn digits (a substitute for MNIST); each point at depth / 16ξ of "
                              "its own setting" + ACCURACY_NOTE),
    "isometry_figure_b4": (isometry_figure_b4, "ReLU MLPs (eq 1), base width 1000, 200 seeds, budget standard; inputs: "
                           "scikit-learn digits (a substitute for MNIST/CIFAR10)"),
    "isometry_figure7": (isometry_figure7, "eq (1) MLPs, depth 10, width 256, batch 64, SGD lr 0.01, mean of 5 seeds, "
                         "budget standard; scikit-learn digits (a substitute for CIFAR10)"),
    "isometry_figure_b6": (isometry_figure_b6, "eq (1) MLPs (every hidden layer ends in a layer norm), depth 10, width "
                           "256, SGD lr 0.01, mean of 5 seeds, budget standard; scikit-learn digits (a substitute for "
                           "CIFAR10)"),
    "isometry_figure_b7": (isometry_figure_b7, "eq (1) MLPs, depth 10, width 256, SGD lr 0.01, mean of 10 seeds, "
                           "budget standard; scikit-learn digits (a substitute for CIFAR10)"),
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="figure names (default: every CSV here)")
    ap.add_argument("--style", default="default", choices=("default", "neurips", "icml", "iclr"))
    ap.add_argument("--out", default=HERE, help="directory to write into (default: here)")
    args = ap.parse_args(argv)
    for path in sorted(glob.glob(os.path.join(HERE, "*.csv"))):
        name = os.path.basename(path)[:-4]
        if args.names and name not in args.names:
            continue
        with open(path, encoding="utf-8") as f:
            current = f.readline().startswith("# caption:")
        if current:
            redraw_from_csv(path, args.out, style=args.style, formats=("png", "csv"))
        elif name in OLDER:
            edit, caption = OLDER[name]
            redraw_from_csv(path, args.out, style=args.style, caption=caption, edit=edit, formats=("png", "csv"))
        else:
            print(f"{name}: an older CSV without an entry in OLDER: rerun its claim", file=sys.stderr)
            continue
        print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
