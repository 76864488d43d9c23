"""Figures of the figure claims, drawn like the papers' figures: PNG + PDF + the data as CSV, into ``--artefacts DIR``.

A figure is a list of :class:`Panel`; a panel holds :class:`Series` of three kinds — ``simulation`` (markers; a
confidence band or error bars from ``lo``/``hi``), ``theory`` (solid line) and ``bound`` (dashed line).

From Python::

    from verify.figures import Panel, Series, make_figure, write_figure
    fig = make_figure([Panel("gap vs depth", r"layer $\\ell$", "gap", [Series("ReLU", x, y, lo=lo, hi=hi)])],
                      style="neurips")          # a matplotlib Figure, 5.5 in wide (NeurIPS' text width)
    files = write_figure("out", "gap", panels, "caption text")   # out/gap.png, .pdf, .csv; files["caption"]

Conventions (every style):

* **Size and fonts** — :data:`STYLE` (set by the runner from ``--figure-style``) or ``style=``: ``default`` (sans-serif,
  3.6 × 2.7 in per panel, for screens and the docs) or a venue, ``neurips`` / ``iclr`` (5.5 in, the text width),
  ``icml`` (3.25 in for one panel — a column —, 6.75 in for several — ``figure*``), with tueplots' fonts and font
  sizes (``usetex=False``: no LaTeX is needed; Times-like text, Computer Modern math). At most three panels a row.
* **Colours** — the Okabe–Ito colour-blind-safe palette (:data:`PALETTE`); one colour *and* one marker per group
  (activation, method, batch size) for the whole figure; the common activations keep their colour in every figure
  (ReLU vermillion, tanh blue, sigmoid green, GELU purple, SELU orange, exp sky blue).
* **Labels** — matplotlib mathtext for every symbol (``$\\rho_0$``, ``$c_- = -1$``, ``$\\tanh(2x)$``); activation
  names as the papers write them (:func:`activation_label`); :func:`label_problems` says what is not.
* **No caption in the image** — the caption is the CSV's first line (``# caption: …``) and ``files["caption"]``.
* **Drawing** — a simulation with ``lo``/``hi`` gets a shaded band when it is a curve (more than 8 points) and error
  bars otherwise (per-point estimates); a series with at most two x-values, or ``draw="points"`` (separate settings),
  gets markers and no connecting line; a band or error bar is named in the legend (``Series.band``, default
  "95% CI"). A bound far outside the data (it would leave the data less than ~40% of the axis) is clipped to the data
  range and annotated with its values ("… off scale"). Log axes carry decade labels only (or 1-2-5 / the data's own
  values when they span less than two decades), never minor labels such as "6×10⁰".
* **Legends** — series named ``"<group>: <what>"`` are factored into one entry per group (colour) plus one per style
  (what); a legend shared by every panel, or too long to sit inside a panel, goes below the figure; a legend inside
  a panel sits in the corner that covers no data (the y-axis stretched by at most 1.3 for it), else below too.

The CSV (``panel,series,kind,group,x,y,lo,hi``) follows ``# caption: …`` and one ``# panel: {json}`` line per panel
(axis labels, log scales, the series' draw options), so :func:`redraw_from_csv` redraws a figure from its data alone.
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
import re
from dataclasses import dataclass, field

import numpy as np

from .core import FIGURE_STYLE
from .files import write_atomic

#: the figure style of the claim being run (verify.core.FIGURE_STYLES), set by the runner from Context.figure_style
STYLE = FIGURE_STYLE   # the same ContextVar as verify.core.FIGURE_STYLE (the runner sets it; the model holds it)

#: the figure styles (verify.core.FIGURE_STYLES)
STYLES = ("default", "neurips", "icml", "iclr")

#: Okabe & Ito's colour-blind-safe palette (Okabe and Ito 2008, "Color Universal Design")
OKABE_ITO = {"orange": "#E69F00", "sky blue": "#56B4E9", "bluish green": "#009E73", "yellow": "#F0E442",
             "blue": "#0072B2", "vermillion": "#D55E00", "reddish purple": "#CC79A7", "black": "#000000"}
#: Paul Tol's "muted" qualitative scheme (colour-blind safe; tueplots.constants.color.palettes.paultol_muted without
#: its grey): the colours of a figure with more groups than Okabe–Ito has colours
TOL_MUTED = ("#CC6677", "#332288", "#DDCC77", "#117733", "#88CCEE", "#882255", "#44AA99", "#999933", "#AA4499")
#: every colour a figure uses (its artists' colours; style entries of a factored legend are grey): Okabe–Ito, or
#: Tol's muted scheme past eight groups
PALETTE = tuple(OKABE_ITO.values())
#: the order in which groups without a colour of their own take one (yellow last: it is faint on white)
_ORDER = tuple(OKABE_ITO[k] for k in ("blue", "vermillion", "bluish green", "orange", "reddish purple", "sky blue",
                                      "black", "yellow"))
#: the colour of each common activation in every figure
_PREFERRED = {"relu": OKABE_ITO["vermillion"], "tanh": OKABE_ITO["blue"], "sigmoid": OKABE_ITO["bluish green"],
              "gelu": OKABE_ITO["reddish purple"], "selu": OKABE_ITO["orange"], "exp": OKABE_ITO["sky blue"]}
#: reference groups (limits, fits, mean-field curves) are black when black is free
_REFERENCE = ("mean field", "limit", "fit", "bound", "MP", "ODE", "theory", "reference", r"$16\xi$")
#: one marker per group, in the figure's order of groups
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "h", "<", ">", "p")
#: the neutral colour of a factored legend's style entries (not an artist's colour)
_NEUTRAL = "#4d4d4d"

#: a legend with more entries than this (default style; venues: 6) goes below the figure, not inside its panel
LEGEND_INSIDE_MAX = 8
#: a simulation with lo/hi and at most this many points gets error bars, a longer one a band
ERRORBAR_MAX_POINTS = 8
#: a bound is clipped when the axis it needs would leave the data less than 1/(1 + 2·CLIP_RATIO) of it (~40%)
CLIP_RATIO = 0.75

KINDS = ("simulation", "theory", "bound")
DRAWS = ("auto", "line", "curve", "points", "band", "errorbar")


@dataclass
class Series:
    """One curve or point set of a :class:`Panel`.

    Attributes
    ----------
    label : str
        Its legend entry (mathtext in ``$…$``).
    x : array_like
        The abscissae.
    y : array_like
        The values.
    kind : {"simulation", "theory", "bound"}
        What it is: simulations are drawn with markers (and their band), theory as lines, bounds dashed.
    group : str
        Series of one group (an activation, a width) share a colour.
    lo : array_like or None
        Lower end of a confidence band or of error bars.
    hi : array_like or None
        Upper end of a confidence band or of error bars.
    band : str or None
        The band's name in the legend ("95% CI", "interquartile range"; default "95% CI").
    draw : {"auto", "line", "curve", "points", "band", "errorbar"}
        ``auto`` follows the module's conventions; ``line``: line and markers; ``curve``: a line without markers (a
        histogram) and its band if any; ``points``: separate settings, markers only, error bars if ``lo``/``hi``.

    Examples
    --------
    >>> from verify.api import Series
    >>> s = Series("mean of 8 seeds", [1, 2, 3], [0.5, 0.25, 0.125], "simulation", "relu", lo=[0.4, 0.2, 0.1],
    ...            hi=[0.6, 0.3, 0.15])
    >>> s.kind, s.group
    ('simulation', 'relu')
    """
    label: str
    x: np.ndarray
    y: np.ndarray
    kind: str = "simulation"  # simulation | theory | bound
    group: str = ""
    lo: np.ndarray | None = None
    hi: np.ndarray | None = None
    band: str | None = None
    draw: str = "auto"


@dataclass
class Panel:
    """One panel of a figure: its title, axis labels and :class:`Series`.

    Attributes
    ----------
    title : str
        The panel's title (the paper's figure number first: "Fig 2: …").
    xlabel : str
        The abscissa's label.
    ylabel : str
        The ordinate's label.
    series : list of Series
        What is drawn.
    logy : bool
        A logarithmic ordinate.
    logx : bool
        A logarithmic abscissa.

    Examples
    --------
    >>> from verify.api import Panel, Series
    >>> p = Panel("Fig 1: the gap against depth", "depth", "gap", [Series("theory", [1, 2], [0.5, 0.25], "theory")],
    ...           logy=True)
    >>> len(p.series), p.logy
    (1, True)
    """
    title: str
    xlabel: str
    ylabel: str
    series: list[Series] = field(default_factory=list)
    logy: bool = False
    logx: bool = False


# ---------------------------------------------------------------------------------------------------------------
# names and labels
# ---------------------------------------------------------------------------------------------------------------

_ACTIVATION_NAMES = {"relu": "ReLU", "leaky_relu": "leaky ReLU (slope 0.01)", "gelu": "GELU", "selu": "SELU",
                     "elu": "ELU", "celu": "CELU", "silu": "SiLU", "swish": "swish", "identity": "linear",
                     "linear": "linear", "tanh": "tanh", "sigmoid": "sigmoid", "softplus": "softplus", "sin": "sin",
                     "cos": "cos", "exp": "exp", "erf": "erf", "step": "step"}
_SCALED = re.compile(r"^(tanh|sin|cos|erf|exp|sigmoid|softplus)\((\d*\.?\d+)\s*\*?\s*x\)$")
_LEAKY = re.compile(r"^max\(x,\s*(\d*\.?\d+)\s*\*?\s*x\)$")


def activation_label(name: str) -> str:
    r"""An activation's name as the papers write it, for legends and titles.

    ``relu`` → "ReLU", ``gelu`` → "GELU", ``tanh(2*x)`` → ``$\tanh(2x)$``, ``max(x, 0.2*x)`` → "leaky ReLU (slope
    0.2)", ``he3`` → ``$\mathrm{He}_3$``; anything else as given.

    Parameters
    ----------
    name : str
        A registry name or a formula.

    Returns
    -------
    str
        The label (mathtext in ``$…$`` where it is a formula).

    Examples
    --------
    >>> from verify.api import activation_label
    >>> activation_label("relu"), activation_label("max(x, 0.2*x)")
    ('ReLU', 'leaky ReLU (slope 0.2)')
    """
    if name in _ACTIVATION_NAMES:
        return _ACTIVATION_NAMES[name]
    m = re.fullmatch(r"he(\d+)", name)
    if m:
        return rf"$\mathrm{{He}}_{{{m.group(1)}}}$"
    m = _SCALED.match(name)
    if m:
        f = m.group(1)
        f = rf"\{f}" if f in ("tanh", "sin", "cos", "exp") else rf"\mathrm{{{f}}}"
        return rf"${f}({m.group(2)}x)$"
    m = _LEAKY.match(name)
    if m:
        return f"leaky ReLU (slope {m.group(1)})"
    return name


_LEAD = re.compile(r"^([A-Za-z_][A-Za-z_0-9]*(?:\([^)]*\))?)(?=$|[:,]| \()")


def _pretty(text: str) -> str:
    """A label or group name with a leading activation name written as the papers do ("relu: …" → "ReLU: …")."""
    m = _LEAD.match(text)
    if m:
        name = activation_label(m.group(1))
        if name != m.group(1):
            return name + text[m.end(1):]
    return text


def _math_split(text: str) -> list[tuple[bool, str]]:
    """The text as (is_math, part) pieces, $…$ being math (a \\$ is not a delimiter)."""
    parts, math_on, cur, i = [], False, "", 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text) and text[i + 1] == "$":
            cur += "\\$"
            i += 2
            continue
        if c == "$":
            parts.append((math_on, cur))
            math_on, cur = not math_on, ""
        else:
            cur += c
        i += 1
    parts.append((math_on, cur))
    return [(m, p) for m, p in parts if p]


_GREEKISH = re.compile(r"[\u0370-\u03ff\u1d00-\u1dbf\u2080-\u209f\u2070-\u207f\u2113\u2016\u221a\u00bd\u00b7\u00d7"
                       r"\u2264\u2265\u2192\u2212\u2202]")
_ASCII_GREEK = re.compile(r"(?<![\\A-Za-z])(rho|sigma|alpha|beta|gamma|epsilon|lambda|xi|nu|mu)(?:_?\d|\b)")


def label_problems(text: str) -> list[str]:
    """What keeps a label from one typesetting (mathtext for every symbol): a Greek letter, sub/superscript, ℓ, ‖, √,
    ×, ·, −, ½ outside $…$; an ASCII "rho0" / "sigma"; "c-" / "c+"; "*" for a product (outside math, or "2*x"); an
    unbalanced $. Empty when clean."""
    out = []
    if text.replace("\\$", "").count("$") % 2:
        out.append("unbalanced $")
    for is_math, part in _math_split(text):
        if is_math:
            if re.search(r"[0-9a-zA-Z)]\s*\*\s*[0-9a-zA-Z(\\]", part):
                out.append(f"'*' as a product in ${part}$")
            continue
        for ch in sorted(set(_GREEKISH.findall(part))):
            out.append(f"{ch!r} outside math")
        for m in _ASCII_GREEK.finditer(part):
            out.append(f"ASCII {m.group(0)!r}")
        if re.search(r"\bc\s*[-+]\s*=", part) or re.search(r"\bc[-+](?=[\s,)]|$)", part):
            out.append("'c-'/'c+' instead of $c_-$/$c_+$")
        if "*" in part:
            out.append("'*' outside math")
        if re.search(r"\S_[A-Za-z0-9{]|\S\^[A-Za-z0-9{(]", part):
            out.append("a sub/superscript outside math")
    return out


# ---------------------------------------------------------------------------------------------------------------
# styles
# ---------------------------------------------------------------------------------------------------------------

def _grid(n: int) -> tuple[int, int]:
    """(rows, columns) of n panels: at most three a row, four as 2 × 2."""
    if n <= 3:
        return 1, max(n, 1)
    if n == 4:
        return 2, 2
    return math.ceil(n / 3), 3


_COMMON_RC = {"pdf.fonttype": 42, "ps.fonttype": 42, "legend.frameon": False, "axes.linewidth": 0.6,
              "xtick.major.width": 0.6, "ytick.major.width": 0.6, "xtick.minor.width": 0.45,
              "ytick.minor.width": 0.45, "xtick.major.size": 3.0, "ytick.major.size": 3.0, "xtick.minor.size": 1.8,
              "ytick.minor.size": 1.8, "legend.handlelength": 1.8, "legend.borderaxespad": 0.3,
              "legend.columnspacing": 1.2, "legend.labelspacing": 0.3, "axes.titlepad": 4.0,
              "figure.constrained_layout.h_pad": 0.03, "figure.constrained_layout.w_pad": 0.03,
              "savefig.pad_inches": 0.015}


@dataclass
class _Spec:
    name: str
    rc: dict
    size: tuple[float, float]
    dpi: int
    lw: float
    ms: float
    inside_max: int


def style_spec(style: str, n_panels: int = 1) -> _Spec:
    """The rcParams, size (inches), PNG dpi and line/marker sizes of ``style`` for a figure of ``n_panels``."""
    if style not in STYLES:
        raise ValueError(f"figure style {style!r}: one of {', '.join(STYLES)}")
    from cycler import cycler
    nrows, ncols = _grid(n_panels)
    ratio = {1: 0.62, 2: 0.72, 3: 0.95}[ncols]
    rc = dict(_COMMON_RC)
    rc["axes.prop_cycle"] = cycler(color=list(_ORDER))
    if style == "default":
        rc.update({"font.family": "sans-serif", "font.size": 9, "axes.titlesize": 9, "axes.labelsize": 9,
                   "xtick.labelsize": 8, "ytick.labelsize": 8, "legend.fontsize": 7.5, "mathtext.fontset": "dejavusans"})
        return _Spec(style, rc, (3.6 * ncols, 3.6 * 0.75 * nrows), 200, 1.2, 3.5, LEGEND_INSIDE_MAX)
    from tueplots import bundles, figsizes
    if style == "icml":
        column = "half" if ncols == 1 else "full"
        b = bundles.icml2024(column=column, nrows=nrows, ncols=ncols, usetex=False)
        size = getattr(figsizes, f"icml2024_{column}")(nrows=nrows, ncols=ncols, height_to_width_ratio=ratio)
    else:
        b = getattr(bundles, f"{style}2024")(nrows=nrows, ncols=ncols, usetex=False)
        size = getattr(figsizes, f"{style}2024")(nrows=nrows, ncols=ncols, height_to_width_ratio=ratio)
    b = dict(b)
    # Times where installed, else STIX (a Times design that matplotlib ships): never a missing-font fallback
    b["font.serif"] = [*b.get("font.serif", []), "STIXGeneral", "DejaVu Serif"]
    b.pop("figure.constrained_layout.use", None)
    b.pop("figure.autolayout", None)
    rc.update(b)
    rc["figure.figsize"] = size["figure.figsize"]
    return _Spec(style, rc, tuple(size["figure.figsize"]), 300, 1.0, 2.8, 6)


def column_width(style: str, n_panels: int = 1) -> float:
    """The figure width (inches) of ``style``: the venue's column (or text) width from tueplots."""
    return style_spec(style, n_panels).size[0]


