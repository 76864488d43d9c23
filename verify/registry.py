"""The claim registry: every paper found in the entry-point group ``deepinit_verify.papers`` and its claims.

Papers are discovered, never listed here: the four built-in papers and every installed plugin name a
:class:`verify.api.Paper` in that group (:mod:`verify.api`). Discovery reads the installed distributions' metadata
(:func:`paper_keys`, cheap: nothing is imported); :func:`load_papers` imports each paper's module once per process, so
a ``--jobs`` or Dask worker finds the same papers as the command that started it. A plugin that fails to import is
recorded with its cause (:func:`failures`); the other papers load and run.
"""
from __future__ import annotations

import contextlib
import difflib
import functools
import sys
from importlib import metadata

from .core import Claim

GROUP = "deepinit_verify.papers"
BUILTIN_DISTRIBUTION = "deepinit-verify"
# the paper whose claims a bare name (``theorem1``) means when no other paper has a claim of that name
DEFAULT_PAPER = "bn-finite-width"


class UsageError(ValueError):
    """Bad command-line input: unknown claim, bad parameter (exit status 2).

    Examples
    --------
    >>> from verify.registry import UsageError, resolve
    >>> try:
    ...     resolve("no-such-paper:theorem1")
    ... except UsageError as e:
    ...     print(str(e)[:29])
    unknown paper 'no-such-paper'
    """


class PluginLoadError(UsageError):
    """A claim of a paper whose plugin failed to import (exit status 2, naming the cause).

    Raised by :func:`paper` and :func:`resolve` for a paper listed in :func:`failures`; it is a :class:`UsageError`.

    Examples
    --------
    >>> from verify.registry import PluginLoadError, UsageError
    >>> try:
    ...     raise PluginLoadError("paper 'broken' could not be loaded: ImportError: no module named 'broken'")
    ... except UsageError as e:
    ...     print(type(e).__name__)
    PluginLoadError
    """


# key → verify.api.Paper, in load order: the papers declared so far (verify.paper keeps the table; its Paper
# registers itself there on declaration, and its claims with add_claim)
from .paper import DECLARED as _PAPERS, add_claim, add_paper  # noqa: E402,F401
_FAILURES: dict[str, str] = {}   # key → one line: why the plugin could not be loaded
_SOURCES: dict[str, dict] = {}   # key → {"distribution", "version", "module", "builtin"}
_LOADED = False
_AMBIGUOUS: dict[str, str] = {}  # key → why: served by two distributions (found by _entry_points)

#: seconds a paper's module may take to import (``DEEPINIT_PLUGIN_TIMEOUT``); a plugin that hangs at import is a
#: load failure, not a hung command
PLUGIN_IMPORT_SECONDS = 120.0


def _tables() -> tuple[dict[str, Claim], dict[str, str]]:
    """(claim id → claim, ``paper:alias`` → claim id) of the registered papers, in paper and declaration order."""
    claims, aliases = {}, {}
    for paper in _PAPERS.values():
        for claim in paper.claims.values():
            claims[claim.id] = claim
            for a in claim.aliases:
                aliases[f"{claim.paper}:{a}"] = claim.id
    return claims, aliases


@functools.lru_cache(maxsize=1)
def _entry_points() -> tuple:
    eps = metadata.entry_points(group=GROUP)
    seen, out = {}, []
    for ep in eps:
        if ep.name in seen:
            first = seen[ep.name]
            if (first.value, _distribution(first)) != (ep.value, _distribution(ep)):
                _AMBIGUOUS[ep.name] = (f"paper key {ep.name!r} is served twice: by {_distribution(first)} "
                                       f"({first.value}) and by {_distribution(ep)} ({ep.value}); uninstall one")
            continue
        seen[ep.name] = ep
        out.append(ep)
    # built-in papers first, in their distribution's order; then plugins by key
    builtin = [ep for ep in out if _distribution(ep) == BUILTIN_DISTRIBUTION]
    others = sorted((ep for ep in out if _distribution(ep) != BUILTIN_DISTRIBUTION), key=lambda ep: ep.name)
    return tuple(builtin + others)


