"""What produced a report: package version and commit, the papers and plugins loaded, Python and library versions,
machine, command, times.

Recorded in every JSON report (``provenance``) so that a verdict can be traced to the code and environment that
produced it; :data:`LIBRARIES` are the libraries whose numerics the verdicts depend on.
"""
from __future__ import annotations

import datetime as _dt
import os
import platform
import subprocess
import sys
from importlib import metadata

from . import __version__

from .environment import LIBRARIES, library_versions, now  # noqa: F401  (what computes the numbers; re-exported)
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def git_commit() -> dict | None:
    """The commit of the checkout the package runs from (and whether it has local changes), or None."""
    if not os.path.isdir(os.path.join(_ROOT, ".git")):
        return None
    try:
        head = subprocess.run(["git", "-C", _ROOT, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
        dirty = subprocess.run(["git", "-C", _ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    if head.returncode != 0:
        return None
    return {"commit": head.stdout.strip(), "dirty": bool(dirty.stdout.strip()) if dirty.returncode == 0 else None}


def printable_argument(arg: str) -> str:
    """An argument as text a report can hold: bytes that were not UTF-8 (kept by Python as lone surrogates, which
    no UTF-8 file can store) written as ``\\xNN``."""
    return arg.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def collect(device: str, budget: str, seed: int, dtype: str, started: str, argv: list[str] | None = None) -> dict:
    return {
        "package": "deepinit-verify", "version": __version__, "git": git_commit(),
        "python": platform.python_version(), "implementation": platform.python_implementation(),
        "platform": platform.platform(), "machine": platform.machine(), "cpu_count": os.cpu_count(),
        "libraries": library_versions(), "device": device, "budget": budget, "seed": seed, "dtype": dtype,
        "torch_threads": _torch_threads(), "started": started, "finished": now(),
        "command": [os.path.basename(sys.executable), "-m", "verify",
                    *map(printable_argument, sys.argv[1:] if argv is None else argv)],
        **papers(),
    }


def papers() -> dict:
    """Every loaded paper with the distribution and version it comes from (plugins named), and the plugins that
    failed to load with their causes."""
    from .registry import failures, sources
    return {"papers": [{"paper": k, **v} for k, v in sources().items()], "plugin_failures": failures()}


def _torch_threads():
    mod = sys.modules.get("torch")
    return int(mod.get_num_threads()) if mod is not None else None
