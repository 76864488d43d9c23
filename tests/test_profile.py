"""`verify profile` and `verify design` (issue 14): values against the claims' golden numbers and closed forms, a
formula equal to a built-in giving the built-in's profile, undefined quantities with their reasons, the Example 4.2
threshold found and certified, and clear answers for infeasible or malformed requests."""
from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys

import pytest

from verify.design import DesignError, design, family_member, family_parameters, parse_target
from verify.profile import comparison_rows, profile_activation

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BS = (4, 8, 32)


@pytest.fixture(scope="module")
def relu():
    return profile_activation("relu", BS)


def test_profile_values_are_the_claims_values(relu):
    import sympy as sp
    assert sp.simplify(sp.sympify(relu.get("beta").exact) - (3 * sp.pi - 4) / (2 * sp.pi - 2)) == 0  # sympy proves it
    assert relu.value("beta") == pytest.approx((3 * math.pi - 4) / (2 * math.pi - 2), rel=1e-14)
    for B in BS:
        assert relu.value(f"q*@B={B}") == pytest.approx(0.5, abs=1e-12)          # Theorem 5: q* = 1/2
        assert relu.value("lambda_G" + f"@B={B}") == pytest.approx(0.0, abs=1e-12)
    assert relu.value("lambda_max@B=8") == pytest.approx(1.7881899766586127, rel=1e-12)  # the golden λ_max
    assert relu.value("16xi@B=8") == pytest.approx(16 / math.log(1.7881899766586127), rel=1e-12)
    assert relu.get("c_1").exact == "1/2" and relu.get("c_1").error == 0 and relu.value("c_3") == 0  # closed forms
    tanh = profile_activation("tanh", (8,))
    assert tanh.get("c_1").exact == "" and tanh.get("c_1").error == 1e-14                       # no closed form
    assert tanh.value("c_1") == pytest.approx(0.6057055096021633, abs=1e-13)
    assert relu.value("bsb1_stable@B=32") == 1.0


def test_a_formula_equal_to_a_builtin_has_the_builtins_profile(relu):
    other = profile_activation("max(x,0)", BS)
    for q in relu.quantities:
        o = other.get(q.key)
        assert o.defined == q.defined, q.key
        if q.defined:
            assert o.value == pytest.approx(q.value, rel=1e-12, abs=1e-12), q.key


def test_undefined_quantities_say_why(relu):
    sde = relu.get("sde_criterion")
    assert not sde.defined and "kink" in sde.undefined and sde.undefined.startswith("undefined because")
    lin = profile_activation("identity", (8,))
    assert "β_σ = 1" in lin.get("ln_rate").undefined
    xerf = profile_activation("x*erf(x)", (8,))
    assert "σ′(0) = 0" in xerf.get("sde_criterion").undefined


def test_sde_criterion_and_comparison_table():
    tanh, soft = profile_activation("tanh", (8,)), profile_activation("softplus", (8,))
    assert tanh.value("sde_criterion") == -2 and tanh.value("sde_stable") == 1.0
    assert soft.value("sde_criterion") == pytest.approx(3 / 16) and soft.value("sde_stable") == 0.0
    header, rows = comparison_rows([tanh, soft])
    assert header == ["quantity", "tanh", "softplus"]
    crit = [r for r in rows if r[0].startswith("SDE criterion")][0]
    assert crit[1:] == [-2.0, 0.1875]


def test_design_finds_the_smallest_stable_softplus_shift_and_certifies_it():
    res = design("log(1+exp(x+x0))", ["sde=stable"])
    assert res.answer == pytest.approx(math.log(7 / 4), abs=1e-9)       # Example 4.2, corrected (erratum)
    (lo, hi, certified), = res.results[0].boundaries
    assert lo <= math.log(7 / 4) <= hi and certified
    assert "log(7/4)" in res.answer_quantities["sde=stable"]["exact threshold"]
    assert res.feasible[-1][1] == 3.0


