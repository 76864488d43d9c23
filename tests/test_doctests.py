"""The Examples of the public docstrings run (numpydoc sections of theory/ and the claim API): a documented call that
no longer gives its printed answer fails here."""
from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["theory.activations", "theory.batchnorm", "theory.bn_meanfield", "theory.covariance_sde", "theory.dual",
           "theory.fixed_points", "theory.formula", "theory.gaussian", "theory.hermite", "theory.isometry",
           "theory.meanfield_mlp", "theory.results", "verify.api", "verify.core"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"