# ---------------------------------------------------------------------------------------------------------------
# colours
# ---------------------------------------------------------------------------------------------------------------

def group_styles(groups: list[str]) -> dict[str, tuple[str, str]]:
    """(colour, marker) of each group of a figure, in the figure's order of groups: up to eight groups, Okabe–Ito's
    colours — the common activations keep their own colour, reference groups take black, the rest the next free
    colour —; nine and more, Tol's muted scheme in order (past nine, colours repeat, markers do not)."""
    if len(groups) > len(OKABE_ITO):   # nine and more: Tol's nine muted colours, then colours repeat
        return {g: (TOL_MUTED[i % len(TOL_MUTED)], MARKERS[i % len(MARKERS)]) for i, g in enumerate(groups)}
    taken: dict[str, str] = {}
    for g in groups:
        if g in _PREFERRED and _PREFERRED[g] not in taken.values():
            taken[g] = _PREFERRED[g]
    for g in groups:
        if g not in taken and g in _REFERENCE and OKABE_ITO["black"] not in taken.values():
            taken[g] = OKABE_ITO["black"]
    free = [c for c in _ORDER if c not in taken.values()]
    k = 0
    for g in groups:
        if g not in taken:
            taken[g] = free[k] if k < len(free) else _ORDER[(k - len(free)) % len(_ORDER)]
            k += 1
    return {g: (taken[g], MARKERS[i % len(MARKERS)]) for i, g in enumerate(groups)}


