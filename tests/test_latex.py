"""LaTeX for papers (issue 11): mathematics in math mode from one symbol table, no silent '?', captions and labels
once, siunitx columns, no row caps; fragment and standalone compile; `render` regenerates outputs from a report."""
from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from conftest import FIGURE_CLAIMS
from verify.cli import main
from verify.core import Evidence, Verdict
from verify.latex import PACKAGES, LatexError, format_number, latex_table, render, to_latex
from verify.registry import all_claims


@pytest.mark.parametrize("text,expected", [
    ("β_σ", r"$\beta _{\sigma }$"),
    ("He_1", r"$\mathrm{He}_{1}$"),
    ("λ_max", r"$\lambda _{\max }$"),
    ("q*, c*", r"$q^{*}$, $c^{*}$"),
    ("‖G*⁻¹‖", r"$\|G^{*-1}\|$"),
    ("G_*^0", r"$G_{*}^{0}$"),
    ("E r⁻²", r"E $r^{-2}$"),
    ("det(D) = ∏ a_i²", r"$\det (D) = \prod a_{i}^{2}$"),          # neighbouring formulas: one equation
    ("50% & $1 #2", r"50\% \& \$1 \#2"),
    # function applications and bracketed powers are formulas as a whole (chktex: no text glued to a parenthesis)
    ("σ̄(1)", r"$\bar{\sigma}(1)$"),
    ("shrinks like d^(−1/2), with O(sqrt(n/d))", r"shrinks like $d^{-1/2}$, with $O(\sqrt{n/d})$"),
    ("b*(1 − c*)", r"$b^{*}(1 - c^{*})$"),
    ("nγ‖G*^(−1/2)‖/√d", r"$n\gamma \|G^{*-1/2}\|/\surd d$"),
    ("(1 − α)^(ℓ/2): 0.7", r"${(1 - \alpha )}^{\ell /2}$: 0.7"),
    ("¾φ″(0)² + φ‴(0)", r"$\tfrac34\phi ^{\prime\prime}{(0)}^{2} + \phi ^{\prime\prime\prime}(0)$"),
    ("B(B−3)/2-dimensional", r"$B(B-3)/2$-dimensional"),
    # text: ranges, name pairs, abbreviations, sentence ends after a capital, snake_case names, definitions
    ("eqs (13)–(15)", r"eqs (13)--{(15)}"),
    ("Marchenko–Pastur law", r"Marchenko\textendash{}Pastur law"),
    ("max abs. difference, e.g. this", r"max abs.\ difference, e.g.\ this"),
    ("as LN. With BN: x", r"as LN\@. With BN\@: x"),
    ("leaky_relu and λ_max", r"leaky\_relu and $\lambda _{\max }$"),
    ("v* := q*(1−c*)", r"$v^{*} := q^{*}(1-c^{*})$"),
    # a variable and its numbers, e-notation, a formula compared with a number, two hyphens (issue: tables for
    # papers): never "B = 4", "1e-12", "< 1" or an en dash in text mode
    ("at B = 4, 8, 32 of the 7", r"at $B = 4, 8, 32$ of the 7"),
    ("(n = 10, ρ₀ = 0.5) and B ∈ {4, 8}", r"($n = 10$, $\rho _{0} = 0.5$) and $B \in \{4, 8\}$"),
    ("below 1e-12, 2.5e3 samples", r"below $10^{-12}$, $2.5 \times 10^{3}$ samples"),
    ("stable: max(λ_𝕃, λ_𝕄) < 1 (B = 4)", r"stable: $\max (\lambda _{\mathbb{L}}, \lambda _{\mathbb{M}}) < 1$ ($B = 4$)"),
    ("tables (--latex)", r"tables (-{}-latex)"),
    ("16ξ and −2 log(2 − β_σ)", r"$16\xi$ and $-2 \log (2 - \beta _{\sigma })$"),
    ("covariance-sde:eq2-6", r"covariance-sde:eq2{-}6"),
    ('the paper\'s "after a step" (sic)', r"the paper's ``after a step'' (sic)"),
])
def test_symbols_go_to_math_mode(text, expected):
    assert to_latex(text, strict=True) == expected


def test_an_unknown_character_is_an_error_in_strict_mode_and_visible_otherwise():
    with pytest.raises(LatexError, match="U\\+2603"):
        to_latex("snow ☃", strict=True)
    assert r"\texttt{[U+2603]}" in to_latex("snow ☃")
    assert "?" not in to_latex("∧ ∨ Π Γ ∫ ∝ ³ ⌊x⌋", strict=True)


def test_every_claims_text_has_a_latex_form():
    for c in all_claims():
        for text in (c.title, c.statement, c.hypotheses, c.how, c.control_description):
            out = to_latex(text, strict=True)
            assert all(ord(ch) < 128 for ch in out), (c.id, text)
            # a literal \_ only inside a snake_case identifier (theory.bsb1_fixed_point, leaky_relu,
            # numerics.bn_sphere_grams), never from a subscript (β_σ, He_1, λ_max)
            assert r"\_" not in re.sub(r"[A-Za-z0-9]{2,}(\\_[A-Za-z][A-Za-z0-9]{2,})+", "", out), (c.id, out)


