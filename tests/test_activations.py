"""Activations: registry, whitelist parser (never eval), numeric callables, facts."""

import math

import numpy as np
import pytest
import sympy as sp
import torch
from hypothesis import given, strategies as st

import theory
from theory import ActivationError, UndefinedQuantityError


@pytest.mark.parametrize("name", theory.registered_names())
def test_numpy_torch_mpmath_agree(name):
    act = theory.activation(name)
    z = np.linspace(-6, 6, 97)
    a = act.numpy(z)
    b = act.torch(torch.tensor(z, dtype=torch.float64)).numpy()
    c = np.array([float(act.mpmath(v)) for v in z])
    assert np.allclose(a, b, rtol=1e-12, atol=1e-13)
    assert np.allclose(a, c, rtol=1e-12, atol=1e-13)


def test_torch_of_piecewise_activations_and_their_derivatives():
    """A Piecewise of three branches (hard tanh given as a sympy expression) in torch equals numpy and the closed
    form on every branch; the derivative of |x| − |x − 1|, which sympy writes with a branch on the points
    Eq(x, 0) | Eq(x, 1), drops that branch, so torch translates it (2 on (0, 1), 0 outside) and a network with
    backpropagation runs on it."""
    from theory.activations import x as X
    hard = theory.activation(sp.Piecewise((-1, X < -1), (X, X < 1), (1, True)))
    z = np.linspace(-3, 3, 61)
    ref = np.clip(z, -1, 1)
    assert np.array_equal(hard.numpy(z), ref)
    assert np.array_equal(hard.torch(torch.tensor(z, dtype=torch.float64)).numpy(), ref)
    d = theory.activation("abs(x) - abs(x-1)").derivative()
    assert not d.expr.has(sp.Eq)
    w = np.array([-2.0, -0.5, 0.25, 0.5, 0.75, 1.5, 3.0])
    expect = np.where((w > 0) & (w < 1), 2.0, 0.0)
    assert np.allclose(d.torch(torch.tensor(w, dtype=torch.float64)).numpy(), expect, rtol=0, atol=1e-15)
    assert np.allclose(d.numpy(w), expect, rtol=0, atol=1e-15)
    from numerics import simulate_mlp
    run = simulate_mlp("abs(x) - abs(x-1)", 1.5, 0.1, 32, 3, np.eye(2, 16), seeds=[0, 1], device="cpu", backprop=True)
    assert np.all(np.isfinite(run.grad_sq)) and np.all(run.grad_sq > 0)


def test_breakpoints_and_facts():
    assert theory.activation("relu").breakpoints == (0.0,)
    assert theory.activation("tanh").breakpoints == ()
    assert theory.activation("celu").breakpoints == (0.0,)
    assert theory.activation("max(2*x - 1, 0)").breakpoints == (0.5,)
    assert theory.activation("relu").homogeneity_degree == 1.0
    assert theory.activation("step").homogeneity_degree == 0.0
    # any real degree, both signs of x: max(x,0)^1.5, |x|^0.5, −x; none for an affine map with an offset or tanh
    assert theory.activation("max(x,0)**1.5").homogeneity_degree == 1.5
    assert theory.activation("abs(x)**0.5").homogeneity_degree == 0.5
    assert theory.activation("-x").homogeneity_degree == 1.0 and theory.activation("x**3").homogeneity_degree == 3.0
    assert theory.activation("2*x + 1").homogeneity_degree is None and theory.activation("tanh").homogeneity_degree is None
    assert theory.activation("max(x,0)**1.5 + max(x,0)**2").homogeneity_degree is None   # two degrees: not homogeneous
    assert theory.activation("tanh").parity == "odd"
    assert theory.activation("cos").parity == "even"
    assert theory.activation("2*x + 3").is_affine
    assert not theory.activation("x + x**2").is_affine
    assert theory.activation("tanh").derivative_at_zero(1) == 1
    assert theory.activation("relu").derivative_at_zero(1) is None


def test_user_formula_equals_registry_expression():
    assert sp.simplify(theory.activation("x*sigmoid(x)").expr - theory.activation("silu").expr) == 0
    assert theory.activation("x^2").expr == theory.activation("x**2").expr


@pytest.mark.parametrize("bad,fragment", [
    ("foo(x)", "function 'foo' is not allowed"),
    ("__import__('os').system('true')", "not allowed"),
    ("x.real", "not allowed"),
    ("x +", "malformed"),
    ("y + 1", "name 'y' is not allowed"),
    ("lambda: 1", "not allowed"),
    ("[x]", "not allowed"),
    ("x**1000", "too large"),
    ("exp(x, 2)", "exp takes 1 argument(s), got 2"),
    ("'x'", "not allowed"),
])
def test_parser_rejects_with_clear_message(bad, fragment):
    with pytest.raises(ActivationError) as exc:
        theory.activation(bad)
    assert fragment in str(exc.value)


