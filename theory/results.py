"""The package's one result convention for a computed scalar: an :class:`Estimate` (value, error, method).

``value`` is a float; ``error`` a bound or an estimate of ``|value − true value|`` (the method says which: an
mpmath error estimate, the difference of two quadrature rules, a standard error, …), including the rounding of
``value`` to a float; ``method`` says in words how the number was obtained.

Exact zeros. A quantity that is zero exactly (a fixed point q* = 0, the integral of an odd integrand, a correlation
map of functions with disjoint supports) is reported as ``0.0`` — never as quadrature noise such as ``1e-45``. The
engines return 0.0 when the value they computed cancels below their stated precision relative to the magnitudes of
the terms that cancelled (``error`` then states that precision), and :class:`Estimate` itself stores every zero as
``+0.0`` (never ``-0.0``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = ["Estimate", "MatrixEstimate"]


@dataclass(frozen=True)
class Estimate:
    """A computed scalar with its error and the method that produced it.

    Parameters
    ----------
    value : float
        The number (``float(estimate)`` returns it).
    error : float
        Non-negative; ``0.0`` for an exact value, ``inf`` when no accuracy can be claimed.
    method : str
        How the value was computed (route, precision, rule sizes).
    text : str, optional
        The value with all the digits the route carried (an mpmath route carries more than a float holds); empty
        when the float is all there is.

    Examples
    --------
    >>> e = Estimate(1.75960123, 3e-4, "example")
    >>> str(e)
    '1.7596(3)e0'
    >>> float(e), f"{e:.3f}"
    (1.75960123, '1.760')
    >>> Estimate(-0.0, 0.0, "exact").value
    0.0
    """

    value: float
    error: float
    method: str
    text: str = field(default="", compare=False)

    def __post_init__(self):
        v, e = float(self.value), float(self.error)
        if v == 0.0:
            v = 0.0  # −0.0 → +0.0: an exact zero has one spelling
        if not e >= 0.0:
            raise ValueError(f"an Estimate's error must be non-negative, not {e!r}")
        object.__setattr__(self, "value", v)
        object.__setattr__(self, "error", e)

    @classmethod
    def exact(cls, value: float, method: str) -> "Estimate":
        """An exactly known value (error 0)."""
        return cls(float(value), 0.0, method)

    def __float__(self) -> float:
        return self.value

    @property
    def relative_error(self) -> float:
        """``error / |value|`` (``inf`` for a zero value with a non-zero error, 0 for an exact zero)."""
        if self.value == 0.0:
            return 0.0 if self.error == 0.0 else math.inf
        return self.error / abs(self.value)

    def __str__(self) -> str:
        v, e = self.value, self.error
        if not math.isfinite(v):
            return str(v)
        if e == 0.0:
            return f"{v!r} (exact)"
        if not math.isfinite(e) or (v != 0.0 and e >= abs(v)) or v == 0.0:
            return f"{v:.3g} ± {e:.2g}"
        exp10 = math.floor(math.log10(abs(v)))
        d = math.floor(math.log10(e))
        digits = min(max(exp10 - d, 0), 16)
        unit = 10.0 ** (exp10 - digits)
        err_units = max(1, math.ceil(e / unit - 1e-9))
        if err_units >= 10 and digits > 0:  # one digit of error at most: drop a decimal
            digits -= 1
            unit *= 10
            err_units = math.ceil(e / unit - 1e-9)
        mantissa = f"{v / 10.0 ** exp10:.{digits}f}"
        if abs(float(mantissa)) >= 10.0:
            # rounded up to ±10.0…0 at the error's unit (9.99996 ± 1e-4 → 10.0000): that is ±1.0…0 at the next power
            # of ten with one more decimal, so that the error keeps its unit (1.00000(1)e1, not 1.0000(1)e1)
            exp10, digits = exp10 + 1, digits + 1
            mantissa = ("-" if v < 0 else "") + "1." + "0" * digits
        return f"{mantissa}({err_units})e{exp10}"

    def __format__(self, spec: str) -> str:
        return str(self) if not spec else format(self.value, spec)


@dataclass(frozen=True, eq=False)
class MatrixEstimate:
    """A computed matrix with its entrywise error and the method: the :class:`Estimate` convention for arrays.

    Parameters
    ----------
    value : numpy.ndarray
        The matrix (read-only float64).
    error : numpy.ndarray
        Same shape, non-negative: an estimate or bound of ``|value − true value|`` entry by entry (the method says
        which), including the rounding of ``value``.
    method : str
        How the matrix was computed.

    Examples
    --------
    >>> import numpy as np
    >>> m = MatrixEstimate(np.eye(2), np.full((2, 2), 1e-16), "example")
    >>> m.shape, m.max_error
    ((2, 2), 1e-16)
    >>> float(m[0, 0])
    1.0
    """

    value: "np.ndarray"
    error: "np.ndarray"
    method: str

    def __post_init__(self):
        import numpy as np
        v = np.array(self.value, dtype=float)
        e = np.array(self.error, dtype=float)
        if v.shape != e.shape:
            raise ValueError(f"value and error must have one shape, not {v.shape} and {e.shape}")
        if not np.all(e >= 0.0):
            raise ValueError("a MatrixEstimate's errors must be non-negative")
        v += 0.0  # −0.0 → +0.0
        v.flags.writeable = False
        e.flags.writeable = False
        object.__setattr__(self, "value", v)
        object.__setattr__(self, "error", e)

    @property
    def shape(self) -> tuple:
        return self.value.shape

    @property
    def max_error(self) -> float:
        """The largest entrywise error."""
        return float(self.error.max()) if self.error.size else 0.0

    def __getitem__(self, index):
        return self.value[index]

    def __array__(self, dtype=None, copy=None):
        return self.value if dtype is None else self.value.astype(dtype)

    def entry(self, i: int, j: int) -> Estimate:
        """Entry (i, j) as an :class:`Estimate`."""
        return Estimate(float(self.value[i, j]), float(self.error[i, j]), self.method)
