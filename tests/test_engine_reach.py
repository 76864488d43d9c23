"""Every function of theory/ and numerics/ is executed by a checked claim or by the self-test of `verify all`, or is
exempt for a stated reason: the reach map (benchmarks/mutation/reach.py). A function no verdict executes can be broken
with every verdict as it was; a new one gets a claim or a known-answer canary (verify/selftest_reach.py) before it
lands. The claims' part of the map is measured by the sampled mutation harness (each claim alone under coverage.py at
the quick budget, at the map's ``ref``); the self-test's part is measured here, live."""
from __future__ import annotations

import ast
import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "mutation"))
import reach  # noqa: E402

MAP = os.path.join(ROOT, "benchmarks", "mutation", "reach.json")

#: (module, qualified name): why no verdict executes it
EXEMPT = {
    ("theory/kernels.py", "_Route.pair"): "abstract: every route overrides it",
    ("theory/kernels.py", "_Route.pair_derivative"): "abstract: every route overrides it",
    ("theory/certify.py", "_Enclosure._enclose"): "abstract: every enclosure overrides it",
}


@pytest.fixture(scope="module")
def functions():
    return reach.engine_functions(ROOT)


@pytest.fixture(scope="module")
def by_selftest(functions):
    return reach.reached(functions, reach.selftest_lines(ROOT))


def test_every_engine_function_is_executed_by_a_claim_or_a_canary(functions, by_selftest):
    with open(MAP, encoding="utf-8") as f:
        doc = json.load(f)
    missing = [f"{module}::{q}" for module, table in functions.items() for q in table
               if q not in doc["reached"].get(module, ()) and q not in by_selftest.get(module, ())
               and (module, q) not in EXEMPT]
    assert missing == [], (f"functions that no checked claim (the reach map, measured at {doc['ref'][:7]}) and no "
                           "self-test canary executes — give each a known-answer canary in verify/selftest_reach.py, "
                           "or remeasure the map (benchmarks/mutation/reach.py): " + ", ".join(missing))


def test_the_exemptions_are_abstract_methods_nothing_executes(functions, by_selftest):
    for (module, q), why in EXEMPT.items():
        assert q in functions[module], (module, q)
        assert q not in by_selftest.get(module, ()), f"{module}::{q} is executed now: drop its exemption"
        with open(os.path.join(ROOT, module), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        cls, name = q.split(".")
        [node] = [n for c in tree.body if isinstance(c, ast.ClassDef) and c.name == cls
                  for n in c.body if isinstance(n, ast.FunctionDef) and n.name == name]
        [stmt] = [s for s in node.body if not reach._is_docstring(s)]
        assert isinstance(stmt, ast.Raise) and "NotImplementedError" in ast.unparse(stmt), (module, q)
        assert why.startswith("abstract")


SOURCE = '''
def f(x):
    """doc"""
    y = x + 1
    if y:
        return (y +
                2)
    try:
        pass
    except ValueError:
        z = 3
    def g():
        return 1
    return g

class C:
    def m(self):
        return 1
    @property
    def p(self):
        return 2
if True:
    def h():
        for i in range(3):
            continue
        else:
            pass
'''


def test_functions_are_their_statements_first_lines_docstrings_and_nested_bodies_left_out():
    assert reach.functions(SOURCE) == {"f": {4, 5, 6, 8, 9, 11, 12, 14}, "f.g": {13}, "C.m": {18}, "C.p": {21},
                                       "h": {24, 25, 27}}


def test_a_function_is_reached_when_any_of_its_lines_ran_and_the_selftest_entry_is_left_out():
    funcs = {"m.py": reach.functions(SOURCE)}
    assert reach.reached(funcs, {"m.py": {13}}) == {"m.py": ["f.g"]}          # g ran: f's own lines did not
    assert reach.reached(funcs, {"m.py": {12, 21}}) == {"m.py": ["C.p", "f"]}
    assert reach.reached(funcs, {"other.py": {4}}) == {}
    cov = {"paper": {"paper:a": {"lines": {"m.py": [4]}}, "paper:b": {"lines": {"m.py": [18], "n.py": [1]}}},
           "self-test": {"self-test": {"lines": {"m.py": [13]}}}}
    assert reach.claim_lines(cov) == {"m.py": {4, 18}, "n.py": {1}}


def test_the_map_counts_the_claims_of_the_papers_asked_for(tmp_path, functions):
    """``--papers``: a map of the built-in papers' claims alone (the stricter gate) leaves out what only another
    paper's claims execute."""
    table = functions["theory/results.py"]
    one, other = sorted(table["MatrixEstimate.entry"])[0], sorted(table["MatrixEstimate.shape"])[0]
    cov = {"claims": {"a": {"a:x": {"lines": {"theory/results.py": [one]}}},
                      "b": {"b:y": {"lines": {"theory/results.py": [other]}}}}}
    path, out = tmp_path / "cov.json", tmp_path / "map.json"
    path.write_text(json.dumps(cov))
    assert reach.main(["--claim-coverage", str(path), "--ref", "HEAD", "--papers", "a", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["papers"] == ["a"] and doc["claims"] == 1
    assert doc["reached"] == {"theory/results.py": ["MatrixEstimate.entry"]}
    assert reach.main(["--claim-coverage", str(path), "--ref", "HEAD", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["reached"] == {"theory/results.py": ["MatrixEstimate.entry",
                                                                           "MatrixEstimate.shape"]}
