"""The theory quantities a claim consumes, and the one place where a perturbation is injected.

Every claim declares the quantities its statement depends on (``Claim.depends_on``): the BSB1 fixed point's
b* (≡ bn-mean-field's q*) and c*, the forward-Jacobian eigenvalues λ_𝕃, λ_𝕄, the gradient-explosion rate
λ_max, the isometry strength β_σ, the covariance-SDE drift ν, the ReLU chain's μ_ReLU, the explosion
criterion, the dual kernel σ̂ …, and also the printed constants its check compares with (a predicted exponent,
a rate). A check obtains each of them through an accessor of this module (``gstar``, ``bsb1_fixed_point``,
``gradient_explosion_rate``, ``beta`` …). While a perturbation is active
(``perturbed({"c*": 0.05})``), the accessor returns the quantity scaled by (1 + δ) — exactly where the check
consumes it, never on the independent route it is compared with (Monte Carlo, a finite-width network,
the paper's printed form evaluated separately). The runner uses this for the negative controls and for
``--sensitivity``; the mutation tests use it to prove that a 5% error turns each verdict.

The active state lives in a :class:`contextvars.ContextVar`, so a check never has to pass it around and
concurrent checks (threads, tasks) do not see each other's perturbations. The state also records which
quantities a check consumed (a test asserts that this equals what the claim declares) and memoises
expensive computations that do not depend on any perturbed quantity, so that the perturbed reruns of a
control or a sensitivity scan reuse the check's simulations exactly (same seed, same numbers).
"""
from __future__ import annotations

import contextlib
import contextvars
import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np

import theory
from theory import covariance_sde as _tcs


@dataclass(frozen=True)
class Quantity:
    """A named theory quantity: its symbol, what it is, the theory function that computes it."""

    name: str
    symbol: str
    meaning: str
    source: str
    aliases: tuple[str, ...] = ()


QUANTITIES: dict[str, Quantity] = {q.name: q for q in (
    Quantity("b*", "b* (= q*)", "scale of the BSB1 fixed point G* = b*((1−c*)I + c*11ᵀ) (bn-finite-width eq 16; "
             "bn-mean-field's q*, Theorem 4)", "theory.bsb1_fixed_point", aliases=("bn-mean-field:q*",)),
    Quantity("c*", "c*", "correlation of the BSB1 fixed point (bn-finite-width eq 16; bn-mean-field Theorem 4)",
             "theory.bsb1_fixed_point"),
    Quantity("lambda_L", "λ_𝕃", "forward-Jacobian eigenvalue on the 𝕃 eigenspace (bn-mean-field Theorem 6)",
             "theory.bn_jacobian_eigenvalues"),
    Quantity("lambda_M", "λ_𝕄", "forward-Jacobian eigenvalue on the 𝕄 eigenspace (bn-mean-field Theorem 6)",
             "theory.bn_jacobian_eigenvalues"),
    Quantity("lambda_max", "λ_max", "gradient-explosion rate, top eigenvalue of the backward map (bn-mean-field "
             "Theorem 7)", "theory.gradient_explosion_rate"),
    Quantity("beta", "β_σ", "isometry strength (isometry Definition 3)", "theory.isometry_strength"),
    Quantity("dual", "σ̂", "the dual activation / layer-norm mean-field map ρ ↦ σ̄(ρ)/σ̄(1) (isometry eq 10)",
             "theory.mean_reduced_dual"),
    Quantity("nu", "ν", "drift of the ReLU-like correlation SDE, ν(ρ) (covariance-sde eq 2.6 / Theorem 3.2)",
             "theory.covariance_sde.sde_drift_relu_like"),
    Quantity("mu_relu", "μ_ReLU", "drift of the ReLU Markov chain's correlation (covariance-sde eq 2.10)",
             "theory.covariance_sde.relu_chain_coefficients"),
    Quantity("sigma2_relu", "σ²", "variance Var(cφ(g)²) of the log-norm's Brownian motion for ReLU-like φ (covariance-sde "
             "eq 2.6; ReLU: 5)", "theory.covariance_sde.relu_like_constants"),
    Quantity("criterion", "(3/4)φ″(0)² + φ‴(0)", "the explosion criterion of Proposition 3.10 (covariance-sde)",
             "theory.covariance_sde.explosion_criterion"),
)}

_ALIAS = {a: q.name for q in QUANTITIES.values() for a in q.aliases}
BUILTIN = frozenset(QUANTITIES)


