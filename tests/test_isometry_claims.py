"""Every checked claim of the isometry paper: its verdict at the quick budget, and its negative
control, which must come out violated. Values and errata are asserted, not just that code ran."""
import atexit
import shutil
import tempfile

import numpy as np
import pytest

import theory
from conftest import assert_controls, assert_figure_files, catalogued_mutant, quick_context

from verify.core import HOLDS, INCONCLUSIVE, VIOLATED, Context
from verify.registry import all_claims, resolve
from verify.runner import run_claim

EXPECTED = {  # claim → status of the check (the negative control must always be 'violated')
    "lemma-a1": HOLDS, "theorem1": HOLDS, "corollary2": HOLDS, "corollary3": HOLDS, "definition3": HOLDS,
    "table2": HOLDS, "table-b1": HOLDS, "lemma-a4": HOLDS, "lemma-a6": HOLDS, "lemma-a7": HOLDS,
    "lemma-a8": HOLDS, "theorem-a2": HOLDS, "corollary-a3": HOLDS, "theorem4": HOLDS, "figure3": HOLDS,
    "figure-a1": HOLDS, "section6": HOLDS, "figure6": VIOLATED, "figure8": HOLDS, "figure9": HOLDS,
    "figure-b1": HOLDS, "figure-b3": VIOLATED, "figure-b4": HOLDS, "figure7": VIOLATED, "figure-b6": HOLDS,
    "figure-b7": INCONCLUSIVE,   # quick: sin and exp undecided (the interval contains ½); holds at standard
}

#: quick verdicts that differ between CPUs. The float32 training over 6 epochs is pinned to one thread and gives the
#: same numbers run after run on one machine, but CI machines gave different ones: Fig B.7 at quick held in the CI runs
#: of stops 19–21 and failed in stop 22's, with the same code. This machine gives exp R = 0.53 at 3 seeds and 0.50 at
#: 6 seeds, which sits on the allowance of ½. Such a claim may come out holds or inconclusive (never violated), and the
#: rows must agree with the verdict.
MACHINE_DEPENDENT_QUICK = {"figure-b7": {INCONCLUSIVE, HOLDS}}

_CACHE = {}


def verdict(name):
    """The quick verdict with controls, computed once per test process; a figure claim writes its figure into a
    directory of its own (``_FIGURES[name]``, checked by test_verdict_and_negative_control)."""
    if name not in _CACHE:
        _FIGURES[name] = tempfile.mkdtemp(prefix=f"isometry-{name}-")
        atexit.register(shutil.rmtree, _FIGURES[name], True)
        _CACHE[name] = run_claim(resolve(f"isometry:{name}"), quick_context(f"isometry:{name}", _FIGURES[name]))
    return _CACHE[name]


_FIGURES: dict = {}


def test_every_checked_isometry_claim_is_covered_here():
    checked = {c.name for c in all_claims() if c.paper == "isometry" and c.checked}
    assert checked == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_verdict_and_negative_control(name):
    v = verdict(name)
    if name in MACHINE_DEPENDENT_QUICK and v.status in MACHINE_DEPENDENT_QUICK[name]:
        undecided = {e.name.split(":")[0] for e in v.evidence if e.passed is None}
        assert all(e.passed is not False for e in v.evidence)
        assert (v.status == HOLDS) == (not undecided) and all(nm in v.summary for nm in undecided), v.summary
    else:
        assert v.status == EXPECTED[name], v.summary
    assert_controls(v)
    assert_figure_files(v, _FIGURES[name])
    assert any(e.passed is not None for e in v.evidence), "a verdict is decided by judged evidence rows"


def test_table2_values_and_latex_rows():
    v = verdict("table2")
    assert len(v.evidence) == 7 and all(e.passed for e in v.evidence)   # six printed β_σ and the engine's moments
    relu = [e for e in v.evidence if "max(x, 0)" in e.name][0]
    assert relu.theory == pytest.approx(1.2665288965378700, rel=1e-15)
    assert abs(relu.numeric - relu.theory) < 1e-15
    assert v.tables and len(v.tables[0][2]) == 6


def test_theorem4_thresholds_erratum():
    v = verdict("theorem4")
    th = {t["activation"]: t for t in v.artefacts["thresholds"]}
    assert th["sigmoid"]["printed_threshold"] == pytest.approx(69.589, abs=0.01)
    assert th["sigmoid"]["corrected_threshold"] == pytest.approx(4500.1, abs=0.5)
    assert th["sigmoid"]["first_layer_gamma_below_1/(2n-2)"] > th["sigmoid"]["printed_threshold"]
    assert any("depth condition" in e.location for e in v.errata)


def test_errata_recorded():
    assert len(verdict("corollary3").errata) == 4
    assert any("(58)" in e.location for e in verdict("lemma-a8").errata)
    assert any(e.severity == "error" for e in verdict("figure6").errata)
    assert verdict("lemma-a1").errata and verdict("definition3").errata