def colour(group: str, order: list[str]) -> str:
    """The colour of ``group`` in a figure whose groups are ``order``."""
    return group_styles(list(dict.fromkeys([*order, group])))[group][0]


# ---------------------------------------------------------------------------------------------------------------
# drawing
# ---------------------------------------------------------------------------------------------------------------

@dataclass
class _Drawn:
    series: Series
    draw: str              # theory | bound | vline | line | points | band | errorbar
    markers: bool          # line / band: a marker at every point
    colour: str
    marker: str
    handle: object
    label: str             # the legend text (display label, band named)
    band_text: str | None


def _arr(v) -> np.ndarray | None:
    return None if v is None else np.asarray(v, dtype=float)


#: a line or band of more points than this is drawn without markers
MARKERS_MAX_POINTS = 40


def _resolve_draw(s: Series) -> tuple[str, bool]:
    """(how, markers) a series is drawn — see the module's conventions."""
    x = _arr(s.x)
    distinct = len(set(np.round(x[np.isfinite(x)], 12))) if x.size else 0
    if s.kind in ("theory", "bound"):
        return ("vline" if distinct == 1 and x.size >= 1 else s.kind), False
    if s.draw not in DRAWS:
        raise ValueError(f"Series.draw {s.draw!r}: one of {', '.join(DRAWS)}")
    has_ci = s.lo is not None and s.hi is not None
    dense = x.size <= MARKERS_MAX_POINTS
    if s.draw == "curve":
        return ("band" if has_ci else "line"), False
    if s.draw in ("points", "errorbar"):
        return ("errorbar" if has_ci else "points"), True
    if s.draw == "band":
        return ("band" if has_ci else "line"), dense
    if s.draw == "line":
        return "line", dense
    if distinct <= 2:
        return ("errorbar" if has_ci else "points"), True
    if has_ci:
        return ("errorbar", True) if x.size <= ERRORBAR_MAX_POINTS else ("band", dense)
    return "line", dense


def _outline(c: str, spec: _Spec) -> dict:
    """Okabe–Ito's yellow is faint on white: its lines and markers get a thin dark outline."""
    if c != OKABE_ITO["yellow"]:
        return {}
    from matplotlib import patheffects as pe
    return {"path_effects": [pe.withStroke(linewidth=spec.lw + 0.7, foreground="#8a7d00"), pe.Normal()]}


def _band_legend(label: str, band: str | None) -> str:
    if not band:
        return label
    return label if band.lower() in label.lower() else f"{label}, {band}"


def _handle(draw: str, c: str, m: str, spec: _Spec, markers: bool = True):
    """A legend handle drawn like a series of this draw style (not added to any axes)."""
    from matplotlib.collections import LineCollection
    from matplotlib.container import ErrorbarContainer
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    fx = _outline(c, spec)
    mk = dict(marker=m, ms=spec.ms, mew=0) if markers else {}
    mk.update(fx)
    if draw == "theory":
        return Line2D([], [], color=c, lw=spec.lw, ls="-", **fx)
    if draw in ("bound", "vline"):
        return Line2D([], [], color=c, lw=spec.lw, ls="--", **fx)
    if draw == "line":
        return Line2D([], [], color=c, lw=0.8 * spec.lw, ls="-", **mk)
    if draw == "points":
        return Line2D([], [], color=c, ls="None", marker=m, ms=1.2 * spec.ms, mew=0, **fx)
    if draw == "band":
        return (Patch(facecolor=c, alpha=0.25, lw=0), Line2D([], [], color=c, lw=0.8 * spec.lw, **mk))
    if draw == "errorbar":
        line = Line2D([], [], color=c, ls="None", marker=m, ms=1.2 * spec.ms, mew=0)
        bars = LineCollection([], colors=c, linewidths=0.8 * spec.lw)
        return ErrorbarContainer((line, (), (bars,)), has_xerr=False, has_yerr=True)
    raise ValueError(draw)


