"""``python -m verify CLAIM [CLAIM ...] | all | list [FILTER ...]`` — run checks, print verdicts, set the exit status.

Exit status: 0 every requested claim holds (or a declared hypothesis is not met), 1 some claim is
violated, 2 usage or input error (decided before any work starts), 3 inconclusive (numerical trouble, a control
without power), 4 a check or the report crashed, 130 interrupted (Ctrl-C at any moment).

``list`` only lists: anything after it filters by paper or claim (``list isometry``, ``list theorem1``).
``--json PATH`` is rewritten after every claim, so an interrupted run keeps what it computed; ``--resume PATH``
reads such a report, skips the claims it already has with the same settings and appends the rest.
"""
from __future__ import annotations

import argparse
import re
import sys

import collections
import json
import math
import os

from . import __version__
from . import cache
from . import expectations as expect
from . import params as P
from . import provenance
from . import quantities as Q
from .core import (BUDGETS, FIGURE_STYLES, Context, Progress, Verdict, _clean, caused_by_interrupt, clip_long_words,
                   error_line)
from .junit import render_junit
from .files import write_atomic
from .latex import MAX_DIGITS, PLAIN_DIGITS
from .registry import UsageError, all_claims, default_note, failures, load_papers, paper_keys, resolve
from .report import (OutputPathError, check_output_dir, check_output_path, lock_output, release_outputs, render_json,
                     render_latex, render_text, resolution_text)
from .runner import exit_status, run_claim


# words people type for a choice, and the choice they mean
_CHOICE_WORDS = {"fast": "quick", "small": "quick", "smoke": "quick", "test": "quick", "default": "standard",
                 "normal": "standard", "medium": "standard", "slow": "full", "large": "full", "big": "full",
                 "gpu": "cuda", "double": "float64", "single": "float32", "float": "float32", "f64": "float64",
                 "f32": "float32"}


def _did_you_mean(message: str) -> str:
    """argparse's 'invalid choice' message with the nearest choice suggested."""
    import difflib
    import re
    m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
    if not m:
        return message
    given, choices = m.group(1), re.findall(r"'([^']*)'", m.group(2))
    guess = _CHOICE_WORDS.get(given.lower())
    guess = guess if guess in choices else None
    near = [guess] if guess else difflib.get_close_matches(given.lower(), choices, n=1, cutoff=0.5)
    return message + (f"; did you mean '{near[0]}'?" if near else "")


DESCRIPTION = """\
Check the claims of papers on deep random networks at initialisation: each claim's verdict with its evidence and
controls, and an exit status CI can read.

commands (the first CLAIM):
  PAPER:CLAIM ...    run these claims (e.g. isometry:theorem1)
  all                every checked claim (--paper PAPER: of one paper)
  list [FILTER ...]  list claims and every numbered item not checked, filtered by paper or claim
  profile ACT ...    every theory quantity of activations, each with its error (--batch-sizes, --latex, --json)
  design FAMILY      parameters of an activation family meeting --target constraints
  render REPORT      regenerate --latex/--markdown/--csv from a saved --json report, without recomputing
  contract PAPER     check a paper's claims against the claim contract (declared quantities, ±5% controls, --jobs 2)

exit status: 0 every claim holds (or a declared hypothesis is not met), 1 some claim is violated, 2 bad input,
3 inconclusive, 4 a check crashed, 130 interrupted (the --json report keeps what finished; --resume continues)."""

EPILOG = """\
examples:
  python -m verify isometry:theorem1 --budget quick
  python -m verify all --budget quick --expect shipped --jobs 2 --json report.json
  python -m verify profile relu tanh --batch-sizes 4,8,16
  python -m verify list isometry -v
  python -m verify render report.json --latex tables.tex

docs: README.md, docs/usage.md (every option), docs/plugins.md (verify your own paper)."""

