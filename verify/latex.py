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
#: text characters met inside a formula (t(…), a range a–b)
_TEXT_IN_MATH = {"…": r"\dots", "–": "-", "—": "-", "’": "'", "\u00a0": "~"}
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
              "tanh", "arg", "arccos", "arcsin", "arctan", "lg"}
#: two-letter names set upright in formulas (other two-letter lower-case runs are products: tK, dt)
_UPRIGHT = {"tr", "sd", "KS", "TV", "BN", "LN", "MP", "He"}


def _word_math(word: str) -> str:
    """An ASCII word that became mathematics (λ_max → λ_{\\max}, He_1, G_ij → G_{ij}): see :func:`_formula_word`."""
    return _formula_word(word)


def _snake_name(text: str, i: int) -> int:
    """End of a snake_case name starting at ``text[i]`` (``leaky_relu``: words of three or more letters joined by
    ``_``), or ``i`` when there is none — a name, not a subscript."""
    m = re.compile(r"[A-Za-z][A-Za-z0-9]{2,}(?:_[A-Za-z][A-Za-z0-9]{2,})+").match(text, i)
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
    i = 0
    while i < len(text):
        if i in spans:
            emit("m", _code_or_math(text[i:spans[i]], strict))
            i = spans[i]
            continue
        ch = text[i]
        nxt = text[i + 1] if i + 1 < len(text) else ""
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
    for kind, tex in segs:
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
                out.append(f"${brace_powers(str(c))}$")
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
                 r"\endfirsthead%", r"\toprule", head, r"\midrule", r"\endhead%", r"\bottomrule", r"\endlastfoot%",
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
           strict: bool = False, evidence: bool = True, prose: bool = True) -> str:
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
