"""The whole spectrum of JJᵀ by free probability: the density of the squared singular values of the input–output
Jacobian of a deep σ_w²/σ_b² network whose φ′² takes two values {0, c²} (linear networks, ReLU, hard tanh, steps of
φ′ in general), for Gaussian and orthogonal weights (Pennington, Schoenholz, Ganguli 2017, Sections 2–3).

Setting and notation are those of :mod:`theory.jacobian`. With p_l = P(φ′(h^l) ≠ 0) = P over h ~ N(0, q^l), the
diagonal D_l² = c²·Bernoulli(p_l) has the S-transform S_{D²}(m) = (1 + m)/(c²(m + p_l)); the weights have
S_{WWᵀ}(m) = 1/(σ_w²(1 + m)) (Gaussian: Marchenko–Pastur at ratio 1) or 1/σ_w² (orthogonal). In the limit
N → ∞ the factors are asymptotically free and S_{JJᵀ} = Π_l S_{D_l²} S_{W_lW_lᵀ}, so with M(z) = Σ_k m_k z^{−k}
(the moment generating function, M = zG − 1) and its inverse M⁻¹(m) = (1 + m)/(m S(m)):

    z = M⁻¹(m) = (1 + m)^{1 − L(1 − s)} Π_l σ_w²c²(m + p_l) / m,        s = 1 (Gaussian), 0 (orthogonal).

For each λ > 0 the root m = M(λ + i0) on the physical branch is followed from z = i·∞ (where M ≈ m₁/z) down the
vertical line z = λ + iy by Newton's method, and the density of the continuous part is ρ(λ) = −Im M(λ + i0)/(πλ).
A mass 1 − min_l p_l sits at λ = 0 (J has rank min_l p_l N); it adds nothing to M, and the mass of the rest is
−M(0⁻) (m solved on the negative axis, where it is real). Orthogonal weights may also put a mass at the hard edge
(σ_w²c²)^L (the vectors no layer's D zeroes), found as the residue of M there. Edges of the support are the
critical values of
z = M⁻¹(m) on the real m axis and, for orthogonal weights, its limit (σ_w²c²)^L as m → ±∞ (a hard edge, where
the density diverges). The distribution function is 1 − ∫_λ^E ρ, E the upper edge, by composite
Gauss–Legendre on panels graded towards every edge; its error is the difference between two panel refinements.

Linear networks with Gaussian weights at σ_w² = 1 give the Fuss–Catalan law, whose density has an independent
closed form (Haagerup–Möller/Penson–Życzkowski parametrisation, :func:`fuss_catalan_density`), and upper edge
(L + 1)^{L+1}/L^L.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from . import validate
from .activations import Activation, activation
from .errors import DeepinitError, UndefinedQuantityError
from .results import Estimate

__all__ = ["JacobianDensity", "jacobian_spectral_density", "fuss_catalan_density", "bernoulli_fraction"]

_GL_X, _GL_W = np.polynomial.legendre.leggauss(12)


def _clog1p(w):
    """log(1 + w) for complex w, accurate for small |w| (real part by log1p of 2Re w + |w|²)."""
    w = np.asarray(w, dtype=complex)
    return 0.5 * np.log1p(w.real * (2 + w.real) + w.imag ** 2) + 1j * np.arctan2(w.imag, 1 + w.real)


def _derivative_without_atoms(act) -> tuple[Activation, Activation]:
    """(φ, φ′) for a Jacobian's law; a φ that jumps (φ′ with a Dirac mass) is refused in one line."""
    act = act if isinstance(act, Activation) else activation(act)
    d1 = act.derivative(1)
    if d1.dirac_atoms:
        raise UndefinedQuantityError(f"{act.name} jumps: φ′ carries a Dirac mass, so the Jacobian is undefined")
    return act, d1


