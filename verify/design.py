"""``python -m verify design FAMILY --target …``: which parameter values of an activation family meet the targets.

A family is a whitelisted formula in ``x`` and one or two parameters (any other name, e.g. ``tanh(a*x)``,
``max(x, a*x)``, ``log(1+exp(x+x0))``, ``relu(x)**a``). A parameter value is put into the formula's syntax tree as a
number and the result goes through the same parser and limits as any user formula (:func:`family_member`), so
nothing is evaluated that a formula could not express.

Targets (:func:`parse_target`), decided by the ``theory`` functions the claims use:

* ``beta<=1.05`` (β_σ, Definition 3 of the isometry paper);
* ``lambda_max<=1.1@B=32``, ``16xi>=200@B=64``, ``q*``, ``c*``, ``lambda_L``, ``lambda_M`` at a batch size;
* ``bsb1=stable`` (max(λ_𝕃, λ_𝕄) < 1 at ``@B=``, default 32);
* ``sde=stable`` / ``sde=unstable`` (covariance-SDE criterion ¾φ″(0)² + φ‴(0) ≤ 0 / > 0, after recentring).

Search (one parameter): the margin of every target (≥ 0 where it is met) on a grid of the range, then each sign
change refined by bisection to a bracket of width ``tol``. Where the margin is monotone on the grid the feasible set is
an interval and said so; otherwise it is the union found on the grid (resolution: one grid step), and said so. The
SDE criterion is exact (sympy), so a boundary bracket [lo, hi] is certified by the exact sign of the criterion at its
two ends (30 digits). Two parameters: the grid only (feasible grid points and the best one). A target that no
value in the range meets is a clear answer, not an error.
"""
from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass, field

import numpy as np

from theory.errors import DeepinitError

QUANTITIES = ("beta", "lambda_max", "16xi", "q*", "c*", "lambda_L", "lambda_M")
_TARGET = re.compile(r"^\s*(?P<q>beta|lambda_max|16xi|q\*|c\*|lambda_L|lambda_M)\s*(?P<op><=|>=|<|>)\s*"
                     r"(?P<v>[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?)\s*(@\s*B\s*=\s*(?P<B>\d+))?\s*$")
_STATE = re.compile(r"^\s*(?P<q>sde|bsb1)\s*=\s*(?P<s>stable|unstable)\s*(@\s*B\s*=\s*(?P<B>\d+))?\s*$")


class DesignError(DeepinitError):
    """A family or target that cannot be used (a clear one-line message)."""


@dataclass(frozen=True)
class Target:
    text: str
    quantity: str            # beta, lambda_max, ..., sde, bsb1
    op: str                  # <=, >=, <, >, or "stable"/"unstable"
    value: float | None = None
    batch_size: int | None = None

    def margin(self, q: float) -> float:
        """≥ 0 where the target is met (for the ordered targets: the signed distance to the threshold)."""
        if self.op in ("<=", "<"):
            return self.value - q
        if self.op in (">=", ">"):
            return q - self.value
        raise ValueError(self.op)


def parse_target(text: str) -> Target:
    m = _STATE.match(text or "")
    if m:
        B = int(m.group("B")) if m.group("B") else (32 if m.group("q") == "bsb1" else None)
        if m.group("q") == "sde" and m.group("B"):
            raise DesignError(f"target {text!r}: the SDE criterion has no batch size")
        return Target(text.strip(), m.group("q"), m.group("s"), None, _check_B(B, text) if B else None)
    m = _TARGET.match(text or "")
    if not m:
        raise DesignError(f"target {str(text)[:80]!r} not understood: QUANTITY OP VALUE[@B=N] with QUANTITY one of "
                          f"{', '.join(QUANTITIES)} and OP one of <=, >=, <, > (e.g. 'lambda_max<=1.1@B=32', "
                          "'beta<=1.05'), or 'sde=stable', 'bsb1=stable@B=32'")
    q, B = m.group("q"), m.group("B")
    v = float(m.group("v"))
    if not math.isfinite(v):
        raise DesignError(f"target {text!r}: the value must be finite")
    if q == "beta" and B:
        raise DesignError(f"target {text!r}: β_σ has no batch size")
    if q != "beta" and not B:
        raise DesignError(f"target {text!r}: {q} depends on the batch size: add @B=N (e.g. {q}{m.group('op')}{v:g}@B=32)")
    return Target(text.strip(), q, m.group("op"), v, _check_B(int(B), text) if B else None)


