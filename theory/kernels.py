"""Kernels of whole input sets through deep σ_w²/σ_b² networks: the NNGP kernel and the neural tangent kernel.

Setting (that of :mod:`theory.meanfield_mlp`): x ∈ ℝ^d, z¹ = W¹x/√d·σ_w + b¹σ_b, then L hidden layers
y^l = φ(z^l), z^{l+1} = W^{l+1} y^l σ_w/√N + b^{l+1}σ_b, every weight and bias N(0, 1) ("NTK parameterisation",
the convention of neural-tangents' ``stax.Dense(W_std=σ_w, b_std=σ_b)``); with dropout each y^l_j is kept with
probability ρ (``keep``) and rescaled by 1/ρ.

* NNGP (Neal 1996; Lee et al. 2018, eq 4; Poole et al. 2016, eqs 3 and 5): K⁰ = σ_w² X Xᵀ/d + σ_b² and
  K^{l+1}_ab = σ_w² E φ(u_a)φ(u_b) + σ_b², (u_a, u_b) ~ N(0, K^l restricted to {a, b}), the diagonal divided by ρ
  under dropout (an input meets its own mask twice).
* NTK (Jacot, Gabriel, Hongler 2018, Theorem 1; Lee et al. 2019, eq 7 in the NTK parameterisation): Θ⁰ = K⁰ and
  Θ^{l+1}_ab = K^{l+1}_ab + σ_w² E φ′(u_a)φ′(u_b) Θ^l_ab (the diagonal's expectation again divided by ρ).

The pair expectation F(q_aa, q_bb, q_ab) = E φ(u_a)φ(u_b) and its derivative kernel Ḟ = E φ′(u_a)φ′(u_b) =
∂F/∂q_ab (Price's theorem) are evaluated for all pairs at once, by one of three routes:

* **closed forms** (cost O(1) per pair, independent of the variances): positively homogeneous piecewise-linear φ
  (ReLU, leaky ReLU, |x|, identity: the arc-cosine kernels of Cho & Saul 2009, written with θ = atan2(√det, q_ab)
  so that c → 1 loses no digits) and piecewise constant φ (step); k·erf(αx) (Williams 1997), k·sin(αx),
  k·cos(αx), k·exp(αx); GELU x Φ(x) (derived here: GELU(u) = u·1[ξ ≤ u] with ξ ~ N(0,1) independent, which
  reduces E GELU(u_a)GELU(u_b) to the second moments of a bivariate normal on an orthant);
* **the logistic scale mixture** for k·tanh(αx) + m and k·sigmoid(αx) + m: tanh(x) = ∫ erf(x/(√2 s)) p(s) ds with p
  the density of the Kolmogorov distribution (the logistic law is a normal scale mixture, Andrews & Mallows 1974;
  Stefanski 1991), so E tanh(αu_a)tanh(αu_b) = (2/π) ∫∫ atan2(α²q_ab, R(s,t)) p(s)p(t) ds dt with
  R² = s²t² + α²(q_aa t² + q_bb s²) + α⁴ det — a smooth integrand on the support of p for every variance and
  correlation, integrated by a Gauss rule for the weight p in log s (:data:`MIXTURE_NODES` nodes per variable,
  computed in mpmath and rounded once);
* **quadrature** for every other φ: :func:`theory.gaussian.bivariate_expectation` pair by pair (nested
  Gauss–Legendre split at the kinks; seconds per layer for a few thousand pairs).

Each closed form and the mixture are checked on first use against the bivariate quadrature at three covariances
(an activation a pattern matched wrongly would fail there and fall back to quadrature).

Arrays. The closed forms, the mixture and the recursion are written once for any array-API namespace
(``array_api_compat``): numpy's by default, torch's on any device through :func:`network_kernels`' ``xp`` and
``device`` (:func:`numerics.network_kernels_on_device` passes them; this module never imports torch). The
pair-by-pair quadrature runs on the host either way.

Errors. The recursion is run as asked and again with every layer's K and Θ moved by 4 ulps entrywise (random
signs: a stochastic-rounding estimate) — three times for the closed forms, fresh signs every layer; once for the
mixture, on a second Gauss rule of :data:`MIXTURE_NODES_CHECK` nodes with one sign pattern for every layer (rounding
that adds up with one sign, the pessimistic model, so that one run suffices), and for pair-by-pair quadrature — and
the reported error of each entry is three times the largest difference plus 8 ulps of the value: an estimate (not a
bound) of the rounding and quadrature error carried to depth L, held in the tests to the mpmath route
(:func:`kernel_entries_reference`), to a 50-digit arc-cosine recursion (ReLU) and to a 30-digit tanh recursion at
depth 100 (tests/data/tanh_kernels_depth100.json). Where two inputs' correlation comes within a few ulps of 1
(1 − c ≈ 1e-16 deep in the ordered phase), float64 no longer holds their difference and the derivative kernel
(θ ≈ √(2(1 − c))) is known only to ~1e-8: the error says so.
"""
from __future__ import annotations

import copy
import functools
import math
from dataclasses import dataclass

import array_api_compat
import array_api_compat.numpy as numpy_namespace
import mpmath
import numpy as np
import sympy as sp

from . import validate
from .activations import Activation, activation, x
from .errors import DeepinitError, UndefinedQuantityError
from .gaussian import bivariate_expectation, mp_gaussian
from .results import MatrixEstimate

__all__ = ["MIXTURE_NODES", "MIXTURE_NODES_CHECK", "NetworkKernels", "kernel_entries_reference", "kernel_route",
           "kolmogorov_density", "network_kernels", "nngp_kernel", "ntk_kernel"]

#: Gauss nodes per mixing variable of the tanh/sigmoid route (256 atan2 per pair and layer)
MIXTURE_NODES = 16
#: the second rule whose difference from the first enters the reported error
MIXTURE_NODES_CHECK = 12
#: the largest input set: n(n+1)/2 pairs per layer are held in memory several times over
MAX_INPUTS = 4096
_EPS = np.finfo(float).eps


