"""The spectrum of JJᵀ for any φ at the fixed point: the density of the squared singular values of the input–output
Jacobian of a deep σ_w²/σ_b² network whose every layer sits at the fixed point q*, for Gaussian and orthogonal
weights (Pennington, Schoenholz, Ganguli 2017, Section 2; the same route for smooth φ in their 2018 paper).

Setting and notation are those of :mod:`theory.jacobian` and :mod:`theory.jacobian_density`. D² = diag φ′(h)², h ~
N(0, q*), has the law of x = φ′(√q* ζ)², ζ ~ N(0, 1); its moment generating function M_{D²}(w) = E[x/(w − x)] and
S-transform S_{D²}(m) = (1 + m)/(m M_{D²}⁻¹(m)). With S_{WWᵀ}(m) = 1/(σ_w²(1 + m)) (Gaussian) or 1/σ_w² (orthogonal)
and S_{JJᵀ} = (S_{D²} S_{WWᵀ})^L (asymptotic freeness), M_{JJᵀ}⁻¹(m) = (1 + m)/(m S_{JJᵀ}(m)) becomes, written in
w = M_{D²}⁻¹(m) (so that m = M_{D²}(w) is a plain expectation and no inverse is needed),

    z = (1 + m)/m · [σ_w² m w (1 + m)^{s − 1}]^L,    m = M_{D²}(w),    s = 1 (Gaussian), 0 (orthogonal).

For a two-valued φ′² (x = c² with probability p, else 0) M_{D²}(w) = pc²/(w − c²) and this is
:mod:`theory.jacobian_density`'s rational equation; here the law of x is a quadrature rule (x_i, p_i): Gauss–Legendre
nodes ζ_i on panels of [−10, 10] (split where φ′ has kinks) with the normal weights, so M_{D²}(w) = Σ p_i x_i/(w − x_i).

For each λ > 0 the root w of z = λ + iy on the physical branch (Im w > 0 exactly when Im m < 0, i.e. for y > 0) is
followed from y = 10⁴·E, where m ≈ m₁/z and w ≈ μ₁/m (μ₁ = E x), down to y = 10⁻¹²λ by Newton's method on log z (a
predictor in log w, each step kept in the upper half plane), and ρ(λ) = −Im m/(πλ). The factor 1 + m = w·Σ p_i/(w − x_i)
is computed as such, which keeps its digits as λ → 0 (where m → −1 when the law has no atom at 0).

The rule's error: the density is computed on the rule of ``nodes`` points and on one of half as many; three times
their difference is the error of :meth:`SmoothJacobianDensity.pdf_with_error` — an estimate, not a bound: where ρ is
below about 10⁻³ of its peak both rules can leave gaps in the support (the moments' error covers their mass).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from . import validate
from .activations import Activation, activation
from .errors import DeepinitError, UndefinedQuantityError
from .jacobian_density import _derivative_without_atoms
from .results import Estimate

__all__ = ["SmoothJacobianDensity", "jacobian_spectral_density_smooth", "d2_rule"]

_GL_X, _GL_W = np.polynomial.legendre.leggauss(16)
_GQ_X, _GQ_W = np.polynomial.legendre.leggauss(8)


def d2_rule(act, q: float, nodes: int = 800) -> tuple[np.ndarray, np.ndarray]:
    """The law of x = φ′(√q ζ)², ζ ~ N(0, 1), as a rule (x_i, p_i) with Σ p_i = 1: Gauss–Legendre on ``nodes``/16
    equal panels of ζ ∈ [−10, 10] (the normal mass outside is 1.5e-23), with a panel boundary at every kink of φ′.

    Examples
    --------
    >>> x, p = d2_rule("relu", 1.0)                 # φ′² = 1 on h > 0: E x = ½
    >>> bool(abs(p.sum() - 1) < 1e-15), round(float(p @ x), 12)
    (True, 0.5)
    """
    act, d1 = _derivative_without_atoms(act)
    s = math.sqrt(q)
    cuts = sorted({float(b) / s for b in act.breakpoints if s > 0 and abs(float(b) / s) < 10})
    panels = max(1, nodes // 16)
    edges = np.unique(np.concatenate([np.linspace(-10, 10, panels + 1), cuts]))
    lo, hi = edges[:-1], edges[1:]
    zeta = (0.5 * (lo + hi)[:, None] + 0.5 * (hi - lo)[:, None] * _GL_X[None, :]).ravel()
    w = (0.5 * (hi - lo)[:, None] * _GL_W[None, :]).ravel() * np.exp(-0.5 * zeta ** 2) / math.sqrt(2 * math.pi)
    x = np.asarray(d1.numpy(s * zeta), dtype=float) ** 2 * np.ones_like(zeta)
    if not np.all(np.isfinite(x)):
        raise DeepinitError(f"φ′ of {act.name} is not finite on the Gaussian's range at q = {q:g}")
    return x, w / math.fsum(w)


@dataclass(frozen=True)
class SmoothJacobianDensity:
    """The limiting law of the eigenvalues of JJᵀ at the fixed point, for any φ (module docstring).

    Attributes
    ----------
    weights : str
        "gaussian" or "orthogonal".
    depth : int
        L.
    sigma_w2 : float
        σ_w².
    q : float
        The fixed point q* of every layer.
    mean : float
        m₁ = (σ_w² E x)^L, the first moment the law must have (from the rule).
    method : str
        How the law was computed.

    Examples
    --------
    >>> law = jacobian_spectral_density_smooth("erf", 1.2, 0.02, depth=2)
    >>> lo, hi = law.support[-1]
    >>> law.weights, bool(law.pdf([(lo + hi) / 2])[0] > 0), float(law.pdf([2 * hi])[0])
    ('orthogonal', True, 0.0)
    """

    weights: str
    depth: int
    sigma_w2: float
    q: float
    mean: float
    method: str
    _rules: tuple = field(default=(), repr=False, compare=False)

    def _solve(self, lam: np.ndarray, rule: int = 0) -> np.ndarray:
        """m = M_{JJᵀ}(λ + i·10⁻¹²λ) on the physical branch (module docstring)."""
        x, p = self._rules[rule]
        L, sw = self.depth, self.sigma_w2
        s = 1 if self.weights == "gaussian" else 0
        mu1 = float(p @ x)

        def parts(w):
            r = 1.0 / (w[:, None] - x[None, :])
            g = r @ p                                            # Σ p/(w − x)
            delta = w * g                                        # 1 + m, without cancellation
            dm = -((r * r) @ (p * x))                            # dm/dw
            return delta - 1.0, delta, dm

        def residual(w, logz):
            m, delta, dm = parts(w)
            f = (np.log(delta) - np.log(m) + L * (math.log(sw) + np.log(m) + np.log(w) + (s - 1) * np.log(delta))
                 - logz)
            f = f - 2j * np.pi * np.round(f.imag / (2 * np.pi))
            df = dm * (1 / delta - 1 / m + L * (1 / m + (s - 1) / delta)) + L / w
            return f, df

        def newton(w, logz, iterations):
            for _ in range(iterations):
                f, df = residual(w, logz)
                step = np.where(np.isfinite(f / df), f / df, 0.0)
                new = w - step
                # stay in the upper half plane, at most a factor 4 closer to the axis per step
                shrink = new.imag < 0.25 * w.imag
                while shrink.any():
                    step = np.where(shrink, 0.5 * step, step)
                    new = w - step
                    shrink = (new.imag < 0.25 * w.imag) & (np.abs(step) > 1e-300)
                w = new
            return w

        top = max(1.0, self.mean) * (math.e * (L + 1) if s else 10.0)
        y = np.full_like(lam, 1e4 * top)
        y_end = 1e-12 * lam
        steps = 60
        ratio = (y_end / y) ** (1 / steps)
        z = lam + 1j * y
        m0 = self.mean / z
        w = newton(mu1 / m0 + 0j, np.log(z), 12)
        for _ in range(steps):
            z_new = lam + 1j * y * ratio
            _, df = residual(w, np.log(z))
            move = np.log(z_new / z) / (w * df)                          # d log w = d log z / (w f′(w))
            move = np.where(np.isfinite(move), move, 0.0)
            move = np.where(np.abs(move) > 1, move / np.maximum(np.abs(move), 1), move)
            cand = w * np.exp(move)
            w = np.where(cand.imag > 0, cand, w)
            z, y = z_new, y * ratio
            w = newton(w, np.log(z), 3)
        return parts(w)[0]

    def pdf(self, lam, rule: int = 0) -> np.ndarray:
        """The density ρ(λ) = −Im M(λ + i0)/(πλ) (0 where the root is real: outside the support)."""
        lam = np.atleast_1d(np.asarray(lam, dtype=float))
        out = np.zeros_like(lam)
        pos = lam > 0
        if pos.any():
            m = self._solve(lam[pos], rule)
            if not np.all(np.isfinite(m)):
                bad = lam[pos][~np.isfinite(m)][0]
                raise DeepinitError(f"the continuation of M(λ + i0) failed at λ = {bad:.6g} (a non-finite root)")
            im = -m.imag
            out[pos] = np.where(im > 1e-9 * np.abs(m), im, 0.0) / (np.pi * lam[pos])
        return out

    def pdf_with_error(self, lam) -> tuple[np.ndarray, np.ndarray]:
        """(ρ(λ), 3 × |ρ − ρ on the half rule|): an estimate of the rule's error, not a bound — where ρ is below
        about 10⁻³ of its peak (tails the rule resolves with few nodes) both rules can read 0 in gaps of the true
        support, which this does not see; the moments' error covers their mass."""
        a, b = self.pdf(lam, 0), self.pdf(lam, 1)
        return a, 3 * np.abs(a - b)

    def _support(self):
        """The intervals where ρ > 0: a scan of 400 points log-spaced over 12 decades below an upper bound E′ (doubled
        until ρ(E′) = 0), each end then bisected to 10⁻¹³ relative; a span reaching the scan's first point starts
        at 0."""
        cached = self.__dict__.get("_support_cache")
        if cached is None:
            top = max(1.0, self.mean) * (math.e * (self.depth + 1) if self.weights == "gaussian" else 10.0)
            while self.pdf(np.array([top]))[0] > 0:
                top *= 2
            grid = top * np.logspace(-12, 0, 400)
            inside = self.pdf(grid) > 0
            spans = []
            k = 0
            while k < len(grid):
                if inside[k]:
                    j = k
                    while j + 1 < len(grid) and inside[j + 1]:
                        j += 1
                    spans.append([k, j])
                    k = j + 1
                else:
                    k += 1
            ends = []
            for k, j in spans:
                lo = 0.0 if k == 0 else self._bisect(grid[k - 1], grid[k])
                hi = self._bisect(grid[j + 1], grid[j]) if j + 1 < len(grid) else top
                ends.append((lo, hi))
            cached = tuple(ends)
            object.__setattr__(self, "_support_cache", cached)
        return cached

    def _bisect(self, outside: float, inside: float) -> float:
        """The support's end between a point where ρ = 0 and one where ρ > 0."""
        for _ in range(44):
            mid = math.sqrt(outside * inside)
            if self.pdf(np.array([mid]))[0] > 0:
                inside = mid
            else:
                outside = mid
            if abs(inside - outside) <= 1e-13 * inside:
                break
        return 0.5 * (inside + outside)

    @property
    def support(self) -> tuple:
        """The intervals (lo, hi) on which ρ > 0 (lo = 0 when the density reaches 0)."""
        return self._support()

    def _panels(self, rule: int = 0):
        cached = self.__dict__.get(f"_panel_cache{rule}")
        if cached is None:
            from .jacobian_density import _panel_boundaries
            b = _panel_boundaries(self._support(), 24, math.exp(8))
            pairs = [(lo, hi) for lo, hi in zip(b[:-1], b[1:])
                     if any(a <= lo and hi <= c for a, c in self._support())]
            lo, hi = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
            logp = (lo > 0) & (hi > 2.5 * lo)                 # wide panels near 0: Gauss–Legendre in log λ
            a = np.where(logp, np.log(np.where(lo > 0, lo, 1.0)), lo)
            c = np.where(logp, np.log(hi), hi)
            # the panel touching an end (≠ 0) of a span: ρ ∝ t^(−α) in the distance t to the end (α from ρ at t = h,
            # 2h; a soft edge α = −½, a hard one α = ½) — its mass r₁h/(1 − α), which no fixed rule resolves
            ends = {}
            for lo_s, hi_s in self._support():
                for end, inward in ((lo_s, 1), (hi_s, -1)):
                    if end == 0:
                        continue
                    j = int(np.argmin(np.abs(np.where(inward > 0, lo, hi) - end)))
                    h = hi[j] - lo[j]
                    r1, r2 = self.pdf(np.array([end + inward * h, end + inward * 2 * h]), rule)
                    if r1 > 0 and r2 > 0:
                        alpha = min(math.log2(r1 / r2), 0.999)
                        ends[j] = (r1 * h / (1 - alpha), end + inward * h / 2)
            rules = []
            for gx, gw in ((_GQ_X, _GQ_W), np.polynomial.legendre.leggauss(4)):
                t = 0.5 * (a + c)[:, None] + 0.5 * (c - a)[:, None] * gx[None, :]
                xs = np.where(logp[:, None], np.exp(t), t)
                wts = 0.5 * (c - a)[:, None] * gw[None, :] * np.where(logp[:, None], xs, 1.0)
                f = self.pdf(xs.ravel(), rule).reshape(xs.shape)
                for j, (mass, mid) in ends.items():        # the end panel as one node carrying its mass
                    f[j] = 0.0
                    f[j, 0], xs[j, 0], wts[j, 0] = 1.0, mid, mass
                rules.append((xs, wts, f))
            cached = tuple(rules)
            object.__setattr__(self, f"_panel_cache{rule}", cached)
            object.__setattr__(self, "_panel_bounds", (lo, hi))
        return cached

    def moment(self, k: int) -> Estimate:
        """∫ λ^k ρ dλ (k = 0, 1, 2) by Gauss–Legendre (8 nodes) on panels graded geometrically to every end of the
        support (in log λ near 0; the end panels as power laws); error: the difference from a 4-node rule on the
        same panels plus 3 × the difference from the density on the half rule for φ′(h)² (the rule's gaps in the
        tails, :meth:`pdf_with_error`, move the mass by up to 6e-5 at L = 2 with orthogonal weights)."""
        if k not in (0, 1, 2):
            raise DeepinitError(f"moment k = {k!r}: 0, 1 or 2")
        (xs, wts, f), (x4, w4, f4) = self._panels(0)
        xh, wh, fh = self._panels(1)[0]
        v, v4, vh = (float(np.sum(a * b ** k * c)) for a, b, c in ((f, xs, wts), (f4, x4, w4), (fh, xh, wh)))
        return Estimate(v, abs(v - v4) + 3 * abs(v - vh) + 1e-13 * abs(v),
                        f"∫λ^{k}ρ, Gauss–Legendre on panels graded to the support's ends; error: 8 against 4 nodes "
                        f"per panel, plus 3 × the difference from the half rule for φ′(h)²")

    def cdf(self, lam) -> np.ndarray:
        """P(eigenvalue ≤ λ) = ∫₀^λ ρ: the masses of the panels of :meth:`moment` below λ, plus Gauss–Legendre
        (8 nodes) on the part of λ's panel below it."""
        lam = np.atleast_1d(np.asarray(lam, dtype=float))
        xs, wts, f = self._panels(0)[0]
        lo, hi = self.__dict__["_panel_bounds"]
        cum = np.concatenate([[0.0], np.cumsum((f * wts).sum(1))])
        j = np.searchsorted(hi, lam, side="right")                 # panels wholly below λ
        out = cum[j]
        part = (j < len(lo)) & (lam > np.where(j < len(lo), lo[np.minimum(j, len(lo) - 1)], np.inf))
        if part.any():
            a, b = lo[j[part]], lam[part]
            x = 0.5 * (a + b)[:, None] + 0.5 * (b - a)[:, None] * _GQ_X[None, :]
            out[part] += (self.pdf(x.ravel()).reshape(x.shape) @ _GQ_W) * 0.5 * (b - a)
        return np.minimum(out, cum[-1])


