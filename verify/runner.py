"""Run a claim's check and its controls, and fold them into one verdict whose status never lies.

Statuses and what produces them:

* ``hypotheses-not-met`` — only a :class:`~verify.core.HypothesisNotMet` naming one of the claim's *declared*
  hypothesis checks (or a verdict that names one in ``hypothesis``); anything else that claims it is inconclusive;
* ``inconclusive`` — numerical trouble (a :class:`theory.errors.DeepinitError`: a quadrature that did not
  converge, an undefined quantity, a diverged simulation), a control that did not demonstrate power, or a claim
  not yet checked;
* ``error`` — the check crashed (any other exception): a bug, exit status 4, never a verdict on the claim.

Controls. A claim that declares the quantities its statement depends on (``Claim.depends_on``) is rerun with
each of them scaled by (1 + δ) and by (1 − δ) — δ the claim's resolution at this budget — through
:mod:`verify.quantities`, and each perturbed run must be flagged (not ``holds``); the perturbed reruns reuse
the check's simulations (same seed, same numbers), so only the theory side changes. A claim reported
``violated`` must have a positive control (the same check where the statement is true) that holds.
"""
from __future__ import annotations

import dataclasses
import time
import traceback

from theory.errors import DeepinitError

from . import quantities as Q
from .core import (ERROR, HOLDS, HYPOTHESES_NOT_MET, INCONCLUSIVE, VIOLATED, Claim, Context, Evidence,
                   HypothesisNotMet, Verdict, caused_by_interrupt)

SENSITIVITY_LADDER = (0.005, 0.01, 0.02, 0.05, 0.10, 0.20, 0.50)
# a perturbed rerun "flags" the error when it no longer holds — a crash is not a detection
_FLAGGED = (VIOLATED, INCONCLUSIVE, HYPOTHESES_NOT_MET)


def run_claim(claim: Claim, ctx: Context, with_control: bool = True, debug: bool = False,
              sensitivity: bool = False) -> Verdict:
    """The claim's verdict with its controls. The check runs with torch's baseline thread count of
    :mod:`numerics.threads` (one thread unless pinned; the simulators raise it for large work), so its numbers do not
    depend on the process it runs in (the CLI, a ``--jobs`` worker, a Dask worker)."""
    if not claim.checked:
        return _run_claim(claim, ctx, with_control, debug, sensitivity)
    from numerics.threads import intra_op_threads
    from .core import FIGURE_STYLE as STYLE
    token = STYLE.set(ctx.figure_style)
    try:
        with intra_op_threads(0, blas=True):
            return _run_claim(claim, ctx, with_control, debug, sensitivity)
    finally:
        STYLE.reset(token)


def _run_claim(claim: Claim, ctx: Context, with_control: bool, debug: bool, sensitivity: bool) -> Verdict:
    if not claim.checked:
        return Verdict(claim.id, INCONCLUSIVE,
                       f"not yet checked by this package{': ' + claim.pending_reason if claim.pending_reason else ''}")
    start = time.monotonic()
    memo: dict = {}
    verdict, consumed = _run(claim.check, claim, ctx, debug, {}, memo)
    verdict.consumed = sorted(consumed)
    main_ctx, ctx = ctx, dataclasses.replace(ctx, artefact_dir=None)  # controls never overwrite the claim's figures
    if with_control and verdict.status == HOLDS:
        if claim.depends_on:
            control = perturbation_control(claim, ctx, debug, memo)
            if claim.negative_control is not None:  # a structural control as well: it must be flagged too
                ctx.progress(f"structural control: {claim.control_description[:60]}", None)
                extra, _ = _run(claim.negative_control, claim, ctx, debug, {}, memo)
                applies = not (extra.status == INCONCLUSIVE and extra.artefacts.get("not_applicable"))
                control.evidence.append(Evidence(f"structural control: {claim.control_description}",
                                                 observed=extra.status if applies else "not applicable",
                                                 passed=(extra.status != VIOLATED) if applies else None,
                                                 note=extra.summary))
                if applies and extra.status != VIOLATED:
                    control.status = HOLDS
                    control.summary += f"; the structural control ({claim.control_description}) was not flagged"
        elif claim.negative_control is not None:
            control, _ = _run(claim.negative_control, claim, ctx, debug, {}, memo)
        else:
            control = None
        verdict.negative_control = control
        if control is not None and control.status != VIOLATED:
            verdict.summary += (f" — BUT the negative control ({control_description(claim)}) came out "
                                f"'{control.status}', not 'violated': the check has no demonstrated power")
            verdict.status = INCONCLUSIVE
        elif control is not None and claim.depends_on:
            verdict.resolution = dict(control.artefacts.get("delta", {}))
    if with_control and verdict.status == VIOLATED:
        if claim.positive_control is None:
            verdict.summary += " — and no positive control shows that this check can say 'holds'"
            verdict.status = INCONCLUSIVE
        else:
            ctx.progress("positive control", None)
            pos, _ = _run(claim.positive_control, claim, ctx, debug, {}, memo)
            verdict.positive_control = pos
            if pos.status != HOLDS:
                verdict.summary += (f" — BUT the positive control ({claim.positive_control_description}) came out "
                                    f"'{pos.status}', not 'holds': a check that always says 'violated' looks the same")
                verdict.status = INCONCLUSIVE
    if sensitivity and verdict.status == HOLDS and claim.depends_on:
        verdict.resolution = measure_resolution(claim, ctx, verdict.status, debug, memo)
    verdict.seconds = time.monotonic() - start
    ctx = main_ctx
    verdict.settings = {"budget": ctx.budget, "seed": ctx.seed, "device": ctx.device, "dtype": ctx.dtype,
                        **{f"param.{k}": v for k, v in ctx.params.items()}}
    return verdict


