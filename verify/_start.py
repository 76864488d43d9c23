"""Start-up of ``python -m verify`` and of the ``deepinit-verify`` script.

Two things happen before the command line is read:

* a local ``theory.py`` or ``numerics.py`` that shadows one of the package's own modules is refused with one
  line (it would otherwise break the imports with an obscure ``ModuleNotFoundError``);
* Ctrl-C (or SIGTERM) at any moment, the imports included, exits with status 130 and one line, never a traceback
  and never death by a signal (an interrupt during torch's import is held until the import has finished: torch's
  C++ initialisation aborts the process when interrupted).

The second needs care in two places. An interrupt can be swallowed on its way up — raised inside a finaliser or a
callback, Python prints "Exception ignored" and goes on — so :func:`run` installs a SIGINT handler that records the
interrupt before raising ``KeyboardInterrupt``, and a run that saw one exits 130 whatever it returned. And under
``python -m``: CPython records an interrupt that escapes a code string run by
``exec`` (``scipy.special``'s import runs ``exec("from numpy import *")``; every ``@dataclass`` runs ``exec``)
as *unhandled*, even when an outer ``except KeyboardInterrupt`` catches it, and ``Py_RunMain`` then re-raises
SIGINT on exit instead of returning the status: the process dies by the signal (return code −2). The flag is
reset at the start of every evaluation of a code string, so :func:`exit_interrupted` runs an empty one before
exiting.
"""
from __future__ import annotations

import importlib.util
import os
import signal
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INTERRUPTED = 130


def shadowing_modules() -> list[tuple[str, str]]:
    """The package's own top-level modules that resolve elsewhere, as ``(name, origin)`` pairs."""
    out = []
    for name in ("theory", "numerics"):
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        origin = getattr(spec, "origin", None) or ""
        expected = os.path.join(_ROOT, name, "__init__.py")
        if not origin or os.path.abspath(origin) != expected:
            out.append((name, origin or "not found"))
    return out


def message(found: list[tuple[str, str]]) -> str:
    """The one-line refusal for :func:`shadowing_modules`' findings."""
    parts = [f"{name!r} resolves to {origin}" for name, origin in found]
    return ("error: deepinit-verify's own packages are shadowed: " + "; ".join(parts)
            + f" instead of {_ROOT}. Rename the local file(s) or run from another directory.")


def forget_interrupt() -> None:
    """Clear CPython's record of an interrupt that escaped an ``exec``'d string (see the module docstring).

    Evaluating any code string resets the record; this one is a constant, never user input."""
    exec("None")  # noqa: S102 - a constant string: its only effect is the reset


def _cancel_redelivery() -> None:
    """No interrupt pending on a timer: the process is exiting (a timer firing during finalisation would kill it)."""
    try:
        signal.setitimer(signal.ITIMER_REAL, 0)
    except (AttributeError, ValueError, OSError):
        pass


def _ignore_further_interrupts() -> None:
    """From here on the exit status is decided: Python restores the default SIGINT action while it finalises, so a
    Ctrl-C then would kill the process by the signal; an ignored one lets it end with its status."""
    for sig in (signal.SIGINT, getattr(signal, "SIGTERM", None)):
        try:
            if sig is not None and (sig == signal.SIGINT or signal.getsignal(sig) is _on_sigint):
                signal.signal(sig, signal.SIG_IGN)
        except (ValueError, OSError):
            pass


def exit_interrupted(note: str = "interrupted") -> None:
    """Print ``note`` on its own line and exit with status 130, whatever the interrupt passed through."""
    _ignore_further_interrupts()
    _cancel_redelivery()
    try:
        sys.stderr.write(f"\n{note}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    forget_interrupt()
    sys.exit(INTERRUPTED)



# the modules whose import must not be interrupted (torch's), and whether one is being imported: verify.interrupts
from . import interrupts as _interrupts  # noqa: E402
from .interrupts import DEFER_WHILE_IMPORTING, importing_fragile as _importing_fragile  # noqa: E402,F401


def _later() -> bool:
    """Deliver the interrupt from a timer in 10 ms (False where no timer exists)."""
    try:
        signal.signal(signal.SIGALRM, _redeliver)
        signal.setitimer(signal.ITIMER_REAL, 0.01)
        return True
    except (AttributeError, ValueError, OSError):
        return False


def _on_sigint(signum, frame):
    _interrupts.note_received()
    if _importing_fragile() and _later():
        return
    raise KeyboardInterrupt


interrupt_received = _interrupts.interrupt_received   # whether this process received Ctrl-C (verify.interrupts)


def _redeliver(signum, frame):
    if _importing_fragile():   # still inside torch's import: try again in 10 ms
        signal.setitimer(signal.ITIMER_REAL, 0.01)
        return
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    raise KeyboardInterrupt


def _unraisable(hook_args) -> None:
    """An interrupt raised where Python cannot propagate it (a finaliser, an import lock's callback) would be printed
    as "Exception ignored …" with a traceback and then lost: deliver it again 10 ms later, from a timer, once the
    hook has returned (raising here, or a signal handled synchronously here, would only be ignored again). Where no
    timer exists the interrupt stays recorded and the run exits 130 when it ends."""
    if isinstance(hook_args.exc_value, KeyboardInterrupt):
        _later()
        return
    sys.__unraisablehook__(hook_args)


def _record_interrupts() -> None:
    """Replace Python's SIGINT handler by one that also records the interrupt (only where Python's own handler is
    installed: an inherited "ignore" stays), and redeliver interrupts that would be swallowed."""
    try:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _on_sigint)
            sys.unraisablehook = _unraisable
        # SIGTERM (a batch scheduler's or `kill`'s) is an interrupt too: the report in progress is finished and no
        # temporary file is left, where the default action would end the process mid-write
        if hasattr(signal, "SIGTERM") and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _on_sigint)
    except (ValueError, OSError):  # not the main thread: nothing to record
        pass


from .interrupts import caused_by_interrupt as _caused_by_interrupt  # noqa: E402


def run() -> None:
    """``python -m verify`` and the ``deepinit-verify`` console script."""
    _record_interrupts()
    try:
        found = shadowing_modules()
        if found:
            sys.stderr.write(message(found) + "\n")
            sys.exit(2)
        from .cli import main
    except KeyboardInterrupt:
        exit_interrupted()
    except BaseException as exc:  # an interrupt another exception replaced (argparse's finally, a C extension)
        if interrupt_received() or _caused_by_interrupt(exc):
            exit_interrupted()
        raise
    try:
        code = main()
        _ignore_further_interrupts()   # the run is decided: a late Ctrl-C cannot kill its teardown
    except KeyboardInterrupt:  # between main's own handlers (it returns 130 for every interrupt it sees)
        exit_interrupted()
    except BaseException as exc:
        if interrupt_received() or _caused_by_interrupt(exc):
            exit_interrupted()
        raise
    if code == INTERRUPTED:
        _cancel_redelivery()
        forget_interrupt()
    elif interrupt_received():  # an interrupt swallowed on its way up, or still on its timer: the run did not finish as asked
        exit_interrupted()
    sys.exit(code)
