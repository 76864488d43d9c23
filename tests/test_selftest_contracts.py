"""The contract canaries of the self-test (verify.selftest_contracts): every one as known on the real code, and each
operator mutant of the sampled run at 0da9794 (docs/mutation.md) that left every claim's verdict as it was and
changes what the engine states beside its values now fails its named canary — so `verify all` exits 4 on it."""
from __future__ import annotations

import pytest

from conftest import failed_canaries, source_mutant
from numerics import bn_kernels, bn_meanfield, ensembles, isometry_mlp, mlp, training
from theory import batchnorm, dual, formula, gaussian, hermite, kernels, meanfield_depth, meanfield_mlp, validate
from verify import selftest
from verify.cli import main
from verify.selftest_contracts import contract_canaries

RATE = "the rate of an exact power law 1 − c^l = 1/(l − ½)"
GUARDS = "the Marchenko–Pastur ratio, BN's β and equicorrelated inputs' c at their edges and past them"
TRAINER = "the BN trainers' batch of 2 and of 1, a constant sample's embedding"
MORE_GUARDS = ("a memory limit, a formula's number, one input of dimension 1 and the BN backward map's Δ at their "
               "edges")


def _failed(only) -> dict:
    """The canaries named in ``only`` that are not as known (name: what they gave)."""
    return failed_canaries(contract_canaries, only)


def test_every_contract_canary_is_as_known():
    got = contract_canaries(selftest.Canary)
    assert [c.name for c in got if not c.passed] == []
    assert len(got) == 15


