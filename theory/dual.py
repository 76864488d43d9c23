"""Dual activations (isometry paper, Definition 5 and Lemma A.6).

σ̂(ρ) := E σ(X)σ(Y) and σ̄(ρ) := E (σ(X) − Eσ)(σ(Y) − Eσ), for X, Y ~ N(0,1) with E XY = ρ.
Lemma A.6 says σ̂(ρ) = Σ_k c_k² ρ^k and σ̄(ρ) = Σ_{k≥1} c_k² ρ^k.

Routes (each checked against the others in the tests):

* closed forms where the registry has one (arc-cosine kernel for ReLU, arcsine for step and
  erf, e^{1+ρ} for exp, e^{-1} sinh ρ for sin, ρ^k for He_k, the gain families of Table B.1);
* the Hermite series with a rigorous tail bracket: since c_k² ≥ 0 and Σ_{k≥1} c_k² = Var σ
  (computed by an independent 1-D integral), |σ̄(ρ) − Σ_{k≤K} c_k² ρ^k| ≤ |ρ|^{K+1} (Var σ − Σ_{1≤k≤K} c_k²);
* the 2-D integral by the package's one bivariate Gaussian rule (:func:`dual_quadrature`, which is
  :func:`theory.gaussian.bivariate_expectation` at unit variances: nested Gauss–Legendre split at the kinks of σ
  in both variables);
* a Chebyshev interpolant in θ = arccos ρ of the quadrature (σ̂(cos θ) is smooth in θ even for
  kinked σ), used by the mean-field maps for activations without a closed form.
"""
from __future__ import annotations

import functools
import math

import numpy as np
import sympy as sp

from .activations import Activation, activation, rho, x
from .errors import UndefinedQuantityError
from .gaussian import NotExact, exact_expectation, float_expectation, tidy
from .hermite import hermite_coefficients


# --------------------------------------------------------------------------------------------
# moments: c_0 = E σ, σ̄(1) = Var σ
# --------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=512)
def exact_moments(act: Activation):
    """(E σ, E σ X, Var σ) as sympy expressions; raises NotExact."""
    mean = tidy(exact_expectation(act, 1))
    c1 = tidy(exact_expectation(act, 1, x))
    second = tidy(exact_expectation(act, 2))
    return mean, c1, tidy(second - mean ** 2)


@functools.lru_cache(maxsize=512)
def float_moments(act: Activation) -> tuple[float, float, float]:
    """(E σ, E σX, Var σ) by the float Gauss–Legendre rule (independent of the Hermite series)."""
    mean = float_expectation(act, nodes_per_piece=600)
    c1 = float_expectation(act, g=lambda t: t, nodes_per_piece=600)
    second = float_expectation(act, g=lambda t: act.numpy(t), nodes_per_piece=600)
    return mean, c1, second - mean * mean


def variance(act) -> float:
    """σ̄(1) = Var_{X~N(0,1)} σ(X); raises :class:`UndefinedQuantityError` for constant σ.

    Parameters
    ----------
    act : str or Activation

    Returns
    -------
    float

    Examples
    --------
    >>> from theory import variance
    >>> round(variance("relu"), 12)          # 1/2 − 1/(2π)
    0.340845056908
    """
    act = activation(act)
    var = float_moments(act)[2]
    if act.is_constant or var <= 1e-15 * max(1.0, float_moments(act)[0] ** 2):
        raise UndefinedQuantityError(f"activation {act.name!r} is constant under N(0,1): σ̄(1) = Var σ = 0, "
                                     "so β_σ and the normalised dual are undefined")
    return var


# --------------------------------------------------------------------------------------------
# closed forms
# --------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=512)
def _closed_form_numpy(act: Activation):
    if act.dual_closed_form is None:
        return None
    f = sp.lambdify(rho, act.dual_closed_form, modules="numpy")

    def call(r):
        r = np.clip(np.asarray(r, dtype=float), -1.0, 1.0)
        return np.broadcast_to(np.asarray(f(r), dtype=float), r.shape).copy()
    return call


