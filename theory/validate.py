"""Validation of the numbers every public function takes, the same way everywhere.

Each raises :class:`DeepinitError` with one line that says the limit and why; nothing is clamped silently.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .errors import DeepinitError

#: digits of a float64 — the mpmath routes (``dps=``) promise at least this many
MIN_DPS = 15
#: beyond this the θ-integrals and Hermite recurrences take minutes (mpmath tanh–sinh cost grows like dps²·log dps)
MAX_DPS = 200
#: largest Hermite degree: the float route's Gauss–Legendre rule has 2.5·k_max + 200 nodes and k_max + 1
#: recurrence rows on it (≈ 8 MB at 1000; beyond, He_k of the rule's radius overflows and the coefficients lose
#: all relative accuracy)
MAX_HERMITE_DEGREE = 1000
#: the mpmath route's Hermite degree (each coefficient is one tanh–sinh quadrature at ``dps`` digits)
MAX_HERMITE_DEGREE_MP = 200
#: largest batch size of the BSB1 integrals: the Gauss–Jacobi rules (B < 44) and the concentrated Gauss–Legendre
#: rules (B ≥ 44) are checked at two rule sizes on every call, and the ReLU limit π/(π − 1) is approached to 1e-4
#: at B = 2048 (Theorem 8)
MAX_BATCH = 4096


def integer(value, name: str, lo: int, hi: int | None = None, why: str = "") -> int:
    """``value`` as an int in [lo, hi] (bools and non-integral floats refused)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        if isinstance(value, float) and math.isfinite(value) and value == int(value):
            value = int(value)
        else:
            raise DeepinitError(f"{name} must be an integer, not {_short(value)}")
    value = int(value)
    if value < lo or (hi is not None and value > hi):
        rng = f"≥ {lo}" if hi is None else f"in [{lo}, {hi}]"
        raise DeepinitError(f"{name} = {_short(value)} must be {rng}" + (f": {why}" if why else ""))
    return value


def dps(value) -> int:
    """Decimal digits of an mpmath route: at least the float precision (else the 'high-precision' result has
    fewer digits than the float route), at most :data:`MAX_DPS`."""
    return integer(value, "dps", MIN_DPS, MAX_DPS,
                   f"a high-precision route must carry at least the {MIN_DPS} digits of float64 and at most "
                   f"{MAX_DPS} (cost grows like dps²)")


def batch_size(value, minimum: int = 4, what: str = "the BSB1 fixed point") -> int:
    return integer(value, "batch size B", minimum, MAX_BATCH,
                   f"{what} needs B ≥ {minimum} (bn-mean-field Theorems 4–9; bn-finite-width eq 16), and the "
                   f"sphere quadratures are validated up to B = {MAX_BATCH}")


