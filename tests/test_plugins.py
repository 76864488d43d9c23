"""Papers as plugins: discovery through the entry-point group ``deepinit_verify.papers``, in every part of the package.

A minimal plugin is written into a temporary directory as an installed distribution would be (a package and its
``.dist-info`` with ``entry_points.txt``) and put on ``PYTHONPATH``: :mod:`importlib.metadata` discovers it exactly as
it discovers a plugin installed with pip, with no private registration.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from verify import api
from verify import registry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PLUGIN = '''
"""A minimal paper: E z² = 1 for z ~ N(0, 1) (its eq (1)), and a misprinted eq (2) claiming E z² = 1/2."""
import os
import numpy as np
from verify import api

PRINTED = 1.0   # eq (1) as printed (the cache test edits this line)

PAPER = api.Paper(key="mini2024", title="A minimal paper", citation="Tester — a minimal paper (2024)",
                  api_version="1.0",
                  coverage=[api.Item("eq (1)", ("second-moment",)), api.Item("eq (2)", ("misprint",))],
                  expectations=os.path.join(os.path.dirname(__file__), "expected.toml"))
moment = PAPER.quantity("m2", "E z²", "the second moment printed in eq (1)", "exact")


def _sample(ctx, n):
    return api.memo(("z", ctx.seed, n), lambda: np.random.default_rng(ctx.seed).standard_normal(n))


def _judge(cid, ctx, printed):
    n = ctx.pick(400_000, 1_000_000, 4_000_000)
    z2 = _sample(ctx, n) ** 2
    mean, se = float(z2.mean()), float(z2.std(ddof=1) / np.sqrt(n))
    zscore = (mean - printed) / se
    rows = [api.Evidence("E z² (Monte Carlo) vs printed", theory=printed, numeric=mean, observed=abs(zscore),
                         bound=4.0, statistic="|z|", passed=abs(zscore) < 4.0, note=f"z = {zscore:.2f}, n = {n}")]
    return api.judged(cid, rows, f"E z² = {printed} within 4 SE", f"E z² ≠ {printed}: z = {zscore:.1f}")


@PAPER.claim("second-moment", title="Eq (1): E z² = 1", statement="For z ~ N(0, 1), E z² = 1.",
             depends_on=(moment,))
def second_moment(ctx):
    return _judge("mini2024:second-moment", ctx, moment.scaled(PRINTED))


def _positive(ctx):
    return _judge("mini2024:misprint", ctx, 1.0)


@PAPER.claim("misprint", title="Eq (2): E z² = 1/2 (misprinted)", statement="For z ~ N(0, 1), E z² = 1/2.",
             positive_control=_positive, positive_control_description="the same check of E z² = 1")
def misprint(ctx):
    return _judge("mini2024:misprint", ctx, 0.5)
'''

EXPECTED = '''
["mini2024:misprint"]
kind = "erratum"
status = "violated"
reason = "eq (2) is misprinted: E z² = 1, not 1/2 (positive control: the same check of E z² = 1)"
'''


def _install(base, name="mini_plugin", source=PLUGIN, key="mini2024", version="0.1.0"):
    pkg = base / name
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text(textwrap.dedent(source))
    (pkg / "expected.toml").write_text(EXPECTED)
    dist = base / f"{name}-{version}.dist-info"
    dist.mkdir(exist_ok=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: {version}\n")
    (dist / "entry_points.txt").write_text(f"[deepinit_verify.papers]\n{key} = {name}:PAPER\n")
    return pkg


@pytest.fixture()
def plugin_env(tmp_path):
    site = tmp_path / "site"
    _install(site)
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": os.pathsep.join([str(site), ROOT]),
           "DEEPINIT_CACHE": str(tmp_path / "cache"), "DEEPINIT_NO_CACHE": ""}
    return site, env, tmp_path


def _verify(env, *args, cwd=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "verify", *args], cwd=cwd or ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_the_builtin_papers_come_from_the_entry_points_through_the_public_api():
    """One registration path: the four built-in papers are entry points of this distribution naming verify.api.Paper
    objects, and every claim is registered through Paper.add."""
    src = registry.sources()
    builtin = {k for k, v in src.items() if v["builtin"]}
    assert builtin == {"bn-finite-width", "bn-mean-field", "isometry", "covariance-sde"}
    for key in builtin:
        paper = registry.paper(key)
        assert isinstance(paper, api.Paper) and paper.key == key and paper.coverage
        assert {c.name for c in registry.all_claims() if c.paper == key} == set(paper.claims)
    # nothing but Paper (verify/paper.py, re-exported by verify.api) calls the add functions it defines
    for dirpath, _, files in os.walk(os.path.join(ROOT, "verify")):
        for fn in files:
            if fn.endswith(".py") and not (dirpath.endswith("verify") and fn in ("paper.py", "registry.py")):
                text = open(os.path.join(dirpath, fn), encoding="utf-8").read()
                assert "add_claim(" not in text and "add_paper(" not in text, fn
    # the built-in papers take the calibration rows from verify.api, as a plugin does
    for dirpath, _, files in os.walk(os.path.join(ROOT, "verify", "papers")):
        for fn in files:
            if fn.endswith(".py"):
                assert "calibration import" not in open(os.path.join(dirpath, fn), encoding="utf-8").read(), fn


def test_declarations_are_checked():
    assert all(api.check_api_version(v) is None for v in ("1.0", "1.1", "1.2", "1.3", "1.4"))   # minor versions add names
    with pytest.raises(api.APIVersionError, match="needs deepinit-verify's claim API 1.5"):
        api.check_api_version("1.5")
    with pytest.raises(api.APIVersionError, match="needs deepinit-verify's claim API 2.0"):
        api.Paper(key="future2030", title="t", citation="c", api_version="2.0", register=False)
    with pytest.raises(api.PaperDeclarationError, match="lower-case"):
        api.Paper(key="Bad Key", title="t", citation="c", register=False)
    p = api.Paper(key="detached2024", title="t", citation="c", register=False)
    with pytest.raises(api.PaperDeclarationError, match="another paper"):
        p.add(api.Claim(paper="detached2024", name="x", title="t", statement="s", depends_on=("isometry:beta",)))
    with pytest.raises(ValueError, match="declared twice"):
        p.quantity("k", "k", "m", "s") and p.quantity("k", "k", "m", "s")


def test_a_plugin_is_listed_run_perturbed_and_composed_with_the_shipped_expectations(plugin_env):
    site, env, tmp = plugin_env
    r = _verify(env, "list", "mini2024")
    assert r.returncode == 0, r.stderr
    assert "mini2024:second-moment" in r.stdout and "mini2024:misprint" in r.stdout
    r = _verify(env, "list", "-v", "mini2024")
    assert "depends on" in r.stdout and "mini2024:m2" in r.stdout
    # run with controls: holds, the ±5% perturbations of the declared quantity flagged
    report = tmp / "r.json"
    r = _verify(env, "mini2024:second-moment", "--budget", "quick", "--json", str(report))
    assert r.returncode == 0, r.stderr + r.stdout
    doc = json.loads(report.read_text())
    v = doc["verdicts"][0]
    assert v["status"] == "holds" and v["negative_control"]["status"] == "violated"
    assert v["resolution"] == {"mini2024:m2": 0.05}
    assert {"paper": "mini2024", "distribution": "mini-plugin", "version": "0.1.0", "module": "mini_plugin",
            "builtin": False} in doc["provenance"]["papers"]
    # --perturb: the run goes red (violated; with no positive control the runner reports it inconclusive, exit 3)
    r = _verify(env, "mini2024:second-moment", "--budget", "quick", "--perturb", "mini2024:m2=0.05", "-q")
    assert r.returncode == 3 and "second-moment                   inconclusive" in r.stdout
    r = _verify(env, "mini2024:second-moment", "--budget", "quick", "--perturb", "mini2024:m2=0.05", "-q",
                "--no-control")
    assert r.returncode == 1 and "violated" in r.stdout
    # expectations compose: shipped (the built-in file and the plugin's) then mine.toml
    r = _verify(env, "all", "--paper", "mini2024", "--budget", "quick", "--expect", "shipped", "-q")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 of 2 claims as expected" in r.stdout
    mine = tmp / "mine.toml"
    mine.write_text('["mini2024:second-moment"]\nkind = "erratum"\nstatus = "violated"\n'
                    'reason = "a deliberately wrong entry"\n')
    r = _verify(env, "all", "--paper", "mini2024", "--budget", "quick", "--expect", "shipped", "--expect", str(mine),
                "-q")
    assert r.returncode == 1 and "NO LONGER REPRODUCES: mini2024:second-moment" in r.stdout
    assert "mini2024:misprint" not in r.stdout.split("expectations:")[1].split("\n", 1)[1]  # still matched


def test_editing_a_plugin_invalidates_its_cached_verdicts(plugin_env):
    site, env, tmp = plugin_env
    first = _verify(env, "mini2024:second-moment", "--budget", "quick", "-q", "--no-control")
    again = _verify(env, "mini2024:second-moment", "--budget", "quick", "-q", "--no-control")
    assert first.returncode == 0 and again.returncode == 0 and "cached" in again.stdout
    init = site / "mini_plugin" / "__init__.py"
    init.write_text(init.read_text().replace("PRINTED = 1.0", "PRINTED = 1.2"))
    edited = _verify(env, "mini2024:second-moment", "--budget", "quick", "-q", "--no-control")
    assert edited.returncode == 1 and "violated" in edited.stdout and "cached" not in edited.stdout


def test_a_broken_plugin_fails_alone_and_says_why(plugin_env):
    site, env, tmp = plugin_env
    _install(site, "broken_plugin", "import no_such_module_anywhere\n", key="broken2024")
    r = _verify(env, "list", "broken2024")
    assert "broken2024" in r.stdout and "No module named 'no_such_module_anywhere'" in r.stdout
    r = _verify(env, "broken2024:anything", "-q")
    assert r.returncode == 2 and "could not be loaded" in r.stderr and "no_such_module_anywhere" in r.stderr
    r = _verify(env, "all", "--paper", "mini2024", "--budget", "quick", "-q", "--no-control")
    assert r.returncode == 1  # mini2024's misprint is violated; the broken plugin is not in this selection
    r = _verify(env, "isometry:theorem1", "--budget", "quick", "-q")
    assert r.returncode == 0  # the other papers run


def test_a_plugin_claim_gives_the_serial_numbers_under_jobs_2_and_in_the_pytest_plugin(plugin_env):
    site, env, tmp = plugin_env
    serial, par = tmp / "s.json", tmp / "p.json"
    args = ["all", "--paper", "mini2024", "--budget", "quick", "--no-cache", "-q"]
    assert _verify(env, *args, "--json", str(serial)).returncode == 1
    assert _verify(env, *args, "--jobs", "2", "--json", str(par)).returncode == 1
    numbers = [[(e["name"], e["numeric"]) for v in json.loads(p.read_text())["verdicts"] for e in v["evidence"]]
               for p in (serial, par)]
    assert numbers[0] == numbers[1] and len(numbers[0]) == 2
    junit = tmp / "j.xml"
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--verify-claims=mini2024",
                        "--verify-budget=quick", f"--junitxml={junit}", "-q", "-o", "addopts="],
                       cwd=tmp, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 passed, 1 xfailed" in r.stdout
    assert 'classname="deepinit-verify.mini2024"' in junit.read_text()


def test_a_plugin_gets_its_docs_page_and_render_refuses_unknown_claims(plugin_env):
    site, env, tmp = plugin_env
    page = tmp / "mini.md"
    r = subprocess.run([sys.executable, "-m", "verify.docs", "mini2024", "--budget", "quick", "--out", str(page),
                        "--figures", str(tmp / "figs")], cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    text = page.read_text()
    assert "Tester — a minimal paper (2024)" in text and "the plugin `mini_plugin`" in text
    assert "| eq (1) | `mini2024:second-moment` |" in text
    # the misprint is violated and records no itemised erratum: the page still lists it as a finding
    errata = text.split("## Errata found", 1)[1].split("## Claims in detail", 1)[0]
    assert "`mini2024:misprint`, violated" in errata and "None." not in errata
    report = tmp / "r.json"
    assert _verify(env, "mini2024:second-moment", "--budget", "quick", "-q", "--json", str(report)).returncode == 0
    plain = {**env, "PYTHONPATH": ROOT}   # the plugin is not installed here
    r = _verify(plain, "render", str(report), "--latex", str(tmp / "t.tex"))
    assert r.returncode == 2 and "not known here: mini2024:second-moment" in r.stderr


def test_a_plugin_claim_on_a_dask_local_cluster_gives_the_serial_numbers(plugin_env, monkeypatch):
    """The workers are separate processes: they discover the plugin from the same installed metadata."""
    distributed = pytest.importorskip("distributed")
    site, env, tmp = plugin_env
    # the workers' environment: the plugin installed there (spawned workers take this process's sys.path)
    monkeypatch.setenv("PYTHONPATH", env["PYTHONPATH"])
    monkeypatch.syspath_prepend(str(site))
    serial, remote = tmp / "s.json", tmp / "d.json"
    args = ["all", "--paper", "mini2024", "--budget", "quick", "--no-cache", "-q"]
    assert _verify(env, *args, "--json", str(serial)).returncode == 1
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        r = _verify(env, *args, "--json", str(remote), "--scheduler", c.scheduler_address)
    assert r.returncode == 1, r.stderr[-2000:]
    numbers = [[(v["claim"], v["status"], [e["numeric"] for e in v["evidence"]])
                for v in json.loads(p.read_text())["verdicts"]] for p in (serial, remote)]
    assert numbers[0] == numbers[1]
    assert [(n[0], n[1]) for n in numbers[0]] == [("mini2024:second-moment", "holds"),     # in declaration order
                                                  ("mini2024:misprint", "violated")]


def test_the_contract_checker_passes_a_sound_plugin_and_names_what_a_sloppy_one_breaks(plugin_env):
    site, env, tmp = plugin_env
    r = _verify(env, "contract", "mini2024", "-q")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "contract: 9 of 9 rules kept" in r.stdout
    r = _verify(env, "contract", "mini2024")
    # the misprint declares no quantity and no structural control: the rule is not applied to a violated claim, and
    # the report says so rather than implying a control was flagged
    assert "(not applied: the claim itself is violated; a violated claim shows its power by its positive control)" \
        in r.stdout, r.stdout
    # a check that declares m2 but compares with the bare printed value: never perturbed, so never flagged
    init = site / "mini_plugin" / "__init__.py"
    init.write_text(init.read_text().replace("moment.scaled(PRINTED)", "PRINTED"))
    r = _verify(env, "contract", "mini2024", "-q")
    assert r.returncode == 1
    assert "FAIL  declared quantities are the consumed ones — declared ['mini2024:m2'], consumed none" in r.stdout
    assert "FAIL  m2 ×(1 ± 0.05) is flagged — +δ: not consumed, −δ: not consumed" in r.stdout


def test_a_plugin_that_exits_or_prints_at_import_fails_alone(plugin_env):
    """A plugin calling sys.exit(0) at import made every command exit 0 having run nothing, and one printing at import
    corrupted `--json -`: the first is that plugin's failure (the others run, the exit status is theirs), the second
    prints to stderr."""
    site, env, tmp = plugin_env
    _install(site, "exiting_plugin", "import sys\nsys.exit(0)\n", key="exiting2024")
    _install(site, "chatty_plugin", "print('hello from a plugin')\nfrom verify import api\n"
             "PAPER = api.Paper(key='chatty2024', title='t', citation='c', api_version='1.0')\n", key="chatty2024")
    r = _verify(env, "list", "exiting2024")
    assert "exiting2024" in r.stdout and "sys.exit(0)" in r.stdout
    r = _verify(env, "exiting2024:anything", "-q")
    assert r.returncode == 2 and "could not be loaded" in r.stderr
    r = _verify(env, "isometry:lemma-a4", "--budget", "quick", "--no-cache", "--json", "-", "-q")
    assert r.returncode == 0 and json.loads(r.stdout)["verdicts"][0]["status"] == "holds"
    assert "hello from a plugin" in r.stderr and "hello" not in r.stdout


def test_a_plugin_that_hangs_at_import_is_a_load_failure_not_a_hung_command(plugin_env):
    """A plugin whose import never ends hung `verify list` and every run: the import now has a time limit
    (DEEPINIT_PLUGIN_TIMEOUT, here 2 s); past it the plugin is a load failure and the other papers run."""
    import time
    site, env, tmp = plugin_env
    _install(site, "hanging_plugin", "import time\nwhile True:\n    time.sleep(0.5)\n", key="hanging2024")
    env = {**env, "DEEPINIT_PLUGIN_TIMEOUT": "2"}
    start = time.monotonic()
    r = _verify(env, "list", "hanging2024", timeout=120)
    assert "hanging2024" in r.stdout and "longer than 2 s" in r.stdout
    r = _verify(env, "isometry:lemma-a4", "--budget", "quick", "--no-cache", "-q", timeout=120)
    assert r.returncode == 0 and "holds" in r.stdout
    assert time.monotonic() - start < 100
    r = _verify({**env, "DEEPINIT_PLUGIN_TIMEOUT": "-1"}, "isometry:lemma-a4", "--budget", "quick", "-q")
    assert r.returncode == 2 and "DEEPINIT_PLUGIN_TIMEOUT" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_a_paper_served_twice_or_shadowed_by_a_local_module_is_an_error_naming_both(plugin_env):
    """A second distribution serving the key mini2024, and a local mini_plugin.py earlier on the path than the
    installed plugin, each used to replace one paper silently: both are now that paper's load failure naming the two
    sources; the built-in papers still run."""
    site, env, tmp = plugin_env
    local = tmp / "work"
    local.mkdir()
    (local / "mini_plugin.py").write_text("raise SystemExit('a stale copy')\n")
    r = _verify(env, "list", "mini2024", cwd=local)
    assert "mini2024" in r.stdout and "is found in" in r.stdout and str(local) in r.stdout
    r = _verify(env, "mini2024:second-moment", "--budget", "quick", "-q", cwd=local)
    assert r.returncode == 2 and "is found in" in r.stderr
    r = _verify(env, "list", "mini2024")                         # from elsewhere: one module, the plugin loads
    assert "is found in" not in r.stdout and "second-moment" in r.stdout
    other = tmp / "site2"
    _install(other, "mini_twin", PLUGIN.replace('key="mini2024"', 'key="mini2024"'), key="mini2024")
    twin_env = {**env, "PYTHONPATH": os.pathsep.join([str(site), str(other), ROOT])}
    r = _verify(twin_env, "list", "mini2024")
    assert "served twice" in r.stdout and "mini-plugin" in r.stdout and "mini-twin" in r.stdout
    r = _verify(twin_env, "isometry:lemma-a4", "--budget", "quick", "--no-cache", "-q")
    assert r.returncode == 0


def test_the_pytest_plugin_reports_a_broken_plugin_as_a_failure(plugin_env):
    """A broken plugin was dropped silently by the pytest plugin (exit 0 having run none of it): with
    --verify-claims=all it is now a failing item naming the cause."""
    site, env, tmp = plugin_env
    _install(site, "broken_plugin", "import no_such_module_anywhere\n", key="broken2024")
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--verify-claims=broken2024,"
                        "mini2024:second-moment", "--verify-budget=quick", "--verify-only", "--verify-no-control",
                        "-q", str(tmp)], cwd=tmp, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode != 0, r.stdout
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--verify-claims=all",
                        "--verify-budget=quick", "--verify-only", "--verify-no-control", "-q", "-k",
                        "broken2024 or second_moment or second-moment", str(tmp)], cwd=tmp, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 1 and "1 failed" in r.stdout and "no_such_module_anywhere" in r.stdout, r.stdout[-2000:]
