"""Where an interrupt hides: whether Ctrl-C is behind an exception (an interrupt that another exception replaced),
and whether an import that must not be interrupted (torch's) is under way. Imports nothing: the command line's
start-up, the model (core) and the registry all ask it (imports run one way)."""
from __future__ import annotations

import sys

#: modules whose import must not be interrupted: torch's initialisation calls back into Python from C++ (pybind11),
#: where a KeyboardInterrupt cannot propagate and aborts the process (SIGABRT, "terminate called after throwing an
#: instance of 'pybind11::error_already_set'"); an interrupt that arrives while one of them is being imported is
#: delivered when its import has finished
DEFER_WHILE_IMPORTING = ("torch",)


def importing_fragile() -> bool:
    """Whether one of :data:`DEFER_WHILE_IMPORTING` is being imported (an interrupt then waits for it)."""
    for name in DEFER_WHILE_IMPORTING:
        spec = getattr(sys.modules.get(name), "__spec__", None)
        if getattr(spec, "_initializing", False):
            return True
    return False


def caused_by_interrupt(exc: BaseException) -> bool:
    """A KeyboardInterrupt behind ``exc`` — replaced by another exception raised while it propagated (argparse's
    ``parse_intermixed_args`` raises AttributeError from its ``finally`` when interrupted early; a C extension's
    import raises ImportError)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


_RECEIVED = False


def note_received() -> None:
    """Record that this process received Ctrl-C (SIGINT): the start-up module's handler calls it."""
    global _RECEIVED
    _RECEIVED = True


def interrupt_received() -> bool:
    """Whether this process received Ctrl-C (SIGINT) since the command line's start-up installed its handler."""
    return _RECEIVED