# ---------------------------------------------------------------------------------------------
# pair expectations F(q_aa, q_bb, q_ab) and Ḟ = ∂F/∂q_ab, vectorised over pairs
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Pairs:
    """The pairs of one layer: variances, covariance and det = q_aa q_bb − q_ab² (≥ 0, exact 0 on the diagonal),
    as arrays of the array-API namespace ``xp`` (numpy's, or torch's on any device) on ``device``."""
    q1: np.ndarray
    q2: np.ndarray
    q12: np.ndarray
    det: np.ndarray
    xp: object = numpy_namespace
    device: object = "cpu"
    #: elements per temporary of a chunked route: ~0.5 MB on a CPU (cache), ~128 MB on an accelerator
    chunk: int = 1 << 16


class _Route:
    name = ""
    #: second runs of the error estimate: three for the cheap closed forms; the mixture and the pair-by-pair
    #: quadrature run one (the mixture's on its second rule)
    error_runs = 3
    #: a single run moves each entry the same way at every layer (:func:`_run`): the pessimistic one of the two
    #: rounding models, so that one run is enough where three fresh ones are too dear
    coherent_error_run = False

    def pair(self, p: _Pairs) -> np.ndarray:
        raise NotImplementedError

    def pair_derivative(self, p: _Pairs) -> np.ndarray:
        raise NotImplementedError

    def pairs(self, p: _Pairs, derivative: bool):
        """(F, Ḟ or None) for every pair."""
        return self.pair(p), (self.pair_derivative(p) if derivative else None)

    def with_nodes(self, nodes: int) -> "_Route":
        return self


class _PiecewiseHomogeneous(_Route):
    """φ(x) = a·x (x > 0), b·x (x < 0) (degree 1) or φ = A (x > 0), B (x < 0) (degree 0); θ = atan2(√det, q_ab)."""

    def __init__(self, degree: int, right: float, left: float):
        self.degree, self.a, self.b = degree, right, left
        self.name = (f"closed form (arc-cosine kernel of degree {degree}, slopes {right:g}/{left:g})" if degree
                     else f"closed form (arc-cosine kernel of degree 0, values {right:g}/{left:g})")

    @staticmethod
    def _theta(p):
        return p.xp.atan2(p.xp.sqrt(p.det), p.q12)

    def pair(self, p):
        th, a, b = self._theta(p), self.a, self.b
        if self.degree == 1:
            root = p.xp.sqrt(p.det)
            return ((a * a + b * b) * (root + (math.pi - th) * p.q12) - 2 * a * b * (root - th * p.q12)) / (2 * math.pi)
        return a * b + (a - b) ** 2 * (math.pi - th) / (2 * math.pi)

    def pair_derivative(self, p):
        if self.degree == 0:
            if self.a == self.b:
                return p.xp.zeros_like(p.q12)
            raise UndefinedQuantityError("φ jumps at 0: φ′ carries a Dirac mass, so E φ′φ′ and the NTK are infinite")
        th, a, b = self._theta(p), self.a, self.b
        return ((a * a + b * b) * (math.pi - th) + 2 * a * b * th) / (2 * math.pi)


class _Erf(_Route):
    """k·erf(αx): F = k²(2/π) atan2(2α²q_ab, √(1 + 2α²(q_aa + q_bb) + 4α⁴ det)) (Williams 1997)."""

    def __init__(self, k, alpha):
        self.k2, self.a2 = k * k, alpha * alpha
        self.name = f"closed form (arcsine kernel of {k:g}·erf({alpha:g}x))"

    def _root(self, p):
        return p.xp.sqrt(1 + 2 * self.a2 * (p.q1 + p.q2) + 4 * self.a2 * self.a2 * p.det)

    def pair(self, p):
        return self.k2 * (2 / math.pi) * p.xp.atan2(2 * self.a2 * p.q12, self._root(p))

    def pair_derivative(self, p):
        return self.k2 * (4 * self.a2 / math.pi) / self._root(p)


class _Trig(_Route):
    """k·sin(αx), k·cos(αx), k·exp(αx): Gaussian characteristic functions."""

    def __init__(self, kind, k, alpha):
        self.kind, self.k2, self.a2 = kind, k * k, alpha * alpha
        self.name = f"closed form ({k:g}·{kind}({alpha:g}x), Gaussian characteristic function)"

    def _parts(self, p):
        exp = p.xp.exp
        if self.kind == "exp":
            return exp(self.a2 * (p.q1 + p.q2 + 2 * p.q12) / 2)
        # e^{−α²(q_aa+q_bb)/2}·sinh(α²q_ab) and ·cosh as differences of exponentials: no 0·∞ at large variances
        half = self.a2 * (p.q1 + p.q2) / 2
        up, down = exp(self.a2 * p.q12 - half), exp(-self.a2 * p.q12 - half)
        return (up - down) / 2, (up + down) / 2

    def pair(self, p):
        if self.kind == "exp":
            return self.k2 * self._parts(p)
        s, c = self._parts(p)
        return self.k2 * (s if self.kind == "sin" else c)

    def pair_derivative(self, p):
        if self.kind == "exp":
            return self.k2 * self.a2 * self._parts(p)
        s, c = self._parts(p)
        return self.k2 * self.a2 * (c if self.kind == "sin" else s)


class _Identity(_Route):
    def __init__(self, k):
        self.k2 = k * k
        self.name = f"closed form (linear {k:g}·x)"

    def pair(self, p):
        return self.k2 * p.q12

    def pair_derivative(self, p):
        return p.xp.full_like(p.q12, self.k2)