def bernoulli_fraction(act, q: float) -> tuple[float, float]:
    """(p, c²) for an activation whose φ′² takes only the values 0 and c²: p = P(φ′(√q z) ≠ 0), z ~ N(0, 1).

    Raises :class:`~theory.errors.DeepinitError` in one line when φ′ is not piecewise constant with values in
    {0, ±c} (its S-transform is then not this rational function).

    Examples
    --------
    >>> bernoulli_fraction("relu", 3.0)
    (0.5, 1.0)
    >>> p, c2 = bernoulli_fraction("min(max(x, -1), 1)", 1.0); round(p, 12), c2     # erf(1/√2)
    (0.682689492137, 1.0)
    """
    act, d1 = _derivative_without_atoms(act)
    if act.derivative(2).expr != 0:
        raise DeepinitError(f"the free-probability density needs φ′ piecewise constant with φ′² ∈ {{0, c²}}; "
                            f"{act.name} has φ″ = {act.derivative(2).expr} (use jacobian_spectral_density_smooth at "
                            "the fixed point, or jacobian_spectrum_moments)")
    cuts = sorted(set(float(b) for b in act.breakpoints))
    probes = ([cuts[0] - 1.0] + [(a + b) / 2 for a, b in zip(cuts, cuts[1:])] + [cuts[-1] + 1.0]) if cuts else [0.0]
    vals = np.asarray(d1.numpy(np.array(probes, dtype=float)), dtype=float) ** 2 * np.ones(len(probes))
    nonzero = vals[vals > 0]
    if nonzero.size == 0:
        raise UndefinedQuantityError(f"φ′ = 0 almost everywhere for {act.name}: the Jacobian vanishes")
    c2 = float(nonzero[0])
    if not np.allclose(nonzero, c2, rtol=1e-14, atol=0):
        raise DeepinitError(f"φ′² of {act.name} takes the values {sorted(set(vals.tolist()))}: the density needs "
                            f"φ′² ∈ {{0, c²}}")
    edges = [-math.inf] + cuts + [math.inf]
    s = math.sqrt(q) if q > 0 else 0.0

    def mass(a, b):                                   # P(a < √q z < b), by erfc for precision in the tails
        if s == 0:
            return 1.0 if a < 0 < b or (a < 0 and b == 0) else 0.0
        lo, hi = a / s, b / s
        if lo >= 0:
            return 0.5 * (math.erfc(lo / math.sqrt(2)) - math.erfc(hi / math.sqrt(2)))
        if hi <= 0:
            return 0.5 * (math.erfc(-hi / math.sqrt(2)) - math.erfc(-lo / math.sqrt(2)))
        return 1 - 0.5 * (math.erfc(hi / math.sqrt(2)) + math.erfc(-lo / math.sqrt(2)))
    p = sum(mass(a, b) for (a, b), v in zip(zip(edges, edges[1:]), vals) if v > 0)
    return min(p, 1.0), c2


