"""Mutation testing of deepinit-verify (issue 28, item 1): do the verdicts catch our own implementation bugs?

    python benchmarks/mutation/run_mutants.py [--ref REF] [--paper P ...] [--mutant ID ...] [--module PREFIX ...]
                                              [--jobs N] [--tests | --tests-survivors] [--operators N]
                                              [--report PATH] [--no-early-stop] [--list]

The code under test is a *committed* git ref (default ``HEAD``), never the working tree: ``git archive REF`` is
extracted once into a temporary directory; every mutant gets its own copy of that tree, with one exact-string
replacement (``old`` → ``new`` in ``file``; ``old`` must occur exactly once, else the mutant is *stale* and not run).
Each copy runs with ``cwd=copy`` and ``PYTHONPATH=copy`` (ahead of the editable install's finder, which Python
consults after ``sys.path``), one thread (``OMP_NUM_THREADS=1``), no verdict cache and a private ``DEEPINIT_CACHE``.

Oracles:

* **verify** — ``python -m verify all --paper P --budget quick --expect shipped --no-cache --jobs 1 -q`` for each
  paper the mutant lists (a plugin paper — the example plugin ``schoenholz2017``, the mean-field engine's claims —
  is pip-installed from the extracted tree into a directory behind each copy on PYTHONPATH). The unmutated baseline runs first (it must exit 0; the harness aborts otherwise) and its
  per-claim statuses are recorded. Since the baseline matches every shipped expectation and the run is
  deterministic (same seed, same numbers), a mutated run exits non-zero exactly when some claim's status differs
  from the baseline's, or the run crashes (exit 4: a crash or the self-test of the verdict machinery) — so the run
  is stopped as soon as a printed status differs (``--no-early-stop`` runs it to the end and records the exit
  status). A run longer than 3× its baseline (+60 s) is stopped and counted as killed by timeout.
* **tests** (``--tests``: every mutant; ``--tests-survivors``: only those verify did not kill) — the unit-test files
  the mutant lists, ``python -m pytest FILES -x -q -p no:cacheprovider -m "not slow and not gpu and not standard"`` in the copy
  (the standard-budget claim tests are CI's standard step, not unit tests).

Operator mutants (``--operators N``): cosmic-ray (a maintained mutation tool) enumerates the operator mutants of
``--operator-module`` (default ``verify/stats.py``) in the extracted tree (``cosmic-ray init``); a deterministic
sample of N (seed 0; arithmetic, comparison, number, boolean and unary operators) is applied to each copy by
``cosmic-ray apply`` and run through the same oracles, on ``--operator-papers``.

Output: a table per paper and per module (mutants, killed by verify, killed by tests, survived), each survivor with
its id, description and the catalogue's ``reason``; ``--report PATH`` writes everything as JSON. Not part of CI.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures as cf
import dataclasses
import datetime
import difflib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CATALOGUE = os.path.join(HERE, "mutants.toml")
#: the example plugins are oracle papers too: schoenholz2017 for the mean-field engine, pennington2017 for the Jacobian spectrum
PLUGINS = {"schoenholz2017": "examples/deepinfo-propagation", "pennington2017": "examples/resurrecting-sigmoid"}
PAPERS = ("bn-finite-width", "bn-mean-field", "covariance-sde", "isometry") + tuple(PLUGINS)
#: where the plugins of the extracted ref are installed (pip --target), behind each copy on PYTHONPATH
PLUGIN_SITE: list = []
CLASSES = ("normalisation", "factor", "dropped-term", "ignored-parameter", "wrong-branch", "tolerance",
           "error-scaling", "control-logic", "critical-value", "operator")
# the modules whose mutants may not be curated here (none at present)
FORBIDDEN: tuple = ()
STATUS_LINE = re.compile(r"^(?P<claim>[a-z0-9][a-z0-9-]*:[A-Za-z0-9_.\-]+)\s+(?P<status>holds|violated|"
                         r"hypotheses-not-met|inconclusive|error)\s")
OPERATOR_FAMILIES = ("ReplaceBinaryOperator", "ReplaceComparisonOperator", "NumberReplacer", "AddNot",
                     "ReplaceUnaryOperator", "ReplaceOrWithAnd", "ReplaceAndWithOr")
# binary-operator replacements kept in the operator sample: arithmetic by arithmetic (bitwise and matrix
# products on floats crash at once — trivially killed, they would only inflate the kill rate)
ARITHMETIC = ("Add", "Sub", "Mul", "Div", "FloorDiv", "Mod", "Pow")


# ---------------------------------------------------------------------------------------------------------------
# the catalogue
# ---------------------------------------------------------------------------------------------------------------

@dataclasses.dataclass
class Mutant:
    id: str
    file: str
    papers: list
    tests: list
    cls: str
    description: str
    old: str = ""
    new: str = ""
    reason: str = ""
    operator: tuple | None = None   # (operator_name, occurrence) for a cosmic-ray mutant
    #: {paper: [claim, ...]}: the claims of each paper whose own run executes the mutated line (sampled mutants,
    #: from per-claim coverage); a paper absent from it runs whole (``verify all --paper P``)
    claims: dict = dataclasses.field(default_factory=dict)
    #: with ``claims``: whether the self-test (which ``verify all`` runs first) executes the mutated line
    selftest: bool = False

    @property
    def module(self) -> str:
        return self.file


def load_catalogue(path: str = CATALOGUE) -> list[Mutant]:
    with open(path, "rb") as f:
        data = tomllib.load(f)
    out = []
    for m in data.get("mutant", []):
        out.append(Mutant(id=m["id"], file=m["file"], papers=list(m["papers"]), tests=list(m.get("tests", [])),
                          cls=m["class"], description=m["description"], old=m["old"], new=m["new"],
                          reason=m.get("reason", "")))
    return out


def apply_text(source: str, mutant: Mutant) -> str | None:
    """The mutated source, or None when ``old`` does not occur exactly once (a stale mutant)."""
    if source.count(mutant.old) != 1:
        return None
    return source.replace(mutant.old, mutant.new, 1)


# ---------------------------------------------------------------------------------------------------------------
# trees
# ---------------------------------------------------------------------------------------------------------------

def extract(ref: str, dest: str) -> str:
    """``git archive REF`` of the repository, extracted into ``dest``; returns the commit hash."""
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--verify", ref + "^{commit}"], capture_output=True,
                            text=True, check=True).stdout.strip()
    os.makedirs(dest, exist_ok=True)
    archive = subprocess.Popen(["git", "-C", REPO, "archive", commit], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", dest], stdin=archive.stdout, check=True)
    archive.stdout.close()
    if archive.wait() != 0:
        raise SystemExit(f"git archive {ref} failed")
    return commit


def install_plugins(base: str, papers, dest: str) -> None:
    """pip-install the plugins among ``papers`` from the extracted tree ``base`` into ``dest`` (no dependencies, no
    build isolation) and put ``dest`` behind every copy on PYTHONPATH: their entry points are found there, while
    ``theory``, ``numerics`` and ``verify`` still come from the (mutated) copy."""
    wanted = [PLUGINS[p] for p in papers if p in PLUGINS]
    if not wanted:
        return
    for rel in wanted:
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                        "--disable-pip-version-check", "--target", dest, os.path.join(base, rel)], check=True,
                       capture_output=True)
    PLUGIN_SITE[:] = [dest]


def copy_tree(base: str, dest: str) -> None:
    shutil.copytree(base, dest, ignore=shutil.ignore_patterns("docs", "__pycache__", "*.pyc"), symlinks=True)


def environment(tree: str, cache_dir: str) -> dict:
    env = dict(os.environ)
    env.update({"PYTHONPATH": os.pathsep.join([tree] + PLUGIN_SITE), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                "DEEPINIT_THREADS": "1", "DEEPINIT_NO_CACHE": "1", "DEEPINIT_CACHE": cache_dir,
                "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg", "PYTHONHASHSEED": "0"})
    return env


# ---------------------------------------------------------------------------------------------------------------
# the oracles
# ---------------------------------------------------------------------------------------------------------------

def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def verify_command(paper: str, claims: list[str] | None = None) -> list[str]:
    """``verify all --paper P`` — or, given ``claims``, ``verify C1 C2 ...`` (the same budget, expectations and
    options: only those claims run, in the paper's order)."""
    which = list(claims) if claims else ["all", "--paper", paper]
    return [sys.executable, "-m", "verify", *which, "--budget", "quick", "--expect", "shipped",
            "--no-cache", "--jobs", "1", "-q"]


#: the self-test ``verify all`` runs before any claim (exit 4 when a canary is not as known); a run of named claims
#: does not run it, so a claim-selected mutant runs it on its own
SELFTEST_CODE = ("import sys\nfrom verify import selftest\ncanaries = selftest.run()\n"
                 "sys.stderr.write(selftest.render(canaries) + '\\n')\n"
                 "sys.exit(0 if all(c.passed for c in canaries) else 4)\n")


def run_selftest(tree: str, timeout: float) -> dict:
    """The self-test of ``verify all`` alone in ``tree``: killed when it exits non-zero (a failed canary: 4)."""
    cache_dir = tempfile.mkdtemp(prefix="deepinit-cache-")
    start = time.monotonic()
    try:
        p = subprocess.run([sys.executable, "-c", SELFTEST_CODE], cwd=tree, env=environment(tree, cache_dir),
                           capture_output=True, text=True, timeout=timeout)
        code, out = p.returncode, (p.stdout + p.stderr).splitlines()
        outcome = "survived" if code == 0 else "killed"
    except subprocess.TimeoutExpired as exc:
        code, out, outcome = None, str(exc.output or "").splitlines(), "timeout"
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)
    return {"paper": "self-test", "claims": [], "outcome": outcome, "exit": code, "early_stop": False,
            "seconds": round(time.monotonic() - start, 1), "deviation": None,
            "self_test_failed": outcome == "killed", "tail": out[-8:] if outcome != "survived" else []}


