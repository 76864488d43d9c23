"""Every public function and class has a numpydoc docstring: a one-line summary, Parameters that match its signature,
Returns, and Examples (which tests/test_doctests.py runs). The public names are those of the ``__all__`` lists of
``theory``, ``numerics``, ``verify`` and ``verify.api``; the public functions of ``verify.registry``,
``verify.contract`` and ``verify.selftest`` need Examples too. The API reference (docs/api) is generated from these
docstrings with numpydoc."""
from __future__ import annotations

import dataclasses
import importlib
import inspect

import pytest

# numpydoc comes with the docs extra (pip install -e ".[docs]"), which CI installs
pytest.importorskip("numpydoc", reason="the docs extra (numpydoc) is not installed")
from numpydoc.docscrape import NumpyDocString  # noqa: E402
from numpydoc.validate import validate  # noqa: E402

PACKAGES = ["theory", "numerics", "verify", "verify.api"]
# modules whose public functions (and classes) need Examples; a module without __all__ lists its own public
# functions and classes
EXAMPLE_MODULES = ["verify.registry", "verify.contract", "verify.selftest"]

# name → why it is exempt from every check below (none: every public name is covered)
EXEMPT: dict[str, str] = {}
# name → why a parameter or the return value may still have a type without a description (the other checks apply)
_REWRITE = "theory/dual.py and theory/gaussian.py are being rewritten; their docstrings follow the rewrite"
UNDESCRIBED: dict[str, str] = {
    "theory.dual_closed_form": _REWRITE,
    "theory.exact_mean_reduced_dual": _REWRITE,
    "theory.variance": _REWRITE,
    "theory.bivariate_expectation": _REWRITE,
}


def _public(module_name: str) -> list[tuple[str, object]]:
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, v in vars(module).items() if not n.startswith("_") and (inspect.isfunction(v) or
                 inspect.isclass(v)) and getattr(v, "__module__", None) == module_name]
    out = []
    for n in names:
        obj = getattr(module, n)
        if inspect.isfunction(obj) or inspect.isclass(obj):  # constants (HOLDS, VARIANTS, API_VERSION, …) are exempt
            out.append((f"{module_name}.{n}", obj))
    return out


PUBLIC = [pair for m in PACKAGES for pair in _public(m)]
WITH_EXAMPLES = [pair for m in EXAMPLE_MODULES for pair in _public(m)]


def _doc(obj) -> NumpyDocString:
    text = inspect.getdoc(obj) if obj.__doc__ else ""
    assert text, "no docstring"
    return NumpyDocString(text)


def _qualified(obj) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"


def _is_exception(obj) -> bool:
    return inspect.isclass(obj) and issubclass(obj, BaseException)


def test_the_public_surface_is_found():
    assert len(PUBLIC) > 100 and len(WITH_EXAMPLES) > 15
    assert not (set(EXEMPT) | set(UNDESCRIBED)) - {n for n, _ in PUBLIC + WITH_EXAMPLES}, \
        "an exemption names no public name"


def _check_examples(doc: NumpyDocString):
    examples = "\n".join(doc["Examples"])
    assert ">>>" in examples, "no Examples section with code"


@pytest.mark.parametrize("name,obj", WITH_EXAMPLES, ids=[n for n, _ in WITH_EXAMPLES])
def test_public_functions_have_examples(name, obj):
    if name in EXEMPT:
        pytest.skip(EXEMPT[name])
    doc = _doc(obj)
    assert " ".join(doc["Summary"]).strip(), "no one-line summary"
    _check_examples(doc)


@pytest.mark.parametrize("name,obj", PUBLIC, ids=[n for n, _ in PUBLIC])
def test_numpydoc_sections(name, obj):
    if name in EXEMPT:
        pytest.skip(EXEMPT[name])
    doc = _doc(obj)
    assert " ".join(doc["Summary"]).strip(), "no one-line summary"
    _check_examples(doc)
    if _is_exception(obj):
        # an exception: a paragraph saying when it is raised, and an Example raising and catching one
        assert " ".join(doc["Summary"] + doc["Extended Summary"]).strip()
        assert "raise" in "\n".join(doc["Examples"]) or "Traceback" in "\n".join(doc["Examples"]) or \
            "except" in "\n".join(doc["Examples"]), "the Example does not show the exception raised"
        return
    if dataclasses.is_dataclass(obj):
        # a result record or declaration: its fields are documented under Attributes (or Parameters)
        fields = [f.name for f in dataclasses.fields(obj) if f.init and not f.name.startswith("_")]
        documented = [n.strip() for p in doc["Attributes"] + doc["Parameters"] for n in p.name.split(",")]
        missing = [f for f in fields if f not in documented]
        assert not missing, f"fields not documented under Attributes: {missing}"
        unknown = [n for n in documented if n not in {f.name for f in dataclasses.fields(obj)} and not hasattr(obj, n)]
        assert not unknown, f"documented attributes that do not exist: {unknown}"
        empty = [p.name for p in doc["Attributes"] + doc["Parameters"] if not " ".join(p.desc).strip()]
        assert not empty, f"without a description: {empty}"
        return
    errors = {code: msg for code, msg in validate(_qualified(obj))["errors"]}
    for code in ("PR01", "PR02", "RT01", "EX01", "GL08"):
        assert code not in errors, f"{code}: {errors[code]}"
    empty = [p.name or p.type for p in doc["Parameters"] + doc["Returns"] + doc["Yields"] if not " ".join(p.desc).strip()]
    if name in UNDESCRIBED:
        return
    assert not empty, f"parameters or returns without a description: {empty}"
