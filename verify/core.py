"""Claims, verdicts and the context a check runs in.

A :class:`Claim` states one numbered result of a paper in that paper's notation, its hypotheses,
and two functions: ``check(ctx) -> Verdict`` and ``negative_control(ctx) -> Verdict``; the latter
breaks a hypothesis or uses a deliberately wrong constant and must come out ``violated``.
The terminal, JSON and LaTeX reports all render the same :class:`Verdict`.
"""
from __future__ import annotations

import math
import sys
import time
from dataclasses import asdict, dataclass, field
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


@dataclass
class Evidence:
    """One row of a verdict's evidence; each field means the same thing on every row.

    ``theory``: the value the statement predicts (the reference); ``numeric``: the value measured or computed by the
    independent route; ``bound`` and ``observed``: a bound the statement sets and the quantity it bounds — or, when
    ``statistic`` names a test statistic (``"|z|"``, ``"KS"``, ``"t"``), the critical value and the statistic's
    value; ``slack`` is bound/observed (> 1: room to spare) where that makes sense; ``ci`` an interval on ``numeric``
    at ``confidence``; ``passed`` whether this row supports the claim (``None``: informational, not judged)."""

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

    def to_dict(self) -> dict:
        return _clean(asdict(self))


@dataclass
class Erratum:
    """A printed formula or number that an independent check contradicts."""

    location: str
    printed: str
    found: str
    evidence: str
    severity: str = "error"  # "error" (changes a result) or "typo" (evident from context)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Verdict:
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
        fields = set(Evidence.__dataclass_fields__)
        ev = [Evidence(**{k: v for k, v in e.items() if k in fields}) for e in d.get("evidence") or []]
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
    """``violated`` if any row failed, ``holds`` if all that were judged passed."""
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
    """What a check may use: budget, seed, device, dtype, free parameters and a progress line."""

    budget: str = "standard"
    seed: int = 0
    device: str = "cpu"
    dtype: str = "float64"
    params: dict = field(default_factory=dict)
    progress: Callable[[str, float | None], None] = field(default=lambda m, f=None: None)
    artefact_dir: str | None = None
    figure_style: str = "default"  # one of FIGURE_STYLES

    def pick(self, quick, standard, full):
        return {"quick": quick, "standard": standard, "full": full}[self.budget]

    @property
    def torch_dtype(self):
        import torch
        return {"float64": torch.float64, "float32": torch.float32}[self.dtype]


@dataclass
class Parameter:
    """A free parameter of a claim's check, settable as ``--param name=value``."""

    name: str
    kind: Callable[[str], Any]
    default: Any
    help: str
    choices: tuple | None = None


# whether Ctrl-C is behind an exception (a C extension's import turns it into ImportError): one definition, in the
# start-up module, which must import nothing heavy
from ._start import _caused_by_interrupt as caused_by_interrupt  # noqa: E402


class HypothesisNotMet(Exception):
    """Raised by a check when one of its claim's *declared* hypothesis checks fails for the input.

    Only this, naming a hypothesis the claim declares (``Claim.hypothesis_checks``), yields the status
    ``hypotheses-not-met``; numerical trouble is ``inconclusive`` and a crash is ``error``."""

    def __init__(self, hypothesis: str, detail: str, evidence: list | None = None):
        super().__init__(f"{hypothesis}: {detail}")
        self.hypothesis = hypothesis
        self.detail = detail
        self.evidence = evidence or []


@dataclass(frozen=True)
class HypothesisCheck:
    """A hypothesis of the claim that the check tests before judging (shown by ``verify list -v``)."""

    name: str
    description: str


@dataclass
class Claim:
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