def test_figure3_bound_is_loose_but_holds():
    v = verdict("figure3")
    rows = [e for e in v.evidence if "≤ Theorem 4 bound" in e.name]
    assert len(rows) == 3 and all(e.slack > 1e6 for e in rows)


def test_lemma_a7_rigorous_for_relu():
    v = verdict("lemma-a7")
    relu = [e for e in v.evidence if e.name.startswith("relu")][0]
    assert "Arb" in relu.note and relu.slack > 1.05


def test_theorem4_hypotheses_not_met():
    from verify.core import HYPOTHESES_NOT_MET
    claim = resolve("isometry:theorem4")
    v = run_claim(claim, Context(budget="quick", params={"input": "duplicated"}))
    assert v.status == HYPOTHESES_NOT_MET and "duplicated" in v.summary
    v = run_claim(claim, Context(budget="quick", params={"activations": "2*x + 1"}))
    assert v.status == HYPOTHESES_NOT_MET and "affine" in v.summary


@pytest.mark.standard
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_standard_budget_verdicts(name):
    """The default CLI budget gives the verdicts of the shipped expectations: those of the quick budget, except
    figure-b7, which the standard networks decide (holds; expected.toml)."""
    v = run_claim(resolve(f"isometry:{name}"), Context(budget="standard", seed=0))
    assert v.status == {**EXPECTED, "figure-b7": HOLDS}[name], v.summary
    assert_controls(v)


def test_figure_b4_resolution_and_values():
    """The extrapolated gaps match mean field for every profile and input; the control flags the dual map at ±5%."""
    v = verdict("figure-b4")
    judged = [e for e in v.evidence if e.passed is not None]
    assert len(judged) == 8 and all(e.observed < e.bound for e in judged)
    assert all(e.bound == pytest.approx(4.4083, abs=1e-3) for e in judged)   # 99.9% Bonferroni over 2·4·12 tests
    assert v.resolution and "dual" in str(v.resolution)


def test_figure_b4_degenerate_user_inputs_are_outside_the_hypotheses(tmp_path):
    """A user dataset whose first images of two classes coincide gives a singular G^0: hypotheses-not-met."""
    import numpy as np
    from verify.core import HYPOTHESES_NOT_MET
    rng = np.random.default_rng(0)
    x = rng.standard_normal((40, 16))
    y = np.repeat(np.arange(4), 10)
    x[10] = x[0]                      # the first image of class 1 equals that of class 0
    p = tmp_path / "dup.npz"
    np.savez(p, x_train=x, y_train=y, x_test=x[:8], y_test=y[:8])
    v = run_claim(resolve("isometry:figure-b4"), Context(budget="quick", params={"dataset": str(p)}))
    assert v.status == HYPOTHESES_NOT_MET and "singular" in v.summary


def test_figure7_rank_statistic_and_positive_control():
    v = verdict("figure7")
    row = v.evidence[0]
    assert row.samples == 9 and row.numeric > 0          # Kendall τ of β_σ vs the training loss: positive on digits
    assert v.positive_control.evidence[0].numeric < -0.7  # β_σ orders the initial gaps (Theorem 4)


def test_rank_rows_leave_out_non_finite_values_and_do_not_judge_too_few():
    """A diverged run (loss +∞) or a singular Gram (NaN) is left out of the rank test by name; with fewer than 4
    finite activations the row is not judged (numerical trouble is inconclusive, never a pass)."""
    import math
    from verify.papers.isometry.training import _kendall_row
    x = {"a": 1.0, "b": 1.1, "c": 1.2, "d": 1.3, "e": 1.4}
    r = _kendall_row("t", x, {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "e": math.inf})
    assert r.samples == 4 and r.numeric == pytest.approx(-1.0) and r.passed is True and "left out" in r.note
    assert r.bound == 0.05 and r.observed == pytest.approx(1 / 24)   # the exact one-sided p of τ = −1 over 4 items
    assert "e" in r.note.split("left out")[1]
    r = _kendall_row("t", x, {"a": 5.0, "b": 4.0, "c": math.inf, "d": math.nan, "e": math.inf})
    assert r.passed is None and r.samples == 2


def test_figure_b7_decision_rule():
    """Fig B.7's three outcomes from the ratio of means and its interval: a small change holds, a change of twice the
    initial gap is violated, a change near ½ with a wide interval is undecided; the statistic itself is exact."""
    import numpy as np
    from verify.papers.isometry.training import b7_decision
    start = np.array([1.0, 1.1, 0.9, 1.05, 0.95, 1.0])
    small = b7_decision(0.2 * start + np.array([0.01, -0.01, 0.02, -0.02, 0.0, 0.0]), start, 9)
    assert small["ratio"] == pytest.approx(0.2, abs=1e-12) and small["passed"] is True
    large = b7_decision(-2.0 * start + np.array([0.1, -0.1, 0.0, 0.05, -0.05, 0.0]), start, 9)
    assert large["ratio"] == pytest.approx(2.0, abs=1e-12) and large["passed"] is False
    near = b7_decision(np.array([0.1, 0.9, 0.3, 0.8, 0.2, 0.7]), start, 9)
    assert near["ratio"] == pytest.approx(0.5, abs=1e-12) and near["passed"] is None
    assert near["lower"] < 0.5 < near["upper"]
    # the delta-method se of the ratio of means: sd(x − R y)/(√n ȳ)
    x = np.abs(np.array([0.1, 0.9, 0.3, 0.8, 0.2, 0.7]))
    assert near["se"] == pytest.approx(np.std(x - 0.5 * start, ddof=1) / (np.sqrt(6) * start.mean()), rel=1e-12)


