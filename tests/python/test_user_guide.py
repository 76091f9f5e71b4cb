"""The user guide (docs/src/*.md, rendered by scripts/build-docs.py into docs/book/).

    test_every_page_renders_in_chromium   each page: a screenshot that is not blank, the
                                          sidebar and a heading in the DOM, no console message
    test_every_link_resolves              every relative link of every page, and of README.md,
                                          names a file that exists, and a page anchor an id
"""
from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from conftest import REPO
from test_documentation import CHROMIUM, open_page

BOOK = REPO / "docs" / "book"
sys.path.insert(0, str(REPO / "scripts"))
import importlib  # noqa: E402

build_docs = importlib.import_module("build-docs")
PAGES = [stem for stem, _ in build_docs.pages()]


@pytest.fixture(scope="module")
def book() -> Path:
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "build-docs.py"), str(BOOK)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return BOOK


class Links(HTMLParser):
    """The hrefs and ids of one HTML page."""

    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"])
        if a.get("id"):
            self.ids.add(a["id"])


def parse(page: Path) -> Links:
    p = Links()
    p.feed(page.read_text(encoding="utf-8"))
    return p


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not found (scripts/system-deps.sh installs it)")
@pytest.mark.parametrize("stem", PAGES)
def test_every_page_renders_in_chromium(book, tmp_path, stem):
    _, dom = open_page(book / f"{stem}.html", tmp_path)
    assert "<nav>" in dom and re.search(r"<h1[ >]", dom), f"{stem}: no sidebar or heading"
    assert dom.count('class="here"') == 1, f"{stem}: the sidebar marks no page as current"


def test_every_link_resolves(book):
    broken = []
    for stem in PAGES:
        page = book / f"{stem}.html"
        for href in parse(page).hrefs:
            url = urlparse(href)
            if url.scheme or href.startswith("mailto:"):
                continue
            target = (page.parent / unquote(url.path)).resolve() if url.path else page
            if not target.exists():
                broken.append(f"{stem}: {href}")
            elif url.fragment and target.suffix == ".html" and url.fragment not in parse(target).ids:
                broken.append(f"{stem}: {href} (no such anchor)")
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for href in re.findall(r"\]\(([^)\s]+)\)", readme):
        if not urlparse(href).scheme and not (REPO / href.split("#")[0]).exists():
            broken.append(f"README.md: {href}")
    assert broken == [], "broken links:\n" + "\n".join(broken)