@dataclass(frozen=True)
class JacobianDensity:
    """The limiting law of the eigenvalues of JJᵀ: a mass ``atom`` at 0 and a density on the support.

    Attributes
    ----------
    weights : str
        "gaussian" or "orthogonal".
    p : tuple of float
        p_l = P(φ′(h^l) ≠ 0) for l = 1..L.
    gain : float
        σ_w² c² (one layer's factor).
    atom : float
        The mass at λ = 0, 1 − min_l p_l.
    mass : Estimate
        The continuous part's mass, −M(0⁻) (equals min_l p_l).
    edges : tuple of float
        The support's edges other than 0, increasing; the last is the upper edge E.
    support : tuple of (float, float)
        The intervals on which the density is positive.
    top_atom : (float, Estimate)
        Orthogonal weights: the mass at E₀ = (σ_w²c²)^L of the vectors no layer's D zeroes, max(0, 1 − Σ_l (1 − p_l))
        (the trace of the intersection of free projections; :meth:`top_atom_residue` is the second route);
        Gaussian: (0, 0).
    method : str
        How the law was computed.

    Examples
    --------
    >>> law = jacobian_spectral_density("identity", 1.0, 0.0, depth=2, q1=1.0)     # Fuss–Catalan, s = 2
    >>> round(law.edges[-1], 12), round(float(law.cdf(law.edges[-1])[0]), 12)        # (L+1)^{L+1}/L^L = 27/4
    (6.75, 1.0)
    """

    weights: str
    p: tuple
    gain: float
    atom: float
    mass: Estimate
    edges: tuple
    method: str
    support: tuple = ()
    top_atom: tuple = (0.0, Estimate(0.0, 0.0, "none"))
    _panels: tuple = field(default=(), repr=False, compare=False)
    _table: tuple = field(default=(), repr=False, compare=False)

    @property
    def depth(self) -> int:
        return len(self.p)

    # -- the defining equation, in δ = m + p₀ (p₀ = min p_l), so that no factor loses digits near λ = 0 --------
    def _terms(self):
        """(p₀, the distinct p_l − p₀, their multiplicities, the exponent a = 1 − L(1 − s) of 1 + m), cached."""
        cached = self.__dict__.get("_terms_cache")
        if cached is None:
            p = np.asarray(self.p)
            p0 = float(p.min())
            d, n = np.unique(p - p0, return_counts=True)
            cached = (p0, d, n, 1 - len(p) * (1 - (1 if self.weights == "gaussian" else 0)))
            object.__setattr__(self, "_terms_cache", cached)
        return cached

    def _residual(self, delta, z):
        """log M⁻¹(m) − log z and its derivative in δ. For orthogonal weights at |m| > 1 the powers of m cancel
        (a + L − 1 = 0) and the residual is written with log1p in 1/m and (z − (σ_w²c²)^L)/(σ_w²c²)^L, which keeps
        its digits near the hard edge (σ_w²c²)^L, where m → ∞."""
        p0, d, n, a = self._terms()
        m = delta - p0
        f = (a * np.log(delta + (1 - p0)) + sum(k * np.log(self.gain * (delta + dj)) for dj, k in zip(d, n))
             - np.log(m) - np.log(z))
        df = a / (delta + (1 - p0)) + sum(k / (delta + dj) for dj, k in zip(d, n)) - 1 / m
        if self.weights == "orthogonal":
            far = np.abs(m) > 1
            if far.any():
                mf, zf = m[far], z[far] if np.ndim(z) else z
                top = self.gain ** len(self.p)
                ff = (a * _clog1p(1 / mf) + sum(k * _clog1p((dj + p0) / mf) for dj, k in zip(d, n))
                      - _clog1p((zf - top) / top))
                f[far] = ff
                df[far] = (-a / (mf * (mf + 1)) - sum(k * (dj + p0) / (mf * (mf + dj + p0)) for dj, k in zip(d, n)))
        f = f - 2j * np.pi * np.round(f.imag / (2 * np.pi))             # only exp(f) = 1 matters
        return f, df

    def _newton(self, delta, z, iterations=8):
        """Newton's method on the logarithm of z = M⁻¹(m), each step at most half the distance from δ to the
        nearest zero or pole of M⁻¹ (so that the iterate stays on the branch it starts on)."""
        p0, d, _, _ = self._terms()
        for _ in range(iterations):
            f, df = self._residual(delta, z)
            step = f / df
            room = np.minimum(np.abs(delta - p0), np.abs(delta + (1 - p0)))
            for dj in d:
                room = np.minimum(room, np.abs(delta + dj))
            size = np.abs(step)
            scale = np.where(size > 0.5 * room, 0.5 * room / np.where(size > 0, size, 1.0), 1.0)
            delta = delta - np.where(np.isfinite(step), step * scale, 0.0)
        return delta

    def stieltjes_m(self, lam) -> np.ndarray:
        """M(λ + i0) on the physical branch, for λ > 0 (array): followed down z = λ + iy from y = 10⁴E (where
        M ≈ m₁/z) to y = 10⁻¹³λ in 80 geometric steps — each a first-order predictor in log δ (exact on the power
        laws of M near 0, near a hard edge and at i∞) and Newton's method — then polished at y = 0."""
        lam = np.atleast_1d(np.asarray(lam, dtype=float))
        p0 = self._terms()[0]
        delta = self._follow(lam, np.maximum(1e-13 * lam, 1e-300))
        return self._newton(delta, lam + 0j, 8) - p0

    def _follow(self, lam, y_end):
        """δ at z = λ + i·y_end, followed from y = 10⁴E (:meth:`stieltjes_m`)."""
        p0 = self._terms()[0]
        m1 = self.gain ** len(self.p) * float(np.prod(self.p))
        steps = 80
        y = np.full_like(lam, 1e4 * max(self.edges[-1] if self.edges else 1.0, 1.0))
        ratio = (y_end / y) ** (1 / steps)
        z = lam + 1j * y
        delta = self._newton(p0 + m1 / z, z)
        for _ in range(steps):
            z_new = lam + 1j * y * ratio
            _, df = self._residual(delta, z)
            move = np.log(z_new / z) / (delta * df)                     # d log δ = d log z / (δ F′(δ))
            move = np.where(np.isfinite(move), move, 0.0)
            move = np.where(np.abs(move) > 30, move * 30 / np.maximum(np.abs(move), 30), move)
            delta, z, y = delta * np.exp(move), z_new, y * ratio
            delta = self._newton(delta, z, 4)
        return delta

    def top_atom_residue(self) -> Estimate:
        """The mass at the hard edge E₀ = (σ_w²c²)^L of orthogonal weights: the residue lim_{y→0} iy·M(E₀ + iy)/E₀
        (M ≈ w E₀/(z − E₀) near an atom), at y = 10⁻⁹E₀ and 10⁻¹¹E₀ (their difference is the error): the second
        route to :attr:`top_atom`'s closed form (a density diverging like t^{−1/2} at E₀ adds O(√y))."""
        top = self.gain ** len(self.p)
        p0 = self._terms()[0]
        vals = []
        for y in (1e-9 * top, 1e-11 * top):
            m = self._follow(np.array([top]), np.array([y]))[0] - p0
            vals.append(float((1j * y * m).real) / top)
        w = max(vals[1], 0.0)
        return Estimate(w, abs(vals[0] - vals[1]) + 1e-12, "the residue iy·M(E₀ + iy)/E₀ at y = 10⁻¹¹E₀")

    def _m_negative(self, eps: float) -> float:
        """M(−ε) (real), followed along the negative axis from −10⁴E."""
        p0 = self._terms()[0]
        m1 = self.gain ** len(self.p) * float(np.prod(self.p))
        z = -1e4 * max(self.edges[-1], 1.0)
        ratio = (eps / -z) ** (1 / 200)
        delta = self._newton(np.array([p0 + m1 / z + 0j]), np.array([z + 0j]))
        for _ in range(200):
            z *= ratio
            delta = self._newton(delta, np.array([z + 0j]), 4)
        return float(delta.real[0] - p0)

    def pdf(self, lam) -> np.ndarray:
        """Density of the continuous part at λ (0 outside the support)."""
        lam = np.atleast_1d(np.asarray(lam, dtype=float))
        out = np.zeros_like(lam)
        if self.support:
            inside = np.zeros(lam.shape, dtype=bool)
            for lo, hi in self.support:
                inside |= (lam > lo) & (lam < hi)
        else:
            inside = (lam > 0) & (lam < self.edges[-1])
        if inside.any():
            m = self.stieltjes_m(lam[inside])
            im = np.maximum(-m.imag, 0.0)
            if not self.support:                          # while the support is found: a real root is a gap
                im = np.where(im > 64 * np.finfo(float).eps * (1 + np.abs(m)), im, 0.0)
            out[inside] = im / (np.pi * lam[inside])
        return out

    def _panel_integrals(self, level: int):
        """(boundaries, ∫ρλ^k over each panel for k = 0, 1, 2) on one refinement: Gauss–Legendre in λ, or in log λ
        on the panels wider than a factor 2.5 (the span at 0). The panel at each end of a span is integrated as a
        power law ρ ∝ t^{−α} in the distance t to the end (α from ρ at t = h and 2h), which takes the mass of a
        divergent density at a hard edge or at 0 that the last panel cannot resolve."""
        b = self._panels[level]
        logp = (b[:-1] > 0) & (b[1:] > 2.5 * b[:-1])
        lo_ = np.where(logp, np.log(np.where(b[:-1] > 0, b[:-1], 1.0)), b[:-1])
        hi_ = np.where(logp, np.log(b[1:]), b[1:])
        h = 0.5 * (hi_ - lo_)
        t = 0.5 * (hi_ + lo_)[:, None] + h[:, None] * _GL_X[None, :]
        x = np.where(logp[:, None], np.exp(t), t)
        jac = np.where(logp[:, None], x, 1.0)
        f = self.pdf(x.ravel()).reshape(x.shape) * jac
        out = [(f * x ** k) @ _GL_W * h for k in range(3)]
        ends = np.array(sorted({e for span in self.support for e in span}))
        dist = np.min(np.abs(x[..., None] - ends), axis=-1)
        # the nodes are rounded to floats: near an edge, ρ(x) is off by about |dρ/dt|·ulp(x) ≈ ρ·ulp(x)/t
        rounding = [float(((f * x ** k * np.abs(x) * np.finfo(float).eps / np.maximum(dist, 1e-300)) @ _GL_W * h).sum())
                    for k in range(3)]
        for lo, hi in self.support:
            for end, inward in ((lo, 1), (hi, -1)):
                j = int(np.searchsorted(b, end)) - (1 if inward < 0 else 0)      # the panel touching the end
                w = b[j + 1] - b[j]
                r1, r2 = self.pdf(np.array([end + inward * w, end + inward * 2 * w]))
                if r1 > 0 and r2 > 0:
                    alpha = min(math.log2(r1 / r2), 0.999)
                    mass = r1 * w / (1 - alpha)
                    for k in range(3):
                        out[k][j] = mass * (end + inward * w / 2) ** k
        return b, out, rounding

    def cdf(self, lam) -> np.ndarray:
        """P(eigenvalue ≤ λ), the atoms included: 1 − ∫_λ^E ρ − (the atom at (σ_w²c²)^L when λ is below it);
        F(0) is the atom at 0."""
        lam = np.atleast_1d(np.asarray(lam, dtype=float))
        b, (i0, _, _), _ = self._table[0]
        tail = np.concatenate([np.cumsum(i0[::-1])[::-1], [0.0]])             # ∫ from each boundary to E
        k = np.clip(np.searchsorted(b, lam, side="right"), 1, len(b) - 1)     # λ ∈ [b[k−1], b[k])
        lo, hi = np.clip(lam, b[0], b[-1]), b[k]
        x = 0.5 * (lo + hi)[:, None] + 0.5 * (hi - lo)[:, None] * _GL_X[None, :]
        part = self.pdf(x.ravel()).reshape(x.shape) @ _GL_W * 0.5 * (hi - lo)
        upper = np.where(lam >= b[-1], 0.0, tail[k] + part)
        loc, w = self.top_atom
        upper = upper + np.where(lam < loc, w.value, 0.0)
        return np.where(lam < 0, 0.0, np.where(lam == 0, self.atom, 1.0 - upper))      # F(0) is the atom at 0

    def quantile(self, u) -> np.ndarray:
        """The smallest λ with P(eigenvalue ≤ λ) ≥ u, for each u in (0, 1) (array): the distribution function on a
        panel boundaries brackets each root, then Newton steps on F(λ) − u with the density, kept inside the
        bracket (bisection when a step leaves it), until |F(λ) − u| ≤ 1e-11 or the bracket is 1e-12 relative. A u
        inside an atom's jump returns (to the bracket's width) the atom's location."""
        u = np.atleast_1d(np.asarray(u, dtype=float))
        if not np.all((u > 0) & (u < 1)):
            raise DeepinitError("quantile levels must lie in (0, 1)")
        b, (i0, _, _), _ = self._table[0]                    # F at the panel boundaries, from the panels' integrals
        loc, w = self.top_atom
        grid = b
        F = 1.0 - np.concatenate([np.cumsum(i0[::-1])[::-1], [0.0]]) - np.where(b < loc, w.value, 0.0)
        F = np.maximum.accumulate(F)
        k = np.clip(np.searchsorted(F, u, side="left"), 0, len(grid) - 1)   # F(grid[k]) ≥ u > F(grid[k−1])
        hi = grid[k]
        lo = np.where(k > 0, grid[np.maximum(k - 1, 0)], 0.0)
        x = 0.5 * (lo + hi)
        for _ in range(60):
            f = self.cdf(x) - u
            done = (np.abs(f) <= 1e-11) | (hi - lo <= 1e-12 * np.maximum(hi, 1e-300))
            if done.all():
                break
            lo, hi = np.where(f < 0, x, lo), np.where(f >= 0, x, hi)
            rho = self.pdf(x)
            step = np.where(rho > 0, x - f / np.where(rho > 0, rho, 1.0), 0.5 * (lo + hi))
            step = np.where((step >= lo) & (step <= hi) & (step != x), step, 0.5 * (lo + hi))
            x = np.where(done, x, step)
        return x

    def moment(self, k: int) -> Estimate:
        """∫ λ^k dμ for k = 1, 2 by the panels; error: the difference of two refinements plus the effect of the
        nodes' rounding near the edges."""
        if k not in (1, 2):
            raise DeepinitError(f"moment k = {k!r}: 1 or 2")
        v0, v1 = (float(t[1][k].sum()) for t in self._table)
        loc, w = self.top_atom
        v0, v1 = v0 + w.value * loc ** k, v1 + w.value * loc ** k
        return Estimate(v0, abs(v0 - v1) + self._table[0][2][k] + w.error * loc ** k + 1e-15 * abs(v0),
                        f"∫λ^{k}ρ by Gauss–Legendre panels graded to the edges (two refinements)")

    def continuous_mass(self) -> Estimate:
        """∫ρ over the panels (10⁻³⁰⁰E to E); with the top atom it equals :attr:`mass` (−M(0⁻))."""
        v0, v1 = (float(t[1][0].sum()) for t in self._table)
        return Estimate(v0, abs(v0 - v1) + self._table[0][2][0] + 1e-15,
                        "∫ρ by Gauss–Legendre panels graded to the edges (two refinements)")


