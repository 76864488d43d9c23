"""The claim registry: every numbered result of the four papers, checked or not yet."""
from __future__ import annotations

import difflib
import importlib

from .core import DEFAULT_PAPER, PAPERS, Claim

_PAPER_MODULES = ("isometry", "bn_finite_width", "bn_mean_field", "bn_mean_field_training", "covariance_sde", "pending")


class UsageError(ValueError):
    """Bad command-line input: unknown claim, bad parameter (exit status 2)."""


_CLAIMS: dict[str, Claim] = {}
_ALIASES: dict[str, str] = {}


def register(claim: Claim) -> Claim:
    if claim.paper not in PAPERS:
        raise ValueError(f"unknown paper {claim.paper!r}")
    if claim.id in _CLAIMS:
        raise ValueError(f"claim {claim.id} registered twice")
    _CLAIMS[claim.id] = claim
    for a in claim.aliases:
        _ALIASES[f"{claim.paper}:{a}"] = claim.id
    return claim


_LOADED = False


def _load() -> None:
    """Import every paper module once (in order, "pending" last); importing one module directly first is fine."""
    global _LOADED
    if not _LOADED:
        for mod in _PAPER_MODULES:
            importlib.import_module(f"verify.papers.{mod}")
        _LOADED = True


def all_claims() -> list[Claim]:
    _load()
    order = list(PAPERS)
    return sorted(_CLAIMS.values(), key=lambda c: (order.index(c.paper), _natural(c.name)))


def _natural(name: str):
    import re
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def resolve(spec: str) -> Claim:
    """``paper:claim`` or a bare claim name (meaning the bn-finite-width paper's claim)."""
    _load()
    key = spec.strip().lower()
    if ":" not in key:
        key = f"{DEFAULT_PAPER}:{key}"
    key = _ALIASES.get(key, key)
    if key in _CLAIMS:
        return _CLAIMS[key]
    paper = key.split(":", 1)[0]
    if paper not in PAPERS:
        raise UsageError(f"unknown paper {paper!r} in {spec!r}; papers are: {', '.join(PAPERS)}")
    near = difflib.get_close_matches(key, list(_CLAIMS) + list(_ALIASES), n=5, cutoff=0.6)
    msg = f"unknown claim {spec!r}"
    if near:
        msg += "; near matches: " + ", ".join(near)
    msg += ". `python -m verify list` shows every claim."
    raise UsageError(msg)