def _distribution(ep) -> str | None:
    dist = getattr(ep, "dist", None)
    return dist.metadata["Name"] if dist is not None else None


def paper_keys() -> list[str]:
    """Every discovered paper's key, built-in papers first (nothing is imported).

    Returns
    -------
    list of str
        The keys: the four built-in papers, then installed plugins by key.

    Examples
    --------
    >>> from verify.registry import paper_keys
    >>> paper_keys()[:4]
    ['bn-finite-width', 'bn-mean-field', 'covariance-sde', 'isometry']
    """
    keys = [ep.name for ep in _entry_points()]
    return keys + [k for k in _PAPERS if k not in keys]


def load_papers() -> None:
    """Import every discovered paper once (a failing plugin is recorded in :func:`failures`).

    Examples
    --------
    >>> from verify.registry import load_papers, papers
    >>> load_papers()                                 # a second call does nothing
    >>> "isometry" in papers()
    True
    """
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    from .paper import APIVersionError, Paper
    for ep in _entry_points():
        dist = getattr(ep, "dist", None)
        source = {"distribution": _distribution(ep), "version": dist.version if dist is not None else None,
                  "module": ep.value.split(":", 1)[0], "builtin": _distribution(ep) == BUILTIN_DISTRIBUTION}
        try:
            if ep.name in _AMBIGUOUS:
                raise LookupError(_AMBIGUOUS[ep.name])
            shadow = "" if source["builtin"] else _shadowed(source["module"].split(".")[0])
            if shadow:
                raise LookupError(shadow)
            # a plugin's prints at import go to stderr (stdout may be `--json -`), and its sys.exit() is its failure
            with contextlib.redirect_stdout(sys.stderr), _import_time_limit(ep.name):
                try:
                    obj = ep.load()
                except SystemExit as exc:
                    raise RuntimeError(f"the plugin called sys.exit({exc.code!r}) while being imported") from None
            if not isinstance(obj, Paper):
                raise TypeError(f"entry point {ep.name} = {ep.value!r} is not a verify.api.Paper")
            if obj.key != ep.name:
                raise ValueError(f"entry point {ep.name!r} names paper {obj.key!r}: the names must agree")
        except APIVersionError as exc:
            _FAILURES[ep.name] = str(exc)
        except KeyboardInterrupt:
            raise
        except LookupError as exc:   # ambiguous or shadowed: said as it is
            _FAILURES[ep.name] = str(exc)
            _drop(ep.name)
        except Exception as exc:  # a broken plugin: its claims fail with this cause, the others run
            _FAILURES[ep.name] = f"{type(exc).__name__}: {exc}"[:2000]
            _drop(ep.name)
        else:
            _SOURCES[ep.name] = source


class PluginImportTimeout(Exception):
    """A paper's module took longer than :data:`PLUGIN_IMPORT_SECONDS` (or ``DEEPINIT_PLUGIN_TIMEOUT``) to import.

    Raised inside the import by a timer; :func:`load_papers` records it as that plugin's failure.

    Examples
    --------
    >>> from verify.registry import PluginImportTimeout, failures
    >>> issubclass(PluginImportTimeout, Exception), "isometry" in failures()
    (True, False)
    """


def _import_seconds() -> float:
    import math
    import os
    text = os.environ.get("DEEPINIT_PLUGIN_TIMEOUT", "").strip()
    try:
        value = float(text) if text else PLUGIN_IMPORT_SECONDS
    except ValueError:
        value = float("nan")
    if not (math.isfinite(value) and value > 0):
        raise UsageError(f"DEEPINIT_PLUGIN_TIMEOUT={text[:40]!r} must be a finite number of seconds > 0 "
                         f"(default {PLUGIN_IMPORT_SECONDS:g})")
    return value


def _import_time_limit(key: str):
    """Raise :class:`PluginImportTimeout` in the import when it takes longer than the limit
    (:func:`theory.formula.time_limit`: only in a process's main thread). While torch is being imported the timeout
    waits for that import to finish: interrupting torch's initialisation aborts the process."""
    from theory.formula import time_limit
    from .interrupts import importing_fragile as _importing_fragile
    seconds = _import_seconds()
    return time_limit(seconds, f"importing paper {key!r}", defer=_importing_fragile, error=lambda: PluginImportTimeout(
        f"importing the paper's module took longer than {seconds:g} s (a hang at import? DEEPINIT_PLUGIN_TIMEOUT "
        "sets the limit)"))


