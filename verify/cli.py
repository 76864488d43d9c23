"""``python -m verify CLAIM [CLAIM ...] | all | list`` — run checks, print verdicts, set the exit status.

Exit status: 0 every requested claim holds (or a declared hypothesis is not met), 1 some claim is
violated, 2 usage or input error, 3 inconclusive (numerical trouble, a control without power),
4 a check or the report crashed, 130 interrupted.
"""
from __future__ import annotations

import argparse
import sys

from . import __version__
from .core import BUDGETS, PAPERS, Context, Progress
from .registry import UsageError, all_claims, resolve
from .report import render_json, render_latex, render_text, resolution_text, write_atomic
from .runner import exit_status, run_claim


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own errors: exit 2 with a clear line, no traceback
        self.print_usage(sys.stderr)
        sys.stderr.write(f"error: {message}\n")
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m verify", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("claims", nargs="+", metavar="CLAIM",
                   help="claim ids (paper:claim; a bare name means bn-finite-width), 'all' or 'list'")
    p.add_argument("--budget", choices=BUDGETS, default="standard", help="sample sizes and grids (default standard)")
    p.add_argument("--seed", type=int, default=0, help="random seed (same seed, same numbers on the same machine)")
    p.add_argument("--device", choices=("cpu", "cuda", "auto"), default="cpu", help="torch device (default cpu)")
    p.add_argument("--dtype", choices=("float64", "float32"), default="float64")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="set a claim parameter (see `python -m verify list --verbose`)")
    p.add_argument("--json", metavar="PATH", help="write the verdicts as JSON to PATH ('-' for stdout)")
    p.add_argument("--latex", metavar="PATH", help="write booktabs tables of constants and results to PATH")
    p.add_argument("--artefacts", metavar="DIR", help="write figure data and plots into DIR")
    p.add_argument("--no-control", action="store_true", help="skip the negative and positive controls")
    p.add_argument("--sensitivity", action="store_true",
                   help="measure each claim's resolution: per declared quantity, the smallest relative error "
                        "(ladder 0.5%%…50%%, both signs) that turns the verdict")
    p.add_argument("--paper", choices=tuple(PAPERS), help="with 'all' or 'list': only this paper")
    p.add_argument("--verbose", "-v", action="store_true")
    p.add_argument("--quiet", "-q", action="store_true", help="one line per claim")
    p.add_argument("--debug", action="store_true", help="show tracebacks of failing checks")
    p.add_argument("--version", action="version", version=f"deepinit-verify {__version__}")
    return p


def _list(paper: str | None, verbose: bool) -> int:
    from .coverage import uncovered
    listed = {c.id for c in all_claims()}
    for c in all_claims():
        if paper and c.paper != paper:
            continue
        state = "checked" if c.checked else "not yet"
        print(f"{c.id:40s} {state:8s} {c.title}")
        if verbose:
            if c.depends_on:
                deltas = ", ".join(f"{q} ±{100 * c.control_delta_for(q, 'quick'):g}%/±{100 * c.control_delta_for(q, 'standard'):g}%"
                                   for q in c.depends_on)
                print(f"{'':40s}   depends on (control δ at quick/standard): {deltas}")
            for h in c.hypothesis_checks:
                print(f"{'':40s}   hypothesis check {h.name}: {h.description}")
            for prm in c.parameters:
                print(f"{'':40s}   --param {prm.name}=… ({prm.help}; default {prm.default})")
            if c.pending_reason:
                print(f"{'':40s}   {c.pending_reason}")
    # every numbered item of the papers that no claim checks (verify/coverage.py), with its reason
    for p in PAPERS:
        if paper and p != paper:
            continue
        for it in uncovered(p):
            ident = f"{p}:[{it.item}]"
            if ident not in listed:
                print(f"{ident:40s} {'not yet':8s} {it.note}")
    return 0