def _check_B(B: int, text: str) -> int:
    if not 4 <= B <= 4096:
        raise DesignError(f"target {text!r}: B = {B} must be in [4, 4096]")
    return B


# --------------------------------------------------------------------------------------------- families

def family_parameters(text: str) -> list[str]:
    """The parameter names of a family formula: every name that is neither x nor an allowed constant or function."""
    from theory.formula import ALLOWED_FUNCTIONS, ALLOWED_NAMES, MAX_FORMULA_LENGTH
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_FORMULA_LENGTH:
        raise DesignError("a family is a non-empty formula of at most "
                          f"{MAX_FORMULA_LENGTH} characters, e.g. 'tanh(a*x)'")
    try:
        tree = ast.parse(text.strip().replace("^", "**"), mode="eval")
    except (SyntaxError, ValueError) as exc:
        raise DesignError(f"malformed family {text[:80]!r}: {getattr(exc, 'msg', exc)}") from None
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    for fn in sorted(called - set(ALLOWED_FUNCTIONS)):
        raise DesignError(f"function {fn[:30]!r} is not allowed in a family (the whitelist of activation formulas)")
    names = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id not in ALLOWED_NAMES and n.id not in called and n.id not in names:
            if n.id in ALLOWED_FUNCTIONS:
                raise DesignError(f"{n.id!r} is a function name and cannot be a parameter of {text[:80]!r}")
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{0,15}", n.id):
                raise DesignError(f"parameter name {n.id[:20]!r}: letters, digits and _ (at most 16)")
            names.append(n.id)
    if not names:
        raise DesignError(f"the family {text[:80]!r} has no parameter (a name other than x, pi, e); "
                          "use `python -m verify profile` for a single activation")
    if len(names) > 2:
        raise DesignError(f"the family {text[:80]!r} has {len(names)} parameters ({', '.join(names)}); at most 2")
    return names


class _Substitute(ast.NodeTransformer):
    def __init__(self, values: dict):
        self.values = values

    def visit_Name(self, node):
        if node.id in self.values:
            return ast.copy_location(ast.Constant(self.values[node.id]), node)
        return node


def family_member(text: str, values: dict):
    """The activation of the family at the parameter ``values``: the number is written into the formula's syntax
    tree and the result is parsed like any user formula (theory.formula's whitelist and limits)."""
    import theory
    tree = ast.parse(text.strip().replace("^", "**"), mode="eval")
    tree = ast.fix_missing_locations(_Substitute({k: float(v) for k, v in values.items()}).visit(tree))
    return theory.activation(ast.unparse(tree))


# --------------------------------------------------------------------------------------------- evaluation

def quantity(target: Target, act) -> float:
    """The target's quantity for one activation (float routes, as fast as the search needs)."""
    import theory
    from theory import bn_meanfield as tbm
    from theory.dual import float_moments
    if target.quantity == "beta":
        if act.is_constant:
            raise DeepinitError("β_σ is undefined for a constant activation")
        _, c1, var = float_moments(act)
        if var <= 0:
            raise DeepinitError("β_σ is undefined: Var σ = 0")
        return 2.0 - c1 * c1 / var
    if target.quantity == "sde":
        return float(theory.explosion_criterion(act).value)
    B = target.batch_size
    if target.quantity in ("lambda_max", "16xi"):
        lam = tbm.gradient_explosion_rate_error(act, B)[0]
        if target.quantity == "lambda_max":
            return lam
        return math.inf if lam <= 1 else 16.0 / math.log(lam)
    if target.quantity in ("q*", "c*"):
        fp = theory.bsb1_fixed_point(act, B)
        return fp.q if target.quantity == "q*" else fp.c
    ev = theory.bn_jacobian_eigenvalues(act, B)
    if target.quantity == "lambda_L":
        return float(ev.L)
    if target.quantity == "lambda_M":
        return float(ev.M)
    if target.quantity == "bsb1":
        return float(max(ev.L, ev.M))
    raise ValueError(target.quantity)