class OracleEnvironmentError(RuntimeError):
    """A verify run that failed for its environment, not its code (a plugin that could not be loaded: installed twice,
    say, once from the ref behind PYTHONPATH and once editable from a working tree): no mutant's outcome."""


def run_verify(tree: str, paper: str, baseline: dict | None, timeout: float | None, early_stop: bool = True,
               claims: list[str] | None = None) -> dict:
    """One ``verify all --paper P`` run in ``tree`` (or ``verify C1 C2 ...`` given ``claims``). ``baseline``: the
    unmutated run's {claim: status}; with ``early_stop``
    the run is stopped at the first status that differs from it (the exit status is then 4 for a claim in
    'error', else 1, as ``--expect`` would give)."""
    cache_dir = tempfile.mkdtemp(prefix="deepinit-cache-")
    start = time.monotonic()
    proc = subprocess.Popen(verify_command(paper, claims), cwd=tree, env=environment(tree, cache_dir), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines, statuses, deviation, timed_out = [], {}, None, False
    deadline = start + timeout if timeout else None

    import threading
    timer = None
    if deadline:
        def on_timeout():
            nonlocal timed_out
            timed_out = True
            _kill(proc)
        timer = threading.Timer(timeout, on_timeout)
        timer.daemon = True
        timer.start()
    try:
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            m = STATUS_LINE.match(line)
            if m:
                statuses[m["claim"]] = m["status"]
                if baseline is not None and baseline.get(m["claim"]) != m["status"] and deviation is None:
                    deviation = (m["claim"], baseline.get(m["claim"]), m["status"])
                    if early_stop:
                        _kill(proc)
                        break
        proc.stdout.close()
        rc = proc.wait()
    finally:
        if timer:
            timer.cancel()
        shutil.rmtree(cache_dir, ignore_errors=True)
    seconds = time.monotonic() - start
    stopped = deviation is not None and early_stop
    if timed_out:
        outcome, code = "timeout", None
    elif stopped:
        outcome, code = "killed", 4 if deviation[2] == "error" else 1
    else:
        code = rc
        outcome = "survived" if rc == 0 else "killed"
    if code == 2 and any("could not be loaded" in line for line in lines):
        raise OracleEnvironmentError(f"verify all --paper {paper} could not load its plugin, which is no mutant's "
                                     f"doing: {next(line for line in lines if 'could not be loaded' in line)}")
    selftest = any("self-test FAILED" in l for l in lines)
    return {"paper": paper, "claims": list(claims) if claims else "all", "outcome": outcome, "exit": code,
            "early_stop": stopped, "seconds": round(seconds, 1),
            "deviation": list(deviation) if deviation else None, "self_test_failed": selftest,
            "statuses": statuses, "tail": lines[-8:] if outcome != "survived" else []}


def run_tests(tree: str, files: list[str], timeout: float) -> dict:
    files = [f for f in files if os.path.exists(os.path.join(tree, f))]
    if not files:
        return {"outcome": "no tests", "exit": None, "seconds": 0.0, "tail": []}
    cache_dir = tempfile.mkdtemp(prefix="deepinit-cache-")
    cmd = [sys.executable, "-m", "pytest", *files, "-x", "-q", "-p", "no:cacheprovider", "-m",
           "not slow and not gpu and not standard", "--no-header", "-o", "addopts="]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=tree, env=environment(tree, cache_dir), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        rc = proc.returncode
        outcome = "survived" if rc == 0 else ("killed" if rc in (1, 2, 3) else "error")
    except subprocess.TimeoutExpired:
        _kill(proc)
        out, _ = proc.communicate()
        rc, outcome = None, "timeout"
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)
    return {"outcome": outcome, "exit": rc, "seconds": round(time.monotonic() - start, 1),
            "files": files, "tail": (out or "").splitlines()[-6:]}


