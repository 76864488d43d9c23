"""The contract a paper's claims must keep, checked on the claims themselves: ``python -m verify contract PAPER``.

For every checked claim of the paper, at the quick budget (or ``--budget``):

1. **declared = consumed.** The theory quantities the claim declares (``depends_on``) are exactly those its check
   consumed through :meth:`verify.api.QuantityHandle.scaled` (or the built-in accessors): a declared quantity that is
   never consumed could never be flagged, one consumed but not declared is never perturbed.
2. **±5% is flagged.** Each declared quantity scaled by (1 + 5%) and by (1 − 5%) where the check consumes it turns the
   verdict (not ``holds``) — or by the claim's own declared resolution where it states one (``resolution_override``).
   A claim with no declared quantity needs a structural negative control that comes out ``violated``.
3. **A violated claim has a positive control that holds.**
4. **Same verdict in another process.** The claim run in a ``--jobs 2`` worker (a fresh interpreter that discovers the
   plugin from its entry point) gives the same status and the same evidence numbers as in this process.

Each row of the report is one of these for one claim; the command exits 0 when every row passes, 1 otherwise (2 for
bad input). The package's own test suite runs it on the built-in papers' fast claims.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass

from . import quantities as Q
from .core import ERROR, HOLDS, HYPOTHESES_NOT_MET, VIOLATED, Claim, Context, Verdict
from .runner import _FLAGGED, _run, run_claim


@dataclass(frozen=True)
class ContractRow:
    """One rule of the contract for one claim: whether it was kept, and what was found.

    Attributes
    ----------
    claim : str
        ``paper:claim``.
    rule : str
        The rule (the module docstring's 1–4).
    passed : bool
        Whether the claim keeps it.
    detail : str
        What was found.

    Examples
    --------
    >>> from verify.contract import ContractRow, render
    >>> print(render([ContractRow("example2024:sum", "the check does not crash", True, "1 + 1 = 2")]))
    claim            rule — detail
    example2024:sum  ok    the check does not crash — 1 + 1 = 2
    contract: 1 of 1 rules kept
    """

    claim: str
    rule: str
    passed: bool
    detail: str


def _numbers(v: Verdict) -> list:
    out = []
    for e in v.evidence:
        for x in (e.theory, e.numeric, e.observed):
            if isinstance(x, float) and not math.isfinite(x):
                x = str(x)
            out.append(x)
    return json.loads(json.dumps(out, default=str))


def check_claim(claim: Claim, budget: str = "quick", seed: int = 0) -> tuple[list[ContractRow], Verdict]:
    """Rules 1–3 for one claim in this process; returns the rows and the verdict with its controls.

    Parameters
    ----------
    claim : Claim
        The claim (registered or not).
    budget : {"quick", "standard", "full"}
        The budget of the runs.
    seed : int
        The random seed.

    Returns
    -------
    tuple
        ``(rows, verdict)``: a list of :class:`ContractRow` and the claim's :class:`verify.api.Verdict` with its
        controls.

    Examples
    --------
    >>> from verify import api
    >>> from verify.contract import check_claim
    >>> def check(ctx, printed=2.0):
    ...     row = api.Evidence("1 + 1", theory=printed, numeric=1.0 + 1.0, passed=abs(2.0 - printed) < 1e-12)
    ...     return api.judged("example2024:sum", [row], "1 + 1 = 2", "1 + 1 ≠ 2")
    >>> claim = api.Claim("example2024", "sum", "1 + 1 = 2", "1 + 1 = 2", check=check,
    ...                   negative_control=lambda ctx: check(ctx, printed=2.1))
    >>> rows, verdict = check_claim(claim)
    >>> [(r.rule, r.passed) for r in rows], verdict.status
    ([('declared quantities are the consumed ones', True), ('a negative control is flagged', True), ('the check does not crash', True)], 'holds')
    """
    rows = []
    ctx = Context(budget=budget, seed=seed)
    memo: dict = {}
    plain, consumed = _run(claim.check, claim, ctx, False, {}, memo)
    declared = {Q.canonical(q) for q in claim.depends_on}
    # a check that stops at a declared hypothesis consumes only what it used before stopping: nothing undeclared
    stopped = plain.status == HYPOTHESES_NOT_MET
    rows.append(ContractRow(claim.id, "declared quantities are the consumed ones",
                            consumed <= declared if stopped else declared == consumed,
                            f"declared {sorted(declared) or 'none'}, consumed {sorted(consumed) or 'none'}"
                            + (" (the claim itself is hypotheses-not-met: it stopped before consuming the rest)"
                               if stopped and consumed != declared else "")))
    for q in claim.depends_on:
        d = claim.control_delta_for(q, budget)
        statuses = {}
        for sign in (+1, -1):
            v, used = _run(claim.check, claim, ctx, False, {q: sign * d}, memo)
            statuses[sign] = v.status if Q.canonical(q) in used else "not consumed"
        ok = plain.status != HOLDS or all(s in _FLAGGED for s in statuses.values())
        rows.append(ContractRow(claim.id, f"{Q.short(q, claim.paper)} ×(1 ± {d:g}) is flagged", ok,
                                f"+δ: {statuses[1]}, −δ: {statuses[-1]}"
                                + ("" if plain.status == HOLDS else f" (the claim itself is {plain.status})")))
    full = run_claim(claim, ctx, with_control=True)
    if not claim.depends_on:
        nc = full.negative_control
        ok = plain.status != HOLDS or (nc is not None and nc.status == VIOLATED)
        rows.append(ContractRow(claim.id, "a negative control is flagged", ok,
                                f"structural control: {nc.status if nc else 'none declared'}"
                                + ("" if plain.status == HOLDS else f" (not applied: the claim itself is {plain.status};"
                                   " a violated claim shows its power by its positive control)")))
    if plain.status == VIOLATED:
        pc = full.positive_control
        rows.append(ContractRow(claim.id, "a violated claim's positive control holds",
                                pc is not None and pc.status == HOLDS,
                                f"positive control: {pc.status if pc else 'none declared'}"))
    rows.append(ContractRow(claim.id, "the check does not crash", full.status != ERROR, full.summary[:160]))
    return rows, full


def check_paper(paper: str, budget: str = "quick", seed: int = 0, jobs: int = 2, progress=None) -> list[ContractRow]:
    """Every rule for every checked claim of ``paper`` (rule 4 in ``jobs`` worker processes).

    Parameters
    ----------
    paper : str
        The paper's key.
    budget : {"quick", "standard", "full"}
        The budget of the runs.
    seed : int
        The random seed.
    jobs : int
        The number of worker processes of rule 4.
    progress : callable, optional
        Called with one line per claim.

    Returns
    -------
    list of ContractRow
        One row per rule and claim (:func:`render` formats them).

    Examples
    --------
    A paper's check runs every one of its claims several times (minutes); an unknown key is refused at once:

    >>> from verify.contract import check_paper
    >>> from verify.registry import UsageError
    >>> try:
    ...     check_paper("no-such-paper")
    ... except UsageError as e:
    ...     print(str(e)[:30])
    unknown paper 'no-such-paper';
    """
    from . import parallel
    from .cache import code_hash
    from .registry import all_claims, paper as declared
    declared(paper)  # a clear error for an unknown or broken paper
    claims = [c for c in all_claims() if c.paper == paper and c.checked]
    rows, local = [], {}
    for k, claim in enumerate(claims, 1):
        if progress:
            progress(f"[{k}/{len(claims)}] {claim.id}")
        r, v = check_claim(claim, budget, seed)
        rows += r
        local[claim.id] = v
    pool = parallel.Pool(jobs=jobs)
    try:
        futures = [(c, pool.submit(parallel.TaskSpec(c.id, budget, seed, "cpu", "float64"))) for c in claims]
        code = code_hash()
        for claim, fut in futures:
            remote = parallel.verdict_of(parallel.TaskSpec(claim.id, budget, seed, "cpu", "float64"), fut, code)
            mine = local[claim.id]
            same = remote.status == mine.status and _numbers(remote) == _numbers(mine)
            rows.append(ContractRow(claim.id, f"the same verdict and numbers in a --jobs {jobs} worker", same,
                                    f"here {mine.status}, worker {remote.status}"
                                    + ("" if _numbers(remote) == _numbers(mine) else "; the evidence numbers differ")))
    finally:
        pool.close()
    return rows


def render(rows: list[ContractRow]) -> str:
    """The contract's report: one line per rule and claim, then the count of rules kept.

    Parameters
    ----------
    rows : list of ContractRow
        The rows of :func:`check_claim` or :func:`check_paper`.

    Returns
    -------
    str
        The report.

    Examples
    --------
    >>> from verify.contract import ContractRow, render
    >>> print(render([ContractRow("example2024:sum", "a negative control is flagged", False, "none declared")]))
    claim            rule — detail
    example2024:sum  FAIL  a negative control is flagged — none declared
    contract: 0 of 1 rules kept; 1 broken
    """
    width = max([len(r.claim) for r in rows] + [10])
    lines = [f"{'claim':{width}s}  {'':4s}  rule — detail"]
    for r in rows:
        lines.append(f"{r.claim:{width}s}  {'ok' if r.passed else 'FAIL':4s}  {r.rule} — {r.detail}")
    bad = sum(not r.passed for r in rows)
    lines.append(f"contract: {len(rows) - bad} of {len(rows)} rules kept"
                 + (f"; {bad} broken" if bad else ""))
    return "\n".join(lines)
