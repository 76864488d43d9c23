"""The public claim API: declare a paper, its theory quantities and its claims, and let deepinit-verify check them.

A paper — one of the four built in, or a researcher's own — is a package that declares a :class:`Paper` and names it
in the entry-point group ``deepinit_verify.papers`` of its ``pyproject.toml``::

    [project.entry-points."deepinit_verify.papers"]
    schoenholz2017 = "deepinfo_claims:PAPER"

Every part of deepinit-verify finds it there, in every process: ``verify list``, ``python -m verify
schoenholz2017:theorem1``, ``verify all``, ``--perturb``, ``--sensitivity``, the controls, ``--jobs N`` and Dask
workers, the pytest plugin, ``verify.docs``, ``render`` and the LaTeX/JSON/figure outputs. The four built-in papers are
declared with exactly this module and the same entry-point group (``verify/papers``).

Parameter kinds for ``Parameter(name, kind, default, help)`` are in the namespace ``api.kinds``
(``kinds.activation_name``, ``kinds.activation_names``, ``kinds.batch_size(lo, hi)``, ``kinds.dataset``,
``kinds.learning_rate``, ``kinds.width_list``, ``kinds.choice(...)``, ``kinds.BATCH_MAX``, ``kinds.WIDTH_MAX``; added
in 1.3).

Stability: this module's names are the API. :data:`API_VERSION` is ``MAJOR.MINOR``; a minor release only adds
names, a major release may change them. A plugin states the version it was written for (``Paper(...,
api_version="1.0")``) and gets a one-line error when the installed package cannot serve it.

Examples
--------
>>> from verify import api
>>> paper = api.Paper(key="example2024", title="An example paper", citation="A. Author, An example paper (2024)",
...                   api_version="1.0", register=False)
>>> c = paper.quantity("c", "c", "a printed constant of the example", "a formula")
>>> c.name
'example2024:c'
>>> api.check_api_version("1.0")
>>> api.check_api_version("2.0")
Traceback (most recent call last):
...
verify.api.APIVersionError: this plugin needs deepinit-verify's claim API 2.0; the installed deepinit-verify 0.2.0 provides 1.3
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from . import __version__
from . import quantities as _Q
from .calibration import known_value_row, replicate_seeds, replicate_spread_row
from .core import (ERROR, HOLDS, HYPOTHESES_NOT_MET, INCONCLUSIVE, VIOLATED, Claim, Context, Erratum, Evidence,
                   EvidenceError, HypothesisCheck, HypothesisNotMet, Parameter, Verdict, status_from_rows)
from .coverage import Item
from .store import shared, stats as store_stats
# figures, statistics, sweeps, parameter kinds and the training-integrity rows: what a claim that draws a figure, fits
# a rate, sweeps points on workers or trains networks needs (API 1.3; the built-in papers use exactly these)
from . import params as kinds
from .figures import Panel, Series, activation_label, binomial_band, density_band, mean_band, write_figure
from .integrity import data_route_row, judged_with_integrity, member_row
from .latex import activation_name, sympy_latex
from .lazy import lazy_module
from .parallel import map_points, sweep_point
from .stats import fit_log_rate, mean_ci, ratio_of_means, t_quantile

#: the claim API's version, ``"MAJOR.MINOR"``: a minor release only adds names (see :func:`check_api_version`)
API_VERSION = "1.3"
#: the entry-point group in which a package names its :class:`Paper` (``pyproject.toml``)
ENTRY_POINT_GROUP = "deepinit_verify.papers"

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
            from . import registry
            registry.add_paper(self)

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
            from . import registry
            registry.add_claim(claim)
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


def figure(ctx: Context, name: str, panels: Sequence[Panel], caption: str, *, key: str = "figure") -> dict:
    """A claim's figure: drawn into the run's artefact directory when it keeps artefacts, returned as the verdict's
    artefacts (pass them as ``judged(..., artefacts=...)``). It calls :func:`write_figure`, as the built-in papers do.

    Parameters
    ----------
    ctx : Context
        The claim run's context; nothing is drawn when ``ctx.artefact_dir`` is None (a plain run).
    name : str
        The files' stem (``"mypaper_figure2"``: ``.png``, ``.pdf`` and ``.csv``, the data behind every series).
    panels : sequence of Panel
        The panels, each with its :class:`Series` (``kind`` ``"simulation"``, ``"theory"`` or ``"bound"``).
    caption : str
        What was run (sizes, seeds, budget): in the CSV, the docs page and the LaTeX caption.
    key : str
        The artefacts' prefix: the keys are ``{key}_png``, ``{key}_pdf``, ``{key}_csv`` and ``{key}_caption``
        (the docs page embeds every ``*_png``; ``render`` redraws from every ``*_csv``).

    Returns
    -------
    dict
        Artefact key → path (and the caption); empty when the run keeps no artefacts.

    Examples
    --------
    >>> import tempfile
    >>> from verify import api
    >>> panel = api.Panel("E z² against n", "n", "E z²", [api.Series("mean of n draws", [1, 2, 4], [0.9, 1.1, 1.0],
    ...                                                              "simulation", "z")])
    >>> api.figure(api.Context(), "example_figure", [panel], "3 sample sizes")      # a plain run draws nothing
    {}
    >>> with tempfile.TemporaryDirectory() as d:
    ...     sorted(api.figure(api.Context(artefact_dir=d), "example_figure", [panel], "3 sample sizes"))
    ['figure_caption', 'figure_csv', 'figure_pdf', 'figure_png']
    """
    if not ctx.artefact_dir:
        return {}
    files = write_figure(ctx.artefact_dir, name, list(panels), caption)
    return {f"{key}_{k}": v for k, v in files.items()}


def memo(key: Any, compute: Callable[[], Any]):
    """The value of ``compute()`` for ``key``, computed once per claim run: the check, its ±δ controls and
    ``--sensitivity`` share it (same seed, same numbers). Only for work that consumes no declared quantity.

    Parameters
    ----------
    key : hashable
        What identifies the work (its sizes and seed).
    compute : callable
        Computes the value, without arguments.

    Returns
    -------
    Any
        ``compute()``'s value (outside a claim run it is simply computed).

    Examples
    --------
    >>> from verify.api import memo
    >>> memo(("squares", 3), lambda: [k * k for k in range(3)])
    [0, 1, 4]
    """
    return _Q.memo(key, compute)


def judged(claim_id: str, rows: list[Evidence], holds: str, fails: str, **extra) -> Verdict:
    """The verdict decided by its evidence rows: ``violated`` if a judged row failed, ``holds`` if every judged row
    passed, ``inconclusive`` if none was judged. ``holds``/``fails`` are the summaries.

    Parameters
    ----------
    claim_id : str
        ``paper:claim``.
    rows : list of Evidence
        The evidence rows.
    holds : str
        The summary when the claim holds.
    fails : str
        The summary otherwise.
    **extra
        Further :class:`Verdict` fields (``errata``, ``artefacts``, ``settings``, …).

    Returns
    -------
    Verdict
        Its status from :func:`status_from_rows`.

    Examples
    --------
    >>> from verify.api import Evidence, judged
    >>> v = judged("example2024:q", [Evidence("q*", theory=0.5, numeric=0.5, passed=True)], "q* = 1/2", "q* ≠ 1/2")
    >>> v.status, v.summary
    ('holds', 'q* = 1/2')
    """
    return Verdict.judged(claim_id, rows, holds, fails, **extra)


def run(claim: str, *, budget: str = "quick", seed: int = 0, controls: bool = True, **params) -> Verdict:
    """Check one claim from Python (a notebook, a test) and return its :class:`Verdict`.

    Parameters
    ----------
    claim : str
        ``paper:claim``.
    budget : {"quick", "standard", "full"}
        The sizes of the check. The default here is ``"quick"`` (answers in seconds, for notebooks and tests); the
        command line's default is ``standard`` (the budget of the paper pages and of CI's standard step), so pass
        ``budget="standard"`` to reproduce ``python -m verify CLAIM``.
    seed : int
        The random seed.
    controls : bool
        Run the ±δ negative controls (and the positive control of a violated claim).
    **params
        The claim's ``--param`` values, as strings or values.

    Returns
    -------
    Verdict
        Its ``status``, ``summary`` and ``evidence``; with ``controls``, ``negative_control`` (and
        ``positive_control``).

    Examples
    --------
    >>> from verify import api
    >>> v = api.run("bn-mean-field:theorem5", budget="quick")
    >>> v.status, v.negative_control.status
    ('holds', 'violated')
    >>> v.summary
    'ReLU: q* = 1/2 and c* = J(−1/(B−1)) exactly'
    """
    from .params import bind
    from .registry import UsageError, resolve
    from .runner import run_claim
    c = resolve(claim)
    unknown = set(params) - {p.name for p in c.parameters}
    if unknown:
        raise UsageError(f"{c.id} takes no parameter(s) {', '.join(sorted(unknown))}; it takes "
                         f"{', '.join(p.name for p in c.parameters) or 'none'}")
    ctx = Context(budget=budget, seed=seed, params=bind(c, {k: v for k, v in params.items()}))
    return run_claim(c, ctx, with_control=controls)


__all__ = ["API_VERSION", "APIVersionError", "Claim", "Context", "ENTRY_POINT_GROUP", "ERROR", "Erratum", "Evidence",
           "EvidenceError", "HOLDS", "HYPOTHESES_NOT_MET", "HypothesisCheck", "HypothesisNotMet", "INCONCLUSIVE",
           "Item", "Panel", "Paper", "PaperDeclarationError", "Parameter", "QuantityHandle", "Series", "VIOLATED",
           "Verdict", "activation_label", "activation_name", "binomial_band", "check_api_version", "data_route_row",
           "density_band", "figure", "fit_log_rate", "judged", "judged_with_integrity", "known_value_row",
           "lazy_module", "map_points", "mean_band", "mean_ci", "member_row", "memo", "ratio_of_means",
           "replicate_seeds", "replicate_spread_row", "run", "shared", "status_from_rows", "store_stats",
           "sweep_point", "sympy_latex", "t_quantile", "write_figure"]
