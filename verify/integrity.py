"""Run-integrity rows of the training claims: a member of a batched training ensemble against its solo run.

The training claims (bn-mean-field Figs 3 and A.2, isometry Figs 7, B.6 and B.7) train their seeds as batched
ensembles (:mod:`numerics.ensembles`: stacked weights, one member per seed), which promise that member i *is* the solo
run (:mod:`numerics.training`, one ``nn.Module``) with ``seeds[i]`` up to floating-point reduction order: bit for bit
with float32 on CPU, tolerance ``numerics.ensembles.RTOL_FLOAT32`` = 1e-6 relative (``GAP_ATOL`` = 1e-10 absolute on
the isometry gaps and Corollary 2 margins). A bug shared by every member of the batched trainer (a learning rate
scaled, a seed stream shifted, BN's ε dropped) would reach no other row; so each such claim retrains one member alone
— the *last* seed of its ensemble, so that a bug that spares the first member is seen too — and compares every
number the claim reads (:func:`numerics.ensembles.member_difference`). A failing row leaves the claim inconclusive
(:func:`judged`): its networks are not the ones it describes, which says nothing about the paper.

A second kind of row, :func:`data_route_row`, checks the route a researcher's own data takes: the registered data
exported to an .npz file and read back by :func:`numerics.datasets.load_dataset` must be the arrays the run trained
on, so that the same claim on the exported file reproduces the run.

The tolerance was measured on CPU only. On another device (``--device cuda``) the batched kernels may reduce in
another order and a long trajectory drift further (the module docstring of numerics.ensembles), so there the row
reports the difference without judging it.
"""
from __future__ import annotations

import math

from .core import INCONCLUSIVE, Evidence, Verdict
from .lazy import lazy_module as _lazy

ensembles = _lazy("numerics.ensembles")
datasets = _lazy("numerics.datasets")

#: the start of every run-integrity row's name
PREFIX = "run integrity"


def member_row(member, solo, what: str, solo_fn: str, device: str = "cpu") -> Evidence:
    """The run-integrity row of a training claim: a member of a batched ensemble against the same network trained alone.

    Observed is the largest relative difference over the settings and records (``numerics.ensembles.member_difference``),
    the bound ``numerics.ensembles.RTOL_FLOAT32``; judged on CPU only, where the tolerance was measured.

    Parameters
    ----------
    member : run
        The ensemble's run of one member (``numerics.ensembles``).
    solo : run
        The same network trained alone (``numerics.training``).
    what : str
        Which member (seed, activation).
    solo_fn : str
        The solo trainer's name, for the row.
    device : str
        The device the runs used.

    Returns
    -------
    Evidence
        The row (``passed`` None off CPU).

    Examples
    --------
    >>> from numerics.ensembles import train_bn_mlp_ensemble
    >>> from numerics.training import train_bn_mlp
    >>> from verify.api import member_row
    >>> runs = train_bn_mlp_ensemble("digits", "relu", 3, 16, 8, 4, lr=0.01, seeds=[1], record_steps=2)
    >>> solo = train_bn_mlp("digits", "relu", 3, 16, 8, 4, lr=0.01, seed=1, record_steps=2)
    >>> row = member_row(runs[0], solo, "member 1 (relu, seed 1)", "numerics.training.train_bn_mlp")
    >>> row.observed, row.passed
    (0.0, True)
    """
    diff = ensembles.member_difference(member, solo)
    worst = max(diff.values())
    rtol = ensembles.RTOL_FLOAT32
    judged = str(device).split(":")[0] == "cpu"
    differs = [k for k, v in diff.items() if v == math.inf]
    records = ", ".join(f"{k} {v:.2g}" for k, v in diff.items() if v != math.inf and k in _records(member))
    note = (("settings or outcome differ: " + ", ".join(differs) + "; " if differs else
             "seed, sizes, learning rate and divergence equal; ")
            + f"max relative difference per record: {records}; tolerance {rtol:g} relative (numerics.ensembles: "
              f"bit for bit measured with float32 on CPU), {ensembles.GAP_ATOL:g} absolute on isometry gaps and "
              "margins")
    if not judged:
        note += (f"; not judged on {device}: the tolerance was measured on CPU, other kernels may reduce in another "
                 "order")
    return Evidence(f"{PREFIX}: {what} of the batched ensemble = its solo run ({solo_fn})", bound=rtol,
                    observed=worst, passed=(worst <= rtol) if judged else None, note=note)


