"""The sampled mutation score: bugs nobody chose, drawn at random from every module the verdicts rest on.

    python benchmarks/mutation/sample.py [--ref REF] [--size N] [--seed S] [--jobs N] [--limit K]
                                         [--report PATH] [--coverage PATH] [--test-coverage PATH] [--list]

The population is every cosmic-ray operator mutant (arithmetic by arithmetic, comparison, number, boolean and unary
operators: the families of ``run_mutants.OPERATOR_FAMILIES``) of every module of ``theory/`` and ``numerics/`` and of
``verify/``'s decision code (:data:`DECISION_MODULES`), at a committed ref. The sample is stratified by module: ``N``
(default 300) is shared among the modules in proportion to their statements (coverage.py's count; largest
remainders), and each module's share is drawn uniformly, without replacement, from its mutants by a generator seeded
with ``SEED:module`` — so a run is reproducible from the seed it prints, and adding a module does not reshuffle the
others.

Oracles, as in ``run_mutants.py``: each mutant runs ``verify all --paper P --budget quick --expect shipped`` for each
paper P whose quick run executes the mutated line — found from line coverage of each paper's run at the same ref
(``--coverage`` caches it: ``coverage-<commit>.json``), never guessed; a mutant on a line no paper executes is
*unreached* (not killed by verify). By default the selection is finer (:func:`claim_coverage`): each claim runs
alone under coverage, as does the self-test of ``verify all``, and a mutant runs the self-test if it executes the line
and ``verify C1 C2 ... --budget quick --expect shipped`` with the claims of each paper that do, judged against their
own unmutated runs; ``--per-paper`` runs the whole papers instead. Survivors then run the unit tests that import the
module (their file names are recorded) — or, with ``--test-coverage PATH``, only the test files that execute the
mutated line (:func:`test_coverage`: the unit tests run once per ref under coverage.py, each line attributed to the
test file whose tests, fixtures or spawned ``verify`` processes executed it; a line also executed at import adds
the importing files).

Replay (``--replay REPORT``): the mutants of an earlier report rerun at ``--ref`` — each recorded one-line change
located in the new tree by its line and the fewest neighbouring lines that make it unique (stale when the line or its
neighbours changed), its papers found from the new ref's coverage, the same oracles; ``--survivors-only`` and
``--modules`` select part of it. The same bugs, measured against the code and claims of a later commit.

``--selftest-only`` (with ``--replay``): each mutant runs only the self-test of ``verify all`` — what a canary added
since the report kills, in seconds per mutant; a mutant it leaves is as the claims left it only when they did not
change since the report.

The per-claim coverage also feeds the reach map (``reach.py --claim-coverage PATH --ref REF``): the functions of
``theory/`` and ``numerics/`` the claims execute, which ``tests/test_engine_reach.py`` completes with the self-test's.

Resumable: ``--report`` is rewritten after every mutant, and a rerun with the same ref, seed and size skips the
mutants already in it; ``--limit K`` runs at most K more (pieces of an hours-long run). ``--summary REPORT`` prints
the score of what a report holds — killed by verify, by verify or the tests, each with a Wilson 95 % interval — per
module and per operator family, and lists the survivors (docs/mutation.md). The survivors' classification
(equivalent, below resolution, missed) comes from reading them, not from a computation: ``--classes FILE`` (TOML,
``survivors.toml``) gives each its class and argument; the equivalent ones then leave the score's denominators (the
score is of the non-equivalent mutants) and the survivors are counted by class.
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import datetime
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_mutants as rm  # noqa: E402

#: verify/'s decision code: the statistics, the expectations, the verdict store and the parameter kinds
DECISION_MODULES = ("verify/stats.py", "verify/expectations.py", "verify/store.py", "verify/params.py")
#: a claim's name, as ``verify list`` and the status lines print it
CLAIM_NAME = re.compile(r"[a-z0-9][a-z0-9-]*:[A-Za-z0-9_.\-]+")
#: the papers a mutant may reach (the built-ins and the two example plugins)
PAPERS = rm.PAPERS


def modules(base: str) -> list[str]:
    """Every module of theory/ and numerics/ (``__init__`` files included: they hold code too) and the decision
    modules, as paths in the tree."""
    out = []
    for top in ("theory", "numerics"):
        for name in sorted(os.listdir(os.path.join(base, top))):
            if name.endswith(".py"):
                out.append(f"{top}/{name}")
    return out + [m for m in DECISION_MODULES if os.path.exists(os.path.join(base, m))]


def statements(base: str, module: str) -> tuple[int, object]:
    """(statement count, the parser that maps a line to its statement's first line) by coverage.py."""
    from coverage.parser import PythonParser
    parser = PythonParser(filename=os.path.join(base, module))
    parser.parse_source()
    return len(parser.statements), parser


def mutation_pool(base: str, module: str) -> list[tuple]:
    """The module's operator mutants as (operator, occurrence, definition, line, column) as ``cosmic-ray init``
    lists them (sorted)."""
    exe = shutil.which("cosmic-ray")
    if exe is None:
        raise SystemExit("the sampled score needs cosmic-ray (pip install cosmic-ray)")
    work = tempfile.mkdtemp(prefix="cosmic-ray-")
    try:
        cfg, db = os.path.join(work, "cr.toml"), os.path.join(work, "cr.sqlite")
        with open(cfg, "w") as f:
            f.write(f'[cosmic-ray]\nmodule-path = "{module}"\ntimeout = 60.0\nexcluded-modules = []\n'
                    f'test-command = "true"\n\n[cosmic-ray.distributor]\nname = "local"\n')
        subprocess.run([exe, "init", cfg, db], cwd=base, check=True, capture_output=True)
        dump = subprocess.run([exe, "dump", db], cwd=base, check=True, capture_output=True, text=True).stdout
    finally:
        shutil.rmtree(work, ignore_errors=True)
    with open(os.path.join(base, module), encoding="utf-8") as f:
        source = f.read().splitlines()
    items = []
    for line in dump.splitlines():
        m = json.loads(line)[0]["mutations"][0]
        op = m["operator_name"]
        family = op.split("/")[-1].split("_")[0]
        if family not in rm.OPERATOR_FAMILIES:
            continue
        if family == "ReplaceBinaryOperator" and not all(x in rm.ARITHMETIC for x in op.split("_")[1:3]):
            continue
        line_no, col = int(m["start_pos"][0]), int(m["start_pos"][1])
        if family == "ReplaceBinaryOperator" and is_star_marker(source, line_no, col):
            continue   # the * of *args / a keyword-only signature: no operator, its replacement does not compile
        items.append((op, int(m["occurrence"]), m.get("definition_name") or "", line_no, col))
    return sorted(items)


def is_star_marker(lines: list[str], line: int, col: int) -> bool:
    """Whether the ``*`` or ``**`` at (line, column) (1-based line, 0-based column) marks arguments (``*args``,
    ``**kw``, a keyword-only ``*``) rather than multiplying: the last character before it, on this line or an earlier
    one, is ``(`` or ``,`` — a binary operator always has an operand on its left."""
    index = line - 1
    before = lines[index][:col].rstrip()
    while not before and index > 0:
        index -= 1
        before = lines[index].rstrip()
    return before.endswith(("(", ","))


def allocate(sizes: dict[str, int], total: int, caps: dict[str, int] | None = None) -> dict[str, int]:
    """``total`` shared in proportion to ``sizes`` (largest remainders; ties by name); a module whose ``caps``
    (its number of mutants) is below its share takes them all and the rest is shared among the others."""
    caps = caps or {k: total for k in sizes}
    out, free = {}, dict(sizes)
    while True:
        left = total - sum(out.values())
        whole = sum(free.values())
        if not free or left <= 0 or whole == 0:
            return {**out, **{k: 0 for k in free}}
        quota = {k: left * v / whole for k, v in free.items()}
        full = [k for k in free if caps[k] <= quota[k]]
        if not full:
            share = {k: int(q) for k, q in quota.items()}
            for k in sorted(quota, key=lambda k: (-(quota[k] - share[k]), k))[:left - sum(share.values())]:
                share[k] += 1
            return {**out, **share}
        for k in full:
            out[k] = caps[k]
            del free[k]


def draw(pools: dict[str, list], shares: dict[str, int], seed: int) -> list[tuple]:
    """Each module's share drawn from its pool by ``random.Random(f"{seed}:{module}")`` (a share larger than the pool
    takes the pool)."""
    out = []
    for module in sorted(pools):
        rng = random.Random(f"{seed}:{module}")
        chosen = rng.sample(pools[module], min(shares.get(module, 0), len(pools[module])))
        out += [(module, *item) for item in sorted(chosen, key=lambda t: (t[3:], t[0], t[1]))]
    return out


def paper_coverage(base: str, papers, path: str | None) -> dict:
    """{paper: {module: sorted executed lines}} of each paper's quick run (coverage.py, one process, no cache);
    read from ``path`` when it holds this ref's, else measured and written there."""
    if path and os.path.exists(path):
        with open(path) as f:
            return json.load(f)["papers"]
    out = {}
    for paper in papers:
        data = tempfile.mktemp(prefix="coverage-", suffix=".data")
        cache = tempfile.mkdtemp(prefix="deepinit-cache-")
        env = rm.environment(base, cache)
        cmd = [sys.executable, "-m", "coverage", "run", f"--data-file={data}", "--source=theory,numerics,verify",
               "-m", "verify", "all", "--paper", paper, "--budget", "quick", "--expect", "shipped", "--no-cache",
               "--jobs", "1", "-q"]
        p = subprocess.run(cmd, cwd=base, env=env, capture_output=True, text=True)
        shutil.rmtree(cache, ignore_errors=True)
        if p.returncode != 0:
            raise SystemExit(f"the coverage run of {paper} exits {p.returncode}: {p.stdout[-800:]}{p.stderr[-800:]}")
        j = data + ".json"
        subprocess.run([sys.executable, "-m", "coverage", "json", f"--data-file={data}", "-o", j], cwd=base, env=env,
                       check=True, capture_output=True)
        with open(j) as f:
            files = json.load(f)["files"]
        out[paper] = {os.path.relpath(k, base) if os.path.isabs(k) else k: v["executed_lines"]
                      for k, v in files.items()}
        os.remove(j)
        os.remove(data)
        print(f"coverage of {paper}: {sum(len(v) for v in out[paper].values())} lines", flush=True)
    if path:
        with open(path, "w") as f:
            json.dump({"papers": out}, f)
    return out


def paper_claims(base: str, paper: str) -> list[str]:
    """The checked claims of ``paper`` in its order (``verify list P``, run in the tree)."""
    cache = tempfile.mkdtemp(prefix="deepinit-cache-")
    try:
        p = subprocess.run([sys.executable, "-m", "verify", "list", paper], cwd=base, env=rm.environment(base, cache),
                           capture_output=True, text=True)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    if p.returncode != 0:
        raise SystemExit(f"verify list {paper} exits {p.returncode}: {p.stderr[-400:]}")
    rows = (line.split() for line in p.stdout.splitlines() if line.startswith(f"{paper}:"))
    # the checked claims, as ``verify all`` runs them: not the paper's statement rows ("P:[eq (1)]"), nor a claim that
    # cannot be checked offline
    return [r[0] for r in rows if CLAIM_NAME.fullmatch(r[0]) and r[1:2] == ["checked"]]


def _covered_run(base: str, argv: list[str], wanted: set) -> tuple[subprocess.CompletedProcess, float, dict]:
    """``python -m coverage run ... ARGV`` in the tree (its own process, a fresh verdict cache): the process, its
    seconds and the executed lines of the ``wanted`` modules."""
    data = tempfile.mktemp(prefix="coverage-", suffix=".data")
    cache = tempfile.mkdtemp(prefix="deepinit-cache-")
    env = rm.environment(base, cache)
    start = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "coverage", "run", f"--data-file={data}", "--source=theory,numerics,verify",
                        *argv], cwd=base, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - start
    shutil.rmtree(cache, ignore_errors=True)
    lines = {}
    if p.returncode == 0:
        j = data + ".json"
        subprocess.run([sys.executable, "-m", "coverage", "json", f"--data-file={data}", "-o", j], cwd=base, env=env,
                       check=True, capture_output=True)
        with open(j) as f:
            files = json.load(f)["files"]
        os.remove(j)
        for k, v in files.items():
            rel = os.path.relpath(k, base) if os.path.isabs(k) else k
            if rel in wanted:
                lines[rel] = v["executed_lines"]
    if os.path.exists(data):
        os.remove(data)
    return p, seconds, lines


