"""``python -m verify list [FILTER ...]``: the claims, and every numbered item of the papers no claim checks."""
from __future__ import annotations

import sys

from ..core import error_line
from ..registry import all_claims, failures, paper_keys


def run(args) -> int:
    """List the claims of ``--paper`` (or all) matching the filters after ``list``; exit 2 when nothing matches."""
    return list_claims(args.paper, args.verbose, args.claims[1:])


def _list_filter(filters: list[str]):
    """Claims (and uncovered items) matching any filter: a paper name, a claim id, or a substring of one."""
    fs = [f.strip().lower() for f in filters if f.strip() and f.strip().lower() != "all"]

    def keep(paper: str, ident: str) -> bool:
        if not fs:
            return True
        return any(f == paper or f in ident.lower() for f in fs)
    return keep


def list_claims(paper: str | None, verbose: bool, filters: list[str] = ()) -> int:
    from ..coverage import uncovered
    from ..registry import coverage_items
    keep = _list_filter(list(filters))
    listed = {c.id for c in all_claims()}
    shown = 0
    for c in all_claims():
        if (paper and c.paper != paper) or not keep(c.paper, c.id):
            continue
        shown += 1
        state = "checked" if c.checked else c.pending_kind
        print(f"{c.id:40s} {state:9s} {c.title}")
        if verbose:
            if c.depends_on:
                deltas = ", ".join(f"{q} ±{100 * c.control_delta_for(q, 'quick'):g}%/±{100 * c.control_delta_for(q, 'standard'):g}%"
                                   for q in c.depends_on)
                print(f"{'':40s}   depends on (control δ at quick/standard): {deltas}")
            for h in c.hypothesis_checks:
                print(f"{'':40s}   hypothesis check {h.name}: {h.description}")
            for prm in c.parameters:
                default = "" if "default" in prm.help else f"; default {prm.default}"  # a help that says it
                print(f"{'':40s}   --param {prm.name}=… ({prm.help}{default})")
            if c.pending_reason:
                print(f"{'':40s}   {c.pending_reason}")
    # every numbered item of the papers that no claim checks (verify/coverage.py), with its reason
    for key, cause in failures().items():
        if (not paper or key == paper) and keep(key, key):
            shown += 1
            print(f"{key + ':*':40s} {'error':9s} the plugin could not be loaded: {cause}")
    for p in paper_keys():
        if paper and p != paper:
            continue
        for it in uncovered(coverage_items(p)):
            ident = f"{p}:[{it.item}]"
            if ident not in listed and keep(p, ident):
                shown += 1
                print(f"{ident:40s} {it.status:9s} {it.note}")
    if not shown and filters:
        sys.stderr.write(error_line(f"nothing matches {' '.join(filters)!r}; papers are: {', '.join(paper_keys())}"))
        return 2
    return 0
