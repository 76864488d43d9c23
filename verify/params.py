"""Parameter kinds shared by every claim, validated when the command line is read.

A ``--param`` value is converted by its :class:`~verify.core.Parameter`'s ``kind``; a kind raises ``ValueError``
(or a :class:`theory.errors.DeepinitError`) with one line that says the limit and why, and the CLI turns it into
exit status 2 before any work starts. The same limits hold for every claim that takes the parameter.
"""
from __future__ import annotations

import math
import os

import theory
from theory.formula import quote, split_formulas

#: seeds are non-negative and fit in 32 bits (numpy's SeedSequence and torch's generators accept them all, and
#: checks derive further seeds as seed + k)
SEED_MAX = 2 ** 32 - 1
#: widths of the finite-width simulations: the exact simulators hold seeds × d × n numbers per layer
WIDTH_MAX = 100_000
#: batch sizes of the finite-width checks (the BSB1 tables go to 128; Theorem 1's design widths grow like n²)
BATCH_MAX = 256


def seed(value) -> int:
    try:
        s = int(str(value).strip())
    except ValueError:
        raise ValueError(f"--seed must be an integer, not {quote(str(value), 40)}") from None
    if not 0 <= s <= SEED_MAX:
        raise ValueError(f"--seed {quote(str(value), 40)} must be in [0, {SEED_MAX}] (2³² − 1): seeds feed numpy's "
                         "SeedSequence and torch's generators, and checks derive further seeds from it")
    return s


def _int(text: str, name: str) -> int:
    t = str(text).strip()
    if not t.lstrip("+-").isdigit() or len(t) > 12:
        raise ValueError(f"{name} must be an integer (at most 12 digits), not {quote(t, 40)}")
    return int(t)


def activation_names(text: str) -> tuple[str, ...]:
    """A comma-separated list of activation names or formulas (commas inside parentheses belong to the formula:
    ``max(x,0),tanh`` is two activations); each is checked by :func:`theory.activation`."""
    names = tuple(split_formulas(str(text)))
    if not names:
        raise ValueError("give at least one activation")
    if len(names) > 32:
        raise ValueError(f"at most 32 activations per run (got {len(names)})")
    for nm in names:
        theory.activation(nm)
    return names


def as_names(value) -> list[str]:
    """A claim's ``activations`` parameter as a list, whether bound from the command line (a tuple) or given as a
    string through the Python API (``Context(params={"activations": "relu,tanh"})``)."""
    if not value:
        return []
    return list(activation_names(value)) if isinstance(value, str) else list(value)


def as_widths(value) -> list[int]:
    """A ``widths`` parameter as a list ([] for ``auto``), from a tuple or an API string."""
    w = width_list(value) if isinstance(value, str) else value
    return [] if w == "auto" else [int(v) for v in w]


def activation_name(text: str) -> str:
    """One activation name or formula, checked by :func:`theory.activation`."""
    names = split_formulas(str(text))
    if len(names) != 1:
        raise ValueError(f"one activation is expected here, got {len(names)} in {quote(str(text))}")
    theory.activation(names[0])
    return names[0]


def batch_size(minimum: int = 4, maximum: int = BATCH_MAX, allow_default_zero: bool = False):
    """A batch size in [minimum, maximum] (0 = the claim's default grid when ``allow_default_zero``)."""
    def kind(text: str) -> int:
        n = _int(text, "the batch size")
        if allow_default_zero and n == 0:
            return 0
        if not minimum <= n <= maximum:
            raise ValueError(f"batch size {n} must be in [{minimum}, {maximum}]: the BSB1 fixed point needs a batch of at "
                             f"least {minimum} (the 2-D sphere marginal is degenerate below), and the finite-width "
                             f"simulations and Gram tables are sized for at most {maximum}")
        return n
    kind.__name__ = "batch_size"
    return kind


def width_list(text: str):
    """``auto`` or comma-separated widths in [2, WIDTH_MAX]."""
    t = str(text).strip()
    if t == "auto":
        return t
    parts = [p for p in (s.strip() for s in t.split(",")) if p]
    if not parts or len(parts) > 16:
        raise ValueError("widths: 'auto' or 1 to 16 comma-separated integers")
    ws = tuple(_int(p, "a width") for p in parts)
    for w in ws:
        if w < 2:
            raise ValueError(f"width {w} must be at least 2 (a Gram matrix of a layer needs two units)")
        if w > WIDTH_MAX:
            gb = 8 * w * 10 * 30 / 1e9
            raise ValueError(f"width {w} must be at most {WIDTH_MAX}: the exact simulator holds seeds × d × n float64 "
                             f"per layer ({gb:.3g} GB at d = {w}, n = 10, 30 seeds), and the d^(-1/2) rates are "
                             f"already below the seeds' Monte Carlo error at d = {WIDTH_MAX}")
    return ws


def choice(*options: str):
    def kind(text: str) -> str:
        t = str(text).strip()
        if t not in options:
            raise ValueError(f"{quote(t, 40)} is not one of {', '.join(options)}")
        return t
    kind.__name__ = "choice"
    return kind


def learning_rate(text: str) -> float:
    """A learning rate in (0, 10]; 0 = the claim's default."""
    try:
        v = float(str(text).strip())
    except ValueError:
        raise ValueError(f"{quote(str(text), 40)} is not a number") from None
    if not (v == 0 or (math.isfinite(v) and 0 < v <= 10)):
        raise ValueError(f"learning rate {v!r} must be in (0, 10] (0: the claim's default)")
    return v


def dataset(text: str) -> str:
    """A registered dataset name (digits) or the path of an existing .npz file."""
    from numerics.datasets import REGISTERED
    t = str(text).strip()
    if t in REGISTERED:
        return t
    if not t.endswith(".npz"):
        raise ValueError(f"dataset {quote(t, 60)}: a registered name ({', '.join(REGISTERED)}) or a path to an .npz file")
    if not os.path.isfile(t):
        raise ValueError(f"dataset {quote(t, 60)}: no such file")
    from numerics.datasets import check_file
    from theory.errors import DeepinitError
    try:
        check_file(t)      # the whole file, before any work: a malformed one is bad input (exit 2), not a verdict
    except DeepinitError as exc:
        raise ValueError(str(exc)) from None
    return t


def bind(claim, raw: dict) -> dict:
    """The claim's ``--param`` values converted by each parameter's kind (names the claim does not take are skipped;
    :class:`verify.registry.UsageError` with one line for a value that cannot be read or is not a choice)."""
    from .registry import UsageError
    known = {p.name: p for p in claim.parameters}
    bound = {}
    for k, v in raw.items():
        if k not in known:
            continue
        prm = known[k]
        try:
            val = prm.kind(v) if isinstance(v, str) else v
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # any failure to read a value is the user's input, said in one line
            raise UsageError(f"--param {k}={quote(v)} for {claim.id}: {exc}") from None
        if prm.choices and val not in prm.choices:
            raise UsageError(f"--param {k} must be one of {', '.join(map(str, prm.choices))}")
        bound[k] = val
    return bound