def dual_closed_form(act) -> sp.Expr | None:
    """σ̂(ρ) as a sympy expression in ``rho`` if the registry knows one, else ``None``.

    Parameters
    ----------
    act : str or Activation

    Returns
    -------
    sympy.Expr or None

    Examples
    --------
    >>> from theory import dual_closed_form
    >>> dual_closed_form("relu")
    (rho*(pi - acos(rho)) + sqrt(1 - rho**2))/(2*pi)
    >>> dual_closed_form("gelu") is None
    True
    """
    return activation(act).dual_closed_form


# --------------------------------------------------------------------------------------------
# series with a tail bracket
# --------------------------------------------------------------------------------------------

class DualSeries:
    """σ̄(ρ) = Σ_{1≤k≤K} c_k² ρ^k with the rigorous tail bracket of Lemma A.6.

    Since c_k² ≥ 0 and Σ_{k≥1} c_k² = Var σ (an independent 1-D integral), the truncation error is at most
    |ρ|^{K+1} (Var σ − Σ_{1≤k≤K} c_k²).

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    k_max : int
        K, the last Hermite coefficient summed.

    Attributes
    ----------
    c2 : numpy.ndarray
        c_0², …, c_K² (float64).
    var : float
        Var σ = σ̄(1).
    tail : float
        Var σ − Σ_{1≤k≤K} c_k² ≥ 0, the mass the series leaves out.

    Examples
    --------
    >>> from theory import DualSeries
    >>> s = DualSeries("relu", 200)
    >>> lo, hi = s.bracket(0.5)          # σ̄(1/2) of ReLU: (√3/2 + π/3)/(2π) − 1/(2π) by the arc-cosine kernel
    >>> import math
    >>> exact = (math.sqrt(3) / 2 + math.pi / 3) / (2 * math.pi) - 1 / (2 * math.pi)
    >>> abs(float(lo) - exact) < 1e-13 and abs(float(hi) - exact) < 1e-13   # float c_k: ~1e-14 each
    True
    >>> float(s.tail_bound(0.5)) < 1e-60
    True
    """

    def __init__(self, act, k_max: int = 200):
        self.act = activation(act)
        self.k_max = k_max
        c = hermite_coefficients(self.act, k_max, kind="float")
        self.c2 = c * c
        self.var = variance(self.act)
        # tail mass Σ_{k>K} c_k² (non-negative up to quadrature rounding)
        self.tail = max(self.var - float(np.sum(self.c2[1:])), 0.0)

    def mean_reduced(self, r, terms: int | None = None) -> np.ndarray:
        """Σ_{1≤k≤K} c_k² ρ^k, vectorised over ρ (the first ``terms`` terms only, when given).

        Small arrays take the powers ρ, ρ², … by one cumulative product and the sum as one dot product; large ones
        Horner's rule (about 10 µs against 100 µs for 45 values and 96 terms; the two agree to a few ulps).

        Parameters
        ----------
        r : float or array_like
            Correlations ρ.
        terms : int, optional
            Sum only k = 1..``terms`` (:meth:`terms_for` says how many a given accuracy needs); default all K.

        Returns
        -------
        numpy.ndarray
            The partial sums, the shape of ``r``.

        Examples
        --------
        >>> import numpy as np
        >>> from theory import DualSeries
        >>> s = DualSeries("x**2 - 1", 8)                  # He₂: c₂² = 2, every other c_k = 0 for k ≥ 1
        >>> s.mean_reduced(np.array([0.1, 0.5])).round(12), float(s.mean_reduced(0.5, terms=1))
        (array([0.02, 0.5 ]), 0.0)
        """
        r = np.asarray(r, dtype=float)
        c = self.c2[1:] if terms is None else self.c2[1:1 + max(int(terms), 0)]
        if len(c) == 0:
            return np.zeros_like(r)
        if r.size * len(c) <= 1 << 14:
            return np.cumprod(np.broadcast_to(r[..., None], r.shape + (len(c),)), axis=-1) @ c
        return np.polynomial.polynomial.polyval(r, np.concatenate([[0.0], c]))

    def terms_for(self, largest: float, bits: int = 97) -> int:
        """The number of terms of :meth:`mean_reduced` that keeps every value at |ρ| ≤ ``largest`` (< 1) within
        2^−bits of the whole K-term sum, relative to the value itself: with c_j² the first non-zero coefficient
        (k ≥ 1), the terms from k = K + 1 on add up to at most |ρ|^(K+1) Var σ ≤ 2^−bits c_j² |ρ|^j. (Relative, not
        absolute: σ̄ near ρ = 0 is computed by the series for its relative accuracy, down to ρ ~ 1e−250.)

        Parameters
        ----------
        largest : float
            The largest |ρ| the sum will be evaluated at.
        bits : int
            The relative accuracy, 2^−bits.

        Returns
        -------
        int
            The number of terms, at most K (all of them when ``largest`` ≥ 1); 0 when every c_k (k ≥ 1) is 0.

        Examples
        --------
        >>> from theory import DualSeries
        >>> s = DualSeries("relu", 96)
        >>> [s.terms_for(m) for m in (1e-3, 0.1, 0.5)]
        [10, 30, 96]
        """
        nonzero = np.nonzero(self.c2[1:] > 0)[0]
        if largest <= 0 or len(nonzero) == 0:
            return 0
        if largest >= 1:
            return self.k_max
        j = int(nonzero[0]) + 1
        need = (bits * math.log(2) + math.log(self.var / self.c2[j])) / -math.log(largest)
        return min(self.k_max, j - 1 + max(1, math.ceil(need)))

    def tail_bound(self, r) -> np.ndarray:
        """|ρ|^{K+1} (Var σ − Σ_{1≤k≤K} c_k²): a bound on |σ̄(ρ) − Σ_{1≤k≤K} c_k² ρ^k| (:meth:`mean_reduced`)."""
        return np.abs(np.asarray(r, dtype=float)) ** (self.k_max + 1) * self.tail

    def bracket(self, r) -> tuple[np.ndarray, np.ndarray]:
        """Lower and upper bounds on σ̄(ρ) (exact up to the rounding of the c_k)."""
        s = self.mean_reduced(r)
        t = self.tail_bound(r)
        return s - t, s + t


