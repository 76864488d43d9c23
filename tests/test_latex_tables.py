"""Tables for papers, pasted unchanged (issue "Tables for papers — pasted unchanged"): `--latex` writes bare table
environments (`--latex-prose` adds statement, verdict and evidence); numbers in siunitx S columns with their
uncertainty, digits from the error, exact zeros as 0, one notation per column; formulas and activations in math
mode and named as the papers name them; the paper's printed forms as printed, derived forms simplified; no overfull
box and one pdflatex pass. Checked on the three tables users reported: isometry:table2, bn-mean-field:constants
(quick) and `profile relu tanh`."""
from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from latex_checks import tabulars
from verify.cli import build_parser, main
from verify.core import Verdict
from verify.latex import (MAX_DIGITS, OMITTED_NOTE, PACKAGES, PLAIN_DIGITS, activation_name, cell_latex,
                          format_column, latex_table, render, sympy_latex, to_latex)
from verify.registry import resolve

TEX = bool(shutil.which("pdflatex") and shutil.which("pdftotext"))
needs_tex = pytest.mark.skipif(not TEX, reason="pdflatex or pdftotext is not installed here (.ci/run installs "
                                               "texlive and poppler-utils, so CI runs these checks)")
DOCS = ("isometry_table2", "bn_constants", "profile")


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    """The three tables as `python -m verify … --latex` writes them: standalone documents (compiled once each), the
    default fragments and the --latex-prose documents."""
    d = tmp_path_factory.mktemp("tables")
    report = d / "r.json"
    assert main(["isometry:table2", "bn-mean-field:constants", "--budget", "quick", "-q", "--no-control",
                 "--no-cache", "--json", str(report), "--latex", str(d / "claims_fragment.tex")]) == 0
    assert main(["render", str(report), "--latex", str(d / "claims_prose.tex"), "--latex-prose"]) == 0
    verdicts = {v.claim_id: v for v in (Verdict.from_dict(x) for x in json.loads(report.read_text())["verdicts"])}
    texts = {}
    for name, cid in (("isometry_table2", "isometry:table2"), ("bn_constants", "bn-mean-field:constants")):
        texts[name] = render([verdicts[cid]], {cid: resolve(cid)}, standalone=True, strict=True, prose=False)
        (d / f"{name}.tex").write_text(texts[name])
    assert main(["profile", "relu", "tanh", "--latex", str(d / "profile.tex"), "--latex-standalone"]) == 0
    assert main(["profile", "relu", "tanh", "--latex", str(d / "profile_fragment.tex")]) == 0
    texts["profile"] = (d / "profile.tex").read_text()
    for name in ("claims_fragment", "claims_prose", "profile_fragment"):
        texts[name] = (d / f"{name}.tex").read_text()
    compiled = {}
    if TEX:
        for name in DOCS:
            p = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"], cwd=d,
                               capture_output=True, text=True, timeout=120)
            log = (d / f"{name}.log").read_text(errors="replace")
            pdf_text = subprocess.run(["pdftotext", "-layout", f"{name}.pdf", "-"], cwd=d, capture_output=True,
                                      text=True, timeout=60).stdout if p.returncode == 0 else ""
            compiled[name] = (p.returncode, log, pdf_text)
    return {"dir": d, "tex": texts, "pdf": compiled, "verdicts": verdicts}


# --------------------------------------------------------------------------------------------
# compiled: one pass, nothing overfull, nothing a reader would not write
# --------------------------------------------------------------------------------------------

@needs_tex
@pytest.mark.parametrize("name", DOCS)
def test_one_pdflatex_pass_and_no_overfull_box(out, name):
    rc, log, _ = out["pdf"][name]
    assert rc == 0, log[-3000:]
    assert "Overfull" not in log, [line for line in log.splitlines() if "Overfull" in line]
    assert "Float too large" not in log
    # a longtable aligns only on a second pass ("Table widths have changed. Rerun LaTeX."): never used
    assert "Rerun LaTeX" not in log and "widths have changed" not in log
    assert r"\begin{longtable}" not in out["tex"][name]