SHORT_USAGE = """\
usage: python -m verify PAPER:CLAIM [options]  |  all  |  list  |  profile ACT  |  design  |  render  |  contract

  python -m verify list                                  what can be checked
  python -m verify isometry:theorem1 --budget quick      one claim with its evidence and controls, in seconds
  python -m verify profile relu                          every theory quantity of an activation

python -m verify --help lists every command and option."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own errors: exit 2 with one clear line, no usage dump, no traceback
        sys.stderr.write(error_line(f"{_did_you_mean(message)} (python -m verify --help lists every option)"))
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m verify", description=DESCRIPTION, epilog=EPILOG,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("claims", nargs="+", metavar="CLAIM",
                   help="claim ids (paper:claim; a bare name that one paper has works too), or a command: all, "
                        "list, profile, design, render, contract (see 'commands' below)")
    p.add_argument("--budget", choices=BUDGETS, default="standard", help="sample sizes and grids (default standard; verify.api.run from Python defaults to quick)")
    p.add_argument("--seed", type=_argtype(P.seed), default=0,
                   help=f"random seed in [0, {P.SEED_MAX}] (same seed, same numbers on the same machine)")
    p.add_argument("--device", choices=("cpu", "cuda", "auto"), default="cpu", help="torch device (default cpu)")
    p.add_argument("--dtype", choices=("float64", "float32"), default="float64")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="set a claim parameter (see `python -m verify list --verbose`)")
    p.add_argument("--json", metavar="PATH", help="write the verdicts as JSON to PATH ('-' for stdout: only JSON there)")
    p.add_argument("--resume", metavar="REPORT",
                   help="read the JSON report REPORT (of an interrupted or earlier run), skip the claims it has with "
                        "the same settings, run the rest and append them to it (or to --json PATH)")
    p.add_argument("--perturb", action="append", default=[], metavar="QUANTITY=DELTA",
                   help="scale a theory quantity by (1 + DELTA) in every check (a mutation test: e.g. beta=0.05 must "
                        "turn the claims that use β_σ); quantities: see `python -m verify list -v`")
    p.add_argument("--expect", metavar="FILE", action="append",
                   help="compare every verdict with the expected verdicts of FILE (TOML; 'shipped' for the files "
                        "shipped with the papers: the built-in one and each plugin's): exit 0 when all match, 1 on a "
                        "regression or when an expected violation no longer reproduces. FILE is layered over the "
                        "shipped files; repeat to compose: a later file's entry replaces an earlier one's for the "
                        "same claim")
    p.add_argument("--expect-replace", action="store_true",
                   help="with --expect: use only the files given, not layered over the shipped ones")
    p.add_argument("--latex", metavar="PATH", help="write booktabs tables of constants and results to PATH")
    p.add_argument("--latex-standalone", action="store_true",
                   help="with --latex: a compilable document instead of a fragment to \\input")
    p.add_argument("--latex-prose", action="store_true",
                   help="with --latex: each claim's statement, verdict and evidence as well (default: only the tables)")
    p.add_argument("--latex-cite", type=_argtype(_cite_key), action="append", default=None, metavar="PAPER=KEY",
                   help="with --latex: cite PAPER as \\cite{KEY} in the captions (default: the paper's own key, "
                        "listed by 'verify list'); repeat for several papers")
    p.add_argument("--latex-label", type=_argtype(_label_prefix), default=None, metavar="PREFIX",
                   help="with --latex: labels PREFIX:<paper>:<claim>:<k> (profile: PREFIX:<k>) instead of tab:…, so "
                        "that two fragments in one document never share a label")
    p.add_argument("--digits", type=_argtype(_digits), default=None, metavar="N",
                   help="significant digits of the numbers in --latex tables (2 to 17). Default: from the error — "
                        "a value with an error is quoted to its error's place, 1.2345(6), up to "
                        f"{MAX_DIGITS} significant digits (a finer error is left out and the caption says so); a "
                        f"value without an error has {PLAIN_DIGITS}. N: every value N digits, with its error in "
                        "parentheses when the error reaches the N-th digit")
    p.add_argument("--csv", metavar="DIR", help="with 'render': every table and evidence list as CSV files in DIR")
    p.add_argument("--markdown", metavar="PATH", help="with 'render': the report as Markdown (one section per paper)")
    p.add_argument("--junit", metavar="PATH",
                   help="write a JUnit XML report to PATH: one test case per claim, judged by --expect (an expected "
                        "violation is an xfail naming its kind); also with 'render', from a saved report")
    p.add_argument("--artefacts", metavar="DIR", help="write figure data and plots into DIR")
    p.add_argument("--figure-style", choices=FIGURE_STYLES, default="default",
                   help="figure size and fonts for a venue: one column of NeurIPS, ICML or ICLR (tueplots), or the "
                        "default (default: default)")
    p.add_argument("--no-control", action="store_true", help="skip the negative and positive controls")
    p.add_argument("--no-cache", action="store_true",
                   help="recompute even if the on-disk cache holds a verdict for this claim, settings and code "
                        "($DEEPINIT_CACHE, default ~/.cache/deepinit-verify)")
    p.add_argument("--sensitivity", action="store_true",
                   help="measure each claim's resolution: per declared quantity, the smallest relative error "
                        "(ladder 0.5%%…50%%, both signs) that turns the verdict")
    p.add_argument("--jobs", "-j", type=_argtype(_jobs), default=1, metavar="N",
                   help="run N claims at a time in local worker processes (default 1: in this process); same "
                        "verdicts and numbers for any N")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the claims on the Dask distributed cluster at ADDRESS (e.g. tcp://10.0.0.5:8786); every "
                        "worker needs this deepinit-verify installed (docs/scale.md)")
    p.add_argument("--threads", type=_argtype(_threads), metavar="N|auto",
                   help="torch intra-op threads of the simulators: N, or auto (default: one thread for small "
                        "per-layer work, more for large widths; $DEEPINIT_THREADS)")
    p.add_argument("--batch-sizes", metavar="B,B,...", default="4,8,16,32,64,128",
                   help="with 'profile' / 'design': the batch sizes of the BN quantities (default 4,8,16,32,64,128)")
    p.add_argument("--target", action="append", default=[], metavar="TARGET",
                   help="with 'design': e.g. 'lambda_max<=1.1@B=32', 'beta<=1.05', 'sde=stable', '16xi>=200@B=64'")
    p.add_argument("--range", dest="param_range", action="append", default=[], metavar="NAME=LO:HI",
                   help="with 'design': the search interval of a family parameter (default -3:3 for a shift, "
                        "0.05:4 otherwise)")
    p.add_argument("--paper", choices=tuple(paper_keys()),
                   help="with 'all' or 'list': only this paper (the built-in ones and every installed plugin)")
    p.add_argument("--verbose", "-v", action="store_true")
    p.add_argument("--quiet", "-q", action="store_true", help="one line per claim")
    p.add_argument("--debug", action="store_true", help="show tracebacks of failing checks")
    p.add_argument("--version", action="version", version=f"deepinit-verify {__version__}")
    return p


def _argtype(kind):
    def conv(text):
        try:
            return kind(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    conv.__name__ = kind.__name__
    return conv


def _cite_key(text) -> tuple[str, str]:
    paper, sep, key = str(text).partition("=")
    if not sep or not re.fullmatch(r"[a-z][a-z0-9-]*", paper.strip()) or \
            not re.fullmatch(r"[A-Za-z0-9_:.+-]+", key.strip()):
        raise ValueError(f"--latex-cite takes PAPER=BIBKEY (e.g. bn-mean-field=yang2019mean), not {text!r}")
    return paper.strip(), key.strip()


def _label_prefix(text) -> str:
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9:-]{0,60}", str(text)):
        raise ValueError(f"--latex-label takes letters, digits, ':' and '-', starting with a letter, not {text!r}")
    return str(text)


def _jobs(text) -> int:
    try:
        n = int(str(text))
    except ValueError:
        raise ValueError(f"--jobs takes a positive integer, not {text!r}") from None
    if not 1 <= n <= 256:
        raise ValueError(f"--jobs {n} must be in [1, 256]")
    return n


def _threads(text) -> str:
    from theory.validate import thread_setting
    n = thread_setting(text, "--threads")
    return "auto" if n is None else str(n)


def _digits(text) -> int:
    try:
        n = int(str(text))
    except ValueError:
        raise ValueError(f"--digits takes an integer, not {text!r}") from None
    if not 2 <= n <= 17:
        raise ValueError(f"--digits {n} must be in [2, 17] (float64 carries 17)")
    return n


def _list_filter(filters: list[str]):
    """Claims (and uncovered items) matching any filter: a paper name, a claim id, or a substring of one."""
    fs = [f.strip().lower() for f in filters if f.strip() and f.strip().lower() != "all"]

    def keep(paper: str, ident: str) -> bool:
        if not fs:
            return True
        return any(f == paper or f in ident.lower() for f in fs)
    return keep


def _list(paper: str | None, verbose: bool, filters: list[str] = ()) -> int:
    from .coverage import uncovered
    from .registry import coverage_items
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


def _parse_params(items: list[str]) -> dict[str, str]:
    out = {}
    for it in items:
        if "=" not in it:
            raise UsageError(f"--param takes NAME=VALUE, got {it!r}")
        k, v = it.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def _clip(text: str, width: int) -> str:
    """``text`` cut at a word boundary within ``width`` characters, with an ellipsis: never mid-word."""
    text = " ".join(str(text).split())
    if len(text) <= width:
        return text
    cut = text[:width - 1].rsplit(" ", 1)[0].rstrip(",;:—– ")
    return cut + " …"


def _artefacts_in(v: Verdict, directory: str) -> bool:
    """Whether every file the verdict's claim wrote is in ``directory`` and still there."""
    files = [p for k, p in v.artefacts.items() if isinstance(p, str) and k.rsplit("_", 1)[-1] in ("png", "pdf", "csv")]
    base = os.path.abspath(directory) + os.sep
    return all(os.path.abspath(p).startswith(base) and os.path.isfile(p) for p in files)


