"""CI outputs (issue 11): expected verdicts, the pytest plugin's JUnit report, provenance and the report schema,
packaging (console script, one version, shadowing modules)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import jsonschema
import pytest

from verify import __version__
from verify import expectations as E
from verify.cli import main
from verify.core import Verdict
from verify.registry import all_claims

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = json.load(open(os.path.join(ROOT, "verify", "data", "report.schema.json"), encoding="utf-8"))


def _env():
    return {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": ROOT}


def test_shipped_expectations_name_checked_claims_with_reasons():
    exp = E.load("shipped")
    checked = {c.id for c in all_claims() if c.checked}
    assert set(exp) == {"bn-finite-width:figure2", "bn-finite-width:lemma5", "covariance-sde:proposition3-10",
                        "isometry:figure6", "bn-mean-field:figure3", "isometry:figure-b3", "isometry:figure7",
                        "bn-finite-width:eq19", "bn-finite-width:lemma12", "bn-mean-field:figure4",
                        "isometry:figure-b7"}
    for e in exp.values():
        assert e.claim in checked
        if "violated" in (e.status, *dict(e.by_budget).values()):   # an erratum: its positive control is named
            assert "Positive control" in e.reason
        else:   # a budget too small to decide: holds elsewhere, inconclusive there, and the reason says why
            assert e.status == "holds" and set(dict(e.by_budget).values()) == {"inconclusive"}
            assert "inconclusive" in e.reason and "undecided" in e.reason


def test_findings_are_told_apart_and_the_docs_count_them_from_the_file():
    """An erratum (the printed statement is false) is never confused with an experiment not reproduced in a substitute
    setting; docs/ci.md's counts are the file's."""
    import re
    exp = E.load("shipped")
    kinds = {e.claim: e.kind for e in exp.values()}
    assert all(kinds.values())   # every shipped entry says what kind of finding it is
    assert {c for c, k in kinds.items() if k == "not reproduced"} == {"bn-mean-field:figure3", "isometry:figure7",
                                                                      "bn-mean-field:figure4"}
    assert {c for c, k in kinds.items() if k == "undecided"} == {"isometry:figure-b7"}
    for c, k in kinds.items():
        if k == "not reproduced":   # a substitute setting is named: other data, a lost parameter, an assumed rate
            assert re.search(r"digits|lost|learning rate", exp[c].reason), c
    with open(os.path.join(ROOT, "docs", "ci.md"), encoding="utf-8") as f:
        text = " ".join(f.read().split())
    n = {k: sum(1 for v in kinds.values() if v == k) for k in E.KINDS}
    assert (f"{n['erratum']} mathematical errata" in text and f"{n['not reproduced']} experiments not reproduced"
            in text and f"{n['undecided']} statement the quick budget cannot decide" in text)
    out = E.render(E.compare([Verdict("isometry:figure7", "violated", ""), Verdict("isometry:figure6", "violated", "")],
                             exp))
    assert "1 known erratum reproduced; 1 experiment not reproduced in a substitute setting, as expected" in out


def test_comparison_outcomes_and_exit_codes():
    exp = {"p:a": E.Expectation("p:a", "violated", "erratum")}
    v = lambda c, s: Verdict(c, s, "")  # noqa: E731
    cmp = E.compare([v("p:a", "violated"), v("p:b", "holds")], exp)
    assert [c.outcome for c in cmp] == ["match", "match"] and E.exit_code(cmp) == 0
    cmp = E.compare([v("p:a", "holds"), v("p:b", "holds")], exp)
    assert cmp[0].outcome == "no longer reproduces" and E.exit_code(cmp) == 1
    cmp = E.compare([v("p:a", "violated"), v("p:b", "inconclusive")], exp)
    assert cmp[1].outcome == "regression" and E.exit_code(cmp) == 1
    cmp = E.compare([v("p:b", "error")], exp)
    assert E.exit_code(cmp) == 4       # a crash is never a verdict
    assert "REGRESSION: p:b expected holds, got error" in E.render(cmp)


@pytest.mark.parametrize("text,fragment", [("['isometry:nosuch']\nstatus='holds'\n", "unknown claim"),
                                           ("['isometry:theorem1']\nstatus='fine'\n", "status must be"),
                                           ("not toml [", "not a readable TOML")])
def test_malformed_expectations_are_a_usage_error(tmp_path, text, fragment, capsys):
    f = tmp_path / "e.toml"
    f.write_text(text)
    assert main(["isometry:theorem1", "--expect", str(f), "--budget", "quick"]) == 2
    assert fragment in capsys.readouterr().err


def test_an_unchecked_claim_under_expectations_is_a_usage_error_unless_a_file_lists_it(tmp_path, capsys):
    """isometry:figure-b5 (offline) has no shipped expectation: not a 'REGRESSION: expected holds'."""
    assert main(["isometry:figure-b5", "--budget", "quick", "-q", "--expect", "shipped"]) == 2
    err = capsys.readouterr().err
    assert "isometry:figure-b5 is not checked by this package (offline)" in err and len(err.strip().splitlines()) == 1
    f = tmp_path / "e.toml"
    f.write_text('["isometry:figure-b5"]\nstatus = "inconclusive"\nkind = "undecided"\nreason = "offline"\n')
    assert main(["isometry:figure-b5", "--budget", "quick", "-q", "--expect", str(f)]) == 0
    assert "1 of 1 claims as expected" in capsys.readouterr().out


def test_expect_passes_on_the_known_erratum_and_fails_on_a_perturbed_constant(tmp_path, capsys):
    path = tmp_path / "r.json"
    code = main(["isometry:theorem1", "isometry:figure6", "isometry:definition3", "--budget", "quick", "-q",
                 "--expect", "shipped", "--json", str(path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "3 of 3 claims as expected (1 known erratum reproduced)" in out
    doc = json.loads(path.read_text())
    jsonschema.validate(doc, SCHEMA, cls=jsonschema.Draft202012Validator)
    prov = doc["provenance"]
    assert prov["version"] == __version__ and prov["budget"] == "quick" and prov["seed"] == 0
    assert prov["libraries"]["torch"] and prov["libraries"]["sympy"] and prov["started"] <= prov["finished"]
    assert prov["command"][-2:] == ["--json", str(path)]
    assert {e["outcome"] for e in doc["expectations"]} == {"match"}
    # the same claim with β_σ 5% too large: the build goes red, and says which claim regressed
    code = main(["isometry:definition3", "--budget", "quick", "-q", "--expect", "shipped", "--perturb", "beta=0.05"])
    out = capsys.readouterr()
    assert code == 1 and "REGRESSION: isometry:definition3 expected holds" in out.out
    assert "PERTURBED run" in out.err


def test_perturb_is_validated(capsys):
    assert main(["isometry:theorem1", "--perturb", "nonsense=0.1"]) == 2
    assert main(["isometry:theorem1", "--perturb", "beta=abc"]) == 2
    assert main(["isometry:theorem1", "--perturb", "beta=-5"]) == 2
    # a quantity is named through the paper that declares it
    assert main(["isometry:theorem1", "--perturb", "isometry:b*=0.05"]) == 2
    assert "paper:quantity" in capsys.readouterr().err


def test_perturb_names_a_builtin_quantity_through_its_paper():
    from verify.commands.run import parse_perturbation as _parse_perturbation
    assert _parse_perturbation(["isometry:beta=0.05"]) == {"isometry:beta": 0.05}
    assert _parse_perturbation(["bn-finite-width:c*=-0.05"]) == {"bn-finite-width:c*": -0.05}
    assert _parse_perturbation(["bn-mean-field:b*=0.05"]) == {"bn-mean-field:q*": 0.05}   # an alias of the paper's q*
    assert _parse_perturbation(["covariance-sde:nu=0.1", "beta=0.2"]) == {"covariance-sde:nu": 0.1,
                                                                        "isometry:beta": 0.2}
    # a bare name stands for that quantity in every paper that declares it
    assert _parse_perturbation(["c*=0.05"]) == {"bn-finite-width:c*": 0.05, "bn-mean-field:c*": 0.05}


def test_pytest_plugin_gives_one_junit_case_per_claim_and_strict_xfail_for_errata(tmp_path):
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA",
                        "--verify-claims=isometry:theorem1,isometry:figure6", "--verify-budget=quick",
                        f"--junitxml={tmp_path / 'r.xml'}"], cwd=tmp_path, env=_env(), capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 passed, 1 xfailed" in r.stdout
    cases = list(ET.parse(tmp_path / "r.xml").iter("testcase"))
    assert [(c.get("classname"), c.get("name")) for c in cases] == [("deepinit-verify.isometry", "theorem1"),
                                                                    ("deepinit-verify.isometry", "figure6")]
    props = {p.get("name"): p.get("value") for p in cases[1].iter("property")}
    assert props["status"] == "violated" and props["expected"] == "violated"
    # an expectation that is wrong for the code (theorem1 expected violated) fails the build: strict xfail
    (tmp_path / "e.toml").write_text("['isometry:theorem1']\nstatus = 'violated'\nreason = 'test'\n")
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                        "--verify-claims=isometry:theorem1", f"--verify-expect={tmp_path / 'e.toml'}"],
                       cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=600)
    out = r.stdout + r.stderr
    assert r.returncode == 1 and ("XPASS(strict)" in out or "1 failed" in out), out
    # among a repository's own tests (here a passing and a failing one), --verify-only runs the claims alone
    (tmp_path / "test_own.py").write_text("def test_ok():\n    pass\n\ndef test_broken():\n    assert False\n")
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--verify-only",
                        "--verify-claims=isometry:theorem1", "--verify-budget=quick", "test_own.py"],
                       cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and "1 passed, 2 deselected" in r.stdout, r.stdout + r.stderr


def test_the_pytest_plugin_refuses_an_unchecked_claim_unless_a_file_lists_it(tmp_path):
    """As on the command line: isometry:figure-b5 (offline) named in --verify-claims is a usage error (exit 4, one
    line), not a failed case "REGRESSION: expected holds"; listed as inconclusive in a --verify-expect file it passes."""
    args = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--verify-only",
            "--verify-claims=isometry:figure-b5", "--verify-budget=quick"]
    r = subprocess.run(args, cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=600)
    assert r.returncode == 4, r.stdout + r.stderr
    # (pytest's own warnings may come first on stderr: a plugin's warning under pytest-xdist)
    err = [line for line in r.stderr.splitlines() if line.strip()]
    assert err[-1] == ("ERROR: --verify-claims: isometry:figure-b5 is not checked by this package (offline), so no "
                       "expectation applies to it; leave it out, or list it with status = \"inconclusive\" in a "
                       "--verify-expect file"), r.stderr
    assert "Traceback" not in r.stderr and "REGRESSION" not in r.stdout + r.stderr
    (tmp_path / "e.toml").write_text('["isometry:figure-b5"]\nstatus = "inconclusive"\nreason = "offline"\n')
    r = subprocess.run([*args, f"--verify-expect={tmp_path / 'e.toml'}"], cwd=tmp_path, env=_env(),
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and "1 passed" in r.stdout, r.stdout + r.stderr


def test_a_local_theory_py_gives_a_clear_error(tmp_path):
    (tmp_path / "theory.py").write_text("x = 1\n")
    r = subprocess.run([sys.executable, "-m", "verify", "list"], cwd=tmp_path, env={**_env(), "PYTHONPATH": ""},
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "shadowed" in r.stderr and "theory.py" in r.stderr and "Traceback" not in r.stderr


def test_one_version_and_the_console_script():
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    assert 'dynamic = ["version"]' in text and "\nversion =" not in text.split("[tool.setuptools.dynamic]")[0]
    assert "pytest" not in text.split("dependencies = [", 1)[1].split("]", 1)[0]   # runtime deps: no test tools
    exe = shutil.which("deepinit-verify")
    if exe is None:
        pytest.skip("the console script is not installed in this environment (pip install -e . installs it)")
    r = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=120)
    assert r.stdout.strip() == f"deepinit-verify {__version__}"


def test_verdict_cache_makes_a_repeat_instant_and_never_serves_other_settings(tmp_path, monkeypatch, capsys):
    from verify import cache
    monkeypatch.setenv("DEEPINIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("DEEPINIT_NO_CACHE", raising=False)
    argv = ["isometry:definition3", "--budget", "quick", "-q"]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert "(cached)" not in first and len(list((tmp_path / "cache").rglob("*.json"))) == 1
    assert main(argv) == 0
    assert "(cached)" in capsys.readouterr().out
    assert main(argv + ["--seed", "3"]) == 0          # other settings: computed, stored beside
    assert "(cached)" not in capsys.readouterr().out
    assert main(argv + ["--no-cache"]) == 0
    assert "(cached)" not in capsys.readouterr().out
    assert main(argv + ["--perturb", "beta=0.05"]) == 3   # a perturbed run is never served the honest verdict
    assert "(cached)" not in capsys.readouterr().out
    assert len(cache.code_hash()) == 64


def test_an_expectation_can_differ_by_budget(tmp_path):
    """status_standard overrides status for standard-budget verdicts only; a bad budget key is refused."""
    from verify.core import HOLDS, VIOLATED, Verdict
    p = tmp_path / "e.toml"
    p.write_text('["bn-mean-field:figure4"]\nstatus = "holds"\nstatus_standard = "violated"\nreason = "r"\n')
    exp = E.load(str(p))
    quick = Verdict("bn-mean-field:figure4", HOLDS, "", [])
    quick.settings = {"budget": "quick"}
    std = Verdict("bn-mean-field:figure4", VIOLATED, "", [])
    std.settings = {"budget": "standard"}
    assert [c.outcome for c in E.compare([quick, std], exp)] == ["match", "match"]
    std_holds = Verdict("bn-mean-field:figure4", HOLDS, "", [])
    std_holds.settings = {"budget": "standard"}
    assert E.compare([std_holds], exp)[0].outcome == "no longer reproduces"
    p.write_text('["bn-mean-field:figure4"]\nstatus = "holds"\nstatus_huge = "violated"\n')
    with pytest.raises(E.ExpectationError, match="budget"):
        E.load(str(p))


def test_a_verdict_from_the_cache_writes_every_requested_output_and_no_report_says_so(tmp_path, monkeypatch, capsys):
    """A cached rerun with a new --artefacts DIR writes its PNG, PDF and CSV there; '(cached)' is only in the
    terminal line, never in the JSON or LaTeX; every file is written with the umask's permissions."""
    monkeypatch.setenv("DEEPINIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("DEEPINIT_NO_CACHE", raising=False)
    old_mask = os.umask(0o022)
    try:
        argv = ["covariance-sde:figure1", "--budget", "quick", "-q", "--no-control"]
        assert main(argv + ["--artefacts", str(tmp_path / "figs")]) == 0
        capsys.readouterr()
        assert main(argv + ["--artefacts", str(tmp_path / "figs")]) == 0          # same directory: served cached
        assert "holds (cached)" in capsys.readouterr().out
        out = tmp_path / "figs3"
        assert main(argv + ["--artefacts", str(out), "--json", str(tmp_path / "r.json"),
                            "--latex", str(tmp_path / "t.tex")]) == 0
        assert sorted(p.name for p in out.iterdir()) == ["covariance_sde_figure1.csv", "covariance_sde_figure1.pdf",
                                                          "covariance_sde_figure1.png"]
        capsys.readouterr()
        assert main(argv + ["--json", str(tmp_path / "c.json"), "--latex", str(tmp_path / "c.tex")]) == 0
        assert "(cached)" in capsys.readouterr().out        # no --artefacts: the cache serves it
        for name in ("r.json", "t.tex", "c.json", "c.tex"):
            text = (tmp_path / name).read_text()
            assert "(cached)" not in text, name
        for f in [*out.iterdir(), tmp_path / "r.json", tmp_path / "t.tex"]:
            assert (os.stat(f).st_mode & 0o777) == 0o644, f
    finally:
        os.umask(old_mask)


# ---------------------------------------------------------------------------------------------------------------
# one expectation semantics: the command line, the pytest plugin and the JUnit view of a report
# ---------------------------------------------------------------------------------------------------------------

def _junit_cases(path):
    return {c.get("name"): c for c in ET.parse(path).iter("testcase")}


def test_the_pytest_plugin_expects_the_status_of_its_budget_layers_files_and_names_kinds(tmp_path):
    """A user file over the shipped one: theorem1 expected violated in general but holds at the quick budget (the
    plugin must honour status_quick, as `verify all --expect` does), figure6 not named (the shipped erratum stays
    expected), and the kinds label the xfails truthfully. The same file with --verify-expect-replace drops the shipped
    erratum, and figure6's violation becomes a failure."""
    mine = tmp_path / "mine.toml"
    mine.write_text('["isometry:theorem1"]\nstatus = "violated"\nstatus_quick = "holds"\nreason = "per budget"\n')
    env = {**_env(), "DEEPINIT_CACHE": str(tmp_path / "cache")}
    env.pop("DEEPINIT_NO_CACHE", None)
    args = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-o", "addopts=",
            "--verify-claims=isometry:theorem1,isometry:figure6", "--verify-budget=quick", f"--verify-expect={mine}"]
    r = subprocess.run(args + [f"--junitxml={tmp_path / 'a.xml'}"], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0 and "1 passed, 1 xfailed" in r.stdout, r.stdout + r.stderr
    cases = _junit_cases(tmp_path / "a.xml")
    skipped = cases["figure6"].find("skipped")
    assert skipped is not None and skipped.get("message").startswith("known erratum:")
    props = {p.get("name"): p.get("value") for p in cases["figure6"].iter("property")}
    assert props["kind"] == "erratum" and props["expected"] == "violated"
    # the user's own kind for figure6: named as what it is, not as an erratum
    mine.write_text(mine.read_text() + '\n["isometry:figure6"]\nstatus = "violated"\nkind = "not reproduced"\n'
                                       'reason = "substitute data"\n')
    r = subprocess.run(args + [f"--junitxml={tmp_path / 'b.xml'}"], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    msg = _junit_cases(tmp_path / "b.xml")["figure6"].find("skipped").get("message")
    assert msg.startswith("experiment not reproduced in a substitute setting:") and "erratum" not in msg
    # replace instead of layer: figure6 is no longer expected violated
    mine.write_text('["isometry:theorem1"]\nstatus = "holds"\n')
    r = subprocess.run(args + ["--verify-expect-replace"], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 1 and "REGRESSION: expected holds, got violated" in r.stdout, r.stdout + r.stderr


def test_unknown_keys_and_a_bad_seed_are_usage_errors(tmp_path, capsys):
    f = tmp_path / "e.toml"
    f.write_text('["isometry:theorem1"]\nstaus = "holds"\n')
    assert main(["isometry:theorem1", "--expect", str(f), "--budget", "quick"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: --expect {str(f)!r}: ['isometry:theorem1'] unknown key 'staus'; did you mean 'status'?"]
    f.write_text('["isometry:theorem1"]\nstatus = "holds"\nkinds = "erratum"\n')
    with pytest.raises(E.ExpectationError, match="unknown key 'kinds'; did you mean 'kind'"):
        E.load(str(f))
    assert main(["isometry:theorem1", "--expect-replace", "--budget", "quick"]) == 2
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-o", "addopts=",
                        "--verify-claims=isometry:theorem1", "--verify-seed=-1"], cwd=tmp_path, env=_env(),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 4 and "--verify-seed" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_layering_puts_the_shipped_files_first_unless_replaced(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('["isometry:theorem1"]\nstatus = "violated"\nreason = "mine"\n')
    layered = E.load_many([str(f)])
    assert layered["isometry:theorem1"].status == "violated" and layered["isometry:figure6"].kind == "erratum"
    assert set(E.load_many([str(f)], replace=True)) == {"isometry:theorem1"}
    # a later "shipped" wins over the user's file, as the order says
    assert E.load_many([str(f), "shipped"])["isometry:theorem1"].status == "violated"   # shipped does not name it
    assert E.load_many(["shipped"]) == E.load_many([])


def test_one_run_gives_the_json_report_and_its_junit_view_and_render_rebuilds_it(tmp_path, capsys):
    """`verify all --json --junit` computes each claim once; `render --junit` gives the same cases from the saved
    report, judged by the expectations the run recorded — or by the --expect given to render."""
    report, junit = tmp_path / "r.json", tmp_path / "r.xml"
    code = main(["isometry:theorem1", "isometry:figure6", "--budget", "quick", "-q", "--expect", "shipped",
                 "--json", str(report), "--junit", str(junit)])
    assert code == 0
    cases = _junit_cases(junit)
    assert cases["figure6"].find("skipped").get("message").startswith("known erratum:")
    assert cases["theorem1"].find("failure") is None and cases["theorem1"].find("skipped") is None
    suite = ET.parse(junit).getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("2", "0", "1")
    again = tmp_path / "again.xml"
    assert main(["render", str(report), "--junit", str(again)]) == 0
    assert again.read_text() == junit.read_text()
    wrong = tmp_path / "wrong.toml"
    wrong.write_text('["isometry:theorem1"]\nstatus = "violated"\nreason = "wrong"\n')
    assert main(["render", str(report), "--junit", str(again), "--expect", str(wrong)]) == 0
    failure = _junit_cases(again)["theorem1"].find("failure")
    assert failure is not None and failure.get("message") == "NO LONGER REPRODUCES: expected violated, got holds"
    capsys.readouterr()


def test_the_pytest_plugin_reuses_the_verdicts_the_command_line_cached(tmp_path):
    """One cache for both front ends (the same settings key): a verdict the command line computed is served to the
    pytest plugin unchanged (its recorded seconds are the command line's), and --verify-no-cache recomputes."""
    env = {**_env(), "DEEPINIT_CACHE": str(tmp_path / "cache")}
    env.pop("DEEPINIT_NO_CACHE", None)
    r = subprocess.run([sys.executable, "-m", "verify", "isometry:theorem1", "--budget", "quick", "-q", "--json",
                        str(tmp_path / "r.json")], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    seconds = json.loads((tmp_path / "r.json").read_text())["verdicts"][0]["seconds"]
    for extra, same in (([], True), (["--verify-no-cache"], False)):   # recomputed: the verdict holds again
        r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-o", "addopts=",
                            "--verify-claims=isometry:theorem1", "--verify-budget=quick",
                            f"--junitxml={tmp_path / 'j.xml'}", *extra], cwd=tmp_path, env=env, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        props = {p.get("name"): p.get("value") for p in ET.parse(tmp_path / "j.xml").iter("property")}
        assert props["status"] == "holds"
        if same:      # served from the cache: the command line's own run, seconds and all
            assert float(props["seconds"]) == pytest.approx(seconds, abs=0.006)


def test_the_readmes_table_counts_are_the_registrys_and_the_files():
    """The README's table of papers: each built-in paper's number of checked claims is the registry's, its errata and
    experiments not reproduced are the shipped file's kinds; the example plugin's count is its declared claims."""
    import collections
    import glob
    import re
    from verify.registry import all_claims
    exp = E.load("shipped")
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        table = {m.group(1): (int(m.group(2)), m.group(3).strip(), m.group(4).strip()) for m in re.finditer(
            r"^\| `([a-z0-9-]+)` — [^|]*\| (\d+) \|([^|]*)\|([^|]*)\|$", f.read(), re.M)}
    claims = collections.Counter(c.paper for c in all_claims())
    examples = {key: sum(open(p, encoding="utf-8").read().count("@PAPER.claim(")
                         for p in glob.glob(os.path.join(ROOT, "examples", folder, package, "*.py")))
                for key, folder, package in (("schoenholz2017", "deepinfo-propagation", "deepinfo_claims"),
                                             ("pennington2017", "resurrecting-sigmoid", "sigmoid_isometry_claims"))}
    assert set(table) == set(claims) | set(examples)
    for key, count in examples.items():
        assert table[key][0] == count, f"{key}: the README says {table[key][0]} claims, the plugin declares {count}"
    for paper, (n, errata, not_reproduced) in table.items():
        if paper in examples:
            continue
        assert n == claims[paper], f"{paper}: the README says {n} checked claims, the registry has {claims[paper]}"
        for column, kind in ((errata, "erratum"), (not_reproduced, "not reproduced")):
            want = sum(1 for e in exp.values() if e.kind == kind and e.claim.startswith(paper + ":"))
            got = int(column.split(":")[0]) if column[0].isdigit() else 0
            assert got == want, f"{paper}: the README counts {got} of kind {kind!r}, the shipped file {want}"
