"""Run a claim's check and its negative control, and fold them into one verdict."""
from __future__ import annotations

import time
import traceback

from theory.errors import DeepinitError

from .core import HOLDS, HYPOTHESES_NOT_MET, INCONCLUSIVE, VIOLATED, Claim, Context, Verdict


def run_claim(claim: Claim, ctx: Context, with_control: bool = True, debug: bool = False) -> Verdict:
    if not claim.checked:
        return Verdict(claim.id, INCONCLUSIVE,
                       f"not yet checked by this package{': ' + claim.pending_reason if claim.pending_reason else ''}")
    start = time.monotonic()
    verdict = _guarded(claim.check, claim, ctx, debug)
    if with_control and claim.negative_control is not None and verdict.status in (HOLDS, VIOLATED):
        control = _guarded(claim.negative_control, claim, ctx, debug)
        verdict.negative_control = control
        if control.status != VIOLATED:
            verdict.summary += (f" — BUT the negative control ({claim.control_description}) came out "
                                f"'{control.status}', not 'violated': the check has no demonstrated power")
            verdict.status = INCONCLUSIVE
    verdict.seconds = time.monotonic() - start
    verdict.settings = {"budget": ctx.budget, "seed": ctx.seed, "device": ctx.device, "dtype": ctx.dtype,
                        **{f"param.{k}": v for k, v in ctx.params.items()}}
    return verdict


def _guarded(fn, claim: Claim, ctx: Context, debug: bool) -> Verdict:
    try:
        return fn(ctx)
    except DeepinitError as exc:
        return Verdict(claim.id, HYPOTHESES_NOT_MET, f"input outside the claim's hypotheses: {exc}")
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # a bug in a check must not masquerade as a verdict
        detail = traceback.format_exc() if debug else f"{type(exc).__name__}: {exc}"
        return Verdict(claim.id, INCONCLUSIVE, f"the check failed to run: {detail}")


EXIT_CODES = {HOLDS: 0, HYPOTHESES_NOT_MET: 0, VIOLATED: 1, INCONCLUSIVE: 3}


def exit_status(verdicts: list[Verdict]) -> int:
    """0 all hold (or hypotheses not met), 1 some violated, 3 some inconclusive (and none violated)."""
    statuses = {v.status for v in verdicts}
    if VIOLATED in statuses:
        return 1
    if INCONCLUSIVE in statuses:
        return 3
    return 0
