"""The standard-budget verdicts of CI's own step, held to what the per-claim tests assert of every verdict.

``.ci/run`` runs ``python -m verify all --budget standard --expect shipped --jobs 2 --json ci-artefacts/standard.json``
(exit 1 on any regression: a bound violated, a control without power — the runner folds both into the verdict) and
then this module with ``DEEPINIT_STANDARD_REPORT`` naming that report. For every claim of the registry the report
must hold a standard-budget verdict that meets :func:`conftest.assert_controls`: the quantities the check consumed
are exactly those the claim declares, a claim that holds has a flagged negative control, one reported violated a
positive control that holds, and its LaTeX is chktex-clean and compiles. Without the variable the report tests are
skipped; the checker's own tests (a sound and a broken verdict) always run.
"""
from __future__ import annotations

import json
import os

import pytest

from conftest import assert_controls

REPORT = os.environ.get("DEEPINIT_STANDARD_REPORT", "")


def _report() -> dict:
    with open(REPORT, encoding="utf-8") as f:
        return json.load(f)


def _claim_ids() -> list[str]:
    if not REPORT:
        return []
    return [v["claim"] for v in _report()["verdicts"]]


needs_report = pytest.mark.skipif(not REPORT, reason="DEEPINIT_STANDARD_REPORT is not set (.ci/run sets it)")


@needs_report
def test_the_report_covers_every_checked_claim_at_the_standard_budget():
    from verify.registry import all_claims
    doc = _report()
    ids = [v["claim"] for v in doc["verdicts"]]
    assert sorted(ids) == sorted(c.id for c in all_claims() if c.checked)
    assert {v["settings"]["budget"] for v in doc["verdicts"]} == {"standard"}
    assert doc["provenance"]["budget"] == "standard"


@needs_report
@pytest.mark.parametrize("claim_id", _claim_ids())
def test_each_standard_verdict_has_its_declared_quantities_controls_and_clean_latex(claim_id):
    from verify.core import Verdict
    v = Verdict.from_dict(next(d for d in _report()["verdicts"] if d["claim"] == claim_id))
    assert_controls(v)


@needs_report
def test_every_standard_table_fits_a_papers_text_width_in_one_notation(tmp_path):
    """Every table of the standard-budget report (the largest the claims make: every batch size, every activation),
    rendered as ``render REPORT --latex`` writes it and compiled in a 5.5 in document: nothing overfull, no float
    too large, no label twice, one notation per column, no residue printed as a number (tests/latex_checks.py)."""
    from latex_checks import TEX, compile_in_paper, log_problems, table_problems
    from verify.cli import main
    assert main(["render", REPORT, "--latex", str(tmp_path / "standard.tex")]) == 0
    tex = (tmp_path / "standard.tex").read_text()
    assert table_problems(tex) == []
    if TEX:
        rc, log = compile_in_paper({"standard": tex}, tmp_path)
        assert log_problems(rc, log) == []


def _sound_verdict():
    """A verdict of a claim that declares quantities, shaped as a holding standard-budget verdict with its control."""
    from verify import quantities as Q
    from verify.core import HOLDS, VIOLATED, Verdict
    from verify.registry import resolve
    claim = resolve("isometry:definition3")
    assert claim.depends_on
    control = Verdict(claim.id, VIOLATED, "every declared quantity perturbed by ±δ is flagged")
    v = Verdict(claim.id, HOLDS, "holds", negative_control=control)
    v.consumed = sorted(Q.canonical(q) for q in claim.depends_on)
    v.settings = {"budget": "standard", "seed": 0}
    return v


def test_the_checker_passes_a_sound_verdict_and_fails_a_broken_one():
    """The report checker says "broken" when it should: a verdict that consumed none of its declared quantities, or
    whose negative control was not flagged, fails it; the same verdict made whole passes."""
    from verify.core import HOLDS
    v = _sound_verdict()
    assert_controls(v)
    idle = _sound_verdict()
    idle.consumed = []
    with pytest.raises(AssertionError):
        assert_controls(idle)
    powerless = _sound_verdict()
    powerless.negative_control.status = HOLDS
    with pytest.raises(AssertionError):
        assert_controls(powerless)