# ---------------------------------------------------------------------------------------------------------------
# operator mutants (cosmic-ray)
# ---------------------------------------------------------------------------------------------------------------

def operator_mutants(base: str, module: str, count: int, papers: list[str], tests: list[str], seed: int = 0):
    """A deterministic sample of ``count`` cosmic-ray operator mutants of ``module`` (path in the tree)."""
    exe = shutil.which("cosmic-ray")
    if exe is None:
        raise SystemExit("--operators needs cosmic-ray (pip install cosmic-ray)")
    work = tempfile.mkdtemp(prefix="cosmic-ray-")
    cfg = os.path.join(work, "cr.toml")
    with open(cfg, "w") as f:
        f.write(f'[cosmic-ray]\nmodule-path = "{module}"\ntimeout = 60.0\nexcluded-modules = []\n'
                f'test-command = "true"\n\n[cosmic-ray.distributor]\nname = "local"\n')
    db = os.path.join(work, "cr.sqlite")
    subprocess.run([exe, "init", cfg, db], cwd=base, check=True, capture_output=True)
    dump = subprocess.run([exe, "dump", db], cwd=base, check=True, capture_output=True, text=True).stdout
    items = []
    for line in dump.splitlines():
        m = json.loads(line)[0]["mutations"][0]
        op = m["operator_name"]
        family = op.split("/")[-1].split("_")[0]
        if family not in OPERATOR_FAMILIES:
            continue
        if family == "ReplaceBinaryOperator":
            a, b = op.split("_")[1:3]
            if a not in ARITHMETIC or b not in ARITHMETIC:
                continue
        items.append((op, int(m["occurrence"]), m.get("definition_name") or "", tuple(m["start_pos"])))
    items.sort()
    rng = random.Random(seed)
    chosen = sorted(rng.sample(items, min(count, len(items))), key=lambda t: (t[3], t[0]))
    shutil.rmtree(work, ignore_errors=True)
    out = []
    for op, occ, where, pos in chosen:
        short = op.split("/")[-1]
        out.append(Mutant(id=f"op-{os.path.basename(module)[:-3]}-{short}-{occ}", file=module, papers=list(papers),
                          tests=list(tests), cls="operator",
                          description=f"cosmic-ray {short} #{occ} in {where or 'module level'} (line {pos[0]})",
                          operator=(op, occ)))
    return out, len(items)


