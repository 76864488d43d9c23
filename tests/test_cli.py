"""The command line: exit statuses, listing, bad input, JSON and LaTeX output."""
import json
import os
import shutil
import subprocess
import sys


from verify.report import latex_structure_problems

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(*args, timeout=300):
    p = subprocess.run([sys.executable, "-m", "verify", *args], cwd=ROOT, capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def test_list_shows_every_paper_and_status():
    code, out, _ = run("list")
    assert code == 0
    for cid in ("isometry:theorem4", "isometry:lemma-a7", "bn-finite-width:theorem1", "bn-mean-field:theorem7",
                "covariance-sde:proposition3-7"):
        assert cid in out
    assert "isometry:theorem4                        checked" in out
    assert "bn-finite-width:theorem1                 checked" in out
    assert "bn-mean-field:theorem7                   checked" in out
    assert "isometry:figure-b5                       offline" in out   # needs GPT-2's trained weights: none offline


def test_unknown_claim_exit_2_with_near_matches():
    code, _, err = run("isometry:theorem5")
    assert code == 2 and "near matches" in err and "isometry:theorem4" in err
    code, _, err = run("nopaper:x")
    assert code == 2 and "unknown paper" in err
    code, _, err = run("isometri:theorem1")
    assert code == 2 and "did you mean 'isometry'?" in err
    # near matches name claims as `list` shows them: theorem-a5 and tableb1 are aliases of theorem4 and table-b1
    code, _, err = run("isometry:theorm1")
    near = err.split("near matches: ", 1)[1].split(". ", 1)[0].split(", ")
    assert code == 2 and near[0] == "isometry:theorem1" and len(near) == len(set(near))
    assert "isometry:theorem-a5" not in near and "isometry:tableb1" not in near
    code, out, _ = run("list", "-v")
    assert "(learning rate (default 0.01 for SGD, 1e-3 for RMSProp))" in out and "; default )" not in out


def test_usage_errors_exit_2():
    assert run()[0] == 2
    assert run("isometry:table2", "--budget", "huge")[0] == 2
    code, _, err = run("isometry:theorem4", "--param", "activations=foo(x)")
    assert code == 2 and "not allowed" in err
    code, _, err = run("isometry:table2", "--param", "nonsense=1")
    assert code == 2 and "parameter" in err
    code, _, err = run("isometry:theorem4", "--param", "input=weird")
    assert code == 2


def test_not_yet_is_inconclusive_and_bare_names_mean_their_one_paper():
    from verify.registry import resolve
    code, out, _ = run("isometry:figure-b5", "-q")
    assert code == 3 and "isometry:figure-b5" in out and "inconclusive" in out
    assert resolve("theorem9").id == "bn-mean-field:theorem9"        # only bn-mean-field has a Theorem 9
    assert resolve("figure-b7").id == "isometry:figure-b7"
    assert resolve("theorem1").id == "bn-finite-width:theorem1"      # three papers have one: the first paper's
    code, _, err = run("theorem99")
    assert code == 2 and "bn-finite-width:theorem" in err  # near matches come from bn-finite-width


def test_headline_bare_theorem1_runs():
    code, out, _ = run("theorem1", "--budget", "quick", "-q", "--param", "activations=relu")
    assert code == 0 and "bn-finite-width:theorem1" in out and "holds" in out


def test_holds_exit_0_and_json():
    code, out, _ = run("isometry:lemma-a4", "--budget", "quick", "--json", "-")
    assert code == 0
    doc = json.loads(out)
    v = doc["verdicts"][0]
    assert v["status"] == "holds" and v["negative_control"]["status"] == "violated"
    assert doc["complete"] is True and all("samples" in e for e in v["evidence"])


def test_violated_exit_1():
    code, out, _ = run("isometry:figure6", "--budget", "quick", "-q", "--no-control")
    assert code == 1 and "violated" in out


def test_hypotheses_not_met_exit_0():
    code, out, _ = run("isometry:theorem4", "--budget", "quick", "--param", "input=duplicated", "-q")
    assert code == 0 and "hypotheses-not-met" in out


def test_json_file_and_latex_compile(tmp_path):
    j, t = tmp_path / "v.json", tmp_path / "t.tex"
    code, _, _ = run("isometry:table2", "isometry:corollary3", "--budget", "quick", "--no-control",
                     "--json", str(j), "--latex", str(t), "--latex-standalone")
    assert code == 0
    doc = json.loads(j.read_text())
    assert [v["claim"] for v in doc["verdicts"]] == ["isometry:table2", "isometry:corollary3"]
    tex = t.read_text()
    assert r"\toprule" in tex and r"\frac{" in tex  # closed forms side by side with numbers
    assert latex_structure_problems(tex) == []
    if shutil.which("pdflatex"):
        p = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", t.name], cwd=tmp_path,
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stdout[-2000:]
        assert (tmp_path / "t.pdf").exists()


def test_latex_escape_handles_unicode_and_specials():
    from verify.report import latex_escape
    s = latex_escape("β_σ ≤ 1/2 & 50% of σ̄(1) {x} ~ #1 𝓘 — ✓")
    assert all(ord(c) < 128 for c in s)
    assert r"\beta" in s and r"\&" in s and r"\%" in s and r"\bar{\sigma}" in s


def test_help_lists_the_commands_with_examples_and_a_bare_call_prints_the_short_usage(capsys):
    import pytest as _pytest
    from verify.cli import main
    with _pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "``" not in out and ":func:" not in out                     # no reStructuredText residue
    for cmd in ("all ", "list [FILTER", "profile ACT", "design FAMILY", "render REPORT", "contract PAPER"):
        assert cmd in out, cmd
    assert "examples:\n  python -m verify isometry:theorem1 --budget quick" in out
    assert main([]) == 2
    short = capsys.readouterr().out
    assert short.count("python -m verify ") >= 4 and len(short.splitlines()) <= 10
