"""The example plugin ``examples/deepinfo-propagation`` (Schoenholz et al. 2017) as a user gets it: built and installed
with pip (non-editable, into a temporary directory), then found through its entry point by every part of the package.
"""
from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "deepinfo-propagation")
FAST = ["schoenholz2017:backprop", "schoenholz2017:finite-width-tracking"]


def _installed(tmp, *plugins):
    """``plugins`` installed with pip (non-editable) into ``tmp/site``, and the environment that finds them."""
    target = tmp / "site"
    for path in plugins:
        # built from a private copy: setuptools builds in the source tree's build/, which two pytest-xdist workers
        # installing the same plugin at once would share (a collision in build/bdist…, seen as a failed install).
        # The copy lives outside ``tmp`` and is removed after the build: the pytest runs below start in ``tmp`` and
        # would otherwise collect the copy's own test files.
        with tempfile.TemporaryDirectory(prefix="plugin-src-") as scratch:
            src = os.path.join(scratch, os.path.basename(os.path.normpath(path)))
            shutil.copytree(path, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
            r = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                                "--disable-pip-version-check", "--target", str(target), src],
                               capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
    assert not any(tmp.rglob("test_*.py")), "a test file under the directory the pytest runs start in"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), ROOT]), "OMP_NUM_THREADS": "1",
           "DEEPINIT_NO_CACHE": "1"}
    return tmp, env


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return _installed(tmp_path_factory.mktemp("example"), EXAMPLE)


def _verify(env, *args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "verify", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=900)


#: plugin tests that the installed-plugin tests here assert otherwise (a test of this file that does it)
ASSERTED_BY_REPORT = {"test_expected_statuses_match"}


def _plugin_test_shards(n: int) -> list[list[str]]:
    """The example plugin's test functions as ``n`` lists of pytest node ids, read from its test files with ``ast``
    (nothing imported here). Tests that read the same quick verdict (``verdict("name")``, computed once per process)
    stay in one shard; the groups are dealt out in file order. ``test_expected_statuses_match`` (every quick verdict
    against the shipped expectations) is left out: the report below runs ``verify all --paper schoenholz2017 --expect
    shipped`` once and its test asserts "9 of 9 claims as expected" — the same comparison, computed once."""
    groups: dict[str, list[str]] = {}
    tests = os.path.join(EXAMPLE, "tests")
    for name in sorted(os.listdir(tests)):
        if not (name.startswith("test_") and name.endswith(".py")):
            continue
        path = os.path.join(tests, name)
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_") and node.name not in ASSERTED_BY_REPORT:
                reads = [c.args[0].value for c in ast.walk(node) if isinstance(c, ast.Call)
                         and getattr(c.func, "id", None) == "verdict" and c.args and isinstance(c.args[0], ast.Constant)]
                groups.setdefault(reads[0] if reads else node.name, []).append(f"{path}::{node.name}")
    shards: list[list[str]] = [[] for _ in range(n)]
    for k, ids in enumerate(groups.values()):
        shards[k % n] += ids
    return shards


PLUGIN_SHARDS = 2


def test_the_plugins_test_shards_hold_every_test_once():
    shards = _plugin_test_shards(PLUGIN_SHARDS)
    ids = [i for s in shards for i in s]
    assert len(ids) == len(set(ids)) >= 35 and all(len(s) >= 15 for s in shards)
    # a test reading a verdict sits with every other reader of it
    assert {i.split("::")[1] for s in shards if any(i.endswith("::test_edge_of_chaos") for i in s) for i in s} >= {
        "test_edge_of_chaos", "test_edge_of_chaos_at_zero_bias", "test_the_tangent_runs_layer_zero_is_its_inputs"}
    assert not any(i.endswith("::test_expected_statuses_match") for i in ids)