@needs_tex
@pytest.mark.parametrize("name", DOCS)
def test_the_tables_fit_a_papers_text_width(out, name):
    """Pasted into a paper (NeurIPS/ICML text width, 5.5 in = 397 pt), no table is wider than the text."""
    body = out["tex"][name].split(r"\begin{document}")[1].split(r"\end{document}")[0]
    doc = out["dir"] / f"{name}_paper.tex"
    doc.write_text("\\documentclass{article}\n\\usepackage[textwidth=5.5in]{geometry}\n" + PACKAGES
                   + "\n\\begin{document}\n" + body + "\\end{document}\n")
    p = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name], cwd=out["dir"],
                       capture_output=True, text=True, timeout=120)
    log = (out["dir"] / f"{name}_paper.log").read_text(errors="replace")
    assert p.returncode == 0 and "Overfull" not in log, [line for line in log.splitlines() if "Overfull" in line]


@needs_tex
@pytest.mark.parametrize("name", DOCS)
def test_the_pdf_text_has_no_raw_exponent_no_text_mode_relation_and_no_cache_marker(out, name):
    _, _, text = out["pdf"][name]
    assert text.strip()
    assert not re.search(r"\d[eE][-+]?\d", text), re.findall(r"\S*\d[eE][-+]?\d\S*", text)
    assert "¡" not in text and "¿" not in text          # < and > set in text mode (OT1) come out as ¡ ¿
    assert "(cached)" not in text
    tex = out["tex"][name]
    assert r"\textgreater" not in tex and r"\textless" not in tex
    assert "leaky_relu" not in text and "leaky\\_relu" not in tex   # activations by the papers' names


@pytest.mark.skipif(not shutil.which("chktex"), reason="chktex is not installed here (CI installs it)")
@pytest.mark.parametrize("name", DOCS + ("claims_fragment", "claims_prose", "profile_fragment"))
def test_chktex_has_nothing_to_say(out, name):
    path = out["dir"] / f"{name}.tex"
    path.write_text(out["tex"][name])
    p = subprocess.run(["chktex", "-q", "-v0", path.name], cwd=out["dir"], capture_output=True, text=True, timeout=60)
    assert [line for line in p.stdout.splitlines() if line.strip()] == []


# --------------------------------------------------------------------------------------------
# the structure of the tables: bare by default, numbers in S columns, one notation per column
# --------------------------------------------------------------------------------------------

def test_default_latex_is_bare_tables_and_prose_adds_statement_verdict_and_evidence(out):
    frag = out["tex"]["claims_fragment"]
    assert frag.startswith("% deepinit-verify tables") and r"\documentclass" not in frag
    assert r"\paragraph" not in frag and "Evidence for" not in frag and "Erratum" not in frag
    assert frag.count(r"\begin{table}") == 4                      # Table 2 and the three batch sizes
    assert r"\paragraph" not in out["tex"]["profile_fragment"] and r"\documentclass" not in out["tex"]["profile_fragment"]
    prose = out["tex"]["claims_prose"]
    assert r"\paragraph{isometry:table2: holds.}" in prose and r"\paragraph{bn-mean-field:constants: holds.}" in prose
    assert prose.count("Evidence for") == 2 and r"\label{tab:isometry:table2:evidence}" in prose
    assert prose.count(r"\label{tab:isometry:table2:1}") == 1


_tables = tabulars   # (column specs, body rows as cell lists) of every tabular


@pytest.mark.parametrize("name", DOCS)
def test_every_number_is_in_an_S_column_in_one_notation(out, name):
    n = 0
    for spec, rows in _tables(out["tex"][name]):
        for row in rows:
            assert len(row) == len(spec), (spec, row)
        for j, kind in enumerate(spec):
            cells = [r[j] for r in rows]
            if not kind.startswith("S"):
                # a bare number in a text column would be set without siunitx (hyphen minus signs, no alignment)
                assert not any(re.fullmatch(r"-?\d+(\.\d+)?(e-?\d+)?", c) for c in cells), (kind, cells)
                continue
            n += 1
            assert "table-format=" in kind
            nums = [c for c in cells if not c.startswith("{") and c != "0"]
            exps = {re.search(r"e(-?\d+)$", c).group(1) if "e" in c else None for c in nums}
            # all plain, or all ×10^k (a shared k, unless the column spans more than three decades)
            assert exps == {None} or None not in exps, (kind, cells)
            # digits from the error, at most MAX_DIGITS significant digits: never a 15-digit number
            assert all(len(re.sub(r"\D", "", c.split("(")[0].split("e")[0]).lstrip("0")) <= MAX_DIGITS
                       for c in nums), cells
    assert n >= 2