def test_figure_b7_flags_the_depth_30_networks_at_quick():
    """The control's regime decided at the quick budget on two activations: training depth-30 networks moves the
    layer-30 gap by far more than half (Bonferroni lower bound above ½), so the check has the power to say violated."""
    from verify.core import Verdict
    from verify.papers.isometry.training import _b7_rows, _b7_verdict
    rows = _b7_rows(Context(budget="quick", seed=0), depth=30, acts=("relu", "sin"))
    assert any(e.passed is False and e.observed > 2.0 for e in rows), [(e.name, e.observed, e.note) for e in rows]
    v = _b7_verdict(Context(budget="quick", seed=0, claim_id="isometry:figure-b7"), rows, "holds", "fails")
    assert isinstance(v, Verdict) and v.status == VIOLATED


def test_meanfield_mc_standard_error_against_the_arccosine_closed_form():
    import math

    from scipy import stats

    from verify.papers.isometry.meanfield import _meanfield_mc_se_row
    row = _meanfield_mc_se_row(Context(budget="quick", seed=0))
    lo, hi = stats.chi2.ppf([0.0005, 0.9995], 400) / 400
    assert row.statistic == "χ²/K" and row.samples == 400 and row.passed and row.bound == pytest.approx((lo, hi))
    assert row.observed == pytest.approx(0.98022, abs=1e-4)
    k = (math.sqrt(0.75) + (math.pi - math.acos(0.5)) * 0.5) / (2 * math.pi)
    assert f"exact value {(k - 1 / (2 * math.pi)) / (0.5 - 1 / (2 * math.pi)):.10g}" in row.note


def test_a_meanfield_mc_standard_error_sqrt2_too_large_is_caught(monkeypatch):
    """meanfield_map_mc's SE ×√2: the max-|z| row against the dual map still passes; the calibration row must fail
    and theorem-a2 must not hold."""
    import math

    import numerics
    real = numerics.meanfield_map_mc

    def lenient(*args, **kwargs):
        mean, se, n = real(*args, **kwargs)
        return mean, se * math.sqrt(2), n

    monkeypatch.setattr(numerics, "meanfield_map_mc", lenient)
    v = run_claim(resolve("isometry:theorem-a2"), Context(budget="quick", seed=0))
    assert v.status != HOLDS, v.summary
    assert next(e for e in v.evidence if e.name.startswith("eq (10) by Monte Carlo")).passed
    row = next(e for e in v.evidence if e.name.startswith("standard error of eq (10)"))
    assert row.passed is False and row.observed == pytest.approx(0.98022 / 2, abs=1e-4)


# ------------------------------------------------------------------ rows that kill catalogued mutants


def test_theorem4_gap_series_row():
    """The isometry gap near G = cI (the series branch |μ_i| < 1e-3 of theory.isometry_gap) against 50-digit mpmath of
    eq (3): 13 matrices inside the branch (8 built, 5 of tanh's mean-field trajectory), to 1e-12 relative."""
    row = next(r for r in verdict("theorem4").evidence if r.name.startswith("the isometry gap −log 𝓘(G) near G = cI"))
    assert row.passed and row.samples == 13 and row.bound == 1e-12
    assert 1e-14 < row.observed < 5e-13   # the series' truncation |μ|⁴/3 at |μ| = 9e-4 (2.2e-13)
    # the worst matrix is the one whose float64 rounding happens to be largest (it depends on the BLAS/LAPACK build:
    # I − 0.0009·equicorrelated on one machine, I + 0.0009·equicorrelated on another); the row's theory value must be
    # the 50-digit reference of the matrix the note names, one of those inside the branch
    from verify.core import Context
    from verify.papers.isometry.theorem4 import _gap_series_matrices, gap_reference
    refs = dict(_gap_series_matrices(Context(budget="quick", seed=0)))
    worst = next(label for label in refs if f"worst at {label} (" in row.note)
    assert row.theory == pytest.approx(gap_reference(refs[worst]), rel=1e-15)
    n = refs[worst].shape[0]
    mu = np.linalg.eigvalsh(refs[worst] / (np.trace(refs[worst]) / n) - np.eye(n))
    assert np.max(np.abs(mu)) < 1e-3
    assert gap_reference(np.array([[1.0, 0.5], [0.5, 1.0]])) == pytest.approx(0.143841036226, abs=1e-12)


