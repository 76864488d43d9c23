"""The mutation-testing harness (benchmarks/mutation, issue 28): its catalogue is well-formed against the committed
code, and its classification of a verify run is right on a tiny fake oracle. Cheap (seconds); the harness itself
runs outside CI (docs/mutation.md)."""
from __future__ import annotations

import argparse
import json
import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HARNESS = os.path.join(ROOT, "benchmarks", "mutation", "run_mutants.py")


def _harness():
    spec = importlib.util.spec_from_file_location("run_mutants", HARNESS)
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("run_mutants", mod)
    spec.loader.exec_module(mod)
    return mod


R = _harness()
CATALOGUE = R.load_catalogue()


def _at_head(path: str) -> str | None:
    p = subprocess.run(["git", "-C", ROOT, "show", f"HEAD:{path}"], capture_output=True, text=True)
    return p.stdout if p.returncode == 0 else None


def test_catalogue_shape():
    ids = [m.id for m in CATALOGUE]
    assert len(ids) == len(set(ids)), "mutant ids must be unique"
    assert len(CATALOGUE) >= 34
    areas = {a: sum(m.file.startswith(a + "/") for m in CATALOGUE) for a in ("theory", "numerics", "verify")}
    assert areas["theory"] >= 12 and areas["numerics"] >= 12 and areas["verify"] >= 10, areas
    for m in CATALOGUE:
        assert m.papers and set(m.papers) <= set(R.PAPERS), (m.id, m.papers)
        assert m.cls in R.CLASSES, (m.id, m.cls)
        assert m.description.strip(), m.id
        assert m.file not in R.FORBIDDEN, (m.id, m.file)
        assert m.old != m.new, m.id
        for t in m.tests:
            assert os.path.exists(os.path.join(ROOT, t)), (m.id, t)


def test_papers_are_the_registered_ones_and_the_example_plugins():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        eps = R.tomllib.load(f)["project"]["entry-points"]["deepinit_verify.papers"]
    assert set(R.PAPERS) == set(eps) | set(R.PLUGINS)
    for paper, rel in R.PLUGINS.items():     # each plugin paper is a distribution whose entry point names it
        with open(os.path.join(ROOT, rel, "pyproject.toml"), "rb") as f:
            assert paper in R.tomllib.load(f)["project"]["entry-points"]["deepinit_verify.papers"]


@pytest.mark.skipif(subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True).returncode != 0,
                    reason="not a git checkout")
@pytest.mark.parametrize("mutant", CATALOGUE, ids=[m.id for m in CATALOGUE])
def test_mutant_applies_once_at_head_and_compiles(mutant):
    src = _at_head(mutant.file)
    if src is None:
        pytest.skip(f"{mutant.file} is not committed at HEAD yet")
    assert src.count(mutant.old) == 1, f"{mutant.id}: 'old' occurs {src.count(mutant.old)} times in {mutant.file}"
    new = R.apply_text(src, mutant)
    assert new is not None and new != src
    compile(new, mutant.file, "exec")


def test_stale_mutant_is_not_applied():
    m = R.Mutant("x", "f.py", ["isometry"], [], "factor", "d", old="a = 1", new="a = 2")
    assert R.apply_text("a = 1\na = 1\n", m) is None
    assert R.apply_text("b = 1\n", m) is None
    assert R.apply_text("a = 1\n", m) == "a = 2\n"


FAKE_MAIN = textwrap.dedent('''
    import os, sys, time
    here = os.path.dirname(os.path.abspath(__file__))
    mode = open(os.path.join(here, "MODE")).read().strip()
    lines = {"base": ["p:a holds", "p:b violated"], "kill": ["p:a violated"], "same": ["p:a holds", "p:b violated"]}
    if mode == "selftest":
        sys.stderr.write("self-test FAILED: 1 of 12 canaries are not as known\\n")
        sys.exit(4)
    for l in lines.get(mode, []):
        print(f"{l:40s} 0.1s  summary", flush=True)
    if mode in ("kill", "hang"):
        time.sleep(60)
    sys.exit(0 if mode in ("base", "same") else 1)
''')


@pytest.fixture()
def fake_tree(tmp_path):
    """A tree whose ``verify`` package is a fake oracle: the harness must import it (PYTHONPATH=tree, ahead of the
    editable install) and classify its runs."""
    pkg = tmp_path / "verify"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "__main__.py").write_text(FAKE_MAIN)

    def mode(m):
        (pkg / "MODE").write_text(m)
        return str(tmp_path)
    return mode