@dataclass
class SdeCriterion:
    """¾φ″(0)² + φ‴(0) of the recentred family, φ = (σ(x) − σ(0))/σ′(0), as a function of the parameter: derived
    once by sympy, evaluated by mpmath at 30 digits (so its sign at a bracket's ends is certain)."""

    expr: object
    fn: object
    exact_roots: list

    def __call__(self, v: float) -> float:
        import mpmath
        with mpmath.workdps(30):
            try:
                val = self.fn(mpmath.mpf(v))
            except (ZeroDivisionError, ValueError, OverflowError):
                return math.nan
            if not mpmath.isfinite(val) or mpmath.im(val) != 0:
                return math.nan
            return float(mpmath.re(val))


def sde_criterion_function(family: str, name: str, lo: float, hi: float) -> SdeCriterion | None:
    """None where the family has kinks (Max, Heaviside, …: per-member evaluation decides, like a built-in)."""
    import sympy as sp

    from theory.formula import parse_formula, time_limit, x
    expr = parse_formula(family, (name,))
    if expr.has(sp.Max, sp.Min, sp.Heaviside, sp.Piecewise, sp.Abs, sp.sign):
        return None
    a = sp.Symbol(name, real=True)
    d1 = sp.diff(expr, x).subs(x, 0)
    crit = sp.Rational(3, 4) * (sp.diff(expr, x, 2).subs(x, 0) / d1) ** 2 + sp.diff(expr, x, 3).subs(x, 0) / d1
    fn = sp.lambdify(a, crit, "mpmath")
    roots = []
    try:
        with time_limit(5.0, "solving the SDE criterion for its exact threshold"):
            for r in sp.solve(sp.numer(sp.together(sp.simplify(crit))), a):
                if r.is_real and lo <= float(r) <= hi:
                    roots.append(r)
    except Exception:  # noqa: BLE001 — no closed-form root (or too slow): the certified bracket stands alone
        roots = []
    return SdeCriterion(crit, fn, roots)


def margin(target: Target, act) -> float:
    """≥ 0 iff the target is met (NaN where the quantity is undefined)."""
    try:
        q = quantity(target, act)
    except DeepinitError:
        return math.nan
    if target.quantity == "sde":
        return -q if target.op == "stable" else q   # stable ⇔ criterion ≤ 0; unstable ⇔ > 0 (strict)
    if target.quantity == "bsb1":
        return 1.0 - q if target.op == "stable" else q - 1.0   # stable ⇔ max(λ_𝕃, λ_𝕄) < 1 (strict)
    return target.margin(q)


def strict(target: Target) -> bool:
    """Whether a margin of exactly 0 fails the target."""
    return target.op in ("<", ">") or (target.quantity == "sde" and target.op == "unstable") or \
        (target.quantity == "bsb1" and target.op == "stable")


def _met(m: float, strict: bool) -> bool:
    return (m > 0 if strict else m >= 0) if math.isfinite(m) or m == math.inf else False


@dataclass
class TargetResult:
    target: Target
    feasible: list = field(default_factory=list)   # [(lo, hi)] parameter intervals where it is met
    monotone: bool = False
    boundaries: list = field(default_factory=list)  # [(lo, hi, certified)] brackets of the boundaries
    undefined_at: list = field(default_factory=list)


@dataclass
class DesignResult:
    family: str
    parameters: list
    ranges: dict
    targets: list
    results: list
    feasible: list                 # intersection over the targets (one parameter)
    answer: float | None = None    # the smallest feasible value
    answer_quantities: dict = field(default_factory=dict)
    grid_points: list = field(default_factory=list)   # two parameters: feasible grid points
    message: str = ""

    def to_dict(self) -> dict:
        return {"family": self.family, "parameters": self.parameters, "ranges": self.ranges,
                "targets": [t.text for t in self.targets], "feasible": self.feasible, "answer": self.answer,
                "answer_quantities": self.answer_quantities, "message": self.message,
                "per_target": [{"target": r.target.text, "feasible": r.feasible, "monotone": r.monotone,
                                "boundaries": [list(b) for b in r.boundaries], "undefined_at": r.undefined_at}
                               for r in self.results],
                "grid_points": self.grid_points}


