"""Errors raised by the theory layer: each says what was wrong with the input."""


class DeepinitError(ValueError):
    """Base class: a clear, user-facing error about an input (never a bug)."""


class ActivationError(DeepinitError):
    """A malformed, non-whitelisted, non-square-integrable or otherwise unusable activation."""


class UndefinedQuantityError(DeepinitError):
    """A quantity the papers define is undefined for this input (e.g. β_σ of a constant σ)."""


class QuadratureError(DeepinitError):
    """A numerical integral did not converge to the requested accuracy."""
