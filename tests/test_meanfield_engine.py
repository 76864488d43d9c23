"""The σ_w²/σ_b² mean-field engine where researchers' own claims stand on it: every fixed point with its stability
and basin, the edge of chaos only on the fixed point a network reaches, the marginal case of positively homogeneous
activations, and trajectories to depth 10⁶ with the asymptotic rate of 1 − c^l. Each value is compared with an
independent route (another formula, mpmath, a closed form, a finite difference), and the mechanisms are shown to fail
on deliberately broken lines."""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import theory
from theory import meanfield_depth as md
from theory import meanfield_mlp as mf
from theory.errors import UndefinedQuantityError

#: the three SiLU cases a researcher hit: σ_b² → (σ_w² where χ₁ = 1, the repelling q* there, the attracting q*
#: reached from small q there, χ₁ at it), to the digits quoted
SILU_CASES = {0.05: (2.72861, 0.8266, 0.2279, 0.809), 0.1: (2.43955, 1.552, 0.3961, 0.785),
              0.3: (2.07871, 5.662, 1.364, 0.834)}


@pytest.mark.parametrize("sb", sorted(SILU_CASES))
def test_silu_has_no_edge_of_chaos_on_the_attracting_branch_and_says_why(sb):
    sw, q_rep, q_att, x1 = SILU_CASES[sb]
    (cp,) = theory.critical_points("silu", sb, dps=20)
    assert cp.value == pytest.approx(sw, abs=1e-5) and cp.q_star.value == pytest.approx(q_rep, abs=1e-3)
    assert cp.q_star.stability == "repelling" and cp.q_star.slope.value > 1 and not cp.reached
    with pytest.raises(UndefinedQuantityError) as exc:
        theory.critical_sigma_w2("silu", sb, dps=20)
    msg = str(exc.value)
    assert "\n" not in msg and "repelling" in msg and f"{q_att:.4g}"[:5] in msg
    # the fixed point a network reaches at that σ_w² attracts, with χ₁ = 0.8 there: not critical
    fp = theory.fixed_point_q("silu", cp.value, sb, dps=20)
    assert fp.value == pytest.approx(q_att, abs=1e-3) and fp.stability == "attracting" and fp.slope.value < 1
    assert fp.basin[0] == 0.0 and fp.basin[1] == pytest.approx(cp.q_star.value, rel=1e-9)
    assert theory.chi_1("silu", cp.value, sb, dps=20).value == pytest.approx(x1, abs=1e-3)


def test_silu_at_zero_bias_the_marginal_origin_repels_and_is_refused():
    (cp,) = theory.critical_points("silu", 0.0, dps=20)
    assert cp.value == pytest.approx(4.0, abs=1e-15) and cp.q_star.value == 0.0
    assert cp.q_star.stability == "marginal" and "repelling from above" in cp.q_star.note and not cp.reached
    with pytest.raises(UndefinedQuantityError, match="marginal"):
        theory.critical_sigma_w2("silu", 0.0, dps=20)
    # tanh's marginal origin attracts from above: its edge of chaos at σ_b² = 0 stands
    t = theory.critical_sigma_w2("tanh", 0.0, dps=20)
    assert t.value == 1.0 and t.q_star.stability == "marginal" and "attracting from above" in t.q_star.note


def test_relu_at_the_edge_of_chaos_is_marginal_everywhere_and_chi1_is_one():
    x1 = theory.chi_1("relu", 2.0, 0.0)
    assert x1.value == 1.0 and "every q is a fixed point" in x1.method
    assert theory.chi_1("relu", 3.0, 0.0).value == 1.5          # no finite q*, yet χ₁ is the same at every q
    d = theory.depth_scales("relu", 2.0, 0.0)
    assert d.phase == "critical" and d.q_star is None and d.xi_q.value == math.inf and d.c_star.value == 1.0
    cp = theory.critical_sigma_w2("relu", 0.0)
    assert cp.value == 2.0 and cp.q_star is None and "marginal everywhere" in cp.branch
    assert theory.gradient_growth_rate("relu", 2.0, 0.0).value == 1.0
    with pytest.raises(UndefinedQuantityError, match="every q is a fixed point"):
        theory.length_fixed_points("relu", 2.0, 0.0)


@pytest.mark.parametrize("act, sw, sb", [("tanh", 1.5, 0.05), ("elu", 1.2, 0.1), ("sin", 2.0, 0.1),
                                         ("gelu", 1.5, 0.3), ("silu", 2.72861, 0.05)])