# --------------------------------------------------------------------------------------------
# the three tables' contents
# --------------------------------------------------------------------------------------------

def test_isometry_table2_prints_the_papers_forms_and_simplified_derived_forms(out):
    tex = out["tex"]["isometry_table2"]
    (spec, rows), = list(_tables(tex))
    assert [r[0] for r in rows][:2] == [r"$\mathrm{He}_{1}(x) = x$", r"$\mathrm{He}_{2}(x) = x^{2} - 1$"]
    assert r"$1[x > 0]$" in [r[0] for r in rows]
    printed, derived = [r[1] for r in rows], [r[2] for r in rows]
    assert r"$2 - \frac{2e}{e^2 - 1}$" in printed and r"$\frac{3\pi - 4}{2\pi - 2}$" in printed   # as printed
    assert r"$2 - \frac{2 e}{e^{2} - 1}$" in derived and r"$2 - \frac{1}{e - 1}$" in derived       # simplified
    assert not any("-1 +" in c or "+ 2$" in c for c in printed + derived)                        # no sympy order
    # quadrature and Monte Carlo (value(standard error)); the printed value is no longer a duplicate column
    assert spec[3].startswith("S") and spec[4].startswith("S") and len(spec) == 5
    assert all(re.fullmatch(r"\d\.\d+\(\d+\)", r[4]) for r in rows), [r[4] for r in rows]
    caption = re.search(r"\\caption\{(.*?)\}\\label", tex).group(1)
    # the paper's own table named once, with the citation (render's default key: the paper's key); what the tool
    # computed (the budget) is a comment above the table, not the reader's caption
    assert "))" not in caption and caption.count(r"Table 2 of~\cite{isometry}") == 1
    assert r"$2 \times 10^{5}$ samples" in caption and "budget" not in caption
    assert "% quick budget\n" in tex


def test_bn_constants_names_activations_as_the_paper_and_says_which_batch_sizes(out):
    tex = out["tex"]["bn_constants"]
    tables = list(_tables(tex))
    assert len(tables) == 3
    names = [r[0].replace("^{\\dagger}", "") for r in tables[0][1]]   # † marks an unstable BSB1 point
    assert "leaky ReLU (slope 0.01)" in names and "ReLU" in names and "GELU" in names and r"$\tanh$" in names
    assert r"$\mathrm{He}_{1}(x) = x$" in names and r"$\mathrm{He}_{3}/\sqrt{3!}$" in names
    assert "ELU $=$ CELU" in names and not any("identity" in n or "he1" in n for n in names)
    captions = re.findall(r"\\caption\{(.*?)\}\\label", tex)
    assert len(captions) == 3
    for B, c in zip((4, 8, 32), captions):
        assert c.startswith(r"Constants of the BN mean-field theory~\cite{bn-mean-field} at batch size " + f"$B = {B}$")
        assert "budget" not in c
    assert tex.count("% quick budget: $B = 4, 8, 32$ of the 7 batch sizes of the standard budget") == 3
    # λ_𝔾 = 0, the † and the undefined cells explained inside the float, below the table
    notes = re.findall(r"\\parbox\{\\linewidth\}\{(.*?)\}\n\\end\{table\}", tex)
    assert len(notes) == 3 and all("scale invariant" in n and "undefined" in n for n in notes)
    # c* at B = 32 (values from 0.85 to 3e-5): one notation, no ×10^k mixed into plain numbers
    (spec, rows) = tables[2]
    cstar = [r[2] for r in rows]
    assert not any("e" in c for c in cstar) and any(re.fullmatch(r"-0\.0000\d+", c) for c in cstar), cstar