def _parse_params(items: list[str]) -> dict[str, str]:
    out = {}
    for it in items:
        if "=" not in it:
            raise UsageError(f"--param takes NAME=VALUE, got {it!r}")
        k, v = it.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def _bind_params(claim, raw: dict[str, str]) -> dict:
    known = {p.name: p for p in claim.parameters}
    bound = {}
    for k, v in raw.items():
        if k not in known:
            continue
        prm = known[k]
        try:
            val = prm.kind(v)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"--param {k}={v!r} for {claim.id}: {exc}") from None
        if prm.choices and val not in prm.choices:
            raise UsageError(f"--param {k} must be one of {', '.join(map(str, prm.choices))}")
        bound[k] = val
    return bound


def _safe_streams() -> None:
    """A terminal that cannot encode the output (LANG=C, a cp1252 console) gets escapes, never a crash."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):
            pass


def main(argv=None) -> int:
    _safe_streams()
    args = build_parser().parse_args(argv)
    try:
        return _main(args)
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return 130
    except Exception as exc:  # a crash outside any check (reporting, writing files): exit 4, one line
        if args.debug:
            import traceback
            traceback.print_exc()
        sys.stderr.write(f"error: deepinit-verify crashed: {type(exc).__name__}: {exc}"
                         + ("" if args.debug else " (--debug shows the traceback)") + "\n")
        return 4


def _main(args) -> int:
    try:
        if args.claims == ["list"]:
            return _list(args.paper, args.verbose)
        if "all" in args.claims:
            claims = [c for c in all_claims() if c.checked and (not args.paper or c.paper == args.paper)]
        else:
            claims = [resolve(s) for s in args.claims]
        raw = _parse_params(args.param)
        unknown = set(raw) - {p.name for c in claims for p in c.parameters}
        if unknown:
            raise UsageError(f"no requested claim takes the parameter(s) {', '.join(sorted(unknown))}")
        if args.device == "cuda":
            import torch
            if not torch.cuda.is_available():
                raise UsageError("--device cuda: no CUDA device is available on this machine")
        bound = {c.id: _bind_params(c, raw) for c in claims}
    except UsageError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2

    device = args.device
    if device == "auto":
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
    claim_map = {c.id: c for c in claims}
    verdicts = []
    interrupted = False
    try:
        for claim in claims:
            ctx = Context(budget=args.budget, seed=args.seed, device=device, dtype=args.dtype,
                          params=bound[claim.id], progress=Progress(claim.id, enabled=not args.quiet),
                          artefact_dir=args.artefacts)
            v = run_claim(claim, ctx, with_control=not args.no_control, debug=args.debug,
                          sensitivity=args.sensitivity)
            ctx.progress.done()
            verdicts.append(v)
            if args.quiet:
                res = resolution_text(v)
                print(f"{v.claim_id:40s} {v.status:20s} {v.seconds:7.1f}s  {v.summary[:120]}"
                      + (f"  [resolution: {res}]" if res else ""), flush=True)
            elif args.json != "-":
                print(render_text(v, claim, verbose=True) + "\n", flush=True)
            if args.json and args.json != "-":  # incremental: an interrupted run keeps what it computed
                write_atomic(args.json, render_json(verdicts, {"complete": False}))
    except KeyboardInterrupt:
        interrupted = True
        sys.stderr.write(f"\ninterrupted: {len(verdicts)} of {len(claims)} claims finished; "
                         + (f"their verdicts are in {args.json}\n" if args.json and args.json != "-" else "\n"))
    extra = {"complete": not interrupted, "requested": [c.id for c in claims]}
    if args.json == "-":
        print(render_json(verdicts, extra))
    elif args.json:
        write_atomic(args.json, render_json(verdicts, extra))
    if args.latex and verdicts:
        write_atomic(args.latex, render_latex(verdicts, claim_map))
    if interrupted:
        return 130
    code = exit_status(verdicts)
    if not args.quiet and args.json != "-" and len(verdicts) > 1:
        counts = {}
        for v in verdicts:
            counts[v.status] = counts.get(v.status, 0) + 1
        print("summary: " + ", ".join(f"{n} {s}" for s, n in counts.items()) + f"; exit status {code}")
    return code
