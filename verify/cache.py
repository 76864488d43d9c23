"""An on-disk cache of verdicts: a repeated run with the same claim, settings and code is instant.

The key is the claim id, the run's settings (budget, seed, device, dtype, parameters, controls, sensitivity,
perturbation, version) and a hash of the package's own source files (``theory/``, ``numerics/``, ``verify/``), so an
edited check never returns a stale verdict. Entries are the verdicts' JSON, written atomically. The directory is
``$DEEPINIT_CACHE`` or ``~/.cache/deepinit-verify``; ``--no-cache`` (or ``DEEPINIT_NO_CACHE=1``) bypasses it. Verdicts
that crashed (``error``) or were interrupted are never stored.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os

from .core import ERROR, Verdict

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def directory() -> str:
    return os.environ.get("DEEPINIT_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "deepinit-verify")


def disabled() -> bool:
    return os.environ.get("DEEPINIT_NO_CACHE", "") not in ("", "0")


@functools.lru_cache(maxsize=1)
def code_hash() -> str:
    """sha256 over the package's Python sources and data files (path and content)."""
    h = hashlib.sha256()
    for pkg in ("theory", "numerics", "verify"):
        base = os.path.join(_ROOT, pkg)
        for dirpath, dirnames, filenames in sorted(os.walk(base)):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for fn in sorted(filenames):
                if fn.endswith((".py", ".toml")):
                    p = os.path.join(dirpath, fn)
                    h.update(os.path.relpath(p, _ROOT).encode())
                    with open(p, "rb") as f:
                        h.update(f.read())
    return h.hexdigest()


def key(claim_id: str, settings: dict) -> str:
    doc = json.dumps({"claim": claim_id, "settings": settings, "code": code_hash()}, sort_keys=True, default=str)
    return hashlib.sha256(doc.encode()).hexdigest()


def load(claim_id: str, settings: dict) -> Verdict | None:
    path = os.path.join(directory(), key(claim_id, settings)[:2], key(claim_id, settings) + ".json")
    try:
        with open(path, encoding="utf-8") as f:
            return Verdict.from_dict(json.load(f))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def store(verdict: Verdict, settings: dict) -> None:
    if verdict.status == ERROR:
        return
    from .report import write_atomic
    k = key(verdict.claim_id, settings)
    try:
        write_atomic(os.path.join(directory(), k[:2], k + ".json"), json.dumps(verdict.to_dict(), ensure_ascii=False))
    except OSError:
        pass  # a read-only home directory: no cache, never an error