def _default_range(name: str) -> tuple[float, float]:
    return (-3.0, 3.0) if name.lower().startswith(("x0", "s", "shift", "b", "c")) else (0.05, 4.0)


def design(family: str, targets: list[str], ranges: dict | None = None, grid: int = 41,
           tol: float = 1e-10) -> DesignResult:
    names = family_parameters(family)
    ranges = dict(ranges or {})
    for k in ranges:
        if k not in names:
            raise DesignError(f"--range {k}: the family's parameters are {', '.join(names)}")
    rng = {}
    for nm in names:
        lo, hi = ranges.get(nm, _default_range(nm))
        lo, hi = float(lo), float(hi)
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi and max(abs(lo), abs(hi)) <= 1e6):
            raise DesignError(f"range of {nm}: need finite LO < HI within ±1e6, got {lo:g}:{hi:g}")
        rng[nm] = (lo, hi)
    ts = [parse_target(t) for t in targets]
    if not ts:
        raise DesignError("design needs at least one --target (e.g. --target 'sde=stable')")
    # the family must be a valid formula at one point at least (clear error otherwise)
    mid = {nm: 0.5 * (a + b) for nm, (a, b) in rng.items()}
    try:
        family_member(family, mid)
    except DeepinitError as exc:
        raise DesignError(f"the family at {mid}: {exc}") from None
    if len(names) == 2:
        return _design_2d(family, names, rng, ts, grid=min(grid, 17))
    name = names[0]
    lo, hi = rng[name]
    xs = np.linspace(lo, hi, grid)
    members = {}

    def member(v):
        if v not in members:
            try:
                members[v] = family_member(family, {name: v})
            except DeepinitError:
                members[v] = None
        return members[v]

    sde = None
    if any(t.quantity == "sde" for t in ts):
        try:
            sde = sde_criterion_function(family, name, lo, hi)
        except DeepinitError:
            sde = None

    def target_margin(t, v):
        if t.quantity == "sde" and sde is not None:
            c = sde(v)
            return -c if t.op == "stable" else c
        a = member(v)
        return margin(t, a) if a is not None else math.nan

    results = []
    for t in ts:
        is_strict = strict(t)
        ms = np.array([target_margin(t, float(v)) for v in xs])
        res = TargetResult(t, undefined_at=[float(v) for v, m in zip(xs, ms) if math.isnan(m)])
        ok = np.array([_met(m, is_strict) for m in ms])
        finite = ms[np.isfinite(ms)]
        d = np.diff(finite)
        res.monotone = bool(finite.size == ms.size and (np.all(d >= 0) or np.all(d <= 0)))

        def f(v, t=t):
            return target_margin(t, v)

        # refine every change of "met" between neighbouring grid points
        edges = []
        for i in range(len(xs) - 1):
            if ok[i] != ok[i + 1] and not (math.isnan(ms[i]) or math.isnan(ms[i + 1])):
                a, b = float(xs[i]), float(xs[i + 1])
                fa_ok = ok[i]
                while b - a > tol * max(1.0, abs(a)):
                    m = 0.5 * (a + b)
                    if _met(f(m), is_strict) == fa_ok:
                        a = m
                    else:
                        b = m
                certified = t.quantity == "sde" and sde is not None and \
                    math.copysign(1, sde(a)) != math.copysign(1, sde(b)) and sde(a) != 0
                res.boundaries.append((a, b, certified))
                edges.append((i, a, b))
        # feasible intervals from the grid flags and the refined edges
        intervals, start = [], (float(xs[0]) if ok[0] else None)
        for i, a, b in edges:
            if ok[i]:  # met → not met: the interval ends at the last met point a
                intervals.append((start, a))
                start = None
            else:
                start = b
        if start is not None:
            intervals.append((start, float(xs[-1])))
        res.feasible = [(float(p), float(q)) for p, q in intervals if p is not None]
        results.append(res)
    feasible = _intersect([r.feasible for r in results])
    out = DesignResult(family, names, {k: list(v) for k, v in rng.items()}, ts, results, feasible)
    if feasible:
        out.answer = feasible[0][0]
        a = member(out.answer)
        for t in ts:
            out.answer_quantities[t.text] = _certified_value(t, a)
            if t.quantity == "sde" and sde is not None:
                out.answer_quantities[t.text].pop("exact", None)
                if sde.exact_roots:
                    out.answer_quantities[t.text]["exact threshold"] = ", ".join(
                        f"{name} = {r} = {float(r):.15g}" for r in sde.exact_roots)
        out.message = (f"smallest {name} meeting every target in [{lo:g}, {hi:g}]: {out.answer:.12g}; feasible set "
                       + " ∪ ".join(f"[{p:.12g}, {q:.12g}]" for p, q in feasible)
                       + ("" if all(r.monotone for r in results) else
                          " (a margin is not monotone on the grid, so a feasible island narrower than the grid step "
                          f"{(hi - lo) / (grid - 1):.3g} could be missed)"))
    else:
        out.message = (f"no {name} in [{lo:g}, {hi:g}] meets " + " and ".join(t.text for t in ts)
                       + " (checked on a grid of " + str(grid) + " points"
                       + (", every margin monotone on the grid and short of its target at both ends)"
                          if all(r.monotone for r in results)
                          else "; a margin is not monotone, so a feasible island narrower than the grid step "
                               f"{(hi - lo) / (grid - 1):.3g} could be missed)"))
    return out


