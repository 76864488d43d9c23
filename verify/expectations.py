"""Expected verdicts for CI: a TOML file of claim → expected status with the reason (the paper's erratum).

``python -m verify all --expect FILE`` compares every verdict with its expectation. ``--expect shipped`` means the files
shipped with the papers: the file each paper, built-in or plugin, declares
(:attr:`verify.api.Paper.expectations`). Files are layered (:func:`load_many`): the shipped files first, then each file
given, in order — ``--expect mine.toml`` keeps every shipped expectation and lets ``mine.toml`` replace those of the
claims it names; ``--expect-replace`` (the pytest plugin's ``--verify-expect-replace``) uses only the files given. A
claim no file lists is expected to ``hold``. The command line and the pytest plugin use the same comparison
(:func:`compare`, per budget). An entry may name a different status
for one budget (``status_standard = "violated"``, also ``status_quick``, ``status_full``) when the larger budget
resolves more of the statement (more settings, more steps). Outcomes per claim:

* ``match`` — the verdict is the expected one;
* ``regression`` — an expected ``holds`` (or ``hypotheses-not-met``) came out violated, inconclusive or error;
* ``no longer reproduces`` — an expected violation did not come out ``violated`` (the erratum vanished: a fix in the
  check, or the check lost its power — either way someone must look);
* ``changed`` — any other difference.

The run then exits 0 when every claim matches, 4 when a check crashed (a crash is never a verdict), else 1.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from .core import ERROR, HOLDS, STATUSES, VIOLATED

try:  # Python ≥ 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

#: the name that stands for the expectation files every loaded paper ships (:func:`shipped_files`)
SHIPPED = "shipped"


class ExpectationError(ValueError):
    """A malformed expectations file (exit status 2)."""


#: the keys an entry may have; anything else (a misspelt ``staus``, ``kinds``) is refused, never ignored
KEYS = ("status", "status_quick", "status_standard", "status_full", "kind", "reason")


# what an expectation other than "holds" records (the ``kind`` of an entry)
KINDS = {
    "erratum": "the printed statement is false (exact or asymptotic evidence in the paper's own setting)",
    "not reproduced": "an experiment not reproduced in a substitute setting (other data, a parameter lost from the "
                      "text, an assumed learning rate): not evidence that the paper is wrong",
    "undecided": "the budget is too small to decide the statement",
    "hypotheses not met": "the check's setting does not meet a declared hypothesis of the statement (a "
                          "hypotheses-not-met verdict): the statement is neither confirmed nor refuted there",
}


#: how a report names an expected deviation of each kind (JUnit's xfail reasons, the summary line)
KIND_LABELS = {"erratum": "known erratum", "not reproduced": "experiment not reproduced in a substitute setting",
               "undecided": "undecided at this budget", "hypotheses not met": "a declared hypothesis is not met",
               "": "expected deviation of no stated kind"}


@dataclass(frozen=True)
class Expectation:
    claim: str
    status: str
    reason: str = ""
    by_budget: tuple = ()   # ((budget, status), …) overriding ``status`` for that budget
    kind: str = ""          # one of KINDS ("" when the file does not say: counted as an unclassified deviation)

    def status_for(self, budget) -> str:
        return dict(self.by_budget).get(budget, self.status)


def load(path: str) -> dict[str, Expectation]:
    """Read an expectations file; ``shipped`` stands for every loaded paper's (:func:`shipped_files`). Raises
    :class:`ExpectationError`."""
    if path == SHIPPED:
        return load_many([SHIPPED])
    from .files import read_input
    try:
        doc = tomllib.loads(read_input(path).decode("utf-8"))
    except FileNotFoundError:
        raise ExpectationError(f"--expect {path!r}: no such file") from None
    except UnicodeDecodeError as exc:
        raise ExpectationError(f"--expect {path!r}: not a readable TOML file (not UTF-8 at byte {exc.start})") from None
    except RecursionError:
        raise ExpectationError(f"--expect {path!r}: not a readable TOML file (nested too deeply)") from None
    except (OSError, ValueError) as exc:   # tomllib.TOMLDecodeError is a ValueError
        raise ExpectationError(f"--expect {path!r}: not a readable TOML file ({str(exc)[:200]})") from None
    from .registry import all_claims
    known = {c.id for c in all_claims()}
    out = {}
    for claim, entry in doc.items():
        if not isinstance(entry, dict):
            raise ExpectationError(f"--expect {path!r}: [{claim!r}] must be a table with a status")
        unknown = [k for k in entry if k not in KEYS and not str(k).startswith("status_")]   # those: a budget
        if unknown:
            import difflib
            near = difflib.get_close_matches(str(unknown[0]), KEYS, n=1, cutoff=0.6)
            raise ExpectationError(f"--expect {path!r}: [{claim!r}] unknown key {str(unknown[0])[:60]!r}"
                                   + (f"; did you mean {near[0]!r}?" if near else f" (keys: {', '.join(KEYS)})"))
        if "status" not in entry:
            raise ExpectationError(f"--expect {path!r}: [{claim!r}] needs a status")
        if claim not in known:
            raise ExpectationError(f"--expect {path!r}: unknown claim {claim!r}")
        if entry["status"] not in STATUSES or entry["status"] == ERROR:
            raise ExpectationError(f"--expect {path!r}: [{claim!r}] status must be one of "
                                   f"{', '.join(s for s in STATUSES if s != ERROR)}")
        by_budget = []
        for key, value in entry.items():
            if key.startswith("status_"):
                budget = key[len("status_"):]
                if budget not in ("quick", "standard", "full"):
                    raise ExpectationError(f"--expect {path!r}: [{claim!r}] {key}: the budget must be quick, standard "
                                           "or full")
                if value not in STATUSES or value == ERROR:
                    raise ExpectationError(f"--expect {path!r}: [{claim!r}] {key} must be one of "
                                           f"{', '.join(s for s in STATUSES if s != ERROR)}")
                by_budget.append((budget, value))
        kind = str(entry.get("kind", ""))
        if kind and kind not in KINDS:
            raise ExpectationError(f"--expect {path!r}: [{claim!r}] kind must be one of {', '.join(KINDS)}")
        out[claim] = Expectation(claim, entry["status"], str(entry.get("reason", "")).strip(), tuple(by_budget), kind)
    return out


def shipped_files() -> list[str]:
    """The expectation files shipped with the loaded papers (:attr:`verify.api.Paper.expectations`): the built-in
    papers' first, then each plugin's, once each."""
    from .registry import papers
    out: list[str] = []
    for p in papers().values():
        if p.expectations and os.path.abspath(p.expectations) not in {os.path.abspath(f) for f in out}:
            out.append(p.expectations)
    return out


def load_many(paths, *, replace: bool = False) -> dict[str, Expectation]:
    """Compose expectation files in order: a later file's entry replaces an earlier one's for the same claim, and a
    claim a file does not mention keeps the expectation of the file that does. ``shipped`` stands for
    :func:`shipped_files`, and the shipped files come first unless ``paths`` names them itself or ``replace`` is true
    (then only the files given count)."""
    paths = [paths] if isinstance(paths, str) else list(paths)
    if not replace and "shipped" not in paths:
        paths = ["shipped", *paths]
    out: dict[str, Expectation] = {}
    for path in paths:
        for f in (shipped_files() if path == "shipped" else [path]):
            out.update(load(f))
    return out


@dataclass(frozen=True)
class Comparison:
    claim: str
    expected: str
    observed: str
    outcome: str  # match | regression | no longer reproduces | changed
    reason: str = ""
    kind: str = ""  # the expectation's kind (KINDS) when it is not "holds"


def compare(verdicts, expectations: dict[str, Expectation]) -> list[Comparison]:
    out = []
    for v in verdicts:
        e = expectations.get(v.claim_id)
        expected = e.status_for((getattr(v, "settings", None) or {}).get("budget")) if e else HOLDS
        if v.status == expected:
            outcome = "match"
        elif expected == VIOLATED:
            outcome = "no longer reproduces"
        elif v.status in (VIOLATED, "inconclusive", ERROR):
            outcome = "regression"
        else:
            outcome = "changed"
        out.append(Comparison(v.claim_id, expected, v.status, outcome, e.reason if e else "",
                              e.kind if e and expected != HOLDS else ""))
    return out


def exit_code(comparisons: list[Comparison]) -> int:
    if any(c.observed == ERROR for c in comparisons):
        return 4
    return 0 if all(c.outcome == "match" for c in comparisons) else 1


def counts(comparisons: list[Comparison]) -> dict[str, int]:
    """How many matched expectations of each kind (errata, experiments not reproduced, undecided, hypotheses not met)
    this run saw."""
    out = {k: 0 for k in KINDS}
    for c in comparisons:
        if c.outcome == "match" and c.kind:
            out[c.kind] += 1
    return out


def render(comparisons: list[Comparison]) -> str:
    bad = [c for c in comparisons if c.outcome != "match"]
    n = counts(comparisons)
    parts = [f"{n['erratum']} known {'erratum' if n['erratum'] == 1 else 'errata'} reproduced"] if n["erratum"] else []
    if n["not reproduced"]:
        k = n["not reproduced"]
        parts.append(f"{k} {'experiment' if k == 1 else 'experiments'} not reproduced in a substitute setting, "
                     "as expected")
    if n["undecided"]:
        parts.append(f"{n['undecided']} undecided at this budget, as expected")
    if n["hypotheses not met"]:
        parts.append(f"{n['hypotheses not met']} with a declared hypothesis not met, as expected")
    other = sum(1 for c in comparisons if c.outcome == "match" and c.expected != HOLDS and not c.kind)
    if other:
        parts.append(f"{other} expected deviations of no stated kind")
    lines = [f"expectations: {len(comparisons) - len(bad)} of {len(comparisons)} claims as expected"
             + (f" ({'; '.join(parts)})" if parts else "")]
    for c in bad:
        lines.append(f"  {c.outcome.upper()}: {c.claim} expected {c.expected}, got {c.observed}"
                     + (f" ({c.kind})" if c.kind else ""))
    return "\n".join(lines)
