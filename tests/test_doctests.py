"""The Examples of the public docstrings run: a documented call that no longer gives its printed answer fails here.

Every module of ``theory``, ``numerics`` and ``verify`` (and of ``verify.papers`` when one has Examples) whose
docstrings hold an Example is found and its doctests run; nothing is listed by hand."""
from __future__ import annotations

import doctest
import importlib.util
import os

import pytest

PACKAGES = ["theory", "numerics", "verify"]
# modules run as scripts or at start-up, not imported for their docstrings
SKIP = {"verify.__main__", "verify._start"}


def _sources() -> list[tuple[str, str]]:
    """(module name, source file) of every module of the packages, found on disk: nothing is imported (importing
    ``verify.papers.*`` would register papers in an order other tests do not expect)."""
    out = []
    for package in PACKAGES:
        root = os.path.dirname(importlib.util.find_spec(package).origin)
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if os.path.isfile(os.path.join(folder, d, "__init__.py")))
            parts = [package] + os.path.relpath(folder, root).split(os.sep)
            prefix = ".".join(p for p in parts if p != ".")
            for f in sorted(files):
                if f.endswith(".py"):
                    name = prefix if f == "__init__.py" else f"{prefix}.{f[:-3]}"
                    if name not in SKIP:
                        out.append((name, os.path.join(folder, f)))
    return sorted(out)


def _with_examples(path: str) -> bool:
    """Whether the module's source holds a doctest prompt."""
    with open(path, encoding="utf-8") as fh:
        return ">>> " in fh.read()


MODULES = [name for name, path in _sources() if _with_examples(path)]


def test_modules_are_discovered():
    assert {"theory.hermite", "verify.api", "numerics.bn_kernels"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    tests = finder.find(module, name)
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"