def register_quantity(q: Quantity) -> None:
    """Add a paper's declared quantity (``paper:name``; :meth:`verify.api.Paper.quantity` is the way to call this)."""
    if ":" not in q.name:
        raise ValueError(f"a paper's quantity is namespaced 'paper:name', not {q.name!r}")
    if q.name in QUANTITIES or q.name in _ALIAS:
        raise ValueError(f"quantity {q.name!r} declared twice")
    QUANTITIES[q.name] = q


def canonical(name: str) -> str:
    """The registered name of a quantity (``bn-mean-field:q*`` → ``b*``); any other name is kept as it is — a bare
    ``q*`` is not batch norm's b* (a plain MLP's q* is ``paper:q*`` in its own paper)."""
    return _ALIAS.get(name, name)


def describe(name: str) -> str:
    q = QUANTITIES.get(canonical(name))
    return f"{q.symbol} — {q.meaning}" if q else f"{name} (a printed constant of the statement)"


@dataclass
class _State:
    perturbation: dict[str, float] = field(default_factory=dict)
    consumed: set = field(default_factory=set)
    memo: dict = field(default_factory=dict)
    #: sets that :func:`watch_consumption` blocks collect consumed quantities into
    watchers: list = field(default_factory=list)


_STATE: contextvars.ContextVar[_State] = contextvars.ContextVar("deepinit_quantities", default=_State())


def normalise(perturbation: dict[str, float] | None) -> dict[str, float]:
    out = {}
    for k, v in (perturbation or {}).items():
        v = float(v)
        if not math.isfinite(v) or v <= -1:
            raise ValueError(f"a perturbation scales by (1 + δ): δ = {v!r} for {k!r} must be finite and > −1")
        out[canonical(k)] = v
    return out


_BASE: dict[str, float] = {}


def set_base_perturbation(perturbation: dict[str, float] | None) -> None:
    """A perturbation under every check of this process (``python -m verify --perturb beta=0.05``): a mutation test
    from the command line — the run must go red. Composed multiplicatively with the controls' own perturbations."""
    global _BASE
    _BASE = normalise(perturbation)


def base_perturbation() -> dict[str, float]:
    return dict(_BASE)


@contextlib.contextmanager
def perturbed(perturbation: dict[str, float] | None = None, memo: dict | None = None):
    """Run the body with the named quantities scaled by (1 + δ) (composed with the base perturbation, if any);
    yields the state (``.consumed``)."""
    p = normalise(perturbation)
    for k, d in _BASE.items():
        p[k] = (1 + p.get(k, 0.0)) * (1 + d) - 1
    state = _State(p, set(), memo if memo is not None else {})
    token = _STATE.set(state)
    try:
        yield state
    finally:
        _STATE.reset(token)


def delta(name: str) -> float:
    """The active relative perturbation δ of ``name``, recording that the check consumed it."""
    state = _STATE.get()
    key = canonical(name)
    state.consumed.add(key)
    for watcher in state.watchers:
        watcher.add(key)
    return state.perturbation.get(key, 0.0)


@contextlib.contextmanager
def watch_consumption():
    """Yield a set that collects the quantities consumed inside the block (also those the check consumed before it)."""
    state = _STATE.get()
    seen: set = set()
    state.watchers.append(seen)
    try:
        yield seen
    finally:
        state.watchers[:] = [w for w in state.watchers if w is not seen]


def scaled(name: str, value):
    """``value × (1 + δ_name)``: numbers, numpy arrays and sympy expressions alike."""
    d = delta(name)
    return value if d == 0.0 else value * (1 + d)


def memo(key, compute: Callable[[], Any]):
    """The value of ``compute()`` for ``key``, computed once per claim run (check, controls, sensitivity share
    it). Only for computations that consume no perturbable quantity: this is asserted — a computation that
    consumed one is not cached."""
    state = _STATE.get()
    if key in state.memo:
        return state.memo[key]
    before = set(state.consumed)
    value = compute()
    if state.consumed - before:
        return value  # it consumed a quantity: its value depends on the perturbation, never cache it
    state.memo[key] = value
    return value


# ---------------------------------------------------------------------------------------------
# Accessors: the theory functions the claims use, with the perturbation applied where they consume it
# ---------------------------------------------------------------------------------------------

def bsb1_fixed_point(act, batch_size: int, **bn):
    """The BSB1 fixed point (b* = q*, c*) of theory.bsb1_fixed_point (``bn``: eps, gamma, beta), b*, c* perturbed."""
    fp = theory.bsb1_fixed_point(act, batch_size, **bn)
    db, dc = delta("b*"), delta("c*")
    if db == 0.0 and dc == 0.0:
        return fp
    return replace(fp, q=fp.q * (1 + db), c=fp.c * (1 + dc))


