"""Certificates over a whole interval, not only a sampled grid (isometry paper, Lemma A.7).

Lemma A.7 (eq 38) with σ̄ normalised so σ̄(1) = 1 reads, for ρ ∈ [0, 1),

    R(ρ) := [σ̄(ρ)/(1 − σ̄(ρ))] / [ρ/(1 − ρ)] = N(ρ)/D(ρ) ≤ 1/β_σ,
    N(ρ) = σ̄(ρ)/ρ = Σ_{k≥1} c_k² ρ^{k−1},   D(ρ) = (σ̄(1) − σ̄(ρ))/(1 − ρ) = Σ_{k≥1} c_k² (1 + ρ + … + ρ^{k−1}).

Both N and D are non-decreasing on [0, 1] (series with non-negative coefficients — Lemma A.6),
so on a cell [a, b]:  sup R ≤ N(b)/D(a).  Checking N(b) ≤ D(a)/β on a finite cover of [0, 1]
by cells (bisected where needed) proves the inequality on the whole interval, given enclosures of
σ̄ at the cell ends. Enclosures are Arb balls (python-flint) when σ̂ has a closed form — then the
certificate is rigorous — and value ± error estimate otherwise. Negative ρ follow from
|σ̄(ρ)| ≤ σ̄(|ρ|) (eq 52, again non-negative coefficients) and the monotonicity of t ↦ t/(1 − t).

Polynomial activations (σ̄ a polynomial) are decided exactly in sympy instead.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from .activations import Activation, activation, rho
from .dual import exact_moments, numeric_dual
from .gaussian import NotExact


# --------------------------------------------------------------------------------------------
# sympy → Arb
# --------------------------------------------------------------------------------------------

def arb_callable(expr: sp.Expr, var: sp.Symbol):
    """Evaluate a sympy expression in ``var`` on python-flint ``arb`` balls."""
    from flint import arb

    def build(e):
        if e == var:
            return lambda t: t
        if e.is_Integer:
            v = int(e)
            return lambda t: arb(v)
        if e.is_Rational:
            p, q = int(e.p), int(e.q)
            return lambda t: arb(p) / q
        if e is sp.pi:
            return lambda t: arb.pi()
        if e is sp.E:
            return lambda t: arb(1).exp()
        if e.is_Float:
            s = str(e)
            return lambda t: arb(s)
        if isinstance(e, sp.Add):
            parts = [build(a) for a in e.args]
            return lambda t: sum((p(t) for p in parts[1:]), parts[0](t))
        if isinstance(e, sp.Mul):
            parts = [build(a) for a in e.args]

            def mul(t):
                out = parts[0](t)
                for p in parts[1:]:
                    out = out * p(t)
                return out
            return mul
        if isinstance(e, sp.Pow):
            base = build(e.base)
            if e.exp == sp.Rational(1, 2):
                return lambda t: base(t).sqrt()
            if e.exp.is_Integer:
                k = int(e.exp)
                return lambda t: base(t) ** k
            ex = build(e.exp)
            return lambda t: base(t) ** ex(t)
        table = {sp.exp: "exp", sp.sqrt: "sqrt", sp.acos: "acos", sp.asin: "asin", sp.sinh: "sinh",
                 sp.cosh: "cosh", sp.sin: "sin", sp.cos: "cos", sp.log: "log", sp.atan: "atan"}
        if e.func in table:
            arg, name = build(e.args[0]), table[e.func]
            return lambda t: getattr(arg(t), name)()
        raise NotImplementedError(f"no Arb translation for {e.func}")

    return build(expr)


# --------------------------------------------------------------------------------------------
# enclosures of σ̄
# --------------------------------------------------------------------------------------------

class _Enclosure:
    """σ̄(ρ) ∈ [lo, hi] for ρ ∈ [0, 1], and σ̄(1) ∈ [lo, hi]. Each ρ is enclosed once (:meth:`at` keeps the interval):
    certifying against several β (a check and its ±δ controls) subdivides at the same dyadic points."""

    rigorous = False

    def __init__(self):
        self._intervals: dict[float, tuple[float, float]] = {}

    def at(self, r: float) -> tuple[float, float]:
        v = self._intervals.get(r)
        if v is None:
            v = self._intervals[r] = self._enclose(r)
        return v

    def _enclose(self, r: float) -> tuple[float, float]:
        raise NotImplementedError


class _ArbEnclosure(_Enclosure):
    rigorous = True

    def __init__(self, act: Activation, c0: sp.Expr):
        super().__init__()
        from flint import arb, ctx
        ctx.prec = 120
        self._arb = arb
        self._f = arb_callable(sp.simplify(act.dual_closed_form - c0 ** 2), rho)

    def _enclose(self, r: float):
        from flint import ctx
        ctx.prec = 120
        arb = self._arb
        if r == 0.0:
            return 0.0, 0.0  # σ̄(0) = 0 exactly (c_0² removed)
        v = self._f(arb(r))
        # ball → interval (outward rounding by one ulp of the radius)
        mid, rad = float(v.mid()), float(v.rad())
        return mid - rad - abs(mid) * 1e-16, mid + rad + abs(mid) * 1e-16


class _NumericEnclosure(_Enclosure):
    def __init__(self, act: Activation):
        super().__init__()
        self.dual = numeric_dual(act)
        self.err = max(self.dual.error, 1e-14 * self.dual.var)

    def _enclose(self, r: float):
        if r == 0.0:
            return 0.0, 0.0
        v = float(self.dual.bar(np.array([r]))[0])
        return v - self.err, v + self.err


def sigma_bar_enclosure(act: Activation) -> _Enclosure:
    """An enclosure of σ̄ on [0, 1]: Arb balls on the closed form (rigorous) when σ has one, else the numerical dual
    ± its error estimate; one per activation (built once, its intervals kept)."""
    return _enclosure(activation(act))


@functools.lru_cache(maxsize=256)
def _enclosure(act: Activation) -> _Enclosure:
    if act.dual_closed_form is not None:
        try:
            c0 = exact_moments(act)[0]
            return _ArbEnclosure(act, c0)
        except (NotExact, NotImplementedError):
            pass
    return _NumericEnclosure(act)


# --------------------------------------------------------------------------------------------
# the certificate
# --------------------------------------------------------------------------------------------

@dataclass
class RatioCertificate:
    """Outcome of certifying R(ρ) ≤ 1/β on [0, 1]."""

    activation: str
    inverse_beta: float
    certified: bool
    rigorous: bool
    method: str
    cells: int = 0
    max_ratio_bound: float = float("nan")     # max over cells of N(b)/D(a): an upper bound on sup R
    max_ratio_sampled: float = float("nan")   # max of R at sampled points: a lower bound on sup R
    argmax_sampled: float = float("nan")
    counterexample: float | None = None       # a ρ with R(ρ) > 1/β beyond the enclosure error
    strict: bool | None = None                # R(ρ) < 1/β strictly on the open interval (0, 1)
    uncovered: list = field(default_factory=list)

    @property
    def slack(self) -> float:
        """(1/β) / sup R ≥ 1 when the lemma holds (a lower bound on it from the cell bounds)."""
        return self.inverse_beta / self.max_ratio_bound if self.max_ratio_bound > 0 else float("inf")


def certify_lemma_a7(act, beta: float | sp.Expr, initial_cells: int = 128, max_cells: int = 20000,
                     min_width: float = 1e-9) -> RatioCertificate:
    """Certify R(ρ) ≤ 1/β on ρ ∈ [0, 1] for the activation (β given: the check may pass a wrong one)."""
    act = activation(act)
    inv_beta = 1.0 / float(beta)
    deg = act.polynomial_degree
    if deg is not None:
        return _certify_polynomial(act, beta)
    enc = sigma_bar_enclosure(act)
    s1_lo, s1_hi = enc.at(1.0)

    def D_lo(a):
        if a == 0.0:
            return s1_lo
        lo, hi = enc.at(a)
        return (s1_lo - hi) / (1 - a)

    # sampled ratio (a lower bound on sup R) and a search for counterexamples
    grid = 1 - np.logspace(-9, 0, 400)[::-1] + 1e-12
    grid = np.unique(np.clip(np.concatenate([np.linspace(1e-6, 1 - 1e-6, 800), grid]), 1e-9, 1 - 1e-12))
    dual = numeric_dual(act)
    sb = dual.bar(grid)
    Rs = (sb / grid) / ((dual.var - sb) / (1 - grid))
    imax = int(np.argmax(Rs))
    cert = RatioCertificate(act.name, inv_beta, False, enc.rigorous,
                            "Arb balls on the closed form (rigorous)" if enc.rigorous
                            else f"numerical enclosure ±{getattr(enc, 'err', 0):.1e} ({dual.method})",
                            max_ratio_sampled=float(Rs[imax]), argmax_sampled=float(grid[imax]))
    stack = [(i / initial_cells, (i + 1) / initial_cells) for i in range(initial_cells)][::-1]
    worst = 0.0
    processed = 0
    while stack:
        a, b = stack.pop()
        processed += 1
        if processed > max_cells:
            cert.uncovered.append((a, b))
            cert.uncovered += stack
            break
        n_hi = enc.at(b)[1] / b
        d_lo = D_lo(a)
        bound = n_hi / d_lo if d_lo > 0 else math.inf
        if bound <= inv_beta:
            worst = max(worst, bound)
            continue
        if b - a < min_width:
            # try to exhibit a violation at the midpoint (beyond the enclosure error)
            m = 0.5 * (a + b)
            lo_m, hi_m = enc.at(m)
            r_lo = (lo_m / m) / ((s1_hi - lo_m) / (1 - m))
            if r_lo > inv_beta:
                cert.counterexample = m
            cert.uncovered.append((a, b))
            worst = max(worst, bound)
            continue
        m = 0.5 * (a + b)
        stack += [(m, b), (a, m)]
    cert.cells = processed
    cert.max_ratio_bound = worst
    if cert.counterexample is None:
        bad = np.nonzero(Rs > inv_beta * (1 + 1e-12))[0]
        if bad.size:
            cert.counterexample = float(grid[bad[np.argmax(Rs[bad])]])
    cert.certified = not cert.uncovered and cert.counterexample is None
    cert.strict = cert.certified and worst < inv_beta
    return cert


def _certify_polynomial(act: Activation, beta) -> RatioCertificate:
    """Exact decision for polynomial σ: β N(ρ) − D(ρ) ≤ 0 on [0, 1] via real-root isolation."""
    from .hermite import exact_hermite_coefficient
    deg = act.polynomial_degree
    c2 = [sp.nsimplify(exact_hermite_coefficient(act, k) ** 2) for k in range(deg + 1)]
    var = sum(c2[1:])
    if var == 0:
        raise ValueError("constant activation")
    N = sum(c2[k] * rho ** (k - 1) for k in range(1, deg + 1))
    D = sum(c2[k] * sum(rho ** i for i in range(k)) for k in range(1, deg + 1))
    b = sp.nsimplify(beta) if not isinstance(beta, sp.Basic) else beta
    P = sp.expand(b * N - D)  # the lemma ⇔ P(ρ) ≤ 0 on [0, 1]
    pts = [sp.Integer(0), sp.Integer(1)]
    if P != 0 and sp.Poly(P, rho).degree() > 0:
        pts += [r for r in sp.Poly(P, rho).real_roots() if 0 <= r <= 1]
    pts = sorted(set(pts), key=lambda v: float(v))
    checks = [p for p in pts] + [(pts[i] + pts[i + 1]) / 2 for i in range(len(pts) - 1)]
    worst_val = max(float(P.subs(rho, p)) for p in checks) if P != 0 else 0.0
    certified = all(sp.simplify(P.subs(rho, p)) <= 0 for p in checks) if P != 0 else True
    # strict on (0, 1): no root of P strictly inside and P < 0 at the interior test points
    interior = [p for p in checks if 0 < float(p) < 1]
    strict = P != 0 and certified and all(float(P.subs(rho, p)) < 0 for p in interior)
    ratio = sp.lambdify(rho, N / D, "numpy")
    grid = np.linspace(0, 1, 2001)
    Rs = np.asarray(ratio(grid), dtype=float) * np.ones_like(grid)
    imax = int(np.argmax(Rs))
    cex = None
    if not certified:
        cex = float(max(checks, key=lambda p: float(P.subs(rho, p))))
    return RatioCertificate(act.name, 1.0 / float(b), certified, True,
                            f"exact polynomial inequality (sympy; max of βN − D on [0,1] = {worst_val:.3g})",
                            cells=0, max_ratio_bound=float(Rs[imax]), max_ratio_sampled=float(Rs[imax]),
                            argmax_sampled=float(grid[imax]), counterexample=cex, strict=bool(strict))