def _critical_values(law: JacobianDensity) -> list[float]:
    """λ = M⁻¹(m) at the real critical points of M⁻¹ (the candidates for the support's edges)."""
    p0, d, n, a = law._terms()
    P = np.polynomial.Polynomial
    lin = lambda c: P([c, 1.0])                                       # noqa: E731  (δ + c)
    prod_d = P([1.0])
    for dj in d:
        prod_d = prod_d * lin(dj)
    poly = a * prod_d * lin(-p0)
    for j, (dj, k) in enumerate(zip(d, n)):
        others = P([1.0])
        for i, di in enumerate(d):
            if i != j:
                others = others * lin(di)
        poly = poly + k * lin(1 - p0) * lin(-p0) * others
    poly = poly - lin(1 - p0) * prod_d
    out = []
    for r in (poly.roots() if poly.degree() > 0 else []):
        if abs(r.imag) > 1e-9 * max(1.0, abs(r)):
            continue
        r, m = r.real, r.real - p0
        if abs(m) < 1e-14 or abs(1 + m) < 1e-14 or any(abs(r + dj) < 1e-14 for dj in d):
            continue
        logz = (a * math.log(abs(r + 1 - p0)) + sum(k * math.log(law.gain * abs(r + dj)) for dj, k in zip(d, n))
                - math.log(abs(m)))
        sign = (math.copysign(1, r + 1 - p0) ** (a % 2) * math.prod(math.copysign(1, r + dj) ** (k % 2)
                                                                    for dj, k in zip(d, n)) * math.copysign(1, m))
        if sign > 0 and logz < 700:
            out.append(math.exp(logz))
    if a + len(law.p) - 1 == 0:                      # orthogonal: M⁻¹(m) → (σ_w²c²)^L as m → ±∞, a hard edge
        out.append(law.gain ** len(law.p))
    return sorted(set(out))


