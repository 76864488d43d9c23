"""The columns of an evidence row mean one thing on every row (the rule of verify.core.Evidence): the validator rejects
each structural violation with its message, every ``Evidence(`` call in the code keeps the rule in its keywords, and
the rows of a few claims run at the quick budget carry their values in the right columns."""
from __future__ import annotations

import ast
import json
import math
import os

import numpy as np
import pytest

from verify.core import CONTROL_OUTCOMES, Context, Evidence, EvidenceError, Verdict
from verify.registry import resolve
from verify.report import _row_cells
from verify.runner import run_claim

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --------------------------------------------------------------------------------------------
# the validator: each bad pattern, with its message
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fields,message", [
    (dict(observed=0.53, statistic="|z|"), "statistic '|z|' needs its critical value in bound and its value in observed"),
    (dict(bound=3.29, statistic="|z|"), "statistic '|z|' needs its critical value in bound and its value in observed"),
    (dict(bound="4 SE", observed=0.1, statistic="|z|"), "statistic '|z|' needs"),
    (dict(theory=0.5, observed=0.4999), "observed 0.4999 has no bound (a measured value without a bound goes in numeric)"),
    (dict(theory=0, observed=3), "observed 3 has no bound"),
    (dict(theory=-0.5, numeric=-0.48, bound=-0.35), "bound -0.35 has no observed (the quantity it bounds)"),
    (dict(bound="|Δc*| ≤ 1e-8", observed=0.2), "bound '|Δc*| ≤ 1e-8' is not a number"),
    (dict(observed="2e-09, 3e-04"), "observed '2e-09, 3e-04' is neither a number nor a control row's outcome"),
    (dict(observed=(0.1, 2.0)), "is neither a number nor a control row's outcome"),
    (dict(observed="violated", bound=1.0), "observed 'violated' is a control row's outcome and cannot have a bound"),
    (dict(numeric=2.0, slack=3.0), "slack 3.0 needs a numeric bound and observed"),
    (dict(bound=1.0, observed="violated", slack=3.0), "observed 'violated' is a control row's outcome"),
    (dict(numeric=1.0, ci=(0.5,)), "ci (0.5,) is not a pair of numbers"),
    (dict(numeric=1.0, ci=(2.0, 0.5)), "ci (2.0, 0.5) has its low end above its high end"),
    (dict(observed=0.3, bound=0.5, ci=(0.2, 0.4)), "ci (0.2, 0.4) has no numeric (the interval is on the measured value)"),
    (dict(observed=True, bound=1), "observed True is neither a number"),
])
def test_the_validator_rejects_each_structural_violation_with_its_message(fields, message):
    with pytest.raises(EvidenceError) as exc:
        Evidence("the row", **fields)
    assert str(exc.value).startswith("evidence row 'the row': ") and message in str(exc.value)
    assert isinstance(exc.value, ValueError)


def test_the_validator_accepts_the_rows_the_rule_allows():
    ok = [Evidence("z-test", theory=0.5, numeric=0.4999, observed=0.53, bound=3.29, statistic="|z|", confidence=0.999,
                   passed=True),
          Evidence("bounded", numeric=0.01, bound=0.05, observed=0.01, slack=5.0, ci=(0.0, 0.02), passed=True),
          Evidence("numpy scalars", numeric=np.float32(1.0), ci=(np.float64(0.5), np.float64(1.5)),
                   bound=np.int64(2), observed=np.float64(1.0), passed=np.bool_(True)),
          Evidence("compared", theory=2.0, numeric=2.0, passed=True),
          Evidence("symbolic", theory="1/2", numeric="1/2", passed=True),
          Evidence("informational", numeric=7, passed=None),
          Evidence("c* ×(1 ± 0.05)", observed="+δ: violated, −δ: inconclusive", passed=False),
          Evidence("structural control: x", observed="not applicable", passed=None),
          Evidence("JSON non-finite", numeric="inf", bound=1.0, observed="nan", slack="inf"),
          Evidence("certified enclosure", numeric=1.0, ci=(1.0, 1.0))]
    assert len(ok) == 10
    assert all(any(s in r.observed for s in CONTROL_OUTCOMES) for r in ok[6:8])


