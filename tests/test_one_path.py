"""One path for a paper: the built-in papers are declared exactly as a plugin is — only ``verify.api`` (plus theory,
numerics), claims by keyword through ``@PAPER.claim``, namespaced quantities, and their coverage rows, expected
verdicts and scheduling hints inside their own package — and the seams a plugin author met are closed."""
from __future__ import annotations

import ast
import pathlib

import pytest

from verify import api, quantities as Q
from verify.registry import all_claims, papers

PAPERS_DIR = pathlib.Path(__file__).resolve().parent.parent / "verify" / "papers"
BUILTIN = ("bn-finite-width", "bn-mean-field", "isometry", "covariance-sde")


def _imports(path: pathlib.Path):
    """(line, absolute module) of every import in the file, function-level imports included."""
    package = ".".join(path.relative_to(PAPERS_DIR.parent.parent).with_suffix("").parts)
    if path.name == "__init__.py":
        package += ".__init__"
    parts = package.split(".")[:-1]         # the file's package
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = parts[:len(parts) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
                names = [mod] if node.module else [f"{mod}.{a.name}" for a in node.names]
            else:
                names = [node.module]
            for m in names:
                yield node.lineno, m


def test_built_in_papers_import_nothing_of_verify_but_its_api():
    files = sorted(PAPERS_DIR.rglob("*.py"))
    assert len(files) > 30
    bad = []
    for f in files:
        own = ".".join(f.relative_to(PAPERS_DIR.parent.parent).parts[:3])   # verify.papers.<paper>
        for line, mod in _imports(f):
            if mod.split(".")[0] != "verify":
                continue
            if mod == "verify.api" or mod.startswith("verify.api.") or mod == own or mod.startswith(own + "."):
                continue
            bad.append(f"{f.relative_to(PAPERS_DIR)}:{line} imports {mod}")
    assert not bad, "\n".join(bad)


def test_the_import_check_sees_a_reach_past_the_api(tmp_path):
    """The check above on known answers: a relative import of an internal module, at any level and inside a function,
    is seen; the paper's own modules and verify.api are not."""
    pkg = PAPERS_DIR / "isometry"
    probe = pkg / "_probe_for_test.py"
    probe.write_text("from ...api import Paper\nfrom . import _common\n\ndef f():\n    from ...figures import Panel\n"
                     "    from .. import bn_mean_field\n", encoding="utf-8")
    try:
        seen = [m for _, m in _imports(probe)]
    finally:
        probe.unlink()
    assert seen == ["verify.api", "verify.papers.isometry._common", "verify.figures", "verify.papers.bn_mean_field"]


def _section_imports(path: pathlib.Path) -> list[str]:
    """The sections of its own paper that a file imports: modules of the package whose names do not start with "_"
    (the shared ``_common``/``_training`` helpers), other than ``coverage``."""
    own = ".".join(path.relative_to(PAPERS_DIR.parent.parent).parts[:3])
    out = []
    for line, mod in _imports(path):
        if mod.startswith(own + "."):
            name = mod[len(own) + 1:].split(".")[0]
            if not name.startswith("_") and name != "coverage":
                out.append(f"{path.relative_to(PAPERS_DIR)}:{line} imports the section {name}")
    return out


def test_sections_share_helpers_through_common_modules_not_each_other():
    """Each section module of a paper imports shared helpers from the package's private modules (``_common.py``,
    ``_training.py``), never from a sibling section; only the package's ``__init__`` imports the sections."""
    bad = []
    for key in BUILTIN:
        for f in sorted((PAPERS_DIR / key.replace("-", "_")).glob("*.py")):
            if f.name != "__init__.py":
                bad += _section_imports(f)
    assert not bad, "\n".join(bad)
    probe = PAPERS_DIR / "isometry" / "_probe_for_test.py"      # the check on a known answer
    probe.write_text("from ._common import PAPER\nfrom .coverage import ITEMS\n\ndef f():\n"
                     "    from .theorem4 import x\n", encoding="utf-8")
    try:
        assert _section_imports(probe) == ["isometry/_probe_for_test.py:5 imports the section theorem4"]
    finally:
        probe.unlink()


def test_each_paper_is_a_package_with_its_own_data_and_short_modules():
    for key in BUILTIN:
        paper = papers()[key]
        pkg = PAPERS_DIR / key.replace("-", "_")
        assert (pkg / "__init__.py").is_file() and (pkg / "coverage.py").is_file(), key
        assert paper.expectations == str(pkg / "expected.toml") and (pkg / "expected.toml").is_file(), key
        assert paper.module == f"verify.papers.{key.replace('-', '_')}._common", key
        assert len(paper.coverage) > 20, key
        for f in pkg.glob("*.py"):
            assert len(f.read_text(encoding="utf-8").splitlines()) <= 500, f
    assert [p.name for p in PAPERS_DIR.glob("*.py")] == ["__init__.py"], "paper code outside a paper's package"
    # the core holds no paper's data
    import verify.coverage
    import verify.parallel
    assert not hasattr(verify.coverage, "COVERAGE") and not hasattr(verify.parallel, "AFFINITY_GROUPS")
    assert not (PAPERS_DIR.parent / "data" / "expected.toml").exists()


def test_every_built_in_claim_is_declared_with_keywords_through_its_paper():
    for f in sorted(PAPERS_DIR.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Claim":
                assert not node.args, f"{f}:{node.lineno}: Claim(...) with positional arguments"


def test_a_claims_id_is_written_once_in_its_declaration():
    """A check names its verdict ``ctx.claim_id``: no paper module spells a claim id (``f"{PAPER.key}:name"`` or a
    literal ``"paper:name"``) where a Verdict is made; the runner reports a verdict named for another claim as a
    crash (tests/test_power.py)."""
    import re
    keys = "|".join(re.escape(k) for k in ("bn-finite-width", "bn-mean-field", "covariance-sde", "isometry"))
    spelled = re.compile(r'(Verdict|judged|judged_with_integrity)\(\s*(f?"(\{PAPER\.key\}|' + keys + r'):)')
    assert spelled.search('return Verdict(f"{PAPER.key}:eq19", st') and spelled.search('judged("isometry:x", r')
    found = [f"{f.name}: {m.group(0)}" for f in sorted(PAPERS_DIR.rglob("*.py"))
             for m in spelled.finditer(f.read_text(encoding="utf-8"))]
    assert found == []


def test_quantities_are_namespaced_and_the_core_knows_no_paper():
    src = (PAPERS_DIR.parent / "quantities.py").read_text(encoding="utf-8")
    mods = {m for _, m in _imports_of_source(src)}
    assert not any(m.split(".")[0] in ("theory", "numerics") for m in mods), mods
    for c in all_claims():
        for q in c.depends_on:
            assert q.startswith(c.paper + ":"), (c.id, q)
            assert q in Q.QUANTITIES, (c.id, q)


def _imports_of_source(src: str):
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.lineno, node.module


def test_claims_are_listed_in_paper_order():
    names = [c.name for c in all_claims() if c.paper == "bn-mean-field"]
    assert names[:9] == [f"theorem{k}" for k in range(1, 10)]
    fw = [c.name for c in all_claims() if c.paper == "bn-finite-width"]
    assert fw.index("theorem1") < fw.index("corollary2") < fw.index("theorem3") < fw.index("corollary4") \
        < fw.index("lemma5")


def test_affinity_groups_come_from_the_papers():
    from verify.parallel import affinity_groups, task_groups
    groups = affinity_groups()
    assert ("isometry:figure7", "isometry:figure-b6", "isometry:figure-b7") in groups
    assert ("bn-finite-width:theorem1", "bn-finite-width:theorem3", "bn-finite-width:corollary6",
            "bn-finite-width:corollary7", "bn-finite-width:corollary8") in groups
    assert task_groups(["isometry:figure-b7", "isometry:table2", "isometry:figure7"]) == [
        ("isometry:figure7", "isometry:figure-b7"), ("isometry:table2",)]


def test_a_plugin_declares_affinity_and_quantity_aliases():
    paper = api.Paper(key="onepath2026", title="t", citation="A. Author (2026)", register=False,
                      affinity=[["a", "b"]])
    h = paper.quantity("Eig_L", "λ_L", "an eigenvalue (eq 1)", "exact", aliases=("lamL",))
    assert paper.affinity == (("a", "b"),) and h.name == "onepath2026:Eig_L"
    assert Q.resolve("onepath2026:lamL") == ("onepath2026:Eig_L",)

    @paper.claim("a", title="t", statement="s", depends_on=("lamL",))
    def check(ctx):
        return api.judged("onepath2026:a", [api.Evidence("x", passed=h.scaled(1.0) == 1.0)], "h", "f")
    assert paper.claims["a"].depends_on == ("onepath2026:Eig_L",)   # a bare name of its own quantity
    with Q.perturbed({"onepath2026:lamL": 0.05}):
        assert check(api.Context()).status == api.VIOLATED
    assert check(api.Context()).status == api.HOLDS


@pytest.mark.parametrize("name", ["Panel", "Series", "write_figure", "mean_band", "binomial_band", "density_band",
                                  "activation_label", "mean_ci", "fit_log_rate", "t_quantile",
                                  "ratio_of_means", "map_points", "sweep_point", "lazy_module", "sympy_latex",
                                  "activation_name", "member_row", "data_route_row", "judged_with_integrity"])
def test_the_api_exports_what_the_built_in_papers_use(name):
    assert name in api.__all__ and hasattr(api, name)
    assert api.API_VERSION == "1.4"


def test_parameter_kinds_are_a_documented_namespace_of_the_api():
    assert callable(api.kinds.batch_size) and callable(api.kinds.activation_name) and api.kinds.BATCH_MAX == 256
    assert "api.kinds" in api.__doc__ and "kinds" not in api.__all__    # a namespace, not a documented object


# ------------------------------------------------------------------ the seams a plugin author met

SEAMS = api.Paper(key="seams2026", title="Seams", citation="A. Author, Seams (2026)", register=False)
SCALE = SEAMS.quantity("s", "s", "a printed scale (eq 1)", "exact")
H_POSITIVE = api.HypothesisCheck("s > 0", "the scale is positive")


def _stops_at_its_hypothesis(ctx):
    raise api.HypothesisNotMet("s > 0", "the setting has s = 0")   # before the scale is consumed


SEAMS.add(api.Claim(paper="seams2026", name="stops", title="Eq (1)", statement="s > 0 ⇒ …",
                    check=_stops_at_its_hypothesis, depends_on=("s",), hypothesis_checks=(H_POSITIVE,)))


def test_contract_is_consistent_for_a_claim_that_stops_at_a_declared_hypothesis():
    from verify.contract import check_claim
    rows, verdict = check_claim(SEAMS.claims["stops"])
    assert verdict.status == api.HYPOTHESES_NOT_MET
    assert all(r.passed for r in rows), [(r.rule, r.detail) for r in rows if not r.passed]
    first = rows[0]
    assert first.rule == "declared quantities are the consumed ones" and "stopped before consuming" in first.detail


def test_an_undeclared_consumption_still_fails_the_contract_when_the_claim_stops():
    from verify.contract import check_claim
    other = SEAMS.quantity("t", "t", "another constant (eq 2)", "exact")

    def consumes_then_stops(ctx):
        other.scaled(1.0)
        raise api.HypothesisNotMet("s > 0", "s = 0")
    claim = api.Claim(paper="seams2026", name="sneaky", title="Eq (2)", statement="…", check=consumes_then_stops,
                      depends_on=("seams2026:s",), hypothesis_checks=(H_POSITIVE,))
    rows, _ = check_claim(claim)
    assert rows[0].passed is False


def test_an_expectation_kind_for_hypotheses_not_met(tmp_path):
    from verify import expectations as E
    from verify.core import Verdict
    f = tmp_path / "expected.toml"
    f.write_text('["isometry:theorem1"]\nstatus = "hypotheses-not-met"\nkind = "hypotheses not met"\n'
                 'reason = "the setting violates the theorem\'s assumption"\n', encoding="utf-8")
    exp = E.load(str(f))
    comps = E.compare([Verdict("isometry:theorem1", api.HYPOTHESES_NOT_MET, "s")], exp)
    assert comps[0].outcome == "match" and E.counts(comps)["hypotheses not met"] == 1
    assert "1 with a declared hypothesis not met, as expected" in E.render(comps)
    assert "no stated kind" not in E.render(comps)


def test_a_plugin_claim_draws_its_figure_through_the_api(tmp_path):
    """The documented figure path: api.figure writes the PNG/PDF/CSV into the run's artefact directory and returns
    the artefact keys the docs page embeds (``*_png``) and ``render`` redraws (``*_csv``)."""
    from verify.figures import read_figure_csv
    panel = api.Panel("E z² against n", "n", "E z²", [api.Series("mean of n draws", [1, 2, 4], [0.9, 1.1, 1.0],
                                                                 "simulation", "z"),
                                                      api.Series("eq (1)", [1, 2, 4], [1.0, 1.0, 1.0], "theory", "z")])
    arte = api.figure(api.Context(artefact_dir=str(tmp_path)), "seams_figure1", [panel], "3 sizes, seed 0",
                      key="figure1")
    assert set(arte) == {"figure1_png", "figure1_pdf", "figure1_csv", "figure1_caption"}
    assert (tmp_path / "seams_figure1.png").stat().st_size > 1000
    panels, caption = read_figure_csv(arte["figure1_csv"])
    assert [list(s.y) for s in panels[0].series] == [[0.9, 1.1, 1.0], [1.0, 1.0, 1.0]] and "3 sizes" in caption
    assert api.figure(api.Context(), "seams_figure1", [panel], "x") == {}


def test_a_bare_claim_name_names_the_default_it_chose(capsys):
    from verify.registry import DEFAULT_PAPER, default_note, resolve
    assert resolve("theorem1").id == f"{DEFAULT_PAPER}:theorem1"
    assert default_note("theorem1") == ("theorem1 → bn-finite-width:theorem1 (bn-mean-field and isometry also have a "
                                        "theorem1; name the paper to choose)")
    assert default_note("lemma5") == "" and default_note("isometry:theorem1") == ""
    from verify.cli import main
    assert main(["theorem1", "--param", "no_such=1"]) == 2         # resolved, then refused before anything runs
    err = capsys.readouterr().err
    assert "theorem1 → bn-finite-width:theorem1" in err and "no_such" in err


def test_every_package_is_in_the_wheel():
    """pyproject.toml lists the packages explicitly: every package of theory/, numerics/ and verify/ (each paper's,
    verify.commands) must be among them (else an installed wheel has no such paper or command)."""
    import tomllib
    listed = set(tomllib.loads((PAPERS_DIR.parent.parent / "pyproject.toml").read_text(encoding="utf-8"))
                 ["tool"]["setuptools"]["packages"])
    root = PAPERS_DIR.parent.parent
    found = {".".join(p.parent.relative_to(root).parts)
             for top in ("theory", "numerics", "verify") for p in (root / top).rglob("__init__.py")
             if "__pycache__" not in p.parts}
    assert found <= listed, found - listed


@pytest.mark.parametrize("text,tex", [
    ("the gap 1 − c^l against depth", "The gap $1 - c^{l}$ against depth."),
    ("ρ_l → 1 as the depth grows", r"$\rho _{l} \to 1$ as the depth grows."),
    ("rates 0.5 ± 0.01 per layer", r"Rates $0.5 \pm 0.01$ per layer."),
    ("q* ≈ 0.5 for ReLU", r"$q^{*} \approx 0.5$ for ReLU\@."),
    ("the top 5% of 3 × 3 matrices", r"The top 5\% of $3 \times 3$ matrices."),
])
def test_a_caption_keeps_each_formula_in_one_math_run(text, tex):
    """A number beside an operator belongs to the formula (1 − c^l, → 1), and a caption that starts with a symbol
    keeps its case (q*, not Q*)."""
    from verify.latex import _caption, to_latex
    assert to_latex(_caption(text)) == tex
