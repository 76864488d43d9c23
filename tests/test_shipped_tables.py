"""Every table the package ships, pasted unchanged into a paper: the claims that make tables (at the quick budget),
``profile`` of every registered activation and of two activations in a second fragment, and ``render`` of the
claims' report with ``--latex-prose`` under its own label prefix — compiled together in a 5.5 in text. Nothing
overfull, no label twice, one notation per numeric column, no rounding residue printed as a number, captions that
cite the papers. CI's standard-budget report is held to the same checks (tests/test_standard_report.py)."""
from __future__ import annotations

import re

import pytest

from latex_checks import TEX, compile_in_paper, label_problems, log_problems, table_problems
from verify.cli import main

needs_tex = pytest.mark.skipif(not TEX, reason="pdflatex is not installed here (.ci/run installs texlive)")

#: the claims whose verdicts carry tables (their LaTeX is what ``--latex`` writes)
TABLE_CLAIMS = ("bn-finite-width:corollary8", "bn-mean-field:theorem5", "bn-mean-field:figure1",
                "bn-mean-field:constants", "covariance-sde:constants", "isometry:table2", "isometry:table-b1",
                "isometry:section6", "isometry:figure-b1")


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    import theory
    d = tmp_path_factory.mktemp("shipped")
    report = d / "claims.json"
    assert main([*TABLE_CLAIMS, "--budget", "quick", "-q", "--no-control", "--no-cache", "--json", str(report),
                 "--latex", str(d / "claims.tex")]) == 0
    assert main(["render", str(report), "--latex", str(d / "rendered.tex"), "--latex-label", "rep",
                 "--latex-cite", "isometry=mykey2023"]) == 0
    assert main(["render", str(report), "--latex", str(d / "prose.tex"), "--latex-prose", "--latex-label", "ev"]) == 0
    assert main(["profile", *theory.registered_names(), "--latex", str(d / "profile_all.tex")]) == 0
    assert main(["profile", "relu", "tanh", "--latex", str(d / "profile_two.tex")]) == 0
    texts = {name: (d / f"{name}.tex").read_text()
             for name in ("claims", "rendered", "prose", "profile_all", "profile_two")}
    return {"dir": d, "tex": texts}


@needs_tex
def test_every_shipped_table_compiles_in_a_papers_text_width_without_a_label_twice(shipped):
    """The claims' tables, the same rendered from the report under another label prefix, the report with
    ``--latex-prose`` (statements, verdicts, evidence tables, errata) under a third, and two ``profile`` fragments,
    in one 5.5 in document: nothing overfull, no float taller than a page."""
    tables = shipped["tex"]
    assert label_problems(tables) == []
    rc, log = compile_in_paper(tables, shipped["dir"])
    assert log_problems(rc, log) == []


def test_an_evidence_table_sets_each_quantity_above_its_values_across_the_text_width(shipped):
    """An evidence row's long name is a line of its own across the table (never a column squeezed to a few
    letters), its values below it in the same float; the decision is one "test" cell (statistic or deviation
    against its bound)."""
    tex = shipped["tex"]["prose"]
    assert r"\begin{tabular*}{\linewidth}" in tex and r"\begin{tabularx}" not in tex
    for block in tex.split(r"\begin{table}")[1:]:
        if "Evidence for" not in block:
            continue
        body = block.split(r"\midrule", 1)[1].split(r"\bottomrule")[0].strip().splitlines()
        body = [line for line in body if not line.startswith(r"\addlinespace")]
        assert len(body) % 2 == 0 and all(line.startswith(r"\multicolumn") for line in body[::2]), block[:300]
    assert "≤" not in tex and r"\le " in tex  # the test cells in math: "|z| = 1.32 \le 3.29"


@pytest.mark.parametrize("name", ["claims", "rendered", "profile_all", "profile_two"])
def test_one_notation_per_column_and_no_residue_printed(shipped, name):
    assert table_problems(shipped["tex"][name]) == []


def test_every_table_claim_made_its_tables_and_none_is_set_below_footnotesize_without_need(shipped):
    tex = shipped["tex"]["claims"]
    for cid in TABLE_CLAIMS:
        assert "\\label{tab:" + cid + ":1}" in tex, cid
    # the claims' tables fit at \small or \footnotesize: \scriptsize is the last resort of ten-column tables
    assert r"\scriptsize" not in tex


def test_captions_cite_the_papers_and_say_nothing_of_the_tool(shipped):
    tex = shipped["tex"]["claims"]
    captions = re.findall(r"\\caption\{(.*?)\}\\label", tex)
    assert captions and not any("budget" in c or "the isometry paper" in c or "mean-field paper" in c for c in captions)
    assert r"\cite{yang2019mean}" in tex and r"\cite{joudaki2023impact}" in tex and r"\cite{joudaki2023bridging}" in tex
    assert "% quick budget" in tex  # what was computed: a comment for the author
    rendered = shipped["tex"]["rendered"]
    assert r"\cite{mykey2023}" in rendered and r"\cite{joudaki2023impact}" not in rendered   # --latex-cite
    assert r"\label{rep:isometry:table2:1}" in rendered and r"\label{tab:" not in rendered   # --latex-label
    assert r"\label{ev:isometry:table2:evidence}" in shipped["tex"]["prose"]
    two = shipped["tex"]["profile_two"]
    assert r"\label{tab:profile:relu-tanh:1}" in two and r"\cite{li2022neural}" in two


