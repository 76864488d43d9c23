"""LaTeX that drops into a paper: claim text in text mode with its mathematics in math mode, tables with booktabs and
siunitx, labels and captions once, no silent row caps.

* :func:`to_latex` — one symbol table (:data:`MATH_SYMBOLS`, :data:`TEXT_SYMBOLS`): Greek letters, operators, sub- and
  superscripts, blackboard and script letters, combining accents (σ̄ → ``\\bar{\\sigma}``). A run of mathematics —
  including ASCII attached to it by ``_``, ``^`` or a trailing ``*`` (β_σ, He_1, λ_max, q*, G_*^0) — becomes one
  ``$…$``. An unknown non-ASCII character raises :class:`LatexError` with ``strict=True`` (the tests) and is printed
  visibly as ``[U+XXXX]`` otherwise — never a silent ``?``.
* :func:`render` — a fragment to ``\\input`` (default) or a standalone document: per claim a short paragraph, its
  tables (``S`` columns with a computed ``table-format``; long tables as ``longtable``) with ``\\caption`` and
  ``\\label{tab:<paper>:<claim>:<k>}``, and its errata.
"""
from __future__ import annotations

import math
import re
import unicodedata

from .core import Claim, Verdict

_GREEK = {
    "α": r"\alpha", "β": r"\beta", "γ": r"\gamma", "δ": r"\delta", "ε": r"\varepsilon", "ζ": r"\zeta", "η": r"\eta",
    "θ": r"\theta", "ι": r"\iota", "κ": r"\kappa", "λ": r"\lambda", "μ": r"\mu", "ν": r"\nu", "ξ": r"\xi", "π": r"\pi",
    "ρ": r"\rho", "σ": r"\sigma", "τ": r"\tau", "υ": r"\upsilon", "φ": r"\phi", "χ": r"\chi", "ψ": r"\psi",
    "ω": r"\omega", "ϕ": r"\phi", "ϵ": r"\epsilon",
    "Γ": r"\Gamma", "Δ": r"\Delta", "Θ": r"\Theta", "Λ": r"\Lambda", "Ξ": r"\Xi", "Π": r"\Pi", "Σ": r"\Sigma",
    "Φ": r"\Phi", "Ψ": r"\Psi", "Ω": r"\Omega",
}
#: characters that are mathematics: their LaTeX in math mode
MATH_SYMBOLS = {
    **_GREEK,
    "≤": r"\le", "≥": r"\ge", "≈": r"\approx", "≠": r"\ne", "≲": r"\lesssim", "≳": r"\gtrsim", "≡": r"\equiv",
    "≪": r"\ll", "≫": r"\gg", "∼": r"\sim", "≅": r"\cong", "∝": r"\propto", "±": r"\pm", "∓": r"\mp",
    "×": r"\times", "·": r"\cdot", "⋅": r"\cdot", "∘": r"\circ", "⊗": r"\otimes", "∈": r"\in", "∉": r"\notin",
    "⊂": r"\subset", "⊆": r"\subseteq", "∩": r"\cap", "∪": r"\cup", "∖": r"\setminus", "∅": r"\emptyset",
    "∀": r"\forall", "∃": r"\exists", "¬": r"\neg", "∧": r"\wedge", "∨": r"\vee",
    "→": r"\to", "←": r"\leftarrow", "↦": r"\mapsto", "↔": r"\leftrightarrow", "⇒": r"\Rightarrow",
    "⇔": r"\Leftrightarrow", "⟺": r"\iff", "↑": r"\uparrow", "↓": r"\downarrow",
    "∞": r"\infty", "√": r"\surd", "∂": r"\partial", "∇": r"\nabla", "∫": r"\int", "∑": r"\sum", "∏": r"\prod",
    "⊥": r"\perp", "‖": r"\|", "⟨": r"\langle", "⟩": r"\rangle", "⌊": r"\lfloor", "⌋": r"\rfloor",
    "⌈": r"\lceil", "⌉": r"\rceil", "−": "-", "∗": "*",
    "ℓ": r"\ell", "ℝ": r"\mathbb{R}", "ℕ": r"\mathbb{N}", "ℤ": r"\mathbb{Z}", "ℚ": r"\mathbb{Q}", "ℂ": r"\mathbb{C}",
    "𝔾": r"\mathbb{G}", "𝕃": r"\mathbb{L}", "𝕄": r"\mathbb{M}", "𝔼": r"\mathbb{E}", "ℙ": r"\mathbb{P}",
    "𝓘": r"\mathcal{I}", "𝓕": r"\mathcal{F}", "𝒩": r"\mathcal{N}", "𝒪": r"\mathcal{O}", "𝓛": r"\mathcal{L}",
    "′": "'", "″": "''", "‴": "'''", "✓": r"\checkmark", "✗": r"\times",
    "ā": r"\bar{a}", "ē": r"\bar{e}", "ĉ": r"\hat{c}", "â": r"\hat{a}", "ŷ": r"\hat{y}",
    "¼": r"\tfrac14", "½": r"\tfrac12", "¾": r"\tfrac34",
}
_SUPERSCRIPTS = {"⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8", "⁹": "9",
                 "⁺": "+", "⁻": "-", "ᵀ": r"\top", "ⁿ": "n", "ᵏ": "k"}
