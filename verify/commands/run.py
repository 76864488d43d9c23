"""``python -m verify CLAIM ... | all``: run claims and report their verdicts, in four steps.

1. :func:`validate` — everything a run could fail on is decided before any work (exit 2, one line): the claims
   and their parameters, the device, the expectations files, ``--perturb``, every output path, the worker pool;
   then ``all`` runs the decision machinery's self-test on known answers (exit 4 if it fails; under ``--jobs N``
   its parts run on the workers at once).
2. :func:`plan` — the :class:`ClaimsRun`: the contexts, settings and the verdicts that need no computing (from
   ``--resume`` with the same settings and code, or from the verdict cache).
3. :func:`execute` — the claims computed, in this process or on ``--jobs N`` workers or a Dask cluster, each verdict
   printed and the ``--json`` report rewritten as it finishes (an interrupted run keeps what it computed).
4. :func:`report` — the final JSON, LaTeX and JUnit files and the exit status (by ``--expect`` when given).
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field

from .. import cache
from .. import expectations as expect
from .. import params as P
from .. import provenance
from .. import quantities as Q
from ..core import Context, Progress, Verdict, _clean, caused_by_interrupt, clip_long_words, error_line
from ..files import write_atomic
from ..junit import render_junit
from ..registry import UsageError, all_claims, default_note, failures, load_papers, resolve
from ..report import (OutputPathError, check_output_dir, check_output_path, lock_output, render_json, render_latex,
                      render_text, resolution_text)
from ..runner import exit_status, run_claim
from .common import read_report


def run(args) -> int:
    """The four steps; the exit status (module docstring)."""
    try:
        valid = validate(args)
    except (UsageError, OutputPathError, expect.ExpectationError) as exc:
        sys.stderr.write(error_line(str(exc)))
        return 2
    if isinstance(valid, int):
        return valid
    state = plan(args, valid)
    interrupted = execute(state)
    return report(state, interrupted)


@dataclass
class Validated:
    """What :func:`validate` decided: the claims, their bound parameters, the expectations, the perturbation, the
    report to resume and the worker pool (None: this process)."""
    claims: list
    bound: dict
    expectations: dict | None
    perturbation: dict
    json_path: str | None
    previous: list
    pool: object = None


def validate(args) -> Validated | int:
    """Step 1: raise UsageError (or an output or expectation error) for anything a run would fail on; an int is an
    exit status decided here (the self-test failed, every requested plugin failed to load)."""
    broken = {}
    if "all" in args.claims:
        claims = [c for c in all_claims() if c.checked and (not args.paper or c.paper == args.paper)]
        broken = {k: why for k, why in failures().items() if not args.paper or k == args.paper}
        for k, why in broken.items():  # the other papers run; the run exits 2 at the end
            sys.stderr.write(error_line(f"plugin paper {k!r} could not be loaded, its claims are not run: {why}"))
        if not claims and broken:
            return 2
    else:
        claims = list({c.id: c for c in (resolve(s) for s in args.claims)}.values())
        for note in filter(None, (default_note(s) for s in args.claims)):
            if not args.quiet:
                sys.stderr.write(note + "\n")
    args.broken_plugins = broken
    raw = parse_params(args.param)
    unknown = set(raw) - {p.name for c in claims for p in c.parameters}
    if unknown:
        import difflib
        names = sorted({p.name for c in claims for p in c.parameters})
        near = sorted({m for u in unknown for m in difflib.get_close_matches(u, names, n=2, cutoff=0.6)})
        raise UsageError(f"no requested claim takes the parameter(s) {', '.join(sorted(unknown))}"
                         + (f"; did you mean {', '.join(near)}?" if near else "")
                         + (f" (they take: {', '.join(names)})" if names else " (they take none)"))
    if args.device == "cuda":
        import torch
        if not torch.cuda.is_available():
            raise UsageError("--device cuda: no CUDA device is available on this machine")
    bound = {c.id: P.bind(c, raw) for c in claims}
    if args.expect_replace and not args.expect:
        raise UsageError("--expect-replace needs --expect FILE (the files that replace the shipped ones)")
    expectations = expect.load_many(args.expect, replace=args.expect_replace) if args.expect else None
    # an unchecked claim has no shipped expectation: comparing its inconclusive verdict with "holds" would report a
    # regression that never happened
    for c in claims if expectations is not None else ():
        if not c.checked and c.id not in expectations:
            raise UsageError(f"--expect: {c.id} is not checked by this package ({c.pending_kind}), so no expectation "
                             f"applies to it; leave it out of the run, or list it with status = \"inconclusive\" in "
                             f"your expectation file")
    perturbation = parse_perturbation(args.perturb)
    json_path = args.json if args.json is not None else args.resume
    previous = read_report(args.resume) if args.resume else []
    # output paths decided before any work: a run never computes for an hour and then fails to write
    check_distinct_outputs({"--json": args.json, "--resume": args.resume, "--latex": args.latex,
                            "--junit": args.junit, "--artefacts": args.artefacts})
    for path, what in ((json_path, "--json"), (args.latex, "--latex"), (args.junit, "--junit")):
        if path and path != "-":
            check_output_path(path, what)
    if json_path and json_path != "-":
        lock_output(json_path, "--json" if args.json is not None else "--resume")
    if args.latex == "-":
        raise UsageError("--latex needs a file name")
    if args.artefacts:
        check_output_dir(args.artefacts, "--artefacts")
    pool = make_pool(args)  # a cluster that cannot be reached is said before any work
    if "all" in args.claims and not self_test(args, pool):
        if pool is not None:
            pool.close(cancel=True)
        return 4
    return Validated(claims, bound, expectations, perturbation, json_path, previous, pool)


@dataclass
class ClaimsRun:
    """Step 2: a run's state — its settings, the verdicts kept from ``--resume``, those finished so far — and what it
    does with each verdict (:meth:`known`, :meth:`finished`)."""
    args: object
    valid: Validated
    device: str
    started: str
    use_cache: bool
    verdicts: list = field(default_factory=list)
    kept: dict = field(default_factory=dict)
    run_seconds: list = field(default_factory=list)
    from_cache: set = field(default_factory=set)

    @property
    def claims(self) -> list:
        return self.valid.claims

    @property
    def to_stdout_json(self) -> bool:
        return self.valid.json_path == "-"

    def say(self, line: str) -> None:
        """A line for the terminal; with ``--json -`` stdout carries only the JSON document."""
        stream = sys.stderr if self.to_stdout_json else sys.stdout
        stream.write(line + "\n")
        stream.flush()

    def context(self, claim, label: str, progress: bool = True) -> Context:
        a = self.args
        return Context(budget=a.budget, seed=a.seed, device=self.device, dtype=a.dtype, params=self.valid.bound[claim.id],
                       progress=Progress(label, enabled=progress and not a.quiet), artefact_dir=a.artefacts,
                       figure_style=a.figure_style)

    def report_json(self, complete: bool) -> str:
        """The JSON report of the verdicts kept and finished so far."""
        a = self.args
        out = dict(self.kept)
        for v in self.verdicts:
            out[v.claim_id] = v
        extra = {"complete": complete, "requested": [c.id for c in self.claims],
                 "provenance": provenance.collect(self.device, a.budget, a.seed, a.dtype, self.started, a.argv)}
        if self.valid.expectations is not None:
            extra["expectations"] = [vars(c) for c in expect.compare(list(out.values()), self.valid.expectations)]
        return render_json(list(out.values()), extra)

    def with_figures(self, v: Verdict) -> bool:
        """Under --artefacts, a verdict is reused only if it was computed with figures asked for (its settings say
        ``artefacts: true``; one computed without lists no files, so "all its files are there" would hold vacuously)
        and its files are in the requested directory."""
        a = self.args
        return not a.artefacts or (bool(v.settings.get("artefacts")) and artefacts_in(v, a.artefacts))

    def known(self, claim, settings) -> tuple[Verdict | None, bool]:
        """A verdict this run need not compute, and whether it comes from --resume (same settings and the same code:
        the sources of the package and of the claim's plugin, as the cache keys them) or the cache."""
        old = self.kept.get(claim.id)
        if old is not None and old.status != "error":
            recorded = _clean(old.settings)
            same_code = recorded.pop("code", None) == cache.code_id(claim.id)   # sources and library versions
            recorded.pop("artefacts", None)
            recorded.pop("computed", None)
            if recorded == settings and same_code and self.with_figures(old):
                self.say(f"{claim.id:40s} {old.status:20s} (from {self.args.resume}: same settings and code, not rerun)")
                return old, True
        cached = cache.load(claim.id, settings) if self.use_cache else None
        if cached is not None and not self.with_figures(cached):
            cached = None  # no figures, or written elsewhere: recompute, so that they are written where asked
        if cached is not None:
            self.from_cache.add(claim.id)
        return cached, False

    def finished(self, v: Verdict, claim, settings, computed: bool) -> None:
        """Record a verdict: its settings (what --resume compares), the cache, the terminal line, the --json report."""
        a = self.args
        figures = {"artefacts": True} if (v.settings.get("artefacts") if not computed else a.artefacts) else {}
        # when and with which library versions the verdict was computed: a cached one keeps its own
        stamp = v.settings.get("computed") or (cache.computed_stamp() if computed else None)   # a worker's own
        if computed:
            v.settings = {**settings, **figures, "computed": stamp}
            if self.use_cache:
                cache.store(v, settings)
        self.run_seconds.append(v.seconds)
        v.settings = {**settings, **figures, **({"computed": stamp} if stamp else {}),
                      "code": cache.code_id(claim.id)}   # what --resume compares
        self.verdicts.append(v)
        tag = " (cached)" if v.claim_id in self.from_cache else ""   # the terminal only: never in a report's content
        if a.quiet:
            res = resolution_text(v)
            self.say(f"{v.claim_id:40s} {(v.status + tag):20s} {v.seconds:7.1f}s  {clip(v.summary, 120)}"
                     + (f"  [resolution: {res}]" if res else ""))
        elif not self.to_stdout_json:
            self.say(render_text(v, claim, verbose=True) + tag + "\n")
        if self.valid.json_path and not self.to_stdout_json:  # incremental: an interrupted run keeps what it computed
            write_atomic(self.valid.json_path, self.report_json(False))


def plan(args, valid: Validated) -> ClaimsRun:
    """Step 2: the perturbation set for the run, the device resolved, the verdicts of ``--resume`` kept."""
    Q.set_base_perturbation(valid.perturbation)
    if valid.perturbation:
        sys.stderr.write("note: a PERTURBED run (--perturb " + ", ".join(f"{k}×(1{d:+g})"
                                                                        for k, d in valid.perturbation.items())
                         + "): the theory side is deliberately wrong; verdicts are a mutation test\n")
    device = args.device
    if device == "auto":
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
    return ClaimsRun(args, valid, device, provenance.now(), use_cache=not (args.no_cache or cache.disabled()),
                     kept={v.claim_id: v for v in valid.previous})   # the report's, in its order; ours replace them


def execute(state: ClaimsRun) -> bool:
    """Step 3: every claim not known computed (here, or on the pool); True when the run was interrupted."""
    args, claims = state.args, state.claims
    try:
        if state.valid.pool is not None:
            run_parallel(state)
            return False
        for k, claim in enumerate(claims, 1):
            if any(v.claim_id == claim.id for v in state.verdicts):
                continue
            # one overall progress label: claim k of N and an ETA from the claims finished so far
            eta = ""
            if state.run_seconds and len(claims) > 1:
                left = sum(state.run_seconds) / len(state.run_seconds) * (len(claims) - k + 1)
                eta = f"; about {left / 60:.0f} min left" if left >= 90 else f"; about {left:.0f} s left"
            label = f"{k}/{len(claims)} {claim.id}{eta}" if len(claims) > 1 else claim.id
            ctx = state.context(claim, label)
            settings = run_settings(args, ctx)
            v, resumed = state.known(claim, settings)
            if v is not None:
                if resumed:
                    state.verdicts.append(v)
                    continue
                state.finished(v, claim, settings, computed=False)
                continue
            v = run_claim(claim, ctx, with_control=not args.no_control, debug=args.debug,
                          sensitivity=args.sensitivity)
            ctx.progress.done()
            state.finished(v, claim, settings, computed=True)
    except KeyboardInterrupt:
        json_path = state.valid.json_path
        sys.stderr.write(f"\ninterrupted: {len(state.verdicts)} of {len(claims)} claims finished; "
                         + (f"their verdicts are in {json_path} (continue with --resume {json_path})\n"
                            if json_path and not state.to_stdout_json else "\n"))
        return True
    return False


def report(state: ClaimsRun, interrupted: bool) -> int:
    """Step 4: the reports written and the exit status."""
    args, valid = state.args, state.valid
    order = {c.id: i for i, c in enumerate(state.claims)}
    verdicts = state.verdicts
    verdicts.sort(key=lambda v: order.get(v.claim_id, len(order)))
    try:
        if state.to_stdout_json:
            sys.stdout.write(state.report_json(not interrupted) + "\n")
        elif valid.json_path:
            write_atomic(valid.json_path, state.report_json(not interrupted))
        if args.latex and verdicts:
            write_atomic(args.latex, render_latex(verdicts, {c.id: c for c in state.claims},
                                                  standalone=args.latex_standalone, prose=args.latex_prose,
                                                  digits=args.digits, cites=dict(args.latex_cite or ()),
                                                  label_prefix=args.latex_label))
        if args.junit and verdicts:
            write_atomic(args.junit, render_junit(verdicts, expect.compare(verdicts, valid.expectations or {})))
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted while writing the reports\n")
        return 130
    if interrupted:
        return 130
    # the status of what the report holds: with --resume, the verdicts kept from the file count as this run's
    reported = list({**state.kept, **{v.claim_id: v for v in verdicts}}.values())
    code = exit_status(reported)
    if valid.expectations is not None:
        comparisons = expect.compare(reported, valid.expectations)
        (sys.stderr if state.to_stdout_json else sys.stdout).write(expect.render(comparisons) + "\n")
        code = expect.exit_code(comparisons)
    if getattr(args, "broken_plugins", None):
        code = max(code, 2)
    if not args.quiet and not state.to_stdout_json and len(verdicts) > 1:
        counts = {}
        for v in verdicts:
            counts[v.status] = counts.get(v.status, 0) + 1
        print("summary: " + ", ".join(f"{n} {s}" for s, n in counts.items()) + f"; exit status {code}")
    return code


def parse_params(items: list[str]) -> dict[str, str]:
    out = {}
    for it in items:
        if "=" not in it:
            raise UsageError(f"--param takes NAME=VALUE, got {it!r}")
        k, v = it.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def parse_perturbation(items: list[str]) -> dict[str, float]:
    load_papers()   # the papers declare the quantities
    out = {}
    for it in items:
        text, sep, value = it.partition("=")
        names = Q.resolve(text.strip())
        if not sep or not names:
            raise UsageError(f"--perturb takes QUANTITY=DELTA with QUANTITY a quantity a paper declares: paper:quantity "
                             f"(e.g. isometry:beta), or a bare name for every paper's quantity of that name; got {it!r}")
        try:
            d = float(value)
        except ValueError:
            raise UsageError(f"--perturb {it!r}: DELTA must be a number such as 0.05") from None
        if not -0.9 <= d <= 10:
            raise UsageError(f"--perturb {it!r}: DELTA must be in [-0.9, 10]")
        for name in names:
            out[name] = d
    return out


def run_settings(args, ctx: Context) -> dict:
    """What a verdict depends on besides the code: compared by ``--resume`` (JSON-normalised)."""
    return cache.run_settings(ctx.budget, ctx.seed, device=ctx.device, dtype=ctx.dtype, controls=not args.no_control,
                              sensitivity=bool(args.sensitivity), perturb=Q.base_perturbation(),
                              figure_style=args.figure_style, params=ctx.params)


def clip(text: str, width: int) -> str:
    """``text`` cut at a word boundary within ``width`` characters, with an ellipsis: never mid-word."""
    text = " ".join(str(text).split())
    if len(text) <= width:
        return text
    cut = text[:width - 1].rsplit(" ", 1)[0].rstrip(",;:—– ")
    return cut + " …"


def artefacts_in(v: Verdict, directory: str) -> bool:
    """Whether every file the verdict's claim wrote is in ``directory`` and still there."""
    files = [p for k, p in v.artefacts.items() if isinstance(p, str) and k.rsplit("_", 1)[-1] in ("png", "pdf", "csv")]
    base = os.path.abspath(directory) + os.sep
    return all(os.path.abspath(p).startswith(base) and os.path.isfile(p) for p in files)


def check_distinct_outputs(outputs: dict) -> None:
    """Refuse, before any work, an empty output name (``--json ''`` was ignored silently) and two outputs on one
    file (``--json X --latex X``: the LaTeX overwrote the report). ``--json`` and ``--resume`` may name the same
    report (it is read, then written); ``None`` is an option not given."""
    seen: dict[str, str] = {}
    for what, path in outputs.items():
        if path is None:
            continue
        if not str(path).strip():
            raise UsageError(f"{what} needs a {'directory' if what == '--artefacts' else 'file'} name (got an empty "
                             "one)")
        if path == "-":
            continue
        real = os.path.realpath(path)
        other = seen.get(real)
        if other is not None and {other, what} != {"--json", "--resume"}:
            raise UsageError(f"{other} and {what} name the same file {clip_long_words(str(path))!r}: give each "
                             "output its own")
        seen.setdefault(real, what)


def self_test(args, pool) -> bool:
    """The verdict machinery on known answers (:mod:`verify.selftest`), before any claim: False (exit 4) if a canary
    is not as known. With ``--jobs N`` its parts run on the workers at once (a Dask cluster's workers may be threads
    of one process, where canaries that set process state must not run side by side: there it runs here)."""
    from .. import selftest
    if pool is not None and pool.scheduler is None:
        # the costliest parts first (selftest.PART_SECONDS), reported in order
        futures = {part: pool.call(selftest.run_part, part)
                   for part in sorted(selftest.PARTS, key=selftest.PART_SECONDS.__getitem__, reverse=True)}
        try:
            canaries = [c for part in selftest.PARTS for c in futures[part].result()]
        except BaseException:   # Ctrl-C or a canary that crashed: the workers are not left computing
            pool.close(cancel=True)
            raise
    else:
        canaries = selftest.run()
    if not all(c.passed for c in canaries) or not args.quiet:
        sys.stderr.write(selftest.render(canaries) + "\n")
    return all(c.passed for c in canaries)


def make_pool(args):
    """The worker pool of ``--jobs N`` / ``--scheduler ADDRESS`` (None for a serial run)."""
    if args.scheduler is not None and args.jobs > 1:
        raise UsageError("--jobs and --scheduler exclude each other: the cluster's workers set the parallelism")
    if args.scheduler is None and args.jobs == 1:
        return None
    from .. import parallel
    if args.scheduler is not None:
        address = args.scheduler.strip()
        import re as _re
        if not _re.fullmatch(r"(tcp|tls|ws|wss|inproc|ucx)://[^\s]{1,200}|[A-Za-z0-9_.\-]{1,200}:\d{1,5}", address):
            raise UsageError(f"--scheduler {address[:80]!r}: a Dask scheduler address such as tcp://host:8786")
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise UsageError("--scheduler needs dask.distributed: pip install 'deepinit-verify[dask]'") from None
        try:
            return parallel.Pool(scheduler=address)
        except Exception as exc:   # unreachable, or a protocol this installation cannot speak (ucx://, tls://
            # without a security configuration): the user's address, said in one line
            if caused_by_interrupt(exc):
                raise KeyboardInterrupt from exc
            raise UsageError(f"--scheduler: cannot reach a Dask scheduler at {address[:80]} ({type(exc).__name__}: "
                             f"{str(exc)[:160]})") from None
    return parallel.Pool(jobs=args.jobs)


def run_parallel(state: ClaimsRun) -> None:
    """``--jobs N`` / ``--scheduler ADDRESS``: every claim not already known becomes a task (verify.parallel),
    longest first; verdicts are reported as they finish and the final report keeps the requested order."""
    from .. import parallel
    from ..cache import code_hash
    args, pool, device, bound = state.args, state.valid.pool, state.device, state.valid.bound
    todo = []
    for claim in state.claims:
        ctx = state.context(claim, claim.id, progress=False)
        settings = run_settings(args, ctx)
        v, resumed = state.known(claim, settings)
        if v is not None:
            if resumed:
                state.verdicts.append(v)
            else:
                state.finished(v, claim, settings, computed=False)
            continue
        todo.append((claim, settings))
    if not todo:
        pool.close()
        return
    threads = os.environ.get("DEEPINIT_THREADS") or None
    where = f"the Dask cluster at {args.scheduler} ({pool.workers} workers)" if args.scheduler else f"{pool.workers} processes"
    state.say(f"running {len(todo)} claims on {where}")
    code = code_hash()
    by_id = {claim.id: (claim, settings) for claim, settings in todo}
    # affinity groups (claims sharing in-process computations) run as one task; longest task first
    groups = parallel.task_groups(by_id)
    groups.sort(key=lambda g: -sum(parallel.expected_seconds(c, args.budget) for c in g))
    try:
        futures = {}
        for group in groups:
            members = []
            for cid in group:
                claim, settings = by_id[cid]
                spec = parallel.TaskSpec(claim.id, args.budget, args.seed, device, args.dtype,
                                         tuple(sorted(bound[claim.id].items())), not args.no_control, args.debug,
                                         bool(args.sensitivity), tuple(sorted(Q.base_perturbation().items())),
                                         args.artefacts, threads, args.figure_style)
                members.append((claim, settings, spec))
            if len(members) == 1:
                futures[pool.submit(members[0][2])] = (members, False)
            else:
                futures[pool.submit_group(tuple(m[2] for m in members))] = (members, True)
        done = 0
        for fut in pool.as_completed(list(futures)):
            members, grouped = futures[fut]
            for i, (claim, settings, spec) in enumerate(members):
                done += 1
                v = parallel.verdict_of(spec, fut, code, i if grouped else None)
                if not args.quiet:
                    sys.stderr.write(f"[{done}/{len(todo)} finished] {claim.id}: {v.status} ({v.seconds:.1f} s)\n")
                state.finished(v, claim, settings, computed=True)
    except KeyboardInterrupt:
        pool.close(cancel=True)
        raise
    pool.close()