def test_profile_tables_exact_zeros_signs_and_symbols(out):
    tex = out["tex"]["profile"]
    tables = list(_tables(tex))
    assert len(tables) == 4      # Hermite coefficients, isometry strength, BN constants per B, the distortion γ
    hermite = tables[0][1]
    assert hermite[0] == ["0", "0.398942", "0"]        # tanh's c_0 (9.9e-18 ± 1e-14) is an exact zero
    assert "9.90351" not in tex and "e-18" not in tex and "e-20" not in tex
    assert r"\lambda _{\mathbb{G}}" in tex and r"\lambda _{G}" not in tex and r"\lambda _{L}" not in tex
    head = tex.split(r"\midrule")[-3].splitlines()[-1]   # the per-batch-size table's head: the constants' symbols
    for sym in (r"{$q^{*}$}", r"{$c^{*}$}", r"{$\lambda _{\mathbb{L}}$}", r"{$\lambda _{\mathbb{M}}$}",
                r"{$\lambda _{\max }$}", r"{$16\xi$}"):
        assert sym in head, head
    # γ: a certified enclosure as its two ends (ReLU's lower end, 1, is attained), never a midpoint ± half-width
    assert tables[3][1][0] == ["4", "$[1, 1.00021]$", "$[0.761594, 0.761662]$"]
    if TEX:
        text = out["pdf"]["profile"][2]
        assert "−0.148437" in text           # a minus sign (U+2212), not a hyphen
        assert not re.search(r"(?<![\w−])-\d", text)


# --------------------------------------------------------------------------------------------
# the machinery, on its own
# --------------------------------------------------------------------------------------------

def test_format_column_uncertainty_digits_zeros_and_notation():
    # digits from the error: two digits of an error starting with 1 or 2, else one
    assert format_column([1.14756, 1.99996, 1.40845], [0.0023, 0.000066, 0.0064])[0] == \
        ["1.1476(23)", "1.99996(7)", "1.408(6)"]
    assert format_column([1.14756], [0.0023])[1] == "1.4(2)"
    # --digits N: N significant digits (and no uncertainty below the last digit shown)
    assert format_column([1.14756, 2.0], [0.0023, None], digits=2)[0] == ["1.1", "2.0"]
    assert format_column([0.123456789, 1.5], digits=8)[0] == ["0.12345679", "1.5000000"]
    # exact zeros: below 1e-15 of the column's scale with an error covering 0 (or none)
    assert format_column([0.398942, 9.9e-18, -0.0814338], [0, 1e-14, 0])[0] == ["0.398942", "0", "-0.0814338"]
    # ... and only then: 3e-16 ± 1e-18 is not zero, 1e-17 is (a residue); a column with a plain-range value stays
    # plain: the small value shows at most MAX_DECIMALS decimals (0.00000000), never ×10^k beside plain cells
    assert format_column([0.6, 3e-16, 1e-17], [None, 1e-18, None])[0] == ["0.600000", "0.00000000", "0"]
    # a residue within its error of 0 (a quadrature's −7e-15 ± 1e-13 beside 0.8) is 0; a statistical estimate is not
    assert format_column([-6.98582e-15, 0.83, 0.5], [1e-13, 1e-13, 1e-13])[0] == ["0", "0.83000000", "0.50000000"]
    assert format_column([0.3, 1.5], [0.5, 0.1])[0] == ["0.3(5)", "1.50(10)"]
    # one notation per column: plain (each cell its own digits, a small one at most 3 decimals more than the
    # largest can show), a shared ×10^k, or each its own
    assert format_column([0.845897, -3.32476e-5])[0] == ["0.845897", "-0.00003325"]
    cells, fmt = format_column([3.3e-5, 1.2e-5, None, float("inf")])
    assert cells == ["3.3e-5", "1.2e-5", "{---}", "{$\\infty$}"] and fmt == "1.1e-1"
    assert format_column([1e-15, 3e-12])[0] == ["1e-15", "3e-12"]
    assert format_column([200000, 4])[0] == ["200000", "4"]
    assert format_column([-2.0, 1.75, 1.909859], [0, 0, 0])[0] == ["-2", "1.75", "1.90986"]   # exact: no padding