@functools.lru_cache(maxsize=4)
def _gelu_functions(xp=numpy_namespace):
    """E GELU(u_a)GELU(u_b) and its q_ab-derivative, lambdified from one sympy expression (module docstring) into
    the array-API namespace ``xp`` (its ``sqrt``, ``asin`` and ``pi``)."""
    q1, q2, q12 = sp.symbols("q1 q2 q12", real=True)
    W11, W22 = 1 + q1, 1 + q2
    dW = W11 * W22 - q12 ** 2
    A11, A12, A21, A22 = (q1 * W22 - q12 ** 2) / dW, q12 / dW, q12 / dW, (q2 * W11 - q12 ** 2) / dW
    r = q12 / sp.sqrt(W11 * W22)
    s = sp.sqrt(1 - r ** 2)
    P = sp.Rational(1, 4) + sp.asin(r) / (2 * sp.pi)
    M11 = W11 * (P + r * s / (2 * sp.pi))
    M22 = W22 * (P + r * s / (2 * sp.pi))
    M12 = sp.sqrt(W11 * W22) * (r * P + s / (2 * sp.pi))
    R12 = q12 - (A11 * q12 + A12 * q2)
    F = A11 * A21 * M11 + (A11 * A22 + A12 * A21) * M12 + A12 * A22 * M22 + R12 * P
    dF = sp.diff(F, q12)
    return (sp.lambdify((q1, q2, q12), F, modules=[xp], cse=True),
            sp.lambdify((q1, q2, q12), dF, modules=[xp], cse=True))


class _Gelu(_Route):
    name = "closed form (GELU: orthant moments of a bivariate normal)"

    def pair(self, p):
        return _gelu_functions(p.xp)[0](p.q1, p.q2, p.q12)

    def pair_derivative(self, p):
        return _gelu_functions(p.xp)[1](p.q1, p.q2, p.q12)


# -- the logistic scale mixture ----------------------------------------------------------------

def kolmogorov_density(s) -> np.ndarray:
    """The density p(s) of the Kolmogorov distribution, P(K ≤ s) = 1 − 2 Σ_{j≥1} (−1)^{j−1} e^{−2j²s²}
    = (√(2π)/s) Σ_{j≥1} e^{−(2j−1)²π²/(8s²)}: the second series below s = 1.2, the first above (both to
    rounding there). tanh(x) = ∫ erf(x/(√2 s)) p(s) ds (Stefanski 1991).

    Parameters
    ----------
    s : array_like
        Points s ≥ 0.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> from scipy.integrate import quad
    >>> round(quad(kolmogorov_density, 0, 10)[0], 12)
    1.0
    """
    s = np.asarray(s, dtype=float)
    out = np.zeros_like(s)
    small = (s > 0) & (s < 1.2)
    k = s[small]
    acc = np.zeros_like(k)
    for j in range(1, 8):
        a = (2 * j - 1) ** 2 * math.pi ** 2 / 8
        acc += math.sqrt(2 * math.pi) * np.exp(-a / k ** 2) * (2 * a / k ** 4 - 1 / k ** 2)
    out[small] = acc
    big = s >= 1.2
    k = s[big]
    acc = np.zeros_like(k)
    for j in range(1, 12):
        acc += 8 * k * (-1) ** (j - 1) * j * j * np.exp(-2 * j * j * k * k)
    out[big] = acc
    return out


def _mixture_rule_mp(nodes: int, dps: int = 30) -> tuple[np.ndarray, np.ndarray]:
    """Gauss nodes s_i and weights w_i for the weight p(s) on (0, ∞), exact for polynomials in v = log s of degree
    below 2·nodes, computed in mpmath at ``dps`` digits and rounded once to float64: the Stieltjes procedure on a
    48-point-per-piece Gauss–Legendre discretisation of the density of v, p(e^v)e^v, over s ∈ [0.05, 6]
    (p < 1e-29 outside), then Golub–Welsch (mpmath.eigsy), the weights normalised to sum to 1.

    Why mpmath: the same procedure in float64 gives a rule whose F and Ḟ are biased by −3.5e-16 relative (the
    recurrence and the eigenvectors' first components lose a few ulps, always the same way), a bias the NTK's sum
    over layers amplifies by 1/(1 − σ_w² Ḟ) (1e-13 at depth 60, σ_w² = 1.5) and which a second float rule shares, so
    that the error run cannot see it; this rule's bias is below 1e-16.

    Why log s: as a function of s_a the integrand atan2(α²q_ab, R_ab) is singular only on the imaginary axis
    (at s_a = ±iα√q_aa, and where R_ab = 0, nearer 0 as the correlation nears 1), within about α√q of the
    support's left end when the variances are small: a rule in s then converges slowly (1e-11 at 24 nodes for tanh
    at σ_w² = 1, depth 100, where q ≈ 0.005). In v = log s a point iy lies at log y ± iπ/2, a fixed distance π/2
    from the real axis for every variance and correlation, so the rule converges geometrically at one rate for
    q → 0 and q → ∞ (about 1e-14 at 14 nodes)."""
    with mpmath.workdps(dps):
        base = mpmath.calculus.quadrature.GaussLegendre(mpmath.mp).calc_nodes(5, mpmath.mp.prec)   # 3·2⁴ points
        cuts = [mpmath.log(mpmath.mpf(c)) for c in
                ("0.05", "0.15", "0.25", "0.35", "0.5", "0.7", "0.9", "1.2", "1.6", "2.1", "2.8", "3.6", "4.6", "6")]
        V, W = [], []
        for a, b in zip(cuts[:-1], cuts[1:]):
            for t, wt in base:
                v = (a + b) / 2 + (b - a) / 2 * t
                V.append(v)
                W.append((b - a) / 2 * wt * _kolmogorov_density_mp(mpmath.exp(v)) * mpmath.exp(v))
        alpha, beta = [], []
        prev, cur, norm_prev = [mpmath.mpf(0)] * len(V), [mpmath.mpf(1)] * len(V), mpmath.mpf(1)
        for k in range(nodes):
            norm = mpmath.fsum(w * c * c for w, c in zip(W, cur))
            alpha.append(mpmath.fsum(w * v * c * c for w, v, c in zip(W, V, cur)) / norm)
            beta.append(norm / norm_prev if k else mpmath.mpf(0))
            prev, cur, norm_prev = cur, [(v - alpha[k]) * c - beta[k] * q for v, c, q in zip(V, cur, prev)], norm
        J = mpmath.matrix(nodes, nodes)
        for i in range(nodes):
            J[i, i] = alpha[i]
            if i + 1 < nodes:
                J[i, i + 1] = J[i + 1, i] = mpmath.sqrt(beta[i + 1])
        E, Q = mpmath.eigsy(J)
        w = [Q[0, i] ** 2 for i in range(nodes)]
        total = mpmath.fsum(w)
        return (np.array([float(mpmath.exp(E[i])) for i in range(nodes)]),
                np.array([float(wi / total) for wi in w]))