def test_classification_on_a_fake_oracle(fake_tree):
    base = R.run_verify(fake_tree("base"), "p", None, timeout=30)
    assert base["outcome"] == "survived" and base["exit"] == 0
    assert base["statuses"] == {"p:a": "holds", "p:b": "violated"}
    same = R.run_verify(fake_tree("same"), "p", base["statuses"], timeout=30)
    assert same["outcome"] == "survived" and same["deviation"] is None
    kill = R.run_verify(fake_tree("kill"), "p", base["statuses"], timeout=30)     # stopped at the first deviation
    assert kill["outcome"] == "killed" and kill["early_stop"] and kill["exit"] == 1
    assert kill["deviation"] == ["p:a", "holds", "violated"] and kill["seconds"] < 20
    st = R.run_verify(fake_tree("selftest"), "p", base["statuses"], timeout=30)
    assert st["outcome"] == "killed" and st["exit"] == 4 and st["self_test_failed"]
    hang = R.run_verify(fake_tree("hang"), "p", base["statuses"], timeout=2)
    assert hang["outcome"] == "timeout" and hang["seconds"] < 20


def test_summary_counts():
    recs = [
        {"id": "a", "file": "theory/x.py", "class": "factor", "papers": ["isometry"], "status": "run",
         "killed_by_verify": True, "killed_by_tests": False, "description": "x", "reason": ""},
        {"id": "b", "file": "theory/x.py", "class": "factor", "papers": ["isometry", "bn-mean-field"], "status": "run",
         "killed_by_verify": False, "killed_by_tests": True, "description": "y", "reason": "why"},
        {"id": "c", "file": "verify/stats.py", "class": "operator", "papers": ["isometry"], "status": "run",
         "killed_by_verify": False, "description": "op", "reason": ""},
        {"id": "d", "file": "verify/stats.py", "class": "factor", "papers": ["isometry"], "status": "stale"},
    ]
    s = R.summarise(recs, True)
    iso = s["by_paper"]["isometry"]
    assert (iso["mutants"], iso["killed_by_verify"], iso["killed_by_tests"], iso["survived"]) == (3, 1, 1, 1)
    assert s["by_paper"]["bn-mean-field"]["killed_by_either"] == 1
    assert s["by_area"]["operator verify"]["survived"] == 1
    assert s["total"]["all"]["tests_run"] == 2
    text = R.render_tables(s, recs)
    assert "**b**" in text and "**c**" in text and "d:" in text


