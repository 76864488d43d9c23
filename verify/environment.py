"""What computes a verdict's numbers: the numerical libraries and their versions, and the time. The cache keys its
entries by these versions and every verdict records them; :mod:`verify.provenance` puts them in a report. Imports
nothing of the package (imports run one way)."""
from __future__ import annotations

import datetime as _dt
from importlib import metadata

#: the libraries whose numerics the verdicts depend on
LIBRARIES = ("sympy", "mpmath", "numpy", "scipy", "torch", "python-flint", "gmpy2")


def now() -> str:
    """The time, UTC, to the second (ISO 8601)."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def library_versions() -> dict:
    """{library: version or None} of :data:`LIBRARIES`."""
    out = {}
    for lib in LIBRARIES:
        try:
            out[lib] = metadata.version(lib)
        except metadata.PackageNotFoundError:
            out[lib] = None
    return out