class TerminalStream:
    """A terminal stream whose failure costs only its text. A write or flush that raises ``OSError`` — a full disk
    (``2>/dev/full``), an I/O error, a closed descriptor — drops that text and every later one, so that no progress
    line or message can turn a verdict into another status or cost the report. A closed pipe on stdout is the
    exception: ``verify list | head`` ends the run (exit 141) as before. ``None`` (the stream was closed before
    Python started) behaves as a stream that failed."""

    def __init__(self, stream, name: str):
        self._stream, self.name, self.failed = stream, name, stream is None

    def _call(self, method: str, *args):
        """The wrapped stream's ``method``, or None once it failed (then and after)."""
        if self.failed:
            return None
        try:
            return getattr(self._stream, method)(*args)
        except BrokenPipeError:
            if self.name == "stdout":
                raise
        except OSError:
            pass
        self.failed = True
        return None

    def write(self, text: str) -> int:
        n = self._call("write", text)
        return len(text) if n is None else n

    def flush(self) -> None:
        self._call("flush")

    def isatty(self) -> bool:
        try:
            return not self.failed and self._stream.isatty()
        except (OSError, ValueError):
            return False

    def __getattr__(self, attr):          # encoding, fileno, buffer, reconfigure, …: the wrapped stream's
        if self._stream is None:
            raise AttributeError(attr)
        return getattr(self._stream, attr)