def _draw(ax, p: Panel, s: Series, c: str, m: str, spec: _Spec, edges: bool = False) -> _Drawn:
    if s.kind not in KINDS:
        raise ValueError(f"Series.kind {s.kind!r}: one of {', '.join(KINDS)}")
    draw, markers = _resolve_draw(s)
    x, y = _arr(s.x), _arr(s.y)
    lo, hi = _arr(s.lo), _arr(s.hi)
    with np.errstate(invalid="ignore"):
        y = np.where(np.isfinite(y), y, np.nan)
        if p.logy:
            y = np.where(y > 0, y, np.nan)
            if lo is not None:   # an interval reaching 0 or below runs off the bottom of a log axis, without a gap
                pos = np.concatenate([y[np.isfinite(y)], lo[np.isfinite(lo) & (lo > 0)]])
                floor = pos.min() / 3 if pos.size else np.nan
                lo = np.where(lo > 0, lo, np.where(np.isfinite(y), floor, np.nan))
    band_text = (s.band or "95% CI") if draw in ("band", "errorbar") else None
    fx = _outline(c, spec)
    mk = dict(marker=m, ms=spec.ms, mew=0) if markers else {}
    if draw == "theory":
        ax.plot(x, y, "-", color=c, lw=spec.lw, **fx)
    elif draw == "bound":
        ax.plot(x, y, "--", color=c, lw=spec.lw, **fx)
    elif draw == "vline":
        ax.axvline(float(x[np.isfinite(x)][0]), color=c, lw=spec.lw, ls="--", **fx)
    elif draw == "line":
        ax.plot(x, y, "-", color=c, lw=0.8 * spec.lw, **mk, **fx)
    elif draw == "points":
        ax.plot(x, y, ls="None", color=c, marker=m, ms=1.2 * spec.ms, mew=0, **fx)
    elif draw == "band":
        ax.fill_between(x, lo, hi, color=c, alpha=0.22, lw=0)
        if edges:   # overlapping bands: each keeps its outline
            ax.plot(x, lo, "-", color=c, lw=0.35 * spec.lw, alpha=0.8)
            ax.plot(x, hi, "-", color=c, lw=0.35 * spec.lw, alpha=0.8)
        ax.plot(x, y, "-", color=c, lw=0.8 * spec.lw, **mk, **fx)
    elif draw == "errorbar":
        with np.errstate(invalid="ignore"):
            down = np.where(np.isfinite(lo), np.maximum(y - lo, 0), 0)
            up = np.where(np.isfinite(hi), np.maximum(hi - y, 0), 0)
        ax.errorbar(x, y, yerr=[down, up], ls="None", color=c, marker=m, ms=1.2 * spec.ms, mew=0,
                    elinewidth=0.8 * spec.lw, capsize=1.6 * spec.ms / 2.8, capthick=0.8 * spec.lw)
    label = _band_legend(_pretty(s.label), band_text)
    return _Drawn(s, draw, markers, c, m, _handle(draw, c, m, spec, markers), label, band_text)


def _overlap(bands: list[Series]) -> bool:
    """Whether two bands cover a common stretch (each then keeps its outline)."""
    for i, a in enumerate(bands):
        for b in bands[i + 1:]:
            xa, xb = _arr(a.x), _arr(b.x)
            if xa.shape != xb.shape or not np.allclose(xa, xb):
                return True
            with np.errstate(invalid="ignore"):
                both = (np.minimum(_arr(a.hi), _arr(b.hi)) - np.maximum(_arr(a.lo), _arr(b.lo))) > 0
            if np.mean(both) > 0.5:
                return True
    return False


def _fmt_value(v: float) -> str:
    """A value for an annotation, in mathtext: $5.0\\times10^{30}$, $0.35$."""
    if v == 0 or not math.isfinite(v):
        return f"${v:g}$"
    e = math.floor(math.log10(abs(v)))
    if -3 <= e <= 4:
        return f"${v:.3g}$"
    mant = v / 10 ** e
    return rf"$10^{{{e}}}$" if abs(mant - 1) < 0.05 else rf"${mant:.1f}\times10^{{{e}}}$"


def _finite(vals, log: bool) -> np.ndarray:
    a = np.concatenate([np.ravel(np.asarray(v, dtype=float)) for v in vals]) if vals else np.array([])
    a = a[np.isfinite(a)]
    return a[a > 0] if log else a


def _clip_bounds(ax, p: Panel, drawn: list[_Drawn], spec: _Spec, bound_name: str) -> list[_Drawn]:
    """Clip the y-axis to the data when a bound would squash it, and say where the bound is; the bounds that are
    then nowhere on the axes (the legend does not list them: the annotation says where they are)."""
    data, bounds = [], []
    for d in drawn:
        s = d.series
        if d.draw == "vline":
            continue
        (bounds if s.kind == "bound" else data).append(s.y)
        if s.kind != "bound" and d.draw in ("band", "errorbar"):
            data += [s.lo, s.hi]
    data, bvals = _finite(data, p.logy), _finite(bounds, p.logy)
    if not data.size or not bvals.size:
        return []
    t = np.log10 if p.logy else (lambda v: v)
    dlo, dhi = float(t(data.min())), float(t(data.max()))
    span = max(dhi - dlo, 1.0 if p.logy else (abs(dhi) or 1.0) * 1e-6)
    blo, bhi = float(t(bvals.min())), float(t(bvals.max()))
    top, bottom = bhi - dhi > 2 * CLIP_RATIO * span, dlo - blo > 2 * CLIP_RATIO * span
    if not (top or bottom):
        return []
    lo_v = dlo if bottom else min(dlo, blo)
    hi_v = dhi if top else max(dhi, bhi)
    full = hi_v - lo_v
    lo_v -= (0.30 if bottom else 0.05) * full
    hi_v += (0.30 if top else 0.05) * full
    inv = (lambda v: 10 ** v) if p.logy else (lambda v: v)
    ax.set_ylim(inv(lo_v), inv(hi_v))
    small = max(spec.rc.get("legend.fontsize", 7) - 0.5, 5.5)
    for side, off in (("top", top), ("bottom", bottom)):
        if not off:
            continue
        vals = bvals[t(bvals) > hi_v] if side == "top" else bvals[t(bvals) < lo_v]
        if not vals.size:
            continue
        a, b = float(vals.min()), float(vals.max())
        rng = _fmt_value(a) if _fmt_value(a) == _fmt_value(b) else f"{_fmt_value(a)} to {_fmt_value(b)}"
        text = f"{bound_name}: {rng}, off scale"
        y0, y1 = (1.0, 0.93) if side == "top" else (0.0, 0.07)
        ax.annotate(text, xy=(0.5, y0), xycoords="axes fraction", xytext=(0.5, y1), textcoords="axes fraction",
                    ha="center", va="top" if side == "top" else "bottom", fontsize=small, color=_NEUTRAL,
                    arrowprops=dict(arrowstyle="-|>", color=_NEUTRAL, lw=0.6, shrinkA=0, shrinkB=0,
                                    mutation_scale=6))
    hidden = []
    for d in drawn:
        if d.series.kind == "bound" and d.draw != "vline":
            ys = _finite([d.series.y], p.logy)
            if ys.size and not np.any((t(ys) >= lo_v) & (t(ys) <= hi_v)):
                hidden.append(d)
    return hidden


def _plain(v, _pos=None) -> str:
    return f"{v:g}"