def _panel_boundaries(spans, levels: int, zero_factor: float) -> np.ndarray:
    """Panel boundaries on the support's spans: graded geometrically to both ends of each span (ratio 2,
    ``levels`` deep) and, on a span that starts at 0 (or at an edge below 2^−levels of its width), below that by
    factors ``zero_factor`` down to 10⁻³⁰⁰ of the span."""
    pts = []
    for lo, hi in spans:
        w = hi - lo
        if lo < 2.0 ** -levels * w:                      # 0, or an edge tiny against the span: grade in log λ
            decades = 300 * math.log(10) - levels * math.log(2)                  # from 2^−levels·w to 10⁻³⁰⁰w
            n = int(math.ceil(decades / math.log(zero_factor)))
            left = list(lo + w * 2.0 ** -levels * np.exp(-decades * np.arange(n, 0, -1) / n))
            left += [lo + w * 0.5 ** j for j in range(levels, 1, -1)]
        else:
            left = [lo + w * 0.5 ** j for j in range(levels, 1, -1)]
        right = [hi - w * 0.5 ** j for j in range(2, levels + 1)][::-1]
        pts += [lo] + left + [lo + 0.5 * w] + right + [hi]
    return np.unique(np.array(pts))


def jacobian_spectral_density(act, sigma_w2: float, sigma_b2: float, depth: int, *, q1: float | None = None,
                              weights: str = "gaussian") -> JacobianDensity:
    """The limiting eigenvalue law of JJᵀ for a depth-L network (module docstring).

    Parameters
    ----------
    act : Activation or str
        φ with φ′² ∈ {0, c²} (identity, ReLU, hard tanh ``min(max(x, -1), 1)``, …).
    sigma_w2, sigma_b2 : float
        σ_w² > 0, σ_b² ≥ 0.
    depth : int
        L, 1 ≤ L ≤ 1000.
    q1 : float, optional
        Variance of the first layer's pre-activations; default: the fixed point q* the iterates reach.
    weights : str
        "gaussian" or "orthogonal".

    Returns
    -------
    JacobianDensity
        pdf, cdf, moments, atom at 0, support edges.

    Examples
    --------
    >>> law = jacobian_spectral_density("relu", 2.0, 0.0, depth=4, q1=1.0, weights="orthogonal")
    >>> law.atom, round(law.mass.value, 9), round(law.moment(1).value, 9)      # m₁ = χ^L = 1
    (0.5, 0.5, 1.0)
    """
    act = act if isinstance(act, Activation) else activation(act)
    from .meanfield_mlp import _params, fixed_point_q, length_map
    sw, sb, _ = _params(sigma_w2, sigma_b2)
    depth = validate.integer(depth, "depth", 1, 1000)
    if weights not in ("gaussian", "orthogonal"):
        raise DeepinitError(f"weights must be 'gaussian' or 'orthogonal', not {weights!r}")
    q = fixed_point_q(act, sw, sb).value if q1 is None else float(q1)
    if not (q >= 0 and math.isfinite(q)):
        raise DeepinitError(f"q1 = {q1!r} must be a finite number ≥ 0")
    ps, c2 = [], 1.0
    for layer in range(depth):
        p, c2 = bernoulli_fraction(act, q)
        if p <= 0:
            raise UndefinedQuantityError(f"P(φ′ ≠ 0) = 0 at q = {q:g}: the Jacobian vanishes")
        ps.append(p)
        if layer + 1 < depth:
            q = length_map(act, q, sw, sb).value
    gain = sw * c2
    if weights == "orthogonal" and (min(ps) == 1.0 or depth == 1):
        raise UndefinedQuantityError(
            f"orthogonal weights at depth {depth} with p = {min(ps):.6g}: JJᵀ = σ_w²D² has point masses at 0 and "
            f"σ_w²c² only, no density" if depth == 1 else
            f"JJᵀ = (σ_w²c²)^L I = {gain ** depth:g} I: orthogonal weights and φ′² = c² everywhere give a point mass")
    method = (f"free multiplicative convolution ({weights} weights, L = {depth}, σ_w²c² = {gain:.6g}, "
              f"p_l from {min(ps):.6g} to {max(ps):.6g}): M(λ + i0) by Newton continuation from i∞")
    law = JacobianDensity(weights, tuple(ps), gain, 1.0 - min(ps), Estimate(0.0, 0.0, ""), (), method)
    edges = _critical_values(law)
    if not edges:
        raise DeepinitError("no edge of the support found: M⁻¹ has no real critical point")
    object.__setattr__(law, "edges", tuple(edges))
    bounds = [0.0] + edges
    spans = [(lo, hi) for lo, hi in zip(bounds, bounds[1:]) if law.pdf(np.array([0.5 * (lo + hi)]))[0] > 0]
    merged = []
    for lo, hi in spans:                                 # adjacent spans with density on both sides: one interval
        if merged and merged[-1][1] == lo:
            merged[-1] = (merged[-1][0], hi)
        else:
            merged.append((lo, hi))
    object.__setattr__(law, "support", tuple(merged))
    if weights == "orthogonal":
        w = max(0.0, 1.0 - sum(1.0 - p for p in ps))
        atom = Estimate(w, 1e-15, "max(0, 1 − Σ_l (1 − p_l)): the trace of the intersection of free projections")
        object.__setattr__(law, "top_atom", (gain ** depth, atom))
    object.__setattr__(law, "edges", tuple(sorted({e for span in merged for e in span} - {0.0})))
    object.__setattr__(law, "_panels", (_panel_boundaries(merged, 36, math.exp(8)),
                                        _panel_boundaries(merged, 30, math.exp(10))))
    object.__setattr__(law, "_table", tuple(law._panel_integrals(level) for level in (0, 1)))
    e1, e2 = 1e-250 * edges[-1], 1e-300 * edges[-1]
    m1, m2 = law._m_negative(e1), law._m_negative(e2)
    object.__setattr__(law, "mass", Estimate(-m2, abs(m1 - m2) + 1e-14, "−M(0⁻): M(−10⁻³⁰⁰E), the real root "
                                                                          "followed along the negative axis"))
    return law


