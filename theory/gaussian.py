"""One engine for Gaussian expectations E[f(X)], X ~ N(0, 1).

Four routes, used against each other:

* **exact** (sympy): when f is, on each smooth piece, a finite sum of terms ``c·x^m·e^{a x}``
  (``a`` possibly complex: sin, cos, sinh, cosh, exp, polynomials, ReLU, step, ELU, SELU …).
  The truncated moments J_m = ∫_lo^hi x^m e^{ax} φ(x) dx obey the integration-by-parts
  recursion J_{m+1} = a J_m + m J_{m−1} − [x^m e^{ax} φ(x)]_lo^hi, J_0 = e^{a²/2}(Φ(hi−a) − Φ(lo−a)).
* **mpmath**: adaptive tanh-sinh quadrature at any precision, split at the breakpoints.
* **float**: a fixed Gauss–Legendre rule on [−L, L] split at the breakpoints (fast, vectorised;
  used for many Hermite coefficients at once).
* **Monte Carlo**: the independent check (mean, standard error, sample size).
"""
from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
import sympy as sp

from . import validate
from .activations import Activation, x
from .errors import DeepinitError, QuadratureError


# --------------------------------------------------------------------------------------------
# exact route
# --------------------------------------------------------------------------------------------

class NotExact(Exception):
    """The expression is not a finite sum of x^m e^{ax} terms on some piece."""


def decompose_poly_exp(expr: sp.Expr) -> list[tuple[sp.Expr, int, sp.Expr]]:
    """Write ``expr`` as Σ coef·x^m·exp(a x); return ``[(coef, m, a), ...]`` or raise NotExact."""
    e = sp.expand(sp.powsimp(sp.expand(expr.rewrite(sp.exp)), combine="exp"))
    terms = []
    for term in sp.Add.make_args(e):
        coef, dep = term.as_independent(x, as_Add=False)
        m, a = 0, sp.Integer(0)
        for f in sp.Mul.make_args(sp.powsimp(dep, combine="exp")):
            if f == 1:
                continue
            if f == x:
                m += 1
            elif isinstance(f, sp.Pow) and f.base == x and f.exp.is_Integer and f.exp >= 0:
                m += int(f.exp)
            elif isinstance(f, sp.exp):
                arg = sp.expand(f.args[0])
                poly = sp.Poly(arg, x) if arg.is_polynomial(x) else None
                if poly is None or poly.degree() > 1:
                    raise NotExact(str(f))
                coeffs = poly.all_coeffs()
                if poly.degree() == 1:
                    a += coeffs[0]
                    coef *= sp.exp(coeffs[1])
                else:
                    coef *= sp.exp(coeffs[0])
            elif isinstance(f, sp.Pow) and isinstance(f.base, sp.exp) and f.exp.is_Integer:
                arg = sp.expand(f.base.args[0] * f.exp)
                if not arg.is_polynomial(x) or sp.Poly(arg, x).degree() > 1:
                    raise NotExact(str(f))
                c1 = arg.coeff(x, 1)
                a += c1
                coef *= sp.exp(sp.expand(arg - c1 * x))
            else:
                raise NotExact(str(f))
        terms.append((coef, m, a))
    return terms


def _Phi(z):
    if z == sp.oo:
        return sp.Integer(1)
    if z == -sp.oo:
        return sp.Integer(0)
    return (1 + sp.erf(z / sp.sqrt(2))) / 2


def _phi(z):
    return sp.exp(-z ** 2 / 2) / sp.sqrt(2 * sp.pi)


@functools.lru_cache(maxsize=4096)
def truncated_moments(m_max: int, a: sp.Expr, lo, hi) -> tuple[sp.Expr, ...]:
    """(J_0, …, J_{m_max}) with J_m = ∫_lo^hi x^m e^{a x} φ(x) dx, exactly."""
    lo_s = -sp.oo if lo == -math.inf else sp.nsimplify(lo)
    hi_s = sp.oo if hi == math.inf else sp.nsimplify(hi)

    def boundary(m):
        out = sp.Integer(0)
        for end, sign in ((hi_s, 1), (lo_s, -1)):
            if end in (sp.oo, -sp.oo):
                continue
            out += sign * end ** m * sp.exp(a * end) * _phi(end)
        return out

    upper = sp.Integer(1) if hi_s == sp.oo else _Phi(hi_s - a)
    lower = sp.Integer(0) if lo_s == -sp.oo else _Phi(lo_s - a)
    J = [sp.exp(a ** 2 / 2) * (upper - lower)]
    if m_max >= 1:
        J.append(a * J[0] - boundary(0))
    for m in range(1, m_max):
        J.append(a * J[m] + m * J[m - 1] - boundary(m))
    return tuple(sp.expand(j) for j in J)


