"""``python -m verify contract PAPER``: the claim contract checked on a paper's claims."""
from __future__ import annotations

import sys

from ..registry import UsageError


def run(args) -> int:
    """``python -m verify contract PAPER``: the rules a paper's claims must keep (verify.contract), checked on them."""
    from ..contract import check_paper, render
    from ..registry import paper as declared_paper
    if len(args.claims) != 2:
        raise UsageError("usage: python -m verify contract PAPER [--budget quick] [--jobs 2]")
    declared_paper(args.claims[1])
    say = (lambda m: None) if args.quiet else (lambda m: sys.stderr.write(m + "\n"))
    budget_given = any(a == "--budget" or a.startswith("--budget=") for a in args.argv)
    rows = check_paper(args.claims[1], budget=args.budget if budget_given else "quick", seed=args.seed,
                       jobs=max(2, args.jobs), progress=say)
    print(render(rows))
    return 0 if all(r.passed for r in rows) else 1
