"""An on-disk cache of verdicts: a repeated run with the same claim, settings and code is instant.

The key is the claim id, the run's settings (budget, seed, device, dtype, parameters, controls, sensitivity,
perturbation, version), a hash of the package's own source files (``theory/``, ``numerics/``, ``verify/``) and, for a
plugin paper's claim, a hash of the plugin's source files and its version, so an edited check — built in or a
plugin's — never returns a stale verdict; and the versions of the libraries that compute the numbers
(:data:`verify.environment.LIBRARIES`: sympy, mpmath, numpy, scipy, torch, python-flint, gmpy2), so a verdict
computed under one version of mpmath is not served under another. Each verdict records what computed it (``settings["computed"]``:
the time and those versions), which a cached or resumed verdict keeps. Entries are the verdicts' JSON, written
atomically, and validated when read: an entry that is not a regular file, is not the verdict of the claim asked for,
is an ``error``, or does not read back to itself is discarded and the claim recomputed (never a crash, never a block).
The directory is ``$DEEPINIT_CACHE`` or ``~/.cache/deepinit-verify``; ``--no-cache`` (or ``DEEPINIT_NO_CACHE=1``)
bypasses it. Verdicts that crashed (``error``) or were interrupted are never stored.
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


def _hash_tree(h, base: str, rel_to: str) -> None:
    if os.path.isfile(base):
        h.update(os.path.basename(base).encode())
        with open(base, "rb") as f:
            h.update(f.read())
        return
    for dirpath, dirnames, filenames in sorted(os.walk(base)):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for fn in sorted(filenames):
            if fn.endswith((".py", ".toml")):
                p = os.path.join(dirpath, fn)
                h.update(os.path.relpath(p, rel_to).encode())
                with open(p, "rb") as f:
                    h.update(f.read())


@functools.lru_cache(maxsize=1)
def package_hash() -> str:
    """sha256 over the package's own Python sources and data files (path and content)."""
    h = hashlib.sha256()
    for pkg in ("theory", "numerics", "verify"):
        _hash_tree(h, os.path.join(_ROOT, pkg), _ROOT)
    return h.hexdigest()


@functools.lru_cache(maxsize=None)
def plugin_hash(paper: str) -> str:
    """sha256 over a plugin paper's sources (its top-level package or module) and its distribution's version; ""
    for a built-in paper (its sources are the package's own)."""
    import importlib.util
    from .registry import sources
    src = sources().get(paper)
    if src is None or src.get("builtin"):
        return ""
    h = hashlib.sha256(f"{src.get('distribution')}=={src.get('version')}".encode())
    top = src["module"].split(".")[0]
    spec = importlib.util.find_spec(top)
    if spec is not None and spec.origin:
        base = os.path.dirname(spec.origin) if spec.submodule_search_locations else spec.origin
        _hash_tree(h, base, os.path.dirname(base))
    return h.hexdigest()


def code_hash() -> str:
    """The package's sources and every loaded plugin's: a worker with other code is refused (verify.parallel)."""
    from .registry import sources
    h = hashlib.sha256(package_hash().encode())
    for paper in sorted(sources()):
        h.update(f"{paper}:{plugin_hash(paper)}".encode())
    return h.hexdigest()


@functools.lru_cache(maxsize=1)
def library_versions() -> dict:
    """The versions of the libraries that compute a verdict's numbers (:data:`verify.environment.LIBRARIES`)."""
    from .environment import library_versions as versions
    return versions()


def code_id(claim_id: str) -> str:
    """The code a claim's verdict depends on — the package's sources, its paper's plugin and the numerical
    libraries' versions — as the short hash a report records in each verdict's settings (``"code"``) and
    ``--resume`` compares."""
    paper = claim_id.split(":", 1)[0]
    libraries = json.dumps(library_versions(), sort_keys=True)
    return hashlib.sha256(f"{package_hash()}:{plugin_hash(paper)}:{libraries}".encode()).hexdigest()[:16]


def computed_stamp() -> dict:
    """What a verdict computed now records of its computation (``settings["computed"]``): when, and with which
    library versions."""
    from .environment import now
    return {"at": now(), "libraries": library_versions()}


def run_settings(budget: str, seed: int, *, device: str = "cpu", dtype: str = "float64", controls: bool = True,
                 sensitivity: bool = False, perturb: dict | None = None, figure_style: str = "default",
                 params: dict | None = None) -> dict:
    """What a verdict depends on besides the code, JSON-normalised: the cache key's settings and what ``--resume``
    compares. The command line and the pytest plugin build it here, so each reuses the other's cached verdicts."""
    from . import __version__
    from .core import _clean
    return _clean({"budget": budget, "seed": seed, "device": device, "dtype": dtype, "controls": bool(controls),
                   "sensitivity": bool(sensitivity), "version": __version__,
                   **({"perturb": dict(perturb)} if perturb else {}),
                   **({"figure_style": figure_style} if figure_style != "default" else {}),
                   **{f"param.{k}": v for k, v in sorted((params or {}).items())}})


def key(claim_id: str, settings: dict) -> str:
    paper = claim_id.split(":", 1)[0]
    doc = json.dumps({"claim": claim_id, "settings": settings, "code": package_hash(), "plugin": plugin_hash(paper),
                      "libraries": library_versions()}, sort_keys=True, default=str)
    return hashlib.sha256(doc.encode()).hexdigest()


def _path(claim_id: str, settings: dict) -> str:
    k = key(claim_id, settings)
    return os.path.join(directory(), k[:2], k + ".json")


def checked_entry(doc, claim_id: str) -> Verdict:
    """The verdict of the JSON cache entry ``doc`` if it is a usable entry for ``claim_id``, else ``ValueError``
    saying why: it must be a verdict of that claim, not ``error``, with rows a check could have built, and read back
    to itself (what :func:`store` wrote)."""
    from .core import EvidenceError
    v = Verdict.from_dict(doc)
    if v.claim_id != claim_id:
        raise ValueError(f"the verdict of {v.claim_id[:80]!r}, not of {claim_id!r}")
    if v.status == ERROR:
        raise ValueError("an error verdict (never stored)")
    for row in v.evidence:
        if not isinstance(row.name, str) or row.passed not in (True, False, None):
            raise ValueError("an evidence row with a name that is not text or a pass mark that is not true/false/null")
        try:
            row.validate()
        except (EvidenceError, TypeError) as exc:
            raise ValueError(f"an evidence row a check cannot build ({str(exc)[:120]})") from None
    try:
        same = json.dumps(v.to_dict(), sort_keys=True) == json.dumps(doc, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        same = False
    if not same:
        raise ValueError("fields that do not read back to themselves")
    return v


def load(claim_id: str, settings: dict) -> Verdict | None:
    """The cached verdict of ``claim_id`` under ``settings`` and this code, or None. An entry that cannot be used
    (see :func:`checked_entry`; a FIFO or other non-file, a file over the size limit) is removed, so that the verdict
    computed next replaces it."""
    from .files import parse_json, read_input
    path = _path(claim_id, settings)
    try:
        return checked_entry(parse_json(read_input(path)), claim_id)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        try:
            os.unlink(path)
        except OSError:
            pass
        return None


def store(verdict: Verdict, settings: dict) -> None:
    if verdict.status == ERROR:
        return
    from .files import write_atomic
    try:
        write_atomic(_path(verdict.claim_id, settings), json.dumps(verdict.to_dict(), ensure_ascii=False))
    except OSError:
        pass  # a read-only home directory: no cache, never an error