def test_derived_forms_are_simplified_as_a_paper_prints_them():
    import sympy as sp
    e, pi = sp.E, sp.pi
    assert sympy_latex(2 * (-e ** 2 + 1 + e) / (1 - e ** 2)) == r"2 - \frac{2 e}{e^{2} - 1}"
    assert sympy_latex((3 - 2 * e) / (1 - e)) == r"2 - \frac{1}{e - 1}"
    assert sympy_latex((4 - 3 * pi) / (2 * (1 - pi))) == r"\frac{3 \pi - 4}{2 \pi - 2}"
    assert sympy_latex(2 - 2 / pi) == r"2 - \frac{2}{\pi}" and sympy_latex(sp.Integer(1)) == "1"


def test_activations_are_named_as_the_papers_name_them_and_set_in_math_mode():
    names = {"relu": "ReLU", "gelu": "GELU", "leaky_relu": "leaky ReLU (slope 0.01)", "he3": "He_3/sqrt(3!)",
             "tanh(2*x)": "tanh(2x)"}
    for key, name in names.items():
        assert activation_name(key) == name
    assert activation_name(["he1", "identity", "linear"]) == "He_1(x) = x"
    assert activation_name(["celu", "elu"]) == "ELU = CELU" and activation_name(["silu", "swish"]) == "SiLU = swish"
    assert cell_latex("He_1(x) = x") == r"$\mathrm{He}_{1}(x) = x$"
    assert cell_latex("tanh(2x)") == r"$\tanh (2x)$" and cell_latex("tanh") == r"$\tanh$"
    assert cell_latex("1[x > 0]") == r"$1[x > 0]$" and cell_latex("B = 4") == r"$B = 4$"
    assert cell_latex("ReLU") == "ReLU" and cell_latex("yes") == "yes" and cell_latex("—") == "---"
    assert to_latex("quick budget: B = 4, 8, 16 of the 7 (below 1e-12; --latex)") == \
        r"quick budget: $B = 4, 8, 16$ of the 7 (below $10^{-12}$; -{}-latex)"


def test_a_table_with_an_error_column_merges_it_and_a_long_table_continues_under_its_number():
    tex = latex_table("Table 3: x", ["σ", "value", "err"], [["tanh", 1.2345, 0.0006], ["ReLU", 2.5, 0.01]],
                      "tab:a", {"error": {1: 2}})
    assert "1.2345(6)" in tex and "2.500(10)" in tex and "err" not in tex and "S[table-format=1.4(2)]" in tex
    long = latex_table("y", ["k", "v"], [[k, k / 7] for k in range(70)], "tab:b")
    assert long.count(r"\begin{table}") == 3 and long.count(r"\addtocounter{table}{-1}") == 2
    assert long.count(r"\label{tab:b}") == 1 and "(continued)" in long


# --------------------------------------------------------------------------------------------
# digits from the error (--digits auto), --digits N, and each cell its own significant digits
# --------------------------------------------------------------------------------------------

def test_a_certified_value_with_a_tiny_error_shows_the_capped_digits_and_the_caption_says_so():
    assert MAX_DIGITS == 8 and PLAIN_DIGITS == 6
    cells, fmt = format_column([0.570047881640764, 1.14763], [2e-15, 0.0023])
    assert cells == ["0.57004788", "1.1476(23)"] and fmt == "1.8(2)"
    tex = latex_table("Constants", ["name", "value", "err"], [["a", 0.570047881640764, 2e-15]], "tab:c",
                      {"error": {1: 2}})
    assert "0.57004788 \\\\" in tex and "Constants. " + OMITTED_NOTE + "}" in tex
    # every error shown: no note; the same with --digits 4 and an error below the 4th digit: the note
    tex = latex_table("Constants", ["name", "value", "err"], [["b", 1.14763, 0.0023]], "tab:c", {"error": {1: 2}})
    assert "1.1476(23)" in tex and OMITTED_NOTE not in tex
    tex = latex_table("Constants", ["name", "value", "err"], [["b", 1.14763, 0.0023]], "tab:c", {"error": {1: 2}},
                      digits=4)
    assert "& 1.148 \\\\" in tex and OMITTED_NOTE in tex