def test_unknown_name_lists_near_matches():
    with pytest.raises(ActivationError, match="did you mean.*relu"):
        theory.activation("rellu")


def test_not_square_integrable_and_constant():
    with pytest.raises(ActivationError, match="not square-integrable"):
        theory.activation("exp(x**2)")
    with pytest.raises(ActivationError, match="not square-integrable"):
        theory.activation("exp(x**2/4)")
    theory.activation("exp(x**2/5)")  # integrable: E exp(2x²/5) < ∞
    with pytest.raises(ActivationError, match="constant"):
        theory.isometry_strength("3")  # a constant user formula is refused when it is read (README)
    with pytest.raises(UndefinedQuantityError):
        theory.variance("he0")


@given(st.text(max_size=40))
def test_parser_never_crashes_on_arbitrary_text(text):
    try:
        theory.parse_formula(text)
    except ActivationError:
        pass


@given(st.lists(st.sampled_from(["x", "1", "2.5", "+", "-", "*", "/", "(", ")", "tanh(", "exp(", "**", "abs(",
                                 "max(", ",", "pi", "sin("]), max_size=12))
def test_parser_on_token_soup(tokens):
    try:
        e = theory.parse_formula("".join(tokens))
        assert e.free_symbols <= {sp.Symbol("x", real=True)}
    except ActivationError:
        pass
    except (ZeroDivisionError, OverflowError):
        pytest.fail("arithmetic errors must surface as ActivationError")


def test_the_growth_probe_takes_logs_of_huge_numbers_in_log_space():
    """log(1 + e^{x³}) ~ x³ is square-integrable: the probe evaluates the log of a number beyond e^10000 in log space
    (log-sum-exp of the sum's terms, e^u → u, cosh u → |u| − log 2) instead of refusing it as growing too fast; a log
    whose argument could cancel is refused as undecided, never as not square-integrable."""
    import mpmath
    from theory.formula import GrowthUndecided, growth_probe, parse_formula
    with mpmath.workdps(30):
        v = growth_probe(parse_formula("log(1 + exp(x**3))"), 80)
        assert abs(v - 512000) < 1e-20                                    # log(1 + e^512000) = 512000 + e^−512000
        w = growth_probe(parse_formula("log(exp(x**3) + exp(x**2))"), 40)
        assert abs(w - 64000) < 1e-20
        c = growth_probe(parse_formula("log(cosh(x**3))"), -40)
        assert abs(c - (64000 - mpmath.log(2))) < 1e-20
        with pytest.raises(GrowthUndecided):   # huge terms of both signs: which wins is beyond the probe
            growth_probe(parse_formula("log(exp(x**3) - exp(x**3/2) + 2)"), 80)
    assert theory.activation("log(1 + exp(x**3))").expr.has(sp.exp)
    # a bounded function of such a sum: its limit is ±1 by the winning term, never by the first one the probe meets
    with pytest.raises(theory.ActivationError, match="cannot decide"):
        theory.activation("tanh(exp(x**3) - exp(x**3/2))")


def test_bounded_functions_of_huge_arguments_take_their_limits():
    """The growth probe evaluates tanh, erf, erfc, atan, sign and Heaviside of an argument beyond e^EXP_GUARD by
    their limits at ±∞; the value matters where the bounded function multiplies a growth rate: σ =
    exp(x² atan(e^{x³})/8) grows like e^{πx²/16}, square-integrable (e^{πx²/8 − x²/2} decays), and is accepted."""
    import mpmath
    from theory.formula import growth_probe, parse_formula
    with mpmath.workdps(30):
        limits = {"tanh": (1, -1), "erf": (1, -1), "erfc": (0, 2), "atan": (mpmath.pi / 2, -mpmath.pi / 2),
                  "sign": (1, -1), "heaviside": (1, 0)}
        for f, (up, down) in limits.items():
            assert growth_probe(parse_formula(f"{f}(exp(x**3))"), 40) == up, f
            assert growth_probe(parse_formula(f"{f}(-exp(x**3))"), 40) == down, f
    act = theory.activation("exp(x**2*atan(exp(x**3))/8)")
    assert abs(float(act.numpy(np.array([2.0]))[0]) - math.exp(4 * math.atan(math.exp(8)) / 8)) < 1e-12


@pytest.mark.parametrize("kind, gains", [("sin", (0.5, 2)), ("exp", (0.5, 1.5)), ("relu", (0.5, 2, -1.5))])
def test_gain_families_dual_kernels_at_gains_other_than_one(kind, gains):
    """Each gain family's closed-form dual E σ(u)σ(v) (unit variances, correlation ρ) equals the nested quadrature
    at gains ≠ 1, where a wrong power of α (α³ for α², say) shows: at α = 1 every power is 1."""
    from theory import gain_family
    from theory.activations import rho
    from theory.gaussian import bivariate_expectation
    for a in gains:
        act = gain_family(kind, a)
        for r in (-0.7, 0.2, 0.95):
            closed = float(act.dual_closed_form.subs(rho, sp.Rational(r).limit_denominator(100)))
            ref = bivariate_expectation(act, act, 1.0, 1.0, r)
            assert abs(closed - ref.value) <= 1e-10 * max(1.0, abs(ref.value)) + 10 * ref.error, (kind, a, r)


