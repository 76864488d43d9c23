"""Isometry, isometry gap, the potential γ, and the isometry strength β_σ (isometry paper).

* Definition 1, eq (3):  𝓘(G) = det(G)^{1/n} / (tr(G)/n).
* isometry gap: −log 𝓘(G).
* Definition 4, eq (21): γ(G) = max_{i≠j} |G̃_ij| / (1 − |G̃_ij|), G̃_ij = G_ij / sqrt(G_ii G_jj).
* Definition 3, eq (11): β_σ = 2 − c_1² / Σ_{k≥1} c_k² = 2 − c_1² / Var σ.
* Lemma A.4, eq (24): (1 − (n−1) max|G_ij|)^n ≤ det G ≤ 1 − max G_ij² for unit-diagonal PSD G.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import mpmath
import numpy as np
import sympy as sp

from .activations import Activation, activation
from . import validate
from .errors import DeepinitError, UndefinedQuantityError
from .gaussian import NotExact, mp_expectation
from .results import Estimate


#: symmetry and positive semi-definiteness are checked to this relative tolerance (admits float32 simulations)
GRAM_TOL = 1e-6


def _as_gram(G, scaled: bool = False, psd: bool = True) -> np.ndarray:
    """A finite, symmetric PSD matrix or stack (:func:`theory.validate.gram_matrix`; symmetric and PSD to
    :data:`GRAM_TOL` relative). ``scaled``: divided by its largest diagonal entry, for the scale-invariant quantities
    (𝓘(c·G) = 𝓘(G) for every c > 0, up to the float range). ``psd=False``: the caller checks positive
    semi-definiteness from eigenvalues it computes anyway."""
    G = validate.gram_matrix(G, "a Gram matrix", tol=GRAM_TOL, psd=psd)
    if scaled:
        m = np.max(np.diagonal(G, axis1=-2, axis2=-1), axis=-1)
        G = G / np.where(m > 0, m, 1.0)[..., None, None]
    return G


def log_isometry(G) -> np.ndarray:
    """log 𝓘(G) (−inf for a singular PSD matrix), batched over leading dimensions; scale-invariant.

    Parameters
    ----------
    G : array_like
        A symmetric positive semi-definite n×n matrix (or a stack of them).

    Returns
    -------
    numpy.ndarray
        log 𝓘(G), one value per matrix of the stack (0-d for one matrix).

    Examples
    --------
    >>> import numpy as np
    >>> from theory import log_isometry
    >>> round(float(log_isometry(np.array([[1.0, 0.5], [0.5, 1.0]]))), 12)
    -0.143841036226
    """
    G = _as_gram(G, scaled=True)
    n = G.shape[-1]
    sign, logdet = np.linalg.slogdet(G)
    tr = np.trace(G, axis1=-2, axis2=-1) / n
    out = np.where(sign > 0, logdet / n - np.log(np.where(tr > 0, tr, 1.0)), -np.inf)
    return out


def isometry(G) -> np.ndarray:
    """𝓘(G) of Definition 1 (eq 3): ratio of normalised determinant to normalised trace.

    𝓘(G) = det(G)^(1/n) / (tr(G)/n) ∈ [0, 1], = 1 exactly for G = c·I; batched over leading dimensions.

    Parameters
    ----------
    G : array_like
        A symmetric positive semi-definite n×n matrix (or a stack of them), any scale.

    Returns
    -------
    numpy.ndarray
        𝓘(G), one value per matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from theory import isometry
    >>> round(float(isometry(np.array([[1.0, 0.5], [0.5, 1.0]]))), 12)    # sqrt(3)/2
    0.866025403784
    >>> float(isometry(3.0 * np.eye(4)))
    1.0
    """
    return np.exp(log_isometry(G))


def isometry_gap(G) -> np.ndarray:
    """−log 𝓘(G) ∈ [0, ∞], accurate in relative terms even when G is within 1e-100 of c·I.

    With λ_i the eigenvalues, t their mean and μ_i = λ_i/t − 1 (so Σ μ_i = 0):
    −log 𝓘(G) = (1/n) Σ_i (μ_i − log(1 + μ_i)); the μ_i are the eigenvalues of G/t − I.

    Parameters
    ----------
    G : array_like
        A symmetric positive semi-definite n×n matrix (or a stack of them).

    Returns
    -------
    numpy.ndarray
        −log 𝓘(G), one value per matrix of the stack (0-d for one matrix).

    Examples
    --------
    >>> import numpy as np
    >>> from theory import isometry_gap
    >>> round(float(isometry_gap(np.array([[1.0, 0.5], [0.5, 1.0]]))), 12)
    0.143841036226
    >>> float(isometry_gap(np.array([[1.0, 1e-100], [1e-100, 1.0]])))    # ρ²/2: no cancellation near c·I
    5e-201
    """
    G = _as_gram(G, scaled=True, psd=False)
    n = G.shape[-1]
    t = np.trace(G, axis1=-2, axis2=-1) / n
    if np.any(t < 0):
        raise DeepinitError("a Gram matrix is not positive semi-definite (negative trace)")
    if np.any(t == 0):
        raise DeepinitError("isometry gap of a zero Gram matrix is undefined")
    E = G / t[..., None, None] - np.eye(n)
    mu = np.linalg.eigvalsh(0.5 * (E + np.swapaxes(E, -1, -2)))
    # positive semi-definite by theory.validate.gram_matrix's criterion, on λ(G)/t = 1 + μ
    validate.psd_eigenvalues(1 + mu[..., 0], 1 + mu[..., -1], "a Gram matrix", GRAM_TOL)
    with np.errstate(divide="ignore", invalid="ignore"):
        big = mu - np.log1p(np.maximum(mu, -1.0))
    small = mu * mu * (0.5 - mu * (1 / 3 - mu * (0.25 - mu * 0.2)))
    f = np.where(np.abs(mu) < 1e-3, small, big)
    f = np.where(mu <= -1.0 + 1e-15, np.inf, f)
    return np.sum(f, axis=-1) / n


def normalised_gram(G) -> np.ndarray:
    """The Gram matrix of the normalised vectors, G_ij / sqrt(G_ii G_jj) (unit diagonal), batched.

    Raises :class:`DeepinitError` when a diagonal entry is zero (a zero feature vector).

    Parameters
    ----------
    G : array_like
        A symmetric positive semi-definite n×n matrix (or a stack of them).

    Returns
    -------
    numpy.ndarray
        The normalised Gram matrices, the shape of ``G``.

    Examples
    --------
    >>> import numpy as np
    >>> from theory import normalised_gram
    >>> normalised_gram(np.array([[4.0, 1.0], [1.0, 1.0]])).tolist()
    [[1.0, 0.5], [0.5, 1.0]]
    """
    G = _as_gram(G, scaled=True)
    d = np.sqrt(np.clip(np.diagonal(G, axis1=-2, axis2=-1), 0, None))
    if np.any(d == 0):
        raise DeepinitError("Gram matrix has a zero diagonal entry (a zero feature vector)")
    return G / (d[..., :, None] * d[..., None, :])


def gram_potential(G) -> np.ndarray:
    """γ(G) of Definition 4 (eq 21); +inf when two normalised vectors are (anti)parallel.

    Parameters
    ----------
    G : array_like
        A symmetric positive semi-definite n×n matrix (or a stack of them).

    Returns
    -------
    numpy.ndarray
        γ(G), one value per matrix of the stack (0-d for one matrix).

    Examples
    --------
    >>> import numpy as np
    >>> from theory import gram_potential
    >>> float(gram_potential(np.eye(3)))
    0.0
    >>> float(gram_potential(np.ones((2, 2))))
    inf
    """
    Gt = normalised_gram(G)
    n = Gt.shape[-1]
    off = np.abs(Gt[..., ~np.eye(n, dtype=bool)])
    m = np.max(off, axis=-1)
    with np.errstate(divide="ignore"):
        return np.where(m < 1, m / np.where(m < 1, 1 - m, 1.0), np.inf)


def lemma_a4_bounds(G):
    """(lower, det G, upper) of Lemma A.4 (eq 24) for a unit-diagonal PSD G.

    ``lower`` is ``nan`` where its hypothesis (n−1) max|G_ij| ≤ 1 fails.

    Parameters
    ----------
    G : array_like
        A unit-diagonal symmetric positive semi-definite n×n matrix (or a stack of them).

    Returns
    -------
    tuple of numpy.ndarray
        ``(lower, det G, upper)``, each one value per matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from theory import lemma_a4_bounds
    >>> G = np.array([[1.0, 0.1, 0.1], [0.1, 1.0, 0.1], [0.1, 0.1, 1.0]])
    >>> [round(float(v), 12) for v in lemma_a4_bounds(G)]
    [0.512, 0.972, 0.99]
    """
    G = _as_gram(G)
    n = G.shape[-1]
    off = np.abs(G[..., ~np.eye(n, dtype=bool)])
    m = np.max(off, axis=-1)
    lower = np.where((n - 1) * m <= 1, (1 - (n - 1) * m) ** n, np.nan)
    return lower, np.linalg.det(G), 1 - m ** 2


# --------------------------------------------------------------------------------------------
# β_σ
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class IsometryStrength(Estimate):
    """β_σ (isometry paper, Definition 3, eq 11): an :class:`~theory.results.Estimate` (value, error, method) with
    the closed form and the two moments it is made of. ``float(b)`` gives its value.

    Attributes
    ----------
    value : float
        β_σ = 2 − c_1²/Var σ.
    error : float
        A bound on ``|value − β_σ|``: half a unit in the last place of the float for a closed form, the quadrature's
        precision (10^(5 − dps)) plus that for the mpmath route.
    method : str
        How the value was computed.
    text : str
        The mpmath route's value with all its digits (``dps − 5``); empty for a closed form (``exact`` has it).
    exact : sympy.Expr or None
        The closed form, when one exists.
    c1_squared : float
        c_1² (Definition 2).
    variance : float
        Var σ(X) = Σ_{k≥1} c_k², X ~ N(0, 1).

    Examples
    --------
    >>> from theory import isometry_strength
    >>> b = isometry_strength("relu")
    >>> b.exact, round(float(b), 12), b.c1_squared, b.error < 1e-15
    ((4 - 3*pi)/(2*(1 - pi)), 1.266528896538, 0.25, True)
    >>> str(isometry_strength("tanh"))[:14]
    '1.069530076384'
    """

    exact: sp.Expr | None = field(default=None, compare=False)
    c1_squared: float = math.nan
    variance: float = math.nan


def isometry_strength(act, kind: str = "auto", dps: int = 30) -> IsometryStrength:
    """β_σ = 2 − c_1²/Σ_{k≥1} c_k² (Definition 3, eq 11), exact when a closed form exists.

    ``Σ_{k≥1} c_k²`` is computed as Var σ (Parseval), so no series is truncated.
    Raises :class:`UndefinedQuantityError` for a constant activation.

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    kind : {"auto", "exact", "mpmath"}
        ``"auto"``: sympy's closed form where it finds one, else mpmath quadrature at ``dps`` digits.
    dps : int
        Decimal digits of the mpmath route.

    Returns
    -------
    IsometryStrength
        An :class:`~theory.results.Estimate`: ``value`` (``float(b)`` gives it), ``error``, ``method``; and
        ``exact`` (the sympy closed form or ``None``), ``c1_squared``, ``variance``. β_σ ∈ [1, 2]; β_σ = 1 exactly for affine σ.

    Examples
    --------
    >>> from theory import isometry_strength
    >>> b = isometry_strength("relu")
    >>> b.exact
    (4 - 3*pi)/(2*(1 - pi))
    >>> round(float(b), 12)
    1.266528896538
    >>> round(float(isometry_strength("tanh")), 12)
    1.069530076385
    """
    return _isometry_strength(activation(act), kind, dps)


@functools.lru_cache(maxsize=512)
def _isometry_strength(act: Activation, kind: str, dps: int) -> IsometryStrength:
    """:func:`isometry_strength` for an :class:`Activation`, computed once per process (sympy's simplification of a
    closed form takes 0.1–0.6 s and the claims ask for the same β_σ many times)."""
    from .dual import exact_moments
    if act.is_constant:
        raise UndefinedQuantityError(f"β_σ is undefined for the constant activation {act.name!r} "
                                     "(Σ_{k≥1} c_k² = 0)")
    if kind in ("auto", "exact"):
        try:
            _, c1, var = exact_moments(act)
            if var == 0:
                raise UndefinedQuantityError(f"β_σ is undefined: {act.name!r} is constant")
            beta = sp.simplify(2 - c1 ** 2 / var)
            with mpmath.workdps(dps):
                val = float(sp.N(beta, dps))
            return IsometryStrength(val, 0.5 * math.ulp(val), "exact (sympy)", exact=beta,
                                    c1_squared=float(sp.N(c1 ** 2, dps)), variance=float(sp.N(var, dps)))
        except NotExact:
            if kind == "exact":
                raise DeepinitError(f"no closed form of β_σ for {act.name!r}") from None
    with mpmath.workdps(dps):
        mean = mp_expectation(act.mpmath, act.breakpoints, dps)
        c1 = mp_expectation(lambda t: act.mpmath(t) * t, act.breakpoints, dps)
        second = mp_expectation(lambda t: act.mpmath(t) ** 2, act.breakpoints, dps)
        var = second - mean ** 2
        if var <= mpmath.mpf(10) ** (-dps // 2) * max(1, second):
            raise UndefinedQuantityError(f"β_σ is undefined: {act.name!r} is constant under N(0,1)")
        beta = 2 - c1 ** 2 / var
        val = float(beta)
        return IsometryStrength(val, 0.5 * math.ulp(val) + abs(val) * 10.0 ** (5 - dps),
                                f"mpmath quadrature ({dps} digits)", text=mpmath.nstr(beta, dps - 5),
                                c1_squared=float(c1 ** 2), variance=float(var))


@functools.lru_cache(maxsize=256)
def isometry_strength_mp(act, dps: int = 30):
    """β_σ as an mpmath number at ``dps`` digits by quadrature (independent of the exact route); computed once per
    process for each activation and ``dps`` (three quadratures, 0.1–1 s; the isometry claims ask for the same
    activations' β_σ several times).

    Parameters
    ----------
    act : str, sympy expression or Activation
        The activation.
    dps : int
        Decimal digits of the quadratures.

    Returns
    -------
    mpmath.mpf
        β_σ = 2 − c₁²/Var σ(Z), Z ~ N(0, 1).

    Examples
    --------
    >>> round(float(isometry_strength_mp("relu", 20)), 12)      # 2 − (1/4)/(1/2 − 1/(2π)), as the exact route
    1.266528896538
    """
    act = activation(act)
    with mpmath.workdps(dps):
        mean = mp_expectation(act.mpmath, act.breakpoints, dps)
        c1 = mp_expectation(lambda t: act.mpmath(t) * t, act.breakpoints, dps)
        second = mp_expectation(lambda t: act.mpmath(t) ** 2, act.breakpoints, dps)
        return 2 - c1 ** 2 / (second - mean ** 2)