# --------------------------------------------------------------------------------------------
# 2-D quadrature
# --------------------------------------------------------------------------------------------

def dual_quadrature(act, r, nodes: int | None = None) -> np.ndarray:
    """σ̂(ρ) = E σ(X) σ(Y), X, Y ~ N(0, 1) with E XY = ρ, by the package's bivariate Gaussian rule.

    Each ρ is :func:`theory.gaussian.bivariate_expectation` (σ, σ, 1, 1, ρ): for |ρ| < 1 a nested Gauss–Legendre
    rule in float64 whose outer rule is split at σ's kinks and graded towards the boundary layer of width
    √(1 − ρ²)/|ρ| around each kink seen through the inner variable, the inner rule split at the kinks for every
    outer node (about 1e-15 relative, estimated from a second rule with ⌈2n/3⌉ nodes); for |ρ| = 1 the 1-D integral
    E σ(X) σ(±X) by mpmath. It is independent of the Hermite series of Lemma A.6 that it is compared with.

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    r : float or array_like
        Correlations ρ, clipped to [−1, 1].
    nodes : int, optional
        Gauss–Legendre nodes per piece (default :data:`theory.gaussian.BIVARIATE_NODES`).

    Returns
    -------
    float or numpy.ndarray
        σ̂(ρ), of the shape of ``r``.

    Raises
    ------
    QuadratureError
        If the rule's two sizes disagree by more than 1e-10 (relative to max(1, |σ̂|)) at some ρ.

    Examples
    --------
    >>> import math
    >>> from theory import dual_quadrature
    >>> rho = 0.5                                   # ReLU: the arc-cosine kernel (sin θ + (π − θ) cos θ)/(2π)
    >>> th = math.acos(rho)
    >>> abs(dual_quadrature("relu", rho) - (math.sin(th) + (math.pi - th) * rho) / (2 * math.pi)) < 1e-14
    True
    >>> round(float(dual_quadrature("step", -1.0)), 15)          # disjoint supports
    0.0
    """
    from .errors import QuadratureError
    from .gaussian import BIVARIATE_NODES, bivariate_expectation
    act = activation(act)
    n = BIVARIATE_NODES if nodes is None else nodes
    out = []
    for rv in np.atleast_1d(np.asarray(r, dtype=float)).ravel():
        est = bivariate_expectation(act, act, 1.0, 1.0, float(np.clip(rv, -1.0, 1.0)), nodes=n)
        if not est.error <= 1e-10 * max(1.0, abs(est.value)):
            raise QuadratureError(f"σ̂({rv:.17g}) of {act.name}: the quadrature's two rule sizes disagree by "
                                  f"{est.error:.1e}")
        out.append(float(est.value))
    res = np.array(out).reshape(np.shape(r))
    return res if np.ndim(r) else float(res)


