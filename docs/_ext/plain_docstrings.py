"""Docstrings write mathematics in plain Unicode: ``|x|`` is an absolute value, never a reST substitution.

The package's docstrings use ``|σ̄(ρ)|``, ``|1 − T′(x*)|`` and ``‖x‖`` as text. reStructuredText reads ``|…|`` as a
substitution reference and fails the ``-W`` build with "Undefined substitution referenced". This
``autodoc-process-docstring`` handler (it runs after numpydoc's, which is registered first) escapes every ``|`` of
a docstring's prose; inline literals, roles, literal blocks (``::``), doctest blocks, math and code directives and
table or line-block rows are left as written. No docstring uses reST substitutions, so nothing is lost.
"""
from __future__ import annotations

import re

# inline literals, roles with their interpreted text, interpreted text and hyperlink references: never escaped
_PROTECTED = re.compile(r"(``.+?``|:[\w:+.-]+:`[^`]*`|`[^`]*`_{0,2})")
_CODE_DIRECTIVE = re.compile(r"^\.\.\s+(math|code|code-block|sourcecode|doctest|testcode|testoutput|literalinclude)::")


def escape_prose(text: str) -> str:
    """``text`` with each unescaped ``|`` outside inline markup escaped as ``\\|``."""
    parts = _PROTECTED.split(text)
    for i in range(0, len(parts), 2):  # even indices: prose between the protected spans
        parts[i] = re.sub(r"(?<!\\)\|", r"\\|", parts[i])
    return "".join(parts)


def escape_lines(lines: list[str]) -> list[str]:
    """The docstring's lines with :func:`escape_prose` applied to its prose lines only."""
    out = []
    block_indent = None     # inside a literal block or code/math directive: its introducing line's indent
    doctest = False
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if block_indent is not None:
            if not stripped or indent > block_indent:
                out.append(line)
                continue
            block_indent = None
        if doctest:
            if stripped:
                out.append(line)
                continue
            doctest = False
        if stripped.startswith(">>>"):
            doctest = True
            out.append(line)
            continue
        if stripped == "|" or stripped.startswith(("| ", "+-", "+=")):   # a line block or a grid table row
            out.append(line)
        else:
            out.append(escape_prose(line))
        if _CODE_DIRECTIVE.match(stripped) or (stripped.endswith("::") and not stripped.startswith("..")):
            block_indent = indent
    return out


def constant_doc(name: str, obj) -> list[str] | None:
    """The ``#:`` comment documenting a module-level constant re-exported under ``name`` (``verify.api.HOLDS`` is
    ``verify.core.HOLDS``): autodoc looks only in the module that re-exports it and would otherwise show the docstring
    of the value's type (``str(object='') -> str``)."""
    import sys

    from sphinx.pycode import ModuleAnalyzer
    modname, _, attr = name.rpartition(".")
    top = modname.split(".")[0]
    for mod in sorted(m for m in list(sys.modules) if m == top or m.startswith(top + ".")):
        module = sys.modules[mod]
        if module is None or getattr(module, attr, None) is not obj:
            continue
        try:
            docs = ModuleAnalyzer.for_module(mod).find_attr_docs()
        except Exception:  # noqa: BLE001 - no source to analyse: try the next module
            continue
        if ("", attr) in docs:
            return list(docs[("", attr)])
    return None


def _process(app, what, name, obj, options, lines):
    if what in ("data", "attribute") and not isinstance(obj, type):
        type_doc = (type(obj).__doc__ or "").strip()
        first = type_doc.splitlines()[0].strip() if type_doc else ""
        if first and any(first in ln for ln in lines[:4]):   # the type's docstring (numpydoc may have reflowed it)
            lines[:] = constant_doc(name, obj) or []
    lines[:] = escape_lines(lines)


def setup(app):
    app.connect("autodoc-process-docstring", _process, priority=900)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
