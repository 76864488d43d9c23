"""verify.figures: venue sizes (tueplots), no caption in the image, one typesetting, off-scale bounds, markers,
bands in the legend, the colour-blind palette, make_figure's Figure, and the CSV round trip (redraw_from_csv)."""
from __future__ import annotations

import glob
import os

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from verify import figures as F  # noqa: E402
from verify.figures import Panel, Series, make_figure, write_figure  # noqa: E402

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "figures")


def _gap_panels(bound_scale: float = 5e30) -> list[Panel]:
    """Fig 3's shape: three activations, a simulation with a band, a theory line, a bound far above the data."""
    x = np.arange(31.0)
    series = []
    for act, r in (("relu", 0.9), ("tanh", 0.95), ("sigmoid", 0.99)):
        y = 0.6 * r ** x + 0.02
        series += [Series(f"{act}: $d = 5000$", x, y, "simulation", act, 0.9 * y, 1.1 * y),
                   Series(f"{act}: mean field", x, 0.6 * r ** (1.5 * x), "theory", act),
                   Series(f"{act}: Theorem 4 bound", x, bound_scale * r ** x, "bound", act)]
    return [Panel("isometry gap vs depth (Fig 3)", r"layer $\ell$", r"$-\log\,\mathcal{I}(G^{\ell})$", series,
                  logy=True)]


def _texts(fig, ticks: bool = False) -> list[str]:
    """Titles, axis labels, legend entries and annotations (tick labels too with ``ticks``)."""
    fig.canvas.draw()
    out = [t.get_text() for t in fig.texts]
    for leg in fig.legends:
        out += [t.get_text() for t in leg.get_texts()]
    for ax in fig.axes:
        out += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()] + [t.get_text() for t in ax.texts]
        if ax.get_legend() is not None:
            out += [t.get_text() for t in ax.get_legend().get_texts()]
        if ticks:
            out += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
    return [t for t in out if t]


def test_make_figure_returns_a_figure():
    fig = make_figure(_gap_panels())
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 1 and fig.axes[0].get_yscale() == "log"


@pytest.mark.parametrize("style,n,expected", [
    ("neurips", 1, ("neurips2024", {})), ("neurips", 3, ("neurips2024", {})), ("iclr", 2, ("iclr2024", {})),
    ("icml", 1, ("icml2024_half", {})), ("icml", 2, ("icml2024_full", {}))])
def test_venue_width_is_tueplots_column_width(style, n, expected):
    from tueplots import figsizes
    width = getattr(figsizes, expected[0])()["figure.figsize"][0]
    fig = make_figure(_gap_panels() * n, style=style)
    assert fig.get_size_inches()[0] == pytest.approx(width, abs=1e-9)
    assert F.column_width(style, n) == pytest.approx(width)


def test_neurips_png_is_the_column_width(tmp_path):
    from PIL import Image
    from tueplots import figsizes
    files = write_figure(str(tmp_path), "f", _gap_panels(), "n = 3, budget quick", style="neurips")
    with Image.open(files["png"]) as im:
        w_px, dpi = im.size[0], im.info["dpi"][0]
    assert w_px / dpi == pytest.approx(figsizes.neurips2024()["figure.figsize"][0], abs=0.01)   # 5.5 in


def test_the_style_contextvar_picks_the_size():
    token = F.STYLE.set("icml")
    try:
        assert make_figure(_gap_panels()).get_size_inches()[0] == pytest.approx(3.25)
    finally:
        F.STYLE.reset(token)
    assert make_figure(_gap_panels()).get_size_inches()[0] == pytest.approx(3.6)   # the default style


def test_unknown_style_is_refused():
    with pytest.raises(ValueError, match="figure style"):
        make_figure(_gap_panels(), style="nips")


def test_no_caption_in_the_image_it_goes_to_the_csv_and_the_artefacts(tmp_path):
    from verify.commands.run import artefacts_in as _artefacts_in
    from verify.core import Verdict
    caption = "n = 100, d = 5000, 10 seeds, budget quick; dashed: the Theorem 4 bound"
    files = write_figure(str(tmp_path), "fig3", _gap_panels(), caption)
    assert all(os.path.isfile(files[k]) for k in ("png", "pdf", "csv")) and files["caption"] == caption
    texts = _texts(make_figure(_gap_panels()), ticks=True)
    assert not [t for t in texts if "budget" in t or "seeds" in t or caption in t]
    lines = (tmp_path / "fig3.csv").read_text().splitlines()
    assert lines[0] == f"# caption: {caption}"
    header = next(ln for ln in lines if not ln.startswith("#"))
    assert header == "panel,series,kind,group,x,y,lo,hi"
    # the call sites' {f"figure1_{k}": v} puts the caption among the artefacts; the CLI still finds the files
    arte = {f"figure3_{k}": v for k, v in files.items()}
    assert arte["figure3_caption"] == caption
    assert _artefacts_in(Verdict("isometry:figure3", "holds", "", artefacts=arte), str(tmp_path))