def exact_expectation_pieces(pieces, weight_poly: sp.Expr = sp.Integer(1)) -> sp.Expr:
    """E[f(X)·w(X)] exactly, f given by its smooth pieces and w a polynomial; raises NotExact."""
    wpoly = sp.Poly(weight_poly, x)
    total = sp.Integer(0)
    for (lo, hi), expr in pieces:
        if expr == 0:
            continue
        for coef, m, a in decompose_poly_exp(expr):
            deg = m + wpoly.degree()
            J = truncated_moments(deg, sp.nsimplify(a), lo, hi)
            for (i,), w in wpoly.terms():
                total += coef * w * J[m + i]
    return total


def exact_expectation(act: Activation, power: int = 1, weight_poly: sp.Expr = sp.Integer(1)) -> sp.Expr:
    """E[σ(X)^power · w(X)] in closed form; raises NotExact when no closed form is found."""
    pieces = tuple(((lo, hi), sp.expand(e ** power)) for (lo, hi), e in act.pieces)
    return exact_expectation_pieces(pieces, weight_poly)


def tidy(expr: sp.Expr) -> sp.Expr:
    """Simplify an exact expectation (real part taken: the integrands are real)."""
    e = sp.simplify(sp.expand_complex(expr))
    if e.has(sp.I):
        e = sp.simplify(sp.re(e))
    return e


# --------------------------------------------------------------------------------------------
# mpmath route
# --------------------------------------------------------------------------------------------

def _mp_intervals(breakpoints, extra=(-8, -4, -2, 2, 4, 8)):
    pts = sorted(set([float(b) for b in breakpoints] + list(extra)))
    return [-mpmath.inf] + [mpmath.mpf(p) for p in pts] + [mpmath.inf]


