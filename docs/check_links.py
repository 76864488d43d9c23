"""Check every internal link of the built HTML site: the file exists and, with ``#fragment``, the anchor does.

    python docs/check_links.py docs/_build/html

Sphinx's ``-W`` build already fails on a MyST link to a missing page or heading; this checks what the browser will
follow — every ``href`` and ``src`` of every page, the theme's and the notebooks' outputs included — without the
network (external ``http(s)://`` links are not fetched). Exit status 0 when every link resolves, 1 otherwise (each
broken link is printed as ``page: link (why)``).
"""
from __future__ import annotations

import os
import sys
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit


class _Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name") if tag == "a" else ("id",):
            if a.get(key):
                self.ids.add(a[key])
        for key in ("href", "src"):
            if a.get(key) and not (tag == "link" and a.get("rel") in ("preconnect", "dns-prefetch")):
                self.links.append(a[key])


def _parse(path: str, cache: dict) -> _Page:
    if path not in cache:
        page = _Page()
        with open(path, encoding="utf-8", errors="replace") as f:
            page.feed(f.read())
        cache[path] = page
    return cache[path]


def broken_links(root: str) -> list[str]:
    """``page: link (why)`` for every internal link of the HTML under ``root`` that does not resolve."""
    root = os.path.abspath(root)
    cache: dict = {}
    out = []
    for dirpath, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith(".html"):
                continue
            page_path = os.path.join(dirpath, name)
            for link in _parse(page_path, cache).links:
                parts = urlsplit(link)
                if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:", "data:")):
                    continue                                   # external: not fetched
                target = page_path if not parts.path else os.path.normpath(
                    os.path.join(dirpath, unquote(parts.path)))
                if parts.path.endswith("/") or os.path.isdir(target):
                    target = os.path.join(target, "index.html")
                rel = os.path.relpath(page_path, root)
                if not os.path.exists(target):
                    out.append(f"{rel}: {link} (no file {os.path.relpath(target, root)})")
                elif parts.fragment and target.endswith(".html"):
                    if unquote(parts.fragment) not in _parse(target, cache).ids:
                        out.append(f"{rel}: {link} (no anchor #{parts.fragment})")
    return out


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "_build", "html")
    if not os.path.isfile(os.path.join(root, "index.html")):
        print(f"check_links: no built site at {root} (run docs/build.sh first)", file=sys.stderr)
        return 2
    bad = broken_links(root)
    for line in bad:
        print(line)
    pages = sum(f.endswith(".html") for _, _, fs in os.walk(root) for f in fs)
    print(f"check_links: {pages} pages, {len(bad)} broken internal link(s)", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