def test_design_monotone_target_interval_and_infeasible_answer():
    res = design("tanh(a*x)", ["beta<=1.05"], {"a": (0.05, 4.0)})
    (lo, hi), = res.feasible
    assert lo == 0.05 and res.results[0].monotone
    from theory.dual import float_moments
    import theory
    for a, met in ((hi * (1 - 1e-6), True), (hi * (1 + 1e-6), False)):
        _, c1, var = float_moments(theory.activation(f"tanh({a!r}*x)"))
        assert (2 - c1 * c1 / var <= 1.05) == met
    none = design("tanh(a*x)", ["beta<=1.0001"], {"a": (1.0, 4.0)})
    assert none.feasible == [] and none.answer is None and "no a in [1, 4] meets" in none.message


@pytest.mark.parametrize("text, message", [
    ("lambda_max<=1.1", "add @B=N"), ("beta<=1.05@B=8", "no batch size"), ("speed>=3", "not understood"),
    ("lambda_max<=1.1@B=2", "[4, 4096]"), ("sde=stable@B=8", "no batch size"),
])
def test_bad_targets_are_clear_errors(text, message):
    with pytest.raises(DesignError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_target(text)


def test_families_are_parsed_by_the_whitelist():
    assert family_parameters("log(1+exp(x+x0))") == ["x0"]
    assert family_parameters("max(x, a*x)") == ["a"]
    for bad, message in (("tanh(x)", "no parameter"), ("a*b*c*x", "at most 2"), ("__import__('os')", "not allowed")):
        with pytest.raises(DesignError, match=message):
            family_parameters(bad)
    from theory.errors import DeepinitError
    with pytest.raises(DeepinitError):   # a member beyond the formula limits is refused like any formula
        family_member("x**a", {"a": 100.0})


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "verify", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_profile_cli_writes_a_table_json_and_latex_that_compiles(tmp_path):
    tex, js = tmp_path / "t.tex", tmp_path / "p.json"
    r = _cli("profile", "relu", "tanh", "x*erf(x)", "--batch-sizes", "8,32", "--latex", str(tex),
             "--latex-standalone", "--json", str(js), "--csv", str(tmp_path))
    assert r.returncode == 0, r.stderr[-2000:]
    assert "λ_max (B = 32)" in r.stdout and "undefined because relu has a kink" in r.stdout
    doc = json.loads(js.read_text())
    assert [p["activation"] for p in doc["profiles"]] == ["relu", "tanh", "x*erf(x)"]
    assert (tmp_path / "profile_table.csv").read_text().startswith("quantity,relu,tanh,x*erf(x)")
    if shutil.which("pdflatex") and shutil.which("chktex"):
        p = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stdout[-2000:]
        c = subprocess.run(["chktex", "-q", "-v0", "t.tex"], cwd=tmp_path, capture_output=True, text=True)
        assert c.stdout.strip() == ""


def test_overflowing_formulas_give_strict_json_and_undefined_quantities_not_nan_or_a_crash(tmp_path):
    """x·1e300: E σ² overflows, so the Hermite tail is undefined (it was NaN ± inf, written as the non-JSON literal
    NaN); erf(1e300·x): its derivative's constant 2·10³⁰⁰/√π·e^(−10⁶⁰⁰x²) overflows float64 in the lambdified
    function (it crashed with exit 4): λ_max is undefined with the reason."""
    out = tmp_path / "p.json"
    r = _cli("profile", "x*1e300", "erf(1e300*x)", "--batch-sizes", "4", "--json", str(out))
    assert r.returncode == 0, r.stderr[-2000:]

    def strict(c):
        raise ValueError(f"non-JSON literal {c}")
    doc = json.loads(out.read_text(), parse_constant=strict)
    by = {p["activation"]: {q["key"]: q for q in p["quantities"]} for p in doc["profiles"]}
    tail = by["x*1e300"]["hermite_tail@K=8"]
    assert tail["value"] is None and "overflows float64" in tail["undefined"]
    lam = by["erf(1e300*x)"]["lambda_max@B=4"]
    assert lam["value"] is None and "overflows float64; rescale the formula" in lam["undefined"]
    assert not [(a, k) for a, qs in by.items() for k, q in qs.items() if "nan" in (q["value"], q["error"])]
    # an exact value beyond float64 keeps its exact form; its float is written as the string "-inf" (JSON-safe)
    crit = by["erf(1e300*x)"]["sde_criterion"]
    assert crit["value"] == "-inf" and crit["exact"] == "-2" + "0" * 600


def test_profile_figures_take_the_figure_style_a_neurips_figure_is_the_text_width(tmp_path):
    """``profile --artefacts --figure-style neurips``: the PDF page is NeurIPS' text width, 5.5 in (396 pt), with the
    venue's serif fonts; the default style stays the screen size (3 panels a row, 3.6 in each)."""
    import re
    widths = {}
    for style in ("neurips", "default"):
        out = tmp_path / style
        r = _cli("profile", "relu", "tanh", "--batch-sizes", "8,16", "--artefacts", str(out), "--figure-style", style)
        assert r.returncode == 0, r.stderr[-2000:]
        pdf = (out / "activation_profile.pdf").read_bytes()
        box = re.search(rb"/MediaBox \[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", pdf)
        widths[style] = float(box.group(1)) / 72
        fonts = set(re.findall(rb"/BaseFont /([A-Za-z0-9+-]+)", pdf))
        serif = any(k in f.lower() for f in fonts for k in (b"times", b"nimbus", b"stix", b"cmr"))   # Times-like, CM
        assert serif == (style == "neurips"), (style, fonts)
        # a venue's figure comes with its LaTeX figure environment
        assert (out / "activation_profile.tex").exists() == (style == "neurips")
    assert abs(widths["neurips"] - 5.5) < 0.05, widths
    assert abs(widths["default"] - 3 * 3.6) < 0.1, widths


@pytest.mark.parametrize("args, code, message", [
    (["profile", "sinn(x)"], 2, "not allowed"),
    (["profile", "relu", "--batch-sizes", "2"], 2, "[4, 4096]"),
    (["design", "tanh(x)", "--target", "beta<=1.1"], 2, "no parameter"),
    (["design", "tanh(a*x)", "--target", "beta<=1.0001", "--range", "a=1:4"], 1, "no a in [1, 4] meets"),
    (["design", "tanh(a*x)", "--target", "beta<=1.05", "--range", "a=4:1"], 2, "LO < HI"),
])
def test_profile_and_design_cli_exit_statuses(args, code, message):
    r = _cli(*args)
    assert r.returncode == code, (r.returncode, r.stderr[-1000:])
    assert message in r.stdout + r.stderr and "Traceback" not in r.stderr


def test_the_terminal_profile_shows_errors_zeros_symbols_caveats_and_the_json_its_provenance():
    import json
    import subprocess
    import sys
    from verify import profile as PR
    import theory
    p = PR.profile_activation(theory.activation("exp"), (4, 8))
    header, rows = PR.terminal_rows([p])
    cells = {r[0]: r[1] for r in rows}
    assert cells["λ_𝕃 (B = 4)"].endswith(tuple("0123456789")) and " ±" in cells["λ_𝕃 (B = 4)"]   # value ±error
    assert "λ_L (B = 4)" not in cells                                                              # one symbol
    assert cells["λ_𝔾 (B = 4)"].startswith("0 ±")                                                 # exact zero
    assert "λ_max (B = 8) [BSB1 unstable]" in cells and "λ_max (B = 4)" in cells                  # the caveat
    assert "do not describe it" in p.get("lambda_max@B=8").how
    tanh = PR.profile_activation(theory.activation("tanh"), (4,))
    assert PR.terminal_rows([tanh])[1][0][1].startswith("0")          # c_0 of an odd function is 0, not 1e-17
    r = subprocess.run([sys.executable, "-m", "verify", "profile", "tanh", "--batch-sizes", "4", "--json", "-"],
                       capture_output=True, text=True, timeout=300)
    doc = json.loads(r.stdout)
    assert doc["provenance"]["package"] == "deepinit-verify" and doc["profiles"][0]["activation"] == "tanh"
