"""A pytest plugin that turns claims into test items (entry point ``deepinit_verify`` in the ``pytest11`` group).

    pytest --verify-claims=all --verify-budget=quick --junitxml=report.xml

gives one JUnit test case per claim. A claim passes when its verdict is the expected one, by the same comparison as
``python -m verify all --expect`` (:func:`verify.expectations.compare`: the status expected at the run's budget).
Expectation files are layered as on the command line: the shipped files (the built-in papers' and each plugin's),
then each ``--verify-expect FILE`` in order; ``--verify-expect-replace`` uses only the files given. An expected
violation is a strict xfail whose reason names its kind (a known erratum, or an experiment not reproduced in a
substitute setting), so the build goes red both when a bound that held is now violated and when a known violation no
longer reproduces. The plugin does nothing unless ``--verify-claims`` is given.
"""
from __future__ import annotations

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("deepinit-verify", "check the claims of the deep-network-at-initialisation papers")
    group.addoption("--verify-claims", default=None, metavar="SPEC",
                    help="comma-separated claim ids, paper names, or 'all' (each claim becomes a test item)")
    group.addoption("--verify-budget", default="quick", choices=("quick", "standard", "full"))
    group.addoption("--verify-seed", default=0, type=int)
    group.addoption("--verify-expect", action="append", default=None, metavar="FILE",
                    help="expected verdicts (TOML), layered over the files shipped with the papers (the built-in one "
                         "and each plugin's); repeat to compose, later files win per claim")
    group.addoption("--verify-expect-replace", action="store_true",
                    help="use only the --verify-expect files, not layered over the shipped ones")
    group.addoption("--verify-no-control", action="store_true", help="skip the negative and positive controls")
    group.addoption("--verify-no-cache", action="store_true",
                    help="compute every verdict (default: reuse the on-disk verdict cache the command line shares, "
                         "keyed by the code, the claim and its settings)")
    group.addoption("--verify-only", action="store_true",
                    help="run the claims alone: deselect the repository's own collected tests")


def _select(spec: str):
    from .registry import all_claims, paper_keys, resolve
    out = {}
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        if part == "all":
            out.update((c.id, c) for c in all_claims() if c.checked)
        elif part in paper_keys():
            out.update((c.id, c) for c in all_claims() if c.checked and c.paper == part)
        else:
            c = resolve(part)
            out[c.id] = c
    return list(out.values())


class ClaimFailure(Exception):
    """The verdict differs from the expectation (the message says how)."""


class ClaimItem(pytest.Item):
    def __init__(self, *, claim, expectation, budget, **kw):
        super().__init__(**kw)
        from .expectations import KIND_LABELS
        self.claim, self.expectation, self.budget = claim, expectation, budget
        self.expected = expectation.status_for(budget)
        if self.expected == "violated":
            label = KIND_LABELS.get(expectation.kind, KIND_LABELS[""])
            self.add_marker(pytest.mark.xfail(strict=True, raises=ClaimFailure,
                                              reason=f"{label}: {expectation.reason[:200]}"))

    def runtest(self):
        from .core import Context
        from .expectations import compare
        from .runner import run_claim
        opt = self.config.getoption
        from . import cache
        ctx = Context(budget=self.budget, seed=opt("verify_seed"))
        settings = cache.run_settings(self.budget, ctx.seed, controls=not opt("verify_no_control"))
        use_cache = not (opt("verify_no_cache") or cache.disabled())
        v = cache.load(self.claim.id, settings) if use_cache else None
        if v is None:
            v = run_claim(self.claim, ctx, with_control=not opt("verify_no_control"))
            v.settings = {**settings, "computed": cache.computed_stamp()}
            if use_cache:
                cache.store(v, settings)
        (c,) = compare([v], {self.claim.id: self.expectation})
        for key, value in (("status", v.status), ("expected", c.expected), ("kind", c.kind),
                           ("seconds", round(v.seconds, 2)), ("summary", v.summary[:500])):
            self.user_properties.append((key, value))
        if v.status == "error":
            raise RuntimeError(f"the check crashed: {v.summary}")
        if c.expected == "violated":
            if c.outcome == "match":  # the expected violation reproduces: the strict xfail
                raise ClaimFailure(f"{self.claim.id}: violated as expected ({c.kind or 'no stated kind'}) — "
                                   f"{v.summary}")
            return  # an expected violation that no longer reproduces: XPASS(strict) fails the build
        if c.outcome != "match":
            raise ClaimFailure(f"{self.claim.id}: {c.outcome.upper()}: expected {c.expected}, got {v.status} — "
                               f"{v.summary}")

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, (ClaimFailure, RuntimeError)):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"claim {self.claim.id}"