def test_marks_and_undefined_cells_are_explained_inside_the_float(shipped):
    tex = shipped["tex"]["claims"]
    block = tex[tex.index("tab:bn-mean-field:constants:1"):].split(r"\end{table}")[0]
    assert r"\parbox{\linewidth}" in block and "undefined" in block and "step" in block
    assert r"^{\dagger}" in block.split(r"\parbox")[1]
    profile = shipped["tex"]["profile_all"]
    assert r"\noindent" not in profile     # no paragraph outside the floats
    # each reason once, with the activations it holds for
    assert profile.count("undefined because $\\phi$ has a kink at $x_{0} = 0$") == 1
    assert "of CELU, ELU, leaky ReLU (slope 0.01), ReLU, SELU" in profile


def test_an_enclosure_is_printed_as_an_interval_and_the_residue_as_zero(shipped):
    two = shipped["tex"]["profile_two"]
    assert r"$[1, 1.00021]$" in two          # ReLU's distortion at n = 4: its lower end is attained
    assert "1.00010(10)" not in two
    claims = shipped["tex"]["claims"]
    assert "e-15" not in claims and "e-14" not in claims


# ---------------------------------------------------------------------------------------------------------------
# the checks themselves, on fragments with one defect each
# ---------------------------------------------------------------------------------------------------------------

def _table(cells: list[str], label: str = "tab:x", width: int = 1) -> str:
    rows = "\n".join(" & ".join([c] * width) + r" \\" for c in cells)
    return ("\\begin{table}[htbp]\n\\centering\n\\caption{x}\\label{" + label + "}\n\\begin{tabular}{"
            + "S[table-format=1.5e-2]" * width + "}\n\\toprule\n" + " & ".join(["{a}"] * width) + r" \\"
            + "\n\\midrule\n" + rows + "\n\\bottomrule\n\\end{tabular}\n\\end{table}\n")


def test_the_checks_find_a_mixed_notation_a_residue_an_overfull_table_and_a_label_twice(tmp_path):
    assert table_problems(_table(["0.5", "2.5e-6"])) != []             # per-cell ×10^k beside a plain number
    assert table_problems(_table(["0.5", "-6.98582e-15"])) != []       # the He_3 residue of the issue
    assert table_problems(_table(["0.5", "-0.000000000000698"])) != []
    assert table_problems(_table(["0.5", "0", "0.0000025"])) == []
    assert table_problems(_table(["2.5e-6", "3.1e-7"])) == []
    if TEX:
        rc, log = compile_in_paper({"a": _table(["0.123456789"], width=30), "b": _table(["0.5"], "tab:y"),
                                    "c": _table(["0.5"], "tab:y")}, tmp_path)
        assert any(p.startswith("Overfull") for p in log_problems(rc, log))
    assert label_problems({"b": _table(["0.5"], "tab:y"), "c": _table(["0.5"], "tab:y")}) == ["label tab:y in b and c"]
    assert label_problems({"b": _table(["0.5"], "tab:y"), "c": _table(["0.5"], "tab:z")}) == []
    if TEX:
        rc, log = compile_in_paper({"a": _table(["0.5"])}, tmp_path, "clean")
        assert log_problems(rc, log) == []


@pytest.mark.parametrize("argv", [["--latex-cite", "isometry"], ["--latex-cite", "Isometry=key"],
                                  ["--latex-cite", "isometry=a b"], ["--latex-label", "1tab"],
                                  ["--latex-label", "tab{x}"]])
def test_a_bad_citation_key_or_label_prefix_is_one_line_and_exit_2(argv, tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["profile", "relu", "--latex", str(tmp_path / "t.tex"), *argv])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err and ("--latex-cite" in err[-1] or "--latex-label" in err[-1]) and "Traceback" not in err[-1]


def test_a_paper_declares_its_bibtex_key_and_a_key_that_is_not_one_is_refused():
    from verify import api
    from verify.registry import papers
    assert {k: p.cite_key for k, p in papers().items() if k in ("bn-finite-width", "bn-mean-field", "isometry",
                                                                  "covariance-sde")} == {
        "bn-finite-width": "joudaki2023bridging", "bn-mean-field": "yang2019mean", "isometry": "joudaki2023impact",
        "covariance-sde": "li2022neural"}
    assert api.Paper(key="x2026", title="t", citation="c", register=False).cite_key == "x2026"
    with pytest.raises(api.PaperDeclarationError, match="cite_key"):
        api.Paper(key="x2026", title="t", citation="c", cite_key="a b}", register=False)
