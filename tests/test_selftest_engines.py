"""The engine-path canaries of the self-test (verify.selftest_engines): every one as known on the real code, and each
operator mutant of the sampled run at bff6162 (docs/mutation.md) that no claim's verdict saw, on a path it covers,
now fails its named canary — so `verify all` exits 4 on it."""
from __future__ import annotations

import functools
import sys

import pytest

import theory
import theory.bn_meanfield
import theory.covariance_sde
import theory.isometry
from conftest import failed_canaries, source_mutant
from numerics import bn_chain, bn_kernels, bn_layer, bn_meanfield, ensembles, covariance_sde, isometry_mlp, mlp, training
from theory import (_torch_lambdify, fixed_points, formula, gaussian, hermite, jacobian_density_smooth, kernels,
                    meanfield_depth, meanfield_mlp, results, validate)
from theory.activations import Activation
from verify import selftest
from verify.cli import main
from verify.selftest_engines import engine_canaries


def test_every_engine_canary_is_as_known():
    got = engine_canaries(selftest.Canary)
    assert [c.name for c in got if not c.passed] == []
    assert len(got) == 50
    # one canary by name (what the rows below run): that one alone, as known
    one = engine_canaries(selftest.Canary, {got[3].name})
    assert [(c.name, c.passed) for c in one] == [(got[3].name, True)]


ROUTES = "the kernel routes of ReLU, leaky ReLU, |x|, step, sign, erf, sin, cos, GELU, x, tanh, 2·erf(3x), sin(2x)"
LINEAR = "a linear network's tangents along x vs its kernel's diagonal; twin inputs' gradients"
BN_INPUT = "BN gradients of a given input x and of 2x: layer 1 scaled by 4 and ¼, later layers equal"
EDGE = "an Estimate's relative error at 0 ± 0, 0 ± 1e-3, −2 ± 1e-3; Hermite values at k_max = 1"
ERF = "erf's q*, c*, χ₁, χ_c, ξ_q, ξ_c at σ_w² = 1.5, σ_b² = 0.05 vs the arcsine closed forms"


def _failed(only) -> dict:
    """The canaries named in ``only`` that are not as known (name: what they gave)."""
    return failed_canaries(engine_canaries, only)


