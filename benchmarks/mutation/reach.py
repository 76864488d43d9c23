"""Which functions of the engine the verdicts execute: the reach map behind ``tests/test_engine_reach.py``.

    python benchmarks/mutation/reach.py --claim-coverage PATH --ref REF [--papers P,Q] [--out benchmarks/mutation/reach.json]
    python benchmarks/mutation/reach.py --unreached [--out ...]     # what neither the claims nor the self-test run

A mutant on a line that no claim and no self-test canary executes can never turn a verdict red: ``verify`` is blind to
it by construction (the sampled score counts it *unreached*). The reach map closes that class as a rule instead of
mutant by mutant. It lists, by module and qualified name (stable when lines move), every function and method of
``theory/`` and ``numerics/`` that some checked claim executes when it runs alone at the quick budget — read from the
per-claim line coverage the sampled harness measures (``sample.py --coverage``, ``claim-coverage-<ref>.json``; a
function counts when any statement of its body, docstring aside, ran). The self-test of ``verify all`` is measured
live instead (:func:`selftest_lines`: about ten seconds under coverage.py). ``tests/test_engine_reach.py`` then asks
that every function at the checked-out commit is reached by one of the two or exempt with a stated reason — so a new
engine function gets a claim or a known-answer canary before it lands, and the map is regenerated whenever the
harness measures claim coverage again (its ``ref`` says when).
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile

#: the packages whose functions the verdicts must reach
PACKAGES = ("theory", "numerics")
#: the self-test of ``verify all``, exactly as ``verify all`` runs it (exit 4 on a failed canary)
SELFTEST_CODE = ("import sys\nfrom verify import selftest\ncanaries = selftest.run()\n"
                 "sys.stderr.write(selftest.render(canaries) + '\\n')\n"
                 "sys.exit(0 if all(c.passed for c in canaries) else 4)\n")


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def functions(source: str) -> dict[str, set[int]]:
    """{qualified name: the lines of its body's statements} for every function and method of a module's ``source``,
    nested ones included (``outer.inner``, ``Class.method``). A body's lines are the first lines of its statements
    (what coverage.py reports as executed), the docstring left out; a nested function's or class's body belongs to
    its own entry, its ``def``/``class`` line (and decorators) to the enclosing function, which executes it."""
    out: dict[str, set[int]] = {}

    def statement_lines(stmts) -> set[int]:
        lines: set[int] = set()
        for st in stmts:
            if _is_docstring(st):
                continue
            lines.add(st.lineno)
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                lines |= {d.lineno for d in st.decorator_list}
                continue
            for field in ("body", "orelse", "finalbody"):
                lines |= statement_lines(getattr(st, field, None) or [])
            for part in list(getattr(st, "handlers", None) or []) + list(getattr(st, "cases", None) or []):
                lines |= statement_lines(part.body)     # except handlers and match cases
        return lines

    def walk(node: ast.AST, prefix: str) -> None:
        for ch in ast.iter_child_nodes(node):
            if isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out[prefix + ch.name] = statement_lines(ch.body)
                walk(ch, prefix + ch.name + ".")
            elif isinstance(ch, ast.ClassDef):
                walk(ch, prefix + ch.name + ".")
            elif isinstance(ch, ast.stmt):
                walk(ch, prefix)        # functions defined under if/try/with at module or class level

    walk(ast.parse(source), "")
    return out


def engine_functions(root: str) -> dict[str, dict[str, set[int]]]:
    """{module path: {qualified name: body lines}} for every module of :data:`PACKAGES` under ``root``."""
    out = {}
    for pkg in PACKAGES:
        for name in sorted(os.listdir(os.path.join(root, pkg))):
            if name.endswith(".py"):
                with open(os.path.join(root, pkg, name), encoding="utf-8") as f:
                    out[f"{pkg}/{name}"] = functions(f.read())
    return out


def reached(funcs: dict[str, dict[str, set[int]]], executed: dict[str, set[int]]) -> dict[str, list[str]]:
    """{module: sorted qualified names} of the functions with at least one executed body line."""
    out = {}
    for module, table in funcs.items():
        lines = set(executed.get(module, ()))
        hit = sorted(q for q, body in table.items() if body & lines)
        if hit:
            out[module] = hit
    return out


def claim_lines(claim_coverage: dict) -> dict[str, set[int]]:
    """The union, over every claim of every paper, of the lines each executed alone (the self-test's entry left out:
    it is measured live)."""
    out: dict[str, set[int]] = {}
    for paper, claims in claim_coverage.items():
        if paper == "self-test":
            continue
        for r in claims.values():
            for module, lines in r["lines"].items():
                out.setdefault(module, set()).update(lines)
    return out


def selftest_lines(root: str, timeout: float = 600.0) -> dict[str, set[int]]:
    """The lines of :data:`PACKAGES` that the self-test of ``verify all`` executes, in its own process under
    coverage.py (a fresh verdict cache, one thread). Raises ``RuntimeError`` when the self-test fails."""
    with tempfile.TemporaryDirectory(prefix="reach-") as tmp:
        data, script = os.path.join(tmp, "data"), os.path.join(tmp, "selftest.py")
        with open(script, "w", encoding="utf-8") as f:
            f.write(SELFTEST_CODE)
        env = {**os.environ, "PYTHONPATH": root, "DEEPINIT_CACHE": os.path.join(tmp, "cache"),
               "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        p = subprocess.run([sys.executable, "-m", "coverage", "run", f"--data-file={data}",
                            "--source=" + ",".join(PACKAGES), script], cwd=root, env=env, capture_output=True,
                           text=True, timeout=timeout)
        if p.returncode != 0:
            raise RuntimeError(f"the self-test under coverage exits {p.returncode}: {p.stderr[-1500:]}")
        out_json = os.path.join(tmp, "cov.json")
        subprocess.run([sys.executable, "-m", "coverage", "json", f"--data-file={data}", "-o", out_json], cwd=root,
                       env=env, check=True, capture_output=True)
        with open(out_json, encoding="utf-8") as f:
            files = json.load(f)["files"]
    return {os.path.relpath(k, root) if os.path.isabs(k) else k: set(v["executed_lines"]) for k, v in files.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--claim-coverage", help="a claim-coverage-<ref>.json of sample.py: write the claims' reach map")
    ap.add_argument("--ref", help="the commit the claim coverage was measured at (recorded in the map)")
    ap.add_argument("--papers", help="count only these comma-separated papers' claims (default: every paper the "
                                     "coverage holds, the example plugins' included, as the harness runs them)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "reach.json"))
    ap.add_argument("--unreached", action="store_true",
                    help="print the functions of this checkout that neither the map's claims nor the self-test reach")
    a = ap.parse_args(argv)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if a.claim_coverage:
        if not a.ref:
            ap.error("--ref is required with --claim-coverage")
        with open(a.claim_coverage, encoding="utf-8") as f:
            cov = json.load(f)["claims"]
        if a.papers:
            wanted = set(a.papers.split(","))
            if wanted - set(cov):
                ap.error(f"no claim coverage of {', '.join(sorted(wanted - set(cov)))} in {a.claim_coverage}")
            cov = {p: c for p, c in cov.items() if p in wanted}
        base = tempfile.mkdtemp(prefix="reach-tree-")
        archive = subprocess.run(["git", "archive", a.ref, *PACKAGES], cwd=root, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", base], input=archive.stdout, check=True)
        doc = {"ref": subprocess.run(["git", "rev-parse", a.ref], cwd=root, capture_output=True, text=True,
                                     check=True).stdout.strip(),
               "papers": sorted(p for p in cov if p != "self-test"),
               "claims": sum(len(c) for p, c in cov.items() if p != "self-test"),
               "reached": reached(engine_functions(base), claim_lines(cov))}
        with open(a.out, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        print(f"{sum(map(len, doc['reached'].values()))} functions reached by {doc['claims']} claims at "
              f"{doc['ref'][:7]}: {a.out}")
    if a.unreached:
        with open(a.out, encoding="utf-8") as f:
            doc = json.load(f)
        funcs = engine_functions(root)
        mine = reached(funcs, selftest_lines(root))
        for module, table in funcs.items():
            for q in table:
                if q not in doc["reached"].get(module, ()) and q not in mine.get(module, ()):
                    print(f"{module}\t{q}\t{len(table[q])} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
