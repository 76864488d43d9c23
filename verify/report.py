"""Render verdicts: terminal text, JSON and LaTeX (booktabs) — all from the same Verdict."""
from __future__ import annotations

import json
import math
import os
import re
import tempfile

from .core import ERROR, HOLDS, HYPOTHESES_NOT_MET, INCONCLUSIVE, VIOLATED, Claim, Evidence, Verdict

_MARK = {HOLDS: "HOLDS", VIOLATED: "VIOLATED", HYPOTHESES_NOT_MET: "HYPOTHESES NOT MET", INCONCLUSIVE: "INCONCLUSIVE",
         ERROR: "ERROR (the check crashed)"}


def resolution_text(verdict: Verdict) -> str:
    """'c* ±5%, b* ±5%': the perturbations of the theory side this run showed the check flags."""
    if not verdict.resolution:
        return ""
    from .quantities import short
    from .runner import SENSITIVITY_LADDER
    paper = verdict.claim_id.split(":", 1)[0]
    return ", ".join((f"{short(q, paper)} {'≤ ' if d <= SENSITIVITY_LADDER[0] else ''}±{100 * d:g}%") if d is not None
                     else f"{short(q, paper)} not flagged even at ±50%" for q, d in verdict.resolution.items())


def fmt(v, digits: int = 6) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if v != 0 and (abs(v) >= 1e6 or abs(v) < 1e-4):
            return f"{v:.{digits - 1}e}"
        return f"{v:.{digits}g}"
    if hasattr(v, "item") and getattr(v, "ndim", 1) == 0:
        return fmt(v.item(), digits)
    if isinstance(v, (tuple, list)):
        return "[" + ", ".join(fmt(u, digits) for u in v) + "]"
    return str(v)


def _row_cells(e: Evidence) -> list[str]:
    ok = {True: "ok", False: "FAIL", None: "info"}[e.passed]
    conf = f"{100 * e.confidence:g}%" if e.confidence else ""
    if e.statistic:  # a test statistic against its critical value: one cell, never the bound/observed columns
        try:          # the relation of the two numbers (a row may also be decided by more than this test)
            if isinstance(e.bound, (tuple, list)) and len(e.bound) == 2:   # a two-sided test: (lo, hi)
                rel = "∈" if float(e.bound[0]) <= float(e.observed) <= float(e.bound[1]) else "∉"
            else:
                rel = "≤" if float(e.observed) <= float(e.bound) else ">"
        except (TypeError, ValueError):
            rel = "vs"
        test, bound, observed = f"{e.statistic} = {fmt(e.observed, 4)} {rel} {fmt(e.bound, 4)}", "", ""
    else:
        test, bound, observed = "", fmt(e.bound, 5), fmt(e.observed, 5)
    ci = (fmt(e.ci, 4) + (f" {conf}" if conf else "")) if e.ci else ""
    return [e.name, fmt(e.theory, 5), fmt(e.numeric, 5), ci, bound, observed, test, fmt(e.samples), ok]


#: what each column holds, on every row (verify.core.Evidence; the JSON also carries ``slack`` = bound/observed)
_HEADER = ["quantity", "predicted", "measured", "CI (conf.)", "bound", "observed", "test (critical)", "n", "pass"]


