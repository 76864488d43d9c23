"""Claims, verdicts and the context a check runs in.

A :class:`Claim` states one numbered result of a paper in that paper's notation, its hypotheses,
and two functions: ``check(ctx) -> Verdict`` and ``negative_control(ctx) -> Verdict``; the latter
breaks a hypothesis or uses a deliberately wrong constant and must come out ``violated``.
The terminal, JSON and LaTeX reports all render the same :class:`Verdict`.
"""
from __future__ import annotations

import contextvars
import math
import re
import sys
import time
from dataclasses import MISSING, asdict, dataclass, field
from typing import Any, Callable

#: the verdict status of a claim whose statement the check confirmed (exit status 0)
HOLDS = "holds"
#: the verdict status of a claim whose statement the check contradicted (exit status 1)
VIOLATED = "violated"
#: the verdict status when a declared hypothesis check of the claim fails for the input (exit status 0)
HYPOTHESES_NOT_MET = "hypotheses-not-met"
#: the verdict status without a verdict: numerical trouble, a control without power, a claim not yet checked (exit
#: status 3)
INCONCLUSIVE = "inconclusive"
#: the status of a check that crashed: a bug, never a verdict on the claim (exit status 4)
ERROR = "error"  # the check itself crashed (a bug, not a verdict on the claim): exit status 4
STATUSES = (HOLDS, VIOLATED, HYPOTHESES_NOT_MET, INCONCLUSIVE, ERROR)

BUDGETS = ("quick", "standard", "full")
#: figure sizes and fonts (verify.figures): the default, or one column of a venue
FIGURE_STYLES = ("default", "neurips", "icml", "iclr")
#: the figure style of the claim being run (one of FIGURE_STYLES): set by the runner from Context.figure_style, read
#: by verify.figures (its STYLE)
FIGURE_STYLE: contextvars.ContextVar[str] = contextvars.ContextVar("deepinit_figure_style", default="default")


