"""Links to figure files that are not in the checkout, rendered as plain text instead of a broken link.

The paper pages (``python -m verify.docs PAPER``) link each figure's PNG, PDF and CSV under ``docs/figures/``. The
PDFs are not committed (``.gitignore``: ``*.pdf``), so on a fresh checkout those links point nowhere and MyST warns
(``myst.xref_missing``), which fails the ``-W`` build. This post-transform runs just before MyST's reference
resolver: a Markdown link to a local *file* (a name with an extension, not a page) that does not exist becomes its
text followed by "(not in the repository)". Links to pages and to files that exist are left to MyST.
"""
from __future__ import annotations

import os
import re

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform

#: extensions of generated artefacts that may be absent from a checkout
ARTEFACT = re.compile(r"\.(pdf|png|csv|svg|json|tex)$", re.IGNORECASE)


class MissingArtefactLinks(SphinxPostTransform):
    default_priority = 8  # MyST's MystReferenceResolver runs at 9

    def run(self, **kwargs):
        for node in list(self.document.findall(addnodes.pending_xref)):
            if node.get("reftype") != "myst" or node.get("refdomain"):
                continue
            target = str(node.get("reftarget", "")).split("#", 1)[0]
            if not target or "://" in target or not ARTEFACT.search(target):
                continue
            _, path = self.env.relfn2path(target, node.get("refdoc", self.env.docname))
            if os.path.exists(path):
                continue
            text = node.astext() or os.path.basename(target)
            span = nodes.inline("", f"{text} (not in the repository)", classes=["missing-artefact"])
            node.replace_self(span)


def setup(app):
    app.add_post_transform(MissingArtefactLinks)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