def apply_operator(tree: str, mutant: Mutant) -> str | None:
    """Apply the cosmic-ray mutation ``mutant.operator`` = (operator, occurrence[, line, column]) to its file in
    ``tree`` (cosmic-ray's own ``mutate_code``); the changed lines, or None when nothing changed or — given the
    (line, column) ``cosmic-ray init`` recorded — when the change does not start there (the file is not the one the
    mutant was drawn from)."""
    from pathlib import Path

    from cosmic_ray.mutating import mutate_code
    from cosmic_ray.plugins import get_operator
    path = os.path.join(tree, mutant.file)
    with open(path, encoding="utf-8") as f:
        before = f.read()
    after = mutate_code(before, get_operator(mutant.operator[0])(), int(mutant.operator[1]))
    if after is None or after == before:
        return None
    if len(mutant.operator) >= 4:
        line, col = int(mutant.operator[2]), int(mutant.operator[3])
        old, new = before.splitlines(), after.splitlines()
        changed = [i for i, (a, b) in enumerate(zip(old, new)) if a != b]
        if not changed or changed[0] != line - 1 or old[line - 1][:col] != new[line - 1][:col]:
            return None
    Path(path).write_text(after, encoding="utf-8")
    diff = [l for l in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
            if l[:1] in "+-" and not l.startswith(("+++", "---"))]
    return "\n".join(diff)