def test_a_json_report_reads_back_whatever_version_wrote_it():
    row = Evidence("gap", theory=1.0, numeric=1.1, bound=2.0, observed=1.1, slack=2 / 1.1, ci=(1.0, 1.2), passed=True)
    v = Verdict("p:c", "holds", "s", [row, Evidence("inf", numeric=math.inf, bound=1.0, observed=math.inf)])
    back = Verdict.from_dict(json.loads(json.dumps(v.to_dict())))
    assert back.evidence[0] == Evidence("gap", theory=1.0, numeric=1.1, bound=2.0, observed=1.1, slack=2 / 1.1,
                                        ci=[1.0, 1.2], passed=True)
    assert back.evidence[1].numeric == "inf" and back.evidence[1].observed == "inf"
    # a row of an earlier version, whose measured value sat in observed with no bound: read as stored, not rejected
    old = {"claim": "p:c", "status": "holds", "summary": "s",
           "evidence": [{"name": "width exponent", "theory": -0.5, "observed": -0.48, "passed": True}]}
    e = Verdict.from_dict(old).evidence[0]
    assert (e.name, e.theory, e.numeric, e.observed, e.bound, e.passed) == ("width exponent", -0.5, None, -0.48, None,
                                                                             True)


def test_the_test_column_states_the_relation_of_the_two_numbers():
    """A row decided by more than its statistic (an alternative criterion) never shows a false '≤'."""
    row = Evidence("ρ = 0.3: one layer", numeric=0.1, observed=4.1, bound=3.5, statistic="max |z|", passed=True)
    assert "max |z| = 4.1 > 3.5" in _row_cells(row)
    row = Evidence("b*", theory=0.5, numeric=0.5, observed=0.5, bound=3.29, statistic="|z|", passed=None)
    assert "|z| = 0.5 ≤ 3.29" in _row_cells(row)


# --------------------------------------------------------------------------------------------
# every Evidence( call keeps the rule in its keywords (also on paths no quick run takes)
# --------------------------------------------------------------------------------------------

def _sources():
    for top in ("verify", os.path.join("examples", "deepinfo-propagation", "deepinfo_claims")):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if f.endswith(".py"):
                    yield os.path.join(d, f)


def _calls(path):
    src = open(path, encoding="utf-8").read()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Evidence":
            yield node.lineno, {k.arg: k.value for k in node.keywords}


def test_every_evidence_call_in_the_code_keeps_the_columns_rule():
    bad, count = [], 0
    for path in _sources():
        rel = os.path.relpath(path, ROOT)
        for line, kw in _calls(path):
            count += 1
            given = {k for k, v in kw.items() if not (isinstance(v, ast.Constant) and v.value in (None, ""))}
            where = f"{rel}:{line}"
            if None in kw:
                bad.append(f"{where}: **kwargs hide the columns")
            if "statistic" in given and not {"bound", "observed"} <= given:
                bad.append(f"{where}: statistic without bound and observed")
            if "bound" in given and "observed" not in given:
                bad.append(f"{where}: bound without observed")
            if "slack" in given and not {"bound", "observed"} <= given:
                bad.append(f"{where}: slack without bound and observed")
            if "ci" in given and "numeric" not in given:
                bad.append(f"{where}: ci without numeric")
            b = kw.get("bound")
            if isinstance(b, ast.JoinedStr) or (isinstance(b, ast.Constant) and isinstance(b.value, str)):
                bad.append(f"{where}: a bound that is text")
            if "observed" in given and not {"bound", "statistic"} & given and rel != os.path.join("verify", "runner.py"):
                # only the runner's control rows carry an outcome (a status string) in observed without a bound
                bad.append(f"{where}: observed without bound (a measured value goes in numeric)")
    assert count > 200, count
    assert not bad, "\n".join(bad)


# --------------------------------------------------------------------------------------------
# the rows of cheap claims at the quick budget: values in the right columns
# --------------------------------------------------------------------------------------------

def _by_name(v):
    return {e.name: e for e in v.evidence}


def test_table2_rows_printed_quadrature_and_a_monte_carlo_z_test():
    v = run_claim(resolve("isometry:table2"), Context(budget="quick"), with_control=False)
    relu = next(e for e in v.evidence if "max(x, 0)" in e.name)
    assert relu.theory == pytest.approx((3 * math.pi - 4) / (2 * math.pi - 2), rel=1e-15)   # the printed value
    assert abs(relu.numeric - relu.theory) < 1e-15                                          # 40-digit quadrature
    assert relu.statistic == "|z|" and relu.bound == 4.0 and 0 <= relu.observed < 4.0 and relu.ci is None
    assert "Monte Carlo" in relu.note and relu.passed is True