def jacobian_spectral_density_smooth(act, sigma_w2: float, sigma_b2: float, depth: int, *,
                                     weights: str = "orthogonal", nodes: int = 800) -> SmoothJacobianDensity:
    """The limiting eigenvalue law of JJᵀ for a depth-L network at the fixed point q*, for any φ (module docstring).

    Parameters
    ----------
    act : Activation or str
        φ (its φ′ may jump but must carry no Dirac mass).
    sigma_w2, sigma_b2 : float
        σ_w² > 0, σ_b² ≥ 0 with a stable fixed point q* (:func:`theory.fixed_point_q`).
    depth : int
        L, 1 ≤ L ≤ 200.
    weights : str
        "orthogonal" or "gaussian".
    nodes : int
        Points of the rule for the law of φ′(h)² (a second rule of half as many gives the error).

    Returns
    -------
    SmoothJacobianDensity
        ``pdf``, ``pdf_with_error``, ``cdf``, ``moment``.

    Examples
    --------
    >>> law = jacobian_spectral_density_smooth("tanh", 1.05, 0.01, depth=4)
    >>> m1 = law.moment(1)
    >>> bool(abs(m1.value - law.mean) < 1e-6 * law.mean)
    True
    """
    act = act if isinstance(act, Activation) else activation(act)
    from .meanfield_mlp import _params, fixed_point_q
    sw, sb, _ = _params(sigma_w2, sigma_b2)
    depth = validate.integer(depth, "depth", 1, 200)
    nodes = validate.integer(nodes, "nodes", 64, 20000)
    if weights not in ("gaussian", "orthogonal"):
        raise DeepinitError(f"weights must be 'gaussian' or 'orthogonal', not {weights!r}")
    q = fixed_point_q(act, sw, sb).value
    rules = (d2_rule(act, q, nodes), d2_rule(act, q, nodes // 2))
    x, p = rules[0]
    if float(p @ x) <= 0:
        raise UndefinedQuantityError(f"E φ′(h)² = 0 at q* = {q:g}: the Jacobian vanishes")
    mean = (sw * float(p @ x)) ** depth
    method = (f"free multiplicative convolution at the fixed point q* = {q:.6g} ({weights} weights, L = {depth}): "
              f"M(λ + i0) by Newton continuation in w = M_D²⁻¹(m) on a {len(x)}-point rule for φ′(h)² "
              f"(error: against {len(rules[1][0])} points)")
    return SmoothJacobianDensity(weights, depth, sw, q, mean, method, rules)
