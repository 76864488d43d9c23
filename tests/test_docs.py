"""The documentation site (docs/, Sphinx + MyST-NB + numpydoc + furo): it builds with warnings as errors, its API
reference lists every public name, its tutorials are executed, and its internal links resolve.

These tests check the site's own machinery (the CLI page's source, the docstring and generated-page escaping, the
link checker, the table of contents) without Sphinx building anything; the built site itself is checked by
tests/test_docs_site.py on the output of ``bash docs/build.sh`` (CI's docs step). The Sphinx-dependent tests need the
docs extra (``pip install -e ".[docs]"``) and are skipped without it.
"""
from __future__ import annotations

import importlib.util
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
EXT = os.path.join(DOCS, "_ext")

_MISSING = [m for m in ("sphinx", "myst_nb", "numpydoc", "furo") if importlib.util.find_spec(m) is None]
needs_docs_extra = pytest.mark.skipif(bool(_MISSING), reason=f"the docs extra is not installed ({', '.join(_MISSING)})")


def _ext(name):
    sys.path.insert(0, EXT)
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(EXT)


def _tutorials() -> dict[str, bool]:
    """docs/tutorials/*.md → whether the page is an executed notebook (MyST-NB front matter)."""
    out = {}
    for name in sorted(os.listdir(os.path.join(DOCS, "tutorials"))):
        if name.endswith(".md"):
            with open(os.path.join(DOCS, "tutorials", name), encoding="utf-8") as f:
                out[name[:-3]] = "file_format: mystnb" in f.read(400)
    return out


def _text(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


# ---------------------------------------------------------------------------------------------------------------
# fast: the machinery, no Sphinx build
# ---------------------------------------------------------------------------------------------------------------

def test_every_tutorial_is_in_the_table_of_contents_and_most_are_notebooks():
    index = _text(os.path.join(DOCS, "index.md"))
    tutorials = _tutorials()
    assert {"check-a-claim", "profile-an-activation", "bsb1-fixed-point", "covariance-sde-figure1",
            "ci-for-a-paper", "verify-your-own-paper"} <= set(tutorials)
    for name in tutorials:
        assert f"tutorials/{name}\n" in index, f"tutorials/{name} is not in docs/index.md's toctree"
    assert sum(tutorials.values()) >= 5
    assert not tutorials["ci-for-a-paper"], "the CI tutorial shows commands, it does not run them"


@needs_docs_extra
def test_cli_reference_is_the_parsers_help():
    from verify.cli import build_parser
    text = _ext("cli_help").parser_help()
    for action in build_parser()._actions:
        for opt in action.option_strings:
            assert opt in text
    assert "exit status" in text


@needs_docs_extra
def test_docstring_bars_are_escaped_outside_markup_only():
    esc = _ext("plain_docstrings").escape_lines
    lines = ["|x| and ``|y|`` and :math:`|z|`", "Example::", "", "    |code|", "back", ">>> abs(-1) | 2", "3", "",
             "| a line block", "after |1 − T′(x*)|"]
    assert esc(lines) == ["\\|x\\| and ``|y|`` and :math:`|z|`", "Example::", "", "    |code|", "back",
                          ">>> abs(-1) | 2", "3", "", "| a line block", "after \\|1 − T′(x*)\\|"]


def test_generated_pages_keep_their_markup_and_escape_the_notation():
    esc = _ext("generated_pages").escape_line
    assert esc("| `a:b` | **holds** (erratum) | Σ* = q*((1 − c*)I) and x**2 |") == \
        "| `a:b` | **holds** (erratum) | Σ\\* = q\\*((1 − c\\*)I) and x\\*\\*2 |"
    assert esc("*Statement.* X_ij = c* *no claim*") == "*Statement.* X\\_ij = c\\* *no claim*"
    assert esc("![fig](../figures/a_b.png) [CSV](../figures/a_b.csv)") == \
        "![fig](../figures/a_b.png) [CSV](../figures/a_b.csv)"
    assert esc("already \\* escaped") == "already \\* escaped"


def test_link_checker_finds_missing_files_and_anchors(tmp_path):
    sys.path.insert(0, DOCS)     # check_links.py lives in docs/, not docs/_ext
    try:
        import check_links
    finally:
        sys.path.remove(DOCS)
    (tmp_path / "sub").mkdir()
    (tmp_path / "index.html").write_text('<a href="sub/p.html#here">ok</a><a href="sub/p.html#gone">x</a>'
                                         '<a href="nope.html">y</a><a href="#top">z</a><a href="https://x.org">e</a>'
                                         '<h1 id="top"></h1>')
    (tmp_path / "sub" / "p.html").write_text('<p id="here"></p><img src="../index.html">')
    bad = check_links.broken_links(str(tmp_path))
    assert sorted(bad) == ["index.html: nope.html (no file nope.html)", "index.html: sub/p.html#gone (no anchor #gone)"]


def _transcript_key(text: str) -> list[str]:
    """A terminal transcript without what differs between runs and machines: the claim's time and a round-off
    residue's last digits."""
    import re
    text = re.sub(r"\(\d+(?:\.\d+)? s\)", "(… s)", text)
    text = re.sub(r"-?\d\.\d+e-1[0-9]", "ROUNDOFF", text)
    return [line.rstrip() for line in text.strip().splitlines()]


def test_the_getting_started_transcript_is_what_the_command_prints(tmp_path):
    """docs/getting-started.md shows `python -m verify isometry:theorem1 --budget quick` and what it prints (a
    terminal 120 columns wide); the command is run here and its output must be the page's, time and round-off
    digits aside. When the output changes, paste the new transcript (the assertion message) into the page."""
    import re
    import subprocess
    page = _text(os.path.join(DOCS, "getting-started.md"))
    m = re.search(r"```sh\npython -m verify isometry:theorem1 --budget quick\n```\n\n```text\n(.*?)```", page, re.S)
    assert m, "the getting-started page no longer shows the first command and its output"
    env = dict(os.environ, COLUMNS="120", DEEPINIT_CACHE=str(tmp_path), NO_COLOR="1", TERM="dumb")
    p = subprocess.run([sys.executable, "-m", "verify", "isometry:theorem1", "--budget", "quick"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert _transcript_key(m.group(1)) == _transcript_key(p.stdout), "the command now prints:\n" + p.stdout