def data_route_row(name: str, test_fraction: float = 0.25, seed: int = 0) -> Evidence | None:
    """The run-integrity row of a user's data route: the registered data written to an .npz file and read back.

    The raw arrays (x, with float labels y as an export often stores them) read back by
    :func:`numerics.datasets.load_dataset` with the same split seed must give the arrays the run trained on bit for bit
    (train and test inputs after standardisation, labels, classes), so that a run on the exported file
    (``--param dataset=PATH.npz``) reproduces this one.

    Parameters
    ----------
    name : str
        The registered dataset the run trained on.
    test_fraction : float
        The split's test fraction.
    seed : int
        The split's seed.

    Returns
    -------
    Evidence or None
        The row; ``None`` for a user's own data (the route is then the one that ran).

    Examples
    --------
    >>> from verify.api import data_route_row
    >>> row = data_route_row("digits")
    >>> row.passed, row.observed
    (True, 0.0)
    """
    import os
    import tempfile

    import numpy as np
    ds = datasets.load_dataset(name, test_fraction=test_fraction, seed=seed)
    raw = datasets.raw_arrays(name)
    if raw is None:
        return None
    x, y = raw
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, f"{name}.npz")
        np.savez(path, x=x, y=y.astype(np.float64))
        back = datasets.load_dataset(path, test_fraction=test_fraction, seed=seed)
    pairs = {"x_train": (ds.x_train, back.x_train), "x_test": (ds.x_test, back.x_test),
             "y_train": (ds.y_train, back.y_train), "y_test": (ds.y_test, back.y_test)}
    differ = [k for k, (a, b) in pairs.items() if a.shape != b.shape or a.dtype != b.dtype or not np.array_equal(a, b)]
    if ds.classes != back.classes:
        differ.append("classes")
    return Evidence(f"{PREFIX}: the {name} data written to an NPZ file and read back as a user's data = the arrays "
                    "this run trained on", passed=not differ, observed=float(len(differ)), bound=0.0,
                    note=("identical: " + ", ".join(pairs) + f", {ds.classes} classes" if not differ else
                          "differ: " + ", ".join(differ)) + f" (split seed {seed}, test fraction {test_fraction:g})")


def _records(run) -> tuple:
    return ensembles._RECORDS[type(run).__name__]


def judged_with_integrity(claim_id: str, rows: list[Evidence], checks: list[Evidence], holds: str, fails: str,
           **extra) -> Verdict:
    """A training claim's verdict: :meth:`Verdict.judged` on its rows and its run-integrity rows, unless one failed.

    A failed integrity row means the networks are not the ones the claim describes: the verdict is then
    ``inconclusive``, never ``violated``.

    Parameters
    ----------
    claim_id : str
        ``paper:claim``.
    rows : list of Evidence
        The claim's rows.
    checks : list of Evidence
        The run-integrity rows (:func:`member_row`, :func:`data_route_row`), appended to ``rows``.
    holds : str
        The summary when the claim holds.
    fails : str
        The summary otherwise.
    **extra
        Further :class:`Verdict` fields.

    Returns
    -------
    Verdict
        The verdict.

    Examples
    --------
    >>> from verify.api import Evidence, judged_with_integrity
    >>> ok, broken = Evidence("run integrity", passed=True), Evidence("run integrity", passed=False)
    >>> row = Evidence("the claim's row", passed=False)
    >>> judged_with_integrity("p:c", [row], [ok], "h", "f").status
    'violated'
    >>> judged_with_integrity("p:c", [row], [broken], "h", "f").status
    'inconclusive'
    """
    bad = [r.name for r in checks if r.passed is False]
    if bad:
        return Verdict(claim_id, INCONCLUSIVE, "no verdict: the trained networks are not the ones the claim "
                       "describes — " + "; ".join(bad), rows + checks, **extra)
    return Verdict.judged(claim_id, rows + checks, holds, fails, **extra)
