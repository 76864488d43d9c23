"""Paper declarations — the model of what a paper is: its key, citation, quantities and claims.

:class:`Paper`, :class:`QuantityHandle`, the claim API's version (:data:`API_VERSION`, :func:`check_api_version`)
and the declaration errors. Plugins and the built-in papers import them from :mod:`verify.api`, which re-exports
them; the registry reads the :class:`Paper` objects without importing :mod:`verify.api` (imports run one way:
app → outputs → engine → model).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

from . import __version__
from . import quantities as _Q
from .core import Claim, Context, Verdict
from .coverage import Item

#: the claim API's version, ``"MAJOR.MINOR"``: a minor release only adds names (see :func:`check_api_version`)
API_VERSION = "1.4"
#: the entry-point group in which a package names its :class:`Paper` (``pyproject.toml``)
ENTRY_POINT_GROUP = "deepinit_verify.papers"

#: key → Paper: every paper declared in this process, in declaration order (the registry's table of papers)
DECLARED: dict = {}

_KEY = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
_NAME = re.compile(r"^[a-z0-9][a-z0-9.-]*$")


class APIVersionError(RuntimeError):
    """A plugin needs a claim API this deepinit-verify does not provide.

    Raised by :func:`check_api_version`, and so by :class:`Paper` when its ``api_version`` cannot be served.

    Examples
    --------
    >>> from verify.api import APIVersionError, check_api_version
    >>> try:
    ...     check_api_version("2.0")
    ... except APIVersionError as e:
    ...     print(str(e)[:52])
    this plugin needs deepinit-verify's claim API 2.0; t
    """


class PaperDeclarationError(ValueError):
    """A paper, quantity or claim declared against the rules of this module (the message says which).

    Raised by :class:`Paper`, :meth:`Paper.quantity`, :meth:`Paper.add` and :meth:`Paper.claim`.

    Examples
    --------
    >>> from verify.api import Paper, PaperDeclarationError
    >>> try:
    ...     Paper(key="Bad Key", title="t", citation="c", register=False)
    ... except PaperDeclarationError as e:
    ...     print(str(e)[:70])
    paper key 'Bad Key': lower-case letters, digits and single hyphens, st
    """


def check_api_version(required: str) -> None:
    """Raise :class:`APIVersionError` unless this package serves the claim API ``required`` (``"MAJOR.MINOR"``).

    The same major version and a minor version at least ``required``'s are served.

    Parameters
    ----------
    required : str
        The version the plugin was written for, e.g. ``"1.0"``.

    Examples
    --------
    >>> from verify.api import API_VERSION, check_api_version
    >>> check_api_version(API_VERSION) is None
    True
    >>> check_api_version("9.0")
    Traceback (most recent call last):
    ...
    verify.api.APIVersionError: this plugin needs deepinit-verify's claim API 9.0; ...
    """
    try:
        major, minor = (int(p) for p in str(required).split("."))
    except ValueError:
        raise APIVersionError(f"api_version {required!r} must read MAJOR.MINOR, e.g. {API_VERSION!r}") from None
    have_major, have_minor = (int(p) for p in API_VERSION.split("."))
    if major != have_major or minor > have_minor:
        raise APIVersionError(f"this plugin needs deepinit-verify's claim API {required}; the installed "
                              f"deepinit-verify {__version__} provides {API_VERSION}")


@dataclass(frozen=True)
class QuantityHandle:
    """A declared theory quantity of a paper, namespaced ``paper:name``.

    A check consumes the quantity through :meth:`scaled` (or :meth:`delta`) exactly where its statement uses it, never
    on the independent route it is compared with; the negative control and ``--perturb paper:name=δ`` then scale it
    by (1 + δ) there.

    Attributes
    ----------
    name : str
        ``paper:name``.
    symbol : str
        As the paper prints it.
    meaning : str
        What it is, with the equation number.

    Examples
    --------
    >>> from verify import api
    >>> paper = api.Paper(key="example2025", title="Another example", citation="A. Author (2025)", register=False)
    >>> chi1 = paper.quantity("chi1", "χ₁", "the slope of the correlation map at c = 1 (eq 7)", "a formula")
    >>> chi1.name, chi1.scaled(0.9), chi1.delta()      # no perturbation outside the controls
    ('example2025:chi1', 0.9, 0.0)
    """

    name: str
    symbol: str
    meaning: str

    def scaled(self, value):
        """``value × (1 + δ)`` under an active perturbation of this quantity, else ``value``; records consumption."""
        return _Q.scaled(self.name, value)

    def delta(self) -> float:
        """The active relative perturbation δ of this quantity (0 outside controls); records consumption."""
        return _Q.delta(self.name)


@dataclass
class Paper:
    """A paper whose numbered results are checked as claims.

    Parameters
    ----------
    key : str
        Lower-case letters, digits and hyphens (``"schoenholz2017"``); claims are named ``key:claim``.
    title : str
        The paper's title as printed.
    citation : str
        The full reference (authors, title, venue, year).
    api_version : str
        The claim API the plugin was written for (:data:`API_VERSION`); checked on declaration.
    coverage : sequence of :class:`Item`
        Every numbered item of the paper, each with the claims that check it or why none does (``verify list``,
        the docs page's coverage table).
    expectations : str, optional
        Path of the paper's expected-verdicts TOML file (``--expect shipped`` composes it with the built-in one).
    notation : str
        The paper's notation, shown on its docs page.
    cite_key : str
        The paper's BibTeX key, cited in the captions of its LaTeX tables (``\\cite{cite_key}``; ``--latex-cite
        key=BIBKEY`` sets another). Default: ``key``.
    affinity : sequence of sequences of str
        Groups of this paper's claim names whose checks reuse one another's in-process computations (a sweep cache,
        the run's store): under ``--jobs``/``--scheduler`` each group is one task that runs its claims in this order
        in one worker; each verdict is still reported on its own.
    register : bool
        Register the paper (default). ``False`` declares a detached paper for tests and examples.

    Examples
    --------
    >>> from verify import api
    >>> paper = api.Paper(key="example2026", title="A third example", citation="A. Author (2026)", register=False)
    >>> @paper.claim("sum", title="Eq (1): 1 + 1 = 2", statement="1 + 1 = 2")
    ... def check(ctx):
    ...     row = api.Evidence("1 + 1", theory=2.0, numeric=1.0 + 1.0, passed=1.0 + 1.0 == 2.0)
    ...     return api.judged("example2026:sum", [row], "1 + 1 = 2", "1 + 1 ≠ 2")
    >>> sorted(paper.claims), paper.claims["sum"].check(api.Context()).status
    (['sum'], 'holds')
    """

    key: str
    title: str
    citation: str
    api_version: str = API_VERSION
    coverage: Sequence[Item] = ()
    expectations: str | None = None
    notation: str = ""
    affinity: Sequence[Sequence[str]] = ()
    register: bool = True
    cite_key: str = ""
    claims: dict = field(default_factory=dict, init=False, repr=False)
    quantities: dict = field(default_factory=dict, init=False, repr=False)
    module: str = field(default="", init=False, repr=False)

    def __post_init__(self):
        check_api_version(self.api_version)
        if not isinstance(self.key, str) or not _KEY.match(self.key):
            raise PaperDeclarationError(f"paper key {self.key!r}: lower-case letters, digits and single hyphens, "
                                        "starting with a letter (e.g. 'schoenholz2017')")
        for what in ("title", "citation"):
            if not str(getattr(self, what)).strip():
                raise PaperDeclarationError(f"paper {self.key!r}: {what} must not be empty")
        self.cite_key = self.cite_key or self.key
        if not isinstance(self.cite_key, str) or not re.fullmatch(r"[A-Za-z0-9_:.+-]+", self.cite_key):
            raise PaperDeclarationError(f"paper {self.key!r}: cite_key {self.cite_key!r} is not a BibTeX key "
                                        "(letters, digits and _:.+-)")
        self.coverage = tuple(self.coverage)
        self.affinity = tuple(tuple(group) for group in self.affinity)
        import sys
        frame = sys._getframe(1)
        while frame is not None and frame.f_globals.get("__name__") == __name__:
            frame = frame.f_back  # the dataclass's __init__ runs in this module's globals
        self.module = frame.f_globals.get("__name__", "") if frame is not None else ""
        if self.register:
            add_paper(self)

    @property
    def label(self) -> str:
        """``title`` with ``citation``: one line for listings and report headers."""
        return f"{self.citation}" if self.title in self.citation else f"{self.citation} — {self.title}"

    def quantity(self, name: str, symbol: str, meaning: str, source: str, *,
                 aliases: Sequence[str] = ()) -> QuantityHandle:
        """Declare a theory quantity the paper's claims depend on (perturbable by the controls and ``--perturb``).

        Parameters
        ----------
        name : str
            Short name, unique within the paper (``"chi1"``); the quantity is ``key:name``.
        symbol : str
            As the paper prints it (``"χ₁"``).
        meaning : str
            What it is, with the equation number.
        source : str
            The function that computes it (``"theory.meanfield_mlp.chi_1"``).
        aliases : sequence of str
            Other names of it in this paper (``--perturb paper:alias=δ``; a bare alias also stands for it).

        Returns
        -------
        QuantityHandle
        """
        if not isinstance(name, str) or not _NAME.match(name.lower().replace("*", "").replace("_", "-") or "?"):
            raise PaperDeclarationError(f"quantity {name!r} of {self.key}: letters, digits, '_', '*', '-' and '.'")
        full = f"{self.key}:{name}"
        if full in _Q.QUANTITIES or name in self.quantities:
            raise PaperDeclarationError(f"quantity {full!r} declared twice")
        quantity = _Q.Quantity(full, symbol, meaning, source, tuple(aliases))
        try:
            _Q.register_quantity(quantity)
        except ValueError as exc:
            raise PaperDeclarationError(str(exc)) from None
        handle = QuantityHandle(full, symbol, meaning)
        self.quantities[name] = handle
        return handle

    def add(self, claim: Claim) -> Claim:
        """Register a :class:`Claim` of this paper (``claim.paper`` must be this paper's key)."""
        if claim.paper != self.key:
            raise PaperDeclarationError(f"claim {claim.id} added to paper {self.key!r}")
        if not _NAME.match(claim.name):
            raise PaperDeclarationError(f"claim name {claim.name!r}: lower-case letters, digits, '-' and '.'")
        if claim.name in self.claims:
            raise PaperDeclarationError(f"claim {claim.id} declared twice")
        for q in claim.depends_on:
            if ":" in q and not q.startswith(self.key + ":"):
                raise PaperDeclarationError(f"{claim.id} depends on {q!r}, a quantity of another paper")
        # a bare name of a quantity this paper declares is that quantity (``"beta"`` → ``"isometry:beta"``)
        own = {n: h.name for n, h in self.quantities.items()}
        own.update({a: h.name for h in self.quantities.values() for a in _Q.QUANTITIES[h.name].aliases})
        if any(q in own for q in (*claim.depends_on, *claim.resolution_override)):
            claim = replace(claim, depends_on=tuple(own.get(q, q) for q in claim.depends_on),
                            resolution_override={own.get(q, q): v for q, v in claim.resolution_override.items()})
        self.claims[claim.name] = claim
        if self.register:
            add_claim(claim)
        return claim

    def claim(self, name: str, *, title: str, statement: str, **fields) -> Callable[[Callable], Callable]:
        """Decorator form of :meth:`add`: the decorated function is the claim's check.

        ``fields`` are :class:`Claim`'s (``hypotheses``, ``how``, ``negative_control``, ``control_description``,
        ``depends_on``, ``hypothesis_checks``, ``positive_control``, ``parameters``, ``uses``, ``aliases``,
        ``control_delta``, ``resolution_override``).
        """
        def decorate(check: Callable[[Context], Verdict]) -> Callable[[Context], Verdict]:
            deps = tuple(q.name if isinstance(q, QuantityHandle) else q for q in fields.pop("depends_on", ()))
            self.add(Claim(paper=self.key, name=name, title=title, statement=statement, check=check,
                           depends_on=deps, **fields))
            return check
        return decorate


def add_paper(paper) -> None:
    """Called by :class:`Paper` on declaration (the one registration path).

    A second paper with the key of a registered one is refused (``ValueError``).

    Examples
    --------
    >>> from verify import api, registry
    >>> registry.load_papers()
    >>> twin = api.Paper(key="isometry", title="A paper", citation="A. Author (2024)", register=False)
    >>> try:
    ...     registry.add_paper(twin)
    ... except ValueError as e:
    ...     print(str(e)[:33])
    paper 'isometry' declared twice (
    """
    if paper.key in DECLARED and DECLARED[paper.key] is not paper:
        raise ValueError(f"paper {paper.key!r} declared twice (modules {DECLARED[paper.key].module} and "
                         f"{paper.module})")
    DECLARED[paper.key] = paper


def add_claim(claim: Claim) -> None:
    """Called by :meth:`verify.api.Paper.add` before it keeps the claim: the claim's paper must be registered. The
    claim tables (:func:`all_claims`, :func:`resolve`) are built from the registered papers' ``claims`` alone.

    Examples
    --------
    >>> from verify import api, registry
    >>> try:                                          # the paper of a claim must be registered first
    ...     registry.add_claim(api.Claim("unregistered2024", "sum", "1 + 1 = 2", "1 + 1 = 2"))
    ... except ValueError as e:
    ...     print(e)
    claim unregistered2024:sum: paper 'unregistered2024' is not declared
    """
    if claim.paper not in DECLARED:
        raise ValueError(f"claim {claim.id}: paper {claim.paper!r} is not declared")