def _one_claim_coverage(base: str, claim: str, wanted: set) -> dict:
    """One claim alone in its own process under coverage.py (quick budget, shipped expectations, no cache): its
    status, exit, seconds and executed lines of the ``wanted`` modules."""
    p, seconds, lines = _covered_run(base, ["-m", *rm.verify_command(claim.split(":")[0], [claim])[2:]], wanted)
    statuses = {m["claim"]: m["status"] for m in map(rm.STATUS_LINE.match, p.stdout.splitlines()) if m}
    if p.returncode != 0 or claim not in statuses:
        raise SystemExit(f"{claim} alone under coverage exits {p.returncode}: {p.stdout[-800:]}{p.stderr[-800:]}")
    return {"status": statuses[claim], "exit": p.returncode, "seconds": round(seconds, 1), "lines": lines}


def _selftest_coverage(base: str, wanted: set) -> dict:
    """The lines of the ``wanted`` modules that the self-test of ``verify all`` executes (its own process)."""
    script = tempfile.mktemp(prefix="selftest-", suffix=".py")
    with open(script, "w") as f:
        f.write(rm.SELFTEST_CODE)
    try:
        p, seconds, lines = _covered_run(base, [script], wanted)
    finally:
        os.remove(script)
    if p.returncode != 0:
        raise SystemExit(f"the self-test under coverage exits {p.returncode}: {p.stderr[-800:]}")
    return {"status": "holds", "exit": 0, "seconds": round(seconds, 1), "lines": lines}