_SUBSCRIPTS = {"₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "₅": "5", "₆": "6", "₇": "7", "₈": "8", "₉": "9",
               "₊": "+", "₋": "-", "ᵢ": "i", "ⱼ": "j", "ₖ": "k", "ₗ": "l", "ₙ": "n"}
_ACCENTS = {"\u0304": r"\bar", "\u0302": r"\hat", "\u0303": r"\tilde", "\u0307": r"\dot", "\u20d7": r"\vec"}
#: characters that are text: their LaTeX in text mode
TEXT_SYMBOLS = {"–": "--", "—": "---", "…": r"\dots{}", "’": "'", "‘": "`", "“": "``", "”": "''", "ô": r"\^{o}",
                "é": r"\'{e}", "è": r"\`{e}", "ü": r'\"{u}', "ö": r'\"{o}', "ä": r'\"{a}', "§": r"\S{}",
                "°": r"\textdegree{}", "\u00a0": "~"}
_TEXT_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                 "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                 "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", '"': "''"}
_MATH_ASCII = {"{": r"\{", "}": r"\}", "|": "|", "#": r"\#", "%": r"\%", "&": r"\&", "~": r"\sim", "\\": r"\backslash"}


class LatexError(ValueError):
    """A character with no LaTeX form in the symbol table (strict mode)."""


def _is_mathchar(ch: str) -> bool:
    return ch in MATH_SYMBOLS or ch in _SUPERSCRIPTS or ch in _SUBSCRIPTS or ch in _ACCENTS


def _unknown(ch: str, strict: bool) -> str:
    if strict:
        name = unicodedata.name(ch, "?")
        raise LatexError(f"no LaTeX form for {ch!r} (U+{ord(ch):04X} {name}); add it to verify/latex.py")
    return r"\texttt{[U+%04X]}" % ord(ch)


_OPERATORS = {"max", "min", "sup", "inf", "log", "ln", "exp", "det", "lim", "sin", "cos", "tan", "sinh", "cosh",
              "tanh", "arg"}


def _word_math(word: str) -> str:
    """An ASCII word that became mathematics: one letter stays italic, operator names become their commands
    (λ_max → λ_{\\max}), other words upright (He_1)."""
    if len(word) <= 1 or word.isdigit():
        return word
    if word in _OPERATORS:
        return "\\" + word + " "
    return r"\mathrm{" + word + "}"


def _atom(text: str, i: int, strict: bool) -> tuple[str, int]:
    """The math atom starting at ``text[i]`` (after ``_`` or ``^``): a braced group, a word, one symbol; and the next
    index."""
    if i >= len(text):
        return "", i
    ch = text[i]
    if ch == "{":
        j = text.find("}", i)
        if j > 0:
            return "{" + _math_run(text[i + 1:j], strict) + "}", j + 1
    if ch.isascii() and ch.isalnum():
        j = i
        while j < len(text) and text[j].isascii() and text[j].isalnum():
            j += 1
        return "{" + _word_math(text[i:j]) + "}", j
    if ch == "*":
        return "{*}", i + 1
    if ch in ("-", "+") and i + 1 < len(text) and text[i + 1].isdigit():
        j = i + 1
        while j < len(text) and text[j].isdigit():
            j += 1
        return "{" + text[i:j] + "}", j
    if _is_mathchar(ch):
        tex, j = _symbol(text, i, strict)
        return "{" + tex + "}", j
    return "", i