def test_theorem4_kills_a_wrong_series_coefficient(monkeypatch):
    """th-isogap-series: the μ³ coefficient 1/2 instead of 1/3 is a relative error ~|μ|/3 on the branch, which the
    1e-12 row flags: the claim (which holds) turns inconclusive, on that row alone."""
    import importlib
    iso = importlib.import_module("theory.isometry")   # the module (theory.isometry is also the function 𝓘)
    mutated = catalogued_mutant("th-isogap-series", iso.isometry_gap)
    monkeypatch.setattr(iso, "isometry_gap", mutated)
    monkeypatch.setattr(theory, "isometry_gap", mutated)
    # the store of shared simulations is emptied before and after (conftest): no mutated gaps left behind
    v = run_claim(resolve("isometry:theorem4"), Context(budget="quick", seed=0))
    assert v.status == INCONCLUSIVE, v.summary
    failed = [r for r in v.evidence if r.passed is False]
    assert len(failed) == 1 and failed[0].name.startswith("the isometry gap") and failed[0].observed > 1e-4


def test_figure_b3_run_configuration_and_first_layer_rows():
    """Fig B.3 asserts what the simulator ran (variant, gain, widths, sizes) and Xavier's first-layer moment
    E G¹_ii = g² E σ(z)² (E tanh(z)² = 0.39429449…, E relu(z)² = 1/2, E selu(z)² = 1), |z| ≤ 4."""
    v = verdict("figure-b3")
    config = [r for r in v.evidence if "each network ran the variant" in r.name]
    moment = {r.name.split(",")[0]: r for r in v.evidence if "Xavier's first layer" in r.name}
    assert len(config) == 5 and all(r.passed and r.numeric == r.theory == 2 for r in config)
    assert set(moment) == {"relu", "leaky_relu", "tanh", "sigmoid", "selu"}
    assert all(r.passed and r.observed <= 4.0 and r.samples == 6000 for r in moment.values())
    assert moment["relu"].theory == pytest.approx(1.0, rel=1e-12)
    assert moment["tanh"].theory == pytest.approx(25 / 9 * 0.394294490397, rel=1e-9)
    assert moment["selu"].theory == pytest.approx(0.5625, rel=1e-6)
    assert moment["relu"].numeric == pytest.approx(1.0129, abs=2e-3)
    pos = {r.name.split(",")[0] for r in v.positive_control.evidence if "Xavier's first layer" in r.name}
    assert pos == {"relu", "leaky_relu", "selu"}


def test_figure_b3_kills_xavier_ignoring_its_gain(monkeypatch):
    """nu-isomlp-xavier-gain: networks that drop the gain have the same isometry gaps for ReLU (homogeneous) but a
    first-layer moment E σ(z)² instead of g² E σ(z)²: no verdict (inconclusive) instead of violated."""
    from numerics import isometry_mlp as nim
    from verify.papers.isometry import appendix_b
    monkeypatch.setattr(nim, "_layers", catalogued_mutant("nu-isomlp-xavier-gain", nim._layers))
    appendix_b._gaps.cache_clear()
    try:
        v = run_claim(resolve("isometry:figure-b3"), Context(budget="quick", seed=0))
    finally:
        appendix_b._gaps.cache_clear()
    assert v.status == INCONCLUSIVE and "not the ones asked for" in v.summary, v.summary
    flagged = {r.name.split(",")[0] for r in v.evidence if "Xavier's first layer" in r.name and r.passed is False}
    assert flagged == {"relu", "leaky_relu", "tanh", "selu"}   # sigmoid's gain is 1
    assert all(r.passed for r in v.evidence if "each network ran the variant" in r.name)   # recorded as asked


def test_isometry_mlp_simulators_agree_in_law_and_a_dense_bug_is_caught(monkeypatch):
    """theorem4's simulator-variant rows: the exact-in-law and explicit-weight layer-norm MLPs agree in KS at seed 0
    (p = 0.416, 0.281); when the explicit-weight path feeds every layer the input batch again (catalogued mutant
    nu-isomlp-dense-stale-input) both rows fail and the claim no longer holds."""
    from conftest import catalogued_mutant
    from numerics import isometry_mlp
    from verify.papers.isometry.theorem4 import simulator_variant_rows
    rows = simulator_variant_rows(Context(budget="quick", seed=0))
    assert [r.passed for r in rows] == [True, True]
    assert [r.observed for r in rows] == pytest.approx([0.416, 0.281], abs=2e-3)
    monkeypatch.setattr(isometry_mlp, "_layers", catalogued_mutant("nu-isomlp-dense-stale-input", isometry_mlp._layers))
    bad = simulator_variant_rows(Context(budget="quick", seed=0))
    assert [bool(r.passed) for r in bad] == [False, False]
    v = run_claim(resolve("isometry:theorem4"), Context(budget="quick", seed=0), with_control=False)
    assert v.status != HOLDS


