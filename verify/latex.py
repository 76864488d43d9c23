"""LaTeX that drops into a paper: claim text in text mode with its mathematics in math mode, tables with booktabs and
siunitx, labels and captions once, no silent row caps.

* :func:`to_latex` — one symbol table (:data:`MATH_SYMBOLS`, :data:`TEXT_SYMBOLS`): Greek letters, operators, sub- and
  superscripts, blackboard and script letters, combining accents (σ̄ → ``\\bar{\\sigma}``). A run of mathematics —
  including ASCII attached to it by ``_``, ``^`` or a trailing ``*`` (β_σ, He_1, λ_max, q*, G_*^0), a variable set to
  numbers (B = 4, 8, 32; ρ₀ = 0.5), a number in e-notation (1e-12 → 10⁻¹²) and neighbouring formulas joined by a
  relation — becomes one ``$…$``. An unknown non-ASCII character raises :class:`LatexError` with ``strict=True``
  (the tests) and is printed visibly as ``[U+XXXX]`` otherwise — never a silent ``?``.
* :func:`latex_table` — a booktabs ``table`` (never a longtable: one pdflatex pass): numeric columns as siunitx ``S``
  in one notation per column with the uncertainty where there is one (:func:`format_column`), formulas and
  activations in math mode and named as the papers name them (:func:`cell_latex`, :func:`activation_name`),
  derived closed forms simplified (:func:`sympy_latex`), long tables continued under the same number.
* :func:`render` — what a paper ``\\input``s: each verdict's tables with ``\\caption`` and
  ``\\label{tab:<paper>:<claim>:<k>}``; with ``prose`` (``--latex-prose``) also each claim's title, verdict,
  evidence table and errata; a fragment (default) or a standalone document.
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
    "≤": r"\le", "≥": r"\ge", "≈": r"\approx", "≠": r"\ne", "≲": r"\lesssim", "≳": r"\gtrsim", "≡": r"\equiv", "≻": r"\succ",
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
    "′": "'", "″": r"^{\prime\prime}", "‴": r"^{\prime\prime\prime}", "✓": r"\checkmark", "✗": r"\times",
    "ā": r"\bar{a}", "ē": r"\bar{e}", "ĉ": r"\hat{c}", "â": r"\hat{a}", "ŷ": r"\hat{y}",
    "¼": r"\tfrac14", "½": r"\tfrac12", "¾": r"\tfrac34", "†": r"^{\dagger}", "‡": r"^{\ddagger}",
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
#: text characters met inside a formula (t(…), a range a–b)
_TEXT_IN_MATH = {"…": r"\dots", "–": "-", "—": "-", "’": "'", "\u00a0": "~"}
_MATH_ASCII = {"{": r"\{", "}": r"\}", "|": "|", "#": r"\#", "%": r"\%", "&": r"\&", "~": r"\sim", "\\": r"\backslash"}


class LatexError(ValueError):
    """A character with no LaTeX form in the symbol table (strict mode)."""


#: binary operators and relations: a plain number on either side of one belongs to the same formula (1 − c^l, → 1)
_BINARY = frozenset("−×·≠≤≥→↦≈±∓⇒")
_OPERAND = re.compile(r"\s*(\d+(?:\.\d+)?)(?![\w.])")


def _is_mathchar(ch: str) -> bool:
    return ch in MATH_SYMBOLS or ch in _SUPERSCRIPTS or ch in _SUBSCRIPTS or ch in _ACCENTS


def _unknown(ch: str, strict: bool) -> str:
    if strict:
        name = unicodedata.name(ch, "?")
        raise LatexError(f"no LaTeX form for {ch!r} (U+{ord(ch):04X} {name}); add it to verify/latex.py")
    return r"\texttt{[U+%04X]}" % ord(ch)


_OPERATORS = {"max", "min", "sup", "inf", "log", "ln", "exp", "det", "lim", "sin", "cos", "tan", "sinh", "cosh",
              "tanh", "arg", "arccos", "arcsin", "arctan", "lg"}
#: two-letter names set upright in formulas (other two-letter lower-case runs are products: tK, dt)
_UPRIGHT = {"tr", "sd", "KS", "TV", "BN", "LN", "MP", "He"}


def _word_math(word: str) -> str:
    """An ASCII word that became mathematics (λ_max → λ_{\\max}, He_1, G_ij → G_{ij}): see :func:`_formula_word`."""
    return _formula_word(word)


def _snake_name(text: str, i: int) -> int:
    """End of a snake_case name starting at ``text[i]`` (``leaky_relu``: words of three or more letters joined by
    ``_``), or ``i`` when there is none — a name, not a subscript."""
    m = re.compile(r"[A-Za-z][A-Za-z0-9]{2,}(?:_[A-Za-z][A-Za-z0-9]{2,})+"
                   r"|[A-Za-z][A-Za-z0-9]+(?:_[A-Za-z][A-Za-z0-9]{2,}){2,}").match(text, i)  # bn_sphere_grams too
    return m.end() if m and (i == 0 or not text[i - 1].isalnum()) else i


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
        base = _TEXT_IN_MATH.get(ch)
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


def _match(text: str, p: int) -> int:
    """Index of the bracket closing ``text[p]`` (any of ``([{``, nesting of all three counted), or -1."""
    depth = 0
    for q in range(p, len(text)):
        if text[q] in "([{":
            depth += 1
        elif text[q] in ")]}":
            depth -= 1
            if depth == 0:
                return q
            if depth < 0:
                return -1
    return -1


def _opener(text: str, q: int) -> int:
    """Index of the bracket opening the unmatched closer at ``text[q]``, or -1."""
    depth = 0
    for p in range(q, -1, -1):
        if text[p] in ")]}":
            depth += 1
        elif text[p] in "([{":
            depth -= 1
            if depth == 0:
                return p
    return -1


def _formula_spans(text: str) -> list[tuple[int, int]]:
    """Spans of ``text`` that are function applications or bracketed expressions attached to a symbol — ``σ̄(1)``,
    ``sqrt(n/d)``, ``b*(1 − c*)``, ``d^(−1/2)``, ``P(D ≥ tK·ε ln 1/ε)`` — to be set in math mode as a whole (a
    parenthesis glued to text is what a reader and chktex read as a formula). A span is the whitespace-free token
    holding such a ``(`` widened to its balanced closing bracket and any suffix glued to it (``)²``, ``(x)He_m(y)``)."""
    spans: list[list[int]] = []
    n = len(text)
    for p, ch in enumerate(text):
        if ch != "(" or p == 0 or text[p - 1].isspace() or text[p - 1] in "([{'\"“‘":
            continue
        q = _match(text, p)
        if q < 0:
            continue
        if text[p - 1] in "–—" and p > 1 and text[p - 2] == ")":  # (13)–(15): a range of equations
            continue
        s = p
        while True:  # back to the start of the token, taking in any bracket closed inside it: (B−2)/(B−3)
            while s > 0 and not text[s - 1].isspace() and text[s - 1] not in "([{,;'\"“‘":
                s -= 1
            depth, unmatched = 0, -1
            for k in range(s, q + 1):
                depth += (text[k] in "([{") - (text[k] in ")]}")
                if depth < 0:
                    unmatched = k
                    break
            if unmatched < 0:
                break
            o = _opener(text, unmatched)
            if o < 0:
                break
            s = o
        e = q + 1
        while e < n and not text[e].isspace() and text[e] not in ",;'\"”’":
            c = text[e]
            if c in ".:!?" and (e + 1 == n or text[e + 1].isspace() or text[e + 1] in "\"”’)"):
                break
            if c == "-" and re.match(r"-[A-Za-z]{3}", text[e:e + 4]):  # B(B−3)/2-dimensional: a compound word
                break
            if c in "([{":
                m = _match(text, e)
                if m < 0:
                    break
                e = m + 1
                continue
            if c in ")]}":
                break
            e += 1
        if spans and s <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], e)
        else:
            spans.append([s, e])
    return [(a, b) for a, b in spans]


def _code_or_math(span: str, strict: bool) -> str:
    """A formula span as math-mode LaTeX (without the dollars)."""
    out, i = [], 0
    n = len(span)
    # Python-style code (x*erf(x), 3*V12*phi2**2) multiplies with '*'; prose marks fixed points (b*(1 − c*), c*11ᵀ)
    code = "**" in span or re.search(r"\d\*[A-Za-z]|[A-Za-z]{2,}\*|\*[A-Za-z]{2,}", span) is not None
    while i < n:
        ch = span[i]
        if ch.isascii() and ch.isalpha():
            j = _snake_name(span, i)
            if j > i:  # leaky_relu(x): a name
                out.append(r"\mathrm{" + span[i:j].replace("_", r"\_") + "}")
                i = j
                continue
            while j < n and span[j].isascii() and span[j].isalnum():
                j += 1
            word = span[i:j]
            if word == "sqrt" and j < n and span[j] == "(":
                q = _match(span, j)
                if q > 0:
                    out.append(r"\sqrt{" + _code_or_math(span[j + 1:q], strict) + "}")
                    i = q + 1
                    continue
            out.append(_formula_word(word))
            i = j
            continue
        if ch == "*":
            if span[i:i + 2] == "**":  # Python's power
                a, i = _group(span, i + 2, strict)
                out.append("^" + a)
                continue
            prev = span[i - 1] if i else ""
            nxt = span[i + 1] if i + 1 < n else ""
            if not code and prev and (prev.isalnum() or prev in ")]}" or _is_mathchar(prev)):
                out.append("^{*}")
            else:
                out.append(r"\cdot ")
            i += 1
            continue
        if ch in "_^":
            a, i = _group(span, i + 1, strict)
            out.append(ch + (a or "{}"))
            continue
        if ch in "′″‴'":
            k = {"′": 1, "″": 2, "‴": 3, "'": 1}[ch]
            out.append("'" if k == 1 else "^{" + r"\prime" * k + "}")
            i += 1
            continue
        if ch == " ":
            out.append(" ")
            i += 1
            continue
        if ch in _ACCENTS and out and out[-1].strip():  # G̃: an accent on the letter just written
            out[-1] = _ACCENTS[ch] + "{" + out[-1].strip() + "}"
            i += 1
            continue
        tex, i = _symbol(span, i, strict)
        out.append(tex)
    tex = brace_powers(re.sub(r" +", " ", "".join(out)).strip())
    return re.sub(r"([_^])\{([^{}]*)\}\1\{", r"\1{\2", tex)  # G*^(−1/2) → G^{*-1/2}, never a double superscript


def _formula_word(word: str) -> str:
    """An ASCII word inside a formula: digits and single letters as they are, operators as commands, capitalised or
    long words upright (He, sigmoid), short lower-case runs as products of variables (tK)."""
    if len(word) <= 1 or word.isdigit() or re.fullmatch(r"[A-Za-z]\d+", word):
        return word  # x, 12, G0, a11 (an index)
    m = re.fullmatch(r"(\d+)([A-Za-z].*)", word)  # 2d, 50eps: a coefficient and a name
    if m:
        return m.group(1) + _formula_word(m.group(2))
    if word in _OPERATORS:
        return "\\" + word + " "
    if word in _UPRIGHT:
        return r"\mathrm{" + word + "}"
    if len(word) == 2 and not (word[0].isupper() and word[1].islower()):
        return word
    return r"\mathrm{" + word + "}"


def _group(text: str, i: int, strict: bool) -> tuple[str, int]:
    """The super- or subscript starting at ``text[i]``: a parenthesised group (``d^(−1/2)`` → ``d^{-1/2}``) or an
    atom."""
    if i < len(text) and text[i] == "(":
        q = _match(text, i)
        if q > 0:
            return "{" + _code_or_math(text[i + 1:q], strict) + "}", q + 1
    if i < len(text) and text[i].isascii() and text[i].isalpha():
        j = i
        while j < len(text) and text[j].isascii() and text[j].isalnum():
            j += 1
        return "{" + _formula_word(text[i:j]) + "}", j
    return _atom(text, i, strict)


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

    spans = dict(_formula_spans(text))
    taken = [range(a, b) for a, b in spans.items()]
    # a variable set to numbers (B = 4, ρ₀ = 0.5, B ∈ {4, 8}) and a number in e-notation (1e-12) are one formula
    for m in list(_EQUATION.finditer(text)) + list(_SCI_NUMBER.finditer(text)):
        if not any(m.start() in r or m.end() - 1 in r for r in taken):
            spans[m.start()] = m.end()
            taken.append(range(m.start(), m.end()))
    i = 0
    while i < len(text):
        if i in spans:
            chunk = text[i:spans[i]]
            if _EQUATION.fullmatch(chunk) or _SCI_NUMBER.fullmatch(chunk):
                emit("m", _equation_math(chunk, strict))
            else:
                emit("m", _code_or_math(chunk, strict))
            i = spans[i]
            continue
        ch = text[i]
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if ch == "-" and nxt == "-":  # --latex: two hyphens, not an en dash
            emit("t", "-{}")
            i += 1
            continue
        if ch == "−" and nxt.isdigit() and (i == 0 or text[i - 1] in " ([{,;"):  # −2: a negative number
            m = re.compile(r"\d+(?:\.\d+)?").match(text, i + 1)
            emit("m", "-" + m.group(0))
            i = m.end()
            continue
        j = _snake_name(text, i) if ch.isascii() and ch.isalpha() else i
        if j > i:  # leaky_relu stays a name in text
            emit("t", text[i:j].replace("_", r"\_"))
            i = j
            continue
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
        if _is_mathchar(ch) and ch not in _ACCENTS and ch not in _SUPERSCRIPTS and ch not in _SUBSCRIPTS \
                and segs and segs[-1][0] == "t":
            m = re.search(r"(?<![A-Za-z0-9.\\])\d+$", segs[-1][1])
            if m:  # 16ξ, 2π: the coefficient joins the symbol
                segs[-1][1] = segs[-1][1][:m.start()]
                if not segs[-1][1]:
                    segs.pop()
                emit("m", m.group(0))
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
            if ch in _BINARY and segs and segs[-1][0] == "t":
                m = re.search(r"(?<![A-Za-z0-9.\\])(\d+(?:\.\d+)?|[B-HJ-Zb-z])\s*$", segs[-1][1])
                if m:  # 1 − c^l, n − 1: the number or one-letter variable before an operator joins the mathematics
                    segs[-1][1] = segs[-1][1][:m.start()]
                    if not segs[-1][1]:
                        segs.pop()
                    emit("m", m.group(1) + " ")
            tex, i = _symbol(text, i, strict)
            emit("m", tex)
            if ch in _BINARY:
                m = _OPERAND.match(text, i)
                if m and i not in spans:  # → 1, ≤ 0.5: the number after an operator too
                    emit("m", (" " if tex[-1:] != " " else "") + m.group(1))
                    i = m.end()
            continue
        if ch == ":" and nxt == "=":  # a definition, v* := q*(1 − c*)
            emit("m", ":=")
            i += 2
            continue
        if ch == "(" and i > 1 and text[i - 1] in "–—" and text[i - 2] == ")":
            q = _match(text, i)  # eqs (13)–(15): the second reference braced, so the dash does not glue to it
            if q > 0:
                emit("t", "{" + to_latex(text[i:q + 1], strict) + "}")
                i = q + 1
                continue
        if ch == "–" and i > 0 and text[i - 1].isalpha() and nxt.isalpha():  # Marchenko–Pastur: a name pair
            emit("t", r"\textendash{}")
            i += 1
            continue
        if ch == '"':  # an opening quote after a space or bracket, a closing one otherwise
            emit("t", "``" if i == 0 or text[i - 1].isspace() or text[i - 1] in "([{" else "''")
            i += 1
            continue
        if ch.isascii():
            emit("t", _TEXT_SPECIAL.get(ch, ch))
        elif ch in TEXT_SYMBOLS:
            emit("t", TEXT_SYMBOLS[ch])
        else:
            emit("t", _unknown(ch, strict))
        i += 1
    out = []
    for kind, tex in _merge_math(segs):
        if kind == "t":
            # a capital before a full stop or colon ends a sentence (ReLU., BN:); a short lower-case word before a full
            # stop and a lower-case word is an abbreviation (abs. difference, e.g. the)
            tex = re.sub(r"(?<=[A-Z])([.:;!?])(?=\s|$)", r"\\@\1", tex)
            tex = re.sub(r"(?<=\d)-(?=\d)", "{-}", tex)  # eq2-6 in a claim id: a hyphen, not a range
            tex = re.sub(r"(?<![A-Za-z])([a-z]{1,4}(?:\.[a-z])?)\. (?=[a-z(])", r"\1.\\ ", tex)
            out.append(tex)
        else:
            out.append("$" + tex.strip() + "$")
    return "".join(out)


_NUM = r"[−-]?\d+(?:\.\d+)?(?:[eE][−+-]?\d+)?(?:/\d+)?"
_LHS = r"(?:[A-Za-z]|[\u0370-\u03ff])(?:_(?:\{[^{}]*\}|[A-Za-z0-9]+|[\U0001d538-\U0001d56b]|[\u0370-\u03ff])|[₀-₉]+)?[*′]?"
#: ``B = 4``, ``ρ₀ = 0.5``, ``λ_𝔾 < 1e-12``, ``B = 4, 8, 32``, ``B ∈ {4, 8}``: a variable and its numbers
_EQUATION = re.compile(r"(?<![\w\\*^_'’.])" + _LHS + r" ?(?:(?:[=<>≤≥≈≠]) ?(?:" + _NUM + r"(?:, " + _NUM + r")*|[A-Za-z])"
                       r"(?![\w(])"
                       r"|∈ ?(?:\{" + _NUM + r"(?:, " + _NUM + r")*\}|\[" + _NUM + r"(?:, " + _NUM + r")*\]))")
#: a number in e-notation in text (1e-12, 2.5e3): × 10^k in math
_SCI_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)[eE]([−+-]?\d+)(?!\w|\.\d)")


def _sci_math(num: str) -> str:
    """A number as math-mode LaTeX: ``1e-12`` → ``10^{-12}``, ``2.5e3`` → ``2.5 \\times 10^{3}``, ``−4`` → ``-4``."""
    num = num.replace("−", "-")
    m = re.fullmatch(r"(-?)(\d+(?:\.\d+)?)[eE]([+-]?\d+)", num)
    if not m:
        return num
    sign, mant, exp = m.group(1), m.group(2), str(int(m.group(3)))
    return sign + ("" if mant == "1" else mant + r" \times ") + "10^{" + exp + "}"


def _equation_math(chunk: str, strict: bool) -> str:
    """A :data:`_EQUATION` or :data:`_SCI_NUMBER` match as math-mode LaTeX."""
    if _SCI_NUMBER.fullmatch(chunk):
        return _sci_math(chunk)
    m = re.match(_LHS, chunk)
    lhs, rest = m.group(0), chunk[m.end():].strip()
    op = rest[0]
    rhs = rest[1:].strip()
    rhs = re.sub(_NUM, lambda n: _sci_math(n.group(0)), rhs)
    if op == "∈":
        rhs = rhs.replace("{", r"\{").replace("}", r"\}")
    op_tex = {"=": "=", "<": "<", ">": ">"}.get(op) or MATH_SYMBOLS[op].strip()
    return _code_or_math(lhs, strict) + " " + op_tex + " " + rhs


_JOIN = re.compile(r"\s*(=|\+|\\textless\{\}|\\textgreater\{\}|)\s*")
_TRAIL = re.compile(r"(\s*)(=|\\textless\{\}|\\textgreater\{\})\s*(-?\d+(?:\.\d+)?)(?![\w(/^_]|\.\d)")


def _merge_math(segs: list[list]) -> list[list]:
    """Neighbouring formulas joined by a space or a relation (``E σ² − Σ c_k²``, ``φ″(0)² + φ‴(0)``,
    ``det(D) = ∏ a_i²``) become one formula, and a formula compared with a number (``max(λ_𝕃, λ_𝕄) < 1``) takes the
    number in: one ``$…$``, the spacing of an equation."""
    rel = {"\\textless{}": "<", "\\textgreater{}": ">"}
    out: list[list] = []
    for kind, tex in segs:
        if kind == "m" and len(out) >= 2 and out[-1][0] == "t" and out[-2][0] == "m" and out[-1][1] \
                and _JOIN.fullmatch(out[-1][1]):
            op = _JOIN.fullmatch(out[-1][1]).group(1)
            out.pop()
            out[-1][1] = out[-1][1].rstrip() + (f" {rel.get(op, op)} " if op else " ") + tex.lstrip()
            continue
        if kind == "t" and out and out[-1][0] == "m" and re.search(r"(\\le|\\ge|\\approx|\\ne|[<>=])\s*$", out[-1][1]):
            m = re.match(r"\s*(-?\d+(?:\.\d+)?)(?![\w(/^_]|\.\d)", tex)  # ≤ 0: the bound joins its relation
            if m:
                out[-1][1] = out[-1][1].rstrip() + " " + m.group(1)
                tex = tex[m.end():]
                if not tex:
                    continue
        if kind == "t" and out and out[-1][0] == "m":
            m = _TRAIL.match(tex)
            if m:
                out[-1][1] = out[-1][1].rstrip() + f" {rel.get(m.group(2), m.group(2))} {m.group(3)}"
                tex = tex[m.end():]
                if not tex:
                    continue
        out.append([kind, tex])
    return out


def brace_powers(tex: str) -> str:
    r"""``(…)^{2}`` → ``{(…)}^{2}``, ``(X)_{ij}`` → ``{(X)}_{ij}`` and ``\left(…\right)^{2}`` → ``{\left(…\right)}^{2}``: a power of a bracket,
    braced as chktex asks (the output is unchanged)."""
    out, k = tex, _power_of_bracket(tex, 0)
    while k >= 0:
        depth, j = 0, k
        while j >= 0:
            depth += (out[j] == ")") - (out[j] == "(")
            if depth == 0:
                break
            j -= 1
        if j < 0:
            k = _power_of_bracket(out, k + 2)
            continue
        if out[:j].endswith(r"\left"):
            j -= len(r"\left")
        out = out[:j] + "{" + out[j:k + 1] + "}" + out[k + 1:]
        k = _power_of_bracket(out, k + 3)
    return out


def _power_of_bracket(tex: str, start: int) -> int:
    m = re.compile(r"\)[_^]").search(tex, start)
    return m.start() if m else -1


# --------------------------------------------------------------------------------------------
# names and closed forms, as the papers print them
# --------------------------------------------------------------------------------------------

#: registry names → the names papers give them (he_k, k ≥ 2, is the normalised Hermite polynomial He_k/√k!)
_ACTIVATION_NAMES = {"relu": "ReLU", "gelu": "GELU", "selu": "SELU", "elu": "ELU", "celu": "CELU", "silu": "SiLU",
                     "swish": "swish", "sigmoid": "sigmoid", "softplus": "softplus", "step": "step",
                     "identity": "x", "linear": "x", "he0": "He_0(x) = 1", "he1": "He_1(x) = x"}
#: within a group of names for one function, the paper's name first (ELU = CELU, SiLU = swish)
_NAME_ORDER = {"celu": 1, "swish": 1, "identity": 1, "linear": 1}
_FUNCTION_WORDS = _OPERATORS | {"erf", "sqrt", "He", "sgn", "sign"}


def activation_name(names) -> str:
    """The name papers give an activation, as plain text for tables and captions.

    ``relu`` → ReLU, ``leaky_relu`` → leaky ReLU (slope 0.01), ``he1``/``identity`` → He_1(x) = x, ``he3`` →
    He_3/sqrt(3!), ``tanh(2*x)`` → tanh(2x); :func:`cell_latex` typesets it (names as text, formulas in math mode).

    Parameters
    ----------
    names : str or sequence of str
        A registry name or a formula, or the names of one function (a group, joined by " = ").

    Returns
    -------
    str
        The name.

    Examples
    --------
    >>> from verify.api import activation_name
    >>> activation_name("relu"), activation_name("tanh(2*x)")
    ('ReLU', 'tanh(2x)')
    """
    names = [names] if isinstance(names, str) else list(names)
    if "he1" in names:
        return _ACTIVATION_NAMES["he1"]
    out: list[str] = []
    for n in sorted(names, key=lambda n: _NAME_ORDER.get(n, 0)):
        d = _one_activation_name(n)
        if d not in out:
            out.append(d)
    return " = ".join(out)


def _one_activation_name(name: str) -> str:
    if name in _ACTIVATION_NAMES:
        return _ACTIVATION_NAMES[name]
    m = re.fullmatch(r"he(\d+)", name)
    if m:
        return f"He_{m.group(1)}/sqrt({m.group(1)}!)"
    if name == "leaky_relu":
        try:
            import numpy as np

            import theory
            slope = -float(theory.activation(name).numpy(np.array([-1.0]))[0])
            return f"leaky ReLU (slope {slope:g})"
        except Exception:  # noqa: BLE001 — a name is still a name
            return "leaky ReLU"
    if name in _FUNCTION_WORDS:
        return name
    s = str(name).replace("**", "^")
    s = re.sub(r"(\d)\s*\*\s*(?=[A-Za-z(])", r"\1", s)  # 2*x → 2x
    return re.sub(r"\s*\*\s*", " ", s)                  # x*erf(x) → x erf(x)


def sympy_latex(expr) -> str:
    r"""A derived closed form in LaTeX, simplified as a paper prints it.

    The simplest of sympy's ``simplify``, ``factor``, ``cancel``, partial fractions and quotient-plus-remainder in e and
    π (fewest operations, then leading terms positive), printed highest power first.

    Parameters
    ----------
    expr : sympy expression or str
        The closed form.

    Returns
    -------
    str
        Its LaTeX (math mode without delimiters).

    Examples
    --------
    >>> import sympy as sp
    >>> from verify.api import sympy_latex
    >>> sympy_latex((3 * sp.pi - 4) / (2 * sp.pi - 2))
    '\\frac{3 \\pi - 4}{2 \\pi - 2}'
    """
    import sympy as sp
    expr = sp.nsimplify(sp.sympify(expr), rational=False)
    cands = [expr]
    for f in (sp.simplify, sp.factor, sp.cancel):
        try:
            cands.append(f(expr))
        except Exception:  # noqa: BLE001 — a candidate less
            pass
    for const in (sp.E, sp.pi):
        if not expr.has(const):
            continue
        t = sp.Dummy("t", positive=True)
        try:
            f = sp.cancel(sp.together(expr.subs(const, t)))
            num, den = sp.fraction(f)
            if not (num.is_polynomial(t) and den.is_polynomial(t) and den.has(t)):
                continue
            q, r = sp.div(sp.Poly(num, t), sp.Poly(den, t))
            sgn = -1 if sp.Poly(den, t).LC().is_negative else 1
            cands += [(q.as_expr() + sgn * r.as_expr() / sp.expand(sgn * den)).subs(t, const),
                      (sgn * num / sp.expand(sgn * den)).subs(t, const), sp.apart(f, t).subs(t, const),
                      sp.factor(f).subs(t, const)]
        except Exception:  # noqa: BLE001
            continue

    def negative_leads(c) -> int:
        n = 0
        for part in sp.fraction(c):
            for const in (sp.E, sp.pi):
                if part.has(const):
                    t = sp.Dummy("t")
                    p = part.subs(const, t)
                    if p.is_polynomial(t) and sp.Poly(p, t).LC().is_negative:
                        n += 1
        return n

    best = min(cands, key=lambda c: (sp.count_ops(c), negative_leads(c), len(sp.latex(c, order="rev-lex"))))
    return sp.latex(best, order="rev-lex")


def cell_latex(text, strict: bool = False) -> str:
    """A table cell or column head: a formula (``He_1(x) = x``, ``1[x > 0]``, ``tanh``, ``λ_𝕃``, ``B = 4``) as one
    ``$…$``; a name or words (ReLU, leaky ReLU (slope 0.01), BSB1 unstable) as text with :func:`to_latex`."""
    text = "" if text is None else str(text)
    m = re.fullmatch(r"(.*\S) \((\d+(?:\.\d+)?%)\)", text.strip())
    if m and _formula_cell(m.group(1)):  # [0.49, 0.50] (99.9%): a formula and its confidence in words
        return "$" + _code_or_math(m.group(1), strict) + "$ (" + to_latex(m.group(2), strict) + ")"
    if _formula_cell(text):
        return "$" + _code_or_math(text.strip(), strict) + "$"
    parts = text.split(" = ")
    if len(parts) > 1 and all(p.strip() and not re.search(r"\d", p) and len(p.split()) <= 3 for p in parts):
        return " $=$ ".join(cell_latex(part, strict) for part in parts)  # ELU = CELU: names on both sides
    return to_latex(text, strict)


def _formula_cell(text: str) -> bool:
    t = text.strip()
    if not t or _SCI_NUMBER.fullmatch(t) or re.fullmatch(r"\(\d+(?:\.\d+)*\)", t):  # (4.1): an equation number
        return False
    words = re.findall(r"[A-Za-z]+", t)
    if any(len(w) > 2 and w not in _FUNCTION_WORDS for w in words):
        return False
    marker = any(c in "()[]=_^*/<>+|!" or c.isdigit() or _is_mathchar(c) for c in t)
    return marker or (bool(words) and all(len(w) == 1 or w in _FUNCTION_WORDS for w in words))


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
    """One finite number for an siunitx ``S`` cell: ``digits`` significant digits, exponent form outside
    [1e-3, 1e5) (the evidence tables, whose rows are different quantities; the claims' tables use
    :func:`format_column`)."""
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


#: non-numeric entries a numeric column may hold, as S-column text
_SPECIAL = {"inf": r"{$\infty$}", "∞": r"{$\infty$}", "-inf": r"{$-\infty$}", "−∞": r"{$-\infty$}"}
_MISSING = {"", "nan", "undefined", "—", "-", "n/a"}
#: a value without an error this far below its column's largest (relative) is a rounding residue, shown as 0
ZERO_RELATIVE = 1e-12
#: a value within its error of 0, with an error this far below its column's largest, is a residue too (a
#: quadrature's −6.99e-15 ± 1e-13 beside 0.8): 0; a statistical estimate (a larger error) keeps its digits
RESIDUE_RELATIVE = 1e-9
#: significant digits of a value without an error, and the most an exact value (error 0) shows
PLAIN_DIGITS = 6
#: the most significant digits a value quoted to its error shows (``--digits`` auto): a finer error is omitted and
#: the caption says so (:data:`OMITTED_NOTE`). Measured: the widest table written (``profile``'s per-batch-size
#: table, eight columns of numbers whose errors are ~1e-13) fits a paper's 5.5 in text width with 8 digits and is
#: 18pt too wide with 9 (\scriptsize, 2pt column gaps); float64 would allow 15.
MAX_DIGITS = 8
#: the most decimals a plain column shows: a value below its column's other values loses significant digits there
#: (−0.00000787 beside 0.645359), never its column's notation
MAX_DECIMALS = 8
#: ... and at most this many more than its largest value can show (at 4 significant digits: −0.0000079 beside 0.1695)
EXTRA_DECIMALS = 3
#: the caption's note when a value with an error is shown without it (the error is below its last digit)
OMITTED_NOTE = "Uncertainties below the last digit shown are omitted."


def _exp10(x: float) -> int:
    """The decimal exponent of ``x`` (0.0123 → -2), exact at powers of ten."""
    x = abs(x)
    k = math.floor(math.log10(x))
    if 10.0 ** (k + 1) <= x:
        k += 1
    elif 10.0 ** k > x:
        k -= 1
    return k


def _error_place(e: float) -> int:
    """The decimal place an uncertainty is quoted to: two digits when it starts with 1 or 2, else one (its first
    digit read after rounding it to two digits: 2.9999999999999997e-05 is 3.0e-05, one digit)."""
    e = float(f"{e:.1e}")
    k = _exp10(e)
    return k - 1 if e / 10.0 ** k < 3 else k


def _sig_place(x: float, n: int) -> int:
    """The decimal place of the ``n``-th significant digit of ``x`` after rounding to ``n`` digits
    (0.99999999 to 6 digits is 1.00000: place -5)."""
    return _exp10(float(f"{x:.{n - 1}e}")) - n + 1


def _fixed(v: float, place: int) -> str:
    s = f"{v:.{-place}f}" if place <= 0 else str(int(round(v / 10.0 ** place)) * 10 ** place)
    return s.lstrip("-") if float(s) == 0 else s  # a value that rounds to zero has no sign


def _uncertainty(e: float, place: int) -> str:
    u = int(round(e / 10.0 ** place))
    return str(u * 10 ** place) if place > 0 else str(u)


def _special(v) -> str:
    if v is None:
        return "{---}"
    s = str(v).strip()
    if s in _SPECIAL:
        return _SPECIAL[s]
    m = re.fullmatch(r"([<>≤≥]) ?(-?\d+(?:\.\d+)?)", s)  # "> 4": beyond the range searched
    if m:
        return "{$" + {"<": "<", ">": ">", "≤": r"\le", "≥": r"\ge"}[m.group(1)] + " " + m.group(2) + "$}"
    return "{---}" if s.lower() in _MISSING else None


def _numeric_column(cells: list) -> bool:
    return any(_is_number(c) for c in cells) and all(_is_number(c) or _special(c) is not None for c in cells)


def _notation(mags: list[float]) -> tuple[int, bool]:
    """The column's notation from the magnitudes of its nonzero values: (shared exponent k, each cell its own
    exponent). Plain (0, False) when the largest lies in [10⁻³, 10⁶) (a smaller value shows at most
    :data:`MAX_DECIMALS` decimals: one notation per column, never ×10^k beside plain numbers); else a shared ×10^k
    (written once, in the column's header) when they span at most three decades; else ×10^k in every cell."""
    big, small = max(mags), min(mags)
    if 1e-3 <= big < 1e6:
        return 0, False
    if big / small <= 1e3:
        return _exp10(big), False
    return 0, True


def _quoted(m: float, em: float | None, digits: int | None,
            max_digits: int = MAX_DIGITS) -> tuple[str | None, bool]:
    """The mantissa ``m`` (error ``em``, both in the cell's ×10^k) as cell text: ``value(error)`` when the error
    reaches the last digit allowed (``max_digits``, or ``digits``), else the value to that many significant
    digits; an exact value (error 0) to its own digits without padding zeros; ``None`` without an error (the
    column's plain cells, :func:`_plain_cells`). Second: whether an error was left out."""
    if em is None:
        return None, False
    if em == 0:  # exact: its own digits, no padding zeros (−2, 1.75, 1.90986)
        c = _fixed(m, _sig_place(m, digits or min(PLAIN_DIGITS, max_digits)))
        if "." in c and math.isclose(float(c), m, rel_tol=1e-12, abs_tol=1e-300):  # zeros past its last digit
            c = c.rstrip("0").rstrip(".")
        return c, False
    n = digits or max_digits
    p = _error_place(em)
    if p >= _sig_place(m, n):
        return _fixed(m, p) + f"({_uncertainty(em, p)})", False
    return _fixed(m, _sig_place(m, n)), True


def _decimals(cell: str) -> int:
    """Digits after the decimal marker of a cell's number (``1.1476(23)e-5`` → 4)."""
    num = cell.split("(")[0].split("e")[0]
    return len(num.split(".")[1]) if "." in num else 0


def _plain_cells(mants: dict[int, float], digits: int | None, others: list[str]) -> dict[int, str]:
    """Values without an error: each to its own ``digits`` (:data:`PLAIN_DIGITS` by default) significant digits,
    but never more decimals than the column needs — the most any of them needs without its trailing zeros, or any
    other cell of the column (``others``) shows: 0.5, 1.0, 22.0 — not 0.500000, 1.00000, 22.0000."""
    n = digits or PLAIN_DIGITS
    full = {i: _fixed(m, _sig_place(m, n)) for i, m in mants.items()}
    need = max([_decimals(c.rstrip("0") if "." in c else c) for c in full.values()]
               + [_decimals(c) for c in others], default=0)
    out = {}
    for i, c in full.items():
        cut = _decimals(c) - need
        if cut > 0:
            c = c[:-cut].rstrip(".")
        out[i] = c
    return out


def _column_cells(values: list, errors: list | None, digits: int | None,
                  max_digits: int = MAX_DIGITS) -> tuple[list[str], bool, int | None]:
    """The cells of :func:`format_column`, whether a value with an error is shown without it (the error is below
    its last digit: the caption then says so), and the column's shared exponent k (its cells are then in units of
    10^k, which the header says; ``None`` when there is none)."""
    n = len(values)
    errors = list(errors) if errors is not None else [None] * n
    out: list = [None] * n
    vals: dict[int, tuple[float, float | None]] = {}
    for i, v in enumerate(values):
        if not _is_number(v):
            out[i] = _special(v) or "{---}"
            continue
        e = errors[i] if i < len(errors) else None
        e = abs(float(e)) if _is_number(e) else None
        vals[i] = (float(v.item() if hasattr(v, "item") else v), e)
    scale = max((abs(v) for v, _ in vals.values()), default=0.0)
    for i, (v, e) in list(vals.items()):
        # an exact zero: 0; a residue within its error of 0 far below the column's scale (a quadrature's rounding,
        # not a statistical estimate); without an error, below ZERO_RELATIVE of the column's scale
        residue = e is not None and abs(v) <= e <= RESIDUE_RELATIVE * scale
        if v == 0 or residue or (e is None and abs(v) <= ZERO_RELATIVE * scale):
            out[i] = "0"
            del vals[i]
    if vals and all(v.is_integer() and abs(v) < 1e15 and not e for v, e in vals.values()):
        for i, (v, _) in vals.items():
            out[i] = str(int(v))
        return out, False, None
    if not vals:
        return out, False, None
    shift, per_cell = _notation([abs(v) for v, _ in vals.values()])
    omitted, plain, exps = False, {}, {}
    for i, (v, e) in vals.items():
        n = digits or (max_digits if e else min(PLAIN_DIGITS, max_digits))
        k = _exp10(float(f"{v:.{n - 1}e}")) if per_cell else shift  # after rounding: 9.9999999e-16 → 1.00000e-15
        exps[i] = f"e{k}" if k and per_cell else ""
        m = v / 10.0 ** k
        cell, left_out = _quoted(m, e / 10.0 ** k if e is not None else None, digits, max_digits)
        omitted = omitted or left_out
        if cell is None:
            plain[i] = m
        else:
            out[i] = cell + exps[i]
    others = [out[i][:len(out[i]) - len(exps[i])] for i in vals if i not in plain]
    for i, c in _plain_cells(plain, digits or min(PLAIN_DIGITS, max_digits), others).items():
        out[i] = c + exps[i]
    if not per_cell and digits is None:  # digits from the error (the default): a small value beside large ones
        # shows at most EXTRA_DECIMALS more decimals than the largest can (and MAX_DECIMALS); --digits N: N digits each
        big = max(abs(v) for v, _ in vals.values()) / 10.0 ** shift
        own = max(0, -_sig_place(big, max_digits))  # the decimals the largest value has at most
        cap = max(own, min(MAX_DECIMALS, own + EXTRA_DECIMALS))
        for i, (v, e) in vals.items():
            if _decimals(out[i]) > cap:
                out[i] = _fixed(v / 10.0 ** shift, -cap)
                omitted = omitted or bool(e)
    return out, omitted, (shift if shift and not per_cell else None)


def format_column(values: list, errors: list | None = None, digits: int | None = None) -> tuple[list[str], str]:
    """The siunitx cells of one numeric column and its ``table-format``.

    * digits from the error (``digits=None``, the default): a value with an error is quoted to its error's place,
      ``1.1476(23)`` (two digits of the error when it starts with 1 or 2, else one), up to :data:`MAX_DIGITS`
      significant digits; with a finer error it shows :data:`MAX_DIGITS` significant digits and no parenthesis
      (:func:`latex_table` then says so in the caption). A value without an error shows :data:`PLAIN_DIGITS`
      significant digits; an exact value (error 0) its own digits, at most :data:`PLAIN_DIGITS`, without padding
      zeros (−2, 1.75, 1.90986);
    * ``digits=N``: every value ``N`` significant digits, with the error in parentheses when it reaches the ``N``-th
      digit; an exact value at most ``N`` digits, without padding zeros;
    * each cell has its own significant digits (siunitx aligns them on the decimal marker); a value without an
      error shows no more decimals than the column needs (:func:`_plain_cells`: 0.5 and 22.0, not 0.500000);
    * a value below :data:`ZERO_RELATIVE` × the column's largest, with an error covering 0 (or none: float
      round-off), is an exact zero and shows as ``0``; a column of integers without errors shows them as they are;
    * one notation per column (:func:`_notation`): plain, a shared ×10^k, or each cell its own ×10^k.
    """
    out, _, shift = _column_cells(values, errors, digits)
    if shift:
        out = [c + f"e{shift}" if _CELL.match(c) and c != "0" else c for c in out]
    return out, _table_format(out)


_CELL = re.compile(r"(-?)(\d*)(?:\.(\d*))?(?:\((\d+)\))?(?:e(-?)(\d+))?$")


def _table_format(cells: list[str]) -> str:
    """siunitx ``table-format`` wide enough for every formatted cell of a column (sign, integer and decimal
    digits, uncertainty digits, exponent)."""
    sign = esign = False
    ints = decs = uncs = exps = 0
    for c in cells:
        m = _CELL.match(c or "")
        if not c or c.startswith("{") or not m:
            continue
        sign = sign or m.group(1) == "-"
        ints, decs = max(ints, len(m.group(2))), max(decs, len(m.group(3) or ""))
        uncs = max(uncs, len(m.group(4) or ""))
        if m.group(6):
            esign = esign or m.group(5) == "-"
            exps = max(exps, len(m.group(6)))
    fmt = ("-" if sign else "") + f"{max(ints, 1)}.{decs}" + (f"({uncs})" if uncs else "")
    if exps:
        fmt += "e" + ("-" if esign else "") + str(exps)
    return fmt


def _format_mixed(values: list, digits: int | None) -> tuple[list[str], str]:
    """A column whose rows are different quantities (the evidence): each cell its own ``digits`` significant digits
    (:data:`PLAIN_DIGITS` by default) — all plain, or all ×10^k when one of them needs it (one notation per
    column)."""
    digits = digits or PLAIN_DIGITS
    nums = [float(v) for v in values if _is_number(v)]
    sci = any(v != 0 and (abs(v) < 1e-3 or abs(v) >= 1e5) and not float(v).is_integer() for v in nums) or \
        any(abs(v) >= 1e9 for v in nums)
    out = []
    for v in values:
        if not _is_number(v):
            out.append(_special(v) or "{---}")
        elif float(v) == 0:
            out.append("0")
        elif float(v).is_integer() and abs(float(v)) < 1e9:  # a count stays a count (13, 400000)
            out.append(str(int(float(v))))
        elif sci:
            mant, exp = f"{float(v):.{digits - 1}e}".split("e")
            mant = mant.rstrip("0").rstrip(".") if "." in mant else mant
            out.append(f"{mant}e{int(exp)}")
        else:
            out.append(f"{float(v):.{digits}g}")
    return out, _table_format(out)


#: "the paper's Definition 3" in a caption: the item, then the citation ("Definition 3 of [12]")
_PAPERS_ITEM = re.compile(r"the paper's ((?:Table|Fig\.|Figure|Definition|Theorem|Lemma|Proposition|Corollary|"
                          r"Assumption|Section|Appendix|eqs?) ?(?:\([A-Z]?[\d.]+\)|[A-Z]?[\d.]+))")
#: a citation mark in a caption: ``[cite]`` (the claim's paper) or ``[cite:paper-key]`` (another paper)
_CITE = re.compile(r"(\bof )?\s*\[cite(?::([a-z0-9-]+))?\]")


def _cite(tex: str, cite) -> str:
    """The citation marks of a caption (:data:`_CITE`, set by :func:`_caption` and by the claims) as
    ``\\cite{key}``: ``cite`` is the key of the claim's paper, or a dict {paper key: BibTeX key} (``None``: the
    paper key, for a ``[cite:paper]`` mark; the key ``""``: the claim's paper). Without a key, "the paper"."""
    keys = cite if isinstance(cite, dict) else {"": cite}

    def one(m):
        key = keys.get(m.group(2) or "", m.group(2)) if m.group(2) else keys.get("")
        if not key:
            return "of the paper" if m.group(1) else ""
        return ("of~" if m.group(1) else "~") + "\\cite{" + key + "}"
    return _CITE.sub(one, tex)


def _caption(text: str) -> str:
    """A sentence; the paper's own table name moves to its end (LaTeX numbers the table itself: never
    "Table 1: Table 2: …", never a double parenthesis)."""
    text = text.strip()
    m = re.match(r"^\s*((?:Table|Fig\.?|Figure)\s+[A-Z]?[\w.]*?)\s*[:—–-]\s*(.*)$", text)
    if m:
        rest = m.group(2).strip().rstrip(".")
        ref = f"{m.group(1)} of [cite]"
        text = f"{rest}; {ref}" if rest.endswith(")") else f"{rest} ({ref})"
    text = _PAPERS_ITEM.sub(lambda g: f"{g.group(1)} of [cite]", text)
    if re.match(r"[a-z]{2,}(?![\w*^_(′])", text):
        text = text[0].upper() + text[1:]   # a word, never a symbol (q*, c_k) or a function applied (tanh(x))
    return text if text.endswith((".", "?", "!")) else text + "."


def _label(*parts, prefix: str | None = None) -> str:
    """A table's ``\\label``: ``tab:`` (or ``prefix:``) and the parts, each reduced to letters, digits and hyphens."""
    return (prefix or "tab") + ":" + ":".join(re.sub(r"[^A-Za-z0-9-]+", "-", str(p)).strip("-") for p in parts)


#: rows of one float: more are split into continued tables of this many (a float never outgrows the page)
MAX_ROWS = 32
#: lines of a float on a page of a paper (rows, caption and notes together: a 5.5 in text 7.7 in high, the shortest of
#: letter and A4 pages, \small rows)
PAGE_LINES = 38
#: characters per line of a caption and of a table's notes (\footnotesize) in a 5.5 in text, to count their lines
CAPTION_CHARS_PER_LINE = 85
NOTE_CHARS_PER_LINE = 105


def table_options(t) -> dict:
    """The options of a ``tables`` entry ``(caption, header, rows[, options])``: a dict with ``math`` (columns of
    LaTeX math source: the paper's printed closed forms), ``error`` ({value column: its error column}, merged into
    ``value(error)``; the error column is not printed), ``group`` (a column shown once per run of equal
    cells), ``wrap`` ({column: width} for long text; ``"X"``: the width the other columns leave, tabularx), ``lead``
    (a text column set on its own line across the table above each row's other cells: a quantity's long name),
    ``notes`` (sentences set inside the float below the table: what a mark † or a --- means) and ``comment``
    (what the tool computed — budget, settings — as LaTeX comment lines before the table, for the author, not in
    the caption); a list is the ``math`` columns (the older form)."""
    if len(t) < 4 or not t[3]:
        return {}
    o = t[3]
    if isinstance(o, dict):
        return o
    return {"math": list(o)}


def _table_columns(rows: list[list], cols: list[int], opts: dict, digits: int | None, strict: bool,
                   heterogeneous: bool, max_digits: int = MAX_DIGITS
                   ) -> tuple[list[list[str]], list[str], bool, dict[int, int]]:
    """The printed columns ``cols`` of a table: its cells (rows × columns), the column specs (numeric columns as
    siunitx ``S`` with a computed ``table-format``: :func:`format_column`), whether a value with an error is shown
    without it (its error below the value's last digit) and the shared exponents ({printed column: k}, for the
    header: the column's cells are in units of 10^k)."""
    math_cols = {int(c) for c in opts.get("math") or ()}
    errors = {int(k): int(v) for k, v in (opts.get("error") or {}).items()}
    wrap = {int(k): str(v) for k, v in (opts.get("wrap") or {}).items()}
    cells = [[""] * len(cols) for _ in rows]
    spec, omitted, shifts = [], False, {}
    for j, i in enumerate(cols):
        column = [r[i] for r in rows]
        if i not in math_cols and _numeric_column(column):
            if heterogeneous:
                out, tf = _format_mixed(column, digits or min(PLAIN_DIGITS, max_digits))
            else:
                out, left_out, shift = _column_cells(column, [r[errors[i]] for r in rows] if i in errors else None,
                                                     digits, max_digits)
                tf, omitted = _table_format(out), omitted or left_out
                if shift:
                    shifts[j] = shift
            spec.append(f"S[table-format={tf}]")
        else:
            out = []
            for c in column:
                if i in math_cols:  # a formula; None: undefined (---), "": left empty
                    out.append(f"${brace_powers(str(c))}$" if c not in (None, "") else "---" if c is None else "")
                elif _is_number(c):
                    out.append(format_number(c, digits or PLAIN_DIGITS))
                else:
                    out.append(cell_latex(c, strict))
            short = all(str(c) in ("yes", "no", "ok", "FAIL", "info", "—", "✓", "✗") for c in column
                        if c not in (None, ""))  # a yes/no column: centred
            spec.append((r">{\raggedright\arraybackslash}" + ("X" if wrap[i] == "X" else "p{" + wrap[i] + "}"))
                        if i in wrap else "c" if short else "l")
        if i in wrap:  # a wrapped column breaks a dotted or snake-case name (theory.gaussian_expectation) too
            out = [re.sub(r"(\\_|(?<=[a-z])\.(?=[a-z]))", r"\1\\allowbreak{}", c) for c in out]
        for k, c in enumerate(out):
            if c.startswith("["):  # after the previous row's \\ a '[' would be read as its optional argument
                c = "{}" + c
            cells[k][j] = c
    return cells, spec, omitted, shifts


#: a paper's text width (NeurIPS, ICML, ICLR: 5.5 in), in TeX points
TEXT_WIDTH_PT = 397.5
#: the table sizes tried in turn, largest first: (font size, its design size in pt, column gap in pt, the most
#: significant digits a value quoted to its error shows); the first whose estimated width fits the text is used
#: (\scriptsize only for a table that fits no larger size: ten columns and long activation names)
TABLE_SIZES = (("\\small", 9.0, 6.0, MAX_DIGITS), ("\\small", 9.0, 4.0, 6), ("\\footnotesize", 8.0, 4.0, 6),
               ("\\footnotesize", 8.0, 3.0, 5), ("\\footnotesize", 8.0, 3.0, 4), ("\\scriptsize", 7.0, 3.0, 4),
               ("\\scriptsize", 7.0, 2.0, 4))
#: the estimate :func:`_width_pt` times this must fit (its error: pdflatex measured bn-mean-field:constants at all
#: seven batch sizes and ``profile`` of every registered activation within ±3 % of the estimate)
WIDTH_MARGIN = 1.04
#: characters per line of a lead line (a row's text across a 5.5 in table at \footnotesize)
LEAD_CHARS_PER_LINE = 95
#: the narrowest a wrapped (tabularx ``X``) text column may become at 10 pt: about 24 letters a line, so that a
#: quantity's name wraps into a few lines and no word of it overflows
WRAP_MIN_PT = 115.0
#: a font size's glyph widths relative to 10 pt: smaller design sizes are relatively wider (a digit of cmr9, cmr8,
#: cmr7 is 4.62, 4.25, 3.99 pt against 5 pt at 10 pt), not the size ratio
_SIZE_SCALE = {10.0: 1.0, 9.0: 0.924, 8.0: 0.85, 7.0: 0.797}
#: widths of Computer Modern Roman glyphs at 10 pt (digits, the decimal point, siunitx's minus, parentheses, a
#: lower-case letter on average): the estimate :func:`_width_pt` sizes a table with
_GLYPH_PT = {"digit": 5.0, ".": 2.78, "-": 7.78, "(": 3.89, ")": 3.89, "letter": 4.8, "space": 3.33}


def _cell_width_pt(cell: str, numeric: bool, size_pt: float) -> float:
    """The printed width of one cell at ``size_pt`` (an estimate from glyph widths: numbers exactly enough to size
    a column, text and formulas by their visible characters)."""
    k = _SIZE_SCALE.get(size_pt, size_pt / 10.0)
    if numeric:
        m = _CELL.match(cell or "")
        if not m or cell.startswith("{"):
            text = re.sub(r"\\[a-zA-Z]+|[${}]", "", cell or "")
            return k * _GLYPH_PT["letter"] * len(text)
        w = (_GLYPH_PT["-"] if m.group(1) else 0.0) + _GLYPH_PT["digit"] * (len(m.group(2)) + len(m.group(3) or ""))
        w += _GLYPH_PT["."] if m.group(3) is not None else 0.0
        if m.group(4):
            w += _GLYPH_PT["("] + _GLYPH_PT[")"] + _GLYPH_PT["digit"] * len(m.group(4))
        if m.group(6):  # × 10^k: the sign, 10, the exponent in script size
            w += 7.78 + 10.0 + 3.5 * (len(m.group(6)) + (1 if m.group(5) else 0)) + 3.0
        return k * w
    text = re.sub(r"\\(?:mathrm|mathbb|operatorname|text|sqrt|frac|tfrac)\b", "", cell or "")
    text = re.sub(r"\\[a-zA-Z]+", "x", text)  # a command: one glyph (\tanh → about three: counted by its name)
    text = re.sub(r"[${}^_ ]", "", text)
    wide = sum(ch.isupper() or ch in "mw" for ch in text)  # capitals and m, w: about 7 pt at 10 pt
    return k * (_GLYPH_PT["letter"] * len(text) + 2.2 * wide + _GLYPH_PT["space"] * (cell or "").count(" "))


def _format_width_pt(fmt: str, size_pt: float) -> float:
    """The width siunitx reserves for a ``table-format`` (``-1.7(2)e-2``: sign, 1 + 7 digits, the point, two
    uncertainty digits in parentheses, an exponent of two digits with its sign)."""
    m = re.fullmatch(r"(-?)(\d+)\.(\d+)(?:\((\d+)\))?(?:e(-?)(\d+))?", fmt)
    if not m:
        return 0.0
    cell = (m.group(1) + "9" * int(m.group(2)) + "." + "9" * int(m.group(3))
            + (f"({'9' * int(m.group(4))})" if m.group(4) else "")
            + (f"e{m.group(5)}{'9' * int(m.group(6))}" if m.group(6) else ""))
    return _cell_width_pt(cell, True, size_pt)


def _width_pt(header: list[str], cells: list[list[str]], spec: list[str], size_pt: float, gap_pt: float) -> float:
    """The estimated width of a tabular: each column its widest cell (header included), plus two gaps each."""
    total = 0.0
    for j, kind in enumerate(spec):
        if "X" in kind:  # a tabularx's wrapped column takes what the others leave: at least WRAP_MIN_PT
            total += WRAP_MIN_PT * _SIZE_SCALE[size_pt] + 2 * gap_pt
            continue
        if kind.startswith(">{") and "p{" in kind:
            total += float(re.search(r"p\{([\d.]+)", kind).group(1) or 0) * 72.27 if "in" in kind else 100.0
            total += 2 * gap_pt
            continue
        numeric = kind.startswith("S")
        widest = max([_cell_width_pt(r[j], numeric, size_pt) for r in cells]
                     + [_cell_width_pt(header[j], False, size_pt)], default=0.0)
        fmt = re.search(r"table-format=([^\]]*)", kind)
        if fmt:  # siunitx reserves the table-format's width: the most integer and decimal digits, sign, exponent
            widest = max(widest, _format_width_pt(fmt.group(1), size_pt))
        total += widest + 2 * gap_pt
    return total


def _with_unit(head: str, shift: int | None) -> str:
    """A column's header with its shared exponent: ``c* (×10⁻³)`` — the column's cells are c* in units of 10⁻³."""
    if not shift:
        return head
    return f"{head} (×10{str(shift).translate(_SUP)})"


def latex_table(caption: str, header: list, rows: list[list], label: str, raw_cols=(), digits: int | None = None,
                strict: bool = False, max_rows: int = MAX_ROWS, heterogeneous: bool = False,
                cite: str | None = None) -> str:
    """One booktabs ``table`` (never a longtable: it aligns in one pdflatex pass): numeric columns as siunitx ``S``
    (:func:`format_column`; a computed ``table-format``; ``digits`` ``None``: digits from the error, and a caption
    that says so where an error below a value's last digit is left out), formulas in math mode
    (:func:`cell_latex`), ``raw_cols`` — a list of math columns or a :func:`table_options` dict — as given; more
    than ``max_rows`` rows continue in further tables of the same number (never truncated)."""
    opts = raw_cols if isinstance(raw_cols, dict) else {"math": list(raw_cols or ())}
    errors = {int(k): int(v) for k, v in (opts.get("error") or {}).items()}
    wrap = {int(k): str(v) for k, v in (opts.get("wrap") or {}).items()}
    group = opts.get("group")
    notes = [str(t) for t in opts.get("notes") or ()]
    comment = opts.get("comment")
    lead = opts.get("lead")
    lead = int(lead) if lead is not None else None
    ncol = len(header)
    rows = [list(r) + [""] * (ncol - len(r)) for r in rows]
    cols = [i for i in range(ncol) if i not in set(errors.values()) and i != lead]
    for size, size_pt, gap_pt, max_digits in TABLE_SIZES:  # the largest size whose estimated width fits the text
        cells, spec, omitted, shifts = _table_columns(rows, cols, opts, digits, strict, heterogeneous, max_digits)
        heads = [cell_latex(_with_unit(header[i], shifts.get(j)), strict) for j, i in enumerate(cols)]
        if _width_pt(heads, cells, spec, size_pt, gap_pt) * WIDTH_MARGIN <= TEXT_WIDTH_PT:
            break
    head = " & ".join(("{" + h + "}") if spec[j].startswith("S") else h for j, h in enumerate(heads)) + r" \\"
    body, rows_by_line = [], []  # the table's lines, and the row each comes from (None: a rule)
    for k, r in enumerate(cells):
        if group is not None and int(group) in cols:
            g = cols.index(int(group))
            if k and rows[k][int(group)] == rows[k - 1][int(group)]:
                r = list(r)
                r[g] = ""
            elif k:
                body.append(r"\addlinespace")
                rows_by_line.append(None)
        if lead is not None:  # the row's text on its own line across the table, its values below it
            if k:
                body.append(r"\addlinespace[2pt]")
                rows_by_line.append(None)
            body.append(r"\multicolumn{" + str(len(cols)) + r"}{@{}>{\raggedright\arraybackslash}p{\linewidth}@{}}{"
                        + cell_latex(rows[k][lead], strict) + r"} \\" + "\n" + " & ".join(r) + r" \\")
        else:
            body.append(" & ".join(r) + r" \\")
        rows_by_line.append(rows[k])
    cap = _cite(to_latex(_caption(caption), strict), cite)
    note = " " + OMITTED_NOTE if omitted else ""
    tall = any(r"\frac" in c for r in cells for c in r)  # fractions in a row: room above and below them
    if tall:
        max_rows = min(max_rows, 20)
    # rows per float: at most max_rows lines of text, a wrapped cell counting its lines (≈ 35 characters each: the
    # width other columns leave it is not known here, so the estimate is cautious)
    if wrap:
        max_rows = min(max_rows, 26)
    weight = [1 + max((len(re.sub(r"\\[a-zA-Z]+|[${}]", "", str(rows_by_line[k][i]))) // 35
                       for i in wrap), default=0) if rows_by_line[k] is not None else 0 for k in range(len(body))]
    if lead is not None:  # a row and its lead line, never parted: the text at about LEAD_CHARS_PER_LINE a line
        weight = [w if not body[k].startswith(r"\multicolumn") else
                  2 + len(re.sub(r"\\[a-zA-Z]+|[${}]", "", str(rows_by_line[k][lead]))) // LEAD_CHARS_PER_LINE
                  for k, w in enumerate(weight)]
    # a float must fit a page: its rows, its caption's lines and (on the last part) its notes' lines, at most
    # PAGE_LINES; a caption longer than a few lines leaves fewer rows to each part
    cap_lines = math.ceil(len(re.sub(r"\\[a-zA-Z]+|[${}]", "", cap)) / CAPTION_CHARS_PER_LINE)
    note_lines = sum(math.ceil(len(re.sub(r"\\[a-zA-Z]+|[${}]", "", t)) / NOTE_CHARS_PER_LINE) for t in notes)
    max_rows = max(8, min(max_rows, PAGE_LINES - cap_lines))
    chunks, cur, used = [], [], 0
    for line, w in zip(body, weight):
        if cur and used + w > max_rows:
            chunks.append(cur)
            cur, used = [], 0
        cur.append(line)
        used += w
    if cur and chunks and used + note_lines > max_rows:  # the notes below the last part: split it where they fit
        keep = max(1, max_rows - note_lines)
        chunks.append(cur[:keep])
        cur = cur[keep:]
    elif cur and not chunks and used + note_lines > max_rows and len(cur) > 1:
        keep = max(1, max_rows - note_lines)
        chunks.append(cur[:keep])
        cur = cur[keep:]
    chunks = chunks + [cur] if cur or not chunks else chunks
    lines = []
    for n, chunk in enumerate(chunks):
        while chunk and chunk[0] == r"\addlinespace":
            chunk = chunk[1:]
        first = n == 0
        # the table's own siunitx settings (a fragment does not rely on the document's): integer parts grouped
        # in threes (2 000 000), decimals never (0.398942)
        # the table's own size (TABLE_SIZES: the first that fits a 5.5 in text) and siunitx settings (a fragment
        # does not rely on the document's): integer parts grouped in threes (2 000 000), decimals never (0.398942)
        lines += [r"\begin{table}[htbp]", r"\centering", size, r"\sisetup{group-digits=integer}"]
        if gap_pt != 6.0:
            lines.append(r"\setlength{\tabcolsep}{" + f"{gap_pt:g}pt" + "}")
        if tall:
            lines.append(r"\renewcommand{\arraystretch}{1.35}")
        if first:
            lines.append(r"\caption{" + cap + note + r"}\label{" + label + "}")
        else:  # the same table number, continued
            more = ", continued." if cap.rstrip(".").endswith(")") else " (continued)."
            lines += [r"\addtocounter{table}{-1}", r"\caption{" + cap.rstrip(".") + more + note + "}"]
        if "X" in wrap.values():  # a long text column takes the width the others leave (tabularx)
            begin, end = r"\begin{tabularx}{\linewidth}{" + "".join(spec) + "}", r"\end{tabularx}"
        elif lead is not None:  # lead lines span the text width: the columns below share it evenly
            begin = r"\begin{tabular*}{\linewidth}{@{\extracolsep{\fill}}" + "".join(spec) + "@{}}"
            end = r"\end{tabular*}"
        else:
            begin, end = r"\begin{tabular}{" + "".join(spec) + "}", r"\end{tabular}"
        last = n == len(chunks) - 1
        lines += [begin, r"\toprule", head, r"\midrule", *chunk, r"\bottomrule", end]
        if last and notes:  # the table's notes, inside its float, below the rule
            lines.append(r"\par\smallskip\parbox{\linewidth}{\footnotesize\raggedright{}"
                         + r"\\ ".join(to_latex(t, strict) for t in notes) + "}")
        lines.append(r"\end{table}")
    if comment:  # what the tool computed (budget, settings): for the author, not the reader (ASCII, as LaTeX)
        lines = ["% " + to_latex(line, strict) for line in str(comment).splitlines()] + lines
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# documents
# --------------------------------------------------------------------------------------------

PACKAGES = r"\usepackage{booktabs,siunitx,amsmath,amssymb,tabularx}"
PREAMBLE = [r"\documentclass{article}", r"\usepackage[margin=2cm,landscape]{geometry}", PACKAGES]
#: the first line of a fragment to \input: the packages it needs
FRAGMENT_HEADER = "% deepinit-verify tables, to \\input. Needs: " + PACKAGES
_STATUS = {"holds": "holds", "violated": "VIOLATED", "hypotheses-not-met": "hypotheses not met",
           "inconclusive": "inconclusive", "error": "ERROR (the check crashed)"}


def document(body: list[str], standalone: bool, what: str = "tables") -> str:
    """``body`` as a fragment to ``\\input`` (a comment naming the packages it needs first) or a standalone
    document."""
    if standalone:
        parts = PREAMBLE + [r"\begin{document}"] + (body or [f"No {what}."]) + [r"\end{document}"]
    else:
        parts = [FRAGMENT_HEADER] + body
    return "\n\n".join(parts) + "\n"


_SUP = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _short(v, digits: int = 4) -> str:
    """A number in a formula cell, as text :func:`cell_latex` sets in math: ``digits`` significant digits, ×10ᵏ
    outside [1e-3, 1e5)."""
    if not _is_number(v):
        return str(v)
    s = format_number(v, digits)
    if "e" not in s:
        return s
    mant, exp = s.split("e")
    return ("" if mant == "1" else mant + "×") + "10" + str(int(exp)).translate(_SUP)


def _evidence_value(v):
    """A predicted or measured value: a number as it is, a list or pair as ``[a, b]`` with short numbers."""
    if isinstance(v, (list, tuple)) and 0 < len(v) <= 4 and all(_is_number(u) for u in v):
        return "[" + ", ".join(_short(u) for u in v) + "]"
    return v if _is_number(v) else None  # a formula or a nested list: the quantity's name and note say it


def evidence_table(v: Verdict, label: str, digits: int | None = None, strict: bool = False) -> str:
    """The evidence of a verdict (``--latex-prose``): each compared quantity on its own line across the table, its
    values below it in columns of one meaning each — predicted, measured, CI, the test that decided it (a statistic
    against its bound, or the observed deviation against its bound), n, pass — and no column left empty. Its rows
    are different quantities: each number keeps its own digits (one notation per column all the same)."""
    header = ["quantity", "predicted", "measured", "CI", "test", "n", "pass"]
    rows = []
    for e in v.evidence:
        stat = getattr(e, "statistic", "") or ""
        ci = ""
        if e.ci:
            lo, hi = e.ci
            ci = f"[{_short(lo)}, {_short(hi)}]" + (f" ({100 * e.confidence:g}%)" if e.confidence else "")
        rows.append([e.name, _evidence_value(e.theory), _evidence_value(e.numeric), ci, _test_text(e, stat),
                     e.samples if _is_number(e.samples) else None, {True: "ok", False: "FAIL", None: "info"}[e.passed]])
    keep = [i for i in range(len(header)) if i == 0 or any(r[i] not in (None, "") for r in rows)]
    header = [header[i] for i in keep]
    rows = [[r[i] for i in keep] for r in rows]
    return latex_table(f"Evidence for {v.claim_id}: each quantity compared, above its values", header, rows, label,
                       {"lead": 0}, digits, strict, heterogeneous=True)


def _test_text(e, stat: str) -> str:
    """What decided an evidence row: ``stat = x ≤ b`` (or ``∈ [lo, hi]``) for a test statistic, ``x ≤ b`` for an
    observed deviation against its bound, ``≤ b`` or ``x`` when only one is known; empty when neither is."""
    bound, observed = e.bound, e.observed
    two_sided = isinstance(bound, (tuple, list)) and len(bound) == 2 and all(_is_number(b) for b in bound)
    name = f"{stat} = " if stat else ""
    if _is_number(observed) and _is_number(bound):
        rel = "≤" if float(observed) <= float(bound) else ">"
        return f"{name}{_short(observed)} {rel} {_short(bound)}"
    if _is_number(observed) and two_sided:
        rel = "∈" if float(bound[0]) <= float(observed) <= float(bound[1]) else "∉"
        return f"{name}{_short(observed)} {rel} [{_short(bound[0])}, {_short(bound[1])}]"
    if _is_number(bound):
        return f"bound {_short(bound)}"
    if _is_number(observed):
        return f"{name}{_short(observed)}"
    return ""


def render(verdicts: list[Verdict], claims: dict[str, Claim], standalone: bool = False, digits: int | None = None,
           strict: bool = False, evidence: bool = True, prose: bool = True, cites: dict | None = None,
           label_prefix: str | None = None) -> str:
    """The LaTeX of a report: each verdict's tables (what a paper ``\\input``s: ``table`` environments with
    booktabs rules, siunitx ``S`` columns, ``\\caption`` and ``\\label{tab:<paper>:<claim>:<k>}``); with ``prose``
    also each claim's title (what it states), verdict, evidence table and errata. A fragment (the packages it needs in its
    first line) or, with ``standalone``, a compilable document. ``cites``: {paper key: BibTeX key} for the captions'
    citations (default: the paper key); ``label_prefix``: labels ``<prefix>:<paper>:<claim>:<k>`` instead of
    ``tab:…`` (two fragments of one document never share a label)."""
    body = []
    cites = dict(cites or {})
    if standalone and prose:
        body.append(r"\section*{deepinit-verify report}")
    for v in verdicts:
        c = claims.get(v.claim_id)
        paper, name = v.claim_id.split(":", 1)
        if prose:  # the prose \sloppy: a long formula goes to the next line instead of past the margin
            body.append(r"\paragraph{" + to_latex(f"{v.claim_id}: {_STATUS[v.status]}.", strict) + "}")
            if c is not None:
                body.append(r"{\sloppy " + to_latex(c.title, strict) + r"\par}")
            body.append(r"{\sloppy " + to_latex(v.summary, strict) + r"\par}")
        for k, t in enumerate(v.tables, 1):
            body.append(latex_table(t[0], t[1], t[2], _label(paper, name, k, prefix=label_prefix), table_options(t),
                                    digits, strict, cite={**cites, "": cites.get(paper, paper)}))
        if prose and evidence and v.evidence:
            body.append(evidence_table(v, _label(paper, name, "evidence", prefix=label_prefix), digits, strict))
        if prose:
            for er in v.errata:
                body.append(r"{\sloppy\noindent\textbf{Erratum} "
                            + to_latex(f"({er.location}): printed {er.printed}; found {er.found}.", strict) + r"\par}")
        elif not v.tables:
            body.append(f"% {v.claim_id}: no tables (--latex-prose adds its statement, verdict and evidence)")
    if standalone and not any(not b.startswith("%") for b in body):
        body.append(r"\noindent " + to_latex("No tables: " + ", ".join(v.claim_id for v in verdicts)
                                               + " (--latex-prose adds each claim's statement, verdict and evidence).",
                                               strict))
    return document(body, standalone)
