"""Figures of the figure claims, drawn like the papers' figures: PNG + PDF + the data as CSV, into ``--artefacts DIR``.

A figure is a list of :class:`Panel`; a panel holds :class:`Series` of three kinds — ``simulation`` (markers and a
line, with a confidence band ``lo``/``hi`` when given), ``theory`` (solid line) and ``bound`` (dashed line). One
colour per activation (or other ``group``) across all panels; labels in matplotlib's mathtext (``$\\mathcal{I}$``,
never a Unicode glyph the font lacks); the setting (n, d, seeds, budget) is the figure's caption line.
"""
from __future__ import annotations

import contextvars
import csv
import io
import os
from dataclasses import dataclass, field

import numpy as np

from .report import write_atomic

#: the figure style of the claim being run (verify.core.FIGURE_STYLES), set by the runner from Context.figure_style
STYLE: contextvars.ContextVar[str] = contextvars.ContextVar("deepinit_figure_style", default="default")

#: one colour per group, stable across panels and figures (matplotlib's tab10, in this order)
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf")
_KNOWN = ("relu", "tanh", "sigmoid", "sin", "exp", "gelu", "selu", "celu", "identity", "softplus")


#: groups that are not activations (theory, reference, the compared methods) — never an activation's colour
_OTHER = ("black", "#7f7f7f", "#8c564b", "#e377c2", "#bcbd22", "#17becf")


def colour(group: str, order: list[str]) -> str:
    if group in _KNOWN:
        return PALETTE[_KNOWN.index(group)]
    others = [g for g in order if g not in _KNOWN]
    return _OTHER[others.index(group) % len(_OTHER)] if group in others else _OTHER[0]


@dataclass
class Series:
    label: str
    x: np.ndarray
    y: np.ndarray
    kind: str = "simulation"  # simulation | theory | bound
    group: str = ""
    lo: np.ndarray | None = None
    hi: np.ndarray | None = None


@dataclass
class Panel:
    title: str
    xlabel: str
    ylabel: str
    series: list[Series] = field(default_factory=list)
    logy: bool = False
    logx: bool = False


#: a panel with more series than this gets its legend beside it, not over the curves
LEGEND_INSIDE_MAX = 8


def write_figure(directory: str, name: str, panels: list[Panel], caption: str) -> dict:
    """Write ``name``.png, .pdf and .csv into ``directory``; returns {"png": …, "pdf": …, "csv": …}."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(directory, exist_ok=True)
    groups = list(dict.fromkeys(s.group for p in panels for s in p.series if s.group))
    crowded = [len(p.series) > LEGEND_INSIDE_MAX for p in panels]   # such a legend goes right of its panel
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels) + 2.4 * sum(crowded), 4.0), squeeze=False)
    for ax, p in zip(axes[0], panels):
        for s in p.series:
            c = colour(s.group, groups) if s.group else "black"
            x, y = np.asarray(s.x, float), np.asarray(s.y, float)
            if p.logy:
                y = np.where(y > 0, y, np.nan)
            if s.kind == "bound":
                ax.plot(x, y, "--", color=c, lw=1.4, label=s.label)
            elif s.kind == "theory":
                ax.plot(x, y, "-", color=c, lw=1.4, alpha=0.9, label=s.label)
            else:
                ax.plot(x, y, "o-", color=c, ms=3, lw=0.8, label=s.label)
                if s.lo is not None and s.hi is not None:
                    lo, hi = np.asarray(s.lo, float), np.asarray(s.hi, float)
                    if p.logy:
                        lo = np.where(lo > 0, lo, np.nan)
                    ax.fill_between(x, lo, hi, color=c, alpha=0.2, lw=0)
        if p.logy:
            ax.set_yscale("log")
        if p.logx:
            ax.set_xscale("log")
            from matplotlib.ticker import NullFormatter
            ax.xaxis.set_minor_formatter(NullFormatter())  # only decade labels: minor labels overlap
        ax.set_title(p.title, fontsize=10)
        ax.set_xlabel(p.xlabel)
        ax.set_ylabel(p.ylabel)
        if len(p.series) > LEGEND_INSIDE_MAX:
            ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
        else:
            ax.legend(fontsize=7, frameon=False)
    fig.text(0.5, 0.01, caption, ha="center", va="bottom", fontsize=8, wrap=True)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    out = {"png": os.path.join(directory, f"{name}.png"), "pdf": os.path.join(directory, f"{name}.pdf"),
           "csv": os.path.join(directory, f"{name}.csv")}
    fig.savefig(out["png"], dpi=150)
    fig.savefig(out["pdf"])
    plt.close(fig)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["panel", "series", "kind", "group", "x", "y", "lo", "hi"])
    for p in panels:
        for s in p.series:
            lo = s.lo if s.lo is not None else [None] * len(s.x)
            hi = s.hi if s.hi is not None else [None] * len(s.x)
            for xi, yi, li, hi_ in zip(s.x, s.y, lo, hi):
                w.writerow([p.title, s.label, s.kind, s.group, float(xi), float(yi),
                            "" if li is None else float(li), "" if hi_ is None else float(hi_)])
    write_atomic(out["csv"], buf.getvalue())
    return out


def mean_band(samples, confidence: float = 0.95):
    """Per column of a [samples, points] array: the mean and its t-interval (lo, hi) — a simulation band."""
    from .stats import mean_ci
    a = np.asarray(samples, dtype=float)
    with np.errstate(invalid="ignore"):  # a column holding ±inf (a singular Gram) has an undefined interval
        out = [mean_ci(a[:, j], confidence)[:2] for j in range(a.shape[1])]
    mean = np.array([m for m, _ in out])
    return mean, np.array([ci[0] for _, ci in out]), np.array([ci[1] for _, ci in out])