def control_description(claim: Claim) -> str:
    if claim.depends_on:
        return ("each of " + ", ".join(Q.short(q, claim.paper) for q in claim.depends_on)
                + " scaled by (1 ± δ) where the check consumes it "
                "(δ: the claim's resolution at this budget) must be flagged"
                + (f"; and {claim.control_description}" if claim.negative_control is not None else ""))
    return claim.control_description


def perturbation_control(claim: Claim, ctx: Context, debug: bool, memo: dict) -> Verdict:
    """The negative control: every declared quantity, ±δ, must turn the verdict."""
    rows = []
    for q in claim.depends_on:
        d = claim.control_delta_for(q, ctx.budget)
        statuses = {}
        for sign in (+1, -1):
            ctx.progress(f"negative control: {Q.short(q, claim.paper)} ×(1{'+' if sign > 0 else '−'}{d:g})", None)
            v, consumed = _run(claim.check, claim, ctx, debug, {q: sign * d}, memo)
            statuses[sign] = v.status if Q.canonical(q) in consumed else "not consumed"
        flagged = all(s in _FLAGGED for s in statuses.values())
        rows.append(Evidence(f"{Q.short(q, claim.paper)} ×(1 ± {d:g})",
                             observed=f"+δ: {statuses[1]}, −δ: {statuses[-1]}", passed=not flagged,
                             note=Q.describe(q) + ("" if flagged else " — NOT flagged at this δ")))
    # a control row 'passes' when the claim's statement survives the perturbation: the control is violated iff
    # every perturbation was flagged
    st = VIOLATED if all(r.passed is False for r in rows) else HOLDS
    deltas = {q: claim.control_delta_for(q, ctx.budget) for q in claim.depends_on}
    return Verdict(claim.id, st, "every declared quantity perturbed by ±δ is flagged" if st == VIOLATED else
                   "some perturbed quantity is not flagged: " + ", ".join(r.name for r in rows if r.passed), rows,
                   artefacts={"delta": deltas})


def measure_resolution(claim: Claim, ctx: Context, status: str, debug: bool, memo: dict) -> dict:
    """Per declared quantity, the smallest δ of the ladder at which both (1 + δ) and (1 − δ) turn the verdict
    away from ``status`` (a monotone response assumed; ``None`` if even 50% does not)."""
    out = {}
    for q in claim.depends_on:
        cache: dict = {}

        def flagged(d):
            if d not in cache:
                res = []
                for sign in (+1, -1):
                    v, consumed = _run(claim.check, claim, ctx, debug, {q: sign * d}, memo)
                    res.append(Q.canonical(q) in consumed and v.status != status and v.status != ERROR)
                cache[d] = all(res)
            return cache[d]
        i = SENSITIVITY_LADDER.index(0.05) if 0.05 in SENSITIVITY_LADDER else 0
        if flagged(SENSITIVITY_LADDER[i]):
            while i > 0 and flagged(SENSITIVITY_LADDER[i - 1]):
                i -= 1
            out[q] = SENSITIVITY_LADDER[i]
        else:
            while i + 1 < len(SENSITIVITY_LADDER) and not flagged(SENSITIVITY_LADDER[i + 1]):
                i += 1
            out[q] = SENSITIVITY_LADDER[i + 1] if i + 1 < len(SENSITIVITY_LADDER) else None
        ctx.progress(f"sensitivity {Q.short(q, claim.paper)}: {out[q]}", None)
    return out