def _safe_streams() -> tuple:
    """A terminal that cannot encode the output (LANG=C, a cp1252 console) gets escapes, never a crash; stdout and
    stderr are wrapped in :class:`TerminalStream`. Returns the original streams (``main`` puts them back)."""
    saved = (sys.stdout, sys.stderr)
    for stream in saved:
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):
            pass
    if not isinstance(sys.stdout, TerminalStream):
        sys.stdout = TerminalStream(sys.stdout, "stdout")
    if not isinstance(sys.stderr, TerminalStream):
        sys.stderr = TerminalStream(sys.stderr, "stderr")
    return saved


def main(argv=None) -> int:
    saved = _safe_streams()
    try:
        return _main_guarded(argv)
    finally:
        sys.stdout, sys.stderr = saved


def _main_guarded(argv) -> int:
    if not (sys.argv[1:] if argv is None else argv):   # bare `python -m verify`: the three most common commands
        sys.stdout.write(SHORT_USAGE + "\n")
        return 2
    try:
        args = build_parser().parse_intermixed_args(argv)
        args.argv = list(sys.argv[1:] if argv is None else argv)
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return 130
    saved_threads = os.environ.get("DEEPINIT_THREADS")
    if getattr(args, "threads", None):
        os.environ["DEEPINIT_THREADS"] = args.threads  # the simulators' policy (numerics.threads), workers included
    try:
        return _main(args)
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return 130
    except BrokenPipeError:  # `verify list | head`: the reader left; nothing to say (the shell's status for SIGPIPE)
        try:
            sys.stdout = open(os.devnull, "w", encoding="utf-8")
        except OSError:
            pass
        return 141
    except Exception as exc:  # a crash outside any check (reporting, writing files): exit 4, one line
        from .interrupts import interrupt_received
        if caused_by_interrupt(exc) or interrupt_received():
            sys.stderr.write("\ninterrupted\n")
            return 130
        if args.debug:
            import traceback
            traceback.print_exc()
        sys.stderr.write(error_line(f"deepinit-verify crashed: {type(exc).__name__}: {exc}"
                                    + ("" if args.debug else " (--debug shows the traceback)")))
        return 4
    finally:
        release_outputs()
        Q.set_base_perturbation(None)  # --perturb is for this run only (main may be called in-process)
        if saved_threads is None:
            os.environ.pop("DEEPINIT_THREADS", None)
        else:
            os.environ["DEEPINIT_THREADS"] = saved_threads


def _parse_perturbation(items: list[str]) -> dict[str, float]:
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


def _settings(args, ctx: Context) -> dict:
    """What a verdict depends on besides the code: compared by ``--resume`` (JSON-normalised)."""
    return cache.run_settings(ctx.budget, ctx.seed, device=ctx.device, dtype=ctx.dtype, controls=not args.no_control,
                              sensitivity=bool(args.sensitivity), perturb=Q.base_perturbation(),
                              figure_style=args.figure_style, params=ctx.params)


def _render(args) -> int:
    """``python -m verify render REPORT.json --latex t.tex [--latex-standalone] [--markdown m.md] [--csv DIR]``:
    every output regenerated from a saved report, nothing recomputed."""
    if len(args.claims) != 2:
        raise UsageError("usage: python -m verify render REPORT.json [--latex PATH] [--markdown PATH] [--csv DIR]")
    path = args.claims[1]
    if not os.path.isfile(path):
        raise UsageError(f"render: no report file {path!r}")
    verdicts = _read_report(path)
    if not verdicts:
        raise UsageError(f"render: {path!r} holds no verdicts")
    if not (args.latex or args.markdown or args.csv or args.junit):
        raise UsageError("render: say what to write: --latex PATH, --markdown PATH, --junit PATH and/or --csv DIR")
    for out, what in ((args.latex, "--latex"), (args.markdown, "--markdown"), (args.junit, "--junit")):
        if out:
            check_output_path(out, what)
    if args.csv:
        check_output_dir(args.csv, "--csv")
    claims = {c.id: c for c in all_claims()}
    known = [v for v in verdicts if v.claim_id in claims]
    unknown = [v.claim_id for v in verdicts if v.claim_id not in claims]
    if unknown:  # a verdict of a paper that is not installed here: never dropped silently
        cause = {k: c for k, c in failures().items() if any(u.startswith(k + ":") for u in unknown)}
        raise UsageError(f"render: {path!r} holds verdicts of claims not known here: {', '.join(unknown[:5])}"
                         + (" …" if len(unknown) > 5 else "")
                         + ("; " + "; ".join(f"plugin {k} failed to load: {c}" for k, c in cause.items()) if cause
                            else "; install the plugin that declares them"))
    if args.latex:
        write_atomic(args.latex, render_latex(known, claims, standalone=args.latex_standalone, digits=args.digits,
                                              prose=args.latex_prose, cites=dict(args.latex_cite or ()),
                                              label_prefix=args.latex_label))
    if args.markdown:
        from .docs import render_paper_page
        budgets = {v.settings.get("budget", "?") for v in known}
        pages = [render_paper_page(p, {v.claim_id: v for v in known if v.claim_id.startswith(p + ":")},
                                   "/".join(sorted(budgets)))
                 for p in paper_keys() if any(v.claim_id.startswith(p + ":") for v in known)]
        write_atomic(args.markdown, "\n\n".join(pages))
    if args.csv:
        _write_csv(known, args.csv)
    if args.junit:
        write_atomic(args.junit, render_junit(known, _report_comparisons(path, known, args)))
    print(f"rendered {len(known)} verdicts from {path}")
    return 0