def _symbol(text: str, i: int, strict: bool) -> tuple[str, int]:
    """One math character (with a following combining accent) at ``text[i]`` as math-mode LaTeX."""
    ch = text[i]
    base = MATH_SYMBOLS.get(ch)
    if base is None and ch.isascii():
        base = _MATH_ASCII.get(ch, ch)
    for table, mark in ((_SUPERSCRIPTS, "^"), (_SUBSCRIPTS, "_")):
        if ch in table:  # a run of super- or subscript characters: one group (x⁻¹ → x^{-1})
            j = i
            while j < len(text) and text[j] in table:
                j += 1
            inner = "".join(table[c] + " " if table[c].startswith("\\") else table[c] for c in text[i:j])
            return mark + "{" + inner.strip() + "}", j
    if base is None:
        base = _unknown(ch, strict)
    j = i + 1
    while j < len(text) and text[j] in _ACCENTS:
        base = _ACCENTS[text[j]] + "{" + base + "}"
        j += 1
    return base + (" " if base[-1:].isalpha() and base.startswith("\\") else ""), j


def _math_run(text: str, strict: bool) -> str:
    """``text`` entirely in math mode (for braced groups)."""
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch in "_^":
            a, i = _atom(text, i + 1, strict)
            out.append(ch + (a or "{}"))
        elif ch == " ":
            out.append(" ")
            i += 1
        else:
            tex, i = _symbol(text, i, strict)
            out.append(tex)
    return "".join(out).strip()


def to_latex(text, strict: bool = False) -> str:
    """Claim text → LaTeX: text mode, with every run of mathematics in one ``$…$``."""
    text = str(text)
    segs: list[list] = []  # [kind, latex] with kind "t" (text) or "m" (math)

    def emit(kind: str, tex: str):
        if segs and segs[-1][0] == kind == "m" and tex[:2] in ("^{", "_{"):
            # a second superscript (G*⁻¹) or subscript joins the first: G^{*-1}, never a double superscript
            m = re.search(re.escape(tex[0]) + r"\{([^{}]*)\}$", segs[-1][1])
            if m:
                segs[-1][1] = segs[-1][1][:m.start()] + tex[0] + "{" + m.group(1) + tex[2:]
                return
        if segs and segs[-1][0] == kind:
            segs[-1][1] += tex
        else:
            segs.append([kind, tex])

    def pull_word_into_math():
        """The ASCII word just before a ``_``/``^``/``*`` joins the mathematics (He_1, q*, x_i)."""
        if segs and segs[-1][0] == "t":
            m = re.search(r"([A-Za-z0-9]+)('*)$", segs[-1][1])
            if m and not segs[-1][1][:m.start()].endswith("\\"):
                word, primes = m.group(1), m.group(2)
                segs[-1][1] = segs[-1][1][:m.start()]
                if not segs[-1][1]:
                    segs.pop()
                emit("m", _word_math(word) + primes)
                return True
            if segs[-1][1].endswith((")", "'", "]")):  # BN(X)_ij: a subscript on the bracket
                emit("m", "{}")
                return True
        return bool(segs) and segs[-1][0] == "m"

    i = 0
    while i < len(text):
        ch = text[i]
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if ch in "_^" and nxt and (nxt.isalnum() or nxt in "{*+-" or _is_mathchar(nxt)) and i > 0 \
                and not text[i - 1].isspace() and pull_word_into_math():
            a, j = _atom(text, i + 1, strict)
            if a:
                emit("m", ch + a)
                i = j
                continue
        if ch == "*" and i > 0 and (text[i - 1].isalpha() or _is_mathchar(text[i - 1]) or text[i - 1] == "}") \
                and not (nxt.isascii() and nxt.isalnum()) and pull_word_into_math():
            emit("m", "^{*}")
            i += 1
            continue
        if (ch in _SUPERSCRIPTS or ch in _SUBSCRIPTS) and i > 0 and not text[i - 1].isspace():
            pull_word_into_math()  # r⁻², z₁, a_i²: the base joins the mathematics
        if _is_mathchar(ch):
            if ch in _ACCENTS:  # a combining accent on an ASCII letter: ā
                if segs and segs[-1][0] == "t" and segs[-1][1][-1:].isalpha():
                    letter = segs[-1][1][-1]
                    segs[-1][1] = segs[-1][1][:-1]
                    if not segs[-1][1]:
                        segs.pop()
                    emit("m", _ACCENTS[ch] + "{" + letter + "}")
                    i += 1
                    continue
            if ch in ("′", "″", "‴") and not (segs and segs[-1][0] == "m"):
                emit("t", "'" * (1 + "′″‴".index(ch)))
                i += 1
                continue
            tex, i = _symbol(text, i, strict)
            emit("m", tex)
            continue
        if ch.isascii():
            emit("t", _TEXT_SPECIAL.get(ch, ch))
        elif ch in TEXT_SYMBOLS:
            emit("t", TEXT_SYMBOLS[ch])
        else:
            emit("t", _unknown(ch, strict))
        i += 1
    out = []
    for kind, tex in segs:
        out.append(tex if kind == "t" else "$" + tex.strip() + "$")
    return "".join(out)