gstar = bsb1_fixed_point  # bn-finite-width's name for the same fixed point (G*, eq 16)


def bn_jacobian_eigenvalues(act, batch_size: int):
    """λ_𝔾, λ_𝕃, λ_𝕄 of theory.bn_jacobian_eigenvalues, with λ_𝕃 and λ_𝕄 perturbed."""
    ev = theory.bn_jacobian_eigenvalues(act, batch_size)
    dl, dm = delta("lambda_L"), delta("lambda_M")
    if dl == 0.0 and dm == 0.0:
        return ev
    return replace(ev, L=ev.L * (1 + dl), M=ev.M * (1 + dm))


def gradient_explosion_rate(act, batch_size: int, **bn) -> float:
    """λ_max of theory.gradient_explosion_rate (``bn``: eps, gamma, beta), perturbed."""
    return scaled("lambda_max", float(theory.gradient_explosion_rate(act, batch_size, **bn)))


def isometry_strength(act):
    """β_σ of theory.isometry_strength (value and exact sympy form), perturbed."""
    b = theory.isometry_strength(act)
    d = delta("beta")
    if d == 0.0:
        return b
    import sympy as sp
    k = sp.nsimplify(1 + d, rational=True)
    return replace(b, value=b.value * (1 + d), exact=None if b.exact is None else b.exact * k,
                   method=b.method + f" (perturbed ×{1 + d:g})")


def beta(act) -> float:
    """β_σ (isometry Definition 3) as a float, perturbed."""
    return float(isometry_strength(act))


def dual_quadrature(act, r):
    """σ̂(ρ) by theory.dual_quadrature (2-D quadrature split at the kinks), perturbed. The unperturbed values are
    computed once per claim run (:func:`memo`): the check's controls and sensitivity reruns scale the same numbers."""
    grid = np.asarray(r, dtype=float)
    value = memo(("theory.dual_quadrature", theory.activation(act), grid.shape, grid.tobytes()),
                 lambda: theory.dual_quadrature(act, grid))
    return scaled("dual", np.array(value, copy=True) if isinstance(value, np.ndarray) else value)


def dual_normalised(act, r):
    """The layer-norm mean-field map ρ ↦ σ̄(ρ)/σ̄(1) (theory.numeric_dual(act).normalised), perturbed."""
    return scaled("dual", theory.numeric_dual(act).normalised(r))


def nu_relu_like(c_plus=_tcs.c_plus, c_minus=_tcs.c_minus):
    """ν(ρ) of the ReLU-like correlation SDE (sympy), perturbed."""
    return scaled("nu", _tcs.sde_drift_relu_like(c_plus, c_minus))


def relu_like_constants(s_plus, s_minus):
    """(c, σ²) of eq (2.6) for φ = s₊max(x,0) + s₋min(x,0) (sympy), σ² perturbed."""
    c, s2 = _tcs.relu_like_constants(s_plus, s_minus)
    return c, scaled("sigma2_relu", s2)


def nu_scale() -> float:
    """The factor (1 + δ_ν) by which the drift the SDE simulations use is scaled (numerics' ``nu_scale``)."""
    return scaled("nu", 1.0)


def mu_relu_scale() -> float:
    """The factor (1 + δ) by which μ_ReLU of the chain (2.10) is scaled (numerics' ``mu_scale``)."""
    return scaled("mu_relu", 1.0)


def relu_chain_numeric():
    """(μ_ReLU, σ²_ReLU) as numpy functions of ρ (theory.covariance_sde.relu_chain_numeric), μ_ReLU perturbed."""
    f_mu, f_s2 = _tcs.relu_chain_numeric()
    k = mu_relu_scale()
    return (f_mu if k == 1.0 else (lambda r: k * f_mu(r))), f_s2


def explosion_criterion(act, x0=0):
    """The criterion (3/4)φ″(0)² + φ‴(0) of theory.explosion_criterion, perturbed."""
    crit = _tcs.explosion_criterion(act, x0)
    d = delta("criterion")
    if d == 0.0:
        return crit
    return replace(crit, value=crit.value * (1 + d))


__all__ = ["QUANTITIES", "Quantity", "beta", "bn_jacobian_eigenvalues", "bsb1_fixed_point", "canonical", "delta",
           "describe", "dual_normalised", "register_quantity", "dual_quadrature", "explosion_criterion", "gradient_explosion_rate", "gstar",
           "isometry_strength", "memo", "mu_relu_scale", "normalise", "nu_relu_like", "nu_scale", "perturbed",
           "relu_chain_numeric", "relu_like_constants", "scaled", "watch_consumption"]
