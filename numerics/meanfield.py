"""Mean-field Gram dynamics of the isometry paper (eq 10 / eq 13).

With layer normalisation the map acts entry-wise on unit-diagonal Gram matrices:

    G^{ℓ+1}_ij = σ̄(G^ℓ_ij) / σ̄(1)      (proof of Theorem A.2, eq 37),

where σ̄ is the mean-reduced dual activation (Definition 5). :func:`layernorm_meanfield_trajectory`
iterates it on the n(n−1)/2 off-diagonal entries only (cost O(n² · depth), vectorised);
:func:`meanfield_map_mc` is the independent Monte Carlo route for one step of eq (10).
"""
from __future__ import annotations

import numpy as np

from theory import validate
from theory import activation as _activation
from theory import numeric_dual
from theory.dual import float_moments, variance
from theory.isometry import normalised_gram


class MeanFieldTrajectory:
    """Off-diagonal entries of G_*^ℓ for ℓ = 0..depth, with helpers to rebuild matrices.

    ``gram(ℓ)`` is G_*^ℓ (n×n), ``grams(layers)`` a stack of them, ``depth`` the last layer.

    Parameters
    ----------
    n : int
        The batch size.
    offdiag : numpy.ndarray
        ``[depth + 1, n(n − 1)/2]``: the upper off-diagonal entries (row-major) of each layer.

    Examples
    --------
    >>> from numerics import equicorrelated_gram, layernorm_meanfield_trajectory
    >>> tr = layernorm_meanfield_trajectory("tanh", equicorrelated_gram(3, 0.5), 3)
    >>> tr.n, tr.depth, tr.offdiag.shape, tr.grams().shape
    (3, 3, (4, 3), (4, 3, 3))
    """

    def __init__(self, n: int, offdiag: np.ndarray):
        self.n = n
        self.offdiag = offdiag  # [depth+1, n(n-1)/2]
        self._iu = np.triu_indices(n, 1)

    @property
    def depth(self) -> int:
        return self.offdiag.shape[0] - 1

    def gram(self, layer: int) -> np.ndarray:
        G = np.eye(self.n)
        G[self._iu] = self.offdiag[layer]
        G.T[self._iu] = self.offdiag[layer]
        return G

    def grams(self, layers=None) -> np.ndarray:
        layers = range(self.depth + 1) if layers is None else layers
        return np.stack([self.gram(l) for l in layers])


def layernorm_meanfield_trajectory(act, G0, depth: int) -> MeanFieldTrajectory:
    """Iterate eq (10) with layer normalisation: ρ ↦ σ̄(ρ)/σ̄(1) on each off-diagonal entry.

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    G0 : array_like
        The n×n input Gram matrix (normalised to unit diagonal).
    depth : int
        The number of layers.

    Returns
    -------
    MeanFieldTrajectory
        The off-diagonal entries of G_*^0, …, G_*^depth.

    Examples
    --------
    >>> from numerics import equicorrelated_gram, layernorm_meanfield_trajectory
    >>> tr = layernorm_meanfield_trajectory("tanh", equicorrelated_gram(3, 0.5), 3)
    >>> [round(float(r), 6) for r in tr.offdiag[:, 0]]          # the correlation decays towards 0 (isometry)
    [0.5, 0.472551, 0.44584, 0.419977]
    """
    act = _activation(act)
    G0 = normalised_gram(np.asarray(G0, dtype=float))
    n = G0.shape[0]
    dual = numeric_dual(act)
    iu = np.triu_indices(n, 1)
    r = G0[iu].copy()
    out = np.empty((depth + 1, r.size))
    out[0] = r
    for ell in range(1, depth + 1):
        r = np.clip(dual.normalised(r), -1.0, 1.0)
        out[ell] = r
    return MeanFieldTrajectory(n, out)


def meanfield_map_mc(act, G, samples: int, seed: int = 0, batch: int = 200_000):
    """One step of eq (10), E_{h~N(0,G)}[φ(σ(h)) φ(σ(h))ᵀ] for unit-diagonal G, by Monte Carlo.

    φ centres and scales by the exact population mean c_0 and variance σ̄(1).

    Parameters
    ----------
    act : str or Activation
        Anything :func:`theory.activation` accepts.
    G : array_like
        The n×n Gram matrix, unit diagonal.
    samples : int
        The number of draws of h.
    seed : int
        The random seed (numpy).
    batch : int
        Draws per chunk (memory).

    Returns
    -------
    tuple
        ``(estimate, standard errors, samples)``: two n×n arrays and the sample count.

    Examples
    --------
    >>> from numerics import equicorrelated_gram, layernorm_meanfield_trajectory, meanfield_map_mc
    >>> G0 = equicorrelated_gram(3, 0.5)
    >>> mean, se, n = meanfield_map_mc("tanh", G0, 10000, seed=0)
    >>> exact = layernorm_meanfield_trajectory("tanh", G0, 1).gram(1)
    >>> n, bool(abs(mean - exact).max() < 5 * se.max())
    (10000, True)
    """
    act = _activation(act)
    G = np.asarray(G, dtype=float)
    n = G.shape[0]
    c0, var = float_moments(act)[0], variance(act)
    w, v = np.linalg.eigh(G)
    R = (v * np.sqrt(np.clip(w, 0, None))) @ v.T
    rng = np.random.default_rng(validate.seed(seed))
    s1 = np.zeros((n, n))
    s2 = np.zeros((n, n))
    done = 0
    while done < samples:
        m = min(batch, samples - done)
        h = rng.standard_normal((m, n)) @ R
        p = (act.numpy(h) - c0) / np.sqrt(var)
        prod = p[:, :, None] * p[:, None, :]
        s1 += prod.sum(0)
        s2 += (prod * prod).sum(0)
        done += m
    mean = s1 / done
    se = np.sqrt(np.clip(s2 / done - mean ** 2, 0, None) / done)
    return mean, se, done