# (module or class, attribute, old, new, the canary that must fail): the sample's one-line changes at bff6162
MUTANTS = [
    (validate, "gram_matrix", "safe = np.where(scale > 0, scale, 1.0)", "safe = np.where(scale > 1, scale, 1.0)",
     "a Gram with λ_min = −1e-6 λ_max at scales 1 and 1e-305, a PSD one at 1e-305"),
    (gaussian, "_radius", "if math.log(big) - r * r / 2 <", "if math.log(big) // r * r / 2 <",
     "the bivariate rule's radius for f = g = 1"),
    (meanfield_mlp, "_qstar", "            if s0 < 1:\n", "            if s0 < 0:\n",
     "q* of SiLU at σ_w² = 3, σ_b² = 0; critical points of x − tanh x at σ_b² = 0"),
    (meanfield_mlp, "_critical", "            if v > e:\n", "            if v > 0:\n",
     "q* of SiLU at σ_w² = 3, σ_b² = 0; critical points of x − tanh x at σ_b² = 0"),
    (fixed_points, "_secant", "if abs(x1 - x0) <= xtol * max(1, abs(x1)) or f1 == 0:",
     "if abs(x1 - x0) is not xtol * max(1, abs(x1)) or f1 == 0:", "x = cos x by the secant and by Illinois"),
    (formula, "_ev", "if b < 0 and not (e.exp.is_Integer", "if b < -1 and not (e.exp.is_Integer",
     "the growth probe of √x, ∛x, x², tanh(x¹⁰⁰⁰¹), tanh(x¹⁰⁰⁰⁰) at negative x"),
    # a survivor of the sample at 0da9794: a huge odd power of a negative base reported as positive
    (formula, "_ev", "raise GrowsTooFast(-1 if (b < 0", "raise GrowsTooFast(not 1 if (b < 0",
     "the growth probe of √x, ∛x, x², tanh(x¹⁰⁰⁰¹), tanh(x¹⁰⁰⁰⁰) at negative x"),
    (formula._Builder, "power", "return sp.Integer(0)", "return sp.Integer( -1)", "x + 0**2"),
    (covariance_sde, "simulate_covariance_sde", "rng.standard_normal((paths, m, m)) * math.sqrt(dt)",
     "rng.standard_normal((paths, m, m)) % math.sqrt(dt)",
     "the covariance SDE's own noise vs the seed's documented increments"),
    (bn_meanfield, "iterate_bn_meanfield", 'mc_tol = 0 if method == "laplace"', 'mc_tol = 0 if not method == "laplace"',
     "the Laplace route's converged and shape flags, recomputed"),
    # (a wrong closed form fails its confirmation against the bivariate rule: the kernels fall back to quadrature,
    # right but slow, and only the route's name shows it)
    (kernels._PiecewiseHomogeneous, "pair", "- 2 * a * b * (root - th * p.q12))", "- 1 * a * b * (root - th * p.q12))",
     ROUTES),
    (kernels._PiecewiseHomogeneous, "pair", "(root - th * p.q12)) / (2 * math.pi)", "(root - th * p.q12)) + (2 * math.pi)",
     ROUTES),
    (meanfield_depth, "length_trajectory", "np.arange(depth + 1) * 1e-12", "np.arange(depth / 1) * 1e-12",
     "the identity's length map vs its geometric closed form"),
    (training, "_isometry_arguments", "width − 1 = {width - 1} samples", "width − 1 = {width - 2} samples",
     "a one-sample probe of the isometry training, width 8"),
    (jacobian_density_smooth, "d2_rule", "np.linspace(-10, 10, panels + 1)", "np.linspace(not 10, 10, panels + 1)",
     "the general Jacobian-spectrum solver's mean vs the closed form"),
    # survivors of the sample at 5159536
    (gaussian, "bivariate_expectation", "if bound == 0.0 and q11 == 0.0:", "if bound == 0.0 and q11 >= 0.0:",
     "E[X² (1 + Y)] with Var Y = 0 and E[(1 + X) Y²] with Var X = 0"),
    (covariance_sde.CorrelationLaw, "cdf", "F[-1] = 1.0", "F[~1] = 1.0", "the correlation law's CDF in its last two cells"),
    (theory.covariance_sde, "explosion_criterion", "float(x0) - eps, float(x0) + eps", "float(x0) + eps, float(x0) + eps",
     "the explosion criterion of step and ReLU"),
    # a survivor of the sample at f5c4110
    (covariance_sde, "simulate_covariance_sde", 'times = np.arange(steps + 1) * dt if keep == "all"',
     'times = np.arange(steps + 1) ** dt if keep == "all"', "the covariance SDE's time grid, kept whole and last"),
    (theory.bn_meanfield, "bn_output_mean", "*, eps: float = 0.0,", "*, eps: float = -1.0,",
     "ReLU's BN output mean at B = 4 and 5 vs the sphere's marginal"),
    # more survivors of the sample at f5c4110: a closed form that failed its confirmation (the kernels unchanged,
    # by quadrature), error terms that swell or shrink, a scale ignored at 2, a default
    (kernels._PiecewiseHomogeneous, "pair_derivative", "+ 2 * a * b * th)", "+ 2 * a ** b * th)", ROUTES),
    (meanfield_mlp, "_xi", "+ 1e-16 / abs(ls)", "+ 1.0 / abs(ls)", ERF),
    (meanfield_mlp, "_xi", "slope.error / (s * ls * ls)", "slope.error * (s * ls * ls)", ERF),
    (covariance_sde, "covariance_drift", "nu = nu0 if scale == 1.0", "nu = nu0 if scale == 2.0",
     "the covariance SDE's drift at ν scales 2 and ½ and at a = 2"),
    (bn_chain, "simulate_bn_chain", "else 0.5 * np.eye(n) + 0.5", "else 0.5 + np.eye(n) + 0.5",
     "simulate_bn_chain's default input covariance is 0.5·I + 0.5"),
    # the MLP simulator's tangent norms and its exact method's pseudo-inverse backward (no built-in claim runs either)
    (mlp, "_run", "tans.append((t * t).sum(1) / N)", "tans.append((t * t).sum(1) + N)", LINEAR),
    (mlp, "_gram_solver", "torch.linalg.pinv(B[bad].transpose(1, 2) @ B[bad]",
     "torch.linalg.pinv(B[bad].transpose(1, 3) @ B[bad]", LINEAR),
    # a survivor of the sample at f5c4110: the exact method also builds the dense method's inputs, which exist only
    # for d > n (no claim simulates at d ≤ n; moved.py: its 9 claims moved 0 of 517 numbers)
    (isometry_mlp, "_layers", '    X = None\n    if method == "dense":', '    X = None\n    if method >= "dense":',
     "the isometry MLP's exact method at width d = n = 5"),
    # two survivors of the sample at f5c4110 on the given-input path of the BN gradient simulator (no claim gives one):
    # a valid input refused
    (bn_meanfield, "simulate_bn_gradients", "or not bool(torch.isfinite(x0).all())", "or bool(torch.isfinite(x0).all())",
     BN_INPUT),
    (bn_meanfield, "simulate_bn_gradients", "if x0.ndim != 2 or x0.shape[0] != B or not",
     "if not x0.ndim != 2 or x0.shape[0] != B or not", BN_INPUT),
    # and a given input ignored (the class "a simulator that ignores one of its parameters")
    (bn_meanfield, "_gradient_chunk", "    if x0 is None:\n", "    if x0 is not None or True:\n", BN_INPUT),
    # a survivor of the sample at 0da9794 (an error that swells: the variance floored at 1) and a dropped 1/n
    (bn_meanfield, "bn_meanfield_map_mc", "var = np.clip(s2 / samples - mean * mean, 0, None)",
     "var = np.clip(s2 / samples - mean * mean, 1, None)", "the BN map's Monte Carlo standard error for sign: se²·n + mean² = 1"),
    (bn_meanfield, "bn_meanfield_map_mc", "return mean, np.sqrt(var / samples)", "return mean, np.sqrt(var)",
     "the BN map's Monte Carlo standard error for sign: se²·n + mean² = 1"),
    # a survivor of the sample at 0da9794: erf's α² as α // α (1 at α = 1, the only α the route canary had), and the
    # same for the trigonometric route
    (kernels._Erf, "__init__", "self.k2, self.a2 = k * k, alpha * alpha", "self.k2, self.a2 = k * k, alpha // alpha",
     ROUTES),
    (kernels._Trig, "__init__", "kind, k * k, alpha * alpha", "kind, k * k, alpha // alpha", ROUTES),
    # survivors of the sample at 0da9794: the readout sized by the second layer, He₁ skipped at k_max = 1
    (mlp, "_run", "v = _fill((ws[-1],), gens", "v = _fill((ws[+1],), gens",
     "simulate_mlp's gradients through widths 8, 12, 16, dense and exact"),
    (hermite, "hermite_values", "    if k_max >= 1:\n", "    if k_max > 1:\n", EDGE),
    # the covariance map's rounding term with σ_b² in a floor division (a crash at σ_b² = 0, which no claim runs)
    (meanfield_mlp, "covariance_map", "1e-16 * abs(sw * e.value + sb)", "1e-16 * abs(sw * e.value // sb)",
     "the covariance map of ReLU at σ_b² = 0 vs the arc-cosine closed form"),
    # 2^{k/2} written 2·k/2 (equal at k = 2 and 4, the claims' orders); a negative non-integer power taken as integer
    (theory.covariance_sde, "relu_bivariate_moment", "radial = sp.Integer(2) ** sp.Rational(k, 2)",
     "radial = sp.Integer(2) * sp.Rational(k, 2)", "E relu(x) and E relu(y)³ by the polar closed form (odd orders)"),
    (_torch_lambdify, "torch_callable", "if p == int(p):", "if p <= int(p):",
     "the torch callable of (1 + x²)^(−3/2) vs numpy's"),
    # σ(0) > 0 no longer recentred: the same criterion, the wrong φ stated
    (theory.covariance_sde, "explosion_criterion", "if x0 != 0 or f0 != 0 or d1 != 1:",
     "if x0 != 0 or f0 < 0 or d1 != 1:", "the explosion criterion of exp, recentred"),
    # a survivor of the 0da9794 sample no claim reached: the sub-batch branch's bias taken modulo (β = 0: NaN)
    (training._SubBatchNorm, "forward", "return out * self.weight + self.bias", "return out * self.weight % self.bias",
     "the BN trainers' sub-batch normalisation vs torch's batch_norm per sub-batch"),
    # survivors of the 0da9794 sample: the exact layer's pseudo-inverse from the eigenvectors of 0.5 − 2K; the route
    # confirmation's negative covariance made positive; the last full batch of every epoch skipped
    (bn_meanfield, "_pinv_psd", "torch.linalg.eigh(0.5 * (K", "torch.linalg.eigh(0.5 - (K",
     "the exact Gaussian layer's pseudo-inverse against the Penrose equations, rank 3 of 5 and scale 1e-3"),
    (kernels, "_confirmed", "(0.3, 2.0, -0.6)", "(0.3, 2.0, - -0.4)",
     "ReLU's arc-cosine kernel route confirmed; the same at |q₁₂| refused"),
    (training, "_train_isometry", "for pos in range(0, n - B + 1, B):", "for pos in range(0, n - B ** 1, B):",
     "the isometry trainer's first epoch over 15 samples in batches of 15 and of 5"),
    # the Dirac term's exponent −b² written ~b·b (an mpf has no ~)
    (meanfield_mlp, "_moment", "mpmath.exp(-bm * bm / (2 * qm))", "mpmath.exp(~bm * bm / (2 * qm))",
     "E φ″φ of |x − 1| + 1 at q = 2: the kink's Dirac mass by hand"),
    # the default batch axis −2; a negative finite factor's sign lost past the guard; erfc's limits 1 ** s; a
    # trajectory settled at its first step away from 1; the PSD check on the largest eigenvalue twice
    (bn_layer, "batch_norm_and_variance", "dim: int = -1)", "dim: int = ~1)",
     "batch_norm_and_variance of a 3 × 4 input along its default axis"),
    (formula, "_ev", "raise GrowsTooFast(huge * (1 if out > 0 else -1))",
     "raise GrowsTooFast(huge * (1 if out > -1 else -1))",
     "the growth probe of erfc(x¹⁰⁰⁰⁰), erfc(−x¹⁰⁰⁰⁰), Heaviside(−x¹⁰⁰⁰⁰/2) at 8"),
    (formula, "_ev", "sp.erfc: 1 - s,", "sp.erfc: 1 ** s,",
     "the growth probe of erfc(x¹⁰⁰⁰⁰), erfc(−x¹⁰⁰⁰⁰), Heaviside(−x¹⁰⁰⁰⁰/2) at 8"),
    (meanfield_depth, "correlation_trajectory", "if new == prev or new < 1e-300:", "if new >= prev or new < 1e-300:",
     "sign's correlation trajectory from 0.99 vs (2/π) arcsin iterated"),
    (sys.modules["theory.isometry"], "isometry_gap", "validate.psd_eigenvalues(1 + mu[..., 0],",
     "validate.psd_eigenvalues(1 + mu[..., -1],",
     "the isometry gap of [[1, 1.2], [1.2, 1]]"),
    # an unreached survivor: the BN ensembles' sub-batch branch with β in a floor division (β = 0: inf/NaN)
    (ensembles, "_train_bn", "return out * gammas[l].unsqueeze(1) + betas[l].unsqueeze(1)",
     "return out * gammas[l].unsqueeze(1) // betas[l].unsqueeze(1)",
     "a BN ensemble member with sub-batches of 2 vs its solo run"),
    # a survivor of the sample at 0da9794: the radial rule's first panel weighted w % (T₀/2)^(α+1) (T₀ = 1 at scale 100)
    (sys.modules["theory.bn_meanfield"], "_radial_weight_rule", "ws = [w * (T0 / 2) ** (alpha + 1)",
     "ws = [w % (T0 / 2) ** (alpha + 1)",
     "the BN backward map's radial rule at scales 10⁻³ and 100 vs Γ moments and mpmath's Γ(−α, s)"),
    # a survivor of the sample at 43adb06: the BN forward map's variance floored at 1 (its standard error swells)
    (bn_kernels, "bn_forward_map_mc", "- mean * mean, 0, None)", "- mean * mean, 1, None)",
     "the BN forward map's Monte Carlo standard error for sign: se²·(n − 1) + mean² = 1"),
    # survivors of the sample at 43adb06: Illinois's bisection point (a % b)/2; Theorem 4's split point θ* from
    # B^(B − 2); the α-ReLU kernel's first half of an odd rule one node short; the odd part taken with sign 0
    (fixed_points, "illinois", "m = (a + b) / 2", "m = (a % b) / 2",
     "Illinois at the triple roots of (x − 0.7)³ and atan(x − 2)³"),
    (sys.modules["theory.bn_meanfield"], "_theorem4_float", "math.atan(1 / math.sqrt(B * (B - 2)))",
     "math.atan(1 / math.sqrt(B ** (B - 2)))",
     "Theorem 4's float θ-integrals for sign and ReLU at B = 4 vs the sphere-marginal quadrature"),
    (sys.modules["theory.bn_meanfield"], "alpha_relu_kernel", "d = L[..., None] * ((1 + y[:nodes // 2 + nodes % 2])",
     "d = L[..., None] * ((1 + y[:nodes // 2 - nodes % 2])",
     "the α-ReLU kernel with 31 nodes vs the arc-cosine closed forms at α = 0 and 1"),
    (hermite, "parity_zero_degrees", "for sign in (1, -1):", "for sign in (1, not 1):",
     "the parity degrees of tanh, ReLU and x + x²"),
    # the correlation SDE's last time steps + dt instead of steps·dt
    (covariance_sde, "simulate_correlation_sde", "else np.array([steps * dt])", "else np.array([steps + dt])",
     "the correlation SDE's time grid, kept whole and last"),
    # an explicit method overridden by the automatic choice (method > "auto": every explicit name sorts after it)
    (bn_meanfield, "iterate_bn_meanfield", 'if method == "auto":', 'if method > "auto":',
     "the BN mean-field map of ReLU by an explicit method 'mc' vs 'laplace'"),
]
_IDS = [f"{i}-{m[1]}" for i, m in enumerate(MUTANTS)]


