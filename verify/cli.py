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
import math
import os
import re
import sys

from . import __version__
from . import params as P
from . import quantities as Q
from .core import BUDGETS, FIGURE_STYLES, caused_by_interrupt, error_line
from .latex import MAX_DIGITS, PLAIN_DIGITS
from .registry import UsageError, paper_keys
from .report import release_outputs


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
    """The environment checked, then the command: ``list``, ``render``, ``profile``, ``design``, ``contract``
    (verify.commands, one module each), else the claims run (:mod:`verify.commands.run`)."""
    from . import commands
    from .expectations import ExpectationError
    from .report import OutputPathError
    try:
        check_environment()
        command = commands.command_for(args.claims)
        if command is not commands.CLAIMS_RUN:   # the claims run says its own usage errors, before any work
            return command.run(args)
    except (UsageError, OutputPathError, ExpectationError) as exc:
        sys.stderr.write(error_line(str(exc)))
        return 2
    return command.run(args)