def test_numbers_and_table_structure():
    assert format_number(0.123456789, 4) == "0.1235" and format_number(1.5e-7, 3) == "1.5e-7"
    assert format_number(12, 6) == "12" and format_number(-2.5e12, 4) == "-2.5e12"
    rows = [[f"a{i}", i * 0.5, 1e-6 * (i + 1)] for i in range(45)]
    tex = latex_table("Table 2: the constants", ["name", "value", "small"], rows, "tab:p:c:1")
    # no silent row cap: every row, in tables continued under the same number (a longtable needs a second pass)
    assert r"\begin{longtable}" not in tex and tex.count(r"\begin{table}") == 2 and tex.count("a44$ &") == 1
    assert r"\addtocounter{table}{-1}" in tex and tex.count(r"\label{tab:p:c:1}") == 1
    assert tex.count(r"\\") - tex.count(r"\toprule") == 45                      # 45 body rows (and a head each)
    # one shared ×10^k in the small column, written once in its header: the cells are in units of 10⁻⁵
    assert "S[table-format=2.1]" in tex and "S[table-format=1.1]" in tex and r"{small ($\times 10^{-5}$)}" in tex
    assert "& 4.5 \\\\" in tex and "e-5" not in tex
    assert r"\caption{The constants (Table 2 of the paper).}\label{tab:p:c:1}" in tex
    short = latex_table("x", ["a", "b"], [["[dense] x", 1.0]], "tab:x")
    assert "{}[dense] x" in short and r"\begin{table}" in short


def _verdicts():
    ev = [Evidence("β_σ of tanh vs He_1", theory=1.2, numeric=1.2000001, bound=3e-7, observed=1e-7, slack=3.0,
                   samples=100, passed=True),
          Evidence("λ_max at B = 4 (informational)", theory=2.13, numeric=2.04, passed=None)]
    tab = ("Table 1: β_σ by activation", ["σ", "β_σ", "c_1²"], [["tanh", 1.1513, 0.36], ["relu", 1.466942, 0.25]])
    return [Verdict("isometry:table2", "holds", "β_σ ≥ 1 for every σ; q* = 1/2", ev, tables=[tab]),
            Verdict("isometry:figure6", "violated", "not reproduced for relu", ev[:1])]


def _compile(tmp_path, name: str, body: str) -> subprocess.CompletedProcess:
    (tmp_path / name).write_text(body)
    return subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=180)


@pytest.mark.skipif(not shutil.which("pdflatex"), reason="pdflatex is not installed (CI installs it)")
def test_fragment_and_standalone_compile(tmp_path):
    claims = {c.id: c for c in all_claims()}
    frag = render(_verdicts(), claims, strict=True)
    assert r"\documentclass" not in frag and frag.count(r"\label{tab:isometry:table2:1}") == 1
    assert "Table 1: Table" not in frag
    assert frag.startswith("% deepinit-verify tables") and PACKAGES in frag.splitlines()[0]
    wrapper = "\\documentclass{article}\n" + PACKAGES + "\n\\begin{document}\n\\input{frag}\n\\end{document}\n"
    (tmp_path / "frag.tex").write_text(frag)
    p = _compile(tmp_path, "wrap.tex", wrapper)
    assert p.returncode == 0, p.stdout[-2000:]
    p = _compile(tmp_path, "doc.tex", render(_verdicts(), claims, standalone=True, strict=True))
    assert p.returncode == 0, p.stdout[-2000:]


@pytest.mark.skipif(not shutil.which("pdflatex"), reason="pdflatex is not installed (CI installs it)")
def test_render_regenerates_outputs_from_a_saved_report(tmp_path, capsys):
    report = tmp_path / "r.json"
    assert main(["isometry:theorem1", "isometry:table2", "bn-mean-field:theorem5", "--budget", "quick", "-q",
                 "--no-control", "--json", str(report)]) == 0
    capsys.readouterr()
    tex, md, csvdir = tmp_path / "t.tex", tmp_path / "r.md", tmp_path / "csv"
    assert main(["render", str(report), "--latex", str(tex), "--latex-standalone", "--markdown", str(md),
                 "--csv", str(csvdir), "--digits", "5"]) == 0
    assert "rendered 3 verdicts" in capsys.readouterr().out
    body = tex.read_text()
    assert r"\documentclass" in body and "?" not in re.sub(r"[^\x00-\x7f]", "", body).replace("?", "")
    p = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stdout[-2000:]
    assert "isometry:table2" in md.read_text()
    files = sorted(f.name for f in csvdir.iterdir())
    assert "isometry_table2_table1.csv" in files and "isometry_theorem1_evidence.csv" in files
    header = (csvdir / "isometry_theorem1_evidence.csv").read_text().splitlines()[0]
    assert header.startswith("name,theory,numeric,bound,observed,slack,ci_low,ci_high")
    # nothing recomputed: the report's verdicts, as saved
    assert json.loads(report.read_text())["verdicts"][0]["claim"] == "isometry:theorem1"