def claim_coverage(base: str, papers, path: str | None, wanted: set, jobs: int = 1) -> dict:
    """{paper: {claim: {"status", "exit", "seconds", "lines": {module: executed lines}}}}: every claim of every paper
    run alone, in a fresh process each, under coverage.py — so each claim's lines include everything it computes for
    itself (caches and shared ensembles are per process), and a mutant on a line a claim never executes cannot change
    that claim's verdict. Read from ``path`` when it holds this ref's, else measured (``jobs`` at a time) and
    written there. The unmutated status and seconds of each claim alone are the mutants' baselines."""
    if path and os.path.exists(path):
        with open(path) as f:
            doc = json.load(f)
        if "claims" not in doc:
            raise SystemExit(f"{path} holds per-paper coverage (--per-paper); give another path for per-claim coverage")
        if "self-test" not in doc["claims"]:     # measured before the self-test was: add it
            doc["claims"]["self-test"] = {"self-test": _selftest_coverage(base, wanted)}
            with open(path, "w") as f:
                json.dump(doc, f)
        return doc["claims"]
    order = {paper: paper_claims(base, paper) for paper in papers}
    partial = (path or os.path.join(tempfile.gettempdir(), "claim-coverage")) + ".partial"
    out: dict = {paper: {} for paper in papers}
    if os.path.exists(partial):       # an interrupted measurement resumes: each claim is saved as it finishes
        with open(partial) as f:
            done = json.load(f)
        if done.get("base_commit") == _tree_commit(base):
            for paper in papers:
                out[paper].update(done["claims"].get(paper, {}))
    todo = [(paper, c) for paper in papers for c in order[paper] if c not in out[paper]]
    failed = []
    with cf.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(_one_claim_coverage, base, c, wanted): (paper, c) for paper, c in todo}
        for fut in cf.as_completed(futures):
            paper, c = futures[fut]
            try:
                r = fut.result()
            except SystemExit as exc:
                failed.append(str(exc))
                continue
            out[paper][c] = r
            with open(partial + ".tmp", "w") as f:
                json.dump({"base_commit": _tree_commit(base), "claims": out}, f)
            os.replace(partial + ".tmp", partial)
            print(f"coverage of {c}: {r['status']}, {r['seconds']:.0f} s, "
                  f"{sum(len(v) for v in r['lines'].values())} lines", flush=True)
    if failed:
        raise SystemExit("\n".join(failed))
    out = {paper: {c: out[paper][c] for c in order[paper]} for paper in papers}   # the paper's order
    out["self-test"] = {"self-test": _selftest_coverage(base, wanted)}
    if path:
        with open(path, "w") as f:
            json.dump({"claims": out}, f)
        os.remove(partial)
    return out