# --------------------------------------------------------------------------------------------
# numbers and tables
# --------------------------------------------------------------------------------------------

def _is_number(v) -> bool:
    if isinstance(v, bool) or v is None:
        return False
    if isinstance(v, (int, float)):
        return math.isfinite(float(v))
    if hasattr(v, "item") and getattr(v, "ndim", 1) == 0:
        return _is_number(v.item())
    return False


def format_number(v, digits: int = 6) -> str:
    """A finite number for an siunitx ``S`` column: ``digits`` significant digits, exponent form outside
    [1e-3, 1e5)."""
    v = float(v.item() if hasattr(v, "item") else v)
    if v == int(v) and abs(v) < 1e5:
        return str(int(v))
    if v != 0 and (abs(v) < 1e-3 or abs(v) >= 1e5):
        mant, exp = f"{v:.{digits - 1}e}".split("e")
        mant = mant.rstrip("0").rstrip(".") if "." in mant else mant
        return f"{mant}e{int(exp)}"
    s = f"{v:.{digits}g}"
    if "e" in s:  # %g chose exponent form for a value near the boundary
        return format_number(v, digits) if abs(v) >= 1e5 else f"{v:.{digits}f}".rstrip("0").rstrip(".")
    return s


def _table_format(cells: list[str]) -> str:
    """siunitx ``table-format`` wide enough for every formatted cell of a column."""
    sign = any(c.startswith("-") for c in cells)
    ints = decs = exps = 0
    exp_sign = False
    for c in cells:
        c = c.lstrip("-")
        mant, _, exp = c.partition("e")
        a, _, b = mant.partition(".")
        ints, decs = max(ints, len(a)), max(decs, len(b))
        if exp:
            exp_sign = exp_sign or exp.startswith("-")
            exps = max(exps, len(exp.lstrip("+-")))
    fmt = ("-" if sign else "") + f"{max(ints, 1)}.{decs}"
    if exps:
        fmt += "e" + ("-" if exp_sign else "") + str(exps)
    return fmt


def _caption(text: str) -> str:
    """The paper's own table name moves to the end: LaTeX numbers the table itself (no "Table 1: Table 2: …")."""
    m = re.match(r"^\s*((?:Table|Fig\.?|Figure)\s+[A-Z]?[\w.]*)\s*[:—–-]\s*(.*)$", text)
    if m:
        return f"{m.group(2)} (the paper's {m.group(1)})"
    return text


def _label(*parts) -> str:
    return "tab:" + ":".join(re.sub(r"[^A-Za-z0-9-]+", "-", str(p)).strip("-") for p in parts)