def gram_matrix(G, name: str = "G", *, batched: bool = True, psd: bool = True, tol: float = 1e-10) -> np.ndarray:
    """A finite, symmetric, positive semi-definite matrix (or a stack of them), as float64.

    Symmetry is checked to ``tol`` relative to the largest entry; PSD to −``tol`` times the largest eigenvalue.
    The scale may be anything in the float range: callers normalise (𝓘 of c·I is 1 for every c > 0)."""
    try:
        A = np.asarray(G, dtype=float)
    except (TypeError, ValueError):
        raise DeepinitError(f"{name} must be a real matrix, not {_short(G)}") from None
    if A.ndim < 2 or A.shape[-1] != A.shape[-2] or A.shape[-1] == 0 or (A.ndim > 2 and not batched):
        raise DeepinitError(f"{name} must be a square matrix{' (or a stack of them)' if batched else ''}; "
                            f"got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        raise DeepinitError(f"{name} has non-finite entries")
    scale = np.max(np.abs(A), axis=(-2, -1), keepdims=True)
    if np.any(np.abs(A - np.swapaxes(A, -1, -2)) > tol * scale):
        raise DeepinitError(f"{name} is not symmetric")
    if psd:
        safe = np.where(scale > 0, scale, 1.0)
        lam = np.linalg.eigvalsh(A / safe)
        psd_eigenvalues(lam[..., 0], lam[..., -1], name, tol, lam[..., 0] * safe[..., 0, 0])
    return A


def psd_eigenvalues(smallest, largest, name: str, tol: float, reported=None) -> None:
    """The positive semi-definiteness criterion of :func:`gram_matrix` on eigenvalues a caller already has:
    λ_min ≥ −``tol`` λ_max for every matrix of a stack (any common positive scale). ``reported``: the smallest
    eigenvalues to name in the error (default ``smallest``)."""
    smallest = np.asarray(smallest, dtype=float)
    if np.any(smallest < -tol * np.maximum(np.asarray(largest, dtype=float), 1e-300)):
        shown = smallest if reported is None else np.asarray(reported, dtype=float)
        raise DeepinitError(f"{name} is not positive semi-definite (smallest eigenvalue {float(np.min(shown)):.3g})")


def _short(v, limit: int = 60) -> str:
    s = repr(v)
    return s if len(s) <= limit else s[: limit - 10] + f"…({len(s)} characters)"


#: memory a single simulation may ask for (GiB); DEEPINIT_MEMORY_GB overrides it
def memory_limit_gb() -> float:
    """DEEPINIT_MEMORY_GB (default 32); a value that is not a finite number > 0 is an error, never ignored (a NaN
    limit would let every simulation through)."""
    import os
    text = os.environ.get("DEEPINIT_MEMORY_GB", "") or "32"
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not (math.isfinite(v) and v > 0):
        raise DeepinitError(f"DEEPINIT_MEMORY_GB={text[:40]!r} must be a finite number > 0 (GiB; default 32)")
    return v


def memory(nbytes: float, what: str) -> None:
    """Refuse a simulation whose working set (estimated from its cost model) exceeds :func:`memory_limit_gb`,
    instead of letting the allocator fail mid-run."""
    gb = nbytes / 2 ** 30
    if gb > memory_limit_gb():
        raise DeepinitError(f"{what} needs about {gb:.3g} GiB, above the limit of {memory_limit_gb():g} GiB "
                            "(set DEEPINIT_MEMORY_GB to raise it); use fewer seeds or a smaller width/batch")


def simulation_sizes(width, batch, depth, seeds) -> tuple[int, int, int, int]:
    """Width ≥ 1, batch ≥ 1, depth ≥ 0 and seeds ≥ 1 as ints (the same message everywhere)."""
    return (integer(width, "width", 1), integer(batch, "batch size", 1), integer(depth, "depth", 0),
            integer(seeds, "seeds", 1))


#: seeds of the API: non-negative integers below 2⁶³ (torch's generators take 64 bits; checks derive seed·k + j)
SEED_LIMIT = 2 ** 63 - 1


def seed(value) -> int:
    return integer(value, "seed", 0, SEED_LIMIT, "seeds are non-negative integers below 2⁶³")


def bn_parameters(eps, gamma, beta, *, bounded: bool = True) -> tuple[float, float, float]:
    """BN's (ε, γ, β) as floats: ε finite in [0, 1e6], γ and β finite; ``bounded`` (the quadrature) also asks
    1e-6 ≤ |γ| ≤ 1e6 and |β| ≤ 1e3. One check for theory and numerics."""
    try:
        eps, gamma, beta = float(eps), float(gamma), float(beta)
    except (TypeError, ValueError):
        raise DeepinitError("BN ε, γ and β must be numbers") from None
    if not (math.isfinite(eps) and 0 <= eps <= 1e6):
        raise DeepinitError(f"BN ε = {eps!r}: must be a finite number in [0, 1e6]")
    if not (math.isfinite(gamma) and math.isfinite(beta)):
        raise DeepinitError("BN γ and β must be finite")
    if bounded and not 1e-6 <= abs(gamma) <= 1e6:
        raise DeepinitError(f"BN γ = {gamma!r}: must be finite with 1e-6 ≤ |γ| ≤ 1e6")
    if bounded and not abs(beta) <= 1e3:
        raise DeepinitError(f"BN β = {beta!r}: must be finite with |β| ≤ 1e3")
    return eps, gamma, beta


def thread_setting(text, what: str) -> int | None:
    """A thread count as the user wrote it (``--threads``, ``DEEPINIT_THREADS``): an integer in [1, 1024], or
    ``auto``/empty → None (the policy of numerics.threads decides)."""
    raw = str(text).strip().lower()
    if raw in ("", "auto"):
        return None
    try:
        n = int(raw)
    except ValueError:
        raise DeepinitError(f"{what} takes a positive integer or 'auto', not {raw[:40]!r}") from None
    if not 1 <= n <= 1024:
        raise DeepinitError(f"{what} {n} must be in [1, 1024] or 'auto'")
    return n
