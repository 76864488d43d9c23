"""Refuse to start when a local module shadows one of the package's own (a ``theory.py`` or ``numerics.py`` in the
working directory would otherwise break ``python -m verify`` with an obscure ModuleNotFoundError)."""
from __future__ import annotations

import importlib.util
import os

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def shadowing_modules() -> list[tuple[str, str]]:
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
    parts = [f"{name!r} resolves to {origin}" for name, origin in found]
    return ("error: deepinit-verify's own packages are shadowed: " + "; ".join(parts)
            + f" instead of {_ROOT}. Rename the local file(s) or run from another directory.")