def test_dual_map_rows_and_the_series_branch_mutant(monkeypatch):
    """theorem-a2's σ̄ rows: the evaluation the mean-field maps use agrees with the sympy closed form (relu, step, sin)
    or 2-D quadrature (tanh) to ≤ 5e-14 at 13 points; with the Hermite series used on all of [−1, 1] (catalogued mutant
    th-dual-series-everywhere) relu is off by 4.5e-5 and step by 1.3e-2 at the ends, and the claim no longer holds."""
    from theory import dual
    from verify.papers.isometry.meanfield import dual_map_rows
    rows = dual_map_rows(Context(budget="quick", seed=0))
    sigma_bar = rows[:4]     # then the bivariate engine's two rows (their own tests below)
    assert [r.name.split(":")[0] for r in sigma_bar] == ["relu", "step", "sin", "tanh"] and len(rows) == 6
    assert all(r.passed and r.observed < 1e-13 for r in sigma_bar)
    monkeypatch.setattr(dual.NumericDual, "bar", catalogued_mutant("th-dual-series-everywhere", dual.NumericDual.bar))
    bad = {r.name.split(":")[0]: r for r in dual_map_rows(Context(budget="quick", seed=0))[:4]}
    assert bad["relu"].passed is False and bad["relu"].observed == pytest.approx(4.48e-5, rel=1e-2)
    assert bad["step"].passed is False and bad["step"].observed == pytest.approx(1.297e-2, rel=1e-2)
    v = run_claim(resolve("isometry:theorem-a2"), Context(budget="quick", seed=0), with_control=False)
    assert v.status != HOLDS


def test_lemma_a6_bracket_where_attained_and_mpmath_coefficients(monkeypatch):
    """lemma-a6's extra rows: ρ^{K+1} lies in He_{K+1}'s K-term bracket (to rounding, 2.1e-14) and the float c_k of
    tanh agree with mpmath to 4.4e-15; with the tail exponent K + 2 (catalogued mutant th-dual-tail-exponent) the
    bracket misses ρ^{K+1} by up to ρ⁴(1 − |ρ|) = 0.08192 (K = 3, |ρ| = 0.8) and the claim no longer holds."""
    from theory import dual
    from verify.papers.isometry.appendix_a_lemmas import mp_coefficient_row, tail_bracket_extremal_row
    row = tail_bracket_extremal_row()
    assert row.passed and row.observed < 5e-14
    mp = mp_coefficient_row(Context(budget="quick", seed=0))
    assert mp.passed and mp.observed < 1e-14
    monkeypatch.setattr(dual.DualSeries, "tail_bound", catalogued_mutant("th-dual-tail-exponent",
                                                                         dual.DualSeries.tail_bound))
    bad = tail_bracket_extremal_row()
    assert bad.passed is False and bad.observed == pytest.approx(0.08192, abs=1e-9)
    v = run_claim(resolve("isometry:lemma-a6"), Context(budget="quick", seed=0), with_control=False)
    assert v.status != HOLDS


def test_table2_engine_moments_row_and_an_ignored_variance(monkeypatch):
    """table2's engine row: the public Gaussian engine's moments of every Table 2 σ agree with sympy's within its
    stated error + 4 ulps (worst 0.125 of that allowance); an engine that ignores its variance argument fails on the
    two closed forms at v = 5/2 and the claim no longer holds."""
    from theory import gaussian
    from verify.papers.isometry.isometry_strength import TABLE2, engine_moment_row
    row = engine_moment_row(TABLE2)
    assert row.passed and row.observed <= 0.5
    real = gaussian.mp_gaussian
    monkeypatch.setattr(gaussian, "mp_gaussian", lambda fn, v, kinks=(), dps=30: real(fn, 1.0, kinks, dps))
    bad = engine_moment_row(TABLE2)
    assert bad.passed is False and bad.observed > 1e10
    v = run_claim(resolve("isometry:table2"), Context(budget="quick", seed=0), with_control=False)
    assert v.status != HOLDS

def test_definition3_formula_sample_read_back_and_a_parser_that_drops_arguments(monkeypatch):
    """definition3's 30 typed formulas: every one is read back as its numpy transcription (within 1e-15 here);
    a parser that builds max/min of two arguments only reads 'max(x, 0.1*x, -0.3)' as max(x, 0.1x) — off by 0.3 for
    x ≤ −3 — and the claim no longer holds."""
    from conftest import catalogued_mutant
    from theory import activations, formula
    from verify.papers.isometry.isometry_strength import DEF3_FORMULAS, formula_transcription_row
    assert len(DEF3_FORMULAS) == 30
    row = formula_transcription_row()
    assert row.passed and row.observed < 1e-15
    monkeypatch.setattr(formula._Builder, "call", catalogued_mutant("th-formula-max-two-args", formula._Builder.call))
    activations._activation_from_text.cache_clear()
    try:
        bad = formula_transcription_row()
        assert bad.passed is False and bad.observed == pytest.approx(0.3, abs=1e-12)
        assert "max(x, 0.1*x, -0.3)" in bad.note
        v = run_claim(resolve("isometry:definition3"), Context(budget="quick", seed=0), with_control=False)
        assert v.status != HOLDS
    finally:
        activations._activation_from_text.cache_clear()