# --------------------------------------------------------------------------------------------
# the numerical dual used by the maps: closed form, else a Chebyshev interpolant in θ
# --------------------------------------------------------------------------------------------

class NumericDual:
    """Fast vectorised σ̂, σ̄ and the normalised σ̄(ρ)/σ̄(1) for one activation.

    Closed form when available; otherwise a Chebyshev interpolant of θ ↦ σ̂(cos θ) on [0, π]
    built from :func:`dual_quadrature`, with ``error`` an estimate of its accuracy (the size of
    the last Chebyshev coefficients plus the quadrature's own change under refinement). Build it through
    :func:`numeric_dual`, which caches one per activation.

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    degree : int
        Number of Chebyshev nodes in θ (when there is no closed form).

    Attributes
    ----------
    method : str
        ``"closed form"`` or ``"chebyshev-θ interpolant of 2-D quadrature"``.
    error : float
        Estimated absolute accuracy of :meth:`hat`.
    var, mean : float
        Var σ and E σ (= c_0).

    Examples
    --------
    >>> from theory.dual import NumericDual
    >>> d = NumericDual("tanh")
    >>> d.method, d.error < 1e-12
    ('chebyshev-θ interpolant of 2-D quadrature', True)
    >>> round(float(d.normalised(1.0)), 12)                  # σ̄(1)/σ̄(1)
    1.0
    """

    def __init__(self, act, degree: int = 96):
        self.act = activation(act)
        self.var = variance(self.act)
        self.mean = float_moments(self.act)[0]
        # near ρ = 0 the Hermite series has relative accuracy (σ̂ − c_0² would cancel)
        self._series = DualSeries(self.act, 96)
        cf = _closed_form_numpy(self.act)
        if cf is not None:
            self._hat = cf
            self.method, self.error = "closed form", 1e-15 * max(1.0, abs(self.var))
            return
        theta_nodes = np.pi * (np.cos(np.pi * (np.arange(degree) + 0.5) / degree) + 1) / 2
        vals = dual_quadrature(self.act, np.cos(theta_nodes))
        cheb = np.polynomial.chebyshev.Chebyshev.fit(theta_nodes, vals, degree - 1, domain=[0, np.pi])
        probe = np.cos(np.array([0.3, 1.1, 2.2]))
        refine = np.max(np.abs(dual_quadrature(self.act, probe, nodes=40) - dual_quadrature(self.act, probe)))
        self._cheb = cheb
        self._hat = lambda r: cheb(np.arccos(np.clip(np.asarray(r, dtype=float), -1.0, 1.0)))
        self.method = "chebyshev-θ interpolant of 2-D quadrature"
        self.error = float(10 * np.max(np.abs(cheb.coef[-4:])) + 10 * refine + 1e-15)

    def hat(self, r) -> np.ndarray:
        """σ̂(ρ)."""
        return self._hat(r)

    def bar(self, r) -> np.ndarray:
        """σ̄(ρ) = σ̂(ρ) − c_0²; by the Hermite series for |ρ| ≤ 1/2 (96 terms, tail < 2^-97 Var σ; the terms that
        add less than 2^-97 of each value at the largest |ρ| are skipped: :meth:`DualSeries.terms_for`)."""
        r = np.asarray(r, dtype=float)
        small = np.abs(r) <= 0.5
        out = np.empty_like(r)
        if np.any(small):
            rs = r[small]
            out[small] = self._series.mean_reduced(rs, self._series.terms_for(float(np.max(np.abs(rs)))))
        if np.any(~small):
            out[~small] = self._hat(r[~small]) - self.mean ** 2
        return out

    def normalised(self, r) -> np.ndarray:
        """σ̄(ρ)/σ̄(1): the layer-norm mean-field map of eq (10) on one correlation."""
        return self.bar(r) / self.var


