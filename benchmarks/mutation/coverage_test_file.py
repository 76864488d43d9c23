"""A coverage.py plugin: the dynamic context of every executed line is the test *file* running at the time.

pytest sets ``PYTEST_CURRENT_TEST`` ("tests/test_x.py::test_y (call)") in the environment of the process that runs a
test, for its setup, call and teardown, and every subprocess the test starts inherits it. Reading it at each new frame
attributes to the test file what its tests, its fixtures and the ``verify`` processes its tests spawn execute — which
coverage.py's own ``dynamic_context = test_function`` cannot do for fixtures and subprocesses. Lines executed while no
test runs (imports at collection) get the empty context. Used by ``sample.py``'s per-test coverage:

    [run]
    plugins = coverage_test_file
    parallel = True
    patch = subprocess
"""
from __future__ import annotations

import os

import coverage


class TestFileContext(coverage.CoveragePlugin):
    """The test file of ``PYTEST_CURRENT_TEST``, or ``None`` while no test runs. coverage.py asks at each new frame
    while no context is open; a context opened at a frame closes when that frame returns (for pytest: after each
    setup, call and teardown phase), so every phase is attributed to its own test's file."""

    def dynamic_context(self, frame):
        return os.environ.get("PYTEST_CURRENT_TEST", "").split("::", 1)[0] or None


def coverage_init(reg, options):
    reg.add_dynamic_context(TestFileContext())
