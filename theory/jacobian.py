"""The spectrum of the input–output Jacobian of a deep σ_w²/σ_b² network: mean and variance of its squared singular
values, for Gaussian and orthogonal weights (Pennington, Schoenholz, Ganguli 2017, "Resurrecting the sigmoid in deep
learning through dynamical isometry", Section 2–3).

Setting: h^l = W^l x^{l−1} + b^l, x^l = φ(h^l) for l = 1..L, b^l_i ~ N(0, σ_b²), and W^l either Gaussian
(entries N(0, σ_w²/N)) or σ_w times a Haar orthogonal matrix; J = ∂x^L/∂x⁰ = D^L W^L ⋯ D¹ W¹ with
D^l = diag φ′(h^l). The pre-activations' variance follows the length map, q^{l+1} = σ_w² E φ(√q^l z)² + σ_b²
(:func:`theory.length_map`), from q¹ (default: the fixed point q* the iterates reach).

In the limit N → ∞ the factors are asymptotically free, and S-transforms multiply: S_{JJᵀ} = Π_l S_{(D^l)²} S_{W^lW^lᵀ}.
To first order in z, S(z) = (1/m₁)(1 − (v/m₁²) z) for a law of mean m₁ and variance v, so means multiply and
normalised variances add:

    m₁(JJᵀ) = Π_l σ_w² μ₁(q^l),     σ²(JJᵀ)/m₁(JJᵀ)² = Σ_l [μ₂(q^l)/μ₁(q^l)² − 1 + s_W],

with μ_k(q) = E φ′(√q z)^{2k} and s_W = 1 for Gaussian weights (Marchenko–Pastur at ratio 1: variance = mean²), 0 for
orthogonal ones. At criticality (χ₁ = σ_w² μ₁(q*) = 1, q¹ = q*) this is the paper's m₁ = 1 and
σ²_{JJᵀ} = L(μ₂/μ₁² − 1 − s₁) with s₁ = −1 (Gaussian) or 0 (orthogonal): orthogonal weights with μ₂ = μ₁² (a linear
network) have a variance that does not grow with depth — dynamical isometry. The moments μ_k are mpmath quadratures
at 30 digits (:func:`theory.gaussian.mp_gaussian`).
"""
from __future__ import annotations

from dataclasses import dataclass

import mpmath

from . import validate
from .activations import Activation, activation
from .errors import DeepinitError, UndefinedQuantityError
from .gaussian import mp_gaussian
from .results import Estimate

__all__ = ["JacobianSpectrum", "jacobian_spectrum_moments"]

WEIGHTS = ("gaussian", "orthogonal")


@dataclass(frozen=True)
class JacobianSpectrum:
    """Mean and variance of the squared singular values of J (the eigenvalues of JJᵀ), with the layer variances.

    Attributes
    ----------
    mean : Estimate
        m₁ = lim (1/N) tr JJᵀ.
    variance : Estimate
        σ² = lim (1/N) tr (JJᵀ)² − m₁².
    weights : str
        "gaussian" or "orthogonal".
    q : tuple of float
        q¹, …, q^L, the pre-activation variances the moments were taken at.

    Examples
    --------
    >>> s = jacobian_spectrum_moments("relu", 2.0, 0.0, depth=5, q1=1.0, weights="orthogonal")
    >>> round(s.mean.value, 12), round(s.variance.value, 12)      # μ₂/μ₁² = 2: variance L
    (1.0, 5.0)
    """

    mean: Estimate
    variance: Estimate
    weights: str
    q: tuple


def _mu(d: Activation, q, power: int):
    val, err, _ = mp_gaussian(lambda t: d.mpmath(t) ** (2 * power), q, d.breakpoints, 30)
    return val, err


def jacobian_spectrum_moments(act, sigma_w2: float, sigma_b2: float, depth: int, *, q1: float | None = None,
                              weights: str = "gaussian") -> JacobianSpectrum:
    """m₁ and σ² of the eigenvalues of JJᵀ for a depth-L network (module docstring).

    Parameters
    ----------
    act : Activation or str
        φ (its φ′ may jump, as ReLU's does, but must carry no Dirac mass).
    sigma_w2, sigma_b2 : float
        σ_w² > 0, σ_b² ≥ 0.
    depth : int
        L ≥ 1.
    q1 : float, optional
        Variance of the first layer's pre-activations; default: :func:`theory.fixed_point_q`'s q*.
    weights : str
        "gaussian" or "orthogonal".

    Returns
    -------
    JacobianSpectrum
        m₁ and σ² as :class:`~theory.results.Estimate`, and the layer variances q^l.

    Examples
    --------
    >>> s = jacobian_spectrum_moments("identity", 1.0, 0.0, depth=10, q1=1.0)
    >>> round(s.mean.value, 12), round(s.variance.value, 12)      # a product of 10 Gaussian matrices
    (1.0, 10.0)
    """
    act = act if isinstance(act, Activation) else activation(act)
    from .meanfield_mlp import _params, fixed_point_q, length_map
    sw, sb, _ = _params(sigma_w2, sigma_b2)
    depth = validate.integer(depth, "depth", 1, 100_000)
    if weights not in WEIGHTS:
        raise DeepinitError(f"weights must be one of {', '.join(WEIGHTS)}, not {weights!r}")
    d = act.derivative(1)
    if d.dirac_atoms:
        raise UndefinedQuantityError(f"{act.name} jumps: φ′ carries a Dirac mass, so the Jacobian is undefined")
    q = fixed_point_q(act, sw, sb).value if q1 is None else float(q1)
    if not (q >= 0 and q < float("inf")):
        raise DeepinitError(f"q1 = {q1!r} must be a finite number ≥ 0")
    s_w = 1 if weights == "gaussian" else 0
    with mpmath.workdps(30):
        log_mean, norm_var, err = mpmath.mpf(0), mpmath.mpf(0), mpmath.mpf(0)
        qs = []
        for layer in range(depth):
            qs.append(q)
            m1, e1 = _mu(d, q, 1)
            m2, e2 = _mu(d, q, 2)
            if m1 == 0:
                raise UndefinedQuantityError(f"E φ′(√q z)² = 0 at q = {q:g}: the Jacobian vanishes")
            log_mean += mpmath.log(sw * m1)
            norm_var += m2 / m1 ** 2 - 1 + s_w
            err += e1 / m1 + e2 / m1 ** 2
            if layer + 1 < depth:
                q = length_map(act, q, sw, sb).value
        mean = mpmath.exp(log_mean)
        var = norm_var * mean ** 2
    method = (f"free multiplicative convolution to first order ({weights} weights), μ₁, μ₂ by mpmath at 30 digits "
              f"on the length-map trajectory from q¹ = {qs[0]:.6g}")
    rel = float(err) + depth * 1e-16
    return JacobianSpectrum(Estimate(float(mean), rel * float(mean), method),
                            Estimate(float(var), (rel + 1e-16) * abs(float(var)) * 2, method), weights, tuple(qs))
