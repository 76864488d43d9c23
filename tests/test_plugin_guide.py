"""docs/plugins.md ("Verify your own paper") works as written: its files are built into a package, installed with pip
(a real, non-editable install into a temporary directory), and each of its commands gives the outcome the page says."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, "docs", "plugins.md")


def _files(page: str) -> dict[str, str]:
    """The page's code blocks that start with ``# file: PATH`` (``(continued)`` appends), by path."""
    out: dict[str, str] = {}
    for lang, body in re.findall(r"```(\w+)\n(.*?)```", page, re.S):
        first, _, rest = body.partition("\n")
        m = re.match(r"# file: (\S+)", first)
        if m:
            out[m.group(1)] = out.get(m.group(1), "") + ("\n\n" if m.group(1) in out else "") + rest
    return out


def _commands(page: str) -> list[list[str]]:
    return [shlex.split(line[2:]) for lang, body in re.findall(r"```(\w+)\n(.*?)```", page, re.S)
            if lang == "console" for line in body.splitlines() if line.startswith("$ ")]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("guide")
    with open(PAGE, encoding="utf-8") as f:
        page = f.read()
    project = tmp / "my-paper-claims"
    for path, text in _files(page).items():
        target = project / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    site = tmp / "site"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                        "--disable-pip-version-check", "--target", str(site), str(project)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), ROOT]), "OMP_NUM_THREADS": "1"}
    return page, env, tmp


def test_the_guide_has_the_files_and_commands_it_describes(installed):
    page, env, tmp = installed
    assert set(_files(page)) == {"pyproject.toml", "my_paper_claims/__init__.py", "my_paper_claims/expected.toml"}
    cmds = [c[:4] for c in _commands(page)]
    assert ["python", "-m", "verify", "contract"] in cmds and ["python", "-m", "pytest", "--verify-claims=mypaper2025"] in cmds


def test_every_command_of_the_guide_gives_the_outcome_it_states(installed):
    page, env, tmp = installed
    outcomes = {}
    for cmd in _commands(page):
        if cmd[:2] == ["pip", "install"]:
            continue  # done by the fixture, from the same files
        if cmd[0] == "python":
            cmd = [sys.executable, *cmd[1:]]
        if "--junitxml=claims.xml" in cmd:
            cmd += ["-p", "no:cacheprovider", "-o", "addopts=", "-q"]
        r = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=600)
        outcomes[" ".join(cmd[1:5])] = r
        assert r.returncode == 0, (cmd, r.stdout[-2000:], r.stderr[-2000:])
    listed = outcomes["-m verify list mypaper2025"].stdout
    assert "mypaper2025:eq1" in listed and "mypaper2025:eq2" in listed
    run = outcomes["-m verify mypaper2025:eq1 --budget"].stdout
    assert "holds" in run and "violated" in run   # the verdict and its flagged control
    assert "2 of 2 claims as expected (1 known erratum reproduced)" in outcomes["-m verify all --paper"].stdout
    assert "contract: " in outcomes["-m verify contract mypaper2025"].stdout
    assert "1 passed, 1 xfailed" in outcomes["-m pytest --verify-claims=mypaper2025 --verify-budget=quick"].stdout
    assert 'classname="deepinit-verify.mypaper2025"' in (tmp / "claims.xml").read_text()


def test_the_guides_claims_fail_under_a_perturbation_of_their_printed_constant(installed):
    page, env, tmp = installed
    r = subprocess.run([sys.executable, "-m", "verify", "mypaper2025:eq1", "--budget", "quick", "-q", "--no-control",
                        "--perturb", "mypaper2025:half=0.05"], cwd=tmp, env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 1 and "violated" in r.stdout