def latex_table(caption: str, header: list, rows: list[list], label: str, raw_cols: tuple = (), digits: int = 6,
                strict: bool = False, long_from: int = 30) -> str:
    """One booktabs table: numeric columns as siunitx ``S`` (a computed table-format), others text; more than
    ``long_from`` rows become a ``longtable`` (never truncated)."""
    ncol = len(header)
    rows = [list(r) + [""] * (ncol - len(r)) for r in rows]
    numeric = [bool(rows) and all(_is_number(r[i]) or r[i] in ("", None) for r in rows)
               and any(_is_number(r[i]) for r in rows) and i not in raw_cols for i in range(ncol)]
    cells = []
    for r in rows:
        out = []
        for i, c in enumerate(r):
            if i in raw_cols:
                out.append(f"${c}$")
            elif numeric[i]:
                out.append(format_number(c, digits) if _is_number(c) else "{}")
            elif _is_number(c):
                out.append(format_number(c, digits))
            else:
                out.append(to_latex("" if c is None else c, strict))
            if out[-1].startswith("["):  # after the previous row's \\ a '[' would be read as its optional argument
                out[-1] = "{}" + out[-1]
        cells.append(out)
    spec = []
    for i in range(ncol):
        if numeric[i]:
            spec.append("S[table-format=" + _table_format([r[i] for r in cells if r[i] != "{}"]) + "]")
        else:
            spec.append("l")
    head = " & ".join(("{" + to_latex(h, strict) + "}") if numeric[i] else to_latex(h, strict)
                      for i, h in enumerate(header)) + r" \\"
    body = [" & ".join(r) + r" \\" for r in cells]
    cap = r"\caption{" + to_latex(_caption(caption), strict) + r"}\label{" + label + "}"
    if len(rows) > long_from:
        lines = [r"\begin{longtable}{" + "".join(spec) + "}", cap + r"\\", r"\toprule", head, r"\midrule",
                 r"\endfirsthead", r"\toprule", head, r"\midrule", r"\endhead", r"\bottomrule", r"\endlastfoot",
                 *body, r"\end{longtable}"]
    else:
        lines = [r"\begin{table}[htbp]", r"\centering", r"\small", cap, r"\begin{tabular}{" + "".join(spec) + "}",
                 r"\toprule", head, r"\midrule", *body, r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines)


PREAMBLE = [r"\documentclass{article}", r"\usepackage[margin=2cm,landscape]{geometry}",
            r"\usepackage{booktabs,longtable}", r"\usepackage{siunitx}", r"\usepackage{amsmath,amssymb}",
            r"\sisetup{group-digits=false}"]
_STATUS = {"holds": "holds", "violated": "VIOLATED", "hypotheses-not-met": "hypotheses not met",
           "inconclusive": "inconclusive", "error": "ERROR (the check crashed)"}


def render(verdicts: list[Verdict], claims: dict[str, Claim], standalone: bool = False, digits: int = 6,
           strict: bool = False, evidence: bool = True) -> str:
    """The LaTeX of a report: a fragment to ``\\input`` (needs booktabs, longtable, siunitx, amssymb — listed in its
    first lines) or, with ``standalone``, a compilable document."""
    parts = ["% deepinit-verify tables. Needs: \\usepackage{booktabs,longtable,siunitx,amsmath,amssymb}"]
    if standalone:
        parts = PREAMBLE + [r"\begin{document}", r"\section*{deepinit-verify report}"]
    for v in verdicts:
        c = claims.get(v.claim_id)
        paper, name = v.claim_id.split(":", 1)
        parts.append(r"\paragraph{" + to_latex(f"{v.claim_id}: {_STATUS[v.status]}.", strict) + "}")
        if c is not None:
            parts.append(to_latex(c.title, strict) + r"\par")
        parts.append(to_latex(v.summary, strict) + r"\par")
        for k, t in enumerate(v.tables, 1):
            caption, header, rows = t[0], t[1], t[2]
            raw = tuple(t[3]) if len(t) > 3 else ()
            parts.append(latex_table(caption, header, rows, _label(paper, name, k), raw, digits, strict))
        if evidence and v.evidence:
            rows = [[e.name, e.theory if _is_number(e.theory) else "", e.numeric if _is_number(e.numeric) else "",
                     e.slack if _is_number(e.slack) else "", e.samples if _is_number(e.samples) else "",
                     {True: "ok", False: "FAIL", None: "info"}[e.passed]] for e in v.evidence]
            parts.append(latex_table(f"Evidence for {v.claim_id}", ["quantity", "theory", "numeric", "slack",
                                                                    "samples", "row"], rows,
                                     _label(paper, name, "evidence"), digits=digits, strict=strict))
        for er in v.errata:
            parts.append(r"\noindent\textbf{Erratum} "
                         + to_latex(f"({er.location}): printed {er.printed}; found {er.found}.", strict) + r"\par")
    if standalone:
        parts.append(r"\end{document}")
    return "\n\n".join(parts) + "\n"