def _clean(v: Any) -> Any:
    """JSON-safe value: floats stay floats (non-finite become strings), numpy scalars unwrap."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else ("inf" if v > 0 else "-inf" if v < 0 else "nan")
    if hasattr(v, "item") and getattr(v, "ndim", 1) == 0:
        return _clean(v.item())
    if isinstance(v, (list, tuple)):
        return [_clean(u) for u in v]
    if isinstance(v, dict):
        return {str(k): _clean(u) for k, u in v.items()}
    if hasattr(v, "tolist"):
        return _clean(v.tolist())
    return str(v)


#: what a control row's ``observed`` may hold instead of a number: the outcome of the perturbed or structural run
CONTROL_OUTCOMES = STATUSES + ("not applicable", "not consumed")


class EvidenceError(ValueError):
    """An evidence row whose columns break the rule of :class:`Evidence` (a bug in the check that built it).

    Raised when the row is built, so the claim's check crashes (status ``error``) at the offending row.

    Examples
    --------
    >>> from verify.core import Evidence, EvidenceError
    >>> try:
    ...     Evidence("KS distance", observed=0.04, statistic="KS")
    ... except EvidenceError as exc:
    ...     print(exc)
    evidence row 'KS distance': statistic 'KS' needs its critical value in bound and its value in observed, both numbers (bound None, observed 0.04)
    """


def _is_number(v: Any) -> bool:
    """A real number: int or float (not bool), a numpy scalar of either, or the JSON form of a non-finite float."""
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float)):
        return True
    if isinstance(v, str):
        return v in ("inf", "-inf", "nan")
    dtype = getattr(v, "dtype", None)
    return dtype is not None and getattr(v, "ndim", 1) == 0 and dtype.kind in "iuf"


@dataclass
class Evidence:
    """One row of a verdict's evidence; each field means the same thing on every row.

    ``theory``: the value the statement predicts, printed or derived from it (the reference); ``numeric``: the same
    quantity measured, or computed by an independent route; ``ci``: an interval on ``numeric`` at ``confidence``;
    ``bound`` and ``observed``: a bound the statement (or the check's reading of it) sets and the quantity it bounds —
    upper or lower, as the row's name or note says — or, when ``statistic`` names a test statistic (``"|z|"``,
    ``"max |z|"``, ``"KS"``, ``"t"``), the critical value and the statistic's value (for a two-sided test, the pair
    (lo, hi) of critical values: the statistic must lie between them); ``slack``: the room the bound
    leaves, as a ratio (> 1: room to spare) — bound/observed for an upper bound, observed/bound for a lower one,
    exp(observed − bound) for a bound on a logarithm; ``passed``: whether this row supports the claim (``None``:
    informational, not judged).

    A measured value that no bound applies to goes in ``numeric``, never in ``observed``; a value of another quantity
    than the row's (a parameter, a second measurement) goes in the note. A test decided by its p-value has the level
    in ``bound`` and the p-value in ``observed`` (no ``statistic``; the statistic itself, a KS distance or Kendall's τ,
    is ``numeric``). A control row — the runner's reruns with a
    declared quantity perturbed, or a structural control — records the outcome of those runs in ``observed`` as a
    status string (``"+δ: violated, −δ: inconclusive"``, ``"violated"``, ``"not applicable"``) with no bound: the only
    ``observed`` that is not a number.

    :meth:`validate` (run when a row is built) rejects what can be seen from the fields alone, with
    :class:`EvidenceError`: a ``statistic`` without a numeric ``bound`` (or a pair lo ≤ hi) and ``observed``; a pair
    of critical values without a ``statistic``; a numeric ``observed``
    without a ``bound``; a ``bound`` that is not a number, or without an ``observed``; an ``observed`` that is neither
    a number nor a control outcome (a string naming one of :data:`CONTROL_OUTCOMES`), or a control outcome with a
    ``bound``; a ``slack`` without a numeric ``bound`` and ``observed``; a ``ci`` that is not a pair of numbers
    low ≤ high, or without a ``numeric``. Rows read back from a JSON report (:meth:`Verdict.from_dict`) are not
    checked, so reports written by earlier versions stay readable.

    Attributes
    ----------
    name : str
        What the row compares, with the paper's equation or symbol.
    theory : Any
        The value the statement predicts (the reference).
    numeric : Any
        The measured value, or the value of the independent route.
    bound : Any
        A bound the statement sets, or the critical value of ``statistic`` (a pair (lo, hi) for a two-sided test).
    observed : Any
        The quantity the bound applies to, or the statistic's value; on a control row, the outcome (a status string).
    slack : Any
        The room the bound leaves, as a ratio (bound/observed for an upper bound).
    ci : tuple or None
        An interval on ``numeric``.
    confidence : float or None
        The confidence of ``ci`` (or the level of ``statistic``'s critical value).
    samples : int or None
        The sample size behind ``numeric``.
    passed : bool or None
        Whether the row supports the claim (``None``: informational).
    note : str
        A remark shown with the row.
    statistic : str
        The test statistic that ``bound`` and ``observed`` are (``"|z|"``, ``"KS"``, ``"t"``), or "".

    Examples
    --------
    >>> from verify.api import Evidence
    >>> row = Evidence("q* (Theorem 5)", theory=0.5, numeric=0.5000000000000051, passed=True)
    >>> row.to_dict()["numeric"], row.passed
    (0.5000000000000051, True)
    >>> Evidence("b* vs Monte Carlo", theory=0.5, numeric=0.4999, observed=0.53, bound=3.29, statistic="|z|").passed
    >>> Evidence("b* vs Monte Carlo", theory=0.5, observed=0.4999)
    Traceback (most recent call last):
    ...
    verify.core.EvidenceError: evidence row 'b* vs Monte Carlo': observed 0.4999 has no bound (a measured value without a bound goes in numeric)
    """

    name: str
    theory: Any = None
    numeric: Any = None
    bound: Any = None
    observed: Any = None
    slack: Any = None
    ci: tuple | None = None
    confidence: float | None = None
    samples: int | None = None
    passed: bool | None = None
    note: str = ""
    statistic: str = ""

    def __post_init__(self):
        self.validate()

    def validate(self) -> None:
        """Raise :class:`EvidenceError` if the columns break the rule stated in the class docstring."""
        problem = self._problem()
        if problem:
            raise EvidenceError(f"evidence row {self.name!r}: {problem}")

    def _problem(self) -> str:
        b, o = self.bound, self.observed
        two_sided = isinstance(b, (tuple, list)) and len(b) == 2 and all(_is_number(v) for v in b)
        if two_sided and not (self.statistic and float(b[0]) <= float(b[1])):
            return (f"a pair of critical values {b!r} needs a statistic and lo ≤ hi (a two-sided test: the statistic "
                    "must lie between them)")
        if self.statistic:
            if not ((_is_number(b) or two_sided) and _is_number(o)):
                return (f"statistic {self.statistic!r} needs its critical value in bound and its value in observed, "
                        f"both numbers (bound {b!r}, observed {o!r})")
        if b is not None and not (_is_number(b) or two_sided):
            return f"bound {b!r} is not a number"
        if b is not None and o is None:
            return f"bound {b!r} has no observed (the quantity it bounds)"
        if _is_number(o) and b is None:
            return f"observed {o!r} has no bound (a measured value without a bound goes in numeric)"
        if o is not None and not _is_number(o):
            if not (isinstance(o, str) and any(s in o for s in CONTROL_OUTCOMES)):
                return (f"observed {o!r} is neither a number nor a control row's outcome (a status string); a value "
                        "without a bound goes in numeric")
            if b is not None:
                return f"observed {o!r} is a control row's outcome and cannot have a bound"
        if self.slack is not None and not (_is_number(b) and _is_number(o)):
            return f"slack {self.slack!r} needs a numeric bound and observed (it is the room the bound leaves)"
        if self.ci is not None:
            ci = self.ci
            if not (isinstance(ci, (tuple, list)) and len(ci) == 2 and all(_is_number(v) for v in ci)):
                return f"ci {ci!r} is not a pair of numbers"
            lo, hi = (float(v) for v in ci)
            if lo > hi:
                return f"ci {ci!r} has its low end above its high end"
            if self.numeric is None:
                return f"ci {ci!r} has no numeric (the interval is on the measured value)"
        return ""

    @classmethod
    def _unchecked(cls, **fields) -> "Evidence":
        """A row as stored (a JSON report of any version), without :meth:`validate`."""
        row = cls.__new__(cls)
        for f in cls.__dataclass_fields__.values():
            setattr(row, f.name, fields.get(f.name, None if f.default is MISSING else f.default))
        return row

    def to_dict(self) -> dict:
        return _clean(asdict(self))


@dataclass
class Erratum:
    """A printed formula or number that an independent check contradicts.

    Attributes
    ----------
    location : str
        Where it is printed (``"eq (13)"``, ``"Table 2"``).
    printed : str
        What is printed.
    found : str
        What the check found instead.
    evidence : str
        How it was found.
    severity : str
        ``"error"`` (changes a result) or ``"typo"`` (evident from context).

    Examples
    --------
    >>> from verify.api import Erratum
    >>> e = Erratum("eq (13)", "q* = 1", "q* = 1/2", "quadrature to 1e-13")
    >>> e.to_dict()["severity"]
    'error'
    """

    location: str
    printed: str
    found: str
    evidence: str
    severity: str = "error"  # "error" (changes a result) or "typo" (evident from context)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Verdict:
    """The outcome of checking one claim: its status, a one-line summary and the evidence behind it.

    Every report (terminal, JSON, LaTeX, docs) renders the same Verdict; :meth:`to_dict` and :meth:`from_dict` are
    its JSON form.

    Attributes
    ----------
    claim_id : str
        ``paper:claim``.
    status : str
        One of ``holds``, ``violated``, ``hypotheses-not-met``, ``inconclusive``, ``error``.
    summary : str
        One line: what was found.
    evidence : list of Evidence
        The rows that decide (or inform) the verdict.
    errata : list of Erratum
        Printed formulas or numbers the check contradicts.
    artefacts : dict
        Files written (figures, CSV) by name.
    tables : list
        ``(caption, header, rows[, options])`` tables for the LaTeX report: numbers as numbers (``None`` where
        undefined); the caption in the paper's terms, ``[cite]`` where the paper is cited (``Table 2: …`` and "the
        paper's Theorem 6" are cited too); ``options`` (:func:`verify.latex.table_options`): ``error`` ({value column:
        error column}), ``math``, ``group``, ``wrap``, ``notes`` (below the table, inside its float) and ``comment``
        (what the tool computed, a ``%`` line above it).
    negative_control : Verdict or None
        The verdict of the negative control (a perturbed or broken statement that must be flagged).
    seconds : float
        The time the check took.
    settings : dict
        The sizes and settings the check used.
    hypothesis : str
        With ``hypotheses-not-met``: the declared hypothesis check that failed.
    positive_control : Verdict or None
        For a violated claim: the same check on a case where the statement is true.
    resolution : dict
        Quantity → the smallest relative perturbation shown to turn the verdict.
    consumed : list
        The theory quantities the check consumed.

    Examples
    --------
    >>> from verify.api import Evidence, Verdict
    >>> v = Verdict("example2024:q", "holds", "q* = 1/2", [Evidence("q*", theory=0.5, numeric=0.5, passed=True)])
    >>> v.to_dict()["status"], Verdict.from_dict(v.to_dict()) == v
    ('holds', True)
    """

    claim_id: str
    status: str
    summary: str
    evidence: list[Evidence] = field(default_factory=list)
    errata: list[Erratum] = field(default_factory=list)
    artefacts: dict = field(default_factory=dict)
    tables: list = field(default_factory=list)  # [(caption, header, rows)] for LaTeX
    negative_control: "Verdict | None" = None
    seconds: float = 0.0
    settings: dict = field(default_factory=dict)
    hypothesis: str = ""  # with hypotheses-not-met: the name of the declared hypothesis check that failed
    positive_control: "Verdict | None" = None
    resolution: dict = field(default_factory=dict)  # quantity → smallest |δ| shown to turn the verdict
    consumed: list = field(default_factory=list)    # the quantities the check consumed (verify.quantities)

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"unknown verdict status {self.status!r}")

    @classmethod
    def judged(cls, claim_id: str, rows: list, holds: str, fails: str, **extra) -> "Verdict":
        """The verdict of a check whose evidence rows decide it: ``holds`` or ``fails`` as the summary."""
        st = status_from_rows(rows)
        return cls(claim_id, st, holds if st == HOLDS else fails, rows, **extra)

    @classmethod
    def from_dict(cls, d: dict) -> "Verdict":
        """The verdict of a JSON report (:meth:`to_dict`'s inverse up to JSON types: tuples come back as lists).
        Used by ``--resume``; raises ``ValueError`` on a malformed entry."""
        if not isinstance(d, dict) or not isinstance(d.get("claim"), str) or d.get("status") not in STATUSES:
            raise ValueError("not a verdict of a deepinit-verify JSON report")
        try:
            return cls._from_checked_dict(d)
        except (TypeError, AttributeError, KeyError, RecursionError) as exc:   # evidence that is not a table, …
            raise ValueError(f"a malformed verdict of {d['claim'][:80]!r} ({type(exc).__name__})") from None

    @classmethod
    def _from_checked_dict(cls, d: dict) -> "Verdict":
        fields = set(Evidence.__dataclass_fields__)
        ev = [Evidence._unchecked(**{k: v for k, v in e.items() if k in fields}) for e in d.get("evidence") or []]
        er = [Erratum(**{k: v for k, v in e.items() if k in Erratum.__dataclass_fields__}) for e in d.get("errata") or []]
        nc, pc = d.get("negative_control"), d.get("positive_control")
        return cls(d["claim"], d["status"], str(d.get("summary", "")), ev, er, dict(d.get("artefacts") or {}),
                   [tuple(t) for t in d.get("tables") or []], cls.from_dict(nc) if nc else None,
                   float(d.get("seconds") or 0.0), dict(d.get("settings") or {}), d.get("hypothesis") or "",
                   cls.from_dict(pc) if pc else None, dict(d.get("resolution") or {}), list(d.get("consumed") or []))

    def to_dict(self) -> dict:
        return {
            "claim": self.claim_id, "status": self.status, "summary": self.summary,
            "evidence": [e.to_dict() for e in self.evidence],
            "errata": [e.to_dict() for e in self.errata],
            "artefacts": _clean(self.artefacts),
            "tables": _clean(self.tables),
            "negative_control": self.negative_control.to_dict() if self.negative_control else None,
            "positive_control": self.positive_control.to_dict() if self.positive_control else None,
            "hypothesis": self.hypothesis or None,
            "resolution": _clean(self.resolution), "consumed": list(self.consumed),
            "seconds": round(self.seconds, 3), "settings": _clean(self.settings),
        }


def status_from_rows(rows: list[Evidence]) -> str:
    """``violated`` if any row failed, ``holds`` if all that were judged passed.

    Parameters
    ----------
    rows : list of Evidence
        The evidence rows; those with ``passed=None`` are not judged.

    Returns
    -------
    str
        ``"holds"``, ``"violated"``, or ``"inconclusive"`` when no row was judged.

    Examples
    --------
    >>> from verify.api import Evidence, status_from_rows
    >>> status_from_rows([Evidence("a", passed=True), Evidence("b", numeric=3.0)])
    'holds'
    >>> status_from_rows([Evidence("a", passed=True), Evidence("b", passed=False)])
    'violated'
    >>> status_from_rows([])
    'inconclusive'
    """
    judged = [r.passed for r in rows if r.passed is not None]
    if not judged:
        return INCONCLUSIVE
    return HOLDS if all(judged) else VIOLATED


class Progress:
    """A progress line on stderr for anything that takes more than a few seconds."""

    def __init__(self, label: str = "", stream=None, enabled: bool = True):
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.start = time.monotonic()
        self._last = 0.0
        self._fraction = 0.0
        self._tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def __call__(self, message: str, fraction: float | None = None) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        elapsed = now - self.start
        if elapsed < 2.0 or (not self._tty and now - self._last < 5.0):
            return
        self._last = now
        if fraction is not None:  # a claim's inner loops report their own fractions: the percentage never goes back
            fraction = max(fraction, self._fraction)
            self._fraction = fraction
        pct = f" {100 * fraction:3.0f}%" if fraction is not None else ""
        line = f"[{self.label}{pct} {elapsed:5.1f}s] {message}"
        if self._tty:
            self.stream.write("\r\033[K" + line[:150])
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def done(self) -> None:
        if self.enabled and self._tty and self._last:
            self.stream.write("\r\033[K")
            self.stream.flush()


@dataclass
class Context:
    """What a check may use: budget, seed, device, dtype, free parameters and a progress line.

    ``pick(quick, standard, full)`` chooses a size by budget; ``torch_dtype`` is ``dtype`` as a torch dtype.

    Attributes
    ----------
    budget : str
        ``"quick"``, ``"standard"`` or ``"full"``.
    seed : int
        The random seed.
    device : str
        The torch device (``"cpu"``, ``"cuda"``).
    dtype : str
        ``"float64"`` or ``"float32"``.
    params : dict
        The claim's free parameters (:class:`Parameter`) by name.
    progress : callable
        ``progress(message, fraction)``: reports progress (a no-op by default).
    artefact_dir : str or None
        Where figures and CSV files go (``None``: none are written).
    figure_style : str
        ``"default"``, ``"neurips"``, ``"icml"`` or ``"iclr"``.
    claim_id : str
        The id of the claim being checked (``paper:name``), set by the runner: a check names its verdict with it,
        ``Verdict.judged(ctx.claim_id, rows, ...)``, so that the id is written once, in the claim's declaration.

    Examples
    --------
    >>> from verify.api import Context
    >>> ctx = Context(budget="quick", seed=1)
    >>> ctx.pick(10, 100, 1000), ctx.dtype
    (10, 'float64')
    """

    budget: str = "standard"
    seed: int = 0
    device: str = "cpu"
    dtype: str = "float64"
    params: dict = field(default_factory=dict)
    progress: Callable[[str, float | None], None] = field(default=lambda m, f=None: None)
    artefact_dir: str | None = None
    figure_style: str = "default"  # one of FIGURE_STYLES
    claim_id: str = ""

    def pick(self, quick, standard, full):
        return {"quick": quick, "standard": standard, "full": full}[self.budget]

    @property
    def torch_dtype(self):
        import torch
        return {"float64": torch.float64, "float32": torch.float32}[self.dtype]


@dataclass
class Parameter:
    """A free parameter of a claim's check, settable as ``--param name=value``.

    Attributes
    ----------
    name : str
        The parameter's name.
    kind : callable
        Converts the command line's string to the value (``int``, ``float``, …).
    default : Any
        The value without ``--param``.
    help : str
        One line for ``verify list -v``.
    choices : tuple or None
        The allowed values, if restricted.

    Examples
    --------
    >>> from verify.api import Parameter
    >>> p = Parameter("width", int, 64, "the network width")
    >>> p.kind("128"), p.default
    (128, 64)
    """

    name: str
    kind: Callable[[str], Any]
    default: Any
    help: str
    choices: tuple | None = None


# whether Ctrl-C is behind an exception (a C extension's import turns it into ImportError): one definition, in a module
# that imports nothing (the start-up module uses it too)
from .interrupts import caused_by_interrupt  # noqa: E402,F401


class HypothesisNotMet(Exception):
    """Raised by a check when one of its claim's *declared* hypothesis checks fails for the input.

    Only this, naming a hypothesis the claim declares (``Claim.hypothesis_checks``), yields the status
    ``hypotheses-not-met``; numerical trouble is ``inconclusive`` and a crash is ``error``.

    Parameters
    ----------
    hypothesis : str
        The name of the declared :class:`HypothesisCheck` that failed.
    detail : str
        What was found.
    evidence : list of Evidence, optional
        Rows shown with the verdict.

    Examples
    --------
    >>> from verify.api import HypothesisNotMet
    >>> try:
    ...     raise HypothesisNotMet("finite variance", "Var σ = 0 for a constant σ")
    ... except HypothesisNotMet as e:
    ...     print(e.hypothesis, "|", e)
    finite variance | finite variance: Var σ = 0 for a constant σ
    """

    def __init__(self, hypothesis: str, detail: str, evidence: list | None = None):
        super().__init__(f"{hypothesis}: {detail}")
        self.hypothesis = hypothesis
        self.detail = detail
        self.evidence = evidence or []


@dataclass(frozen=True)
class HypothesisCheck:
    """A hypothesis of the claim that the check tests before judging (shown by ``verify list -v``).

    Attributes
    ----------
    name : str
        The name a :class:`HypothesisNotMet` raised by the check gives.
    description : str
        What is tested.

    Examples
    --------
    >>> from verify.api import HypothesisCheck
    >>> HypothesisCheck("B ≥ 4", "the batch size the BSB1 fixed point needs").name
    'B ≥ 4'
    """

    name: str
    description: str


@dataclass
class Claim:
    """One numbered result of a paper, stated in the paper's notation, with the check that decides it.

    Declare claims with :meth:`verify.api.Paper.claim` (or :meth:`verify.api.Paper.add`); check one with
    :func:`verify.api.run`.

    Attributes
    ----------
    paper : str
        The paper's key.
    name : str
        The claim's name within the paper (``"theorem1"``); ``id`` is ``paper:name``.
    title : str
        One line: the result and its number in the paper.
    statement : str
        The statement as the paper makes it.
    hypotheses : str
        Its hypotheses, in words.
    how : str
        How the check decides it.
    check : callable or None
        ``check(ctx) -> Verdict``; ``None``: not yet checked (``checked`` is False).
    negative_control : callable or None
        A structural negative control, ``negative_control(ctx) -> Verdict``, that must come out ``violated``.
    control_description : str
        What the negative control breaks.
    uses : tuple of str
        Names of what the check uses (shown by ``verify list -v``).
    parameters : tuple of Parameter
        The check's free parameters (``--param``).
    aliases : tuple of str
        Other names of the claim.
    pending_reason : str
        For an unchecked claim: why.
    pending_kind : str
        ``"not yet"`` or ``"offline"`` (needs data or weights that cannot exist offline).
    depends_on : tuple of str
        The theory quantities and printed constants the statement depends on (perturbed by the controls).
    control_delta : tuple of float
        δ of the negative control at the quick, standard and full budgets.
    resolution_override : dict
        Quantity → its own δ per budget.
    hypothesis_checks : tuple of HypothesisCheck
        The hypotheses the check tests.
    positive_control : callable or None
        For a claim reported violated: the same check where the statement is true.
    positive_control_description : str
        What the positive control checks.

    Examples
    --------
    >>> from verify.api import Claim
    >>> c = Claim("example2024", "sum", "1 + 1 = 2", "1 + 1 = 2")
    >>> c.id, c.checked, c.control_delta_for("anything", "quick")
    ('example2024:sum', False, 0.05)
    """

    paper: str
    name: str
    title: str
    statement: str
    hypotheses: str = ""
    how: str = ""
    check: Callable[[Context], Verdict] | None = None
    negative_control: Callable[[Context], Verdict] | None = None
    control_description: str = ""
    uses: tuple[str, ...] = ()
    parameters: tuple[Parameter, ...] = ()
    aliases: tuple[str, ...] = ()
    pending_reason: str = ""
    # an unchecked claim: "not yet" (could be checked), or "offline" (needs data or weights that cannot exist offline)
    pending_kind: str = "not yet"
    # the theory quantities (verify.quantities) and printed constants the statement depends on: the negative
    # control scales each by (1 ± δ) where the check consumes it and must be flagged; --sensitivity measures δ
    depends_on: tuple[str, ...] = ()
    # δ of the negative control per budget (quick, standard, full) — the resolution the claim promises (5% at every
    # budget: the perturbed reruns reuse the simulations, so they are cheap); a claim whose statistics cannot reach it
    # names its own, per quantity, in ``resolution_override``
    control_delta: tuple[float, float, float] = (0.05, 0.05, 0.05)
    resolution_override: dict = field(default_factory=dict)
    hypothesis_checks: tuple[HypothesisCheck, ...] = ()
    # for a claim reported violated: the same check on a case where the statement is true must hold
    positive_control: Callable[[Context], Verdict] | None = None
    positive_control_description: str = ""

    def control_delta_for(self, quantity: str, budget: str) -> float:
        i = BUDGETS.index(budget)
        table = self.resolution_override.get(quantity, self.control_delta)
        return float(table[i])

    @property
    def id(self) -> str:
        return f"{self.paper}:{self.name}"

    @property
    def checked(self) -> bool:
        return self.check is not None


# --------------------------------------------------------------------------------------------
# messages
# --------------------------------------------------------------------------------------------

def clip_long_words(text: str, limit: int = 120) -> str:
    """``text`` with every run of more than ``limit`` non-space characters shortened to its first 60 and last 20
    characters and its length: an error message names a 100 kB argument without repeating it."""
    def clip(m):
        word = m.group(0)
        return f"{word[:60]}…[{len(word)} characters]…{word[-20:]}"
    return re.sub(r"\S{%d,}" % (limit + 1), clip, str(text))


def error_line(message: str) -> str:
    """One ``error: …`` line for stderr, long words clipped (:func:`clip_long_words`)."""
    return "error: " + clip_long_words(message) + "\n"
