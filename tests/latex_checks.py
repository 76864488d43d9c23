"""What a paper's author checks before pasting a table: the fragments compiled together in a 5.5 in text (NeurIPS,
ICML, ICLR), and the rules a demanding reader holds a table to (:func:`table_problems`). Used by the tests of the
shipped tables (tests/test_shipped_tables.py) and of CI's standard-budget report (tests/test_standard_report.py);
tested on hand-made fragments with one defect each."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from verify.latex import PACKAGES

TEX = bool(shutil.which("pdflatex"))
#: a paper's text width
TEXT_WIDTH = "5.5in"
#: the smallest magnitude a table may print: below it a number is a rounding residue (a zero)
RESIDUE = 1e-12

_S_SPEC = re.compile(r"S\[[^\]]*\]|>\{[^}]*\}(?:p\{[^}]*\}|X)|[lcr]")
_NUMBER = re.compile(r"(-?)(\d*)(?:\.(\d*))?(?:\((\d+)\))?(?:e(-?\d+))?$")


def tabulars(tex: str):
    """(column specs, body rows as cell lists) of every tabular in ``tex``."""
    for m in re.finditer(r"\\begin\{tabularx?\}(?:\{\\linewidth\})?\{(.*?)\}\n(.*?)\\end\{tabularx?\}", tex, re.S):
        spec = _S_SPEC.findall(m.group(1))
        body = m.group(2).split(r"\midrule", 1)[1].split(r"\bottomrule")[0]
        rows = [[c.strip() for c in line.rstrip().removesuffix(r"\\").split(" & ")]
                for line in body.strip().splitlines() if line.strip() and not line.startswith("\\addlinespace")]
        yield spec, rows


def table_problems(tex: str) -> list[str]:
    """The rules every numeric (siunitx ``S``) column keeps: one notation (never a per-cell ×10^k beside plain
    numbers) and no rounding residue printed as a number (a nonzero value below :data:`RESIDUE`)."""
    problems = []
    for t, (spec, rows) in enumerate(tabulars(tex), 1):
        for j, kind in enumerate(spec):
            if not kind.startswith("S"):
                continue
            cells = [r[j] for r in rows if j < len(r)]
            nums = [(c, _NUMBER.match(c)) for c in cells if c and not c.startswith("{") and _NUMBER.match(c)]
            exps = {m.group(5) is not None for c, m in nums if c != "0"}
            if exps == {True, False}:
                problems.append(f"table {t}, column {j + 1}: ×10^k per cell beside plain numbers: {cells}")
            for c, m in nums:
                mant = float((m.group(1) or "") + (m.group(2) or "0") + "." + (m.group(3) or "0"))
                value = mant * 10.0 ** int(m.group(5) or 0)
                if value != 0 and abs(value) < RESIDUE:
                    problems.append(f"table {t}, column {j + 1}: a residue printed as a number: {c}")
    return problems


def compile_in_paper(fragments: dict[str, str], directory: Path, name: str = "paper") -> tuple[int, str]:
    """The fragments ``\\input`` one after another into an article of text width :data:`TEXT_WIDTH`; pdflatex's exit
    status and log."""
    for stem, text in fragments.items():
        (directory / f"{stem}.tex").write_text(text)
    doc = directory / f"{name}.tex"
    doc.write_text("\\documentclass{article}\n\\usepackage[textwidth=" + TEXT_WIDTH + "]{geometry}\n" + PACKAGES
                   + "\n\\begin{document}\n" + "".join(f"\\input{{{stem}}}\n" for stem in fragments)
                   + "\\end{document}\n")
    p = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name], cwd=directory,
                       capture_output=True, text=True, timeout=300)
    return p.returncode, (directory / f"{name}.log").read_text(errors="replace")


def label_problems(fragments: dict[str, str]) -> list[str]:
    """Labels defined more than once across the fragments of one document (pdflatex says so only on a second run)."""
    seen: dict[str, str] = {}
    problems = []
    for stem, text in fragments.items():
        for label in re.findall(r"\\label\{([^}]*)\}", text):
            if label in seen:
                problems.append(f"label {label} in {seen[label]} and {stem}")
            seen[label] = stem
    return problems


def log_problems(rc: int, log: str) -> list[str]:
    """What the log of :func:`compile_in_paper` says a reader would see: an error, a table wider than the text, a
    label defined twice."""
    problems = [] if rc == 0 else [f"pdflatex exit {rc}: {log[-1500:]}"]
    problems += [line for line in log.splitlines() if line.startswith("Overfull")]
    problems += [line for line in log.splitlines() if "multiply defined" in line or "Float too large" in line]
    return problems
