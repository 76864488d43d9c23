"""A pytest plugin that turns claims into test items (entry point ``deepinit_verify`` in the ``pytest11`` group).

    pytest --verify-claims=all --verify-budget=quick --junitxml=report.xml

gives one JUnit test case per claim. A claim passes when its verdict is the expected one
(:mod:`verify.expectations`; ``--verify-expect FILE``, default the shipped file of the four papers); a known erratum
(expected ``violated``) is a strict xfail, so the build goes red both when a bound that held is now violated and when
a known violation no longer reproduces. The plugin does nothing unless ``--verify-claims`` is given.
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
                    help="expected verdicts (TOML; repeat to compose, later files win per claim); default 'shipped': "
                         "the files shipped with the papers, the built-in one and each plugin's")
    group.addoption("--verify-no-control", action="store_true", help="skip the negative and positive controls")
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
    def __init__(self, *, claim, expectation, **kw):
        super().__init__(**kw)
        self.claim, self.expectation = claim, expectation
        if expectation.status == "violated":
            self.add_marker(pytest.mark.xfail(strict=True, raises=ClaimFailure,
                                              reason=f"known erratum: {expectation.reason[:200]}"))

    def runtest(self):
        from .core import Context
        from .runner import run_claim
        opt = self.config.getoption
        ctx = Context(budget=opt("verify_budget"), seed=opt("verify_seed"))
        v = run_claim(self.claim, ctx, with_control=not opt("verify_no_control"))
        for key, value in (("status", v.status), ("expected", self.expectation.status), ("seconds", round(v.seconds, 2)),
                           ("summary", v.summary[:500])):
            self.user_properties.append((key, value))
        if v.status == "error":
            raise RuntimeError(f"the check crashed: {v.summary}")
        if self.expectation.status == "violated":
            if v.status == "violated":  # the known erratum reproduces: the strict xfail
                raise ClaimFailure(f"{self.claim.id}: violated as expected — {v.summary}")
            return  # an expected violation that no longer reproduces: XPASS(strict) fails the build
        if v.status != self.expectation.status:
            raise ClaimFailure(f"{self.claim.id}: expected {self.expectation.status}, got {v.status} — {v.summary}")

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, (ClaimFailure, RuntimeError)):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"claim {self.claim.id}"


class PaperCollector(pytest.Collector):
    """The claims of one paper (JUnit classname ``deepinit-verify.<paper>``)."""

    def __init__(self, *, claims, expected, **kw):
        super().__init__(**kw)
        self.claims, self.expected = claims, expected

    def collect(self):
        from .core import HOLDS
        from .expectations import Expectation
        for c in self.claims:
            yield ClaimItem.from_parent(self, name=c.name, claim=c,
                                        expectation=self.expected.get(c.id) or Expectation(c.id, HOLDS))


def pytest_collection_modifyitems(session, config, items):
    if not config.getoption("verify_claims"):
        return
    from . import expectations
    from .expectations import ExpectationError
    from .registry import UsageError
    try:
        expected = expectations.load_many(config.getoption("verify_expect") or ["shipped"])
        claims = _select(config.getoption("verify_claims"))
        if config.getoption("verify_only") and items:
            config.hook.pytest_deselected(items=list(items))
            items.clear()
        for paper in dict.fromkeys(c.paper for c in claims):
            col = PaperCollector.from_parent(session, name=paper, nodeid=f"deepinit-verify::{paper}",
                                             claims=[c for c in claims if c.paper == paper], expected=expected)
            items.extend(col.collect())
    except (UsageError, ExpectationError) as exc:
        raise pytest.UsageError(str(exc)) from None