@pytest.mark.parametrize("shard", range(PLUGIN_SHARDS))
def test_the_example_plugins_own_tests_pass_against_the_installed_plugin(site, shard):
    """The plugin's own test files against the installed plugin, in two shards (one per pytest-xdist worker)."""
    tmp, env = site
    ids = _plugin_test_shards(PLUGIN_SHARDS)[shard]
    r = subprocess.run([sys.executable, "-m", "pytest", *ids, "-p", "no:cacheprovider", "-o", "addopts=", "-q"],
                       cwd=tmp, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    passed = re.search(r"(?<![0-9])([0-9]+) passed", r.stdout)
    assert passed and int(passed.group(1)) >= len(ids), r.stdout[-2000:]


@pytest.fixture(scope="module")
def report(site):
    """``verify all --paper schoenholz2017 --budget quick --expect shipped --json``, run once: the tests below read its
    verdicts (render, the docs page, --jobs 2 and Dask against the same numbers) instead of computing them again."""
    tmp, env = site
    path = tmp / "r.json"
    r = _verify(env, "all", "--paper", "schoenholz2017", "--budget", "quick", "--expect", "shipped", "-q",
                "--json", str(path))
    return r, path


#: the tests that read the one report run on one pytest-xdist worker (--dist loadgroup), which computes it once
ONE_REPORT = pytest.mark.xdist_group("example-plugin-report")


@ONE_REPORT
def test_its_claims_run_with_the_shipped_expectations_render_and_turn_red_when_perturbed(site, report):
    tmp, env = site
    r = _verify(env, "list", "schoenholz2017")
    assert r.returncode == 0 and r.stdout.count("schoenholz2017:") >= 9, r.stdout
    r, path = report
    assert r.returncode == 0, r.stdout + r.stderr
    assert "9 of 9 claims as expected" in r.stdout
    doc = json.loads(path.read_text())
    by = {v["claim"]: v for v in doc["verdicts"]}
    assert by["schoenholz2017:edge-of-chaos"]["resolution"] == {"schoenholz2017:chi1": 0.05}
    assert all(v["status"] == "holds" for v in by.values())
    assert any(p["paper"] == "schoenholz2017" and p["distribution"] == "deepinfo-propagation-claims"
               and p["version"] == "0.1.0" for p in doc["provenance"]["papers"])
    page = tmp / "page.md"
    r = _verify(env, "render", str(path), "--markdown", str(page))
    assert r.returncode == 0, r.stderr
    assert "# `schoenholz2017` — Schoenholz, Gilmer, Ganguli, Sohl-Dickstein" in page.read_text()
    r = _verify(env, "schoenholz2017:edge-of-chaos", "--budget", "quick", "-q", "--no-control",
                "--perturb", "schoenholz2017:chi1=0.05")
    assert r.returncode == 1 and "violated" in r.stdout
    # --jobs 2: the serial numbers
    par = tmp / "p.json"
    r = _verify(env, *FAST, "--budget", "quick", "-q", "--jobs", "2", "--json", str(par))
    assert r.returncode == 0, r.stderr
    for v in json.loads(par.read_text())["verdicts"]:
        assert [e["numeric"] for e in v["evidence"]] == [e["numeric"] for e in by[v["claim"]]["evidence"]]


def test_its_claims_are_junit_cases_of_the_pytest_plugin(site):
    tmp, env = site
    junit = tmp / "j.xml"
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=", "-q",
                        "--verify-claims=" + ",".join(FAST), "--verify-budget=quick", f"--junitxml={junit}"],
                       cwd=tmp, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-2000:]
    assert re.search(r"(?<![0-9])2 passed", r.stdout), r.stdout[-2000:]   # the two claims, and no test file
    assert junit.read_text().count('classname="deepinit-verify.schoenholz2017"') == 2