def test_error_digits_one_or_two_and_values_without_or_with_zero_error():
    # the error's first digit 1 or 2: two digits of it; 3 to 9: one
    assert format_column([1.14763, 1.23456, 2.5], [0.0023, 0.0047, 0.31])[0] == ["1.1476(23)", "1.235(5)", "2.5(3)"]
    assert format_column([0.912345], [0.0001])[0] == ["0.91234(10)"]
    # no error: PLAIN_DIGITS significant digits; error 0 (exact): its own digits, at most PLAIN_DIGITS, no padding
    assert format_column([2.718281828, 1.0000000000000102], [None, None])[0] == ["2.71828", "1.00000"]
    assert format_column([0.5, 1.26652889653787, -2.0], [0, 0, 0])[0] == ["0.5", "1.26653", "-2"]


def test_mixed_magnitudes_in_one_column_keep_their_own_significant_digits():
    cells, fmt = format_column([123.456789, 0.00123456789, -4.5])
    assert cells == ["123.457", "0.00123457", "-4.50000"] and fmt == "-3.8"
    # a value without an error shows no more decimals than the column needs (0.5, not 0.500000)
    assert format_column([0.5, 0.25, 2.0])[0] == ["0.50", "0.25", "2.00"]
    assert format_column([0.0, 0.5, 1.0, 22.0, 22.5])[0] == ["0", "0.5", "1.0", "22.0", "22.5"]
    # values with errors: each to its own error's place
    assert format_column([64.0350891535, 0.0017585511878], [6.4e-11, 1.8e-13])[0] == ["64.035089", "0.00175855"]


def test_digits_n_overrides_every_value():
    cells, fmt = format_column([0.570047881640764, 1.14763, 3.0], [2e-15, 0.023, None], digits=4)
    assert cells == ["0.5700", "1.148(23)", "3.000"] and fmt == "1.4(2)"
    assert format_column([123.456789, 0.00123456789], digits=4)[0] == ["123.5", "0.001235"]
    # exact: at most N digits, no padding zeros (the zero of 1.910 is a digit of 1.90986 rounded, not padding)
    assert format_column([0.125, 1.90986, 2.0], [0, 0, 0], digits=4)[0] == ["0.125", "1.910", "2"]


def test_exact_zeros_integers_negatives_and_powers_of_ten():
    # exact zeros: 0, and a value within its error of 0 far below the column's scale
    assert format_column([0.0, 0.6057055096021633, 9.9e-18], [1e-14, 1e-14, 1e-14])[0] == ["0", "0.60570551", "0"]
    # a column of integers (no errors): as they are
    assert format_column([4, 8, 128]) == (["4", "8", "128"], "3.0")
    # negative values: a minus sign, each its own digits
    cells, fmt = format_column([-0.31624634800647183, -0.0073277646989897745], [3.2e-13, 1.3e-14])
    assert cells == ["-0.31624635", "-0.00732776"] and fmt == "-1.8"
    # a shared ×10^k (largest below 1e-3, within three decades), each cell to its error's place
    cells, fmt = format_column([1.2345e-5, 4.5678e-6], [2.1e-9, 3e-10])
    assert cells == ["1.23450(21)e-5", "0.45678(3)e-5"] and fmt == "1.5(2)e-1"
    assert format_column([25000000.5, 31000000.25])[0] == ["2.5e7", "3.1e7"]   # not integers: 6 digits
    # more than three decades apart: each cell its own ×10^k
    assert format_column([2.5e7, 3.1e11], [1e4, None])[0] == ["2.5000(10)e7", "3.1000e11"]


def test_digits_default_is_auto_in_the_cli():
    args = build_parser().parse_args(["isometry:table2"])
    assert args.digits is None
    assert build_parser().parse_args(["isometry:table2", "--digits", "4"]).digits == 4
    helptext = build_parser().format_help()
    assert "from the error" in " ".join(helptext.split())