@pytest.mark.parametrize("name", [n for n in theory.registered_names()
                                  if theory.activation(n).dual_closed_form is not None])
def test_registry_dual_kernels_equal_the_quadrature(name):
    """Every registered activation's closed-form dual E σ(u)σ(v) (unit variances, correlation ρ) against the nested
    quadrature at ρ = −0.7, 0.2, 0.95: each term of a dual (leaky ReLU's two arc-cosine terms, say) matters at some ρ."""
    from theory.activations import rho
    from theory.gaussian import bivariate_expectation
    act = theory.activation(name)
    for r in (-0.7, 0.2, 0.95):
        closed = float(act.dual_closed_form.subs(rho, sp.Rational(r).limit_denominator(100)))
        ref = bivariate_expectation(act, act, 1.0, 1.0, r)
        assert abs(closed - ref.value) <= 1e-10 * max(1.0, abs(ref.value)) + 10 * ref.error, (name, r)


@pytest.mark.parametrize("formula, native", [
    ("relu", torch.relu), ("max(x, 0)", torch.relu), ("tanh", torch.tanh), ("erf", torch.erf),
    ("sigmoid", torch.sigmoid), ("silu", torch.nn.functional.silu), ("x*sigmoid(x)", torch.nn.functional.silu),
    ("gelu", torch.nn.functional.gelu), ("x*(1 + erf(x/sqrt(2)))/2", torch.nn.functional.gelu),
    ("sin", torch.sin), ("cos", torch.cos), ("exp", torch.exp)])
def test_common_activations_compile_to_torchs_own_kernel(formula, native):
    """torch_callable maps an expression that is exactly a common activation — by name or as a user formula — to
    torch's fused kernel (30× faster than the expression tree for the exact GELU at 10⁶ float32 numbers), and the
    kernel's values equal the expression tree's (the generic translation) to rounding."""
    from theory._torch_lambdify import torch_callable
    from theory.activations import x
    act = theory.activation(formula)
    fn = torch_callable(act.expr, x)
    assert fn is native, (formula, fn)
    t = torch.linspace(-6, 6, 2001, dtype=torch.float64)
    assert torch.allclose(fn(t), torch.as_tensor(act.numpy(t.numpy())), rtol=1e-14, atol=1e-15)


def test_small_breakpoint_expressions_are_simplified_and_large_ones_left_alone():
    """_cheap_simplify runs sympy's simplify on an expression of at most 12 operations (sin² + cos² + (x+1)² − x² − 2x,
    12 operations, becomes 2) and returns a larger one unchanged (simplify can take minutes on large expressions)."""
    from theory.activations import _cheap_simplify, x
    at_limit = sp.sin(x) ** 2 + sp.cos(x) ** 2 + (x + 1) ** 2 - x ** 2 - 2 * x
    assert sp.count_ops(at_limit) == 12 and _cheap_simplify(at_limit) == 2
    larger = at_limit + sp.log(2 * sp.exp(x))
    assert sp.count_ops(larger) > 12 and _cheap_simplify(larger) is larger
    assert _cheap_simplify(sp.sinh(x) ** 2 - sp.cosh(x) ** 2) == sp.sinh(x) ** 2 - sp.cosh(x) ** 2


def test_derivatives_name_their_order():
    """φ.derivative(k) is named φ with k primes and described as the derivative of order k (the text a claim's
    evidence and an error message show), for k = 1, 2, 3 and a kinked φ (whose Dirac masses are dropped)."""
    relu = theory.activation("relu")
    for k, primes in ((1, "′"), (2, "″"), (3, "‴")):
        d = relu.derivative(k)
        assert d.name == "relu" + primes
        assert d.description == f"derivative of order {k} of relu (Dirac masses at kinks dropped)"


def test_the_sign_of_a_huge_integer_power_of_a_negative_number():
    """x^k at x = −10⁷⁰ with k = 60…63 is beyond e^EXP_GUARD (k·161 > 10⁴): the probe carries its sign, (−1)^k,
    into the bounded function around it — tanh(x^k) → (−1)^k — and +1 at x = +10⁷⁰."""
    import mpmath
    from theory.formula import growth_probe, parse_formula
    with mpmath.workdps(30):
        for k in (60, 61, 62, 63):
            assert growth_probe(parse_formula(f"tanh(x**{k})"), mpmath.mpf("-1e70")) == (-1) ** k, k
            assert growth_probe(parse_formula(f"tanh(x**{k})"), mpmath.mpf("1e70")) == 1, k