def fuss_catalan_density(s: int, phi) -> tuple[np.ndarray, np.ndarray]:
    """(x, ρ(x)) of the Fuss–Catalan law of order s (the eigenvalues of JJᵀ for s Gaussian factors at σ_w² = 1) in
    its angle parametrisation, φ ∈ (0, π/(s + 1)):

        x(φ) = sin((s+1)φ)^{s+1} / (sin φ · sin(sφ)^s),
        ρ(x(φ)) = sin²φ · sin(sφ)^{s−1} / (π sin((s+1)φ)^s)        (Haagerup & Möller 2012).

    An independent closed form for :func:`jacobian_spectral_density` at ``identity``, Gaussian weights, σ_w² = 1.

    Parameters
    ----------
    s : int
        The order (the number of Gaussian factors, the depth L).
    phi : array_like
        Angles in (0, π/(s + 1)); φ → 0 is the upper edge (s+1)^{s+1}/s^s, φ → π/(s + 1) the origin.

    Returns
    -------
    x, rho : numpy.ndarray
        The points and the density there.

    Examples
    --------
    >>> x, r = fuss_catalan_density(1, np.array([np.pi / 4]))      # s = 1: Marchenko–Pastur at ratio 1, x = 2
    >>> round(float(x[0]), 12), round(float(r[0]), 12)             # √(4 − x)/(2π√x) at x = 2
    (2.0, 0.159154943092)
    """
    s = validate.integer(s, "s", 1, 10_000)
    phi = np.asarray(phi, dtype=float)
    a, b, c = np.sin((s + 1) * phi), np.sin(phi), np.sin(s * phi)
    x = a ** (s + 1) / (b * c ** s)
    rho = b ** 2 * c ** (s - 1) / (np.pi * a ** s)
    return x, rho