def _tree_commit(base: str) -> str:
    """The commit an extracted tree was archived from (``git archive`` writes it into the tar's global header, which
    ``tar -x`` drops): recorded by :func:`main` in ``base/.commit``."""
    with open(os.path.join(base, ".commit")) as f:
        return f.read().strip()


def claims_reaching(claims_cov: dict, module: str, lines: set) -> dict:
    """{paper: [claims whose own run executed any of ``lines`` of ``module``]}, papers with none left out (the
    self-test's entry, "self-test", among them when it executes them)."""
    out = {}
    for paper, claims in claims_cov.items():
        hit = [c for c, r in claims.items() if lines & set(r["lines"].get(module, ()))]
        if hit:
            out[paper] = hit
    return out


def unit_tests(base: str, module: str) -> list[str]:
    """The test files that import the module by name (``theory.kernels``, ``from theory import kernels``,
    ``from theory.kernels import``)."""
    pkg, name = module[:-3].split("/")
    if name == "__init__":
        pattern = re.compile(rf"^\s*(from|import)\s+{pkg}\b", re.M)
    else:
        pattern = re.compile(rf"^\s*(from\s+{pkg}\.{name}\s+import|import\s+{pkg}\.{name}\b|"
                             rf"from\s+{pkg}\s+import\s+[^\n]*\b{name}\b)", re.M)
    tests = os.path.join(base, "tests")
    return sorted(f"tests/{n}" for n in os.listdir(tests)
                  if n.startswith("test_") and n.endswith(".py")
                  and pattern.search(open(os.path.join(tests, n), encoding="utf-8").read()))


#: the unit tests a survivor runs (``run_mutants.run_tests``): the same markers when their coverage is measured
TEST_MARKERS = "not slow and not gpu and not standard"


def test_coverage(base: str, path: str | None, wanted: set, jobs: int = 1) -> dict:
    """{"tests": {module: {line: [test files]}}, "outside": {module: [lines]}}: which test files execute each line
    of the ``wanted`` modules — in their tests, their fixtures and the processes their tests spawn — measured once
    per ref by running the unit tests (``TEST_MARKERS``, ``jobs`` xdist workers) under coverage.py with the
    dynamic context of :mod:`coverage_test_file` and subprocess measurement. "outside": lines executed while no
    test ran (imports at collection). Read from ``path`` when it holds this ref's, else measured and written there."""
    if path and os.path.exists(path):
        with open(path) as f:
            doc = json.load(f)
        if doc.get("base_commit") != _tree_commit(base):
            raise SystemExit(f"{path} holds the test coverage of {doc.get('base_commit', '?')[:12]}, not of this ref")
        return doc
    from coverage import CoverageData
    work = tempfile.mkdtemp(prefix="test-coverage-")
    cache = tempfile.mkdtemp(prefix="deepinit-cache-")
    try:
        shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), "coverage_test_file.py"), work)
        rc = os.path.join(work, "coveragerc")
        with open(rc, "w") as f:
            f.write(f"[run]\nsource = theory,numerics,verify\nplugins = coverage_test_file\nparallel = True\n"
                    f"patch = subprocess\ndata_file = {os.path.join(work, '.coverage')}\n")
        env = rm.environment(base, cache)
        env["PYTHONPATH"] = os.pathsep.join([work, env["PYTHONPATH"]])
        env.pop("PYTEST_CURRENT_TEST", None)     # a pytest that runs this one: its test is not theirs
        start = time.monotonic()
        p = subprocess.run([sys.executable, "-m", "coverage", "run", f"--rcfile={rc}", "-m", "pytest", "tests", "-q",
                            "-p", "no:cacheprovider", "-m", TEST_MARKERS, "-n", str(max(1, jobs)), "-o", "addopts=",
                            "--no-header", "-rf"], cwd=base, env=env, capture_output=True, text=True)
        seconds = time.monotonic() - start
        failed = [line.split()[1] for line in p.stdout.splitlines() if line.startswith("FAILED ")]
        subprocess.run([sys.executable, "-m", "coverage", "combine", f"--rcfile={rc}", "-q"], cwd=base, env=env,
                       check=True, capture_output=True)
        data = CoverageData(os.path.join(work, ".coverage"))
        data.read()
        tests: dict = {}
        outside: dict = {}
        for name in data.measured_files():
            rel = os.path.relpath(name, base) if os.path.isabs(name) else name
            if rel not in wanted:
                continue
            for line, contexts in data.contexts_by_lineno(name).items():
                files = sorted(c for c in contexts if c)
                if files:
                    tests.setdefault(rel, {})[str(line)] = files
                if "" in contexts:
                    outside.setdefault(rel, []).append(line)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
    doc = {"base_commit": _tree_commit(base), "markers": TEST_MARKERS, "exit": p.returncode, "failed": failed,
           "seconds": round(seconds, 1), "tests": tests, "outside": {m: sorted(v) for m, v in outside.items()}}
    print(f"test coverage: pytest exit {p.returncode}, {len(failed)} failed, {seconds:.0f} s", flush=True)
    if path:
        with open(path, "w") as f:
            json.dump(doc, f)
    return doc