def _shadowed(top: str) -> str:
    """"" when a plugin's top-level module ``top`` resolves to one place; otherwise one line naming two of the places
    (a local ``top.py`` or directory earlier on the path would silently replace the installed plugin). Each path entry
    and each import hook (an editable install's) is asked separately; namespace portions are not counted."""
    import importlib.machinery
    import os
    finders = [(lambda f: lambda: f.find_spec(top, None))(f) for f in sys.meta_path
               if hasattr(f, "find_spec") and f not in (importlib.machinery.PathFinder,
                                                         importlib.machinery.BuiltinImporter,
                                                         importlib.machinery.FrozenImporter)]
    finders += [(lambda e: lambda: importlib.machinery.PathFinder.find_spec(top, [e or os.getcwd()]))(e)
                for e in sys.path]
    places = []
    for find in finders:
        try:
            spec = find()
        except Exception:   # an odd import hook: it cannot tell
            spec = None
        if spec is None or spec.origin in (None, "namespace", "built-in", "frozen"):
            continue
        where = os.path.realpath(os.path.dirname(spec.origin) if spec.submodule_search_locations else spec.origin)
        if where not in places:
            places.append(where)
    if len(places) > 1:
        return (f"module {top!r} of this paper is found in {places[0]} and in {places[1]}: one would silently "
                "replace the other; rename or remove one")
    return ""


def _drop(key: str) -> None:
    """Forget whatever a failed plugin registered before it failed."""
    _PAPERS.pop(key, None)


def papers() -> dict:
    """Key → :class:`verify.api.Paper` of every loaded paper.

    Returns
    -------
    dict
        Key → :class:`verify.api.Paper`, in load order.

    Examples
    --------
    >>> from verify.registry import papers
    >>> papers()["bn-mean-field"].key
    'bn-mean-field'
    """
    load_papers()
    return dict(_PAPERS)


def paper(key: str):
    """The :class:`verify.api.Paper` of ``key``.

    Parameters
    ----------
    key : str
        The paper's key.

    Returns
    -------
    verify.api.Paper
        The paper; :class:`UsageError` for an unknown key, :class:`PluginLoadError` for a plugin that failed to load.

    Examples
    --------
    >>> from verify.registry import paper
    >>> paper("isometry").title[:45]
    'On the impact of activation and normalization'
    """
    load_papers()
    if key in _FAILURES:
        raise PluginLoadError(f"paper {key!r} could not be loaded: {_FAILURES[key]}")
    if key not in _PAPERS:
        raise UsageError(f"unknown paper {key!r}; papers are: {', '.join(paper_keys())}")
    return _PAPERS[key]


def failures() -> dict[str, str]:
    """Key → cause of every paper whose plugin failed to load.

    Returns
    -------
    dict
        Key → one line saying why (empty when every plugin loaded).

    Examples
    --------
    >>> from verify.registry import failures
    >>> isinstance(failures(), dict)
    True
    """
    load_papers()
    return dict(_FAILURES)


def sources() -> dict[str, dict]:
    """Key → where each loaded paper comes from: distribution, version, module, built-in or plugin.

    Returns
    -------
    dict
        Key → ``{"distribution", "version", "module", "builtin"}``.

    Examples
    --------
    >>> from verify.registry import sources
    >>> s = sources()["isometry"]
    >>> s["module"], s["builtin"]
    ('verify.papers.isometry', True)
    """
    load_papers()
    return dict(_SOURCES)


def all_claims() -> list[Claim]:
    """Every registered claim, by paper (in load order) and in each paper's declaration order (its paper order).

    Returns
    -------
    list of Claim
        The claims.

    Examples
    --------
    >>> from verify.registry import all_claims
    >>> [c.id for c in all_claims() if c.paper == "bn-mean-field"][:3]
    ['bn-mean-field:theorem1', 'bn-mean-field:theorem2', 'bn-mean-field:theorem3']
    """
    load_papers()
    return list(_tables()[0].values())


