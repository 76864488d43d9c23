"""``{cli-help}``: the command line's ``--help`` text, generated from :func:`verify.cli.build_parser` at build time.

The page never goes stale: a new option of ``python -m verify`` appears on the next build. No dependency beyond
Sphinx; the text is wrapped at a fixed width so that the build is the same in every terminal.
"""
from __future__ import annotations

import os

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

#: the width argparse wraps the help at (it reads ``$COLUMNS``)
WIDTH = 110


def parser_help() -> str:
    """``python -m verify --help`` as printed in a terminal ``WIDTH`` columns wide."""
    from verify.cli import build_parser
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(WIDTH)
    try:
        return build_parser().format_help()
    finally:
        if saved is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = saved


class CliHelp(SphinxDirective):
    """A literal block holding :func:`parser_help`'s text."""

    has_content = False

    def run(self):
        text = parser_help().rstrip() + "\n"
        block = nodes.literal_block(text, text, language="text")
        self.set_source_info(block)
        # the page depends on the parser's module: rebuild it when cli.py changes
        import verify.cli
        self.env.note_dependency(verify.cli.__file__)
        return [block]


def setup(app):
    app.add_directive("cli-help", CliHelp)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