@pytest.mark.parametrize("text", ["ρ0 = 0.3", "c- = -1", "rho0 = -0.5", "final-layer density of ρ_T",
                                  "(a) tanh(2*x), α = 2", r"$\tanh(2*x)$", "weight norms ‖W^l‖", "16ξ", "$x"])
def test_label_problems_catches_the_reported_labels(text):
    assert F.label_problems(text), text


@pytest.mark.parametrize("text", [r"$\rho_0 = 0.3$", r"$c_- = -1$", r"final-layer density of $\rho_T$",
                                  r"(a) $\tanh(2x)$, $\alpha = 2$", r"BN: $\|G_\ell - G_*\|_F$", "ReLU: mean field",
                                  "leaky ReLU (slope 0.2)", "Marchenko–Pastur, $y = n/d = 0.04$", "95% CI"])
def test_label_problems_passes_mathtext(text):
    assert F.label_problems(text) == []


@pytest.mark.parametrize("name,label", [("relu", "ReLU"), ("gelu", "GELU"), ("selu", "SELU"), ("tanh", "tanh"),
                                        ("leaky_relu", "leaky ReLU (slope 0.01)"), ("tanh(2*x)", r"$\tanh(2x)$"),
                                        ("max(x, 0.2*x)", "leaky ReLU (slope 0.2)"), ("he3", r"$\mathrm{He}_{3}$")])
def test_activation_names_as_papers_write_them(name, label):
    assert F.activation_label(name) == label


def _docs_csvs() -> list[str]:
    return sorted(glob.glob(os.path.join(DOCS, "*.csv")))


def test_every_docs_figure_label_is_mathtext_clean():
    """Titles, axis labels, series labels and group names of every docs figure, as the figure shows them."""
    bad = []
    for path in _docs_csvs():
        panels, caption = F.read_figure_csv(path)
        assert caption, f"{path}: no '# caption:' line"
        for p in panels:
            assert p.xlabel and p.ylabel, f"{path}: a panel without axis labels (an older CSV)"
            texts = [p.title, p.xlabel, p.ylabel] + [F._pretty(s.label) for s in p.series] \
                + [F._pretty(s.group) for s in p.series] + [s.band for s in p.series if s.band]
            bad += [(os.path.basename(path), t, F.label_problems(t)) for t in texts if F.label_problems(t)]
    assert not bad, bad


def test_a_real_figure_claim_has_clean_labels_and_its_caption_in_the_artefacts(tmp_path):
    from verify.core import Context
    from verify.registry import resolve
    from verify.runner import run_claim
    v = run_claim(resolve("covariance-sde:figure1"), Context(budget="quick", artefact_dir=str(tmp_path)),
                  with_control=False)
    assert "budget quick" in v.artefacts["figure1_caption"]
    panels, caption = F.read_figure_csv(str(tmp_path / "covariance_sde_figure1.csv"))
    assert caption == v.artefacts["figure1_caption"]
    fig = make_figure(panels)
    texts = _texts(fig)
    assert not [t for t in texts if F.label_problems(t)], [(t, F.label_problems(t)) for t in texts]
    assert not [t for t in texts if "budget" in t]
    # the density panel has its band now, named in the legend
    dens = panels[1]
    assert all(s.lo is not None for s in dens.series if s.kind == "simulation")
    assert any("95% CI" in t for t in texts) and any("interquartile" in t for t in texts)


def test_a_bound_far_above_the_data_is_clipped_and_annotated():
    fig = make_figure(_gap_panels(5e30))
    ax = fig.axes[0]
    lo, hi = ax.get_ylim()
    assert hi < 100                                          # not 1e30
    data_lo, data_hi = 0.6 * 0.9 ** (1.5 * 30), 0.66         # the data: theory's lowest to the top of the band
    span = np.log10(data_hi / data_lo) / np.log10(hi / lo)
    assert span > 0.6, span                                  # the data span most of the axis
    notes = [t.get_text() for t in ax.texts]
    assert any("off scale" in t and "Theorem 4 bound" in t for t in notes), notes
    # the legend lists what is drawn: the bound is not on the axes, so no dashed "Theorem 4 bound" entry
    legend = [t for t in _texts(fig) if t not in notes and "off scale" not in t]
    assert "mean field" in legend and not any("Theorem 4 bound" in t for t in legend), legend