def test_theorem_a2_bivariate_mpmath_row_and_a_lost_correlation_sign(monkeypatch):
    """theorem-a2's row on the bivariate engine's mpmath route: σ̂(−0.7) of ReLU = 0.025045204626635845 to the last
    bit of the 30-digit closed form; with the sign of the correlation lost it returns σ̂(0.7) = 0.37505 and the claim
    no longer holds."""
    from theory import gaussian
    from verify.papers.isometry.meanfield import _bivariate_mp_row
    row = _bivariate_mp_row()
    assert row.passed and row.theory == pytest.approx(0.025045204626635845, rel=1e-15) and row.observed <= 1e-17
    monkeypatch.setattr(gaussian, "_bivariate_mp", catalogued_mutant("th-gauss-bivariate-mp-abs-corr",
                                                                     gaussian._bivariate_mp))
    bad = _bivariate_mp_row()
    assert not bad.passed and bad.numeric == pytest.approx(0.3750452046266358, rel=1e-12)
    v = run_claim(resolve("isometry:theorem-a2"), Context(budget="quick", seed=0), with_control=False)
    assert v.status != HOLDS


def test_theorem_a2_plain_callable_row_and_dropped_kinks(monkeypatch):
    """theorem-a2's row on the bivariate engine with plain callables: relu (numpy, kink given) and erf (math.erf point
    by point, scipy's on arrays) at ρ = −0.7 within 0.13 of the allowance (stated error + 4 ulps) of the closed forms;
    with the given kink dropped the rule is not split at 0, its stated error grows to 1.8e-5 (above 1e-12) and the
    claim no longer holds."""
    from theory import gaussian
    from verify.papers.isometry.meanfield import _bivariate_callable_row
    row = _bivariate_callable_row()
    assert row.passed and row.observed < 0.2
    monkeypatch.setattr(gaussian, "_as_function", catalogued_mutant("th-gauss-callable-kinks-dropped",
                                                                    gaussian._as_function))
    bad = _bivariate_callable_row()
    assert not bad.passed and "stated error 1.8e-05" in bad.note
    v = run_claim(resolve("isometry:theorem-a2"), Context(budget="quick", seed=0), with_control=False)
    assert v.status != HOLDS


def test_definition3_hypothesis_row_and_a_probe_with_the_wrong_gaussian(monkeypatch):
    """definition3's hypothesis row decides its 25 known cases; a square-integrability probe that weighs σ² with
    e^{−x²/4} refuses exp(x²/5) and x³e^{x²/6}, which satisfy the hypothesis, and the claim no longer holds."""
    from theory import activations
    from verify.papers.isometry.isometry_strength import hypothesis_row
    row = hypothesis_row()
    assert row.passed and row.samples == 25 and row.numeric == 0
    monkeypatch.setattr(activations, "_check_square_integrable", catalogued_mutant(
        "th-activation-weight-variance-2", activations._check_square_integrable))
    activations._activation_from_text.cache_clear()
    try:
        bad = hypothesis_row()
        assert not bad.passed and bad.numeric == 2
        assert "exp(x**2/5) refused" in bad.note and "x**3*exp(x**2/6) refused" in bad.note
        v = run_claim(resolve("isometry:definition3"), Context(budget="quick", seed=0), with_control=False)
        assert v.status != HOLDS
    finally:
        activations._activation_from_text.cache_clear()


# ------------------------------------------------------------------ the training claims' run-integrity rows

def test_training_integrity_rows_at_seed_0():
    """Figs 7, B.6 and B.7 retrain one member of their ensembles alone (numerics.training.train_isometry_mlp): ReLU's
    last seed — seed 2 of Fig 7's three (shared by Fig B.6), seed 5 of Fig B.7's six (an ensemble Fig 7 does not
    train) — equal within 1e-6 relative (float32 on CPU: the losses and accuracies bit for bit; the float64 gaps to
    ~1e-15, within the absolute 1e-10)."""
    names = {"figure7": (2, 3), "figure-b6": (2, 3), "figure-b7": (5, 6)}
    for claim, (seed, n) in names.items():
        v = verdict(claim)
        rows = [r for r in v.evidence if r.name.startswith("run integrity")]
        assert [r.name for r in rows] == [f"run integrity: the relu member of seed {seed} (the last of {n} seeds, depth "
                                          "10) of the batched ensemble = its solo run "
                                          "(numerics.training.train_isometry_mlp)"]
        assert (rows[0].observed, rows[0].bound, rows[0].passed) == (0.0, 1e-6, True), rows[0].note
        assert "train_loss 0, gaps 0, corollary2_margin 0, test_accuracy 0" in rows[0].note
    for control in (verdict("figure7").positive_control, verdict("figure-b6").negative_control):
        assert [r.passed for r in control.evidence if r.name.startswith("run integrity")] == [True]


