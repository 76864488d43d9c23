"""Shared parts of the bn-finite-width claims: the paper and G* (b*, c*) as the claims consume it, the spectral
deviation and ε of Theorem 1, and the fitting helpers."""
from __future__ import annotations

import dataclasses
import math
import os

import numpy as np
import theory
from theory.batchnorm import BSB1

from ...api import Context, Evidence, lazy_module as _lazy, Paper, status_from_rows, Verdict
from .coverage import ITEMS

stats = _lazy("scipy.stats")  # loaded on first use (listing claims stays fast)

PAPER = Paper(key='bn-finite-width', title='On bridging the gap between mean field and finite width in deep random neural networks with batch normalization',
              citation='Joudaki, Daneshmand, Bach — mean field and finite width with batch normalization (ICML 2023)',
              cite_key='joudaki2023bridging',
              coverage=ITEMS, expectations=os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.toml"),
              # the same BN chains read from the run's store (verify.api.shared): 74 s in one process against 214 s
              # apart (standard budget, measured 2026-11-26)
              affinity=[("theorem1", "theorem3", "corollary6", "corollary7", "corollary8")])

# the quantities the claims consume (perturbed by the controls and --perturb bn-finite-width:NAME=δ)
B_STAR = PAPER.quantity("b*", "b*", "scale of the BSB1 fixed point G* = b*((1−c*)I + c*11ᵀ) (eq 16)",
                        "theory.bsb1_fixed_point")
C_STAR = PAPER.quantity("c*", "c*", "correlation of the BSB1 fixed point G* (eq 16)", "theory.bsb1_fixed_point")


def bsb1_gstar(act, batch_size: int, **bn):
    """The BSB1 fixed point G* (b*, c*; eq 16) of theory.bsb1_fixed_point (``bn``: eps, gamma, beta) as the claims
    consume it."""
    fp = theory.bsb1_fixed_point(act, batch_size, **bn)
    db, dc = B_STAR.delta(), C_STAR.delta()
    if db == 0.0 and dc == 0.0:
        return fp
    return dataclasses.replace(fp, q=fp.q * (1 + db), c=fp.c * (1 + dc))


CONF = 0.95
FAMILY_F = ("relu", "tanh", "sigmoid", "sin", "selu", "celu")  # the set 𝓕 of Theorem 1


def _control(ctx: Context, rows: list[Evidence], summary: str) -> Verdict:
    return Verdict(ctx.claim_id, status_from_rows(rows), summary, rows)


def spectral_deviation(G: np.ndarray, lam_star: np.ndarray) -> np.ndarray:
    """max_i |λ_i(G)/λ_i* − 1| with both spectra in descending order (eq 8), batched over G."""
    lam = np.sort(np.linalg.eigvalsh(G), axis=-1)[..., ::-1]
    return np.max(np.abs(lam / lam_star - 1), axis=-1)


def epsilon(fp: BSB1, d: int) -> float:
    """ε = n‖G*^{-1/2}‖/√d of Theorem 1."""
    return fp.n * math.sqrt(fp.inverse_norm) / math.sqrt(d)


def _slope_ci(x, y, confidence=CONF):
    res = stats.linregress(x, y)
    t = float(stats.t.ppf(0.5 + confidence / 2, max(len(x) - 2, 1)))
    return float(res.slope), (float(res.slope - t * res.stderr), float(res.slope + t * res.stderr))


def _implied_constant(X: np.ndarray, ts=(1.25, 1.5, 2.0, 3.0)) -> float:
    """Smallest K with empirical P(X ≥ t K) ≤ t⁻² for every t in ``ts`` (the probabilistic form)."""
    return float(max(np.quantile(X, 1 - 1 / t ** 2) / t for t in ts))