def _run(fn, claim: Claim, ctx: Context, debug: bool, perturbation: dict, memo: dict) -> tuple[Verdict, set]:
    """One guarded call of a check under a perturbation; returns the verdict and the quantities it consumed."""
    with Q.perturbed(perturbation, memo) as state:
        verdict = _guarded(fn, claim, ctx, debug)
    if verdict.status == HYPOTHESES_NOT_MET:
        declared = {h.name for h in claim.hypothesis_checks}
        if verdict.hypothesis not in declared:
            verdict.summary = (f"reported hypotheses-not-met without naming a declared hypothesis check "
                               f"({verdict.hypothesis or 'none named'}): {verdict.summary}")
            verdict.status = INCONCLUSIVE
    nan_row = _judged_on_nan(verdict.evidence) if verdict.status in (HOLDS, VIOLATED) else None
    if nan_row is not None:   # a comparison with NaN is false: "violated" (or "holds") from no number at all
        verdict.summary = (f"numerical trouble, no verdict: the row {nan_row.name[:100]!r} was judged on a NaN "
                           f"— {verdict.summary}")
        verdict.status = INCONCLUSIVE
    return verdict, set(state.consumed)


def _is_nan(v) -> bool:
    if isinstance(v, str):
        return v == "nan"
    if isinstance(v, (list, tuple)):
        return any(_is_nan(u) for u in v)
    try:
        return v is not None and not isinstance(v, bool) and float(v) != float(v)
    except (TypeError, ValueError):
        return False


def _judged_on_nan(rows: list) -> Evidence | None:
    """The first judged row whose theory, numeric, bound or observed value is NaN (None when there is none)."""
    for row in rows:
        if row.passed is not None and any(_is_nan(getattr(row, f)) for f in ("theory", "numeric", "bound",
                                                                                 "observed")):
            return row
    return None


def _guarded(fn, claim: Claim, ctx: Context, debug: bool) -> Verdict:
    if ctx.claim_id != claim.id:   # the check (or a control of it) names its verdict ctx.claim_id
        ctx = dataclasses.replace(ctx, claim_id=claim.id)
    try:
        v = fn(ctx)
        if isinstance(v, Verdict) and v.claim_id != claim.id:  # a copied check that still names another claim
            return Verdict(claim.id, ERROR, f"the check returned a verdict for {v.claim_id!r}, not for {claim.id!r}: "
                           "name it ctx.claim_id")
        return v
    except HypothesisNotMet as exc:
        return Verdict(claim.id, HYPOTHESES_NOT_MET, f"outside the claim's hypotheses — {exc}", exc.evidence,
                       hypothesis=exc.hypothesis)
    except DeepinitError as exc:
        return Verdict(claim.id, INCONCLUSIVE, f"numerical trouble, no verdict: {exc}")
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:  # a bug in a check must not masquerade as a verdict
        if caused_by_interrupt(exc):
            raise KeyboardInterrupt from exc
        detail = traceback.format_exc() if debug else f"{type(exc).__name__}: {exc}"
        return Verdict(claim.id, ERROR, f"the check crashed: {detail}")


EXIT_CODES = {HOLDS: 0, HYPOTHESES_NOT_MET: 0, VIOLATED: 1, INCONCLUSIVE: 3, ERROR: 4}


def exit_status(verdicts: list[Verdict]) -> int:
    """4 some check crashed, else 1 some violated, else 3 some inconclusive, else 0 (hold or hypotheses not met)."""
    statuses = {v.status for v in verdicts}
    for st in (ERROR, VIOLATED, INCONCLUSIVE):
        if st in statuses:
            return EXIT_CODES[st]
    return 0