@ONE_REPORT
def test_its_page_comes_from_verify_docs_with_its_coverage_table(site, report):
    """The page of ``python -m verify.docs`` from the run's report (``--from-report``: nothing computed again)."""
    tmp, env = site
    page = tmp / "schoenholz2017.md"
    r = subprocess.run([sys.executable, "-m", "verify.docs", "schoenholz2017", "--from-report", str(report[1]),
                        "--out", str(page)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    text = page.read_text()
    assert "# `schoenholz2017` — Schoenholz, Gilmer, Ganguli, Sohl-Dickstein" in text
    assert "`schoenholz2017:edge-of-chaos`" in text and "| holds |" in text.replace("**", "")
    rows = [line for line in text.splitlines() if line.startswith("| ") and "`schoenholz2017:" in line]
    assert len(rows) >= 6, text[:3000]
    assert "*Verdict (quick budget, seed 0" in text
    # a report without the paper's verdicts is refused in one line, exit 2
    other = tmp / "other.json"
    other.write_text(json.dumps({"verdicts": []}))
    r = subprocess.run([sys.executable, "-m", "verify.docs", "schoenholz2017", "--from-report", str(other),
                        "--out", str(tmp / "x.md")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and r.stderr.strip().splitlines()[-1].startswith("error: --from-report")


@ONE_REPORT
def test_its_claims_on_a_dask_local_cluster_give_the_serial_numbers(site, report, monkeypatch):
    """Dask workers are separate processes: they find the installed plugin through its entry point."""
    distributed = pytest.importorskip("distributed")
    tmp, env = site
    monkeypatch.setenv("PYTHONPATH", env["PYTHONPATH"])
    monkeypatch.syspath_prepend(env["PYTHONPATH"].split(os.pathsep)[0])
    remote = tmp / "d.json"
    args = [*FAST, "--budget", "quick", "--no-cache", "-q"]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        r = _verify(env, *args, "--json", str(remote), "--scheduler", c.scheduler_address)
    assert r.returncode == 0, r.stderr[-2000:]
    serial = {v["claim"]: v for v in json.loads(report[1].read_text())["verdicts"]}    # the serial run's numbers
    numbers = [(v["claim"], v["status"], [e["numeric"] for e in v["evidence"]])
               for v in json.loads(remote.read_text())["verdicts"]]
    assert numbers == [(c, serial[c]["status"], [e["numeric"] for e in serial[c]["evidence"]]) for c, _, _ in numbers]
    assert sorted(n[0] for n in numbers) == sorted(FAST) and {n[1] for n in numbers} == {"holds"}


SECOND = os.path.join(ROOT, "examples", "resurrecting-sigmoid")


@pytest.fixture(scope="module")
def both_sites(tmp_path_factory):
    """Both example plugins installed side by side (non-editable), as a user with two plugins has them."""
    return _installed(tmp_path_factory.mktemp("examples"), EXAMPLE, SECOND)


@pytest.mark.xdist_group("second-example-plugin")
def test_the_second_example_plugin_beside_the_first_holds_as_shipped_with_power_and_a_page(both_sites):
    """pennington2017 (examples/resurrecting-sigmoid) installed with schoenholz2017: both are listed; ``verify all
    --paper pennington2017 --budget quick --expect shipped`` exits 0 with every claim holding and every ±5% control
    flagged; its page comes from the report; its own discovery, closed-form and moment-error tests pass."""
    tmp, env = both_sites
    r = _verify(env, "list")
    assert r.returncode == 0 and "schoenholz2017:backprop" in r.stdout and "pennington2017:isometry" in r.stdout
    path = tmp / "p.json"
    r = _verify(env, "all", "--paper", "pennington2017", "--budget", "quick", "--expect", "shipped", "-q",
                "--json", str(path))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "3 of 3 claims as expected" in r.stdout
    verdicts = json.loads(path.read_text())["verdicts"]
    assert sorted(v["claim"] for v in verdicts) == ["pennington2017:isometry", "pennington2017:jacobian-moments",
                                                    "pennington2017:spectral-density"]
    for v in verdicts:
        assert v["status"] == "holds", v["summary"]
        assert v["negative_control"]["status"] == "violated" and set(v["resolution"].values()) == {0.05}
    page = tmp / "pennington2017.md"
    r = subprocess.run([sys.executable, "-m", "verify.docs", "pennington2017", "--from-report", str(path),
                        "--out", str(page)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "`pennington2017:spectral-density`" in page.read_text()
    r = subprocess.run([sys.executable, "-m", "pytest", os.path.join(SECOND, "tests"), "-p", "no:cacheprovider",
                        "-o", "addopts=", "-q", "-k", "discovered or golden or wide_error"], cwd=tmp, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and "3 passed" in r.stdout, r.stdout[-3000:]