class BrokenPluginItem(pytest.Item):
    """A plugin paper that could not be loaded: a failing item naming it and the cause (its claims cannot run, and a
    build that asked for them must not pass by having run nothing of it)."""

    def __init__(self, *, paper, cause, **kw):
        super().__init__(**kw)
        self.paper, self.cause = paper, cause

    def runtest(self):
        raise ClaimFailure(f"plugin paper {self.paper!r} could not be loaded, its claims were not run: {self.cause}")

    def repr_failure(self, excinfo):
        return str(excinfo.value)

    def reportinfo(self):
        return self.path, None, f"plugin {self.paper}"


def _broken_plugins(spec: str) -> dict:
    """The plugin papers that failed to load and that ``spec`` asks for ('all' asks for every one)."""
    from .registry import failures
    parts = {p.strip() for p in spec.split(",") if p.strip()}
    return {k: why for k, why in failures().items() if "all" in parts or k in parts}


class PaperCollector(pytest.Collector):
    """The claims of one paper (JUnit classname ``deepinit-verify.<paper>``)."""

    def __init__(self, *, claims, expected, budget, **kw):
        super().__init__(**kw)
        self.claims, self.expected, self.budget = claims, expected, budget

    def collect(self):
        from .core import HOLDS
        from .expectations import Expectation
        for c in self.claims:
            yield ClaimItem.from_parent(self, name=c.name, claim=c, budget=self.budget,
                                        expectation=self.expected.get(c.id) or Expectation(c.id, HOLDS))


def pytest_collection_modifyitems(session, config, items):
    if not config.getoption("verify_claims"):
        return
    from . import expectations
    from .expectations import ExpectationError
    from .registry import UsageError
    try:
        files = config.getoption("verify_expect") or []
        if config.getoption("verify_expect_replace") and not files:
            raise ExpectationError("--verify-expect-replace needs --verify-expect FILE (the files that replace the "
                                   "shipped ones)")
        expected = expectations.load_many(files or ["shipped"], replace=config.getoption("verify_expect_replace"))
        from theory import validate
        from theory.errors import DeepinitError
        try:
            validate.seed(config.getoption("verify_seed"))
        except DeepinitError as exc:
            raise UsageError(f"--verify-seed: {exc}") from None
        claims = _select(config.getoption("verify_claims"))
        # as on the command line: an unchecked claim (named alone) has no shipped expectation, and comparing its
        # inconclusive verdict with "holds" would report a regression that never happened
        for c in claims:
            if not c.checked and c.id not in expected:
                raise UsageError(f"--verify-claims: {c.id} is not checked by this package ({c.pending_kind}), so no "
                                 f"expectation applies to it; leave it out, or list it with status = \"inconclusive\" "
                                 f"in a --verify-expect file")
        if config.getoption("verify_only") and items:
            config.hook.pytest_deselected(items=list(items))
            items.clear()
        for paper in dict.fromkeys(c.paper for c in claims):
            col = PaperCollector.from_parent(session, name=paper, nodeid=f"deepinit-verify::{paper}",
                                             claims=[c for c in claims if c.paper == paper], expected=expected,
                                             budget=config.getoption("verify_budget"))
            items.extend(col.collect())
        for paper, cause in _broken_plugins(config.getoption("verify_claims")).items():
            items.append(BrokenPluginItem.from_parent(session, name=f"{paper} (plugin failed to load)",
                                                      nodeid=f"deepinit-verify::{paper}::load", paper=paper,
                                                      cause=cause))
    except (UsageError, ExpectationError) as exc:
        raise pytest.UsageError(str(exc)) from None