@pytest.mark.parametrize("owner, attr, old, new, caught", MUTANTS, ids=_IDS)
def test_a_sampled_survivor_fails_its_engine_canary(monkeypatch, owner, attr, old, new, caught):
    func = getattr(owner, attr)
    # a memoised function: the mutant is compiled from the source (its decorator included: a fresh, empty cache)
    monkeypatch.setattr(owner, attr, source_mutant(getattr(func, "__wrapped__", func), old, new))
    assert caught in _failed({caught})


@pytest.fixture
def fresh_degrees():
    """The activations of the homogeneity canary without their cached degrees, before and after the test."""
    names = ("abs(x)", "x**2", "relu", "exp(x)")

    def clear():
        for name in names:
            theory.activation(name).__dict__.pop("homogeneity_degree", None)
    clear()
    yield
    clear()


def test_a_homogeneity_mutant_fails_its_canary(monkeypatch, fresh_degrees):
    """``not np.any(base != 0)`` → ``not np.any(base <= 0)``: an activation positive at every probe (|x|, x²) is
    reported as not homogeneous."""
    prop = source_mutant(Activation.homogeneity_degree.func, "if not np.any(base != 0):",
                         "if not np.any(base <= 0):")   # the source's decorator comes with it: a cached_property
    assert isinstance(prop, functools.cached_property)
    prop.__set_name__(Activation, "homogeneity_degree")
    monkeypatch.setattr(Activation, "homogeneity_degree", prop)
    name = "homogeneity degrees of |x|, x², ReLU, exp"
    assert _failed({name})[name] == "[None, None, 1.0, None]"


def test_a_relative_error_mutant_fails_its_canary(monkeypatch):
    """A survivor of the sample at 0da9794: ``relative_error`` at value 0 compared the error with 1 instead of 0 (an
    exact zero reported as infinitely uncertain, 0 ± 1 as exact)."""
    fget = source_mutant(results.Estimate.relative_error.fget, "return 0.0 if self.error == 0.0 else math.inf",
                         "return 0.0 if self.error == 1.0 else math.inf")
    assert isinstance(fget, property)        # the source's decorator comes with it
    monkeypatch.setattr(results.Estimate, "relative_error", fget)
    assert _failed({EDGE})[EDGE] == "(inf, inf, 0.0005, [[1.0, 1.0], [0.5, -2.0]])"


def test_verify_all_exits_4_on_an_engine_mutant(monkeypatch, capsys):
    owner, attr, old, new, caught = next(m for m in MUTANTS if m[1] == "_secant")
    monkeypatch.setattr(owner, attr, source_mutant(getattr(owner, attr), old, new))
    assert main(["all", "--paper", "isometry", "--budget", "quick", "-q"]) == 4
    assert f"  {caught}: must give" in capsys.readouterr().err