# ---------------------------------------------------------------------------------------------------------------
# one mutant
# ---------------------------------------------------------------------------------------------------------------

def run_mutant(mutant: Mutant, base: str, baselines: dict, args) -> dict:
    rec = {"id": mutant.id, "file": mutant.file, "class": mutant.cls, "description": mutant.description,
           "papers": mutant.papers, "tests": mutant.tests, "reason": mutant.reason}
    work = tempfile.mkdtemp(prefix=f"mutant-{mutant.id}-")
    tree = os.path.join(work, "tree")
    try:
        copy_tree(base, tree)
        path = os.path.join(tree, mutant.file)
        if mutant.operator is not None:
            diff = apply_operator(tree, mutant)
            if diff is None:
                rec.update(status="stale", note="cosmic-ray apply did not change the file")
                return rec
            rec["diff"] = diff
        else:
            with open(path, encoding="utf-8") as f:
                src = f.read()
            new = apply_text(src, mutant)
            if new is None:
                rec.update(status="stale", note=f"'old' occurs {src.count(mutant.old)} times in {mutant.file} at the ref")
                return rec
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
        with open(path, encoding="utf-8") as f:
            try:
                compile(f.read(), path, "exec")
            except SyntaxError as exc:
                rec.update(status="stale", note=f"the mutated source does not compile: {exc}")
                return rec
        rec["verify"] = []
        killed = False
        if mutant.selftest and not args.tests_only:   # verify all's self-test, for a claim-selected mutant
            r = run_selftest(tree, timeout=3 * baselines.get("self-test", {}).get("seconds", 20.0) + 60)
            rec["verify"].append(r)
            killed = r["outcome"] != "survived"
        for paper in ([] if args.tests_only or (killed and not args.all_papers) else mutant.papers):
            claims = mutant.claims.get(paper)
            if claims:   # the claims that execute the line, each with its own unmutated run as the baseline
                b = {"statuses": {c: baselines[c]["status"] for c in claims},
                     "seconds": sum(baselines[c]["seconds"] for c in claims)}
            else:
                b = baselines[paper]
            r = run_verify(tree, paper, b["statuses"], timeout=3 * b["seconds"] + 60, early_stop=not args.no_early_stop,
                           claims=claims)
            r.pop("statuses")
            rec["verify"].append(r)
            if r["outcome"] != "survived":
                killed = True
                if not args.all_papers:
                    break    # killed: the other papers need not run
        rec["killed_by_verify"] = None if args.tests_only else killed
        rec["verify_outcome"] = ("timeout" if any(r["outcome"] == "timeout" for r in rec["verify"]) and
                                 not any(r["outcome"] == "killed" for r in rec["verify"]) else
                                 "killed" if killed else "survived")
        if args.tests or args.tests_only or (args.tests_survivors and not killed):
            rec["test_run"] = run_tests(tree, mutant.tests, args.test_timeout)
            # a test run that timed out decided nothing: not counted as a kill (listed with its outcome)
            rec["killed_by_tests"] = rec["test_run"]["outcome"] in ("killed", "error")
        rec["status"] = "run"
        return rec
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---------------------------------------------------------------------------------------------------------------
# reports
# ---------------------------------------------------------------------------------------------------------------

def _rate(k, n):
    return f"{k}/{n} ({100 * k / n:.0f}%)" if n else "–"


def summarise(records: list[dict], tests_ran: bool) -> dict:
    run = [r for r in records if r.get("status") == "run"]

    def group(key):
        out = collections.OrderedDict()
        for r in run:
            for k in key(r):
                g = out.setdefault(k, {"mutants": 0, "killed_by_verify": 0, "killed_by_tests": 0,
                                       "killed_by_either": 0, "survived": 0, "tests_run": 0})
                g["mutants"] += 1
                v = bool(r["killed_by_verify"])
                t = r.get("killed_by_tests")
                g["killed_by_verify"] += v
                if t is not None:
                    g["tests_run"] += 1
                    g["killed_by_tests"] += bool(t)
                g["killed_by_either"] += bool(v or t)
                g["survived"] += not (v or t)
        return dict(sorted(out.items()))

    def area(r):
        top = r["file"].split("/")[0]
        return [("operator " if r["class"] == "operator" else "") + top]
    return {"by_paper": group(lambda r: r["papers"]), "by_module": group(lambda r: [r["file"]]),
            "by_area": group(area), "total": group(lambda r: ["all"])}