@functools.lru_cache(maxsize=128)
def numeric_dual(act) -> NumericDual:
    """The :class:`NumericDual` of an activation: σ̂, σ̄ and σ̄(ρ)/σ̄(1) as fast vectorised functions of ρ.

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.

    Returns
    -------
    NumericDual
        ``hat(ρ)``, ``bar(ρ)``, ``normalised(ρ)``; ``method`` says how they are computed (the closed form, or a
        Chebyshev interpolant of :func:`dual_quadrature`) and ``error`` estimates their accuracy.

    Examples
    --------
    >>> import numpy as np
    >>> from theory import numeric_dual
    >>> d = numeric_dual("relu")
    >>> d.method
    'closed form'
    >>> [round(float(v), 10) for v in d.hat(np.array([0.0, 1.0]))]
    [0.1591549431, 0.5]
    >>> numeric_dual("tanh").error < 1e-10
    True
    """
    return NumericDual(activation(act))


def dual_activation(act, r) -> np.ndarray:
    """σ̂(ρ) (Definition 5), vectorised over ρ ∈ [−1, 1].

    σ̂(ρ) = E σ(X)σ(Y) for standard Gaussians X, Y with correlation ρ, = Σ_k c_k² ρ^k (Lemma A.6): the map of the
    isometry paper's mean-field Gram dynamics (eq 10).

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    r : float or array_like
        Correlations ρ in [−1, 1].

    Returns
    -------
    numpy.ndarray
        σ̂(ρ), the shape of ``r``.

    Examples
    --------
    >>> import numpy as np
    >>> from theory import dual_activation
    >>> [round(float(v), 10) for v in dual_activation("relu", np.array([0.0, 0.5, 1.0]))]
    [0.1591549431, 0.3044988905, 0.5]
    """
    return numeric_dual(activation(act)).hat(r)


def mean_reduced_dual(act, r) -> np.ndarray:
    """σ̄(ρ) (Definition 5), vectorised over ρ ∈ [−1, 1].

    σ̄(ρ) = σ̂(ρ) − c_0² = Cov(σ(X), σ(Y)) for standard Gaussians with correlation ρ; σ̄(1) is Var σ(X).

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    r : float or array_like
        Correlations ρ in [−1, 1].

    Returns
    -------
    numpy.ndarray
        σ̄(ρ), the shape of ``r``.

    Examples
    --------
    >>> import numpy as np
    >>> from theory import mean_reduced_dual
    >>> [round(float(v), 10) for v in mean_reduced_dual("relu", np.array([0.0, 1.0]))]
    [0.0, 0.3408450569]
    """
    return numeric_dual(activation(act)).bar(r)


def exact_mean_reduced_dual(act) -> sp.Expr | None:
    """σ̄(ρ) in closed form (closed-form σ̂ minus the exact c_0²), or ``None``.

    Parameters
    ----------
    act : str or Activation

    Returns
    -------
    sympy.Expr or None

    Examples
    --------
    >>> from theory import exact_mean_reduced_dual
    >>> exact_mean_reduced_dual("relu")
    (rho*(pi - acos(rho)) + sqrt(1 - rho**2))/(2*pi) - 1/(2*pi)
    """
    act = activation(act)
    if act.dual_closed_form is None:
        return None
    try:
        mean = exact_moments(act)[0]
    except NotExact:
        return None
    return act.dual_closed_form - mean ** 2