def test_the_stein_slope_agrees_with_the_derivative_form_and_a_finite_difference(act, sw, sb):
    """L′(q*) by Stein's lemma (E φ²(z² − 1)/2q, the FixedPoint's slope) against (χ₁ + σ_w² E φ″φ) (Schoenholz eq 7's
    bracket, with the Dirac masses of φ″) and against a central difference of the mpmath length map."""
    fp = theory.fixed_point_q(act, sw, sb)
    bracket = mf._length_slope(theory.activation(act), sw, sb, 1.0, 30)
    assert fp.slope.value == pytest.approx(bracket.value, rel=1e-14, abs=1e-15)
    h = 1e-5 * fp.value
    fd = (theory.length_map(act, fp.value + h, sw, sb).value - theory.length_map(act, fp.value - h, sw, sb).value) / (2 * h)
    assert fp.slope.value == pytest.approx(fd, rel=1e-8)
    assert fp.stability == theory.classify_slope(fp.slope)


def test_every_fixed_point_is_found_with_its_basin_and_iterates_from_q0_go_where_it_says():
    pts = theory.length_fixed_points("silu", 2.72861, 0.05)
    assert [p.stability for p in pts] == ["attracting", "repelling"]
    low, high = pts
    assert low.basin == (0.0, pytest.approx(high.value, rel=1e-9)) and high.basin == (high.value, high.value)
    # the independent route: iterate the length map itself from either side of the repelling point
    for q0, limit in ((0.8, low.value), (0.85, None)):
        q = q0
        for _ in range(400):
            q = theory.length_map("silu", q, 2.72861, 0.05, dps=20).value
            if q > 1e3:
                break
        if limit is None:
            assert q > 1e3
            with pytest.raises(UndefinedQuantityError, match="grow without a fixed point"):
                theory.fixed_point_q("silu", 2.72861, 0.05, q0=q0)
        else:
            assert q == pytest.approx(limit, rel=1e-12)
            assert theory.fixed_point_q("silu", 2.72861, 0.05, q0=q0).value == pytest.approx(limit, rel=1e-14)



@pytest.mark.parametrize("act", ["silu", "gelu", "x - 0.5*tanh(x)"])
def test_zero_bias_below_the_origins_critical_slope_settles_at_zero_past_a_fixed_point_above(act):
    """σ_b² = 0, φ(0) = 0 and L′(0⁺) = σ_w² φ′(0)² = 0.75 < 1 while L(1) > 1 (σ_w² = 3): q = 0 attracts every small
    q, although the length map has a repelling fixed point above it. The engine used to search for a positive root
    there and stop with an internal "F does not change sign" error. Independent routes: the scan of every fixed
    point with its basin, and the float length map iterated from q⁰ = 10⁻² (inside the basin) towards 0."""
    fp = theory.fixed_point_q(act, 3.0, 0.0)
    assert fp.value == 0.0 and fp.stability == "attracting" and fp.slope.value == pytest.approx(0.75, rel=1e-14)
    low, *above = theory.length_fixed_points(act, 3.0, 0.0)
    assert low.value == 0.0 and low.stability == "attracting" and above and above[0].stability == "repelling"
    assert low.basin[1] == pytest.approx(above[0].value, rel=1e-12) and above[0].value > 1e-2
    assert theory.length_trajectory(act, 3.0, 0.0, 1e-2, 200).values[-1] < 1e-2 * 0.76 ** 150
    assert theory.chi_1(act, 3.0, 0.0).value == pytest.approx(0.75, rel=1e-14)


@pytest.mark.parametrize("act", ["x - tanh(x)", "x - sin(x)", "tanh(x)**3"])
def test_no_edge_of_chaos_at_the_origin_when_the_slope_there_is_zero(act):
    """φ(0) = φ′(0) = 0 at σ_b² = 0: χ₁ = σ_w² φ′(0)² = 0 at q* = 0 for every σ_w², so no σ_w² is critical there.
    The engine used to return σ_w² = 1/φ′(ε)² ≈ 1e160 for x − tanh x and to divide by zero for x − sin x."""
    assert theory.critical_points(act, 0.0) == []
    with pytest.raises(UndefinedQuantityError, match="no order-to-chaos boundary"):
        theory.critical_sigma_w2(act, 0.0)
    assert abs(theory.chi_1(act, 50.0, 0.0).value) < 1e-100