def test_a_bound_partly_on_the_axes_keeps_its_legend_entry():
    fig = make_figure(_gap_panels(2.0))
    assert any("Theorem 4 bound" in t for t in _texts(fig))


def test_a_bound_far_above_the_data_on_a_linear_axis():
    x = np.linspace(0, 1, 20)
    fig = make_figure([Panel("p", "$x$", "$y$", [Series("data", x, np.sin(3 * x), "simulation", "a"),
                                                Series("bound", x, 1e6 + x, "bound", "b")])])
    ax = fig.axes[0]
    assert ax.get_ylim()[1] < 10 and any("off scale" in t.get_text() for t in ax.texts)


def test_a_bound_near_the_data_is_not_clipped():
    fig = make_figure(_gap_panels(2.0))
    assert fig.axes[0].get_ylim()[1] > 2.0 and not fig.axes[0].texts


def test_two_x_values_or_separate_settings_get_markers_only():
    panels = [Panel("Fig 4", r"depth / $16\xi$", "test accuracy", [
        Series("(a) tanh", [0.5, 2.0], [0.8, 0.1], "simulation", "a"),
        Series("(b) ReLU", [0.4, 0.6, 1.9], [0.7, 0.6, 0.1], "simulation", "b", draw="points"),
        Series(r"$16\xi$", [1.0, 1.0], [0.0, 1.0], "bound", r"$16\xi$")])]
    ax = make_figure(panels).axes[0]
    sims = [ln for ln in ax.get_lines() if ln.get_marker() not in (None, "None", "")]
    assert len(sims) == 2 and all(ln.get_linestyle() == "None" for ln in sims)
    assert ax.get_lines()[-1].get_linestyle() == "--"           # the bound: a dashed vertical line


def test_per_point_estimates_get_error_bars_and_curves_a_band_each_named_in_the_legend():
    x = np.array([4.0, 8, 16, 32, 64])
    panels = [Panel("KS", r"width $n$", "distance", [
        Series("network vs SDE", x, 1 / np.sqrt(x), "simulation", "network", 0.8 / np.sqrt(x), 1.2 / np.sqrt(x),
               band="99.9% DKW bars")], logx=True, logy=True),
        Panel("paths", r"$t$", r"$\rho_t$", [
            Series("network: median", np.linspace(0, 1, 11), np.linspace(0.3, 0.5, 11), "simulation", "network",
                   np.linspace(0.3, 0.1, 11), np.linspace(0.3, 0.8, 11), band="interquartile range")])]
    fig = make_figure(panels)
    assert any(isinstance(c, ErrorbarContainer) for c in fig.axes[0].containers)
    assert fig.axes[1].collections                                # the band
    texts = _texts(fig)
    assert any("99.9% DKW bars" in t for t in texts) and any("interquartile range" in t for t in texts)


def test_log_axes_have_clean_labels():
    x = np.array([4.0, 8, 16, 32, 64])
    fig = make_figure([Panel("p", r"width $n$", "y", [Series("s", x, 6 + x / 10, "simulation", "a")],
                             logx=True, logy=True)])
    ax = fig.axes[0]
    labels = [t for t in _texts(fig, ticks=True) if t in {lb.get_text() for lb in ax.get_xticklabels()
                                                              + ax.get_yticklabels()}]
    assert not [t for t in labels if "times" in t], labels                # no "6×10⁰"
    assert {"4", "8", "16", "32", "64"} <= set(labels)                      # the widths themselves
    assert not [t.get_text() for t in ax.yaxis.get_minorticklabels() if t.get_text()]


def test_the_palette_is_okabe_ito_and_an_activation_keeps_its_colour():
    assert set(F.PALETTE) == {"#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000"}
    fig = make_figure(_gap_panels())
    used = {to_hex(ln.get_color()).upper() for ax in fig.axes for ln in ax.get_lines()}
    assert used <= set(F.PALETTE), used
    relu = F.group_styles(["relu", "tanh"])["relu"][0]
    assert relu == F.group_styles(["network", "SDE", "relu"])["relu"][0] == F.OKABE_ITO["vermillion"]
    many = F.group_styles([f"g{i}" for i in range(9)])               # past eight: Tol's muted, still distinct
    assert len({c for c, _ in many.values()}) == 9 and {c for c, _ in many.values()} <= set(F.TOL_MUTED)


def test_factored_legend_one_entry_per_group_and_per_style():
    fig = make_figure(_gap_panels(2.0))   # the bound on the axes (an off-scale one has no entry)
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()] if fig.axes[0].get_legend() else \
        [t.get_text() for leg in fig.legends for t in leg.get_texts()]
    assert texts[:3] == ["ReLU", "tanh", "sigmoid"]
    assert "$d = 5000$, 95% CI" in texts and "mean field" in texts and "Theorem 4 bound" in texts