def _kolmogorov_density_mp(s):
    """:func:`kolmogorov_density` in mpmath (its two series, to the working precision for s in [0.05, 6])."""
    if s < 1.2:
        return mpmath.fsum(mpmath.sqrt(2 * mpmath.pi) * mpmath.exp(-a / s ** 2) * (2 * a / s ** 4 - 1 / s ** 2)
                           for a in ((2 * j - 1) ** 2 * mpmath.pi ** 2 / 8 for j in range(1, 12)))
    return mpmath.fsum(8 * s * (-1) ** (j - 1) * j * j * mpmath.exp(-2 * j * j * s * s) for j in range(1, 20))


#: the rules of :data:`MIXTURE_NODES` and :data:`MIXTURE_NODES_CHECK` nodes, as :func:`_mixture_rule_mp` computes
#: them (float.hex; tests/test_kernels.py recomputes them to the bit)
_MIXTURE_RULES = {
    16: (("0x1.f02c26fff4d30p-3 0x1.251bc150e1ab1p-2 0x1.573163667ceb8p-2 0x1.9235ac9b23fd4p-2 "
          "0x1.d99dfebcb5067p-2 0x1.18a58feb3ecdfp-1 0x1.4ed5f78ec0ae5p-1 0x1.91c122c2c458ap-1 "
          "0x1.e39b1bdcffc99p-1 0x1.22f71f83fd186p+0 0x1.5cc071bad7cfcp+0 0x1.9f7ebc6e5eb7bp+0 "
          "0x1.ebe1cd0c12c01p+0 0x1.21b98faee46cep+1 0x1.54e693756aea8p+1 0x1.94b51ec398489p+1").split(),
         ("0x1.e7335f913276ap-25 0x1.8a4b10814dd9ep-17 0x1.b74b960b3ab4cp-12 0x1.5312e0c5738fap-8 "
          "0x1.e73c795b7e597p-6 0x1.818763a3487ddp-4 0x1.77d3ed63a9e5dp-3 0x1.e90793adb2860p-3 "
          "0x1.bfa6804c4e386p-3 0x1.24ebd24e83669p-3 0x1.08f74a9dbaff8p-4 0x1.31ab4e93c58a4p-6 "
          "0x1.8f11c4d2f2cc5p-9 0x1.ef0cd44be2297p-13 0x1.b01bd81f26699p-18 0x1.06c5feae8d540p-25").split()),
    12: (("0x1.1c150300971eep-2 0x1.5b0201e1f67f3p-2 0x1.a54ad0c6456fap-2 0x1.010fcc9812127p-1 "
          "0x1.3c7aa6c8fa2aap-1 0x1.891287f130355p-1 0x1.eadf868b26aa1p-1 0x1.324abbb9e1723p+0 "
          "0x1.7bc3dc9989192p+0 0x1.d2f5d6572dc16p+0 0x1.1d8bb00b84b34p+1 0x1.5f44199aea629p+1").split(),
         ("0x1.b542a3d669710p-18 0x1.4cc29bc2933b8p-11 0x1.6a3c5fa789867p-7 0x1.11a0a484e5cbep-4 "
          "0x1.7da3143e86815p-3 0x1.215d5a86dfe1ep-2 0x1.06d23115f826dp-2 0x1.24feeb6892cb3p-3 "
          "0x1.74b79d01d9d60p-5 0x1.c86099a737ec1p-8 0x1.8f722881ac1bbp-12 0x1.fe9f4fd8bf52ep-19").split()),
}


