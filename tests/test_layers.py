"""``verify/`` in one-way layers: model → engine → outputs → app, with ``verify.api`` on top (the one module plugins and
the built-in papers import). The import graph of ``verify/*.py`` — every ``import`` and ``from … import``, those inside
functions included — is built from the sources; no module imports one of a higher layer, and the graph has no cycle.
The checker is tested on a graph with an upward edge and a cycle."""
from __future__ import annotations

import ast
import os

import pytest

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "verify")

#: every module of verify/ and its layer (docs/architecture.md shows the same map)
LAYERS = {
    "model": ("core", "quantities", "paper", "registry", "coverage", "params", "interrupts", "files", "environment",
              "lazy", "__init__"),
    "engine": ("runner", "calibration", "selftest", "selftest_inputs", "selftest_engines", "selftest_reach",
               "selftest_contracts", "stats", "store", "parallel", "cache", "expectations", "integrity"),
    "outputs": ("report", "latex", "figures", "docs", "provenance", "junit"),
    "app": ("cli", "commands", "_start", "__main__", "pytest_plugin", "contract", "profile", "design"),
    "api": ("api",),
}
ORDER = ("model", "engine", "outputs", "app", "api")


#: subpackages of verify/ that are one node of the graph each (``verify.papers`` is a plugin: not a node)
PACKAGES = ("commands",)


def import_graph(root: str = ROOT) -> dict[str, set[str]]:
    """{module: the verify modules it imports}, for every ``verify/*.py`` and each package of :data:`PACKAGES` (all
    its files one node; its imports within itself are not edges)."""
    files = {f[:-3]: [os.path.join(root, f)] for f in os.listdir(root) if f.endswith(".py")}
    for pkg in PACKAGES:
        files[pkg] = [os.path.join(root, pkg, f) for f in sorted(os.listdir(os.path.join(root, pkg)))
                      if f.endswith(".py")]
    mods = set(files)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m in mods:
        tree = ast.Module(body=[], type_ignores=[])
        for path in files[m]:
            with open(path, encoding="utf-8") as f:
                tree.body += ast.parse(f.read()).body
        level = 2 if m in PACKAGES else 1     # a package's files reach verify/ with "..", the modules with "."
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.ImportFrom):
                if node.level == level:
                    targets = [node.module.split(".")[0]] if node.module else [a.name for a in node.names]
                elif node.level == 0 and node.module and (node.module == "verify" or node.module.startswith("verify.")):
                    parts = node.module.split(".")
                    targets = [parts[1]] if len(parts) > 1 else [a.name for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name.split(".")[1] for a in node.names if a.name.startswith("verify.")]
            graph[m] |= {t for t in targets if t in mods and t != m}
    return graph


def layer_problems(graph: dict[str, set[str]], layers: dict[str, tuple[str, ...]] = LAYERS) -> list[str]:
    """Modules without a layer, imports of a higher layer, and cycles."""
    where = {m: layer for layer, ms in layers.items() for m in ms}
    problems = [f"{m}: no layer" for m in sorted(graph) if m not in where]
    for m, targets in sorted(graph.items()):
        for t in sorted(targets):
            if m in where and t in where and ORDER.index(where[t]) > ORDER.index(where[m]):
                problems.append(f"{m} ({where[m]}) imports {t} ({where[t]})")
    # cycles: a depth-first search that meets a module on its own path
    state: dict[str, int] = {}

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for t in sorted(graph.get(m, ())):
            if state.get(t) == 1:
                problems.append("cycle: " + " → ".join(path[path.index(t):] + [m, t]) if t in path else
                                f"cycle: {m} → {t}")
            elif t not in state:
                visit(t, path + [m])
        state[m] = 2
    for m in sorted(graph):
        if m not in state:
            visit(m, [])
    return problems


def test_verify_is_in_one_way_layers_without_a_cycle():
    graph = import_graph()
    assert layer_problems(graph) == []
    # and the map names every module once
    named = [m for ms in LAYERS.values() for m in ms]
    assert len(named) == len(set(named)) and set(graph) <= set(named)


def test_the_built_in_papers_and_the_model_never_import_the_api_or_the_app():
    graph = import_graph()
    below_api = [m for layer in ("model", "engine", "outputs") for m in LAYERS[layer]]
    assert not [m for m in below_api if m in graph and graph[m] & {"api", "cli", "_start"}]


@pytest.mark.parametrize("graph, expected", [
    ({"core": {"runner"}, "runner": set()}, "core (model) imports runner (engine)"),
    ({"core": {"registry"}, "registry": {"core"}}, "cycle"),
    ({"core": set(), "mystery": set()}, "mystery: no layer"),
])
def test_the_checker_finds_an_upward_import_a_cycle_and_a_module_without_a_layer(graph, expected):
    assert any(expected in p for p in layer_problems(graph)), layer_problems(graph)
    assert layer_problems({"core": set(), "runner": {"core"}, "cli": {"runner", "core"}}) == []


def test_the_architecture_page_names_every_module_in_its_layer():
    with open(os.path.join(os.path.dirname(ROOT), "docs", "architecture.md"), encoding="utf-8") as f:
        page = f.read()
    sections = {layer: page.split(f"-- {layer}:")[1].split("\n  --")[0] for layer in ("model", "engine", "outputs",
                                                                                      "app")}
    for layer, text in sections.items():
        missing = [m for m in LAYERS[layer] if m != "__init__" and f"{m}{'/' if m in PACKAGES else '.py'}" not in text]
        assert missing == [], (layer, missing)