def _report_comparisons(path: str, verdicts: list[Verdict], args) -> list:
    """The expectation outcomes for ``render --junit``: by the ``--expect`` files given to ``render``, else those the
    report recorded (its run's ``--expect``), else every claim expected to hold."""
    if args.expect:
        return expect.compare(verdicts, expect.load_many(args.expect, replace=args.expect_replace))
    with open(path, encoding="utf-8") as f:
        recorded = {c.get("claim"): c for c in json.load(f).get("expectations") or [] if isinstance(c, dict)}
    if not recorded:
        return expect.compare(verdicts, {})
    try:
        return [expect.Comparison(**{k: recorded[v.claim_id][k] for k in expect.Comparison.__dataclass_fields__
                                     if k in recorded[v.claim_id]}) for v in verdicts]
    except (KeyError, TypeError) as exc:
        raise UsageError(f"render: {path!r}: its expectations do not match its verdicts ({exc})") from None


def _contract(args) -> int:
    """``python -m verify contract PAPER``: the rules a paper's claims must keep (verify.contract), checked on them."""
    from .contract import check_paper, render
    from .registry import paper as declared_paper
    if len(args.claims) != 2:
        raise UsageError("usage: python -m verify contract PAPER [--budget quick] [--jobs 2]")
    declared_paper(args.claims[1])
    say = (lambda m: None) if args.quiet else (lambda m: sys.stderr.write(m + "\n"))
    budget_given = any(a == "--budget" or a.startswith("--budget=") for a in args.argv)
    rows = check_paper(args.claims[1], budget=args.budget if budget_given else "quick", seed=args.seed,
                       jobs=max(2, args.jobs), progress=say)
    print(render(rows))
    return 0 if all(r.passed for r in rows) else 1


def _batch_sizes(text: str) -> tuple[int, ...]:
    out = []
    for part in str(text).split(","):
        try:
            B = int(part.strip())
        except ValueError:
            raise UsageError(f"--batch-sizes takes comma-separated integers, not {text[:60]!r}") from None
        if not 4 <= B <= 4096:
            raise UsageError(f"--batch-sizes: B = {B} must be in [4, 4096] (the BSB1 fixed point needs B ≥ 4)")
        out.append(B)
    if not out or len(out) > 32:
        raise UsageError("--batch-sizes: between 1 and 32 batch sizes")
    return tuple(dict.fromkeys(out))


def _profile(args) -> int:
    """``python -m verify profile ACT [ACT ...]``: the comparison table of verify.profile (text, --json, --csv DIR,
    --latex PATH [--latex-standalone], --artefacts DIR for the figures)."""
    import theory
    from theory.errors import DeepinitError
    from . import profile as PR
    names = args.claims[1:]
    if not names:
        raise UsageError("usage: python -m verify profile ACTIVATION [ACTIVATION ...] (registry names or formulas)")
    if len(names) > 50:
        raise UsageError("profile: at most 50 activations at a time")
    Bs = _batch_sizes(args.batch_sizes)
    for out, what in ((args.latex, "--latex"),) + (((args.json, "--json"),) if args.json not in (None, "-") else ()):
        if out:
            check_output_path(out, what)
    for d, what in ((args.csv, "--csv"), (args.artefacts, "--artefacts")):
        if d:
            check_output_dir(d, what)
    acts = []
    for nm in names:
        try:
            acts.append(theory.activation(nm))
        except DeepinitError as exc:
            raise UsageError(f"profile: {exc}") from None
    profiles = []
    for a in acts:
        if args.json != "-" and not args.quiet:
            sys.stderr.write(f"profiling {a.name} …\n")
        try:
            profiles.append(PR.profile_activation(a, Bs))
        except DeepinitError as exc:
            raise UsageError(f"profile {a.name}: {exc}") from None
    text_digits = args.digits or PLAIN_DIGITS  # the terminal and the CSV: 6 digits unless --digits N
    header, rows = PR.comparison_rows(profiles, text_digits)
    notes = PR.undefined_notes(profiles)
    if args.json == "-":
        sys.stdout.write(json.dumps(_profile_document(args, profiles), ensure_ascii=False, indent=1,
                                    allow_nan=False) + "\n")
    else:
        _print_table(*PR.terminal_rows(profiles, text_digits))
        for nt in notes:
            print("  · " + nt)
        print(f"({', '.join(f'{p.activation} {p.seconds:.1f} s' for p in profiles)})")
        if args.json:
            write_atomic(args.json, json.dumps(_profile_document(args, profiles), ensure_ascii=False,
                                               indent=1, allow_nan=False) + "\n")
    if args.csv:
        import csv
        import io
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
        write_atomic(os.path.join(args.csv, "profile_table.csv"), buf.getvalue())
    if args.latex:
        write_atomic(args.latex, PR.render_latex(profiles, args.digits, standalone=args.latex_standalone,
                                                 cites=dict(args.latex_cite or ()), label_prefix=args.latex_label))
    if args.artefacts:
        files = PR.write_profile_figures(profiles, args.artefacts, style=args.figure_style)
        if args.json != "-":
            print("figures: " + ", ".join(v for k, v in files.items() if k != "caption"))
    return 0