def test_training_claims_kill_the_one_generator_ensemble(monkeypatch):
    """nu-ensemble-init-one-generator: the members' initial weights drawn from the first member's generator in turn —
    the networks are still eq (1) MLPs at the same sizes, and Fig B.6's own rows hold on them, but they are not the
    seeds the claim names: the run-integrity row fails and Fig B.6 (holds) is inconclusive."""
    from numerics import ensembles
    from verify.core import status_from_rows
    from verify.papers.isometry import training as T

    def clear():
        T._run.__wrapped__.cache_clear()
        T._run_ensemble.__wrapped__.cache_clear()
        T._MEMBERS.clear()
    monkeypatch.setattr(ensembles, "_init_stacked", catalogued_mutant("nu-ensemble-init-one-generator",
                                                                      ensembles._init_stacked))
    clear()
    try:
        v = run_claim(resolve("isometry:figure-b6"), Context(budget="quick", seed=0))
    finally:
        clear()
    assert v.status == INCONCLUSIVE and "not the ones the claim describes" in v.summary, v.summary
    row = v.evidence[-1]
    assert row.name.startswith("run integrity: the relu member of seed 2") and row.passed is False
    assert row.observed > 1e4 * row.bound, row.note
    assert status_from_rows(v.evidence[:-1]) == HOLDS


def test_a_layer_norm_off_by_one_over_d_fails_the_invariant_row_though_the_gap_cannot_see_it(monkeypatch):
    """LN by sqrt(Σa²/(d − 1)) instead of sqrt(mean a²): every Gram is scaled by (d − 1)/d, which the isometry gap
    (scale invariant) cannot see — the run's invariant row (unit diagonal at rounding precision) fails."""
    import math

    import numpy as np
    import torch

    import numerics
    import numerics.isometry_mlp as im
    import theory
    from verify.papers.isometry._common import invariant_row

    G0 = numerics.equicorrelated_gram(6, 0.5)
    good = numerics.run_isometry_mlp("tanh", 200, G0, 4, 3, seed=1, device="cpu")
    row = invariant_row("tanh", good.invariants())
    assert row.passed is True and row.observed < 0.01

    def off_by_one(a: torch.Tensor) -> torch.Tensor:
        d = a.shape[-2]
        return a / torch.sqrt(torch.sum(a * a, dim=-2, keepdim=True) / (d - 1)) / math.sqrt(d)
    monkeypatch.setattr(im, "_layer_norm", off_by_one)
    bad = numerics.run_isometry_mlp("tanh", 200, G0, 4, 3, seed=1, device="cpu")
    gap_good, gap_bad = (theory.isometry_gap(r.grams.numpy()) for r in (good, bad))
    # the statistic barely sees it: the gap of layer 1 is unchanged (scale invariant) and later layers move by
    # < 0.3 % (tanh's next pre-activations are rescaled by (d − 1)/d), far below the seeds' spread
    assert np.allclose(gap_good[:, :2], gap_bad[:, :2], rtol=1e-9, atol=1e-12)
    assert 0 < np.max(np.abs(gap_bad / gap_good - 1)) < 3e-3 < np.std(gap_good[:, -1]) / np.mean(gap_good[:, -1])
    row = invariant_row("tanh", bad.invariants())
    assert row.passed is False and "unit diagonal" in row.note
    assert bad.invariants()["unit diagonal"][0] == pytest.approx(1 / 200, rel=1e-6)   # |G_ii − 1| = 1/d


def test_a_simulator_that_ignores_its_widths_fails_the_invariant_row(monkeypatch):
    import numerics
    from verify.papers.isometry._common import invariant_row
    run = numerics.run_isometry_mlp("relu", 64, numerics.equicorrelated_gram(3, 0.5), 2, widths=[16, 48],
                                    device="cpu")
    assert invariant_row("relu", run.invariants()).passed is True
    run.config["widths"] = [64, 64]      # what a loop that ignored ``widths`` would have recorded
    row = invariant_row("relu", run.invariants())
    assert row.passed is False and "widths as asked" in row.note


