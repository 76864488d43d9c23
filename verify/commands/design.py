"""``python -m verify design FAMILY --target T ...``: parameters of an activation family meeting targets (a tool on
``theory``: :mod:`verify.design`)."""
from __future__ import annotations

import json
import sys

from ..files import write_atomic
from ..registry import UsageError
from ..report import check_output_path


def run(args) -> int:
    """``python -m verify design FAMILY --target T [--target T ...] [--range NAME=LO:HI]``: exit 0 when some
    parameter value meets every target, 1 when none in the range does (a clear answer), 2 on bad input."""
    from .. import design as D
    if len(args.claims) != 2:
        raise UsageError("usage: python -m verify design FAMILY --target TARGET [--target ...] [--range NAME=LO:HI] "
                         "(e.g. design 'log(1+exp(x+x0))' --target sde=stable)")
    ranges = {}
    for item in args.param_range:
        name, sep, span = item.partition("=")
        lo, sep2, hi = span.partition(":")
        try:
            ranges[name.strip()] = (float(lo), float(hi))
        except ValueError:
            raise UsageError(f"--range takes NAME=LO:HI with numbers, got {item[:60]!r}") from None
        if not (sep and sep2):
            raise UsageError(f"--range takes NAME=LO:HI, got {item[:60]!r}")
    if args.json not in (None, "-"):
        check_output_path(args.json, "--json")
    try:
        res = D.design(args.claims[1], args.target, ranges)
    except D.DesignError as exc:
        raise UsageError(f"design: {exc}") from None
    if args.json == "-":
        sys.stdout.write(json.dumps(res.to_dict(), ensure_ascii=False, indent=1) + "\n")
    else:
        print(f"family {res.family}; parameter(s) {', '.join(res.parameters)} in "
              + ", ".join(f"[{a:g}, {b:g}]" for a, b in res.ranges.values()))
        for r in res.results:
            sets = " ∪ ".join(f"[{p:.12g}, {q:.12g}]" for p, q in r.feasible) or "empty"
            print(f"  {r.target.text}: met on {sets}" + (" (monotone on the grid)" if r.monotone else "")
                  + "".join(f"; boundary in [{a:.12g}, {b:.12g}]" + (" (certified: exact sign change)" if c else "")
                            for a, b, c in r.boundaries)
                  + (f"; undefined at {len(r.undefined_at)} grid points" if r.undefined_at else ""))
        print(res.message)
        for t, q in res.answer_quantities.items():
            print(f"  at the answer, {t}: " + ", ".join(f"{k} = {v}" for k, v in q.items() if v is not None))
        if args.json:
            write_atomic(args.json, json.dumps(res.to_dict(), ensure_ascii=False, indent=1) + "\n")
    return 0 if (res.feasible or res.grid_points) else 1