def tests_reaching(test_cov: dict, module: str, lines: set, importing: list[str]) -> list[str]:
    """The test files whose tests, fixtures or spawned processes execute any of ``lines`` of ``module``; when a line
    is also executed while no test runs (at import), the files that import the module (``importing``) as well — a
    test may depend on what the import computed. A line no test executes: no test file (none can fail on it).
    A test that failed under coverage stopped early, so its lines are not all known: the importing files that hold
    one are always added (a test that spawns a process with an environment of its own — ``PYTHONPATH=""`` — fails
    there because coverage.py's start-up in that process cannot import the context plugin)."""
    executed = test_cov["tests"].get(module, {})
    files = {f for line in lines for f in executed.get(str(line), ())}
    if lines & set(test_cov["outside"].get(module, ())):
        files |= set(importing)
    failed_files = {t.split("::")[0] for t in test_cov.get("failed", ())}
    files |= failed_files & set(importing)
    return sorted(files)


def replay_block(old_source: list[str], new_source: str, line: int, minus: str, plus: str) -> tuple | None:
    """Where the one-line change ``minus`` → ``plus`` recorded at ``line`` (1-based) of the old source lands in the
    new source: (old block, new block, 1-based line of the change in the new source), the block being the changed line
    with the fewest neighbouring old lines (0 to 3 on each side) that occur exactly once in the new source; None when
    the line or its neighbourhood changed (a stale replay)."""
    i = line - 1
    if not (0 <= i < len(old_source)) or old_source[i] != minus:
        return None
    for k in range(4):
        lo, hi = max(0, i - k), min(len(old_source), i + k + 1)
        block = "\n".join(old_source[lo:hi]) + "\n"
        if new_source.count(block) == 1:
            start = new_source.index(block)
            if start and new_source[start - 1] != "\n":      # the block must begin a line
                continue
            changed = "\n".join(old_source[lo:i] + [plus] + old_source[i + 1:hi]) + "\n"
            return block, changed, new_source[:start].count("\n") + (i - lo) + 1
    return None


def replayed(base: str, old_doc: dict, modules_wanted: set | None, survivors_only: bool) -> list[tuple]:
    """The mutants of an earlier report, as exact-text mutants of the tree at ``base``: (record, block, changed
    block, line) or (record, None, None, None) when stale. ``survivors_only``: only those verify did not kill."""
    out = []
    cache: dict = {}
    for rec in old_doc["mutants"]:
        if rec.get("status") != "run" or (survivors_only and rec.get("killed_by_verify")):
            continue
        if modules_wanted and rec["file"] not in modules_wanted:
            continue
        if rec["file"] not in cache:
            old = subprocess.run(["git", "-C", rm.REPO, "show", f"{old_doc['commit']}:{rec['file']}"],
                                 capture_output=True, text=True, check=True).stdout.splitlines()
            path = os.path.join(base, rec["file"])
            new = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
            cache[rec["file"]] = (old, new)
        old, new = cache[rec["file"]]
        minus, plus = (part[1:] for part in rec["diff"].split("\n"))
        line = int(re.search(r"\(line (\d+)\)", rec["description"]).group(1))
        got = replay_block(old, new, line, minus, plus)
        out.append((rec, *(got or (None, None, None))))
    return out


def replay_selftest(base: str, commit: str, old_doc: dict, args) -> int:
    """``--replay REPORT --selftest-only``: each replayed mutant applied to the tree at ``base`` in turn and the
    self-test of ``verify all`` run on it (killed: a canary not as known). Resumable: the report is rewritten after
    every mutant and a rerun skips the ids already in it."""
    done = {}
    if os.path.exists(args.report):
        with open(args.report) as f:
            doc = json.load(f)
        if (doc.get("replay_of"), doc.get("commit")) != (old_doc["commit"], commit):
            raise SystemExit(f"{args.report} is another replay (of {doc.get('replay_of')}, at {doc.get('commit')})")
        done = {r["id"]: r for r in doc["mutants"]}
    wanted = set(args.modules.split(",")) if args.modules else None
    rows = list(done.values())
    for rec, block, changed, line in replayed(base, old_doc, wanted, args.survivors_only):
        if rec["id"] in done:
            continue
        row = {k: rec[k] for k in ("id", "file", "diff")}
        if block is None:
            row["outcome"] = "stale"
        else:
            path = os.path.join(base, rec["file"])
            with open(path, encoding="utf-8") as f:
                source = f.read()
            with open(path, "w", encoding="utf-8") as f:
                f.write(source.replace(block, changed, 1))
            try:
                got = rm.run_selftest(base, timeout=240.0)
            finally:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(source)
            row.update(line=line, outcome=got["outcome"], seconds=got["seconds"], tail=got["tail"][-3:])
        rows.append(row)
        print(f"{row['id']}: {row['outcome']}", flush=True)
        with open(args.report, "w") as f:
            json.dump({"replay_of": old_doc["commit"], "commit": commit, "selftest_only": True,
                       "survivors_only": args.survivors_only, "mutants": rows}, f, indent=1)
    counts = {k: sum(r["outcome"] == k for r in rows) for k in ("killed", "survived", "timeout", "stale")}
    print(", ".join(f"{v} {k}" for k, v in counts.items()), flush=True)
    return 0


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a proportion k/n (95 % by default)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5
    return max(0.0, centre - half), min(1.0, centre + half)


#: how a survivor is classified by reading it (``--classes FILE``)
SURVIVOR_CLASSES = ("equivalent", "below-resolution", "missed")