def render_tables(summary: dict, records: list[dict]) -> str:
    lines = []
    for title, key in (("per paper (a mutant counts for each paper it lists)", "by_paper"),
                       ("per area", "by_area"), ("per module", "by_module"), ("total", "total")):
        lines.append(f"\n## {title}\n")
        lines.append("| | mutants | killed by verify | killed by tests | killed by either | survived |")
        lines.append("|---|---:|---:|---:|---:|---:|")
        for k, g in summary[key].items():
            tests = _rate(g["killed_by_tests"], g["tests_run"]) if g["tests_run"] else "not run"
            if g["tests_run"] and g["tests_run"] < g["mutants"]:
                tests += f" of the {g['tests_run']} run"
            lines.append(f"| {k} | {g['mutants']} | {_rate(g['killed_by_verify'], g['mutants'])} | {tests} | "
                         f"{_rate(g['killed_by_either'], g['mutants'])} | {g['survived']} |")
    surv = [r for r in records if r.get("status") == "run" and r["killed_by_verify"] is False]
    lines.append("\n## not killed by verify\n")
    for r in surv:
        t = r.get("killed_by_tests")
        by = "killed by tests" if t else ("survived the tests too" if t is not None else "tests not run")
        lines.append(f"- **{r['id']}** ({r['file']}, {r['class']}; {', '.join(r['papers'])}) — {by}: "
                     f"{r['description']}" + (f" — reason: {r['reason']}" if r.get("reason") else ""))
    stale = [r for r in records if r.get("status") == "stale"]
    if stale:
        lines.append("\n## stale (not run)\n")
        lines += [f"- {r['id']}: {r.get('note', '')}" for r in stale]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------------------------------------------

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ref", default="HEAD", help="the committed git ref under test (default HEAD)")
    ap.add_argument("--paper", action="append", choices=PAPERS, help="only mutants listing this paper (repeatable); "
                    "their verify runs are restricted to these papers")
    ap.add_argument("--mutant", action="append", help="only this mutant id (repeatable)")
    ap.add_argument("--module", action="append", help="only mutants of files starting with this prefix (repeatable)")
    ap.add_argument("--jobs", type=int, default=1, help="mutants in parallel (default 1)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--tests", action="store_true", help="also run each mutant's unit-test files")
    g.add_argument("--tests-survivors", action="store_true", help="run the unit tests only on verify's survivors")
    ap.add_argument("--tests-only", action="store_true", help="skip the verify oracle: only the unit tests (e.g. on the "
                    "survivors of an earlier run, --mutant ID ...)")
    ap.add_argument("--test-timeout", type=float, default=900.0)
    ap.add_argument("--operators", type=int, default=0, metavar="N",
                    help="also N cosmic-ray operator mutants of --operator-module (default 0)")
    ap.add_argument("--operator-module", default="verify/stats.py")
    ap.add_argument("--operator-papers", nargs="+", default=["isometry"], choices=PAPERS)
    ap.add_argument("--operator-tests", nargs="*", default=["tests/test_selftest.py", "tests/test_power.py"])
    ap.add_argument("--no-curated", action="store_true", help="only the operator mutants")
    ap.add_argument("--no-early-stop", action="store_true", help="run every verify to the end (exit status kept)")
    ap.add_argument("--all-papers", action="store_true", help="run every listed paper even after a kill")
    ap.add_argument("--report", help="write the JSON report here")
    ap.add_argument("--markdown", help="write the tables here")
    ap.add_argument("--list", action="store_true", help="list the selected mutants and exit")
    args = ap.parse_args(argv)

    mutants = [] if args.no_curated else load_catalogue()
    if args.mutant:
        unknown = set(args.mutant) - {m.id for m in mutants}
        if unknown and not args.operators:
            ap.error(f"unknown mutant id(s): {', '.join(sorted(unknown))}")
        mutants = [m for m in mutants if m.id in args.mutant]
    if args.module:
        mutants = [m for m in mutants if m.file.startswith(tuple(args.module))]
    if args.paper:
        mutants = [m for m in mutants if set(m.papers) & set(args.paper)]
        for m in mutants:
            m.papers = [p for p in m.papers if p in args.paper]
    if args.list and not args.operators:
        for m in mutants:
            print(f"{m.id:34s} {m.file:32s} {m.cls:18s} {','.join(m.papers):28s} {m.description}")
        return 0

    started = datetime.datetime.now(datetime.timezone.utc)
    top = tempfile.mkdtemp(prefix="deepinit-mutation-")
    base = os.path.join(top, "base")
    try:
        commit = extract(args.ref, base)
        print(f"ref {args.ref} = {commit}; tree in {base}", flush=True)
        n_operator_pool = 0
        if args.operators:
            ops, n_operator_pool = operator_mutants(base, args.operator_module, args.operators,
                                                    list(args.operator_papers), list(args.operator_tests))
            if args.mutant:
                ops = [m for m in ops if m.id in args.mutant] or ops
            mutants += ops
            print(f"cosmic-ray: {len(ops)} operator mutants sampled of {n_operator_pool} in {args.operator_module}",
                  flush=True)
        if args.list:
            for m in mutants:
                print(f"{m.id:34s} {m.file:32s} {m.cls:18s} {','.join(m.papers):28s} {m.description}")
            return 0
        papers = [] if args.tests_only else sorted({p for m in mutants for p in m.papers})
        install_plugins(base, {p for m in mutants for p in m.papers}, os.path.join(top, "plugins"))
        baselines = {}
        for paper in papers:
            r = run_verify(base, paper, None, timeout=None)
            print(f"baseline {paper}: exit {r['exit']}, {r['seconds']:.0f} s, {len(r['statuses'])} claims", flush=True)
            if r["exit"] != 0:
                print("\n".join(r["tail"]), file=sys.stderr)
                raise SystemExit(f"the unmutated baseline of {paper} exits {r['exit']}, not 0: aborting")
            baselines[paper] = r
        records = []

        def done(rec):
            records.append(rec)
            if rec.get("status") != "run":
                print(f"[{len(records)}/{len(mutants)}] {rec['id']}: STALE — {rec.get('note')}", flush=True)
                return
            v = "; ".join(f"{r['paper']} {r['outcome']}"
                          + (f" (exit {r['exit']}{', self-test' if r['self_test_failed'] else ''}"
                             + (f", {r['deviation'][0]} {r['deviation'][1]}→{r['deviation'][2]}" if r['deviation'] else "")
                             + ")" if r["outcome"] != "survived" else "") + f" {r['seconds']:.0f}s"
                          for r in rec["verify"])
            t = rec.get("test_run")
            print(f"[{len(records)}/{len(mutants)}] {rec['id']}: verify {v}"
                  + (f"; tests {t['outcome']} {t['seconds']:.0f}s" if t else ""), flush=True)
            if args.report:
                _write_report(args.report, commit, args, started, baselines, records, n_operator_pool, partial=True)

        with cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:  # each job is its own process tree
            futures = [pool.submit(run_mutant, m, base, baselines, args) for m in mutants]
            for fut in cf.as_completed(futures):
                try:
                    done(fut.result())
                except OracleEnvironmentError as exc:   # the partial report keeps every mutant before this one
                    for f in futures:
                        f.cancel()
                    raise SystemExit(f"stopped: {exc}")
        order = {m.id: i for i, m in enumerate(mutants)}
        records.sort(key=lambda r: order[r["id"]])
        summary = summarise(records, args.tests or args.tests_survivors)
        text = render_tables(summary, records)
        print(text)
        if args.markdown:
            with open(args.markdown, "w", encoding="utf-8") as f:
                f.write(text + "\n")
        if args.report:
            _write_report(args.report, commit, args, started, baselines, records, n_operator_pool, partial=False)
        return 0
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _write_report(path, commit, args, started, baselines, records, n_operator_pool, partial):
    doc = {"ref": args.ref, "commit": commit, "started": started.isoformat(timespec="seconds"),
           "finished": None if partial else datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "complete": not partial, "command": " ".join([os.path.relpath(__file__, REPO)] + sys.argv[1:]),
           "baselines": {p: {"seconds": b["seconds"], "claims": len(b["statuses"])} for p, b in baselines.items()},
           "operator_pool": n_operator_pool, "summary": summarise(records, True), "mutants": records}
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main())