def _harness_script(name: str):
    """``benchmarks/mutation/<name>.py`` imported as a module (the scripts are not a package)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "benchmarks", "mutation", f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _sampler():
    return _harness_script("sample")


def test_the_sample_is_shared_by_statements_and_a_small_pool_passes_its_share_on():
    S = _sampler()
    assert S.allocate({"a": 10, "b": 30, "c": 60}, 300) == {"a": 30, "b": 90, "c": 180}
    # a has 5 mutants for a share of 30: it gives all 5, and b, c share the other 295 as 30 : 60 (largest remainder)
    assert S.allocate({"a": 10, "b": 30, "c": 60}, 300, {"a": 5, "b": 1000, "c": 1000}) == {"a": 5, "b": 98, "c": 197}
    assert S.allocate({"a": 1, "b": 1, "c": 1}, 2) == {"a": 1, "b": 1, "c": 0}   # ties broken by name
    assert sum(S.allocate({"a": 7, "b": 13, "c": 29}, 300).values()) == 300


def test_the_draw_is_reproducible_from_its_seed_and_a_module_does_not_reshuffle_the_others():
    S = _sampler()
    pools = {"m1": [("op", k, "f", k) for k in range(50)], "m2": [("op", k, "g", k) for k in range(40)]}
    one = S.draw(pools, {"m1": 5, "m2": 4}, seed=7)
    assert one == S.draw(pools, {"m1": 5, "m2": 4}, seed=7) != S.draw(pools, {"m1": 5, "m2": 4}, seed=8)
    more = S.draw({**pools, "m0": [("op", 0, "h", 1)]}, {"m1": 5, "m2": 4, "m0": 1}, seed=7)
    assert [t for t in more if t[0] != "m0"] == one and len(one) == 9
    assert len({t[2] for t in one if t[0] == "m1"}) == 5   # without replacement


def test_a_survivor_runs_the_tests_that_import_its_module():
    S = _sampler()
    tests = S.unit_tests(ROOT, "theory/kernels.py")
    assert "tests/test_kernels.py" in tests and "tests/test_latex.py" not in tests


def test_the_sampled_score_and_its_wilson_interval_on_a_made_up_report():
    S = _sampler()
    lo, hi = S.wilson(45, 50)
    assert (round(lo, 4), round(hi, 4)) == (0.7864, 0.9565)          # Wilson 95 % for 45/50
    assert S.wilson(0, 0) == (0.0, 1.0)
    doc = {"seed": 1, "size": 4, "commit": "a" * 40, "mutants": [
        {"id": "s-a", "file": "theory/x.py", "class": "NumberReplacer", "status": "run", "killed_by_verify": True,
         "papers": ["isometry"], "description": "d"},
        {"id": "s-b", "file": "theory/x.py", "class": "AddNot", "status": "run", "killed_by_verify": False,
         "killed_by_tests": True, "papers": [], "unreached": True, "description": "d", "test_run": {"outcome": "killed"}},
        {"id": "s-c", "file": "numerics/y.py", "class": "AddNot", "status": "stale", "papers": [], "description": "d"}]}
    text = S.summary(doc)
    assert "3 of 4 drawn mutants done (1 stale)" in text
    assert "| all | 2 | 1 (50%, " in text and "| 2 (100%, " in text and text.count("| theory/x.py |") == 1
    assert "`s-b`" in text and "`s-a`" not in text.split("Not killed by verify:")[1]
    # a survivor whose tests a --defer-tests run left: said so, and not counted as killed by them
    doc["mutants"][1].update(killed_by_tests=None, tests_deferred=True, test_run=None)
    doc["mutants"][1].pop("test_run")
    text = S.summary(doc)
    assert "the unit tests of 1 survivors not yet run (counted as not killed by them)" in text
    assert "| all | 2 | 1 (50%, " in text and "| 1 (50%, " in text and "tests not run" in text


def test_survivors_classified_by_reading_leave_the_score_only_when_equivalent(tmp_path):
    """--classes: an equivalent survivor leaves the denominators (9 killed of 10 run, one equivalent: 9 of 9), a
    below-resolution or missed one stays in them; the survivors are counted by class; a class given to a killed
    mutant, to an id not in the report, twice, without its argument or outside the three classes is refused."""
    S = _sampler()
    run = [{"id": f"s-{k}", "file": "theory/x.py", "class": "AddNot", "status": "run", "killed_by_verify": True,
            "papers": ["isometry"], "description": "d"} for k in range(9)]
    run += [{"id": f"s-{k}", "file": "numerics/y.py", "class": "NumberReplacer", "status": "run",
             "killed_by_verify": False, "papers": ["isometry"], "description": "d"} for k in (9, 10, 11)]
    doc = {"seed": 1, "size": 12, "commit": "abc123" + "0" * 34, "mutants": run}
    plain = S.summary(doc)
    assert "| all | 12 | 9 (75%, " in plain and "by class" not in plain
    path = tmp_path / "survivors.toml"
    path.write_text('[[survivor]]\ncommit = "abc123"\nid = "s-9"\nclass = "equivalent"\nwhy = "x*1 is x"\n'
                    '[[survivor]]\ncommit = "abc123"\nid = "s-10"\nclass = "below-resolution"\nwhy = "moves 1e-17"\n'
                    '[[survivor]]\ncommit = "fff999"\nid = "s-0"\nclass = "missed"\nwhy = "another report"\n')
    classes = S.read_classes(str(path), doc["commit"])
    assert classes == {"s-9": ("equivalent", "x*1 is x"), "s-10": ("below-resolution", "moves 1e-17")}
    text = S.summary(doc, classes)
    assert "1 argued equivalent, left out of the score" in text
    assert "| all | 11 | 9 (82%, " in text and "| numerics/y.py | 2 | 0 (0%, " in text
    assert "| equivalent | 1 |" in text and "| below-resolution | 1 |" in text and "| not yet read | 1 |" in text
    assert "**equivalent**: x*1 is x" in text
    with pytest.raises(ValueError, match="killed by verify: s-0"):
        S.summary(doc, {"s-0": ("missed", "read")})
    with pytest.raises(ValueError, match="not in the report: s-99"):
        S.summary(doc, {"s-99": ("missed", "read")})
    for body, why in (('class = "harmless"\nwhy = "w"', "is not one of"), ('class = "missed"', "needs its argument"),
                      ('class = "missed"\nwhy = "w"\n[[survivor]]\ncommit = "abc"\nid = "s-9"\nclass = "missed"\n'
                       'why = "w"', "classified twice")):
        path.write_text(f'[[survivor]]\ncommit = "abc"\nid = "s-9"\n{body}\n')
        with pytest.raises(ValueError, match=why):
            S.read_classes(str(path), doc["commit"])


def _moved():
    return _harness_script("moved")


def test_how_far_a_survivor_moved_the_verdicts_on_made_up_verdicts():
    """moved.py's comparison: the largest relative change and where, the numbers changed, the texts changed; the
    volatile fields (seconds, provenance) never count; NaN against NaN is no change, a finite value against ∞ is ∞."""
    M = _moved()
    base = {"p:a": {"claim": "p:a", "status": "holds", "seconds": 3.0, "summary": "ok",
                    "evidence": [{"theory": 2.0, "numeric": 2.5, "observed": float("nan"), "passed": True},
                                 {"theory": 1e-12, "numeric": 0.0, "note": "n = 10"}],
                    "settings": {"computed": "today", "budget": "quick"}}}
    same = json.loads(json.dumps(base))
    same["p:a"]["seconds"], same["p:a"]["settings"]["computed"] = 9.0, "tomorrow"
    assert M.compare(base, same) == {"max_rel": 0.0, "where": None, "numbers_changed": 0, "numbers": 5,
                                     "texts_changed": 0, "text_example": None}
    moved = json.loads(json.dumps(base))
    moved["p:a"]["evidence"][0]["numeric"] = 2.5 * (1 + 1e-9)
    moved["p:a"]["evidence"][1]["theory"] = 2e-12
    moved["p:a"]["evidence"][1]["note"] = "n = 11"
    got = M.compare(base, moved)
    assert got["where"] == "p:a.evidence[1].theory" and got["max_rel"] == pytest.approx(0.5, rel=1e-12)
    assert (got["numbers_changed"], got["texts_changed"], got["text_example"]) == (2, 1, "p:a.evidence[1].note")
    moved["p:a"]["evidence"][0]["theory"] = float("inf")
    assert M.compare(base, moved)["max_rel"] == float("inf")
    assert M.relative(1.0, 1.0 + 2 ** -52) == pytest.approx(2 ** -52 / (1 + 2 ** -52))


def test_a_survivor_is_rerun_on_its_claims_with_its_own_change(tmp_path):
    """The claims of a survivor are those its verify runs selected (not the self-test); its recorded one-line change
    is put back into the tree of its commit exactly once."""
    M = _moved()
    rec = {"id": "s-m", "file": "pkg/m.py", "description": "ReplaceBinaryOperator_Mul_Add #0 in f (line 2)",
           "diff": "-    return x * 3\n+    return x + 3",
           "verify": [{"paper": "self-test", "claims": []}, {"paper": "p", "claims": ["p:a", "p:b"]},
                      {"paper": "q", "claims": ["q:c", "p:a"]}]}
    assert M.survivor_claims(rec) == ["p:a", "p:b", "q:c"]
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("def f(x):\n    return x * 3\n\n\ndef g(x):\n    return x * 3\n")
    path, text = M.mutated_source(str(tmp_path), "c", rec)
    assert path.endswith("m.py") and text == "def f(x):\n    return x + 3\n\n\ndef g(x):\n    return x * 3\n"
    assert M.mutated_source(str(tmp_path), "c", {**rec, "description": "… (line 5)"}) is None


def test_an_operator_mutant_is_applied_where_cosmic_ray_init_listed_it(tmp_path):
    """Occurrence k of an operator is the k-th place ``cosmic-ray init`` lists (the bare ``*`` of a keyword-only
    signature counts: 0 is that ``*``, 1 is ``x * 3``); with the recorded (line, column) a mutant whose change starts
    elsewhere is not applied (None)."""
    pytest.importorskip("cosmic_ray")
    source = "def f(x, *, y=2):\n    return x * 3\n\n\ndef g(a, b):\n    return a * b\n"
    (tmp_path / "m.py").write_text(source)
    times = R.Mutant(id="a", file="m.py", papers=[], tests=[], cls="op", description="",
                     operator=("core/ReplaceBinaryOperator_Mul_Add", 1, 2, 13))
    assert R.apply_operator(str(tmp_path), times) == "-    return x * 3\n+    return x + 3"
    (tmp_path / "m.py").write_text(source)
    elsewhere = R.Mutant(id="b", file="m.py", papers=[], tests=[], cls="op", description="",
                         operator=("core/ReplaceBinaryOperator_Mul_Add", 1, 6, 13))
    assert R.apply_operator(str(tmp_path), elsewhere) is None and (tmp_path / "m.py").read_text() == source


def test_the_population_leaves_out_the_star_of_a_signature():
    """``*`` in ``def f(x, *, y)`` or ``*args`` is no multiplication: its replacement does not compile, so it is no
    bug anybody could ship and is not drawn (it would only be a stale slot of the sample)."""
    S = _sampler()
    lines = ["def f(x, *, y=2, **kw):", "    return x * 3 ** y", "def g(", "        a,", "        *rest):", "    pass"]
    assert S.is_star_marker(lines, 1, 9) and S.is_star_marker(lines, 1, 17) and S.is_star_marker(lines, 5, 8)
    assert not S.is_star_marker(lines, 2, 13) and not S.is_star_marker(lines, 2, 17)


def test_a_replayed_mutant_is_located_by_its_line_and_fewest_neighbours():
    """--replay: a recorded one-line change lands where its line now is (found with the fewest neighbours that make
    it unique), and is stale when the line or its neighbourhood changed."""
    S = _sampler()
    old = ["a = 1", "b = 2", "    x = y + 1", "c = 3", "    x = y + 1", "d"]
    new = "z\na = 1\nb = 2\n    x = y + 1\nc = 3\nQ\n    x = y + 1\nd\n"
    # the line occurs twice: one neighbour on each side makes the first unique; it moved down one line
    assert S.replay_block(old, new, 3, "    x = y + 1", "    x = y - 1") == (
        "b = 2\n    x = y + 1\nc = 3\n", "b = 2\n    x = y - 1\nc = 3\n", 4)
    # the second occurrence's neighbourhood changed (a line was inserted before it): stale
    assert S.replay_block(old, new, 5, "    x = y + 1", "    x = y - 1") is None
    # a record whose line does not say what the old source says there is refused
    assert S.replay_block(old, new, 5, "    x = y + 2", "    x = y - 1") is None
    # a line that occurs once stands alone
    assert S.replay_block(old, new, 2, "b = 2", "b = 3") == ("b = 2\n", "b = 3\n", 3)


def test_a_selftest_only_replay_runs_each_mutant_on_the_mutated_tree_restores_it_and_resumes(tmp_path, monkeypatch):
    """--replay --selftest-only: the self-test runs with the mutant in the tree (and only then), the source is back
    after each one, a stale record is reported as such, and a rerun skips the ids already in the report."""
    S = _sampler()
    (tmp_path / "m.py").write_text("a = 1\nb = 2\n")
    rows = [({"id": "one", "file": "m.py", "diff": "-a = 1\n+a = 0"}, "a = 1\n", "a = 0\n", 1),
            ({"id": "two", "file": "m.py", "diff": "-b = 2\n+b = 3"}, "b = 2\n", "b = 3\n", 2),
            ({"id": "old", "file": "m.py", "diff": "-c\n+d"}, None, None, None)]
    monkeypatch.setattr(S, "replayed", lambda base, doc, wanted, survivors: rows)
    seen = []

    def run_selftest(tree, timeout):
        text = (tmp_path / "m.py").read_text()
        seen.append(text)
        return {"outcome": "killed" if "a = 0" in text else "survived", "seconds": 0.1, "tail": []}
    monkeypatch.setattr(S.rm, "run_selftest", run_selftest)
    report = str(tmp_path / "r.json")
    args = argparse.Namespace(report=report, modules=None, survivors_only=True)
    assert S.replay_selftest(str(tmp_path), "c0ffee", {"commit": "beef"}, args) == 0
    assert seen == ["a = 0\nb = 2\n", "a = 1\nb = 3\n"] and (tmp_path / "m.py").read_text() == "a = 1\nb = 2\n"
    doc = json.load(open(report))
    assert (doc["replay_of"], doc["commit"]) == ("beef", "c0ffee")
    assert [(r["id"], r["outcome"]) for r in doc["mutants"]] == [("one", "killed"), ("two", "survived"),
                                                                  ("old", "stale")]
    S.replay_selftest(str(tmp_path), "c0ffee", {"commit": "beef"}, args)      # all done: nothing runs again
    assert len(seen) == 2
    with pytest.raises(SystemExit, match="another replay"):
        S.replay_selftest(str(tmp_path), "dead", {"commit": "beef"}, args)


def test_a_survivor_runs_the_test_files_that_execute_its_line():
    S = _sampler()
    cov = {"tests": {"theory/x.py": {"3": ["tests/test_a.py"], "4": ["tests/test_a.py", "tests/test_b.py"]}},
           "outside": {"theory/x.py": [1, 2]}}
    importing = ["tests/test_a.py", "tests/test_b.py", "tests/test_c.py"]
    assert S.tests_reaching(cov, "theory/x.py", {3}, importing) == ["tests/test_a.py"]
    assert S.tests_reaching(cov, "theory/x.py", {3, 4}, importing) == ["tests/test_a.py", "tests/test_b.py"]
    assert S.tests_reaching(cov, "theory/x.py", {2, 3}, importing) == importing     # executed at import as well
    assert S.tests_reaching(cov, "theory/x.py", {9}, importing) == []               # no test executes it
    assert S.tests_reaching(cov, "theory/y.py", {3}, importing) == []
    # a file with a test that failed under coverage (its lines not all known): added when it imports the module
    cov["failed"] = ["tests/test_c.py::test_spawns_with_its_own_environment", "tests/test_d.py::test_x"]
    assert S.tests_reaching(cov, "theory/x.py", {3}, importing) == ["tests/test_a.py", "tests/test_c.py"]
    assert S.tests_reaching(cov, "theory/x.py", {9}, importing) == ["tests/test_c.py"]


def test_the_test_coverage_attributes_lines_to_the_file_whose_tests_fixtures_or_processes_ran_them(tmp_path):
    """A made-up project: test_a calls f in its test and g in a fixture, test_b runs h in a subprocess it spawns.
    Each body line is attributed to its test file; the def lines (executed at import) are "outside"."""
    S = _sampler()
    (tmp_path / "theory").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "theory" / "__init__.py").write_text("")
    (tmp_path / "theory" / "x.py").write_text(textwrap.dedent("""\
        def f():
            return 1
        def g():
            return 2
        def h():
            return 3
        """))
    (tmp_path / "tests" / "test_a.py").write_text(textwrap.dedent("""\
        import pytest
        from theory.x import f, g
        @pytest.fixture
        def two():
            return g()
        def test_f(two):
            assert f() + two == 3
        """))
    (tmp_path / "tests" / "test_b.py").write_text(textwrap.dedent("""\
        import subprocess, sys
        def test_h():
            subprocess.run([sys.executable, "-c", "from theory.x import h; h()"], check=True)
        """))
    (tmp_path / ".commit").write_text("0" * 40)
    cov = S.test_coverage(str(tmp_path), str(tmp_path / "cov.json"), {"theory/x.py"}, jobs=1)
    assert cov["exit"] == 0 and cov["failed"] == []
    # the def lines run at import: in the pytest process before any test ("outside"), and in test_b's subprocess
    assert cov["tests"]["theory/x.py"] == {"2": ["tests/test_a.py"], "4": ["tests/test_a.py"], "6": ["tests/test_b.py"],
                                           "1": ["tests/test_b.py"], "3": ["tests/test_b.py"], "5": ["tests/test_b.py"]}
    assert set(cov["outside"]["theory/x.py"]) == {1, 3, 5}
    assert S.test_coverage(str(tmp_path), str(tmp_path / "cov.json"), {"theory/x.py"}) == cov   # read back


def test_a_mutant_runs_only_the_claims_that_execute_its_line():
    S = _sampler()
    cov = {"p": {"p:a": {"lines": {"theory/x.py": [3, 4, 9]}}, "p:b": {"lines": {"theory/x.py": [3, 5]}},
                 "p:c": {"lines": {"theory/y.py": [9]}}},
           "q": {"q:a": {"lines": {"theory/y.py": [9]}}}}
    assert S.claims_reaching(cov, "theory/x.py", {3}) == {"p": ["p:a", "p:b"]}
    assert S.claims_reaching(cov, "theory/x.py", {9, 12}) == {"p": ["p:a"]}     # the statement's first line or its own
    assert S.claims_reaching(cov, "theory/y.py", {9}) == {"p": ["p:c"], "q": ["q:a"]}
    assert S.claims_reaching(cov, "theory/x.py", {7}) == {}                       # unreached: no claim runs it
    named = R.verify_command("p", ["p:a", "p:b"])
    assert named[named.index("verify") + 1:named.index("--budget")] == ["p:a", "p:b"]
    whole = R.verify_command("p")
    assert whole[whole.index("verify") + 1:whole.index("--budget")] == ["all", "--paper", "p"]
    assert named[named.index("--budget"):] == whole[whole.index("--budget"):]      # same budget, expectations, cache


def test_a_claim_selected_run_is_judged_against_those_claims_own_baselines(fake_tree, monkeypatch):
    """The statuses and time limit of a claim-selected run are the selected claims' own unmutated runs'."""
    seen = {}

    def fake_run_verify(tree, paper, baseline, timeout, early_stop=True, claims=None):
        seen.update(paper=paper, baseline=baseline, timeout=timeout, claims=claims)
        return {"paper": paper, "claims": claims, "outcome": "survived", "exit": 0, "early_stop": False,
                "seconds": 0.1, "deviation": None, "self_test_failed": False, "statuses": {}, "tail": []}
    monkeypatch.setattr(R, "run_verify", fake_run_verify)
    m = R.Mutant(id="m", file="theory/x.py", papers=["p"], tests=[], cls="c", description="d", old="a = 1",
                 new="a = 2", claims={"p": ["p:b"]})
    base = fake_tree("base")
    monkeypatch.setattr(R, "copy_tree", lambda b, dest: (os.makedirs(os.path.join(dest, "theory")),
                                                          open(os.path.join(dest, "theory", "x.py"), "w").write("a = 1\n")))
    baselines = {"p:a": {"status": "holds", "seconds": 100.0}, "p:b": {"status": "violated", "seconds": 10.0}}
    opts = argparse.Namespace(tests_only=False, all_papers=False, no_early_stop=False, tests=False,
                              tests_survivors=False, test_timeout=1)
    rec = R.run_mutant(m, base, baselines, opts)
    assert rec["status"] == "run" and rec["killed_by_verify"] is False
    assert seen == {"paper": "p", "baseline": {"p:b": "violated"}, "timeout": 3 * 10.0 + 60, "claims": ["p:b"]}


def test_a_claim_selected_mutant_the_self_test_reaches_runs_it_first(fake_tree, monkeypatch):
    """``verify all`` runs the self-test before any claim; a claim-selected run does not, so the harness runs it when
    the self-test executes the mutated line — and a failed canary kills the mutant without any claim."""
    ran = []
    monkeypatch.setattr(R, "run_selftest", lambda tree, timeout: ran.append(("self-test", timeout)) or
                        {"paper": "self-test", "outcome": "killed", "exit": 4, "self_test_failed": True})
    monkeypatch.setattr(R, "run_verify", lambda *a, **k: ran.append("claims"))
    monkeypatch.setattr(R, "copy_tree", lambda b, dest: (os.makedirs(os.path.join(dest, "theory")),
                                                          open(os.path.join(dest, "theory", "x.py"), "w").write("a = 1\n")))
    m = R.Mutant(id="m", file="theory/x.py", papers=["p"], tests=[], cls="c", description="d", old="a = 1",
                 new="a = 2", claims={"p": ["p:b"]}, selftest=True)
    opts = argparse.Namespace(tests_only=False, all_papers=False, no_early_stop=False, tests=False,
                              tests_survivors=False, test_timeout=1)
    rec = R.run_mutant(m, fake_tree("base"), {"self-test": {"seconds": 5.0}}, opts)
    assert rec["killed_by_verify"] is True and rec["verify_outcome"] == "killed"
    assert ran == [("self-test", 3 * 5.0 + 60)]          # the claims need not run
    assert "sys.exit(0 if all(c.passed for c in canaries) else 4)" in R.SELFTEST_CODE