# (module or class, attribute, old, new, the canary that must fail): survivors of the sample at 0da9794
MUTANTS = [
    # the standard error of a fit on exact data inflated by (max |u|)²; the exponential test's p_mid taken modulo
    (meanfield_depth, "_power_fit", "(1e-16 * float(np.max(np.abs(u)))) ** 2", "( 1.0 * float(np.max(np.abs(u)))) ** 2",
     RATE),
    (meanfield_depth, "asymptotic_rate", "p_mid = -math.log(t[lo] / t[max(lo // 10, 1)]) / math.log(",
     "p_mid = -math.log(t[lo] / t[max(lo // 10, 1)]) % math.log(", RATE),
    (meanfield_mlp, "depth_scales", "rate.error / (rate.value * math.log(rate.value) ** 2)",
     "rate.error * (rate.value * math.log(rate.value) ** 2)",
     "ξ_∇'s error vs the rate's error times |dξ/dr| by mpmath.diff"),
    (batchnorm, "distortion", "(lip_f + 2 * abs(lam) * R) * h / 2", "(lip_f + 2 * abs(lam) * R) * h - 2",
     "the strict order and gap of tanh's and GELU's distortion bounds at n = 8"),
    (dual.DualSeries, "mean_reduced", "c = self.c2[1:] if terms is None", "c = self.c2[ 0:] if terms is None",
     "tanh's mean-reduced dual series at ρ = ½ and 0 vs the bivariate rule"),
    (kernels._Quadrature, "_each", "-math.sqrt(q1[i] * q2[i])), math.sqrt(", "-math.sqrt(q1[i] % q2[i])), math.sqrt(",
     "the quadrature route's kernel of x + x² at correlation −0.6"),
    (isometry_mlp.IsometryMLPRun, "invariants", "-float(torch.linalg.eigvalsh(sym).min())) / scale",
     "-float(torch.linalg.eigvalsh(sym).min())) * scale", "the PSD invariant of 100·diag(1, −10⁻³)"),
    (bn_meanfield, "iterate_bn_meanfield", "/ np.linalg.norm(traj[-1])) if depth",
     "/ np.linalg.norm(traj[+1])) if depth",
     "the BN mean-field iteration's last-step change, recomputed"),
    (bn_meanfield, "bn_meanfield_map_fourier", "if w_eig.min() <= 1e-12 * w_eig.max():",
     "if w_eig.min() <= 1e-12 / w_eig.max():",
     "Theorem 3's Fourier form at eigenvalue ratios 5·10⁻¹³ and 10⁻¹⁰, scales 100 and 0.01"),
    (gaussian, "_bivariate_rule", "extra = [b / a1 for b in kf] if a1 > 0 else []",
     "extra = [b / a1 for b in kf] if a1 == 0 else []",
     "the hard tanh's bivariate moment off the default cuts vs nested mpmath"),
    # the branch label at c* = 2 and at c* = 0 (two survivors): "c* < 1" where c* = 1
    (meanfield_mlp, "correlation_stability", 'if cs.value == 1.0 else', 'if cs.value == 2.0 else',
     "correlation_stability's branch for tanh in the ordered phase"),
    (meanfield_mlp, "correlation_stability", 'if cs.value == 1.0 else', 'if cs.value == 0.0 else',
     "correlation_stability's branch for tanh in the ordered phase"),
    # the exact coefficients' list two short (range(k_max − 1))
    (hermite, "hermite_coefficients", "for k in range(k_max + 1)]", "for k in range(k_max - 1)]",
     "the exact Hermite coefficients of x² up to k = 3"),
    (batchnorm, "marchenko_pastur_cdf", "if not 0 < ratio <= 1:", "if not 0 <= ratio <= 1:", GUARDS),
    (validate, "bn_parameters", "if bounded and not abs(beta) <= 1e3:", "if bounded and not abs(beta) < 1e3:", GUARDS),
    (mlp, "inputs_with_moments", "-1.0 / max(n - 1, 1) <= c", "-1.0 - max(n - 1, 1) <= c", GUARDS),
    # survivors of the sample at 43adb06: a memory limit of 0 accepted (v > −1), a computed 1e-301 accepted (the
    # lower bound 1/(10 − 300) < 0), one input of dimension 1 refused (dim ≥ 2), a 3 × 3 Δ taken by the backward map
    # of a batch of 4 (the shape compared by tuple order), a member's excess taken modulo |b| instead of over it
    (validate, "memory_limit_gb", "if not (math.isfinite(v) and v > 0):", "if not (math.isfinite(v) and v > -1):",
     MORE_GUARDS),
    (formula, "_check_magnitude", "sp.Rational(1, 10 ** MAX_MAGNITUDE_LOG10)", "sp.Rational(1, 10 - MAX_MAGNITUDE_LOG10)",
     MORE_GUARDS),
    (mlp, "inputs_with_moments", 'validate.integer(dim, "dim", 1)', 'validate.integer(dim, "dim", 2)', MORE_GUARDS),
    (bn_kernels.BackwardOperator, "apply", "if D.shape[-2:] != (B, B) or", "if D.shape[-2:] > (B, B) or", MORE_GUARDS),
    (ensembles, "_relative_excess", "return float(np.max(excess / np.maximum(", "return float(np.max(excess % np.maximum(",
     "an ensemble member's relative excess over its solo run on known records"),
    # the dual's golden-section bracket from the grid's best point on (lams[i], not lams[i − 1]): GELU's bound 2e-2 loose;
    # the BN trainers' batch of 2 refused; a constant sample let through the embedding
    (batchnorm, "distortion", "lo_l, hi_l = lams[max(i - 1, 0)]", "lo_l, hi_l = lams[max(i ** 1, 0)]",
     "the strict order and gap of tanh's and GELU's distortion bounds at n = 8"),
    (training, "_bn_arguments", '"batch size", 2, len(ds.x_train))', '"batch size", 3, len(ds.x_train))', TRAINER),
    (isometry_mlp, "embedded_input_gram", "flat = np.nonzero(norms == 0)[0]", "flat = np.nonzero(norms < 0)[0]",
     TRAINER),
]
_IDS = [f"{i}-{m[1]}" for i, m in enumerate(MUTANTS)]


@pytest.mark.parametrize("owner, attr, old, new, caught", MUTANTS, ids=_IDS)
def test_a_sampled_survivor_fails_its_contract_canary(monkeypatch, owner, attr, old, new, caught):
    func = getattr(owner, attr)
    monkeypatch.setattr(owner, attr, source_mutant(getattr(func, "__wrapped__", func), old, new))
    assert caught in _failed({caught})


def test_the_guard_canary_names_the_edge_that_moved(monkeypatch):
    """BN's β at exactly 10³ refused: the canary's observation shows the refusal where the acceptance was."""
    owner, attr, old, new, _ = next(m for m in MUTANTS if m[1] == "bn_parameters")
    monkeypatch.setattr(owner, attr, source_mutant(getattr(owner, attr), old, new))
    assert "| DeepinitError: BN β = 1000.0: must be finite with |β| ≤ 1e3 |" in _failed({GUARDS})[GUARDS]


def test_verify_all_exits_4_on_a_contract_mutant(monkeypatch, capsys):
    owner, attr, old, new, caught = MUTANTS[3]
    monkeypatch.setattr(owner, attr, source_mutant(getattr(owner, attr), old, new))
    assert main(["all", "--paper", "isometry", "--budget", "quick", "-q"]) == 4
    assert f"  {caught}: must give" in capsys.readouterr().err