def test_render_usage_errors(tmp_path, capsys):
    assert main(["render", str(tmp_path / "missing.json"), "--latex", str(tmp_path / "t.tex")]) == 2
    (tmp_path / "r.json").write_text("{}")
    assert main(["render", str(tmp_path / "r.json"), "--latex", str(tmp_path / "t.tex")]) == 2
    with pytest.raises(SystemExit):
        main(["isometry:theorem1", "--digits", "40"])


def test_figure_claim_writes_png_pdf_and_csv_with_bound_and_bands(tmp_path, capsys):
    import csv
    assert main(["isometry:figure3", "--budget", "quick", "--no-control", "-q", "--artefacts", str(tmp_path)]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["isometry_figure3.csv", "isometry_figure3.pdf", "isometry_figure3.png"]
    rows = list(csv.DictReader(ln for ln in (tmp_path / "isometry_figure3.csv").open() if not ln.startswith("#")))
    kinds = {(r["group"], r["kind"]) for r in rows}
    assert {(a, k) for a in ("relu", "tanh", "sigmoid") for k in ("simulation", "theory", "bound")} <= kinds
    sim = [r for r in rows if r["kind"] == "simulation" and float(r["x"]) > 0]
    assert all(float(r["lo"]) <= float(r["y"]) <= float(r["hi"]) for r in sim)
    # the bound is above the simulated gap at every layer (what the figure shows)
    for a in ("relu", "tanh", "sigmoid"):
        sim_y = {r["x"]: float(r["y"]) for r in rows if r["group"] == a and r["kind"] == "simulation"}
        bnd_y = {r["x"]: float(r["y"]) for r in rows if r["group"] == a and r["kind"] == "bound"}
        assert all(sim_y[x] <= bnd_y[x] for x in sim_y)




def test_every_figure_claim_is_listed_here():
    figs = {c.id for c in all_claims() if c.checked and ("Fig" in c.title or c.id.split(":")[1].startswith("figure"))}
    assert figs == set(FIGURE_CLAIMS) - {"covariance-sde:width-convergence"}


def test_every_figure_claim_writes_png_pdf_and_csv_in_its_papers_quick_test():
    """Each figure claim's quick verdict is computed once in the suite, by its paper's quick test, with an artefact
    directory: that test checks the PNG, PDF and CSV (conftest.assert_figure_files). Every figure claim is one of them."""
    import importlib
    covered = set()
    for mod, paper in (("test_bn_finite_width", "bn-finite-width"), ("test_bn_mean_field", "bn-mean-field"),
                       ("test_covariance_sde", "covariance-sde"), ("test_isometry_claims", "isometry")):
        covered |= {f"{paper}:{n}" for n in importlib.import_module(mod).EXPECTED}
    assert set(FIGURE_CLAIMS) <= covered


def _chktex_warnings(tmp_path, name: str) -> list[str]:
    p = subprocess.run(["chktex", "-q", "-v0", name], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    return [line for line in p.stdout.splitlines() if line.strip()]


# Every claim's LaTeX (fragment and standalone: 0 chktex warnings, the document compiles) is checked where its verdict
# is computed anyway: tests/conftest.py::assert_latex_clean, called for every verdict of the per-paper claim tests at
# the quick and the standard budget (this used to rerun `verify all --budget quick` here: 4 minutes of CI).


def test_every_checked_claim_has_a_per_claim_latex_check():
    """The per-paper verdict tests cover every checked claim (so assert_latex_clean sees every claim's LaTeX)."""
    import importlib
    covered = set()
    for mod, paper in (("test_bn_finite_width", "bn-finite-width"), ("test_bn_mean_field", "bn-mean-field"),
                       ("test_covariance_sde", "covariance-sde"), ("test_isometry_claims", "isometry")):
        m = importlib.import_module(mod)
        names = getattr(m, "EXPECTED", None) or getattr(m, "EXPECTED_QUICK", None)
        covered |= {f"{paper}:{n}" for n in names}
    assert {c.id for c in all_claims() if c.checked} <= covered


def test_the_controls_never_overwrite_the_claims_figure(tmp_path):
    """The negative control reruns the check with each theory quantity ±δ; the figure on disk must still be the
    unperturbed run's (the ν curve of covariance-sde Fig 1 moves under the control)."""
    from verify.core import Context
    from verify.registry import resolve
    from verify.runner import run_claim
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    claim = resolve("covariance-sde:figure1")
    v = run_claim(claim, Context(budget="quick", artefact_dir=str(a)), with_control=True)
    assert v.negative_control is not None and v.negative_control.status == "violated"
    run_claim(claim, Context(budget="quick", artefact_dir=str(b)), with_control=False)
    name = "covariance_sde_figure1.csv"
    assert (a / name).read_text() == (b / name).read_text()