def _log_ticks(axis, lo: float, hi: float, data_values: np.ndarray | None) -> None:
    """Decade labels only; 1-2-5 (or the data's own values) when fewer than two decades show; no minor labels."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogFormatterSciNotation, LogLocator, NullFormatter
    lo, hi = min(lo, hi), max(lo, hi)
    if not (lo > 0 and math.isfinite(hi)):
        return
    decades = math.floor(math.log10(hi) + 1e-9) - math.ceil(math.log10(lo) - 1e-9) + 1
    axis.set_minor_formatter(NullFormatter())
    if data_values is not None and 3 <= data_values.size <= 8:
        r = np.diff(np.log10(data_values))
        if r.min() >= math.log10(1.5) and r.max() <= 3 * r.min() + 1e-9:
            ticks = list(data_values)
            if np.allclose(r, r[0], rtol=1e-6):   # a geometric grid (widths 4, 8, 16, …): continue it over the axis
                step = 10 ** r[0]
                while ticks[0] / step >= lo * (1 - 1e-9):
                    ticks.insert(0, ticks[0] / step)
                while ticks[-1] * step <= hi * (1 + 1e-9):
                    ticks.append(ticks[-1] * step)
            axis.set_major_locator(FixedLocator(ticks))
            axis.set_major_formatter(FuncFormatter(_plain))
            return
    if decades >= 2:
        axis.set_major_locator(LogLocator(base=10, numticks=7))
        axis.set_major_formatter(LogFormatterSciNotation(labelOnlyBase=True))
    else:
        axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0), numticks=12))
        axis.set_major_formatter(FuncFormatter(_plain))
    axis.set_minor_locator(LogLocator(base=10, subs=tuple(range(2, 10)), numticks=12))


def _text_width(text: str, size: float, fig=None) -> float:
    """Width (inches) of a label at ``size`` points: measured on ``fig`` (its fonts, mathtext included) when given,
    else about 0.52 em a character."""
    if fig is not None:
        t = fig.text(0, 0, text, fontsize=size)
        try:
            return t.get_window_extent(fig.canvas.get_renderer()).width / fig.dpi
        finally:
            t.remove()
    n = 0
    for is_math, part in _math_split(text):
        if is_math:
            part = re.sub(r"\\[A-Za-z]+", "x", part)
            part = re.sub(r"[{}_^]", "", part)
        n += len(part)
    return n * 0.52 * size / 72


def _wrap(text: str, width_in: float, size: float, fig=None) -> str:
    """Break a title into lines that fit ``width_in`` (never inside $…$)."""
    if _text_width(text, size, fig) <= width_in:
        return text
    words, lines, cur = [], [], ""
    for is_math, part in _math_split(text):
        if is_math:
            words.append(("$" + part + "$", True))
        else:
            for i, w in enumerate(part.split(" ")):
                words.append((w, False) if i == 0 else (" " + w, False))
    tokens, buf = [], ""
    for w, is_math in words:           # glue math to its neighbours: split only at spaces outside math
        if not is_math and w.startswith(" "):
            tokens.append(buf)
            buf = w[1:]
        else:
            buf += w
    tokens.append(buf)
    for tok in [t for t in tokens if t]:
        trial = f"{cur} {tok}" if cur else tok
        if cur and _text_width(trial, size, fig) > width_in:
            lines.append(cur)
            cur = tok
        else:
            cur = trial
    lines.append(cur)
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------------------
# legends
# ---------------------------------------------------------------------------------------------------------------

def _rest(s: Series) -> str | None:
    """What a series label says besides its group ("relu: mean field" → "mean field"), None when it does not start
    with the group."""
    for prefix in dict.fromkeys((s.group, _pretty(s.group))):
        if not prefix:
            continue
        if s.label == prefix:
            return ""
        if s.label.startswith(prefix + ": "):
            return s.label[len(prefix) + 2:]
    return None


def _factored(drawn: list[_Drawn], spec: _Spec):
    """One entry per group (its colour and marker) and one per style ("mean field", "Theorem 4 bound") when the
    series are "<group>: <what>" and each <what> has one look (a group of one series otherwise named keeps its own
    entry); None when that does not shorten or clarify the legend."""
    by_group: dict[str, list[_Drawn]] = {}
    for d in drawn:
        by_group.setdefault(d.series.group, []).append(d)
    styles: dict[str, tuple] = {}
    factored, single = [], []
    for g, ds in by_group.items():
        rests = [_rest(d.series) for d in ds]
        if None in rests:
            if len({(d.label, d.draw) for d in ds}) > 1:
                return None
            single.append(ds[0])
            continue
        for r, d in zip(rests, ds):
            key = (d.draw, d.band_text, d.markers)
            if styles.setdefault(r, key) != key:
                return None
        factored.append(g)
    looks = [k for r, k in styles.items() if r]
    if len(set(looks)) < len(looks):
        return None   # two "what"s drawn alike: only their own labels tell them apart
    n_styles = len([r for r in styles if r])
    if not n_styles or len(factored) < 2 or (len(factored) + n_styles + len(single) > len(drawn) and n_styles > 1):
        return None   # one group, or no fewer entries: the series' own labels say more
    from matplotlib.lines import Line2D
    entries = []
    for g in factored:
        d = by_group[g][0]
        if len(by_group[g]) == 1 and _rest(d.series) == "":   # named by its group alone: drawn as it is
            entries.append((d.handle, d.label))
            continue
        entries.append((Line2D([], [], color=d.colour, marker=d.marker, ms=spec.ms, mew=0, lw=spec.lw,
                               **_outline(d.colour, spec)), _pretty(g)))
    for r, (draw, band, markers) in styles.items():
        if r:
            entries.append((_handle(draw, _NEUTRAL, "o", spec, markers), _band_legend(_pretty(r), band)))
    entries += [(d.handle, d.label) for d in single]
    return entries


def _entries(drawn: list[_Drawn], spec: _Spec) -> list[tuple[object, str]]:
    """One entry per series; when three or more share one interval (all error bars "95% CI (…)"), it is named once,
    in an entry of its own."""
    banded = [d for d in drawn if d.band_text]
    common = (len(banded) >= 3 and len({(d.draw, d.band_text) for d in banded}) == 1
              and all(d.label.endswith(", " + d.band_text) for d in banded))
    out, seen = [], set()
    for d in drawn:
        label = d.label[:-len(", " + d.band_text)] if common and d.band_text else d.label
        key = (label, d.draw, d.colour)
        if key not in seen:
            seen.add(key)
            out.append((d.handle, label))
    if common:
        out.append((_handle(banded[0].draw, _NEUTRAL, "o", spec, banded[0].markers), banded[0].band_text))
    return out


def _ncols(labels: list[str], width_in: float, size: float, fig=None) -> int:
    w = max(_text_width(lb, size, fig) for lb in labels) + 4.5 * size / 72   # handle, padding, column gap
    return max(1, min(len(labels), int(width_in // w)))


def _legends(fig, axes, panels: list[Panel], drawn: list[list[_Drawn]], spec: _Spec) -> None:
    """Where the legends go: one below the figure when the panels share their entries or a panel has too many to sit
    inside it, else one inside each panel (see _make_room)."""
    from matplotlib.legend_handler import HandlerTuple
    hmap = {tuple: HandlerTuple(ndivide=1, pad=0.0)}
    flat = [d for ds in drawn for d in ds]
    if not flat:
        return
    fact = _factored(flat, spec)
    per_panel = [_entries(ds, spec) for ds in drawn]
    shared = None
    if fact is not None and (len(panels) > 1 or len(fact) > spec.inside_max):
        shared = fact
    elif fact is not None:
        leg = axes[0].legend(*zip(*fact), loc="best", handler_map=hmap)
        leg.deepinit_handles = {lb: h for h, lb in fact}
        return
    elif len(panels) > 1 and all([lb for _, lb in e] == [lb for _, lb in per_panel[0]] for e in per_panel):
        shared = per_panel[0]
    elif len(panels) == 1 and len(per_panel[0]) > spec.inside_max:
        shared = per_panel[0]
    if shared is not None:
        _figure_legend(fig, *zip(*shared), spec)
        return
    crowded = []
    for ax, ds, e in zip(axes, drawn, per_panel):
        e = _factored(ds, spec) or e
        if not e:
            continue
        if len(e) <= spec.inside_max:
            leg = ax.legend(*zip(*e), loc="best", handler_map=hmap)
            leg.deepinit_handles = {lb: h for h, lb in e}   # the originals, for a move below the figure
        else:
            crowded += [x for x in e if x[1] not in {lb for _, lb in crowded}]
    if crowded:
        _figure_legend(fig, *zip(*crowded), spec)


def _figure_legend(fig, handles, labels, spec: _Spec) -> None:
    """One legend below the panels, in as many columns as fit; the figure grows by its height."""
    from matplotlib.legend_handler import HandlerTuple
    entries = dict(getattr(fig, "deepinit_below", {}))
    for h, lb in zip(handles, labels):
        entries.setdefault(lb, h)
    fig.deepinit_below = entries
    for leg in list(fig.legends):   # a second call: one legend holding both calls' entries
        leg.remove()
    size = float(spec.rc.get("legend.fontsize", 7))
    ncol = _ncols(list(entries), fig.get_size_inches()[0], size, fig)
    rows = math.ceil(len(entries) / ncol)
    w, h = fig.get_size_inches()
    fig.set_size_inches(w, spec.size[1] + rows * size * 1.45 / 72 + 0.06)
    fig.legend(list(entries.values()), list(entries), loc="outside lower center", ncols=ncol,
               handler_map={tuple: HandlerTuple(ndivide=1, pad=0.0)})


# ---------------------------------------------------------------------------------------------------------------
# the figure
# ---------------------------------------------------------------------------------------------------------------

def _integer_abscissae(p: Panel) -> bool:
    """Every finite x of the panel's series is an integer (layers, degrees, depths): its ticks are integers too."""
    xs = [_arr(s.x) for s in p.series]
    xs = [x[np.isfinite(x)] for x in xs if x.size]
    return bool(xs) and all(np.all(x == np.round(x)) for x in xs)