def test_csv_round_trip_and_redraw(tmp_path):
    panels = _gap_panels() + [Panel("second", "$x$", "$y$", [Series("a", [1, 2, 3], [1, 4, 9], "simulation", "a",
                                                                    draw="points")])]
    files = write_figure(str(tmp_path), "f", panels, "the caption")
    back, caption = F.read_figure_csv(files["csv"])
    assert caption == "the caption" and [p.title for p in back] == [p.title for p in panels]
    assert back[0].logy and back[0].ylabel == panels[0].ylabel and back[1].series[0].draw == "points"
    np.testing.assert_allclose(back[0].series[0].hi, panels[0].series[0].hi)
    before = (tmp_path / "f.csv").read_text()
    out = F.redraw_from_csv(files["csv"], str(tmp_path / "r"), style="icml")
    assert (tmp_path / "r" / "f.csv").read_text() == before and os.path.isfile(out["png"])


def test_an_older_csv_without_metadata_is_read(tmp_path):
    """Two panels with one title are told apart by a series repeating (bn_finite_width_figure2)."""
    rows = ["panel,series,kind,group,x,y,lo,hi"]
    for _ in range(2):
        rows += ["t,MP,theory,MP,0.0,1.0,,", "t,MP,theory,MP,1.0,2.0,,", "t,relu,simulation,relu,0.5,1.5,1.0,2.0"]
    (tmp_path / "old.csv").write_text("\n".join(rows) + "\n")
    panels, caption = F.read_figure_csv(str(tmp_path / "old.csv"))
    assert caption == "" and len(panels) == 2 and [len(p.series) for p in panels] == [2, 2]
    assert panels[0].series[1].lo is not None and panels[0].series[0].lo is None


def test_a_legend_never_hides_a_reference_line():
    """A vertical reference line (a Series with one x value, drawn as an axvline) counts as data when the legend is
    placed: with the line through the upper left, where the legend would go, the legend does not cover it."""
    x = np.linspace(-1, 1, 41)
    y = 0.3 + 2.5 * np.clip(x, 0, None) ** 4
    panels = [Panel("density", r"$\rho_T$", "density", [
        Series("network: histogram", x, y, "simulation", "network", y - 0.05, y + 0.05, band="95% CI"),
        Series("SDE: histogram", x, y * 1.01, "simulation", "SDE", y - 0.06, y + 0.06, band="95% CI"),
        Series(r"ODE: $\rho_T$", [-0.6, -0.6], [0.0, 3.0], "theory", "ODE")])]
    fig = make_figure(panels)
    ax = fig.axes[0]
    vline = [ln for ln in ax.get_lines() if np.allclose(ln.get_xdata(), -0.6)]
    assert vline, "the reference line is drawn"
    fig.canvas.draw()
    x_disp = ax.transData.transform((-0.6, 0.0))[0]
    for leg in [ax.get_legend()] + list(fig.legends):
        if leg is None:
            continue
        bb = leg.get_window_extent()
        ax_bb = ax.get_window_extent()
        inside = bb.y1 > ax_bb.y0 and bb.y0 < ax_bb.y1          # a legend inside the panel's height
        assert not (inside and bb.x0 <= x_disp <= bb.x1), "the legend covers the reference line"


def test_a_venue_style_also_writes_a_latex_figure_that_compiles(tmp_path):
    import shutil
    import subprocess
    files = F.write_figure(str(tmp_path), "gap", _gap_panels(), "n = 10, d = 5000; 4 seeds, budget quick; band: 95% CI",
                           style="neurips")
    tex = open(files["tex"]).read()
    assert r"\includegraphics[width=\linewidth]{gap.pdf}" in tex and r"\label{fig:gap}" in tex
    assert r"\caption{$n = 10$, $d = 5000$; 4 seeds; band: 95\% CI\@.}" in tex and "budget" not in tex
    assert "tex" not in F.write_figure(str(tmp_path), "plain", _gap_panels(), "x", style="default")
    if shutil.which("pdflatex"):
        (tmp_path / "doc.tex").write_text("\\documentclass{article}\n\\usepackage[textwidth=5.5in]{geometry}\n"
                                          "\\usepackage{graphicx,amsmath}\n\\begin{document}\n\\input{gap.tex}\n"
                                          "\\end{document}\n")
        p = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=120)
        log = (tmp_path / "doc.log").read_text(errors="replace")
        assert p.returncode == 0 and "Overfull" not in log, log[-2000:]
