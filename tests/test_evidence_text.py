"""Evidence that reads right in the terminal: every value labelled by what it is, test statistics shown as statistics,
rows not judged marked informational, and the run saying what it checked of the statement."""
from __future__ import annotations

from verify.core import Context, Evidence, Verdict
from verify.registry import resolve
from verify.report import _evidence_lines, render_text
from verify.runner import run_claim


def test_a_test_statistic_is_shown_as_a_statistic_never_in_the_bound_columns():
    rows = [Evidence("b* by quadrature vs Monte Carlo", theory=0.5, numeric=0.49992, observed=0.53, bound=3.29,
                     statistic="|z|", passed=True),
            Evidence("stationary mean Gram", theory=0.5, numeric=0.50029, bound=0.0031, observed=0.00058, passed=True),
            Evidence("the fixed point used", passed=None, note="b* = 0.5")]
    wide = "\n".join(_evidence_lines(rows, width=200))
    assert "|z| = 0.53 ≤ 3.29" in wide and "info" in wide
    head = wide.splitlines()[0]
    assert head.split()[:4] == ["quantity", "predicted", "measured", "bound"]
    z_line = next(line for line in wide.splitlines() if line.strip().startswith("b* by quadrature"))
    assert "3.29 " not in z_line.split("|z|")[0]          # the critical value is not in the bound column
    narrow = "\n".join(_evidence_lines(rows, width=60))   # labelled blocks when the table does not fit
    assert "predicted 0.5 · measured 0.49992 · |z| = 0.53 ≤ 3.29" in narrow
    assert "the fixed point used  [info]" in narrow
    text = render_text(Verdict("p:c", "holds", "s", rows))
    assert "(pass 'info': an informational row, not judged)" in text


def test_theorem1_says_which_of_the_statements_activations_it_left_out_and_its_rows_mean_one_thing():
    v = run_claim(resolve("bn-finite-width:theorem1"), Context(budget="quick", params={"activations": "relu"}),
                  with_control=False)
    assert "of the statement's 𝓕 not checked: tanh, sigmoid, sin, selu, celu (not requested by --param activations)" \
        in v.summary
    by = {e.name: e for e in v.evidence}
    fp = by["relu: the fixed point used, G* = b*((1−c*)I + c*11ᵀ), n = 10"]
    assert fp.passed is None and fp.theory is None and fp.numeric is None and "c* = " in fp.note
    exp = by["relu: width exponent of the stationary max_i|λ_i/λ_i* − 1|"]
    assert exp.theory == -0.5 and exp.bound == -0.35 and exp.ci[0] <= exp.numeric <= exp.ci[1]
    assert all(e.statistic == "|z|" for e in v.evidence if "quadrature vs Monte Carlo" in e.name)


def test_a_figure_claims_summary_states_the_runs_own_sample_sizes():
    c = resolve("covariance-sde:figure1")
    assert "2¹³" not in c.title
    v = run_claim(c, Context(budget="quick"), with_control=False)
    assert "2048 networks and 2048 SDE paths" in v.summary


def test_a_two_sided_test_shows_its_interval_of_critical_values():
    """bound = (lo, hi): the statistic must lie between them (a standard error's calibration, verify.calibration)."""
    from verify.latex import evidence_table
    rows = [Evidence("SE calibration", theory=1.0, numeric=0.98, observed=0.98, bound=(0.7836, 1.2492),
                     statistic="χ²/K", samples=400, passed=True),
            Evidence("SE calibration, SE ×√2", theory=1.0, numeric=0.49, observed=0.49, bound=(0.7836, 1.2492),
                     statistic="χ²/K", samples=400, passed=False)]
    wide = "\n".join(_evidence_lines(rows, width=200))
    assert "χ²/K = 0.98 ∈ [0.7836, 1.249]" in wide and "χ²/K = 0.49 ∉ [0.7836, 1.249]" in wide
    tex = evidence_table(Verdict("p:c", "violated", "s", rows), "tab:x")
    assert r"\in" in tex and r"\notin" in tex and "0.7836" in tex
