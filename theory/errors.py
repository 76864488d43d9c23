"""Errors raised by the theory layer: each says what was wrong with the input."""


class DeepinitError(ValueError):
    """Base class: a clear, user-facing error about an input (never a bug).

    Raised (as itself or a subclass) by every function of :mod:`theory` whose input is out of its domain; it is a
    ``ValueError``.

    Examples
    --------
    >>> from theory import DeepinitError, bsb1_fixed_point
    >>> try:
    ...     bsb1_fixed_point("relu", 2)
    ... except DeepinitError as e:
    ...     print(str(e)[:45])
    batch size B = 2 must be in [4, 4096]: the BS
    """


class ActivationError(DeepinitError):
    """A malformed, non-whitelisted, non-square-integrable or otherwise unusable activation.

    Raised by :func:`theory.activation` and by every function that takes an activation.

    Examples
    --------
    >>> from theory import ActivationError, activation
    >>> try:
    ...     activation("x**")
    ... except ActivationError as e:
    ...     print(str(e)[:43])
    malformed activation formula 'x**': invalid
    """


class UndefinedQuantityError(DeepinitError):
    """A quantity the papers define is undefined for this input (e.g. β_σ of a constant σ).

    Examples
    --------
    >>> from theory import UndefinedQuantityError, gradient_explosion_rate
    >>> try:
    ...     gradient_explosion_rate("step", 8)            # φ′ of a jump is a Dirac mass: no backward map
    ... except UndefinedQuantityError as e:
    ...     print(str(e)[:44])
    step is discontinuous: φ′ carries a Dirac ma
    """


class QuadratureError(DeepinitError):
    """A numerical integral did not converge to the requested accuracy.

    Raised by the quadratures of :mod:`theory` when two rule sizes disagree or an integrand is not finite on the
    nodes; like every :class:`DeepinitError` it is a ``ValueError``.

    Examples
    --------
    >>> from theory import DeepinitError, QuadratureError
    >>> try:
    ...     raise QuadratureError("quadrature did not converge")
    ... except DeepinitError as e:
    ...     print(type(e).__name__, isinstance(e, ValueError))
    QuadratureError True
    """