def _intersect(sets: list[list]) -> list:
    cur = sets[0]
    for s in sets[1:]:
        nxt = []
        for a, b in cur:
            for c, d in s:
                lo, hi = max(a, c), min(b, d)
                if lo <= hi:
                    nxt.append((lo, hi))
        cur = nxt
    return sorted(cur)


def _certified_value(t: Target, act) -> dict:
    """The target's quantity at the answer by the claims' own routes, with its error."""
    import theory
    from theory import bn_meanfield as tbm
    try:
        if t.quantity == "beta":
            b = theory.isometry_strength(act)
            return {"value": float(b.value), "how": b.method, "exact": None if b.exact is None else str(b.exact)}
        if t.quantity == "sde":
            c = theory.explosion_criterion(act)
            return {"value": float(c.value), "how": "sympy, exact", "exact": str(c.value), "stable": c.stable}
        if t.quantity in ("lambda_max", "16xi"):
            lam, err = tbm.gradient_explosion_rate_error(act, t.batch_size)
            if t.quantity == "lambda_max":
                return {"value": lam, "error": err, "how": "eq (24) quadrature, two sizes"}
            xi = math.inf if lam <= 1 else 16.0 / math.log(lam)
            return {"value": xi, "how": "16/log λ_max"}
        return {"value": quantity(t, act), "how": "theory quadrature"}
    except DeepinitError as exc:
        return {"undefined": str(exc)}


def _design_2d(family, names, rng, ts, grid) -> DesignResult:
    (n1, (a1, b1)), (n2, (a2, b2)) = list(rng.items())
    pts = []
    best, best_m = None, -math.inf
    for u in np.linspace(a1, b1, grid):
        for v in np.linspace(a2, b2, grid):
            try:
                act = family_member(family, {n1: float(u), n2: float(v)})
            except DeepinitError:
                continue
            ms = [margin(t, act) for t in ts]
            if any(math.isnan(m) for m in ms):
                continue
            worst = min(ms)
            if all(_met(m, strict(t)) for m, t in zip(ms, ts)):
                pts.append([float(u), float(v)])
            if worst > best_m:
                best, best_m = (float(u), float(v)), worst
    out = DesignResult(family, names, {n1: [a1, b1], n2: [a2, b2]}, ts, [], [], grid_points=pts)
    out.message = (f"{len(pts)} of {grid}×{grid} grid points meet every target"
                   + (f"; e.g. {n1} = {pts[0][0]:.6g}, {n2} = {pts[0][1]:.6g}" if pts else
                      f"; none does (best worst-margin {best_m:.3g} at {best})")
                   + " (two parameters: grid only, no refinement)")
    return out