def _design(args) -> int:
    """``python -m verify design FAMILY --target T [--target T ...] [--range NAME=LO:HI]``: exit 0 when some
    parameter value meets every target, 1 when none in the range does (a clear answer), 2 on bad input."""
    from . import design as D
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


def _profile_document(args, profiles) -> dict:
    """``profile --json``: the profiles with the provenance every report carries; a non-finite number is written as
    the string "inf", "-inf" or "nan", as in every report (JSON has no literal for them)."""
    started = provenance.now()
    return {"profiles": [_clean(p.to_dict()) for p in profiles],
            "provenance": provenance.collect("cpu", args.budget, args.seed, args.dtype, started, args.argv)}


def _print_table(header: list, rows: list[list]) -> None:
    from rich.console import Console
    from rich.table import Table
    t = Table(*header, show_lines=False, header_style="bold")
    for r in rows:
        t.add_row(*["" if c is None else (f"{c:.6g}" if isinstance(c, float) else str(c)) for c in r])
    import shutil
    # at least 100 columns: a tiny terminal width (COLUMNS=1) would fold every cell away to nothing
    Console(soft_wrap=False, width=max(100, shutil.get_terminal_size((140, 24)).columns)).print(t)


def _write_csv(verdicts: list[Verdict], directory: str) -> None:
    import csv
    import io
    import hashlib
    import re as _re
    stems = {v.claim_id: _re.sub(r"[^A-Za-z0-9-]+", "_", v.claim_id) for v in verdicts}
    taken = collections.Counter(stems.values())
    for cid, stem in stems.items():   # two ids on one file name ('a.b', 'a..b'): each gets its id's hash
        if taken[stem] > 1:
            stems[cid] = f"{stem}_{hashlib.sha256(cid.encode()).hexdigest()[:8]}"
    for v in verdicts:
        stem = stems[v.claim_id]
        tables = [(f"{stem}_table{k}.csv", list(t[1]), [list(r) for r in t[2]]) for k, t in enumerate(v.tables, 1)]
        if v.evidence:
            fields = ["name", "theory", "numeric", "bound", "observed", "slack", "ci_low", "ci_high", "confidence",
                      "samples", "passed", "note"]
            rows = [[e.name, e.theory, e.numeric, e.bound, e.observed, e.slack,
                     e.ci[0] if e.ci else "", e.ci[1] if e.ci else "", e.confidence, e.samples, e.passed, e.note]
                    for e in v.evidence]
            tables.append((f"{stem}_evidence.csv", fields, rows))
        for name, header, rows in tables:
            buf = io.StringIO()
            w = csv.writer(buf, lineterminator="\n")
            w.writerow(header)
            w.writerows([["" if c is None else c for c in r] for r in rows])
            write_atomic(os.path.join(directory, name), buf.getvalue())


def _read_report(path: str) -> list[Verdict]:
    from .files import parse_json, read_input
    try:
        doc = parse_json(read_input(path))
        if not isinstance(doc, dict) or not isinstance(doc.get("verdicts"), list):
            raise ValueError("no 'verdicts' list")
        return [Verdict.from_dict(d) for d in doc["verdicts"]]
    except FileNotFoundError:
        return []
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise UsageError(f"--resume {path!r}: not a readable deepinit-verify JSON report ({exc})") from None


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


def _non_negative_number(text: str) -> float:
    v = float(text)
    if not (math.isfinite(v) and v >= 0):
        raise ValueError(text)
    return v


def check_environment() -> None:
    """The DEEPINIT_* variables a run reads, checked before any work: a bad value is a one-line usage error (exit 2),
    never a crash later or a setting silently ignored (DEEPINIT_MEMORY_GB=nan disabled the memory check;
    DEEPINIT_STORE_MB=inf crashed)."""
    from numerics import threads
    from theory import validate
    from theory.errors import DeepinitError
    try:
        threads.setting()
        validate.memory_limit_gb()
    except DeepinitError as exc:
        raise UsageError(str(exc)) from None
    from .registry import _import_seconds
    _import_seconds()   # DEEPINIT_PLUGIN_TIMEOUT
    text = os.environ.get("DEEPINIT_STORE_MB", "")
    try:
        if text.strip():
            _non_negative_number(text)
    except ValueError:
        raise UsageError(f"DEEPINIT_STORE_MB={text[:40]!r}: the store's size in MiB must be a finite number ≥ 0 "
                         "(default 2048)") from None


