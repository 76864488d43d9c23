"""The theory quantities a claim consumes, and the one place where a perturbation is injected.

Every paper declares the quantities its statements depend on (:meth:`verify.api.Paper.quantity`, namespaced
``paper:name``: bn-finite-width's b*, c*; bn-mean-field's q*, c*, λ_𝕃, λ_𝕄, λ_max; the isometry paper's β_σ and σ̂;
the covariance-SDE paper's ν, μ_ReLU, σ², the explosion criterion …) and every claim the ones it depends on
(``Claim.depends_on``). A check consumes each through its handle (``handle.scaled(value)``, ``handle.delta()``),
exactly where its statement uses it — never on the independent route it is compared with (Monte Carlo, a
finite-width network, the paper's printed form evaluated separately). While a perturbation is active
(``perturbed({"bn-mean-field:c*": 0.05})``) the handle scales the quantity by (1 + δ). The runner uses this for the
negative controls and ``--sensitivity``; the mutation tests use it to prove that a 5% error turns each verdict.
This module holds only that machinery and the names: it knows no paper and computes nothing.

A name is resolved (:func:`resolve`) as ``paper:name``, as a declared alias, or bare (``beta``, ``c*``): a bare name
stands for that quantity in every paper that declares it.

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
from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass(frozen=True)
class Quantity:
    """A named theory quantity: its symbol, what it is, the theory function that computes it."""

    name: str
    symbol: str
    meaning: str
    source: str
    aliases: tuple[str, ...] = ()


#: ``paper:name`` → its declaration, filled by the papers as they are imported
QUANTITIES: dict[str, Quantity] = {}
_ALIAS: dict[str, str] = {}   # ``paper:alias`` → ``paper:name``


def register_quantity(q: Quantity) -> None:
    """Add a paper's declared quantity (``paper:name``; :meth:`verify.api.Paper.quantity` is the way to call this).
    Its ``aliases`` are other names of it in the same paper (``q.aliases``: bare, namespaced on registration)."""
    if ":" not in q.name:
        raise ValueError(f"a paper's quantity is namespaced 'paper:name', not {q.name!r}")
    paper = q.name.split(":", 1)[0]
    names = [q.name] + [f"{paper}:{a}" for a in q.aliases]
    if any(n in QUANTITIES or n in _ALIAS for n in names):
        raise ValueError(f"quantity {q.name!r} declared twice")
    QUANTITIES[q.name] = q
    for n in names[1:]:
        _ALIAS[n] = q.name


def resolve(name: str) -> tuple[str, ...]:
    """The registered quantities ``name`` stands for: ``paper:name`` or ``paper:alias`` → that one; a bare name →
    that quantity of every paper that declares it (by name or alias); an unknown name → ``()``.

    Examples
    --------
    >>> from verify import quantities as Q, registry
    >>> registry.load_papers()
    >>> Q.resolve("isometry:beta"), Q.resolve("beta")
    (('isometry:beta',), ('isometry:beta',))
    >>> [q for q in Q.resolve("c*") if q.split(":")[0] in registry.paper_keys()[:4]]    # the built-in papers'
    ['bn-finite-width:c*', 'bn-mean-field:c*']
    >>> Q.resolve("bn-mean-field:b*"), Q.resolve("no-such")
    (('bn-mean-field:q*',), ())
    """
    if name in QUANTITIES:
        return (name,)
    if name in _ALIAS:
        return (_ALIAS[name],)
    if ":" in name:
        return ()
    out = [q for q in QUANTITIES if q.split(":", 1)[1] == name]
    out += [t for a, t in _ALIAS.items() if a.split(":", 1)[1] == name and t not in out]
    return tuple(sorted(out))


def canonical(name: str) -> str:
    """The registered name of a quantity when ``name`` stands for exactly one (``bn-mean-field:b*`` →
    ``bn-mean-field:q*``, ``beta`` → ``isometry:beta``); any other name is kept as it is."""
    found = resolve(name)
    return found[0] if len(found) == 1 else name


def short(name: str, paper: str) -> str:
    """``name`` as a claim of ``paper`` shows it: its own paper's quantities without the ``paper:`` prefix.

    Examples
    --------
    >>> from verify.quantities import short
    >>> short("isometry:beta", "isometry"), short("bn-mean-field:q*", "isometry")
    ('beta', 'bn-mean-field:q*')
    """
    return name[len(paper) + 1:] if name.startswith(paper + ":") else name


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
    """``{name: δ}`` with every name resolved (:func:`resolve`; a bare name to every paper's quantity of that name,
    an unknown name kept); δ must be finite and > −1."""
    out = {}
    for k, v in (perturbation or {}).items():
        v = float(v)
        if not math.isfinite(v) or v <= -1:
            raise ValueError(f"a perturbation scales by (1 + δ): δ = {v!r} for {k!r} must be finite and > −1")
        for name in resolve(k) or (k,):
            out[name] = v
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


__all__ = ["QUANTITIES", "Quantity", "canonical", "delta", "describe", "memo", "normalise", "perturbed",
           "register_quantity", "resolve", "scaled", "short", "watch_consumption"]