def test_a_slope_off_by_a_factor_of_two_misclassifies_and_the_test_above_sees_it(monkeypatch):
    """The Stein slope with 1/q instead of 1/(2q): the attracting SiLU point (L′ = 0.864) would be called repelling;
    its agreement with the derivative form fails by a factor 2."""
    from conftest import source_mutant
    broken = source_mutant(mf._length_slope_at, "slope = a * v / (2 * q)", "slope = a * v / q")
    monkeypatch.setattr(mf, "_length_slope_at", broken)
    fp = theory.fixed_point_q("silu", 2.72861, 0.05, dps=20)
    assert fp.stability == "repelling"
    assert fp.slope.value == pytest.approx(2 * 0.864, abs=1e-3)


#: activations with several fixed points, bumps or oscillations, beside tanh, erf and the registry's smooth ones
SWEEP = ["tanh", "erf", "elu", "selu", "gelu", "silu", "sin", "cos", "softplus", "sigmoid", "he3",
         "log(1 + exp(x)) - log(2)", "sin(x) + 0.5"]


@pytest.mark.parametrize("act", SWEEP)
@pytest.mark.parametrize("sb", [0.0, 0.1])
def test_every_returned_edge_of_chaos_has_chi1_one_at_the_fixed_point_a_network_reaches(act, sb):
    """The registry-and-formulas sweep: critical_sigma_w2 either refuses in one line or returns a σ_w² at which the
    fixed point reached from small q (fixed_point_q, solved separately) is its q*, attracts (or is marginal and
    attracts from above), and has χ₁ = 1 to χ₁'s error plus the propagated error of σ_w²."""
    try:
        cp = theory.critical_sigma_w2(act, sb, dps=20)
    except UndefinedQuantityError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 400
        return
    x1 = theory.chi_1(act, cp.value, sb, dps=20)
    assert abs(x1.value - 1.0) <= x1.error + 2 * cp.error / cp.value + 4e-16, (cp, x1)
    if cp.q_star is not None:
        assert cp.reached and cp.q_star.attracting
        reached = theory.fixed_point_q(act, cp.value, sb, dps=20)
        assert reached.value == pytest.approx(cp.q_star.value, rel=1e-9, abs=1e-12)


# ---------------------------------------------------------------------------------------------------------------
# trajectories to large depth and their asymptotic rates
# ---------------------------------------------------------------------------------------------------------------

def test_relu_edge_of_chaos_to_depth_a_million_and_its_rate_nine_pi_squared_over_two():
    import time
    start = time.process_time()
    tr = theory.correlation_trajectory("relu", 2.0, 0.0, 0.5, 10 ** 6)
    seconds = time.process_time() - start
    assert np.all((tr.values >= -1) & (tr.values <= 1)) and np.all(np.diff(tr.deviation) < 0)
    assert tr.relative_error[-1] < 1e-9                        # ten significant digits of 1 − c at l = 10⁶
    fit = theory.asymptotic_rate(tr)
    exact = 9 * math.pi ** 2 / 2
    assert fit.kind == "power" and fit.exponent.value == 2.0
    assert abs(fit.constant.value / exact - 1) < 1e-6 and abs(fit.constant.value - exact) <= fit.constant.error
    assert fit.constant.error / exact < 1e-6
    assert seconds < 30       # docs/benchmarks.md records it (under 10 s on one core); a generous guard here


def test_the_deviation_map_agrees_with_the_engines_correlation_map_and_its_own_routes():
    """D(t) against 1 − correlation_map(1 − t) (the bivariate route) where t is not small, and, across each switch,
    the small-t series against the large-t route (Puiseux vs the mpmath closed form for ReLU; Taylor vs the
    bivariate rule for tanh)."""
    relu = md._Deviation(theory.activation("relu"), 2.0, 0.0, 1.0)
    for t in (0.5, 0.1, 0.01):
        c = theory.correlation_map("relu", 1 - t, 1.0, 2.0, 0.0)
        assert relu(t)[0] == pytest.approx(1 - c.value, rel=1e-12)
    for t in (0.9e-4, 1e-5):
        assert relu.small(t)[0] == pytest.approx(relu.large(t)[0], rel=1e-14)
    sw = theory.critical_sigma_w2("tanh", 0.05, dps=20).value
    q = theory.fixed_point_q("tanh", sw, 0.05).value
    tanh = md._Deviation(theory.activation("tanh"), sw, 0.05, q)
    assert tanh.kind == "Taylor" and 1e-4 < tanh.switch < 0.1
    for t in (0.5 * tanh.switch, 0.9 * tanh.switch):
        assert tanh.small(t)[0] == pytest.approx(tanh._direct(t)[0], rel=1e-12)
    assert tanh(0.3)[0] == pytest.approx(1 - theory.correlation_map("tanh", 0.7, q, sw, 0.05).value, rel=1e-12)