def test_lemma_a8_rows_counts_in_numeric_tolerances_in_bound():
    v = run_claim(resolve("isometry:lemma-a8"), Context(budget="quick"), with_control=False)
    exact, gauss, mehler, printed = v.evidence[:4]
    assert exact.theory == 0 and exact.numeric == 0 and exact.observed is None and exact.passed is True
    assert gauss.bound == 1e-9 and 0 <= gauss.observed < 1e-9 and gauss.theory is None
    assert mehler.bound == 1e-10 and mehler.observed < 1e-10 and mehler.passed is True
    assert printed.passed is None and printed.bound == 1e-10 and printed.observed > 1.0   # the printed kernel diverges


def test_theorem9_rows_bounds_and_the_exceptions_count():
    v = run_claim(resolve("bn-mean-field:theorem9"), Context(budget="quick"), with_control=False)
    by = _by_name(v)
    exceptions = next(e for n, e in by.items() if n.startswith("λ_max ≥ (B−2)/(B−3) > 1"))
    assert exceptions.theory == 0 and exceptions.numeric == 0 and exceptions.observed is None
    ck = by["0 < c_k ≤ 2 for k = 1..59 (so every term is non-negative)"]
    assert ck.bound == 2.0 and 0 < ck.observed <= 2 + 1e-12 and "smallest" in ck.note
    strict = by["strict: a small even part (φ = x + 0.01x², B = 8) raises λ_max above 6/5"]
    assert strict.bound == pytest.approx(1.2) and strict.observed > 1.2 and "lower bound" in strict.note


def test_eq19_rows_closed_form_tolerance_and_the_printed_ratio():
    v = run_claim(resolve("bn-finite-width:eq19"), Context(budget="quick"), with_control=False)
    closed = [e for e in v.evidence if "closed form vs quadrature" in e.name]
    assert closed and all(e.bound == 1e-9 and e.observed <= 1e-9 and e.theory == pytest.approx(e.numeric, abs=1e-9)
                          for e in closed)
    ratios = [e for e in v.evidence if "within [1/100, 3/2]" in e.name]
    assert all(e.bound == 1.5 and e.observed == pytest.approx(e.numeric / float(e.note.split("Σλ² = ")[1]), rel=1e-3)
               for e in ratios)
    assert any(e.passed is False and e.observed > 1.5 for e in ratios)   # small λ: TV/Σλ² blows up (the erratum)


def test_perturbation_control_rows_name_their_delta_and_observe_the_outcome():
    v = run_claim(resolve("isometry:table2"), Context(budget="quick"))
    rows = [e for e in v.negative_control.evidence if not e.name.startswith("structural control")]
    assert [e.name for e in rows] == ["beta ×(1 ± 0.05)"]
    assert all(e.theory is None and e.bound is None and e.passed is False for e in rows)
    assert rows[0].observed == "+δ: violated, −δ: violated"
    structural = [e for e in v.negative_control.evidence if e.name.startswith("structural control")]
    assert [(e.observed, e.bound, e.passed) for e in structural] == [("violated", None, False)]


def test_ks_and_rank_rows_put_the_p_value_against_its_level():
    from verify.papers.covariance_sde._common import ALPHA, _ks_row
    from verify.papers.isometry.training import LEVEL, _kendall_row
    rng = np.random.default_rng(0)
    r = _ks_row("same law", rng.standard_normal(2000), rng.standard_normal(2000))
    assert r.bound == ALPHA and r.observed > ALPHA and 0 < r.numeric < 0.1 and bool(r.passed) is True
    assert f"KS D = {r.numeric:.4f}" in r.note
    x = {"a": 1.0, "b": 1.1, "c": 1.2, "d": 1.3, "e": 1.4}
    k = _kendall_row("τ", x, {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "e": 1.0})
    assert k.numeric == pytest.approx(-1.0) and k.bound == LEVEL and k.observed == pytest.approx(1 / 120)


def test_a_two_sided_test_has_a_pair_of_critical_values_and_a_statistic():
    from verify.core import Evidence, EvidenceError
    row = Evidence("calibration", theory=1.0, bound=(0.78, 1.25), observed=0.97, statistic="χ²/K", passed=True)
    assert row.bound == (0.78, 1.25)
    with pytest.raises(EvidenceError, match="needs a statistic"):
        Evidence("no statistic", bound=(0.78, 1.25), observed=0.97, passed=True)
    with pytest.raises(EvidenceError, match="lo ≤ hi"):
        Evidence("reversed", bound=(1.25, 0.78), observed=0.97, statistic="F", passed=True)