def read_classes(path: str, commit: str) -> dict:
    """``{mutant id: (class, why)}`` for the report of ``commit`` from a TOML file of ``[[survivor]]`` tables (``commit``
    — a prefix of the report's —, ``id``, ``class`` one of :data:`SURVIVOR_CLASSES`, ``why``: the argument or the
    measurement). ValueError for an unknown class, a missing argument or an id given twice."""
    import tomllib
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    out = {}
    for entry in doc.get("survivor", []):
        if not commit.startswith(str(entry.get("commit", "-"))):
            continue
        mid, cls, why = entry.get("id"), entry.get("class"), str(entry.get("why", "")).strip()
        if cls not in SURVIVOR_CLASSES:
            raise ValueError(f"{path}: {mid}: class {cls!r} is not one of {', '.join(SURVIVOR_CLASSES)}")
        if not why:
            raise ValueError(f"{path}: {mid}: a class needs its argument or measurement (why)")
        if mid in out:
            raise ValueError(f"{path}: {mid} is classified twice")
        out[mid] = (cls, why)
    return out


def summary(doc: dict, classes: dict | None = None) -> str:
    """Markdown: the score of the mutants run so far (stale ones apart), overall, per module and per operator
    family, and the survivors. With ``classes`` (:func:`read_classes`) the mutants argued equivalent leave the
    denominators (the score is of the non-equivalent mutants) and the survivors are counted by class; a class given
    to a mutant verify killed is an error (ValueError)."""
    classes = classes or {}
    run = [r for r in doc["mutants"] if r.get("status") == "run"]
    killed_classified = sorted(r["id"] for r in run if r["id"] in classes and r.get("killed_by_verify"))
    if killed_classified:
        raise ValueError(f"classified, yet killed by verify: {', '.join(killed_classified)}")
    unknown = sorted(set(classes) - {r["id"] for r in run})
    if unknown:
        raise ValueError(f"classified, yet not in the report: {', '.join(unknown)}")
    equivalent = {m for m, (c, _) in classes.items() if c == "equivalent"}

    def score(rows):
        rows = [r for r in rows if r["id"] not in equivalent]
        n = len(rows)
        v = sum(bool(r.get("killed_by_verify")) for r in rows)
        e = sum(bool(r.get("killed_by_verify") or r.get("killed_by_tests")) for r in rows)
        lo_v, hi_v = wilson(v, n)
        lo_e, hi_e = wilson(e, n)
        return (f"{n} | {v} ({100 * v / n:.0f}%, {100 * lo_v:.0f}–{100 * hi_v:.0f}%) | "
                f"{e} ({100 * e / n:.0f}%, {100 * lo_e:.0f}–{100 * hi_e:.0f}%) | "
                f"{sum(bool(r.get('unreached')) for r in rows)}") if n else "0 | – | – | 0"
    what = "run, not equivalent" if classes else "run"
    head = [f"| | {what} | killed by verify (95 % CI) | by verify or tests (95 % CI) | unreached by any paper |",
            "|---|---:|---:|---:|---:|"]
    stale = len(doc["mutants"]) - len(run)
    pending = sum(bool(r.get("tests_deferred")) for r in run)
    lines = [f"Sample: seed {doc['seed']}, size {doc['size']}, commit {doc['commit'][:12]}; {len(doc['mutants'])} of "
             f"{doc['size']} drawn mutants done ({stale} stale)"
             + (f"; the unit tests of {pending} survivors not yet run (counted as not killed by them)" if pending
                else "")
             + (f"; {len(equivalent)} argued equivalent, left out of the score" if classes else "") + ".", "",
             *head, f"| all | {score(run)} |", "", "Per module:", "", *head]
    for module in sorted({r["file"] for r in run}):
        lines.append(f"| {module} | {score([r for r in run if r['file'] == module])} |")
    lines += ["", "Per operator family:", "", *head]
    for family in sorted({r["class"] for r in run}):
        lines.append(f"| {family} | {score([r for r in run if r['class'] == family])} |")
    survivors = [r for r in run if not r.get("killed_by_verify")]
    if classes:
        count = {c: sum(classes.get(r["id"], ("",))[0] == c for r in survivors) for c in SURVIVOR_CLASSES}
        lines += ["", "Not killed by verify, by class (read):", "", "| class | survivors |", "|---|---:|",
                  *(f"| {c} | {count[c]} |" for c in SURVIVOR_CLASSES),
                  f"| not yet read | {len(survivors) - sum(count.values())} |"]
    lines += ["", "Not killed by verify:", ""]
    for r in survivors:
        t = r.get("test_run", {})
        cls = classes.get(r["id"])
        lines.append(f"- `{r['id']}` ({r['description']}; papers: {', '.join(r['papers']) or 'none'}): tests "
                     f"{t.get('outcome', 'not run')}" + (f"; **{cls[0]}**: {cls[1]}" if cls else "")
                     + f" — `{(r.get('diff') or '').replace(chr(10), ' / ')[:160]}`")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ref", default="HEAD")
    ap.add_argument("--size", type=int, default=300, help="mutants in the sample (default 300)")
    ap.add_argument("--seed", type=int, default=None, help="the sample's seed (default: drawn, and printed)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--limit", type=int, default=None, help="run at most K mutants not yet in the report")
    ap.add_argument("--report", help="the JSON report (resumed when it exists)")
    ap.add_argument("--coverage", help="the per-paper line coverage of this ref (read, or measured and written)")
    ap.add_argument("--test-timeout", type=float, default=900.0)
    ap.add_argument("--test-coverage", metavar="PATH", help="select a survivor's unit test files by which of them "
                    "execute the mutated line (measured once per ref, cached at PATH); default: the files that "
                    "import its module")
    ap.add_argument("--defer-tests", action="store_true", help="run verify only; the survivors' unit tests run when "
                    "the report is resumed without this flag (verify alone decides the first score sooner)")
    ap.add_argument("--per-paper", action="store_true", help="run every paper that executes the mutated line whole "
                    "(the method of the reports before per-claim coverage); default: only its claims that do")
    ap.add_argument("--list", action="store_true", help="print the sample and exit")
    ap.add_argument("--summary", metavar="REPORT", help="print the score of a report and exit")
    ap.add_argument("--classes", metavar="FILE", help="with --summary: the survivors classified by reading them "
                    "(TOML, [[survivor]] commit, id, class, why); the equivalent ones leave the score's denominators")
    ap.add_argument("--replay", metavar="REPORT", help="rerun the mutants of an earlier report at --ref (each recorded "
                    "one-line change, located by its line and neighbours; stale when they changed)")
    ap.add_argument("--survivors-only", action="store_true", help="with --replay: only the mutants verify did not kill")
    ap.add_argument("--modules", help="with --replay: only these comma-separated modules (paths)")
    ap.add_argument("--selftest-only", action="store_true", help="with --replay: run only the self-test of verify all "
                    "on each mutant (what canaries added since the report kill)")
    args = ap.parse_args(argv)
    if args.summary:
        with open(args.summary) as f:
            doc = json.load(f)
        try:
            classes = read_classes(args.classes, doc["commit"]) if args.classes else None
            print(summary(doc, classes))
        except (OSError, ValueError) as exc:
            raise SystemExit(f"--classes: {exc}") from None
        return 0

    previous = None
    old_doc = None
    if args.replay:
        with open(args.replay) as f:
            old_doc = json.load(f)
        args.seed, args.size = old_doc["seed"], old_doc["size"]
    if args.report and os.path.exists(args.report):
        with open(args.report) as f:
            previous = json.load(f)
        if args.seed is None:
            args.seed = previous["seed"]
        if (previous["seed"], previous["size"]) != (args.seed, args.size):
            raise SystemExit(f"{args.report} holds seed {previous['seed']}, size {previous['size']}: another sample")
        if previous.get("selection", "papers") != ("papers" if args.per_paper else "claims"):
            raise SystemExit(f"{args.report} selected by {previous.get('selection', 'papers')}: resume it the same way")
        if previous.get("test_selection", "imports") != ("coverage" if args.test_coverage else "imports"):
            raise SystemExit(f"{args.report} selected its tests by {previous.get('test_selection', 'imports')}: "
                             "resume it the same way")
        if previous.get("replay_of") != (old_doc or {}).get("commit"):
            raise SystemExit(f"{args.report} is not a replay of the same report")
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(10 ** 6)
    print(f"seed {args.seed}, size {args.size}", flush=True)

    top = tempfile.mkdtemp(prefix="deepinit-sampled-")
    base = os.path.join(top, "base")
    try:
        commit = rm.extract(args.ref, base)
        with open(os.path.join(base, ".commit"), "w") as f:
            f.write(commit)
        if previous and previous["commit"] != commit:
            raise SystemExit(f"{args.report} is of {previous['commit'][:12]}, the ref is {commit[:12]}")
        print(f"ref {args.ref} = {commit}", flush=True)
        if args.selftest_only:
            if old_doc is None or not args.report:
                raise SystemExit("--selftest-only goes with --replay REPORT and --report")
            return replay_selftest(base, commit, old_doc, args)
        mods = modules(base)
        parsed = {m: statements(base, m) for m in mods}
        if old_doc is None:
            pools = {m: mutation_pool(base, m) for m in mods}
            shares = allocate({m: parsed[m][0] for m in mods}, args.size, {m: len(pools[m]) for m in mods})
            sample = draw(pools, shares, args.seed)
        else:   # the population and shares are the earlier report's
            pools, shares, sample = {}, old_doc["shares"], []
        if args.list:
            for module, op, occ, where, line, col in sample:
                print(f"{module}:{line}:{col} {op.split('/')[-1]} #{occ} in {where or 'module level'}")
            return 0
        rm.install_plugins(base, PAPERS, os.path.join(top, "plugins"))
        if args.per_paper:
            cov = paper_coverage(base, PAPERS, args.coverage)
        else:
            claims_cov = claim_coverage(base, PAPERS, args.coverage, set(mods), jobs=args.jobs)
        test_cov = test_coverage(base, args.test_coverage, set(mods), jobs=args.jobs) if args.test_coverage else None

        def tests_for(module: str, line: int) -> list[str]:
            """The unit test files a survivor on this line runs."""
            importing = unit_tests(base, module)
            if test_cov is None:
                return importing
            return tests_reaching(test_cov, module, {parsed[module][1].first_line(line), line}, importing)

        def reaching(module: str, line: int) -> tuple[list, dict, bool]:
            """(papers, {paper: claims}, whether the self-test does) that execute the line (or its statement's first
            line)."""
            lines = {parsed[module][1].first_line(line), line}
            if args.per_paper:
                return [p for p in PAPERS if lines & set(cov[p].get(module, ()))], {}, False
            hit = claims_reaching(claims_cov, module, lines)
            selftest = bool(hit.pop("self-test", None))
            return list(hit), hit, selftest
        mutants = []
        stale = []
        diffs = {r["id"]: r.get("diff", "") for r in old_doc["mutants"]} if old_doc else {}
        if old_doc is not None:
            wanted = set(args.modules.split(",")) if args.modules else None
            sample = []
            for rec, block, changed, line in replayed(base, old_doc, wanted, args.survivors_only):
                if block is None:
                    stale.append({**{k: rec[k] for k in ("id", "file", "class", "description", "diff")},
                                  "status": "stale", "note": f"the line or its neighbours changed since "
                                                             f"{old_doc['commit'][:12]}"})
                    continue
                module = rec["file"]
                papers, claims, selftest = reaching(module, line)
                mutants.append(rm.Mutant(id=rec["id"], file=module, papers=papers, tests=tests_for(module, line),
                                         cls=rec["class"], description=f"{rec['description']}; replayed at line {line}",
                                         old=block, new=changed, claims=claims, selftest=selftest))
        for module, op, occ, where, line, col in sample:
            papers, claims, selftest = reaching(module, line)
            short = op.split("/")[-1]
            mutants.append(rm.Mutant(id=f"s-{module[:-3].replace('/', '.')}-{short}-{occ}", file=module,
                                     papers=papers, tests=tests_for(module, line), cls=short.split("_")[0],
                                     description=f"{short} #{occ} in {where or 'module level'} (line {line})",
                                     operator=(op, occ, line, col), claims=claims, selftest=selftest))
        records = list(previous["mutants"]) if previous else []
        done_ids = {r["id"] for r in records}
        records += [r for r in stale if r["id"] not in done_ids]
        done_ids |= {r["id"] for r in stale}
        # run in a seeded random order: the mutants of any piece (--limit) are a random part of the sample, so a
        # partial run's score estimates the whole's (the first 30 at 327a8ca ran in module order, before this)
        order = random.Random(f"{args.seed}:order").sample(range(len(mutants)), len(mutants))
        todo = [mutants[i] for i in order if mutants[i].id not in done_ids][:args.limit]
        # survivors whose tests an earlier --defer-tests run left: their tests now (verify is not run again)
        deferred = {r["id"] for r in records if r.get("tests_deferred")}
        retest = [] if args.defer_tests else [m for m in mutants if m.id in deferred]
        reached = {p for m in todo for p in m.papers}
        baselines = {}
        if not args.per_paper:   # each claim's own unmutated run (exit 0 there: as shipped) is its baseline
            baselines = {c: r for claims in claims_cov.values() for c, r in claims.items()}   # and "self-test"
        for paper in sorted(reached) if args.per_paper else ():
            r = rm.run_verify(base, paper, None, timeout=None)
            print(f"baseline {paper}: exit {r['exit']}, {r['seconds']:.0f} s", flush=True)
            if r["exit"] != 0:
                raise SystemExit(f"the unmutated baseline of {paper} exits {r['exit']}: aborting")
            baselines[paper] = r
        opts = argparse.Namespace(tests_only=False, all_papers=False, no_early_stop=False, tests=False,
                                  tests_survivors=not args.defer_tests, test_timeout=args.test_timeout)
        tests_opts = argparse.Namespace(**{**vars(opts), "tests_only": True, "tests_survivors": True})
        started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")

        def write():
            if not args.report:
                return
            doc = {"ref": args.ref, "commit": commit, "seed": args.seed, "size": args.size,
                   "selection": "papers" if args.per_paper else "claims",
                   "test_selection": "coverage" if args.test_coverage else "imports",
                   "population": old_doc["population"] if old_doc else {m: len(pools[m]) for m in mods},
                   "statements": {m: parsed[m][0] for m in mods},
                   "shares": shares, "started": previous["started"] if previous else started,
                   "command": " ".join([os.path.relpath(__file__, rm.REPO)] + sys.argv[1:]),
                   "complete": len(records) >= len(mutants) + len(stale), "mutants": records}
            if old_doc is not None:
                doc.update(replay_of=old_doc["commit"], survivors_only=args.survivors_only,
                           modules=args.modules or "all")
            tmp = args.report + ".tmp"
            with open(tmp, "w") as f:
                json.dump(doc, f, indent=1)
            os.replace(tmp, args.report)

        with cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            later = {pool.submit(rm.run_mutant, m, base, baselines, tests_opts): m for m in retest}
            for fut in cf.as_completed(later):
                got = fut.result()
                rec = next(r for r in records if r["id"] == later[fut].id)
                rec.update(test_run=got["test_run"], killed_by_tests=got["killed_by_tests"], tests_deferred=False)
                print(f"[tests] {rec['id']}: tests {got['test_run']['outcome']}", flush=True)
                write()
            futures = {pool.submit(rm.run_mutant, m, base, baselines, opts): m for m in todo}
            for fut in cf.as_completed(futures):
                try:
                    rec = fut.result()
                except rm.OracleEnvironmentError as exc:   # the report keeps every mutant before this one
                    for f in futures:
                        f.cancel()
                    raise SystemExit(f"stopped: {exc}")
                rec["unreached"] = not (futures[fut].papers or futures[fut].selftest)
                if args.defer_tests and not rec.get("killed_by_verify") and rec.get("status") == "run":
                    rec["tests_deferred"] = True
                if old_doc is not None:
                    rec["diff"] = diffs[rec["id"]]
                records.append(rec)
                outcome = rec.get("verify_outcome", rec.get("status"))
                tests = rec.get("test_run", {}).get("outcome", "-")
                print(f"[{len(records)}/{len(mutants) + len(stale)}] {rec['id']}: verify {outcome}"
                      f"{' (unreached)' if rec['unreached'] else ''}; tests {tests}", flush=True)
                write()
        write()
        return 0
    finally:
        shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
