"""The built documentation site, as ``bash docs/build.sh`` leaves it: every public name of ``theory``, ``numerics`` and
``verify.api`` has its API page, is in the index and in its module's summary table; the CLI page is the parser's help;
every notebook tutorial shows executed output and no error; every internal link resolves.

CI's docs step builds the site once (Sphinx with warnings as errors, the tutorials executed) and then runs this module
with ``DEEPINIT_DOCS_SITE`` naming the built HTML directory::

    bash docs/build.sh
    DEEPINIT_DOCS_SITE=docs/_build/html python -m pytest tests/test_docs_site.py

Without the variable the site tests are skipped (the README's test command does not build the site); the checks'
own tests on a small hand-made site always run.
"""
from __future__ import annotations

import html
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
SITE = os.environ.get("DEEPINIT_DOCS_SITE", "")

needs_site = pytest.mark.skipif(not SITE, reason="DEEPINIT_DOCS_SITE is not set (CI's docs step sets it after "
                                                 "bash docs/build.sh)")


def _text(path) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def _tutorials() -> dict[str, bool]:
    """docs/tutorials/*.md → whether the page is an executed notebook (MyST-NB front matter)."""
    out = {}
    for name in sorted(os.listdir(os.path.join(DOCS, "tutorials"))):
        if name.endswith(".md"):
            out[name[:-3]] = "file_format: mystnb" in _text(os.path.join(DOCS, "tutorials", name))[:400]
    return out


def missing_api_pages(site: str, modules: dict[str, list[str]]) -> list[str]:
    """The public names without an API page, an index entry or a row in their module's summary table."""
    out = []
    genindex = _text(os.path.join(site, "genindex.html"))
    for module, names in modules.items():
        summary_path = os.path.join(site, "api", "generated", f"{module}.html")
        summary = _text(summary_path) if os.path.isfile(summary_path) else ""
        for name in names:
            page = f"{module}.{name}.html"
            if not os.path.isfile(os.path.join(site, "api", "generated", page)):
                out.append(f"no API page for {module}.{name}")
            elif f'href="api/generated/{page}#{module}.{name}"' not in genindex:
                out.append(f"{module}.{name} is not in genindex")
            elif f'href="{page}#{module}.{name}"' not in summary:
                out.append(f"{module}.{name} is not in {module}'s table")
    return out


def tutorial_problems(site: str, tutorials: dict[str, bool]) -> list[str]:
    """Notebook tutorials without executed output, or with a traceback or stderr output."""
    out = []
    for name, notebook in tutorials.items():
        path = os.path.join(site, "tutorials", f"{name}.html")
        if not os.path.isfile(path):
            out.append(f"tutorials/{name}: not built")
            continue
        page = _text(path)
        if notebook and "cell_output" not in page:
            out.append(f"tutorials/{name}: no executed output")
        if notebook and ("Traceback" in page or "output stderr" in page):
            out.append(f"tutorials/{name}: an error or stderr output")
    return out


# ---------------------------------------------------------------------------------------------------------------
# the checks on known answers: a hand-made site with one of each defect
# ---------------------------------------------------------------------------------------------------------------

def test_the_checks_name_a_missing_page_an_unindexed_name_and_a_failed_notebook(tmp_path):
    gen = tmp_path / "api" / "generated"
    gen.mkdir(parents=True)
    (tmp_path / "tutorials").mkdir()
    (gen / "m.a.html").write_text("")
    (gen / "m.b.html").write_text("")
    (gen / "m.html").write_text('<a href="m.a.html#m.a">a</a>')
    (tmp_path / "genindex.html").write_text('<a href="api/generated/m.a.html#m.a">a</a>'
                                            '<a href="api/generated/m.b.html#m.b">b</a>')
    assert missing_api_pages(str(tmp_path), {"m": ["a", "b", "c"]}) == [
        "m.b is not in m's table", "no API page for m.c"]
    (tmp_path / "tutorials" / "ok.html").write_text('<div class="cell_output">1</div>')
    (tmp_path / "tutorials" / "dry.html").write_text("<p>code only</p>")
    (tmp_path / "tutorials" / "err.html").write_text('<div class="cell_output">Traceback (most recent call</div>')
    (tmp_path / "tutorials" / "text.html").write_text("<p>no cells</p>")
    assert tutorial_problems(str(tmp_path), {"ok": True, "dry": True, "err": True, "text": False, "gone": False}) == [
        "tutorials/dry: no executed output", "tutorials/err: an error or stderr output", "tutorials/gone: not built"]


# ---------------------------------------------------------------------------------------------------------------
# the site docs/build.sh built
# ---------------------------------------------------------------------------------------------------------------

@needs_site
def test_every_public_name_has_its_api_page_in_the_index_and_its_modules_table():
    import numerics
    import theory
    from verify import api
    modules = {"theory": list(theory.__all__), "numerics": sorted(numerics._WHERE), "verify.api": list(api.__all__)}
    assert missing_api_pages(SITE, modules) == []


@needs_site
def test_the_cli_page_is_the_parsers_help():
    cli = html.unescape(_text(os.path.join(SITE, "cli.html")))
    assert "--budget {quick,standard,full}" in cli and "--expect FILE" in cli


@needs_site
def test_every_notebook_tutorial_ran_clean_and_shows_its_output():
    assert tutorial_problems(SITE, _tutorials()) == []
    assert "holds" in _text(os.path.join(SITE, "tutorials", "check-a-claim.html"))
    assert "<img" in _text(os.path.join(SITE, "tutorials", "bsb1-fixed-point.html"))      # the matplotlib figure


@needs_site
def test_every_internal_link_of_the_built_site_resolves():
    r = subprocess.run([sys.executable, os.path.join(DOCS, "check_links.py"), SITE], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout[-3000:]
