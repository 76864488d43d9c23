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
verify.api.APIVersionError: this plugin needs deepinit-verify's claim API 2.0; the installed deepinit-verify 0.2.0 provides 1.4
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

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
# the paper declarations (the model the registry reads)
from .paper import (API_VERSION, ENTRY_POINT_GROUP, APIVersionError, Paper, PaperDeclarationError, QuantityHandle,
                    check_api_version)

for _public in (APIVersionError, Paper, PaperDeclarationError, QuantityHandle, check_api_version):
    _public.__module__ = __name__   # documented, raised and pickled as verify.api.<name>, where plugins import them


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