def _table(header, rows, indent="    ", width: int | None = None) -> list[str]:
    """The evidence table: a ``rich`` table that wraps long cells (nothing is cut), without colour codes, as text
    lines; empty columns are dropped."""
    keep = [i for i in range(len(header)) if any(r[i] for r in rows) or i == 0]
    header = [header[i] for i in keep]
    rows = [[r[i] for i in keep] for r in rows]
    try:
        import io

        from rich import box
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # plain columns (rich is a dependency; this only serves a broken installation)
        widths = [max(len(header[i]), *(len(r[i]) for r in rows)) for i in range(len(header))]
        out = [indent + "  ".join(h.ljust(w) for h, w in zip(header, widths))]
        return out + [indent + "  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
    import shutil
    total = width or max(100, shutil.get_terminal_size((140, 24)).columns)
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
    for i, h in enumerate(header):   # the quantity's name keeps a readable width; long cells wrap at spaces
        t.add_column(h, overflow="fold", ratio=4 if i == 0 else None, min_width=min(26, total // 5) if i == 0 else None,
                     no_wrap=h in ("predicted", "measured", "bound", "observed", "pass"))
    for r in rows:
        t.add_row(*r)
    buf = io.StringIO()
    Console(file=buf, width=total - len(indent), color_system=None, highlight=False, markup=False,
            emoji=False).print(t)
    return [indent + line.rstrip() for line in buf.getvalue().splitlines() if line.strip()]


def _evidence_lines(evidence: list[Evidence], width: int | None = None) -> list[str]:
    """The evidence as a table when its columns fit the terminal, else one labelled block per row — every value named
    by what it is (predicted, measured, CI, bound, observed, test), never a column that changes meaning."""
    import shutil
    total = width or max(100, shutil.get_terminal_size((140, 24)).columns)
    rows = [_row_cells(e) for e in evidence]
    keep = [i for i in range(1, len(_HEADER)) if any(r[i] for r in rows)]
    need = 4 + 26 + sum(max(len(_HEADER[i]), *(len(r[i]) for r in rows)) + 3 for i in keep)
    if need <= total:
        return _table(_HEADER, rows, width=total)
    out = []
    for r in rows:
        out.append(f"    {r[0]}" + (f"  [{r[-1]}]" if r[-1] else ""))
        names = {"CI (conf.)": "CI", "test (critical)": ""}
        parts = [(f"{names.get(_HEADER[i], _HEADER[i])} {r[i]}").strip() for i in keep if r[i] and _HEADER[i] != "pass"]
        if parts:
            out.append("        " + " · ".join(parts))
    return out


def render_text(verdict: Verdict, claim: Claim | None = None, verbose: bool = True) -> str:
    lines = [f"{verdict.claim_id}  {_MARK[verdict.status]}  ({verdict.seconds:.1f} s)"]
    if claim is not None:
        lines.append(f"  {claim.title}")
        if verbose:
            lines.append(f"  statement: {claim.statement}")
            if claim.hypotheses:
                lines.append(f"  hypotheses: {claim.hypotheses}")
    lines.append(f"  verdict: {verdict.summary}")
    if verbose and verdict.evidence:
        lines.append("  evidence:")
        lines += _evidence_lines(verdict.evidence)
        if any(e.passed is None for e in verdict.evidence):
            lines.append("    (pass 'info': an informational row, not judged)")
        notes = [(e.name, e.note) for e in verdict.evidence if e.note]
        for name, note in notes:
            lines.append(f"    · {name}: {note}")
    for er in verdict.errata:
        lines.append(f"  ERRATUM [{er.severity}] {er.location}: printed {er.printed!r}; found {er.found!r}.")
        lines.append(f"    evidence: {er.evidence}")
    for name, path in verdict.artefacts.items():
        if isinstance(path, str) and name.endswith("_caption"):
            lines.append(f"  figure caption: {path}")
        elif isinstance(path, str):
            lines.append(f"  artefact {name}: {path}")
    if verdict.resolution:
        lines.append(f"  resolution (theory-side errors this run flags): {resolution_text(verdict)}")
    nc = verdict.negative_control
    if nc is not None:
        from .runner import control_description
        flag = "flagged as it must be" if nc.status == VIOLATED else "NOT FLAGGED"
        desc = control_description(claim) if claim else ""
        lines.append(f"  negative control ({desc}): {_MARK[nc.status]} — {flag}")
        lines.append(f"    {nc.summary}")
        if verbose and claim is not None and claim.depends_on:
            for e in nc.evidence:   # control rows: the perturbation in the name, the perturbed runs' outcome observed
                lines.append(f"    · {e.name}: {e.observed}")
    pc = verdict.positive_control
    if pc is not None:
        desc = claim.positive_control_description if claim else ""
        flag = "holds as it must" if pc.status == HOLDS else "DOES NOT HOLD"
        lines.append(f"  positive control ({desc}): {_MARK[pc.status]} — {flag}")
        lines.append(f"    {pc.summary}")
    return "\n".join(lines)


def render_json(verdicts: list[Verdict], extra: dict | None = None) -> str:
    doc = {"verdicts": [v.to_dict() for v in verdicts]}
    if extra:
        doc.update(extra)
    return json.dumps(doc, indent=2, ensure_ascii=False)


class OutputPathError(OSError):
    """An output path that cannot be written (a directory, a read-only or special file system, no permission)."""


def check_output_path(path: str, what: str) -> str:
    """Decide before any work whether ``path`` can be written, by writing (and removing) a temporary file next to it.
    Raises :class:`OutputPathError` with one line saying why not."""
    ap = os.path.abspath(path)
    if os.path.isdir(ap):
        raise OutputPathError(f"{what} {path!r} is a directory; give a file name")
    if os.path.exists(ap) and not os.path.isfile(ap):
        raise OutputPathError(f"{what} {path!r} exists and is not a regular file")
    directory = os.path.dirname(ap) or "."
    _probe_directory(directory, path, what)
    name = os.fsencode(os.path.basename(ap))
    try:
        name_max = os.pathconf(directory, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        name_max = 255
    if len(name) > name_max:
        raise OutputPathError(f"{what}: the file name is {len(name)} bytes long; this file system allows at most "
                              f"{name_max}")
    return ap


def check_output_dir(path: str, what: str) -> str:
    """The same decision for an output directory (created if missing)."""
    ap = os.path.abspath(path)
    if os.path.exists(ap) and not os.path.isdir(ap):
        raise OutputPathError(f"{what} {path!r} exists and is not a directory")
    _probe_directory(ap, path, what)
    return ap


def _probe_directory(directory: str, path: str, what: str) -> None:
    """Create ``directory`` if needed and write and remove a probe file in it; :class:`OutputPathError` if not."""
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".probe")
        os.close(fd)
        os.unlink(tmp)
    except OSError as exc:
        raise OutputPathError(f"{what} {path!r} cannot be written: {exc.strerror or exc}") from None


#: file descriptors of the output locks this process holds (:func:`lock_output`, released by :func:`release_outputs`)
_HELD_LOCKS: list[int] = []


def lock_output(path: str, what: str) -> None:
    """Hold, until :func:`release_outputs` or the process ends (a kill included), an exclusive lock on ``path`` for
    this run: a second run writing the same report (``--json``, ``--resume``) refuses at start instead of one run's
    verdicts vanishing. The lock is a file named by the path's hash in the temporary directory (nothing is written
    next to the report); :class:`OutputPathError` if another run holds it. Where ``fcntl`` is missing, no lock."""
    try:
        import fcntl
    except ImportError:
        return
    import hashlib
    real = os.path.realpath(path)
    d = os.path.join(tempfile.gettempdir(), f"deepinit-verify-locks-{os.getuid()}")
    os.makedirs(d, mode=0o700, exist_ok=True)
    fd = os.open(os.path.join(d, hashlib.sha256(os.fsencode(real)).hexdigest()[:32] + ".lock"),
                 os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise OutputPathError(f"{what} {path!r} is being written by another deepinit-verify run; wait for it to "
                              "finish or write another file") from None
    _HELD_LOCKS.append(fd)


def release_outputs() -> None:
    """Release every lock of :func:`lock_output`."""
    while _HELD_LOCKS:
        try:
            os.close(_HELD_LOCKS.pop())
        except OSError:
            pass


# --------------------------------------------------------------------------------------------
# LaTeX
# --------------------------------------------------------------------------------------------

def latex_escape(text: str, strict: bool = False) -> str:
    """Claim text → LaTeX (text mode, mathematics in math mode): :func:`verify.latex.to_latex`."""
    from .latex import to_latex
    return to_latex(text, strict)


def render_latex(verdicts: list[Verdict], claims: dict[str, Claim], standalone: bool = True,
                 digits: int | None = None, strict: bool = False, prose: bool = True, cites: dict | None = None,
                 label_prefix: str | None = None) -> str:
    """The LaTeX of a report: :func:`verify.latex.render` (a fragment to ``\\input``, or a standalone document);
    ``prose``: each claim's statement, verdict and evidence besides its tables; ``cites``: {paper key: BibTeX key}
    (default: each registered paper's ``cite_key``); ``label_prefix``: the labels' first part (default ``tab``)."""
    from .latex import render
    from .registry import papers
    keys = {k: p.cite_key for k, p in papers().items()}
    keys.update(cites or {})
    return render(verdicts, claims, standalone=standalone, digits=digits, strict=strict, prose=prose, cites=keys,
                  label_prefix=label_prefix)


def latex_structure_problems(tex: str) -> list[str]:
    """A structural check used when no LaTeX installation is present."""
    problems = []
    body = re.sub(r"\\[{}%$&#_]", "", tex)
    if body.count("{") != body.count("}"):
        problems.append("unbalanced braces")
    for env in set(re.findall(r"\\begin\{(\w+)\}", tex)):
        if tex.count(r"\begin{" + env + "}") != tex.count(r"\end{" + env + "}"):
            problems.append(f"unbalanced environment {env}")
    if any(ord(ch) >= 128 for ch in tex):
        problems.append("non-ASCII character")
    for line in tex.splitlines():
        if line.replace(r"\$", "").count("$") % 2 and not line.strip().startswith("%"):
            problems.append(f"odd number of $ in: {line[:60]}")
    return problems