def mp_expectation(f, breakpoints=(), dps: int = 30, error: bool = False):
    """E[f(X)] by mpmath quadrature at ``dps`` digits, split at the breakpoints.

    Raises :class:`QuadratureError` when the estimated error exceeds 10^(−dps/2) in relative terms.
    """
    def value(t):
        try:
            return f(t)
        except MemoryError:   # mpmath at an astronomically large argument (tanh(e^(t³)) at the rule's far nodes)
            raise QuadratureError(f"the integrand cannot be evaluated at x = {mpmath.nstr(t, 6)}: its argument is "
                                  "too large for mpmath") from None

    with mpmath.workdps(dps + 10):
        norm = 1 / mpmath.sqrt(2 * mpmath.pi)
        g = lambda t: value(t) * mpmath.exp(-t * t / 2) * norm  # noqa: E731
        val, err = mpmath.quad(g, _mp_intervals(breakpoints), error=True, maxdegree=10)
        if not mpmath.isfinite(val):
            raise QuadratureError("Gaussian expectation is not finite (the integrand is not integrable)")
        tol = mpmath.mpf(10) ** (-(dps // 2)) * max(1, abs(val))
        if err > tol:
            raise QuadratureError(f"quadrature did not converge: estimated error {mpmath.nstr(err, 3)} "
                                  f"> tolerance {mpmath.nstr(tol, 3)}")
    return (val, err) if error else val


# --------------------------------------------------------------------------------------------
# float route: a fixed Gauss–Legendre rule for the Gaussian measure, split at the breakpoints
# --------------------------------------------------------------------------------------------

def integration_radius(act: Activation, k_max: int = 0, tail: float = 1e-40) -> float:
    """L such that σ(x)² φ(x) < tail·(scale) for |x| > L, and past the Hermite turning point."""
    r = 8.0
    with mpmath.workdps(20):
        ref = max(abs(act.mpmath(mpmath.mpf(v))) for v in (-1, -0.5, 0.5, 1)) + mpmath.mpf(1)
        while r < 400:
            vals = [abs(act.mpmath(mpmath.mpf(s * r))) for s in (1, -1)]
            logw = max(2 * mpmath.log(v + mpmath.mpf("1e-300")) for v in vals) - r * r / 2
            if logw < mpmath.log(tail) + 2 * mpmath.log(ref):
                break
            r += 2.0
    return max(r, math.sqrt(4 * k_max + 2) + 14.0)


@functools.lru_cache(maxsize=256)
def gaussian_rule(breakpoints: tuple, radius: float, nodes_per_piece: int, density_exponent: float = 0.5):
    """Nodes and weights (including the density φ) for E[f(X)], X ~ N(0,1), on [−L, L].

    ``density_exponent`` a: the weights carry e^{−a t²}/√(2π) instead (a = 1/4 for Hermite *functions*
    He_k(t)e^{−t²/4}, whose recurrence does not overflow at large k)."""
    cuts = [-radius] + [b for b in breakpoints if -radius < b < radius] + [radius]
    gx, gw = np.polynomial.legendre.leggauss(nodes_per_piece)
    xs, ws = [], []
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        half, mid = 0.5 * (hi - lo), 0.5 * (hi + lo)
        t = mid + half * gx
        xs.append(t)
        ws.append(half * gw * np.exp(-density_exponent * t * t) / math.sqrt(2 * math.pi))
    return np.concatenate(xs), np.concatenate(ws)


def float_expectation(act: Activation, g=None, nodes_per_piece: int = 400) -> float:
    """E[σ(X) g(X)] with the fixed rule (g defaults to 1). Where the Gaussian weight underflows to 0 a node contributes
    0 whatever σ's float value there (log(1 + e^{x³}) overflows to ∞ far out); a value that is not finite where the
    weight is not 0 raises :class:`QuadratureError` (never a silent NaN)."""
    L = integration_radius(act)
    xs, ws = gaussian_rule(tuple(act.breakpoints), L, nodes_per_piece)
    with np.errstate(over="ignore", invalid="ignore"):
        vals = act.numpy(xs)
        if g is not None:
            vals = vals * g(xs)
    vals = np.where(ws > 0, vals, 0.0)
    if not np.all(np.isfinite(vals)):
        raise QuadratureError(f"E[σ(X)·g(X)] of {act.name}: the integrand is not finite in float64 where the Gaussian "
                              "weight is not 0")
    return float(np.dot(ws, vals))


# --------------------------------------------------------------------------------------------
# Monte Carlo route
# --------------------------------------------------------------------------------------------

def mc_expectation(f, samples: int, seed: int, batch: int = 1 << 20):
    """E[f(X)] by Monte Carlo: returns (mean, standard error, samples). f acts on numpy arrays."""
    rng = np.random.default_rng(validate.seed(seed))
    total, total_sq, n = 0.0, 0.0, 0
    while n < samples:
        m = min(batch, samples - n)
        v = f(rng.standard_normal(m))
        total += float(np.sum(v))
        total_sq += float(np.sum(v * v))
        n += m
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0)
    return mean, math.sqrt(var / n), n


# --------------------------------------------------------------------------------------------
# scaled and bivariate expectations with stated errors (Estimate): the mean-field maps of
# fully connected networks (theory.meanfield_mlp)
# --------------------------------------------------------------------------------------------

#: nodes per piece of the float route of :func:`bivariate_expectation` (the error estimate uses a second rule
#: with about two thirds as many)
BIVARIATE_NODES = 20
#: at most this many pieces per axis of the float route (the piece length follows the variance: ~1/√q)
BIVARIATE_MAX_PIECES = 240


def _as_function(f, breakpoints, kind: str):
    """(callable, sorted kinks): an Activation (or a registry name/formula) gives its own callable and kinks; a plain
    callable is taken as it is (an mpmath-style scalar function) with the given breakpoints."""
    from .activations import activation as _activation
    if isinstance(f, str):
        f = _activation(f)
    extra = tuple(float(b) for b in breakpoints)
    if isinstance(f, Activation):
        fn = f.mpmath if kind == "mpmath" else f.numpy
        return fn, tuple(sorted(set(float(b) for b in f.breakpoints) | set(extra)))
    if not callable(f):
        raise TypeError(f"expected an Activation, a name or a callable, not {type(f).__name__}")
    if kind == "mpmath":
        return f, tuple(sorted(set(extra)))

    def vectorised(z):
        z = np.asarray(z, dtype=float)
        try:
            out = np.asarray(f(z), dtype=float)
            if out.shape == z.shape:
                return out
        except (TypeError, ValueError, AttributeError):
            pass
        return np.vectorize(lambda t: float(f(mpmath.mpf(float(t)))), otypes=[float])(z)
    return vectorised, tuple(sorted(set(extra)))


def _check_dps(dps) -> int:
    return validate.dps(dps)


def _mp_piece(g, a, b, dps: int):
    """∫_a^b g by mpmath: Gauss–Legendre first (2–3× fewer evaluations than tanh–sinh on the smooth pieces between
    kinks), accepted only when its own error estimate is below 10^(−dps−3) (g is normalised to size ~1); otherwise —
    an endpoint singularity of a derivative, |x|^1.5 at a kink — tanh–sinh, which the convergence test then judges."""
    val, e = mpmath.quad(g, [a, b], error=True, maxdegree=8, method="gauss-legendre")
    if mpmath.isfinite(val) and abs(e) <= mpmath.mpf(10) ** (-dps - 3):
        return val, e
    return mpmath.quad(g, [a, b], error=True, maxdegree=10)


def mp_gaussian(fn, variance, kinks=(), dps: int = 30):
    """E fn(√v Z), Z ~ N(0, 1), at ``dps`` digits: ``(value, error, scale)`` as mpf, where ``scale`` = Σ over the
    pieces of |∫ piece| (the magnitude that cancels in the sum). Pieces: the kinks of fn scaled by 1/√v, ±1/√v,
    ±4/√v and ±2, ±4, ±8; each integrated by mpmath's Gauss–Legendre rule, or its tanh–sinh rule where Gauss–Legendre
    does not reach 10^(−dps−3) (:func:`_mp_piece`), with the rule's error estimate. Raises
    :class:`QuadratureError` when the summed error estimate exceeds 10^(−dps/2) of the scale."""
    with mpmath.workdps(dps + 10):
        v = mpmath.mpf(variance)
        if v == 0:
            val = mpmath.mpf(fn(mpmath.mpf(0)))
            return val, mpmath.mpf(0), abs(val)
        s = mpmath.sqrt(v)
        cuts = {mpmath.mpf(b) / s for b in kinks}
        cuts |= {mpmath.mpf(t) for t in (-8, -4, -2, 2, 4, 8)}
        if s > 1:
            cuts |= {sign * k / s for sign in (-1, 1) for k in (1, 4)}
        pts = [-mpmath.inf] + sorted(cuts) + [mpmath.inf]
        # mpmath's convergence test is absolute: the integrand is divided by its size near the origin (so that
        # E φ(√q z)² at q = 1e-30 is as accurate, relatively, as at q = 1) and the result multiplied back
        def value(t):
            try:
                return mpmath.mpf(fn(s * t))
            except (ArithmeticError, ValueError, TypeError, MemoryError) as exc:   # MemoryError: mpmath at a huge argument
                why = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                raise QuadratureError(f"the integrand cannot be evaluated at u = {mpmath.nstr(s * t, 6)}: {why}") \
                    from None

        def probe(t):
            # a probe that lands on a declared kink may meet a singularity there (log|u + 2| at u = −2): it
            # measures nothing, and the integral is still finite
            try:
                got = abs(value(mpmath.mpf(t)))
            except QuadratureError:
                return mpmath.mpf(0)
            return got if mpmath.isfinite(got) else mpmath.mpf(0)

        size = max(probe(t) for t in (-2, -1, -0.5, 0.5, 1, 2)) or mpmath.mpf(1)
        norm = 1 / (mpmath.sqrt(2 * mpmath.pi) * size)

        def g(t):
            return value(t) * mpmath.exp(-t * t / 2) * norm
        total, err, scale = mpmath.mpf(0), mpmath.mpf(0), mpmath.mpf(0)
        for a, b in zip(pts[:-1], pts[1:]):
            val, e = _mp_piece(g, a, b, dps)
            total += val * size
            err += abs(e) * size
            scale += abs(val) * size
        if not (mpmath.isfinite(total) and abs(total) < mpmath.mpf(2) ** 1023):
            raise QuadratureError("Gaussian expectation is not finite (the integrand is not integrable)")
        # the tails must have died out where the pieces end: |f(√v u)| φ(u) at |u| = 60 is e^−1800 for anything of
        # sub-Gaussian growth; a finite sum with live tails (f ~ e^{u²/2}) is the quadrature's, not the integral's
        tail = max(abs(g(mpmath.mpf(t))) for t in (-60, 60)) * size
        far = max(abs(g(mpmath.mpf(t))) for t in (-120, 120)) * size
        # not decaying: alive at 60 (relative to f's size near the origin) and no smaller at 120 (a Gaussian-tilted
        # integrand such as e^{a√v u} with its mass far out still falls by e^{−5400 + 60 a√v} from 60 to 120)
        if tail > mpmath.mpf(10) ** (-(dps + 10)) * size and far >= mpmath.mpf(10) ** -3 * tail:
            raise QuadratureError(f"the integrand does not decay: |f(√v u)| φ(u) = {mpmath.nstr(tail, 3)} at |u| = 60 "
                                  "(f grows like e^{u²/2} or faster: not integrable, or too slowly decaying to "
                                  "integrate reliably)")
        err += scale * mpmath.mpf(10) ** (-(dps + 8))  # the rounding of the working precision
        if err > mpmath.mpf(10) ** (-(dps // 2)) * max(scale, mpmath.mpf(10) ** (-dps)):
            raise QuadratureError(f"quadrature did not converge: estimated error {mpmath.nstr(err, 3)} at scale "
                                  f"{mpmath.nstr(scale, 3)}")
        if abs(total) <= scale * mpmath.mpf(10) ** (-dps):
            # cancelled below the requested precision: an exact zero (odd integrand), see theory.results
            err = max(err, scale * mpmath.mpf(10) ** (-dps))
            total = mpmath.mpf(0)
    return +total, +err, +scale


def _estimate_from_mp(val, err, method: str, dps: int):
    from .results import Estimate
    f = float(val)
    with mpmath.workdps(dps + 10):
        rounding = abs(mpmath.mpf(f) - val)
    return Estimate(f, float(err + rounding), method, text=mpmath.nstr(val, dps) if f != 0.0 else "0")


def gaussian_expectation(f, variance: float = 1.0, breakpoints=(), dps: int = 30):
    """E f(√v Z) for Z ~ N(0, 1), by mpmath quadrature split at the kinks of f scaled by 1/√v.

    Parameters
    ----------
    f : Activation, str or callable
        An :class:`~theory.activations.Activation` (or a registry name/formula) brings its mpmath callable and its
        kinks; a plain callable must accept and return mpmath numbers.
    variance : float
        v ≥ 0 (v = 0 gives f(0)).
    breakpoints : sequence of float
        Further kinks of f (in the variable u = √v z).
    dps : int
        Decimal digits of the quadrature (mpmath tanh–sinh at dps + 10 working digits).

    Returns
    -------
    Estimate
        ``error`` is mpmath's error estimate summed over the pieces plus the rounding of the value to a float;
        ``text`` holds the value to ``dps`` digits. A value that cancels below 10^(−dps) of the pieces' magnitudes
        is the exact 0.0 (:mod:`theory.results`).

    Examples
    --------
    >>> e = gaussian_expectation("relu", variance=3.0)      # E relu(√3 z) = √3/√(2π)
    >>> abs(e.value - (3.0 / (2 * math.pi)) ** 0.5) <= e.error + 1e-16
    True
    >>> gaussian_expectation("tanh", variance=2.0).value     # odd integrand: exactly zero
    0.0
    """
    dps = _check_dps(dps)
    v = float(variance)
    if not (math.isfinite(v) and v >= 0):
        raise DeepinitError(f"variance = {variance!r} must be finite and ≥ 0")
    fn, kinks = _as_function(f, breakpoints, "mpmath")
    val, err, _ = mp_gaussian(fn, v, kinks, dps)
    return _estimate_from_mp(val, err, f"mpmath tanh-sinh at dps={dps}, split at {len(kinks)} kink(s)", dps)


def _radius(fn, gn, s1: float, s2: float, tail: float = 1e-20) -> float:
    """L such that the integrand |f(s1 z1) g(s2 z2)| φ(z1) φ(z2) is below ``tail`` (relative) beyond |z| = L."""
    probe = np.array([-1.0, -0.5, 0.5, 1.0])
    with np.errstate(all="ignore"):
        # in logs: both probes can be ~1e-300 (erf′ at q = 10⁴ is e^{−10⁴} at z = 1) and their product underflows
        log_ref = (math.log(max(float(np.max(np.abs(fn(s1 * probe)))), 1e-300))
                   + math.log(max(float(np.max(np.abs(gn(s2 * probe)))), 1e-300)))
        r = 9.0
        while r < 60.0:
            pts = np.array([-r, r])
            big = float(np.max(np.abs(fn(s1 * pts)))) * float(np.max(np.abs(gn(s2 * pts)))) + 1e-300
            if math.log(big) - r * r / 2 < math.log(tail) + log_ref and math.isfinite(big):
                break
            r += 1.0
    return r


def _cuts(L: float, step: float, extra=()) -> np.ndarray:
    k = int(math.ceil(L / step))
    if 2 * k > BIVARIATE_MAX_PIECES:
        k = BIVARIATE_MAX_PIECES // 2
        step = L / k
    grid = step * np.arange(-k, k + 1, dtype=float)
    grid = grid[np.abs(grid) < L]
    pts = np.concatenate([[-L, L], grid, [e for e in extra if -L < e < L]])
    return np.unique(pts)


def _graded(center: float, width: float) -> list[float]:
    """Cut points at center ± width·4^k up to distance 1: they resolve a kink smoothed over ``width``."""
    out, d = [center], width
    while d < 1.0:
        out += [center - d, center + d]
        d *= 4.0
    return out


def _bivariate_rule(fn, gn, kf, kg, q11, q22, c, nodes):
    """One nested Gauss–Legendre evaluation of E f(u₁) g(u₂): (value, Σ|terms|). u₁ = √q11 z₁,
    u₂ = √q22 (c z₁ + s z₂), s = √(1 − c²); the inner rule is split at the kinks of g, which move with z₁."""
    a1, r2 = math.sqrt(q11), math.sqrt(q22)
    s = math.sqrt(max((1.0 - c) * (1.0 + c), 0.0))
    a2, tau = r2 * c, r2 * s
    L = _radius(fn, gn, a1, r2)
    extra = [b / a1 for b in kf] if a1 > 0 else []
    if a2 != 0:
        for b in kg:
            extra += _graded(b / a2, tau / abs(a2))
    step1 = min(1.0, 1.0 / max(a1, abs(a2), 1e-300))
    gx, gw = np.polynomial.legendre.leggauss(nodes)
    cuts = _cuts(L, step1, extra)
    half, mid = 0.5 * np.diff(cuts), 0.5 * (cuts[1:] + cuts[:-1])
    z1 = (mid[:, None] + half[:, None] * gx).ravel()
    w1 = (half[:, None] * gw * 1.0).ravel() * np.exp(-z1 * z1 / 2) / math.sqrt(2 * math.pi)
    f1 = fn(a1 * z1)
    base = _cuts(L, min(1.0, 1.0 / max(tau, 1e-300)))
    total, scale = 0.0, 0.0
    chunk = max(1, 2_000_000 // (len(base) + len(kg)) // nodes)
    for lo in range(0, len(z1), chunk):
        zz = z1[lo:lo + chunk]
        kinks = [np.clip((b - a2 * zz) / tau, -L, L) for b in kg] if tau > 0 else []
        cm = np.sort(np.column_stack([np.broadcast_to(base, (len(zz), len(base)))] + [k[:, None] for k in kinks]),
                     axis=1)
        h2, m2 = 0.5 * np.diff(cm, axis=1), 0.5 * (cm[:, 1:] + cm[:, :-1])
        z2 = m2[..., None] + h2[..., None] * gx
        w2 = h2[..., None] * gw * np.exp(-z2 * z2 / 2) / math.sqrt(2 * math.pi)
        gv = gn((a2 * zz[:, None, None] + tau * z2).ravel()).reshape(z2.shape)
        inner = np.sum(w2 * gv, axis=(1, 2))
        inner_abs = np.sum(np.abs(w2 * gv), axis=(1, 2))
        total += float(np.dot(w1[lo:lo + chunk] * f1[lo:lo + chunk], inner))
        scale += float(np.dot(np.abs(w1[lo:lo + chunk] * f1[lo:lo + chunk]), inner_abs))
    return total, scale


def bivariate_expectation(f, g, q11: float, q22: float, q12: float, breakpoints_f=(), breakpoints_g=(),
                          dps: int | None = None, nodes: int = BIVARIATE_NODES):
    """E f(u₁) g(u₂) for (u₁, u₂) jointly Gaussian, mean 0, variances q11, q22 and covariance q12.

    Routes:

    * |c| = 1 exactly (c = q12/√(q11 q22)), or a zero variance: a 1-D integral, E f(√q11 z) g(±√q22 z), by
      :func:`gaussian_expectation` (mpmath at 30 digits) split at the kinks of both functions.
    * |c| < 1, ``dps=None`` (default): a nested Gauss–Legendre rule in float64, vectorised. u₁ = √q11 z₁,
      u₂ = √q22 (c z₁ + √(1 − c²) z₂). The outer rule over z₁ is split at the kinks of f (b/√q11) and at the
      kinks of g seen through z₁ (b/(c√q22), graded down to the width √(1 − c²)/c over which the inner integral
      smooths them); the inner rule over z₂ is split, for every z₁, at the kinks of g, z₂ = (b − c√q22 z₁)/
      (√q22 √(1 − c²)); pieces have length ≤ min(1, 1/√q) so that the rule follows the variance. ``error`` is the
      difference from the same rule with ⌈2n/3⌉ nodes per piece plus 64 ε Σ|terms|: about 1e-15 relative for
      the registered activations at q ≤ 10 (tests: arc-cosine and arcsine closed forms). Cost ≈ 1–30 ms.
    * |c| < 1, ``dps`` given: nested mpmath tanh–sinh quadratures (inner split at the kinks of g), error from
      mpmath's estimates — an independent, slow route (seconds: ~3·10⁵ evaluations at dps = 15).

    Parameters
    ----------
    f, g : Activation, str or callable
        Activations bring their callables and kinks; plain callables take mpmath numbers (the float route calls
        them on numpy arrays when they accept arrays).
    q11, q22 : float
        Variances (≥ 0).
    q12 : float
        Covariance, |q12| ≤ √(q11 q22) (checked to 1e-12 relative; c is then clipped to [−1, 1]).
    breakpoints_f, breakpoints_g : sequence of float
        Further kinks of f and g.
    dps : int or None
        None: the float route; an integer: the nested mpmath route at that precision.
    nodes : int
        Gauss–Legendre nodes per piece of the float route.

    Returns
    -------
    Estimate

    Examples
    --------
    >>> e = bivariate_expectation("relu", "relu", 1.0, 4.0, 1.0)     # arc-cosine kernel, c = 1/2
    >>> th = math.acos(0.5)
    >>> abs(e.value - 2.0 / (2 * math.pi) * (math.sin(th) + (math.pi - th) * 0.5)) < 1e-14
    True
    >>> bivariate_expectation("relu", "relu", 1.0, 1.0, -1.0).value   # c = −1: disjoint supports
    0.0
    """
    from .results import Estimate
    q11, q22, q12 = float(q11), float(q22), float(q12)
    if not all(math.isfinite(t) for t in (q11, q22, q12)) or q11 < 0 or q22 < 0:
        raise DeepinitError("q11, q22 must be finite and ≥ 0 and q12 finite")
    bound = math.sqrt(q11 * q22)
    if abs(q12) > bound * (1 + 1e-12) + 1e-300:
        raise DeepinitError(f"|q12| = {abs(q12):.17g} exceeds √(q11 q22) = {bound:.17g}: not a covariance")
    if bound == 0.0 or abs(q12) >= bound:
        sign = 1.0 if q12 >= 0 else -1.0
        fm, kf = _as_function(f, breakpoints_f, "mpmath")
        gm, kg = _as_function(g, breakpoints_g, "mpmath")
        if bound == 0.0 and q11 == 0.0:       # f(0) E g(√q22 z)
            return _product_1d(lambda t: fm(mpmath.mpf(0)) * gm(t), q22, kg, "q11 = 0")
        if bound == 0.0:
            return _product_1d(lambda t: fm(t) * gm(mpmath.mpf(0)), q11, kf, "q22 = 0")
        ratio = mpmath.sqrt(mpmath.mpf(q22) / mpmath.mpf(q11)) * sign
        kinks = list(kf) + [float(b / ratio) for b in kg]
        return _product_1d(lambda t: fm(t) * gm(ratio * t), q11, kinks, f"c = {sign:+.0f}")
    c = q12 / bound
    if dps is not None:
        return _bivariate_mp(f, g, breakpoints_f, breakpoints_g, q11, q22, c, _check_dps(dps))
    fn, kf = _as_function(f, breakpoints_f, "numpy")
    gn, kg = _as_function(g, breakpoints_g, "numpy")
    nodes = validate.integer(nodes, "nodes", 8, 200)
    with np.errstate(over="ignore", invalid="ignore"):
        v1, scale = _bivariate_rule(fn, gn, kf, kg, q11, q22, c, nodes)
        v2, _ = _bivariate_rule(fn, gn, kf, kg, q11, q22, c, max(6, (2 * nodes + 2) // 3))
    if not (math.isfinite(v1) and math.isfinite(v2)):
        raise QuadratureError("bivariate Gaussian expectation is not finite")
    floor = 64 * np.finfo(float).eps * scale
    err = abs(v1 - v2) + floor
    if abs(v1) <= floor:
        v1 = 0.0  # cancelled to rounding: the exact zero of theory.results
    return Estimate(v1, err, f"nested Gauss-Legendre (float64), {nodes} and {max(6, (2 * nodes + 2) // 3)} nodes "
                              f"per piece, kinks split (c = {c:.17g})")


def _product_1d(h, variance, kinks, what):
    val, err, _ = mp_gaussian(h, variance, kinks, 30)
    return _estimate_from_mp(val, err, f"1-D mpmath tanh-sinh at dps=30 ({what})", 30)


def _mp_centre(center, width) -> set:
    """The split point of the nested mpmath route where an activation's argument is 0, once the variance q > 1
    (width = 1/√q in z < 1): a smooth φ that changes over |u| ≲ 1 changes over |z| ≲ 1/√q, narrower than
    tanh–sinh resolves inside a piece [−4, 4] (erf at q = 400 was off by 1e-7, at q = 10⁴ by 2e-4); at a piece's
    end the rule's nodes cluster and resolve it (both then within 2e-16 of the closed form)."""
    return {center} if width < 1 else set()


def _bivariate_mp(f, g, bf, bg, q11, q22, c, dps):
    """The nested mpmath route of :func:`bivariate_expectation` (|c| < 1)."""
    fm, kf = _as_function(f, bf, "mpmath")
    gm, kg = _as_function(g, bg, "mpmath")
    with mpmath.workdps(dps + 5):
        c = mpmath.mpf(c)
        a1, r2 = mpmath.sqrt(mpmath.mpf(q11)), mpmath.sqrt(mpmath.mpf(q22))
        a2, tau = r2 * c, r2 * mpmath.sqrt(1 - c * c)
        norm = 1 / mpmath.sqrt(2 * mpmath.pi)
        errs = []

        def inner(z1):
            kinks = {(mpmath.mpf(b) - a2 * z1) / tau for b in kg} | _mp_centre(-a2 * z1 / tau, 1 / tau)
            pts = sorted({k for k in kinks if abs(k) < 40} | {mpmath.mpf(-4), mpmath.mpf(4)})  # e^{−800}: beyond
            val, e = mpmath.quad(lambda z2: gm(a2 * z1 + tau * z2) * mpmath.exp(-z2 * z2 / 2) * norm,
                                 [-mpmath.inf] + pts + [mpmath.inf], error=True)
            errs.append(abs(e))
            return val
        outer_pts = sorted({p for p in ({mpmath.mpf(b) / a1 for b in kf} | {mpmath.mpf(b) / a2 for b in kg if a2 != 0}
                                        | _mp_centre(0, 1 / max(a1, abs(a2))))
                            if abs(p) < 40} | {mpmath.mpf(-4), mpmath.mpf(4)})
        val, e = mpmath.quad(lambda z1: fm(a1 * z1) * inner(z1) * mpmath.exp(-z1 * z1 / 2) * norm,
                             [-mpmath.inf] + outer_pts + [mpmath.inf], error=True)
        err = abs(e) + (max(errs) if errs else 0)
    return _estimate_from_mp(val, err, f"nested mpmath tanh-sinh at dps={dps}", dps)
