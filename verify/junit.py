"""JUnit XML of a report: one test case per claim, judged by the expectations (``python -m verify render REPORT.json
--junit claims.xml``), so that one ``verify all --json`` run gives a CI system both the JSON report and its test
report without computing a claim twice.

The cases read as the pytest plugin's (``--verify-claims``): classname ``deepinit-verify.<paper>``, name the claim,
properties ``status``, ``expected``, ``kind``, ``seconds`` and ``summary``. A verdict that matches an expected
violation is *skipped* with the type ``pytest.xfail`` and a message that names its kind (a known erratum, or an
experiment not reproduced in a substitute setting); any other mismatch is a *failure* naming the outcome (regression,
no longer reproduces, changed); a crashed check is an *error*.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET

from .core import ERROR, VIOLATED, Verdict
from .expectations import KIND_LABELS, Comparison


def render_junit(verdicts: list[Verdict], comparisons: list[Comparison]) -> str:
    """The JUnit XML document of ``verdicts`` judged by ``comparisons`` (one per verdict, :func:`~verify.expectations.
    compare`).

    Examples
    --------
    >>> from verify.expectations import compare
    >>> v = Verdict("isometry:theorem1", "holds", "isometry holds")
    >>> xml = render_junit([v], compare([v], {}))
    >>> 'classname="deepinit-verify.isometry" name="theorem1"' in xml, "<failure" in xml
    (True, False)
    """
    by_claim = {c.claim: c for c in comparisons}
    suite = ET.Element("testsuite", name="deepinit-verify")
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    total = 0.0
    for v in verdicts:
        c = by_claim[v.claim_id]
        paper, _, name = v.claim_id.partition(":")
        seconds = round(v.seconds, 3)           # as a JSON report keeps them: render --junit gives the same document
        case = ET.SubElement(suite, "testcase", classname=f"deepinit-verify.{paper}", name=name,
                             time=f"{seconds:.3f}")
        props = ET.SubElement(case, "properties")
        for key, value in (("status", v.status), ("expected", c.expected), ("kind", c.kind),
                           ("seconds", f"{seconds:.2f}"), ("summary", v.summary[:500])):
            ET.SubElement(props, "property", name=key, value=str(value))
        counts["tests"] += 1
        total += seconds
        if v.status == ERROR:
            ET.SubElement(case, "error", message="the check crashed").text = v.summary
            counts["errors"] += 1
        elif c.outcome != "match":
            ET.SubElement(case, "failure", message=f"{c.outcome.upper()}: expected {c.expected}, got {v.status}"
                          ).text = v.summary
            counts["failures"] += 1
        elif c.expected == VIOLATED:
            label = KIND_LABELS.get(c.kind, KIND_LABELS[""])
            ET.SubElement(case, "skipped", type="pytest.xfail", message=f"{label}: {c.reason[:200]}")
            counts["skipped"] += 1
    for key, value in counts.items():
        suite.set(key, str(value))
    suite.set("time", f"{total:.3f}")
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
