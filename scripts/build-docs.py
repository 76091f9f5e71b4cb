"""Renders the user guide (docs/src/*.md) into a static site (docs/book/*.html).

Usage: python scripts/build-docs.py [OUT_DIR]   (default docs/book; needs `markdown` from PyPI)

The pages and their order are the table of contents below: a page missing from it, or a
listed page missing on disk, is an error, so the guide cannot silently lose a page. Links
between pages are written to the .md files (so they work on GitHub too) and rewritten to the
.html pages here; links into the repository (../../models/...) are kept as they are, and
resolve the same way from docs/book/ as from docs/src/. Every page gets the same sidebar.
"""
from __future__ import annotations

import html
import re
import sys
from pathlib import Path

import markdown

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "docs" / "src"

# (section, [(file stem, title in the sidebar)]), in reading order: users first.
CONTENTS = [
    ("", [("introduction", "What lcsfmu does"), ("getting-started", "Getting started")]),
    ("Tutorials", [("model-file", "The model file (matrices)"), ("blocks", "Blocks"),
                   ("mechanical", "Mechanical models"), ("circuits", "Circuits (SPICE netlists)"),
                   ("sampled", "Sampled-data controllers")]),
    ("Schemes", [("scheme-theta", "Theta time-stepping"),
                 ("nonlinear", "Nonlinear models and time"),
                 ("scheme-event-driven", "Event-driven integration")]),
    ("FMI", [("fmu", "What each FMU exposes"), ("fmi3", "FMI 3.0 Co-Simulation"),
             ("model-exchange", "Model Exchange"),
             ("chattering", "Where Modelica tools chatter"), ("cosimulation", "Co-simulation"),
             ("sweeps", "Parameter sweeps")]),
    ("Reference", [("cli", "The command line"), ("guarantees", "Guarantees"),
                   ("limitations", "Limitations")]),
    ("Internals", [("lcp-solver", "The LCP solver"), ("performance", "Performance"),
                   ("layout", "Source layout")]),
]

STYLE = """
body { margin: 0; font: 15px/1.5 "DejaVu Sans", sans-serif; color: #222; display: flex; }
nav { width: 15em; min-height: 100vh; padding: 1em; background: #f4f4f6; box-sizing: border-box; }
nav h2 { font-size: 0.8em; text-transform: uppercase; color: #666; margin: 1.2em 0 0.3em; }
nav a { display: block; color: #224; text-decoration: none; padding: 0.1em 0; }
nav a.here { font-weight: bold; }
main { max-width: 52em; padding: 1em 2em 3em; }
pre { background: #f6f6f8; padding: 0.6em; overflow-x: auto; }
code { font-family: "DejaVu Sans Mono", monospace; font-size: 0.92em; }
table { border-collapse: collapse; margin: 0.8em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; vertical-align: top; }
"""


def pages() -> list[tuple[str, str]]:
    return [page for _, entries in CONTENTS for page in entries]


def check_contents() -> None:
    listed = {stem for stem, _ in pages()}
    on_disk = {p.stem for p in SRC.glob("*.md")}
    if listed != on_disk:
        sys.exit(f"build-docs: table of contents and docs/src disagree: "
                 f"not on disk {sorted(listed - on_disk)}, not listed {sorted(on_disk - listed)}")


def sidebar(current: str) -> str:
    out = []
    for section, entries in CONTENTS:
        if section:
            out.append(f"<h2>{html.escape(section)}</h2>")
        for stem, title in entries:
            here = ' class="here"' if stem == current else ""
            out.append(f'<a href="{stem}.html"{here}>{html.escape(title)}</a>')
    return "\n".join(out)


def page_links_to_html(text: str) -> str:
    """`(page.md)` and `(page.md#anchor)` links between guide pages become .html."""
    return re.sub(r'href="([a-z0-9-]+)\.md(#[^"]*)?"',
                  lambda m: f'href="{m.group(1)}.html{m.group(2) or ""}"', text)


def render(stem: str, title: str) -> str:
    text = (SRC / f"{stem}.md").read_text(encoding="utf-8")
    body = markdown.markdown(text, extensions=["tables", "fenced_code", "toc"])
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{html.escape(title)} — lcsfmu</title>
<style>{STYLE}</style></head>
<body><nav>{sidebar(stem)}</nav>
<main>{page_links_to_html(body)}</main></body></html>
"""


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "book"
    check_contents()
    out.mkdir(parents=True, exist_ok=True)
    for stem, title in pages():
        (out / f"{stem}.html").write_text(render(stem, title), encoding="utf-8")
    (out / "index.html").write_text(render("introduction", "What lcsfmu does"), encoding="utf-8")
    print(f"build-docs: {len(pages())} pages in {out}")


if __name__ == "__main__":
    main()