def default_note(spec: str) -> str:
    """One line when ``spec`` is a bare claim name that several papers have, naming the claim the default chose
    (:data:`DEFAULT_PAPER`) and the other papers; ``""`` otherwise.

    Examples
    --------
    >>> from verify.registry import default_note
    >>> print(default_note("theorem1"))
    theorem1 → bn-finite-width:theorem1 (bn-mean-field and isometry also have a theorem1; name the paper to choose)
    >>> default_note("isometry:theorem1"), default_note("lemma5")
    ('', '')
    """
    load_papers()
    key = spec.strip().lower()
    if ":" in key:
        return ""
    claims, aliases = _tables()
    owners = [p for p in _PAPERS if f"{p}:{key}" in claims or f"{p}:{key}" in aliases]
    if len(owners) < 2 or DEFAULT_PAPER not in owners:
        return ""
    others = [p for p in owners if p != DEFAULT_PAPER]
    names = " and ".join([", ".join(others[:-1]), others[-1]] if len(others) > 1 else others)
    chosen = aliases.get(f"{DEFAULT_PAPER}:{key}", f"{DEFAULT_PAPER}:{key}")
    return f"{key} → {chosen} ({names} also {'has' if len(others) == 1 else 'have'} a {key}; name the paper to choose)"


def resolve(spec: str) -> Claim:
    """``paper:claim``, or a bare claim name: the claim of that name in the one paper that has it, else the
    bn-finite-width paper's (the package's first paper).

    Parameters
    ----------
    spec : str
        ``paper:claim``, an alias, or a bare claim name.

    Returns
    -------
    Claim
        The claim; :class:`UsageError` (with near matches) when there is none.

    Examples
    --------
    >>> from verify.registry import UsageError, resolve
    >>> resolve("isometry:definition3").id
    'isometry:definition3'
    >>> try:
    ...     resolve("isometry:definition")
    ... except UsageError as e:
    ...     print(str(e)[:76])
    unknown claim 'isometry:definition'; near matches: isometry:definition3, iso
    """
    load_papers()
    _CLAIMS, _ALIASES = _tables()
    key = spec.strip().lower()
    if ":" not in key:
        owners = [p for p in _PAPERS if f"{p}:{key}" in _CLAIMS or f"{p}:{key}" in _ALIASES]
        key = f"{owners[0] if len(owners) == 1 else DEFAULT_PAPER}:{key}"
    key = _ALIASES.get(key, key)
    if key in _CLAIMS:
        return _CLAIMS[key]
    paper_key = key.split(":", 1)[0]
    if paper_key in _FAILURES:
        raise PluginLoadError(f"{spec!r}: paper {paper_key!r} could not be loaded: {_FAILURES[paper_key]}")
    if paper_key not in _PAPERS:
        guess = difflib.get_close_matches(paper_key, list(_PAPERS), n=1, cutoff=0.6)
        hint = f"; did you mean {guess[0]!r}?" if guess else ""
        raise UsageError(f"unknown paper {paper_key!r} in {spec!r}{hint} Papers are: {', '.join(paper_keys())}")
    # near matches name claims as `list` shows them: an alias stands for its claim
    near = list(dict.fromkeys(_ALIASES.get(k, k) for k in
                              difflib.get_close_matches(key, list(_CLAIMS) + list(_ALIASES), n=8, cutoff=0.6)))[:5]
    msg = f"unknown claim {spec!r}"
    if near:
        msg += "; near matches: " + ", ".join(near)
    msg += ". `python -m verify list` shows every claim."
    raise UsageError(msg)


def coverage_items(paper: str) -> list:
    """The coverage rows a paper declares (:attr:`verify.api.Paper.coverage`).

    Parameters
    ----------
    paper : str
        A paper key.

    Returns
    -------
    list of verify.coverage.Item
        The paper's rows in its order; empty for an unknown paper.

    Examples
    --------
    >>> from verify.registry import coverage_items
    >>> coverage_items("isometry")[0].item, coverage_items("no-such-paper")
    ('eq (1)', [])
    """
    declared = papers().get(paper)
    return list(declared.coverage) if declared is not None else []