def _main(args) -> int:
    try:
        check_environment()
        if args.claims and args.claims[0] == "list":
            return _list(args.paper, args.verbose, args.claims[1:])
        if args.claims and args.claims[0] == "render":
            return _render(args)
        if args.claims and args.claims[0] == "profile":
            return _profile(args)
        if args.claims and args.claims[0] == "design":
            return _design(args)
        if args.claims and args.claims[0] == "contract":
            return _contract(args)
        if "list" in args.claims:
            raise UsageError("'list' must come first: `python -m verify list [PAPER or CLAIM ...]`")
        broken = {}
        if "all" in args.claims:
            from . import selftest   # the verdict machinery on known answers, before any claim (exit 4 if not)
            canaries = selftest.run()
            if not all(c.passed for c in canaries):
                sys.stderr.write(selftest.render(canaries) + "\n")
                return 4
            if not args.quiet:
                sys.stderr.write(selftest.render(canaries) + "\n")
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
        raw = _parse_params(args.param)
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
        perturbation = _parse_perturbation(args.perturb)
        json_path = args.json if args.json is not None else args.resume
        previous = _read_report(args.resume) if args.resume else []
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
        pool = _pool(args)  # a cluster that cannot be reached is said before any work
    except (UsageError, OutputPathError, expect.ExpectationError) as exc:
        sys.stderr.write(error_line(str(exc)))
        return 2

    Q.set_base_perturbation(perturbation)
    if perturbation:
        sys.stderr.write("note: a PERTURBED run (--perturb " + ", ".join(f"{k}×(1{d:+g})" for k, d in perturbation.items())
                         + "): the theory side is deliberately wrong; verdicts are a mutation test\n")
    started = provenance.now()
    device = args.device
    if device == "auto":
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
    claim_map = {c.id: c for c in claims}
    to_stdout_json = json_path == "-"
    verdicts: list[Verdict] = []
    kept = {v.claim_id: v for v in previous}  # the report's verdicts, in its order; ours replace or extend them
    interrupted = False

    def report(complete: bool) -> str:
        out = dict(kept)
        for v in verdicts:
            out[v.claim_id] = v
        extra = {"complete": complete, "requested": [c.id for c in claims],
                 "provenance": provenance.collect(device, args.budget, args.seed, args.dtype, started, args.argv)}
        if expectations is not None:
            extra["expectations"] = [vars(c) for c in expect.compare(list(out.values()), expectations)]
        return render_json(list(out.values()), extra)

    def say(line: str) -> None:  # with --json -, stdout carries only the JSON document
        (sys.stderr if to_stdout_json else sys.stdout).write(line + "\n")
        (sys.stderr if to_stdout_json else sys.stdout).flush()

    run_seconds: list[float] = []
    from_cache: set[str] = set()
    use_cache = not (args.no_cache or cache.disabled())
    order = {c.id: i for i, c in enumerate(claims)}

    def context(claim, label: str, progress: bool = True) -> Context:
        return Context(budget=args.budget, seed=args.seed, device=device, dtype=args.dtype,
                       params=bound[claim.id], progress=Progress(label, enabled=progress and not args.quiet),
                       artefact_dir=args.artefacts, figure_style=args.figure_style)

    def with_figures(v: Verdict) -> bool:
        """Under --artefacts, a verdict is reused only if it was computed with figures asked for (its settings say
        ``artefacts: true``; one computed without lists no files, so "all its files are there" would hold vacuously)
        and its files are in the requested directory."""
        return not args.artefacts or (bool(v.settings.get("artefacts")) and _artefacts_in(v, args.artefacts))

    def known(claim, settings) -> tuple[Verdict | None, bool]:
        """A verdict this run need not compute, and whether it comes from --resume (same settings and the same code:
        the sources of the package and of the claim's plugin, as the cache keys them) or the cache."""
        old = kept.get(claim.id)
        if old is not None and old.status != "error":
            recorded = _clean(old.settings)
            same_code = recorded.pop("code", None) == cache.code_id(claim.id)   # sources and library versions
            recorded.pop("artefacts", None)
            recorded.pop("computed", None)
            if recorded == settings and same_code and with_figures(old):
                say(f"{claim.id:40s} {old.status:20s} (from {args.resume}: same settings and code, not rerun)")
                return old, True
        cached = cache.load(claim.id, settings) if use_cache else None
        if cached is not None and not with_figures(cached):
            cached = None  # no figures, or written elsewhere: recompute, so that they are written where asked
        if cached is not None:
            from_cache.add(claim.id)
        return cached, False

    def finished(v: Verdict, claim, settings, computed: bool) -> None:
        figures = {"artefacts": True} if (v.settings.get("artefacts") if not computed else args.artefacts) else {}
        # when and with which library versions the verdict was computed: a cached one keeps its own
        stamp = v.settings.get("computed") or (cache.computed_stamp() if computed else None)   # a worker's own
        if computed:
            v.settings = {**settings, **figures, "computed": stamp}
            if use_cache:
                cache.store(v, settings)
        run_seconds.append(v.seconds)
        v.settings = {**settings, **figures, **({"computed": stamp} if stamp else {}),
                      "code": cache.code_id(claim.id)}   # what --resume compares
        verdicts.append(v)
        tag = " (cached)" if v.claim_id in from_cache else ""   # the terminal only: never in a report's content
        if args.quiet:
            res = resolution_text(v)
            say(f"{v.claim_id:40s} {(v.status + tag):20s} {v.seconds:7.1f}s  {_clip(v.summary, 120)}"
                + (f"  [resolution: {res}]" if res else ""))
        elif not to_stdout_json:
            say(render_text(v, claim, verbose=True) + tag + "\n")
        if json_path and not to_stdout_json:  # incremental: an interrupted run keeps what it computed
            write_atomic(json_path, report(False))

    parallel = pool is not None
    try:
        if parallel:
            _run_parallel(args, pool, claims, device, bound, context, known, finished, say, verdicts)
        for k, claim in enumerate([] if parallel else claims, 1):
            if any(v.claim_id == claim.id for v in verdicts):
                continue
            # one overall progress label: claim k of N and an ETA from the claims finished so far
            eta = ""
            if run_seconds and len(claims) > 1:
                left = sum(run_seconds) / len(run_seconds) * (len(claims) - k + 1)
                eta = f"; about {left / 60:.0f} min left" if left >= 90 else f"; about {left:.0f} s left"
            label = f"{k}/{len(claims)} {claim.id}{eta}" if len(claims) > 1 else claim.id
            ctx = context(claim, label)
            settings = _settings(args, ctx)
            v, resumed = known(claim, settings)
            if v is not None:
                if resumed:
                    verdicts.append(v)
                    continue
                finished(v, claim, settings, computed=False)
                continue
            v = run_claim(claim, ctx, with_control=not args.no_control, debug=args.debug,
                          sensitivity=args.sensitivity)
            ctx.progress.done()
            finished(v, claim, settings, computed=True)
    except KeyboardInterrupt:
        interrupted = True
        sys.stderr.write(f"\ninterrupted: {len(verdicts)} of {len(claims)} claims finished; "
                         + (f"their verdicts are in {json_path} (continue with --resume {json_path})\n"
                            if json_path and not to_stdout_json else "\n"))
    verdicts.sort(key=lambda v: order.get(v.claim_id, len(order)))
    try:
        if to_stdout_json:
            sys.stdout.write(report(not interrupted) + "\n")
        elif json_path:
            write_atomic(json_path, report(not interrupted))
        if args.latex and verdicts:
            write_atomic(args.latex, render_latex(verdicts, claim_map, standalone=args.latex_standalone,
                                                  prose=args.latex_prose, digits=args.digits,
                                                  cites=dict(args.latex_cite or ()), label_prefix=args.latex_label))
        if args.junit and verdicts:
            write_atomic(args.junit, render_junit(verdicts, expect.compare(verdicts, expectations or {})))
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted while writing the reports\n")
        return 130
    if interrupted:
        return 130
    # the status of what the report holds: with --resume, the verdicts kept from the file count as this run's
    reported = list({**kept, **{v.claim_id: v for v in verdicts}}.values())
    code = exit_status(reported)
    if expectations is not None:
        comparisons = expect.compare(reported, expectations)
        (sys.stderr if to_stdout_json else sys.stdout).write(expect.render(comparisons) + "\n")
        code = expect.exit_code(comparisons)
    if getattr(args, "broken_plugins", None):
        code = max(code, 2)
    if not args.quiet and not to_stdout_json and len(verdicts) > 1:
        counts = {}
        for v in verdicts:
            counts[v.status] = counts.get(v.status, 0) + 1
        print("summary: " + ", ".join(f"{n} {s}" for s, n in counts.items()) + f"; exit status {code}")
    return code