def make_figure(panels: list[Panel], *, style: str | None = None):
    """The figure of ``panels`` as a :class:`matplotlib.figure.Figure` (no pyplot state; display it in a notebook,
    save it with ``fig.savefig``). ``style``: ``default``, ``neurips``, ``icml`` or ``iclr`` (default: :data:`STYLE`,
    which the runner sets from ``--figure-style``). Its width is the style's (for a venue: tueplots' column or text
    width); its height grows by the rows of a legend placed below the panels. No caption is drawn."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    if not panels:
        raise ValueError("make_figure: no panels")
    spec = style_spec(style or STYLE.get(), len(panels))
    nrows, ncols = _grid(len(panels))
    with matplotlib.rc_context(spec.rc):
        fig = Figure(figsize=spec.size, dpi=spec.dpi, layout="constrained")
        FigureCanvasAgg(fig)
        fig.deepinit_style = spec.name
        axes = list(fig.subplots(nrows, ncols, squeeze=False).ravel())
        for ax in axes[len(panels):]:
            fig.delaxes(ax)
        axes = axes[:len(panels)]
        groups = list(dict.fromkeys(s.group for p in panels for s in p.series))
        look = group_styles(groups)
        drawn = []
        for ax, p in zip(axes, panels):
            bands = [s for s in p.series if _resolve_draw(s)[0] == "band"]
            ds = [_draw(ax, p, s, *look[s.group], spec, edges=len(bands) > 1 and _overlap(bands)) for s in p.series]
            drawn.append(ds)
            if p.logy:
                ax.set_yscale("log")
            if p.logx:
                ax.set_xscale("log")
        for k, (ax, p, ds) in enumerate(zip(axes, panels, drawn)):
            rests = {_rest(d.series) for d in ds if d.series.kind == "bound"}
            bounds = [d for d in ds if d.series.kind == "bound"]
            if len(rests) == 1 and None not in rests and "" not in rests:
                name = _pretty(rests.pop())
            elif len(bounds) == 1:
                name = _pretty(bounds[0].series.label)
            else:
                name = "bounds"
            hidden = _clip_bounds(ax, p, ds, spec, name)
            drawn[k] = [d for d in ds if not any(d is h for h in hidden)]   # not drawn: not in the legend
            if p.logx:
                xs = [_arr(d.series.x) for d in ds if d.series.kind == "simulation"]
                xv = np.unique(np.concatenate(xs)) if xs else None
                xv = xv[np.isfinite(xv) & (xv > 0)] if xv is not None else None
                _log_ticks(ax.xaxis, *ax.get_xlim(), xv)
            if p.logy:
                _log_ticks(ax.yaxis, *ax.get_ylim(), None)
            if not p.logx and _integer_abscissae(p):
                from matplotlib.ticker import MaxNLocator
                ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            avail = spec.size[0] / ncols - 5.5 * float(spec.rc["ytick.labelsize"]) / 72   # the axes' own width
            ax.set_title(_wrap(p.title, avail, float(spec.rc["axes.titlesize"]), fig))
            ax.set_xlabel(p.xlabel)
            ax.set_ylabel(p.ylabel)
        _legends(fig, axes, panels, drawn, spec)
        _make_room(fig, axes, panels, spec)
    return fig


def _points_in_axes(ax) -> np.ndarray:
    """The drawn data of ``ax`` as points in axes fractions (lines densified, bands and error bars by their
    vertices); a reference line drawn across the whole axes (axvline, axhline) counts too: a legend must not hide
    it."""
    pts = []
    to_axes = ax.transAxes.inverted()
    for line in ax.get_lines():
        xy = line.get_xydata()
        if len(xy) == 0:
            continue
        xy = to_axes.transform(line.get_transform().transform(xy))
        if len(xy) > 1 and len(xy) < 400:
            t = np.linspace(0, len(xy) - 1, 8 * (len(xy) - 1) + 1)
            xy = np.column_stack([np.interp(t, np.arange(len(xy)), xy[:, 0]), np.interp(t, np.arange(len(xy)), xy[:, 1])])
        pts.append(xy)
    for coll in ax.collections:
        tr = coll.get_transform()
        for path in coll.get_paths():
            if len(path.vertices):
                pts.append(to_axes.transform(tr.transform(path.vertices)))
    if not pts:
        return np.zeros((0, 2))
    a = np.concatenate(pts)
    a = a[np.all(np.isfinite(a), axis=1)]
    return a[(a[:, 0] >= 0) & (a[:, 0] <= 1) & (a[:, 1] >= -0.01) & (a[:, 1] <= 1.01)]


_LOC = {("upper", "left"): "upper left", ("upper", "right"): "upper right", ("lower", "left"): "lower left",
        ("lower", "right"): "lower right"}


def _make_room(fig, axes, panels: list[Panel], spec: _Spec) -> None:
    """Where a legend inside a panel covers data, move it to the corner that needs the least stretch of the y-axis
    for the data to clear it (at most 1.3 times the range); where every corner needs more, or the legend is about as
    large as its panel, its entries go below the figure."""
    fig.canvas.draw()
    pad = 0.03
    below = []
    for ax, p in zip(axes, panels):
        leg = ax.get_legend()
        if leg is None:
            continue
        bb = leg.get_window_extent().transformed(ax.transAxes.inverted())
        if bb.x0 >= 1 or bb.x1 <= 0 or bb.y0 >= 1 or bb.y1 <= 0:
            continue   # beside the panel
        pts = _points_in_axes(ax)
        inside = ((pts[:, 0] > bb.x0 - 0.01) & (pts[:, 0] < bb.x1 + 0.01) & (pts[:, 1] > bb.y0 - 0.01)
                  & (pts[:, 1] < bb.y1 + 0.01))
        w, h = bb.width, bb.height
        if w > 0.92 or h > 0.8:   # wider or taller than its panel
            below.append(leg)
            continue
        if not inside.any():
            continue
        best = None
        for vert in ("upper", "lower"):
            for horiz in ("right", "left"):
                x0 = 1 - w - 0.02 if horiz == "right" else 0.02
                under = pts[(pts[:, 0] > x0 - 0.01) & (pts[:, 0] < x0 + w + 0.01)]
                if not under.size:
                    k = 1.0
                elif vert == "upper":
                    k = max(1.0, under[:, 1].max() / max(1 - h - pad - 0.02, 1e-3))
                else:
                    k = max(1.0, (1 - under[:, 1].min()) / max(1 - h - pad - 0.02, 1e-3))
                if best is None or k < best[0] - 1e-9:
                    best = (k, vert, horiz)
        k, vert, horiz = best
        if k > 1.3:
            below.append(leg)
            continue
        if k > 1.0:
            lo, hi = ax.get_ylim()
            fwd = np.log10 if p.logy else (lambda v: v)
            inv = (lambda v: 10 ** v) if p.logy else (lambda v: v)
            a, b = fwd(lo), fwd(hi)
            if vert == "upper":
                ax.set_ylim(lo, inv(a + (b - a) * k))
            else:
                ax.set_ylim(inv(b - (b - a) * k), hi)
            if p.logy:
                _log_ticks(ax.yaxis, *ax.get_ylim(), None)
            if not p.logx and _integer_abscissae(p):
                from matplotlib.ticker import MaxNLocator
                ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        loc = _LOC[(vert, horiz)]
        if hasattr(leg, "set_loc"):
            leg.set_loc(loc)
        else:  # matplotlib < 3.8
            leg._loc = leg.codes[loc]
    if below:   # no corner is free: these legends' entries go below the figure, together
        entries = {}
        for leg in below:
            for h, t in zip(leg.legend_handles if hasattr(leg, "legend_handles") else leg.legendHandles,
                            [t.get_text() for t in leg.get_texts()]):
                entries.setdefault(t, getattr(leg, "deepinit_handles", {}).get(t, h))
            leg.remove()
        _figure_legend(fig, list(entries.values()), list(entries), spec)


def figure_texts(fig) -> list[str]:
    """Every text a figure shows (titles, axis labels, tick labels, legends, annotations)."""
    from matplotlib.text import Text
    fig.canvas.draw()
    return [t.get_text() for t in fig.findobj(Text) if t.get_visible() and t.get_text()]


def _caption_line(caption: str) -> str:
    return " ".join(str(caption).split())


def _csv_text(panels: list[Panel], caption: str) -> str:
    buf = io.StringIO()
    buf.write(f"# caption: {_caption_line(caption)}\n")
    for p in panels:
        meta = {"title": p.title, "xlabel": p.xlabel, "ylabel": p.ylabel, "logx": bool(p.logx), "logy": bool(p.logy),
                "series": [{k: v for k, v in (("band", s.band), ("draw", s.draw)) if v not in (None, "auto")}
                           for s in p.series]}
        buf.write("# panel: " + json.dumps(meta, ensure_ascii=False) + "\n")
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["panel", "series", "kind", "group", "x", "y", "lo", "hi"])
    for p in panels:
        for s in p.series:
            lo = s.lo if s.lo is not None else [None] * len(s.x)
            hi = s.hi if s.hi is not None else [None] * len(s.x)
            for xi, yi, li, hi_ in zip(s.x, s.y, lo, hi):
                w.writerow([p.title, s.label, s.kind, s.group, float(xi), float(yi),
                            "" if li is None else float(li), "" if hi_ is None else float(hi_)])
    return buf.getvalue()


def write_figure(directory: str, name: str, panels: list[Panel], caption: str, *, style: str | None = None,
                 formats: tuple[str, ...] | None = None) -> dict:
    """Write a figure as ``name``.png, .pdf and .csv into ``directory`` (and, for a venue's style, ``name``.tex).

    The drawing is :func:`make_figure`'s (the run's figure style unless ``style`` is given); the CSV holds every
    series' data and the caption, from which ``render`` redraws the figure. A claim usually calls
    :func:`verify.api.figure`, which prefixes the keys for the verdict's artefacts.

    Parameters
    ----------
    directory : str
        Where to write (created if needed).
    name : str
        The files' stem.
    panels : list of Panel
        The panels.
    caption : str
        What was run; only in the CSV (and returned).
    style : {"default", "neurips", "icml", "iclr"}, optional
        The figure style; default the run's (``--figure-style``).
    formats : tuple of str, optional
        Which of "png", "pdf", "csv", "tex" to write. Default: png, pdf and csv, and tex with a venue's style
        (``neurips``, ``icml``, ``iclr``): a ``figure`` environment to ``\\input`` — the PDF at the text width (or
        the column's, ``figure*`` for ICML's two-column figures), the caption in LaTeX, ``\\label{fig:<name>}``.

    Returns
    -------
    dict
        ``{"png": path, "pdf": path, "csv": path, "caption": caption}`` (the formats written; ``"tex"`` too).

    Examples
    --------
    >>> import os, tempfile
    >>> from verify.api import Panel, Series, write_figure
    >>> with tempfile.TemporaryDirectory() as d:
    ...     files = write_figure(d, "example", [Panel("t", "x", "y", [Series("s", [0, 1], [1, 2])])], "two points",
    ...                          formats=("csv",))
    ...     sorted(files), os.path.basename(files["csv"])
    (['caption', 'csv'], 'example.csv')
    """
    os.makedirs(directory, exist_ok=True)
    venue = (style or STYLE.get()) != "default"
    if formats is None:
        formats = ("png", "pdf", "csv") + (("tex",) if venue else ())
    out = {k: os.path.join(directory, f"{name}.{k}") for k in formats}
    if "png" in out or "pdf" in out:
        import matplotlib
        fig = make_figure(panels, style=style)
        spec = style_spec(fig.deepinit_style, len(panels))
        with matplotlib.rc_context(spec.rc):
            if "png" in out:
                fig.savefig(out["png"], dpi=spec.dpi, metadata={"Software": None})
            if "pdf" in out:   # TrueType fonts (venues reject Type 3); fontTools warns about the fonts' old dates
                import logging
                log = logging.getLogger("fontTools.ttLib.tables._h_e_a_d")
                level = log.level
                log.setLevel(logging.ERROR)
                try:
                    fig.savefig(out["pdf"], metadata={"CreationDate": None, "Creator": None, "Producer": None})
                finally:
                    log.setLevel(level)
    if "csv" in out:
        write_atomic(out["csv"], _csv_text(panels, caption))
    if "tex" in out:
        write_atomic(out["tex"], latex_figure(name, caption, len(panels), style or STYLE.get()))
    out["caption"] = _caption_line(caption)
    return out


def latex_figure(name: str, caption: str, n_panels: int = 1, style: str = "neurips") -> str:
    """A ``figure`` environment for ``name``.pdf: at the text width (ICML: a column's ``figure`` for one panel, the
    page's ``figure*`` for several, as :func:`style_spec` sizes them), the caption in LaTeX (``verify.latex.to_latex``)
    and ``\\label{fig:<name>}``; to ``\\input`` from the directory that holds the PDF (``\\graphicspath``).

    Examples
    --------
    >>> print(latex_figure("isometry_figure3", "n = 30, d = 1000; band: 95% t-interval over seeds"))
    % deepinit-verify figure, to \\input. Needs: \\usepackage{graphicx,amsmath}
    \\begin{figure}[htbp]
    \\centering
    \\includegraphics[width=\\linewidth]{isometry_figure3.pdf}
    \\caption{$n = 30$, $d = 1000$; band: 95\\% t-interval over seeds.}\\label{fig:isometry_figure3}
    \\end{figure}
    <BLANKLINE>
    """
    from .latex import to_latex
    env = "figure*" if style == "icml" and n_panels > 1 else "figure"
    text = _caption_line(caption).strip()
    text = re.sub(r"[,;]?\s*\bbudget \w+(?=[,;.]|$)", "", text).strip(" ,;")  # the run's budget: the CSV's, not the reader's
    text = to_latex(text if text.endswith(".") else text + ".")
    return "\n".join(["% deepinit-verify figure, to \\input. Needs: \\usepackage{graphicx,amsmath}",
                      f"\\begin{{{env}}}[htbp]", "\\centering",
                      f"\\includegraphics[width=\\linewidth]{{{name}.pdf}}",
                      f"\\caption{{{text}}}\\label{{fig:{name}}}", f"\\end{{{env}}}", ""])


# ---------------------------------------------------------------------------------------------------------------
# from the CSV
# ---------------------------------------------------------------------------------------------------------------

def _num(v: str) -> float:
    return float(v) if v not in ("", None) else float("nan")


def read_figure_csv(path: str) -> tuple[list[Panel], str]:
    """The panels and caption a figure's CSV holds. A CSV of the current format (``# panel:`` lines) gives them
    exactly; an older one (no such lines) gives titles and data only: axis labels empty, linear axes; a panel title
    repeated by the next panel is told apart by a series repeating."""
    caption, metas, body = "", [], []
    with open(path, encoding="utf-8") as f:
        for line in f.read().splitlines():
            if line.startswith("# caption:"):
                caption = line[len("# caption:"):].strip()
            elif line.startswith("# panel:"):
                metas.append(json.loads(line[len("# panel:"):]))
            elif not line.startswith("#"):
                body.append(line)
    runs: list[tuple[tuple, list[dict]]] = []
    for r in csv.DictReader(body):
        key = (r["panel"], r["series"], r["kind"], r["group"])
        if runs and runs[-1][0] == key:
            runs[-1][1].append(r)
        else:
            runs.append((key, [r]))

    def series_of(key, rows, meta=None) -> Series:
        lo = np.array([_num(r["lo"]) for r in rows])
        hi = np.array([_num(r["hi"]) for r in rows])
        has = bool(np.isfinite(lo).any() or np.isfinite(hi).any())
        meta = meta or {}
        return Series(key[1], np.array([_num(r["x"]) for r in rows]), np.array([_num(r["y"]) for r in rows]), key[2],
                      key[3], lo if has else None, hi if has else None, meta.get("band"), meta.get("draw", "auto"))

    panels: list[Panel] = []
    if metas:
        i = 0
        for m in metas:
            p = Panel(m["title"], m.get("xlabel", ""), m.get("ylabel", ""), [], bool(m.get("logy")),
                      bool(m.get("logx")))
            for sm in m.get("series", []):
                key, rows = runs[i]
                p.series.append(series_of(key, rows, sm))
                i += 1
            panels.append(p)
        return panels, caption
    for key, rows in runs:
        cur = panels[-1] if panels else None
        if cur is None or cur.title != key[0] or any((s.label, s.kind, s.group) == key[1:] for s in cur.series):
            cur = Panel(key[0], "", "", [])
            panels.append(cur)
        cur.series.append(series_of(key, rows))
    return panels, caption


def redraw_from_csv(csv_path: str, directory: str | None = None, *, name: str | None = None, style: str | None = None,
                    caption: str | None = None, edit=None, formats: tuple[str, ...] = ("png", "pdf", "csv")) -> dict:
    """Redraw a figure from its CSV (the same data): write ``name`` (default: the CSV's stem) into ``directory``
    (default: the CSV's) with :func:`write_figure`. ``edit(panels) -> panels`` may set what an older CSV lacks (axis
    labels, log scales, labels); ``caption`` replaces the CSV's. The CSV is rewritten in the current format when it
    is among ``formats``."""
    panels, cap = read_figure_csv(csv_path)
    if edit is not None:
        panels = edit(panels) or panels
    directory = directory or os.path.dirname(os.path.abspath(csv_path))
    name = name or os.path.splitext(os.path.basename(csv_path))[0]
    return write_figure(directory, name, panels, cap if caption is None else caption, style=style, formats=formats)


# ---------------------------------------------------------------------------------------------------------------
# bands
# ---------------------------------------------------------------------------------------------------------------

def mean_band(samples, confidence: float = 0.95):
    """The mean of each column of a [samples, points] array and its Student-t interval: a simulation's band.

    Parameters
    ----------
    samples : array_like
        ``[samples, points]``: one row per seed.
    confidence : float
        The interval's level.

    Returns
    -------
    mean : numpy.ndarray
        The column means.
    lo : numpy.ndarray
        The lower ends.
    hi : numpy.ndarray
        The upper ends.

    Examples
    --------
    >>> from verify.api import mean_band
    >>> mean, lo, hi = mean_band([[1.0, 2.0], [3.0, 2.0]])
    >>> mean.tolist(), bool(lo[0] < 2 < hi[0]), float(hi[1] - lo[1])
    ([2.0, 2.0], True, 0.0)
    """
    from .stats import mean_ci
    a = np.asarray(samples, dtype=float)
    with np.errstate(invalid="ignore"):  # a column holding ±inf (a singular Gram) has an undefined interval
        out = [mean_ci(a[:, j], confidence)[:2] for j in range(a.shape[1])]
    mean = np.array([m for m, _ in out])
    return mean, np.array([ci[0] for _, ci in out]), np.array([ci[1] for _, ci in out])


def binomial_band(p, n: int, confidence: float = 0.95):
    """The Wilson score interval of proportions ``p`` observed on ``n`` trials each (a test accuracy on n test images).

    Parameters
    ----------
    p : array_like
        The observed proportions.
    n : int
        The trials behind each proportion.
    confidence : float
        The interval's level.

    Returns
    -------
    lo : numpy.ndarray
        The lower ends (in [0, 1]).
    hi : numpy.ndarray
        The upper ends (in [0, 1]).

    Examples
    --------
    >>> from verify.api import binomial_band
    >>> lo, hi = binomial_band([0.5, 1.0], 100)
    >>> [round(float(v), 3) for v in lo], [round(float(v), 3) for v in hi]
    ([0.404, 0.963], [0.596, 1.0])
    """
    from scipy.stats import norm
    p = np.asarray(p, dtype=float)
    z = float(norm.ppf(0.5 + confidence / 2))
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * np.sqrt(np.clip(p * (1 - p), 0, None) / n + z * z / (4 * n * n)) / den
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


def density_band(density, n: int, bin_width, confidence: float = 0.95):
    """The pointwise interval of a histogram density: each bin's Wilson interval (:func:`binomial_band`) over its width.

    Parameters
    ----------
    density : array_like
        ``np.histogram(..., density=True)`` of ``n`` samples.
    n : int
        The samples.
    bin_width : float or array_like
        The bins' widths.
    confidence : float
        The interval's level.

    Returns
    -------
    lo : numpy.ndarray
        The lower ends.
    hi : numpy.ndarray
        The upper ends.

    Examples
    --------
    >>> from verify.api import density_band
    >>> lo, hi = density_band([0.5, 0.5], 1000, 1.0)
    >>> bool(lo[0] < 0.5 < hi[0])
    True
    """
    h = np.asarray(bin_width, dtype=float)
    lo, hi = binomial_band(np.asarray(density, dtype=float) * h, n, confidence)
    return lo / h, hi / h
