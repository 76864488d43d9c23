"""The claim registry, verdicts, reports and the command line (``python -m verify``).

The names below load on first use (PEP 562), so that ``import verify`` itself imports nothing: the
``deepinit-verify`` script's start-up (:mod:`verify._start`) is then covered by its Ctrl-C handling.
"""
__version__ = "0.2.0"

__all__ = ["HOLDS", "HYPOTHESES_NOT_MET", "INCONCLUSIVE", "VIOLATED", "Claim", "Context", "Erratum",
           "Evidence", "Verdict", "__version__"]


def __getattr__(name):
    if name in __all__:
        from . import core
        return getattr(core, name)
    raise AttributeError(f"module 'verify' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