@functools.lru_cache(maxsize=8)
def _mixture_rule(nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """The Gauss rule of :func:`_mixture_rule_mp`: from the stored table for the kernels' two rules, else computed
    (about 0.4 s)."""
    if nodes in _MIXTURE_RULES:
        s, w = _MIXTURE_RULES[nodes]
        return np.array([float.fromhex(v) for v in s]), np.array([float.fromhex(v) for v in w])
    return _mixture_rule_mp(nodes)


class _TanhMixture(_Route):
    """k·tanh(αx) + m: F = m² + k²(2/π) Σ_ab w_a w_b atan2(α² q_ab, R_ab), Ḟ = k²(2α²/π) Σ_ab w_a w_b / R_ab,
    R_ab² = s_a² s_b² + α²(q_aa s_b² + q_bb s_a²) + α⁴ det (E tanh = 0, so m enters F as m² only)."""

    def __init__(self, k, alpha, shift, nodes=MIXTURE_NODES, label=""):
        self.k2, self.a2, self.m2, self.nodes = k * k, alpha * alpha, shift * shift, nodes
        self.label = label or f"{k:g}·tanh({alpha:g}x) + {shift:g}"
        self.name = f"logistic scale mixture of erf ({self.label}; {nodes}×{nodes} Gauss nodes)"

    error_runs = 1
    coherent_error_run = True

    def with_nodes(self, nodes):
        r = copy.copy(self)
        r.nodes = nodes
        r.name = f"logistic scale mixture of erf ({self.label}; {nodes}×{nodes} Gauss nodes)"
        return r

    def pairs(self, p, derivative):
        # R_ab² = (s_a² + α²q_aa)(s_b² + α²q_bb) − α⁴q_ab², written as the sum of non-negative terms
        # s_a²s_b² + α²(q_aa s_b² + q_bb s_a²) + α⁴ det so that c → 1 loses no digits
        s, w = _mixture_rule(self.nodes)
        s2 = s * s
        xp = p.xp
        sa2, sb2, ss, ww = (xp.asarray(v, device=p.device) for v in
                            (np.repeat(s2, len(s)), np.tile(s2, len(s)), np.repeat(s2, len(s)) * np.tile(s2, len(s)),
                             np.outer(w, w).ravel()))
        a2 = self.a2
        F = xp.empty_like(p.q12)
        D = xp.empty_like(p.q12) if derivative else None
        chunk = max(1, p.chunk // len(w) ** 2)
        for lo in range(0, F.shape[0], chunk):
            sl = slice(lo, lo + chunk)
            R = (a2 * p.q1[sl])[:, None] * sb2
            R += (a2 * p.q2[sl])[:, None] * sa2
            R += ss
            R += (a2 * a2 * p.det[sl])[:, None]
            R = xp.sqrt(R)
            if derivative:
                D[sl] = (1 / R) @ ww
            F[sl] = xp.atan2((a2 * p.q12[sl])[:, None], R) @ ww
        F = self.m2 + self.k2 * (2 / math.pi) * F
        return F, (self.k2 * (2 * a2 / math.pi) * D if derivative else None)

    def pair(self, p):
        return self.pairs(p, False)[0]

    def pair_derivative(self, p):
        return self.pairs(p, True)[1]


class _Quadrature(_Route):
    """Any φ: :func:`theory.gaussian.bivariate_expectation` pair by pair (and on φ′ for the NTK)."""

    error_runs = 1

    def __init__(self, act: Activation):
        self.act = act
        self.name = "quadrature (nested Gauss–Legendre per pair, kinks split)"

    def _each(self, f, p):
        q1, q2, q12s = (np.asarray(array_api_compat.to_device(a, "cpu")) for a in (p.q1, p.q2, p.q12))
        out = np.empty_like(q12s)
        for i in range(len(out)):
            q12 = min(max(q12s[i], -math.sqrt(q1[i] * q2[i])), math.sqrt(q1[i] * q2[i]))
            out[i] = bivariate_expectation(f, f, q1[i], q2[i], q12).value
        return p.xp.asarray(out, device=p.device)

    def pair(self, p):
        return self._each(self.act, p)

    def pair_derivative(self, p):
        d = self.act.derivative(1)
        if d.dirac_atoms:
            raise UndefinedQuantityError(f"{self.act.name} jumps: φ′ carries a Dirac mass, so E φ′φ′ and the NTK "
                                         "are infinite")
        return self._each(d, p)


# -- choosing the route -------------------------------------------------------------------------

def _number(e) -> float | None:
    try:
        v = float(e)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def _scaled_match(expr, head):
    """(k, α, m) with expr = k·head(αx) + m, or None."""
    k, a, m = sp.Wild("k", exclude=[x]), sp.Wild("a", exclude=[x]), sp.Wild("m", exclude=[x])
    d = sp.expand(expr).match(k * head(a * x) + m)
    if not d:
        return None
    vals = [_number(d.get(w, 0)) for w in (k, a, m)]
    if None in vals or vals[0] == 0 or vals[1] == 0:
        return None
    return tuple(vals)


def _linear_pieces(act: Activation):
    """[(slope, intercept)] of every piece, left to right, when each piece is affine; else None."""
    out = []
    for _, e in act.pieces:
        try:
            poly = sp.Poly(sp.expand(e), x)
        except sp.PolynomialError:
            return None
        c1, c0 = _number(poly.coeff_monomial(x)), _number(poly.coeff_monomial(1))
        if poly.degree() > 1 or c1 is None or c0 is None:
            return None
        out.append((c1, c0))
    return out


def _homogeneous(act: Activation) -> _Route | None:
    """k·x, or a kink at 0 only with both pieces through the origin (degree 1) or both constant (degree 0)."""
    pieces = _linear_pieces(act)
    if pieces is None:
        return None
    if act.breakpoints == () and len(pieces) == 1 and pieces[0][1] == 0:
        return _Identity(pieces[0][0])
    if act.breakpoints != (0.0,) or len(pieces) != 2:
        return None
    (l1, l0), (r1, r0) = pieces
    if l0 == 0 and r0 == 0:
        return _PiecewiseHomogeneous(1, r1, l1)
    if l1 == 0 and r1 == 0:
        return _PiecewiseHomogeneous(0, r0, l0)
    return None


def _candidate(act: Activation) -> _Route | None:
    expr = act.expr
    hom = _homogeneous(act)
    if hom is not None:
        return hom
    for head, make in ((sp.erf, lambda k, a, m: _Erf(k, a) if m == 0 else None),
                       (sp.tanh, lambda k, a, m: _TanhMixture(k, a, m)),
                       (sp.sin, lambda k, a, m: _Trig("sin", k, a) if m == 0 else None),
                       (sp.cos, lambda k, a, m: _Trig("cos", k, a) if m == 0 else None),
                       (sp.exp, lambda k, a, m: _Trig("exp", k, a) if m == 0 else None)):
        got = _scaled_match(expr, head)
        if got is not None:
            route = make(*got)
            if route is not None:
                return route
    k, a, m = sp.Wild("k", exclude=[x]), sp.Wild("a", exclude=[x]), sp.Wild("m", exclude=[x])
    d = expr.match(k / (1 + sp.exp(a * x)) + m)           # k·sigmoid(−a x) + m = k/2 + m + (k/2)·tanh(−a x/2)
    if d:
        kk, aa, mm = (_number(d.get(w, 0)) for w in (k, a, m))
        if None not in (kk, aa, mm) and kk != 0 and aa != 0:
            return _TanhMixture(kk / 2, -aa / 2, mm + kk / 2, label=act.name)
    if sp.expand(expr - x * (1 + sp.erf(x / sp.sqrt(2))) / 2) == 0:
        return _Gelu()
    return None


@functools.lru_cache(maxsize=256)
def _route_for(act: Activation) -> _Route:
    route = _candidate(act)
    if route is not None and _confirmed(route, act):
        return route
    return _Quadrature(act)


def _confirmed(route: _Route, act: Activation) -> bool:
    """The route agrees with :func:`bivariate_expectation` (nested Gauss–Legendre) at three covariances, for φ
    and (where φ′ has no Dirac mass) for φ′."""
    trial = [(1.0, 1.0, 0.5), (0.3, 2.0, -0.6), (2.5, 0.7, 1.1)]
    q1, q2, q12 = (np.array(v) for v in zip(*trial))
    p = _Pairs(q1, q2, q12, np.maximum(q1 * q2 - q12 * q12, 0.0))
    d = act.derivative(1)
    checks = [(route.pair, act)] + ([] if d.dirac_atoms else [(route.pair_derivative, d)])
    for fn, f in checks:
        with np.errstate(all="ignore"):
            got = fn(p)
        for i, (a, b, c) in enumerate(trial):
            ref = bivariate_expectation(f, f, a, b, c)
            if not abs(got[i] - ref.value) <= 1e-11 * max(1.0, abs(ref.value)) + 10 * ref.error:
                return False
    return True


def kernel_route(act) -> str:
    """The route by which :func:`nngp_kernel` and :func:`ntk_kernel` evaluate φ's pair expectations.

    Parameters
    ----------
    act : Activation or str
        φ (a registry name, a formula or an Activation).

    Returns
    -------
    str
        "closed form (…)", "logistic scale mixture of erf (…)" or "quadrature (…)", with the parameters matched.

    Examples
    --------
    >>> kernel_route("relu")
    'closed form (arc-cosine kernel of degree 1, slopes 1/0)'
    >>> kernel_route("tanh")[:27]
    'logistic scale mixture of e'
    """
    return _route_for(act if isinstance(act, Activation) else activation(act)).name


# ---------------------------------------------------------------------------------------------
# the recursion
# ---------------------------------------------------------------------------------------------

def _first_layer(inputs, input_gram, sw, sb) -> np.ndarray:
    if (inputs is None) == (input_gram is None):
        raise DeepinitError("give the inputs (an n × d array) or their Gram matrix input_gram = X Xᵀ/d, not both")
    if inputs is not None:
        try:
            X = np.asarray(inputs, dtype=float)
        except (TypeError, ValueError):
            raise DeepinitError("inputs must be a real n × d array") from None
        if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
            raise DeepinitError(f"inputs must be an n × d array with n, d ≥ 1; got shape {X.shape}")
        if not np.all(np.isfinite(X)):
            raise DeepinitError("inputs have non-finite entries")
        G = X @ X.T / X.shape[1]
    else:
        G = validate.gram_matrix(input_gram, "input_gram", batched=False)
    if G.shape[0] > MAX_INPUTS:
        raise DeepinitError(f"{G.shape[0]} inputs: at most {MAX_INPUTS} (the pairs of one layer are held in memory)")
    return sw * (G + G.T) / 2 + sb


@dataclass(frozen=True)
class _Layout:
    """Where a recursion runs: the array namespace, its device, the upper triangle's indices (i ≤ j) and its
    diagonal's positions among them, and the chunk size of chunked routes."""
    xp: object
    device: object
    iu: tuple
    on_diag: object
    chunk: int

    @classmethod
    def of(cls, n: int, xp=None, device=None) -> "_Layout":
        xp = numpy_namespace if xp is None else xp
        device = "cpu" if device is None else device
        iu_np = np.triu_indices(n)
        iu = tuple(xp.asarray(i, device=device) for i in iu_np)
        on_diag = xp.asarray(iu_np[0] == iu_np[1], device=device)
        accelerator = str(device).split(":")[0] not in ("cpu",)
        return cls(xp, device, iu, on_diag, 1 << 24 if accelerator else 1 << 16)

    def put(self, values):
        """The symmetric n × n array whose upper triangle is ``values``."""
        n = int(self.iu[0][-1]) + 1
        A = self.xp.empty((n, n), dtype=values.dtype, device=self.device)
        A[self.iu] = values
        A[self.iu[1], self.iu[0]] = values
        return A


def _layer(route: _Route, K, at: _Layout, sw, sb, rho, with_derivative: bool):
    xp, iu, on_diag = at.xp, at.iu, at.on_diag
    q1, q2, q12 = K[iu[0], iu[0]], K[iu[1], iu[1]], K[iu]
    bound = xp.sqrt(q1 * q2)
    q12 = xp.where(on_diag, q1, xp.minimum(xp.maximum(q12, -bound), bound))
    det = xp.where(on_diag, 0.0, xp.maximum(q1 * q2 - q12 * q12, 0.0))
    p = _Pairs(q1, q2, q12, det, xp, at.device, at.chunk)
    scale = xp.where(on_diag, sw / rho, sw)
    with np.errstate(over="ignore", invalid="ignore"):
        F, D = route.pairs(p, with_derivative)
    return scale * F + sb, (scale * D if with_derivative else None)


def _jitter_pattern(n: int, rng) -> np.ndarray:
    """A symmetric ±1 pattern: the signs with which an error run moves a layer's entries by 4 ulps."""
    pattern = rng.choice([-1.0, 1.0], size=(n, n))
    return np.triu(pattern) + np.triu(pattern, 1).T


def _run(route, K0, depth, sw, sb, rho, ntk: bool, rng=None, coherent: bool = False, at: _Layout | None = None):
    """K^L (and Θ^L); with ``rng``, every layer's K and Θ are moved by 4 ulps entrywise before the next map, so that
    the difference from the plain run measures the rounding carried through the depth: with a fresh ±1 pattern each
    layer (stochastic rounding), or with ``coherent`` one pattern for every layer — each entry always moved the same
    way, as rounding that adds up with one sign where the map is neutral (tanh at σ_w² = 1, σ_b² = 0, depth 100:
    the fresh signs' estimate covered 0.6 of the true error there, against a 30-digit reference).

    ``K0`` is a numpy array; the layers run in ``at``'s namespace and device (numpy on the CPU by default), the
    sign patterns drawn by numpy's ``rng`` either way, and K^L (Θ^L) come back in that namespace."""
    n = K0.shape[0]
    at = _Layout.of(n) if at is None else at
    xp = at.xp
    fixed = _jitter_pattern(n, rng) if rng is not None and coherent else None

    def moved(A):
        if rng is None:
            return A
        pattern = fixed if fixed is not None else _jitter_pattern(n, rng)
        return A * xp.asarray(1 + 4 * _EPS * pattern, device=at.device)
    K = moved(xp.asarray(K0, copy=True, device=at.device))
    T = K
    for _ in range(depth):
        F, D = _layer(route, K, at, sw, sb, rho, ntk)
        if ntk:
            T = moved(at.put(F + D * T[at.iu]))
        K = moved(at.put(F))
        if not bool(xp.all(xp.isfinite(K))) or (ntk and not bool(xp.all(xp.isfinite(T)))):
            raise DeepinitError("the kernel overflowed float64 (the variance grows without bound with depth at "
                                "these σ_w², σ_b²)")
    return K, (T if ntk else None)


@dataclass(frozen=True)
class NetworkKernels:
    """The NNGP and neural tangent kernels of an input set at depth L.

    Attributes
    ----------
    nngp : MatrixEstimate
        K^L: the covariance of the output pre-activations (Lee et al. 2018).
    ntk : MatrixEstimate or None
        Θ^L (Jacot et al. 2018), or None when only the NNGP was asked for.
    route : str
        How the pair expectations were evaluated (:func:`kernel_route`).
    depth : int
        L, the number of hidden layers.

    Examples
    --------
    >>> k = network_kernels("erf", input_gram=[[1.0, 0.2], [0.2, 0.5]], depth=3, sigma_w2=2.0)
    >>> k.nngp.shape, k.ntk.shape, k.depth, k.route.startswith("closed form")
    ((2, 2), (2, 2), 3, True)
    """

    nngp: MatrixEstimate
    ntk: MatrixEstimate | None
    route: str
    depth: int


def network_kernels(act, inputs=None, depth: int = 1, sigma_w2: float = 1.0, sigma_b2: float = 0.0,
                    keep: float = 1.0, *, input_gram=None, ntk: bool = True, xp=None, device=None) -> NetworkKernels:
    """The NNGP kernel K^L and the NTK Θ^L of a set of inputs through L hidden layers (module docstring).

    Parameters
    ----------
    act : Activation or str
        φ (a registry name, a formula or an Activation).
    inputs : array_like, shape (n, d), optional
        The inputs x_1, …, x_n (rows); K⁰ = σ_w² X Xᵀ/d + σ_b².
    depth : int
        L ≥ 0 hidden layers (L = 0: the first layer's K⁰).
    sigma_w2, sigma_b2 : float
        σ_w² > 0 and σ_b² ≥ 0 of every layer.
    keep : float
        Dropout keep probability ρ ∈ (0, 1].
    input_gram : array_like, shape (n, n), optional
        X Xᵀ/d instead of the inputs.
    ntk : bool
        Also compute Θ^L (needs φ′ without Dirac masses).
    xp, device : optional
        Run the layers in another array-API namespace on its device, e.g. ``array_api_compat.torch`` and
        ``"cuda"`` (what :func:`numerics.network_kernels_on_device` passes); default numpy on the CPU. The input
        Gram matrix, the sign patterns of the error runs and the results stay numpy arrays on the host; the
        pair-by-pair quadrature route always runs on the host.

    Returns
    -------
    NetworkKernels
        ``nngp`` and ``ntk`` as :class:`~theory.results.MatrixEstimate` (``ntk`` None when not asked for).

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.6, 0.8]])          # unit-norm inputs, cos = 0.6
    >>> k = network_kernels("relu", X * np.sqrt(2), depth=1, sigma_w2=2.0)
    >>> th = math.acos(0.6)                               # arc-cosine kernel: 2 κ₁(0.6) · q
    >>> bool(abs(k.nngp[0, 1] - 2 * 2 * (math.sin(th) + (math.pi - th) * 0.6) / (2 * math.pi)) < 1e-14)
    True
    """
    act = act if isinstance(act, Activation) else activation(act)
    from .meanfield_mlp import _params
    sw, sb, rho = _params(sigma_w2, sigma_b2, keep)
    depth = validate.integer(depth, "depth", 0, 100_000)
    K0 = _first_layer(inputs, input_gram, sw, sb)
    route = _route_for(act)
    at = _Layout.of(K0.shape[0], xp, device)

    def run(r, **kw):
        K, T = _run(r, K0, depth, sw, sb, rho, ntk, at=at, **kw)
        return tuple(None if A is None else np.asarray(array_api_compat.to_device(A, "cpu")) for A in (K, T))
    K, T = run(route)
    # second runs, every layer moved by 4 ulps (_Route.error_runs of them)
    alt = route.with_nodes(MIXTURE_NODES_CHECK)
    runs = route.error_runs
    rng = np.random.default_rng(20170101)
    others = [run(alt, rng=rng, coherent=route.coherent_error_run) for _ in range(runs)]
    spread_K = np.max([np.abs(Kb - K) for Kb, _ in others], axis=0)
    spread_T = np.max([np.abs(Tb - T) for _, Tb in others], axis=0) if ntk else None
    method = (f"{route.name}; depth {depth}; error: 3 × the largest difference from {runs} run{'s' * (runs > 1)} "
              "whose every layer is moved by 4 ulps" + (f", on {MIXTURE_NODES_CHECK}×{MIXTURE_NODES_CHECK} nodes"
                                                       if alt is not route else "") + ", plus 8 ulps")

    def estimate(A, spread, what):
        return MatrixEstimate(A, 3 * spread + 8 * _EPS * np.abs(A), f"{what}: {method}")
    return NetworkKernels(estimate(K, spread_K, "NNGP kernel"), estimate(T, spread_T, "NTK") if ntk else None,
                          route.name, depth)


_ONE_KERNEL_DOC = """The {name} {symbol} of an input set (:func:`network_kernels`{note}).

    Parameters
    ----------
    act : Activation or str
        φ (a registry name, a formula or an Activation).
    inputs : array_like, shape (n, d), optional
        The inputs (rows); K⁰ = σ_w² X Xᵀ/d + σ_b².
    depth : int
        L ≥ 0 hidden layers.
    sigma_w2, sigma_b2 : float
        σ_w² > 0 and σ_b² ≥ 0.
    keep : float
        Dropout keep probability ρ ∈ (0, 1].
    input_gram : array_like, shape (n, n), optional
        X Xᵀ/d instead of the inputs.

    Returns
    -------
    MatrixEstimate
        {symbol} (n × n) with its entrywise error.

    Examples
    --------
{example}
    """


def nngp_kernel(act, inputs=None, depth: int = 1, sigma_w2: float = 1.0, sigma_b2: float = 0.0, keep: float = 1.0,
                *, input_gram=None) -> MatrixEstimate:
    return network_kernels(act, inputs, depth, sigma_w2, sigma_b2, keep, input_gram=input_gram, ntk=False).nngp


def ntk_kernel(act, inputs=None, depth: int = 1, sigma_w2: float = 1.0, sigma_b2: float = 0.0, keep: float = 1.0,
               *, input_gram=None) -> MatrixEstimate:
    return network_kernels(act, inputs, depth, sigma_w2, sigma_b2, keep, input_gram=input_gram, ntk=True).ntk


nngp_kernel.__doc__ = _ONE_KERNEL_DOC.format(
    name="NNGP kernel", symbol="K^L", note=" without the NTK", example="""\
    >>> K = nngp_kernel("erf", input_gram=[[1.0, 0.5], [0.5, 1.0]], depth=1)
    >>> bool(abs(K[0, 1] - 2 / math.pi * math.asin(2 * 0.5 / 3)) < 1e-15)
    True""")
ntk_kernel.__doc__ = _ONE_KERNEL_DOC.format(
    name="neural tangent kernel", symbol="Θ^L", note="", example="""\
    >>> T = ntk_kernel("relu", input_gram=[[1.0, 0.0], [0.0, 1.0]], depth=1, sigma_w2=2.0)
    >>> round(float(T[0, 0]), 12), round(float(T[0, 1]), 12)   # K¹ + 2·E φ′φ′·K⁰: 2 + 2·½·2; 2/π + 0
    (4.0, 0.636619772368)""")


# ---------------------------------------------------------------------------------------------
# the independent route: mpmath quadrature of the same recursion on a few entries
# ---------------------------------------------------------------------------------------------

def kernel_entries_reference(act, input_gram, pairs, depth: int, sigma_w2: float = 1.0, sigma_b2: float = 0.0,
                             keep: float = 1.0, *, dps: int = 20, ntk: bool = True) -> dict:
    """K^L_ab (and Θ^L_ab) for the listed pairs by mpmath quadrature, layer by layer: the diagonal by
    :func:`theory.gaussian.mp_gaussian` (tanh–sinh, kinks split), the off-diagonal by the nested mpmath route of
    :func:`theory.gaussian.bivariate_expectation` — no closed form, no mixture, no float rule. Slow (seconds per
    pair and layer): a certificate for sampled entries.

    Each layer's covariances are rounded to float64 before its 2-D quadrature (that route takes floats), so the
    reference carries the float rounding of its inputs, not of its arithmetic.

    Parameters
    ----------
    act : Activation or str
        φ (a registry name, a formula or an Activation).
    input_gram : array_like
        X Xᵀ/d.
    pairs : sequence of (int, int)
        The entries (a, b) wanted.
    depth : int
        L ≥ 0 hidden layers.
    sigma_w2, sigma_b2 : float
        σ_w² > 0 and σ_b² ≥ 0.
    keep : float
        Dropout keep probability ρ.
    dps : int
        Digits of the mpmath quadratures.
    ntk : bool
        Also Θ^L (needs φ′ without Dirac masses).

    Returns
    -------
    dict
        ``{(a, b): (K, Θ)}`` as mpmath numbers (Θ None without ``ntk``).

    Examples
    --------
    >>> ref = kernel_entries_reference("relu", [[1.0, 0.0], [0.0, 1.0]], [(0, 0)], depth=1, sigma_w2=2.0)
    >>> [float(v) for v in ref[(0, 0)]]          # K¹ = 2·½·2 = 2 with K⁰ = 2; Θ¹ = 2 + 2·½·2
    [2.0, 4.0]
    """
    act = act if isinstance(act, Activation) else activation(act)
    from .meanfield_mlp import _params
    sw, sb, rho = _params(sigma_w2, sigma_b2, keep)
    G = validate.gram_matrix(input_gram, "input_gram", batched=False)
    d = act.derivative(1) if ntk else None
    out = {}
    with mpmath.workdps(dps + 5):
        sw_, sb_, rho_ = mpmath.mpf(sw), mpmath.mpf(sb), mpmath.mpf(rho)
        for a, b in pairs:
            K = {k: sw_ * mpmath.mpf(G[i, j]) + sb_ for k, (i, j) in
                 {"aa": (a, a), "bb": (b, b), "ab": (a, b)}.items()}
            T = dict(K)
            for _ in range(validate.integer(depth, "depth", 0, 10_000)):
                new, newT = {}, {}
                for key in ("aa", "bb"):
                    q = K[key]
                    e = mp_gaussian(lambda t: act.mpmath(t) ** 2, q, act.breakpoints, dps)[0]
                    new[key] = sw_ / rho_ * e + sb_
                    if ntk:
                        ed = mp_gaussian(lambda t: d.mpmath(t) ** 2, q, d.breakpoints, dps)[0]
                        newT[key] = new[key] + sw_ / rho_ * ed * T[key]
                if a == b:
                    new["ab"] = new["aa"]
                    newT["ab"] = newT.get("aa")
                else:
                    qa, qb, qab = float(K["aa"]), float(K["bb"]), float(K["ab"])
                    e = bivariate_expectation(act, act, qa, qb, qab, dps=dps)
                    e = mpmath.mpf(e.text) if e.text else mpmath.mpf(e.value)
                    new["ab"] = sw_ * e + sb_
                    if ntk:
                        ed = bivariate_expectation(d, d, qa, qb, qab, dps=dps)
                        ed = mpmath.mpf(ed.text) if ed.text else mpmath.mpf(ed.value)
                        newT["ab"] = new["ab"] + sw_ * ed * T["ab"]
                K, T = new, (newT if ntk else T)
            out[(a, b)] = (K["ab"], T["ab"] if ntk else None)
    return out