def _pool(args):
    """The worker pool of ``--jobs N`` / ``--scheduler ADDRESS`` (None for a serial run)."""
    if args.scheduler is not None and args.jobs > 1:
        raise UsageError("--jobs and --scheduler exclude each other: the cluster's workers set the parallelism")
    if args.scheduler is None and args.jobs == 1:
        return None
    from . import parallel
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


def _run_parallel(args, pool, claims, device, bound, context, known, finished, say, verdicts) -> None:
    """``--jobs N`` / ``--scheduler ADDRESS``: every claim not already known becomes a task (verify.parallel),
    longest first; verdicts are reported as they finish and the final report keeps the requested order."""
    from . import parallel
    from .cache import code_hash
    todo = []
    for claim in claims:
        ctx = context(claim, claim.id, progress=False)
        settings = _settings(args, ctx)
        v, resumed = known(claim, settings)
        if v is not None:
            if resumed:
                verdicts.append(v)
            else:
                finished(v, claim, settings, computed=False)
            continue
        todo.append((claim, settings))
    if not todo:
        pool.close()
        return
    threads = os.environ.get("DEEPINIT_THREADS") or None
    where = f"the Dask cluster at {args.scheduler} ({pool.workers} workers)" if args.scheduler else f"{pool.workers} processes"
    say(f"running {len(todo)} claims on {where}")
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
                finished(v, claim, settings, computed=True)
    except KeyboardInterrupt:
        pool.close(cancel=True)
        raise
    pool.close()