def test_smooth_rates_power_law_on_the_edge_and_exponential_off_it():
    """On tanh's edge of chaos 1 − c^l ≈ A/l with A = 2/(σ_w² q* E φ″(√q* z)²) (the t² term of D, by Price's
    theorem); in the ordered phase 1 − c^l ∝ χ₁^l (rate −log χ₁)."""
    sw = theory.critical_sigma_w2("tanh", 0.05, dps=20).value
    q = theory.fixed_point_q("tanh", sw, 0.05).value
    d2 = theory.activation("tanh").derivative(2).mpmath
    e = mpmath.quad(lambda z: d2(math.sqrt(q) * z) ** 2 * mpmath.npdf(z), [-mpmath.inf, 0, mpmath.inf])
    fit = theory.asymptotic_rate(theory.correlation_trajectory("tanh", sw, 0.05, 0.5, 20000))
    assert fit.kind == "power" and fit.exponent.value == 1.0
    assert fit.constant.value == pytest.approx(2 / (sw * q * float(e)), rel=1e-6)
    ordered = theory.asymptotic_rate(theory.correlation_trajectory("tanh", 1.5, 0.05, 0.5, 1500))
    assert ordered.kind == "exponential"
    assert ordered.exponent.value == pytest.approx(-math.log(theory.chi_1("tanh", 1.5, 0.05).value), rel=1e-7)


def test_a_chaotic_trajectory_settles_on_c_star_and_a_length_trajectory_on_q_star():
    tr = theory.correlation_trajectory("tanh", 2.5, 0.05, 0.9, 10 ** 6)
    assert "settled" in tr.method
    assert tr.values[-1] == pytest.approx(theory.fixed_point_c("tanh", 2.5, 0.05).value, abs=1e-12)
    lq = theory.length_trajectory("tanh", 1.5, 0.05, 3.0, 10 ** 5)
    assert lq.values[-1] == pytest.approx(theory.fixed_point_q("tanh", 1.5, 0.05).value, rel=1e-12)


def test_a_wrong_puiseux_coefficient_moves_the_rate_off_nine_pi_squared_over_two(monkeypatch):
    """The t^{3/2} coefficient of ReLU's D(t) 1% too large: the fitted constant moves by ~2% (A = 4/κ²), far outside
    its error bar — the rate helper sees the deviation map's small-t branch."""
    real = md._puiseux.__wrapped__
    monkeypatch.setattr(md, "_puiseux", lambda key, order: tuple(c * (1.01 if i == 2 else 1.0)
                                                                  for i, c in enumerate(real(key, order))))
    fit = theory.asymptotic_rate(theory.correlation_trajectory("relu", 2.0, 0.0, 0.5, 20000))
    assert abs(fit.constant.value - 9 * math.pi ** 2 / 2) > 10 * fit.constant.error   # 0.86 against an error of 0.03


def test_bad_trajectory_inputs_are_one_line_errors():
    with pytest.raises(theory.DeepinitError, match="c0"):
        theory.correlation_trajectory("relu", 2.0, 0.0, 1.5, 10)
    with pytest.raises(theory.DeepinitError, match="depth"):
        theory.correlation_trajectory("relu", 2.0, 0.0, 0.5, -1)
    with pytest.raises(UndefinedQuantityError, match="q\\* = 0"):
        theory.correlation_trajectory("tanh", 0.8, 0.0, 0.5, 10)


def test_a_trajectory_refuses_negative_or_mismatched_relative_errors():
    """A Trajectory holds one entry per layer and relative errors ≥ 0 (NaN refused): the exact input layer of
    correlation_trajectory has error 0, and a negative error (or one too few entries) is a ValueError at construction,
    so a claim reading it crashes instead of comparing with a bound of the wrong sign."""
    import numpy as np
    from theory.meanfield_depth import Trajectory, correlation_trajectory
    tr = correlation_trajectory("tanh", 2.5, 0.05, 0.5, 20)
    assert tr.relative_error[0] == 0.0 and np.all(np.diff(tr.relative_error) >= 0)
    layers = np.arange(3)
    for rel in (np.array([-1.0, 0.0, 0.0]), np.array([0.0, np.nan, 0.0]), np.zeros(2)):
        with pytest.raises(ValueError, match="Trajectory"):
            Trajectory(layers, np.ones(3), None, rel, "test")
    with pytest.raises(ValueError, match="one entry per layer"):
        Trajectory(layers, np.ones(3), np.ones(2), np.zeros(3), "test")