def test_table_b1_reads_the_families_closed_form_duals_at_gains_other_than_one(monkeypatch):
    """The gain families' closed-form duals against the 2-D quadrature (table-b1): true at every sampled gain, and
    the sampled survivors e^(−α³) for e^(−α²) (sin; equal at α = 1) and e^(α²(1·ρ)) for e^(α²(1 + ρ)) (exp) fail."""
    from conftest import source_mutant
    from theory import activations
    from verify.papers.isometry import isometry_strength as S
    from theory import dual

    def fresh():   # an Activation compares equal without its closed form: the dual's caches must not serve the real one
        for f in vars(dual).values():
            getattr(f, "cache_clear", lambda: None)()
    row = S._family_dual_row(S.TABLE_B1, [0.5, 1.0, 2.0])
    assert row.passed and row.observed < 1e-14
    for old, new, at_one in (("sp.exp(-a ** 2) * sp.sinh(a ** 2 * rho))", "sp.exp(-a ** 3) * sp.sinh(a ** 2 * rho))",
                              True), ("sp.exp(a ** 2 * (1 + rho)))", "sp.exp(a ** 2 * (1 * rho)))", False)):
        monkeypatch.setattr(theory, "gain_family", source_mutant(activations.gain_family, old, new))
        fresh()
        assert not S._family_dual_row(S.TABLE_B1, [0.5, 1.0, 2.0]).passed, new
        assert S._family_dual_row(S.TABLE_B1, [1.0]).passed == at_one, new     # α³ = α² at α = 1
        monkeypatch.undo()
        fresh()


def test_lemma_a6_reads_every_registered_closed_form_dual(monkeypatch):
    """lemma-a6's row over all 17 non-constant registered closed forms at every budget; the sampled survivor that
    writes leaky ReLU's cross term 2a·k(−ρ) as (2/a)·k(−ρ) (a = 1/100; the registry's (1 + a²)·k(ρ) − 2a·k(−ρ))
    fails it."""
    import sympy as sp
    from verify.papers.isometry import appendix_a_lemmas as A
    row = A.closed_forms_row()
    assert row.passed and "(17)" in row.name and row.observed < 1e-12
    real = theory.dual_closed_form
    rho = sp.Symbol("rho", real=True)
    relu = real("relu")

    def leaky_divided(act):
        if theory.activation(act).name == "leaky_relu":
            a = sp.Rational(1, 100)
            return (1 + a ** 2) * relu - 2 / a * relu.subs(rho, -rho)
        return real(act)
    monkeypatch.setattr(theory, "dual_closed_form", leaky_divided)
    bad = A.closed_forms_row()
    assert not bad.passed and "leaky_relu" in bad.note


def test_the_tail_bracket_row_sees_a_bound_too_loose(monkeypatch):
    """lemma-a6's attained-bracket row: ρ^{K+1} of He_{K+1} lies inside the bracket and on its edge; the sampled
    survivor |ρ| % (K + 1) for |ρ|^{K+1} (a looser bound: every containment row still passes) leaves it off the edge."""
    from conftest import source_mutant
    from theory import dual
    from verify.papers.isometry import appendix_a_lemmas as A
    row = A.tail_bracket_extremal_row()
    assert row.passed and row.observed < 1e-13
    monkeypatch.setattr(dual.DualSeries, "tail_bound", source_mutant(dual.DualSeries.tail_bound, "** (self.k_max + 1)",
                                                                     "% (self.k_max + 1)"))
    bad = A.tail_bracket_extremal_row()
    assert not bad.passed and bad.observed > 0.1


def test_lemma_a7_reads_its_certificates_slack_and_arb_balls(monkeypatch):
    """lemma-a7's rows on what each certificate states beside its decision: every slack within [1, (1/β)/sampled max
    R], and the Arb balls of ReLU's and the step's σ̄ containing the float value of the same closed form. The sampled
    survivors that make the slack infinite whenever the bound is positive (``if not bound > 0``) and that evaluate a
    rational constant p/q in Arb as p + q each fail them; the claim then does not hold."""
    from conftest import source_mutant
    from theory import certify
    from verify.papers.isometry import appendix_a_lemmas as A
    certificates: list = []
    A._lemma_a7_rows(Context(budget="quick", seed=0), certificates=certificates)
    slack, balls = A._certificate_rows(certificates)
    assert slack.passed and balls.passed and balls.observed < 1e-12 and "relu, step" in balls.note
    assert all(1.0 <= c.slack < float("inf") for c in certificates)
    for owner, attr, old, new, failing in (
            (certify.RatioCertificate, "slack", 'if self.max_ratio_bound > 0 else float("inf")',
             'if not self.max_ratio_bound > 0 else float("inf")', 0),
            (certify, "arb_callable", "return lambda t: arb(p) / q", "return lambda t: arb(p) + q", 1)):
        original = getattr(owner, attr)
        fn = original.fget if isinstance(original, property) else original
        mutant = source_mutant(fn, old, new)
        monkeypatch.setattr(owner, attr, mutant)   # a property's source carries its decorator: the mutant is one too
        certify._enclosure.cache_clear()
        v = run_claim(resolve("isometry:lemma-a7"), Context(budget="quick", seed=0), with_control=False)
        rows = [r for r in v.evidence if "each certificate's slack" in r.name or "the Arb balls of σ̄" in r.name]
        assert v.status != "holds" and rows[failing].passed is False, (new, [r.note for r in rows])
        monkeypatch.undo()
        certify._enclosure.cache_clear()
